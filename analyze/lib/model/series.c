/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * series.c - bounded-memory time series for the figures (see series.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/series.h"

struct tbin {
	uint64_t bytes[WC_NCAT];
	uint64_t requests[WC_NCAT];
	uint64_t flush_ns;
	uint64_t driver_ns;
	uint64_t queued_ns;
	uint32_t max_depth;
};

struct wc_series {
	uint64_t origin;             /* WC_NO_TIME until the first request */
	uint64_t bin_ns;
	size_t nbins;                /* bins in use: 0 .. nbins - 1 */
	struct tbin bins[WC_SERIES_BINS];

	uint64_t row_sectors;
	size_t nrows;
	/* grid[col][row]: bit 1u << cat for each category seen in the cell */
	uint8_t grid[WC_SERIES_BINS][WC_SERIES_ROWS];
	uint64_t scatter_requests;
	uint64_t points;

	uint64_t lat[WC_NCAT][WC_SERIES_LAT_BINS];
	uint64_t lat_n[WC_NCAT];

	/* Heat maps: columns aligned on trace-clock 0 (series.h). */
	uint64_t heat_ns;
	uint64_t heat_first;         /* absolute index of column 0 */
	size_t heat_ncols;
	uint64_t heat_row_sectors;
	size_t heat_nrows;
	uint32_t heat_lat[WC_SERIES_HEAT_COLS][WC_NCAT][WC_SERIES_LAT_BINS];
	uint32_t heat_sec[WC_SERIES_HEAT_COLS][WC_SERIES_HEAT_ROWS];

	uint64_t requests;
	uint64_t incomplete;
};

_Static_assert(WC_NCAT <= 8, "a scatter cell holds one bit per category");

int wc_series_open(struct wc_series **out, struct wc_err *err)
{
	struct wc_series *s;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	s->origin = WC_NO_TIME;
	s->bin_ns = WC_SERIES_FIRST_BIN_NS;
	s->row_sectors = WC_SERIES_FIRST_ROW_SECTORS;
	s->heat_ns = WC_SERIES_FIRST_BIN_NS;
	s->heat_row_sectors = WC_SERIES_FIRST_ROW_SECTORS;
	*out = s;
	return 0;
}

void wc_series_free(struct wc_series *s)
{
	free(s);
}

static void recount_points(struct wc_series *s)
{
	uint64_t n = 0;
	size_t c, r;

	for (c = 0; c < s->nbins; c++)
		for (r = 0; r < s->nrows; r++)
			n += (uint64_t)__builtin_popcount(s->grid[c][r]);
	s->points = n;
}

static void merge_tbin(struct tbin *dst, const struct tbin *a,
		       const struct tbin *b)
{
	struct tbin m;
	int k;

	for (k = 0; k < WC_NCAT; k++) {
		m.bytes[k] = a->bytes[k] + b->bytes[k];
		m.requests[k] = a->requests[k] + b->requests[k];
	}
	m.flush_ns = a->flush_ns + b->flush_ns;
	m.driver_ns = a->driver_ns + b->driver_ns;
	m.queued_ns = a->queued_ns + b->queued_ns;
	m.max_depth = a->max_depth > b->max_depth ? a->max_depth : b->max_depth;
	*dst = m;
}

/* Halves the time resolution: bins 2i and 2i + 1 become bin i. */
static void merge_columns(struct wc_series *s)
{
	size_t i, r, half = (s->nbins + 1) / 2;

	for (i = 0; i < half; i++) {
		struct tbin zero = { 0 };
		const struct tbin *b = 2 * i + 1 < s->nbins ? &s->bins[2 * i + 1] : &zero;

		merge_tbin(&s->bins[i], &s->bins[2 * i], b);
		for (r = 0; r < s->nrows; r++)
			s->grid[i][r] = s->grid[2 * i][r] |
				(2 * i + 1 < s->nbins ? s->grid[2 * i + 1][r] : 0);
	}
	memset(&s->bins[half], 0, (WC_SERIES_BINS - half) * sizeof(s->bins[0]));
	memset(s->grid[half], 0, (WC_SERIES_BINS - half) * sizeof(s->grid[0]));
	s->nbins = half;
	s->bin_ns *= 2;
	recount_points(s);
}

/* Halves the sector resolution: rows 2i and 2i + 1 become row i. */
static void merge_rows(struct wc_series *s)
{
	size_t c, i, half = (s->nrows + 1) / 2;

	for (c = 0; c < s->nbins; c++) {
		uint8_t *g = s->grid[c];

		for (i = 0; i < half; i++)
			g[i] = g[2 * i] | (2 * i + 1 < s->nrows ? g[2 * i + 1] : 0);
		memset(&g[half], 0, WC_SERIES_ROWS - half);
	}
	s->nrows = half;
	s->row_sectors *= 2;
	recount_points(s);
}

/* Moves every bin k places later so the timeline starts k bins earlier. */
static void shift_columns(struct wc_series *s, size_t k)
{
	memmove(&s->bins[k], &s->bins[0], s->nbins * sizeof(s->bins[0]));
	memset(&s->bins[0], 0, k * sizeof(s->bins[0]));
	memmove(s->grid[k], s->grid[0], s->nbins * sizeof(s->grid[0]));
	memset(s->grid[0], 0, k * sizeof(s->grid[0]));
	s->nbins += k;
	s->origin -= k * s->bin_ns;
}

/*
 * Makes [lo, hi] fall inside the timeline's WC_SERIES_BINS bins, merging
 * or shifting as needed, and marks the bins up to hi as in use.  The
 * origin only moves back by whole bins and never below time 0; a time
 * that would need that is counted in bin 0 (col_of() clamps).
 */
static void cover(struct wc_series *s, uint64_t lo, uint64_t hi)
{
	if (s->origin == WC_NO_TIME) {
		s->origin = lo;
		s->nbins = 0;
	}
	while (lo < s->origin) {
		uint64_t need = (s->origin - lo - 1) / s->bin_ns + 1;

		if (need > s->origin / s->bin_ns)
			break;
		if (s->nbins + need <= WC_SERIES_BINS) {
			shift_columns(s, (size_t)need);
			break;
		}
		merge_columns(s);
	}
	if (hi < s->origin)
		hi = s->origin;
	while ((hi - s->origin) / s->bin_ns >= WC_SERIES_BINS)
		merge_columns(s);
	if ((hi - s->origin) / s->bin_ns + 1 > s->nbins)
		s->nbins = (size_t)((hi - s->origin) / s->bin_ns + 1);
}

static size_t col_of(const struct wc_series *s, uint64_t t)
{
	if (t < s->origin)
		return 0;
	return (size_t)((t - s->origin) / s->bin_ns);
}

/* Adds the overlap of [a, b) with every bin to the field at offset off. */
static void spread(struct wc_series *s, uint64_t a, uint64_t b, size_t off)
{
	size_t i, last;

	if (a < s->origin)
		a = s->origin;
	if (b <= a)
		return;
	last = col_of(s, b - 1);
	for (i = col_of(s, a); i <= last; i++) {
		uint64_t start = s->origin + i * s->bin_ns;
		uint64_t end = start + s->bin_ns;
		uint64_t from = a > start ? a : start;
		uint64_t to = b < end ? b : end;

		*(uint64_t *)((char *)&s->bins[i] + off) += to - from;
	}
}

static void put_point(struct wc_series *s, uint64_t t, uint64_t sector,
		      enum wc_cat cat)
{
	size_t col, row;
	uint8_t bit = (uint8_t)(1u << cat);

	while (sector / s->row_sectors >= WC_SERIES_ROWS)
		merge_rows(s);
	row = (size_t)(sector / s->row_sectors);
	if (row + 1 > s->nrows)
		s->nrows = row + 1;
	col = col_of(s, t);
	s->scatter_requests++;
	if (!(s->grid[col][row] & bit)) {
		s->grid[col][row] |= bit;
		s->points++;
	}
}

/* ---- heat maps ---- */

static void add_sat(uint32_t *c, uint32_t n)
{
	*c = *c > UINT32_MAX - n ? UINT32_MAX : *c + n;
}

/* Halves the heat maps' time resolution: absolute columns 2j and 2j + 1
 * become column j, so column i moves to (first + i) / 2 - first / 2,
 * never to a later index: one pass upwards merges in place. */
static void heat_merge_columns(struct wc_series *s)
{
	uint64_t first = s->heat_first / 2;
	size_t i, j, k, r, n = 0;

	for (i = 0; i < s->heat_ncols; i++) {
		j = (size_t)((s->heat_first + i) / 2 - first);
		n = j + 1;
		if (j == i)
			continue;
		for (k = 0; k < WC_NCAT; k++)
			for (r = 0; r < WC_SERIES_LAT_BINS; r++)
				add_sat(&s->heat_lat[j][k][r], s->heat_lat[i][k][r]);
		for (r = 0; r < WC_SERIES_HEAT_ROWS; r++)
			add_sat(&s->heat_sec[j][r], s->heat_sec[i][r]);
		memset(s->heat_lat[i], 0, sizeof(s->heat_lat[i]));
		memset(s->heat_sec[i], 0, sizeof(s->heat_sec[i]));
	}
	s->heat_first = first;
	s->heat_ncols = n;
	s->heat_ns *= 2;
}

/* Makes the heat maps' columns cover times lo..hi (lo <= hi). */
static void heat_cover(struct wc_series *s, uint64_t lo, uint64_t hi)
{
	uint64_t a, b, from, to;

	for (;;) {
		a = lo / s->heat_ns;
		b = hi / s->heat_ns;
		from = s->heat_ncols && s->heat_first < a ? s->heat_first : a;
		to = s->heat_ncols && s->heat_first + s->heat_ncols - 1 > b ?
			s->heat_first + s->heat_ncols - 1 : b;
		if (to - from < WC_SERIES_HEAT_COLS)
			break;
		heat_merge_columns(s);
	}
	if (s->heat_ncols && from < s->heat_first) {
		size_t k = (size_t)(s->heat_first - from);

		memmove(s->heat_lat[k], s->heat_lat[0],
			s->heat_ncols * sizeof(s->heat_lat[0]));
		memset(s->heat_lat[0], 0, k * sizeof(s->heat_lat[0]));
		memmove(s->heat_sec[k], s->heat_sec[0],
			s->heat_ncols * sizeof(s->heat_sec[0]));
		memset(s->heat_sec[0], 0, k * sizeof(s->heat_sec[0]));
	}
	s->heat_first = from;
	s->heat_ncols = (size_t)(to - from + 1);
}

static size_t heat_col(const struct wc_series *s, uint64_t t)
{
	return (size_t)(t / s->heat_ns - s->heat_first);
}

/* Halves the heat map's sector resolution: rows 2i and 2i + 1 become i. */
static void heat_merge_rows(struct wc_series *s)
{
	size_t c, i, half = (s->heat_nrows + 1) / 2;

	for (c = 0; c < s->heat_ncols; c++) {
		uint32_t *g = s->heat_sec[c];

		for (i = 0; i < half; i++) {
			uint32_t v = g[2 * i];

			if (2 * i + 1 < s->heat_nrows)
				add_sat(&v, g[2 * i + 1]);
			g[i] = v;
		}
		memset(&g[half], 0, (WC_SERIES_HEAT_ROWS - half) * sizeof(g[0]));
	}
	s->heat_nrows = half;
	s->heat_row_sectors *= 2;
}

static void heat_sector(struct wc_series *s, uint64_t t, uint64_t sector)
{
	size_t row;

	while (sector / s->heat_row_sectors >= WC_SERIES_HEAT_ROWS)
		heat_merge_rows(s);
	row = (size_t)(sector / s->heat_row_sectors);
	if (row + 1 > s->heat_nrows)
		s->heat_nrows = row + 1;
	add_sat(&s->heat_sec[heat_col(s, t)][row], 1);
}

static size_t lat_bin(uint64_t ns)
{
	long i;

	if (ns < WC_SERIES_LAT_MIN_NS)
		return 0;
	i = lround(floor(WC_SERIES_LAT_PER_DECADE *
			 log10((double)ns / WC_SERIES_LAT_MIN_NS)));
	if (i < 0)
		i = 0;
	if (i > WC_SERIES_LAT_BINS - 1)
		i = WC_SERIES_LAT_BINS - 1;
	/* Floating point may miss an edge by one; the table is the truth. */
	while (i > 0 && ns < wc_series_lat_lower((size_t)i))
		i--;
	while (i < WC_SERIES_LAT_BINS - 1 && ns >= wc_series_lat_lower((size_t)i + 1))
		i++;
	return (size_t)i;
}

uint64_t wc_series_lat_lower(size_t i)
{
	return (uint64_t)llround(WC_SERIES_LAT_MIN_NS *
				 pow(10.0, (double)i / WC_SERIES_LAT_PER_DECADE));
}

void wc_series_add(struct wc_series *s, const struct wc_request *rq,
		   enum wc_cat cat)
{
	bool has_d = rq->d_time != WC_NO_TIME;
	bool has_c = rq->completed && rq->c_time != WC_NO_TIME &&
		(!has_d || rq->c_time >= rq->d_time);
	uint64_t lo, hi, q;
	struct tbin *b;

	if ((unsigned)cat >= WC_NCAT)
		cat = WC_CAT_OTHER;
	s->requests++;
	if (!has_c)
		s->incomplete++;
	if (!has_d && !has_c)
		return;

	lo = has_d ? rq->d_time : rq->c_time;
	hi = has_c ? rq->c_time : rq->d_time;
	q = lo;
	if (has_c && rq->q_time != WC_NO_TIME && rq->q_time < lo)
		q = rq->q_time;
	cover(s, q, hi);
	heat_cover(s, lo, hi);

	if (has_d) {
		b = &s->bins[col_of(s, rq->d_time)];
		if (rq->depth > b->max_depth)
			b->max_depth = rq->depth;
	}
	if (rq->bytes > 0) {
		put_point(s, lo, rq->sector, cat);
		heat_sector(s, lo, rq->sector);
	}
	if (!has_c)
		return;

	b = &s->bins[col_of(s, rq->c_time)];
	b->bytes[cat] += rq->bytes;
	b->requests[cat]++;
	spread(s, lo, rq->c_time, offsetof(struct tbin, driver_ns));
	spread(s, q, rq->c_time, offsetof(struct tbin, queued_ns));
	if (cat == WC_CAT_FLUSH)
		spread(s, lo, rq->c_time, offsetof(struct tbin, flush_ns));
	if (has_d) {
		size_t i = lat_bin(rq->c_time - rq->d_time);

		s->lat[cat][i]++;
		s->lat_n[cat]++;
		add_sat(&s->heat_lat[heat_col(s, rq->c_time)][cat][i], 1);
	}
}

uint64_t wc_series_origin(const struct wc_series *s)
{
	return s->origin;
}

uint64_t wc_series_bin_ns(const struct wc_series *s)
{
	return s->bin_ns;
}

size_t wc_series_nbins(const struct wc_series *s)
{
	return s->nbins;
}

void wc_series_bin(const struct wc_series *s, size_t i,
		   struct wc_series_bin *out)
{
	const struct tbin *b;

	memset(out, 0, sizeof(*out));
	if (i >= s->nbins)
		return;
	b = &s->bins[i];
	memcpy(out->bytes, b->bytes, sizeof(out->bytes));
	memcpy(out->requests, b->requests, sizeof(out->requests));
	out->flush_ns = b->flush_ns;
	out->driver_ns = b->driver_ns;
	out->queued_ns = b->queued_ns;
	out->max_depth = b->max_depth;
}

uint64_t wc_series_row_sectors(const struct wc_series *s)
{
	return s->row_sectors;
}

size_t wc_series_nrows(const struct wc_series *s)
{
	return s->nrows;
}

unsigned wc_series_cell(const struct wc_series *s, size_t col, size_t row)
{
	if (col >= s->nbins || row >= s->nrows)
		return 0;
	return s->grid[col][row];
}

uint64_t wc_series_scatter_requests(const struct wc_series *s)
{
	return s->scatter_requests;
}

uint64_t wc_series_points(const struct wc_series *s)
{
	return s->points;
}

uint64_t wc_series_lat_count(const struct wc_series *s, enum wc_cat cat,
			     size_t i)
{
	if ((unsigned)cat >= WC_NCAT || i >= WC_SERIES_LAT_BINS)
		return 0;
	return s->lat[cat][i];
}

uint64_t wc_series_lat_n(const struct wc_series *s, enum wc_cat cat)
{
	if ((unsigned)cat >= WC_NCAT)
		return 0;
	return s->lat_n[cat];
}

uint64_t wc_series_heat_ns(const struct wc_series *s)
{
	return s->heat_ns;
}

uint64_t wc_series_heat_first(const struct wc_series *s)
{
	return s->heat_first;
}

size_t wc_series_heat_ncols(const struct wc_series *s)
{
	return s->heat_ncols;
}

uint64_t wc_series_heat_row_sectors(const struct wc_series *s)
{
	return s->heat_row_sectors;
}

size_t wc_series_heat_nrows(const struct wc_series *s)
{
	return s->heat_nrows;
}

uint32_t wc_series_heat_lat(const struct wc_series *s, enum wc_cat cat,
			    size_t col, size_t i)
{
	if ((unsigned)cat >= WC_NCAT || col >= s->heat_ncols ||
	    i >= WC_SERIES_LAT_BINS)
		return 0;
	return s->heat_lat[col][cat][i];
}

uint32_t wc_series_heat_sector(const struct wc_series *s, size_t col,
			       size_t row)
{
	if (col >= s->heat_ncols || row >= s->heat_nrows)
		return 0;
	return s->heat_sec[col][row];
}

uint64_t wc_series_requests(const struct wc_series *s)
{
	return s->requests;
}

uint64_t wc_series_incomplete(const struct wc_series *s)
{
	return s->incomplete;
}
