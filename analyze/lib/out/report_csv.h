/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_csv.h - a summary (summary.h) as CSV to a FILE *: a header
 * line, then per capture one row for the whole window (phase column
 * "all") and one per phase; with a named baseline, seven ratio_* columns
 * (report.h says which); with differences, group and diff_* columns (the
 * 29 first columns never change).  It always holds every run.  The
 * writer only formats; text from the input is escaped.
 *
 * It only writes; it fails (-1, err filled) on a write error.  Nothing
 * is freed.
 */
#ifndef WC_REPORT_CSV_H
#define WC_REPORT_CSV_H

#include <stdio.h>

#include "compare/summary.h"
#include "base/wcerr.h"

int wc_report_csv(FILE *f, const struct wc_summary *s, struct wc_err *err);

#endif /* WC_REPORT_CSV_H */
