/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html.h - the bundle's index.html: the summary's findings, tables and
 * differences, the figures chart.h wrote, and the text report, in one
 * static page without scripts (bundle.h, docs/bundle.md).
 *
 *     struct wc_html_page pg = {
 *             .sum = s, .charts = c, .across = across,
 *             .plot = p, .report = text_of_report_txt,
 *     };
 *     if (wc_html_write(f, &pg, &err) < 0)
 *             goto fail;
 *
 * What always holds:
 *  - every string of the input (capture, file system and process names,
 *    the report's text) goes through wc_escape_html(); the folder names
 *    in links are outdir.h's safe names;
 *  - an image is linked even when gnuplot did not run: render.sh then
 *    makes the page whole without writing it again;
 *  - it only formats: every number is the summary's.
 */
#ifndef WC_HTML_H
#define WC_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "out/chart.h"
#include "out/plot.h"
#include "compare/summary.h"
#include "model/traceevent.h"
#include "base/wcerr.h"

struct wc_html_page {
	const struct wc_summary *sum;
	const struct wc_chart_capture *charts;  /* one per capture of sum */
	const uint64_t *ignored;        /* per capture: requests on devices
	                                 * past WC_SERIES_MAX_DEVICES */
	const bool *timeline;           /* per capture: CAPTURE/timeline.json.gz
	                                 * written (NULL: none) */
	const struct wc_traceevent_stats *timeline_stats;  /* per capture
	                                 * with a timeline: what it holds
	                                 * (NULL: every request) */
	const bool *page;               /* per capture: its figures and folder
	                                 * are in the bundle (NULL: every
	                                 * capture's; bundle.h) */
	const bool *across;             /* [WC_NCMP], from wc_chart_across() */
	const struct wc_plot *plot;     /* colours, and whether it rendered */
	const char *report;             /* report.txt's text */
};

/* Writes the page to f; an error only when f failed. */
int wc_html_write(FILE *f, const struct wc_html_page *pg, struct wc_err *err);

#endif /* WC_HTML_H */
