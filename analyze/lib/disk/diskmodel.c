/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diskmodel.c - see diskmodel.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/diskmodel.h"
#include "input/source.h"

#define NS 1e9
#define SECTOR 512u
#define LINE_MAX_LEN 256
#define NONE UINT32_MAX
/* Seek times are remembered by distance up to this many cylinders (4 MiB
 * of memo at most; a disk with more computes each). */
#define SEEK_MEMO_MAX (1u << 20)

struct extent {
	uint64_t start, end;		/* sectors, [start, end) */
};

/* A command submitted and not yet picked; where it lies on the platter is
 * worked out once, at submission, for the scheduler's every look at it. */
struct pend {
	struct wc_disk_req r;
	uint64_t seq;
	uint64_t s, e;			/* sectors, [s, e) */
	uint64_t cyl;
	double angle;			/* of its first sector, in turns */
	uint32_t next;			/* the next in arrival order, or free */
};

/* One read-ahead segment: [lo, hi) read and, while the head keeps
 * reading after it, its growth from time on at rate bytes/s. */
struct ra_seg {
	bool valid, growing;
	uint64_t lo, hi, time;
	double rate;
	uint64_t used;			/* the last time it served: LRU */
};

struct wc_disk {
	struct wc_disk_params p;
	uint64_t sectors;
	double rev_ns;
	double tracks;			/* tracks the image spans */
	double seek_a, seek_b;		/* ns per sqrt(cylinder), per cylinder */
	/* seek_memo[k]: 1 + the seek over k cylinders; 0: not yet worked
	 * out (the scheduler prices 32 candidates a pick, each a distance
	 * away; the curve's square root need not be taken again) */
	uint32_t *seek_memo;
	uint64_t overhead_ns, stream_ns, age_ns;	/* of p, in ns */
	double wseek_a, wseek_b;	/* the write curve's (write settle) */
	uint64_t read_ns, write_ns;			/* ssd positioning */
	uint64_t cache_bytes;
	uint64_t seq;
	uint64_t busy_until;		/* end of the last command or destage */
	uint64_t last_end;		/* end of the last command */
	bool idle_busy;			/* busy_until is an idle destage's */
	uint64_t idle_ns;		/* idle destage since the last command */
	/* the head: where the last media access ended, and when */
	uint64_t head_sector;
	uint64_t head_cyl;		/* of head_sector; 0 while !head_valid */
	uint64_t head_time;
	bool head_valid;
	/* read-ahead: readahead_segments segments, at most one growing
	 * (the one the head reads into); ra_clock orders their use */
	struct ra_seg ra[WC_DISK_MAX_RA_SEGMENTS];
	uint64_t ra_clock;
	/* the end of the last destage range (ssd destage_parallel: the
	 * next range written back to back pays no program latency) */
	uint64_t destage_end;
	bool destage_end_valid;
	/* the write cache: sorted, disjoint, non-adjacent dirty ranges */
	struct extent *ext;
	size_t next;
	uint64_t dirty_sectors;
	/* commands waiting: a list in arrival order from pend_head (the
	 * pick takes one from anywhere in the device's queue), the unused
	 * slots on a list from pend_free */
	struct pend *pend;
	size_t npend;
	uint32_t pend_head, pend_tail, pend_free;
	uint64_t last_arrival;
	/* destage rows since the last command was picked */
	struct wc_disk_cost *rows;
	size_t nrows;
	bool rows_stale;		/* a command was picked since: clear */
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
	U(queue_depth, 1, WC_DISK_MAX_QUEUE),
	D(queue_age_ms, 0, 1e6),
	B(flush_queued),
	U(destage_window, 1, WC_DISK_MAX_DESTAGE_WINDOW),
	B(interface_overlap),
	D(write_settle_ms, 0, 1000),
	D(write_settle_track_ms, 0, 1000),
	U(readahead_segments, 1, WC_DISK_MAX_RA_SEGMENTS),
	B(idle_destage),
	B(destage_parallel),
	U(capacity_gb, 0, WC_DISK_MAX_CAPACITY_GB),
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
	p->queue_depth = 32;
	p->queue_age_ms = 500;
	/* pure C-LOOK, what a parameter file written before destage_window
	 * existed recorded; capture/disks/hdd7200 says 32 */
	p->destage_window = 1;
	/* the model as it was before these existed, for the same reason:
	 * a capture's info/disk.conf without them replays as recorded */
	p->interface_overlap = false;
	p->write_settle_ms = 0;
	p->write_settle_track_ms = 0;
	p->readahead_segments = 1;
	p->idle_destage = true;
	p->destage_parallel = false;
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
			/* IDEMA's LBA count is defined from 50 GB up */
			if (d->off == offsetof(struct wc_disk_params, capacity_gb) &&
			    v > 0 && v < 50)
				return wc_err_set(err, WC_ERR_USAGE, NULL, NULL,
						  WC_NO_OFFSET,
						  "disk parameter %s: '%.64s' is "
						  "not 0 (none) nor 50 to %u GB",
						  key, value, WC_DISK_MAX_CAPACITY_GB);
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

/* Opens PATH as every file from elsewhere is opened
 * (wc_source_open_regular(): without waiting, as a FIFO would for a
 * writer for ever; a regular file only, as /dev/zero never ends; OFLAGS
 * may add O_NOFOLLOW) and takes only one no longer than a parameter file
 * can be.  The stream, or NULL with err filled (errno ENOENT when PATH
 * does not exist). */
static FILE *params_open(const char *path, int oflags, struct wc_err *err)
{
	off_t size;
	FILE *fp;
	int fd;

	fd = wc_source_open_regular(path, &size, oflags, err);
	if (fd < 0)
		return NULL;
	if (size > (off_t)WC_DISK_PARAMS_MAX_BYTES) {
		wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
			   "larger than %u bytes: no disk's parameters",
			   WC_DISK_PARAMS_MAX_BYTES);
		goto close_fd;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET, "%s",
			   strerror(errno));
		goto close_fd;
	}
	return fp;
close_fd:
	close(fd);
	errno = 0;
	return NULL;
}

static int params_load(struct wc_disk_params *p, const char *path,
		       int oflags, struct wc_err *err)
{
	FILE *fp;
	int rc;

	fp = params_open(path, oflags, err);
	if (!fp)
		return -1;
	rc = wc_disk_params_read(p, fp, path, err);
	fclose(fp);
	return rc;
}

int wc_disk_params_load(struct wc_disk_params *p, const char *path,
			struct wc_err *err)
{
	return params_load(p, path, 0, err);
}

int wc_disk_name_check(const char *name, struct wc_err *err)
{
	size_t n = strlen(name), i;

	if (n == 0 || n > WC_DISK_NAME_MAX)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, WC_NO_OFFSET,
				  "disk name '%.64s': %s%u bytes", name,
				  n ? "longer than " : "empty, not 1 to ",
				  WC_DISK_NAME_MAX);
	if (name[0] == '.' || name[0] == '-' || strstr(name, ".."))
		goto bad;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) &&
		    !strchr("._+-", name[i]))
			goto bad;
	return 0;
bad:
	return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, WC_NO_OFFSET,
			  "disk name '%.64s': not a name (letters, digits, "
			  "'.', '_', '+', '-', not first '.' or '-'): refused, "
			  "never opened as a path", name);
}

int wc_disk_params_find(struct wc_disk_params *p, const char *name,
			const char *const *dirs, size_t ndirs,
			struct wc_err *err)
{
	struct wc_err e2;
	char path[4096];
	size_t i;

	if (wc_disk_name_check(name, err) < 0)
		return -1;
	for (i = 0; i < ndirs; i++) {
		FILE *fp;
		int rc;

		if (!dirs[i] || !*dirs[i])
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dirs[i],
				     name) >= sizeof(path))
			continue;
		/* the installed disks are plain files: a link there is
		 * followed by no one */
		wc_err_clear(&e2);
		fp = params_open(path, O_NOFOLLOW, &e2);
		if (!fp && errno == ENOENT)
			continue;
		if (!fp) {
			if (err && err->kind == WC_ERR_NONE)
				*err = e2;
			return -1;
		}
		rc = wc_disk_params_read(p, fp, path, err);
		fclose(fp);
		return rc;
	}
	return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
			  "no model disk '%s'", name);
}

int wc_disk_params_read(struct wc_disk_params *p, FILE *fp, const char *path,
			struct wc_err *err)
{
	char line[LINE_MAX_LEN], *k, *v, *eq, *hash;
	uint64_t off = 0, len;
	bool end = false;
	int rc = -1, c;

	/* Byte by byte, not fgets(): a NUL would cut the line silently (and
	 * a stream of them would read for ever as empty lines). */
	while (!end) {
		len = 0;
		for (;;) {
			c = getc(fp);
			if (c == EOF) {
				end = true;
				break;
			}
			if (off + len >= WC_DISK_PARAMS_MAX_BYTES) {
				wc_err_set(err, WC_ERR_INPUT, path, NULL,
					   off + len, "longer than %u bytes: "
					   "no disk's parameters",
					   WC_DISK_PARAMS_MAX_BYTES);
				goto out;
			}
			if (c == '\0') {
				wc_err_set(err, WC_ERR_INPUT, path, NULL,
					   off + len, "a NUL byte in a "
					   "parameter line");
				goto out;
			}
			if (c == '\n')
				break;
			if (len == sizeof(line) - 2) {
				wc_err_set(err, WC_ERR_INPUT, path, NULL, off,
					   "line longer than %d bytes",
					   LINE_MAX_LEN - 2);
				goto out;
			}
			line[len++] = (char)c;
		}
		line[len] = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		k = trim(line);
		if (*k != '\0') {
			eq = strchr(k, '=');
			if (!eq) {
				wc_err_set(err, WC_ERR_INPUT, path, NULL, off,
					   "no '=' in a parameter line");
				goto out;
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
				goto out;
			}
		}
		off += len + !end;
	}
	if (ferror(fp)) {
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, off, "read error");
		goto out;
	}
	rc = 0;
out:
	return rc;
}

/* ------------------------------------------------------------ placement */

uint64_t wc_disk_capacity_bytes(const struct wc_disk_params *p)
{
	/* IDEMA LBA1-02: the LBA count of a drive of capacity_gb */
	if (p->capacity_gb < 50 || p->capacity_gb > WC_DISK_MAX_CAPACITY_GB)
		return 0;
	return (97696368ull + 1953504ull * (p->capacity_gb - 50)) * SECTOR;
}

int wc_disk_partition_offsets(const struct wc_disk_params *p, unsigned n,
			      uint64_t *offsets, struct wc_err *err)
{
	uint64_t cap = wc_disk_capacity_bytes(p), part;

	if (n == 0 || n > WC_DISK_MAX_REGIONS)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "%u images: a disk holds 1 to %u", n,
				  WC_DISK_MAX_REGIONS);
	if (cap == 0)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "the disk gives no capacity_gb: no partitions "
				  "to place images in");
	part = cap / n / WC_DISK_PARTITION_ALIGN * WC_DISK_PARTITION_ALIGN;
	for (unsigned r = 0; r < n; r++)
		offsets[r] = r == 0 ? WC_DISK_PARTITION_ALIGN : r * part;
	return 0;
}

int wc_disk_place(struct wc_disk_placement *pl, const struct wc_disk_params *p,
		  const uint64_t *bytes, unsigned n, const uint64_t *offsets,
		  struct wc_err *err)
{
	uint64_t cap = offsets ? wc_disk_capacity_bytes(p) : 0, end = 0;
	unsigned r;

	memset(pl, 0, sizeof(*pl));
	if (n == 0 || n > WC_DISK_MAX_REGIONS)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "%u images: a disk holds 1 to %u", n,
				  WC_DISK_MAX_REGIONS);
	if (offsets && cap == 0)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "an image's offset on a disk that gives no "
				  "capacity_gb: its images are the platter");
	for (r = 0; r < n; r++) {
		uint64_t off = offsets ? offsets[r] : end;

		if (bytes[r] == 0 || bytes[r] % SECTOR != 0)
			goto bad_size;
		if (off % SECTOR != 0)
			goto bad_offset;
		if (off < end) {
			wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				   "image %u at offset %" PRIu64 " overlaps "
				   "image %u or lies before it", r, off, r - 1);
			goto fail;
		}
		if (bytes[r] > UINT64_MAX - off ||
		    (offsets && off + bytes[r] > cap)) {
			wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				   "image %u (%" PRIu64 " bytes at offset %"
				   PRIu64 ") ends past the disk's %" PRIu64
				   " bytes", r, bytes[r], off, cap);
			goto fail;
		}
		pl->offset[r] = off;
		pl->bytes[r] = bytes[r];
		end = off + bytes[r];
	}
	pl->n = n;
	pl->capacity_bytes = offsets ? cap : end;
	return 0;
bad_size:
	wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
		   "image %u: %" PRIu64 " bytes is not a positive multiple "
		   "of 512", r, bytes[r]);
	goto fail;
bad_offset:
	wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
		   "image %u: offset %" PRIu64 " is not a multiple of 512", r,
		   offsets[r]);
fail:
	memset(pl, 0, sizeof(*pl));
	return -1;
}

/* ------------------------------------------------------------ geometry */

static uint64_t ns_of(double x);

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
	for (int w = 0; w < 2 && p->model == WC_DISK_HDD; w++) {
		double wt = t + (w ? p->write_settle_track_ms : 0);
		double wa = a + (w ? p->write_settle_ms : 0);
		double wf = f + (w ? p->write_settle_ms : 0);

		if (wt > wa || wa > wf || -10 * wt + 15 * wa - 5 * wf < -1e-9 ||
		    7 * wt - 15 * wa + 8 * wf < -1e-9)
			return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
					  "%sseek times %g/%g/%g ms: average must lie in [%g, %g] ms for a rising seek curve",
					  w ? "write " : "", wt, wa, wf,
					  (10 * wt + 5 * wf) / 15, (7 * wt + 8 * wf) / 15);
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		goto no_memory;
	d->ext = calloc(WC_DISK_MAX_EXTENTS, sizeof(*d->ext));
	d->pend = calloc(WC_DISK_MAX_PENDING, sizeof(*d->pend));
	d->rows = calloc(WC_DISK_MAX_EXTENTS + 1, sizeof(*d->rows));
	if (p->model == WC_DISK_HDD && p->cylinders <= SEEK_MEMO_MAX)
		d->seek_memo = calloc(p->cylinders, sizeof(*d->seek_memo));
	if (!d->ext || !d->pend || !d->rows ||
	    (p->model == WC_DISK_HDD && p->cylinders <= SEEK_MEMO_MAX &&
	     !d->seek_memo))
		goto free_disk;
	for (uint32_t i = 0; i < WC_DISK_MAX_PENDING; i++)
		d->pend[i].next = i + 1 < WC_DISK_MAX_PENDING ? i + 1 : NONE;
	d->pend_head = d->pend_tail = NONE;
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
	/* writes: the same curve through the write figures */
	t += p->write_settle_track_ms;
	a += p->write_settle_ms;
	f += p->write_settle_ms;
	d->wseek_a = (-10 * t + 15 * a - 5 * f) / (3 * sqrt(n)) * 1e6;
	d->wseek_b = (7 * t - 15 * a + 8 * f) / (3 * n) * 1e6;
	if (d->wseek_a < 0)
		d->wseek_a = 0;
	if (d->wseek_b < 0)
		d->wseek_b = 0;
	d->cache_bytes = p->write_cache ? p->cache_kib * 1024 : 0;
	d->overhead_ns = ns_of(p->overhead_us * 1000);
	d->stream_ns = (uint64_t)(p->stream_window_us * 1000);
	d->age_ns = ns_of(p->queue_age_ms * 1e6);
	d->read_ns = ns_of(p->read_us * 1000);
	d->write_ns = ns_of(p->write_us * 1000);
	*dp = d;
	return 0;
free_disk:
	wc_disk_free(d);
no_memory:
	return wc_err_oom(err, NULL, NULL);
}

void wc_disk_free(struct wc_disk *d)
{
	if (!d)
		return;
	free(d->ext);
	free(d->pend);
	free(d->rows);
	free(d->seek_memo);
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

uint64_t wc_disk_seek_write_ns(const struct wc_disk *d, uint64_t distance)
{
	double k;

	if (distance == 0 || d->p.model != WC_DISK_HDD)
		return 0;
	k = (double)(distance - 1);
	return (uint64_t)llround((d->p.seek_track_ms + d->p.write_settle_track_ms) * 1e6 +
				 d->wseek_a * sqrt(k) + d->wseek_b * k);
}

uint64_t wc_disk_rev_ns(const struct wc_disk *d)
{
	return (uint64_t)llround(d->rev_ns);
}

uint64_t wc_disk_dirty_bytes(const struct wc_disk *d)
{
	return d->dirty_sectors * SECTOR;
}

static uint64_t ns_of(double x)
{
	return x <= 0 ? 0 : (uint64_t)llround(x);
}

/* A read-ahead segment's top as it stands at time t. */
static uint64_t ra_top(const struct wc_disk *d, const struct ra_seg *g,
		       uint64_t t)
{
	double grown;
	uint64_t top, cap = g->lo + d->p.readahead_kib * 2;

	if (!g->growing || t <= g->time)
		return g->hi;
	grown = (double)(t - g->time) / NS * g->rate / SECTOR;
	top = g->hi + (uint64_t)grown;
	if (top > cap && cap > g->hi)
		top = cap;
	else if (cap <= g->hi)
		top = g->hi;
	return top > d->sectors ? d->sectors : top;
}

/* The segment holding [s, e) at time t, or NULL. */
static const struct ra_seg *ra_holding(const struct wc_disk *d, uint64_t s,
				       uint64_t e, uint64_t t)
{
	for (uint64_t k = 0; k < d->p.readahead_segments; k++) {
		const struct ra_seg *g = &d->ra[k];

		if (g->valid && s >= g->lo && e <= ra_top(d, g, t))
			return g;
	}
	return NULL;
}

/* The segment a media read of [s, ...) reads ahead into: the one it
 * continues (its stream), else an unused one, else the least recently
 * used (a drive's segmented buffer keeps one stream a segment). */
static struct ra_seg *ra_victim(struct wc_disk *d, uint64_t s)
{
	struct ra_seg *pick = &d->ra[0];

	for (uint64_t k = 0; k < d->p.readahead_segments; k++) {
		struct ra_seg *g = &d->ra[k];

		if (g->valid && s >= g->lo && s <= g->hi)
			return g;
		if (!g->valid) {
			if (pick->valid)
				pick = g;
		} else if (pick->valid && g->used < pick->used) {
			pick = g;
		}
	}
	return pick;
}

/* Where a sector lies: its cylinder and its angle, in turns. */
static void place(const struct wc_disk *d, uint64_t sector, uint64_t *cyl,
		  double *angle)
{
	double x = stroke_pos(d, sector) * d->tracks;

	*cyl = wc_disk_cylinder(d, sector);
	*angle = x - floor(x);
}

/* wc_disk_seek_ns(), remembered. */
static uint64_t seek_of(struct wc_disk *d, uint64_t distance)
{
	uint64_t ns;

	if (!d->seek_memo || distance >= d->p.cylinders)
		return wc_disk_seek_ns(d, distance);
	if (d->seek_memo[distance] != 0)
		return d->seek_memo[distance] - 1;
	ns = wc_disk_seek_ns(d, distance);
	if (ns < UINT32_MAX)	/* at most seek_full_ms: always */
		d->seek_memo[distance] = (uint32_t)(ns + 1);
	return ns;
}

/* Cylinders between the head and cyl. */
static uint64_t head_distance(const struct wc_disk *d, uint64_t cyl)
{
	return cyl > d->head_cyl ? cyl - d->head_cyl : d->head_cyl - cyl;
}

/* A media access to sector at time t needs no positioning: the head is
 * still streaming from where the last one ended. */
static bool streaming(const struct wc_disk *d, uint64_t sector, uint64_t t)
{
	return d->head_valid && sector == d->head_sector &&
		t - d->head_time <= d->stream_ns;
}

/* fmod() is exact (its remainder x - n rev_ns, n the whole quotient,
 * is always a double), so any way of finding that remainder gives the
 * same bits; glibc's fmod() takes a step per bit of the quotient, a few
 * hundred instructions at a trace's times.  Here: n = floor(x / rev_ns)
 * is the whole quotient or one above it (the quotient is far below 2^53
 * and rounded once, and a whole number is never rounded past), and
 * fma() forms x - n rev_ns with one rounding, none when n is right; a
 * negative remainder says n was one above. */
double wc_disk_angle_at(const struct wc_disk *d, uint64_t t)
{
	double x = (double)t, n = floor(x / d->rev_ns);
	double r = fma(-n, d->rev_ns, x);

	if (r < 0)
		r = fma(-(n - 1), d->rev_ns, x);
	else if (r >= d->rev_ns)
		r = fma(-(n + 1), d->rev_ns, x);
	return r / d->rev_ns;
}

/* The wait at time t (the seek done) until angle comes under the head. */
static uint64_t rotation(const struct wc_disk *d, uint64_t t, double angle)
{
	double head = wc_disk_angle_at(d, t);

	return ns_of((angle - head - floor(angle - head)) * d->rev_ns);
}

/* Positioning for a media access at time t to sector (at cyl, angle): no
 * I/O; what media() pays.  The scheduler prices the same way in
 * position_floor() and position_of(). */
static void locate(struct wc_disk *d, uint64_t t, uint64_t sector,
		   uint64_t cyl, double angle, bool is_read, bool destage,
		   uint64_t *seek, uint64_t *rot)
{
	uint64_t dist;

	*seek = *rot = 0;
	if (streaming(d, sector, t))
		return;
	if (d->p.model != WC_DISK_HDD) {
		/* an ssd programs a cache's ranges back to back over its
		 * channels: one latency for the run, not one a range */
		if (destage && d->p.destage_parallel && d->destage_end_valid &&
		    d->destage_end == t)
			return;
		*seek = is_read ? d->read_ns : d->write_ns;
		return;
	}
	dist = head_distance(d, cyl);
	/* a write must settle on the track more exactly than a read */
	*seek = is_read ? seek_of(d, dist) : wc_disk_seek_write_ns(d, dist);
	*rot = rotation(d, t + *seek, angle);
}

/* One media access at time t of [sector, sector + n): adds its parts to
 * *seek, *rot, *xfer and returns when it ends. */
static uint64_t media(struct wc_disk *d, uint64_t t, uint64_t sector,
		      uint64_t n, bool is_read, bool destage, uint64_t *seek,
		      uint64_t *rot, uint64_t *xfer)
{
	uint64_t sk, rt, tx, cyl;
	double rate = wc_disk_media_rate(d, sector), angle;
	struct ra_seg *g;

	/* any media access ends the read-ahead's growth */
	for (uint64_t k = 0; k < d->p.readahead_segments; k++) {
		g = &d->ra[k];
		if (g->valid && g->growing) {
			g->hi = ra_top(d, g, t);
			g->growing = false;
		}
	}
	place(d, sector, &cyl, &angle);
	locate(d, t, sector, cyl, angle, is_read, destage, &sk, &rt);
	tx = ns_of((double)n * SECTOR / rate * NS);
	*seek += sk;
	*rot += rt;
	*xfer += tx;
	t += sk + rt + tx;
	d->head_sector = sector + n;
	d->head_cyl = wc_disk_cylinder(d, d->head_sector);
	d->head_time = t;
	d->head_valid = true;
	if (is_read && d->p.readahead_kib > 0) {
		g = ra_victim(d, sector);
		g->valid = true;
		g->growing = true;
		g->lo = sector;
		g->hi = sector + n;
		g->time = t;
		g->rate = rate;
		g->used = ++d->ra_clock;
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

/* The dirty range destage_one() writes next at time t: of the next
 * destage_window ranges in C-LOOK order from the head, the one with the
 * shortest positioning, the first among equals. */
static size_t destage_pick(struct wc_disk *d, uint64_t t)
{
	uint64_t head = d->head_valid ? d->head_sector : 0, best = UINT64_MAX;
	uint64_t n = d->p.destage_window < d->next ? d->p.destage_window : d->next;
	size_t i = ext_find(d, head + 1), pick;

	/* ext_find gives the first range ending after the head; it may start
	 * below it (the head is inside it): take it from its start anyway. */
	if (i >= d->next)
		i = 0;
	pick = i;
	if (d->p.model != WC_DISK_HDD)
		return pick;	/* every range costs the same positioning */
	for (uint64_t k = 0; k < n && best > 0; k++, i = i + 1 < d->next ? i + 1 : 0) {
		uint64_t cyl, sk, rt;
		double angle;

		place(d, d->ext[i].start, &cyl, &angle);
		locate(d, t, d->ext[i].start, cyl, angle, false, true, &sk,
		       &rt);
		if (sk + rt < best) {
			best = sk + rt;
			pick = i;
		}
	}
	return pick;
}

/* Destages the range destage_pick() chooses at time t, as a row of its
 * own caused by command cause (0: an idle period); returns when it is on
 * the media. */
static uint64_t destage_one(struct wc_disk *d, uint64_t t, uint64_t cause)
{
	size_t i = destage_pick(d, t);
	struct wc_disk_cost row;
	struct extent e;

	e = d->ext[i];
	memmove(&d->ext[i], &d->ext[i + 1], (d->next - i - 1) * sizeof(*d->ext));
	d->next--;
	d->dirty_sectors -= e.end - e.start;
	memset(&row, 0, sizeof(row));
	row.op = WC_DISK_DESTAGE;
	row.sector = e.start;
	row.bytes = (e.end - e.start) * SECTOR;
	row.arrival_ns = row.start_ns = t;
	t = media(d, t, e.start, e.end - e.start, false, true, &row.seek_ns,
		  &row.rotation_ns, &row.transfer_ns);
	d->destage_end = t;
	d->destage_end_valid = true;
	row.position_ns = row.seek_ns + row.rotation_ns;
	row.end_ns = t;
	row.dirty_bytes = d->dirty_sectors * SECTOR;
	row.cause_seq = cause;
	/* each destage removes a range, and ranges are added only after a
	 * command's destages: the list never holds more than there were */
	if (d->nrows <= WC_DISK_MAX_EXTENTS)
		d->rows[d->nrows++] = row;
	return t;
}

/* ------------------------------------------------------------ serving */

static bool read_cached(const struct wc_disk *d, uint64_t s, uint64_t e,
			uint64_t t)
{
	size_t i = ext_find(d, s + 1);

	if (i < d->next && d->ext[i].start <= s && d->ext[i].end >= e)
		return true;
	return ra_holding(d, s, e, t) != NULL;
}

/* A write the cache takes (it may have to make room first). */
static bool write_cached(const struct wc_disk *d, const struct pend *q)
{
	return q->r.op == WC_DISK_WRITE && d->cache_bytes > 0 && !q->r.fua &&
		(q->e - q->s) * SECTOR <= d->cache_bytes;
}

static void rows_fresh(struct wc_disk *d)
{
	if (d->rows_stale) {
		d->nrows = 0;
		d->rows_stale = false;
	}
}

/* Serves command q starting at t. */
static void serve_one(struct wc_disk *d, const struct pend *q, uint64_t t,
		      struct wc_disk_cost *c)
{
	uint64_t s = q->s, e = q->e, iface, t0;
	enum wc_disk_op op = q->r.op;

	memset(c, 0, sizeof(*c));
	c->seq = q->seq;
	c->op = op;
	c->sector = op == WC_DISK_FLUSH ? 0 : s;
	c->bytes = op == WC_DISK_FLUSH ? 0 : q->r.bytes;
	c->fua = q->r.fua;
	c->arrival_ns = q->r.arrival_ns;
	c->start_ns = t;
	c->tag = q->r.tag;
	c->background_ns = d->idle_ns;
	d->idle_ns = 0;
	c->overhead_ns = d->overhead_ns;
	t += c->overhead_ns;
	iface = ns_of((double)q->r.bytes / (d->p.interface_mbs * 1e6) * NS);

	switch (op) {
	case WC_DISK_FLUSH:
		if (d->p.plp || d->dirty_sectors == 0) {
			/* nothing to write: the command itself */
			c->overhead_ns += ns_of(d->p.flush_us * 1000);
			t += ns_of(d->p.flush_us * 1000);
			break;
		}
		t0 = t;
		while (d->dirty_sectors > 0)
			t = destage_one(d, t, c->seq);
		c->destage_ns = t - t0;
		break;
	case WC_DISK_WRITE:
		if (write_cached(d, q)) {
			t0 = t;
			while (d->next > 0 &&
			       ((d->dirty_sectors + ext_new(d, s, e)) * SECTOR > d->cache_bytes ||
				d->next >= WC_DISK_MAX_EXTENTS))
				t = destage_one(d, t, c->seq);
			c->destage_ns = t - t0;
			ext_add(d, s, e);
			c->cache_hit = true;
			/* the drive takes the data into its buffer while it
			 * destages: the write ends when both are done */
			if (!d->p.interface_overlap)
				c->transfer_ns = iface;
			else if (t0 + iface > t)
				c->transfer_ns = t0 + iface - t;
			t += c->transfer_ns;
		} else {
			t = media(d, t, s, e - s, false, false, &c->seek_ns,
				  &c->rotation_ns, &c->transfer_ns);
		}
		break;
	case WC_DISK_READ:
		if (read_cached(d, s, e, t)) {
			struct ra_seg *g = (struct ra_seg *)ra_holding(d, s, e, t);

			if (g)
				g->used = ++d->ra_clock;
			c->cache_hit = true;
			c->transfer_ns = iface;
			t += iface;
		} else {
			t = media(d, t, s, e - s, true, false, &c->seek_ns,
				  &c->rotation_ns, &c->transfer_ns);
		}
		break;
	case WC_DISK_DISCARD:
	case WC_DISK_DESTAGE:
		break;
	}
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[i].cause_seq == c->seq)
			c->destage_bytes += d->rows[i].bytes;
	c->position_ns = c->seek_ns + c->rotation_ns;
	c->end_ns = t;
	c->dirty_bytes = d->dirty_sectors * SECTOR;
	d->last_end = t;
	/* a buffer-only command may end inside an idle destage range */
	if (t >= d->busy_until) {
		d->busy_until = t;
		d->idle_busy = false;
	}
}

/* Command q needs only the buffer, not the head, if it started at its
 * arrival: a write the cache takes without making room, a read the cache
 * or a read-ahead segment holds.  With interface_overlap such a command
 * does not wait for an idle destage range in progress: the drive takes
 * the host's data into its buffer while the head writes. */
static bool buffer_only(const struct wc_disk *d, const struct pend *q)
{
	if (!d->p.interface_overlap)
		return false;
	switch (q->r.op) {
	case WC_DISK_WRITE:
		return write_cached(d, q) && d->next < WC_DISK_MAX_EXTENTS &&
			(d->dirty_sectors + ext_new(d, q->s, q->e)) * SECTOR <=
			d->cache_bytes;
	case WC_DISK_READ:
		return read_cached(d, q->s, q->e, q->r.arrival_ns);
	default:
		return false;
	}
}

/* What the scheduler orders by: the positioning command q would pay
 * starting at t.  A cache hit, a discard or a queued flush pays none,
 * nor a media access while the head streams; an SSD's is fixed.  Those
 * are the whole of it (*whole); for a media access of an hdd the seek
 * is returned, and position_of() adds the rotation after it. */
static uint64_t position_floor(struct wc_disk *d, const struct pend *q,
			       uint64_t t, bool *whole)
{
	uint64_t dist;

	*whole = true;
	switch (q->r.op) {
	case WC_DISK_READ:
		if (read_cached(d, q->s, q->e, t))
			return 0;
		break;
	case WC_DISK_WRITE:
		if (write_cached(d, q))
			return 0;
		break;
	default:
		return 0;
	}
	if (streaming(d, q->s, t))
		return 0;
	if (d->p.model != WC_DISK_HDD)
		return q->r.op == WC_DISK_READ ? d->read_ns : d->write_ns;
	*whole = false;
	dist = head_distance(d, q->cyl);
	return q->r.op == WC_DISK_WRITE ? wc_disk_seek_write_ns(d, dist) :
		seek_of(d, dist);
}

static uint64_t position_of(const struct wc_disk *d, const struct pend *q,
			    uint64_t t, uint64_t floor_ns, bool whole)
{
	return whole ? floor_ns : floor_ns + rotation(d, t + floor_ns, q->angle);
}

/* Shortest positioning first among the first n of cand (in arrival
 * order), the oldest of equals: the index in cand.  Every candidate's
 * floor (its seek) is known cheaply; the rotation after it, which
 * takes most of the work, is added only where the floor leaves a chance
 * to win, against the best so far, starting from the candidate of the
 * lowest floor. */
static size_t pick_sptf(struct wc_disk *d, const uint32_t *cand, size_t n,
			uint64_t t)
{
	uint64_t floor_ns[WC_DISK_MAX_QUEUE], best_pos, pos;
	bool whole[WC_DISK_MAX_QUEUE];
	size_t k, best = 0;

	t += d->overhead_ns;
	for (k = 0; k < n; k++) {
		floor_ns[k] = position_floor(d, &d->pend[cand[k]], t, &whole[k]);
		if (floor_ns[k] < floor_ns[best])
			best = k;
		if (floor_ns[k] == 0 && whole[k]) {
			n = k + 1;	/* none after it can do better */
			break;
		}
	}
	best_pos = position_of(d, &d->pend[cand[best]], t, floor_ns[best],
			       whole[best]);
	for (k = 0; k < n; k++) {
		/* at least floor: no better than the best so far */
		if (k == best || floor_ns[k] > best_pos ||
		    (floor_ns[k] == best_pos && k > best))
			continue;
		pos = position_of(d, &d->pend[cand[k]], t, floor_ns[k], whole[k]);
		if (pos < best_pos || (pos == best_pos && k < best)) {
			best_pos = pos;
			best = k;
		}
	}
	return best;
}

void wc_disk_advance(struct wc_disk *d, uint64_t t)
{
	uint64_t from, idle = ns_of(d->p.idle_destage_ms * 1e6), end;

	rows_fresh(d);
	if (d->npend > 0 || d->dirty_sectors == 0 || !d->p.idle_destage)
		return;
	from = d->last_end + idle;
	if (from < d->busy_until)
		from = d->busy_until;
	while (d->dirty_sectors > 0 && from < t) {
		end = destage_one(d, from, 0);
		d->idle_ns += end - from;
		from = d->busy_until = end;
		d->idle_busy = true;
	}
}

void wc_disk_destage_all(struct wc_disk *d, uint64_t t)
{
	uint64_t from, end;

	wc_disk_advance(d, t);
	if (d->npend > 0)
		return;
	from = t > d->busy_until ? t : d->busy_until;
	while (d->dirty_sectors > 0) {
		end = destage_one(d, from, 0);
		d->idle_ns += end - from;
		from = d->busy_until = end;
		d->idle_busy = true;
	}
	/* reported once: the next command's list starts afresh */
	d->rows_stale = true;
}

int wc_disk_submit(struct wc_disk *d, const struct wc_disk_req *r)
{
	struct pend *q;
	uint64_t e;
	uint32_t i;

	rows_fresh(d);
	if (d->npend >= WC_DISK_MAX_PENDING)
		return -1;
	i = d->pend_free;
	q = &d->pend[i];
	d->pend_free = q->next;
	q->r = *r;
	if (q->r.arrival_ns < d->last_arrival)
		q->r.arrival_ns = d->last_arrival;
	wc_disk_advance(d, q->r.arrival_ns);
	d->last_arrival = q->r.arrival_ns;
	q->s = r->offset / SECTOR;
	e = r->offset + r->bytes < r->offset ? UINT64_MAX :
		(r->offset + r->bytes + SECTOR - 1) / SECTOR;
	q->e = e > d->sectors ? d->sectors : e;
	if (q->s > q->e)
		q->s = q->e;
	if (r->op == WC_DISK_FLUSH)
		q->s = q->e = 0;
	place(d, q->s, &q->cyl, &q->angle);
	q->seq = ++d->seq;
	q->next = NONE;
	if (d->pend_tail == NONE)
		d->pend_head = i;
	else
		d->pend[d->pend_tail].next = i;
	d->pend_tail = i;
	d->npend++;
	return 0;
}

uint64_t wc_disk_next_start(const struct wc_disk *d)
{
	const struct pend *first;

	if (d->npend == 0)
		return UINT64_MAX;
	first = &d->pend[d->pend_head];
	if (first->r.arrival_ns >= d->busy_until)
		return first->r.arrival_ns;
	if (d->idle_busy && buffer_only(d, first))
		return first->r.arrival_ns > d->last_end ?
			first->r.arrival_ns : d->last_end;
	return d->busy_until;
}

bool wc_disk_next(struct wc_disk *d, struct wc_disk_cost *c)
{
	uint32_t cand[WC_DISK_MAX_QUEUE], i, prev;
	size_t inq = 0, n, k, best;
	uint64_t t;
	struct pend q;

	rows_fresh(d);
	if (d->npend == 0)
		return false;
	t = wc_disk_next_start(d);
	/* the device's queue: the first queue_depth that have arrived */
	for (i = d->pend_head; i != NONE && inq < d->p.queue_depth &&
	     d->pend[i].r.arrival_ns <= t; i = d->pend[i].next)
		cand[inq++] = i;
	/* a SATA flush: alone, once all before it are done, and before all
	 * after it */
	n = inq;
	if (!d->p.flush_queued)
		for (k = 0; k < inq; k++)
			if (d->pend[cand[k]].r.op == WC_DISK_FLUSH) {
				n = k == 0 ? 1 : k;
				break;
			}
	if (t < d->busy_until)
		best = 0;	/* the buffer-only command, inside a destage */
	else if (d->p.queue_age_ms > 0 &&
		 t - d->pend[d->pend_head].r.arrival_ns >= d->age_ns)
		best = 0;	/* the age limit: the oldest */
	else
		best = pick_sptf(d, cand, n, t);
	i = cand[best];
	prev = best == 0 ? NONE : cand[best - 1];
	q = d->pend[i];
	if (prev == NONE)
		d->pend_head = q.next;
	else
		d->pend[prev].next = q.next;
	if (d->pend_tail == i)
		d->pend_tail = prev;
	d->pend[i].next = d->pend_free;
	d->pend_free = i;
	d->npend--;
	serve_one(d, &q, t, c);
	c->queued = (uint32_t)inq;
	d->rows_stale = true;
	return true;
}

size_t wc_disk_destaged(const struct wc_disk *d, const struct wc_disk_cost **rows)
{
	*rows = d->rows;
	return d->nrows;
}

size_t wc_disk_pending(const struct wc_disk *d)
{
	return d->npend;
}

void wc_disk_serve(struct wc_disk *d, enum wc_disk_op op, uint64_t offset,
		   uint64_t bytes, bool fua, uint64_t arrival_ns,
		   struct wc_disk_cost *c)
{
	struct wc_disk_req r = {
		.op = op, .offset = offset, .bytes = bytes, .fua = fua,
		.arrival_ns = arrival_ns,
	};

	memset(c, 0, sizeof(*c));
	if (wc_disk_submit(d, &r) == 0)
		wc_disk_next(d, c);
}

/* ------------------------------------------------------------ ledger */

int wc_disk_ledger_header(FILE *fp)
{
	return fprintf(fp, "seq\top\tsector\tbytes\tfua\tcache_hit\tarrival_ns\t"
		       "start_ns\tend_ns\toverhead_ns\tdestage_ns\tposition_ns\t"
		       "seek_ns\trotation_ns\ttransfer_ns\tdestage_bytes\t"
		       "background_ns\tdirty_bytes\tlate_ns\tcause_seq\tqueued\t"
		       "region\n");
}

int wc_disk_ledger_row(FILE *fp, const struct wc_disk_cost *c)
{
	static const char ops[] = { 'R', 'W', 'F', 'D', 'S' };

	return fprintf(fp, "%" PRIu64 "\t%c\t%" PRIu64 "\t%" PRIu64 "\t%d\t%d\t"
		       "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t"
		       "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t"
		       "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t"
		       "%" PRIu64 "\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\n",
		       c->seq, ops[c->op], c->sector, c->bytes, c->fua,
		       c->cache_hit, c->arrival_ns, c->start_ns,
		       c->end_ns + c->late_ns, c->overhead_ns, c->destage_ns,
		       c->position_ns, c->seek_ns, c->rotation_ns, c->transfer_ns,
		       c->destage_bytes, c->background_ns, c->dirty_bytes,
		       c->late_ns, c->cause_seq, c->queued, c->region);
}
