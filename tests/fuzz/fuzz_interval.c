/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_interval.c - a capture folder through the filters and the
 * interval table (wcanalyze --interval), written as text, JSON and CSV.
 *
 * The input is fuzz_capture()'s (fuzz.h): options, capture.conf lines,
 * phases.tsv, trace files.  Options (each optional, parsed as wcanalyze
 * parses them; a value it refuses leaves that filter out):
 *   interval SECONDS   (else 0.01)
 *   window START,END   --window
 *   phase NAME         --phase
 *   device D           --device
 *   process P          --process
 * Besides the sanitizers and fuzz.h's checks of each format, the table
 * holds at most three rows a completed request (interval.h), counted
 * by a sink in front of the writer's.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/filter.h"
#include "fuzz.h"
#include "out/intervaltab.h"

struct counting {
	const struct wc_interval_sink *next;
	uint64_t rows;
};

static void c_begin(void *ctx, const char *capture, uint64_t len_ns)
{
	struct counting *c = ctx;

	if (c->next->begin)
		c->next->begin(c->next->ctx, capture, len_ns);
}

static void c_row(void *ctx, const struct wc_interval_row *r)
{
	struct counting *c = ctx;

	c->rows++;
	if (c->next->row)
		c->next->row(c->next->ctx, r);
}

static void c_end(void *ctx, uint64_t not_written)
{
	struct counting *c = ctx;

	if (c->next->end)
		c->next->end(c->next->ctx, not_written);
}

static void table(const char *path, const struct wc_filter *f,
		  uint64_t len_ns, enum wc_format fmt)
{
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_intervaltab *t = NULL;
	struct wc_analysis *a = NULL;
	struct counting c = { NULL, 0 };
	struct wc_interval_sink sink = { c_begin, c_row, c_end, &c };
	struct wc_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (!mf)
		fuzz_fail("interval", "open_memstream failed");
	wc_err_clear(&err);
	if (wc_intervaltab_open(&t, mf, fmt, len_ns, &err) < 0)
		fuzz_fail("interval", "open: %s", err.msg);
	c.next = wc_intervaltab_sink(t);
	o.filter = f;
	o.interval = &sink;
	o.interval_ns = len_ns;
	wc_err_clear(&err);
	if (wc_analysis_read(&a, path, &o, &err) < 0 && a &&
	    !wc_analysis_partial(a))
		fuzz_fail("analysis", "failed with a result that is not marked "
			  "partial: %s", err.msg);
	wc_err_clear(&err);
	wc_intervaltab_close(t, &err);
	wc_intervaltab_free(t);
	fclose(mf);
	if (a) {
		const struct wc_tracker_stats *ts = wc_analysis_tracker_stats(a);
		uint64_t done = ts ? ts->requests : 0;

		if (ts && c.rows > 3 * done)
			fuzz_fail("interval", "%llu rows for %llu completed "
				  "requests (at most 3 each)",
				  (unsigned long long)c.rows,
				  (unsigned long long)done);
	}
	switch (fmt) {
	case WC_FORMAT_JSON:
		if (!fuzz_skipped("json"))
			fuzz_check_json("interval json", buf, len);
		break;
	case WC_FORMAT_CSV:
		if (!fuzz_skipped("csv"))
			fuzz_check_csv("interval csv", buf, len);
		break;
	default:
		if (!fuzz_skipped("text"))
			fuzz_check_ascii("interval text", buf, len);
		break;
	}
	free(buf);
	wc_analysis_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wc_filter f = WC_FILTER_INIT;
	char opts[1024], v[256], path[PATH_MAX];
	uint64_t len_ns = 10000000;
	static const enum wc_format fmts[3] = {
		WC_FORMAT_TEXT, WC_FORMAT_JSON, WC_FORMAT_CSV,
	};
	int i;

	fuzz_reset();
	fuzz_capture(data, size, opts, sizeof(opts));
	if (fuzz_option(opts, "interval", v, sizeof(v))) {
		char *end;
		double s = strtod(v, &end);

		/* wcanalyze's range: 1 us to a day. */
		if (end != v && isfinite(s) && s >= 1e-6 && s <= 86400)
			len_ns = (uint64_t)(s * 1e9);
	}
	fuzz_filters(opts, &f);
	fuzz_path(path, sizeof(path), "cap");
	for (i = 0; i < 3; i++)
		table(path, &f, len_ns, fmts[i]);
	return 0;
}
