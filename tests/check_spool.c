/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_spool.c - unit tests of analyze/lib/base/spool.c: bytes written
 * and read back at offsets of an unnamed temporary file, and what a
 * short count says.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "base/spool.h"

/* Bytes written and read back at offsets of a temporary file, across
 * the 64 KiB a call: all of them, or a short count with errno saying
 * why (the end of the file: 0; a full device: ENOSPC). */
START_TEST(test_write_read_at)
{
	enum { LEN = 200000 };
	unsigned char *out = malloc(LEN), *in = malloc(LEN);
	struct wc_err err;
	size_t i;
	int fd, full;

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(in);
	for (i = 0; i < LEN; i++)
		out[i] = (unsigned char)(i * 7 + i / 251);
	wc_err_clear(&err);
	fd = wc_spool_tmpfile("a test", &err);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(wc_spool_write_at(fd, out, LEN, 12345), LEN);
	ck_assert_uint_eq(wc_spool_read_at(fd, in, LEN, 12345), LEN);
	ck_assert_int_eq(memcmp(in, out, LEN), 0);
	errno = EINVAL;
	ck_assert_uint_eq(wc_spool_read_at(fd, in, LEN, 12345 + 100), LEN - 100);
	ck_assert_int_eq(errno, 0);
	close(fd);
	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (full >= 0) {
		ck_assert_uint_eq(wc_spool_write_at(full, out, 100, 0), 0);
		ck_assert_int_eq(errno, ENOSPC);
		close(full);
	}
	free(out);
	free(in);
}
END_TEST

static Suite *spool_suite(void)
{
	Suite *s = suite_create("spool");
	TCase *tc = tcase_create("spool");

	wc_check_timeout(tc, 30);
	tcase_add_test(tc, test_write_read_at);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(spool_suite)
