/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_blkorder.c - unit tests of analyze/lib/compat/blkorder.c: the
 * order "blkparse -i -" prints one stream in, against a direct model of
 * blkparse 1.2's do_pipe(), on traces full of equal times, twins on two
 * CPUs, messages, ties across the ends of its 512-event batches and
 * sequence gaps; read alone and through the reorder window that keeps
 * the events for --dump (wc_reorder_set_blkparse(), input/reorder.h).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "check_common.h"
#include "compat/blkorder.h"
#include "input/reorder.h"

struct bpsrc {
	struct wc_event evs[2000];
	unsigned n, pos;
};

/* The events in order, each with its arrival in pid. */
static size_t bo_read(void *ctx, const struct wc_event **evs, size_t max)
{
	struct bpsrc *q = ctx;
	size_t n;

	for (n = 0; n < max && q->pos < q->n; n++)
		evs[n] = &q->evs[q->pos++];
	return n;
}

static int bo_pull(void *ctx, unsigned s, struct wc_event *out, size_t max,
		   uint64_t limit, unsigned flags, size_t *got,
		   struct wc_err *err)
{
	struct bpsrc *q = ctx;

	(void)s;
	(void)limit;
	(void)flags;
	(void)err;
	for (*got = 0; *got < max && q->pos < q->n; (*got)++)
		out[*got] = q->evs[q->pos++];
	return *got > 0;
}

static const uint64_t message = WC_TC(WC_TC_NOTIFY) | WC_TN_MESSAGE;

/* blkparse 1.2's do_pipe() on q, as it is written: read_events() takes
 * 512 events onto the front of a list, sort_entries() puts the list into
 * the tree (an event equal in (time, device, sequence) to one there goes
 * right of it), show_entries_rb() prints from the front while
 * check_sequence() lets it, and at the end prints everything (force). */
static unsigned model_blkparse(const struct bpsrc *q, unsigned *out)
{
	static unsigned tree[2000];
	uint64_t last[2][4];
	unsigned nt = 0, next = 0, nout = 0, force = 0;

	memset(last, 0xff, sizeof(last));
	for (;;) {
		unsigned batch[512], nb = 0;

		while (nb < 512 && next < q->n)
			batch[nb++] = next++;
		if (nb == 0)
			force = 1;
		while (nb > 0) {
			const struct wc_event *e = &q->evs[batch[--nb]];
			unsigned lo = 0, hi = nt;

			while (lo < hi) {   /* upper bound: right of equals */
				unsigned mid = (lo + hi) / 2;
				const struct wc_event *m = &q->evs[tree[mid]];

				if (e->time != m->time ? e->time < m->time :
				    e->device != m->device ? e->device < m->device :
				    e->sequence < m->sequence)
					hi = mid;
				else
					lo = mid + 1;
			}
			memmove(&tree[lo + 1], &tree[lo], (nt - lo) * sizeof(*tree));
			tree[lo] = batch[nb];
			nt++;
		}
		while (nt > 0) {
			const struct wc_event *e = &q->evs[tree[0]];
			uint64_t *l = &last[e->device][e->cpu];

			if (e->action != message) {
				if (*l + 1 != 0 && e->sequence != *l + 1 &&
				    !force)
					break;
				*l = e->sequence;
			}
			out[nout++] = tree[0];
			memmove(&tree[0], &tree[1], --nt * sizeof(*tree));
		}
		if (force)
			return nout;
	}
}

/* Traces in time order with equal times everywhere, twins equal in
 * (time, device, sequence) on two CPUs, messages, ties across the ends
 * of blkparse's batches; sequence numbers that follow, that have gaps,
 * or that are all 0 as tracefs writes them.  Read alone (taking one
 * event when it may read, up to 7 when it may not: a caller that looks
 * at each batch read before the next) and through the window, 64 a
 * batch. */
START_TEST(test_blkorder_matches_model)
{
	static struct bpsrc q;
	static unsigned want[2000];
	static const size_t windows[] = { 512, 600, 3000 };
	uint64_t seed = 0x9e3779b97f4a7c15ull + (uint64_t)_i * 104729;
	uint32_t seqs[2][4];
	unsigned i, n, kind = (unsigned)_i % 3;
	size_t w;

	memset(&q, 0, sizeof(q));
	memset(seqs, 0, sizeof(seqs));
	q.n = 2000;
	for (i = 0; i < q.n; i++) {
		struct wc_event *e = &q.evs[i];

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		e->time = 1000 + i / 3 * 10;
		e->device = (uint32_t)(seed >> 20) % 2;
		e->cpu = (uint32_t)(seed >> 24) % 2 * 2;
		e->action = WC_TC(WC_TC_WRITE) | 7;
		if (seed % 29 == 0) {
			e->action = message;
			e->cpu = 3;
		}
		/* Every event of CPU 0 has a twin on CPU 1, so CPU 1's
		 * sequence numbers follow as CPU 0's do. */
		if (i > 0 && q.evs[i - 1].cpu == 0 &&
		    q.evs[i - 1].action != message) {
			*e = q.evs[i - 1];
			e->cpu = 1;
		} else {
			if (kind == 1 && seed % 97 == 0)
				seqs[e->device][e->cpu] += 5;   /* a gap */
			if (kind != 2 && e->action != message)
				e->sequence = ++seqs[e->device][e->cpu];
		}
		e->pid = i;
	}
	n = model_blkparse(&q, want);
	ck_assert_uint_eq(n, q.n);
	for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		struct wc_blkorder *o = NULL;
		struct wc_reorder *r = NULL;
		const struct wc_event *ev;
		struct wc_err err;
		size_t got, k;
		int ret, held = 0;

		/* A window smaller than what blkparse holds once it waits
		 * cannot give its order. */
		if (kind != 0 && windows[w] < q.n)
			continue;
		q.pos = 0;
		wc_err_clear(&err);
		ck_assert_int_eq(wc_blkorder_open(&o, windows[w], bo_read, &q,
						  &err), 0);
		for (i = 0;; i++) {
			ret = wc_blkorder_next(o, held == 0, &ev);
			if (ret == WC_BLKORDER_WOULD_READ) {
				ck_assert_int_gt(held, 0);
				held = 0;
				i--;
				continue;
			}
			if (ret <= 0)
				break;
			held = (held + 1) % 7;
			ck_assert_uint_lt(i, n);
			ck_assert_uint_eq(ev->pid, want[i]);
		}
		ck_assert_int_eq(ret, 0);
		ck_assert_uint_eq(i, n);
		wc_blkorder_free(o);

		q.pos = 0;
		ck_assert_int_eq(wc_reorder_open(&r, windows[w], bo_pull, &q,
						 &err), 0);
		wc_reorder_set_blkparse(r);
		for (i = 0; wc_reorder_next_ref(r, &ev, WC_REORDER_BATCH, &got,
						&err) > 0;)
			for (k = 0; k < got; k++, i++) {
				ck_assert_uint_lt(i, n);
				ck_assert_uint_eq(ev[k].pid, want[i]);
			}
		ck_assert_int_eq(err.kind, WC_ERR_NONE);
		ck_assert_uint_eq(i, n);
		ck_assert_uint_eq(wc_reorder_genesis(r), 1000);
		wc_reorder_free(r);
	}
}
END_TEST

/* A window of one holds one event: each goes as it is read. */
START_TEST(test_blkorder_window_of_one)
{
	static struct bpsrc q;
	struct wc_blkorder *o = NULL;
	const struct wc_event *ev;
	unsigned i;

	memset(&q, 0, sizeof(q));
	q.n = 5;
	for (i = 0; i < q.n; i++) {
		q.evs[i].time = 100 - i;        /* backwards */
		q.evs[i].pid = i;
	}
	ck_assert_int_eq(wc_blkorder_open(&o, 0, bo_read, &q, NULL), 0);
	for (i = 0; wc_blkorder_next(o, true, &ev) > 0; i++)
		ck_assert_uint_eq(ev->pid, i);
	ck_assert_uint_eq(i, q.n);
	wc_blkorder_free(o);
	wc_blkorder_free(NULL);
}
END_TEST

static Suite *blkorder_suite(void)
{
	Suite *s = suite_create("blkorder");
	TCase *tc = tcase_create("blkorder");

	wc_check_timeout(tc, 30);
	tcase_add_loop_test(tc, test_blkorder_matches_model, 0, 12);
	tcase_add_test(tc, test_blkorder_window_of_one);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(blkorder_suite)
