/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_members.c - unit tests of analyze/lib/input/members.c: how the scan has
 * each member read (whole from memory, on a handle, copied aside past
 * the handles, so that the streams never need to be closed), the side
 * files, one capture an archive, and the end of an archive read without
 * the shortcut; the one-pass scan (lim.once), which opens the archive
 * once whatever the members' order (its opens counted: check_opens.h).
 * The shortcut itself is tested through the input (check_input,
 * test_spec_*), which is how it is used.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/capture.h"
#include "check_archive.h"
#include "check_common.h"
#include "check_opens.h"
#include "format/encode.h"
#include "input/members.h"
#include "input/recfilter.h"
#include "input/streams_test.h"

#define Q_WRITE (WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE))

/* NREC queue records of stream K of N, with 16-byte payloads of the
 * byte K; *len bytes. */
static unsigned char *records(unsigned k, unsigned n, unsigned nrec,
			      size_t *len)
{
	unsigned char pdu[16], *buf = malloc((size_t)nrec * 128);
	unsigned r;

	ck_assert_ptr_nonnull(buf);
	memset(pdu, (int)k, sizeof(pdu));
	*len = 0;
	for (r = 0; r < nrec; r++) {
		struct wc_event ev = {
			.sequence = r + 1, .time = 1000 + (uint64_t)r * n + k,
			.bytes = 4096, .action = Q_WRITE, .pid = k,
			.device = WC_DEV_MAKE(8, 0), .cpu = k, .pdu = pdu,
			.pdu_len = sizeof(pdu),
		};
		ssize_t w = wc_blk_encode(buf + *len, 128, &ev,
					  WC_BLK_VERSION_7, false, NULL);

		ck_assert_int_gt(w, 0);
		*len += (size_t)w;
	}
	return buf;
}

/* An archive at PATH (gzip'd when GZ) of NAMES[0..n): capture.conf for a
 * name ending so, a ledger (its own name as its text) for a name ending
 * in ledger.tsv, else NREC[i] records of the next of the trace files. */
/* capture.conf names a model disk (its ledger follows the traces). */
static bool conf_model;

static void write_archive(const char *path, bool gz, const char *const *names,
			  const unsigned *nrec, unsigned n)
{
	const char *conf = conf_model ? "name = held\ndisk_model = hdd7200\n" :
					"name = held\n";
	struct archive *a = archive_write_new();
	unsigned i, k = 0, ntrace = 0;

	archive_write_set_format_pax_restricted(a);
	if (gz)
		archive_write_add_filter_gzip(a);
	ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (i = 0; i < n; i++)
		ntrace += !strstr(names[i], "capture.conf") &&
			  !strstr(names[i], "ledger.tsv");
	for (i = 0; i < n; i++) {
		size_t len;
		unsigned char *b;

		if (strstr(names[i], "capture.conf")) {
			wc_check_archive_add(a, names[i], conf, strlen(conf));
			continue;
		}
		if (strstr(names[i], "ledger.tsv")) {
			wc_check_archive_add(a, names[i], names[i],
					     strlen(names[i]));
			continue;
		}
		b = records(k++, ntrace, nrec[i], &len);
		wc_check_archive_add(a, names[i], b, len);
		free(b);
	}
	archive_write_close(a);
	archive_write_free(a);
}

static void limits(struct wc_input_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->max_open = 2;              /* one member on a handle */
	lim->small_member = 4096;       /* 20 records are, 200 are not */
	lim->mem_budget = WC_INPUT_MEM_BUDGET;
	lim->aside_open = WC_INPUT_ASIDE_OPEN;
}

/*
 * A member of 20 records read whole, three of 200: the first on an
 * archive handle (WC_INPUT_HANDLES is 1 with two open at most), the two
 * after it copied aside.  So no stream needs closing: pulled round-robin,
 * at most one holds a handle of the pool, and every event is there.
 */
static void held(bool gz)
{
	static const char *const names[] = {
		"c/capture.conf", "c/trace/sda.blktrace.0",
		"c/trace/sda.blktrace.1", "c/trace/sda.blktrace.2",
		"c/trace/sda.blktrace.3",
	};
	static const unsigned nrec[] = { 0, 20, 200, 200, 200 };
	const char *path = wc_check_path(gz ? "held.tar.gz" : "held.tar");
	struct wc_input_limits lim;
	struct wc_recfilter *f = NULL;
	struct wc_streams *st = NULL;
	struct wc_members *m = NULL;
	struct wc_capture *cap = NULL;
	struct wc_event ev;
	struct wc_err err;
	unsigned k, got[4] = { 0 }, live;

	write_archive(path, gz, names, nrec, 5);
	limits(&lim);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_capture_new(&cap, &err), 0);
	ck_assert_int_eq(wc_streams_new(&st, path, &lim, f, &err), 0);
	ck_assert_msg(wc_members_scan(&m, path, st, cap, &lim, &err) == 0,
		      "%s", err.msg);
	ck_assert_str_eq(cap->name, "held");
	ck_assert(wc_members_packed(m) == gz);
	ck_assert(!wc_members_speculated(m));
	ck_assert_int_eq(wc_streams_seal(st, WC_STREAMS_MEMBERS, &err), 0);
	ck_assert_uint_eq(wc_streams_count(st), 4);
	ck_assert(wc_streams_in_memory(st, 0));
	for (k = 1; k < 4; k++)
		ck_assert(!wc_streams_in_memory(st, k));
	ck_assert(!wc_streams_may_close(st));
	do {
		live = 0;
		for (k = 0; k < 4; k++) {
			int r = wc_streams_pull_one(st, k, &ev, 0, &err);

			ck_assert_msg(r >= 0, "%s", err.msg);
			ck_assert_uint_le(wc_streams_open_count(st), 1);
			if (r == 0)
				continue;
			ck_assert_uint_eq(ev.time, 1000 + got[k] * 4 + k);
			ck_assert_uint_eq(ev.pdu[15], k);
			got[k]++;
			live++;
		}
	} while (live);
	for (k = 0; k < 4; k++)
		ck_assert_uint_eq(got[k], nrec[k + 1]);
	/* Without the shortcut the end is the input's own. */
	ck_assert_int_eq(wc_members_end(m, 0, &err), 0);
	ck_assert_int_eq(wc_members_end(m, -1, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	ck_assert_int_eq(wc_members_end(NULL, 0, &err), 0);
	wc_members_free(m);
	wc_streams_free(st);
	wc_capture_free(cap);
	wc_recfilter_free(f);
}

START_TEST(test_held)
{
	held(false);
	held(true);
}
END_TEST

/* The scan of NAMES fails saying WHY; the table is the caller's still. */
static void refused(const char *const *names, unsigned n, const char *why)
{
	static const unsigned nrec[] = { 5, 5, 5, 5 };
	const char *path = wc_check_path("refused.tar");
	struct wc_input_limits lim;
	struct wc_recfilter *f = NULL;
	struct wc_streams *st = NULL;
	struct wc_members *m = NULL;
	struct wc_capture *cap = NULL;
	struct wc_err err;

	write_archive(path, false, names, nrec, n);
	limits(&lim);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_capture_new(&cap, &err), 0);
	ck_assert_int_eq(wc_streams_new(&st, path, &lim, f, &err), 0);
	ck_assert_int_eq(wc_members_scan(&m, path, st, cap, &lim, &err), -1);
	ck_assert_ptr_null(m);
	ck_assert_msg(strstr(err.msg, why), "%s", err.msg);
	wc_streams_free(st);
	wc_capture_free(cap);
	wc_recfilter_free(f);
}

START_TEST(test_one_capture)
{
	static const char *const two[] = {
		"a/trace/sda.blktrace.0", "b/trace/sda.blktrace.1",
	};
	static const char *const conf_twice[] = {
		"c/capture.conf", "c/trace/sda.blktrace.0", "./c/capture.conf",
	};
	static const char *const bad_cpu[] = {
		"c/trace/sda.blktrace.0", "c/trace/sda.blktrace.65536",
	};
	static const char *const none[] = { "c/trace/notes.txt" };

	refused(two, 2, "the archive holds two captures, in a/ and b/");
	refused(conf_twice, 3, "twice in the archive");
	refused(bad_cpu, 2, "its CPU part is no number");
	refused(none, 1, "archive without traces");
}
END_TEST

/*
 * A one-pass scan (lim.once) of NAMES, in that order: 0 when it took
 * them, with every trace file held in memory or copied aside (pulled to
 * their ends, round-robin, with no open of the archive after the scan's
 * one) and the capture's ledger.tsv copied aside: LEDGER its member's
 * name, or NULL when the capture has none; -1 with WHY in the message.
 * With MODEL, lim.once_model instead and a capture.conf that names a
 * model disk: the same, or 1 when the scan did not read in one pass.
 */
static int once(const char *const *names, unsigned n, const char *ledger,
		const char *why, bool model)
{
	static const unsigned nrec[] = { 200, 200, 200, 200, 200, 200, 200 };
	static const char *const aside[] = { "ledger.tsv" };
	const char *path = wc_check_path("once.tar.gz");
	struct wc_input_limits lim;
	struct wc_recfilter *f = NULL;
	struct wc_streams *st = NULL;
	struct wc_members *m = NULL;
	struct wc_capture *cap = NULL;
	struct wc_source *src = NULL;
	const unsigned char *p;
	struct wc_event ev;
	struct wc_err err;
	unsigned k, live, events = 0, ntrace = 0;
	int r;

	ck_assert_uint_le(n, 7);
	for (k = 0; k < n; k++)
		ntrace += !!strstr(names[k], "blktrace");
	conf_model = model;
	write_archive(path, true, names, nrec, n);
	conf_model = false;
	limits(&lim);
	lim.once = !model;
	lim.once_model = model;
	lim.aside_files = aside;
	lim.naside_files = 1;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_recfilter_open(&f), 0);
	ck_assert_int_eq(wc_capture_new(&cap, &err), 0);
	ck_assert_int_eq(wc_streams_new(&st, path, &lim, f, &err), 0);
	wc_check_archive_opens = 0;
	r = wc_members_scan(&m, path, st, cap, &lim, &err);
	if (r < 0) {
		ck_assert_ptr_null(m);
		ck_assert_msg(why && strstr(err.msg, why), "%s", err.msg);
		goto free_streams;
	}
	ck_assert_msg(!why, "taken, not refused (%s)", why);
	if (!wc_members_once(m)) {
		wc_members_free(m);
		r = 1;
		goto free_streams;
	}
	ck_assert_int_eq(wc_streams_seal(st, WC_STREAMS_MEMBERS, &err), 0);
	ck_assert_uint_eq(wc_streams_count(st), ntrace);
	ck_assert(!wc_streams_may_close(st));
	do {
		live = 0;
		for (k = 0; k < ntrace; k++) {
			r = wc_streams_pull_one(st, k, &ev, 0, &err);
			ck_assert_msg(r >= 0, "%s", err.msg);
			live += r > 0;
			events += r > 0;
		}
	} while (live);
	ck_assert_uint_eq(events, 200 * ntrace);
	ck_assert_int_eq(wc_members_open_aside(m, "ledger.tsv", &src, &err), 0);
	if (ledger) {
		ck_assert_ptr_nonnull(src);
		ck_assert_int_eq(wc_source_peek_all(src, strlen(ledger), &p,
						    &err),
				 (ssize_t)strlen(ledger));
		ck_assert(!memcmp(p, ledger, strlen(ledger)));
		ck_assert_str_eq(wc_source_member(src), ledger);
	} else {
		ck_assert_ptr_null(src);
	}
	wc_source_free(src);
	/* a file the scan was not asked to copy is the caller's mistake */
	ck_assert_int_eq(wc_members_open_aside(m, "phases.tsv", &src, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	ck_assert_uint_eq(wc_check_archive_opens, 1);
	wc_members_free(m);
	r = 0;
free_streams:
	wc_streams_free(st);
	wc_capture_free(cap);
	wc_recfilter_free(f);
	return r;
}

/* The members' order is the archive writer's: the ledger before or after
 * the trace files, before capture.conf, another folder's before or
 * after the capture's. */
START_TEST(test_once)
{
	static const char *const shipped[] = {
		"c/capture.conf", "c/trace/sda.blktrace.0",
		"c/trace/sda.blktrace.1", "c/ledger.tsv",
	};
	static const char *const first[] = {
		"c/ledger.tsv", "c/trace/sda.blktrace.1", "c/capture.conf",
		"c/trace/sda.blktrace.0",
	};
	static const char *const between[] = {
		"c/trace/sda.blktrace.0", "c/ledger.tsv",
		"c/trace/sda.blktrace.1", "c/trace/sda.blktrace.2",
	};
	static const char *const top[] = {
		"ledger.tsv", "sda.blktrace.0", "capture.conf",
	};
	static const char *const none[] = {
		"c/capture.conf", "c/trace/sda.blktrace.0",
	};
	/* another folder's: copied on trust, then given up */
	static const char *const other_first[] = {
		"d/ledger.tsv", "c/trace/sda.blktrace.0", "c/capture.conf",
	};
	static const char *const other_after[] = {
		"c/trace/sda.blktrace.0", "d/ledger.tsv", "c/ledger.tsv",
	};
	static const char *const two_folders[] = {
		"d/ledger.tsv", "c/ledger.tsv", "c/trace/sda.blktrace.0",
	};
	static const char *const twice[] = {
		"c/ledger.tsv", "c/trace/sda.blktrace.0", "./c/ledger.tsv",
	};

	ck_assert_int_eq(once(shipped, 4, "c/ledger.tsv", NULL, false), 0);
	ck_assert_int_eq(once(first, 4, "c/ledger.tsv", NULL, false), 0);
	ck_assert_int_eq(once(between, 4, "c/ledger.tsv", NULL, false), 0);
	ck_assert_int_eq(once(top, 3, "ledger.tsv", NULL, false), 0);
	ck_assert_int_eq(once(none, 2, NULL, NULL, false), 0);
	ck_assert_int_eq(once(other_first, 3, NULL, NULL, false), 0);
	ck_assert_int_eq(once(other_after, 3, "c/ledger.tsv", NULL, false),
			 0);
	ck_assert_int_eq(once(two_folders, 3, NULL, "also in another folder",
			      false), -1);
	ck_assert_int_eq(once(twice, 3, NULL, "twice in the archive", false),
			 -1);
}
END_TEST

/* lim.once_model, capture.conf naming a model disk: one pass from it
 * on, when the scan meets it before the ledger, else the scan as it
 * was. */
START_TEST(test_once_model)
{
	static const char *const shipped[] = {
		"c/capture.conf", "c/trace/sda.blktrace.0",
		"c/trace/sda.blktrace.1", "c/ledger.tsv",
	};
	static const char *const ledger_first[] = {
		"c/ledger.tsv", "c/trace/sda.blktrace.1", "c/capture.conf",
		"c/trace/sda.blktrace.0",
	};

	ck_assert_int_eq(once(shipped, 4, "c/ledger.tsv", NULL, true), 0);
	/* the ledger met before capture.conf: not copied, so the scan
	 * stays as it was (the analysis reads the ledger again) */
	ck_assert_int_eq(once(ledger_first, 4, NULL, NULL, true), 1);
}
END_TEST

/* The name rules alone, as the writer (pack.h) asks them, member by
 * member. */
START_TEST(test_rules)
{
	struct wc_member_rules r = { 0 };
	struct wc_err err;
	size_t baselen = 0;
	long cpu;
	int side;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_member_rules_check(&r, "x", "c/capture.conf", &cpu,
					       &baselen, &side, &err),
			 WC_MEMBER_SIDE);
	ck_assert_int_eq(side, 0);
	ck_assert_int_eq(wc_member_rules_check(&r, "x", "c/trace/sda.blktrace.3",
					       &cpu, &baselen, &side, &err),
			 WC_MEMBER_TRACE);
	ck_assert_int_eq(cpu, 3);
	ck_assert_uint_eq(baselen, strlen("c/trace/sda"));
	ck_assert_int_eq(wc_member_rules_check(&r, "x", "c/info/notes.txt",
					       &cpu, &baselen, &side, &err),
			 WC_MEMBER_OTHER);
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	ck_assert_int_eq(wc_member_rules_check(&r, "x", "c/info/sda.blktrace.0",
					       &cpu, &baselen, &side, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "two captures, in c/ and c/info/"));
	wc_err_clear(&err);
	ck_assert_int_eq(wc_member_rules_check(&r, "x", "c/sda.blktrace.1x",
					       &cpu, &baselen, &side, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "its CPU part is no number"));
	wc_err_clear(&err);
	ck_assert_int_eq(wc_member_rules_check(&r, "x", "c/capture.conf", &cpu,
					       &baselen, &side, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "twice in the archive"));
	wc_member_rules_free(&r);
	wc_member_rules_free(NULL);
}
END_TEST

static Suite *members_suite(void)
{
	Suite *s = suite_create("members");
	TCase *tc = tcase_create("core");

	wc_check_timeout(tc, 60);
	tcase_add_test(tc, test_held);
	tcase_add_test(tc, test_one_capture);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_once);
	tcase_add_test(tc, test_once_model);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(members_suite)
