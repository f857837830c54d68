/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ledger.h - a model disk's ledger.tsv (docs/capture-format.md) as the
 * disk's own work outside any request: its destage rows of no command.
 *
 * The ledger is the model disk's (wcdisk's) account of what it did.
 * Most of it the trace sees too, as requests; what it cannot see is the
 * work the drive does on its own: the ranges it destages from its write
 * cache while its queue is empty (idle destage), and the destage the lab
 * asks for after the workload (capture.conf durable_ns).  Those are the
 * rows of op S with cause_seq 0.  This module hands them out one at a
 * time, in the ledger's order, which is the disk's:
 *
 *     struct wc_ledger *lg = NULL;
 *     struct wc_ledger_work w;
 *
 *     if (wc_ledger_open(&lg, src, 0, &err) < 0)   // region 0 only
 *             goto fail;                           // src is lg's now
 *     while ((r = wc_ledger_next(lg, &w, &err)) > 0)
 *             ...[w.start, w.end) the disk was busy, w.bytes destaged...
 *     if (r < 0) ...err: "FILE: MEMBER: offset N: what is wrong"...
 *     wc_ledger_totals(lg, &t);     // at the end: the whole ledger's
 *     wc_ledger_free(lg);
 *
 * Times are the ledger's, CLOCK_MONOTONIC: the trace clock (capture.conf
 * trace_clock mono), so they are compared with the trace's as they are.
 * A work's end is the model's (end_ns - late_ns): late_ns is wcdisk's
 * own delay in answering, which moves nothing on the disk.
 *
 * The ledger comes from whoever made the archive; what holds:
 *  - the header must name the columns seq, op, bytes, start_ns, end_ns,
 *    late_ns and cause_seq (region is optional: every row is region 0
 *    without it), in any order, each once; every row must have as many
 *    fields as the header, each of these a decimal number below 2^64
 *    (op one letter of R, W, F, D, S), end_ns at least late_ns + start_ns;
 *  - the work comes in time order, each piece starting where the one
 *    before it ended or later (the disk destages one range at a time);
 *  - a line of more than WC_LEDGER_MAX_LINE bytes, or a NUL in one, is
 *    refused;
 *  - any of these fails wc_ledger_next() with WC_ERR_INPUT and the
 *    offset of the line's first byte; nothing before it is taken back.
 * Memory: the source's buffer and one struct; nothing per row.
 * wc_ledger_free(NULL) is fine.
 */
#ifndef WC_LEDGER_H
#define WC_LEDGER_H

#include <stdint.h>

#include "input/source.h"
#include "base/wcerr.h"

/* The ledger's file name in a capture folder. */
#define WC_LEDGER_FILE "ledger.tsv"

/* A piece of the disk's own work: [start, end) on the trace clock, ns. */
struct wc_ledger_work {
	uint64_t start, end;
	uint64_t bytes;                /* destaged */
	uint32_t region;               /* capture.conf disk_regions' place */
};

/* What the disk did by its own account, over every row read so far:
 * every region's, commands' and destage alike.  Ends are the model's
 * (end_ns - late_ns). */
struct wc_ledger_totals {
	uint64_t rows;
	/* The union of the rows' [start, end), in the ledger's order (the
	 * disk's: by start; a command's own destage rows lie inside it):
	 * the time the model disk was busy, its destage of no command
	 * included. */
	uint64_t busy;
	/* The commands' (op R, W, F, D) end - start, summed: the model's
	 * own time per request. */
	uint64_t commands;
};

struct wc_ledger;

/* Every region's work (wc_ledger_open()'s REGION). */
#define WC_LEDGER_ALL UINT32_MAX

/* Reads the header of SRC, which the ledger owns from now on (freed with
 * it, or here on failure).  REGION: only the work of that region is
 * handed out (the order is checked over every region), or
 * WC_LEDGER_ALL.  0, or -1 with err filled. */
int wc_ledger_open(struct wc_ledger **out, struct wc_source *src,
		   uint32_t region, struct wc_err *err);
/* The next piece of work: 1 with *w filled, 0 at the end, -1 with err
 * filled (and -1 again at every call after). */
int wc_ledger_next(struct wc_ledger *lg, struct wc_ledger_work *w,
		   struct wc_err *err);
/* The totals of the rows read so far: of the whole ledger once
 * wc_ledger_next() returned 0 (whatever REGION it hands out). */
void wc_ledger_totals(const struct wc_ledger *lg, struct wc_ledger_totals *t);
void wc_ledger_free(struct wc_ledger *lg);

#endif /* WC_LEDGER_H */
