/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_whatif.c - a capture folder through the what-if (whatif.h): its
 * main device's requests replayed through the disk model (replay.h,
 * diskmodel.h) as recorded and as the specs say, each replay analysed,
 * and every report of the result.
 *
 * The input is fuzz_capture()'s (fuzz.h); capture.conf's lines may name
 * a disk_model, write_cache, barrier, capacity.  Options: up to three
 * lines "whatif SPEC" (as --what-if takes them; a spec wcanalyze would
 * refuse is left out), else "cache=off".  Disk files are looked up
 * where wcanalyze looks (capture/disks under the folder libFuzzer runs
 * in, as run.sh and replay run it).  Besides the sanitizers: a run
 * that succeeds gives 2 + specs analyses, and fuzz_reports()' checks.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "disk/whatif.h"

#define MAX_SPECS 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wc_whatif_spec specs[MAX_SPECS];
	struct wc_whatif_opts wo = { .analysis = WC_ANALYSIS_OPTS_INIT };
	struct wc_whatif *w = NULL;
	char opts[2048], path[PATH_MAX];
	const char *p;
	size_t n = 0;
	struct wc_err err;

	fuzz_reset();
	fuzz_capture(data, size, opts, sizeof(opts));
	/* Every "whatif SPEC" line, in order. */
	for (p = opts; *p && n < MAX_SPECS;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char line[512];

		if (len > 7 && len < sizeof(line) && !memcmp(p, "whatif ", 7)) {
			memcpy(line, p + 7, len - 7);
			line[len - 7] = '\0';
			wc_err_clear(&err);
			if (wc_whatif_spec_parse(&specs[n], line, &err) == 0)
				n++;
		}
		p += len + (end != NULL);
	}
	if (!n) {
		wc_err_clear(&err);
		if (wc_whatif_spec_parse(&specs[n++], "cache=off", &err) < 0)
			fuzz_fail("whatif", "cache=off refused: %s", err.msg);
	}
	fuzz_path(path, sizeof(path), "cap");
	wc_err_clear(&err);
	if (wc_whatif_replay(&w, path, specs, n, &wo, &err) < 0) {
		if (w)
			fuzz_fail("whatif", "failed with a result: %s", err.msg);
		return 0;
	}
	if (wc_whatif_count(w) != 2 + n)
		fuzz_fail("whatif", "%zu analyses for %zu specs",
			  wc_whatif_count(w), n);
	fuzz_reports(wc_whatif_analyses(w), wc_whatif_count(w));
	wc_whatif_free(w);
	return 0;
}
