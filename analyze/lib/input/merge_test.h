/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge_test.h - wc_merge's doors for its tests only (check_merge):
 * the routes of a hand-over, each giving the order the others give, so
 * that a test can run the same streams through each and compare them.
 * The pipeline never sets one (the default is WC_MERGE_ROUTE_ALL);
 * merge.h is the interface.
 */
#ifndef WC_MERGE_TEST_H
#define WC_MERGE_TEST_H

#include <stddef.h>
#include <string.h>

#include "input/merge.h"

/*
 * The routes of a hand-over between streams.  The order out is the same
 * whichever is set: check_merge spans the same streams through both and
 * compares them event by event.  Set before the first next.
 *   WC_MERGE_ROUTE_ALL   the runner-up kept beside the heap, which a
 *                        hand-over between two streams does not touch
 *                        (the default);
 *   WC_MERGE_ROUTE_HEAP  the runner-up kept in the heap, as its top:
 *                        every hand-over goes through the heap.
 */
enum wc_merge_route {
	WC_MERGE_ROUTE_ALL,
	WC_MERGE_ROUTE_HEAP,
};
void wc_merge_set_route(struct wc_merge *m, enum wc_merge_route route);

/* wc_merge_next_ref()'s batch copied into OUT (MAX at most). */
static inline int wc_merge_next_batch(struct wc_merge *m,
				      struct wc_event *out, size_t max,
				      size_t *got, struct wc_err *err)
{
	const struct wc_event *evs;
	int r = wc_merge_next_ref(m, &evs, max, got, err);

	if (r > 0)
		memcpy(out, evs, *got * sizeof(*out));
	return r;
}

static inline int wc_merge_next(struct wc_merge *m, struct wc_event *ev,
				struct wc_err *err)
{
	size_t got;

	return wc_merge_next_batch(m, ev, 1, &got, err);
}

#endif /* WC_MERGE_TEST_H */
