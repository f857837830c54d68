/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h - the statistics the summary and its findings share: a
 * measure's mean, spread and range over runs, and Welch's t-test of one
 * group against its baseline with an equivalence bound (summary.h,
 * docs/methodology.md "Verdicts"); and the units their figures are kept
 * in.  Internal to compare/: summary.c, findings.c and stats.c include
 * it, callers read the results in struct wc_summary.
 *
 * What always holds: the functions only compute, from their arguments
 * alone; a value below 0 is "no value" and is left out of a statistic;
 * an empty statistic has n 0 and mean, min and max -1.
 */
#ifndef WC_STATS_H
#define WC_STATS_H

#include "compare/summary.h"

#include <stddef.h>
#include <stdint.h>

/* The statistic of v[0..n), the values below 0 left out. */
void wc_stat_of(struct wc_stat *st, const double *v, size_t n);

/* Welch's t-test of measure a against the baseline's b, with the
 * equivalence bound x, into t (all of it set). */
void wc_test_of(struct wc_test *t, const struct wc_stat *a,
		const struct wc_stat *b, double x);

static inline double ssecs(int64_t ns)
{
	return (double)ns / 1e9;
}

/* part of whole in %, 0 of nothing. */
static inline double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

#endif
