#include "merge.h"

#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "prioq.h"
#include "wclimits.h"

/* ---- k-way merge ------------------------------------------------------ */

/* The heap holds one entry per stream that has an event pending, keyed
 * by (time, tie).  Among equal times the stream given a rank last goes
 * first, so tie = UINT64_MAX - rank. */
struct wc_merge {
	unsigned nstreams;
	wc_merge_pull_fn pull;
	wc_merge_pull_run_fn pull_run;   /* or NULL */
	void *ctx;
	struct wc_event *pend;  /* one per stream */
	struct wc_prioq *heap;  /* items: stream numbers */
	uint64_t next_rank;
	long last;              /* stream handed out last, or -1 */
	/* The stream handed out last keeps the lead while its events are
	 * not later than this (its next event gets the newest rank, which
	 * wins ties): the heap is left alone until one is. */
	uint64_t limit;
	int primed;
	int failed;
	uint64_t genesis;
	struct wc_err deferred;
	struct wc_err scratch;  /* for pull(); empty but after a failure */
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
	wc_err_clear(&m->deferred);
	wc_err_clear(&m->scratch);
	*out = m;
	return 0;

fail_free:
	wc_merge_free(m);
fail:
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
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

/* Pulls the next event of stream s into *ev; 1 when it has one, 2 when
 * it has none buffered (flags WC_PULL_BUFFERED only), else 0. */
static int m_pull(struct wc_merge *m, unsigned s, struct wc_event *ev,
		  unsigned flags)
{
	int r;

	/* scratch is cleared only after it was used: clearing it per event
	 * cost more than the merge's own work. */
	r = m->pull(m->ctx, s, ev, flags, &m->scratch);
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
	m->limit = wc_prioq_runner_up_key(m->heap);
	m->primed = 1;
}

int wc_merge_next_batch(struct wc_merge *m, struct wc_event *out, size_t max,
			size_t *got, struct wc_err *err)
{
	struct wc_prioq_entry e;
	size_t k = 0;
	unsigned s;
	int r;

	*got = 0;
	if (m->failed)
		goto fail;
	if (!m->primed)
		m_prime(m);
	while (k < max) {
		if (m->last >= 0) {
			/* The batch's events of s point into s's buffer: after
			 * the first, s may hand out only what it has buffered. */
			unsigned flags = k ? WC_PULL_BUFFERED : 0;

			s = (unsigned)m->last;
			if (m->pull_run) {
				size_t c = 0;

				r = m->pull_run(m->ctx, s, &out[k], max - k,
						m->limit, flags, &c, &m->scratch);
				if (r < 0)
					r = m_failed(m);
				if (r == 2)
					break;
				if (r) {
					k += c - 1;
					if (out[k].time <= m->limit) {
						k++;
						continue;
					}
				}
			} else {
				r = m_pull(m, s, &out[k], flags);
				if (r == 2)
					break;
				if (r && out[k].time <= m->limit) {
					k++;
					continue;
				}
			}
			m->last = -1;
			/* The stream handed out last sits at the root.  Its
			 * entry there keeps an older key and rank while it
			 * stays in the lead: nothing compares the root with
			 * them before the replace() that ends the lead. */
			if (r) {
				m->pend[s] = out[k];
				wc_prioq_replace(m->heap, out[k].time,
						 m_tie(m), s, NULL);
			} else {
				wc_prioq_get(m->heap, &e);
			}
			m->limit = wc_prioq_runner_up_key(m->heap);
		}
		if (!wc_prioq_peek(m->heap, &e))
			break;
		s = (unsigned)e.item;
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

int wc_merge_next(struct wc_merge *m, struct wc_event *ev, struct wc_err *err)
{
	size_t got;

	return wc_merge_next_batch(m, ev, 1, &got, err);
}

void wc_merge_set_pull_run(struct wc_merge *m, wc_merge_pull_run_fn run)
{
	m->pull_run = run;
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

/*
 * The window is split in two, and the event handed out is the earlier of
 * their heads, so the output is the same as from one heap over the whole
 * window: a FIFO of events in arrival order that are each not earlier
 * than the one before them, and a heap of the others.  An event not
 * earlier than the FIFO's tail joins the FIFO in O(1): input already in
 * order (a "blkparse -d" file) never touches the heap, and input out of
 * order only by a little (stdin, CPU buffers interleaved) keeps the heap
 * small.
 */
struct wc_reorder {
	size_t window;
	wc_merge_pull_fn pull;
	wc_merge_pull_run_fn pull_run;   /* or NULL */
	void *ctx;
	struct slot *slots;
	struct wc_event stage[WC_REORDER_BATCH];  /* a run, before its slots */
	size_t stage_pos, stage_n;
	size_t *fifo;            /* ring of slot numbers, in arrival order */
	size_t fifo_head, fifo_n;
	size_t fifo_tail;        /* where the next one goes */
	struct wc_prioq *heap;   /* items: slot numbers */
	size_t nheap;            /* events in the heap: no call when 0 */
	size_t *free_slots;      /* window + WC_REORDER_BATCH of them */
	size_t nfree;
	size_t count;            /* events in the window (FIFO and heap) */
	/* Slots handed out by the last next_batch(): the caller may still
	 * read them, so the window refills into others until the next call. */
	size_t held[WC_REORDER_BATCH];
	size_t nheld;
	size_t used;             /* slots 0..used-1 have held an event */
	uint64_t arrivals;
	uint64_t genesis;
	int eof;
	int failed;
	struct wc_err deferred;
	struct wc_err scratch;   /* for pull(); empty but after a failure */
	/* wc_reorder_set_blkparse(): batches, and blkparse's wait */
	int blkparse;
	int stalled;
	size_t batch;            /* events a batch: GENESIS_BATCH or the window */
	size_t *batch_slots;     /* the batch being read, in arrival order */
	struct wc_map *seqs;     /* (device, cpu) -> last sequence printed */
	uint64_t seq_key;        /* the key looked up last, and its value */
	uint32_t *seq_val;
};

/* The second key, after time. */
static uint64_t r_tie(const struct wc_event *ev)
{
	return (uint64_t)ev->device << 32 | ev->sequence;
}

/* True when slot a goes before slot b: (time, device, sequence, arrival). */
static inline __attribute__((always_inline))
int r_before(const struct wc_reorder *r, size_t a, size_t b)
{
	const struct slot *x = &r->slots[a], *y = &r->slots[b];
	uint64_t tx, ty;

	if (x->ev.time != y->ev.time)
		return x->ev.time < y->ev.time;
	tx = r_tie(&x->ev);
	ty = r_tie(&y->ev);
	if (tx != ty)
		return tx < ty;
	return x->arrival < y->arrival;
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
	r->slots = calloc(window + WC_REORDER_BATCH, sizeof(*r->slots));
	r->fifo = calloc(window, sizeof(*r->fifo));
	r->free_slots = calloc(window + WC_REORDER_BATCH,
			       sizeof(*r->free_slots));
	r->batch = window < GENESIS_BATCH ? window : GENESIS_BATCH;
	r->batch_slots = calloc(r->batch, sizeof(*r->batch_slots));
	if (!r->slots || !r->fifo || !r->free_slots || !r->batch_slots)
		goto fail_free;
	/* The whole window from the start: no put() can fail later. */
	if (wc_prioq_open(&r->heap, window, err) < 0)
		goto fail_free;
	r->window = window;
	r->pull = pull;
	r->ctx = ctx;
	r->genesis = UINT64_MAX;
	for (i = 0; i < window + WC_REORDER_BATCH; i++)
		r->free_slots[i] = window + WC_REORDER_BATCH - 1 - i;
	r->nfree = window + WC_REORDER_BATCH;
	wc_err_clear(&r->deferred);
	wc_err_clear(&r->scratch);
	*out = r;
	return 0;

fail_free:
	wc_reorder_free(r);
fail:
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
}

/* Reads one event into a free slot, *slot; 0 at the end or on failure. */
static inline int r_keep(struct wc_reorder *r, size_t i);

static int r_take(struct wc_reorder *r, size_t *slot)
{
	struct slot *sl;
	size_t i;
	int ret;

	i = *slot = r->free_slots[r->nfree - 1];
	sl = &r->slots[i];
	ret = r->pull(r->ctx, 0, &sl->ev, 0, &r->scratch);
	if (ret <= 0) {
		if (ret < 0 && r->deferred.kind == WC_ERR_NONE)
			r->deferred = r->scratch;
		r->eof = 1;
		return 0;
	}
	return r_keep(r, i);
}

/* The event pulled into free slot i (the top of the free stack) joins
 * the window; 0 when out of memory. */
static inline __attribute__((always_inline))
int r_keep(struct wc_reorder *r, size_t i)
{
	struct slot *sl = &r->slots[i];

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
	if (i >= r->used)
		r->used = i + 1;
	sl->arrival = r->arrivals++;
	if (sl->arrival < GENESIS_BATCH && sl->ev.time < r->genesis)
		r->genesis = sl->ev.time;
	r->nfree--;
	r->count++;
	return 1;
}

/* Reads one event into a free slot and queues it; 0 at the end or on
 * failure. */
/* Queues slot i, just kept. */
static inline __attribute__((always_inline))
void r_queue(struct wc_reorder *r, size_t i)
{
	/* The run check: an event not earlier than the FIFO's tail (the
	 * common case, and every event of a file in order) costs a
	 * comparison, never a heap walk.  The ring wraps by comparison:
	 * a division per event cost more than the rest of the check. */
	if (r->fifo_n == 0 ||
	    !r_before(r, i, r->fifo[(r->fifo_tail ? r->fifo_tail : r->window) - 1])) {
		r->fifo[r->fifo_tail] = i;
		if (++r->fifo_tail == r->window)
			r->fifo_tail = 0;
		r->fifo_n++;
	} else {
		wc_prioq_put(r->heap, r->slots[i].ev.time,
			     r_tie(&r->slots[i].ev), i, NULL);
		r->nheap++;
	}
}

static int r_fill_one(struct wc_reorder *r)
{
	size_t i;

	if (!r_take(r, &i))
		return 0;
	r_queue(r, i);
	return 1;
}

/* Fills the window from a run read at once (wc_reorder_set_pull_run()):
 * the same events, kept and queued in the same order as by r_fill_one().
 * The run waits in stage until the window has room; its payloads stay
 * valid until the next run is read, when the stage is empty. */
static void r_fill_run(struct wc_reorder *r)
{
	size_t i;
	int ret;

	if (r->stage_pos == r->stage_n) {
		r->stage_pos = r->stage_n = 0;
		ret = r->pull_run(r->ctx, 0, r->stage, WC_REORDER_BATCH,
				  UINT64_MAX, 0, &r->stage_n, &r->scratch);
		if (ret <= 0) {
			if (ret < 0 && r->deferred.kind == WC_ERR_NONE)
				r->deferred = r->scratch;
			r->eof = 1;
			return;
		}
	}
	while (r->stage_pos < r->stage_n && r->count < r->window) {
		i = r->free_slots[r->nfree - 1];
		r->slots[i].ev = r->stage[r->stage_pos++];
		if (!r_keep(r, i))
			return;
		r_queue(r, i);
	}
}

/* ---- blkparse's order (--dump) ---------------------------------------- */

void wc_reorder_set_blkparse(struct wc_reorder *r)
{
	r->blkparse = 1;
}

/* Reads the next batch into the heap.  blkparse inserts a batch into its
 * tree last read first, and an event equal in (time, device, sequence)
 * to one there goes after it: put() in that order makes the heap's own
 * tie-break (the order of the put() calls) blkparse's. */
static void bp_read_batch(struct wc_reorder *r)
{
	size_t n = 0, i;

	while (n < r->batch && r->count < r->window &&
	       r_take(r, &r->batch_slots[n]))
		n++;
	while (n > 0) {
		i = r->batch_slots[--n];
		wc_prioq_put(r->heap, r->slots[i].ev.time,
			     r_tie(&r->slots[i].ev), i, NULL);
		r->nheap++;
	}
}

/* blkparse prints an event of a (device, CPU) only when its sequence
 * number follows the one printed last (the first of each goes), or it is
 * a message; otherwise it waits for more batches, up to the end of the
 * input.  1 when ev may be printed now, 0 when blkparse would wait. */
static int bp_in_sequence(struct wc_reorder *r, const struct wc_event *ev)
{
	const uint64_t message = WC_TC(WC_TC_NOTIFY) | WC_TN_MESSAGE;
	uint64_t key = (uint64_t)ev->device << 32 | ev->cpu;
	uint32_t *last = NULL;
	int put;

	if (ev->action == message)
		return 1;
	if (r->seq_val && key == r->seq_key) {
		last = r->seq_val;
	} else {
		if (!r->seqs && wc_map_open(&r->seqs, sizeof(uint32_t),
					    WC_INPUT_MAX_SEQ_KEYS, NULL) < 0)
			return 1;
		put = wc_map_put(r->seqs, key, (void **)&last, NULL);
		/* Past the bound (or out of memory) a pair is not
		 * followed: its events go as they come. */
		if (put < 0 || put == WC_MAP_FULL)
			return 1;
		r->seq_key = key;
		r->seq_val = last;
		if (put == WC_MAP_ADDED) {
			*last = ev->sequence;
			return 1;
		}
	}
	if ((uint64_t)ev->sequence != (uint64_t)*last + 1)
		return 0;
	*last = ev->sequence;
	return 1;
}

/*
 * blkparse reading one stream (a pipe, standard input) reads 512 events,
 * sorts them into the events it holds, prints from the earliest on while
 * bp_in_sequence() lets it, and reads the next batch when it stopped.
 * Once it waits, it waits to the end of the input (nothing earlier
 * arrives in a file in time order), and then prints everything it holds
 * in order: from there on a window of everything read, handing out its
 * earliest when full, gives the same order as long as nothing is further
 * out of place than the window.
 */
static int bp_next(struct wc_reorder *r, struct wc_prioq_entry *top)
{
	for (;;) {
		if (!wc_prioq_peek(r->heap, top)) {
			if (r->eof)
				return 0;
			bp_read_batch(r);
			continue;
		}
		if (!r->eof && !r->stalled &&
		    !bp_in_sequence(r, &r->slots[top->item].ev))
			r->stalled = 1;
		if (r->stalled && !r->eof && r->window - r->count >= r->batch) {
			bp_read_batch(r);
			continue;
		}
		wc_prioq_get(r->heap, top);
		r->nheap--;
		return 1;
	}
}

int wc_reorder_next_batch(struct wc_reorder *r, struct wc_event *out,
			  size_t max, size_t *got, struct wc_err *err)
{
	struct wc_prioq_entry top;
	size_t i, k = 0;

	*got = 0;
	if (r->failed)
		goto fail;
	while (r->nheld > 0)
		r->free_slots[r->nfree++] = r->held[--r->nheld];
	if (max > WC_REORDER_BATCH)
		max = WC_REORDER_BATCH;
	for (; k < max; k++) {
		/* Every event goes out of a full window, as one at a time:
		 * the slots of the batch are not the window's. */
		if (r->blkparse) {
			if (!bp_next(r, &top))
				break;
			i = top.item;
			goto out;
		}
		while (!r->eof && r->count < r->window) {
			if (r->pull_run)
				r_fill_run(r);
			else
				r_fill_one(r);
		}
		if (r->fifo_n == 0 && r->nheap == 0)
			break;
		if (r->fifo_n > 0 &&
		    (r->nheap == 0 || !wc_prioq_peek(r->heap, &top) ||
		     r_before(r, r->fifo[r->fifo_head], top.item))) {
			i = r->fifo[r->fifo_head];
			if (++r->fifo_head == r->window)
				r->fifo_head = 0;
			r->fifo_n--;
		} else {
			wc_prioq_get(r->heap, &top);
			r->nheap--;
			i = top.item;
		}
out:
		out[k] = r->slots[i].ev;
		r->held[r->nheld++] = i;
		r->count--;
	}
	if (k) {
		*got = k;
		return 1;
	}
	if (r->deferred.kind == WC_ERR_NONE)
		return 0;
	r->failed = 1;
fail:
	if (err && err->kind == WC_ERR_NONE)
		*err = r->deferred;
	return -1;
}

int wc_reorder_next(struct wc_reorder *r, struct wc_event *ev,
		    struct wc_err *err)
{
	size_t got;

	return wc_reorder_next_batch(r, ev, 1, &got, err);
}

void wc_reorder_set_pull_run(struct wc_reorder *r, wc_merge_pull_run_fn run)
{
	r->pull_run = run;
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
	/* Free slots are taken lowest first: only the first used ones can
	 * hold a payload, and a short input does not touch the whole window. */
	if (r->slots)
		for (i = 0; i < r->used; i++)
			free(r->slots[i].pdu);
	free(r->slots);
	free(r->fifo);
	wc_prioq_free(r->heap);
	free(r->free_slots);
	free(r->batch_slots);
	wc_map_free(r->seqs);
	free(r);
}
