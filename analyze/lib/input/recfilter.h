/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recfilter.h - the record filter: which records of a trace become
 * events, and what the input learns from the others.
 *
 * A blktrace stream interleaves two kinds of records: the block layer's
 * events, and notify records the tracer adds for itself (a process's
 * name when it first shows up, the wall clock, a message).  The filter
 * takes the records of a stream as the decoder gives them, a batch at a
 * time, and keeps the events:
 *  - a process notify names its pid (wc_recfilter_comm()), and is
 *    dropped;
 *  - the other notify records are dropped too, except message notifies
 *    (WC_TN_MESSAGE), which blkparse prints and so are kept as events;
 *  - an event with a sequence number (blktrace numbers its records per
 *    device and CPU, from 1; tracefs records all carry 0) adds the
 *    numbers it skipped since the last one of its (device, CPU) to the
 *    caller's count, as blkparse's "skips" do.
 *
 *     struct wc_recfilter *f = NULL;
 *
 *     if (wc_recfilter_open(&f) < 0)
 *             goto oom;
 *     while ((n = read_records(evs)) > 0) {
 *             if (wc_recfilter_apply(f, evs, n, &kept, &skips) < 0)
 *                     goto oom;           // evs[0..kept) still good
 *             use(evs, kept);
 *     }
 *     name = wc_recfilter_comm(f, pid);
 *     wc_recfilter_free(f);
 *
 * What always holds:
 *  - one implementation for every caller: a single record is a batch of
 *    one, and a stream read one record at a time is filtered exactly as
 *    the same records in batches of any size (check_recfilter spans
 *    both);
 *  - the kept events stay in their order, moved to the front of the
 *    batch; the events a failure stopped at were not looked at;
 *  - a pid keeps the first name given to it, as in blkparse; names of
 *    at most WC_INPUT_MAX_PIDS pids and the sequences of at most
 *    WC_INPUT_MAX_SEQ_KEYS (device, CPU) pairs are kept (wclimits.h):
 *    past that a corrupt or endless trace gets no new names and no
 *    new gap counts rather than unbounded memory;
 *  - the last sequence number of a (device, CPU) is shared by every
 *    stream of an input (a merged file interleaves all of them), and is
 *    looked up through one small cache of the pairs met last;
 *  - the filter owns its memory; a name is valid until the next call
 *    that may add one; wc_recfilter_free(NULL) is fine.
 */
#ifndef WC_RECFILTER_H
#define WC_RECFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/event.h"

struct wc_recfilter;

/* 0, or -1 when out of memory. */
int wc_recfilter_open(struct wc_recfilter **out);

/*
 * Filters the N records at EVS, read from one stream in its order, in
 * place: the events kept are EVS[0..*kept), and each sequence number
 * skipped is added to *skips.  0, or -1 when out of memory for a name or
 * a sequence: EVS[0..*kept) are then the events before the record it
 * failed at, still to be handed out before the failure.
 */
int wc_recfilter_apply(struct wc_recfilter *f, struct wc_event *evs, size_t n,
		       size_t *kept, uint64_t *skips);

/* Records filtered so far whose sequence number is the one of the record
 * before them of their (device, CPU): the same record twice, as in a
 * merged "blkparse -d" file of a per-CPU file given more than once.  The
 * window is that one record a (device, CPU), the memory the gap count's;
 * a copy further away is counted as a gap's end instead, or not at all.
 * Tracefs's records (all 0) never count. */
uint64_t wc_recfilter_repeats(const struct wc_recfilter *f);

/* The CPUs numbered records named so far (a whole-trace check: a CPU
 * whose file is missing from a per-CPU capture): whether CPU was one
 * (CPUs from WC_RECFILTER_CPUS on are never), and the highest named + 1
 * (0 when none; saturating at UINT32_MAX). */
#define WC_RECFILTER_CPUS 4096u
bool wc_recfilter_cpu_named(const struct wc_recfilter *f, uint32_t cpu);
uint32_t wc_recfilter_cpu_end(const struct wc_recfilter *f);

/* Process name of PID from the process notifies filtered so far, or
 * NULL. */
const char *wc_recfilter_comm(const struct wc_recfilter *f, uint32_t pid);

/* Pids named so far: a name never changes once given, so this count
 * says which names a reader had at a point of the trace, and
 * wc_recfilter_comm_before() gives PID's name only if it was among the
 * first NAMES given (what wc_recfilter_comm() said when the count was
 * NAMES): for a reader that looks names up behind the filter, on
 * another thread (input/ahead.h). */
uint32_t wc_recfilter_names(const struct wc_recfilter *f);
const char *wc_recfilter_comm_before(const struct wc_recfilter *f,
				     uint32_t pid, uint32_t names);

/* Names PID with the LEN bytes at NAME (a command name may lack its NUL;
 * at most 15 are kept) unless it has a name already: for readers that
 * learn names ahead of the filter (blkparse's batches, blknames.h).
 * 0, or -1 when out of memory. */
int wc_recfilter_name(struct wc_recfilter *f, uint32_t pid,
		      const unsigned char *name, size_t len);

void wc_recfilter_free(struct wc_recfilter *f);

#endif /* WC_RECFILTER_H */
