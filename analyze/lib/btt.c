#include "btt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	bool red;
	uint64_t start, end;     /* sectors, end exclusive */
	uint64_t q_time;
	uint64_t d_time;         /* NO_D until a D covers it */
};

struct bdev {
	uint32_t device;
	bool seen_q;             /* btt ignores a device until its first Q */
	struct kept_q *root;
	size_t n;
};

struct wc_btt {
	struct bdev *devs;
	size_t ndevs, cdevs;
	struct wc_btt_stat q2c, d2c;
	uint64_t dropped;
	uint64_t replaced;
	struct kept_q **found;   /* scratch for one walk */
	size_t nfound, cfound;
	bool failed;
	struct wc_err err;
};

static const uint64_t NO_D = UINT64_MAX;

static int oom(struct wc_btt *b, struct wc_err *err)
{
	b->failed = true;
	wc_err_set(&b->err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
		   "out of memory");
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
}

static struct bdev *find_dev(struct wc_btt *b, uint32_t device)
{
	size_t i;

	for (i = 0; i < b->ndevs; i++)
		if (b->devs[i].device == device)
			return &b->devs[i];
	return NULL;
}

static struct bdev *add_dev(struct wc_btt *b, uint32_t device)
{
	if (b->ndevs == b->cdevs) {
		size_t c = b->cdevs ? b->cdevs * 2 : 8;
		struct bdev *d = realloc(b->devs, c * sizeof(*d));

		if (!d)
			return NULL;
		b->devs = d;
		b->cdevs = c;
	}
	memset(&b->devs[b->ndevs], 0, sizeof(b->devs[0]));
	b->devs[b->ndevs].device = device;
	return &b->devs[b->ndevs++];
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

static void tree_erase(struct bdev *d, struct kept_q *node)
{
	struct kept_q *child, *parent;
	bool red;

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

/* btt's rb_foreach: collects the kept Qs inside [s, e) in its order. */
static int walk(struct wc_btt *b, struct kept_q *n, uint64_t s, uint64_t e)
{
	if (!n)
		return 0;
	if (s <= n->start && n->end <= e) {
		if (b->nfound == b->cfound) {
			size_t c = b->cfound ? b->cfound * 2 : 64;
			struct kept_q **f = realloc(b->found, c * sizeof(*f));

			if (!f)
				return -1;
			b->found = f;
			b->cfound = c;
		}
		b->found[b->nfound++] = n;
	}
	if (s < n->start && walk(b, n->left, s, e) < 0)
		return -1;
	if (n->end < e && walk(b, n->right, s, e) < 0)
		return -1;
	return 0;
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

static int cmp_q_time(const void *a, const void *b)
{
	const struct kept_q *x = *(struct kept_q *const *)a;
	const struct kept_q *y = *(struct kept_q *const *)b;

	return x->q_time < y->q_time ? -1 : x->q_time > y->q_time;
}

/* Forgets the oldest quarter of a device's kept Qs.  Only lost completions
 * fill the tree this far; btt would keep them forever. */
static int forget_oldest(struct wc_btt *b, struct bdev *d, struct wc_err *err)
{
	size_t i, k;

	b->nfound = 0;
	if (walk(b, d->root, 0, UINT64_MAX) < 0)
		return oom(b, err);
	qsort(b->found, b->nfound, sizeof(b->found[0]), cmp_q_time);
	k = b->nfound / 4 + 1;
	for (i = 0; i < k && i < b->nfound; i++) {
		tree_erase(d, b->found[i]);
		free(b->found[i]);
		b->dropped++;
	}
	return 0;
}

static int on_queue(struct wc_btt *b, struct bdev *d,
		    const struct wc_event *ev, struct wc_err *err)
{
	struct kept_q **link, *parent = NULL, *q;

	if (d->n >= WC_BTT_MAX_KEPT && forget_oldest(b, d, err) < 0)
		return -1;
	d->seen_q = true;
	link = &d->root;
	while (*link) {
		parent = *link;
		if (ev->sector < parent->start) {
			link = &parent->left;
		} else if (ev->sector > parent->start) {
			link = &parent->right;
		} else {
			/* btt 2.09 lets the newer Q take the older one's
			 * place: the older one's C was lost. */
			parent->end = ev->sector + (ev->bytes >> 9);
			parent->q_time = ev->time;
			parent->d_time = NO_D;
			b->replaced++;
			return 0;
		}
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		return oom(b, err);
	q->start = ev->sector;
	q->end = ev->sector + (ev->bytes >> 9);
	q->q_time = ev->time;
	q->d_time = NO_D;
	q->parent = parent;
	q->red = true;
	*link = q;
	d->n++;
	insert_color(d, q);
	return 0;
}

static int on_issue(struct wc_btt *b, struct bdev *d,
		    const struct wc_event *ev, struct wc_err *err)
{
	size_t i;

	b->nfound = 0;
	if (walk(b, d->root, ev->sector, ev->sector + (ev->bytes >> 9)) < 0)
		return oom(b, err);
	for (i = 0; i < b->nfound; i++)
		b->found[i]->d_time = ev->time;
	return 0;
}

static int on_complete(struct wc_btt *b, struct bdev *d,
		       const struct wc_event *ev, struct wc_err *err)
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
		free(q);
	}
	return 0;
}

int wc_btt_add(struct wc_btt *b, const struct wc_event *ev, struct wc_err *err)
{
	struct bdev *d;
	unsigned what;

	if (b->failed)
		return -1;
	if (wc_event_is_notify(ev) || wc_event_has(ev, WC_TC_PC))
		return 0;
	/* btt matches the low 16 bits of action, cgroup flag included. */
	if (ev->has_cgroup || ev->bytes == 0)
		return 0;
	what = wc_event_what(ev);
	if (what != WC_TA_QUEUE && what != WC_TA_ISSUE &&
	    what != WC_TA_COMPLETE)
		return 0;
	d = find_dev(b, ev->device);
	if (!d) {
		if (what != WC_TA_QUEUE)
			return 0;
		d = add_dev(b, ev->device);
		if (!d)
			return oom(b, err);
	}
	if (what == WC_TA_QUEUE)
		return on_queue(b, d, ev, err);
	if (!d->seen_q)
		return 0;
	if (what == WC_TA_ISSUE)
		return on_issue(b, d, ev, err);
	return on_complete(b, d, ev, err);
}

void wc_btt_hook(void *ctx, const struct wc_event *ev)
{
	wc_btt_add(ctx, ev, NULL);
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
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "out of memory");
	wc_err_clear(&(*out)->err);
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

double wc_btt_mean_s(const struct wc_btt_stat *s)
{
	return s->n ? s->total / (double)s->n / 1e9 : 0.0;
}

static void free_tree(struct kept_q *n)
{
	while (n) {
		struct kept_q *right = n->right;

		free_tree(n->left);
		free(n);
		n = right;
	}
}

void wc_btt_free(struct wc_btt *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->ndevs; i++)
		free_tree(b->devs[i].root);
	free(b->devs);
	free(b->found);
	free(b);
}
