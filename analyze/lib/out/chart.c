/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chart.c - the bundle's figures as data files and script variables (see
 * chart.h and docs/bundle.md).
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/chart.h"
#include "base/escape.h"

#define MAX_PHASE_NAMES 16
/* The latency heat map: a panel a category, each as tall as this. */
#define HEAT_TOP_PX 110
#define HEAT_PANEL_PX 250

static const struct wc_chart_info charts[WC_NCHARTS] = {
	[WC_CHART_SCATTER] = { "scatter", "Sector over time: one point per "
			       "request (per pixel), coloured by category; "
			       "flushes marked above the data", 1200, 680 },
	[WC_CHART_THROUGHPUT] = { "throughput", "Throughput (MB/s) and IOPS "
				  "over time, stacked by category", 1200, 760 },
	[WC_CHART_FLUSHES] = { "flushes", "Cache flushes per second and "
			       "cumulative time spent in flush requests",
			       1200, 760 },
	[WC_CHART_LATENCY] = { "latency", "D2C latency CDF per category",
			       1200, 680 },
	[WC_CHART_HEAT_LATENCY] = { "heatmap-latency", "D2C latency over time, "
				    "a panel a category: requests a cell "
				    "(shade, log scale), completion time "
				    "across, with the p50, p90 and p99 of "
				    "each column", 1200, 0 },
	[WC_CHART_HEAT_SECTOR] = { "heatmap-sector", "Sector over time: "
				   "requests a cell (shade, log scale), "
				   "dispatch time across", 1200, 680 },
	[WC_CHART_QUEUE] = { "queue", "Queue depth over time", 1200, 600 },
	[WC_CHART_PHASES] = { "phases", "Busy time of each phase by category, "
			      "labelled with the busy time and the phase's "
			      "window", 1000, 650 },
};

static const struct wc_chart_info cmp_charts[WC_NCMP] = {
	[WC_CMP_TIME] = { "compare-time", "Busy time of each configuration by "
			  "category, the mean of its runs, stacked, the bar "
			  "through its top the runs' range, labelled with the "
			  "busy time and the wall; a panel a disk; "
			  "configurations numbered as in the table above",
			  0, 0 },
	[WC_CMP_PHASES] = { "compare-phases", "Wall time of each phase in each "
			    "configuration, the mean of its runs and their "
			    "range; a panel a disk", 0, 0 },
	[WC_CMP_THROUGHPUT] = { "compare-throughput", "Throughput over time: a "
				"panel a configuration, its runs overlaid", 0, 0 },
	[WC_CMP_CONFIGS] = { "compare-configs", "Difference of each "
			     "configuration against its baseline, the mean of "
			     "its runs: what each category added (above zero) "
			     "or saved (below), the dot at the mean wall "
			     "difference, the bar through it the runs' range, "
			     "and the verdicts of the tests under the "
			     "label; a panel a disk", 0, 0 },
};

/*
 * Small multiples: the figures across captures have a bar a group (the
 * runs of one configuration), at most PANEL_BARS a panel, a new panel
 * where the disk changes, so that a figure is never wider than
 * WC_CHART_MAX_WIDTH and bars on two disks, whose times differ tenfold,
 * do not share an axis.  A panel is a range of group numbers.  The
 * phases figure leaves out a panel in which no run has phases.tsv: it
 * would have no bar to scale (gnuplot stops there, "all points y value
 * undefined"), and the page names the groups without phases.
 */
#define PANEL_BARS 12
#define PANEL_BAR_PX 110

/* Whether group g ends a panel that began at group first. */
static bool panel_ends(const struct wc_summary *s, size_t first, size_t g)
{
	return g + 1 == s->ngroups || s->groups[g + 1].set != s->groups[g].set ||
	       g + 1 - first == PANEL_BARS;
}

/* Whether figure k draws the panel of groups first to last. */
static bool panel_drawn(enum wc_cmp k, const struct wc_summary *s,
			size_t first, size_t last)
{
	size_t g;

	if (k != WC_CMP_PHASES)
		return true;
	for (g = first; g <= last; g++)
		if (s->groups[g].phased)
			return true;
	return false;
}

/* The panels figure k draws of the groups of s; *most: the bars of the
 * widest. */
static size_t panel_count(enum wc_cmp k, const struct wc_summary *s,
			  size_t *most)
{
	size_t g, first = 0, n = 0;

	*most = 0;
	for (g = 0; g < s->ngroups; g++) {
		if (!panel_ends(s, first, g))
			continue;
		if (!panel_drawn(k, s, first, g)) {
			first = g + 1;
			continue;
		}
		if (g + 1 - first > *most)
			*most = g + 1 - first;
		n++;
		first = g + 1;
	}
	return n;
}

const struct wc_chart_info *wc_chart_info(enum wc_chart k)
{
	return &charts[k];
}

struct wc_chart_info wc_chart_cmp_info(enum wc_cmp k, const struct wc_summary *s)
{
	static const int panel_px[WC_NCMP] = {
		[WC_CMP_TIME] = 420, [WC_CMP_PHASES] = 360,
		[WC_CMP_CONFIGS] = 470,
	};
	struct wc_chart_info i = cmp_charts[k];
	size_t most, n = panel_count(k, s, &most), cols;

	if (k == WC_CMP_THROUGHPUT) {
		/* A panel a group, four a row at most: 1,560 pixels. */
		cols = s->ngroups < 4 ? s->ngroups : 4;
		if (cols == 0)
			cols = 1;
		i.width = (int)cols * 380 + 40;
		i.height = (int)((s->ngroups + cols - 1) / cols) * 280 + 70;
		return i;
	}
	i.width = 240 + PANEL_BAR_PX * (int)most;
	if (i.width < 1000)
		i.width = 1000;
	if (i.width > WC_CHART_MAX_WIDTH)
		i.width = WC_CHART_MAX_WIDTH;
	i.height = 90 + panel_px[k] * (int)n;
	return i;
}

static int nomem(struct wc_err *err)
{
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
}

/* Categories with time or requests in f, as a gnuplot word list. */
static void cat_list(char *buf, size_t size, const struct wc_sum_figs *f)
{
	size_t len = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; f && k < WC_NCAT; k++)
		if (f->part_ns[k] || f->requests[k])
			len += (size_t)snprintf(buf + len, size - len, "%s%d",
						len ? " " : "", k);
}

/* The variables of a figure are built in memory; *out must be freed. */
static FILE *vars_open(char **out, size_t *len)
{
	*out = NULL;
	return open_memstream(out, len);
}

/* Writes the script rel of template tpl from the variables in vars
 * (closed here) and *buf (freed here). */
static int vars_script(struct wc_plot *p, struct wc_outdir *d, const char *rel,
		       const char *tpl, FILE *vars, char **buf,
		       struct wc_err *err)
{
	int r;

	if (fclose(vars) != 0 || !*buf) {
		free(*buf);
		*buf = NULL;
		return nomem(err);
	}
	r = wc_plot_script(p, d, rel, tpl, *buf, err);
	free(*buf);
	*buf = NULL;
	return r;
}

/* ---- one capture ------------------------------------------------------- */

/* timeline.dat: the figure data's rows (figdata.h has the method). */
static int write_timeline(struct wc_outdir *d, const struct wc_chart_capture *c,
			  const struct wc_figdata *fd, struct wc_err *err)
{
	char rel[PATH_MAX];
	size_t g;
	FILE *f;
	int cat;

	snprintf(rel, sizeof(rel), "%s/timeline.dat", c->dir);
	f = wc_outdir_create(d, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# timeline.dat - one line per time bin of %.6g s (docs/bundle.md)\n"
		"# 1 start_s 2 mid_s 3 bin_s, 4-10 MB/s per category, "
		"11-17 IOPS per category\n"
		"# (categories in order: flush journal metadata data_read "
		"data_write discard other)\n"
		"# 18 flushes/s (over the flush bin) 19 flush_cum_s 20 mean_at_driver "
		"21 mean_in_block_layer 22 max_depth 23 flushes 24 MB/s 25 IOPS\n",
		fd->row_s);
	for (g = 0; g < fd->nrows; g++) {
		const struct wc_fig_row *r = &fd->rows[g];

		fprintf(f, "%.9f %.9f %.9f", r->start_s, r->mid_s, r->span_s);
		for (cat = 0; cat < WC_NCAT; cat++)
			fprintf(f, " %.6g", r->mbps[cat]);
		for (cat = 0; cat < WC_NCAT; cat++)
			fprintf(f, " %.6g", r->iops[cat]);
		fprintf(f, " %.6g %.9f %.6g %.6g %u %llu %.6g %.6g\n",
			r->flush_rate, r->flush_cum_s, r->at_driver,
			r->in_block_layer, r->max_depth,
			(unsigned long long)r->flushes, r->mbps_total,
			r->iops_total);
	}
	return wc_outdir_commit(d, f, rel, err);
}

/* The capture's total throughput curve, kept for the figure across
 * captures. */
static int keep_curve(struct wc_chart_capture *c, const struct wc_figdata *fd,
		      struct wc_err *err)
{
	if (fd->ncurve == 0)
		return 0;
	c->curve = calloc(fd->ncurve, sizeof(*c->curve));
	if (!c->curve)
		return nomem(err);
	memcpy(c->curve, fd->curve, fd->ncurve * sizeof(*c->curve));
	c->ncurve = fd->ncurve;
	return 0;
}

/* One block per category (two blank lines apart), the flush marks first
 * when there are any: gnuplot then reads each category's points once
 * with "index" instead of filtering every line of the file for every
 * category, which took most of a large bundle's time. */
static int write_scatter(struct wc_outdir *d, const struct wc_chart_capture *c,
			 const struct wc_figdata *fd, struct wc_err *err)
{
	char rel[PATH_MAX];
	size_t col, row, nrows = fd->ncells_rows;
	unsigned k;
	FILE *f;

	snprintf(rel, sizeof(rel), "%s/scatter.dat", c->dir);
	f = wc_outdir_create(d, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# scatter.dat - requests binned per pixel: %llu requests "
		"as %llu points (docs/bundle.md)\n"
		"# cells of %.6g s by %llu sectors; 1 time_s (cell centre) "
		"2 sector (cell centre) 3 category (bit 1<<k, k in the "
		"order flush journal metadata data_read data_write discard other)\n"
		"# one block per category present, two blank lines apart, flush "
		"marks first: flushes have no sector, a line with sector -1 and "
		"bit 0 marks the pixel column of flushes that completed in it\n",
		(unsigned long long)fd->scatter_requests,
		(unsigned long long)fd->points, fd->bin_s,
		(unsigned long long)fd->row_sectors);
	if (fd->any_flush) {
		for (col = 0; col < fd->ncols; col++)
			if (fd->col_flush[col])
				fprintf(f, "%.9f -1 1\n", fd->col_t[col]);
		fputs("\n\n", f);
	}
	for (k = 0; k < WC_NCAT; k++) {
		if (!(fd->present & (1u << k)))
			continue;
		for (col = 0; col < fd->ncols; col++)
			for (row = 0; row < nrows; row++)
				if (fd->cells[col * nrows + row] & (1u << k))
					fprintf(f, "%.9f %.0f %u\n", fd->col_t[col],
						fd->row_y[row], 1u << k);
		fputs("\n\n", f);
	}
	return wc_outdir_commit(d, f, rel, err);
}

static int write_latency(struct wc_outdir *d, const struct wc_chart_capture *c,
			 const struct wc_figdata *fd, struct wc_err *err)
{
	char rel[PATH_MAX];
	size_t i;
	FILE *f;
	int k;

	snprintf(rel, sizeof(rel), "%s/latency.dat", c->dir);
	f = wc_outdir_create(d, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# latency.dat - D2C latency CDF per category, %d bins a "
		"decade (docs/bundle.md)\n# 1 latency_ms (top of the bin), "
		"2-8 fraction of the category's requests at most that slow\n"
		"# (flush journal metadata data_read data_write discard other; "
		"NaN: no requests)\n", WC_SERIES_LAT_PER_DECADE);
	if (fd->ncdf) {
		/* Every curve starts at 0 at the bottom of the first bin. */
		fprintf(f, "%.6g", fd->cdf_first_ms);
		for (k = 0; k < WC_NCAT; k++)
			fputs(fd->lat_n[k] ? " 0" : " NaN", f);
		fputs("\n", f);
	}
	for (i = 0; i < fd->ncdf; i++) {
		fprintf(f, "%.6g", fd->cdf[i].ms);
		for (k = 0; k < WC_NCAT; k++) {
			if (fd->lat_n[k])
				fprintf(f, " %.6f", fd->cdf[i].frac[k]);
			else
				fputs(" NaN", f);
		}
		fputs("\n", f);
	}
	return wc_outdir_commit(d, f, rel, err);
}

/* The cells of a heat map, one a line. */
static void heat_cells(FILE *f, const struct wc_fig_cell *cell, size_t n,
		       const char *yfmt)
{
	size_t i;

	for (i = 0; i < n; i++, cell++) {
		fprintf(f, "%.9f %.9f ", cell->t0, cell->t1);
		fprintf(f, yfmt, cell->y0, cell->y1);
		fprintf(f, " %u\n", cell->n);
	}
}

/* heatmap-latency.dat and heatmap-band.dat: a block a category with
 * latencies, in category order. */
static int write_heat_latency(struct wc_outdir *d, const struct wc_chart_capture *c,
			      const struct wc_figdata *fd, struct wc_err *err)
{
	char rel[PATH_MAX];
	size_t i;
	FILE *f;
	int k;

	snprintf(rel, sizeof(rel), "%s/heatmap-latency.dat", c->dir);
	f = wc_outdir_create(d, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# heatmap-latency.dat - D2C latency against completion "
		"time, requests a cell (docs/bundle.md)\n# columns of %.6g s, "
		"%d latency bins a decade; 1 t0_s 2 t1_s 3 lat0_ms 4 lat1_ms "
		"5 requests; cells without requests left out\n# one block per "
		"category with latencies, two blank lines apart, in the order "
		"flush journal metadata data_read data_write discard other\n",
		fd->heat_s, WC_SERIES_LAT_PER_DECADE);
	for (k = 0; k < WC_NCAT; k++) {
		if (!fd->nlat_cells[k])
			continue;
		fprintf(f, "# %s\n", wc_cat_name((enum wc_cat)k));
		heat_cells(f, fd->lat_cells[k], fd->nlat_cells[k], "%.6g %.6g");
		fputs("\n\n", f);
	}
	if (wc_outdir_commit(d, f, rel, err) < 0)
		return -1;

	snprintf(rel, sizeof(rel), "%s/heatmap-band.dat", c->dir);
	f = wc_outdir_create(d, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# heatmap-band.dat - D2C latency percentiles per column "
		"of heatmap-latency.dat (docs/bundle.md)\n# 1 t0_s 2 t1_s "
		"3 mid_s 4 requests 5 p%u_ms 6 p%u_ms 7 p%u_ms: each the top of "
		"the bin that holds it\n# one block per category, as in "
		"heatmap-latency.dat\n", wc_fig_pct[0], wc_fig_pct[1],
		wc_fig_pct[2]);
	for (k = 0; k < WC_NCAT; k++) {
		if (!fd->nband[k])
			continue;
		fprintf(f, "# %s\n", wc_cat_name((enum wc_cat)k));
		for (i = 0; i < fd->nband[k]; i++) {
			const struct wc_fig_band *b = &fd->band[k][i];

			fprintf(f, "%.9f %.9f %.9f %llu %.6g %.6g %.6g\n", b->t0,
				b->t1, (b->t0 + b->t1) / 2,
				(unsigned long long)b->n, b->pct[0], b->pct[1],
				b->pct[2]);
		}
		fputs("\n\n", f);
	}
	return wc_outdir_commit(d, f, rel, err);
}

static int write_heat_sector(struct wc_outdir *d, const struct wc_chart_capture *c,
			     const struct wc_figdata *fd, struct wc_err *err)
{
	char rel[PATH_MAX];
	FILE *f;

	snprintf(rel, sizeof(rel), "%s/heatmap-sector.dat", c->dir);
	f = wc_outdir_create(d, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# heatmap-sector.dat - requests by sector against dispatch "
		"time (docs/bundle.md)\n# columns of %.6g s; 1 t0_s 2 t1_s "
		"3 sector0 4 sector1 5 requests; cells without requests left "
		"out\n", fd->heat_s);
	heat_cells(f, fd->sec_cells, fd->nsec_cells, "%.0f %.0f");
	return wc_outdir_commit(d, f, rel, err);
}
/* A row of phases.dat; a window without I/O has no parts to show.
 * INTERNAL: the capture has a ledger, whose destage of no request is
 * the last column. */
static void phase_row(FILE *f, const char *label, const struct wc_sum_figs *fg,
		      bool internal)
{
	int k;

	fputs("\"", f);
	for (; *label; label++)
		putc(*label == '"' ? '\'' : *label, f);
	fprintf(f, "\" %.9f", fg->io ? wc_secs(fg->part_ns[WC_PART_IDLE]) : 0.0);
	for (k = 0; k < WC_NCAT; k++)
		fprintf(f, " %.9f", fg->io ? wc_secs(fg->part_ns[k]) : 0.0);
	if (internal)
		fprintf(f, " %.9f", fg->io ?
			wc_secs(fg->part_ns[WC_PART_INTERNAL]) : 0.0);
	fputs("\n", f);
}

static int write_phases(struct wc_outdir *d, const struct wc_chart_capture *c,
			const struct wc_sum_capture *sc, struct wc_err *err)
{
	char rel[PATH_MAX], name[WC_OUTDIR_NAME_MAX + 1];
	size_t p;
	FILE *f;

	snprintf(rel, sizeof(rel), "%s/phases.dat", c->dir);
	f = wc_outdir_create(d, rel, err);
	if (!f)
		return -1;
	fputs("# phases.dat - time per phase of the main device (docs/bundle.md)\n"
	      "# 1 phase 2 idle_s, 3-9 seconds per category (flush journal "
	      "metadata data_read data_write discard other), 10 the drive's "
	      "destage of no request (with a ledger)\n", f);
	for (p = 0; p < sc->nphases; p++) {
		wc_outdir_safe_name(sc->phases[p].name, name, sizeof(name));
		phase_row(f, name, &sc->phases[p].figs,
			  sc->figs.internal_known);
	}
	phase_row(f, "whole capture", &sc->figs, sc->figs.internal_known);
	return wc_outdir_commit(d, f, rel, err);
}

/* Opens the variables of capture figure k with its output and title. */
/* x as a number gnuplot 5.4 reads both as a literal and from a string
 * (word(list, i) + 0): its string conversion stops at an exponent after
 * a mantissa without a point ("1e+06" is "trailing characters", and a
 * request with D2C over about 891 s made the heat map's bound that), so
 * the mantissa always gets one; not finite, 0.  Into buf (GP_NUM
 * bytes). */
#define GP_NUM 40
static const char *gp_num(char *buf, double x)
{
	char *e;

	if (!isfinite(x))
		x = 0;
	snprintf(buf, GP_NUM, "%.9g", x);
	e = strchr(buf, 'e');
	if (e && !memchr(buf, '.', (size_t)(e - buf))) {
		memmove(e + 2, e, strlen(e) + 1);
		e[0] = '.';
		e[1] = '0';
	}
	return buf;
}

static FILE *fig_vars(enum wc_chart k, const char *name, const char *what,
		      char **buf, size_t *blen)
{
	FILE *v = vars_open(buf, blen);
	char title[512];

	if (!v)
		return NULL;
	fprintf(v, "out = \"%s\"\n", charts[k].name);
	snprintf(title, sizeof(title), "%s: %s", name, what);
	/* The capture's name is the input's: single-quoted, where gnuplot
	 * runs no `command` and expands no @macro (escape.h). */
	fputs("title = ", v);
	wc_escape_gnuplot(v, title);
	fputs("\n", v);
	return v;
}

/* Writes capture figure k's script from vars. */
static int fig_script(struct wc_chart_capture *c, enum wc_chart k, FILE *vars,
		      char **buf, struct wc_plot *p, struct wc_outdir *d,
		      struct wc_err *err)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "%s/%s.gp", c->dir, charts[k].name);
	if (vars_script(p, d, rel, charts[k].name, vars, buf, err) < 0)
		return -1;
	c->drawn[k] = true;
	return 0;
}

/* The categories with a heat map's cells, and the latency axis of each
 * (its cells' span, at least two decades about their middle, so that a
 * panel of one bin still has tics), as gnuplot word lists. */
static void heat_cats(FILE *v, const struct wc_figdata *fd)
{
	static const char *const list[3] = { "hcats", "ylo", "yhi" };
	char num[GP_NUM];
	int k, l, n;

	for (l = 0; l < 3; l++) {
		fprintf(v, "%s = \"", list[l]);
		for (k = 0, n = 0; k < WC_NCAT; k++) {
			double lo = fd->lat_lo[k], hi = fd->lat_hi[k], mid;

			if (!fd->nlat_cells[k])
				continue;
			mid = sqrt(lo * hi);
			if (hi < 100 * lo) {
				lo = lo < mid / 10 ? lo : mid / 10;
				hi = hi > mid * 10 ? hi : mid * 10;
			}
			if (n++)
				fputs(" ", v);
			if (l == 0)
				fprintf(v, "%d", k);
			else
				fputs(gp_num(num, l == 1 ? lo : hi), v);
		}
		fputs("\"\n", v);
	}
}

/* The heat maps' figures: time across from 0 to xmax, as the other
 * figures of time, widened to the columns' span (aligned on the trace
 * clock, the first may begin before 0): a panel whose cells all fell
 * outside gnuplot's x range would fail its plot. */
static int heat_figures(struct wc_chart_capture *c, const char *name,
			const struct wc_figdata *fd, double xmax,
			struct wc_plot *p, struct wc_outdir *d,
			struct wc_err *err)
{
	double xmin = fd->heat_from_s < 0 ? fd->heat_from_s : 0;
	char n1[GP_NUM], n2[GP_NUM], n3[GP_NUM];
	char *buf = NULL;
	size_t blen, npanels = 0;
	FILE *v;
	int k;

	if (fd->heat_to_s > xmax)
		xmax = fd->heat_to_s;
	for (k = 0; k < WC_NCAT; k++)
		npanels += fd->nlat_cells[k] != 0;
	if (!npanels) {
		c->why[WC_CHART_HEAT_LATENCY] = "no request with both D and C";
	} else {
		c->height[WC_CHART_HEAT_LATENCY] = HEAT_TOP_PX +
			HEAT_PANEL_PX * (int)npanels;
		v = fig_vars(WC_CHART_HEAT_LATENCY, name, "D2C latency over time",
			     &buf, &blen);
		if (!v)
			return nomem(err);
		fprintf(v, "formats = \"png\"\ndatafile = \"heatmap-latency.dat\"\n"
			"bandfile = \"heatmap-band.dat\"\nxmin = %s\n"
			"xmax = %s\ncmax = %u\nheight = %d\n", gp_num(n1, xmin),
			gp_num(n2, xmax),
			fd->lat_max, c->height[WC_CHART_HEAT_LATENCY]);
		heat_cats(v, fd);
		if (fig_script(c, WC_CHART_HEAT_LATENCY, v, &buf, p, d, err) < 0)
			return -1;
	}
	if (!fd->nsec_cells) {
		c->why[WC_CHART_HEAT_SECTOR] = "no request with a sector";
	} else {
		v = fig_vars(WC_CHART_HEAT_SECTOR, name, "requests by sector over "
			     "time", &buf, &blen);
		if (!v)
			return nomem(err);
		fprintf(v, "formats = \"png\"\ndatafile = \"heatmap-sector.dat\"\n"
			"xmin = %s\nxmax = %s\nymax = %s\ncmax = %u\n",
			gp_num(n1, xmin), gp_num(n2, xmax),
			gp_num(n3, fd->sec_top), fd->sec_max);
		if (fig_script(c, WC_CHART_HEAT_SECTOR, v, &buf, p, d, err) < 0)
			return -1;
	}
	return 0;
}

int wc_chart_capture(struct wc_chart_capture *c, const struct wc_sum_capture *sc,
		     const struct wc_figdata *fd, struct wc_plot *p,
		     struct wc_outdir *d, struct wc_err *err)
{
	const struct wc_sum_figs *main = &sc->figs;
	const char *name = sc->meta->name;
	double xmax = main->io ? wc_secs(main->wall_ns) : 0;
	char cats[64], lcats[64], lcount[256], scats[64];
	char n1[GP_NUM], n2[GP_NUM];
	size_t len = 0, clen = 0, blen;
	char *buf = NULL;
	FILE *v;
	int k;

	for (k = 0; k < WC_NCHARTS; k++)
		c->svg[k] = true;
	if (fd->ncols && (!main->io || fd->end_s < xmax * 1.02))
		xmax = xmax > fd->end_s ? xmax : fd->end_s;
	if (xmax <= 0)
		xmax = 1e-3;
	/* A capture shorter than half the least bin (1 µs) has its one bin's
	 * point past its end: gnuplot then finds no point in the range ("all
	 * points y value undefined") and fails the bundle.  At least one
	 * bin is drawn. */
	if (fd->ncols && xmax < fd->bin_s)
		xmax = fd->bin_s;
	cat_list(cats, sizeof(cats), main->io ? main : NULL);

	if (write_timeline(d, c, fd, err) < 0 ||
	    write_scatter(d, c, fd, err) < 0 ||
	    write_latency(d, c, fd, err) < 0 ||
	    write_heat_latency(d, c, fd, err) < 0 ||
	    write_heat_sector(d, c, fd, err) < 0 ||
	    write_phases(d, c, sc, err) < 0 ||
	    keep_curve(c, fd, err) < 0)
		return -1;
	c->scatter_requests = fd->scatter_requests;
	c->points = fd->points;
	c->svg[WC_CHART_SCATTER] = c->points <= WC_CHART_SVG_MAX_POINTS;
	if (!c->svg[WC_CHART_SCATTER])
		c->nosvg[WC_CHART_SCATTER] = "too many points for a browser";
	/* A heat map's SVG is a box a cell and a colour box of hundreds a
	 * panel: 100 to 200 KB a capture that the PNG shows as well. */
	c->svg[WC_CHART_HEAT_LATENCY] = c->svg[WC_CHART_HEAT_SECTOR] = false;
	c->nosvg[WC_CHART_HEAT_LATENCY] = c->nosvg[WC_CHART_HEAT_SECTOR] =
		"PNG only, to keep the bundle small";

	scats[0] = '\0';
	for (k = 0; k < WC_NCAT; k++)
		if (fd->present & (1u << k))
			len += (size_t)snprintf(scats + len, sizeof(scats) - len,
						"%s%d", len ? " " : "", k);
	lcats[0] = '\0';
	len = 0;
	for (k = 0; k < WC_NCAT; k++) {
		clen += (size_t)snprintf(lcount + clen, sizeof(lcount) - clen,
					 "%s%llu", k ? " " : "",
					 (unsigned long long)fd->lat_n[k]);
		if (fd->lat_n[k])
			len += (size_t)snprintf(lcats + len, sizeof(lcats) - len,
						"%s%d", len ? " " : "", k);
	}

	if (c->scatter_requests == 0 && fd->flushes == 0) {
		c->why[WC_CHART_SCATTER] = "no request with a sector and no flush";
	} else {
		char note[256];

		v = fig_vars(WC_CHART_SCATTER, name, "sector over time", &buf, &blen);
		if (!v)
			return nomem(err);
		if (c->points < c->scatter_requests)
			snprintf(note, sizeof(note), "%llu requests drawn as %llu "
				 "points: requests of one category in one pixel "
				 "are merged", (unsigned long long)c->scatter_requests,
				 (unsigned long long)c->points);
		else
			snprintf(note, sizeof(note), "%llu requests, one point each",
				 (unsigned long long)c->scatter_requests);
		fputs("note = ", v);
		wc_escape_gnuplot(v, note);
		if (!c->svg[WC_CHART_SCATTER])
			fprintf(v, "\n# Too many points for an SVG a browser can draw.\n"
				"formats = \"png\"");
		/* Few points must stay visible; many must not hide each other. */
		fprintf(v, "\ndatafile = \"scatter.dat\"\nscats = \"%s\"\n"
			"has_flush = %d\nps = %.2f\nxmax = %s\nymax = %s\n",
			scats, fd->any_flush, c->points < 2000 ? 0.8 : 0.35,
			gp_num(n1, xmax), gp_num(n2, fd->scatter_top));
		if (fig_script(c, WC_CHART_SCATTER, v, &buf, p, d, err) < 0)
			return -1;
	}

	if (fd->ncols == 0 || !cats[0]) {
		c->why[WC_CHART_THROUGHPUT] = c->why[WC_CHART_FLUSHES] =
			c->why[WC_CHART_QUEUE] = "no completed request";
	} else {
		v = fig_vars(WC_CHART_THROUGHPUT, name, "throughput and IOPS",
			     &buf, &blen);
		if (!v)
			return nomem(err);
		fprintf(v, "datafile = \"timeline.dat\"\ncats = \"%s\"\n"
			"xmax = %s\nbin_ms = %s\n", cats, gp_num(n1, xmax),
			gp_num(n2, fd->row_ms));
		if (fig_script(c, WC_CHART_THROUGHPUT, v, &buf, p, d, err) < 0)
			return -1;

		v = fig_vars(WC_CHART_FLUSHES, name, "cache flushes", &buf, &blen);
		if (!v)
			return nomem(err);
		fprintf(v, "datafile = \"timeline.dat\"\nxmax = %s\n"
			"flushes = %llu\nflush_s = %.9f\nflush_bin_s = %s\n",
			gp_num(n1, xmax), (unsigned long long)fd->flushes,
			wc_secs(fd->flush_ns), gp_num(n2, fd->flush_bin_s));
		if (fig_script(c, WC_CHART_FLUSHES, v, &buf, p, d, err) < 0)
			return -1;

		v = fig_vars(WC_CHART_QUEUE, name, "queue depth", &buf, &blen);
		if (!v)
			return nomem(err);
		fprintf(v, "datafile = \"timeline.dat\"\nxmax = %s\n"
			"bin_ms = %s\n", gp_num(n1, xmax), gp_num(n2, fd->row_ms));
		if (fig_script(c, WC_CHART_QUEUE, v, &buf, p, d, err) < 0)
			return -1;
	}

	if (!lcats[0]) {
		c->why[WC_CHART_LATENCY] = "no request with both D and C";
	} else {
		v = fig_vars(WC_CHART_LATENCY, name, "D2C latency", &buf, &blen);
		if (!v)
			return nomem(err);
		fprintf(v, "datafile = \"latency.dat\"\nlcats = \"%s\"\n"
			"lcount = \"%s\"\n", lcats, lcount);
		if (fig_script(c, WC_CHART_LATENCY, v, &buf, p, d, err) < 0)
			return -1;
	}
	if (heat_figures(c, name, fd, xmax, p, d, err) < 0)
		return -1;

	if (!main->io || main->wall_ns == 0 || !cats[0]) {
		c->why[WC_CHART_PHASES] = "an empty window";
	} else {
		v = fig_vars(WC_CHART_PHASES, name, "where the time went, by phase",
			     &buf, &blen);
		if (!v)
			return nomem(err);
		/* The drive's destage of no request stacks as part 7,
		 * column 10. */
		fprintf(v, "datafile = \"phases.dat\"\ncats = \"%s%s\"\n"
			"ndestage = %d\n", cats,
			main->part_ns[WC_PART_INTERNAL] ? " 7" : "",
			main->internal_known ? 1 : 0);
		if (fig_script(c, WC_CHART_PHASES, v, &buf, p, d, err) < 0)
			return -1;
	}
	return 0;
}
void wc_chart_capture_clear(struct wc_chart_capture *c)
{
	if (!c)
		return;
	free(c->curve);
	c->curve = NULL;
	c->ncurve = 0;
}

/* ---- across captures --------------------------------------------------- */

/* The four label columns of a capture in the comparison .dat files. */
static void cap_label(FILE *f, const struct wc_chart_capture *c,
		      const struct wc_sum_capture *sc)
{
	const struct wc_capture_meta *m = sc->meta;
	char fs[40], disk[40];

	wc_outdir_safe_name(m->fs[0] ? m->fs : "?", fs, sizeof(fs));
	if (!m->fs[0])
		strcpy(fs, "fs?");
	/* The disk, so that bars of one configuration on two disks differ. */
	wc_outdir_safe_name(wc_summary_disk_name(sc), disk, sizeof(disk));
	fprintf(f, "\"%s\" \"%s\" \"%s\" \"%s\" \"%s\"", c->dir, fs,
		wc_onoff(m->write_cache), wc_onoff(m->barrier), disk);
}

/* Opens compare-K.dat, the data of figure k across captures. */
static FILE *cmp_dat(struct wc_outdir *d, enum wc_cmp k, char *rel, size_t size,
		     struct wc_err *err)
{
	snprintf(rel, size, "%s.dat", cmp_charts[k].name);
	return wc_outdir_create(d, rel, err);
}

/* Opens the variables of figure k across captures with its output,
 * title and data file. */
static FILE *cmp_vars(enum wc_cmp k, const char *title, char **buf, size_t *blen)
{
	FILE *v = vars_open(buf, blen);

	if (v)
		fprintf(v, "out = \"%s\"\ntitle = \"%s\"\ndatafile = \"%s.dat\"\n",
			cmp_charts[k].name, title, cmp_charts[k].name);
	return v;
}

/* Writes the script of figure k across captures. */
static int cmp_script(enum wc_cmp k, FILE *vars, char **buf, bool *drawn,
		      struct wc_plot *p, struct wc_outdir *d, struct wc_err *err)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%s.gp", cmp_charts[k].name);
	if (vars_script(p, d, rel, cmp_charts[k].name, vars, buf, err) < 0)
		return -1;
	drawn[k] = true;
	return 0;
}

/* Writes panels ("FIRST LAST" group indexes, each panel), ptitleN (its
 * disk and groups, single-quoted), npanels, and the figure's size. */
static void panel_vars(FILE *v, enum wc_cmp k, const struct wc_summary *s)
{
	struct wc_chart_info fi = wc_chart_cmp_info(k, s);
	char title[128], disk[40];
	size_t g, first = 0, n = 0;

	fputs("panels = \"", v);
	for (g = 0; g < s->ngroups; g++) {
		if (!panel_ends(s, first, g))
			continue;
		if (panel_drawn(k, s, first, g))
			fprintf(v, "%s%zu %zu", n++ ? " " : "", first, g);
		first = g + 1;
	}
	fputs("\"\n", v);
	first = 0;
	n = 0;
	for (g = 0; g < s->ngroups; g++) {
		const char *m = s->groups[g].disk_name;

		if (!panel_ends(s, first, g))
			continue;
		if (!panel_drawn(k, s, first, g)) {
			first = g + 1;
			continue;
		}
		wc_outdir_safe_name(m, disk, sizeof(disk));
		if (first == g)
			snprintf(title, sizeof(title), "disk %s: #%zu", disk, g + 1);
		else
			snprintf(title, sizeof(title), "disk %s: #%zu to #%zu",
				 disk, first + 1, g + 1);
		fprintf(v, "ptitle%zu = ", ++n);
		wc_escape_gnuplot(v, title);
		fputs("\n", v);
		first = g + 1;
	}
	fprintf(v, "npanels = %zu\nwidth = %d\nheight = %d\n", n, fi.width,
		fi.height);
}

/* The categories (or with idle, parts) with time in any group, as a
 * gnuplot word list: only those get a legend entry. */
static void group_parts(char *buf, size_t size, const struct wc_summary *s,
			bool diff, int nparts)
{
	size_t len = 0, g;
	int k;

	buf[0] = '\0';
	for (k = 0; k < nparts; k++) {
		bool any = false;

		for (g = 0; g < s->ngroups && !any; g++)
			any = diff ? s->groups[g].diff.part_ns[k] != 0 :
				     s->groups[g].mean_part_ns[k] != 0;
		if (any)
			len += (size_t)snprintf(buf + len, size - len, "%s%d",
						len ? " " : "", k);
	}
}

/* Busy time by category per group: the mean of its runs, their range. */
static int compare_time(const struct wc_chart_capture *c,
			const struct wc_summary *s, bool *drawn,
			struct wc_plot *p, struct wc_outdir *d, double *xmax,
			struct wc_err *err)
{
	char cats[64], rel[64], *buf = NULL;
	size_t g, i, blen;
	bool destage = false;
	FILE *f, *v;
	int k;

	*xmax = 1e-3;
	for (i = 0; i < s->ncaps; i++)
		if (s->caps[i].figs.io && s->caps[i].figs.col[WC_COL_WALL] > *xmax)
			*xmax = s->caps[i].figs.col[WC_COL_WALL];
	f = cmp_dat(d, WC_CMP_TIME, rel, sizeof(rel), err);
	if (!f)
		return -1;
	fputs("# compare-time.dat - time by category per group of runs, main "
	      "device, means of the runs (docs/bundle.md)\n# 1 first capture "
	      "2 fs 3 write_cache 4 barriers 5 disk 6 idle_s, 7-13 seconds per "
	      "category (flush journal metadata data_read data_write discard "
	      "other), 14 runs 15 lowest 16 highest run's busy s 17 mean wall s, "
	      "18 the drive's destage of no request s (with a ledger)\n", f);
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];
		const struct wc_stat *busy = &gr->col[WC_COL_BUSY];
		size_t first = gr->members[0];

		cap_label(f, &c[first], &s->caps[first]);
		fprintf(f, " %.9f", (double)gr->mean_part_ns[WC_PART_IDLE] / 1e9);
		for (k = 0; k < WC_NCAT; k++)
			fprintf(f, " %.9f", (double)gr->mean_part_ns[k] / 1e9);
		fprintf(f, " %zu %.9f %.9f %.9f", gr->n,
			busy->n ? busy->min : 0.0, busy->n ? busy->max : 0.0,
			gr->col[WC_COL_WALL].n ? gr->col[WC_COL_WALL].mean : 0.0);
		if (s->internal)
			fprintf(f, " %.9f",
				(double)gr->mean_part_ns[WC_PART_INTERNAL] / 1e9);
		if (gr->mean_part_ns[WC_PART_INTERNAL])
			destage = true;
		fputc('\n', f);
	}
	if (wc_outdir_commit(d, f, rel, err) < 0)
		return -1;
	group_parts(cats, sizeof(cats), s, false, WC_NCAT);
	if (!cats[0])
		return 0;
	v = cmp_vars(WC_CMP_TIME, "where the time went: busy time of the main "
		     "device by category,\\nmean of each configuration's runs, "
		     "the bar through its top their range", &buf, &blen);
	if (!v)
		return nomem(err);
	/* The drive's destage of no request stacks as part 7, column 18. */
	fprintf(v, "cats = \"%s%s\"\nncap = %zu\nndestage = %d\n", cats,
		destage ? " 7" : "", s->ngroups, s->internal ? 1 : 0);
	panel_vars(v, WC_CMP_TIME, s);
	return cmp_script(WC_CMP_TIME, v, &buf, drawn, p, d, err);
}

/* Wall time per phase and group: the union of the phase names, in order
 * of first appearance; the mean of the runs that have the phase and
 * their range; the runs with phases.tsv, so that a group without keeps
 * its place in its panel and says why it has no bar. */
static int compare_phases(const struct wc_chart_capture *c,
			  const struct wc_summary *s, bool *drawn,
			  struct wc_plot *p, struct wc_outdir *d,
			  struct wc_err *err)
{
	const char *names[MAX_PHASE_NAMES];
	char plist[MAX_PHASE_NAMES * (WC_OUTDIR_NAME_MAX + 1) + 1], rel[64];
	char n[WC_OUTDIR_NAME_MAX + 1], *buf = NULL;
	size_t i, ph, j, g, nnames = 0, len = 0, blen;
	FILE *f, *v;

	for (i = 0; i < s->ncaps; i++) {
		for (ph = 0; ph < s->caps[i].nphases; ph++) {
			const char *name = s->caps[i].phases[ph].name;

			for (j = 0; j < nnames && strcmp(names[j], name); j++)
				;
			if (j == nnames && nnames < MAX_PHASE_NAMES)
				names[nnames++] = name;
		}
	}
	if (!nnames)
		return 0;
	f = cmp_dat(d, WC_CMP_PHASES, rel, sizeof(rel), err);
	if (!f)
		return -1;
	plist[0] = '\0';
	for (j = 0; j < nnames; j++) {
		wc_outdir_safe_name(names[j], n, sizeof(n));
		len += (size_t)snprintf(plist + len, sizeof(plist) - len,
					"%s%s", j ? " " : "", n);
	}
	fprintf(f, "# compare-phases.dat - wall time per phase and group of "
		"runs (docs/bundle.md)\n# 1 first capture 2 fs 3 write_cache "
		"4 barriers 5 disk, then per phase (%s) the mean, lowest and "
		"highest run's seconds (NaN: no run has it), last the runs "
		"with phases.tsv\n", plist);
	for (g = 0; g < s->ngroups; g++) {
		size_t first = s->groups[g].members[0];

		cap_label(f, &c[first], &s->caps[first]);
		for (j = 0; j < nnames; j++) {
			struct wc_stat w;

			wc_summary_group_phase_wall(s, g, names[j], &w);
			if (w.n)
				fprintf(f, " %.9f %.9f %.9f", w.mean, w.min, w.max);
			else
				fputs(" NaN NaN NaN", f);
		}
		fprintf(f, " %zu\n", s->groups[g].phased);
	}
	if (wc_outdir_commit(d, f, rel, err) < 0)
		return -1;
	v = cmp_vars(WC_CMP_PHASES, "wall time of each phase: mean of each "
		     "configuration's runs, with their range", &buf, &blen);
	if (!v)
		return nomem(err);
	fputs("phases = ", v);
	wc_escape_gnuplot(v, plist);
	fprintf(v, "\nncap = %zu\n", s->ngroups);
	panel_vars(v, WC_CMP_PHASES, s);
	return cmp_script(WC_CMP_PHASES, v, &buf, drawn, p, d, err);
}

/* Throughput curves: a panel a group, its runs overlaid.  The .dat has a
 * block a capture, in input order; gN lists group N's blocks. */
static int compare_throughput(const struct wc_chart_capture *c,
			      const struct wc_summary *s, double xmax,
			      bool *drawn, struct wc_plot *p,
			      struct wc_outdir *d, struct wc_err *err)
{
	char rel[64], title[160], fs[40], disk[40], num[GP_NUM], *buf = NULL;
	struct wc_chart_info fi;
	size_t i, j, g, blen, cols;
	FILE *f, *v;

	f = cmp_dat(d, WC_CMP_THROUGHPUT, rel, sizeof(rel), err);
	if (!f)
		return -1;
	fputs("# compare-throughput.dat - total MB/s over time, one block per "
	      "capture in order (docs/bundle.md)\n# 1 time_s 2 MB/s\n", f);
	for (i = 0; i < s->ncaps; i++) {
		fprintf(f, "# %s\n", c[i].dir);
		if (c[i].ncurve == 0)
			fputs("0 NaN\n", f);
		for (j = 0; j < c[i].ncurve; j++)
			fprintf(f, "%.6f %.6g\n", c[i].curve[j].t, c[i].curve[j].mbps);
		fputs("\n\n", f);
	}
	if (wc_outdir_commit(d, f, rel, err) < 0)
		return -1;
	v = cmp_vars(WC_CMP_THROUGHPUT, "throughput of the main device: a "
		     "panel a configuration, its runs overlaid", &buf, &blen);
	if (!v)
		return nomem(err);
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];
		const struct wc_capture_meta *m = s->caps[gr->members[0]].meta;

		fprintf(v, "g%zu = \"", g + 1);
		for (j = 0; j < gr->n; j++)
			fprintf(v, "%s%zu", j ? " " : "", gr->members[j]);
		fputs("\"\n", v);
		if (m->fs[0])
			wc_outdir_safe_name(m->fs, fs, sizeof(fs));
		else
			strcpy(fs, "fs?");
		wc_outdir_safe_name(gr->disk_name, disk, sizeof(disk));
		snprintf(title, sizeof(title), "#%zu %s cache %s barriers %s %s",
			 g + 1, fs, wc_onoff(m->write_cache),
			 wc_onoff(m->barrier), disk);
		fprintf(v, "t%zu = ", g + 1);
		wc_escape_gnuplot(v, title);
		fputs("\n", v);
	}
	fi = wc_chart_cmp_info(WC_CMP_THROUGHPUT, s);
	cols = s->ngroups < 4 ? s->ngroups : 4;
	fprintf(v, "ngroups = %zu\ncols = %zu\nrows = %zu\nxmax = %s\n"
		"width = %d\nheight = %d\n", s->ngroups, cols,
		(s->ngroups + cols - 1) / cols, gp_num(num, xmax), fi.width,
		fi.height);
	return cmp_script(WC_CMP_THROUGHPUT, v, &buf, drawn, p, d, err);
}

/* The role of group g in the difference figure: "baseline" for a
 * baseline group, "other-disk" when compared with a named baseline on
 * another disk, else "-". */
static const char *diff_role(const struct wc_summary *s, size_t g)
{
	const struct wc_sum_group *gr = &s->groups[g];

	return g == gr->base ? "baseline" : gr->cross_disk ? "other-disk" : "-";
}

/* The parts of a difference as seconds, not ending the line; *flat
 * becomes false when one is not zero. */
static void diff_parts(FILE *f, const struct wc_sum_diff *df, bool *flat)
{
	int k;

	/* Up to idle; the drive's destage of no request goes last. */
	for (k = 0; k <= WC_PART_IDLE; k++) {
		fprintf(f, " %.9f", (double)df->part_ns[k] / 1e9);
		if (df->part_ns[k])
			*flat = false;
	}
}

static const char *verdict_word(enum wc_verdict v)
{
	switch (v) {
	case WC_VERDICT_BASELINE: return "baseline";
	case WC_VERDICT_REAL: return "real";
	case WC_VERDICT_BOUNDED: return "bounded";
	default: return "undecided";
	}
}

/*
 * compare-configs.dat: per configuration (run group), the mean of its
 * runs' differences against its baseline group, split into parts, and
 * the range of its runs' wall differences: with three runs of twenty
 * configurations a bar a capture is 60 bars, and the spread that decides
 * the verdict is not in the figure.
 */
static int compare_configs(const struct wc_chart_capture *c,
			   const struct wc_summary *s, bool *drawn,
			   struct wc_plot *p, struct wc_outdir *d,
			   struct wc_err *err)
{
	char rel[64], parts[64], *buf = NULL;
	size_t g, blen;
	bool flat = true;
	FILE *f, *v;

	f = cmp_dat(d, WC_CMP_CONFIGS, rel, sizeof(rel), err);
	if (!f)
		return -1;
	fputs("# compare-configs.dat - each configuration's mean wall-time "
	      "difference against its baseline, its parts and its runs' "
	      "range, seconds (docs/bundle.md)\n"
	      "# 1 first capture 2 fs 3 write_cache 4 barriers 5 disk 6 role "
	      "(baseline, other-disk or -) 7 runs 8 verdict on device time "
	      "(baseline real bounded undecided) 9 mean wall difference 10 lowest "
	      "11 highest run's wall difference, 12-19 flush journal metadata "
	      "data_read data_write discard other off_device, 20 the wall's "
	      "verdict, 21 destage_no_request (when a capture has a ledger)\n",
	      f);
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];
		const struct wc_stat *w = &gr->col[WC_COL_WALL];
		double mean = (double)gr->diff.wall_ns / 1e9;
		size_t first = gr->members[0];

		cap_label(f, &c[first], &s->caps[first]);
		/* A run's wall difference is its wall minus the baseline's
		 * mean: the group's mean difference moved by the run's
		 * distance from the group's mean. */
		fprintf(f, " \"%s\" %zu \"%s\" %.9f %.9f %.9f",
			diff_role(s, g), gr->n, verdict_word(gr->verdict), mean,
			w->n ? mean + (w->min - w->mean) : mean,
			w->n ? mean + (w->max - w->mean) : mean);
		if (w->n && w->max > w->min)
			flat = false;
		diff_parts(f, &gr->diff, &flat);
		fprintf(f, " \"%s\"", verdict_word(gr->wall_verdict));
		/* The drive's destage of no request: after the columns that
		 * were there before it. */
		if (s->internal) {
			fprintf(f, " %.9f",
				(double)gr->diff.part_ns[WC_PART_INTERNAL] / 1e9);
			if (gr->diff.part_ns[WC_PART_INTERNAL])
				flat = false;
		}
		fputc('\n', f);
	}
	if (wc_outdir_commit(d, f, rel, err) < 0)
		return -1;
	v = cmp_vars(WC_CMP_CONFIGS, s->named_baseline || s->nsets < 2 ?
		     "what each category added (up) or saved (down) against "
		     "the baseline,\\nmean of each configuration's runs, the "
		     "bar through the dot their range" : "what each category "
		     "added (up) or saved (down) against the fastest "
		     "configuration on the same disk,\\nmean of each "
		     "configuration's runs, the bar through the dot their range",
		     &buf, &blen);
	if (!v)
		return nomem(err);
	group_parts(parts, sizeof(parts), s, true,
		    s->internal ? WC_NPARTS : WC_PART_IDLE + 1);
	fprintf(v, "ncap = %zu\nflat = %d\nparts = \"%s\"\n", s->ngroups,
		flat, parts[0] ? parts : "0");
	panel_vars(v, WC_CMP_CONFIGS, s);
	return cmp_script(WC_CMP_CONFIGS, v, &buf, drawn, p, d, err);
}

int wc_chart_across(const struct wc_chart_capture *c, const struct wc_summary *s,
		    bool drawn[WC_NCMP], struct wc_plot *p, struct wc_outdir *d,
		    struct wc_err *err)
{
	double xmax;
	int k;

	for (k = 0; k < WC_NCMP; k++)
		drawn[k] = false;
	if (s->ncaps > 1 &&
	    (compare_time(c, s, drawn, p, d, &xmax, err) < 0 ||
	     compare_phases(c, s, drawn, p, d, err) < 0 ||
	     compare_throughput(c, s, xmax, drawn, p, d, err) < 0))
		return -1;
	if (s->has_diff && compare_configs(c, s, drawn, p, d, err) < 0)
		return -1;
	return 0;
}
