/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.h - puts the events of several streams into one time order.
 *
 * Two mergers, both pulling events through a callback:
 *
 *   wc_merge    k-way merge of per-CPU streams that are each in time order,
 *               with a binary heap.  It holds exactly one pending event per
 *               stream.  The stream in the lead and the runner-up are kept
 *               beside the heap, so a hand-over between two streams that
 *               take turns every few events costs no heap operation; the
 *               heap is touched only when a third stream is due (the
 *               same order as through the heap alone: wc_merge_set_route()
 *               below).  Among equal times the order is blkparse's: a
 *               stream that just handed out an event wins ties; a stream
 *               that falls behind goes before the streams already waiting
 *               at its time; at start-up a stream whose first time equals
 *               the earliest so far goes right after it.
 *
 *   wc_reorder  a single interleaved stream (standard input, a merged
 *               "blkparse -d" file) sorted through a bounded window of
 *               events by (time, device, sequence, arrival).  Events
 *               further out of order than the window stay out of order.
 *               Events in order cost almost nothing: they stay in a ring
 *               where they were read, and so does a late one that goes
 *               before at most WC_REORDER_SHIFT of the last read (they
 *               move up a slot); only later ones go through a heap.
 *               Ring and heap hold an event in slots of one form (the
 *               event, its arrival, its payload's room), and each route
 *               gives the order the heap alone would
 *               (wc_reorder_set_route() below).
 *               Memory: about 300 bytes a slot, for the window (16384
 *               events by default) and two batches, twice (ring and
 *               heap: input in order touches only the ring's), plus
 *               every payload longer than 32 bytes a slot held, up to
 *               64 KiB a slot, whatever the input.
 *               With wc_reorder_set_blkparse() (for --dump) the order is
 *               instead exactly the one "blkparse -i -" prints (below).
 *
 *     static int pull(void *ctx, unsigned stream, struct wc_event *ev,
 *                     unsigned flags, struct wc_err *err);
 *                     // 1 event, 0 end, -1 failure; 2: see WC_PULL_BUFFERED
 *
 *     wc_merge_open(&m, nstreams, pull, ctx, &err);
 *     while ((r = wc_merge_next(m, &ev, &err)) > 0)
 *             use(&ev);
 *     wc_merge_free(m);
 *
 * What always holds:
 *  - pull() is called for a stream only after the event it handed out
 *    last has been passed on and the caller came back for the next one, so
 *    ev.pdu may point into the stream's own buffer; wc_reorder copies
 *    payloads into its window instead;
 *  - the buffer stays while a batch holds events out of it: a pull under
 *    WC_PULL_BUFFERED that ends or fails its stream (a bad record among
 *    the bytes already read) frees nothing the events of the batch so far
 *    point into; a pull without it may (the caller came back for the
 *    next batch: wc_streams keeps an ended stream's buffer until then);
 *  - a stream that fails is dropped and the others run to their end; then
 *    next() returns -1 with the first failure in err (events before it
 *    were all handed out), and keeps returning -1;
 *  - _genesis() is the time blkparse subtracts to print relative times:
 *    the earliest first event of the streams (wc_merge), or the earliest
 *    of the first 512 events (wc_reorder); valid after the first next();
 *  - wc_merge_free(NULL) and wc_reorder_free(NULL) are fine.
 *
 * Batches: _next_batch() hands out up to MAX events at once into OUT (1
 * with *got >= 1, 0 at the end, -1 on failure, which comes only after
 * the events before it were handed out), in the same order and with the
 * same calls to pull() in the same order as that many _next() calls:
 * _next() is a batch of one.  Every event of a batch, and its payload,
 * stays valid until the next call.  For that wc_merge asks the stream
 * in the lead, after the batch's first event, with WC_PULL_BUFFERED, and
 * ends the batch early when it answers 2; wc_reorder holds the slots of
 * the batch beside its window (at most WC_REORDER_BATCH events a batch),
 * so every event still goes out of a full window.
 */
#ifndef WC_MERGE_H
#define WC_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"
#include "base/wcerr.h"

/* A pull() given this may answer 2 (no event, nothing consumed) instead
 * of reading more of the stream, which would move the buffer the
 * payloads of its events handed out before point into; asked again
 * without it, it must read on.  A pull() that never answers 2 is fine. */
#define WC_PULL_BUFFERED 1u

typedef int (*wc_merge_pull_fn)(void *ctx, unsigned stream,
				struct wc_event *ev, unsigned flags,
				struct wc_err *err);

struct wc_merge;

int wc_merge_open(struct wc_merge **out, unsigned nstreams,
		  wc_merge_pull_fn pull, void *ctx, struct wc_err *err);
int wc_merge_next(struct wc_merge *m, struct wc_event *ev, struct wc_err *err);
int wc_merge_next_batch(struct wc_merge *m, struct wc_event *out, size_t max,
			size_t *got, struct wc_err *err);
/*
 * A run of a stream at once, for a batch: as pull() called again and
 * again while each event it gives is not later than limit, and once
 * more for the first that is (or up to max events): the same events,
 * read in the same order, into out[0..*got).  1 with *got >= 1 (all
 * but the last not later than limit), else 0, -1 or 2 as pull() with
 * *got 0.  Optional; set before the first next.  Not calling pull()
 * per event is what saves the time.
 */
typedef int (*wc_merge_pull_run_fn)(void *ctx, unsigned stream,
				    struct wc_event *out, size_t max,
				    uint64_t limit, unsigned flags,
				    size_t *got, struct wc_err *err);
void wc_merge_set_pull_run(struct wc_merge *m, wc_merge_pull_run_fn run);
/*
 * The routes of a hand-over between streams.  The order out is the same
 * whichever is set: check_merge runs the same streams through both and
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
uint64_t wc_merge_genesis(const struct wc_merge *m);
void wc_merge_free(struct wc_merge *m);

/* Default window of wc_reorder, in events.  The fuzz build sets a
 * smaller one (GNUmakefile, fuzz-build): the whole window is allocated
 * and freed for every input, which under ASan took half of each run. */
#ifndef WC_REORDER_WINDOW
#define WC_REORDER_WINDOW 16384u
#endif

/* The most events a wc_reorder batch hands out (slots beside the window). */
#define WC_REORDER_BATCH 64u

/* A late event that goes before at most this many of the events read
 * last goes into its place among them, in wc_reorder's ring, instead of
 * through its heap: ties in blkparse -d's order, records late by a few.
 * The order out is the same either way. */
#define WC_REORDER_SHIFT 8u

struct wc_reorder;

int wc_reorder_open(struct wc_reorder **out, size_t window,
		    wc_merge_pull_fn pull, void *ctx, struct wc_err *err);
int wc_reorder_next(struct wc_reorder *r, struct wc_event *ev,
		    struct wc_err *err);
int wc_reorder_next_batch(struct wc_reorder *r, struct wc_event *out,
			  size_t max, size_t *got, struct wc_err *err);
/* The same batch without a copy: *evs points at the events, in the
 * window's own memory, valid (payloads too) until the next call.  A
 * batch of events in order is where they were read; this saves a copy
 * of every event. */
int wc_reorder_next_ref(struct wc_reorder *r, const struct wc_event **evs,
			size_t max, size_t *got, struct wc_err *err);
/* True when the last batch handed out is a run of the window's ring
 * (only wc_reorder_next_ref() hands one out, where it lies): its events
 * are then in (time, device, sequence) order, so none is earlier than
 * the one before it in the batch.  False after a batch of any other kind
 * (late events among them, blkparse's order, copied) or none. */
int wc_reorder_sorted(const struct wc_reorder *r);
uint64_t wc_reorder_genesis(const struct wc_reorder *r);
/*
 * Hands events out in the order "blkparse -i -" (blktrace 1.2) prints a
 * single stream in; call once, before the first next().  blkparse reads
 * 512 events at a time (notify records other than messages are not
 * events and do not count), puts them into a tree sorted by (time,
 * device, sequence) where an event equal in all three goes after the
 * ones already there, inserting each batch last read first, and prints
 * every event of the tree before it reads the next batch.  So among
 * equal times a batch's events come before the next batch's, and events
 * equal in (time, device, sequence), as two CPUs' events with the same
 * sequence number, come out last read first within a batch.  It stops
 * printing at an event whose (device, CPU) sequence number does not
 * follow the one printed last (a gap, or the sequence 0 of every tracefs
 * record), and from there holds everything to the end of the input
 * before it prints the rest in order: this window then holds what it can
 * (its size) and hands out its earliest when full, the same order as
 * long as no event is further out of place than the window.  What
 * blkparse waits on is followed for WC_INPUT_MAX_SEQ_KEYS (device, CPU)
 * pairs; events of more pairs go as they come.
 *
 * Not copied: blkparse subtracts its genesis when it inserts a batch and
 * looks for the genesis again at every batch while it is 0, which it is
 * in every file "blkparse -d" writes (its times start at 0): there
 * blkparse prints the times of every batch after the first less that
 * batch's earliest, and sorts by those.  wc_reorder_genesis() stays the
 * earliest time of the first batch.
 */
void wc_reorder_set_blkparse(struct wc_reorder *r);
/* Fills the window a run at a time through run (wc_merge_pull_run_fn,
 * with no limit and no flags) instead of pull() per event: the same
 * events in the same order, read up to WC_REORDER_BATCH events ahead of
 * where pull() would be.  Not used in blkparse's order, which reads
 * its batches through pull().  Set before the first next. */
void wc_reorder_set_pull_run(struct wc_reorder *r, wc_merge_pull_run_fn run);
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
void wc_reorder_free(struct wc_reorder *r);

#endif /* WC_MERGE_H */
