/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inputdefs.h - what an input (input.h) and the modules behind it share:
 * its bounds on memory, handles and threads, the smaller ones a test may
 * ask for, and what a stream has counted.  The modules are the stream
 * table and its handles (streams.h), an archive's members (members.h)
 * and blkparse's names for --dump (blknames.h); the input's callers get
 * these through input.h.
 *
 * What always holds: every bound is a compile-time constant; the struct
 * wc_input_limits a module is given has been defaulted by
 * wc_input_limits_default() (no field 0, none past its default).
 */
#ifndef WC_INPUTDEFS_H
#define WC_INPUTDEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One per-CPU stream of an input. */
struct wc_stream_info {
	const char *name;        /* file or archive member name */
	uint32_t cpu;            /* from the name, or UINT32_MAX when unknown */
	uint64_t events;         /* records decoded so far */
	uint64_t skips;          /* sequence numbers missing (blkparse "skips") */
};

/*
 * Bounds.  An input of many NAME.blktrace.N files (a folder, or an archive
 * of 100,000 one-record members) must not need a handle per file:
 *  - at most WC_INPUT_MAX_OPEN files or archive handles are open at once.
 *    Past that, the stream used longest ago is closed and taken up again
 *    later at the record where it stopped (a seek for a file or for a
 *    member copied aside, WC_INPUT_HANDLES below; for a member read
 *    from the archive, the archive read again from its start up to
 *    there: slower, never larger; those are closed last).  The pool is
 *    smaller when the open-file limit (RLIMIT_NOFILE) is: at most that
 *    limit less WC_INPUT_FD_SPARE, at least one handle, read at the
 *    input's open (input.h), so that any limit of WC_INPUT_FD_MIN or
 *    more reads any number of trace files, with more opens: the same
 *    events, byte for byte.  A stream closed first reads ahead into
 *    memory what it can, within the budgets below, and is taken up from
 *    there: its handle is reopened only where those records end, once
 *    per up to WC_INPUT_KEEP bytes instead of once per resume.  The
 *    event a closed stream still has waiting in the merge keeps its
 *    payload in a stash of WC_INPUT_STASH bytes, or a buffer of up to
 *    WC_INPUT_STASH_BIG (WC_INPUT_STASH_ALL for all); a
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
 *    (WC_SOURCE_AHEAD, source.h): 1 MiB of blocks
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
 * one), twice WC_INPUT_MAX_OPEN + 2 with the scouts (a second handle
 * and its blocks a file or member, input.h).
 */
#define WC_INPUT_MAX_OPEN     64u
/* Descriptors an input leaves to the rest of the process under a short
 * open-file limit: standard streams, the output (a bundle's folder and
 * files), the temporary files (members and ledger copied aside, the
 * comparison's captures), the archive's descriptor read on, a file's
 * scout opened for a batch (blknames.h).  WC_INPUT_FD_MIN: the smallest
 * limit an analysis or --dump of any number of trace files is read
 * under (a pool of WC_INPUT_FD_MIN - WC_INPUT_FD_SPARE handles); t94. */
#define WC_INPUT_FD_SPARE     16u
#define WC_INPUT_FD_MIN       (WC_INPUT_FD_SPARE + 4u)
/* Inputs read at once (lim.sharing: wcanalyze -j N, jobs.h) share the
 * limit: each holds at most WC_INPUT_FD_EACH descriptors outside its
 * pool (its members copied aside, the archive read on, the ledger's
 * copy, a scout's), so each pool is (limit - WC_INPUT_FD_SPARE -
 * (N - 1) x WC_INPUT_FD_EACH) / N handles, at least one: N inputs are
 * read at once under any limit of WC_INPUT_FD_MIN + (N - 1) x
 * (WC_INPUT_FD_EACH + 4) or more. */
#define WC_INPUT_FD_EACH      4u
#define WC_INPUT_STASH        32u
/* A longer payload waiting (a message: at most 128 bytes from the
 * kernel) is kept in a buffer of the stream's own, up to
 * WC_INPUT_STASH_BIG bytes, WC_INPUT_STASH_ALL for all streams: only a
 * longer one pins its stream. */
#define WC_INPUT_STASH_BIG    1024u
#define WC_INPUT_STASH_ALL    (1u << 20)
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
 * none below WC_INPUT_KEEP_MIN): each its share of those among the
 * streams past the pool's handles, WC_INPUT_KEEP_MIN at least. */
#define WC_INPUT_KEEP         (4u << 20)
#define WC_INPUT_KEEP_ALL     (16u << 20)
#define WC_INPUT_KEEP_MIN     (64u << 10)
/* wc_input_set_blkparse_names() on an archive whose members share
 * handles: process names read ahead and queued, at most this many a
 * stream and in all (32 bytes each: at most 2 MiB). */
#define WC_INPUT_SCOUT_NAMES     4096u
#define WC_INPUT_SCOUT_NAMES_ALL 65536u

/* The same with smaller bounds than the defaults (for tests: members
 * re-read, streams closed and resumed, without megabytes of fixtures).
 * A field of 0, or past its default, means the default. */
struct wc_input_limits {
	unsigned max_open;        /* WC_INPUT_MAX_OPEN */
	size_t small_member;      /* WC_INPUT_SMALL_MEMBER; 0: default */
	size_t mem_budget;        /* WC_INPUT_MEM_BUDGET */
	bool no_memory;           /* read no member into memory, keep no
				   * records of a closed stream */
	unsigned sharing;         /* inputs read at once in the process,
				   * this one among them, that share its
				   * open-file limit (WC_INPUT_FD_EACH);
				   * 0: 1 */
	bool speculate;           /* the scan may stop at the last trace
				   * file capture.conf announces (input.h,
				   * Speculation); off by default */
	unsigned aside_open;      /* WC_INPUT_ASIDE_OPEN (1: the members
				   * copied aside past the first share the
				   * handles, as those past the default do) */
	/* The capture's own files to keep whole from the one scan
	 * (wc_input_take_file(), input.h), at most WC_INPUT_MAX_FILES of
	 * them; NULL: none.  Not defaulted: kept as given. */
	const char *const *files;
	size_t nfiles;
	/* One pass (the what-if: one read of its input for the whole
	 * command; --dump; a timeline): the scan reads every member it
	 * will ever need, and nothing opens the archive again.  Each trace
	 * file is held in memory as above or copied aside (no handle of
	 * its own, no thread), and so is each of aside_files, the
	 * capture's files too large to keep whole (ledger.tsv:
	 * wc_input_open_side() then reads the copy), in whatever order the
	 * archive holds them.  A copy in place of one of the first
	 * WC_INPUT_HANDLES handles is read in that handle's 64 KiB blocks
	 * (wc_source_open_region_blocks(), source.h: the same batches, so
	 * the same timeline), with the handle's buffer of about 128 KiB.
	 * Costs the decompression before the first event, on one thread,
	 * and the copies' disk, WC_INPUT_SPILL_MAX at most; no memory past
	 * the bounds above.  Speculation is off with it. */
	bool once;
	const char *const *aside_files;
	size_t naside_files;
	/* One pass from capture.conf on when it names a model disk
	 * (disk_model): its ledger.tsv lies after the trace files and its
	 * work is needed from the first request on, so a scan that stopped
	 * at the last trace file (speculation) would have the archive read
	 * again for it.  From the side file that names it (capture.conf,
	 * which wccapture packs first), the scan reads as with once (its
	 * members held or copied aside, aside_files copied aside, no
	 * speculation, no threads); members met before it stay as they
	 * were, and when one of aside_files was among them (an archive in
	 * another order), the scan stays as it was.  wc_input_side_kept()
	 * (input.h) says whether it read in one pass. */
	bool once_model;
};
/* lim.files at the most. */
#define WC_INPUT_MAX_FILES 4u
/* Gives every field of LIM that is 0 or past its default the default:
 * the limits as the input and its parts use them. */
static inline void wc_input_limits_default(struct wc_input_limits *lim)
{
	if (!lim->max_open || lim->max_open > WC_INPUT_MAX_OPEN)
		lim->max_open = WC_INPUT_MAX_OPEN;
	if (!lim->small_member || lim->small_member > WC_INPUT_SMALL_MEMBER)
		lim->small_member = WC_INPUT_SMALL_MEMBER;
	if (!lim->mem_budget || lim->mem_budget > WC_INPUT_MEM_BUDGET)
		lim->mem_budget = WC_INPUT_MEM_BUDGET;
	if (!lim->aside_open || lim->aside_open > WC_INPUT_ASIDE_OPEN)
		lim->aside_open = WC_INPUT_ASIDE_OPEN;
}

/* WC_INPUT_HANDLES for these limits (LIM already defaulted, as in the
 * input): max_open / 2, at least 1. */
static inline size_t wc_input_handles(const struct wc_input_limits *lim)
{
	return lim->max_open / 2u ? lim->max_open / 2u : 1u;
}

/* An archive member's NAME without the "./" in front (and the slashes
 * after it) that tar writes for a folder packed as ./FOLDER: how the
 * member-name rules (members.h) and the side files' lookup know it. */
static inline const char *wc_input_member_name(const char *name)
{
	while (name[0] == '.' && name[1] == '/') {
		name += 2;
		while (*name == '/')
			name++;
	}
	return name;
}

/* The last part of a path or archive member name (after its last '/'):
 * how a trace file or side file is known, in a folder or an archive. */
static inline const char *wc_input_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

#endif /* WC_INPUTDEFS_H */
