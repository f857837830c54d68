/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * whatif.c - see whatif.h.
 */
#include "disk/whatif.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buildinfo.h"
#include "input/input.h"
#include "model/tracker.h"

#define MAX_NOTES 8

/* every region the replay can place is one capture.conf keeps */
_Static_assert(WC_CAPTURE_MAX_REGIONS > WC_REPLAY_MAX_REGIONS,
	       "disk_regions keeps a name past the replay's regions");

/* The requests the tracker handed out, read once from the input by the
 * first replay and handed out again from here to every other. */
struct reqs {
	struct wc_request *v;
	size_t n, cap;
	size_t max;                  /* held at most */
};

struct wc_whatif {
	size_t n;
	struct reqs reqs;
	struct wc_analysis *a[2 + WC_WHATIF_MAX_SPECS];
	struct wc_replay_stats st[2 + WC_WHATIF_MAX_SPECS];
	char base_name[256];
	size_t nnotes;
	char notes[MAX_NOTES][320];
};

static void note(struct wc_whatif *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct wc_whatif *w, const char *fmt, ...)
{
	va_list ap;

	if (w->nnotes >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(w->notes[w->nnotes++], sizeof(w->notes[0]), fmt, ap);
	va_end(ap);
}

/* ---- specs ------------------------------------------------------------- */

static int onoff(const char *v)
{
	if (!strcmp(v, "on") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "0"))
		return 0;
	return -1;
}

int wc_whatif_spec_parse(struct wc_whatif_spec *s, const char *text,
			 struct wc_err *err)
{
	char buf[256], *item, *save = NULL;
	struct wc_disk_params scratch;

	memset(s, 0, sizeof(*s));
	s->cache = s->barrier = -1;
	if (strlen(text) >= sizeof(buf) || !*text)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "what-if '%.64s': %s", text,
				  *text ? "longer than 255 bytes" : "empty");
	snprintf(s->text, sizeof(s->text), "%s", text);
	snprintf(buf, sizeof(buf), "%s", text);
	wc_disk_params_init(&scratch);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '='), *k = item, *v;

		if (!eq || eq == item || !eq[1])
			return wc_err_set(err, WC_ERR_USAGE, NULL, NULL,
					  WC_NO_OFFSET, "what-if '%.64s': item "
					  "'%.64s' is not KEY=VALUE", text, item);
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(k, "disk")) {
			snprintf(s->disk, sizeof(s->disk), "%s", v);
		} else if (!strcmp(k, "cache") || !strcmp(k, "write_cache")) {
			if ((s->cache = onoff(v)) < 0)
				goto bad_onoff;
		} else if (!strcmp(k, "barrier") || !strcmp(k, "barriers")) {
			if ((s->barrier = onoff(v)) < 0)
				goto bad_onoff;
		} else if (!strcmp(k, "kernel")) {
			if (strcmp(v, "2.6.24"))
				return wc_err_set(err, WC_ERR_USAGE, NULL, NULL,
						  WC_NO_OFFSET, "what-if '%.64s': "
						  "kernel must be 2.6.24 (the block "
						  "layer's ordering before 2.6.37), "
						  "not '%.64s'", text, v);
			s->kernel_2624 = true;
		} else if (!strcmp(k, "capacity")) {
			char *end;
			unsigned long long c;

			errno = 0;
			c = strtoull(v, &end, 10);
			if (end == v || *end || errno || c == 0 || c % 512 ||
			    *v == '-')
				return wc_err_set(err, WC_ERR_USAGE, NULL, NULL,
						  WC_NO_OFFSET, "what-if '%.64s': "
						  "capacity '%.64s' is not a "
						  "positive multiple of 512 bytes",
						  text, v);
			s->capacity = c;
		} else {
			if (s->nitems == WC_WHATIF_MAX_ITEMS ||
			    strlen(k) >= sizeof(s->items[0].key) ||
			    strlen(v) >= sizeof(s->items[0].value))
				return wc_err_set(err, WC_ERR_USAGE, NULL, NULL,
						  WC_NO_OFFSET, "what-if '%.64s': "
						  "too many or too long items", text);
			if (wc_disk_param_set(&scratch, k, v, err) < 0)
				return -1;
			snprintf(s->items[s->nitems].key,
				 sizeof(s->items[0].key), "%s", k);
			snprintf(s->items[s->nitems].value,
				 sizeof(s->items[0].value), "%s", v);
			s->nitems++;
		}
		continue;
bad_onoff:
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "what-if '%.64s': %s must be on or off, not "
				  "'%.64s'", text, k, v);
	}
	return 0;
}

/* ---- disks ------------------------------------------------------------- */

/* Loads the disk NAME from the installed disks.  USER: NAME is the
 * user's own (a what-if's disk=), and a path when it holds a '/'; a
 * capture's disk_model is a stranger's, always a name
 * (wc_disk_name_check()), never opened as a path. */
static int disk_load(struct wc_disk_params *p, const char *name, bool user,
		     struct wc_err *err)
{
	char installed[PATH_MAX];
	const char *dirs[3] = { getenv("WCANALYZE_DISKS"), installed,
				"capture/disks" };
	struct wc_err e2;

	snprintf(installed, sizeof(installed), "%s/disks", wc_datadir);

	wc_disk_params_init(p);
	if (user && strchr(name, '/'))
		return wc_disk_params_load(p, name, err);
	wc_err_clear(&e2);
	if (wc_disk_name_check(name, &e2) < 0) {
		/* the user's own word is a usage error */
		if (err && err->kind == WC_ERR_NONE) {
			*err = e2;
			err->kind = user ? WC_ERR_USAGE : WC_ERR_INPUT;
		}
		return -1;
	}
	if (wc_disk_params_find(p, name, dirs, 3, NULL) == 0)
		return 0;
	/* again for the message: a file that is there and wrong says why */
	wc_disk_params_init(p);
	if (wc_disk_params_find(p, name, dirs, 3, err) < 0 &&
	    err && err->kind == WC_ERR_USAGE)
		snprintf(err->msg, sizeof(err->msg), "no model disk '%.64s' "
			 "($WCANALYZE_DISKS, %s/disks, capture/disks)", name,
			 wc_datadir);
	return -1;
}

/* Where wcdisk placed the regions (capture.conf disk_capacity_bytes and
 * disk_offsets, one a region in disk_regions' order; diskmodel.h
 * "Placement"): 1 when they make a placement (whole sectors, ascending,
 * each region's image of img bytes inside the capacity), else 0 (the
 * regions are then the platter). */
static int disk_placement(const struct wc_capture_meta *m, uint64_t img)
{
	size_t k;

	if (m->disk_capacity == 0 || m->disk_capacity % 512 ||
	    m->noffsets == 0 || m->noffsets < m->nregions)
		return 0;
	for (k = 0; k < m->noffsets; k++)
		if (m->offsets[k] % 512 || m->offsets[k] > m->disk_capacity ||
		    img > m->disk_capacity - m->offsets[k] ||
		    (k && m->offsets[k] < m->offsets[k - 1] + img))
			return 0;
	return 1;
}

/* capture.conf's disk_regions (the devices one wcdisk served, the
 * destination first) as replay regions: each region is an image of the
 * same size, one after the other, or where disk_offsets placed it (then
 * *placed is set, and the disk's capacity and the main device's first
 * sector with it).  Returns the number of devices named, 0 when none (or
 * the first is not the main device). */
static size_t disk_regions(const struct wc_capture_meta *m, uint64_t img,
			   struct wc_replay_conf *rc, bool *placed)
{
	size_t n, i;

	*placed = disk_placement(m, img);
	if (*placed) {
		rc->capacity_bytes = m->disk_capacity;
		rc->first_sector = m->offsets[0] / 512;
	}
	/* wcdisk places each region after the one before, in this order */
	for (n = 0; n < m->nregions && n <= WC_REPLAY_MAX_REGIONS; n++) {
		uint32_t dev = 0;

		for (i = 0; i < m->ndevices; i++)
			if (m->regions[n][0] &&
			    !strcmp(m->devices[i].name, m->regions[n]))
				dev = m->devices[i].device;
		if (n == 0 && dev != m->main_device)
			return 0;
		if (n == 0 || !dev || rc->nregions == WC_REPLAY_MAX_REGIONS)
			continue;
		rc->regions[rc->nregions].device = dev;
		rc->regions[rc->nregions].first_sector = *placed ?
			m->offsets[n] / 512 : n * (img / 512);
		rc->nregions++;
	}
	return n;
}

/* The recorded disk from its disk.conf text: 1 when read; a disk.conf
 * that names no queue_depth was written by a wcdisk that served one
 * request at a time. */
static int disk_from_conf(struct wc_disk_params *p, char *text, size_t len)
{
	FILE *fp = fmemopen(text, len, "r");
	int r;

	if (!fp)
		return 0;
	wc_disk_params_init(p);
	p->queue_depth = 0;
	r = wc_disk_params_read(p, fp, "info/disk.conf", NULL);
	fclose(fp);
	if (r < 0)
		return 0;
	if (p->queue_depth == 0)
		p->queue_depth = 1;
	return 1;
}

/* ---- one replay --------------------------------------------------------- */

struct pass {
	struct wc_replay *rp;
	const struct reqs *keep;
	size_t pos;                  /* in keep */
};

static int replay_source(void *ctx, struct wc_request *rq, struct wc_err *err)
{
	return wc_replay_next(ctx, rq, err);
}

/* The recorded analysis's tap (wc_analysis_opts.keep): every request its
 * tracker hands out, kept, up to the bound. */
static int keep_request(void *ctx, const struct wc_request *rq,
			struct wc_err *err)
{
	struct reqs *k = ctx;

	if (k->n == k->cap) {
		size_t ncap = k->cap ? 2 * k->cap : 65536;
		struct wc_request *nv;

		if (k->cap >= k->max)
			return wc_err_set(err, WC_ERR_INPUT, NULL, NULL,
					  WC_NO_OFFSET, "more than %zu requests:"
					  " --what-if holds them in memory, at "
					  "most %zu (%zu MB)", k->max, k->max,
					  k->max * sizeof(*rq) >> 20);
		if (ncap > k->max)
			ncap = k->max;
		nv = realloc(k->v, ncap * sizeof(*nv));
		if (!nv)
			return wc_err_oom(err, NULL, NULL);
		k->v = nv;
		k->cap = ncap;
	}
	k->v[k->n++] = *rq;
	return 1;
}

/* The kept requests again, in the order the tracker handed them out. */
static int kept_source(void *ctx, struct wc_request *rq, struct wc_err *err)
{
	struct pass *p = ctx;

	(void)err;
	if (p->pos == p->keep->n)
		return 0;
	*rq = p->keep->v[p->pos++];
	return 1;
}

static void pass_close(struct pass *p)
{
	wc_replay_free(p->rp);
	memset(p, 0, sizeof(*p));
}

/* A replay of the kept requests, from memory. */
static int pass_open(struct pass *p, const struct reqs *keep,
		     const struct wc_replay_conf *rc, struct wc_err *err)
{
	memset(p, 0, sizeof(*p));
	p->keep = keep;
	return wc_replay_open(&p->rp, rc, kept_source, p, err);
}

struct scenario {
	struct wc_replay_conf rc;
	struct wc_capture_meta meta;
};

/* Replays once to carry the phases' edges into virtual time, then again
 * into an analysis. */
static int replay_analyse(struct wc_whatif *w,
			  const struct scenario *sc, const struct wc_analysis *rec,
			  const struct wc_analysis_opts *ao, struct wc_err *err)
{
	const struct wc_tracker_stats *ts = wc_analysis_tracker_stats(rec);
	struct wc_phase phases[WC_MAX_PHASES];
	uint64_t points[2 * WC_MAX_PHASES];
	struct wc_replay_conf rc = sc->rc;
	size_t np = wc_analysis_nphases(rec), i;
	uint64_t first, last;
	struct wc_request rq;
	struct pass p;
	int r;

	for (i = 0; i < np; i++) {
		points[2 * i] = wc_analysis_phase(rec, i)->start;
		points[2 * i + 1] = wc_analysis_phase(rec, i)->end;
	}
	rc.points = points;
	rc.npoints = 2 * np;
	if (pass_open(&p, &w->reqs, &rc, err) < 0)
		return -1;
	while ((r = wc_replay_next(p.rp, &rq, err)) > 0)
		;
	if (r < 0)
		goto close_pass;
	first = ts->first_time == WC_NO_TIME ? 0 : ts->first_time;
	last = ts->last_time == WC_NO_TIME ? 0 : ts->last_time;
	last = wc_replay_map_end(p.rp, last);
	if (wc_replay_stats(p.rp)->last_c != WC_NO_TIME &&
	    wc_replay_stats(p.rp)->last_c > last)
		last = wc_replay_stats(p.rp)->last_c;
	for (i = 0; i < np; i++) {
		/* A replayed phase has its times and no measured command:
		 * the CPU and wall phases.tsv gave were the recording's. */
		phases[i] = (struct wc_phase){
			.name = wc_analysis_phase(rec, i)->name,
			.start = wc_replay_map_point(p.rp, 2 * i),
			.end = wc_replay_map_point(p.rp, 2 * i + 1),
		};
	}
	pass_close(&p);

	if (pass_open(&p, &w->reqs, &rc, err) < 0)
		return -1;
	r = wc_analysis_read_requests(&w->a[w->n], replay_source, p.rp,
				      &sc->meta, phases, np, first, last, ao,
				      err);
	if (r < 0)
		goto close_pass;     /* a part of it: wc_whatif_free() frees */
	w->st[w->n] = *wc_replay_stats(p.rp);
	w->n++;
close_pass:
	pass_close(&p);
	return r < 0 ? -1 : 0;
}

/* kernel=2.6.24: today's flushes and FUA give way to the barriers of
 * the filesystem as it was then (replay.h, docs/what-if.md). */
static void kernel_2624(struct wc_whatif *w, const struct wc_whatif_spec *s,
			const struct wc_capture_meta *rm, int barrier,
			struct wc_replay_conf *rc)
{
	rc->drop_flushes = true;
	rc->drop_fua = true;
	if (!barrier)
		rc->barriers = WC_BARRIERS_NONE;
	else if (!strcmp(rm->fs, "xfs"))
		rc->barriers = WC_BARRIERS_LOG;
	else
		rc->barriers = WC_BARRIERS_COMMIT;
	if (barrier && strcmp(rm->fs, "xfs") && strcmp(rm->fs, "ext3") &&
	    strcmp(rm->fs, "ext4"))
		note(w, "what-if '%.64s': the capture names no filesystem "
		     "of 2.6.24's (xfs, ext3, ext4): its journal writes with "
		     "FUA or PREFLUSH are taken as the barriers", s->text);
}

/* The capture's name with a suffix, and its configuration key marked so
 * that no replay groups with a recorded run. */
static void scenario_meta(struct wc_capture_meta *m,
			  const struct wc_capture_meta *rec, const char *what,
			  const char *disk, int cache, int barrier)
{
	*m = *rec;
	/* the replay's clock is the model's: no durable time of its own */
	m->has_durable = m->durable_window = false;
	/* nor a ledger: the model's account of the recording is not its */
	m->has_ledger = false;
	m->ledger_rows = m->ledger_busy_ns = m->ledger_commands_ns = 0;
	snprintf(m->name, sizeof(m->name), "%.150s %s", rec->name, what);
	m->write_cache = cache;
	m->barrier = barrier;
	snprintf(m->disk_model, sizeof(m->disk_model), "%s", disk);
	if (snprintf(m->config, sizeof(m->config), "what_if=%s;%s", what,
		     rec->config) >= (int)sizeof(m->config))
		m->config[0] = '\0';
}

/* The size of one of the capture's images (every region's is the same).
 * As recorded where capture.conf says it: disk_capacity_bytes is the disk
 * wcdisk served, and when the images were its platter (disk_offsets one
 * a region: 0, one image, two images, ...) that is disk_regions' images
 * one after the other.  Only for a capture older than the keys, or one
 * whose images were placed as partitions (the capacity is then the whole
 * disk's, which disk_regions() takes), is it derived, as wccapture makes
 * the image without --image-size; without a model disk, 500 GB. */
static uint64_t recorded_capacity(const struct wc_capture_meta *m)
{
	uint64_t src = m->source_bytes, n = m->nregions ? m->nregions : 1;

	if (m->disk_capacity && m->disk_capacity % (n * 512) == 0 &&
	    m->noffsets == n) {
		uint64_t img = m->disk_capacity / n;
		size_t k = 0;

		while (k < n && m->offsets[k] == k * img)
			k++;
		if (k == n)
			return img;
	}
	/* wccapture's image: the tree twice plus 512 MiB, whole MiB */
	if (m->disk_model[0] && src && src < (1ull << 50))
		return (src * 2 + 512ull * 1024 * 1024 + 1048575) / 1048576 *
			1048576;
	return 500000000000ull / 512 * 512;
}

int wc_whatif_replay(struct wc_whatif **out, const char *path,
		     const struct wc_whatif_spec *specs, size_t n,
		     const struct wc_whatif_opts *o, struct wc_err *err)
{
	struct wc_analysis_opts ao = o ? o->analysis :
		(struct wc_analysis_opts)WC_ANALYSIS_OPTS_INIT;
	const struct wc_capture_meta *rm;
	const struct wc_figures *mf;
	struct scenario sc;
	struct wc_whatif *w;
	struct wc_err derr;
	const char *rec_disk;
	uint64_t cap;
	static const char *const side_files[1] = { "info/disk.conf" };
	char *side[1] = { NULL };
	size_t side_len[1] = { 0 };
	int rec_cache, rec_barrier, r, ret = -1;
	bool from_conf;
	size_t i, k;

	*out = NULL;
	if (n > WC_WHATIF_MAX_SPECS)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "more than %d what-ifs", WC_WHATIF_MAX_SPECS);
	if (!strcmp(path, "-"))
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "--what-if replays a capture (its "
				  "capture.conf names the disk): not from "
				  "standard input");
	w = calloc(1, sizeof(*w));
	if (!w)
		return wc_err_oom(err, NULL, NULL);
	w->reqs.max = o && o->max_requests &&
		o->max_requests < WC_WHATIF_MAX_REQUESTS ? o->max_requests :
		WC_WHATIF_MAX_REQUESTS;
	/* One pass over the input: the recorded analysis keeps every
	 * request its tracker hands out, and the capture's info/disk.conf
	 * (the disk as wcdisk served it, read as every file of a capture
	 * is; capture.conf's disk_regions come with the meta). */
	ao.once = true;
	ao.keep = keep_request;
	ao.keep_ctx = &w->reqs;
	ao.files = side_files;
	ao.nfiles = 1;
	ao.texts = side;
	ao.lens = side_len;
	r = wc_analysis_read(&w->a[0], path, &ao, err);
	ao.once = false;
	ao.keep = NULL;
	ao.keep_ctx = NULL;
	ao.nfiles = 0;
	ao.texts = NULL;
	ao.lens = NULL;
	if (r < 0)
		goto free_side;
	w->n = 1;
	rm = wc_analysis_meta(w->a[0]);
	mf = wc_analysis_main(w->a[0]);
	if (!mf) {
		wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
			   "no I/O on the main device: nothing to replay");
		goto free_side;
	}
	cap = recorded_capacity(rm);

	/* The recorded configuration, on its model disk. */
	memset(&sc, 0, sizeof(sc));
	wc_replay_conf_init(&sc.rc);
	sc.rc.device = rm->main_device;
	wc_analysis_classifier(w->a[0], &sc.rc.cl);
	rec_disk = rm->disk_model[0] ? rm->disk_model : "hdd7200";
	wc_err_clear(&derr);
	{
		size_t len = side_len[0];

		from_conf = side[0] && disk_from_conf(&sc.rc.disk, side[0], len);
		if (side[0] && !from_conf)
			note(w, "the capture's info/disk.conf is not a disk's "
			     "parameters: replayed as recorded with the "
			     "parameters of disk '%.64s'", rec_disk);
	}
	if (from_conf) {
		/* as wcdisk served it; the name is only the capture's word
		 * for these parameters, so a name that is no installed disk
		 * is said to be one, or the disks table would present a
		 * stranger's text as a model disk of ours */
		struct wc_disk_params named;

		wc_err_clear(&derr);
		if (disk_load(&named, rec_disk, false, &derr) < 0)
			note(w, "the capture's disk '%.64s' is no installed "
			     "model disk (%s): replayed as recorded with the "
			     "parameters of its info/disk.conf", rec_disk,
			     derr.msg);
	} else if (disk_load(&sc.rc.disk, rec_disk, false, &derr) < 0) {
		note(w, "the capture's disk '%.64s' is no model disk (%s): "
		     "replayed as recorded on hdd7200", rec_disk, derr.msg);
		rec_disk = "hdd7200";
		if (disk_load(&sc.rc.disk, rec_disk, false, err) < 0)
			goto free_side;
	} else if (!rm->disk_model[0]) {
		note(w, "the capture names no model disk: replayed as recorded "
		     "on hdd7200");
	}
	rec_cache = rm->write_cache >= 0 ? rm->write_cache :
		sc.rc.disk.write_cache;
	rec_barrier = rm->barrier >= 0 ? rm->barrier : 1;
	sc.rc.disk.write_cache = rec_cache;
	sc.rc.capacity_bytes = cap;
	{
		bool placed;
		size_t nd = disk_regions(rm, cap, &sc.rc, &placed);

		/* the regions, each an image of the same size, the platter
		 * unless placed as partitions */
		if (nd > 1 && !placed)
			sc.rc.capacity_bytes = nd * cap;
		if (nd > 1 && sc.rc.nregions + 1 < nd)
			note(w, "capture.conf's disk_regions names devices the "
			     "trace does not describe (or more than %u): their "
			     "requests are not replayed",
			     WC_REPLAY_MAX_REGIONS + 1);
	}
	cap = sc.rc.capacity_bytes;
	scenario_meta(&sc.meta, rm, "replayed as recorded", rec_disk,
		      rec_cache, rec_barrier);
	snprintf(w->base_name, sizeof(w->base_name), "%s", sc.meta.name);
	if (replay_analyse(w, &sc, w->a[0], &ao, err) < 0)
		goto free_side;

	for (i = 0; i < n; i++) {
		const struct wc_whatif_spec *s = &specs[i];
		struct scenario x = sc;
		const char *disk = s->disk[0] ? s->disk : rec_disk;
		int cache, barrier;
		char what[300];

		if (s->disk[0] && disk_load(&x.rc.disk, disk, true, err) < 0)
			goto free_side;
		cache = s->cache >= 0 ? s->cache : rec_cache;
		barrier = s->barrier >= 0 ? s->barrier : rec_barrier;
		x.rc.disk.write_cache = cache;
		for (k = 0; k < s->nitems; k++)
			if (wc_disk_param_set(&x.rc.disk, s->items[k].key,
					      s->items[k].value, err) < 0)
				goto free_side;
		x.rc.capacity_bytes = s->capacity ? s->capacity : cap;
		/* No flush reaches a disk without barriers, nor one that
		 * says its cache is off (the kernel drops them). */
		x.rc.drop_flushes = !barrier || !x.rc.disk.write_cache;
		x.rc.drop_fua = x.rc.drop_flushes;
		if (s->kernel_2624)
			kernel_2624(w, s, rm, barrier, &x.rc);
		else if (!x.rc.drop_flushes && mf->requests[WC_CAT_FLUSH] == 0 &&
		    (!rec_barrier || !rec_cache))
			note(w, "what-if '%.64s': the capture holds no flush (it "
			     "was recorded with the cache %s and barriers %s), "
			     "so the replay cannot add those the filesystem "
			     "would send: its flush time is missing", s->text,
			     rec_cache ? "on" : "off", rec_barrier ? "on" : "off");
		snprintf(what, sizeof(what), "what-if %s", s->text);
		scenario_meta(&x.meta, rm, what, disk, x.rc.disk.write_cache,
			      barrier);
		if (replay_analyse(w, &x, w->a[0], &ao, err) < 0)
			goto free_side;
		if (x.rc.barriers != WC_BARRIERS_NONE &&
		    w->st[w->n - 1].barriers == 0)
			note(w, "what-if '%.64s': no journal write of the capture "
			     "is a barrier (%s), so the replay drains nothing: "
			     "record it with barriers on", s->text,
			     x.rc.barriers == WC_BARRIERS_LOG ? "no journal write "
			     "was found" : "none carries FUA or PREFLUSH");
	}
	for (i = 1; i < w->n; i++)
		if (w->st[i].out_of_order) {
			note(w, "%llu requests were taken out of their order of "
			     "dispatch (in flight longer than the horizon, or "
			     "too many held)",
			     (unsigned long long)w->st[i].out_of_order);
			break;
		}
	*out = w;
	w = NULL;
	ret = 0;
free_side:
	free(side[0]);
	wc_whatif_free(w);
	return ret;
}

size_t wc_whatif_count(const struct wc_whatif *w)
{
	return w->n;
}

struct wc_analysis *const *wc_whatif_analyses(const struct wc_whatif *w)
{
	return w->a;
}

const char *wc_whatif_baseline(const struct wc_whatif *w)
{
	return w->base_name;
}

size_t wc_whatif_baseline_index(const struct wc_whatif *w)
{
	(void)w;
	return 2;
}

const struct wc_replay_stats *wc_whatif_stats(const struct wc_whatif *w,
					      size_t i)
{
	return i >= 1 && i < w->n ? &w->st[i] : NULL;
}

size_t wc_whatif_nnotes(const struct wc_whatif *w)
{
	return w->nnotes;
}

const char *wc_whatif_note(const struct wc_whatif *w, size_t i)
{
	return i < w->nnotes ? w->notes[i] : NULL;
}

void wc_whatif_free(struct wc_whatif *w)
{
	size_t i;

	if (!w)
		return;
	/* past n too: an analysis that failed midway is handed out with
	 * its part (wc_analysis_read()) before it was counted */
	for (i = 0; i < sizeof(w->a) / sizeof(w->a[0]); i++)
		wc_analysis_free(w->a[i]);
	free(w->reqs.v);
	free(w);
}
