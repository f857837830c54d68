/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * list.h - intrusive doubly linked tail queues, in the manner of OpenBSD's
 * sys/queue.h TAILQ: the links live inside the element, so putting an
 * element on a queue or taking it off never allocates, and taking it off
 * costs O(1) without searching.
 *
 *     struct req {
 *             WC_TAILQ_ENTRY(req) link;     // one per queue it can be on
 *             ...
 *     };
 *     WC_TAILQ_HEAD(reqq, req);             // declares struct reqq
 *
 *     struct reqq q;
 *     struct req *r;
 *
 *     WC_TAILQ_INIT(&q);
 *     WC_TAILQ_INSERT_TAIL(&q, r, link);
 *     WC_TAILQ_FOREACH(r, &q, link)
 *             use(r);
 *     r = WC_TAILQ_FIRST(&q);               // the oldest, or NULL
 *     WC_TAILQ_REMOVE(&q, r, link);
 *
 * What always holds:
 *  - a head must be initialised (WC_TAILQ_INIT or WC_TAILQ_HEAD_INITIALIZER)
 *    before use, and must not be moved or copied while elements are on
 *    it: the last element's link points back into the head.  A zeroed
 *    head is not an empty queue; re-initialise it after memset;
 *  - an element is on at most one queue per entry field; the queue does
 *    not own its elements and frees nothing;
 *  - FOREACH must not remove the element it stands on: use
 *    WC_TAILQ_FOREACH_SAFE, which reads the next element first;
 *  - the macros evaluate their arguments more than once: pass plain
 *    names, not expressions with side effects.
 */
#ifndef WC_LIST_H
#define WC_LIST_H

#include <stddef.h>

#define WC_TAILQ_HEAD(name, type)                                        \
	struct name {                                                    \
		struct type *tqh_first;  /* first element, or NULL */    \
		struct type **tqh_last;  /* the last next-link */        \
	}

#define WC_TAILQ_HEAD_INITIALIZER(head) { NULL, &(head).tqh_first }

#define WC_TAILQ_ENTRY(type)                                             \
	struct {                                                         \
		struct type *tqe_next;   /* next element, or NULL */     \
		struct type **tqe_prev;  /* the link that points here */ \
	}

#define WC_TAILQ_INIT(head) do {                                         \
	(head)->tqh_first = NULL;                                        \
	(head)->tqh_last = &(head)->tqh_first;                           \
} while (0)

#define WC_TAILQ_FIRST(head) ((head)->tqh_first)
#define WC_TAILQ_EMPTY(head) ((head)->tqh_first == NULL)
#define WC_TAILQ_NEXT(elm, field) ((elm)->field.tqe_next)

#define WC_TAILQ_INSERT_HEAD(head, elm, field) do {                      \
	(elm)->field.tqe_next = (head)->tqh_first;                       \
	if ((elm)->field.tqe_next != NULL)                               \
		(head)->tqh_first->field.tqe_prev = &(elm)->field.tqe_next; \
	else                                                             \
		(head)->tqh_last = &(elm)->field.tqe_next;               \
	(head)->tqh_first = (elm);                                       \
	(elm)->field.tqe_prev = &(head)->tqh_first;                      \
} while (0)

#define WC_TAILQ_INSERT_TAIL(head, elm, field) do {                      \
	(elm)->field.tqe_next = NULL;                                    \
	(elm)->field.tqe_prev = (head)->tqh_last;                        \
	*(head)->tqh_last = (elm);                                       \
	(head)->tqh_last = &(elm)->field.tqe_next;                       \
} while (0)

#define WC_TAILQ_REMOVE(head, elm, field) do {                           \
	if ((elm)->field.tqe_next != NULL)                               \
		(elm)->field.tqe_next->field.tqe_prev =                  \
			(elm)->field.tqe_prev;                           \
	else                                                             \
		(head)->tqh_last = (elm)->field.tqe_prev;                \
	*(elm)->field.tqe_prev = (elm)->field.tqe_next;                  \
	(elm)->field.tqe_next = NULL;                                    \
	(elm)->field.tqe_prev = NULL;                                    \
} while (0)

#define WC_TAILQ_FOREACH(var, head, field)                               \
	for ((var) = (head)->tqh_first; (var) != NULL;                   \
	     (var) = (var)->field.tqe_next)

#define WC_TAILQ_FOREACH_SAFE(var, head, field, tvar)                    \
	for ((var) = (head)->tqh_first;                                  \
	     (var) != NULL && ((tvar) = (var)->field.tqe_next, 1);       \
	     (var) = (tvar))

#endif /* WC_LIST_H */
