/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h - what the fuzz targets in tests/fuzz/ share.
 *
 * Each target (fuzz_trace.c, fuzz_archive.c, fuzz_bundle.c) defines
 * LLVMFuzzerTestOneInput().  It is linked two ways:
 *  - with clang's libFuzzer ("make fuzz"), which calls it with generated
 *    inputs;
 *  - with replay.c and any compiler ("make check"), which calls it with
 *    every file of the seed corpora and of tests/fuzz/crashers/, so an
 *    input that once failed stays a test without clang.
 *
 * A target fails by calling fuzz_fail(), which prints what is wrong and
 * aborts: libFuzzer saves the input, replay exits non-zero.  The checks
 * are what the project promises about output made from hostile input:
 *  - fuzz_check_json: well-formed JSON (RFC 8259), valid UTF-8, no raw
 *    control characters in strings, no NaN or infinity;
 *  - fuzz_check_ascii: the text report is printable ASCII and newlines
 *    (report_text.h promises plain ASCII);
 *  - fuzz_check_terminal (the bundle's other files; --dump only with
 *    WCFUZZ_DUMP_TERMINAL set, since it prints names raw as blkparse
 *    does): nothing a terminal would act on: no C0 control byte but
 *    newline and tab, no DEL, no C1 control (U+0080..U+009F, or a lone
 *    byte 0x80..0x9f outside valid UTF-8).  Warnings and error messages
 *    are not checked here: main() escapes them (wc_escape_text), t46
 *    tests that;
 *  - fuzz_check_csv: every row has as many fields as the header, quotes
 *    balanced;
 *  - fuzz_check_gnuplot: a script gnuplot cannot be made to run a
 *    command or expand a macro from: no backquote outside single-quoted
 *    strings, no '@' or "system" outside strings, no string left open.
 *
 * fuzz_dump() also dumps again with two handles and nothing read into
 * memory (streams closed and resumed, name scouts in passes), and fails
 * when a line differs.
 *
 * WCFUZZ_SKIP (words: dump dump-handles text json csv gnuplot html)
 * turns checks of the reports and the bundle off while a defect they
 * found is being fixed, so that fuzzing can look past it; never set it
 * in make check.
 *
 * Scratch files live in one folder per process (fuzz_scratch()), under
 * $TMPDIR or /tmp, emptied by fuzz_reset() before each input and removed
 * at exit.
 */
#ifndef WC_FUZZ_H
#define WC_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void fuzz_fail(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* True when WCFUZZ_SKIP names check. */
bool fuzz_skipped(const char *check);

void fuzz_check_json(const char *what, const char *s, size_t n);
void fuzz_check_ascii(const char *what, const char *s, size_t n);
void fuzz_check_terminal(const char *what, const char *s, size_t n);
void fuzz_check_csv(const char *what, const char *s, size_t n);
void fuzz_check_gnuplot(const char *what, const char *s, size_t n);

/* The per-process scratch folder (created on first use). */
const char *fuzz_scratch(void);
/* Empties the scratch folder. */
void fuzz_reset(void);
/* path = scratch/rel; returns path (a static buffer per call site is the
 * caller's: buf must hold PATH_MAX). */
char *fuzz_path(char *buf, size_t size, const char *rel);
/* Writes data to scratch/rel (creating folders on the way). */
void fuzz_write(const char *rel, const void *data, size_t n);
/* Appends data to scratch/rel. */
void fuzz_append(const char *rel, const void *data, size_t n);
/* Reads a whole file into a malloc'd buffer (NUL added); NULL if absent. */
char *fuzz_read(const char *path, size_t *n);

/* Every report of caps[0..n): text (each, and the comparison), JSON and
 * CSV, without and with a baseline, each checked as above. */
void fuzz_reports(struct wc_analysis *const *caps, size_t n);
/* Every event of the input at path as --dump prints it, checked as
 * terminal text; returns the number of events. */
size_t fuzz_dump(const char *path);

/* Splits data at each occurrence of sep; calls fn for each part. */
void fuzz_split(const uint8_t *data, size_t size, const char *sep,
		void (*fn)(void *ctx, size_t i, const uint8_t *p, size_t n),
		void *ctx);

/* The capture folder of fuzz_interval, fuzz_timeline and fuzz_whatif:
 * the input cut at each FUZZ_SEP into the options (lines "KEY VALUE",
 * into opts, cut at optsize - 1), lines added to capture.conf (after
 * "format_version = 1" and "name = cap"), phases.tsv, then the trace
 * files cap/trace/d.blktrace.0, .1, ... (at most FUZZ_CAPTURE_STREAMS).
 * The folder is fuzz_path()'s "cap". */
#define FUZZ_SEP "\nWCFUZZ\n"
#define FUZZ_CAPTURE_STREAMS 8
void fuzz_capture(const uint8_t *data, size_t size, char *opts,
		  size_t optsize);
/* The value of the first line "KEY VALUE" of opts, into value. */
bool fuzz_option(const char *opts, const char *key, char *value, size_t size);
/* The filters opts names ("window", "phase", "device", "process", as
 * wcanalyze parses them; a value it refuses leaves that filter out). */
struct wc_filter;
void fuzz_filters(const char *opts, struct wc_filter *f);

#endif /* WC_FUZZ_H */
