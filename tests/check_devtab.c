/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_devtab.c - unit tests of analyze/lib/base/devtab.h.
 *
 * The table is checked against a plain model (the devices added, in
 * order, searched one by one): numbers in the order added, the cap, and
 * device numbers chosen to share a slot (garbage device fields) all
 * found again.
 */
#include <check.h>
#include <stdint.h>

#include "format/blktrace_format.h"
#include "check_common.h"
#include "base/devtab.h"

/* The model's answer: device's number among the n added, or -1. */
static int m_find(const uint32_t *added, unsigned n, uint32_t device)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (added[i] == device)
			return (int)i;
	return -1;
}

START_TEST(test_numbers_in_order)
{
	struct wc_devtab t;

	wc_devtab_init(&t, WC_MAX_DEVICES);
	ck_assert_int_eq(wc_devtab_find(&t, 0), -1);
	ck_assert_int_eq(wc_devtab_add(&t, WC_DEV_MAKE(7, 1)), 0);
	ck_assert_int_eq(wc_devtab_add(&t, WC_DEV_MAKE(8, 0)), 1);
	ck_assert_int_eq(wc_devtab_add(&t, WC_DEV_MAKE(7, 1)), 0);
	ck_assert_int_eq(wc_devtab_find(&t, WC_DEV_MAKE(8, 0)), 1);
	ck_assert_int_eq(wc_devtab_find(&t, WC_DEV_MAKE(7, 1)), 0);
	ck_assert_int_eq(wc_devtab_find(&t, WC_DEV_MAKE(8, 0)), 1);
	ck_assert_int_eq(wc_devtab_find(&t, WC_DEV_MAKE(8, 1)), -1);
	ck_assert_uint_eq(wc_devtab_count(&t), 2);
}
END_TEST

START_TEST(test_cap)
{
	struct wc_devtab t;
	unsigned i;

	wc_devtab_init(&t, 3);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(wc_devtab_add(&t, 100 + i), (int)i);
	ck_assert_int_eq(wc_devtab_add(&t, 200), -1);
	ck_assert_int_eq(wc_devtab_find(&t, 200), -1);
	/* A device already there is still found at the cap. */
	ck_assert_int_eq(wc_devtab_add(&t, 101), 1);
	ck_assert_uint_eq(wc_devtab_count(&t), 3);
	/* A cap above the table's is the table's. */
	wc_devtab_init(&t, 1000);
	for (i = 0; i < WC_MAX_DEVICES; i++)
		ck_assert_int_eq(wc_devtab_add(&t, i * 4099u), (int)i);
	ck_assert_int_eq(wc_devtab_add(&t, 7), -1);
}
END_TEST

/* Random device numbers, many of them sharing a slot, against the model,
 * look-ups and adds mixed. */
START_TEST(test_against_model)
{
	uint32_t added[WC_MAX_DEVICES], pool[256];
	uint64_t s = 88172645463325252ull;
	struct wc_devtab t;
	unsigned n = 0, k;

	/* Half of them with the same top byte of the hash's product's
	 * input: low bits alike, as in a corrupt field. */
	for (k = 0; k < 256; k++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		pool[k] = k & 1 ? (uint32_t)s : (uint32_t)(k << 24);
	}
	wc_devtab_init(&t, WC_MAX_DEVICES);
	for (k = 0; k < 20000; k++) {
		uint32_t d;
		int want, got;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		d = pool[s % 256];
		want = m_find(added, n, d);
		if (s & 0x100) {
			got = wc_devtab_find(&t, d);
			ck_assert_int_eq(got, want);
			continue;
		}
		if (want < 0 && n < WC_MAX_DEVICES) {
			want = (int)n;
			added[n++] = d;
		}
		got = wc_devtab_add(&t, d);
		ck_assert_int_eq(got, want);
		ck_assert_uint_eq(wc_devtab_count(&t), n);
	}
	ck_assert_uint_eq(n, WC_MAX_DEVICES);
}
END_TEST

static Suite *devtab_suite(void)
{
	Suite *s = suite_create("devtab");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_numbers_in_order);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_against_model);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(devtab_suite)
