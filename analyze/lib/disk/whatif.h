/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * whatif.h - what a capture would have taken in another configuration:
 * its main device's requests replayed through the disk model (replay.h)
 * as recorded and as each what-if says, each replay analysed as a
 * capture of its own.
 *
 *     struct wc_whatif_spec specs[2];
 *     if (wc_whatif_spec_parse(&specs[0], "cache=off", &err) < 0 ||
 *         wc_whatif_spec_parse(&specs[1], "disk=ssd,barrier=off", &err) < 0)
 *             usage(&err);
 *     struct wc_whatif *w = NULL;
 *     if (wc_whatif_replay(&w, path, specs, 2, &opts, &err) < 0)
 *             report(&err);
 *     // analyses: the capture as recorded, its replay as recorded, then
 *     // one replay per spec; the replay as recorded is the baseline
 *     struct wc_summary_opts so = {
 *             .baseline_index = wc_whatif_baseline_index(w) };
 *     wc_summary_build_opts(&s, wc_whatif_analyses(w), wc_whatif_count(w),
 *                           &so, &err);
 *     wc_whatif_free(w);                 // after the summary
 *
 * A SPEC is KEY=VALUE items separated by commas:
 *   disk=NAME      a model disk: a file of capture/disks (hdd7200, ssd,
 *                  ssd-plp) or, the user's own, a path holding a '/'
 *                  (a regular file only, wc_disk_params_load());
 *   cache=on|off   the write cache (the model's write_cache);
 *   barrier=on|off barriers: off drops the flushes and FUA, and the waits
 *                  they caused;
 *   capacity=BYTES the modelled disk's size;
 *   kernel=2.6.24  the block layer's ordering before 2.6.37 (replay.h's
 *                  barriers): today's flushes and FUA dropped, and with
 *                  barriers on the filesystem's barrier writes drained
 *                  and, with the cache on, wrapped in two flushes (XFS:
 *                  every journal write; ext3, ext4 and others: journal
 *                  writes with FUA or PREFLUSH, the commit blocks);
 *   any parameter of diskmodel.h (queue_depth=1, cache_kib=8192, ...),
 *                  applied after disk= in the order given.
 * What the spec does not say is as recorded: the capture's model disk
 * (capture.conf disk_model; hdd7200 for a capture without one), its write
 * cache and barriers.  A capture's disk_model is a stranger's: a name
 * (wc_disk_name_check()) looked up among the disk files, never a path;
 * one that is no name is refused with a note and hdd7200 used.
 *
 * Disk files are looked for in $WCANALYZE_DISKS, WC_DATADIR/disks (where
 * "make install" puts them), then capture/disks under the current folder.
 *
 * Where a replay cannot say what would have happened, the result says so
 * (wc_whatif_notes()): a capture with no flush cannot show what barriers
 * would cost (the filesystem's flushes are not in it).
 *
 * What always holds: the same input and specs give the same analyses to
 * the nanosecond.  Input: read once, by the recorded analysis in one
 * pass (wc_analysis_opts.once: an archive is opened once, its trace
 * files and ledger held or copied aside by its scan whatever their
 * order), which keeps every request its tracker hands out
 * (wc_analysis_opts.keep), capture.conf as the meta gives it (its
 * disk_regions too) and info/disk.conf (wc_input_take_file(), input.h)
 * in the same pass; every replay (each replays twice: once to carry the phases' edges
 * into virtual time, once to analyse) takes the requests from memory.  Memory: those
 * requests, at most WC_WHATIF_MAX_REQUESTS (4,194,304 of
 * sizeof(struct wc_request) bytes; o.max_requests for a smaller bound;
 * past it the what-if fails with an input error that gives the bound
 * and hands out nothing), plus the replay's bound
 * (replay.h) and the analyses'.  Time: the replays' work is linear in
 * the requests times 2 (1 + the specs), each request's cost bounded by
 * the model's queue (WC_DISK_MAX_QUEUE) and the replay's held requests
 * (WC_REPLAY_MAX_HELD); virtual time stops at WC_REPLAY_MAX_NS.  Output:
 * at most 2 + WC_WHATIF_MAX_SPECS analyses and MAX_NOTES notes.  The
 * result owns its analyses; wc_whatif_free(NULL) is fine.
 */
#ifndef WC_WHATIF_H
#define WC_WHATIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "disk/diskmodel.h"
#include "disk/replay.h"
#include "base/wcerr.h"

#define WC_WHATIF_MAX_SPECS 16
/* The requests the replays hold in memory, read once (past them the
 * what-if fails with an input error that says so). */
#define WC_WHATIF_MAX_REQUESTS (1u << 22)
#define WC_WHATIF_MAX_ITEMS 16

struct wc_whatif_spec {
	char text[256];              /* as given, for names */
	char disk[256];              /* disk=, or "" */
	int cache;                   /* 1, 0, -1 as recorded */
	int barrier;                 /* 1, 0, -1 as recorded */
	bool kernel_2624;            /* kernel=2.6.24: its ordering */
	uint64_t capacity;           /* 0: as recorded */
	size_t nitems;               /* diskmodel parameters, in order */
	struct { char key[32]; char value[64]; } items[WC_WHATIF_MAX_ITEMS];
};

/* Parses SPEC (WC_ERR_USAGE naming the item when it is wrong).  Disk
 * parameters are checked by name and value here, as a whole when run. */
int wc_whatif_spec_parse(struct wc_whatif_spec *s, const char *text,
			 struct wc_err *err);

struct wc_whatif_opts {
	struct wc_analysis_opts analysis;   /* journal, media rate, series */
	/* The requests held at most; 0 or more than WC_WHATIF_MAX_REQUESTS:
	 * WC_WHATIF_MAX_REQUESTS (a smaller bound is for tests). */
	size_t max_requests;
};

struct wc_whatif;

/* Analyses the capture at path, then replays it as recorded and as each
 * of specs[0..n) says (n <= WC_WHATIF_MAX_SPECS).  On failure (an input
 * that turns bad midway too: a replay of part of a capture predicts
 * nothing) *out is NULL. */
int wc_whatif_replay(struct wc_whatif **out, const char *path,
		     const struct wc_whatif_spec *specs, size_t n,
		     const struct wc_whatif_opts *o, struct wc_err *err);

/* The analyses: [0] the capture as recorded, [1] its replay as recorded
 * (the baseline), [2 + i] the replay of specs[i]. */
size_t wc_whatif_count(const struct wc_whatif *w);
struct wc_analysis *const *wc_whatif_analyses(const struct wc_whatif *w);
/* The baseline's capture name, for messages: not for finding it (a
 * capture may be named as its replay is, the name cut to fit). */
const char *wc_whatif_baseline(const struct wc_whatif *w);
/* The baseline's position in the analyses, plus 1: what
 * wc_summary_opts.baseline_index takes (always 2: analyses[1]). */
size_t wc_whatif_baseline_index(const struct wc_whatif *w);
/* The replay statistics of analysis i >= 1, NULL for 0. */
const struct wc_replay_stats *wc_whatif_stats(const struct wc_whatif *w,
					      size_t i);
/* Sentences on what the replays could not say, one per line. */
size_t wc_whatif_nnotes(const struct wc_whatif *w);
const char *wc_whatif_note(const struct wc_whatif *w, size_t i);

void wc_whatif_free(struct wc_whatif *w);

#endif /* WC_WHATIF_H */
