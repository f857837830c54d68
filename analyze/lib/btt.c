#include "btt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "devtab.h"
#include "hot.h"

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

struct bdev {
	uint32_t device;
	bool seen_q;             /* btt ignores a device until its first Q */
	struct kept_q *root;
	struct kept_q *max;      /* the kept Q of the highest start, or NULL */
	size_t n;
	/* Only past WC_BTT_MAX_KEPT: the Qs kept when the cap was last
	 * reached, oldest first, and the next one to look at. */
	struct aged *oldest;
	size_t noldest, next_oldest;
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

static void insert_color(struct bdev *d, struct kept_q *node)
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

/* A Q, a D and a C each do their own work on the device's tree, each in
 * a function of its own: the dispatch every Q, D and C goes through
 * stays the device's lookup and a test of the event's kind. */
static __attribute__((noinline))
int on_queue(struct wc_btt *b, struct bdev *d, const struct wc_event *ev,
	     struct wc_err *err)
{
	struct kept_q **link = &d->root, *parent = NULL, *le = NULL, *n, *q;
	uint64_t s = ev->sector;

	d->seen_q = true;
	if (d->max && s > d->max->start) {
		/* Writeback queues a file's bios in ascending sectors: a Q
		 * mostly starts past every kept one, and then goes right of
		 * the highest, where the descent would end. */
		parent = d->max;
		link = &parent->child[RIGHT];
	} else {
		/* The classic descent, the side a level taken from one
		 * comparison rather than a guess at it: a Q of the same
		 * start is the last node it went right at (le, start <=
		 * s), as the keys are distinct. */
		int right = RIGHT;

		for (n = d->root; n; n = n->child[right]) {
			right = s >= n->start;
			parent = n;
			le = right ? n : le;
		}
		if (parent)
			link = &parent->child[right];
	}
	if (le && le->start == s) {
		/* btt 2.09 lets the newer Q take the older one's place:
		 * the older one's C was lost. */
		le->end = s + (ev->bytes >> 9);
		le->q_time = ev->time;
		le->d_time = NO_D;
		le->age = ++b->next_age;
		b->replaced++;
		return 0;
	}
	q = pool_get(b);
	if (!q)
		return oom(b, err);
	q->child[LEFT] = q->child[RIGHT] = NULL;
	q->start = s;
	q->end = s + (ev->bytes >> 9);
	q->q_time = ev->time;
	q->d_time = NO_D;
	q->age = ++b->next_age;
	q->parent = parent;
	q->red = true;
	*link = q;
	if (!d->max || s > d->max->start)
		d->max = q;
	d->n++;
	insert_color(d, q);
	/* Only a new Q grows the tree; one taking a place does not. */
	if (d->n > WC_BTT_MAX_KEPT && forget_oldest(b, d) < 0)
		return oom(b, err);
	return 0;
}

static __attribute__((noinline))
int on_issue(struct wc_btt *b, struct bdev *d, const struct wc_event *ev)
{
	walk(b, d->root, ev->sector, ev->sector + (ev->bytes >> 9), false,
	     ev->time);
	return 0;
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

static __attribute__((noinline))
int on_complete(struct wc_btt *b, struct bdev *d, const struct wc_event *ev,
		struct wc_err *err)
{
	uint64_t c = ev->time;
	size_t i, n;

	if (b->cfound < d->n && grow_found(b, d->n) < 0)
		return oom(b, err);
	n = walk(b, d->root, ev->sector, ev->sector + (ev->bytes >> 9), true,
		 0);
	/* Erased in the walk's order, as btt releases its list. */
	for (i = 0; i < n; i++) {
		struct kept_q *q = b->found[i];

		stat_add(&b->q2c, tdelta(q->q_time, c));
		if (q->d_time != NO_D)
			stat_add(&b->d2c, tdelta(q->d_time, c));
		tree_erase(d, q);
		pool_put(b, q);
	}
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
		return on_queue(b, d, ev, err);
	if (!d->seen_q)
		return 0;
	if (what == WC_TA_ISSUE)
		return on_issue(b, d, ev);
	return on_complete(b, d, ev, err);
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

int wc_btt_open(struct wc_btt **out, struct wc_err *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return wc_err_oom(err, NULL, NULL);
	wc_err_clear(&(*out)->err);
	wc_devtab_init(&(*out)->devtab, WC_MAX_DEVICES);
	return 0;
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
	for (i = 0; i < wc_devtab_count(&b->devtab); i++)
		free(b->devs[i].oldest);
	free(b->blocks);
	free(b->found);
	free(b);
}
