/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reorder.h - puts the events of one interleaved stream into time order.
 *
 * A single interleaved stream (standard input, a merged "blkparse -d"
 * file) sorted through a bounded window of events by (time, device,
 * sequence, arrival).  Events further out of order than the window stay
 * out of order.  Events in order cost almost nothing: they stay in a
 * ring where they were read, and so does a late one that goes before at
 * most WC_REORDER_SHIFT of the last read (they move up a slot); only
 * later ones go through a heap.  Ring and heap hold an event in slots of
 * one form (the event, its arrival, its payload's room), and each route
 * gives the order the heap alone would (wc_reorder_set_route(),
 * reorder_test.h).
 * Memory: about 300 bytes a slot, for the window (16384 events by
 * default) and two batches, twice (ring and heap: input in order touches
 * only the ring's), plus every payload longer than 32 bytes a slot held,
 * up to 64 KiB a slot, whatever the input.  With
 * wc_reorder_set_blkparse() (for --dump) the order is instead exactly
 * the one "blkparse -i -" prints (compat/blkorder.h).
 *
 * It pulls events as wc_merge does, through a wc_merge_pull_fn, and keeps
 * the contract input/merge.h states for both ("What always holds",
 * "Batches"): pull() as stream 0, payloads copied into the window,
 * _genesis() the earliest of the first 512 events.
 *
 *     wc_reorder_open(&r, WC_REORDER_WINDOW, pull, ctx, &err);
 *     while ((k = wc_reorder_next_ref(r, &evs, WC_REORDER_BATCH, &n,
 *                                     &err)) > 0)
 *             use(evs, n);
 *     wc_reorder_free(r);
 */
#ifndef WC_REORDER_H
#define WC_REORDER_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"
#include "base/wcerr.h"
#include "input/merge.h"

/* Default window of wc_reorder, in events.  The fuzz build sets a
 * smaller one (GNUmakefile, fuzz-build): the whole window is allocated
 * and freed for every input, which under ASan took half of each test's time. */
#ifndef WC_REORDER_WINDOW
#define WC_REORDER_WINDOW 16384u
#endif

/* The most events a wc_reorder batch hands out (slots beside the window). */
#define WC_REORDER_BATCH 256u

/* A late event that goes before at most this many of the events read
 * last goes into its place among them, in wc_reorder's ring, instead of
 * through its heap: ties in blkparse -d's order, records late by a few.
 * The order out is the same either way. */
#define WC_REORDER_SHIFT 8u

struct wc_reorder;

int wc_reorder_open(struct wc_reorder **out, size_t window,
		    wc_merge_pull_fn pull, void *ctx, struct wc_err *err);
/* A batch (merge.h, "Batches"): *evs points at the events, in the
 * window's own memory, valid (payloads too) until the next call.  A
 * batch of events in order is handed out where they were read: no copy
 * of every event. */
int wc_reorder_next_ref(struct wc_reorder *r, const struct wc_event **evs,
			size_t max, size_t *got, struct wc_err *err);
/* True when the last batch handed out is a span of the window's ring
 * (handed out where it lies): its events are then in (time, device,
 * sequence) order, so none is earlier than the one before it in the
 * batch.  False after a batch of any other kind (late events among
 * them, blkparse's order) or none. */
int wc_reorder_sorted(const struct wc_reorder *r);
uint64_t wc_reorder_genesis(const struct wc_reorder *r);
/*
 * Hands events out in the order "blkparse -i -" (blktrace 1.2) prints a
 * single stream in, which compat/blkorder.h decides (its events kept in
 * this window's slots, read a batch of 512 at a time; a window of
 * WINDOW events once blkparse waits on a sequence gap); call once,
 * before the first batch.  wc_reorder_genesis() stays the earliest time
 * of the first batch.  Out of memory for it: the first batch fails.
 */
void wc_reorder_set_blkparse(struct wc_reorder *r);
void wc_reorder_free(struct wc_reorder *r);

#endif /* WC_REORDER_H */
