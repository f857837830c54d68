/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_replay.c - unit tests of analyze/lib/disk/replay.c: the dependency
 * rules on small hand-made traces, dropped flushes, the order requests
 * come out in, determinism.
 *
 * The disk is an ssd without a write cache and without per-command
 * overhead: a 4 KiB request costs read_us or write_us plus its transfer,
 * so every virtual time below follows from the rule under test, not
 * from a formula of the model copied here (the tests compare replayed
 * times with each other, and the model's own costs are what
 * wc_disk_serve() says on a fresh disk).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "disk/replay.h"

#define MS 1000000ull
#define US 1000ull
#define JOURNAL 1000000u          /* the journal's first sector */

struct feed {
	const struct wc_request *rq;
	size_t n, pos;
};

static int feed_next(void *ctx, struct wc_request *rq, struct wc_err *err)
{
	struct feed *f = ctx;

	(void)err;
	if (f->pos == f->n)
		return 0;
	*rq = f->rq[f->pos++];
	return 1;
}

enum kind { RD, WR, FL, JR };

static struct wc_request mk(enum kind k, uint32_t pid, uint64_t sector,
			    uint64_t q, uint64_t d, uint64_t c)
{
	struct wc_request r;

	memset(&r, 0, sizeof(r));
	r.device = 7;
	r.pid = pid;
	r.q_time = q;
	r.d_time = d;
	r.c_time = c;
	r.completed = true;
	r.nbios = 1;
	switch (k) {
	case RD:
		r.action = WC_TC(WC_TC_READ);
		r.bytes = 4096;
		break;
	case WR:
		r.action = WC_TC(WC_TC_WRITE);
		r.bytes = 4096;
		break;
	case JR:
		r.action = WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_SYNC);
		r.bytes = 4096;
		sector += JOURNAL;
		break;
	case FL:
		r.action = WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_FLUSH);
		r.bytes = 0;
		sector = 0;
		break;
	}
	r.sector = sector;
	return r;
}

static void conf_of(struct wc_replay_conf *c)
{
	struct wc_err err;

	wc_err_clear(&err);
	wc_replay_conf_init(c);
	ck_assert_int_eq(wc_disk_param_set(&c->disk, "model", "ssd", &err), 0);
	ck_assert_int_eq(wc_disk_param_set(&c->disk, "write_cache", "off", &err), 0);
	ck_assert_int_eq(wc_disk_param_set(&c->disk, "overhead_us", "0", &err), 0);
	ck_assert_int_eq(wc_disk_param_set(&c->disk, "idle_destage", "off", &err), 0);
	ck_assert_int_eq(wc_disk_param_set(&c->disk, "stream_window_us", "0", &err), 0);
	c->capacity_bytes = 1ull << 30;
	c->device = 7;
	wc_classifier_range(&c->cl, 0, JOURNAL, 10000);
}

/* Sorts by completion, as the tracker hands requests out. */
static int by_c(const void *a, const void *b)
{
	const struct wc_request *x = a, *y = b;

	return x->c_time < y->c_time ? -1 : x->c_time > y->c_time;
}

/* Replays rq[0..n) (any order: sorted by completion first); out[i] is the
 * replay of the request given as rq[i] (found by sector and kind).
 * Returns how many came out. */
static size_t replay(const struct wc_replay_conf *c, const struct wc_request *rq,
		     size_t n, struct wc_request *out, struct wc_replay_stats *st)
{
	struct wc_request sorted[64], got;
	struct feed f = { sorted, n, 0 };
	struct wc_replay *rp = NULL;
	struct wc_err err;
	size_t k = 0, i;
	uint64_t last = 0;
	int r;

	ck_assert_uint_le(n, 64);
	memcpy(sorted, rq, n * sizeof(*rq));
	qsort(sorted, n, sizeof(*sorted), by_c);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_replay_open(&rp, c, feed_next, &f, &err), 0);
	memset(out, 0, n * sizeof(*out));
	while ((r = wc_replay_next(rp, &got, &err)) > 0) {
		/* in order of virtual completion */
		ck_assert_uint_ge(got.c_time, last);
		last = got.c_time;
		ck_assert_uint_le(got.d_time, got.c_time);
		for (i = 0; i < n; i++)
			if (rq[i].sector == got.sector && rq[i].action == got.action &&
			    rq[i].pid == got.pid && rq[i].bytes == got.bytes)
				out[i] = got;
		k++;
	}
	ck_assert_int_eq(r, 0);
	if (st)
		*st = *wc_replay_stats(rp);
	wc_replay_free(rp);
	return k;
}

/* A process that reads, thinks 2 ms, reads again: its second read waits
 * for the first's virtual completion and keeps the think time; another
 * process's read at the same recorded time is open loop and keeps it. */
START_TEST(process_rule)
{
	struct wc_replay_conf c;
	struct wc_request in[3], out[3];
	struct wc_replay_stats st;

	conf_of(&c);
	in[0] = mk(RD, 100, 8, 0, 0, 10 * MS);
	in[1] = mk(RD, 100, 800, 12 * MS, 12 * MS, 20 * MS);
	in[2] = mk(RD, 200, 8000, 12 * MS, 12 * MS, 21 * MS);
	ck_assert_uint_eq(replay(&c, in, 3, out, &st), 3);
	/* the disk is far faster than the recording */
	ck_assert_uint_lt(out[0].c_time, 1 * MS);
	ck_assert_uint_eq(out[1].d_time, out[0].c_time + 2 * MS);
	ck_assert_uint_eq(out[1].q_time, out[1].d_time);
	ck_assert_uint_eq(out[2].d_time, 12 * MS);
	ck_assert_uint_eq(st.rule[WC_RULE_PROCESS], 1);
	ck_assert_uint_eq(st.rule[WC_RULE_OPEN], 2);

	/* past think_max the same process is taken as independent */
	c.think_max_ns = 1 * MS;
	ck_assert_uint_eq(replay(&c, in, 3, out, &st), 3);
	ck_assert_uint_eq(out[1].d_time, 12 * MS);
	ck_assert_uint_eq(st.rule[WC_RULE_OPEN], 3);
}
END_TEST

/* A commit block queued behind its preflush and dispatched 50 us after
 * the flush completed waits for the flush; without barriers the flush is
 * dropped, and the commit goes 50 us after the flush would have been
 * dispatched: the wait it caused is gone. */
START_TEST(flush_rule)
{
	struct wc_replay_conf c;
	struct wc_request in[3], out[3];
	struct wc_replay_stats st;

	conf_of(&c);
	in[0] = mk(FL, 300, 0, WC_NO_TIME, 1 * MS, 40 * MS);
	in[1] = mk(JR, 400, 16, 1 * MS, 40 * MS + 50 * US, 41 * MS);
	/* written by someone else 5 ms after the flush: not held by it */
	in[2] = mk(WR, 500, 5000, 45 * MS, 45 * MS, 46 * MS);
	ck_assert_uint_eq(replay(&c, in, 3, out, &st), 3);
	ck_assert_uint_eq(out[0].d_time, 1 * MS);
	ck_assert_uint_eq(out[1].d_time, out[0].c_time + 50 * US);
	ck_assert_uint_eq(out[2].d_time, 45 * MS);
	ck_assert_uint_eq(st.rule[WC_RULE_FLUSH], 1);
	/* the commit's Q stays: it waited for the flush, not before it */
	ck_assert_uint_eq(out[1].q_time, 1 * MS);

	c.drop_flushes = true;
	ck_assert_uint_eq(replay(&c, in, 3, out, &st), 2);
	ck_assert_uint_eq(st.dropped_flushes, 1);
	ck_assert_uint_eq(out[0].c_time, 0);         /* never came out */
	ck_assert_uint_eq(out[1].d_time, 1 * MS + 50 * US);
	ck_assert_uint_eq(out[2].d_time, 45 * MS);
}
END_TEST

/* A flush dispatched 300 us after the last journal block completed waits
 * for it (a commit's preflush waits for the journal blocks), and the
 * journal block itself was written by another process. */
START_TEST(journal_rule)
{
	struct wc_replay_conf c;
	struct wc_request in[3], out[3];
	struct wc_replay_stats st;

	conf_of(&c);
	in[0] = mk(JR, 600, 0, 0, 0, 6 * MS);
	in[1] = mk(JR, 600, 8, 0, 0, 9 * MS);
	in[2] = mk(FL, 700, 0, WC_NO_TIME, 9 * MS + 300 * US, 30 * MS);
	ck_assert_uint_eq(replay(&c, in, 3, out, &st), 3);
	ck_assert_uint_eq(out[2].d_time, out[1].c_time + 300 * US);
	ck_assert_uint_ge(st.rule[WC_RULE_JOURNAL], 1);

	/* 2 ms after it is beyond the gap: the flush is open loop */
	in[2] = mk(FL, 700, 0, WC_NO_TIME, 11 * MS, 30 * MS);
	ck_assert_uint_eq(replay(&c, in, 3, out, &st), 3);
	ck_assert_uint_eq(out[2].d_time, 11 * MS);
}
END_TEST

/* Another process's request issued 300 us after a completion was issued
 * because of it; one queued before a completion and dispatched 200 us
 * after it was held back by it: its D moves, its Q does not. */
START_TEST(completion_and_held_rules)
{
	struct wc_replay_conf c;
	struct wc_request in[3], out[3];
	struct wc_replay_stats st;

	conf_of(&c);
	in[0] = mk(WR, 100, 8, 0, 0, 10 * MS);
	in[1] = mk(RD, 200, 800, 10 * MS + 300 * US, 10 * MS + 300 * US, 20 * MS);
	in[2] = mk(WR, 300, 8000, 0, 20 * MS + 200 * US, 25 * MS);
	ck_assert_uint_eq(replay(&c, in, 3, out, &st), 3);
	ck_assert_uint_eq(out[1].d_time, out[0].c_time + 300 * US);
	ck_assert_uint_eq(out[1].q_time, out[1].d_time);
	ck_assert_uint_eq(out[2].d_time, out[1].c_time + 200 * US);
	ck_assert_uint_eq(out[2].q_time, 0);
	ck_assert_uint_eq(st.rule[WC_RULE_COMPLETION], 1);
	ck_assert_uint_eq(st.rule[WC_RULE_HELD], 1);

	/* issued after the hold would have ended: dispatched at its Q */
	in[2] = mk(WR, 300, 8000, 5 * MS, 20 * MS + 200 * US, 25 * MS);
	ck_assert_uint_eq(replay(&c, in, 3, out, &st), 3);
	ck_assert_uint_lt(out[1].c_time + 200 * US, 5 * MS);
	ck_assert_uint_eq(out[2].q_time, 5 * MS);
	ck_assert_uint_eq(out[2].d_time, 5 * MS);
}
END_TEST

/* A request issued 0.5 ms after its process's previous one completed
 * but dispatched much later (a large request collecting its bios), after
 * another request of that process completed: its parent is the one
 * before its Q, found in the process's last few completions. */
START_TEST(parent_before_a_late_dispatch)
{
	struct wc_replay_conf c;
	struct wc_request in[4], out[4];
	struct wc_replay_stats st;

	conf_of(&c);
	in[0] = mk(RD, 100, 8, 0, 0, 10 * MS);
	in[1] = mk(RD, 100, 800, 12 * MS, 12 * MS, 20 * MS);
	in[2] = mk(WR, 100, 8000, 11 * MS + 500 * US, 30 * MS, 31 * MS);
	/* taken before it, after the process's second completion */
	in[3] = mk(RD, 999, 80000, 25 * MS, 25 * MS, 26 * MS);
	ck_assert_uint_eq(replay(&c, in, 4, out, &st), 4);
	ck_assert_uint_eq(out[2].d_time, 30 * MS + out[0].c_time - 10 * MS);
	ck_assert_uint_eq(out[2].q_time, out[0].c_time + 1500 * US);
	ck_assert_uint_eq(st.rule[WC_RULE_PROCESS], 2);
}
END_TEST

/* A slower disk delays what depends on a request and leaves the rest at
 * its recorded time; the model serves one request at a time, in order of
 * virtual dispatch. */
START_TEST(slower_disk)
{
	struct wc_replay_conf c;
	struct wc_request in[3], out[3];
	struct wc_err err;

	conf_of(&c);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_disk_param_set(&c.disk, "read_us", "30000", &err), 0);
	in[0] = mk(RD, 100, 8, 0, 0, 10 * MS);
	in[1] = mk(RD, 100, 800, 12 * MS, 12 * MS, 20 * MS);
	in[2] = mk(RD, 200, 8000, 5 * MS, 5 * MS, 21 * MS);
	ck_assert_uint_eq(replay(&c, in, 3, out, NULL), 3);
	ck_assert_uint_ge(out[0].c_time, 30 * MS);
	/* the independent read waited for the disk, not for the process */
	ck_assert_uint_eq(out[2].d_time, 5 * MS);
	ck_assert_uint_ge(out[2].c_time, out[0].c_time + 30 * MS);
	/* the dependent one comes 2 ms after its parent, then queues */
	ck_assert_uint_eq(out[1].d_time, out[0].c_time + 2 * MS);
	ck_assert_uint_ge(out[1].c_time, out[2].c_time + 30 * MS);
}
END_TEST

/* Requests handed out in completion order whose dispatch order differs
 * are taken in dispatch order; other devices and unfinished requests are
 * only counted; two runs give the same times to the nanosecond. */
START_TEST(order_and_determinism)
{
	struct wc_replay_conf c;
	struct wc_request in[40], out1[40], out2[40];
	struct wc_replay_stats st;
	size_t i, n1, n2;

	conf_of(&c);
	for (i = 0; i < 36; i++) {
		uint64_t d = (uint64_t)(i * 7919 % 36) * MS;

		in[i] = mk(i % 3 ? WR : RD, 100 + (uint32_t)(i % 4),
			   (uint64_t)i * 1000, d, d, d + (i % 5 + 1) * MS);
	}
	in[36] = mk(WR, 1, 5, 0, 0, 1 * MS);
	in[36].device = 8;
	in[37] = mk(WR, 1, 6, 0, 0, WC_NO_TIME);
	in[37].completed = false;
	in[38] = mk(FL, 2, 0, WC_NO_TIME, 20 * MS, 21 * MS);
	in[39] = mk(JR, 3, 0, 21 * MS, 21 * MS + 100 * US, 22 * MS);
	n1 = replay(&c, in, 40, out1, &st);
	ck_assert_uint_eq(n1, 38);
	ck_assert_uint_eq(st.other_devices, 1);
	ck_assert_uint_eq(st.unfinished, 1);
	ck_assert_uint_eq(st.late, 0);
	n2 = replay(&c, in, 40, out2, NULL);
	ck_assert_uint_eq(n1, n2);
	ck_assert_mem_eq(out1, out2, sizeof(out1));
}
END_TEST

/* A second device the same model disk serves (a region): its requests
 * are replayed on the one disk, so two dispatched at once are served one
 * after the other; without the region it is another device, not
 * replayed. */
START_TEST(regions)
{
	struct wc_replay_conf c;
	struct wc_request in[2], out[2];
	struct wc_replay_stats st;

	conf_of(&c);
	in[0] = mk(RD, 100, 8, 0, 0, 10 * MS);
	in[1] = mk(RD, 200, 8, 0, 0, 11 * MS);
	in[1].device = 8;
	ck_assert_uint_eq(replay(&c, in, 2, out, &st), 1);
	ck_assert_uint_eq(st.other_devices, 1);
	c.nregions = 1;
	c.regions[0].device = 8;
	c.regions[0].first_sector = 1u << 20;
	ck_assert_uint_eq(replay(&c, in, 2, out, &st), 2);
	ck_assert_uint_eq(out[1].device, 8);
	ck_assert_uint_eq(out[1].sector, 8);
	ck_assert_uint_ge(out[1].c_time, 2 * out[0].c_time);
}
END_TEST

/* Replays rq[0..n) (already in completion order); 1 with every request
 * out in order of virtual completion, -1 with err filled. */
static int replay_all(const struct wc_replay_conf *c,
		      const struct wc_request *rq, size_t n,
		      struct wc_request *out, struct wc_err *err)
{
	struct feed f = { rq, n, 0 };
	struct wc_replay *rp = NULL;
	struct wc_request got;
	size_t k = 0;
	int r;

	wc_err_clear(err);
	ck_assert_int_eq(wc_replay_open(&rp, c, feed_next, &f, err), 0);
	while ((r = wc_replay_next(rp, &got, err)) > 0) {
		ck_assert_uint_le(got.d_time, got.c_time);
		ck_assert(k == 0 || got.c_time >= out[k - 1].c_time);
		ck_assert_uint_lt(k, n);
		out[k++] = got;
	}
	wc_replay_free(rp);
	return r < 0 ? -1 : (int)k;
}

/* Recorded times at the replay's bound or past it (near 2^63, where a
 * signed difference overflowed, and near 2^64) are refused with the
 * bound named; just below it a trace replays as it does near 0, every
 * time shifted by the same amount, to the nanosecond. */
START_TEST(times_at_the_bound)
{
	static const uint64_t bases[] = {
		WC_REPLAY_MAX_NS, (1ull << 63) - 20 * MS, 1ull << 63,
		UINT64_MAX - 30 * MS,
	};
	struct wc_replay_conf c;
	struct wc_request in[4], near0[4], out[4];
	struct wc_err err;
	uint64_t b;
	size_t i, k;

	conf_of(&c);
	in[0] = mk(RD, 100, 8, 0, 0, 1 * MS);
	in[1] = mk(RD, 100, 800, 2 * MS, 2 * MS, 3 * MS);
	in[2] = mk(WR, 200, 8000, 1 * MS, 2 * MS, 4 * MS);
	in[3] = mk(RD, 100, 80, 5 * MS, 5 * MS, 6 * MS);
	ck_assert_int_eq(replay_all(&c, in, 4, near0, &err), 4);
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		struct wc_request sh[4];

		for (k = 0; k < 4; k++) {
			sh[k] = in[k];
			sh[k].q_time += bases[i];
			sh[k].d_time += bases[i];
			sh[k].c_time += bases[i];
		}
		ck_assert_int_lt(replay_all(&c, sh, 4, out, &err), 0);
		ck_assert_int_eq(err.kind, WC_ERR_INPUT);
		ck_assert_msg(strstr(err.msg, "2^62"), "%s", err.msg);
	}
	b = WC_REPLAY_MAX_NS - 1000 * MS;
	for (k = 0; k < 4; k++) {
		in[k].q_time += b;
		in[k].d_time += b;
		in[k].c_time += b;
	}
	ck_assert_int_eq(replay_all(&c, in, 4, out, &err), 4);
	for (k = 0; k < 4; k++) {
		ck_assert_uint_eq(out[k].sector, near0[k].sector);
		ck_assert_uint_eq(out[k].q_time, near0[k].q_time + b);
		ck_assert_uint_eq(out[k].d_time, near0[k].d_time + b);
		ck_assert_uint_eq(out[k].c_time, near0[k].c_time + b);
	}
}
END_TEST

/* A disk at 0.001 MB/s given 5,000 writes of 4 GiB would take 2.1e19 ns,
 * past 2^64: virtual time stops at the bound with an error that says
 * so, never wraps. */
START_TEST(virtual_time_bound)
{
	enum { N = 5000 };
	struct wc_replay_conf c;
	struct wc_request *in = calloc(N, sizeof(*in));
	struct wc_request *out = calloc(N, sizeof(*out));
	struct wc_err err;
	size_t k;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	conf_of(&c);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_disk_param_set(&c.disk, "media_outer_mbs", "0.001", &err), 0);
	ck_assert_int_eq(wc_disk_param_set(&c.disk, "media_inner_mbs", "0.001", &err), 0);
	ck_assert_int_eq(wc_disk_param_set(&c.disk, "interface_mbs", "0.001", &err), 0);
	c.capacity_bytes = 1ull << 40;
	for (k = 0; k < N; k++) {
		in[k] = mk(WR, 100 + (uint32_t)k, 0, k * MS, k * MS, k * MS + 1);
		in[k].bytes = UINT32_MAX / 512 * 512;
	}
	ck_assert_int_lt(replay_all(&c, in, N, out, &err), 0);
	ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	ck_assert_msg(strstr(err.msg, "virtual time"), "%s", err.msg);
	free(in);
	free(out);
}
END_TEST

/* Replays rq[0..n) as replay() does, keeping every request handed out in
 * the order handed out (a barrier's flushes are none of rq). */
static size_t replay_seq(const struct wc_replay_conf *c,
			 const struct wc_request *rq, size_t n,
			 struct wc_request *out, size_t max,
			 struct wc_replay_stats *st)
{
	struct wc_request sorted[64];
	struct feed f = { sorted, n, 0 };
	struct wc_replay *rp = NULL;
	struct wc_err err;
	size_t k = 0;
	int r;

	ck_assert_uint_le(n, 64);
	memcpy(sorted, rq, n * sizeof(*rq));
	qsort(sorted, n, sizeof(*sorted), by_c);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_replay_open(&rp, c, feed_next, &f, &err), 0);
	while (k < max && (r = wc_replay_next(rp, &out[k], &err)) > 0)
		k++;
	ck_assert_uint_lt(k, max);
	ck_assert_int_eq(wc_replay_next(rp, &out[k], &err), 0);
	*st = *wc_replay_stats(rp);
	wc_replay_free(rp);
	return k;
}

/*
 * The 2.6.24 ordering (replay.h, docs/what-if.md): two data writes go to
 * the disk at 0 and 1 us; XFS's log write J is issued at 10 us, while
 * they are in flight, and another data write W3 at 11 us; J's writer
 * reads 1 ms after J completed.  The disk serves one command at a time,
 * each 4 KiB write taking the same c (read off the first).
 *
 * Today's ordering: J and W3 go to the disk when issued (10 and 11 us).
 * Under the drain, with the cache off (QUEUE_ORDERED_DRAIN): J goes once
 * both writes completed, at 2c, and completes at 3c; W3, issued after
 * J, goes at 3c; the read at 3c + 1 ms.  With the cache on
 * (QUEUE_ORDERED_DRAIN_FLUSH): a flush at the end of the second write,
 * J when it completed, a second flush when J completed; W3 and the read
 * wait for the second flush: six requests come out, in that order.
 */
START_TEST(drain_2624)
{
	struct wc_replay_conf c;
	struct wc_request in[5], out[16];
	struct wc_replay_stats st;
	struct wc_err err;
	uint64_t cw;
	size_t n;

	conf_of(&c);
	in[0] = mk(WR, 100, 8, 0, 0, 5 * MS);
	in[1] = mk(WR, 200, 5000, 1 * US, 1 * US, 6 * MS);
	in[2] = mk(JR, 300, 16, 10 * US, 10 * US, 7 * MS);
	in[3] = mk(WR, 400, 9000, 11 * US, 11 * US, 6 * MS + 500 * US);
	in[4] = mk(RD, 300, 20000, 8 * MS, 8 * MS, 9 * MS);

	/* today's ordering: nothing waits for J but its writer's read */
	n = replay_seq(&c, in, 5, out, 16, &st);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(st.barriers, 0);
	ck_assert_uint_eq(out[2].d_time, 10 * US);   /* J */
	ck_assert_uint_eq(out[3].d_time, 11 * US);   /* W3 */

	/* the drain, cache off */
	c.barriers = WC_BARRIERS_LOG;
	c.drop_flushes = c.drop_fua = true;
	n = replay_seq(&c, in, 5, out, 16, &st);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(st.barriers, 1);
	ck_assert_uint_eq(st.barrier_flushes, 0);
	cw = out[0].c_time - out[0].d_time;
	ck_assert_uint_gt(cw, 10 * US);             /* both in flight at 10 us */
	ck_assert_uint_eq(out[0].c_time, cw);
	ck_assert_uint_eq(out[1].c_time, 2 * cw);
	ck_assert_uint_eq(out[2].sector, JOURNAL + 16);
	ck_assert_uint_eq(out[2].d_time, 2 * cw);
	ck_assert_uint_eq(out[2].c_time, 3 * cw);
	ck_assert_uint_eq(out[3].sector, 9000);
	ck_assert_uint_eq(out[3].d_time, 3 * cw);
	ck_assert_uint_eq(out[3].c_time, 4 * cw);
	ck_assert_uint_eq(out[4].d_time, 3 * cw + 1 * MS);
	ck_assert_uint_eq(out[2].q_time, 10 * US);   /* issued when it was */

	/* the drain and two flushes, cache on */
	wc_err_clear(&err);
	ck_assert_int_eq(wc_disk_param_set(&c.disk, "write_cache", "on", &err), 0);
	n = replay_seq(&c, in, 5, out, 16, &st);
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(st.barriers, 1);
	ck_assert_uint_eq(st.barrier_flushes, 2);
	ck_assert_uint_eq(out[2].bytes, 0);          /* the first flush */
	ck_assert(out[2].action & WC_TC(WC_TC_FLUSH));
	ck_assert_uint_eq(out[2].d_time, out[1].c_time);
	ck_assert_uint_eq(out[3].sector, JOURNAL + 16);
	ck_assert(!(out[3].action & WC_TC(WC_TC_FUA)));
	ck_assert_uint_eq(out[3].d_time, out[2].c_time);
	ck_assert_uint_eq(out[4].bytes, 0);          /* the second flush */
	ck_assert_uint_eq(out[4].d_time, out[3].c_time);
	ck_assert_uint_eq(out[4].pid, 300);
	ck_assert_uint_eq(out[5].sector, 9000);
	ck_assert_uint_eq(out[5].d_time, out[4].c_time);
	ck_assert_uint_eq(out[6].d_time, out[4].c_time + 1 * MS);

	/* barriers off under 2.6.24: nothing drained, J goes when issued */
	c.barriers = WC_BARRIERS_NONE;
	n = replay_seq(&c, in, 5, out, 16, &st);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(out[2].d_time, 10 * US);
}
END_TEST

/* jbd's rule: only the journal write carrying FUA or PREFLUSH (today's
 * commit block) is a barrier; the journal's other blocks are not. */
START_TEST(commit_barrier_2624)
{
	struct wc_replay_conf c;
	struct wc_request in[3], out[16];
	struct wc_replay_stats st;

	conf_of(&c);
	c.barriers = WC_BARRIERS_COMMIT;
	c.drop_flushes = c.drop_fua = true;
	in[0] = mk(JR, 300, 0, 0, 0, 5 * MS);
	in[1] = mk(JR, 300, 8, 1 * US, 1 * US, 6 * MS);
	in[2] = mk(JR, 300, 16, 2 * US, 2 * US, 7 * MS);
	in[2].action |= WC_TC(WC_TC_FUA) | WC_TC(WC_TC_FLUSH);
	ck_assert_uint_eq(replay_seq(&c, in, 3, out, 16, &st), 3);
	ck_assert_uint_eq(st.barriers, 1);
	ck_assert_uint_eq(out[1].d_time, 1 * US);
	ck_assert_uint_eq(out[2].d_time, out[1].c_time);
}
END_TEST

/* More requests within the horizon than the replay holds: those taken
 * before their horizon passed are counted once each, never once per turn
 * of the loop (the note said 326,780 for 200,000 requests). */
START_TEST(forced_counts_requests)
{
	enum { N = 200000 };
	struct wc_replay_conf c;
	struct wc_request *in = calloc(N, sizeof(*in));
	struct wc_request *out = calloc(N, sizeof(*out));
	struct wc_replay *rp = NULL;
	const struct wc_replay_stats *st;
	struct feed f = { in, N, 0 };
	struct wc_request got;
	struct wc_err err;
	size_t k;
	int r;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	conf_of(&c);
	for (k = 0; k < N; k++)
		in[k] = mk(RD, 100 + (uint32_t)(k % 1000), 8 * k, k * US,
			   k * US, k * US + 500);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_replay_open(&rp, &c, feed_next, &f, &err), 0);
	k = 0;
	while ((r = wc_replay_next(rp, &got, &err)) > 0)
		k++;
	ck_assert_int_eq(r, 0);
	st = wc_replay_stats(rp);
	ck_assert_uint_eq(k, N);
	ck_assert_uint_gt(st->forced, 0);
	ck_assert_uint_le(st->forced, N);
	ck_assert_uint_le(st->out_of_order, N);
	ck_assert_uint_ge(st->out_of_order, st->forced);
	ck_assert_uint_ge(st->out_of_order, st->late);
	wc_replay_free(rp);
	free(in);
	free(out);
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, process_rule);
	tcase_add_test(tc, flush_rule);
	tcase_add_test(tc, journal_rule);
	tcase_add_test(tc, completion_and_held_rules);
	tcase_add_test(tc, parent_before_a_late_dispatch);
	tcase_add_test(tc, slower_disk);
	tcase_add_test(tc, order_and_determinism);
	tcase_add_test(tc, regions);
	tcase_add_test(tc, times_at_the_bound);
	tcase_add_test(tc, virtual_time_bound);
	tcase_add_test(tc, forced_counts_requests);
	tcase_add_test(tc, drain_2624);
	tcase_add_test(tc, commit_barrier_2624);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(replay_suite)
