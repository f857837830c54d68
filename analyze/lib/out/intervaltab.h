/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * intervaltab.h - writes the interval table (interval.h) as text, JSON
 * or CSV while the analysis streams its rows: the writer only formats
 * the rows' figures, and holds nothing but the table's own state.
 *
 *     struct wc_intervaltab *t = NULL;
 *     if (wc_intervaltab_open(&t, stdout, WC_FORMAT_TEXT, len, &err) < 0) ...
 *     o.interval_ns = len;
 *     o.interval = wc_intervaltab_sink(t);    // analysis.h drives it
 *     wc_analysis_read(&a, path, &o, &err);    // one capture or more
 *     if (wc_intervaltab_close(t, &err) < 0)  // the tail; f's errors
 *             report(&err);
 *     wc_intervaltab_free(t);
 *
 * Formats (docs/wcanalyze.1, --interval):
 *  - text: per capture a heading (its name, the interval, what a row
 *    counts, the note on %util), then a line a row: the start in
 *    seconds from the capture's first event, the device (capture.conf's
 *    name, else MAJ,MIN), r/s, w/s, f/s, d/s, rMB/s, wMB/s, dMB/s,
 *    r_await, w_await, f_await, d_await (ms), aqu-sz, %util;
 *  - json: {"interval_s": S, "captures": [{"name": ..., "rows": [...],
 *    "rows_not_written": N}, ...]}, a row an object of every figure of
 *    struct wc_interval_row (docs/json-format.md);
 *  - csv: a header line, then a line a row with the capture's name.
 * Every name (capture, device) goes through escape.h for where it is
 * written.  f is not owned; wc_intervaltab_free(NULL) is fine.
 */
#ifndef WC_INTERVALTAB_H
#define WC_INTERVALTAB_H

#include <stdio.h>

#include "model/interval.h"
#include "out/outformat.h"
#include "base/wcerr.h"

struct wc_intervaltab;

/* Writes the table's head (the JSON object's, the CSV header); len_ns
 * is the intervals' length the analysis is given. */
int wc_intervaltab_open(struct wc_intervaltab **out, FILE *f,
			enum wc_format fmt, uint64_t len_ns,
			struct wc_err *err);
/* The sink to give the analysis (valid until wc_intervaltab_free()). */
const struct wc_interval_sink *wc_intervaltab_sink(struct wc_intervaltab *t);
/* Writes the tail; -1 with err when anything written to f failed. */
int wc_intervaltab_close(struct wc_intervaltab *t, struct wc_err *err);
void wc_intervaltab_free(struct wc_intervaltab *t);

#endif /* WC_INTERVALTAB_H */
