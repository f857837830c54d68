/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt.h - Q2C and D2C per bio, as btt prints them on its "All Devices"
 * rows, so that users can check our numbers against a tool they trust.
 *
 * Feed it every event in time order (the analysis does, from the
 * tracker's source); read the figures at the end.
 *
 *     struct wc_btt *b = NULL;
 *     if (wc_btt_open(&b, &err) < 0) goto fail;
 *     while (... next event ev ...)
 *             wc_btt_add(b, &ev, NULL);   // failure kept for _status
 *     if (wc_btt_status(b, &err) < 0) goto fail;
 *     wc_btt_q2c(b)->n, wc_btt_d2c(b)->min ...
 *     wc_btt_free(b);
 *
 * Rules, as btt 2.09 (blktrace 1.2/1.3) applies them:
 *  - notify and PC (SCSI passthrough) records are ignored, and so is any
 *    record whose "what" carries the cgroup flag (btt switches on the low
 *    16 bits of action, so it never recognises those);
 *  - Q, D and C with no bytes are ignored (flushes never show in btt);
 *  - a device is ignored until its first Q with bytes; past
 *    WC_MAX_DEVICES devices, Qs on a new one are counted by
 *    wc_btt_ignored() and nothing else (btt has no such cap);
 *  - a Q is kept per device by start sector; a Q whose start sector is
 *    already kept takes the older one's place, and the older one is
 *    forgotten (seen with btt 2.09: its completion must have been lost);
 *  - a D [s, s + n) stamps its time on every kept Q lying inside it, so a
 *    merged bio inherits its request's D, and a requeued one the last D;
 *  - a C [s, s + n) ends every kept Q lying inside it: Q2C = C - Q, and,
 *    when the Q has a D, D2C = C - D; a difference that is not positive
 *    counts as 1 ns, as btt's tdelta() does;
 *  - kept Qs live in a red-black tree with the classic rebalancing, walked
 *    the way btt walks it (a Q hidden behind a larger overlapping one can
 *    be missed, as in btt);
 *  - remaps (A) are not followed: traces of stacked devices can differ.
 *
 * Memory: the Qs in flight, per device, in a red-black tree; a D or C
 * costs the tree's height plus the kept Qs starting inside it, never the
 * number kept.  While a device's kept Qs are disjoint (none can hide
 * another from a walk, so the tree's shape cannot change a figure) and
 * number 16 to 256, they are a list in start order instead, with a
 * record of at most 4,096 changes from which the tree is made the moment
 * its shape matters: 74 KiB a device at most (wc_btt_list_room()).  Qs
 * whose C was lost stay there, as in btt; past WC_BTT_MAX_KEPT on a
 * device the oldest (by Q time) is forgotten, one per new Q (counted by
 * wc_btt_dropped()), so a trace that lost many completions, or queued
 * more than that many bios at once, can differ from btt.  Freed Qs are
 * reused, so after the first peak a trace spans without malloc.
 */
#ifndef WC_BTT_H
#define WC_BTT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/event.h"
#include "base/wcerr.h"
#include "base/wclimits.h"

/* Times in nanoseconds; all 0 when n == 0. */
struct wc_btt_stat {
	uint64_t n;
	uint64_t min, max;
	uint64_t total;       /* sum, for the mean (a __u64 in btt too) */
};

struct wc_btt;

int wc_btt_open(struct wc_btt **out, struct wc_err *err);
/* False for an event wc_btt_add() ignores whatever came before (the
 * rules above): a caller with many such events (G, I, M, P, U, notify)
 * may skip the call for them, and the figures are the same. */
static inline bool wc_btt_wants(const struct wc_event *ev)
{
	/* One mask and a bit test: what is Q, D or C (btt matches the low
	 * 16 bits of action, so the cgroup flag, already taken off action
	 * by the decoder, must be absent), neither notify nor PC. */
	uint64_t a = ev->action & (WC_TC(WC_TC_NOTIFY) | WC_TC(WC_TC_PC) |
				   WC_TA_MASK);

	return a < 32 &&
	       ((1u << WC_TA_QUEUE | 1u << WC_TA_ISSUE |
		 1u << WC_TA_COMPLETE) >> a & 1u) &&
	       ev->bytes != 0 && !ev->has_cgroup;
}
/* wc_btt_add() for an event wc_btt_wants() accepted: not for callers. */
int wc_btt_add_wanted(struct wc_btt *b, const struct wc_event *ev,
		      struct wc_err *err);
/* -1 after a failure of wc_btt_add(), else 0: not for callers. */
int wc_btt_failed(const struct wc_btt *b);
/* Takes one event; returns -1 only when out of memory (err filled, may be
 * NULL), and then ignores every later event.  Inline so that a caller
 * that asked wc_btt_wants() first does not ask it twice. */
static inline int wc_btt_add(struct wc_btt *b, const struct wc_event *ev,
			     struct wc_err *err)
{
	if (!wc_btt_wants(ev))
		return wc_btt_failed(b);
	return wc_btt_add_wanted(b, ev, err);
}
/* wc_btt_add() for n events in a row (errors as wc_btt_add() with a
 * NULL err, kept for wc_btt_status()): one call for a batch, the filter
 * and the dispatch inline. */
int wc_btt_add_batch(struct wc_btt *b, const struct wc_event *evs, size_t n);
/* -1 with the first failure of wc_btt_add() in err, else 0. */
int wc_btt_status(const struct wc_btt *b, struct wc_err *err);
const struct wc_btt_stat *wc_btt_q2c(const struct wc_btt *b);
const struct wc_btt_stat *wc_btt_d2c(const struct wc_btt *b);
/* Kept Qs forgotten past WC_BTT_MAX_KEPT. */
uint64_t wc_btt_dropped(const struct wc_btt *b);
/* Qs on devices past the first WC_MAX_DEVICES (wclimits.h) with a Q,
 * ignored: a corrupt device field cannot make btt grow or slow down. */
uint64_t wc_btt_ignored(const struct wc_btt *b);
/* Qs kept now, on every device: in flight, or never to complete. */
uint64_t wc_btt_kept(const struct wc_btt *b);
/* The most Qs any device's list has room for: 256 at most, whatever the
 * trace (the bound behind the memory figure above). */
size_t wc_btt_list_room(const struct wc_btt *b);
/* Mean in seconds, 0 when n == 0. */
double wc_btt_mean_s(const struct wc_btt_stat *s);
void wc_btt_free(struct wc_btt *b);

#endif /* WC_BTT_H */
