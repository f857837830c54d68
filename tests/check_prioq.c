/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_prioq.c - unit tests of analyze/lib/base/prioq.c.
 *
 * The heap is checked against a plain model (an array searched for its
 * smallest entry by the same order: key, tie, then insertion) over long
 * random sequences of put, get and replace with many equal keys, so both
 * the order and its first-in-first-out tie rule are what the header says.
 */
#include <check.h>
#include <stdlib.h>

#include "check_common.h"
#include "base/prioq.h"

#define MODEL_MAX 4096

struct model {
	struct wc_prioq_entry e[MODEL_MAX];
	size_t n;
	uint64_t ctr;
};

static int m_before(const struct wc_prioq_entry *x, const struct wc_prioq_entry *y)
{
	if (x->key != y->key)
		return x->key < y->key;
	if (x->tie != y->tie)
		return x->tie < y->tie;
	return x->ctr < y->ctr;
}

static size_t m_min(const struct model *m)
{
	size_t i, best = 0;

	for (i = 1; i < m->n; i++)
		if (m_before(&m->e[i], &m->e[best]))
			best = i;
	return best;
}

static void m_put(struct model *m, uint64_t key, uint64_t tie, size_t item)
{
	struct wc_prioq_entry e = { key, tie, m->ctr++, item };

	m->e[m->n++] = e;
}

static struct wc_prioq_entry m_get(struct model *m)
{
	size_t i = m_min(m);
	struct wc_prioq_entry e = m->e[i];

	m->e[i] = m->e[--m->n];
	return e;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

START_TEST(test_matches_model)
{
	static struct model m;
	struct wc_prioq *q = NULL;
	struct wc_prioq_entry got, want;
	uint64_t seed = 0x9e3779b97f4a7c15ull + (uint64_t)_i;
	size_t item = 0;
	int step;

	m.n = 0;
	m.ctr = 0;
	/* Hint 0 on every other run: the heap must grow by itself. */
	ck_assert_int_eq(wc_prioq_open(&q, (_i & 1) ? 0 : 8, NULL), 0);
	for (step = 0; step < 20000; step++) {
		unsigned op = (unsigned)(rnd(&seed) % 10);
		/* Few distinct keys and ties: equal entries everywhere. */
		uint64_t key = rnd(&seed) % 16, tie = rnd(&seed) % 3;

		if (op < 5 && m.n < MODEL_MAX) {
			ck_assert_int_eq(wc_prioq_put(q, key, tie, item, NULL), 0);
			m_put(&m, key, tie, item++);
		} else if (op < 8) {
			if (m.n == 0) {
				ck_assert_int_eq(wc_prioq_get(q, &got), 0);
				continue;
			}
			want = m_get(&m);
			ck_assert_int_eq(wc_prioq_get(q, &got), 1);
			ck_assert_uint_eq(got.item, want.item);
			ck_assert_uint_eq(got.key, want.key);
			ck_assert_uint_eq(got.tie, want.tie);
		} else {
			/* replace = get then put, the new entry last in. */
			if (m.n > 0) {
				want = m_get(&m);
				ck_assert_int_eq(wc_prioq_peek(q, &got), 1);
				ck_assert_uint_eq(got.item, want.item);
			}
			ck_assert_int_eq(wc_prioq_replace(q, key, tie, item, NULL), 0);
			m_put(&m, key, tie, item++);
		}
		ck_assert_uint_eq(wc_prioq_count(q), m.n);
	}
	while (m.n > 0) {
		want = m_get(&m);
		ck_assert_int_eq(wc_prioq_get(q, &got), 1);
		ck_assert_uint_eq(got.item, want.item);
	}
	ck_assert_int_eq(wc_prioq_get(q, &got), 0);
	ck_assert_int_eq(wc_prioq_peek(q, &got), 0);
	wc_prioq_free(q);
}
END_TEST

START_TEST(test_equal_keys_first_in_first_out)
{
	struct wc_prioq *q = NULL;
	struct wc_prioq_entry e;
	size_t i;

	ck_assert_int_eq(wc_prioq_open(&q, 1, NULL), 0);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(wc_prioq_put(q, 7, 1, i, NULL), 0);
	ck_assert_int_eq(wc_prioq_put(q, 7, 0, 1000, NULL), 0);
	ck_assert_int_eq(wc_prioq_put(q, 6, 9, 2000, NULL), 0);
	ck_assert_int_eq(wc_prioq_get(q, &e), 1);
	ck_assert_uint_eq(e.item, 2000);      /* smaller key */
	ck_assert_int_eq(wc_prioq_get(q, &e), 1);
	ck_assert_uint_eq(e.item, 1000);      /* same key, smaller tie */
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(wc_prioq_get(q, &e), 1);
		ck_assert_uint_eq(e.item, i);
	}
	ck_assert_uint_eq(wc_prioq_count(q), 0);
	wc_prioq_free(q);
}
END_TEST

START_TEST(test_replace_on_empty_puts)
{
	struct wc_prioq *q = NULL;
	struct wc_prioq_entry e;

	ck_assert_int_eq(wc_prioq_open(&q, 0, NULL), 0);
	ck_assert_int_eq(wc_prioq_replace(q, 3, 0, 42, NULL), 0);
	ck_assert_uint_eq(wc_prioq_count(q), 1);
	ck_assert_int_eq(wc_prioq_peek(q, &e), 1);
	ck_assert_uint_eq(e.item, 42);
	ck_assert_uint_eq(wc_prioq_count(q), 1);
	wc_prioq_free(q);
	wc_prioq_free(NULL);
}
END_TEST

static Suite *prioq_suite(void)
{
	Suite *s = suite_create("prioq");
	TCase *tc = tcase_create("heap");

	wc_check_timeout(tc, 30);
	tcase_add_loop_test(tc, test_matches_model, 0, 4);
	tcase_add_test(tc, test_equal_keys_first_in_first_out);
	tcase_add_test(tc, test_replace_on_empty_puts);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(prioq_suite)
