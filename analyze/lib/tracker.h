/*
 * tracker.h - follows every request through its life on each device.
 *
 * Pulls events from an input and hands out one struct wc_request each
 * time a request completes (C), or is given up on at the end of the trace.
 * Q, back and front merges, G, I, D, C, requeue, split and remap are
 * followed per device; empty flush requests (no sector) pair D with C in
 * order.  Lost or missing events are counted, never invented.
 *
 *     struct wc_tracker *tr = NULL;
 *     struct wc_request rq;
 *     if (wc_tracker_open(&tr, in, &err) < 0) goto fail;
 *     while ((r = wc_tracker_next(tr, &rq, &err)) > 0)
 *             account(&rq);
 *     wc_tracker_free(tr);
 *
 * What always holds:
 *  - requests come in order of completion time (c_time);
 *  - memory is bounded by the requests and bios in flight;
 *  - the tracker does not own the input: free the tracker first.
 */
#ifndef WC_TRACKER_H
#define WC_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

#include "input.h"

#define WC_NO_TIME UINT64_MAX

struct wc_request {
	uint32_t device;
	uint64_t sector;         /* at dispatch (after remap) */
	uint32_t bytes;          /* 0 for an empty flush */
	uint64_t action;         /* category bits of the dispatch (D) event */
	uint64_t q_time;         /* earliest Q of its bios, or WC_NO_TIME */
	uint64_t d_time;         /* last D (after any requeue) */
	uint64_t c_time;
	uint32_t nbios;          /* bios merged into it (>= 1 when Q was seen) */
	uint32_t pid;            /* pid of the first bio's Q, or of D */
	uint32_t depth;          /* requests at the driver when it was issued */
	uint16_t error;
	bool completed;          /* false: the trace ended before its C */
};

struct wc_tracker;

int wc_tracker_open(struct wc_tracker **out, struct wc_input *in,
		    struct wc_err *err);
int wc_tracker_next(struct wc_tracker *tr, struct wc_request *rq,
		    struct wc_err *err);
void wc_tracker_free(struct wc_tracker *tr);

#endif /* WC_TRACKER_H */
