/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reorder_test.h - wc_reorder's doors for its tests only (check_merge):
 * the routes an event may take into the window, each giving the order
 * the heap alone would, so that a test can run the same input through
 * each and compare them.  The pipeline never sets one (the default is
 * WC_REORDER_ROUTE_ALL); reorder.h is the interface.
 */
#ifndef WC_REORDER_TEST_H
#define WC_REORDER_TEST_H

#include "input/reorder.h"

/*
 * The routes an event may take into the window.  The order out is the
 * same whichever is set: check_merge runs the same inputs through each
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

#endif /* WC_REORDER_TEST_H */
