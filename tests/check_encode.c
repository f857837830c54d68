/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_encode.c - unit tests of analyze/lib/format/encode.c: the bytes of a v7
 * and a v8 record laid out here by hand (so the encoder is not only
 * checked against the decoder it mirrors), round trips through the
 * decoder in both versions and byte orders with cgroup ids and payloads,
 * the payload writers, and every record it must refuse.
 */
#include <byteswap.h>
#include <check.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "input/decode_test.h"
#include "format/encode.h"

static const struct wc_event sample = {
	.sequence = 42, .time = 123456789012ull, .sector = 987654321ull,
	.bytes = 8192,
	.action = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE),
	.pid = 777, .device = WC_DEV_MAKE(8, 16), .cpu = 1, .error = 5,
};

/* Little-endian bytes of v, n bytes wide, at p. */
static void le(unsigned char *p, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Big-endian bytes of v, n bytes wide, at p. */
static void be(unsigned char *p, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		p[n - 1 - i] = (unsigned char)(v >> (8 * i));
}

/* The record of sample with a 3-byte payload, as the uapi header lays it
 * out, in little- (big = 0) or big-endian (big = 1). */
static size_t expected(unsigned char *p, unsigned version, int big)
{
	void (*put)(unsigned char *, uint64_t, unsigned) = big ? be : le;
	size_t h = version == 7 ? 48 : 64;

	memset(p, 0, h);
	put(p, WC_BLK_MAGIC | version, 4);
	put(p + 4, 42, 4);
	put(p + 8, 123456789012ull, 8);
	put(p + 16, 987654321ull, 8);
	put(p + 24, 8192, 4);
	if (version == 7) {
		put(p + 28, sample.action, 4);
		put(p + 32, 777, 4);
		put(p + 36, WC_DEV_MAKE(8, 16), 4);
		put(p + 40, 1, 4);
		put(p + 44, 5, 2);
		put(p + 46, 3, 2);
	} else {
		put(p + 28, 777, 4);
		put(p + 32, sample.action, 8);
		put(p + 40, WC_DEV_MAKE(8, 16), 4);
		put(p + 44, 1, 4);
		put(p + 48, 5, 2);
		put(p + 50, 3, 2);
	}
	memcpy(p + h, "xyz", 3);
	return h + 3;
}

static void check_layout(unsigned version, int big)
{
	unsigned char want[128], got[128];
	struct wc_event ev = sample;
	bool swapped = big != (__BYTE_ORDER == __BIG_ENDIAN);
	struct wc_err err;
	size_t n = expected(want, version, big);

	ev.pdu = (const unsigned char *)"xyz";
	ev.pdu_len = 3;
	memset(got, 0xee, sizeof(got));
	wc_err_clear(&err);
	ck_assert_int_eq(wc_blk_encode(got, sizeof(got), &ev, version, swapped,
				       &err), (ssize_t)n);
	ck_assert_uint_eq(wc_blk_encoded_size(&ev, version), n);
	ck_assert_mem_eq(got, want, n);
	/* nothing written past the record */
	ck_assert_uint_eq(got[n], 0xee);
}

START_TEST(test_layout_v7_le) { check_layout(7, 0); }
END_TEST
START_TEST(test_layout_v7_be) { check_layout(7, 1); }
END_TEST
START_TEST(test_layout_v8_le) { check_layout(8, 0); }
END_TEST
START_TEST(test_layout_v8_be) { check_layout(8, 1); }
END_TEST

static char path[64];

/* Encodes evs[0..n) into a file and decodes them back, field by field. */
static void roundtrip(const struct wc_event *evs, size_t n, unsigned version,
		      bool swapped)
{
	unsigned char rec[256];
	struct wc_decoder *dec = NULL;
	struct wc_event ev;
	struct wc_err err;
	size_t i;
	FILE *fp;
	int fd;

	wc_check_template(path, sizeof(path), "check_encode");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "wb");
	ck_assert_ptr_nonnull(fp);
	wc_err_clear(&err);
	for (i = 0; i < n; i++) {
		ssize_t len = wc_blk_encode(rec, sizeof(rec), &evs[i], version,
					    swapped, &err);

		ck_assert_int_gt(len, 0);
		ck_assert_uint_eq(fwrite(rec, 1, (size_t)len, fp), (size_t)len);
	}
	ck_assert_int_eq(fclose(fp), 0);

	ck_assert_int_eq(wc_decoder_open_file(&dec, path, 2, &err), 0);
	unlink(path);
	for (i = 0; i < n; i++) {
		const struct wc_event *w = &evs[i];

		ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 1);
		ck_assert_int_eq(wc_decoder_swapped(dec), swapped);
		ck_assert_uint_eq(ev.version, version);
		ck_assert_uint_eq(ev.stream, 2);
		ck_assert_uint_eq(ev.sequence, w->sequence);
		ck_assert_uint_eq(ev.time, w->time);
		ck_assert_uint_eq(ev.sector, w->sector);
		ck_assert_uint_eq(ev.bytes, w->bytes);
		ck_assert_uint_eq(ev.action, w->action);
		ck_assert_uint_eq(ev.pid, w->pid);
		ck_assert_uint_eq(ev.device, w->device);
		ck_assert_uint_eq(ev.cpu, w->cpu);
		ck_assert_uint_eq(ev.error, w->error);
		ck_assert_int_eq(ev.has_cgroup, w->has_cgroup);
		if (w->has_cgroup)
			ck_assert_uint_eq(ev.cgroup, w->cgroup);
		ck_assert_uint_eq(ev.pdu_len, w->pdu_len);
		if (w->pdu_len)
			ck_assert_mem_eq(ev.pdu, w->pdu, w->pdu_len);
	}
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 0);
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	wc_decoder_free(dec);
}

static void roundtrip_all(unsigned version, bool swapped)
{
	unsigned char remap[16], split[8], ts[8];
	struct wc_event evs[6];
	size_t i;

	for (i = 0; i < 6; i++) {
		evs[i] = sample;
		evs[i].time += i;
	}
	evs[1].pdu = (const unsigned char *)"abcdefgh";
	evs[1].pdu_len = 8;
	evs[2].has_cgroup = true;
	evs[2].cgroup = 0x1122334455667788ull;
	evs[2].pdu = (const unsigned char *)"tail";
	evs[2].pdu_len = 4;
	wc_blk_encode_remap(remap, WC_DEV_MAKE(8, 1), WC_DEV_MAKE(8, 0), 63);
	evs[3].action = WC_TA_REMAP | WC_TC(WC_TC_WRITE);
	evs[3].pdu = remap;
	evs[3].pdu_len = 16;
	wc_blk_encode_be64(split, 0xa0b0c0d0e0f00102ull);
	evs[4].action = WC_TA_SPLIT | WC_TC(WC_TC_WRITE);
	evs[4].pdu = split;
	evs[4].pdu_len = 8;
	wc_blk_encode_timestamp(ts, 1700000000u, 5u, swapped);
	evs[5].action = WC_TC(WC_TC_NOTIFY) | WC_TN_TIMESTAMP;
	evs[5].sequence = 0;
	evs[5].pdu = ts;
	evs[5].pdu_len = 8;
	if (version == 8)
		evs[0].action |= WC_TC_ZONE_RESET | WC_TC_ZONE_CLOSE;
	roundtrip(evs, 6, version, swapped);
}

START_TEST(test_roundtrip_v7_native) { roundtrip_all(7, false); }
END_TEST
START_TEST(test_roundtrip_v7_swapped) { roundtrip_all(7, true); }
END_TEST
START_TEST(test_roundtrip_v8_native) { roundtrip_all(8, false); }
END_TEST
START_TEST(test_roundtrip_v8_swapped) { roundtrip_all(8, true); }
END_TEST

/* The payload writers give what decode.h's payload readers read back. */
START_TEST(test_payloads)
{
	unsigned char remap[16], be8[8], ts[8];
	struct wc_event ev = sample;
	uint32_t from, to, sec, nsec;
	uint64_t sector, v;

	wc_blk_encode_remap(remap, 0x01020304u, 0x05060708u, 0x1112131415161718ull);
	ck_assert_mem_eq(remap, "\x01\x02\x03\x04\x05\x06\x07\x08"
			 "\x11\x12\x13\x14\x15\x16\x17\x18", 16);
	ev.pdu = remap;
	ev.pdu_len = 16;
	ck_assert(wc_event_remap(&ev, &from, &to, &sector));
	ck_assert_uint_eq(from, 0x01020304u);
	ck_assert_uint_eq(to, 0x05060708u);
	ck_assert_uint_eq(sector, 0x1112131415161718ull);

	wc_blk_encode_be64(be8, 0x0102030405060708ull);
	ck_assert_mem_eq(be8, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	ev.pdu = be8;
	ev.pdu_len = 8;
	ck_assert(wc_event_pdu_be64(&ev, &v));
	ck_assert_uint_eq(v, 0x0102030405060708ull);

	wc_blk_encode_timestamp(ts, 0x01020304u, 5u, true);
	ev.pdu = ts;
	ck_assert(wc_event_timestamp(&ev, true, &sec, &nsec));
	ck_assert_uint_eq(sec, 0x01020304u);
	ck_assert_uint_eq(nsec, 5u);
	ck_assert(wc_event_timestamp(&ev, false, &sec, &nsec));
	ck_assert_uint_eq(sec, bswap_32(0x01020304u));
}
END_TEST

static void expect_refused(const struct wc_event *ev, unsigned version,
			   size_t size, const char *why)
{
	static unsigned char buf[WC_BLK_RECORD_MAX + 16];
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_blk_encode(buf, size, ev, version, false, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	ck_assert_msg(strstr(err.msg, why) != NULL, "message \"%s\" lacks \"%s\"",
		      err.msg, why);
	/* a NULL err is allowed */
	ck_assert_int_eq(wc_blk_encode(buf, size, ev, version, false, NULL), -1);
}

START_TEST(test_refused)
{
	static unsigned char big[65535];
	struct wc_event ev = sample;

	expect_refused(&ev, 9, 256, "unknown version 9");
	ck_assert_uint_eq(wc_blk_encoded_size(&ev, 6), 0);
	ev.action |= WC_TC_ZONE_APPEND;
	expect_refused(&ev, 7, 256, "does not fit a version 7 record");
	ev = sample;
	expect_refused(&ev, 7, 47, "record of 48 bytes in a buffer of 47");
	expect_refused(&ev, 8, 63, "record of 64 bytes in a buffer of 63");
	ev.pdu = big;
	ev.pdu_len = 65535;
	ev.has_cgroup = true;
	expect_refused(&ev, 8, sizeof(big) + 128, "over the 65535 of pdu_len");
	/* the largest record there is fits WC_BLK_RECORD_MAX */
	ev.has_cgroup = false;
	ck_assert_uint_eq(wc_blk_encoded_size(&ev, 8), WC_BLK_RECORD_MAX);
}
END_TEST

static Suite *encode_suite(void)
{
	Suite *s = suite_create("encode");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_layout_v7_le);
	tcase_add_test(tc, test_layout_v7_be);
	tcase_add_test(tc, test_layout_v8_le);
	tcase_add_test(tc, test_layout_v8_be);
	tcase_add_test(tc, test_roundtrip_v7_native);
	tcase_add_test(tc, test_roundtrip_v7_swapped);
	tcase_add_test(tc, test_roundtrip_v8_native);
	tcase_add_test(tc, test_roundtrip_v8_swapped);
	tcase_add_test(tc, test_payloads);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(encode_suite)
