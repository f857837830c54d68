/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_timeline.c - a capture folder through the filters and the
 * trace-event writer (wcanalyze --format trace-event), with and without
 * a limit.
 *
 * The input is fuzz_capture()'s (fuzz.h).  Options: "limit N" (the
 * timeline's, else 4), and the filters "window", "phase", "device",
 * "process" as fuzz_interval takes them.  Besides the sanitizers and
 * fuzz_check_json(), what traceevent.h promises: an event a line, each
 * with ph, ts, pid and tid; on every thread timestamps never decrease,
 * and B and E pair; with a limit of N, at most 16 N + 300 events, none
 * over 4 KiB.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/filter.h"
#include "fuzz.h"
#include "model/traceevent.h"

#define THREADS 4096

struct thread {
	long pid, tid;
	double last;
	long depth;
};

/* Checks the events, one a line as the writer puts them. */
static void check_events(const char *buf, size_t len, uint64_t limit)
{
	static struct thread th[THREADS];
	size_t nth = 0, nev = 0, i;
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char ph;
		double ts;
		long pid, tid;
		int used = 0;

		if (n > 4096)
			fuzz_fail("timeline", "a line of %zu bytes", n);
		if (n > 8 && (p[0] == '{' || p[0] == ',') &&
		    sscanf(p + (p[0] == ','), "{\"ph\":\"%c\",\"ts\":%lf,"
			   "\"pid\":%ld,\"tid\":%ld%n", &ph, &ts, &pid, &tid,
			   &used) == 4 && used > 0) {
			nev++;
			for (i = 0; i < nth; i++)
				if (th[i].pid == pid && th[i].tid == tid)
					break;
			if (i == nth) {
				if (nth == THREADS)
					fuzz_fail("timeline", "over %d threads",
						  THREADS);
				th[nth].pid = pid;
				th[nth].tid = tid;
				th[nth].last = ts;
				th[nth].depth = 0;
				nth++;
			}
			if (ts < th[i].last)
				fuzz_fail("timeline", "ts %.3f after %.3f on "
					  "thread %ld/%ld", ts, th[i].last,
					  pid, tid);
			th[i].last = ts;
			if (ph == 'B')
				th[i].depth++;
			if (ph == 'E' && --th[i].depth < 0)
				fuzz_fail("timeline", "E without B on thread "
					  "%ld/%ld", pid, tid);
		}
		p += n + 1;
	}
	for (i = 0; i < nth; i++)
		if (th[i].depth)
			fuzz_fail("timeline", "B without E on thread %ld/%ld",
				  th[i].pid, th[i].tid);
	if (limit && nev > WC_TRACEEVENT_EVENTS_PER_SLICE * limit + 300)
		fuzz_fail("timeline", "%zu events with a limit of %llu", nev,
			  (unsigned long long)limit);
}

static void timeline(const char *path, const struct wc_filter *f,
		     uint64_t limit)
{
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_traceevent *t = NULL;
	struct wc_analysis *a = NULL;
	struct wc_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (!mf)
		fuzz_fail("timeline", "open_memstream failed");
	wc_err_clear(&err);
	if (wc_traceevent_open(&t, mf, &err) < 0)
		fuzz_fail("timeline", "open: %s", err.msg);
	wc_traceevent_limit(t, limit);
	o.trace = t;
	o.filter = f;
	wc_err_clear(&err);
	if (wc_analysis_read(&a, path, &o, &err) < 0 && a &&
	    !wc_analysis_partial(a))
		fuzz_fail("analysis", "failed with a result that is not marked "
			  "partial: %s", err.msg);
	wc_err_clear(&err);
	wc_traceevent_close(t, &err);
	wc_traceevent_free(t);
	fclose(mf);
	if (!fuzz_skipped("json"))
		fuzz_check_json("timeline", buf, len);
	check_events(buf, len, limit);
	free(buf);
	wc_analysis_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wc_filter f = WC_FILTER_INIT;
	char opts[1024], v[256], path[PATH_MAX];
	uint64_t limit = 4;

	fuzz_reset();
	fuzz_capture(data, size, opts, sizeof(opts));
	if (fuzz_option(opts, "limit", v, sizeof(v)))
		limit = strtoull(v, NULL, 10) % 1000;
	fuzz_filters(opts, &f);
	fuzz_path(path, sizeof(path), "cap");
	timeline(path, &f, limit);
	timeline(path, NULL, 0);
	return 0;
}
