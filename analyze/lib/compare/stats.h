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

/* A statistic kept one run at a time, so that a group's figures need
 * none of its runs once they are added (docs/methodology.md, "Runs"):
 * the count, the sum (the mean is sum / n), the sum and the sum of
 * squares of each value less the first (the spread about the first
 * value: runs that never vary give a spread of exactly 0, and runs far
 * from 0 that vary little lose no digits to cancellation), the lowest
 * and the highest.  Zeroed, it holds no run. */
struct wc_acc {
	size_t n;
	double first, sum, dsum, dss, min, max;
};

/* Adds a run's value v; below 0 (unknown) it is left out. */
void wc_acc_add(struct wc_acc *a, double v);

/* The statistic of the runs added to a. */
void wc_acc_stat(const struct wc_acc *a, struct wc_stat *st);

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
