#include "summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const col_key[WC_NCOLS] = {
	"wall", "busy", "flush", "journal", "metadata", "positioning", "data",
};

static const char *const part_label[WC_NPARTS] = {
	"flush", "journal", "metadata", "data read", "data write", "discard",
	"other device time", "time off the device",
};

static const char *const kind_name[] = {
	[WC_FIND_MOST_TIME] = "most_time",
	[WC_FIND_DEVICE_IDLE] = "device_idle",
	[WC_FIND_FLUSHES] = "flushes",
	[WC_FIND_DIFFERENCE] = "difference",
};

static const char *const meas_key[WC_NMEAS] = {
	[WC_MEAS_BUSY] = "busy", [WC_MEAS_POSITIONING] = "positioning",
	[WC_MEAS_TRANSFER] = "transfer", [WC_MEAS_OFF_DEVICE] = "off_device",
	[WC_MEAS_WALL] = "wall",
};

static const char *const meas_label[WC_NMEAS] = {
	[WC_MEAS_BUSY] = "the device's busy time",
	[WC_MEAS_POSITIONING] = "positioning",
	[WC_MEAS_TRANSFER] = "transfer",
	[WC_MEAS_OFF_DEVICE] = "time off the device",
	[WC_MEAS_WALL] = "the wall",
};

const char *wc_meas_key(int m)
{
	if (m >= 0 && m < WC_NCAT)
		return wc_cat_name((enum wc_cat)m);
	return m >= 0 && m < WC_NMEAS ? meas_key[m] : "?";
}

const char *wc_meas_label(int m)
{
	if (m >= 0 && m < WC_NCAT)
		return part_label[m];
	return m >= 0 && m < WC_NMEAS ? meas_label[m] : "?";
}

const char *wc_verdict_key(enum wc_verdict v)
{
	switch (v) {
	case WC_VERDICT_BASELINE: return "baseline";
	case WC_VERDICT_REAL: return "real";
	case WC_VERDICT_NOISE: return "within_noise";
	case WC_VERDICT_TOO_FEW: return "too_few_runs";
	}
	return "?";
}

const char *wc_verdict_label(enum wc_verdict v)
{
	switch (v) {
	case WC_VERDICT_BASELINE: return "baseline";
	case WC_VERDICT_REAL: return "real";
	case WC_VERDICT_NOISE: return "within noise";
	case WC_VERDICT_TOO_FEW: return "too few runs to tell";
	}
	return "?";
}

const char *wc_col_key(enum wc_col c)
{
	return (unsigned)c < WC_NCOLS ? col_key[c] : "?";
}

const char *wc_part_key(int part)
{
	if (part == WC_PART_IDLE)
		return "off_device";
	return wc_cat_name((enum wc_cat)part);
}

const char *wc_part_label(int part)
{
	return part >= 0 && part < WC_NPARTS ? part_label[part] : "?";
}

const char *wc_finding_kind_name(enum wc_finding_kind k)
{
	return (unsigned)k <= WC_FIND_DIFFERENCE ? kind_name[k] : "?";
}

const char *wc_onoff(int v)
{
	return v == 1 ? "on" : v == 0 ? "off" : "?";
}

static double secs(uint64_t ns)
{
	return wc_secs(ns);
}

static double ssecs(int64_t ns)
{
	return (double)ns / 1e9;
}

/* ---- one capture ------------------------------------------------------- */

/* g may be NULL: nothing completed in the window, all of it idle. */
/* part of whole in %, 0 of nothing. */
static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The shares of the parts, once the parts are in. */
static void shares_of(struct wc_sum_figs *s)
{
	int k;

	for (k = 0; k < WC_NPARTS; k++)
		s->share[k] = pct(s->part_ns[k], s->wall_ns);
	s->busy_pct = pct(s->wall_ns - s->part_ns[WC_PART_IDLE], s->wall_ns);
}

static void figs_of(struct wc_sum_figs *s, const struct wc_figures *g,
		    uint64_t wall_ns)
{
	uint64_t data;
	int c;

	memset(s, 0, sizeof(*s));
	s->io = g != NULL;
	if (!g) {
		s->wall_ns = wall_ns;
		s->part_ns[WC_PART_IDLE] = wall_ns;
		s->col[WC_COL_WALL] = secs(wall_ns);
		s->col[WC_COL_POSITIONING] = -1;
		shares_of(s);
		return;
	}
	s->start_ns = g->start;
	s->wall_ns = g->window_ns;
	for (c = 0; c < WC_NCAT; c++) {
		s->part_ns[c] = g->time_ns[c];
		s->requests[c] = g->requests[c];
		s->bytes[c] = g->bytes[c];
		s->all_requests += g->requests[c];
		s->all_bytes += g->bytes[c];
	}
	s->part_ns[WC_PART_IDLE] = g->idle_ns;
	data = g->time_ns[WC_CAT_DATA_READ] + g->time_ns[WC_CAT_DATA_WRITE];
	s->col[WC_COL_WALL] = secs(g->window_ns);
	s->col[WC_COL_BUSY] = secs(wc_figures_busy(g));
	s->col[WC_COL_FLUSH] = secs(g->time_ns[WC_CAT_FLUSH]);
	s->col[WC_COL_JOURNAL] = secs(g->time_ns[WC_CAT_JOURNAL]);
	s->col[WC_COL_METADATA] = secs(g->time_ns[WC_CAT_METADATA]);
	s->col[WC_COL_POSITIONING] = g->positioning_known ?
				     secs(g->positioning_ns) : -1;
	s->col[WC_COL_DATA] = secs(data);
	shares_of(s);
}

static void device_of(struct wc_sum_device *d, const struct wc_account *ac,
		      size_t i, const struct wc_capture_meta *m)
{
	const struct wc_figures *g = wc_account_device(ac, i);
	size_t j;

	d->device = g->device;
	d->raw = g;
	for (j = 0; j < m->ndevices; j++)
		if (m->devices[j].device == g->device && m->devices[j].name[0])
			d->name = m->devices[j].name;
	figs_of(&d->figs, g, 0);
	d->media_rate = wc_account_media_rate(ac, i, &d->media_rate_estimated);
	d->queue_mean = g->window_ns ?
			(double)g->inflight_ns / (double)g->window_ns : 0;
	d->seek_pct = pct(g->seeks, g->seek_candidates);
}

static void btt_of(struct wc_sum_btt *s, const struct wc_btt *b)
{
	if (!b)
		return;
	s->on = true;
	s->q2c = *wc_btt_q2c(b);
	s->d2c = *wc_btt_d2c(b);
	s->q2c_mean_s = wc_btt_mean_s(&s->q2c);
	s->d2c_mean_s = wc_btt_mean_s(&s->d2c);
	s->forgotten = wc_btt_dropped(b);
	s->ignored = wc_btt_ignored(b);
}

/* The account's devices and waits, the tracker's and btt's counts. */
static int fill_devices(struct wc_sum_capture *c, const struct wc_analysis *a)
{
	const struct wc_account *ac = wc_analysis_account(a);
	const struct wc_wait **w;
	const double *v = c->figs.col;
	double pos_all;
	size_t i;

	c->partial = wc_analysis_partial(a);
	c->missing = wc_analysis_main_missing(a);
	c->filter = wc_analysis_filter(a);
	c->tracking = wc_analysis_tracker_stats(a);
	btt_of(&c->btt, wc_analysis_btt(a));
	pos_all = v[WC_COL_JOURNAL] + v[WC_COL_METADATA] + v[WC_COL_DATA];
	c->positioning_pct = pos_all > 0 && v[WC_COL_POSITIONING] >= 0 ?
			     100 * v[WC_COL_POSITIONING] / pos_all : 0.0;
	c->ndevices = wc_account_ndevices(ac);
	if (c->ndevices) {
		c->devices = calloc(c->ndevices, sizeof(*c->devices));
		if (!c->devices)
			return -1;
	}
	for (i = 0; i < c->ndevices; i++)
		device_of(&c->devices[i], ac, i, c->meta);
	if (wc_analysis_main_index(a) >= 0)
		c->main = &c->devices[wc_analysis_main_index(a)];
	c->nwaits = wc_account_nwaits(ac);
	if (!c->nwaits)
		return 0;
	w = calloc(c->nwaits, sizeof(*w));
	if (!w)
		return -1;
	for (i = 0; i < c->nwaits; i++)
		w[i] = wc_account_wait(ac, i);
	c->waits = w;
	return 0;
}

/* A capture's measures (summary.h) from its figures. */
static void measures_of(struct wc_sum_capture *c)
{
	const struct wc_sum_figs *g = &c->figs;
	double jmd = g->col[WC_COL_JOURNAL] + g->col[WC_COL_METADATA] +
		     g->col[WC_COL_DATA];
	int k;

	for (k = 0; k < WC_NCAT; k++)
		c->meas[k] = secs(g->part_ns[k]);
	c->meas[WC_MEAS_BUSY] = secs(g->wall_ns - g->part_ns[WC_PART_IDLE]);
	c->meas[WC_MEAS_POSITIONING] = g->col[WC_COL_POSITIONING];
	c->meas[WC_MEAS_TRANSFER] = g->col[WC_COL_POSITIONING] < 0 ? -1 :
		jmd > g->col[WC_COL_POSITIONING] ?
		jmd - g->col[WC_COL_POSITIONING] : 0;
	c->meas[WC_MEAS_OFF_DEVICE] = secs(g->part_ns[WC_PART_IDLE]);
	c->meas[WC_MEAS_WALL] = secs(g->wall_ns);
}

static int fill_capture(struct wc_sum_capture *c, const struct wc_analysis *a)
{
	const struct wc_tracker_stats *st = wc_analysis_tracker_stats(a);
	size_t p;

	c->a = a;
	c->meta = wc_analysis_meta(a);
	figs_of(&c->figs, wc_analysis_main(a), st->first_time != WC_NO_TIME ?
		st->last_time - st->first_time : 0);
	measures_of(c);
	if (fill_devices(c, a) < 0)
		return -1;
	c->nphases = wc_analysis_nphases(a);
	if (!c->nphases)
		return 0;
	c->phases = calloc(c->nphases, sizeof(*c->phases));
	if (!c->phases)
		return -1;
	for (p = 0; p < c->nphases; p++) {
		const struct wc_phase_result *ph = wc_analysis_phase(a, p);

		c->phases[p].name = ph->name;
		c->phases[p].start_ns = ph->start;
		c->phases[p].end_ns = ph->end;
		c->phases[p].wall_s = ph->wall_s;
		figs_of(&c->phases[p].figs, wc_analysis_phase_figures(a, p),
			ph->end - ph->start);
	}
	return 0;
}

const char *wc_summary_base_name(const struct wc_summary *s, size_t g)
{
	if (!s->has_diff || g >= s->ngroups)
		return NULL;
	if (s->named_baseline)
		return s->named_baseline;
	return s->caps[s->groups[s->groups[g].base].members[0]].meta->name;
}

const struct wc_sum_phase *wc_summary_phase(const struct wc_sum_capture *c,
					    const char *name)
{
	size_t p;

	for (p = 0; p < c->nphases; p++)
		if (!strcmp(c->phases[p].name, name))
			return &c->phases[p];
	return NULL;
}

/* ---- groups ------------------------------------------------------------ */

static void stat_of(struct wc_stat *st, const double *v, size_t n)
{
	double sum = 0, ss = 0;
	size_t i, k = 0;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			continue;
		if (!k || v[i] < st->min)
			st->min = v[i];
		if (!k || v[i] > st->max)
			st->max = v[i];
		sum += v[i];
		k++;
	}
	st->n = k;
	if (!k) {
		st->mean = st->min = st->max = -1;
		return;
	}
	st->mean = sum / (double)k;
	for (i = 0; i < n; i++)
		if (v[i] >= 0)
			ss += (v[i] - st->mean) * (v[i] - st->mean);
	st->sd = k > 1 ? sqrt(ss / (double)(k - 1)) : 0;
}

/* Mean parts of the figures figs[0..n) in whole ns; the wall is their
 * sum, so that differences against it add up exactly. */
static uint64_t mean_parts(const struct wc_sum_figs *const *figs, size_t n,
			   uint64_t out[WC_NPARTS])
{
	uint64_t wall = 0;
	int p;

	for (p = 0; p < WC_NPARTS; p++) {
		double sum = 0;
		size_t i;

		for (i = 0; i < n; i++)
			sum += (double)figs[i]->part_ns[p];
		out[p] = n ? (uint64_t)llround(sum / (double)n) : 0;
		wall += out[p];
	}
	return wall;
}

/* Groups by configuration key; a capture without one is alone.  Every
 * group's members sit in one array, s->members, in input order. */
static int make_groups(struct wc_summary *s)
{
	size_t i, j, g, *at = NULL;
	double *v;

	s->groups = calloc(s->ncaps, sizeof(*s->groups));
	s->members = calloc(s->ncaps, sizeof(*s->members));
	at = calloc(s->ncaps, sizeof(*at));
	v = calloc(s->ncaps, sizeof(*v));
	if (!s->groups || !s->members || !at || !v)
		goto out;
	for (i = 0; i < s->ncaps; i++) {
		const char *key = s->caps[i].meta->config;

		for (g = 0, j = 0; key[0] && g < s->ngroups; g++) {
			/* The group's first capture is the one before it
			 * with the same key. */
			for (j = 0; j < i; j++)
				if (s->caps[j].group == g)
					break;
			if (!strcmp(s->caps[j].meta->config, key))
				break;
		}
		if (!key[0] || g == s->ngroups)
			g = s->ngroups++;
		s->caps[i].group = g;
		s->groups[g].n++;
	}
	for (g = 0, j = 0; g < s->ngroups; g++) {
		s->groups[g].members = s->members + j;
		at[g] = 0;
		j += s->groups[g].n;
	}
	for (i = 0; i < s->ncaps; i++) {
		g = s->caps[i].group;
		s->groups[g].members[at[g]++] = i;
	}
	for (g = 0; g < s->ngroups; g++) {
		struct wc_sum_group *gr = &s->groups[g];
		int c;

		gr->disk_model = s->caps[gr->members[0]].meta->disk_model;
		if (gr->n > 1)
			s->any_runs = true;
		for (c = 0; c < WC_NCOLS; c++) {
			for (j = 0; j < gr->n; j++)
				v[j] = s->caps[gr->members[j]].figs.col[c];
			stat_of(&gr->col[c], v, gr->n);
		}
		for (c = 0; c < WC_NPARTS; c++) {
			for (j = 0; j < gr->n; j++)
				v[j] = secs(s->caps[gr->members[j]].figs.part_ns[c]);
			stat_of(&gr->part[c], v, gr->n);
		}
		for (c = 0; c < WC_NMEAS; c++) {
			for (j = 0; j < gr->n; j++)
				v[j] = s->caps[gr->members[j]].meas[c];
			stat_of(&gr->meas[c], v, gr->n);
		}
	}
	free(at);
	free(v);
	return 0;
out:
	free(at);
	free(v);
	return -1;
}

/* The comparable sets (summary.h), in the order of their first group. */
static int make_sets(struct wc_summary *s)
{
	size_t g, k;

	s->sets = calloc(s->ngroups, sizeof(*s->sets));
	if (!s->sets)
		return -1;
	for (g = 0; g < s->ngroups; g++) {
		const char *key =
			s->caps[s->groups[g].members[0]].meta->comparable;

		for (k = 0; k < s->nsets; k++)
			if (!strcmp(s->caps[s->groups[s->sets[k].first]
					     .members[0]].meta->comparable, key))
				break;
		if (k == s->nsets)
			s->sets[s->nsets++].first = g;
		s->groups[g].set = k;
		s->sets[k].ngroups++;
	}
	return 0;
}

static int group_means(struct wc_summary *s)
{
	const struct wc_sum_figs **figs = calloc(s->ncaps, sizeof(*figs));
	size_t g, j;

	if (!figs)
		return -1;
	for (g = 0; g < s->ngroups; g++) {
		struct wc_sum_group *gr = &s->groups[g];

		for (j = 0; j < gr->n; j++)
			figs[j] = &s->caps[gr->members[j]].figs;
		gr->mean_wall_ns = mean_parts(figs, gr->n, gr->mean_part_ns);
	}
	free(figs);
	return 0;
}

/* ---- differences ------------------------------------------------------- */

/* a - b, clamped to +-2^58 ns (9 years): a hostile trace can hold times
 * near 2^64, and the sum of WC_NPARTS clamped parts must still fit an
 * int64_t (and be negatable) so that they add up to wall_ns exactly. */
#define DIFF_MAX ((int64_t)1 << 58)
_Static_assert(WC_NPARTS <= 16, "WC_NPARTS differences of DIFF_MAX overflow");

static int64_t diff_ns(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)DIFF_MAX ? DIFF_MAX : (int64_t)(a - b);
	return b - a > (uint64_t)DIFF_MAX ? -DIFF_MAX : -(int64_t)(b - a);
}

static void diff_of(struct wc_sum_diff *d, const uint64_t *part,
		    const uint64_t *base)
{
	int p, best = -1;
	int sign;

	d->known = true;
	d->wall_ns = 0;
	for (p = 0; p < WC_NPARTS; p++) {
		d->part_ns[p] = diff_ns(part[p], base[p]);
		d->wall_ns += d->part_ns[p];
	}
	sign = d->wall_ns > 0 ? 1 : d->wall_ns < 0 ? -1 : 0;
	for (p = 0; sign && p < WC_NPARTS; p++)
		if (d->part_ns[p] * sign > 0 &&
		    (best < 0 || d->part_ns[p] * sign > d->part_ns[best] * sign))
			best = p;
	d->main_part = best;
}

/* The baseline group's mean parts over its phases named `name`; false
 * when none of its runs has one. */
static bool base_phase(const struct wc_summary *s, size_t base,
		       const char *name, const struct wc_sum_figs **figs,
		       uint64_t out[WC_NPARTS])
{
	const struct wc_sum_group *gr = &s->groups[base];
	size_t j, k = 0;

	for (j = 0; j < gr->n; j++) {
		const struct wc_sum_phase *ph =
			wc_summary_phase(&s->caps[gr->members[j]], name);

		if (ph)
			figs[k++] = &ph->figs;
	}
	if (!k)
		return false;
	mean_parts(figs, k, out);
	return true;
}

/* Student's t, two-sided 95 %, for df degrees of freedom (rounded down,
 * which errs towards "within noise"). */
static double t95(double df)
{
	static const double t[30] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};
	int k = (int)floor(df);

	if (k < 1)
		k = 1;
	if (k <= 30)
		return t[k - 1];
	/* Within 0.002 of the table from 40 on. */
	return 1.96 + 2.4 / (double)k;
}

/* The large-sample quantile: a |t| at or below it stays within noise
 * whatever the number of runs; above it and below t95(df), more runs
 * could tell. */
#define Z95 1.96

/* Welch's t-test of measure a against the baseline's b (summary.h,
 * docs/methodology.md "Verdicts"). */
static void test_of(struct wc_test *t, const struct wc_stat *a,
		    const struct wc_stat *b)
{
	double va, vb, se2, se, q, tol;

	memset(t, 0, sizeof(*t));
	t->n = a->n;
	t->base_n = b->n;
	t->known = a->n && b->n;
	t->verdict = WC_VERDICT_TOO_FEW;
	if (!t->known)
		return;
	t->diff_s = a->mean - b->mean;
	if (a->n < 2 || b->n < 2)
		return;
	t->has_interval = true;
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	se2 = va + vb;
	/* Figures are whole nanoseconds: means closer than half of one
	 * are equal (a sum of doubles divided by n is not exact). */
	tol = 0.5e-9 + 1e-12 * fmax(fabs(a->mean), fabs(b->mean));
	if (se2 <= 0 || sqrt(se2) < tol) {
		/* Runs that never vary: any difference is beyond noise. */
		if (fabs(t->diff_s) <= tol)
			t->diff_s = 0;
		t->t = t->diff_s > 0 ? INFINITY : t->diff_s < 0 ? -INFINITY : 0;
		t->df = (double)(a->n + b->n - 2);
		t->lo_s = t->hi_s = t->diff_s;
		t->verdict = t->diff_s != 0 ? WC_VERDICT_REAL : WC_VERDICT_NOISE;
		return;
	}
	se = sqrt(se2);
	t->t = t->diff_s / se;
	t->df = se2 * se2 / (va * va / (double)(a->n - 1) +
			     vb * vb / (double)(b->n - 1));
	q = t95(t->df);
	t->lo_s = t->diff_s - q * se;
	t->hi_s = t->diff_s + q * se;
	t->verdict = fabs(t->t) > q ? WC_VERDICT_REAL :
		     fabs(t->t) > Z95 ? WC_VERDICT_TOO_FEW : WC_VERDICT_NOISE;
}

/* Every measure of group gr against its baseline group; the verdict on
 * device time and the wall's. */
static void verdict_of(struct wc_summary *s, struct wc_sum_group *gr)
{
	const struct wc_sum_group *b = &s->groups[gr->base];
	int m;

	for (m = 0; m < WC_NMEAS; m++) {
		test_of(&gr->test[m], &gr->meas[m], &b->meas[m]);
		if (gr == b)
			gr->test[m].verdict = WC_VERDICT_BASELINE;
	}
	gr->verdict = gr->test[WC_MEAS_BUSY].verdict;
	gr->wall_verdict = gr->test[WC_MEAS_WALL].verdict;
}

static int differences(struct wc_summary *s)
{
	const struct wc_sum_figs **figs = calloc(s->ncaps, sizeof(*figs));
	uint64_t base[WC_NPARTS];
	size_t i, p, g;

	if (!figs)
		return -1;
	for (i = 0; i < s->ncaps; i++) {
		struct wc_sum_capture *c = &s->caps[i];
		size_t bg = s->groups[c->group].base;

		diff_of(&c->diff, c->figs.part_ns, s->groups[bg].mean_part_ns);
		for (p = 0; p < c->nphases; p++) {
			struct wc_sum_phase *ph = &c->phases[p];

			if (base_phase(s, bg, ph->name, figs, base))
				diff_of(&ph->diff, ph->figs.part_ns, base);
		}
	}
	for (g = 0; g < s->ngroups; g++) {
		diff_of(&s->groups[g].diff, s->groups[g].mean_part_ns,
			s->groups[s->groups[g].base].mean_part_ns);
		verdict_of(s, &s->groups[g]);
	}
	free(figs);
	return 0;
}

/* Same disk: capture.conf's disk and disk_model both equal. */
static bool same_disk(const struct wc_summary *s, size_t a, size_t b)
{
	const struct wc_capture_meta *x = s->caps[s->groups[a].members[0]].meta;
	const struct wc_capture_meta *y = s->caps[s->groups[b].members[0]].meta;

	return !strcmp(x->disk_model, y->disk_model) && !strcmp(x->disk, y->disk);
}

/* Each group's baseline (summary.h): the named one for all, or the
 * fastest group of its comparable set. */
static void choose_baselines(struct wc_summary *s)
{
	size_t g, k;

	for (k = 0; !s->named_baseline && k < s->nsets; k++) {
		struct wc_sum_set *st = &s->sets[k];

		st->base_group = st->first;
		for (g = st->first + 1; g < s->ngroups; g++)
			if (s->groups[g].set == k &&
			    s->groups[g].mean_wall_ns <
			    s->groups[st->base_group].mean_wall_ns)
				st->base_group = g;
		st->base_name =
			s->caps[s->groups[st->base_group].members[0]].meta->name;
	}
	if (!s->named_baseline && s->nsets)
		s->base_group = s->sets[0].base_group;
	for (g = 0; g < s->ngroups; g++) {
		struct wc_sum_group *gr = &s->groups[g];

		gr->base = s->named_baseline ? s->base_group :
			   s->sets[gr->set].base_group;
		gr->cross_disk = !same_disk(s, g, gr->base);
		if (gr->cross_disk)
			s->any_cross_disk = true;
	}
}

static double ratio(double v, double base)
{
	return v < 0 || base <= 0 ? -1 : v / base;
}

static void ratios(struct wc_summary *s, const struct wc_sum_capture *base)
{
	size_t i, p;
	int c;

	for (i = 0; i < s->ncaps; i++) {
		struct wc_sum_capture *cap = &s->caps[i];

		cap->has_ratio = true;
		for (c = 0; c < WC_NCOLS; c++)
			cap->ratio[c] = ratio(cap->figs.col[c], base->figs.col[c]);
		for (p = 0; p < cap->nphases; p++) {
			struct wc_sum_phase *ph = &cap->phases[p];
			const struct wc_sum_phase *bp =
				wc_summary_phase(base, ph->name);

			if (!bp)
				continue;
			ph->has_ratio = true;
			for (c = 0; c < WC_NCOLS; c++)
				ph->ratio[c] = ratio(ph->figs.col[c],
						     bp->figs.col[c]);
		}
	}
}

/* ---- findings ---------------------------------------------------------- */

static struct wc_finding *finding(struct wc_summary *s,
				  enum wc_finding_kind kind)
{
	struct wc_finding *f = &s->findings[s->nfindings++];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	return f;
}

static void num(struct wc_finding *f, const char *key, double v)
{
	if (f->nnums < WC_FINDING_MAX_NUMS) {
		f->num[f->nnums].key = key;
		f->num[f->nnums++].value = v;
	}
}

static void str(struct wc_finding *f, const char *key, const char *v)
{
	if (f->nstrs < WC_FINDING_MAX_STRS) {
		f->str[f->nstrs].key = key;
		snprintf(f->str[f->nstrs++].value, sizeof(f->str[0].value),
			 "%s", v);
	}
}

static void __attribute__((format(printf, 2, 3)))
say(struct wc_finding *f, const char *fmt, ...)
{
	size_t len = strlen(f->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->text + len, sizeof(f->text) - len, fmt, ap);
	va_end(ap);
}

/* A duration of milliseconds, three significant digits. */
static const char *ms(uint64_t ns, char *buf, size_t size)
{
	double v = (double)ns / 1e6;

	snprintf(buf, size, v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f", v);
	return buf;
}

/* Who: "the slowest capture, NAME," or "NAME" alone. */
static void subject(const struct wc_summary *s, const struct wc_sum_capture *c,
		    char *buf, size_t size)
{
	if (s->ncaps > 1)
		snprintf(buf, size, "The slowest capture, %s,", c->meta->name);
	else
		snprintf(buf, size, "%s", c->meta->name[0] ? c->meta->name :
			 "The capture");
}

static void find_most_time(struct wc_summary *s, const struct wc_sum_capture *c)
{
	struct wc_finding *f = finding(s, WC_FIND_MOST_TIME);
	const struct wc_sum_figs *g = &c->figs;
	char who[320];
	int k, best = 0;

	subject(s, c, who, sizeof(who));
	for (k = 1; k < WC_NCAT; k++)
		if (g->part_ns[k] > g->part_ns[best])
			best = k;
	str(f, "capture", c->meta->name);
	num(f, "wall_s", secs(g->wall_ns));
	if (!g->part_ns[best]) {
		say(f, "%s took %.3f s, and no request completed on its main "
		    "device.", who, secs(g->wall_ns));
		return;
	}
	str(f, "category", wc_part_key(best));
	num(f, "time_s", secs(g->part_ns[best]));
	num(f, "share", pct(g->part_ns[best], g->wall_ns) / 100);
	say(f, "%s took %.3f s; of the device's time, %s took most: %.3f s, "
	    "%.1f %% of the wall.", who, secs(g->wall_ns), wc_part_label(best),
	    secs(g->part_ns[best]), pct(g->part_ns[best], g->wall_ns));
}

static void find_idle(struct wc_summary *s, const struct wc_sum_capture *c)
{
	struct wc_finding *f = finding(s, WC_FIND_DEVICE_IDLE);
	uint64_t idle = c->figs.part_ns[WC_PART_IDLE];

	str(f, "capture", c->meta->name);
	num(f, "idle_s", secs(idle));
	num(f, "wall_s", secs(c->figs.wall_ns));
	num(f, "share", pct(idle, c->figs.wall_ns) / 100);
	say(f, "The device was idle for %.3f s (%.1f %% of the wall): that "
	    "time went to the CPU, the page cache or throttling, and the disk "
	    "does not explain it.", secs(idle), pct(idle, c->figs.wall_ns));
}

static void find_flushes(struct wc_summary *s, const struct wc_sum_capture *c)
{
	struct wc_finding *f = finding(s, WC_FIND_FLUSHES);
	const struct wc_figures *g = wc_analysis_main(c->a);
	const struct wc_account *ac = wc_analysis_account(c->a);
	int idx = wc_analysis_main_index(c->a);
	uint64_t n = g ? g->requests[WC_CAT_FLUSH] : 0;
	uint64_t t = c->figs.part_ns[WC_CAT_FLUSH];
	char who[256] = "", a[16], b[16];
	size_t k, nf, len = 0;

	str(f, "capture", c->meta->name);
	num(f, "count", (double)n);
	num(f, "time_s", secs(t));
	num(f, "share", pct(t, c->figs.wall_ns) / 100);
	if (!n) {
		say(f, "No cache flush reached the device.");
		return;
	}
	nf = idx >= 0 ? wc_account_nflushers(ac, (size_t)idx) : 0;
	for (k = 0; k < nf && k < 3 && len < sizeof(who); k++) {
		const struct wc_wait *w = wc_account_flusher(ac, (size_t)idx, k);

		len += (size_t)snprintf(who + len, sizeof(who) - len,
					"%s%s (%llu)", k ? ", " : "", w->comm,
					(unsigned long long)w->requests);
	}
	if (nf > 3 && len < sizeof(who))
		snprintf(who + len, sizeof(who) - len, " and %zu more", nf - 3);
	say(f, "%llu cache flush%s took %.3f s (%.1f %% of the wall)",
	    (unsigned long long)n, n == 1 ? "" : "es", secs(t),
	    pct(t, c->figs.wall_ns));
	if (g->flush_d2c.n) {
		num(f, "p50_s", secs(g->flush_d2c.p50));
		num(f, "p99_s", secs(g->flush_d2c.p99));
		say(f, ", median %s ms and p99 %s ms each",
		    ms(g->flush_d2c.p50, a, sizeof(a)),
		    ms(g->flush_d2c.p99, b, sizeof(b)));
	}
	if (nf == 1 && !strcmp(wc_account_flusher(ac, (size_t)idx, 0)->comm,
			       "(unknown)")) {
		/* A trace without process names (no notify records). */
		say(f, "; the trace does not name the processes that issued "
		    "them");
	} else if (who[0]) {
		str(f, "issued_by", who);
		say(f, "; issued by %s", who);
	}
	say(f, ".");
}

/* The sentences on noise for group g against its baseline group: the
 * verdict on the device's time with its interval, the wall's beside. */
static void say_verdict(struct wc_finding *f, const struct wc_summary *s,
			const struct wc_sum_group *g)
{
	const struct wc_test *d = &g->test[WC_MEAS_BUSY];
	const struct wc_test *w = &g->test[WC_MEAS_WALL];
	const struct wc_sum_group *b = &s->groups[g->base];

	str(f, "verdict", wc_verdict_key(g->verdict));
	str(f, "wall_verdict", wc_verdict_key(g->wall_verdict));
	num(f, "busy_s", d->diff_s);
	if (!d->has_interval) {
		say(f, " There are too few runs to tell it from noise (%zu and "
		    "%zu runs): record each configuration at least twice, "
		    "three times or more for a small difference.", g->n, b->n);
		return;
	}
	num(f, "busy_lo_s", d->lo_s);
	num(f, "busy_hi_s", d->hi_s);
	say(f, " On the device's time (%+.3f s, 95 %% interval %+.3f to "
	    "%+.3f s, Welch's t-test, %zu and %zu runs) it is %s", d->diff_s,
	    d->lo_s, d->hi_s, g->n, b->n,
	    g->verdict == WC_VERDICT_REAL ? "real: the disk's work changed" :
	    g->verdict == WC_VERDICT_NOISE ? "within noise" :
	    "too few runs to tell: more runs could");
	say(f, "; the wall's difference (%+.3f s, %+.3f to %+.3f s) is %s.",
	    w->diff_s, w->lo_s, w->hi_s, wc_verdict_label(g->wall_verdict));
}

/* How a group is named in a sentence: its first capture, with its runs. */
static void group_name(const struct wc_summary *s, size_t g, char *buf,
		       size_t size)
{
	const struct wc_sum_group *gr = &s->groups[g];
	const char *name = s->caps[gr->members[0]].meta->name;

	if (gr->n > 1)
		snprintf(buf, size, "%s (mean of %zu runs)", name, gr->n);
	else
		snprintf(buf, size, "%s", name);
}

/* A group's disk for sentences: capture.conf's disk_model, else its
 * disk, else "". */
static const char *disk_of(const struct wc_summary *s, size_t g)
{
	const struct wc_capture_meta *m = s->caps[s->groups[g].members[0]].meta;

	return m->disk_model[0] ? m->disk_model : m->disk;
}

/* "On disk D, " before a set's finding when there are several sets; the
 * set's number too when another set has the same disk (another workload
 * or scale).  False when it says nothing. */
static bool say_set(struct wc_finding *f, const struct wc_summary *s,
		    size_t set)
{
	const char *d;
	size_t k;
	bool twin = false;

	if (set == SIZE_MAX || s->nsets < 2)
		return false;
	d = disk_of(s, s->sets[set].first);
	for (k = 0; k < s->nsets; k++)
		if (k != set && !strcmp(disk_of(s, s->sets[k].first), d))
			twin = true;
	if (d[0])
		say(f, "On disk %s", d);
	else
		say(f, "On the captures without a disk model");
	if (twin)
		say(f, " (comparable set %zu)", set + 1);
	say(f, ", ");
	return true;
}

/* The largest difference in comparable set `set` against its baseline,
 * or, with set == SIZE_MAX (a named baseline), over every group. */
static void find_difference(struct wc_summary *s, size_t set)
{
	const struct wc_sum_group *g = NULL, *b;
	struct wc_finding *f;
	char who[320], base[320];
	size_t k, gi, crossing = 0;
	bool on;
	int64_t w;

	for (k = 0; k < s->ngroups; k++) {
		if (k == s->groups[k].base ||
		    (set != SIZE_MAX && s->groups[k].set != set))
			continue;
		if (s->groups[k].cross_disk)
			crossing++;
		if (!g || llabs(s->groups[k].diff.wall_ns) >
			  llabs(g->diff.wall_ns))
			g = &s->groups[k];
	}
	if (!g)
		return;
	gi = (size_t)(g - s->groups);
	b = &s->groups[g->base];
	f = finding(s, WC_FIND_DIFFERENCE);
	w = g->diff.wall_ns;
	group_name(s, gi, who, sizeof(who));
	group_name(s, g->base, base, sizeof(base));
	str(f, "capture", s->caps[g->members[0]].meta->name);
	str(f, "baseline", wc_summary_base_name(s, gi));
	if (disk_of(s, gi)[0])
		str(f, "disk", disk_of(s, gi));
	if (g->cross_disk && disk_of(s, g->base)[0])
		str(f, "baseline_disk", disk_of(s, g->base));
	num(f, "wall_s", ssecs(w));
	num(f, "runs", (double)g->n);
	num(f, "baseline_runs", (double)b->n);
	on = say_set(f, s, set);
	if (!w)
		say(f, "%s took as long as the baseline %s.", who, base);
	else
		say(f, "%s largest difference against the baseline %s: %s "
		    "took %.3f s %s (%.3f s against %.3f s)", on ? "the" :
		    "The", base, who, fabs(ssecs(w)), w > 0 ? "longer" : "less",
		    secs(g->mean_wall_ns), secs(b->mean_wall_ns));
	if (w && g->diff.main_part >= 0) {
		int p = g->diff.main_part;
		int q, o = -1;

		str(f, "cause", wc_part_key(p));
		num(f, "cause_s", ssecs(g->diff.part_ns[p]));
		num(f, "cause_share", (double)g->diff.part_ns[p] / (double)w);
		say(f, ", mostly %s: %+.3f s", wc_part_label(p),
		    ssecs(g->diff.part_ns[p]));
		/* The largest part that went the other way, when it hides
		 * much of the main one (an idle device absorbs slow flushes
		 * when nothing waits for them). */
		for (q = 0; q < WC_NPARTS; q++)
			if (g->diff.part_ns[q] * (w > 0 ? 1 : -1) < 0 &&
			    (o < 0 || llabs(g->diff.part_ns[q]) >
				      llabs(g->diff.part_ns[o])))
				o = q;
		if (o >= 0 && llabs(g->diff.part_ns[o]) * 10 >
			      llabs(g->diff.part_ns[p])) {
			str(f, "offset_by", wc_part_key(o));
			num(f, "offset_s", ssecs(g->diff.part_ns[o]));
			say(f, ", offset by %s: %+.3f s", wc_part_label(o),
			    ssecs(g->diff.part_ns[o]));
		} else {
			say(f, ", %.0f %% of the difference",
			    100.0 * (double)g->diff.part_ns[p] / (double)w);
		}
		say(f, ".");
	} else if (w) {
		say(f, ".");
	}
	if (g->cross_disk) {
		const char *d = disk_of(s, gi), *bd = disk_of(s, g->base);

		say(f, " It compares across disks: %s ran on %s%s, the baseline "
		    "on %s%s, so the difference is the disk's as much as the "
		    "configuration's.", who, d[0] ? "disk " : "",
		    d[0] ? d : "an unknown disk", bd[0] ? "disk " : "",
		    bd[0] ? bd : "an unknown disk");
		crossing--;
	}
	if (crossing)
		say(f, " %zu other configuration%s ran on another disk than "
		    "the baseline: %s differences cross disks.", crossing,
		    crossing == 1 ? "" : "s", crossing == 1 ? "its" : "their");
	say_verdict(f, s, g);
}

static int findings(struct wc_summary *s)
{
	const struct wc_sum_capture *slow = &s->caps[0];
	size_t i;

	/* Three on the slowest capture, then the differences: one a set. */
	s->findings = calloc(3 + s->nsets, sizeof(*s->findings));
	if (!s->findings)
		return -1;
	for (i = 1; i < s->ncaps; i++)
		if (s->caps[i].figs.wall_ns > slow->figs.wall_ns)
			slow = &s->caps[i];
	find_most_time(s, slow);
	find_idle(s, slow);
	find_flushes(s, slow);
	if (s->has_diff && s->named_baseline)
		find_difference(s, SIZE_MAX);
	else if (s->has_diff)
		for (i = 0; i < s->nsets; i++)
			find_difference(s, i);
	return 0;
}

/* ---- the whole --------------------------------------------------------- */

int wc_summary_build(struct wc_summary **out, struct wc_analysis *const *caps,
		     size_t n, const char *baseline, struct wc_err *err)
{
	struct wc_summary *s;
	size_t i, bi = n;

	*out = NULL;
	for (i = 0; baseline && i < n && bi == n; i++)
		if (!strcmp(wc_analysis_meta(caps[i])->name, baseline))
			bi = i;
	if (baseline && bi == n)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "no capture named '%s' for --baseline",
				  baseline);
	s = calloc(1, sizeof(*s));
	if (!s)
		goto fail_nomem;
	s->ncaps = n;
	s->named_baseline = baseline;
	s->caps = calloc(n ? n : 1, sizeof(*s->caps));
	if (!s->caps)
		goto fail_summary;
	for (i = 0; i < n; i++)
		if (fill_capture(&s->caps[i], caps[i]) < 0)
			goto fail_summary;
	if (n && (make_groups(s) < 0 || make_sets(s) < 0 ||
		  group_means(s) < 0))
		goto fail_summary;
	if (baseline) {
		s->has_diff = true;
		s->base_group = s->caps[bi].group;
		ratios(s, &s->caps[bi]);
	} else {
		for (i = 0; i < s->nsets; i++)
			if (s->sets[i].ngroups > 1)
				s->has_diff = true;
	}
	if (s->has_diff) {
		choose_baselines(s);
		s->base_name = baseline ? baseline :
			       s->caps[s->groups[s->base_group].members[0]]
				       .meta->name;
		if (differences(s) < 0)
			goto fail_summary;
	}
	if (n && findings(s) < 0)
		goto fail_summary;
	*out = s;
	return 0;

fail_summary:
	wc_summary_free(s);
fail_nomem:
	return wc_err_oom(err, NULL, NULL);
}

void wc_summary_free(struct wc_summary *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->caps && i < s->ncaps; i++) {
		free(s->caps[i].phases);
		free(s->caps[i].devices);
		free((void *)s->caps[i].waits);
	}
	free(s->members);
	free(s->caps);
	free(s->groups);
	free(s->sets);
	free(s->findings);
	free(s);
}
