/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * series.h - what happened over time on one device, in fixed memory, for
 * the figures of a bug-report bundle.
 *
 * A series consumes classified requests (struct wc_request from the
 * tracker, enum wc_cat from the classifier) and keeps:
 *
 *  - a timeline of WC_SERIES_BINS time bins: bytes and requests completed
 *    per category (throughput, IOPS, flushes per second), time spent in
 *    flush requests, time-weighted requests in flight at the driver (D to
 *    C) and in the block layer (Q to C), the deepest queue at an issue;
 *  - a sector-over-time scatter binned per pixel: WC_SERIES_BINS columns
 *    (the timeline's bins) by WC_SERIES_ROWS sector rows, one bit per
 *    category in each cell;
 *  - a D2C latency histogram per category with fixed logarithmic bins
 *    (WC_SERIES_LAT_PER_DECADE bins a decade from 1 us to 1000 s);
 *  - two heat maps on a coarser time axis of WC_SERIES_HEAT_COLS columns:
 *    per category, D2C latency (the histogram's bins) against completion
 *    time, and request counts by sector (WC_SERIES_HEAT_ROWS rows) against
 *    dispatch time, the scatter's requests counted instead of marked.
 *
 * Bins adapt instead of growing: when a request falls after the last time
 * bin (or above the last sector row) neighbouring bins are merged in pairs
 * and the bin width doubles, so memory is the same for a one-second trace
 * and a one-day trace.  Requests come in completion order, so one may have
 * been dispatched before the first request seen: the timeline then shifts
 * to start earlier by whole bins (merging first when there is no room).
 * Only a time that would make the timeline start before trace-clock 0 is
 * counted in bin 0 instead (and the part of an interval before the origin
 * is dropped): a trace clock starting near 0 costs at most one bin.
 * The heat maps' columns are aligned on trace-clock 0 instead (column j
 * covers [j * heat_ns, (j + 1) * heat_ns)): a request before the first
 * column moves the first column back by whole columns, and merging pairs
 * stays exact, so no count is ever clamped into a column it is not in.
 *
 * Usage:
 *
 *     struct wc_series *s = NULL;
 *     if (wc_series_open(&s, &err) < 0)
 *             goto fail;                   // out of memory
 *     while (... next request rq, its category cat ...)
 *             wc_series_add(s, &rq, cat);
 *     for (i = 0; i < wc_series_nbins(s); i++)
 *             wc_series_bin(s, i, &bin);   // plot bin
 *     wc_series_free(s);
 *
 * What always holds:
 *  - memory is fixed at open (about 1.4 MiB), whatever the trace's length;
 *  - bin i covers [origin + i * bin_ns, origin + (i + 1) * bin_ns);
 *  - a request counts in the throughput and IOPS of the bin holding its
 *    completion (C), as iostat counts it; its D2C and Q2C intervals are
 *    spread over the bins they overlap, to the nanosecond (so the sum of
 *    driver_ns over the bins is the sum of the D2C times);
 *  - a request without a sector (an empty flush) is not a point of the
 *    scatter: flushes are drawn from the timeline's flush counts;
 *  - a request the trace ended before completing (completed == false)
 *    counts only as a scatter point at its dispatch and in
 *    wc_series_incomplete();
 *  - wc_series_points() < wc_series_scatter_requests() says that points
 *    were merged: several requests of one category fell in one cell;
 *  - the latency heat map of a category holds wc_series_lat_n() requests,
 *    and the sector heat map wc_series_scatter_requests() (counts
 *    saturate at UINT32_MAX a cell);
 *  - the series owns nothing outside itself; wc_series_free(NULL) is fine.
 */
#ifndef WC_SERIES_H
#define WC_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "model/classify.h"
#include "format/request.h"
#include "base/wcerr.h"

/* The fuzz build sets smaller ones (GNUmakefile, FUZZ_LIMITS): the same
 * code then regrids and merges sooner instead of clearing 512 KiB a
 * series for every input. */
#ifndef WC_SERIES_BINS
#define WC_SERIES_BINS 1024          /* time bins = scatter columns */
#endif
#ifndef WC_SERIES_ROWS
#define WC_SERIES_ROWS 512           /* scatter sector rows */
#endif
#define WC_SERIES_FIRST_BIN_NS 1000u     /* 1 us until the trace is longer */
#define WC_SERIES_FIRST_ROW_SECTORS 8u   /* 4 KiB until the device is larger */
#define WC_SERIES_LAT_PER_DECADE 20
#define WC_SERIES_LAT_MIN_NS 1000u   /* lower edge of latency bin 0: 1 us */
#define WC_SERIES_LAT_BINS (9 * WC_SERIES_LAT_PER_DECADE)  /* to 1000 s */
/* Heat maps: a column is 8 timeline bins wide when both start at 1 us,
 * about 9 pixels of a 1200-pixel figure; the sector rows 4 scatter rows. */
#define WC_SERIES_HEAT_COLS (WC_SERIES_BINS / 8)
#define WC_SERIES_HEAT_ROWS (WC_SERIES_ROWS / 4)

struct wc_series;

/* One time bin, as wc_series_bin() fills it. */
struct wc_series_bin {
	uint64_t bytes[WC_NCAT];     /* bytes completed in the bin */
	uint64_t requests[WC_NCAT];  /* requests completed in the bin */
	uint64_t flush_ns;           /* D2C time of flush requests in the bin */
	uint64_t driver_ns;          /* sum over requests of D..C in the bin */
	uint64_t queued_ns;          /* sum over requests of Q..C in the bin */
	uint32_t max_depth;          /* deepest rq->depth dispatched in the bin */
};

/* Returns 0, or -1 with err set when memory runs out. */
int wc_series_open(struct wc_series **out, struct wc_err *err);

/* Accounts one request; rq is not kept.  Requests with neither a D nor a
 * C time are counted in wc_series_incomplete() and otherwise ignored. */
void wc_series_add(struct wc_series *s, const struct wc_request *rq,
		   enum wc_cat cat);

void wc_series_free(struct wc_series *s);

/* Timeline.  origin is WC_NO_TIME and nbins 0 until a request was added.
 * nbins counts bins from 0 through the last one anything fell in. */
uint64_t wc_series_origin(const struct wc_series *s);
uint64_t wc_series_bin_ns(const struct wc_series *s);
size_t wc_series_nbins(const struct wc_series *s);
void wc_series_bin(const struct wc_series *s, size_t i,
		   struct wc_series_bin *out);

/* Scatter.  Rows cover [row * row_sectors, (row + 1) * row_sectors);
 * nrows counts rows from 0 through the highest in use.  wc_series_cell()
 * returns the categories present in a cell as bits 1u << cat. */
uint64_t wc_series_row_sectors(const struct wc_series *s);
size_t wc_series_nrows(const struct wc_series *s);
unsigned wc_series_cell(const struct wc_series *s, size_t col, size_t row);
uint64_t wc_series_scatter_requests(const struct wc_series *s);
uint64_t wc_series_points(const struct wc_series *s);

/* Latency (D2C) histogram.  Bin i holds latencies in
 * [wc_series_lat_lower(i), wc_series_lat_lower(i + 1)); bin 0 also holds
 * everything faster and the last bin everything slower. */
uint64_t wc_series_lat_lower(size_t i);
uint64_t wc_series_lat_count(const struct wc_series *s, enum wc_cat cat,
			     size_t i);
uint64_t wc_series_lat_n(const struct wc_series *s, enum wc_cat cat);

/* Heat maps.  Column j covers trace-clock times [(heat_first + j) *
 * heat_ns, (heat_first + j + 1) * heat_ns); heat_ncols counts columns
 * from 0 through the last in use (0 until a request was added).  Sector
 * row r covers [r * heat_row_sectors, (r + 1) * heat_row_sectors).
 * wc_series_heat_lat() counts the requests of cat completed in column
 * col with a D2C latency in latency bin i (as wc_series_lat_count());
 * wc_series_heat_sector() the requests dispatched (else completed) in
 * column col at a sector in row row.  Out of range: 0. */
uint64_t wc_series_heat_ns(const struct wc_series *s);
uint64_t wc_series_heat_first(const struct wc_series *s);
size_t wc_series_heat_ncols(const struct wc_series *s);
uint64_t wc_series_heat_row_sectors(const struct wc_series *s);
size_t wc_series_heat_nrows(const struct wc_series *s);
uint32_t wc_series_heat_lat(const struct wc_series *s, enum wc_cat cat,
			    size_t col, size_t i);
uint32_t wc_series_heat_sector(const struct wc_series *s, size_t col,
			       size_t row);

/* Requests added, and of those the ones never completed. */
uint64_t wc_series_requests(const struct wc_series *s);
uint64_t wc_series_incomplete(const struct wc_series *s);

#endif /* WC_SERIES_H */
