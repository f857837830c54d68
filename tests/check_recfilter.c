/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_recfilter.c - unit tests of analyze/lib/input/recfilter.c: which records
 * become events, process names, sequence gaps, their bounds, and that a
 * stream filtered a record at a time gives what it gives in batches of
 * any size (the one implementation the input's per-event and run paths
 * share), checked against a model of blkparse's skips.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "input/recfilter.h"
#include "base/wclimits.h"

#define Q_ACTION (WC_TC(WC_TC_QUEUE) | WC_TA_QUEUE)
#define NOTIFY_TIME (WC_TC(WC_TC_NOTIFY) | WC_TN_TIMESTAMP)

static struct wc_event event(uint64_t action, uint32_t dev, uint32_t cpu,
			     uint32_t seq)
{
	struct wc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.action = action;
	ev.device = dev;
	ev.cpu = cpu;
	ev.sequence = seq;
	ev.time = seq;
	return ev;
}

static struct wc_event process(uint32_t pid, const char *name)
{
	struct wc_event ev = event(WC_ACTION_PROCESS, 1, 0, 0);

	ev.pid = pid;
	ev.pdu = (const unsigned char *)name;
	ev.pdu_len = (uint16_t)strlen(name);
	return ev;
}

START_TEST(test_notify)
{
	struct wc_recfilter *f = NULL;
	struct wc_event evs[6];
	uint64_t skips = 0;
	size_t kept = 99;

	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_ptr_null(wc_recfilter_comm(f, 42));
	evs[0] = process(42, "cp");
	evs[1] = event(Q_ACTION, 1, 0, 0);
	evs[2] = event(NOTIFY_TIME, 1, 0, 0);
	evs[3] = event(WC_ACTION_MESSAGE, 1, 0, 7);
	/* A second name for 42 does not replace the first; a name of more
	 * than 15 characters (no NUL in the record) is cut. */
	evs[4] = process(42, "rm");
	evs[5] = process(43, "a-very-long-command-name");
	evs[1].time = 11;
	evs[3].time = 33;
	ck_assert_int_eq(wc_recfilter_apply(f, evs, 6, &kept, &skips), 0);
	ck_assert_uint_eq(kept, 2);
	ck_assert_uint_eq(evs[0].time, 11);
	ck_assert_uint_eq(evs[1].time, 33);
	ck_assert_uint_eq(evs[1].action, WC_ACTION_MESSAGE);
	/* A message's sequence number is no event's: no gap. */
	ck_assert_uint_eq(skips, 0);
	ck_assert_str_eq(wc_recfilter_comm(f, 42), "cp");
	ck_assert_str_eq(wc_recfilter_comm(f, 43), "a-very-long-com");
	ck_assert_int_eq(wc_recfilter_name(f, 44, (const unsigned char *)"dd", 2), 0);
	ck_assert_int_eq(wc_recfilter_name(f, 44, (const unsigned char *)"xx", 2), 0);
	ck_assert_str_eq(wc_recfilter_comm(f, 44), "dd");
	/* Only notify records: nothing kept. */
	evs[0] = event(NOTIFY_TIME, 1, 0, 0);
	ck_assert_int_eq(wc_recfilter_apply(f, evs, 1, &kept, &skips), 0);
	ck_assert_uint_eq(kept, 0);
	ck_assert_int_eq(wc_recfilter_apply(f, evs, 0, &kept, &skips), 0);
	ck_assert_uint_eq(kept, 0);
	wc_recfilter_free(f);
	wc_recfilter_free(NULL);
}
END_TEST

START_TEST(test_gaps)
{
	struct wc_recfilter *f = NULL;
	/* Two CPUs of one device interleaved, as a merged file has them:
	 * CPU 0 skips 3 and 4, CPU 1 skips 2; tracefs's 0 counts nothing. */
	struct wc_event evs[] = {
		event(Q_ACTION, 8, 0, 1), event(Q_ACTION, 8, 1, 1),
		event(Q_ACTION, 8, 0, 2), event(Q_ACTION, 8, 1, 3),
		event(Q_ACTION, 8, 0, 5), event(Q_ACTION, 8, 0, 0),
		event(Q_ACTION, 8, 1, 4), event(Q_ACTION, 9, 0, 10),
		event(Q_ACTION, 9, 0, 12),
	};
	uint64_t skips = 100;
	size_t kept;

	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_recfilter_apply(f, evs, 9, &kept, &skips), 0);
	ck_assert_uint_eq(kept, 9);
	/* Added to what the caller had; device 9's first number (10) is
	 * no gap, its 11 is. */
	ck_assert_uint_eq(skips, 100 + 2 + 1 + 1);
	wc_recfilter_free(f);
}
END_TEST

START_TEST(test_repeats)
{
	struct wc_recfilter *f = NULL;
	/* A merged file of CPU 0's file given three times: each record
	 * thrice in a row; CPU 1's once; tracefs's 0s never repeat. */
	struct wc_event evs[] = {
		event(Q_ACTION, 8, 0, 1), event(Q_ACTION, 8, 0, 1),
		event(Q_ACTION, 8, 0, 1), event(Q_ACTION, 8, 1, 1),
		event(Q_ACTION, 8, 0, 2), event(Q_ACTION, 8, 0, 2),
		event(Q_ACTION, 8, 0, 2), event(Q_ACTION, 8, 1, 2),
		event(Q_ACTION, 8, 1, 0), event(Q_ACTION, 8, 1, 0),
	};
	uint64_t skips = 0;
	size_t kept;

	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_recfilter_apply(f, evs, 10, &kept, &skips), 0);
	ck_assert_uint_eq(kept, 10);
	ck_assert_uint_eq(skips, 0);
	ck_assert_uint_eq(wc_recfilter_repeats(f), 4);
	wc_recfilter_free(f);
}
END_TEST

/* blkparse's skips of a stream of records, the plain way: the last
 * number of every (device, CPU) in an array. */
struct model {
	uint64_t keys[WC_INPUT_MAX_SEQ_KEYS];
	uint32_t last[WC_INPUT_MAX_SEQ_KEYS];
	size_t n;
	uint64_t skips;
};

static void model_run(struct model *m, const struct wc_event *ev)
{
	uint64_t key = (uint64_t)ev->device << 32 | ev->cpu;
	size_t i;

	if (wc_event_is_notify(ev) || !ev->sequence)
		return;
	for (i = 0; i < m->n && m->keys[i] != key; i++)
		;
	if (i == m->n) {
		if (m->n == WC_INPUT_MAX_SEQ_KEYS)
			return;
		m->keys[m->n] = key;
		m->last[m->n++] = 0;
	}
	if (m->last[i] && ev->sequence > m->last[i] + 1)
		m->skips += ev->sequence - m->last[i] - 1;
	m->last[i] = ev->sequence;
}

/* A stream of N records over NKEYS (device, CPU) pairs, some notify,
 * with gaps; devices sda, sdb, ... (minors 16 apart) and their CPUs. */
static struct wc_event *stream(size_t n, unsigned nkeys, unsigned seed)
{
	struct wc_event *evs = calloc(n, sizeof(*evs));
	uint32_t *seq = calloc(nkeys, sizeof(*seq));
	unsigned k;
	size_t i;

	ck_assert_ptr_nonnull(evs);
	ck_assert_ptr_nonnull(seq);
	srand(seed);
	for (i = 0, k = 0; i < n; i++) {
		int kind = rand() % 20;

		/* Runs of one key, as a per-CPU file has, or turns. */
		if (rand() % 4 == 0)
			k = (unsigned)rand() % nkeys;
		seq[k] += 1u + (rand() % 50 == 0 ? (unsigned)rand() % 9 : 0u);
		evs[i] = event(Q_ACTION, (8u << 20) | (16u * (k / 8u)), k % 8u,
			       rand() % 100 == 0 ? 0u : seq[k]);
		if (kind == 0)
			evs[i] = process((uint32_t)(rand() % 30),
					 i % 2 ? "kworker" : "cp");
		else if (kind == 1)
			evs[i].action = WC_ACTION_MESSAGE;
		else if (kind == 2)
			evs[i].action = NOTIFY_TIME;
		evs[i].time = i;
	}
	free(seq);
	return evs;
}

/*
 * The same records a record at a time, in batches of random sizes, and
 * all at once: the same events kept in the same order, the same skips,
 * the same names, and the skips of the model.  Keys from 1 (the cache
 * always hits) to past the bound (the map is full).
 */
START_TEST(test_batch_of_one)
{
	static const unsigned nkeys[] = { 1, 3, 8, 64, 200, WC_INPUT_MAX_SEQ_KEYS + 50 };
	size_t t;

	for (t = 0; t < sizeof(nkeys) / sizeof(nkeys[0]); t++) {
		/* The model looks keys up one by one: fewer records past
		 * the bound. */
		const size_t n = nkeys[t] > 1000 ? 40000 : 200000;
		struct wc_event *src = stream(n, nkeys[t], 7 + (unsigned)t);
		struct wc_event *out[3], one;
		struct wc_recfilter *f[3];
		struct model *m = calloc(1, sizeof(*m));
		uint64_t skips[3] = { 0, 0, 0 };
		size_t got[3] = { 0, 0, 0 }, i, j, kept;
		uint32_t pid;

		ck_assert_ptr_nonnull(m);
		for (j = 0; j < 3; j++) {
			ck_assert_int_eq(wc_recfilter_open(&f[j]), 0);
			out[j] = calloc(n, sizeof(**out));
			ck_assert_ptr_nonnull(out[j]);
		}
		for (i = 0; i < n; i++) {
			model_run(m, &src[i]);
			one = src[i];
			ck_assert_int_eq(wc_recfilter_apply(f[0], &one, 1, &kept,
							    &skips[0]), 0);
			ck_assert_uint_le(kept, 1);
			if (kept)
				out[0][got[0]++] = one;
		}
		memcpy(out[1], src, n * sizeof(*src));
		for (i = 0; i < n; ) {
			size_t b = 1 + (size_t)rand() % 100;

			if (b > n - i)
				b = n - i;
			memcpy(out[1] + got[1], src + i, b * sizeof(*src));
			ck_assert_int_eq(wc_recfilter_apply(f[1], out[1] + got[1],
							    b, &kept, &skips[1]), 0);
			got[1] += kept;
			i += b;
		}
		memcpy(out[2], src, n * sizeof(*src));
		ck_assert_int_eq(wc_recfilter_apply(f[2], out[2], n, &got[2],
						    &skips[2]), 0);
		ck_assert_uint_gt(m->skips, 0);
		for (j = 0; j < 3; j++) {
			ck_assert_uint_eq(skips[j], m->skips);
			ck_assert_uint_eq(got[j], got[0]);
			for (i = 0; i < got[0]; i++)
				ck_assert_uint_eq(out[j][i].time, out[0][i].time);
			for (pid = 0; pid < 30; pid++) {
				const char *a = wc_recfilter_comm(f[0], pid);
				const char *b = wc_recfilter_comm(f[j], pid);

				ck_assert(!a == !b);
				if (a)
					ck_assert_str_eq(a, b);
			}
		}
		for (j = 0; j < 3; j++) {
			wc_recfilter_free(f[j]);
			free(out[j]);
		}
		free(m);
		free(src);
	}
}
END_TEST

static Suite *recfilter_suite(void)
{
	Suite *s = suite_create("recfilter");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_notify);
	tcase_add_test(tc, test_gaps);
	tcase_add_test(tc, test_repeats);
	tcase_add_test(tc, test_batch_of_one);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(recfilter_suite)
