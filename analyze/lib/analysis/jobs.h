/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobs.h - analyse several inputs at once, one thread per input at a time,
 * results in input order (wcanalyze -j N).
 *
 *     struct wc_job *jobs = calloc(n, sizeof(*jobs));
 *
 *     for (i = 0; i < n; i++)
 *             jobs[i].path = paths[i];
 *     wc_jobs_analyse(jobs, n, &opts, 4);
 *     for (i = 0; i < n; i++) {             // as wc_analysis_read() left it
 *             if (jobs[i].status < 0)
 *                     report(&jobs[i].err);
 *             if (jobs[i].a)
 *                     use(jobs[i].a);       // the caller frees it
 *     }
 *
 * What always holds:
 *  - job i ends exactly as wc_analysis_read(&jobs[i].a, jobs[i].path, o,
 *    &jobs[i].err) would have left it, with its return in jobs[i].status:
 *    an analysis depends only on its own input, so the report of -j N is
 *    byte for byte the one of -j 1;
 *  - at most njobs inputs are analysed at once (0 means the number of
 *    online CPUs), or have their descriptors open (summaries left to
 *    the caller among them); each takes the memory of one analysis, so
 *    the peak is about njobs times that of one; they share the
 *    open-file limit, each input's pool of handles its part
 *    (o->inputs_at_once, inputdefs.h);
 *  - an analysis owns all it feeds (analysis.h), so nothing is shared
 *    between threads; with njobs 1, or one input, everything runs in the
 *    calling thread, one input after the other;
 *  - inputs are started in order; the calling thread works too, so
 *    njobs 2 starts one more thread, and when threads cannot be started
 *    the ones there are (at least the caller) do all the inputs: it
 *    never fails as a whole.
 */
#ifndef WC_JOBS_H
#define WC_JOBS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"
#include "analysis/capsule.h"
#include "base/wcerr.h"

struct wc_job {
	const char *path;        /* in: anything wc_input_open() takes */
	/* in: keep only the capsule (capsule.h) of the analysis, which is
	 * freed as soon as it is made, so that the memory held is the
	 * capsules' and njobs analyses', whatever the number of inputs; a
	 * summary (wc_analysis_read_any(): told apart by the input's one
	 * open) is then not read here: its descriptor is given, for the
	 * caller to read a capture at a time (wc_capsule_reader_fd()). */
	bool condense;
	bool summary;            /* out, with condense: it was a summary */
	int fd;                  /* out, with summary: its descriptor, the
	                          * caller's to close; else -1 */
	struct wc_analysis *a;   /* out: the analysis, or NULL (condense) */
	struct wc_capsule **caps;        /* out, with condense: the caller */
	size_t ncaps;                    /* frees them (wc_capsules_free) */
	int status;              /* out: wc_analysis_read()'s return */
	struct wc_err err;       /* out: filled when status < 0 */
};

/* Returns how many of the jobs were done: all n, but with condense
 * the first k when summaries found (their descriptors left open for
 * the caller) and inputs being read reached njobs; the caller reads
 * and closes those summaries, and gives jobs k to n again. */
size_t wc_jobs_analyse(struct wc_job *jobs, size_t n,
		       const struct wc_analysis_opts *o, unsigned njobs);

/* The number of online CPUs, at least 1. */
unsigned wc_jobs_cpus(void);

#endif /* WC_JOBS_H */
