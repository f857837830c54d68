/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/reorder.h"
#include "input/reorder_test.h"

#include <stdlib.h>
#include <string.h>

#include "base/hot.h"
#include "base/prioq.h"
#include "compat/blkorder.h"

/* ---- reorder window --------------------------------------------------- */

#define INLINE_PDU 32u
/* blkparse's genesis: the earliest of the first batch it reads. */
#define GENESIS_BATCH WC_BLKORDER_BATCH

/* A payload longer than INLINE_PDU, kept on the heap. */
struct big_pdu {
	unsigned char *p;
	size_t cap;
};

/*
 * The window is split in two, and the event handed out is the earlier of
 * their heads, so the output is the same as from one heap over the whole
 * window: a ring of events sorted by (time, device, sequence, arrival),
 * mostly in arrival order, and a heap of the others (late events).
 * Both hold their events in slots of one kind: an event, its arrival
 * number and its payload's room, at one index into the same arrays; the
 * ring is slots 0 to cap - 1 in turn, the heap takes free ones above.
 *
 * The ring is where a span is decoded: pull() writes straight into
 * its free slots, an event not earlier than the ring's last stays where
 * it was written, a late one that goes before at most WC_REORDER_SHIFT
 * of the ring's last events goes into its place among them (they move
 * up a slot), and only a later one is copied out, into a slot of the
 * heap's.  So input already in order (a "blkparse -d" file) costs a key
 * comparison and its payload's copy per event on the way in and one copy
 * on the way out, and never touches the heap; nor do the ties blkparse
 * -d writes out of (device, sequence) order.
 *
 * The window's answer does not depend on when an event was classified:
 * only on which events take part when each is handed out.  The k-th
 * event handed out is the least of those with an arrival number below
 * k + window (all of them once the input ended) not handed out yet.
 * The ring is sorted, so its head is its least, and it may go as soon
 * as its own arrival is below that bound; a late event waits in "late"
 * (arrival order) until its arrival is, and only then joins the heap,
 * which so holds only events that take part.  Runs are read while fewer
 * than k + window events arrived, up to WC_REORDER_BATCH ahead.  A late
 * event goes into the ring only when it takes part by the time it is the
 * ring's head (after the events before its place went): so whenever the
 * ring's head does not take part, no event of the ring does (those
 * after it arrived after it), and those that take part are in the heap.
 */
struct wc_reorder {
	size_t window;
	wc_merge_pull_fn pull;
	void *ctx;
	/* The slots, 2 * cap of them, each with its own payload room. */
	struct wc_event *ev;
	uint64_t *arrival;
	unsigned char (*small)[INLINE_PDU];
	struct big_pdu *big;
	/* The ring, sorted (above): slots 0..cap-1, of which the events in
	 * the window (ring_n from head) and the ones handed out by the last
	 * batch (ring_held before head), whose payloads the caller
	 * may still read. */
	size_t cap, head, tail, ring_n, ring_held;
	/* Late events (and, for wc_reorder_set_blkparse(), all events) in
	 * slots cap..2 cap-1, handed out through the heap (blkparse's
	 * order: through o). */
	struct wc_prioq *heap;   /* items: slot numbers */
	size_t nheap;            /* events in the heap: no call when 0 */
	size_t *late;            /* slots not in the heap yet, a ring */
	size_t late_head, late_n;
	size_t *free_slots;      /* window + 2 * WC_REORDER_BATCH of them */
	size_t nfree;
	/* Slots handed out by the last batch: the caller may still
	 * read them, so the window refills into others until the next call. */
	size_t held[WC_REORDER_BATCH];
	size_t nheld;
	size_t used;             /* slots cap..cap+used-1 have held an event */
	/* wc_reorder_set_route(): whether a late event may go into the
	 * ring, and what an event read into an empty ring is compared with
	 * (no event goes before it, or every event does). */
	int ring_insert;
	const struct wc_event *first_prev;
	/* A batch of wc_reorder_next_ref() that is not a span of the ring. */
	struct wc_event outbuf[WC_REORDER_BATCH];
	int ring_span;            /* the last batch was a span of the ring */
	uint64_t arrivals;
	uint64_t emitted;        /* events handed out */
	uint64_t genesis;
	int eof;
	int failed;
	struct wc_err deferred;
	struct wc_err scratch;   /* for pull(); empty but after a failure */
	/* wc_reorder_set_blkparse(): blkparse's order, opened at the first
	 * batch */
	int blkparse;
	struct wc_blkorder *o;
};

/* Late events waiting for the heap: those read ahead of the window
 * (fewer than a span) and of the span read since (a span). */
#define LATE_CAP (4u * WC_REORDER_BATCH)

/* The second key, after time. */
static uint64_t r_tie(const struct wc_event *ev)
{
	return (uint64_t)ev->device << 32 | ev->sequence;
}

/* What the first event read into an empty ring is compared with: none
 * goes before the least key, so every event stays in the ring; every
 * event but one of the greatest key goes before the greatest, so every
 * event goes through the heap (WC_REORDER_ROUTE_HEAP). */
static const struct wc_event key_least;
static const struct wc_event key_greatest = {
	.time = UINT64_MAX, .device = UINT32_MAX, .sequence = UINT32_MAX,
};

int wc_reorder_open(struct wc_reorder **out, size_t window,
		    wc_merge_pull_fn pull, void *ctx, struct wc_err *err)
{
	struct wc_reorder *r;
	size_t i, cap;

	*out = NULL;
	if (window == 0)
		window = 1;
	/* The window, a span read ahead and a batch handed out: in the ring,
	 * and as many for the heap. */
	cap = window + 2 * WC_REORDER_BATCH;
	r = calloc(1, sizeof(*r));
	if (!r)
		goto fail;
	r->cap = cap;
	/* calloc()'s pages are touched only when used: the slots of late
	 * events cost nothing for input in order. */
	r->ev = calloc(2 * cap, sizeof(*r->ev));
	r->arrival = calloc(2 * cap, sizeof(*r->arrival));
	r->small = calloc(2 * cap, sizeof(*r->small));
	r->big = calloc(2 * cap, sizeof(*r->big));
	r->late = calloc(LATE_CAP, sizeof(*r->late));
	r->free_slots = calloc(cap, sizeof(*r->free_slots));
	if (!r->ev || !r->arrival || !r->small || !r->big || !r->late ||
	    !r->free_slots)
		goto fail_free;
	/* The whole window from the start: no put() can fail later. */
	if (wc_prioq_open(&r->heap, window, err) < 0)
		goto fail_free;
	r->window = window;
	r->pull = pull;
	r->ctx = ctx;
	r->genesis = UINT64_MAX;
	r->ring_insert = 1;
	r->first_prev = &key_least;
	/* Taken from the top: the heap's slots from cap up. */
	for (i = 0; i < cap; i++)
		r->free_slots[i] = 2 * cap - 1 - i;
	r->nfree = cap;
	wc_err_clear(&r->deferred);
	wc_err_clear(&r->scratch);
	*out = r;
	return 0;

fail_free:
	wc_reorder_free(r);
fail:
	return wc_err_oom(err, NULL, NULL);
}

/* Out of memory for a payload: the events before go out, then the
 * failure; nothing more is read. */
static int r_oom(struct wc_reorder *r)
{
	if (r->deferred.kind == WC_ERR_NONE)
		wc_err_oom(&r->deferred, NULL, NULL);
	r->eof = 1;
	return 0;
}

/* A payload of at most INLINE_PDU bytes into its slot's own room. */
WC_HOT
void r_keep_small(struct wc_event *ev, unsigned char *small)
{
	if (ev->pdu_len)
		memcpy(small, ev->pdu, ev->pdu_len);
	ev->pdu = small;
}

/* A payload longer than INLINE_PDU into its slot's own room on the heap:
 * rare (a message's text, a long command name), out of r_fill()'s loop.
 * 0 when out of memory. */
static __attribute__((noinline))
int r_keep_long(struct wc_reorder *r, struct wc_event *ev,
		struct big_pdu *big)
{
	if (big->cap < ev->pdu_len) {
		unsigned char *p = realloc(big->p, ev->pdu_len);

		if (!p)
			return r_oom(r);
		big->p = p;
		big->cap = ev->pdu_len;
	}
	memcpy(big->p, ev->pdu, ev->pdu_len);
	ev->pdu = big->p;
	return 1;
}

/* Copies ev's payload, which lives in the stream's buffer only until the
 * next pull, into small or big, and points ev at the copy; 0 when out of
 * memory. */
WC_HOT
int r_keep_pdu(struct wc_reorder *r, struct wc_event *ev,
	       unsigned char *small, struct big_pdu *big)
{
	if (ev->pdu_len > INLINE_PDU)
		return r_keep_long(r, ev, big);
	r_keep_small(ev, small);
	return 1;
}

/* The event pulled into free slot i (the top of the free stack) is kept
 * there with its arrival number; 0 when out of memory. */
WC_HOT
int r_keep(struct wc_reorder *r, size_t i)
{
	struct wc_event *ev = &r->ev[i];

	if (!r_keep_pdu(r, ev, r->small[i], &r->big[i]))
		return 0;
	if (i - r->cap >= r->used)
		r->used = i - r->cap + 1;
	r->arrival[i] = r->arrivals++;
	if (r->arrival[i] < GENESIS_BATCH && ev->time < r->genesis)
		r->genesis = ev->time;
	r->nfree--;
	return 1;
}

/* Reads one event into a free slot, *slot; 0 at the end or on failure. */
static int r_take(struct wc_reorder *r, size_t *slot)
{
	size_t i, got;
	int ret;

	i = *slot = r->free_slots[r->nfree - 1];
	ret = r->pull(r->ctx, 0, &r->ev[i], 1, UINT64_MAX, 0, &got,
		      &r->scratch);
	if (ret <= 0) {
		if (ret < 0 && r->deferred.kind == WC_ERR_NONE)
			r->deferred = r->scratch;
		r->eof = 1;
		return 0;
	}
	return r_keep(r, i);
}

/* A late event, read into the ring: copied into a slot of its own, into
 * the heap when it takes part already, else to wait in late for its
 * turn; 0 when out of memory.  late holds the late events of the spans
 * read since the last was handed out: fewer than LATE_CAP. */
static int r_late(struct wc_reorder *r, const struct wc_event *ev)
{
	size_t i = r->free_slots[r->nfree - 1];

	r->ev[i] = *ev;
	if (!r_keep(r, i))
		return 0;
	/* The heap takes events in arrival order (its ties go first in,
	 * first out): not before those waiting. */
	if (r->late_n == 0 && r->arrival[i] < r->emitted + r->window) {
		wc_prioq_put(r->heap, ev->time, r_tie(ev), i, NULL);
		r->nheap++;
	} else {
		r->late[(r->late_head + r->late_n++) % LATE_CAP] = i;
	}
	return 1;
}

/* True when x goes before y by (time, device, sequence): an event equal
 * in all three to one read before it goes after it. */
WC_HOT
int r_before(const struct wc_event *x, const struct wc_event *y)
{
	return x->time <= y->time &&
	       (x->time < y->time || r_tie(x) < r_tie(y));
}

/* The ring's slot WC_REORDER_SHIFT + 1 before slot w: the farthest
 * place a late event read at w may go. */
static inline size_t r_far(const struct wc_reorder *r, size_t w)
{
	return w > WC_REORDER_SHIFT ? w - WC_REORDER_SHIFT - 1 :
	       w + r->cap - WC_REORDER_SHIFT - 1;
}

/*
 * How many of the ring's last events late event ev, read at or after w
 * (the slot after the ring's last, n events of the ring before it), may
 * go before: n up to WC_REORDER_SHIFT, with one look at the farthest
 * place when there are more; 0 when it goes farther.
 */
WC_HOT
size_t r_near(const struct wc_reorder *r, const struct wc_event *ev,
	      size_t w, size_t n)
{
	if (n <= WC_REORDER_SHIFT)
		return n;
	return r_before(ev, &r->ev[r_far(r, w)]) ? 0 : WC_REORDER_SHIFT;
}

/*
 * Late event ev, of arrival a, read at or after w, the slot after the
 * ring's last, put in its place among the ring's last n events (n at
 * most WC_REORDER_SHIFT), those after it moved up a slot (r_fill() sees
 * to it that it goes before at most n, and takes part when its turn
 * comes).  1 when put there (w then holds the ring's last), 0 when out
 * of memory (nothing moved).
 *
 * The ring stays sorted, and each event takes part when it is the
 * ring's head, so its head is still the least of the ring's events that
 * take part, and the order out is the same as through the heap.  A tie
 * (the order blkparse -d writes equal times in) or a record late by a
 * few costs a few moves instead of a slot, the heap's put and get, and a
 * look at the heap's top for every event of the ring while it waits
 * there.
 */
static __attribute__((noinline))
int r_insert(struct wc_reorder *r, const struct wc_event *ev, size_t w,
	     size_t n, uint64_t a)
{
	struct wc_event *ring = r->ev;
	uint64_t *arrival = r->arrival;
	unsigned char (*small)[INLINE_PDU] = r->small;
	struct big_pdu *big = r->big, b;
	struct wc_event x = *ev;   /* ev may be at w, where the last moves */
	size_t q, p, k, i;
	int ok, long_moved;

	/* A long payload into w's own room first, which goes down with
	 * it: nothing has moved when that fails. */
	if (x.pdu_len > INLINE_PDU) {
		b = big[w];
		ok = r_keep_long(r, &x, &b);
		big[w] = b;
		if (!ok)
			return 0;
	}
	long_moved = x.pdu_len > INLINE_PDU;
	for (q = w, k = 0; k < n; k++, q = p) {
		p = (q ? q : r->cap) - 1;
		if (!r_before(&x, &ring[p]))
			break;
		ring[q] = ring[p];
		arrival[q] = arrival[p];
		if (ring[q].pdu_len > INLINE_PDU) {
			long_moved = 1;
		} else {
			if (ring[q].pdu_len)
				memcpy(small[q], small[p], INLINE_PDU);
			ring[q].pdu = small[q];
		}
	}
	/* A long payload's room goes with it: w's (x's) down to q, each
	 * room between up a slot.  With none among them every slot keeps
	 * its own, which holds no payload in use. */
	if (long_moved) {
		b = big[w];
		for (i = w; i != q; i = p) {
			p = (i ? i : r->cap) - 1;
			big[i] = big[p];
		}
		big[q] = b;
	}
	if (x.pdu_len <= INLINE_PDU)
		r_keep_small(&x, small[q]);
	ring[q] = x;
	arrival[q] = a;
	return 1;
}


/*
 * Reads a span into the ring's free slots after its tail (one event with
 * pull() alone) and keeps each event where it belongs: one not earlier
 * than the ring's last stays in place (after the span's late ones, it
 * moves down to close up their slots); a late one that goes before at
 * most WC_REORDER_SHIFT of the ring's last events, and takes part by the
 * time it is the ring's head, goes into its place among them
 * (r_insert()); any other late one goes to the heap (r_late()).  So a
 * tie (the order blkparse -d writes equal times in) or a record late by
 * a few costs a few moves, and input in order one comparison an event.
 */
static void r_fill(struct wc_reorder *r)
{
	size_t room = r->cap - r->ring_n - r->ring_held;
	const struct wc_event *prev = r->first_prev;
	struct wc_event *ring = r->ev;
	uint64_t *arrival = r->arrival;
	unsigned char (*small)[INLINE_PDU] = r->small;
	struct big_pdu *big = r->big;
	size_t t = r->tail, n = 0, j, w, end, before, nr;
	uint64_t a, base, prev_time, bound;
	int ret;

	if (room > r->cap - t)
		room = r->cap - t;
	if (room > WC_REORDER_BATCH)
		room = WC_REORDER_BATCH;
	ret = r->pull(r->ctx, 0, &ring[t], room, UINT64_MAX, 0, &n,
		      &r->scratch);
	if (ret <= 0) {
		if (ret < 0 && r->deferred.kind == WC_ERR_NONE)
			r->deferred = r->scratch;
		r->eof = 1;
		return;
	}
	if (r->arrivals < GENESIS_BATCH)
		for (j = 0; j < n && r->arrivals + j < GENESIS_BATCH; j++)
			if (ring[t + j].time < r->genesis)
				r->genesis = ring[t + j].time;
	end = t + n;
	if (r->ring_n > 0)
		prev = &ring[(t ? t : r->cap) - 1];
	/* w: the slot after the ring's last, prev the ring's last (its
	 * time in prev_time: the test of every event), a the next arrival
	 * number. */
	a = r->arrivals;
	prev_time = prev->time;
	/* A late event goes into the ring only if it takes part by its turn
	 * (below): with a bound of 0 none does, and every late event goes
	 * through the heap (WC_REORDER_ROUTE_NO_SHIFT). */
	bound = r->ring_insert ? r->emitted + r->window : 0;
	/* The span in order up to its first late event or long payload
	 * (a merged "blkparse -d" file: nearly all of it): each event stays
	 * in the slot it was decoded into, so it is tested, its payload
	 * kept and its arrival counted, nothing more.  The loop below takes
	 * the span on from there, with the slot it writes kept apart. */
	base = a - t;
	for (j = t; j < end; j++) {
		struct wc_event *ev = &ring[j];
		uint64_t x = ev->time;

		if (x <= prev_time) {
			if (j > t)
				prev = ev - 1;
			if (x < prev_time || r_tie(ev) < r_tie(prev))
				break;
		}
		/* r_keep_small(), with one test for the payload most events
		 * lack. */
		if (ev->pdu_len) {
			if (ev->pdu_len > INLINE_PDU)
				break;
			memcpy(small[j], ev->pdu, ev->pdu_len);
		}
		ev->pdu = small[j];
		arrival[j] = base + j;
		prev_time = x;
	}
	if (j > t)
		prev = &ring[j - 1];
	a = base + j;
	for (w = j; j < end; j++) {
		struct wc_event *ev = &ring[j];
		uint64_t x = ev->time;

		/* r_before(ev, prev), the tie looked at only among equal
		 * times: an event equal in (time, device, sequence) to the
		 * ring's last arrived after it and is not late. */
		if (x <= prev_time &&
		    (x < prev_time || r_tie(ev) < r_tie(prev))) {
			/* Into the ring only when, after the events before
			 * its place (all but at most nr), it takes part, as
			 * the ring's head. */
			before = r->ring_n + (w - t);
			nr = r_near(r, ev, w, before);
			if (nr && a < bound + (before - nr)) {
				if (!r_insert(r, ev, w, nr, a))
					break;
				a++;
				prev = &ring[w++];
				prev_time = prev->time;
				continue;
			}
			r->arrivals = a;
			if (!r_late(r, ev))
				break;
			a = r->arrivals;
			continue;
		}
		if (w != j) {
			ring[w] = *ev;
			ev = &ring[w];
		}
		if (ev->pdu_len > INLINE_PDU) {
			if (!r_keep_long(r, ev, &big[w]))
				break;
		} else {
			r_keep_small(ev, small[w]);
		}
		arrival[w++] = a++;
		prev = ev;
		prev_time = x;
	}
	r->arrivals = a;
	r->ring_n += w - t;
	r->tail = w == r->cap ? 0 : w;
}

/* True when ring slot a goes before heap slot b:
 * (time, device, sequence, arrival). */
WC_HOT
int r_ring_first(const struct wc_reorder *r, size_t a,
		 const struct wc_prioq_entry *b)
{
	const struct wc_event *x = &r->ev[a];
	uint64_t tx;

	if (x->time != b->key)
		return x->time < b->key;
	tx = r_tie(x);
	if (tx != b->tie)
		return tx < b->tie;
	return r->arrival[a] < r->arrival[b->item];
}

/*
 * How many of the ring's events from its head may go at once, up to max,
 * with the late events taking part in the heap: those read, before the
 * next late one takes part (the heap's top holds till then), before the
 * heap's top, and each taking part when it goes (its arrival below bound,
 * one more for each event before it).  While the heap is empty every
 * event taking part is in the ring, so its head does, and the ring's
 * order is the answer.
 */
static size_t r_ring_span(struct wc_reorder *r, size_t max, uint64_t bound,
			  int *heap_next)
{
	struct wc_prioq_entry top;
	size_t m = max, i;

	*heap_next = r->ring_n == 0;

	if (m > r->ring_n)
		m = r->ring_n;
	if (!r->eof && m > r->arrivals + 1 - bound)
		m = r->arrivals + 1 - bound;
	if (m > r->cap - r->head)
		m = r->cap - r->head;
	if (r->late_n > 0 &&
	    m > r->arrival[r->late[r->late_head]] - bound)
		m = r->arrival[r->late[r->late_head]] - bound;
	if (r->nheap == 0 || m == 0)
		return m;
	wc_prioq_peek(r->heap, &top);
	for (i = 0; i < m; i++) {
		if (!r->eof && r->arrival[r->head + i] >= bound + i)
			break;
		if (!r_ring_first(r, r->head + i, &top))
			break;
	}
	/* The ring's head does not go (it does not take part, or the top is
	 * before it): the top does, with no second look. */
	*heap_next = i == 0;
	return i;
}

/*
 * Up to max events into out, each the least of those taking part when
 * it goes (above).  While the heap and late are empty every event taking
 * part is in the ring: its head goes, as many at once as were read.
 */
static size_t r_batch(struct wc_reorder *r, struct wc_event *out, size_t max,
		      const struct wc_event **evs)
{
	struct wc_prioq_entry top;
	size_t k = 0, m, i;
	uint64_t bound;
	int heap_next;

	r->ring_held = 0;
	while (k < max) {
		if (!r->eof && r->arrivals < r->emitted + r->window) {
			r_fill(r);
			continue;
		}
		bound = r->eof ? UINT64_MAX : r->emitted + r->window;
		while (r->late_n > 0 &&
		       r->arrival[r->late[r->late_head]] < bound) {
			i = r->late[r->late_head];
			if (++r->late_head == LATE_CAP)
				r->late_head = 0;
			r->late_n--;
			wc_prioq_put(r->heap, r->ev[i].time,
				     r_tie(&r->ev[i]), i, NULL);
			r->nheap++;
		}
		m = r_ring_span(r, max - k, bound, &heap_next);
		if (m > 0) {
			/* A batch that is one span of the ring is not copied:
			 * its slots are held until the next call anyway. */
			if (k == 0) {
				*evs = &r->ev[r->head];
				max = m;
			} else {
				memcpy(&out[k], &r->ev[r->head],
				       m * sizeof(*out));
			}
			k += m;
			r->emitted += m;
			r->ring_n -= m;
			r->ring_held += m;
			r->head += m;
			if (r->head == r->cap)
				r->head = 0;
			continue;
		}
		if (r->late_n == 0 && r->nheap == 0)
			break;
		if (!(heap_next && r->nheap > 0) &&
		    r->ring_n > 0 && r->arrival[r->head] < bound &&
		    (r->nheap == 0 || !wc_prioq_peek(r->heap, &top) ||
		     r_ring_first(r, r->head, &top))) {
			out[k++] = r->ev[r->head];
			if (++r->head == r->cap)
				r->head = 0;
			r->ring_n--;
			r->ring_held++;
		} else if (r->nheap > 0) {
			wc_prioq_get(r->heap, &top);
			r->nheap--;
			out[k++] = r->ev[top.item];
			r->held[r->nheld++] = top.item;
		} else {
			break;
		}
		r->emitted++;
	}
	return k;
}

/* ---- blkparse's order (--dump) ---------------------------------------- */

void wc_reorder_set_blkparse(struct wc_reorder *r)
{
	r->blkparse = 1;
}

/* compat/blkorder.h's read(): the next events, each kept in a slot of
 * the heap's, where it stays until it is handed out. */
static size_t bp_read(void *ctx, const struct wc_event **evs, size_t max)
{
	struct wc_reorder *r = ctx;
	size_t n, i;

	for (n = 0; n < max && r_take(r, &i); n++)
		evs[n] = &r->ev[i];
	return n;
}

/* Up to max events, in out or where they lie in the ring when they are
 * a span of it; *evs says where. */
static int r_next(struct wc_reorder *r, struct wc_event *out, size_t max,
		  const struct wc_event **evs, size_t *got, struct wc_err *err)
{
	const struct wc_event *ev;
	size_t i, k = 0;

	*got = 0;
	*evs = out;
	if (r->failed)
		goto fail;
	if (r->blkparse && !r->o &&
	    wc_blkorder_open(&r->o, r->window, bp_read, r, &r->scratch) < 0) {
		r_oom(r);
		goto none;
	}
	while (r->nheld > 0)
		r->free_slots[r->nfree++] = r->held[--r->nheld];
	if (max > WC_REORDER_BATCH)
		max = WC_REORDER_BATCH;
	if (!r->blkparse) {
		k = r_batch(r, out, max, evs);
	} else {
		/* A batch read names pids (--dump): the events handed
		 * out before it are looked at first. */
		for (; k < max; k++) {
			if (wc_blkorder_next(r->o, k == 0, &ev) != 1)
				break;
			i = (size_t)(ev - r->ev);
			out[k] = *ev;
			r->held[r->nheld++] = i;
		}
	}
	r->ring_span = k && *evs != out;
	if (k) {
		*got = k;
		return 1;
	}
none:
	if (r->deferred.kind == WC_ERR_NONE)
		return 0;
	r->failed = 1;
fail:
	if (err && err->kind == WC_ERR_NONE)
		*err = r->deferred;
	return -1;
}

int wc_reorder_next_ref(struct wc_reorder *r, const struct wc_event **evs,
			size_t max, size_t *got, struct wc_err *err)
{
	return r_next(r, r->outbuf, max, evs, got, err);
}

void wc_reorder_set_route(struct wc_reorder *r, enum wc_reorder_route route)
{
	r->ring_insert = route == WC_REORDER_ROUTE_ALL;
	r->first_prev = route == WC_REORDER_ROUTE_HEAP ? &key_greatest :
			&key_least;
}

int wc_reorder_sorted(const struct wc_reorder *r)
{
	return r->ring_span;
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
	/* The ring is written from its start on: no more slots than
	 * arrivals were.  The heap's free slots are taken lowest first: only
	 * the first used ones can hold a payload.  So a short input does not
	 * touch the whole window. */
	if (r->big) {
		for (i = 0; i < r->cap && i < r->arrivals; i++)
			free(r->big[i].p);
		for (i = 0; i < r->used; i++)
			free(r->big[r->cap + i].p);
	}
	free(r->ev);
	free(r->arrival);
	free(r->small);
	free(r->big);
	free(r->late);
	wc_prioq_free(r->heap);
	free(r->free_slots);
	wc_blkorder_free(r->o);
	free(r);
}
