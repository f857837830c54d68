/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_blknames.c - unit tests of analyze/lib/input/blknames.c: a pid is named
 * when blkparse would have read its name, by 512-record batches of each
 * per-CPU file, not when the reader meets the notify; the first name
 * read stays; a stream held in memory and a file scout the same.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/blknames.h"
#include "check_common.h"
#include "format/encode.h"
#include "input/recfilter.h"
#include "input/streams_test.h"

#define Q_WRITE (WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE))

static void put(FILE *fp, const struct wc_event *ev)
{
	unsigned char rec[256];
	ssize_t n = wc_blk_encode(rec, sizeof(rec), ev, WC_BLK_VERSION_7,
				  false, NULL);

	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(fwrite(rec, 1, (size_t)n, fp), (size_t)n);
}

/* DIR/sda.blktrace.CPU: NREC queue events of pid 9, and after the
 * event numbered AFTER a process notify naming pid 9 NAME. */
static void write_cpu(const char *dir, unsigned cpu, unsigned nrec,
		      unsigned after, const char *name)
{
	char file[4096], comm[16] = { 0 };
	FILE *fp;
	unsigned r;

	snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, cpu);
	fp = fopen(file, "wb");
	ck_assert_ptr_nonnull(fp);
	snprintf(comm, sizeof(comm), "%s", name);
	for (r = 0; r < nrec; r++) {
		struct wc_event ev = {
			.sequence = r + 1, .time = 1000 + 2 * (uint64_t)r + cpu,
			.bytes = 4096, .action = Q_WRITE, .pid = 9,
			.device = WC_DEV_MAKE(8, 0), .cpu = cpu,
		};

		ev.sector = 8 * ev.time;
		put(fp, &ev);
		if (r == after) {
			ev.action = WC_ACTION_PROCESS;
			ev.sequence = 0;
			ev.pdu = (const unsigned char *)comm;
			ev.pdu_len = sizeof(comm);
			put(fp, &ev);
		}
	}
	ck_assert_int_eq(fclose(fp), 0);
}

/*
 * CPU 0: 1100 events, pid 9 named "zero" after its event 600, in its
 * second batch; CPU 1: 10 events, "one" after its event 4.  Pulled as
 * blkparse prints them when CPU 1 runs dry first: CPU 1's ten, then
 * CPU 0's.  With the scouts, pid 9 is "one" from CPU 1's first batch
 * and stays so; CPU 0's "zero" is never taken.  Without them ("one"
 * too, but only once the reader met it), the name comes at CPU 1's
 * sixth event.  IN_MEMORY: CPU 0's bytes are held in memory.
 */
static void pull_names(const char *dir, bool scouts, bool in_memory)
{
	struct wc_input_limits lim = { 0 };
	struct wc_recfilter *f = NULL;
	struct wc_streams *st = NULL;
	struct wc_blknames *bn = NULL;
	struct wc_event ev;
	struct wc_err err;
	char file[4096];
	unsigned n;

	wc_err_clear(&err);
	wc_input_limits_default(&lim);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_streams_new(&st, dir, &lim, f, &err), 0);
	snprintf(file, sizeof(file), "%s/sda.blktrace.0", dir);
	ck_assert_int_eq(wc_streams_add(st, file, "sda", 0, &err), 0);
	if (in_memory) {
		size_t len;
		unsigned char *b = wc_check_slurp(file, &len);

		wc_streams_hold_memory(st, 0, b, len);
	}
	snprintf(file, sizeof(file), "%s/sda.blktrace.1", dir);
	ck_assert_int_eq(wc_streams_add(st, file, "sda", 1, &err), 0);
	ck_assert_int_eq(wc_streams_seal(st, WC_STREAMS_FILES, &err), 0);
	if (scouts)
		ck_assert_int_eq(wc_blknames_open(&bn, st, f, false, &err), 0);
	for (n = 0; n < 10; n++) {
		ck_assert_int_eq(wc_streams_pull_one(st, 1, &ev, 0, &err), 1);
		if (scouts || n >= 5)
			ck_assert_str_eq(wc_recfilter_comm(f, 9), "one");
		else
			ck_assert_ptr_null(wc_recfilter_comm(f, 9));
	}
	ck_assert_int_eq(wc_streams_pull_one(st, 1, &ev, 0, &err), 0);
	for (n = 0; n < 1100; n++)
		ck_assert_int_eq(wc_streams_pull_one(st, 0, &ev, 0, &err), 1);
	ck_assert_int_eq(wc_streams_pull_one(st, 0, &ev, 0, &err), 0);
	ck_assert_str_eq(wc_recfilter_comm(f, 9), "one");
	wc_blknames_free(bn);
	wc_streams_free(st);
	wc_recfilter_free(f);
}

/*
 * CPU 0 alone holds a name, in its second batch: blkparse knows it once
 * it printed the first batch's 512 events and read the second, 88
 * events before the notify; the reader alone, at the notify.
 */
static void pull_batch(const char *dir, bool scouts, bool in_memory)
{
	struct wc_input_limits lim = { 0 };
	struct wc_recfilter *f = NULL;
	struct wc_streams *st = NULL;
	struct wc_blknames *bn = NULL;
	struct wc_event ev;
	struct wc_err err;
	char file[4096];
	unsigned n, named = 0;

	wc_err_clear(&err);
	wc_input_limits_default(&lim);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_streams_new(&st, dir, &lim, f, &err), 0);
	snprintf(file, sizeof(file), "%s/sda.blktrace.0", dir);
	ck_assert_int_eq(wc_streams_add(st, file, "sda", 0, &err), 0);
	if (in_memory) {
		size_t len;
		unsigned char *b = wc_check_slurp(file, &len);

		wc_streams_hold_memory(st, 0, b, len);
	}
	ck_assert_int_eq(wc_streams_seal(st, WC_STREAMS_FILES, &err), 0);
	if (scouts)
		ck_assert_int_eq(wc_blknames_open(&bn, st, f, false, &err), 0);
	for (n = 1; n <= 1100; n++) {
		ck_assert_int_eq(wc_streams_pull_one(st, 0, &ev, 0, &err), 1);
		if (!named && wc_recfilter_comm(f, 9))
			named = n;
	}
	/* The 513th event begins the second batch; the reader alone names
	 * pid 9 at the 602nd, the one after the notify. */
	ck_assert_uint_eq(named, scouts ? 513 : 602);
	ck_assert_str_eq(wc_recfilter_comm(f, 9), "zero");
	wc_blknames_free(bn);
	wc_streams_free(st);
	wc_recfilter_free(f);
}

START_TEST(test_batches)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", wc_check_tmpdir());
	write_cpu(dir, 0, 1100, 600, "zero");
	write_cpu(dir, 1, 10, 4, "one");
	pull_batch(dir, false, false);
	pull_batch(dir, true, false);
	pull_batch(dir, true, true);
}
END_TEST

START_TEST(test_first_name_stays)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", wc_check_tmpdir());
	write_cpu(dir, 0, 1100, 600, "zero");
	write_cpu(dir, 1, 10, 4, "one");
	pull_names(dir, false, false);
	pull_names(dir, true, false);
	pull_names(dir, true, true);
}
END_TEST

/* A single stream is the reorder window's to read as blkparse does:
 * no scouts. */
START_TEST(test_single)
{
	struct wc_input_limits lim = { .max_open = WC_INPUT_MAX_OPEN };
	struct wc_recfilter *f = NULL;
	struct wc_streams *st = NULL;
	struct wc_blknames *bn = (struct wc_blknames *)&lim;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_streams_new(&st, "m", &lim, f, &err), 0);
	ck_assert_int_eq(wc_streams_add(st, "m", "m", UINT32_MAX, &err), 0);
	ck_assert_int_eq(wc_streams_seal(st, WC_STREAMS_SINGLE, &err), 0);
	ck_assert_int_eq(wc_blknames_open(&bn, st, f, false, &err), 0);
	ck_assert_ptr_null(bn);
	wc_blknames_free(bn);
	wc_streams_free(st);
	wc_recfilter_free(f);
}
END_TEST

static Suite *blknames_suite(void)
{
	Suite *s = suite_create("blknames");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_batches);
	tcase_add_test(tc, test_first_name_stays);
	tcase_add_test(tc, test_single);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(blknames_suite)
