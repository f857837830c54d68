/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * prioq.h - a binary min-heap of small entries with their keys inline,
 * in the manner of git's prio-queue.h: put, get, peek, replace.
 *
 * An entry is ordered by (key, tie, insertion): two 64-bit keys compared
 * in turn, then the order of the put() calls, so entries with equal keys
 * come out first in, first out and the order is total (the same input
 * always gives the same output, whatever the heap's shape).  The keys
 * live in the heap array itself, not behind a pointer or a comparison
 * callback: a sift touches only the array, which is what makes a heap
 * of thousands of entries cheap per operation.  The payload is a
 * caller's number (an index into the caller's own table).
 *
 *     struct wc_prioq *q = NULL;
 *     struct wc_prioq_entry e;
 *
 *     if (wc_prioq_open(&q, 16, &err) < 0)   // capacity hint; grows
 *             goto fail;
 *     wc_prioq_put(q, time, 0, slot, &err);
 *     while (wc_prioq_get(q, &e))            // smallest first
 *             use(e.item);
 *     wc_prioq_free(q);
 *
 * What always holds:
 *  - wc_prioq_get() and _peek() return 0 on an empty queue, else 1 and
 *    the smallest entry; get removes it, peek does not;
 *  - wc_prioq_replace() is get then put in one sift (the next smallest
 *    of one stream replacing the one just taken, as a k-way merge does):
 *    the new entry counts as put last; on an empty queue it is put();
 *  - put() and replace() fail (-1, err filled: "out of memory") only when
 *    the heap must grow and cannot; the heap is then unchanged;
 *  - memory is the most entries ever held at once, never freed before
 *    wc_prioq_free(); wc_prioq_free(NULL) is fine.
 */
#ifndef WC_PRIOQ_H
#define WC_PRIOQ_H

#include <stddef.h>
#include <stdint.h>

#include "base/wcerr.h"

struct wc_prioq_entry {
	uint64_t key;
	uint64_t tie;         /* compared when the keys are equal */
	uint64_t ctr;         /* insertion order, set by put() */
	size_t item;          /* the caller's */
};

struct wc_prioq;

int wc_prioq_open(struct wc_prioq **out, size_t hint, struct wc_err *err);
int wc_prioq_put(struct wc_prioq *q, uint64_t key, uint64_t tie, size_t item,
		 struct wc_err *err);
int wc_prioq_get(struct wc_prioq *q, struct wc_prioq_entry *out);
int wc_prioq_peek(const struct wc_prioq *q, struct wc_prioq_entry *out);
int wc_prioq_replace(struct wc_prioq *q, uint64_t key, uint64_t tie,
		     size_t item, struct wc_err *err);
size_t wc_prioq_count(const struct wc_prioq *q);
void wc_prioq_free(struct wc_prioq *q);

#endif /* WC_PRIOQ_H */
