#include "merge.h"

#include <stdlib.h>
#include <string.h>

/* ---- k-way merge ------------------------------------------------------ */

struct pending {
	struct wc_event ev;
	uint64_t rank;        /* larger: placed earlier among equal times */
};

struct wc_merge {
	unsigned nstreams;
	wc_merge_pull_fn pull;
	void *ctx;
	struct pending *pend;   /* one per stream */
	unsigned *heap;         /* stream numbers */
	unsigned nheap;
	uint64_t next_rank;
	long last;              /* stream handed out last, or -1 */
	int primed;
	int failed;
	uint64_t genesis;
	struct wc_err deferred;
};

static int m_before(const struct wc_merge *m, unsigned a, unsigned b)
{
	const struct pending *pa = &m->pend[a], *pb = &m->pend[b];

	if (pa->ev.time != pb->ev.time)
		return pa->ev.time < pb->ev.time;
	return pa->rank > pb->rank;
}

static void m_up(struct wc_merge *m, unsigned i)
{
	while (i > 0) {
		unsigned parent = (i - 1) / 2, t;

		if (!m_before(m, m->heap[i], m->heap[parent]))
			break;
		t = m->heap[i];
		m->heap[i] = m->heap[parent];
		m->heap[parent] = t;
		i = parent;
	}
}

static void m_down(struct wc_merge *m, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, best = i, t;

		if (l < m->nheap && m_before(m, m->heap[l], m->heap[best]))
			best = l;
		if (r < m->nheap && m_before(m, m->heap[r], m->heap[best]))
			best = r;
		if (best == i)
			break;
		t = m->heap[i];
		m->heap[i] = m->heap[best];
		m->heap[best] = t;
		i = best;
	}
}

int wc_merge_open(struct wc_merge **out, unsigned nstreams,
		  wc_merge_pull_fn pull, void *ctx, struct wc_err *err)
{
	struct wc_merge *m;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto fail;
	m->pend = calloc(nstreams ? nstreams : 1, sizeof(*m->pend));
	m->heap = calloc(nstreams ? nstreams : 1, sizeof(*m->heap));
	if (!m->pend || !m->heap)
		goto fail_free;
	m->nstreams = nstreams;
	m->pull = pull;
	m->ctx = ctx;
	m->last = -1;
	wc_err_clear(&m->deferred);
	*out = m;
	return 0;

fail_free:
	wc_merge_free(m);
fail:
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
}

/* Pulls the next event of stream s into its slot; 1 when it has one. */
static int m_pull(struct wc_merge *m, unsigned s)
{
	struct wc_err e;
	int r;

	wc_err_clear(&e);
	r = m->pull(m->ctx, s, &m->pend[s].ev, &e);
	if (r < 0) {
		/* Keep the first failure, let the other streams finish:
		 * blkparse too prints everything it could read. */
		if (m->deferred.kind == WC_ERR_NONE)
			m->deferred = e;
		return 0;
	}
	return r > 0;
}

static void m_prime(struct wc_merge *m)
{
	unsigned s;

	for (s = 0; s < m->nstreams; s++) {
		unsigned head;

		if (!m_pull(m, s))
			continue;
		m->pend[s].rank = m->next_rank++;
		if (m->nheap > 0) {
			head = m->heap[0];
			/* A newcomer at the head's time goes right after the
			 * head: give the head a newer rank still. */
			if (m->pend[s].ev.time == m->pend[head].ev.time)
				m->pend[head].rank = m->next_rank++;
		}
		m->heap[m->nheap++] = s;
		m_up(m, m->nheap - 1);
	}
	if (m->nheap > 0)
		m->genesis = m->pend[m->heap[0]].ev.time;
	m->primed = 1;
}

int wc_merge_next(struct wc_merge *m, struct wc_event *ev, struct wc_err *err)
{
	unsigned s;

	if (m->failed)
		goto fail;
	if (!m->primed) {
		m_prime(m);
	} else if (m->last >= 0) {
		s = (unsigned)m->last;
		m->last = -1;
		/* The stream handed out last sits at the root. */
		if (m_pull(m, s)) {
			m->pend[s].rank = m->next_rank++;
			m_down(m, 0);
		} else {
			m->heap[0] = m->heap[--m->nheap];
			if (m->nheap > 0)
				m_down(m, 0);
		}
	}
	if (m->nheap == 0) {
		if (m->deferred.kind != WC_ERR_NONE) {
			m->failed = 1;
			goto fail;
		}
		return 0;
	}
	s = m->heap[0];
	*ev = m->pend[s].ev;
	m->last = (long)s;
	return 1;

fail:
	if (err && err->kind == WC_ERR_NONE)
		*err = m->deferred;
	return -1;
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
	free(m->heap);
	free(m);
}

/* ---- reorder window --------------------------------------------------- */

#define INLINE_PDU 32u
#define GENESIS_BATCH 512u   /* blkparse reads a pipe 512 events at a time */

struct slot {
	struct wc_event ev;
	uint64_t arrival;
	unsigned char *pdu;      /* heap copy when the payload is large */
	size_t pdu_cap;
	unsigned char small[INLINE_PDU];
};

struct wc_reorder {
	size_t window;
	wc_merge_pull_fn pull;
	void *ctx;
	struct slot *slots;
	size_t *heap;
	size_t nheap;
	size_t *free_slots;
	size_t nfree;
	long last;               /* slot handed out last, or -1 */
	uint64_t arrivals;
	uint64_t genesis;
	int eof;
	int failed;
	struct wc_err deferred;
};

static int r_before(const struct wc_reorder *r, size_t a, size_t b)
{
	const struct wc_event *x = &r->slots[a].ev, *y = &r->slots[b].ev;

	if (x->time != y->time)
		return x->time < y->time;
	if (x->device != y->device)
		return x->device < y->device;
	if (x->sequence != y->sequence)
		return x->sequence < y->sequence;
	return r->slots[a].arrival < r->slots[b].arrival;
}

static void r_up(struct wc_reorder *r, size_t i)
{
	while (i > 0) {
		size_t parent = (i - 1) / 2, t;

		if (!r_before(r, r->heap[i], r->heap[parent]))
			break;
		t = r->heap[i];
		r->heap[i] = r->heap[parent];
		r->heap[parent] = t;
		i = parent;
	}
}

static void r_down(struct wc_reorder *r, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, rr = l + 1, best = i, t;

		if (l < r->nheap && r_before(r, r->heap[l], r->heap[best]))
			best = l;
		if (rr < r->nheap && r_before(r, r->heap[rr], r->heap[best]))
			best = rr;
		if (best == i)
			break;
		t = r->heap[i];
		r->heap[i] = r->heap[best];
		r->heap[best] = t;
		i = best;
	}
}

int wc_reorder_open(struct wc_reorder **out, size_t window,
		    wc_merge_pull_fn pull, void *ctx, struct wc_err *err)
{
	struct wc_reorder *r;
	size_t i;

	*out = NULL;
	if (window == 0)
		window = 1;
	r = calloc(1, sizeof(*r));
	if (!r)
		goto fail;
	r->slots = calloc(window, sizeof(*r->slots));
	r->heap = calloc(window, sizeof(*r->heap));
	r->free_slots = calloc(window, sizeof(*r->free_slots));
	if (!r->slots || !r->heap || !r->free_slots)
		goto fail_free;
	r->window = window;
	r->pull = pull;
	r->ctx = ctx;
	r->last = -1;
	r->genesis = UINT64_MAX;
	for (i = 0; i < window; i++)
		r->free_slots[i] = window - 1 - i;
	r->nfree = window;
	wc_err_clear(&r->deferred);
	*out = r;
	return 0;

fail_free:
	wc_reorder_free(r);
fail:
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
}

/* Reads one event into a free slot; 0 at the end or on failure. */
static int r_fill_one(struct wc_reorder *r)
{
	struct wc_err e;
	struct slot *sl;
	size_t i;
	int ret;

	i = r->free_slots[r->nfree - 1];
	sl = &r->slots[i];
	wc_err_clear(&e);
	ret = r->pull(r->ctx, 0, &sl->ev, &e);
	if (ret <= 0) {
		if (ret < 0 && r->deferred.kind == WC_ERR_NONE)
			r->deferred = e;
		r->eof = 1;
		return 0;
	}
	/* The pulled payload lives in the stream's buffer only until the
	 * next pull: keep a copy with the event. */
	if (sl->ev.pdu_len > INLINE_PDU) {
		if (sl->pdu_cap < sl->ev.pdu_len) {
			unsigned char *p = realloc(sl->pdu, sl->ev.pdu_len);

			if (!p) {
				if (r->deferred.kind == WC_ERR_NONE)
					wc_err_set(&r->deferred, WC_ERR_SYSTEM,
						   NULL, NULL, WC_NO_OFFSET,
						   "out of memory");
				r->eof = 1;
				return 0;
			}
			sl->pdu = p;
			sl->pdu_cap = sl->ev.pdu_len;
		}
		memcpy(sl->pdu, sl->ev.pdu, sl->ev.pdu_len);
		sl->ev.pdu = sl->pdu;
	} else {
		if (sl->ev.pdu_len)
			memcpy(sl->small, sl->ev.pdu, sl->ev.pdu_len);
		sl->ev.pdu = sl->small;
	}
	sl->arrival = r->arrivals++;
	if (sl->arrival < GENESIS_BATCH && sl->ev.time < r->genesis)
		r->genesis = sl->ev.time;
	r->nfree--;
	r->heap[r->nheap++] = i;
	r_up(r, r->nheap - 1);
	return 1;
}

int wc_reorder_next(struct wc_reorder *r, struct wc_event *ev,
		    struct wc_err *err)
{
	size_t i;

	if (r->failed)
		goto fail;
	if (r->last >= 0) {
		r->free_slots[r->nfree++] = (size_t)r->last;
		r->last = -1;
	}
	while (!r->eof && r->nfree > 0)
		r_fill_one(r);
	if (r->nheap == 0) {
		if (r->deferred.kind != WC_ERR_NONE) {
			r->failed = 1;
			goto fail;
		}
		return 0;
	}
	i = r->heap[0];
	r->heap[0] = r->heap[--r->nheap];
	if (r->nheap > 0)
		r_down(r, 0);
	*ev = r->slots[i].ev;
	r->last = (long)i;
	return 1;

fail:
	if (err && err->kind == WC_ERR_NONE)
		*err = r->deferred;
	return -1;
}

uint64_t wc_reorder_genesis(const struct wc_reorder *r)
{
	return r->genesis == UINT64_MAX ? 0 : r->genesis;
}

void wc_reorder_free(struct wc_reorder *r)
{
	size_t i;

	if (!r)
		return;
	if (r->slots)
		for (i = 0; i < r->window; i++)
			free(r->slots[i].pdu);
	free(r->slots);
	free(r->heap);
	free(r->free_slots);
	free(r);
}
