/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack.h - the capture archive's writer (docs/capture-format.md), beside
 * its reader (members.h) and under the same member-name rules
 * (wc_member_rules_check()): it never writes an archive the reader
 * would refuse.  wcrecord --pack spans it for wccapture.
 *
 *     struct wc_err err;
 *
 *     wc_err_clear(&err);
 *     if (wc_pack_capture("/var/tmp/wccapture.X/stage/NAME", fd, &err) < 0)
 *             report(&err);       // refused, or an I/O failure
 *
 * The folder NAME becomes NAME.tar.gz's one folder NAME/, written to the
 * descriptor given (gzip-compressed tar, pax format), its members in the
 * reader's order ("Order"):
 *  - NAME/, NAME/capture.conf, then NAME/phases.tsv and NAME/counters.tsv
 *    where the folder has them;
 *  - the trace files (NAME.blktrace.CPU, anywhere the reader takes
 *    them: NAME/ or NAME/trace/), the smallest first, names in byte
 *    order between files of one size; capture.conf's member is the
 *    folder's capture.conf with any trace_files line left out and
 *    "trace_files = N" added at its end, N their number;
 *  - every other file and folder, in byte order of their names.
 *
 * What always holds:
 *  - refused before the first byte is written, with the reason: a name
 *    the reader refuses (a trace file's CPU part that is no number from
 *    0 to 65535, a trace file or side file outside the capture folder,
 *    more than WC_INPUT_MAX_STREAMS trace files), a capture.conf that is
 *    missing, a side file larger than WC_CAPTURE_MAX_BYTES, and anything
 *    that is neither a regular file nor a folder (a symbolic link is
 *    refused, never followed: every open is relative to its folder's
 *    descriptor, with O_NOFOLLOW, from the folder given down);
 *  - bounded: at most WC_PACK_MAX_MEMBERS members, WC_PACK_MAX_DEPTH
 *    folders deep, member names shorter than WC_PACK_MAX_NAME bytes;
 *    memory is their names and one 64 KiB buffer;
 *  - a file is packed with the size it had when the folder was read; one
 *    that is shorter by the time it is copied fails the packing;
 *  - nothing is written but to the descriptor, which the caller closes;
 *    after a failure what it holds is no archive to keep.
 */
#ifndef WC_PACK_H
#define WC_PACK_H

#include "base/wcerr.h"

#define WC_PACK_MAX_MEMBERS (1u << 20)
#define WC_PACK_MAX_DEPTH   32
#define WC_PACK_MAX_NAME    4096

/* Packs the capture folder DIR (its last component is the capture's
 * NAME) into FD.  0, or -1 with err filled. */
int wc_pack_capture(const char *dir, int fd, struct wc_err *err);

#endif /* WC_PACK_H */
