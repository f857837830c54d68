/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * streams.h - the trace files of an input as a table of streams, the
 * bounded pool of handles they share, and the spans of events the merge
 * pulls from them (merge.h).
 *
 * A stream is one per-CPU trace file: a file in a folder, standard input
 * or a merged "blkparse -d" file (the one stream of a single input), or
 * a member of an archive.  Whoever resolves the input adds the streams
 * (input.c; members.h for an archive, which also says how each member is
 * to be read: whole from memory, from a copy aside, or read ahead on a
 * thread), seals the table, then hands wc_streams_pull() to a merge or
 * reorder window with the table as its context:
 *
 *     struct wc_streams *st = NULL;
 *
 *     if (wc_streams_new(&st, path, &lim, filter, &err) < 0)
 *             goto fail;
 *     if (wc_streams_add(st, "t/sda.blktrace.0", "t/sda", 0, &err) < 0 ||
 *         wc_streams_add(st, "t/sda.blktrace.1", "t/sda", 1, &err) < 0 ||
 *         wc_streams_seal(st, WC_STREAMS_FILES, &err) < 0)
 *             goto fail;
 *     wc_merge_open(&m, wc_streams_count(st), wc_streams_pull, st, &err);
 *     ...
 *     wc_merge_free(m);
 *     wc_streams_free(st);
 *
 * What always holds:
 *  - at most lim.max_open streams hold a handle of the pool at once
 *    (wc_streams_open_count(), streams_test.h); past that, the stream
 *    used longest ago among those cheapest to reopen is closed and taken
 *    up later at the record after the one it handed out last, which the
 *    merge may still hold: its payload is kept in a stash of
 *    WC_INPUT_STASH bytes, or a buffer of its own of up to
 *    WC_INPUT_STASH_BIG (a message's; WC_INPUT_STASH_ALL for all
 *    streams, freed as they end), and a
 *    stream whose waiting payload is larger is pinned, never closed (when
 *    every open stream is pinned the pull fails, "more than N trace files
 *    hold payloads ...").  Members read whole and the first
 *    lim.aside_open members copied aside hold no handle of the pool.  The
 *    bounds are those of inputdefs.h, "Bounds";
 *  - a closed stream first keeps in memory the records its handle can
 *    still read (WC_INPUT_KEEP, WC_INPUT_KEEP_ALL for all, within
 *    lim.mem_budget with the members read whole), and reopens its handle
 *    only where those end.  What one keeps is its share of those bytes
 *    among the streams past the pool (at least WC_INPUT_KEEP_MIN, at
 *    most WC_INPUT_KEEP), so that each is reopened about once per share
 *    of its records, not at each event when the pool is far smaller
 *    than the streams (a short open-file limit, input.h);
 *  - every record read goes through the record filter (recfilter.h), the
 *    same for a span and for an event read alone; a stream counts its
 *    records and sequence gaps in its wc_stream_info;
 *  - a stream that ended or failed leaves the pool of handles at once
 *    and is never opened again; its handle and memory go at the next
 *    pull (of any stream) without WC_PULL_BUFFERED, not sooner: it may
 *    end in the middle of a merge's batch (a bad record among the bytes
 *    already read), and the events it handed out before in that batch
 *    point into its buffer until the caller asks for the next batch;
 *  - the table owns its streams, their names, handles, decoders, the
 *    bytes and read-ahead sources it was given, and the file of members
 *    copied aside; the record filter is the caller's and must outlive
 *    it; wc_streams_free(NULL) is fine.
 */
#ifndef WC_STREAMS_H
#define WC_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/decode.h"
#include "format/event.h"
#include "input/inputdefs.h"
#include "input/recfilter.h"
#include "input/source.h"
#include "base/wcerr.h"

struct wc_streams;

/* What the streams of a table are; they are opened accordingly. */
enum wc_streams_kind {
	WC_STREAMS_FILES,       /* per-CPU files (not followed if links) */
	WC_STREAMS_SINGLE,      /* one interleaved stream: a merged file the
				 * user named, or standard input ("-") */
	WC_STREAMS_MEMBERS,     /* members of the archive at the path */
};

/* A table for the input at PATH (the archive, for members; named in
 * messages), within LIM (defaulted), its records through FILTER. */
int wc_streams_new(struct wc_streams **out, const char *path,
		   const struct wc_input_limits *lim,
		   struct wc_recfilter *filter, struct wc_err *err);

/* The handles the open-file limit (RLIMIT_NOFILE's soft limit, read at
 * each call) leaves to an input's streams and their scouts once
 * WC_INPUT_FD_SPARE descriptors are kept for the rest of the process
 * (inputdefs.h): SIZE_MAX when it sets none, 0 when it leaves none. */
size_t wc_streams_fd_room(void);

/*
 * Names.  The CPU of a trace file's name "NAME.blktrace.CPU", with the
 * length of NAME in *baselen (may be NULL); WC_STREAMS_NOT_TRACE when the
 * name is no trace file's ("NAME.blktrace.0.bak"); WC_STREAMS_CPU_BAD
 * (with *baselen set) when the part after the last ".blktrace." is meant
 * as a CPU (a digit, then letters and digits only) but is no decimal
 * number of 0 to 65535: such a file is to be refused
 * (wc_streams_cpu_bad()), never quietly left out of the trace.
 */
#define WC_STREAMS_NOT_TRACE (-1L)
#define WC_STREAMS_CPU_BAD   (-2L)
long wc_streams_name_cpu(const char *name, size_t *baselen);
/* The refusal of such a file (FILE, or member MEMBER of archive FILE): -1. */
int wc_streams_cpu_bad(const char *file, const char *member,
		       struct wc_err *err);

/* Adds the trace file FILE (path, or member name) of device DEV (what the
 * CPU files share: NAME of NAME.blktrace.N) for CPU (UINT32_MAX when
 * unknown) as the stream wc_streams_count() - 1: 0, or -1 past
 * WC_INPUT_MAX_STREAMS (an input error) or out of memory. */
int wc_streams_add(struct wc_streams *st, const char *file, const char *dev,
		   uint32_t cpu, struct wc_err *err);
size_t wc_streams_count(const struct wc_streams *st);

/* Stream I, the one file the user named, is read from FD, a descriptor
 * of it open for reading at any offset (a one-pass input's, whose peek
 * at the first bytes opened it: read from its start), instead of
 * opening the file again; taken, closed by the table. */
void wc_streams_hold_fd(struct wc_streams *st, size_t i, int fd);

/*
 * How an archive member is read, said once by the scan (members.h),
 * before wc_streams_seal(), for the stream I just added; a stream told
 * none of these is read through a handle of its own.
 *  - held in memory: BYTES (malloc'd, LEN of them, taken): no handle;
 *    they count against lim.mem_budget (wc_streams_mem_used());
 *  - copied aside: LEN bytes at OFF of the file wc_streams_set_aside()
 *    gave (taken, closed by the table); with BLOCKS read in the blocks
 *    the member's own handle would have read (a one-pass scan's copy in
 *    place of a handle: wc_source_open_region_blocks()), else through a
 *    region's small buffer (wc_source_open_region());
 *  - read ahead: SRC, the member's source on a thread (taken), used at
 *    the stream's first open; wc_streams_stop_ahead() stops them all.
 */
void wc_streams_hold_memory(struct wc_streams *st, size_t i,
			    unsigned char *bytes, size_t len);
size_t wc_streams_mem_used(const struct wc_streams *st);
void wc_streams_set_aside(struct wc_streams *st, int fd);
void wc_streams_hold_aside(struct wc_streams *st, size_t i, uint64_t off,
			   uint64_t len, bool blocks);
void wc_streams_hold_ahead(struct wc_streams *st, size_t i,
			   struct wc_source *src);
void wc_streams_stop_ahead(struct wc_streams *st);

/*
 * Ends the adding: orders the streams as blkparse reads them (by device
 * name, strcmp, then CPU number), refuses two trace files for one CPU of
 * one device (an archive member whose name comes twice, or
 * NAME.blktrace.1 beside NAME.blktrace.01: "tar x" keeps the last, and
 * which one would be read would depend on its size), and settles which
 * streams share the pool.  0, or -1 with err filled.  Stream numbers are
 * final from here on.
 */
int wc_streams_seal(struct wc_streams *st, enum wc_streams_kind kind,
		    struct wc_err *err);

/* Stream I's name and counts (NULL past the last), valid while the
 * table is. */
const struct wc_stream_info *wc_streams_info(const struct wc_streams *st,
					     size_t i);
/* More streams need a handle of the pool than it has: streams are closed
 * and taken up again, and each must be read one event at a time (a
 * batch of one) so the merge holds one event of each. */
bool wc_streams_may_close(const struct wc_streams *st);

/* The merge's pull() (merge.h), CTX being the table: the next span of
 * events of stream STREAM (MAX 1: one event). */
int wc_streams_pull(void *ctx, unsigned stream, struct wc_event *out,
		    size_t max, uint64_t limit, unsigned flags, size_t *got,
		    struct wc_err *err);

/*
 * For a reader that looks at the streams' records ahead of the merge
 * (blknames.h):
 *  - wc_streams_set_batches(): from now on each stream is read in spans
 *    that end with its batch of EVERY events, and BEGIN(CTX, i, err) is
 *    called before stream i hands out its first event and after each
 *    EVERY events it handed out (0, or -1 to fail the pull with err
 *    filled), never under WC_PULL_BUFFERED (the pull says
 *    WC_PULL_WOULD_READ instead, so a merge's batch ends there);
 *    END(CTX, i) when stream i ended or failed, as its handle goes;
 *  - wc_streams_open_decoder(): a decoder of stream I of its own, outside
 *    the pool (the caller frees it), on the member's or file's bytes from
 *    offset OFF (0: the start, the byte order found; else the order
 *    SWAPPED), over SRC when not NULL (a source of the member read ahead,
 *    taken), borrowing the bytes of a stream held in memory (valid until
 *    the stream ends).  0, or -1 with err filled;
 *  - wc_streams_make_room(): when every handle of the pool is taken,
 *    closes a stream as a pull would, so that the caller may hold one
 *    handle outside the pool for a while; 0, or -1 when every open stream
 *    is pinned.
 */
typedef int (*wc_streams_begin_fn)(void *ctx, unsigned i, struct wc_err *err);
typedef void (*wc_streams_end_fn)(void *ctx, unsigned i);
void wc_streams_set_batches(struct wc_streams *st, uint32_t every,
			    wc_streams_begin_fn begin, wc_streams_end_fn end,
			    void *ctx);
int wc_streams_open_decoder(struct wc_streams *st, unsigned i,
			    struct wc_source *src, uint64_t off, bool swapped,
			    struct wc_decoder **dec, struct wc_err *err);
int wc_streams_make_room(struct wc_streams *st, struct wc_err *err);
/* Stream I is held in memory (needs no handle), the table's kind, and the
 * path it was made for. */
bool wc_streams_in_memory(const struct wc_streams *st, size_t i);
/* Stream I is an archive member copied aside (wc_streams_hold_aside()):
 * a second reader of it reads the copy, never the archive. */
bool wc_streams_aside(const struct wc_streams *st, size_t i);
enum wc_streams_kind wc_streams_kind(const struct wc_streams *st);
const char *wc_streams_path(const struct wc_streams *st);

void wc_streams_free(struct wc_streams *st);

#endif /* WC_STREAMS_H */
