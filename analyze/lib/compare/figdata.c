/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * figdata.c - the numbers of a capture's figures (see figdata.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/figdata.h"

const unsigned wc_fig_pct[WC_FIG_NPCT] = { 50, 90, 99 };

static int nomem(struct wc_err *err)
{
	return wc_err_oom(err, NULL, NULL);
}

/* Bins [from, to) of s summed into *sum; returns how many there were. */
static size_t sum_bins(const struct wc_series *s, size_t from, size_t to,
		       struct wc_series_bin *sum)
{
	struct wc_series_bin bin;
	size_t i, n = wc_series_nbins(s), m = 0;
	int cat;

	memset(sum, 0, sizeof(*sum));
	for (i = from; i < n && i < to; i++, m++) {
		wc_series_bin(s, i, &bin);
		for (cat = 0; cat < WC_NCAT; cat++) {
			sum->bytes[cat] += bin.bytes[cat];
			sum->requests[cat] += bin.requests[cat];
		}
		sum->flush_ns += bin.flush_ns;
		sum->driver_ns += bin.driver_ns;
		sum->queued_ns += bin.queued_ns;
		if (bin.max_depth > sum->max_depth)
			sum->max_depth = bin.max_depth;
	}
	return m;
}

/* Groups of k bins, so that there are at most max of them. */
static size_t group_of(size_t n, size_t max)
{
	size_t k = n / max + (n % max != 0);

	return k ? k : 1;
}

/* The groups of k that n bins make. */
static size_t groups(size_t n, size_t k)
{
	return n / k + (n % k != 0);
}

/*
 * Each row's flush rate, over the flush bin that holds it: the rows cut
 * into nb runs of near-equal length, each at least a second and at least
 * the capture's span over its flushes, so that a bin at the mean rate
 * holds one flush or more.  A row's 5-ms span would make each lone flush
 * a spike of 200 a second; over the flush bin the rate is what a reader
 * of "flushes per second" expects, and rate x span summed over the rows
 * is still the count.
 */
static void flush_rates(struct wc_figdata *fd)
{
	double span = 0, want;
	uint64_t n = 0;
	size_t i, b, nb, kt;

	for (i = 0; i < fd->nrows; i++) {
		span += fd->rows[i].span_s;
		n += fd->rows[i].flushes;
	}
	fd->flush_bin_s = 0;
	if (!fd->nrows || span <= 0)
		return;
	want = n ? span / (double)n : span;
	if (want < 1)
		want = 1;
	kt = fd->row_s > 0 ? (size_t)ceil(want / fd->row_s - 1e-9) : 1;
	if (kt < 1)
		kt = 1;
	nb = fd->nrows / kt;
	if (nb < 1)
		nb = 1;
	for (b = 0; b < nb; b++) {
		size_t lo = b * fd->nrows / nb, hi = (b + 1) * fd->nrows / nb;
		double bs = 0;
		uint64_t bn = 0;

		for (i = lo; i < hi; i++) {
			bs += fd->rows[i].span_s;
			bn += fd->rows[i].flushes;
		}
		for (i = lo; i < hi; i++)
			fd->rows[i].flush_rate = bs > 0 ? (double)bn / bs : 0;
		if (!b || bs < fd->flush_bin_s)
			fd->flush_bin_s = bs;
	}
}

static int timeline(struct wc_figdata *fd, const struct wc_series *s,
		    double origin, struct wc_err *err)
{
	size_t n = wc_series_nbins(s), k = group_of(n, WC_FIG_TIMELINE_POINTS);
	uint64_t w = wc_series_bin_ns(s);
	double cum = 0;
	size_t g;
	int cat;

	fd->row_s = (double)(k * w) / 1e9;
	fd->row_ms = (double)(k * w) / 1e6;
	if (n == 0)
		return 0;
	fd->rows = calloc(groups(n, k), sizeof(*fd->rows));
	if (!fd->rows)
		return nomem(err);
	for (g = 0; g * k < n; g++) {
		struct wc_fig_row *r = &fd->rows[g];
		struct wc_series_bin sum;
		size_t m = sum_bins(s, g * k, (g + 1) * k, &sum);
		double span = (double)(m * w) / 1e9;

		r->start_s = (origin + (double)(g * k * w)) / 1e9;
		r->mid_s = r->start_s + span / 2;
		r->span_s = span;
		cum += (double)sum.flush_ns / 1e9;
		for (cat = 0; cat < WC_NCAT; cat++) {
			r->mbps[cat] = (double)sum.bytes[cat] / span / 1e6;
			r->mbps_total += r->mbps[cat];
		}
		for (cat = 0; cat < WC_NCAT; cat++) {
			r->iops[cat] = (double)sum.requests[cat] / span;
			r->iops_total += r->iops[cat];
		}
		r->flush_cum_s = cum;
		r->at_driver = (double)sum.driver_ns / 1e9 / span;
		r->in_block_layer = (double)sum.queued_ns / 1e9 / span;
		r->max_depth = sum.max_depth;
		r->flushes = sum.requests[WC_CAT_FLUSH];
	}
	fd->nrows = g;
	flush_rates(fd);
	return 0;
}

static int curve(struct wc_figdata *fd, const struct wc_series *s,
		 double origin, struct wc_err *err)
{
	size_t n = wc_series_nbins(s), k = group_of(n, WC_FIG_CURVE_POINTS);
	uint64_t w = wc_series_bin_ns(s);
	size_t g;

	if (n == 0)
		return 0;
	fd->curve = calloc(groups(n, k), sizeof(*fd->curve));
	if (!fd->curve)
		return nomem(err);
	for (g = 0; g * k < n; g++) {
		struct wc_series_bin sum;
		size_t m = sum_bins(s, g * k, (g + 1) * k, &sum);
		uint64_t bytes = 0;
		int cat;

		for (cat = 0; cat < WC_NCAT; cat++)
			bytes += sum.bytes[cat];
		fd->curve[g].t = (origin + ((double)(g * k) + (double)m / 2) *
				  (double)w) / 1e9;
		fd->curve[g].mbps = (double)bytes / ((double)m * (double)w / 1e9) / 1e6;
	}
	fd->ncurve = g;
	return 0;
}

static int scatter(struct wc_figdata *fd, const struct wc_series *s,
		   double origin, struct wc_err *err)
{
	size_t c, r, nc = wc_series_nbins(s), nr = wc_series_nrows(s);
	uint64_t w = wc_series_bin_ns(s);

	fd->ncols = nc;
	fd->ncells_rows = nr;
	fd->row_sectors = wc_series_row_sectors(s);
	fd->scatter_top = (double)(nr ? nr : 1) * (double)fd->row_sectors;
	fd->scatter_requests = wc_series_scatter_requests(s);
	fd->points = wc_series_points(s);
	if (nc == 0)
		return 0;
	fd->col_t = calloc(nc, sizeof(*fd->col_t));
	fd->col_flush = calloc(nc, sizeof(*fd->col_flush));
	fd->cells = calloc(nc * (nr ? nr : 1), 1);
	fd->row_y = calloc(nr ? nr : 1, sizeof(*fd->row_y));
	if (!fd->col_t || !fd->col_flush || !fd->cells || !fd->row_y)
		return nomem(err);
	for (r = 0; r < nr; r++)
		fd->row_y[r] = ((double)r + 0.5) * (double)fd->row_sectors;
	for (c = 0; c < nc; c++) {
		struct wc_series_bin bin;

		wc_series_bin(s, c, &bin);
		fd->col_t[c] = (origin + ((double)c + 0.5) * (double)w) / 1e9;
		fd->col_flush[c] = bin.requests[WC_CAT_FLUSH] != 0;
		fd->any_flush |= fd->col_flush[c];
		fd->flushes += bin.requests[WC_CAT_FLUSH];
		fd->flush_ns += bin.flush_ns;
		for (r = 0; r < nr; r++) {
			fd->cells[c * nr + r] = (uint8_t)wc_series_cell(s, c, r);
			fd->present |= fd->cells[c * nr + r];
		}
	}
	return 0;
}

static int cdf(struct wc_figdata *fd, const struct wc_series *s,
	       struct wc_err *err)
{
	size_t first = WC_SERIES_LAT_BINS, last = 0, i;
	uint64_t cum[WC_NCAT] = { 0 };
	int k;

	for (k = 0; k < WC_NCAT; k++) {
		fd->lat_n[k] = wc_series_lat_n(s, (enum wc_cat)k);
		for (i = 0; i < WC_SERIES_LAT_BINS; i++) {
			if (!wc_series_lat_count(s, (enum wc_cat)k, i))
				continue;
			if (i < first)
				first = i;
			if (i > last)
				last = i;
		}
	}
	if (first > last)
		return 0;
	fd->cdf_first_ms = (double)wc_series_lat_lower(first) / 1e6;
	fd->cdf = calloc(last - first + 1, sizeof(*fd->cdf));
	if (!fd->cdf)
		return nomem(err);
	for (i = first; i <= last; i++) {
		struct wc_fig_cdf *row = &fd->cdf[fd->ncdf++];

		row->ms = (double)wc_series_lat_lower(i + 1) / 1e6;
		for (k = 0; k < WC_NCAT; k++) {
			cum[k] += wc_series_lat_count(s, (enum wc_cat)k, i);
			row->frac[k] = fd->lat_n[k] ?
				(double)cum[k] / (double)fd->lat_n[k] : NAN;
		}
	}
	return 0;
}

/* The start of heat column j, seconds from start_ns. */
static double heat_t(const struct wc_series *s, size_t j, uint64_t start_ns)
{
	uint64_t w = wc_series_heat_ns(s);

	return ((double)((wc_series_heat_first(s) + j) * w) - (double)start_ns) / 1e9;
}

/* The band of category k in column j, which holds n latencies. */
static void band_of(const struct wc_series *s, enum wc_cat k, size_t j,
		    uint64_t n, struct wc_fig_band *b)
{
	uint64_t cum = 0;
	size_t i = 0, p;

	b->n = n;
	for (p = 0; p < WC_FIG_NPCT; p++) {
		/* The rank'th fastest, counted from 1. */
		uint64_t rank = (wc_fig_pct[p] * n + 99) / 100;

		if (rank == 0)
			rank = 1;
		while (i < WC_SERIES_LAT_BINS &&
		       cum + wc_series_heat_lat(s, k, j, i) < rank)
			cum += wc_series_heat_lat(s, k, j, i++);
		b->pct[p] = (double)wc_series_lat_lower(i + 1) / 1e6;
	}
}

static int heat_latency(struct wc_figdata *fd, const struct wc_series *s,
			uint64_t start_ns, struct wc_err *err)
{
	size_t nc = wc_series_heat_ncols(s), j, i, ncells, nband;
	int k;

	if (nc) {
		fd->heat_from_s = heat_t(s, 0, start_ns);
		fd->heat_to_s = heat_t(s, nc, start_ns);
	}
	for (k = 0; k < WC_NCAT; k++) {
		ncells = nband = 0;
		for (j = 0; j < nc; j++) {
			bool any = false;

			for (i = 0; i < WC_SERIES_LAT_BINS; i++)
				if (wc_series_heat_lat(s, (enum wc_cat)k, j, i)) {
					ncells++;
					any = true;
				}
			nband += any;
		}
		if (!ncells)
			continue;
		fd->lat_cells[k] = calloc(ncells, sizeof(*fd->lat_cells[k]));
		fd->band[k] = calloc(nband, sizeof(*fd->band[k]));
		if (!fd->lat_cells[k] || !fd->band[k])
			return nomem(err);
		for (j = 0; j < nc; j++) {
			double t0 = heat_t(s, j, start_ns), t1 = heat_t(s, j + 1, start_ns);
			uint64_t n = 0;

			for (i = 0; i < WC_SERIES_LAT_BINS; i++) {
				uint32_t c = wc_series_heat_lat(s, (enum wc_cat)k, j, i);
				struct wc_fig_cell *cell;

				if (!c)
					continue;
				cell = &fd->lat_cells[k][fd->nlat_cells[k]++];
				cell->t0 = t0;
				cell->t1 = t1;
				cell->y0 = (double)wc_series_lat_lower(i) / 1e6;
				cell->y1 = (double)wc_series_lat_lower(i + 1) / 1e6;
				cell->n = c;
				if (c > fd->lat_max)
					fd->lat_max = c;
				if (fd->lat_lo[k] == 0 || cell->y0 < fd->lat_lo[k])
					fd->lat_lo[k] = cell->y0;
				if (cell->y1 > fd->lat_hi[k])
					fd->lat_hi[k] = cell->y1;
				n += c;
			}
			if (n) {
				struct wc_fig_band *b = &fd->band[k][fd->nband[k]++];

				b->t0 = t0;
				b->t1 = t1;
				band_of(s, (enum wc_cat)k, j, n, b);
			}
		}
	}
	return 0;
}

static int heat_sector(struct wc_figdata *fd, const struct wc_series *s,
		       uint64_t start_ns, struct wc_err *err)
{
	size_t nc = wc_series_heat_ncols(s), nr = wc_series_heat_nrows(s);
	uint64_t rs = wc_series_heat_row_sectors(s);
	size_t j, r, n = 0;

	fd->sec_top = (double)nr * (double)rs;
	for (j = 0; j < nc; j++)
		for (r = 0; r < nr; r++)
			n += wc_series_heat_sector(s, j, r) != 0;
	if (!n)
		return 0;
	fd->sec_cells = calloc(n, sizeof(*fd->sec_cells));
	if (!fd->sec_cells)
		return nomem(err);
	for (j = 0; j < nc; j++) {
		for (r = 0; r < nr; r++) {
			uint32_t c = wc_series_heat_sector(s, j, r);
			struct wc_fig_cell *cell;

			if (!c)
				continue;
			cell = &fd->sec_cells[fd->nsec_cells++];
			cell->t0 = heat_t(s, j, start_ns);
			cell->t1 = heat_t(s, j + 1, start_ns);
			cell->y0 = (double)r * (double)rs;
			cell->y1 = (double)(r + 1) * (double)rs;
			cell->n = c;
			if (c > fd->sec_max)
				fd->sec_max = c;
		}
	}
	return 0;
}

int wc_figdata_build(struct wc_figdata **out, const struct wc_series *s,
		     uint64_t start_ns, struct wc_err *err)
{
	struct wc_figdata *fd;
	double origin;

	*out = NULL;
	fd = calloc(1, sizeof(*fd));
	if (!fd)
		return nomem(err);
	if (start_ns == WC_NO_TIME)
		start_ns = wc_series_origin(s);
	if (wc_series_origin(s) == WC_NO_TIME)
		start_ns = 0;
	origin = (double)wc_series_origin(s) - (double)start_ns;
	fd->bin_s = (double)wc_series_bin_ns(s) / 1e9;
	fd->heat_s = (double)wc_series_heat_ns(s) / 1e9;
	if (wc_series_nbins(s))
		fd->end_s = (origin + (double)(wc_series_nbins(s) *
					       wc_series_bin_ns(s))) / 1e9;
	if (timeline(fd, s, origin, err) < 0 || curve(fd, s, origin, err) < 0 ||
	    scatter(fd, s, origin, err) < 0 || cdf(fd, s, err) < 0 ||
	    heat_latency(fd, s, start_ns, err) < 0 ||
	    heat_sector(fd, s, start_ns, err) < 0)
		goto fail_free;
	*out = fd;
	return 0;

fail_free:
	wc_figdata_free(fd);
	return -1;
}

void wc_figdata_free(struct wc_figdata *fd)
{
	int k;

	if (!fd)
		return;
	free(fd->rows);
	free(fd->curve);
	free(fd->col_t);
	free(fd->col_flush);
	free(fd->row_y);
	free(fd->cells);
	free(fd->cdf);
	for (k = 0; k < WC_NCAT; k++) {
		free(fd->lat_cells[k]);
		free(fd->band[k]);
	}
	free(fd->sec_cells);
	free(fd);
}
