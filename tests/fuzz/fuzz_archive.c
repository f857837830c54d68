/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_archive.c - a file read as an archive through libarchive (tar
 * plain or compressed, zip, cpio): member names, capture.conf,
 * phases.tsv and the per-CPU members, merged, dumped, analysed and
 * reported in every format.  See fuzz.h for what is checked.
 */
#include <limits.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_analysis *a = NULL;
	struct wc_err err;
	char path[PATH_MAX];

	fuzz_reset();
	/* The name says nothing: what the bytes are decides how it is read. */
	fuzz_write("capture", data, size);
	fuzz_path(path, sizeof(path), "capture");
	fuzz_dump(path);
	wc_err_clear(&err);
	if (wc_analysis_read(&a, path, &o, &err) < 0 && a &&
	    !wc_analysis_partial(a))
		fuzz_fail("analysis", "failed with a result that is not marked "
			  "partial: %s", err.msg);
	if (a)
		fuzz_reports(&a, 1);
	wc_analysis_free(a);
	return 0;
}
