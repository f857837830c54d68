/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blknames.h - process names as blkparse gives them, for --dump: the
 * scouts that read each stream's records ahead of the merge for their
 * names only.
 *
 * blkparse names a pid by the first process notify it reads for it, and
 * it reads each per-CPU file WC_BLKNAMES_BATCH (512) records at a time
 * (notify records other than messages not counted): every file's first
 * batch before it prints anything, the next batch of a file right after
 * it printed the last event of the one before.  So when one pid carries
 * several names (pid 0 is swapper/0 on CPU 0 and swapper/1 on CPU 1), the
 * one it prints depends on those batches, and can come from a notify far
 * ahead of the event, on another CPU.  The analysis wants the first name
 * the events handed out carried, which the record filter gives
 * (recfilter.h) without this module; only --dump asks for blkparse's.
 *
 *     struct wc_blknames *bn = NULL;
 *
 *     // after wc_streams_seal(), before the first pull
 *     if (wc_blknames_open(&bn, st, filter, packed, &err) < 0)
 *             goto fail;
 *     ... pull the streams; wc_recfilter_comm() names as blkparse ...
 *     wc_blknames_free(bn);
 *     wc_streams_free(st);
 *
 * How a stream is scouted (just before the events of each of its batches
 * are handed out, the stream then read an event at a time):
 *  - a stream held in memory: its bytes again, borrowed;
 *  - an archive member while every member can keep its handle: a second
 *    handle kept for its scout, the first WC_INPUT_AHEAD of them read
 *    ahead on threads from the open when PACKED (the archive is
 *    decompressed to be read), as the members themselves are (reopening
 *    a member at each batch would decompress the archive again each
 *    time).  The open-file limit has room for them: at most half the
 *    pool's handles are members read from the archive, the others are
 *    read whole or copied aside (inputdefs.h, WC_INPUT_HANDLES), and the
 *    pool is within the limit (WC_INPUT_FD_SPARE);
 *  - an archive member copied aside (members.h: past the handles, or
 *    every member of a one-pass scan, --dump's): a second reader of its
 *    copy, kept; the archive is not opened again for it;
 *  - an archive member when more members need handles than may be open:
 *    one pass at a time on a handle of its own (closing a stream first
 *    when none is free, wc_streams_make_room()) reads WC_INPUT_KEEP bytes
 *    of records ahead and queues the names of pids not yet named with
 *    their batch numbers (WC_INPUT_SCOUT_NAMES a stream,
 *    WC_INPUT_SCOUT_NAMES_ALL in all), handed over as the batches begin;
 *  - a file while every file can keep its handle and the open-file
 *    limit (RLIMIT_NOFILE, at the open) has room for two a file and
 *    WC_INPUT_FD_SPARE more: a second handle kept for its scout;
 *  - any other file: a handle opened for each batch, at the offset where
 *    the last one stopped (one descriptor more than the readers').
 *
 * What always holds:
 *  - a scout that cannot read (a failure, no handle free) leaves the
 *    names to the reader, which reports any failure when it gets there;
 *    names past the queue's bounds are taken as the reader meets them,
 *    as without this module;
 *  - only running out of memory for a name fails a pull;
 *  - a single stream (a merged file, standard input) is not scouted: it
 *    is read as blkparse reads it by the reorder window
 *    (wc_reorder_set_blkparse(), reorder.h);
 *  - the scouts own their handles and queues, freed as their stream ends
 *    and at wc_blknames_free(); the table and the filter are the
 *    caller's and must outlive the scouts, and the table is not pulled
 *    after wc_blknames_free() (its pulls call the scouts);
 *    wc_blknames_free(NULL) is fine.
 */
#ifndef WC_BLKNAMES_H
#define WC_BLKNAMES_H

#include <stdbool.h>

#include "input/recfilter.h"
#include "input/streams.h"
#include "base/wcerr.h"

/* blkparse's batch: records read from a per-CPU file at a time (its
 * rb_batch). */
#define WC_BLKNAMES_BATCH 512u

struct wc_blknames;

/* Scouts for the streams of ST (sealed, not yet pulled), naming pids in
 * FILTER; PACKED: the archive is decompressed to be read.  0, or -1 out
 * of memory (err filled). */
int wc_blknames_open(struct wc_blknames **out, struct wc_streams *st,
		     struct wc_recfilter *filter, bool packed,
		     struct wc_err *err);
void wc_blknames_free(struct wc_blknames *bn);

#endif /* WC_BLKNAMES_H */
