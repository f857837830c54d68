/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_chart.c - unit tests of analyze/lib/out/chart.c on summaries made by
 * hand: a capture without requests (every figure says why it is
 * missing), one with a few requests (the figures written, phases.dat
 * from the summary's parts, the curve kept), and the files across
 * captures (the summary's seconds, the union of phase names, the
 * baseline's role, a capture without a curve).
 *
 * Run from the top of the source tree (run-tests.sh does): templates come
 * from ./plots.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/chart.h"
#include "check_common.h"

#define MS 1000000ull
#define T0 (5000 * MS)

static struct wc_capture_meta meta[2];
static struct wc_sum_phase phases[2][3];
static struct wc_sum_capture caps[2];
static struct wc_sum_group groups[2];
static size_t members[2] = { 0, 1 };
static struct wc_summary sum;

/* Two captures: the first with I/O over 2 s and three phases (two of
 * the same name), the second without I/O and one phase. */
static void make_summary(void)
{
	memset(meta, 0, sizeof(meta));
	memset(phases, 0, sizeof(phases));
	memset(caps, 0, sizeof(caps));
	memset(&sum, 0, sizeof(sum));
	strcpy(meta[0].name, "first \"run\"");
	strcpy(meta[0].fs, "xfs");
	strcpy(meta[0].disk_model, "hdd 7200");
	meta[0].write_cache = 1;
	meta[0].barrier = 0;
	strcpy(meta[1].name, "second");
	meta[1].write_cache = -1;
	meta[1].barrier = -1;

	caps[0].meta = &meta[0];
	caps[0].figs.io = true;
	caps[0].figs.start_ns = T0;
	caps[0].figs.wall_ns = 2000 * MS;
	caps[0].figs.part_ns[WC_CAT_FLUSH] = 250 * MS;
	caps[0].figs.part_ns[WC_CAT_DATA_WRITE] = 500 * MS;
	caps[0].figs.part_ns[WC_PART_IDLE] = 1250 * MS;
	caps[0].figs.requests[WC_CAT_FLUSH] = 2;
	caps[0].figs.requests[WC_CAT_DATA_WRITE] = 3;
	caps[0].figs.col[WC_COL_WALL] = 2.0;
	caps[0].nphases = 3;
	caps[0].phases = phases[0];
	phases[0][0].name = "copy \"a\"";
	phases[0][0].wall_s = 0.5;
	phases[0][0].figs.io = true;
	phases[0][0].figs.part_ns[WC_CAT_DATA_WRITE] = 100 * MS;
	phases[0][0].figs.part_ns[WC_PART_IDLE] = 400 * MS;
	phases[0][1].name = "sync";
	phases[0][1].wall_s = 0.25;
	phases[0][1].figs.part_ns[WC_PART_IDLE] = 250 * MS;   /* no I/O */
	phases[0][2].name = "sync";
	phases[0][2].wall_s = 0.125;

	caps[1].meta = &meta[1];
	caps[1].figs.wall_ns = 1000 * MS;
	caps[1].figs.part_ns[WC_PART_IDLE] = 1000 * MS;
	caps[1].figs.col[WC_COL_WALL] = 1.0;
	caps[1].nphases = 1;
	caps[1].phases = phases[1];
	phases[1][0].name = "rm";
	phases[1][0].wall_s = 0.75;
	caps[1].group = 1;
	caps[1].diff.known = true;
	caps[1].diff.wall_ns = -1000 * (int64_t)MS;
	caps[1].diff.part_ns[WC_PART_IDLE] = -250 * (int64_t)MS;
	caps[1].diff.part_ns[WC_CAT_FLUSH] = -250 * (int64_t)MS;
	caps[1].diff.part_ns[WC_CAT_DATA_WRITE] = -500 * (int64_t)MS;

	/* Two groups, the second against the first on another disk (a
	 * named baseline). */
	memset(groups, 0, sizeof(groups));
	groups[0].n = groups[1].n = 1;
	groups[0].members = &members[0];
	groups[1].members = &members[1];
	groups[0].disk_model = meta[0].disk_model;
	groups[1].disk_model = meta[1].disk_model;
	groups[0].disk_name = meta[0].disk_model;
	groups[1].disk_name = "unknown";
	groups[1].cross_disk = true;
	groups[1].set = 1;
	groups[0].phased = groups[1].phased = 1;
	groups[0].mean_part_ns[WC_CAT_FLUSH] = 250 * MS;
	groups[0].mean_part_ns[WC_CAT_DATA_WRITE] = 500 * MS;
	groups[0].mean_part_ns[WC_PART_IDLE] = 1250 * MS;
	groups[0].col[WC_COL_BUSY] = (struct wc_stat){ 1, 0.75, 0, 0.75, 0.75 };
	groups[0].col[WC_COL_WALL] = (struct wc_stat){ 1, 2.0, 0, 2.0, 2.0 };
	groups[1].mean_part_ns[WC_PART_IDLE] = 1000 * MS;
	groups[1].col[WC_COL_WALL] = (struct wc_stat){ 1, 1.0, 0, 1.0, 1.0 };
	sum.ncaps = 2;
	sum.caps = caps;
	sum.ngroups = 2;
	sum.groups = groups;
	sum.has_diff = true;
	sum.base_group = 0;
}

static struct wc_plot *plot;
static struct wc_outdir *out;

static void setup(void)
{
	struct wc_err err;

	setenv("WCANALYZE_PLOTS", "plots", 1);
	wc_err_clear(&err);
	ck_assert_msg(wc_plot_open(&plot, &err) == 0, "%s", err.msg);
	ck_assert_msg(wc_outdir_open(&out, wc_check_path("b"), &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(wc_outdir_mkdir(out, "one", &err), 0);
	ck_assert_int_eq(wc_outdir_mkdir(out, "two", &err), 0);
	make_summary();
}

static void teardown(void)
{
	wc_plot_free(plot);
	wc_outdir_free(out);
}

static char *text_of(const char *rel)
{
	char name[128];

	snprintf(name, sizeof(name), "b/%s", rel);
	return (char *)wc_check_slurp(wc_check_path(name), NULL);
}

/* The line of f that begins with prefix, up to its end. */
static const char *line_of(const char *f, const char *prefix)
{
	const char *p = f;

	while (p && strncmp(p, prefix, strlen(prefix)) != 0) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	ck_assert_msg(p != NULL, "no line beginning %s", prefix);
	return p;
}

/* Fails unless the line at l begins with prefix. */
static void starts(const char *l, const char *prefix)
{
	ck_assert_msg(strncmp(l, prefix, strlen(prefix)) == 0,
		      "line '%.100s' does not begin '%s'", l, prefix);
}

static void add(struct wc_series *s, uint64_t d, uint64_t c, uint64_t sector,
		uint32_t bytes, enum wc_cat cat)
{
	struct wc_request rq = {
		.device = 1, .sector = sector, .bytes = bytes,
		.q_time = d, .d_time = d, .c_time = c, .nbios = 1,
		.depth = 1, .completed = true,
	};

	wc_series_add(s, &rq, cat);
}

/* The chart of series s for capture sc, as the bundle draws it. */
static int chart_of(struct wc_chart_capture *c, const struct wc_sum_capture *sc,
		    const struct wc_series *s, struct wc_err *err)
{
	struct wc_figdata *fd = NULL;
	int r;

	ck_assert_int_eq(wc_figdata_build(&fd, s, sc->figs.io ?
					  sc->figs.start_ns : WC_NO_TIME, err), 0);
	r = wc_chart_capture(c, sc, fd, plot, out, err);
	wc_figdata_free(fd);
	return r;
}

START_TEST(test_capture_without_requests)
{
	struct wc_chart_capture c = { 0 };
	struct wc_series *s = NULL;
	struct wc_err err;
	char *t;
	int k;

	ck_assert_int_eq(wc_series_open(&s, &err), 0);
	strcpy(c.dir, "two");
	wc_err_clear(&err);
	ck_assert_msg(chart_of(&c, &caps[1], s, &err) == 0,
		      "%s", err.msg);
	for (k = 0; k < WC_NCHARTS; k++) {
		ck_assert(!c.drawn[k]);
		ck_assert_ptr_nonnull(c.why[k]);
	}
	ck_assert_str_eq(c.why[WC_CHART_PHASES], "an empty window");
	ck_assert_uint_eq(c.ncurve, 0);
	t = text_of("two/phases.dat");
	ck_assert_ptr_nonnull(strstr(t, "\n\"rm\" 0.000000000 0.000000000"));
	ck_assert_ptr_nonnull(strstr(t, "\n\"whole capture\" 0.000000000"));
	free(t);
	t = text_of("two/timeline.dat");
	ck_assert_ptr_nonnull(strstr(t, "# timeline.dat"));
	free(t);
	wc_chart_capture_clear(&c);
	wc_chart_capture_clear(NULL);
	wc_series_free(s);
}
END_TEST

START_TEST(test_capture)
{
	struct wc_chart_capture c = { 0 };
	struct wc_series *s = NULL;
	struct wc_err err;
	const char *l;
	char *t;
	double mb = 0;
	size_t i;

	ck_assert_int_eq(wc_series_open(&s, &err), 0);
	add(s, T0 + 10 * MS, T0 + 20 * MS, 2048, 4096, WC_CAT_DATA_WRITE);
	add(s, T0 + 30 * MS, T0 + 50 * MS, 4096, 8192, WC_CAT_DATA_WRITE);
	add(s, T0 + 60 * MS, T0 + 70 * MS, 0, 0, WC_CAT_FLUSH);
	strcpy(c.dir, "one");
	wc_err_clear(&err);
	ck_assert_msg(chart_of(&c, &caps[0], s, &err) == 0,
		      "%s", err.msg);
	for (i = 0; i < WC_NCHARTS; i++)
		ck_assert_msg(c.drawn[i], "%s not drawn: %s",
			      wc_chart_info((enum wc_chart)i)->name, c.why[i]);
	ck_assert_uint_eq(c.scatter_requests, 2);
	ck_assert(c.svg[WC_CHART_SCATTER]);

	/* phases.dat: the summary's parts, names quoted and made safe. */
	t = text_of("one/phases.dat");
	l = line_of(t, "\"copy__a_\" ");
	starts(l, "\"copy__a_\" 0.400000000 0.000000000 "
				 "0.000000000 0.000000000 0.000000000 "
				 "0.100000000 ");
	l = line_of(t, "\"sync\" ");
	starts(l, "\"sync\" 0.000000000 ");
	l = line_of(t, "\"whole capture\" ");
	starts(l, "\"whole capture\" 1.250000000 0.250000000 ");
	free(t);

	/* The kept curve carries every byte: MB/s times its spans. */
	ck_assert_uint_gt(c.ncurve, 0);
	ck_assert_uint_le(c.ncurve, WC_CHART_CURVE_POINTS);
	for (i = 0; i < c.ncurve; i++)
		ck_assert(c.curve[i].t >= 0 && c.curve[i].t <= 2.0);
	for (i = 0; i < c.ncurve; i++)
		mb += c.curve[i].mbps;
	ck_assert(mb > 0);

	/* The title is the capture's name as a single-quoted string. */
	t = text_of("one/scatter.gp");
	ck_assert_ptr_nonnull(strstr(t, "title = 'first \"run\": sector over time'"));
	free(t);
	t = text_of("one/heatmap-latency.gp");
	ck_assert_ptr_nonnull(strstr(t, "title = 'first \"run\": D2C latency over time'"));
	/* A panel a category with latencies: flush and data_write. */
	ck_assert_ptr_nonnull(strstr(t, "hcats = \"0 4\""));
	ck_assert_int_eq(c.height[WC_CHART_HEAT_LATENCY], 110 + 2 * 250);
	free(t);
	/* The band: the one flush took 10 ms, in the bin [10, 11.2) ms. */
	t = text_of("one/heatmap-band.dat");
	l = line_of(t, "# flush\n");
	ck_assert_ptr_nonnull(strstr(l, " 1 11.2202 11.2202 11.2202\n"));
	free(t);
	t = text_of("one/heatmap-sector.dat");
	ck_assert_ptr_nonnull(strstr(t, "# heatmap-sector.dat"));
	free(t);
	wc_chart_capture_clear(&c);
	ck_assert_ptr_null(c.curve);
	wc_series_free(s);
}
END_TEST

START_TEST(test_across)
{
	struct wc_chart_capture c[2] = { { .dir = "one" }, { .dir = "two" } };
	struct wc_fig_point pt = { 0.5, 12.0 };
	bool drawn[WC_NCMP];
	struct wc_err err;
	const char *l;
	char *t;

	c[0].curve = &pt;
	c[0].ncurve = 1;
	wc_err_clear(&err);
	ck_assert_msg(wc_chart_across(c, &sum, drawn, plot, out, &err) == 0,
		      "%s", err.msg);
	ck_assert(drawn[WC_CMP_TIME] && drawn[WC_CMP_PHASES] &&
		  drawn[WC_CMP_THROUGHPUT] && drawn[WC_CMP_CONFIGS]);

	/* A row a group: the means of its runs, their busy range. */
	t = text_of("compare-time.dat");
	l = line_of(t, "\"one\" ");
	/* The disk's name made safe for a file name (summary.h, disk_name). */
	starts(l, "\"one\" \"xfs\" \"on\" \"off\" \"hdd_7200\" 1.250000000 "
	       "0.250000000 0.000000000 0.000000000 0.000000000 0.500000000 "
	       "0.000000000 0.000000000 1 0.750000000 0.750000000 2.000000000\n");
	l = line_of(t, "\"two\" ");
	starts(l, "\"two\" \"fs?\" \"?\" \"?\" \"unknown\" 1.000000000 ");
	free(t);
	/* Two disks, two panels; only the categories with time. */
	t = text_of("compare-time.gp");
	ck_assert_ptr_nonnull(strstr(t, "cats = \"0 4\"\n"));
	ck_assert_ptr_nonnull(strstr(t, "panels = \"0 0 1 1\"\n"
				     "ptitle1 = 'disk hdd_7200: #1'\n"
				     "ptitle2 = 'disk unknown: #2'\n"
				     "npanels = 2\nwidth = 1000\nheight = 930\n"));
	free(t);

	/* The union of names, in order; one name twice is summed; NaN
	 * where no run has such a phase; mean, lowest, highest. */
	t = text_of("compare-phases.dat");
	ck_assert_ptr_nonnull(strstr(t, "per phase (copy__a_ sync rm) the mean"));
	l = line_of(t, "\"one\" ");
	starts(l, "\"one\" \"xfs\" \"on\" \"off\" \"hdd_7200\" 0.500000000 "
	       "0.500000000 0.500000000 0.375000000 0.375000000 0.375000000 "
	       "NaN NaN NaN 1\n");
	l = line_of(t, "\"two\" ");
	starts(l, "\"two\" \"fs?\" \"?\" \"?\" \"unknown\" NaN NaN NaN NaN NaN NaN "
	       "0.750000000 0.750000000 0.750000000 1\n");
	free(t);
	t = text_of("compare-phases.gp");
	ck_assert_ptr_nonnull(strstr(t, "panels = \"0 0 1 1\"\n"));
	free(t);

	/* A panel a group, the blocks of its runs; names only quoted. */
	t = text_of("compare-throughput.dat");
	ck_assert_ptr_nonnull(strstr(t, "# one\n0.500000 12\n\n\n# two\n0 NaN\n"));
	free(t);
	t = text_of("compare-throughput.gp");
	ck_assert_ptr_nonnull(strstr(t, "g1 = \"0\"\nt1 = '#1 xfs cache on barriers off hdd_7200'\n"
				     "g2 = \"1\"\nt2 = '#2 fs? cache ? barriers ? unknown'\n"));
	ck_assert_ptr_nonnull(strstr(t, "ngroups = 2\ncols = 2\nrows = 1\nxmax = 2\n"
				     "width = 800\nheight = 350\n"));
	free(t);

	t = text_of("compare-configs.dat");
	l = line_of(t, "\"one\" ");
	starts(l, "\"one\" \"xfs\" \"on\" \"off\" \"hdd_7200\" \"baseline\" 1 ");
	l = line_of(t, "\"two\" ");
	starts(l, "\"two\" \"fs?\" \"?\" \"?\" \"unknown\" \"other-disk\" 1 ");
	free(t);
	/* On the same disk as its baseline: no mark. */
	groups[1].cross_disk = false;
	ck_assert_int_eq(wc_chart_across(c, &sum, drawn, plot, out, &err), 0);
	t = text_of("compare-configs.dat");
	l = line_of(t, "\"two\" ");
	starts(l, "\"two\" \"fs?\" \"?\" \"?\" \"unknown\" \"-\" 1 ");
	free(t);

	/* The second disk without phases: its panel, which would have no
	 * bar, is left out (gnuplot stopped on it: "all points y value
	 * undefined"); its row says it has no run with phases. */
	caps[1].nphases = 0;
	groups[1].phased = 0;
	ck_assert_int_eq(wc_chart_across(c, &sum, drawn, plot, out, &err), 0);
	ck_assert(drawn[WC_CMP_PHASES]);
	t = text_of("compare-phases.dat");
	ck_assert_ptr_nonnull(strstr(t, "per phase (copy__a_ sync) the mean"));
	l = line_of(t, "\"two\" ");
	starts(l, "\"two\" \"fs?\" \"?\" \"?\" \"unknown\" NaN NaN NaN NaN NaN NaN 0\n");
	free(t);
	t = text_of("compare-phases.gp");
	ck_assert_ptr_nonnull(strstr(t, "panels = \"0 0\"\n"
				     "ptitle1 = 'disk hdd_7200: #1'\n"
				     "npanels = 1\nwidth = 1000\nheight = 450\n"));
	free(t);
	ck_assert_int_eq(wc_chart_cmp_info(WC_CMP_PHASES, &sum).height, 90 + 360);
	ck_assert_int_eq(wc_chart_cmp_info(WC_CMP_TIME, &sum).height, 90 + 420 * 2);
	/* No capture with phases: no figure. */
	caps[0].nphases = 0;
	groups[0].phased = 0;
	ck_assert_int_eq(wc_chart_across(c, &sum, drawn, plot, out, &err), 0);
	ck_assert(drawn[WC_CMP_TIME] && !drawn[WC_CMP_PHASES]);
	caps[0].nphases = 3;
	caps[1].nphases = 1;
	groups[0].phased = groups[1].phased = 1;

	/* One capture: no figure across captures, nor a difference
	 * without a baseline. */
	sum.ncaps = 1;
	sum.has_diff = false;
	ck_assert_int_eq(wc_chart_across(c, &sum, drawn, plot, out, &err), 0);
	ck_assert(!drawn[WC_CMP_TIME] && !drawn[WC_CMP_PHASES] &&
		  !drawn[WC_CMP_THROUGHPUT] && !drawn[WC_CMP_CONFIGS]);
	sum.ncaps = 2;
}
END_TEST

/* However many configurations, no figure is wider than 1,600 pixels:
 * more panels, twelve bars at most each, four throughput panels a row. */
START_TEST(test_bounded_width)
{
	struct wc_sum_group *many = calloc(61, sizeof(*many));
	struct wc_summary big = sum;
	size_t n[] = { 1, 4, 20, 61 }, i;
	int k;

	ck_assert_ptr_nonnull(many);
	big.groups = many;
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		big.ngroups = n[i];
		for (k = 0; k < WC_NCMP; k++) {
			struct wc_chart_info fi = wc_chart_cmp_info((enum wc_cmp)k, &big);

			ck_assert_int_le(fi.width, WC_CHART_MAX_WIDTH);
			ck_assert_int_ge(fi.width, 420);
		}
	}
	/* 61 on one disk: six panels of up to twelve bars. */
	ck_assert_int_eq(wc_chart_cmp_info(WC_CMP_TIME, &big).width, 240 + 110 * 12);
	ck_assert_int_eq(wc_chart_cmp_info(WC_CMP_TIME, &big).height, 90 + 420 * 6);
	ck_assert_int_eq(wc_chart_cmp_info(WC_CMP_THROUGHPUT, &big).width, 4 * 380 + 40);
	ck_assert_int_eq(wc_chart_cmp_info(WC_CMP_THROUGHPUT, &big).height, 16 * 280 + 70);
	/* A disk change starts a panel. */
	big.ngroups = 4;
	many[2].set = many[3].set = 1;
	ck_assert_int_eq(wc_chart_cmp_info(WC_CMP_CONFIGS, &big).height, 90 + 470 * 2);
	free(many);
}
END_TEST

/* Runs: a bar a configuration, the mean of its runs' differences and
 * their range. */
START_TEST(test_configs)
{
	struct wc_chart_capture c[2] = { { .dir = "one" }, { .dir = "two" } };
	bool drawn[WC_NCMP];
	struct wc_err err;
	const char *l;
	char *t;
	int k;

	sum.any_runs = true;
	groups[0].verdict = WC_VERDICT_BASELINE;
	groups[1].verdict = WC_VERDICT_REAL;
	groups[1].wall_verdict = WC_VERDICT_BOUNDED;
	groups[0].col[WC_COL_WALL] = (struct wc_stat){ 3, 2.0, 0.1, 1.9, 2.1 };
	groups[1].col[WC_COL_WALL] = (struct wc_stat){ 3, 1.0, 0.2, 0.75, 1.5 };
	groups[1].diff.wall_ns = -1000 * (int64_t)MS;
	groups[1].diff.part_ns[WC_CAT_FLUSH] = -750 * (int64_t)MS;
	groups[1].diff.part_ns[WC_PART_IDLE] = -250 * (int64_t)MS;
	wc_err_clear(&err);
	ck_assert_msg(wc_chart_across(c, &sum, drawn, plot, out, &err) == 0,
		      "%s", err.msg);
	ck_assert(drawn[WC_CMP_CONFIGS]);
	t = text_of("compare-configs.dat");
	/* The baseline: no difference, its runs' range around it. */
	l = line_of(t, "\"one\" ");
	starts(l, "\"one\" \"xfs\" \"on\" \"off\" \"hdd_7200\" \"baseline\" "
		  "1 \"baseline\" 0.000000000 -0.100000000 0.100000000 ");
	/* The mean difference moved by each run's distance from the mean;
	 * the parts in the order of the summary's. */
	l = line_of(t, "\"two\" ");
	starts(l, "\"two\" \"fs?\" \"?\" \"?\" \"unknown\" \"other-disk\" 1 "
		  "\"real\" -1.000000000 -1.250000000 -0.500000000 "
		  "-0.750000000 0.000000000 ");
	/* The wall's verdict last, beside the device's (column 8). */
	ck_assert_ptr_nonnull(strstr(l, " -0.250000000 \"bounded\"\n"));
	free(t);
	t = text_of("compare-configs.gp");
	ck_assert_ptr_nonnull(strstr(t, "ncap = 2\nflat = 0\n"));
	free(t);
	/* A named baseline on one disk, every range and part 0: flat. */
	for (k = 0; k < 2; k++)
		groups[k].col[WC_COL_WALL].min = groups[k].col[WC_COL_WALL].max =
			groups[k].col[WC_COL_WALL].mean;
	memset(&groups[1].diff, 0, sizeof(groups[1].diff));
	ck_assert_int_eq(wc_chart_across(c, &sum, drawn, plot, out, &err), 0);
	t = text_of("compare-configs.gp");
	ck_assert_ptr_nonnull(strstr(t, "ncap = 2\nflat = 1\n"));
	free(t);
}
END_TEST

static Suite *chart_suite(void)
{
	Suite *s = suite_create("chart");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_capture_without_requests);
	tcase_add_test(tc, test_capture);
	tcase_add_test(tc, test_across);
	tcase_add_test(tc, test_configs);
	tcase_add_test(tc, test_bounded_width);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(chart_suite)
