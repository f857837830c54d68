/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_interval.c - unit tests of analyze/lib/model/interval.c with hand-made
 * requests: what a row counts and derives (iostat's definitions), a
 * slice cut at the edges, idle rows left out, the window, devices' rows
 * in time order, the rows' busy time equal to the accountant's, and the
 * rows bounded by the requests against a trace whose timestamps lie far
 * apart.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/account.h"
#include "check_common.h"
#include "model/interval.h"

#define MS 1000000ull
#define S (1000 * MS)
#define DEV_A ((8u << 20) | 0)
#define DEV_B ((8u << 20) | 16)

#define MAX_ROWS 64

/* A sink that keeps the first MAX_ROWS rows and counts them all. */
struct keep {
	size_t n, begun, ended;
	uint64_t not_written;
	struct wc_interval_row rows[MAX_ROWS];
};

static void keep_begin(void *ctx, const char *capture, uint64_t len_ns)
{
	struct keep *k = ctx;

	(void)capture;
	(void)len_ns;
	k->begun++;
}

static void keep_row(void *ctx, const struct wc_interval_row *r)
{
	struct keep *k = ctx;

	if (k->n < MAX_ROWS)
		k->rows[k->n] = *r;
	k->n++;
}

static void keep_end(void *ctx, uint64_t not_written)
{
	struct keep *k = ctx;

	k->ended++;
	k->not_written = not_written;
}

static struct wc_request mkrq(uint32_t dev, uint64_t q, uint64_t d,
			      uint64_t c, uint32_t bytes, uint64_t action)
{
	struct wc_request rq;

	memset(&rq, 0, sizeof(rq));
	rq.device = dev;
	rq.q_time = q;
	rq.d_time = d;
	rq.c_time = c;
	rq.bytes = bytes;
	rq.sector = 2048;
	rq.action = action;
	rq.completed = true;
	rq.nbios = 1;
	return rq;
}

#define READ 0
#define WRITE WC_TC(WC_TC_WRITE)
#define FLUSH (WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_FLUSH))

static struct wc_interval *open_iv(struct keep *k, struct wc_interval_sink *sink,
				   uint64_t len, uint64_t origin, uint64_t end)
{
	struct wc_interval_conf conf = {
		.len_ns = len, .zero = 0, .origin = origin, .end = end,
		.sink = sink, .capture = "c",
	};
	struct wc_interval *iv = NULL;
	struct wc_err err;

	memset(k, 0, sizeof(*k));
	sink->begin = keep_begin;
	sink->row = keep_row;
	sink->end = keep_end;
	sink->ctx = k;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_interval_open(&iv, &conf, &err), 0);
	ck_assert_ptr_nonnull(iv);
	return iv;
}

static void add(struct wc_interval *iv, const struct wc_request *rq)
{
	struct wc_classifier cl;

	wc_classifier_heuristic(&cl);
	wc_interval_add(iv, rq, wc_classify(&cl, rq));
}

#define close_to(a, b) ck_assert_msg(fabs((a) - (b)) < 1e-9, \
				     "%s = %.12g, not %.12g", #a, (double)(a), (double)(b))

START_TEST(test_one_read)
{
	struct wc_interval_sink sink;
	struct keep k;
	struct wc_interval *iv = open_iv(&k, &sink, S, 0, UINT64_MAX);
	struct wc_request rq = mkrq(DEV_A, 100 * MS, 200 * MS, 300 * MS,
				    8192, READ);

	wc_interval_name_device(iv, DEV_A, "sda");
	ck_assert_uint_eq(k.begun, 1);
	add(iv, &rq);
	ck_assert_uint_eq(k.n, 0);          /* the row is still open */
	wc_interval_finish(iv, 2 * S);
	ck_assert_uint_eq(k.ended, 1);
	ck_assert_uint_eq(k.n, 1);
	ck_assert_str_eq(k.rows[0].name, "sda");
	ck_assert_uint_eq(k.rows[0].device, DEV_A);
	ck_assert_uint_eq(k.rows[0].len_ns, S);
	ck_assert_uint_eq(k.rows[0].ios[WC_IO_READ], 1);
	ck_assert_uint_eq(k.rows[0].bytes[WC_IO_READ], 8192);
	ck_assert_uint_eq(k.rows[0].await_ns[WC_IO_READ], 200 * MS);
	ck_assert_uint_eq(k.rows[0].busy_ns, 100 * MS);
	close_to(k.rows[0].per_s[WC_IO_READ], 1.0);
	close_to(k.rows[0].mib_s[WC_IO_READ], 8192.0 / 1048576.0);
	/* await from the Q, as the kernel's clock starts at the request's
	 * making, not at its dispatch. */
	close_to(k.rows[0].await_ms[WC_IO_READ], 200.0);
	close_to(k.rows[0].await_ms[WC_IO_WRITE], 0.0);
	close_to(k.rows[0].aqu_sz, 0.2);
	close_to(k.rows[0].util_pct, 10.0);
	wc_interval_free(iv);
}
END_TEST

/* A write served from 0.5 s to 3.5 s: busy cut at every edge, the rows
 * it keeps wholly busy handed out as one row of their length, all of its
 * await in the row it completes in (the kernel's weighted time), and
 * the idle rows after it left out. */
START_TEST(test_slice_across_rows)
{
	struct wc_interval_sink sink;
	struct keep k;
	struct wc_interval *iv = open_iv(&k, &sink, S, 0, UINT64_MAX);
	struct wc_request w = mkrq(DEV_A, WC_NO_TIME, 500 * MS, 3500 * MS,
				   4096, WRITE);
	struct wc_request r = mkrq(DEV_A, 10100 * MS, 10100 * MS, 10200 * MS,
				   512, READ);

	add(iv, &w);
	/* Rows 0, 1 and 2 are final once the slice reaches past them;
	 * 1 and 2, busy throughout, are one row of 2 s. */
	ck_assert_uint_eq(k.n, 2);
	close_to(k.rows[0].util_pct, 50.0);
	ck_assert_uint_eq(k.rows[0].len_ns, S);
	ck_assert_uint_eq(k.rows[1].start_ns, S);
	ck_assert_uint_eq(k.rows[1].len_ns, 2 * S);
	ck_assert_uint_eq(k.rows[1].busy_ns, 2 * S);
	close_to(k.rows[1].util_pct, 100.0);
	ck_assert_uint_eq(k.rows[1].ios[WC_IO_WRITE], 0);
	add(iv, &r);
	wc_interval_finish(iv, 10500 * MS);
	ck_assert_uint_eq(k.n, 4);
	ck_assert_uint_eq(k.rows[2].start_ns, 3 * S);
	ck_assert_uint_eq(k.rows[2].len_ns, S);
	ck_assert_uint_eq(k.rows[2].busy_ns, 500 * MS);
	ck_assert_uint_eq(k.rows[2].ios[WC_IO_WRITE], 1);
	/* No Q: the await is from its D. */
	close_to(k.rows[2].await_ms[WC_IO_WRITE], 3000.0);
	close_to(k.rows[2].aqu_sz, 3.0);
	/* Rows 4 to 9 were idle: not handed out.  The last row is cut at
	 * the end, and its rates are over its length. */
	ck_assert_uint_eq(k.rows[3].start_ns, 10 * S);
	ck_assert_uint_eq(k.rows[3].len_ns, 500 * MS);
	close_to(k.rows[3].per_s[WC_IO_READ], 2.0);
	close_to(k.rows[3].util_pct, 20.0);
	close_to(k.rows[3].start_s, 10.0);
	wc_interval_free(iv);
}
END_TEST

/* A completion on an edge ends the interval before it: the trace's last
 * completion, on an edge, makes no row of length 0. */
START_TEST(test_edge)
{
	struct wc_interval_sink sink;
	struct keep k;
	struct wc_interval *iv = open_iv(&k, &sink, S, 0, UINT64_MAX);
	struct wc_request a = mkrq(DEV_A, 0, 0, 0, 512, READ);
	struct wc_request b = mkrq(DEV_A, 1500 * MS, 1500 * MS, 2 * S, 512,
				   WRITE);

	add(iv, &a);
	add(iv, &b);
	wc_interval_finish(iv, 2 * S);
	ck_assert_uint_eq(k.n, 2);
	ck_assert_uint_eq(k.rows[0].start_ns, 0);       /* holds the origin */
	ck_assert_uint_eq(k.rows[0].ios[WC_IO_READ], 1);
	ck_assert_uint_eq(k.rows[1].start_ns, S);
	ck_assert_uint_eq(k.rows[1].len_ns, S);
	ck_assert_uint_eq(k.rows[1].ios[WC_IO_WRITE], 1);
	ck_assert_uint_eq(k.rows[1].busy_ns, 500 * MS);
	close_to(k.rows[1].per_s[WC_IO_WRITE], 1.0);
	wc_interval_free(iv);
}
END_TEST

/* An empty flush is f/s with its f_await; an empty request that is not
 * a flush counts in no column but is busy; discards apart. */
START_TEST(test_kinds)
{
	struct wc_interval_sink sink;
	struct keep k;
	struct wc_interval *iv = open_iv(&k, &sink, S, 0, UINT64_MAX);
	struct wc_request f = mkrq(DEV_A, 100 * MS, 110 * MS, 150 * MS, 0, FLUSH);
	struct wc_request o = mkrq(DEV_A, WC_NO_TIME, 200 * MS, 210 * MS, 0,
				   WRITE);
	struct wc_request d = mkrq(DEV_A, 300 * MS, 300 * MS, 310 * MS, 4096,
				   WRITE | WC_TC(WC_TC_DISCARD));
	struct wc_request j = mkrq(DEV_A, 400 * MS, 400 * MS, 420 * MS, 4096,
				   WRITE | WC_TC(WC_TC_FUA));
	struct wc_request u = mkrq(DEV_A, 500 * MS, 500 * MS, WC_NO_TIME, 4096,
				   READ);

	u.completed = false;
	add(iv, &f);
	add(iv, &o);
	add(iv, &d);
	add(iv, &j);
	add(iv, &u);
	wc_interval_finish(iv, S);
	ck_assert_uint_eq(k.n, 1);
	ck_assert_uint_eq(k.rows[0].ios[WC_IO_FLUSH], 1);
	ck_assert_uint_eq(k.rows[0].ios[WC_IO_DISCARD], 1);
	ck_assert_uint_eq(k.rows[0].ios[WC_IO_WRITE], 1);   /* the FUA journal write */
	ck_assert_uint_eq(k.rows[0].ios[WC_IO_READ], 0);    /* unfinished */
	close_to(k.rows[0].await_ms[WC_IO_FLUSH], 50.0);
	ck_assert_uint_eq(k.rows[0].busy_ns, (40 + 10 + 10 + 20) * MS);
	ck_assert_str_eq(wc_iokind_name(WC_IO_FLUSH), "flush");
	wc_interval_free(iv);
}
END_TEST

/* A window [2 s, 5 s]: rows from its start, slices cut to it, requests
 * counted only when they complete inside it. */
START_TEST(test_window)
{
	struct wc_interval_sink sink;
	struct keep k;
	struct wc_interval *iv = open_iv(&k, &sink, S, 2 * S, 5 * S);
	struct wc_request before = mkrq(DEV_A, 1000 * MS, 1000 * MS,
					1500 * MS, 512, READ);
	struct wc_request across = mkrq(DEV_A, 1800 * MS, 1800 * MS,
					2400 * MS, 512, READ);
	struct wc_request after = mkrq(DEV_A, 4900 * MS, 4900 * MS,
				       5500 * MS, 512, WRITE);

	add(iv, &before);
	add(iv, &across);
	add(iv, &after);
	wc_interval_finish(iv, 9 * S);
	ck_assert_uint_eq(k.n, 2);
	ck_assert_uint_eq(k.rows[0].start_ns, 2 * S);
	ck_assert_uint_eq(k.rows[0].busy_ns, 400 * MS);
	ck_assert_uint_eq(k.rows[0].ios[WC_IO_READ], 1);
	ck_assert_uint_eq(k.rows[1].start_ns, 4 * S);
	ck_assert_uint_eq(k.rows[1].len_ns, S);
	ck_assert_uint_eq(k.rows[1].busy_ns, 100 * MS);
	ck_assert_uint_eq(k.rows[1].ios[WC_IO_WRITE], 0);
	wc_interval_free(iv);
}
END_TEST

/* Two devices: each one's rows in time order, handed out as its own
 * completions close them. */
START_TEST(test_devices_in_order)
{
	struct wc_interval_sink sink;
	struct keep k;
	struct wc_interval *iv = open_iv(&k, &sink, S, 0, UINT64_MAX);
	uint64_t last[2] = { 0, 0 };
	bool seen[2] = { false, false };
	size_t i;

	for (i = 0; i < 20; i++) {
		uint64_t c = i * 700 * MS + 50 * MS;
		struct wc_request rq = mkrq(i % 3 ? DEV_A : DEV_B, c - 40 * MS,
					    c - 30 * MS, c, 4096, WRITE);

		add(iv, &rq);
	}
	wc_interval_finish(iv, 20 * S);
	ck_assert_uint_gt(k.n, 10);
	for (i = 0; i < k.n; i++) {
		int d = k.rows[i].device == DEV_B;

		ck_assert(!seen[d] || k.rows[i].start_ns > last[d]);
		seen[d] = true;
		last[d] = k.rows[i].start_ns;
	}
	ck_assert(seen[0] && seen[1]);
	wc_interval_free(iv);
}
END_TEST

/* A sink that sums the rows' busy time. */
static void sum_row(void *ctx, const struct wc_interval_row *r)
{
	*(uint64_t *)ctx += r->busy_ns;
}

/* Requests on two devices that overlap, come after gaps and are
 * dispatched before the previous one completed: the rows' busy time is
 * the accountant's busy time, to the nanosecond. */
START_TEST(test_busy_sum)
{
	struct wc_interval_sink sink = { .row = sum_row };
	struct wc_interval_conf conf = {
		.len_ns = 300 * MS, .origin = 0, .end = UINT64_MAX,
		.sink = &sink,
	};
	struct wc_account_conf aconf = { .media_rate = 1e8 };
	struct wc_interval *iv = NULL;
	struct wc_account *ac = NULL;
	struct wc_classifier cl;
	struct wc_err err;
	uint64_t c = 0, sum = 0;
	unsigned seed = 11;
	size_t i;

	sink.ctx = &sum;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_interval_open(&iv, &conf, &err), 0);
	ck_assert_int_eq(wc_account_open(&ac, &aconf, &err), 0);
	wc_classifier_heuristic(&cl);
	for (i = 0; i < 5000; i++) {
		struct wc_request rq;
		uint64_t d;

		seed = seed * 1103515245u + 12345u;
		c += (seed >> 8) % (400 * MS);
		d = c - ((seed >> 4) % (900 * MS + 1)) % (c + 1);
		rq = mkrq(seed % 7 ? DEV_A : DEV_B, d - d % 3, d, c, 4096,
			  seed & 1 ? WRITE : READ);
		wc_account_add(ac, &rq, wc_classify(&cl, &rq));
		wc_interval_add(iv, &rq, wc_classify(&cl, &rq));
	}
	wc_account_finish(ac, 0, c);
	wc_interval_finish(iv, c);
	ck_assert_uint_eq(sum, wc_figures_busy(wc_account_device(ac, 0)) +
			       wc_figures_busy(wc_account_device(ac, 1)));
	ck_assert_uint_gt(sum, 0);
	wc_interval_free(iv);
	wc_account_free(ac);
}
END_TEST

struct tally {
	uint64_t n, busy, len;
};

static void count_row(void *ctx, const struct wc_interval_row *r)
{
	struct tally *t = ctx;

	t->n++;
	t->busy += r->busy_ns;
	t->len += r->len_ns;
}

/* One request served over 2^62 ns in 1 ms intervals (issue 39: 2^58 ns
 * gave 16,777,216 rows): at most three rows a request, the whole busy
 * time in them, and no loop per interval. */
START_TEST(test_rows_bounded_by_requests)
{
	struct tally t = { 0 };
	struct wc_interval_sink sink = { .row = count_row, .ctx = &t };
	struct wc_interval_conf conf = {
		.len_ns = MS, .origin = 0, .end = UINT64_MAX, .sink = &sink,
	};
	struct wc_interval *iv = NULL;
	struct wc_request rq = mkrq(DEV_A, 0, 0, 1ull << 62, 4096, WRITE);
	struct wc_err err;
	unsigned seed = 7;
	uint64_t c = 0;
	size_t i;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_interval_open(&iv, &conf, &err), 0);
	add(iv, &rq);
	wc_interval_finish(iv, 1ull << 62);
	ck_assert_uint_le(t.n, 3);
	ck_assert_uint_eq(t.busy, 1ull << 62);
	ck_assert_uint_eq(t.len, 1ull << 62);
	ck_assert_uint_eq(wc_interval_not_written(iv), 0);
	wc_interval_free(iv);

	/* 2000 requests on two devices, each dispatched up to 2^50 ns
	 * before its completion, gaps as large between them. */
	memset(&t, 0, sizeof(t));
	conf.len_ns = 1000;
	ck_assert_int_eq(wc_interval_open(&iv, &conf, &err), 0);
	for (i = 0; i < 2000; i++) {
		uint64_t d;

		seed = seed * 1103515245u + 12345u;
		c += ((uint64_t)seed << 20) % (1ull << 50);
		d = c - ((uint64_t)seed << 18) % (c + 1);
		rq = mkrq(i % 3 ? DEV_A : DEV_B, d, d, c, 4096,
			  seed & 1 ? WRITE : READ);
		add(iv, &rq);
	}
	wc_interval_finish(iv, c);
	ck_assert_uint_le(t.n, 3 * 2000);
	ck_assert_uint_gt(t.n, 2000);
	ck_assert_uint_eq(wc_interval_not_written(iv), 0);
	wc_interval_free(iv);
}
END_TEST

START_TEST(test_bad_and_null)
{
	struct wc_interval_conf conf = { .len_ns = 0, .end = UINT64_MAX };
	struct wc_interval *iv = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_interval_open(&iv, &conf, &err), -1);
	ck_assert_ptr_null(iv);
	wc_interval_free(NULL);
}
END_TEST

static Suite *interval_suite(void)
{
	Suite *s = suite_create("interval");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_one_read);
	tcase_add_test(tc, test_slice_across_rows);
	tcase_add_test(tc, test_edge);
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_devices_in_order);
	tcase_add_test(tc, test_busy_sum);
	tcase_add_test(tc, test_rows_bounded_by_requests);
	tcase_add_test(tc, test_bad_and_null);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(interval_suite)
