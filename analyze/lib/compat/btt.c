/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compat/btt.h"
#include "compat/btt_test.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/devtab.h"
#include "base/hot.h"
#include "compat/btt_list.h"
#include "compat/btt_tree.h"

/*
 * btt's figures: its devices, their Qs, Ds and Cs, Q2C and D2C.  A
 * device keeps its Qs in btt's red-black tree (btt_tree.h), or, while
 * they are disjoint, in a list with a record of the tree's changes
 * (btt_list.h): when, and why the figures are the same, below.  The
 * tree's nodes come from the pool here.
 */

/* A kept Q and its age when the device's oldest were listed: still the
 * same Q while its age is unchanged. */
struct aged {
	uint64_t age;
	struct kept_q *q;
};

/*
 * btt's walk misses a kept Q only behind another that overlaps it: a node
 * it stands on that ends at or past the walk's end while the Q lies in its
 * right subtree, so starts after the node and ends before the node's end.
 * While the Qs kept on a device are disjoint (each a sector long at
 * least, none past the last sector number), every walk finds exactly the
 * Qs inside its range whatever the tree's shape: the device then keeps
 * them as a list in start order, and records only what shapes the tree,
 * each Q added, each replaced (with its new end) and each C that ended
 * some.  The tree itself stays as it was when the list began (the
 * LIST_MIN-th Q kept), untouched.  A Q that would overlap another, or a
 * list or record too long, brings the tree up to date: the record
 * replayed on it gives btt's tree exactly, and the device keeps the tree
 * until it is empty again.  A list that empties leaves nothing to shape:
 * the old tree goes, and the device starts again with an empty one.
 */
#define LIST_MAX 256      /* Qs listed at most */
#define CHANGES_MAX 4096  /* changes recorded at most */
/* A device's first lists record at most this many, twice as many after
 * each list that ended empty, up to CHANGES_MAX: a device whose C was
 * lost, so that its list never ends, replays a short record once. */
#define CHANGES_FIRST 1024
/* A device with fewer Qs in flight (a queue of one or two, as when each
 * request is one bio) keeps the tree: its walks see a node or two, which
 * costs less than the list and its record. */
#define LIST_MIN 16

struct bdev {
	uint32_t device;
	/* UNSEEN until its first Q (btt ignores a device until then), then
	 * the tree, or the list while the tree's shape cannot matter. */
	enum { UNSEEN, TREE, LISTED } mode;
	struct btt_tree tree;
	size_t n;                /* Qs kept, in the tree or the list */
	/* Only past WC_BTT_MAX_KEPT: the Qs kept when the cap was last
	 * reached, oldest first, and the next one to look at. */
	struct aged *oldest;
	size_t noldest, next_oldest;
	/* While LISTED, the n kept Qs are in list, and its record says
	 * how the tree would have been shaped (below). */
	bool keep_tree;          /* no list until the tree is empty */
	size_t nbase;            /* Qs in the tree when the record began */
	struct btt_list list;
	size_t changes_max;
};

/* Nodes come from blocks of this many, so that the Qs of one request,
 * queued one after the other, mostly lie next to each other. */
#define BLOCK_NODES 256

struct wc_btt {
	/* At most WC_MAX_DEVICES, by their number in devtab. */
	struct bdev devs[WC_MAX_DEVICES];
	struct wc_devtab devtab;
	struct bdev *last_dev;   /* traces mostly stay on one device */
	uint64_t ignored;        /* events on devices past the cap */
	struct wc_btt_stat q2c, d2c;
	uint64_t dropped;
	uint64_t replaced;
	uint64_t next_age;
	/* Erased nodes wait here for the next Q (linked by parent): never
	 * more than the most Qs ever kept at once, in blocks. */
	struct kept_q *pool;
	struct kept_q **blocks;
	size_t nblocks;
	struct kept_q **found;   /* scratch for one walk: room for cfound */
	size_t cfound;
	bool listing;            /* false: every device keeps its tree */
	bool failed;
	struct wc_err err;
};

static const uint64_t NO_D = UINT64_MAX;

static int oom(struct wc_btt *b, struct wc_err *err)
{
	b->failed = true;
	wc_err_oom(&b->err, NULL, NULL);
	return wc_err_oom(err, NULL, NULL);
}

WC_HOT
struct bdev *find_dev(struct wc_btt *b, uint32_t device)
{
	int i;

	if (b->last_dev && b->last_dev->device == device)
		return b->last_dev;
	i = wc_devtab_find(&b->devtab, device);
	if (i < 0)
		return NULL;
	return b->last_dev = &b->devs[i];
}

/* NULL past WC_MAX_DEVICES.  Once a device: out of the per-event path. */
static __attribute__((noinline, cold))
struct bdev *add_dev(struct wc_btt *b, uint32_t device)
{
	int i = wc_devtab_add(&b->devtab, device);
	struct bdev *d;

	if (i < 0)
		return NULL;
	d = &b->devs[i];
	memset(d, 0, sizeof(*d));
	d->device = device;
	/* Not listed before its tree was once empty: a device whose C was
	 * lost from the start would never end a list, only replay it. */
	d->keep_tree = true;
	d->changes_max = CHANGES_FIRST;
	return d;
}

/* ---- the pool ----------------------------------------------------------- */

/* A new block into the pool, when the pool is empty: as many times as
 * the most Qs kept at once needs. */
static __attribute__((noinline, cold)) int pool_grow(struct wc_btt *b)
{
	struct kept_q **bl = realloc(b->blocks,
				     (b->nblocks + 1) * sizeof(*bl));
	struct kept_q *q;
	size_t i;

	if (!bl)
		return -1;
	b->blocks = bl;
	q = aligned_alloc(64, BLOCK_NODES * sizeof(*q));
	if (!q)
		return -1;
	b->blocks[b->nblocks++] = q;
	/* Handed out in address order. */
	for (i = BLOCK_NODES; i-- > 0;) {
		q[i].parent = b->pool;
		q[i].age = 0;
		b->pool = &q[i];
	}
	return 0;
}

static struct kept_q *pool_get(struct wc_btt *b)
{
	struct kept_q *q = b->pool;

	if (!q) {
		if (pool_grow(b) < 0)
			return NULL;
		q = b->pool;
	}
	b->pool = q->parent;
	return q;
}

static void pool_put(struct wc_btt *b, struct kept_q *q)
{
	q->age = 0;
	q->parent = b->pool;
	b->pool = q;
}

/* ---- btt's events ------------------------------------------------------ */

static uint64_t tdelta(uint64_t from, uint64_t to)
{
	return from < to ? to - from : 1;
}

static void stat_add(struct wc_btt_stat *s, uint64_t v)
{
	if (s->n == 0 || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->n++;
	s->total += v;
}

/* The differences one C ended on a list (their number, least, greatest
 * and sum), into the figures at once. */
struct deltas {
	uint64_t n, min, max, sum;
};

static void deltas_add(struct deltas *x, uint64_t v)
{
	x->n++;
	x->min = v < x->min ? v : x->min;
	x->max = v > x->max ? v : x->max;
	x->sum += v;
}

static void stat_add_deltas(struct wc_btt_stat *s, const struct deltas *x)
{
	if (!x->n)
		return;
	if (s->n == 0 || x->min < s->min)
		s->min = x->min;
	if (x->max > s->max)
		s->max = x->max;
	s->n += x->n;
	s->total += x->sum;
}

static int by_age(const void *a, const void *b)
{
	uint64_t x = ((const struct aged *)a)->age;
	uint64_t y = ((const struct aged *)b)->age;

	return (x > y) - (x < y);
}

/* Lists the device's kept Qs oldest first in d->oldest.  Once per
 * WC_BTT_MAX_KEPT Qs forgotten or ended at most: every entry of the
 * last list was forgotten, or ended or replaced since. */
static __attribute__((noinline, cold)) int list_oldest(struct bdev *d)
{
	struct kept_q *stack[WALK_DEPTH], *n = d->tree.root;
	size_t top = 0, k = 0;
	struct aged *a = realloc(d->oldest, d->n * sizeof(*a));

	if (!a)
		return -1;
	d->oldest = a;
	while (n || top) {
		if (!n)
			n = stack[--top];
		a[k].age = n->age;
		a[k++].q = n;
		if (n->child[RIGHT])
			stack[top++] = n->child[RIGHT];
		n = n->child[LEFT];
	}
	qsort(a, k, sizeof(*a), by_age);
	d->noldest = k;
	d->next_oldest = 0;
	return 0;
}

/* Forgets the device's oldest kept Q.  Only lost completions (or a queue
 * longer than WC_BTT_MAX_KEPT) fill the tree this far; btt would keep
 * them forever.  The oldest is the first of the last list still kept
 * with its age (a Q queued since is younger than all of them), or else
 * the first of a new list. */
static int forget_oldest(struct wc_btt *b, struct bdev *d)
{
	for (;;) {
		while (d->next_oldest < d->noldest) {
			struct aged *a = &d->oldest[d->next_oldest++];

			if (a->q->age == a->age) {
				tree_erase(&d->tree, &d->n, a->q);
				pool_put(b, a->q);
				b->dropped++;
				return 0;
			}
		}
		if (list_oldest(d) < 0)
			return -1;
	}
}

/* Room in b->found for every Q kept on a device of n. */
static __attribute__((noinline, cold)) int grow_found(struct wc_btt *b,
						       size_t n)
{
	size_t c = b->cfound ? b->cfound : 64;
	struct kept_q **f;

	while (c < n)
		c *= 2;
	f = realloc(b->found, c * sizeof(*f));
	if (!f)
		return -1;
	b->found = f;
	b->cfound = c;
	return 0;
}

/* Ends, as btt's C does, the kept Qs a walk of d's tree over [s, e)
 * finds, in its order; into the figures with the C's time c when
 * figured (not when a record is replayed). */
WC_HOT
int tree_end(struct wc_btt *b, struct bdev *d, uint64_t s, uint64_t e,
	     uint64_t c, bool figured)
{
	size_t i, n;

	if (b->cfound < d->n && grow_found(b, d->n) < 0)
		return -1;
	n = tree_walk(b->found, d->tree.root, s, e, true, 0);
	/* Erased in the walk's order, as btt releases its list. */
	for (i = 0; i < n; i++) {
		struct kept_q *q = b->found[i];

		if (figured) {
			stat_add(&b->q2c, tdelta(q->q_time, c));
			if (q->d_time != NO_D)
				stat_add(&b->d2c, tdelta(q->d_time, c));
		}
		tree_erase(&d->tree, &d->n, q);
		pool_put(b, q);
	}
	return 0;
}

/* The listed Qs become btt's tree: the record replayed on the tree as
 * the list found it, then each node given its listed Q's times and age
 * (the same starts, in the same order). */
static __attribute__((noinline, cold)) int list_to_tree(struct wc_btt *b,
							 struct bdev *d)
{
	struct kept_q *stack[WALK_DEPTH], *n, *parent, **link;
	size_t k, top = 0;

	d->n = d->nbase;
	for (k = 0; k < d->list.nchanges; k++) {
		const struct change *c = &d->list.changes[k];

		if (c->kind == ENDED) {
			if (tree_end(b, d, c->s, c->s + c->len, 0, false) < 0)
				return -1;
			continue;
		}
		n = tree_place(&d->tree, c->s, &parent, &link);
		if (c->kind == REPLACED) {
			n->end = c->s + c->len;
			continue;
		}
		n = pool_get(b);
		if (!n)
			return -1;
		n->start = c->s;
		n->end = c->s + c->len;
		tree_link(&d->tree, &d->n, n, parent, link);
	}
	/* In order of start, as the list. */
	k = 0;
	n = d->tree.root;
	while (n || top) {
		if (n) {
			stack[top++] = n;
			n = n->child[LEFT];
			continue;
		}
		n = stack[--top];
		n->q_time = listed(&d->list, d->n, k)->q_time;
		n->d_time = listed(&d->list, d->n, k)->d_time;
		n->age = listed(&d->list, d->n, k)->age;
		k++;
		n = n->child[RIGHT];
	}
	/* The list is empty, its Qs in the tree. */
	d->list.gap = 0;
	d->list.nchanges = 0;
	d->mode = TREE;
	d->keep_tree = true;
	return 0;
}

/* The tree's Qs, from the LIST_MIN-th on, become the list, when they are
 * disjoint (else the tree stays until it is empty); not when out of
 * memory either: the tree then goes on as it would anyway. */
static __attribute__((noinline, cold)) void tree_to_list(struct bdev *d)
{
	struct kept_q *stack[WALK_DEPTH], *n = d->tree.root;
	size_t top = 0, k = 0;

	d->keep_tree = true;
	if (!d->list.q) {
		d->list.q = malloc(LIST_MAX * sizeof(*d->list.q));
		if (!d->list.q)
			return;
		d->list.cap = LIST_MAX;
	}
	while (n || top) {
		if (n) {
			stack[top++] = n;
			n = n->child[LEFT];
			continue;
		}
		n = stack[--top];
		if (n->end <= n->start ||
		    (k > 0 && n->start < d->list.q[k - 1].end))
			return;
		d->list.q[k].start = n->start;
		d->list.q[k].end = n->end;
		d->list.q[k].q_time = n->q_time;
		d->list.q[k].d_time = n->d_time;
		d->list.q[k].age = n->age;
		k++;
		n = n->child[RIGHT];
	}
	d->list.gap = k;
	d->nbase = k;
	d->list.nchanges = 0;
	d->mode = LISTED;
	d->keep_tree = false;
}

/* The tree a list began with, when the list empties: its nodes back to
 * the pool. */
static __attribute__((noinline, cold)) void base_free(struct wc_btt *b,
						      struct bdev *d)
{
	struct kept_q *stack[WALK_DEPTH], *n;
	size_t top = 0;

	if (d->tree.root)
		stack[top++] = d->tree.root;
	while (top) {
		n = stack[--top];
		if (n->child[LEFT])
			stack[top++] = n->child[LEFT];
		if (n->child[RIGHT])
			stack[top++] = n->child[RIGHT];
		pool_put(b, n);
	}
	d->tree.root = d->tree.max = NULL;
}

/* A Q, a D and a C each do their own work on the device's tree or list,
 * each in a function of its own: the dispatch every Q, D and C goes
 * through stays the device's lookup and a test of the event's kind. */
static __attribute__((noinline))
int tree_queue(struct wc_btt *b, struct bdev *d, const struct wc_event *ev,
	       struct wc_err *err)
{
	struct kept_q *parent, **link, *q;
	uint64_t s = ev->sector;

	d->mode = TREE;
	q = tree_place(&d->tree, s, &parent, &link);
	if (q) {
		/* btt 2.09 lets the newer Q take the older one's place:
		 * the older one's C was lost. */
		q->end = s + (ev->bytes >> 9);
		q->q_time = ev->time;
		q->d_time = NO_D;
		q->age = ++b->next_age;
		b->replaced++;
		return 0;
	}
	q = pool_get(b);
	if (!q)
		return oom(b, err);
	q->start = s;
	q->end = s + (ev->bytes >> 9);
	q->q_time = ev->time;
	q->d_time = NO_D;
	q->age = ++b->next_age;
	tree_link(&d->tree, &d->n, q, parent, link);
	/* Only a new Q grows the tree; one taking a place does not. */
	if (d->n > WC_BTT_MAX_KEPT && forget_oldest(b, d) < 0)
		return oom(b, err);
	if (d->n == LIST_MIN && b->listing && !d->keep_tree)
		tree_to_list(d);
	return 0;
}

static __attribute__((noinline))
int list_queue_any(struct wc_btt *b, struct bdev *d, const struct wc_event *ev,
		   struct wc_err *err)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9);
	size_t n = d->n, g = d->list.gap, i;
	struct listed_q *q, *next;

	/* Less than a sector, or past the last: a walk could miss it. */
	if (e <= s || d->list.nchanges == d->changes_max)
		goto tree;
	if ((g == 0 || d->list.q[g - 1].start < s) &&
	    (g == n || s < d->list.q[g + (d->list.cap - n)].start)) {
		/* In the hole, after the last Q that came. */
		i = g;
	} else {
		i = list_find(&d->list, d->n, s);
		q = listed(&d->list, d->n, i);
		if (i < n && q->start == s) {
			if (i + 1 < n && e > listed(&d->list, d->n, i + 1)->start)
				goto tree;
			if (d->list.nchanges == d->list.cchanges &&
			    btt_list_grow(&d->list, d->n, false) < 0)
				return oom(b, err);
			q->end = e;
			q->q_time = ev->time;
			q->d_time = NO_D;
			q->age = ++b->next_age;
			b->replaced++;
			record(&d->list, REPLACED, s, ev->bytes >> 9);
			return 0;
		}
	}
	if ((i > 0 && listed(&d->list, d->n, i - 1)->end > s) ||
	    (i < n && e > listed(&d->list, d->n, i)->start) || n == LIST_MAX)
		goto tree;
	if ((n == d->list.cap || d->list.nchanges == d->list.cchanges) &&
	    btt_list_grow(&d->list, d->n, true) < 0)
		return oom(b, err);
	list_move_gap(&d->list, d->n, i);
	next = &d->list.q[d->list.gap++];
	next->start = s;
	next->end = e;
	next->q_time = ev->time;
	next->d_time = NO_D;
	next->age = ++b->next_age;
	d->n++;
	record(&d->list, ADDED, s, ev->bytes >> 9);
	return 0;
tree:
	if (list_to_tree(b, d) < 0)
		return oom(b, err);
	return tree_queue(b, d, ev, err);
}

/* list_queue_any() for the Q most are, a request's next bio: into the
 * hole, after the last Q that came, with room for it and its record
 * already made, touching neither neighbour. */
static __attribute__((noinline))
int list_queue(struct wc_btt *b, struct bdev *d, const struct wc_event *ev,
	       struct wc_err *err)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9);
	size_t g = d->list.gap, hole = d->list.cap - d->n;
	struct listed_q *next;

	if (e <= s || d->list.nchanges == d->list.cchanges || hole == 0 ||
	    (g > 0 && d->list.q[g - 1].end > s) ||
	    (g < d->n && e > d->list.q[g + hole].start))
		return list_queue_any(b, d, ev, err);
	next = &d->list.q[g];
	next->start = s;
	next->end = e;
	next->q_time = ev->time;
	next->d_time = NO_D;
	next->age = ++b->next_age;
	d->list.gap = g + 1;
	d->n++;
	record(&d->list, ADDED, s, ev->bytes >> 9);
	return 0;
}

static __attribute__((noinline))
int tree_issue(struct wc_btt *b, struct bdev *d, const struct wc_event *ev)
{
	tree_walk(b->found, d->tree.root, ev->sector,
		  ev->sector + (ev->bytes >> 9), false, ev->time);
	return 0;
}

static __attribute__((noinline))
int list_issue(struct bdev *d, const struct wc_event *ev)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9);
	struct listed_q *after = d->list.q + (d->list.cap - d->n);
	size_t i, j;

	/* Disjoint and in start order, so in end order too: the Qs inside
	 * are the ones from the first starting at s or after, up to the
	 * first ending past e. */
	i = list_find(&d->list, d->n, s);
	j = list_ends_after(&d->list, d->n, i, e);
	for (; i < j && i < d->list.gap; i++)
		d->list.q[i].d_time = ev->time;
	for (; i < j; i++)
		after[i].d_time = ev->time;
	return 0;
}

static __attribute__((noinline))
int tree_complete(struct wc_btt *b, struct bdev *d, const struct wc_event *ev,
		  struct wc_err *err)
{
	if (tree_end(b, d, ev->sector, ev->sector + (ev->bytes >> 9),
		     ev->time, true) < 0)
		return oom(b, err);
	/* Empty, the tree has no shape left to keep. */
	if (d->n == 0)
		d->keep_tree = false;
	return 0;
}

static __attribute__((noinline))
int list_complete(struct wc_btt *b, struct bdev *d, const struct wc_event *ev,
		  struct wc_err *err)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9), c = ev->time;
	struct deltas q2c = { 0, UINT64_MAX, 0, 0 }, d2c = q2c;
	const struct listed_q *span;
	size_t i, j, k;

	/* The Qs inside, as for a D. */
	i = list_find(&d->list, d->n, s);
	j = list_ends_after(&d->list, d->n, i, e);
	if (j == i)
		return 0;
	if (d->list.nchanges == d->changes_max) {
		if (list_to_tree(b, d) < 0)
			return oom(b, err);
		return tree_complete(b, d, ev, err);
	}
	/* Into the hole, which moves next to them: they lie in one span,
	 * just before it or just after. */
	if (d->list.gap > j) {
		list_move_gap(&d->list, d->n, j);
		span = d->list.q + i;
	} else {
		list_move_gap(&d->list, d->n, i);
		span = d->list.q + i + (d->list.cap - d->n);
	}
	for (k = 0; k < j - i; k++) {
		deltas_add(&q2c, tdelta(span[k].q_time, c));
		if (span[k].d_time != NO_D)
			deltas_add(&d2c, tdelta(span[k].d_time, c));
	}
	stat_add_deltas(&b->q2c, &q2c);
	stat_add_deltas(&b->d2c, &d2c);
	d->list.gap = i;
	d->n -= j - i;
	/* An empty list is an empty tree. */
	if (d->n == 0) {
		base_free(b, d);
		d->list.gap = 0;
		d->list.nchanges = 0;
		d->mode = TREE;
		if (d->changes_max < CHANGES_MAX)
			d->changes_max *= 2;
	} else if (d->list.nchanges < d->list.cchanges ||
		   btt_list_grow(&d->list, d->n, false) == 0)
		record(&d->list, ENDED, s, ev->bytes >> 9);
	else
		return oom(b, err);
	return 0;
}

int wc_btt_failed(const struct wc_btt *b)
{
	return b->failed ? -1 : 0;
}

/* The dispatch of one wanted event to its device's Q, D or C. */
WC_HOT
int add_one(struct wc_btt *b, const struct wc_event *ev, struct wc_err *err)
{
	struct bdev *d;
	unsigned what;

	what = wc_event_what(ev);
	d = find_dev(b, ev->device);
	if (!d) {
		if (what != WC_TA_QUEUE)
			return 0;
		d = add_dev(b, ev->device);
		if (!d) {
			b->ignored++;
			return 0;
		}
	}
	if (what == WC_TA_QUEUE)
		return d->mode == LISTED ? list_queue(b, d, ev, err) :
					   tree_queue(b, d, ev, err);
	if (d->mode == TREE)
		return what == WC_TA_ISSUE ? tree_issue(b, d, ev) :
					     tree_complete(b, d, ev, err);
	if (d->mode == LISTED)
		return what == WC_TA_ISSUE ? list_issue(d, ev) :
					     list_complete(b, d, ev, err);
	return 0;
}

int wc_btt_add_wanted(struct wc_btt *b, const struct wc_event *ev,
		      struct wc_err *err)
{
	if (b->failed)
		return -1;
	return add_one(b, ev, err);
}

int wc_btt_add_batch(struct wc_btt *b, const struct wc_event *evs, size_t n)
{
	const struct wc_event *ev, *end = evs + n;

	if (b->failed)
		return -1;
	for (ev = evs; ev < end; ev++)
		if (wc_btt_wants(ev) && add_one(b, ev, NULL) < 0)
			return -1;
	return 0;
}

int wc_btt_status(const struct wc_btt *b, struct wc_err *err)
{
	if (!b->failed)
		return 0;
	if (err && err->kind == WC_ERR_NONE)
		*err = b->err;
	return -1;
}

static int btt_open(struct wc_btt **out, bool listing, struct wc_err *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return wc_err_oom(err, NULL, NULL);
	wc_err_clear(&(*out)->err);
	wc_devtab_init(&(*out)->devtab, WC_MAX_DEVICES);
	(*out)->listing = listing;
	return 0;
}

int wc_btt_open(struct wc_btt **out, struct wc_err *err)
{
	return btt_open(out, true, err);
}

int wc_btt_open_tree(struct wc_btt **out, struct wc_err *err)
{
	return btt_open(out, false, err);
}

const struct wc_btt_stat *wc_btt_q2c(const struct wc_btt *b)
{
	return &b->q2c;
}

const struct wc_btt_stat *wc_btt_d2c(const struct wc_btt *b)
{
	return &b->d2c;
}

uint64_t wc_btt_dropped(const struct wc_btt *b)
{
	return b->dropped;
}

uint64_t wc_btt_ignored(const struct wc_btt *b)
{
	return b->ignored;
}

uint64_t wc_btt_kept(const struct wc_btt *b)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < wc_devtab_count(&b->devtab); i++)
		n += b->devs[i].n;
	return n;
}

size_t wc_btt_list_room(const struct wc_btt *b)
{
	size_t i, room = 0;

	for (i = 0; i < wc_devtab_count(&b->devtab); i++)
		if (b->devs[i].list.cap > room)
			room = b->devs[i].list.cap;
	return room;
}

double wc_btt_mean_s(const struct wc_btt_stat *s)
{
	return s->n ? s->total / (double)s->n / 1e9 : 0.0;
}

void wc_btt_free(struct wc_btt *b)
{
	size_t i;

	if (!b)
		return;
	/* Every node, kept or in the pool, lies in one of the blocks. */
	for (i = 0; i < b->nblocks; i++)
		free(b->blocks[i]);
	for (i = 0; i < wc_devtab_count(&b->devtab); i++) {
		free(b->devs[i].oldest);
		free(b->devs[i].list.q);
		free(b->devs[i].list.changes);
	}
	free(b->blocks);
	free(b->found);
	free(b);
}
