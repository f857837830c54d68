/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_account.c - unit tests of analyze/lib/model/account.c: the partition of
 * the window to the nanosecond (per device and per phase, over random
 * requests), completion-driven slices, positioning against a given and an
 * estimated media rate, seeks, flush percentiles, waits by command,
 * unfinished requests, the positioning histogram's bins against the
 * formula with log2, and every figure of every phase against a model
 * that tests each phase for each request, on hostile phase lists; the
 * device's own work (wc_account_set_work()) carved out of idle.
 */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/account.h"
#include "model/tracker.h"
#include "check_common.h"

#define DEV1 WC_DEV_MAKE(8u, 0u)
#define DEV2 WC_DEV_MAKE(8u, 16u)
#define DEV3 WC_DEV_MAKE(8u, 32u)
#define MS 1000000ull
#define W WC_TC(WC_TC_WRITE)

static struct wc_request mk(uint32_t dev, uint64_t q, uint64_t d, uint64_t c,
			    uint64_t sector, uint32_t bytes, uint64_t flags)
{
	struct wc_request r;

	memset(&r, 0, sizeof(r));
	r.device = dev;
	r.q_time = q;
	r.d_time = d;
	r.c_time = c;
	r.sector = sector;
	r.bytes = bytes;
	r.action = flags;
	r.completed = true;
	r.nbios = 1;
	r.depth = 1;
	return r;
}

/* The names of the tests' processes: pid k is names_of_pid[k]. */
static const char *const *names_of_pid;

static const char *name_of(const void *arg, uint32_t pid)
{
	(void)arg;
	return names_of_pid ? names_of_pid[pid] : NULL;
}

static struct wc_account *open_ac(double rate, const struct wc_phase_window *ph,
				  size_t nph)
{
	struct wc_account_conf conf = { .media_rate = rate, .nphases = nph,
					.phases = ph, .name = name_of };
	struct wc_account *ac = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_account_open(&ac, &conf, &err), 0);
	return ac;
}

static uint64_t sum_parts(const struct wc_figures *f)
{
	uint64_t s = f->idle_ns + f->outstanding_ns + f->internal_ns;
	int c;

	for (c = 0; c < WC_NCAT; c++)
		s += f->time_ns[c];
	return s;
}

static uint64_t rng = 88172645463325252ull;

/* The device's own work of a test: pieces handed out in order. */
struct work_list {
	const struct wc_account_work *w;
	size_t n, next;
};

static int work_next(void *arg, struct wc_account_work *w)
{
	struct work_list *l = arg;

	if (l->next == l->n)
		return 0;
	*w = l->w[l->next++];
	return 1;
}

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

START_TEST(test_partition_exact)
{
	/* Random overlapping requests on two devices, phases that cut
	 * through slices, a phase reaching outside the window. */
	const struct wc_phase_window ph[3] = {
		{ 1000, 1000 + 3 * MS + 17 },
		{ 1000 + 3 * MS + 17, 1000 + 9 * MS + 5 },
		{ 1000 + 9 * MS + 5, 1000 + 40 * MS },
	};
	struct wc_account *ac = open_ac(0, ph, 3);
	uint64_t t[2] = { 1000, 1000 }, last = 1000, at = 0;
	static struct wc_account_work work[3000];
	struct work_list wl = { work, 3000, 0 };
	size_t i, p;

	/* The device's own work on DEV1: pieces anywhere, some reaching
	 * back over the one before (the accountant cuts them), some past
	 * the window. */
	for (i = 0; i < 3000; i++) {
		at += next_rand() % 40000;
		work[i].start = next_rand() % 5 == 0 && at > 5000 ? at - 5000 : at;
		at += 1 + next_rand() % 30000;
		work[i].end = at;
		work[i].bytes = 4096;
	}
	ck_assert_int_eq(wc_account_set_work(ac, DEV1, work_next, &wl, 1000), 0);
	for (i = 0; i < 2000; i++) {
		int dv = (int)(next_rand() % 2);
		uint64_t d = t[dv] + next_rand() % 20000;
		uint64_t c = d + 1 + next_rand() % 40000;
		struct wc_request r;

		/* D may come before the previous completion: overlap. */
		if (next_rand() % 3 == 0 && d > 30000)
			d -= 30000;
		if (d < 1000)
			d = 1000;
		r = mk(dv ? DEV2 : DEV1, d, d, c, next_rand() % 100000 * 8,
		       4096 * (uint32_t)(1 + next_rand() % 8),
		       next_rand() % 2 ? W : 0);
		if (i % 50 == 0) {
			r.bytes = 0;
			r.action = W | WC_TC(WC_TC_FLUSH);
		}
		wc_account_add(ac, &r, (enum wc_cat)(next_rand() % WC_NCAT));
		t[dv] = c;
		if (c > last)
			last = c;
	}
	wc_account_finish(ac, 1000, last + 12345);
	ck_assert_uint_eq(wc_account_ndevices(ac), 2);
	for (i = 0; i < 2; i++) {
		const struct wc_figures *f = wc_account_device(ac, i);

		ck_assert_uint_eq(f->window_ns, last + 12345 - 1000);
		ck_assert_uint_eq(sum_parts(f), f->window_ns);
		ck_assert_uint_gt(f->idle_ns, 0);
		ck_assert(f->internal_known == (f->device == DEV1));
		if (f->device == DEV1)
			ck_assert_uint_gt(f->internal_ns, 0);
		else
			ck_assert_uint_eq(f->internal_ns, 0);
		for (p = 0; p < 3; p++) {
			const struct wc_figures *g = wc_account_phase(ac, i, p);

			ck_assert_uint_eq(g->window_ns, ph[p].end - ph[p].start);
			ck_assert_uint_eq(sum_parts(g), g->window_ns);
		}
	}
	wc_account_free(ac);
}
END_TEST

/*
 * The device's own work (a ledger's destage of no command) is busy time
 * of no request: the part of each piece that no slice covers and the
 * window holds, out of idle, per device and per phase, to the
 * nanosecond; a piece that reaches back over the one before is cut;
 * what comes after the window is not counted; a device without work
 * has none.  Times in ms from T0.
 */
#define T0 (1000 * MS)
START_TEST(test_internal_work)
{
	const struct wc_phase_window ph[2] = {
		{ T0, T0 + 50 * MS }, { T0 + 50 * MS, T0 + 100 * MS },
	};
	/* Slices [20, 30], [40, 60], [80, 90]; gaps [0, 20), [30, 40),
	 * [60, 80), [90, 100). */
	static const struct wc_account_work w[] = {
		{ T0 + 5 * MS, T0 + 10 * MS, 1 },    /* in a gap: 5 */
		{ T0 + 15 * MS, T0 + 25 * MS, 2 },   /* 5 in the gap, 5 covered */
		{ T0 + 32 * MS, T0 + 35 * MS, 4 },   /* 3 */
		{ T0 + 33 * MS, T0 + 36 * MS, 8 },   /* cut to [35, 36): 1 */
		{ T0 + 38 * MS, T0 + 45 * MS, 16 },  /* 2, then covered */
		{ T0 + 50 * MS, T0 + 55 * MS, 32 },  /* inside a slice: 0 */
		{ T0 + 58 * MS, T0 + 70 * MS, 64 },  /* 2 covered, then 10 */
		{ T0 + 92 * MS, T0 + 98 * MS, 128 }, /* after the last C: 6 */
		{ T0 + 99 * MS, T0 + 120 * MS, 256 },/* cut at the end: 1 */
		{ T0 + 130 * MS, T0 + 140 * MS, 512 },/* after it: none */
	};
	struct work_list wl = { w, sizeof(w) / sizeof(w[0]), 0 };
	struct wc_account *ac = open_ac(0, ph, 2);
	const struct wc_figures *f, *a, *b;
	struct wc_request r;

	ck_assert_int_eq(wc_account_set_work(ac, DEV1, work_next, &wl, T0), 0);
	ck_assert_int_eq(wc_account_set_work(NULL, DEV1, work_next, &wl, T0), -1);
	ck_assert_int_eq(wc_account_set_work(ac, DEV1, NULL, &wl, T0), -1);
	r = mk(DEV1, T0 + 20 * MS, T0 + 20 * MS, T0 + 30 * MS, 0, 4096, W);
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	/* Another device, no work: its figures as before. */
	r = mk(DEV2, T0 + 31 * MS, T0 + 31 * MS, T0 + 33 * MS, 0, 4096, W);
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	r = mk(DEV1, T0 + 40 * MS, T0 + 40 * MS, T0 + 60 * MS, 8, 4096, W);
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	r = mk(DEV1, T0 + 80 * MS, T0 + 80 * MS, T0 + 90 * MS, 16, 4096, W);
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	wc_account_finish(ac, T0, T0 + 100 * MS);

	f = wc_account_device(ac, 0);
	ck_assert_uint_eq(f->device, DEV1);
	ck_assert(f->internal_known);
	ck_assert_uint_eq(f->internal_ns, 33 * MS);
	ck_assert_uint_eq(f->internal_ranges, 9);
	ck_assert_uint_eq(f->internal_bytes, 511);
	ck_assert_uint_eq(wc_figures_busy(f), 40 * MS + 33 * MS);
	ck_assert_uint_eq(f->idle_ns, 100 * MS - 40 * MS - 33 * MS);
	ck_assert_uint_eq(sum_parts(f), f->window_ns);
	a = wc_account_phase(ac, 0, 0);
	b = wc_account_phase(ac, 0, 1);
	ck_assert_uint_eq(a->internal_ns, 16 * MS);
	ck_assert_uint_eq(b->internal_ns, 17 * MS);
	ck_assert_uint_eq(a->internal_ranges, 5);
	ck_assert_uint_eq(b->internal_ranges, 4);
	ck_assert_uint_eq(sum_parts(a), a->window_ns);
	ck_assert_uint_eq(sum_parts(b), b->window_ns);
	/* Some device busy: DEV1's slices and own work, and DEV2's
	 * [31, 33], whose [32, 33] DEV1's work covers too. */
	ck_assert_uint_eq(wc_account_busy_any(ac), 73 * MS + 1 * MS);
	f = wc_account_device(ac, 1);
	ck_assert(!f->internal_known);
	ck_assert_uint_eq(f->internal_ns, 0);
	ck_assert_uint_eq(f->idle_ns, 98 * MS);
	/* One piece held at a time: the one after the window was never
	 * pulled. */
	ck_assert_uint_eq(wl.next, wl.n - 1);
	wc_account_free(ac);
}
END_TEST

/*
 * The union of every device's slices stays exact for a slice that
 * reaches back over UNION_MAX (64) stretches of idle time, however many
 * disjoint intervals came before it: N short slices on one device with
 * idle time between, then one on another device that covers the newest
 * 64 of them and the idle time between.  N runs over 130 values, so the
 * union has dropped its oldest at every distance before the last slice.
 */
START_TEST(test_busy_union_reaches_back)
{
	const uint64_t reach = 64;
	uint64_t n;

	for (n = 900; n < 1030; n++) {
		struct wc_account *ac = open_ac(0, NULL, 0);
		uint64_t i, d2, c2, want = 0;
		struct wc_request r;

		for (i = 0; i < n; i++) {
			r = mk(DEV1, i * 1000, i * 1000, i * 1000 + 100, i * 8,
			       4096, W);
			wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
			want += 100;
		}
		/* From inside the 64th newest slice to past the newest. */
		d2 = (n - reach) * 1000 + 50;
		c2 = (n - 1) * 1000 + 300;
		r = mk(DEV2, d2, d2, c2, 0, 4096, W);
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
		/* Its slice adds what the 64 slices it covers do not: the
		 * idle time between them and 200 after the last. */
		want += (reach - 1) * 900 + 200;
		wc_account_finish(ac, 0, n * 1000);
		ck_assert_msg(wc_account_busy_any(ac) == want,
			      "%" PRIu64 " slices: busy %" PRIu64 ", want %" PRIu64,
			      n, wc_account_busy_any(ac), want);
		wc_account_free(ac);
	}
}
END_TEST

START_TEST(test_completion_driven_slices)
{
	struct wc_account *ac = open_ac(0, NULL, 0);
	struct wc_request a = mk(DEV1, 0, 100, 1100, 0, 4096, W);
	struct wc_request b = mk(DEV1, 0, 200, 1600, 8, 4096, W);
	struct wc_request c = mk(DEV1, 0, 3000, 3100, 16, 0,
				 W | WC_TC(WC_TC_FLUSH));
	const struct wc_figures *f;

	wc_account_add(ac, &a, WC_CAT_DATA_WRITE);
	wc_account_add(ac, &b, WC_CAT_METADATA);
	wc_account_add(ac, &c, WC_CAT_FLUSH);
	wc_account_finish(ac, 0, 4000);
	f = wc_account_device(ac, 0);
	/* a: its D to its C; b: from a's C; c: its own D (disk idle). */
	ck_assert_uint_eq(f->time_ns[WC_CAT_DATA_WRITE], 1000);
	ck_assert_uint_eq(f->time_ns[WC_CAT_METADATA], 500);
	ck_assert_uint_eq(f->time_ns[WC_CAT_FLUSH], 100);
	ck_assert_uint_eq(f->idle_ns, 4000 - 1600);
	ck_assert_uint_eq(f->requests[WC_CAT_FLUSH], 1);
	ck_assert_uint_eq(f->flush_d2c.n, 1);
	ck_assert_uint_eq(f->flush_d2c.min, 100);
	/* Little: sum of D-to-C. */
	ck_assert_uint_eq(f->inflight_ns, 1000 + 1400 + 100);
	wc_account_free(ac);
}
END_TEST

START_TEST(test_positioning_given_rate)
{
	struct wc_account *ac = open_ac(1e9, NULL, 0);   /* 1 byte/ns */
	struct wc_request a = mk(DEV1, 0, 0, 10000, 0, 4000, W);
	struct wc_request b = mk(DEV1, 0, 10000, 12000, 100000, 4000, W);
	const struct wc_figures *f;
	bool est = true;

	wc_account_add(ac, &a, WC_CAT_DATA_WRITE);   /* 6000 positioning */
	wc_account_add(ac, &b, WC_CAT_JOURNAL);      /* clamped to 0 */
	wc_account_finish(ac, 0, 12000);
	f = wc_account_device(ac, 0);
	ck_assert(f->positioning_known);
	/* The bin holding 1/rate is approximated; a's bin is far from it. */
	ck_assert_uint_eq(f->positioning_ns, 6000);
	ck_assert(wc_account_media_rate(ac, 0, &est) == 1e9);
	ck_assert(!est);
	wc_account_free(ac);
}
END_TEST

/* Behind a write-back cache a write (not FUA) positions nothing and the
 * next flush is split against the bytes absorbed since the previous
 * one, on the cached device only, and in the phases as on the device. */
static void cache_run(struct wc_account *ac)
{
	struct wc_request rq[] = {
		mk(DEV1, 0, 0, 10000, 0, 4000, W),              /* absorbed */
		mk(DEV2, 0, 0, 10000, 0, 4000, W),              /* 6000 */
		mk(DEV1, 0, 10000, 20000, 9000, 4000, 0),       /* read: 6000 */
		mk(DEV1, 0, 20000, 30000, 90000, 4000,
		   W | WC_TC(WC_TC_FUA)),                       /* FUA: 6000 */
		mk(DEV1, 0, 30000, 31000, 900000, 8000, W),     /* absorbed */
		mk(DEV1, 0, 31000, 81000, 0, 0, 0),             /* destage */
		mk(DEV1, 0, 81000, 82000, 0, 0, 0),             /* nothing */
	};
	enum wc_cat cat[] = { WC_CAT_DATA_WRITE, WC_CAT_DATA_WRITE,
			      WC_CAT_DATA_READ, WC_CAT_JOURNAL,
			      WC_CAT_METADATA, WC_CAT_FLUSH, WC_CAT_FLUSH };
	size_t i;

	for (i = 0; i < sizeof(rq) / sizeof(rq[0]); i++)
		wc_account_add(ac, &rq[i], cat[i]);
	wc_account_finish(ac, 0, 100000);
}

START_TEST(test_write_cache_positioning)
{
	const struct wc_phase_window ph[] = { { 0, 56000 }, { 56000, 100000 } };
	struct wc_account_conf conf = { .media_rate = 1e9, .write_cache = 1,
					.cache_device = DEV1, .nphases = 2,
					.phases = ph };
	struct wc_account *ac = NULL;
	const struct wc_figures *f;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_account_open(&ac, &conf, &err), 0);
	cache_run(ac);
	f = wc_account_device(ac, 0);
	ck_assert_uint_eq(f->device, DEV1);
	/* the read, the FUA write, the flush's 50000 - 12000 */
	ck_assert_uint_eq(f->destage_positioning_ns, 38000);
	ck_assert_uint_eq(f->destage_transfer_ns, 12000);
	ck_assert_uint_eq(f->positioning_ns, 6000 + 6000 + 38000);
	ck_assert_uint_eq(sum_parts(f), f->window_ns);
	/* The flush reaches over the edge at 56000: half of it, and half
	 * of its bytes, in each phase. */
	f = wc_account_phase(ac, 0, 0);
	ck_assert_uint_eq(f->destage_positioning_ns, 25000 - 6000);
	ck_assert_uint_eq(f->destage_transfer_ns, 6000);
	ck_assert_uint_eq(f->positioning_ns, 6000 + 6000 + 19000);
	f = wc_account_phase(ac, 0, 1);
	ck_assert_uint_eq(f->destage_positioning_ns, 19000);
	ck_assert_uint_eq(f->positioning_ns, 19000);
	/* Another device: not behind that cache. */
	f = wc_account_device(ac, 1);
	ck_assert_uint_eq(f->device, DEV2);
	ck_assert_uint_eq(f->positioning_ns, 6000);
	wc_account_free(ac);

	/* Cache off: every write positions, no flush is split. */
	conf.write_cache = 0;
	ck_assert_int_eq(wc_account_open(&ac, &conf, &err), 0);
	cache_run(ac);
	f = wc_account_device(ac, 0);
	ck_assert_uint_eq(f->destage_positioning_ns, 0);
	ck_assert_uint_eq(f->destage_transfer_ns, 0);
	ck_assert_uint_eq(f->positioning_ns, 6000 + 6000 + 6000);
	wc_account_free(ac);
}
END_TEST

START_TEST(test_rate_estimate_and_seeks)
{
	struct wc_account *ac = open_ac(0, NULL, 0);
	uint64_t t = 0, sector = 1000;
	const struct wc_figures *f;
	bool est = false;
	double rate;
	int i;

	/* A random 4 KiB write that costs 5 ms, then 8 streaming 128 KiB
	 * writes at 100 MB/s (1.31072 ms each), twice over. */
	for (i = 0; i < 18; i++) {
		struct wc_request r;

		if (i % 9 == 0) {
			sector += 1000000;
			r = mk(DEV1, t, t, t + 5 * MS, sector, 4096, W);
			sector += 8;
		} else {
			r = mk(DEV1, t, t, t + 1310720, sector, 131072, W);
			sector += 256;
		}
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
		t = r.c_time;
	}
	wc_account_finish(ac, 0, t);
	f = wc_account_device(ac, 0);
	rate = wc_account_media_rate(ac, 0, &est);
	ck_assert(est);
	ck_assert(rate > 99.9e6 && rate < 100.1e6);
	/* Positioning: 2 x (5 ms - 4096 B at 100 MB/s). */
	ck_assert(f->positioning_known);
	ck_assert_uint_le(f->positioning_ns, 2 * (5 * MS - 40960) + 2000);
	ck_assert_uint_ge(f->positioning_ns, 2 * (5 * MS - 40960) - 2000);
	/* Only the second random write seeks: the first has no previous. */
	ck_assert_uint_eq(f->seek_candidates, 17);
	ck_assert_uint_eq(f->seeks, 1);
	ck_assert_uint_eq(f->seek_hist[19], 1);   /* 2^19 <= 999744 < 2^20 */
	wc_account_free(ac);
}
END_TEST

START_TEST(test_flush_percentiles)
{
	struct wc_account *ac = open_ac(0, NULL, 0);
	const struct wc_figures *f;
	uint64_t t = 0;
	int i;

	for (i = 1; i <= 100; i++) {
		struct wc_request r = mk(DEV1, t, t, t + (uint64_t)i * MS, 0, 0,
					 W | WC_TC(WC_TC_FLUSH));

		wc_account_add(ac, &r, WC_CAT_FLUSH);
		t = r.c_time;
	}
	wc_account_finish(ac, 0, t);
	f = wc_account_device(ac, 0);
	ck_assert_uint_eq(f->flush_d2c.n, 100);
	ck_assert_uint_eq(f->flush_d2c.min, 1 * MS);
	ck_assert_uint_eq(f->flush_d2c.max, 100 * MS);
	ck_assert(f->flush_d2c.p50 > 50 * MS * 955 / 1000 &&
		  f->flush_d2c.p50 < 50 * MS * 1045 / 1000);
	ck_assert(f->flush_d2c.p90 > 90 * MS * 955 / 1000 &&
		  f->flush_d2c.p90 < 90 * MS * 1045 / 1000);
	ck_assert(f->flush_d2c.p99 > 99 * MS * 955 / 1000 &&
		  f->flush_d2c.p99 <= 100 * MS);
	ck_assert_uint_eq(f->time_ns[WC_CAT_FLUSH], 5050 * MS);
	wc_account_free(ac);
}
END_TEST

START_TEST(test_waits_and_unfinished)
{
	struct wc_account *ac = open_ac(0, NULL, 0);
	struct wc_request r = mk(DEV1, 0, 10, 100, 0, 4096,
				 W | WC_TC(WC_TC_SYNC));
	static char name[100][32];
	const char *names[104] = { NULL, "cp", "rm", "kworker" };
	int i;

	for (i = 0; i < 100; i++) {
		snprintf(name[i], sizeof(name[i]), "p%d", i);
		names[4 + i] = name[i];
	}
	names_of_pid = names;
	r.pid = 1;
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	r.q_time = 100;
	r.d_time = 200;
	r.c_time = 1100;
	r.pid = 2;
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	r.action = W;                          /* async: nobody waited */
	r.pid = 3;
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	for (i = 0; i < 100; i++) {
		r.action = W | WC_TC(WC_TC_SYNC);
		r.pid = (uint32_t)(4 + i);
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	}
	r.completed = false;
	r.pid = 0;
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	wc_account_finish(ac, 0, 2000);
	names_of_pid = NULL;
	ck_assert_uint_eq(wc_account_nwaits(ac), WC_MAX_COMMS);
	ck_assert_str_eq(wc_account_wait(ac, 0)->comm, "(other)");
	ck_assert_uint_eq(wc_account_wait(ac, 0)->requests, 100 - 61);
	ck_assert_uint_eq(wc_account_device(ac, 0)->unfinished, 1);
	for (i = 0; i < WC_MAX_COMMS; i++)
		ck_assert_str_ne(wc_account_wait(ac, (size_t)i)->comm, "kworker");
	wc_account_free(ac);
	wc_account_free(NULL);
}
END_TEST

/* Time a request was dispatched and never completed is neither idle nor
 * any category's: it is outstanding, from its D to the bound after it
 * (the kernel gives up then), where no slice covers it, cut to the
 * window and to each phase; idle + outstanding + the slices is the
 * window to the nanosecond.  A device on which nothing completes is
 * outstanding from its first D on. */
START_TEST(test_outstanding_not_idle)
{
	const struct wc_phase_window ph[1] = { { 900, 1200 } };
	struct wc_account *ac = open_ac(0, ph, 1);
	struct wc_request r = mk(DEV1, 100, 100, 200, 0, 4096, W);
	const struct wc_figures *f;
	int k;

	for (k = 0; k < 2; k++) {
		ac = k ? open_ac(0, ph, 1) : ac;
		if (k)
			ck_assert_int_eq(wc_account_set_bound(ac, DEV1, 500), 0);
		r = mk(DEV1, 100, 100, 200, 0, 4096, W);
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
		r = mk(DEV1, 1000, 1000, 1100, 8, 4096, W);
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
		r = mk(DEV1, 150, 150, 0, 16, 4096, W);
		r.completed = false;
		r.c_time = WC_NO_TIME;
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
		r.d_time = WC_NO_TIME;           /* never at the device */
		r.q_time = 10;
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
		r = mk(DEV2, 500, 500, 0, 0, 4096, 0);
		r.completed = false;
		r.c_time = WC_NO_TIME;
		wc_account_add(ac, &r, WC_CAT_DATA_READ);
		wc_account_finish(ac, 0, 3000);

		f = wc_account_device(ac, 0);
		ck_assert_uint_eq(f->unfinished, 2);
		/* Stretches without a slice: [0,100) [200,1000) [1100,...);
		 * outstanding from 150 on (to the bound 500 later, k 1). */
		ck_assert_uint_eq(f->outstanding_ns, k ? 450 : 800 + 1900);
		ck_assert_uint_eq(f->idle_ns, k ? 3000 - 200 - 450 : 100);
		ck_assert_uint_eq(sum_parts(f), f->window_ns);
		ck_assert_uint_eq(wc_figures_busy(f), 200);
		f = wc_account_phase(ac, 0, 0);
		ck_assert_uint_eq(f->outstanding_ns, k ? 0 : 200);
		ck_assert_uint_eq(f->idle_ns, k ? 200 : 0);
		ck_assert_uint_eq(sum_parts(f), f->window_ns);
		f = wc_account_device(ac, 1);
		ck_assert_uint_eq(f->outstanding_ns, 2500);
		ck_assert_uint_eq(f->idle_ns, 500);
		ck_assert_uint_eq(sum_parts(f), f->window_ns);
		ck_assert_uint_eq(wc_figures_busy(f), 0);
		f = wc_account_phase(ac, 1, 0);
		ck_assert_uint_eq(f->outstanding_ns, 300);
		ck_assert_uint_eq(f->idle_ns, 0);
		wc_account_free(ac);
	}
	ck_assert_int_eq(wc_account_set_bound(NULL, DEV1, 5), -1);
}
END_TEST

/* Names told apart by their last byte, a name the start of another
 * (either read first), the empty name and NULL as "(unknown)": each its
 * own row, by the most time waited first (the sums tell each apart). */
START_TEST(test_waits_names)
{
	static const char *const names[] = {
		"cpx", "cp", "c", "kworker/1", "kworker/0", "", NULL, "cp",
		"kworker/0", "c", "(unknown)", "cpx", "cp"
	};
	static const char *const rows[] = {
		"cp", "cpx", "(unknown)", "c", "kworker/0", "kworker/1"
	};
	static const uint64_t waited[] = { 4229, 2051, 1123, 518, 274, 9 };
	static const uint64_t requests[] = { 3, 2, 3, 2, 2, 1 };
	struct wc_account *ac = open_ac(0, NULL, 0);
	struct wc_request r = mk(DEV1, 0, 10, 100, 0, 4096,
				 W | WC_TC(WC_TC_SYNC));
	size_t i;

	/* A pid a request: rows are names, whatever pids carried them. */
	names_of_pid = names;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		r.q_time = 10000 * i;           /* waits 1 + 2^i */
		r.d_time = 10000 * i + 1;
		r.c_time = 10000 * i + 1 + (1u << i);
		r.pid = (uint32_t)i;
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	}
	wc_account_finish(ac, 0, 2000);
	names_of_pid = NULL;
	ck_assert_uint_eq(wc_account_nwaits(ac), 6);
	for (i = 0; i < 6; i++) {
		const struct wc_wait *w = wc_account_wait(ac, i);

		ck_assert_str_eq(w->comm, rows[i]);
		ck_assert_uint_eq(w->wait_ns, waited[i]);
		ck_assert_uint_eq(w->requests, requests[i]);
	}
	wc_account_free(ac);
}
END_TEST

/* Time by process over more pids than a table holds at once
 * (WC_ACCOUNT_PIDS): each name keeps the row of its first request, in
 * the order names first came, so that "(other)" gathers the names that
 * came last and equal times keep that order; a flush is the process's
 * that asked for it, not the kworker's that issued it. */
START_TEST(test_processes_many_pids)
{
	struct wc_account *ac = open_ac(0, NULL, 0);
	static char name[70][32];
	static const char *names[1000 + 600];
	struct wc_request r;
	const struct wc_wait *w;
	size_t i, k;

	ck_assert_uint_gt(600, 2 * WC_ACCOUNT_PIDS);
	for (i = 0; i < 70; i++)
		snprintf(name[i], sizeof(name[i]), "n%02zu", i);
	names[1] = "cp";
	names[3] = "kworker/0:1H";
	for (i = 0; i < 600; i++)
		names[1000 + i] = name[i % 70];
	names_of_pid = names;
	for (i = 0; i < 600; i++) {
		r = mk(DEV1, 100 * i, 100 * i, 100 * i + 10, 8 * i, 4096, W);
		r.pid = (uint32_t)(1000 + i);
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE);
	}
	r = mk(DEV2, 0, 5, 25, 0, 0, WC_TC(WC_TC_FLUSH));
	r.pid = 3;
	r.has_cause = true;
	r.cause_pid = 1;
	wc_account_add(ac, &r, WC_CAT_FLUSH);
	wc_account_finish(ac, 0, 60000);
	names_of_pid = NULL;

	ck_assert_uint_eq(wc_account_nprocesses(ac, 0), WC_MAX_COMMS);
	w = wc_account_process(ac, 0, 0);
	ck_assert_str_eq(w->comm, "(other)");
	ck_assert_uint_eq(w->requests, 7 * 8);
	ck_assert_uint_eq(w->wait_ns, 7 * 8 * 10);
	ck_assert_uint_eq(w->bytes, 7 * 8 * 4096);
	for (k = 1; k < WC_MAX_COMMS; k++) {
		w = wc_account_process(ac, 0, k);
		ck_assert_str_eq(w->comm, name[k - 1]);
		ck_assert_uint_eq(w->requests, k - 1 < 40 ? 9 : 8);
		ck_assert_uint_eq(w->wait_ns, 10 * w->requests);
	}
	ck_assert_uint_eq(wc_account_nprocesses(ac, 1), 1);
	ck_assert_str_eq(wc_account_process(ac, 1, 0)->comm, "cp");
	ck_assert_uint_eq(wc_account_process(ac, 1, 0)->wait_ns, 20);
	ck_assert_uint_eq(wc_account_nflushers(ac, 1), 1);
	ck_assert_str_eq(wc_account_flusher(ac, 1, 0)->comm, "cp");
	wc_account_free(ac);
}
END_TEST

/* ---- a model of the phases: every phase tested for every request ---- */

/* What docs/methodology.md says a phase gets, written plainly: a slice's
 * part inside the phase's [start, end] (bytes in proportion), D to C's
 * part inside it, and the counts of the requests that complete inside it
 * (both ends included). */
#define M_LAT 656
#define M_POS 960

struct mfig {
	struct wc_figures f;
	uint64_t lat_d2c[M_LAT], lat_flush[M_LAT];
	uint64_t pos_s[M_POS];
	double pos_b[M_POS];
};

struct mdev {
	uint32_t device;
	bool have_prev_c, have_prev_end;
	uint64_t prev_c, prev_end;
	struct mfig whole, ph[WC_MAX_PHASES];
	/* Stretches no slice covers, in order; the never-completed
	 * requests' [D, D + bound), as they came. */
	uint64_t *st_lo, *st_hi, *un_lo, *un_hi;
	size_t st_n, un_n;
};

struct model {
	size_t nph;
	struct wc_phase_window ph[WC_MAX_PHASES];
	size_t ndevs;
	struct mdev dev[3];
};

static size_t m_lat_bin(uint64_t v)
{
	unsigned oct;
	size_t i;

	if (v == 0)
		return 0;
	oct = 63u - (unsigned)__builtin_clzll(v);
	i = oct * 16u + (oct >= 4 ? (v >> (oct - 4)) & 15 : (v << (4 - oct)) & 15);
	return i < M_LAT ? i : M_LAT - 1;
}

static uint64_t m_lat_pct(const struct wc_latency *l, const uint64_t *bins,
			  double p)
{
	uint64_t rank = (uint64_t)ceil(p * (double)l->n), seen = 0;
	double v;
	size_t i;

	if (l->n == 0)
		return 0;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < M_LAT - 1; i++) {
		seen += bins[i];
		if (seen >= rank)
			break;
	}
	v = ldexp((16.0 + (double)(i % 16) + 0.5) / 16.0, (int)(i / 16));
	if (v < (double)l->min)
		return l->min;
	if (v > (double)l->max)
		return l->max;
	return (uint64_t)llround(v);
}

static void m_lat(struct wc_latency *l, uint64_t *bins, uint64_t v)
{
	if (l->n == 0 || v < l->min)
		l->min = v;
	if (v > l->max)
		l->max = v;
	l->n++;
	l->sum += v;
	bins[m_lat_bin(v)]++;
}

static bool m_pos_cat(enum wc_cat cat)
{
	return cat == WC_CAT_JOURNAL || cat == WC_CAT_METADATA ||
	       cat == WC_CAT_DATA_READ || cat == WC_CAT_DATA_WRITE;
}

static uint64_t m_overlap(uint64_t a, uint64_t b, uint64_t s, uint64_t e)
{
	uint64_t lo = a > s ? a : s, hi = b < e ? b : e;

	return hi > lo ? hi - lo : 0;
}

static void m_count(struct mfig *g, const struct wc_request *r,
		    enum wc_cat cat, bool seek_known, uint64_t dist)
{
	struct wc_figures *f = &g->f;

	f->requests[cat]++;
	f->bytes[cat] += r->bytes;
	if ((r->action & WC_TC(WC_TC_WRITE)) && (r->action & WC_TC(WC_TC_FUA)))
		f->fua_writes++;
	if (seek_known) {
		f->seek_candidates++;
		if (dist > 128) {
			unsigned k = 63u - (unsigned)__builtin_clzll(dist);

			f->seeks++;
			f->seek_hist[k < WC_SEEK_BINS ? k : WC_SEEK_BINS - 1]++;
		}
	}
	if (r->d_time != WC_NO_TIME && r->d_time <= r->c_time) {
		m_lat(&f->d2c, g->lat_d2c, r->c_time - r->d_time);
		if (cat == WC_CAT_FLUSH)
			m_lat(&f->flush_d2c, g->lat_flush,
			      r->c_time - r->d_time);
	}
	if (r->depth > f->max_depth)
		f->max_depth = r->depth;
}

static void m_push(uint64_t **lo, uint64_t **hi, size_t *n, uint64_t a,
		   uint64_t b)
{
	*lo = realloc(*lo, (*n + 1) * sizeof(**lo));
	*hi = realloc(*hi, (*n + 1) * sizeof(**hi));
	ck_assert_ptr_nonnull(*lo);
	ck_assert_ptr_nonnull(*hi);
	(*lo)[*n] = a;
	(*hi)[(*n)++] = b;
}

static void m_free(struct model *m)
{
	size_t i;

	for (i = 0; i < 3; i++) {
		free(m->dev[i].st_lo);
		free(m->dev[i].st_hi);
		free(m->dev[i].un_lo);
		free(m->dev[i].un_hi);
	}
	memset(m, 0, sizeof(*m));
}

static int m_cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Outstanding within [s, e): every point of it is tested as the
 * elementary pieces between the edges of all spans and stretches. */
static uint64_t m_outstanding(const struct mdev *d, uint64_t s, uint64_t e)
{
	size_t n = 0, i, k, cap = 2 * (d->st_n + d->un_n) + 4;
	uint64_t *pt = malloc(cap * sizeof(*pt)), sum = 0;
	uint64_t open = d->have_prev_c ? d->prev_c : 0;

	ck_assert_ptr_nonnull(pt);
	if (e <= s || !d->un_n) {
		free(pt);
		return 0;
	}
	pt[n++] = s;
	pt[n++] = e;
	pt[n++] = open > s && open < e ? open : s;
	for (i = 0; i < d->st_n; i++) {
		if (d->st_lo[i] > s && d->st_lo[i] < e)
			pt[n++] = d->st_lo[i];
		if (d->st_hi[i] > s && d->st_hi[i] < e)
			pt[n++] = d->st_hi[i];
	}
	for (i = 0; i < d->un_n; i++) {
		if (d->un_lo[i] > s && d->un_lo[i] < e)
			pt[n++] = d->un_lo[i];
		if (d->un_hi[i] > s && d->un_hi[i] < e)
			pt[n++] = d->un_hi[i];
	}
	qsort(pt, n, sizeof(*pt), m_cmp_u64);
	/* Within a piece [pt[k], pt[k+1]) nothing changes: test its start. */
	for (k = 0; k + 1 < n; k++) {
		uint64_t x = pt[k];
		bool un = false, st = x >= open;

		if (pt[k + 1] == x)
			continue;
		for (i = 0; i < d->un_n && !un; i++)
			un = x >= d->un_lo[i] && x < d->un_hi[i];
		for (i = 0; i < d->st_n && !st; i++)
			st = x >= d->st_lo[i] && x < d->st_hi[i];
		if (un && st)
			sum += pt[k + 1] - x;
	}
	free(pt);
	return sum;
}

static void m_slice(struct mfig *g, enum wc_cat cat, uint64_t ns, double b)
{
	size_t bin;

	g->f.time_ns[cat] += ns;
	if (!m_pos_cat(cat) || b <= 0)
		return;
	bin = wc_account_pos_bin(ns, b);
	g->pos_s[bin] += ns;
	g->pos_b[bin] += b;
}

static void m_add(struct model *m, const struct wc_request *r,
		  enum wc_cat cat)
{
	struct mdev *d = NULL;
	uint64_t a, c = r->c_time, slice, dist = 0;
	bool seek_known = false;
	size_t i, p;

	for (i = 0; i < m->ndevs; i++)
		if (m->dev[i].device == r->device)
			d = &m->dev[i];
	if (!d) {
		d = &m->dev[m->ndevs++];
		d->device = r->device;
	}
	if (!r->completed) {
		d->whole.f.unfinished++;
		if (r->d_time != WC_NO_TIME)
			m_push(&d->un_lo, &d->un_hi, &d->un_n, r->d_time,
			       r->d_time + WC_TRACKER_BOUND_NS);
		return;
	}
	a = r->d_time != WC_NO_TIME ? r->d_time :
	    r->q_time != WC_NO_TIME ? r->q_time : c;
	if (d->have_prev_c && d->prev_c > a)
		a = d->prev_c;
	if (a > c)
		a = c;
	slice = c - a;
	if (a > (d->have_prev_c ? d->prev_c : 0))
		m_push(&d->st_lo, &d->st_hi, &d->st_n,
		       d->have_prev_c ? d->prev_c : 0, a);
	if (r->bytes && d->have_prev_end) {
		seek_known = true;
		dist = r->sector > d->prev_end ? r->sector - d->prev_end :
						 d->prev_end - r->sector;
	}
	m_slice(&d->whole, cat, slice, r->bytes);
	if (r->d_time != WC_NO_TIME && r->d_time <= c)
		d->whole.f.inflight_ns += c - r->d_time;
	m_count(&d->whole, r, cat, seek_known, dist);
	for (p = 0; p < m->nph; p++) {
		uint64_t s = m->ph[p].start, e = m->ph[p].end;
		uint64_t o = m_overlap(a, c, s, e);

		if (o)
			m_slice(&d->ph[p], cat, o,
				(double)r->bytes * (double)o / (double)slice);
		if (r->d_time != WC_NO_TIME && r->d_time <= c)
			d->ph[p].f.inflight_ns += m_overlap(r->d_time, c, s, e);
		if (c >= s && c <= e)
			m_count(&d->ph[p], r, cat, seek_known, dist);
	}
	if (!d->have_prev_c || c > d->prev_c)
		d->prev_c = c;
	d->have_prev_c = true;
	if (r->bytes) {
		d->have_prev_end = true;
		d->prev_end = r->sector + ((uint64_t)r->bytes + 511) / 512;
	}
}

static void m_finish(struct mfig *g, const struct mdev *d, uint64_t start,
		     uint64_t end, double rate)
{
	struct wc_figures *f = &g->f;
	uint64_t busy = 0, pos_total = 0;
	double pos = 0;
	int c;
	size_t i;

	f->start = start;
	f->end = end;
	f->window_ns = end > start ? end - start : 0;
	for (c = 0; c < WC_NCAT; c++) {
		busy += f->time_ns[c];
		if (m_pos_cat((enum wc_cat)c))
			pos_total += f->time_ns[c];
	}
	f->idle_ns = f->window_ns > busy ? f->window_ns - busy : 0;
	f->outstanding_ns = m_outstanding(d, start, end);
	ck_assert_uint_le(f->outstanding_ns, f->idle_ns);
	f->idle_ns -= f->outstanding_ns;
	f->d2c.p50 = m_lat_pct(&f->d2c, g->lat_d2c, 0.50);
	f->d2c.p90 = m_lat_pct(&f->d2c, g->lat_d2c, 0.90);
	f->d2c.p99 = m_lat_pct(&f->d2c, g->lat_d2c, 0.99);
	f->flush_d2c.p50 = m_lat_pct(&f->flush_d2c, g->lat_flush, 0.50);
	f->flush_d2c.p90 = m_lat_pct(&f->flush_d2c, g->lat_flush, 0.90);
	f->flush_d2c.p99 = m_lat_pct(&f->flush_d2c, g->lat_flush, 0.99);
	f->positioning_known = rate > 0;
	for (i = 0; i < M_POS; i++) {
		double x = (double)g->pos_s[i] - g->pos_b[i] * (1e9 / rate);

		if (x > 0)
			pos += x;
	}
	f->positioning_ns = (uint64_t)llround(pos);
	if (f->positioning_ns > pos_total)
		f->positioning_ns = pos_total;
}

#define SAME(field) ck_assert_msg(want->field == got->field,             \
	"%s %zu: %s: %llu, the model says %llu", what, i, #field,         \
	(unsigned long long)got->field, (unsigned long long)want->field)

static void same_latency(const char *what, size_t i,
			 const struct wc_latency *want,
			 const struct wc_latency *got)
{
	SAME(n);
	SAME(min);
	SAME(p50);
	SAME(p90);
	SAME(p99);
	SAME(max);
	SAME(sum);
}

static void same_figures(const char *what, size_t i,
			 const struct wc_figures *want,
			 const struct wc_figures *got)
{
	size_t k;

	SAME(device);
	SAME(start);
	SAME(end);
	SAME(window_ns);
	SAME(idle_ns);
	SAME(outstanding_ns);
	for (k = 0; k < WC_NCAT; k++) {
		SAME(time_ns[k]);
		SAME(requests[k]);
		SAME(bytes[k]);
	}
	SAME(positioning_known);
	SAME(positioning_ns);
	SAME(fua_writes);
	SAME(seeks);
	SAME(seek_candidates);
	for (k = 0; k < WC_SEEK_BINS; k++)
		SAME(seek_hist[k]);
	same_latency(what, i, &want->flush_d2c, &got->flush_d2c);
	same_latency(what, i, &want->d2c, &got->d2c);
	SAME(inflight_ns);
	SAME(max_depth);
	SAME(unfinished);
}

/* A time near the phases' edges, often on one. */
static uint64_t near(const uint64_t *pts, size_t n)
{
	uint64_t t = pts[next_rand() % n];

	switch (next_rand() % 4) {
	case 0:
		return t;
	case 1:
		return t + next_rand() % 3;
	case 2:
		return t > 2 ? t - next_rand() % 3 : t;
	default:
		return t + next_rand() % 5000;
	}
}

/* Hostile phase lists (overlapping, nested, unordered, repeated, empty,
 * ending before they start, touching 0 and the clock's end) against
 * requests that start, end and complete on the edges, reach across
 * several, come with the clock running backwards, without D or Q, with
 * D after C: every device's and every phase's figures are the model's. */
START_TEST(test_phases_match_model)
{
	struct model *m = calloc(1, sizeof(*m));
	int round;

	ck_assert_ptr_nonnull(m);
	for (round = 0; round < 60; round++) {
		struct wc_phase_window ph[WC_MAX_PHASES];
		uint64_t pts[2 * WC_MAX_PHASES + 2];
		size_t nph = 1 + next_rand() % WC_MAX_PHASES, npts = 0, i, p;
		uint64_t c = 1000, last = 0;
		struct wc_account *ac;
		double rate = (double)(1 + next_rand() % 4) * 250e6;

		if (round % 4 == 0)
			nph = 1 + next_rand() % 3;
		for (p = 0; p < nph; p++) {
			uint64_t s = next_rand() % 200000, e;

			switch (next_rand() % 8) {
			case 0:
				e = s;                          /* empty */
				break;
			case 1:
				e = s > 10 ? s - 1 - next_rand() % 10 : s;
				break;                          /* backwards */
			case 2:
				if (p > 0) {                    /* repeated */
					ph[p] = ph[next_rand() % p];
					continue;
				}
				e = s + 1;
				break;
			case 3:
				s = 0;
				e = next_rand() % 2 ? UINT64_MAX : 50000;
				break;
			default:
				e = s + 1 + next_rand() % 60000;
			}
			ph[p].start = s;
			ph[p].end = e;
		}
		for (p = 0; p < nph; p++) {
			pts[npts++] = ph[p].start;
			if (ph[p].end < 300000)
				pts[npts++] = ph[p].end;
		}
		pts[npts++] = 0;
		m_free(m);
		m->nph = nph;
		memcpy(m->ph, ph, sizeof(ph));
		ac = open_ac(rate, ph, nph);
		for (i = 0; i < 3000; i++) {
			uint32_t dev = next_rand() % 5 ? DEV1 : DEV2;
			enum wc_cat cat = (enum wc_cat)(next_rand() % WC_NCAT);
			struct wc_request r;
			uint64_t d, q;

			/* Completions in order, now and then one before the
			 * previous (a clock that ran backwards). */
			c = next_rand() % 16 ? near(pts, npts) : c / 2;
			if (next_rand() % 3)
				c = c > last ? c : last + next_rand() % 200;
			d = c - (c < 100000 ? c : 100000) * (next_rand() % 8) / 8;
			if (next_rand() % 3 == 0)
				d = near(pts, npts);
			q = d > 500 ? d - next_rand() % 500 : d;
			r = mk(dev, q, d, c, next_rand() % 4000 * 8,
			       (uint32_t)(next_rand() % 4 ? 512 * (1 + next_rand() % 512) :
							0),
			       (next_rand() % 2 ? W : 0) |
			       (next_rand() % 4 ? 0 : WC_TC(WC_TC_FUA)));
			r.depth = (uint32_t)(next_rand() % 40);
			switch (next_rand() % 12) {
			case 0:
				r.d_time = WC_NO_TIME;
				break;
			case 1:
				r.d_time = WC_NO_TIME;
				r.q_time = WC_NO_TIME;
				break;
			case 2:
				r.completed = false;
				r.c_time = WC_NO_TIME;
				break;
			}
			m_add(m, &r, cat);
			wc_account_add(ac, &r, cat);
			if (r.completed && c > last)
				last = c;
		}
		wc_account_finish(ac, 0, last);
		ck_assert_uint_eq(wc_account_ndevices(ac), m->ndevs);
		for (i = 0; i < m->ndevs; i++) {
			struct mdev *d = &m->dev[i];

			d->whole.f.device = d->device;
			m_finish(&d->whole, d, 0, last, rate);
			same_figures("device", i, &d->whole.f,
				     wc_account_device(ac, i));
			for (p = 0; p < nph; p++) {
				d->ph[p].f.device = d->device;
				m_finish(&d->ph[p], d, ph[p].start,
					 ph[p].end, rate);
				same_figures("phase", p, &d->ph[p].f,
					     wc_account_phase(ac, i, p));
			}
		}
		wc_account_free(ac);
	}
	m_free(m);
	free(m);
}
END_TEST

/* Feeds the account and the model the same request. */
static void both_add(struct wc_account *ac, struct model *m,
		     const struct wc_request *r, enum wc_cat cat)
{
	m_add(m, r, cat);
	wc_account_add(ac, r, cat);
}

static void both_check(struct wc_account *ac, struct model *m,
		       uint64_t last, double rate)
{
	size_t i, p;

	wc_account_finish(ac, 0, last);
	ck_assert_uint_eq(wc_account_ndevices(ac), m->ndevs);
	for (i = 0; i < m->ndevs; i++) {
		struct mdev *d = &m->dev[i];

		d->whole.f.device = d->device;
		m_finish(&d->whole, d, 0, last, rate);
		same_figures("device", i, &d->whole.f,
			     wc_account_device(ac, i));
		for (p = 0; p < m->nph; p++) {
			d->ph[p].f.device = d->device;
			m_finish(&d->ph[p], d, m->ph[p].start, m->ph[p].end,
				 rate);
			same_figures("phase", p, &d->ph[p].f,
				     wc_account_phase(ac, i, p));
		}
	}
}

/* Long stretches of completions inside one phase, as a capture's copy
 * and delete give them: the first requests of a device all inside a
 * phase, tens of thousands in a row, then the next phase; phases that
 * nest; an empty one; then 40 phases one after another holding 1 to
 * 5,000 completions each, fewer and more than a run holds before it
 * gives way.  Every figure is the model's. */
START_TEST(test_phase_runs_match_model)
{
	const uint64_t block[] = { 1, 1, 3, 700, 1500, 2, 5000, 1, 1100, 4 };
	struct wc_phase_window ph[45] = {
		{ 1000000, 50000000 },
		{ 50000000, 90000000 },
		{ 60000000, 70000000 },         /* inside the one before */
		{ 100000000, 100000000 },       /* empty */
		{ 150000000, 300000000 },
	};
	struct model *m = calloc(1, sizeof(*m));
	double rate = 400e6;
	struct wc_account *ac;
	uint64_t t = 1000000, last = 0;
	size_t i, p;

	ck_assert_ptr_nonnull(m);
	t = 400000000;
	for (p = 5; p < 45; p++) {
		ph[p].start = t;
		t += block[p % 10] * 700;
		ph[p].end = t;
	}
	m->nph = 45;
	memcpy(m->ph, ph, sizeof(ph));
	ac = open_ac(rate, ph, 45);
	/* Through the first phases and past the empty one, in order:
	 * 4,000 ns apart, D 1 to 9 us before C. */
	t = 1000000;
	for (i = 0; t < 110000000; i++) {
		uint32_t dev = i % 7 ? DEV1 : DEV2;
		uint64_t d = t - 1000 * (1 + next_rand() % 9);
		struct wc_request r = mk(dev, d - 300, d, t,
					 next_rand() % 50000 * 8,
					 512 * (uint32_t)(next_rand() % 64),
					 next_rand() % 3 ? W : W | WC_TC(WC_TC_FUA));

		r.depth = (uint32_t)(next_rand() % 32);
		if (i % 97 == 0)
			r.d_time = WC_NO_TIME;
		both_add(ac, m, &r, (enum wc_cat)(next_rand() % WC_NCAT));
		last = t;
		t += 4000;
	}
	/* The short and long phases: 700 ns apart, D to C inside them, on
	 * a device that had no request yet (its first ones all go to one
	 * phase) and, every fifth, on the first. */
	for (i = 0, t = 400000450; t < ph[44].end; i++, t += 700) {
		struct wc_request r = mk(i % 5 ? DEV3 : DEV1, t - 500, t - 400,
					 t, next_rand() % 50000 * 8, 4096, W);

		both_add(ac, m, &r, next_rand() % 2 ? WC_CAT_DATA_WRITE :
						      WC_CAT_FLUSH);
		last = t;
	}
	both_check(ac, m, last, rate);
	wc_account_free(ac);
	m_free(m);
	free(m);
}
END_TEST

/* A slice of 186,374 s over 1,898,041,870 bytes: in double, bytes * slice
 * / slice is a hair below the bytes, and that ratio lies in the next
 * positioning bin (782, the device's is 781).  A second slice in bin 782
 * beyond 1/rate leaves less positioning there when the first shares its
 * bin, as it must in the phase that holds both. */
START_TEST(test_phase_bin_of_rounded_bytes)
{
	const struct wc_phase_window ph[1] = { { 0, UINT64_MAX - 1 } };
	const uint64_t s1 = 186374525159293ull, s2 = s1 / 100;
	const uint32_t b1 = 1898041870u, b2 = b1 / 102;
	double t = (double)s1 / (double)b1 * 1.005;
	struct model *m = calloc(1, sizeof(*m));
	struct wc_request r[2];
	struct wc_account *ac;
	size_t i;

	ck_assert_ptr_nonnull(m);
	ck_assert((double)b1 * (double)s1 / (double)s1 != (double)b1);
	ck_assert_uint_eq(wc_account_pos_bin(s1, b1), 781);
	ck_assert_uint_eq(wc_account_pos_bin(s1, (double)b1 * (double)s1 /
						  (double)s1), 782);
	ck_assert_uint_eq(wc_account_pos_bin(s2, b2), 782);
	r[0] = mk(DEV1, 1000, 1000, 1000 + s1, 0, b1, W);
	r[1] = mk(DEV1, 1000 + s1, 1000 + s1, 1000 + s1 + s2, 0, b2, W);
	m->nph = 1;
	m->ph[0] = ph[0];
	ac = open_ac(1e9 / t, ph, 1);
	for (i = 0; i < 2; i++) {
		m_add(m, &r[i], WC_CAT_DATA_WRITE);
		wc_account_add(ac, &r[i], WC_CAT_DATA_WRITE);
	}
	wc_account_finish(ac, 0, r[1].c_time);
	m->dev[0].whole.f.device = m->dev[0].ph[0].f.device = DEV1;
	m_finish(&m->dev[0].whole, &m->dev[0], 0, r[1].c_time, 1e9 / t);
	m_finish(&m->dev[0].ph[0], &m->dev[0], ph[0].start, ph[0].end,
		 1e9 / t);
	ck_assert_uint_lt(m->dev[0].ph[0].f.positioning_ns,
			  m->dev[0].whole.f.positioning_ns);
	same_figures("device", 0, &m->dev[0].whole.f, wc_account_device(ac, 0));
	same_figures("phase", 0, &m->dev[0].ph[0].f, wc_account_phase(ac, 0, 0));
	wc_account_free(ac);
	m_free(m);
	free(m);
}
END_TEST

/* The bin by the formula the fast path replaces. */
static size_t bin_by_log2(uint64_t ns, double bytes)
{
	double l;

	if (ns == 0 || bytes <= 0)
		return 0;
	l = (log2((double)ns / bytes) + 16) * 24;
	if (l < 0)
		return 0;
	return l >= 960 ? 959 : (size_t)l;
}

/* Random slices over the whole range and beyond, slices whose ratio sits
 * on an edge or one ulp either side of it, and byte counts split by
 * phases (not whole numbers): every bin must be the formula's. */
START_TEST(test_pos_bin_matches_log2)
{
	uint64_t r = 0x9e3779b97f4a7c15ull;
	size_t i;
	int j, k;

	for (i = 0; i < 300000; i++) {
		uint64_t ns;
		double bytes;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		ns = (r >> (r & 63)) + (i & 1);
		bytes = (i & 2) ? (double)((r >> 20) % 4194304 + 1) :
				  (double)(r >> 11) / 9007199254740992.0 *
				  1048576.0;
		ck_assert_uint_eq(wc_account_pos_bin(ns, bytes),
				  bin_by_log2(ns, bytes));
	}
	for (k = -20; k < 28; k++)
		for (j = 0; j < 24; j++) {
			double bytes = 4096.0;
			double x = ldexp(exp2(j / 24.0), k) * bytes;
			uint64_t ns = (uint64_t)x;
			int d;

			for (d = -3; d <= 3; d++) {
				double b = bytes;
				int s;

				for (s = 0; s < d; s++)
					b = nextafter(b, 0);
				for (s = 0; s > d; s--)
					b = nextafter(b, 1e300);
				ck_assert_uint_eq(wc_account_pos_bin(ns, b),
						  bin_by_log2(ns, b));
				ck_assert_uint_eq(wc_account_pos_bin(ns + d, bytes),
						  bin_by_log2(ns + d, bytes));
			}
		}
	ck_assert_uint_eq(wc_account_pos_bin(0, 10), 0);
	ck_assert_uint_eq(wc_account_pos_bin(10, 0), 0);
	ck_assert_uint_eq(wc_account_pos_bin(1, 1), 16 * 24);
	ck_assert_uint_eq(wc_account_pos_bin(UINT64_MAX, 1e-3), 959);
}
END_TEST

/* Two partitions of one disk (account.h): the disk's slices run over
 * both partitions' requests in completion order, its seeks cross
 * between them at their offsets, and each partition's split sums to
 * the disk's busy time.  Worked out by hand, in ms, window [0, 100]:
 *
 *   req  device          D   C   disk slice    own device's slice
 *   r1   DEV2 read      10  20   [10, 20] 10   [10, 20] 10
 *   r2   DEV1 write     15  30   [20, 30] 10   [15, 30] 15  (Q 14, sync)
 *   r3   DEV1 flush     40  45   [40, 45]  5   [40, 45]  5
 *   r4   DEV2 read      50  60   [50, 60] 10   [50, 60] 10
 *
 * The disk: busy 35 (the union of the four D-to-C intervals, [10, 30],
 * [40, 45], [50, 60]), data read 20, data write 10, flush 5, idle 65;
 * D to C 10 + 15 + 5 + 10 = 40 in flight.  DEV2 starts 1,000,000
 * sectors into the disk: r2 (sector 100) lies 1,000,028 sectors before
 * r1's end (1,000,128) and r4 (1,000,128 on the disk) 1,000,020 after
 * r2's (108), two seeks DEV2 alone never sees.  The split: DEV1 2 requests, 4 KiB,
 * 15 ms; DEV2 2 requests, 128 KiB, 20 ms.  Phase [25, 55]: r2's 5, r3's
 * 5 and r4's 5 ms, 15 idle. */
START_TEST(test_disk_of_partitions)
{
	static const struct wc_phase_window ph[] = { { 25 * MS, 55 * MS } };
	struct wc_account_conf conf = { .nphases = 1, .phases = ph,
					.ndisk = 3,
					.disk = { DEV1, DEV2, DEV1 },
					.disk_offset = { 0, 1000000, 7 } };
	struct wc_request r[4];
	struct wc_account *ac = NULL;
	const struct wc_figures *f, *p;
	const struct wc_account_part *pt;
	struct wc_err err;
	size_t i;
	int k;

	r[0] = mk(DEV2, 9 * MS, 10 * MS, 20 * MS, 0, 65536, 0);
	r[1] = mk(DEV1, 14 * MS, 15 * MS, 30 * MS, 100, 4096,
		  W | WC_TC(WC_TC_SYNC));
	r[1].disk_depth = 2;               /* r1 was at the driver too */
	r[2] = mk(DEV1, 39 * MS, 40 * MS, 45 * MS, 0, 0, 0);
	r[3] = mk(DEV2, 49 * MS, 50 * MS, 60 * MS, 128, 65536, 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_account_open(&ac, &conf, &err), 0);
	wc_account_add(ac, &r[0], WC_CAT_DATA_READ);
	wc_account_add(ac, &r[1], WC_CAT_DATA_WRITE);
	wc_account_add(ac, &r[2], WC_CAT_FLUSH);
	wc_account_add(ac, &r[3], WC_CAT_DATA_READ);
	wc_account_finish(ac, 0, 100 * MS);

	ck_assert_uint_eq(wc_account_ndevices(ac), 2);
	k = wc_account_disk(ac);
	ck_assert_int_eq(k, 2);
	f = wc_account_device(ac, (size_t)k);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->device, DEV1);
	ck_assert_uint_eq(f->window_ns, 100 * MS);
	ck_assert_uint_eq(wc_figures_busy(f), 35 * MS);
	ck_assert_uint_eq(f->time_ns[WC_CAT_DATA_READ], 20 * MS);
	ck_assert_uint_eq(f->time_ns[WC_CAT_DATA_WRITE], 10 * MS);
	ck_assert_uint_eq(f->time_ns[WC_CAT_FLUSH], 5 * MS);
	ck_assert_uint_eq(f->idle_ns, 65 * MS);
	ck_assert_uint_eq(sum_parts(f), f->window_ns);
	ck_assert_uint_eq(f->requests[WC_CAT_DATA_READ], 2);
	ck_assert_uint_eq(f->bytes[WC_CAT_DATA_READ], 131072);
	ck_assert_uint_eq(f->requests[WC_CAT_DATA_WRITE], 1);
	ck_assert_uint_eq(f->inflight_ns, 40 * MS);
	ck_assert_uint_eq(f->max_depth, 2);       /* r2's disk_depth */
	ck_assert_uint_eq(f->seek_candidates, 2);
	ck_assert_uint_eq(f->seeks, 2);
	ck_assert_uint_eq(f->seek_hist[19], 2);   /* [2^19, 2^20) */
	/* The devices keep their own figures. */
	f = wc_account_device(ac, (size_t)wc_account_find(ac, DEV1));
	ck_assert_uint_eq(wc_figures_busy(f), 20 * MS);
	ck_assert_uint_eq(f->max_depth, 1);
	f = wc_account_device(ac, (size_t)wc_account_find(ac, DEV2));
	ck_assert_uint_eq(wc_figures_busy(f), 20 * MS);
	ck_assert_uint_eq(f->seeks, 0);
	/* Some device busy: the disk's slices, not its partitions'. */
	ck_assert_uint_eq(wc_account_busy_any(ac), 35 * MS);
	/* The wait counted once, not once more for the disk. */
	ck_assert_uint_eq(wc_account_nwaits(ac), 1);
	ck_assert_uint_eq(wc_account_wait(ac, 0)->wait_ns, 16 * MS);
	ck_assert_uint_eq(wc_account_wait(ac, 0)->requests, 1);

	ck_assert_uint_eq(wc_account_nparts(ac), 2);
	pt = wc_account_part(ac, 0);
	ck_assert_uint_eq(pt->device, DEV1);
	ck_assert_uint_eq(pt->requests, 2);
	ck_assert_uint_eq(pt->bytes, 4096);
	ck_assert_uint_eq(pt->busy_ns, 15 * MS);
	pt = wc_account_part(ac, 1);
	ck_assert_uint_eq(pt->device, DEV2);
	ck_assert_uint_eq(pt->requests, 2);
	ck_assert_uint_eq(pt->bytes, 131072);
	ck_assert_uint_eq(pt->busy_ns, 20 * MS);
	ck_assert_ptr_null(wc_account_part(ac, 2));

	p = wc_account_phase(ac, (size_t)k, 0);
	ck_assert_uint_eq(p->window_ns, 30 * MS);
	ck_assert_uint_eq(wc_figures_busy(p), 15 * MS);
	ck_assert_uint_eq(p->time_ns[WC_CAT_DATA_WRITE], 5 * MS);
	ck_assert_uint_eq(p->time_ns[WC_CAT_FLUSH], 5 * MS);
	ck_assert_uint_eq(p->time_ns[WC_CAT_DATA_READ], 5 * MS);
	ck_assert_uint_eq(sum_parts(p), p->window_ns);
	ck_assert_ptr_null(wc_account_device(ac, (size_t)k + 1));
	wc_account_free(ac);

	/* A request dispatched before another partition's that completes
	 * first: the disk's slices are [10, 20] and [20, 30], 20 ms, though
	 * DEV1's own slice is [5, 30].  The time some device was busy is
	 * the disk's 20, or 5 ms of the disk's idle time (its model's, as
	 * on one device) would be "another device busy". */
	ck_assert_int_eq(wc_account_open(&ac, &conf, &err), 0);
	r[0] = mk(DEV2, 10 * MS, 10 * MS, 20 * MS, 0, 4096, 0);
	r[1] = mk(DEV1, 5 * MS, 5 * MS, 30 * MS, 0, 4096, W);
	wc_account_add(ac, &r[0], WC_CAT_DATA_READ);
	wc_account_add(ac, &r[1], WC_CAT_DATA_WRITE);
	wc_account_finish(ac, 0, 100 * MS);
	ck_assert_uint_eq(wc_figures_busy(wc_account_device(ac, 2)), 20 * MS);
	ck_assert_uint_eq(wc_account_busy_any(ac), 20 * MS);
	wc_account_free(ac);

	/* One partition is no disk: everything as without, the time some
	 * device was busy each device's own slices', [5, 30]. */
	conf.ndisk = 1;
	ck_assert_int_eq(wc_account_open(&ac, &conf, &err), 0);
	for (i = 0; i < 2; i++)
		wc_account_add(ac, &r[i], i ? WC_CAT_DATA_WRITE :
					      WC_CAT_DATA_READ);
	wc_account_finish(ac, 0, 100 * MS);
	ck_assert_int_eq(wc_account_disk(ac), -1);
	ck_assert_uint_eq(wc_account_nparts(ac), 0);
	ck_assert_ptr_null(wc_account_device(ac, 2));
	ck_assert_uint_eq(wc_account_busy_any(ac), 25 * MS);
	wc_account_free(ac);
}
END_TEST

static Suite *account_suite(void)
{
	Suite *s = suite_create("account");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_partition_exact);
	tcase_add_test(tc, test_internal_work);
	tcase_add_test(tc, test_processes_many_pids);
	tcase_add_test(tc, test_busy_union_reaches_back);
	tcase_add_test(tc, test_completion_driven_slices);
	tcase_add_test(tc, test_positioning_given_rate);
	tcase_add_test(tc, test_write_cache_positioning);
	tcase_add_test(tc, test_rate_estimate_and_seeks);
	tcase_add_test(tc, test_flush_percentiles);
	tcase_add_test(tc, test_waits_and_unfinished);
	tcase_add_test(tc, test_outstanding_not_idle);
	tcase_add_test(tc, test_waits_names);
	tcase_add_test(tc, test_pos_bin_matches_log2);
	tcase_add_test(tc, test_phases_match_model);
	tcase_add_test(tc, test_phase_runs_match_model);
	tcase_add_test(tc, test_phase_bin_of_rounded_bytes);
	tcase_add_test(tc, test_disk_of_partitions);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(account_suite)
