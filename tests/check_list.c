/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_list.c - unit tests of analyze/lib/base/list.h: the tail queue against
 * a plain array doing the same inserts and removals at head, middle and
 * tail, walked both ways through the links; FOREACH_SAFE removing as it
 * goes; an element on two queues at once.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "base/list.h"

struct item {
	int v;
	WC_TAILQ_ENTRY(item) link;
	WC_TAILQ_ENTRY(item) other;
};

WC_TAILQ_HEAD(itemq, item);
WC_TAILQ_HEAD(otherq, item);

/* The queue holds exactly want[0..n), in order, and its back links
 * agree: every element's prev link points at the link that points at it,
 * and the head's last link is the last element's next. */
static void expect(struct itemq *q, const int *want, size_t n)
{
	struct item *it, **prevlink = &q->tqh_first;
	size_t i = 0;

	WC_TAILQ_FOREACH(it, q, link) {
		ck_assert_uint_lt(i, n);
		ck_assert_int_eq(it->v, want[i]);
		ck_assert_ptr_eq(it->link.tqe_prev, prevlink);
		prevlink = &it->link.tqe_next;
		i++;
	}
	ck_assert_uint_eq(i, n);
	ck_assert_ptr_eq(q->tqh_last, prevlink);
	ck_assert_int_eq(WC_TAILQ_EMPTY(q), n == 0);
}

START_TEST(test_against_model)
{
	struct itemq q = WC_TAILQ_HEAD_INITIALIZER(q);
	struct item items[64];
	int model[64] = { 0 };
	size_t n = 0, i, k;
	unsigned seed = 12345;

	for (i = 0; i < 64; i++)
		items[i].v = (int)i;
	expect(&q, model, 0);
	/* 2000 random steps: insert an item not on the queue at the head or
	 * tail, or remove the one at a random position. */
	for (k = 0; k < 2000; k++) {
		seed = seed * 1103515245u + 12345u;
		if (n < 64 && (n == 0 || (seed >> 16) % 3 != 0)) {
			struct item *it = NULL;

			/* the lowest-numbered item not queued */
			for (i = 0; i < 64 && !it; i++) {
				size_t j;
				bool in = false;

				for (j = 0; j < n; j++)
					in = in || model[j] == (int)i;
				if (!in)
					it = &items[i];
			}
			if ((seed >> 20) & 1) {
				WC_TAILQ_INSERT_TAIL(&q, it, link);
				model[n++] = it->v;
			} else {
				WC_TAILQ_INSERT_HEAD(&q, it, link);
				memmove(model + 1, model, n * sizeof(model[0]));
				model[0] = it->v;
				n++;
			}
		} else {
			size_t pos = (seed >> 8) % n;

			WC_TAILQ_REMOVE(&q, &items[model[pos]], link);
			ck_assert_ptr_null(items[model[pos]].link.tqe_next);
			memmove(model + pos, model + pos + 1,
				(n - pos - 1) * sizeof(model[0]));
			n--;
		}
		expect(&q, model, n);
		if (n)
			ck_assert_int_eq(WC_TAILQ_FIRST(&q)->v, model[0]);
		else
			ck_assert_ptr_null(WC_TAILQ_FIRST(&q));
	}
}
END_TEST

START_TEST(test_foreach_safe_removes)
{
	struct itemq q;
	struct item items[10], *it, *tmp;
	const int odd[] = { 1, 3, 5, 7, 9 };
	size_t i;

	WC_TAILQ_INIT(&q);
	for (i = 0; i < 10; i++) {
		items[i].v = (int)i;
		WC_TAILQ_INSERT_TAIL(&q, &items[i], link);
	}
	WC_TAILQ_FOREACH_SAFE(it, &q, link, tmp)
		if (it->v % 2 == 0)
			WC_TAILQ_REMOVE(&q, it, link);
	expect(&q, odd, 5);
	WC_TAILQ_FOREACH_SAFE(it, &q, link, tmp)
		WC_TAILQ_REMOVE(&q, it, link);
	expect(&q, odd, 0);
	/* empty again, it takes elements at the tail as a new queue does */
	WC_TAILQ_INSERT_TAIL(&q, &items[3], link);
	expect(&q, odd + 1, 1);
}
END_TEST

START_TEST(test_two_queues)
{
	struct itemq a;
	struct otherq b;
	struct item items[4], *it;
	const int all[] = { 0, 1, 2, 3 }, rest[] = { 0, 2, 3 };
	int seen = 0;
	size_t i;

	WC_TAILQ_INIT(&a);
	WC_TAILQ_INIT(&b);
	for (i = 0; i < 4; i++) {
		items[i].v = (int)i;
		WC_TAILQ_INSERT_TAIL(&a, &items[i], link);
		WC_TAILQ_INSERT_HEAD(&b, &items[i], other);
	}
	WC_TAILQ_REMOVE(&b, &items[1], other);
	expect(&a, all, 4);
	WC_TAILQ_FOREACH(it, &b, other)
		seen = seen * 10 + it->v;
	ck_assert_int_eq(seen, 320);
	WC_TAILQ_REMOVE(&a, &items[1], link);
	expect(&a, rest, 3);
	ck_assert_ptr_eq(WC_TAILQ_NEXT(&items[0], link), &items[2]);
	ck_assert_ptr_null(WC_TAILQ_NEXT(&items[3], link));
}
END_TEST

static Suite *list_suite(void)
{
	Suite *s = suite_create("list");
	TCase *tc = tcase_create("tailq");

	tcase_add_test(tc, test_against_model);
	tcase_add_test(tc, test_foreach_safe_removes);
	tcase_add_test(tc, test_two_queues);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(list_suite)
