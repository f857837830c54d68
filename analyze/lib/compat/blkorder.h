/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blkorder.h - the order "blkparse -i -" (blktrace 1.2) prints a single
 * stream in, for --dump: which event goes next, given the events as
 * they were read.  It keeps no event of its own: it reads them a batch
 * at a time through a callback, as pointers to events the caller keeps,
 * with their payloads, until they are handed out again (input/reorder.h
 * keeps them in its window's slots).
 *
 *     static size_t read(void *ctx, const struct wc_event **evs,
 *                        size_t max);
 *                    // the next events read into evs[0..max), as many
 *                    // as MAX but at the end of the input
 *
 *     wc_blkorder_open(&o, window, read, ctx, &err);
 *     while ((r = wc_blkorder_next(o, true, &ev)) > 0)
 *             print(ev);          // then the caller may reuse its room
 *     wc_blkorder_free(o);
 *
 * blkparse reads 512 events at a time (notify records other than
 * messages are not events and do not count), puts them into a tree
 * sorted by (time, device, sequence) where an event equal in all three
 * goes after the ones already there, inserting each batch last read
 * first, and prints every event of the tree before it reads the next
 * batch.  So among equal times a batch's events come before the next
 * batch's, and events equal in (time, device, sequence), as two CPUs'
 * events with the same sequence number, come out last read first within
 * a batch.  It stops printing at an event whose (device, CPU) sequence
 * number does not follow the one printed last (a gap, or the sequence 0
 * of every tracefs record), and from there holds everything to the end
 * of the input before it prints the rest in order: the window then holds
 * what it can (WINDOW events) and hands out its earliest when full, the
 * same order as long as no event is further out of place than the
 * window.  What blkparse waits on is followed for WC_INPUT_MAX_SEQ_KEYS
 * (wclimits.h) (device, CPU) pairs; events of more pairs go as they
 * come.
 *
 * Not copied: blkparse subtracts its genesis when it inserts a batch and
 * looks for the genesis again at every batch while it is 0, which it is
 * in every file "blkparse -d" writes (its times start at 0): there
 * blkparse prints the times of every batch after the first less that
 * batch's earliest, and sorts by those.
 *
 * What always holds:
 *  - at most WINDOW events are held (read and not handed out); a batch
 *    is WC_BLKORDER_BATCH events, or WINDOW when that is smaller;
 *  - wc_blkorder_next() returns 1 with *EV, the event to print next;
 *    0 when every event read was handed out and read() gave fewer
 *    than it was asked for (the end);
 *    WC_BLKORDER_WOULD_READ, with nothing handed out, when the next one
 *    is known only after a batch more is read and MAY_READ is false (a
 *    caller that looks at what a batch read tells, process names, before
 *    it reads the next);
 *  - memory: WINDOW heap entries and batch pointers, and one map entry
 *    per (device, CPU) pair followed, whatever the input;
 *  - wc_blkorder_free(NULL) is fine.
 */
#ifndef WC_BLKORDER_H
#define WC_BLKORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "format/event.h"
#include "base/wcerr.h"

/* The events blkparse reads from one stream at a time. */
#define WC_BLKORDER_BATCH 512u
/* wc_blkorder_next()'s answer when it would read and may not. */
#define WC_BLKORDER_WOULD_READ 2

typedef size_t (*wc_blkorder_read_fn)(void *ctx, const struct wc_event **evs,
				      size_t max);

struct wc_blkorder;

/* 0, or -1 with err filled when out of memory. */
int wc_blkorder_open(struct wc_blkorder **out, size_t window,
		     wc_blkorder_read_fn read, void *ctx, struct wc_err *err);
int wc_blkorder_next(struct wc_blkorder *o, bool may_read,
		     const struct wc_event **ev);
void wc_blkorder_free(struct wc_blkorder *o);

#endif /* WC_BLKORDER_H */
