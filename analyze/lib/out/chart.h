/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chart.h - the figures of the bundle as data: each figure's .dat file
 * and its variables, handed to plot.h as a script; per capture, from the
 * figure data of its main device (figdata.h) and its summary, and across
 * captures, from the summary (docs/bundle.md has the columns of every
 * .dat file).  It only formats: every number is the figure data's or the
 * summary's, chart.c chooses only axis ranges and sizes.
 *
 *     struct wc_chart_capture c[N] = { 0 };
 *     bool across[WC_NCMP];
 *
 *     for (each capture i) {             // while its series exist
 *             snprintf(c[i].dir, ...);   // its folder in d, made already
 *             wc_chart_capture(&c[i], &one->caps[0], series, p, d, &err);
 *     }
 *     wc_chart_across(c, s, across, p, d, &err);   // s: all the captures
 *     ... html.h shows them ...
 *     wc_chart_capture_clear(&c[i]) for each;
 *
 * What always holds:
 *  - a figure without data is not written and says why (c->why);
 *  - a capture keeps at most WC_CHART_CURVE_POINTS points of its series
 *    (its throughput curve, for the figure across captures);
 *  - c->height[k], when not 0, is figure k's height in place of
 *    wc_chart_info()'s (the latency heat map has a panel a category);
 *  - capture names reach the scripts only as single-quoted gnuplot
 *    strings (escape.h), and the .dat files only as folder names
 *    (outdir.h's safe names);
 *  - wc_chart_capture_clear() of a zeroed struct is fine.
 */
#ifndef WC_CHART_H
#define WC_CHART_H

#include <stdbool.h>
#include <stdint.h>

#include "compare/figdata.h"
#include "out/outdir.h"
#include "out/plot.h"
#include "compare/summary.h"
#include "base/wcerr.h"

/* A scatter of more points than this is a PNG only: an SVG of them takes
 * a browser many seconds to draw (a point is an element). */
#define WC_CHART_SVG_MAX_POINTS 50000
/* The widest figure across captures, whatever their number: more groups
 * make more panels, not wider ones. */
#define WC_CHART_MAX_WIDTH 1600
/* Points of a capture's curve in the overlaid throughput figure. */
#define WC_CHART_CURVE_POINTS WC_FIG_CURVE_POINTS

/* The figures of a capture, in the order index.html shows them. */
enum wc_chart {
	WC_CHART_SCATTER,
	WC_CHART_HEAT_SECTOR,
	WC_CHART_THROUGHPUT,
	WC_CHART_FLUSHES,
	WC_CHART_LATENCY,
	WC_CHART_HEAT_LATENCY,
	WC_CHART_QUEUE,
	WC_CHART_PHASES,
	WC_NCHARTS
};

/* The figures across captures, in the order index.html shows them. */
enum wc_cmp {
	WC_CMP_TIME,
	WC_CMP_PHASES,
	WC_CMP_THROUGHPUT,
	WC_CMP_CONFIGS,
	WC_NCMP
};

struct wc_chart_info {
	const char *name;       /* template and file name */
	const char *caption;
	int width, height;      /* as the template renders the PNG */
};

/* A figure of a capture. */
const struct wc_chart_info *wc_chart_info(enum wc_chart k);
/* A figure across the captures of s, its size: a bar a configuration
 * (group of runs), at most 12 bars a panel and a panel per disk, so at
 * most WC_CHART_MAX_WIDTH wide and taller with more panels; throughput
 * a panel a configuration, four a row. */
struct wc_chart_info wc_chart_cmp_info(enum wc_cmp k, const struct wc_summary *s);

struct wc_chart_capture {
	char dir[WC_OUTDIR_NAME_MAX + 16];  /* its folder in the bundle */
	bool drawn[WC_NCHARTS];             /* data and script written */
	const char *why[WC_NCHARTS];        /* why not, when not */
	bool svg[WC_NCHARTS];               /* the figure has an SVG */
	const char *nosvg[WC_NCHARTS];      /* why not, when not */
	int height[WC_NCHARTS];             /* 0: wc_chart_info()'s */
	uint64_t scatter_requests, points;
	struct wc_fig_point *curve;         /* total MB/s over time */
	size_t ncurve;
};

/* Writes the per-capture files of c (folder c->dir, made) from sc, the
 * capture's summary, and fd, the figure data of its main device (of an
 * empty series when it had no request). */
int wc_chart_capture(struct wc_chart_capture *c, const struct wc_sum_capture *sc,
		     const struct wc_figdata *fd, struct wc_plot *p,
		     struct wc_outdir *d, struct wc_err *err);

/* Writes the figures across the captures of s (c[i] is capture i):
 * time, phases and throughput when there are two captures or more, the
 * differences of each configuration (the mean of its runs, their
 * spread) when s has differences; drawn[k] says which were written. */
int wc_chart_across(const struct wc_chart_capture *c, const struct wc_summary *s,
		    bool drawn[WC_NCMP], struct wc_plot *p, struct wc_outdir *d,
		    struct wc_err *err);

void wc_chart_capture_clear(struct wc_chart_capture *c);

#endif /* WC_CHART_H */
