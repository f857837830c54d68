/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "analysis/kcounters.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/blktrace_format.h"

/* Fields of a stat file (Documentation/admin-guide/iostats.rst), from 0. */
enum {
	F_READS = 0, F_READ_SECTORS = 2, F_WRITES = 4, F_WRITE_SECTORS = 6,
	F_IO_TICKS = 9, F_DISCARDS = 11, F_DISCARD_SECTORS = 13,
	F_FLUSHES = 15,
};

static const struct {
	const char *key, *words;
	int field;               /* in the stat file */
	unsigned need;           /* fields the file must have */
} fields[WC_KC_NFIELDS] = {
	[WC_KC_READS] = { "reads", "reads", F_READS, 11 },
	[WC_KC_READ_SECTORS] = { "read_sectors", "sectors read",
				 F_READ_SECTORS, 11 },
	[WC_KC_WRITES] = { "writes", "writes", F_WRITES, 11 },
	[WC_KC_WRITE_SECTORS] = { "write_sectors", "sectors written",
				  F_WRITE_SECTORS, 11 },
	[WC_KC_DISCARDS] = { "discards", "discards", F_DISCARDS, 15 },
	[WC_KC_DISCARD_SECTORS] = { "discard_sectors", "sectors discarded",
				    F_DISCARD_SECTORS, 15 },
	[WC_KC_FLUSHES] = { "flushes", "flushes", F_FLUSHES, 17 },
};

const char *wc_kc_field_key(enum wc_kc_field f)
{
	return (unsigned)f < WC_KC_NFIELDS ? fields[f].key : "?";
}

const char *wc_kc_field_words(enum wc_kc_field f)
{
	return (unsigned)f < WC_KC_NFIELDS ? fields[f].words : "?";
}

/* One compared device: its readings and what the trace completed. */
struct kdev {
	const struct wc_counters_row *before, *after;
	uint32_t device;
	uint64_t trace[WC_KC_NFIELDS], maybe[WC_KC_NFIELDS];
	uint64_t empty_writes;
	uint64_t last_c;         /* the latest completion, for busy time */
	bool any_c;
	uint64_t busy_ns;
};

struct wc_kcount {
	const struct wc_capture *cap;
	size_t n;
	struct kdev d[WC_MAX_DEVICES];
	size_t partitions;
	char why[256];
};

/* The first before and the last after reading of NAME as a disk. */
static void readings(const struct wc_capture *cap, const char *name,
		     const struct wc_counters_row **b,
		     const struct wc_counters_row **a)
{
	size_t i;

	*b = *a = NULL;
	for (i = 0; i < cap->ncounters; i++) {
		const struct wc_counters_row *r = &cap->counters[i];

		if (strcmp(r->device, name) || strcmp(r->disk, name))
			continue;
		if (!r->after && !*b)
			*b = r;
		else if (r->after)
			*a = r;
	}
}

int wc_kcount_new(struct wc_kcount **out, const struct wc_capture *cap,
		  struct wc_err *err)
{
	struct wc_kcount *k;
	size_t i;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return wc_err_oom(err, NULL, NULL);
	k->cap = cap;
	for (i = 0; cap && i < cap->ncounters; i++)
		if (strcmp(cap->counters[i].device, cap->counters[i].disk))
			k->partitions++;
	for (i = 0; cap && i < cap->ndevices && k->n < WC_MAX_DEVICES; i++) {
		const struct wc_capture_device *cd = &cap->devices[i];
		const struct wc_counters_row *b, *a;
		struct kdev *d;

		readings(cap, cd->name, &b, &a);
		if (!b && !a)
			continue;
		if (!b || !a || cd->dev == 0 || a->start < b->end ||
		    a->nfields != b->nfields || b->nfields < 11) {
			snprintf(k->why, sizeof(k->why), "%s: %s", cd->name,
				 !b ? "no reading before the workload" :
				 !a ? "no reading after the workload" :
				 cd->dev == 0 ? "capture.conf gives no MAJ:MIN" :
				 a->start < b->end ? "read after before before" :
				 a->nfields != b->nfields ?
					"the readings differ in their fields" :
					"a partition's four fields only");
			continue;
		}
		d = &k->d[k->n++];
		d->before = b;
		d->after = a;
		d->device = cd->dev;
	}
	if (cap && cap->has_counters && k->n == 0 && !k->why[0])
		snprintf(k->why, sizeof(k->why), "%s",
			 cap->ncounters ? "no traced device in it" :
					  "no reading in it");
	*out = k;
	return 0;
}

static struct kdev *kdev_of(struct wc_kcount *k, uint32_t device)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (k->d[i].device == device)
			return &k->d[i];
	return NULL;
}

static void count(struct kdev *d, const struct wc_request *rq, bool sure)
{
	uint64_t *t = sure ? d->trace : d->maybe;
	uint64_t sectors = rq->bytes / 512;

	if (rq->bytes == 0) {
		if (!(rq->action & WC_TC(WC_TC_FLUSH)))
			return;
		t[WC_KC_FLUSHES]++;
		/* An empty flush asked for with a Q of its own: the
		 * kernel also ends that request as a write of no sectors. */
		if (rq->q_time != WC_NO_TIME) {
			t[WC_KC_WRITES]++;
			d->empty_writes++;
		}
	} else if (rq->action & WC_TC(WC_TC_DISCARD)) {
		t[WC_KC_DISCARDS]++;
		t[WC_KC_DISCARD_SECTORS] += sectors;
	} else if (rq->action & WC_TC(WC_TC_WRITE)) {
		t[WC_KC_WRITES]++;
		t[WC_KC_WRITE_SECTORS] += sectors;
	} else {
		t[WC_KC_READS]++;
		t[WC_KC_READ_SECTORS] += sectors;
	}
}

void wc_kcount_add(struct wc_kcount *k, const struct wc_request *rq)
{
	uint64_t c, lo, hi, s;
	struct kdev *d;

	if (!k || !rq->completed || !(d = kdev_of(k, rq->device)))
		return;
	c = rq->c_time;
	if (c >= d->before->start && c <= d->after->end)
		count(d, rq, c > d->before->end && c < d->after->start);
	/* Busy: the completion-driven slice (docs/methodology.md, section
	 * 3), cut to the span between the readings. */
	s = rq->d_time == WC_NO_TIME ? c : rq->d_time;
	if (d->any_c && s < d->last_c)
		s = d->last_c;
	lo = s > d->before->end ? s : d->before->end;
	hi = c < d->after->start ? c : d->after->start;
	if (hi > lo)
		d->busy_ns += hi - lo;
	if (!d->any_c || c > d->last_c)
		d->last_c = c;
	d->any_c = true;
}

static void figure(const struct kdev *d, enum wc_kc_field f,
		   struct wc_kc_figure *out)
{
	int i = fields[f].field;
	uint64_t b = d->before->f[i], a = d->after->f[i];

	memset(out, 0, sizeof(*out));
	out->trace = d->trace[f];
	out->maybe = d->maybe[f];
	if (d->before->nfields < fields[f].need || a < b)
		return;
	out->known = true;
	out->kernel = a - b;
	if (out->kernel > out->trace + out->maybe)
		out->missing = out->kernel - out->trace - out->maybe;
	else if (out->trace > out->kernel)
		out->extra = out->trace - out->kernel;
}

void wc_kcount_finish(const struct wc_kcount *k, struct wc_kcheck *out)
{
	size_t i;
	int f;

	memset(out, 0, sizeof(*out));
	if (!k || !k->cap || !k->cap->has_counters) {
		out->state = WC_KC_NONE;
		return;
	}
	out->partitions = k->partitions;
	if (k->n == 0) {
		out->state = WC_KC_UNUSABLE;
		snprintf(out->why, sizeof(out->why), "%s", k->why);
		return;
	}
	out->state = WC_KC_COMPARED;
	for (i = 0; i < k->n; i++) {
		const struct kdev *d = &k->d[i];
		struct wc_kc_device *o = &out->dev[out->ndevices++];
		uint64_t tb = d->before->f[F_IO_TICKS];
		uint64_t ta = d->after->f[F_IO_TICKS];

		snprintf(o->name, sizeof(o->name), "%s", d->before->device);
		o->device = d->device;
		o->start = d->before->end;
		o->end = d->after->start;
		o->nfields = d->before->nfields;
		for (f = 0; f < WC_KC_NFIELDS; f++)
			figure(d, (enum wc_kc_field)f, &o->fig[f]);
		o->empty_flush_writes = d->empty_writes;
		o->io_ticks_known = ta >= tb;
		o->io_ticks_ms = ta >= tb ? ta - tb : 0;
		o->busy_ns = d->busy_ns;
	}
}

void wc_kcount_free(struct wc_kcount *k)
{
	free(k);
}

bool wc_kc_device_agrees(const struct wc_kc_device *d)
{
	int f;

	for (f = 0; f < WC_KC_NFIELDS; f++)
		if (d->fig[f].known && (d->fig[f].missing || d->fig[f].extra))
			return false;
	return true;
}

/* What of the kernel's count the trace holds, surely or maybe, never
 * more than the kernel's count. */
static uint64_t kc_held(const struct wc_kc_figure *f)
{
	return f->trace + f->maybe < f->kernel ? f->trace + f->maybe :
						 f->kernel;
}

double wc_kc_held_pct(const struct wc_kc_figure *f)
{
	if (f->kernel == 0)
		return 100.0;
	return 100.0 * (double)kc_held(f) / (double)f->kernel;
}

uint64_t wc_kc_held_permille(const struct wc_kc_figure *f)
{
	uint64_t held = kc_held(f);

	if (f->kernel == 0)
		return 1000;
	return held <= UINT64_MAX / 1000 ? held * 1000 / f->kernel :
	       (uint64_t)(10 * wc_kc_held_pct(f));
}

enum wc_kc_field wc_kc_device_least_held(const struct wc_kc_device *d)
{
	/* Writes first: a copy's and a delete's own requests. */
	static const enum wc_kc_field order[] = {
		WC_KC_WRITES, WC_KC_READS, WC_KC_DISCARDS, WC_KC_FLUSHES,
	};
	enum wc_kc_field least = WC_KC_NFIELDS;
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct wc_kc_figure *g = &d->fig[order[i]];

		if (!g->known || !g->kernel)
			continue;
		if (least == WC_KC_NFIELDS ||
		    wc_kc_held_pct(g) < wc_kc_held_pct(&d->fig[least]))
			least = order[i];
	}
	return least;
}

const char *wc_kc_held_words(const struct wc_kc_device *d, char *buf,
			     size_t size)
{
	enum wc_kc_field f = wc_kc_device_least_held(d);
	const struct wc_kc_figure *g;
	uint64_t permille;

	if (f == WC_KC_NFIELDS) {
		snprintf(buf, size, "the kernel completed no request between "
			 "the readings");
		return buf;
	}
	g = &d->fig[f];
	if (!g->missing) {
		snprintf(buf, size, "the trace holds 100 %% of the %s the "
			 "kernel completed", fields[f].words);
		return buf;
	}
	permille = wc_kc_held_permille(g);
	snprintf(buf, size, "the trace holds %" PRIu64 ".%" PRIu64 " %% of the "
		 "%s the kernel completed", permille / 10, permille % 10,
		 fields[f].words);
	return buf;
}

const char wc_kc_reason_flush[] =
	"the kernel counts an empty flush as a write of no sectors";
const char wc_kc_reason_ticks[] =
	"io_ticks advances in jiffies: it undercounts requests shorter than "
	"a jiffy and counts time queued before the driver took a request";
