/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_map.c - unit tests of analyze/lib/base/map.c: against a plain array
 * model with keys that collide on purpose (multiples of a large power of
 * two, 0 and UINT64_MAX), values surviving every growth, the bound, a
 * value-less set, and the sizes it refuses.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "base/map.h"

struct val {
	uint64_t key_copy;
	char name[17];
};

static uint64_t next_key(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	switch ((*state >> 60) & 3) {
	case 0:
		return (*state >> 33) << 32;     /* low bits all zero */
	case 1:
		return *state >> 50;             /* small: repeats often */
	case 2:
		return (*state >> 61) ? UINT64_MAX - (*state >> 62) : 0;
	default:
		return *state;
	}
}

START_TEST(test_against_model)
{
	enum { MAX = 3000 };
	static uint64_t model[MAX];
	struct wc_map *m = NULL;
	struct wc_err err;
	uint64_t state = 42;
	size_t n = 0, i, k;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_map_open(&m, sizeof(struct val), MAX, &err), 0);
	ck_assert_ptr_null(wc_map_get(m, 7));
	for (k = 0; k < 20000; k++) {
		uint64_t key = next_key(&state);
		struct val *v = NULL;
		bool known = false;
		int r;

		for (i = 0; i < n && !known; i++)
			known = model[i] == key;
		r = wc_map_put(m, key, (void **)&v, &err);
		if (known) {
			ck_assert_int_eq(r, WC_MAP_FOUND);
			ck_assert_uint_eq(v->key_copy, key);
		} else if (n == MAX) {
			ck_assert_int_eq(r, WC_MAP_FULL);
			ck_assert_ptr_null(v);
			ck_assert_ptr_null(wc_map_get(m, key));
		} else {
			ck_assert_int_eq(r, WC_MAP_ADDED);
			ck_assert_uint_eq(v->key_copy, 0);     /* zeroed */
			ck_assert_str_eq(v->name, "");
			v->key_copy = key;
			snprintf(v->name, sizeof(v->name), "k%llu",
				 (unsigned long long)(key % 100000));
			model[n++] = key;
		}
		ck_assert_uint_eq(wc_map_count(m), n);
	}
	ck_assert_uint_eq(n, MAX);
	/* Every key kept through every growth, with its value. */
	for (i = 0; i < n; i++) {
		struct val *v = wc_map_get(m, model[i]);
		char want[17];

		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(v->key_copy, model[i]);
		snprintf(want, sizeof(want), "k%llu",
			 (unsigned long long)(model[i] % 100000));
		ck_assert_str_eq(v->name, want);
	}
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	wc_map_free(m);
	wc_map_free(NULL);
}
END_TEST

START_TEST(test_set_and_bound)
{
	struct wc_map *m = NULL;
	struct wc_err err;
	void *v;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_map_open(&m, 0, 2, &err), 0);
	ck_assert_int_eq(wc_map_put(m, 0, &v, &err), WC_MAP_ADDED);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(wc_map_put(m, UINT64_MAX, &v, &err), WC_MAP_ADDED);
	ck_assert_int_eq(wc_map_put(m, 0, &v, &err), WC_MAP_FOUND);
	ck_assert_int_eq(wc_map_put(m, 5, &v, &err), WC_MAP_FULL);
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(wc_map_get(m, UINT64_MAX));
	ck_assert_ptr_null(wc_map_get(m, 5));
	ck_assert_uint_eq(wc_map_count(m), 2);
	/* Cleared: every key gone, room for new ones, values zeroed. */
	wc_map_clear(m);
	ck_assert_uint_eq(wc_map_count(m), 0);
	ck_assert_ptr_null(wc_map_get(m, 0));
	ck_assert_ptr_null(wc_map_get(m, UINT64_MAX));
	ck_assert_int_eq(wc_map_put(m, 5, &v, &err), WC_MAP_ADDED);
	ck_assert_int_eq(wc_map_put(m, 6, &v, &err), WC_MAP_ADDED);
	ck_assert_int_eq(wc_map_put(m, 7, &v, &err), WC_MAP_FULL);
	wc_map_free(m);
	/* Before any key: nothing to clear. */
	ck_assert_int_eq(wc_map_open(&m, 8, 4, &err), 0);
	wc_map_clear(m);
	ck_assert_int_eq(wc_map_put(m, 1, &v, &err), WC_MAP_ADDED);
	ck_assert_int_eq(*(uint64_t *)v, 0);
	*(uint64_t *)v = 42;
	wc_map_clear(m);
	ck_assert_int_eq(wc_map_put(m, 1, &v, &err), WC_MAP_ADDED);
	ck_assert_int_eq(*(uint64_t *)v, 0);
	wc_map_free(m);
}
END_TEST

START_TEST(test_refused)
{
	struct wc_map *m = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_map_open(&m, 8, 0, &err), -1);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_map_open(&m, SIZE_MAX / 2, 1000, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	ck_assert_int_eq(wc_map_open(&m, 8, SIZE_MAX, NULL), -1);
}
END_TEST

/* A value pointer outlives every put that adds nothing (input.c's
 * per-stream sequence caches rely on it): puts that find their key,
 * and puts refused past the bound, leave the array where it was. */
START_TEST(test_found_moves_nothing)
{
	struct wc_map *m = NULL;
	void *v, *first, *w;
	uint64_t k;

	ck_assert_int_eq(wc_map_open(&m, sizeof(uint64_t), 64, NULL), 0);
	ck_assert_int_eq(wc_map_put(m, 1000, &first, NULL), WC_MAP_ADDED);
	*(uint64_t *)first = 77;
	for (k = 1; k < 64; k++)
		ck_assert_int_ge(wc_map_put(m, k, &v, NULL), 0);
	/* Added keys may have moved it: take it again. */
	ck_assert_int_eq(wc_map_put(m, 1000, &first, NULL), WC_MAP_FOUND);
	for (k = 0; k < 2000; k++) {
		uint64_t key = k % 128;
		int r = wc_map_put(m, key, &v, NULL);

		ck_assert_int_eq(r, key >= 1 && key < 64 ? WC_MAP_FOUND :
				 WC_MAP_FULL);
		w = wc_map_get(m, 1000);
		ck_assert_ptr_eq(w, first);
	}
	ck_assert_uint_eq(*(uint64_t *)first, 77);
	wc_map_free(m);
}
END_TEST

static Suite *map_suite(void)
{
	Suite *s = suite_create("map");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, test_against_model);
	tcase_add_test(tc, test_set_and_bound);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_found_moves_nothing);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(map_suite)
