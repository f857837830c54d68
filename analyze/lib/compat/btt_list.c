/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compat/btt_list.h"

#include <stdlib.h>

int btt_list_grow(struct btt_list *ls, size_t n, bool q)
{
	if (q && n == ls->cap) {
		size_t c = ls->cap ? 2 * ls->cap : 32;
		struct listed_q *l = realloc(ls->q, c * sizeof(*l));

		if (!l)
			return -1;
		/* The Qs after the hole go to the end. */
		memmove(l + ls->gap + (c - n), l + ls->gap,
			(n - ls->gap) * sizeof(*l));
		ls->q = l;
		ls->cap = c;
	}
	if (ls->nchanges == ls->cchanges) {
		size_t c = ls->cchanges ? 2 * ls->cchanges : 64;
		struct change *ch = realloc(ls->changes, c * sizeof(*ch));

		if (!ch)
			return -1;
		ls->changes = ch;
		ls->cchanges = c;
	}
	return 0;
}
