/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replicate - makes a long trace of a short recorded one, for the
 * benchmarks: the recording is repeated in time until it has enough
 * events, so a benchmark runs on a real capture's shape (its mix of
 * events, devices, CPUs, payloads and interleaving) at any length.
 *
 *   replicate -n EVENTS -o OUTDIR FILE...
 *   replicate -n EVENTS -o - FILE
 *
 * FILE... are the per-CPU files of one capture (NAME.blktrace.CPU, any
 * devices, v7 or v8, either byte order).  Each is written to OUTDIR under
 * its own base name, holding copy 0, 1, 2 ... of itself, every record of
 * copy k shifted k * (span + 1 ms) later in time, where span is the time
 * from the earliest to the latest record of all FILEs, so copies never
 * overlap and the files stay one valid capture: per-file sequence numbers
 * go on where the previous copy stopped (records with sequence 0, notify
 * and ftrace ones, keep 0).  Whole copies are written, at least EVENTS
 * records in all.  Prints the number of records and copies written (on
 * standard error with -o -, which writes the copies of one FILE, a
 * merged trace for instance, to standard output: a trace of any length
 * without the disk space for it).
 *
 * Records are read with the project's decoder and written back with
 * wc_blk_encode() in each file's own version and byte order, so a copy
 * differs from its original only in time and sequence.  Memory is about
 * the size of the FILEs, whatever EVENTS is.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/decode.h"
#include "format/encode.h"
#include "exitcodes.h"
#include "input/source.h"

#define PROG "replicate"
#define MAX_FILES 1024
#define GAP_NS 1000000ull        /* between the end of a copy and the next */

struct file {
	const char *path;
	struct wc_event *evs;        /* pdu pointers into pdus */
	unsigned char *pdus;
	size_t n, cap, pdu_len, pdu_cap;
	bool swapped;
	uint32_t min_seq, max_seq;   /* of the nonzero sequences */
};

static int fail(const char *path, const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", path, what);
	return -1;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 1024;
	void *q;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return 0;
	q = realloc(*p, c * size);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

/* Decodes every record of f into memory; finds the time span. */
static int load(struct file *f, uint64_t *lo, uint64_t *hi)
{
	struct wc_source *src = NULL;
	struct wc_decoder *dec = NULL;
	struct wc_event ev;
	struct wc_err err;
	size_t i, off = 0;
	int r;

	wc_err_clear(&err);
	if (wc_source_open_file(&src, f->path, 0, &err) < 0)
		goto fail;
	/* The decoder owns src from here, also when it fails. */
	if (wc_decoder_open(&dec, src, 0, &err) < 0)
		goto fail;
	while ((r = wc_decoder_next(dec, &ev, &err)) > 0) {
		if (grow((void **)&f->evs, &f->cap, f->n + 1, sizeof(ev)) < 0 ||
		    grow((void **)&f->pdus, &f->pdu_cap, f->pdu_len + ev.pdu_len,
			 1) < 0) {
			wc_err_set(&err, WC_ERR_SYSTEM, f->path, NULL,
				   WC_NO_OFFSET, "out of memory");
			goto fail;
		}
		memcpy(f->pdus + f->pdu_len, ev.pdu, ev.pdu_len);
		f->pdu_len += ev.pdu_len;
		f->evs[f->n++] = ev;
		if (ev.time < *lo)
			*lo = ev.time;
		if (ev.time > *hi)
			*hi = ev.time;
		if (ev.sequence && (!f->min_seq || ev.sequence < f->min_seq))
			f->min_seq = ev.sequence;
		if (ev.sequence > f->max_seq)
			f->max_seq = ev.sequence;
	}
	if (r < 0)
		goto fail;
	f->swapped = wc_decoder_swapped(dec);
	wc_decoder_free(dec);
	/* The arena may have moved while it grew: point into it now. */
	for (i = 0; i < f->n; i++) {
		f->evs[i].pdu = f->pdus + off;
		off += f->evs[i].pdu_len;
	}
	return 0;

fail:
	wc_decoder_free(dec);
	{
		char buf[2048];

		/* err names the file itself. */
		fprintf(stderr, PROG ": %s\n", wc_err_format(&err, buf, sizeof(buf)));
		return -1;
	}
}

/* Writes copy k of f: times shifted by k * dt, sequences by k * ds. */
static int write_copy(const struct file *f, FILE *out, uint64_t k,
		      uint64_t dt, uint32_t ds)
{
	static unsigned char rec[WC_BLK_RECORD_MAX];
	struct wc_err err;
	size_t i;

	wc_err_clear(&err);
	for (i = 0; i < f->n; i++) {
		struct wc_event ev = f->evs[i];
		ssize_t len;

		ev.time += k * dt;
		if (ev.sequence)
			ev.sequence += (uint32_t)k * ds;
		len = wc_blk_encode(rec, sizeof(rec), &ev, ev.version,
				    f->swapped, &err);
		if (len < 0)
			return fail(f->path, err.msg);
		if (fwrite(rec, 1, (size_t)len, out) != (size_t)len)
			return fail(f->path, strerror(errno));
	}
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: " PROG " -n EVENTS -o OUTDIR FILE...\n"
		"       " PROG " -n EVENTS -o - FILE\n");
}

int main(int argc, char **argv)
{
	static struct file files[MAX_FILES];
	uint64_t lo = UINT64_MAX, hi = 0, per_copy = 0, want = 0, copies, k;
	const char *outdir = NULL;
	int c, i, nfiles, status = WC_EXIT_FAILURE;
	FILE *out[MAX_FILES] = { 0 };

	while ((c = getopt(argc, argv, "n:o:h")) != -1) {
		switch (c) {
		case 'n':
			want = strtoull(optarg, NULL, 10);
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'h':
			usage(stdout);
			return WC_EXIT_OK;
		default:
			usage(stderr);
			return WC_EXIT_USAGE;
		}
	}
	nfiles = argc - optind;
	if (!outdir || want == 0 || nfiles < 1 || nfiles > MAX_FILES ||
	    (!strcmp(outdir, "-") && nfiles != 1)) {
		usage(stderr);
		return WC_EXIT_USAGE;
	}
	for (i = 0; i < nfiles; i++) {
		files[i].path = argv[optind + i];
		if (load(&files[i], &lo, &hi) < 0)
			goto out;
		per_copy += files[i].n;
	}
	if (per_copy == 0) {
		fail(files[0].path, "no records");
		goto out;
	}
	for (i = 0; i < nfiles; i++) {
		const char *base = strrchr(files[i].path, '/');
		char path[4096];

		base = base ? base + 1 : files[i].path;
		snprintf(path, sizeof(path), "%s/%s", outdir, base);
		out[i] = strcmp(outdir, "-") ? fopen(path, "wb") : stdout;
		if (!out[i]) {
			fail(path, strerror(errno));
			goto out;
		}
	}
	copies = (want + per_copy - 1) / per_copy;
	for (k = 0; k < copies; k++) {
		for (i = 0; i < nfiles; i++)
			if (write_copy(&files[i], out[i], k, hi - lo + GAP_NS,
				       files[i].max_seq - files[i].min_seq + 1) < 0)
				goto out;
	}
	fprintf(strcmp(outdir, "-") ? stdout : stderr,
		PROG ": %llu events, %llu copies of %llu\n",
	       (unsigned long long)(copies * per_copy),
	       (unsigned long long)copies, (unsigned long long)per_copy);
	status = WC_EXIT_OK;
out:
	for (i = 0; i < nfiles; i++) {
		if (out[i] && fclose(out[i]) != 0 && status == WC_EXIT_OK) {
			fail(outdir, strerror(errno));
			status = WC_EXIT_FAILURE;
		}
		free(files[i].evs);
		free(files[i].pdus);
	}
	return status;
}
