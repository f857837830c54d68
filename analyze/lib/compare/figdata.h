/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * figdata.h - the numbers of a capture's figures, derived from the series
 * of its main device (series.h): the timeline's rates, the throughput
 * curve, the scatter's cells, the latency CDF, and the heat maps with
 * their percentile bands.  chart.h only formats them (docs/bundle.md has
 * the files and their columns).
 *
 *     struct wc_figdata *fd = NULL;
 *
 *     if (wc_figdata_build(&fd, series, start_ns, &err) < 0)
 *             goto fail;                    // out of memory
 *     for (i = 0; i < fd->nrows; i++)
 *             print fd->rows[i];            // one timeline.dat line
 *     ...
 *     wc_figdata_free(fd);
 *
 * Times are seconds from start_ns (the capture's first event, the time
 * axis of every figure), latencies milliseconds, sectors 512-byte units.
 *
 * The method:
 *  - the timeline: the series' bins merged in groups of k, so that there
 *    are at most WC_FIG_TIMELINE_POINTS rows (a rate from a 5-microsecond
 *    bin is noise, not throughput); a rate is what completed in the group
 *    over the group's span, but the flush rate: that is over the row's
 *    flush bin, runs of rows of near-equal length, each at least a second
 *    and at least the span over the flushes (the shortest: flush_bin_s),
 *    so that a handful of flushes draws no spike;
 *  - the curve: the same with at most WC_FIG_CURVE_POINTS points, total
 *    MB/s only, for the figure across captures;
 *  - the latency CDF: per category, the fraction of its D2C latencies at
 *    most the top of each histogram bin, from the first bin in use of
 *    any category to the last;
 *  - the heat maps (series.h's heat columns): the cells that hold any
 *    request, each with its count; per category and column that holds
 *    any, the band: p50, p90 and p99 of its D2C latencies, each the top
 *    of the histogram bin that holds the request of that rank (the
 *    ceil(p * n / 100)-th fastest), so the true percentile lies in
 *    [top / 10^(1/WC_SERIES_LAT_PER_DECADE), top).  A CDF of a whole
 *    capture draws flushes that are fast while the cache is empty and
 *    slow once it destages as one smooth curve; the band over time draws
 *    them as two levels.
 *
 * What always holds:
 *  - memory is bounded by the bins, never by the trace's length: at most
 *    WC_SERIES_BINS columns by WC_SERIES_ROWS rows of scatter cells,
 *    WC_SERIES_HEAT_COLS by WC_SERIES_LAT_BINS latency cells a category,
 *    WC_SERIES_HEAT_COLS by WC_SERIES_HEAT_ROWS sector cells;
 *  - the counts of the latency heat map of a category sum to lat_n[cat],
 *    those of the sector heat map to the scatter's requests (unless a
 *    cell saturated at UINT32_MAX);
 *  - the figure data holds no pointer into the series: the series may be
 *    freed first; wc_figdata_free(NULL) is fine.
 */
#ifndef WC_FIGDATA_H
#define WC_FIGDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/classify.h"
#include "model/series.h"
#include "base/wcerr.h"

#define WC_FIG_TIMELINE_POINTS 300
/* Enough for a 1200-pixel figure, few enough to keep per capture. */
#define WC_FIG_CURVE_POINTS 400
/* The percentiles of a heat map's band. */
#define WC_FIG_NPCT 3

/* A row of the timeline: a group of the series' bins. */
struct wc_fig_row {
	double start_s, mid_s, span_s;
	double mbps[WC_NCAT], iops[WC_NCAT];   /* completed in the group */
	double flush_rate;                     /* flushes a second, over
	                                        * its flush bin */
	double flush_cum_s;                    /* flush time up to its end */
	double at_driver, in_block_layer;      /* mean requests in flight */
	uint32_t max_depth;
	uint64_t flushes;
	double mbps_total, iops_total;
};

struct wc_fig_point {
	double t, mbps;
};

/* A row of the latency CDF; frac[k] is NaN for a category without any
 * latency. */
struct wc_fig_cdf {
	double ms;                             /* the top of the bin */
	double frac[WC_NCAT];
};

/* A cell of a heat map: x from t0 to t1 (s), y from y0 to y1 (ms for
 * latency, sectors for the sector map). */
struct wc_fig_cell {
	double t0, t1, y0, y1;
	uint32_t n;
};

/* A heat column's percentiles: pct[i] is the top, in ms, of the bin
 * holding percentile wc_fig_pct[i]. */
struct wc_fig_band {
	double t0, t1;
	uint64_t n;
	double pct[WC_FIG_NPCT];
};

extern const unsigned wc_fig_pct[WC_FIG_NPCT];   /* 50, 90, 99 */

struct wc_figdata {
	/* the whole capture */
	uint64_t flushes, flush_ns;           /* completed flushes, D2C time */
	double end_s;                         /* end of the last bin; 0: none */
	double bin_s;                         /* the series' bin width */

	/* timeline.dat */
	double row_s, row_ms;                 /* a row's span */
	double flush_bin_s;                   /* the shortest flush bin */
	struct wc_fig_row *rows;
	size_t nrows;

	/* the throughput curve across captures */
	struct wc_fig_point *curve;
	size_t ncurve;

	/* the scatter: ncols columns of nrows cells, cell (c, r) centred on
	 * col_t[c] and (r + 0.5) * row_sectors, bits 1u << category */
	size_t ncols, ncells_rows;
	double *col_t;
	bool *col_flush;                      /* a flush completed in it */
	double *row_y;                        /* a row's centre, sectors */
	uint8_t *cells;                       /* [c * ncells_rows + r] */
	uint64_t row_sectors;
	double scatter_top;                   /* top of the rows (at least one) */
	unsigned present;                     /* categories in any cell */
	bool any_flush;
	uint64_t scatter_requests, points;

	/* the latency CDF */
	uint64_t lat_n[WC_NCAT];
	double cdf_first_ms;                  /* where every curve starts */
	struct wc_fig_cdf *cdf;
	size_t ncdf;

	/* the heat maps */
	double heat_s;                        /* a column's width */
	double heat_from_s, heat_to_s;        /* the columns' span (0 0: none) */
	struct wc_fig_cell *lat_cells[WC_NCAT];
	size_t nlat_cells[WC_NCAT];
	double lat_lo[WC_NCAT], lat_hi[WC_NCAT];   /* its cells' span, ms */
	uint32_t lat_max;                     /* the largest cell count */
	struct wc_fig_band *band[WC_NCAT];
	size_t nband[WC_NCAT];
	struct wc_fig_cell *sec_cells;
	size_t nsec_cells;
	uint32_t sec_max;
	double sec_top;                       /* top of the highest row */
};

/* Builds the figure data of series s on a time axis starting at start_ns
 * (WC_NO_TIME: at the series' origin; ignored when s holds no request).
 * Returns 0, or -1 with err set when memory runs out. */
int wc_figdata_build(struct wc_figdata **out, const struct wc_series *s,
		     uint64_t start_ns, struct wc_err *err);

void wc_figdata_free(struct wc_figdata *fd);

#endif /* WC_FIGDATA_H */
