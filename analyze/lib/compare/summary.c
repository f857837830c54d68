/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compare/summary.h"
#include "analysis/capsule.h"
#include "base/map.h"
#include "compare/findings.h"
#include "compare/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const col_key[WC_NCOLS] = {
	"wall", "busy", "flush", "journal", "metadata", "positioning", "data",
	"discard", "other",
};

static const char *const part_label[WC_NPARTS] = {
	"flush", "journal", "metadata", "data read", "data write", "discard",
	"other device time", "time off the device", "destage (no request)",
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
	[WC_FIND_MODEL_ERROR] = "model_error",
	[WC_FIND_WHOLE] = "whole_trace",
	[WC_FIND_KCOUNTERS] = "kernel_counters",
	[WC_FIND_JOURNAL_GUESSED] = "journal_guessed",
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
	if (part == WC_PART_INTERNAL)
		return "destage_no_request";
	return wc_cat_name((enum wc_cat)part);
}

const char *wc_part_label(int part)
{
	return part >= 0 && part < WC_NPARTS ? part_label[part] : "?";
}

const char *wc_finding_kind_name(enum wc_finding_kind k)
{
	return (size_t)k < sizeof(kind_name) / sizeof(kind_name[0]) &&
	       kind_name[k] ? kind_name[k] : "?";
}

const char *wc_onoff(int v)
{
	return v == 1 ? "on" : v == 0 ? "off" : "?";
}

/* ---- one capture ------------------------------------------------------- */

/* g may be NULL: nothing completed in the window, all of it idle. */
/* The shares of the parts, once the parts are in. */
static void shares_of(struct wc_sum_figs *s)
{
	int k;

	for (k = 0; k < WC_NPARTS; k++)
		s->share[k] = pct(s->part_ns[k], s->wall_ns);
	s->busy_pct = pct(s->wall_ns - s->part_ns[WC_PART_IDLE] -
			  s->outstanding_ns, s->wall_ns);
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
		s->col[WC_COL_WALL] = wc_secs(wall_ns);
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
	s->part_ns[WC_PART_INTERNAL] = g->internal_ns;
	s->internal_known = g->internal_known;
	s->internal_ranges = g->internal_ranges;
	s->internal_bytes = g->internal_bytes;
	s->outstanding_ns = g->outstanding_ns;
	data = g->time_ns[WC_CAT_DATA_READ] + g->time_ns[WC_CAT_DATA_WRITE];
	s->col[WC_COL_WALL] = wc_secs(g->window_ns);
	s->col[WC_COL_BUSY] = wc_secs(wc_figures_busy(g));
	s->col[WC_COL_FLUSH] = wc_secs(g->time_ns[WC_CAT_FLUSH]);
	s->col[WC_COL_JOURNAL] = wc_secs(g->time_ns[WC_CAT_JOURNAL]);
	s->col[WC_COL_METADATA] = wc_secs(g->time_ns[WC_CAT_METADATA]);
	s->col[WC_COL_POSITIONING] = g->positioning_known ?
				     wc_secs(g->positioning_ns) : -1;
	s->col[WC_COL_DATA] = wc_secs(data);
	s->col[WC_COL_DISCARD] = wc_secs(g->time_ns[WC_CAT_DISCARD]);
	s->col[WC_COL_OTHER] = wc_secs(g->time_ns[WC_CAT_OTHER]);
	s->split_s = wc_secs(g->time_ns[WC_CAT_JOURNAL] +
			  g->time_ns[WC_CAT_METADATA] + data +
			  g->destage_positioning_ns + g->destage_transfer_ns);
	s->destage_s[0] = g->positioning_known ?
			  wc_secs(g->destage_positioning_ns) : -1;
	s->destage_s[1] = g->positioning_known ?
			  wc_secs(g->destage_transfer_ns) : -1;
	shares_of(s);
}

static void device_of(struct wc_sum_device *d, const struct wc_capsule *cap,
		      size_t i, const struct wc_capture_meta *m)
{
	const struct wc_capsule_device *cd = wc_capsule_device(cap, i);
	const struct wc_figures *g = &cd->figs;
	size_t j;

	d->device = g->device;
	d->raw = g;
	for (j = 0; j < m->ndevices; j++)
		if (m->devices[j].device == g->device && m->devices[j].name[0])
			d->name = m->devices[j].name;
	figs_of(&d->figs, g, 0);
	d->media_rate = cd->media_rate;
	d->media_rate_estimated = cd->media_rate_estimated;
	d->queue_mean = g->window_ns ?
			(double)g->inflight_ns / (double)g->window_ns : 0;
	d->seek_pct = pct(g->seeks, g->seek_candidates);
}

static void btt_of(struct wc_sum_btt *s, const struct wc_capsule *c)
{
	if (!c->btt)
		return;
	s->on = true;
	s->q2c = c->q2c;
	s->d2c = c->d2c;
	s->q2c_mean_s = wc_btt_mean_s(&s->q2c);
	s->d2c_mean_s = wc_btt_mean_s(&s->d2c);
	s->forgotten = c->btt_forgotten;
	s->ignored = c->btt_ignored;
}

/* The kernel's counters of a capture without them. */
static const struct wc_kcheck kc_none = { .state = WC_KC_NONE };

/* The disk of partitions, when the accountant made one: its figures,
 * its name from its partitions' ("loop1+loop2"), its split. */
static int disk_of(struct wc_sum_capture *c, const struct wc_capsule *ac)
{
	const struct wc_capture_meta *m = c->meta;
	uint64_t busy;
	size_t k, j, len = 0;

	if (!ac->disk)
		return 0;
	c->nparts = ac->nparts;
	c->parts = calloc(c->nparts, sizeof(*c->parts));
	if (!c->parts)
		return -1;
	device_of(&c->disk, ac, ac->ndevices, m);
	busy = wc_figures_busy(c->disk.raw);
	for (k = 0; k < c->nparts; k++) {
		const struct wc_account_part *pt = &ac->parts[k];
		struct wc_sum_part *p = &c->parts[k];

		p->device = pt->device;
		for (j = 0; j < m->ndevices; j++) {
			if (m->devices[j].device != pt->device)
				continue;
			if (m->devices[j].name[0])
				p->name = m->devices[j].name;
			if (m->devices[j].role[0])
				p->role = m->devices[j].role;
		}
		p->requests = pt->requests;
		p->bytes = pt->bytes;
		p->busy_s = wc_secs(pt->busy_ns);
		p->busy_pct = pct(pt->busy_ns, busy);
		if (len < sizeof(c->disk_name))
			len += (size_t)snprintf(c->disk_name + len,
						sizeof(c->disk_name) - len,
						"%s%s", k ? "+" : "",
						p->name ? p->name : "?");
	}
	c->disk.name = c->disk_name;
	snprintf(c->disk_said, sizeof(c->disk_said), "the disk %s",
		 c->disk_name);
	return 0;
}

/* The account's devices and waits, the tracker's and btt's counts. */
static int fill_devices(struct wc_sum_capture *c, const struct wc_capsule *a)
{
	const struct wc_wait **w;
	const double *v = c->figs.col;
	size_t i;

	c->partial = a->partial;
	c->missing = a->missing[0] ? a->missing : NULL;
	c->filter = a->filter[0] ? a->filter : NULL;
	c->tracking = &a->tracking;
	c->kcheck = a->kcheck ? a->kcheck : &kc_none;
	btt_of(&c->btt, a);
	c->positioning_pct = c->figs.split_s > 0 && v[WC_COL_POSITIONING] >= 0 ?
			     100 * v[WC_COL_POSITIONING] / c->figs.split_s : 0.0;
	c->ndevices = a->ndevices;
	if (c->ndevices) {
		c->devices = calloc(c->ndevices, sizeof(*c->devices));
		if (!c->devices)
			return -1;
	}
	for (i = 0; i < c->ndevices; i++)
		device_of(&c->devices[i], a, i, c->meta);
	if (disk_of(c, a) < 0)
		return -1;
	if (a->main >= 0) {
		size_t m = (size_t)a->main;

		c->main = m < c->ndevices ? &c->devices[m] : &c->disk;
		c->nprocs = a->nprocs;
		if (c->nprocs) {
			w = calloc(c->nprocs, sizeof(*w));
			if (!w)
				return -1;
			for (i = 0; i < c->nprocs; i++)
				w[i] = &a->procs[i];
			c->procs = w;
		}
	}
	c->nwaits = a->nwaits;
	if (!c->nwaits)
		return 0;
	w = calloc(c->nwaits, sizeof(*w));
	if (!w)
		return -1;
	for (i = 0; i < c->nwaits; i++)
		w[i] = &a->waits[i];
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
		c->meas[k] = wc_secs(g->part_ns[k]);
	c->meas[WC_MEAS_BUSY] = wc_secs(g->wall_ns - g->part_ns[WC_PART_IDLE] -
				     g->outstanding_ns);
	c->meas[WC_MEAS_POSITIONING] = g->col[WC_COL_POSITIONING];
	c->meas[WC_MEAS_TRANSFER] = g->col[WC_COL_POSITIONING] < 0 ? -1 :
		split > g->col[WC_COL_POSITIONING] ?
		split - g->col[WC_COL_POSITIONING] : 0;
	c->meas[WC_MEAS_OFF_DEVICE] = wc_secs(g->part_ns[WC_PART_IDLE]);
	c->meas[WC_MEAS_WALL] = wc_secs(g->wall_ns);
}

/* The time off the main device, split (docs/methodology.md, "Off the
 * device"): first the time another traced device was busy while the
 * main one was idle (the union of all devices' service less the main
 * one's), then, of what is left, up to the command's CPU time
 * (phases.tsv user + sys), then the rest.  CPU time that overlapped a
 * device's work is not known apart: the split gives the CPU the benefit
 * of the doubt only in time no traced device explains.  A window
 * (--window, --phase) takes the times of the phases it holds whole;
 * phases.tsv gives a phase's CPU time only whole, so a window that cuts
 * one leaves the CPU part unknown (cpu_cut names that phase). */
static void off_split(struct wc_sum_capture *c, const struct wc_capsule *a)
{
	uint64_t idle = c->figs.part_ns[WC_PART_IDLE];
	uint64_t busy = c->figs.wall_ns - idle - c->figs.outstanding_ns;
	uint64_t any, other, cpu;
	double wall = 0, user_sys = 0;
	size_t p;

	any = a->busy_any;
	other = any > busy ? any - busy : 0;
	if (other > idle)
		other = idle;
	c->meas[WC_MEAS_OFF_OTHER] = wc_secs(other);
	c->command_wall_s = c->command_cpu_s = -1;
	c->cpu_cut = NULL;
	c->meas[WC_MEAS_OFF_CPU] = c->meas[WC_MEAS_OFF_REST] = -1;
	if (!a->nphases)
		return;
	for (p = 0; p < a->nphases; p++) {
		const struct wc_phase_result *ph = &a->phases[p].result;

		if (ph->cut && ph->end > ph->start && ph->real_s > 0 &&
		    !c->cpu_cut)
			c->cpu_cut = ph->name;
		if (ph->cut)
			continue;
		wall += ph->real_s;
		user_sys += ph->user_s + ph->sys_s;
	}
	/* phases.tsv without its time columns (they read as 0), or a
	 * window whose CPU time is not known. */
	if (wall <= 0 || c->cpu_cut)
		return;
	c->command_wall_s = wall;
	c->command_cpu_s = user_sys;
	cpu = user_sys * 1e9 < (double)(idle - other) ?
	      (uint64_t)llround(user_sys * 1e9) : idle - other;
	c->meas[WC_MEAS_OFF_CPU] = wc_secs(cpu);
	c->meas[WC_MEAS_OFF_REST] = wc_secs(idle - other - cpu);
}

/* When the command returned and its data was durable, against the
 * window whose figures are compared. */
static void durable_of(struct wc_sum_capture *c,
		       const struct wc_tracker_stats *st)
{
	const struct wc_capture_meta *m = c->meta;
	uint64_t start = c->figs.io ? c->figs.start_ns : st->first_time;

	if (!m->has_durable || start == WC_NO_TIME)
		return;
	c->has_durable = true;
	c->returned_s = ((double)m->returned_ns - (double)start) / 1e9;
	c->durable_s = ((double)m->durable_ns - (double)start) / 1e9;
	c->durable_bytes = m->durable_bytes;
	c->durable_in_window = m->durable_ns >= start &&
			       m->durable_ns - start <= c->figs.wall_ns;
}

static int fill_capture(struct wc_sum_capture *c, const struct wc_capsule *a)
{
	const struct wc_tracker_stats *st = &a->tracking;
	size_t p;

	c->cap = a;
	c->meta = &a->meta;
	figs_of(&c->figs, wc_capsule_main(a), st->first_time != WC_NO_TIME ?
		st->last_time - st->first_time : 0);
	durable_of(c, st);
	measures_of(c);
	if (fill_devices(c, a) < 0)
		return -1;
	off_split(c, a);
	c->nphases = a->nphases;
	if (!c->nphases)
		return 0;
	c->phases = calloc(c->nphases, sizeof(*c->phases));
	if (!c->phases)
		return -1;
	for (p = 0; p < c->nphases; p++) {
		const struct wc_phase_result *ph = &a->phases[p].result;

		c->phases[p].name = ph->name;
		c->phases[p].start_ns = ph->start;
		c->phases[p].end_ns = ph->end;
		c->phases[p].wall_s = ph->wall_s;
		figs_of(&c->phases[p].figs, a->main >= 0 ?
			&a->phases[p].figs : NULL,
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
	struct wc_acc acc = { 0 };
	double w;
	size_t j;

	for (j = 0; j < gr->n; j++)
		if (phase_wall(&s->caps[gr->members[j]], name, &w))
			wc_acc_add(&acc, w);
	wc_acc_stat(&acc, out);
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

const char *wc_summary_disk_name(const struct wc_sum_capture *c)
{
	if (c->meta->disk_model[0])
		return c->meta->disk_model;
	if (c->main && c->main->name) {
		/* A loop device's name changes from run to run; what it is
		 * does not. */
		if (!strncmp(c->main->name, "loop", 4))
			return "loop";
		return c->main->name;
	}
	return "unknown";
}

/* Room for one group more: the groups grow with the configurations
 * found, never with the captures (a thousand runs of two configurations
 * hold two groups).  first[g] is group g's first capture. */
static int grow_groups(struct wc_summary *s, size_t *room, size_t **first)
{
	size_t want = *room ? 2 * *room : 8;
	struct wc_sum_group *gs;
	size_t *fs;

	if (s->ngroups < *room)
		return 0;
	gs = realloc(s->groups, want * sizeof(*gs));
	if (!gs)
		return -1;
	s->groups = gs;
	memset(gs + *room, 0, (want - *room) * sizeof(*gs));
	fs = realloc(*first, want * sizeof(*fs));
	if (!fs)
		return -1;
	*first = fs;
	*room = want;
	return 0;
}

/* What a group's spreads are made of, one run at a time (stats.h). */
struct group_acc {
	struct wc_acc col[WC_NCOLS], part[WC_NPARTS], meas[WC_NMEAS];
};

/* Adds capture c's figures to its group's. */
static void group_add(struct group_acc *a, const struct wc_sum_capture *c)
{
	int k;

	for (k = 0; k < WC_NCOLS; k++)
		wc_acc_add(&a->col[k], c->figs.col[k]);
	for (k = 0; k < WC_NPARTS; k++)
		wc_acc_add(&a->part[k], wc_secs(c->figs.part_ns[k]));
	for (k = 0; k < WC_NMEAS; k++)
		wc_acc_add(&a->meas[k], c->meas[k]);
}

/* Groups by configuration key; a capture without one is alone.  Every
 * group's members sit in one array, s->members, in input order.  Each
 * group's spreads are summed as its captures come, in one pass. */
static int make_groups(struct wc_summary *s)
{
	size_t i, j, g, room = 0, *first = NULL, *at = NULL;
	struct group_acc *acc = NULL;
	int rc = -1;

	s->members = calloc(s->ncaps, sizeof(*s->members));
	if (!s->members)
		goto out;
	for (i = 0; i < s->ncaps; i++) {
		const char *key = s->caps[i].meta->config;

		for (g = 0; key[0] && g < s->ngroups; g++)
			if (!strcmp(s->caps[first[g]].meta->config, key))
				break;
		if (!key[0] || g == s->ngroups) {
			if (grow_groups(s, &room, &first) < 0)
				goto out;
			g = s->ngroups++;
			first[g] = i;
		}
		s->caps[i].group = g;
		s->groups[g].n++;
	}
	at = calloc(s->ngroups, sizeof(*at));
	acc = calloc(s->ngroups, sizeof(*acc));
	if (!at || !acc)
		goto out;
	for (g = 0, j = 0; g < s->ngroups; g++) {
		s->groups[g].members = s->members + j;
		j += s->groups[g].n;
	}
	for (i = 0; i < s->ncaps; i++) {
		const struct wc_sum_capture *c = &s->caps[i];

		g = c->group;
		s->groups[g].members[at[g]++] = i;
		if (c->nphases)
			s->groups[g].phased++;
		group_add(&acc[g], c);
	}
	for (g = 0; g < s->ngroups; g++) {
		struct wc_sum_group *gr = &s->groups[g];
		int k;

		gr->disk_model = s->caps[gr->members[0]].meta->disk_model;
		gr->disk_name = wc_summary_disk_name(&s->caps[gr->members[0]]);
		if (gr->n > 1)
			s->any_runs = true;
		for (k = 0; k < WC_NCOLS; k++)
			wc_acc_stat(&acc[g].col[k], &gr->col[k]);
		for (k = 0; k < WC_NPARTS; k++)
			wc_acc_stat(&acc[g].part[k], &gr->part[k]);
		for (k = 0; k < WC_NMEAS; k++)
			wc_acc_stat(&acc[g].meas[k], &gr->meas[k]);
	}
	rc = 0;
out:
	free(first);
	free(at);
	free(acc);
	return rc;
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
		wc_test_of(&gr->test[m], &gr->meas[m], &b->meas[m], gr->equiv_s);
		if (gr == b)
			gr->test[m].verdict = WC_VERDICT_BASELINE;
	}
	gr->verdict = gr->test[WC_MEAS_BUSY].verdict;
	gr->wall_verdict = gr->test[WC_MEAS_WALL].verdict;
}

/* A baseline group's mean parts over its phases of one name
 * (base_phase()), made once for all the captures compared with it
 * rather than once a capture: a thousand runs against a group of a
 * thousand made a million phase look-ups. */
struct phase_mean {
	const char *name;
	bool known;
	uint64_t part[WC_NPARTS];
};

struct phase_means {
	size_t n, room;
	struct phase_mean *m;
};

/* Group base's phase_mean of name, made when first asked; NULL when out
 * of memory. */
static const struct phase_mean *phase_mean_of(const struct wc_summary *s,
					      struct phase_means *pm,
					      size_t base, const char *name,
					      const struct wc_sum_figs **figs)
{
	struct phase_means *l = &pm[base];
	struct phase_mean *e;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->m[i].name, name))
			return &l->m[i];
	if (l->n == l->room) {
		size_t want = l->room ? 2 * l->room : 4;

		e = realloc(l->m, want * sizeof(*e));
		if (!e)
			return NULL;
		l->m = e;
		l->room = want;
	}
	e = &l->m[l->n++];
	e->name = name;
	e->known = base_phase(s, base, name, figs, e->part);
	return e;
}

static int differences(struct wc_summary *s)
{
	const struct wc_sum_figs **figs = calloc(s->ncaps, sizeof(*figs));
	struct phase_means *pm = calloc(s->ngroups, sizeof(*pm));
	size_t i, p, g;
	int rc = -1;

	if (!figs || !pm)
		goto out;
	for (i = 0; i < s->ncaps; i++) {
		struct wc_sum_capture *c = &s->caps[i];
		size_t bg = s->groups[c->group].base;

		diff_of(&c->diff, c->figs.part_ns, s->groups[bg].mean_part_ns);
		for (p = 0; p < c->nphases; p++) {
			struct wc_sum_phase *ph = &c->phases[p];
			const struct phase_mean *e =
				phase_mean_of(s, pm, bg, ph->name, figs);

			if (!e)
				goto out;
			if (e->known)
				diff_of(&ph->diff, ph->figs.part_ns, e->part);
		}
	}
	for (g = 0; g < s->ngroups; g++) {
		diff_of(&s->groups[g].diff, s->groups[g].mean_part_ns,
			s->groups[s->groups[g].base].mean_part_ns);
		verdict_of(s, &s->groups[g]);
	}
	rc = 0;
out:
	for (g = 0; pm && g < s->ngroups; g++)
		free(pm[g].m);
	free(pm);
	free(figs);
	return rc;
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

/* ---- the whole --------------------------------------------------------- */

/* Whether x is left out before --drop-first looks: a warm-up (when
 * they are left out) or a run --exclude-runs names. */
static const char *excluded(const struct wc_capture_meta *x,
			    const struct wc_summary_opts *o, bool warmups_out)
{
	size_t k;

	if (x->warmup && warmups_out)
		return "warm-up";
	for (k = 0; x->run > 0 && k < o->nexclude; k++)
		if (o->exclude_runs[k] == x->run)
			return "--exclude-runs";
	return NULL;
}

/* FNV-1a of a string, from h. */
static uint64_t fnv(uint64_t h, const char *str)
{
	const unsigned char *p;

	for (p = (const unsigned char *)str; *p; p++)
		h = (h ^ *p) * UINT64_C(0x100000001b3);
	return h;
}

/* With --drop-first, marks drop[i] for the lowest-numbered run of each
 * configuration that has two runs or more not excluded() (the first in
 * input order when none is numbered).  A capture finds its
 * configuration's first capture by one look-up of its key's hash
 * (base/map.h; keys of one hash compared whole), not by reading every
 * other capture: the pass costs about one look-up a capture. */
static int drop_firsts(struct wc_capsule *const *caps, size_t n,
		       const struct wc_summary_opts *o, bool warmups_out,
		       bool *drop)
{
	struct wc_map *seen = NULL;
	size_t i, r, *rep = NULL, *next = NULL, *count = NULL, *first = NULL;
	int rc = -1;

	rep = calloc(n ? n : 1, sizeof(*rep));
	next = calloc(n ? n : 1, sizeof(*next));
	count = calloc(n ? n : 1, sizeof(*count));
	first = calloc(n ? n : 1, sizeof(*first));
	if (!rep || !next || !count || !first ||
	    wc_map_open(&seen, sizeof(size_t), n ? n : 1, NULL) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		const struct wc_capture_meta *x = &caps[i]->meta;
		size_t *head;

		if (!x->config[0] || excluded(x, o, warmups_out))
			continue;
		if (wc_map_put(seen, fnv(UINT64_C(0xcbf29ce484222325),
					 x->config), (void **)&head, NULL) < 0)
			goto out;
		/* The chain of first captures of this hash, plus 1. */
		for (r = *head; r; r = next[r - 1])
			if (!strcmp(caps[r - 1]->meta.config, x->config))
				break;
		if (!r) {
			next[i] = *head;
			*head = i + 1;
			first[i] = n;
			r = i + 1;
		}
		rep[i] = --r;
		count[r]++;
		if (first[r] == n || (x->run > 0 &&
		    (caps[first[r]]->meta.run <= 0 ||
		     x->run < caps[first[r]]->meta.run)))
			first[r] = i;
	}
	for (i = 0; i < n; i++)
		drop[i] = caps[i]->meta.config[0] &&
			  !excluded(&caps[i]->meta, o, warmups_out) &&
			  count[rep[i]] > 1 && first[rep[i]] == i;
	rc = 0;
out:
	wc_map_free(seen);
	free(rep);
	free(next);
	free(count);
	free(first);
	return rc;
}

/* Why capture i is left out (summary.h, wc_summary_opts), or NULL: a
 * warm-up, a run --exclude-runs names, or, with --drop-first, the
 * lowest-numbered run of a configuration that has two runs or more left
 * (drop, from drop_firsts()). */
static const char *left_out(struct wc_capsule *const *caps, size_t i,
			    const struct wc_summary_opts *o,
			    bool warmups_out, const bool *drop)
{
	const char *why = excluded(&caps[i]->meta, o, warmups_out);

	if (why)
		return why;
	return o->drop_first && drop[i] ? "--drop-first" : NULL;
}

/* Whether a and b are one recording given twice: the same capture.conf
 * name and run, the same requests (digest), each an input of its own. */
static bool same_recording(const struct wc_capture_meta *a,
			   const struct wc_capture_meta *b)
{
	return a->digest == b->digest && a->run == b->run && a->input[0] &&
	       b->input[0] && !strcmp(a->name, b->name);
}

/* Where a recording is looked up: its digest, run and name mixed
 * (FNV-1a over the name), so that a thousand copies of one trace under
 * other names are not compared with each other; captures of one key are
 * compared whole (same_recording()). */
static uint64_t recording_key(const struct wc_capture_meta *m)
{
	return fnv(m->digest ^ (uint64_t)(uint32_t)m->run *
		   UINT64_C(0x9e3779b97f4a7c15), m->name);
}

/* Leaves out of caps[0..*n) every capture that is the same recording as
 * one before it (same_recording()), each listed in s->left_out with
 * why; *n becomes the count kept, and map[i] the position among them
 * of the i-th capture given (its first copy's when it was one).  Not
 * for a what-if, whose replays may be alike by design.  Each capture
 * is compared only with those kept of its key (recording_key()), not
 * with every one before it: the check costs about one look-up a
 * capture, whatever their number.  At most one kept capture can be
 * its copy (two would be copies of each other), so which is met first
 * does not matter. */
static int leave_out_copies(struct wc_summary *s, struct wc_capsule **caps,
			    size_t *n, size_t *map)
{
	struct wc_map *seen = NULL;
	size_t i, j, nk = 0, *next = NULL;
	int rc = -1;

	/* next[k]: the kept capture of k's key kept before it, plus 1. */
	next = calloc(*n ? *n : 1, sizeof(*next));
	if (!next || wc_map_open(&seen, sizeof(size_t), *n ? *n : 1,
				 NULL) < 0)
		goto out;
	for (i = 0; i < *n; i++) {
		const struct wc_capture_meta *m = &caps[i]->meta;
		const struct wc_capture_meta *x = NULL;
		size_t *head;
		char *why;

		if (wc_map_put(seen, recording_key(m), (void **)&head,
			       NULL) < 0)
			goto out;
		for (j = *head; j; j = next[j - 1]) {
			x = &caps[j - 1]->meta;
			if (same_recording(m, x))
				break;
		}
		if (!j) {
			map[i] = nk;
			next[nk] = *head;
			*head = nk + 1;
			caps[nk++] = caps[i];
			continue;
		}
		map[i] = j - 1;
		if (asprintf(&why, "%s: the same recording as %s", m->input,
			     x->input) < 0)
			goto out;
		s->same_why[s->nsame_why++] = why;
		s->left_out[s->nleft_out] = m;
		s->left_out_why[s->nleft_out++] = why;
	}
	*n = nk;
	rc = 0;
out:
	wc_map_free(seen);
	free(next);
	return rc;
}

int wc_summary_build_capsules(struct wc_summary **out,
			      struct wc_capsule *const *caps_given, size_t n,
			  const struct wc_summary_opts *opts, struct wc_err *err)
{
	static const struct wc_summary_opts none;
	struct wc_summary_opts oo = opts ? *opts : none;
	const struct wc_summary_opts *o = &oo;
	const char *baseline = o->baseline;
	struct wc_summary *s;
	struct wc_capsule **kept = NULL, **caps = NULL;
	size_t i, bi, ri = SIZE_MAX, nk = 0, *map = NULL, ngiven = n;
	bool warmups_out = false, *drop = NULL;
	int rc = 0;

	*out = NULL;
	/* Warm-ups are left out of a comparison with measured runs, not
	 * when they are all there is. */
	for (i = 0; !o->keep_warmups && i < n; i++)
		if (!caps_given[i]->meta.warmup)
			warmups_out = true;
	s = calloc(1, sizeof(*s));
	kept = calloc(n ? n : 1, sizeof(*kept));
	if (!s || !kept)
		goto fail_summary;
	s->left_out = calloc(n ? n : 1, sizeof(*s->left_out));
	s->left_out_why = calloc(n ? n : 1, sizeof(*s->left_out_why));
	s->same_why = calloc(n ? n : 1, sizeof(*s->same_why));
	caps = calloc(n ? n : 1, sizeof(*caps));
	map = calloc(n ? n : 1, sizeof(*map));
	if (!s->left_out || !s->left_out_why || !s->same_why || !caps || !map)
		goto fail_summary;
	/* One recording given twice counts once (summary.h): the copies
	 * go first, so that --drop-first and the baseline see each
	 * recording once; positions then count among those kept. */
	memcpy(caps, caps_given, n * sizeof(*caps));
	if (!o->recorded_index) {
		if (leave_out_copies(s, caps, &n, map) < 0)
			goto fail_summary;
		if (o->baseline_index && o->baseline_index <= ngiven)
			oo.baseline_index = map[o->baseline_index - 1] + 1;
	}
	if (o->drop_first) {
		drop = calloc(n ? n : 1, sizeof(*drop));
		if (!drop || drop_firsts(caps, n, o, warmups_out, drop) < 0)
			goto fail_summary;
	}
	for (i = 0; i < n; i++) {
		const char *why = left_out(caps, i, o, warmups_out, drop);

		if (why) {
			s->left_out[s->nleft_out] = &caps[i]->meta;
			s->left_out_why[s->nleft_out++] = why;
		} else {
			if (o->recorded_index == i + 1)
				ri = nk;
			kept[nk++] = caps[i];
		}
	}
	if (n && !nk) {
		rc = wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				"every capture was left out of the comparison "
				"(warm-ups, --exclude-runs, --drop-first)");
		goto free_scratch;
	}
	if (o->baseline_index && o->baseline_index <= n)
		baseline = caps[o->baseline_index - 1]->meta.name;
	for (bi = 0; baseline && bi < nk; bi++)
		if (o->baseline_index && o->baseline_index <= n ?
		    kept[bi] == caps[o->baseline_index - 1] :
		    !strcmp(kept[bi]->meta.name, baseline))
			break;
	if (baseline && bi == nk) {
		bool gone = false;

		for (i = 0; i < s->nleft_out; i++)
			if (!strcmp(s->left_out[i]->name, baseline))
				gone = true;
		rc = wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				gone ? "the baseline '%s' was left out of the "
				"comparison (a warm-up, --exclude-runs or "
				"--drop-first)" : "no capture named '%s' for "
				"--baseline", baseline);
		goto free_scratch;
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
	if (ri != SIZE_MAX) {
		s->replay = true;
		s->recorded_group = s->caps[ri].group;
	}
	if (baseline) {
		s->has_diff = true;
		s->base_group = s->caps[bi].group;
		ratios(s, &s->caps[bi]);
	} else {
		for (i = 0; i < s->nsets; i++)
			if (s->sets[i].ngroups > 1)
				s->has_diff = true;
	}
	for (i = 0; i < n; i++)
		if (s->caps[i].figs.internal_known)
			s->internal = true;
	if (s->has_diff) {
		choose_baselines(s);
		s->base_name = baseline ? baseline :
			       s->caps[s->groups[s->base_group].members[0]]
				       .meta->name;
		if (differences(s) < 0)
			goto fail_summary;
		for (i = 0; i < n; i++)
			if (s->caps[i].has_durable &&
			    !s->caps[i].durable_in_window)
				s->durable_outside++;
	}
	if (n && wc_summary_findings(s) < 0)
		goto fail_summary;
	*out = s;
	s = NULL;
	goto free_scratch;

fail_summary:
	rc = wc_err_oom(err, NULL, NULL);
free_scratch:
	free(drop);
	free(kept);
	free(caps);
	free(map);
	wc_summary_free(s);
	return rc;
}

int wc_summary_build_opts(struct wc_summary **out,
			  struct wc_analysis *const *as, size_t n,
			  const struct wc_summary_opts *opts, struct wc_err *err)
{
	struct wc_capsule **caps;
	size_t i;

	*out = NULL;
	caps = calloc(n ? n : 1, sizeof(*caps));
	if (!caps)
		return wc_err_oom(err, NULL, NULL);
	for (i = 0; i < n; i++)
		if (wc_capsule_of(&caps[i], as[i], err) < 0)
			goto free_caps;
	if (wc_summary_build_capsules(out, caps, n, opts, err) < 0)
		goto free_caps;
	/* The summary points into the capsules: it keeps them. */
	(*out)->owned = caps;
	(*out)->nowned = n;
	return 0;

free_caps:
	wc_capsules_free(caps, n);
	return -1;
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
		free(s->caps[i].parts);
		free((void *)s->caps[i].waits);
		free((void *)s->caps[i].procs);
	}
	free(s->members);
	free(s->left_out);
	free((void *)s->left_out_why);
	for (i = 0; s->same_why && i < s->nsame_why; i++)
		free(s->same_why[i]);
	free(s->same_why);
	free(s->caps);
	free(s->groups);
	free(s->sets);
	free(s->findings);
	wc_capsules_free(s->owned, s->nowned);
	free(s);
}
