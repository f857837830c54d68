/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_recorder.c - unit tests of analyze/lib/record/recorder.h: the undo list
 * puts plain files standing in for tracefs settings back, newest first,
 * from memory and from its file (as wcrecord --restore does after a
 * SIGKILL); a hostile undo file is refused whole, nothing restored; a
 * path outside the prefix is never written; tracefs's decorated values;
 * the process-name cache and the announced-pid sets keep their bounds
 * and let the oldest go; the record filter frames what the decoder reads
 * (and refuses what it refuses), and the PROCESS notify reads back.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "format/encode.h"
#include "record/recorder.h"

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
	/* Far more pids than slots: the cache never grows past its bound,
	 * the newest half of it is all there, and the old names made room. */
	for (pid = 1; pid <= 4 * WC_COMMS_SLOTS; pid++)
		wc_comms_put(c, pid, "p", 1000 + pid);
	for (pid = 4 * WC_COMMS_SLOTS - WC_COMMS_SLOTS / 2 + 1;
	     pid <= 4 * WC_COMMS_SLOTS; pid++)
		hit += wc_comms_get(c, pid, &learned) != NULL;
	ck_assert_uint_eq(hit, WC_COMMS_SLOTS / 2);
	hit = 0;
	for (pid = 1; pid <= 4 * WC_COMMS_SLOTS; pid++)
		hit += wc_comms_get(c, pid, &learned) != NULL;
	ck_assert_uint_le(hit, WC_COMMS_SLOTS);
	hit = 0;
	for (pid = 1; pid <= WC_COMMS_SLOTS; pid++)
		hit += wc_comms_get(c, pid, &learned) != NULL;
	ck_assert_uint_eq(hit, 0);
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

/* A record of ev in version, into buf; its length. */
static size_t enc(unsigned char *buf, size_t size, const struct wc_event *ev,
		  unsigned version)
{
	struct wc_err err;
	ssize_t n;

	wc_err_clear(&err);
	n = wc_blk_encode(buf, size, ev, version, false, &err);
	ck_assert_msg(n > 0, "%s", err.msg);
	return (size_t)n;
}

START_TEST(test_frame)
{
	static const unsigned char msg[] = "hello";
	static const unsigned char id8[8] = { 99 };
	unsigned char buf[512], rec[256];
	struct wc_event ev = {
		.time = 1234, .sector = 8, .bytes = 4096, .pid = 42,
		.device = WC_DEV_MAKE(7u, 0u), .cpu = 1,
		.action = WC_TA_QUEUE | WC_TC(WC_TC_WRITE),
	}, got;
	struct wc_err err;
	size_t n7, n8, total, k;
	uint32_t swapped;

	wc_err_clear(&err);
	n7 = enc(buf, sizeof(buf), &ev, WC_BLK_VERSION_7);
	ev.pdu = msg;
	ev.pdu_len = sizeof(msg);
	ev.has_cgroup = true;
	ev.cgroup = 99;
	n8 = enc(buf + n7, sizeof(buf) - n7, &ev, WC_BLK_VERSION_8);

	/* Whole records, as the decoder reads them. */
	ck_assert_int_eq(wc_record_frame(buf, n7 + n8, &total, &got, &err),
			 WC_FRAME_RECORD);
	ck_assert_uint_eq(total, n7);
	ck_assert_uint_eq(got.pid, 42);
	ck_assert_uint_eq(got.cpu, 1);
	ck_assert_uint_eq(got.version, 7);
	ck_assert_int_eq(wc_record_frame(buf + n7, n8, &total, &got, &err),
			 WC_FRAME_RECORD);
	ck_assert_uint_eq(total, n8);
	ck_assert(got.has_cgroup);
	ck_assert_uint_eq(got.cgroup, 99);
	ck_assert_uint_eq(got.pdu_len, sizeof(msg));
	ck_assert_ptr_eq(got.pdu, buf + n7 + n8 - sizeof(msg));
	ck_assert_str_eq((const char *)got.pdu, "hello");

	/* Every cut short of the end is partial, never invalid. */
	for (k = 0; k < n8; k++)
		ck_assert_int_eq(wc_record_frame(buf + n7, k, &total, &got, &err),
				 WC_FRAME_PARTIAL);

	/* A byte that starts no record; the other byte order. */
	ck_assert_int_eq(wc_record_frame(buf + 1, n7 + n8 - 1, &total, &got, &err),
			 WC_FRAME_INVALID);
	memcpy(rec, buf, n7);
	memcpy(&swapped, rec, 4);
	swapped = __builtin_bswap32(swapped);
	memcpy(rec, &swapped, 4);
	ck_assert_int_eq(wc_record_frame(rec, n7, &total, &got, &err),
			 WC_FRAME_INVALID);

	/* The cgroup flag without room for its id: the decoder refuses it,
	 * so the filter does. */
	ev.has_cgroup = false;
	ev.action |= WC_TA_CGROUP;
	ev.pdu = id8;
	ev.pdu_len = 4;
	k = enc(rec, sizeof(rec), &ev, WC_BLK_VERSION_7);
	ck_assert_int_eq(wc_record_frame(rec, k, &total, &got, &err),
			 WC_FRAME_INVALID);
	ev.pdu_len = 8;
	k = enc(rec, sizeof(rec), &ev, WC_BLK_VERSION_7);
	ck_assert_int_eq(wc_record_frame(rec, k, &total, &got, &err),
			 WC_FRAME_RECORD);

	/* A payload past the bound is invalid at once, not waited for. */
	{
		static unsigned char big[WC_BLK_V8_SIZE + WC_RECORD_MAX_PDU + 1];
		static unsigned char pdu[WC_RECORD_MAX_PDU + 1];

		ev.action = WC_TA_QUEUE;
		ev.pdu = pdu;
		ev.pdu_len = WC_RECORD_MAX_PDU + 1;
		k = enc(big, sizeof(big), &ev, WC_BLK_VERSION_8);
		ck_assert_int_eq(wc_record_frame(big, WC_BLK_V8_SIZE, &total,
						 &got, &err), WC_FRAME_INVALID);
		ck_assert_int_eq(wc_record_frame(big, k, &total, &got, &err),
				 WC_FRAME_INVALID);
		ev.pdu_len = WC_RECORD_MAX_PDU;
		k = enc(big, sizeof(big), &ev, WC_BLK_VERSION_8);
		ck_assert_int_eq(wc_record_frame(big, k, &total, &got, &err),
				 WC_FRAME_RECORD);
	}
}
END_TEST

START_TEST(test_process_notify)
{
	unsigned char rec[WC_BLK_V8_SIZE + WC_COMM_LEN];
	struct wc_event ev = {
		.time = 77, .pid = 0, .device = WC_DEV_MAKE(8u, 16u), .cpu = 3,
		.action = WC_TA_ISSUE,
	}, got;
	struct wc_err err;
	unsigned v;
	size_t total;
	ssize_t n;

	for (v = WC_BLK_VERSION_7; v <= WC_BLK_VERSION_8; v++) {
		wc_err_clear(&err);
		n = wc_record_process(rec, sizeof(rec), &ev,
				      "a-name-longer-than-fifteen", v, &err);
		ck_assert_msg(n > 0, "%s", err.msg);
		ck_assert_int_eq(wc_record_frame(rec, (size_t)n, &total, &got,
						 &err), WC_FRAME_RECORD);
		ck_assert_uint_eq(total, (size_t)n);
		ck_assert_uint_eq(got.version, v);
		ck_assert_uint_eq(got.action, WC_TC(WC_TC_NOTIFY) | WC_TN_PROCESS);
		ck_assert_uint_eq(got.time, 77);
		ck_assert_uint_eq(got.pid, 0);
		ck_assert_uint_eq(got.device, ev.device);
		ck_assert_uint_eq(got.cpu, 3);
		ck_assert_uint_eq(got.pdu_len, WC_COMM_LEN);
		ck_assert_str_eq((const char *)got.pdu, "a-name-longer-t");
	}
	/* A buffer too small is an error, not a cut record. */
	wc_err_clear(&err);
	ck_assert_int_lt(wc_record_process(rec, 10, &ev, "cp", 7, &err), 0);
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
	tcase_add_test(tc, test_frame);
	tcase_add_test(tc, test_process_notify);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(recorder_suite)
