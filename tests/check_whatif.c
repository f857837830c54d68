/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_whatif.c - unit tests of analyze/lib/disk/whatif.c: how often the
 * what-if reads its input, and its bound on the requests it holds.
 *
 * Every pass over a capture archive, whoever in the library makes it,
 * is counted (check_opens.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "check_opens.h"
#include "disk/whatif.h"
#include "input/source.h"

#define SAMPLE "samples/hdd7200-ext4-cache-on-barrier-on-run2.tar.xz"
#define SSD_SAMPLE "samples/ssd-ext4-cache-on-barrier-on-run2.tar.xz"

static void disks(void)
{
	const char *top = getenv("WC_TOP");
	char d[4096];

	snprintf(d, sizeof(d), "%s/capture/disks", top ? top : ".");
	setenv("WCANALYZE_DISKS", d, 1);
}

static void specs(struct wc_whatif_spec *s, size_t n)
{
	static const char *const text[] = { "cache=off",
					    "disk=ssd,barrier=off",
					    "kernel=2.6.24" };
	struct wc_err err;
	size_t i;

	for (i = 0; i < n; i++) {
		wc_err_clear(&err);
		ck_assert_msg(wc_whatif_spec_parse(&s[i], text[i], &err) == 0,
			      "%s", err.msg);
	}
}

/* A what-if of PATH with three what-ifs: its passes over an archive
 * (*passes) and its opens of PATH, whatever they read (*opens). */
static void whatif_opens(const char *path, unsigned *passes, unsigned *opens)
{
	struct wc_whatif_spec s[3];
	struct wc_whatif *w = NULL;
	struct wc_err err;

	disks();
	specs(s, 3);
	wc_err_clear(&err);
	wc_check_archive_opens = 0;
	wc_check_path_opens = 0;
	wc_check_watch = path;
	ck_assert_msg(wc_whatif_replay(&w, path, s, 3, NULL, &err) == 0, "%s",
		      err.msg);
	wc_check_watch = NULL;
	ck_assert_uint_eq(wc_whatif_count(w), 5);
	*passes = wc_check_archive_opens;
	*opens = wc_check_path_opens;
	wc_whatif_free(w);
}

/* Passes over the archive PATH by the analysis alone (*alone) and by a
 * what-if of it (*whatif), and the what-if's opens of PATH (*opens). */
static void count_opens(const char *path, unsigned *alone, unsigned *whatif,
			unsigned *opens)
{
	struct wc_analysis *a = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	wc_check_archive_opens = 0;
	ck_assert_msg(wc_analysis_read(&a, path, NULL, &err) == 0, "%s",
		      err.msg);
	*alone = wc_check_archive_opens;
	wc_analysis_free(a);
	whatif_opens(path, whatif, opens);
}

/* The capture, its replay as recorded and three what-ifs: one open of
 * the archive for the whole what-if, the peek that tells an archive from
 * a trace file included, and one pass over it (lim.once, inputdefs.h):
 * the scan holds or copies aside every trace file and the ledger, which
 * lie before and after each other as the archive has them, and keeps
 * info/disk.conf; the replays take the requests from memory.  The
 * analysis alone makes one pass too: capture.conf, first, names a model
 * disk, so its scan reads on as the what-if's does (lim.once_model),
 * where it made two before (the trace files, its scan stopping at the
 * last; then the ledger after them). */
START_TEST(reads_input_once)
{
	static const char *const samples[] = { SSD_SAMPLE, SAMPLE };
	unsigned alone, whatif, opens;
	size_t i;

	for (i = 0; i < 2; i++) {
		count_opens(samples[i], &alone, &whatif, &opens);
		ck_assert_uint_eq(alone, 1);
		ck_assert_msg(whatif == 1 && opens == 1, "%s: %u passes over "
			      "the archive, %u opens of it; the analysis "
			      "alone %u passes", samples[i], whatif, opens,
			      alone);
	}
}
END_TEST

/* A single trace file (one CPU file of the ssd sample's busiest device,
 * named so that it stands for itself): opened once, by the peek that
 * tells it from an archive, whose descriptor the stream then reads. */
START_TEST(single_file_once)
{
	struct wc_source *src = NULL;
	const unsigned char *p;
	const char *path = wc_check_path("one.bin");
	unsigned passes, opens;
	struct wc_err err;
	FILE *f;
	ssize_t n;

	wc_err_clear(&err);
	ck_assert_msg(wc_source_open_member(&src, SSD_SAMPLE,
					    "ssd-ext4-cache-on-barrier-on-run2/"
					    "trace/loop2.blktrace.1", 0, &err) == 0,
		      "%s", err.msg);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	while ((n = wc_source_peek(src, 65536, &p, &err)) > 0) {
		ck_assert_uint_eq(fwrite(p, 1, (size_t)n, f), (size_t)n);
		wc_source_consume(src, (size_t)n);
	}
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(fclose(f), 0);
	wc_source_free(src);

	whatif_opens(path, &passes, &opens);
	ck_assert_uint_eq(passes, 0);
	ck_assert_msg(opens == 1, "%s opened %u times", path, opens);
}
END_TEST

/* Past the requests it may hold, the what-if stops with an input error
 * that gives the bound, and hands out nothing. */
START_TEST(request_bound)
{
	struct wc_whatif_opts o = { .analysis = WC_ANALYSIS_OPTS_INIT,
				    .max_requests = 100 };
	struct wc_whatif_spec s[1];
	struct wc_whatif *w = NULL;
	struct wc_err err;

	disks();
	specs(s, 1);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_whatif_replay(&w, SAMPLE, s, 1, &o, &err), -1);
	ck_assert_ptr_null(w);
	ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	ck_assert_msg(strstr(err.msg, "more than 100 requests: --what-if "
			     "holds them in memory, at most 100"), "%s",
		      err.msg);

	/* 0: the default bound, which the sample is well under */
	o.max_requests = 0;
	wc_err_clear(&err);
	ck_assert_msg(wc_whatif_replay(&w, SAMPLE, s, 1, &o, &err) == 0, "%s",
		      err.msg);
	wc_whatif_free(w);
}
END_TEST

static Suite *whatif_suite(void)
{
	Suite *s = suite_create("whatif");
	TCase *tc = tcase_create("input");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, reads_input_once);
	tcase_add_test(tc, single_file_once);
	tcase_add_test(tc, request_bound);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(whatif_suite)
