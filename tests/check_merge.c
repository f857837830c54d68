/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_merge.c - unit tests of analyze/lib/input/merge.c and reorder.c.
 *
 * The k-way merge is checked against a direct model of blkparse's own
 * merge (a list of streams kept sorted by next time, as its ms_sort and
 * ms_resort do) on many random traces full of equal times, so the tie
 * order is blkparse's and not just "some" order.  Also: one pending event
 * per stream, deferred failures, genesis; the reorder window's key, its
 * payload copies and its genesis (blkparse's order through the window:
 * check_blkorder).  Each merger's
 * routes (wc_merge_set_route(), wc_reorder_set_route()) are run on the
 * same inputs and compared event by event.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "input/merge.h"
#include "input/merge_test.h"
#include "input/reorder.h"
#include "input/reorder_test.h"

#define MAXS 64
#define MAXN 64
#define RANDS 8      /* streams of the random traces */

/* A pull() (merge.h) of runs of one event over a reader of one event at
 * a time: the merge and the window must give the same order with it as
 * with long runs. */
#define RUN_OF_ONE(name, one)						\
static int name(void *ctx, unsigned s, struct wc_event *out, size_t max, \
		uint64_t limit, unsigned flags, size_t *got,		\
		struct wc_err *err)					\
{									\
	int r = one(ctx, s, out, flags, err);				\
									\
	(void)max;							\
	(void)limit;							\
	*got = r == 1;							\
	return r;							\
}

struct fake {
	unsigned nstreams;
	uint64_t times[MAXS][MAXN];
	unsigned len[MAXS];
	unsigned pos[MAXS];
	int fail_at[MAXS];           /* -1: never */
	unsigned pulls;
	unsigned char buf[MAXS][24]; /* overwritten by every pull */
};

static int fake_pull(void *ctx, unsigned s, struct wc_event *ev,
		     unsigned flags, struct wc_err *err)
{
	struct fake *f = ctx;
	unsigned i = f->pos[s];

	(void)flags;
	f->pulls++;
	if (f->fail_at[s] >= 0 && i == (unsigned)f->fail_at[s])
		return wc_err_set(err, WC_ERR_INPUT, "f", NULL, i, "stream %u broke", s);
	if (i >= f->len[s])
		return 0;
	f->pos[s]++;
	memset(ev, 0, sizeof(*ev));
	ev->time = f->times[s][i];
	ev->cpu = s;
	ev->sequence = i;
	snprintf((char *)f->buf[s], sizeof(f->buf[s]), "%u.%u", s, i);
	ev->pdu = f->buf[s];
	ev->pdu_len = 8;
	return 1;
}
RUN_OF_ONE(fake_pull_one, fake_pull)

/* blkparse's merge, modelled directly: a list of streams sorted by the
 * time of their next event; see ms_sort()/ms_resort() in blkparse.c. */
struct model {
	const struct fake *f;
	unsigned pos[MAXS];
	int list[MAXS];
	int n;
};

static uint64_t mt(const struct model *m, int s)
{
	return m->f->times[s][m->pos[s]];
}

static void model_sort(struct model *m, int s)
{
	int i, at;

	if (m->n == 0 || mt(m, s) < mt(m, m->list[0])) {
		at = 0;
	} else {
		at = 1;
		while (at < m->n && mt(m, m->list[at]) < mt(m, s))
			at++;
	}
	for (i = m->n; i > at; i--)
		m->list[i] = m->list[i - 1];
	m->list[at] = s;
	m->n++;
}

/* Fills order[] with (stream, index) pairs in blkparse's order. */
static unsigned model_run(const struct fake *f, unsigned order[][2])
{
	struct model m = { .f = f };
	unsigned n = 0, s;
	int i;

	for (s = 0; s < f->nstreams; s++)
		if (f->len[s])
			model_sort(&m, (int)s);
	while (m.n > 0) {
		int h = m.list[0];

		order[n][0] = (unsigned)h;
		order[n][1] = m.pos[h];
		n++;
		m.pos[h]++;
		if (m.pos[h] >= f->len[h]) {
			for (i = 0; i < m.n - 1; i++)
				m.list[i] = m.list[i + 1];
			m.n--;
		} else if (m.n > 1 && mt(&m, h) > mt(&m, m.list[1])) {
			for (i = 0; i < m.n - 1; i++)
				m.list[i] = m.list[i + 1];
			m.n--;
			model_sort(&m, h);
		}
	}
	return n;
}

static void fake_init(struct fake *f, unsigned nstreams)
{
	unsigned s;

	memset(f, 0, sizeof(*f));
	f->nstreams = nstreams;
	for (s = 0; s < MAXS; s++)
		f->fail_at[s] = -1;
}

START_TEST(test_matches_blkparse_model)
{
	unsigned want[MAXS * MAXN][2];
	unsigned seed = 12345, trial;

	for (trial = 0; trial < 2000; trial++) {
		struct wc_merge *m = NULL;
		struct wc_event ev;
		struct wc_err err;
		struct fake f;
		unsigned s, i, n, got = 0;

		fake_init(&f, 1 + (unsigned)rand_r(&seed) % RANDS);
		for (s = 0; s < f.nstreams; s++) {
			uint64_t t = (uint64_t)(rand_r(&seed) % 4);

			f.len[s] = (unsigned)rand_r(&seed) % 12;
			/* Few distinct times: ties everywhere. */
			for (i = 0; i < f.len[s]; i++) {
				t += (uint64_t)(rand_r(&seed) % 3);
				f.times[s][i] = t;
			}
		}
		n = model_run(&f, want);
		wc_err_clear(&err);
		ck_assert_int_eq(wc_merge_open(&m, f.nstreams, fake_pull_one, &f, &err), 0);
		while (wc_merge_next(m, &ev, &err) > 0) {
			ck_assert_uint_lt(got, n);
			ck_assert_msg(ev.cpu == want[got][0] && ev.sequence == want[got][1],
				      "trial %u event %u: got %u.%u, blkparse %u.%u",
				      trial, got, ev.cpu, ev.sequence,
				      want[got][0], want[got][1]);
			got++;
		}
		ck_assert_uint_eq(got, n);
		wc_merge_free(m);
	}
}
END_TEST

/* fake_pull() with a buffer as the input's streams have: payloads of
 * stream s stay valid until it reads on (a pull without
 * WC_PULL_BUFFERED), which scribbles over them; every 4th record starts
 * a new buffer, which a pull with WC_PULL_BUFFERED does not read
 * (WC_PULL_WOULD_READ). */
struct bfake {
	struct fake f;
	char pdus[MAXS][MAXN][8];
	unsigned unread[MAXS];       /* pulls answered 2 */
};

static int buf_pull(void *ctx, unsigned s, struct wc_event *ev,
		    unsigned flags, struct wc_err *err)
{
	struct bfake *b = ctx;
	unsigned i = b->f.pos[s];
	int r;

	if (i < b->f.len[s] && i % 4 == 0 && i > 0) {
		if (flags & WC_PULL_BUFFERED) {
			b->unread[s]++;
			return WC_PULL_WOULD_READ;
		}
		memset(b->pdus[s], 'x', sizeof(b->pdus[s]));
	}
	r = fake_pull(&b->f, s, ev, flags, err);
	if (r > 0) {
		snprintf(b->pdus[s][i], sizeof(b->pdus[s][i]), "%u.%u", s, i);
		ev->pdu = (const unsigned char *)b->pdus[s][i];
	}
	return r;
}
RUN_OF_ONE(buf_pull_one, buf_pull)

/* buf_pull() again and again, a run as pull() (merge.h) reads one. */
static int buf_pull_run(void *ctx, unsigned s, struct wc_event *out,
			size_t max, uint64_t limit, unsigned flags, size_t *got,
			struct wc_err *err)
{
	size_t k = 0;
	int r = 0;

	while (k < max) {
		r = buf_pull(ctx, s, &out[k], k ? WC_PULL_BUFFERED : flags, err);
		if (r != 1)
			break;
		if (out[k++].time > limit)
			break;
	}
	*got = k;
	return k ? 1 : r;
}

/* Batches of every size hand out blkparse's order, as one at a time,
 * and every payload of a batch is still there when the batch is read:
 * a stream never reads on under the batch's own events.  The same with
 * the streams' runs pulled at once. */
START_TEST(test_batch_matches_blkparse_model)
{
	static struct bfake b;
	unsigned want[MAXS * MAXN][2];
	unsigned seed = 4242, trial, unread = 0;

	for (trial = 0; trial < 2000; trial++) {
		struct wc_event evs[9];
		struct wc_merge *m = NULL;
		struct wc_err err;
		unsigned s, i, n, got = 0;
		size_t k, nb;

		memset(&b, 0, sizeof(b));
		fake_init(&b.f, 1 + (unsigned)rand_r(&seed) % RANDS);
		for (s = 0; s < b.f.nstreams; s++) {
			uint64_t t = (uint64_t)(rand_r(&seed) % 4);

			b.f.len[s] = (unsigned)rand_r(&seed) % 40;
			for (i = 0; i < b.f.len[s]; i++) {
				/* Long runs of one stream, and ties. */
				t += (uint64_t)(rand_r(&seed) % 5 == 0 ?
						rand_r(&seed) % 30 : 0);
				b.f.times[s][i] = t;
			}
		}
		n = model_run(&b.f, want);
		wc_err_clear(&err);
		/* Every other trial a run at a time. */
		ck_assert_int_eq(wc_merge_open(&m, b.f.nstreams,
					       trial % 2 ? buf_pull_run :
					       buf_pull_one, &b, &err), 0);
		while (wc_merge_next_batch(m, evs, 1 + (unsigned)rand_r(&seed) % 9,
					   &nb, &err) > 0) {
			ck_assert_uint_ge(nb, 1);
			for (k = 0; k < nb; k++, got++) {
				char pdu[8];

				ck_assert_uint_lt(got, n);
				ck_assert_msg(evs[k].cpu == want[got][0] &&
					      evs[k].sequence == want[got][1],
					      "trial %u event %u: got %u.%u, blkparse %u.%u",
					      trial, got, evs[k].cpu, evs[k].sequence,
					      want[got][0], want[got][1]);
				snprintf(pdu, sizeof(pdu), "%u.%u", evs[k].cpu,
					 evs[k].sequence);
				ck_assert_str_eq((const char *)evs[k].pdu, pdu);
			}
		}
		ck_assert_uint_eq(got, n);
		for (s = 0; s < b.f.nstreams; s++)
			unread += b.unread[s];
		wc_merge_free(m);
	}
	/* The buffer's ends were met inside batches. */
	ck_assert_uint_gt(unread, 100);
}
END_TEST

/*
 * The hand-over between the lead and the runner-up, for 1, 2, 3 and 64
 * streams (the loop's index picks K): streams taking turns every event,
 * every stream at the same times, and streams of random lengths that end
 * in the middle of another's run, all in blkparse's order, one at a time,
 * in batches and a run at a time.
 */
START_TEST(test_hand_over_matches_blkparse_model)
{
	static const unsigned ks[] = { 1, 2, 3, 64 };
	static struct bfake b;
	unsigned want[MAXS * MAXN][2];
	unsigned K = ks[_i], seed = 777 + (unsigned)_i, trial;

	for (trial = 0; trial < 300; trial++) {
		struct wc_event evs[9];
		struct wc_merge *m = NULL;
		struct wc_err err;
		unsigned s, i, n, got = 0, shape = trial % 3;
		size_t k, nb;

		memset(&b, 0, sizeof(b));
		fake_init(&b.f, K);
		for (s = 0; s < K; s++) {
			uint64_t t = (uint64_t)(rand_r(&seed) % 3);

			b.f.len[s] = shape == 2 ? (unsigned)rand_r(&seed) % 24 :
				     16 + (unsigned)(trial / 3) % 8;
			for (i = 0; i < b.f.len[s]; i++) {
				if (shape == 0)          /* turns of one event */
					b.f.times[s][i] = (uint64_t)i * K + s;
				else if (shape == 1)     /* all at one time */
					b.f.times[s][i] = i / 4;
				else                     /* few times, ties */
					b.f.times[s][i] = t += (uint64_t)
						(rand_r(&seed) % 3 == 0);
			}
		}
		n = model_run(&b.f, want);
		wc_err_clear(&err);
		ck_assert_int_eq(wc_merge_open(&m, K, trial % 2 ? buf_pull_run :
					       buf_pull_one, &b, &err), 0);
		while (wc_merge_next_batch(m, evs,
					   trial % 4 < 2 ? 1 :
					   1 + (unsigned)rand_r(&seed) % 9,
					   &nb, &err) > 0) {
			for (k = 0; k < nb; k++, got++) {
				ck_assert_uint_lt(got, n);
				ck_assert_msg(evs[k].cpu == want[got][0] &&
					      evs[k].sequence == want[got][1],
					      "K %u trial %u event %u: got %u.%u, "
					      "blkparse %u.%u", K, trial, got,
					      evs[k].cpu, evs[k].sequence,
					      want[got][0], want[got][1]);
			}
		}
		ck_assert_uint_eq(got, n);
		wc_merge_free(m);
	}
}
END_TEST

/* The streams of b through a merge by route, a run at a time or not, in
 * batches of max events or, for max 0, of sizes drawn from seed (the
 * same for every route): each event's (stream, index) into got[], each
 * payload checked; the count. */
static unsigned merge_route_run(struct bfake *b, enum wc_merge_route route,
				int runs, size_t max, unsigned seed,
				unsigned got[][2])
{
	struct wc_event evs[9];
	struct wc_merge *m = NULL;
	struct wc_err err;
	unsigned s, n = 0;
	size_t k, nb, mx;

	for (s = 0; s < MAXS; s++)
		b->f.pos[s] = 0;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_merge_open(&m, b->f.nstreams,
				       runs ? buf_pull_run : buf_pull_one, b,
				       &err), 0);
	wc_merge_set_route(m, route);
	for (;;) {
		mx = max ? max : 1 + (size_t)rand_r(&seed) % 9;
		if (wc_merge_next_batch(m, evs, mx, &nb, &err) <= 0)
			break;
		/* Checked without an assertion per event, which Check
		 * would report to its parent process one by one. */
		if (nb < 1 || nb > mx || n + nb > MAXS * MAXN)
			ck_abort_msg("a batch of %zu events, asked %zu, after %u",
				     nb, mx, n);
		for (k = 0; k < nb; k++, n++) {
			char pdu[8];

			snprintf(pdu, sizeof(pdu), "%u.%u", evs[k].cpu,
				 evs[k].sequence);
			if (strcmp((const char *)evs[k].pdu, pdu) != 0)
				ck_abort_msg("event %u.%u: payload '%s'",
					     evs[k].cpu, evs[k].sequence,
					     (const char *)evs[k].pdu);
			got[n][0] = evs[k].cpu;
			got[n][1] = evs[k].sequence;
		}
	}
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	wc_merge_free(m);
	return n;
}

/*
 * The hand-over's two routes (the runner-up beside the heap, or in it)
 * on the same streams, event by event: 1, 2, 3, 5 and 64 streams (the
 * loop's index picks K) taking turns every event, all at one time, in
 * long runs and at random times with ties everywhere, streams ending in
 * another's run; batches of one, a few and of random sizes, one event
 * or one run at a time.
 */
START_TEST(test_merge_routes_agree)
{
	static const unsigned ks[] = { 1, 2, 3, 5, 64 };
	static const size_t maxes[] = { 1, 4, 9, 0 };
	static struct bfake b;
	static unsigned got[2][MAXS * MAXN][2];
	unsigned K = ks[_i], seed = 4711 + (unsigned)_i, trial;

	/* 64 streams of up to MAXN events: fewer trials, as many events. */
	for (trial = 0; trial < (K < 64 ? 200u : 40u); trial++) {
		unsigned s, i, shape = trial % 4, n[2], x, runs;
		size_t mi;

		memset(&b, 0, sizeof(b));
		fake_init(&b.f, K);
		for (s = 0; s < K; s++) {
			uint64_t t = (uint64_t)(rand_r(&seed) % 3);

			b.f.len[s] = (unsigned)rand_r(&seed) % (MAXN + 1);
			for (i = 0; i < b.f.len[s]; i++) {
				if (shape == 0)          /* turns of one event */
					b.f.times[s][i] = (uint64_t)i * K + s;
				else if (shape == 1)     /* all at one time */
					b.f.times[s][i] = i / 8;
				else if (shape == 2)     /* long runs */
					b.f.times[s][i] = t += (uint64_t)
						(rand_r(&seed) % 5 == 0 ?
						 rand_r(&seed) % 30 : 0);
				else                     /* few times, ties */
					b.f.times[s][i] = t += (uint64_t)
						(rand_r(&seed) % 3 == 0);
			}
		}
		for (mi = 0; mi < sizeof(maxes) / sizeof(maxes[0]); mi++)
			for (runs = 0; runs < 2; runs++) {
				unsigned bseed = seed + trial + (unsigned)mi;

				n[0] = merge_route_run(&b, WC_MERGE_ROUTE_ALL, (int)runs,
						       maxes[mi], bseed, got[0]);
				n[1] = merge_route_run(&b, WC_MERGE_ROUTE_HEAP, (int)runs,
						       maxes[mi], bseed, got[1]);
				ck_assert_uint_eq(n[1], n[0]);
				for (x = 0; x < n[0]; x++)
					if (got[1][x][0] != got[0][x][0] ||
					    got[1][x][1] != got[0][x][1])
						ck_abort_msg("K %u trial %u max %zu runs %u: "
							     "event %u is %u.%u by the heap, "
							     "%u.%u beside it", K, trial,
							     maxes[mi], runs, x,
							     got[1][x][0], got[1][x][1],
							     got[0][x][0], got[0][x][1]);
			}
	}
}
END_TEST

START_TEST(test_one_pending_per_stream)
{
	struct wc_merge *m = NULL;
	struct wc_event ev;
	struct wc_err err;
	struct fake f;
	unsigned s, i, before;

	fake_init(&f, 4);
	for (s = 0; s < 4; s++) {
		f.len[s] = 10;
		for (i = 0; i < 10; i++)
			f.times[s][i] = 10 * i + s;
	}
	wc_err_clear(&err);
	ck_assert_int_eq(wc_merge_open(&m, 4, fake_pull_one, &f, &err), 0);
	ck_assert_int_eq(wc_merge_next(m, &ev, &err), 1);
	ck_assert_uint_eq(f.pulls, 4);           /* one per stream to start */
	ck_assert_uint_eq(wc_merge_genesis(m), 0);
	for (;;) {
		char want[24];

		/* The payload is still the one pulled for this event. */
		snprintf(want, sizeof(want), "%u.%u", ev.cpu, ev.sequence);
		ck_assert_str_eq((const char *)ev.pdu, want);
		before = f.pulls;
		if (wc_merge_next(m, &ev, &err) <= 0)
			break;
		ck_assert_uint_eq(f.pulls, before + 1);
	}
	wc_merge_free(m);
	wc_merge_free(NULL);
}
END_TEST

START_TEST(test_failure_is_deferred)
{
	struct wc_merge *m = NULL;
	struct wc_event ev;
	struct wc_err err;
	struct fake f;
	unsigned i, n = 0;
	int r;

	fake_init(&f, 2);
	f.len[0] = f.len[1] = 10;
	for (i = 0; i < 10; i++) {
		f.times[0][i] = i;
		f.times[1][i] = i;
	}
	f.fail_at[1] = 3;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_merge_open(&m, 2, fake_pull_one, &f, &err), 0);
	while ((r = wc_merge_next(m, &ev, &err)) > 0)
		n++;
	/* Every good event of both streams came out first. */
	ck_assert_int_eq(r, -1);
	ck_assert_uint_eq(n, 13);
	ck_assert_str_eq(err.msg, "stream 1 broke");
	ck_assert_uint_eq(err.offset, 3);
	ck_assert_int_eq(wc_merge_next(m, &ev, &err), -1);
	wc_merge_free(m);
}
END_TEST

START_TEST(test_genesis_is_earliest_first)
{
	struct wc_merge *m = NULL;
	struct wc_event ev;
	struct wc_err err;
	struct fake f;

	fake_init(&f, 3);
	f.len[0] = f.len[1] = f.len[2] = 1;
	f.times[0][0] = 500;
	f.times[1][0] = 70;
	f.times[2][0] = 900;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_merge_open(&m, 3, fake_pull_one, &f, &err), 0);
	ck_assert_int_eq(wc_merge_next(m, &ev, &err), 1);
	ck_assert_uint_eq(ev.time, 70);
	ck_assert_uint_eq(wc_merge_genesis(m), 70);
	wc_merge_free(m);
}
END_TEST

/* ---- reorder window ---- */

struct seqsrc {
	struct wc_event evs[2000];
	unsigned n, pos;
	unsigned char buf[64];
};

static int seq_pull(void *ctx, unsigned s, struct wc_event *ev,
		    unsigned flags, struct wc_err *err)
{
	struct seqsrc *q = ctx;

	(void)s;
	(void)flags;
	(void)err;
	if (q->pos >= q->n)
		return 0;
	*ev = q->evs[q->pos];
	/* The payload buffer is reused by the next pull. */
	memset(q->buf, 0, sizeof(q->buf));
	snprintf((char *)q->buf, sizeof(q->buf), "event %u", q->pos);
	ev->pdu = q->buf;
	ev->pdu_len = (uint16_t)(q->pos % 2 ? 48 : 10);   /* inline and heap copies */
	ev->cpu = q->pos;    /* arrival, to check the order */
	q->pos++;
	return 1;
}
RUN_OF_ONE(seq_pull_one, seq_pull)

START_TEST(test_reorder_sorts_within_window)
{
	static struct seqsrc q;
	struct wc_reorder *r = NULL;
	struct wc_event ev;
	struct wc_err err;
	uint64_t last = 0;
	unsigned i, n = 0;

	memset(&q, 0, sizeof(q));
	q.n = 1000;
	for (i = 0; i < q.n; i++) {
		/* Jittered by up to 30 places. */
		q.evs[i].time = 1000 + i * 10 - (i % 7) * 43;
		q.evs[i].device = i % 3;
	}
	q.evs[700].time = 5;     /* after the first 512: not the genesis */
	wc_err_clear(&err);
	ck_assert_int_eq(wc_reorder_open(&r, 64, seq_pull_one, &q, &err), 0);
	while (wc_reorder_next(r, &ev, &err) > 0) {
		char want[24];

		if (ev.cpu != 700)
			ck_assert_uint_ge(ev.time, last);
		if (ev.cpu != 700)
			last = ev.time;
		snprintf(want, sizeof(want), "event %u", ev.cpu);
		ck_assert_str_eq((const char *)ev.pdu, want);
		n++;
	}
	ck_assert_uint_eq(n, q.n);
	/* The genesis is the earliest of the first 512 events only. */
	ck_assert_uint_eq(wc_reorder_genesis(r), 1000 - 6 * 43 + 10 * 6);
	wc_reorder_free(r);
	wc_reorder_free(NULL);
}
END_TEST

START_TEST(test_reorder_tie_key)
{
	static struct seqsrc q;
	struct wc_reorder *r = NULL;
	struct wc_event ev;
	struct wc_err err;
	unsigned order[6], i = 0;

	memset(&q, 0, sizeof(q));
	q.n = 6;
	/* All at one time: by device, then sequence, then arrival. */
	q.evs[0].device = 2; q.evs[0].sequence = 1;
	q.evs[1].device = 1; q.evs[1].sequence = 9;
	q.evs[2].device = 1; q.evs[2].sequence = 3;
	q.evs[3].device = 2; q.evs[3].sequence = 0;
	q.evs[4].device = 1; q.evs[4].sequence = 3;
	q.evs[5].device = 0; q.evs[5].sequence = 7;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_reorder_open(&r, 16, seq_pull_one, &q, &err), 0);
	while (wc_reorder_next(r, &ev, &err) > 0)
		order[i++] = ev.cpu;
	ck_assert_uint_eq(i, 6);
	ck_assert_uint_eq(order[0], 5);
	ck_assert_uint_eq(order[1], 2);
	ck_assert_uint_eq(order[2], 4);
	ck_assert_uint_eq(order[3], 1);
	ck_assert_uint_eq(order[4], 3);
	ck_assert_uint_eq(order[5], 0);
	wc_reorder_free(r);
}
END_TEST

/* The window as one plain set: each step hands out its smallest event by
 * (time, device, sequence, arrival), then the next arrival joins it. */
static unsigned model_window(const struct seqsrc *q, size_t window,
			     unsigned *out)
{
	unsigned in[2000], nin = 0, next = 0, nout = 0;

	while (next < q->n && nin < window)
		in[nin++] = next++;
	while (nin > 0) {
		unsigned i, best = 0;

		for (i = 1; i < nin; i++) {
			const struct wc_event *a = &q->evs[in[i]], *b = &q->evs[in[best]];

			if (a->time != b->time ? a->time < b->time :
			    a->device != b->device ? a->device < b->device :
			    a->sequence != b->sequence ? a->sequence < b->sequence :
			    in[i] < in[best])
				best = i;
		}
		out[nout++] = in[best];
		in[best] = in[--nin];
		if (next < q->n)
			in[nin++] = next++;
	}
	return nout;
}

/* In order, out of order by a little, by a lot, in interleaved runs (as
 * CPU buffers on a pipe), with ties everywhere: the window's FIFO and
 * heap must hand out exactly what one set over the window would. */
START_TEST(test_reorder_matches_model)
{
	static struct seqsrc q;
	static unsigned want[2000];
	static const size_t windows[] = { 1, 2, 7, 64, 3000 };
	uint64_t seed = 88172645463325252ull + (uint64_t)_i * 7919;
	unsigned i, n, shape = (unsigned)_i % 5;
	size_t w;

	memset(&q, 0, sizeof(q));
	q.n = 2000;
	for (i = 0; i < q.n; i++) {
		uint64_t t = (uint64_t)i * 4;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		if (shape == 1)
			t += seed % 9;                  /* jitter: ties, swaps */
		else if (shape == 2)
			t = seed % 5000;                /* no order at all */
		else if (shape == 3)
			t = (i % 100) * 40 + (i / 200) * 4000 + (i / 100 % 2);
		else if (shape == 4 && i % 50 == 0)
			t = t > 500 ? t - 500 : 0;      /* a few stragglers */
		q.evs[i].time = t / 4 * 4;
		q.evs[i].device = (uint32_t)(seed >> 20) % 2;
		q.evs[i].sequence = (uint32_t)(seed >> 40) % 3;
	}
	for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		struct wc_reorder *r = NULL;
		struct wc_event ev;
		struct wc_err err;

		q.pos = 0;
		n = model_window(&q, windows[w], want);
		ck_assert_uint_eq(n, q.n);
		wc_err_clear(&err);
		ck_assert_int_eq(wc_reorder_open(&r, windows[w], seq_pull_one, &q,
						 &err), 0);
		for (i = 0; wc_reorder_next(r, &ev, &err) > 0; i++) {
			char pdu[24];

			ck_assert_uint_lt(i, n);
			ck_assert_uint_eq(ev.cpu, want[i]);
			snprintf(pdu, sizeof(pdu), "event %u", ev.cpu);
			ck_assert_str_eq((const char *)ev.pdu, pdu);
		}
		ck_assert_uint_eq(i, n);
		wc_reorder_free(r);
	}
}
END_TEST

/* seq_pull() again and again for a run (pull(), merge.h):
 * the run's payloads in a buffer of its own, scribbled over by the next
 * call, as a stream's buffer is when it reads on. */
static unsigned char run_pdus[WC_REORDER_BATCH][64];

static int seq_pull_run(void *ctx, unsigned s, struct wc_event *out,
			size_t max, uint64_t limit, unsigned flags, size_t *got,
			struct wc_err *err)
{
	size_t k = 0;
	int r = 0;

	memset(run_pdus, 'x', sizeof(run_pdus));
	ck_assert_uint_le(max, WC_REORDER_BATCH);
	while (k < max) {
		r = seq_pull(ctx, s, &out[k], flags, err);
		if (r != 1)
			break;
		memcpy(run_pdus[k], out[k].pdu, out[k].pdu_len);
		out[k].pdu = run_pdus[k];
		if (out[k++].time > limit)
			break;
	}
	*got = k;
	return k ? 1 : r;
}

/* The same in batches of every size: slots handed out in a batch stay
 * the caller's until the next call while the window refills into
 * others, so the order is still that of a full window: an event late by
 * less than the window after a long run in order is put in its place,
 * later than that it is not. */
START_TEST(test_reorder_batch_matches_model)
{
	static struct seqsrc q;
	static unsigned want[2000];
	static const size_t windows[] = { 1, 2, 7, 64, 1200 };
	unsigned seed = 99u + (unsigned)_i, i, n, shape = (unsigned)_i % 3;
	size_t w;

	memset(&q, 0, sizeof(q));
	q.n = 2000;
	for (i = 0; i < q.n; i++) {
		q.evs[i].time = (uint64_t)i * 4;
		if (shape == 1)
			q.evs[i].time += (uint64_t)(rand_r(&seed) % 9);
		else if (shape == 2)
			q.evs[i].time = (uint64_t)(rand_r(&seed) % 5000);
		q.evs[i].device = (uint32_t)rand_r(&seed) % 2;
	}
	/* After 1500 in order, events 1000 and 100 places late. */
	q.evs[1500].time = 500 * 4 + 1;
	q.evs[1600].time = 1500 * 4 + 1;
	for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		struct wc_event evs[WC_REORDER_BATCH + 8];
		struct wc_reorder *r = NULL;
		struct wc_err err;
		size_t k, nb, max;

		q.pos = 0;
		n = model_window(&q, windows[w], want);
		wc_err_clear(&err);
		/* Every other trial filled a run at a time. */
		ck_assert_int_eq(wc_reorder_open(&r, windows[w],
						 _i % 2 ? seq_pull_run :
						 seq_pull_one, &q, &err), 0);
		i = 0;
		max = 1 + (size_t)rand_r(&seed) % (WC_REORDER_BATCH + 8);
		while (wc_reorder_next_batch(r, evs, max, &nb, &err) > 0) {
			ck_assert_uint_ge(nb, 1);
			ck_assert_uint_le(nb, WC_REORDER_BATCH);
			for (k = 0; k < nb; k++, i++) {
				char pdu[24];

				ck_assert_uint_lt(i, n);
				ck_assert_uint_eq(evs[k].cpu, want[i]);
				snprintf(pdu, sizeof(pdu), "event %u", evs[k].cpu);
				ck_assert_str_eq((const char *)evs[k].pdu, pdu);
			}
			max = 1 + (size_t)rand_r(&seed) % (WC_REORDER_BATCH + 8);
		}
		ck_assert_uint_eq(i, n);
		wc_reorder_free(r);
	}
}
END_TEST

/* The ring and the heap, one case at a time, window 16: a long run in
 * order and an event late by less than the window (put in its place), one
 * late by more (left where it is), equal keys (arrival order, also
 * between a late event and one in order), and the input ending with
 * events in the ring and in the heap, read one event or one run at a
 * time, in batches of every size, copied or in place. */
START_TEST(test_reorder_ring_and_heap)
{
	static struct seqsrc q;
	static unsigned want[2000];
	static const size_t maxes[] = { 1, 3, 64 };
	unsigned i, n, got[2000], at[2000];
	size_t m;

	memset(&q, 0, sizeof(q));
	q.n = 200;
	for (i = 0; i < q.n; i++) {
		q.evs[i].time = (uint64_t)i * 10;
		q.evs[i].sequence = i;
	}
	q.evs[100].time = 955;                /* 5 places late */
	q.evs[150].time = 1025;               /* 48 places late */
	for (i = 160; i <= 162; i++)          /* equal in every key */
		q.evs[i] = q.evs[160];
	q.evs[170] = q.evs[165];              /* late, and equal to 165 */
	q.evs[197].time = 1935;               /* late at the very end */
	n = model_window(&q, 16, want);
	ck_assert_uint_eq(n, q.n);
	/* By pull(), by runs, by runs handed out in place. */
	for (m = 0; m < 3 * sizeof(maxes) / sizeof(maxes[0]); m++) {
		struct wc_event buf[WC_REORDER_BATCH];
		const struct wc_event *evs = buf;
		struct wc_reorder *r = NULL;
		struct wc_err err;
		size_t k, nb, max = maxes[m / 3];

		q.pos = 0;
		wc_err_clear(&err);
		ck_assert_int_eq(wc_reorder_open(&r, 16, m % 3 ? seq_pull_run :
						 seq_pull_one, &q, &err), 0);
		i = 0;
		while ((m % 3 == 2 ?
			wc_reorder_next_ref(r, &evs, max, &nb, &err) :
			wc_reorder_next_batch(r, buf, max, &nb, &err)) > 0) {
			ck_assert_uint_le(nb, max);
			for (k = 0; k < nb; k++, i++) {
				char pdu[24];

				ck_assert_uint_lt(i, q.n);
				/* Payloads of the whole batch still hold. */
				snprintf(pdu, sizeof(pdu), "event %u",
					 evs[k].cpu);
				ck_assert_str_eq((const char *)evs[k].pdu, pdu);
				got[i] = evs[k].cpu;
				at[evs[k].cpu] = i;
			}
		}
		ck_assert_uint_eq(i, q.n);
		ck_assert_int_eq(err.kind, WC_ERR_NONE);
		for (i = 0; i < q.n; i++)
			ck_assert_uint_eq(got[i], want[i]);
		/* What the model says, spelled out. */
		ck_assert_uint_eq(at[100], at[95] + 1);
		ck_assert_uint_eq(at[96], at[100] + 1);
		ck_assert_uint_eq(at[150], 150 - 16 + 1);
		ck_assert_uint_eq(at[134], at[150] - 1);
		ck_assert_uint_eq(at[135], at[150] + 1);
		ck_assert_uint_eq(at[161], at[160] + 1);
		ck_assert_uint_eq(at[162], at[161] + 1);
		ck_assert_uint_eq(at[170], at[165] + 1);
		ck_assert_uint_eq(at[197], at[193] + 1);
		ck_assert_uint_eq(at[199], q.n - 1);
		wc_reorder_free(r);
	}
}
END_TEST

/* Reads q through a window of w events: by pull() (mode 0) or by runs
 * (1), in batches of random sizes copied (0, 1) or in place (2); checks
 * every event against want[] and its payload, and fills at[] with the
 * place each event went out at. */
static void reorder_check(struct seqsrc *q, size_t window, unsigned mode,
			  unsigned *seed, const unsigned *want, unsigned *at)
{
	struct wc_event buf[WC_REORDER_BATCH];
	const struct wc_event *evs = buf;
	struct wc_reorder *r = NULL;
	struct wc_err err;
	size_t k, nb, max;
	unsigned i = 0;

	q->pos = 0;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_reorder_open(&r, window, mode ? seq_pull_run :
					 seq_pull_one, q, &err), 0);
	max = 1 + (size_t)rand_r(seed) % WC_REORDER_BATCH;
	while ((mode == 2 ? wc_reorder_next_ref(r, &evs, max, &nb, &err) :
		wc_reorder_next_batch(r, buf, max, &nb, &err)) > 0) {
		ck_assert_uint_le(nb, max);
		for (k = 0; k < nb; k++, i++) {
			char pdu[24];

			ck_assert_uint_lt(i, q->n);
			ck_assert_uint_eq(evs[k].cpu, want[i]);
			snprintf(pdu, sizeof(pdu), "event %u", evs[k].cpu);
			ck_assert_str_eq((const char *)evs[k].pdu, pdu);
			at[evs[k].cpu] = i;
		}
		max = 1 + (size_t)rand_r(seed) % WC_REORDER_BATCH;
	}
	ck_assert_uint_eq(i, q->n);
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	wc_reorder_free(r);
}

/* A late event that goes before at most WC_REORDER_SHIFT of the ring's
 * last events goes into its place among them, one more goes through the
 * heap, in the same order, window 64: near the ring's head, exactly
 * WC_REORDER_SHIFT and one more places late, ties at the tail, equal
 * keys (after the one read first, also at the farthest place), two late
 * in a row, and across the ring's end (its 192 slots). */
START_TEST(test_reorder_ring_insert)
{
	static struct seqsrc q;
	static unsigned want[2000], at[2000];
	const unsigned s = WC_REORDER_SHIFT;
	unsigned i, n, mode, seed = 5;

	memset(&q, 0, sizeof(q));
	q.n = 260;
	for (i = 0; i < q.n; i++) {
		q.evs[i].time = (uint64_t)i * 10;
		q.evs[i].device = 1;
		q.evs[i].sequence = i;
	}
	q.evs[3].time = 5;                       /* before 1 and 2 */
	q.evs[100].time = (100 - s - 1) * 10 + 5; /* before s events */
	q.evs[120].time = (120 - s - 2) * 10 + 5; /* before s + 1 */
	q.evs[140].time = 139 * 10;               /* a tie with 139 ... */
	q.evs[140].device = 0;                    /* ... before it */
	q.evs[150] = q.evs[148];                  /* equal: after 148 */
	q.evs[160].time = 159 * 10;               /* before 159: */
	q.evs[160].sequence = 0;                  /* a lower sequence */
	q.evs[170].time = 1655;                   /* before 166..169 */
	q.evs[171].time = 1675;                   /* before 168, 169 */
	q.evs[190] = q.evs[190 - s - 1];          /* equal to the farthest */
	q.evs[197].time = 1945;                   /* the ring's end */
	q.evs[198].time = 1935;
	n = model_window(&q, 64, want);
	ck_assert_uint_eq(n, q.n);
	for (mode = 0; mode < 3; mode++) {
		reorder_check(&q, 64, mode, &seed, want, at);
		ck_assert_uint_eq(at[3], 1);
		ck_assert_uint_eq(at[100], at[100 - s - 1] + 1);
		ck_assert_uint_eq(at[100 - s], at[100] + 1);
		ck_assert_uint_eq(at[120], at[120 - s - 2] + 1);
		ck_assert_uint_eq(at[120 - s - 1], at[120] + 1);
		ck_assert_uint_eq(at[140], at[138] + 1);
		ck_assert_uint_eq(at[139], at[140] + 1);
		ck_assert_uint_eq(at[150], at[148] + 1);
		ck_assert_uint_eq(at[149], at[150] + 1);
		ck_assert_uint_eq(at[160], at[158] + 1);
		ck_assert_uint_eq(at[170], at[165] + 1);
		ck_assert_uint_eq(at[171], at[167] + 1);
		ck_assert_uint_eq(at[190], at[190 - s - 1] + 1);
		ck_assert_uint_eq(at[190 - s], at[190] + 1);
		ck_assert_uint_eq(at[198], at[193] + 1);
		ck_assert_uint_eq(at[197], at[194] + 1);
	}
}
END_TEST

/* Late events by 1 to WC_REORDER_SHIFT + 2 places, often one after the
 * other, earlier, tied in time or equal in every key, some far out of
 * order, through windows small and large (a late event may go into the
 * ring only when it takes part by its turn) and across the ring's end:
 * one set's order, and every payload where it belongs. */
START_TEST(test_reorder_ring_insert_model)
{
	static struct seqsrc q;
	static unsigned want[2000], at[2000];
	static const size_t windows[] = { 1, 2, 3, 5, 8, 9, 10, 16, 40, 300 };
	unsigned seed = 31u + (unsigned)_i, i, d, n, w;

	memset(&q, 0, sizeof(q));
	q.n = 2000;
	for (i = 0; i < q.n; i++) {
		q.evs[i].time = (uint64_t)i * 10;
		q.evs[i].device = 1;
		q.evs[i].sequence = i;
	}
	for (i = WC_REORDER_SHIFT + 3; i < q.n;
	     i += 1 + (unsigned)rand_r(&seed) % (_i % 2 ? 3 : 12)) {
		d = 1 + (unsigned)rand_r(&seed) % (WC_REORDER_SHIFT + 2);
		/* Half the trials with many far out of order, which go
		 * through the heap while the ring wraps round under the
		 * events that wait in it. */
		switch (rand_r(&seed) % (_i < 4 ? 3 : 5)) {
		case 0:
			q.evs[i].time = q.evs[i - d].time - 1;
			break;
		case 1:
			q.evs[i].time = q.evs[i - d].time;
			q.evs[i].device = 0;
			break;
		case 2:
			q.evs[i] = q.evs[i - d];
			break;
		default:
			q.evs[i].time = (uint64_t)rand_r(&seed) % (i * 10);
			break;
		}
	}
	/* An event later than all others, early on: the ring's last to
	 * the end, before which every other goes, its long payload moved
	 * up a slot each time, while the ring wraps round many times. */
	if (_i % 2)
		q.evs[11].time = UINT64_MAX / 2;
	for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		n = model_window(&q, windows[w], want);
		ck_assert_uint_eq(n, q.n);
		reorder_check(&q, windows[w], (unsigned)(w + _i) % 3, &seed,
			      want, at);
	}
}
END_TEST

/* A record late by more than WC_REORDER_SHIFT places in the middle of
 * a run, after events in order, later than the ring's last before the
 * run: it goes through the heap, looked at against the event read just
 * before it (in the first run, the first and the third), window 256. */
START_TEST(test_reorder_late_mid_run)
{
	static struct seqsrc q;
	static unsigned want[2000], at[2000];
	unsigned i, n, mode, seed = 7;

	memset(&q, 0, sizeof(q));
	q.n = 300;
	for (i = 0; i < q.n; i++) {
		q.evs[i].time = (uint64_t)i * 10;
		q.evs[i].device = 1;
		q.evs[i].sequence = i;
	}
	q.evs[40].time = 20 * 10 + 5;           /* before 21..39 */
	q.evs[150].time = 130 * 10 + 5;         /* before 131..149 */
	n = model_window(&q, 256, want);
	ck_assert_uint_eq(n, q.n);
	for (mode = 1; mode < 3; mode++) {
		reorder_check(&q, 256, mode, &seed, want, at);
		ck_assert_uint_eq(at[40], 21);
		ck_assert_uint_eq(at[21], 22);
		ck_assert_uint_eq(at[150], 131);
		ck_assert_uint_eq(at[131], 132);
	}
}
END_TEST

/* wc_reorder_sorted(): every batch of wc_reorder_next_ref() that says so
 * is in time order; input in order comes in such batches only; a record
 * further out of order than the window goes out earlier than the one
 * before it, in a batch that does not say so. */
START_TEST(test_reorder_sorted)
{
	static struct seqsrc q;
	const struct wc_event *evs;
	struct wc_reorder *r = NULL;
	struct wc_err err;
	unsigned i, pass, sorted, other, back;
	size_t k, nb;

	for (pass = 0; pass < 2; pass++) {
		memset(&q, 0, sizeof(q));
		q.n = 1000;
		for (i = 0; i < q.n; i++) {
			q.evs[i].time = (uint64_t)i * 10;
			q.evs[i].device = 1;
			q.evs[i].sequence = i;
		}
		if (pass > 0)                   /* beyond the window of 16 */
			for (i = 100; i < q.n; i += 97)
				q.evs[i].time -= 500;
		wc_err_clear(&err);
		ck_assert_int_eq(wc_reorder_open(&r, 16, seq_pull_run, &q, &err),
				 0);
		sorted = other = back = 0;
		for (;;) {
			if (wc_reorder_next_ref(r, &evs, 40, &nb, &err) <= 0)
				break;
			if (wc_reorder_sorted(r))
				sorted++;
			else
				other++;
			for (k = 1; k < nb; k++) {
				back += evs[k].time < evs[k - 1].time;
				if (wc_reorder_sorted(r))
					ck_assert_uint_ge(evs[k].time,
							  evs[k - 1].time);
			}
		}
		ck_assert_int_eq(err.kind, WC_ERR_NONE);
		ck_assert(!wc_reorder_sorted(r));       /* the end: none */
		if (pass == 0) {
			ck_assert_uint_gt(sorted, 0);
			ck_assert_uint_eq(other, 0);
		} else {
			ck_assert_uint_gt(back, 0);
			ck_assert_uint_gt(other, 0);
			ck_assert_uint_gt(sorted, 0);   /* the runs between */
		}
		wc_reorder_free(r);
	}
}
END_TEST

/* ---- the window's routes, one against another ---- */

/* Reads q through a window of w events by route: by pull() (mode 0) or
 * by runs (1), in batches copied (0, 1) or in place (2), of max events
 * or, for max 0, of sizes drawn from seed (the same for every route);
 * checks every payload and fills got[] with the events' arrivals in the
 * order they went out; the count.  *sorted: the events of the batches
 * that said they were a run of the ring. */
static unsigned route_run(struct seqsrc *q, size_t window,
			  enum wc_reorder_route route, unsigned mode,
			  size_t max, unsigned seed, unsigned *got,
			  unsigned *sorted)
{
	struct wc_event buf[WC_REORDER_BATCH];
	const struct wc_event *evs = buf;
	struct wc_reorder *r = NULL;
	struct wc_err err;
	size_t k, nb, m;
	unsigned i = 0;

	q->pos = 0;
	*sorted = 0;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_reorder_open(&r, window, mode ? seq_pull_run :
					 seq_pull_one, q, &err), 0);
	wc_reorder_set_route(r, route);
	for (;;) {
		m = max ? max : 1 + (size_t)rand_r(&seed) % WC_REORDER_BATCH;
		if ((mode == 2 ? wc_reorder_next_ref(r, &evs, m, &nb, &err) :
		     wc_reorder_next_batch(r, buf, m, &nb, &err)) <= 0)
			break;
		/* Checked without an assertion per event, which Check
		 * would report to its parent process one by one. */
		if (nb < 1 || nb > m || i + nb > q->n)
			ck_abort_msg("a batch of %zu events, asked %zu, after %u",
				     nb, m, i);
		if (wc_reorder_sorted(r))
			*sorted += (unsigned)nb;
		for (k = 0; k < nb; k++, i++) {
			char pdu[24];

			snprintf(pdu, sizeof(pdu), "event %u", evs[k].cpu);
			if (strcmp((const char *)evs[k].pdu, pdu) != 0)
				ck_abort_msg("event %u: payload '%s'", evs[k].cpu,
					     (const char *)evs[k].pdu);
			got[i] = evs[k].cpu;
		}
	}
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	wc_reorder_free(r);
	return i;
}

/*
 * The window's three routes in (the ring in place, the ring's last
 * WC_REORDER_SHIFT moved up a slot, the heap) against the heap alone
 * and against the ring without the move, on the same inputs, event by
 * event: input in order, ties everywhere (blkparse -d's order among
 * equal times, by the sort's key), late by 1 to WC_REORDER_SHIFT + 2
 * and far out of order, CPU buffers interleaved, no order at all; with
 * windows small and large, batches of one, a few and WC_REORDER_BATCH
 * events and of random sizes, one event or one run at a time, copied or
 * in place.
 */
START_TEST(test_reorder_routes_agree)
{
	static struct seqsrc q;
	static unsigned got[3][2000];
	static const size_t windows[] = { 1, 2, 8, 9, 16, 64, 300, 3000 };
	static const size_t maxes[] = { 1, 3, WC_REORDER_BATCH, 0 };
	static const enum wc_reorder_route routes[] = {
		WC_REORDER_ROUTE_ALL, WC_REORDER_ROUTE_NO_SHIFT,
		WC_REORDER_ROUTE_HEAP,
	};
	unsigned seed = 2029u + (unsigned)_i, shape = (unsigned)_i % 5;
	unsigned i, d, w, b, mode, k, n[3], sorted[3];

	memset(&q, 0, sizeof(q));
	q.n = 2000;
	for (i = 0; i < q.n; i++) {
		struct wc_event *e = &q.evs[i];

		e->time = (uint64_t)i * 10;
		e->device = 1;
		e->sequence = i;
		if (shape == 1) {               /* ties: four events a time */
			e->time = i / 4 * 10;
			e->device = (uint32_t)rand_r(&seed) % 2;
			e->sequence = (uint32_t)rand_r(&seed) % 4;
		} else if (shape == 3) {        /* CPU buffers interleaved */
			e->time = (i % 100) * 40 + (i / 200) * 4000 +
				  (i / 100 % 2) * 20;
		} else if (shape == 4) {        /* no order */
			e->time = (uint64_t)rand_r(&seed) % 5000;
			e->device = (uint32_t)rand_r(&seed) % 2;
		}
	}
	if (shape == 2) {                       /* late by a few, or far */
		for (i = WC_REORDER_SHIFT + 3; i < q.n;
		     i += 1 + (unsigned)rand_r(&seed) % 4) {
			d = 1 + (unsigned)rand_r(&seed) % (WC_REORDER_SHIFT + 2);
			switch (rand_r(&seed) % 4) {
			case 0:
				q.evs[i].time = q.evs[i - d].time - 1;
				break;
			case 1:
				q.evs[i].time = q.evs[i - d].time;
				q.evs[i].device = 0;
				break;
			case 2:
				q.evs[i] = q.evs[i - d];
				break;
			default:
				q.evs[i].time = (uint64_t)rand_r(&seed) % (i * 10);
				break;
			}
		}
	}
	for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++)
		for (b = 0; b < sizeof(maxes) / sizeof(maxes[0]); b++)
			for (mode = 0; mode < 3; mode++) {
				unsigned bseed = seed + w * 16 + b * 4 + mode;

				for (k = 0; k < 3; k++)
					n[k] = route_run(&q, windows[w], routes[k],
							 mode, maxes[b], bseed,
							 got[k], &sorted[k]);
				for (k = 1; k < 3; k++) {
					ck_assert_uint_eq(n[k], q.n);
					for (i = 0; i < q.n; i++)
						if (got[k][i] != got[0][i])
							ck_abort_msg("shape %u window %zu max %zu mode %u: "
								     "event %u is %u by route %u, %u by the ring",
								     shape, windows[w], maxes[b], mode,
								     i, got[k][i], k, got[0][i]);
				}
				/* Each route is the one it says: the heap alone
				 * hands out no run of the ring; without the move,
				 * fewer events go out in runs of the ring, once
				 * the window is long enough for runs (a span is
				 * read up to WC_REORDER_BATCH events ahead: in a
				 * window of 16 against spans of 256 the late
				 * events read ahead cut the runs of both routes
				 * down to 2 events). */
				ck_assert_uint_eq(sorted[2], 0);
				if (mode == 2 && shape == 0)
					ck_assert_uint_gt(sorted[0], 0);
				if (mode == 2 && (shape == 1 || shape == 2) &&
				    windows[w] >= 16 &&
				    4 * windows[w] >= WC_REORDER_BATCH)
					ck_assert_uint_lt(sorted[1], sorted[0]);
			}
}
END_TEST

static Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("k-way");
	TCase *ro = tcase_create("reorder");

	wc_check_timeout(tc, 30);
	tcase_add_test(tc, test_matches_blkparse_model);
	tcase_add_test(tc, test_batch_matches_blkparse_model);
	tcase_add_loop_test(tc, test_hand_over_matches_blkparse_model, 0, 4);
	tcase_add_loop_test(tc, test_merge_routes_agree, 0, 5);
	tcase_add_test(tc, test_one_pending_per_stream);
	tcase_add_test(tc, test_failure_is_deferred);
	tcase_add_test(tc, test_genesis_is_earliest_first);
	tcase_add_test(ro, test_reorder_sorts_within_window);
	tcase_add_test(ro, test_reorder_tie_key);
	tcase_add_loop_test(ro, test_reorder_matches_model, 0, 10);
	tcase_add_loop_test(ro, test_reorder_batch_matches_model, 0, 12);
	tcase_add_test(ro, test_reorder_ring_and_heap);
	tcase_add_test(ro, test_reorder_ring_insert);
	tcase_add_test(ro, test_reorder_late_mid_run);
	tcase_add_test(ro, test_reorder_sorted);
	tcase_add_loop_test(ro, test_reorder_ring_insert_model, 0, 8);
	tcase_add_loop_test(ro, test_reorder_routes_agree, 0, 10);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, ro);
	return s;
}

WC_CHECK_MAIN(merge_suite)
