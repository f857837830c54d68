/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_spool.c - unit tests of analyze/lib/base/spool.c: bytes written
 * and read back at offsets of an unnamed temporary file, and what a
 * short count says; a spool against a plain array (random puts over
 * and past what is held, across its bound), in memory up to the bound
 * and in a file with no name past it, and a TMPDIR that cannot hold it.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

/* The entries of folder d but . and .. */
static int entries(const char *d)
{
	DIR *dir = opendir(d);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(dir);
	while ((e = readdir(dir)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dir);
	return n;
}

/* Every byte of the spool is the model's. */
static void same(const struct wc_spool *sp, const unsigned char *model,
		 size_t n)
{
	unsigned char *got = malloc(n + 1);
	struct wc_err err;

	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(wc_spool_size(sp), n);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_spool_get(sp, got, n, 0, &err), 0);
	ck_assert_int_eq(memcmp(got, model, n), 0);
	free(got);
}

/* Random puts, appended or over what is held, some across the bound:
 * what a get returns is what a plain array holds; the bytes stay in
 * memory while they fit the bound, and move to a file at the put that
 * passes it, a file with no name in TMPDIR. */
START_TEST(test_model_across_the_bound)
{
	enum { BOUND = 5000, MAX = 40000 };
	static unsigned char model[MAX], buf[MAX];
	const size_t bound = BOUND;
	struct wc_spool *sp;
	struct wc_err err;
	const char *dir = wc_check_tmpdir();
	size_t size = 0, k;

	srand(7 + (unsigned)_i);
	ck_assert_int_eq(setenv("TMPDIR", dir, 1), 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_spool_open(&sp, bound, "a test", &err), 0);
	for (k = 0; k < 400 && size < MAX - 300; k++) {
		size_t len = (size_t)rand() % 300, off, i;
		bool was = wc_spool_in_file(sp);

		off = rand() % 3 ? size : (size_t)rand() % (size + 1);
		for (i = 0; i < len; i++)
			buf[i] = (unsigned char)rand();
		ck_assert_int_eq(wc_spool_put(sp, buf, len, off, &err), 0);
		memcpy(model + off, buf, len);
		if (off + len > size)
			size = off + len;
		/* In memory exactly while everything put fits. */
		ck_assert(wc_spool_in_file(sp) == (was || size > bound));
		same(sp, model, size);
		if (k % 50 == 0 && size) {
			off = (size_t)rand() % size;
			ck_assert_int_eq(wc_spool_get(sp, buf, size - off, off,
						      &err), 0);
			ck_assert_int_eq(memcmp(buf, model + off, size - off), 0);
		}
	}
	ck_assert(wc_spool_in_file(sp));
	ck_assert_int_eq(entries(dir), 0);
	wc_spool_free(sp);
	wc_spool_free(NULL);
}
END_TEST

/* At the bound exactly, memory; one byte more, the file. */
START_TEST(test_switch_at_the_bound)
{
	static unsigned char b[100];
	struct wc_spool *sp;
	struct wc_err err;

	ck_assert_int_eq(setenv("TMPDIR", wc_check_tmpdir(), 1), 0);
	memset(b, 'x', sizeof(b));
	wc_err_clear(&err);
	ck_assert_int_eq(wc_spool_open(&sp, 100, "a test", &err), 0);
	ck_assert_int_eq(wc_spool_put(sp, b, 60, 0, &err), 0);
	ck_assert_int_eq(wc_spool_put(sp, b, 40, 60, &err), 0);
	ck_assert(!wc_spool_in_file(sp));
	ck_assert_int_eq(wc_spool_put(sp, b, 100, 0, &err), 0);
	ck_assert(!wc_spool_in_file(sp));
	ck_assert_int_eq(wc_spool_put(sp, "y", 1, 100, &err), 0);
	ck_assert(wc_spool_in_file(sp));
	ck_assert_uint_eq(wc_spool_size(sp), 101);
	wc_spool_free(sp);
	/* A bound of 0: every byte in the file, an empty spool in none. */
	ck_assert_int_eq(wc_spool_open(&sp, 0, "a test", &err), 0);
	ck_assert_int_eq(wc_spool_put(sp, b, 0, 0, &err), 0);
	ck_assert(!wc_spool_in_file(sp));
	ck_assert_int_eq(wc_spool_put(sp, b, 1, 0, &err), 0);
	ck_assert(wc_spool_in_file(sp));
	wc_spool_free(sp);
}
END_TEST

/* A TMPDIR that is not there, or not a folder: what fits the bound
 * needs none; the put that passes it fails, saying why and naming
 * TMPDIR, and leaves the spool as it was, in memory; with TMPDIR back,
 * the same put moves it all to the file. */
START_TEST(test_tmpdir_unusable)
{
	static const char *const bad[] = { "missing", "plain" };
	char b[64], got[200];
	struct wc_spool *sp;
	struct wc_err err;
	const char *dir = wc_check_tmpdir();
	FILE *f;

	f = fopen(wc_check_path("plain"), "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(setenv("TMPDIR", wc_check_path(bad[_i]), 1), 0);
	memset(b, 'a', sizeof(b));
	wc_err_clear(&err);
	ck_assert_int_eq(wc_spool_open(&sp, 100, "the names", &err), 0);
	ck_assert_int_eq(wc_spool_put(sp, b, 64, 0, &err), 0);
	memset(b, 'b', sizeof(b));
	ck_assert_int_eq(wc_spool_put(sp, b, 36, 64, &err), 0);
	ck_assert_int_eq(wc_spool_put(sp, b, 64, 100, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	ck_assert_str_eq(err.file, wc_check_path(bad[_i]));
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot make a temporary file "
				     "for the names: "));
	ck_assert(!wc_spool_in_file(sp));
	ck_assert_uint_eq(wc_spool_size(sp), 100);
	ck_assert_int_eq(wc_spool_get(sp, got, 100, 0, &err), 0);
	ck_assert(got[0] == 'a' && got[63] == 'a' && got[64] == 'b' &&
		  got[99] == 'b');
	ck_assert_int_eq(setenv("TMPDIR", dir, 1), 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_spool_put(sp, b, 64, 100, &err), 0);
	ck_assert(wc_spool_in_file(sp));
	ck_assert_int_eq(wc_spool_get(sp, got, 164, 0, &err), 0);
	ck_assert(got[0] == 'a' && got[64] == 'b' && got[163] == 'b');
	wc_spool_free(sp);
}
END_TEST

/* A get past the end is cut short (errno 0), in memory and in the
 * file; a put past the end (a hole) is refused. */
START_TEST(test_past_the_end)
{
	char b[32] = "0123456789";
	struct wc_spool *sp;
	struct wc_err err;
	size_t bound = _i ? 0 : 1000;

	ck_assert_int_eq(setenv("TMPDIR", wc_check_tmpdir(), 1), 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_spool_open(&sp, bound, "the names", &err), 0);
	ck_assert_int_eq(wc_spool_put(sp, b, 10, 0, &err), 0);
	ck_assert(wc_spool_in_file(sp) == !bound);
	ck_assert_int_eq(wc_spool_get(sp, b + 10, 4, 6, &err), 0);
	ck_assert_int_eq(memcmp(b + 10, "6789", 4), 0);
	errno = EINVAL;
	ck_assert_int_eq(wc_spool_get(sp, b, 5, 6, &err), -1);
	ck_assert_int_eq(errno, 0);
	ck_assert_str_eq(err.msg, "the names cut short");
	wc_err_clear(&err);
	ck_assert_int_eq(wc_spool_get(sp, b, 1, UINT64_MAX, &err), -1);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_spool_put(sp, b, 1, 11, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	ck_assert_uint_eq(wc_spool_size(sp), 10);
	wc_spool_free(sp);
}
END_TEST

static Suite *spool_suite(void)
{
	Suite *s = suite_create("spool");
	TCase *tc = tcase_create("spool");

	wc_check_timeout(tc, 30);
	tcase_add_test(tc, test_write_read_at);
	tcase_add_loop_test(tc, test_model_across_the_bound, 0, 4);
	tcase_add_test(tc, test_switch_at_the_bound);
	tcase_add_loop_test(tc, test_tmpdir_unusable, 0, 2);
	tcase_add_loop_test(tc, test_past_the_end, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(spool_suite)
