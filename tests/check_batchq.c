/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_batchq.c - unit tests of analyze/lib/input/batchq.c: an input
 * read on a thread of its own hands out the batches, the end, the
 * failure and the process names a read on one thread gives at the same
 * point, however far ahead its reader is; and it stops at any point.
 * Fixtures: tests/fixtures/reader/ext4, and the generated trace of
 * check_trace.h (process names that come late, many turns of the queue).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "check_trace.h"
#include "input/batchq.h"
#include "input/input.h"

#define FIX "tests/fixtures/reader/ext4"
#define PIDS 300u            /* the pids probed for names at each batch */
#define MAX_BATCHES 4096u

/* What a reader saw: each batch's size, a hash of its events (payloads
 * left out: the queue hands out none), a hash of the names of pids
 * WC_CHECK_TRACE_PID.. (and 0..PIDS for the fixture) right after it, and
 * the last answer with its err. */
struct seen {
	size_t nb;
	size_t len[MAX_BATCHES];
	uint64_t evh[MAX_BATCHES], names[MAX_BATCHES + 1];
	int r;
	struct wc_err err;
	char again[512];     /* the err of the call after the last answer */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 1099511628211ull;
}

static uint64_t events_hash(const struct wc_event *evs, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h = mix(h, evs[i].time);
		h = mix(h, evs[i].sector);
		h = mix(h, evs[i].action);
		h = mix(h, (uint64_t)evs[i].pid << 32 | evs[i].device);
		h = mix(h, (uint64_t)evs[i].cpu << 32 | evs[i].sequence);
		h = mix(h, (uint64_t)evs[i].stream << 32 | evs[i].bytes);
	}
	return h;
}

static uint64_t names_hash(struct wc_input *in, struct wc_batchq *q)
{
	uint64_t h = 1469598103934665603ull;
	char buf[WC_BATCHQ_NAME];
	const char *name;
	uint32_t base, pid;
	const char *p;

	for (base = 0; base <= WC_CHECK_TRACE_PID; base += WC_CHECK_TRACE_PID)
		for (pid = base; pid < base + PIDS; pid++) {
			name = q ? wc_batchq_comm(q, pid, buf) :
				   wc_input_comm(in, pid);
			h = mix(h, pid);
			for (p = name ? name : "(none)"; *p; p++)
				h = mix(h, (unsigned char)*p);
		}
	return h;
}

/* Reads path to its end, on this thread (threads 1) or through the
 * queue (2), into s. */
static void read_all(const char *path, unsigned threads, struct seen *s)
{
	struct wc_input *in = NULL;
	struct wc_batchq *q = NULL;
	const struct wc_event *evs;
	struct wc_err err;
	size_t n;
	int r;

	memset(s, 0, sizeof(*s));
	wc_err_clear(&err);
	wc_err_clear(&s->err);
	ck_assert_msg(wc_input_open(&in, path, &err) == 0, "%s", err.msg);
	if (threads == 2)
		ck_assert_int_eq(wc_batchq_open(&q, in, &err), 0);
	while ((r = q ? wc_batchq_next(q, &evs, &n, &s->err) :
			wc_input_next_ref(in, &evs, WC_INPUT_BATCH, &n,
					  &s->err)) > 0) {
		ck_assert_uint_lt(s->nb, MAX_BATCHES);
		ck_assert_uint_ge(n, 1);
		s->len[s->nb] = n;
		s->evh[s->nb] = events_hash(evs, n);
		s->names[s->nb] = names_hash(in, q);
		s->nb++;
	}
	s->r = r;
	s->names[s->nb] = names_hash(in, q);
	/* The last answer stays. */
	wc_err_clear(&err);
	ck_assert_int_eq(q ? wc_batchq_next(q, &evs, &n, &err) :
			     wc_input_next_ref(in, &evs, WC_INPUT_BATCH, &n,
					       &err), r);
	snprintf(s->again, sizeof(s->again), "%s", err.msg);
	wc_batchq_free(q);
	wc_input_free(in);
}

static void same(const char *path)
{
	static struct seen one, two;
	size_t i;

	read_all(path, 1, &one);
	read_all(path, 2, &two);
	ck_assert_uint_eq(one.nb, two.nb);
	for (i = 0; i < one.nb; i++) {
		ck_assert_uint_eq(one.len[i], two.len[i]);
		ck_assert_msg(one.evh[i] == two.evh[i], "batch %zu differs", i);
		ck_assert_msg(one.names[i] == two.names[i],
			      "names after batch %zu differ", i);
	}
	ck_assert_msg(one.names[i] == two.names[i], "names at the end differ");
	ck_assert_int_eq(one.r, two.r);
	ck_assert_int_eq(one.err.kind, two.err.kind);
	ck_assert_uint_eq(one.err.offset, two.err.offset);
	ck_assert_str_eq(one.err.msg, two.err.msg);
	ck_assert_str_eq(one.err.file, two.err.file);
	ck_assert_str_eq(one.again, two.again);
}

START_TEST(test_fixture)
{
	same(FIX);
}
END_TEST

/* Names that come late, many turns of the queue: each batch's names are
 * those the input had when it handed that batch out, though the reader
 * has read further. */
START_TEST(test_late_names)
{
	static struct seen s;
	char dir[256];
	size_t i, changes = 0;

	wc_check_trace(dir, sizeof(dir), 12000, 0);
	same(dir);
	/* The test means something only if names did arrive between
	 * batches, and the queue went round. */
	read_all(dir, 1, &s);
	for (i = 1; i <= s.nb; i++)
		changes += s.names[i] != s.names[i - 1];
	ck_assert_uint_gt(changes, 100);
	ck_assert_uint_gt(s.nb, 4 * WC_BATCHQ_DEPTH * WC_BATCHQ_SLOT);
}
END_TEST

/* A truncated last record: the events before it, then the same failure,
 * and again. */
START_TEST(test_truncated)
{
	static struct seen s;
	char dir[256];

	wc_check_trace(dir, sizeof(dir), 9000, 10);
	same(dir);
	read_all(dir, 2, &s);
	ck_assert_int_eq(s.r, -1);
	ck_assert_int_eq(s.err.kind, WC_ERR_INPUT);
}
END_TEST

/* Stopped at any point: right after the start (the reader filling its
 * first slot), after one batch, with the queue full, after the end. */
START_TEST(test_free_midway)
{
	struct wc_input *in = NULL;
	struct wc_batchq *q = NULL;
	const struct wc_event *evs;
	struct wc_err err;
	char dir[256];
	size_t n;
	unsigned take, k;

	wc_check_trace(dir, sizeof(dir), 12000, 0);
	for (take = 0; take < 4; take++) {
		wc_err_clear(&err);
		ck_assert_int_eq(wc_input_open(&in, dir, &err), 0);
		ck_assert_int_eq(wc_batchq_open(&q, in, &err), 0);
		for (k = 0; take == 1 && k < 1; k++)
			ck_assert_int_eq(wc_batchq_next(q, &evs, &n, &err), 1);
		if (take == 2)
			/* The reader fills every slot and waits. */
			usleep(200000);
		while (take == 3 && wc_batchq_next(q, &evs, &n, &err) > 0)
			;
		wc_batchq_free(q);
		q = NULL;
		wc_input_free(in);
		in = NULL;
	}
	wc_batchq_free(NULL);
}
END_TEST

static Suite *batchq_suite(void)
{
	Suite *s = suite_create("batchq");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_fixture);
	tcase_add_test(tc, test_late_names);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_free_midway);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(batchq_suite)
