/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_bundle.c - tests of analyze/lib/out/bundle.c and the modules it
 * orders (check_outdir, check_chart, check_plot and check_html test each
 * alone), through the bundle's API: the folder's files,
 * what the .dat files say against what went in, the .gp scripts, the page,
 * names made safe and unique, running without gnuplot or with a gnuplot
 * that fails, misuse, and the timeline (compressed, linked, and where
 * the limit ends it).
 *
 * Captures are made by hand: a few hundred requests (data, metadata,
 * journal, flushes) on one device, as events through
 * wc_analysis_read_source() with the series on, then handed to
 * wc_bundle_add() as wcanalyze does.
 * Run from the top of the source tree (run-tests.sh does): templates come
 * from ./plots.
 */
#include <check.h>
#include <ftw.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis/analysis.h"
#include "out/bundle.h"
#include "check_common.h"

#define DEV WC_DEV_MAKE(7u, 1u)
#define MS 1000000ull
#define T0 (1000 * 1000 * MS)   /* the trace clock does not start at 0 */
#define NREQ 240

struct src {
	struct wc_event ev[3 * NREQ];
	size_t n, next;
};

/* What went in, to compare the .dat files with. */
struct truth {
	uint64_t bytes;
	uint64_t flushes;
	uint64_t flush_ns;      /* sum of flush D2C */
	uint64_t points_max;    /* requests with a sector */
};

static char tmpdir[64];

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static void setup(void)
{
	strcpy(tmpdir, "/tmp/check_bundle.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	setenv("WCANALYZE_PLOTS", "plots", 1);
	setenv("WCANALYZE_GNUPLOT", "", 1);     /* fast: no rendering */
}

static void teardown(void)
{
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int src_next(void *ctx, struct wc_event *ev, struct wc_err *err)
{
	struct src *s = ctx;

	(void)err;
	if (s->next == s->n)
		return 0;
	*ev = s->ev[s->next++];
	return 1;
}

static void put(struct src *s, uint64_t t, unsigned what, uint64_t flags,
		uint64_t sector, uint32_t bytes)
{
	struct wc_event *e = &s->ev[s->n++];

	memset(e, 0, sizeof(*e));
	e->time = t;
	e->action = what | flags;
	e->sector = sector;
	e->bytes = bytes;
	e->device = DEV;
	e->pid = 100;
	e->version = 7;
}

static int by_time(const void *a, const void *b)
{
	const struct wc_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return 0;
}

/*
 * One request at a time, so completion order is dispatch order: data
 * writes far apart, metadata near the start, a journal write (SYNC|META)
 * every fourth with an empty flush before it.
 */
static void make_trace(struct src *s, struct truth *tr, unsigned seed)
{
	uint64_t t = T0;
	int i;

	memset(s, 0, sizeof(*s));
	memset(tr, 0, sizeof(*tr));
	for (i = 0; i < NREQ; i++) {
		uint64_t flags = WC_TC(WC_TC_WRITE), sector;
		uint32_t bytes = 4096 * (1 + (unsigned)rand_r(&seed) % 16);
		uint64_t lat = (1 + (uint64_t)(rand_r(&seed) % 5)) * MS;

		if (i % 4 == 3) {
			flags |= WC_TC(WC_TC_FLUSH);
			bytes = 0;
			sector = 0;
			tr->flushes++;
			tr->flush_ns += lat;
		} else if (i % 4 == 2) {
			flags |= WC_TC(WC_TC_SYNC) | WC_TC(WC_TC_META);
			sector = 500000 + (uint64_t)i * 8;
		} else if (i % 4 == 1) {
			flags |= WC_TC(WC_TC_META);
			sector = 64 + (uint64_t)(rand_r(&seed) % 1000) * 8;
		} else {
			sector = 2000000 + (uint64_t)(rand_r(&seed) % 100000) * 8;
		}
		put(s, t, WC_TA_QUEUE, flags | WC_TC(WC_TC_QUEUE), sector, bytes);
		put(s, t + 100000, WC_TA_ISSUE, flags | WC_TC(WC_TC_ISSUE), sector, bytes);
		put(s, t + 100000 + lat, WC_TA_COMPLETE, flags | WC_TC(WC_TC_COMPLETE),
		    sector, bytes);
		tr->bytes += bytes;
		if (bytes)
			tr->points_max++;
		t += 100000 + lat + (uint64_t)(rand_r(&seed) % 3) * MS;
	}
	qsort(s->ev, s->n, sizeof(s->ev[0]), by_time);
}

/* Runs one hand-made capture through the bundle, as wcanalyze does,
 * with its timeline when timeline. */
static struct wc_analysis *feed_as(struct wc_bundle *b, const char *name,
				   unsigned seed, struct truth *tr,
				   bool timeline)
{
	static struct src s;
	struct wc_capture_meta meta;
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_analysis *a = NULL;
	struct wc_phase ph[2];
	struct wc_err err;

	make_trace(&s, tr, seed);
	memset(&meta, 0, sizeof(meta));
	snprintf(meta.name, sizeof(meta.name), "%s", name);
	strcpy(meta.fs, "xfs");
	meta.write_cache = 1;
	meta.barrier = 0;
	meta.events_dropped = -1;
	meta.main_device = DEV;
	meta.main_from_conf = true;
	meta.main_rotational = -1;
	meta.complete = -1;
	meta.journal_method = WC_JOURNAL_HEURISTIC;
	ph[0] = (struct wc_phase){ "copy", T0, s.ev[s.n / 2].time, 0, 0, 0 };
	ph[1] = (struct wc_phase){ "sync", s.ev[s.n / 2].time,
				   s.ev[s.n - 1].time, 0, 0, 0 };
	o.series = true;
	wc_err_clear(&err);
	if (timeline)
		ck_assert_int_eq(wc_bundle_begin(b, &o, &err), 0);
	ck_assert_int_eq(wc_analysis_read_source(&a, src_next, &s, &meta, ph, 2,
						 &o, &err), 0);
	ck_assert_int_eq(wc_bundle_add(b, a, &err), 0);
	/* the bundle keeps its points, the analysis no longer its series */
	ck_assert(!wc_analysis_has_series(a));
	ck_assert_ptr_null(wc_analysis_series(a, DEV));
	return a;
}

static struct wc_analysis *feed(struct wc_bundle *b, const char *name,
				unsigned seed, struct truth *tr)
{
	return feed_as(b, name, seed, tr, false);
}

static char *path(const char *rel)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, rel);
	return buf;
}

static char *slurp(const char *rel)
{
	FILE *f = fopen(path(rel), "r");
	char *buf = NULL;
	size_t len = 0;

	ck_assert_msg(f != NULL, "%s missing", rel);
	ck_assert_int_ge(getdelim(&buf, &len, '\0', f), 0);
	fclose(f);
	return buf;
}

static bool exists(const char *rel)
{
	return access(path(rel), F_OK) == 0;
}

static struct wc_bundle *open_bundle(void)
{
	struct wc_bundle *b = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_msg(wc_bundle_open(&b, tmpdir, &err) == 0, "%s", err.msg);
	return b;
}

/* Closes the bundle with the summary of its captures, as wcanalyze does. */
static int close_with(struct wc_bundle *b, struct wc_analysis *const *a,
		      size_t n, struct wc_err *err)
{
	struct wc_summary *s = NULL;
	int r;

	if (wc_summary_build(&s, a, n, NULL, err) < 0)
		return -1;
	r = wc_bundle_close(b, s, err);
	wc_summary_free(s);
	return r;
}

START_TEST(test_files_without_gnuplot)
{
	static const char *const files[] = {
		"report.txt", "report.json", "summary.csv", "index.html",
		"render.sh", "cap/timeline.dat", "cap/scatter.dat",
		"cap/latency.dat", "cap/phases.dat", "cap/scatter.gp",
		"cap/throughput.gp", "cap/flushes.gp", "cap/latency.gp",
		"cap/queue.gp", "cap/phases.gp",
	};
	struct wc_bundle *b = open_bundle();
	struct wc_analysis *a;
	struct truth tr;
	struct wc_err err;
	char *html;
	size_t i;

	a = feed(b, "cap", 1, &tr);
	wc_err_clear(&err);
	ck_assert_int_eq(close_with(b, &a, 1, &err), 0);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		ck_assert_msg(exists(files[i]), "%s missing", files[i]);
	ck_assert(!exists("cap/scatter.png"));
	ck_assert(!exists("compare-time.gp"));     /* one capture only */
	ck_assert_ptr_nonnull(wc_bundle_notice(b));
	ck_assert_ptr_nonnull(strstr(wc_bundle_notice(b), "render.sh"));
	ck_assert_str_eq(wc_bundle_index(b), path("index.html"));
	html = slurp("index.html");
	ck_assert_ptr_nonnull(strstr(html, "not rendered"));
	ck_assert_ptr_nonnull(strstr(html, "<img src=\"cap/scatter.png\""));
	ck_assert_ptr_null(strstr(html, "<script"));
	free(html);
	wc_bundle_free(b);
	wc_analysis_free(a);
}
END_TEST

/* timeline.dat, rebinned for the figures, still adds up to the input. */
START_TEST(test_timeline_adds_up)
{
	struct wc_bundle *b = open_bundle();
	struct truth tr;
	struct wc_analysis *a = feed(b, "cap", 2, &tr);
	char *dat, *line, *save = NULL;
	double bytes = 0, flushes = 0, cum = 0;
	size_t rows = 0;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(close_with(b, &a, 1, &err), 0);
	dat = slurp("cap/timeline.dat");
	for (line = strtok_r(dat, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		double v[25];
		int k, n = 0, off = 0;

		if (line[0] == '#')
			continue;
		for (k = 0; k < 25 && sscanf(line + off, "%lf%n", &v[k], &n) == 1; k++)
			off += n;
		ck_assert_int_eq(k, 25);
		for (k = 3; k < 10; k++)
			bytes += v[k] * 1e6 * v[2];
		ck_assert_double_eq_tol(v[23], v[3] + v[4] + v[5] + v[6] + v[7] +
					v[8] + v[9], 1e-3 * (1 + v[23]));
		flushes += v[22];
		cum = v[18];
		rows++;
	}
	free(dat);
	ck_assert_uint_le(rows, 300);
	ck_assert_uint_gt(rows, 50);
	ck_assert_double_eq_tol(bytes, (double)tr.bytes, 1e-4 * (double)tr.bytes);
	ck_assert_double_eq_tol(flushes, (double)tr.flushes, 0.5);
	ck_assert_double_eq_tol(cum, (double)tr.flush_ns / 1e9, 1e-6);
	wc_bundle_free(b);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_scatter_and_latency)
{
	struct wc_bundle *b = open_bundle();
	struct truth tr;
	struct wc_analysis *a = feed(b, "cap", 3, &tr);
	char *dat, *line, *save = NULL, *gp;
	uint64_t points = 0, marks = 0;
	unsigned seen = 0;
	struct wc_err err;
	double last[8] = { 0 };

	wc_err_clear(&err);
	ck_assert_int_eq(close_with(b, &a, 1, &err), 0);
	dat = slurp("cap/scatter.dat");
	for (line = strtok_r(dat, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		double t, sector;
		unsigned mask;

		if (line[0] == '#')
			continue;
		ck_assert_int_eq(sscanf(line, "%lf %lf %u", &t, &sector, &mask), 3);
		ck_assert(t >= 0);
		if (sector < 0) {
			ck_assert_uint_eq(mask, 1u << WC_CAT_FLUSH);
			marks++;
			continue;
		}
		ck_assert_uint_eq(mask & (1u << WC_CAT_FLUSH), 0);
		points += (uint64_t)__builtin_popcount(mask);
		seen |= mask;
	}
	free(dat);
	ck_assert_uint_gt(points, 0);
	ck_assert_uint_le(points, tr.points_max);
	ck_assert_uint_gt(marks, 0);
	ck_assert_uint_le(marks, tr.flushes);
	ck_assert(seen & (1u << WC_CAT_DATA_WRITE));
	ck_assert(seen & (1u << WC_CAT_METADATA));
	ck_assert(seen & (1u << WC_CAT_JOURNAL));

	/* The figure's note says whether points were merged. */
	gp = slurp("cap/scatter.gp");
	ck_assert(strstr(gp, "one point each") || strstr(gp, "are merged"));
	ck_assert_ptr_nonnull(strstr(gp, "catcolor = "));     /* common.gp */
	ck_assert_ptr_nonnull(strstr(gp, "do for [fmt in formats]"));
	free(gp);

	/* Each CDF present ends at 1. */
	dat = slurp("cap/latency.dat");
	for (line = strtok_r(dat, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int k, n = 0, off = 0;

		if (line[0] == '#')
			continue;
		for (k = 0; k < 8 && sscanf(line + off, "%lf%n", &last[k], &n) == 1; k++)
			off += n;
		ck_assert_int_eq(k, 8);
	}
	free(dat);
	ck_assert_double_eq_tol(last[1 + WC_CAT_FLUSH], 1.0, 1e-9);
	ck_assert_double_eq_tol(last[1 + WC_CAT_DATA_WRITE], 1.0, 1e-9);
	ck_assert(isnan(last[1 + WC_CAT_DATA_READ]));
	wc_bundle_free(b);
	wc_analysis_free(a);
}
END_TEST

/* phases.dat: one row per phase and one for the whole capture, with
 * the accountant's figures. */
START_TEST(test_phases)
{
	struct wc_bundle *b = open_bundle();
	struct truth tr;
	struct wc_analysis *a = feed(b, "cap", 4, &tr);
	const struct wc_figures *m = wc_analysis_main(a);
	char *dat, *line, *save = NULL;
	char names[3][32];
	double idle[3], flush[3];
	int rows = 0;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(close_with(b, &a, 1, &err), 0);
	dat = slurp("cap/phases.dat");
	for (line = strtok_r(dat, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		ck_assert_int_lt(rows, 3);
		ck_assert_int_eq(sscanf(line, "\"%31[^\"]\" %lf %lf", names[rows],
					&idle[rows], &flush[rows]), 3);
		rows++;
	}
	free(dat);
	ck_assert_int_eq(rows, 3);
	ck_assert_str_eq(names[0], "copy");
	ck_assert_str_eq(names[1], "sync");
	ck_assert_str_eq(names[2], "whole capture");
	ck_assert_ptr_nonnull(m);
	ck_assert_double_eq_tol(idle[2], (double)m->idle_ns / 1e9, 1e-9);
	ck_assert_double_eq_tol(flush[2], (double)m->time_ns[WC_CAT_FLUSH] / 1e9, 1e-9);
	wc_bundle_free(b);
	wc_analysis_free(a);
}
END_TEST

/* Two captures of one name, and names that are no good as folders. */
START_TEST(test_names_and_compare)
{
	struct wc_bundle *b = open_bundle();
	struct wc_analysis *a[3];
	struct truth tr;
	struct wc_err err;
	char *html, *dat;

	a[0] = feed(b, "same", 5, &tr);
	a[1] = feed(b, "same", 6, &tr);
	a[2] = feed(b, "../<b>&evil name", 7, &tr);
	wc_err_clear(&err);
	ck_assert_int_eq(close_with(b, a, 3, &err), 0);
	ck_assert(exists("same/scatter.dat"));
	ck_assert(exists("same-2/scatter.dat"));
	ck_assert(exists("_.__b__evil_name/scatter.dat"));
	ck_assert(exists("compare-time.gp"));
	ck_assert(exists("compare-phases.gp"));
	ck_assert(exists("compare-throughput.gp"));
	ck_assert(exists("compare-configs.gp"));
	html = slurp("index.html");
	/* The findings and the differences open the page. */
	ck_assert_ptr_nonnull(strstr(html, "<h2 id=\"findings\">"));
	ck_assert_ptr_nonnull(strstr(html, "<h2 id=\"difference\">"));
	ck_assert(strstr(html, "<h2 id=\"findings\">") <
		  strstr(html, "<h2 id=\"summary\">"));
	ck_assert_ptr_null(strstr(html, "<b>&evil"));
	ck_assert_ptr_nonnull(strstr(html, "../&lt;b&gt;&amp;evil name"));
	free(html);
	dat = slurp("compare-phases.dat");
	ck_assert_ptr_nonnull(strstr(dat, "\"same-2\" \"xfs\" \"on\" \"off\""));
	free(dat);
	/* No name reaches the figure's script: only the .dat holds them. */
	dat = slurp("compare-configs.gp");
	ck_assert_ptr_null(strstr(dat, "evil"));
	ck_assert_ptr_null(strstr(dat, "same-2"));
	free(dat);
	dat = slurp("compare-configs.dat");
	ck_assert_ptr_nonnull(strstr(dat, "\"_.__b__evil_name\" \"xfs\""));
	free(dat);
	wc_bundle_free(b);
	wc_analysis_free(a[0]);
	wc_analysis_free(a[1]);
	wc_analysis_free(a[2]);
}
END_TEST

/* Whether a finding of s names name as its capture or baseline. */
static bool named_in(const struct wc_summary *s, const char *name)
{
	size_t k, j;

	for (k = 0; k < s->nfindings; k++)
		for (j = 0; j < s->findings[k].nstrs; j++)
			if ((!strcmp(s->findings[k].str[j].key, "capture") ||
			     !strcmp(s->findings[k].str[j].key, "baseline")) &&
			    !strcmp(s->findings[k].str[j].value, name))
				return true;
	return false;
}

/* Pages (figures, data, timeline) for the captures the findings name,
 * the others kept to their section of the page; every one on request. */
START_TEST(test_pages_named)
{
	static const char *const names[] = { "p1", "p2", "p3", "p4", "p5", "p6" };
	const size_t n = sizeof(names) / sizeof(names[0]);
	struct wc_analysis *a[6];
	struct wc_summary *s = NULL;
	struct wc_bundle *b;
	struct truth tr;
	struct wc_err err;
	char *html, *list, rel[64];
	size_t i, paged = 0;
	int all;

	for (all = 0; all < 2; all++) {
		b = open_bundle();
		wc_bundle_all_pages(b, all);
		for (i = 0; i < n; i++)
			a[i] = feed_as(b, names[i], 20 + (unsigned)i, &tr, true);
		wc_err_clear(&err);
		ck_assert_int_eq(wc_summary_build(&s, a, n, NULL, &err), 0);
		ck_assert_int_eq(wc_bundle_close(b, s, &err), 0);
		html = slurp("index.html");
		list = slurp("bundle-files.txt");
		for (i = 0, paged = 0; i < n; i++) {
			bool page = all || named_in(s, names[i]);

			paged += page;
			snprintf(rel, sizeof(rel), "%s/scatter.gp", names[i]);
			ck_assert_msg(exists(rel) == page, "%s: %d", rel, page);
			snprintf(rel, sizeof(rel), "%s/timeline.json.gz", names[i]);
			ck_assert_msg(exists(rel) == page, "%s: %d", rel, page);
			ck_assert_msg(exists(names[i]) == page, "%s", names[i]);
			snprintf(rel, sizeof(rel), "\n%s/", names[i]);
			ck_assert_msg(!strstr(list, rel) == !page, "%s listed", rel);
			snprintf(rel, sizeof(rel), "<img src=\"%s/", names[i]);
			ck_assert_msg(!strstr(html, rel) == !page, "%s", rel);
		}
		/* Some are left out by default, and the page says how to
		 * have them. */
		ck_assert(all ? paged == n : paged < n && paged > 0);
		ck_assert((strstr(html, "--capture-pages all") == NULL) == (all != 0));
		free(html);
		free(list);
		wc_summary_free(s);
		s = NULL;
		wc_bundle_free(b);
		for (i = 0; i < n; i++)
			wc_analysis_free(a[i]);
	}
}
END_TEST

START_TEST(test_renders_with_gnuplot)
{
	static const char png[8] = { '\x89', 'P', 'N', 'G', '\r', '\n', '\x1a', '\n' };
	static const char *const figs[] = {
		"cap/scatter", "cap/throughput", "cap/flushes", "cap/latency",
		"cap/queue", "cap/phases",
	};
	struct wc_bundle *b;
	struct wc_analysis *a;
	struct truth tr;
	struct wc_err err;
	char *html, rel[64];
	size_t i;

	if (system("command -v gnuplot >/dev/null") != 0)
		ck_abort_msg("gnuplot is needed (scripts/deps.sh installs it)");
	unsetenv("WCANALYZE_GNUPLOT");
	b = open_bundle();
	a = feed(b, "cap", 8, &tr);
	wc_err_clear(&err);
	ck_assert_msg(close_with(b, &a, 1, &err) == 0, "%s", err.msg);
	ck_assert_ptr_null(wc_bundle_notice(b));
	html = slurp("index.html");
	for (i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		char *img;

		snprintf(rel, sizeof(rel), "%s.png", figs[i]);
		img = slurp(rel);
		ck_assert_msg(memcmp(img, png, 8) == 0, "%s is no PNG", rel);
		free(img);
		snprintf(rel, sizeof(rel), "%s.svg", figs[i]);
		img = slurp(rel);
		ck_assert_ptr_nonnull(strstr(img, "<svg"));
		free(img);
		snprintf(rel, sizeof(rel), "src=\"%s.png\"", figs[i]);
		ck_assert_msg(strstr(html, rel) != NULL, "index.html lacks %s", rel);
	}
	ck_assert(!exists("gnuplot.log"));
	free(html);
	wc_bundle_free(b);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_gnuplot_fails)
{
	struct wc_bundle *b = open_bundle();
	struct truth tr;
	struct wc_analysis *a = feed(b, "cap", 9, &tr);
	struct wc_err err;

	setenv("WCANALYZE_GNUPLOT", "/bin/false", 1);
	wc_err_clear(&err);
	ck_assert_int_eq(close_with(b, &a, 1, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	ck_assert_ptr_nonnull(strstr(err.msg, "gnuplot failed on cap/"));
	ck_assert_ptr_nonnull(strstr(err.file, "gnuplot.log"));
	ck_assert(exists("index.html"));
	wc_bundle_free(b);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_misuse)
{
	static struct src s;
	struct wc_bundle *b = NULL;
	struct wc_analysis *a = NULL, *plain = NULL;
	struct truth tr;
	struct wc_err err;

	/* Templates that are not there. */
	setenv("WCANALYZE_PLOTS", tmpdir, 1);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_bundle_open(&b, tmpdir, &err), -1);
	ck_assert_ptr_null(b);
	ck_assert_ptr_nonnull(strstr(err.msg, "WCANALYZE_PLOTS"));
	setenv("WCANALYZE_PLOTS", "plots", 1);

	/* A folder whose parent does not exist. */
	wc_err_clear(&err);
	ck_assert_int_eq(wc_bundle_open(&b, "/nonexistent/dir/x", &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);

	b = open_bundle();
	wc_err_clear(&err);
	ck_assert_int_eq(wc_bundle_close(b, NULL, &err), -1);   /* nothing in it */
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);

	/* An analysis run without series has nothing to draw from. */
	make_trace(&s, &tr, 3);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&plain, src_next, &s, NULL, NULL,
						 0, NULL, &err), 0);
	ck_assert(!wc_analysis_has_series(plain));
	ck_assert_int_eq(wc_bundle_add(b, plain, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "without series"));

	/* Nor one added already: its series were released. */
	a = feed(b, "once", 4, &tr);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_bundle_add(b, a, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "without series"));
	wc_err_clear(&err);
	ck_assert_int_eq(close_with(b, &a, 1, &err), 0);
	ck_assert(exists("once/timeline.dat"));
	wc_bundle_free(b);
	wc_bundle_free(NULL);
	wc_analysis_free(a);
	wc_analysis_free(plain);
}
END_TEST

/* Generates Q, D, C of one request after another, scattered over the
 * disk, without keeping them. */
struct gen {
	uint64_t i, n;
	int step;
	unsigned seed;
	uint64_t sector;
};

static int gen_next(void *ctx, struct wc_event *ev, struct wc_err *err)
{
	static const unsigned what[3] = { WC_TA_QUEUE, WC_TA_ISSUE, WC_TA_COMPLETE };
	static const unsigned tc[3] = { WC_TC_QUEUE, WC_TC_ISSUE, WC_TC_COMPLETE };
	struct gen *g = ctx;
	uint64_t t = T0 + g->i * 10000;

	(void)err;
	if (g->i == g->n)
		return 0;
	if (g->step == 0)
		g->sector = ((uint64_t)rand_r(&g->seed) << 8) % 1000000000ull;
	memset(ev, 0, sizeof(*ev));
	ev->time = t + (g->step == 0 ? 0 : g->step == 1 ? 1000 : 6000);
	ev->action = what[g->step] | WC_TC(WC_TC_WRITE) | WC_TC(tc[g->step]);
	ev->sector = g->sector;
	ev->bytes = 4096;
	ev->device = DEV;
	ev->version = 7;
	if (++g->step == 3) {
		g->step = 0;
		g->i++;
	}
	return 1;
}

/* A scatter of very many points is a PNG only: an SVG of them would take
 * a browser too long to draw. */
START_TEST(test_many_points_no_svg)
{
	struct wc_bundle *b = open_bundle();
	struct gen g = { 0, 150000, 0, 11, 0 };
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_capture_meta meta;
	struct wc_analysis *a = NULL;
	struct wc_err err;
	char *gp, *html;

	memset(&meta, 0, sizeof(meta));
	strcpy(meta.name, "many");
	meta.write_cache = meta.barrier = meta.main_rotational = meta.complete = -1;
	meta.events_dropped = -1;
	meta.main_device = DEV;
	meta.journal_method = WC_JOURNAL_HEURISTIC;
	o.series = true;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, gen_next, &g, &meta, NULL, 0,
						 &o, &err), 0);
	ck_assert_int_eq(wc_bundle_add(b, a, &err), 0);
	ck_assert_int_eq(close_with(b, &a, 1, &err), 0);
	gp = slurp("many/scatter.gp");
	ck_assert_ptr_nonnull(strstr(gp, "\nformats = \"png\"\n"));
	free(gp);
	gp = slurp("many/latency.gp");
	ck_assert_ptr_null(strstr(gp, "\nformats = \"png\"\n"));
	free(gp);
	html = slurp("index.html");
	ck_assert_ptr_null(strstr(html, "many/scatter.svg"));
	ck_assert_ptr_nonnull(strstr(html, "many/latency.svg"));
	ck_assert_ptr_nonnull(strstr(html, "no SVG: too many points"));
	free(html);
	wc_bundle_free(b);
	wc_analysis_free(a);
}
END_TEST

/* A capture's timeline, gzip-compressed, linked; with the limit below
 * its requests it ends where the page says, and the rest is counted. */
START_TEST(test_timeline_limit)
{
	struct wc_bundle *b = open_bundle();
	struct wc_analysis *a[2];
	struct truth tr;
	struct wc_err err;
	static char json[1 << 20];
	char *html;
	gzFile gz;
	int n;

	a[0] = feed_as(b, "whole", 10, &tr, true);
	wc_bundle_timeline_limit(b, 50);
	a[1] = feed_as(b, "cut", 10, &tr, true);
	wc_err_clear(&err);
	ck_assert_int_eq(close_with(b, a, 2, &err), 0);
	ck_assert(!exists("cut/timeline.json"));
	gz = gzopen(path("cut/timeline.json.gz"), "rb");
	ck_assert_ptr_nonnull(gz);
	n = gzread(gz, json, sizeof(json) - 1);
	ck_assert_int_gt(n, 0);
	json[n] = '\0';
	ck_assert_int_eq(gzclose(gz), Z_OK);
	ck_assert_ptr_nonnull(strstr(json, "\"name\":\"timeline ends here: "
				     "at most 50 requests drawn\""));
	ck_assert_ptr_nonnull(strstr(json, "\"slices\":50,\"not_drawn\":0,"
				     "\"unfinished\":0,\"past_limit\":190,"));
	html = slurp("index.html");
	ck_assert_ptr_nonnull(strstr(html, "<p>Timeline of every request, flush, "
				     "queue depth and phase: <a href=\"whole/"
				     "timeline.json.gz\">"));
	ck_assert_ptr_nonnull(strstr(html, "<p>Timeline of the first 50 requests "
				     "(flushes among them), with the queue depth "
				     "and the phases, to "));
	ck_assert_ptr_nonnull(strstr(html, "the 190 after are not drawn"));
	free(html);
	wc_bundle_free(b);
	wc_analysis_free(a[0]);
	wc_analysis_free(a[1]);
}
END_TEST

static Suite *bundle_suite(void)
{
	Suite *s = suite_create("bundle");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_files_without_gnuplot);
	tcase_add_test(tc, test_timeline_adds_up);
	tcase_add_test(tc, test_scatter_and_latency);
	tcase_add_test(tc, test_phases);
	tcase_add_test(tc, test_names_and_compare);
	tcase_add_test(tc, test_pages_named);
	tcase_add_test(tc, test_renders_with_gnuplot);
	tcase_add_test(tc, test_gnuplot_fails);
	tcase_add_test(tc, test_misuse);
	tcase_add_test(tc, test_many_points_no_svg);
	tcase_add_test(tc, test_timeline_limit);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(bundle_suite)
