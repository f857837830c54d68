/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_decode.c - unit tests of analyze/lib/input/decode.c on records written
 * here with wc_blk_encode() (whose bytes check_encode.c holds against the
 * uapi layout, and raw bytes where a record must be bad): v7 and v8, both
 * byte orders,
 * cgroup ids, payload readers, and every way a file can be bad (with the
 * offset and reason the message must give).
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

struct rec {
	uint32_t sequence;
	uint64_t time, sector;
	uint32_t bytes;
	uint64_t action;
	uint32_t pid, device, cpu;
	uint16_t error;
	const void *pdu;
	uint16_t pdu_len;
};

/* Appends one record, version 7 or 8, native (sw 0) or swapped. */
static void put(FILE *fp, const struct rec *r, int version, int sw)
{
	unsigned char buf[256];
	const struct wc_event ev = {
		.sequence = r->sequence, .time = r->time, .sector = r->sector,
		.bytes = r->bytes, .action = r->action, .pid = r->pid,
		.device = r->device, .cpu = r->cpu, .error = r->error,
		.pdu = r->pdu, .pdu_len = r->pdu_len,
	};
	ssize_t n = wc_blk_encode(buf, sizeof(buf), &ev, (unsigned)version,
				  sw, NULL);

	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(fwrite(buf, 1, (size_t)n, fp), (size_t)n);
}

static char path[64];

static FILE *tmp_open(void)
{
	int fd;

	wc_check_template(path, sizeof(path), "check_decode");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	return fdopen(fd, "wb");
}

/* A decoder of the file at path; keep: the file stays for another. */
static struct wc_decoder *dec_open_keep(bool keep)
{
	struct wc_source *src = NULL;
	struct wc_decoder *dec = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_file(&src, path, 0, &err), 0);
	ck_assert_int_eq(wc_decoder_open(&dec, src, 3, &err), 0);
	if (!keep)
		unlink(path);
	return dec;
}

static struct wc_decoder *dec_open(void)
{
	return dec_open_keep(false);
}

static const struct rec sample = {
	.sequence = 42, .time = 123456789012ull, .sector = 987654321ull,
	.bytes = 8192, .action = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE),
	.pid = 777, .device = WC_DEV_MAKE(8, 16), .cpu = 1, .error = 0,
};

static void check_sample(const struct wc_event *ev, int version)
{
	ck_assert_uint_eq(ev->sequence, 42);
	ck_assert_uint_eq(ev->time, 123456789012ull);
	ck_assert_uint_eq(ev->sector, 987654321ull);
	ck_assert_uint_eq(ev->bytes, 8192);
	ck_assert_uint_eq(ev->action, sample.action);
	ck_assert_uint_eq(ev->pid, 777);
	ck_assert_uint_eq(ev->device, WC_DEV_MAKE(8, 16));
	ck_assert_uint_eq(ev->cpu, 1);
	ck_assert_uint_eq(ev->version, version);
	ck_assert_uint_eq(ev->stream, 3);
	ck_assert(!ev->has_cgroup);
}

/* Writes sample then a record with a payload; decodes both. */
static void roundtrip(int version, int sw)
{
	struct rec r2 = sample;
	struct wc_decoder *dec;
	struct wc_event ev;
	struct wc_err err;
	FILE *fp = tmp_open();

	r2.pdu = "abcdefgh";
	r2.pdu_len = 8;
	r2.time += 5;
	put(fp, &sample, version, sw);
	put(fp, &r2, version, sw);
	fclose(fp);
	dec = dec_open();
	wc_err_clear(&err);
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 1);
	check_sample(&ev, version);
	ck_assert_int_eq(wc_decoder_swapped(dec), sw);
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 1);
	ck_assert_uint_eq(ev.pdu_len, 8);
	ck_assert_mem_eq(ev.pdu, "abcdefgh", 8);
	ck_assert_uint_eq(wc_decoder_offset(dec), version == 7 ? 48 : 64);
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 0);
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	wc_decoder_free(dec);
}

START_TEST(test_v7_native) { roundtrip(7, 0); }
END_TEST
START_TEST(test_v7_swapped) { roundtrip(7, 1); }
END_TEST
START_TEST(test_v8_native) { roundtrip(8, 0); }
END_TEST
START_TEST(test_v8_swapped) { roundtrip(8, 1); }
END_TEST

START_TEST(test_v8_wide_action)
{
	struct rec r = sample;
	struct wc_decoder *dec;
	struct wc_event ev;
	struct wc_err err;
	FILE *fp = tmp_open();

	r.action = WC_TA_COMPLETE | WC_TC(WC_TC_WRITE) | WC_TC_ZONE_APPEND;
	put(fp, &r, 8, 1);
	fclose(fp);
	dec = dec_open();
	wc_err_clear(&err);
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 1);
	ck_assert_uint_eq(ev.action, r.action);
	wc_decoder_free(dec);
}
END_TEST

START_TEST(test_cgroup)
{
	unsigned char pdu[16];
	uint64_t id = 0x1122334455667788ull, be = htobe64(99);
	struct rec r = sample;
	struct wc_decoder *dec;
	struct wc_event ev;
	struct wc_err err;
	uint64_t v;
	FILE *fp = tmp_open();

	/* The id is in the file's byte order, the unplug count after it is
	 * big-endian. */
	id = bswap_64(id);
	memcpy(pdu, &id, 8);
	memcpy(pdu + 8, &be, 8);
	r.action = WC_TA_UNPLUG_IO | WC_TA_CGROUP | WC_TC(WC_TC_QUEUE);
	r.pdu = pdu;
	r.pdu_len = 16;
	put(fp, &r, 7, 1);
	fclose(fp);
	dec = dec_open();
	wc_err_clear(&err);
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 1);
	ck_assert(ev.has_cgroup);
	ck_assert_uint_eq(ev.cgroup, 0x1122334455667788ull);
	ck_assert_uint_eq(ev.action, WC_TA_UNPLUG_IO | WC_TC(WC_TC_QUEUE));
	ck_assert_uint_eq(ev.pdu_len, 8);
	ck_assert(wc_event_pdu_be64(&ev, &v));
	ck_assert_uint_eq(v, 99);
	wc_decoder_free(dec);
}
END_TEST

/* What one event must hold, for comparing two ways of decoding. */
struct seen {
	struct wc_event ev;
	unsigned char pdu[64];
};

static void seen_eq(const struct wc_event *ev, const struct seen *w,
		    unsigned i)
{
	ck_assert_msg(ev->time == w->ev.time && ev->sector == w->ev.sector &&
		      ev->action == w->ev.action && ev->cgroup == w->ev.cgroup &&
		      ev->sequence == w->ev.sequence && ev->bytes == w->ev.bytes &&
		      ev->pid == w->ev.pid && ev->device == w->ev.device &&
		      ev->cpu == w->ev.cpu && ev->error == w->ev.error &&
		      ev->pdu_len == w->ev.pdu_len &&
		      ev->version == w->ev.version &&
		      ev->has_cgroup == w->ev.has_cgroup &&
		      ev->stream == w->ev.stream, "event %u differs", i);
	ck_assert_msg(memcmp(ev->pdu, w->pdu, ev->pdu_len) == 0,
		      "payload of event %u differs", i);
}

/* 2,999 records of every kind for run_matches(), then a bad one. */
static void write_run_file(int version, int sw)
{
	unsigned char pdu[40];
	unsigned i;
	FILE *fp = tmp_open();

	for (i = 0; i < 2999; i++) {
		struct rec rc = sample;

		rc.time = 1000 + i / 3;
		rc.sequence = i;
		rc.error = (uint16_t)(i % 5);
		rc.cpu = 70000 + i;
		rc.pid = 3 * i;
		rc.sector = (uint64_t)i << 33 | i;
		rc.bytes = 512 * i;
		rc.pdu = pdu;
		rc.pdu_len = (uint16_t)(i % 5 == 0 ? 40 : i % 3 ? 0 : 8);
		memset(pdu, (int)(i & 0xff), sizeof(pdu));
		if (i % 7 == 0 && rc.pdu_len >= 8)
			rc.action |= WC_TA_CGROUP;
		/* Process notifies and messages among them, for the
		 * scouts' wc_decoder_skim(), runs of them too. */
		if (i % 11 == 0 || (i > 1500 && i < 1510))
			rc.action = (i % 2 ? WC_ACTION_PROCESS :
				     WC_ACTION_MESSAGE) |
				    (rc.action & WC_TA_CGROUP);
		put(fp, &rc, version, sw);
	}
	put(fp, &sample, 7, !sw);    /* other byte order: bad magic */
	fclose(fp);
}

/* wc_decoder_next_span() against wc_decoder_next() one at a time, in each
 * version and byte order: payloads and cgroup ids among the records,
 * enough of them for several of the source's buffers (records cut by a
 * buffer's end), then a bad record.  Runs of every length, stopped by
 * max or after the first event later than limit, with their payloads all
 * still there after the call; the bad record reported as before. */
static void run_matches(int version, int sw)
{
	static struct seen want[3000];
	static struct wc_event out[40];
	struct wc_err err, err1;
	struct wc_decoder *dec;
	unsigned i, n = 0, seed = 7u + (unsigned)(version * 2 + sw);
	int r;

	write_run_file(version, sw);

	dec = dec_open();
	wc_err_clear(&err1);
	while ((r = wc_decoder_next(dec, &want[n].ev, &err1)) > 0) {
		/* Every record, whichever path took it, names its stream. */
		ck_assert_uint_eq(want[n].ev.stream, 3);
		memcpy(want[n].pdu, want[n].ev.pdu, want[n].ev.pdu_len);
		n++;
	}
	ck_assert_int_eq(r, -1);
	ck_assert_uint_eq(n, 2999);
	wc_decoder_free(dec);

	write_run_file(version, sw);
	dec = dec_open();
	wc_err_clear(&err);
	i = 0;
	for (;;) {
		size_t got, k, max = 1 + (size_t)rand_r(&seed) % 40;
		uint64_t limit = 1000 + (i + (unsigned)rand_r(&seed) % 60) / 3;
		bool buffered = rand_r(&seed) % 2;

		r = wc_decoder_next_span(dec, out, max, limit, buffered, &got,
					 &err);
		if (r == WC_PULL_WOULD_READ) {
			ck_assert(buffered);
			continue;
		}
		if (r <= 0)
			break;
		ck_assert_uint_ge(got, 1);
		ck_assert_uint_le(got, max);
		for (k = 0; k < got; k++, i++) {
			ck_assert_uint_lt(i, n);
			seen_eq(&out[k], &want[i], i);
			if (k + 1 < got)
				ck_assert_uint_le(out[k].time, limit);
		}
		ck_assert_uint_eq(wc_decoder_offset(dec),
				  wc_decoder_resume_offset(dec) -
				  (version == 7 ? 48 : 64) - out[got - 1].pdu_len -
				  (out[got - 1].has_cgroup ? 8 : 0));
	}
	ck_assert_int_eq(r, -1);
	ck_assert_uint_eq(i, n);
	ck_assert_str_eq(err.msg, err1.msg);
	ck_assert_uint_eq(err.offset, err1.offset);
	wc_decoder_free(dec);
}

/* v7 and v8, each in both byte orders. */
START_TEST(test_run) { run_matches(_i < 2 ? 7 : 8, _i % 2); }
END_TEST

/* wc_decoder_skim() over decoder d against `n` records decoded one at a
 * time (want, the offset after each in offs) and the failure after them
 * (err1; none when r1 is 0): the records passed over are the ones not
 * notifies, the notifies handed out are the same, in runs of every
 * length up to max_max (1: as long as they go); it stops where the other
 * did, saying the same. */
static void skim_matches(struct wc_decoder *d, const struct seen *want,
			 const uint64_t *offs, unsigned n, int r1,
			 const struct wc_err *err1, size_t max_max,
			 unsigned seed)
{
	struct wc_event ev;
	struct wc_err err;
	unsigned i = 0, k;
	int r;

	wc_err_clear(&err);
	for (;;) {
		size_t passed, got, max = max_max > 1 ?
			1 + (size_t)rand_r(&seed) % max_max : SIZE_MAX;

		r = wc_decoder_skim(d, max, &ev, &passed, &got, &err);
		if (r <= 0)
			break;
		ck_assert_uint_ge(passed + got, 1);
		ck_assert_uint_le(passed, max);
		for (k = 0; k < passed; k++, i++) {
			ck_assert_uint_lt(i, n);
			ck_assert_msg(!wc_event_is_notify(&want[i].ev),
				      "notify %u passed over", i);
		}
		if (got) {
			ck_assert_uint_lt(i, n);
			ck_assert(wc_event_is_notify(&want[i].ev));
			seen_eq(&ev, &want[i], i);
			i++;
		}
		ck_assert_uint_eq(wc_decoder_resume_offset(d), offs[i - 1]);
	}
	ck_assert_int_eq(r, r1);
	ck_assert_uint_eq(i, n);
	if (r1 < 0) {
		ck_assert_str_eq(err.msg, err1->msg);
		ck_assert_uint_eq(err.offset, err1->offset);
	}
}

/* The scouts' skim against the one-at-a-time decoding of run_matches()'s
 * records, notifies among them, in each version and byte order. */
START_TEST(test_skim)
{
	static struct seen want[3000];
	static uint64_t offs[3000];
	int version = _i < 2 ? 7 : 8, sw = _i % 2, r;
	struct wc_decoder *dec;
	struct wc_err err1;
	unsigned n = 0, notifies = 0;

	write_run_file(version, sw);
	dec = dec_open();
	wc_err_clear(&err1);
	while ((r = wc_decoder_next(dec, &want[n].ev, &err1)) > 0) {
		memcpy(want[n].pdu, want[n].ev.pdu, want[n].ev.pdu_len);
		offs[n] = wc_decoder_resume_offset(dec);
		notifies += wc_event_is_notify(&want[n].ev);
		n++;
	}
	ck_assert_uint_eq(n, 2999);
	ck_assert_uint_gt(notifies, 250);
	wc_decoder_free(dec);
	write_run_file(version, sw);
	dec = dec_open();
	skim_matches(dec, want, offs, n, r, &err1, 600, 11u + (unsigned)_i);
	wc_decoder_free(dec);
	/* Runs to the end of each of the source's buffers, where records
	 * are cut. */
	write_run_file(version, sw);
	dec = dec_open();
	skim_matches(dec, want, offs, n, r, &err1, 1, 0);
	wc_decoder_free(dec);
}
END_TEST

START_TEST(test_payload_readers)
{
	unsigned char remap[16] = { 0x00, 0x80, 0x00, 0x01, 0x00, 0x70, 0x00, 0x02,
				    0, 0, 0, 0, 0, 0, 0x01, 0x00 };
	uint32_t ts[2] = { bswap_32(1700000000u), bswap_32(5u) };
	struct wc_event ev;
	uint32_t from, to, sec, nsec;
	uint64_t sector;

	memset(&ev, 0, sizeof(ev));
	ev.pdu = remap;
	ev.pdu_len = 16;
	ck_assert(wc_event_remap(&ev, &from, &to, &sector));
	ck_assert_uint_eq(from, WC_DEV_MAKE(8, 1));
	ck_assert_uint_eq(to, WC_DEV_MAKE(7, 2));
	ck_assert_uint_eq(sector, 256);
	ev.pdu_len = 15;
	ck_assert(!wc_event_remap(&ev, &from, &to, &sector));
	ev.pdu = (const unsigned char *)ts;
	ev.pdu_len = 8;
	ck_assert(wc_event_timestamp(&ev, true, &sec, &nsec));
	ck_assert_uint_eq(sec, 1700000000u);
	ck_assert_uint_eq(nsec, 5);
	ev.pdu_len = 4;
	ck_assert(!wc_event_pdu_be64(&ev, &sector));
}
END_TEST

/* Decodes the file: expects `good` events then -1 with msg at offset;
 * the scouts' skim reads as far and says the same. */
static void expect_bad(int good, uint64_t offset, const char *msg)
{
	struct wc_decoder *skim = dec_open_keep(true);
	struct wc_decoder *dec = dec_open();
	static struct seen want[8];
	static uint64_t offs[8];
	struct wc_event ev;
	struct wc_err err;
	int i;

	wc_err_clear(&err);
	ck_assert_int_le(good, 8);
	for (i = 0; i < good; i++) {
		ck_assert_int_eq(wc_decoder_next(dec, &want[i].ev, &err), 1);
		memcpy(want[i].pdu, want[i].ev.pdu, want[i].ev.pdu_len);
		offs[i] = wc_decoder_resume_offset(dec);
	}
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), -1);
	skim_matches(skim, want, offs, (unsigned)good, -1, &err, 1, 0);
	wc_decoder_free(skim);
	ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	ck_assert_uint_eq(err.offset, offset);
	ck_assert_msg(strstr(err.msg, msg), "message '%s' lacks '%s'", err.msg, msg);
	ck_assert_str_eq(err.file, path);
	/* And it stays failed. */
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), -1);
	wc_decoder_free(dec);
}

START_TEST(test_truncated_header)
{
	FILE *fp = tmp_open();

	put(fp, &sample, 7, 0);
	put(fp, &sample, 7, 0);
	fclose(fp);
	ck_assert_int_eq(truncate(path, 48 + 20), 0);   /* 20 bytes of the 2nd */
	expect_bad(1, 48, "truncated record: 20 of 48 header bytes");
}
END_TEST

START_TEST(test_truncated_magic)
{
	FILE *fp = tmp_open();

	put(fp, &sample, 8, 0);
	fwrite("\x07\x74", 2, 1, fp);
	fclose(fp);
	expect_bad(1, 64, "truncated record");
}
END_TEST

START_TEST(test_pdu_past_end)
{
	struct rec r = sample;
	FILE *fp = tmp_open();

	put(fp, &sample, 7, 1);
	r.pdu = "xyz";
	r.pdu_len = 3;
	put(fp, &r, 7, 1);
	fclose(fp);
	/* Now claim 60000 bytes of payload: only 3 are there. */
	fp = fopen(path, "r+b");
	fseek(fp, 48 + 46, SEEK_SET);
	fwrite("\xea\x60", 2, 1, fp);    /* 60000, big-endian as the file */
	fclose(fp);
	expect_bad(1, 48, "pdu_len 60000 past the end (3 bytes left)");
}
END_TEST

START_TEST(test_not_a_trace)
{
	FILE *fp = tmp_open();

	fputs("#!/bin/sh\necho this is a script, not a trace\n", fp);
	fclose(fp);
	expect_bad(0, 0, "not a blktrace trace");
}
END_TEST

START_TEST(test_bad_magic)
{
	FILE *fp = tmp_open();

	put(fp, &sample, 7, 0);
	put(fp, &sample, 7, 0);
	put(fp, &sample, 7, 1);      /* other byte order midway: corrupt */
	fclose(fp);
	expect_bad(2, 96, "bad magic");
}
END_TEST

START_TEST(test_unknown_version)
{
	FILE *fp = tmp_open();
	uint32_t magic = WC_BLK_MAGIC | 9;

	put(fp, &sample, 7, 0);
	fwrite(&magic, 4, 1, fp);
	fwrite(&sample, 60, 1, fp);
	fclose(fp);
	expect_bad(1, 48, "unknown version 9");
}
END_TEST

START_TEST(test_cgroup_too_short)
{
	struct rec r = sample;
	FILE *fp = tmp_open();

	r.action |= WC_TA_CGROUP;
	r.pdu = "1234";
	r.pdu_len = 4;
	put(fp, &r, 7, 0);
	fclose(fp);
	expect_bad(0, 0, "too short for the cgroup id");
	/* The same after a good record, where a run meets it. */
	fp = tmp_open();
	put(fp, &sample, 7, 0);
	put(fp, &r, 7, 0);
	fclose(fp);
	expect_bad(1, 48, "too short for the cgroup id");
}
END_TEST

START_TEST(test_empty_file)
{
	struct wc_decoder *dec;
	struct wc_event ev;
	struct wc_err err;
	FILE *fp = tmp_open();

	fclose(fp);
	dec = dec_open();
	wc_err_clear(&err);
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 0);
	wc_decoder_free(dec);
	wc_decoder_free(NULL);
}
END_TEST

START_TEST(test_open_file)
{
	struct wc_decoder *dec = (struct wc_decoder *)&dec;
	struct wc_event ev;
	struct wc_err err;
	FILE *fp = tmp_open();

	put(fp, &sample, 8, 1);
	fclose(fp);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_decoder_open_file(&dec, path, 3, &err), 0);
	unlink(path);
	ck_assert_int_eq(wc_decoder_next(dec, &ev, &err), 1);
	check_sample(&ev, 8);
	ck_assert_str_eq(wc_source_path(wc_decoder_source(dec)), path);
	wc_decoder_free(dec);
	ck_assert_int_eq(wc_decoder_open_file(&dec, path, 0, &err), -1);
	ck_assert_ptr_null(dec);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	ck_assert_str_eq(err.file, path);
}
END_TEST

static Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *tc = tcase_create("records");
	TCase *bad = tcase_create("bad input");

	tcase_add_test(tc, test_v7_native);
	tcase_add_test(tc, test_v7_swapped);
	tcase_add_test(tc, test_v8_native);
	tcase_add_test(tc, test_v8_swapped);
	tcase_add_test(tc, test_v8_wide_action);
	tcase_add_test(tc, test_cgroup);
	tcase_add_test(tc, test_payload_readers);
	tcase_add_loop_test(tc, test_run, 0, 4);
	tcase_add_loop_test(tc, test_skim, 0, 4);
	tcase_add_test(tc, test_empty_file);
	tcase_add_test(tc, test_open_file);
	tcase_add_test(bad, test_truncated_header);
	tcase_add_test(bad, test_truncated_magic);
	tcase_add_test(bad, test_pdu_past_end);
	tcase_add_test(bad, test_not_a_trace);
	tcase_add_test(bad, test_bad_magic);
	tcase_add_test(bad, test_unknown_version);
	tcase_add_test(bad, test_cgroup_too_short);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, bad);
	return s;
}

WC_CHECK_MAIN(decode_suite)
