/*
 * diskmodel.c - see diskmodel.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "diskmodel.h"

#define NS 1e9
#define SECTOR 512u
#define LINE_MAX_LEN 256

struct extent {
	uint64_t start, end;		/* sectors, [start, end) */
};

struct wc_disk {
	struct wc_disk_params p;
	uint64_t sectors;
	double rev_ns;
	double tracks;			/* tracks the image spans */
	double seek_a, seek_b;		/* ns per sqrt(cylinder), per cylinder */
	uint64_t cache_bytes;
	uint64_t seq;
	uint64_t busy_until;		/* end of the last request */
	/* the head: where the last media access ended, and when */
	uint64_t head_sector;
	uint64_t head_time;
	bool head_valid;
	/* read-ahead: the segment [ra_lo, ra_hi) and, while the head keeps
	 * reading, its growth from ra_time on at ra_rate bytes/s */
	bool ra_valid, ra_growing;
	uint64_t ra_lo, ra_hi, ra_time;
	double ra_rate;
	/* the write cache: sorted, disjoint, non-adjacent dirty ranges */
	struct extent *ext;
	size_t next;
	uint64_t dirty_sectors;
};

/* ------------------------------------------------------------ parameters */

enum ptype { P_DOUBLE, P_U64, P_BOOL, P_KIND };

static const struct pdesc {
	const char *name;
	enum ptype type;
	size_t off;
	double min, max;
} pdescs[] = {
#define D(f, lo, hi) { #f, P_DOUBLE, offsetof(struct wc_disk_params, f), lo, hi }
#define U(f, lo, hi) { #f, P_U64, offsetof(struct wc_disk_params, f), lo, hi }
#define B(f) { #f, P_BOOL, offsetof(struct wc_disk_params, f), 0, 1 }
	{ "model", P_KIND, offsetof(struct wc_disk_params, model), 0, 1 },
	D(rpm, 1, 100000),
	U(cylinders, 1, 10000000),
	D(seek_track_ms, 0, 1000),
	D(seek_avg_ms, 0, 1000),
	D(seek_full_ms, 0, 1000),
	D(media_outer_mbs, 0.001, 100000),
	D(media_inner_mbs, 0.001, 100000),
	D(interface_mbs, 0.001, 100000),
	D(overhead_us, 0, 1e6),
	D(read_us, 0, 1e6),
	D(write_us, 0, 1e6),
	U(cache_kib, 0, 4194304),
	B(write_cache),
	B(plp),
	D(flush_us, 0, 1e6),
	D(idle_destage_ms, 0, 1e6),
	D(stream_window_us, 0, 1e6),
	U(readahead_kib, 0, 1048576),
#undef D
#undef U
#undef B
};

void wc_disk_params_init(struct wc_disk_params *p)
{
	memset(p, 0, sizeof(*p));
	p->model = WC_DISK_HDD;
	p->rpm = 7200;
	p->cylinders = 100000;
	p->seek_track_ms = 1.0;
	p->seek_avg_ms = 8.5;
	p->seek_full_ms = 20.0;
	p->media_outer_mbs = 125;
	p->media_inner_mbs = 60;
	p->interface_mbs = 250;
	p->overhead_us = 50;
	p->cache_kib = 16384;
	p->write_cache = true;
	p->flush_us = 100;
	p->idle_destage_ms = 100;
	p->stream_window_us = 500;
	p->readahead_kib = 512;
}

int wc_disk_param_set(struct wc_disk_params *p, const char *key,
		      const char *value, struct wc_err *err)
{
	const struct pdesc *d = NULL;
	char *end;
	double v;
	size_t i;

	for (i = 0; i < sizeof(pdescs) / sizeof(pdescs[0]); i++)
		if (strcmp(pdescs[i].name, key) == 0)
			d = &pdescs[i];
	if (!d)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "unknown disk parameter '%.64s'", key);
	switch (d->type) {
	case P_KIND:
		if (strcmp(value, "hdd") == 0)
			p->model = WC_DISK_HDD;
		else if (strcmp(value, "ssd") == 0)
			p->model = WC_DISK_SSD;
		else
			goto bad;
		return 0;
	case P_BOOL:
		if (strcmp(value, "on") == 0 || strcmp(value, "1") == 0)
			*(bool *)((char *)p + d->off) = true;
		else if (strcmp(value, "off") == 0 || strcmp(value, "0") == 0)
			*(bool *)((char *)p + d->off) = false;
		else
			goto bad;
		return 0;
	case P_DOUBLE:
	case P_U64:
		errno = 0;
		v = strtod(value, &end);
		if (end == value || *end != '\0' || errno != 0 || !isfinite(v) ||
		    v < d->min || v > d->max)
			goto bad;
		if (d->type == P_DOUBLE) {
			*(double *)((char *)p + d->off) = v;
		} else {
			if (v != floor(v))
				goto bad;
			*(uint64_t *)((char *)p + d->off) = (uint64_t)v;
		}
		return 0;
	}
bad:
	return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
			  "disk parameter %s: '%.64s' is not %s", key, value,
			  d->type == P_KIND ? "hdd or ssd" :
			  d->type == P_BOOL ? "on or off" : "a number in range");
}

int wc_disk_params_write(FILE *fp, const struct wc_disk_params *p)
{
	const char *base = (const char *)p;
	size_t i;
	int n;

	for (i = 0; i < sizeof(pdescs) / sizeof(pdescs[0]); i++) {
		const struct pdesc *d = &pdescs[i];

		switch (d->type) {
		case P_KIND:
			n = fprintf(fp, "%s = %s\n", d->name,
				    p->model == WC_DISK_HDD ? "hdd" : "ssd");
			break;
		case P_BOOL:
			n = fprintf(fp, "%s = %s\n", d->name,
				    *(const bool *)(base + d->off) ? "on" : "off");
			break;
		case P_U64:
			n = fprintf(fp, "%s = %" PRIu64 "\n", d->name,
				    *(const uint64_t *)(base + d->off));
			break;
		default:
			n = fprintf(fp, "%s = %.10g\n", d->name,
				    *(const double *)(base + d->off));
			break;
		}
		if (n < 0)
			return -1;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int wc_disk_params_load(struct wc_disk_params *p, const char *path,
			struct wc_err *err)
{
	char line[LINE_MAX_LEN], *k, *v, *eq, *hash;
	uint64_t off = 0, len;
	int rc = -1;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		len = strlen(line);
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			wc_err_set(err, WC_ERR_INPUT, path, NULL, off,
				   "line longer than %d bytes", LINE_MAX_LEN - 2);
			goto close_file;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		k = trim(line);
		if (*k != '\0') {
			eq = strchr(k, '=');
			if (!eq) {
				wc_err_set(err, WC_ERR_INPUT, path, NULL, off,
					   "no '=' in a parameter line");
				goto close_file;
			}
			*eq = '\0';
			v = trim(eq + 1);
			k = trim(k);
			if (wc_disk_param_set(p, k, v, NULL) < 0) {
				/* again, for the message, now with the place */
				struct wc_err e2;

				wc_err_clear(&e2);
				wc_disk_param_set(p, k, v, &e2);
				wc_err_set(err, WC_ERR_INPUT, path, NULL, off,
					   "%s", e2.msg);
				goto close_file;
			}
		}
		off += len;
	}
	if (ferror(fp)) {
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, off, "read error");
		goto close_file;
	}
	rc = 0;
close_file:
	fclose(fp);
	return rc;
}

/* ------------------------------------------------------------ geometry */

int wc_disk_open(struct wc_disk **dp, const struct wc_disk_params *p,
		 uint64_t capacity_bytes, struct wc_err *err)
{
	struct wc_disk *d;
	double n, t, a, f;

	*dp = NULL;
	if (capacity_bytes == 0 || capacity_bytes % SECTOR != 0)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "disk capacity %" PRIu64 " is not a positive multiple of 512",
				  capacity_bytes);
	if (p->media_inner_mbs > p->media_outer_mbs)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "media_inner_mbs is above media_outer_mbs");
	t = p->seek_track_ms, a = p->seek_avg_ms, f = p->seek_full_ms;
	if (p->model == WC_DISK_HDD &&
	    (t > a || a > f || -10 * t + 15 * a - 5 * f < -1e-9 ||
	     7 * t - 15 * a + 8 * f < -1e-9))
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "seek times %g/%g/%g ms: average must lie in [%g, %g] ms for a rising seek curve",
				  t, a, f, (10 * t + 5 * f) / 15, (7 * t + 8 * f) / 15);
	d = calloc(1, sizeof(*d));
	if (!d)
		goto no_memory;
	d->ext = calloc(WC_DISK_MAX_EXTENTS, sizeof(*d->ext));
	if (!d->ext)
		goto free_disk;
	d->p = *p;
	d->sectors = capacity_bytes / SECTOR;
	d->rev_ns = 60.0 * NS / p->rpm;
	d->tracks = (double)capacity_bytes /
		((p->media_outer_mbs + p->media_inner_mbs) / 2 * 1e6 * d->rev_ns / NS);
	n = (double)p->cylinders;
	d->seek_a = (-10 * t + 15 * a - 5 * f) / (3 * sqrt(n)) * 1e6;
	d->seek_b = (7 * t - 15 * a + 8 * f) / (3 * n) * 1e6;
	if (d->seek_a < 0)
		d->seek_a = 0;
	if (d->seek_b < 0)
		d->seek_b = 0;
	d->cache_bytes = p->write_cache ? p->cache_kib * 1024 : 0;
	*dp = d;
	return 0;
free_disk:
	free(d);
no_memory:
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
}

void wc_disk_free(struct wc_disk *d)
{
	if (!d)
		return;
	free(d->ext);
	free(d);
}

/* Position across the stroke, 0 (outer) to 1 (inner), of a sector: the
 * capacity up to x grows as the integral of the linearly falling rate. */
static double stroke_pos(const struct wc_disk *d, uint64_t sector)
{
	double ro = d->p.media_outer_mbs, ri = d->p.media_inner_mbs;
	double f = (double)sector / (double)d->sectors, disc;

	if (f > 1)
		f = 1;
	if (ro - ri < 1e-9)
		return f;
	disc = ro * ro - (ro - ri) * (ro + ri) * f;
	if (disc < 0)
		disc = 0;
	return (ro - sqrt(disc)) / (ro - ri);
}

uint64_t wc_disk_cylinder(const struct wc_disk *d, uint64_t sector)
{
	uint64_t c = (uint64_t)(stroke_pos(d, sector) * (double)d->p.cylinders);

	return c >= d->p.cylinders ? d->p.cylinders - 1 : c;
}

double wc_disk_media_rate(const struct wc_disk *d, uint64_t sector)
{
	double x = d->p.model == WC_DISK_HDD ? stroke_pos(d, sector) : 0;

	return (d->p.media_outer_mbs -
		(d->p.media_outer_mbs - d->p.media_inner_mbs) * x) * 1e6;
}

uint64_t wc_disk_seek_ns(const struct wc_disk *d, uint64_t distance)
{
	double k;

	if (distance == 0 || d->p.model != WC_DISK_HDD)
		return 0;
	k = (double)(distance - 1);
	return (uint64_t)llround(d->p.seek_track_ms * 1e6 + d->seek_a * sqrt(k) +
				 d->seek_b * k);
}

uint64_t wc_disk_rev_ns(const struct wc_disk *d)
{
	return (uint64_t)llround(d->rev_ns);
}

uint64_t wc_disk_dirty_bytes(const struct wc_disk *d)
{
	return d->dirty_sectors * SECTOR;
}

void wc_disk_busy_until(struct wc_disk *d, uint64_t end_ns)
{
	if (end_ns > d->busy_until)
		d->busy_until = end_ns;
}

static uint64_t ns_of(double x)
{
	return x <= 0 ? 0 : (uint64_t)llround(x);
}

/* The read-ahead segment as it stands at time t. */
static uint64_t ra_top(const struct wc_disk *d, uint64_t t)
{
	double grown;
	uint64_t top, cap = d->ra_lo + d->p.readahead_kib * 2;

	if (!d->ra_growing || t <= d->ra_time)
		return d->ra_hi;
	grown = (double)(t - d->ra_time) / NS * d->ra_rate / SECTOR;
	top = d->ra_hi + (uint64_t)grown;
	if (top > cap && cap > d->ra_hi)
		top = cap;
	else if (cap <= d->ra_hi)
		top = d->ra_hi;
	return top > d->sectors ? d->sectors : top;
}

/* One media access at time t of [sector, sector + n): adds its parts to
 * *seek, *rot, *xfer and returns when it ends. */
static uint64_t media(struct wc_disk *d, uint64_t t, uint64_t sector,
		      uint64_t n, bool is_read, uint64_t *seek, uint64_t *rot,
		      uint64_t *xfer)
{
	uint64_t sk = 0, rt = 0, tx, cyl, hcyl;
	double rate = wc_disk_media_rate(d, sector), x, target, head;

	/* any media access ends the read-ahead's growth */
	if (d->ra_valid && d->ra_growing) {
		d->ra_hi = ra_top(d, t);
		d->ra_growing = false;
	}
	if (d->head_valid && sector == d->head_sector &&
	    t - d->head_time <= (uint64_t)(d->p.stream_window_us * 1000)) {
		/* still streaming: no positioning */
	} else if (d->p.model == WC_DISK_HDD) {
		cyl = wc_disk_cylinder(d, sector);
		hcyl = d->head_valid ? wc_disk_cylinder(d, d->head_sector) : 0;
		sk = wc_disk_seek_ns(d, cyl > hcyl ? cyl - hcyl : hcyl - cyl);
		x = stroke_pos(d, sector) * d->tracks;
		target = x - floor(x);
		head = fmod((double)(t + sk), d->rev_ns) / d->rev_ns;
		rt = ns_of((target - head - floor(target - head)) * d->rev_ns);
	} else {
		sk = ns_of((is_read ? d->p.read_us : d->p.write_us) * 1000);
	}
	tx = ns_of((double)n * SECTOR / rate * NS);
	*seek += sk;
	*rot += rt;
	*xfer += tx;
	t += sk + rt + tx;
	d->head_sector = sector + n;
	d->head_time = t;
	d->head_valid = true;
	if (is_read && d->p.readahead_kib > 0) {
		d->ra_valid = true;
		d->ra_growing = true;
		d->ra_lo = sector;
		d->ra_hi = sector + n;
		d->ra_time = t;
		d->ra_rate = rate;
	}
	return t;
}

/* ------------------------------------------------------------ cache */

/* Index of the first extent ending at or after sector s. */
static size_t ext_find(const struct wc_disk *d, uint64_t s)
{
	size_t lo = 0, hi = d->next;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ext[mid].end < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sectors of [s, e) not yet dirty. */
static uint64_t ext_new(const struct wc_disk *d, uint64_t s, uint64_t e)
{
	size_t i = ext_find(d, s + 1);
	uint64_t covered = 0, a, b;

	for (; i < d->next && d->ext[i].start < e; i++) {
		a = d->ext[i].start > s ? d->ext[i].start : s;
		b = d->ext[i].end < e ? d->ext[i].end : e;
		covered += b - a;
	}
	return (e - s) - covered;
}

/* Adds [s, e) to the dirty set; needs one free slot. */
static void ext_add(struct wc_disk *d, uint64_t s, uint64_t e)
{
	size_t i = ext_find(d, s), j = i;
	uint64_t ns = s, ne = e, covered = 0;

	while (j < d->next && d->ext[j].start <= e) {
		if (d->ext[j].start < ns)
			ns = d->ext[j].start;
		if (d->ext[j].end > ne)
			ne = d->ext[j].end;
		covered += d->ext[j].end - d->ext[j].start;
		j++;
	}
	d->dirty_sectors += (ne - ns) - covered;
	if (j == i) {
		memmove(&d->ext[i + 1], &d->ext[i], (d->next - i) * sizeof(*d->ext));
		d->next++;
	} else if (j > i + 1) {
		memmove(&d->ext[i + 1], &d->ext[j], (d->next - j) * sizeof(*d->ext));
		d->next -= j - i - 1;
	}
	d->ext[i].start = ns;
	d->ext[i].end = ne;
}

/* Destages the next dirty range in C-LOOK order from the head at time t;
 * returns when it is on the media. */
static uint64_t destage_one(struct wc_disk *d, uint64_t t, struct wc_disk_cost *c)
{
	uint64_t head = d->head_valid ? d->head_sector : 0, sk = 0, rt = 0, tx = 0;
	size_t i = ext_find(d, head + 1);
	struct extent e;

	/* ext_find gives the first range ending after the head; it may start
	 * below it (the head is inside it): take it from its start anyway. */
	if (i >= d->next)
		i = 0;
	e = d->ext[i];
	memmove(&d->ext[i], &d->ext[i + 1], (d->next - i - 1) * sizeof(*d->ext));
	d->next--;
	d->dirty_sectors -= e.end - e.start;
	t = media(d, t, e.start, e.end - e.start, false, &sk, &rt, &tx);
	if (c)
		c->destage_bytes += (e.end - e.start) * SECTOR;
	return t;
}

/* ------------------------------------------------------------ serving */

static bool read_cached(const struct wc_disk *d, uint64_t s, uint64_t e,
			uint64_t t)
{
	size_t i = ext_find(d, s + 1);

	if (i < d->next && d->ext[i].start <= s && d->ext[i].end >= e)
		return true;
	return d->ra_valid && s >= d->ra_lo && e <= ra_top(d, t);
}

void wc_disk_serve(struct wc_disk *d, enum wc_disk_op op, uint64_t offset,
		   uint64_t bytes, bool fua, uint64_t arrival_ns,
		   struct wc_disk_cost *c)
{
	uint64_t s = offset / SECTOR, e, t, bg, iface;

	e = (offset + bytes + SECTOR - 1) / SECTOR;
	if (e > d->sectors)
		e = d->sectors;
	if (s > e)
		s = e;
	memset(c, 0, sizeof(*c));
	c->seq = ++d->seq;
	c->op = op;
	c->sector = op == WC_DISK_FLUSH ? 0 : s;
	c->bytes = op == WC_DISK_FLUSH ? 0 : bytes;
	c->fua = fua;
	c->arrival_ns = arrival_ns;
	c->start_ns = arrival_ns > d->busy_until ? arrival_ns : d->busy_until;

	/* idle destage since the last request, in the background until the
	 * arrival; a range still being written delays this request */
	t = c->start_ns;
	if (d->dirty_sectors > 0 && d->p.idle_destage_ms > 0 && d->seq > 1) {
		bg = d->busy_until + ns_of(d->p.idle_destage_ms * 1e6);
		while (d->dirty_sectors > 0 && bg < c->start_ns)
			bg = destage_one(d, bg, NULL);
		if (bg > d->busy_until + ns_of(d->p.idle_destage_ms * 1e6)) {
			uint64_t from = d->busy_until + ns_of(d->p.idle_destage_ms * 1e6);

			c->background_ns = (bg < c->start_ns ? bg : c->start_ns) - from;
			if (bg > c->start_ns) {
				c->destage_ns += bg - c->start_ns;
				t = bg;
			}
		}
	}
	c->overhead_ns = ns_of(d->p.overhead_us * 1000);
	t += c->overhead_ns;
	iface = ns_of((double)bytes / (d->p.interface_mbs * 1e6) * NS);

	switch (op) {
	case WC_DISK_FLUSH:
		if (d->p.plp || d->dirty_sectors == 0) {
			/* nothing to write: the command itself */
			c->overhead_ns += ns_of(d->p.flush_us * 1000);
			t += ns_of(d->p.flush_us * 1000);
			break;
		}
		{
			uint64_t t0 = t;

			while (d->dirty_sectors > 0)
				t = destage_one(d, t, c);
			c->destage_ns += t - t0;
		}
		break;
	case WC_DISK_WRITE:
		if (d->cache_bytes > 0 && !fua && (e - s) * SECTOR <= d->cache_bytes) {
			uint64_t t0 = t;

			while (d->next > 0 &&
			       ((d->dirty_sectors + ext_new(d, s, e)) * SECTOR > d->cache_bytes ||
				d->next >= WC_DISK_MAX_EXTENTS))
				t = destage_one(d, t, c);
			c->destage_ns += t - t0;
			ext_add(d, s, e);
			c->cache_hit = true;
			c->transfer_ns = iface;
			t += iface;
		} else {
			t = media(d, t, s, e - s, false, &c->seek_ns,
				  &c->rotation_ns, &c->transfer_ns);
		}
		break;
	case WC_DISK_READ:
		if (read_cached(d, s, e, t)) {
			c->cache_hit = true;
			c->transfer_ns = iface;
			t += iface;
		} else {
			t = media(d, t, s, e - s, true, &c->seek_ns,
				  &c->rotation_ns, &c->transfer_ns);
		}
		break;
	case WC_DISK_DISCARD:
		break;
	}
	c->position_ns = c->seek_ns + c->rotation_ns;
	c->end_ns = t;
	c->dirty_bytes = d->dirty_sectors * SECTOR;
	d->busy_until = t;
}

/* ------------------------------------------------------------ ledger */

int wc_disk_ledger_header(FILE *fp)
{
	return fprintf(fp, "seq\top\tsector\tbytes\tfua\tcache_hit\tarrival_ns\t"
		       "start_ns\tend_ns\toverhead_ns\tdestage_ns\tposition_ns\t"
		       "seek_ns\trotation_ns\ttransfer_ns\tdestage_bytes\t"
		       "background_ns\tdirty_bytes\tlate_ns\n");
}

int wc_disk_ledger_row(FILE *fp, const struct wc_disk_cost *c)
{
	static const char ops[] = { 'R', 'W', 'F', 'D' };

	return fprintf(fp, "%" PRIu64 "\t%c\t%" PRIu64 "\t%" PRIu64 "\t%d\t%d\t"
		       "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t"
		       "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t"
		       "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t"
		       "%" PRIu64 "\n",
		       c->seq, ops[c->op], c->sector, c->bytes, c->fua,
		       c->cache_hit, c->arrival_ns, c->start_ns,
		       c->end_ns + c->late_ns, c->overhead_ns, c->destage_ns,
		       c->position_ns, c->seek_ns, c->rotation_ns, c->transfer_ns,
		       c->destage_bytes, c->background_ns, c->dirty_bytes,
		       c->late_ns);
}
