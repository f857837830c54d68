/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * keep.h - a comparison's captures as they come, then their summary:
 * the first WC_KEEP_HELD capsules held in memory, so that a comparison
 * of a few captures needs no TMPDIR; from the next one on, every one
 * (those held first) noted in the summary's plan and written to a
 * capsule spill (capsule.h: an unnamed temporary file), so that a
 * comparison of many holds no more than a spill's record, whatever
 * their number (docs/performance.md).
 *
 *     struct wc_keep *k;
 *     wc_keep_open(&k, &opts, &err);               // opts: summary.h's
 *     while (... a capsule c, in input order ...)
 *             if (wc_keep_add(k, c, &err) < 0)     // takes c over
 *                     ...;                         // TMPDIR full: stop
 *     if (wc_keep_count(k))
 *             wc_keep_summary(k, &sum, &err);      // k outlives sum
 *     wc_summary_free(sum);
 *     wc_keep_free(k);
 *
 * The summary is the one wc_summary_build_capsules() makes of the same
 * capsules in the same order, number for number, held or spilled.
 */
#ifndef WC_KEEP_H
#define WC_KEEP_H

#include <stddef.h>

#include "analysis/capsule.h"
#include "base/wcerr.h"
#include "compare/summary.h"

/* Capsules held before the spill: a few need no TMPDIR, and many hold
 * no more than these. */
#define WC_KEEP_HELD 64

struct wc_keep;

/* An empty keep in *out, for a summary under OPTS (copied; the strings
 * it points to must outlive the keep). */
int wc_keep_open(struct wc_keep **out, const struct wc_summary_opts *opts,
		 struct wc_err *err);

/* Takes capsule c over (freed here, also on failure): held, or, past
 * WC_KEEP_HELD, spilled with every one held before it.  -1 with err
 * when the spill failed (TMPDIR missing or full, out of memory): the
 * keep then gives no summary, and a caller adds no more. */
int wc_keep_add(struct wc_keep *k, struct wc_capsule *c, struct wc_err *err);

/* The capsules taken so far. */
size_t wc_keep_count(const struct wc_keep *k);

/* The summary of every capsule kept, in the order they came.  Once
 * only.  The summary reads the held capsules or the spill again as
 * writers ask for rows: k must outlive it.  Fails as
 * wc_summary_build_capsules() does (a baseline named but not there:
 * WC_ERR_USAGE), when the spill cannot be read back, and with
 * WC_ERR_USAGE when nothing was kept or an add failed. */
int wc_keep_summary(struct wc_keep *k, struct wc_summary **out,
		    struct wc_err *err);

/* Frees the capsules held and the spill.  NULL is fine. */
void wc_keep_free(struct wc_keep *k);

#endif /* WC_KEEP_H */
