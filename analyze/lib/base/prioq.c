/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/prioq.h"

#include <stdlib.h>

struct wc_prioq {
	struct wc_prioq_entry *a;
	size_t n, cap;
	uint64_t ctr;
};

static inline int before(const struct wc_prioq_entry *x,
			 const struct wc_prioq_entry *y)
{
	if (x->key != y->key)
		return x->key < y->key;
	if (x->tie != y->tie)
		return x->tie < y->tie;
	return x->ctr < y->ctr;
}

/* Moves the hole at i up until e fits there, then puts e in it. */
static void sift_up(struct wc_prioq *q, size_t i, const struct wc_prioq_entry *e)
{
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(e, &q->a[parent]))
			break;
		q->a[i] = q->a[parent];
		i = parent;
	}
	q->a[i] = *e;
}

/* Moves the hole at i down until e fits there, then puts e in it. */
static void sift_down(struct wc_prioq *q, size_t i, const struct wc_prioq_entry *e)
{
	size_t n = q->n;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(&q->a[c + 1], &q->a[c]))
			c++;
		if (!before(&q->a[c], e))
			break;
		q->a[i] = q->a[c];
		i = c;
	}
	q->a[i] = *e;
}

static int grow(struct wc_prioq *q, struct wc_err *err)
{
	size_t cap = q->cap ? 2 * q->cap : 16;
	struct wc_prioq_entry *a;

	if (cap > SIZE_MAX / sizeof(*a))
		goto fail;
	a = realloc(q->a, cap * sizeof(*a));
	if (!a)
		goto fail;
	q->a = a;
	q->cap = cap;
	return 0;

fail:
	return wc_err_oom(err, NULL, NULL);
}

int wc_prioq_open(struct wc_prioq **out, size_t hint, struct wc_err *err)
{
	struct wc_prioq *q;

	*out = NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		goto fail;
	if (hint) {
		q->a = calloc(hint, sizeof(*q->a));
		if (!q->a)
			goto fail_free;
		q->cap = hint;
	}
	*out = q;
	return 0;

fail_free:
	free(q);
fail:
	return wc_err_oom(err, NULL, NULL);
}

int wc_prioq_put(struct wc_prioq *q, uint64_t key, uint64_t tie, size_t item,
		 struct wc_err *err)
{
	struct wc_prioq_entry e = { key, tie, 0, item };

	if (q->n == q->cap && grow(q, err) < 0)
		return -1;
	e.ctr = q->ctr++;
	q->n++;
	sift_up(q, q->n - 1, &e);
	return 0;
}

int wc_prioq_peek(const struct wc_prioq *q, struct wc_prioq_entry *out)
{
	if (q->n == 0)
		return 0;
	*out = q->a[0];
	return 1;
}

int wc_prioq_get(struct wc_prioq *q, struct wc_prioq_entry *out)
{
	if (q->n == 0)
		return 0;
	*out = q->a[0];
	q->n--;
	if (q->n > 0) {
		struct wc_prioq_entry last = q->a[q->n];

		sift_down(q, 0, &last);
	}
	return 1;
}

int wc_prioq_replace(struct wc_prioq *q, uint64_t key, uint64_t tie,
		     size_t item, struct wc_err *err)
{
	struct wc_prioq_entry e = { key, tie, 0, item };

	if (q->n == 0)
		return wc_prioq_put(q, key, tie, item, err);
	e.ctr = q->ctr++;
	sift_down(q, 0, &e);
	return 0;
}

size_t wc_prioq_count(const struct wc_prioq *q)
{
	return q->n;
}

void wc_prioq_free(struct wc_prioq *q)
{
	if (!q)
		return;
	free(q->a);
	free(q);
}
