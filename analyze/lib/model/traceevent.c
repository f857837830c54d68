/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * traceevent.c - the Trace Event Format timeline (see traceevent.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input/capture.h"
#include "base/buildinfo.h"
#include "base/escape.h"
#include "model/traceevent.h"
#include "base/wclimits.h"

/* Process ids: a block of them per capture, a device's and the phases'. */
#define PIDS_PER_CAPTURE (WC_MAX_DEVICES + 2)
#define FLUSH_TID0 100001
/* MB/s is sampled at the start of each bin, once the bin is over: on a
 * thread of its own, whose times increase by whole bins. */
#define RATE_TID 200000
/* The thread of the instant that marks where a limited timeline ends. */
#define END_TID 300000
/* Flushes in flight whose covered bytes are remembered, per device. */
#define FLUSH_RING 16
/* Times are signed nanoseconds from the capture's first event, kept
 * within +-2^62 (146 years): far enough for any trace, and room for a
 * bin's width or a sign on either side without overflow (issue 39: a
 * completion 2^63 ns after the first event negated INT64_MIN). */
#define REL_MAX ((int64_t)1 << 62)

struct lane {
	int64_t last;            /* ns since the origin: its last slice's end */
	bool used;
};

struct tdev {
	uint32_t device;
	int pid;
	char name[64];
	bool named;              /* process_name written */
	int64_t last_counter;    /* the counters' thread (tid 0): last ts */
	uint32_t depth;
	/* MB/s: bytes completed in the bin starting at rate_bin. */
	int64_t rate_bin;
	int64_t rate_last;       /* the rate thread's last ts */
	uint64_t rate_bytes;
	bool rate_open;
	/* Unflushed writes: completed without FUA, not covered yet. */
	uint64_t unflushed;
	uint64_t covered[FLUSH_RING];   /* unflushed at each flush's D */
	size_t nflight;
	struct lane lanes[WC_TRACEEVENT_LANES];
	struct lane flanes[WC_TRACEEVENT_FLUSH_LANES];
};

struct capstat {
	char *name;
	uint64_t slices, not_drawn, unfinished;
	uint64_t past_limit;
	bool ended;              /* the limit was reached, at ends */
	int64_t ends;
};

struct wc_traceevent;
struct tdev;
struct capstat;
static bool events_full(struct wc_traceevent *t, struct tdev *d, int64_t ts);

struct wc_traceevent {
	FILE *f;
	bool first;              /* no event written yet: no comma */
	/* The capture being written. */
	size_t ncap;             /* captures begun */
	bool in_capture;
	bool have_origin;
	uint64_t origin;
	uint64_t limit;          /* slices a capture, 0: none */
	uint64_t drawn;          /* slices of this capture */
	bool ended;              /* drawn reached limit ... */
	int64_t ends;            /* ... at this time: nothing after it */
	uint64_t events;         /* events of this capture written */
	int pid_base;
	struct tdev devs[WC_MAX_DEVICES];
	size_t ndevs;
	struct tdev *last_dev;
	/* Names given before the events (capture.conf). */
	struct { uint32_t device; char name[64]; } names[WC_MAX_DEVICES];
	size_t nnames;
	struct capstat *stats;
	size_t nstats, statsize;
	bool nomem;
};

int wc_traceevent_open(struct wc_traceevent **out, FILE *f,
		       struct wc_err *err)
{
	struct wc_traceevent *t;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return wc_err_oom(err, NULL, NULL);
	t->f = f;
	t->first = true;
	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", f);
	*out = t;
	return 0;
}

void wc_traceevent_limit(struct wc_traceevent *t, uint64_t slices)
{
	t->limit = slices;
}

void wc_traceevent_stats(const struct wc_traceevent *t,
			 struct wc_traceevent_stats *out)
{
	const struct capstat *c = t->nstats ? &t->stats[t->nstats - 1] : NULL;

	memset(out, 0, sizeof(*out));
	out->ends_s = -1;
	if (!c)
		return;
	out->slices = c->slices;
	out->not_drawn = c->not_drawn;
	out->past_limit = c->past_limit;
	out->unfinished = c->unfinished;
	if (c->ended)
		out->ends_s = (double)c->ends / 1e9;
}

/* Microseconds with nanosecond digits, from signed nanoseconds. */
static void put_us(FILE *f, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
		(unsigned)(a % 1000));
}

/* The common head of an event: {"ph":"X","ts":T,"pid":P,"tid":I */
static void head(struct wc_traceevent *t, char ph, int64_t ts, int pid,
		 long tid)
{
	fprintf(t->f, "%s{\"ph\":\"%c\",\"ts\":", t->first ? "" : ",\n", ph);
	put_us(t->f, ts);
	fprintf(t->f, ",\"pid\":%d,\"tid\":%ld", pid, tid);
	t->first = false;
	t->events++;
}

/* A metadata event naming a process or thread. */
static void meta(struct wc_traceevent *t, const char *what, int64_t ts,
		 int pid, long tid, const char *name1, const char *name2)
{
	head(t, 'M', ts, pid, tid);
	fprintf(t->f, ",\"name\":\"%s\",\"args\":{\"name\":", what);
	if (name2) {
		/* Two parts, each escaped: one string. */
		char buf[512];

		snprintf(buf, sizeof(buf), "%s %s", name1 ? name1 : "", name2);
		wc_escape_json(t->f, buf);
	} else {
		wc_escape_json(t->f, name1);
	}
	fputs("}}", t->f);
}

static const char *capture_name(const struct wc_traceevent *t)
{
	return t->nstats ? t->stats[t->nstats - 1].name : "";
}

void wc_traceevent_begin(struct wc_traceevent *t, const char *capture)
{
	struct capstat *cs;

	t->in_capture = true;
	t->have_origin = false;
	t->drawn = 0;
	t->events = 0;
	t->ended = false;
	t->ndevs = 0;
	t->last_dev = NULL;
	t->pid_base = (int)(t->ncap * PIDS_PER_CAPTURE) + 1;
	t->ncap++;
	if (t->nstats == t->statsize) {
		size_t n = t->statsize ? 2 * t->statsize : 4;
		struct capstat *s = realloc(t->stats, n * sizeof(*s));

		if (!s) {
			t->nomem = true;
			return;
		}
		t->stats = s;
		t->statsize = n;
	}
	cs = &t->stats[t->nstats++];
	memset(cs, 0, sizeof(*cs));
	cs->name = strdup(capture ? capture : "");
	if (!cs->name)
		t->nomem = true;
}

void wc_traceevent_name_device(struct wc_traceevent *t, uint32_t device,
			       const char *name)
{
	if (!name || !*name || t->nnames == WC_MAX_DEVICES)
		return;
	t->names[t->nnames].device = device;
	snprintf(t->names[t->nnames].name, sizeof(t->names[0].name), "%s",
		 name);
	t->nnames++;
}

/* time as signed nanoseconds from the origin, saturated at +-REL_MAX:
 * never decreasing as time grows, so that clamped times keep every
 * thread's order (a phase ending past 2^63 ns wrapped to before its
 * start). */
static int64_t rel(const struct wc_traceevent *t, uint64_t time)
{
	uint64_t d;

	if (time >= t->origin) {
		d = time - t->origin;
		return d > (uint64_t)REL_MAX ? REL_MAX : (int64_t)d;
	}
	d = t->origin - time;
	return d > (uint64_t)REL_MAX ? -REL_MAX : -(int64_t)d;
}

/* The device's state, made on first sight; NULL past WC_MAX_DEVICES. */
static struct tdev *dev_of(struct wc_traceevent *t, uint32_t device,
			   int64_t ts)
{
	struct tdev *d = t->last_dev;
	char label[96];
	size_t i;

	if (d && d->device == device)
		return d;
	for (i = 0; i < t->ndevs; i++)
		if (t->devs[i].device == device)
			return t->last_dev = &t->devs[i];
	if (t->ndevs == WC_MAX_DEVICES)
		return NULL;
	d = &t->devs[t->ndevs];
	memset(d, 0, sizeof(*d));
	d->device = device;
	d->pid = t->pid_base + (int)t->ndevs;
	t->ndevs++;
	for (i = 0; i < t->nnames; i++)
		if (t->names[i].device == device)
			snprintf(d->name, sizeof(d->name), "%s", t->names[i].name);
	if (d->name[0])
		snprintf(label, sizeof(label), "%u,%u (%s)", WC_DEV_MAJOR(device),
			 WC_DEV_MINOR(device), d->name);
	else
		snprintf(label, sizeof(label), "%u,%u", WC_DEV_MAJOR(device),
			 WC_DEV_MINOR(device));
	d->last_counter = ts;
	d->rate_last = ts;
	meta(t, "process_name", ts, d->pid, 0, capture_name(t), label);
	head(t, 'M', ts, d->pid, 0);
	fprintf(t->f, ",\"name\":\"process_sort_index\",\"args\":"
		"{\"sort_index\":%d}}", d->pid);
	return t->last_dev = d;
}

/* A counter sample on the device's counter thread, its time clamped. */
static void counter(struct wc_traceevent *t, struct tdev *d, int64_t ts,
		    const char *name, const char *key, uint64_t value)
{
	if (ts < d->last_counter)
		ts = d->last_counter;
	d->last_counter = ts;
	head(t, 'C', ts, d->pid, 0);
	fprintf(t->f, ",\"name\":\"%s\",\"args\":{\"%s\":%" PRIu64 "}}",
		name, key, value);
}

static void rate_sample(struct wc_traceevent *t, struct tdev *d, int64_t bin,
			uint64_t bytes)
{
	/* Bytes per bin as MB/s, kept to kB/s. */
	uint64_t kbps = bytes * (1000000000ull / WC_TRACEEVENT_RATE_NS) / 1000;

	if (bin < d->rate_last)
		bin = d->rate_last;
	d->rate_last = bin;
	head(t, 'C', bin, d->pid, RATE_TID);
	fprintf(t->f, ",\"name\":\"MB/s\",\"args\":{\"MB/s\":%" PRIu64
		".%03u}}", kbps / 1000, (unsigned)(kbps % 1000));
}

/* Closes the MB/s bins before the one holding ts. */
static void rate_advance(struct wc_traceevent *t, struct tdev *d, int64_t ts)
{
	const int64_t w = (int64_t)WC_TRACEEVENT_RATE_NS;
	/* ts within +-REL_MAX (rel()): no overflow on either side. */
	int64_t bin = ts >= 0 ? ts / w * w : -((-ts + w - 1) / w) * w;

	if (!d->rate_open) {
		d->rate_open = true;
		d->rate_bin = bin;
		if (bin < d->rate_last)
			d->rate_last = bin;
		d->rate_bytes = 0;
		return;
	}
	if (bin <= d->rate_bin)
		return;
	rate_sample(t, d, d->rate_bin, d->rate_bytes);
	/* A gap: back to zero at the end of the bin. */
	if (bin > d->rate_bin + w && d->rate_bytes)
		rate_sample(t, d, d->rate_bin + w, 0);
	d->rate_bin = bin;
	d->rate_bytes = 0;
}

static void one_event(struct wc_traceevent *t, const struct wc_event *ev)
{
	unsigned what = wc_event_what(ev);
	struct tdev *d;
	int64_t ts;

	if (wc_event_is_notify(ev) || wc_event_has(ev, WC_TC_PC))
		return;
	if (!t->have_origin) {
		t->have_origin = true;
		t->origin = ev->time;
	}
	if (what != WC_TA_ISSUE && what != WC_TA_COMPLETE &&
	    what != WC_TA_REQUEUE)
		return;
	ts = rel(t, ev->time);
	if (t->ended && ts > t->ends)
		return;
	d = dev_of(t, ev->device, ts);
	if (!d || events_full(t, d, ts))
		return;
	switch (what) {
	case WC_TA_ISSUE:
		d->depth++;
		counter(t, d, ts, "queue depth", "requests", d->depth);
		if (ev->bytes == 0 && wc_event_has(ev, WC_TC_FLUSH) &&
		    d->nflight < FLUSH_RING)
			d->covered[d->nflight++] = d->unflushed;
		break;
	case WC_TA_REQUEUE:
		if (d->depth)
			d->depth--;
		counter(t, d, ts, "queue depth", "requests", d->depth);
		break;
	case WC_TA_COMPLETE:
		/* An empty completion without FLUSH ends a preflush/FUA
		 * sequence: nothing was dispatched for it (tracker.h). */
		if (ev->bytes == 0 && !wc_event_has(ev, WC_TC_FLUSH))
			break;
		if (d->depth)
			d->depth--;
		counter(t, d, ts, "queue depth", "requests", d->depth);
		rate_advance(t, d, ts);
		d->rate_bytes += ev->bytes;
		if (ev->bytes && wc_event_has(ev, WC_TC_WRITE) &&
		    !wc_event_has(ev, WC_TC_FUA)) {
			d->unflushed += ev->bytes;
		} else if (ev->bytes == 0 && d->nflight) {
			/* The oldest flush in flight completed: what was
			 * written before its D is on the media. */
			uint64_t c = d->covered[0];

			d->unflushed = d->unflushed > c ? d->unflushed - c : 0;
			memmove(d->covered, d->covered + 1,
				(d->nflight - 1) * sizeof(d->covered[0]));
			d->nflight--;
			for (size_t i = 0; i < d->nflight; i++)
				d->covered[i] = d->covered[i] > c ?
						d->covered[i] - c : 0;
		} else {
			break;
		}
		counter(t, d, ts, "unflushed writes (bytes)", "bytes",
			d->unflushed);
		break;
	default:
		break;
	}
}

void wc_traceevent_events(struct wc_traceevent *t, const struct wc_event *evs,
			  size_t n)
{
	size_t i;

	if (!t->in_capture)
		return;
	for (i = 0; i < n; i++)
		one_event(t, &evs[i]);
}

/* The first lane free at start (its last slice ended by then), made
 * and named when new; NULL when all are taken. */
static struct lane *lane_for(struct wc_traceevent *t, struct tdev *d,
			     struct lane *lanes, size_t nlanes, long tid0,
			     const char *what, int64_t start, long *tid)
{
	size_t i;

	for (i = 0; i < nlanes; i++) {
		char name[48];

		if (lanes[i].used && lanes[i].last > start)
			continue;
		*tid = tid0 + (long)i;
		if (!lanes[i].used) {
			lanes[i].used = true;
			snprintf(name, sizeof(name), "%s %zu", what, i + 1);
			meta(t, "thread_name", start, d->pid, *tid, name, NULL);
			head(t, 'M', start, d->pid, *tid);
			fprintf(t->f, ",\"name\":\"thread_sort_index\",\"args\":"
				"{\"sort_index\":%ld}}", *tid);
		}
		return &lanes[i];
	}
	return NULL;
}

/* The events a limited capture may write before its timeline ends. */
static uint64_t event_cap(const struct wc_traceevent *t)
{
	return t->limit > UINT64_MAX / WC_TRACEEVENT_EVENTS_PER_SLICE ?
	       UINT64_MAX : t->limit * WC_TRACEEVENT_EVENTS_PER_SLICE;
}

/* The limit is reached with a slice ending at end: the timeline of the
 * capture ends there, marked across every track (a global instant). */
static void end_here(struct wc_traceevent *t, struct tdev *d, int64_t end,
		     struct capstat *cs, bool by_events)
{
	t->ended = true;
	t->ends = end;
	if (cs) {
		cs->ended = true;
		cs->ends = end;
	}
	head(t, 'i', end, d->pid, END_TID);
	if (by_events)
		fprintf(t->f, ",\"s\":\"g\",\"name\":\"timeline ends here: at "
			"most %" PRIu64 " events written\"}", event_cap(t));
	else
		fprintf(t->f, ",\"s\":\"g\",\"name\":\"timeline ends here: at "
			"most %" PRIu64 " requests drawn\"}", t->limit);
}

/* With a limit, true (and the timeline ended at ts) once the capture's
 * events reach their cap: counters of requests never drawn (dispatches
 * that never complete, requeues) cannot make the file endless. */
static bool events_full(struct wc_traceevent *t, struct tdev *d, int64_t ts)
{
	struct capstat *cs = t->nstats ? &t->stats[t->nstats - 1] : NULL;

	if (!t->limit || t->events < event_cap(t))
		return false;
	if (!t->ended)
		end_here(t, d, ts, cs, true);
	return true;
}

void wc_traceevent_request(struct wc_traceevent *t, const struct wc_request *rq,
			   enum wc_cat cat, const char *comm,
			   const char *cause)
{
	struct capstat *cs = t->nstats ? &t->stats[t->nstats - 1] : NULL;
	bool flush = cat == WC_CAT_FLUSH;
	int64_t start, disp, end;
	struct lane *lane;
	struct tdev *d;
	long tid = 0;

	if (!t->in_capture || !t->have_origin)
		return;
	if (!rq->completed) {
		if (cs)
			cs->unfinished++;
		return;
	}
	if (t->ended) {
		if (cs)
			cs->past_limit++;
		return;
	}
	end = rel(t, rq->c_time);
	d = dev_of(t, rq->device, end);
	if (!d)
		return;
	if (events_full(t, d, end)) {
		if (cs)
			cs->past_limit++;
		return;
	}
	/* Q, else D, else C; each clamped into [start, end], so that a
	 * clock that stepped back cannot unbalance a lane. */
	start = rq->q_time != WC_NO_TIME ? rel(t, rq->q_time) :
		rq->d_time != WC_NO_TIME ? rel(t, rq->d_time) : end;
	if (start > end)
		start = end;
	disp = rq->d_time != WC_NO_TIME ? rel(t, rq->d_time) : start;
	if (disp < start)
		disp = start;
	if (disp > end)
		disp = end;
	lane = flush ? lane_for(t, d, d->flanes, WC_TRACEEVENT_FLUSH_LANES,
				FLUSH_TID0, "flushes", start, &tid) :
		       lane_for(t, d, d->lanes, WC_TRACEEVENT_LANES, 1,
				"requests", start, &tid);
	if (!lane) {
		if (cs)
			cs->not_drawn++;
		return;
	}
	lane->last = end;
	if (cs)
		cs->slices++;

	head(t, 'B', start, d->pid, tid);
	fprintf(t->f, ",\"name\":\"%s\",\"cat\":\"%s\",\"args\":{"
		"\"category\":\"%s\",\"sector\":%" PRIu64 ",\"bytes\":%" PRIu32
		",\"process\":", wc_cat_name(cat), wc_cat_name(cat),
		wc_cat_name(cat), flush ? 0 : rq->sector, rq->bytes);
	if (comm)
		wc_escape_json(t->f, comm);
	else
		fputs("null", t->f);
	fprintf(t->f, ",\"pid\":%" PRIu32, rq->pid);
	if (flush && rq->has_cause) {
		fputs(",\"issued_by\":", t->f);
		if (cause)
			wc_escape_json(t->f, cause);
		else
			fputs("null", t->f);
		fprintf(t->f, ",\"issued_by_pid\":%" PRIu32, rq->cause_pid);
	}
	fprintf(t->f, ",\"bios\":%" PRIu32 ",\"queued\":%s,\"dispatched\":%s}}",
		rq->nbios, rq->q_time != WC_NO_TIME ? "true" : "false",
		rq->d_time != WC_NO_TIME ? "true" : "false");
	if (rq->d_time != WC_NO_TIME) {
		head(t, 'B', disp, d->pid, tid);
		fputs(",\"name\":\"dispatched\",\"cat\":\"device\"}", t->f);
		head(t, 'E', end, d->pid, tid);
		fputs("}", t->f);
	}
	head(t, 'E', end, d->pid, tid);
	fputs("}", t->f);
	if (t->limit && ++t->drawn == t->limit)
		end_here(t, d, end, cs, false);
}

void wc_traceevent_end(struct wc_traceevent *t, const struct wc_phase *phases,
		       size_t nphases)
{
	int pid = t->pid_base + WC_MAX_DEVICES;
	size_t i;

	if (!t->in_capture)
		return;
	for (i = 0; i < t->ndevs; i++) {
		struct tdev *d = &t->devs[i];

		if (d->rate_open) {
			rate_sample(t, d, d->rate_bin, d->rate_bytes);
			d->rate_open = false;
		}
	}
	if (nphases && t->have_origin) {
		meta(t, "process_name", 0, pid, 0, capture_name(t), "phases");
		head(t, 'M', 0, pid, 0);
		fprintf(t->f, ",\"name\":\"process_sort_index\",\"args\":"
			"{\"sort_index\":%d}}", pid);
	}
	for (i = 0; i < nphases && t->have_origin; i++) {
		const struct wc_phase *p = &phases[i];
		int64_t s = rel(t, p->start);
		int64_t e = p->end > p->start ? rel(t, p->end) : s;

		meta(t, "thread_name", s, pid, (long)i + 1, p->name, NULL);
		head(t, 'B', s, pid, (long)i + 1);
		fputs(",\"name\":", t->f);
		wc_escape_json(t->f, p->name);
		fputs(",\"cat\":\"phase\"}", t->f);
		head(t, 'E', e, pid, (long)i + 1);
		fputs("}", t->f);
	}
	t->in_capture = false;
	t->nnames = 0;
}

int wc_traceevent_close(struct wc_traceevent *t, struct wc_err *err)
{
	size_t i;

	fprintf(t->f, "\n],\"otherData\":{\"tool\":\"wcanalyze %s\","
		"\"captures\":[", wc_version);
	for (i = 0; i < t->nstats; i++) {
		const struct capstat *c = &t->stats[i];

		fprintf(t->f, "%s{\"name\":", i ? "," : "");
		wc_escape_json(t->f, c->name);
		fprintf(t->f, ",\"slices\":%" PRIu64 ",\"not_drawn\":%" PRIu64
			",\"unfinished\":%" PRIu64, c->slices, c->not_drawn,
			c->unfinished);
		if (c->ended) {
			fprintf(t->f, ",\"past_limit\":%" PRIu64 ",\"ends_us\":",
				c->past_limit);
			put_us(t->f, c->ends);
		}
		fputs("}", t->f);
	}
	fputs("]}}\n", t->f);
	if (fflush(t->f) != 0 || ferror(t->f))
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "timeline: write failed: %s", strerror(errno));
	if (t->nomem)
		return wc_err_oom(err, NULL, NULL);
	return 0;
}

void wc_traceevent_free(struct wc_traceevent *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nstats; i++)
		free(t->stats[i].name);
	free(t->stats);
	free(t);
}
