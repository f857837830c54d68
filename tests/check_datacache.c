/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_datacache.c - unit tests of analyze/lib/disk/datacache.c.
 *
 * The cache is checked against a plain model (an array with one optional
 * sector per slot of a small disk) over long random sequences of put,
 * drop, overlay and take, with many overwrites and the cache kept near
 * full, so that the index's deletions by backward shift are exercised
 * where runs wrap; plus the edges the header promises: a put that does not
 * fit changes nothing, unaligned calls, a drop wider than the index.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "disk/datacache.h"

#define S WC_DATACACHE_SECTOR
#define DISK 512			/* sectors of the modelled disk */

struct model {
	unsigned char data[DISK][S];
	int held[DISK];
	uint64_t n;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct wc_datacache *open_cache(uint64_t bytes)
{
	struct wc_datacache *c = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_msg(wc_datacache_open(&c, bytes, &err) == 0, "%s", err.msg);
	return c;
}

static void fill(unsigned char *b, uint64_t n, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 9));
}

START_TEST(random_against_model)
{
	static struct model m;
	static unsigned char buf[64 * S], want[64 * S];
	uint64_t seed = 0x5eed, cap = 96, step, s, n, k, from, run, got, expect;
	struct wc_datacache *c = open_cache(cap * S);

	memset(&m, 0, sizeof(m));
	for (step = 0; step < 200000; step++) {
		uint64_t op = rnd(&seed) % 10;

		s = rnd(&seed) % DISK;
		n = 1 + rnd(&seed) % 32;
		if (s + n > DISK)
			n = DISK - s;
		if (op < 5) {			/* put */
			uint64_t fresh = 0;

			for (k = 0; k < n; k++)
				fresh += !m.held[s + k];
			fill(buf, n * S, step);
			if (m.n + fresh > cap) {
				ck_assert_int_eq(wc_datacache_put(c, s * S, buf, n * S), -1);
				continue;
			}
			ck_assert_int_eq(wc_datacache_put(c, s * S, buf, n * S), 0);
			for (k = 0; k < n; k++) {
				memcpy(m.data[s + k], buf + k * S, S);
				m.n += !m.held[s + k];
				m.held[s + k] = 1;
			}
		} else if (op < 6) {		/* drop */
			wc_datacache_drop(c, s * S, n * S);
			for (k = 0; k < n; k++) {
				m.n -= m.held[s + k];
				m.held[s + k] = 0;
			}
		} else if (op < 8) {		/* overlay */
			memset(buf, 0xee, n * S);
			memset(want, 0xee, n * S);
			expect = 0;
			for (k = 0; k < n; k++)
				if (m.held[s + k]) {
					memcpy(want + k * S, m.data[s + k], S);
					expect++;
				}
			ck_assert_uint_eq(wc_datacache_overlay(c, s * S, buf, n * S), expect);
			ck_assert(memcmp(buf, want, n * S) == 0);
		} else {			/* take everything held in the range */
			from = s;
			while ((got = wc_datacache_take(c, &from, s + n, buf, 5, &run)) > 0) {
				ck_assert_uint_ge(run, s);
				ck_assert_uint_le(run + got, s + n);
				ck_assert_uint_eq(from, run + got);
				for (k = 0; k < got; k++) {
					ck_assert(m.held[run + k]);
					ck_assert(memcmp(buf + k * S, m.data[run + k], S) == 0);
					m.held[run + k] = 0;
					m.n--;
				}
				/* a run is maximal unless cut at 5 sectors */
				ck_assert(got == 5 || run + got == s + n || !m.held[run + got]);
			}
			ck_assert_uint_eq(from, s + n);
			for (k = s; k < s + n; k++)
				ck_assert(!m.held[k]);
		}
		ck_assert_uint_eq(wc_datacache_bytes(c), m.n * S);
	}
	wc_datacache_free(c);
}
END_TEST

START_TEST(edges)
{
	static unsigned char buf[8 * S];
	struct wc_datacache *c = open_cache(4 * S + 100);	/* 4 sectors */
	uint64_t from, run;

	fill(buf, sizeof(buf), 1);
	ck_assert_int_eq(wc_datacache_put(c, 1, buf, S), -1);		/* unaligned */
	ck_assert_int_eq(wc_datacache_put(c, 0, buf, S + 1), -1);
	ck_assert_int_eq(wc_datacache_put(c, 0, buf, 5 * S), -1);	/* too many */
	ck_assert_uint_eq(wc_datacache_bytes(c), 0);
	ck_assert_int_eq(wc_datacache_put(c, 10 * S, buf, 4 * S), 0);
	/* full: an overwrite of held sectors still fits, one new does not */
	ck_assert_int_eq(wc_datacache_put(c, 11 * S, buf, 2 * S), 0);
	ck_assert_int_eq(wc_datacache_put(c, 12 * S, buf, 3 * S), -1);
	ck_assert_uint_eq(wc_datacache_bytes(c), 4 * S);
	/* a drop with partial sectors at the ends keeps those sectors */
	wc_datacache_drop(c, 10 * S + 1, 2 * S);
	ck_assert_uint_eq(wc_datacache_bytes(c), 3 * S);
	/* a drop wider than the index (8 slots) visits what is held */
	wc_datacache_drop(c, 0, 1000 * S);
	ck_assert_uint_eq(wc_datacache_bytes(c), 0);
	from = 0;
	ck_assert_uint_eq(wc_datacache_take(c, &from, 100, buf, 8, &run), 0);
	ck_assert_uint_eq(from, 100);
	wc_datacache_free(c);
	wc_datacache_free(NULL);
	/* holding nothing: every put fails, every other call is empty */
	c = open_cache(0);
	ck_assert_int_eq(wc_datacache_put(c, 0, buf, S), -1);
	ck_assert_int_eq(wc_datacache_put(c, 0, buf, 0), 0);
	ck_assert_uint_eq(wc_datacache_overlay(c, 0, buf, S), 0);
	wc_datacache_free(c);
}
END_TEST

/* A disk-sized cache (16 MiB, hdd7200's) filled by scattered sectors and
 * emptied by one wide take, as a flush destages it. */
START_TEST(full_cache_flush)
{
	uint64_t cap = 16 * 1024 * 1024 / S, k, from = 0, run, got, total = 0;
	static unsigned char buf[2048 * S];
	struct wc_datacache *c = open_cache(cap * S);

	for (k = 0; k < cap; k++) {
		fill(buf, S, k);
		ck_assert_int_eq(wc_datacache_put(c, k * 3 * S, buf, S), 0);
	}
	ck_assert_int_eq(wc_datacache_put(c, 1 * S, buf, S), -1);
	while ((got = wc_datacache_take(c, &from, cap * 3, buf, 2048, &run)) > 0) {
		unsigned char want[S];

		ck_assert_uint_eq(got, 1);
		ck_assert_uint_eq(run % 3, 0);
		fill(want, S, run / 3);
		ck_assert(memcmp(buf, want, S) == 0);
		total++;
	}
	ck_assert_uint_eq(total, cap);
	ck_assert_uint_eq(wc_datacache_bytes(c), 0);
	wc_datacache_free(c);
}
END_TEST

static Suite *datacache_suite(void)
{
	Suite *s = suite_create("datacache");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, random_against_model);
	tcase_add_test(tc, edges);
	tcase_add_test(tc, full_cache_flush);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(datacache_suite)
