#include "btt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "devtab.h"
#include "hot.h"
#include "list.h"

/*
 * btt keeps its pending Qs in a red-black tree keyed by start sector and
 * finds the ones inside a D or C with a walk that prunes by the node it
 * stands on: it can miss a Q hidden behind a larger overlapping one.  To
 * give btt's numbers in those cases too, this is the same tree with the
 * same classic insert and erase rebalancing (the kernel's lib/rbtree.c of
 * the time, which btt carries), walked and erased in the same order.
 */
struct kept_q {
	struct kept_q *parent, *left, *right;
	/* The device's kept Qs, oldest Q first; a free node uses the
	 * link's next only, as the pool's link. */
	WC_TAILQ_ENTRY(kept_q) age;
	uint64_t start, end;     /* sectors, end exclusive */
	uint64_t q_time;
	uint64_t d_time;         /* NO_D until a D covers it */
	bool red;
};

WC_TAILQ_HEAD(ageq, kept_q);

struct bdev {
	uint32_t device;
	bool seen_q;             /* btt ignores a device until its first Q */
	struct kept_q *root;
	struct kept_q *max;      /* the kept Q of the highest start, or NULL */
	struct ageq age;         /* kept Qs, oldest first */
	size_t n;
};

struct wc_btt {
	/* At most WC_MAX_DEVICES, by their number in devtab. */
	struct bdev devs[WC_MAX_DEVICES];
	struct wc_devtab devtab;
	struct bdev *last_dev;   /* traces mostly stay on one device */
	uint64_t ignored;        /* events on devices past the cap */
	struct wc_btt_stat q2c, d2c;
	uint64_t dropped;
	uint64_t replaced;
	/* Erased nodes wait here for the next Q instead of going back to
	 * malloc: never more than the most Qs ever kept at once. */
	struct kept_q *pool;
	struct kept_q **found;   /* scratch for one walk */
	size_t nfound, cfound;
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
	WC_TAILQ_INIT(&d->age);
	d->device = device;
	return d;
}

/* ---- the device's kept Qs in Q order, and the pool --------------------- */

static void age_append(struct bdev *d, struct kept_q *q)
{
	WC_TAILQ_INSERT_TAIL(&d->age, q, age);
}

static void age_unlink(struct bdev *d, struct kept_q *q)
{
	WC_TAILQ_REMOVE(&d->age, q, age);
}

static struct kept_q *pool_get(struct wc_btt *b)
{
	struct kept_q *q = b->pool;

	if (!q)
		return malloc(sizeof(*q));
	b->pool = WC_TAILQ_NEXT(q, age);
	return q;
}

static void pool_put(struct wc_btt *b, struct kept_q *q)
{
	WC_TAILQ_NEXT(q, age) = b->pool;
	b->pool = q;
}

/* ---- the red-black tree ------------------------------------------------ */

static bool is_red(const struct kept_q *n)
{
	return n && n->red;
}

static void replace_child(struct bdev *d, struct kept_q *parent,
			  struct kept_q *old, struct kept_q *new)
{
	if (!parent)
		d->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

static void rotate_left(struct bdev *d, struct kept_q *node)
{
	struct kept_q *right = node->right, *parent = node->parent;

	node->right = right->left;
	if (node->right)
		node->right->parent = node;
	right->left = node;
	right->parent = parent;
	replace_child(d, parent, node, right);
	node->parent = right;
}

static void rotate_right(struct bdev *d, struct kept_q *node)
{
	struct kept_q *left = node->left, *parent = node->parent;

	node->left = left->right;
	if (node->left)
		node->left->parent = node;
	left->right = node;
	left->parent = parent;
	replace_child(d, parent, node, left);
	node->parent = left;
}

static void insert_color(struct bdev *d, struct kept_q *node)
{
	struct kept_q *parent, *gparent, *uncle, *tmp;

	while ((parent = node->parent) && parent->red) {
		gparent = parent->parent;
		if (parent == gparent->left) {
			uncle = gparent->right;
			if (is_red(uncle)) {
				uncle->red = false;
				parent->red = false;
				gparent->red = true;
				node = gparent;
				continue;
			}
			if (parent->right == node) {
				rotate_left(d, parent);
				tmp = parent;
				parent = node;
				node = tmp;
			}
			parent->red = false;
			gparent->red = true;
			rotate_right(d, gparent);
		} else {
			uncle = gparent->left;
			if (is_red(uncle)) {
				uncle->red = false;
				parent->red = false;
				gparent->red = true;
				node = gparent;
				continue;
			}
			if (parent->left == node) {
				rotate_right(d, parent);
				tmp = parent;
				parent = node;
				node = tmp;
			}
			parent->red = false;
			gparent->red = true;
			rotate_left(d, gparent);
		}
	}
	d->root->red = false;
}

static void erase_color(struct bdev *d, struct kept_q *node,
			struct kept_q *parent)
{
	struct kept_q *other;

	while (!is_red(node) && node != d->root) {
		if (parent->left == node) {
			other = parent->right;
			if (other->red) {
				other->red = false;
				parent->red = true;
				rotate_left(d, parent);
				other = parent->right;
			}
			if (!is_red(other->left) && !is_red(other->right)) {
				other->red = true;
				node = parent;
				parent = node->parent;
			} else {
				if (!is_red(other->right)) {
					other->left->red = false;
					other->red = true;
					rotate_right(d, other);
					other = parent->right;
				}
				other->red = parent->red;
				parent->red = false;
				other->right->red = false;
				rotate_left(d, parent);
				node = d->root;
				break;
			}
		} else {
			other = parent->left;
			if (other->red) {
				other->red = false;
				parent->red = true;
				rotate_right(d, parent);
				other = parent->left;
			}
			if (!is_red(other->left) && !is_red(other->right)) {
				other->red = true;
				node = parent;
				parent = node->parent;
			} else {
				if (!is_red(other->left)) {
					other->right->red = false;
					other->red = true;
					rotate_left(d, other);
					other = parent->left;
				}
				other->red = parent->red;
				parent->red = false;
				other->left->red = false;
				rotate_right(d, parent);
				node = d->root;
				break;
			}
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
		if ((child = node->left) != NULL)
			while (child->right)
				child = child->right;
		else
			child = node->parent;
		d->max = child;
	}

	if (!node->left) {
		child = node->right;
	} else if (!node->right) {
		child = node->left;
	} else {
		/* Two children: the successor takes the node's place. */
		struct kept_q *old = node, *left;

		node = node->right;
		while ((left = node->left) != NULL)
			node = left;
		replace_child(d, old->parent, old, node);
		child = node->right;
		parent = node->parent;
		red = node->red;
		if (parent == old) {
			parent = node;
		} else {
			if (child)
				child->parent = parent;
			parent->left = child;
			node->right = old->right;
			old->right->parent = node;
		}
		node->parent = old->parent;
		node->red = old->red;
		node->left = old->left;
		old->left->parent = node;
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
 * btt's rb_foreach: collects the kept Qs inside [s, e) in its order (the
 * node, then its left subtree, then its right).  It goes left only while
 * s is left of the node's start and right only while the node ends
 * before e, so it is a range search: its cost is the tree's height plus
 * the Qs starting inside [s, e), never the number kept.  A stack instead
 * of recursion: a pending right subtree waits at most once per level,
 * and a red-black tree of WC_BTT_MAX_KEPT nodes is under 40 levels deep.
 */
#define WALK_DEPTH 128
_Static_assert(WC_BTT_MAX_KEPT < (1 << 30), "2 log2(kept + 1) must fit the walk's stack");

WC_HOT
int walk(struct wc_btt *b, struct kept_q *n, uint64_t s, uint64_t e)
{
	struct kept_q *stack[WALK_DEPTH];
	size_t top = 0;

	while (n) {
		if (s <= n->start && n->end <= e) {
			if (b->nfound == b->cfound) {
				size_t c = b->cfound ? b->cfound * 2 : 64;
				struct kept_q **f = realloc(b->found,
							    c * sizeof(*f));

				if (!f)
					return -1;
				b->found = f;
				b->cfound = c;
			}
			b->found[b->nfound++] = n;
		}
		/* Node, left subtree, right subtree: a right child goes
		 * on the stack only while a left subtree comes first. */
		if (s < n->start && n->left) {
			if (n->end < e && n->right)
				stack[top++] = n->right;
			n = n->left;
		} else if (n->end < e && n->right) {
			n = n->right;
		} else {
			n = top ? stack[--top] : NULL;
		}
	}
	return 0;
}

/* The same walk for a D, which only stamps: order does not matter and
 * nothing needs collecting, so the nodes it visits are the walk's and a
 * pending right subtree waits on a stack, as in walk(). */
WC_HOT
void walk_stamp(struct kept_q *n, uint64_t s, uint64_t e, uint64_t t)
{
	struct kept_q *stack[WALK_DEPTH];
	size_t top = 0;

	while (n) {
		if (s <= n->start && n->end <= e)
			n->d_time = t;
		if (s < n->start && n->left) {
			if (n->end < e && n->right)
				stack[top++] = n->right;
			n = n->left;
		} else if (n->end < e && n->right) {
			n = n->right;
		} else {
			n = top ? stack[--top] : NULL;
		}
	}
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
	s->total += (double)v;
}

/* Forgets the device's oldest kept Q.  Only lost completions (or a queue
 * longer than WC_BTT_MAX_KEPT) fill the tree this far; btt would keep
 * them forever. */
static void forget_oldest(struct wc_btt *b, struct bdev *d)
{
	struct kept_q *q = WC_TAILQ_FIRST(&d->age);

	tree_erase(d, q);
	age_unlink(d, q);
	pool_put(b, q);
	b->dropped++;
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
		link = &parent->right;
	} else {
		/* The classic descent, with one test a level: a Q of the
		 * same start is the last node it went right at (le, start
		 * <= s), as the keys are distinct; the extra levels below
		 * it are walked only when a Q takes another's place. */
		while ((n = *link) != NULL) {
			parent = n;
			if (s < n->start) {
				link = &n->left;
			} else {
				le = n;
				link = &n->right;
			}
		}
	}
	if (le && le->start == s) {
		/* btt 2.09 lets the newer Q take the older one's place:
		 * the older one's C was lost. */
		le->end = s + (ev->bytes >> 9);
		le->q_time = ev->time;
		le->d_time = NO_D;
		age_unlink(d, le);
		age_append(d, le);
		b->replaced++;
		return 0;
	}
	q = pool_get(b);
	if (!q)
		return oom(b, err);
	q->left = q->right = NULL;
	q->start = s;
	q->end = s + (ev->bytes >> 9);
	q->q_time = ev->time;
	q->d_time = NO_D;
	q->parent = parent;
	q->red = true;
	*link = q;
	if (!d->max || s > d->max->start)
		d->max = q;
	d->n++;
	insert_color(d, q);
	age_append(d, q);
	/* Only a new Q grows the tree; one taking a place does not. */
	if (d->n > WC_BTT_MAX_KEPT)
		forget_oldest(b, d);
	return 0;
}

static __attribute__((noinline))
int on_issue(struct bdev *d, const struct wc_event *ev)
{
	walk_stamp(d->root, ev->sector, ev->sector + (ev->bytes >> 9),
		   ev->time);
	return 0;
}

static __attribute__((noinline))
int on_complete(struct wc_btt *b, struct bdev *d, const struct wc_event *ev,
		struct wc_err *err)
{
	size_t i;

	b->nfound = 0;
	if (walk(b, d->root, ev->sector, ev->sector + (ev->bytes >> 9)) < 0)
		return oom(b, err);
	/* Erased in the walk's order, as btt releases its list. */
	for (i = 0; i < b->nfound; i++) {
		struct kept_q *q = b->found[i];

		stat_add(&b->q2c, tdelta(q->q_time, ev->time));
		if (q->d_time != NO_D)
			stat_add(&b->d2c, tdelta(q->d_time, ev->time));
		tree_erase(d, q);
		age_unlink(d, q);
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
		return on_issue(d, ev);
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

/* Frees n and every node after it on its age list or the pool. */
static void free_list(struct kept_q *n)
{
	while (n) {
		struct kept_q *next = WC_TAILQ_NEXT(n, age);

		free(n);
		n = next;
	}
}

void wc_btt_free(struct wc_btt *b)
{
	size_t i;

	if (!b)
		return;
	/* Every kept Q is on its device's age list, every other node in
	 * the pool: no tree walk needed. */
	for (i = 0; i < wc_devtab_count(&b->devtab); i++)
		free_list(WC_TAILQ_FIRST(&b->devs[i].age));
	free_list(b->pool);
	free(b->found);
	free(b);
}
