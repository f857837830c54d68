/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/batchq.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/wclimits.h"

#define SLOT_EVENTS (WC_BATCHQ_SLOT * WC_INPUT_BATCH)
/* A side that waits is woken only once half the slots are there for it
 * (or the input ended): one wake-up per half a queue, not per slot, so
 * two busy threads hand batches over without a system call each. */
#define HALF (WC_BATCHQ_DEPTH / 2)

/* Up to WC_BATCHQ_SLOT of the input's batches, one after the other in
 * ev, each with the names the input had given once it was read; the
 * last slot also holds the input's last answer (end). */
struct slot {
	size_t nb;                      /* batches */
	size_t off[WC_BATCHQ_SLOT];     /* where batch i starts in ev */
	size_t len[WC_BATCHQ_SLOT];
	uint32_t names[WC_BATCHQ_SLOT];
	bool end;                       /* r, err and names_end are the last */
	int r;
	uint32_t names_end;
	struct wc_err err;
	struct wc_event ev[SLOT_EVENTS];
};

struct wc_batchq {
	struct wc_input *in;
	pthread_t reader;
	/* The queue: count full slots from head, taken in turn; the
	 * reader fills slots[tail] outside the lock (it is no one else's
	 * until counted). */
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	size_t head, tail, count;
	bool ended;                     /* the last slot is counted */
	bool reader_waits, taker_waits;
	bool stop;                      /* wc_batchq_free(): read no more */
	/* Held by the reader while the input reads (and so may name a
	 * pid: the names' map may move), by wc_batchq_comm() to look. */
	pthread_mutex_t names_lock;
	/* The consumer's side: the slot being handed out (have), its
	 * next batch, the names as of the last batch handed out, and once
	 * the input's last answer was handed out (done), that answer. */
	bool have, done;
	size_t sub;
	uint32_t names;
	int r;
	struct slot slots[WC_BATCHQ_DEPTH];
};

/* Read without the lock between two input calls; set under it. */
static bool stopping(struct wc_batchq *q)
{
	return __atomic_load_n(&q->stop, __ATOMIC_RELAXED);
}

/* Fills s from the input: up to WC_BATCHQ_SLOT batches, or fewer and the
 * input's last answer.  False when told to stop before s was full. */
static bool fill(struct wc_batchq *q, struct slot *s)
{
	const struct wc_event *evs;
	size_t fill = 0, got, i;
	bool stop = false;
	int r;

	s->nb = 0;
	s->end = false;
	wc_err_clear(&s->err);
	while (s->nb < WC_BATCHQ_SLOT && !s->end && !(stop = stopping(q))) {
		got = 0;
		pthread_mutex_lock(&q->names_lock);
		r = wc_input_next_ref(q->in, &evs, WC_INPUT_BATCH, &got,
				      &s->err);
		s->names_end = wc_input_names(q->in);
		pthread_mutex_unlock(&q->names_lock);
		if (r <= 0) {
			s->end = true;
			s->r = r;
			continue;
		}
		/* The input's batch is valid only until its next call:
		 * one copy of the batch, without the payloads no stage
		 * behind reads. */
		memcpy(&s->ev[fill], evs, got * sizeof(*evs));
		for (i = fill; i < fill + got; i++) {
			s->ev[i].pdu = NULL;
			s->ev[i].pdu_len = 0;
		}
		s->off[s->nb] = fill;
		s->len[s->nb] = got;
		s->names[s->nb] = s->names_end;
		s->nb++;
		fill += got;
	}
	return !stop;
}

static void *reader(void *arg)
{
	struct wc_batchq *q = arg;
	struct slot *s;
	bool end = false;

	while (!end) {
		pthread_mutex_lock(&q->lock);
		if (q->count == WC_BATCHQ_DEPTH) {
			q->reader_waits = true;
			while (q->count > HALF && !q->stop)
				pthread_cond_wait(&q->not_full, &q->lock);
			q->reader_waits = false;
		}
		s = q->stop ? NULL : &q->slots[q->tail];
		pthread_mutex_unlock(&q->lock);
		if (!s || !fill(q, s))
			break;
		end = s->end;
		pthread_mutex_lock(&q->lock);
		q->tail = (q->tail + 1) % WC_BATCHQ_DEPTH;
		q->count++;
		q->ended = end;
		if (q->taker_waits && (q->count >= HALF || end))
			pthread_cond_signal(&q->not_empty);
		pthread_mutex_unlock(&q->lock);
	}
	return NULL;
}

int wc_batchq_open(struct wc_batchq **out, struct wc_input *in,
		   struct wc_err *err)
{
	struct wc_batchq *q;

	*out = NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return wc_err_oom(err, NULL, NULL);
	q->in = in;
	q->names = wc_input_names(in);
	if (pthread_mutex_init(&q->lock, NULL))
		goto fail_alloc;
	if (pthread_mutex_init(&q->names_lock, NULL))
		goto fail_lock;
	if (pthread_cond_init(&q->not_empty, NULL))
		goto fail_names_lock;
	if (pthread_cond_init(&q->not_full, NULL))
		goto fail_not_empty;
	if (pthread_create(&q->reader, NULL, reader, q))
		goto fail_not_full;
	*out = q;
	return 0;

fail_not_full:
	pthread_cond_destroy(&q->not_full);
fail_not_empty:
	pthread_cond_destroy(&q->not_empty);
fail_names_lock:
	pthread_mutex_destroy(&q->names_lock);
fail_lock:
	pthread_mutex_destroy(&q->lock);
fail_alloc:
	free(q);
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "cannot start the reader's thread");
}

int wc_batchq_next(struct wc_batchq *q, const struct wc_event **evs,
		   size_t *n, struct wc_err *err)
{
	struct slot *s = &q->slots[q->head];
	int r;

	*n = 0;
	if (!q->done && q->have && q->sub == s->nb && !s->end) {
		/* Its batches all handed out: the slot is the reader's
		 * again. */
		pthread_mutex_lock(&q->lock);
		q->head = (q->head + 1) % WC_BATCHQ_DEPTH;
		q->count--;
		if (q->reader_waits && q->count <= HALF)
			pthread_cond_signal(&q->not_full);
		pthread_mutex_unlock(&q->lock);
		q->have = false;
		s = &q->slots[q->head];
	}
	if (!q->done && !q->have) {
		pthread_mutex_lock(&q->lock);
		if (q->count == 0) {
			q->taker_waits = true;
			while (q->count < HALF && !q->ended)
				pthread_cond_wait(&q->not_empty, &q->lock);
			q->taker_waits = false;
		}
		pthread_mutex_unlock(&q->lock);
		q->have = true;
		q->sub = 0;
	}
	if (!q->done && q->sub < s->nb) {
		*evs = &s->ev[s->off[q->sub]];
		*n = s->len[q->sub];
		q->names = s->names[q->sub];
		q->sub++;
		r = 1;
	} else if (!q->done) {
		/* The input's last answer, its err once, as the input
		 * gives it; then the same answer again. */
		q->done = true;
		q->r = r = s->r;
		q->names = s->names_end;
		if (r < 0 && err && err->kind == WC_ERR_NONE)
			*err = s->err;
	} else {
		r = q->r;
	}
	return r;
}

const char *wc_batchq_comm(struct wc_batchq *q, uint32_t pid,
			   char buf[WC_BATCHQ_NAME])
{
	const char *name;

	pthread_mutex_lock(&q->names_lock);
	name = wc_input_comm_before(q->in, pid, q->names);
	if (name)
		snprintf(buf, WC_BATCHQ_NAME, "%s", name);
	pthread_mutex_unlock(&q->names_lock);
	return name ? buf : NULL;
}

void wc_batchq_free(struct wc_batchq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	__atomic_store_n(&q->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->reader, NULL);
	pthread_cond_destroy(&q->not_full);
	pthread_cond_destroy(&q->not_empty);
	pthread_mutex_destroy(&q->names_lock);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
