/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_figdata.c - unit tests of analyze/lib/compare/figdata.c (and the heat
 * maps of series.c it reads) with hand-made requests: the percentile
 * band against ranks counted by hand, flush stalls that the band tells
 * apart in time, counts kept across the heat columns' merges and shifts
 * back, the timeline's rates carrying every byte, an empty series.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "check_series.h"
#include "compare/figdata.h"

#define US 1000ull
#define MS 1000000ull
#define S (1000 * MS)

static void add(struct wc_series *s, uint64_t d, uint64_t lat, uint64_t sector,
		uint32_t bytes, enum wc_cat cat)
{
	struct wc_request rq = wc_check_request(d, d + lat, sector, bytes);

	wc_series_add(s, &rq, cat);
}

static struct wc_figdata *build(const struct wc_series *s, uint64_t start)
{
	struct wc_figdata *fd = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_figdata_build(&fd, s, start, &err), 0);
	ck_assert_ptr_nonnull(fd);
	return fd;
}

/* The latency bin holding ns, from series.h's table. */
static size_t bin_of(uint64_t ns)
{
	size_t i = 0;

	while (i + 1 < WC_SERIES_LAT_BINS && wc_series_lat_lower(i + 1) <= ns)
		i++;
	return i;
}

START_TEST(test_empty)
{
	struct wc_series *s = wc_check_series();
	struct wc_figdata *fd = build(s, WC_NO_TIME);
	int k;

	ck_assert_uint_eq(fd->nrows, 0);
	ck_assert_uint_eq(fd->ncurve, 0);
	ck_assert_uint_eq(fd->ncols, 0);
	ck_assert_uint_eq(fd->ncdf, 0);
	ck_assert_uint_eq(fd->nsec_cells, 0);
	for (k = 0; k < WC_NCAT; k++) {
		ck_assert_uint_eq(fd->nlat_cells[k], 0);
		ck_assert_uint_eq(fd->nband[k], 0);
	}
	ck_assert(fd->end_s == 0);
	wc_figdata_free(fd);
	wc_figdata_free(NULL);
	wc_series_free(s);
}
END_TEST

/*
 * One column of ten journal writes completed within 10 us of each other:
 * five near 1 ms, four near 10 ms, one of 300 ms.  p50 is the 5th fastest, p90 the 9th, p99 the 10th (ceil of
 * 9.9): each reported as the top of the bin that holds it.
 */
START_TEST(test_band_ranks)
{
	static const uint64_t lat[10] = {
		900 * US, 1000 * US, 1010 * US, 1050 * US, 1100 * US,
		9 * MS, 10 * MS, 10 * MS, 11 * MS, 300 * MS,
	};
	static const size_t rank[WC_FIG_NPCT] = { 5, 9, 10 };
	struct wc_series *s = wc_check_series();
	struct wc_figdata *fd;
	const struct wc_fig_band *b;
	size_t i;

	for (i = 0; i < 10; i++)
		add(s, 1 * S + 300 * MS + i * US - lat[i], lat[i], 0, 4096,
		    WC_CAT_JOURNAL);
	fd = build(s, 1 * S);
	ck_assert_uint_eq(fd->nband[WC_CAT_JOURNAL], 1);
	b = &fd->band[WC_CAT_JOURNAL][0];
	ck_assert_uint_eq(b->n, 10);
	for (i = 0; i < WC_FIG_NPCT; i++) {
		uint64_t v = lat[rank[i] - 1];
		double top = (double)wc_series_lat_lower(bin_of(v) + 1) / 1e6;

		ck_assert_msg(b->pct[i] == top, "p%u: %g ms, want %g",
			      wc_fig_pct[i], b->pct[i], top);
		ck_assert(b->pct[i] * 1e6 > (double)v);
	}
	ck_assert(b->t0 <= 0.3 && b->t1 > 0.30001);
	ck_assert_uint_eq(fd->nband[WC_CAT_FLUSH], 0);
	/* Bins of 0.89, 1.0, 8.9, 10 and 282 ms: five cells. */
	ck_assert_uint_eq(fd->nlat_cells[WC_CAT_JOURNAL], 5);
	wc_figdata_free(fd);
	wc_series_free(s);
}
END_TEST

/*
 * Flushes of 1 ms for 10 s, then flushes of 200 ms for 10 s (a write
 * cache that fills, then destages): the whole-capture CDF has one curve
 * over both, the band has low columns first and high columns after.
 */
START_TEST(test_flush_stalls_apart)
{
	struct wc_series *s = wc_check_series();
	struct wc_figdata *fd;
	size_t i, low = 0, high = 0;

	for (i = 0; i < 100; i++)
		add(s, 5 * S + i * 100 * MS, 1 * MS, 0, 0, WC_CAT_FLUSH);
	for (i = 0; i < 50; i++)
		add(s, 15 * S + i * 200 * MS, 200 * MS, 0, 0, WC_CAT_FLUSH);
	fd = build(s, 5 * S);
	ck_assert_uint_eq(fd->lat_n[WC_CAT_FLUSH], 150);
	ck_assert_uint_gt(fd->nband[WC_CAT_FLUSH], 10);
	for (i = 0; i < fd->nband[WC_CAT_FLUSH]; i++) {
		const struct wc_fig_band *b = &fd->band[WC_CAT_FLUSH][i];

		if (b->t1 <= 10.0) {
			ck_assert(b->pct[2] < 2.0);
			low++;
		} else if (b->t0 >= 10.3) {
			ck_assert(b->pct[0] > 150.0);
			high++;
		}
	}
	ck_assert_uint_gt(low, 3);
	ck_assert_uint_gt(high, 3);
	/* Flushes have no sector: none in the sector map. */
	ck_assert_uint_eq(fd->nsec_cells, 0);
	ck_assert_uint_eq(fd->flushes, 150);
	wc_figdata_free(fd);
	wc_series_free(s);
}
END_TEST

/* Sums of a heat map's cells. */
static uint64_t cells_sum(const struct wc_fig_cell *c, size_t n)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += c[i].n;
	return sum;
}

/*
 * A day of requests, some dispatched before the first one seen (a shift
 * back), sectors up to 2 TB (row merges): the columns stay bounded, no
 * count is lost, and each request's completion lies in a column that
 * counts it.
 */
START_TEST(test_heat_bounded_exact)
{
	struct wc_series *s = wc_check_series();
	struct wc_figdata *fd;
	uint64_t t, n = 0;
	size_t i;
	int k;

	add(s, 3600 * S, 2 * MS, 100, 4096, WC_CAT_DATA_WRITE);
	add(s, 3599 * S, 1 * MS, 200, 4096, WC_CAT_DATA_READ);   /* earlier */
	n = 2;
	for (t = 3600 * S; t < 86400 * S; t += 37 * S, n++)
		add(s, t, (n % 7 + 1) * MS, (n * 7919 * 4096) % (4000000000ull),
		    4096, (enum wc_cat)(n % 2 ? WC_CAT_DATA_WRITE : WC_CAT_METADATA));
	add(s, 10 * S, 5 * MS, 1, 512, WC_CAT_JOURNAL);          /* far back */
	n++;
	ck_assert_uint_le(wc_series_heat_ncols(s), WC_SERIES_HEAT_COLS);
	ck_assert_uint_le(wc_series_heat_nrows(s), WC_SERIES_HEAT_ROWS);
	fd = build(s, 10 * S);
	ck_assert_uint_eq(cells_sum(fd->sec_cells, fd->nsec_cells), n);
	ck_assert_uint_eq(fd->scatter_requests, n);
	for (k = 0; k < WC_NCAT; k++) {
		uint64_t b = 0;

		ck_assert_uint_eq(cells_sum(fd->lat_cells[k], fd->nlat_cells[k]),
				  fd->lat_n[k]);
		for (i = 0; i < fd->nband[k]; i++)
			b += fd->band[k][i].n;
		ck_assert_uint_eq(b, fd->lat_n[k]);
	}
	/* The journal write completed at 10.005 s: its column starts at or
	 * before 0 s from start (10 s) and ends after 0.005 s. */
	ck_assert_uint_eq(fd->nlat_cells[WC_CAT_JOURNAL], 1);
	ck_assert(fd->lat_cells[WC_CAT_JOURNAL][0].t0 <= 0.005);
	ck_assert(fd->lat_cells[WC_CAT_JOURNAL][0].t1 > 0.005);
	ck_assert(fd->lat_cells[WC_CAT_JOURNAL][0].y0 <= 5.0);
	ck_assert(fd->lat_cells[WC_CAT_JOURNAL][0].y1 > 5.0);
	/* So did the read completed at 3599.001 s, before the first request
	 * seen, and the write completed at 3600.002 s, the first seen. */
	ck_assert_uint_eq(fd->nlat_cells[WC_CAT_DATA_READ], 1);
	ck_assert(fd->lat_cells[WC_CAT_DATA_READ][0].t0 <= 3589.001);
	ck_assert(fd->lat_cells[WC_CAT_DATA_READ][0].t1 > 3589.001);
	ck_assert(fd->lat_cells[WC_CAT_DATA_WRITE][0].t0 <= 3590.002);
	ck_assert(fd->lat_cells[WC_CAT_DATA_WRITE][0].t1 > 3590.002);
	/* Columns are the width the series has, aligned on it. */
	for (i = 0; i < fd->nsec_cells; i++)
		ck_assert(fabs(fd->sec_cells[i].t1 - fd->sec_cells[i].t0 -
			       fd->heat_s) < 1e-6);
	wc_figdata_free(fd);
	wc_series_free(s);
}
END_TEST

/* The timeline's rates times their spans give back every byte, and the
 * CDF ends at 1. */
START_TEST(test_timeline_carries_bytes)
{
	struct wc_series *s = wc_check_series();
	struct wc_figdata *fd;
	uint64_t bytes = 0;
	double got = 0;
	size_t i;

	for (i = 0; i < 5000; i++) {
		add(s, 2 * S + i * 3 * MS, (i % 13 + 1) * 100 * US, i * 8,
		    4096 * (uint32_t)(i % 5 + 1), WC_CAT_DATA_WRITE);
		bytes += 4096 * (i % 5 + 1);
	}
	fd = build(s, 2 * S);
	ck_assert_uint_le(fd->nrows, WC_FIG_TIMELINE_POINTS);
	ck_assert_uint_le(fd->ncurve, WC_FIG_CURVE_POINTS);
	for (i = 0; i < fd->nrows; i++)
		got += fd->rows[i].mbps_total * fd->rows[i].span_s * 1e6;
	ck_assert_msg(fabs(got - (double)bytes) < 1e-6 * (double)bytes,
		      "%g bytes of %llu", got, (unsigned long long)bytes);
	ck_assert_uint_gt(fd->ncdf, 0);
	ck_assert(fd->cdf[fd->ncdf - 1].frac[WC_CAT_DATA_WRITE] == 1.0);
	ck_assert(isnan(fd->cdf[0].frac[WC_CAT_FLUSH]));
	ck_assert(fd->rows[0].start_s >= 0 && fd->rows[0].start_s < 0.001);
	wc_figdata_free(fd);
	wc_series_free(s);
}
END_TEST

static Suite *figdata_suite(void)
{
	Suite *s = suite_create("figdata");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_band_ranks);
	tcase_add_test(tc, test_flush_stalls_apart);
	tcase_add_test(tc, test_heat_bounded_exact);
	tcase_add_test(tc, test_timeline_carries_bytes);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(figdata_suite)
