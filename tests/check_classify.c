/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_classify.c - unit tests of analyze/lib/model/classify.c: every rule of
 * wc_classify() in its order, both journal methods, the stable names.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "model/classify.h"

#define T(b) WC_TC(b)
#define DEV WC_DEV_MAKE(7u, 1u)

static struct wc_request rq(uint64_t flags, uint64_t sector, uint32_t bytes)
{
	struct wc_request r;

	memset(&r, 0, sizeof(r));
	r.device = DEV;
	r.action = flags;
	r.sector = sector;
	r.bytes = bytes;
	r.completed = true;
	return r;
}

START_TEST(test_names)
{
	static const char *const want[WC_NCAT] = {
		"flush", "journal", "metadata", "data_read", "data_write",
		"discard", "other",
	};
	int c;

	for (c = 0; c < WC_NCAT; c++)
		ck_assert_str_eq(wc_cat_name((enum wc_cat)c), want[c]);
	ck_assert_str_eq(wc_cat_name(WC_NCAT), "?");
	ck_assert_str_eq(wc_journal_method_name(WC_JOURNAL_RANGE), "range");
	ck_assert_str_eq(wc_journal_method_name(WC_JOURNAL_HEURISTIC),
			 "heuristic");
}
END_TEST

START_TEST(test_heuristic)
{
	struct wc_classifier cl;
	struct wc_request r;

	wc_classifier_heuristic(&cl);
	r = rq(T(WC_TC_WRITE) | T(WC_TC_FLUSH), 0, 0);            /* FN */
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_FLUSH);
	r = rq(T(WC_TC_WRITE), 0, 0);                             /* empty, no F */
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_OTHER);
	r = rq(T(WC_TC_WRITE) | T(WC_TC_DISCARD), 8, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_DISCARD);
	r = rq(T(WC_TC_WRITE) | T(WC_TC_FUA) | T(WC_TC_SYNC) | T(WC_TC_META),
	       64, 4096);                                         /* WFSM */
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_JOURNAL);
	r = rq(T(WC_TC_WRITE) | T(WC_TC_FLUSH) | T(WC_TC_SYNC), 64, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_JOURNAL);  /* FWS */
	r = rq(T(WC_TC_WRITE) | T(WC_TC_SYNC) | T(WC_TC_META), 64, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_JOURNAL);  /* WSM */
	r = rq(T(WC_TC_WRITE) | T(WC_TC_META), 64, 4096);         /* WM */
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_METADATA);
	r = rq(T(WC_TC_READ) | T(WC_TC_META) | T(WC_TC_SYNC), 64, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_METADATA); /* RSM */
	r = rq(T(WC_TC_WRITE) | T(WC_TC_SYNC), 64, 4096);         /* WS */
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_DATA_WRITE);
	r = rq(T(WC_TC_READ), 64, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_DATA_READ);
	r = rq(T(WC_TC_READ) | T(WC_TC_AHEAD), 64, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_DATA_READ);
}
END_TEST

START_TEST(test_range)
{
	struct wc_classifier cl;
	struct wc_request r;

	wc_classifier_range(&cl, DEV, 1000, 100);
	/* Inside, at both ends. */
	r = rq(T(WC_TC_WRITE) | T(WC_TC_SYNC), 1000, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_JOURNAL);
	r = rq(T(WC_TC_WRITE), 1099, 512);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_JOURNAL);
	/* Just outside: flags no longer matter. */
	r = rq(T(WC_TC_WRITE) | T(WC_TC_FUA) | T(WC_TC_META), 1100, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_METADATA);
	r = rq(T(WC_TC_WRITE) | T(WC_TC_FUA), 999, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_DATA_WRITE);
	/* Reads of the journal are not journal writes. */
	r = rq(T(WC_TC_READ), 1010, 4096);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_DATA_READ);
	/* Another device. */
	r = rq(T(WC_TC_WRITE), 1010, 4096);
	r.device = WC_DEV_MAKE(7u, 2u);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_DATA_WRITE);
	/* Device 0 means any device. */
	wc_classifier_range(&cl, 0, 1000, 100);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_JOURNAL);
	/* Flushes stay flushes even with a range. */
	r = rq(T(WC_TC_WRITE) | T(WC_TC_FLUSH), 1000, 0);
	ck_assert_int_eq(wc_classify(&cl, &r), WC_CAT_FLUSH);
}
END_TEST

START_TEST(test_fua)
{
	struct wc_request r = rq(T(WC_TC_WRITE) | T(WC_TC_FUA), 8, 4096);

	ck_assert(wc_request_is_fua(&r));
	r = rq(T(WC_TC_WRITE), 8, 4096);
	ck_assert(!wc_request_is_fua(&r));
}
END_TEST

static Suite *classify_suite(void)
{
	Suite *s = suite_create("classify");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_heuristic);
	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_fua);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(classify_suite)
