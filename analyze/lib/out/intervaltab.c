/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/intervaltab.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/escape.h"

struct wc_intervaltab {
	FILE *f;
	enum wc_format fmt;
	struct wc_interval_sink sink;
	size_t ncaps;
	char capture[256];               /* the current capture's name */
	uint64_t nrows;                  /* rows of the current capture */
	uint64_t len_ns;                 /* the intervals' length */
};

/* The device's number, "MAJ,MIN", into buf. */
static const char *dev_number(const struct wc_interval_row *r, char *buf,
			      size_t size)
{
	snprintf(buf, size, "%u,%u", WC_DEV_MAJOR(r->device),
		 WC_DEV_MINOR(r->device));
	return buf;
}

static void text_begin(struct wc_intervaltab *t, const char *capture,
		       uint64_t len_ns)
{
	FILE *f = t->f;

	fprintf(f, "%sinterval table of ", t->ncaps ? "\n" : "");
	wc_escape_text_put(f, capture ? capture : "");
	fprintf(f, ", %.9g s intervals\n"
		"  an I/O counts in the interval it completed in; awaits from "
		"its Q, in ms;\n"
		"  intervals without I/O are left out; %%util is the device's "
		"busy time: on a\n"
		"  device serving requests in parallel (SSD, RAID) 100 %% is "
		"not saturation\n"
		"    time device        r/s      w/s     f/s     d/s   rMB/s "
		"  wMB/s   dMB/s r_await w_await f_await d_await  aqu-sz  "
		"%%util\n",
		(double)len_ns / 1e9);
}

static void text_row(struct wc_intervaltab *t, const struct wc_interval_row *r)
{
	char e[WC_ESCAPE_SIZE(64)], dev[24];

	fprintf(t->f, "%8.3f %-10s %8.2f %8.2f %7.2f %7.2f %7.2f %7.2f "
		"%7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %6.1f", r->start_s,
		r->name ? wc_escape_text(r->name, e, sizeof(e)) :
			  dev_number(r, dev, sizeof(dev)),
		r->per_s[WC_IO_READ], r->per_s[WC_IO_WRITE],
		r->per_s[WC_IO_FLUSH], r->per_s[WC_IO_DISCARD],
		r->mib_s[WC_IO_READ], r->mib_s[WC_IO_WRITE],
		r->mib_s[WC_IO_DISCARD], r->await_ms[WC_IO_READ],
		r->await_ms[WC_IO_WRITE], r->await_ms[WC_IO_FLUSH],
		r->await_ms[WC_IO_DISCARD], r->aqu_sz, r->util_pct);
	/* A run of intervals the device was busy throughout, completing
	 * nothing, is one row (interval.h): its end said. */
	if (r->len_ns > t->len_ns)
		fprintf(t->f, "  to %.3f", r->start_s + (double)r->len_ns / 1e9);
	fputc('\n', t->f);
}

/* JSON and CSV keys of the per-kind figures, in enum wc_iokind's order. */
static const char *const rate_key[WC_NIO] = { "r_s", "w_s", "f_s", "d_s" };
static const char *const mib_key[WC_NIO] = {
	"rmb_s", "wmb_s", "fmb_s", "dmb_s",
};
static const char *const await_key[WC_NIO] = {
	"r_await_ms", "w_await_ms", "f_await_ms", "d_await_ms",
};
static const char *const count_key[WC_NIO] = {
	"reads", "writes", "flushes", "discards",
};
static const char *const bytes_key[WC_NIO] = {
	"read_bytes", "write_bytes", "flush_bytes", "discard_bytes",
};

static void json_begin(struct wc_intervaltab *t, const char *capture)
{
	fprintf(t->f, "%s\n{\"name\": ", t->ncaps ? "," : "");
	wc_escape_json(t->f, capture ? capture : "");
	fputs(", \"rows\": [", t->f);
}

static void json_row(struct wc_intervaltab *t, const struct wc_interval_row *r)
{
	FILE *f = t->f;
	char dev[24];
	int k;

	fprintf(f, "%s\n {\"start_s\": %.9f, \"length_s\": %.9f, "
		"\"device\": \"%s\", \"device_name\": ", t->nrows ? "," : "",
		r->start_s, (double)r->len_ns / 1e9,
		dev_number(r, dev, sizeof(dev)));
	if (r->name)
		wc_escape_json(f, r->name);
	else
		fputs("null", f);
	for (k = 0; k < WC_NIO; k++)
		fprintf(f, ", \"%s\": %" PRIu64 ", \"%s\": %" PRIu64,
			count_key[k], r->ios[k], bytes_key[k], r->bytes[k]);
	for (k = 0; k < WC_NIO; k++)
		fprintf(f, ", \"%s\": %.6f, \"%s\": %.6f, \"%s\": %.6f",
			rate_key[k], r->per_s[k], mib_key[k], r->mib_s[k],
			await_key[k], r->await_ms[k]);
	fprintf(f, ", \"aqu_sz\": %.6f, \"util_pct\": %.6f, \"busy_s\": %.9f}",
		r->aqu_sz, r->util_pct, (double)r->busy_ns / 1e9);
}

static void csv_row(struct wc_intervaltab *t, const char *capture,
		    const struct wc_interval_row *r)
{
	FILE *f = t->f;
	char dev[24];
	int k;

	wc_escape_csv(f, capture);
	fprintf(f, ",%.9f,%.9f,", r->start_s, (double)r->len_ns / 1e9);
	wc_escape_csv(f, dev_number(r, dev, sizeof(dev)));
	fputc(',', f);
	wc_escape_csv(f, r->name ? r->name : "");
	for (k = 0; k < WC_NIO; k++)
		fprintf(f, ",%" PRIu64 ",%" PRIu64, r->ios[k], r->bytes[k]);
	for (k = 0; k < WC_NIO; k++)
		fprintf(f, ",%.6f,%.6f,%.6f", r->per_s[k], r->mib_s[k],
			r->await_ms[k]);
	fprintf(f, ",%.6f,%.6f,%.9f\n", r->aqu_sz, r->util_pct,
		(double)r->busy_ns / 1e9);
}

static void csv_head(FILE *f)
{
	int k;

	fputs("capture,start_s,length_s,device,device_name", f);
	for (k = 0; k < WC_NIO; k++)
		fprintf(f, ",%s,%s", count_key[k], bytes_key[k]);
	for (k = 0; k < WC_NIO; k++)
		fprintf(f, ",%s,%s,%s", rate_key[k], mib_key[k], await_key[k]);
	fputs(",aqu_sz,util_pct,busy_s\n", f);
}

/* ---- the sink ---------------------------------------------------------- */

static void sink_begin(void *ctx, const char *capture, uint64_t len_ns)
{
	struct wc_intervaltab *t = ctx;

	t->nrows = 0;
	t->len_ns = len_ns;
	switch (t->fmt) {
	case WC_FORMAT_TEXT:
		text_begin(t, capture, len_ns);
		break;
	case WC_FORMAT_JSON:
		json_begin(t, capture);
		break;
	case WC_FORMAT_CSV:
		snprintf(t->capture, sizeof(t->capture), "%s",
			 capture ? capture : "");
		break;
	}
}

static void sink_row(void *ctx, const struct wc_interval_row *r)
{
	struct wc_intervaltab *t = ctx;

	switch (t->fmt) {
	case WC_FORMAT_TEXT:
		text_row(t, r);
		break;
	case WC_FORMAT_JSON:
		json_row(t, r);
		break;
	case WC_FORMAT_CSV:
		csv_row(t, t->capture, r);
		break;
	}
	t->nrows++;
}

static void sink_end(void *ctx, uint64_t not_written)
{
	struct wc_intervaltab *t = ctx;

	switch (t->fmt) {
	case WC_FORMAT_TEXT:
		if (not_written)
			fprintf(t->f, "  and %" PRIu64 " more rows, not written "
				"(at most %u a capture)\n", not_written,
				WC_INTERVAL_MAX_ROWS);
		break;
	case WC_FORMAT_JSON:
		fprintf(t->f, "%s], \"rows_not_written\": %" PRIu64 "}",
			t->nrows ? "\n" : "", not_written);
		break;
	case WC_FORMAT_CSV:
		break;
	}
	t->ncaps++;
}

int wc_intervaltab_open(struct wc_intervaltab **out, FILE *f,
			enum wc_format fmt, uint64_t len_ns, struct wc_err *err)
{
	struct wc_intervaltab *t;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return wc_err_oom(err, NULL, NULL);
	t->f = f;
	t->fmt = fmt;
	t->sink.begin = sink_begin;
	t->sink.row = sink_row;
	t->sink.end = sink_end;
	t->sink.ctx = t;
	if (fmt == WC_FORMAT_CSV)
		csv_head(f);
	if (fmt == WC_FORMAT_JSON)
		fprintf(f, "{\"interval_s\": %.9f, \"captures\": [",
			(double)len_ns / 1e9);
	*out = t;
	return 0;
}

const struct wc_interval_sink *wc_intervaltab_sink(struct wc_intervaltab *t)
{
	return &t->sink;
}

int wc_intervaltab_close(struct wc_intervaltab *t, struct wc_err *err)
{
	if (t->fmt == WC_FORMAT_JSON) {
		fputs("\n]}\n", t->f);
	}
	if (fflush(t->f) != 0 || ferror(t->f))
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "cannot write the interval table");
	return 0;
}

void wc_intervaltab_free(struct wc_intervaltab *t)
{
	free(t);
}
