/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_platterlog.c - unit tests of analyze/lib/disk/platterlog.c: records
 * survive encode and decode, hostile records fail with their field's
 * offset, and a power cut lands what the header says: whole records that
 * ended, none that had not started, a prefix of sectors (sector-atomic)
 * or all or nothing per media write (whole-write atomic) of one in flight.
 */
#include <check.h>
#include <stddef.h>
#include <string.h>

#include "check_common.h"
#include "disk/platterlog.h"

#define CAP (1024ull * 1024 * 1024)

START_TEST(round_trip)
{
	uint8_t h[WC_PLATTER_HEADER_BYTES], b[WC_PLATTER_REC_BYTES];
	struct wc_platter_rec r = { WC_PLATTER_DESTAGE, 12345, 77, 1000, 2000, 3000 }, o;
	struct wc_err err;
	uint64_t cap = 0;

	wc_err_clear(&err);
	wc_platter_header_encode(h, CAP);
	ck_assert_int_eq(wc_platter_header_decode(h, sizeof(h), &cap, &err), 0);
	ck_assert_uint_eq(cap, CAP);
	ck_assert(memcmp(h, "WCPLATR1", 8) == 0);
	wc_platter_rec_encode(&r, b);
	ck_assert_int_eq(wc_platter_rec_decode(b, sizeof(b), CAP, &o, &err), 0);
	ck_assert_int_eq(o.kind, r.kind);
	ck_assert_uint_eq(o.sector, r.sector);
	ck_assert_uint_eq(o.sectors, r.sectors);
	ck_assert_uint_eq(o.start_ns, r.start_ns);
	ck_assert_uint_eq(o.end_ns, r.end_ns);
	ck_assert_uint_eq(o.atom_end_ns, r.atom_end_ns);
	/* little-endian at the layout's offsets */
	ck_assert_uint_eq(b[offsetof(struct wc_platter_rec_layout, sector)], 12345 & 0xff);
	ck_assert_uint_eq(b[offsetof(struct wc_platter_rec_layout, sector) + 1], 12345 >> 8);
	ck_assert(wc_platter_has_data(WC_PLATTER_DESTAGE));
	ck_assert(wc_platter_has_data(WC_PLATTER_WRITE));
	ck_assert(!wc_platter_has_data(WC_PLATTER_DISCARD));
	ck_assert(!wc_platter_has_data(WC_PLATTER_FLUSH));
	ck_assert_str_eq(wc_platter_kind_name(WC_PLATTER_FLUSH), "flush");
}
END_TEST

static void expect_bad(const struct wc_platter_rec *r, size_t n, size_t field)
{
	uint8_t b[WC_PLATTER_REC_BYTES];
	struct wc_platter_rec o;
	struct wc_err err;

	wc_err_clear(&err);
	wc_platter_rec_encode(r, b);
	ck_assert_int_eq(wc_platter_rec_decode(b, n, CAP, &o, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	ck_assert_uint_eq(err.offset, field);
}

START_TEST(hostile)
{
	uint8_t h[WC_PLATTER_HEADER_BYTES], b[WC_PLATTER_REC_BYTES];
	struct wc_platter_rec ok = { WC_PLATTER_WRITE, 0, 8, 10, 20, 20 }, r;
	struct wc_err err;
	uint64_t cap;

	expect_bad(&ok, WC_PLATTER_REC_BYTES - 1, 0);
	r = ok, r.kind = (enum wc_platter_kind)9;
	expect_bad(&r, sizeof(b), offsetof(struct wc_platter_rec_layout, kind));
	r = ok, r.kind = (enum wc_platter_kind)0;
	expect_bad(&r, sizeof(b), offsetof(struct wc_platter_rec_layout, kind));
	r = ok, r.sectors = WC_PLATTER_MAX_SECTORS + 1;
	expect_bad(&r, sizeof(b), offsetof(struct wc_platter_rec_layout, sectors));
	r = ok, r.sector = CAP / 512 - 7;		/* one sector too far */
	expect_bad(&r, sizeof(b), offsetof(struct wc_platter_rec_layout, sector));
	r = ok, r.sector = UINT64_MAX - 2;		/* sector + sectors wraps */
	expect_bad(&r, sizeof(b), offsetof(struct wc_platter_rec_layout, sector));
	r = ok, r.end_ns = 5;
	expect_bad(&r, sizeof(b), offsetof(struct wc_platter_rec_layout, start_ns));
	r = ok, r.atom_end_ns = 19;
	expect_bad(&r, sizeof(b), offsetof(struct wc_platter_rec_layout, start_ns));
	r = ok, r.kind = WC_PLATTER_FLUSH;
	expect_bad(&r, sizeof(b), offsetof(struct wc_platter_rec_layout, sector));
	r = ok, r.sector = CAP / 512 - 8;		/* the last 8 sectors: fine */
	wc_err_clear(&err);
	wc_platter_rec_encode(&r, b);
	ck_assert_int_eq(wc_platter_rec_decode(b, sizeof(b), CAP, &r, &err), 0);

	wc_platter_header_encode(h, CAP);
	ck_assert_int_eq(wc_platter_header_decode(h, sizeof(h) - 1, &cap, &err), -1);
	h[0] = 'X';
	wc_err_clear(&err);
	ck_assert_int_eq(wc_platter_header_decode(h, sizeof(h), &cap, &err), -1);
	ck_assert_uint_eq(err.offset, 0);
	wc_platter_header_encode(h, 1000);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_platter_header_decode(h, sizeof(h), &cap, &err), -1);
	ck_assert_uint_eq(err.offset, offsetof(struct wc_platter_header_layout, capacity));
}
END_TEST

START_TEST(cuts)
{
	/* 100 sectors written from 1000 to 2000 ns, part of a media write
	 * ending at 3000 ns (a destage run before sectors no longer cached) */
	struct wc_platter_rec r = { WC_PLATTER_DESTAGE, 40, 100, 1000, 2000, 3000 };
	struct wc_platter_rec f = { WC_PLATTER_FLUSH, 0, 0, 500, 900, 900 };
	struct wc_platter_rec d = { WC_PLATTER_DISCARD, 0, 8, 700, 700, 700 };

	ck_assert_uint_eq(wc_platter_landed(&r, 0, WC_TEAR_SECTOR), 0);
	ck_assert_uint_eq(wc_platter_landed(&r, 1000, WC_TEAR_SECTOR), 0);
	ck_assert_uint_eq(wc_platter_landed(&r, 1010, WC_TEAR_SECTOR), 1);
	ck_assert_uint_eq(wc_platter_landed(&r, 1009, WC_TEAR_SECTOR), 0);
	ck_assert_uint_eq(wc_platter_landed(&r, 1500, WC_TEAR_SECTOR), 50);
	ck_assert_uint_eq(wc_platter_landed(&r, 1999, WC_TEAR_SECTOR), 99);
	ck_assert_uint_eq(wc_platter_landed(&r, 2000, WC_TEAR_SECTOR), 100);
	ck_assert_uint_eq(wc_platter_landed(&r, 2500, WC_TEAR_SECTOR), 100);
	/* whole-write atomic: nothing until the media write it is part of ended */
	ck_assert_uint_eq(wc_platter_landed(&r, 1500, WC_TEAR_WRITE), 0);
	ck_assert_uint_eq(wc_platter_landed(&r, 2500, WC_TEAR_WRITE), 0);
	ck_assert_uint_eq(wc_platter_landed(&r, 2999, WC_TEAR_WRITE), 0);
	ck_assert_uint_eq(wc_platter_landed(&r, 3000, WC_TEAR_WRITE), 100);
	/* a flush lands nothing; an instant discard all at its time */
	ck_assert_uint_eq(wc_platter_landed(&f, 10000, WC_TEAR_SECTOR), 0);
	ck_assert_uint_eq(wc_platter_landed(&d, 699, WC_TEAR_SECTOR), 0);
	ck_assert_uint_eq(wc_platter_landed(&d, 700, WC_TEAR_SECTOR), 8);
	ck_assert_uint_eq(wc_platter_landed(&d, 700, WC_TEAR_WRITE), 8);
}
END_TEST

static Suite *platterlog_suite(void)
{
	Suite *s = suite_create("platterlog");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, hostile);
	tcase_add_test(tc, cuts);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(platterlog_suite)
