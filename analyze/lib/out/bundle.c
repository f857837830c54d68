/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bundle.c - the bug-report bundle: reports, figures, index.html (see
 * bundle.h and docs/bundle.md).  It only orders the work: outdir.h
 * writes the files, chart.h the figures' data, plot.h the scripts and
 * their rendering, report.h and html.h the pages.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/bundle.h"
#include "out/chart.h"
#include "compare/figdata.h"
#include "out/gzfile.h"
#include "out/html.h"
#include "out/outdir.h"
#include "out/plot.h"
#include "out/report.h"
#include "model/series.h"
#include "model/traceevent.h"

/* The bundle's list of its own files (outdir.h), what a later bundle in
 * the same folder removes of it. */
#define BUNDLE_LIST "bundle-files.txt"

struct wc_bundle {
	char *index;
	struct wc_outdir *out;
	struct wc_plot *plot;
	struct wc_chart_capture *charts;  /* one per capture added */
	uint64_t *ignored;                /* requests past the series' devices */
	bool *timeline;                   /* CAPTURE/timeline.json.gz written */
	bool *page;                       /* the capture keeps its page */
	bool all_pages;                   /* wc_bundle_all_pages() */
	struct wc_traceevent_stats *tl_stats;   /* and what it holds */
	uint64_t tl_limit;                /* requests a timeline draws */
	size_t ncaps, capsize;
	/* The timeline of the capture being analysed (wc_bundle_begin()),
	 * under a fresh name in DIR until its folder is known: the JSON
	 * goes through tl_gz, compressed into tl_file. */
	FILE *tl_file, *tl_gz;
	struct wc_traceevent *tl;
};

/* The writers (report, html, traceevent) write to a FILE and know no
 * path: a failure of theirs ("write error: No space left on device")
 * gets the bundle's name of the file it was writing, REL in DIR. */
static int named(struct wc_bundle *b, const char *rel, struct wc_err *err)
{
	if (err && err->kind != WC_ERR_NONE && !err->file[0])
		snprintf(err->file, sizeof(err->file), "%s/%s",
			 wc_outdir_path(b->out), rel);
	return -1;
}

/* Drops a timeline begun for a capture never added. */
static void timeline_discard(struct wc_bundle *b)
{
	wc_traceevent_free(b->tl);
	b->tl = NULL;
	wc_gzfile_close(b->tl_gz, NULL);
	b->tl_gz = NULL;
	if (b->tl_file)
		wc_outdir_discard(b->out, b->tl_file);
	b->tl_file = NULL;
}

int wc_bundle_begin(struct wc_bundle *b, struct wc_analysis_opts *o,
		    struct wc_err *err)
{
	timeline_discard(b);
	o->series = true;
	o->trace = NULL;
	b->tl_file = wc_outdir_create(b->out, "timeline.json.gz", err);
	if (!b->tl_file)
		return -1;
	/* Compressed: a timeline has a slice a request, about 600 bytes of
	 * JSON each, a twelfth of that in gzip, which ui.perfetto.dev and
	 * chrome://tracing open as they are. */
	b->tl_gz = wc_gzfile_open(b->tl_file, err);
	if (!b->tl_gz || wc_traceevent_open(&b->tl, b->tl_gz, err) < 0) {
		timeline_discard(b);
		return -1;
	}
	wc_traceevent_limit(b->tl, b->tl_limit);
	o->trace = b->tl;
	return 0;
}

void wc_bundle_all_pages(struct wc_bundle *b, bool all)
{
	b->all_pages = all;
}

void wc_bundle_timeline_limit(struct wc_bundle *b, uint64_t slices)
{
	b->tl_limit = slices;
}

/* Ends the pending timeline and moves it into the capture's folder;
 * *st: what it holds. */
static int timeline_commit(struct wc_bundle *b, const char *dir, bool *done,
			   struct wc_traceevent_stats *st, struct wc_err *err)
{
	/* The capture's folder (a safe name with a "-N" suffix when
	 * taken), then the file's own name. */
	char rel[sizeof(((struct wc_chart_capture *)0)->dir) +
		 sizeof("/timeline.json.gz")];
	FILE *f = b->tl_file;
	int r;

	*done = false;
	if (!b->tl)
		return 0;
	wc_traceevent_stats(b->tl, st);
	r = wc_traceevent_close(b->tl, err);
	wc_traceevent_free(b->tl);
	b->tl = NULL;
	if (wc_gzfile_close(b->tl_gz, r < 0 ? NULL : err) < 0)
		r = -1;
	b->tl_gz = NULL;
	b->tl_file = NULL;
	snprintf(rel, sizeof(rel), "%s/timeline.json.gz", dir);
	if (r < 0) {
		wc_outdir_discard(b->out, f);
		return named(b, rel, err);
	}
	if (wc_outdir_commit_as(b->out, f, rel, err) < 0)
		return -1;
	*done = true;
	return 0;
}

static int nomem(struct wc_err *err)
{
	return wc_err_oom(err, NULL, NULL);
}

int wc_bundle_open(struct wc_bundle **out, const char *dir, struct wc_err *err)
{
	struct wc_bundle *b;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return nomem(err);
	if (asprintf(&b->index, "%s/index.html", dir) < 0) {
		b->index = NULL;
		nomem(err);
		goto fail_free;
	}
	b->tl_limit = WC_BUNDLE_TIMELINE_SLICES;
	/* The templates first: without them no folder is made. */
	if (wc_plot_open(&b->plot, err) < 0 ||
	    wc_outdir_open(&b->out, dir, err) < 0)
		goto fail_free;
	*out = b;
	return 0;

fail_free:
	wc_bundle_free(b);
	return -1;
}

/* True when a capture folder named name would be one of the bundle's
 * own files (names that begin with '.' never come out of wc_outdir_safe_name()). */
static bool reserved_name(const char *name)
{
	static const char *const own[] = {
		"index.html", "report.txt", "report.json", "summary.csv",
		"render.sh", "gnuplot.log", BUNDLE_LIST,
	};
	size_t i;

	if (strncmp(name, "compare-", 8) == 0)
		return true;
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcmp(name, own[i]) == 0)
			return true;
	return false;
}

/*
 * A folder name for the capture, unique in the bundle.  A name the
 * bundle uses itself gets "capture-" in front, once: a suffix alone
 * cannot help ("compare-time-2" still begins with "compare-").
 */
static void cap_dir(const struct wc_bundle *b, const char *name, char *out,
		    size_t size)
{
	char base[WC_OUTDIR_NAME_MAX + 1], safe[WC_OUTDIR_NAME_MAX + 1];
	unsigned n = 1;
	size_t i;
	bool taken;

	wc_outdir_safe_name(name, safe, sizeof(safe));
	if (reserved_name(safe))
		snprintf(base, sizeof(base), "capture-%.*s", WC_OUTDIR_NAME_MAX - 8, safe);
	else
		snprintf(base, sizeof(base), "%s", safe);
	snprintf(out, size, "%s", base);
	do {
		taken = false;
		for (i = 0; i < b->ncaps && !taken; i++)
			taken = strcmp(b->charts[i].dir, out) == 0;
		if (taken)
			snprintf(out, size, "%s-%u", base, ++n);
	} while (taken);
}


/* Room for one more capture. */
static int grow(struct wc_bundle *b, struct wc_err *err)
{
	size_t n = b->capsize ? 2 * b->capsize : 8;
	struct wc_chart_capture *c;
	uint64_t *ig;
	bool *tl;
	struct wc_traceevent_stats *ts;

	if (b->ncaps < b->capsize)
		return 0;
	c = realloc(b->charts, n * sizeof(*c));
	if (!c)
		return nomem(err);
	b->charts = c;
	ig = realloc(b->ignored, n * sizeof(*ig));
	if (!ig)
		return nomem(err);
	b->ignored = ig;
	tl = realloc(b->timeline, n * sizeof(*tl));
	if (!tl)
		return nomem(err);
	b->timeline = tl;
	tl = realloc(b->page, n * sizeof(*tl));
	if (!tl)
		return nomem(err);
	b->page = tl;
	ts = realloc(b->tl_stats, n * sizeof(*ts));
	if (!ts)
		return nomem(err);
	b->tl_stats = ts;
	b->capsize = n;
	return 0;
}

int wc_bundle_add(struct wc_bundle *b, struct wc_analysis *a,
		  struct wc_err *err)
{
	const struct wc_capture_meta *meta;
	const struct wc_series *s;
	struct wc_series *empty = NULL;
	struct wc_summary *one = NULL;
	struct wc_figdata *fd = NULL;
	struct wc_chart_capture *c;
	int r = -1;

	if (!wc_analysis_has_series(a))
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "bundle: analysis without series (run "
				  "without o.series, or added before)");
	if (grow(b, err) < 0)
		goto out_series;
	c = &b->charts[b->ncaps];
	memset(c, 0, sizeof(*c));
	meta = wc_analysis_meta(a);
	cap_dir(b, meta->name, c->dir, sizeof(c->dir));
	b->ignored[b->ncaps] = wc_analysis_series_ignored(a);
	b->timeline[b->ncaps] = false;
	b->page[b->ncaps] = true;
	memset(&b->tl_stats[b->ncaps], 0, sizeof(b->tl_stats[0]));
	b->ncaps++;

	/* The main device's: a disk of partitions' is its first's. */
	s = wc_analysis_series(a, wc_analysis_main(a) ?
			       wc_analysis_main(a)->device : meta->main_device);
	if (!s) {
		/* No request on the main device: empty figures say so. */
		if (wc_series_open(&empty, err) < 0)
			goto out_series;
		s = empty;
	}
	/* The capture's own summary: its series go before the others'
	 * analyses exist, so the figures cannot wait for the whole one. */
	if (wc_summary_build(&one, &a, 1, NULL, err) < 0 ||
	    wc_outdir_mkdir(b->out, c->dir, err) < 0 ||
	    timeline_commit(b, c->dir, &b->timeline[b->ncaps - 1],
			    &b->tl_stats[b->ncaps - 1], err) < 0 ||
	    wc_figdata_build(&fd, s, one->caps[0].figs.io ?
			     one->caps[0].figs.start_ns : WC_NO_TIME, err) < 0)
		goto out_series;
	r = wc_chart_capture(c, &one->caps[0], fd, b->plot, b->out, err);

out_series:
	wc_figdata_free(fd);
	wc_summary_free(one);
	wc_series_free(empty);
	wc_analysis_release_series(a);
	return r;
}

static int write_reports(struct wc_bundle *b, const struct wc_summary *s,
			 struct wc_err *err)
{
	static const struct {
		const char *file;
		enum wc_format fmt;
	} reports[] = {
		{ "report.txt", WC_FORMAT_TEXT },
		{ "report.json", WC_FORMAT_JSON },
		{ "summary.csv", WC_FORMAT_CSV },
	};
	size_t i;
	int r = 0;

	for (i = 0; i < sizeof(reports) / sizeof(reports[0]) && r == 0; i++) {
		FILE *f = wc_outdir_create(b->out, reports[i].file, err);

		if (!f)
			return -1;
		/* report.txt ends with the per-run detail: the bundle is
		 * the whole story, its heading says where to stop. */
		r = wc_report_write_detail(f, reports[i].fmt, s, WC_REPORT_RUNS,
					   err);
		if (r < 0) {
			wc_outdir_discard(b->out, f);
			return named(b, reports[i].file, err);
		}
		if (wc_outdir_commit(b->out, f, reports[i].file, err) < 0)
			r = -1;
	}
	return r;
}

/* Whether a finding of s names capture i as the capture it is about or
 * the baseline it was compared with. */
static bool findings_name(const struct wc_summary *s, size_t i)
{
	const char *name = s->caps[i].meta->name;
	size_t k, j;

	for (k = 0; k < s->nfindings; k++)
		for (j = 0; j < s->findings[k].nstrs; j++)
			if ((!strcmp(s->findings[k].str[j].key, "capture") ||
			     !strcmp(s->findings[k].str[j].key, "baseline")) &&
			    !strcmp(s->findings[k].str[j].value, name))
				return true;
	return false;
}

/* Keeps the pages of the captures the findings name (or every one) and
 * takes back the rest: their files, folder and queued figures. */
static void choose_pages(struct wc_bundle *b, const struct wc_summary *s)
{
	size_t i, k = 0;
	int j;

	for (i = 0; i < b->ncaps; i++)
		k += b->page[i] = b->all_pages || findings_name(s, i);
	for (i = 0; i < b->ncaps && k; i++) {
		struct wc_chart_capture *c = &b->charts[i];

		if (b->page[i])
			continue;
		wc_plot_forget(b->plot, c->dir);
		wc_outdir_forget(b->out, c->dir);
		b->timeline[i] = false;
		for (j = 0; j < WC_NCHARTS; j++)
			c->drawn[j] = false;
	}
	/* None named: a page each rather than none. */
	for (i = 0; i < b->ncaps && !k; i++)
		b->page[i] = true;
}

static int write_html(struct wc_bundle *b, const struct wc_summary *s,
		      const bool *across, struct wc_err *err)
{
	struct wc_html_page pg = {
		.sum = s, .charts = b->charts, .ignored = b->ignored,
		.timeline = b->timeline, .timeline_stats = b->tl_stats,
		.page = b->page,
		.across = across, .plot = b->plot,
	};
	char *report = NULL;
	FILE *f;
	int r = -1;

	if (wc_outdir_read(b->out, "report.txt", &report, err) < 0)
		return -1;
	pg.report = report;
	f = wc_outdir_create(b->out, "index.html", err);
	if (!f)
		goto out_report;
	if (wc_html_write(f, &pg, err) < 0) {
		wc_outdir_discard(b->out, f);
		named(b, "index.html", err);
		goto out_report;
	}
	r = wc_outdir_commit(b->out, f, "index.html", err);

out_report:
	free(report);
	return r;
}

int wc_bundle_close(struct wc_bundle *b, const struct wc_summary *s,
		    struct wc_err *err)
{
	bool across[WC_NCMP];
	int r;

	if (b->ncaps == 0)
		return wc_err_set(err, WC_ERR_USAGE, wc_outdir_path(b->out), NULL,
				  WC_NO_OFFSET, "no capture to put in the bundle");
	timeline_discard(b);
	if (!s || s->ncaps != b->ncaps)
		return wc_err_set(err, WC_ERR_USAGE, wc_outdir_path(b->out), NULL,
				  WC_NO_OFFSET, "bundle: the summary is not of "
				  "its captures");
	choose_pages(b, s);
	if (write_reports(b, s, err) < 0 ||
	    wc_chart_across(b->charts, s, across, b->plot, b->out, err) < 0)
		return -1;
	r = wc_plot_render(b->plot, b->out, err);
	if (write_html(b, s, across, err) < 0)
		return -1;
	/* The new bundle is whole: what only the previous one had goes. */
	if (wc_outdir_sweep(b->out, BUNDLE_LIST, r < 0 ? NULL : err) < 0 && r == 0)
		return -1;
	return r;
}

const char *wc_bundle_notice(const struct wc_bundle *b)
{
	return wc_plot_notice(b->plot);
}

const char *wc_bundle_index(const struct wc_bundle *b)
{
	return b->index;
}

const char *wc_bundle_plots(const struct wc_bundle *b)
{
	return wc_plot_templates(b->plot);
}

void wc_bundle_free(struct wc_bundle *b)
{
	size_t i;

	if (!b)
		return;
	timeline_discard(b);
	for (i = 0; i < b->ncaps; i++)
		wc_chart_capture_clear(&b->charts[i]);
	free(b->charts);
	free(b->ignored);
	free(b->timeline);
	free(b->page);
	free(b->tl_stats);
	wc_plot_free(b->plot);
	wc_outdir_free(b->out);
	free(b->index);
	free(b);
}
