/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reorder_test.h - wc_reorder's doors for its tests only (check_merge):
 * the routes an event may take into the window, each giving the order
 * the heap alone would, so that a test can run the same input through
 * each and compare them; and a batch copied out (one event: a batch of
 * one), over wc_reorder_next_ref(), for tests that hold events across
 * calls.  The pipeline never sets one (the default is
 * WC_REORDER_ROUTE_ALL); reorder.h is the interface.
 */
#ifndef WC_REORDER_TEST_H
#define WC_REORDER_TEST_H

#include <stddef.h>
#include <string.h>

#include "input/reorder.h"

/*
 * The routes an event may take into the window.  The order out is the
 * same whichever is set: check_merge spans the same inputs through each
 * and compares them event by event.  Set before the first next.
 *   WC_REORDER_ROUTE_ALL       an event in order stays in the ring where
 *                              it was read, a late one goes into its
 *                              place among the ring's last
 *                              WC_REORDER_SHIFT, any other through the
 *                              heap (the default);
 *   WC_REORDER_ROUTE_NO_SHIFT  every late event through the heap;
 *   WC_REORDER_ROUTE_HEAP      every event through the heap (but one of
 *                              the greatest time, device and sequence,
 *                              which no trace holds).
 * Not used in blkparse's order, where every event goes through the heap.
 */
enum wc_reorder_route {
	WC_REORDER_ROUTE_ALL,
	WC_REORDER_ROUTE_NO_SHIFT,
	WC_REORDER_ROUTE_HEAP,
};
void wc_reorder_set_route(struct wc_reorder *r, enum wc_reorder_route route);

/* wc_reorder_next_ref()'s batch copied into OUT (MAX at most). */
static inline int wc_reorder_next_batch(struct wc_reorder *r,
					struct wc_event *out, size_t max,
					size_t *got, struct wc_err *err)
{
	const struct wc_event *evs;
	int k = wc_reorder_next_ref(r, &evs, max, got, err);

	if (k > 0)
		memcpy(out, evs, *got * sizeof(*out));
	return k;
}

static inline int wc_reorder_next(struct wc_reorder *r, struct wc_event *ev,
				  struct wc_err *err)
{
	size_t got;

	return wc_reorder_next_batch(r, ev, 1, &got, err);
}

#endif /* WC_REORDER_TEST_H */
