/*
 * replicate - makes a long trace of a short recorded one, for the
 * benchmarks: the recording is repeated in time until it has enough
 * events, so a benchmark runs on a real capture's shape (its mix of
 * events, devices, CPUs, payloads and interleaving) at any length.
 *
 *   replicate -n EVENTS -o OUTDIR FILE...
 *
 * FILE... are the per-CPU files of one capture (NAME.blktrace.CPU, any
 * devices, v7 or v8, in this machine's byte order).  Each is written to
 * OUTDIR under its own base name, holding copy 0, 1, 2 ... of itself,
 * every record of copy k shifted k * (span + 1 ms) later in time, where
 * span is the time from the earliest to the latest record of all FILEs,
 * so copies never overlap and the files stay a valid capture: per-file
 * sequence numbers go on where the previous copy stopped (records with
 * sequence 0, notify and ftrace ones, keep 0).  Whole copies are
 * written, at least EVENTS records in all.  Prints the number of
 * records and copies written.
 *
 * Only the time and sequence fields of a record are rewritten, in place,
 * at their offsets in blktrace_format.h's layouts (the same for v7 and
 * v8); everything else, payloads included, is copied byte for byte.
 * Memory is the size of the FILEs, whatever EVENTS is.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktrace_format.h"
#include "exitcodes.h"

#define PROG "replicate"
#define MAX_FILES 1024
#define GAP_NS 1000000ull        /* between the end of a copy and the next */

_Static_assert(offsetof(struct wc_blk_io_trace, sequence) ==
	       offsetof(struct wc_blk_io_trace2, sequence), "sequence offset");
_Static_assert(offsetof(struct wc_blk_io_trace, time) ==
	       offsetof(struct wc_blk_io_trace2, time), "time offset");

struct file {
	const char *path;
	unsigned char *buf;
	size_t len;
	uint64_t records;
	uint32_t min_seq, max_seq;      /* of the nonzero sequences */
};

static int fail(const char *path, const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", path, what);
	return -1;
}

static int slurp(struct file *f)
{
	FILE *fp = fopen(f->path, "rb");
	long len;

	if (!fp)
		return fail(f->path, strerror(errno));
	if (fseek(fp, 0, SEEK_END) < 0 || (len = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) < 0)
		goto fail_read;
	f->len = (size_t)len;
	f->buf = malloc(f->len ? f->len : 1);
	if (!f->buf || fread(f->buf, 1, f->len, fp) != f->len)
		goto fail_read;
	fclose(fp);
	return 0;

fail_read:
	fclose(fp);
	return fail(f->path, "cannot read");
}

/* Size of the record at off (header plus payload), 0 when it is not a
 * whole record of this machine's byte order. */
static size_t record_size(const struct file *f, size_t off)
{
	uint32_t magic;
	uint16_t pdu_len;
	size_t hdr, pl_off;

	if (f->len - off < WC_BLK_V7_SIZE)
		return 0;
	memcpy(&magic, f->buf + off, 4);
	if ((magic & WC_BLK_MAGIC_MASK) != WC_BLK_MAGIC)
		return 0;
	if ((magic & 0xff) == WC_BLK_VERSION_7) {
		hdr = WC_BLK_V7_SIZE;
		pl_off = offsetof(struct wc_blk_io_trace, pdu_len);
	} else if ((magic & 0xff) == WC_BLK_VERSION_8) {
		hdr = WC_BLK_V8_SIZE;
		pl_off = offsetof(struct wc_blk_io_trace2, pdu_len);
	} else {
		return 0;
	}
	if (f->len - off < hdr)
		return 0;
	memcpy(&pdu_len, f->buf + off + pl_off, 2);
	if (f->len - off - hdr < pdu_len)
		return 0;
	return hdr + pdu_len;
}

/* Counts records, finds the time span and the largest sequence. */
static int scan(struct file *f, uint64_t *lo, uint64_t *hi)
{
	size_t off, sz;

	for (off = 0; off < f->len; off += sz) {
		struct wc_blk_io_trace h;

		sz = record_size(f, off);
		if (!sz)
			return fail(f->path, "not a whole trace in this machine's byte order");
		memcpy(&h, f->buf + off, sizeof(h));
		if (h.time < *lo)
			*lo = h.time;
		if (h.time > *hi)
			*hi = h.time;
		if (h.sequence && (!f->min_seq || h.sequence < f->min_seq))
			f->min_seq = h.sequence;
		if (h.sequence > f->max_seq)
			f->max_seq = h.sequence;
		f->records++;
	}
	return 0;
}

/* Shifts every record of f's buffer by dt and its sequence by ds. */
static void shift(struct file *f, uint64_t dt, uint32_t ds)
{
	size_t off, sz;

	for (off = 0; off < f->len; off += sz) {
		struct wc_blk_io_trace h;

		sz = record_size(f, off);
		memcpy(&h, f->buf + off, sizeof(h));
		h.time += dt;
		if (h.sequence)
			h.sequence += ds;
		memcpy(f->buf + off + offsetof(struct wc_blk_io_trace, time),
		       &h.time, sizeof(h.time));
		memcpy(f->buf + off + offsetof(struct wc_blk_io_trace, sequence),
		       &h.sequence, sizeof(h.sequence));
	}
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: " PROG " -n EVENTS -o OUTDIR FILE...\n");
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
	if (!outdir || want == 0 || nfiles < 1 || nfiles > MAX_FILES) {
		usage(stderr);
		return WC_EXIT_USAGE;
	}
	for (i = 0; i < nfiles; i++) {
		files[i].path = argv[optind + i];
		if (slurp(&files[i]) < 0 || scan(&files[i], &lo, &hi) < 0)
			goto out;
		per_copy += files[i].records;
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
		out[i] = fopen(path, "wb");
		if (!out[i]) {
			fail(path, strerror(errno));
			goto out;
		}
	}
	copies = (want + per_copy - 1) / per_copy;
	for (k = 0; k < copies; k++) {
		for (i = 0; i < nfiles; i++) {
			if (k > 0)
				shift(&files[i], hi - lo + GAP_NS,
				      files[i].max_seq - files[i].min_seq + 1);
			if (fwrite(files[i].buf, 1, files[i].len, out[i]) !=
			    files[i].len) {
				fail(outdir, strerror(errno));
				goto out;
			}
		}
	}
	printf(PROG ": %llu events, %llu copies of %llu\n",
	       (unsigned long long)(copies * per_copy),
	       (unsigned long long)copies, (unsigned long long)per_copy);
	status = WC_EXIT_OK;
out:
	for (i = 0; i < nfiles; i++) {
		if (out[i] && fclose(out[i]) != 0 && status == WC_EXIT_OK) {
			fail(outdir, strerror(errno));
			status = WC_EXIT_FAILURE;
		}
		free(files[i].buf);
	}
	return status;
}
