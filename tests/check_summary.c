/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_summary.c - unit tests of analyze/lib/compare/summary.c on analyses of
 * scripted captures whose answers are known: parts of every difference
 * sum to its wall exactly, runs group by configuration (not by name), the
 * default baseline is the fastest group of the same disk and workload, a
 * named one says which groups cross disks, each verdict says what it
 * excludes (real, no larger than X, not decided with the runs that would
 * decide it), and each finding names what the script put in.
 */
#include <check.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map_test.h"
#include "compare/stats.h"
#include "compare/summary.h"
#include "compare/summary_test.h"
#include "out/report.h"

#include "lib/scripted.h"

#define DEV WC_DEV_MAKE(7u, 1u)
#define W WC_TC(WC_TC_WRITE)

static void ev(struct scripted *s, uint64_t t, unsigned what, uint64_t flags,
	       uint64_t sector, uint32_t bytes)
{
	scripted_add(s, DEV, t, what, flags, sector, bytes);
}

/*
 * Ten rounds of: a 2 ms data write, a flush of `flush` ns, then `gap` ns
 * with the device idle; phase "copy" holds the first five rounds and
 * "delete" the rest.  config "" makes the capture a group of its own.
 */
/* capture.conf's run of the captures cap_on() makes, 0 none. */
static int cap_run_number;

static struct wc_analysis *cap_on(const char *name, const char *config,
				  const char *disk, const char *workload,
				  uint64_t flush, uint64_t gap)
{
	struct wc_phase ph[2] = { { "copy", 0, 0, 0, 0, 0 },
				  { "delete", 0, 0, 0, 0, 0 } };
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_capture_meta m;
	struct wc_analysis *a = NULL;
	struct scripted *s = calloc(1, sizeof(*s));
	struct wc_err err;
	uint64_t t = 1000000;
	int i;

	ck_assert_ptr_nonnull(s);
	memset(&m, 0, sizeof(m));
	snprintf(m.name, sizeof(m.name), "%s", name);
	snprintf(m.config, sizeof(m.config), "%s", config);
	if (disk || workload) {
		snprintf(m.disk_model, sizeof(m.disk_model), "%s",
			 disk ? disk : "");
		snprintf(m.comparable, sizeof(m.comparable),
			 "disk_model=%s;workload=%s;", disk ? disk : "",
			 workload ? workload : "");
	}
	m.write_cache = m.barrier = m.complete = m.main_rotational = -1;
	m.run = cap_run_number;
	m.events_dropped = 0;
	ph[0].start = t;
	for (i = 0; i < 10; i++) {
		if (i == 5)
			ph[0].end = ph[1].start = t;
		ev(s, t, WC_TA_QUEUE, W, 8000 + (uint64_t)i * 64, 32768);
		ev(s, t + 1000, WC_TA_ISSUE, W, 8000 + (uint64_t)i * 64, 32768);
		ev(s, t + 2001000, WC_TA_COMPLETE, W, 8000 + (uint64_t)i * 64,
		   32768);
		ev(s, t + 2001000, WC_TA_ISSUE, W | WC_TC(WC_TC_FLUSH), 0, 0);
		ev(s, t + 2001000 + flush, WC_TA_COMPLETE,
		   W | WC_TC(WC_TC_FLUSH), 0, 0);
		t += 2001000 + flush + gap;
	}
	ev(s, t, WC_TA_PLUG, 0, 0, 0);
	ph[1].end = t;
	o.btt = true;           /* the summary's btt means are checked */
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, scripted_next, s, &m, ph, 2,
						 &o, &err), 0);
	free(s);
	return a;
}

static struct wc_analysis *cap(const char *name, const char *config,
			       uint64_t flush, uint64_t gap)
{
	return cap_on(name, config, NULL, NULL, flush, gap);
}

static struct wc_summary *build(struct wc_analysis *const *caps, size_t n,
				const char *baseline)
{
	struct wc_summary *s = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_msg(wc_summary_build(&s, caps, n, baseline, &err) == 0, "%s",
		      err.msg);
	return s;
}

static void free_caps(struct wc_analysis **caps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		wc_analysis_free(caps[i]);
}

static void assert_sums(const struct wc_sum_diff *d)
{
	int64_t sum = 0;
	int p;

	ck_assert(d->known);
	for (p = 0; p < WC_NPARTS; p++)
		sum += d->part_ns[p];
	ck_assert_int_eq(sum, d->wall_ns);
}

static const struct wc_finding *find(const struct wc_summary *s,
				     enum wc_finding_kind k)
{
	size_t i;

	for (i = 0; i < s->nfindings; i++)
		if (s->findings[i].kind == k)
			return &s->findings[i];
	return NULL;
}

static double num(const struct wc_finding *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->nnums; i++)
		if (!strcmp(f->num[i].key, key))
			return f->num[i].value;
	ck_abort_msg("finding has no number %s", key);
	return 0;
}

static const char *str(const struct wc_finding *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->nstrs; i++)
		if (!strcmp(f->str[i].key, key))
			return f->str[i].value;
	return NULL;
}

/* Two captures that differ only in flush cost: the difference is the
 * injected one, all in flushes, exactly, in the whole and in each phase. */
START_TEST(test_flush_difference)
{
	struct wc_analysis *caps[2] = { cap("fast", "", 1000000, 5000000),
					cap("slow", "", 4000000, 5000000) };
	struct wc_summary *s = build(caps, 2, NULL);
	const struct wc_sum_capture *slow = &s->caps[1];
	const struct wc_finding *f;
	size_t p;

	ck_assert_uint_eq(s->ngroups, 2);
	ck_assert_uint_eq(s->groups[0].phased, 1);  /* its run has phases */
	ck_assert(s->has_diff);
	ck_assert_uint_eq(s->base_group, 0);       /* the fastest */
	ck_assert_str_eq(s->base_name, "fast");
	assert_sums(&slow->diff);
	ck_assert_int_eq(slow->diff.wall_ns, 10 * 3000000);
	ck_assert_int_eq(slow->diff.part_ns[WC_CAT_FLUSH], 10 * 3000000);
	ck_assert_int_eq(slow->diff.part_ns[WC_PART_IDLE], 0);
	ck_assert_int_eq(slow->diff.main_part, WC_CAT_FLUSH);
	for (p = 0; p < slow->nphases; p++) {
		assert_sums(&slow->phases[p].diff);
		ck_assert_int_eq(slow->phases[p].diff.part_ns[WC_CAT_FLUSH],
				 5 * 3000000);
	}
	ck_assert_int_eq(s->caps[0].diff.wall_ns, 0);
	ck_assert_int_eq(s->caps[0].diff.main_part, -1);
	ck_assert_int_eq(s->groups[1].verdict, WC_VERDICT_UNDECIDED);
	ck_assert(!s->groups[1].test[WC_MEAS_BUSY].has_interval);
	ck_assert_uint_eq(s->groups[1].test[WC_MEAS_BUSY].runs_needed, 0);

	/* The user's question first: the difference between the
	 * configurations; the slowest capture's detail after it, as a
	 * caveat, and no answer after a caveat. */
	ck_assert_int_eq(s->findings[0].kind, WC_FIND_DIFFERENCE);
	ck_assert(!s->findings[0].caveat);
	ck_assert(find(s, WC_FIND_MOST_TIME)->caveat);
	for (p = 1; p < s->nfindings; p++)
		ck_assert(s->findings[p].caveat >= s->findings[p - 1].caveat);
	f = find(s, WC_FIND_DIFFERENCE);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(str(f, "cause"), "flush");
	ck_assert_str_eq(str(f, "capture"), "slow");
	ck_assert(fabs(num(f, "wall_s") - 0.030) < 1e-9);
	ck_assert_ptr_nonnull(strstr(f->text, "mostly flush: +0.030 s"));
	ck_assert_msg(strstr(f->text, "It is not decided: with 1 and 1 runs "
			     "there is no spread") != NULL, "%s", f->text);
	/* No ratios without a named baseline. */
	ck_assert(!slow->has_ratio);
	wc_summary_free(s);
	free_caps(caps, 2);
}
END_TEST

/* A difference mostly off the device still says what moved on it: b's
 * runs idle 45-55 ms longer a round, and their flushes take 2 ms
 * against 1 ms, every run alike: the device's difference is real and
 * the finding names its part (flush) and sub-cause (count x median). */
START_TEST(test_device_cause_off_device)
{
	struct wc_analysis *caps[6];
	struct wc_summary *s;
	const struct wc_finding *f;
	int r;

	for (r = 0; r < 3; r++) {
		char name[32];

		snprintf(name, sizeof(name), "a-run%d", r + 1);
		caps[r] = cap(name, "a", 1000000, 5000000 + (uint64_t)r * 1000000);
		snprintf(name, sizeof(name), "b-run%d", r + 1);
		caps[3 + r] = cap(name, "b", 2000000,
				  50000000 + (uint64_t)r * 5000000);
		((struct wc_capture_meta *)wc_analysis_meta(caps[r]))->run = r + 1;
		((struct wc_capture_meta *)wc_analysis_meta(caps[3 + r]))->run = r + 1;
	}
	s = build(caps, 6, NULL);
	ck_assert_uint_eq(s->ngroups, 2);
	f = find(s, WC_FIND_DIFFERENCE);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(str(f, "cause"), "off_device");
	ck_assert_int_eq(s->groups[1].verdict, WC_VERDICT_REAL);
	ck_assert_msg(strstr(f->text, "On the device, mostly flush: +0.010 s.") != NULL,
		      "%s", f->text);
	ck_assert_msg(strstr(f->text, "Flushes: 10 x median 2.00 ms a run, "
				      "against 10 x 1.00 ms.") != NULL,
		      "%s", f->text);
	ck_assert_str_eq(str(f, "device_cause"), "flush");
	ck_assert(fabs(num(f, "device_cause_s") - 0.010) < 1e-9);
	wc_summary_free(s);
	free_caps(caps, 6);
}
END_TEST

/* The findings of one capture: flushes take most of its device time. */
START_TEST(test_findings_one)
{
	struct wc_analysis *a = cap("one", "", 6000000, 10000000);
	struct wc_summary *s = build(&a, 1, NULL);
	const struct wc_finding *f;
	double wall = wc_secs(s->caps[0].figs.wall_ns);

	ck_assert(!s->has_diff);
	ck_assert_ptr_null(find(s, WC_FIND_DIFFERENCE));
	/* One capture: where the time went comes first. */
	ck_assert_int_eq(s->findings[0].kind, WC_FIND_MOST_TIME);
	ck_assert(!s->findings[0].caveat);
	f = find(s, WC_FIND_MOST_TIME);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(str(f, "category"), "flush");
	ck_assert(fabs(num(f, "time_s") - 0.060) < 1e-9);
	ck_assert(fabs(num(f, "share") - 0.060 / wall) < 1e-9);
	f = find(s, WC_FIND_DEVICE_IDLE);
	ck_assert_ptr_nonnull(f);
	/* A 10 ms gap after each round, and 1 us from each Q to its D. */
	ck_assert(fabs(num(f, "idle_s") - 10 * 0.010001) < 1e-9);
	ck_assert_ptr_nonnull(strstr(f->text, "idle for 0.100 s"));
	f = find(s, WC_FIND_FLUSHES);
	ck_assert_ptr_nonnull(f);
	ck_assert(num(f, "count") == 10);
	/* The latency histogram is within 4.5 %. */
	ck_assert(fabs(num(f, "p50_s") - 0.006) < 0.006 * 0.045);
	/* Count x median cost, and the capture named. */
	ck_assert_ptr_nonnull(strstr(f->text, "10 cache flushes x median "));
	ck_assert_ptr_nonnull(strstr(f->text, ") took 0.060 s"));
	ck_assert_ptr_nonnull(strstr(f->text, "In one, "));
	wc_summary_free(s);
	wc_analysis_free(a);
}
END_TEST

/* What the writers print beyond the parts is computed here, once: the
 * requests and bytes, the shares, the device's means, btt's means, the
 * phases' windows. */
START_TEST(test_capture_figures)
{
	struct wc_analysis *a = cap("one", "", 6000000, 10000000);
	struct wc_summary *s = build(&a, 1, NULL);
	const struct wc_sum_capture *c = &s->caps[0];
	const struct wc_sum_figs *f = &c->figs;
	double wall = wc_secs(f->wall_ns), sum = 0;
	int k;

	ck_assert(f->io);
	ck_assert_uint_eq(f->requests[WC_CAT_DATA_WRITE], 10);
	ck_assert_uint_eq(f->requests[WC_CAT_FLUSH], 10);
	ck_assert_uint_eq(f->all_requests, 20);
	ck_assert_uint_eq(f->bytes[WC_CAT_DATA_WRITE], 10 * 32768);
	ck_assert_uint_eq(f->all_bytes, 10 * 32768);
	for (k = 0; k < WC_NPARTS; k++)
		sum += f->share[k];
	ck_assert(fabs(sum - 100) < 1e-9);
	ck_assert(fabs(f->share[WC_CAT_FLUSH] - 100 * 0.060 / wall) < 1e-9);
	ck_assert(fabs(f->busy_pct - (100 - f->share[WC_PART_IDLE])) < 1e-9);

	ck_assert_uint_eq(c->ndevices, 1);
	ck_assert_ptr_eq(c->main, &c->devices[0]);
	ck_assert_uint_eq(c->main->device, DEV);
	ck_assert_ptr_nonnull(c->main->raw);
	ck_assert_uint_eq(c->main->figs.wall_ns, f->wall_ns);
	/* 2 ms of each write and 6 ms of each flush at the driver. */
	ck_assert(fabs(c->main->queue_mean - 0.080 / wall) < 1e-9);
	ck_assert(!c->partial);
	ck_assert_ptr_null(c->missing);
	ck_assert_ptr_nonnull(c->tracking);

	/* Q to C of each write: 2.001 ms; flushes have no Q. */
	ck_assert(c->btt.on);
	ck_assert_uint_eq(c->btt.q2c.n, 10);
	ck_assert(fabs(c->btt.q2c_mean_s - 0.002001) < 1e-12);

	ck_assert_uint_eq(c->nphases, 2);
	ck_assert_uint_eq(c->phases[0].start_ns, 1000000);
	ck_assert_uint_eq(c->phases[0].end_ns, c->phases[1].start_ns);
	ck_assert(fabs(c->phases[1].wall_s -
		       (double)(c->phases[1].end_ns - c->phases[1].start_ns) / 1e9)
		  < 1e-12);
	wc_summary_free(s);
	wc_analysis_free(a);
}
END_TEST

/* Runs group by configuration, whatever their names; a capture without
 * one is alone. */
START_TEST(test_groups)
{
	struct wc_analysis *caps[5] = {
		cap("a-run1", "fs=xfs;", 1000000, 5000000),
		cap("b-run1", "fs=ext4;", 1000000, 5000000),
		cap("a-run2", "fs=xfs;", 1000000, 6000000),
		cap("plain1", "", 1000000, 5000000),
		cap("plain2", "", 1000000, 5000000),
	};
	struct wc_summary *s = build(caps, 5, NULL);
	const struct wc_sum_group *g;

	ck_assert_uint_eq(s->ngroups, 4);
	ck_assert(s->any_runs);
	g = &s->groups[0];
	ck_assert_uint_eq(g->n, 2);
	ck_assert_uint_eq(g->members[0], 0);
	ck_assert_uint_eq(g->members[1], 2);
	ck_assert_uint_eq(s->caps[2].group, 0);
	ck_assert_uint_eq(s->caps[3].group, 2);
	ck_assert_uint_eq(s->caps[4].group, 3);
	/* Walls differ by 10 x 1 ms: mean, sd, range. */
	ck_assert(fabs(g->col[WC_COL_WALL].max - g->col[WC_COL_WALL].min -
		       0.010) < 1e-9);
	ck_assert(fabs(g->col[WC_COL_WALL].sd - 0.010 / sqrt(2)) < 1e-9);
	ck_assert_uint_eq(g->col[WC_COL_POSITIONING].n, 0);   /* unknown */
	/* The mean wall is the sum of the rounded mean parts. */
	ck_assert(fabs(wc_secs(g->mean_wall_ns) - g->col[WC_COL_WALL].mean) <
		  1e-8);
	assert_sums(&s->caps[2].diff);
	assert_sums(&g->diff);
	wc_summary_free(s);
	free_caps(caps, 5);
}
END_TEST

/* Forty runs of one configuration hold one group: the groups' memory
 * grows with the configurations, not with the runs (a group is about 3
 * KB; a thousand runs held a thousand before). */
/* Summaries of many captures read from a source, as a comparison of
 * many summaries reads its spill: two configurations, each capture a
 * run of its own name; the heap measured at every capture given, while
 * the groups are made and while the rows are read again. */
struct many_src {
	struct wc_capsule *tmpl[2];    /* one per configuration */
	size_t n, at;
	size_t peak;                   /* the most heap in use seen */
};

static void many_sample(struct many_src *m)
{
	size_t used = mallinfo2().uordblks;

	if (used > m->peak)
		m->peak = used;
}

static int many_next(void *ctx, const struct wc_capsule **cap,
		     struct wc_err *err)
{
	struct many_src *m = ctx;
	struct wc_capsule *c;

	(void)err;
	many_sample(m);
	if (m->at >= m->n)
		return 0;
	c = m->tmpl[m->at % 2];
	snprintf(c->meta.name, sizeof(c->meta.name), "%c-run%zu",
		 m->at % 2 ? 'b' : 'a', m->at / 2 + 1);
	c->meta.run = (int)(m->at / 2 + 1);
	m->at++;
	*cap = c;
	return 1;
}

static int many_rewind(void *ctx, struct wc_err *err)
{
	(void)err;
	((struct many_src *)ctx)->at = 0;
	return 0;
}

/* The heap the reduce of n captures takes at most, above what it
 * started with: its build and one reading of its rows. */
static size_t reduce_heap(struct many_src *m, size_t n, bool keep)
{
	const struct wc_summary_src src = {
		.next = many_next, .rewind = many_rewind, .ctx = m,
	};
	const struct wc_sum_capture *row;
	struct wc_sum_rows *rows;
	struct wc_summary *s = NULL;
	struct wc_err err;
	size_t before, k = 0;

	m->n = n;
	m->at = 0;
	before = m->peak = mallinfo2().uordblks;
	wc_err_clear(&err);
	ck_assert_msg(wc_summary_build_src(&s, &src, NULL, keep, &err) == 0,
		      "%s", err.msg);
	ck_assert_uint_eq(s->ncaps, n);
	ck_assert_uint_eq(s->ngroups, 2);
	ck_assert_int_eq(wc_summary_rows(s, &rows, &err), 0);
	while (wc_summary_rows_next(rows, &row, &err) > 0) {
		ck_assert_uint_eq(row->group, k % 2);
		ck_assert_uint_eq(row->rank, k / 2);
		many_sample(m);
		k++;
	}
	ck_assert_uint_eq(k, n);
	wc_summary_rows_free(rows);
	wc_summary_free(s);
	return m->peak - before;
}

/* The reduce holds the same heap for 50 captures as for 500, within the
 * member names it holds before they go to a file (64 KiB); kept rows
 * would take 4 KB a capture more (summary.h). */
START_TEST(test_reduce_flat)
{
	struct wc_analysis *a[2] = {
		cap("a", "fs=xfs;", 1000000, 5000000),
		cap("b", "fs=ext4;", 2000000, 5000000),
	};
	struct many_src m = { { NULL, NULL }, 0, 0, 0 };
	struct wc_err err;
	size_t h50, h500;
	int i;

	wc_err_clear(&err);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(wc_capsule_of(&m.tmpl[i], a[i], &err), 0);
		snprintf(m.tmpl[i]->meta.input, sizeof(m.tmpl[i]->meta.input),
			 "%s", i ? "b.json" : "a.json");
	}
	/* Once, for what the first use allocates for good (stdio). */
	reduce_heap(&m, 50, false);
	h50 = reduce_heap(&m, 50, false);
	h500 = reduce_heap(&m, 500, false);
	ck_assert_msg(h500 < h50 + (64 << 10), "%zu bytes for 50 captures, "
		      "%zu for 500", h50, h500);
	for (i = 0; i < 2; i++) {
		wc_capsule_free(m.tmpl[i]);
		wc_analysis_free(a[i]);
	}
}
END_TEST

/* A hundred captures of two configurations, each of its own name and run
 * and input, the runs given from the last down (so that each
 * configuration's first run comes last, when a small filter errs), but
 * capture `copy`, which is capture `of` (the same name, run and
 * requests) given again from another input: one recording given
 * twice. */
struct bloom_src {
	struct wc_capsule *tmpl[2];
	size_t n, at, copy, of;
};

static int bloom_next(void *ctx, const struct wc_capsule **cap,
		      struct wc_err *err)
{
	struct bloom_src *b = ctx;
	struct wc_capsule *c;
	size_t k;

	(void)err;
	if (b->at >= b->n)
		return 0;
	k = b->at == b->copy ? b->of : b->at;
	c = b->tmpl[k % 2];
	c->meta.run = (int)(b->n / 2 - k / 2);
	snprintf(c->meta.name, sizeof(c->meta.name), "%c-run%d",
		 k % 2 ? 'b' : 'a', c->meta.run);
	snprintf(c->meta.input, sizeof(c->meta.input), "in%zu.json", b->at);
	b->at++;
	*cap = c;
	return 1;
}

static int bloom_rewind(void *ctx, struct wc_err *err)
{
	(void)err;
	((struct bloom_src *)ctx)->at = 0;
	return 0;
}

/* The JSON report of b's captures, planned with a filter of bits (0:
 * the default); *maybe: the filter's hits, *left: captures left out. */
static char *bloom_report(struct bloom_src *b, const struct wc_summary_opts *o,
			  size_t bits, size_t *maybe, size_t *left)
{
	const struct wc_summary_src src = {
		.next = bloom_next, .rewind = bloom_rewind, .ctx = b,
	};
	struct wc_summary_plan *plan = NULL;
	const struct wc_capsule *cap;
	struct wc_summary *s = NULL;
	struct wc_err err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_summary_plan_open(&plan, o, &err), 0);
	if (bits)
		wc_summary_plan_set_bloom_bits(plan, bits);
	b->at = 0;
	while (bloom_next(b, &cap, &err) > 0)
		ck_assert_int_eq(wc_summary_plan_add(plan, cap, &err), 0);
	*maybe = wc_summary_plan_maybe(plan);
	ck_assert_msg(wc_summary_build_planned(&s, &src, plan, false,
					       &err) == 0, "%s", err.msg);
	*left = s->nleft_out;
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(wc_report_write(f, WC_FORMAT_JSON, s, &err) == 0, "%s",
		      err.msg);
	ck_assert_msg(wc_report_write(f, WC_FORMAT_TEXT, s, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(fclose(f), 0);
	wc_summary_free(s);
	return text;
}

/* A filter of 64 bits errs on nearly every capture after the first
 * few: each is read again and told from the one copy, and the report is
 * the one of the filter that errs on none (one copy left out, named
 * with its first capture's input; with --drop-first each
 * configuration's first run too, the copy not counted; a baseline given
 * by the copy's position is its first capture). */
START_TEST(test_copies_bloom_errs)
{
	struct wc_analysis *a[2] = {
		cap("a", "fs=xfs;", 1000000, 5000000),
		cap("b", "fs=ext4;", 2000000, 5000000),
	};
	struct bloom_src b = { { NULL, NULL }, 100, 0, 31, 11 };
	struct wc_summary_opts o[3];
	struct wc_err err;
	size_t k;
	int i;

	wc_err_clear(&err);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(wc_capsule_of(&b.tmpl[i], a[i], &err), 0);
	memset(o, 0, sizeof(o));
	o[1].drop_first = true;
	o[2].baseline_index = b.copy + 1;
	for (k = 0; k < 3; k++) {
		size_t maybe[2], left[2];
		char *exact = bloom_report(&b, &o[k], 0, &maybe[0], &left[0]);
		char *errs = bloom_report(&b, &o[k], 64, &maybe[1], &left[1]);

		ck_assert_uint_eq(maybe[0], 1);
		ck_assert_uint_ge(maybe[1], 50);
		ck_assert_uint_eq(left[0], k == 1 ? 3 : 1);
		ck_assert_uint_eq(left[1], left[0]);
		ck_assert_ptr_nonnull(strstr(exact, "in31.json: the same "
					     "recording as in11.json"));
		ck_assert_msg(!strcmp(exact, errs), "option set %zu: the "
			      "report differs when the filter errs", k);
		free(exact);
		free(errs);
	}
	for (i = 0; i < 2; i++) {
		wc_capsule_free(b.tmpl[i]);
		wc_analysis_free(a[i]);
	}
}
END_TEST

/* Three captures of one name, as summaries a stranger sent could say:
 * runs 1 and 2 of other requests, then run 2 again from another input,
 * one recording given twice.  Their digests are written so that digest ^
 * run * 0x9e3779b97f4a7c15 is one number: the summary once looked a
 * recording up by FNV-1a over the name from that number, so all three
 * shared a key, the second was taken for another recording under the
 * first's key, and its copy went unseen.  Under the process's secret no
 * one can write recordings that share a key. */
struct aimed_src {
	struct wc_capsule *tmpl;
	size_t at;
};

static int aimed_next(void *ctx, const struct wc_capsule **cap,
		      struct wc_err *err)
{
	static const int run[3] = { 1, 2, 2 };
	struct aimed_src *a = ctx;
	struct wc_capsule *c = a->tmpl;

	(void)err;
	if (a->at >= 3)
		return 0;
	c->meta.run = run[a->at];
	c->meta.digest = UINT64_C(0x0123456789abcdef) ^
			 (uint64_t)(uint32_t)c->meta.run *
			 UINT64_C(0x9e3779b97f4a7c15);
	snprintf(c->meta.name, sizeof(c->meta.name), "aimed");
	snprintf(c->meta.input, sizeof(c->meta.input), "in%zu.json", a->at);
	a->at++;
	*cap = c;
	return 1;
}

static int aimed_rewind(void *ctx, struct wc_err *err)
{
	(void)err;
	((struct aimed_src *)ctx)->at = 0;
	return 0;
}

START_TEST(test_copies_keys_aimed)
{
	struct wc_analysis *a = cap("aimed", "fs=xfs;", 1000000, 5000000);
	struct aimed_src as = { NULL, 0 };
	const struct wc_summary_src src = {
		.next = aimed_next, .rewind = aimed_rewind, .ctx = &as,
	};
	struct wc_summary_plan *plan = NULL;
	const struct wc_capsule *c;
	struct wc_summary *s = NULL;
	struct wc_err err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_capsule_of(&as.tmpl, a, &err), 0);
	ck_assert_int_eq(wc_summary_plan_open(&plan, NULL, &err), 0);
	while (aimed_next(&as, &c, &err) > 0)
		ck_assert_int_eq(wc_summary_plan_add(plan, c, &err), 0);
	ck_assert_msg(wc_summary_build_planned(&s, &src, plan, false,
					       &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(s->nleft_out, 1);
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(wc_report_write(f, WC_FORMAT_JSON, s, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(strstr(text, "in2.json: the same recording as in1.json"),
		      "%s", text);
	free(text);
	wc_summary_free(s);
	wc_capsule_free(as.tmpl);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_groups_memory)
{
	enum { N = 40 };
	struct wc_analysis *caps[N];
	struct wc_summary *s;
	size_t i;

	for (i = 0; i < N; i++) {
		char name[32];

		snprintf(name, sizeof(name), "a-run%zu", i + 1);
		caps[i] = cap(name, "fs=xfs;", 1000000, 5000000 + i * 1000);
	}
	s = build(caps, N, NULL);
	ck_assert_uint_eq(s->ngroups, 1);
	ck_assert_uint_eq(s->groups[0].n, N);
	ck_assert_uint_lt(malloc_usable_size(s->groups),
			  N / 4 * sizeof(*s->groups));
	wc_summary_free(s);
	free_caps(caps, N);
}
END_TEST

/* A configuration a capture (every capture.conf says another: a stranger's
 * fleet, or a hostile one): each capture's group is found by one
 * comparison of configurations or none, not one a group made before it. */
START_TEST(test_groups_many_configs)
{
	enum { N = 600 };
	struct wc_analysis **caps = calloc(N, sizeof(*caps));
	struct wc_summary *s;
	size_t i;

	ck_assert_ptr_nonnull(caps);
	for (i = 0; i < N; i++) {
		char name[32], config[48];

		snprintf(name, sizeof(name), "c%zu-run1", i);
		snprintf(config, sizeof(config), "fs=xfs;disk=d%zu;", i);
		caps[i] = cap(name, config, 1000000, 5000000 + i * 1000);
	}
	s = build(caps, N, NULL);
	ck_assert_uint_eq(s->ngroups, N);
	ck_assert_uint_le(wc_summary_group_compares(s), 2 * N);
	wc_summary_free(s);
	free_caps(caps, N);
	free(caps);
}
END_TEST

/* Configurations written to collide, as a stranger's summaries could
 * name them: the summary once keyed its groups by FNV-1a of the
 * configuration, which the map took to a slot by Fibonacci hashing, both
 * public, so anyone could pick configurations that share slot 0 of the
 * map's 2,048 slots (one in 2,048 names does) and make every look-up walk
 * all of them.  Whatever the names, their run must stay as short as
 * random keys': a run of L slots at this load (600 of 2,048) has a chance
 * under 0.6^L, so one past 100 slots is rarer than one in 10^18; these
 * 600 colliding make one of 600. */
START_TEST(test_groups_configs_aimed)
{
	enum { N = 600 };
	struct wc_analysis **caps = calloc(N, sizeof(*caps));
	struct wc_summary *s;
	size_t i, cand = 0;

	ck_assert_ptr_nonnull(caps);
	for (i = 0; i < N; i++) {
		char name[32], config[48];
		uint64_t h;

		do {
			const char *c;

			snprintf(config, sizeof(config),
				 "fs=xfs;disk=d%zu;", cand++);
			h = UINT64_C(0xcbf29ce484222325);
			for (c = config; *c; c++)
				h = (h ^ (unsigned char)*c) *
				    UINT64_C(0x100000001b3);
		} while ((h * UINT64_C(0x9e3779b97f4a7c15)) >> 32 & 2047);
		snprintf(name, sizeof(name), "c%zu-run1", i);
		caps[i] = cap(name, config, 1000000, 5000000 + i * 1000);
	}
	s = build(caps, N, NULL);
	ck_assert_uint_eq(s->ngroups, N);
	ck_assert_uint_le(wc_summary_group_compares(s), 2 * N);
	ck_assert_ptr_nonnull(wc_summary_group_map(s));
	ck_assert_uint_le(wc_map_longest_run(wc_summary_group_map(s)), 100);
	wc_summary_free(s);
	free_caps(caps, N);
	free(caps);
}
END_TEST

/* Forty runs numbered 100 to 139 against two: "Runs used" names them
 * while they fit its 128 bytes, else counts them; never a list cut
 * short (a run 13 for 139). */
START_TEST(test_runs_used_count)
{
	enum { N = 42 };
	struct wc_analysis *caps[N];
	const struct wc_finding *f;
	struct wc_summary *s;
	size_t i;

	for (i = 0; i < N; i++) {
		char name[32];

		cap_run_number = i < 2 ? (int)i + 1 : 100 + (int)i - 2;
		snprintf(name, sizeof(name), "%s-run%d", i < 2 ? "a" : "b",
			 cap_run_number);
		caps[i] = cap(name, i < 2 ? "fs=xfs;" : "fs=ext4;", 1000000,
			      i < 2 ? 5000000 : 6000000 + i * 1000);
	}
	cap_run_number = 0;
	s = build(caps, N, NULL);
	ck_assert_uint_eq(s->ngroups, 2);
	f = find(s, WC_FIND_DIFFERENCE);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(str(f, "runs_used"), "40 runs");
	ck_assert_str_eq(str(f, "baseline_runs_used"), "1, 2");
	ck_assert_ptr_nonnull(strstr(f->text, "Runs used: 40 runs against 1, 2."));
	wc_summary_free(s);
	free_caps(caps, N);
}
END_TEST

/* Three runs each whose device time never varies: equal -> an interval
 * of no width at 0, inside any bound: no larger than it; apart -> real. */
START_TEST(test_never_vary)
{
	static const uint64_t gap_a[3] = { 5000000, 5300000, 4800000 };
	static const uint64_t gap_b[3] = { 5100000, 4900000, 5250000 };
	struct wc_analysis *caps[6];
	struct wc_summary *s;
	const struct wc_finding *f;
	size_t i;

	for (i = 0; i < 3; i++) {
		caps[i] = cap("a", "cfg=a;", 1000000, gap_a[i]);
		caps[3 + i] = cap("b", "cfg=b;", 1000000, gap_b[i]);
	}
	s = build(caps, 6, NULL);
	ck_assert_uint_eq(s->ngroups, 2);
	i = 1 - s->base_group;
	ck_assert_int_eq(s->groups[i].verdict, WC_VERDICT_BOUNDED);
	ck_assert_int_eq(s->groups[s->base_group].verdict, WC_VERDICT_BASELINE);
	f = find(s, WC_FIND_DIFFERENCE);
	ck_assert_ptr_nonnull(f);
	/* The walls vary with the gaps; the device's time never does.  The
	 * bound is 5 % of the baseline's mean wall: 10 rounds of 2.001 ms
	 * + 1 ms + about 5 ms, 80 ms; 4 ms. */
	ck_assert(fabs(s->groups[i].equiv_s - 0.004) < 0.0002);
	ck_assert_msg(strstr(f->text, "3 and 3 runs) it is no larger than "
			     "+-0.004 s (5 % of the baseline's wall)") != NULL,
		      "%s", f->text);
	ck_assert_int_eq(s->groups[i].test[WC_MEAS_BUSY].diff_s, 0);
	ck_assert(s->groups[i].meas[WC_MEAS_WALL].sd > 0);
	wc_summary_free(s);
	free_caps(caps, 6);

	/* The same spread, flushes 2 ms slower in b: 20 ms against a
	 * spread of about 2 ms. */
	for (i = 0; i < 3; i++) {
		caps[i] = cap("a", "cfg=a;", 1000000, gap_a[i]);
		caps[3 + i] = cap("b", "cfg=b;", 3000000, gap_b[i]);
	}
	s = build(caps, 6, "a");
	ck_assert_uint_eq(s->base_group, 0);
	ck_assert_int_eq(s->groups[1].verdict, WC_VERDICT_REAL);
	/* Decided on the device's time, which never varies: exactly the
	 * injected 20 ms, an interval of no width. */
	ck_assert(isinf(s->groups[1].test[WC_MEAS_BUSY].t));
	ck_assert(fabs(s->groups[1].test[WC_CAT_FLUSH].lo_s - 0.020) < 1e-9);
	ck_assert(fabs(s->groups[1].test[WC_CAT_FLUSH].hi_s - 0.020) < 1e-9);
	ck_assert(s->groups[1].test[WC_MEAS_WALL].t > 4.303);
	ck_assert_int_eq(s->groups[1].diff.main_part, WC_CAT_FLUSH);
	ck_assert_int_eq(s->groups[1].diff.part_ns[WC_CAT_FLUSH], 10 * 2000000);
	f = find(s, WC_FIND_DIFFERENCE);
	ck_assert_ptr_nonnull(strstr(f->text, "it is real"));
	ck_assert_str_eq(str(f, "verdict"), "real");
	ck_assert_str_eq(str(f, "cause"), "flush");
	/* A named baseline: ratios to that capture. */
	ck_assert(s->caps[3].has_ratio);
	ck_assert(fabs(s->caps[3].ratio[WC_COL_FLUSH] - 3.0) < 1e-9);
	wc_summary_free(s);
	free_caps(caps, 6);
}
END_TEST

/* A group's spread is summed one run at a time about its first run
 * (stats.h): runs that never vary have a spread of exactly 0 whatever
 * their value, runs far from 0 keep their digits, and the figures agree
 * with the two passes over every run (mean first, then the squares
 * about it) that they replace. */
START_TEST(test_acc)
{
	struct wc_acc a;
	struct wc_stat st;
	double v[7], mean, ss;
	int k, i;

	for (k = 0; k < 1000; k++) {
		memset(&a, 0, sizeof(a));
		for (i = 0; i < 3; i++)
			wc_acc_add(&a, 23.8 + 0.001 * k);
		wc_acc_stat(&a, &st);
		ck_assert_msg(st.sd == 0, "%.17g: sd %g", 23.8 + 0.001 * k,
			      st.sd);
		ck_assert(st.min == st.max);
	}
	memset(&a, 0, sizeof(a));
	for (i = 1; i <= 3; i++)
		wc_acc_add(&a, 1e6 + 0.001 * i);
	wc_acc_stat(&a, &st);
	ck_assert_msg(fabs(st.sd - 0.001) < 1e-9, "sd %.17g", st.sd);
	/* Unknown figures are left out; none at all is no statistic. */
	memset(&a, 0, sizeof(a));
	wc_acc_add(&a, -1);
	wc_acc_stat(&a, &st);
	ck_assert_uint_eq(st.n, 0);
	ck_assert(st.mean == -1 && st.min == -1 && st.max == -1);
	srand(45);
	for (k = 0; k < 100; k++) {
		memset(&a, 0, sizeof(a));
		mean = ss = 0;
		for (i = 0; i < 7; i++) {
			v[i] = (double)rand() / RAND_MAX * 100;
			wc_acc_add(&a, v[i]);
			mean += v[i];
		}
		mean /= 7;
		for (i = 0; i < 7; i++)
			ss += (v[i] - mean) * (v[i] - mean);
		wc_acc_stat(&a, &st);
		ck_assert(st.mean == mean);
		ck_assert(fabs(st.sd - sqrt(ss / 6)) < 1e-12 * (1 + st.sd));
	}
}
END_TEST

/* Two disks: the ssd's fastest configuration is the fastest overall, yet
 * each hdd configuration is compared with the fastest on the hdd; a
 * capture of another workload on the hdd is a set of its own; a named
 * baseline compares all with it and marks the groups on the other disk. */
START_TEST(test_disk_baselines)
{
	struct wc_analysis *caps[5] = {
		cap_on("hdd-ext4", "fs=ext4;disk_model=hdd7200;", "hdd7200",
		       "copy", 4000000, 5000000),
		cap_on("ssd-ext4", "fs=ext4;disk_model=ssd;", "ssd", "copy",
		       1000000, 5000000),
		cap_on("hdd-xfs", "fs=xfs;disk_model=hdd7200;", "hdd7200",
		       "copy", 3000000, 5000000),
		cap_on("ssd-xfs", "fs=xfs;disk_model=ssd;", "ssd", "copy",
		       2000000, 5000000),
		cap_on("hdd-fsync", "fs=ext4;disk_model=hdd7200;w=fsync;",
		       "hdd7200", "fsync", 9000000, 5000000),
	};
	struct wc_summary *s = build(caps, 5, NULL);
	const struct wc_finding *f;
	size_t g, ndiff = 0;

	ck_assert_uint_eq(s->ngroups, 5);
	ck_assert_uint_eq(s->nsets, 3);
	/* Sets in the order of their first group: hdd copy, ssd, fsync. */
	ck_assert_uint_eq(s->groups[0].set, 0);
	ck_assert_uint_eq(s->groups[1].set, 1);
	ck_assert_uint_eq(s->groups[2].set, 0);
	ck_assert_uint_eq(s->groups[3].set, 1);
	ck_assert_uint_eq(s->groups[4].set, 2);
	ck_assert_str_eq(s->groups[0].disk_model, "hdd7200");
	ck_assert_str_eq(s->groups[1].disk_model, "ssd");
	/* hdd-ext4 against hdd-xfs, not against the faster ssd-ext4. */
	ck_assert_uint_eq(s->groups[0].base, 2);
	ck_assert_uint_eq(s->groups[2].base, 2);
	ck_assert_uint_eq(s->groups[1].base, 1);
	ck_assert_uint_eq(s->groups[3].base, 1);
	ck_assert_uint_eq(s->groups[4].base, 4);
	ck_assert_str_eq(wc_summary_base_name(s, 0), "hdd-xfs");
	ck_assert_str_eq(wc_summary_base_name(s, 3), "ssd-ext4");
	ck_assert(!s->any_cross_disk);
	for (g = 0; g < 5; g++) {
		ck_assert(!s->groups[g].cross_disk);
		assert_sums(&s->groups[g].diff);
		assert_sums(&s->caps[s->groups[g].members[0]].diff);
	}
	/* Ten flushes 1 ms longer each, and nothing else. */
	ck_assert_int_eq(s->groups[0].diff.wall_ns, 10000000);
	ck_assert_int_eq(s->groups[0].diff.part_ns[WC_CAT_FLUSH], 10000000);
	ck_assert_int_eq(s->groups[3].diff.wall_ns, 10000000);
	ck_assert_int_eq(s->groups[4].diff.wall_ns, 0);
	ck_assert_int_eq(s->groups[4].verdict, WC_VERDICT_BASELINE);
	assert_sums(&s->caps[0].phases[0].diff);
	ck_assert_int_eq(s->caps[0].phases[0].diff.part_ns[WC_CAT_FLUSH],
			 5000000);
	/* One difference finding per set of two groups or more. */
	for (g = 0; g < s->nfindings; g++) {
		f = &s->findings[g];
		if (f->kind != WC_FIND_DIFFERENCE)
			continue;
		ndiff++;
		ck_assert_str_eq(str(f, "baseline"), ndiff == 1 ? "hdd-xfs" :
				 "ssd-ext4");
		ck_assert_str_eq(str(f, "disk"), ndiff == 1 ? "hdd7200" : "ssd");
		ck_assert_msg(strstr(f->text, ndiff == 1 ?
				     "On disk hdd7200 (comparable set 1), " :
				     "On disk ssd, "), "%s", f->text);
		ck_assert(!strstr(f->text, "across disks"));
	}
	ck_assert_uint_eq(ndiff, 2);
	wc_summary_free(s);

	s = build(caps, 5, "ssd-ext4");
	ck_assert(s->any_cross_disk);
	for (g = 0; g < 5; g++) {
		ck_assert_uint_eq(s->groups[g].base, 1);
		ck_assert_str_eq(wc_summary_base_name(s, g), "ssd-ext4");
		ck_assert(s->groups[g].cross_disk == (g == 0 || g == 2 || g == 4));
		assert_sums(&s->groups[g].diff);
	}
	ck_assert_int_eq(s->groups[0].diff.wall_ns, 30000000);
	f = find(s, WC_FIND_DIFFERENCE);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(str(f, "capture"), "hdd-fsync");
	ck_assert_str_eq(str(f, "baseline_disk"), "ssd");
	ck_assert_msg(strstr(f->text, "It compares across disks: hdd-fsync ran "
			     "on disk hdd7200, the baseline on disk ssd"),
		      "%s", f->text);
	ck_assert_msg(strstr(f->text, "2 other configurations ran on another "
			     "disk"), "%s", f->text);
	wc_summary_free(s);
	free_caps(caps, 5);
}
END_TEST

/* The three verdicts on device time, each worked out here by hand.
 * Busy times a = 0.48, 0.50, 0.52 (mean 0.50, sd 0.02); a's wall adds 10
 * gaps of 5 ms: 0.55 s, so the default bound is 5 % of it, 0.0275 s. */
static void verdict_runs(const double *busy_a, const double *busy_b, size_t n,
			 struct wc_summary **out, struct wc_analysis **caps,
			 double equiv_s)
{
	struct wc_summary_opts o = { .baseline = "a", .keep_warmups = true,
				     .equiv_s = equiv_s };
	struct wc_err err;
	size_t i;

	/* Busy time is ten rounds of a 2 ms write and a flush. */
	for (i = 0; i < n; i++) {
		caps[i] = cap("a", "cfg=a;",
			      (uint64_t)llround(busy_a[i] * 1e8) - 2000000,
			      5000000);
		caps[n + i] = cap("b", "cfg=b;",
				  (uint64_t)llround(busy_b[i] * 1e8) - 2000000,
				  5000000);
	}
	wc_err_clear(&err);
	*out = NULL;
	ck_assert_msg(wc_summary_build_opts(out, caps, 2 * n, &o, &err) == 0,
		      "%s", err.msg);
}

START_TEST(test_three_verdicts)
{
	static const double few_a[2] = { 0.4795, 0.5205 };
	static const double few_b[2] = { 0.7136, 0.7164 };
	static const double alike_a[3] = { 0.48, 0.50, 0.52 };
	static const double alike_b[3] = { 0.695, 0.715, 0.735 };
	static const double near_b[3] = { 0.49, 0.51, 0.53 };
	struct wc_analysis *caps[6];
	struct wc_summary *s;
	const struct wc_test *t;
	const struct wc_finding *f;
	double se = 0.02 * sqrt(2.0 / 3);

	/* Not decided, with the runs that would decide it: two runs a side
	 * 0.215 s apart, sd 0.041/sqrt(2) = 0.0290 and 0.0028/sqrt(2) =
	 * 0.0020: se = 0.0205, t = 10.5 on df = 1.01 -> 1, where 12.706 is
	 * needed; 0.215 is over the bound, so it cannot be "no larger".  At
	 * three runs a side, se = sqrt((0.0290^2 + 0.0020^2) / 3) = 0.0168
	 * on df = 2.02 -> 2: 4.303 x 0.0168 = 0.072 < 0.215, real. */
	verdict_runs(few_a, few_b, 2, &s, caps, 0);
	t = &s->groups[1].test[WC_MEAS_BUSY];
	ck_assert(fabs(t->diff_s - 0.215) < 1e-6);
	ck_assert(t->t > 10 && t->t < 11);
	ck_assert(t->df > 1 && t->df < 1.1);
	ck_assert(fabs(t->bound_s - 0.0275) < 1e-4);
	ck_assert_int_eq(t->verdict, WC_VERDICT_UNDECIDED);
	ck_assert_int_eq(s->groups[1].verdict, WC_VERDICT_UNDECIDED);
	ck_assert_uint_eq(t->runs_needed, 3);
	ck_assert(t->lo_s < 0 && t->hi_s > 0.43);
	/* The flushes carry all of it; the data writes never moved: an
	 * interval of no width at 0, no larger than the bound. */
	ck_assert_int_eq(s->groups[1].test[WC_CAT_FLUSH].verdict,
			 WC_VERDICT_UNDECIDED);
	ck_assert_int_eq(s->groups[1].test[WC_CAT_DATA_WRITE].verdict,
			 WC_VERDICT_BOUNDED);
	ck_assert_int_eq(s->groups[0].test[WC_CAT_FLUSH].verdict,
			 WC_VERDICT_BASELINE);
	f = find(s, WC_FIND_DIFFERENCE);
	ck_assert_msg(strstr(f->text, "it is not decided: it excludes neither "
			     "0 nor a change over +-0.028 s") != NULL &&
		      strstr(f->text, "; 3 runs a side would decide it at this "
			     "spread") != NULL, "%s", f->text);
	ck_assert(fabs(num(f, "runs_needed") - 3) < 1e-9);
	wc_summary_free(s);
	free_caps(caps, 4);

	/* Real: the same 0.215 s at sd 0.02 a side, three runs: se =
	 * 0.02 sqrt(2/3) = 0.0163, df = 4: 0.215 +- 2.776 se excludes 0. */
	verdict_runs(alike_a, alike_b, 3, &s, caps, 0);
	t = &s->groups[1].test[WC_MEAS_BUSY];
	ck_assert(fabs(t->df - 4) < 1e-6);
	ck_assert(fabs(t->lo_s - (0.215 - 2.776 * se)) < 1e-6);
	ck_assert_int_eq(t->verdict, WC_VERDICT_REAL);
	ck_assert_uint_eq(t->runs_needed, 0);
	wc_summary_free(s);
	free_caps(caps, 6);

	/* Means 0.01 s apart, se 0.0163, df 4.  95 %: 0.01 < 2.776 se =
	 * 0.045, not real.  90 % (one-sided 95 %, 2.132 on 4 df): 0.01 +-
	 * 0.0348, from -0.0248 to +0.0448.  At the bound 0.05 s it lies
	 * inside: no larger than 0.05 s. */
	verdict_runs(alike_a, near_b, 3, &s, caps, 0.05);
	t = &s->groups[1].test[WC_MEAS_BUSY];
	ck_assert(fabs(t->t - 0.01 / se) < 1e-6);
	ck_assert(fabs(t->lo90_s - (0.01 - 2.132 * se)) < 1e-6);
	ck_assert(fabs(t->hi90_s - (0.01 + 2.132 * se)) < 1e-6);
	ck_assert(t->lo_s < 0 && t->hi_s > 0);
	ck_assert(fabs(t->bound_s - 0.05) < 1e-12);
	ck_assert_int_eq(t->verdict, WC_VERDICT_BOUNDED);
	f = find(s, WC_FIND_DIFFERENCE);
	ck_assert_msg(strstr(f->text, "it is no larger than +-0.050 s (the "
			     "bound set by --equivalence): its 90 % interval, "
			     "-0.025 to +0.045 s, lies inside") != NULL, "%s",
		      f->text);
	wc_summary_free(s);
	free_caps(caps, 6);

	/* The same runs at the default bound 0.0275 s: +0.0448 is outside,
	 * not decided.  With n runs a side df = 2(n - 1) and se = 0.02
	 * sqrt(2/n); no larger needs 0.01 + t90 se < 0.0275, i.e. t90
	 * sqrt(2/n) < 0.875: n = 8 gives 1.761 x 0.5 = 0.8805, n = 9 gives
	 * 1.746 x 0.4714 = 0.823 (real would need 2.120 x 0.4714 < 0.5).
	 * Nine runs a side: "|t| = 0.61 with 3 and 3" is not "within
	 * noise", it is undecided. */
	verdict_runs(alike_a, near_b, 3, &s, caps, 0);
	t = &s->groups[1].test[WC_MEAS_BUSY];
	ck_assert_int_eq(t->verdict, WC_VERDICT_UNDECIDED);
	ck_assert_uint_eq(t->runs_needed, 9);
	wc_summary_free(s);
	free_caps(caps, 6);
}
END_TEST

/* Off the device, split: per round the main device writes 2 ms while a
 * second device writes 3 ms from 1 ms later (they overlap by 1 ms), then
 * both idle; the command's CPU is 15 ms.  Of the main device's idle
 * time, 10 x 2 ms is the other device's, 15 ms the CPU's, the rest the
 * rest. */
#define DEV2 WC_DEV_MAKE(7u, 2u)
START_TEST(test_off_split)
{
	struct wc_phase ph = { "copy", 0, 0, 1.5, 0.010, 0.005 };
	struct wc_capture_meta m;
	struct scripted *sc = calloc(1, sizeof(*sc));
	struct wc_analysis *a = NULL;
	struct wc_summary *s;
	const struct wc_sum_capture *c;
	struct wc_err err;
	uint64_t t = 1000000;
	int i;

	ck_assert_ptr_nonnull(sc);
	memset(&m, 0, sizeof(m));
	snprintf(m.name, sizeof(m.name), "two");
	m.write_cache = m.barrier = m.complete = m.main_rotational = -1;
	ph.start = t;
	for (i = 0; i < 10; i++) {
		uint64_t at = 8000 + (uint64_t)i * 128;

		ev(sc, t, WC_TA_QUEUE, W, at, 65536);
		ev(sc, t + 1000, WC_TA_ISSUE, W, at, 65536);
		scripted_add(sc, DEV2, t + 1001000, WC_TA_QUEUE, W, at, 4096);
		scripted_add(sc, DEV2, t + 1001000, WC_TA_ISSUE, W, at, 4096);
		ev(sc, t + 2001000, WC_TA_COMPLETE, W, at, 65536);
		scripted_add(sc, DEV2, t + 4001000, WC_TA_COMPLETE, W, at, 4096);
		t += 10000000;
	}
	ev(sc, t, WC_TA_PLUG, 0, 0, 0);
	ph.end = t;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, scripted_next, sc, &m, &ph,
						 1, NULL, &err), 0);
	free(sc);
	s = build(&a, 1, NULL);
	c = &s->caps[0];
	ck_assert_uint_eq(c->ndevices, 2);
	ck_assert_uint_eq(c->main->device, DEV);
	ck_assert(fabs(c->meas[WC_MEAS_BUSY] - 0.020) < 1e-9);
	ck_assert(fabs(c->meas[WC_MEAS_OFF_OTHER] - 0.020) < 1e-9);
	ck_assert(fabs(c->meas[WC_MEAS_OFF_CPU] - 0.015) < 1e-9);
	ck_assert(fabs(c->meas[WC_MEAS_OFF_OTHER] + c->meas[WC_MEAS_OFF_CPU] +
		       c->meas[WC_MEAS_OFF_REST] - c->meas[WC_MEAS_OFF_DEVICE]) <
		  1e-9);
	ck_assert(fabs(c->command_wall_s - 1.5) < 1e-9);
	ck_assert_ptr_nonnull(strstr(find(s, WC_FIND_DEVICE_IDLE)->text,
				     "was busy for 0.020 s of it"));
	ck_assert_ptr_nonnull(strstr(find(s, WC_FIND_MOST_TIME)->text,
				     "its command ran 1.500 s"));
	wc_summary_free(s);
	wc_analysis_free(a);
}
END_TEST

/* Bias: three configurations of three runs whose run 1 is slowest by
 * far, off the device: a run-order effect naming the runs; --drop-first
 * leaves them out and says so; --exclude-runs 2 leaves run 2 out; a
 * warm-up is left out beside measured runs. */
static struct wc_analysis *run_of(const char *cfg, int run, uint64_t gap)
{
	char name[64];

	struct wc_analysis *a;

	snprintf(name, sizeof(name), "%s-run%d", cfg, run);
	a = cap(name, cfg, 1000000, gap);
	/* What the input would read from capture.conf (analysis.c). */
	((struct wc_capture_meta *)wc_analysis_meta(a))->run = run;
	return a;
}

START_TEST(test_run_order)
{
	static const char *const cfg[3] = { "cfg=a;", "cfg=b;", "cfg=c;" };
	struct wc_analysis *caps[10];
	struct wc_summary_opts o = { 0 };
	int only2[1] = { 2 };
	struct wc_summary *s = NULL;
	const struct wc_finding *f;
	struct wc_err err;
	size_t i;

	for (i = 0; i < 9; i++)
		caps[i] = run_of(cfg[i / 3], (int)(i % 3) + 1,
				 i % 3 == 0 ? 9000000 : 5000000 + i * 10000);
	s = build(caps, 9, NULL);
	f = find(s, WC_FIND_RUN_ORDER);
	ck_assert_ptr_nonnull(f);
	/* 3 of 3 groups, each 1/3 by chance: 1/27. */
	ck_assert(fabs(num(f, "chance_wall") - 1.0 / 27) < 1e-9);
	ck_assert(num(f, "effect") == 1);
	ck_assert(fabs(num(f, "excess_wall_s") - 0.040) < 0.001);
	ck_assert_ptr_nonnull(strstr(f->text, "a run-order effect"));
	ck_assert_str_eq(str(f, "runs"), "cfg=a;-run1, cfg=b;-run1 and cfg=c;-run1");
	wc_summary_free(s);

	o.drop_first = true;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_summary_build_opts(&s, caps, 9, &o, &err), 0);
	ck_assert_uint_eq(s->ncaps, 6);
	ck_assert_uint_eq(s->nleft_out, 3);
	f = find(s, WC_FIND_LEFT_OUT);
	ck_assert_ptr_nonnull(strstr(f->text, "Left out of everything here: "
				     "cfg=a;-run1 (--drop-first)"));
	/* Two runs a group: no order to test. */
	ck_assert_ptr_null(find(s, WC_FIND_RUN_ORDER));
	wc_summary_free(s);

	o.drop_first = false;
	o.exclude_runs = only2;
	o.nexclude = 1;
	caps[9] = cap("cfg=a;-run1-warmup", "cfg=a;", 1000000, 5000000);
	((struct wc_capture_meta *)wc_analysis_meta(caps[9]))->warmup = true;
	ck_assert_int_eq(wc_summary_build_opts(&s, caps, 10, &o, &err), 0);
	ck_assert_uint_eq(s->ncaps, 6);
	ck_assert_uint_eq(s->nleft_out, 4);
	f = find(s, WC_FIND_LEFT_OUT);
	ck_assert(num(f, "count") == 4);
	ck_assert_ptr_nonnull(strstr(f->text, "(--exclude-runs) and 1 more."));
	for (i = 0; i < s->ncaps; i++)
		ck_assert_int_ne(s->caps[i].meta->run, 2);
	wc_summary_free(s);
	/* Every capture left out, or the baseline: a usage error. */
	o.exclude_runs = NULL;
	o.nexclude = 0;
	o.baseline = "cfg=a;-run1-warmup";
	ck_assert_int_eq(wc_summary_build_opts(&s, caps, 10, &o, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "was left out"));
	free_caps(caps, 10);
}
END_TEST

START_TEST(test_unknown_baseline)
{
	struct wc_analysis *a = cap("x", "", 1000000, 1000000);
	struct wc_summary *s = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_summary_build(&s, &a, 1, "nosuch", &err), -1);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	ck_assert_str_eq(err.msg, "no capture named 'nosuch' for --baseline");
	wc_summary_free(NULL);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(wc_part_key(WC_PART_IDLE), "off_device");
	ck_assert_str_eq(wc_part_key(WC_CAT_DATA_WRITE), "data_write");
	ck_assert_str_eq(wc_col_key(WC_COL_POSITIONING), "positioning");
	ck_assert_str_eq(wc_finding_kind_name(WC_FIND_DEVICE_IDLE),
			 "device_idle");
	ck_assert_str_eq(wc_onoff(1), "on");
	ck_assert_str_eq(wc_onoff(0), "off");
	ck_assert_str_eq(wc_onoff(-1), "?");
}
END_TEST

static Suite *summary_suite(void)
{
	Suite *s = suite_create("summary");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_flush_difference);
	tcase_add_test(tc, test_findings_one);
	tcase_add_test(tc, test_capture_figures);
	tcase_add_test(tc, test_groups);
	tcase_add_test(tc, test_groups_memory);
	tcase_add_test(tc, test_groups_many_configs);
	tcase_add_test(tc, test_groups_configs_aimed);
	tcase_add_test(tc, test_reduce_flat);
	tcase_add_test(tc, test_copies_bloom_errs);
	tcase_add_test(tc, test_copies_keys_aimed);
	tcase_add_test(tc, test_runs_used_count);
	tcase_add_test(tc, test_never_vary);
	tcase_add_test(tc, test_acc);
	tcase_add_test(tc, test_three_verdicts);
	tcase_add_test(tc, test_off_split);
	tcase_add_test(tc, test_device_cause_off_device);
	tcase_add_test(tc, test_run_order);
	tcase_add_test(tc, test_unknown_baseline);
	tcase_add_test(tc, test_disk_baselines);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(summary_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
