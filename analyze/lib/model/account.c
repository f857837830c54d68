/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "model/account.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/devtab.h"
#include "base/hot.h"
#include "model/tracker.h"

/* Latency histogram: 16 bins an octave from 1 ns to 2^41 ns. */
#define LAT_SUB 16
#define LAT_OCT 41
#define LAT_BINS (LAT_SUB * LAT_OCT)

/* Slices by time per byte, 24 bins an octave from 2^-16 to 2^24 ns/B:
 * positioning = sum over bins of max(0, S - B / rate), exact except for
 * the one bin that holds 1/rate (docs/methodology.md). */
#define POS_SUB 24
#define POS_LO (-16)
#define POS_OCT 40
#define POS_BINS (POS_SUB * POS_OCT)

#define STREAM_MIN_COUNT 4

struct fig {
	struct wc_figures f;
	uint64_t lat_flush[LAT_BINS];
	uint64_t lat_d2c[LAT_BINS];
	uint64_t pos_s[POS_BINS];      /* slice ns */
	double pos_b[POS_BINS];        /* bytes */
	/* The same for flushes of a write-back cache: the flush's slice
	 * against the bytes the cache absorbed since the previous one. */
	uint64_t dpos_s[POS_BINS];
	double dpos_b[POS_BINS];
};

/* How a slice splits into positioning and transfer: not at all (a flush
 * with nothing to destage, a discard, a write the cache absorbed: its
 * slice is the interface's transfer), as a media access, or as a
 * flush's destage. */
enum pos_kind { POS_NONE, POS_MEDIA, POS_DESTAGE };

/* Requests a streak holds before it may give way to another phase's: a
 * fold costs a pass over the histograms, so a trace whose completions
 * alternate between phases pays it at most once per this many. */
#define STREAK_MIN 1024

/* The union of every device's service slices: the time some traced
 * device was busy.  At least its newest UNION_MAX disjoint intervals are
 * kept, sorted; slices come in completion order, so a new one overlaps
 * only the newest few (busy stretches merge into one), and an older
 * interval dropped can only be overlapped again by a slice that began
 * before it: that overlap is then counted twice.  The total is exact for
 * traces whose slices never reach back over UNION_MAX stretches of idle
 * time (docs/methodology.md, "Off the device").  There is room for twice
 * as many, and the oldest UNION_MAX go at once when it is full: a trace
 * of short requests with idle time between them makes a new interval at
 * every completion, and forgetting one at a time moved the whole array
 * each time. */
#define UNION_MAX 64

struct busy_union {
	uint64_t lo[2 * UNION_MAX], hi[2 * UNION_MAX];
	size_t n;
	uint64_t total;
};

static void union_add(struct busy_union *u, uint64_t lo, uint64_t hi)
{
	size_t i = u->n, j;
	uint64_t covered = 0, nlo = lo, nhi = hi;

	if (hi <= lo)
		return;
	/* [i, j): the intervals that overlap or touch [lo, hi]. */
	while (i > 0 && u->hi[i - 1] >= lo)
		i--;
	for (j = i; j < u->n && u->lo[j] <= hi; j++) {
		uint64_t a = u->lo[j] > lo ? u->lo[j] : lo;
		uint64_t b = u->hi[j] < hi ? u->hi[j] : hi;

		if (b > a)
			covered += b - a;
		if (u->lo[j] < nlo)
			nlo = u->lo[j];
		if (u->hi[j] > nhi)
			nhi = u->hi[j];
	}
	u->total += hi - lo - covered;
	if (j == i && u->n == 2 * UNION_MAX) {
		/* No room: forget the oldest half. */
		memmove(u->lo, u->lo + UNION_MAX, UNION_MAX * sizeof(u->lo[0]));
		memmove(u->hi, u->hi + UNION_MAX, UNION_MAX * sizeof(u->hi[0]));
		u->n -= UNION_MAX;
		i = i > UNION_MAX ? i - UNION_MAX : 0;
		j = i;
	}
	/* Intervals [i, j) become one, [nlo, nhi], at i.  A slice after
	 * idle time, the newest interval then, has none after it to move:
	 * most slices of a device that waits between its requests. */
	if (j != i + 1) {
		if (j < u->n) {
			memmove(u->lo + i + 1, u->lo + j,
				(u->n - j) * sizeof(u->lo[0]));
			memmove(u->hi + i + 1, u->hi + j,
				(u->n - j) * sizeof(u->hi[0]));
		}
		u->n = u->n + 1 - (j - i);
	}
	u->lo[i] = nlo;
	u->hi[i] = nhi;
}

/* A table by process: a process's requests, time and bytes, by command
 * name in the end.  While requests come it is kept by pid: a pid is a
 * number to hash where a name is a string to look up in the input and
 * compare, and a trace's requests come from a few pids, mostly the same
 * one many times over.  The pids are folded into names (names_fold())
 * in the order each first came, so that every name takes the row it
 * would have taken had it been looked up at its first request; a table
 * full of pids (WC_ACCOUNT_PIDS) is folded then and starts again empty,
 * which keeps that order.  A name is the one the input knows for its
 * pid when the table is folded (the input keeps a pid's first name). */
#define PID_HASH (2 * WC_ACCOUNT_PIDS)      /* a power of two */

struct by_pid {
	uint32_t pid;
	uint64_t requests, ns, bytes;
};

struct names {
	size_t nrows;
	struct wc_wait rows[WC_MAX_COMMS];
	size_t npids;
	size_t last;                     /* the pid of the last request */
	uint16_t slot[PID_HASH];         /* pids[] index + 1; 0: free */
	struct by_pid pids[WC_ACCOUNT_PIDS];
};

_Static_assert((PID_HASH & (PID_HASH - 1)) == 0 && WC_ACCOUNT_PIDS < 65535,
	       "the pids' hash is a power of two of 16-bit slots");

struct adev {
	uint32_t device;
	struct fig whole;
	struct fig *phases;            /* conf.nphases of them */
	/* The streak: requests that went wholly to one phase, streak_phase, and
	 * so to it and the device alike, counted once here and folded into
	 * both by streak_fold(), except their bytes by positioning bin (pos_b),
	 * added to both at once: a sum of doubles keeps its order. */
	struct fig streak;
	struct fig *streak_phase;
	uint64_t streak_n;
	bool have_prev_c, have_prev_end;
	uint64_t prev_c, prev_end;
	uint64_t stream_bytes, stream_ns, stream_n;
	bool cached;                   /* its write cache is on */
	uint64_t absorbed;             /* bytes written since the last flush */
	double rate;
	bool estimated;
	/* Outstanding time (account.h): the stretches of the device's time
	 * no slice covers, oldest first, in a ring (st_first, st_n), the
	 * open one from the latest completion on not among them; and the
	 * spans [D, D + bound) of the requests it never completed, sorted
	 * and disjoint. */
	uint64_t st_lo[WC_ACCOUNT_STRETCHES], st_hi[WC_ACCOUNT_STRETCHES];
	size_t st_first, st_n;
	uint64_t un_lo[WC_ACCOUNT_STRETCHES], un_hi[WC_ACCOUNT_STRETCHES];
	size_t un_n;
	struct names flushers;           /* WC_MAX_FLUSHERS rows */
	struct names procs;              /* WC_MAX_COMMS rows */
	/* The device's own work (wc_account_set_work()): where it comes
	 * from, and the one piece held, [work_lo, work_hi), taken from
	 * work_lo on (what is before it was dealt with); work_prev: the
	 * end of the last piece pulled. */
	wc_account_work_fn *work_fn;
	void *work_arg;
	uint64_t work_from;
	bool work_have, work_counted;
	uint64_t work_lo, work_hi, work_bytes, work_prev;
};

/* The phases' starts and ends cut time into spans; inside one span
 * (between two neighbouring edges, both excluded) every phase either
 * covers all of it or none of it. */
/* The phases, and the filter's window as one more (conf.has_window). */
#define MAX_PHASES (WC_MAX_PHASES + 1)
#define MAX_EDGES (2 * MAX_PHASES)
#define MAX_SPANS (MAX_EDGES + 1)

struct wc_account {
	double media_rate;
	uint32_t no_estimate[WC_MAX_DEVICES];
	size_t nno_estimate;
	int write_cache;
	uint32_t cache_device;
	size_t nphases;                  /* the conf's, and the window */
	struct wc_phase_window phases[MAX_PHASES];
	bool has_window;                 /* phases[nphases - 1] is it */
	bool window_in_trace;
	/* Span k lies between edges[k - 1] and edges[k] (0 and UINT64_MAX
	 * at the ends); cover[k] lists the ncover[k] phases that cover it. */
	size_t nedges;
	uint64_t edges[MAX_EDGES];
	unsigned char ncover[MAX_SPANS];
	unsigned char cover[MAX_SPANS][MAX_PHASES];
	/* The span of the last completion: (span_lo, span_hi), its phases. */
	uint64_t span_lo, span_hi;
	const unsigned char *span_cover;
	size_t span_n;
	struct adev *devs[WC_MAX_DEVICES];   /* by number in devtab */
	struct wc_devtab devtab;
	struct adev *last;               /* requests mostly stay on one */
	uint64_t ignored_devices;
	struct names waits;              /* WC_MAX_COMMS rows */
	wc_account_name_fn *name;
	const void *name_arg;
	struct busy_union any;           /* every device's slices at once */
	/* The disk of conf's partitions (account.h), or NULL; its
	 * partitions' split, and each one's first sector on it. */
	struct adev *disk;
	size_t nparts;
	struct wc_account_part parts[WC_ACCOUNT_PARTS];
	uint64_t part_offset[WC_ACCOUNT_PARTS];
	/* The bound of a dispatch per device, 0 for the default. */
	uint32_t bound_dev[WC_MAX_DEVICES];
	uint64_t bound_ns[WC_MAX_DEVICES];
	size_t nbounds;
	uint64_t bound_default;
	/* The devices' own work, given to each device as it comes. */
	uint32_t work_dev[WC_MAX_DEVICES];
	wc_account_work_fn *work_fn[WC_MAX_DEVICES];
	void *work_arg[WC_MAX_DEVICES];
	uint64_t work_from[WC_MAX_DEVICES];
	size_t nwork;
};

static bool has_positioning(enum wc_cat cat)
{
	return cat == WC_CAT_JOURNAL || cat == WC_CAT_METADATA ||
	       cat == WC_CAT_DATA_READ || cat == WC_CAT_DATA_WRITE;
}

static size_t lat_bin(uint64_t v)
{
	unsigned oct;
	uint64_t sub;
	size_t i;

	if (v == 0)
		return 0;
	oct = 63u - (unsigned)__builtin_clzll(v);
	sub = oct >= 4 ? (v >> (oct - 4)) & 15 : (v << (4 - oct)) & 15;
	i = (size_t)oct * LAT_SUB + (size_t)sub;
	return i < LAT_BINS ? i : LAT_BINS - 1;
}

/* Middle of bin i, in ns. */
static double lat_mid(size_t i)
{
	double oct = (double)(i / LAT_SUB), sub = (double)(i % LAT_SUB);

	return ldexp((16.0 + sub + 0.5) / 16.0, (int)oct);
}

static size_t pos_bin_log2(double x)
{
	double l = (log2(x) - POS_LO) * POS_SUB;
	long i;

	if (l < 0)
		return 0;
	i = (long)l;
	return i >= POS_BINS ? POS_BINS - 1 : (size_t)i;
}

/* The mantissa bits of 2^(j / POS_SUB), the bins' edges within an
 * octave (the last one is 2), and for each 64th of the octave the bin
 * its start lies in: no 64th holds more than one edge. */
static const uint64_t pos_edge[POS_SUB + 1] = {
	0x0000000000000ull, 0x078059f4155d1ull, 0x0f38f92d97963ull,
	0x172b83c7d517bull, 0x1f59ac3c7d6c0ull, 0x27c531c0696caull,
	0x306fe0a31b715ull, 0x395b92b10be1dull, 0x428a2f98d728bull,
	0x4bfdad5362a27ull, 0x55b8108f0ec5eull, 0x5fbb6d1e0d6a8ull,
	0x6a09e667f3bcdull, 0x74a5afdea020full, 0x7f910d768cfb0ull,
	0x8ace5422aa0dbull, 0x965fea53d6e3cull, 0xa248487c197b9ull,
	0xae89f995ad3adull, 0xbb279bae0702cull, 0xc823e074ec129ull,
	0xd5818dcfba487ull, 0xe3437e7101343ull, 0xf16ca2748c5b4ull,
	0x10000000000000ull,
};
static const unsigned char pos_first[64] = {
	0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 9,
	10, 10, 11, 11, 11, 12, 12, 12, 13, 13, 14, 14, 14, 15, 15, 15, 16,
	16, 16, 17, 17, 17, 18, 18, 18, 19, 19, 19, 19, 20, 20, 20, 21, 21,
	21, 22, 22, 22, 22, 23, 23, 23,
};

/* 2^24 units of the mantissa: 2^-28 of the octave, more than 1e-9 of
 * the value anywhere in it. */
#define POS_MARGIN ((int64_t)1 << 24)

/* log2 costs more than the rest of a request's accounting: the octave
 * comes from the exponent's bits and the bin within it from the edges'
 * bits.  Within a relative 1e-9 of an edge (and outside the bins' range)
 * log2 decides, so the bin is always the one log2 gives: its error, and
 * the rounding of the subtraction and product, are below 1e-12 there. */
WC_HOT size_t pos_bin(uint64_t ns,
							    double bytes)
{
	double x;
	uint64_t bits, mant;
	int e;
	unsigned j;

	if (ns == 0 || bytes <= 0)
		return 0;
	x = (double)ns / bytes;
	memcpy(&bits, &x, sizeof(bits));
	e = (int)(bits >> 52 & 0x7ff) - 1023;
	if (e < POS_LO || e >= POS_LO + POS_OCT)
		return pos_bin_log2(x);
	mant = bits & 0xfffffffffffffull;
	j = pos_first[mant >> 46];
	j += mant >= pos_edge[j + 1];
	if ((int64_t)(mant - pos_edge[j]) < POS_MARGIN ||
	    (int64_t)(pos_edge[j + 1] - mant) <= POS_MARGIN)
		return pos_bin_log2(x);
	return (size_t)(e - POS_LO) * POS_SUB + j;
}

size_t wc_account_pos_bin(uint64_t ns, double bytes)
{
	return pos_bin(ns, bytes);
}

static inline void lat_add(struct wc_latency *l, uint64_t *bins, uint64_t v,
		    size_t bin)
{
	if (l->n == 0 || v < l->min)
		l->min = v;
	if (v > l->max)
		l->max = v;
	l->n++;
	l->sum += v;
	bins[bin]++;
}

static uint64_t lat_pct(const struct wc_latency *l, const uint64_t *bins,
			double p)
{
	uint64_t rank = (uint64_t)ceil(p * (double)l->n), seen = 0;
	double v;
	size_t i;

	if (l->n == 0)
		return 0;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < LAT_BINS; i++) {
		seen += bins[i];
		if (seen >= rank)
			break;
	}
	v = lat_mid(i < LAT_BINS ? i : LAT_BINS - 1);
	if (v < (double)l->min)
		return l->min;
	if (v > (double)l->max)
		return l->max;
	return (uint64_t)llround(v);
}

static void lat_finish(struct wc_latency *l, const uint64_t *bins)
{
	l->p50 = lat_pct(l, bins, 0.50);
	l->p90 = lat_pct(l, bins, 0.90);
	l->p99 = lat_pct(l, bins, 0.99);
}

static uint64_t overlap(uint64_t a, uint64_t b, uint64_t s, uint64_t e)
{
	uint64_t lo = a > s ? a : s, hi = b < e ? b : e;

	return hi > lo ? hi - lo : 0;
}

static bool inside(uint64_t t, uint64_t s, uint64_t e)
{
	return t >= s && t <= e;
}

/* The index of DEVICE among the disk's partitions, or -1. */
static int part_of(const struct wc_account *ac, uint32_t device)
{
	size_t k;

	for (k = 0; k < ac->nparts; k++)
		if (ac->parts[k].device == device)
			return (int)k;
	return -1;
}

/* A device's figures, all zero, or NULL when out of memory.  CACHED:
 * its write cache is on. */
static struct adev *adev_new(const struct wc_account *ac, uint32_t device,
			     bool cached)
{
	struct adev *d = calloc(1, sizeof(*d));
	size_t i;

	if (!d)
		return NULL;
	if (ac->nphases) {
		d->phases = calloc(ac->nphases, sizeof(*d->phases));
		if (!d->phases) {
			free(d);
			return NULL;
		}
	}
	d->device = device;
	d->cached = cached;
	d->whole.f.device = device;
	for (i = 0; i < ac->nphases; i++)
		d->phases[i].f.device = device;
	return d;
}

static void adev_free(struct adev *d)
{
	if (!d)
		return;
	free(d->phases);
	free(d);
}

/* d's own work from NEXT (wc_account_set_work()), from FROM on. */
static void work_attach(const struct wc_account *ac, struct adev *d,
			wc_account_work_fn *next, void *arg, uint64_t from)
{
	size_t p;

	d->work_fn = next;
	d->work_arg = arg;
	d->work_from = d->work_prev = from;
	d->whole.f.internal_known = true;
	for (p = 0; p < ac->nphases; p++)
		d->phases[p].f.internal_known = true;
}

static struct adev *dev_get(struct wc_account *ac, uint32_t device)
{
	struct adev *d = ac->last;
	size_t i;
	int k;

	if (d && d->device == device)
		return d;
	k = wc_devtab_find(&ac->devtab, device);
	if (k >= 0)
		return ac->last = ac->devs[k];
	if (wc_devtab_count(&ac->devtab) == WC_MAX_DEVICES)
		return NULL;
	d = adev_new(ac, device, ac->write_cache == 1 &&
			 (ac->cache_device == 0 || ac->cache_device == device));
	if (!d)
		return NULL;
	for (i = 0; i < ac->nwork; i++)
		if (ac->work_dev[i] == device)
			work_attach(ac, d, ac->work_fn[i], ac->work_arg[i],
				    ac->work_from[i]);
	ac->devs[wc_devtab_add(&ac->devtab, device)] = d;
	return ac->last = d;
}

int wc_account_add_device(struct wc_account *ac, uint32_t device)
{
	return dev_get(ac, device) ? 0 : -1;
}

/* A stretch [lo, hi) of the device's time that no slice covers, in
 * order after the ones before it; the oldest is forgotten when the ring
 * is full. */
static void stretch_add(struct adev *d, uint64_t lo, uint64_t hi)
{
	size_t k;

	if (d->st_n == WC_ACCOUNT_STRETCHES) {
		d->st_first = (d->st_first + 1) % WC_ACCOUNT_STRETCHES;
		d->st_n--;
	}
	k = (d->st_first + d->st_n++) % WC_ACCOUNT_STRETCHES;
	d->st_lo[k] = lo;
	d->st_hi[k] = hi;
}

static uint64_t bound_of(const struct wc_account *ac, uint32_t device)
{
	size_t i;

	for (i = 0; i < ac->nbounds; i++)
		if (ac->bound_dev[i] == device)
			return ac->bound_ns[i];
	return ac->bound_default;
}

/* Adds [lo, hi) to the device's never-completed spans, kept sorted and
 * disjoint.  They come mostly in order of dispatch, so the place is
 * looked for from the end. */
static void unfinished_add(struct adev *d, uint64_t lo, uint64_t hi)
{
	size_t i = d->un_n, j;

	while (i > 0 && d->un_lo[i - 1] > lo)
		i--;
	/* [i - 1] starts at or before lo: join it when they touch. */
	if (i > 0 && d->un_hi[i - 1] >= lo) {
		i--;
		if (hi > d->un_hi[i])
			d->un_hi[i] = hi;
	} else if (d->un_n == WC_ACCOUNT_STRETCHES) {
		/* No room: the nearest neighbour takes it in. */
		if (i == d->un_n || (i > 0 && lo - d->un_hi[i - 1] <
					      d->un_lo[i] - hi)) {
			i--;
			if (hi > d->un_hi[i])
				d->un_hi[i] = hi;
		} else {
			d->un_lo[i] = lo;
		}
	} else {
		memmove(d->un_lo + i + 1, d->un_lo + i,
			(d->un_n - i) * sizeof(d->un_lo[0]));
		memmove(d->un_hi + i + 1, d->un_hi + i,
			(d->un_n - i) * sizeof(d->un_hi[0]));
		d->un_lo[i] = lo;
		d->un_hi[i] = hi;
		d->un_n++;
	}
	/* The ones after it that it now reaches join it. */
	for (j = i + 1; j < d->un_n && d->un_lo[j] <= d->un_hi[i]; j++)
		if (d->un_hi[j] > d->un_hi[i])
			d->un_hi[i] = d->un_hi[j];
	if (j > i + 1) {
		memmove(d->un_lo + i + 1, d->un_lo + j,
			(d->un_n - j) * sizeof(d->un_lo[0]));
		memmove(d->un_hi + i + 1, d->un_hi + j,
			(d->un_n - j) * sizeof(d->un_hi[0]));
		d->un_n -= j - i - 1;
	}
}

/* The time within [s, e) that a never-completed span and a stretch
 * without a slice both cover: two sorted, disjoint lists walked side by
 * side, the open stretch from the latest completion last. */
static uint64_t outstanding_in(const struct adev *d, uint64_t s, uint64_t e)
{
	uint64_t sum = 0;
	size_t i = 0, j = 0;

	if (e <= s || !d->un_n)
		return 0;
	while (i < d->un_n && j <= d->st_n) {
		uint64_t lo, hi;

		if (j < d->st_n) {
			size_t k = (d->st_first + j) % WC_ACCOUNT_STRETCHES;

			lo = d->st_lo[k];
			hi = d->st_hi[k];
		} else {
			lo = d->have_prev_c ? d->prev_c : 0;
			hi = UINT64_MAX;
		}
		sum += overlap(lo > s ? lo : s, hi < e ? hi : e,
			       d->un_lo[i], d->un_hi[i]);
		if (d->un_hi[i] < hi)
			i++;
		else
			j++;
	}
	return sum;
}

/* What a request adds to every figure that counts it (its device's, and
 * the phase it completed in), worked out once. */
struct facts {
	enum wc_cat cat;
	uint32_t bytes;
	uint32_t depth;
	uint64_t fua;                  /* 0 or 1, added without a test */
	uint64_t seek_known;           /* 0 or 1 */
	uint64_t seek;                 /* 0 or 1 */
	unsigned seek_bin;             /* 0 when no seek */
	bool d2c_known;
	uint64_t d2c;
	size_t d2c_bin;
};

static void facts_of(struct facts *x, const struct wc_request *rq,
		     enum wc_cat cat, bool seek_known, uint64_t dist)
{
	x->cat = cat;
	x->bytes = rq->bytes;
	x->depth = rq->depth;
	x->fua = wc_request_is_fua(rq);
	x->seek_known = seek_known;
	x->seek = seek_known && dist > 128;
	x->seek_bin = 0;
	if (x->seek) {
		unsigned k = 63u - (unsigned)__builtin_clzll(dist);

		x->seek_bin = k < WC_SEEK_BINS ? k : WC_SEEK_BINS - 1;
	}
	x->d2c_known = rq->d_time != WC_NO_TIME && rq->d_time <= rq->c_time;
	x->d2c = 0;
	x->d2c_bin = 0;
	if (x->d2c_known) {
		x->d2c = rq->c_time - rq->d_time;
		x->d2c_bin = lat_bin(x->d2c);
	}
}

/* Each request passes these once or more: a call each would cost more
 * than what they do. */

/* Per-request figures counted where the request completed. */
WC_HOT void count_request(struct fig *g, const struct facts *x)
{
	struct wc_figures *f = &g->f;

	f->requests[x->cat]++;
	f->bytes[x->cat] += x->bytes;
	f->fua_writes += x->fua;
	f->seek_candidates += x->seek_known;
	f->seeks += x->seek;
	f->seek_hist[x->seek_bin] += x->seek;
	if (x->d2c_known) {
		lat_add(&f->d2c, g->lat_d2c, x->d2c, x->d2c_bin);
		if (x->cat == WC_CAT_FLUSH)
			lat_add(&f->flush_d2c, g->lat_flush, x->d2c,
				x->d2c_bin);
	}
	if (x->depth > f->max_depth)
		f->max_depth = x->depth;
}

/* bin: the slice's positioning bin, or SIZE_MAX to work it out; bytes:
 * what it splits against (pos_kind). */
WC_HOT void add_slice(struct fig *g, enum wc_cat cat, enum pos_kind k,
		      uint64_t ns, double bytes, size_t bin)
{
	g->f.time_ns[cat] += ns;
	if (k == POS_NONE || bytes <= 0)
		return;
	if (bin == SIZE_MAX)
		bin = pos_bin(ns, bytes);
	if (k == POS_MEDIA) {
		g->pos_s[bin] += ns;
		g->pos_b[bin] += bytes;
	} else {
		g->dpos_s[bin] += ns;
		g->dpos_b[bin] += bytes;
	}
}

static bool name_eq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* The row of comm in the table t of *n names (at most max; the last
 * row gathers every name past the limit as "(other)"). */
static struct wc_wait *name_row(struct wc_wait *t, size_t *n, size_t max,
				const char *comm)
{
	size_t i;

	if (!comm || !comm[0])
		comm = "(unknown)";
	for (i = 0; i < *n; i++)
		if (name_eq(t[i].comm, comm))
			return &t[i];
	if (*n >= max - 1)
		comm = "(other)";
	for (i = 0; i < *n; i++)
		if (name_eq(t[i].comm, comm))
			return &t[i];
	i = (*n)++;
	snprintf(t[i].comm, sizeof(t[i].comm), "%s", comm);
	return &t[i];
}

/* The pids of t to its rows of at most max names, each named by the
 * conf's resolver; t then holds no pid. */
static void names_fold(const struct wc_account *ac, struct names *t,
		       size_t max)
{
	size_t i;

	for (i = 0; i < t->npids; i++) {
		const struct by_pid *p = &t->pids[i];
		struct wc_wait *w = name_row(t->rows, &t->nrows, max,
					     ac->name ? ac->name(ac->name_arg,
								 p->pid) :
							NULL);

		w->requests += p->requests;
		w->wait_ns += p->ns;
		w->bytes += p->bytes;
	}
	t->npids = 0;
	t->last = 0;
	memset(t->slot, 0, sizeof(t->slot));
}

/* The pid's tally in t, made (zero) at its first request. */
static struct by_pid *pid_find(const struct wc_account *ac, struct names *t,
			       size_t max, uint32_t pid)
{
	size_t h = (size_t)((pid * 2654435761u) & (PID_HASH - 1)), k;

	for (; (k = t->slot[h]) != 0; h = (h + 1) & (PID_HASH - 1))
		if (t->pids[k - 1].pid == pid)
			return &t->pids[t->last = k - 1];
	if (t->npids == WC_ACCOUNT_PIDS) {
		names_fold(ac, t, max);
		return pid_find(ac, t, max, pid);
	}
	k = t->npids++;
	t->slot[h] = (uint16_t)(k + 1);
	memset(&t->pids[k], 0, sizeof(t->pids[k]));
	t->pids[k].pid = pid;
	return &t->pids[t->last = k];
}

/* The pid's tally in t: mostly the last request's. */
WC_HOT struct by_pid *pid_tally(const struct wc_account *ac, struct names *t,
				size_t max, uint32_t pid)
{
	struct by_pid *p = &t->pids[t->last];

	if (t->npids && p->pid == pid)
		return p;
	return pid_find(ac, t, max, pid);
}

/* One request of pid's and its ns in t. */
WC_HOT void tally(const struct wc_account *ac, struct names *t, size_t max,
		  uint32_t pid, uint64_t ns)
{
	struct by_pid *p = pid_tally(ac, t, max, pid);

	p->requests++;
	p->ns += ns;
}

/* Most time first; a handful of names, insertion sort will do. */
static void sort_tally(struct wc_wait *t, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct wc_wait w = t[i];

		for (j = i; j > 0 && t[j - 1].wait_ns < w.wait_ns; j--)
			t[j] = t[j - 1];
		t[j] = w;
	}
}

/* Every phase tested against the request: for one that reaches over an
 * edge, or completes on one. */
static void add_phases_each(struct wc_account *ac, struct adev *d,
			    const struct wc_request *rq, enum wc_cat cat,
			    enum pos_kind k, double pbytes, uint64_t a,
			    uint64_t slice, size_t bin, const struct facts *x)
{
	uint64_t c = rq->c_time;
	size_t p;

	for (p = 0; p < ac->nphases; p++) {
		const struct wc_phase_window *w = &ac->phases[p];
		struct fig *g = &d->phases[p];
		uint64_t o = overlap(a, c, w->start, w->end);

		if (o) {
			double b = slice ? pbytes * (double)o /
					   (double)slice : 0.0;

			/* Most requests lie inside one phase: the same
			 * slice, the same bin. */
			add_slice(g, cat, k, o, b,
				  o == slice && b == pbytes ? bin : SIZE_MAX);
		}
		if (rq->d_time != WC_NO_TIME && rq->d_time <= c)
			g->f.inflight_ns += overlap(rq->d_time, c, w->start,
						    w->end);
		if (inside(c, w->start, w->end))
			count_request(g, x);
	}
}

/* Points ac's span at the one that holds t; false when t is not
 * strictly inside it (an edge, or 0 or UINT64_MAX at the ends). */
static bool span_find(struct wc_account *ac, uint64_t t)
{
	size_t lo = 0, hi = ac->nedges;

	/* k: the number of edges at or before t. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ac->edges[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	ac->span_lo = lo > 0 ? ac->edges[lo - 1] : 0;
	ac->span_hi = lo < ac->nedges ? ac->edges[lo] : UINT64_MAX;
	ac->span_cover = ac->cover[lo];
	ac->span_n = ac->ncover[lo];
	return t > ac->span_lo && t < ac->span_hi;
}

/* What the request adds to the phases.  When it lies within one span
 * from its earliest time (D, or its slice's start) to c, and c is not an
 * edge, the phases that cover the span hold all of it and the others
 * none: each covering phase gets what the device got, the rest nothing,
 * with no test per phase; completions mostly stay in one span. */
WC_HOT void add_phases(struct wc_account *ac, struct adev *d,
		    const struct wc_request *rq, enum wc_cat cat,
		    enum pos_kind k, double pbytes, uint64_t a,
		    uint64_t slice, size_t bin, const struct facts *x)
{
	uint64_t c = rq->c_time, from = a;
	bool d2c = rq->d_time != WC_NO_TIME && rq->d_time <= c;
	double b;
	size_t i;

	if (d2c && rq->d_time < from)
		from = rq->d_time;
	if (!(c > ac->span_lo && c < ac->span_hi) && !span_find(ac, c))
		goto each;
	if (from < ac->span_lo)
		goto each;
	if (ac->span_n == 0)
		return;
	b = slice ? pbytes * (double)slice / (double)slice : 0.0;
	if (b != pbytes)
		bin = SIZE_MAX;
	for (i = 0; i < ac->span_n; i++) {
		struct fig *g = &d->phases[ac->span_cover[i]];

		if (slice)
			add_slice(g, cat, k, slice, b, bin);
		if (d2c)
			g->f.inflight_ns += c - rq->d_time;
		count_request(g, x);
	}
	return;
each:
	add_phases_each(ac, d, rq, cat, k, pbytes, a, slice, bin, x);
}

/* The one phase that gets all of the request, exactly what its device
 * gets (the same slice, the same bytes and bin), or NULL when another
 * case holds (add_phases() then): no phase covers its span, several do,
 * it reaches over an edge or completes on one, its slice is 0 (the
 * device gets its bytes in bin 0 then, the phases nothing), or bytes *
 * slice / slice is not the bytes. */
WC_HOT struct fig *sole_phase(struct wc_account *ac, struct adev *d,
			   const struct wc_request *rq, double pbytes,
			   uint64_t a, uint64_t slice)
{
	uint64_t c = rq->c_time, from = a;

	/* D, when it counts, is at or before the slice's start. */
	if (rq->d_time <= c)
		from = rq->d_time;
	if (!(c > ac->span_lo && c < ac->span_hi) && !span_find(ac, c))
		return NULL;
	if (from < ac->span_lo || ac->span_n != 1 || slice == 0 ||
	    pbytes * (double)slice / (double)slice != pbytes)
		return NULL;
	return &d->phases[ac->span_cover[0]];
}

static void lat_merge(struct wc_latency *to, uint64_t *to_bins,
		      const struct wc_latency *from, const uint64_t *bins)
{
	size_t i;

	if (from->n == 0)
		return;
	if (to->n == 0 || from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->n += from->n;
	to->sum += from->sum;
	for (i = 0; i < LAT_BINS; i++)
		to_bins[i] += bins[i];
}

/* Adds what a streak counted to g: every figure but pos_b, which the streak
 * does not keep. */
static void fig_merge(struct fig *g, const struct fig *streak)
{
	struct wc_figures *f = &g->f;
	const struct wc_figures *r = &streak->f;
	size_t i;

	for (i = 0; i < WC_NCAT; i++) {
		f->time_ns[i] += r->time_ns[i];
		f->requests[i] += r->requests[i];
		f->bytes[i] += r->bytes[i];
	}
	f->fua_writes += r->fua_writes;
	f->seeks += r->seeks;
	f->seek_candidates += r->seek_candidates;
	for (i = 0; i < WC_SEEK_BINS; i++)
		f->seek_hist[i] += r->seek_hist[i];
	lat_merge(&f->flush_d2c, g->lat_flush, &r->flush_d2c,
		  streak->lat_flush);
	lat_merge(&f->d2c, g->lat_d2c, &r->d2c, streak->lat_d2c);
	f->inflight_ns += r->inflight_ns;
	if (r->max_depth > f->max_depth)
		f->max_depth = r->max_depth;
	for (i = 0; i < POS_BINS; i++) {
		g->pos_s[i] += streak->pos_s[i];
		g->dpos_s[i] += streak->dpos_s[i];
	}
}

/* Gives the streak's figures to its phase and its device; the streak is then
 * empty and of no phase. */
static void streak_fold(struct adev *d)
{
	if (!d->streak_phase)
		return;
	fig_merge(&d->whole, &d->streak);
	fig_merge(d->streak_phase, &d->streak);
	memset(&d->streak, 0, sizeof(d->streak));
	d->streak_phase = NULL;
	d->streak_n = 0;
}

/* Whether the streak may be g's from now on: a streak younger than RUN_MIN
 * stays; its device and g then count the request themselves. */
static bool streak_take(struct adev *d, struct fig *g)
{
	if (d->streak_phase && d->streak_n < STREAK_MIN)
		return false;
	streak_fold(d);
	d->streak_phase = g;
	return true;
}

/* The process a request is of: the one that queued it, a flush's the
 * thread that asked for it (tracker.h), not the kworker's. */
static uint32_t process_of(const struct wc_request *rq)
{
	return rq->has_cause ? rq->cause_pid : rq->pid;
}

/* The part of [from, c] a table by process takes: inside the window
 * when one was given (*part), and whether the request completed there,
 * so that it counts as a request of that window; all of it, and true,
 * without one.  The window is the last phase; without one there may be
 * no phase at all, and no element before the first. */
static bool window_part(const struct wc_account *ac, uint64_t from,
			uint64_t c, uint64_t *part)
{
	const struct wc_phase_window *w;

	if (!ac->has_window)
		return true;
	w = &ac->phases[ac->nphases - 1];
	*part = overlap(from, c, w->start, w->end);
	return inside(c, w->start, w->end);
}

/* The process's line: its slice within the window (the whole slice
 * without one), the request when it completed there. */
static void add_process(struct wc_account *ac, struct adev *d,
			const struct wc_request *rq, uint64_t a, uint64_t slice)
{
	uint64_t o = slice;
	struct by_pid *p;

	if (!window_part(ac, a, rq->c_time, &o)) {
		if (o)
			pid_tally(ac, &d->procs, WC_MAX_COMMS,
				  process_of(rq))->ns += o;
		return;
	}
	p = pid_tally(ac, &d->procs, WC_MAX_COMMS, process_of(rq));
	p->requests++;
	p->ns += o;
	p->bytes += rq->bytes;
}

/* A sync request's wait, Q to C, to the waits by the pid that queued
 * it.  With a window, as a process's line is (add_process()): the part
 * of the wait inside it, the request when it completed there, so that a
 * phase's table names who waited in that phase, not over the whole
 * trace, and two windows side by side add up to the two as one. */
static void add_wait(struct wc_account *ac, const struct wc_request *rq)
{
	uint64_t ns = rq->c_time - rq->q_time;

	if (!window_part(ac, rq->q_time, rq->c_time, &ns)) {
		if (ns)
			pid_tally(ac, &ac->waits, WC_MAX_COMMS, rq->pid)->ns += ns;
		return;
	}
	tally(ac, &ac->waits, WC_MAX_COMMS, rq->pid, ns);
}

/* A flush's slice to the device's flushers, by the thread that asked
 * for it.  With a window, as the figures count requests: a flush that
 * completed inside it, its slice cut to it; the issuers named are then
 * those of the window's flushes, not the whole trace's. */
static void add_flusher(struct wc_account *ac, struct adev *d,
			const struct wc_request *rq, uint64_t a, uint64_t slice)
{
	if (!window_part(ac, a, rq->c_time, &slice))
		return;
	tally(ac, &d->flushers, WC_MAX_FLUSHERS, process_of(rq), slice);
}

/* [lo, hi): the device's own work that no slice covers, to the device
 * and to the phases that hold it; with a window, the window's part to
 * the time some device was busy. */
static void work_credit(struct wc_account *ac, struct adev *d, uint64_t lo,
			uint64_t hi)
{
	size_t p;

	if (hi <= lo)
		return;
	d->whole.f.internal_ns += hi - lo;
	for (p = 0; p < ac->nphases; p++)
		d->phases[p].f.internal_ns += overlap(lo, hi, ac->phases[p].start,
						      ac->phases[p].end);
	/* The time some device was busy takes the disk's in place of its
	 * partitions', as their slices. */
	if (ac->disk && d != ac->disk && part_of(ac, d->device) >= 0)
		return;
	if (ac->has_window) {
		const struct wc_phase_window *w = &ac->phases[ac->nphases - 1];

		union_add(&ac->any, lo > w->start ? lo : w->start,
			  hi < w->end ? hi : w->end);
	} else {
		union_add(&ac->any, lo, hi);
	}
}

/* The held piece as a range destaged: to the device from the trace's
 * first event on, to each phase that it begins in. */
static void work_count(struct wc_account *ac, struct adev *d)
{
	size_t p;

	if (d->work_lo >= d->work_from) {
		d->whole.f.internal_ranges++;
		d->whole.f.internal_bytes += d->work_bytes;
	}
	for (p = 0; p < ac->nphases; p++)
		if (d->work_lo >= ac->phases[p].start &&
		    d->work_lo < ac->phases[p].end) {
			d->phases[p].f.internal_ranges++;
			d->phases[p].f.internal_bytes += d->work_bytes;
		}
}

/* The device's own work up to the slice [a, c] that ends the time
 * without a slice from g0: its part in [g0, a) is busy time of no
 * request; its part in [a, c] the slice has already (the request
 * waited for it, or the trace saw the disk busy then); the piece that
 * reaches past c is held for the next completion.  Pieces are pulled
 * only while they begin before c: one is held at a time. */
static void work_upto(struct wc_account *ac, struct adev *d, uint64_t g0,
		      uint64_t a, uint64_t c)
{
	struct wc_account_work w;

	while (d->work_fn) {
		if (!d->work_have) {
			if (d->work_fn(d->work_arg, &w) <= 0) {
				d->work_fn = NULL;
				break;
			}
			/* Disjoint, in order: what reaches back is cut. */
			if (w.start < d->work_prev)
				w.start = d->work_prev;
			if (w.end <= w.start)
				continue;
			d->work_lo = w.start;
			d->work_hi = d->work_prev = w.end;
			d->work_bytes = w.bytes;
			d->work_have = true;
			d->work_counted = false;
		}
		if (d->work_lo >= c)
			break;
		if (!d->work_counted) {
			work_count(ac, d);
			d->work_counted = true;
		}
		work_credit(ac, d, d->work_lo > g0 ? d->work_lo : g0,
			    d->work_hi < a ? d->work_hi : a);
		if (d->work_hi > c) {
			d->work_lo = c;
			break;
		}
		d->work_have = false;
	}
}

/* The request on d's figures (a device's, or the disk's); IN_ANY: its
 * slice goes to the time some device was busy.  Returns where its
 * slice began, or UINT64_MAX for a request never completed. */
static uint64_t account_on(struct wc_account *ac, struct adev *d,
			   const struct wc_request *rq, enum wc_cat cat,
			   bool in_any)
{
	uint64_t a, c, slice, dist = 0;
	bool seek_known = false;
	struct facts x;
	struct fig *t, *g;
	size_t bin = SIZE_MAX;
	enum pos_kind kind = POS_NONE;
	double pbytes = 0;

	if (!rq->completed) {
		d->whole.f.unfinished++;
		/* At the device from its D; without one it never was. */
		if (rq->d_time != WC_NO_TIME) {
			uint64_t b = bound_of(ac, rq->device);

			unfinished_add(d, rq->d_time,
				       rq->d_time > UINT64_MAX - b ?
				       UINT64_MAX : rq->d_time + b);
		}
		return UINT64_MAX;
	}
	c = rq->c_time;
	a = wc_account_slice_start(rq, d->have_prev_c, d->prev_c);
	slice = c - a;
	if (a > (d->have_prev_c ? d->prev_c : 0))
		stretch_add(d, d->have_prev_c ? d->prev_c : 0, a);
	if (d->work_fn)
		work_upto(ac, d, d->have_prev_c ? d->prev_c : d->work_from,
			  a, c);

	if (rq->bytes && d->have_prev_end) {
		seek_known = true;
		dist = rq->sector > d->prev_end ? rq->sector - d->prev_end :
						  d->prev_end - rq->sector;
	}
	/* What the slice splits against.  Behind a write-back cache a
	 * write (but a FUA one) is absorbed: the platter does nothing for
	 * it then, its slice is the interface's transfer, and its bytes are
	 * the media's work of the next flush, whose slice is then split as
	 * the destage of those bytes.  A read is a media access whatever
	 * the cache (the trace cannot tell a read-ahead hit). */
	if (has_positioning(cat) && rq->bytes) {
		if (d->cached && (rq->action & WC_TC(WC_TC_WRITE)) &&
		    !wc_request_is_fua(rq)) {
			d->absorbed += rq->bytes;
		} else {
			kind = POS_MEDIA;
			pbytes = (double)rq->bytes;
		}
	} else if (cat == WC_CAT_FLUSH && d->cached) {
		if (d->absorbed) {
			kind = POS_DESTAGE;
			pbytes = (double)d->absorbed;
		}
		d->absorbed = 0;
	}
	/* Streaming: it starts where the previous one ended, so the slice
	 * is transfer only; what it shows is the media rate (not behind
	 * the cache: that would be the interface's). */
	if (seek_known && dist == 0 && kind == POS_MEDIA &&
	    rq->bytes >= WC_STREAM_MIN_BYTES && slice > 0) {
		d->stream_bytes += rq->bytes;
		d->stream_ns += slice;
		d->stream_n++;
	}

	facts_of(&x, rq, cat, seek_known, dist);
	if (kind != POS_NONE)
		bin = pos_bin(slice, pbytes);
	/* The figures that count the request: its device's, or the streak's
	 * when it goes wholly to the streak's phase g. */
	t = &d->whole;
	g = NULL;
	if (ac->nphases && (g = sole_phase(ac, d, rq, pbytes, a, slice))) {
		if (g == d->streak_phase || streak_take(d, g)) {
			t = &d->streak;
			d->streak_n++;
		} else {
			g = NULL;
		}
	}
	count_request(t, &x);
	t->f.time_ns[cat] += slice;
	if (in_any && ac->has_window) {
		/* The other devices' busy time is the window's, as the
		 * main device's is (the window is the last phase). */
		const struct wc_phase_window *w = &ac->phases[ac->nphases - 1];

		union_add(&ac->any, a > w->start ? a : w->start,
			  c < w->end ? c : w->end);
	} else if (in_any) {
		union_add(&ac->any, a, c);
	}
	if (kind == POS_MEDIA) {
		t->pos_s[bin] += slice;
		d->whole.pos_b[bin] += pbytes;
		if (g)
			g->pos_b[bin] += pbytes;
	} else if (kind == POS_DESTAGE) {
		t->dpos_s[bin] += slice;
		d->whole.dpos_b[bin] += pbytes;
		if (g)
			g->dpos_b[bin] += pbytes;
	}
	/* No D: WC_NO_TIME is above any C. */
	if (rq->d_time <= c)
		t->f.inflight_ns += c - rq->d_time;
	if (ac->nphases && !g)
		add_phases(ac, d, rq, cat, kind, pbytes, a, slice, bin, &x);

	if (cat == WC_CAT_FLUSH)
		add_flusher(ac, d, rq, a, slice);
	add_process(ac, d, rq, a, slice);

	/* The high-water mark, not the last c: in a trace whose clock ran
	 * backwards a completion can come before the previous one, and
	 * slices must still never overlap or the parts outgrow the window. */
	if (!d->have_prev_c || c > d->prev_c)
		d->prev_c = c;
	d->have_prev_c = true;
	if (rq->bytes) {
		d->have_prev_end = true;
		d->prev_end = rq->sector + ((uint64_t)rq->bytes + 511) / 512;
	}
	return a;
}

/* Partition k's part of the request the disk took, its slice from a:
 * the slice within the window, the request when it completed there. */
static void part_add(struct wc_account *ac, size_t k,
		     const struct wc_request *rq, uint64_t a)
{
	struct wc_account_part *pt = &ac->parts[k];
	uint64_t o = rq->c_time - a;

	if (window_part(ac, a, rq->c_time, &o)) {
		pt->requests++;
		pt->bytes += rq->bytes;
	}
	pt->busy_ns += o;
}

void wc_account_add(struct wc_account *ac, const struct wc_request *rq,
		    enum wc_cat cat)
{
	struct adev *d = dev_get(ac, rq->device);
	int k = ac->disk ? part_of(ac, rq->device) : -1;
	struct wc_request on_disk;
	uint64_t a;

	if (!d) {
		ac->ignored_devices++;
		return;
	}
	/* A partition's slices are the disk's in the time some device was
	 * busy: its own would count as busy what the disk's other
	 * partition kept it from. */
	account_on(ac, d, rq, cat, k < 0);
	if (rq->completed && rq->q_time != WC_NO_TIME &&
	    (rq->action & WC_TC(WC_TC_SYNC)) && rq->q_time <= rq->c_time)
		add_wait(ac, rq);
	if (k < 0)
		return;
	on_disk = *rq;
	on_disk.sector += ac->part_offset[k];
	if (rq->disk_depth)
		on_disk.depth = rq->disk_depth;
	a = account_on(ac, ac->disk, &on_disk, cat, true);
	if (a != UINT64_MAX)
		part_add(ac, (size_t)k, rq, a);
}

/* Whether device's media rate must not be estimated (conf's
 * no_estimate). */
static bool no_estimate(const struct wc_account *ac, uint32_t device)
{
	size_t i;

	for (i = 0; i < ac->nno_estimate; i++)
		if (ac->no_estimate[i] == device)
			return true;
	return false;
}

static void fig_finish(struct fig *g, const struct adev *d, uint64_t start,
		       uint64_t end, double rate)
{
	struct wc_figures *f = &g->f;
	uint64_t busy = 0, pos_total = 0, dslices = 0;
	double pos = 0, dpos = 0, t;
	int c;
	size_t i;

	f->start = start;
	f->end = end;
	f->window_ns = end > start ? end - start : 0;
	for (c = 0; c < WC_NCAT; c++) {
		busy += f->time_ns[c];
		if (has_positioning((enum wc_cat)c))
			pos_total += f->time_ns[c];
	}
	/* Slices lie inside the window by construction; the clamp only
	 * guards against a caller giving a window narrower than its
	 * requests. */
	f->idle_ns = f->window_ns > busy ? f->window_ns - busy : 0;
	/* The device's own work lies outside every slice by construction;
	 * the clamp keeps the partition whatever the pieces were. */
	if (f->internal_ns > f->idle_ns)
		f->internal_ns = f->idle_ns;
	f->idle_ns -= f->internal_ns;
	f->outstanding_ns = outstanding_in(d, start, end);
	if (f->outstanding_ns > f->idle_ns)
		f->outstanding_ns = f->idle_ns;
	f->idle_ns -= f->outstanding_ns;
	lat_finish(&f->flush_d2c, g->lat_flush);
	lat_finish(&f->d2c, g->lat_d2c);
	f->positioning_known = rate > 0;
	if (rate <= 0)
		return;
	t = 1e9 / rate;
	for (i = 0; i < POS_BINS; i++) {
		double x = (double)g->pos_s[i] - g->pos_b[i] * t;
		double y = (double)g->dpos_s[i] - g->dpos_b[i] * t;

		if (x > 0)
			pos += x;
		if (y > 0)
			dpos += y;
		dslices += g->dpos_s[i];
	}
	f->positioning_ns = (uint64_t)llround(pos);
	if (f->positioning_ns > pos_total)
		f->positioning_ns = pos_total;
	f->destage_positioning_ns = (uint64_t)llround(dpos);
	if (f->destage_positioning_ns > dslices)
		f->destage_positioning_ns = dslices;
	f->destage_transfer_ns = dslices - f->destage_positioning_ns;
	f->positioning_ns += f->destage_positioning_ns;
}

/* Closes d's figures over [first, last] and its phases. */
static void dev_finish(struct wc_account *ac, struct adev *d, uint64_t first,
		       uint64_t last)
{
	size_t p;

	/* The device's own work after its last completion, to the
	 * window's end. */
	if (d->work_fn)
		work_upto(ac, d, d->have_prev_c ? d->prev_c : d->work_from,
			  last, last);
	streak_fold(d);
	names_fold(ac, &d->flushers, WC_MAX_FLUSHERS);
	sort_tally(d->flushers.rows, d->flushers.nrows);
	names_fold(ac, &d->procs, WC_MAX_COMMS);
	sort_tally(d->procs.rows, d->procs.nrows);
	d->rate = ac->media_rate;
	d->estimated = false;
	if (d->rate <= 0 && !no_estimate(ac, d->device) &&
	    d->stream_n >= STREAM_MIN_COUNT &&
	    d->stream_ns > 0) {
		d->rate = (double)d->stream_bytes * 1e9 /
			  (double)d->stream_ns;
		d->estimated = true;
	}
	fig_finish(&d->whole, d, first, last, d->rate);
	for (p = 0; p < ac->nphases; p++)
		fig_finish(&d->phases[p], d, ac->phases[p].start,
			   ac->phases[p].end, d->rate);
	if (ac->has_window) {
		uint64_t unfinished = d->whole.f.unfinished;

		d->whole = d->phases[ac->nphases - 1];
		d->whole.f.unfinished = unfinished;
	}
}

void wc_account_finish(struct wc_account *ac, uint64_t first, uint64_t last)
{
	size_t i;

	if (ac->has_window && ac->window_in_trace) {
		/* Slices lie within [first, last]: cutting the window to it
		 * takes only idle time away. */
		struct wc_phase_window *w = &ac->phases[ac->nphases - 1];

		w->start = w->start > first ? w->start : first;
		w->end = w->end < last ? w->end : last;
		if (w->end < w->start)
			w->end = w->start;
	}

	for (i = 0; i < wc_devtab_count(&ac->devtab); i++)
		dev_finish(ac, ac->devs[i], first, last);
	if (ac->disk)
		dev_finish(ac, ac->disk, first, last);
	names_fold(ac, &ac->waits, WC_MAX_COMMS);
	sort_tally(ac->waits.rows, ac->waits.nrows);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The edges, sorted and distinct, and each span's covering phases.  A
 * phase that ends before it starts covers nothing and counts nothing;
 * an empty one only counts completions on its edge, which never lie
 * inside a span. */
static void spans_init(struct wc_account *ac)
{
	size_t i, n = 0, k, p;

	for (p = 0; p < ac->nphases; p++) {
		ac->edges[n++] = ac->phases[p].start;
		ac->edges[n++] = ac->phases[p].end;
	}
	qsort(ac->edges, n, sizeof(ac->edges[0]), cmp_u64);
	for (i = 0, k = 0; i < n; i++)
		if (k == 0 || ac->edges[i] != ac->edges[k - 1])
			ac->edges[k++] = ac->edges[i];
	ac->nedges = k;
	for (k = 0; k <= ac->nedges; k++) {
		uint64_t lo = k > 0 ? ac->edges[k - 1] : 0;
		uint64_t hi = k < ac->nedges ? ac->edges[k] : UINT64_MAX;

		for (p = 0; p < ac->nphases; p++)
			if (ac->phases[p].start <= lo &&
			    ac->phases[p].end >= hi)
				ac->cover[k][ac->ncover[k]++] =
					(unsigned char)p;
	}
	/* No span yet: the first completion looks its span up. */
	ac->span_lo = ac->span_hi = 0;
}

/* The disk of conf's partitions, when it names two or more: its
 * figures are its first partition's dev_t's, its write cache on when
 * capture.conf's is and it is on one of them (or every device). */
static int disk_open(struct wc_account *ac, const struct wc_account_conf *conf)
{
	size_t k, n = conf->ndisk < WC_ACCOUNT_PARTS ? conf->ndisk :
						       WC_ACCOUNT_PARTS;
	bool cached = ac->write_cache == 1 && ac->cache_device == 0;

	for (k = 0; k < n; k++) {
		if (part_of(ac, conf->disk[k]) >= 0)
			continue;
		ac->parts[ac->nparts].device = conf->disk[k];
		ac->part_offset[ac->nparts++] = conf->disk_offset[k];
		if (ac->write_cache == 1 && ac->cache_device == conf->disk[k])
			cached = true;
	}
	if (ac->nparts < 2) {
		ac->nparts = 0;
		return 0;
	}
	ac->disk = adev_new(ac, ac->parts[0].device, cached);
	return ac->disk ? 0 : -1;
}

int wc_account_open(struct wc_account **out, const struct wc_account_conf *conf,
		    struct wc_err *err)
{
	struct wc_account *ac;

	*out = NULL;
	if (conf->nphases > WC_MAX_PHASES)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, WC_NO_OFFSET,
				  "more than %d phases", WC_MAX_PHASES);
	ac = calloc(1, sizeof(*ac));
	if (!ac)
		return wc_err_oom(err, NULL, NULL);
	wc_devtab_init(&ac->devtab, WC_MAX_DEVICES);
	ac->media_rate = conf->media_rate;
	ac->nno_estimate = conf->nno_estimate < WC_MAX_DEVICES ?
			   conf->nno_estimate : WC_MAX_DEVICES;
	memcpy(ac->no_estimate, conf->no_estimate,
	       ac->nno_estimate * sizeof(ac->no_estimate[0]));
	ac->name = conf->name;
	ac->name_arg = conf->name_arg;
	ac->write_cache = conf->write_cache;
	ac->cache_device = conf->cache_device;
	ac->nphases = conf->nphases;
	if (conf->nphases)
		memcpy(ac->phases, conf->phases,
		       conf->nphases * sizeof(ac->phases[0]));
	if (conf->has_window) {
		/* The window is a phase like the others, whose figures
		 * become the device's at the end. */
		ac->has_window = true;
		ac->window_in_trace = conf->window_in_trace;
		ac->phases[ac->nphases++] = conf->window;
	}
	spans_init(ac);
	ac->bound_default = WC_TRACKER_BOUND_NS;
	if (disk_open(ac, conf) < 0) {
		wc_account_free(ac);
		return wc_err_oom(err, NULL, NULL);
	}
	*out = ac;
	return 0;
}

/* DEVICE's place in DEVS[0..n), or n when it is not there (a new one),
 * or SIZE_MAX when that is past WC_MAX_DEVICES. */
static size_t dev_slot(const uint32_t *devs, size_t n, uint32_t device)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (devs[i] == device)
			return i;
	return n < WC_MAX_DEVICES ? n : SIZE_MAX;
}

int wc_account_set_bound(struct wc_account *ac, uint32_t device, uint64_t ns)
{
	size_t i;

	if (!ac || ns == 0)
		return -1;
	if (device == 0) {
		ac->bound_default = ns;
		return 0;
	}
	i = dev_slot(ac->bound_dev, ac->nbounds, device);
	if (i == SIZE_MAX)
		return -1;
	ac->bound_dev[i] = device;
	ac->bound_ns[i] = ns;
	if (i == ac->nbounds)
		ac->nbounds++;
	return 0;
}

int wc_account_set_work(struct wc_account *ac, uint32_t device,
			wc_account_work_fn *next, void *arg, uint64_t from)
{
	size_t i;
	int k;

	if (!ac || !next)
		return -1;
	i = dev_slot(ac->work_dev, ac->nwork, device);
	if (i == SIZE_MAX)
		return -1;
	ac->work_dev[i] = device;
	ac->work_fn[i] = next;
	ac->work_arg[i] = arg;
	ac->work_from[i] = from;
	if (i == ac->nwork)
		ac->nwork++;
	/* A device already met (wc_account_add_device()) takes it now. */
	k = wc_devtab_find(&ac->devtab, device);
	if (k >= 0)
		work_attach(ac, ac->devs[k], next, arg, from);
	return 0;
}

int wc_account_set_disk_work(struct wc_account *ac, wc_account_work_fn *next,
			     void *arg, uint64_t from)
{
	if (!ac || !next || !ac->disk)
		return -1;
	work_attach(ac, ac->disk, next, arg, from);
	return 0;
}

uint64_t wc_account_busy_any(const struct wc_account *ac)
{
	return ac->any.total;
}

size_t wc_account_ndevices(const struct wc_account *ac)
{
	return wc_devtab_count(&ac->devtab);
}

/* Device i, or the disk one past the devices; NULL past that. */
static const struct adev *dev_at(const struct wc_account *ac, size_t i)
{
	size_t n = wc_devtab_count(&ac->devtab);

	if (i < n)
		return ac->devs[i];
	return i == n ? ac->disk : NULL;
}

int wc_account_disk(const struct wc_account *ac)
{
	return ac->disk ? (int)wc_devtab_count(&ac->devtab) : -1;
}

size_t wc_account_nparts(const struct wc_account *ac)
{
	return ac->nparts;
}

const struct wc_account_part *wc_account_part(const struct wc_account *ac,
					      size_t k)
{
	return k < ac->nparts ? &ac->parts[k] : NULL;
}

const struct wc_figures *wc_account_device(const struct wc_account *ac,
					   size_t i)
{
	const struct adev *d = dev_at(ac, i);

	return d ? &d->whole.f : NULL;
}

int wc_account_find(const struct wc_account *ac, uint32_t device)
{
	return wc_devtab_find(&ac->devtab, device);
}

const struct wc_figures *wc_account_phase(const struct wc_account *ac,
					  size_t i, size_t p)
{
	const struct adev *d = dev_at(ac, i);

	if (!d || p >= ac->nphases - ac->has_window)
		return NULL;
	return &d->phases[p].f;
}

double wc_account_media_rate(const struct wc_account *ac, size_t i,
			     bool *estimated)
{
	const struct adev *d = dev_at(ac, i);

	if (estimated)
		*estimated = d ? d->estimated : false;
	return d ? d->rate : 0;
}

size_t wc_account_nflushers(const struct wc_account *ac, size_t i)
{
	const struct adev *d = dev_at(ac, i);

	return d ? d->flushers.nrows : 0;
}

const struct wc_wait *wc_account_flusher(const struct wc_account *ac, size_t i,
					 size_t k)
{
	const struct adev *d = dev_at(ac, i);

	return d && k < d->flushers.nrows ? &d->flushers.rows[k] : NULL;
}

size_t wc_account_nprocesses(const struct wc_account *ac, size_t i)
{
	const struct adev *d = dev_at(ac, i);

	return d ? d->procs.nrows : 0;
}

const struct wc_wait *wc_account_process(const struct wc_account *ac,
					 size_t i, size_t k)
{
	const struct adev *d = dev_at(ac, i);

	return d && k < d->procs.nrows ? &d->procs.rows[k] : NULL;
}

size_t wc_account_nwaits(const struct wc_account *ac)
{
	return ac->waits.nrows;
}

const struct wc_wait *wc_account_wait(const struct wc_account *ac, size_t i)
{
	return i < ac->waits.nrows ? &ac->waits.rows[i] : NULL;
}

uint64_t wc_figures_io_bytes(const struct wc_figures *f)
{
	uint64_t sum = 0;
	int c;

	for (c = 0; c < WC_NCAT; c++)
		sum += f->bytes[c];
	return sum;
}

void wc_account_free(struct wc_account *ac)
{
	size_t i;

	if (!ac)
		return;
	for (i = 0; i < wc_devtab_count(&ac->devtab); i++)
		adev_free(ac->devs[i]);
	adev_free(ac->disk);
	free(ac);
}
