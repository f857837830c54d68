/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capsule.h - one capture as the summary (summary.h) reads it: every
 * figure, name and count a comparison needs, without the trace.  A
 * capsule is made from a finished analysis, or read back from a
 * capture's summary (wcanalyze --format json, each CAPTURE's `raw`
 * object, docs/json-format.md), so that captures analysed on many
 * machines (the map) are compared on one (the reduce) exactly as if
 * their traces had been analysed there.
 *
 *     struct wc_capsule *c = NULL;
 *     if (wc_capsule_of(&c, analysis, &err) < 0) ...   // copies, keeps
 *     wc_analysis_free(analysis);                      // nothing of it
 *
 *     struct wc_capsule_reader *r = NULL;     // a summary, of one
 *     struct wc_capsule *c;                   // capture or of many
 *     if (wc_capsule_reader_fd(&r, fd, path, &err) < 0) ...
 *     while ((rc = wc_capsule_reader_next(r, &c, &err)) > 0)
 *             keep(c);             // c is the caller's
 *     if (rc < 0)
 *             report(&err);        // err.offset: where in the summary
 *     wc_capsule_reader_free(r);
 *
 * What always holds:
 *  - a capsule owns all it holds and points into nothing; its size is
 *    bounded (WC_MAX_DEVICES devices, WC_MAX_PHASES phases, WC_MAX_COMMS
 *    names a table), whatever the trace's length: 13 KiB (mostly
 *    capture.conf's strings), 0.8 KiB a device, 0.9 KiB a phase, 56
 *    bytes a name, and 29 KiB more with the kernel's counters;
 *  - the raw record is written and read through one description of its
 *    fields (wc_capsule_table()), so the two cannot drift: integers
 *    exactly, numbers as 17 significant digits (a double's own value
 *    back), names byte for byte (wc_escape_json_bytes());
 *  - reading refuses, with the offset of the value at fault: text that
 *    is not JSON (json.h), a summary of another format or version, a
 *    missing, repeated or mistyped key, a string too long for its field,
 *    a count past its bound, and figures that contradict each other (a
 *    window whose parts do not add up to it, a main device or a phase
 *    past the lists); nothing read is trusted further than that;
 *  - a summary is read a capture at a time, whatever the number of its
 *    captures (a comparison's summary fed to another, the reduce of a
 *    reduce): the reader holds one capture, at most
 *    WC_CAPSULE_MAX_TEXT bytes, and its parse, or one key, string,
 *    number or word of the rest of the root, which it goes through a
 *    member at a time however long its arrays (a group names each of
 *    its runs); its captures before a fault are given before the
 *    fault is found.
 *  - wc_capsule_free(NULL) and wc_capsules_free(NULL, 0) are fine.
 */
#ifndef WC_CAPSULE_H
#define WC_CAPSULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "base/wcerr.h"

struct wc_capsule_device {
	struct wc_figures figs;        /* over the capture's window */
	double media_rate;             /* wc_account_media_rate() */
	bool media_rate_estimated;
};

struct wc_capsule_phase {
	struct wc_phase_result result;
	struct wc_figures figs;        /* the main device's; valid when the
	                                * capsule has a main device */
};

struct wc_capsule {
	struct wc_capture_meta meta;
	bool partial;                  /* wc_analysis_partial() */
	char missing[256];             /* wc_analysis_main_missing(), or "" */
	char filter[512];              /* wc_analysis_filter(), or "" */
	struct wc_tracker_stats tracking;
	/* The kernel's counters; NULL when there were none (WC_KC_NONE). */
	struct wc_kcheck *kcheck;
	bool btt;                      /* btt's figures were computed */
	struct wc_btt_stat q2c, d2c;
	uint64_t btt_forgotten, btt_ignored;
	uint64_t busy_any;             /* wc_account_busy_any() */
	/* The main device's index (ndevices: the disk), or -1. */
	int main;
	size_t ndevices;               /* the accountant's order */
	struct wc_capsule_device *devices;
	/* The disk of partitions (wc_account_disk()), or NULL; its
	 * partitions' split. */
	struct wc_capsule_device *disk;
	size_t nparts;
	struct wc_account_part *parts;
	size_t nphases;
	struct wc_capsule_phase *phases;
	/* The main device's time by process and its flushes' issuers, and
	 * the waits over every device (account.h), most first. */
	size_t nprocs, nflushers, nwaits;
	struct wc_wait *procs, *flushers, *waits;
	/* The analysis' warnings (wc_analysis_warning()), for its caller
	 * to print once the analysis is gone; not in the raw record (the
	 * map printed them): none in a capsule read back. */
	size_t nwarnings;
	char (*warnings)[320];
};

int wc_capsule_of(struct wc_capsule **out, const struct wc_analysis *a,
		  struct wc_err *err);

/* A summary (wcanalyze --format json, docs/json-format.md) read a
 * capture at a time: from FD, a descriptor of the file at path open
 * for reading at any offset (read from its start with pread(): the one
 * an input's peek opened, wc_analysis_read_any()), which stays the
 * caller's and open while the reader is (path too); or from
 * text[0..len), kept as long.  Its root's "format" and "version" must
 * come before its "captures" (as wcanalyze writes them), whose
 * elements are read in order, those it left out staying out; the rest
 * of the root is gone through, a member of each array and object at a
 * time, checked as JSON.
 * _next() gives 1 and *c, the caller's (wc_capsule_free()), 0 past the
 * summary's end once all of it is checked, -1 with err (the file named,
 * the offset from its start) at the first fault, and -1 after it. */
struct wc_capsule_reader;
int wc_capsule_reader_fd(struct wc_capsule_reader **out, int fd,
			 const char *path, struct wc_err *err);
int wc_capsule_reader_text(struct wc_capsule_reader **out, const char *text,
			   size_t len, struct wc_err *err);
int wc_capsule_reader_next(struct wc_capsule_reader *r, struct wc_capsule **c,
			   struct wc_err *err);
void wc_capsule_reader_free(struct wc_capsule_reader *r);

/* The longest value the reader takes whole (a capture; elsewhere a
 * key, string or number), and so what a hostile one makes it hold: the text and its parse, 35 MB of RSS at worst (an array of
 * arrays of zeros, measured).  wcanalyze writes a capture of two
 * devices and two phases in 16.5 KB, and 2.7 KB more a device, 2.2 KB
 * a phase: about 0.5 MB at WC_MAX_DEVICES and WC_MAX_PHASES, names
 * unescaped. */
#define WC_CAPSULE_MAX_TEXT ((size_t)1 << 20)

/* c's raw record, as a summary's `raw` object holds it: one line. */
void wc_capsule_write(FILE *f, const struct wc_capsule *c);

/* Capsules kept on disk, not in memory (a comparison of many captures,
 * summary.h): each written to one unnamed temporary file in TMPDIR (or
 * /tmp; wc_spool_tmpfile()) as a one-capture summary of its raw
 * record, and read back in the order written, one at a time, as many
 * times as asked.  The file is gone with the spill (or the process):
 * nothing persists.  It holds in memory one record and its capsule.
 * _next() gives 1 and a capsule valid until the next call of _next(),
 * _rewind() or _free(), 0 past the last, -1 with err (a write error:
 * TMPDIR full); the first _next() rewinds, and nothing is added
 * after it. */
struct wc_capsule_spill;
int wc_capsule_spill_open(struct wc_capsule_spill **out, struct wc_err *err);
int wc_capsule_spill_add(struct wc_capsule_spill *sp,
			 const struct wc_capsule *c, struct wc_err *err);
int wc_capsule_spill_rewind(struct wc_capsule_spill *sp, struct wc_err *err);
int wc_capsule_spill_next(struct wc_capsule_spill *sp,
			  const struct wc_capsule **c, struct wc_err *err);
void wc_capsule_spill_free(struct wc_capsule_spill *sp);

/* A copy of c that owns all it holds (c's warnings too), for a reader
 * that keeps one capture past the next (summary.h keeps a few: each
 * group's first, the slowest); NULL when out of memory. */
struct wc_capsule *wc_capsule_dup(const struct wc_capsule *c);

/* Device i in the accountant's numbering: devices[i], or the disk
 * for i == ndevices. */
const struct wc_capsule_device *wc_capsule_device(const struct wc_capsule *c,
						  size_t i);

/* The main device's figures, NULL without one. */
const struct wc_figures *wc_capsule_main(const struct wc_capsule *c);

void wc_capsule_free(struct wc_capsule *c);
void wc_capsules_free(struct wc_capsule **caps, size_t n);

/* ---- the raw record's description, for the JSON writer ---------------- */

enum wc_cfield_type {
	WC_CF_U64,                     /* uint64_t */
	WC_CF_I64,                     /* int64_t */
	WC_CF_U32,                     /* uint32_t */
	WC_CF_INT,                     /* int (enums too) */
	WC_CF_UNSIGNED,                /* unsigned */
	WC_CF_SIZE,                    /* size_t */
	WC_CF_BOOL,                    /* bool */
	WC_CF_DOUBLE,                  /* double */
	WC_CF_STRING,                  /* char[size] */
	WC_CF_U64S,                    /* uint64_t[size] */
	WC_CF_STRINGS,                 /* char[max][size], count at count_off */
	WC_CF_RECORDS,                 /* records of table sub, size bytes
	                                * each, count at count_off: inline
	                                * (inline_ set) or through a pointer */
	WC_CF_RECORD,                  /* one record of table sub, size
	                                * bytes: inline (inline_ set), or
	                                * through a pointer, NULL as null */
};

struct wc_ctable;

struct wc_cfield {
	const char *key;
	enum wc_cfield_type type;
	size_t off;
	size_t size;                   /* see the types */
	size_t max;                    /* STRINGS, RECORDS: most of them */
	size_t count_off;              /* STRINGS, RECORDS: the size_t count */
	bool inline_;                  /* RECORDS: an array in the struct */
	const struct wc_ctable *sub;   /* RECORDS, RECORD */
};

struct wc_ctable {
	size_t n;
	const struct wc_cfield *f;
};

/* The fields of struct wc_capsule as the raw record holds them.  A
 * RECORDS field through a pointer that is NULL is written as null (the
 * kcheck without counters). */
const struct wc_ctable *wc_capsule_table(void);

/* The raw record's version (its "raw_version" key). */
#define WC_CAPSULE_VERSION 2

#endif /* WC_CAPSULE_H */
