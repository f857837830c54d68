/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - writes a summary (summary.h) as text, JSON or CSV to a
 * FILE *.  The writers only format: every number comes from the summary
 * or, for figures it does not derive (latencies, seeks, btt), straight
 * from the analysis.
 *
 *     struct wc_summary *s = NULL;
 *     if (wc_summary_build(&s, caps, n, baseline, &err) < 0 ||
 *         wc_report_write(stdout, WC_FORMAT_TEXT, s, &err) < 0)
 *             report(&err);
 *     wc_summary_free(s);
 *
 * Formats:
 *  - text: plain ASCII (input text escaped), no line over 80 columns, to
 *    paste in a mail or a bug report; it opens with the findings;
 *  - text, one capture: configuration, one line per category (time,
 *    share of the window, requests, bytes), then positioning, latencies,
 *    seeks, queue depth, phases and process waits;
 *  - text, several captures: the findings, then a comparison table, one row per capture
 *    (fs, cache, barrier, wall, busy, flush, journal, metadata,
 *    positioning, data), or per group of runs (with n and the wall's
 *    standard deviation) when some configuration ran more than once;
 *    with a named baseline and no runs, a second table gives each figure
 *    as a ratio to the baseline's; with differences, a table of them
 *    (wall and its parts) per group and the noise verdicts; then, with
 *    WC_REPORT_RUNS, the per-run detail under one heading (every run's
 *    name as "#G.R", the differences per phase of every capture), or
 *    else one line saying that --runs shows it;
 *  - json: the stable schema of docs/json-format.md: findings, groups,
 *    captures; with a named baseline, a top-level "baseline" and per
 *    capture and phase a "ratio_to_baseline" object; with differences,
 *    a "difference" object per capture, phase and group;
 *  - csv: a header line, then per capture one row for the whole window
 *    (phase column "all") and one per phase; with a named baseline,
 *    seven ratio_* columns; with differences, group and diff_* columns
 *    (the 29 first columns never change).
 *
 * Ratios (text, JSON, CSV) are of wall, busy, flush, journal, metadata,
 * positioning and data time to the baseline's: a capture's to the
 * baseline capture's, a phase's to the baseline's first phase of the
 * same name.  A ratio is unknown (null, empty, "-") when the baseline's
 * value is 0, when either value is unknown (positioning without a media
 * rate), or when the baseline has no phase of that name.
 *
 * The functions only write; they fail (-1, err filled) on a write error.
 * Nothing is freed.
 */
#ifndef WC_REPORT_H
#define WC_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "compare/summary.h"
#include "base/wcerr.h"
#include "out/outformat.h"

/* How much of the text comparison: the findings, groups and differences
 * (brief), or those and every run's detail after them. */
enum wc_report_detail {
	WC_REPORT_BRIEF,
	WC_REPORT_RUNS,
};

/* Dispatches on fmt; text of one capture without a named baseline is the
 * single-capture report, otherwise the comparison. */
int wc_report_write(FILE *f, enum wc_format fmt, const struct wc_summary *s,
		    struct wc_err *err);
/* The same with the text comparison's detail chosen (JSON and CSV always
 * hold every run). */
int wc_report_write_detail(FILE *f, enum wc_format fmt,
			   const struct wc_summary *s,
			   enum wc_report_detail detail, struct wc_err *err);

/* The single-capture text report of capture i (findings of the summary
 * first). */
int wc_report_text(FILE *f, const struct wc_summary *s, size_t i,
		   struct wc_err *err);
/* The comparison: findings, the table, ratios and differences (brief). */
int wc_report_compare(FILE *f, const struct wc_summary *s, struct wc_err *err);
int wc_report_compare_detail(FILE *f, const struct wc_summary *s,
			     enum wc_report_detail detail, struct wc_err *err);
int wc_report_json(FILE *f, const struct wc_summary *s, struct wc_err *err);
int wc_report_csv(FILE *f, const struct wc_summary *s, struct wc_err *err);

#endif /* WC_REPORT_H */
