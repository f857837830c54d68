/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcsynth - writes a synthetic blktrace capture from a scripted disk model
 * whose answers are known, so tests can check what wcanalyze recovers.
 *
 * usage: wcsynth [options] OUT
 *
 *   OUT                 base name: writes OUT.blktrace.0 and OUT.blktrace.1
 *   -c, --capture       OUT is a directory: writes OUT/capture.conf,
 *                       OUT/phases.tsv and OUT/trace/loop9.blktrace.N
 *   -e, --expect FILE   write the true figures (key = value, ns and bytes)
 *   -n, --files N       files copied in phase "copy" (default 300)
 *   -f, --flush-ms X    flush latency (default 12)
 *   -r, --rate MB/s     media rate (default 80, MB = 10^6 bytes)
 *   -s, --seek T,A,F    track-to-track, average, full-stroke seek ms
 *                       (default 1,8.5,20)
 *   -R, --rpm N         spindle speed for rotational latency (default 7200)
 *   -d, --depth N       requests the host keeps at the driver (default 4)
 *   -S, --seed N        random seed (default 1)
 *   -b, --big-endian    write records big-endian
 *   -o, --other-device  also trace a busy source device (loop8) that reads
 *   -N, --ncq           the disk reorders its queue (NCQ-like): it serves
 *                       the dispatched request nearest its head first;
 *                       a flush still passes nothing and is passed by
 *                       nothing
 *   -F, --fsync         the host waits for each journal commit to complete
 *                       before it goes on, as fsync() makes an application
 *                       wait: device time then becomes wall time
 *   -C, --conf KEY=VALUE
 *                       with --capture: capture.conf says KEY = VALUE
 *                       (replacing wcsynth's own line for KEY); repeatable
 *
 * capture.conf names the model (disk_model: every option that changes the
 * disk) and the workload (files, other device) but not the seed: captures
 * that differ only in --seed are runs of one configuration.
 *
 * The disk holds 8 GiB (16,777,216 sectors) and every request lies inside
 * it: file data is written contiguously from sector 4,000,000 and starts
 * over there when it reaches the end (tests/t34-synth-capacity.sh).
 *
 * The host issues in script order, at most --depth requests in flight.
 * The disk serves one request at a time, as soon as it has one: the
 * oldest dispatched, or with --ncq the one nearest its head.  service =
 * positioning + bytes / rate for data, metadata and journal; positioning
 * = seek(cylinders) + rotational latency, 0 for a request starting where
 * the previous one ended; a flush takes the flush latency; a discard
 * 0.2 ms.  The true time per category (--expect) is the sum of the
 * services the model performed, each from the moment the disk began it
 * to its completion, and the true positioning the sum of their
 * positioning parts: the model's own bookkeeping, not the analyser's
 * formula (how the analyser recovers them: docs/methodology.md).
 *
 * Records go through analyze/lib/format/blktrace_format.h, version 7, sequence
 * numbers per CPU from 1, plus process-name notify records.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/blktrace_format.h"
#include "model/classify.h"
#include "format/encode.h"
#include "exitcodes.h"

#define PROG "wcsynth"
#define DEST_DEV WC_DEV_MAKE(7u, 9u)
#define SRC_DEV WC_DEV_MAKE(7u, 8u)
#define CAPACITY (8ull << 21)     /* sectors: 8 GiB */
#define CYLINDERS 100000ull
#define JOURNAL_START 2000000ull
#define JOURNAL_LEN 65536ull
#define META_START 64ull
#define META_LEN 1000000ull
#define DATA_START 4000000ull
#define SRC_START 100000ull
#define SRC_READ 1024ull          /* sectors per source read */
#define NCPU 2

struct opts {
	const char *out;
	const char *expect;
	bool capture;
	unsigned files;
	double flush_ms, rate, seek_t, seek_a, seek_f, rpm;
	unsigned depth;
	unsigned long seed;
	bool big_endian;
	bool other_device;
	bool ncq;
	bool fsync;
	const char *conf[16];     /* --conf KEY=VALUE */
	size_t nconf;
};

/* One request of the script: one or two bios, one dispatch. */
struct req {
	uint32_t device;
	uint64_t sector;
	uint32_t bytes;
	uint32_t bio2;            /* bytes of a second, back-merged bio */
	uint32_t flags;           /* category bits (WC_TC) */
	uint32_t pid;
	enum wc_cat cat;
	uint64_t ready;           /* when the host queues it */
	uint64_t q, d, c;
	uint64_t start;           /* when the disk began serving it */
	uint64_t positioning;     /* the first ns of its service */
	bool blocks;              /* --fsync: the host waits for it */
};

struct event {
	uint64_t time;
	uint64_t sector;
	uint32_t bytes;
	uint32_t action;
	uint32_t pid;
	uint32_t device;
	uint32_t cpu;
	uint64_t order;           /* tie-break: creation order */
	const char *pdu;
	uint16_t pdu_len;
};

static struct req *reqs;
static size_t nreqs, creqs;
static struct event *evs;
static size_t nevs, cevs;
static uint64_t rng_state;
static uint64_t passed_dest;      /* destination requests served before an
				   * older one that was waiting */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(WC_EXIT_FAILURE);
	}
	return q;
}

static double rnd(void)
{
	/* xorshift64*: reproducible across libcs, unlike rand(). */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ull) >> 11) /
	       (double)(1ull << 53);
}

static struct req *add_req(uint32_t device, uint64_t sector, uint32_t bytes,
			   uint32_t flags, uint32_t pid, enum wc_cat cat,
			   uint64_t ready)
{
	struct req *r;

	if (nreqs == creqs) {
		creqs = creqs ? creqs * 2 : 1024;
		reqs = xrealloc(reqs, creqs * sizeof(*reqs));
	}
	r = &reqs[nreqs++];
	memset(r, 0, sizeof(*r));
	r->device = device;
	r->sector = sector;
	r->bytes = bytes;
	r->flags = flags;
	r->pid = pid;
	r->cat = cat;
	r->ready = ready;
	return r;
}

static void add_event(uint64_t time, uint32_t device, uint64_t sector,
		      uint32_t bytes, uint32_t what, uint32_t flags,
		      uint32_t pid, uint32_t cpu)
{
	struct event *e;

	if (nevs == cevs) {
		cevs = cevs ? cevs * 2 : 4096;
		evs = xrealloc(evs, cevs * sizeof(*evs));
	}
	e = &evs[nevs];
	memset(e, 0, sizeof(*e));
	e->time = time;
	e->device = device;
	e->sector = sector;
	e->bytes = bytes;
	e->action = what | (flags << WC_TC_SHIFT);
	e->pid = pid;
	e->cpu = cpu;
	e->order = nevs++;
}

#define TC(b) (1u << (b))
#define F_W TC(WC_TC_WRITE)
#define F_R TC(WC_TC_READ)

enum { PID_CP = 1000, PID_RM = 1001, PID_LOG = 1002, PID_FLUSHER = 1003,
       PID_READER = 1004 };

static const struct { uint32_t pid; const char *comm; } comms[] = {
	{ PID_CP, "cp" }, { PID_RM, "rm" }, { PID_LOG, "xfsaild/loop9" },
	{ PID_FLUSHER, "kworker/u8:1" }, { PID_READER, "tar" },
};

/* A journal commit: preflush, then the log write (FUA). */
static bool fsync_waits;          /* --fsync */

static uint64_t journal_commit(uint64_t t, uint64_t *jpos, uint32_t pid)
{
	uint32_t bytes = 4096u * (1 + (uint32_t)(rnd() * 8));

	add_req(DEST_DEV, 0, 0, F_W | TC(WC_TC_FLUSH) | TC(WC_TC_SYNC), pid,
		WC_CAT_FLUSH, t);
	if (*jpos + bytes / 512 > JOURNAL_START + JOURNAL_LEN)
		*jpos = JOURNAL_START;
	add_req(DEST_DEV, *jpos, bytes,
		F_W | TC(WC_TC_SYNC) | TC(WC_TC_META) | TC(WC_TC_FUA), pid,
		WC_CAT_JOURNAL, t + 1000)->blocks = fsync_waits;
	*jpos += bytes / 512;
	return t + 2000;
}

/* The workload: phase copy writes files, phase delete frees them. */
static void script(const struct opts *o, uint64_t *copy_end)
{
	uint64_t t = 1000000000ull, dpos = DATA_START, jpos = JOURNAL_START;
	unsigned i;

	for (i = 0; i < o->files; i++) {
		uint32_t left = 4096u * (1 + (uint32_t)(rnd() * 96));

		/* Data: consecutive files are contiguous, which gives the
		 * analyser streaming requests to measure the media rate. */
		while (left) {
			uint32_t b = left > 262144u ? 262144u : left;
			struct req *r;

			/* The disk is full: start over at the data area
			 * instead of writing past the end, which would make
			 * every seek longer than a full stroke and the
			 * workload outrun the disk. */
			if (dpos + b / 512 > CAPACITY)
				dpos = DATA_START;
			r = add_req(DEST_DEV, dpos, b, F_W, PID_FLUSHER,
				    WC_CAT_DATA_WRITE, t);
			if (b >= 8192 && rnd() < 0.5) {
				r->bio2 = b / 2 - (b / 2) % 4096;
				r->bytes = b - r->bio2;
			}
			dpos += b / 512;
			left -= b;
			t += 20000;
		}
		if (i % 3 == 0)
			add_req(DEST_DEV, META_START + (uint64_t)(rnd() * META_LEN) / 8 * 8,
				4096, F_W | TC(WC_TC_META), PID_LOG,
				WC_CAT_METADATA, t);
		if (i % 7 == 0)
			add_req(DEST_DEV, META_START + (uint64_t)(rnd() * META_LEN) / 8 * 8,
				4096 * (1 + (uint32_t)(rnd() * 4)),
				F_R | TC(WC_TC_META) | TC(WC_TC_SYNC), PID_CP,
				WC_CAT_METADATA, t);
		if (i % 11 == 5)
			add_req(DEST_DEV, DATA_START + (uint64_t)(rnd() * 4e6) / 8 * 8,
				65536, F_R | TC(WC_TC_SYNC), PID_READER,
				WC_CAT_DATA_READ, t);
		if (i % 10 == 9)
			t = journal_commit(t, &jpos, PID_CP);
		if (o->other_device)
			add_req(SRC_DEV, SRC_START + (uint64_t)i * 2048 %
				(CAPACITY - SRC_START - SRC_READ), 524288u,
				F_R | TC(WC_TC_SYNC), PID_CP, WC_CAT_DATA_READ, t);
		t += (uint64_t)(rnd() * 60e6);
	}
	t = journal_commit(t, &jpos, PID_CP);
	/* The boundary falls while the disk may still be busy: slices
	 * across it must be split between the phases. */
	*copy_end = t + 20000000ull;
	t = *copy_end + 10000000ull;
	for (i = 0; i < o->files; i++) {
		add_req(DEST_DEV, META_START + (uint64_t)(rnd() * META_LEN) / 8 * 8,
			4096, F_W | TC(WC_TC_META), PID_LOG, WC_CAT_METADATA, t);
		if (i % 4 == 0)
			add_req(DEST_DEV, DATA_START + (uint64_t)(rnd() * 4e6) / 8 * 8,
				1048576, F_W | TC(WC_TC_DISCARD), PID_RM,
				WC_CAT_DISCARD, t);
		if (i % 5 == 4)
			t = journal_commit(t, &jpos, PID_RM);
		t += (uint64_t)(rnd() * 40e6);
	}
	journal_commit(t, &jpos, PID_RM);
}

/* Seek time in ns over d cylinders: t + a*sqrt(d-1) + b*(d-1), the curve
 * through the track-to-track, average (over a third of the disk) and
 * full-stroke times; never below track-to-track. */
static double seek_ns(const struct opts *o, uint64_t dcyl)
{
	double n = (double)CYLINDERS, d = (double)dcyl, ms;
	double a = (-10 * o->seek_t + 15 * o->seek_a - 5 * o->seek_f) /
		   (3 * sqrt(n));
	double b = (7 * o->seek_t - 15 * o->seek_a + 8 * o->seek_f) / (3 * n);

	if (dcyl == 0)
		return 0;
	ms = o->seek_t + a * sqrt(d - 1) + b * (d - 1);
	return (ms > o->seek_t ? ms : o->seek_t) * 1e6;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Which of the np dispatched requests p[] (in issue order) the disk
 * serves next: the oldest; with --ncq the one nearest the head (the
 * oldest of equals).  A flush is never passed and never passes: FLUSH
 * CACHE is not a queued command, the disk drains the queue first. */
static size_t pick(const struct opts *o, const size_t *p, size_t np,
		   uint64_t head)
{
	size_t k, best = 0;

	if (!o->ncq)
		return 0;
	for (k = 0; k < np && reqs[p[k]].cat != WC_CAT_FLUSH; k++)
		if (distance(reqs[p[k]].sector, head) <
		    distance(reqs[p[best]].sector, head))
			best = k;
	return best;
}

/* The disk serves r from start: fills r->start, r->positioning, r->c. */
static void serve(const struct opts *o, struct req *r, uint64_t start,
		  uint64_t *head)
{
	double service, pos = 0;

	if (r->cat == WC_CAT_FLUSH) {
		service = o->flush_ms * 1e6;
	} else if (r->cat == WC_CAT_DISCARD) {
		service = 200000;
	} else {
		uint32_t total = r->bytes + r->bio2;

		if (r->sector != *head)
			pos = seek_ns(o, distance(r->sector, *head) *
					    CYLINDERS / CAPACITY) +
			      rnd() * 60e9 / o->rpm;
		service = pos + (double)total / (o->rate * 1e6) * 1e9;
		*head = r->sector + total / 512;
	}
	r->start = start;
	r->positioning = (uint64_t)llround(pos);
	r->c = start + (uint64_t)llround(service);
	if (r->c == start)
		r->c++;
}

/* The host dispatches r at its earliest once a slot is free (slot: 1 ns
 * after the completion that freed the last one); true when it did, by
 * time limit (inclusive) or, with nothing in flight, whenever. */
static bool dispatch(struct req *r, uint64_t slot, uint64_t limit, bool idle)
{
	uint64_t d = r->ready + 5000 + (r->bio2 ? 3000 : 0);

	if (d < slot)
		d = slot;
	if (!idle && d > limit)
		return false;
	r->q = r->ready;
	r->d = d;
	return true;
}

/*
 * One device: the host issues in script order and keeps at most depth
 * requests in flight (dispatched, not completed); the disk serves one at
 * a time, as soon as it has one, the one pick() chooses among those
 * dispatched by then.  Without --ncq that is issue order.
 */
static void simulate(const struct opts *o, uint32_t device)
{
	size_t p[256], np = 0, i = 0, k;
	uint64_t now = 0, slot = 0, head = 0;
	struct req *r;

	for (;;) {
		/* What arrives by now, or the next one if the disk idles. */
		for (; i < nreqs && np < o->depth; i++) {
			if (reqs[i].device != device)
				continue;
			if (!dispatch(&reqs[i], slot, now, np == 0))
				break;
			if (reqs[i].d > now)
				now = reqs[i].d;
			p[np++] = i;
		}
		if (!np)
			break;
		k = pick(o, p, np, head);
		r = &reqs[p[k]];
		if (k && device == DEST_DEV)
			passed_dest++;
		serve(o, r, now, &head);
		/* Dispatched during the service: r is still in flight. */
		for (; i < nreqs && np < o->depth; i++) {
			if (reqs[i].device != device)
				continue;
			if (!dispatch(&reqs[i], slot, r->c - 1, false))
				break;
			p[np++] = i;
		}
		if (np == o->depth)
			slot = r->c + 1;
		memmove(&p[k], &p[k + 1], (np - k - 1) * sizeof(p[0]));
		np--;
		now = r->c;
	}
}

/*
 * --fsync: the first commit (from request *next on) that completed after
 * the host went on makes the host wait: every later request, and the
 * phase boundary when it lies after the commit, moves by the wait.  True
 * when something moved (the disk must then be simulated again); commits
 * before *next are settled, since moving later requests does not change
 * when earlier ones complete in issue order.
 */
static bool host_waits(size_t *next, uint64_t *copy_end)
{
	size_t k, j, i;

	for (k = *next; k < nreqs; k++) {
		uint64_t go, delta;

		if (!reqs[k].blocks)
			continue;
		for (j = k + 1; j < nreqs && reqs[j].device != DEST_DEV; j++)
			;
		*next = k + 1;
		/* The host goes on 1 us after the commit completed. */
		go = reqs[k].c + 1000;
		if (j == nreqs || reqs[j].ready >= go)
			continue;
		delta = go - reqs[j].ready;
		if (*copy_end >= reqs[k].ready)
			*copy_end += delta;
		for (i = j; i < nreqs; i++)
			reqs[i].ready += delta;
		return true;
	}
	return false;
}

static void emit_events(void)
{
	size_t i;

	for (i = 0; i < nreqs; i++) {
		const struct req *r = &reqs[i];
		uint32_t cpu = (uint32_t)(i % NCPU), total = r->bytes + r->bio2;

		add_event(r->q, r->device, r->sector, r->bytes, WC_TA_QUEUE,
			  r->flags, r->pid, cpu);
		add_event(r->q + 1000, r->device, r->sector, r->bytes,
			  WC_TA_GETRQ, r->flags, r->pid, cpu);
		if (r->bio2) {
			add_event(r->q + 2000, r->device, r->sector + r->bytes / 512,
				  r->bio2, WC_TA_QUEUE, r->flags, r->pid, cpu);
			add_event(r->q + 2500, r->device, r->sector + r->bytes / 512,
				  r->bio2, WC_TA_BACKMERGE, r->flags, r->pid, cpu);
		}
		add_event(r->d, r->device, r->sector, total, WC_TA_ISSUE,
			  r->flags, r->pid, cpu);
		add_event(r->c, r->device, r->sector, total, WC_TA_COMPLETE,
			  r->flags, 0, (cpu + 1) % NCPU);
	}
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* be: records big-endian, whatever this machine's byte order. */
static int write_record(FILE *f, const struct event *e, uint32_t seq, bool be)
{
	unsigned char rec[WC_BLK_V7_SIZE + 64];
	const struct wc_event ev = {
		.sequence = seq, .time = e->time, .sector = e->sector,
		.bytes = e->bytes, .action = e->action, .pid = e->pid,
		.device = e->device, .cpu = e->cpu,
		.pdu = (const unsigned char *)e->pdu, .pdu_len = e->pdu_len,
	};
	ssize_t n;

	n = wc_blk_encode(rec, sizeof(rec), &ev, WC_BLK_VERSION_7,
			  be == (__BYTE_ORDER == __LITTLE_ENDIAN), NULL);
	if (n < 0) {
		errno = EINVAL;
		return -1;
	}
	return fwrite(rec, 1, (size_t)n, f) == (size_t)n ? 0 : -1;
}

static int write_traces(const char *base, uint32_t device, bool be)
{
	char path[4096];
	uint32_t cpu;
	size_t i, c;

	for (cpu = 0; cpu < NCPU; cpu++) {
		uint32_t seq = 1;
		FILE *f;

		snprintf(path, sizeof(path), "%s.blktrace.%u", base, cpu);
		f = fopen(path, "wb");
		if (!f)
			goto fail_open;
		/* blktrace writes a process's name before its first event. */
		for (c = 0; cpu == 0 && c < sizeof(comms) / sizeof(comms[0]); c++) {
			struct event n = { 0 };
			char comm[16] = { 0 };

			snprintf(comm, sizeof(comm), "%s", comms[c].comm);
			n.time = evs[0].time;
			n.action = WC_TN_PROCESS | (TC(WC_TC_NOTIFY) << WC_TC_SHIFT);
			n.pid = comms[c].pid;
			n.device = device;
			n.pdu = comm;
			n.pdu_len = sizeof(comm);
			if (write_record(f, &n, 0, be) < 0)
				goto fail_write;
		}
		for (i = 0; i < nevs; i++) {
			if (evs[i].cpu != cpu || evs[i].device != device)
				continue;
			if (write_record(f, &evs[i], seq++, be) < 0)
				goto fail_write;
		}
		if (fclose(f) != 0)
			goto fail_open;
		continue;
fail_write:
		fclose(f);
fail_open:
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

struct truth {
	uint64_t first, last;
	uint64_t time[WC_NCAT], req[WC_NCAT], bytes[WC_NCAT];
	uint64_t positioning;
};

static uint64_t overlap(uint64_t a, uint64_t b, uint64_t s, uint64_t e)
{
	uint64_t lo = a > s ? a : s, hi = b < e ? b : e;

	return hi > lo ? hi - lo : 0;
}

/* The model's own figures over [s, e]: each request's service, from the
 * moment the disk began it to its completion, in its category, and its
 * positioning (the service's first part) in positioning. */
static void sum_truth(struct truth *t, uint64_t s, uint64_t e)
{
	size_t i;

	for (i = 0; i < nreqs; i++) {
		const struct req *r = &reqs[i];

		if (r->device != DEST_DEV)
			continue;
		t->time[r->cat] += overlap(r->start, r->c, s, e);
		t->positioning += overlap(r->start, r->start + r->positioning,
					  s, e);
		if (r->c >= s && r->c <= e) {
			t->req[r->cat]++;
			t->bytes[r->cat] += r->bytes + r->bio2;
		}
	}
}

static int write_expect(const struct opts *o, uint64_t copy_end)
{
	struct truth all = { 0 };
	FILE *f = fopen(o->expect, "w");
	int c;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", o->expect, strerror(errno));
		return -1;
	}
	all.first = evs[0].time;
	all.last = evs[nevs - 1].time;
	sum_truth(&all, all.first, all.last);
	fprintf(f, "window_ns = %llu\n", (unsigned long long)(all.last - all.first));
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, "time.%s = %llu\nrequests.%s = %llu\nbytes.%s = %llu\n",
			wc_cat_name((enum wc_cat)c), (unsigned long long)all.time[c],
			wc_cat_name((enum wc_cat)c), (unsigned long long)all.req[c],
			wc_cat_name((enum wc_cat)c), (unsigned long long)all.bytes[c]);
	fprintf(f, "positioning_ns = %llu\n", (unsigned long long)all.positioning);
	fprintf(f, "media_rate = %.0f\n", o->rate * 1e6);
	fprintf(f, "copy_end = %llu\n", (unsigned long long)copy_end);
	fprintf(f, "served_out_of_order = %llu\n",
		(unsigned long long)passed_dest);
	if (fclose(f) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", o->expect, strerror(errno));
		return -1;
	}
	return 0;
}

static const char *const own_keys[] = {
	"format_version", "name", "tool_version", "recorder", "trace_clock",
	"devices", "destination", "device.loop9.dev", "device.loop9.role",
	"device.loop9.rotational", "device.loop8.dev", "device.loop8.role",
	"device.loop8.rotational", "fs", "write_cache", "barrier",
	"disk_model", "workload", "journal_start_sector", "journal_sectors",
	"events_dropped", "complete",
};

/* The length of KEY in "KEY=VALUE". */
static size_t key_len(const char *kv)
{
	return (size_t)(strchr(kv, '=') - kv);
}

static bool own_key(const char *kv)
{
	size_t i;

	for (i = 0; i < sizeof(own_keys) / sizeof(own_keys[0]); i++)
		if (strlen(own_keys[i]) == key_len(kv) &&
		    !strncmp(own_keys[i], kv, key_len(kv)))
			return true;
	return false;
}

/* "key = value", or --conf's value for key. */
static void conf_line(FILE *f, const struct opts *o, const char *key,
		      const char *value)
{
	size_t i;

	for (i = 0; i < o->nconf; i++)
		if (key_len(o->conf[i]) == strlen(key) &&
		    !strncmp(o->conf[i], key, strlen(key)))
			value = o->conf[i] + strlen(key) + 1;
	fprintf(f, "%s = %s\n", key, value);
}

static int write_capture(const struct opts *o, uint64_t copy_end)
{
	char path[4096], val[256];
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", o->out);
	if ((mkdir(o->out, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(path, 0755) < 0 && errno != EEXIST)) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/capture.conf", o->out);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	conf_line(f, o, "format_version", "1");
	conf_line(f, o, "name", strrchr(o->out, '/') ? strrchr(o->out, '/') + 1 :
		  o->out);
	conf_line(f, o, "tool_version", "wcsynth");
	conf_line(f, o, "recorder", "wcsynth");
	conf_line(f, o, "trace_clock", "mono");
	conf_line(f, o, "devices", o->other_device ? "loop8 loop9" : "loop9");
	conf_line(f, o, "destination", "loop9");
	conf_line(f, o, "device.loop9.dev", "7:9");
	conf_line(f, o, "device.loop9.role", "destination");
	conf_line(f, o, "device.loop9.rotational", "1");
	if (o->other_device) {
		conf_line(f, o, "device.loop8.dev", "7:8");
		conf_line(f, o, "device.loop8.role", "source");
		conf_line(f, o, "device.loop8.rotational", "1");
	}
	conf_line(f, o, "fs", "xfs");
	/* The model writes every request through to the platter (a flush
	 * costs flush_ms, destaging nothing): no write-back cache, so
	 * wcanalyze splits every write into positioning and transfer. */
	conf_line(f, o, "write_cache", "off");
	conf_line(f, o, "barrier", "on");
	snprintf(val, sizeof(val), "wcsynth flush_ms=%g rate=%g seek=%g,%g,%g "
		 "rpm=%g depth=%u ncq=%d", o->flush_ms, o->rate, o->seek_t,
		 o->seek_a, o->seek_f, o->rpm, o->depth, o->ncq);
	conf_line(f, o, "disk_model", val);
	snprintf(val, sizeof(val), "wcsynth files=%u other_device=%d fsync=%d",
		 o->files, o->other_device, o->fsync);
	conf_line(f, o, "workload", val);
	snprintf(val, sizeof(val), "%llu", JOURNAL_START);
	conf_line(f, o, "journal_start_sector", val);
	snprintf(val, sizeof(val), "%llu", JOURNAL_LEN);
	conf_line(f, o, "journal_sectors", val);
	conf_line(f, o, "events_dropped", "0");
	conf_line(f, o, "complete", "1");
	/* --conf keys wcsynth does not write itself. */
	for (i = 0; i < o->nconf; i++)
		if (!own_key(o->conf[i]))
			fprintf(f, "%.*s = %s\n", (int)key_len(o->conf[i]),
				o->conf[i], o->conf[i] + key_len(o->conf[i]) + 1);
	if (fclose(f) != 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/phases.tsv", o->out);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "copy\t%llu\t%llu\t0\t0\t0\ndelete\t%llu\t%llu\t0\t0\t0\n",
		(unsigned long long)evs[0].time, (unsigned long long)copy_end,
		(unsigned long long)copy_end,
		(unsigned long long)evs[nevs - 1].time);
	if (fclose(f) != 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/trace/loop9", o->out);
	if (write_traces(path, DEST_DEV, o->big_endian) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/trace/loop8", o->out);
	return o->other_device ? write_traces(path, SRC_DEV, o->big_endian) : 0;
fail:
	fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
	return -1;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: " PROG " [-c] [-e FILE] [-n FILES] [-f FLUSH_MS] "
		"[-r MB/s] [-s T,A,F] [-R RPM]\n"
		"               [-d DEPTH] [-S SEED] [-b] [-o] [-N] "
		"[-F] [-C KEY=VALUE]... OUT\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capture", no_argument, NULL, 'c' },
		{ "expect", required_argument, NULL, 'e' },
		{ "files", required_argument, NULL, 'n' },
		{ "flush-ms", required_argument, NULL, 'f' },
		{ "rate", required_argument, NULL, 'r' },
		{ "seek", required_argument, NULL, 's' },
		{ "rpm", required_argument, NULL, 'R' },
		{ "depth", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 'S' },
		{ "big-endian", no_argument, NULL, 'b' },
		{ "other-device", no_argument, NULL, 'o' },
		{ "ncq", no_argument, NULL, 'N' },
		{ "conf", required_argument, NULL, 'C' },
		{ "fsync", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .files = 300, .flush_ms = 12, .rate = 80,
			  .seek_t = 1, .seek_a = 8.5, .seek_f = 20, .rpm = 7200,
			  .depth = 4, .seed = 1 };
	uint64_t copy_end, rng;
	size_t next = 0;
	int c;

	while ((c = getopt_long(argc, argv, "ce:n:f:r:s:R:d:S:boNC:Fh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'c': o.capture = true; break;
		case 'e': o.expect = optarg; break;
		case 'n': o.files = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'f': o.flush_ms = strtod(optarg, NULL); break;
		case 'r': o.rate = strtod(optarg, NULL); break;
		case 's':
			if (sscanf(optarg, "%lf,%lf,%lf", &o.seek_t, &o.seek_a,
				   &o.seek_f) != 3)
				goto bad;
			break;
		case 'R': o.rpm = strtod(optarg, NULL); break;
		case 'd': o.depth = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'S': o.seed = strtoul(optarg, NULL, 10); break;
		case 'b': o.big_endian = true; break;
		case 'o': o.other_device = true; break;
		case 'N': o.ncq = true; break;
		case 'F': o.fsync = true; break;
		case 'C':
			/* KEY=VALUE, one line of capture.conf. */
			if (o.nconf == sizeof(o.conf) / sizeof(o.conf[0]) ||
			    !strchr(optarg, '=') || optarg[0] == '=' ||
			    strpbrk(optarg, "\n\r"))
				goto bad;
			o.conf[o.nconf++] = optarg;
			break;
		case 'h': usage(stdout); return WC_EXIT_OK;
		default: goto bad;
		}
	}
	if (optind != argc - 1 || o.files == 0 || o.depth == 0 ||
	    o.depth > 256 || !(o.rate > 0) || !(o.rpm > 0) || o.flush_ms < 0)
		goto bad;
	o.out = argv[optind];
	rng_state = 0x9e3779b97f4a7c15ull ^ o.seed;
	fsync_waits = o.fsync;
	script(&o, &copy_end);
	rng = rng_state;
	do {
		/* Every pass serves the same requests with the same luck. */
		rng_state = rng;
		passed_dest = 0;
		simulate(&o, DEST_DEV);
	} while (o.fsync && host_waits(&next, &copy_end));
	simulate(&o, SRC_DEV);
	emit_events();
	qsort(evs, nevs, sizeof(*evs), cmp_event);
	if (o.capture ? write_capture(&o, copy_end) < 0 :
			write_traces(o.out, DEST_DEV, o.big_endian) < 0)
		return WC_EXIT_FAILURE;
	if (o.expect && write_expect(&o, copy_end) < 0)
		return WC_EXIT_FAILURE;
	free(evs);
	free(reqs);
	return WC_EXIT_OK;
bad:
	usage(stderr);
	return WC_EXIT_USAGE;
}
