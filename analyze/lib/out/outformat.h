/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outformat.h - which format a writer writes: text, JSON or CSV.  The
 * report (report.h) and the interval table (intervaltab.h) each write
 * all three; the command line names one with --format.
 */
#ifndef WC_OUTFORMAT_H
#define WC_OUTFORMAT_H

enum wc_format {
	WC_FORMAT_TEXT,
	WC_FORMAT_JSON,
	WC_FORMAT_CSV,
};

/* "text", "json", "csv" -> 0 and *fmt; anything else -> -1. */
int wc_format_parse(const char *s, enum wc_format *fmt);

#endif /* WC_OUTFORMAT_H */
