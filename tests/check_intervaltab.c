/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_intervaltab.c - unit tests of analyze/lib/out/intervaltab.c: the
 * rows as text, JSON and CSV, a hostile capture and device name escaped
 * in each, and a write error reported at close.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "out/intervaltab.h"

#define S 1000000000ull

/* A name as a trace's capture.conf might hold it: an escape sequence,
 * a newline, a quote, a comma. */
static const char evil[] = "\033[31mx\n\"y\",z";

/* Writes one capture of two rows in fmt to a file; its text. */
static char *table(enum wc_format fmt, size_t *len)
{
	const char *path = wc_check_path("t.out");
	struct wc_intervaltab *t = NULL;
	const struct wc_interval_sink *sink;
	struct wc_interval_row r;
	struct wc_err err;
	FILE *f = fopen(path, "w");
	unsigned char *b;

	ck_assert_ptr_nonnull(f);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_intervaltab_open(&t, f, fmt, S, &err), 0);
	sink = wc_intervaltab_sink(t);
	sink->begin(sink->ctx, evil, S);
	memset(&r, 0, sizeof(r));
	r.device = (8u << 20) | 0;
	r.name = evil;
	r.len_ns = S;
	r.ios[WC_IO_WRITE] = 3;
	r.per_s[WC_IO_WRITE] = 3;
	r.await_ms[WC_IO_FLUSH] = 12.5;
	r.util_pct = 42.25;
	sink->row(sink->ctx, &r);
	r.name = NULL;
	r.start_s = 1;
	sink->row(sink->ctx, &r);
	sink->end(sink->ctx, 0);
	ck_assert_int_eq(wc_intervaltab_close(t, &err), 0);
	wc_intervaltab_free(t);
	fclose(f);
	b = wc_check_slurp(path, len);
	return (char *)b;
}

/* No byte of the output is a control character but newline. */
static void printable(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ck_assert_msg((unsigned char)s[i] >= 0x20 || s[i] == '\n',
			      "byte %zu is 0x%02x", i, (unsigned char)s[i]);
}

START_TEST(test_text)
{
	size_t n;
	char *s = table(WC_FORMAT_TEXT, &n);

	printable(s, n);
	ck_assert_ptr_nonnull(strstr(s, "interval table of \\033[31mx\\012"));
	ck_assert_ptr_nonnull(strstr(s, "not saturation"));
	/* The named row shows the escaped name, the other one the number. */
	ck_assert_ptr_nonnull(strstr(s, "   0.000 \\033[31mx\\012\"y\",z"));
	ck_assert_ptr_nonnull(strstr(s, "   1.000 8,0 "));
	ck_assert_ptr_nonnull(strstr(s, "12.50"));
	ck_assert_ptr_nonnull(strstr(s, "42.2"));
	free(s);
}
END_TEST

START_TEST(test_json)
{
	size_t n;
	char *s = table(WC_FORMAT_JSON, &n);

	printable(s, n);
	ck_assert_msg(!strncmp(s, "{\"interval_s\": 1.000000000, \"captures\": [",
			       40), "%s", s);
	ck_assert_ptr_nonnull(strstr(s, "\"name\": \"\\u001b[31mx\\u000a\\\"y\\\",z\""));
	ck_assert_ptr_nonnull(strstr(s, "\"device\": \"8,0\", \"device_name\": \"\\u001b"));
	ck_assert_ptr_nonnull(strstr(s, "\"device_name\": null"));
	ck_assert_ptr_nonnull(strstr(s, "\"writes\": 3,"));
	ck_assert_ptr_nonnull(strstr(s, "\"f_await_ms\": 12.500000"));
	ck_assert_ptr_nonnull(strstr(s, "\"rows_not_written\": 0}"));
	ck_assert_str_eq(s + n - 4, "\n]}\n");
	free(s);
}
END_TEST

/* Fields of a CSV line, quotes respected. */
static size_t csv_fields(const char *line)
{
	size_t n = 1;
	int quoted = 0;

	for (; *line && *line != '\n'; line++) {
		if (*line == '"')
			quoted = !quoted;
		else if (*line == ',' && !quoted)
			n++;
	}
	return n;
}

START_TEST(test_csv)
{
	size_t n, head;
	char *s = table(WC_FORMAT_CSV, &n), *row, *row2;

	printable(s, n);
	head = csv_fields(s);
	row = strchr(s, '\n') + 1;
	row2 = strchr(row, '\n') + 1;
	ck_assert_uint_eq(csv_fields(row), head);
	ck_assert_uint_eq(csv_fields(row2), head);
	ck_assert_ptr_null(strchr(row2, '\n') + 1 < s + n ? row2 : NULL);
	ck_assert_msg(!strncmp(row, "\"\\033[31mx\\012\"\"y\"\",z\",", 23), "%s", row);
	ck_assert_ptr_nonnull(strstr(row, ",\"8,0\","));
	free(s);
}
END_TEST

START_TEST(test_write_error)
{
	struct wc_intervaltab *t = NULL;
	struct wc_err err;
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		return;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_intervaltab_open(&t, f, WC_FORMAT_JSON, S, &err), 0);
	ck_assert_int_eq(wc_intervaltab_close(t, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	wc_intervaltab_free(t);
	wc_intervaltab_free(NULL);
	fclose(f);
}
END_TEST

/* Every kind of I/O (interval.h's order) has its rate, throughput and
 * await in the text table: a row of one kind only shows its figures. */
START_TEST(test_text_every_kind)
{
	int k;

	for (k = 0; k < WC_NIO; k++) {
		const char *path = wc_check_path("k.out");
		struct wc_intervaltab *t = NULL;
		const struct wc_interval_sink *sink;
		struct wc_interval_row r;
		struct wc_err err;
		FILE *f = fopen(path, "w");
		size_t n;
		char *b;

		ck_assert_ptr_nonnull(f);
		wc_err_clear(&err);
		ck_assert_int_eq(wc_intervaltab_open(&t, f, WC_FORMAT_TEXT, S,
						     &err), 0);
		sink = wc_intervaltab_sink(t);
		sink->begin(sink->ctx, "c", S);
		memset(&r, 0, sizeof(r));
		r.len_ns = S;
		r.ios[k] = 7;
		r.per_s[k] = 7.25;
		r.mib_s[k] = 3.5;
		r.await_ms[k] = 9.75;
		sink->row(sink->ctx, &r);
		sink->end(sink->ctx, 0);
		ck_assert_int_eq(wc_intervaltab_close(t, &err), 0);
		wc_intervaltab_free(t);
		fclose(f);
		b = (char *)wc_check_slurp(path, &n);
		/* Flushes carry no data: no throughput. */
		ck_assert_msg(strstr(b, " 7.25") && strstr(b, " 9.75") &&
			      (k == WC_IO_FLUSH || strstr(b, " 3.50")),
			      "kind %d missing:\n%s", k, b);
		free(b);
	}
}
END_TEST

static Suite *intervaltab_suite(void)
{
	Suite *s = suite_create("intervaltab");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_text_every_kind);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(intervaltab_suite)
