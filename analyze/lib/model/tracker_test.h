/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracker_test.h - wc_tracker's doors for its tests only (check_tracker):
 * how much its look-ups by (device, sector) cost, and the multiplier
 * its buckets are drawn with.  The pipeline never calls them; tracker.h
 * is the interface.
 */
#ifndef WC_TRACKER_TEST_H
#define WC_TRACKER_TEST_H

#include <stdint.h>

#include "model/tracker.h"

/* The steps the look-ups, insertions and removals by (device, sector)
 * have taken so far: other keys' roots passed on a chain, and two runs
 * of one key melded (when a run's oldest leaves it).  A few a look-up
 * on average whatever the sectors and ages, when the table does its
 * job. */
uint64_t wc_tracker_hash_steps(const struct wc_tracker *tr);

/* Sets the buckets' multiplier (made odd), instead of the one drawn at
 * random: a test can then choose sectors that collide under it.  Call
 * before the first event. */
void wc_tracker_set_hash_mult(struct wc_tracker *tr, uint64_t mult);

#endif /* WC_TRACKER_TEST_H */
