/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/merge.h"
#include "input/merge_test.h"

#include <stdlib.h>

#include "base/hot.h"
#include "base/prioq.h"

/* ---- k-way merge ------------------------------------------------------ */

/* Two streams are kept apart from the heap: the lead (handed out last)
 * and the runner-up (the best of the others).  The heap holds one entry
 * per other stream that has an event pending, keyed by (time, tie).
 * Among equal times the stream given a rank last goes first, so tie =
 * UINT64_MAX - rank.  The lead goes on while its events are not later
 * than the runner-up's: its next event would get the newest rank, which
 * wins ties.  When one is later, the runner-up takes the lead, and the
 * old lead, with the newest rank, becomes the runner-up if it is not
 * later than the heap's top, else the top does and the old lead takes
 * its place in one replace().  So two streams that take turns every few
 * events (two CPU files) never touch the heap, and more streams touch it
 * only when a third one is due.
 *
 * With WC_MERGE_ROUTE_HEAP the runner-up stays in the heap, as its top,
 * and every hand-over is a replace(): the heap alone decides, as a plain
 * k-way merge does.  The loop is written once; each route gets its own
 * copy of it from the compiler (m_next_batch()'s constant argument). */
struct wc_merge {
	unsigned nstreams;
	wc_merge_pull_fn pull;
	void *ctx;
	struct wc_event *pend;  /* one per stream */
	struct wc_prioq *heap;  /* items: stream numbers but lead's, runner's */
	uint64_t next_rank;
	long last;              /* the lead, or -1 (none yet, or all ended) */
	long runner;            /* the runner-up, or -1 (none) */
	uint64_t limit;         /* the runner-up's time, UINT64_MAX if none */
	int runner_in_heap;     /* WC_MERGE_ROUTE_HEAP */
	int primed;
	int failed;
	uint64_t genesis;
	struct wc_err deferred;
	struct wc_err scratch;  /* for pull(); empty but after a failure */
	struct wc_event out[WC_MERGE_BATCH];   /* the batch handed out */
};

int wc_merge_open(struct wc_merge **out, unsigned nstreams,
		  wc_merge_pull_fn pull, void *ctx, struct wc_err *err)
{
	struct wc_merge *m;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto fail;
	m->pend = calloc(nstreams ? nstreams : 1, sizeof(*m->pend));
	if (!m->pend)
		goto fail_free;
	/* Room for every stream from the start: no put() can fail later. */
	if (wc_prioq_open(&m->heap, nstreams ? nstreams : 1, err) < 0)
		goto fail_free;
	m->nstreams = nstreams;
	m->pull = pull;
	m->ctx = ctx;
	m->last = -1;
	m->runner = -1;
	wc_err_clear(&m->deferred);
	wc_err_clear(&m->scratch);
	*out = m;
	return 0;

fail_free:
	wc_merge_free(m);
fail:
	return wc_err_oom(err, NULL, NULL);
}

/* A stream failed: 0, as if it ended. */
static int m_failed(struct wc_merge *m)
{
	/* Keep the first failure, let the other streams finish: blkparse
	 * too prints everything it could read. */
	if (m->deferred.kind == WC_ERR_NONE)
		m->deferred = m->scratch;
	wc_err_clear(&m->scratch);
	return 0;
}

/* Pulls the next event of stream s into *ev; 1 when it has one,
 * WC_PULL_WOULD_READ when it has none buffered (flags WC_PULL_BUFFERED
 * only), else 0. */
static int m_pull(struct wc_merge *m, unsigned s, struct wc_event *ev,
		  unsigned flags)
{
	size_t got;
	int r;

	/* scratch is cleared only after it was used: clearing it per event
	 * cost more than the merge's own work. */
	r = m->pull(m->ctx, s, ev, 1, UINT64_MAX, flags, &got, &m->scratch);
	return r < 0 ? m_failed(m) : r;
}

static uint64_t m_tie(struct wc_merge *m)
{
	return UINT64_MAX - m->next_rank++;
}

static void m_prime(struct wc_merge *m)
{
	struct wc_prioq_entry head;
	unsigned s;

	for (s = 0; s < m->nstreams; s++) {
		uint64_t tie;

		if (m_pull(m, s, &m->pend[s], 0) != 1)
			continue;
		tie = m_tie(m);
		/* A newcomer at the head's time goes right after the head:
		 * give the head a newer rank still. */
		if (wc_prioq_peek(m->heap, &head) &&
		    m->pend[s].time == head.key)
			wc_prioq_replace(m->heap, head.key, m_tie(m),
					 head.item, NULL);
		wc_prioq_put(m->heap, m->pend[s].time, tie, s, NULL);
	}
	if (wc_prioq_peek(m->heap, &head))
		m->genesis = head.key;
	m->primed = 1;
}

/* The heap's top becomes the runner-up (none when it is empty); the
 * runner-up before, if any, has taken the lead.  in_heap: the route
 * where the runner-up stays in the heap. */
WC_HOT
void m_next_runner(struct wc_merge *m, int in_heap)
{
	struct wc_prioq_entry e;

	if (in_heap && m->runner >= 0)
		wc_prioq_get(m->heap, &e);
	if (in_heap ? wc_prioq_peek(m->heap, &e) : wc_prioq_get(m->heap, &e)) {
		m->runner = (long)e.item;
		m->limit = e.key;
	} else {
		m->runner = -1;
		m->limit = UINT64_MAX;
	}
}

/* The lead's event ev is later than the runner-up's: the runner-up takes
 * the lead, and the old lead, with the newest rank, goes among the
 * others; the new lead's stream.  in_heap: as m_next_runner(). */
WC_HOT
unsigned m_hand_over(struct wc_merge *m, unsigned s,
		     const struct wc_event *ev, int in_heap)
{
	unsigned lead = (unsigned)m->runner;
	uint64_t tie = m_tie(m);
	struct wc_prioq_entry top;

	m->pend[s] = *ev;
	if (in_heap) {
		/* The runner-up is the top: out, and the old lead in. */
		wc_prioq_replace(m->heap, ev->time, tie, s, NULL);
		wc_prioq_peek(m->heap, &top);
		m->runner = (long)top.item;
		m->limit = top.key;
		return lead;
	}
	/* The newest rank wins ties: the old lead goes before a top of
	 * its own time. */
	if (!wc_prioq_peek(m->heap, &top) || ev->time <= top.key) {
		m->runner = (long)s;
		m->limit = ev->time;
	} else {
		m->runner = (long)top.item;
		m->limit = top.key;
		wc_prioq_replace(m->heap, ev->time, tie, s, NULL);
	}
	return lead;
}

/* A batch into out by the route in_heap says (a constant). */
WC_HOT
int m_next_batch(struct wc_merge *m, struct wc_event *out, size_t max,
		 size_t *got, struct wc_err *err, int in_heap)
{
	size_t k = 0;
	unsigned s;
	int r;

	*got = 0;
	if (m->failed)
		goto fail;
	if (!m->primed) {
		m_prime(m);
		m_next_runner(m, in_heap);
	}
	while (k < max) {
		if (m->last >= 0) {
			/* The batch's events of s point into s's buffer: after
			 * the first, s may hand out only what it has buffered. */
			unsigned flags = k ? WC_PULL_BUFFERED : 0;

			size_t c = 0;

			s = (unsigned)m->last;
			r = m->pull(m->ctx, s, &out[k], max - k, m->limit,
				    flags, &c, &m->scratch);
			if (r < 0)
				r = m_failed(m);
			if (r == WC_PULL_WOULD_READ)
				break;
			if (r) {
				k += c - 1;
				if (out[k].time <= m->limit) {
					k++;
					continue;
				}
			}
			if (r) {
				/* Later than the runner-up's: there is one. */
				s = m_hand_over(m, s, &out[k], in_heap);
				out[k++] = m->pend[s];
				m->last = (long)s;
				continue;
			}
			m->last = -1;
		}
		/* No lead yet, or it ended: the runner-up takes it. */
		if (m->runner < 0)
			break;
		s = (unsigned)m->runner;
		m_next_runner(m, in_heap);
		out[k++] = m->pend[s];
		m->last = (long)s;
	}
	if (k) {
		*got = k;
		return 1;
	}
	if (m->deferred.kind == WC_ERR_NONE)
		return 0;
	m->failed = 1;
fail:
	if (err && err->kind == WC_ERR_NONE)
		*err = m->deferred;
	return -1;
}

/* The heap route's copy, out of the way of the usual one. */
static __attribute__((noinline))
int m_next_batch_heap(struct wc_merge *m, struct wc_event *out, size_t max,
		      size_t *got, struct wc_err *err)
{
	return m_next_batch(m, out, max, got, err, 1);
}

int wc_merge_next_ref(struct wc_merge *m, const struct wc_event **evs,
		      size_t max, size_t *got, struct wc_err *err)
{
	*evs = m->out;
	if (max > WC_MERGE_BATCH)
		max = WC_MERGE_BATCH;
	if (m->runner_in_heap)
		return m_next_batch_heap(m, m->out, max, got, err);
	return m_next_batch(m, m->out, max, got, err, 0);
}

void wc_merge_set_route(struct wc_merge *m, enum wc_merge_route route)
{
	m->runner_in_heap = route == WC_MERGE_ROUTE_HEAP;
}

uint64_t wc_merge_genesis(const struct wc_merge *m)
{
	return m->genesis;
}

void wc_merge_free(struct wc_merge *m)
{
	if (!m)
		return;
	free(m->pend);
	wc_prioq_free(m->heap);
	free(m);
}
