/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wclimits.h - every bound the analysis puts on what it keeps, in one
 * place, so that "memory bounded whatever the input" can be read off a
 * single page.  (Not limits.h: with -Ianalyze/lib that name would hide
 * the C library's.)
 *
 * Each limit says what happens past it; none of them stops the analysis.
 * Raising one costs memory per input (or per device, where it says so),
 * never time per event.
 */
#ifndef WC_WCLIMITS_H
#define WC_WCLIMITS_H

/* Devices followed per input (tracker, btt, accountant): events on any
 * further device are counted as ignored, nothing else. */
#define WC_MAX_DEVICES 64

/* Per-CPU files' devices told apart in the whole-trace check
 * (analysis.h files_missing), and how much of each file's device name is
 * kept (blktrace's own cap on a device name, BLKTRACE_BDEV_SIZE, is 32):
 * an input of more devices gets the check of CPUs alone. */
#define WC_FILE_DEVICES WC_MAX_DEVICES
#define WC_FILE_DEVICE_LEN 32

/* Phases (phases.tsv) accounted per capture: later ones are not read. */
#define WC_MAX_PHASES 64

/* How long after the workload returned a capture's data may become
 * durable (capture.conf durable_ns: a drive destaging its cache) for
 * the window to take it in, in ns: a drive's cache destages in seconds,
 * so a later time is not believed (the window then ends at the trace's
 * last event, as without it). */
#define WC_DURABLE_MAX_NS (3600ull * 1000000000ull)

/* Command names told apart in the sync-write figures; the rest go to
 * "(other)". */
#define WC_MAX_COMMS 64

/* Command names told apart among the issuers of each device's flushes;
 * the rest go to "(other)".  Per device. */
#define WC_MAX_FLUSHERS 16

/* Pids a table by process (account.h) tallies before it looks their
 * names up and folds them into its names; then it starts again.  Per
 * table; a bound on memory only, never on what the table says. */
#define WC_ACCOUNT_PIDS 256

/* Stretches of a device's time without a slice, and spans of requests
 * dispatched and never completed, the accountant keeps per device to
 * tell outstanding time from idle (account.h says what is inexact
 * past it). */
#define WC_ACCOUNT_STRETCHES 4096

/* Partitions of one disk the accountant takes as that disk (account.h):
 * as many as capture.conf's disk_regions keeps. */
#define WC_ACCOUNT_PARTS 8

/* Bios and requests kept in flight per device by the tracker; beyond it
 * the oldest are dropped and counted. */
#define WC_TRACKER_MAX_INFLIGHT 65536

/* Qs kept per device by btt; beyond it the oldest is forgotten and
 * counted. */
#define WC_BTT_MAX_KEPT 65536

/* The queue between an input read on a thread of its own and the
 * analysis (input/batchq.h): slots, each of up to WC_BATCHQ_SLOT batches
 * of WC_INPUT_BATCH events.  The reader waits while every slot is full:
 * a bound on memory (and on how far ahead the reader runs), never on
 * what is read. */
#define WC_BATCHQ_DEPTH 8
#define WC_BATCHQ_SLOT 4

/* Process names kept per input (more pids than any pid_max lets a
 * recorder see at once); past it, a corrupt or endless trace gets no new
 * names rather than unbounded memory. */
#define WC_INPUT_MAX_PIDS (1u << 17)

/* (device, CPU) pairs whose sequence gaps are counted per input. */
#define WC_INPUT_MAX_SEQ_KEYS 4096u

/* Devices given a time series (series.h, for the bundle's figures) per
 * capture, the first seen; requests on the others are counted
 * (wc_analysis_series_ignored()). */
#define WC_SERIES_MAX_DEVICES 8

/* Rows of an interval table (interval.h) handed out per capture; past
 * it rows are counted, not written: a trace whose timestamps lie years
 * apart cannot make the table endless. */
#define WC_INTERVAL_MAX_ROWS (1u << 24)

/* The longest line of a ledger.tsv (ledger.h) read: a row of the disk
 * model's 22 numbers is under 300 bytes. */
#define WC_LEDGER_MAX_LINE 1024u

#endif /* WC_WCLIMITS_H */
