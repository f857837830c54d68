/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader_bench - how fast the reader goes, and that its memory stays flat.
 *
 *   reader_bench [-n EVENTS] [-k] [-r RUNS] DIR
 *
 * Writes DIR/bench.blktrace.0 and .1 (EVENTS records in all, default
 * 4,000,000: the recorded ext4 fixture's records repeated with their
 * times shifted, so every kind of record is there), then reads them back
 * twice through wc_input: once only decoding and merging, once printing
 * every line with wc_dump_event() to /dev/null.  Prints events per second
 * and the peak resident memory.  -k keeps the files (scripts/bench.sh
 * times blkparse on them).
 *
 * With -r RUNS it then runs a bare loop (read() of each file in 1 MiB
 * blocks and a walk from record to record by its payload length, no
 * decoding, no merge), the reader as the analysis reads it (batches
 * from wc_input_next_ref()) and the reader one event at a time
 * (batches of one from wc_input_next_ref()) in turn, RUNS times each, and
 * prints the median CPU time of each and the batched reader's rate as a
 * share of the bare loop's (issue 45's target is at least 50 %), "met"
 * or "not met" computed from them.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "input/decode_test.h"
#include "out/dump.h"
#include "format/encode.h"
#include "input/input.h"

#define FIXTURE "tests/fixtures/reader/ext4/loop1.blktrace."

struct rec {
	struct wc_event ev;
	unsigned char pdu[64];
};

/* The fixture's CPU file as events, payloads copied; NULL on failure. */
static struct rec *load(const char *in, size_t *n)
{
	struct wc_decoder *dec = NULL;
	struct rec *recs = NULL, *grown;
	size_t cap = 0;
	struct wc_event ev;
	struct wc_err err;
	char msg[2048];
	int r;

	*n = 0;
	wc_err_clear(&err);
	if (wc_decoder_open_file(&dec, in, 0, &err) < 0)
		goto fail;
	while ((r = wc_decoder_next(dec, &ev, &err)) > 0) {
		if (ev.pdu_len > sizeof(recs->pdu)) {
			wc_err_set(&err, WC_ERR_INPUT, in, NULL,
				   wc_decoder_offset(dec), "payload too long");
			goto fail;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			grown = realloc(recs, cap * sizeof(*recs));
			if (!grown) {
				wc_err_set(&err, WC_ERR_SYSTEM, in, NULL,
					   WC_NO_OFFSET, "out of memory");
				goto fail;
			}
			recs = grown;
		}
		recs[*n].ev = ev;
		memcpy(recs[*n].pdu, ev.pdu, ev.pdu_len);
		recs[*n].ev.pdu = recs[*n].pdu;
		(*n)++;
	}
	if (r < 0 || *n == 0)
		goto fail;
	wc_decoder_free(dec);
	return recs;

fail:
	if (err.kind == WC_ERR_NONE)
		wc_err_set(&err, WC_ERR_INPUT, in, NULL, WC_NO_OFFSET, "no records");
	fprintf(stderr, "reader_bench: %s\n", wc_err_format(&err, msg, sizeof(msg)));
	wc_decoder_free(dec);
	free(recs);
	return NULL;
}

/* Copies the fixture's CPU file, repeated until n records are written. */
static int make(const char *dir, int cpu, unsigned long n)
{
	char in[256], out[4096];
	unsigned char rec[WC_BLK_RECORD_MAX];
	struct rec *recs;
	size_t nrec, i;
	FILE *of;
	unsigned long written = 0;
	uint64_t shift = 0, span, first, last;

	snprintf(in, sizeof(in), FIXTURE "%d", cpu);
	snprintf(out, sizeof(out), "%s/bench.blktrace.%d", dir, cpu);
	recs = load(in, &nrec);
	if (!recs)
		return -1;
	of = fopen(out, "wb");
	if (!of) {
		perror(out);
		free(recs);
		return -1;
	}
	/* Records in the host's order: shift each copy's times past the
	 * previous one. */
	first = last = recs[0].ev.time;
	for (i = 0; i < nrec; i++)
		if (recs[i].ev.time > last)
			last = recs[i].ev.time;
	span = last - first + 1000;
	while (written < n) {
		for (i = 0; i < nrec && written < n; i++, written++) {
			struct wc_event ev = recs[i].ev;
			ssize_t len;

			ev.time += shift;
			len = wc_blk_encode(rec, sizeof(rec), &ev, ev.version,
					    false, NULL);
			if (len < 0 ||
			    fwrite(rec, 1, (size_t)len, of) != (size_t)len) {
				fclose(of);
				free(recs);
				return -1;
			}
		}
		shift += span;
	}
	free(recs);
	return fclose(of);
}

static int run(const char *base, int dump, unsigned long *events)
{
	struct wc_input *in = NULL;
	const struct wc_event *ev;
	struct wc_err err;
	FILE *null = NULL;
	size_t got;
	int r;

	wc_err_clear(&err);
	if (dump) {
		null = fopen("/dev/null", "w");
		if (!null)
			return -1;
	}
	if (wc_input_open(&in, base, &err) < 0)
		goto fail;
	*events = 0;
	while ((r = wc_input_next_ref(in, &ev, 1, &got, &err)) > 0) {
		if (dump)
			wc_dump_event(null, ev, wc_input_genesis(in),
				      wc_input_comm(in, ev->pid));
		(*events)++;
	}
	if (r < 0)
		goto fail;
	wc_input_free(in);
	if (null)
		fclose(null);
	return 0;

fail:
	fprintf(stderr, "reader_bench: %s\n", err.msg);
	wc_input_free(in);
	if (null)
		fclose(null);
	return -1;
}

/* The reader as the analysis reads it (analysis.c's feed_batch()):
 * batches of WC_INPUT_BATCH events where the input holds them, no copy
 * per event. */
static int run_ref(const char *base, unsigned long *events)
{
	struct wc_input *in = NULL;
	const struct wc_event *evs;
	struct wc_err err;
	size_t got, i;
	uint64_t sum = 0;
	int r;

	wc_err_clear(&err);
	if (wc_input_open(&in, base, &err) < 0)
		goto fail;
	*events = 0;
	while ((r = wc_input_next_ref(in, &evs, WC_INPUT_BATCH, &got, &err)) > 0)
		for (i = 0; i < got; i++) {
			sum += evs[i].sector;
			(*events)++;
		}
	if (r < 0)
		goto fail;
	wc_input_free(in);
	/* sum keeps the loop over the batch from being left out */
	return sum == 1 ? 1 : 0;

fail:
	fprintf(stderr, "reader_bench: %s\n", err.msg);
	wc_input_free(in);
	return -1;
}

/* blktrace's record: a 48-byte header whose last field, at byte 46, is
 * the payload's length (struct blk_io_trace, blktrace_api.h). */
#define REC_HEAD 48
#define REC_PDU_LEN 46
#define REC_SECTOR 16
#define BARE_BLOCK (1u << 20)

/* The bare loop over base.blktrace.0 and .1: read() and a walk over the
 * records, summing their sectors so the walk cannot be left out. */
static int bare(const char *dir, unsigned long *events, uint64_t *sum)
{
	unsigned char *buf = malloc(BARE_BLOCK + 65536 + REC_HEAD);
	char path[4096];
	int cpu, fd;

	if (!buf)
		return -1;
	*events = 0;
	for (cpu = 0; cpu < 2; cpu++) {
		size_t have = 0, at;
		ssize_t got;

		snprintf(path, sizeof(path), "%s/bench.blktrace.%d", dir, cpu);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			goto fail_buf;
		while ((got = read(fd, buf + have, BARE_BLOCK)) > 0) {
			have += (size_t)got;
			at = 0;
			while (have - at >= REC_HEAD) {
				uint16_t pdu;
				uint64_t sector;

				memcpy(&pdu, buf + at + REC_PDU_LEN, sizeof(pdu));
				if (have - at < REC_HEAD + (size_t)pdu)
					break;
				memcpy(&sector, buf + at + REC_SECTOR, sizeof(sector));
				*sum += sector;
				(*events)++;
				at += REC_HEAD + pdu;
			}
			memmove(buf, buf + at, have - at);
			have -= at;
		}
		close(fd);
		if (got < 0)
			goto fail_buf;
	}
	free(buf);
	return 0;

fail_buf:
	perror(path);
	free(buf);
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Bare loop, reader in batches and reader one event at a time in turn,
 * runs times each: medians of CPU time. */
static int against_bare(const char *dir, const char *base, unsigned runs)
{
	double *tb = calloc(runs, sizeof(*tb)), *tr = calloc(runs, sizeof(*tr));
	double *t1 = calloc(runs, sizeof(*t1));
	unsigned long nb = 0, nr = 0, n1 = 0;
	uint64_t sum = 0;
	double c0, mb, mr, m1, share;
	unsigned k;
	int ret = -1;

	if (!tb || !tr || !t1)
		goto out_free;
	for (k = 0; k < runs; k++) {
		c0 = bench_cpu();
		if (bare(dir, &nb, &sum) < 0)
			goto out_free;
		tb[k] = bench_cpu() - c0;
		c0 = bench_cpu();
		if (run_ref(base, &nr) < 0)
			goto out_free;
		tr[k] = bench_cpu() - c0;
		c0 = bench_cpu();
		if (run(base, 0, &n1) < 0)
			goto out_free;
		t1[k] = bench_cpu() - c0;
	}
	if (nb != nr || nb != n1) {
		fprintf(stderr, "reader_bench: the bare loop walked %lu records, the reader %lu and %lu\n",
			nb, nr, n1);
		goto out_free;
	}
	mb = median(tb, runs);
	mr = median(tr, runs);
	m1 = median(t1, runs);
	share = mr > 0 ? mb / mr : 0;
	printf("reader_bench: bare loop %lu records, cpu median %.3f s: %.1f M/s (sum %llx)\n",
	       nb, mb, mb > 0 ? (double)nb / mb / 1e6 : 0, (unsigned long long)sum);
	printf("reader_bench: reader    %lu events, cpu median %.3f s: %.1f M/s (batches, wc_input_next_ref(), as the analysis reads)\n",
	       nr, mr, mr > 0 ? (double)nr / mr / 1e6 : 0);
	printf("reader_bench: reader    %lu events, cpu median %.3f s: %.1f M/s (one at a time, batches of one)\n",
	       n1, m1, m1 > 0 ? (double)n1 / m1 / 1e6 : 0);
	printf("reader_bench: target reader >= 50 %% of the bare loop's rate, %u runs each A B: %.0f %% %s\n",
	       runs, 100 * share, share >= 0.5 ? "met" : "not met");
	ret = 0;
out_free:
	free(tb);
	free(tr);
	free(t1);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long n = 4000000, events;
	char base[4096];
	int c, keep = 0, pass;
	unsigned runs = 0;
	double t0;
	long rss0;

	while ((c = getopt(argc, argv, "n:kr:")) != -1) {
		if (c == 'n')
			n = strtoul(optarg, NULL, 10);
		else if (c == 'r')
			runs = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'k')
			keep = 1;
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;
	if (make(argv[optind], 0, n / 2) < 0 || make(argv[optind], 1, n - n / 2) < 0)
		return 1;
	snprintf(base, sizeof(base), "%s/bench", argv[optind]);
	rss0 = bench_maxrss_kib();
	for (pass = 0; pass < 2; pass++) {
		t0 = bench_now();
		if (run(base, pass, &events) < 0)
			return 1;
		printf("reader_bench: %-6s %lu events in %.2f s: %.2f M events/s, peak RSS %ld KiB (before: %ld KiB)\n",
		       pass ? "dump" : "decode", events, bench_now() - t0,
		       (double)events / (bench_now() - t0) / 1e6, bench_maxrss_kib(), rss0);
	}
	if (runs > 0 && against_bare(argv[optind], base, runs) < 0)
		return 1;
	if (!keep) {
		snprintf(base, sizeof(base), "%s/bench.blktrace.0", argv[optind]);
		unlink(base);
		snprintf(base, sizeof(base), "%s/bench.blktrace.1", argv[optind]);
		unlink(base);
	}
	return 0;

usage:
	fprintf(stderr, "usage: reader_bench [-n EVENTS] [-k] [-r RUNS] DIR\n");
	return 2;
}
