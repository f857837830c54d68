/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * members.h - an archive as an input: the scan of its members, which
 * adds its trace files to the stream table (streams.h) and reads its
 * side files (capture.conf, phases.tsv, counters.tsv), and the archive
 * shortcut.
 *
 * The scan reads the archive once, through libarchive, extracting
 * nothing.  Each NAME.blktrace.CPU member becomes a stream, read in the
 * cheapest way its bounds allow (inputdefs.h, "Bounds"):
 *  - whole into memory at the scan, when small and the budget allows;
 *  - from the archive on a handle of its own, for the first
 *    WC_INPUT_HANDLES members that need one; on a compressed archive,
 *    while every member can keep its handle, the first WC_INPUT_AHEAD of
 *    them read ahead on threads started as the scan meets them;
 *  - copied aside to an unnamed temporary file, past those: reopening
 *    one is a seek, never a decompression of the archive again.
 * A one-pass scan (lim.once: the what-if's, --dump's, a timeline's)
 * copies aside every member not read whole (those in place of the first
 * WC_INPUT_HANDLES handles read in a handle's blocks: the same batches),
 * and the capture's files of lim.aside_files (ledger.tsv:
 * wc_members_open_aside()) wherever they lie, so that nothing reads the
 * archive after it.
 * One archive is one capture: its trace files and side files in one
 * capture folder (a trace file may be in its trace/ subfolder), at most
 * one of each side file; otherwise it is refused.
 *
 * The archive shortcut (input.h, "Speculation"; lim.speculate).  When
 * capture.conf announces its trace files (trace_files) and the scan
 * meets the last of them, read from a compressed archive with every
 * member so far on a thread, the scan stops there and hands its handle
 * to that member's reader, which reads the member and then checks the
 * rest of the archive's headers on its thread (tail_entry()).  The input
 * opens with what the whole scan would have found if the rest holds no
 * trace file or side file.  Whether it did is known at
 * the input's end: wc_members_end() waits for the check and turns an
 * archive not as announced, or any failure of a speculative input, into
 * WC_ERR_AGAIN (read it again without the shortcut:
 * wc_analysis_read() does).  This module is the only one that knows the
 * shortcut; the streams read the adopted member as any member read
 * ahead, and the input asks this module at its end.
 *
 *     struct wc_members *m = NULL;
 *
 *     if (wc_members_scan(&m, path, st, capture, &lim, &err) < 0)
 *             goto fail;                  // st holds what was added
 *     wc_streams_seal(st, WC_STREAMS_MEMBERS, &err);
 *     ... pull the streams; at the input's end (R: 0 or -1):
 *     r = wc_members_end(m, r, &err);
 *     ...
 *     wc_members_free(m);                 // before wc_streams_free(st)
 *
 * What always holds:
 *  - a member refused (a CPU part that is no number, a member cut short
 *    or failing libarchive's checks, two captures, a side file twice)
 *    fails the scan with the reason, never a quiet omission;
 *  - the scan's memory is the members it held (counted by the table)
 *    and one 64 KiB buffer while it copies a member aside; the copies
 *    are at most WC_INPUT_SPILL_MAX bytes;
 *  - the members' bytes, read-ahead sources and temporary file belong to
 *    the table once given; the scan owns its capture folder's name and
 *    the shortcut's check, which wc_members_free() stops: free it before
 *    the table, so that the adopted member's reader waits for nothing;
 *    wc_members_free(NULL) is fine, and the other functions take NULL
 *    for an input that is no archive.
 */
#ifndef WC_MEMBERS_H
#define WC_MEMBERS_H

#include <stdbool.h>

#include "input/capture.h"
#include "input/inputdefs.h"
#include "input/source.h"
#include "input/streams.h"
#include "base/wcerr.h"

struct wc_members;

/* Scans the archive at PATH (not a trace file: the caller looked at its
 * first bytes) into ST and CAP, within LIM (defaulted).  0, or -1 with
 * err filled (*out NULL). */
int wc_members_scan(struct wc_members **out, const char *path,
		    struct wc_streams *st, struct wc_capture *cap,
		    const struct wc_input_limits *lim, struct wc_err *err);
/* The same, reading the archive from FD, a descriptor of PATH open for
 * reading (at any offset: read from its start), instead of opening PATH
 * again.  FD stays the caller's, to close after the call, or, when the
 * scan took the shortcut (wc_members_speculated(): the member's reader
 * reads on with the scan's handle), once the streams are freed.  FD -1:
 * PATH is opened. */
int wc_members_scan_fd(struct wc_members **out, const char *path, int fd,
		       struct wc_streams *st, struct wc_capture *cap,
		       const struct wc_input_limits *lim, struct wc_err *err);

/* The archive is decompressed to be read (not a plain tar or cpio). */
bool wc_members_packed(const struct wc_members *m);
/* The scan read in one pass (lim.once, or lim.once_model from a model
 * disk's capture.conf on): lim.aside_files were copied aside. */
bool wc_members_once(const struct wc_members *m);
/* The scan stopped at the last trace file capture.conf announced. */
bool wc_members_speculated(const struct wc_members *m);

/* The input's end or failure, R (0 or -1), as the archive allows: R
 * itself unless the scan took the shortcut; then, once, 0 when the rest
 * of the archive was as announced, else -1 with err of kind
 * WC_ERR_AGAIN (saying why, or the failure's message after "read again
 * without the shortcut: "), and the same answer at every call after. */
int wc_members_end(struct wc_members *m, int r, struct wc_err *err);

void wc_members_free(struct wc_members *m);

/* The capture folder's name in the archive (*len bytes, 0 at the
 * archive's top; not NUL-terminated at *len), or NULL when the scan met
 * no trace file or side file. */
const char *wc_members_folder(const struct wc_members *m, size_t *len);

/* The text of lim.files[i] kept by the scan (wc_input_take_file(),
 * input.h), handed over: NULL when the archive has no such member. */
char *wc_members_take_file(struct wc_members *m, size_t i, size_t *len);

/* A one-pass scan's copy of the capture's file FILE, one of
 * lim.aside_files (wc_input_open_side(), input.h): a source over it in
 * the spill file, under the archive's and the member's names; 0 with
 * *out NULL when the capture folder holds no such member; -1 with err
 * filled (WC_ERR_USAGE for a FILE the scan was not asked to copy). */
int wc_members_open_aside(const struct wc_members *m, const char *file,
			  struct wc_source **out, struct wc_err *err);

/*
 * The member-name rules, which the archive's writer (pack.h) applies
 * too, so that it never writes an archive this scan would refuse.  A
 * regular member is a trace file (its name NAME.blktrace.CPU,
 * streams.h), a side file (its base name one of wc_capture_side_files)
 * or neither.  One archive is one capture: every trace file and side
 * file is in the capture folder of the first one met (a trace file may
 * be in its trace/ subfolder), and each side file is there once.
 *
 *     struct wc_member_rules rules = { 0 };
 *
 *     for each regular member NAME, in the archive's order:
 *             kind = wc_member_rules_check(&rules, path, NAME, &cpu,
 *                                          &baselen, &side, &err);
 *             if (kind < 0) ...   // refused, err says why
 *     wc_member_rules_free(&rules);
 */
enum wc_member_kind {
	WC_MEMBER_OTHER,        /* neither: kept as it is, read by no one */
	WC_MEMBER_TRACE,        /* a trace file */
	WC_MEMBER_SIDE,         /* capture.conf, phases.tsv or counters.tsv */
};

struct wc_member_rules {
	char *capdir;           /* the capture folder, once met (owned) */
	size_t capdir_len;
	unsigned nside[3];      /* each of wc_capture_side_files, met */
};

/* What the regular member NAME of the archive at PATH is, as the
 * members before it in RULES leave it: a trace file (*cpu its CPU,
 * *baselen the length of its NAME part), a side file (*side its index
 * in wc_capture_side_files) or neither.  -1 with err filled when the
 * scan refuses it: a trace file's name whose CPU part is no number from
 * 0 to 65535, a trace or side file in another capture folder than the
 * first one met, a side file met twice. */
int wc_member_rules_check(struct wc_member_rules *rules, const char *path,
			  const char *name, long *cpu, size_t *baselen,
			  int *side, struct wc_err *err);

/* Frees what RULES holds (not RULES itself); NULL is fine. */
void wc_member_rules_free(struct wc_member_rules *rules);

/* The capture's own files FILES[0..n) ("capture.conf",
 * "info/disk.conf") from the capture folder PATH, with capture.conf's
 * checks (wc_capture_read_file(): a regular file opened without
 * blocking, no link followed, none among its folders either, at most
 * WC_CAPTURE_MAX_BYTES).  texts[i] is the file's bytes with a NUL after
 * them (lens[i] without it; the caller frees), or NULL when the folder
 * has no such file.  0, or -1 with err filled and every texts[i] NULL.
 * An archive's are kept by its scan instead (wc_members_take_file()). */
int wc_members_read_folder_files(const char *path, const char *const *files,
				 size_t n, char **texts, size_t *lens,
				 struct wc_err *err);

#endif /* WC_MEMBERS_H */
