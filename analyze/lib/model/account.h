/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * account.h - where the time went: the partition of a capture's window.
 *
 * The accountant takes classified requests in completion order (as the
 * tracker hands them out) and keeps, per device and per phase, fixed-size
 * figures: time per category with completion-driven service slices, idle
 * time, positioning versus transfer, counts and bytes, FUA writes, seeks
 * with a distance histogram, the flush D2C distribution, queue depth and
 * the time processes waited, who issued the flushes and each process's
 * service time, by command name.
 *
 *     struct wc_account *ac = NULL;
 *     struct wc_account_conf conf = {
 *             .media_rate = 0,                // estimate it
 *             .name = comm_of, .name_arg = in // pid -> command name
 *     };
 *     if (wc_account_open(&ac, &conf, &err) < 0) goto fail;
 *     while (more requests)
 *             wc_account_add(ac, &rq, wc_classify(&cl, &rq));
 *     wc_account_finish(ac, first_event_time, last_event_time);
 *     const struct wc_figures *f = wc_account_device(ac, 0);
 *     ...
 *     wc_account_free(ac);
 *
 * The model (docs/methodology.md):
 *  - the window is [first, last] given to wc_account_finish(); a phase's
 *    window is its [start, end];
 *  - a completion at time c ends the slice that began at the later of
 *    the request's own D and the previous completion on that device (a
 *    request without D starts at the previous completion, or its Q, or
 *    c); the slice belongs to the completing request's category;
 *  - a request dispatched and never completed (the trace ended first,
 *    or its C was lost with a CPU's file) keeps the device outstanding
 *    from its D until the device's bound after it
 *    (wc_account_set_bound(): the command timeout, after which the
 *    kernel gives up on it), or the window's end: that time, where no
 *    slice covers it, is outstanding_ns, neither idle nor any
 *    category's, and no latency: the trace cannot say when it ended;
 *  - the device's own work (wc_account_set_work(): a model disk's
 *    ledger, its destage of no command while its queue was empty, and
 *    the destage the lab asked for after the workload) is busy time of
 *    no request: each piece's part that no slice covers and the window
 *    holds is internal_ns (a slice that covers it has it already: the
 *    request waited for it), never idle;
 *  - idle = window - the slices inside it - internal - outstanding, so
 *    for every device and every phase idle_ns + internal_ns +
 *    outstanding_ns + sum(time_ns) == window_ns, to the nanosecond
 *    (where a never-completed request's span and the device's own work
 *    meet, the work's: outstanding takes what is left of idle);
 *  - transfer of a journal, metadata or data slice = bytes / media rate,
 *    at most the slice; positioning = the rest.  The rate is conf's, or
 *    the one estimated from streaming requests (a request that starts
 *    where the previous one on the device ended, issued before that one
 *    completed, 64 KiB or more), or unknown (positioning unknown);
 *  - behind a write-back cache (conf's write_cache 1, on cache_device
 *    or every device) a write that is not FUA was absorbed: its slice is
 *    all transfer (to the cache), it is no streaming request, and its
 *    bytes are destaged by the next flush on the device, whose slice is
 *    split the same way against them: destage transfer = the bytes
 *    absorbed since the previous flush / media rate, at most the slice,
 *    destage positioning = the rest, counted in positioning too.  An
 *    estimate: the trace does not see what the cache wrote back while
 *    the device looked idle, or while a write waited for room (then
 *    inside that write's slice, counted as its transfer);
 *  - a seek is a request (with bytes) starting more than 128 sectors from
 *    where the previous one on its device ended, in completion order,
 *    which is the order the device served them.
 *
 * The phases' starts and ends cut time into spans: a request that lies
 * within one span (from its D, or its slice's start, to its C, which is
 * not an edge) goes to the phases covering that span without a test per
 * phase; one that reaches over an edge is tested against every phase.
 * Either way each phase gets exactly what the model above gives it, for
 * any phase list (overlapping, unordered, empty, ending before it
 * starts: such a phase gets nothing).  A request that goes wholly to the
 * one phase covering its span is counted once, in a run its device keeps
 * for that phase, and the run is added to both when another phase's
 * request takes it (after at least 1,024 requests) and in
 * wc_account_finish(); bytes by positioning bin, a sum of doubles, go to
 * both at once, in order.
 *
 * Outstanding time is exact unless a never-completed request was
 * dispatched before its device's newest WC_ACCOUNT_STRETCHES stretches
 * without a slice (wclimits.h): the older stretches are forgotten and
 * count as idle.  At most WC_ACCOUNT_STRETCHES disjoint outstanding
 * spans are kept per device; past that a new one joins its nearest
 * neighbour, and the time between them counts as outstanding.
 *
 * One disk of partitions (conf's disk, two devices or more: capture.conf's
 * disk_regions, the partitions one model disk served) is also accounted
 * as that disk: every request of its partitions goes, besides its own
 * device's figures, to the disk's, its sector moved by its partition's
 * offset, by the model above as if the disk were one more device whose
 * requests are all of theirs (a slice begins no earlier than the disk's
 * previous completion, whichever partition it was on).  So the disk's
 * busy time, categories, queue and seeks take in every partition's
 * requests (the source's reads are the disk's data reads), and its
 * idle_ns + outstanding_ns + sum(time_ns) == window_ns as any device's.
 * Beside it, the split by partition (wc_account_part()): each one's
 * requests, bytes and the part of the disk's slices its requests ended,
 * which sum to the disk's busy time less its internal_ns (no request's).  The time some device was busy
 * (wc_account_busy_any()) then takes the disk's slices in place of its
 * partitions' own.
 *
 * What always holds: memory is fixed per device (at most WC_MAX_DEVICES,
 * tracker.h; requests on any further device are ignored), per phase and
 * per command name (at most WC_MAX_COMMS, the rest go to "(other)") and
 * per pid of a table by process (at most WC_ACCOUNT_PIDS at once), never
 * by the number of requests.  Figures are valid after wc_account_finish()
 * and until wc_account_free(), which accepts NULL.
 */
#ifndef WC_ACCOUNT_H
#define WC_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/classify.h"
#include "format/request.h"
#include "base/wcerr.h"
#include "base/wclimits.h"

#define WC_SEEK_BINS 48     /* bin k: distance in [2^k, 2^(k+1)) sectors */
#define WC_STREAM_MIN_BYTES 65536u

/* A latency distribution, nanoseconds; all 0 when n == 0.  Percentiles
 * come from a log histogram (16 bins an octave): within 4.5 %. */
struct wc_latency {
	uint64_t n;
	uint64_t min, p50, p90, p99, max;
	uint64_t sum;
};

/* Figures of one device over the whole window or over one phase. */
struct wc_figures {
	uint32_t device;                 /* dev_t */
	uint64_t start, end;             /* the window, trace clock ns */
	uint64_t window_ns;              /* end - start */
	uint64_t idle_ns;
	uint64_t outstanding_ns;         /* dispatched, never completed */
	/* The device's own work outside any request (wc_account_set_work()):
	 * busy, no category's.  internal_known: given for this device (else
	 * all three are 0); ranges and bytes: the pieces that began in the
	 * window. */
	bool internal_known;
	uint64_t internal_ns;
	uint64_t internal_ranges, internal_bytes;
	uint64_t time_ns[WC_NCAT];       /* idle_ns + internal_ns +
	                                  * outstanding_ns + sum == window_ns */
	uint64_t requests[WC_NCAT];      /* completed in the window */
	uint64_t bytes[WC_NCAT];
	bool positioning_known;          /* false: no media rate */
	uint64_t positioning_ns;         /* part of journal+metadata+data,
	                                  * and destage_positioning_ns */
	uint64_t destage_positioning_ns; /* part of flush: write cache on */
	uint64_t destage_transfer_ns;    /* the rest of the flushes that
	                                  * destaged absorbed writes */
	uint64_t fua_writes;
	uint64_t seeks;                  /* > 128 sectors from previous end */
	uint64_t seek_candidates;        /* requests with bytes after a first */
	uint64_t seek_hist[WC_SEEK_BINS];
	struct wc_latency flush_d2c;     /* empty flush requests, D to C */
	struct wc_latency d2c;           /* every request with a D */
	uint64_t inflight_ns;            /* sum of D-to-C: mean depth * window */
	uint32_t max_depth;              /* most requests at the driver */
	uint64_t unfinished;             /* dispatched, never completed */
};

/* Time processes waited for sync requests: Q to C, by command name.
 * For the processes' own table (wc_account_process()), wait_ns is
 * their requests' service slices and bytes their bytes. */
struct wc_wait {
	char comm[32];
	uint64_t requests;
	uint64_t wait_ns;
	uint64_t bytes;
};

struct wc_phase_window {
	uint64_t start, end;
};

/* The command name of PID (NULL or "" when unknown: "(unknown)"); the
 * accountant copies it before its next call. */
typedef const char *wc_account_name_fn(const void *arg, uint32_t pid);

struct wc_account_conf {
	double media_rate;               /* bytes/s; 0: estimate from trace */
	/* Devices whose rate is never estimated (their rotational flag
	 * cannot be trusted: wc_analysis_rotational_doubt()); without
	 * media_rate they get no positioning split. */
	uint32_t no_estimate[WC_MAX_DEVICES];
	size_t nno_estimate;
	/* Names the processes of the tables by process (the waits, the
	 * flushers, the time by process).  The accountant tallies them by
	 * pid and asks for each pid's name in wc_account_finish() (earlier
	 * only when more than WC_ACCOUNT_PIDS pids came).  NULL: every
	 * process is "(unknown)". */
	wc_account_name_fn *name;
	const void *name_arg;
	int write_cache;                 /* 1: on, the rest: off or unknown */
	uint32_t cache_device;           /* dev_t it is on; 0: every device */
	size_t nphases;                  /* <= WC_MAX_PHASES */
	const struct wc_phase_window *phases;
	/* A window (filter.h) to take the figures of a device over instead
	 * of [first, last]: the model's slices cut to it as a phase's are,
	 * so that the figures of two windows side by side add up to those
	 * of the two as one.  The flushers are the window's flushes' (as
	 * its requests are counted: those that completed inside it, their
	 * time cut to it); the waits, as a process's line, the part of each
	 * wait inside it, a request counted where it completed. */
	bool has_window;
	struct wc_phase_window window;
	bool window_in_trace;            /* cut it to wc_account_finish()'s
	                                  * [first, last] */
	/* The partitions of one disk (dev_t) and each one's first sector
	 * on it, at most WC_ACCOUNT_PARTS; fewer than two: no disk, every
	 * figure as without.  A device given twice counts once. */
	size_t ndisk;
	uint32_t disk[WC_ACCOUNT_PARTS];
	uint64_t disk_offset[WC_ACCOUNT_PARTS];
};

/* One partition of the disk: its requests and bytes (completed inside
 * the window, as the figures count them) and the disk's service slices
 * its requests ended (cut to the window): busy_ns sums over its
 * partitions to the disk's busy time less its internal_ns. */
struct wc_account_part {
	uint32_t device;
	uint64_t requests;
	uint64_t bytes;
	uint64_t busy_ns;
};

struct wc_account;

int wc_account_open(struct wc_account **out, const struct wc_account_conf *conf,
		    struct wc_err *err);
/* Requests must come in completion order; unfinished ones
 * (rq->completed false) are only counted.  A completed request is its
 * process's (the pid that queued it, or for a flush the thread that
 * asked for it, rq->cause_pid): its slice (cut to the window, when one
 * was given), its request and bytes when it completed inside the window
 * go to that process's line of the device's table, a flush's slice
 * (cut likewise, when it completed inside the window) to the device's
 * flushers by the same process, and a sync request's Q to
 * C (cut to the window likewise) to the waits by the pid that queued
 * it. */
void wc_account_add(struct wc_account *ac, const struct wc_request *rq,
		    enum wc_cat cat);
/* Follows DEVICE from now on though no request of it came yet: a
 * filtered analysis whose window holds none of the main device's
 * requests still has its figures (all idle).  -1 when out of memory or
 * past WC_MAX_DEVICES. */
int wc_account_add_device(struct wc_account *ac, uint32_t device);
/* The bound after a dispatch on DEVICE (dev_t; 0: every device without
 * one of its own) that a request never completed stays outstanding, in
 * ns >= 1; the tracker's bound (tracker.h), WC_TRACKER_BOUND_NS unless
 * set.  0, or -1 when ac is NULL, ns is 0 or more than WC_MAX_DEVICES
 * devices were given one. */
int wc_account_set_bound(struct wc_account *ac, uint32_t device, uint64_t ns);
/* A piece of a device's own work, [start, end) on the trace clock, and
 * the bytes it destaged. */
struct wc_account_work {
	uint64_t start, end;
	uint64_t bytes;
};
/* Pulls the next piece into *w: 1, 0 at the end, -1 failed (the caller
 * keeps why; the accountant takes no more from it). */
typedef int wc_account_work_fn(void *arg, struct wc_account_work *w);
/*
 * DEVICE's own work, pulled from NEXT as its requests' completions pass
 * it: pieces in time order, each starting at or after the end of the
 * one before (a piece that starts earlier is taken from that end on).
 * Work before FROM (the trace's first event) is not the window's.  The
 * accountant holds one piece at a time: memory does not grow with the
 * work.  Call before the device's first request; ARG must outlive
 * wc_account_finish().  0, or -1 when ac is NULL, next is NULL or more
 * than WC_MAX_DEVICES devices were given work.
 */
int wc_account_set_work(struct wc_account *ac, uint32_t device,
			wc_account_work_fn *next, void *arg, uint64_t from);
/* The same for the disk of conf's partitions (wc_account_disk()): all
 * of its partitions' work, from a source of its own.  The time some
 * device was busy then takes the disk's work in place of its
 * partitions' (as their slices).  -1 when the conf gave no disk. */
int wc_account_set_disk_work(struct wc_account *ac, wc_account_work_fn *next,
			     void *arg, uint64_t from);
/* Closes the window.  When no event was seen, pass first = last = 0. */
void wc_account_finish(struct wc_account *ac, uint64_t first, uint64_t last);

/* The time some device was busy: the union of every device's service
 * slices (each device's own are disjoint; two devices' may overlap), cut
 * to the window when one was given, so
 * that it less one device's busy time is the time another was busy
 * while that one was idle; a device's own work (wc_account_set_work())
 * counts as its slices do.  Exact unless a slice reaches back over more
 * than 64 stretches of idle time (account.c, busy_union). */
uint64_t wc_account_busy_any(const struct wc_account *ac);

/* Devices in order of first completion. */
size_t wc_account_ndevices(const struct wc_account *ac);
/* The disk of conf's partitions as an index beside the devices' (one
 * past the last of them, wc_account_ndevices()), for every function
 * below that takes a device's index (its figures' device is its first
 * partition's dev_t); -1 when the conf gave no disk.  A request's depth
 * on it is its disk_depth (request.h: the tracker's count over every
 * partition, wc_tracker_set_disk()) when it has one, else its depth. */
int wc_account_disk(const struct wc_account *ac);
/* The disk's partitions in conf's order (0 without a disk). */
size_t wc_account_nparts(const struct wc_account *ac);
const struct wc_account_part *wc_account_part(const struct wc_account *ac,
					      size_t k);
const struct wc_figures *wc_account_device(const struct wc_account *ac,
					   size_t i);
/* Index of DEVICE, or -1. */
int wc_account_find(const struct wc_account *ac, uint32_t device);
/* Figures of device i over phase p. */
const struct wc_figures *wc_account_phase(const struct wc_account *ac,
					  size_t i, size_t p);
/* The media rate used for device i (bytes/s), 0 when unknown; *estimated
 * says whether it came from the trace. */
double wc_account_media_rate(const struct wc_account *ac, size_t i,
			     bool *estimated);
/* Who issued device i's flushes (WC_CAT_FLUSH requests; with a window,
 * those that completed inside it), most flush time first: wait_ns is
 * the flushes' service slices (cut to the window).  At most WC_MAX_FLUSHERS
 * names per device, the rest gathered as "(other)". */
size_t wc_account_nflushers(const struct wc_account *ac, size_t i);
const struct wc_wait *wc_account_flusher(const struct wc_account *ac, size_t i,
					 size_t k);
/* Device i's time by process (wc_account_add()), most time
 * first: at most WC_MAX_COMMS names, the rest gathered as "(other)".
 * The slices of all its processes sum to the device's busy time. */
size_t wc_account_nprocesses(const struct wc_account *ac, size_t i);
const struct wc_wait *wc_account_process(const struct wc_account *ac,
					 size_t i, size_t k);
/* Waits over all devices (with a window, their parts inside it),
 * longest first. */
size_t wc_account_nwaits(const struct wc_account *ac);
const struct wc_wait *wc_account_wait(const struct wc_account *ac, size_t i);

void wc_account_free(struct wc_account *ac);

/* The bin of the time-per-byte histogram behind positioning that a slice
 * of ns over bytes falls in: floor((log2(ns / bytes) + 16) * 24), within
 * [0, 959]; 0 when ns or bytes is 0.  The same bin as that formula with
 * libm's log2 for every input (log2 is called only near a bin's edge);
 * exposed for its test. */
size_t wc_account_pos_bin(uint64_t ns, double bytes);

/* Where the service slice of rq (completed) begins on a device whose
 * latest completion so far is prev_c (have_prev false: none yet): its D,
 * else its Q, else its C; never before prev_c, never after its C.  The
 * one rule of the model above, for every module that cuts time by it
 * (the accountant, the interval table). */
static inline uint64_t wc_account_slice_start(const struct wc_request *rq,
					      bool have_prev, uint64_t prev_c)
{
	uint64_t a, c = rq->c_time;

	if (rq->d_time != WC_NO_TIME)
		a = rq->d_time;
	else if (rq->q_time != WC_NO_TIME)
		a = rq->q_time;
	else
		a = c;
	if (have_prev && prev_c > a)
		a = prev_c;
	return a > c ? c : a;
}

/* Sum of busy time: the slices and the device's own work, window_ns -
 * idle_ns - outstanding_ns. */
static inline uint64_t wc_figures_busy(const struct wc_figures *f)
{
	return f->window_ns - f->idle_ns - f->outstanding_ns;
}

/* Total I/O of a device, for picking the main one: requests with bytes. */
uint64_t wc_figures_io_bytes(const struct wc_figures *f);

#endif /* WC_ACCOUNT_H */
