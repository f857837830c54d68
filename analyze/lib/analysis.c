#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

struct wc_analysis {
	struct wc_capture_meta meta;
	struct wc_account *ac;
	struct wc_btt *btt;
	struct wc_tracker_stats stats;
	struct wc_phase_result phases[WC_MAX_PHASES];
	size_t nphases;
	int main_index;
	bool partial;
};

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
}

/* "on"/"off" and their spellings -> 1/0; anything else -> -1. */
static int on_off(const char *v)
{
	if (!v)
		return -1;
	if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "yes") ||
	    !strcmp(v, "write back"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no") ||
	    !strcmp(v, "write through"))
		return 0;
	return -1;
}

/* "MAJ:MIN", "MAJ,MIN" or a decimal dev_t -> dev_t; 0 when unparsable. */
static uint32_t parse_devt(const char *v)
{
	unsigned maj, min;
	char *end;
	unsigned long long n;

	if (!v)
		return 0;
	if (sscanf(v, "%u:%u", &maj, &min) == 2 ||
	    sscanf(v, "%u,%u", &maj, &min) == 2)
		return WC_DEV_MAKE(maj, min);
	n = strtoull(v, &end, 10);
	return *end == '\0' ? (uint32_t)n : 0;
}

static bool parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!v || !*v)
		return false;
	*out = strtoull(v, &end, 10);
	return *end == '\0';
}

static const char *dev_key(const struct wc_input *in, const char *dev,
			   const char *what)
{
	char key[160];

	snprintf(key, sizeof(key), "device.%s.%s", dev, what);
	return wc_input_conf(in, key);
}

static void meta_from_conf(struct wc_capture_meta *m, const struct wc_input *in)
{
	const char *v, *dest;
	char list[1024], *tok, *save = NULL;
	uint64_t n, len;

	meta_unknown(m, wc_input_name(in));
	v = wc_input_conf(in, "fs");
	if (v && strcmp(v, "unknown"))
		snprintf(m->fs, sizeof(m->fs), "%s", v);
	m->write_cache = on_off(wc_input_conf(in, "write_cache"));
	m->barrier = on_off(wc_input_conf(in, "barrier"));
	v = wc_input_conf(in, "kernel");
	snprintf(m->kernel, sizeof(m->kernel), "%s", v ? v : "");
	v = wc_input_conf(in, "mount_options");
	snprintf(m->mount_options, sizeof(m->mount_options), "%s", v ? v : "");
	v = wc_input_conf(in, "recorder");
	snprintf(m->recorder, sizeof(m->recorder), "%s", v ? v : "");
	v = wc_input_conf(in, "complete");
	m->complete = v ? on_off(v) : -1;
	if (parse_u64(wc_input_conf(in, "events_dropped"), &n))
		m->events_dropped = (int64_t)n;

	v = wc_input_conf(in, "devices");
	snprintf(list, sizeof(list), "%s", v ? v : "");
	for (tok = strtok_r(list, " ,", &save); tok && m->ndevices < WC_MAX_DEVICES;
	     tok = strtok_r(NULL, " ,", &save)) {
		struct wc_device_meta *d = &m->devices[m->ndevices];

		d->device = parse_devt(dev_key(in, tok, "dev"));
		snprintf(d->name, sizeof(d->name), "%s", tok);
		d->rotational = on_off(dev_key(in, tok, "rotational"));
		m->ndevices++;
	}
	dest = wc_input_conf(in, "destination");
	if (dest) {
		const char *base = strrchr(dest, '/');

		base = base ? base + 1 : dest;
		m->main_device = parse_devt(dev_key(in, base, "dev"));
		m->main_from_conf = m->main_device != 0;
		m->main_rotational = on_off(dev_key(in, base, "rotational"));
	}
	if (parse_u64(wc_input_conf(in, "journal_start_sector"), &n) &&
	    parse_u64(wc_input_conf(in, "journal_sectors"), &len) && len) {
		m->journal_method = WC_JOURNAL_RANGE;
		m->journal_start = n;
		m->journal_len = len;
	}
}

/* ---- the run ----------------------------------------------------------- */

struct run {
	struct wc_analysis *a;
	const struct wc_analysis_opts *o;
	const struct wc_input *in;       /* for process names, or NULL */
	struct wc_classifier cl;
};

static int analyse(struct run *run, wc_event_source next, void *ctx,
		   const struct wc_phase *phases, size_t nphases,
		   struct wc_err *err)
{
	struct wc_analysis *a = run->a;
	struct wc_phase_window win[WC_MAX_PHASES];
	struct wc_account_conf conf = { 0 };
	struct wc_tracker *tr = NULL;
	struct wc_request rq;
	uint64_t first, last;
	size_t i;
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
		win[i].start = p->start;
		win[i].end = p->end;
	}
	a->nphases = nphases;
	conf.media_rate = run->o->media_rate;
	conf.nphases = nphases;
	conf.phases = win;

	if (wc_account_open(&a->ac, &conf, err) < 0)
		goto fail;
	if (wc_btt_open(&a->btt, err) < 0)
		goto fail;
	if (wc_tracker_open_source(&tr, next, ctx, err) < 0)
		goto fail;
	wc_tracker_set_hook(tr, wc_btt_hook, a->btt);

	while ((r = wc_tracker_next(tr, &rq, err)) > 0) {
		enum wc_cat cat = wc_classify(&run->cl, &rq);
		const char *comm = NULL;

		if (run->o->on_request)
			run->o->on_request(run->o->ctx, &rq, cat);
		if (run->in && rq.completed && (rq.action & WC_TC(WC_TC_SYNC)))
			comm = wc_input_comm(run->in, rq.pid);
		wc_account_add(a->ac, &rq, cat, comm);
	}
	a->stats = *wc_tracker_stats(tr);
	if (r < 0)
		a->partial = true;
	if (wc_btt_status(a->btt, err) < 0)
		goto fail_tracker;
	first = a->stats.first_time == WC_NO_TIME ? 0 : a->stats.first_time;
	last = a->stats.last_time == WC_NO_TIME ? 0 : a->stats.last_time;
	wc_account_finish(a->ac, first, last);
	a->meta.events = a->stats.events;
	wc_tracker_free(tr);
	return r < 0 ? -1 : 0;

fail_tracker:
	wc_tracker_free(tr);
fail:
	return -1;
}

/* The destination from capture.conf, else the device that moved most. */
static void pick_main(struct wc_analysis *a)
{
	size_t i, n = wc_account_ndevices(a->ac);
	uint64_t best = 0;

	a->main_index = -1;
	if (a->meta.main_from_conf)
		a->main_index = wc_account_find(a->ac, a->meta.main_device);
	if (a->main_index >= 0 || a->meta.main_from_conf)
		return;
	for (i = 0; i < n; i++) {
		const struct wc_figures *f = wc_account_device(a->ac, i);
		uint64_t b = wc_figures_io_bytes(f);

		if (a->main_index < 0 || b > best) {
			best = b;
			a->main_index = (int)i;
		}
	}
	if (a->main_index >= 0)
		a->meta.main_device = wc_account_device(a->ac, (size_t)a->main_index)->device;
	for (i = 0; i < a->meta.ndevices; i++)
		if (a->meta.devices[i].device == a->meta.main_device)
			a->meta.main_rotational = a->meta.devices[i].rotational;
}

static void setup_classifier(struct run *run)
{
	const struct wc_capture_meta *m = &run->a->meta;

	if (run->o->journal_given) {
		/* The user's range is on the destination when there is one
		 * named, else on whatever device the sectors land. */
		wc_classifier_range(&run->cl,
				    m->main_from_conf ? m->main_device : 0,
				    run->o->journal_start, run->o->journal_len);
		run->a->meta.journal_method = WC_JOURNAL_RANGE;
		run->a->meta.journal_start = run->o->journal_start;
		run->a->meta.journal_len = run->o->journal_len;
	} else if (m->journal_method == WC_JOURNAL_RANGE) {
		wc_classifier_range(&run->cl,
				    m->main_from_conf ? m->main_device : 0,
				    m->journal_start, m->journal_len);
	} else {
		wc_classifier_heuristic(&run->cl);
	}
}

static const struct wc_analysis_opts default_opts = WC_ANALYSIS_OPTS_INIT;

static int input_next(void *ctx, struct wc_event *ev, struct wc_err *err)
{
	return wc_input_next(ctx, ev, err);
}

static int64_t stream_skips(const struct wc_input *in)
{
	size_t i, n = wc_input_nstreams(in);
	int64_t sum = 0;

	for (i = 0; i < n; i++)
		sum += (int64_t)wc_input_stream(in, i)->skips;
	return sum;
}

int wc_analysis_run(struct wc_analysis **out, const char *path,
		    const struct wc_analysis_opts *o, struct wc_err *err)
{
	struct wc_input *in = NULL;
	struct wc_phase phases[WC_MAX_PHASES];
	struct run run = { 0 };
	struct wc_analysis *a;
	size_t i, np;
	int64_t skips;
	int r;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "out of memory");
	if (wc_input_open(&in, path, err) < 0)
		goto fail_analysis;
	meta_from_conf(&a->meta, in);
	np = wc_input_nphases(in);
	if (np > WC_MAX_PHASES)
		np = WC_MAX_PHASES;
	for (i = 0; i < np; i++)
		phases[i] = *wc_input_phase(in, i);
	run.a = a;
	run.o = o ? o : &default_opts;
	run.in = in;
	setup_classifier(&run);
	r = analyse(&run, input_next, in, phases, np, err);
	if (r < 0 && !a->partial)
		goto fail_input;
	/* What the recorder lost (capture.conf) plus what went missing
	 * between the recorder and us (sequence gaps). */
	skips = stream_skips(in);
	if (a->meta.events_dropped >= 0)
		a->meta.events_dropped += skips;
	else if (!wc_input_conf(in, "events_dropped"))
		a->meta.events_dropped = skips;   /* a plain trace */
	pick_main(a);
	wc_input_free(in);
	*out = a;
	return r;

fail_input:
	wc_input_free(in);
fail_analysis:
	wc_analysis_free(a);
	return -1;
}

int wc_analysis_run_source(struct wc_analysis **out, wc_event_source next,
			   void *ctx, const struct wc_capture_meta *meta,
			   const struct wc_phase *phases, size_t nphases,
			   const struct wc_analysis_opts *o,
			   struct wc_err *err)
{
	struct run run = { 0 };
	struct wc_analysis *a;
	int r;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "out of memory");
	if (meta)
		a->meta = *meta;
	else
		meta_unknown(&a->meta, "");
	run.a = a;
	run.o = o ? o : &default_opts;
	setup_classifier(&run);
	r = analyse(&run, next, ctx, phases, nphases, err);
	if (r < 0 && !a->partial) {
		wc_analysis_free(a);
		return -1;
	}
	pick_main(a);
	*out = a;
	return r;
}

/* ---- accessors --------------------------------------------------------- */

const struct wc_capture_meta *wc_analysis_meta(const struct wc_analysis *a)
{
	return &a->meta;
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

const struct wc_tracker_stats *wc_analysis_tracker_stats(
	const struct wc_analysis *a)
{
	return &a->stats;
}

bool wc_analysis_partial(const struct wc_analysis *a)
{
	return a->partial;
}

void wc_analysis_free(struct wc_analysis *a)
{
	if (!a)
		return;
	wc_account_free(a->ac);
	wc_btt_free(a->btt);
	free(a);
}
