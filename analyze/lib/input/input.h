/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * wc_event) -> merge (k-way by time over the streams).  The input
 * resolves the path and wires the parts behind it: the stream table and
 * its pool of handles (streams.h), an archive's members and the archive
 * shortcut (members.h), and blkparse's names for --dump (blknames.h).
 *
 * Usage:
 *
 *     struct wc_input *in = NULL;
 *     const struct wc_event *evs;
 *     struct wc_err err;
 *     size_t n;
 *     int r;
 *
 *     wc_err_clear(&err);
 *     if (wc_input_open(&in, path, &err) < 0)
 *             goto fail;                  // err says why
 *     while ((r = wc_input_next_ref(in, &evs, 0, &n, &err)) > 0)
 *             use(evs, n);
 *     if (r < 0)
 *             report(&err);               // events before it were good
 *     wc_input_free(in);
 *
 * What always holds:
 *  - events come in non-decreasing time; among equal times the order is
 *    blkparse's, so a dump of them matches "blkparse -i" line for line;
 *  - memory is bounded whatever the input, never by the trace's length
 *    nor by the number of its files (inputdefs.h, "Bounds");
 *  - descriptors too: at most WC_INPUT_MAX_OPEN handles, fewer when the
 *    open-file limit (RLIMIT_NOFILE, read at the open) leaves less than
 *    that past WC_INPUT_FD_SPARE for the rest of the process.  Any limit
 *    of WC_INPUT_FD_MIN or more reads any number of trace files, and
 *    the events are the same, byte for byte: where the limit has room,
 *    each file is opened once (t86); under a short one, its streams are
 *    closed and taken up again (streams.h), a file opened once and then
 *    about once more per share of the records kept for the closed
 *    streams (WC_INPUT_KEEP_ALL shared among them, WC_INPUT_KEEP_MIN
 *    the least share), and read an event at a time (t94);
 *  - wc_input_next_ref() returns 1 with events, 0 at the end, -1 on bad
 *    input or a system failure; after -1 it keeps returning -1.  A
 *    truncated last record is such a failure: every event before it has
 *    been handed out first;
 *  - the input owns everything it hands out; wc_input_free(NULL) is fine.
 */
#ifndef WC_INPUT_H
#define WC_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "input/capture.h"
#include "format/event.h"
#include "input/inputdefs.h"
#include "base/wcerr.h"
#include "base/wclimits.h"

struct wc_input;
struct wc_source;

int wc_input_open(struct wc_input **out, const char *path, struct wc_err *err);

/* The same with smaller bounds than the defaults (struct
 * wc_input_limits, inputdefs.h). */
int wc_input_open_limits(struct wc_input **out, const char *path,
			 const struct wc_input_limits *lim, struct wc_err *err);
/*
 * The same, where PATH may also be a summary handed back (wcanalyze
 * --format json): a regular file whose first byte past JSON's white
 * space is '{', which no trace, archive or compressed stream begins
 * with.  The one open that peeks at the path's first bytes tells it
 * apart, and a summary is no input: 1 with *out NULL and *summary that
 * descriptor, open for reading at some offset (read it from its start:
 * capsule.h's reader), the caller's to close.  0 with *out an input, or
 * -1 with err filled, and *summary -1.  Standard input, folders and base
 * names are never summaries.  LIM may be NULL.
 */
int wc_input_open_any(struct wc_input **out, int *summary, const char *path,
		      const struct wc_input_limits *lim, struct wc_err *err);

/* The same, reading PATH from FD, a descriptor of it open for reading at
 * any offset (wc_input_is_summary_fd()'s), instead of opening it again:
 * one open of the path for a caller that peeked before.  FD is taken
 * (closed by the input, or given back as *summary); when it is no
 * regular file's, or FD is -1, the path is opened as always. */
int wc_input_open_fd_any(struct wc_input **out, int *summary,
			 const char *path, int fd,
			 const struct wc_input_limits *lim, struct wc_err *err);

/* Whether PATH is a summary, told by the same peek as
 * wc_input_open_any()'s (the same bound on its white space), for a
 * caller that only asks: never waits (a FIFO without a writer is none),
 * false for "-" and for what cannot be read. */
bool wc_input_is_summary(const char *path);
/* The same, and *FD the peek's descriptor when PATH is a regular file
 * and no summary (the caller's: for wc_input_open_fd_any(), or to
 * close), else -1. */
bool wc_input_is_summary_fd(const char *path, int *fd);
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
 * what wc_analysis_read() does.  So only a caller that can throw away what
 * it did with the events asks for it.  Memory and threads are those of
 * the read-ahead members: the member's ring, and one handle where there
 * were two; wc_input_free() at any point stops and joins the thread.
 * Whether the scan stopped there: wc_input_speculated() (input_test.h).
 */

/*
 * The events, a batch at a time, the one way out: up to MAX (at most
 * WC_INPUT_BATCH, which 0 means) at *EVS, in the input's own memory: 1
 * with *got >= 1, 0 at the end, -1 on failure (only once the events
 * before it were handed out).  The same events in the same order
 * whatever MAX (one at a time is a batch of one: wc_input_next(),
 * input_test.h, for tests); every event of the batch and its payload
 * stay valid until the next call or wc_input_free(), also the events of
 * a stream that ended or failed within the batch (its buffer goes at the
 * next call, streams.h).  A single stream's events in order are handed
 * out where the window holds them.  What the input learns while it reads
 * (wc_input_comm(), the streams' counts) may be up to a batch ahead of
 * the event being looked at, except after wc_input_set_blkparse_names():
 * a batch then ends before blkparse would read the names of its next
 * batch, so every event of a batch gets the names known when the call
 * returns.
 */
#define WC_INPUT_BATCH 256u
int wc_input_next_ref(struct wc_input *in, const struct wc_event **evs,
		      size_t max, size_t *got, struct wc_err *err);
void wc_input_free(struct wc_input *in);

/* The descriptors the open-file limit (RLIMIT_NOFILE, read now) leaves
 * past WC_INPUT_FD_SPARE for the rest of the process: SIZE_MAX when it
 * sets none, 0 when it leaves none.  The one reading of the limit, for
 * the inputs' handles and for a caller keeping descriptors of its own. */
size_t wc_input_fd_room(void);

/* Records read so far that repeat the sequence number of the record
 * before them on their CPU (wc_recfilter_repeats(), recfilter.h):
 * duplicated records, each analysed as an event of its own. */
uint64_t wc_input_repeats(const struct wc_input *in);

/* The CPUs the numbered records read so far named
 * (wc_recfilter_cpu_named(), _cpu_end(), recfilter.h). */
bool wc_input_cpu_named(const struct wc_input *in, uint32_t cpu);
uint32_t wc_input_cpu_end(const struct wc_input *in);

/* Events handed out so far whose time is earlier than the event's before
 * them (a clock that stepped back, a file out of order): they are passed
 * on as read, and counted here so a caller can warn once. */
uint64_t wc_input_backwards(const struct wc_input *in);

/* A short name for the input: the capture's name, or the path's base name. */
const char *wc_input_name(const struct wc_input *in);

/* capture.conf, phases.tsv and counters.tsv as read (capture.h); every field unknown
 * for a plain trace.  Never NULL for an open input. */
const struct wc_capture *wc_input_capture(const struct wc_input *in);

/*
 * The same files read in the input's own pass, for a caller that must
 * read its input once (the what-if): lim.files[i] (inputdefs.h), kept
 * whole by wc_input_open_limits() with the checks above (an archive's
 * scan keeps them as it meets them; speculation is off with them).
 * Hands the text over (NUL after it, *len bytes without it; the caller
 * frees), or NULL when the capture has no such file, it was taken
 * already, or the input is standard input or a trace file.
 */
char *wc_input_take_file(struct wc_input *in, size_t i, size_t *len);

/* The capture's file FILE (a name with no '/': "ledger.tsv"), too large
 * to keep whole, as a source of its own: the archive's member beside
 * capture.conf (opened on a handle of its own: the archive is read
 * again up to it; after a one-pass scan, wc_input_side_kept(), the
 * scan's copy of it, FILE one of lim.aside_files), or the capture
 * folder's file (no link followed).  0 with *out NULL when the capture
 * has no such file or the input is no capture (standard input, a trace
 * file); -1 with err filled. */
int wc_input_open_side(const struct wc_input *in, const char *file,
		       struct wc_source **out, struct wc_err *err);
/* True when wc_input_open_side() reads the one-pass scan's copies (an
 * archive opened with lim.once, or with lim.once_model and a model
 * disk's capture.conf): any number of calls then read nothing of the
 * input again.  Otherwise each call opens the file again. */
bool wc_input_side_kept(const struct wc_input *in);

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
 * the next batch.
 */
const char *wc_input_comm(const struct wc_input *in, uint32_t pid);
/* Pids named so far, and PID's name only when it was among the first
 * NAMES named (wc_recfilter_names(), recfilter.h): what wc_input_comm()
 * said when wc_input_names() said NAMES, for a reader behind the input
 * (batchq.h). */
uint32_t wc_input_names(const struct wc_input *in);
const char *wc_input_comm_before(const struct wc_input *in, uint32_t pid,
				 uint32_t names);

/*
 * Names pids as blkparse does, for --dump; call before the first
 * batch.  Without it a pid gets the first name the events
 * handed out so far carried, which is what the analysis wants.  blkparse
 * instead reads each per-CPU file 512 records at a time and takes a name
 * when it reads it: when one pid carries several names (pid 0 is
 * swapper/0 on CPU 0 and swapper/1 on CPU 1), the one it prints depends
 * on those batches.  So a scout reads each stream's next batch for its
 * names just before the events of that batch are handed out.  Files and
 * members read whole at the scan are read twice; a file, or a member read
 * from its archive, keeps a second handle for its scout (at most
 * WC_INPUT_MAX_OPEN more; the first WC_INPUT_AHEAD members read ahead on
 * threads from this call, as the members are from the scan, another 1 MiB
 * each), except when such files outnumber WC_INPUT_MAX_OPEN or the
 * open-file limit has no room for their second handles (then a file's
 * scout opens it at each batch, blknames.h) or such members do: those
 * would need a handle each: for those, one pass at a time on a handle of
 * its own (closing another stream first when none is free) reads a
 * member's next WC_INPUT_KEEP bytes of records ahead and queues the names
 * of pids not yet named with their batch numbers (WC_INPUT_SCOUT_NAMES),
 * handed over as the batches begin: about one decompression of the
 * archive up to the member per WC_INPUT_KEEP bytes of it, the cost of a
 * resume.  Names past the queue's bound are taken as the reader meets
 * them, as without this call.  A single stream (a
 * merged "blkparse -d" file, standard input) is then handed out in the
 * order "blkparse -i -" prints it (compat/blkorder.h, through reorder.h),
 * read as blkparse reads it, so an event gets the names of the batches
 * read before it was printed; once blkparse waits on a sequence gap it
 * reads to the end before printing, and knows names this window of
 * WC_REORDER_WINDOW events has not read yet.
 */
void wc_input_set_blkparse_names(struct wc_input *in);

/* The time blkparse subtracts from every event to print relative times:
 * the earliest first event of the per-CPU streams, or for a single
 * interleaved stream the earliest of its first 512 events.  Valid once
 * a batch has been handed out. */
uint64_t wc_input_genesis(const struct wc_input *in);

/*
 * Which records become events: every record except notify records, which
 * the input keeps for itself (process names for wc_input_comm(); a wall
 * clock timestamp is dropped), with one exception, as in blkparse:
 * message notify records (WC_TC_NOTIFY with WC_TN_MESSAGE) are handed
 * out as events.
 * The record filter (recfilter.h) decides it, and counts the sequence
 * gaps, the same for an event read alone or in a span.
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
