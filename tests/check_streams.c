/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_streams.c - unit tests of analyze/lib/input/streams.c: trace files'
 * names, the order of the table, and the bounded pool of handles: never
 * more streams open than it has, the event a closed stream handed out
 * kept valid (its payload in the stash), streams whose payloads cannot
 * be kept never closed, and the same events whatever the bounds and
 * whether a closed stream keeps its records in memory.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "format/encode.h"
#include "input/recfilter.h"
#include "input/streams_test.h"

#define Q_WRITE (WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE))

/* The payload byte of record r of stream k. */
static unsigned char fill(unsigned k, unsigned r)
{
	return (unsigned char)(k * 7 + r);
}

/* DIR/sda.blktrace.K: NREC queue records, times interleaved with the
 * other N streams', payloads of PL bytes (0 for the even records when
 * ODD_ONLY). */
static void write_stream(const char *dir, unsigned k, unsigned n,
			 unsigned nrec, uint16_t pl, bool odd_only)
{
	unsigned char rec[WC_BLK_V8_SIZE + WC_INPUT_STASH_BIG + 64];
	unsigned char pdu[WC_INPUT_STASH_BIG + 64];
	char file[4096];
	FILE *fp;
	unsigned r;

	snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, k);
	fp = fopen(file, "wb");
	ck_assert_ptr_nonnull(fp);
	for (r = 0; r < nrec; r++) {
		struct wc_event ev = {
			.sequence = r + 1, .time = 1000 + (uint64_t)r * n + k,
			.bytes = 4096, .action = Q_WRITE, .pid = k,
			.device = WC_DEV_MAKE(8, 0), .cpu = k, .pdu = pdu,
			.pdu_len = odd_only && r % 2 == 0 ? 0 : pl,
		};
		ssize_t len;

		ev.sector = ev.time * 8;
		memset(pdu, fill(k, r), sizeof(pdu));
		len = wc_blk_encode(rec, sizeof(rec), &ev, WC_BLK_VERSION_7,
				    false, NULL);
		ck_assert_int_gt(len, 0);
		ck_assert_uint_eq(fwrite(rec, 1, (size_t)len, fp), (size_t)len);
	}
	ck_assert_int_eq(fclose(fp), 0);
}

static void limits(struct wc_input_limits *lim, unsigned max_open,
		   bool no_memory)
{
	memset(lim, 0, sizeof(*lim));
	lim->max_open = max_open;
	lim->small_member = WC_INPUT_SMALL_MEMBER;
	lim->mem_budget = WC_INPUT_MEM_BUDGET;
	lim->no_memory = no_memory;
	lim->aside_open = WC_INPUT_ASIDE_OPEN;
}

/* A sealed table of DIR's N files, added in reverse (the seal orders
 * them by CPU). */
static struct wc_streams *table(const char *dir, unsigned n,
				const struct wc_input_limits *lim,
				struct wc_recfilter *f)
{
	struct wc_streams *st = NULL;
	struct wc_err err;
	char file[4096];
	unsigned k;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_streams_new(&st, dir, lim, f, &err), 0);
	for (k = n; k-- > 0;) {
		snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, k);
		ck_assert_int_eq(wc_streams_add(st, file, "sda", k, &err), 0);
	}
	ck_assert_int_eq(wc_streams_seal(st, WC_STREAMS_FILES, &err), 0);
	ck_assert_uint_eq(wc_streams_count(st), n);
	for (k = 0; k < n; k++)
		ck_assert_uint_eq(wc_streams_info(st, k)->cpu, k);
	ck_assert_ptr_null(wc_streams_info(st, n));
	return st;
}

START_TEST(test_names)
{
	size_t base = 0;

	ck_assert_int_eq(wc_streams_name_cpu("sda.blktrace.0", &base), 0);
	ck_assert_uint_eq(base, 3);
	ck_assert_int_eq(wc_streams_name_cpu("x.blktrace.d/sdb.blktrace.12",
					     &base), 12);
	ck_assert_uint_eq(base, 16);
	ck_assert_int_eq(wc_streams_name_cpu("sda.blktrace.65535", NULL), 65535);
	ck_assert_int_eq(wc_streams_name_cpu("sda.blktrace.65536", &base),
			 WC_STREAMS_CPU_BAD);
	ck_assert_int_eq(wc_streams_name_cpu("sda.blktrace.0x1", NULL),
			 WC_STREAMS_CPU_BAD);
	ck_assert_int_eq(wc_streams_name_cpu("sda.blktrace.0.bak", NULL),
			 WC_STREAMS_NOT_TRACE);
	ck_assert_int_eq(wc_streams_name_cpu("sda.blktrace.", NULL),
			 WC_STREAMS_NOT_TRACE);
	ck_assert_int_eq(wc_streams_name_cpu("sda", NULL), WC_STREAMS_NOT_TRACE);
}
END_TEST

/* Two files for one CPU of one device: refused when sealed. */
START_TEST(test_twice)
{
	struct wc_input_limits lim;
	struct wc_recfilter *f = NULL;
	struct wc_streams *st = NULL;
	struct wc_err err;

	limits(&lim, WC_INPUT_MAX_OPEN, false);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_streams_new(&st, "t", &lim, f, &err), 0);
	ck_assert_int_eq(wc_streams_add(st, "t/sda.blktrace.1", "t/sda", 1, &err), 0);
	ck_assert_int_eq(wc_streams_add(st, "t/sda.blktrace.01", "t/sda", 1, &err), 0);
	ck_assert_int_eq(wc_streams_seal(st, WC_STREAMS_FILES, &err), -1);
	ck_assert_msg(strstr(err.msg, "two trace files for CPU 1"), "%s", err.msg);
	wc_streams_free(st);
	wc_recfilter_free(f);
	wc_streams_free(NULL);
}
END_TEST

/*
 * Twelve streams pulled round-robin, an event of each held at a time as
 * the merge holds them, under a pool of MAX_OPEN handles: at most that
 * many open after every pull, and every held event still whole after
 * the other streams' pulls closed its stream.  Returns a digest of the
 * events in pull order.
 */
static uint64_t round_robin(const char *dir, unsigned max_open,
			    bool no_memory)
{
	enum { N = 12, NREC = 40 };
	struct wc_input_limits lim;
	struct wc_recfilter *f = NULL;
	struct wc_streams *st;
	struct wc_event held[N];
	struct wc_err err;
	uint64_t h = 1469598103934665603ull;
	unsigned k, r, i;

	limits(&lim, max_open, no_memory);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	st = table(dir, N, &lim, f);
	ck_assert(wc_streams_may_close(st) == (max_open < N));
	wc_err_clear(&err);
	for (r = 0; r < NREC; r++) {
		for (k = 0; k < N; k++) {
			ck_assert_msg(wc_streams_pull_one(st, k, &held[k], 0, &err) == 1,
				      "stream %u record %u: %s", k, r, err.msg);
			ck_assert_uint_le(wc_streams_open_count(st), max_open);
		}
		for (k = 0; k < N; k++) {
			ck_assert_uint_eq(held[k].time, 1000 + r * N + k);
			ck_assert_uint_eq(held[k].pdu_len, 16);
			for (i = 0; i < held[k].pdu_len; i++)
				ck_assert_uint_eq(held[k].pdu[i], fill(k, r));
			h = (h ^ held[k].time ^ held[k].pdu[0]) * 1099511628211ull;
		}
	}
	for (k = 0; k < N; k++) {
		ck_assert_int_eq(wc_streams_pull_one(st, k, &held[k], 0, &err), 0);
		ck_assert_uint_eq(wc_streams_info(st, k)->events, NREC);
	}
	/* Streams that ended hold no handle. */
	ck_assert_uint_eq(wc_streams_open_count(st), 0);
	wc_streams_free(st);
	wc_recfilter_free(f);
	return h;
}

START_TEST(test_pool_bounds)
{
	char dir[4096];
	uint64_t all, few, kept;
	unsigned k;

	snprintf(dir, sizeof(dir), "%s", wc_check_tmpdir());
	for (k = 0; k < 12; k++)
		write_stream(dir, k, 12, 40, 16, false);
	all = round_robin(dir, WC_INPUT_MAX_OPEN, true);
	/* Closed and reopened at the record after the one handed out. */
	few = round_robin(dir, 3, true);
	/* Closed streams keep the records their handles can still read. */
	kept = round_robin(dir, 3, false);
	ck_assert_uint_eq(all, few);
	ck_assert_uint_eq(all, kept);
	few = round_robin(dir, 1, true);
	ck_assert_uint_eq(all, few);
}
END_TEST

/* Streams whose held event's payload does not fit what is set aside
 * (WC_INPUT_STASH_BIG) are never closed: when all open ones are such,
 * the pull fails rather than close one; the odd records only have such
 * payloads, so the streams closed meanwhile can be.  A payload past
 * the stash but within that (a message's) is set aside: its stream is
 * closed, the payload intact. */
START_TEST(test_pinned)
{
	const uint16_t pl[2] = { WC_INPUT_STASH + 8, WC_INPUT_STASH_BIG + 8 };
	struct wc_input_limits lim;
	struct wc_recfilter *f = NULL;
	struct wc_streams *st;
	struct wc_event ev[4];
	struct wc_err err;
	char dir[4096];
	unsigned k, p;

	snprintf(dir, sizeof(dir), "%s", wc_check_tmpdir());
	for (p = 0; p < 2; p++) {
		for (k = 0; k < 4; k++)
			write_stream(dir, k, 4, 4, pl[p], true);
		limits(&lim, 3, true);
		ck_assert_int_eq(wc_recfilter_open(&f), 0);
		st = table(dir, 4, &lim, f);
		wc_err_clear(&err);
		/* Record 0 (no payload) of each: closed and taken up
		 * again. */
		for (k = 0; k < 4; k++)
			ck_assert_int_eq(wc_streams_pull_one(st, k, &ev[k], 0,
							     &err), 1);
		/* Record 1 of 0, 1 and 2: all three handles. */
		for (k = 0; k < 3; k++) {
			ck_assert_int_eq(wc_streams_pull_one(st, k, &ev[k], 0,
							     &err), 1);
			ck_assert_uint_eq(ev[k].pdu_len, pl[p]);
		}
		ck_assert_uint_eq(wc_streams_open_count(st), 3);
		if (p == 0) {
			/* Set aside: stream 0, used longest ago, closed
			 * for stream 3. */
			ck_assert_msg(wc_streams_pull_one(st, 3, &ev[3], 0,
							  &err) == 1,
				      "%s", err.msg);
			ck_assert_uint_eq(wc_streams_open_count(st), 3);
		} else {
			/* Pinned, all three handles. */
			ck_assert_int_eq(wc_streams_pull_one(st, 3, &ev[3], 0,
							     &err), -1);
			ck_assert_msg(strstr(err.msg, "more than 3 trace files "
					     "hold payloads"), "%s", err.msg);
		}
		/* The events held were not touched. */
		for (k = 0; k < 3; k++)
			ck_assert_uint_eq(ev[k].pdu[pl[p] - 1], fill(k, 1));
		wc_streams_free(st);
		wc_recfilter_free(f);
		f = NULL;
	}
}
END_TEST

/* Bytes held in memory need no handle: a run reads them straight, and
 * the table frees them. */
START_TEST(test_memory)
{
	struct wc_input_limits lim;
	struct wc_recfilter *f = NULL;
	struct wc_streams *st = NULL;
	struct wc_event evs[64];
	struct wc_err err;
	char dir[4096], file[4096];
	unsigned char *bytes;
	size_t len, got, total = 0;
	int r;

	snprintf(dir, sizeof(dir), "%s", wc_check_tmpdir());
	write_stream(dir, 0, 1, 100, 16, true);
	ck_assert_int_lt(snprintf(file, sizeof(file), "%s/sda.blktrace.0", dir),
			 (int)sizeof(file));
	bytes = wc_check_slurp(file, &len);
	ck_assert_ptr_nonnull(bytes);
	limits(&lim, 1, true);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_streams_new(&st, "x.tar", &lim, f, &err), 0);
	ck_assert_int_eq(wc_streams_add(st, "c/sda.blktrace.0", "c/sda", 0, &err), 0);
	wc_streams_hold_memory(st, 0, bytes, len);
	ck_assert_uint_eq(wc_streams_mem_used(st), len);
	ck_assert_int_eq(wc_streams_seal(st, WC_STREAMS_MEMBERS, &err), 0);
	ck_assert(wc_streams_in_memory(st, 0));
	ck_assert(!wc_streams_may_close(st));
	while ((r = wc_streams_pull(st, 0, evs, 64, UINT64_MAX, 0, &got,
					&err)) == 1) {
		ck_assert_uint_eq(wc_streams_open_count(st), 0);
		ck_assert_uint_eq(evs[0].time, 1000 + total);
		total += got;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(total, 100);
	wc_streams_free(st);
	wc_recfilter_free(f);
}
END_TEST

static Suite *streams_suite(void)
{
	Suite *s = suite_create("streams");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_twice);
	tcase_add_test(tc, test_pool_bounds);
	tcase_add_test(tc, test_pinned);
	tcase_add_test(tc, test_memory);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(streams_suite)
