/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracker.h - follows every request through its life on each device.
 *
 * Pulls events from an event source (event.h) or batches (a struct
 * wc_input's wc_input_next_ref()) and hands out one struct wc_request
 * (request.h) each time a request completes (C), then, once
 * the events run out, one for every request still in flight (completed is
 * false for those).  Q, back and front merges, G, I, D, C, requeue, split
 * and remap are followed per device; empty flush requests (no sector) pair
 * D with C in order.  Lost or missing events are counted, never invented.
 *
 *     struct wc_tracker *tr = NULL;
 *     struct wc_request rq;
 *     if (wc_tracker_open_source(&tr, next, ctx, &err) < 0) goto fail;
 *     while ((r = wc_tracker_next(tr, &rq, &err)) > 0)
 *             account(&rq);
 *     wc_tracker_free(tr);
 *
 * A caller with work of its own per request takes them a batch at a time
 * (wc_tracker_next_batch()): one call for many requests.
 *
 * A source that has its events in an array already (a batch from
 * wc_input_next_ref()) opens the tracker with wc_tracker_open_batch()
 * instead: the tracker then reads each event where it lies, without a
 * call and a copy per event.  The requests are the same, in the same
 * order, wherever the batches begin and end.
 *
 * How bios become requests (docs/methodology.md has the reasons):
 *  - a Q with bytes starts a bio; a D with bytes [s, s+n) takes every
 *    queued bio that starts inside it, following the chain s, s + len, ...
 *    (merged bios are contiguous), so a request's q_time is its earliest
 *    bio's Q.  A bio longer than the D that takes it (a split) keeps its
 *    remainder queued for the next D;
 *  - a requeue (R) puts the request back; its next D moves d_time;
 *  - a C with bytes completes the dispatched request starting at its
 *    sector, the oldest when there are several; a C with no bytes
 *    completes an empty request (flush) dispatched on that device: the
 *    newest on a device with one flush in flight, else the oldest;
 *  - one flush in flight.  A flush has no sector to pair by, so a lost
 *    C (a CPU's file missing) would pair the next flush C with an older
 *    flush D, inventing seconds of latency.  The kernel keeps at most
 *    one flush in flight per flush queue: Linux 6.x block/blk-flush.c,
 *    blk_kick_flush() ("C1. At any given time, only one flush shall be
 *    in progress": it issues none while fq->flush_pending_idx !=
 *    fq->flush_running_idx, and flush_end_io() toggles the running
 *    index back), with one flush queue per hardware queue
 *    (blk_get_flush_queue(): blk_mq_map_queue(REQ_OP_FLUSH, ctx)->fq,
 *    allocated per hctx in block/blk-mq.c, blk_mq_init_hctx()); before
 *    blk-mq, Linux 2.6.24 block/ll_rw_blk.c ran one ordered sequence
 *    per queue (blk_do_ordered() starts one only when !q->ordseq, with
 *    the queue's one pre_flush_rq and post_flush_rq).  So on a device
 *    with one hardware queue the flush a C completes is the newest
 *    flush D, and every older one still pending lost its C: it is set
 *    aside (stats.superseded), handed out at the end as unfinished,
 *    never paired.  A device with several hardware queues (NVMe) has a
 *    flush in flight per queue and no way to tell which completed: its
 *    flushes pair first in first out, as every request did before.
 *    The count comes from capture.conf (device.DEV.hw_queues,
 *    wc_tracker_set_hw_queues()).  A device without it (a trace
 *    wccapture did not record) pairs first in first out while the
 *    trace is whole: one queue never has two flushes in flight then,
 *    so the order is the same, and several queues that complete in
 *    order pair right; the trace cannot tell the two apart (D D C C is
 *    two queues, or one queue that lost a C and a D).  In a trace known
 *    to have lost events (wc_tracker_set_lossy(): a CPU's file missing)
 *    it is taken to have one queue, the case of every kernel before
 *    blk-mq and of most disks since (SCSI and SATA behind one host
 *    queue, virtio-blk with one queue, loop, MMC); on a multi-queue
 *    device that gives too short flush latencies, never too long ones.
 *    What the rule cannot see: a lost C whose successor's D was lost
 *    too leaves one flush D pending, and the next C pairs with it
 *    (nothing in the trace says otherwise); the bound below still
 *    limits that;
 *  - no invented pairing: a dispatch older than its device's bound (the
 *    command timeout, wc_tracker_set_bound(); WC_TRACKER_BOUND_NS
 *    unless set) is no longer a candidate for any C.  The kernel gives
 *    up on a command that takes longer (it times out, then is retried
 *    with a new D or failed), so a C that would pair with it belongs
 *    to a dispatch the trace lost, and the old D to a C it lost.  Such
 *    a dispatch expires (stats.expired) as soon as an event on its
 *    device comes later than its D plus the bound: it is no longer at
 *    the driver (depth) and is handed out at the end as unfinished.
 *    A bio-based device's C is matched to a queued bio within the same
 *    bound from its Q;
 *  - an empty Q (a flush bio) is paired with the next empty D on its
 *    device, first in first out; an empty D without one is the block
 *    layer's own flush for the latest write queued with PREFLUSH or FUA
 *    on the device, whose pid it takes as cause_pid;
 *  - an empty C without the FLUSH flag, when no such empty request is in
 *    flight, ends a preflush/FUA sequence (blk-mq completes the original
 *    request that way): counted in stats.sequence_ends, nothing else;
 *  - a C that matches nothing (within the bound) is counted in
 *    stats.orphan_completions, never turned into a latency; one before
 *    any D on its device in stats.began_in_flight instead (dispatched
 *    before the recorder started: no event of it was lost);
 *    a D without any Q gives a request with q_time WC_NO_TIME.
 *
 * What always holds:
 *  - requests come in order of completion time (c_time), then the
 *    unfinished ones;
 *  - memory is bounded by the requests and bios in flight; to survive
 *    lost events, at most WC_TRACKER_MAX_INFLIGHT bios and requests are
 *    kept per device, the oldest are dropped and counted beyond that;
 *    at most WC_MAX_DEVICES devices are followed, the first seen: a
 *    corrupt device field cannot make the tracker grow or slow down;
 *    finished ones are reused, so once the most ever in flight has been
 *    reached the tracker allocates nothing; each event costs the same
 *    however long the trace (one hash look-up per bio or request);
 *  - every event (notify records too) counts in stats.events; a module
 *    that must see the events too (btt) sits in the source, as the
 *    analysis puts it there (analysis.h);
 *  - the tracker does not own the input or the source: free the tracker
 *    first.  wc_tracker_free(NULL) is fine.
 */
#ifndef WC_TRACKER_H
#define WC_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/event.h"
#include "format/request.h"
#include "base/wcerr.h"
#include "base/wclimits.h"

/* Counters over everything the tracker has read so far. */
struct wc_tracker_stats {
	uint64_t events;              /* every event, notify records included */
	uint64_t io_events;           /* events that are not notify records */
	uint64_t first_time;          /* earliest / latest non-notify event, or */
	uint64_t last_time;           /* WC_NO_TIME when there was none */
	uint64_t requests;            /* completed requests handed out */
	uint64_t unfinished;          /* dispatched, no C before the end */
	uint64_t never_dispatched;    /* bios queued, never seen in a D */
	uint64_t orphan_completions;  /* C without a matching D (within
				       * the bound), after a D on its
				       * device: a lost event */
	uint64_t began_in_flight;     /* C before any D on its device: a
				       * request in flight when recording
				       * began, nothing lost */
	uint64_t expired;             /* dispatches no C came for within
				       * the bound (also in unfinished or
				       * dropped_inflight) */
	uint64_t superseded;          /* flush dispatches a newer one's C
				       * showed lost (one flush in flight;
				       * also in unfinished or
				       * dropped_inflight) */
	uint64_t sequence_ends;       /* empty C ending a flush sequence */
	uint64_t dropped_inflight;    /* forgotten beyond the in-flight cap */
	uint64_t ignored_events;      /* Q, D, R or C on a device past the
				       * first WC_MAX_DEVICES */
};

struct wc_tracker;

/* Over a source (event.h); ctx is passed to next unchanged. */
int wc_tracker_open_source(struct wc_tracker **out, wc_event_source next,
			   void *ctx, struct wc_err *err);
/*
 * Where events come from a batch at a time: returns 1 with *evs pointing
 * at *n >= 1 events, which stay valid (the source does not touch them)
 * until the next call; 0 at the end; -1 on failure with err filled.
 * ctx is passed back unchanged.  The tracker only reads the events.
 */
typedef int (*wc_tracker_batch_source)(void *ctx, const struct wc_event **evs,
				       size_t *n, struct wc_err *err);

/* Over a batch source: the same requests as wc_tracker_open_source()
 * over the same events one at a time. */
int wc_tracker_open_batch(struct wc_tracker **out,
			  wc_tracker_batch_source next, void *ctx,
			  struct wc_err *err);
/* 1 with a request in *rq, 0 at the end.  When the source fails, the
 * requests completed before the failure and then the unfinished ones are
 * still handed out; the call that would return 0 returns -1 instead,
 * with err filled, and keeps returning -1. */
int wc_tracker_next(struct wc_tracker *tr, struct wc_request *rq,
		    struct wc_err *err);
/* Up to max (>= 1) requests at once into rqs: 1 with *got >= 1, 0 at
 * the end, -1 as wc_tracker_next() (whose requests these are, in the same
 * order: it is a batch of one).  A batch never holds requests completed
 * by events of two different batches of a batch source, so what the
 * source learned by then (wc_input_comm()) is what a caller of
 * wc_tracker_next() would see. */
int wc_tracker_next_batch(struct wc_tracker *tr, struct wc_request *rqs,
			  size_t max, size_t *got, struct wc_err *err);
/*
 * The bound of a dispatch on DEVICE (dev_t; 0: every device without a
 * bound of its own), in ns >= 1: a C more than that after a D is not
 * that D's.  Call before the first wc_tracker_next*(); 0, or -1 when
 * ns is 0 or more than WC_MAX_DEVICES devices were given one.  The
 * default is WC_TRACKER_BOUND_NS, the SCSI disk driver's command
 * timeout (SD_TIMEOUT, 30 * HZ, drivers/scsi/sd.h), which also is
 * blk-mq's default request timeout.
 */
#define WC_TRACKER_BOUND_NS (30ull * 1000000000ull)
int wc_tracker_set_bound(struct wc_tracker *tr, uint32_t device, uint64_t ns);
/*
 * DEVICE (dev_t, not 0) has n >= 1 hardware queues (capture.conf's
 * device.DEV.hw_queues): with one, a flush C pairs with the newest
 * flush D (one flush in flight, above); with more, first in first out.
 * A device not given: above.  Call before the first
 * wc_tracker_next*(); 0, or -1 when device or n is 0 or more than
 * WC_MAX_DEVICES devices were given a count.
 */
int wc_tracker_set_hw_queues(struct wc_tracker *tr, uint32_t device,
			     uint32_t n);
/*
 * The devices (dev_t, at most WC_ACCOUNT_PARTS) that are partitions of
 * one disk (capture.conf's disk_regions): a request dispatched on one of
 * them gets disk_depth, the requests then at the driver of them all, the
 * disk's queue.  Call before the first wc_tracker_next*(); 0, or -1
 * when n is more than WC_ACCOUNT_PARTS (nothing set).
 */
int wc_tracker_set_disk(struct wc_tracker *tr, const uint32_t *devs,
			size_t n);
/* The trace is known to have lost events (a CPU's file missing): a
 * device without a count of hardware queues is taken to have one.
 * Call before the first wc_tracker_next*(). */
void wc_tracker_set_lossy(struct wc_tracker *tr);
const struct wc_tracker_stats *wc_tracker_stats(const struct wc_tracker *tr);
void wc_tracker_free(struct wc_tracker *tr);

#endif /* WC_TRACKER_H */
