/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "analysis/capsule.h"
#include "base/escape.h"
#include "input/json.h"
#include "base/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(enum wc_journal_method) == sizeof(int) &&
	       sizeof(enum wc_kc_state) == sizeof(int),
	       "enums are read and written as int");

#define F(T, key, type, member) \
	{ key, type, offsetof(T, member), sizeof(((T *)0)->member), 0, 0, \
	  false, NULL }
#define FARR(T, key, member) \
	{ key, WC_CF_U64S, offsetof(T, member), \
	  sizeof(((T *)0)->member) / sizeof(uint64_t), 0, 0, false, NULL }
#define FSTRS(T, key, member) \
	{ key, WC_CF_STRINGS, offsetof(T, member), \
	  sizeof(((T *)0)->member[0]), \
	  sizeof(((T *)0)->member) / sizeof(((T *)0)->member[0]), 0, false, \
	  NULL }
#define FREC(T, key, member, tab) \
	{ key, WC_CF_RECORD, offsetof(T, member), 0, 0, 0, true, &tab }
#define FRECP(T, key, member, tab) \
	{ key, WC_CF_RECORD, offsetof(T, member), sizeof(*((T *)0)->member), \
	  0, 0, false, &tab }
/* Records in an array of the struct, count in cnt (SIZE_MAX: all). */
#define FRECS(T, key, member, cnt, tab) \
	{ key, WC_CF_RECORDS, offsetof(T, member), \
	  sizeof(((T *)0)->member[0]), \
	  sizeof(((T *)0)->member) / sizeof(((T *)0)->member[0]), cnt, \
	  true, &tab }
/* Records through a pointer, count in cnt, at most mx. */
#define FRECSP(T, key, member, cnt, mx, tab) \
	{ key, WC_CF_RECORDS, offsetof(T, member), \
	  sizeof(((T *)0)->member[0]), mx, offsetof(T, cnt), false, &tab }
#define FSIZE(T, key, member, mx) \
	{ key, WC_CF_SIZE, offsetof(T, member), sizeof(size_t), mx, 0, false, \
	  NULL }
#define TABLE(name, arr) \
	static const struct wc_ctable name = { sizeof(arr) / sizeof(arr[0]), arr }

static const struct wc_cfield latency_f[] = {
	F(struct wc_latency, "n", WC_CF_U64, n),
	F(struct wc_latency, "min", WC_CF_U64, min),
	F(struct wc_latency, "p50", WC_CF_U64, p50),
	F(struct wc_latency, "p90", WC_CF_U64, p90),
	F(struct wc_latency, "p99", WC_CF_U64, p99),
	F(struct wc_latency, "max", WC_CF_U64, max),
	F(struct wc_latency, "sum", WC_CF_U64, sum),
};
TABLE(latency_t, latency_f);

static const struct wc_cfield figures_f[] = {
	F(struct wc_figures, "device", WC_CF_U32, device),
	F(struct wc_figures, "start_ns", WC_CF_U64, start),
	F(struct wc_figures, "end_ns", WC_CF_U64, end),
	F(struct wc_figures, "window_ns", WC_CF_U64, window_ns),
	F(struct wc_figures, "idle_ns", WC_CF_U64, idle_ns),
	F(struct wc_figures, "outstanding_ns", WC_CF_U64, outstanding_ns),
	F(struct wc_figures, "internal_known", WC_CF_BOOL, internal_known),
	F(struct wc_figures, "internal_ns", WC_CF_U64, internal_ns),
	F(struct wc_figures, "internal_ranges", WC_CF_U64, internal_ranges),
	F(struct wc_figures, "internal_bytes", WC_CF_U64, internal_bytes),
	FARR(struct wc_figures, "time_ns", time_ns),
	FARR(struct wc_figures, "requests", requests),
	FARR(struct wc_figures, "bytes", bytes),
	F(struct wc_figures, "positioning_known", WC_CF_BOOL,
	  positioning_known),
	F(struct wc_figures, "positioning_ns", WC_CF_U64, positioning_ns),
	F(struct wc_figures, "destage_positioning_ns", WC_CF_U64,
	  destage_positioning_ns),
	F(struct wc_figures, "destage_transfer_ns", WC_CF_U64,
	  destage_transfer_ns),
	F(struct wc_figures, "fua_writes", WC_CF_U64, fua_writes),
	F(struct wc_figures, "seeks", WC_CF_U64, seeks),
	F(struct wc_figures, "seek_candidates", WC_CF_U64, seek_candidates),
	FARR(struct wc_figures, "seek_hist", seek_hist),
	FREC(struct wc_figures, "flush_d2c", flush_d2c, latency_t),
	FREC(struct wc_figures, "d2c", d2c, latency_t),
	F(struct wc_figures, "inflight_ns", WC_CF_U64, inflight_ns),
	F(struct wc_figures, "max_depth", WC_CF_U32, max_depth),
	F(struct wc_figures, "unfinished", WC_CF_U64, unfinished),
};
TABLE(figures_t, figures_f);

static const struct wc_cfield devmeta_f[] = {
	F(struct wc_device_meta, "device", WC_CF_U32, device),
	F(struct wc_device_meta, "name", WC_CF_STRING, name),
	F(struct wc_device_meta, "rotational", WC_CF_INT, rotational),
	F(struct wc_device_meta, "timeout_ns", WC_CF_U64, timeout_ns),
	F(struct wc_device_meta, "hw_queues", WC_CF_U32, hw_queues),
	F(struct wc_device_meta, "role", WC_CF_STRING, role),
};
TABLE(devmeta_t, devmeta_f);

#define M struct wc_capture_meta
static const struct wc_cfield meta_f[] = {
	F(M, "name", WC_CF_STRING, name),
	F(M, "input", WC_CF_STRING, input),
	F(M, "digest", WC_CF_U64, digest),
	F(M, "fs", WC_CF_STRING, fs),
	F(M, "write_cache", WC_CF_INT, write_cache),
	F(M, "barrier", WC_CF_INT, barrier),
	F(M, "events", WC_CF_U64, events),
	F(M, "events_dropped", WC_CF_I64, events_dropped),
	F(M, "main_device", WC_CF_U32, main_device),
	F(M, "main_from_conf", WC_CF_BOOL, main_from_conf),
	F(M, "dest_device", WC_CF_U32, dest_device),
	FSIZE(M, "main_among", main_among, 0),
	F(M, "main_rotational", WC_CF_INT, main_rotational),
	F(M, "journal_method", WC_CF_INT, journal_method),
	F(M, "journal_start", WC_CF_U64, journal_start),
	F(M, "journal_len", WC_CF_U64, journal_len),
	F(M, "journal_why", WC_CF_STRING, journal_why),
	FRECS(M, "devices", devices, offsetof(M, ndevices), devmeta_t),
	F(M, "complete", WC_CF_INT, complete),
	F(M, "kernel", WC_CF_STRING, kernel),
	F(M, "mount_options", WC_CF_STRING, mount_options),
	F(M, "recorder", WC_CF_STRING, recorder),
	F(M, "config", WC_CF_STRING, config),
	F(M, "comparable", WC_CF_STRING, comparable),
	F(M, "disk_model", WC_CF_STRING, disk_model),
	F(M, "disk", WC_CF_STRING, disk),
	FSIZE(M, "nregions", nregions, WC_CAPTURE_MAX_REGIONS),
	FSTRS(M, "regions", regions),
	F(M, "disk_capacity", WC_CF_U64, disk_capacity),
	FSIZE(M, "noffsets", noffsets, WC_CAPTURE_MAX_REGIONS),
	FARR(M, "offsets", offsets),
	F(M, "run", WC_CF_INT, run),
	F(M, "warmup", WC_CF_BOOL, warmup),
	F(M, "lab_position", WC_CF_INT, lab_position),
	F(M, "host", WC_CF_STRING, host),
	F(M, "load_before", WC_CF_DOUBLE, load_before),
	F(M, "load_after", WC_CF_DOUBLE, load_after),
	F(M, "dirty_kb_end", WC_CF_I64, dirty_kb_end),
	F(M, "has_durable", WC_CF_BOOL, has_durable),
	F(M, "durable_window", WC_CF_BOOL, durable_window),
	F(M, "returned_ns", WC_CF_U64, returned_ns),
	F(M, "durable_ns", WC_CF_U64, durable_ns),
	F(M, "durable_bytes", WC_CF_U64, durable_bytes),
	F(M, "has_ledger", WC_CF_BOOL, has_ledger),
	F(M, "ledger_rows", WC_CF_U64, ledger_rows),
	F(M, "ledger_busy_ns", WC_CF_U64, ledger_busy_ns),
	F(M, "ledger_commands_ns", WC_CF_U64, ledger_commands_ns),
	F(M, "lab_workload", WC_CF_STRING, lab_workload),
	F(M, "source_bytes", WC_CF_U64, source_bytes),
	F(M, "source_files", WC_CF_U64, source_files),
	F(M, "cpu_files", WC_CF_U32, cpu_files),
	F(M, "cpus_missing", WC_CF_U32, cpus_missing),
	F(M, "cpus_named_without_file", WC_CF_U32, cpus_named_without_file),
	F(M, "cpus_missing_list", WC_CF_STRING, cpus_missing_list),
	F(M, "sequence_gaps", WC_CF_U64, sequence_gaps),
	F(M, "repeats", WC_CF_U64, repeats),
	F(M, "trace_files_announced", WC_CF_U32, trace_files_announced),
	F(M, "files_missing", WC_CF_U32, files_missing),
	F(M, "files_missing_list", WC_CF_STRING, files_missing_list),
};
#undef M
TABLE(meta_t, meta_f);

#define T struct wc_tracker_stats
static const struct wc_cfield tracking_f[] = {
	F(T, "events", WC_CF_U64, events),
	F(T, "io_events", WC_CF_U64, io_events),
	F(T, "first_time", WC_CF_U64, first_time),
	F(T, "last_time", WC_CF_U64, last_time),
	F(T, "requests", WC_CF_U64, requests),
	F(T, "unfinished", WC_CF_U64, unfinished),
	F(T, "never_dispatched", WC_CF_U64, never_dispatched),
	F(T, "orphan_completions", WC_CF_U64, orphan_completions),
	F(T, "began_in_flight", WC_CF_U64, began_in_flight),
	F(T, "expired", WC_CF_U64, expired),
	F(T, "superseded", WC_CF_U64, superseded),
	F(T, "sequence_ends", WC_CF_U64, sequence_ends),
	F(T, "dropped_inflight", WC_CF_U64, dropped_inflight),
	F(T, "ignored_events", WC_CF_U64, ignored_events),
};
#undef T
TABLE(tracking_t, tracking_f);

static const struct wc_cfield kcfig_f[] = {
	F(struct wc_kc_figure, "known", WC_CF_BOOL, known),
	F(struct wc_kc_figure, "kernel", WC_CF_U64, kernel),
	F(struct wc_kc_figure, "trace", WC_CF_U64, trace),
	F(struct wc_kc_figure, "maybe", WC_CF_U64, maybe),
	F(struct wc_kc_figure, "missing", WC_CF_U64, missing),
	F(struct wc_kc_figure, "extra", WC_CF_U64, extra),
};
TABLE(kcfig_t, kcfig_f);

#define D struct wc_kc_device
static const struct wc_cfield kcdev_f[] = {
	F(D, "name", WC_CF_STRING, name),
	F(D, "device", WC_CF_U32, device),
	F(D, "start", WC_CF_U64, start),
	F(D, "end", WC_CF_U64, end),
	F(D, "nfields", WC_CF_UNSIGNED, nfields),
	FRECS(D, "fig", fig, SIZE_MAX, kcfig_t),
	F(D, "empty_flush_writes", WC_CF_U64, empty_flush_writes),
	F(D, "io_ticks_known", WC_CF_BOOL, io_ticks_known),
	F(D, "io_ticks_ms", WC_CF_U64, io_ticks_ms),
	F(D, "busy_ns", WC_CF_U64, busy_ns),
};
#undef D
TABLE(kcdev_t, kcdev_f);

static const struct wc_cfield kcheck_f[] = {
	F(struct wc_kcheck, "state", WC_CF_INT, state),
	F(struct wc_kcheck, "why", WC_CF_STRING, why),
	FRECS(struct wc_kcheck, "devices", dev, offsetof(struct wc_kcheck,
							 ndevices), kcdev_t),
	FSIZE(struct wc_kcheck, "partitions", partitions, 0),
};
TABLE(kcheck_t, kcheck_f);

static const struct wc_cfield btt_f[] = {
	F(struct wc_btt_stat, "n", WC_CF_U64, n),
	F(struct wc_btt_stat, "min", WC_CF_U64, min),
	F(struct wc_btt_stat, "max", WC_CF_U64, max),
	F(struct wc_btt_stat, "total", WC_CF_U64, total),
};
TABLE(btt_t, btt_f);

static const struct wc_cfield device_f[] = {
	FREC(struct wc_capsule_device, "figures", figs, figures_t),
	F(struct wc_capsule_device, "media_rate", WC_CF_DOUBLE, media_rate),
	F(struct wc_capsule_device, "media_rate_estimated", WC_CF_BOOL,
	  media_rate_estimated),
};
TABLE(device_t, device_f);

#define P struct wc_phase_result
static const struct wc_cfield phres_f[] = {
	F(P, "name", WC_CF_STRING, name),
	F(P, "start", WC_CF_U64, start),
	F(P, "end", WC_CF_U64, end),
	F(P, "wall_s", WC_CF_DOUBLE, wall_s),
	F(P, "real_s", WC_CF_DOUBLE, real_s),
	F(P, "user_s", WC_CF_DOUBLE, user_s),
	F(P, "sys_s", WC_CF_DOUBLE, sys_s),
	F(P, "cut", WC_CF_BOOL, cut),
};
#undef P
TABLE(phres_t, phres_f);

static const struct wc_cfield phase_f[] = {
	FREC(struct wc_capsule_phase, "phase", result, phres_t),
	FREC(struct wc_capsule_phase, "figures", figs, figures_t),
};
TABLE(phase_t, phase_f);

static const struct wc_cfield part_f[] = {
	F(struct wc_account_part, "device", WC_CF_U32, device),
	F(struct wc_account_part, "requests", WC_CF_U64, requests),
	F(struct wc_account_part, "bytes", WC_CF_U64, bytes),
	F(struct wc_account_part, "busy_ns", WC_CF_U64, busy_ns),
};
TABLE(part_t, part_f);

static const struct wc_cfield wait_f[] = {
	F(struct wc_wait, "comm", WC_CF_STRING, comm),
	F(struct wc_wait, "requests", WC_CF_U64, requests),
	F(struct wc_wait, "wait_ns", WC_CF_U64, wait_ns),
	F(struct wc_wait, "bytes", WC_CF_U64, bytes),
};
TABLE(wait_t, wait_f);

#define C struct wc_capsule
static const struct wc_cfield capsule_f[] = {
	FREC(C, "meta", meta, meta_t),
	F(C, "partial", WC_CF_BOOL, partial),
	F(C, "missing", WC_CF_STRING, missing),
	F(C, "filter", WC_CF_STRING, filter),
	FREC(C, "tracking", tracking, tracking_t),
	FRECP(C, "kcheck", kcheck, kcheck_t),
	F(C, "btt", WC_CF_BOOL, btt),
	FREC(C, "btt_q2c", q2c, btt_t),
	FREC(C, "btt_d2c", d2c, btt_t),
	F(C, "btt_forgotten", WC_CF_U64, btt_forgotten),
	F(C, "btt_ignored", WC_CF_U64, btt_ignored),
	F(C, "busy_any_ns", WC_CF_U64, busy_any),
	F(C, "main", WC_CF_INT, main),
	FRECSP(C, "devices", devices, ndevices, WC_MAX_DEVICES, device_t),
	FRECP(C, "disk", disk, device_t),
	FRECSP(C, "partitions", parts, nparts, WC_ACCOUNT_PARTS, part_t),
	FRECSP(C, "phases", phases, nphases, WC_MAX_PHASES, phase_t),
	FRECSP(C, "processes", procs, nprocs, WC_MAX_COMMS, wait_t),
	FRECSP(C, "flushers", flushers, nflushers, WC_MAX_COMMS, wait_t),
	FRECSP(C, "waits", waits, nwaits, WC_MAX_COMMS, wait_t),
};
#undef C
TABLE(capsule_t, capsule_f);

/* A field added to one of these structs must join its table above, or
 * the comparison of summaries would drift from the captures' (t88)
 * without a word: their sizes as the tables were last written (LP64;
 * a field that fits in padding slips through). */
#if defined(__LP64__)
#define SIZE_IS(T, n, tab) \
	_Static_assert(sizeof(struct T) == (n), \
		       #T " changed: update " #tab " in capsule.c")
SIZE_IS(wc_figures, 824, figures_f);
SIZE_IS(wc_latency, 56, latency_f);
SIZE_IS(wc_capture_meta, 13112, meta_f);
SIZE_IS(wc_device_meta, 104, devmeta_f);
SIZE_IS(wc_tracker_stats, 112, tracking_f);
SIZE_IS(wc_kcheck, 29976, kcheck_f);
SIZE_IS(wc_kc_device, 464, kcdev_f);
SIZE_IS(wc_kc_figure, 48, kcfig_f);
SIZE_IS(wc_phase_result, 120, phres_f);
SIZE_IS(wc_wait, 56, wait_f);
SIZE_IS(wc_account_part, 32, part_f);
SIZE_IS(wc_btt_stat, 32, btt_f);
#undef SIZE_IS
#endif

const struct wc_ctable *wc_capsule_table(void)
{
	return &capsule_t;
}

/* ---- from an analysis -------------------------------------------------- */

static void copy_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

static int copy_waits(struct wc_wait **out, size_t *n, size_t count,
		      const struct wc_account *ac, size_t dev,
		      const struct wc_wait *(*get)(const struct wc_account *,
						   size_t, size_t))
{
	size_t k;

	if (count > WC_MAX_COMMS)
		count = WC_MAX_COMMS;
	*n = count;
	if (!count)
		return 0;
	*out = calloc(count, sizeof(**out));
	if (!*out)
		return -1;
	for (k = 0; k < count; k++)
		(*out)[k] = *get(ac, dev, k);
	return 0;
}

static const struct wc_wait *wait_at(const struct wc_account *ac, size_t dev,
				     size_t k)
{
	(void)dev;
	return wc_account_wait(ac, k);
}

int wc_capsule_of(struct wc_capsule **out, const struct wc_analysis *a,
		  struct wc_err *err)
{
	const struct wc_account *ac = wc_analysis_account(a);
	const struct wc_btt *b = wc_analysis_btt(a);
	struct wc_capsule *c;
	size_t i;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto fail_oom;
	c->meta = *wc_analysis_meta(a);
	c->partial = wc_analysis_partial(a);
	copy_str(c->missing, sizeof(c->missing), wc_analysis_main_missing(a));
	copy_str(c->filter, sizeof(c->filter), wc_analysis_filter(a));
	c->tracking = *wc_analysis_tracker_stats(a);
	if (wc_analysis_kcheck(a)->state != WC_KC_NONE) {
		c->kcheck = malloc(sizeof(*c->kcheck));
		if (!c->kcheck)
			goto fail_oom;
		*c->kcheck = *wc_analysis_kcheck(a);
	}
	if (b) {
		c->btt = true;
		c->q2c = *wc_btt_q2c(b);
		c->d2c = *wc_btt_d2c(b);
		c->btt_forgotten = wc_btt_dropped(b);
		c->btt_ignored = wc_btt_ignored(b);
	}
	c->busy_any = wc_account_busy_any(ac);
	c->main = wc_analysis_main_index(a);
	c->ndevices = wc_account_ndevices(ac);
	if (c->ndevices) {
		c->devices = calloc(c->ndevices, sizeof(*c->devices));
		if (!c->devices)
			goto fail_oom;
	}
	for (i = 0; i < c->ndevices; i++) {
		c->devices[i].figs = *wc_account_device(ac, i);
		c->devices[i].media_rate = wc_account_media_rate(ac, i,
					&c->devices[i].media_rate_estimated);
	}
	if (wc_account_disk(ac) >= 0) {
		size_t d = (size_t)wc_account_disk(ac);

		c->disk = calloc(1, sizeof(*c->disk));
		c->nparts = wc_account_nparts(ac);
		c->parts = calloc(c->nparts ? c->nparts : 1,
				  sizeof(*c->parts));
		if (!c->disk || !c->parts)
			goto fail_oom;
		c->disk->figs = *wc_account_device(ac, d);
		c->disk->media_rate = wc_account_media_rate(ac, d,
					&c->disk->media_rate_estimated);
		for (i = 0; i < c->nparts; i++)
			c->parts[i] = *wc_account_part(ac, i);
	}
	c->nphases = wc_analysis_nphases(a);
	if (c->nphases) {
		c->phases = calloc(c->nphases, sizeof(*c->phases));
		if (!c->phases)
			goto fail_oom;
	}
	for (i = 0; i < c->nphases; i++) {
		const struct wc_figures *f = wc_analysis_phase_figures(a, i);

		c->phases[i].result = *wc_analysis_phase(a, i);
		if (f)
			c->phases[i].figs = *f;
	}
	if (c->main >= 0 &&
	    (copy_waits(&c->procs, &c->nprocs,
			wc_account_nprocesses(ac, (size_t)c->main), ac,
			(size_t)c->main, wc_account_process) < 0 ||
	     copy_waits(&c->flushers, &c->nflushers,
			wc_account_nflushers(ac, (size_t)c->main), ac,
			(size_t)c->main, wc_account_flusher) < 0))
		goto fail_oom;
	if (copy_waits(&c->waits, &c->nwaits, wc_account_nwaits(ac), ac, 0,
		       wait_at) < 0)
		goto fail_oom;
	c->nwarnings = wc_analysis_nwarnings(a);
	if (c->nwarnings) {
		c->warnings = calloc(c->nwarnings, sizeof(*c->warnings));
		if (!c->warnings)
			goto fail_oom;
	}
	for (i = 0; i < c->nwarnings; i++)
		copy_str(c->warnings[i], sizeof(c->warnings[i]),
			 wc_analysis_warning(a, i));
	*out = c;
	return 0;

fail_oom:
	wc_capsule_free(c);
	return wc_err_oom(err, NULL, NULL);
}

const struct wc_capsule_device *wc_capsule_device(const struct wc_capsule *c,
						  size_t i)
{
	return i < c->ndevices ? &c->devices[i] : c->disk;
}

const struct wc_figures *wc_capsule_main(const struct wc_capsule *c)
{
	return c->main >= 0 ? &wc_capsule_device(c, (size_t)c->main)->figs :
	       NULL;
}

/* A copy of n elements of size each at src into *dst; false when out of
 * memory.  Nothing (NULL) stays nothing. */
static bool dup_array(void *dst, const void *src, size_t n, size_t size)
{
	void *d = NULL;

	if (src) {
		d = malloc((n ? n : 1) * size);
		if (!d)
			return false;
		memcpy(d, src, n * size);
	}
	memcpy(dst, &d, sizeof(d));
	return true;
}

struct wc_capsule *wc_capsule_dup(const struct wc_capsule *c)
{
	struct wc_capsule *d = malloc(sizeof(*d));

	if (!d)
		return NULL;
	*d = *c;
	d->kcheck = NULL;
	d->devices = d->disk = NULL;
	d->parts = NULL;
	d->phases = NULL;
	d->procs = d->flushers = d->waits = NULL;
	d->warnings = NULL;
	if (!dup_array(&d->kcheck, c->kcheck, 1, sizeof(*c->kcheck)) ||
	    !dup_array(&d->devices, c->devices, c->ndevices,
		       sizeof(*c->devices)) ||
	    !dup_array(&d->disk, c->disk, 1, sizeof(*c->disk)) ||
	    !dup_array(&d->parts, c->parts, c->nparts, sizeof(*c->parts)) ||
	    !dup_array(&d->phases, c->phases, c->nphases,
		       sizeof(*c->phases)) ||
	    !dup_array(&d->procs, c->procs, c->nprocs, sizeof(*c->procs)) ||
	    !dup_array(&d->flushers, c->flushers, c->nflushers,
		       sizeof(*c->flushers)) ||
	    !dup_array(&d->waits, c->waits, c->nwaits, sizeof(*c->waits)) ||
	    !dup_array(&d->warnings, c->warnings, c->nwarnings,
		       sizeof(*c->warnings))) {
		wc_capsule_free(d);
		return NULL;
	}
	return d;
}

void wc_capsule_free(struct wc_capsule *c)
{
	if (!c)
		return;
	free(c->kcheck);
	free(c->devices);
	free(c->disk);
	free(c->parts);
	free(c->phases);
	free(c->procs);
	free(c->flushers);
	free(c->waits);
	free(c->warnings);
	free(c);
}

void wc_capsules_free(struct wc_capsule **caps, size_t n)
{
	size_t i;

	for (i = 0; caps && i < n; i++)
		wc_capsule_free(caps[i]);
	free(caps);
}

/* ---- from a summary ---------------------------------------------------- */

static int bad(struct wc_err *err, const struct wc_json_node *n,
	       const char *key, const char *what)
{
	return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, wc_json_offset(n),
			  "summary: '%s': %s", key, what);
}

static int read_table(const struct wc_json *j, const struct wc_json_node *obj,
		      const struct wc_ctable *t, void *base,
		      struct wc_err *err);

/* One record of table sub from n into p. */
static int read_record(const struct wc_json *j, const struct wc_json_node *n,
		       const struct wc_cfield *f, void *p, struct wc_err *err)
{
	if (n->type != WC_JSON_OBJECT)
		return bad(err, n, f->key, "an object expected");
	return read_table(j, n, f->sub, p, err);
}

static int read_records(const struct wc_json *j, const struct wc_json_node *n,
			const struct wc_cfield *f, char *base,
			struct wc_err *err)
{
	const struct wc_json_node *e;
	char *arr;
	size_t k = 0;

	if (n->type != WC_JSON_ARRAY)
		return bad(err, n, f->key, "an array expected");
	if (n->count > f->max ||
	    (f->inline_ && f->count_off == SIZE_MAX && n->count != f->max))
		return bad(err, n, f->key, "more or fewer records than "
			   "wcanalyze keeps");
	if (f->inline_) {
		arr = base + f->off;
	} else if (n->count) {
		arr = calloc(n->count, f->size);
		if (!arr)
			return wc_err_oom(err, NULL, NULL);
		*(void **)(base + f->off) = arr;
	} else {
		arr = NULL;
	}
	if (f->count_off != SIZE_MAX)
		*(size_t *)(base + f->count_off) = n->count;
	for (e = wc_json_child(j, n); e; e = wc_json_next(j, e), k++)
		if (read_record(j, e, f, arr + k * f->size, err) < 0)
			return -1;
	return 0;
}

static int read_field(const struct wc_json *j, const struct wc_json_node *n,
		      const struct wc_cfield *f, char *base, struct wc_err *err)
{
	char *p = base + f->off;
	const struct wc_json_node *e;
	uint64_t u;
	int64_t i;
	size_t k;

	switch (f->type) {
	case WC_CF_U64:
		if (wc_json_u64(j, n, &u) < 0)
			return bad(err, n, f->key, "not an integer of 64 bits");
		memcpy(p, &u, sizeof(u));
		return 0;
	case WC_CF_U32:
	case WC_CF_UNSIGNED:
		if (wc_json_u64(j, n, &u) < 0 || u > UINT32_MAX)
			return bad(err, n, f->key, "not an integer of 32 bits");
		if (f->type == WC_CF_U32) {
			uint32_t v = (uint32_t)u;

			memcpy(p, &v, sizeof(v));
		} else {
			unsigned v = (unsigned)u;

			memcpy(p, &v, sizeof(v));
		}
		return 0;
	case WC_CF_SIZE:
		if (wc_json_u64(j, n, &u) < 0 || u > SIZE_MAX ||
		    (f->max && u > f->max))
			return bad(err, n, f->key, "not a count wcanalyze keeps");
		{
			size_t v = (size_t)u;

			memcpy(p, &v, sizeof(v));
		}
		return 0;
	case WC_CF_I64:
	case WC_CF_INT:
		if (wc_json_i64(j, n, &i) < 0 ||
		    (f->type == WC_CF_INT && (i < INT32_MIN || i > INT32_MAX)))
			return bad(err, n, f->key, "not an integer");
		if (f->type == WC_CF_I64) {
			memcpy(p, &i, sizeof(i));
		} else {
			int v = (int)i;

			memcpy(p, &v, sizeof(v));
		}
		return 0;
	case WC_CF_BOOL:
		if (n->type != WC_JSON_TRUE && n->type != WC_JSON_FALSE)
			return bad(err, n, f->key, "true or false expected");
		*(bool *)p = n->type == WC_JSON_TRUE;
		return 0;
	case WC_CF_DOUBLE: {
		double d;

		if (wc_json_double(j, n, &d) < 0)
			return bad(err, n, f->key, "not a finite number");
		memcpy(p, &d, sizeof(d));
		return 0;
	}
	case WC_CF_STRING:
		if (n->type != WC_JSON_STRING)
			return bad(err, n, f->key, "a string expected");
		if (wc_json_string(j, n, p, f->size) < 0)
			return bad(err, n, f->key, "longer than wcanalyze "
				   "keeps, or holding \\u0000");
		return 0;
	case WC_CF_U64S:
		if (n->type != WC_JSON_ARRAY || n->count != f->size)
			return bad(err, n, f->key, "an array of the length "
				   "wcanalyze writes expected");
		for (e = wc_json_child(j, n), k = 0; e;
		     e = wc_json_next(j, e), k++) {
			if (wc_json_u64(j, e, &u) < 0)
				return bad(err, e, f->key,
					   "not an integer of 64 bits");
			memcpy(p + k * sizeof(u), &u, sizeof(u));
		}
		return 0;
	case WC_CF_STRINGS:
		if (n->type != WC_JSON_ARRAY || n->count != f->max)
			return bad(err, n, f->key, "an array of the length "
				   "wcanalyze writes expected");
		for (e = wc_json_child(j, n), k = 0; e;
		     e = wc_json_next(j, e), k++)
			if (e->type != WC_JSON_STRING ||
			    wc_json_string(j, e, p + k * f->size, f->size) < 0)
				return bad(err, e, f->key, "not a string "
					   "wcanalyze keeps");
		return 0;
	case WC_CF_RECORDS:
		return read_records(j, n, f, base, err);
	case WC_CF_RECORD:
		if (f->inline_)
			return read_record(j, n, f, p, err);
		if (n->type == WC_JSON_NULL)
			return 0;
		{
			void *r = calloc(1, f->size);

			if (!r)
				return wc_err_oom(err, NULL, NULL);
			*(void **)p = r;
			return read_record(j, n, f, r, err);
		}
	}
	return bad(err, n, f->key, "an unknown field");
}

static int read_table(const struct wc_json *j, const struct wc_json_node *obj,
		      const struct wc_ctable *t, void *base,
		      struct wc_err *err)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct wc_cfield *f = &t->f[i];
		bool twice;
		const struct wc_json_node *n = wc_json_get(j, obj, f->key,
							   &twice);

		if (!n)
			return bad(err, obj, f->key, "missing");
		if (twice)
			return bad(err, n, f->key, "given twice");
		if (read_field(j, n, f, base, err) < 0)
			return -1;
	}
	return 0;
}

static bool add_ok(uint64_t *sum, uint64_t x)
{
	return !__builtin_add_overflow(*sum, x, sum);
}

/* A window's parts add up to it (account.h), its ends to its length. */
static bool figures_ok(const struct wc_figures *g)
{
	uint64_t sum = g->idle_ns, len;
	int c;

	if (!add_ok(&sum, g->outstanding_ns) || !add_ok(&sum, g->internal_ns))
		return false;
	for (c = 0; c < WC_NCAT; c++)
		if (!add_ok(&sum, g->time_ns[c]))
			return false;
	len = g->end - g->start;
	return g->end >= g->start && len == g->window_ns && sum == g->window_ns;
}

static int check_capsule(const struct wc_capsule *c,
			 const struct wc_json_node *n, struct wc_err *err)
{
	size_t i;

	if (c->main < -1 || (c->main >= 0 && (size_t)c->main >= c->ndevices &&
			      ((size_t)c->main != c->ndevices || !c->disk)))
		return bad(err, n, "main", "no such device");
	if (c->nparts && !c->disk)
		return bad(err, n, "partitions", "partitions of no disk");
	if (c->disk && !figures_ok(&c->disk->figs))
		return bad(err, n, "disk", "a window whose parts do not add "
			   "up to it");
	if (c->meta.ndevices > WC_MAX_DEVICES)
		return bad(err, n, "meta", "more devices than wcanalyze keeps");
	if (c->meta.journal_method != WC_JOURNAL_RANGE &&
	    c->meta.journal_method != WC_JOURNAL_HEURISTIC)
		return bad(err, n, "journal_method", "no such method");
	if (c->kcheck && (c->kcheck->state < WC_KC_NONE ||
			  c->kcheck->state > WC_KC_COMPARED))
		return bad(err, n, "kcheck", "no such state");
	for (i = 0; i < c->ndevices; i++)
		if (!figures_ok(&c->devices[i].figs))
			return bad(err, n, "devices", "a window whose parts do "
				   "not add up to it");
	for (i = 0; i < c->nphases; i++) {
		const struct wc_capsule_phase *p = &c->phases[i];

		if (p->result.end < p->result.start ||
		    (c->main >= 0 && !figures_ok(&p->figs)))
			return bad(err, n, "phases", "a phase whose parts do "
				   "not add up to it");
	}
	return 0;
}

static int read_capture(const struct wc_json *j, const struct wc_json_node *cap,
			struct wc_capsule **out, struct wc_err *err)
{
	const struct wc_json_node *raw, *v;
	struct wc_capsule *c;
	bool twice;
	uint64_t ver;

	*out = NULL;
	raw = wc_json_get(j, cap, "raw", &twice);
	if (!raw || twice || raw->type != WC_JSON_OBJECT)
		return bad(err, raw ? raw : cap, "raw", raw ? "one object "
			   "expected" : "missing: a summary made before "
			   "summaries could be compared");
	v = wc_json_get(j, raw, "raw_version", &twice);
	if (!v || twice || wc_json_u64(j, v, &ver) < 0 ||
	    ver != WC_CAPSULE_VERSION)
		return bad(err, v ? v : raw, "raw_version", "not a version "
			   "this wcanalyze reads");
	v = wc_json_get(j, raw, "capture", &twice);
	if (!v || twice || v->type != WC_JSON_OBJECT)
		return bad(err, v ? v : raw, "capture", "one object expected");
	c = calloc(1, sizeof(*c));
	if (!c)
		return wc_err_oom(err, NULL, NULL);
	if (read_table(j, v, &capsule_t, c, err) < 0 ||
	    check_capsule(c, v, err) < 0) {
		wc_capsule_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

/* ---- a summary, a capture at a time ----------------------------------- */

/* Where the reader is in the summary: the root object's members, and
 * the elements of its "captures" array, walked here; every value in
 * them (a key, "format", "version", a capture, an element of any other
 * array of the root) framed and parsed by json.h on its own. */
enum rd_at {
	RD_START,                      /* before the root's '{' */
	RD_FIRST_MEMBER,               /* after it: a member or '}' */
	RD_MEMBER,                     /* a key, ':' and its value */
	RD_AFTER_MEMBER,               /* ',' or '}' */
	RD_FIRST_CAPTURE,              /* after "captures": [ */
	RD_CAPTURE,
	RD_AFTER_CAPTURE,              /* ',' or ']' */
	RD_TAIL,                       /* after the root: white space */
	RD_END,
	RD_FAILED,
};

struct wc_capsule_reader {
	int fd;                        /* the summary (the caller's), or -1 */
	const char *path;              /* names it in errors, or NULL */
	char *buf;                     /* fd: the summary's bytes from base */
	size_t room;
	const char *t;                 /* the bytes at hand: buf, or the text */
	size_t len;                    /* how many */
	uint64_t base;                 /* t[0]'s offset in the summary */
	size_t pos;                    /* the next byte, in t */
	size_t mark;                   /* the value framed starts here: kept
	                                * (SIZE_MAX: none) */
	bool eof;                      /* nothing past t[len] */
	enum rd_at at;
	size_t members;                /* the root's so far */
	bool format, version, captures; /* met */
};

static int rd_fail(struct wc_capsule_reader *r, struct wc_err *err,
		   size_t at, const char *what)
{
	r->at = RD_FAILED;
	return wc_err_set(err, WC_ERR_INPUT, r->path, NULL, r->base + at,
			  "%s", what);
}

static int rd_bad(struct wc_capsule_reader *r, struct wc_err *err,
		  size_t at, const char *key, const char *what)
{
	r->at = RD_FAILED;
	return wc_err_set(err, WC_ERR_INPUT, r->path, NULL, r->base + at,
			  "summary: '%s': %s", key, what);
}

/* e, made on the value framed from t[start], as the summary's. */
static int rd_shift(struct wc_capsule_reader *r, struct wc_err *err,
		    size_t start, const struct wc_err *e)
{
	r->at = RD_FAILED;
	return wc_err_set(err, e->kind, r->path, NULL,
			  e->offset == WC_NO_OFFSET ? WC_NO_OFFSET :
			  r->base + start + e->offset, "%s", e->msg);
}

/* Whether t[pos] is at hand: 1, 0 past the summary's end, -1 (err).
 * What is before the mark (or pos) goes; what is after stays, at most
 * one value's text (WC_CAPSULE_MAX_TEXT: the framer stops past it). */
static int rd_more(struct wc_capsule_reader *r, struct wc_err *err)
{
	size_t keep;
	ssize_t got;

	if (r->pos < r->len)
		return 1;
	if (r->eof)
		return 0;
	keep = r->mark < r->pos ? r->mark : r->pos;
	if (keep)
		memmove(r->buf, r->buf + keep, r->len - keep);
	r->base += keep;
	r->len -= keep;
	r->pos -= keep;
	if (r->mark != SIZE_MAX)
		r->mark -= keep;
	if (r->len == r->room) {
		size_t room = r->room ? 2 * r->room : 65536;
		char *b;

		if (room > WC_CAPSULE_MAX_TEXT + 65536)
			room = WC_CAPSULE_MAX_TEXT + 65536;
		b = realloc(r->buf, room);
		if (!b) {
			r->at = RD_FAILED;
			return wc_err_oom(err, r->path, NULL);
		}
		r->buf = b;
		r->room = room;
	}
	r->t = r->buf;
	do
		got = pread(r->fd, r->buf + r->len, r->room - r->len,
			    (off_t)(r->base + r->len));
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		r->at = RD_FAILED;
		return wc_err_set(err, WC_ERR_SYSTEM, r->path, NULL,
				  r->base + r->len, "%s", strerror(errno));
	}
	if (got == 0) {
		r->eof = true;
		return 0;
	}
	r->len += (size_t)got;
	return 1;
}

/* Past white space: the next byte (a char's value), EOF past the end,
 * or -2 (err). */
static int rd_peek(struct wc_capsule_reader *r, struct wc_err *err)
{
	for (;;) {
		int m = rd_more(r, err);
		char c;

		if (m <= 0)
			return m < 0 ? -2 : EOF;
		c = r->t[r->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return (unsigned char)c;
		r->pos++;
	}
}

/* Frames the value at t[pos], depth arrays and objects deep in the
 * summary, into t[mark..pos): as far as it goes when the summary ends
 * within it, or to the bracket nested too deep; json.h's parse then
 * says what is wrong at its offset.  Only strings and brackets are
 * followed here, so the frame of a valid value is that value. */
static int rd_frame(struct wc_capsule_reader *r, size_t depth,
		    struct wc_err *err)
{
	size_t d = 0, i;
	bool str = false, esc = false;
	int m;

	r->mark = r->pos;
	/* The bytes at hand a run at a time, up to the bound. */
	while ((m = rd_more(r, err)) == 1) {
		const char *t = r->t;
		size_t end = r->len;

		if (end - r->mark > WC_CAPSULE_MAX_TEXT)
			end = r->mark + WC_CAPSULE_MAX_TEXT;
		for (i = r->pos; i < end; i++) {
			char c = t[i];

			if (str) {
				if (esc) {
					esc = false;
				} else if (c == '\\') {
					esc = true;
				} else if (c == '"') {
					str = false;
					if (d == 0)
						goto framed;
				}
				continue;
			}
			if (c == '"') {
				str = true;
			} else if (c == '{' || c == '[') {
				/* Past json.h's bound: framed up to here,
				 * for the parse to refuse where it is. */
				if (depth + ++d > WC_JSON_MAX_DEPTH)
					goto framed;
			} else if (d > 0 && (c == '}' || c == ']')) {
				if (--d == 0)
					goto framed;
			} else if (d == 0 &&
				   (c == '}' || c == ']' || c == ',' ||
				    c == ':' || c == ' ' || c == '\t' ||
				    c == '\n' || c == '\r')) {
				/* A number or a word ends; nothing at all
				 * is one byte, for json.h to say. */
				r->pos = i == r->mark ? i + 1 : i;
				return 0;
			}
		}
		r->pos = i;
		if (i - r->mark >= WC_CAPSULE_MAX_TEXT) {
			r->at = RD_FAILED;
			return wc_err_set(err, WC_ERR_INPUT, r->path, NULL,
					  r->base + r->mark, "a value longer "
					  "than a summary's capture (%zu "
					  "bytes)", WC_CAPSULE_MAX_TEXT);
		}
	}
	return m < 0 ? -1 : 0;

framed:
	r->pos = i + 1;
	return 0;
}

/* The value at t[pos] framed and parsed; *j points into t until freed,
 * and nothing is read meanwhile. */
static int rd_value(struct wc_capsule_reader *r, size_t depth,
		    struct wc_json **j, struct wc_err *err)
{
	struct wc_err e;

	*j = NULL;
	if (rd_frame(r, depth, err) < 0)
		return -1;
	wc_err_clear(&e);
	if (wc_json_parse_nested(j, r->t + r->mark, r->pos - r->mark, depth,
				 &e) < 0)
		return rd_shift(r, err, r->mark, &e);
	return 0;
}

static void rd_value_done(struct wc_capsule_reader *r, struct wc_json *j)
{
	wc_json_free(j);
	r->mark = SIZE_MAX;
}

/* The value at t[pos], depth arrays and objects deep, gone through:
 * an array or an object a member at a time, whatever its length (a
 * comparison's group names every run of its configuration), each key
 * and other value framed and parsed by json.h, so that what is not read
 * is still checked as JSON, and the reader holds one of them. */
static int rd_skip(struct wc_capsule_reader *r, size_t depth,
		   struct wc_err *err)
{
	struct wc_json *j;
	int c = rd_peek(r, err), close;

	if (c == -2)
		return -1;
	/* Nested too deep: json.h refuses it where it is. */
	if ((c != '[' && c != '{') || depth + 1 > WC_JSON_MAX_DEPTH) {
		if (rd_value(r, depth, &j, err) < 0)
			return -1;
		rd_value_done(r, j);
		return 0;
	}
	close = c == '[' ? ']' : '}';
	r->pos++;
	c = rd_peek(r, err);
	if (c == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		if (c == -2)
			return -1;
		if (close == '}') {
			if (c != '"')
				return rd_fail(r, err, r->pos,
					       "a key expected");
			if (rd_value(r, depth + 1, &j, err) < 0)
				return -1;
			rd_value_done(r, j);
			c = rd_peek(r, err);
			if (c == -2)
				return -1;
			if (c != ':')
				return rd_fail(r, err, r->pos,
					       "':' expected");
			r->pos++;
		}
		if (rd_skip(r, depth + 1, err) < 0)
			return -1;
		c = rd_peek(r, err);
		if (c == -2)
			return -1;
		if (c != ',' && c != close)
			return rd_fail(r, err, r->pos, close == ']' ?
				       "',' or ']' expected" :
				       "',' or '}' expected");
		r->pos++;
		if (c == close)
			return 0;
		c = rd_peek(r, err);
	}
}

/* The root's member at t[pos]: its key, ':', and its value, read
 * ("format", "version"), entered ("captures") or gone through. */
static int rd_member(struct wc_capsule_reader *r, struct wc_err *err)
{
	struct wc_json *j;
	const struct wc_json_node *v;
	size_t at;
	int c = rd_peek(r, err);
	enum { OTHER, FORMAT, VERSION, CAPTURES } key = OTHER;
	uint64_t ver;

	if (c == -2)
		return -1;
	if (++r->members > WC_JSON_MAX_MEMBERS)
		return rd_fail(r, err, r->pos, "more members than a summary "
			       "has");
	if (c != '"')
		return rd_fail(r, err, r->pos, "a key expected");
	if (rd_value(r, 1, &j, err) < 0)
		return -1;
	v = wc_json_root(j);
	key = wc_json_string_is(j, v, "format") ? FORMAT :
	      wc_json_string_is(j, v, "version") ? VERSION :
	      wc_json_string_is(j, v, "captures") ? CAPTURES : OTHER;
	rd_value_done(r, j);
	c = rd_peek(r, err);
	if (c == -2)
		return -1;
	if (c != ':')
		return rd_fail(r, err, r->pos, "':' expected");
	r->pos++;
	c = rd_peek(r, err);
	if (c == -2)
		return -1;
	at = r->pos;
	switch (key) {
	case OTHER:
		r->at = RD_AFTER_MEMBER;
		return rd_skip(r, 1, err);
	case FORMAT:
	case VERSION:
		if (rd_value(r, 1, &j, err) < 0)
			return -1;
		at = r->mark;
		v = wc_json_root(j);
		if (key == FORMAT ? r->format ||
		    !wc_json_string_is(j, v, "wcanalyze") :
		    r->version || wc_json_u64(j, v, &ver) < 0 || ver != 1) {
			rd_value_done(r, j);
			return key == FORMAT ?
			       rd_bad(r, err, at, "format", "not a wcanalyze "
				      "summary") :
			       rd_bad(r, err, at, "version", "not a version "
				      "this wcanalyze reads");
		}
		rd_value_done(r, j);
		*(key == FORMAT ? &r->format : &r->version) = true;
		r->at = RD_AFTER_MEMBER;
		return 0;
	case CAPTURES:
		/* A capture is handed over as it comes: what it is a
		 * capture of is said before. */
		if (!r->format)
			return rd_bad(r, err, at, "format", "not a wcanalyze "
				      "summary (or after its captures)");
		if (!r->version)
			return rd_bad(r, err, at, "version", "not a version "
				      "this wcanalyze reads (or after its "
				      "captures)");
		if (r->captures)
			return rd_bad(r, err, at, "captures", "given twice");
		if (c != '[')
			return rd_bad(r, err, at, "captures", "no captures");
		r->captures = true;
		r->pos++;
		r->at = RD_FIRST_CAPTURE;
		return 0;
	}
	return 0;
}

/* The capture at t[pos] into *c. */
static int rd_capture(struct wc_capsule_reader *r, struct wc_capsule **c,
		      struct wc_err *err)
{
	struct wc_json *j;
	const struct wc_json_node *n;
	struct wc_err e;
	size_t at;
	int rc = 0;

	if (rd_peek(r, err) == -2 || rd_value(r, 2, &j, err) < 0)
		return -1;
	/* Where it starts now: the bytes before it may have gone. */
	at = r->mark;
	n = wc_json_root(j);
	wc_err_clear(&e);
	if (n->type != WC_JSON_OBJECT)
		rc = rd_bad(r, err, at, "captures", "an object expected");
	else if (read_capture(j, n, c, &e) < 0)
		rc = rd_shift(r, err, at, &e);
	rd_value_done(r, j);
	return rc;
}

static struct wc_capsule_reader *rd_new(const char *path)
{
	struct wc_capsule_reader *r = calloc(1, sizeof(*r));

	if (r) {
		r->fd = -1;
		r->path = path;
		r->mark = SIZE_MAX;
		r->at = RD_START;
	}
	return r;
}

int wc_capsule_reader_fd(struct wc_capsule_reader **out, int fd,
			 const char *path, struct wc_err *err)
{
	*out = rd_new(path);
	if (!*out)
		return wc_err_oom(err, path, NULL);
	(*out)->fd = fd;
	return 0;
}

int wc_capsule_reader_text(struct wc_capsule_reader **out, const char *text,
			   size_t len, struct wc_err *err)
{
	*out = rd_new(NULL);
	if (!*out)
		return wc_err_oom(err, NULL, NULL);
	(*out)->t = text;
	(*out)->len = len;
	(*out)->eof = true;
	return 0;
}

int wc_capsule_reader_next(struct wc_capsule_reader *r,
			   struct wc_capsule **c, struct wc_err *err)
{
	int ch;

	*c = NULL;
	for (;;) {
		switch (r->at) {
		case RD_FAILED:
			return wc_err_set(err, WC_ERR_USAGE, r->path, NULL,
					  WC_NO_OFFSET, "a summary read past "
					  "its fault");
		case RD_END:
			return 0;
		case RD_MEMBER:
			if (rd_member(r, err) < 0)
				return -1;
			continue;
		case RD_CAPTURE:
			if (rd_capture(r, c, err) < 0)
				return -1;
			r->at = RD_AFTER_CAPTURE;
			return 1;
		default:
			break;
		}
		ch = rd_peek(r, err);
		if (ch == -2)
			return -1;
		switch (r->at) {
		case RD_START:
			if (ch != '{')
				return rd_bad(r, err, r->pos, "format",
					      "not a wcanalyze summary");
			r->pos++;
			r->at = RD_FIRST_MEMBER;
			break;
		case RD_FIRST_MEMBER:
			r->at = RD_MEMBER;
			if (ch == '}') {
				r->pos++;
				r->at = RD_TAIL;
			}
			break;
		case RD_AFTER_MEMBER:
		case RD_AFTER_CAPTURE:
			if (ch == ',') {
				r->pos++;
				r->at = r->at == RD_AFTER_MEMBER ? RD_MEMBER :
					RD_CAPTURE;
			} else if (ch == (r->at == RD_AFTER_MEMBER ? '}' :
					  ']')) {
				r->pos++;
				r->at = r->at == RD_AFTER_MEMBER ? RD_TAIL :
					RD_AFTER_MEMBER;
			} else {
				return rd_fail(r, err, r->pos,
					       r->at == RD_AFTER_MEMBER ?
					       "',' or '}' expected" :
					       "',' or ']' expected");
			}
			break;
		case RD_FIRST_CAPTURE:
			if (ch == ']')
				return rd_bad(r, err, r->pos, "captures",
					      "no captures");
			r->at = RD_CAPTURE;
			break;
		case RD_TAIL:
			if (ch != EOF)
				return rd_fail(r, err, r->pos, "text after "
					       "the value");
			if (!r->captures)
				return rd_bad(r, err, r->pos, !r->format ?
					      "format" : "captures",
					      !r->format ? "not a wcanalyze "
					      "summary" : "no captures");
			r->at = RD_END;
			break;
		default:
			break;
		}
	}
}

void wc_capsule_reader_free(struct wc_capsule_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

/* ---- written: the raw record, and a spill ----------------------------- */

/* The raw record, one line: what a comparison reads back.  Through the
 * one description of its fields, so that what is written here is what
 * the reader (wc_capsule_reader_next()) takes. */
static void raw_table(FILE *f, const struct wc_ctable *t, const char *base);

static void raw_field(FILE *f, const struct wc_cfield *fd, const char *base)
{
	const char *p = base + fd->off;
	size_t k, n;

	switch (fd->type) {
	case WC_CF_U64:
		fprintf(f, "%" PRIu64, *(const uint64_t *)(const void *)p);
		return;
	case WC_CF_I64:
		fprintf(f, "%" PRId64, *(const int64_t *)(const void *)p);
		return;
	case WC_CF_U32:
		fprintf(f, "%" PRIu32, *(const uint32_t *)(const void *)p);
		return;
	case WC_CF_INT:
		fprintf(f, "%d", *(const int *)(const void *)p);
		return;
	case WC_CF_UNSIGNED:
		fprintf(f, "%u", *(const unsigned *)(const void *)p);
		return;
	case WC_CF_SIZE:
		fprintf(f, "%zu", *(const size_t *)(const void *)p);
		return;
	case WC_CF_BOOL:
		fputs(*(const bool *)(const void *)p ? "true" : "false", f);
		return;
	case WC_CF_DOUBLE:
		/* 17 digits: the double itself back (capsule.h). */
		if (isfinite(*(const double *)(const void *)p))
			fprintf(f, "%.17g", *(const double *)(const void *)p);
		else
			fputs("null", f);
		return;
	case WC_CF_STRING:
		wc_escape_json_bytes(f, p);
		return;
	case WC_CF_U64S:
		for (k = 0; k < fd->size; k++)
			fprintf(f, "%s%" PRIu64, k ? ", " : "[",
				((const uint64_t *)(const void *)p)[k]);
		fputs(fd->size ? "]" : "[]", f);
		return;
	case WC_CF_STRINGS:
		for (k = 0; k < fd->max; k++) {
			fputs(k ? ", " : "[", f);
			wc_escape_json_bytes(f, p + k * fd->size);
		}
		fputs(fd->max ? "]" : "[]", f);
		return;
	case WC_CF_RECORDS:
		n = fd->count_off == SIZE_MAX ? fd->max :
		    *(const size_t *)(const void *)(base + fd->count_off);
		if (!fd->inline_)
			p = *(const char *const *)(const void *)p;
		fputc('[', f);
		for (k = 0; k < n; k++) {
			fputs(k ? ", " : "", f);
			raw_table(f, fd->sub, p + k * fd->size);
		}
		fputc(']', f);
		return;
	case WC_CF_RECORD:
		if (!fd->inline_)
			p = *(const char *const *)(const void *)p;
		if (!p)
			fputs("null", f);
		else
			raw_table(f, fd->sub, p);
		return;
	}
}

static void raw_table(FILE *f, const struct wc_ctable *t, const char *base)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "{", t->f[i].key);
		raw_field(f, &t->f[i], base);
	}
	fputc('}', f);
}

void wc_capsule_write(FILE *f, const struct wc_capsule *c)
{
	fprintf(f, "{\"raw_version\": %d, \"capture\": ", WC_CAPSULE_VERSION);
	raw_table(f, &capsule_t, (const char *)c);
	fputc('}', f);
}

struct wc_capsule_spill {
	FILE *f;                       /* the temporary file, w+ */
	bool reading;
	char *buf;                     /* one record read back */
	size_t room;
	struct wc_capsule *cur;        /* and its capsule */
};

/* Why writing the spill failed: errno, cleared before the writing
 * began, says it for a failed call (ftello(), fseeko(), a write the
 * stream reports); a stream in error with none set was cut short. */
static int spill_failed(struct wc_capsule_spill *sp, struct wc_err *err)
{
	int e = errno;

	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "the comparison's temporary file: %s",
			  e ? strerror(e) : ferror(sp->f) ? "a write failed" :
			  "cut short");
}

int wc_capsule_spill_open(struct wc_capsule_spill **out, struct wc_err *err)
{
	struct wc_capsule_spill *sp;
	int fd;

	*out = NULL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return wc_err_oom(err, NULL, NULL);
	fd = wc_spool_tmpfile("the comparison's captures", err);
	if (fd < 0)
		goto fail_sp;
	sp->f = fdopen(fd, "w+b");
	if (!sp->f) {
		wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			   "the comparison's temporary file: %s",
			   strerror(errno));
		goto fail_fd;
	}
	*out = sp;
	return 0;

fail_fd:
	close(fd);
fail_sp:
	free(sp);
	return -1;
}

int wc_capsule_spill_add(struct wc_capsule_spill *sp,
			 const struct wc_capsule *c, struct wc_err *err)
{
	uint64_t len = 0;
	off_t at, end;

	if (sp->reading)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "a capture spilled after the spill was "
				  "read");
	/* The record's length goes in front once the record is written. */
	errno = 0;
	at = ftello(sp->f);
	if (at < 0 || fwrite(&len, sizeof(len), 1, sp->f) != 1)
		return spill_failed(sp, err);
	fputs("{\"format\": \"wcanalyze\", \"version\": 1, "
	      "\"captures\": [{\"raw\": ", sp->f);
	wc_capsule_write(sp->f, c);
	fputs("}]}", sp->f);
	end = ftello(sp->f);
	if (end < 0 || ferror(sp->f))
		return spill_failed(sp, err);
	len = (uint64_t)(end - at) - sizeof(len);
	if (fseeko(sp->f, at, SEEK_SET) < 0 ||
	    fwrite(&len, sizeof(len), 1, sp->f) != 1 ||
	    fseeko(sp->f, end, SEEK_SET) < 0)
		return spill_failed(sp, err);
	return 0;
}

int wc_capsule_spill_rewind(struct wc_capsule_spill *sp, struct wc_err *err)
{
	wc_capsule_free(sp->cur);
	sp->cur = NULL;
	sp->reading = true;
	if (fflush(sp->f) || fseeko(sp->f, 0, SEEK_SET) < 0)
		return spill_failed(sp, err);
	return 0;
}

int wc_capsule_spill_next(struct wc_capsule_spill *sp,
			  const struct wc_capsule **c, struct wc_err *err)
{
	struct wc_capsule_reader *r = NULL;
	struct wc_capsule *more = NULL;
	uint64_t len;
	int rc = -1;

	if (!sp->reading && wc_capsule_spill_rewind(sp, err) < 0)
		return -1;
	wc_capsule_free(sp->cur);
	sp->cur = NULL;
	if (fread(&len, sizeof(len), 1, sp->f) != 1)
		return ferror(sp->f) ? spill_failed(sp, err) : 0;
	if (len > WC_CAPSULE_MAX_TEXT)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "the comparison's temporary file is not as "
				  "written");
	if (len > sp->room) {
		char *b = realloc(sp->buf, (size_t)len);

		if (!b)
			return wc_err_oom(err, NULL, NULL);
		sp->buf = b;
		sp->room = (size_t)len;
	}
	if (fread(sp->buf, 1, (size_t)len, sp->f) != len)
		return spill_failed(sp, err);
	if (wc_capsule_reader_text(&r, sp->buf, (size_t)len, err) < 0)
		return -1;
	/* One capture a record, and nothing after it. */
	if (wc_capsule_reader_next(r, &sp->cur, err) != 1 ||
	    wc_capsule_reader_next(r, &more, err) != 0) {
		wc_capsule_free(more);
		wc_capsule_free(sp->cur);
		sp->cur = NULL;
		wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			   "the comparison's temporary file is not as "
			   "written");
		goto free_r;
	}
	*c = sp->cur;
	rc = 1;
free_r:
	wc_capsule_reader_free(r);
	return rc;
}

void wc_capsule_spill_free(struct wc_capsule_spill *sp)
{
	if (!sp)
		return;
	if (sp->f)
		fclose(sp->f);
	wc_capsule_free(sp->cur);
	free(sp->buf);
	free(sp);
}
