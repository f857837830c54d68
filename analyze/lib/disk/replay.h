/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h - the main device's requests replayed through the disk model
 * (diskmodel.h) in virtual time: what the capture would have taken on
 * another disk, with the write cache on or off, or without barriers.
 *
 * Pulls completed requests from a request source (usually the tracker,
 * tracker.h, over an input) in the order the tracker hands them out, and
 * hands out the main device's requests once more, with the times the
 * model gives them: q_time, d_time and c_time in virtual time, in order
 * of virtual completion, as a tracker would have handed them out had the
 * capture been recorded on the modelled disk.  An accountant or a whole
 * analysis takes them as it takes the tracker's (analysis.h,
 * wc_analysis_read_requests()).  No clock, no I/O: the same requests and
 * the same configuration give the same times, to the nanosecond.
 *
 *     struct wc_replay_conf c;
 *     wc_replay_conf_init(&c);            // hdd7200 parameters, rules' defaults
 *     c.device = main_device;             // dev_t; others are not replayed
 *     c.capacity_bytes = image_bytes;
 *     c.cl = classifier;                  // tells the journal's writes
 *     c.drop_flushes = true;              // e.g. barriers off
 *     struct wc_replay *rp = NULL;
 *     if (wc_replay_open(&rp, &c, tracker_next, tr, &err) < 0) goto fail;
 *     while ((r = wc_replay_next(rp, &rq, &err)) > 0)
 *             account(&rq);               // virtual times
 *     end = wc_replay_map_end(rp, last_event_time);
 *     wc_replay_free(rp);
 *
 * What each request waited for (docs/what-if.md has the reasons and where
 * they are approximate).  A request R is issued at tau(R), its Q (its D
 * when it has no Q).  Looking back from R in the recorded times:
 *  - process: the request of R's pid that completed last at or before
 *    tau(R), when tau(R) is within think_max_ns of that completion: the
 *    process waited for it, then thought;
 *  - journal: for a flush or a journal write, the journal write that
 *    completed last at or before tau(R), within gap_ns: a commit (or its
 *    preflush) waits for its journal blocks;
 *  - completion: the request that completed last at or before tau(R),
 *    within gap_ns: R was issued because of it (a writer blocked for a
 *    free request, a waiter woken by it);
 *  - held: the request that completed last at or before R's D, when R
 *    was issued before that completion and dispatched within gap_ns of
 *    it: R was held back in the queue until it completed;
 *  - flush: the flush that completed last at or before R's D, when R's
 *    D came within gap_ns of that completion and R was issued before the
 *    flush completed or within gap_ns after: R was held back by it (a
 *    commit block behind its preflush, writes behind a drain);
 *  - none of these: R is independent (open loop) and keeps its recorded
 *    dispatch time.
 * Of R's parents the one that completed last in the recorded times is
 * the one R was issued (or dispatched) right after: R's virtual dispatch
 * is its recorded D plus that parent's lag, a lag being a request's
 * virtual completion minus its recorded one, so the think time after
 * that completion is kept; its Q moves with the parent it was issued
 * after (process, journal, completion), not with one it was only held
 * by.  The last completions before tau(R) are looked up among the last
 * few of each kind (a request is taken at its D, and its Q may lie
 * several completions back).  A dropped flush (drop_flushes: barriers
 * off, or the write cache off, when the kernel sends none) takes no time:
 * it completes when it would have been dispatched, and what waited for it
 * waits for what it waited for.  drop_fua sends FUA writes as plain
 * writes.
 *
 * barriers (not WC_BARRIERS_NONE) replays under the block layer's
 * ordering before 2.6.37 (docs/what-if.md, "The 2.6.24 ordering"): the
 * filesystem's barrier writes (WC_BARRIERS_LOG: every journal write, as
 * XFS's xlog_sync() marked each log buffer ordered; WC_BARRIERS_COMMIT:
 * a journal write carrying FUA or PREFLUSH, jbd's commit block) are
 * drained: one goes to the disk only once every request given to it
 * before has completed, and nothing given after starts until it has
 * completed.  With the disk's write cache on it goes as a cache flush,
 * the write without FUA and a second flush (QUEUE_ORDERED_DRAIN_FLUSH:
 * libata without FUA), the flushes handed out as requests of their own;
 * with it off, alone (QUEUE_ORDERED_DRAIN).  What waits for a barrier
 * waits for its second flush.  The caller drops today's flushes and FUA
 * (drop_flushes, drop_fua): the barrier is what replaces them.
 *
 * The requests go to the model (wc_disk_submit()) in order of virtual
 * dispatch (ties in the order taken), and the model picks what it
 * serves next by its own queueing and flush rules (diskmodel.h), one at a
 * time: the same calls wcdisk makes, in virtual time.
 *
 * What always holds:
 *  - requests come out in order of virtual completion; every completed
 *    request of the main device (and of the regions) comes out once,
 *    except dropped flushes (counted); requests of other devices and
 *    unfinished ones are counted, not replayed;
 *  - memory is bounded by the requests held between their reading and
 *    their virtual completion, at most WC_REPLAY_MAX_HELD; a request read
 *    when that many are held is taken in the order read (counted in
 *    stats.forced), so a hostile trace costs ordering, never memory;
 *    process state for at most WC_REPLAY_MAX_PIDS pids;
 *  - the replay does not own the source; wc_replay_free(NULL) is fine.
 */
#ifndef WC_REPLAY_H
#define WC_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/classify.h"
#include "disk/diskmodel.h"
#include "format/request.h"
#include "base/wcerr.h"

#define WC_REPLAY_MAX_HELD (1u << 17)
#define WC_REPLAY_MAX_PIDS (1u << 16)
#define WC_REPLAY_MAX_POINTS 160u
#define WC_REPLAY_MAX_REGIONS 4u
/* Times, recorded and virtual, stay below 2^62 ns (146 years): a
 * request recorded at or past it is refused, and a replay whose virtual
 * time reaches it stops (both WC_ERR_INPUT, naming the bound), so that
 * every lag and every sum of a time and a lag is exact in 64 bits. */
#define WC_REPLAY_MAX_NS (1ull << 62)

/* The rules' defaults (docs/what-if.md says why these). */
#define WC_REPLAY_GAP_NS 1000000ull          /* 1 ms: "right after" */
#define WC_REPLAY_THINK_MAX_NS 1000000000ull /* 1 s */
/* A request is taken in order of its D once the source has handed out
 * one completing this long after that D: a request in flight longer may
 * come late (counted in stats.late). */
#define WC_REPLAY_HORIZON_NS 60000000000ull  /* 60 s */

/* Where a request's start came from, for the statistics. */
enum wc_replay_rule {
	WC_RULE_PROCESS,
	WC_RULE_FLUSH,
	WC_RULE_JOURNAL,
	WC_RULE_COMPLETION,
	WC_RULE_HELD,
	WC_RULE_OPEN,
	WC_NRULES
};

/* Which writes are barriers under the 2.6.24 ordering (above). */
enum wc_replay_barriers {
	WC_BARRIERS_NONE,            /* today's ordering */
	WC_BARRIERS_LOG,             /* every journal write (XFS) */
	WC_BARRIERS_COMMIT,          /* journal writes with FUA or PREFLUSH
	                              * (ext3/ext4 barrier=1) */
};

/* "process", "flush", "journal", "completion", "held", "open". */
const char *wc_replay_rule_name(enum wc_replay_rule r);

struct wc_replay_conf {
	struct wc_disk_params disk;
	uint64_t capacity_bytes;     /* the modelled disk; > 0, whole sectors */
	uint32_t device;             /* dev_t of the main device */
	uint64_t first_sector;       /* the main device's first sector on
	                              * the model (a partition's offset,
	                              * diskmodel.h "Placement"); 0 */
	/* More devices the same model disk serves (wcdisk's regions: a lab
	 * whose source is a second partition of the destination's disk),
	 * each at its first sector on the model; the main device is at
	 * first_sector.
	 * Their requests are replayed on the one disk and handed out with
	 * their own device and sector. */
	size_t nregions;             /* <= WC_REPLAY_MAX_REGIONS */
	struct { uint32_t device; uint64_t first_sector; } regions[4];
	struct wc_classifier cl;     /* which writes are the journal's */
	bool drop_flushes;
	bool drop_fua;
	enum wc_replay_barriers barriers;
	uint64_t gap_ns;
	uint64_t think_max_ns;
	uint64_t horizon_ns;
	/* Recorded times to carry into virtual time (phase edges): each maps
	 * as the last completion at or before it moved. */
	size_t npoints;              /* <= WC_REPLAY_MAX_POINTS */
	const uint64_t *points;
};

struct wc_replay_stats {
	uint64_t read;               /* requests from the source */
	uint64_t replayed;           /* handed out */
	uint64_t other_devices;      /* not the main device: not replayed */
	uint64_t unfinished;         /* no completion recorded */
	uint64_t dropped_flushes;
	uint64_t empty;              /* empty requests that are no flush: no
	                              * time on any disk, not handed out */
	uint64_t dropped_fua;        /* sent without FUA */
	uint64_t barriers;           /* barrier writes drained (2.6.24) */
	uint64_t barrier_flushes;    /* the flushes their expansion added */
	uint64_t rule[WC_NRULES];    /* requests with a parent by each rule
	                              * (a request may have several), and
	                              * the open ones */
	uint64_t late;               /* read after a later D was taken */
	uint64_t forced;             /* requests taken before their horizon
	                              * passed: WC_REPLAY_MAX_HELD held */
	uint64_t out_of_order;       /* requests late or forced, each once */
	uint64_t pids_full;          /* pids past WC_REPLAY_MAX_PIDS */
	uint64_t busy_ns;            /* the model's time serving requests
	                              * (start to end, destage waited for
	                              * included; idle destage not) */
	uint64_t first_c, last_c;    /* virtual completions, WC_NO_TIME: none */
};

struct wc_replay;

/* hdd7200's parameters (wc_disk_params_init()), a 500 GB capacity, no
 * flush dropped, the rules' defaults, the heuristic classifier. */
void wc_replay_conf_init(struct wc_replay_conf *c);

/* Checks the model's parameters (wc_disk_open()) and opens the replay;
 * the configuration is copied (points too). */
int wc_replay_open(struct wc_replay **out, const struct wc_replay_conf *c,
		   wc_request_source next, void *ctx, struct wc_err *err);

/* 1 with the next replayed request in *rq, 0 at the end, -1 when the
 * source failed or memory ran out (err filled; then -1 again). */
int wc_replay_next(struct wc_replay *rp, struct wc_request *rq,
		   struct wc_err *err);

/* After the end: point i of the configuration in virtual time, and a
 * recorded time after every request (the trace's last event) likewise. */
uint64_t wc_replay_map_point(const struct wc_replay *rp, size_t i);
uint64_t wc_replay_map_end(const struct wc_replay *rp, uint64_t t);

const struct wc_replay_stats *wc_replay_stats(const struct wc_replay *rp);

void wc_replay_free(struct wc_replay *rp);

#endif /* WC_REPLAY_H */
