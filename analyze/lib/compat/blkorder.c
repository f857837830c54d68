/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compat/blkorder.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/map.h"
#include "base/prioq.h"
#include "base/wclimits.h"

struct wc_blkorder {
	size_t window;
	size_t batch;            /* events a batch: WC_BLKORDER_BATCH or less */
	size_t count;            /* events held */
	wc_blkorder_read_fn read;
	void *ctx;
	struct wc_prioq *heap;   /* items: the caller's events */
	const struct wc_event **batch_evs;   /* the batch read, in order */
	int eof;
	int stalled;             /* blkparse waits to the end of the input */
	struct wc_map *seqs;     /* (device, cpu) -> last sequence printed */
	uint64_t seq_key;        /* the key looked up last, and its value */
	uint32_t *seq_val;
};

int wc_blkorder_open(struct wc_blkorder **out, size_t window,
		     wc_blkorder_read_fn read, void *ctx, struct wc_err *err)
{
	struct wc_blkorder *o;

	*out = NULL;
	if (window == 0)
		window = 1;
	o = calloc(1, sizeof(*o));
	if (!o)
		goto fail;
	o->window = window;
	o->batch = window < WC_BLKORDER_BATCH ? window : WC_BLKORDER_BATCH;
	o->read = read;
	o->ctx = ctx;
	o->batch_evs = calloc(o->batch, sizeof(*o->batch_evs));
	if (!o->batch_evs)
		goto fail_free;
	/* The whole window from the start: no put() can fail later. */
	if (wc_prioq_open(&o->heap, window, err) < 0)
		goto fail_free;
	*out = o;
	return 0;

fail_free:
	wc_blkorder_free(o);
fail:
	return wc_err_oom(err, NULL, NULL);
}

/* The second key, after time. */
static uint64_t bo_tie(const struct wc_event *ev)
{
	return (uint64_t)ev->device << 32 | ev->sequence;
}

/* Reads the next batch into the heap.  blkparse inserts a batch into its
 * tree last read first, and an event equal in (time, device, sequence)
 * to one there goes after it: put() in that order makes the heap's own
 * tie-break (the order of the put() calls) blkparse's. */
static void bo_read_batch(struct wc_blkorder *o)
{
	const struct wc_event *ev;
	size_t want = o->batch, n;

	if (want > o->window - o->count)
		want = o->window - o->count;
	n = o->read(o->ctx, o->batch_evs, want);
	if (n < want)
		o->eof = 1;
	o->count += n;
	while (n > 0) {
		ev = o->batch_evs[--n];
		wc_prioq_put(o->heap, ev->time, bo_tie(ev), (uintptr_t)ev,
			     NULL);
	}
}

/* blkparse prints an event of a (device, CPU) only when its sequence
 * number follows the one printed last (the first of each goes), or it is
 * a message; otherwise it waits for more batches, up to the end of the
 * input.  1 when ev may be printed now, 0 when blkparse would wait. */
static int bo_in_sequence(struct wc_blkorder *o, const struct wc_event *ev)
{
	uint64_t key = (uint64_t)ev->device << 32 | ev->cpu;
	uint32_t *last = NULL;
	int put;

	if (ev->action == WC_ACTION_MESSAGE)
		return 1;
	if (o->seq_val && key == o->seq_key) {
		last = o->seq_val;
	} else {
		if (!o->seqs && wc_map_open(&o->seqs, sizeof(uint32_t),
					    WC_INPUT_MAX_SEQ_KEYS, NULL) < 0)
			return 1;
		put = wc_map_put(o->seqs, key, (void **)&last, NULL);
		/* Past the bound (or out of memory) a pair is not
		 * followed: its events go as they come. */
		if (put < 0 || put == WC_MAP_FULL)
			return 1;
		o->seq_key = key;
		o->seq_val = last;
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
 * bo_in_sequence() lets it, and reads the next batch when it stopped.
 * Once it waits, it waits to the end of the input (nothing earlier
 * arrives in a file in time order), and then prints everything it holds
 * in order: from there on a window of everything read, handing out its
 * earliest when full, gives the same order as long as nothing is further
 * out of place than the window.
 */
int wc_blkorder_next(struct wc_blkorder *o, bool may_read,
		     const struct wc_event **ev)
{
	struct wc_prioq_entry top;

	for (;;) {
		if (!wc_prioq_peek(o->heap, &top)) {
			if (o->eof)
				return 0;
			if (!may_read)
				return WC_BLKORDER_WOULD_READ;
			bo_read_batch(o);
			continue;
		}
		if (!o->eof && !o->stalled &&
		    !bo_in_sequence(o, (const struct wc_event *)top.item))
			o->stalled = 1;
		if (o->stalled && !o->eof &&
		    o->window - o->count >= o->batch) {
			if (!may_read)
				return WC_BLKORDER_WOULD_READ;
			bo_read_batch(o);
			continue;
		}
		wc_prioq_get(o->heap, &top);
		o->count--;
		*ev = (const struct wc_event *)top.item;
		return 1;
	}
}

void wc_blkorder_free(struct wc_blkorder *o)
{
	if (!o)
		return;
	wc_prioq_free(o->heap);
	wc_map_free(o->seqs);
	free(o->batch_evs);
	free(o);
}
