/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_tracker.c - unit tests of analyze/lib/model/tracker.c over a scripted
 * event source: merges, splits, requeues, empty flushes paired in order,
 * the empty completion that ends a flush sequence, lost events counted,
 * the in-flight cap, thousands in flight with keys queued twice and
 * leaving the hash from the middle, the device cap, a source failing
 * midway, a bio's node that becomes its request's (creation order, cap,
 * fields, a D whose end wraps),
 * notify records counted but not opening the window, the same
 * requests from a batch source wherever its batches begin and end, and
 * handed out many at a time; look-ups that stay O(1) with thousands of
 * bios queued at one sector, and at sectors chosen to share a bucket.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "model/tracker.h"
#include "model/tracker_test.h"

#define DEV WC_DEV_MAKE(7u, 1u)
#define T(b) WC_TC(b)
#define W (T(WC_TC_WRITE))
#define FLUSH (T(WC_TC_WRITE) | T(WC_TC_FLUSH))
#define MS 1000000ull

struct src {
	const struct wc_event *ev;
	size_t n, i;
	size_t fail_at;            /* index that fails, or n */
};

static int src_next(void *ctx, struct wc_event *ev, struct wc_err *err)
{
	struct src *s = ctx;

	if (s->i == s->fail_at)
		return wc_err_set(err, WC_ERR_INPUT, "x", NULL, 48,
				  "truncated record");
	if (s->i >= s->n)
		return 0;
	*ev = s->ev[s->i++];
	return 1;
}

static struct wc_event E(uint64_t t, unsigned what, uint64_t flags,
			 uint64_t sector, uint32_t bytes)
{
	struct wc_event e;

	memset(&e, 0, sizeof(e));
	e.time = t;
	e.action = what | flags;
	e.sector = sector;
	e.bytes = bytes;
	e.device = DEV;
	e.pid = 42;
	e.version = 7;
	return e;
}

/* The hardware queues run() gives DEV (0: none), and whether it calls
 * the trace lossy (wc_tracker_set_lossy()). */
static uint32_t run_hw_queues;
static bool run_lossy;

/* Runs the tracker over evs; returns the number of requests in out. */
static size_t run(const struct wc_event *evs, size_t n, size_t fail_at,
		  struct wc_request *out, size_t max,
		  struct wc_tracker_stats *st, int *last)
{
	struct src s = { evs, n, 0, fail_at };
	struct wc_tracker *tr = NULL;
	struct wc_err err;
	struct wc_request rq;
	size_t k = 0;
	int r;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_tracker_open_source(&tr, src_next, &s, &err), 0);
	if (run_hw_queues)
		ck_assert_int_eq(wc_tracker_set_hw_queues(tr, DEV,
							  run_hw_queues), 0);
	if (run_lossy)
		wc_tracker_set_lossy(tr);
	while ((r = wc_tracker_next(tr, &rq, &err)) > 0) {
		ck_assert_uint_lt(k, max);
		out[k++] = rq;
	}
	if (last)
		*last = r;
	if (r < 0)
		ck_assert_str_eq(err.msg, "truncated record");
	if (st)
		*st = *wc_tracker_stats(tr);
	wc_tracker_free(tr);
	return k;
}

START_TEST(test_merge)
{
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 1000, 4096),
		E(110, WC_TA_GETRQ, W, 1000, 4096),
		E(120, WC_TA_QUEUE, W, 1008, 8192),
		E(121, WC_TA_BACKMERGE, W, 1008, 8192),
		E(90 + 40, WC_TA_QUEUE, W, 996, 2048),  /* front merge */
		E(131, WC_TA_FRONTMERGE, W, 996, 2048),
		E(200, WC_TA_ISSUE, W | T(WC_TC_SYNC), 996, 14336),
		E(500, WC_TA_COMPLETE, W | T(WC_TC_SYNC), 996, 14336),
	};
	struct wc_request rq[4];
	struct wc_tracker_stats st;

	ck_assert_uint_eq(run(evs, 8, 8, rq, 4, &st, NULL), 1);
	ck_assert_uint_eq(rq[0].nbios, 3);
	ck_assert_uint_eq(rq[0].q_time, 100);
	ck_assert_uint_eq(rq[0].d_time, 200);
	ck_assert_uint_eq(rq[0].c_time, 500);
	ck_assert_uint_eq(rq[0].sector, 996);
	ck_assert_uint_eq(rq[0].bytes, 14336);
	ck_assert(rq[0].completed);
	ck_assert(rq[0].action & T(WC_TC_SYNC));
	ck_assert_uint_eq(rq[0].action & 0xffff, 0);
	ck_assert_uint_eq(st.never_dispatched, 0);
	ck_assert_uint_eq(st.requests, 1);
	ck_assert_uint_eq(st.first_time, 100);
	ck_assert_uint_eq(st.last_time, 500);
}
END_TEST

START_TEST(test_flush_pairs_in_order)
{
	/* A preflush+FUA write on a device without FUA: flush, write,
	 * post-flush, then the empty end of the sequence; and a pure
	 * flush in flight beside the post-flush, which only a device with
	 * several hardware queues (a flush queue each) can have: there
	 * flushes pair first in first out. */
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, FLUSH | T(WC_TC_FUA), 5000, 4096),
		E(110, WC_TA_ISSUE, FLUSH, 0, 0),
		E(200, WC_TA_COMPLETE, FLUSH, 0, 0),
		E(210, WC_TA_ISSUE, W, 5000, 4096),
		E(250, WC_TA_COMPLETE, W, 5000, 4096),
		E(260, WC_TA_ISSUE, FLUSH, 0, 0),
		E(270, WC_TA_QUEUE, FLUSH, 0, 0),       /* a pure flush bio */
		E(280, WC_TA_ISSUE, FLUSH, 0, 0),
		E(400, WC_TA_COMPLETE, FLUSH, 0, 0),
		E(410, WC_TA_COMPLETE, W, 5000, 0),     /* sequence end */
		E(500, WC_TA_COMPLETE, FLUSH, 0, 0),
	};
	struct wc_request rq[8];
	struct wc_tracker_stats st;

	run_hw_queues = 2;
	ck_assert_uint_eq(run(evs, 11, 11, rq, 8, &st, NULL), 4);
	run_hw_queues = 0;
	ck_assert_uint_eq(rq[0].bytes, 0);
	ck_assert_uint_eq(rq[0].d_time, 110);
	ck_assert_uint_eq(rq[0].c_time, 200);
	ck_assert_uint_eq(rq[0].q_time, WC_NO_TIME);
	ck_assert_uint_eq(rq[1].q_time, 100);           /* the write's bio */
	ck_assert_uint_eq(rq[1].c_time, 250);
	ck_assert_uint_eq(rq[2].d_time, 260);           /* first in, first out */
	ck_assert_uint_eq(rq[2].c_time, 400);
	ck_assert_uint_eq(rq[2].q_time, WC_NO_TIME);
	ck_assert_uint_eq(rq[3].d_time, 280);
	ck_assert_uint_eq(rq[3].q_time, 270);
	ck_assert_uint_eq(rq[3].c_time, 500);
	ck_assert_uint_eq(rq[3].depth, 2);
	ck_assert_uint_eq(st.sequence_ends, 1);
	ck_assert_uint_eq(st.orphan_completions, 0);
}
END_TEST

/* One flush in flight (block/blk-flush.c, blk_kick_flush(), C1): on a
 * device with one hardware queue, or no count given in a trace known to
 * have lost events, a flush C is the newest flush D's; the older one
 * lost its C (a CPU's file missing) and is never paired.  First in
 * first out, it made a D2C of 0.2 s. */
START_TEST(test_flush_one_in_flight)
{
	const struct wc_event evs[] = {
		E(100 * MS, WC_TA_ISSUE, FLUSH, 0, 0),    /* its C lost */
		E(300 * MS, WC_TA_ISSUE, FLUSH, 0, 0),
		E(301 * MS, WC_TA_COMPLETE, FLUSH, 0, 0),
		/* A C whose D was lost: nothing left to pair with. */
		E(400 * MS, WC_TA_COMPLETE, FLUSH, 0, 0),
		/* A requeued flush dispatched again is the same flush. */
		E(500 * MS, WC_TA_ISSUE, FLUSH, 0, 0),
		E(501 * MS, WC_TA_REQUEUE, FLUSH, 0, 0),
		E(502 * MS, WC_TA_ISSUE, FLUSH, 0, 0),
		E(503 * MS, WC_TA_COMPLETE, FLUSH, 0, 0),
	};
	/* One queue; no count, lossy; several queues (first in first
	 * out); no count, a whole trace (likewise). */
	const uint32_t queues[] = { 1, 0, 2, 0, 2 };
	const bool lossy[] = { false, true, false, false, true };
	struct wc_request rq[8];
	struct wc_tracker_stats st;
	size_t i;

	for (i = 0; i < 5; i++) {
		run_hw_queues = queues[i];
		run_lossy = lossy[i];
		ck_assert_uint_eq(run(evs, 8, 8, rq, 8, &st, NULL), 3);
		run_hw_queues = 0;
		run_lossy = false;
		if (i >= 2) {
			/* First in first out, as before. */
			ck_assert_uint_eq(rq[0].d_time, 100 * MS);
			ck_assert_uint_eq(rq[1].d_time, 300 * MS);
			ck_assert_uint_eq(st.superseded, 0);
			continue;
		}
		ck_assert(rq[0].completed);
		ck_assert_uint_eq(rq[0].d_time, 300 * MS);
		ck_assert_uint_eq(rq[0].c_time, 301 * MS);
		ck_assert_uint_eq(rq[0].depth, 2);
		ck_assert(rq[1].completed);
		ck_assert_uint_eq(rq[1].d_time, 502 * MS);
		ck_assert_uint_eq(rq[1].c_time, 503 * MS);
		ck_assert_uint_eq(rq[1].requeues, 1);
		ck_assert_uint_eq(rq[1].depth, 1);
		ck_assert(!rq[2].completed);
		ck_assert_uint_eq(rq[2].d_time, 100 * MS);
		ck_assert_uint_eq(st.superseded, 1);
		ck_assert_uint_eq(st.expired, 0);
		ck_assert_uint_eq(st.unfinished, 1);
		ck_assert_uint_eq(st.orphan_completions, 1);
		ck_assert_uint_eq(st.requests, 2);
	}
}
END_TEST

/* The flush blk-mq dispatches from a kworker for a preflush write is
 * credited to the write's thread; an empty Q's own flush to its own. */
START_TEST(test_flush_cause)
{
	struct wc_event ev[10];
	struct wc_request rq[4];
	size_t n;

	ev[0] = E(1, WC_TA_QUEUE, FLUSH | T(WC_TC_FUA) | T(WC_TC_SYNC), 800, 4096);
	ev[0].pid = 7;                         /* Q FWFS [jbd2/sda1-8] */
	ev[1] = E(2, WC_TA_ISSUE, FLUSH, 0, 0);
	ev[1].pid = 99;                        /* D FN [kworker/0:1H] */
	ev[2] = E(3, WC_TA_COMPLETE, FLUSH, 0, 0);
	ev[3] = E(4, WC_TA_ISSUE, W | T(WC_TC_FUA), 800, 4096);
	ev[4] = E(5, WC_TA_COMPLETE, W | T(WC_TC_FUA), 800, 4096);
	ev[5] = E(6, WC_TA_QUEUE, FLUSH, 0, 0);
	ev[5].pid = 8;                         /* Q FN [fsync caller] */
	ev[6] = E(7, WC_TA_ISSUE, FLUSH, 0, 0);
	ev[6].pid = 99;
	ev[7] = E(8, WC_TA_COMPLETE, FLUSH, 0, 0);
	ev[8] = E(9, WC_TA_ISSUE, W, 900, 4096);   /* a plain write: no cause */
	ev[9] = E(10, WC_TA_COMPLETE, W, 900, 4096);
	n = run(ev, 10, 10, rq, 4, NULL, NULL);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(rq[0].bytes, 0);
	ck_assert_uint_eq(rq[0].pid, 99);
	ck_assert(rq[0].has_cause);
	ck_assert_uint_eq(rq[0].cause_pid, 7);
	ck_assert(!rq[1].has_cause);
	ck_assert_uint_eq(rq[2].pid, 8);
	ck_assert(rq[2].has_cause);
	ck_assert_uint_eq(rq[2].cause_pid, 8);
	ck_assert(!rq[3].has_cause);
}
END_TEST

START_TEST(test_requeue)
{
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 64, 4096),
		E(200, WC_TA_ISSUE, W, 64, 4096),
		E(300, WC_TA_REQUEUE, W, 64, 4096),
		E(400, WC_TA_ISSUE, W, 64, 4096),
		E(450, WC_TA_QUEUE, W, 640, 4096),
		E(460, WC_TA_ISSUE, W, 640, 4096),
		E(600, WC_TA_COMPLETE, W, 64, 4096),
		E(700, WC_TA_COMPLETE, W, 640, 4096),
	};
	struct wc_request rq[4];

	ck_assert_uint_eq(run(evs, 8, 8, rq, 4, NULL, NULL), 2);
	ck_assert_uint_eq(rq[0].q_time, 100);
	ck_assert_uint_eq(rq[0].d_time, 400);
	ck_assert_uint_eq(rq[0].requeues, 1);
	ck_assert_uint_eq(rq[0].depth, 1);
	ck_assert_uint_eq(rq[1].depth, 2);
}
END_TEST

START_TEST(test_split)
{
	/* One 16-sector bio served as two 8-sector requests. */
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 0, 8192),
		E(105, WC_TA_SPLIT, W, 0, 8192),
		E(200, WC_TA_ISSUE, W, 0, 4096),
		E(210, WC_TA_ISSUE, W, 8, 4096),
		E(300, WC_TA_COMPLETE, W, 0, 4096),
		E(310, WC_TA_COMPLETE, W, 8, 4096),
	};
	struct wc_request rq[4];
	struct wc_tracker_stats st;

	ck_assert_uint_eq(run(evs, 6, 6, rq, 4, &st, NULL), 2);
	ck_assert_uint_eq(rq[0].q_time, 100);
	ck_assert_uint_eq(rq[1].q_time, 100);
	ck_assert_uint_eq(rq[1].sector, 8);
	ck_assert_uint_eq(st.never_dispatched, 0);
}
END_TEST

START_TEST(test_lost_and_unfinished)
{
	const struct wc_event evs[] = {
		E(100, WC_TA_COMPLETE, W, 64, 4096),    /* in flight at start */
		E(110, WC_TA_QUEUE, W, 128, 4096),      /* never dispatched */
		E(120, WC_TA_QUEUE, W, 256, 4096),
		E(130, WC_TA_ISSUE, W, 256, 4096),      /* never completed */
		E(140, WC_TA_ISSUE, W, 512, 4096),      /* D without Q */
		E(145, WC_TA_COMPLETE, W, 1024, 4096),  /* its D was lost */
		E(150, WC_TA_COMPLETE, W, 512, 4096),
	};
	struct wc_request rq[4];
	struct wc_tracker_stats st;

	ck_assert_uint_eq(run(evs, 7, 7, rq, 4, &st, NULL), 2);
	ck_assert(rq[0].completed);
	ck_assert_uint_eq(rq[0].sector, 512);
	ck_assert_uint_eq(rq[0].q_time, WC_NO_TIME);
	ck_assert(!rq[1].completed);
	ck_assert_uint_eq(rq[1].sector, 256);
	ck_assert_uint_eq(rq[1].c_time, WC_NO_TIME);
	/* A C before any D on its device was dispatched before the
	 * recorder started: not a lost event. */
	ck_assert_uint_eq(st.orphan_completions, 1);
	ck_assert_uint_eq(st.began_in_flight, 1);
	ck_assert_uint_eq(st.never_dispatched, 1);
	ck_assert_uint_eq(st.unfinished, 1);
}
END_TEST

#define SEC 1000000000ull

/* The same as run(), with the bound of DEV set to BOUND ns first (0:
 * the default). */
static size_t run_bound(const struct wc_event *evs, size_t n,
			uint64_t bound, struct wc_request *out, size_t max,
			struct wc_tracker_stats *st)
{
	struct src s = { evs, n, 0, SIZE_MAX };
	struct wc_tracker *tr = NULL;
	struct wc_err err;
	struct wc_request rq;
	size_t k = 0;
	int r;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_tracker_open_source(&tr, src_next, &s, &err), 0);
	if (bound)
		ck_assert_int_eq(wc_tracker_set_bound(tr, DEV, bound), 0);
	while ((r = wc_tracker_next(tr, &rq, &err)) > 0) {
		ck_assert_uint_lt(k, max);
		out[k++] = rq;
	}
	ck_assert_int_eq(r, 0);
	*st = *wc_tracker_stats(tr);
	wc_tracker_free(tr);
	return k;
}

START_TEST(test_no_invented_pairing)
{
	/* A capture that lost events (a CPU's file missing): the C of the
	 * first D and the D of the last C are gone.  The oldest dispatch
	 * at the sector is 49 s old when that C comes: older than any
	 * command may take (the default bound, 30 s), it is not the C's. */
	const struct wc_event evs[] = {
		E(1 * SEC, WC_TA_ISSUE, W, 100, 4096),   /* its C lost */
		E(1 * SEC, WC_TA_ISSUE, 0, 0, 0),        /* flush, C lost */
		E(45 * SEC, WC_TA_ISSUE, W, 100, 4096),
		E(45 * SEC + 1000, WC_TA_COMPLETE, W, 100, 4096),
		E(46 * SEC, WC_TA_ISSUE, FLUSH, 0, 0),
		E(46 * SEC + 500, WC_TA_COMPLETE, FLUSH, 0, 0),
		E(50 * SEC, WC_TA_COMPLETE, W, 100, 4096), /* its D lost */
	};
	struct wc_request rq[4];
	struct wc_tracker_stats st;
	size_t n = run_bound(evs, 7, 0, rq, 4, &st);

	ck_assert_uint_eq(n, 4);
	/* Each C is the young dispatch's, at the young depth. */
	ck_assert(rq[0].completed);
	ck_assert_uint_eq(rq[0].d_time, 45 * SEC);
	ck_assert_uint_eq(rq[0].c_time - rq[0].d_time, 1000);
	ck_assert_uint_eq(rq[0].depth, 1);
	ck_assert(rq[1].completed);
	ck_assert_uint_eq(rq[1].bytes, 0);
	ck_assert_uint_eq(rq[1].d_time, 46 * SEC);
	ck_assert_uint_eq(rq[1].depth, 1);
	/* The old ones never completed, and are handed out as such. */
	ck_assert(!rq[2].completed);
	ck_assert(!rq[3].completed);
	ck_assert_uint_eq(rq[2].d_time, 1 * SEC);
	ck_assert_uint_eq(rq[3].d_time, 1 * SEC);
	ck_assert_uint_eq(st.requests, 2);
	ck_assert_uint_eq(st.unfinished, 2);
	ck_assert_uint_eq(st.expired, 2);
	ck_assert_uint_eq(st.orphan_completions, 1);
}
END_TEST

START_TEST(test_bound_of_device)
{
	/* A device whose timeout is 5 s: a C 6 s after its D is not its
	 * D's; one 4 s after is.  A bio-based device's C is matched to a
	 * Q only within the bound too. */
	const struct wc_event evs[] = {
		E(0, WC_TA_ISSUE, W, 8, 4096),
		E(4 * SEC, WC_TA_COMPLETE, W, 8, 4096),
		E(10 * SEC, WC_TA_ISSUE, W, 8, 4096),
		E(16 * SEC, WC_TA_COMPLETE, W, 8, 4096),
		E(20 * SEC, WC_TA_QUEUE, W, 64, 4096),
		E(26 * SEC, WC_TA_COMPLETE, W, 64, 4096),
	};
	struct wc_request rq[4];
	struct wc_tracker_stats st;
	size_t n = run_bound(evs, 6, 5 * SEC, rq, 4, &st);

	ck_assert_uint_eq(n, 2);
	ck_assert(rq[0].completed);
	ck_assert_uint_eq(rq[0].c_time - rq[0].d_time, 4 * SEC);
	ck_assert(!rq[1].completed);
	ck_assert_uint_eq(rq[1].d_time, 10 * SEC);
	ck_assert_uint_eq(st.orphan_completions, 2);
	ck_assert_uint_eq(st.expired, 1);
	ck_assert_uint_eq(st.never_dispatched, 1);
	/* With the default bound, all three pair. */
	n = run_bound(evs, 6, 0, rq, 4, &st);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(st.orphan_completions, 0);
}
END_TEST

START_TEST(test_bio_based_completion)
{
	/* Device mapper completes bios it never dispatched as requests. */
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 64, 4096),
		E(300, WC_TA_COMPLETE, W, 64, 4096),
	};
	struct wc_request rq[2];

	ck_assert_uint_eq(run(evs, 2, 2, rq, 2, NULL, NULL), 1);
	ck_assert_uint_eq(rq[0].q_time, 100);
	ck_assert_uint_eq(rq[0].d_time, WC_NO_TIME);
}
END_TEST

/* A bio completed without a request leaves its device's bio list in
 * order: the one queued after it is still there at the end. */
START_TEST(test_bio_based_completion_list)
{
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 64, 4096),
		E(110, WC_TA_QUEUE, W, 128, 4096),
		E(300, WC_TA_COMPLETE, W, 128, 4096),    /* the newest bio */
		E(310, WC_TA_QUEUE, W, 256, 4096),
		E(320, WC_TA_ISSUE, W, 256, 4096),
	};
	struct wc_request rq[3];
	struct wc_tracker_stats st;

	ck_assert_uint_eq(run(evs, 5, 5, rq, 3, &st, NULL), 2);
	ck_assert_uint_eq(rq[0].q_time, 110);
	ck_assert(!rq[1].completed);
	ck_assert_uint_eq(rq[1].q_time, 310);
	ck_assert_uint_eq(rq[1].nbios, 1);
	ck_assert_uint_eq(st.never_dispatched, 1);
}
END_TEST

START_TEST(test_source_fails)
{
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 64, 4096),
		E(110, WC_TA_ISSUE, W, 64, 4096),
		E(120, WC_TA_COMPLETE, W, 64, 4096),
		E(130, WC_TA_QUEUE, W, 128, 4096),
		E(140, WC_TA_ISSUE, W, 128, 4096),
		E(150, WC_TA_COMPLETE, W, 128, 4096),
	};
	struct wc_request rq[4];
	int last;

	/* Fails after the second D: one done, one handed out unfinished. */
	ck_assert_uint_eq(run(evs, 6, 5, rq, 4, NULL, &last), 2);
	ck_assert_int_eq(last, -1);
	ck_assert(rq[0].completed);
	ck_assert(!rq[1].completed);
}
END_TEST

START_TEST(test_inflight_cap)
{
	size_t n = WC_TRACKER_MAX_INFLIGHT + 10, i;
	struct wc_event *evs = calloc(n, sizeof(*evs));
	struct wc_request rq[1];
	struct wc_tracker_stats st;

	ck_assert_ptr_nonnull(evs);
	for (i = 0; i < n; i++)
		evs[i] = E(i, WC_TA_QUEUE, W, i * 8, 4096);
	ck_assert_uint_eq(run(evs, n, n, rq, 1, &st, NULL), 0);
	ck_assert_uint_eq(st.dropped_inflight, 10);
	ck_assert_uint_eq(st.never_dispatched, WC_TRACKER_MAX_INFLIGHT);
	free(evs);
}
END_TEST

/* Thousands of bios in flight (the hash grows several times), one sector
 * in seven queued twice (the same key twice in one chain; the older one,
 * deeper in it, goes first), dispatched in a scattered order so that
 * nodes leave chains from the middle: every D must take the oldest bio
 * at its sector, the second D there the newer one. */
START_TEST(test_hash_many_inflight)
{
	enum { NB = 3000, STEP = 7, NDUP = (NB + STEP - 1) / STEP };
	size_t n = 0, i, k, cap = 2 * (NB + NDUP) + NB + NDUP;
	struct wc_event *evs = calloc(cap, sizeof(*evs));
	struct wc_request *rq = calloc(NB + NDUP, sizeof(*rq));
	struct wc_tracker_stats st;
	uint64_t t = 1;

	ck_assert_ptr_nonnull(evs);
	ck_assert_ptr_nonnull(rq);
	for (i = 0; i < NB; i++)
		evs[n++] = E(t++, WC_TA_QUEUE, W, i * 8, 4096);
	for (i = 0; i < NB; i += STEP)
		evs[n++] = E(t++, WC_TA_QUEUE, W, i * 8, 4096);
	/* 1999 is prime to 3000: every sector once, scattered. */
	for (k = 0; k < NB; k++) {
		i = k * 1999 % NB;
		evs[n++] = E(t++, WC_TA_ISSUE, W, i * 8, 4096);
		evs[n++] = E(t++, WC_TA_COMPLETE, W, i * 8, 4096);
	}
	for (i = 0; i < NB; i += STEP) {
		evs[n++] = E(t++, WC_TA_ISSUE, W, i * 8, 4096);
		evs[n++] = E(t++, WC_TA_COMPLETE, W, i * 8, 4096);
	}
	ck_assert_uint_eq(run(evs, n, n, rq, NB + NDUP, &st, NULL), NB + NDUP);
	for (k = 0; k < NB; k++) {
		i = k * 1999 % NB;
		ck_assert_uint_eq(rq[k].sector, i * 8);
		ck_assert_uint_eq(rq[k].nbios, 1);
		ck_assert_uint_eq(rq[k].q_time, 1 + i);
	}
	for (k = 0; k < NDUP; k++) {
		ck_assert_uint_eq(rq[NB + k].sector, k * STEP * 8);
		ck_assert_uint_eq(rq[NB + k].nbios, 1);
		ck_assert_uint_eq(rq[NB + k].q_time, 1 + NB + k);
	}
	ck_assert_uint_eq(st.never_dispatched, 0);
	ck_assert_uint_eq(st.orphan_completions, 0);
	free(rq);
	free(evs);
}
END_TEST

/* Runs the tracker over evs (n events, every one a Q, D or C) with the
 * buckets' multiplier drawn at open, or MULT when not 0; the look-up
 * steps it took, and its requests' q_time and c_time in order into q
 * and c (max). */
static uint64_t run_steps(const struct wc_event *evs, size_t n, uint64_t mult,
			  uint64_t *q, uint64_t *c, size_t max, size_t *got)
{
	struct src s = { evs, n, 0, SIZE_MAX };
	struct wc_tracker *tr = NULL;
	struct wc_err err;
	struct wc_request rq;
	uint64_t steps;
	int r;

	wc_err_clear(&err);
	*got = 0;
	ck_assert_int_eq(wc_tracker_open_source(&tr, src_next, &s, &err), 0);
	if (mult)
		wc_tracker_set_hash_mult(tr, mult);
	while ((r = wc_tracker_next(tr, &rq, &err)) > 0) {
		ck_assert_uint_lt(*got, max);
		q[*got] = rq.q_time;
		c[(*got)++] = rq.c_time;
	}
	ck_assert_msg(r == 0, "%s", err.msg);
	steps = wc_tracker_hash_steps(tr);
	wc_tracker_free(tr);
	return steps;
}

/* The events of a look-up test and room for its requests' times. */
struct hash_case {
	struct wc_event *evs;
	uint64_t *q, *c;
};

static struct hash_case hash_case_alloc(size_t nev, size_t nrq)
{
	struct hash_case hc = {
		calloc(nev, sizeof(*hc.evs)),
		calloc(nrq, sizeof(*hc.q)),
		calloc(nrq, sizeof(*hc.c)),
	};

	ck_assert_ptr_nonnull(hc.evs);
	ck_assert_ptr_nonnull(hc.q);
	ck_assert_ptr_nonnull(hc.c);
	return hc;
}

static void hash_case_free(struct hash_case *hc)
{
	free(hc->c);
	free(hc->q);
	free(hc->evs);
}

/* Thousands of bios queued at one sector, then dispatched and completed
 * one by one: each D takes the oldest bio there, each C the oldest
 * request, at a few steps a look-up, not a walk past every node that
 * shares the sector (which made a 46 MB trace of 60,000 such bios take
 * 20 s of CPU). */
START_TEST(test_hash_one_sector)
{
	enum { NB = 20000 };
	struct hash_case hc = hash_case_alloc(3 * NB, NB);
	struct wc_event *evs = hc.evs;
	size_t n = 0, i, got;
	uint64_t steps;

	for (i = 0; i < NB; i++)
		evs[n++] = E(1 + i, WC_TA_QUEUE, W, 4096, 4096);
	for (i = 0; i < NB; i++)
		evs[n++] = E(1 + NB + i, WC_TA_ISSUE, W, 4096, 4096);
	for (i = 0; i < NB; i++)
		evs[n++] = E(1 + 2 * NB + i, WC_TA_COMPLETE, W, 4096, 4096);
	steps = run_steps(evs, n, 0, hc.q, hc.c, NB, &got);
	ck_assert_uint_eq(got, NB);
	for (i = 0; i < NB; i++) {
		ck_assert_uint_eq(hc.q[i], 1 + i);
		ck_assert_uint_eq(hc.c[i], 1 + 2 * NB + i);
	}
	ck_assert_uint_le(steps, 4 * (uint64_t)n);
	hash_case_free(&hc);
}
END_TEST

/* The rest of a split bio goes into the run of its new sector by its
 * age, which a trace can make older than every bio queued there but
 * one: bios A_j at sector S - j, one sector past S each, between an
 * old bio and NB new ones at S; each D of [S - j, S) splits A_j, whose
 * rest then belongs before the NB.  Finding its place by walking back
 * from the run's newest passed all NB a D (NB^2 steps); a look-up by
 * the age keeps it a few. */
START_TEST(test_hash_split_rests)
{
	enum { NB = 3000 };
	const uint64_t s = 1u << 20;
	struct hash_case hc = hash_case_alloc(3 * NB + 1, 3 * NB);
	struct wc_event *evs = hc.evs;
	size_t n = 0, j, got;
	uint64_t steps;

	evs[n++] = E(1, WC_TA_QUEUE, W, s, 4096);
	for (j = 1; j <= NB; j++)
		evs[n++] = E(1 + j, WC_TA_QUEUE, W, s - j, (j + 1) * 512);
	for (j = 1; j <= NB; j++)
		evs[n++] = E(1 + NB + j, WC_TA_QUEUE, W, s, 4096);
	for (j = 1; j <= NB; j++)
		evs[n++] = E(1 + 2 * NB + j, WC_TA_ISSUE, W, s - j, j * 512);
	steps = run_steps(evs, n, 0, hc.q, hc.c, 3 * NB, &got);
	ck_assert_uint_eq(got, NB);
	/* NB^2 is 9,000,000.  Below 64 a event whatever the multiplier:
	 * the NB roots linked at S wait there for S's next look-up, and a
	 * sector S - j whose bucket the draw makes S's passes them at each
	 * of its look-ups (71,260 steps seen at 4 a event's bound, with a
	 * chance of about a third a run that one does). */
	ck_assert_uint_le(steps, 64 * (uint64_t)n);
	hash_case_free(&hc);
}
END_TEST

/* Sectors i * m, for an m whose product with the golden ratio's
 * multiplier is within 2^26 of a multiple of 2^64: under that multiplier
 * (Fibonacci hashing, a constant anyone can read) every one of them
 * lands in one bucket at any table size up to 2^22 buckets.  With the
 * multiplier forced to it they do (the test's keys are hostile); with
 * the one drawn at open each look-up passes a few chain heads. */
START_TEST(test_hash_chosen_sectors)
{
	enum { NB = 20000 };
	const uint64_t golden = 0x9e3779b97f4a7c15ull, m = 2971215073ull;
	struct hash_case hc = hash_case_alloc(3 * NB, NB);
	struct wc_event *evs = hc.evs;
	size_t n = 0, i, got;
	uint64_t steps;

	for (i = 0; i < NB; i++)
		evs[n++] = E(1 + i, WC_TA_QUEUE, W, (i + 1) * m, 4096);
	for (i = 0; i < NB; i++) {
		evs[n++] = E(1 + NB + 2 * i, WC_TA_ISSUE, W, (i + 1) * m, 4096);
		evs[n++] = E(2 + NB + 2 * i, WC_TA_COMPLETE, W, (i + 1) * m,
			     4096);
	}
	steps = run_steps(evs, n, golden, hc.q, hc.c, NB, &got);
	ck_assert_uint_eq(got, NB);
	ck_assert_uint_ge(steps, (uint64_t)NB * NB / 4);
	steps = run_steps(evs, n, 0, hc.q, hc.c, NB, &got);
	ck_assert_uint_eq(got, NB);
	for (i = 0; i < NB; i++) {
		ck_assert_uint_eq(hc.q[i], 1 + i);
		ck_assert_uint_eq(hc.c[i], 2 + NB + 2 * i);
	}
	ck_assert_uint_le(steps, 4 * (uint64_t)n);
	hash_case_free(&hc);
}
END_TEST

/* A corrupt device field must not make the tracker keep (or scan) one
 * entry per device: past WC_MAX_DEVICES, events are counted and ignored,
 * and the devices kept go on working. */
/* A D whose first bio is not split takes that bio's node for the
 * request (on_issue()): it must still be a request created at the D.
 * At sector 108 a request without a Q (created at its D) and then the
 * rest of a split bio, queued before it, become two requests: the C at
 * 108 ends the older request, the one without a Q, whatever the bio's
 * age.  The request takes the D's bytes and action, the bio's pid and Q
 * time; a D whose end wraps past 2^64 takes no bio, as take_bios()'s
 * loop does not start. */
START_TEST(test_bio_becomes_request)
{
	const uint64_t top = UINT64_MAX;   /* the last sector */
	struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 100, 8192),               /* 16 sectors */
		E(110, WC_TA_ISSUE, W, 108, 4096),               /* no Q */
		E(120, WC_TA_ISSUE, W, 100, 4096),               /* split */
		E(130, WC_TA_ISSUE, W | T(WC_TC_SYNC), 108, 4096),
		E(140, WC_TA_COMPLETE, W, 108, 4096),
		E(150, WC_TA_COMPLETE, W, 108, 4096),
		E(160, WC_TA_QUEUE, W, top, 512),
		E(170, WC_TA_ISSUE, W, top, 4096),               /* wraps */
		E(180, WC_TA_COMPLETE, W, top, 4096),
	};
	struct wc_request rq[6];
	struct wc_tracker_stats st;

	evs[0].pid = 7;
	ck_assert_uint_eq(run(evs, 9, 9, rq, 6, &st, NULL), 4);
	ck_assert_uint_eq(rq[0].sector, 108);
	ck_assert_uint_eq(rq[0].q_time, WC_NO_TIME);
	ck_assert_uint_eq(rq[0].d_time, 110);
	ck_assert_uint_eq(rq[1].sector, 108);
	ck_assert_uint_eq(rq[1].q_time, 100);
	ck_assert_uint_eq(rq[1].d_time, 130);
	ck_assert_uint_eq(rq[1].pid, 7);
	ck_assert_uint_eq(rq[1].nbios, 1);
	ck_assert_uint_eq(rq[1].bytes, 4096);
	ck_assert(rq[1].action & T(WC_TC_SYNC));
	ck_assert_uint_eq(rq[1].depth, 3);
	ck_assert_uint_eq(rq[2].sector, top);
	ck_assert_uint_eq(rq[2].q_time, WC_NO_TIME);
	ck_assert_uint_eq(rq[2].nbios, 0);
	ck_assert(!rq[3].completed);                     /* request at 100 */
	ck_assert_uint_eq(rq[3].sector, 100);
	ck_assert_uint_eq(st.never_dispatched, 1);
}
END_TEST

/* The request list's cap applies when a bio becomes a request as when a
 * request takes a new node: the oldest request is forgotten first. */
START_TEST(test_bio_becomes_request_cap)
{
	size_t m = WC_TRACKER_MAX_INFLIGHT + 3, n = 2 * m + 1, i;
	struct wc_event *evs = calloc(n, sizeof(*evs));
	struct wc_request *rq = calloc(m, sizeof(*rq));
	struct wc_tracker_stats st;

	ck_assert_ptr_nonnull(evs);
	ck_assert_ptr_nonnull(rq);
	for (i = 0; i < m; i++) {
		evs[2 * i] = E(2 * i, WC_TA_QUEUE, W, i * 8, 4096);
		evs[2 * i + 1] = E(2 * i + 1, WC_TA_ISSUE, W, i * 8, 4096);
	}
	evs[2 * m] = E(2 * m, WC_TA_COMPLETE, W, 0, 4096);   /* forgotten */
	ck_assert_uint_eq(run(evs, n, n, rq, m, &st, NULL),
			  WC_TRACKER_MAX_INFLIGHT);
	ck_assert_uint_eq(st.dropped_inflight, 3);
	ck_assert_uint_eq(st.orphan_completions, 1);
	ck_assert_uint_eq(st.requests, 0);
	ck_assert(!rq[0].completed);
	ck_assert_uint_eq(rq[0].sector, 3 * 8);          /* the oldest kept */
	ck_assert_uint_eq(rq[0].q_time, 6);
	free(rq);
	free(evs);
}
END_TEST

START_TEST(test_device_cap)
{
	size_t ndev = 100000, n = 3 * ndev + 3, i, k;
	struct wc_event *evs = calloc(n, sizeof(*evs));
	struct wc_request rq[WC_MAX_DEVICES + 1];
	struct wc_tracker_stats st;

	ck_assert_ptr_nonnull(evs);
	for (i = 0; i < ndev; i++) {
		evs[3 * i] = E(3 * i, WC_TA_QUEUE, W, 8, 4096);
		evs[3 * i + 1] = E(3 * i + 1, WC_TA_ISSUE, W, 8, 4096);
		evs[3 * i + 2] = E(3 * i + 2, WC_TA_COMPLETE, W, 8, 4096);
		evs[3 * i].device = evs[3 * i + 1].device =
			evs[3 * i + 2].device = (uint32_t)(i * 7919u + 1);
	}
	/* The fifth device seen, again, after all the ignored ones. */
	for (i = 0; i < 3; i++) {
		evs[3 * ndev + i] = evs[3 * 4 + i];
		evs[3 * ndev + i].time = 3 * ndev + i;
	}
	k = run(evs, n, n, rq, WC_MAX_DEVICES + 1, &st, NULL);
	ck_assert_uint_eq(k, WC_MAX_DEVICES + 1);
	for (i = 0; i < WC_MAX_DEVICES; i++) {
		ck_assert(rq[i].completed);
		ck_assert_uint_eq(rq[i].device, i * 7919u + 1);
	}
	ck_assert_uint_eq(rq[WC_MAX_DEVICES].device, 4 * 7919u + 1);
	ck_assert_uint_eq(rq[WC_MAX_DEVICES].q_time, 3 * ndev);
	ck_assert_uint_eq(st.ignored_events, 3 * (ndev - WC_MAX_DEVICES));
	ck_assert_uint_eq(st.requests, WC_MAX_DEVICES + 1);
	ck_assert_uint_eq(st.orphan_completions, 0);
	ck_assert_uint_eq(st.never_dispatched, 0);
	ck_assert_uint_eq(st.io_events, n);
	free(evs);
}
END_TEST

START_TEST(test_notify)
{
	struct wc_event evs[3] = {
		E(100, WC_TA_QUEUE, W, 64, 4096),
		E(0, WC_TN_PROCESS, T(WC_TC_NOTIFY), 0, 0),
		E(300, WC_TA_COMPLETE, W, 64, 4096),
	};
	struct src s = { evs, 3, 0, 3 };
	struct wc_tracker *tr = NULL;
	struct wc_request rq;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_tracker_open_source(&tr, src_next, &s, &err), 0);
	while (wc_tracker_next(tr, &rq, &err) > 0)
		;
	ck_assert_uint_eq(s.i, 3);
	ck_assert_uint_eq(wc_tracker_stats(tr)->events, 3);
	ck_assert_uint_eq(wc_tracker_stats(tr)->io_events, 2);
	/* The notify record's time does not open the window. */
	ck_assert_uint_eq(wc_tracker_stats(tr)->first_time, 100);
	wc_tracker_free(tr);
	wc_tracker_free(NULL);
}
END_TEST

/* A batch source over evs, size events a call, copied into a buffer that
 * is spoilt before each refill: a tracker that kept a pointer into an
 * earlier batch would read garbage.  Fails at index fail_at, once the
 * events before it were handed out (as wc_input_next_ref() does). */
struct bsrc {
	const struct wc_event *ev;
	size_t n, i, fail_at, size;
	struct wc_event buf[16];
	size_t calls;
};

static int bsrc_next(void *ctx, const struct wc_event **evs, size_t *n,
		     struct wc_err *err)
{
	struct bsrc *s = ctx;
	size_t k = 0;

	memset(s->buf, 0xa5, sizeof(s->buf));
	s->calls++;
	*evs = s->buf;
	*n = 0;
	if (s->i == s->fail_at)
		return wc_err_set(err, WC_ERR_INPUT, "x", NULL, 48,
				  "truncated record");
	while (k < s->size && s->i < s->n && s->i < s->fail_at)
		s->buf[k++] = s->ev[s->i++];
	*n = k;
	return k > 0;
}

/* run() over the batch source, size events a batch. */
static size_t run_batches(const struct wc_event *evs, size_t n,
			  size_t fail_at, size_t size, struct wc_request *out,
			  size_t max, struct wc_tracker_stats *st, int *last)
{
	struct bsrc s = { evs, n, 0, fail_at, size, { { 0 } }, 0 };
	struct wc_tracker *tr = NULL;
	struct wc_err err;
	struct wc_request rq;
	size_t k = 0;
	int r;

	ck_assert_uint_le(size, 16);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_tracker_open_batch(&tr, bsrc_next, &s, &err), 0);
	while ((r = wc_tracker_next(tr, &rq, &err)) > 0) {
		ck_assert_uint_lt(k, max);
		out[k++] = rq;
	}
	*last = r;
	if (r < 0)
		ck_assert_str_eq(err.msg, "truncated record");
	*st = *wc_tracker_stats(tr);
	wc_tracker_free(tr);
	return k;
}

static void same_request(const struct wc_request *a, const struct wc_request *b)
{
	ck_assert_uint_eq(a->device, b->device);
	ck_assert_uint_eq(a->sector, b->sector);
	ck_assert_uint_eq(a->bytes, b->bytes);
	ck_assert_uint_eq(a->action, b->action);
	ck_assert_uint_eq(a->q_time, b->q_time);
	ck_assert_uint_eq(a->d_time, b->d_time);
	ck_assert_uint_eq(a->c_time, b->c_time);
	ck_assert_uint_eq(a->nbios, b->nbios);
	ck_assert_uint_eq(a->pid, b->pid);
	ck_assert_uint_eq(a->depth, b->depth);
	ck_assert_uint_eq(a->error, b->error);
	ck_assert_int_eq(a->completed, b->completed);
	ck_assert_uint_eq(a->requeues, b->requeues);
}

START_TEST(test_batches)
{
	/* Merges, a split, a requeue, empty flushes, a lost D and a
	 * notify record: every batch size puts a boundary somewhere
	 * between a Q and its C. */
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 1000, 4096),
		E(110, WC_TA_QUEUE, W, 1008, 8192),
		E(111, WC_TA_BACKMERGE, W, 1008, 8192),
		E(115, WC_TA_QUEUE, FLUSH, 0, 0),
		E(0, WC_TN_PROCESS, T(WC_TC_NOTIFY), 0, 0),
		E(120, WC_TA_ISSUE, W, 1000, 12288),
		E(125, WC_TA_ISSUE, FLUSH, 0, 0),
		E(130, WC_TA_QUEUE, W, 4000, 16384),
		E(140, WC_TA_ISSUE, W, 4000, 8192),     /* split */
		E(150, WC_TA_REQUEUE, W, 1000, 12288),
		E(160, WC_TA_ISSUE, W, 1000, 12288),
		E(170, WC_TA_COMPLETE, FLUSH, 0, 0),
		E(180, WC_TA_ISSUE, W, 4016, 8192),
		E(190, WC_TA_COMPLETE, W, 4000, 8192),
		E(200, WC_TA_COMPLETE, W, 1000, 12288),
		E(210, WC_TA_COMPLETE, W, 64, 4096),    /* its D was lost */
		E(220, WC_TA_QUEUE, W, 8000, 4096),
		E(230, WC_TA_ISSUE, W, 8000, 4096),     /* never completed */
		E(240, WC_TA_COMPLETE, W, 4016, 8192),
	};
	const size_t n = sizeof(evs) / sizeof(evs[0]);
	struct wc_request want[8], got[8];
	struct wc_tracker_stats wst, gst;
	size_t size, fail_at, k, nwant, i;
	int wlast, glast;

	/* A source that fails after any event, or not at all (n + 1). */
	for (fail_at = 0; fail_at <= n + 1; fail_at++) {
		nwant = run(evs, n, fail_at, want, 8, &wst, &wlast);
		for (size = 1; size <= 16; size++) {
			k = run_batches(evs, n, fail_at, size, got, 8, &gst,
					&glast);
			ck_assert_uint_eq(k, nwant);
			ck_assert_int_eq(glast, wlast);
			for (i = 0; i < k; i++)
				same_request(&got[i], &want[i]);
			ck_assert_uint_eq(gst.events, wst.events);
			ck_assert_uint_eq(gst.io_events, wst.io_events);
			ck_assert_uint_eq(gst.first_time, wst.first_time);
			ck_assert_uint_eq(gst.last_time, wst.last_time);
			ck_assert_uint_eq(gst.requests, wst.requests);
			ck_assert_uint_eq(gst.unfinished, wst.unfinished);
			ck_assert_uint_eq(gst.orphan_completions,
					  wst.orphan_completions);
			ck_assert_uint_eq(gst.never_dispatched,
					  wst.never_dispatched);
		}
	}
	/* The whole script: what the one-at-a-time run must give. */
	nwant = run(evs, n, n + 1, want, 8, &wst, &wlast);
	ck_assert_uint_eq(nwant, 5);
	ck_assert_int_eq(wlast, 0);
	ck_assert_uint_eq(want[0].bytes, 0);
	ck_assert_uint_eq(want[2].nbios, 2);
	ck_assert_uint_eq(want[2].requeues, 1);
	ck_assert_uint_eq(want[2].d_time, 160);
	ck_assert_uint_eq(wst.events, n);
	ck_assert_uint_eq(wst.orphan_completions, 1);
}
END_TEST

/* wc_tracker_next_batch(): the requests of wc_tracker_next(), max at a
 * time, and never one completed in a batch of the source before the
 * one the source handed out last (a caller looks process names up as
 * the source knows them then). */
START_TEST(test_request_batches)
{
	const struct wc_event evs[] = {
		E(100, WC_TA_QUEUE, W, 0, 4096),
		E(101, WC_TA_ISSUE, W, 0, 4096),
		E(102, WC_TA_QUEUE, W, 8, 4096),
		E(103, WC_TA_ISSUE, W, 8, 4096),
		E(104, WC_TA_COMPLETE, W, 0, 4096),
		E(105, WC_TA_COMPLETE, W, 8, 4096),
		E(106, WC_TA_QUEUE, W, 16, 4096),
		E(107, WC_TA_ISSUE, W, 16, 4096),
		E(108, WC_TA_QUEUE, W, 24, 4096),
		E(109, WC_TA_ISSUE, W, 24, 4096),
		E(110, WC_TA_COMPLETE, W, 24, 4096),
		E(111, WC_TA_COMPLETE, W, 16, 4096),
		E(112, WC_TA_QUEUE, W, 32, 4096),
		E(113, WC_TA_ISSUE, W, 32, 4096),      /* never completed */
		E(114, WC_TA_ISSUE, W, 40, 4096),      /* never completed */
	};
	const size_t n = sizeof(evs) / sizeof(evs[0]);
	struct wc_request want[8], got[8];
	size_t nwant, size, max, k, i, j, m;
	int last;

	nwant = run(evs, n, n + 1, want, 8, NULL, &last);
	ck_assert_uint_eq(nwant, 6);
	for (size = 1; size <= 16; size++)
		for (max = 1; max <= 8; max++) {
			struct bsrc s = { evs, n, 0, n + 1, size, { { 0 } }, 0 };
			struct wc_tracker *tr = NULL;
			struct wc_err err;
			int r;

			wc_err_clear(&err);
			ck_assert_int_eq(wc_tracker_open_batch(&tr, bsrc_next,
							       &s, &err), 0);
			k = 0;
			while ((r = wc_tracker_next_batch(tr, got + k,
							  max, &m, &err)) > 0) {
				ck_assert_uint_ge(m, 1);
				ck_assert_uint_le(m, max);
				ck_assert_uint_le(k + m, 6);
				for (i = k; i < k + m; i++) {
					same_request(&got[i], &want[i]);
					if (!got[i].completed)
						continue;
					for (j = 0; evs[j].time != got[i].c_time; j++)
						;
					ck_assert_uint_eq(j / size + 1, s.calls);
				}
				k += m;
			}
			ck_assert_int_eq(r, 0);
			ck_assert_uint_eq(k, nwant);
			ck_assert_uint_eq(wc_tracker_stats(tr)->events, n);
			wc_tracker_free(tr);
		}
}
END_TEST

/* An event of E()'s on device dev. */
static struct wc_event E_on(uint32_t dev, uint64_t t, unsigned what,
			    uint64_t flags, uint64_t sector, uint32_t bytes)
{
	struct wc_event e = E(t, what, flags, sector, bytes);

	e.device = dev;
	return e;
}

/* Two partitions of one disk (wc_tracker_set_disk()): a dispatch's
 * disk_depth counts what is at the driver of both, each device's depth
 * its own; a requeue takes one off both; a third device is on no disk. */
START_TEST(test_disk_depth)
{
	const uint32_t p1 = WC_DEV_MAKE(7u, 1u), p2 = WC_DEV_MAKE(7u, 2u);
	const uint32_t other = WC_DEV_MAKE(7u, 3u);
	const uint32_t disk[2] = { p1, p2 };
	const uint64_t R = T(WC_TC_READ);
	const struct wc_event evs[] = {
		E_on(p1, 100, WC_TA_QUEUE, W, 0, 4096),
		E_on(p1, 101, WC_TA_ISSUE, W, 0, 4096),        /* 1, disk 1 */
		E_on(p2, 110, WC_TA_QUEUE, R, 0, 4096),
		E_on(p2, 111, WC_TA_ISSUE, R, 0, 4096),        /* 1, disk 2 */
		E_on(p1, 120, WC_TA_QUEUE, W, 8, 4096),
		E_on(p1, 121, WC_TA_ISSUE, W, 8, 4096),        /* 2, disk 3 */
		E_on(other, 125, WC_TA_QUEUE, W, 0, 4096),
		E_on(other, 126, WC_TA_ISSUE, W, 0, 4096),     /* 1, no disk */
		E_on(p1, 130, WC_TA_COMPLETE, W, 0, 4096),     /* disk 2 */
		E_on(p2, 140, WC_TA_REQUEUE, R, 0, 4096),      /* disk 1 */
		E_on(p2, 150, WC_TA_ISSUE, R, 0, 4096),        /* 1, disk 2 */
		E_on(p1, 160, WC_TA_COMPLETE, W, 8, 4096),
		E_on(p2, 170, WC_TA_COMPLETE, R, 0, 4096),
		E_on(other, 180, WC_TA_COMPLETE, W, 0, 4096),
	};
	static const uint32_t depth[4] = { 1, 2, 1, 1 };
	static const uint32_t disk_depth[4] = { 1, 3, 2, 0 };
	struct src s = { evs, sizeof(evs) / sizeof(evs[0]), 0,
			 sizeof(evs) / sizeof(evs[0]) };
	struct wc_tracker *tr = NULL;
	struct wc_request rq;
	struct wc_err err;
	size_t k = 0;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_tracker_open_source(&tr, src_next, &s, &err), 0);
	ck_assert_int_eq(wc_tracker_set_disk(tr, disk, WC_ACCOUNT_PARTS + 1),
			 -1);
	ck_assert_int_eq(wc_tracker_set_disk(tr, disk, 2), 0);
	while (wc_tracker_next(tr, &rq, &err) > 0) {
		ck_assert_uint_lt(k, 4);
		ck_assert_uint_eq(rq.depth, depth[k]);
		ck_assert_uint_eq(rq.disk_depth, disk_depth[k]);
		k++;
	}
	ck_assert_uint_eq(k, 4);
	wc_tracker_free(tr);
}
END_TEST

static Suite *tracker_suite(void)
{
	Suite *s = suite_create("tracker");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_flush_pairs_in_order);
	tcase_add_test(tc, test_flush_cause);
	tcase_add_test(tc, test_flush_one_in_flight);
	tcase_add_test(tc, test_requeue);
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_lost_and_unfinished);
	tcase_add_test(tc, test_no_invented_pairing);
	tcase_add_test(tc, test_bound_of_device);
	tcase_add_test(tc, test_bio_based_completion);
	tcase_add_test(tc, test_bio_based_completion_list);
	tcase_add_test(tc, test_source_fails);
	tcase_add_test(tc, test_inflight_cap);
	tcase_add_test(tc, test_hash_many_inflight);
	tcase_add_test(tc, test_hash_one_sector);
	tcase_add_test(tc, test_hash_chosen_sectors);
	tcase_add_test(tc, test_hash_split_rests);
	tcase_add_test(tc, test_device_cap);
	tcase_add_test(tc, test_bio_becomes_request);
	tcase_add_test(tc, test_bio_becomes_request_cap);
	tcase_add_test(tc, test_notify);
	tcase_add_test(tc, test_batches);
	tcase_add_test(tc, test_request_batches);
	tcase_add_test(tc, test_disk_depth);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(tracker_suite)
