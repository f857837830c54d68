/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recorder.h - the parts of wcrecord(8) that need no tracer to be tested:
 * the undo list of the settings it changes, the writing of a setting, the
 * reading of tracefs's decorated values, the tables that name processes,
 * and the filter that cuts the tracer's output into records.
 *
 * Settings undo.  Every setting is noted before it is changed, in memory
 * and, when a file is given, in an undo file, so that another process can
 * put everything back if the recorder is killed outright (wcrecord
 * --restore FILE, run by wccapture):
 *
 *     struct wc_undo *u = wc_undo_open("/var/tmp/x/undo", "/sys/", &err);
 *     wc_undo_change(u, "/sys/kernel/tracing/current_tracer", "nop", "blk", &err);
 *     wc_undo_note_mount(u, "/sys/kernel/tracing", &err);
 *     ...
 *     wc_undo_restore(u, &err);    // newest first; then removes the file
 *     wc_undo_free(u);
 *
 *     wc_undo_restore_file("/var/tmp/x/undo", "/sys/", &err);
 *
 * The undo file is text, one change a line, oldest first:
 *
 *     set<TAB>PATH<TAB>OLD VALUE
 *     umount<TAB>DIR
 *
 * It is written and flushed before each change is made, so it lists at
 * least every change made.  Restoring reads it whole first (at most
 * WC_UNDO_MAX lines of WC_UNDO_LINE bytes: memory is bounded whatever the
 * file holds), refuses a file that is not in this form or names a path
 * outside the prefix given, then undoes every line, newest first, going
 * on past a failing one; the first failure is the one reported.  A file
 * fully restored is removed; a missing file is nothing to restore.
 *
 * Invariants: paths are absolute, without "..", under the prefix the
 * list was opened with; values hold no tab, newline or NUL; at most
 * WC_UNDO_MAX changes.  wc_undo_free() frees and restores nothing.
 */
#ifndef WC_RECORDER_H
#define WC_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "format/event.h"
#include "base/wcerr.h"

#define WC_UNDO_MAX 64
#define WC_UNDO_LINE 1024

struct wc_undo;

/* An empty undo list.  file may be NULL (in memory only); else it is
 * created, replacing what was there.  prefix: every path must start with
 * it ("/sys/" for wcrecord).  NULL with err set on failure. */
struct wc_undo *wc_undo_open(const char *file, const char *prefix,
			     struct wc_err *err);

/* Writes val into the file path after noting old (the value as it must be
 * written back).  Nothing is noted when old equals val. */
int wc_undo_change(struct wc_undo *u, const char *path, const char *old,
		   const char *val, struct wc_err *err);

/* Notes that dir was mounted (by the caller, just now) and must be
 * unmounted on restore. */
int wc_undo_note_mount(struct wc_undo *u, const char *dir, struct wc_err *err);

/* Number of changes noted and not yet undone. */
int wc_undo_count(const struct wc_undo *u);

/* Undoes every change, newest first; the list is then empty and its file
 * removed.  Keeps going past failures; returns -1 after the first. */
int wc_undo_restore(struct wc_undo *u, struct wc_err *err);

/* Restores from an undo file left by a recorder that could not; see
 * above.  0 also when file does not exist. */
int wc_undo_restore_file(const char *file, const char *prefix,
			 struct wc_err *err);

void wc_undo_free(struct wc_undo *u);

/* Writes val (no newline added) into a sysfs or tracefs file, truncating
 * it: for tracefs's trace file, "" empties the buffers. */
int wc_sysfs_write(const char *path, const char *val, struct wc_err *err);

/*
 * A tracefs value as it must be written back, in place: "[local] global
 * ..." (the bracketed choice) gives "local", "7 (expanded: 1408)" (a
 * buffer not yet used) gives "1408", anything else is left as it is,
 * without trailing newlines.  Returns s.
 */
char *wc_tracefs_value(char *s);

/*
 * Process names: a cache of pid -> name in two maps (map.h) of
 * WC_COMMS_SLOTS / 2 pids each, the 32768 names the kernel's cmdline
 * cache tells apart (it keys them by pid modulo PID_MAX_DEFAULT), so one
 * full saved_cmdlines fits.  Names go into the current map; when it is
 * full the other is emptied and becomes the current one: the last
 * WC_COMMS_SLOTS / 2 names learned are always there, older ones may be
 * gone.  Memory is bounded (about 5 MiB) whatever the number of
 * processes.  Pid 0 (the idle task, which completes many requests) is a
 * pid like any other.
 *
 *     struct wc_comms *c = wc_comms_open(&err);
 *     wc_comms_load(c, saved_cmdlines_fp, now);
 *     name = wc_comms_get(c, pid, &learned);   // NULL: unknown
 *     wc_comms_put(c, pid, "/proc name", now);
 *     wc_comms_free(c);
 *
 * Names are cut to WC_COMM_LEN - 1 bytes, as the kernel's are.
 */
#define WC_COMM_LEN 16
#define WC_COMMS_SLOTS 65536u

struct wc_comms;

struct wc_comms *wc_comms_open(struct wc_err *err);
/* The name of pid and when it was learned, or NULL. */
const char *wc_comms_get(const struct wc_comms *c, uint32_t pid,
			 uint64_t *learned);
/* Learns pid's name at time now; returns the name as kept, or NULL when
 * out of memory (the cache's array grows to its bound as names come). */
const char *wc_comms_put(struct wc_comms *c, uint32_t pid, const char *comm,
			 uint64_t now);
/* Learns every "PID NAME" line of fp (tracefs's saved_cmdlines) at time
 * now; lines of another form, and the kernel's "<...>" (name lost), are
 * passed over. */
void wc_comms_load(struct wc_comms *c, FILE *fp, uint64_t now);
void wc_comms_free(struct wc_comms *c);

/*
 * Pids announced in one file: WC_SEEN_SETS sets of WC_SEEN_WAYS, most
 * recent first.  A pid pushed out is announced again when it comes back;
 * a second PROCESS notify for a pid is harmless to blkparse, btt and
 * wcanalyze, an unbounded list of pids is not.
 */
#define WC_SEEN_BITS 8
#define WC_SEEN_SETS (1u << WC_SEEN_BITS)
#define WC_SEEN_WAYS 4

struct wc_seen;

struct wc_seen *wc_seen_open(struct wc_err *err);
/* Marks pid announced; returns 1 if it already was, 0 if new. */
int wc_seen_mark(struct wc_seen *s, uint32_t pid);
void wc_seen_free(struct wc_seen *s);

/*
 * The record filter: the tracer's raw output (this machine's byte order,
 * read in pieces from trace_pipe) cut into the records the decoder reads.
 *
 *     switch (wc_record_frame(buf, len, &total, &ev, &err)) {
 *     case WC_FRAME_RECORD:   keep buf[0..total); buf += total; break;
 *     case WC_FRAME_PARTIAL:  read more, then again from buf; break;
 *     case WC_FRAME_INVALID:  buf += 1;   // to the next record boundary
 *     default:                fail(&err); // out of memory
 *     }
 *
 * A record is valid when wc_decoder_next() (decode.h) reads it (magic,
 * version 7 or 8, pdu_len within the record, room for a cgroup id when
 * flagged) and its payload is at most WC_RECORD_MAX_PDU bytes; ev is then
 * the decoder's event, ev->pdu pointing into buf.  PARTIAL needs the
 * header to say so: a payload over the bound is INVALID at once, never
 * waited for.
 *
 * wc_record_process() writes the PROCESS notify record that names pid
 * ev->pid in front of its events (blkparse and btt learn names only from
 * these; the tracer writes none): ev's time, device and CPU, comm cut to
 * WC_COMM_LEN - 1 bytes and its NUL as the payload, in version (7 or 8,
 * the file's), through wc_blk_encode() (encode.h).  Returns the length
 * written into buf, or -1 with err set.
 */
#define WC_RECORD_MAX_PDU 4096     /* the largest payload: a message */

enum wc_frame {
	WC_FRAME_RECORD = 1,
	WC_FRAME_PARTIAL = 0,
	WC_FRAME_INVALID = 2,
};

int wc_record_frame(const unsigned char *buf, size_t len, size_t *total,
		    struct wc_event *ev, struct wc_err *err);

ssize_t wc_record_process(unsigned char *buf, size_t size,
			  const struct wc_event *ev, const char *comm,
			  unsigned version, struct wc_err *err);

#endif /* WC_RECORDER_H */
