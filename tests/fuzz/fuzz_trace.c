/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_trace.c - raw trace bytes through decode, reorder and merge, the
 * tracker, the classifier, the accountant, --dump and every report.
 *
 * The input is read two ways:
 *  - whole, as one merged file (what "blkparse -d" writes): the decoder
 *    and the reorder window;
 *  - cut at each "\nWCFUZZ\n" into per-CPU files t.blktrace.0, .1, ...
 *    of one base name: the decoder per stream and the k-way merge.
 * Both are dumped and analysed, and the two analyses are reported
 * together (the comparison table, JSON, CSV, with and without a
 * baseline).  See fuzz.h for what is checked.
 */
#include <limits.h>
#include <stdio.h>

#include "fuzz.h"

#define SEP "\nWCFUZZ\n"
#define MAX_STREAMS 8

static void write_stream(void *ctx, size_t i, const uint8_t *p, size_t n)
{
	char rel[64];

	(void)ctx;
	if (i >= MAX_STREAMS)
		return;
	snprintf(rel, sizeof(rel), "cpus/t.blktrace.%zu", i);
	fuzz_write(rel, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *rels[2] = { "merged", "cpus/t" };
	struct wc_analysis *caps[2];
	char path[PATH_MAX];
	size_t i, n = 0;

	fuzz_reset();
	fuzz_write("merged", data, size);
	fuzz_split(data, size, SEP, write_stream, NULL);
	for (i = 0; i < 2; i++) {
		struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
		struct wc_analysis *a = NULL;
		struct wc_err err;

		fuzz_path(path, sizeof(path), rels[i]);
		fuzz_dump(path);
		wc_err_clear(&err);
		if (wc_analysis_read(&a, path, &o, &err) < 0 && a &&
		    !wc_analysis_partial(a))
			fuzz_fail("analysis", "failed with a result that is "
				  "not marked partial: %s", err.msg);
		if (a)
			caps[n++] = a;
	}
	fuzz_reports(caps, n);
	for (i = 0; i < n; i++)
		wc_analysis_free(caps[i]);
	return 0;
}
