/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c - see replay.h.
 *
 * A discrete-event simulation in virtual time.  Each request read from
 * the source takes a slot and goes through:
 *   window   read, waiting to be taken in order of its recorded D (the
 *            source hands requests out in order of completion);
 *   waiting  taken: its parents found (replay.h's rules), some of them
 *            not yet served;
 *   ready    its virtual dispatch known, not yet given to the disk;
 *   queued   submitted to the disk (wc_disk_submit()), in order of
 *            virtual dispatch; the model picks what it serves next;
 *   done     served: its lag (virtual minus recorded completion) known,
 *            for what depends on it.
 * A slot is reused once it is handed out (or dropped) and nothing refers
 * to it any more: the requests that wait for it, the per-pid table, the
 * last flush and journal write, the points.
 *
 * The simulation acts at a virtual time t only when no request not yet
 * taken can be dispatched before t: such a request's dispatch is its
 * recorded D plus some lag no smaller than the smallest lag seen so far
 * (lag_min, at most 0), and its recorded D is no earlier than the
 * window's first (or, unread, than the last completion read less the
 * horizon).
 */
#include "disk/replay.h"

#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/prioq.h"

enum state { S_FREE, S_WINDOW, S_WAITING, S_READY, S_QUEUED, S_DONE };

#define NONE UINT32_MAX
#define MAXPAR 5
#define NEVER UINT64_MAX

struct slot {
	struct wc_request rq;        /* as recorded (d_time, c_time set) */
	int64_t lag;                 /* done: vc - c; waiting: largest
	                              * parent lag so far */
	uint64_t vq, vd, vc;
	uint64_t first;              /* its device's first sector on the disk */
	uint32_t refs;
	uint32_t parent[MAXPAR];     /* the parents it waits for */
	uint32_t next_edge[MAXPAR];  /* this slot as child k: the next edge
	                              * in that parent's list */
	uint32_t first_edge;         /* edges into the children: child *
	                              * MAXPAR + k, NONE */
	uint32_t next_free;
	uint32_t depth;              /* at the disk when it arrived, itself
	                              * included (as the tracker's depth) */
	uint64_t pc, qpc;            /* recorded completion of the parent
	                              * whose lag it takes, and of the one
	                              * it was issued after */
	int64_t qlag;                /* the largest lag of the parents that
	                              * issued it (process, journal) */
	uint8_t state;
	uint8_t waits;               /* parents not yet done */
	uint8_t qmask;               /* parent k issued it: bit k */
	bool has_qparent;
	bool live;                   /* not yet handed out or dropped */
	bool has_parent;
	bool barrier;                /* drained as a barrier (2.6.24) */
	bool synthetic;              /* a barrier's flush, not recorded */
	enum wc_cat cat;
};

/* The last few completions of a kind, oldest first: a request is taken
 * at its D, and what completed before its issue (its Q) may be a few
 * completions back by then. */
#define PID_HIST 4
#define ANY_HIST 64
#define JOURNAL_HIST 8

struct pidrec {
	uint32_t slot[PID_HIST];     /* + 1; 0: none */
};

/* The window: requests read and not yet taken, in order of recorded D,
 * equal Ds in the order read.  The source hands them out in order of
 * completion, which is nearly the order of D, and they stay a horizon
 * long (thousands): most come after every one the window holds and are
 * appended to a ring kept in that order; one that overtook at most
 * WIN_SCAN others is put in its place among the ring's last; the rest (a
 * request in flight while many others completed) wait in a heap.  The
 * first is the earlier of the ring's first and the heap's. */
#define WIN_SCAN 16

struct win_ent {
	uint64_t key;                /* recorded D */
	uint64_t seq;                /* order read */
	uint32_t slot;
};

struct window {
	struct win_ent *ring;        /* cap: 0 or a power of 2 */
	uint32_t cap, first, n;
	struct wc_prioq *heap;       /* tie: seq */
	uint64_t seq;
};

struct wc_replay {
	struct wc_replay_conf c;
	uint64_t points[WC_REPLAY_MAX_POINTS];
	size_t order[WC_REPLAY_MAX_POINTS];  /* point indexes, by time */
	uint32_t point_slot[WC_REPLAY_MAX_POINTS];
	size_t next_point;                   /* in order[] */

	struct wc_disk *disk;
	wc_request_source next;
	void *ctx;

	struct slot *s;
	uint32_t nalloc, nused, free_head, held;
	struct window window;
	struct wc_prioq *rec;        /* key: recorded C, taken slots */
	struct wc_prioq *ready;      /* key: virtual D */
	struct wc_map *pids;
	/* The pid looked up last and its record in pids, NULL when none: a
	 * trace's requests come mostly from one pid, and a look-up in the
	 * map hashes its key (map.h).  Set by every put that adds a key,
	 * which may move the records. */
	uint32_t memo_pid;
	struct pidrec *memo;

	uint32_t last_any, last_flush;
	uint32_t any_hist[ANY_HIST];         /* NONE: none */
	uint32_t journal_hist[JOURNAL_HIST];
	uint64_t last_read_c;        /* latest completion read */
	uint64_t last_taken_d;
	uint64_t last_submit;        /* virtual dispatch of the last queued */
	uint32_t inflight;           /* submitted, not yet served */
	int64_t lag_min;             /* <= 0 */
	uint64_t seq;
	bool src_done, failed, finished;
	bool stopped;                /* failed: src_err says why */
	/* The barrier being drained (2.6.24 ordering), NONE: none; its next
	 * part to give the disk, whether one is at the disk, and the latest
	 * virtual completion. */
	uint32_t gate;
	int gate_part;
	bool gate_busy;
	uint64_t last_end;
	struct wc_err src_err;
	struct wc_replay_stats st;
};

static const char *const rule_names[WC_NRULES] = {
	"process", "flush", "journal", "completion", "held", "open",
};

const char *wc_replay_rule_name(enum wc_replay_rule r)
{
	return (unsigned)r < WC_NRULES ? rule_names[r] : "?";
}

void wc_replay_conf_init(struct wc_replay_conf *c)
{
	memset(c, 0, sizeof(*c));
	wc_disk_params_init(&c->disk);
	c->capacity_bytes = 500000000000ull / 512 * 512;
	wc_classifier_heuristic(&c->cl);
	c->gap_ns = WC_REPLAY_GAP_NS;
	c->think_max_ns = WC_REPLAY_THINK_MAX_NS;
	c->horizon_ns = WC_REPLAY_HORIZON_NS;
}

static int oom(struct wc_err *err)
{
	return wc_err_oom(err, NULL, NULL);
}

/* ---- time arithmetic ----------------------------------------------------
 * Times are unsigned and, recorded or virtual, below WC_REPLAY_MAX_NS
 * (read_one() and serve() see to it), so a lag, the difference of two
 * of them, lies within +-2^62 and a time plus a lag within [-2^62, 2^63):
 * computed here without a signed overflow, and never below 0.  A time
 * from elsewhere (a phase's edge, at most 2^63 - 1) saturates instead of
 * wrapping. */

/* v - r as a lag. */
static int64_t lag_of(uint64_t v, uint64_t r)
{
	uint64_t d = v >= r ? v - r : r - v;

	if (d > (uint64_t)INT64_MAX)
		d = (uint64_t)INT64_MAX;
	return v >= r ? (int64_t)d : -(int64_t)d;
}

/* t moved by lag, at least 0, at most UINT64_MAX - 1 (not WC_NO_TIME). */
static uint64_t at_lag(uint64_t t, int64_t lag)
{
	uint64_t m;

	if (lag >= 0) {
		m = (uint64_t)lag;
		return t < UINT64_MAX - 1 - m ? t + m : UINT64_MAX - 1;
	}
	m = (uint64_t)(-(lag + 1)) + 1;      /* |lag|, INT64_MIN too */
	return t > m ? t - m : 0;
}

int wc_replay_open(struct wc_replay **out, const struct wc_replay_conf *c,
		   wc_request_source next, void *ctx, struct wc_err *err)
{
	struct wc_replay *rp;
	size_t i, j;

	*out = NULL;
	if (c->nregions > WC_REPLAY_MAX_REGIONS)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "more than %u regions", WC_REPLAY_MAX_REGIONS);
	if (c->npoints > WC_REPLAY_MAX_POINTS)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "more than %u points to map", WC_REPLAY_MAX_POINTS);
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return oom(err);
	rp->c = *c;
	if (c->npoints)
		memcpy(rp->points, c->points, c->npoints * sizeof(*c->points));
	rp->c.points = rp->points;
	/* insertion sort: a few phase edges */
	for (i = 0; i < c->npoints; i++) {
		for (j = i; j > 0 && rp->points[rp->order[j - 1]] > rp->points[i]; j--)
			rp->order[j] = rp->order[j - 1];
		rp->order[j] = i;
		rp->point_slot[i] = NONE;
	}
	rp->next = next;
	rp->ctx = ctx;
	rp->free_head = NONE;
	rp->last_any = rp->last_flush = NONE;
	rp->gate = NONE;
	for (i = 0; i < ANY_HIST; i++)
		rp->any_hist[i] = NONE;
	for (i = 0; i < JOURNAL_HIST; i++)
		rp->journal_hist[i] = NONE;
	rp->st.first_c = rp->st.last_c = WC_NO_TIME;
	if (wc_disk_open(&rp->disk, &c->disk, c->capacity_bytes, err) < 0)
		goto fail;
	if (wc_prioq_open(&rp->window.heap, 64, err) < 0 ||
	    wc_prioq_open(&rp->rec, 1024, err) < 0 ||
	    wc_prioq_open(&rp->ready, 1024, err) < 0 ||
	    wc_map_open(&rp->pids, sizeof(struct pidrec), WC_REPLAY_MAX_PIDS,
			err) < 0)
		goto fail;
	*out = rp;
	return 0;
fail:
	wc_replay_free(rp);
	return -1;
}

void wc_replay_free(struct wc_replay *rp)
{
	if (!rp)
		return;
	wc_disk_free(rp->disk);
	wc_prioq_free(rp->window.heap);
	free(rp->window.ring);
	wc_prioq_free(rp->rec);
	wc_prioq_free(rp->ready);
	wc_map_free(rp->pids);
	free(rp->s);
	free(rp);
}

const struct wc_replay_stats *wc_replay_stats(const struct wc_replay *rp)
{
	return &rp->st;
}

/* ---- the window -------------------------------------------------------- */

static int win_grow(struct window *w, struct wc_err *err)
{
	uint32_t cap = w->cap ? 2 * w->cap : 1024, k;
	struct win_ent *ring = malloc((size_t)cap * sizeof(*ring));

	if (!ring)
		return oom(err);
	for (k = 0; k < w->n; k++)
		ring[k] = w->ring[(w->first + k) & (w->cap - 1)];
	free(w->ring);
	w->ring = ring;
	w->cap = cap;
	w->first = 0;
	return 0;
}

static int win_put(struct window *w, uint64_t key, uint32_t slot,
		   struct wc_err *err)
{
	uint64_t seq = w->seq++;
	uint32_t k = 0, j, at;

	/* the ring's last ones with a later D: the new one goes before them */
	while (k < w->n && k <= WIN_SCAN &&
	       w->ring[(w->first + w->n - 1 - k) & (w->cap - 1)].key > key)
		k++;
	if (k > WIN_SCAN)
		return wc_prioq_put(w->heap, key, seq, slot, err);
	if (w->n == w->cap && win_grow(w, err) < 0)
		return -1;
	for (j = 0; j < k; j++) {
		at = (w->first + w->n - j) & (w->cap - 1);
		w->ring[at] = w->ring[(at - 1) & (w->cap - 1)];
	}
	at = (w->first + w->n - k) & (w->cap - 1);
	w->ring[at].key = key;
	w->ring[at].seq = seq;
	w->ring[at].slot = slot;
	w->n++;
	return 0;
}

/* The first of the window: true with its D and slot; from_heap says
 * where it is, for win_drop(). */
static bool win_peek(const struct window *w, uint64_t *key, uint32_t *slot,
		     bool *from_heap)
{
	struct wc_prioq_entry e;
	bool h = wc_prioq_peek(w->heap, &e);
	const struct win_ent *r = w->n ? &w->ring[w->first] : NULL;

	if (!h && !r)
		return false;
	*from_heap = h && (!r || e.key < r->key ||
			   (e.key == r->key && e.tie < r->seq));
	*key = *from_heap ? e.key : r->key;
	*slot = *from_heap ? (uint32_t)e.item : r->slot;
	return true;
}

/* Removes the first (win_peek() said where it is). */
static void win_drop(struct window *w, bool from_heap)
{
	struct wc_prioq_entry e;

	if (from_heap) {
		wc_prioq_get(w->heap, &e);
	} else {
		w->first = (w->first + 1) & (w->cap - 1);
		w->n--;
	}
}

/* ---- slots ------------------------------------------------------------- */

static uint32_t slot_new(struct wc_replay *rp, struct wc_err *err)
{
	uint32_t i;

	if (rp->free_head != NONE) {
		i = rp->free_head;
		rp->free_head = rp->s[i].next_free;
	} else {
		if (rp->nused == rp->nalloc) {
			uint32_t n = rp->nalloc ? rp->nalloc * 2 : 1024;
			struct slot *ns = realloc(rp->s, (size_t)n * sizeof(*ns));

			if (!ns) {
				oom(err);
				return NONE;
			}
			rp->s = ns;
			rp->nalloc = n;
		}
		i = rp->nused++;
	}
	memset(&rp->s[i], 0, sizeof(rp->s[i]));
	rp->s[i].first_edge = NONE;
	rp->s[i].live = true;
	rp->held++;
	return i;
}

static void slot_put(struct wc_replay *rp, uint32_t i)
{
	struct slot *s = &rp->s[i];

	if (s->live || s->refs || s->state == S_FREE)
		return;
	s->state = S_FREE;
	s->next_free = rp->free_head;
	rp->free_head = i;
	rp->held--;
}

static void ref(struct wc_replay *rp, uint32_t i)
{
	if (i != NONE)
		rp->s[i].refs++;
}

static void unref(struct wc_replay *rp, uint32_t i)
{
	if (i == NONE)
		return;
	rp->s[i].refs--;
	slot_put(rp, i);
}

/* *where = i, with the references moved. */
static void point_at(struct wc_replay *rp, uint32_t *where, uint32_t i)
{
	ref(rp, i);
	unref(rp, *where);
	*where = i;
}

/* ---- reading ----------------------------------------------------------- */

/* A barrier write under the 2.6.24 ordering (replay.h): XFS's log
 * buffers, jbd's commit block (today's jbd2 marks it PREFLUSH|FUA). */
static bool is_barrier(const struct wc_replay_conf *c, const struct slot *s)
{
	if (s->cat != WC_CAT_JOURNAL)
		return false;
	if (c->barriers == WC_BARRIERS_LOG)
		return true;
	return c->barriers == WC_BARRIERS_COMMIT &&
	       (s->rq.action & (WC_TC(WC_TC_FUA) | WC_TC(WC_TC_FLUSH)));
}

/* Reads one request; 0 when the source has ended (or failed). */
static int read_one(struct wc_replay *rp, struct wc_err *err)
{
	struct wc_request rq;
	struct slot *s;
	uint64_t first;
	uint32_t i;
	int r;

	r = rp->next(rp->ctx, &rq, &rp->src_err);
	if (r <= 0) {
		rp->src_done = true;
		rp->failed = r < 0;
		return 0;
	}
	rp->st.read++;
	if (rq.device == rp->c.device) {
		first = rp->c.first_sector;
	} else {
		size_t k;

		for (k = 0; k < rp->c.nregions; k++)
			if (rp->c.regions[k].device == rq.device)
				break;
		if (k == rp->c.nregions) {
			rp->st.other_devices++;
			return 1;
		}
		first = rp->c.regions[k].first_sector;
	}
	if (!rq.completed || rq.c_time == WC_NO_TIME) {
		rp->st.unfinished++;
		return 1;
	}
	if (rq.c_time >= WC_REPLAY_MAX_NS ||
	    (rq.d_time != WC_NO_TIME && rq.d_time >= WC_REPLAY_MAX_NS) ||
	    (rq.q_time != WC_NO_TIME && rq.q_time >= WC_REPLAY_MAX_NS)) {
		wc_err_set(err, WC_ERR_INPUT, NULL, NULL, WC_NO_OFFSET,
			   "a request at %llu ns: the replay takes recorded "
			   "times below 2^62 ns (146 years) only",
			   (unsigned long long)rq.c_time);
		return -1;
	}
	i = slot_new(rp, err);
	if (i == NONE)
		return -1;
	s = &rp->s[i];
	s->rq = rq;
	s->first = first;
	if (s->rq.d_time == WC_NO_TIME || s->rq.d_time > s->rq.c_time)
		s->rq.d_time = s->rq.c_time;
	if (s->rq.q_time != WC_NO_TIME && s->rq.q_time > s->rq.d_time)
		s->rq.q_time = s->rq.d_time;
	s->cat = wc_classify(&rp->c.cl, &s->rq);
	s->barrier = is_barrier(&rp->c, s);
	s->state = S_WINDOW;
	if (s->rq.c_time > rp->last_read_c)
		rp->last_read_c = s->rq.c_time;
	if (win_put(&rp->window, s->rq.d_time, i, err) < 0)
		return -1;
	return 1;
}

/* ---- taking a request: its parents ------------------------------------- */

/* Pushes slot i (a reference) into a history h of n, dropping the
 * oldest. */
static void hist_push(struct wc_replay *rp, uint32_t *h, size_t n, uint32_t i)
{
	unref(rp, h[0]);
	memmove(h, h + 1, (n - 1) * sizeof(*h));
	h[n - 1] = i;
	ref(rp, i);
}

/* The latest of history h that completed at or before t, or NONE. */
static uint32_t hist_find(const struct wc_replay *rp, const uint32_t *h,
			  size_t n, uint64_t t)
{
	while (n-- > 0)
		if (h[n] != NONE && rp->s[h[n]].rq.c_time <= t)
			return h[n];
	return NONE;
}

/* The record of pid, added (zeroed) when new: an enum wc_map_put_result
 * and *pr (NULL when the map is full), or -1 when out of memory. */
static int pid_put(struct wc_replay *rp, uint32_t pid, struct pidrec **pr,
		   struct wc_err *err)
{
	int r;

	if (rp->memo && rp->memo_pid == pid) {
		*pr = rp->memo;
		return WC_MAP_FOUND;
	}
	r = wc_map_put(rp->pids, pid, (void **)pr, err);
	if (r == WC_MAP_FOUND || r == WC_MAP_ADDED) {
		rp->memo_pid = pid;
		rp->memo = *pr;
	}
	return r;
}

/* The record of pid, or NULL. */
static struct pidrec *pid_get(struct wc_replay *rp, uint32_t pid)
{
	struct pidrec *pr;

	if (rp->memo && rp->memo_pid == pid)
		return rp->memo;
	pr = wc_map_get(rp->pids, pid);
	if (pr) {
		rp->memo_pid = pid;
		rp->memo = pr;
	}
	return pr;
}

/* The recorded completions up to t, in order: the tables of the last
 * completions, and the points they pass. */
static void complete_until(struct wc_replay *rp, uint64_t t, struct wc_err *err)
{
	struct wc_prioq_entry e;

	while (wc_prioq_peek(rp->rec, &e) && e.key <= t) {
		uint32_t i = (uint32_t)e.item;
		struct slot *s = &rp->s[i];
		struct pidrec *pr = NULL;
		int r;

		wc_prioq_get(rp->rec, &e);
		while (rp->next_point < rp->c.npoints &&
		       rp->points[rp->order[rp->next_point]] < s->rq.c_time) {
			point_at(rp, &rp->point_slot[rp->order[rp->next_point]],
				 rp->last_any);
			rp->next_point++;
		}
		point_at(rp, &rp->last_any, i);
		hist_push(rp, rp->any_hist, ANY_HIST, i);
		if (s->cat == WC_CAT_FLUSH)
			point_at(rp, &rp->last_flush, i);
		if (s->cat == WC_CAT_JOURNAL)
			hist_push(rp, rp->journal_hist, JOURNAL_HIST, i);
		r = pid_put(rp, s->rq.pid, &pr, err);
		if (r == WC_MAP_FULL) {
			rp->st.pids_full++;
		} else if (r >= 0) {
			uint32_t h[PID_HIST];
			size_t k;

			for (k = 0; k < PID_HIST; k++)
				h[k] = pr->slot[k] ? pr->slot[k] - 1 : NONE;
			hist_push(rp, h, PID_HIST, i);
			for (k = 0; k < PID_HIST; k++)
				pr->slot[k] = h[k] + 1;
		}
		unref(rp, i);       /* the reference of rec */
	}
}

static void make_ready(struct wc_replay *rp, uint32_t i, struct wc_err *err)
{
	struct slot *s = &rp->s[i];
	uint64_t vd = at_lag(s->rq.d_time, s->has_parent ? s->lag : 0);
	uint64_t vq = s->rq.q_time == WC_NO_TIME ? vd :
		at_lag(s->rq.q_time, s->has_qparent ? s->qlag : 0);

	/* never dispatched before it was issued: a hold that is over by
	 * then holds nothing */
	if (vd < vq)
		vd = vq;
	s->vd = vd;
	s->vq = vq;
	s->state = S_READY;
	wc_prioq_put(rp->ready, s->vd, rp->seq++, i, err);
}

/* A parent's lag reaches its child: the dispatch, and the issue when the
 * parent is one the request was issued after (not one it was held by). */
static void lag_to(struct slot *c, const struct slot *p, bool issue)
{
	bool later = !c->has_parent || p->rq.c_time > c->pc ||
		(p->rq.c_time == c->pc && p->lag > c->lag);

	if (later) {
		c->lag = p->lag;
		c->pc = p->rq.c_time;
	}
	c->has_parent = true;
	if (issue && (!c->has_qparent || p->rq.c_time > c->qpc ||
		      (p->rq.c_time == c->qpc && p->lag > c->qlag))) {
		c->qlag = p->lag;
		c->qpc = p->rq.c_time;
	}
	c->has_qparent |= issue;
}

static void add_parent(struct wc_replay *rp, uint32_t child, uint32_t p,
		       enum wc_replay_rule rule)
{
	struct slot *c = &rp->s[child], *ps = &rp->s[p];
	bool issue = rule != WC_RULE_FLUSH && rule != WC_RULE_HELD;
	unsigned k;

	rp->st.rule[rule]++;
	if (ps->state == S_DONE) {
		lag_to(c, ps, issue);
		return;
	}
	/* the same parent by two rules: one edge */
	for (k = 0; k < c->waits; k++)
		if (c->parent[k] == p) {
			c->qmask |= (uint8_t)(issue << k);
			return;
		}
	if (c->waits == MAXPAR)
		return;
	k = c->waits++;
	c->qmask |= (uint8_t)(issue << k);
	c->parent[k] = p;
	c->next_edge[k] = ps->first_edge;
	ps->first_edge = child * MAXPAR + k;
	ref(rp, p);
}

static void take(struct wc_replay *rp, uint32_t i, struct wc_err *err)
{
	struct slot *s = &rp->s[i];
	const struct wc_request *rq = &s->rq;
	uint64_t tau = rq->q_time != WC_NO_TIME ? rq->q_time : rq->d_time;
	uint64_t d = rq->d_time;
	struct pidrec *pr;
	uint32_t p;
	bool any = false;

	if (d < rp->last_taken_d)
		rp->st.late++;
	else
		rp->last_taken_d = d;
	s->state = S_WAITING;
	complete_until(rp, tau, err);
	pr = pid_get(rp, rq->pid);
	p = NONE;
	if (pr) {
		uint32_t h[PID_HIST];
		size_t k;

		for (k = 0; k < PID_HIST; k++)
			h[k] = pr->slot[k] ? pr->slot[k] - 1 : NONE;
		p = hist_find(rp, h, PID_HIST, tau);
	}
	if (p != NONE && rp->s[p].rq.c_time <= tau &&
	    tau - rp->s[p].rq.c_time <= rp->c.think_max_ns) {
		add_parent(rp, i, p, WC_RULE_PROCESS);
		any = true;
	}
	p = hist_find(rp, rp->journal_hist, JOURNAL_HIST, tau);
	if ((s->cat == WC_CAT_FLUSH || s->cat == WC_CAT_JOURNAL) && p != NONE &&
	    rp->s[p].rq.c_time <= tau &&
	    tau - rp->s[p].rq.c_time <= rp->c.gap_ns) {
		add_parent(rp, i, p, WC_RULE_JOURNAL);
		any = true;
	}
	p = hist_find(rp, rp->any_hist, ANY_HIST, tau);
	if (p != NONE && rp->s[p].rq.c_time <= tau &&
	    tau - rp->s[p].rq.c_time <= rp->c.gap_ns) {
		add_parent(rp, i, p, WC_RULE_COMPLETION);
		any = true;
	}
	complete_until(rp, d, err);
	p = rp->last_any;
	if (p != NONE && rp->s[p].rq.c_time <= d && tau <= rp->s[p].rq.c_time &&
	    d - rp->s[p].rq.c_time <= rp->c.gap_ns) {
		add_parent(rp, i, p, WC_RULE_HELD);
		any = true;
	}
	p = rp->last_flush;
	if (p != NONE) {
		uint64_t fc = rp->s[p].rq.c_time;

		if (fc <= d && d - fc <= rp->c.gap_ns &&
		    (tau <= fc || tau - fc <= rp->c.gap_ns)) {
			add_parent(rp, i, p, WC_RULE_FLUSH);
			any = true;
		}
	}
	if (!any)
		rp->st.rule[WC_RULE_OPEN]++;
	ref(rp, i);
	wc_prioq_put(rp->rec, rq->c_time, 0, i, err);
	if (s->waits == 0)
		make_ready(rp, i, err);
}

/* ---- the simulation ---------------------------------------------------- */

static void done(struct wc_replay *rp, uint32_t i, uint64_t vc,
		 struct wc_err *err)
{
	struct slot *s = &rp->s[i];
	uint32_t e;

	s->vc = vc;
	s->lag = lag_of(vc, s->rq.c_time);
	s->state = S_DONE;
	if (s->lag < rp->lag_min)
		rp->lag_min = s->lag;
	for (e = s->first_edge; e != NONE;) {
		uint32_t child = e / MAXPAR, k = e % MAXPAR;
		struct slot *c = &rp->s[child];

		e = c->next_edge[k];
		lag_to(c, s, (c->qmask >> k) & 1);
		if (--c->waits == 0)
			make_ready(rp, child, err);
		unref(rp, i);
	}
	s->first_edge = NONE;
}

static bool dropped(const struct wc_replay *rp, const struct slot *s)
{
	if (s->cat == WC_CAT_FLUSH)
		return rp->c.drop_flushes;
	return s->rq.bytes == 0;     /* an empty request that is no flush */
}

/* The earliest virtual dispatch of a request not yet taken. */
static uint64_t lower_bound(const struct wc_replay *rp)
{
	uint64_t lb = NEVER, key;
	uint32_t slot;
	bool heap;

	if (win_peek(&rp->window, &key, &slot, &heap))
		lb = key;
	if (!rp->src_done) {
		uint64_t u = rp->last_read_c > rp->c.horizon_ns ?
			rp->last_read_c - rp->c.horizon_ns : 0;

		if (u < lb)
			lb = u;
	}
	if (lb == NEVER)
		return NEVER;
	return at_lag(lb, rp->lag_min);
}

static enum wc_disk_op op_of(const struct slot *s)
{
	if (s->cat == WC_CAT_FLUSH)
		return WC_DISK_FLUSH;
	if (s->rq.action & WC_TC(WC_TC_DISCARD))
		return WC_DISK_DISCARD;
	if (s->rq.action & WC_TC(WC_TC_WRITE))
		return WC_DISK_WRITE;
	return WC_DISK_READ;
}

static void gate_served(struct wc_replay *rp, uint32_t i, struct wc_err *err);

/* Lets the model pick and serve the next queued request; fills *out. */
static void serve(struct wc_replay *rp, struct wc_request *out,
		  struct wc_err *err)
{
	struct wc_disk_cost cost;
	struct slot *s;
	uint32_t i;

	wc_disk_next(rp->disk, &cost);
	i = (uint32_t)cost.tag;
	s = &rp->s[i];
	/* Each command costs far less than 2^62 ns (a 4 GiB transfer at
	 * the slowest rate a disk may have, 0.001 MB/s, is 4.3e15 ns), so
	 * the model's own sums have not wrapped when this stops them. */
	if (cost.end_ns >= WC_REPLAY_MAX_NS)
		wc_err_set(err, WC_ERR_INPUT, NULL, NULL, WC_NO_OFFSET,
			   "virtual time reached 2^62 ns (146 years) after "
			   "%llu requests: the disk is too slow for this "
			   "trace to replay",
			   (unsigned long long)rp->st.replayed);
	rp->inflight--;
	rp->st.busy_ns += cost.end_ns - cost.start_ns;
	rp->last_end = cost.end_ns;
	if (i == rp->gate || s->synthetic)
		s->vc = cost.end_ns;
	else
		done(rp, i, cost.end_ns, err);

	*out = s->rq;
	if (out->q_time != WC_NO_TIME)
		out->q_time = s->vq > s->vd ? s->vd : s->vq;
	out->d_time = s->vd;
	out->c_time = s->vc;
	out->depth = s->depth;
	/* The model disk's queue is depth already, over every region:
	 * the recording's disk_depth is none of the replay's. */
	out->disk_depth = 0;
	if (rp->st.first_c == WC_NO_TIME)
		rp->st.first_c = s->vc;
	rp->st.last_c = s->vc;
	rp->st.replayed++;
	s->live = false;
	if (i == rp->gate || s->synthetic)
		gate_served(rp, i, err);
	slot_put(rp, i);
}

/* Gives the ready request i to the disk. */
static void submit(struct wc_replay *rp, uint32_t i)
{
	struct slot *s = &rp->s[i];
	struct wc_disk_req r = { 0 };

	/* the disk takes requests in order of arrival */
	if (s->vd < rp->last_submit)
		s->vd = rp->last_submit;
	rp->last_submit = s->vd;
	r.op = op_of(s);
	r.offset = (s->first + s->rq.sector) * 512;
	r.bytes = s->rq.bytes;
	r.fua = wc_request_is_fua(&s->rq);
	/* a barrier's write goes without FUA: its second flush stands in */
	if (r.fua && (rp->c.drop_fua || s->barrier)) {
		r.fua = false;
		rp->st.dropped_fua++;
	}
	r.arrival_ns = s->vd;
	r.tag = i;
	s->state = S_QUEUED;
	s->depth = ++rp->inflight;
	wc_disk_submit(rp->disk, &r);
}

/* ---- the 2.6.24 ordering ------------------------------------------------
 * A barrier taken from the ready queue opens the gate: nothing else is
 * given to the disk until it closes.  Once the disk has served all it
 * held (the drain), the barrier's parts go to it one at a time, each when
 * the one before completed: flush, write, flush with the write cache on
 * (block/ll_rw_blk.c start_ordered(): QUEUE_ORDERED_DRAIN_FLUSH), the
 * write alone with it off (QUEUE_ORDERED_DRAIN).  The barrier completes,
 * for what waits for it, with its last part. */
enum { PART_PRE, PART_WRITE, PART_POST, PART_END };

static void gate_open(struct wc_replay *rp, uint32_t i)
{
	rp->gate = i;
	rp->gate_part = rp->c.disk.write_cache ? PART_PRE : PART_WRITE;
	rp->gate_busy = false;
	ref(rp, i);
	rp->st.barriers++;
}

/* When the gate gives the disk its next part: NEVER while the disk
 * still serves what came before (the drain) or a part. */
static uint64_t gate_next(const struct wc_replay *rp)
{
	uint64_t t = rp->s[rp->gate].vd;

	if (rp->gate_busy || rp->inflight)
		return NEVER;
	return rp->last_end > t ? rp->last_end : t;
}

/* Gives the disk the barrier's next part at gate_next(). */
static int gate_submit(struct wc_replay *rp, struct wc_err *err)
{
	const struct slot *b = &rp->s[rp->gate];
	uint64_t t = gate_next(rp);
	struct slot *f;
	uint32_t i;

	if (rp->gate_part == PART_WRITE) {
		rp->s[rp->gate].vd = t;
		submit(rp, rp->gate);
		rp->gate_busy = true;
		return 0;
	}
	i = slot_new(rp, err);
	if (i == NONE)
		return -1;
	b = &rp->s[rp->gate];        /* slot_new() may move the slots */
	f = &rp->s[i];
	f->rq.device = b->rq.device;
	f->rq.action = WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_FLUSH);
	f->rq.q_time = WC_NO_TIME;
	f->rq.d_time = f->rq.c_time = t;
	f->rq.pid = f->rq.cause_pid = b->rq.pid;
	f->rq.has_cause = true;
	f->rq.completed = true;
	f->first = b->first;
	f->cat = WC_CAT_FLUSH;
	f->synthetic = true;
	f->vq = f->vd = t;
	rp->st.barrier_flushes++;
	submit(rp, i);
	rp->gate_busy = true;
	return 0;
}

/* Part i of the barrier was served (and handed out): the next, or the
 * barrier done at its last part's completion. */
static void gate_served(struct wc_replay *rp, uint32_t i, struct wc_err *err)
{
	uint32_t b = rp->gate;
	uint64_t end = rp->s[i].vc;

	rp->gate_busy = false;
	if (rp->gate_part == PART_PRE) {
		rp->gate_part = PART_WRITE;
		return;
	}
	if (rp->gate_part == PART_WRITE && rp->c.disk.write_cache) {
		rp->gate_part = PART_POST;
		return;
	}
	rp->gate_part = PART_END;
	rp->gate = NONE;
	/* what was held behind it goes to the disk from now on */
	if (rp->last_submit < end)
		rp->last_submit = end;
	done(rp, b, end, err);
	unref(rp, b);
}

enum step { STEP_OUT, STEP_MOVED, STEP_WAIT, STEP_IDLE };

/* One move of the simulation; force acts even when a request not yet
 * taken might come first. */
static enum step step(struct wc_replay *rp, struct wc_request *out, bool force,
		      struct wc_err *err)
{
	struct wc_prioq_entry e;
	uint64_t a = NEVER, st = NEVER, t;

	if (wc_prioq_peek(rp->ready, &e))
		a = e.key;
	/* a barrier being drained: the rest wait behind it */
	if (rp->gate != NONE)
		a = gate_next(rp);
	st = wc_disk_next_start(rp->disk);
	if (a == NEVER && st == NEVER)
		return STEP_IDLE;
	t = a <= st ? a : st;
	if (!force && t >= lower_bound(rp))
		return STEP_WAIT;
	if (a <= st && rp->gate != NONE) {
		if (gate_submit(rp, err) < 0)
			return STEP_IDLE;
		return STEP_MOVED;
	}
	/* the model holds WC_DISK_MAX_PENDING: the rest wait here */
	if (a <= st && wc_disk_pending(rp->disk) < WC_DISK_MAX_PENDING) {
		uint32_t i;
		struct slot *s;

		wc_prioq_get(rp->ready, &e);
		i = (uint32_t)e.item;
		s = &rp->s[i];
		if (dropped(rp, s)) {
			if (s->cat == WC_CAT_FLUSH)
				rp->st.dropped_flushes++;
			else
				rp->st.empty++;
			done(rp, i, s->vd, err);
			s->live = false;
			slot_put(rp, i);
			return STEP_MOVED;
		}
		if (s->barrier) {
			gate_open(rp, i);
			return STEP_MOVED;
		}
		submit(rp, i);
		return STEP_MOVED;
	}
	serve(rp, out, err);
	return STEP_OUT;
}

/* Takes the window's first request when its D is far enough behind. */
static bool take_one(struct wc_replay *rp, bool force, struct wc_err *err)
{
	uint64_t key;
	uint32_t slot;
	bool heap;

	bool early;

	if (!win_peek(&rp->window, &key, &slot, &heap))
		return false;
	early = !rp->src_done && rp->last_read_c < key + rp->c.horizon_ns;
	if (!force && early)
		return false;
	win_drop(&rp->window, heap);
	/* per request, not per turn of wc_replay_next()'s loop */
	if (early)
		rp->st.forced++;
	if (early || key < rp->last_taken_d)
		rp->st.out_of_order++;
	take(rp, slot, err);
	return true;
}

static void finish(struct wc_replay *rp, struct wc_err *err)
{
	if (rp->finished)
		return;
	rp->finished = true;
	complete_until(rp, NEVER, err);
	for (; rp->next_point < rp->c.npoints; rp->next_point++)
		point_at(rp, &rp->point_slot[rp->order[rp->next_point]],
			 rp->last_any);
}

int wc_replay_next(struct wc_replay *rp, struct wc_request *rq,
		   struct wc_err *err)
{
	struct wc_err e2;

	if (rp->stopped) {
		if (err)
			*err = rp->src_err;
		return -1;
	}
	wc_err_clear(&e2);
	for (;;) {
		enum step r = step(rp, rq, false, &e2);

		if (e2.kind != WC_ERR_NONE)
			goto fail;
		if (r == STEP_OUT)
			return 1;
		if (r == STEP_MOVED)
			continue;
		if (take_one(rp, false, &e2))
			continue;
		if (!rp->src_done && rp->held < WC_REPLAY_MAX_HELD) {
			if (read_one(rp, &e2) < 0)
				goto fail;
			continue;
		}
		/* held full: take or act in the order we have */
		if (!rp->src_done) {
			if (take_one(rp, true, &e2))
				continue;
			r = step(rp, rq, true, &e2);
			if (e2.kind != WC_ERR_NONE)
				goto fail;
			if (r == STEP_OUT)
				return 1;
			/* Cannot happen (what is held and not waiting is at
			 * most the pids' last requests, fewer than the bound):
			 * read on rather than stop. */
			if (r == STEP_IDLE && read_one(rp, &e2) < 0)
				goto fail;
			continue;
		}
		if (take_one(rp, true, &e2))
			continue;
		if (r == STEP_WAIT) {
			r = step(rp, rq, true, &e2);
			if (e2.kind != WC_ERR_NONE)
				goto fail;
			if (r == STEP_OUT)
				return 1;
			continue;
		}
		break;
	}
	finish(rp, &e2);
	if (rp->failed) {
		if (err)
			*err = rp->src_err;
		return -1;
	}
	return 0;
fail:
	/* stopped for good: the same answer at every call after */
	rp->stopped = true;
	rp->src_err = e2;
	if (err)
		*err = e2;
	return -1;
}

/* ---- mapping recorded times -------------------------------------------- */

static uint64_t shift(const struct wc_replay *rp, uint32_t i, uint64_t t)
{
	if (i == NONE || rp->s[i].state != S_DONE)
		return t;
	return at_lag(t, rp->s[i].lag);
}

uint64_t wc_replay_map_point(const struct wc_replay *rp, size_t i)
{
	if (i >= rp->c.npoints)
		return 0;
	return shift(rp, rp->point_slot[i], rp->points[i]);
}

uint64_t wc_replay_map_end(const struct wc_replay *rp, uint64_t t)
{
	uint32_t i = rp->last_any;

	if (i != NONE && rp->s[i].rq.c_time > t)
		return t;
	return shift(rp, i, t);
}
