/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt_tree.h - btt's red-black tree of the Qs kept on one device, for
 * btt.c only (behind btt.h).
 *
 * btt keeps its pending Qs in a red-black tree keyed by start sector and
 * finds the ones inside a D or C with a walk that prunes by the node it
 * stands on: it can miss a Q hidden behind a larger overlapping one.  To
 * give btt's numbers in those cases too, this is the same tree with the
 * same classic insert and erase rebalancing (the kernel's lib/rbtree.c of
 * the time, which btt carries), walked and erased in the same order.
 *
 *     struct btt_tree t = { NULL, NULL };
 *     struct kept_q *parent, **link, *q;
 *     size_t kept = 0, k, nfound;
 *
 *     q = tree_place(&t, s, &parent, &link);   // q: a Q of that start
 *     if (!q) {
 *             q = (a node of the caller's);
 *             q->start = s, q->end = s + len;
 *             tree_link(&t, &kept, q, parent, link);
 *     }
 *     nfound = tree_walk(found, t.root, s, e, true, 0);  // inside [s, e)
 *     for (k = 0; k < nfound; k++)
 *             tree_erase(&t, &kept, found[k]);  // the node is free again
 *
 * What always holds: no two nodes of a tree have the same start (a Q of
 * a start already kept takes that node, tree_place() says which); t.max
 * is the node of the highest start, NULL when the tree is empty; the
 * rebalancing is btt's, so the tree's shape after the same inserts and
 * erases is btt's.  A walk needs no memory but its fixed stack
 * (WALK_DEPTH levels, more than a tree of WC_BTT_MAX_KEPT nodes has) and
 * room in found for every node of the tree when it collects.
 *
 * Who frees what: the tree owns nothing.  Its nodes are its owner's (btt.c
 * takes them from its pool), linked in by tree_link() and unlinked by
 * tree_erase(), after which the owner may reuse or free them.  The tree
 * keeps no count of its own: tree_link() and tree_erase() count in the
 * owner's (btt.c counts a device's Qs, in its tree or its list).
 *
 * The functions on the per-event path are inline here (base/hot.h); the
 * rebalancing after an erase, once per erase at most, is in btt_tree.c.
 *
 * A kept Q is one cache line: its links, its extent and times, and its
 * place in the Q order (age), which is all that forgetting the
 * oldest needs (btt.c's forget_oldest()).
 */
#ifndef WC_BTT_TREE_H
#define WC_BTT_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hot.h"
#include "base/wclimits.h"

enum { LEFT, RIGHT };

struct kept_q {
	struct kept_q *parent;
	struct kept_q *child[2];   /* LEFT: lower starts, RIGHT: higher */
	uint64_t start, end;       /* sectors, end exclusive */
	uint64_t q_time;
	uint64_t d_time;           /* btt.c's NO_D until a D covers it */
	/* Order of the Qs kept, on every device (a Q taking another's
	 * place is new): 0 while the node is free.  63 bits: more Qs than
	 * a trace of a thousand years at ten million a second. */
	uint64_t age : 63;
	uint64_t red : 1;
};

_Static_assert(sizeof(struct kept_q) <= 64, "a kept Q fits a cache line");

/* One device's tree: its root and its node of the highest start (NULL
 * when empty); a Q mostly starts past every kept one (tree_place()). */
struct btt_tree {
	struct kept_q *root;
	struct kept_q *max;
};

static inline bool is_red(const struct kept_q *n)
{
	return n && n->red;
}

/* Which child of its parent n is (LEFT for a NULL left child too, as
 * the rebalancing after an erase asks it of a missing node). */
static inline int side_of(const struct kept_q *parent, const struct kept_q *n)
{
	return parent->child[LEFT] == n ? LEFT : RIGHT;
}

static inline void replace_child(struct btt_tree *t, struct kept_q *parent,
				 struct kept_q *old, struct kept_q *new)
{
	if (!parent)
		t->root = new;
	else
		parent->child[side_of(parent, old)] = new;
}

/* node goes down on side dir, its child of the other side takes its
 * place: dir LEFT is the classic rotate_left, RIGHT rotate_right. */
WC_HOT void rotate(struct btt_tree *t, struct kept_q *node, int dir)
{
	struct kept_q *up = node->child[!dir], *parent = node->parent;

	node->child[!dir] = up->child[dir];
	if (node->child[!dir])
		node->child[!dir]->parent = node;
	up->child[dir] = node;
	up->parent = parent;
	replace_child(t, parent, node, up);
	node->parent = up;
}

WC_HOT void insert_color(struct btt_tree *t, struct kept_q *node)
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
			rotate(t, parent, side);
			tmp = parent;
			parent = node;
			node = tmp;
		}
		parent->red = false;
		gparent->red = true;
		rotate(t, gparent, !side);
	}
	t->root->red = false;
}

/* After an erase, the classic rebalancing from node (NULL allowed: a
 * missing child) up, parent its parent. */
void btt_tree_erase_color(struct btt_tree *t, struct kept_q *node,
			  struct kept_q *parent);

/* Once per kept Q a C ends, and per Q forgotten past the bound. */
WC_HOT
void tree_erase(struct btt_tree *t, size_t *n, struct kept_q *node)
{
	struct kept_q *child, *parent;
	bool red;

	/* The highest start goes: the next highest is the greatest of its
	 * left, or else its parent (it has no right, and is its parent's
	 * right or the root). */
	if (node == t->max) {
		if ((child = node->child[LEFT]) != NULL)
			while (child->child[RIGHT])
				child = child->child[RIGHT];
		else
			child = node->parent;
		t->max = child;
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
		replace_child(t, old->parent, old, node);
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
	replace_child(t, parent, node, child);
color:
	if (!red)
		btt_tree_erase_color(t, child, parent);
	(*n)--;
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
 * A C collects what it finds (found, room for every node of the tree
 * made beforehand), to end them in the walk's order as btt releases its
 * list; a D stamps its time on them where it finds them (collect false),
 * the same nodes visited, as btt's D sets d_time on each Q of its list.
 * Returns the number collected.
 */
#define WALK_DEPTH 128
_Static_assert(WC_BTT_MAX_KEPT < (1 << 30), "2 log2(kept + 1) must fit the walk's stack");

WC_HOT
size_t tree_walk(struct kept_q **found, struct kept_q *n, uint64_t s,
		 uint64_t e, bool collect, uint64_t d_time)
{
	struct kept_q *stack[WALK_DEPTH];
	size_t top = 0, nfound = 0;

	while (n) {
		uint64_t end = n->end;

		if (s <= n->start && end <= e) {
			if (collect)
				found[nfound++] = n;
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

/* Where a Q starting at s goes in t (*parent, *link), or the kept
 * Q that already starts there. */
WC_HOT
struct kept_q *tree_place(struct btt_tree *t, uint64_t s,
			  struct kept_q **parent, struct kept_q ***link)
{
	struct kept_q *le = NULL, *n;

	*parent = NULL;
	*link = &t->root;
	if (t->max && s > t->max->start) {
		/* Writeback queues a file's bios in ascending sectors: a Q
		 * mostly starts past every kept one, and then goes right of
		 * the highest, where the descent would end. */
		*parent = t->max;
		*link = &t->max->child[RIGHT];
		return NULL;
	}
	/* The classic descent, the side a level taken from one comparison
	 * rather than a guess at it: a Q of the same start is the last
	 * node it went right at (le, start <= s), as the keys are
	 * distinct. */
	{
		struct kept_q *p = NULL;
		int right = RIGHT;

		for (n = t->root; n; n = n->child[right]) {
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

/* Links q (start and end set) where tree_place() said, and counts it
 * in *n. */
WC_HOT
void tree_link(struct btt_tree *t, size_t *n, struct kept_q *q,
	       struct kept_q *parent, struct kept_q **link)
{
	q->child[LEFT] = q->child[RIGHT] = NULL;
	q->parent = parent;
	q->red = true;
	*link = q;
	if (!t->max || q->start > t->max->start)
		t->max = q;
	(*n)++;
	insert_color(t, q);
}

#endif /* WC_BTT_TREE_H */
