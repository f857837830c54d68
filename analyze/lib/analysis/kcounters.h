/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kcounters.h - the trace checked against the kernel's own counters:
 * the two readings of /sys/class/block/DEV/stat a capture keeps in
 * counters.tsv (docs/capture-format.md), against the requests the trace
 * completed between them (docs/methodology.md, "The kernel's counters").
 *
 *     struct wc_kcount *k = NULL;
 *     struct wc_kcheck res;
 *
 *     if (wc_kcount_new(&k, capture, &err) < 0)   // capture.h's rows
 *             goto fail;
 *     ... for every request the tracker hands out, unfiltered:
 *     wc_kcount_add(k, &rq);
 *     wc_kcount_finish(k, &res);                   // res is the caller's
 *     wc_kcount_free(k);
 *
 * The model, from the kernel's own code (Documentation/admin-guide/
 * iostats.rst for the fields; block/blk-mq.c and block/blk-flush.c for
 * when they move):
 *  - the kernel counts a request, its sectors and its time when it
 *    completes, in the group of its operation (read, write, discard,
 *    flush): so does the trace's C;
 *  - an empty flush (REQ_PREFLUSH without data, from fsync or sync: "Q
 *    FWS") is executed as the flush queue's own flush request ("D FN",
 *    "C FN"), counted as a flush (blk_account_io_flush(), for the whole
 *    disk only); the request that asked for it then completes as a
 *    write of no sectors ("C WS 0": blk_flush_complete_seq() ends it
 *    with blk_mq_end_request() once RQF_FLUSH_SEQ is cleared, and
 *    blk_account_io_done() counts it in the write group).  So the
 *    kernel's writes are the trace's writes plus its empty flushes that
 *    had a Q of their own; a flush the block layer issued for a
 *    PREFLUSH write adds nothing to the writes (that write is counted
 *    once, as the trace counts it);
 *  - field 10, io_ticks, is in jiffies (update_io_ticks(), at each
 *    request's start and completion): it undercounts requests shorter
 *    than a jiffy and counts time a request waited in the queue before
 *    the driver took it.  It is compared with the trace's busy time
 *    and reported, never judged;
 *  - a completion between a reading's two clock readings may be in that
 *    reading or not: counted apart (maybe), so that a trace that holds
 *    exactly what the kernel counted agrees, whatever the order of the
 *    two.
 *
 * A device is compared when counters.tsv has a before and an after
 * reading of it as a disk (device = disk) and capture.conf gives its
 * MAJ:MIN; a partition's rows are counted, not compared (the trace is
 * the disk's).  A field the kernel does not print (11 or 15 fields) or
 * that went backwards between the readings (a wrap, a re-attached
 * device) is unknown.
 *
 * What always holds: memory is one fixed-size tally, whatever the
 * trace's length; the result is the caller's struct, copied whole;
 * wc_kcount_free(NULL) is fine.
 */
#ifndef WC_KCOUNTERS_H
#define WC_KCOUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/capture.h"
#include "format/request.h"
#include "base/wcerr.h"
#include "base/wclimits.h"

/* What is compared, per device. */
enum wc_kc_field {
	WC_KC_READS,
	WC_KC_READ_SECTORS,
	WC_KC_WRITES,
	WC_KC_WRITE_SECTORS,
	WC_KC_DISCARDS,
	WC_KC_DISCARD_SECTORS,
	WC_KC_FLUSHES,
	WC_KC_NFIELDS
};

/* "reads", "read_sectors", ... (JSON keys); "reads", "sectors read", ...
 * (words). */
const char *wc_kc_field_key(enum wc_kc_field f);
const char *wc_kc_field_words(enum wc_kc_field f);

struct wc_kc_figure {
	bool known;              /* the kernel prints it and it moved forward */
	uint64_t kernel;         /* after less before */
	/* Completions the kernel's difference holds for sure (the empty
	 * flushes' writes included), and those during a reading. */
	uint64_t trace, maybe;
	/* kernel - (trace + maybe) when positive: what the trace lost;
	 * trace - kernel when positive: what the trace has and the kernel
	 * did not count.  Both 0: they agree. */
	uint64_t missing, extra;
};

struct wc_kc_device {
	char name[64];
	uint32_t device;         /* dev_t */
	uint64_t start, end;     /* the before reading's end, the after's start */
	unsigned nfields;        /* of its stat file */
	struct wc_kc_figure fig[WC_KC_NFIELDS];
	/* Of fig[WC_KC_WRITES].trace (+ maybe): empty flushes the kernel
	 * counts as writes of no sectors. */
	uint64_t empty_flush_writes;
	bool io_ticks_known;
	uint64_t io_ticks_ms;    /* field 10's difference */
	uint64_t busy_ns;        /* the trace's busy time from start to end */
};

enum wc_kc_state {
	WC_KC_NONE,              /* no counters.tsv: nothing could be checked */
	WC_KC_UNUSABLE,          /* counters.tsv, but no traced disk in it
	                          * with both readings: why says so */
	WC_KC_COMPARED,
};

struct wc_kcheck {
	enum wc_kc_state state;
	char why[256];
	size_t ndevices;
	struct wc_kc_device dev[WC_MAX_DEVICES];
	size_t partitions;       /* partitions' rows, kept but not compared */
};

struct wc_kcount;

/* A tally over the counters CAP holds (none: *out is still made, and
 * finishes as WC_KC_NONE).  0, or -1 with err filled (no memory). */
int wc_kcount_new(struct wc_kcount **out, const struct wc_capture *cap,
		  struct wc_err *err);
/* One request from the tracker, completed or not (NULL k: nothing).
 * Requests come in completion order, as the tracker hands them out. */
void wc_kcount_add(struct wc_kcount *k, const struct wc_request *rq);
/* The comparison, into *out. */
void wc_kcount_finish(const struct wc_kcount *k, struct wc_kcheck *out);
void wc_kcount_free(struct wc_kcount *k);

/* The device agrees on every known field. */
bool wc_kc_device_agrees(const struct wc_kc_device *d);
/* Of the kernel's count, the share the trace holds, in %: 100 when the
 * kernel counted none. */
double wc_kc_held_pct(const struct wc_kc_figure *f);
/* The same in tenths of a per cent, cut, never rounded up: 999 when
 * one request in ten thousand is missing, 1000 only when none is. */
uint64_t wc_kc_held_permille(const struct wc_kc_figure *f);
/* Of the request counts (reads, writes, discards, flushes) the kernel
 * counted some of, the one the trace holds the least share of, writes
 * first among equals; WC_KC_NFIELDS when the kernel counted none. */
enum wc_kc_field wc_kc_device_least_held(const struct wc_kc_device *d);
/* The agreement in words, into BUF (always terminated): "the trace
 * holds 99.7 % of the writes the kernel completed", of the least held
 * request count; a share below 100 % is cut, never rounded up, so that
 * a trace that lost one request in ten thousand does not read 100 %. */
const char *wc_kc_held_words(const struct wc_kc_device *d, char *buf,
			     size_t size);

/* The two known reasons the trace and the kernel's counters differ
 * (docs/methodology.md, "The kernel's counters"), in words. */
extern const char wc_kc_reason_flush[];
extern const char wc_kc_reason_ticks[];

#endif /* WC_KCOUNTERS_H */
