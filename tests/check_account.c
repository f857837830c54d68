/*
 * check_account.c - unit tests of analyze/lib/account.c: the partition of
 * the window to the nanosecond (per device and per phase, over random
 * requests), completion-driven slices, positioning against a given and an
 * estimated media rate, seeks, flush percentiles, waits by command,
 * unfinished requests, and the positioning histogram's bins against the
 * formula with log2.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "check_common.h"

#define DEV1 WC_DEV_MAKE(8u, 0u)
#define DEV2 WC_DEV_MAKE(8u, 16u)
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

static struct wc_account *open_ac(double rate, const struct wc_phase_window *ph,
				  size_t nph)
{
	struct wc_account_conf conf = { rate, nph, ph };
	struct wc_account *ac = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_account_open(&ac, &conf, &err), 0);
	return ac;
}

static uint64_t sum_parts(const struct wc_figures *f)
{
	uint64_t s = f->idle_ns;
	int c;

	for (c = 0; c < WC_NCAT; c++)
		s += f->time_ns[c];
	return s;
}

static uint64_t rng = 88172645463325252ull;

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
	uint64_t t[2] = { 1000, 1000 }, last = 1000;
	size_t i, p;

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
		wc_account_add(ac, &r, (enum wc_cat)(next_rand() % WC_NCAT),
			       NULL);
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
		for (p = 0; p < 3; p++) {
			const struct wc_figures *g = wc_account_phase(ac, i, p);

			ck_assert_uint_eq(g->window_ns, ph[p].end - ph[p].start);
			ck_assert_uint_eq(sum_parts(g), g->window_ns);
		}
	}
	wc_account_free(ac);
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

	wc_account_add(ac, &a, WC_CAT_DATA_WRITE, NULL);
	wc_account_add(ac, &b, WC_CAT_METADATA, NULL);
	wc_account_add(ac, &c, WC_CAT_FLUSH, NULL);
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

	wc_account_add(ac, &a, WC_CAT_DATA_WRITE, NULL);   /* 6000 positioning */
	wc_account_add(ac, &b, WC_CAT_JOURNAL, NULL);      /* clamped to 0 */
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
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE, NULL);
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

		wc_account_add(ac, &r, WC_CAT_FLUSH, NULL);
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
	char name[32];
	int i;

	wc_account_add(ac, &r, WC_CAT_DATA_WRITE, "cp");
	r.q_time = 100;
	r.d_time = 200;
	r.c_time = 1100;
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE, "rm");
	r.action = W;                          /* async: nobody waited */
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE, "kworker");
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		r.action = W | WC_TC(WC_TC_SYNC);
		wc_account_add(ac, &r, WC_CAT_DATA_WRITE, name);
	}
	r.completed = false;
	wc_account_add(ac, &r, WC_CAT_DATA_WRITE, NULL);
	wc_account_finish(ac, 0, 2000);
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

static Suite *account_suite(void)
{
	Suite *s = suite_create("account");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_partition_exact);
	tcase_add_test(tc, test_completion_driven_slices);
	tcase_add_test(tc, test_positioning_given_rate);
	tcase_add_test(tc, test_rate_estimate_and_seeks);
	tcase_add_test(tc, test_flush_percentiles);
	tcase_add_test(tc, test_waits_and_unfinished);
	tcase_add_test(tc, test_pos_bin_matches_log2);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(account_suite)
