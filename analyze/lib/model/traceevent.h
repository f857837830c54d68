/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * traceevent.h - the capture as a timeline for ui.perfetto.dev and
 * chrome://tracing: the Trace Event Format's JSON object form
 * ({"traceEvents": [...], ...}), written as the analysis goes, so that
 * memory stays bounded by what is in flight however long the trace.
 *
 *     struct wc_traceevent *te = NULL;
 *     if (wc_traceevent_open(&te, f, &err) < 0) goto fail;  // f: not owned
 *     o.trace = te;                     // analysis.h: it drives the calls
 *     wc_analysis_read(&a, path, &o, &err);      // one capture or more
 *     if (wc_traceevent_close(te, &err) < 0)    // the tail; f's errors
 *             report(&err);
 *     wc_traceevent_free(te);
 *
 * What the file holds, per capture (a capture's times are microseconds
 * from its first event, as the reports count them):
 *  - a process per device ("CAPTURE 8,0 (sda)") with a thread per lane
 *    of requests: a slice per request from its first bio's Q to its C
 *    named after its category (flush, journal, ..., as classify.h names
 *    them), and inside it a slice "dispatched" from its D to its C (the
 *    time at the device); args sector, bytes, category, process (the
 *    name of the pid that queued it, or null) and pid, rwbs flags;
 *    empty flush requests go to lanes of their own ("flushes"), their
 *    args naming the thread that queued the write which asked for the
 *    flush (issued_by, tracker.h's cause);
 *  - lanes exist because slices on one thread must nest: a request goes
 *    to the first lane whose last slice ended before it began, so a
 *    lane's slices never overlap and its timestamps never decrease; at
 *    most WC_TRACEEVENT_LANES lanes a device (requests past that many at
 *    once are counted in "not_drawn", not drawn);
 *  - counters on the device's process, from the events in trace order:
 *    "queue depth" (requests at the driver: D less C and requeues),
 *    "MB/s" (bytes completed per WC_TRACEEVENT_RATE_NS, at the start of
 *    each such bin), and "unflushed writes (bytes)": bytes of writes
 *    without FUA that completed before the last flush now in flight or
 *    done was issued are covered; the rest is what the device's write
 *    cache may hold as far as the trace shows.  The page cache's dirty
 *    data is not in a block trace: no counter claims it;
 *  - a process "CAPTURE phases" with a thread per phase of phases.tsv,
 *    one B/E slice each;
 *  - "otherData": per capture its name, the slices drawn, those not
 *    drawn, and requests the trace ended before completing; with a
 *    limit (wc_traceevent_limit()) reached, "past_limit" and "ends_us";
 *  - with a limit of N slices a capture (the bundle's, and wcanalyze's
 *    own by default, so that a file is bounded whatever the trace's
 *    length), a capture's timeline ends with its N-th slice, or with the
 *    event that brings its events to WC_TRACEEVENT_EVENTS_PER_SLICE * N
 *    (counter samples of requests never drawn: dispatches that never
 *    complete, requeues), whichever comes first: at that time (ends_us)
 *    an instant event "timeline ends here" marks it; no later request
 *    is drawn (they are counted in past_limit) and no counter sample
 *    after that time, nor past the events' cap, is written.  A capture
 *    within the limit is written as without one.
 *
 * What always holds: every event has ph, ts, pid and tid; B and E pair
 * on each thread; timestamps never decrease on a thread (pid, tid) even
 * when the trace's clock steps back (a time is clamped to its thread's
 * last) or its times lie more than 2^63 ns apart (times are kept within
 * +-2^62 ns of the capture's first event, so arithmetic on them never
 * overflows); every name from the input (capture, process, device,
 * phase) goes through wc_escape_json().  Size: with a limit of N, at
 * most WC_TRACEEVENT_EVENTS_PER_SLICE * N + 300 events a capture (the
 * cap, what one call writes past it, the last MB/s samples and the
 * phases), none over 4 KiB (names are cut: a capture's at 511 bytes,
 * processes' at 16, devices' and phases' at 63, each at most 6 bytes of
 * JSON a byte), plus otherData's line a capture; without a limit the
 * events are bounded by the trace's events, not by its times.
 * Memory: fixed per device (at most WC_MAX_DEVICES a capture), a few
 * bytes per capture for otherData.  wc_traceevent_free(NULL) is fine.
 */
#ifndef WC_TRACEEVENT_H
#define WC_TRACEEVENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/classify.h"
#include "format/event.h"
#include "format/request.h"
#include "base/wcerr.h"

#define WC_TRACEEVENT_LANES 256                 /* request lanes a device */
#define WC_TRACEEVENT_FLUSH_LANES 16            /* flush lanes a device */
#define WC_TRACEEVENT_RATE_NS 10000000ull       /* the MB/s bin: 10 ms */
/* Events a limited capture writes per slice of its limit, at most: a
 * drawn request takes 4 and 2 to 4 counter samples. */
#define WC_TRACEEVENT_EVENTS_PER_SLICE 16u
/* wcanalyze's limit for --format trace-event and --export-trace unless
 * --timeline-limit says otherwise: about 700 MB of JSON at most. */
#define WC_TRACEEVENT_DEFAULT_SLICES 1000000u

struct wc_traceevent;
struct wc_phase;

/* Writes the head of the JSON object to f (which it does not own). */
int wc_traceevent_open(struct wc_traceevent **out, FILE *f,
		       struct wc_err *err);

/* At most slices requests drawn a capture (set it before the capture
 * begins); 0, the default: every request. */
void wc_traceevent_limit(struct wc_traceevent *t, uint64_t slices);

/* What the timeline holds of the capture begun last: requests drawn,
 * not drawn (past the lanes), past the limit, and where it ends. */
struct wc_traceevent_stats {
	uint64_t slices, not_drawn, past_limit, unfinished;
	double ends_s;          /* s from the capture's first event; < 0
	                         * when the limit was not reached */
};
void wc_traceevent_stats(const struct wc_traceevent *t,
			 struct wc_traceevent_stats *out);

/* The analysis' calls, in this order for each capture: begin, then the
 * events in trace order and the requests as the tracker hands them out
 * (interleaved as they come: the events a batch of the input's at a
 * time, as the tracker reads them), then end.  So the lines of different
 * threads interleave where the input's batches end, which is where a
 * trace file's buffer does (merge.h): a capture's folder and its archive
 * give the same lines in another order.  Each thread's own lines, and
 * so what a viewer draws, do not depend on it; the Trace Event Format
 * asks no order ("The events do not have to be in timestamp-sorted
 * order").  An archive read in one pass reads its copies in the
 * handles' blocks (inputdefs.h, once), so the same capture gives the
 * same bytes however its archive is read. */
void wc_traceevent_begin(struct wc_traceevent *t, const char *capture);
void wc_traceevent_events(struct wc_traceevent *t, const struct wc_event *evs,
			  size_t n);
/* comm: the process name of rq->pid, or NULL; cause: of rq->cause_pid. */
void wc_traceevent_request(struct wc_traceevent *t, const struct wc_request *rq,
			   enum wc_cat cat, const char *comm,
			   const char *cause);
/* Device names (dev_t -> "sda") for the process names: NULL or "" for
 * none.  Before begin's first event, or they name no device. */
void wc_traceevent_name_device(struct wc_traceevent *t, uint32_t device,
			       const char *name);
void wc_traceevent_end(struct wc_traceevent *t, const struct wc_phase *phases,
		       size_t nphases);

/* Writes the tail; -1 with err when anything written to f failed. */
int wc_traceevent_close(struct wc_traceevent *t, struct wc_err *err);
void wc_traceevent_free(struct wc_traceevent *t);

#endif /* WC_TRACEEVENT_H */
