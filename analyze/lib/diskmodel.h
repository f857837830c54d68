/*
 * diskmodel.h - the service time of each request on a modelled disk, and
 * the ledger row that says where that time went.
 *
 * wcdisk (capture/wcdisk.c) serves an image file through FUSE and, before
 * answering each request, asks this module how long the disk would have
 * taken; tests/check_diskmodel.c drives it with made-up times.  No FUSE,
 * no clock, no I/O here: time is whatever the caller says it is.
 *
 * Two kinds of disk (parameter `model`):
 *
 *  - hdd: one actuator over `cylinders` cylinders.  The image spans the
 *    whole stroke (sector 0 on the outermost cylinder, the last sector on
 *    the innermost).  Seek over d cylinders (d >= 1):
 *        seek(d) = track + a sqrt(d - 1) + b (d - 1)
 *        a = (-10 track + 15 avg - 5 full) / (3 sqrt(N))
 *        b = (7 track - 15 avg + 8 full) / (3 N)
 *    so seek(1) = track, seek(N + 1) = full, and the mean over seeks
 *    between two uniformly random cylinders is avg (the square root
 *    dominates short seeks, the linear term long ones); seek(0) = 0.  Both
 *    coefficients must be >= 0 (the curve rises): avg within
 *    [(10 track + 5 full) / 15, (7 track + 8 full) / 15].  (The variant
 *    whose mean over uniformly distributed distances is avg, in
 *    domain.md section 5, has a negative square-root term for datasheet
 *    values such as 1 / 8.5 / 20 ms and dips below track-to-track.)  The media rate falls linearly
 *    from media_outer_mbs on the first cylinder to media_inner_mbs on the
 *    last (zoned recording); a track holds one revolution at its rate, so
 *    the outer cylinders hold more sectors.  The platter's angle is the
 *    clock: at time t (ns) the head is over angle frac(t / rev_ns), and a
 *    sector at angle s is reached after frac(s - frac(t / rev_ns)) rev_ns:
 *    rotational latency is computed, never an average.
 *  - ssd: no seek, no rotation: positioning is read_us or write_us, transfer
 *    runs at media_outer_mbs.
 *
 * Both have a write cache of cache_kib KiB when write_cache is on: a write
 * that fits is taken at interface_mbs (cache hit, no positioning); dirty
 * ranges are kept sorted and merged.  The cache is destaged
 *  - when a write does not fit: enough of it, in elevator order (C-LOOK
 *    from the head's position upward, then from the lowest sector), and the
 *    write waits for it (destage_ns);
 *  - when idle: idle_destage_ms after the last request ended, the disk
 *    destages in elevator order in the background; work done before the
 *    next arrival costs nobody (background_ns), a destage still running
 *    when a request arrives delays it (destage_ns);
 *  - on a flush: all of it, and the flush waits.  With plp = 1 (power-loss
 *    protection) the cache is safe: a flush costs flush_us (counted as
 *    overhead_ns) and destages nothing; so does a flush of an empty cache.
 * A FUA write, or any write with write_cache off, goes to the media
 * (positioning and transfer) and leaves the cache alone.  A read wholly
 * inside one dirty range is a cache hit; a read starting where the last
 * media read ended, within what the head has passed since (at most
 * readahead_kib), is a read-ahead hit; other reads go to the media.  A
 * request starting exactly where the previous media access ended and
 * arriving within stream_window_us of its end needs no positioning: the
 * head is still streaming (what a queued command gets on a real disk;
 * FUSE splits one large request into several).  overhead_us is added to
 * every request (command processing).
 *
 * Usage:
 *
 *     struct wc_disk_params p;
 *     wc_disk_params_init(&p);                        // hdd7200-like values
 *     if (wc_disk_params_load(&p, "capture/disks/hdd7200", &err) < 0 ||
 *         wc_disk_param_set(&p, "cache_kib", "8192", &err) < 0)
 *             goto fail;
 *     struct wc_disk *d = NULL;
 *     if (wc_disk_open(&d, &p, image_bytes, &err) < 0)
 *             goto fail;
 *     struct wc_disk_cost c;
 *     wc_disk_serve(d, WC_DISK_WRITE, offset, bytes, false, now_ns, &c);
 *     // ... wait until c.end_ns, answer the request
 *     wc_disk_free(d);
 *
 * What always holds:
 *  - c.end_ns = c.start_ns + overhead_ns + destage_ns + position_ns +
 *    transfer_ns, position_ns = seek_ns + rotation_ns, and start_ns is the
 *    later of the arrival and the end of the previous request;
 *  - the dirty bytes never exceed the cache size; memory is fixed at open
 *    (at most WC_DISK_MAX_EXTENTS dirty ranges: one more forces a destage);
 *  - the model owns nothing outside itself; wc_disk_free(NULL) is fine.
 *
 * The ledger (docs/capture-format.md, ledger.tsv): wc_disk_ledger_header()
 * and wc_disk_ledger_row() format one row per request; they only format.
 */
#ifndef WC_DISKMODEL_H
#define WC_DISKMODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "wcerr.h"

#define WC_DISK_MAX_EXTENTS 8192

enum wc_disk_kind { WC_DISK_HDD, WC_DISK_SSD };

/* Plain values; wc_disk_param_set() names them by their field names. */
struct wc_disk_params {
	enum wc_disk_kind model;
	double rpm;
	uint64_t cylinders;
	double seek_track_ms, seek_avg_ms, seek_full_ms;
	double media_outer_mbs, media_inner_mbs;	/* 10^6 bytes/s */
	double interface_mbs;
	double overhead_us;
	double read_us, write_us;	/* ssd positioning */
	uint64_t cache_kib;
	bool write_cache;
	bool plp;
	double flush_us;		/* a flush with plp, or an empty cache */
	double idle_destage_ms;		/* 0: never destage when idle */
	double stream_window_us;
	uint64_t readahead_kib;
};

enum wc_disk_op { WC_DISK_READ, WC_DISK_WRITE, WC_DISK_FLUSH, WC_DISK_DISCARD };

/* One request's service: a ledger row. */
struct wc_disk_cost {
	uint64_t seq;			/* 1, 2, ... in arrival order */
	enum wc_disk_op op;
	uint64_t sector;		/* 512-byte sectors; 0 for a flush */
	uint64_t bytes;
	bool fua;
	bool cache_hit;			/* served by the cache, no media access */
	uint64_t arrival_ns, start_ns, end_ns;
	uint64_t overhead_ns, destage_ns, position_ns, seek_ns, rotation_ns,
		 transfer_ns;
	uint64_t destage_bytes;		/* destaged while this request waited */
	uint64_t background_ns;		/* idle destage done before arrival */
	uint64_t dirty_bytes;		/* in the cache after this request */
	uint64_t late_ns;		/* set by the caller: answered this much
					 * after end_ns (wcdisk's own delay) */
};

struct wc_disk;

/* hdd7200-like defaults (capture/disks/hdd7200 has the sources). */
void wc_disk_params_init(struct wc_disk_params *p);

/* Sets one parameter from text: numbers, "on"/"off"/"1"/"0" for bools,
 * "hdd"/"ssd" for model.  Unknown keys, bad or out-of-range values fail
 * (WC_ERR_USAGE, the message names the key). */
int wc_disk_param_set(struct wc_disk_params *p, const char *key,
		      const char *value, struct wc_err *err);

/* Reads "key = value" lines ('#' comments, blank lines) from path and sets
 * each; a line that is too long, has no '=' or sets a bad value fails with
 * its byte offset (WC_ERR_INPUT). */
int wc_disk_params_load(struct wc_disk_params *p, const char *path,
			struct wc_err *err);

/* Writes every parameter as a "key = value" line, loadable again. */
int wc_disk_params_write(FILE *fp, const struct wc_disk_params *p);

/* Checks p as a whole (track <= avg <= full, rates > 0, ...) and opens a
 * disk of capacity_bytes (a multiple of 512, > 0) with an empty cache. */
int wc_disk_open(struct wc_disk **d, const struct wc_disk_params *p,
		 uint64_t capacity_bytes, struct wc_err *err);

/* Serves one request arriving at arrival_ns; fills *c.  offset and bytes
 * are in bytes (a flush ignores them; partial sectors count whole). */
void wc_disk_serve(struct wc_disk *d, enum wc_disk_op op, uint64_t offset,
		   uint64_t bytes, bool fua, uint64_t arrival_ns,
		   struct wc_disk_cost *c);

/* The disk was busy until end_ns (later than the modelled end when the
 * caller answered late): the next request starts no earlier. */
void wc_disk_busy_until(struct wc_disk *d, uint64_t end_ns);

/* Seek time over distance cylinders, and the cylinder of a sector. */
uint64_t wc_disk_seek_ns(const struct wc_disk *d, uint64_t distance);
uint64_t wc_disk_cylinder(const struct wc_disk *d, uint64_t sector);
/* Media rate at a sector, bytes per second. */
double wc_disk_media_rate(const struct wc_disk *d, uint64_t sector);
uint64_t wc_disk_dirty_bytes(const struct wc_disk *d);
uint64_t wc_disk_rev_ns(const struct wc_disk *d);

void wc_disk_free(struct wc_disk *d);

/* Ledger rows, tab-separated; return what fprintf returns (< 0: error). */
int wc_disk_ledger_header(FILE *fp);
int wc_disk_ledger_row(FILE *fp, const struct wc_disk_cost *c);

#endif /* WC_DISKMODEL_H */
