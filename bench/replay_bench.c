/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_bench - how fast the what-if replay goes, and that its memory
 * stays flat.
 *
 *   replay_bench [-n REQUESTS] [-r RUNS] [-d DISK]... CAPTURE
 *
 * Reads the main device's requests of CAPTURE (a sample archive; its
 * destination is capture.conf's) once into memory, then hands them to
 * the replay (replay.h) again and again, each copy shifted in time past
 * the one before, until REQUESTS (default 4,000,000) have been replayed,
 * through each disk model DISK (capture/disks/hdd7200 and ssd by
 * default), with its write cache as the file says and then off.  Each
 * of those runs RUNS times (default 1) and the least CPU time counts
 * (bench.h).  Prints requests per second of the replay alone (its
 * source is the array, no input and no tracker), of wall and of CPU
 * time, the peak resident memory, and a digest of every replayed
 * request's times and place: two builds that print the same digest
 * replayed to the same nanosecond.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "bench.h"
#include "input/input.h"
#include "disk/replay.h"
#include "model/tracker.h"

struct reqs {
	struct wc_request *rq;
	size_t n, cap;
	uint64_t span;               /* first D to last C of one copy */
};

struct feed {
	const struct reqs *r;
	uint64_t left, pos, round;
};

static int input_batch(void *ctx, const struct wc_event **evs, size_t *n,
		       struct wc_err *err)
{
	size_t got = 0;
	int r = wc_input_next_ref(ctx, evs, WC_INPUT_BATCH, &got, err);

	*n = got;
	return r;
}

/* The copies, one after the other, each shifted by the span (plus a
 * second of quiet): the replay sees one long capture. */
static int feed_next(void *ctx, struct wc_request *rq, struct wc_err *err)
{
	struct feed *f = ctx;
	uint64_t shift;

	(void)err;
	if (f->left == 0)
		return 0;
	if (f->pos == f->r->n) {
		f->pos = 0;
		f->round++;
	}
	*rq = f->r->rq[f->pos++];
	shift = f->round * (f->r->span + 1000000000ull);
	if (rq->q_time != WC_NO_TIME)
		rq->q_time += shift;
	rq->d_time += shift;
	rq->c_time += shift;
	f->left--;
	return 1;
}

int main(int argc, char **argv)
{
	const char *disks[8] = { "capture/disks/hdd7200", "capture/disks/ssd" };
	size_t ndisks = 0, k;
	uint64_t n = 4000000;
	unsigned runs = 1;
	struct wc_analysis *a = NULL;
	struct wc_tracker *tr = NULL;
	struct wc_input *in = NULL;
	struct reqs r = { 0 };
	struct wc_classifier cl;
	struct wc_request rq;
	struct wc_err err;
	uint32_t dev;
	int c;

	while ((c = getopt(argc, argv, "n:r:d:")) != -1) {
		if (c == 'n')
			n = strtoull(optarg, NULL, 10);
		else if (c == 'r')
			runs = (unsigned)strtoul(optarg, NULL, 10);
		else if (c == 'd' && ndisks < 8)
			disks[ndisks++] = optarg;
		else
			goto usage;
	}
	if (optind + 1 != argc || n == 0 || runs == 0)
		goto usage;
	if (ndisks == 0)
		ndisks = 2;
	wc_err_clear(&err);
	if (wc_analysis_read(&a, argv[optind], NULL, &err) < 0 ||
	    !wc_analysis_main(a)) {
		fprintf(stderr, "replay_bench: %s: %s\n", argv[optind], err.msg);
		return 1;
	}
	dev = wc_analysis_meta(a)->main_device;
	wc_analysis_classifier(a, &cl);
	if (wc_input_open(&in, argv[optind], &err) < 0 ||
	    wc_tracker_open_batch(&tr, input_batch, in, &err) < 0) {
		fprintf(stderr, "replay_bench: %s\n", err.msg);
		return 1;
	}
	while (wc_tracker_next(tr, &rq, &err) > 0) {
		if (rq.device != dev || !rq.completed)
			continue;
		if (r.n == r.cap) {
			r.cap = r.cap ? r.cap * 2 : 4096;
			r.rq = realloc(r.rq, r.cap * sizeof(*r.rq));
			if (!r.rq)
				return 1;
		}
		r.rq[r.n++] = rq;
	}
	wc_tracker_free(tr);
	wc_input_free(in);
	if (r.n == 0)
		return 1;
	r.span = r.rq[r.n - 1].c_time - r.rq[0].d_time;
	printf("replay: %zu requests of %s repeated to %llu\n", r.n,
	       argv[optind], (unsigned long long)n);

	for (k = 0; k < 2 * ndisks; k++) {
		struct wc_replay_conf conf;
		double bt = 0, bct = 0;
		uint64_t got = 0, h = 0, out_of_order = 0;
		unsigned run;

		wc_replay_conf_init(&conf);
		conf.device = dev;
		conf.cl = cl;
		conf.capacity_bytes = 1377828864ull;   /* the samples' image */
		if (wc_disk_params_load(&conf.disk, disks[k / 2], &err) < 0) {
			fprintf(stderr, "replay_bench: %s\n", err.msg);
			return 1;
		}
		/* the second time with the cache off: every write to the
		 * media, the queue's picks at work */
		if (k % 2)
			conf.disk.write_cache = false;
		for (run = 0; run < runs; run++) {
			struct feed f = { &r, n, 0, 0 };
			struct wc_replay *rp = NULL;
			double t0, t, c0, ct;

			if (wc_replay_open(&rp, &conf, feed_next, &f, &err) < 0) {
				fprintf(stderr, "replay_bench: %s: %s\n", disks[k / 2],
					err.msg);
				return 1;
			}
			got = 0;
			h = BENCH_DIGEST_INIT;
			t0 = bench_now();
			c0 = bench_cpu();
			while (wc_replay_next(rp, &rq, &err) > 0) {
				h = bench_digest(h, rq.sector);
				h = bench_digest(h, rq.q_time);
				h = bench_digest(h, rq.d_time);
				h = bench_digest(h, rq.c_time);
				h = bench_digest(h, (uint64_t)rq.device << 32 | rq.depth);
				got++;
			}
			t = bench_now() - t0;
			ct = bench_cpu() - c0;
			if (run == 0 || ct < bct) {
				bct = ct;
				bt = t;
			}
			out_of_order = wc_replay_stats(rp)->late +
				wc_replay_stats(rp)->forced;
			wc_replay_free(rp);
		}
		printf("replay: %s cache %s: %llu requests in %.3f s (cpu %.3f s, "
		       "least of %u): %.2f M requests/s, %.2f M a CPU second, "
		       "peak RSS %ld KiB, %llu taken out of order, digest %016llx\n",
		       disks[k / 2], conf.disk.write_cache ? "on" : "off",
		       (unsigned long long)got, bt, bct, runs,
		       (double)got / bt / 1e6, (double)got / bct / 1e6,
		       bench_maxrss_kib(), (unsigned long long)out_of_order,
		       (unsigned long long)h);
	}
	free(r.rq);
	wc_analysis_free(a);
	return 0;
usage:
	fprintf(stderr, "usage: replay_bench [-n REQUESTS] [-r RUNS] [-d DISK]... CAPTURE\n");
	return 2;
}
