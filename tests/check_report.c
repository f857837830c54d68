/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_report.c - unit tests of the report writers (out/report*.h)
 * on analyses of a scripted source: the text report stays within 80
 * columns and plain ASCII, JSON carries the schema's keys with time_s
 * summing to window_s, CSV has one row per capture and per phase, the
 * comparison table and its baseline ratios, the same ratios in JSON and
 * CSV only when a baseline is given, and an unknown baseline is refused
 * in every format.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "out/report.h"

#include "lib/scripted.h"

#define DEV WC_DEV_MAKE(7u, 1u)
#define W WC_TC(WC_TC_WRITE)

static void add(struct scripted *s, uint64_t t, unsigned what,
		uint64_t flags, uint64_t sector, uint32_t bytes)
{
	scripted_add(s, DEV, t, what, flags, sector, bytes);
}

/* A capture whose flushes take `flush` ns each, with phases "copy" and
 * phase2; btt's figures computed or not. */
static struct wc_analysis *capture_btt(const char *name, uint64_t flush,
				       const char *phase2, bool btt)
{
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	const struct wc_phase ph[2] = {
		{ "copy", 1000000, 30000000, 0, 0, 0 },
		{ phase2, 30000000, 90000000, 0, 0, 0 },
	};
	struct wc_capture_meta m;
	struct wc_analysis *a = NULL;
	struct scripted s = { .n = 0 };
	struct wc_err err;
	uint64_t t = 1000000;
	int i;

	memset(&m, 0, sizeof(m));
	snprintf(m.name, sizeof(m.name), "%s", name);
	strcpy(m.fs, "ext4");
	m.write_cache = 1;
	m.barrier = 0;
	m.events_dropped = 0;
	m.complete = 1;
	m.main_rotational = 1;
	for (i = 0; i < 8; i++) {
		add(&s, t, WC_TA_QUEUE, W, 8000 + (uint64_t)i * 64, 32768);
		add(&s, t + 1000, WC_TA_ISSUE, W, 8000 + (uint64_t)i * 64, 32768);
		add(&s, t + 2000000, WC_TA_COMPLETE, W, 8000 + (uint64_t)i * 64,
		    32768);
		add(&s, t + 2001000, WC_TA_ISSUE, W | WC_TC(WC_TC_FLUSH), 0, 0);
		add(&s, t + 2001000 + flush, WC_TA_COMPLETE,
		    W | WC_TC(WC_TC_FLUSH), 0, 0);
		t += 2001000 + flush + 1000000;
	}
	add(&s, 90000000, WC_TA_PLUG, 0, 0, 0);
	o.btt = btt;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, scripted_next, &s, &m, ph, 2,
						 &o, &err), 0);
	return a;
}

static struct wc_analysis *capture_ph(const char *name, uint64_t flush,
				      const char *phase2)
{
	return capture_btt(name, flush, phase2, true);
}

static struct wc_analysis *capture(const char *name, uint64_t flush)
{
	return capture_ph(name, flush, "delete");
}

static char *render(enum wc_format fmt, struct wc_analysis *const *caps,
		    size_t n, const char *baseline, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct wc_err err;

	struct wc_summary *sum = NULL;

	ck_assert_ptr_nonnull(f);
	wc_err_clear(&err);
	if (wc_summary_build(&sum, caps, n, baseline, &err) < 0) {
		ck_assert_int_eq(want, -1);
		ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	} else {
		ck_assert_int_eq(wc_report_write(f, fmt, sum, &err), want);
	}
	fclose(f);
	wc_summary_free(sum);
	return buf;
}

static void assert_80_ascii(const char *text)
{
	const char *p = text;
	size_t col = 0;

	for (; *p; p++) {
		ck_assert_msg((unsigned char)*p < 0x7f &&
			      ((unsigned char)*p >= 0x20 || *p == '\n'),
			      "not plain ASCII at offset %zu", (size_t)(p - text));
		col = *p == '\n' ? 0 : col + 1;
		ck_assert_msg(col <= 80, "line over 80 columns: %.80s",
			      p - col + 1);
	}
}

START_TEST(test_text)
{
	struct wc_analysis *a = capture("ext4-wc-nobar", 5000000);
	char *t = render(WC_FORMAT_TEXT, &a, 1, NULL, 0);

	assert_80_ascii(t);
	ck_assert_ptr_nonnull(strstr(t, "capture ext4-wc-nobar"));
	ck_assert_ptr_nonnull(strstr(t, "fs ext4, write cache on, barriers off"));
	ck_assert_ptr_nonnull(strstr(t, "flush            0.040000"));
	ck_assert_ptr_nonnull(strstr(t, "flush D2C      n 8"));
	ck_assert_ptr_nonnull(strstr(t, "  delete"));
	free(t);
	wc_analysis_free(a);
}
END_TEST

/* Without --btt, btt's figures were not computed, and the reports say
 * so rather than print zeros that read as figures. */
START_TEST(test_btt_off)
{
	struct wc_analysis *a = capture_btt("nobtt", 5000000, "delete", false);
	char *t = render(WC_FORMAT_TEXT, &a, 1, NULL, 0);

	ck_assert_ptr_nonnull(strstr(t, "btt, all devices: not computed"));
	ck_assert_ptr_null(strstr(t, "Q2C"));
	free(t);
	t = render(WC_FORMAT_JSON, &a, 1, NULL, 0);
	ck_assert_ptr_nonnull(strstr(t, "\"btt\": null"));
	ck_assert_ptr_null(strstr(t, "\"q2c\""));
	free(t);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_json)
{
	static const char *const keys[] = {
		"\"captures\": [", "\"name\": \"j\"", "\"fs\": \"ext4\"",
		"\"write_cache\": true", "\"barrier\": false", "\"events\": ",
		"\"events_dropped\": 0", "\"window_s\": ", "\"time_s\": {\"idle\": ",
		"\"positioning_s\": ", "\"requests\": {\"flush\": 8",
		"\"bytes\": {\"flush\": 0, \"journal\": 0", "\"devices\": [",
		"\"phases\": [", "\"name\": \"copy\"", "\"wall_s\": 0.029000000",
		"\"btt\": {\"q2c\": {\"n\": 8, ", "\"d2c\": {\"n\": 8, ",
	};
	struct wc_analysis *a = capture("j", 3000000);
	char *t = render(WC_FORMAT_JSON, &a, 1, NULL, 0);
	const char *p;
	double window, sum = 0, v;
	size_t i;
	int c;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		ck_assert_msg(strstr(t, keys[i]), "missing %s", keys[i]);
	p = strstr(t, "\"window_s\": ");
	ck_assert_int_eq(sscanf(p, "\"window_s\": %lf", &window), 1);
	p = strstr(p, "\"time_s\": {");
	ck_assert_int_eq(sscanf(p, "\"time_s\": {\"idle\": %lf", &v), 1);
	sum = v;
	for (c = 0; c < WC_NCAT; c++) {
		char key[40];

		snprintf(key, sizeof(key), "\"%s\": ", wc_cat_name((enum wc_cat)c));
		p = strstr(p, key);
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(sscanf(p + strlen(key), "%lf", &v), 1);
		sum += v;
	}
	/* Nanoseconds printed with 9 decimals add up exactly. */
	ck_assert(sum > window - 5e-10 && sum < window + 5e-10);
	free(t);
	wc_analysis_free(a);
}
END_TEST

START_TEST(test_csv)
{
	struct wc_analysis *caps[2] = { capture("a,b", 1000000),
					capture("c", 2000000) };
	char *t = render(WC_FORMAT_CSV, caps, 2, NULL, 0);
	const char *p;
	int lines = 0;

	for (p = t; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 1 + 2 * 3);
	ck_assert_ptr_nonnull(strstr(t, "\n\"a,b\",all,ext4,on,off,"));
	ck_assert_ptr_nonnull(strstr(t, "\nc,delete,ext4,on,off,0.060000000,"));
	/* The disk column, last of the fixed ones: empty when capture.conf
	 * names no disk model. */
	ck_assert_ptr_nonnull(strstr(t, ",bytes_other,disk,group,"));
	free(t);
	wc_analysis_free(caps[0]);
	wc_analysis_free(caps[1]);
}
END_TEST

START_TEST(test_compare_and_baseline)
{
	struct wc_analysis *caps[2] = { capture("fast", 1000000),
					capture("slow", 4000000) };
	char *t = render(WC_FORMAT_TEXT, caps, 2, "fast", 0);

	assert_80_ascii(t);
	ck_assert_ptr_nonnull(strstr(t, "ratio to fast"));
	/* flush: 8 x 4 ms against 8 x 1 ms. */
	ck_assert_ptr_nonnull(strstr(t, "  4.00"));
	free(t);
	t = render(WC_FORMAT_TEXT, caps, 2, "nosuch", -1);
	free(t);
	wc_analysis_free(caps[0]);
	wc_analysis_free(caps[1]);
}
END_TEST

/* The text of the JSON object that follows `key` after `from`. */
static const char *after(const char *from, const char *key)
{
	const char *p = strstr(from, key);

	ck_assert_msg(p != NULL, "missing %s", key);
	return p + strlen(key);
}

START_TEST(test_json_baseline)
{
	struct wc_analysis *caps[3] = { capture("fast", 1000000),
					capture("slow", 4000000),
					capture_ph("other", 2000000, "remove") };
	char *t = render(WC_FORMAT_JSON, caps, 3, NULL, 0);
	const char *p;

	/* Without --baseline the output has no ratios at all, and no
	 * top-level baseline: the differences name the fastest. */
	ck_assert_ptr_null(strstr(t, "ratio_"));
	ck_assert_ptr_null(strstr(t, "\n  \"baseline\""));
	ck_assert_ptr_nonnull(strstr(t, "\"difference\": {\"baseline\": \"fast\""));
	free(t);
	t = render(WC_FORMAT_JSON, caps, 3, "fast", 0);
	ck_assert_ptr_nonnull(strstr(t, "\"version\": 1,\n  \"baseline\": \"fast\",\n"
				     "  \"findings\": ["));
	/* The baseline against itself: 1 where it has time, null where its
	 * value is 0 (no metadata) or unknown (positioning: no media rate). */
	p = after(t, "\"name\": \"fast\"");
	ck_assert_ptr_nonnull(strstr(after(p, "\"btt\": "),
		"\"ratio_to_baseline\": {\"wall\": 1.000000, \"busy\": 1.000000, "
		"\"flush\": 1.000000, \"journal\": null, \"metadata\": null, "
		"\"positioning\": null, \"data\": 1.000000, \"discard\": null, "
		"\"other\": null},\n      \"difference\""));
	/* flush: 8 x 4 ms against 8 x 1 ms, whole capture and phase copy. */
	p = after(t, "\"name\": \"slow\"");
	ck_assert_ptr_nonnull(strstr(after(p, "\"btt\": "),
				     "\"ratio_to_baseline\": {\"wall\": "));
	ck_assert_ptr_nonnull(strstr(after(p, "\"btt\": "), "\"flush\": 4.000000"));
	ck_assert_ptr_nonnull(strstr(after(p, "\"phases\": ["),
				     "\"ratio_to_baseline\": {\"wall\": 1.000000, "));
	/* A phase the baseline does not have has no ratio. */
	p = after(t, "\"name\": \"other\"");
	p = after(p, "\"name\": \"remove\"");
	ck_assert_ptr_nonnull(strstr(p, "\"ratio_to_baseline\": null}"));
	free(t);
	t = render(WC_FORMAT_JSON, caps, 3, "nosuch", -1);
	free(t);
	wc_analysis_free(caps[0]);
	wc_analysis_free(caps[1]);
	wc_analysis_free(caps[2]);
}
END_TEST

START_TEST(test_csv_baseline)
{
	static const char head[] = ",bytes_other,disk,group,baseline_group,"
		"across_disks,diff_wall_s,"
		"diff_flush_s,diff_journal_s,diff_metadata_s,diff_data_read_s,"
		"diff_data_write_s,diff_discard_s,diff_other_s,"
		"diff_off_device_s,verdict_flush,ci95_lo_flush_s,"
		"ci95_hi_flush_s,verdict_journal,";
	static const char tail[] = ",verdict_wall,ci95_lo_wall_s,"
		"ci95_hi_wall_s,bound_s,runs_to_decide_busy,runs_to_decide_wall,"
		"outstanding_s\n";
	static const char ratio_head[] = ",bytes_other,disk,ratio_wall,ratio_busy,"
		"ratio_flush,ratio_journal,ratio_metadata,ratio_positioning,"
		"ratio_data,ratio_discard,ratio_other,group,baseline_group,across_disks,diff_wall_s,";
	struct wc_analysis *caps[3] = { capture("fast", 1000000),
					capture("slow", 4000000),
					capture_ph("other", 2000000, "remove") };
	char *t = render(WC_FORMAT_CSV, caps, 3, NULL, 0);
	const char *p;

	ck_assert_ptr_nonnull(strstr(t, head));
	ck_assert_ptr_nonnull(strstr(t, tail));
	ck_assert_ptr_null(strstr(t, "ratio_"));
	free(t);
	t = render(WC_FORMAT_CSV, caps, 3, "fast", 0);
	ck_assert_ptr_nonnull(strstr(t, ratio_head));
	ck_assert_ptr_nonnull(strstr(t, ",1.000000,1.000000,1.000000,,,,1.000000,"
				     ",,1,1,0,0.000000000,"));
	p = after(t, "\nslow,all,");
	ck_assert_ptr_nonnull(strstr(p, ",4.000000,,,,1.000000,,,2,1,0,"));
	/* No phase "remove" in the baseline: the ratio and difference
	 * columns are empty. */
	/* One run a side: every measure not decided, without an interval;
	 * the baseline's own row says so. */
	ck_assert_ptr_nonnull(strstr(p, ",not_decided,,,not_decided,,,"));
	p = after(t, "\nfast,all,");
	ck_assert_ptr_nonnull(strstr(p, ",baseline,,,baseline,,,"));
	p = after(t, "\nother,remove,");
	p = strstr(p, ",,,,,,,,,,3,1,0,,,,,,,,,");
	ck_assert_ptr_nonnull(p);
	/* A phase's row has no verdicts: three empty cells a measure, and
	 * three for the bound and the runs that would decide; then its
	 * time outstanding, last. */
	p += strlen(",,,,,,,,,,3,1,0,,,,,,,,,");
	ck_assert_uint_eq(strspn(p, ","), 3 * WC_NMEAS + 4);
	ck_assert_ptr_eq(strstr(p, "0.000000000\n"), p + 3 * WC_NMEAS + 4);
	free(t);
	t = render(WC_FORMAT_CSV, caps, 3, "nosuch", -1);
	free(t);
	wc_analysis_free(caps[0]);
	wc_analysis_free(caps[1]);
	wc_analysis_free(caps[2]);
}
END_TEST

/* A request of every category, in classify.h's order: a category added
 * there without a request here fails test_every_category. */
static const struct {
	bool set;
	uint64_t flags;
	uint32_t bytes;
} cat_req[WC_NCAT] = {
	[WC_CAT_FLUSH] = { true, W | WC_TC(WC_TC_FLUSH), 0 },
	[WC_CAT_JOURNAL] = { true, W | WC_TC(WC_TC_FUA), 4096 },
	[WC_CAT_METADATA] = { true, W | WC_TC(WC_TC_META), 4096 },
	[WC_CAT_DATA_READ] = { true, 0, 4096 },
	[WC_CAT_DATA_WRITE] = { true, W, 4096 },
	[WC_CAT_DISCARD] = { true, W | WC_TC(WC_TC_DISCARD), 4096 },
	[WC_CAT_OTHER] = { true, W, 0 },
};

/* A capture of 8 requests of category cat, 2 ms each, in one phase. */
static struct wc_analysis *capture_cat(const char *name, int cat)
{
	const struct wc_phase ph[1] = { { "copy", 1000000, 90000000, 0, 0, 0 } };
	struct wc_capture_meta m;
	struct wc_analysis *a = NULL;
	struct scripted s = { .n = 0 };
	struct wc_err err;
	uint64_t t = 1000000, fl = cat_req[cat].flags;
	uint32_t by = cat_req[cat].bytes;
	int i;

	ck_assert_msg(cat_req[cat].set, "no request of category %s",
		      wc_cat_name((enum wc_cat)cat));
	memset(&m, 0, sizeof(m));
	snprintf(m.name, sizeof(m.name), "%s", name);
	strcpy(m.fs, "ext4");
	m.write_cache = 1;
	m.barrier = 1;
	m.complete = 1;
	m.main_rotational = 0;
	for (i = 0; i < 8; i++, t += 5000000) {
		uint64_t sec = 8000 + (uint64_t)i * 64;

		add(&s, t, WC_TA_QUEUE, fl, sec, by);
		add(&s, t + 1000, WC_TA_ISSUE, fl, sec, by);
		add(&s, t + 2001000, WC_TA_COMPLETE, fl, sec, by);
	}
	add(&s, 90000000, WC_TA_PLUG, 0, 0, 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_analysis_read_source(&a, scripted_next, &s, &m, ph, 1,
						 NULL, &err), 0);
	return a;
}

/* The line after the first that starts with head, or NULL. */
static const char *line_after(const char *t, const char *head)
{
	const char *p = t;

	while (p && *p) {
		if (!strncmp(p, head, strlen(head)))
			return strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

/* The words of a line, at most max. */
static size_t words(const char *line, char w[][24], size_t max)
{
	size_t n = 0;

	while (*line && *line != '\n' && n < max) {
		size_t l = 0;

		while (*line == ' ')
			line++;
		if (!*line || *line == '\n')
			break;
		while (*line && *line != ' ' && *line != '\n' && l < 23)
			w[n][l++] = *line++;
		w[n++][l] = '\0';
	}
	return n;
}

/* A table's row whose columns but wall, busy and positioning (a part of
 * others) must add up to busy: head is the header line, row the row,
 * aligned from the right. */
static void assert_adds_up(const char *head, const char *row,
			   const char *what)
{
	char hw[32][24], rw[32][24];
	size_t nh, nr, k;
	double busy = -1, sum = 0;

	ck_assert_ptr_nonnull(head);
	ck_assert_ptr_nonnull(row);
	nh = words(head, hw, 32);
	nr = words(row, rw, 32);
	for (k = 1; k <= nh && k <= nr; k++) {
		const char *h = hw[nh - k], *v = rw[nr - k];

		if (!strcmp(h, "busy"))
			busy = atof(v);
		else if (strcmp(h, "wall") && strcmp(h, "posn") &&
			 strcmp(h, "disk") && strcmp(h, "+-sd") &&
			 strcmp(h, "n"))
			sum += atof(v);
		if (!strcmp(h, "wall"))
			break;
	}
	ck_assert_msg(busy > 0.0159 && busy < 0.0161, "%s: busy %g", what, busy);
	ck_assert_msg(sum > busy - 0.0005 && sum < busy + 0.0005,
		      "%s: the columns add up to %g of busy %g:\n%.200s\n%.200s",
		      what, sum, busy, head, row);
}

START_TEST(test_every_category)
{
	int c;

	for (c = 0; c < WC_NCAT; c++) {
		struct wc_analysis *caps[2] = { capture_cat("a", c),
						capture_cat("b", c) };
		const char *h;
		char *t = render(WC_FORMAT_TEXT, caps, 2, NULL, 0), what[64];

		assert_80_ascii(t);
		snprintf(what, sizeof(what), "comparison, %s",
			 wc_cat_name((enum wc_cat)c));
		h = strstr(t, "\ncapture ");
		ck_assert_msg(h != NULL, "%s: no table", what);
		assert_adds_up(h + 1, strchr(h + 1, '\n') + 1, what);
		free(t);
		t = render(WC_FORMAT_TEXT, caps, 1, NULL, 0);
		snprintf(what, sizeof(what), "phases, %s",
			 wc_cat_name((enum wc_cat)c));
		h = strstr(t, "\nphases (s)");
		ck_assert_msg(h != NULL, "%s: no table", what);
		assert_adds_up(h + 1, line_after(h + 1, "phases"), what);
		free(t);
		wc_analysis_free(caps[0]);
		wc_analysis_free(caps[1]);
	}
}
END_TEST

START_TEST(test_format_parse)
{
	enum wc_format f;

	ck_assert_int_eq(wc_format_parse("json", &f), 0);
	ck_assert_int_eq(f, WC_FORMAT_JSON);
	ck_assert_int_eq(wc_format_parse("csv", &f), 0);
	ck_assert_int_eq(f, WC_FORMAT_CSV);
	ck_assert_int_eq(wc_format_parse("text", &f), 0);
	ck_assert_int_eq(f, WC_FORMAT_TEXT);
	ck_assert_int_eq(wc_format_parse("xml", &f), -1);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_btt_off);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_compare_and_baseline);
	tcase_add_test(tc, test_json_baseline);
	tcase_add_test(tc, test_csv_baseline);
	tcase_add_test(tc, test_format_parse);
	tcase_add_test(tc, test_every_category);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(report_suite)
