/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compat/btt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/devtab.h"
#include "base/hot.h"

/*
 * btt keeps its pending Qs in a red-black tree keyed by start sector and
 * finds the ones inside a D or C with a walk that prunes by the node it
 * stands on: it can miss a Q hidden behind a larger overlapping one.  To
 * give btt's numbers in those cases too, this is the same tree with the
 * same classic insert and erase rebalancing (the kernel's lib/rbtree.c of
 * the time, which btt carries), walked and erased in the same order.
 *
 * A kept Q is one cache line: its links, its extent and times, and its
 * place in the Q order (age), which is all that forgetting the
 * oldest needs (forget_oldest()).
 */
enum { LEFT, RIGHT };

struct kept_q {
	struct kept_q *parent;
	struct kept_q *child[2];   /* LEFT: lower starts, RIGHT: higher */
	uint64_t start, end;       /* sectors, end exclusive */
	uint64_t q_time;
	uint64_t d_time;           /* NO_D until a D covers it */
	/* Order of the Qs kept, on every device (a Q taking another's
	 * place is new): 0 while the node is free.  63 bits: more Qs than
	 * a trace of a thousand years at ten million a second. */
	uint64_t age : 63;
	uint64_t red : 1;
};

_Static_assert(sizeof(struct kept_q) <= 64, "a kept Q fits a cache line");

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

struct bdev {
	uint32_t device;
	/* UNSEEN until its first Q (btt ignores a device until then), then
	 * the tree, or the list while the tree's shape cannot matter. */
	enum { UNSEEN, TREE, LISTED } mode;
	struct kept_q *root;
	struct kept_q *max;      /* the kept Q of the highest start, or NULL */
	size_t n;
	/* Only past WC_BTT_MAX_KEPT: the Qs kept when the cap was last
	 * reached, oldest first, and the next one to look at. */
	struct aged *oldest;
	size_t noldest, next_oldest;
	/* While LISTED, changes[] says how the tree would
	 * have been shaped (below), and the n kept Qs are in list[], in
	 * order, but for a hole of clist - n slots at gap, where the last Q
	 * went in: the next, a request's next bio, mostly goes there. */
	bool keep_tree;          /* no list until the tree is empty */
	size_t nbase;            /* Qs in the tree when the record began */
	struct listed_q *list;
	size_t clist, gap;
	struct change *changes;
	size_t nchanges, cchanges, changes_max;
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

/* ---- the red-black tree ------------------------------------------------ */

static bool is_red(const struct kept_q *n)
{
	return n && n->red;
}

/* Which child of its parent n is (LEFT for a NULL left child too, as
 * the rebalancing after an erase asks it of a missing node). */
static int side_of(const struct kept_q *parent, const struct kept_q *n)
{
	return parent->child[LEFT] == n ? LEFT : RIGHT;
}

static void replace_child(struct bdev *d, struct kept_q *parent,
			  struct kept_q *old, struct kept_q *new)
{
	if (!parent)
		d->root = new;
	else
		parent->child[side_of(parent, old)] = new;
}

/* node goes down on side dir, its child of the other side takes its
 * place: dir LEFT is the classic rotate_left, RIGHT rotate_right. */
WC_HOT void rotate(struct bdev *d, struct kept_q *node, int dir)
{
	struct kept_q *up = node->child[!dir], *parent = node->parent;

	node->child[!dir] = up->child[dir];
	if (node->child[!dir])
		node->child[!dir]->parent = node;
	up->child[dir] = node;
	up->parent = parent;
	replace_child(d, parent, node, up);
	node->parent = up;
}

WC_HOT void insert_color(struct bdev *d, struct kept_q *node)
{
	struct kept_q *parent, *gparent, *uncle, *tmp;

	while ((parent = node->parent) && parent->red) {
		/* side: where the parent hangs from the grandparent; the
		 * two mirrored cases of the classic code are one. */
		int side;

		gparent = parent->parent;
		side = side_of(gparent, parent);
		uncle = gparent->child[!side];
		if (is_red(uncle)) {
			uncle->red = false;
			parent->red = false;
			gparent->red = true;
			node = gparent;
			continue;
		}
		if (parent->child[!side] == node) {
			rotate(d, parent, side);
			tmp = parent;
			parent = node;
			node = tmp;
		}
		parent->red = false;
		gparent->red = true;
		rotate(d, gparent, !side);
	}
	d->root->red = false;
}

static void erase_color(struct bdev *d, struct kept_q *node,
			struct kept_q *parent)
{
	struct kept_q *other;

	while (!is_red(node) && node != d->root) {
		int side = side_of(parent, node);

		other = parent->child[!side];
		if (other->red) {
			other->red = false;
			parent->red = true;
			rotate(d, parent, side);
			other = parent->child[!side];
		}
		if (!is_red(other->child[LEFT]) && !is_red(other->child[RIGHT])) {
			other->red = true;
			node = parent;
			parent = node->parent;
		} else {
			if (!is_red(other->child[!side])) {
				other->child[side]->red = false;
				other->red = true;
				rotate(d, other, !side);
				other = parent->child[!side];
			}
			other->red = parent->red;
			parent->red = false;
			other->child[!side]->red = false;
			rotate(d, parent, side);
			node = d->root;
			break;
		}
	}
	if (node)
		node->red = false;
}

/* Once per kept Q a C ends, and per Q forgotten past the bound. */
WC_HOT
void tree_erase(struct bdev *d, struct kept_q *node)
{
	struct kept_q *child, *parent;
	bool red;

	/* The highest start goes: the next highest is the greatest of its
	 * left, or else its parent (it has no right, and is its parent's
	 * right or the root). */
	if (node == d->max) {
		if ((child = node->child[LEFT]) != NULL)
			while (child->child[RIGHT])
				child = child->child[RIGHT];
		else
			child = node->parent;
		d->max = child;
	}

	if (!node->child[LEFT]) {
		child = node->child[RIGHT];
	} else if (!node->child[RIGHT]) {
		child = node->child[LEFT];
	} else {
		/* Two children: the successor takes the node's place. */
		struct kept_q *old = node, *left;

		node = node->child[RIGHT];
		while ((left = node->child[LEFT]) != NULL)
			node = left;
		replace_child(d, old->parent, old, node);
		child = node->child[RIGHT];
		parent = node->parent;
		red = node->red;
		if (parent == old) {
			parent = node;
		} else {
			if (child)
				child->parent = parent;
			parent->child[LEFT] = child;
			node->child[RIGHT] = old->child[RIGHT];
			old->child[RIGHT]->parent = node;
		}
		node->parent = old->parent;
		node->red = old->red;
		node->child[LEFT] = old->child[LEFT];
		old->child[LEFT]->parent = node;
		goto color;
	}
	parent = node->parent;
	red = node->red;
	if (child)
		child->parent = parent;
	replace_child(d, parent, node, child);
color:
	if (!red)
		erase_color(d, child, parent);
	d->n--;
}

/*
 * btt's rb_foreach: the kept Qs inside [s, e) in its order (the node,
 * then its left subtree, then its right).  It goes left only while s is
 * left of the node's start and right only while the node ends before e,
 * so it is a range search: its cost is the tree's height plus the Qs
 * starting inside [s, e), never the number kept.  A stack instead of
 * recursion: a pending right subtree waits at most once per level, and a
 * red-black tree of WC_BTT_MAX_KEPT nodes is under 40 levels deep.
 *
 * A C collects what it finds (b->found, room for every kept Q made
 * beforehand), to end them in the walk's order as btt releases its list;
 * a D stamps its time on them where it finds them (collect false), the
 * same nodes visited, as btt's D sets d_time on each Q of its list.
 * Returns the number collected.
 */
#define WALK_DEPTH 128
_Static_assert(WC_BTT_MAX_KEPT < (1 << 30), "2 log2(kept + 1) must fit the walk's stack");

WC_HOT
size_t walk(struct wc_btt *b, struct kept_q *n, uint64_t s, uint64_t e,
	    bool collect, uint64_t d_time)
{
	struct kept_q *stack[WALK_DEPTH];
	size_t top = 0, nfound = 0;

	while (n) {
		uint64_t end = n->end;

		if (s <= n->start && end <= e) {
			if (collect)
				b->found[nfound++] = n;
			else
				n->d_time = d_time;
		}
		/* Node, left subtree, right subtree: a right child goes
		 * on the stack only while a left subtree comes first. */
		if (s < n->start && n->child[LEFT]) {
			if (end < e && n->child[RIGHT])
				stack[top++] = n->child[RIGHT];
			n = n->child[LEFT];
		} else if (end < e && n->child[RIGHT]) {
			n = n->child[RIGHT];
		} else {
			n = top ? stack[--top] : NULL;
		}
	}
	return nfound;
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
	struct kept_q *stack[WALK_DEPTH], *n = d->root;
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
				tree_erase(d, a->q);
				pool_put(b, a->q);
				b->dropped++;
				return 0;
			}
		}
		if (list_oldest(d) < 0)
			return -1;
	}
}

/* Where a Q starting at s goes in d's tree (*parent, *link), or the kept
 * Q that already starts there. */
WC_HOT
struct kept_q *tree_place(struct bdev *d, uint64_t s, struct kept_q **parent,
			  struct kept_q ***link)
{
	struct kept_q *le = NULL, *n;

	*parent = NULL;
	*link = &d->root;
	if (d->max && s > d->max->start) {
		/* Writeback queues a file's bios in ascending sectors: a Q
		 * mostly starts past every kept one, and then goes right of
		 * the highest, where the descent would end. */
		*parent = d->max;
		*link = &d->max->child[RIGHT];
		return NULL;
	}
	/* The classic descent, the side a level taken from one comparison
	 * rather than a guess at it: a Q of the same start is the last
	 * node it went right at (le, start <= s), as the keys are
	 * distinct. */
	{
		struct kept_q *p = NULL;
		int right = RIGHT;

		for (n = d->root; n; n = n->child[right]) {
			right = s >= n->start;
			p = n;
			le = right ? n : le;
		}
		if (p) {
			*parent = p;
			*link = &p->child[right];
		}
	}
	return le && le->start == s ? le : NULL;
}

/* Links q (start and end set) where tree_place() said. */
WC_HOT
void tree_link(struct bdev *d, struct kept_q *q, struct kept_q *parent,
	       struct kept_q **link)
{
	q->child[LEFT] = q->child[RIGHT] = NULL;
	q->parent = parent;
	q->red = true;
	*link = q;
	if (!d->max || q->start > d->max->start)
		d->max = q;
	d->n++;
	insert_color(d, q);
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
	n = walk(b, d->root, s, e, true, 0);
	/* Erased in the walk's order, as btt releases its list. */
	for (i = 0; i < n; i++) {
		struct kept_q *q = b->found[i];

		if (figured) {
			stat_add(&b->q2c, tdelta(q->q_time, c));
			if (q->d_time != NO_D)
				stat_add(&b->d2c, tdelta(q->d_time, c));
		}
		tree_erase(d, q);
		pool_put(b, q);
	}
	return 0;
}

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
struct listed_q *listed(const struct bdev *d, size_t i)
{
	return &d->list[i < d->gap ? i : i + (d->clist - d->n)];
}

/* The number of the first listed Q starting at s or after it. */
WC_HOT
size_t list_find(const struct bdev *d, uint64_t s)
{
	size_t g = d->gap;

	if (g > 0 && d->list[g - 1].start >= s)
		return lower_bound(d->list, g, s);
	return g + lower_bound(d->list + g + (d->clist - d->n), d->n - g, s);
}

/* The number of the first listed Q from number i on that ends past e
 * (d->n when none): in the list's two parts, before the hole and after. */
WC_HOT
size_t list_ends_after(const struct bdev *d, size_t i, uint64_t e)
{
	const struct listed_q *after = d->list + (d->clist - d->n);

	for (; i < d->gap && d->list[i].end <= e; i++)
		;
	if (i >= d->gap)
		for (; i < d->n && after[i].end <= e; i++)
			;
	return i;
}

/* Moves the hole to before listed Q number i. */
WC_HOT
void list_move_gap(struct bdev *d, size_t i)
{
	size_t hole = d->clist - d->n;

	if (i < d->gap)
		memmove(d->list + i + hole, d->list + i,
			(d->gap - i) * sizeof(*d->list));
	else if (i > d->gap)
		memmove(d->list + d->gap, d->list + d->gap + hole,
			(i - d->gap) * sizeof(*d->list));
	d->gap = i;
}

/* Room for one more change and, when a Q is to be added (q), one more
 * listed Q (the caps tested before).  A change that adds no Q (a Q
 * replaced, a C) must not grow the list: the hole's room is what lets
 * the short path (list_queue()) add Qs, so a list grown past LIST_MAX
 * would stay past it. */
static __attribute__((noinline, cold)) int list_grow(struct bdev *d, bool q)
{
	if (q && d->n == d->clist) {
		size_t c = d->clist ? 2 * d->clist : 32;
		struct listed_q *l = realloc(d->list, c * sizeof(*l));

		if (!l)
			return -1;
		/* The Qs after the hole go to the end. */
		memmove(l + d->gap + (c - d->n), l + d->gap,
			(d->n - d->gap) * sizeof(*l));
		d->list = l;
		d->clist = c;
	}
	if (d->nchanges == d->cchanges) {
		size_t c = d->cchanges ? 2 * d->cchanges : 64;
		struct change *ch = realloc(d->changes, c * sizeof(*ch));

		if (!ch)
			return -1;
		d->changes = ch;
		d->cchanges = c;
	}
	return 0;
}

WC_HOT
void record(struct bdev *d, enum change_kind kind, uint64_t s, uint32_t len)
{
	struct change *c = &d->changes[d->nchanges++];

	c->s = s;
	c->len = len;
	c->kind = kind;
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
	for (k = 0; k < d->nchanges; k++) {
		const struct change *c = &d->changes[k];

		if (c->kind == ENDED) {
			if (tree_end(b, d, c->s, c->s + c->len, 0, false) < 0)
				return -1;
			continue;
		}
		n = tree_place(d, c->s, &parent, &link);
		if (c->kind == REPLACED) {
			n->end = c->s + c->len;
			continue;
		}
		n = pool_get(b);
		if (!n)
			return -1;
		n->start = c->s;
		n->end = c->s + c->len;
		tree_link(d, n, parent, link);
	}
	/* In order of start, as the list. */
	k = 0;
	n = d->root;
	while (n || top) {
		if (n) {
			stack[top++] = n;
			n = n->child[LEFT];
			continue;
		}
		n = stack[--top];
		n->q_time = listed(d, k)->q_time;
		n->d_time = listed(d, k)->d_time;
		n->age = listed(d, k)->age;
		k++;
		n = n->child[RIGHT];
	}
	/* The list is empty, its Qs in the tree. */
	d->gap = 0;
	d->nchanges = 0;
	d->mode = TREE;
	d->keep_tree = true;
	return 0;
}

/* The tree's Qs, from the LIST_MIN-th on, become the list, when they are
 * disjoint (else the tree stays until it is empty); not when out of
 * memory either: the tree then goes on as it would anyway. */
static __attribute__((noinline, cold)) void tree_to_list(struct bdev *d)
{
	struct kept_q *stack[WALK_DEPTH], *n = d->root;
	size_t top = 0, k = 0;

	d->keep_tree = true;
	if (!d->list) {
		d->list = malloc(LIST_MAX * sizeof(*d->list));
		if (!d->list)
			return;
		d->clist = LIST_MAX;
	}
	while (n || top) {
		if (n) {
			stack[top++] = n;
			n = n->child[LEFT];
			continue;
		}
		n = stack[--top];
		if (n->end <= n->start ||
		    (k > 0 && n->start < d->list[k - 1].end))
			return;
		d->list[k].start = n->start;
		d->list[k].end = n->end;
		d->list[k].q_time = n->q_time;
		d->list[k].d_time = n->d_time;
		d->list[k].age = n->age;
		k++;
		n = n->child[RIGHT];
	}
	d->gap = k;
	d->nbase = k;
	d->nchanges = 0;
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

	if (d->root)
		stack[top++] = d->root;
	while (top) {
		n = stack[--top];
		if (n->child[LEFT])
			stack[top++] = n->child[LEFT];
		if (n->child[RIGHT])
			stack[top++] = n->child[RIGHT];
		pool_put(b, n);
	}
	d->root = d->max = NULL;
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
	q = tree_place(d, s, &parent, &link);
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
	tree_link(d, q, parent, link);
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
	size_t n = d->n, g = d->gap, i;
	struct listed_q *q, *next;

	/* Less than a sector, or past the last: a walk could miss it. */
	if (e <= s || d->nchanges == d->changes_max)
		goto tree;
	if ((g == 0 || d->list[g - 1].start < s) &&
	    (g == n || s < d->list[g + (d->clist - n)].start)) {
		/* In the hole, after the last Q that came. */
		i = g;
	} else {
		i = list_find(d, s);
		q = listed(d, i);
		if (i < n && q->start == s) {
			if (i + 1 < n && e > listed(d, i + 1)->start)
				goto tree;
			if (d->nchanges == d->cchanges &&
			    list_grow(d, false) < 0)
				return oom(b, err);
			q->end = e;
			q->q_time = ev->time;
			q->d_time = NO_D;
			q->age = ++b->next_age;
			b->replaced++;
			record(d, REPLACED, s, ev->bytes >> 9);
			return 0;
		}
	}
	if ((i > 0 && listed(d, i - 1)->end > s) ||
	    (i < n && e > listed(d, i)->start) || n == LIST_MAX)
		goto tree;
	if ((n == d->clist || d->nchanges == d->cchanges) &&
	    list_grow(d, true) < 0)
		return oom(b, err);
	list_move_gap(d, i);
	next = &d->list[d->gap++];
	next->start = s;
	next->end = e;
	next->q_time = ev->time;
	next->d_time = NO_D;
	next->age = ++b->next_age;
	d->n++;
	record(d, ADDED, s, ev->bytes >> 9);
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
	size_t g = d->gap, hole = d->clist - d->n;
	struct listed_q *next;

	if (e <= s || d->nchanges == d->cchanges || hole == 0 ||
	    (g > 0 && d->list[g - 1].end > s) ||
	    (g < d->n && e > d->list[g + hole].start))
		return list_queue_any(b, d, ev, err);
	next = &d->list[g];
	next->start = s;
	next->end = e;
	next->q_time = ev->time;
	next->d_time = NO_D;
	next->age = ++b->next_age;
	d->gap = g + 1;
	d->n++;
	record(d, ADDED, s, ev->bytes >> 9);
	return 0;
}

static __attribute__((noinline))
int tree_issue(struct wc_btt *b, struct bdev *d, const struct wc_event *ev)
{
	walk(b, d->root, ev->sector, ev->sector + (ev->bytes >> 9), false,
	     ev->time);
	return 0;
}

static __attribute__((noinline))
int list_issue(struct bdev *d, const struct wc_event *ev)
{
	uint64_t s = ev->sector, e = s + (ev->bytes >> 9);
	struct listed_q *after = d->list + (d->clist - d->n);
	size_t i, j;

	/* Disjoint and in start order, so in end order too: the Qs inside
	 * are the ones from the first starting at s or after, up to the
	 * first ending past e. */
	i = list_find(d, s);
	j = list_ends_after(d, i, e);
	for (; i < j && i < d->gap; i++)
		d->list[i].d_time = ev->time;
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
	const struct listed_q *run;
	size_t i, j, k;

	/* The Qs inside, as for a D. */
	i = list_find(d, s);
	j = list_ends_after(d, i, e);
	if (j == i)
		return 0;
	if (d->nchanges == d->changes_max) {
		if (list_to_tree(b, d) < 0)
			return oom(b, err);
		return tree_complete(b, d, ev, err);
	}
	/* Into the hole, which moves next to them: they lie in one run,
	 * just before it or just after. */
	if (d->gap > j) {
		list_move_gap(d, j);
		run = d->list + i;
	} else {
		list_move_gap(d, i);
		run = d->list + i + (d->clist - d->n);
	}
	for (k = 0; k < j - i; k++) {
		deltas_add(&q2c, tdelta(run[k].q_time, c));
		if (run[k].d_time != NO_D)
			deltas_add(&d2c, tdelta(run[k].d_time, c));
	}
	stat_add_deltas(&b->q2c, &q2c);
	stat_add_deltas(&b->d2c, &d2c);
	d->gap = i;
	d->n -= j - i;
	/* An empty list is an empty tree. */
	if (d->n == 0) {
		base_free(b, d);
		d->gap = 0;
		d->nchanges = 0;
		d->mode = TREE;
		if (d->changes_max < CHANGES_MAX)
			d->changes_max *= 2;
	} else if (d->nchanges < d->cchanges || list_grow(d, false) == 0)
		record(d, ENDED, s, ev->bytes >> 9);
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
		if (b->devs[i].clist > room)
			room = b->devs[i].clist;
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
		free(b->devs[i].list);
		free(b->devs[i].changes);
	}
	free(b->blocks);
	free(b->found);
	free(b);
}
