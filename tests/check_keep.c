/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_keep.c - unit tests of analyze/lib/compare/keep.c: the summary
 * of captures kept (held, then past WC_KEEP_HELD spilled) is the one
 * wc_summary_build_capsules() makes of the same capsules, report for
 * report, with a baseline named before and past the bound, and with one
 * recording given twice across it; a TMPDIR
 * that cannot take the spill fails the add past the bound, and the
 * keep then gives no summary.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "compare/keep.h"
#include "out/report.h"

#include "lib/scripted.h"

#define DEV WC_DEV_MAKE(8u, 16u)

/* One capture of a write and a flush of flush_ns, under config. */
static struct wc_capsule *capsule(const char *config, uint64_t flush_ns)
{
	const uint64_t w = WC_TC(WC_TC_WRITE);
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct scripted *s = calloc(1, sizeof(*s));
	struct wc_capture_meta m;
	struct wc_analysis *a = NULL;
	struct wc_capsule *c = NULL;
	struct wc_err err;

	ck_assert_ptr_nonnull(s);
	memset(&m, 0, sizeof(m));
	snprintf(m.config, sizeof(m.config), "%s", config);
	m.write_cache = m.barrier = m.complete = m.main_rotational = -1;
	scripted_add(s, DEV, 1000, WC_TA_QUEUE, w, 64, 4096);
	scripted_add(s, DEV, 2000, WC_TA_ISSUE, w, 64, 4096);
	scripted_add(s, DEV, 500000, WC_TA_COMPLETE, w, 64, 4096);
	scripted_add(s, DEV, 500000, WC_TA_ISSUE, w | WC_TC(WC_TC_FLUSH), 0, 0);
	scripted_add(s, DEV, 500000 + flush_ns, WC_TA_COMPLETE,
		     w | WC_TC(WC_TC_FLUSH), 0, 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, scripted_next, s, &m,
						 NULL, 0, &o, &err), 0);
	ck_assert_int_eq(wc_capsule_of(&c, a, &err), 0);
	wc_analysis_free(a);
	free(s);
	return c;
}

/* Capture k: two configurations, each capture a run of a name of its
 * own; but, when `of` is not k, capture `of` given again from input k
 * (one recording given twice, left out). */
static struct wc_capsule *nth(struct wc_capsule *const tmpl[2], size_t k,
			      size_t of)
{
	struct wc_capsule *c = wc_capsule_dup(tmpl[of % 2]);

	ck_assert_ptr_nonnull(c);
	snprintf(c->meta.name, sizeof(c->meta.name), "c%zu-run%zu", of,
		 of / 2 + 1);
	c->meta.run = (int)(of / 2 + 1);
	snprintf(c->meta.input, sizeof(c->meta.input), "in%zu.json", k);
	return c;
}

/* The reports of s in every format (the JSON one names each member
 * and gives each row), then s freed. */
static char *reports(struct wc_summary *s)
{
	static const enum wc_format formats[] = {
		WC_FORMAT_TEXT, WC_FORMAT_JSON, WC_FORMAT_CSV,
	};
	struct wc_err err;
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	wc_err_clear(&err);
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		ck_assert_msg(wc_report_write(f, formats[i], s, &err) == 0,
			      "%s", err.msg);
	ck_assert_int_eq(fclose(f), 0);
	wc_summary_free(s);
	return text;
}

static const size_t counts[] = { 1, WC_KEEP_HELD, WC_KEEP_HELD + 1, 150 };

/* n captures kept, their summary's reports against those of the same
 * capsules given at once: the default baseline, one named past the
 * bound, one named before it, and the last capture the first again. */
START_TEST(test_same_summary)
{
	const size_t n = counts[_i % 4], mode = (size_t)_i / 4;
	const size_t last_of = mode == 3 && n > 1 ? 0 : n - 1;
	char base[64];
	struct wc_summary_opts so = { .baseline = NULL };
	struct wc_capsule *tmpl[2], **caps;
	struct wc_summary *s = NULL;
	struct wc_keep *k;
	struct wc_err err;
	char *got, *want;
	size_t i;

	ck_assert_int_eq(setenv("TMPDIR", wc_check_tmpdir(), 1), 0);
	if (mode == 1 || mode == 2) {
		i = mode == 1 ? n - 1 : 0;
		snprintf(base, sizeof(base), "c%zu-run%zu", i, i / 2 + 1);
		so.baseline = base;
	}
	tmpl[0] = capsule("fs=xfs;", 1000000);
	tmpl[1] = capsule("fs=ext4;", 3000000);
	caps = calloc(n, sizeof(*caps));
	ck_assert_ptr_nonnull(caps);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_keep_open(&k, &so, &err), 0);
	for (i = 0; i < n; i++) {
		caps[i] = nth(tmpl, i, i == n - 1 ? last_of : i);
		ck_assert_msg(wc_keep_add(k, wc_capsule_dup(caps[i]),
					  &err) == 0, "%s", err.msg);
	}
	ck_assert_uint_eq(wc_keep_count(k), n);
	ck_assert_msg(wc_keep_summary(k, &s, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(s->nleft_out, last_of != n - 1);
	got = reports(s);
	ck_assert_msg(wc_summary_build_capsules(&s, caps, n, &so, &err) == 0,
		      "%s", err.msg);
	want = reports(s);
	for (i = 0; got[i] && got[i] == want[i]; i++)
		;
	ck_assert_msg(got[i] == want[i], "the reports of %zu captures kept "
		      "differ at byte %zu: '%.40s', not '%.40s'", n, i,
		      got + i, want + i);
	free(got);
	free(want);
	wc_keep_free(k);
	for (i = 0; i < n; i++)
		wc_capsule_free(caps[i]);
	free(caps);
	wc_capsule_free(tmpl[0]);
	wc_capsule_free(tmpl[1]);
}
END_TEST

/* TMPDIR missing: the captures up to the bound are held, the one past
 * it fails naming what the file was for, and no summary follows. */
START_TEST(test_no_tmpdir)
{
	const struct wc_summary_opts so = { .baseline = NULL };
	struct wc_capsule *tmpl[2];
	struct wc_summary *s = NULL;
	struct wc_keep *k;
	struct wc_err err;
	size_t i;

	ck_assert_int_eq(setenv("TMPDIR", wc_check_path("none"), 1), 0);
	tmpl[0] = capsule("fs=xfs;", 1000000);
	tmpl[1] = capsule("fs=ext4;", 3000000);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_keep_open(&k, &so, &err), 0);
	for (i = 0; i < WC_KEEP_HELD; i++)
		ck_assert_int_eq(wc_keep_add(k, nth(tmpl, i, i), &err), 0);
	ck_assert_int_eq(wc_keep_add(k, nth(tmpl, i, i), &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	ck_assert_str_eq(err.file, wc_check_path("none"));
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot make a temporary file "
				     "for the comparison's captures"));
	ck_assert_uint_eq(wc_keep_count(k), WC_KEEP_HELD + 1);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_keep_summary(k, &s, &err), -1);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	wc_keep_free(k);
	wc_keep_free(NULL);
	wc_capsule_free(tmpl[0]);
	wc_capsule_free(tmpl[1]);
}
END_TEST

static Suite *keep_suite(void)
{
	Suite *s = suite_create("keep");
	TCase *tc = tcase_create("keep");

	wc_check_timeout(tc, 60);
	tcase_add_loop_test(tc, test_same_summary, 0, 16);
	tcase_add_test(tc, test_no_tmpdir);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(keep_suite)
