/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_json.h - a summary (summary.h) as JSON to a FILE *, in the
 * stable schema of docs/json-format.md: findings, groups, captures; with
 * a named baseline, a top-level "baseline" and per capture and phase a
 * "ratio_to_baseline" object (report.h says which ratios); with
 * differences, a "difference" object per capture, phase and group.  It
 * always holds every run.  The writer only formats; text from the input
 * is escaped.
 *
 * It only writes; it fails (-1, err filled) on a write error.  Nothing
 * is freed.
 */
#ifndef WC_REPORT_JSON_H
#define WC_REPORT_JSON_H

#include <stdio.h>

#include "compare/summary.h"
#include "base/wcerr.h"

int wc_report_json(FILE *f, const struct wc_summary *s, struct wc_err *err);

#endif /* WC_REPORT_JSON_H */
