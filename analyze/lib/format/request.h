/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request.h - one block request as the tracker (tracker.h) hands it out:
 * where it was, how big, what it was for, and when it was queued,
 * dispatched and completed (or that the trace ended first).  A value type,
 * copied freely; everything downstream of the tracker (classifier,
 * accountant, series, the disk model's replay) reads requests and needs
 * nothing else of the tracker.
 *
 * A time the trace did not show is WC_NO_TIME, never 0.
 */
#ifndef WC_REQUEST_H
#define WC_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/wcerr.h"

#define WC_NO_TIME UINT64_MAX

struct wc_request {
	uint32_t device;
	uint64_t sector;         /* at dispatch (after remap) */
	uint32_t bytes;          /* 0 for an empty flush */
	uint64_t action;         /* category bits of the dispatch (D) event */
	uint64_t q_time;         /* earliest Q of its bios, or WC_NO_TIME */
	uint64_t d_time;         /* last D (after any requeue), or WC_NO_TIME */
	uint64_t c_time;         /* WC_NO_TIME when !completed */
	uint32_t nbios;          /* bios merged into it (>= 1 when Q was seen) */
	uint32_t pid;            /* pid of the first bio's Q, or of D */
	/* An empty flush: the thread that asked for it.  Its own empty Q's
	 * pid when it had one (blkdev_issue_flush() from fsync, say), else
	 * the pid of the latest write queued on the device with PREFLUSH
	 * or FUA before its D (blk-mq's flush machinery dispatches the
	 * flush from a kworker on that write's behalf: "Q FWFSM
	 * [jbd2/sda1-8]", then "D FN [kworker/0:1H]").  has_cause false:
	 * neither was seen, or the request is not an empty flush. */
	uint32_t cause_pid;
	bool has_cause;
	uint32_t depth;          /* requests at the driver when it was issued */
	uint32_t disk_depth;     /* on a partition of the tracker's disk
				  * (wc_tracker_set_disk()): requests at the
				  * driver of all its partitions then; else 0 */
	uint16_t error;
	bool completed;          /* false: the trace ended before its C */
	uint32_t requeues;       /* times it was requeued */
};

/*
 * Where requests come from, for every module that pulls them (the
 * replay, an analysis of replayed requests): 1 with one in *rq, 0 at the
 * end, -1 on failure with err filled.  ctx is the source's own state;
 * wc_tracker_next() has this shape for a struct wc_tracker.
 */
typedef int (*wc_request_source)(void *ctx, struct wc_request *rq,
				 struct wc_err *err);

#endif /* WC_REQUEST_H */
