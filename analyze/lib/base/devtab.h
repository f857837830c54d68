/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devtab.h - which of the devices met so far a device number is.
 *
 * Every stage that keeps state per device (the tracker, btt, the
 * accountant, the analysis's series) numbers the devices it meets 0, 1,
 * ... in the order it meets them, up to a cap of its own, and keeps its
 * state in an array of its own by that number.  This table gives the
 * number:
 *
 *     struct wc_devtab t;
 *     wc_devtab_init(&t, WC_MAX_DEVICES);
 *     int i = wc_devtab_find(&t, ev->device);     // -1: not met yet
 *     if (i < 0 && (i = wc_devtab_add(&t, ev->device)) < 0)
 *             ...                                  // past the cap: ignore
 *     state[i] ...
 *
 * What always holds:
 *  - at most cap (<= WC_MAX_DEVICES) devices, numbered from 0 in the
 *    order added; a number never changes;
 *  - a look-up costs one probe sequence of an open-addressed table that
 *    is never full: a trace whose device field is garbage costs the same
 *    per event, never a scan or an allocation.  A stage that looks up
 *    every event keeps a pointer to the state it found last in front of
 *    it (a trace mostly stays on one device);
 *  - nothing is allocated: the table lives where its owner puts it.
 */
#ifndef WC_DEVTAB_H
#define WC_DEVTAB_H

#include <stdint.h>
#include <string.h>

#include "base/wclimits.h"

#define WC_DEVTAB_SLOTS (4 * WC_MAX_DEVICES)   /* a power of two */

struct wc_devtab {
	uint32_t device[WC_MAX_DEVICES];   /* by number */
	uint8_t slot[WC_DEVTAB_SLOTS];     /* number + 1, 0: free */
	unsigned n, cap;
};

_Static_assert((WC_DEVTAB_SLOTS & (WC_DEVTAB_SLOTS - 1)) == 0 &&
	       WC_MAX_DEVICES < 256, "slots: a power of two, numbers in a byte");

/* An empty table of at most cap devices (WC_MAX_DEVICES when larger). */
static inline void wc_devtab_init(struct wc_devtab *t, unsigned cap)
{
	memset(t, 0, sizeof(*t));
	t->cap = cap < WC_MAX_DEVICES ? cap : WC_MAX_DEVICES;
}

/* The slot where device is, or the free one where it would go. */
static inline size_t wc_devtab_slot_(const struct wc_devtab *t,
				     uint32_t device)
{
	size_t h = (size_t)((device * 0x9e3779b9u) >> 24) &
		   (WC_DEVTAB_SLOTS - 1);

	for (; t->slot[h]; h = (h + 1) & (WC_DEVTAB_SLOTS - 1))
		if (t->device[t->slot[h] - 1] == device)
			break;
	return h;
}

/* The number of device, or -1 when it was not added. */
static inline int wc_devtab_find(const struct wc_devtab *t, uint32_t device)
{
	size_t h = wc_devtab_slot_(t, device);

	return t->slot[h] ? t->slot[h] - 1 : -1;
}

/* The number of device, added if it was not there; -1 when the table
 * holds cap devices and device is not one of them. */
static inline int wc_devtab_add(struct wc_devtab *t, uint32_t device)
{
	size_t h = wc_devtab_slot_(t, device);

	if (!t->slot[h]) {
		if (t->n == t->cap)
			return -1;
		t->device[t->n] = device;
		t->slot[h] = (uint8_t)(t->n + 1);
		t->n++;
	}
	return t->slot[h] - 1;
}

/* Devices added. */
static inline unsigned wc_devtab_count(const struct wc_devtab *t)
{
	return t->n;
}

#endif /* WC_DEVTAB_H */
