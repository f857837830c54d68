/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ledger.c - a model disk's ledger.tsv as the disk's own work (ledger.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input/ledger.h"
#include "base/wclimits.h"

/* The columns read, by name: their place in the header. */
enum col { C_SEQ, C_OP, C_BYTES, C_START, C_END, C_LATE, C_CAUSE, C_REGION,
	   NCOLS };

static const char *const col_name[NCOLS] = {
	"seq", "op", "bytes", "start_ns", "end_ns", "late_ns", "cause_seq",
	"region",
};

/* More fields than this in a header are refused: the model writes 22. */
#define MAX_FIELDS 64u

struct wc_ledger {
	struct wc_source *src;
	uint32_t region;
	size_t nfields;
	int place[NCOLS];             /* field index, -1: absent (region) */
	uint64_t prev_end;            /* of the last work, any region */
	/* The totals: busy's union so far is busy_done plus the interval
	 * [cur_start, cur_end) the rows still extend (any rows read). */
	uint64_t rows, busy_done, cur_start, cur_end, commands;
	bool failed;
};

static int bad(struct wc_ledger *lg, uint64_t off, struct wc_err *err,
	       const char *what)
{
	lg->failed = true;
	return wc_err_set(err, WC_ERR_INPUT, wc_source_path(lg->src),
			  wc_source_member(lg->src), off, "ledger: %s", what);
}

/* Peeks the next line: its length without the newline in *len, the
 * bytes to consume in *take; 0 at the end, -1 with err filled. */
static int line_peek(struct wc_ledger *lg, const unsigned char **p,
		     size_t *len, size_t *take, struct wc_err *err)
{
	const unsigned char *nl;
	ssize_t n;

	n = wc_source_peek(lg->src, WC_LEDGER_MAX_LINE + 1, p, err);
	if (n < 0) {
		lg->failed = true;
		return -1;
	}
	if (n == 0)
		return 0;
	nl = memchr(*p, '\n', (size_t)n);
	if (!nl && (size_t)n > WC_LEDGER_MAX_LINE)
		return bad(lg, wc_source_offset(lg->src), err,
			   "a line longer than 1024 bytes");
	*len = nl ? (size_t)(nl - *p) : (size_t)n;
	*take = nl ? *len + 1 : *len;
	if (memchr(*p, '\0', *len))
		return bad(lg, wc_source_offset(lg->src), err,
			   "a NUL byte in a line");
	return 1;
}

/* The fields of a line, cut at its tabs: their starts and lengths. */
static size_t fields_of(const unsigned char *p, size_t len,
			const unsigned char **f, size_t *flen)
{
	size_t n = 0, i, s = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && p[i] != '\t')
			continue;
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		f[n] = p + s;
		flen[n++] = i - s;
		s = i + 1;
	}
	return n;
}

/* A decimal number below 2^64, all of the field. */
static bool number_of(const unsigned char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (len == 0 || len > 20)
		return false;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)s[i] - '0';

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

int wc_ledger_open(struct wc_ledger **out, struct wc_source *src,
		   uint32_t region, struct wc_err *err)
{
	const unsigned char *f[MAX_FIELDS], *p;
	size_t flen[MAX_FIELDS], len, take, n, i;
	struct wc_ledger *lg;
	int c, r;

	*out = NULL;
	lg = calloc(1, sizeof(*lg));
	if (!lg) {
		wc_err_oom(err, wc_source_path(src), wc_source_member(src));
		goto fail_src;
	}
	lg->src = src;
	lg->region = region;
	r = line_peek(lg, &p, &len, &take, err);
	if (r == 0)
		bad(lg, 0, err, "no header line");
	if (r <= 0)
		goto fail;
	n = fields_of(p, len, f, flen);
	if (n > MAX_FIELDS) {
		bad(lg, 0, err, "more than 64 columns");
		goto fail;
	}
	for (c = 0; c < NCOLS; c++) {
		lg->place[c] = -1;
		for (i = 0; i < n; i++) {
			if (flen[i] != strlen(col_name[c]) ||
			    memcmp(f[i], col_name[c], flen[i]))
				continue;
			if (lg->place[c] >= 0) {
				bad(lg, 0, err, "a column named twice");
				goto fail;
			}
			lg->place[c] = (int)i;
		}
		if (lg->place[c] < 0 && c != C_REGION) {
			wc_err_set(err, WC_ERR_INPUT, wc_source_path(src),
				   wc_source_member(src), 0,
				   "ledger: the header has no column %s",
				   col_name[c]);
			goto fail;
		}
	}
	lg->nfields = n;
	wc_source_consume(src, take);
	*out = lg;
	return 0;

fail:
	free(lg);
fail_src:
	wc_source_free(src);
	return -1;
}

/* A row into the totals: [start, end) joins the busy interval it
 * overlaps or touches, else closes it and opens its own. */
static void count(struct wc_ledger *lg, unsigned char op, uint64_t start,
		  uint64_t end)
{
	if (lg->rows++ == 0 || start > lg->cur_end) {
		lg->busy_done += lg->cur_end - lg->cur_start;
		lg->cur_start = start;
		lg->cur_end = end;
	} else if (end > lg->cur_end) {
		lg->cur_end = end;
	}
	if (op != 'S')
		lg->commands += end - start;
}

int wc_ledger_next(struct wc_ledger *lg, struct wc_ledger_work *w,
		   struct wc_err *err)
{
	const unsigned char *f[MAX_FIELDS], *p;
	size_t flen[MAX_FIELDS], len, take;
	uint64_t v[NCOLS], off;
	int c, r;

	if (lg->failed)
		return wc_err_set(err, WC_ERR_INPUT, wc_source_path(lg->src),
				  wc_source_member(lg->src), WC_NO_OFFSET,
				  "ledger: read after a failure");
	for (;;) {
		r = line_peek(lg, &p, &len, &take, err);
		if (r <= 0)
			return r;
		off = wc_source_offset(lg->src);
		/* Peek and validate the row whole, then consume it. */
		if (fields_of(p, len, f, flen) != lg->nfields)
			return bad(lg, off, err, "a row whose fields are not "
				   "the header's");
		if (flen[lg->place[C_OP]] != 1 ||
		    !strchr("RWFDS", f[lg->place[C_OP]][0]))
			return bad(lg, off, err, "op is not R, W, F, D or S");
		v[C_REGION] = 0;
		for (c = 0; c < NCOLS; c++)
			if (c != C_OP && lg->place[c] >= 0 &&
			    !number_of(f[lg->place[c]], flen[lg->place[c]],
				       &v[c]))
				return bad(lg, off, err, "a field that is not "
					   "a number below 2^64");
		if (v[C_END] < v[C_LATE] || v[C_END] - v[C_LATE] < v[C_START])
			return bad(lg, off, err, "end_ns before start_ns + "
				   "late_ns");
		if (v[C_REGION] >= WC_LEDGER_ALL)
			return bad(lg, off, err, "region past 2^32 - 1");
		wc_source_consume(lg->src, take);
		count(lg, f[lg->place[C_OP]][0], v[C_START],
		      v[C_END] - v[C_LATE]);
		/* The disk's own work: a destage no command waited for. */
		if (f[lg->place[C_OP]][0] != 'S' || v[C_CAUSE] != 0)
			continue;
		if (v[C_START] < lg->prev_end)
			return bad(lg, off, err, "a destage row of no command "
				   "that starts before the one before it "
				   "ended");
		lg->prev_end = v[C_END] - v[C_LATE];
		if (lg->region != WC_LEDGER_ALL && v[C_REGION] != lg->region)
			continue;
		w->start = v[C_START];
		w->end = v[C_END] - v[C_LATE];
		w->bytes = v[C_BYTES];
		w->region = (uint32_t)v[C_REGION];
		return 1;
	}
}

void wc_ledger_totals(const struct wc_ledger *lg, struct wc_ledger_totals *t)
{
	t->rows = lg->rows;
	t->busy = lg->busy_done + (lg->cur_end - lg->cur_start);
	t->commands = lg->commands;
}

void wc_ledger_free(struct wc_ledger *lg)
{
	if (!lg)
		return;
	wc_source_free(lg->src);
	free(lg);
}
