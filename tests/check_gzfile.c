/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_gzfile.c - unit tests of analyze/lib/out/gzfile.c: what goes in
 * comes out of zlib's inflate whole, as one gzip member with mtime 0,
 * the same bytes for the same input whatever the writes' sizes and
 * flushes; a full disk under it is an error of wc_gzfile_close(), and
 * NULL is fine.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check_common.h"
#include "out/gzfile.h"

#define N (3 * 1024 * 1024)

/* A timeline-like text of N bytes: compressible, not trivially. */
static char *text(void)
{
	char *t = malloc(N);
	uint32_t x = 12345;
	size_t i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		t[i] = (x >> 16) % 7 ? "{\"ph\":\"B\",\"ts\":"[i % 16] :
				       (char)('0' + (x >> 8) % 10);
	}
	return t;
}

/* gz of t written as chunks of step bytes (fflush after each when
 * flush), to memory; its length in *len. */
static unsigned char *squeeze(const char *t, size_t step, int flush,
			      size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct wc_err err;
	FILE *gz;
	size_t i;

	ck_assert_ptr_nonnull(f);
	wc_err_clear(&err);
	gz = wc_gzfile_open(f, &err);
	ck_assert_msg(gz != NULL, "%s", err.msg);
	for (i = 0; i < N; i += step) {
		size_t n = N - i < step ? N - i : step;

		ck_assert_uint_eq(fwrite(t + i, 1, n, gz), n);
		if (flush)
			ck_assert_int_eq(fflush(gz), 0);
	}
	ck_assert_msg(wc_gzfile_close(gz, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(fclose(f), 0);
	return (unsigned char *)buf;
}

START_TEST(test_round_trip)
{
	char *t = text(), *back = malloc(N + 1);
	size_t len, len2, len3;
	unsigned char *gz = squeeze(t, 4096, 0, &len);
	unsigned char *gz2 = squeeze(t, 1, 0, &len2);
	unsigned char *gz3 = squeeze(t, 100000, 1, &len3);
	z_stream z;

	ck_assert_ptr_nonnull(back);
	/* gzip's magic, deflate, no name, mtime 0. */
	ck_assert(len > 18 && gz[0] == 0x1f && gz[1] == 0x8b && gz[2] == 8);
	ck_assert_int_eq(gz[3], 0);
	ck_assert(!gz[4] && !gz[5] && !gz[6] && !gz[7]);
	ck_assert_uint_lt(len, N / 2);
	/* Inflated: the input whole, then the stream's end, and nothing
	 * after it (a second member would be more). */
	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = gz;
	z.avail_in = (uInt)len;
	z.next_out = (unsigned char *)back;
	z.avail_out = N + 1;
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	ck_assert_uint_eq(z.total_out, N);
	ck_assert_uint_eq(z.avail_in, 0);
	ck_assert(memcmp(back, t, N) == 0);
	inflateEnd(&z);
	/* Byte by byte, or flushed between large writes: the same bytes. */
	ck_assert_uint_eq(len2, len);
	ck_assert(memcmp(gz2, gz, len) == 0);
	ck_assert_uint_eq(len3, len);
	ck_assert(memcmp(gz3, gz, len) == 0);
	free(gz3);
	free(gz2);
	free(gz);
	free(back);
	free(t);
}
END_TEST

/* Nothing written: an empty member, still whole; NULL is fine. */
START_TEST(test_empty)
{
	char *buf = NULL, back[4];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct wc_err err;
	z_stream z;
	FILE *gz;

	ck_assert_ptr_nonnull(f);
	wc_err_clear(&err);
	gz = wc_gzfile_open(f, &err);
	ck_assert_ptr_nonnull(gz);
	ck_assert_int_eq(wc_gzfile_close(gz, &err), 0);
	ck_assert_int_eq(fclose(f), 0);
	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)buf;
	z.avail_in = (uInt)len;
	z.next_out = (unsigned char *)back;
	z.avail_out = sizeof(back);
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	ck_assert_uint_eq(z.total_out, 0);
	inflateEnd(&z);
	free(buf);
	ck_assert_int_eq(wc_gzfile_close(NULL, &err), 0);
}
END_TEST

/* /dev/full under it: the writes fail, and closing says why. */
START_TEST(test_full_disk)
{
	FILE *f = fopen("/dev/full", "w");
	char *t = text();
	struct wc_err err;
	FILE *gz;

	if (!f)
		return;   /* no /dev/full here: nothing to test */
	wc_err_clear(&err);
	gz = wc_gzfile_open(f, &err);
	ck_assert_ptr_nonnull(gz);
	fwrite(t, 1, N, gz);
	ck_assert_int_eq(wc_gzfile_close(gz, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	ck_assert_msg(strstr(err.msg, "No space left on device") != NULL,
		      "%s", err.msg);
	fclose(f);
	free(t);
}
END_TEST

static Suite *gzfile_suite(void)
{
	Suite *s = suite_create("gzfile");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_full_disk);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(gzfile_suite)
