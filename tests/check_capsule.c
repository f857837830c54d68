/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_capsule.c - unit tests of analyze/lib/analysis/capsule.c's
 * summary reader: a summary of many captures read from a descriptor, a
 * capture at a time through a buffer that moves, gives the captures the
 * text reader gives and that were written, wherever the buffer's edges
 * fall in them; a fault past the first read is refused at its offset in
 * the file, the same from both; the reader's heap does not grow with
 * the captures; "format" after "captures" is refused, and a reader
 * past its fault stays failed.
 */
#include <check.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "analysis/capsule.h"

/* A capsule of no analysis: what the raw record holds, checked as read
 * (a main device of none, the journal's method one wcanalyze keeps). */
static struct wc_capsule *blank(size_t k)
{
	struct wc_capsule *c = calloc(1, sizeof(*c));

	ck_assert_ptr_nonnull(c);
	c->main = -1;
	c->meta.journal_method = WC_JOURNAL_HEURISTIC;
	c->meta.run = (int)k;
	snprintf(c->meta.name, sizeof(c->meta.name), "c%zu-\"run\"%zu", k,
		 k);
	/* Long strings, so that a few captures pass the first read. */
	memset(c->meta.kernel, 'k', sizeof(c->meta.kernel) - 1);
	memset(c->meta.config, 'c', sizeof(c->meta.config) - 1);
	return c;
}

/* Capture k's raw record, as wc_capsule_write() gives it. */
static char *raw_of(const struct wc_capsule *c)
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	ck_assert_ptr_nonnull(f);
	wc_capsule_write(f, c);
	ck_assert_int_eq(fclose(f), 0);
	return t;
}

/* A summary of n captures after pad spaces, a root member gone through
 * before them (an array, as a comparison's "groups"), capture `bad`
 * (n: none) with its run a string; *at_bad where that string is. */
static char *summary(size_t n, size_t pad, size_t bad, size_t *len,
		     uint64_t *at_bad)
{
	char *t = NULL;
	size_t k;
	FILE *f = open_memstream(&t, len);

	ck_assert_ptr_nonnull(f);
	fprintf(f, "%*s{\"format\": \"wcanalyze\", \"version\": 1,\n"
		"  \"groups\": [{\"captures\": [\"a\", \"b\"]}, 2, \"x\"],\n"
		"  \"captures\": [", (int)pad, "");
	for (k = 0; k < n; k++) {
		struct wc_capsule *c = blank(k);
		char *raw = raw_of(c), *run;

		fprintf(f, "%s\n    {\"name\": \"c%zu\", \"raw\": ",
			k ? "," : "", k);
		if (k == bad) {
			run = strstr(raw, "\"run\": ");
			ck_assert_ptr_nonnull(run);
			run += strlen("\"run\": ");
			fflush(f);
			fprintf(f, "%.*s", (int)(run - raw), raw);
			fflush(f);
			*at_bad = *len;
			fprintf(f, "\"%d\"%s", c->meta.run,
				run + strspn(run, "0123456789"));
		} else {
			fputs(raw, f);
		}
		fputs("}", f);
		free(raw);
		wc_capsule_free(c);
	}
	fputs("\n  ]\n}\n", f);
	ck_assert_int_eq(fclose(f), 0);
	return t;
}

/* text[0..len) in a file of the scratch directory, open for reading. */
static int file_of(const char *text, size_t len)
{
	const char *p = wc_check_path("summary.json");
	FILE *f = fopen(p, "w");
	int fd;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Reads r to its end or fault: the captures read, each checked against
 * what was written; the last return of _next(). */
static int read_all(struct wc_capsule_reader *r, size_t *n,
		    struct wc_err *err)
{
	struct wc_capsule *c;
	int rc;

	for (*n = 0; (rc = wc_capsule_reader_next(r, &c, err)) > 0; (*n)++) {
		struct wc_capsule *want = blank(*n);
		char *a = raw_of(c), *b = raw_of(want);

		ck_assert_str_eq(a, b);
		free(a);
		free(b);
		wc_capsule_free(want);
		wc_capsule_free(c);
	}
	return rc;
}

/* The buffer's edges (64 KiB, then more) fall elsewhere in each pad. */
START_TEST(test_fd_as_text)
{
	struct wc_capsule_reader *r = NULL;
	struct wc_err et, ef;
	uint64_t at = 0;
	size_t len, nt, nf, pad = (size_t)_i * 4099;
	char *text = summary(80, pad, 80, &len, &at);
	int fd = file_of(text, len);

	ck_assert_uint_gt(len, 4 * 65536);
	wc_err_clear(&et);
	wc_err_clear(&ef);
	ck_assert_int_eq(wc_capsule_reader_text(&r, text, len, &et), 0);
	ck_assert_int_eq(read_all(r, &nt, &et), 0);
	wc_capsule_reader_free(r);
	ck_assert_int_eq(wc_capsule_reader_fd(&r, fd, "s.json", &ef), 0);
	ck_assert_int_eq(read_all(r, &nf, &ef), 0);
	ck_assert_uint_eq(nt, 80);
	ck_assert_uint_eq(nf, 80);
	wc_capsule_reader_free(r);
	close(fd);
	free(text);
}
END_TEST

START_TEST(test_fault_offset)
{
	struct wc_capsule_reader *r = NULL;
	struct wc_err et, ef;
	struct wc_capsule *c = NULL;
	uint64_t at = 0;
	size_t len, nt, nf;
	char *text = summary(80, (size_t)_i * 4099, 60, &len, &at);
	int fd = file_of(text, len);

	ck_assert_uint_gt(at, 65536);
	wc_err_clear(&et);
	wc_err_clear(&ef);
	ck_assert_int_eq(wc_capsule_reader_text(&r, text, len, &et), 0);
	ck_assert_int_eq(read_all(r, &nt, &et), -1);
	wc_capsule_reader_free(r);
	ck_assert_int_eq(wc_capsule_reader_fd(&r, fd, "s.json", &ef), 0);
	ck_assert_int_eq(read_all(r, &nf, &ef), -1);
	/* The captures before it were given. */
	ck_assert_uint_eq(nt, 60);
	ck_assert_uint_eq(nf, 60);
	ck_assert_uint_eq(et.offset, at);
	ck_assert_uint_eq(ef.offset, at);
	ck_assert_str_eq(ef.file, "s.json");
	ck_assert_str_eq(ef.msg, "summary: 'run': not an integer");
	/* Past its fault, a reader stays failed. */
	wc_err_clear(&ef);
	ck_assert_int_eq(wc_capsule_reader_next(r, &c, &ef), -1);
	ck_assert_ptr_null(c);
	wc_capsule_reader_free(r);
	close(fd);
	free(text);
}
END_TEST

/* The most heap in use while r is read to its end. */
static size_t reader_heap(int fd)
{
	struct wc_capsule_reader *r = NULL;
	struct wc_capsule *c;
	struct wc_err err;
	size_t before = mallinfo2().uordblks, peak = before, used;
	int rc;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_capsule_reader_fd(&r, fd, "s.json", &err), 0);
	while ((rc = wc_capsule_reader_next(r, &c, &err)) > 0) {
		used = mallinfo2().uordblks;
		if (used > peak)
			peak = used;
		wc_capsule_free(c);
	}
	ck_assert_int_eq(rc, 0);
	wc_capsule_reader_free(r);
	return peak - before;
}

/* A capture at a time: as much heap for 200 captures as for 20. */
START_TEST(test_heap_flat)
{
	uint64_t at;
	size_t l20, l200, h20, h200;
	char *t20 = summary(20, 0, 20, &l20, &at);
	char *t200 = summary(200, 0, 200, &l200, &at);
	int fd20 = file_of(t20, l20), fd200;

	free(t20);
	reader_heap(fd20);
	h20 = reader_heap(fd20);
	close(fd20);
	fd200 = file_of(t200, l200);
	free(t200);
	h200 = reader_heap(fd200);
	close(fd200);
	ck_assert_msg(h200 < h20 + (16 << 10), "%zu bytes for 20 captures, "
		      "%zu for 200", h20, h200);
}
END_TEST

/* A comparison's summary of a configuration run many times: its group
 * names every run, in an array longer than a parse takes (4,096
 * members, 1 MiB), which the reader goes through a member at a time,
 * as wcanalyze writes it for a reduce of 4,100 summaries of one
 * configuration; what it goes through is still JSON, checked (a
 * missing ',' deep in it refused at its offset). */
START_TEST(test_big_group)
{
	enum { NAMES = 20000 };
	struct wc_capsule_reader *r = NULL;
	struct wc_capsule *c = blank(0);
	struct wc_err err;
	char *t = NULL, *raw = raw_of(c);
	size_t len, k, n;
	uint64_t at = 0;
	FILE *f = open_memstream(&t, &len);

	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"format\": \"wcanalyze\", \"version\": 1,\n"
		"  \"groups\": [{\"group\": 1, \"captures\": [");
	for (k = 0; k < NAMES; k++)
		fprintf(f, "%s\"%060zu\"", k ? ", " : "", k);
	fprintf(f, "], \"figures_s\": {\"wall\": {\"n\": [[1]]}}}],\n"
		"  \"captures\": [{\"name\": \"c0\", \"raw\": %s}]}\n", raw);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_gt(len, (size_t)NAMES * 60);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_capsule_reader_text(&r, t, len, &err), 0);
	ck_assert_msg(read_all(r, &n, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(n, 1);
	wc_capsule_reader_free(r);
	/* "[[1]]" becomes "[[1 1": refused at the second 1, where a ','
	 * or ']' is missing. */
	at = (uint64_t)(strstr(t, "[[1]]") - t) + 4;
	t[at - 1] = ' ';
	t[at] = '1';
	ck_assert_int_eq(wc_capsule_reader_text(&r, t, len, &err), 0);
	ck_assert_int_eq(read_all(r, &n, &err), -1);
	ck_assert_uint_eq(err.offset, at);
	wc_capsule_reader_free(r);
	free(t);
	free(raw);
	wc_capsule_free(c);
}
END_TEST

START_TEST(test_format_first)
{
	static const char text[] =
		"{\"captures\": [], \"format\": \"wcanalyze\", \"version\": 1}";
	struct wc_capsule_reader *r = NULL;
	struct wc_capsule *c = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_capsule_reader_text(&r, text, sizeof(text) - 1,
						&err), 0);
	ck_assert_int_eq(wc_capsule_reader_next(r, &c, &err), -1);
	ck_assert_ptr_null(c);
	ck_assert_uint_eq(err.offset, 13);
	ck_assert_ptr_nonnull(strstr(err.msg, "'format'"));
	wc_capsule_reader_free(r);
}
END_TEST

static Suite *capsule_suite(void)
{
	Suite *s = suite_create("capsule");
	TCase *tc = tcase_create("reader");

	wc_check_timeout(tc, 60);
	tcase_add_loop_test(tc, test_fd_as_text, 0, 8);
	tcase_add_loop_test(tc, test_fault_offset, 0, 8);
	tcase_add_test(tc, test_heap_flat);
	tcase_add_test(tc, test_format_first);
	tcase_add_test(tc, test_big_group);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(capsule_suite)
