/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_analysis.c - unit tests of analyze/lib/analysis/analysis.c over scripted
 * event sources: the main device (named or busiest), the consumers it
 * owns (btt, the per-device series) switched on and off, --journal, a source failing midway (partial result kept), the window
 * and phases partitioned to the nanosecond, btt figures wired in; one
 * input analysed on one thread and on two (o.threads) gives the same
 * report, also filtered by process, truncated or stopped early.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "check_common.h"
#include "check_trace.h"
#include "compare/summary.h"
#include "out/report.h"

#define DEV1 WC_DEV_MAKE(7u, 1u)
#define DEV2 WC_DEV_MAKE(7u, 2u)
#define W WC_TC(WC_TC_WRITE)
#define R WC_TC(WC_TC_READ)

struct src {
	const struct wc_event *ev;
	size_t n, i, fail_at;
};

static int src_next(void *ctx, struct wc_event *ev, struct wc_err *err)
{
	struct src *s = ctx;

	if (s->i == s->fail_at)
		return wc_err_set(err, WC_ERR_INPUT, "t", NULL, 96,
				  "truncated record");
	if (s->i >= s->n)
		return 0;
	*ev = s->ev[s->i++];
	return 1;
}

static struct wc_event E(uint32_t dev, uint64_t t, unsigned what,
			 uint64_t flags, uint64_t sector, uint32_t bytes)
{
	struct wc_event e;

	memset(&e, 0, sizeof(e));
	e.device = dev;
	e.time = t;
	e.action = what | flags;
	e.sector = sector;
	e.bytes = bytes;
	return e;
}

/* Two devices: DEV1 writes 3 x 4 KiB, DEV2 reads one 1 MiB. */
static const struct wc_event *script(size_t *n)
{
	static struct wc_event evs[16];
	size_t k = 0;

	evs[k++] = E(DEV1, 1000, WC_TA_QUEUE, W, 100, 4096);
	evs[k++] = E(DEV1, 1100, WC_TA_ISSUE, W, 100, 4096);
	evs[k++] = E(DEV2, 1200, WC_TA_QUEUE, R, 0, 1 << 20);
	evs[k++] = E(DEV2, 1300, WC_TA_ISSUE, R, 0, 1 << 20);
	evs[k++] = E(DEV1, 2100, WC_TA_COMPLETE, W, 100, 4096);
	evs[k++] = E(DEV1, 2200, WC_TA_QUEUE, W, 5000, 4096);
	evs[k++] = E(DEV1, 2300, WC_TA_ISSUE, W, 5000, 4096);
	evs[k++] = E(DEV1, 3300, WC_TA_COMPLETE, W, 5000, 4096);
	evs[k++] = E(DEV1, 3400, WC_TA_QUEUE, W, 9000, 4096);
	evs[k++] = E(DEV1, 3500, WC_TA_ISSUE, W, 9000, 4096);
	evs[k++] = E(DEV2, 9000, WC_TA_COMPLETE, R, 0, 1 << 20);
	evs[k++] = E(DEV1, 9500, WC_TA_COMPLETE, W, 9000, 4096);
	evs[k++] = E(DEV1, 9600, WC_TA_QUEUE, W, 9999, 4096);
	evs[k++] = E(DEV1, 9700, WC_TA_ISSUE, W, 9999, 4096);
	evs[k++] = E(DEV1, 10000, WC_TA_PLUG, 0, 0, 0);
	*n = k;
	return evs;
}

static uint64_t parts(const struct wc_figures *f)
{
	uint64_t s = f->idle_ns + f->outstanding_ns;
	int c;

	for (c = 0; c < WC_NCAT; c++)
		s += f->time_ns[c];
	return s;
}

START_TEST(test_busiest_is_main)
{
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct src s = { NULL, 0, 0, 99 };
	struct wc_analysis *a = NULL;
	const struct wc_figures *f;
	struct wc_err err;

	/* btt's second walk only when asked for: not by default. */
	s.ev = script(&s.n);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, src_next, &s, NULL, NULL,
						 0, NULL, &err), 0);
	ck_assert_ptr_null(wc_analysis_btt(a));
	wc_analysis_free(a);
	a = NULL;
	s.i = 0;
	o.btt = true;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, src_next, &s, NULL, NULL,
						 0, &o, &err), 0);
	f = wc_analysis_main(a);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->device, DEV2);
	ck_assert(!wc_analysis_meta(a)->main_from_conf);
	ck_assert_uint_eq(wc_analysis_meta(a)->events, s.n);
	ck_assert_uint_eq(f->window_ns, 10000 - 1000);
	ck_assert_uint_eq(f->time_ns[WC_CAT_DATA_READ], 9000 - 1300);
	ck_assert_uint_eq(parts(f), f->window_ns);
	ck_assert_int_eq(wc_analysis_meta(a)->journal_method,
			 WC_JOURNAL_HEURISTIC);
	ck_assert_uint_eq(wc_btt_q2c(wc_analysis_btt(a))->n, 4);
	/* series are off unless asked for */
	ck_assert(!wc_analysis_has_series(a));
	ck_assert_ptr_null(wc_analysis_series(a, DEV1));
	ck_assert_uint_eq(wc_btt_d2c(wc_analysis_btt(a))->n, 4);
	wc_analysis_free(a);
	wc_analysis_free(NULL);
}
END_TEST

/* A copy ends when its data is on the platter: the window whose busy
 * times are compared runs to the durable time capture.conf gives (the
 * drive's destage after the last sync, no request: off the device), not
 * to the trace's last event; a durable time not believed changes
 * nothing. */
START_TEST(test_durable_window)
{
	static const struct {
		uint64_t returned, durable, window;
		bool has, extended;
	} cases[] = {
		{ 9000, 15000, 15000 - 1000, true, true },
		{ 9000, 9500, 10000 - 1000, true, false }, /* before the end */
		{ 0, 0, 10000 - 1000, false, false },      /* none */
		{ 500, 15000, 10000 - 1000, true, false }, /* before the trace */
		{ 9000, 10000 + WC_DURABLE_MAX_NS + 1, 10000 - 1000, true, false },
	};
	struct src s = { NULL, 0, 0, 99 };
	struct wc_capture_meta meta;
	struct wc_analysis *a = NULL;
	const struct wc_figures *f;
	struct wc_err err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&meta, 0, sizeof(meta));
		strcpy(meta.name, "cap");
		meta.write_cache = meta.barrier = meta.complete = -1;
		meta.main_device = DEV1;
		meta.main_from_conf = true;
		meta.has_durable = cases[i].has;
		meta.returned_ns = cases[i].returned;
		meta.durable_ns = cases[i].durable;
		s.ev = script(&s.n);
		s.i = 0;
		wc_err_clear(&err);
		ck_assert_int_eq(wc_analysis_read_source(&a, src_next, &s, &meta,
							 NULL, 0, NULL, &err), 0);
		f = wc_analysis_main(a);
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(f->window_ns, cases[i].window);
		ck_assert_uint_eq(parts(f), f->window_ns);
		ck_assert(wc_analysis_meta(a)->durable_window == cases[i].extended);
		wc_analysis_free(a);
		a = NULL;
	}
}
END_TEST

START_TEST(test_named_main_series_journal_phases)
{
	struct wc_phase ph[2] = {
		{ "copy", 1000, 3000, 0, 0, 0 },
		{ "delete", 3000, 10000, 0, 0, 0 },
	};
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct src s = { NULL, 0, 0, 99 };
	struct wc_capture_meta meta;
	struct wc_analysis *a = NULL;
	const struct wc_figures *f;
	const struct wc_series *s1, *s2;
	struct wc_err err;
	size_t p;

	memset(&meta, 0, sizeof(meta));
	strcpy(meta.name, "cap");
	meta.write_cache = meta.barrier = meta.complete = -1;
	meta.main_device = DEV1;
	meta.main_from_conf = true;
	o.journal_given = true;
	o.journal_start = 5000;
	o.journal_len = 8;
	o.series = true;
	o.btt = false;
	s.ev = script(&s.n);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, src_next, &s, &meta, ph, 2,
						 &o, &err), 0);
	ck_assert_ptr_null(wc_analysis_btt(a));
	/* Every request, unfinished too, went to its device's series with
	 * its category. */
	ck_assert(wc_analysis_has_series(a));
	s1 = wc_analysis_series(a, DEV1);
	s2 = wc_analysis_series(a, DEV2);
	ck_assert_ptr_nonnull(s1);
	ck_assert_ptr_nonnull(s2);
	ck_assert_uint_eq(wc_series_requests(s1), 4);
	ck_assert_uint_eq(wc_series_incomplete(s1), 1);
	ck_assert_uint_eq(wc_series_requests(s2), 1);
	ck_assert_uint_eq(wc_series_lat_n(s1, WC_CAT_JOURNAL), 1);
	ck_assert_uint_eq(wc_series_lat_n(s2, WC_CAT_DATA_READ), 1);
	ck_assert_uint_eq(wc_analysis_series_ignored(a), 0);
	ck_assert_ptr_null(wc_analysis_series(a, 12345));
	f = wc_analysis_main(a);
	ck_assert_uint_eq(f->device, DEV1);
	ck_assert_uint_eq(f->requests[WC_CAT_JOURNAL], 1);
	ck_assert_uint_eq(f->requests[WC_CAT_DATA_WRITE], 2);
	ck_assert_uint_eq(f->unfinished, 1);
	ck_assert_int_eq(wc_analysis_meta(a)->journal_method, WC_JOURNAL_RANGE);
	/* Slices 1100-2100, 2300-3300, 3500-9500. */
	ck_assert_uint_eq(f->time_ns[WC_CAT_DATA_WRITE], 1000 + 6000);
	ck_assert_uint_eq(parts(f), f->window_ns);
	ck_assert_uint_eq(wc_analysis_nphases(a), 2);
	for (p = 0; p < 2; p++) {
		const struct wc_figures *g = wc_analysis_phase_figures(a, p);

		ck_assert_uint_eq(parts(g), ph[p].end - ph[p].start);
	}
	/* The journal write's slice, 2300-3300, is cut at 3000. */
	ck_assert_uint_eq(wc_analysis_phase_figures(a, 0)->time_ns[WC_CAT_JOURNAL],
			  700);
	ck_assert_uint_eq(wc_analysis_phase_figures(a, 1)->time_ns[WC_CAT_JOURNAL],
			  300);
	ck_assert_str_eq(wc_analysis_phase(a, 1)->name, "delete");
	wc_analysis_release_series(a);
	ck_assert(!wc_analysis_has_series(a));
	ck_assert_ptr_null(wc_analysis_series(a, DEV1));
	ck_assert_uint_eq(f->requests[WC_CAT_JOURNAL], 1);   /* the rest stays */
	wc_analysis_free(a);
}
END_TEST

/* One 4 KiB write on each of WC_SERIES_MAX_DEVICES + 3 devices: the
 * first ones seen get a series, the requests of the rest are counted. */
START_TEST(test_series_device_cap)
{
	enum { NDEV = WC_SERIES_MAX_DEVICES + 3 };
	static struct wc_event evs[3 * NDEV];
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct src s = { evs, 3 * NDEV, 0, 3 * NDEV + 1 };
	struct wc_analysis *a = NULL;
	struct wc_err err;
	unsigned d;

	for (d = 0; d < NDEV; d++) {
		uint32_t dev = WC_DEV_MAKE(8u, d);

		evs[3 * d] = E(dev, 1000 + 10 * d, WC_TA_QUEUE, W, 8, 4096);
		evs[3 * d + 1] = E(dev, 1001 + 10 * d, WC_TA_ISSUE, W, 8, 4096);
		evs[3 * d + 2] = E(dev, 1002 + 10 * d, WC_TA_COMPLETE, W, 8, 4096);
	}
	o.series = true;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, src_next, &s, NULL, NULL, 0,
						 &o, &err), 0);
	for (d = 0; d < NDEV; d++) {
		const struct wc_series *se = wc_analysis_series(a, WC_DEV_MAKE(8u, d));

		if (d < WC_SERIES_MAX_DEVICES) {
			ck_assert_ptr_nonnull(se);
			ck_assert_uint_eq(wc_series_requests(se), 1);
		} else {
			ck_assert_ptr_null(se);
		}
	}
	ck_assert_uint_eq(wc_analysis_series_ignored(a), 3);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_partial)
{
	struct src s = { NULL, 0, 0, 8 };
	struct wc_analysis *a = NULL;
	struct wc_err err;

	s.ev = script(&s.n);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, src_next, &s, NULL, NULL,
						 0, NULL, &err), -1);
	ck_assert_ptr_nonnull(a);
	ck_assert(wc_analysis_partial(a));
	ck_assert_str_eq(err.msg, "truncated record");
	ck_assert_uint_eq(err.offset, 96);
	ck_assert_uint_eq(wc_analysis_main(a)->window_ns, 3300 - 1000);
	ck_assert_uint_eq(parts(wc_analysis_main(a)), 3300 - 1000);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_empty)
{
	struct src s = { NULL, 0, 0, 99 };
	struct wc_analysis *a = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, src_next, &s, NULL, NULL,
						 0, NULL, &err), 0);
	ck_assert_ptr_null(wc_analysis_main(a));
	ck_assert_int_eq(wc_analysis_main_index(a), -1);
	wc_analysis_free(a);
}
END_TEST

/* The JSON report of path analysed with o on THREADS threads; its
 * return and err into *r and err. */
static char *report_of(const char *path, struct wc_analysis_opts o,
		       unsigned threads, int *r, struct wc_err *err)
{
	struct wc_analysis *a = NULL;
	struct wc_summary *sum = NULL;
	struct wc_err e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	o.threads = threads;
	wc_err_clear(err);
	*r = wc_analysis_read(&a, path, &o, err);
	if (!a)
		return NULL;
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	wc_err_clear(&e);
	ck_assert_int_eq(wc_summary_build(&sum, &a, 1, NULL, &e), 0);
	ck_assert_int_eq(wc_report_write(f, WC_FORMAT_JSON, sum, &e), 0);
	fclose(f);
	wc_summary_free(sum);
	wc_analysis_free(a);
	return buf;
}

/* path analysed with o on one thread and on two: the same JSON report,
 * return and err. */
static void threads_same(const char *path, struct wc_analysis_opts o)
{
	struct wc_err e1, e2;
	char *one, *two;
	int r1, r2;

	one = report_of(path, o, 1, &r1, &e1);
	two = report_of(path, o, 2, &r2, &e2);
	ck_assert_ptr_nonnull(one);
	ck_assert_ptr_nonnull(two);
	ck_assert_int_eq(r1, r2);
	ck_assert_str_eq(e1.msg, e2.msg);
	ck_assert_msg(!strcmp(one, two), "the reports differ: %s", path);
	free(one);
	free(two);
}

/* Many requests, more pids than a table by process tallies at once, and
 * names that come late (check_trace.h): a name looked up while the
 * requests pass (by the filter, by the accountant's fold) must be the
 * one a read on one thread knew then. */
START_TEST(test_threads_same)
{
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_filter f = WC_FILTER_INIT;
	char dir[256], cut[256];

	wc_check_trace(dir, sizeof(dir), 12000, 0);
	threads_same(dir, o);
	o.btt = true;
	o.series = true;
	threads_same(dir, o);
	/* Pid 150 is named at its 15th request: a filter by its name
	 * takes only the requests after. */
	ck_assert_int_eq(wc_filter_parse_process(&f, "p150"), 0);
	o.filter = &f;
	threads_same(dir, o);
	wc_check_trace(cut, sizeof(cut), 9000, 7);
	o = (struct wc_analysis_opts)WC_ANALYSIS_OPTS_INIT;
	threads_same(cut, o);
}
END_TEST

static int keep_until(void *ctx, const struct wc_request *rq,
		      struct wc_err *err)
{
	unsigned *left = ctx;

	(void)rq;
	if (*left == 0)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "enough");
	(*left)--;
	return 0;
}

/* The analysis stops early (a consumer fails) while the reader is ahead:
 * it is stopped and joined, and the failure is the consumer's. */
START_TEST(test_threads_early_stop)
{
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_analysis *a = NULL;
	struct wc_err err;
	char dir[256];
	unsigned left, stop;

	wc_check_trace(dir, sizeof(dir), 12000, 0);
	o.threads = 2;
	o.keep = keep_until;
	for (stop = 0; stop < 12000; stop += 2999) {
		left = stop;
		o.keep_ctx = &left;
		wc_err_clear(&err);
		ck_assert_int_eq(wc_analysis_read(&a, dir, &o, &err), -1);
		ck_assert_ptr_null(a);
		ck_assert_str_eq(err.msg, "enough");
	}
}
END_TEST

static Suite *analysis_suite(void)
{
	Suite *s = suite_create("analysis");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_busiest_is_main);
	tcase_add_test(tc, test_named_main_series_journal_phases);
	tcase_add_test(tc, test_series_device_cap);
	tcase_add_test(tc, test_partial);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_durable_window);
	tcase_add_test(tc, test_threads_same);
	tcase_add_test(tc, test_threads_early_stop);
	wc_check_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(analysis_suite)
