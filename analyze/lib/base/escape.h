/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * escape.h - makes a string that came from an input (a capture's name,
 * a phase, a device, a process, an archive member) safe for the place it
 * is written to.  Every such string goes through one of these on its way
 * out; nothing else in the library writes input text raw.
 *
 *     char buf[WC_ESCAPE_SIZE(sizeof(meta->name))];
 *     fprintf(f, "capture %s\n", wc_escape_text(meta->name, buf, sizeof(buf)));
 *     wc_escape_json(f, meta->name);        // "..." with the quotes
 *     wc_escape_gnuplot(f, meta->name);     // '...' with the quotes
 *
 * The places and what each guarantees:
 *  - text (terminal, report.txt, error messages, CSV): printable ASCII
 *    only.  Every other byte is written as \ooo (three octal digits, as
 *    ls -b does) and a backslash as \\, so the escaped form is never
 *    ambiguous and no control character (ESC, CR, BEL, a C1 byte of a
 *    Latin-1 terminal) reaches a terminal.  Non-ASCII UTF-8 is escaped
 *    too: the text report promises plain ASCII in 80 columns.
 *  - JSON: a double-quoted JSON string that is valid UTF-8 whatever the
 *    input: valid UTF-8 is kept, each byte of an invalid sequence becomes
 *    \ufffd, control characters (and DEL, U+2028, U+2029) become \u00XX
 *    or \u20XX, '"' and '\' are escaped.
 *  - JSON bytes: every byte kept (wc_escape_json_bytes()), for what is
 *    read back, never for what people read.
 *  - HTML: text or attribute value (between double quotes): & < > " '
 *    as entities; invalid UTF-8 bytes, control characters other than
 *    newline and tab, and bidirectional-override characters as U+FFFD.
 *  - gnuplot: a single-quoted string literal, the only gnuplot literal in
 *    which backquotes (`cmd`: gnuplot runs cmd through the shell, even
 *    inside double quotes) and macros (@name) are not expanded.  A quote
 *    is doubled (''), which is how gnuplot writes a quote there; a
 *    newline or any other control character, invalid UTF-8 or a
 *    bidirectional override is written as \ooo like text, a backslash as
 *    \\ (both literal in single quotes).  The literal is always one line.
 *  - CSV: one field: the text escape, then RFC 4180 quoting when the
 *    escaped field holds a comma or a double quote.
 *
 * NULL input is written as the empty string.  Nothing is allocated; the
 * FILE functions only write (check ferror() on the stream as usual).
 */
#ifndef WC_ESCAPE_H
#define WC_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Room for the text escape of a string of at most n - 1 bytes (every byte
 * may become four), with its terminating NUL. */
#define WC_ESCAPE_SIZE(n) (4 * (n) + 1)

/* Writes the text escape of s into buf (size > 0), NUL-terminated.  When
 * it does not fit, it is cut before the first escape that does not fit
 * whole (never inside a \ooo).  Returns buf. */
char *wc_escape_text(const char *s, char *buf, size_t size);

/* The text escape of s, written to f (no limit on length). */
void wc_escape_text_put(FILE *f, const char *s);

/* The JSON string literal of s, quotes included. */
void wc_escape_json(FILE *f, const char *s);

/* The JSON string literal of s that keeps every byte, quotes included:
 * printable ASCII as is ('"' and '\\' escaped), every other byte B as
 * \u00BB, whatever the bytes (invalid UTF-8 too).  Plain ASCII, so safe
 * wherever JSON goes; json.h's wc_json_string() gives the bytes back.
 * For the raw record a comparison reads back (capsule.h): a name must
 * come back as it was to group and compare as the capture did. */
void wc_escape_json_bytes(FILE *f, const char *s);

/* s as HTML text or attribute content (the caller writes the quotes of
 * an attribute). */
void wc_escape_html(FILE *f, const char *s);

/* The gnuplot single-quoted literal of s, quotes included. */
void wc_escape_gnuplot(FILE *f, const char *s);

/* s as one CSV field. */
void wc_escape_csv(FILE *f, const char *s);

#endif /* WC_ESCAPE_H */
