/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench.h - what every benchmark in bench/ measures with: wall and CPU
 * time and the peak resident memory, and a digest that shows two runs
 * (or two builds) gave the same results.
 *
 * The machine a benchmark runs on may be shared: wall time then moves
 * with the other loads, CPU time much less.  A benchmark that repeats a
 * run keeps the least CPU time (the other loads only ever add to it).
 *
 *     double t0 = bench_now(), c0 = bench_cpu();
 *     uint64_t h = BENCH_DIGEST_INIT;
 *     for (each result)
 *             h = bench_digest(h, result_value);
 *     printf("%.3f s (cpu %.3f s), peak RSS %ld KiB, digest %016llx\n",
 *            bench_now() - t0, bench_cpu() - c0, bench_maxrss_kib(),
 *            (unsigned long long)h);
 *
 * Header only: each benchmark is one program.
 */
#ifndef WC_BENCH_H
#define WC_BENCH_H

#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of this process (all its threads). */
static inline double bench_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The peak resident memory so far, KiB. */
static inline long bench_maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* FNV-1a over the 8 bytes of v: equal digests, equal results (to the
 * odds of a 64-bit collision). */
#define BENCH_DIGEST_INIT 0xcbf29ce484222325ull

static inline uint64_t bench_digest(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8) {
		h ^= v & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

#endif /* WC_BENCH_H */
