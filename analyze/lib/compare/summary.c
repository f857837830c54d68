#include "compare/summary.h"

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
	[WC_FIND_SKIPPED] = "skipped",
	[WC_FIND_LEFT_OUT] = "left_out",
	[WC_FIND_RUN_ORDER] = "run_order",
	[WC_FIND_HOST_STATE] = "host_state",
	[WC_FIND_DIRTY] = "dirty_at_end",
};

static const char *const meas_key[WC_NMEAS] = {
	[WC_MEAS_BUSY] = "busy", [WC_MEAS_POSITIONING] = "positioning",
	[WC_MEAS_TRANSFER] = "transfer", [WC_MEAS_OFF_DEVICE] = "off_device",
	[WC_MEAS_OFF_OTHER] = "off_device_other",
	[WC_MEAS_OFF_CPU] = "off_device_cpu",
	[WC_MEAS_OFF_REST] = "off_device_rest", [WC_MEAS_WALL] = "wall",
};

static const char *const meas_label[WC_NMEAS] = {
	[WC_MEAS_BUSY] = "the device's busy time",
	[WC_MEAS_POSITIONING] = "positioning",
	[WC_MEAS_TRANSFER] = "transfer",
	[WC_MEAS_OFF_DEVICE] = "time off the device",
	[WC_MEAS_OFF_OTHER] = "another traced device busy",
	[WC_MEAS_OFF_CPU] = "the command's CPU time",
	[WC_MEAS_OFF_REST] = "the rest off the device",
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
	case WC_VERDICT_BOUNDED: return "no_larger_than";
	case WC_VERDICT_UNDECIDED: return "not_decided";
	}
	return "?";
}

const char *wc_verdict_label(enum wc_verdict v)
{
	switch (v) {
	case WC_VERDICT_BASELINE: return "baseline";
	case WC_VERDICT_REAL: return "real";
	case WC_VERDICT_BOUNDED: return "no larger than the bound";
	case WC_VERDICT_UNDECIDED: return "not decided";
	}
	return "?";
}

const char *wc_test_words(const struct wc_test *t, char *buf, size_t size)
{
	switch (t->verdict) {
	case WC_VERDICT_BOUNDED:
		snprintf(buf, size, "no larger than +-%.3f s", t->bound_s);
		break;
	case WC_VERDICT_UNDECIDED:
		if (!t->has_interval)
			snprintf(buf, size, "not decided (one run a side)");
		else if (!t->runs_needed)
			snprintf(buf, size, "not decided");
		else if (t->runs_needed > WC_RUNS_NEEDED_MAX)
			snprintf(buf, size, "not decided (>%d runs a side)",
				 WC_RUNS_NEEDED_MAX);
		else
			snprintf(buf, size, "not decided (%zu runs a side)",
				 t->runs_needed);
		break;
	default:
		snprintf(buf, size, "%s", wc_verdict_label(t->verdict));
		break;
	}
	return buf;
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
	return (unsigned)k <= WC_FIND_DIRTY ? kind_name[k] : "?";
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
		s->destage_s[0] = s->destage_s[1] = -1;
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
	s->split_s = secs(g->time_ns[WC_CAT_JOURNAL] +
			  g->time_ns[WC_CAT_METADATA] + data +
			  g->destage_positioning_ns + g->destage_transfer_ns);
	s->destage_s[0] = g->positioning_known ?
			  secs(g->destage_positioning_ns) : -1;
	s->destage_s[1] = g->positioning_known ?
			  secs(g->destage_transfer_ns) : -1;
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
	size_t i;

	c->partial = wc_analysis_partial(a);
	c->missing = wc_analysis_main_missing(a);
	c->filter = wc_analysis_filter(a);
	c->tracking = wc_analysis_tracker_stats(a);
	btt_of(&c->btt, wc_analysis_btt(a));
	c->positioning_pct = c->figs.split_s > 0 && v[WC_COL_POSITIONING] >= 0 ?
			     100 * v[WC_COL_POSITIONING] / c->figs.split_s : 0.0;
	c->ndevices = wc_account_ndevices(ac);
	if (c->ndevices) {
		c->devices = calloc(c->ndevices, sizeof(*c->devices));
		if (!c->devices)
			return -1;
	}
	for (i = 0; i < c->ndevices; i++)
		device_of(&c->devices[i], ac, i, c->meta);
	if (wc_analysis_main_index(a) >= 0) {
		size_t m = (size_t)wc_analysis_main_index(a);

		c->main = &c->devices[m];
		c->nprocs = wc_account_nprocesses(ac, m);
		if (c->nprocs) {
			w = calloc(c->nprocs, sizeof(*w));
			if (!w)
				return -1;
			for (i = 0; i < c->nprocs; i++)
				w[i] = wc_account_process(ac, m, i);
			c->procs = w;
		}
	}
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
	double split = g->split_s;
	int k;

	for (k = 0; k < WC_NCAT; k++)
		c->meas[k] = secs(g->part_ns[k]);
	c->meas[WC_MEAS_BUSY] = secs(g->wall_ns - g->part_ns[WC_PART_IDLE]);
	c->meas[WC_MEAS_POSITIONING] = g->col[WC_COL_POSITIONING];
	c->meas[WC_MEAS_TRANSFER] = g->col[WC_COL_POSITIONING] < 0 ? -1 :
		split > g->col[WC_COL_POSITIONING] ?
		split - g->col[WC_COL_POSITIONING] : 0;
	c->meas[WC_MEAS_OFF_DEVICE] = secs(g->part_ns[WC_PART_IDLE]);
	c->meas[WC_MEAS_WALL] = secs(g->wall_ns);
}

/* The time off the main device, split (docs/methodology.md, "Off the
 * device"): first the time another traced device was busy while the
 * main one was idle (the union of all devices' service less the main
 * one's), then, of what is left, up to the command's CPU time
 * (phases.tsv user + sys), then the rest.  CPU time that overlapped a
 * device's work is not known apart: the split gives the CPU the benefit
 * of the doubt only in time no traced device explains. */
static void off_split(struct wc_sum_capture *c, const struct wc_analysis *a)
{
	const struct wc_account *ac = wc_analysis_account(a);
	uint64_t idle = c->figs.part_ns[WC_PART_IDLE];
	uint64_t busy = c->figs.wall_ns - idle, any, other, cpu;
	double wall = 0, user_sys = 0;
	size_t p;

	any = wc_account_busy_any(ac);
	other = any > busy ? any - busy : 0;
	if (other > idle)
		other = idle;
	c->meas[WC_MEAS_OFF_OTHER] = secs(other);
	c->command_wall_s = c->command_cpu_s = -1;
	c->meas[WC_MEAS_OFF_CPU] = c->meas[WC_MEAS_OFF_REST] = -1;
	if (!wc_analysis_nphases(a))
		return;
	for (p = 0; p < wc_analysis_nphases(a); p++) {
		const struct wc_phase_result *ph = wc_analysis_phase(a, p);

		wall += ph->real_s;
		user_sys += ph->user_s + ph->sys_s;
	}
	/* phases.tsv without its time columns (they read as 0). */
	if (wall <= 0)
		return;
	c->command_wall_s = wall;
	c->command_cpu_s = user_sys;
	cpu = user_sys * 1e9 < (double)(idle - other) ?
	      (uint64_t)llround(user_sys * 1e9) : idle - other;
	c->meas[WC_MEAS_OFF_CPU] = secs(cpu);
	c->meas[WC_MEAS_OFF_REST] = secs(idle - other - cpu);
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
	off_split(c, a);
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

/* The wall time of the phases named `name` of capture c, summed (a
 * phase may run twice); false when it has none. */
static bool phase_wall(const struct wc_sum_capture *c, const char *name,
		       double *wall)
{
	bool seen = false;
	size_t p;

	*wall = 0;
	for (p = 0; p < c->nphases; p++) {
		if (strcmp(c->phases[p].name, name))
			continue;
		*wall += c->phases[p].wall_s;
		seen = true;
	}
	return seen;
}

void wc_summary_group_phase_wall(const struct wc_summary *s, size_t g,
				 const char *name, struct wc_stat *out)
{
	const struct wc_sum_group *gr = &s->groups[g];
	double sum = 0, ss = 0, w;
	size_t j;

	memset(out, 0, sizeof(*out));
	out->mean = out->min = out->max = -1;
	for (j = 0; j < gr->n; j++) {
		if (!phase_wall(&s->caps[gr->members[j]], name, &w))
			continue;
		if (!out->n || w < out->min)
			out->min = w;
		if (!out->n || w > out->max)
			out->max = w;
		sum += w;
		out->n++;
	}
	if (!out->n)
		return;
	out->mean = sum / (double)out->n;
	for (j = 0; j < gr->n; j++)
		if (phase_wall(&s->caps[gr->members[j]], name, &w))
			ss += (w - out->mean) * (w - out->mean);
	out->sd = out->n > 1 ? sqrt(ss / (double)(out->n - 1)) : 0;
}

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
		for (j = 0; j < gr->n; j++)
			if (s->caps[gr->members[j]].nphases)
				gr->phased++;
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
 * which widens the interval: it errs towards "not decided"). */
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

/* Student's t, one-sided 95 % (the two-sided 90 % interval of the two
 * one-sided tests), rounded down likewise. */
static double t90(double df)
{
	static const double t[30] = {
		6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833,
		1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734,
		1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703,
		1.701, 1.699, 1.697,
	};
	int k = (int)floor(df);

	if (k < 1)
		k = 1;
	if (k <= 30)
		return t[k - 1];
	/* Within 0.002 of the table from 31 on (1.684 at 40, 1.658 at
	 * 120). */
	return 1.645 + 1.56 / (double)k;
}

/* The verdict of a difference d whose standard error is se on df
 * degrees of freedom, against the bound x (docs/methodology.md,
 * "Verdicts"): real when the 95 % interval excludes 0, no larger than
 * x when the 90 % interval lies inside +-x, else not decided. */
static enum wc_verdict decide(double d, double se, double df, double x)
{
	if (fabs(d) > t95(df) * se)
		return WC_VERDICT_REAL;
	if (fabs(d) + t90(df) * se < x)
		return WC_VERDICT_BOUNDED;
	return WC_VERDICT_UNDECIDED;
}

/* The runs a side that would decide difference d at the sample
 * deviations sa and sb (both sides of n runs, Welch's degrees of
 * freedom for them); WC_RUNS_NEEDED_MAX + 1 when none up to that. */
static size_t runs_to_decide(double d, double sa, double sb, double x)
{
	double v = sa * sa + sb * sb;
	double w = sa * sa * sa * sa + sb * sb * sb * sb;
	size_t n;

	for (n = 2; n <= WC_RUNS_NEEDED_MAX; n++) {
		double se = sqrt(v / (double)n);
		double df = w > 0 ? v * v * (double)(n - 1) / w : 1;

		if (decide(d, se, df, x) != WC_VERDICT_UNDECIDED)
			return n;
	}
	return WC_RUNS_NEEDED_MAX + 1;
}

/* Welch's t-test of measure a against the baseline's b, with the
 * equivalence bound x (summary.h, docs/methodology.md "Verdicts"). */
static void test_of(struct wc_test *t, const struct wc_stat *a,
		    const struct wc_stat *b, double x)
{
	double va, vb, se2, se, q, q90, tol;

	memset(t, 0, sizeof(*t));
	t->n = a->n;
	t->base_n = b->n;
	t->bound_s = x;
	t->known = a->n && b->n;
	t->verdict = WC_VERDICT_UNDECIDED;
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
		/* Runs that never vary: an interval of no width, which
		 * excludes 0 unless the means are equal. */
		if (fabs(t->diff_s) <= tol)
			t->diff_s = 0;
		t->t = t->diff_s > 0 ? INFINITY : t->diff_s < 0 ? -INFINITY : 0;
		t->df = (double)(a->n + b->n - 2);
		t->lo_s = t->hi_s = t->lo90_s = t->hi90_s = t->diff_s;
		t->verdict = decide(t->diff_s, 0, t->df, x);
		return;
	}
	se = sqrt(se2);
	t->t = t->diff_s / se;
	t->df = se2 * se2 / (va * va / (double)(a->n - 1) +
			     vb * vb / (double)(b->n - 1));
	q = t95(t->df);
	q90 = t90(t->df);
	t->lo_s = t->diff_s - q * se;
	t->hi_s = t->diff_s + q * se;
	t->lo90_s = t->diff_s - q90 * se;
	t->hi90_s = t->diff_s + q90 * se;
	t->verdict = decide(t->diff_s, se, t->df, x);
	if (t->verdict == WC_VERDICT_UNDECIDED)
		t->runs_needed = runs_to_decide(t->diff_s, a->sd, b->sd, x);
}

/* Every measure of group gr against its baseline group; the verdict on
 * device time and the wall's. */
static void verdict_of(struct wc_summary *s, struct wc_sum_group *gr)
{
	const struct wc_sum_group *b = &s->groups[gr->base];
	int m;

	/* One bound for every measure: the difference's size that does
	 * not matter is a share of the time the user waits. */
	gr->equiv_s = s->equiv_s > 0 ? s->equiv_s :
		      s->equiv_share * b->meas[WC_MEAS_WALL].mean;
	for (m = 0; m < WC_NMEAS; m++) {
		test_of(&gr->test[m], &gr->meas[m], &b->meas[m], gr->equiv_s);
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

/* Who: "The slowest capture, NAME (group #G, run R)," or "NAME" alone. */
static void subject(const struct wc_summary *s, const struct wc_sum_capture *c,
		    char *buf, size_t size)
{
	char run[48] = "";

	if (c->meta->run > 0)
		snprintf(run, sizeof(run), ", run %d", c->meta->run);
	if (s->ncaps > 1)
		snprintf(buf, size, "The slowest capture, %s (group #%zu%s),",
			 c->meta->name, c->group + 1, run);
	else
		snprintf(buf, size, "%s", c->meta->name[0] ? c->meta->name :
			 "The capture");
}

/* The main device's name for sentences. */
static const char *main_name(const struct wc_sum_capture *c)
{
	return c->main && c->main->name ? c->main->name : "the main device";
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
	str(f, "device", main_name(c));
	num(f, "wall_s", secs(g->wall_ns));
	say(f, "%s took %.3f s in the trace's window", who, secs(g->wall_ns));
	if (c->command_wall_s >= 0) {
		num(f, "command_wall_s", c->command_wall_s);
		say(f, " (its command ran %.3f s, phases.tsv)", c->command_wall_s);
	}
	if (!g->part_ns[best]) {
		say(f, ", and no request completed on its main device.");
		return;
	}
	str(f, "category", wc_part_key(best));
	num(f, "time_s", secs(g->part_ns[best]));
	num(f, "share", pct(g->part_ns[best], g->wall_ns) / 100);
	say(f, "; of the time of %s, %s took most: %.3f s, %.1f %% of the "
	    "wall.", main_name(c), wc_part_label(best), secs(g->part_ns[best]),
	    pct(g->part_ns[best], g->wall_ns));
	/* Why it took that long: positioning against transfer. */
	if (best != WC_CAT_FLUSH && best != WC_CAT_DISCARD &&
	    best != WC_CAT_OTHER && c->meas[WC_MEAS_POSITIONING] >= 0) {
		num(f, "positioning_s", c->meas[WC_MEAS_POSITIONING]);
		num(f, "transfer_s", c->meas[WC_MEAS_TRANSFER]);
		say(f, " Of journal, metadata and data together%s, "
		    "positioning (seeks and rotation) took %.3f s (%.0f %%) "
		    "and transfer %.3f s.",
		    c->figs.destage_s[0] + c->figs.destage_s[1] > 0 ?
		    " with the flushes' destage" : "",
		    c->meas[WC_MEAS_POSITIONING], c->positioning_pct,
		    c->meas[WC_MEAS_TRANSFER]);
	}
}

/* "NAME" of the traced devices but the main one, up to three, with
 * their count; "" when there are none. */
static size_t other_devices(const struct wc_sum_capture *c, char *buf,
			    size_t size)
{
	size_t i, n = 0, len = 0;

	buf[0] = '\0';
	for (i = 0; i < c->ndevices; i++) {
		if (&c->devices[i] == c->main)
			continue;
		if (n < 3 && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						n ? ", " : "",
						c->devices[i].name ?
						c->devices[i].name : "unnamed");
		n++;
	}
	if (n > 3 && len < size)
		snprintf(buf + len, size - len, " and %zu more", n - 3);
	return n;
}

static void find_idle(struct wc_summary *s, const struct wc_sum_capture *c)
{
	struct wc_finding *f = finding(s, WC_FIND_DEVICE_IDLE);
	uint64_t idle = c->figs.part_ns[WC_PART_IDLE];
	double other = c->meas[WC_MEAS_OFF_OTHER];
	char devs[200];
	size_t nd = other_devices(c, devs, sizeof(devs));

	str(f, "capture", c->meta->name);
	str(f, "device", main_name(c));
	num(f, "idle_s", secs(idle));
	num(f, "wall_s", secs(c->figs.wall_ns));
	num(f, "share", pct(idle, c->figs.wall_ns) / 100);
	num(f, "other_device_s", other);
	say(f, "In %s, %s was idle for %.3f s (%.1f %% of the wall)",
	    c->meta->name, main_name(c), secs(idle), pct(idle, c->figs.wall_ns));
	if (nd) {
		str(f, "other_devices", devs);
		say(f, ": the other traced device%s (%s) %s busy for %.3f s of "
		    "it", nd == 1 ? "" : "s", devs, nd == 1 ? "was" : "were",
		    other);
	} else {
		say(f, ": no other device was traced");
	}
	if (c->meas[WC_MEAS_OFF_CPU] >= 0) {
		num(f, "cpu_s", c->meas[WC_MEAS_OFF_CPU]);
		num(f, "rest_s", c->meas[WC_MEAS_OFF_REST]);
		say(f, ", the command's CPU time (user + sys, phases.tsv: %.3f s) "
		    "accounts for %.3f s of the rest, and %.3f s remain: the page "
		    "cache, throttling, sleeping.", c->command_cpu_s,
		    c->meas[WC_MEAS_OFF_CPU], c->meas[WC_MEAS_OFF_REST]);
	} else {
		say(f, "; the rest went to the CPU, the page cache or "
		    "throttling (no CPU time in phases.tsv to tell them apart).");
	}
}

/* How many configurations had flushes, and the most flush time of one
 * (its group in *most). */
static size_t groups_with_flushes(const struct wc_summary *s, size_t *most)
{
	size_t g, n = 0;

	*most = 0;
	for (g = 0; g < s->ngroups; g++) {
		if (s->groups[g].part[WC_CAT_FLUSH].max > 0)
			n++;
		if (s->groups[g].part[WC_CAT_FLUSH].mean >
		    s->groups[*most].part[WC_CAT_FLUSH].mean)
			*most = g;
	}
	return n;
}

static void find_flushes(struct wc_summary *s, const struct wc_sum_capture *c)
{
	struct wc_finding *f = finding(s, WC_FIND_FLUSHES);
	const struct wc_figures *g = wc_analysis_main(c->a);
	const struct wc_account *ac = wc_analysis_account(c->a);
	int idx = wc_analysis_main_index(c->a);
	uint64_t n = g ? g->requests[WC_CAT_FLUSH] : 0, jbd = 0;
	uint64_t t = c->figs.part_ns[WC_CAT_FLUSH];
	char who[256] = "", a[16], b[16];
	size_t k, nf, len = 0, most, nwith;

	str(f, "capture", c->meta->name);
	num(f, "count", (double)n);
	num(f, "time_s", secs(t));
	num(f, "share", pct(t, c->figs.wall_ns) / 100);
	if (!n) {
		say(f, "No cache flush reached the main device of %s",
		    c->meta->name);
		nwith = s->ngroups > 1 ? groups_with_flushes(s, &most) : 0;
		if (nwith) {
			num(f, "groups_with_flushes", (double)nwith);
			say(f, "; across the comparison, %zu of %zu configurations "
			    "had flushes (the most: group #%zu, %.3f s a run)",
			    nwith, s->ngroups, most + 1,
			    s->groups[most].part[WC_CAT_FLUSH].mean);
		}
		say(f, ".");
		return;
	}
	nf = idx >= 0 ? wc_account_nflushers(ac, (size_t)idx) : 0;
	for (k = 0; k < nf; k++) {
		const struct wc_wait *w = wc_account_flusher(ac, (size_t)idx, k);

		if (!strncmp(w->comm, "jbd2/", 5))
			jbd += w->requests;
		if (k < 3 && len < sizeof(who))
			len += (size_t)snprintf(who + len, sizeof(who) - len,
						"%s%s (%llu)", k ? ", " : "",
						w->comm,
						(unsigned long long)w->requests);
	}
	if (nf > 3 && len < sizeof(who))
		snprintf(who + len, sizeof(who) - len, " and %zu more", nf - 3);
	say(f, "In %s, %llu cache flush%s", c->meta->name,
	    (unsigned long long)n, n == 1 ? "" : "es");
	if (g->flush_d2c.n) {
		num(f, "p50_s", secs(g->flush_d2c.p50));
		num(f, "p99_s", secs(g->flush_d2c.p99));
		say(f, " x median %s ms (p99 %s ms)",
		    ms(g->flush_d2c.p50, a, sizeof(a)),
		    ms(g->flush_d2c.p99, b, sizeof(b)));
	}
	say(f, " took %.3f s (%.1f %% of the wall)", secs(t),
	    pct(t, c->figs.wall_ns));
	if (nf == 1 && !strcmp(wc_account_flusher(ac, (size_t)idx, 0)->comm,
			       "(unknown)")) {
		/* A trace without process names (no notify records). */
		say(f, "; the trace does not name the processes that issued "
		    "them");
	} else if (who[0]) {
		str(f, "issued_by", who);
		say(f, "; issued by %s", who);
	}
	if (jbd) {
		num(f, "journal_commits", (double)jbd);
		say(f, "; jbd2's %llu are its journal commits",
		    (unsigned long long)jbd);
	}
	say(f, ".");
}

/* A test's verdict in a sentence's parentheses: wc_test_words(), with
 * the runs that would decide it spelt out. */
static const char *sentence_words(const struct wc_test *t, char *buf,
				  size_t size)
{
	if (t->verdict != WC_VERDICT_UNDECIDED)
		return wc_test_words(t, buf, size);
	if (!t->has_interval)
		snprintf(buf, size, "not decided: one run a side");
	else if (!t->runs_needed)
		snprintf(buf, size, "not decided");
	else if (t->runs_needed > WC_RUNS_NEEDED_MAX)
		snprintf(buf, size, "not decided: over %d runs a side would "
			 "decide it", WC_RUNS_NEEDED_MAX);
	else
		snprintf(buf, size, "not decided: %zu runs a side would "
			 "decide it", t->runs_needed);
	return buf;
}

/* What the bound X of "no larger than X" is, in words. */
static void say_bound(struct wc_finding *f, const struct wc_summary *s)
{
	if (s->equiv_s > 0)
		say(f, "the bound set by --equivalence");
	else
		say(f, "%g %% of the baseline's wall", s->equiv_share * 100);
}

/* The sentences on group g's verdicts against its baseline group: the
 * one on the device's time with what it excludes, the wall's beside. */
static void say_verdict(struct wc_finding *f, const struct wc_summary *s,
			const struct wc_sum_group *g)
{
	const struct wc_test *d = &g->test[WC_MEAS_BUSY];
	const struct wc_test *w = &g->test[WC_MEAS_WALL];
	const struct wc_sum_group *b = &s->groups[g->base];
	char words[96];

	str(f, "verdict", wc_verdict_key(g->verdict));
	str(f, "wall_verdict", wc_verdict_key(g->wall_verdict));
	num(f, "busy_s", d->diff_s);
	num(f, "bound_s", g->equiv_s);
	if (!d->has_interval) {
		say(f, " It is not decided: with %zu and %zu runs there is no "
		    "spread to test against; record each configuration at "
		    "least twice, three times or more for a small "
		    "difference.", g->n, b->n);
		return;
	}
	num(f, "busy_lo_s", d->lo_s);
	num(f, "busy_hi_s", d->hi_s);
	say(f, " On the device's time (%+.3f s, 95 %% interval %+.3f to "
	    "%+.3f s, Welch's t-test, %zu and %zu runs) it is ", d->diff_s,
	    d->lo_s, d->hi_s, g->n, b->n);
	if (g->verdict == WC_VERDICT_REAL) {
		say(f, "real: the disk's work changed (the interval "
		    "excludes 0)");
	} else if (g->verdict == WC_VERDICT_BOUNDED) {
		say(f, "no larger than +-%.3f s (", g->equiv_s);
		say_bound(f, s);
		say(f, "): its 90 %% interval, %+.3f to %+.3f s, lies inside",
		    d->lo90_s, d->hi90_s);
	} else {
		num(f, "runs_needed", (double)d->runs_needed);
		say(f, "not decided: it excludes neither 0 nor a change over "
		    "+-%.3f s (", g->equiv_s);
		say_bound(f, s);
		say(f, ")");
		if (d->runs_needed > WC_RUNS_NEEDED_MAX)
			say(f, ", and over %d runs a side would be needed at "
			    "this spread", WC_RUNS_NEEDED_MAX);
		else if (d->runs_needed)
			say(f, "; %zu runs a side would decide it at this "
			    "spread", d->runs_needed);
	}
	say(f, "; the wall's difference (%+.3f s, %+.3f to %+.3f s) is %s.",
	    w->diff_s, w->lo_s, w->hi_s, sentence_words(w, words,
						       sizeof(words)));
}

/* The mean over group g's runs of a main-device count: flushes, journal
 * writes; and the mean median flush D2C in ns (0 without one). */
static double mean_requests(const struct wc_summary *s,
			    const struct wc_sum_group *g, int cat)
{
	double sum = 0;
	size_t j;

	for (j = 0; j < g->n; j++)
		sum += (double)s->caps[g->members[j]].figs.requests[cat];
	return g->n ? sum / (double)g->n : 0;
}

static double mean_flush_p50(const struct wc_summary *s,
			     const struct wc_sum_group *g)
{
	double sum = 0;
	size_t j, k = 0;

	for (j = 0; j < g->n; j++) {
		const struct wc_figures *x =
			wc_analysis_main(s->caps[g->members[j]].a);

		if (x && x->flush_d2c.n) {
			sum += (double)x->flush_d2c.p50;
			k++;
		}
	}
	return k ? sum / (double)k : 0;
}

/* Why the main part moved: flushes as count x median cost, journal
 * writes as a count, positioning against transfer. */
static void say_subcause(struct wc_finding *f, const struct wc_summary *s,
			 const struct wc_sum_group *g, int p)
{
	const struct wc_sum_group *b = &s->groups[g->base];
	const struct wc_test *pos = &g->test[WC_MEAS_POSITIONING];
	const struct wc_test *tr = &g->test[WC_MEAS_TRANSFER];

	if (p == WC_CAT_FLUSH) {
		double n = mean_requests(s, g, WC_CAT_FLUSH);
		double nb = mean_requests(s, b, WC_CAT_FLUSH);

		num(f, "flushes", n);
		num(f, "baseline_flushes", nb);
		say(f, " Flushes: %.0f x median %.2f ms a run, against %.0f x "
		    "%.2f ms.", n, mean_flush_p50(s, g) / 1e6, nb,
		    mean_flush_p50(s, b) / 1e6);
	} else if (p == WC_CAT_JOURNAL) {
		say(f, " Journal writes: %.0f a run, against %.0f.",
		    mean_requests(s, g, WC_CAT_JOURNAL),
		    mean_requests(s, b, WC_CAT_JOURNAL));
	}
	if ((p == WC_CAT_JOURNAL || p == WC_CAT_METADATA ||
	     p == WC_CAT_DATA_READ || p == WC_CAT_DATA_WRITE) &&
	    pos->known && tr->known) {
		char wp[96], wt[96];

		num(f, "positioning_s", pos->diff_s);
		num(f, "transfer_s", tr->diff_s);
		say(f, " Of journal, metadata and data, positioning (seeks and "
		    "rotation) moved %+.3f s (%s) and transfer %+.3f s (%s).",
		    pos->diff_s, sentence_words(pos, wp, sizeof(wp)), tr->diff_s,
		    sentence_words(tr, wt, sizeof(wt)));
	}
}

/* Where the time off the device moved: the command's CPU time, another
 * traced device busy (the source), the rest; each with its verdict. */
static void say_off_split(struct wc_finding *f, const struct wc_sum_group *g)
{
	const struct wc_test *cpu = &g->test[WC_MEAS_OFF_CPU];
	const struct wc_test *other = &g->test[WC_MEAS_OFF_OTHER];
	const struct wc_test *rest = &g->test[WC_MEAS_OFF_REST];
	char wc[96], wo[96], wr[96];

	if (!cpu->known || !other->known || !rest->known)
		return;
	num(f, "off_cpu_s", cpu->diff_s);
	num(f, "off_other_s", other->diff_s);
	num(f, "off_rest_s", rest->diff_s);
	say(f, " Off the device, the command's CPU time moved %+.3f s (%s), "
	    "another traced device's busy time %+.3f s (%s) and the rest (the "
	    "page cache, throttling, sleeping) %+.3f s (%s).", cpu->diff_s,
	    sentence_words(cpu, wc, sizeof(wc)), other->diff_s,
	    sentence_words(other, wo, sizeof(wo)), rest->diff_s,
	    sentence_words(rest, wr, sizeof(wr)));
}

/* When the difference is mostly off the device, what moved on it: its
 * largest part, with that part's sub-cause. */
static void say_device_cause(struct wc_finding *f, const struct wc_summary *s,
			     const struct wc_sum_group *g)
{
	int q, best = -1;

	for (q = 0; q < WC_NCAT; q++)
		if (g->diff.part_ns[q] &&
		    (best < 0 || llabs(g->diff.part_ns[q]) >
					 llabs(g->diff.part_ns[best])))
			best = q;
	if (best < 0)
		return;
	str(f, "device_cause", wc_part_key(best));
	num(f, "device_cause_s", ssecs(g->diff.part_ns[best]));
	say(f, " On the device, mostly %s: %+.3f s.", wc_part_label(best),
	    ssecs(g->diff.part_ns[best]));
	say_subcause(f, s, g, best);
}

/* "1, 2, 3" of group g's run numbers, or "N runs" when one is unknown. */
static void runs_of(const struct wc_summary *s, size_t g, char *buf,
		    size_t size)
{
	const struct wc_sum_group *gr = &s->groups[g];
	size_t j, len = 0;

	for (j = 0; j < gr->n; j++)
		if (s->caps[gr->members[j]].meta->run <= 0)
			break;
	if (j < gr->n) {
		snprintf(buf, size, "%zu run%s", gr->n, gr->n == 1 ? "" : "s");
		return;
	}
	for (j = 0; j < gr->n && len < size; j++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d",
					j ? ", " : "",
					s->caps[gr->members[j]].meta->run);
}

/* Which runs the finding used: group gi's and its baseline's. */
static void say_runs(struct wc_finding *f, const struct wc_summary *s,
		     size_t gi)
{
	char a[128], b[128];

	runs_of(s, gi, a, sizeof(a));
	runs_of(s, s->groups[gi].base, b, sizeof(b));
	str(f, "runs_used", a);
	str(f, "baseline_runs_used", b);
	say(f, " Runs used: %s against %s.", a, b);
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
		say_subcause(f, s, g, p);
		if (p == WC_PART_IDLE)
			say_off_split(f, g);
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
	if (w && g->diff.main_part == WC_PART_IDLE)
		say_device_cause(f, s, g);
	say_runs(f, s, gi);
}

/* "NAME, NAME and NAME" of up to three names, "and N more" after. */
static void names_of(const char *const *names, size_t n, char *buf,
		     size_t size)
{
	size_t k, len = 0;

	buf[0] = '\0';
	for (k = 0; k < n && k < 3 && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					k ? (k + 1 == n ? " and " : ", ") : "",
					names[k]);
	if (n > 3 && len < size)
		snprintf(buf + len, size - len, " and %zu more", n - 3);
}

static void find_left_out(struct wc_summary *s)
{
	struct wc_finding *f;
	char list[256] = "";
	size_t k, len = 0;

	if (!s->nleft_out)
		return;
	f = finding(s, WC_FIND_LEFT_OUT);
	num(f, "count", (double)s->nleft_out);
	for (k = 0; k < s->nleft_out && k < 3 && len < sizeof(list); k++)
		len += (size_t)snprintf(list + len, sizeof(list) - len,
					"%s%s (%s)", k ? ", " : "",
					s->left_out[k]->name,
					s->left_out_why[k]);
	if (s->nleft_out > 3 && len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, " and %zu more",
			 s->nleft_out - 3);
	str(f, "captures", list);
	say(f, "Left out of everything here: %s.", list);
}

/* The keys of two "k=v;" lists whose values differ, as "k1, k2". */
static void differing_keys(const char *a, const char *b, char *buf,
			   size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	while (*a && *b) {
		size_t ka = strcspn(a, "="), kb = strcspn(b, "=");
		size_t la = strcspn(a, ";"), lb = strcspn(b, ";");

		if ((la != lb || memcmp(a, b, la)) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%.*s",
						len ? ", " : "", (int)ka, a);
		(void)kb;
		a += la + (a[la] == ';');
		b += lb + (b[lb] == ';');
	}
}

/* A configuration alone in its comparable set, without a named baseline,
 * is compared with nothing: say why, once per such set (at most four). */
static void find_skipped(struct wc_summary *s)
{
	size_t k, o, said = 0;

	if (s->named_baseline || s->nsets < 2)
		return;
	for (k = 0; k < s->nsets && said < 4; k++) {
		const struct wc_sum_capture *c, *x;
		struct wc_finding *f;
		char keys[160];

		if (s->sets[k].ngroups > 1)
			continue;
		c = &s->caps[s->groups[s->sets[k].first].members[0]];
		o = k ? 0 : 1;
		x = &s->caps[s->groups[s->sets[o].first].members[0]];
		differing_keys(c->meta->comparable, x->meta->comparable, keys,
			       sizeof(keys));
		f = finding(s, WC_FIND_SKIPPED);
		str(f, "capture", c->meta->name);
		str(f, "differs_in", keys);
		say(f, "%s (group #%zu) is compared with no other configuration: "
		    "none has its disk, workload and scale; against %s, its "
		    "capture.conf differs in %s (--baseline compares across all "
		    "the same).", c->meta->name, c->group + 1, x->meta->name,
		    keys[0] ? keys : "a key too long to compare");
		said++;
	}
}

/* P(X >= k) for X the number of successes of independent trials of
 * probabilities p[0..n): the chance of k or more first runs slowest when
 * the run order does not matter. */
static double tail_at_least(const double *p, size_t n, size_t k)
{
	double d[257] = { 1 }, q = 0;
	size_t i, j;

	if (n > 256)
		n = 256;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j > 0; j--)
			d[j] = d[j] * (1 - p[i]) + d[j - 1] * p[i];
		d[0] *= 1 - p[i];
	}
	for (j = k; j <= n; j++)
		q += d[j];
	return q;
}

/* Whether each configuration's first run (its lowest run number) is its
 * slowest more often than chance would make it: over the groups of
 * three runs or more, all numbered, the count of groups whose first run
 * has the longest wall (and, apart, the most busy time), against the
 * Poisson-binomial tail with 1/n a group (docs/methodology.md, "Bias"). */
static void find_run_order(struct wc_summary *s)
{
	double p[256], excess_wall = 0, excess_off = 0, excess_busy = 0;
	double tail_wall, tail_busy;
	const char *names[256];
	size_t g, j, ng = 0, kw = 0, kb = 0, nn = 0;
	int run = -1;
	struct wc_finding *f;
	char list[256];

	for (g = 0; g < s->ngroups && ng < 256; g++) {
		const struct wc_sum_group *gr = &s->groups[g];
		size_t first = 0, sw = 0, sb = 0;
		double ow = 0, oo = 0, ob = 0;

		if (gr->n < 3)
			continue;
		for (j = 0; j < gr->n; j++)
			if (s->caps[gr->members[j]].meta->run <= 0)
				break;
		if (j < gr->n)
			continue;
		for (j = 1; j < gr->n; j++) {
			const struct wc_sum_capture *c = &s->caps[gr->members[j]];

			if (c->meta->run < s->caps[gr->members[first]].meta->run)
				first = j;
		}
		for (j = 0; j < gr->n; j++) {
			const struct wc_sum_capture *c = &s->caps[gr->members[j]];

			if (c->meas[WC_MEAS_WALL] >
			    s->caps[gr->members[sw]].meas[WC_MEAS_WALL])
				sw = j;
			if (c->meas[WC_MEAS_BUSY] >
			    s->caps[gr->members[sb]].meas[WC_MEAS_BUSY])
				sb = j;
			if (j == first)
				continue;
			ow += c->meas[WC_MEAS_WALL];
			oo += c->meas[WC_MEAS_OFF_DEVICE];
			ob += c->meas[WC_MEAS_BUSY];
		}
		{
			const struct wc_sum_capture *c =
				&s->caps[gr->members[first]];
			double m = (double)(gr->n - 1);

			excess_wall += c->meas[WC_MEAS_WALL] - ow / m;
			excess_off += c->meas[WC_MEAS_OFF_DEVICE] - oo / m;
			excess_busy += c->meas[WC_MEAS_BUSY] - ob / m;
			if (run < 0 || c->meta->run < run)
				run = c->meta->run;
			if (nn < 256)
				names[nn++] = c->meta->name;
		}
		kw += sw == first;
		kb += sb == first;
		p[ng++] = 1.0 / (double)gr->n;
	}
	if (ng < 2)
		return;
	tail_wall = tail_at_least(p, ng, kw);
	tail_busy = tail_at_least(p, ng, kb);
	f = finding(s, WC_FIND_RUN_ORDER);
	num(f, "groups", (double)ng);
	num(f, "first_slowest_wall", (double)kw);
	num(f, "chance_wall", tail_wall);
	num(f, "first_slowest_busy", (double)kb);
	num(f, "chance_busy", tail_busy);
	num(f, "excess_wall_s", excess_wall / (double)ng);
	num(f, "excess_off_device_s", excess_off / (double)ng);
	num(f, "excess_busy_s", excess_busy / (double)ng);
	num(f, "effect", tail_wall < 0.05 || tail_busy < 0.05);
	say(f, "Run order: each configuration's first run (run %d where "
	    "numbered so) was its slowest in %zu of %zu groups of three runs or "
	    "more on the wall (%.2g by chance) and in %zu on the device's busy "
	    "time (%.2g by chance)", run, kw, ng, tail_wall, kb, tail_busy);
	if (tail_wall >= 0.05 && tail_busy >= 0.05) {
		say(f, ": no run-order effect.");
		return;
	}
	names_of(names, nn, list, sizeof(list));
	str(f, "runs", list);
	say(f, ": a run-order effect. On average it took %+.3f s longer than "
	    "the other runs, %+.3f s of it off the device and %+.3f s on it. "
	    "Its runs (%s) carry a warm-up or a drift of the host; "
	    "--drop-first leaves them out.", excess_wall / (double)ng,
	    excess_off / (double)ng, excess_busy / (double)ng, list);
}

/* The value of key in a "k=v;" list into buf, or false. */
static bool host_value(const char *host, const char *key, char *buf,
		       size_t size)
{
	size_t kl = strlen(key);

	while (*host) {
		size_t l = strcspn(host, ";");

		if (l > kl && !strncmp(host, key, kl) && host[kl] == '=') {
			snprintf(buf, size, "%.*s", (int)(l - kl - 1),
				 host + kl + 1);
			return true;
		}
		host += l + (host[l] == ';');
	}
	return false;
}

/* Compared captures whose recorded host state or tools differ: per key,
 * the most common value and the captures with another (at most three
 * keys); and load averages before the captures far apart. */
static void find_host_state(struct wc_summary *s)
{
	static const char *const keys[] = {
		"tool_version", "tool_commit", "kernel", "recorder",
		"host_cpus", "host_mem_total_kb", "vm_dirty_ratio",
		"vm_dirty_background_ratio", "vm_dirty_bytes",
		"vm_dirty_background_bytes", "vm_dirty_expire_centisecs",
		"vm_dirty_writeback_centisecs",
	};
	struct wc_finding *f = NULL;
	size_t k, i, j, said = 0, lo = 0, hi = 0, nl = 0;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]) && said < 3; k++) {
		char v[128], w[128], common[128] = "", odd[128] = "";
		const char *odd_names[256];
		size_t best = 0, nodd = 0, nwith = 0;
		char list[256];

		/* The most common value: the one most captures share. */
		for (i = 0; i < s->ncaps; i++) {
			size_t same = 0;

			if (!host_value(s->caps[i].meta->host, keys[k], v,
					sizeof(v)))
				continue;
			nwith++;
			for (j = 0; j < s->ncaps; j++)
				if (host_value(s->caps[j].meta->host, keys[k], w,
					       sizeof(w)) && !strcmp(v, w))
					same++;
			if (same > best) {
				best = same;
				snprintf(common, sizeof(common), "%s", v);
			}
		}
		if (best == nwith)
			continue;
		for (i = 0; i < s->ncaps; i++)
			if (host_value(s->caps[i].meta->host, keys[k], v,
				       sizeof(v)) && strcmp(v, common)) {
				if (!odd[0])
					snprintf(odd, sizeof(odd), "%s", v);
				if (nodd < 256)
					odd_names[nodd++] = s->caps[i].meta->name;
			}
		if (!f) {
			f = finding(s, WC_FIND_HOST_STATE);
			say(f, "Compared captures were recorded on unlike hosts "
			    "or tools:");
		}
		names_of(odd_names, nodd, list, sizeof(list));
		if (said < 2)
			str(f, keys[k], list);
		say(f, "%s %s: %zu capture%s %s, %s (%s)%s", said ? ";" : "",
		    keys[k], best, best == 1 ? "" : "s", common, odd, list,
		    nodd > 1 ? " and others" : "");
		said++;
	}
	for (i = 0; i < s->ncaps; i++) {
		double l = s->caps[i].meta->load_before;

		if (l < 0)
			continue;
		if (!nl || l < s->caps[lo].meta->load_before)
			lo = i;
		if (!nl || l > s->caps[hi].meta->load_before)
			hi = i;
		nl++;
	}
	if (nl > 1 && s->caps[hi].meta->load_before >
		      2 * s->caps[lo].meta->load_before &&
	    s->caps[hi].meta->load_before -
		    s->caps[lo].meta->load_before > 1) {
		if (!f) {
			f = finding(s, WC_FIND_HOST_STATE);
			say(f, "Compared captures were recorded on unlike hosts:");
		} else {
			say(f, ";");
		}
		num(f, "load_min", s->caps[lo].meta->load_before);
		num(f, "load_max", s->caps[hi].meta->load_before);
		say(f, " the load average before them ranged from %.2f (%s) to "
		    "%.2f (%s)", s->caps[lo].meta->load_before,
		    s->caps[lo].meta->name, s->caps[hi].meta->load_before,
		    s->caps[hi].meta->name);
	}
	if (f)
		say(f, ". Their walls carry that difference; the device's time "
		    "much less.");
}

/* Captures that ended with data unwritten: of a copy, less data written
 * on the main device than the source holds (90 %), or Dirty at the end
 * over 16 MiB (capture.conf host_dirty_kb_end).  At most three named. */
static void find_dirty(struct wc_summary *s)
{
	const char *names[256];
	struct wc_finding *f;
	size_t i, n = 0;
	const struct wc_sum_capture *first = NULL;
	char list[256];

	for (i = 0; i < s->ncaps && n < 256; i++) {
		const struct wc_sum_capture *c = &s->caps[i];
		uint64_t written = c->figs.bytes[WC_CAT_DATA_WRITE];
		bool copy = strstr(c->meta->config, "copy-delete;") != NULL;

		if ((copy && c->meta->source_bytes &&
		     (double)written < 0.9 * (double)c->meta->source_bytes) ||
		    c->meta->dirty_kb_end > 16 * 1024) {
			if (!first)
				first = c;
			names[n++] = c->meta->name;
		}
	}
	if (!n)
		return;
	f = finding(s, WC_FIND_DIRTY);
	names_of(names, n, list, sizeof(list));
	str(f, "captures", list);
	num(f, "count", (double)n);
	num(f, "written_bytes", (double)first->figs.bytes[WC_CAT_DATA_WRITE]);
	say(f, "Dirty data was still pending when the trace ended in %s: ",
	    list);
	if (first->meta->source_bytes)
		say(f, "%s wrote %.0f MiB of data to its main device against a "
		    "%.0f MiB source", first->meta->name,
		    (double)first->figs.bytes[WC_CAT_DATA_WRITE] / 1048576.0,
		    (double)first->meta->source_bytes / 1048576.0);
	else
		say(f, "%s", first->meta->name);
	if (first->meta->dirty_kb_end >= 0)
		say(f, "%sDirty was %.0f MiB when its workload ended",
		    first->meta->source_bytes ? ", and " : " ",
		    (double)first->meta->dirty_kb_end / 1024.0);
	say(f, ". The writing of the rest is not in the trace: end the "
	    "command with sync to measure it.");
}

static int findings(struct wc_summary *s)
{
	const struct wc_sum_capture *slow = &s->caps[0];
	size_t i;

	/* Three on the slowest capture, a difference and at most one skip
	 * a set, then those on the whole comparison. */
	s->findings = calloc(3 + 2 * s->nsets + 5, sizeof(*s->findings));
	if (!s->findings)
		return -1;
	for (i = 1; i < s->ncaps; i++)
		if (s->caps[i].figs.wall_ns > slow->figs.wall_ns)
			slow = &s->caps[i];
	find_left_out(s);
	find_most_time(s, slow);
	find_idle(s, slow);
	find_flushes(s, slow);
	if (s->has_diff && s->named_baseline)
		find_difference(s, SIZE_MAX);
	else if (s->has_diff)
		for (i = 0; i < s->nsets; i++)
			find_difference(s, i);
	find_skipped(s);
	find_run_order(s);
	find_host_state(s);
	find_dirty(s);
	return 0;
}

/* ---- the whole --------------------------------------------------------- */

/* Why capture i is left out (summary.h, wc_summary_opts), or NULL: a
 * warm-up, a run --exclude-runs names, or, with --drop-first, the
 * lowest-numbered run of a configuration that has two runs or more left
 * (the first in input order when none is numbered). */
static const char *left_out(struct wc_analysis *const *caps, size_t n,
			    size_t i, const struct wc_summary_opts *o,
			    bool warmups_out)
{
	const struct wc_capture_meta *m = wc_analysis_meta(caps[i]);
	size_t j, k, first = n, others = 0;

	if (m->warmup && warmups_out)
		return "warm-up";
	for (k = 0; m->run > 0 && k < o->nexclude; k++)
		if (o->exclude_runs[k] == m->run)
			return "--exclude-runs";
	if (!o->drop_first || !m->config[0])
		return NULL;
	for (j = 0; j < n; j++) {
		const struct wc_capture_meta *x = wc_analysis_meta(caps[j]);
		bool excluded = x->warmup && warmups_out;

		for (k = 0; x->run > 0 && k < o->nexclude; k++)
			if (o->exclude_runs[k] == x->run)
				excluded = true;
		if (excluded || strcmp(x->config, m->config))
			continue;
		others++;
		if (first == n || (x->run > 0 &&
		    (wc_analysis_meta(caps[first])->run <= 0 ||
		     x->run < wc_analysis_meta(caps[first])->run)))
			first = j;
	}
	return others > 1 && first == i ? "--drop-first" : NULL;
}

int wc_summary_build_opts(struct wc_summary **out,
			  struct wc_analysis *const *caps, size_t n,
			  const struct wc_summary_opts *opts, struct wc_err *err)
{
	static const struct wc_summary_opts none;
	const struct wc_summary_opts *o = opts ? opts : &none;
	const char *baseline = o->baseline;
	struct wc_summary *s;
	struct wc_analysis **kept = NULL;
	size_t i, bi, nk = 0;
	bool warmups_out = false;

	*out = NULL;
	/* Warm-ups are left out of a comparison with measured runs, not
	 * when they are all there is. */
	for (i = 0; !o->keep_warmups && i < n; i++)
		if (!wc_analysis_meta(caps[i])->warmup)
			warmups_out = true;
	s = calloc(1, sizeof(*s));
	kept = calloc(n ? n : 1, sizeof(*kept));
	if (!s || !kept)
		goto fail_summary;
	s->left_out = calloc(n ? n : 1, sizeof(*s->left_out));
	s->left_out_why = calloc(n ? n : 1, sizeof(*s->left_out_why));
	if (!s->left_out || !s->left_out_why)
		goto fail_summary;
	for (i = 0; i < n; i++) {
		const char *why = left_out(caps, n, i, o, warmups_out);

		if (why) {
			s->left_out[s->nleft_out] = wc_analysis_meta(caps[i]);
			s->left_out_why[s->nleft_out++] = why;
		} else {
			kept[nk++] = caps[i];
		}
	}
	if (n && !nk) {
		free(kept);
		wc_summary_free(s);
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "every capture was left out of the comparison "
				  "(warm-ups, --exclude-runs, --drop-first)");
	}
	if (o->baseline_index && o->baseline_index <= n)
		baseline = wc_analysis_meta(caps[o->baseline_index - 1])->name;
	for (bi = 0; baseline && bi < nk; bi++)
		if (o->baseline_index && o->baseline_index <= n ?
		    kept[bi] == caps[o->baseline_index - 1] :
		    !strcmp(wc_analysis_meta(kept[bi])->name, baseline))
			break;
	if (baseline && bi == nk) {
		bool gone = false;

		for (i = 0; i < s->nleft_out; i++)
			if (!strcmp(s->left_out[i]->name, baseline))
				gone = true;
		free(kept);
		wc_summary_free(s);
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  gone ? "the baseline '%s' was left out of the "
				  "comparison (a warm-up, --exclude-runs or "
				  "--drop-first)" : "no capture named '%s' for "
				  "--baseline", baseline);
	}
	n = nk;
	s->ncaps = n;
	s->named_baseline = baseline;
	s->equiv_s = o->equiv_s > 0 ? o->equiv_s : 0;
	s->equiv_share = o->equiv_share > 0 ? o->equiv_share :
			 WC_EQUIV_SHARE_DEFAULT;
	s->caps = calloc(n ? n : 1, sizeof(*s->caps));
	if (!s->caps)
		goto fail_summary;
	for (i = 0; i < n; i++)
		if (fill_capture(&s->caps[i], kept[i]) < 0)
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
	free(kept);
	*out = s;
	return 0;

fail_summary:
	free(kept);
	wc_summary_free(s);
	return wc_err_oom(err, NULL, NULL);
}

int wc_summary_build(struct wc_summary **out, struct wc_analysis *const *caps,
		     size_t n, const char *baseline, struct wc_err *err)
{
	struct wc_summary_opts o = { .baseline = baseline,
				     .keep_warmups = true };

	return wc_summary_build_opts(out, caps, n, &o, err);
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
		free((void *)s->caps[i].procs);
	}
	free(s->members);
	free(s->left_out);
	free((void *)s->left_out_why);
	free(s->caps);
	free(s->groups);
	free(s->sets);
	free(s->findings);
	free(s);
}
