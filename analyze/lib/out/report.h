/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - writes a summary (summary.h) as text, JSON or CSV to a
 * FILE *, one writer per format: report_text.h, report_json.h and
 * report_csv.h say what each holds.  The writers only format: every
 * number comes from the summary or, for figures it does not derive
 * (latencies, seeks, btt), straight from the analysis.
 *
 *     struct wc_summary *s = NULL;
 *     if (wc_summary_build(&s, caps, n, baseline, &err) < 0 ||
 *         wc_report_write(stdout, WC_FORMAT_TEXT, s, &err) < 0)
 *             report(&err);
 *     wc_summary_free(s);
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

#include <stdio.h>

#include "compare/summary.h"
#include "base/wcerr.h"
#include "out/outformat.h"
#include "out/report_csv.h"
#include "out/report_json.h"
#include "out/report_text.h"

/* Dispatches on fmt; text of one capture without a named baseline is the
 * single-capture report, otherwise the comparison. */
int wc_report_write(FILE *f, enum wc_format fmt, const struct wc_summary *s,
		    struct wc_err *err);
/* The same with the text comparison's detail chosen (JSON and CSV always
 * hold every run). */
int wc_report_write_detail(FILE *f, enum wc_format fmt,
			   const struct wc_summary *s,
			   enum wc_report_detail detail, struct wc_err *err);

#endif /* WC_REPORT_H */
