/*
 * check_traceevent.c - unit tests of analyze/lib/traceevent.c's limit
 * (the shell test t52 checks the timeline's structure on real traces):
 * with a limit of N slices a capture ends with its N-th slice, marked by
 * a global instant at that slice's end, no counter after it, the rest
 * counted in past_limit; within the limit, or without one, nothing of
 * that is written.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "traceevent.h"

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

static Suite *traceevent_suite(void)
{
	Suite *s = suite_create("traceevent");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_within);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(traceevent_suite)
