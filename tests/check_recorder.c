/*
 * check_recorder.c - unit tests of analyze/lib/recorder.h: the undo list
 * puts plain files standing in for tracefs settings back, newest first,
 * from memory and from its file (as wcrecord --restore does after a
 * SIGKILL); a hostile undo file is refused whole, nothing restored; a
 * path outside the prefix is never written; tracefs's decorated values;
 * the process-name cache and the announced-pid sets keep their bounds
 * and let the oldest go.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "recorder.h"

static const char *dir;

static void setup(void)
{
	dir = wc_check_tmpdir();
}

static const char *at(const char *name)
{
	return wc_check_path(name);
}

static void put(const char *name, const char *text)
{
	FILE *fp = fopen(at(name), "w");

	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	ck_assert_int_eq(fclose(fp), 0);
}

static const char *get(const char *name)
{
	static char buf[256];
	unsigned char *b = wc_check_slurp(at(name), NULL);

	snprintf(buf, sizeof(buf), "%s", (char *)b);
	free(b);
	return buf;
}

START_TEST(test_restore_in_memory)
{
	struct wc_err err;
	struct wc_undo *u;

	wc_err_clear(&err);
	put("tracer", "nop");
	put("clock", "local");
	u = wc_undo_open(NULL, dir, &err);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(wc_undo_change(u, at("tracer"), "nop", "blk", &err), 0);
	ck_assert_int_eq(wc_undo_change(u, at("clock"), "local", "mono", &err), 0);
	/* Unchanged: nothing to note. */
	ck_assert_int_eq(wc_undo_change(u, at("clock"), "mono", "mono", &err), 0);
	/* The same file twice: the oldest value must win. */
	ck_assert_int_eq(wc_undo_change(u, at("tracer"), "blk", "function", &err), 0);
	ck_assert_int_eq(wc_undo_count(u), 3);
	ck_assert_str_eq(get("tracer"), "function");
	ck_assert_str_eq(get("clock"), "mono");
	ck_assert_int_eq(wc_undo_restore(u, &err), 0);
	ck_assert_int_eq(wc_undo_count(u), 0);
	ck_assert_str_eq(get("tracer"), "nop");
	ck_assert_str_eq(get("clock"), "local");
	wc_undo_free(u);
	wc_undo_free(NULL);
}
END_TEST

/* What a recorder killed outright leaves: the file alone restores. */
START_TEST(test_restore_from_file)
{
	struct wc_err err;
	struct wc_undo *u;

	wc_err_clear(&err);
	put("on", "1");
	put("kb", "1410");
	u = wc_undo_open(at("undo"), dir, &err);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(wc_undo_change(u, at("on"), "1", "0", &err), 0);
	ck_assert_int_eq(wc_undo_change(u, at("kb"), "1410", "65536", &err), 0);
	ck_assert_int_eq(wc_undo_change(u, at("on"), "0", "1", &err), 0);
	wc_undo_free(u);	/* "killed": nothing restored */
	ck_assert_str_eq(get("kb"), "65536");
	ck_assert_int_eq(wc_undo_restore_file(at("undo"), dir, &err), 0);
	ck_assert_str_eq(get("on"), "1");
	ck_assert_str_eq(get("kb"), "1410");
	ck_assert_int_eq(access(at("undo"), F_OK), -1);
	/* Done once: a second restore finds nothing to do. */
	ck_assert_int_eq(wc_undo_restore_file(at("undo"), dir, &err), 0);
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
}
END_TEST

/* A normal end restores and removes the file. */
START_TEST(test_restore_removes_file)
{
	struct wc_err err;
	struct wc_undo *u;

	wc_err_clear(&err);
	put("x", "a");
	u = wc_undo_open(at("undo"), dir, &err);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(wc_undo_change(u, at("x"), "a", "b", &err), 0);
	ck_assert_int_eq(access(at("undo"), F_OK), 0);
	ck_assert_int_eq(wc_undo_restore(u, &err), 0);
	ck_assert_int_eq(access(at("undo"), F_OK), -1);
	ck_assert_str_eq(get("x"), "a");
	wc_undo_free(u);
}
END_TEST

/* Each bad file is refused with its line, and nothing is written. */
START_TEST(test_hostile_files)
{
	static const char *const bad[] = {
		"set\t%s/x\n",			/* no old value */
		"set\t%s/x\tv",			/* cut off: no newline */
		"sett\t%s/x\tv\n",		/* unknown kind */
		"set\t/etc/passwd\tv\n",	/* outside the prefix */
		"set\t%s/../x\tv\n",		/* climbs out */
		"set\trelative\tv\n",
		"umount\t/\n",
	};
	char text[4096], path[256];
	struct wc_err err;
	size_t i;
	int n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put("x", "untouched");
		snprintf(text, sizeof(text), "set\t%s/x\tfirst\n", dir);
		n = (int)strlen(text);
		snprintf(text + n, sizeof(text) - (size_t)n, bad[i], dir);
		put("undo", text);
		wc_err_clear(&err);
		ck_assert_int_eq(wc_undo_restore_file(at("undo"), dir, &err), -1);
		ck_assert_int_eq(err.kind, WC_ERR_INPUT);
		ck_assert_ptr_nonnull(strstr(err.msg, "line 2:"));
		ck_assert_str_eq(get("x"), "untouched");
	}
	/* A line longer than any path or value. */
	memset(text, 'a', sizeof(text));
	snprintf(path, sizeof(path), "set\t%s/x\t", dir);
	memcpy(text, path, strlen(path));
	text[sizeof(text) - 2] = '\n';
	text[sizeof(text) - 1] = '\0';
	put("undo", text);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_undo_restore_file(at("undo"), dir, &err), -1);
	ck_assert_str_eq(get("x"), "untouched");
	/* More lines than the list holds. */
	text[0] = '\0';
	for (i = 0; i <= WC_UNDO_MAX; i++) {
		n = (int)strlen(text);
		snprintf(text + n, sizeof(text) - (size_t)n, "set\t%s/x\tv\n", dir);
	}
	put("undo", text);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_undo_restore_file(at("undo"), dir, &err), -1);
	ck_assert_str_eq(get("x"), "untouched");
}
END_TEST

START_TEST(test_refuses_to_note)
{
	struct wc_err err;
	struct wc_undo *u;
	int i;

	wc_err_clear(&err);
	put("x", "a");
	u = wc_undo_open(NULL, dir, &err);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(wc_undo_change(u, "/etc/hostname", "a", "b", &err), -1);
	ck_assert_int_eq(wc_undo_change(u, at("x"), "a\tb", "c", &err), -1);
	ck_assert_str_eq(get("x"), "a");
	/* Full: the change after the last that fits is refused, unmade. */
	for (i = 0; i < WC_UNDO_MAX; i++)
		ck_assert_int_eq(wc_undo_change(u, at("x"), i % 2 ? "b" : "a",
						i % 2 ? "a" : "b", &err), 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_undo_change(u, at("x"), "a", "b", &err), -1);
	ck_assert_str_eq(get("x"), "a");
	ck_assert_int_eq(wc_undo_restore(u, &err), 0);
	ck_assert_str_eq(get("x"), "a");
	wc_undo_free(u);
}
END_TEST

START_TEST(test_tracefs_value)
{
	char a[] = "[local] global counter uptime perf mono mono_raw boot\n";
	char b[] = "local global counter [mono] mono_raw";
	char c[] = "7 (expanded: 1408)";
	char d[] = "65536\n\n";
	char e[] = "nop";

	ck_assert_str_eq(wc_tracefs_value(a), "local");
	ck_assert_str_eq(wc_tracefs_value(b), "mono");
	ck_assert_str_eq(wc_tracefs_value(c), "1408");
	ck_assert_str_eq(wc_tracefs_value(d), "65536");
	ck_assert_str_eq(wc_tracefs_value(e), "nop");
}
END_TEST

START_TEST(test_comms)
{
	struct wc_comms *c;
	struct wc_err err;
	uint64_t learned = 0;
	const char *n;
	uint32_t pid, hit = 0;
	FILE *fp;

	wc_err_clear(&err);
	c = wc_comms_open(&err);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_null(wc_comms_get(c, 0, &learned));
	/* Pid 0 is a pid; names are cut as the kernel cuts them. */
	wc_comms_put(c, 0, "swapper/0", 5);
	wc_comms_put(c, 7, "a-name-longer-than-fifteen", 6);
	n = wc_comms_get(c, 0, &learned);
	ck_assert_str_eq(n, "swapper/0");
	ck_assert_uint_eq(learned, 5);
	ck_assert_str_eq(wc_comms_get(c, 7, &learned), "a-name-longer-t");
	/* saved_cmdlines: lost names and other lines passed over, a known
	 * pid learned again. */
	fp = tmpfile();
	ck_assert_ptr_nonnull(fp);
	fputs("7 cp\n8 <...>\nnot a line\n9 jbd2/loop0-8\n\n10\n", fp);
	rewind(fp);
	wc_comms_load(c, fp, 100);
	fclose(fp);
	ck_assert_str_eq(wc_comms_get(c, 7, &learned), "cp");
	ck_assert_uint_eq(learned, 100);
	ck_assert_ptr_null(wc_comms_get(c, 8, &learned));
	ck_assert_str_eq(wc_comms_get(c, 9, &learned), "jbd2/loop0-8");
	ck_assert_ptr_null(wc_comms_get(c, 10, &learned));
	/* Far more pids than slots: the table never grows, the newest
	 * names are there, and most old ones made room. */
	for (pid = 1; pid <= 4 * WC_COMMS_SLOTS; pid++)
		wc_comms_put(c, pid, "p", 1000 + pid);
	for (pid = 3 * WC_COMMS_SLOTS + 1; pid <= 4 * WC_COMMS_SLOTS; pid++)
		hit += wc_comms_get(c, pid, &learned) != NULL;
	ck_assert_uint_gt(hit, WC_COMMS_SLOTS * 9 / 10);
	hit = 0;
	for (pid = 1; pid <= WC_COMMS_SLOTS; pid++)
		hit += wc_comms_get(c, pid, &learned) != NULL;
	ck_assert_uint_lt(hit, WC_COMMS_SLOTS / 10);
	wc_comms_free(c);
	wc_comms_free(NULL);
}
END_TEST

START_TEST(test_seen)
{
	struct wc_seen *s;
	struct wc_err err;
	uint32_t pid, again = 0;

	wc_err_clear(&err);
	s = wc_seen_open(&err);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(wc_seen_mark(s, 0), 0);
	ck_assert_int_eq(wc_seen_mark(s, 0), 1);
	ck_assert_int_eq(wc_seen_mark(s, 42), 0);
	ck_assert_int_eq(wc_seen_mark(s, 42), 1);
	/* Many pids: each new one is new once; the early ones were
	 * pushed out and count as new again. */
	for (pid = 100; pid < 100 + 16 * WC_SEEN_SETS * WC_SEEN_WAYS; pid++)
		ck_assert_int_eq(wc_seen_mark(s, pid), 0);
	for (pid = 100; pid < 100 + WC_SEEN_SETS; pid++)
		again += wc_seen_mark(s, pid);
	ck_assert_uint_lt(again, WC_SEEN_SETS / 4);
	wc_seen_free(s);
	wc_seen_free(NULL);
}
END_TEST

static Suite *recorder_suite(void)
{
	Suite *s = suite_create("recorder");
	TCase *tc = tcase_create("undo");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_restore_in_memory);
	tcase_add_test(tc, test_restore_from_file);
	tcase_add_test(tc, test_restore_removes_file);
	tcase_add_test(tc, test_hostile_files);
	tcase_add_test(tc, test_refuses_to_note);
	tcase_add_test(tc, test_tracefs_value);
	suite_add_tcase(s, tc);
	tc = tcase_create("names");
	tcase_add_test(tc, test_comms);
	tcase_add_test(tc, test_seen);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(recorder_suite)
