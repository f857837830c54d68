/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "analysis/analysis.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/devtab.h"
#include "base/spool.h"
#include "input/batchq.h"
#include "input/input.h"
#include "input/ledger.h"
#include "input/recfilter.h"

struct wc_analysis {
	struct wc_capture_meta meta;
	struct wc_classifier cl;    /* how its requests were classified */
	struct wc_account *ac;
	struct wc_btt *btt;
	/* The first WC_SERIES_MAX_DEVICES devices' series, by number. */
	struct wc_series *series[WC_SERIES_MAX_DEVICES];
	struct wc_devtab series_devs;
	bool has_series;
	uint64_t series_ignored;
	struct wc_tracker_stats stats;
	struct wc_phase_result phases[WC_MAX_PHASES];
	size_t nphases;
	int main_index;
	bool partial;
	char main_missing[200];     /* why the destination has no figures */
	char filter[320];           /* the filters in words, or "" */
	bool filter_device;         /* the main device is the filter's */
	struct wc_kcheck kcheck;    /* the trace against the kernel's counters */
	size_t nwarnings;
	char warnings[WC_ANALYSIS_MAX_WARNINGS][320];
};

static void warn(struct wc_analysis *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct wc_analysis *a, const char *fmt, ...)
{
	va_list ap;

	if (a->nwarnings >= WC_ANALYSIS_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(a->warnings[a->nwarnings++], sizeof(a->warnings[0]), fmt, ap);
	va_end(ap);
}

static void warn_capture(struct wc_analysis *a, const struct wc_capture *c)
{
	size_t i;

	for (i = 0; i < c->nnotes; i++)
		warn(a, "%s", c->notes[i]);
	if (c->nnotes_more)
		warn(a, "and %zu more such lines in the capture's files",
		     c->nnotes_more);
}

/* ---- capture metadata -------------------------------------------------- */

static void meta_unknown(struct wc_capture_meta *m, const char *name)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name ? name : "");
	m->write_cache = -1;
	m->barrier = -1;
	m->events_dropped = -1;
	m->main_rotational = -1;
	m->complete = -1;
	m->journal_method = WC_JOURNAL_HEURISTIC;
	m->run = m->lab_position = -1;
	m->load_before = m->load_after = -1;
	m->dirty_kb_end = -1;
}

/* A whole number from 0 to max in s, all of it; -1 otherwise. */
static int64_t meta_int(const char *s, int64_t max)
{
	int64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* The first of a load average's numbers ("1.25 0.80 0.50"), < 0 when it
 * does not parse or is out of any host's range. */
static double meta_load(const char *s)
{
	char *end;
	double v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtod(s, &end);
	if (end == s || (*end && *end != ' ') || !(v >= 0 && v < 1e6))
		return -1;
	return v;
}

/* The run number a name ends with ("...-run3"), or -1. */
static int name_run(const char *name)
{
	const char *p = strrchr(name, '-');

	if (!p || strncmp(p, "-run", 4))
		return -1;
	return (int)meta_int(p + 4, 999999);
}

/* Appends "key=value;" to the host key when the value is present. */
static void host_add(struct wc_capture_meta *m, const char *key,
		     const char *v)
{
	size_t len = strlen(m->host), i;
	int w;

	if (!v[0])
		return;
	w = snprintf(m->host + len, sizeof(m->host) - len, "%s=%s;", key, v);
	if (w < 0 || (size_t)w >= sizeof(m->host) - len) {
		m->host[len] = '\0';
		return;
	}
	for (i = len + strlen(key) + 1; i < len + (size_t)w - 1; i++)
		if (m->host[i] == ';' || m->host[i] == '=')
			m->host[i] = '_';
}

static void meta_host(struct wc_capture_meta *m, const struct wc_capture *c)
{
	int64_t v;
	size_t k;

	v = meta_int(c->run, 999999);
	m->run = v >= 0 ? (int)v : name_run(m->name);
	m->warmup = !strcmp(c->run_role, "warmup");
	v = meta_int(c->lab_position, 999999);
	m->lab_position = (int)v;
	m->load_before = meta_load(c->host_loadavg_before);
	m->load_after = meta_load(c->host_loadavg_after);
	m->dirty_kb_end = meta_int(c->host_dirty_kb_end, INT64_MAX / 1024);
	v = meta_int(c->source_bytes, INT64_MAX);
	m->source_bytes = v > 0 ? (uint64_t)v : 0;
	v = meta_int(c->source_files, INT64_MAX);
	m->source_files = v > 0 ? (uint64_t)v : 0;
	host_add(m, "tool_version", c->tool_version);
	host_add(m, "tool_commit", c->tool_commit);
	host_add(m, "kernel", c->kernel);
	host_add(m, "recorder", c->recorder);
	host_add(m, "host_cpus", c->host_cpus);
	host_add(m, "host_mem_total_kb", c->host_mem_total_kb);
	for (k = 0; k < 6; k++)
		host_add(m, wc_capture_vm_dirty_keys[k], c->vm_dirty[k]);
}

/* The configuration key: what runs of one experiment share, nothing that
 * differs from run to run (name, kernel, times); "" when capture.conf
 * says none of it. */
static void meta_config(struct wc_capture_meta *m, const struct wc_capture *c)
{
	int w;

	m->config[0] = '\0';
	if (!c->fs[0] && c->write_cache < 0 && c->barrier < 0 &&
	    !c->write_cache_method[0] && !c->disk[0] && !c->disk_model[0] &&
	    !c->workload[0] && !c->command[0] && !c->source_files[0] &&
	    !c->source_bytes[0])
		return;
	w = snprintf(m->config, sizeof(m->config), "fs=%s;write_cache=%d;"
		     "write_cache_method=%s;barrier=%d;disk=%s;disk_model=%s;"
		     "workload=%s;command=%s;source_files=%s;source_bytes=%s;",
		     c->fs, c->write_cache, c->write_cache_method, c->barrier,
		     c->disk, c->disk_model, c->workload, c->command,
		     c->source_files, c->source_bytes);
	/* Too long to compare whole: no group rather than a wrong one. */
	if (w < 0 || (size_t)w >= sizeof(m->config))
		m->config[0] = '\0';
}

/* The comparable set's key (analysis.h): the configuration's keys that
 * the write cache and barrier settings do not change. */
static void meta_comparable(struct wc_capture_meta *m,
			    const struct wc_capture *c)
{
	int w;

	w = snprintf(m->comparable, sizeof(m->comparable), "disk=%s;"
		     "disk_model=%s;workload=%s;command=%s;source_files=%s;"
		     "source_bytes=%s;", c->disk, c->disk_model, c->workload,
		     c->command, c->source_files, c->source_bytes);
	if (w < 0 || (size_t)w >= sizeof(m->comparable))
		m->comparable[0] = '\0';
}

static void meta_from_capture(struct wc_capture_meta *m,
			      const struct wc_input *in)
{
	const struct wc_capture *c = wc_input_capture(in);
	const struct wc_capture_device *dest = wc_capture_destination(c);
	size_t i;
	int pos;

	meta_unknown(m, wc_input_name(in));
	snprintf(m->fs, sizeof(m->fs), "%s", c->fs);
	m->write_cache = c->write_cache;
	m->barrier = c->barrier;
	snprintf(m->kernel, sizeof(m->kernel), "%s", c->kernel);
	snprintf(m->mount_options, sizeof(m->mount_options), "%s",
		 c->mount_options);
	snprintf(m->recorder, sizeof(m->recorder), "%s", c->recorder);
	m->complete = c->complete;
	m->events_dropped = c->events_dropped;
	meta_config(m, c);
	meta_comparable(m, c);
	meta_host(m, c);
	snprintf(m->disk_model, sizeof(m->disk_model), "%s", c->disk_model);
	snprintf(m->disk, sizeof(m->disk), "%s", c->disk);
	snprintf(m->lab_workload, sizeof(m->lab_workload), "%s",
		 c->lab_workload);
	m->nregions = c->nregions;
	memcpy(m->regions, c->regions, sizeof(m->regions));
	m->disk_capacity = c->disk_capacity;
	m->noffsets = c->noffsets;
	memcpy(m->offsets, c->offsets, sizeof(m->offsets));
	if (c->workload_end_ns && c->durable_ns >= c->workload_end_ns &&
	    c->durable_ns - c->workload_end_ns <= WC_DURABLE_MAX_NS) {
		m->has_durable = true;
		m->returned_ns = c->workload_end_ns;
		m->durable_ns = c->durable_ns;
		m->durable_bytes = c->durable_bytes;
	}

	/* The devices in the order "devices" lists them. */
	for (pos = 1; m->ndevices < WC_MAX_DEVICES; pos++) {
		const struct wc_capture_device *d = NULL;

		for (i = 0; i < c->ndevices && !d; i++)
			if (c->devices[i].listed == pos)
				d = &c->devices[i];
		if (!d)
			break;
		m->devices[m->ndevices].device = d->dev;
		snprintf(m->devices[m->ndevices].name,
			 sizeof(m->devices[0].name), "%s", d->name);
		m->devices[m->ndevices].rotational = d->rotational;
		m->devices[m->ndevices].timeout_ns = d->timeout_ms * 1000000u;
		m->devices[m->ndevices].hw_queues = d->hw_queues;
		snprintf(m->devices[m->ndevices].role,
			 sizeof(m->devices[0].role), "%s", d->role);
		m->ndevices++;
	}
	if (dest) {
		m->main_device = dest->dev;
		m->main_from_conf = dest->dev != 0;
		m->dest_device = dest->dev;
		m->main_rotational = dest->rotational;
	}
	if (c->journal_known) {
		m->journal_method = WC_JOURNAL_RANGE;
		m->journal_start = c->journal_start;
		m->journal_len = c->journal_sectors;
	} else {
		snprintf(m->journal_why, sizeof(m->journal_why), "%s",
			 c->journal_guessed[0] ? c->journal_guessed :
			 c->has_conf ? "capture.conf gives neither the "
				       "journal's sectors nor why" :
				       "no capture.conf gives the journal's "
				       "sectors");
	}
}

/* ---- the pipeline ------------------------------------------------------ */

/* A model disk's own work on one traced device, from its ledger: the
 * accountant pulls it (wc_account_set_work()); a bad row stops it and
 * fails the pipeline at its end, with the ledger's offset. */
struct ledger_feed {
	struct wc_ledger *lg;
	bool failed;
	struct wc_err err;
};

struct pipeline {
	struct wc_analysis *a;
	const struct wc_analysis_opts *o;
	struct wc_input *in;             /* its input, or NULL */
	/* With o->threads 2: in read on a thread of its own; the names
	 * then come through it, copied into name[] (two at once: a
	 * request's process and its cause). */
	struct wc_batchq *q;
	char (*name)[WC_BATCHQ_NAME];
	char names[2][WC_BATCHQ_NAME];
	struct wc_classifier cl;
	wc_event_source next;            /* run_source's events; else in's */
	void *ctx;
	/* run_requests: requests instead of events, over [first, last] */
	wc_request_source rnext;
	void *rctx;
	uint64_t first, last;
	/* The accountant opens at the first request (or the end): a window
	 * from the capture's start needs its first event's time. */
	struct wc_account_conf conf;
	struct wc_phase_window win[WC_MAX_PHASES];
	struct wc_tracker *tr;
	/* With o->filter: a copy, its device looked up; the window once
	 * known (win_known). */
	bool filtering;
	struct wc_filter filt;
	bool phase_known;             /* filt.phase found: pstart, pend */
	uint64_t pstart, pend;
	bool win_known;
	struct wc_filter_window fw;
	struct wc_interval *iv;          /* with o->interval */
	struct wc_kcount *kc;            /* the capture's counters, or NULL */
	/* The ledger's work, one feed a region of the model disk, and one
	 * of every region for the disk of its partitions (account.h). */
	struct ledger_feed feed[WC_CAPTURE_MAX_REGIONS + 1];
	/* The ledger read once and copied aside (ledger_aside()): every
	 * feed reads the copy; ledger_src keeps the names its messages
	 * give. */
	bool ledger_held;
	int ledger_fd;
	struct wc_source *ledger_src;
	/* The ledger is the one-pass scan's copy (wc_input_side_kept()),
	 * its totals wanted (not the what-if's recording, o->once). */
	bool ledger_kept;
};

/* The tracker's source over a source of single events (run_source): every
 * event goes to btt first, as it passes.  btt keeps its own failure (out
 * of memory) for the end of the pipeline. */
static int feed(void *ctx, struct wc_event *ev, struct wc_err *err)
{
	struct pipeline *pl = ctx;
	int r = pl->next(pl->ctx, ev, err);

	if (r > 0 && pl->a->btt)
		wc_btt_add(pl->a->btt, ev, NULL);
	if (r > 0 && pl->o->trace)
		wc_traceevent_events(pl->o->trace, ev, 1);
	return r;
}

/* The tracker's batch source over the input: btt sees the whole batch
 * before the tracker reads it, which changes nothing for either (neither
 * looks at the other).  btt takes the batch in one call
 * (wc_btt_add_batch()), its filter and dispatch inline there. */
static int feed_batch(void *ctx, const struct wc_event **evs, size_t *n,
		      struct wc_err *err)
{
	struct pipeline *pl = ctx;
	struct wc_btt *btt = pl->a->btt;
	size_t got = 0;
	int r;

	/* A batch from the input, which the tracker reads where the input
	 * holds it: one call down the input's chain per batch, no copy per
	 * event. */
	r = pl->q ? wc_batchq_next(pl->q, evs, &got, err) :
		     wc_input_next_ref(pl->in, evs, WC_INPUT_BATCH, &got, err);
	*n = got;
	if (r > 0 && btt)
		wc_btt_add_batch(btt, *evs, got);
	if (r > 0 && pl->o->trace)
		wc_traceevent_events(pl->o->trace, *evs, got);
	return r;
}

/* Gives rq to its device's series; -1 with err when out of memory. */
static int add_series(struct wc_analysis *a, const struct wc_request *rq,
		      enum wc_cat cat, struct wc_err *err)
{
	struct wc_series *s;
	int i = wc_devtab_find(&a->series_devs, rq->device);

	if (i >= 0) {
		s = a->series[i];
	} else {
		if (wc_devtab_count(&a->series_devs) == WC_SERIES_MAX_DEVICES) {
			a->series_ignored++;
			return 0;
		}
		if (wc_series_open(&s, err) < 0)
			return -1;
		a->series[wc_devtab_add(&a->series_devs, rq->device)] = s;
	}
	wc_series_add(s, rq, cat);
	return 0;
}

/* PID's process name as the input knew it at this point of the trace
 * (batchq.h), into the pipeline's name[i] when read on a thread; NULL
 * without an input or a name. */
static const char *pipeline_comm(const struct pipeline *pl, uint32_t pid,
				 size_t i)
{
	if (pl->q)
		return wc_batchq_comm(pl->q, pid, pl->name[i]);
	return pl->in ? wc_input_comm(pl->in, pid) : NULL;
}

/* A request to the timeline, with the names of its process and of the
 * thread that asked for it (a flush's cause). */
static void trace_request(struct pipeline *pl, const struct wc_request *rq,
			  enum wc_cat cat)
{
	const char *comm = pipeline_comm(pl, rq->pid, 0), *cause = NULL;

	if (rq->has_cause)
		cause = pipeline_comm(pl, rq->cause_pid, 1);
	wc_traceevent_request(pl->o->trace, rq, cat, comm, cause);
}

/* The filter's window, once the capture's first event is known; the
 * phases cut to it. */
static void filter_window(struct pipeline *pl)
{
	struct wc_analysis *a = pl->a;
	uint64_t origin = pl->tr ? wc_tracker_stats(pl->tr)->first_time :
				    pl->first;
	size_t i;

	if (origin == WC_NO_TIME)
		origin = 0;
	if (pl->filt.phase[0] && !pl->phase_known) {
		/* No such phase: an empty window at the start. */
		pl->fw.start = pl->fw.end = origin;
	} else {
		wc_filter_window_of(&pl->filt, origin, pl->phase_known,
				    pl->pstart, pl->pend, &pl->fw);
	}
	pl->win_known = true;
	for (i = 0; i < a->nphases; i++) {
		struct wc_phase_result *p = &a->phases[i];
		uint64_t start = p->start, end = p->end;

		p->start = p->start > pl->fw.start ? p->start : pl->fw.start;
		p->end = p->end < pl->fw.end ? p->end : pl->fw.end;
		if (p->end < p->start)
			p->end = p->start;
		p->cut = p->start != start || p->end != end;
		p->wall_s = (double)(p->end - p->start) / 1e9;
		pl->win[i].start = p->start;
		pl->win[i].end = p->end;
	}
}

/* The accountant's names: the input's, from its notify records. */
static const char *input_comm(const void *pl, uint32_t pid)
{
	return pipeline_comm(pl, pid, 0);
}

/* Opens the interval table over the accountant's window: from the
 * filter's start (else the first event's), to its end (else the last
 * event's, given at the end). */
static int interval_open(struct pipeline *pl, struct wc_err *err)
{
	const struct wc_analysis *a = pl->a;
	uint64_t zero = pl->tr ? wc_tracker_stats(pl->tr)->first_time :
				  pl->first;
	struct wc_interval_conf ic = {
		.len_ns = pl->o->interval_ns, .end = UINT64_MAX,
		.sink = pl->o->interval, .capture = a->meta.name,
	};
	size_t i;

	if (zero == WC_NO_TIME)
		zero = 0;
	ic.zero = ic.origin = zero;
	if (pl->filtering) {
		ic.origin = pl->fw.start;
		ic.end = pl->fw.end;
	}
	if (wc_interval_open(&pl->iv, &ic, err) < 0)
		return -1;
	for (i = 0; i < a->meta.ndevices; i++)
		wc_interval_name_device(pl->iv, a->meta.devices[i].device,
					a->meta.devices[i].name);
	return 0;
}

/* Opens the accountant over the phases, cut to the filter's window. */
static int ledger_pull(void *arg, struct wc_account_work *w)
{
	struct ledger_feed *lf = arg;
	struct wc_ledger_work lw;
	int r;

	r = wc_ledger_next(lf->lg, &lw, &lf->err);
	if (r < 0)
		lf->failed = true;
	if (r > 0) {
		w->start = lw.start;
		w->end = lw.end;
		w->bytes = lw.bytes;
	}
	return r;
}

/* The traced device a model disk's region is (capture.conf
 * disk_regions names it; without it, region 0 is the destination), or
 * 0 when not traced. */
static uint32_t region_device(const struct wc_capture_meta *m, size_t k)
{
	size_t i;

	if (!m->nregions)
		return k == 0 ? m->dest_device : 0;
	for (i = 0; i < m->ndevices; i++)
		if (m->regions[k][0] && !strcmp(m->regions[k], m->devices[i].name))
			return m->devices[i].device;
	return 0;
}

/*
 * The ledger read once: in an archive it lies after the trace files,
 * where the scan stopped, and each feed reading it on a handle of its
 * own would decompress the archive again.  So its bytes are copied once
 * into an unnamed temporary file in TMPDIR (or /tmp), at most
 * WC_INPUT_SPILL_MAX, and every feed reads that copy
 * (wc_source_open_region()).  0 with pl->ledger_held, 0 without a
 * ledger, or -1 with err filled.
 */
static int ledger_aside(struct pipeline *pl, struct wc_err *err)
{
	struct wc_source *src = NULL;
	uint64_t len = 0;
	const unsigned char *p;
	ssize_t n;
	int fd;

	if (wc_input_open_side(pl->in, WC_LEDGER_FILE, &src, err) < 0)
		return -1;
	if (!src)
		return 0;
	fd = wc_spool_tmpfile("the ledger", err);
	if (fd < 0)
		goto free_src;
	while ((n = wc_source_peek(src, 65536, &p, err)) > 0) {
		if (len + (uint64_t)n > WC_INPUT_SPILL_MAX) {
			wc_err_set(err, WC_ERR_INPUT, wc_source_path(src),
				   wc_source_member(src), wc_source_offset(src),
				   "a ledger of more than %llu bytes",
				   (unsigned long long)WC_INPUT_SPILL_MAX);
			goto close_fd;
		}
		if (wc_spool_write_at(fd, p, (size_t)n, len) < (size_t)n) {
			wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				   "cannot copy the ledger aside: %s",
				   strerror(errno));
			goto close_fd;
		}
		len += (uint64_t)n;
		wc_source_consume(src, (size_t)n);
	}
	if (n < 0)
		goto close_fd;
	pl->ledger_held = true;
	pl->ledger_fd = fd;
	pl->ledger_src = src;
	return 0;
close_fd:
	close(fd);
free_src:
	wc_source_free(src);
	return -1;
}

/*
 * Device-internal work, wherever the capture has a ledger (a model
 * disk's, capture.conf disk_model): each region's destage of no command
 * goes to the accountant as its traced device's own busy time.  Each
 * region reads the ledger (its copy: ledger_aside()'s, or the one-pass
 * scan's, wc_input_side_kept()) on a handle of its own, so that the accountant pulls each device's work in its own time
 * order, one row at a time.
 * Not for a window the user chose from requests alone, nor a replay
 * (its clock is the model's): only a capture read as recorded.
 */
static int ledger_open(struct pipeline *pl, uint64_t from, struct wc_err *err)
{
	const struct wc_capture_meta *m = &pl->a->meta;
	size_t k, n = m->nregions ? m->nregions : 1;
	bool kept;

	if (!pl->in || pl->rnext || !m->disk_model[0])
		return 0;
	/* An archive read in one pass holds its copy already. */
	kept = wc_input_side_kept(pl->in);
	if (!kept && ledger_aside(pl, err) < 0)
		return -1;
	if (!kept && !pl->ledger_held)
		return 0;
	pl->ledger_kept = kept && !pl->o->once;
	if (n > WC_CAPTURE_MAX_REGIONS)
		n = WC_CAPTURE_MAX_REGIONS;
	/* k == n: the disk of the partitions, when the accountant has one. */
	for (k = 0; k <= n; k++) {
		struct ledger_feed *lf = &pl->feed[k];
		struct wc_source *src = NULL;
		uint32_t dev = k < n ? region_device(m, k) : 0;

		if (k < n ? !dev : wc_account_disk(pl->a->ac) < 0)
			continue;
		if ((kept ?
		     wc_input_open_side(pl->in, WC_LEDGER_FILE, &src, err) :
		     wc_source_open_region(&src, pl->ledger_fd, 0,
					   wc_source_offset(pl->ledger_src),
					   wc_source_path(pl->ledger_src),
					   wc_source_member(pl->ledger_src),
					   err)) < 0)
			return -1;
		if (!src)
			return 0;    /* no ledger in the capture */
		if (wc_ledger_open(&lf->lg, src, k < n ? (uint32_t)k :
				   WC_LEDGER_ALL, err) < 0)
			return -1;
		wc_err_clear(&lf->err);
		if ((k < n ? wc_account_set_work(pl->a->ac, dev, ledger_pull,
						 lf, from) :
			     wc_account_set_disk_work(pl->a->ac, ledger_pull,
						      lf, from)) < 0)
			return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL,
					  WC_NO_OFFSET, "too many devices "
					  "with a ledger");
	}
	return 0;
}

/* A ledger row that failed the accountant's pulls fails the pipeline. */
static int ledger_status(struct pipeline *pl, struct wc_err *err)
{
	size_t k;

	for (k = 0; k <= WC_CAPTURE_MAX_REGIONS; k++)
		if (pl->feed[k].failed)
			return wc_err_set(err, pl->feed[k].err.kind,
					  pl->feed[k].err.file[0] ?
					  pl->feed[k].err.file : NULL,
					  pl->feed[k].err.member[0] ?
					  pl->feed[k].err.member : NULL,
					  pl->feed[k].err.offset, "%s",
					  pl->feed[k].err.msg);
	return 0;
}

/*
 * The model disk's own account of the capture, the whole ledger's
 * totals (ledger.h), into the meta.  Every feed counts every row it
 * reads, whatever its region, so the first feed, which stopped where the
 * accountant's window did, reads on to the ledger's end: the ledger's
 * one reading gives them (a new reading of the copy only when no region
 * had a traced device to feed).  A bad row fails the pipeline, as it
 * does a feed.
 */
static int ledger_totals(struct pipeline *pl, struct wc_err *err)
{
	struct wc_capture_meta *m = &pl->a->meta;
	struct wc_source *src = NULL;
	struct wc_ledger *lg = NULL, *mine = NULL;
	struct wc_ledger_totals t;
	struct wc_ledger_work w;
	size_t k;
	int r;

	if (!pl->ledger_held && !pl->ledger_kept)
		return 0;
	for (k = 0; !lg && k <= WC_CAPTURE_MAX_REGIONS; k++)
		lg = pl->feed[k].lg;
	if (!lg) {
		r = pl->ledger_held ?
		    wc_source_open_region(&src, pl->ledger_fd, 0,
					  wc_source_offset(pl->ledger_src),
					  wc_source_path(pl->ledger_src),
					  wc_source_member(pl->ledger_src),
					  err) :
		    wc_input_open_side(pl->in, WC_LEDGER_FILE, &src, err);
		if (r < 0)
			return -1;
		if (!src)
			return 0;    /* no ledger in the capture */
		if (wc_ledger_open(&mine, src, WC_LEDGER_ALL, err) < 0)
			return -1;
		lg = mine;
	}
	while ((r = wc_ledger_next(lg, &w, err)) > 0)
		;
	if (r == 0) {
		wc_ledger_totals(lg, &t);
		m->has_ledger = true;
		m->ledger_rows = t.rows;
		m->ledger_busy_ns = t.busy;
		m->ledger_commands_ns = t.commands;
	}
	wc_ledger_free(mine);
	return r;
}

static void ledger_close(struct pipeline *pl)
{
	size_t k;

	for (k = 0; k <= WC_CAPTURE_MAX_REGIONS; k++) {
		wc_ledger_free(pl->feed[k].lg);
		pl->feed[k].lg = NULL;
	}
	if (pl->ledger_held) {
		close(pl->ledger_fd);
		wc_source_free(pl->ledger_src);
		pl->ledger_src = NULL;
		pl->ledger_held = false;
	}
}

static int account_ready(struct pipeline *pl, struct wc_err *err)
{
	size_t i;

	if (pl->a->ac)
		return 0;
	if (pl->in) {
		pl->conf.name = input_comm;
		pl->conf.name_arg = pl;
	}
	if (pl->filtering && !pl->win_known)
		filter_window(pl);
	if (pl->filtering) {
		pl->conf.has_window = true;
		pl->conf.window.start = pl->fw.start;
		pl->conf.window.end = pl->fw.end;
		/* A phase is phases.tsv's, as its figures are without a
		 * filter; any other window is within the trace's events:
		 * no idle time made up past its last. */
		pl->conf.window_in_trace = !pl->phase_known;
	}
	if (wc_account_open(&pl->a->ac, &pl->conf, err) < 0)
		return -1;
	/* At the first request the trace's first event is known: the
	 * window's start, before which the disk's work is not counted. */
	if (pl->tr && wc_tracker_stats(pl->tr)->first_time != WC_NO_TIME &&
	    ledger_open(pl, wc_tracker_stats(pl->tr)->first_time, err) < 0)
		return -1;
	/* A request never completed stays outstanding as long as the
	 * tracker keeps it a candidate: its device's command timeout. */
	for (i = 0; i < pl->a->meta.ndevices; i++)
		if (pl->a->meta.devices[i].device &&
		    pl->a->meta.devices[i].timeout_ns)
			wc_account_set_bound(pl->a->ac,
					     pl->a->meta.devices[i].device,
					     pl->a->meta.devices[i].timeout_ns);
	if (pl->o->interval && interval_open(pl, err) < 0)
		return -1;
	/* A window may hold none of the main device's requests: it is
	 * still the device the report is of. */
	if (pl->filtering &&
	    (pl->a->filter_device || pl->a->meta.main_from_conf) &&
	    wc_account_add_device(pl->a->ac, pl->a->meta.main_device) < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "out of memory");
	return 0;
}

/* True when rq passes the device and process filters. */
static bool filter_pass(const struct pipeline *pl, const struct wc_request *rq)
{
	const char *comm = pipeline_comm(pl, rq->pid, 0), *cause = NULL;

	if (rq->has_cause)
		cause = pipeline_comm(pl, rq->cause_pid, 1);
	return wc_filter_keep(&pl->filt, rq, comm, cause);
}

/* The index of device among conf's partitions of one disk, or -1. */
static int disk_part(const struct wc_account_conf *conf, uint32_t device)
{
	size_t k;

	for (k = 0; k < conf->ndisk; k++)
		if (conf->disk[k] == device)
			return (int)k;
	return -1;
}

/* The request as the disk's series takes it (a partition's: under the
 * disk's first partition's dev_t, its sector where it lies on the
 * disk), in *buf; rq itself when it is on no disk. */
static const struct wc_request *on_disk(const struct pipeline *pl,
					const struct wc_request *rq,
					struct wc_request *buf)
{
	int k;

	if (!pl->conf.ndisk || (k = disk_part(&pl->conf, rq->device)) < 0)
		return rq;
	*buf = *rq;
	buf->device = pl->conf.disk[0];
	buf->sector += pl->conf.disk_offset[k];
	if (rq->disk_depth)
		buf->depth = rq->disk_depth;
	return buf;
}

/* One request to the series (when kept) and the accountant. */
/* A request's part of the digest (wc_capture_meta): its fields mixed
 * (splitmix64's finaliser) so that a sum of them tells traces apart. */
static inline uint64_t request_digest(const struct wc_request *rq)
{
	uint64_t x = rq->sector * 0x9e3779b97f4a7c15ull;

	x ^= ((uint64_t)rq->device << 32 | rq->bytes) + rq->action;
	x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull + rq->q_time;
	x = (x ^ (x >> 29)) * 0x94d049bb133111ebull + rq->d_time;
	x = (x ^ (x >> 32)) * 0xbf58476d1ce4e5b9ull + rq->c_time;
	return x ^ (x >> 31);
}

static inline int add_request(struct pipeline *pl, const struct wc_request *rq,
			      bool series, struct wc_err *err)
{
	struct wc_request buf;
	enum wc_cat cat;

	if (!pl->a->ac && account_ready(pl, err) < 0)
		return -1;
	/* The kernel counted every request of the device: unfiltered. */
	wc_kcount_add(pl->kc, rq);
	pl->a->meta.digest += request_digest(rq);
	if (pl->filtering && !filter_pass(pl, rq))
		return 0;
	cat = wc_classify(&pl->cl, rq);
	if (series && add_series(pl->a, on_disk(pl, rq, &buf), cat, err) < 0)
		return -1;
	if (pl->o->trace)
		trace_request(pl, rq, cat);
	wc_account_add(pl->a->ac, rq, cat);
	if (pl->iv)
		wc_interval_add(pl->iv, rq, cat);
	return 0;
}

/* Requests taken from the tracker at once: one call for many. */
#define WC_ANALYSIS_REQUESTS 32

/* The filter of o, its device and phase looked up in the capture's
 * metadata (what cannot be found is a warning, and nothing passes). */
static void filter_setup(struct pipeline *pl)
{
	struct wc_analysis *a = pl->a;
	const char *names[WC_MAX_DEVICES];
	uint32_t devs[WC_MAX_DEVICES];
	size_t i;

	pl->filtering = true;
	pl->filt = *pl->o->filter;
	wc_filter_describe(&pl->filt, a->filter, sizeof(a->filter));
	for (i = 0; i < a->meta.ndevices; i++) {
		devs[i] = a->meta.devices[i].device;
		names[i] = a->meta.devices[i].name;
	}
	if (pl->filt.has_device &&
	    !wc_filter_resolve_device(&pl->filt, devs, names, a->meta.ndevices))
		warn(a, "%s: --device %s: capture.conf names no such device: "
		     "nothing passes the filter", a->meta.name,
		     pl->filt.device_name);
	if (pl->filt.has_device && pl->filt.device_known) {
		/* The figures are of the device filtered on. */
		a->meta.main_device = pl->filt.device;
		a->filter_device = true;
		a->meta.main_rotational = -1;
		for (i = 0; i < a->meta.ndevices; i++)
			if (a->meta.devices[i].device == pl->filt.device)
				a->meta.main_rotational =
					a->meta.devices[i].rotational;
	}
	for (i = 0; pl->filt.phase[0] && i < a->nphases && !pl->phase_known;
	     i++)
		if (!strcmp(a->phases[i].name, pl->filt.phase)) {
			pl->phase_known = true;
			pl->pstart = a->phases[i].start;
			pl->pend = a->phases[i].end;
		}
	if (pl->filt.phase[0] && !pl->phase_known)
		warn(a, "%s: --phase %s: phases.tsv has no such phase: nothing "
		     "passes the filter", a->meta.name, pl->filt.phase);
}

/* The CPUs the input has a file of, as a bitmap of files[] (those below
 * WC_RECFILTER_CPUS), and one past the highest in *end: the number of
 * CPU files (a merged file or stdin has none). */
static size_t cpu_files_of(const struct wc_input *in,
			   uint64_t files[WC_RECFILTER_CPUS / 64], uint32_t *end)
{
	size_t i, n = wc_input_nstreams(in), nfiles = 0;
	uint32_t cpu;

	for (i = 0; i < n; i++) {
		cpu = wc_input_stream(in, i)->cpu;
		if (cpu == UINT32_MAX)
			continue;
		nfiles++;
		if (cpu < WC_RECFILTER_CPUS)
			files[cpu / 64] |= 1ull << (cpu % 64);
		if (cpu >= *end)
			*end = cpu + 1;
	}
	if (*end > WC_RECFILTER_CPUS)
		*end = WC_RECFILTER_CPUS;
	return nfiles;
}

/* Whether the input lacks a CPU's file before a single event is read:
 * a gap in the numbering of its files, or fewer files than capture.conf
 * says the archive holds (trace_files).  The tracker then knows flush
 * completions were lost (tracker.h, one flush in flight). */
static bool cpu_file_missing(const struct wc_input *in)
{
	uint64_t files[WC_RECFILTER_CPUS / 64] = { 0 };
	uint32_t cpu, end = 0;
	size_t nfiles = cpu_files_of(in, files, &end);

	if (nfiles && wc_input_capture(in)->trace_files > nfiles)
		return true;
	for (cpu = 0; cpu < end; cpu++)
		if (!(files[cpu / 64] >> (cpu % 64) & 1u))
			return true;
	return false;
}

/* capture.conf's disk_regions: the partitions of one disk (a lab on
 * one model disk), accounted as that disk (account.h), where each
 * begins on it from disk_offsets when every one is given in whole
 * sectors (else 0: the seeks between them are then unknown, the rest
 * is not).  Not when --device chose one device's figures. */
static void disk_setup(struct pipeline *pl)
{
	const struct wc_capture_meta *m = &pl->a->meta;
	struct wc_account_conf *conf = &pl->conf;
	bool offsets = m->noffsets == m->nregions;
	size_t r, i;

	if (pl->a->filter_device || m->nregions < 2)
		return;
	for (r = 0; r < m->nregions; r++)
		offsets = offsets && m->offsets[r] % 512 == 0;
	for (r = 0; r < m->nregions && conf->ndisk < WC_ACCOUNT_PARTS; r++) {
		for (i = 0; i < m->ndevices; i++)
			if (m->regions[r][0] && m->devices[i].device &&
			    !strcmp(m->regions[r], m->devices[i].name))
				break;
		if (i == m->ndevices || disk_part(conf, m->devices[i].device) >= 0)
			continue;
		conf->disk[conf->ndisk] = m->devices[i].device;
		conf->disk_offset[conf->ndisk++] = offsets ?
						   m->offsets[r] / 512 : 0;
	}
	if (conf->ndisk < 2)
		conf->ndisk = 0;
}


static int analyse(struct pipeline *pl, const struct wc_phase *phases,
		   size_t nphases, struct wc_err *err)
{
	struct wc_analysis *a = pl->a;
	struct wc_phase_window *win = pl->win;
	struct wc_account_conf *conf = &pl->conf;
	struct wc_tracker *tr = NULL;
	struct wc_request rqs[WC_ANALYSIS_REQUESTS];
	bool series = pl->o->series;
	struct wc_traceevent *te = pl->o->trace;
	uint64_t first, last;
	size_t i, n;
	int r;

	if (nphases > WC_MAX_PHASES)
		nphases = WC_MAX_PHASES;
	for (i = 0; i < nphases; i++) {
		struct wc_phase_result *p = &a->phases[i];

		snprintf(p->name, sizeof(p->name), "%s",
			 phases[i].name ? phases[i].name : "");
		p->start = phases[i].start;
		p->end = phases[i].end > phases[i].start ? phases[i].end :
							   phases[i].start;
		p->wall_s = (double)(p->end - p->start) / 1e9;
		p->cut = false;
		p->real_s = phases[i].real_s;
		p->user_s = phases[i].user_s;
		p->sys_s = phases[i].sys_s;
		win[i].start = p->start;
		win[i].end = p->end;
	}
	a->nphases = nphases;
	a->has_series = pl->o->series;
	conf->media_rate = pl->o->media_rate;
	for (i = 0; i < a->meta.ndevices; i++)
		if (wc_analysis_rotational_doubt(&a->meta,
						 a->meta.devices[i].device))
			conf->no_estimate[conf->nno_estimate++] =
				a->meta.devices[i].device;
	/* capture.conf's write cache is the destination's (before a
	 * --device filter makes another device the main one). */
	conf->write_cache = a->meta.write_cache;
	conf->cache_device = a->meta.main_from_conf ? a->meta.main_device : 0;
	conf->nphases = nphases;
	conf->phases = win;
	if (pl->o->filter && wc_filter_any(pl->o->filter))
		filter_setup(pl);
	disk_setup(pl);
	if (te) {
		wc_traceevent_begin(te, a->meta.name);
		for (i = 0; i < a->meta.ndevices; i++)
			wc_traceevent_name_device(te, a->meta.devices[i].device,
						  a->meta.devices[i].name);
	}
	if (pl->o->btt && wc_btt_open(&a->btt, err) < 0)
		goto fail;
	if (pl->rnext) {
		memset(&a->stats, 0, sizeof(a->stats));
		while ((r = pl->rnext(pl->rctx, rqs, err)) > 0) {
			if (add_request(pl, rqs, series, err) < 0)
				goto fail;
			a->stats.requests++;
		}
		a->stats.first_time = pl->first;
		a->stats.last_time = pl->last;
		if (r < 0)
			a->partial = true;
		goto finish;
	}
	if ((pl->in ? wc_tracker_open_batch(&tr, feed_batch, pl, err) :
		       wc_tracker_open_source(&tr, feed, pl, err)) < 0)
		goto fail;
	pl->tr = tr;
	/* Each device's command timeout bounds what a C may pair with;
	 * its hardware queues say how many flushes may be in flight. */
	for (i = 0; i < a->meta.ndevices; i++) {
		if (a->meta.devices[i].device && a->meta.devices[i].timeout_ns)
			wc_tracker_set_bound(tr, a->meta.devices[i].device,
					     a->meta.devices[i].timeout_ns);
		if (a->meta.devices[i].device && a->meta.devices[i].hw_queues)
			wc_tracker_set_hw_queues(tr, a->meta.devices[i].device,
						 a->meta.devices[i].hw_queues);
	}
	if (pl->in && cpu_file_missing(pl->in))
		wc_tracker_set_lossy(tr);
	/* The disk's queue is its partitions' together. */
	if (pl->conf.ndisk)
		wc_tracker_set_disk(tr, pl->conf.disk, pl->conf.ndisk);
	/* From here to the tracker's end, the input is the reader's. */
	if (pl->in && pl->o->threads >= 2 &&
	    wc_batchq_open(&pl->q, pl->in, err) < 0)
		goto fail_tracker;

	while ((r = wc_tracker_next_batch(tr, rqs, WC_ANALYSIS_REQUESTS, &n,
					  err)) > 0) {
		for (i = 0; i < n; i++)
			if ((pl->o->keep && pl->o->keep(pl->o->keep_ctx,
							  &rqs[i], err) < 0) ||
			    add_request(pl, &rqs[i], series, err) < 0)
				goto fail_tracker;
	}
	/* The input read to its end: the caller's again. */
	wc_batchq_free(pl->q);
	pl->q = NULL;
	a->stats = *wc_tracker_stats(tr);
	/* Midway only when records came before the failure: an input with
	 * none good (standard input holding no trace) has no analysis,
	 * as a file found to be none at its open has none. */
	if (r < 0 && a->stats.events)
		a->partial = true;
finish:
	if (te)
		wc_traceevent_end(te, phases, nphases);
	if (a->btt && wc_btt_status(a->btt, err) < 0)
		goto fail_tracker;
	if (account_ready(pl, err) < 0)
		goto fail_tracker;
	first = a->stats.first_time == WC_NO_TIME ? 0 : a->stats.first_time;
	last = a->stats.last_time == WC_NO_TIME ? 0 : a->stats.last_time;
	/* A copy ends when its data is on the platter: the drive's destage
	 * after the last sync is no request, but the window that compares
	 * busy times must hold it (a trace's own window only: a filter's
	 * is the user's, a replay's clock is the model's). */
	if (!pl->rnext && !pl->filtering && a->meta.has_durable &&
	    first && a->meta.returned_ns >= first &&
	    a->meta.durable_ns > last &&
	    a->meta.durable_ns - last <= WC_DURABLE_MAX_NS) {
		last = a->meta.durable_ns;
		a->meta.durable_window = true;
	}
	wc_account_finish(a->ac, first, last);
	if (ledger_status(pl, err) < 0 || ledger_totals(pl, err) < 0)
		goto fail_tracker;
	if (pl->iv) {
		/* The window's end as the accountant has it: a phase's
		 * as phases.tsv gives it, any other cut to the last event. */
		wc_interval_finish(pl->iv, pl->filtering && pl->phase_known ?
					    pl->fw.end : last);
		wc_interval_free(pl->iv);
		pl->iv = NULL;
	}
	pl->tr = NULL;
	a->meta.events = a->stats.events;
	wc_tracker_free(tr);
	return r < 0 ? -1 : 0;

fail_tracker:
	/* An early stop: the reader stops and is joined before the
	 * input goes. */
	wc_batchq_free(pl->q);
	pl->q = NULL;
	wc_tracker_free(tr);
fail:
	wc_interval_free(pl->iv);
	pl->iv = NULL;
	pl->tr = NULL;
	return -1;
}

/* The destination from capture.conf, else the device that moved most. */
/* capture.conf named a destination the trace has no I/O on: an empty
 * report must say why, naming what the trace does hold. */
static void say_main_missing(struct wc_analysis *a, size_t n)
{
	char *p = a->main_missing, *end = p + sizeof(a->main_missing);
	size_t i, shown = n < 6 ? n : 6;

	p += snprintf(p, (size_t)(end - p), "capture.conf names device %u,%u "
		      "as the destination, but the trace ",
		      WC_DEV_MAJOR(a->meta.main_device),
		      WC_DEV_MINOR(a->meta.main_device));
	if (n == 0) {
		snprintf(p, (size_t)(end - p), "holds no I/O");
		return;
	}
	p += snprintf(p, (size_t)(end - p), "holds I/O only on ");
	for (i = 0; i < shown && p < end; i++) {
		uint32_t d = wc_account_device(a->ac, i)->device;

		p += snprintf(p, (size_t)(end - p), "%s%u,%u",
			      i == 0 ? "" : i + 1 == n ? " and " : ", ",
			      WC_DEV_MAJOR(d), WC_DEV_MINOR(d));
	}
	if (shown < n && p < end)
		snprintf(p, (size_t)(end - p), " and %zu more", n - shown);
}

const char *wc_analysis_rotational_doubt(const struct wc_capture_meta *m,
					 uint32_t device)
{
	static const struct {
		const char *prefix, *why;
	} kinds[] = {
		{ "loop", "a loop device: its flag says nothing of the file's "
			  "medium" },
		{ "xvd", "a Xen disk: the host sets its flag" },
		{ "vd", "a virtio disk: the host sets its flag" },
		{ "nbd", "a network block device: its flag says nothing of "
			 "the server's medium" },
	};
	size_t i, k;

	if (!m || m->disk_model[0])
		return NULL;
	for (i = 0; i < m->ndevices; i++) {
		if (m->devices[i].device != device)
			continue;
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strncmp(m->devices[i].name, kinds[k].prefix,
				     strlen(kinds[k].prefix)))
				return kinds[k].why;
	}
	return NULL;
}

/* Whether the main device is one of the disk's partitions, or the
 * capture names no destination: the disk is then the main device. */
static bool main_on_disk(const struct wc_analysis *a)
{
	size_t k;

	if (!a->meta.main_from_conf)
		return true;
	for (k = 0; k < wc_account_nparts(a->ac); k++)
		if (wc_account_part(a->ac, k)->device == a->meta.main_device)
			return true;
	return false;
}

static void pick_main(struct wc_analysis *a)
{
	size_t i, n = wc_account_ndevices(a->ac);
	uint64_t best = 0;

	a->main_index = -1;
	if (a->filter_device) {
		/* Only that device's requests passed. */
		a->main_index = wc_account_find(a->ac, a->meta.main_device);
		return;
	}
	if (wc_account_disk(a->ac) >= 0 && main_on_disk(a)) {
		/* One disk of partitions: the disk is what was measured. */
		a->main_index = wc_account_disk(a->ac);
		if (a->meta.main_from_conf)
			return;
		goto named;
	}
	if (a->meta.main_from_conf)
		a->main_index = wc_account_find(a->ac, a->meta.main_device);
	if (a->main_index < 0 && a->meta.main_from_conf)
		say_main_missing(a, n);
	if (a->main_index >= 0 || a->meta.main_from_conf)
		return;
	a->meta.main_among = n;
	for (i = 0; i < n; i++) {
		const struct wc_figures *f = wc_account_device(a->ac, i);
		uint64_t b = wc_figures_io_bytes(f);

		if (a->main_index < 0 || b > best) {
			best = b;
			a->main_index = (int)i;
		}
	}
named:
	if (a->main_index >= 0)
		a->meta.main_device = wc_account_device(a->ac, (size_t)a->main_index)->device;
	for (i = 0; i < a->meta.ndevices; i++)
		if (a->meta.devices[i].device == a->meta.main_device)
			a->meta.main_rotational = a->meta.devices[i].rotational;
}

static void setup_classifier(struct pipeline *pl)
{
	const struct wc_capture_meta *m = &pl->a->meta;

	if (pl->o->journal_given) {
		/* The user's range is on the destination when there is one
		 * named, else on whatever device the sectors land. */
		wc_classifier_range(&pl->cl,
				    m->main_from_conf ? m->dest_device : 0,
				    pl->o->journal_start, pl->o->journal_len);
		pl->a->meta.journal_method = WC_JOURNAL_RANGE;
		pl->a->meta.journal_start = pl->o->journal_start;
		pl->a->meta.journal_len = pl->o->journal_len;
	} else if (m->journal_method == WC_JOURNAL_RANGE) {
		wc_classifier_range(&pl->cl,
				    m->main_from_conf ? m->dest_device : 0,
				    m->journal_start, m->journal_len);
	} else {
		wc_classifier_heuristic(&pl->cl);
	}
	pl->a->cl = pl->cl;
}

static const struct wc_analysis_opts default_opts = WC_ANALYSIS_OPTS_INIT;

static int64_t stream_skips(const struct wc_input *in)
{
	size_t i, n = wc_input_nstreams(in);
	uint64_t sum = 0;

	/* Saturating: the counts come from the input, and so can be huge. */
	for (i = 0; i < n; i++) {
		uint64_t s = wc_input_stream(in, i)->skips;

		sum = s > (uint64_t)INT64_MAX - sum ? (uint64_t)INT64_MAX : sum + s;
	}
	return (int64_t)sum;
}

/* The device a per-CPU file NAME is of: its base name up to its last
 * ".blktrace." (blktrace's NAME.blktrace.CPU), in DEV; false when NAME
 * is not so named. */
static bool file_device(const char *name, char dev[WC_FILE_DEVICE_LEN])
{
	const char *base = strrchr(name, '/'), *end = NULL, *p;
	size_t n;

	base = base ? base + 1 : name;
	for (p = strstr(base, ".blktrace."); p; p = strstr(p + 1, ".blktrace."))
		end = p;
	if (!end)
		return false;
	n = (size_t)(end - base);
	if (n >= WC_FILE_DEVICE_LEN)
		n = WC_FILE_DEVICE_LEN - 1;
	memcpy(dev, base, n);
	dev[n] = '\0';
	return true;
}

/* The per-CPU files one device lacks where another device of the input
 * has that CPU's file.  blktrace, and wcrecord after it, write one file
 * per CPU for every device traced, empty or not, so such a gap is a file
 * lost on the way (a member left out of an archive, a file not copied),
 * which the count of CPUs alone cannot see when another device has that
 * CPU.  Up to WC_FILE_DEVICES devices are told apart; an input of more
 * gets the CPU check alone. */
static void device_files_missing(struct wc_capture_meta *m,
				 const struct wc_input *in)
{
	enum { WORDS = WC_RECFILTER_CPUS / 64 };
	char (*dev)[WC_FILE_DEVICE_LEN] = NULL;
	uint64_t (*mask)[WORDS] = NULL, all[WORDS] = { 0 };
	size_t i, d, ndev = 0, n = wc_input_nstreams(in), len = 0;
	char name[WC_FILE_DEVICE_LEN];
	uint32_t cpu;

	dev = calloc(WC_FILE_DEVICES, sizeof(*dev));
	mask = calloc(WC_FILE_DEVICES, sizeof(*mask));
	if (!dev || !mask)
		goto free_tables;
	for (i = 0; i < n; i++) {
		const struct wc_stream_info *st = wc_input_stream(in, i);

		cpu = st->cpu;
		if (cpu >= WC_RECFILTER_CPUS || !file_device(st->name, name))
			continue;
		for (d = 0; d < ndev && strcmp(dev[d], name); d++)
			;
		if (d == ndev) {
			if (ndev == WC_FILE_DEVICES)
				goto free_tables;
			memcpy(dev[ndev++], name, sizeof(name));
		}
		mask[d][cpu / 64] |= 1ull << (cpu % 64);
		all[cpu / 64] |= 1ull << (cpu % 64);
	}
	for (d = 0; d < ndev; d++)
		for (cpu = 0; cpu < WC_RECFILTER_CPUS; cpu++) {
			uint64_t bit = 1ull << (cpu % 64);

			if (!(all[cpu / 64] & bit) || mask[d][cpu / 64] & bit)
				continue;
			m->files_missing++;
			if (len + strlen(dev[d]) + 24 < sizeof(m->files_missing_list))
				len += (size_t)snprintf(m->files_missing_list + len,
							sizeof(m->files_missing_list) - len,
							"%s%s.blktrace.%u",
							len ? ", " : "", dev[d], cpu);
			else if (len + 6 < sizeof(m->files_missing_list) &&
				 !strstr(m->files_missing_list, "..."))
				len += (size_t)snprintf(m->files_missing_list + len,
							sizeof(m->files_missing_list) - len,
							", ...");
		}
free_tables:
	free(mask);
	free(dev);
}

/* The whole-trace checks an input allows (wc_capture_meta): which CPUs
 * have no file, what went missing between the recorder and us, what is
 * there twice. */
static void check_whole(struct wc_capture_meta *m, const struct wc_input *in,
			uint64_t skips)
{
	uint64_t files[WC_RECFILTER_CPUS / 64] = { 0 };
	size_t len = 0;
	uint32_t cpu, end = wc_input_cpu_end(in);

	m->cpu_files += cpu_files_of(in, files, &end);
	for (cpu = 0; cpu < end; cpu++) {
		bool file = files[cpu / 64] >> (cpu % 64) & 1u;
		bool named = wc_input_cpu_named(in, cpu);

		if (m->cpu_files ? file : named)
			continue;
		m->cpus_missing++;
		if (m->cpu_files && named)
			m->cpus_named_without_file++;
		if (len + 16 < sizeof(m->cpus_missing_list))
			len += (size_t)snprintf(m->cpus_missing_list + len,
						sizeof(m->cpus_missing_list) -
						len, "%s%u", len ? ", " : "",
						cpu);
		else if (len + 4 < sizeof(m->cpus_missing_list) &&
			 !strstr(m->cpus_missing_list, "..."))
			len += (size_t)snprintf(m->cpus_missing_list + len,
						sizeof(m->cpus_missing_list) -
						len, ", ...");
	}
	m->sequence_gaps = skips;
	m->repeats = wc_input_repeats(in);
	m->trace_files_announced = wc_input_capture(in)->trace_files;
	device_files_missing(m, in);
}

static int analyse_input(struct wc_analysis **out, int *summary,
			 const char *path, int fd,
			 const struct wc_analysis_opts *o, bool speculate,
			 struct wc_err *err)
{
	static const char *const aside[1] = { WC_LEDGER_FILE };
	struct wc_input_limits lim = {
		.speculate = speculate && !(o && (o->trace || o->interval ||
						  o->keep || o->nfiles ||
						  o->once)),
		.files = o ? o->files : NULL,
		.nfiles = o && o->texts && o->lens ? o->nfiles : 0,
		/* A timeline (a bundle's too) is written as the input is
		 * read, so it cannot take the shortcut (a second reading
		 * would write it twice): one pass instead, whose copies in
		 * place of the members' handles are read in their blocks,
		 * so that its lines keep the order of the input's batches
		 * (members.c, source.h). */
		.once = o && (o->once || o->trace),
		.sharing = o ? o->inputs_at_once : 0,
		.aside_files = aside,
		.naside_files = 1,
		.once_model = true,
	};
	struct wc_input *in = NULL;
	const struct wc_capture *cap;
	struct pipeline pl = { 0 };
	struct wc_analysis *a;
	size_t np, i;
	int64_t skips;
	int r;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a) {
		if (fd >= 0)
			close(fd);
		return wc_err_oom(err, path, NULL);
	}
	wc_devtab_init(&a->series_devs, WC_SERIES_MAX_DEVICES);
	r = wc_input_open_fd_any(&in, summary, path, fd, &lim, err);
	if (r < 0)
		goto fail_analysis;
	if (r > 0) {
		/* A summary: its reader is the caller's (capsule.h). */
		wc_analysis_free(a);
		return 1;
	}
	for (i = 0; i < lim.nfiles && i < WC_INPUT_MAX_FILES; i++)
		o->texts[i] = wc_input_take_file(in, i, &o->lens[i]);
	meta_from_capture(&a->meta, in);
	i = strlen(path);
	snprintf(a->meta.input, sizeof(a->meta.input), "%s",
		 path + (i < sizeof(a->meta.input) ? 0 :
			 i - (sizeof(a->meta.input) - 1)));
	cap = wc_input_capture(in);
	warn_capture(a, cap);
	np = cap->nphases < WC_MAX_PHASES ? cap->nphases : WC_MAX_PHASES;
	pl.a = a;
	pl.o = o ? o : &default_opts;
	pl.in = in;
	pl.ctx = in;
	pl.name = pl.names;
	setup_classifier(&pl);
	if (wc_kcount_new(&pl.kc, cap, err) < 0)
		goto fail_input;
	r = analyse(&pl, cap->phases, np, err);
	ledger_close(&pl);
	wc_kcount_finish(pl.kc, &a->kcheck);
	wc_kcount_free(pl.kc);
	if (r < 0 && !a->partial)
		goto fail_input;
	/* What the recorder lost (capture.conf) plus what went missing
	 * between the recorder and us (sequence gaps). */
	skips = stream_skips(in);
	check_whole(&a->meta, in, (uint64_t)skips);
	if (a->meta.events_dropped >= 0)
		a->meta.events_dropped = skips > INT64_MAX - a->meta.events_dropped ?
			INT64_MAX : a->meta.events_dropped + skips;
	else if (!cap->has_events_dropped)
		a->meta.events_dropped = skips;   /* a plain trace */
	pick_main(a);
	if (a->main_missing[0])
		warn(a, "%s: %s", path, a->main_missing);
	if (wc_input_repeats(in))
		warn(a, "%s: %llu records repeat the sequence number of the "
		     "record before them on their CPU: the same records more "
		     "than once (a file given twice to blkparse -d?); requests, "
		     "bytes and times count each copy", path,
		     (unsigned long long)wc_input_repeats(in));
	if (wc_input_backwards(in))
		warn(a, "%s: time goes backwards %llu times (events kept in the "
		     "order read)", path,
		     (unsigned long long)wc_input_backwards(in));
	wc_input_free(in);
	*out = a;
	return r;

fail_input:
	wc_input_free(in);
fail_analysis:
	wc_analysis_free(a);
	return -1;
}

/*
 * A capture that announces its trace files is first read with the scan's
 * shortcut (input.h, speculation); when it did not hold (WC_ERR_AGAIN),
 * everything of that try goes and the input is read once more the whole
 * way, whose result and messages are those of a reader without it.
 */
int wc_analysis_read_any(struct wc_analysis **out, int *summary,
			 const char *path, const struct wc_analysis_opts *o,
			 struct wc_err *err)
{
	return wc_analysis_read_fd_any(out, summary, path, -1, o, err);
}

int wc_analysis_read_fd_any(struct wc_analysis **out, int *summary,
			    const char *path, int fd,
			    const struct wc_analysis_opts *o,
			    struct wc_err *err)
{
	struct wc_err first;
	int r;

	wc_err_clear(&first);
	r = analyse_input(out, summary, path, fd, o, true, &first);
	if (r < 0 && first.kind == WC_ERR_AGAIN) {
		wc_analysis_free(*out);
		*out = NULL;
		/* fd went with the first try: the path is opened again. */
		return analyse_input(out, NULL, path, -1, o, false, err);
	}
	if (r < 0 && err && err->kind == WC_ERR_NONE)
		*err = first;
	return r;
}

int wc_analysis_read(struct wc_analysis **out, const char *path,
		     const struct wc_analysis_opts *o, struct wc_err *err)
{
	return wc_analysis_read_any(out, NULL, path, o, err);
}

/* run_source() and run_requests(): metadata given, no input. */
static int analyse_given(struct wc_analysis **out, struct pipeline *pl,
			 const struct wc_capture_meta *meta,
			 const struct wc_phase *phases, size_t nphases,
			 const struct wc_analysis_opts *o, struct wc_err *err)
{
	struct wc_analysis *a;
	int r;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return wc_err_oom(err, NULL, NULL);
	wc_devtab_init(&a->series_devs, WC_SERIES_MAX_DEVICES);
	if (meta)
		a->meta = *meta;
	else
		meta_unknown(&a->meta, "");
	pl->a = a;
	pl->o = o ? o : &default_opts;
	setup_classifier(pl);
	r = analyse(pl, phases, nphases, err);
	if (r < 0 && !a->partial) {
		wc_analysis_free(a);
		return -1;
	}
	pick_main(a);
	*out = a;
	return r;
}

int wc_analysis_read_requests(struct wc_analysis **out, wc_request_source next,
			      void *ctx, const struct wc_capture_meta *meta,
			      const struct wc_phase *phases, size_t nphases,
			      uint64_t first, uint64_t last,
			      const struct wc_analysis_opts *o,
			      struct wc_err *err)
{
	struct wc_analysis_opts ro = o ? *o : default_opts;
	struct pipeline pl = { 0 };

	ro.btt = false;          /* no events: nothing for btt */
	pl.rnext = next;
	pl.rctx = ctx;
	pl.first = first;
	pl.last = last;
	return analyse_given(out, &pl, meta, phases, nphases, &ro, err);
}

int wc_analysis_read_source(struct wc_analysis **out, wc_event_source next,
			    void *ctx, const struct wc_capture_meta *meta,
			    const struct wc_phase *phases, size_t nphases,
			    const struct wc_analysis_opts *o,
			    struct wc_err *err)
{
	struct pipeline pl = { 0 };

	pl.next = next;
	pl.ctx = ctx;
	return analyse_given(out, &pl, meta, phases, nphases, o, err);
}

/* ---- accessors --------------------------------------------------------- */

const struct wc_capture_meta *wc_analysis_meta(const struct wc_analysis *a)
{
	return &a->meta;
}

void wc_analysis_classifier(const struct wc_analysis *a,
			    struct wc_classifier *cl)
{
	*cl = a->cl;
}

const struct wc_figures *wc_analysis_main(const struct wc_analysis *a)
{
	if (a->main_index < 0)
		return NULL;
	return wc_account_device(a->ac, (size_t)a->main_index);
}

const struct wc_account *wc_analysis_account(const struct wc_analysis *a)
{
	return a->ac;
}

int wc_analysis_main_index(const struct wc_analysis *a)
{
	return a->main_index;
}

size_t wc_analysis_nphases(const struct wc_analysis *a)
{
	return a->nphases;
}

const struct wc_phase_result *wc_analysis_phase(const struct wc_analysis *a,
						size_t p)
{
	return p < a->nphases ? &a->phases[p] : NULL;
}

const struct wc_figures *wc_analysis_phase_figures(const struct wc_analysis *a,
						   size_t p)
{
	if (a->main_index < 0)
		return NULL;
	return wc_account_phase(a->ac, (size_t)a->main_index, p);
}

const struct wc_btt *wc_analysis_btt(const struct wc_analysis *a)
{
	return a->btt;
}

const struct wc_series *wc_analysis_series(const struct wc_analysis *a,
					   uint32_t device)
{
	int i = wc_devtab_find(&a->series_devs, device);

	return i < 0 ? NULL : a->series[i];
}

bool wc_analysis_has_series(const struct wc_analysis *a)
{
	return a->has_series;
}

uint64_t wc_analysis_series_ignored(const struct wc_analysis *a)
{
	return a->series_ignored;
}

void wc_analysis_release_series(struct wc_analysis *a)
{
	size_t i;

	for (i = 0; i < wc_devtab_count(&a->series_devs); i++)
		wc_series_free(a->series[i]);
	wc_devtab_init(&a->series_devs, WC_SERIES_MAX_DEVICES);
	a->has_series = false;
}

const struct wc_tracker_stats *wc_analysis_tracker_stats(
	const struct wc_analysis *a)
{
	return &a->stats;
}

size_t wc_analysis_nwarnings(const struct wc_analysis *a)
{
	return a->nwarnings;
}

const char *wc_analysis_warning(const struct wc_analysis *a, size_t i)
{
	return i < a->nwarnings ? a->warnings[i] : NULL;
}

const char *wc_analysis_main_missing(const struct wc_analysis *a)
{
	return a->main_missing[0] ? a->main_missing : NULL;
}

const struct wc_kcheck *wc_analysis_kcheck(const struct wc_analysis *a)
{
	return &a->kcheck;
}

const char *wc_analysis_filter(const struct wc_analysis *a)
{
	return a->filter[0] ? a->filter : NULL;
}

bool wc_analysis_partial(const struct wc_analysis *a)
{
	return a->partial;
}

void wc_analysis_free(struct wc_analysis *a)
{
	if (!a)
		return;
	wc_analysis_release_series(a);
	wc_account_free(a->ac);
	wc_btt_free(a->btt);
	free(a);
}
