/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "model/interval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/account.h"
#include "base/devtab.h"

/* One device's open row and where its slices stand. */
struct idev {
	uint32_t device;
	const char *name;                /* into the names, or NULL */
	bool have_prev;                  /* prev_c: its latest completion */
	uint64_t prev_c;
	bool open;                       /* row k holds something */
	uint64_t k;
	uint64_t ios[WC_NIO], bytes[WC_NIO], await_ns[WC_NIO];
	uint64_t busy_ns;
};

struct wc_interval {
	uint64_t len, zero, origin, end;
	const struct wc_interval_sink *sink;
	struct wc_devtab devtab;
	struct idev devs[WC_MAX_DEVICES];
	struct idev *last;               /* the device met last */
	size_t nnames;
	uint32_t name_dev[WC_MAX_DEVICES];
	char names[WC_MAX_DEVICES][64];
	uint64_t rows, not_written, ignored;
};

const char *wc_iokind_name(enum wc_iokind k)
{
	static const char *const names[WC_NIO] = {
		"read", "write", "flush", "discard",
	};

	return (unsigned)k < WC_NIO ? names[k] : "?";
}

int wc_interval_open(struct wc_interval **out,
		     const struct wc_interval_conf *conf, struct wc_err *err)
{
	struct wc_interval *iv;

	*out = NULL;
	if (conf->len_ns == 0)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "an interval of 0 ns");
	iv = calloc(1, sizeof(*iv));
	if (!iv)
		return wc_err_oom(err, NULL, NULL);
	iv->len = conf->len_ns;
	iv->zero = conf->zero;
	iv->origin = conf->origin;
	iv->end = conf->end;
	iv->sink = conf->sink;
	wc_devtab_init(&iv->devtab, WC_MAX_DEVICES);
	if (iv->sink && iv->sink->begin)
		iv->sink->begin(iv->sink->ctx, conf->capture, iv->len);
	*out = iv;
	return 0;
}

void wc_interval_name_device(struct wc_interval *iv, uint32_t device,
			     const char *name)
{
	if (!name || !name[0] || iv->nnames == WC_MAX_DEVICES)
		return;
	iv->name_dev[iv->nnames] = device;
	snprintf(iv->names[iv->nnames], sizeof(iv->names[0]), "%s", name);
	iv->nnames++;
}

static struct idev *dev_get(struct wc_interval *iv, uint32_t device)
{
	struct idev *d = iv->last;
	size_t j;
	int i;

	if (d && d->device == device)
		return d;
	i = wc_devtab_find(&iv->devtab, device);
	if (i < 0) {
		i = wc_devtab_add(&iv->devtab, device);
		if (i < 0)
			return NULL;
		d = &iv->devs[i];
		d->device = device;
		for (j = 0; j < iv->nnames && !d->name; j++)
			if (iv->name_dev[j] == device)
				d->name = iv->names[j];
	}
	iv->last = &iv->devs[i];
	return iv->last;
}

static uint64_t row_start(const struct wc_interval *iv, uint64_t k)
{
	return iv->origin + k * iv->len;
}

/* The row holding t (>= origin); with the end known, never past the
 * last row, so that a completion on the end's edge is in the last one. */
static uint64_t row_of(const struct wc_interval *iv, uint64_t t)
{
	uint64_t k = (t - iv->origin) / iv->len;

	if (iv->end != UINT64_MAX && iv->end > iv->origin &&
	    k > (iv->end - iv->origin - 1) / iv->len)
		k = (iv->end - iv->origin - 1) / iv->len;
	return k;
}

/* Row k's length: len, cut at the end when it is known. */
static uint64_t row_len(const struct wc_interval *iv, uint64_t k)
{
	uint64_t s = row_start(iv, k);

	if (iv->end == UINT64_MAX)
		return iv->len;
	if (s >= iv->end)
		return 0;
	return iv->end - s < iv->len ? iv->end - s : iv->len;
}

/* Hands out a row (unless it is idle) as the sink sees it, counted
 * against WC_INTERVAL_MAX_ROWS; span rows from k on (1, or a run of
 * wholly busy rows handed out as one). */
static void put_rows(struct wc_interval *iv, const struct idev *d, uint64_t k,
		     uint64_t span)
{
	struct wc_interval_row r;
	uint64_t q = 0;
	double len;
	size_t i;
	bool any = d->busy_ns > 0;

	for (i = 0; i < WC_NIO; i++)
		any = any || d->ios[i];
	if (!any)
		return;
	if (iv->rows >= WC_INTERVAL_MAX_ROWS) {
		iv->not_written++;
		return;
	}
	iv->rows++;
	if (!iv->sink || !iv->sink->row)
		return;
	memset(&r, 0, sizeof(r));
	r.device = d->device;
	r.name = d->name;
	r.start_ns = row_start(iv, k);
	r.len_ns = span > 1 ? span * iv->len : row_len(iv, k);
	r.start_s = (double)(r.start_ns - iv->zero) / 1e9;
	if (r.start_ns < iv->zero)
		r.start_s = -(double)(iv->zero - r.start_ns) / 1e9;
	memcpy(r.ios, d->ios, sizeof(r.ios));
	memcpy(r.bytes, d->bytes, sizeof(r.bytes));
	memcpy(r.await_ns, d->await_ns, sizeof(r.await_ns));
	r.busy_ns = d->busy_ns;
	len = (double)r.len_ns;
	for (i = 0; i < WC_NIO; i++) {
		q += d->await_ns[i];
		if (d->ios[i])
			r.await_ms[i] = (double)d->await_ns[i] /
					(double)d->ios[i] / 1e6;
		if (r.len_ns) {
			r.per_s[i] = (double)d->ios[i] * 1e9 / len;
			r.mib_s[i] = (double)d->bytes[i] / 1048576.0 * 1e9 / len;
		}
	}
	if (r.len_ns) {
		r.aqu_sz = (double)q / len;
		r.util_pct = (double)d->busy_ns * 100.0 / len;
	}
	iv->sink->row(iv->sink->ctx, &r);
}

static void put_row(struct wc_interval *iv, const struct idev *d, uint64_t k)
{
	put_rows(iv, d, k, 1);
}

static void row_clear(struct idev *d)
{
	memset(d->ios, 0, sizeof(d->ios));
	memset(d->bytes, 0, sizeof(d->bytes));
	memset(d->await_ns, 0, sizeof(d->await_ns));
	d->busy_ns = 0;
}

/* Makes row k the device's open one, handing out the one before. */
static void open_row(struct wc_interval *iv, struct idev *d, uint64_t k)
{
	if (d->open && d->k == k)
		return;
	if (d->open)
		put_row(iv, d, d->k);
	row_clear(d);
	d->open = true;
	d->k = k;
}

/* Rows k .. k + n - 1 wholly busy, with no completion, and final: one
 * row of n intervals' length, so that a slice adds at most three rows
 * however many intervals it spans (interval.h's bound). */
static void full_rows(struct wc_interval *iv, struct idev *d, uint64_t k,
		      uint64_t n)
{
	if (!n)
		return;
	open_row(iv, d, k);
	d->busy_ns = n * iv->len;
	put_rows(iv, d, k, n);
	d->open = false;
}

/* The slice [lo, hi) (hi > lo, both inside [origin, end]) cut at the
 * rows' edges: every row it leaves behind is final. */
static void add_busy(struct wc_interval *iv, struct idev *d, uint64_t lo,
		     uint64_t hi)
{
	uint64_t k0 = row_of(iv, lo), k1 = row_of(iv, hi - 1), e;

	if (d->open && k0 < d->k) {
		/* Only a clock that stepped back: what lies before the
		 * open row was handed out. */
		lo = row_start(iv, d->k);
		if (lo >= hi)
			return;
		k0 = d->k;
		if (k1 < k0)
			return;
	}
	open_row(iv, d, k0);
	e = row_start(iv, k0) + iv->len;
	if (k1 == k0) {
		d->busy_ns += hi - lo;
		return;
	}
	d->busy_ns += e - lo;
	put_row(iv, d, k0);
	d->open = false;
	full_rows(iv, d, k0 + 1, k1 - k0 - 1);
	open_row(iv, d, k1);
	d->busy_ns += hi - row_start(iv, k1);
}

static int kind_of(const struct wc_request *rq, enum wc_cat cat)
{
	switch (cat) {
	case WC_CAT_FLUSH:
		return WC_IO_FLUSH;
	case WC_CAT_DISCARD:
		return WC_IO_DISCARD;
	case WC_CAT_OTHER:
		return -1;
	default:
		return (rq->action & WC_TC(WC_TC_WRITE)) ? WC_IO_WRITE :
							   WC_IO_READ;
	}
}

void wc_interval_add(struct wc_interval *iv, const struct wc_request *rq,
		     enum wc_cat cat)
{
	struct idev *d;
	uint64_t a, c, lo, hi, start, k;
	int kind;

	if (!rq->completed)
		return;
	d = dev_get(iv, rq->device);
	if (!d) {
		iv->ignored++;
		return;
	}
	c = rq->c_time;
	a = wc_account_slice_start(rq, d->have_prev, d->prev_c);
	if (!d->have_prev || c > d->prev_c)
		d->prev_c = c;
	d->have_prev = true;

	lo = a > iv->origin ? a : iv->origin;
	hi = c < iv->end ? c : iv->end;
	if (hi > lo)
		add_busy(iv, d, lo, hi);
	if (c < iv->origin || c > iv->end)
		return;
	/* A completion on an edge ends the row before it: intervals are
	 * closed on the right, so the last one never has length 0. */
	k = c > iv->origin ? row_of(iv, c - 1) : 0;
	if (d->open && k < d->k)
		k = d->k;            /* a clock that stepped back */
	open_row(iv, d, k);
	kind = kind_of(rq, cat);
	if (kind < 0)
		return;
	/* The kernel's clock of a request starts as its first bio
	 * becomes it: its Q here, else its D. */
	if (rq->q_time != WC_NO_TIME && rq->q_time <= c)
		start = rq->q_time;
	else if (rq->d_time != WC_NO_TIME && rq->d_time <= c)
		start = rq->d_time;
	else
		start = c;
	d->ios[kind]++;
	d->bytes[kind] += rq->bytes;
	d->await_ns[kind] += c - start;
}

void wc_interval_finish(struct wc_interval *iv, uint64_t end)
{
	size_t i;

	if (end < iv->origin)
		end = iv->origin;
	if (end < iv->end)
		iv->end = end;
	for (i = 0; i < wc_devtab_count(&iv->devtab); i++) {
		struct idev *d = &iv->devs[i];

		if (d->open)
			put_row(iv, d, d->k);
		d->open = false;
	}
	if (iv->sink && iv->sink->end)
		iv->sink->end(iv->sink->ctx, iv->not_written);
}

uint64_t wc_interval_not_written(const struct wc_interval *iv)
{
	return iv->not_written;
}

uint64_t wc_interval_ignored(const struct wc_interval *iv)
{
	return iv->ignored;
}

void wc_interval_free(struct wc_interval *iv)
{
	free(iv);
}
