/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * interval.h - the iostat-style interval table: per device and per
 * interval of a fixed length, the figures sysstat's `iostat -x` prints
 * (r/s, w/s, f/s, d/s, rMB/s, wMB/s, r_await, w_await, f_await, aqu-sz,
 * %util), computed from the trace's requests as they complete and
 * handed to a sink a row at a time (docs/methodology.md, "The interval
 * table").
 *
 *     struct wc_interval_conf conf = {
 *             .len_ns = 1000000000, .zero = first_event,
 *             .origin = first_event, .end = UINT64_MAX,
 *             .sink = &sink,            // a writer's: intervaltab.h
 *     };
 *     struct wc_interval *iv = NULL;
 *     if (wc_interval_open(&iv, &conf, &err) < 0) goto fail;
 *     wc_interval_name_device(iv, dev, "sda");       // optional
 *     while (more requests)                          // completion order
 *             wc_interval_add(iv, &rq, wc_classify(&cl, &rq));
 *     wc_interval_finish(iv, last_event_time);       // the last rows
 *     wc_interval_free(iv);
 *
 * The model, after the kernel's counters that iostat reads
 * (/proc/diskstats, Documentation/admin-guide/iostats.rst):
 *  - intervals are (origin + k * len_ns, origin + (k + 1) * len_ns] (the
 *    first one holds origin too), the last one cut at the end (the
 *    earlier of conf.end and wc_interval_finish()'s time): a row's rates
 *    are over its own length, which is never 0 but for an empty window;
 *  - a completed request counts in the interval holding its C, as the
 *    kernel counts I/Os, sectors and ticks when a request completes:
 *    reads and writes with bytes by their WRITE flag (journal and
 *    metadata writes are writes), flushes are empty flush requests
 *    (classify.h's WC_CAT_FLUSH: those the device executed, "FN"),
 *    discards apart; an empty request that is not a flush counts in no
 *    column.  Requests completed outside [origin, end] count nowhere;
 *  - a request's await is from its start to its C: its first bio's Q
 *    (the kernel starts a request's clock when it is made from that
 *    bio, a G right after the Q), else its D, so that await holds the
 *    time queued as iostat's does; r_await, w_await, f_await and d_await
 *    are the means of the interval's completions, 0 without any;
 *  - aqu-sz is the sum of those start-to-C times of the interval's
 *    completions over the interval's length: the kernel's weighted time
 *    (field 11), which credits a request's whole time when it
 *    completes, so a request longer than an interval adds all of it to
 *    the row it ends in;
 *  - %util is the device's busy time in the interval over its length:
 *    the accountant's completion-driven service slices (account.h,
 *    wc_account_slice_start()), cut at the intervals' edges, so that the
 *    rows' busy times add up to the report's busy time of the same
 *    window.  On a device that serves several requests at once (an
 *    SSD's queues, a RAID set) 100 % is not saturation (iostat(1));
 *  - a row is handed out when it can no longer change: when a later
 *    slice or completion of its device begins past it, or at
 *    wc_interval_finish().  A device's rows come in time order; rows of
 *    different devices interleave as their completions close them.  A
 *    row with no completion and no busy time is not handed out (iostat
 *    -z); a run of intervals that one request's slice keeps wholly
 *    busy, with no completion in them, is handed out as one row of
 *    their total length (len_ns a multiple of conf.len_ns, %util 100,
 *    no I/O): each of them would say the same.
 *
 * What always holds: at most three rows a request given to
 * wc_interval_add() (the row its slice starts in, one for the run of
 * rows it keeps busy, the row it ends and completes in), so rows, output
 * and time are bounded by the requests, never by how far apart a
 * hostile trace's timestamps lie (issue 39: one request of 2^58 ns gave
 * 16,777,216 rows); and never more than WC_INTERVAL_MAX_ROWS a table
 * (the rest counted, wc_interval_not_written()).  Memory is one open
 * row per device (at most WC_MAX_DEVICES; requests on any further
 * device are ignored), never by the number of requests or rows.  Names given to
 * wc_interval_name_device() are copied (cut at 63 bytes) and handed out
 * as given: the sink escapes them.  wc_interval_free(NULL) is fine.
 */
#ifndef WC_INTERVAL_H
#define WC_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/classify.h"
#include "format/request.h"
#include "base/wcerr.h"
#include "base/wclimits.h"

/* iostat's groups of requests, in its column order. */
enum wc_iokind {
	WC_IO_READ,
	WC_IO_WRITE,
	WC_IO_FLUSH,
	WC_IO_DISCARD,
	WC_NIO
};

/* "read", "write", "flush", "discard". */
const char *wc_iokind_name(enum wc_iokind k);

/* One device over one interval: the counts, and what iostat derives from
 * them (writers only format these). */
struct wc_interval_row {
	uint32_t device;                 /* dev_t */
	const char *name;                /* as given, or NULL */
	uint64_t start_ns;               /* trace clock */
	uint64_t len_ns;                 /* the interval's, cut at the end */
	double start_s;                  /* (start_ns - conf.zero) / 1e9 */
	uint64_t ios[WC_NIO];            /* completed in the interval */
	uint64_t bytes[WC_NIO];
	uint64_t await_ns[WC_NIO];       /* sums of start-to-C */
	uint64_t busy_ns;                /* service slices in the interval */
	/* Derived; 0 for a row of length 0 (an empty window). */
	double per_s[WC_NIO];            /* r/s, w/s, f/s, d/s */
	double mib_s[WC_NIO];            /* rMB/s ...: 2^20 bytes, as iostat -m */
	double await_ms[WC_NIO];         /* 0 without completions */
	double aqu_sz;
	double util_pct;
};

/* Where a table goes: begin when it opens (capture: conf.capture), the
 * rows, end when it is finished (not_written: wc_interval_not_written()).
 * Any of the three may be NULL. */
struct wc_interval_sink {
	void (*begin)(void *ctx, const char *capture, uint64_t len_ns);
	void (*row)(void *ctx, const struct wc_interval_row *row);
	void (*end)(void *ctx, uint64_t not_written);
	void *ctx;
};

struct wc_interval_conf {
	uint64_t len_ns;                 /* > 0 */
	uint64_t zero;                   /* what start_s counts from */
	uint64_t origin;                 /* the first interval's start */
	uint64_t end;                    /* UINT64_MAX: wc_interval_finish()'s */
	const struct wc_interval_sink *sink;   /* not owned; NULL: none */
	const char *capture;             /* its name for begin, or NULL */
};

struct wc_interval;

/* Calls the sink's begin.  -1 with err when out of memory or
 * conf.len_ns is 0. */
int wc_interval_open(struct wc_interval **out,
		     const struct wc_interval_conf *conf, struct wc_err *err);
void wc_interval_name_device(struct wc_interval *iv, uint32_t device,
			     const char *name);
/* Requests in completion order (as the tracker hands them out); an
 * unfinished one (rq->completed false) counts nowhere. */
void wc_interval_add(struct wc_interval *iv, const struct wc_request *rq,
		     enum wc_cat cat);
/* Hands out every device's last row, then calls the sink's end; the
 * table ends at the earlier of end (the trace's last event, say) and
 * conf.end. */
void wc_interval_finish(struct wc_interval *iv, uint64_t end);
/* Rows past WC_INTERVAL_MAX_ROWS, not handed out. */
uint64_t wc_interval_not_written(const struct wc_interval *iv);
/* Requests on devices past the first WC_MAX_DEVICES, counted nowhere. */
uint64_t wc_interval_ignored(const struct wc_interval *iv);
void wc_interval_free(struct wc_interval *iv);

#endif /* WC_INTERVAL_H */
