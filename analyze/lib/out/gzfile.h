/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gzfile.h - a FILE that writes gzip: what is written to it is
 * compressed (zlib's deflate) into another FILE, so that a writer that
 * knows only FILE (traceevent.h) writes a .gz file as it goes.
 *
 *     FILE *gz = wc_gzfile_open(f, &err);   // f: not owned, stays open
 *     if (!gz)
 *             goto fail;                     // out of memory
 *     fprintf(gz, ...);                      // any stdio output
 *     if (wc_gzfile_close(gz, &err) < 0)    // ends the stream into f
 *             report(&err);                  // f's or zlib's failure
 *     ... then f is the caller's to close (outdir.h: commit it) ...
 *
 * What always holds:
 *  - the output is one gzip member (RFC 1952) without a name and with
 *    mtime 0, written to f only as deflate fills its buffer and at the
 *    end (never a flush point in between: fflush(gz) does not cut the
 *    stream), so the same input gives the same bytes and any gunzip,
 *    Perfetto or chrome://tracing reads it whole;
 *  - memory is zlib's state and a buffer, fixed, whatever is written;
 *  - once a write to f fails every later write to gz fails (ferror(gz))
 *    and wc_gzfile_close() says so; the bytes in f are then not a whole
 *    stream;
 *  - wc_gzfile_close() always frees gz; wc_gzfile_close(NULL, ...) is
 *    fine and returns 0.  A plain fclose(gz) does the same without the
 *    error's text.
 */
#ifndef WC_GZFILE_H
#define WC_GZFILE_H

#include <stdio.h>

#include "base/wcerr.h"

FILE *wc_gzfile_open(FILE *f, struct wc_err *err);

/* Ends the stream into f and frees gz; -1 with err when writing failed. */
int wc_gzfile_close(FILE *gz, struct wc_err *err);

#endif /* WC_GZFILE_H */
