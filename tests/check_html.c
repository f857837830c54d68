/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_html.c - unit tests of analyze/lib/out/html.c on a summary made by
 * hand: hostile names escaped everywhere they appear, the summary's
 * numbers as they are, a capture without I/O, figures missing with their
 * reason, a scatter without SVG, the figures across captures, the
 * colours of common.gp, the differences table, and a failed write.
 *
 * Run from the top of the source tree (run-tests.sh does): colours come
 * from ./plots/common.gp.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "out/html.h"

#define MS 1000000ull
#define EVIL "<img src=x onerror=alert(1)>&\""

static struct wc_capture_meta meta[2];
static struct wc_sum_capture caps[2];
static struct wc_sum_group groups[2];
static size_t members[2] = { 0, 1 };
static struct wc_finding finding;
static struct wc_summary sum;
static struct wc_chart_capture charts[2];
static bool across[WC_NCMP];
static uint64_t ignored[2] = { 5, 0 };
static struct wc_plot *plot;

static void setup(void)
{
	struct wc_err err;

	setenv("WCANALYZE_PLOTS", "plots", 1);
	wc_err_clear(&err);
	ck_assert_msg(wc_plot_open(&plot, &err) == 0, "%s", err.msg);

	memset(meta, 0, sizeof(meta));
	memset(caps, 0, sizeof(caps));
	memset(charts, 0, sizeof(charts));
	memset(across, 0, sizeof(across));
	strcpy(meta[0].name, EVIL);
	strcpy(meta[0].fs, "<b>xfs</b>");
	strcpy(meta[0].disk_model, "<i>ssd</i>");
	meta[0].write_cache = 1;
	meta[0].barrier = 0;
	meta[0].events = 1234;
	meta[0].events_dropped = 3;
	strcpy(meta[1].name, "quiet");
	meta[1].write_cache = -1;
	meta[1].barrier = -1;

	caps[0].meta = &meta[0];
	caps[0].figs.io = true;
	caps[0].figs.wall_ns = 2000 * MS;
	caps[0].figs.part_ns[WC_CAT_FLUSH] = 500 * MS;
	caps[0].figs.part_ns[WC_PART_IDLE] = 1500 * MS;
	caps[0].figs.col[WC_COL_WALL] = 2.0;
	caps[0].figs.share[WC_CAT_FLUSH] = 25.0;
	caps[0].figs.share[WC_PART_IDLE] = 75.0;
	caps[0].figs.requests[WC_CAT_FLUSH] = 77;
	caps[0].figs.bytes[WC_CAT_DATA_WRITE] = 8192;
	caps[1].meta = &meta[1];
	caps[1].group = 1;

	groups[0].n = 1;
	groups[0].members = &members[0];
	groups[0].disk_model = meta[0].disk_model;
	groups[1].disk_model = meta[1].disk_model;
	groups[0].disk_name = meta[0].disk_model;
	groups[1].disk_name = "unknown";
	groups[1].cross_disk = true;
	groups[0].verdict = WC_VERDICT_BASELINE;
	groups[1].n = 1;
	groups[1].members = &members[1];
	groups[1].verdict = WC_VERDICT_UNDECIDED;
	groups[1].wall_verdict = WC_VERDICT_UNDECIDED;
	groups[1].diff.wall_ns = -1500 * (int64_t)MS;
	groups[1].diff.part_ns[WC_PART_IDLE] = -1500 * (int64_t)MS;

	memset(&finding, 0, sizeof(finding));
	strcpy(finding.text, "The slowest capture, " EVIL ", took 2 s.");

	memset(&sum, 0, sizeof(sum));
	sum.ncaps = 2;
	sum.caps = caps;
	sum.ngroups = 2;
	sum.groups = groups;
	sum.nfindings = 1;
	sum.findings = &finding;

	strcpy(charts[0].dir, "_img_src_x");
	charts[0].drawn[WC_CHART_SCATTER] = true;
	charts[0].nosvg[WC_CHART_SCATTER] = "too many points for a browser";
	charts[0].drawn[WC_CHART_LATENCY] = true;
	charts[0].svg[WC_CHART_LATENCY] = true;
	charts[0].why[WC_CHART_PHASES] = "an <empty> window";
	strcpy(charts[1].dir, "quiet");
}

static void teardown(void)
{
	wc_plot_free(plot);
}

/* The page, in memory. */
static char *page(void)
{
	struct wc_html_page pg = {
		.sum = &sum, .charts = charts, .ignored = ignored,
		.across = across, .plot = plot, .report = "a < b\n",
	};
	struct wc_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	wc_err_clear(&err);
	ck_assert_msg(wc_html_write(f, &pg, &err) == 0, "%s", err.msg);
	fclose(f);
	return buf;
}

START_TEST(test_escaped)
{
	char *h = page();

	ck_assert_ptr_null(strstr(h, "<img src=x"));
	ck_assert_ptr_null(strstr(h, "<b>xfs"));
	ck_assert_ptr_nonnull(strstr(h, "&lt;img src=x onerror=alert(1)&gt;&amp;&quot;"));
	ck_assert_ptr_nonnull(strstr(h, "&lt;b&gt;xfs&lt;/b&gt;"));
	ck_assert_ptr_nonnull(strstr(h, "<li>The slowest capture, &lt;img"));
	ck_assert_ptr_nonnull(strstr(h, "an &lt;empty&gt; window"));
	ck_assert_ptr_nonnull(strstr(h, "<pre>a &lt; b\n</pre>"));
	free(h);
}
END_TEST

START_TEST(test_numbers_and_figures)
{
	char *h = page();

	/* The summary's numbers: the window, shares, requests, bytes. */
	ck_assert_ptr_nonnull(strstr(h, "<td>2.000</td><td>0.500 <small>(25.0%)</small></td>"));
	ck_assert_ptr_nonnull(strstr(h, "</td><td>0.500</td><td>25.0%</td><td>77</td><td>0</td></tr>"));
	ck_assert_ptr_nonnull(strstr(h, "<td>0</td><td>8192</td></tr>"));
	ck_assert_ptr_nonnull(strstr(h, "1234 events, <strong>3 events lost</strong>"));
	ck_assert_ptr_nonnull(strstr(h, "; 5 requests on devices beyond the first"));
	ck_assert_ptr_nonnull(strstr(h, "<td colspan=\"9\">no I/O</td>"));
	/* common.gp's colours. */
	ck_assert_ptr_nonnull(strstr(h, "style=\"background:#D55E00\"></span>flush"));
	ck_assert_ptr_nonnull(strstr(h, "style=\"background:#D9D9D9\"></span>idle"));
	/* Figures: a scatter without SVG, a latency with, reasons. */
	ck_assert_ptr_nonnull(strstr(h, "<a href=\"_img_src_x/scatter.png\"><img src=\"_img_src_x/scatter.png\""));
	ck_assert_ptr_nonnull(strstr(h, "no SVG: too many points"));
	ck_assert_ptr_nonnull(strstr(h, "<a href=\"_img_src_x/latency.svg\">SVG</a>"));
	ck_assert_ptr_nonnull(strstr(h, "(not written).</p>"));
	ck_assert_ptr_null(strstr(h, "Across captures"));
	ck_assert_ptr_null(strstr(h, "id=\"difference\""));
	ck_assert_ptr_nonnull(strstr(h, "The figures are not rendered"));
	free(h);
}
END_TEST

START_TEST(test_across_and_differences)
{
	char *h;

	across[WC_CMP_TIME] = true;
	across[WC_CMP_CONFIGS] = true;
	sum.has_diff = true;
	h = page();
	ck_assert_ptr_nonnull(strstr(h, "<h2 id=\"compare\">Across captures</h2>"));
	ck_assert_ptr_nonnull(strstr(h, "<img src=\"compare-time.png\" width=\"1000\""));
	ck_assert_ptr_nonnull(strstr(h, "compare-configs.png"));
	ck_assert_ptr_null(strstr(h, "compare-phases.png"));
	ck_assert_ptr_nonnull(strstr(h, "<td>#2</td><td class=\"l nw\">quiet</td><td>unknown</td><td>1</td><td>#1 (another disk)</td><td class=\"l nw\""));
	ck_assert_ptr_nonnull(strstr(h, "</td><td>&lt;i&gt;ssd&lt;/i&gt;</td><td>1</td><td>#1</td>"));
	/* A verdict a word or two on one line, the test in its title. */
	ck_assert_ptr_nonnull(strstr(h, "<td class=\"l nw\" title=\"not decided\">not decided</td>"
				     "<td class=\"l nw\" title=\"not decided\">not decided</td><td>-1.500</td>"));
	ck_assert_ptr_nonnull(strstr(h, "<td class=\"l\" colspan=\"2\">baseline</td>"));
	free(h);

	/* Tested: the difference, the interval and the runs in the title. */
	groups[1].verdict = WC_VERDICT_REAL;
	groups[1].test[WC_MEAS_BUSY] = (struct wc_test){
		.known = true, .verdict = WC_VERDICT_REAL, .n = 3, .base_n = 2,
		.diff_s = -1.5, .has_interval = true, .lo_s = -2.25, .hi_s = -0.75,
	};
	groups[1].wall_verdict = WC_VERDICT_BOUNDED;
	groups[1].test[WC_MEAS_WALL] = (struct wc_test){
		.known = true, .verdict = WC_VERDICT_BOUNDED, .n = 3, .base_n = 2,
		.diff_s = 0.25, .has_interval = true, .lo_s = -1, .hi_s = 1.5,
		.bound_s = 2,
	};
	h = page();
	ck_assert_ptr_nonnull(strstr(h, "<td class=\"l nw\" title=\"real: -1.500 s, 95 % interval "
				     "-2.250 to -0.750 s; 3 and 2 runs\">real</td><td class=\"l nw\" "
				     "title=\"no larger than +-2.000 s: +0.250 s, 95 % interval -1.000 to "
				     "+1.500 s; 3 and 2 runs\">no larger than 2.000 s</td><td>-1.500</td>"));
	free(h);
}
END_TEST

/* Under the phases figure, the captures without phases.tsv by number
 * and escaped name; without any, why there is no figure. */
START_TEST(test_phaseless)
{
	static struct wc_sum_phase ph = { .name = "copy" };
	char *h;

	across[WC_CMP_TIME] = true;
	h = page();
	ck_assert_ptr_nonnull(strstr(h, "<p>No figure: Wall time of each phase "));
	ck_assert_ptr_nonnull(strstr(h, " (no capture has phases.tsv).</p>"));
	free(h);

	caps[1].nphases = 1;
	caps[1].phases = &ph;
	groups[1].phased = 1;
	across[WC_CMP_PHASES] = true;
	h = page();
	ck_assert_ptr_nonnull(strstr(h, "compare-phases.png"));
	ck_assert_ptr_nonnull(strstr(h, "<p>Without phases.tsv, so not in the "
				     "wall time of each phase: #1 &lt;img src=x "
				     "onerror=alert(1)&gt;&amp;&quot;.  A "));
	ck_assert_ptr_null(strstr(h, "No figure: Wall time of each phase"));
	free(h);

	/* Every capture with phases: nothing to say. */
	caps[0].nphases = 1;
	caps[0].phases = &ph;
	h = page();
	ck_assert_ptr_null(strstr(h, "Without phases.tsv"));
	free(h);
}
END_TEST

START_TEST(test_write_fails)
{
	struct wc_html_page pg = {
		.sum = &sum, .charts = charts, .across = across, .plot = plot,
	};
	struct wc_err err;
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_html_write(f, &pg, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	fclose(f);
}
END_TEST

static Suite *html_suite(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_escaped);
	tcase_add_test(tc, test_numbers_and_figures);
	tcase_add_test(tc, test_across_and_differences);
	tcase_add_test(tc, test_phaseless);
	tcase_add_test(tc, test_write_fails);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(html_suite)
