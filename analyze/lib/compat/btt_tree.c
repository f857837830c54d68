/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compat/btt_tree.h"

void btt_tree_erase_color(struct btt_tree *t, struct kept_q *node,
			  struct kept_q *parent)
{
	struct kept_q *other;

	while (!is_red(node) && node != t->root) {
		int side = side_of(parent, node);

		other = parent->child[!side];
		if (other->red) {
			other->red = false;
			parent->red = true;
			rotate(t, parent, side);
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
				rotate(t, other, !side);
				other = parent->child[!side];
			}
			other->red = parent->red;
			parent->red = false;
			other->child[!side]->red = false;
			rotate(t, parent, side);
			node = t->root;
			break;
		}
	}
	if (node)
		node->red = false;
}
