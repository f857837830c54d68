/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outformat.h - which format a writer writes: text, JSON or CSV.  The
 * report (report.h) and the interval table (intervaltab.h) each write
 * all three; the command line names one with --format.  Every writer
 * ends with wc_format_finish(), so that a full disk is an error, never
 * a short report.
 */
#ifndef WC_OUTFORMAT_H
#define WC_OUTFORMAT_H

#include <stdio.h>

#include "base/wcerr.h"

enum wc_format {
	WC_FORMAT_TEXT,
	WC_FORMAT_JSON,
	WC_FORMAT_CSV,
};

/* "text", "json", "csv" -> 0 and *fmt; anything else -> -1. */
int wc_format_parse(const char *s, enum wc_format *fmt);

/* Flushes f: 0, or -1 and err filled ("write error: ...") when f could
 * not be written whole. */
int wc_format_finish(FILE *f, struct wc_err *err);

#endif /* WC_OUTFORMAT_H */
