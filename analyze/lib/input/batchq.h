/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * batchq.h - an input read on a thread of its own: the reading, decoding
 * and merging of one trace on one core, and whoever consumes its batches
 * (the tracker, the accountant) on another, with a bounded queue of
 * batches between them.
 *
 *     struct wc_batchq *q = NULL;
 *     const struct wc_event *evs;
 *     size_t n;
 *     int r;
 *
 *     if (wc_batchq_open(&q, in, &err) < 0)
 *             goto fail;                  // no thread was started
 *     while ((r = wc_batchq_next(q, &evs, &n, &err)) > 0)
 *             use(evs, n);                // names: wc_batchq_comm(q, pid)
 *     wc_batchq_free(q);                  // stops and joins the reader
 *     ...                                 // in is the caller's again
 *
 * What always holds:
 *  - wc_batchq_next() hands out the batches wc_input_next_ref(in, ...,
 *    WC_INPUT_BATCH, ...) would have, the same events cut at the same
 *    places, then the same 0, or the same -1 with the same err (also
 *    WC_ERR_AGAIN), and keeps returning it as the input does.  A batch is handed by
 *    reference: it stays valid until the next call or wc_batchq_free();
 *  - an event handed out carries no payload (pdu NULL, pdu_len 0): none
 *    of the analysis's stages reads one;
 *  - wc_batchq_comm(q, pid) is what wc_input_comm(in, pid) would have
 *    said at that point of a read on one thread, right after the call
 *    that handed out the last batch, however far ahead the reader is:
 *    each batch carries the count of names the input had given when it
 *    was read (wc_input_names(), input.h);
 *  - between wc_batchq_open() and wc_batchq_free() the input belongs to
 *    the reader's thread: the caller calls nothing on it (names through
 *    wc_batchq_comm() only, which takes the lock the reader holds while
 *    it reads);
 *  - memory: WC_BATCHQ_DEPTH slots of WC_BATCHQ_SLOT batches of
 *    WC_INPUT_BATCH events (wclimits.h), 8 x 1024 events of 72 bytes,
 *    about 600 KiB with the defaults, whatever the trace, beside the
 *    input's own bounds.  The reader waits while every slot is full, and
 *    then until half of them are free again; the analysis waits while
 *    none is full, and then until half of them are (or the input
 *    ended): one wake-up per half a queue, not per batch;
 *  - wc_batchq_free() at any point (after the end, after a failure on
 *    either side, or in the middle: an early stop) tells the reader to
 *    stop and joins it: the reader stops after the input call it is in
 *    (on standard input or a pipe that is the next WC_INPUT_BATCH events
 *    or the end of the stream), never reads further.  NULL is fine.
 */
#ifndef WC_BATCHQ_H
#define WC_BATCHQ_H

#include <stddef.h>
#include <stdint.h>

#include "format/event.h"
#include "input/input.h"
#include "base/wcerr.h"

struct wc_batchq;

/* Starts the reader's thread on in (not owned; in must outlive q).  0, or
 * -1 with err when out of memory or no thread could be made. */
int wc_batchq_open(struct wc_batchq **out, struct wc_input *in,
		   struct wc_err *err);

/* The next batch: 1 with *n >= 1 events at *evs, 0 at the end, -1 with
 * err as the input failed (wc_input_next_ref(), input.h). */
int wc_batchq_next(struct wc_batchq *q, const struct wc_event **evs,
		   size_t *n, struct wc_err *err);

/* PID's process name as the input knew it when it handed out the last
 * batch (see above), copied into BUF (the reader's thread may move the
 * input's own copy), or NULL when it had none. */
#define WC_BATCHQ_NAME 16        /* a name (recfilter.h: 15 bytes) and NUL */
const char *wc_batchq_comm(struct wc_batchq *q, uint32_t pid,
			   char buf[WC_BATCHQ_NAME]);

void wc_batchq_free(struct wc_batchq *q);

#endif /* WC_BATCHQ_H */
