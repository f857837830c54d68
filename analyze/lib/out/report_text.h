/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_text.h - a summary (summary.h) as text to a FILE *: plain ASCII
 * (input text escaped), no line over 80 columns, to paste in a mail or
 * a bug report; it opens with the findings.  The writer only formats:
 * every number comes from the summary or, for figures it does not
 * derive (latencies, seeks, btt), straight from the analysis.
 *
 *  - one capture: configuration, one line per category (time, share of
 *    the window, requests, bytes), then positioning, latencies, seeks,
 *    queue depth, phases and process waits;
 *  - several captures: the findings, then a comparison table, one row
 *    per capture (fs, cache, barrier, wall, busy, flush, journal,
 *    metadata, positioning, data), or per group of runs (with n and the
 *    wall's standard deviation) when some configuration ran more than
 *    once; with a named baseline and no runs, a second table gives each
 *    figure as a ratio to the baseline's (report.h says which); with
 *    differences, a table of them (wall and its parts) per group and the
 *    noise verdicts; then, with WC_REPORT_RUNS, the per-run detail under
 *    one heading (every run's name as "#G.R", the differences per phase
 *    of every capture), or else one line saying that --runs shows it.
 *
 * The functions only write; they fail (-1, err filled) on a write error.
 * Nothing is freed.
 */
#ifndef WC_REPORT_TEXT_H
#define WC_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "compare/summary.h"
#include "base/wcerr.h"

/* How much of the text comparison: the findings, groups and differences
 * (brief), or those and every run's detail after them. */
enum wc_report_detail {
	WC_REPORT_BRIEF,
	WC_REPORT_RUNS,
};

/* The single-capture text report of capture i (findings of the summary
 * first): any i of a summary that keeps its rows, else the first (0). */
int wc_report_text(FILE *f, const struct wc_summary *s, size_t i,
		   struct wc_err *err);
/* The comparison: findings, the table, ratios and differences (brief). */
int wc_report_compare(FILE *f, const struct wc_summary *s, struct wc_err *err);
int wc_report_compare_detail(FILE *f, const struct wc_summary *s,
			     enum wc_report_detail detail, struct wc_err *err);

#endif /* WC_REPORT_TEXT_H */
