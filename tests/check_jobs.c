/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_jobs.c - unit tests of analyze/lib/analysis/jobs.c: several threads give
 * each job exactly what wc_analysis_read() alone gives it (figures and
 * failures, in each job's own slot), and the options reach every
 * thread's analysis.  Fixtures: tests/fixtures/reader.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "analysis/jobs.h"

static const char *const paths[] = {
	"tests/fixtures/reader/ext4",
	"tests/fixtures/reader/no-such-capture",
	"tests/fixtures/reader/xfs",
	"tests/fixtures/reader/ext3",
	"tests/fixtures/reader/ext4",
	"tests/fixtures/reader/xfs",
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

static void run(struct wc_job *jobs, unsigned njobs,
		const struct wc_analysis_opts *o)
{
	size_t i;

	memset(jobs, 0, NPATHS * sizeof(*jobs));
	for (i = 0; i < NPATHS; i++)
		jobs[i].path = paths[i];
	/* No summary among them: every job done. */
	ck_assert_uint_eq(wc_jobs_analyse(jobs, NPATHS, o, njobs), NPATHS);
}

static void free_jobs(struct wc_job *jobs)
{
	size_t i;

	for (i = 0; i < NPATHS; i++)
		wc_analysis_free(jobs[i].a);
}

START_TEST(test_threads_change_nothing)
{
	/* 0 is the number of CPUs; 64 is more threads than inputs. */
	static const unsigned nj[] = { 0, 2, 3, 64 };
	static struct wc_job one[NPATHS], many[NPATHS];
	size_t i;

	run(one, 1, NULL);
	run(many, nj[_i], NULL);
	for (i = 0; i < NPATHS; i++) {
		const struct wc_figures *a, *b;

		ck_assert_int_eq(one[i].status, many[i].status);
		ck_assert_str_eq(one[i].err.msg, many[i].err.msg);
		if (!one[i].a) {
			ck_assert_ptr_null(many[i].a);
			continue;
		}
		ck_assert_ptr_nonnull(many[i].a);
		ck_assert_uint_eq(wc_analysis_meta(one[i].a)->events,
				  wc_analysis_meta(many[i].a)->events);
		a = wc_analysis_main(one[i].a);
		b = wc_analysis_main(many[i].a);
		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq(a->window_ns, b->window_ns);
		ck_assert_uint_eq(wc_figures_io_bytes(a), wc_figures_io_bytes(b));
	}
	/* The missing capture fails in its own slot, the others do not. */
	ck_assert_int_lt(many[1].status, 0);
	ck_assert_ptr_null(many[1].a);
	ck_assert_int_eq(many[0].status, 0);
	ck_assert_int_eq(many[5].status, 0);
	ck_assert_uint_gt(wc_analysis_meta(many[3].a)->events, 0);
	/* The same capture twice gives the same figures. */
	ck_assert_uint_eq(wc_analysis_meta(many[0].a)->events,
			  wc_analysis_meta(many[4].a)->events);
	free_jobs(one);
	free_jobs(many);
}
END_TEST

/* The options reach every thread's analysis: the series asked for are
 * there, btt switched off is not. */
START_TEST(test_options_reach_threads)
{
	static struct wc_job jobs[NPATHS];
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	size_t i;

	o.series = true;
	o.btt = false;
	run(jobs, 4, &o);
	for (i = 0; i < NPATHS; i++) {
		if (!jobs[i].a)
			continue;
		ck_assert(wc_analysis_has_series(jobs[i].a));
		ck_assert_ptr_nonnull(wc_analysis_series(
			jobs[i].a, wc_analysis_meta(jobs[i].a)->main_device));
		ck_assert_ptr_null(wc_analysis_btt(jobs[i].a));
	}
	free_jobs(jobs);
}
END_TEST

START_TEST(test_cpus)
{
	ck_assert_uint_ge(wc_jobs_cpus(), 1);
}
END_TEST

static Suite *jobs_suite(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("jobs");

	wc_check_timeout(tc, 60);
	tcase_add_loop_test(tc, test_threads_change_nothing, 0, 4);
	tcase_add_test(tc, test_options_reach_threads);
	tcase_add_test(tc, test_cpus);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(jobs_suite)
