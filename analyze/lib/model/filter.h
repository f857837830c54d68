/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter.h - which requests an analysis looks at, as btt and blkparse
 * users choose them: a time window, a phase, a device, a process.
 *
 *     struct wc_filter f = WC_FILTER_INIT;
 *     if (wc_filter_parse_window(&f, "2.5,10") < 0) usage error;
 *     wc_filter_parse_device(&f, "8,0");     // or "sda" (capture.conf)
 *     wc_filter_parse_process(&f, "cp");     // or a pid
 *     snprintf(f.phase, sizeof(f.phase), "%s", "copy");
 *     o.filter = &f;                          // analysis.h applies it
 *
 * The analysis applies the device and process filters to the tracker's
 * requests, before the classifier and the accountant (wc_filter_keep());
 * the window it gives the accountant (account.h, conf.window), which
 * attributes the time of the requests that passed as it does for a
 * phase, and then cuts it to the window:
 *  - the window is [start, end] in the trace clock: with a phase, START
 *    and END are seconds from the phase's start and the window is the
 *    phase's when none is given (and never reaches past the phase);
 *    without one, seconds from the capture's first event; an END left
 *    out means to the end.  The report's window is the phase's, as
 *    phases.tsv gives it, or else the filter's within the trace's first
 *    and last event (wc_filter_window_of());
 *  - inside it, the completion-driven slices of the whole trace (what a
 *    request served before the window's start belongs to the time
 *    before): a filtered report's parts sum to its window, and two
 *    windows side by side add up to the two as one, to the nanosecond;
 *    requests are counted in the window they complete in;
 *  - a device filter keeps the requests of that device (which is then
 *    the main device); a name is looked up among capture.conf's devices
 *    (wc_filter_resolve_device());
 *  - a process filter keeps the requests whose process is that pid or
 *    bears that command name: the pid that queued it, or for a flush
 *    the thread that asked for it (tracker.h, cause_pid) when known, not
 *    the kworker that dispatched it; so each request is one process's.
 * Nothing here allocates; the struct is plain data.
 */
#ifndef WC_FILTER_H
#define WC_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/request.h"

struct wc_filter {
	bool has_window;
	double win_start_s;          /* >= 0 */
	double win_end_s;            /* < 0: to the end */
	char phase[64];              /* --phase NAME, or "" */
	bool has_device;
	bool device_known;           /* device holds the dev_t */
	uint32_t device;
	char device_name[64];        /* to look up when !device_known */
	bool has_pid;
	uint32_t pid;
	char comm[64];               /* command name, or "" */
};

#define WC_FILTER_INIT { false, 0, -1, "", false, false, 0, "", false, 0, "" }

/* True when any filter is set. */
bool wc_filter_any(const struct wc_filter *f);

/* "START,END" (seconds; END may be empty: to the end; START < END).
 * 0, or -1 when malformed. */
int wc_filter_parse_window(struct wc_filter *f, const char *arg);
/* "MAJ,MIN" or "MAJ:MIN", else a device name (at most 63 bytes). */
int wc_filter_parse_device(struct wc_filter *f, const char *arg);
/* All digits: a pid; else a command name (at most 63 bytes). */
int wc_filter_parse_process(struct wc_filter *f, const char *arg);
/* NAME, at most 63 bytes. */
int wc_filter_parse_phase(struct wc_filter *f, const char *arg);

/* Looks a device name up: sets f->device when one of the n (dev_t,
 * name) pairs has it.  Returns whether f->device is known now. */
bool wc_filter_resolve_device(struct wc_filter *f, const uint32_t *devs,
			      const char *const *names, size_t n);

/* The window in the trace clock, from the capture's first event time
 * (origin) and the phase's [pstart, pend] when f names one (has_phase). */
struct wc_filter_window {
	uint64_t start, end;         /* end UINT64_MAX: open */
};
void wc_filter_window_of(const struct wc_filter *f, uint64_t origin,
			 bool has_phase, uint64_t pstart, uint64_t pend,
			 struct wc_filter_window *w);

/* Whether rq passes the device and process filters.  comm and cause
 * name rq->pid and rq->cause_pid (NULL: unknown). */
bool wc_filter_keep(const struct wc_filter *f, const struct wc_request *rq,
		    const char *comm, const char *cause);

/* The filters in words for a report's header ("window 2.5 s to 10 s of
 * phase copy; device 8,0; process cp"), input text as given (writers
 * escape it); "" when none. */
void wc_filter_describe(const struct wc_filter *f, char *buf, size_t size);

#endif /* WC_FILTER_H */
