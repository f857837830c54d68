/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_series.c - unit tests of analyze/lib/model/series.c with hand-made
 * requests: conservation of bytes and time across bin merges, the shift
 * back for requests dispatched before the origin, per-pixel merging of
 * scatter points, latency bin edges.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "check_series.h"
#include "model/series.h"

#define MS 1000000ull
#define S (1000 * MS)

/* Sums every bin: what the figures would show in total. */
static void totals(const struct wc_series *s, struct wc_series_bin *sum)
{
	struct wc_series_bin b;
	size_t i;
	int k;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < wc_series_nbins(s); i++) {
		wc_series_bin(s, i, &b);
		for (k = 0; k < WC_NCAT; k++) {
			sum->bytes[k] += b.bytes[k];
			sum->requests[k] += b.requests[k];
		}
		sum->flush_ns += b.flush_ns;
		sum->driver_ns += b.driver_ns;
		sum->queued_ns += b.queued_ns;
		if (b.max_depth > sum->max_depth)
			sum->max_depth = b.max_depth;
	}
}

START_TEST(test_empty)
{
	struct wc_series *s = wc_check_series();
	struct wc_series_bin b;

	ck_assert_uint_eq(wc_series_origin(s), WC_NO_TIME);
	ck_assert_uint_eq(wc_series_nbins(s), 0);
	ck_assert_uint_eq(wc_series_nrows(s), 0);
	ck_assert_uint_eq(wc_series_points(s), 0);
	wc_series_bin(s, 0, &b);
	ck_assert_uint_eq(b.driver_ns, 0);
	ck_assert_uint_eq(wc_series_cell(s, 0, 0), 0);
	wc_series_free(s);
	wc_series_free(NULL);
}
END_TEST

START_TEST(test_one_request)
{
	struct wc_series *s = wc_check_series();
	struct wc_request rq = wc_check_request(5 * S, 5 * S + 3 * MS, 4096, 65536);
	struct wc_series_bin b;
	size_t dcol, ccol;
	uint64_t w;

	rq.q_time = 5 * S - 2 * MS;
	rq.depth = 7;
	wc_series_add(s, &rq, WC_CAT_DATA_WRITE);

	/* The Q time is earliest: the origin is there. */
	ck_assert_uint_eq(wc_series_origin(s), 5 * S - 2 * MS);
	/* 5 ms in 1024 bins: the first power-of-two width that fits. */
	w = wc_series_bin_ns(s);
	ck_assert_uint_eq(w, 8 * WC_SERIES_FIRST_BIN_NS);
	dcol = (size_t)(2 * MS / w);
	ccol = (size_t)(5 * MS / w);
	ck_assert_uint_eq(wc_series_nbins(s), ccol + 1);
	wc_series_bin(s, ccol, &b);
	ck_assert_uint_eq(b.bytes[WC_CAT_DATA_WRITE], 65536);
	ck_assert_uint_eq(b.requests[WC_CAT_DATA_WRITE], 1);
	ck_assert_uint_eq(b.driver_ns, 0);   /* C sits on the bin's edge */
	wc_series_bin(s, dcol, &b);
	ck_assert_uint_eq(b.max_depth, 7);
	ck_assert_uint_eq(b.driver_ns, w);
	ck_assert_uint_eq(b.queued_ns, w);
	wc_series_bin(s, dcol - 1, &b);
	ck_assert_uint_eq(b.driver_ns, 0);
	ck_assert_uint_eq(b.queued_ns, w);
	ck_assert_uint_eq(wc_series_row_sectors(s), 2 * WC_SERIES_FIRST_ROW_SECTORS);
	ck_assert_uint_eq(wc_series_cell(s, dcol, 4096 / wc_series_row_sectors(s)),
			  1u << WC_CAT_DATA_WRITE);
	ck_assert_uint_eq(wc_series_lat_n(s, WC_CAT_DATA_WRITE), 1);
	ck_assert_uint_eq(wc_series_requests(s), 1);
	ck_assert_uint_eq(wc_series_incomplete(s), 0);
	wc_series_free(s);
}
END_TEST

/*
 * A long trace forces many merges; whatever the bin width ends up being,
 * the sums over the bins must be the sums over the requests.
 */
START_TEST(test_conservation_across_merges)
{
	struct wc_series *s = wc_check_series();
	struct wc_series_bin sum;
	uint64_t t, bytes = 0, d2c = 0, q2c = 0, flush = 0, n = 0, nflush = 0;
	uint64_t span = 3600 * S;
	unsigned seed = 1;

	for (t = 100 * S; t < 100 * S + span; t += 7 * MS + (uint64_t)(rand_r(&seed) % 50) * MS) {
		uint64_t lat = 1000 + (uint64_t)(rand_r(&seed) % 40) * MS;
		struct wc_request rq = wc_check_request(t, t + lat, (uint64_t)rand_r(&seed) % 1000000, 4096);
		enum wc_cat cat = (enum wc_cat)(n % WC_NCAT);

		rq.q_time = t - 100000;
		if (cat == WC_CAT_FLUSH) {
			rq.bytes = 0;
			rq.sector = 0;
			flush += lat;
			nflush++;
		}
		wc_series_add(s, &rq, cat);
		bytes += rq.bytes;
		d2c += lat;
		q2c += lat + 100000;
		n++;
	}
	totals(s, &sum);
	ck_assert_uint_le(wc_series_nbins(s), WC_SERIES_BINS);
	/* The width is the smallest power-of-two multiple that fits the span. */
	ck_assert_uint_ge(wc_series_bin_ns(s) * WC_SERIES_BINS, span);
	ck_assert_uint_lt(wc_series_bin_ns(s) * WC_SERIES_BINS / 2, span + 50 * MS);
	ck_assert_uint_eq(sum.driver_ns, d2c);
	ck_assert_uint_eq(sum.queued_ns, q2c);
	ck_assert_uint_eq(sum.flush_ns, flush);
	ck_assert_uint_eq(sum.requests[WC_CAT_FLUSH], nflush);
	{
		uint64_t b = 0, r = 0;
		int k;

		for (k = 0; k < WC_NCAT; k++) {
			b += sum.bytes[k];
			r += sum.requests[k];
		}
		ck_assert_uint_eq(b, bytes);
		ck_assert_uint_eq(r, n);
	}
	/* Every request with data went to the scatter; flushes did not. */
	ck_assert_uint_eq(wc_series_scatter_requests(s), n - nflush);
	ck_assert_uint_le(wc_series_points(s), n - nflush);
	wc_series_free(s);
}
END_TEST

/* Completion order: a later request may have been dispatched earlier. */
START_TEST(test_dispatched_before_origin)
{
	struct wc_series *s = wc_check_series();
	struct wc_request a = wc_check_request(10 * S, 10 * S + 500 * MS, 100, 512);
	struct wc_request b = wc_check_request(9 * S, 11 * S, 200, 512);
	struct wc_series_bin sum;

	wc_series_add(s, &a, WC_CAT_DATA_READ);
	ck_assert_uint_eq(wc_series_origin(s), 10 * S);
	wc_series_add(s, &b, WC_CAT_DATA_READ);
	ck_assert_uint_le(wc_series_origin(s), 9 * S);
	ck_assert_uint_gt(wc_series_origin(s), 9 * S - wc_series_bin_ns(s));
	totals(s, &sum);
	ck_assert_uint_eq(sum.driver_ns, 500 * MS + 2 * S);
	ck_assert_uint_eq(sum.bytes[WC_CAT_DATA_READ], 1024);
	/* The first request's point moved with its bin. */
	ck_assert_uint_ne(wc_series_cell(s, (size_t)((10 * S - wc_series_origin(s)) /
						  wc_series_bin_ns(s)),
				      100 / wc_series_row_sectors(s)), 0);
	wc_series_free(s);
}
END_TEST

/* Going back needs more room than the bins have: merge, then shift. */
START_TEST(test_before_origin_full_timeline)
{
	struct wc_series *s = wc_check_series();
	struct wc_request a = wc_check_request(50 * S, 50 * S + MS, 0, 512);
	struct wc_request b = wc_check_request(50 * S + 1000 * MS, 50 * S + 1001 * MS, 0, 512);
	struct wc_request c = wc_check_request(49 * S, 52 * S, 0, 512);
	struct wc_series_bin sum;
	uint64_t before;

	wc_series_add(s, &a, WC_CAT_OTHER);
	wc_series_add(s, &b, WC_CAT_OTHER);
	before = wc_series_bin_ns(s);
	ck_assert_uint_ge(wc_series_nbins(s), WC_SERIES_BINS / 2);
	wc_series_add(s, &c, WC_CAT_OTHER);
	ck_assert_uint_gt(wc_series_bin_ns(s), before);
	ck_assert_uint_le(wc_series_origin(s), 49 * S);
	ck_assert_uint_le(wc_series_nbins(s), WC_SERIES_BINS);
	totals(s, &sum);
	ck_assert_uint_eq(sum.driver_ns, 2 * MS + 3 * S);
	wc_series_free(s);
}
END_TEST

/* A trace clock that starts at 0 cannot shift before 0: bin 0 takes it. */
START_TEST(test_near_time_zero)
{
	struct wc_series *s = wc_check_series();
	struct wc_request a = wc_check_request(500, 2 * MS, 0, 512);
	struct wc_request b = wc_check_request(0, 3 * MS, 0, 512);
	struct wc_series_bin sum;

	wc_series_add(s, &a, WC_CAT_OTHER);
	wc_series_add(s, &b, WC_CAT_OTHER);
	/* Less than a bin before the origin: bin 0 takes it, time 0 is not
	 * crossed and only the 500 ns before the origin are dropped. */
	ck_assert_uint_eq(wc_series_origin(s), 500);
	ck_assert_uint_le(wc_series_nbins(s), WC_SERIES_BINS);
	totals(s, &sum);
	ck_assert_uint_eq(sum.driver_ns, (2 * MS - 500) + (3 * MS - 500));
	wc_series_free(s);
}
END_TEST

START_TEST(test_scatter_merges_per_cell)
{
	struct wc_series *s = wc_check_series();
	struct wc_request a = wc_check_request(S, S + MS, 800, 4096);
	struct wc_request b = wc_check_request(S + 10, S + MS + 10, 801, 4096);
	struct wc_request c = wc_check_request(S + 20, S + MS + 20, 802, 4096);

	wc_series_add(s, &a, WC_CAT_JOURNAL);
	wc_series_add(s, &b, WC_CAT_JOURNAL);    /* same cell, same category */
	ck_assert_uint_eq(wc_series_scatter_requests(s), 2);
	ck_assert_uint_eq(wc_series_points(s), 1);
	wc_series_add(s, &c, WC_CAT_METADATA);   /* same cell, new category */
	ck_assert_uint_eq(wc_series_points(s), 2);
	ck_assert_uint_eq(wc_series_cell(s, 0, 100),
			  (1u << WC_CAT_JOURNAL) | (1u << WC_CAT_METADATA));
	wc_series_free(s);
}
END_TEST

START_TEST(test_rows_grow_with_sectors)
{
	struct wc_series *s = wc_check_series();
	struct wc_request a = wc_check_request(S, S + MS, 0, 4096);
	struct wc_request b = wc_check_request(S, S + MS, 8, 4096);
	struct wc_request c = wc_check_request(S, S + MS, 2000000000ull, 4096);

	wc_series_add(s, &a, WC_CAT_DATA_READ);
	wc_series_add(s, &b, WC_CAT_DATA_WRITE);
	ck_assert_uint_eq(wc_series_points(s), 2);
	ck_assert_uint_eq(wc_series_nrows(s), 2);
	wc_series_add(s, &c, WC_CAT_DATA_READ);
	ck_assert_uint_gt(wc_series_row_sectors(s) * WC_SERIES_ROWS, 2000000000ull);
	ck_assert_uint_le(wc_series_row_sectors(s) * WC_SERIES_ROWS / 2, 2000000000ull);
	ck_assert_uint_le(wc_series_nrows(s), WC_SERIES_ROWS);
	/* Sectors 0 and 8 now share row 0: both categories are kept. */
	ck_assert_uint_eq(wc_series_cell(s, 0, 0),
			  (1u << WC_CAT_DATA_READ) | (1u << WC_CAT_DATA_WRITE));
	ck_assert_uint_eq(wc_series_points(s), 3);
	wc_series_free(s);
}
END_TEST

START_TEST(test_latency_edges)
{
	struct wc_series *s = wc_check_series();
	size_t i;
	uint64_t n = 0;

	ck_assert_uint_eq(wc_series_lat_lower(0), WC_SERIES_LAT_MIN_NS);
	ck_assert_uint_eq(wc_series_lat_lower(WC_SERIES_LAT_PER_DECADE), 10000);
	ck_assert_uint_eq(wc_series_lat_lower(3 * WC_SERIES_LAT_PER_DECADE), 1000000);
	for (i = 1; i < WC_SERIES_LAT_BINS; i++) {
		uint64_t lo = wc_series_lat_lower(i);
		struct wc_request at = wc_check_request(S, S + lo, 0, 512);
		struct wc_request below = wc_check_request(S, S + lo - 1, 0, 512);

		ck_assert_uint_gt(lo, wc_series_lat_lower(i - 1));
		wc_series_add(s, &at, WC_CAT_DATA_READ);
		wc_series_add(s, &below, WC_CAT_DATA_WRITE);
		ck_assert_uint_eq(wc_series_lat_count(s, WC_CAT_DATA_READ, i), 1);
		ck_assert_uint_eq(wc_series_lat_count(s, WC_CAT_DATA_WRITE, i - 1), 1);
		n++;
	}
	ck_assert_uint_eq(wc_series_lat_n(s, WC_CAT_DATA_READ), n);
	wc_series_free(s);
}
END_TEST

START_TEST(test_latency_extremes)
{
	struct wc_series *s = wc_check_series();
	struct wc_request fast = wc_check_request(S, S + 10, 0, 512);
	struct wc_request slow = wc_check_request(S, S + 5000 * S, 0, 512);

	wc_series_add(s, &fast, WC_CAT_FLUSH);
	wc_series_add(s, &slow, WC_CAT_FLUSH);
	ck_assert_uint_eq(wc_series_lat_count(s, WC_CAT_FLUSH, 0), 1);
	ck_assert_uint_eq(wc_series_lat_count(s, WC_CAT_FLUSH, WC_SERIES_LAT_BINS - 1), 1);
	ck_assert_uint_eq(wc_series_lat_count(s, WC_CAT_FLUSH, WC_SERIES_LAT_BINS), 0);
	wc_series_free(s);
}
END_TEST

START_TEST(test_incomplete)
{
	struct wc_series *s = wc_check_series();
	struct wc_request a = wc_check_request(S, WC_NO_TIME, 64, 4096);
	struct wc_request b = wc_check_request(WC_NO_TIME, WC_NO_TIME, 64, 4096);
	struct wc_series_bin sum;

	a.completed = false;
	b.completed = false;
	wc_series_add(s, &a, WC_CAT_DATA_WRITE);
	wc_series_add(s, &b, WC_CAT_DATA_WRITE);
	ck_assert_uint_eq(wc_series_requests(s), 2);
	ck_assert_uint_eq(wc_series_incomplete(s), 2);
	ck_assert_uint_eq(wc_series_scatter_requests(s), 1);
	ck_assert_uint_eq(wc_series_lat_n(s, WC_CAT_DATA_WRITE), 0);
	totals(s, &sum);
	ck_assert_uint_eq(sum.requests[WC_CAT_DATA_WRITE], 0);
	ck_assert_uint_eq(sum.driver_ns, 0);
	wc_series_free(s);
}
END_TEST

/* Many requests, bins always within bounds: nothing grows with length. */
START_TEST(test_bounded)
{
	struct wc_series *s = wc_check_series();
	uint64_t i;

	for (i = 0; i < 2000000; i++) {
		struct wc_request rq = wc_check_request(i * 50000, i * 50000 + 40000,
					    (i * 7919) % 100000000, 4096);

		wc_series_add(s, &rq, (enum wc_cat)(i % WC_NCAT));
	}
	ck_assert_uint_le(wc_series_nbins(s), WC_SERIES_BINS);
	ck_assert_uint_ge(wc_series_nbins(s), WC_SERIES_BINS / 2);
	ck_assert_uint_le(wc_series_nrows(s), WC_SERIES_ROWS);
	ck_assert_uint_le(wc_series_points(s),
			  (uint64_t)WC_SERIES_BINS * WC_SERIES_ROWS * WC_NCAT);
	ck_assert_uint_lt(wc_series_points(s), wc_series_scatter_requests(s));
	wc_series_free(s);
}
END_TEST

static Suite *series_suite(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_one_request);
	tcase_add_test(tc, test_conservation_across_merges);
	tcase_add_test(tc, test_dispatched_before_origin);
	tcase_add_test(tc, test_before_origin_full_timeline);
	tcase_add_test(tc, test_near_time_zero);
	tcase_add_test(tc, test_scatter_merges_per_cell);
	tcase_add_test(tc, test_rows_grow_with_sectors);
	tcase_add_test(tc, test_latency_edges);
	tcase_add_test(tc, test_latency_extremes);
	tcase_add_test(tc, test_incomplete);
	tcase_add_test(tc, test_bounded);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(series_suite)
