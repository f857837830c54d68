/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture_gen - writes a large synthetic capture for the benchmarks, in
 * constant memory, however many events are asked for.
 *
 *   capture_gen [-n EVENTS] [-d DEPTH] [-S SEED] DIR
 *
 * Writes DIR/capture.conf, DIR/phases.tsv and DIR/trace/loop9.blktrace.0
 * and .1: about EVENTS v7 records (default 1,000,000; the last request is
 * always whole, so a few more), in the host's byte order, shaped like an
 * ext4 tree copy then delete with the write cache and barriers on.  Every
 * request has its Q, G, I, D and C (a second back-merged bio adds a Q and
 * an M); flushes are empty FLUSH requests; journal commits are a flush
 * then a FUA write in the journal range that capture.conf names; data
 * writes stream, with a seek now and then; metadata reads and writes land
 * in a metadata area; phase "delete" discards.
 *
 * Requests are issued in batches of 1 to DEPTH (default 8) and the disk
 * serves each batch in order before the next starts, so the events of a
 * batch are sorted in a small buffer and written: memory stays the same
 * for 1 million or 100 million events, and so must the analyser's.
 * Unlike tests/wcsynth (which knows the true answers and keeps the whole
 * script in memory), nothing here is checked: it is load, not proof.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/blktrace_format.h"
#include "format/encode.h"
#include "exitcodes.h"

#define PROG "capture_gen"
#define DEV WC_DEV_MAKE(7u, 9u)
#define NCPU 2
#define MAX_DEPTH 64
#define EV_PER_REQ 7              /* Q G [Q M] I D C */
#define JOURNAL_START 1050624ull
#define JOURNAL_LEN 262144ull
#define META_START 2048ull
#define META_LEN 1000000ull
#define DATA_START 2000000ull
#define DATA_LEN 60000000ull
#define RATE 120e6                /* media rate, bytes/s */

enum { PID_CP = 2000, PID_RM, PID_JBD2, PID_KWORKER };

static const struct { uint32_t pid; const char *comm; } comms[] = {
	{ PID_CP, "cp" }, { PID_RM, "rm" }, { PID_JBD2, "jbd2/loop9-8" },
	{ PID_KWORKER, "kworker/u4:2" },
};

#define TC(b) ((uint32_t)1 << (b))

struct ev {
	uint64_t time;
	uint64_t sector;
	uint32_t bytes;
	uint32_t action;
	uint32_t pid;
	uint32_t cpu;
	uint32_t order;           /* keeps creation order among equal times */
};

struct gen {
	FILE *f[NCPU];
	uint32_t seq[NCPU];
	struct ev buf[MAX_DEPTH * EV_PER_REQ];
	size_t nbuf;
	uint64_t rng;
	uint64_t t;               /* the clock: when the next batch starts */
	uint64_t head;            /* where the disk's head is */
	uint64_t dpos, jpos;      /* next data and journal sector */
	unsigned long events;
	unsigned long nreq;
	bool failed;
};

static double rnd(struct gen *g)
{
	/* xorshift64*: the same traces on every libc. */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return (double)((g->rng * 2685821657736338717ull) >> 11) /
	       (double)(1ull << 53);
}

static void put(struct gen *g, uint64_t time, uint64_t sector, uint32_t bytes,
		uint32_t what, uint32_t flags, uint32_t pid, uint32_t cpu)
{
	struct ev *e = &g->buf[g->nbuf];

	e->time = time;
	e->sector = sector;
	e->bytes = bytes;
	e->action = what | (flags << WC_TC_SHIFT);
	e->pid = pid;
	e->cpu = cpu;
	e->order = (uint32_t)g->nbuf++;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void write_rec(struct gen *g, uint32_t cpu, uint64_t time,
		      uint64_t sector, uint32_t bytes, uint32_t action,
		      uint32_t pid, uint32_t seq, const void *pdu,
		      uint16_t pdu_len)
{
	unsigned char rec[WC_BLK_V7_SIZE + 64];
	const struct wc_event ev = {
		.sequence = seq, .time = time, .sector = sector, .bytes = bytes,
		.action = action, .pid = pid, .device = DEV, .cpu = cpu,
		.pdu = pdu, .pdu_len = pdu_len,
	};
	ssize_t n;

	n = wc_blk_encode(rec, sizeof(rec), &ev, WC_BLK_VERSION_7, false, NULL);
	if (n < 0 || fwrite(rec, 1, (size_t)n, g->f[cpu]) != (size_t)n)
		g->failed = true;
}

/* Sorts the batch's events by time and writes them to their CPU files. */
static void flush_batch(struct gen *g)
{
	size_t i;

	qsort(g->buf, g->nbuf, sizeof(g->buf[0]), cmp_ev);
	for (i = 0; i < g->nbuf; i++) {
		const struct ev *e = &g->buf[i];

		write_rec(g, e->cpu, e->time, e->sector, e->bytes, e->action,
			  e->pid, ++g->seq[e->cpu], NULL, 0);
	}
	g->events += g->nbuf;
	g->nbuf = 0;
}

/* One request of the batch, issued at *issue; the disk starts it at the
 * later of its D and *busy_until and moves *busy_until past it. */
static void request(struct gen *g, uint64_t sector, uint32_t bytes,
		    uint32_t flags, uint32_t pid, uint64_t *issue,
		    uint64_t *busy_until)
{
	uint32_t cpu = (uint32_t)(g->nreq++ % NCPU), bio2 = 0;
	uint64_t q = *issue, d, start, service;

	if (bytes >= 16384 && rnd(g) < 0.3) {
		bio2 = bytes / 2 - (bytes / 2) % 4096;
		bytes -= bio2;
	}
	put(g, q, sector, bytes, WC_TA_QUEUE, flags, pid, cpu);
	put(g, q + 800, sector, bytes, WC_TA_GETRQ, flags, pid, cpu);
	if (bio2) {
		put(g, q + 1500, sector + bytes / 512, bio2, WC_TA_QUEUE, flags,
		    pid, cpu);
		put(g, q + 1800, sector + bytes / 512, bio2, WC_TA_BACKMERGE,
		    flags, pid, cpu);
	}
	put(g, q + 2500, sector, bytes + bio2, WC_TA_INSERT, flags, pid, cpu);
	d = q + 4000;
	put(g, d, sector, bytes + bio2, WC_TA_ISSUE, flags, pid, cpu);
	if (flags & TC(WC_TC_FLUSH) && !bytes) {
		service = 1500000 + (uint64_t)(rnd(g) * 2e6);
	} else if (flags & TC(WC_TC_DISCARD)) {
		service = 150000;
	} else {
		service = (uint64_t)((double)(bytes + bio2) / RATE * 1e9);
		if (sector != g->head)
			service += 300000 + (uint64_t)(rnd(g) * 9e6);
		g->head = sector + (bytes + bio2) / 512;
	}
	start = d > *busy_until ? d : *busy_until;
	*busy_until = start + service + 1;
	put(g, *busy_until, sector, bytes + bio2, WC_TA_COMPLETE, flags, 0,
	    (cpu + 1) % NCPU);
	*issue += 10000;
}

/* A batch of 1 to depth requests (one more when a commit ends it). */
static void batch(struct gen *g, unsigned depth, bool delete)
{
	unsigned i, n = 1 + (unsigned)(rnd(g) * depth);
	uint64_t issue = g->t, busy = g->t;

	for (i = 0; i < n; i++) {
		double r = rnd(g);

		if (r < 0.06) {
			/* A journal commit: preflush, then the FUA commit block. */
			uint32_t b = 4096u * (1 + (uint32_t)(rnd(g) * 8));

			request(g, 0, 0, TC(WC_TC_WRITE) | TC(WC_TC_FLUSH) |
				TC(WC_TC_SYNC), PID_JBD2, &issue, &busy);
			if (g->jpos + b / 512 > JOURNAL_START + JOURNAL_LEN)
				g->jpos = JOURNAL_START;
			request(g, g->jpos, b, TC(WC_TC_WRITE) | TC(WC_TC_SYNC) |
				TC(WC_TC_META) | TC(WC_TC_FUA), PID_JBD2,
				&issue, &busy);
			g->jpos += b / 512;
			i++;
		} else if (r < 0.30) {
			uint64_t s = META_START +
				     (uint64_t)(rnd(g) * META_LEN) / 8 * 8;
			bool rd = !delete && rnd(g) < 0.3;

			request(g, s, 4096, TC(rd ? WC_TC_READ : WC_TC_WRITE) |
				TC(WC_TC_META) | (rd ? TC(WC_TC_SYNC) : 0),
				rd ? PID_CP : PID_KWORKER, &issue, &busy);
		} else if (delete) {
			uint64_t s = DATA_START +
				     (uint64_t)(rnd(g) * DATA_LEN) / 8 * 8;

			if (rnd(g) < 0.2)
				request(g, s, 1048576, TC(WC_TC_WRITE) |
					TC(WC_TC_DISCARD), PID_RM, &issue, &busy);
			else
				request(g, s, 4096, TC(WC_TC_WRITE) |
					TC(WC_TC_META), PID_RM, &issue, &busy);
		} else {
			uint32_t b = 4096u * (1 + (uint32_t)(rnd(g) * 64));

			/* Mostly where the last file ended: streaming. */
			if (rnd(g) < 0.1 ||
			    g->dpos + b / 512 > DATA_START + DATA_LEN)
				g->dpos = DATA_START + (uint64_t)(rnd(g) *
					  (DATA_LEN / 2)) / 8 * 8;
			request(g, g->dpos, b, TC(WC_TC_WRITE), PID_KWORKER,
				&issue, &busy);
			g->dpos += b / 512;
		}
	}
	flush_batch(g);
	/* The host thinks a little before the next batch. */
	g->t = busy + 1000 + (uint64_t)(rnd(g) * 200000);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		goto fail;
	if (fputs(text, f) == EOF) {
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
	return -1;
}

static int run(const char *dir, unsigned long want, unsigned depth,
	       unsigned long seed)
{
	static char path[4096], text[2048];
	const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	struct gen *g;
	uint64_t first, copy_end;
	size_t c;
	int cpu, ret = -1;

	g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	g->rng = 0x9e3779b97f4a7c15ull ^ seed;
	g->t = first = 1000000000ull;
	g->dpos = DATA_START;
	g->jpos = JOURNAL_START;
	snprintf(path, sizeof(path), "%s/trace", dir);
	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(path, 0755) < 0 && errno != EEXIST)) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		goto close_files;
	}
	for (cpu = 0; cpu < NCPU; cpu++) {
		snprintf(path, sizeof(path), "%s/trace/loop9.blktrace.%d", dir,
			 cpu);
		g->f[cpu] = fopen(path, "wb");
		if (!g->f[cpu]) {
			fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
			goto close_files;
		}
		setvbuf(g->f[cpu], NULL, _IOFBF, 1 << 20);
	}
	/* blktrace names the processes before their first events. */
	for (c = 0; c < sizeof(comms) / sizeof(comms[0]); c++) {
		char comm[16] = { 0 };

		snprintf(comm, sizeof(comm), "%s", comms[c].comm);
		write_rec(g, 0, first, 0, 0, WC_TN_PROCESS |
			  (TC(WC_TC_NOTIFY) << WC_TC_SHIFT), comms[c].pid, 0,
			  comm, sizeof(comm));
	}
	while (g->events < want / 2)
		batch(g, depth, false);
	copy_end = g->t;
	while (g->events < want)
		batch(g, depth, true);
	for (cpu = 0; cpu < NCPU; cpu++) {
		if (fclose(g->f[cpu]) != 0)
			g->failed = true;
		g->f[cpu] = NULL;
	}
	if (g->failed) {
		fprintf(stderr, PROG ": %s/trace: write error\n", dir);
		goto close_files;
	}
	snprintf(path, sizeof(path), "%s/capture.conf", dir);
	snprintf(text, sizeof(text),
		 "format_version = 1\nname = %s\ntool_version = capture_gen\n"
		 "recorder = capture_gen\ntrace_clock = mono\n"
		 "devices = loop9\ndestination = loop9\n"
		 "device.loop9.dev = 7:9\ndevice.loop9.role = destination\n"
		 "device.loop9.rotational = 1\nfs = ext4\nwrite_cache = on\n"
		 "barrier = on\njournal_start_sector = %llu\n"
		 "journal_sectors = %llu\nevents_dropped = 0\ncomplete = 1\n",
		 name, JOURNAL_START, JOURNAL_LEN);
	if (write_text(path, text) < 0)
		goto close_files;
	snprintf(path, sizeof(path), "%s/phases.tsv", dir);
	snprintf(text, sizeof(text), "copy\t%llu\t%llu\t0\t0\t0\n"
		 "delete\t%llu\t%llu\t0\t0\t0\n", (unsigned long long)first,
		 (unsigned long long)copy_end, (unsigned long long)copy_end,
		 (unsigned long long)g->t);
	if (write_text(path, text) < 0)
		goto close_files;
	printf(PROG ": %s: %lu events, %lu requests, %.1f s of trace\n", dir,
	       g->events, g->nreq, (double)(g->t - first) / 1e9);
	ret = 0;
close_files:
	for (cpu = 0; cpu < NCPU; cpu++)
		if (g->f[cpu])
			fclose(g->f[cpu]);
	free(g);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long want = 1000000, seed = 1;
	unsigned depth = 8;
	int c;

	while ((c = getopt(argc, argv, "n:d:S:")) != -1) {
		switch (c) {
		case 'n': want = strtoul(optarg, NULL, 10); break;
		case 'd': depth = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'S': seed = strtoul(optarg, NULL, 10); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || depth == 0 || depth > MAX_DEPTH / 2)
		goto usage;
	return run(argv[optind], want, depth, seed) < 0 ? WC_EXIT_FAILURE :
							  WC_EXIT_OK;
usage:
	fprintf(stderr, "usage: " PROG " [-n EVENTS] [-d DEPTH (1-32)] "
		"[-S SEED] DIR\n");
	return WC_EXIT_USAGE;
}
