/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_traceevent.c - unit tests of analyze/lib/model/traceevent.c's limit
 * (the shell test t52 checks the timeline's structure on real traces):
 * with a limit of N slices a capture ends with its N-th slice, marked by
 * a global instant at that slice's end, no counter after it, the rest
 * counted in past_limit; within the limit, or without one, nothing of
 * that is written; the events a limited capture writes are bounded
 * (traceevent.h) even when no request is ever drawn; times 2^63 ns and
 * more after the first event neither overflow nor go backwards.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/capture.h"
#include "check_common.h"
#include "model/traceevent.h"

#define DEV WC_DEV_MAKE(7u, 1u)
#define MS 1000000ull
#define T0 (5000 * MS)
#define NREQ 5

static struct wc_event ev(uint64_t t, unsigned what)
{
	struct wc_event e;

	memset(&e, 0, sizeof(e));
	e.time = t;
	e.action = what | WC_TC(WC_TC_WRITE);
	e.sector = 2048;
	e.bytes = 4096;
	e.device = DEV;
	e.pid = 42;
	e.version = 7;
	return e;
}

/* The timeline of NREQ writes, one every 10 ms, each 1 ms at the
 * device, with the given limit; its stats in *st. */
static char *timeline(uint64_t limit, struct wc_traceevent_stats *st)
{
	struct wc_traceevent *t = NULL;
	struct wc_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i;

	ck_assert_ptr_nonnull(f);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_traceevent_open(&t, f, &err), 0);
	wc_traceevent_limit(t, limit);
	wc_traceevent_begin(t, "cap");
	for (i = 0; i < NREQ; i++) {
		uint64_t d = T0 + (uint64_t)i * 10 * MS;
		struct wc_event e[2] = { ev(d, WC_TA_ISSUE),
					 ev(d + MS, WC_TA_COMPLETE) };
		struct wc_request rq;

		wc_traceevent_events(t, e, 2);
		memset(&rq, 0, sizeof(rq));
		rq.device = DEV;
		rq.sector = 2048;
		rq.bytes = 4096;
		rq.q_time = rq.d_time = d;
		rq.c_time = d + MS;
		rq.nbios = 1;
		rq.pid = 42;
		rq.completed = true;
		wc_traceevent_request(t, &rq, WC_CAT_DATA_WRITE, "cp", NULL);
	}
	wc_traceevent_end(t, NULL, 0);
	wc_traceevent_stats(t, st);
	ck_assert_msg(wc_traceevent_close(t, &err) == 0, "%s", err.msg);
	wc_traceevent_free(t);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* The latest time of a counter sample, in microseconds. */
static double last_counter(const char *s)
{
	const char *key = "{\"ph\":\"C\",\"ts\":";
	double last = -1;

	while ((s = strstr(s, key))) {
		double ts = strtod(s + strlen(key), NULL);

		if (ts > last)
			last = ts;
		s += strlen(key);
	}
	return last;
}

START_TEST(test_limit)
{
	struct wc_traceevent_stats st;
	char *j = timeline(3, &st);

	/* Three requests, each a slice and its "dispatched" inside. */
	ck_assert_uint_eq(count(j, "\"ph\":\"B\""), 6);
	ck_assert_uint_eq(count(j, "\"ph\":\"E\""), 6);
	/* The third ends at 20 ms + 1 ms from the first event. */
	ck_assert_ptr_nonnull(strstr(j, "{\"ph\":\"i\",\"ts\":21000.000,"));
	ck_assert_ptr_nonnull(strstr(j, ",\"s\":\"g\",\"name\":\"timeline ends "
				     "here: at most 3 requests drawn\"}"));
	ck_assert(last_counter(j) <= 21000.0);
	ck_assert_ptr_nonnull(strstr(j, "{\"name\":\"cap\",\"slices\":3,"
				     "\"not_drawn\":0,\"unfinished\":0,"
				     "\"past_limit\":2,\"ends_us\":21000.000}"));
	ck_assert_uint_eq(st.slices, 3);
	ck_assert_uint_eq(st.past_limit, 2);
	ck_assert(st.ends_s > 0.020999 && st.ends_s < 0.021001);
	free(j);
}
END_TEST

/* No limit, or one the capture stays within: every request, no mark,
 * otherData as it always was. */
START_TEST(test_within)
{
	struct wc_traceevent_stats st;
	uint64_t limits[] = { 0, NREQ + 1 };
	size_t k;

	for (k = 0; k < 2; k++) {
		char *j = timeline(limits[k], &st);

		ck_assert_uint_eq(count(j, "\"ph\":\"B\""), 2 * NREQ);
		ck_assert_ptr_null(strstr(j, "\"ph\":\"i\""));
		ck_assert_ptr_null(strstr(j, "past_limit"));
		ck_assert(last_counter(j) >= 41000.0);
		ck_assert_ptr_nonnull(strstr(j, "{\"name\":\"cap\",\"slices\":5,"
					     "\"not_drawn\":0,\"unfinished\":0}"));
		ck_assert_uint_eq(st.slices, NREQ);
		ck_assert_uint_eq(st.past_limit, 0);
		ck_assert(st.ends_s < 0);
		free(j);
	}
}
END_TEST

static void open_timeline(FILE **f, size_t *len, char **buf,
			   struct wc_traceevent **t, uint64_t limit)
{
	struct wc_err err;

	*buf = NULL;
	*f = open_memstream(buf, len);
	ck_assert_ptr_nonnull(*f);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_traceevent_open(t, *f, &err), 0);
	wc_traceevent_limit(*t, limit);
	wc_traceevent_begin(*t, "cap");
}

static void close_timeline(FILE *f, struct wc_traceevent *t,
			   const struct wc_phase *ph, size_t nph)
{
	struct wc_err err;

	wc_err_clear(&err);
	wc_traceevent_end(t, ph, nph);
	ck_assert_msg(wc_traceevent_close(t, &err) == 0, "%s", err.msg);
	wc_traceevent_free(t);
	ck_assert_int_eq(fclose(f), 0);
}

/* With a limit of N, a capture of dispatches that never complete and
 * requeues (a counter sample each, no slice ever drawn) still ends:
 * at most 16 N + 300 events, none over 4 KiB (issue 39: 176 KB of
 * zstd made 7.4 GB of JSON). */
START_TEST(test_events_bounded)
{
	const uint64_t limit = 10;
	struct wc_traceevent *t = NULL;
	struct wc_traceevent_stats st;
	char *buf, *p, *q;
	size_t len = 0, n;
	FILE *f;
	int i;

	open_timeline(&f, &len, &buf, &t, limit);
	for (i = 0; i < 20000; i++) {
		struct wc_event e = ev(T0 + (uint64_t)i * MS,
				       i % 2 ? WC_TA_REQUEUE : WC_TA_ISSUE);

		wc_traceevent_events(t, &e, 1);
	}
	wc_traceevent_stats(t, &st);
	close_timeline(f, t, NULL, 0);
	n = count(buf, "{\"ph\":");
	ck_assert_msg(n <= WC_TRACEEVENT_EVENTS_PER_SLICE * limit + 300,
		      "%zu events", n);
	ck_assert_ptr_nonnull(strstr(buf, "timeline ends here: at most 160 "
				     "events written"));
	/* No event over 4 KiB: one a line. */
	for (p = buf; (q = strchr(p, '\n')); p = q + 1)
		ck_assert_uint_le((size_t)(q - p), 4096);
	ck_assert_uint_le(len, (WC_TRACEEVENT_EVENTS_PER_SLICE * limit + 300) *
			       4096 + 4096);
	free(buf);
}
END_TEST

/* A completion 2^63 ns after the first event (UBSan: negation of
 * INT64_MIN in the MB/s bins), and a phase ending 2^63 + 5 ns after it
 * (its end mark came before its start): no time before the first event,
 * the phase's E not before its B. */
START_TEST(test_far_times)
{
	struct wc_traceevent *t = NULL;
	struct wc_phase ph;
	struct wc_request rq;
	struct wc_event e[3] = { ev(T0, WC_TA_ISSUE),
				 ev(T0 + (1ull << 63), WC_TA_COMPLETE),
				 ev(UINT64_MAX, WC_TA_COMPLETE) };
	char *buf, *b, *en;
	size_t len = 0;
	FILE *f;

	open_timeline(&f, &len, &buf, &t, 0);
	wc_traceevent_events(t, e, 3);
	memset(&rq, 0, sizeof(rq));
	rq.device = DEV;
	rq.bytes = 4096;
	rq.q_time = rq.d_time = T0;
	rq.c_time = T0 + (1ull << 63);
	rq.nbios = 1;
	rq.completed = true;
	wc_traceevent_request(t, &rq, WC_CAT_DATA_WRITE, "cp", NULL);
	memset(&ph, 0, sizeof(ph));
	ph.name = "copy";
	ph.start = T0 + 5;
	ph.end = T0 + (1ull << 63) + 5;
	close_timeline(f, t, &ph, 1);
	ck_assert_msg(!strstr(buf, "\"ts\":-"), "a time before the first "
		      "event:\n%s", buf);
	b = strstr(buf, "\"ph\":\"B\",\"ts\":0.005,");
	ck_assert_ptr_nonnull(b);
	en = strstr(b, "\"ph\":\"E\",\"ts\":");
	ck_assert_ptr_nonnull(en);
	ck_assert(strtod(en + strlen("\"ph\":\"E\",\"ts\":"), NULL) >= 0.005);
	free(buf);
}
END_TEST

static Suite *traceevent_suite(void)
{
	Suite *s = suite_create("traceevent");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_within);
	tcase_add_test(tc, test_events_bounded);
	tcase_add_test(tc, test_far_times);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(traceevent_suite)
