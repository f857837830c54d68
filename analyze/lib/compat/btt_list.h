/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt_list.h - the Qs kept on one device while they are disjoint, as a
 * list in start order, and the record of what would have shaped btt's
 * tree meanwhile; for btt.c only (behind btt.h, which says when a device
 * lists its Qs and why the figures are the same).
 *
 * The n Qs listed are in q[], in start order, but for a hole of cap - n
 * slots at gap, where the last Q went in: the next, a request's next
 * bio, mostly goes there, and a C's Qs are taken out by moving the hole
 * next to them.  The list does not count its Qs: its owner does, and
 * passes the count n to every function that needs it.
 *
 *     size_t i = list_find(ls, n, s);          // first starting at s or after
 *     size_t j = list_ends_after(ls, n, i, e); // first from i ending past e
 *     // listed(ls, n, i) .. listed(ls, n, j - 1) lie inside [s, e)
 *     list_move_gap(ls, n, i);                 // the hole before number i
 *     ls->q[ls->gap++] = (the new Q), n++;     // a Q into the hole
 *     record(ls, ADDED, s, len);               // and what it did to the tree
 *
 * What always holds: the Qs listed are disjoint and each a sector long
 * at least, so in start order they are in end order too; a function
 * that adds to the list or the record is called only with room for it
 * (btt_list_grow() makes it: cap > n, cchanges > nchanges).
 *
 * Who frees what: q and changes are malloc'd, by btt_list_grow() or the
 * owner, and freed by the owner with free() (NULL while never made).
 *
 * The functions on the per-event path are inline here (base/hot.h);
 * growing the arrays, rare, is in btt_list.c.
 */
#ifndef WC_BTT_LIST_H
#define WC_BTT_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/hot.h"

struct listed_q {
	uint64_t start, end;
	uint64_t q_time, d_time;
	uint64_t age;
};

enum change_kind { ADDED, REPLACED, ENDED };

/* Added or replaced: the Q's start and length; ended: the C's. */
struct change {
	uint64_t s;
	uint32_t len;
	uint32_t kind;
};

/* One device's list and record. */
struct btt_list {
	struct listed_q *q;     /* cap slots: the n Qs listed and the hole */
	size_t cap, gap;
	struct change *changes; /* cchanges slots, nchanges used */
	size_t nchanges, cchanges;
};

/* The first of n listed Qs starting at s or after it (n when none): a
 * search whose steps are worked out, not branched on. */
WC_HOT
size_t lower_bound(const struct listed_q *a, size_t n, uint64_t s)
{
	const struct listed_q *base = a;

	if (n == 0)
		return 0;
	while (n > 1) {
		size_t half = n / 2;

		base = base[half].start < s ? base + half : base;
		n -= half;
	}
	return (size_t)(base - a) + (base->start < s);
}

/* The listed Q number i (in start order). */
WC_HOT
struct listed_q *listed(const struct btt_list *ls, size_t n, size_t i)
{
	return &ls->q[i < ls->gap ? i : i + (ls->cap - n)];
}

/* The number of the first listed Q starting at s or after it. */
WC_HOT
size_t list_find(const struct btt_list *ls, size_t n, uint64_t s)
{
	size_t g = ls->gap;

	if (g > 0 && ls->q[g - 1].start >= s)
		return lower_bound(ls->q, g, s);
	return g + lower_bound(ls->q + g + (ls->cap - n), n - g, s);
}

/* The number of the first listed Q from number i on that ends past e
 * (n when none): in the list's two parts, before the hole and after. */
WC_HOT
size_t list_ends_after(const struct btt_list *ls, size_t n, size_t i,
		       uint64_t e)
{
	const struct listed_q *after = ls->q + (ls->cap - n);

	for (; i < ls->gap && ls->q[i].end <= e; i++)
		;
	if (i >= ls->gap)
		for (; i < n && after[i].end <= e; i++)
			;
	return i;
}

/* Moves the hole to before listed Q number i. */
WC_HOT
void list_move_gap(struct btt_list *ls, size_t n, size_t i)
{
	size_t hole = ls->cap - n;

	if (i < ls->gap)
		memmove(ls->q + i + hole, ls->q + i,
			(ls->gap - i) * sizeof(*ls->q));
	else if (i > ls->gap)
		memmove(ls->q + ls->gap, ls->q + ls->gap + hole,
			(i - ls->gap) * sizeof(*ls->q));
	ls->gap = i;
}

WC_HOT
void record(struct btt_list *ls, enum change_kind kind, uint64_t s,
	    uint32_t len)
{
	struct change *c = &ls->changes[ls->nchanges++];

	c->s = s;
	c->len = len;
	c->kind = kind;
}

/* Room for one more change and, when a Q is to be added (q), one more
 * listed Q (the caps tested before).  A change that adds no Q (a Q
 * replaced, a C) must not grow the list: the hole's room is what lets
 * the short path (btt.c's list_queue()) add Qs, so a list grown past
 * LIST_MAX would stay past it.  -1 when out of memory (the list and the
 * record as they were), else 0. */
__attribute__((noinline, cold))
int btt_list_grow(struct btt_list *ls, size_t n, bool q);

#endif /* WC_BTT_LIST_H */
