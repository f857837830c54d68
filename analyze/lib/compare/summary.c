/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compare/summary.h"
#include "analysis/capsule.h"
#include "base/map.h"
#include "compare/findings.h"
#include "compare/stats.h"
#include "compare/summary_test.h"
#include "base/spool.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

	for (j = 0; gr->members && j < gr->n; j++)
		if (phase_wall(&s->caps[gr->members[j]], name, &w))
			wc_acc_add(&acc, w);
	wc_acc_stat(&acc, out);
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

/* A group's mean parts over its runs' phases of one name, the first of
 * that name in each run (a phase's difference is against them), summed
 * as the runs come; the mean in whole ns once they are all in. */
struct phase_acc {
	char name[64];
	size_t n;
	double sum[WC_NPARTS];
	uint64_t mean[WC_NPARTS];
};

/* What the build keeps of a group besides struct wc_sum_group: its
 * first capture (a copy) and row, its sums, its phases' sums (at most
 * WC_MAX_PHASES names: a phase of a name past them has no difference),
 * and where its member names are in the temporary file. */
struct gstate {
	struct wc_capsule *cap;
	struct wc_sum_capture row;
	struct group_acc acc;
	double part_sum[WC_NPARTS];
	size_t nph, ph_room;
	struct phase_acc *ph;          /* grown as names come */
	uint64_t head, tail;           /* offset + 1 of the first, last */
	size_t next;                   /* the next group of its hash, + 1 */
};

/* What --drop-first needs of one configuration: of its runs not left out
 * otherwise, how many and which is the first (its lowest run number,
 * else the first given), counting warm-ups ([0]) or not ([1]). */
struct cfg_first {
	size_t count, first;
	int run;
};

struct cfg {
	char *config;
	size_t next;                   /* the next of its hash, + 1 */
	struct cfg_first f[2];
};

/* One recording, as the first capture of it given (wc_summary_opts). */
struct recording {
	uint64_t digest, name2;
	size_t first;
	int run;
	char input[256];               /* its input, for the copy's why */
};

/* The recordings noted, as a Bloom filter: a recording not in it was
 * not given before, and only one that may be (a copy, or by chance
 * (1 - e^(-4n / 2^23))^4 of n: five in a million at 100,000) is looked
 * at again, once every capture is noted (plan_resolve()), so that what
 * the check keeps grows with the copies, not the captures.  1 MiB, 4
 * bits a key. */
#define RECORDINGS_BITS ((size_t)1 << 23)
#define RECORDINGS_HASHES 4

/* What to leave out, noted as the captures come the first time
 * (summary.h, struct wc_summary_plan): what it keeps grows with the
 * recordings (the copies' map) and the configurations, nothing else. */
struct wc_summary_plan {
	struct wc_summary_opts o;
	size_t ngiven;
	bool any_measured;             /* a capture not a warm-up */
	bool warmups_out;              /* once every capture is noted */
	uint64_t *bloom;               /* bloom_bits, once a key */
	size_t bloom_bits;             /* RECORDINGS_BITS (summary_test.h) */
	struct wc_map *maybe;          /* keys of the recordings that may
	                                * have been given before (a set) */
	struct wc_map *copies;         /* a copy's position -> its first's */
	struct wc_map *cfg_of;         /* config_key() -> cfg index + 1 */
	struct cfg *cfgs;
	size_t ncfgs, cfg_room;
	size_t base_at;                /* the baseline's position, or
	                                * SIZE_MAX: by name, or none */
	char *base_name;               /* the baseline's name, owned */
	size_t rec_at;                 /* the recording's (a what-if) */
	struct wc_capsule *rec;        /* and a copy of it */
	bool rec_kept;
	/* The first three copies: the position of each and of the first
	 * capture of its recording, whose input the why names. */
	size_t ncopy_need;
	size_t copy_at[3], copy_first[3];
	char copy_input[3][256];
};

struct wc_sum_state {
	struct wc_summary_src src;
	struct wc_summary_plan *p;
	bool keep_rows;
	/* The groups. */
	struct gstate **gs;
	size_t gs_room;
	/* config_key() -> the index + 1 of the last group made of that
	 * key, a chain through gstate.next: a capture finds its group in
	 * time independent of the number of groups (a group a capture, when
	 * every capture.conf says another configuration). */
	struct wc_map *group_of;
	size_t compares;               /* configurations compared (tests) */
	/* The member names: records, each the offset + 1 of the next of
	 * its group (0: the last), the name's length (2 bytes) and the
	 * name; in memory up to NAMES_IN_MEMORY bytes, then in an unnamed
	 * temporary file (spool.h), so that a comparison of a few
	 * captures needs no TMPDIR. */
	struct wc_spool *names;
	struct wc_sum_held base;       /* the named baseline */
	bool base_gone;                /* a capture left out has its name */
	size_t durable_outside;
	struct wc_find_acc find;
};

/* ---- the member names ------------------------------------------------- */

/* The member names held in memory before they go to a file: about a
 * thousand names of the samples' length. */
#define NAMES_IN_MEMORY ((size_t)64 << 10)

/* Appends name to group gs's chain of member names. */
static int member_put(struct wc_sum_state *st, struct gstate *gs,
		      const char *name, struct wc_err *err)
{
	unsigned char rec[8 + 2 + 256];
	size_t len = strnlen(name, 255);
	uint64_t end = wc_spool_size(st->names), at = end + 1, none = 0;

	memcpy(rec, &none, 8);
	rec[8] = (unsigned char)(len & 0xff);
	rec[9] = (unsigned char)(len >> 8);
	memcpy(rec + 10, name, len);
	if (wc_spool_put(st->names, rec, 10 + len, end, err) < 0)
		return -1;
	if (gs->tail && wc_spool_put(st->names, &at, 8, gs->tail - 1,
				     err) < 0)
		return -1;
	if (!gs->head)
		gs->head = at;
	gs->tail = at;
	return 0;
}

int wc_summary_member(const struct wc_summary *s, size_t g, uint64_t *at,
		      char *name, size_t size, struct wc_err *err)
{
	const struct wc_sum_state *st = s->st;
	unsigned char head[10];
	char buf[256];
	uint64_t next;
	size_t len;

	if (!*at)
		*at = g < s->ngroups ? st->gs[g]->head : 0;
	if (!*at || *at == UINT64_MAX)
		return 0;
	if (wc_spool_get(st->names, head, sizeof(head), *at - 1, err) < 0)
		return -1;
	memcpy(&next, head, 8);
	len = (size_t)head[8] | (size_t)head[9] << 8;
	if (len > 255)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "the comparison's temporary file is not "
				  "as written");
	if (wc_spool_get(st->names, buf, len, *at - 1 + 10, err) < 0)
		return -1;
	buf[len] = '\0';
	snprintf(name, size, "%s", buf);
	*at = next ? next : UINT64_MAX;
	return 1;
}

/* ---- rows -------------------------------------------------------------- */

static void row_clear(struct wc_sum_capture *c)
{
	free(c->phases);
	free(c->devices);
	free(c->parts);
	free((void *)c->waits);
	free((void *)c->procs);
	memset(c, 0, sizeof(*c));
}

/* ---- differences ------------------------------------------------------- */

/* a - b, clamped to +-2^58 ns (9 years): a hostile trace can hold times
 * that far apart, and a difference of parts must fit in an
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

/* Group g's phase_acc of name, or NULL when none of its runs has one. */
static const struct phase_acc *phase_acc_of(const struct wc_summary *s,
					    size_t g, const char *name)
{
	const struct gstate *gs = s->st->gs[g];
	size_t i;

	for (i = 0; i < gs->nph; i++)
		if (!strcmp(gs->ph[i].name, name))
			return &gs->ph[i];
	return NULL;
}

static double ratio(double v, double base)
{
	return v < 0 || base <= 0 ? -1 : v / base;
}

/* A row's differences and ratios, once the groups are made: against
 * its baseline group's means (summary.h) and the named baseline's
 * figures. */
static void row_finish(const struct wc_summary *s, struct wc_sum_capture *c)
{
	const struct wc_sum_capture *base = s->st->base.cap ?
					    &s->st->base.row : NULL;
	size_t p;
	int k;

	if (s->named_baseline && base) {
		c->has_ratio = true;
		for (k = 0; k < WC_NCOLS; k++)
			c->ratio[k] = ratio(c->figs.col[k], base->figs.col[k]);
		for (p = 0; p < c->nphases; p++) {
			struct wc_sum_phase *ph = &c->phases[p];
			const struct wc_sum_phase *bp =
				wc_summary_phase(base, ph->name);

			if (!bp)
				continue;
			ph->has_ratio = true;
			for (k = 0; k < WC_NCOLS; k++)
				ph->ratio[k] = ratio(ph->figs.col[k],
						     bp->figs.col[k]);
		}
	}
	if (!s->has_diff)
		return;
	{
		size_t bg = s->groups[c->group].base;

		diff_of(&c->diff, c->figs.part_ns, s->groups[bg].mean_part_ns);
		for (p = 0; p < c->nphases; p++) {
			struct wc_sum_phase *ph = &c->phases[p];
			const struct phase_acc *e = phase_acc_of(s, bg, ph->name);

			if (e)
				diff_of(&ph->diff, ph->figs.part_ns, e->mean);
		}
	}
}

/* Capture cap's row in c (cleared first): its figures, its group g and
 * place in it, and with finished its differences and ratios. */
static int row_make(const struct wc_summary *s, struct wc_sum_capture *c,
		    const struct wc_capsule *cap, size_t g, size_t rank,
		    bool finished)
{
	row_clear(c);
	if (fill_capture(c, cap) < 0)
		return -1;
	c->group = g;
	c->rank = rank;
	if (finished)
		row_finish(s, c);
	return 0;
}

int wc_sum_held_set(struct wc_sum_held *h, const struct wc_capsule *cap,
		    size_t group, size_t rank)
{
	struct wc_capsule *d = wc_capsule_dup(cap);

	if (!d)
		return -1;
	wc_sum_held_clear(h);
	h->cap = d;
	h->group = group;
	h->rank = rank;
	return 0;
}

int wc_sum_held_row(const struct wc_summary *s, struct wc_sum_held *h)
{
	if (!h->cap || h->made)
		return 0;
	if (row_make(s, &h->row, h->cap, h->group, h->rank, true) < 0)
		return -1;
	h->made = true;
	return 0;
}

void wc_sum_held_clear(struct wc_sum_held *h)
{
	row_clear(&h->row);
	wc_capsule_free(h->cap);
	memset(h, 0, sizeof(*h));
}

const char *wc_summary_base_name(const struct wc_summary *s, size_t g)
{
	if (!s->has_diff || g >= s->ngroups)
		return NULL;
	if (s->named_baseline)
		return s->named_baseline;
	return s->groups[s->groups[g].base].first->meta->name;
}

/* ---- what is left out -------------------------------------------------- */

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

/* Where a configuration is looked up (its groups, its --drop-first
 * record): a key under the process's secret (map.h), so that summaries
 * whose configurations were written to share a key or a slot, as
 * FNV-1a's can be, meet no longer chains than any others. */
static uint64_t config_key(const char *config)
{
	return wc_map_key_of(config, strlen(config));
}

/* Where a recording is looked up: its digest, run and name under the
 * process's secret, so that a thousand copies of one trace under other
 * names are not compared with each other, and no one can write names
 * that share a key with another recording's (which would hide its
 * copies: a key's first recording is the one kept). */
static uint64_t recording_key(const struct wc_capture_meta *m)
{
	unsigned char b[8 + 4 + sizeof(m->name)];
	uint32_t run = (uint32_t)m->run;
	size_t n = strnlen(m->name, sizeof(m->name));

	memcpy(b, &m->digest, 8);
	memcpy(b + 8, &run, 4);
	memcpy(b + 12, m->name, n);
	return wc_map_key_of(b, 12 + n);
}

/* A second hash of the name, from another basis: a recording is told
 * by its digest, run and both hashes of its name, not by the name
 * itself, which is not kept. */
static uint64_t name2(const char *name)
{
	return fnv(UINT64_C(0x84222325cbf29ce4), name);
}

/* Whether capture i (m) is one recording given again: the same
 * capture.conf name and run, the same requests (digest), each an input
 * of its own, as a capture given before it.  *first: that capture. */
static bool copy_of(const struct wc_summary_plan *p,
		    const struct wc_capture_meta *m, size_t i, size_t *first)
{
	const size_t *f;

	if (!p->copies || !m->input[0])
		return false;
	f = wc_map_get(p->copies, i);
	if (!f)
		return false;
	*first = *f;
	return true;
}

/* The filter's bits of key, by double hashing. */
static size_t bloom_bit(uint64_t key, int j, size_t bits)
{
	uint64_t h2 = (key ^ key >> 31) * UINT64_C(0x9e3779b97f4a7c15) | 1;

	return (size_t)((key + (uint64_t)j * h2) % bits);
}

/* Whether key may have been noted; notes it. */
static bool bloom_seen(uint64_t *bloom, size_t bits, uint64_t key)
{
	bool seen = true;
	int j;

	for (j = 0; j < RECORDINGS_HASHES; j++) {
		size_t b = bloom_bit(key, j, bits);

		if (!(bloom[b / 64] >> (b % 64) & 1)) {
			seen = false;
			bloom[b / 64] |= (uint64_t)1 << (b % 64);
		}
	}
	return seen;
}

/* The --drop-first record of config, or NULL. */
static struct cfg *cfg_find(const struct wc_summary_plan *p, const char *config)
{
	const size_t *head = p->cfg_of ?
			     wc_map_get(p->cfg_of, config_key(config)) : NULL;
	size_t k;

	for (k = head ? *head : 0; k; k = p->cfgs[k - 1].next)
		if (!strcmp(p->cfgs[k - 1].config, config))
			return &p->cfgs[k - 1];
	return NULL;
}

static struct cfg *cfg_add(struct wc_summary_plan *p, const char *config)
{
	struct cfg *c = cfg_find(p, config);
	size_t *head;

	if (c)
		return c;
	if (p->ncfgs == p->cfg_room) {
		size_t want = p->cfg_room ? 2 * p->cfg_room : 8;

		c = realloc(p->cfgs, want * sizeof(*c));
		if (!c)
			return NULL;
		p->cfgs = c;
		p->cfg_room = want;
	}
	if (wc_map_put(p->cfg_of, config_key(config), (void **)&head,
		       NULL) < 0)
		return NULL;
	c = &p->cfgs[p->ncfgs];
	memset(c, 0, sizeof(*c));
	c->config = strdup(config);
	if (!c->config)
		return NULL;
	c->next = *head;
	*head = ++p->ncfgs;
	return c;
}

static void cfg_count(struct cfg_first *f, size_t i, int run)
{
	if (!f->count++ ||
	    (run > 0 && (f->run <= 0 || run < f->run))) {
		f->first = i;
		f->run = run;
	}
}

/* Why capture i (m) is left out, or NULL: one recording given again
 * (*copy), a warm-up, a run --exclude-runs names, or, with
 * --drop-first, the lowest-numbered run of a configuration that has two
 * runs or more left. */
static const char *left_out(const struct wc_summary_plan *p,
			    const struct wc_capture_meta *m, size_t i,
			    bool *copy, size_t *first)
{
	const char *why;
	const struct cfg *c;

	*copy = copy_of(p, m, i, first);
	if (*copy)
		return "a copy";
	why = excluded(m, &p->o, p->warmups_out);
	if (why || !p->o.drop_first || !m->config[0])
		return why;
	c = cfg_find(p, m->config);
	if (c && c->f[p->warmups_out].count > 1 &&
	    c->f[p->warmups_out].first == i)
		return "--drop-first";
	return NULL;
}

int wc_summary_plan_open(struct wc_summary_plan **out,
			 const struct wc_summary_opts *opts, struct wc_err *err)
{
	static const struct wc_summary_opts none;
	struct wc_summary_plan *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return wc_err_oom(err, NULL, NULL);
	p->o = opts ? *opts : none;
	p->base_at = p->rec_at = SIZE_MAX;
	p->bloom_bits = RECORDINGS_BITS;
	if ((!p->o.recorded_index &&
	     (wc_map_open(&p->copies, sizeof(size_t), (size_t)1 << 40,
			  err) < 0 ||
	      wc_map_open(&p->maybe, 0, (size_t)1 << 40, err) < 0)) ||
	    (p->o.drop_first &&
	     wc_map_open(&p->cfg_of, sizeof(size_t), (size_t)1 << 40,
			 err) < 0)) {
		wc_summary_plan_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

/* Which captures are copies of one recording, each configuration's
 * first run, whether warm-ups are left out, which is the baseline (by
 * position) and the recording (a what-if): capture cap, the next. */
int wc_summary_plan_add(struct wc_summary_plan *p,
			const struct wc_capsule *cap, struct wc_err *err)
{
	const struct wc_capture_meta *m = &cap->meta;
	size_t i = p->ngiven;
	void *none;

	if (!m->warmup)
		p->any_measured = true;
	/* A recording given again: known for sure once every capture is
	 * noted (plan_resolve()). */
	if (p->maybe && m->input[0]) {
		if (!p->bloom) {
			p->bloom = calloc(p->bloom_bits / 64,
					  sizeof(*p->bloom));
			if (!p->bloom)
				return wc_err_oom(err, NULL, NULL);
		}
		if (bloom_seen(p->bloom, p->bloom_bits, recording_key(m)) &&
		    wc_map_put(p->maybe, recording_key(m), &none, err) < 0)
			return -1;
	}
	if (p->o.baseline_index == i + 1) {
		p->base_at = i;
		p->base_name = strdup(m->name);
		if (!p->base_name)
			return wc_err_oom(err, NULL, NULL);
	}
	if (p->o.recorded_index == i + 1) {
		p->rec_at = i;
		p->rec = wc_capsule_dup(cap);
		if (!p->rec)
			return wc_err_oom(err, NULL, NULL);
	}
	/* A copy counts here, and is taken back once known: it never
	 * comes first, as its recording's first capture, of the same run
	 * and left out or not alike, came before it. */
	if (p->o.drop_first && m->config[0] && !excluded(m, &p->o, false)) {
		struct cfg *c = cfg_add(p, m->config);

		if (!c)
			return wc_err_oom(err, NULL, NULL);
		cfg_count(&c->f[0], i, m->run);
		if (!m->warmup)
			cfg_count(&c->f[1], i, m->run);
	}
	p->ngiven++;
	return 0;
}

/* Which of the captures that may be a recording given again are: a
 * reading of the source, when some may be.  Each such capture is then
 * taken back from its configuration's --drop-first count, and a
 * baseline given by its position becomes its recording's first. */
static int plan_resolve(struct wc_summary_plan *p,
			const struct wc_summary_src *src, struct wc_err *err)
{
	struct wc_map *seen = NULL;
	const struct wc_capsule *cap;
	size_t i = 0;
	int r;

	if (!p->maybe || !wc_map_count(p->maybe))
		return 0;
	if (wc_map_open(&seen, sizeof(struct recording), (size_t)1 << 40,
			err) < 0)
		return -1;
	r = src->rewind(src->ctx, err);
	while (!r && (r = src->next(src->ctx, &cap, err)) > 0) {
		const struct wc_capture_meta *m = &cap->meta;
		uint64_t key = recording_key(m);
		struct recording *rec = NULL;
		size_t *first;

		r = 0;
		if (!m->input[0] || !wc_map_get(p->maybe, key)) {
			i++;
			continue;
		}
		if (wc_map_put(seen, key, (void **)&rec, err) == WC_MAP_ADDED) {
			rec->digest = m->digest;
			rec->name2 = name2(m->name);
			rec->run = m->run;
			rec->first = i;
			snprintf(rec->input, sizeof(rec->input), "%s",
				 m->input);
		} else if (!rec) {
			r = -1;
		} else if (rec->digest == m->digest && rec->run == m->run &&
			   rec->name2 == name2(m->name)) {
			if (wc_map_put(p->copies, i, (void **)&first,
				       err) < 0) {
				r = -1;
				break;
			}
			*first = rec->first;
			if (p->ncopy_need < 3) {
				p->copy_at[p->ncopy_need] = i;
				p->copy_first[p->ncopy_need] = rec->first;
				snprintf(p->copy_input[p->ncopy_need++],
					 sizeof(p->copy_input[0]), "%s",
					 rec->input);
			}
			if (p->base_at == i)
				p->base_at = rec->first;
			if (p->o.drop_first && m->config[0] &&
			    !excluded(m, &p->o, false)) {
				struct cfg *c = cfg_find(p, m->config);

				c->f[0].count--;
				if (!m->warmup)
					c->f[1].count--;
			}
		}
		i++;
	}
	wc_map_free(seen);
	return r < 0 ? -1 : 0;
}

/* Once every capture is noted. */
static void plan_end(struct wc_summary_plan *p)
{
	/* Warm-ups are left out of a comparison with measured runs, not
	 * when they are all there is. */
	p->warmups_out = !p->o.keep_warmups && p->any_measured;
	if (p->rec) {
		bool copy;
		size_t first;

		p->rec_kept = !left_out(p, &p->rec->meta, p->rec_at, &copy,
					&first);
	}
}

void wc_summary_plan_set_bloom_bits(struct wc_summary_plan *p, size_t bits)
{
	if (!p->bloom && bits >= 64 && bits % 64 == 0)
		p->bloom_bits = bits;
}

size_t wc_summary_plan_maybe(const struct wc_summary_plan *p)
{
	return p->maybe ? wc_map_count(p->maybe) : 0;
}

size_t wc_summary_group_compares(const struct wc_summary *s)
{
	return s && s->st ? s->st->compares : 0;
}

const struct wc_map *wc_summary_group_map(const struct wc_summary *s)
{
	return s && s->st ? s->st->group_of : NULL;
}

void wc_summary_plan_free(struct wc_summary_plan *p)
{
	size_t i;

	if (!p)
		return;
	free(p->bloom);
	wc_map_free(p->maybe);
	wc_map_free(p->copies);
	wc_map_free(p->cfg_of);
	for (i = 0; i < p->ncfgs; i++)
		free(p->cfgs[i].config);
	free(p->cfgs);
	free(p->base_name);
	wc_capsule_free(p->rec);
	free(p);
}

/* ---- the groups, as the captures come ---------------------------------- */

/* The group of a capture of config, among the groups[0..*seen) made
 * so far in this reading, or a new one (*seen grows): a capture without
 * a configuration is a group of its own. */
static size_t group_find(const struct wc_summary *s, const char *config,
			 size_t *seen)
{
	struct wc_sum_state *st = s->st;
	const size_t *head = config[0] && st->group_of ?
			     wc_map_get(st->group_of, config_key(config)) :
			     NULL;
	size_t k;

	for (k = head ? *head : 0; k; k = st->gs[k - 1]->next) {
		if (k - 1 >= *seen)
			continue;
		st->compares++;
		if (!strcmp(st->gs[k - 1]->cap->meta.config, config))
			return k - 1;
	}
	return (*seen)++;
}

/* A new group for capture cap, its first. */
/* Group g's configuration into the hash group_find() looks in.  A plain
 * trace's (no configuration: a group of its own) is not. */
static int group_hash(struct wc_sum_state *st, size_t g, struct wc_err *err)
{
	const char *config = st->gs[g]->cap->meta.config;
	size_t *head;

	if (!config[0])
		return 0;
	if (!st->group_of &&
	    wc_map_open(&st->group_of, sizeof(size_t), (size_t)1 << 40,
			err) < 0)
		return -1;
	if (wc_map_put(st->group_of, config_key(config), (void **)&head,
		       err) < 0)
		return -1;
	st->gs[g]->next = *head;
	*head = g + 1;
	return 0;
}

static int group_new(struct wc_summary *s, const struct wc_capsule *cap,
		     struct wc_err *err)
{
	struct wc_sum_state *st = s->st;
	size_t g = s->ngroups;

	if (g == st->gs_room) {
		size_t want = st->gs_room ? 2 * st->gs_room : 8;
		struct wc_sum_group *groups;
		struct gstate **gs;

		groups = realloc(s->groups, want * sizeof(*groups));
		if (!groups)
			return wc_err_oom(err, NULL, NULL);
		s->groups = groups;
		gs = realloc(st->gs, want * sizeof(*gs));
		if (!gs)
			return wc_err_oom(err, NULL, NULL);
		st->gs = gs;
		st->gs_room = want;
	}
	memset(&s->groups[g], 0, sizeof(s->groups[g]));
	st->gs[g] = calloc(1, sizeof(*st->gs[g]));
	if (!st->gs[g])
		return wc_err_oom(err, NULL, NULL);
	s->ngroups++;
	st->gs[g]->cap = wc_capsule_dup(cap);
	if (!st->gs[g]->cap)
		return wc_err_oom(err, NULL, NULL);
	return group_hash(st, g, err);
}

/* Adds row c's phases to its group's sums: the first of each name; -1
 * when out of memory. */
static int group_phases(struct gstate *gs, const struct wc_sum_capture *c)
{
	size_t p, q, i;
	int k;

	for (p = 0; p < c->nphases; p++) {
		const struct wc_sum_phase *ph = &c->phases[p];
		struct phase_acc *e = NULL;

		for (q = 0; q < p && strcmp(c->phases[q].name, ph->name); q++)
			;
		if (q < p)
			continue;
		for (i = 0; i < gs->nph; i++)
			if (!strcmp(gs->ph[i].name, ph->name))
				e = &gs->ph[i];
		if (!e && gs->nph < WC_MAX_PHASES) {
			if (gs->nph == gs->ph_room) {
				size_t want = gs->ph_room ? 2 * gs->ph_room : 4;

				e = realloc(gs->ph, want * sizeof(*e));
				if (!e)
					return -1;
				gs->ph = e;
				gs->ph_room = want;
			}
			e = &gs->ph[gs->nph++];
			memset(e, 0, sizeof(*e));
			snprintf(e->name, sizeof(e->name), "%s", ph->name);
		}
		if (!e)
			continue;
		e->n++;
		for (k = 0; k < WC_NPARTS; k++)
			e->sum[k] += (double)ph->figs.part_ns[k];
	}
	return 0;
}

/* Capture i, kept, as the second reading gives it: into its group, the
 * group's sums and member names, the summary's flags and the
 * findings. */
static int add_capture(struct wc_summary *s, const struct wc_capsule *cap,
		       size_t i, size_t *seen, struct wc_sum_capture *c,
		       struct wc_err *err)
{
	struct wc_sum_state *st = s->st;
	const struct wc_capture_meta *m = &cap->meta;
	struct gstate *gs;
	size_t g = group_find(s, m->config, seen);
	int k;

	if (g == s->ngroups && group_new(s, cap, err) < 0)
		return -1;
	gs = st->gs[g];
	if (row_make(s, c, cap, g, s->groups[g].n, false) < 0)
		return wc_err_oom(err, NULL, NULL);
	s->groups[g].n++;
	s->ncaps++;
	if (member_put(st, gs, m->name, err) < 0)
		return -1;
	group_add(&gs->acc, c);
	for (k = 0; k < WC_NPARTS; k++)
		gs->part_sum[k] += (double)c->figs.part_ns[k];
	if (group_phases(gs, c) < 0)
		return wc_err_oom(err, NULL, NULL);
	if (c->nphases) {
		s->groups[g].phased++;
		s->any_phases = true;
	}
	if (c->main && c->main == &c->disk) {
		s->any_disk = true;
		if (c->nparts > s->most_parts)
			s->most_parts = c->nparts;
	}
	if (c->figs.internal_known)
		s->internal = true;
	if (c->has_durable && !c->durable_in_window)
		st->durable_outside++;
	if (st->p->rec && i == st->p->rec_at) {
		s->replay = true;
		s->recorded_group = g;
	}
	if (s->named_baseline && !st->base.cap &&
	    (st->p->base_at != SIZE_MAX ? i == st->p->base_at :
	     !strcmp(m->name, s->named_baseline)) &&
	    wc_sum_held_set(&st->base, cap, g, c->rank) < 0)
		return wc_err_oom(err, NULL, NULL);
	if (wc_findings_add(&st->find, c, st->p->rec && st->p->rec_kept &&
			    i != st->p->rec_at && (!m->config[0] ||
			    strcmp(m->config, st->p->rec->meta.config))) < 0)
		return wc_err_oom(err, NULL, NULL);
	return 0;
}

/* The second reading: the groups and what the findings need. */
static int read_groups(struct wc_summary *s, struct wc_err *err)
{
	struct wc_sum_state *st = s->st;
	struct wc_sum_capture c;
	const struct wc_capsule *cap;
	size_t i = 0, seen = 0, first;
	bool copy;
	int r;

	memset(&c, 0, sizeof(c));
	if (st->src.rewind(st->src.ctx, err) < 0)
		return -1;
	while ((r = st->src.next(st->src.ctx, &cap, err)) > 0) {
		const struct wc_capture_meta *m = &cap->meta;
		const char *why = left_out(st->p, m, i, &copy, &first);
		size_t k;

		if (why) {
			char same[544] = "";

			s->nleft_out++;
			if (s->named_baseline && (st->p->base_at != SIZE_MAX ?
			    i == st->p->base_at : !strcmp(m->name,
						       s->named_baseline)))
				st->base_gone = true;
			for (k = 0; copy && k < st->p->ncopy_need; k++)
				if (st->p->copy_at[k] == i)
					snprintf(same, sizeof(same), "%s: the "
						 "same recording as %s",
						 m->input, st->p->copy_input[k]);
			wc_findings_left_out(&st->find, m->name,
					     copy ? same : why, copy);
		} else if (add_capture(s, cap, i, &seen, &c, err) < 0) {
			r = -1;
			break;
		}
		i++;
	}
	row_clear(&c);
	return r < 0 ? -1 : 0;
}

/* The comparable sets (summary.h), in the order of their first group. */
static int make_sets(struct wc_summary *s)
{
	size_t g, k;

	s->sets = calloc(s->ngroups ? s->ngroups : 1, sizeof(*s->sets));
	if (!s->sets)
		return -1;
	for (g = 0; g < s->ngroups; g++) {
		const char *key = s->groups[g].first->meta->comparable;

		for (k = 0; k < s->nsets; k++)
			if (!strcmp(s->groups[s->sets[k].first].first->meta
				    ->comparable, key))
				break;
		if (k == s->nsets)
			s->sets[s->nsets++].first = g;
		s->groups[g].set = k;
		s->sets[k].ngroups++;
	}
	return 0;
}

/* Each group's figures from its sums: spreads, mean parts (rounded to
 * whole ns; the mean wall is their sum, so that differences against it
 * add up exactly), its phases' means, its first capture's row. */
static int group_figures(struct wc_summary *s)
{
	size_t g, i;
	int k;

	for (g = 0; g < s->ngroups; g++) {
		struct wc_sum_group *gr = &s->groups[g];
		struct gstate *gs = s->st->gs[g];

		if (row_make(s, &gs->row, gs->cap, g, 0, false) < 0)
			return -1;
		gr->first = &gs->row;
		gr->disk_model = gs->cap->meta.disk_model;
		gr->disk_name = wc_summary_disk_name(&gs->row);
		if (gr->n > 1)
			s->any_runs = true;
		for (k = 0; k < WC_NCOLS; k++)
			wc_acc_stat(&gs->acc.col[k], &gr->col[k]);
		for (k = 0; k < WC_NPARTS; k++)
			wc_acc_stat(&gs->acc.part[k], &gr->part[k]);
		for (k = 0; k < WC_NMEAS; k++)
			wc_acc_stat(&gs->acc.meas[k], &gr->meas[k]);
		gr->mean_wall_ns = 0;
		for (k = 0; k < WC_NPARTS; k++) {
			gr->mean_part_ns[k] = gr->n ? (uint64_t)llround(
				gs->part_sum[k] / (double)gr->n) : 0;
			gr->mean_wall_ns += gr->mean_part_ns[k];
		}
		for (i = 0; i < gs->nph; i++)
			for (k = 0; k < WC_NPARTS; k++)
				gs->ph[i].mean[k] = (uint64_t)llround(
					gs->ph[i].sum[k] /
					(double)gs->ph[i].n);
	}
	return 0;
}

/* Same disk: capture.conf's disk and disk_model both equal. */
static bool same_disk(const struct wc_summary *s, size_t a, size_t b)
{
	const struct wc_capture_meta *x = s->groups[a].first->meta;
	const struct wc_capture_meta *y = s->groups[b].first->meta;

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
		st->base_name = s->groups[st->base_group].first->meta->name;
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

/* ---- the rows, read again ---------------------------------------------- */

struct wc_sum_rows {
	const struct wc_summary *s;
	size_t i, k, seen;             /* given, kept, groups met */
	size_t *rank;                  /* runs given so far, per group */
	struct wc_sum_capture row;
};

int wc_summary_rows(const struct wc_summary *s, struct wc_sum_rows **out,
		    struct wc_err *err)
{
	struct wc_sum_rows *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return wc_err_oom(err, NULL, NULL);
	r->s = s;
	if (!s->caps) {
		r->rank = calloc(s->ngroups ? s->ngroups : 1,
				 sizeof(*r->rank));
		if (!r->rank) {
			wc_summary_rows_free(r);
			return wc_err_oom(err, NULL, NULL);
		}
		if (s->st->src.rewind(s->st->src.ctx, err) < 0) {
			wc_summary_rows_free(r);
			return -1;
		}
	}
	*out = r;
	return 0;
}

/* The next row read again from the source, into r->row. */
static int row_next(struct wc_sum_rows *r, bool finished, struct wc_err *err)
{
	const struct wc_summary *s = r->s;
	const struct wc_sum_state *st = s->st;
	const struct wc_capsule *cap;
	size_t first, g;
	bool copy;
	int got;

	while ((got = st->src.next(st->src.ctx, &cap, err)) > 0) {
		size_t i = r->i++;

		if (left_out(st->p, &cap->meta, i, &copy, &first))
			continue;
		g = group_find(s, cap->meta.config, &r->seen);
		if (g >= s->ngroups)
			return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL,
					  WC_NO_OFFSET, "the comparison's "
					  "captures changed between readings");
		if (row_make(s, &r->row, cap, g, r->rank[g]++, finished) < 0)
			return wc_err_oom(err, NULL, NULL);
		r->k++;
		return 1;
	}
	return got;
}

int wc_summary_rows_next(struct wc_sum_rows *r,
			 const struct wc_sum_capture **row, struct wc_err *err)
{
	int got;

	if (r->s->caps) {
		if (r->k >= r->s->ncaps)
			return 0;
		*row = &r->s->caps[r->k++];
		return 1;
	}
	got = row_next(r, true, err);
	if (got > 0)
		*row = &r->row;
	return got;
}

void wc_summary_rows_free(struct wc_sum_rows *r)
{
	if (!r)
		return;
	row_clear(&r->row);
	free(r->rank);
	free(r);
}

/* With keep_rows: every row kept, in caps, with each group's members
 * (a third reading, whose capsules the rows then point into). */
static int keep_rows(struct wc_summary *s, struct wc_err *err)
{
	struct wc_sum_rows *r = NULL;
	size_t g, j, *at = NULL;
	int got, rc = -1;

	s->caps = calloc(s->ncaps ? s->ncaps : 1, sizeof(*s->caps));
	s->members = calloc(s->ncaps ? s->ncaps : 1, sizeof(*s->members));
	at = calloc(s->ngroups ? s->ngroups : 1, sizeof(*at));
	if (!s->caps || !s->members || !at) {
		wc_err_oom(err, NULL, NULL);
		goto out;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->rank = calloc(s->ngroups ? s->ngroups : 1,
				     sizeof(*r->rank)))) {
		wc_err_oom(err, NULL, NULL);
		goto out;
	}
	r->s = s;
	if (s->st->src.rewind(s->st->src.ctx, err) < 0)
		goto out;
	for (g = 0, j = 0; g < s->ngroups; g++) {
		s->groups[g].members = s->members + j;
		j += s->groups[g].n;
	}
	/* The rows are made in place: a row points into itself (its disk
	 * of partitions). */
	while (r->k < s->ncaps) {
		struct wc_sum_capture *c = &s->caps[r->k];

		got = row_next(r, true, err);
		if (got <= 0) {
			if (!got)
				wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL,
					   WC_NO_OFFSET, "the comparison's "
					   "captures changed between readings");
			goto out;
		}
		*c = r->row;
		memset(&r->row, 0, sizeof(r->row));
		if (c->main == &r->row.disk)
			c->main = &c->disk;
		if (c->disk.name == r->row.disk_name)
			c->disk.name = c->disk_name;
		s->groups[c->group].members[at[c->group]++] = r->k - 1;
	}
	rc = 0;
out:
	wc_summary_rows_free(r);
	free(at);
	return rc;
}

/* ---- the whole --------------------------------------------------------- */

int wc_summary_build_planned(struct wc_summary **out,
			     const struct wc_summary_src *src,
			     struct wc_summary_plan *plan, bool keep,
			     struct wc_err *err)
{
	struct wc_summary *s;
	struct wc_sum_state *st;
	size_t g, i;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		wc_summary_plan_free(plan);
		return wc_err_oom(err, NULL, NULL);
	}
	st = s->st = calloc(1, sizeof(*st));
	if (!st) {
		wc_summary_plan_free(plan);
		goto fail_oom;
	}
	st->p = plan;
	st->src = *src;
	st->keep_rows = keep;
	s->find = &st->find;
	if (plan_resolve(plan, src, err) < 0)
		goto fail;
	plan_end(plan);
	s->named_baseline = plan->base_name ? plan->base_name :
			    plan->o.baseline;
	s->equiv_s = plan->o.equiv_s > 0 ? plan->o.equiv_s : 0;
	s->equiv_share = plan->o.equiv_share > 0 ? plan->o.equiv_share :
			 WC_EQUIV_SHARE_DEFAULT;
	/* The names open with a mark: no name is read at offset 0 of
	 * their file, where a reading from the start of a member copied
	 * aside is (input.h; t86 counts those). */
	if (wc_spool_open(&st->names, NAMES_IN_MEMORY,
			  "the comparison's member names", err) < 0 ||
	    wc_spool_put(st->names, "wcnames\n", 8, 0, err) < 0)
		goto fail;
	if (read_groups(s, err) < 0)
		goto fail;
	if (plan->ngiven && !s->ncaps) {
		wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
			   "every capture was left out of the comparison "
			   "(warm-ups, --exclude-runs, --drop-first)");
		goto fail;
	}
	if (s->named_baseline && !st->base.cap) {
		wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
			   st->base_gone ? "the baseline '%s' was left out of "
			   "the comparison (a warm-up, --exclude-runs or "
			   "--drop-first)" : "no capture named '%s' for "
			   "--baseline", s->named_baseline);
		goto fail;
	}
	if (group_figures(s) < 0 || make_sets(s) < 0)
		goto fail_oom;
	if (s->named_baseline) {
		s->has_diff = true;
		s->base_group = st->base.group;
	} else {
		for (i = 0; i < s->nsets; i++)
			if (s->sets[i].ngroups > 1)
				s->has_diff = true;
	}
	if (s->has_diff) {
		choose_baselines(s);
		s->base_name = s->named_baseline ? s->named_baseline :
			       s->groups[s->base_group].first->meta->name;
		for (g = 0; g < s->ngroups; g++) {
			diff_of(&s->groups[g].diff, s->groups[g].mean_part_ns,
				s->groups[s->groups[g].base].mean_part_ns);
			verdict_of(s, &s->groups[g]);
		}
		s->durable_outside = st->durable_outside;
	}
	/* The named baseline's row first: every other's ratios are to
	 * it. */
	if (st->base.cap) {
		if (row_make(s, &st->base.row, st->base.cap, st->base.group,
			     st->base.rank, false) < 0)
			goto fail_oom;
		row_finish(s, &st->base.row);
		st->base.made = true;
	}
	for (g = 0; g < s->ngroups; g++)
		row_finish(s, &st->gs[g]->row);
	if (s->ncaps && wc_summary_findings(s, &st->find) < 0)
		goto fail_oom;
	if (keep && keep_rows(s, err) < 0)
		goto fail;
	if (keep)
		memset(&st->src, 0, sizeof(st->src));
	*out = s;
	return 0;

fail_oom:
	wc_err_oom(err, NULL, NULL);
fail:
	wc_summary_free(s);
	return -1;
}

int wc_summary_build_src(struct wc_summary **out,
			 const struct wc_summary_src *src,
			 const struct wc_summary_opts *opts, bool keep,
			 struct wc_err *err)
{
	struct wc_summary_plan *plan = NULL;
	const struct wc_capsule *cap;
	int r;

	*out = NULL;
	if (wc_summary_plan_open(&plan, opts, err) < 0)
		return -1;
	/* The first reading, for the plan alone. */
	r = src->rewind(src->ctx, err);
	while (!r && (r = src->next(src->ctx, &cap, err)) > 0)
		r = wc_summary_plan_add(plan, cap, err) < 0 ? -1 : 0;
	if (r < 0) {
		wc_summary_plan_free(plan);
		return -1;
	}
	return wc_summary_build_planned(out, src, plan, keep, err);
}

/* The captures of an array, as a source. */
struct array_src {
	struct wc_capsule *const *caps;
	size_t n, at;
};

static int array_next(void *ctx, const struct wc_capsule **cap,
		      struct wc_err *err)
{
	struct array_src *a = ctx;

	(void)err;
	if (a->at >= a->n)
		return 0;
	*cap = a->caps[a->at++];
	return 1;
}

static int array_rewind(void *ctx, struct wc_err *err)
{
	struct array_src *a = ctx;

	(void)err;
	a->at = 0;
	return 0;
}

int wc_summary_build_capsules(struct wc_summary **out,
			      struct wc_capsule *const *caps, size_t n,
			      const struct wc_summary_opts *opts,
			      struct wc_err *err)
{
	struct array_src a = { .caps = caps, .n = n };
	const struct wc_summary_src src = {
		.next = array_next, .rewind = array_rewind, .ctx = &a,
	};

	return wc_summary_build_src(out, &src, opts, true, err);
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
	struct wc_sum_state *st;
	size_t i;

	if (!s)
		return;
	st = s->st;
	for (i = 0; s->caps && i < s->ncaps; i++)
		row_clear(&s->caps[i]);
	free(s->caps);
	free(s->members);
	free(s->groups);
	free(s->sets);
	free(s->findings);
	if (st) {
		for (i = 0; i < s->ngroups; i++) {
			if (!st->gs[i])
				continue;
			row_clear(&st->gs[i]->row);
			wc_capsule_free(st->gs[i]->cap);
			free(st->gs[i]->ph);
			free(st->gs[i]);
		}
		free(st->gs);
		wc_map_free(st->group_of);
		wc_summary_plan_free(st->p);
		wc_sum_held_clear(&st->base);
		wc_findings_free(&st->find);
		wc_spool_free(st->names);
		free(st);
	}
	wc_capsules_free(s->owned, s->nowned);
	free(s);
}
