/*
 * input.h - one INPUT on the command line, as a time-ordered event stream.
 *
 * An input is whatever a user names: a blktrace base name (NAME means
 * NAME.blktrace.0 ... NAME.blktrace.N, CPU numbers may be sparse), a
 * directory of such files (several devices allowed), one merged file as
 * "blkparse -d" writes it, "-" for standard input (as "blktrace -o -"
 * streams it), or an archive read through libarchive without extracting
 * anything (tar plain/gzip/xz/zstd/bzip2, zip, cpio).  A capture archive
 * (docs/capture-format.md) also carries capture.conf and phases.tsv.
 *
 * Pipeline behind this interface, each a pull iterator over the one
 * before: source (bytes of one stream) -> decode (records -> struct
 * wc_event) -> merge (k-way by time over the streams).
 *
 * Usage:
 *
 *     struct wc_input *in = NULL;
 *     struct wc_event ev;
 *     struct wc_err err;
 *     int r;
 *
 *     wc_err_clear(&err);
 *     if (wc_input_open(&in, path, &err) < 0)
 *             goto fail;                  // err says why
 *     while ((r = wc_input_next(in, &ev, &err)) > 0)
 *             use(&ev);
 *     if (r < 0)
 *             report(&err);               // events before it were good
 *     wc_input_free(in);
 *
 * What always holds:
 *  - events come in non-decreasing time; among equal times the order is
 *    blkparse's, so a dump of them matches "blkparse -i" line for line;
 *  - memory is bounded whatever the input, never by the trace's length
 *    nor by the number of its files (see "Bounds" below);
 *  - wc_input_next() returns 1 with an event, 0 at the end, -1 on bad
 *    input or a system failure; after -1 it keeps returning -1.  A
 *    truncated last record is such a failure: every event before it has
 *    been handed out first;
 *  - the input owns everything it hands out; wc_input_free(NULL) is fine.
 */
#ifndef WC_INPUT_H
#define WC_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "event.h"
#include "wcerr.h"
#include "wclimits.h"

struct wc_input;

/*
 * Bounds.  An input of many NAME.blktrace.N files (a folder, or an archive
 * of 100,000 one-record members) must not need a handle per file:
 *  - at most WC_INPUT_MAX_OPEN files or archive handles are open at once.
 *    Past that, the stream used longest ago is closed and taken up again
 *    later at the record where it stopped (a seek for a file or for a
 *    member copied aside, WC_INPUT_HANDLES below; for a member read
 *    from the archive, the archive read again from its start up to
 *    there: slower, never larger; those are closed last).  A stream closed first reads ahead into
 *    memory what it can, within the budgets below, and is taken up from
 *    there: its handle is reopened only where those records end, once
 *    per up to WC_INPUT_KEEP bytes instead of once per resume.  The
 *    event a closed stream still has waiting in the merge keeps its
 *    payload in a stash of WC_INPUT_STASH bytes; a
 *    stream whose waiting payload is larger is never closed, and when
 *    every open stream is such, the input fails ("more than N trace files
 *    hold payloads ... at once") rather than exceed the bound;
 *  - archive members of at most WC_INPUT_SMALL_MEMBER bytes are read whole
 *    while the archive is scanned, up to WC_INPUT_MEM_BUDGET bytes in all;
 *    they need no handle;
 *  - an input has at most WC_INPUT_MAX_STREAMS trace files (more is an
 *    input error), each costing about 200 bytes plus its name here and in
 *    the merge.
 *  - when every member of a compressed archive (a compressed tar or
 *    cpio, or a zip; not a plain tar or cpio, which is read in place)
 *    can keep its handle, the first WC_INPUT_AHEAD members that need
 *    one are each read ahead on a thread of their own, started when the
 *    scan meets the member
 *    (wc_source_open_member_ahead(), source.h): 1 MiB of blocks
 *    instead of 128 KiB, and a thread with a stack of WC_SOURCE_STACK,
 *    each.  Past WC_INPUT_MAX_OPEN members they are stopped.
 * So memory is at most WC_INPUT_MEM_BUDGET (the small members and the
 * records kept, together) + WC_INPUT_MAX_OPEN x (128 KiB
 * of read-ahead + one libarchive handle: about 230 KB for gzip, more for
 * xz or zstd with large windows) + WC_INPUT_AHEAD x 896 KiB more for the
 * members read on threads (twice that with wc_input_set_blkparse_names()'s
 * scouts) + WC_INPUT_ASIDE_OPEN x 8 KiB for the members copied aside
 * (72 KiB each at most) + the per-file costs, and at most
 * WC_INPUT_MAX_OPEN + 2 descriptors (the members copied aside share
 * one).
 */
#define WC_INPUT_MAX_OPEN     64u
#define WC_INPUT_STASH        32u
#define WC_INPUT_SMALL_MEMBER (1u << 20)
#define WC_INPUT_MEM_BUDGET   (64u << 20)
#define WC_INPUT_MAX_STREAMS  (1u << 18)
#define WC_INPUT_AHEAD        16u
/* Of the members that need a handle (not read whole), the first
 * WC_INPUT_HANDLES (max_open / 2 with smaller limits) are read from the
 * archive; the scan copies each one after them to a temporary file in
 * TMPDIR (or /tmp; unnamed, gone with the input), WC_INPUT_SPILL_MAX
 * bytes at most in all, and they are read from there: reopening one is
 * a seek, never a decompression of the archive again.  So an archive of
 * many large members (a capture of a machine with more CPUs than
 * WC_INPUT_MAX_OPEN) is decompressed about WC_INPUT_HANDLES + 1 times
 * at most, whatever their number. */
#define WC_INPUT_HANDLES      (WC_INPUT_MAX_OPEN / 2u)
#define WC_INPUT_SPILL_MAX    (64ull << 30)
/* The first WC_INPUT_ASIDE_OPEN members copied aside stay open from
 * their first event to their last, outside the WC_INPUT_MAX_OPEN
 * handles: they share the temporary file's one descriptor (pread) and
 * each holds a buffer of 8 KiB (wc_source_open_region(), source.h),
 * grown to at most 72 KiB by a record of that size: 8 MiB in all, at
 * most 72 MiB whatever the records.  A time-ordered merge of more
 * members than handles then closes none of them: each event past the
 * handles took a close and a reopen (1,000 members of 1.2 MB took
 * 467 s).  Members past those share the handles as above. */
#define WC_INPUT_ASIDE_OPEN   1024u
/* A stream closed for want of handles keeps the records its handle can
 * still read, up to WC_INPUT_KEEP bytes, WC_INPUT_KEEP_ALL for all closed
 * streams, within WC_INPUT_MEM_BUDGET (shared with the small members;
 * none below WC_INPUT_KEEP_MIN). */
#define WC_INPUT_KEEP         (4u << 20)
#define WC_INPUT_KEEP_ALL     (16u << 20)
#define WC_INPUT_KEEP_MIN     (64u << 10)
/* wc_input_set_blkparse_names() on an archive whose members share
 * handles: process names read ahead and queued, at most this many a
 * stream and in all (32 bytes each: at most 2 MiB). */
#define WC_INPUT_SCOUT_NAMES     4096u
#define WC_INPUT_SCOUT_NAMES_ALL 65536u

/* One per-CPU stream of an input. */
struct wc_stream_info {
	const char *name;        /* file or archive member name */
	uint32_t cpu;            /* from the name, or UINT32_MAX when unknown */
	uint64_t events;         /* records decoded so far */
	uint64_t skips;          /* sequence numbers missing (blkparse "skips") */
};

int wc_input_open(struct wc_input **out, const char *path, struct wc_err *err);

/* The same with smaller bounds than the defaults (for tests: members
 * re-read, streams closed and resumed, without megabytes of fixtures).
 * A field of 0, or past its default, means the default. */
struct wc_input_limits {
	unsigned max_open;        /* WC_INPUT_MAX_OPEN */
	size_t small_member;      /* WC_INPUT_SMALL_MEMBER; 0: default */
	size_t mem_budget;        /* WC_INPUT_MEM_BUDGET */
	bool no_memory;           /* read no member into memory, keep no
				   * records of a closed stream */
	bool speculate;           /* the scan may stop at the last trace
				   * file capture.conf announces (below);
				   * off by default */
	unsigned aside_open;      /* WC_INPUT_ASIDE_OPEN (1: the members
				   * copied aside past the first share the
				   * handles, as those past the default do) */
};
int wc_input_open_limits(struct wc_input **out, const char *path,
			 const struct wc_input_limits *lim, struct wc_err *err);
/* WC_INPUT_HANDLES for these limits (LIM already defaulted, as in the
 * input): max_open / 2, at least 1. */
static inline size_t wc_input_handles(const struct wc_input_limits *lim)
{
	return lim->max_open / 2u ? lim->max_open / 2u : 1u;
}
/*
 * Speculation (lim.speculate).  Listing an archive's members takes a
 * decompression of the whole archive before the first event; a capture
 * whose capture.conf announces its trace files (trace_files,
 * docs/capture-format.md) and holds them right after it can be started
 * on sooner.  When the scan has read such a capture.conf and meets the
 * announced last trace file, and that member is read from the archive
 * (not kept in memory), the archive is compressed and every member so
 * far that needs a handle is read ahead on a thread (within
 * WC_INPUT_AHEAD and max_open), the scan stops there: it hands its own
 * handle to that member's reader (wc_source_adopt_member_ahead(),
 * source.h), which reads the member, then the rest of the archive's
 * headers on the same thread.  The input opens with what the whole scan
 * would have found if the rest holds no trace file, capture.conf or
 * phases.tsv and reads to its end.  Whether it did is known at the end:
 * before its last 0, the input waits for that check, and when the
 * archive was not as announced, or after any failure of a speculative
 * input (the whole scan could have refused the archive before the first
 * event), it fails once with WC_ERR_AGAIN instead (the message says
 * why): read it again without speculation for the real answer, which is
 * what wc_analysis_run() does.  So only a caller that can throw away what
 * it did with the events asks for it.  Memory and threads are those of
 * the read-ahead members: the member's ring, and one handle where there
 * were two; wc_input_free() at any point stops and joins the thread.
 */
/* True when the scan stopped at the last announced trace file. */
bool wc_input_speculated(const struct wc_input *in);

int wc_input_next(struct wc_input *in, struct wc_event *ev, struct wc_err *err);
/*
 * Up to MAX events at once (at most WC_INPUT_BATCH) into EVS: 1 with
 * *got >= 1, 0 at the end, -1 on failure (only once the events before it
 * were handed out).  The same events in the same order as wc_input_next()
 * called *got times, which is a batch of one; every event of the batch
 * and its payload stay valid until the next call.  What the input learns
 * while it reads (wc_input_comm(), the streams' counts) may be up to a
 * batch ahead of the event being looked at: --dump, which names every
 * event as blkparse does, takes them one at a time.
 */
#define WC_INPUT_BATCH 64u
int wc_input_next_batch(struct wc_input *in, struct wc_event *evs, size_t max,
			size_t *got, struct wc_err *err);
/* The same batch (MAX events at most, WC_INPUT_BATCH when 0) without a
 * copy: *evs points at the events in the input's own memory, valid
 * until the next call.  A single stream's events in order are handed out
 * where the window holds them. */
int wc_input_next_ref(struct wc_input *in, const struct wc_event **evs,
		      size_t max, size_t *got, struct wc_err *err);
void wc_input_free(struct wc_input *in);

/* Events handed out so far whose time is earlier than the event's before
 * them (a clock that stepped back, a file out of order): they are passed
 * on as read, and counted here so a caller can warn once. */
uint64_t wc_input_backwards(const struct wc_input *in);

/* A short name for the input: the capture's name, or the path's base name. */
const char *wc_input_name(const struct wc_input *in);

/* capture.conf and phases.tsv as read (capture.h); every field unknown
 * for a plain trace.  Never NULL for an open input. */
const struct wc_capture *wc_input_capture(const struct wc_input *in);

/* Streams, in the order blkparse would read them. */
size_t wc_input_nstreams(const struct wc_input *in);
const struct wc_stream_info *wc_input_stream(const struct wc_input *in, size_t i);

/*
 * Process name of PID from the notify records seen so far, or NULL.
 * Names of at most WC_INPUT_MAX_PIDS (wclimits.h) distinct pids are kept
 * (more than any pid_max allows a recorder to see at once); past that, a
 * corrupt or endless trace gets no new names rather than unbounded
 * memory.  Likewise sequence gaps are counted for at most
 * WC_INPUT_MAX_SEQ_KEYS (device, cpu) pairs.  The name is valid until
 * the next wc_input_next().
 */
const char *wc_input_comm(const struct wc_input *in, uint32_t pid);

/*
 * Names pids as blkparse does, for --dump; call before the first
 * wc_input_next().  Without it a pid gets the first name the events
 * handed out so far carried, which is what the analysis wants.  blkparse
 * instead reads each per-CPU file 512 records at a time and takes a name
 * when it reads it: when one pid carries several names (pid 0 is
 * swapper/0 on CPU 0 and swapper/1 on CPU 1), the one it prints depends
 * on those batches.  So a scout reads each stream's next batch for its
 * names just before the events of that batch are handed out.  Files and
 * members read whole at the scan are read twice; a member read from its
 * archive keeps a second handle for its scout (at most WC_INPUT_MAX_OPEN
 * more; the first WC_INPUT_AHEAD of them read ahead on threads from this
 * call, as the members are from the scan, another 1 MiB each), except
 * when such members outnumber WC_INPUT_MAX_OPEN: those
 * would need a handle each: for those, one pass at a time on a handle of
 * its own (closing another stream first when none is free) reads a
 * member's next WC_INPUT_KEEP bytes of records ahead and queues the names
 * of pids not yet named with their batch numbers (WC_INPUT_SCOUT_NAMES),
 * handed over as the batches begin: about one decompression of the
 * archive up to the member per WC_INPUT_KEEP bytes of it, the cost of a
 * resume.  Names past the queue's bound are taken as the reader meets
 * them, as without this call.  A single stream (a
 * merged "blkparse -d" file, standard input) is then handed out in the
 * order "blkparse -i -" prints it (wc_reorder_set_blkparse(), merge.h),
 * read as blkparse reads it, so an event gets the names of the batches
 * read before it was printed; once blkparse waits on a sequence gap it
 * reads to the end before printing, and knows names this window of
 * WC_REORDER_WINDOW events has not read yet.
 */
void wc_input_set_blkparse_names(struct wc_input *in);

/* The time blkparse subtracts from every event to print relative times:
 * the earliest first event of the per-CPU streams, or for a single
 * interleaved stream the earliest of its first 512 events.  Valid once
 * wc_input_next() has returned an event. */
uint64_t wc_input_genesis(const struct wc_input *in);

/*
 * Which records become events: every record except notify records, which
 * the input keeps for itself (process names for wc_input_comm(), the wall
 * clock timestamp), with one exception, as in blkparse: message notify
 * records (WC_TC_NOTIFY with WC_TN_MESSAGE) are handed out as events.
 * The record filter (recfilter.h) decides it, and counts the sequence
 * gaps, the same for an event read alone or in a run.
 *
 * Resolving PATH: "-" is standard input; a directory is searched for
 * NAME.blktrace.CPU files (in its trace/ subdirectory when there is one,
 * capture.conf and phases.tsv beside); a file that starts with a blktrace
 * magic is one stream, unless its name ends in .blktrace.CPU, which stands
 * for all CPUs of that base name, as in blkparse; another existing file is
 * opened as an archive; a path that does not exist is a base name.
 * Streams are ordered by device name (strcmp), then CPU number.
 */

#endif /* WC_INPUT_H */
