/*
 * check_source.c - unit tests of analyze/lib/source.c: peek and consume
 * across buffer refills, exact offsets, short peeks at the end, the
 * largest peek, descriptors, and archive members read in place.
 */
#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "source.h"

#define BIG 300000u

static unsigned char pattern(size_t i)
{
	return (unsigned char)((i * 7u + (i >> 9)) & 0xffu);
}

static char path[64];

static void make_file(size_t n)
{
	unsigned char *b = malloc(n ? n : 1);
	FILE *fp;
	size_t i;
	int fd;

	for (i = 0; i < n; i++)
		b[i] = pattern(i);
	wc_check_template(path, sizeof(path), "check_source");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "wb");
	ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
	fclose(fp);
	free(b);
}

/* Reads everything in uneven steps, checking every byte and offset. */
static void read_all(struct wc_source *src, size_t n)
{
	const unsigned char *p;
	struct wc_err err;
	size_t off = 0, step = 1;
	ssize_t got;

	wc_err_clear(&err);
	while (off < n) {
		size_t want = step, i;

		got = wc_source_peek(src, want, &p, &err);
		ck_assert_int_ge(got, 0);
		ck_assert_uint_eq((size_t)got, want < n - off ? want : n - off);
		for (i = 0; i < (size_t)got; i++)
			ck_assert_uint_eq(p[i], pattern(off + i));
		ck_assert_uint_eq(wc_source_offset(src), off);
		/* Consume less than was peeked, sometimes. */
		if (step % 3 == 0 && got > 1)
			got /= 2;
		wc_source_consume(src, (size_t)got);
		off += (size_t)got;
		step = step * 5 % WC_SOURCE_MAX_PEEK + 1;
	}
	ck_assert_int_eq(wc_source_peek(src, 10, &p, &err), 0);
	ck_assert_uint_eq(wc_source_offset(src), n);
}

START_TEST(test_file_steps)
{
	struct wc_source *src = NULL;
	struct wc_err err;

	make_file(BIG);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_file(&src, path, &err), 0);
	ck_assert_str_eq(wc_source_path(src), path);
	ck_assert_ptr_null(wc_source_member(src));
	read_all(src, BIG);
	wc_source_free(src);
	wc_source_free(NULL);
	unlink(path);
}
END_TEST

START_TEST(test_largest_peek)
{
	struct wc_source *src = NULL;
	const unsigned char *p;
	struct wc_err err;
	size_t i;

	make_file(BIG);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_file(&src, path, &err), 0);
	/* Leave the buffer's read-ahead partly used, then ask for the most. */
	ck_assert_int_eq(wc_source_peek(src, 100, &p, &err), 100);
	wc_source_consume(src, 65000);
	ck_assert_int_eq(wc_source_peek(src, WC_SOURCE_MAX_PEEK, &p, &err),
			 (ssize_t)WC_SOURCE_MAX_PEEK);
	for (i = 0; i < WC_SOURCE_MAX_PEEK; i++)
		ck_assert_uint_eq(p[i], pattern(65000 + i));
	ck_assert_uint_eq(wc_source_offset(src), 65000);
	wc_source_free(src);
	unlink(path);
}
END_TEST

START_TEST(test_short_and_empty)
{
	struct wc_source *src = NULL;
	const unsigned char *p;
	struct wc_err err;

	make_file(10);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_file(&src, path, &err), 0);
	ck_assert_int_eq(wc_source_peek(src, 48, &p, &err), 10);
	wc_source_consume(src, 4);
	ck_assert_int_eq(wc_source_peek(src, 48, &p, &err), 6);
	ck_assert_uint_eq(p[0], pattern(4));
	wc_source_consume(src, 100);    /* more than there is: stops at the end */
	ck_assert_int_eq(wc_source_peek(src, 1, &p, &err), 0);
	ck_assert_uint_eq(wc_source_offset(src), 10);
	wc_source_free(src);
	unlink(path);
}
END_TEST

START_TEST(test_missing_file)
{
	struct wc_source *src = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_file(&src, "/nonexistent/x.blktrace.0", &err), -1);
	ck_assert_ptr_null(src);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	ck_assert_str_eq(err.file, "/nonexistent/x.blktrace.0");
	ck_assert_str_eq(err.msg, "No such file or directory");
}
END_TEST

START_TEST(test_fd_not_closed)
{
	struct wc_source *src = NULL;
	struct wc_err err;
	int fd;

	make_file(BIG);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_fd(&src, fd, "-", &err), 0);
	ck_assert_str_eq(wc_source_path(src), "-");
	read_all(src, BIG);
	wc_source_free(src);
	ck_assert_int_ne(fcntl(fd, F_GETFD), -1);
	close(fd);
	unlink(path);
}
END_TEST

static void add_member(struct archive *a, const char *name, size_t n)
{
	struct archive_entry *e = archive_entry_new();
	unsigned char *b = malloc(n);
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = pattern(i);
	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, (la_int64_t)n);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_data(a, b, n), (la_ssize_t)n);
	archive_entry_free(e);
	free(b);
}

START_TEST(test_archive_member)
{
	struct wc_source *src = NULL, *src2 = NULL;
	const unsigned char *p;
	struct archive *a;
	struct wc_err err;
	int fd;

	wc_check_template(path, sizeof(path), "check_source");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	archive_write_add_filter_gzip(a);
	ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	add_member(a, "run/a", 1000);
	add_member(a, "run/b", BIG);
	archive_write_close(a);
	archive_write_free(a);

	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_member(&src, path, "run/b", &err), 0);
	ck_assert_str_eq(wc_source_member(src), "run/b");
	/* Two members open at once, each through its own handle. */
	ck_assert_int_eq(wc_source_open_member(&src2, path, "run/a", &err), 0);
	ck_assert_int_eq(wc_source_peek(src2, 2000, &p, &err), 1000);
	read_all(src, BIG);
	wc_source_free(src);
	wc_source_free(src2);

	ck_assert_int_eq(wc_source_open_member(&src, path, "run/c", &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	ck_assert_str_eq(err.member, "run/c");
	ck_assert_str_eq(err.msg, "member not found in archive");
	unlink(path);
}
END_TEST

static Suite *source_suite(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("bytes");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_file_steps);
	tcase_add_test(tc, test_largest_peek);
	tcase_add_test(tc, test_short_and_empty);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_fd_not_closed);
	tcase_add_test(tc, test_archive_member);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(source_suite)
