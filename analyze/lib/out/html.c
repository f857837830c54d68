/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html.c - the bundle's index.html (see html.h).
 */
#include <stdbool.h>
#include <stdio.h>

#include "base/buildinfo.h"
#include "base/escape.h"
#include "out/html.h"
#include "out/outformat.h"

static void swatch(FILE *f, const char *color)
{
	if (color[0] == '#')
		fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>", color);
}

/* A figure; nosvg says why it has no SVG (NULL: it has one). */
static void figure(FILE *f, const char *dir, const struct wc_chart_info *fi,
		   int height, const char *alt, const char *nosvg)
{
	char pre[WC_OUTDIR_NAME_MAX + 24];
	const char *big = nosvg ? "png" : "svg";

	snprintf(pre, sizeof(pre), "%s%s", dir ? dir : "", dir ? "/" : "");
	/* The image is there even when gnuplot was not: render.sh then
	 * makes the page whole without writing it again. */
	fputs("<figure>\n", f);
	fprintf(f, "<a href=\"%s%s.%s\"><img src=\"%s%s.png\" width=\"%d\" "
		"height=\"%d\" alt=\"", pre, fi->name, big, pre, fi->name,
		fi->width, height ? height : fi->height);
	wc_escape_html(f, alt);
	fputs("\"></a>\n", f);
	fputs("<figcaption>", f);
	wc_escape_html(f, fi->caption);
	fputs(" (", f);
	if (!nosvg) {
		fprintf(f, "<a href=\"%s%s.svg\">SVG</a>, ", pre, fi->name);
	} else {
		fputs("no SVG: ", f);
		wc_escape_html(f, nosvg);
		fputs(", ", f);
	}
	fprintf(f, "<a href=\"%s%s.gp\">gnuplot script</a>)</figcaption>\n"
		"</figure>\n", pre, fi->name);
}

/* A table's heading and head row: the columns before the parts, the
 * parts with their colours, the columns after. */
static void table_head(FILE *f, const struct wc_summary *s,
		       const struct wc_plot *p, const char *before,
		       const char *after)
{
	int k;

	fputs(before, f);
	for (k = 0; k < WC_NCAT; k++) {
		fputs("<th>", f);
		swatch(f, wc_plot_color(p, k));
		wc_escape_html(f, wc_cat_name((enum wc_cat)k));
		fputs("</th>", f);
	}
	fputs("<th>", f);
	swatch(f, wc_plot_color(p, WC_PART_IDLE));
	fputs("idle</th>", f);
	/* The drive's destage of no request, when some capture's ledger
	 * gives it. */
	if (wc_summary_part_shown(s, WC_PART_INTERNAL)) {
		fputs("<th>", f);
		swatch(f, wc_plot_color(p, WC_PART_INTERNAL));
		wc_escape_html(f, wc_part_label(WC_PART_INTERNAL));
		fputs("</th>", f);
	}
	fputs(after, f);
}

static void cell_time(FILE *f, const struct wc_sum_figs *sf, int part)
{
	fprintf(f, "<td>%.3f", wc_secs(sf->part_ns[part]));
	if (sf->wall_ns)
		fprintf(f, " <small>(%.1f%%)</small>", sf->share[part]);
	fputs("</td>", f);
}

static void findings(FILE *f, const struct wc_summary *s)
{
	size_t i;

	if (!s->nfindings)
		return;
	fputs("<h2 id=\"findings\">Findings</h2>\n<ul>\n", f);
	for (i = 0; i < s->nfindings; i++) {
		/* The answers, then the caveats beside them. */
		if (s->findings[i].caveat && (!i || !s->findings[i - 1].caveat))
			fputs("</ul>\n<h3>Caveats</h3>\n<ul>\n", f);
		fputs("<li>", f);
		wc_escape_html(f, s->findings[i].text);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

/* Signed seconds of a difference, exact to the millisecond shown. */
static void cell_diff(FILE *f, int64_t ns)
{
	fprintf(f, "<td>%+.3f</td>", (double)ns / 1e9);
}

/* A verdict in a word or two, so that a row stays one line however many
 * parts the table has; the title holds the test: the label in full, and
 * where the measure is known on both sides the difference of the means,
 * its 95 % interval (with two runs a side or more) and the runs. */
static void cell_verdict(FILE *f, enum wc_verdict v, const struct wc_test *t)
{
	static const char *const word[] = {
		[WC_VERDICT_BASELINE] = "baseline",
		[WC_VERDICT_REAL] = "real",
		[WC_VERDICT_BOUNDED] = "no larger than",
		[WC_VERDICT_UNDECIDED] = "not decided",
	};
	char words[96];

	fprintf(f, "<td class=\"l nw\" title=\"%s",
		t->known ? wc_test_words(t, words, sizeof(words)) :
		wc_verdict_label(v));
	if (t->known)
		fprintf(f, ": %+.3f s", t->diff_s);
	if (t->known && t->has_interval)
		fprintf(f, ", 95 %% interval %+.3f to %+.3f s", t->lo_s, t->hi_s);
	if (t->known)
		fprintf(f, "; %zu and %zu runs", t->n, t->base_n);
	fprintf(f, "\">%s", (unsigned)v < sizeof(word) / sizeof(word[0]) ?
		word[v] : "?");
	if (v == WC_VERDICT_BOUNDED)
		fprintf(f, " %.3f s", t->bound_s);
	fputs("</td>", f);
}

/* The summary's differences: a row per group of runs (a capture when it
 * ran once), its parts, and what the verdicts exclude. */
static void differences(FILE *f, const struct wc_html_page *pg)
{
	const struct wc_summary *s = pg->sum;
	size_t g;
	int k;

	if (!s->has_diff)
		return;
	fputs("<h2 id=\"difference\">Difference against the baseline (main "
	      "device, seconds)</h2>\n<p>", f);
	if (s->named_baseline)
		fputs("Every group against the named baseline; a group on "
		      "another disk than the baseline's is marked: its "
		      "difference crosses disks.", f);
	else
		fputs("Each group against the fastest group on the same disk, "
		      "with the same workload and scale (its comparable set): "
		      "the column <i>against</i> numbers it.", f);
	fputs("  Verdicts, on the main device's busy time and on the wall "
	      "clock (Welch's t-test): <i>real</i>, the 95 % interval "
	      "excludes 0; <i>no larger than</i> X, the 90 % interval lies "
	      "inside &plusmn;X (two one-sided tests), X being ", f);
	if (s->equiv_s > 0)
		fprintf(f, "%.3f s (--equivalence)", s->equiv_s);
	else
		fprintf(f, "%g %% of the baseline's mean wall", s->equiv_share * 100);
	fputs("; <i>not decided</i>, neither is excluded.  A verdict's title "
	      "gives the difference, its interval and, when not decided, "
	      "the runs a side that would decide it.", f);
	/* The verdicts beside the names, where a wide table of parts does
	 * not push them out of sight; the parts scroll inside their box. */
	table_head(f, s, pg->plot, "</p>\n<div class=\"wide\"><table>\n<tr><th>#</th>"
		   "<th class=\"l\">captures</th><th>disk</th><th>runs</th>"
		   "<th>against</th><th class=\"l\">device verdict</th>"
		   "<th class=\"l\">wall verdict</th><th>wall</th>", "</tr>\n");
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];

		/* The first run names the group; its runs are #G.1... in
		 * the table above, listing them all would wrap the row. */
		fprintf(f, "<tr><td>#%zu</td><td class=\"l nw\">", g + 1);
		wc_escape_html(f, s->caps[gr->members[0]].meta->name);
		if (gr->n > 1)
			fprintf(f, " and %zu more", gr->n - 1);
		fputs("</td><td>", f);
		wc_escape_html(f, gr->disk_name);
		fprintf(f, "</td><td>%zu</td><td>#%zu%s</td>", gr->n,
			gr->base + 1, gr->cross_disk ? " (another disk)" : "");
		if (gr->verdict == WC_VERDICT_BASELINE) {
			fputs("<td class=\"l\" colspan=\"2\">baseline</td>", f);
		} else {
			cell_verdict(f, gr->verdict, &gr->test[WC_MEAS_BUSY]);
			cell_verdict(f, gr->wall_verdict, &gr->test[WC_MEAS_WALL]);
		}
		cell_diff(f, gr->diff.wall_ns);
		for (k = 0; k < WC_NPARTS; k++)
			if (wc_summary_part_shown(s, k))
				cell_diff(f, gr->diff.part_ns[k]);
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

static void head(FILE *f, const struct wc_html_page *pg)
{
	size_t n = pg->sum->ncaps;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>wcanalyze: where the time went</title>\n<style>\n"
	      "body { font-family: sans-serif; max-width: 1280px; margin: 1em auto; "
	      "padding: 0 1em; color: #222; }\n"
	      "table { border-collapse: collapse; margin: 0.5em 0; }\n"
	      "th, td { border: 1px solid #bbb; padding: 2px 8px; text-align: right; }\n"
	      "th { background: #eee; } .l { text-align: left; }\n"
	      ".nw { white-space: nowrap; }\n"
	      ".wide { overflow-x: auto; }\n"
	      "img { max-width: 100%; height: auto; border: 1px solid #ddd; }\n"
	      "figure { margin: 1em 0 2em 0; }\n"
	      "pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }\n"
	      ".sw { display: inline-block; width: 0.9em; height: 0.9em; "
	      "margin-right: 0.3em; vertical-align: middle; }\n"
	      ".note { background: #fff3cd; padding: 0.5em; }\n"
	      "</style>\n</head>\n<body>\n<h1>wcanalyze: where the time went</h1>\n", f);
	fprintf(f, "<p>wcanalyze %s, %zu capture%s.  For a mail or a bug report: "
		"<a href=\"report.txt\">report.txt</a> (plain text, 80 columns); "
		"for programs: <a href=\"report.json\">report.json</a>, "
		"<a href=\"summary.csv\">summary.csv</a>.  Every figure is drawn "
		"by gnuplot from the <code>.dat</code> and <code>.gp</code> files "
		"beside it; <a href=\"render.sh\">render.sh</a> draws them again.</p>\n",
		wc_version, n, n == 1 ? "" : "s");
	if (!wc_plot_rendered(pg->plot))
		fputs("<p class=\"note\">The figures are not rendered: gnuplot was "
		      "not available.  Run <code>render.sh</code> in this folder "
		      "(it needs gnuplot) and reload this page.</p>\n", f);
}

/* A capture's number as report.txt and the figures give it: "#G" for a
 * group of one run, "#G.R" for run R of group G. */
static void cap_number(FILE *f, const struct wc_summary *s, size_t i)
{
	const struct wc_sum_group *gr = &s->groups[s->caps[i].group];
	size_t r;

	for (r = 0; r < gr->n && gr->members[r] != i; r++)
		;
	if (gr->n > 1)
		fprintf(f, "#%zu.%zu", s->caps[i].group + 1, r + 1);
	else
		fprintf(f, "#%zu", s->caps[i].group + 1);
}

/* Captures without phases named under the phases figure, at most this
 * many: the rest are counted. */
#define PHASELESS_NAMED 12

/* What the phases figure across captures leaves out: the captures
 * without phases.tsv, or the whole figure when none has one. */
static void phases_note(FILE *f, const struct wc_html_page *pg)
{
	const struct wc_summary *s = pg->sum;
	size_t i, n = 0;

	for (i = 0; i < s->ncaps; i++)
		if (!s->caps[i].nphases)
			n++;
	if (!n)
		return;
	if (n == s->ncaps) {
		fputs("<p>No figure: ", f);
		wc_escape_html(f, wc_chart_cmp_info(WC_CMP_PHASES, s).caption);
		fputs(" (no capture has phases.tsv).</p>\n", f);
		return;
	}
	fputs("<p>Without phases.tsv, so not in the wall time of each "
	      "phase: ", f);
	for (i = 0, n = 0; i < s->ncaps; i++) {
		if (s->caps[i].nphases)
			continue;
		if (++n > PHASELESS_NAMED)
			continue;
		if (n > 1)
			fputs(", ", f);
		cap_number(f, s, i);
		fputs(" ", f);
		wc_escape_html(f, s->caps[i].meta->name);
	}
	if (n > PHASELESS_NAMED)
		fprintf(f, " and %zu more", n - PHASELESS_NAMED);
	fputs(".  A configuration none of whose runs has one keeps its place "
	      "without a bar; a disk none of whose captures has one has no "
	      "panel.</p>\n", f);
}

/* Time by category of every capture. */
static void summary_table(FILE *f, const struct wc_html_page *pg)
{
	const struct wc_summary *s = pg->sum;
	size_t i;
	int k;

	table_head(f, s, pg->plot, "<h2 id=\"summary\">Time by category (main "
		   "device)</h2>\n<div class=\"wide\"><table>\n<tr><th>#</th>"
		   "<th class=\"l\">capture"
		   "</th><th>fs</th><th>write cache</th><th>barriers</th>"
		   "<th>disk</th><th>window (s)</th>", "</tr>\n");
	for (i = 0; i < s->ncaps; i++) {
		const struct wc_capture_meta *m = s->caps[i].meta;
		const struct wc_sum_figs *sf = &s->caps[i].figs;

		fputs("<tr><td class=\"nw\">", f);
		cap_number(f, s, i);
		fprintf(f, "</td><td class=\"l nw\"><a href=\"#cap-%s\">",
			pg->charts[i].dir);
		wc_escape_html(f, m->name);
		fputs("</a></td><td>", f);
		wc_escape_html(f, m->fs[0] ? m->fs : "?");
		fprintf(f, "</td><td>%s</td><td>%s</td><td>", wc_onoff(m->write_cache),
			wc_onoff(m->barrier));
		wc_escape_html(f, wc_summary_disk_name(&s->caps[i]));
		fputs("</td>", f);
		if (!sf->io) {
			fprintf(f, "<td colspan=\"%d\">no I/O</td></tr>\n",
				WC_NCAT + 2 + (s->internal ? 1 : 0));
			continue;
		}
		fprintf(f, "<td>%.3f</td>", sf->col[WC_COL_WALL]);
		for (k = 0; k < WC_NPARTS; k++)
			if (wc_summary_part_shown(s, k))
				cell_time(f, sf, k);
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

/* The link to a capture's timeline, and where it ends when the
 * bundle's limit cut it. */
static void timeline(FILE *f, const struct wc_html_page *pg, size_t i)
{
	const struct wc_traceevent_stats *st =
		pg->timeline_stats ? &pg->timeline_stats[i] : NULL;
	const char *dir = pg->charts[i].dir;

	if (st && st->ends_s >= 0)
		fprintf(f, "<p>Timeline of the first %llu requests (flushes "
			"among them), with the queue depth and the phases, to "
			"%.3f s: ",
			(unsigned long long)st->slices, st->ends_s);
	else
		fputs("<p>Timeline of every request, flush, queue depth and "
		      "phase: ", f);
	fprintf(f, "<a href=\"%s/timeline.json.gz\">%s/timeline.json.gz</a> "
		"(open it as it is in ui.perfetto.dev or chrome://tracing; the "
		"bundle itself links to nothing off this folder).", dir, dir);
	if (st && st->ends_s >= 0)
		fprintf(f, "  A bundle's timeline draws at most %llu requests "
			"a capture, so that it stays small enough to attach; "
			"the %llu after are not drawn (<code>wcanalyze "
			"--export-trace FILE --timeline-limit 0 INPUT</code> "
			"writes them all).",
			(unsigned long long)st->slices,
			(unsigned long long)st->past_limit);
	fputs("</p>\n", f);
}

/* A capture's section: its settings, its parts and its figures. */
static void capture(FILE *f, const struct wc_html_page *pg, size_t i)
{
	const struct wc_chart_capture *c = &pg->charts[i];
	const struct wc_capture_meta *m = pg->sum->caps[i].meta;
	const struct wc_sum_figs *sf = &pg->sum->caps[i].figs;
	int k;

	fprintf(f, "<h2 id=\"cap-%s\">", c->dir);
	wc_escape_html(f, m->name);
	fputs("</h2>\n<p>", f);
	fputs("filesystem ", f);
	wc_escape_html(f, m->fs[0] ? m->fs : "unknown");
	fprintf(f, ", write cache %s, barriers %s, %llu events", wc_onoff(m->write_cache),
		wc_onoff(m->barrier), (unsigned long long)m->events);
	if (m->events_dropped > 0)
		fprintf(f, ", <strong>%lld events lost</strong>",
			(long long)m->events_dropped);
	if (pg->ignored && pg->ignored[i])
		fprintf(f, "; %llu requests on devices beyond the first %d "
			"are not in the figures",
			(unsigned long long)pg->ignored[i], WC_SERIES_MAX_DEVICES);
	if (pg->page && !pg->page[i])
		fputs(".  Its figures and timeline are not in this bundle: "
		      "the findings do not name it (<code>wcanalyze -o DIR "
		      "--capture-pages all</code> draws every capture's).</p>\n",
		      f);
	else
		fprintf(f, ".  Data and scripts: <a href=\"%s/\">%s/</a>.</p>\n",
			c->dir, c->dir);
	if (pg->timeline && pg->timeline[i])
		timeline(f, pg, i);
	if (sf->io) {
		fputs("<table>\n<tr><th class=\"l\">category</th><th>time (s)</th>"
		      "<th>share</th><th>requests</th><th>bytes</th></tr>\n", f);
		for (k = 0; k < WC_NPARTS; k++) {
			/* The parts: categories, then idle, then the disk's
			 * own work where a ledger gives it. */
			uint64_t ns = sf->part_ns[k];

			if (k == WC_PART_INTERNAL && !sf->internal_known)
				continue;
			fputs("<tr><td class=\"l\">", f);
			swatch(f, wc_plot_color(pg->plot, k));
			wc_escape_html(f, k < WC_NCAT ? wc_cat_name((enum wc_cat)k) :
					  k == WC_PART_IDLE ? "idle" :
					  wc_part_label(k));
			fprintf(f, "</td><td>%.3f</td><td>%.1f%%</td>", wc_secs(ns),
				sf->share[k]);
			if (k < WC_NCAT)
				fprintf(f, "<td>%llu</td><td>%llu</td></tr>\n",
					(unsigned long long)sf->requests[k],
					(unsigned long long)sf->bytes[k]);
			else
				fputs("<td></td><td></td></tr>\n", f);
		}
		fprintf(f, "<tr><th class=\"l\">window</th><th>%.3f</th>"
			"<th>100%%</th><th></th><th></th></tr>\n</table>\n",
			sf->col[WC_COL_WALL]);
	}
	for (k = 0; k < WC_NCHARTS && (!pg->page || pg->page[i]); k++) {
		const struct wc_chart_info *fi = wc_chart_info((enum wc_chart)k);
		char alt[512];

		snprintf(alt, sizeof(alt), "%s: %s", m->name, fi->caption);
		if (c->drawn[k]) {
			figure(f, c->dir, fi, c->height[k], alt, c->svg[k] ? NULL :
			       c->nosvg[k] ? c->nosvg[k] : "PNG only");
		} else {
			fputs("<p>No figure: ", f);
			wc_escape_html(f, fi->caption);
			fputs(" (", f);
			wc_escape_html(f, c->why[k] ? c->why[k] : "not written");
			fputs(").</p>\n", f);
		}
	}
}

int wc_html_write(FILE *f, const struct wc_html_page *pg, struct wc_err *err)
{
	size_t i;
	int k;
	bool any = false;

	/* At a glance first: the findings, the differences and the
	 * figures across captures; then a row a capture and each one's
	 * figures, however many there are. */
	head(f, pg);
	findings(f, pg->sum);
	differences(f, pg);
	for (k = 0; k < WC_NCMP; k++)
		any = any || pg->across[k];
	if (any) {
		fputs("<h2 id=\"compare\">Across captures</h2>\n", f);
		for (k = 0; k < WC_NCMP; k++) {
			struct wc_chart_info fi =
				wc_chart_cmp_info((enum wc_cmp)k, pg->sum);

			if (pg->across[k])
				figure(f, NULL, &fi, 0, fi.caption, NULL);
			if (k == WC_CMP_PHASES)
				phases_note(f, pg);
		}
	}
	summary_table(f, pg);
	for (i = 0; i < pg->sum->ncaps; i++)
		capture(f, pg, i);
	fputs("<h2 id=\"report\">Text report</h2>\n<pre>", f);
	wc_escape_html(f, pg->report ? pg->report : "");
	fputs("</pre>\n</body>\n</html>\n", f);
	return wc_format_finish(f, err);
}
