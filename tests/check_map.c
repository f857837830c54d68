/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_map.c - unit tests of analyze/lib/base/map.c: against a plain array
 * model with keys that collide on purpose (multiples of a large power of
 * two, 0 and UINT64_MAX), values surviving every growth, the bound, a
 * value-less set, the sizes it refuses, keys aimed at one slot of the
 * hash it once had, and its hash against SipHash's published values.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "base/map.h"
#include "base/map_test.h"

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

/* The multiplier of Fibonacci hashing, which the map once took a key's
 * slot from (the high half of key * FIB, masked), as anyone can read in
 * its history: what a stranger would aim keys at. */
#define FIB UINT64_C(0x9e3779b97f4a7c15)

/* FIB's inverse modulo 2^64, by Newton's iteration: an odd x is its own
 * inverse modulo 8, and each step doubles the bits that are right. */
static uint64_t fib_inverse(void)
{
	uint64_t inv = FIB;
	int i;

	for (i = 0; i < 5; i++)
		inv *= 2 - FIB * inv;
	return inv;
}

/* Keys a stranger chooses to collide: the products of key t with FIB are
 * t << 50, whose bits 32 to 49 are all zero, so under Fibonacci hashing
 * every one of them took slot 0 of every table up to 2^18 slots and
 * together made one run, each look-up walking all of it (as 4,096 pids
 * or (device, CPU) pairs in a trace could, looked up at every event).
 * Under the map's hash they must spread as any keys do.  A run of L
 * slots needs L keys whose slots fall inside it: at most half full,
 * Chernoff's bound makes that (a e^(1-a))^L <= 0.83^L for load a, so a
 * run past 256 slots anywhere in the 8,192 is rarer than one in 10^16;
 * these keys, colliding, make one of 4,096. */
START_TEST(test_keys_aimed_at_one_slot)
{
	enum { N = 4096 };
	const uint64_t inv = fib_inverse();
	struct wc_map *m = NULL;
	uint64_t t;
	void *v;

	ck_assert_uint_eq(FIB * inv, 1);
	ck_assert_int_eq(wc_map_open(&m, sizeof(uint64_t), N, NULL), 0);
	for (t = 0; t < N; t++) {
		uint64_t key = inv * (t << 50);

		/* They do collide under Fibonacci hashing. */
		ck_assert_uint_eq((key * FIB) >> 32 & ((1u << 18) - 1), 0);
		ck_assert_int_eq(wc_map_put(m, key, &v, NULL), WC_MAP_ADDED);
		*(uint64_t *)v = t;
	}
	ck_assert_uint_eq(wc_map_count(m), N);
	ck_assert_uint_le(wc_map_longest_run(m), 256);
	for (t = 0; t < N; t++) {
		const uint64_t *got = wc_map_get(m, inv * (t << 50));

		ck_assert_ptr_nonnull(got);
		ck_assert_uint_eq(*got, t);
	}
	wc_map_free(m);
}
END_TEST

/* The map's hash against SipHash-1-3's published values: the low 32 bits
 * of messages 00 01 .. (len - 1) under the key 00 01 .. 0f, which Linux
 * checks its hsiphash() with on 64-bit machines (lib/siphash_kunit.c,
 * test_vectors_hsiphash: SipHash-1-3 there), and the whole 64 bits of the
 * empty message under the zero key (the reference implementation's, as
 * OCaml's testsuite has it).  Then the slot's hash, without the loop,
 * against the loop on the same 8 bytes. */
START_TEST(test_siphash_vectors)
{
	static const uint32_t want[64] = {
		0x050fc4dc, 0x7d57ca93, 0x4dc7d44d, 0xe7ddf7fb, 0x88d38328,
		0x49533b67, 0xc59f22a7, 0x9bb11140, 0x8d299a8e, 0x6c063de4,
		0x92ff097f, 0xf94dc352, 0x57b4d9a2, 0x1229ffa7, 0xc0f95d34,
		0x2a519956, 0x7d908b66, 0x63dbd80c, 0xb473e63e, 0x8d297d1c,
		0xa6cce040, 0x2b45f844, 0xa320872e, 0xdae6c123, 0x67349c8c,
		0x705b0979, 0xca9913a5, 0x4ade3b35, 0xef6cd00d, 0x4ab1e1f4,
		0x43c5e663, 0x8c21d1bc, 0x16a7b60d, 0x7a8ff9bf, 0x1f2a753e,
		0xbf186b91, 0xada26206, 0xa3c33057, 0xae3a36a1, 0x7b108392,
		0x99e41531, 0x3f1ad944, 0xc8138825, 0xc28949a6, 0xfaf8876b,
		0x9f042196, 0x68b1d623, 0x8b5114fd, 0xdf074c46, 0x12cc86b3,
		0x0a52098f, 0x9d292f9a, 0xa2f41f12, 0x43a71ed0, 0x73f0bce6,
		0x70a7e980, 0x243c6d75, 0xfdb71513, 0xa67d8a08, 0xb7e8f148,
		0xf7a644ee, 0x0f1837f2, 0x4b6694e0, 0xb7bbb3a8,
	};
	const uint64_t k0 = UINT64_C(0x0706050403020100);
	const uint64_t k1 = UINT64_C(0x0f0e0d0c0b0a0908);
	unsigned char msg[64];
	uint64_t x = 1;
	size_t i;

	for (i = 0; i < 64; i++)
		msg[i] = (unsigned char)i;
	for (i = 0; i < 64; i++)
		ck_assert_msg((uint32_t)wc_map_siphash13(k0, k1, msg, i) ==
			      want[i], "SipHash-1-3 of %zu bytes", i);
	ck_assert_uint_eq(wc_map_siphash13(0, 0, "", 0),
			  UINT64_C(0xd1fba762150c532c));
	for (i = 0; i < 1000; i++) {
		unsigned char le[8];
		int b;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		for (b = 0; b < 8; b++)
			le[b] = (unsigned char)(x >> (8 * b));
		ck_assert_uint_eq(wc_map_siphash13_u64(k0 + i, k1, x),
				  wc_map_siphash13(k0 + i, k1, le, 8));
	}
	/* The process's key: one key for equal data, all along. */
	ck_assert_uint_eq(wc_map_key_of("fs=xfs;", 7),
			  wc_map_key_of("fs=xfs;", 7));
	ck_assert_uint_ne(wc_map_key_of("fs=xfs;", 7),
			  wc_map_key_of("fs=ext4;", 8));
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
	tcase_add_test(tc, test_keys_aimed_at_one_slot);
	tcase_add_test(tc, test_siphash_vectors);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(map_suite)
