/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_kcounters.c - unit tests of analyze/lib/analysis/kcounters.c: the
 * trace's completions between two readings of a device's stat file
 * against the kernel's differences, empty flushes counted as the kernel
 * counts them, completions during a reading apart, lost events found.
 */
#include <check.h>
#include <string.h>

#include "analysis/kcounters.h"
#include "format/blktrace_format.h"
#include "check_common.h"

#define DEV WC_DEV_MAKE(254, 0)

static struct wc_capture *capture(const char *counters)
{
	static const char conf[] = "devices = vda\ndevice.vda.dev = 254:0\n";
	struct wc_capture *c = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_capture_new(&c, &err), 0);
	wc_capture_parse_conf(c, conf, sizeof(conf) - 1, "capture.conf");
	if (counters)
		wc_capture_parse_counters(c, counters, strlen(counters),
					  "counters.tsv");
	return c;
}

static struct wc_request rq(uint64_t action, uint32_t bytes, uint64_t q,
			    uint64_t d, uint64_t c)
{
	struct wc_request r;

	memset(&r, 0, sizeof(r));
	r.device = DEV;
	r.action = action;
	r.bytes = bytes;
	r.q_time = q;
	r.d_time = d;
	r.c_time = c;
	r.completed = true;
	return r;
}

static void run(const char *counters, struct wc_kcheck *out)
{
	struct wc_capture *c = capture(counters);
	struct wc_kcount *k = NULL;
	struct wc_err err;
	struct wc_request r[7];
	size_t i;

	wc_err_clear(&err);
	r[0] = rq(0, 4096, 50, 90, 95);                       /* before */
	r[1] = rq(0, 4096, 100, 110, 150);                    /* during */
	r[2] = rq(WC_TC(WC_TC_WRITE), 8192, 200, 210, 300);
	r[3] = rq(WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_FLUSH), 0, 310, 320, 400);
	r[4] = rq(WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_FLUSH), 0, WC_NO_TIME,
		  410, 500);                   /* the block layer's own */
	r[5] = rq(WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_DISCARD), 1024, 510, 520,
		  600);
	r[6] = rq(WC_TC(WC_TC_WRITE), 512, 600, 610, 2000);   /* after */
	ck_assert_int_eq(wc_kcount_new(&k, c, &err), 0);
	for (i = 0; i < 7; i++)
		wc_kcount_add(k, &r[i]);
	wc_kcount_finish(k, out);
	wc_kcount_free(k);
	wc_kcount_free(NULL);
	wc_capture_free(c);
}

#define HEAD "when\tdevice\tdisk\tstart_ns\tend_ns\tstat\n"

START_TEST(test_agrees)
{
	struct wc_kcheck k;
	const struct wc_kc_device *d;

	/* 1 read of 8 sectors (the one at 150 is during the reading: in
	 * it or not), 2 writes (one an empty flush's), 16 sectors, 1
	 * discard of 2 sectors, 2 flushes; io_ticks 1 ms. */
	run(HEAD "before\tvda\tvda\t100\t200\t5 0 40 0 7 0 70 0 0 10 0 3 0 6 0 4 0\n"
	    "after\tvda\tvda\t1000\t1100\t6 0 48 0 9 0 86 0 0 11 0 4 0 8 0 6 0\n",
	    &k);
	ck_assert_int_eq(k.state, WC_KC_COMPARED);
	ck_assert_uint_eq(k.ndevices, 1);
	d = &k.dev[0];
	ck_assert_str_eq(d->name, "vda");
	ck_assert_uint_eq(d->start, 200);
	ck_assert_uint_eq(d->end, 1000);
	ck_assert_uint_eq(d->fig[WC_KC_READS].trace, 0);
	ck_assert_uint_eq(d->fig[WC_KC_READS].maybe, 1);
	ck_assert_uint_eq(d->fig[WC_KC_WRITES].kernel, 2);
	ck_assert_uint_eq(d->fig[WC_KC_WRITES].trace, 2);
	ck_assert_uint_eq(d->empty_flush_writes, 1);
	ck_assert_uint_eq(d->fig[WC_KC_WRITE_SECTORS].trace, 16);
	ck_assert_uint_eq(d->fig[WC_KC_DISCARDS].trace, 1);
	ck_assert_uint_eq(d->fig[WC_KC_DISCARD_SECTORS].trace, 2);
	ck_assert_uint_eq(d->fig[WC_KC_FLUSHES].trace, 2);
	ck_assert(wc_kc_device_agrees(d));
	ck_assert(wc_kc_held_pct(&d->fig[WC_KC_WRITES]) == 100.0);
	ck_assert(d->io_ticks_known);
	ck_assert_uint_eq(d->io_ticks_ms, 1);
	/* Slices 210-300, 320-400, 410-500, 520-600, and 610-2000 cut
	 * at the after reading, 1000. */
	ck_assert_uint_eq(d->busy_ns, 90 + 80 + 90 + 80 + 390);

	/* The read during the before reading may be out of it too. */
	run(HEAD "before\tvda\tvda\t100\t200\t5 0 40 0 7 0 70 0 0 10 0 3 0 6 0 4 0\n"
	    "after\tvda\tvda\t1000\t1100\t5 0 40 0 9 0 86 0 0 11 0 4 0 8 0 6 0\n",
	    &k);
	ck_assert(wc_kc_device_agrees(&k.dev[0]));
}
END_TEST

START_TEST(test_lost_and_extra)
{
	struct wc_kcheck k;
	const struct wc_kc_device *d;

	/* The kernel completed 1,204 writes more; one flush fewer. */
	run(HEAD "before\tvda\tvda\t100\t200\t5 0 40 0 7 0 70 0 0 10 0 3 0 6 0 4 0\n"
	    "after\tvda\tvda\t1000\t1100\t6 0 48 0 1213 0 86 0 0 11 0 4 0 8 0 5 0\n",
	    &k);
	d = &k.dev[0];
	ck_assert(!wc_kc_device_agrees(d));
	ck_assert_uint_eq(d->fig[WC_KC_WRITES].missing, 1204);
	ck_assert_uint_eq(d->fig[WC_KC_FLUSHES].extra, 1);
	ck_assert(wc_kc_held_pct(&d->fig[WC_KC_WRITES]) < 0.2);
}
END_TEST

START_TEST(test_older_kernels_and_none)
{
	struct wc_kcheck k;

	/* 11 fields: no discards, no flushes to compare. */
	run(HEAD "before\tvda\tvda\t100\t200\t5 0 40 0 7 0 70 0 0 10 0\n"
	    "after\tvda\tvda\t1000\t1100\t6 0 48 0 9 0 86 0 0 11 0\n", &k);
	ck_assert_int_eq(k.state, WC_KC_COMPARED);
	ck_assert(k.dev[0].fig[WC_KC_WRITES].known);
	ck_assert(!k.dev[0].fig[WC_KC_DISCARDS].known);
	ck_assert(!k.dev[0].fig[WC_KC_FLUSHES].known);
	/* A counter that went backwards is unknown. */
	run(HEAD "before\tvda\tvda\t100\t200\t5 0 40 0 7 0 70 0 0 10 0\n"
	    "after\tvda\tvda\t1000\t1100\t6 0 48 0 1 0 86 0 0 11 0\n", &k);
	ck_assert(!k.dev[0].fig[WC_KC_WRITES].known);
	/* No counters.tsv; one without an after reading. */
	run(NULL, &k);
	ck_assert_int_eq(k.state, WC_KC_NONE);
	run(HEAD "before\tvda\tvda\t100\t200\t5 0 40 0 7 0 70 0 0 10 0\n"
	    "before\tsda2\tsda\t100\t200\t1 2 3 4\n", &k);
	ck_assert_int_eq(k.state, WC_KC_UNUSABLE);
	ck_assert_str_eq(k.why, "vda: no reading after the workload");
	ck_assert_uint_eq(k.partitions, 1);
}
END_TEST

START_TEST(test_words)
{
	struct wc_kc_device d;
	char buf[160];

	memset(&d, 0, sizeof(d));
	ck_assert_str_eq(wc_kc_held_words(&d, buf, sizeof(buf)),
			 "the kernel completed no request between the readings");
	ck_assert_int_eq(wc_kc_device_least_held(&d), WC_KC_NFIELDS);
	/* 997 of 1,000 writes (three lost), every read. */
	d.fig[WC_KC_READS] = (struct wc_kc_figure){ .known = true,
		.kernel = 10, .trace = 10 };
	d.fig[WC_KC_WRITES] = (struct wc_kc_figure){ .known = true,
		.kernel = 1000, .trace = 996, .maybe = 1, .missing = 3 };
	ck_assert_int_eq(wc_kc_device_least_held(&d), WC_KC_WRITES);
	ck_assert_str_eq(wc_kc_held_words(&d, buf, sizeof(buf)),
			 "the trace holds 99.7 % of the writes the kernel "
			 "completed");
	/* One in ten thousand lost: cut to 99.9, never 100. */
	d.fig[WC_KC_WRITES] = (struct wc_kc_figure){ .known = true,
		.kernel = 10000, .trace = 9999, .missing = 1 };
	ck_assert_uint_eq(wc_kc_held_permille(&d.fig[WC_KC_WRITES]), 999);
	ck_assert_str_eq(wc_kc_held_words(&d, buf, sizeof(buf)),
			 "the trace holds 99.9 % of the writes the kernel "
			 "completed");
	/* Fewer reads held: they are named, not the writes. */
	d.fig[WC_KC_READS] = (struct wc_kc_figure){ .known = true,
		.kernel = 10, .trace = 5, .missing = 5 };
	ck_assert_str_eq(wc_kc_held_words(&d, buf, sizeof(buf)),
			 "the trace holds 50.0 % of the reads the kernel "
			 "completed");
	/* Everything held; more than the kernel is still 100 %. */
	d.fig[WC_KC_READS].trace = 12;
	d.fig[WC_KC_READS].missing = 0;
	d.fig[WC_KC_READS].extra = 2;
	d.fig[WC_KC_WRITES].trace = 10000;
	d.fig[WC_KC_WRITES].missing = 0;
	ck_assert_uint_eq(wc_kc_held_permille(&d.fig[WC_KC_READS]), 1000);
	ck_assert_str_eq(wc_kc_held_words(&d, buf, sizeof(buf)),
			 "the trace holds 100 % of the writes the kernel "
			 "completed");
	/* Cut to the buffer, terminated. */
	ck_assert_str_eq(wc_kc_held_words(&d, buf, 10), "the trace");
}
END_TEST

static Suite *kcounters_suite(void)
{
	Suite *s = suite_create("kcounters");
	TCase *tc = tcase_create("compare");

	tcase_add_test(tc, test_agrees);
	tcase_add_test(tc, test_lost_and_extra);
	tcase_add_test(tc, test_older_kernels_and_none);
	tcase_add_test(tc, test_words);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(kcounters_suite)
