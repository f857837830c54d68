/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numfmt.h - numbers as people read them: byte counts, durations and
 * exact signed seconds, one way for every writer and every finding.
 *
 *     char b[WC_NUMFMT_SIZE];
 *     fprintf(f, "%s ms", wc_fmt_ms(ns, b, sizeof(b)));
 *
 * Each function writes into the caller's buffer (snprintf: truncated,
 * never overrun, at WC_NUMFMT_SIZE nothing is cut) and returns it.
 */
#ifndef WC_NUMFMT_H
#define WC_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Holds any of the strings below whole. */
#define WC_NUMFMT_SIZE 32

/* Bytes in binary units, at most 10 characters: "512 B", "1.5 MiB". */
const char *wc_fmt_bytes(uint64_t b, char *buf, size_t size);
/* A duration in ms, 3 significant-ish digits: "0.125", "12.5", "1250". */
const char *wc_fmt_ms(uint64_t ns, char *buf, size_t size);
/* Seconds (v >= 0) in at most 6 characters: "0.125", "12.50", "1250". */
const char *wc_fmt_s6(double v, char *buf, size_t size);
/* Signed ns as seconds, exact: "-1.000000001".  The parts of a
 * difference, printed so, still sum to its whole to the last digit. */
const char *wc_fmt_sns(int64_t ns, char *buf, size_t size);

#endif /* WC_NUMFMT_H */
