/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_btt.c - unit tests of analyze/lib/compat/btt.c: btt's per-bio Q2C and
 * D2C rules one by one (merged bios inherit D and C, duplicate Q start
 * sectors dropped, empty and notify and cgroup-flagged records ignored,
 * devices ignored until their first Q, tdelta's 1 ns floor, the last D
 * after a requeue, at most WC_MAX_DEVICES devices).  Agreement with the real btt is t31's job.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "compat/btt.h"
#include "compat/btt_test.h"
#include "check_common.h"

#define DEV WC_DEV_MAKE(8u, 0u)
#define W WC_TC(WC_TC_WRITE)

static struct wc_event E(uint64_t t, unsigned what, uint64_t sector,
			 uint32_t bytes)
{
	struct wc_event e;

	memset(&e, 0, sizeof(e));
	e.time = t;
	e.action = what | W;
	e.sector = sector;
	e.bytes = bytes;
	e.device = DEV;
	return e;
}

static struct wc_btt *feed(const struct wc_event *evs, size_t n)
{
	struct wc_btt *b = NULL;
	struct wc_err err;
	size_t i;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&b, &err), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(wc_btt_add(b, &evs[i], &err), 0);
	ck_assert_int_eq(wc_btt_status(b, &err), 0);
	return b;
}

START_TEST(test_merged_bios_inherit)
{
	const struct wc_event evs[] = {
		E(1000, WC_TA_QUEUE, 100, 4096),
		E(1010, WC_TA_QUEUE, 108, 4096),
		E(1011, WC_TA_BACKMERGE, 108, 4096),
		E(1100, WC_TA_ISSUE, 100, 8192),
		E(1300, WC_TA_COMPLETE, 100, 8192),
	};
	struct wc_btt *b = feed(evs, 5);

	ck_assert_uint_eq(wc_btt_q2c(b)->n, 2);
	ck_assert_uint_eq(wc_btt_q2c(b)->min, 290);
	ck_assert_uint_eq(wc_btt_q2c(b)->max, 300);
	ck_assert_uint_eq(wc_btt_d2c(b)->n, 2);
	ck_assert_uint_eq(wc_btt_d2c(b)->min, 200);
	ck_assert_uint_eq(wc_btt_d2c(b)->max, 200);
	ck_assert(wc_btt_mean_s(wc_btt_q2c(b)) == 295e-9);
	wc_btt_free(b);
}
END_TEST

START_TEST(test_duplicate_start_replaces)
{
	/* As btt 2.09 does it (tests/fixtures/attrib/btt/duplen): the
	 * newer Q, even longer, takes the older one's place, D-less. */
	const struct wc_event evs[] = {
		E(1000, WC_TA_QUEUE, 100, 4096),
		E(2000, WC_TA_ISSUE, 100, 4096),
		E(3000, WC_TA_QUEUE, 100, 8192),
		E(4000, WC_TA_COMPLETE, 100, 8192),
		E(5000, WC_TA_COMPLETE, 100, 8192),
	};
	struct wc_btt *b = feed(evs, 5);

	ck_assert_uint_eq(wc_btt_q2c(b)->n, 1);
	ck_assert_uint_eq(wc_btt_q2c(b)->max, 1000);
	ck_assert_uint_eq(wc_btt_d2c(b)->n, 0);
	wc_btt_free(b);
}
END_TEST

START_TEST(test_tree_many)
{
	/* Thousands of kept Qs inserted and completed in scattered order:
	 * the tree keeps every one findable. */
	struct wc_btt *b = NULL;
	struct wc_err err;
	struct wc_event e;
	uint64_t i, n = 5000;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&b, &err), 0);
	for (i = 0; i < n; i++) {
		e = E(i, WC_TA_QUEUE, (i * 7919 % n) * 8, 4096);
		ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	}
	for (i = 0; i < n; i++) {
		e = E(n + i, WC_TA_COMPLETE, (i * 104729 % n) * 8, 4096);
		ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	}
	ck_assert_uint_eq(wc_btt_q2c(b)->n, n);
	e = E(3 * n, WC_TA_COMPLETE, 0, 4096 * 5000);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	ck_assert_uint_eq(wc_btt_q2c(b)->n, n);
	wc_btt_free(b);
}
END_TEST

/* A Q whose start is kept takes its place wherever that node is in the
 * tree (a leaf, inner, with a right subtree below it, at either end):
 * on_queue() finds it as the last node its descent went right at.
 * Ascending and descending starts build the two ends, scattered ones
 * the inside; every start queued again must replace, never add. */
START_TEST(test_replace_anywhere)
{
	struct wc_btt *b = NULL;
	struct wc_err err;
	struct wc_event e;
	uint64_t i, n = 1000, t = 0;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&b, &err), 0);
	for (i = 0; i < n / 2; i++) {           /* rightmost each time */
		e = E(t++, WC_TA_QUEUE, 8 * (n + i), 4096);
		ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	}
	for (i = 0; i < n / 2; i++) {           /* leftmost each time */
		e = E(t++, WC_TA_QUEUE, 8 * (n - 1 - i), 4096);
		ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	}
	ck_assert_uint_eq(wc_btt_kept(b), n);
	/* The two ends first, then the rest scattered. */
	e = E(t++, WC_TA_QUEUE, 8 * (n / 2), 4096);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	e = E(t++, WC_TA_QUEUE, 8 * (n + n / 2 - 1), 4096);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	ck_assert_uint_eq(wc_btt_kept(b), n);
	t = 100000;
	for (i = 0; i < n; i++) {
		e = E(t, WC_TA_QUEUE, 8 * (n / 2 + i * 7919 % n), 4096);
		ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
		ck_assert_uint_eq(wc_btt_kept(b), n);
	}
	/* All of them replaced at t, so each one's Q2C is 1000. */
	e = E(t + 1000, WC_TA_COMPLETE, 8 * (n / 2), 4096u * (uint32_t)n);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	ck_assert_uint_eq(wc_btt_kept(b), 0);
	ck_assert_uint_eq(wc_btt_q2c(b)->n, n);
	ck_assert_uint_eq(wc_btt_q2c(b)->min, 1000);
	ck_assert_uint_eq(wc_btt_q2c(b)->max, 1000);
	wc_btt_free(b);
}
END_TEST

START_TEST(test_ignored_records)
{
	struct wc_event evs[] = {
		E(900, WC_TA_ISSUE, 100, 4096),      /* before any Q: ignored */
		E(1000, WC_TA_QUEUE, 100, 4096),
		E(1001, WC_TA_QUEUE, 0, 0),          /* empty: ignored */
		E(1002, WC_TA_QUEUE, 200, 4096),     /* cgroup flag: ignored */
		E(1003, WC_TA_QUEUE, 300, 4096),     /* notify: ignored */
		E(1004, WC_TA_QUEUE, 400, 4096),     /* PC: ignored */
		E(1100, WC_TA_COMPLETE, 0, 0),
		E(1200, WC_TA_COMPLETE, 100, 4096),
		E(1200, WC_TA_COMPLETE, 200, 4096),
		E(1200, WC_TA_COMPLETE, 300, 4096),
		E(1200, WC_TA_COMPLETE, 400, 4096),
	};
	struct wc_btt *b;

	evs[3].has_cgroup = true;
	evs[4].action |= WC_TC(WC_TC_NOTIFY);
	evs[5].action |= WC_TC(WC_TC_PC);
	b = feed(evs, 11);
	ck_assert_uint_eq(wc_btt_q2c(b)->n, 1);
	ck_assert_uint_eq(wc_btt_d2c(b)->n, 0);   /* its D came before its Q */
	wc_btt_free(b);
}
END_TEST

START_TEST(test_tdelta_floor_and_requeue)
{
	const struct wc_event evs[] = {
		E(1000, WC_TA_QUEUE, 100, 4096),
		E(1000, WC_TA_ISSUE, 100, 4096),
		E(1000, WC_TA_REQUEUE, 100, 4096),
		E(1500, WC_TA_ISSUE, 100, 4096),
		E(1500, WC_TA_COMPLETE, 100, 4096),
		E(2000, WC_TA_QUEUE, 500, 4096),
		E(2000, WC_TA_ISSUE, 500, 4096),
		E(2000, WC_TA_COMPLETE, 500, 4096),
	};
	struct wc_btt *b = feed(evs, 8);

	ck_assert_uint_eq(wc_btt_q2c(b)->n, 2);
	ck_assert_uint_eq(wc_btt_q2c(b)->min, 1);   /* Q == C counts 1 ns */
	ck_assert_uint_eq(wc_btt_q2c(b)->max, 500);
	ck_assert_uint_eq(wc_btt_d2c(b)->n, 2);
	ck_assert_uint_eq(wc_btt_d2c(b)->max, 1);   /* from the last D */
	wc_btt_free(b);
}
END_TEST

START_TEST(test_partial_cover)
{
	/* A C that covers only part of a kept Q leaves it kept. */
	const struct wc_event evs[] = {
		E(1000, WC_TA_QUEUE, 100, 8192),
		E(1100, WC_TA_ISSUE, 100, 4096),
		E(1200, WC_TA_COMPLETE, 100, 4096),
		E(1300, WC_TA_ISSUE, 100, 8192),
		E(1400, WC_TA_COMPLETE, 100, 8192),
	};
	struct wc_btt *b = feed(evs, 5);

	ck_assert_uint_eq(wc_btt_q2c(b)->n, 1);
	ck_assert_uint_eq(wc_btt_q2c(b)->min, 400);
	ck_assert_uint_eq(wc_btt_d2c(b)->min, 100);
	wc_btt_free(b);
	wc_btt_free(NULL);
}
END_TEST

START_TEST(test_lost_completions_bounded)
{
	struct wc_btt *b = NULL;
	struct wc_err err;
	struct wc_event e;
	uint64_t i, n = WC_BTT_MAX_KEPT + 100;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&b, &err), 0);
	/* Qs whose completions never come. */
	for (i = 0; i < n; i++) {
		e = E(i, WC_TA_QUEUE, i * 8, 4096);
		ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	}
	/* One oldest forgotten per Q past the cap, and no more. */
	ck_assert_uint_eq(wc_btt_dropped(b), 100);
	ck_assert_uint_eq(wc_btt_kept(b), WC_BTT_MAX_KEPT);
	/* The oldest left is Q number 100: the first 100 went. */
	e = E(n + 5, WC_TA_COMPLETE, 99 * 8, 4096);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	ck_assert_uint_eq(wc_btt_q2c(b)->n, 0);
	e = E(n + 6, WC_TA_COMPLETE, 100 * 8, 4096);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	ck_assert_uint_eq(wc_btt_q2c(b)->n, 1);
	ck_assert_uint_eq(wc_btt_q2c(b)->max, n + 6 - 100);
	/* The newest are still there. */
	e = E(n + 10, WC_TA_COMPLETE, (n - 1) * 8, 4096);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	ck_assert_uint_eq(wc_btt_q2c(b)->n, 2);
	ck_assert_uint_eq(wc_btt_q2c(b)->min, 11);
	ck_assert_uint_eq(wc_btt_kept(b), WC_BTT_MAX_KEPT - 2);
	wc_btt_free(b);
}
END_TEST

/* Past the cap, the oldest still kept goes: a Q that ended, or that a
 * newer Q replaced (which makes it young), is skipped, and so is every
 * one of them once the Qs kept are listed anew by age. */
START_TEST(test_forget_skips_ended_and_replaced)
{
	const uint64_t n = WC_BTT_MAX_KEPT;
	struct wc_btt *b = NULL;
	struct wc_err err;
	struct wc_event e;
	uint64_t i, t = 1000, q2c = 0;

#define ADD(what, sector) do { \
		e = E(t++, (what), (sector) * 8, 4096); \
		ck_assert_int_eq(wc_btt_add(b, &e, &err), 0); \
	} while (0)
#define ENDS(sector, found) do { \
		ADD(WC_TA_COMPLETE, sector); \
		q2c += (found); \
		ck_assert_uint_eq(wc_btt_q2c(b)->n, q2c); \
	} while (0)
	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&b, &err), 0);
	/* Q 0 to n, at sectors 0 to 8n: Q 0 is forgotten. */
	for (i = 0; i <= n; i++)
		ADD(WC_TA_QUEUE, i);
	ck_assert_uint_eq(wc_btt_dropped(b), 1);
	ENDS(0, 0);
	/* Q 1 and 2 end, Q 3 is replaced: five more Qs (n + 1 to n + 5)
	 * forget Q 4, 5 and 6. */
	ENDS(1, 1);
	ENDS(2, 1);
	ADD(WC_TA_QUEUE, 3);
	for (i = n + 1; i <= n + 5; i++)
		ADD(WC_TA_QUEUE, i);
	ck_assert_uint_eq(wc_btt_dropped(b), 4);
	ck_assert_uint_eq(wc_btt_kept(b), n);
	ENDS(6, 0);
	ENDS(3, 1);
	ENDS(7, 1);
	/* n more Qs: two fill the tree, the others forget Q 8 to n, then
	 * Q n + 1 to n + 5, the oldest of a new list. */
	for (i = n + 6; i < 2 * n + 6; i++)
		ADD(WC_TA_QUEUE, i);
	ck_assert_uint_eq(wc_btt_dropped(b), 4 + n - 2);
	ck_assert_uint_eq(wc_btt_kept(b), n);
	ENDS(n, 0);
	ENDS(n + 5, 0);
	ENDS(n + 6, 1);
	ENDS(2 * n + 5, 1);
	ck_assert_uint_eq(wc_btt_kept(b), n - 2);
#undef ENDS
#undef ADD
	wc_btt_free(b);
}
END_TEST

/* Past WC_MAX_DEVICES, Qs on a new device are counted and ignored; the
 * devices kept go on working. */
START_TEST(test_device_cap)
{
	struct wc_btt *b = NULL;
	struct wc_err err;
	struct wc_event e;
	uint64_t i, ndev = 100000;
	int k;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&b, &err), 0);
	for (i = 0; i < ndev; i++)
		for (k = 0; k < 3; k++) {
			unsigned what[3] = { WC_TA_QUEUE, WC_TA_ISSUE,
					     WC_TA_COMPLETE };

			e = E(3 * i + (uint64_t)k, what[k], 8, 4096);
			e.device = (uint32_t)(i * 7919u + 1);
			ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
		}
	ck_assert_uint_eq(wc_btt_q2c(b)->n, WC_MAX_DEVICES);
	ck_assert_uint_eq(wc_btt_d2c(b)->n, WC_MAX_DEVICES);
	ck_assert_uint_eq(wc_btt_ignored(b), ndev - WC_MAX_DEVICES);
	ck_assert_uint_eq(wc_btt_kept(b), 0);
	/* The fifth device seen still counts. */
	e = E(3 * ndev, WC_TA_QUEUE, 16, 4096);
	e.device = 4 * 7919u + 1;
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	e.time = 3 * ndev + 10;
	e.action = WC_TA_COMPLETE | W;
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	ck_assert_uint_eq(wc_btt_q2c(b)->n, WC_MAX_DEVICES + 1);
	ck_assert_uint_eq(wc_btt_q2c(b)->max, 10);
	ck_assert_uint_eq(wc_btt_ignored(b), ndev - WC_MAX_DEVICES);
	ck_assert_int_eq(wc_btt_status(b, &err), 0);
	wc_btt_free(b);
}
END_TEST

START_TEST(test_replaced_counts_as_new)
{
	/* A Q that takes an older one's place is as young as its own time:
	 * the cap forgets the next oldest instead. */
	struct wc_btt *b = NULL;
	struct wc_err err;
	struct wc_event e;
	uint64_t i, n = WC_BTT_MAX_KEPT;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&b, &err), 0);
	for (i = 0; i < n; i++) {
		e = E(i, WC_TA_QUEUE, i * 8, 4096);
		ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	}
	e = E(n, WC_TA_QUEUE, 0, 4096);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	e = E(n + 1, WC_TA_QUEUE, n * 8, 4096);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	ck_assert_uint_eq(wc_btt_dropped(b), 1);
	e = E(n + 2, WC_TA_COMPLETE, 0, 8192);
	ck_assert_int_eq(wc_btt_add(b, &e, &err), 0);
	/* Q 0 (replaced at time n) is found, Q 1 was forgotten. */
	ck_assert_uint_eq(wc_btt_q2c(b)->n, 1);
	ck_assert_uint_eq(wc_btt_q2c(b)->max, 2);
	wc_btt_free(b);
}
END_TEST

START_TEST(test_hidden_behind_larger)
{
	/* As btt's walk does: at a kept Q that starts before the C and ends
	 * after it, the walk stops, so a smaller Q under it in the tree is
	 * missed and stays kept. */
	const struct wc_event evs[] = {
		E(1000, WC_TA_QUEUE, 100, 2048 * 512),
		E(1001, WC_TA_QUEUE, 500, 4096),
		E(1100, WC_TA_ISSUE, 500, 4096),
		E(1200, WC_TA_COMPLETE, 500, 4096),
	};
	struct wc_btt *b = feed(evs, 4);

	ck_assert_uint_eq(wc_btt_q2c(b)->n, 0);
	ck_assert_uint_eq(wc_btt_kept(b), 2);
	wc_btt_free(b);
}
END_TEST

/* A hostile mix (overlapping Qs of every size, some replacing kept ones,
 * Ds and Cs over ranges that cover, cut or miss them, ignored kinds,
 * empty and cgroup-flagged records, two devices), fed one event at a
 * time and by wc_btt_add_batch() in batches of 1 to 97: the same
 * figures, and those of the build before the walks went inline
 * (72f7230), which depend on the walk's order (the erase order shapes
 * the tree, which hides Qs) and on the Qs each walk reaches. */
#define MIX_EVENTS 200000

static void mix(struct wc_event *evs, size_t n)
{
	static const unsigned kinds[] = {
		WC_TA_QUEUE, WC_TA_QUEUE, WC_TA_QUEUE, WC_TA_ISSUE,
		WC_TA_ISSUE, WC_TA_COMPLETE, WC_TA_COMPLETE, WC_TA_GETRQ,
		WC_TA_BACKMERGE,
	};
	uint64_t x = 88172645463325252ull, t = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t r;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x;
		t += r % 1000;
		evs[i] = E(t, kinds[(r >> 10) % 9], (r >> 14) % 4096,
			   (uint32_t)(((r >> 26) % 16 == 0 ? 1 + (r >> 30) % 512 :
				       1 + (r >> 30) % 32) * 512));
		if ((r >> 40) % 64 == 0)
			evs[i].bytes = 0;
		if ((r >> 46) % 128 == 0)
			evs[i].has_cgroup = true;
		if ((r >> 53) % 8 == 0)
			evs[i].device = WC_DEV_MAKE(8u, 16u);
	}
}

START_TEST(test_batches_and_walk_order)
{
	struct wc_event *evs = calloc(MIX_EVENTS, sizeof(*evs));
	struct wc_btt *one = NULL, *bat = NULL;
	struct wc_err err;
	size_t i, k;

	ck_assert_ptr_nonnull(evs);
	mix(evs, MIX_EVENTS);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&one, &err), 0);
	ck_assert_int_eq(wc_btt_open(&bat, &err), 0);
	for (i = 0; i < MIX_EVENTS; i++)
		ck_assert_int_eq(wc_btt_add(one, &evs[i], &err), 0);
	for (i = 0, k = 1; i < MIX_EVENTS; i += k, k = k % 97 + 1)
		ck_assert_int_eq(wc_btt_add_batch(bat, evs + i,
			i + k > MIX_EVENTS ? MIX_EVENTS - i : k), 0);
	ck_assert_int_eq(wc_btt_status(bat, &err), 0);
	ck_assert_mem_eq(wc_btt_q2c(one), wc_btt_q2c(bat),
			 sizeof(struct wc_btt_stat));
	ck_assert_mem_eq(wc_btt_d2c(one), wc_btt_d2c(bat),
			 sizeof(struct wc_btt_stat));
	ck_assert_uint_eq(wc_btt_kept(one), wc_btt_kept(bat));
	ck_assert_uint_eq(wc_btt_q2c(one)->n, 42214);
	ck_assert_uint_eq(wc_btt_q2c(one)->min, 38);
	ck_assert_uint_eq(wc_btt_q2c(one)->max, 84746167);
	ck_assert(wc_btt_q2c(one)->total == 0x1.e6dba6b4p+36);
	ck_assert_uint_eq(wc_btt_d2c(one)->n, 18354);
	ck_assert_uint_eq(wc_btt_d2c(one)->min, 680);
	ck_assert_uint_eq(wc_btt_d2c(one)->max, 43587639);
	ck_assert(wc_btt_d2c(one)->total == 0x1.49bebb2ccp+34);
	ck_assert_uint_eq(wc_btt_kept(one), 2551);
	wc_btt_free(one);
	wc_btt_free(bat);
	free(evs);
}
END_TEST

/* Writeback's shape, with what breaks it now and then: requests of 1 to
 * 12 adjacent 4 KiB bios from two streams, queued up to a depth that
 * changes (from one or two to past LIST_MAX), dispatched and completed a
 * few requests apart, the queue sometimes drained; and a Q overlapping
 * the last request, one over all of a request, one under a sector, a
 * bio queued again longer, one inside it, a C lost or covering half its
 * request. */
#define WB_EVENTS 400000

static size_t writeback(struct wc_event *evs, size_t max)
{
	uint64_t x = 0x2545f4914f6cdd1dull, t = 0, next[2] = { 0, 1ull << 30 };
	uint64_t start[512], left_start[64];
	uint32_t nbios[512], left_bios[64];
	size_t n = 0, pending = 0, left = 0, round = 0;

	while (n + 32 + 2 * 512 + 64 < max) {
		static const size_t depth[] = { 2, 40, 4, 300, 20, 1 };
		size_t target = depth[(round / 4000) % 6], k;
		/* Every other stretch, none of the rare events: lists
		 * longer than their record may be. */
		bool rare = (round++ / 9000) % 2 == 0;
		uint64_t r;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x;
		t += 1 + r % 50;
		if (pending < 512 && (pending < target || r % 3 == 0) &&
		    pending < target + 8) {
			int st = (int)(r >> 20 & 1);
			uint64_t sector = next[st];

			if (rare && r % 151 == 0 && sector >= 4)
				sector -= 4;
			if (rare && r % 167 == 0)
				sector += 16;
			nbios[pending] = (uint32_t)(1 + (r >> 8) % 12);
			start[pending] = sector;
			for (k = 0; k < nbios[pending]; k++)
				evs[n++] = E(t + k, WC_TA_QUEUE, sector + 8 * k,
					     rare && r % 173 == 0 && k == 0 ?
					     256 : 4096);
			if (rare && r % 127 == 0)
				evs[n++] = E(t + k, WC_TA_QUEUE, sector,
					     (uint32_t)(1 + (r >> 40) % 3) * 4096);
			/* One from before the request over all of it: its
			 * bios hide behind it. */
			if (rare && r % 167 == 0)
				evs[n++] = E(t + k, WC_TA_QUEUE, sector - 8,
					     (nbios[pending] + 1) * 4096);
			/* A bio inside the request's first, longer, and its
			 * C: hidden behind it. */
			if (rare && r % 163 == 0) {
				evs[n++] = E(t + k, WC_TA_QUEUE, sector,
					     nbios[pending] * 4096);
				evs[n++] = E(t + k + 1, WC_TA_QUEUE, sector + 2,
					     1024);
				evs[n++] = E(t + k + 2, WC_TA_COMPLETE,
					     sector + 2, 1024);
			}
			next[st] = sector + 8 * nbios[pending] +
				   (r % 5 == 0 ? 64 : 0);
			pending++;
		} else if (pending) {
			size_t i = (r >> 4) % (pending < 4 ? pending : 4);
			uint32_t bytes = nbios[i] * 4096;

			evs[n++] = E(t, WC_TA_ISSUE, start[i], bytes);
			if (!rare || r % 211 != 0)
				evs[n++] = E(t + 1 + r % 7, WC_TA_COMPLETE,
					     start[i], rare && r % 97 == 0 ?
					     bytes / 2 : bytes);
			/* Lost or half: completed at the next drain. */
			if (rare && (r % 211 == 0 || r % 97 == 0) && left < 64) {
				left_start[left] = start[i];
				left_bios[left++] = nbios[i];
			}
			start[i] = start[pending - 1];
			nbios[i] = nbios[pending - 1];
			pending--;
		}
		if (round % 3001 == 0 && n + 2 * (pending + left) < max) {
			for (k = 0; k < pending; k++) {
				evs[n++] = E(t, WC_TA_ISSUE, start[k],
					     nbios[k] * 4096);
				evs[n++] = E(t + 5, WC_TA_COMPLETE, start[k],
					     nbios[k] * 4096);
			}
			for (k = 0; k < left; k++)
				evs[n++] = E(t + 6, WC_TA_COMPLETE, left_start[k],
					     left_bios[k] * 4096);
			/* And what overlaps or was replaced longer: a C over
			 * each stream's every sector (no Q reaches past it, so
			 * none hides) empties the tree. */
			evs[n++] = E(t + 7, WC_TA_COMPLETE, 0, 0xfffffe00u);
			evs[n++] = E(t + 7, WC_TA_COMPLETE, 1ull << 30,
				     0xfffffe00u);
			pending = left = 0;
		}
	}
	return n;
}

/* What the walks find depends on the tree's shape only where Qs overlap:
 * a btt that lists disjoint Qs (wc_btt_open()) and one that keeps the
 * tree at every event (wc_btt_open_tree()) give the same figures, on
 * the hostile mix and on writeback's shape, one event at a time and by
 * batches. */
START_TEST(test_list_and_tree_agree)
{
	struct wc_event *evs = calloc(WB_EVENTS, sizeof(*evs));
	struct wc_btt *list = NULL, *tree = NULL, *bat = NULL;
	struct wc_err err;
	size_t i, k, n, round;

	ck_assert_ptr_nonnull(evs);
	wc_err_clear(&err);
	for (round = 0; round < 2; round++) {
		if (round == 0) {
			n = MIX_EVENTS;
			mix(evs, n);
		} else {
			n = writeback(evs, WB_EVENTS);
		}
		ck_assert_int_eq(wc_btt_open(&list, &err), 0);
		ck_assert_int_eq(wc_btt_open_tree(&tree, &err), 0);
		ck_assert_int_eq(wc_btt_open(&bat, &err), 0);
		for (i = 0; i < n; i++) {
			ck_assert_int_eq(wc_btt_add(list, &evs[i], &err), 0);
			ck_assert_int_eq(wc_btt_add(tree, &evs[i], &err), 0);
		}
		for (i = 0, k = 1; i < n; i += k, k = k % 97 + 1)
			ck_assert_int_eq(wc_btt_add_batch(bat, evs + i,
				i + k > n ? n - i : k), 0);
		ck_assert_int_eq(wc_btt_status(bat, &err), 0);
		ck_assert_mem_eq(wc_btt_q2c(list), wc_btt_q2c(tree),
				 sizeof(struct wc_btt_stat));
		ck_assert_mem_eq(wc_btt_d2c(list), wc_btt_d2c(tree),
				 sizeof(struct wc_btt_stat));
		ck_assert_mem_eq(wc_btt_q2c(bat), wc_btt_q2c(tree),
				 sizeof(struct wc_btt_stat));
		ck_assert_mem_eq(wc_btt_d2c(bat), wc_btt_d2c(tree),
				 sizeof(struct wc_btt_stat));
		ck_assert_uint_eq(wc_btt_kept(list), wc_btt_kept(tree));
		ck_assert_uint_eq(wc_btt_dropped(list), wc_btt_dropped(tree));
		ck_assert_uint_gt(wc_btt_q2c(tree)->n, n / 8);
		wc_btt_free(list);
		wc_btt_free(tree);
		wc_btt_free(bat);
	}
	free(evs);
}
END_TEST

/* Runs evs through a btt that lists (wc_btt_open()) and one that keeps
 * its tree (wc_btt_open_tree()), asserts the same figures from both, and
 * returns the tree's number of Q2C. */
static uint64_t list_and_tree(const struct wc_event *evs, size_t n)
{
	struct wc_btt *list = NULL, *tree = NULL;
	struct wc_err err;
	uint64_t q2c;
	size_t i;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&list, &err), 0);
	ck_assert_int_eq(wc_btt_open_tree(&tree, &err), 0);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(wc_btt_add(list, &evs[i], &err), 0);
		ck_assert_int_eq(wc_btt_add(tree, &evs[i], &err), 0);
	}
	ck_assert_mem_eq(wc_btt_q2c(list), wc_btt_q2c(tree),
			 sizeof(struct wc_btt_stat));
	ck_assert_mem_eq(wc_btt_d2c(list), wc_btt_d2c(tree),
			 sizeof(struct wc_btt_stat));
	ck_assert_uint_eq(wc_btt_kept(list), wc_btt_kept(tree));
	q2c = wc_btt_q2c(tree)->n;
	wc_btt_free(list);
	wc_btt_free(tree);
	return q2c;
}

/* A device listed: a Q and its C (a device is listed only once its tree
 * was empty), then LIST_MIN (16) Qs of 8 sectors, 16 apart, all issued
 * by one D; with bytes, one more Q at sector before the last of them,
 * which the tree has when it would be listed.  Returns the number of
 * events. */
static size_t listed_16(struct wc_event *evs, uint64_t sector, uint32_t bytes)
{
	size_t n = 0, i;

	evs[n++] = E(1, WC_TA_QUEUE, 0, 4096);
	evs[n++] = E(2, WC_TA_COMPLETE, 0, 4096);
	for (i = 0; i < 16; i++) {
		if (i == 15 && bytes)
			evs[n++] = E(24, WC_TA_QUEUE, sector, bytes);
		evs[n++] = E(10 + i, WC_TA_QUEUE, 16 * i, 4096);
	}
	evs[n++] = E(40, WC_TA_ISSUE, 0, 256 * 512);
	return n;
}


/* A list full (256 Qs) whose Qs are then queued again (replaced) must
 * not grow: the Qs that come next, each after the last, go to the tree,
 * not into room the replacements made.  Figures as the tree's. */
START_TEST(test_list_room_bounded)
{
	enum { LISTED = 256, REPLACED = 300, MORE = 100 };
	struct wc_event *evs = calloc(2 + LISTED + REPLACED + MORE + 1,
				      sizeof(*evs));
	struct wc_btt *list = NULL;
	struct wc_err err;
	size_t n = 0, i;
	uint64_t t = 10;

	ck_assert_ptr_nonnull(evs);
	/* A device is listed only once its tree was empty. */
	evs[n++] = E(1, WC_TA_QUEUE, 0, 4096);
	evs[n++] = E(2, WC_TA_COMPLETE, 0, 4096);
	for (i = 0; i < LISTED; i++)
		evs[n++] = E(t++, WC_TA_QUEUE, 16 * i, 4096);
	for (i = 0; i < REPLACED; i++)
		evs[n++] = E(t++, WC_TA_QUEUE, 16 * (i % LISTED), 4096);
	for (i = 0; i < MORE; i++)
		evs[n++] = E(t++, WC_TA_QUEUE, 16 * (LISTED + i), 4096);
	evs[n++] = E(t++, WC_TA_COMPLETE, 0, 16u * (LISTED + MORE) * 512);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_btt_open(&list, &err), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(wc_btt_add(list, &evs[i], &err), 0);
	ck_assert_uint_le(wc_btt_list_room(list), 256);
	ck_assert_uint_gt(wc_btt_list_room(list), 0);
	wc_btt_free(list);
	ck_assert_uint_gt(list_and_tree(evs, n), LISTED);
	free(evs);
}
END_TEST

/* The Qs that make a device's Qs overlap, or not a sector long, must
 * keep the tree, or bring it back from the list: btt's walk can miss a
 * Q behind them that the list would end (a kept Q ending where the C
 * does hides the Qs of its right subtree).  Each is tried after each
 * listed Q X, so that in some of the trees the Q behind X is hidden
 * (counted, to show the test reaches the cases where a list would be
 * wrong), while listed and in the tree about to be listed:
 *  - X queued again longer, over the next Q to its end, and a C over it;
 *  - a Q of 256 bytes (no sector) where X ends, and a C over X; when
 *    listed, also with the next Q ended first, so that it goes into the
 *    list's hole;
 *  - a Q whose end is past the last sector number (it wraps), and a C
 *    over the last listed Q. */
START_TEST(test_list_and_tree_agree_on_the_edges)
{
	struct wc_event evs[40];
	unsigned hidden[7] = { 0 };
	uint64_t x;
	size_t n, k;

	for (x = 0; x < 16; x++) {
		if (x < 15) {
			n = listed_16(evs, 0, 0);
			evs[n++] = E(50, WC_TA_QUEUE, 16 * x, 12288);
			evs[n++] = E(60, WC_TA_COMPLETE, 16 * x, 12288);
			hidden[0] += list_and_tree(evs, n) < 3;

			n = listed_16(evs, 16 * x, 12288);
			evs[n++] = E(60, WC_TA_COMPLETE, 16 * x, 12288);
			hidden[1] += list_and_tree(evs, n) < 3;
		}

		n = listed_16(evs, 0, 0);
		evs[n++] = E(50, WC_TA_QUEUE, 16 * x + 8, 256);
		evs[n++] = E(60, WC_TA_COMPLETE, 16 * x, 4096);
		hidden[2] += list_and_tree(evs, n) < 3;

		n = listed_16(evs, 16 * x + 8, 256);
		evs[n++] = E(60, WC_TA_COMPLETE, 16 * x, 4096);
		hidden[3] += list_and_tree(evs, n) < 3;

		if (x < 15) {
			n = listed_16(evs, 0, 0);
			evs[n++] = E(45, WC_TA_COMPLETE, 16 * x + 16, 4096);
			evs[n++] = E(50, WC_TA_QUEUE, 16 * x + 8, 256);
			evs[n++] = E(60, WC_TA_COMPLETE, 16 * x, 4096);
			hidden[4] += list_and_tree(evs, n) < 4;
		}
	}
	n = listed_16(evs, 0, 0);
	evs[n++] = E(50, WC_TA_QUEUE, UINT64_MAX - 3, 4096);
	evs[n++] = E(60, WC_TA_COMPLETE, 16 * 15, 4096);
	hidden[5] += list_and_tree(evs, n) < 3;

	n = listed_16(evs, UINT64_MAX - 3, 4096);
	evs[n++] = E(60, WC_TA_COMPLETE, 16 * 15, 4096);
	hidden[6] += list_and_tree(evs, n) < 3;

	for (k = 0; k < 7; k++)
		ck_assert_msg(hidden[k] > 0, "case %zu never hides a Q", k);
}
END_TEST

static Suite *btt_suite(void)
{
	Suite *s = suite_create("btt");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_merged_bios_inherit);
	tcase_add_test(tc, test_duplicate_start_replaces);
	tcase_add_test(tc, test_tree_many);
	tcase_add_test(tc, test_replace_anywhere);
	tcase_add_test(tc, test_ignored_records);
	tcase_add_test(tc, test_tdelta_floor_and_requeue);
	tcase_add_test(tc, test_partial_cover);
	tcase_add_test(tc, test_lost_completions_bounded);
	tcase_add_test(tc, test_forget_skips_ended_and_replaced);
	tcase_add_test(tc, test_replaced_counts_as_new);
	tcase_add_test(tc, test_device_cap);
	tcase_add_test(tc, test_hidden_behind_larger);
	tcase_add_test(tc, test_batches_and_walk_order);
	tcase_add_test(tc, test_list_and_tree_agree);
	tcase_add_test(tc, test_list_and_tree_agree_on_the_edges);
	tcase_add_test(tc, test_list_room_bounded);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(btt_suite)
