/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.h - puts the events of several streams into one time order.
 *
 * Pulls events through a callback, whose contract (below) wc_reorder
 * (input/reorder.h) shares:
 *
 *   wc_merge    k-way merge of per-CPU streams that are each in time order,
 *               with a binary heap.  It holds exactly one pending event per
 *               stream.  The stream in the lead and the runner-up are kept
 *               beside the heap, so a hand-over between two streams that
 *               take turns every few events costs no heap operation; the
 *               heap is touched only when a third stream is due (the
 *               same order as through the heap alone: wc_merge_set_route(),
 *               merge_test.h).  Among equal times the order is
 *               blkparse's: a stream that just handed out an event wins
 *               ties; a stream that falls behind goes before the streams
 *               already waiting at its time; at start-up a stream whose
 *               first time equals the earliest so far goes right after it.
 *
 *     static int pull(void *ctx, unsigned stream, struct wc_event *out,
 *                     size_t max, uint64_t limit, unsigned flags,
 *                     size_t *got, struct wc_err *err);
 *                     // 1 with a span of events, 0 end, -1 failure;
 *                     // WC_PULL_WOULD_READ: see WC_PULL_BUFFERED
 *
 *     const struct wc_event *evs;
 *     size_t n;
 *
 *     wc_merge_open(&m, nstreams, pull, ctx, &err);
 *     while ((r = wc_merge_next_ref(m, &evs, WC_MERGE_BATCH, &n, &err)) > 0)
 *             use(evs, n);
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
 *    _next_ref() returns -1 with the first failure in err (events before it
 *    were all handed out), and keeps returning -1;
 *  - _genesis() is the time blkparse subtracts to print relative times:
 *    the earliest first event of the streams (wc_merge), or the earliest
 *    of the first 512 events (wc_reorder); valid after the first batch;
 *  - wc_merge_free(NULL) and wc_reorder_free(NULL) are fine.
 *
 * Batches, the one way out: _next_ref() hands out up to MAX events at
 * once (at most WC_MERGE_BATCH, WC_REORDER_BATCH), *EVS pointing at them
 * in the merge's own memory (1 with *got >= 1, 0 at the end, -1 on
 * failure, which comes only after the events before it were handed
 * out), in the same order and with the same calls to pull() in the same
 * order whatever MAX: one event at a time is a batch of one
 * (merge_test.h and reorder_test.h wrap that for the tests).  Every
 * event of a batch, and its payload, stays valid until the next call.
 * For that wc_merge asks the stream in the lead, after the batch's first
 * event, with WC_PULL_BUFFERED, and ends the batch early when it answers
 * WC_PULL_WOULD_READ; wc_reorder holds the slots of the batch beside its
 * window, so every event still goes out of a full window.
 */
#ifndef WC_MERGE_H
#define WC_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"
#include "base/wcerr.h"

/* A pull() given this may answer WC_PULL_WOULD_READ (no event, nothing
 * consumed) instead of reading more of the stream, which would move the
 * buffer the payloads of its events handed out before point into; asked
 * again without it, it must read on.  A pull() that never answers
 * WC_PULL_WOULD_READ is fine. */
#define WC_PULL_BUFFERED 1u
/* That answer: 2, beside a pull()'s 1 (an event), 0 (the end) and -1
 * (a failure); the decoder's buffered reads (input/decode.h) give it
 * too, for the same reason. */
#define WC_PULL_WOULD_READ 2

/*
 * pull(): the next span of stream STREAM, the one way events come in: as
 * reading one event again and again while each is not later than LIMIT,
 * and once more for the first that is (or up to MAX events): the events,
 * read in order, into out[0..*got).  1 with *got >= 1 (all but the last
 * not later than LIMIT), else 0 (the end), -1 (a failure, err filled) or
 * WC_PULL_WOULD_READ with *got 0.  A span may stop early (one event is a
 * span): the merge asks again; MAX 1 is one event, which the merge asks
 * for when a stream starts and the reorder window in blkparse's order.
 * Not calling pull() per event is what saves the time.
 */
typedef int (*wc_merge_pull_fn)(void *ctx, unsigned stream,
				struct wc_event *out, size_t max,
				uint64_t limit, unsigned flags, size_t *got,
				struct wc_err *err);

struct wc_merge;

int wc_merge_open(struct wc_merge **out, unsigned nstreams,
		  wc_merge_pull_fn pull, void *ctx, struct wc_err *err);
/* The most events a batch hands out. */
#define WC_MERGE_BATCH 256u
int wc_merge_next_ref(struct wc_merge *m, const struct wc_event **evs,
		      size_t max, size_t *got, struct wc_err *err);
uint64_t wc_merge_genesis(const struct wc_merge *m);
void wc_merge_free(struct wc_merge *m);

#endif /* WC_MERGE_H */
