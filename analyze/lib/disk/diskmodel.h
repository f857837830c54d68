/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diskmodel.h - the service time of each request on a modelled disk, and
 * the ledger row that says where that time went.
 *
 * wcdisk (capture/wcdisk_serve.c) serves an image file through FUSE and, before
 * answering each request, asks this module how long the disk would have
 * taken; tests/check_diskmodel.c drives it with made-up times.  No FUSE,
 * no clock, no I/O here: time is whatever the caller says it is.
 *
 * Two kinds of disk (parameter `model`):
 *
 *  - hdd: one actuator over `cylinders` cylinders.  The disk's capacity
 *    (wc_disk_open()) spans the whole stroke (sector 0 on the outermost
 *    cylinder, the last sector on the innermost); see "Placement" for
 *    what that capacity is.  Seek over d cylinders (d >= 1):
 *        seek(d) = track + a sqrt(d - 1) + b (d - 1)
 *        a = (-10 track + 15 avg - 5 full) / (3 sqrt(N))
 *        b = (7 track - 15 avg + 8 full) / (3 N)
 *    so seek(1) = track, seek(N + 1) = full, and the mean over seeks
 *    between two uniformly random cylinders is avg (the square root
 *    dominates short seeks, the linear term long ones); seek(0) = 0.  Both
 *    coefficients must be >= 0 (the curve rises): avg within
 *    [(10 track + 5 full) / 15, (7 track + 8 full) / 15].  (The variant
 *    whose mean over uniformly distributed distances is avg has a
 *    negative square-root term for datasheet
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
 * ranges are kept sorted and merged.  The destage policy (each destaged
 * range is one media write with its own seek, rotation and transfer, and
 * one row of its own, op WC_DISK_DESTAGE; see "Destage rows" below) picks
 * each range as a drive's rotational position ordering does: of the next
 * destage_window ranges in elevator order (C-LOOK: from the head's
 * position upward, then from the lowest sector), the one with the
 * shortest positioning time from where the head is when it would start,
 * the first in elevator order among equals (so an ssd, whose positioning
 * is the same for every range, and destage_window 1 destage in pure
 * C-LOOK order).  It destages:
 *  - when a write does not fit: enough of it, and the write waits for it
 *    (its destage_ns; the rows' cause_seq is its seq);
 *  - when idle (idle_destage on): once idle_destage_ms have passed since
 *    the last command ended with no command waiting (0: at once, as soon
 *    as the head is free), the disk destages range after range
 *    (cause_seq 0); a command arriving meanwhile starts when
 *    the range being written ends (it waited in the queue, start_ns),
 *    but with interface_overlap on a command that needs only the buffer
 *    (a write the cache takes without making room, a read the cache or a
 *    read-ahead segment holds), first in the queue, starts at its
 *    arrival: the drive takes the host's data while the head writes;
 *  - on a flush: all of it, and the flush waits (its destage_ns, the rows'
 *    cause_seq is its seq).  With plp = 1 (power-loss protection) the cache
 *    is safe: a flush costs flush_us (counted as overhead_ns) and destages
 *    nothing; so does a flush of an empty cache.
 * A write that waits for room pays its destage and then its interface
 * transfer (bytes / interface_mbs); with interface_overlap on the drive
 * takes the data into its buffer while it destages, and the write ends
 * at the later of the two: its transfer_ns is what the interface time
 * exceeds the destage by, often 0.  With destage_parallel on, an ssd's
 * destage range that starts where the previous one ended pays no write_us
 * (the ranges of a flush are programmed together over the channels).
 * A media write of an hdd (a command or a destage range) settles longer
 * than a read: it seeks on the curve above through (seek_track_ms +
 * write_settle_track_ms, seek_avg_ms + write_settle_ms, seek_full_ms +
 * write_settle_ms), a data sheet's write figures; the settle is part of
 * its seek_ns, and of the positioning the scheduler and the destage
 * order price.
 * A FUA write, or any write with write_cache off, goes to the media
 * (positioning and transfer) and leaves the cache alone.  A read wholly
 * inside one dirty range is a cache hit; a read inside a read-ahead
 * segment is a read-ahead hit; other reads go to the media.  The drive
 * keeps readahead_segments segments: a media read reads ahead (at most
 * readahead_kib beyond its start, while the head passes it and no other
 * media access begins) into the segment whose range it continues, else an
 * unused one, else the least recently used, so interleaved streams each
 * keep theirs.  A
 * request starting exactly where the previous media access ended and
 * starting within stream_window_us of its end needs no positioning: the
 * head is still streaming (FUSE splits one large request into several).
 * overhead_us is added to every command (command processing).
 *
 * The clock is the model's own: a command starts at the later of its
 * arrival and the end of what the disk did before (a command or a destage
 * range), and the platter's angle at that time decides its rotational
 * latency.  The caller only says when commands arrive; when it answers
 * late, it says so in late_ns, and the model's time does not move.
 *
 * Command queueing (queue_depth commands in the device, SATA NCQ: 32):
 * commands are submitted in arrival order and wait, in order, in the host
 * until one of the queue_depth places in the device is free (the first
 * queue_depth waiting commands that have arrived are the device's queue).
 * When the disk is free it picks one of its queue:
 *  - the oldest, if it arrived queue_age_ms or more ago (the age limit,
 *    0: none): from then on commands go in arrival order until none has
 *    waited that long, so a command waits at most queue_age_ms plus the
 *    service of the command in progress and of the commands older than
 *    itself;
 *  - otherwise the one with the shortest positioning time (seek plus
 *    rotation from where the head is, at the time it would start; a cache
 *    hit or a discard is 0), the oldest among equals (SPTF, what drive
 *    firmware does; queue_depth 1 is arrival order).
 * A flush is not a queued command on SATA (flush_queued off): it waits
 * until every command submitted before it has completed, and no command
 * submitted after it starts before it has completed: the host's libata
 * defers a non-NCQ command while NCQ commands are outstanding and every
 * command while a non-NCQ one is (ata_std_qc_defer(),
 * drivers/ata/libata-core.c).  With flush_queued on (NVMe) a flush is an
 * ordinary queued command with positioning time 0: it destages what the
 * cache holds when it starts and commands may pass it.
 *
 * Driving the model (one thread; a caller with threads holds a lock):
 *
 *     struct wc_disk_params p;
 *     wc_disk_params_init(&p);                        // hdd7200-like values
 *     if (wc_disk_params_load(&p, "capture/disks/hdd7200", &err) < 0 ||
 *         wc_disk_param_set(&p, "cache_kib", "8192", &err) < 0)
 *             goto fail;
 *     struct wc_disk *d = NULL;
 *     if (wc_disk_open(&d, &p, image_bytes, &err) < 0)
 *             goto fail;
 *     // an event loop, in the model's time:
 *     for (;;) {
 *             uint64_t t = wc_disk_next_start(d);     // UINT64_MAX: idle
 *             if (a request arrives at a <= t) {
 *                     struct wc_disk_req r = { WC_DISK_WRITE, off, len,
 *                                              false, a, my_tag };
 *                     if (wc_disk_submit(d, &r) < 0)   // WC_DISK_MAX_PENDING
 *                             hold it back until one completes;
 *                     continue;
 *             }
 *             struct wc_disk_cost c;
 *             if (!wc_disk_next(d, &c))               // picks and serves one
 *                     wait for an arrival;
 *             const struct wc_disk_cost *rows;
 *             size_t n = wc_disk_destaged(d, &rows);  // its destage rows
 *             // c.tag completes at c.end_ns: answer it then
 *     }
 *     wc_disk_free(d);
 *
 * A live caller (wcdisk) takes each arrival's time and submits it under
 * one lock, and calls wc_disk_next() only once its clock has reached
 * wc_disk_next_start(): then every command that arrived by then has been
 * submitted, and the pick is the one a replay in virtual time makes.
 * wc_disk_advance(d, t) says that nothing arrives before t (an idle disk
 * destages up to t); wc_disk_submit() does it for each arrival.
 * wc_disk_serve() is submit and next for a caller with nothing else
 * pending (one command at a time).
 *
 * Destage rows: wc_disk_destaged() lists the destage ranges written since
 * the previous wc_disk_next() returned, in time order: first those of
 * idle periods before the command just picked (cause_seq 0, all starting
 * before its start_ns and ending by it, but the last, which may end
 * after a buffer-only command's start), then those it waited for
 * (cause_seq its seq, inside its [start_ns, end_ns]).  The list is
 * cleared by the next call of
 * wc_disk_submit(), wc_disk_advance() or wc_disk_next() after a
 * wc_disk_next() that returned true; at most WC_DISK_MAX_EXTENTS + 1 rows.
 *
 * What always holds:
 *  - c.end_ns = c.start_ns + overhead_ns + destage_ns + position_ns +
 *    transfer_ns, position_ns = seek_ns + rotation_ns; a destage row has
 *    no overhead_ns or destage_ns;
 *  - a command's destage_ns is the sum of (end_ns - start_ns) of the rows
 *    whose cause_seq is its seq;
 *  - commands' [start_ns, end_ns] never overlap each other, nor an idle
 *    destage row's, but for a buffer-only command's inside an idle
 *    destage range (interface_overlap); without one the disk's busy time
 *    (the union of all rows' intervals) is exactly the sum of
 *    overhead_ns + position_ns + transfer_ns over commands plus
 *    position_ns + transfer_ns over destage rows: the ledger's totals
 *    partition it (with one, the union is less by the overlap);
 *  - a command starts no earlier than its arrival, and within the age
 *    limit's bound;
 *  - the dirty bytes never exceed the cache size; memory is fixed at open
 *    (at most WC_DISK_MAX_EXTENTS dirty ranges: one more forces a destage;
 *    at most WC_DISK_MAX_PENDING commands submitted and not yet picked);
 *  - the model owns nothing outside itself; wc_disk_free(NULL) is fine.
 *
 * Placement: where the images a caller serves lie on the disk.  A drive's
 * capacity is its own (parameter capacity_gb, the drive's size as its
 * data sheet gives it, in 10^9 bytes; its sectors are the IDEMA LBA count
 * for that size, LBA1-02: 97,696,368 + 1,953,504 (GB - 50), defined from
 * 50 GB up; 0: none given).  wc_disk_place() maps n images onto a disk:
 *  - with no offsets: one after the other from byte 0, the disk as large
 *    as they are together, whatever capacity_gb says (the image is the
 *    platter: a small image spans the whole stroke, as before placement
 *    existed, so that captures and parameter files older than it replay
 *    as recorded);
 *  - with one offset an image (bytes, whole sectors, ascending, not
 *    overlapping, each image inside the capacity): each image is a
 *    partition at that offset of a disk of capacity_gb, which then must
 *    be given.  wc_disk_partition_offsets() gives the report's layout:
 *    the disk cut into n equal partitions, each image at the start of its
 *    own (the first at 1 MiB, where fdisk and parted align it), so that
 *    seeks inside an image are short and the seek between two is long.
 * The caller opens the disk with the placement's capacity_bytes and
 * submits image r's byte x as offset[r] + x.
 *
 * The ledger (docs/capture-format.md, ledger.tsv): wc_disk_ledger_header()
 * and wc_disk_ledger_row() format one row per command or destage range;
 * they only format.
 */
#ifndef WC_DISKMODEL_H
#define WC_DISKMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/wcerr.h"

#define WC_DISK_MAX_EXTENTS 8192
#define WC_DISK_MAX_PENDING 1024
#define WC_DISK_MAX_QUEUE 256
#define WC_DISK_MAX_DESTAGE_WINDOW 256
/* A parameter file is a few dozen lines: past this it is none. */
#define WC_DISK_PARAMS_MAX_BYTES (64u * 1024)
#define WC_DISK_NAME_MAX 64u
#define WC_DISK_MAX_RA_SEGMENTS 64

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
	double idle_destage_ms;		/* idle this long first; 0: as soon
					 * as the head is free */
	double stream_window_us;
	uint64_t readahead_kib;
	uint64_t queue_depth;		/* 1 .. WC_DISK_MAX_QUEUE; 1: none */
	double queue_age_ms;		/* the age limit; 0: none */
	bool flush_queued;		/* NVMe: a flush is a queued command */
	uint64_t destage_window;	/* 1 .. WC_DISK_MAX_DESTAGE_WINDOW;
					 * 1 (the default): pure C-LOOK */
	/* The defaults of these five are the model before they existed, so
	 * that a capture's info/disk.conf without them replays as recorded;
	 * capture/disks/ says what each drive does. */
	bool interface_overlap;		/* a cached write's interface transfer
					 * runs during the destage it waits for */
	double write_settle_ms;		/* a write's average and full stroke
					 * seek above a read's */
	double write_settle_track_ms;	/* its track-to-track seek above */
	uint64_t readahead_segments;	/* 1 .. WC_DISK_MAX_RA_SEGMENTS */
	bool idle_destage;		/* off: never destage when idle */
	bool destage_parallel;		/* ssd: ranges destaged back to back
					 * pay write_us once, not each */
	uint64_t capacity_gb;		/* the drive's size, 10^9 bytes: 0 or
					 * 50 .. WC_DISK_MAX_CAPACITY_GB; 0:
					 * none (see "Placement") */
};

/* Placement (see above).  WC_DISK_MAX_REGIONS images at most. */
#define WC_DISK_MAX_REGIONS 4u
#define WC_DISK_MAX_CAPACITY_GB 1000000u	/* 1 PB */
#define WC_DISK_PARTITION_ALIGN (1024u * 1024)
struct wc_disk_placement {
	uint64_t capacity_bytes;	/* open the disk with this */
	unsigned n;
	uint64_t offset[WC_DISK_MAX_REGIONS];	/* image r's first byte */
	uint64_t bytes[WC_DISK_MAX_REGIONS];
};

/* WC_DISK_DESTAGE is no command: a ledger row of a range written from the
 * cache to the media. */
enum wc_disk_op {
	WC_DISK_READ, WC_DISK_WRITE, WC_DISK_FLUSH, WC_DISK_DISCARD,
	WC_DISK_DESTAGE
};

/* A command as submitted.  offset and bytes are in bytes (a flush ignores
 * them; partial sectors count whole; the part beyond the capacity is cut
 * off); tag is the caller's, returned in the cost. */
struct wc_disk_req {
	enum wc_disk_op op;
	uint64_t offset, bytes;
	bool fua;
	uint64_t arrival_ns;		/* not before the previous submission's
					 * (an earlier one counts as that) */
	uint64_t tag;
};

/* One command's service, or one destage range: a ledger row. */
struct wc_disk_cost {
	uint64_t seq;			/* commands: 1, 2, ... in arrival order;
					 * destage rows: 0 */
	enum wc_disk_op op;
	uint64_t sector;		/* 512-byte sectors; 0 for a flush */
	uint64_t bytes;
	bool fua;
	bool cache_hit;			/* served by the cache, no media access */
	uint64_t arrival_ns, start_ns, end_ns;	/* a destage row "arrives"
						 * when it starts */
	uint64_t overhead_ns, destage_ns, position_ns, seek_ns, rotation_ns,
		 transfer_ns;
	uint64_t destage_bytes;		/* destaged while this command waited */
	uint64_t background_ns;		/* idle destage between the previous
					 * command and this one's start */
	uint64_t dirty_bytes;		/* in the cache after this row */
	uint64_t cause_seq;		/* destage row: the command that waited
					 * for it; 0: an idle period's */
	uint32_t queued;		/* commands in the device's queue when
					 * this one was picked, itself included */
	uint32_t region;		/* set by the caller (wcdisk: which of
					 * its files); 0 from the model */
	uint64_t tag;			/* the request's tag; 0 for destage */
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
 * each; a line that is too long, holds a NUL byte, has no '=' or sets a
 * bad value fails with its byte offset (WC_ERR_INPUT).  PATH is the
 * user's own (wcdisk --disk, a what-if's disk=PATH): a link is followed,
 * but only a regular file of at most WC_DISK_PARAMS_MAX_BYTES is read,
 * opened without blocking (a FIFO, /dev/zero or a terminal fails at once,
 * never waits or reads for ever). */
int wc_disk_params_load(struct wc_disk_params *p, const char *path,
			struct wc_err *err);

/* The same from an open stream; path names it in messages.  At most
 * WC_DISK_PARAMS_MAX_BYTES are read (past them it fails): a stream that
 * never ends is refused, never read for ever. */
int wc_disk_params_read(struct wc_disk_params *p, FILE *fp, const char *path,
			struct wc_err *err);

/*
 * A disk's name, as a capture gives it (capture.conf disk_model): 1 to
 * WC_DISK_NAME_MAX bytes of letters, digits, '.', '_', '+' and '-', not
 * starting with '.' or '-', holding no "..".  A name is looked up among
 * the installed disks, never opened as a path: a capture is a stranger's.
 * 0, or -1 (WC_ERR_INPUT, the name in the message cut to 64 bytes).
 */
int wc_disk_name_check(const char *name, struct wc_err *err);

/* Loads the disk NAME (checked as above) from the first of
 * dirs[0..ndirs) that holds a file of that name (NULL or "" dirs are
 * skipped), read as wc_disk_params_load() reads, except that a link is
 * not followed (the installed disks are plain files).  -1 with
 * WC_ERR_USAGE "no model disk 'NAME'" when no folder holds it. */
int wc_disk_params_find(struct wc_disk_params *p, const char *name,
			const char *const *dirs, size_t ndirs,
			struct wc_err *err);

/* The drive's capacity in bytes: the IDEMA LBA count of capacity_gb
 * times 512; 0 when capacity_gb is 0. */
uint64_t wc_disk_capacity_bytes(const struct wc_disk_params *p);

/* Places n images of bytes[0..n) (each > 0, whole sectors) on the disk p:
 * offsets NULL for none (back to back, the image is the platter), else
 * one an image.  0 with *pl filled, or -1 (WC_ERR_USAGE, the message names
 * the image by its number and what is wrong) and *pl zeroed. */
int wc_disk_place(struct wc_disk_placement *pl, const struct wc_disk_params *p,
		  const uint64_t *bytes, unsigned n, const uint64_t *offsets,
		  struct wc_err *err);

/* The report's layout for n (1 .. WC_DISK_MAX_REGIONS) images: offsets[r]
 * is the start of the r-th of n equal partitions of the disk p, rounded
 * down to WC_DISK_PARTITION_ALIGN, and at least that (the first).  -1
 * (WC_ERR_USAGE) when capacity_gb is 0 or n out of range. */
int wc_disk_partition_offsets(const struct wc_disk_params *p, unsigned n,
			      uint64_t *offsets, struct wc_err *err);

/* Writes every parameter as a "key = value" line, loadable again. */
int wc_disk_params_write(FILE *fp, const struct wc_disk_params *p);

/* Checks p as a whole (track <= avg <= full, rates > 0, ...) and opens a
 * disk of capacity_bytes (a multiple of 512, > 0) with an empty cache. */
int wc_disk_open(struct wc_disk **d, const struct wc_disk_params *p,
		 uint64_t capacity_bytes, struct wc_err *err);

/* Queues one command (see "Driving the model").  Fails (-1) when
 * WC_DISK_MAX_PENDING commands are already waiting; the model is then
 * unchanged.  Runs wc_disk_advance() to its arrival first. */
int wc_disk_submit(struct wc_disk *d, const struct wc_disk_req *r);

/* When the next command would start: the later of the disk's being free
 * and the first waiting command's arrival; UINT64_MAX when none waits. */
uint64_t wc_disk_next_start(const struct wc_disk *d);

/* Picks the next command by the queueing policy and serves it: fills *c
 * and returns true, or returns false when none waits.  The caller answers
 * c->tag at c->end_ns; no further call is needed for its completion. */
bool wc_disk_next(struct wc_disk *d, struct wc_disk_cost *c);

/* Nothing arrives before t: an idle disk destages up to t (ranges that
 * start before t are written whole). */
void wc_disk_advance(struct wc_disk *d, uint64_t t);

/* A drive told to write its cache back before standby (wcdisk's destage
 * control, not a command): wc_disk_advance(d, t), then, when no command
 * waits, every dirty range destaged from t (or when the disk is free)
 * on, as idle rows (cause_seq 0).  wc_disk_destaged() then lists them
 * (with the idle period's rows before t), once: the next command's list
 * starts afresh.  With a command waiting it does only the advance. */
void wc_disk_destage_all(struct wc_disk *d, uint64_t t);

/* The destage rows (see "Destage rows"); *rows is valid until the list is
 * cleared.  Returns their number. */
size_t wc_disk_destaged(const struct wc_disk *d, const struct wc_disk_cost **rows);

/* Commands submitted and not yet picked. */
size_t wc_disk_pending(const struct wc_disk *d);

/* Submits one command and serves it at once: for a caller with nothing
 * else pending (else the pick may be another command). */
void wc_disk_serve(struct wc_disk *d, enum wc_disk_op op, uint64_t offset,
		   uint64_t bytes, bool fua, uint64_t arrival_ns,
		   struct wc_disk_cost *c);

/* Seek time over distance cylinders (a read's, a write's), and the
 * cylinder of a sector. */
uint64_t wc_disk_seek_ns(const struct wc_disk *d, uint64_t distance);
uint64_t wc_disk_seek_write_ns(const struct wc_disk *d, uint64_t distance);
uint64_t wc_disk_cylinder(const struct wc_disk *d, uint64_t sector);
/* Media rate at a sector, bytes per second. */
double wc_disk_media_rate(const struct wc_disk *d, uint64_t sector);
uint64_t wc_disk_dirty_bytes(const struct wc_disk *d);
uint64_t wc_disk_rev_ns(const struct wc_disk *d);
/* The platter's angle at time t, in turns, [0, 1): exactly
 * fmod((double)t, rev_ns) / rev_ns, rev_ns = 60 s / rpm unrounded. */
double wc_disk_angle_at(const struct wc_disk *d, uint64_t t);

void wc_disk_free(struct wc_disk *d);

/* Ledger rows, tab-separated; return what fprintf returns (< 0: error).
 * A row's end_ns column is end_ns + late_ns, when the caller answered. */
int wc_disk_ledger_header(FILE *fp);
int wc_disk_ledger_row(FILE *fp, const struct wc_disk_cost *c);

#endif /* WC_DISKMODEL_H */
