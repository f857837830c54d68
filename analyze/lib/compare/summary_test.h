/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary_test.h - the summary's doors for its tests only (check_summary):
 * the size of the Bloom filter that notes the recordings given
 * (summary.h: one recording given twice), how many configurations the
 * look-ups of the captures' groups compared, and the map they look in.
 * The pipeline never sets the filter's size (the default is 2^23 bits);
 * summary.h is the interface.
 */
#ifndef WC_SUMMARY_TEST_H
#define WC_SUMMARY_TEST_H

#include <stddef.h>

#include "base/map.h"
#include "compare/summary.h"

/*
 * The filter of plan p in BITS bits (a multiple of 64) instead of 2^23,
 * set after wc_summary_plan_open() and before the first
 * wc_summary_plan_add(); ignored otherwise.  A filter of 64 bits is
 * full after a few recordings, so that nearly every capture after them
 * may have been given before: check_summary then sees each told from a
 * copy in the second reading, with the report of a filter that never
 * errs.
 */
void wc_summary_plan_set_bloom_bits(struct wc_summary_plan *p, size_t bits);

/* How many recordings of those noted so far may have been given before
 * (the filter's hits): the ones the second reading looks at. */
size_t wc_summary_plan_maybe(const struct wc_summary_plan *p);

/* How many configurations s compared, in all its readings, to find each
 * capture's group: a capture's look-up costs about one, whatever the
 * number of groups (so a comparison of many configurations is linear in
 * its captures, not quadratic). */
size_t wc_summary_group_compares(const struct wc_summary *s);

/* The map that finds each capture's group by its configuration, or NULL
 * before any: check_summary asks map_test.h how long its runs are, which
 * configurations written to collide under a public hash must leave as
 * short as any others'. */
const struct wc_map *wc_summary_group_map(const struct wc_summary *s);

#endif /* WC_SUMMARY_TEST_H */
