/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_ledger.c - unit tests of analyze/lib/input/ledger.c: a model
 * disk's ledger.tsv as the disk's own work (its destage rows of no
 * command, by region), the header by column name, and every refusal of
 * a hostile ledger with the offset of the line it is in.
 */
#include <check.h>
#include <string.h>

#include "input/ledger.h"
#include "check_common.h"

#define HEAD "seq\top\tsector\tbytes\tfua\tcache_hit\tarrival_ns\tstart_ns\t" \
	"end_ns\toverhead_ns\tdestage_ns\tposition_ns\tseek_ns\trotation_ns\t" \
	"transfer_ns\tdestage_bytes\tbackground_ns\tdirty_bytes\tlate_ns\t" \
	"cause_seq\tqueued\tregion\n"
/* A row: op, bytes, start, end, late, cause, region. */
#define ROW(op, b, s, e, l, c, r) "0\t" op "\t8\t" b "\t0\t0\t" s "\t" s \
	"\t" e "\t0\t0\t0\t0\t0\t0\t0\t0\t0\t" l "\t" c "\t0\t" r "\n"

static struct wc_ledger *open_text(const char *text, uint32_t region,
				   struct wc_err *err)
{
	struct wc_ledger *lg = NULL;
	struct wc_source *src = NULL;

	wc_err_clear(err);
	ck_assert_int_eq(wc_source_open_memory(&src, "cap/ledger.tsv", NULL,
						 (const unsigned char *)text,
						 strlen(text), 0, err), 0);
	if (wc_ledger_open(&lg, src, region, err) < 0)
		return NULL;
	return lg;
}

/* The work of region 0: commands and caused destage left out, the end
 * less late_ns, in order; region 1's and every region's. */
START_TEST(test_work_by_region)
{
	static const char text[] = HEAD
		ROW("W", "4096", "100", "200", "0", "0", "0")
		ROW("S", "4096", "200", "300", "0", "0", "0")
		ROW("S", "8192", "300", "350", "0", "7", "0")
		ROW("S", "512", "400", "470", "20", "0", "1")
		ROW("F", "0", "470", "480", "0", "0", "0")
		ROW("S", "1024", "500", "600", "0", "0", "0");
	struct wc_ledger_work w;
	struct wc_ledger *lg;
	struct wc_err err;

	lg = open_text(text, 0, &err);
	ck_assert_ptr_nonnull(lg);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 1);
	ck_assert_uint_eq(w.start, 200);
	ck_assert_uint_eq(w.end, 300);
	ck_assert_uint_eq(w.bytes, 4096);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 1);
	ck_assert_uint_eq(w.start, 500);
	ck_assert_uint_eq(w.bytes, 1024);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 0);
	wc_ledger_free(lg);

	lg = open_text(text, 1, &err);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 1);
	ck_assert_uint_eq(w.start, 400);
	ck_assert_uint_eq(w.end, 450);
	ck_assert_uint_eq(w.region, 1);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 0);
	wc_ledger_free(lg);

	lg = open_text(text, WC_LEDGER_ALL, &err);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 1);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 1);
	ck_assert_uint_eq(w.region, 1);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 1);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 0);
	wc_ledger_free(lg);
	wc_ledger_free(NULL);
}
END_TEST

/* Columns in another order, region absent, no newline at the end. */
/* The totals, whatever region is handed out: the busy time is the
 * union of every row's [start, end - late) (a command's destage inside
 * it, a row touching the one before, a gap), the commands' time their
 * own spans summed (overlapping ones twice). */
START_TEST(test_totals)
{
	static const char text[] = HEAD
		ROW("W", "4096", "100", "200", "0", "0", "0")
		ROW("S", "4096", "120", "180", "0", "1", "0")
		ROW("R", "512", "150", "260", "10", "0", "1")
		ROW("S", "512", "250", "300", "0", "0", "0")
		ROW("F", "0", "400", "430", "0", "0", "0")
		ROW("S", "1024", "500", "600", "30", "0", "1");
	struct wc_ledger_totals t;
	struct wc_ledger_work w;
	struct wc_ledger *lg;
	struct wc_err err;
	uint32_t regions[] = { 0, 1, WC_LEDGER_ALL };
	size_t i;

	for (i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
		lg = open_text(text, regions[i], &err);
		ck_assert_ptr_nonnull(lg);
		wc_ledger_totals(lg, &t);
		ck_assert_uint_eq(t.rows, 0);
		ck_assert_uint_eq(t.busy, 0);
		while (wc_ledger_next(lg, &w, &err) > 0)
			;
		wc_ledger_totals(lg, &t);
		ck_assert_uint_eq(t.rows, 6);
		/* [100, 300) + [400, 430) + [500, 570) */
		ck_assert_uint_eq(t.busy, 200 + 30 + 70);
		/* 100 + 100 + 30 */
		ck_assert_uint_eq(t.commands, 230);
		wc_ledger_free(lg);
	}
}
END_TEST

START_TEST(test_header_by_name)
{
	static const char text[] =
		"cause_seq\tend_ns\tstart_ns\tlate_ns\tbytes\top\tseq\n"
		"0\t90\t10\t5\t4096\tS\t0";
	struct wc_ledger_work w;
	struct wc_ledger *lg;
	struct wc_err err;

	lg = open_text(text, 0, &err);
	ck_assert_ptr_nonnull(lg);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 1);
	ck_assert_uint_eq(w.start, 10);
	ck_assert_uint_eq(w.end, 85);
	ck_assert_uint_eq(w.region, 0);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), 0);
	wc_ledger_free(lg);
}
END_TEST

/* Each refusal, with the offset of the line it is in. */
START_TEST(test_hostile)
{
	static const struct {
		const char *text;
		uint64_t offset;
		const char *why;
	} cases[] = {
		{ "", 0, "no header line" },
		{ "seq\top\tbytes\n", 0, "no column start_ns" },
		{ "seq\top\tseq\tbytes\tstart_ns\tend_ns\tlate_ns\tcause_seq\n",
		  0, "named twice" },
		{ HEAD "0\tS\t8\n", sizeof(HEAD) - 1, "not the header's" },
		{ HEAD ROW("X", "1", "1", "2", "0", "0", "0"),
		  sizeof(HEAD) - 1, "op is not" },
		{ HEAD ROW("S", "-1", "1", "2", "0", "0", "0"),
		  sizeof(HEAD) - 1, "not a number" },
		{ HEAD ROW("S", "18446744073709551616", "1", "2", "0", "0", "0"),
		  sizeof(HEAD) - 1, "not a number" },
		{ HEAD ROW("S", "", "1", "2", "0", "0", "0"),
		  sizeof(HEAD) - 1, "not a number" },
		{ HEAD ROW("S", "1", "10", "15", "6", "0", "0"),
		  sizeof(HEAD) - 1, "before start_ns + late_ns" },
		{ HEAD ROW("S", "1", "10", "20", "0", "0", "4294967295"),
		  sizeof(HEAD) - 1, "region" },
		{ HEAD ROW("S", "1", "10", "20", "0", "0", "0")
		  ROW("S", "1", "15", "30", "0", "0", "1"),
		  sizeof(HEAD) - 1 + sizeof(ROW("S", "1", "10", "20", "0", "0", "0")) - 1,
		  "starts before" },
	};
	struct wc_ledger_work w;
	struct wc_ledger *lg;
	struct wc_err err;
	size_t i;
	int r;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lg = open_text(cases[i].text, WC_LEDGER_ALL, &err);
		r = 0;
		while (lg && (r = wc_ledger_next(lg, &w, &err)) > 0)
			;
		ck_assert_msg(!lg || r < 0, "case %zu taken", i);
		ck_assert_int_eq(err.kind, WC_ERR_INPUT);
		ck_assert_msg(strstr(err.msg, cases[i].why), "case %zu: %s", i,
			      err.msg);
		ck_assert_msg(err.offset == cases[i].offset,
			      "case %zu: offset %llu", i,
			      (unsigned long long)err.offset);
		ck_assert_str_eq(err.file, "cap/ledger.tsv");
		if (lg)
			ck_assert_int_eq(wc_ledger_next(lg, &w, &err), -1);
		wc_ledger_free(lg);
	}
}
END_TEST

/* A line past WC_LEDGER_MAX_LINE and a NUL are refused; nothing is read
 * past them. */
START_TEST(test_long_line)
{
	static char text[4096];
	struct wc_ledger_work w;
	struct wc_ledger *lg;
	struct wc_err err;
	size_t n = strlen(HEAD);

	memcpy(text, HEAD, n);
	memset(text + n, '7', 2000);
	text[n + 2000] = '\0';
	lg = open_text(text, 0, &err);
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), -1);
	ck_assert_uint_eq(err.offset, n);
	ck_assert_ptr_nonnull(strstr(err.msg, "longer than"));
	wc_ledger_free(lg);

	memcpy(text + n, ROW("S", "1", "1", "2", "0", "0", "0"),
	       sizeof(ROW("S", "1", "1", "2", "0", "0", "0")));
	text[n + 3] = '\0';
	lg = NULL;
	{
		struct wc_source *src = NULL;

		wc_err_clear(&err);
		ck_assert_int_eq(wc_source_open_memory(&src, "l", NULL,
			(const unsigned char *)text,
			n + sizeof(ROW("S", "1", "1", "2", "0", "0", "0")) - 1, 0,
			&err), 0);
		ck_assert_int_eq(wc_ledger_open(&lg, src, 0, &err), 0);
	}
	ck_assert_int_eq(wc_ledger_next(lg, &w, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "NUL"));
	wc_ledger_free(lg);
}
END_TEST

static Suite *ledger_suite(void)
{
	Suite *s = suite_create("ledger");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_work_by_region);
	tcase_add_test(tc, test_totals);
	tcase_add_test(tc, test_header_by_name);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_long_line);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(ledger_suite)
