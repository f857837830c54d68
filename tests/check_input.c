/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_input.c - unit tests of analyze/lib/input/input.c: resolving every kind
 * of INPUT (directory, base name, per-CPU file name, merged file, stdin,
 * archive), capture.conf and phases.tsv, process names from notify
 * records, messages, sequence gaps, and the archive diagnostics.
 * Fixtures: tests/fixtures/reader/ext4 (recorded through tracefs).
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "check_archive.h"
#include "check_common.h"
#include "format/encode.h"
#include "input/input_test.h"
#include "input/reorder.h"

#define FIX "tests/fixtures/reader/ext4"
/* blkparse prints 263 events for the ext4 fixture. */
#define FIX_EVENTS 263u


/* Reads all of path; checks time order; returns the number of events. */
static unsigned count(const char *path, struct wc_input **keep)
{
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	uint64_t last = 0;
	unsigned n = 0;
	int r;

	wc_err_clear(&err);
	ck_assert_msg(wc_input_open(&in, path, &err) == 0, "%s: %s", path, err.msg);
	while ((r = wc_input_next(in, &ev, &err)) > 0) {
		ck_assert_uint_ge(ev.time, last);
		last = ev.time;
		n++;
	}
	ck_assert_msg(r == 0, "%s: %s", path, err.msg);
	if (keep)
		*keep = in;
	else
		wc_input_free(in);
	return n;
}

START_TEST(test_directory)
{
	struct wc_input *in = NULL;
	const struct wc_stream_info *si;

	ck_assert_uint_eq(count(FIX, &in), FIX_EVENTS);
	ck_assert_uint_eq(wc_input_nstreams(in), 2);
	si = wc_input_stream(in, 0);
	ck_assert_uint_eq(si->cpu, 0);
	ck_assert_str_eq(si->name, FIX "/loop1.blktrace.0");
	ck_assert_uint_eq(si->skips, 0);     /* tracefs: all sequence 0 */
	si = wc_input_stream(in, 1);
	ck_assert_uint_eq(si->cpu, 1);
	ck_assert_ptr_null(wc_input_stream(in, 2));
	ck_assert_str_eq(wc_input_name(in), "ext4");
	ck_assert(!wc_input_capture(in)->has_conf);
	ck_assert_uint_eq(wc_input_capture(in)->nphases, 0);
	ck_assert_ptr_null(wc_input_comm(in, 1));
	ck_assert_uint_gt(wc_input_genesis(in), 0);
	wc_input_free(in);
	wc_input_free(NULL);
}
END_TEST

/* A path without a slash names the capture too (once got an empty name
 * from an overlapping copy). */
START_TEST(test_name_without_slash)
{
	struct wc_input *in = NULL;
	char cwd[4096];

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(FIX), 0);
	count("loop1", &in);
	ck_assert_str_eq(wc_input_name(in), "loop1");
	wc_input_free(in);
	ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

START_TEST(test_base_and_file_names)
{
	ck_assert_uint_eq(count(FIX "/loop1", NULL), FIX_EVENTS);
	/* A per-CPU file name stands for all its CPUs, as in blkparse. */
	ck_assert_uint_eq(count(FIX "/loop1.blktrace.1", NULL), FIX_EVENTS);
}
END_TEST

START_TEST(test_sparse_cpus)
{
	struct wc_input *in = NULL;
	unsigned char *b;
	char dir[64], file[128];
	size_t n;
	FILE *fp;
	int cpu;

	/* CPUs 0 and 5 only: blkparse would stop at the missing 1. */
	wc_check_template(dir, sizeof(dir), "check_input");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (cpu = 0; cpu < 2; cpu++) {
		snprintf(file, sizeof(file), FIX "/loop1.blktrace.%d", cpu);
		b = wc_check_slurp(file, &n);
		snprintf(file, sizeof(file), "%s/sdc.blktrace.%d", dir, cpu * 5);
		fp = fopen(file, "wb");
		ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
		fclose(fp);
		free(b);
	}
	snprintf(file, sizeof(file), "%s/sdc", dir);
	ck_assert_uint_eq(count(file, &in), FIX_EVENTS);
	ck_assert_uint_eq(wc_input_nstreams(in), 2);
	ck_assert_uint_eq(wc_input_stream(in, 0)->cpu, 0);
	ck_assert_uint_eq(wc_input_stream(in, 1)->cpu, 5);
	wc_input_free(in);
	snprintf(file, sizeof(file), "%s/sdc.blktrace.0", dir);
	unlink(file);
	snprintf(file, sizeof(file), "%s/sdc.blktrace.5", dir);
	unlink(file);
	rmdir(dir);
}
END_TEST

START_TEST(test_missing)
{
	struct wc_input *in = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, FIX "/sdz", &err), -1);
	ck_assert_ptr_null(in);
	ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "no sdz.blktrace.CPU files"));
}
END_TEST


static char apath[64];

static struct archive *archive_start(void)
{
	struct archive *a = archive_write_new();
	int fd;

	wc_check_template(apath, sizeof(apath), "check_input");
	fd = mkstemp(apath);
	ck_assert_int_ge(fd, 0);
	close(fd);
	archive_write_set_format_pax_restricted(a);
	archive_write_add_filter_gzip(a);
	ck_assert_int_eq(archive_write_open_filename(a, apath), ARCHIVE_OK);
	return a;
}

static void archive_end(struct archive *a)
{
	archive_write_close(a);
	archive_write_free(a);
}

START_TEST(test_capture_archive)
{
	static const char conf[] =
		"# a capture\n"
		"format_version = 1\n"
		"name = xfs-wc-on\n"
		"devices = loop1\n"
		"write_cache =  on  \n"
		"not a key value line\n"
		"barrier = off\n"
		"barrier = on\n";
	static const char phases[] =
		"phase\tstart_ns\tend_ns\treal_s\tuser_s\tsys_s\n"
		"copy\t100\t2000\t1.5\t0.25\t0.5\n"
		"delete\t3000\t9000\t6.0\t0\t1.25\n";
	struct wc_input *in = NULL;
	const struct wc_capture *cap;
	const struct wc_phase *ph;
	struct archive *a = archive_start();
	unsigned char *b;
	size_t n;

	/* Traces first, conf last: the order in the archive does not matter. */
	b = wc_check_slurp(FIX "/loop1.blktrace.1", &n);
	wc_check_archive_add(a, "xfs-wc-on/trace/loop1.blktrace.1", b, n);
	free(b);
	wc_check_archive_add(a, "xfs-wc-on/info/uname", "Linux\n", 6);
	b = wc_check_slurp(FIX "/loop1.blktrace.0", &n);
	wc_check_archive_add(a, "xfs-wc-on/trace/loop1.blktrace.0", b, n);
	free(b);
	wc_check_archive_add(a, "xfs-wc-on/phases.tsv", phases, sizeof(phases) - 1);
	wc_check_archive_add(a, "xfs-wc-on/capture.conf", conf, sizeof(conf) - 1);
	archive_end(a);

	ck_assert_uint_eq(count(apath, &in), FIX_EVENTS);
	ck_assert_str_eq(wc_input_name(in), "xfs-wc-on");
	cap = wc_input_capture(in);
	ck_assert_int_eq(cap->write_cache, 1);
	ck_assert_int_eq(cap->barrier, 1);
	ck_assert(!cap->journal_known);
	ck_assert_uint_eq(wc_input_nstreams(in), 2);
	ck_assert_str_eq(wc_input_stream(in, 0)->name, "xfs-wc-on/trace/loop1.blktrace.0");
	ck_assert_uint_eq(cap->nphases, 2);
	ph = &cap->phases[1];
	ck_assert_str_eq(ph->name, "delete");
	ck_assert_uint_eq(ph->start, 3000);
	ck_assert_uint_eq(ph->end, 9000);
	ck_assert_double_eq(ph->real_s, 6.0);
	ck_assert_double_eq(ph->sys_s, 1.25);
	wc_input_free(in);
	unlink(apath);
}
END_TEST

START_TEST(test_archive_diagnostics)
{
	struct wc_input *in = NULL;
	struct wc_err err;
	struct archive *a;

	a = archive_start();
	archive_end(a);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, apath, &err), -1);
	ck_assert_str_eq(err.msg, "empty archive");
	ck_assert_str_eq(err.file, apath);
	unlink(apath);

	a = archive_start();
	wc_check_archive_add(a, "run/capture.conf", "name = x\n", 9);
	wc_check_archive_add(a, "run/notes", "hello", 5);
	archive_end(a);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, apath, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "archive without traces"));
	unlink(apath);
}
END_TEST

static void put_event(FILE *fp, const struct wc_event *ev)
{
	static unsigned char rec[WC_BLK_V8_SIZE + WC_INPUT_STASH_BIG + 64];
	ssize_t n = wc_blk_encode(rec, sizeof(rec), ev, WC_BLK_VERSION_7,
				  false, NULL);

	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(fwrite(rec, 1, (size_t)n, fp), (size_t)n);
}

/* A hand-written trace: notify records, a message, sequence gaps. */
static void put(FILE *fp, uint32_t seq, uint64_t time, uint64_t action,
		uint32_t pid, const void *pdu, uint16_t pdu_len)
{
	const struct wc_event ev = {
		.sequence = seq, .time = time, .sector = 8 * time,
		.bytes = 4096, .action = action, .pid = pid,
		.device = WC_DEV_MAKE(8, 0), .pdu = pdu, .pdu_len = pdu_len,
	};

	put_event(fp, &ev);
}

START_TEST(test_notify_and_gaps)
{
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	const uint64_t notify = WC_TC(WC_TC_NOTIFY);
	uint32_t ts[2] = { 1700000000u, 1u };
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	char dir[64], file[128];
	unsigned n = 0, messages = 0;
	FILE *fp;

	wc_check_template(dir, sizeof(dir), "check_input");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/sda.blktrace.0", dir);
	fp = fopen(file, "wb");
	put(fp, 0, 5, notify | WC_TN_TIMESTAMP, 0, ts, 8);
	put(fp, 0, 9, notify | WC_TN_PROCESS, 42, "cp\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	put(fp, 1, 10, q, 42, NULL, 0);
	put(fp, 2, 11, q, 42, NULL, 0);
	put(fp, 0, 12, notify | WC_TN_MESSAGE, 0, "hi", 2);
	put(fp, 5, 13, q, 42, NULL, 0);            /* 3 and 4 lost */
	put(fp, 0, 14, notify | WC_TN_PROCESS, 42, "renamed", 7);
	put(fp, 6, 15, q, 43, NULL, 0);
	fclose(fp);

	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, dir, &err), 0);
	while (wc_input_next(in, &ev, &err) > 0) {
		ck_assert(!wc_event_is_notify(&ev) ||
			  ev.action == (notify | WC_TN_MESSAGE));
		if (wc_event_is_notify(&ev))
			messages++;
		n++;
	}
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(messages, 1);
	/* Timestamp and process records are not events: the genesis is the
	 * first real event. */
	ck_assert_uint_eq(wc_input_genesis(in), 10);
	/* The first name of a pid stays, as in blkparse. */
	ck_assert_str_eq(wc_input_comm(in, 42), "cp");
	ck_assert_ptr_null(wc_input_comm(in, 43));
	ck_assert_uint_eq(wc_input_stream(in, 0)->skips, 2);
	ck_assert_uint_eq(wc_input_stream(in, 0)->events, 8);
	wc_input_free(in);
	unlink(file);
	rmdir(dir);
}
END_TEST

/* Two CPU files that number the same (device, CPU) key in turns, while
 * the second adds keys that make the sequence map grow: each stream must
 * see the other's numbers, so none is a gap.  A stream that kept its
 * pointer into the map across a growth would count one at every turn
 * after it (and read freed memory). */
START_TEST(test_seq_shared_key_map_grows)
{
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	const unsigned nkeys = 300;
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	char dir[64], f0[128], f1[128];
	unsigned i, n = 0;
	FILE *fp0, *fp1;

	wc_check_template(dir, sizeof(dir), "check_input");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(f0, sizeof(f0), "%s/sda.blktrace.0", dir);
	snprintf(f1, sizeof(f1), "%s/sda.blktrace.1", dir);
	fp0 = fopen(f0, "wb");
	fp1 = fopen(f1, "wb");
	ck_assert_ptr_nonnull(fp0);
	ck_assert_ptr_nonnull(fp1);
	for (i = 0; i < nkeys; i++) {
		struct wc_event e = {
			.time = 3 * i + 1, .bytes = 4096, .action = q,
			.device = WC_DEV_MAKE(8, 0), .cpu = 0,
			.sequence = 2 * i + 1,
		};

		put_event(fp0, &e);           /* key (8:0, 0): 1, 3, 5, ... */
		e.time++;
		e.sequence++;
		put_event(fp1, &e);           /* the same key: 2, 4, 6, ... */
		e.time++;
		e.cpu = 1 + i;                /* a new key each time */
		e.sequence = 1;
		put_event(fp1, &e);
	}
	fclose(fp0);
	fclose(fp1);

	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, dir, &err), 0);
	while (wc_input_next(in, &ev, &err) > 0)
		n++;
	ck_assert_uint_eq(n, 3 * nkeys);
	ck_assert_uint_eq(wc_input_stream(in, 0)->skips, 0);
	ck_assert_uint_eq(wc_input_stream(in, 1)->skips, 0);
	wc_input_free(in);
	unlink(f0);
	unlink(f1);
	rmdir(dir);
}
END_TEST

/* A merged file (one stream) whose records take five (device, CPU) keys
 * in turns, three of them sharing a slot of the stream's answers (CPUs
 * 0, 16 and 32) and two of another device, while new keys keep making
 * the sequence map grow: no gap but the one at the end.  An answer kept
 * for another key of its slot counts gaps at every turn, one kept across
 * a growth of the map writes into freed memory and loses numbers. */
START_TEST(test_seq_hints_merged)
{
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	static const uint32_t cpus[] = { 0, 16, 1, 32, 1 };
	static const uint32_t minors[] = { 0, 0, 0, 0, 1 };
	const unsigned rounds = 200, nk = 5;
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	char dir[64], file[128];
	unsigned r, k, n = 0, events = 0;
	uint64_t t = 1;
	FILE *fp;

	wc_check_template(dir, sizeof(dir), "check_input");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/trace.merged", dir);
	fp = fopen(file, "wb");
	ck_assert_ptr_nonnull(fp);
	for (r = 0; r < rounds; r++) {
		struct wc_event e = {
			.bytes = 4096, .action = q, .sequence = r + 1,
		};

		for (k = 0; k < nk; k++) {
			e.time = t++;
			e.device = WC_DEV_MAKE(8, minors[k]);
			e.cpu = cpus[k];
			put_event(fp, &e);
			events++;
		}
		if (r % 3 == 0) {       /* a new key: the map grows now and then */
			e.time = t++;
			e.device = WC_DEV_MAKE(8, 0);
			e.cpu = 100 + r;
			e.sequence = 1;
			put_event(fp, &e);
			events++;
		}
	}
	{
		struct wc_event e = {
			.time = t, .bytes = 4096, .action = q,
			.device = WC_DEV_MAKE(8, 0), .cpu = 16,
			.sequence = rounds + 3,        /* two lost */
		};

		put_event(fp, &e);
		events++;
	}
	fclose(fp);

	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, file, &err), 0);
	while (wc_input_next(in, &ev, &err) > 0)
		n++;
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	ck_assert_uint_eq(n, events);
	ck_assert_uint_eq(wc_input_nstreams(in), 1);
	ck_assert_uint_eq(wc_input_stream(in, 0)->skips, 2);
	wc_input_free(in);
	unlink(file);
	rmdir(dir);
}
END_TEST

/* One CPU file: 600 writes of pid PID from time T0 every 20, and before
 * the AT-th of them a process notify naming pid 9 NAME.  Returns the
 * file's bytes. */
static unsigned char *names_cpu(const char *dir, unsigned cpu, uint32_t pid,
				uint64_t t0, unsigned at, const char *name,
				size_t *n)
{
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	const uint64_t process = WC_TC(WC_TC_NOTIFY) | WC_TN_PROCESS;
	char file[128];
	FILE *fp;
	unsigned i;

	snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, cpu);
	fp = fopen(file, "wb");
	for (i = 0; i < 600; i++) {
		if (i == at)
			put(fp, 0, t0 + 20 * i - 1, process, 9, name,
			    (uint16_t)strlen(name));
		put(fp, i + 1, t0 + 20 * i, q, pid, NULL, 0);
	}
	fclose(fp);
	return wc_check_slurp(file, n);
}

/* blkparse reads each CPU file 512 records at a time and names a pid at
 * the first process notify it reads: CPU 0's "zero" a few records into
 * its second batch is read as soon as that batch is, before CPU 1's
 * "one" at the start of CPU 1's second batch, though later in time. */
static void names_files(const char *dir, unsigned char **b0, size_t *n0,
			unsigned char **b1, size_t *n1)
{
	*b0 = names_cpu(dir, 0, 7, 1000, 515, "zero", n0);
	*b1 = names_cpu(dir, 1, 9, 1010, 512, "one", n1);
}

/* A merged file whose records take two keys in turns (A and B, each
 * numbered on), with a new key between two of A's now and then: the
 * answer kept for the key before (A's, kept when the new key is looked
 * up) is the one the map moved from when that key made it grow.  No gap
 * but the two at the end; one kept across the growth loses numbers. */
START_TEST(test_seq_turns_new_key)
{
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	const unsigned rounds = 300;
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	char dir[64], file[128];
	unsigned r, n = 0, events = 0;
	uint32_t a = 1, b = 1;
	uint64_t t = 1;
	FILE *fp;

	wc_check_template(dir, sizeof(dir), "check_input");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/trace.merged", dir);
	fp = fopen(file, "wb");
	ck_assert_ptr_nonnull(fp);
	for (r = 0; r < rounds; r++) {
		struct wc_event e = {
			.bytes = 4096, .action = q, .device = WC_DEV_MAKE(8, 0),
		};

		e.time = t++;
		e.cpu = 0;                              /* A */
		e.sequence = a++;
		put_event(fp, &e);
		events++;
		e.time = t++;
		e.cpu = 1000 + r;                       /* a new key */
		e.sequence = 1;
		put_event(fp, &e);
		events++;
		e.time = t++;
		e.cpu = 0;                              /* A again */
		e.sequence = a++;
		put_event(fp, &e);
		events++;
		e.time = t++;
		e.cpu = 1;                              /* B */
		e.sequence = b++;
		put_event(fp, &e);
		events++;
	}
	{
		struct wc_event e = {
			.time = t, .bytes = 4096, .action = q,
			.device = WC_DEV_MAKE(8, 0), .cpu = 0,
			.sequence = a + 2,              /* two lost */
		};

		put_event(fp, &e);
		events++;
	}
	fclose(fp);

	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, file, &err), 0);
	while (wc_input_next(in, &ev, &err) > 0)
		n++;
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	ck_assert_uint_eq(n, events);
	ck_assert_uint_eq(wc_input_stream(in, 0)->skips, 2);
	wc_input_free(in);
	unlink(file);
	rmdir(dir);
}
END_TEST

/* The name of every event of PATH (at most CAP) with blkparse's names,
 * read one at a time (max 0) or by wc_input_next_ref() MAX at a time,
 * each batch's names looked up only once the whole batch was handed out
 * (as --dump does): "" for none.  The events' times in TIMES.  The
 * number of events. */
static unsigned names_read(const char *path, const struct wc_input_limits *lim,
			   size_t max, char (*names)[16], uint64_t *times,
			   unsigned cap)
{
	struct wc_input *in = NULL;
	struct wc_err err;
	unsigned n = 0;
	int r;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open_limits(&in, path, lim, &err), 0);
	wc_input_set_blkparse_names(in);
	for (;;) {
		struct wc_event one;
		const struct wc_event *evs = &one;
		size_t got = 0, k;

		if (max)
			r = wc_input_next_ref(in, &evs, max, &got, &err);
		else
			got = (r = wc_input_next(in, &one, &err)) > 0;
		if (r <= 0)
			break;
		for (k = 0; k < got; k++) {
			const char *comm = wc_input_comm(in, evs[k].pid);

			ck_assert_uint_lt(n, cap);
			snprintf(names[n], sizeof(names[n]), "%s",
				 comm ? comm : "");
			times[n++] = evs[k].time;
		}
	}
	ck_assert_int_eq(r, 0);
	wc_input_free(in);
	return n;
}

/* Reads path with blkparse's names, one at a time and in batches of
 * several sizes (none of them a divisor of blkparse's 512): pid 9 has
 * none until CPU 0's second batch is read, right after its event 511
 * (time 11220), and then "zero" for good. */
static void names_check(const char *path, const struct wc_input_limits *lim)
{
	static const size_t maxes[] = { 0, 7, 100, WC_INPUT_BATCH };
	static char names[1200][16];
	static uint64_t times[1200];
	unsigned n, m, k;

	for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
		n = names_read(path, lim, maxes[m], names, times, 1200);
		ck_assert_uint_eq(n, 1200);
		for (k = 0; k < n; k++) {
			if (times[k] % 20 != 10)        /* not pid 9's */
				continue;
			if (times[k] < 11220)
				ck_assert_msg(!names[k][0], "%s: max %zu: time %"
					      PRIu64 ": %s", path, maxes[m],
					      times[k], names[k]);
			else
				ck_assert_msg(!strcmp(names[k], "zero"),
					      "%s: max %zu: time %" PRIu64
					      ": '%s'", path, maxes[m],
					      times[k], names[k]);
		}
	}
}

START_TEST(test_blkparse_names)
{
	const struct wc_input_limits whole = { 0 };
	const struct wc_input_limits none = { .no_memory = true };
	const struct wc_input_limits few = { .max_open = 1, .no_memory = true };
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	unsigned char *b0, *b1;
	size_t n0, n1;
	struct archive *a;
	char dir[PATH_MAX];

	/* The scratch directory, which goes at exit (check_common.h). */
	snprintf(dir, sizeof(dir), "%s", wc_check_tmpdir());
	names_files(dir, &b0, &n0, &b1, &n1);
	names_check(dir, NULL);
	a = archive_start();
	wc_check_archive_add(a, "c/trace/sda.blktrace.0", b0, n0);
	wc_check_archive_add(a, "c/trace/sda.blktrace.1", b1, n1);
	archive_end(a);
	free(b0);
	free(b1);
	names_check(apath, &whole);     /* members read whole: a borrowed scout */
	names_check(apath, &none);      /* a second handle kept for the scout */
	/* More members than handles: a scout pass on a handle of its own,
	 * the names queued by batch (it was none, and "one" as read). */
	names_check(apath, &few);
	/* Without the call, the first name handed out. */
	ck_assert_int_eq(wc_input_open(&in, dir, &err), 0);
	while (wc_input_next(in, &ev, &err) > 0)
		;
	ck_assert_str_eq(wc_input_comm(in, 9), "one");
	wc_input_free(in);
	unlink(apath);
}
END_TEST

/* A single stream (a merged file) with blkparse's names: the reorder
 * window reads it 512 events at a time, and a batch read names pids.
 * The two CPU files of names_files() merged in time order, each with
 * its own sequence numbers: an event handed out just before the batch
 * that names its pid gets no name, in batches of any size as one at a
 * time. */
START_TEST(test_blkparse_names_stream)
{
	static const size_t maxes[] = { 7, 100, WC_INPUT_BATCH };
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	const uint64_t process = WC_TC(WC_TC_NOTIFY) | WC_TN_PROCESS;
	static char want[1200][16], got[1200][16];
	static uint64_t tw[1200], tg[1200];
	char file[PATH_MAX];
	unsigned i, c, nw, ng, m, unnamed = 0;
	FILE *fp;

	snprintf(file, sizeof(file), "%s/merged", wc_check_tmpdir());
	fp = fopen(file, "wb");
	ck_assert_ptr_nonnull(fp);
	for (i = 0; i < 600; i++)
		for (c = 0; c < 2; c++) {
			struct wc_event ev = {
				.sequence = i + 1, .time = 1000 + 10 * c + 20 * i,
				.bytes = 4096, .action = q, .pid = c ? 9 : 7,
				.device = WC_DEV_MAKE(8, 0), .cpu = c,
			};

			ev.sector = 8 * ev.time;
			if (i == (c ? 512u : 515u)) {
				struct wc_event n = ev;

				n.action = process;
				n.pid = 9;
				n.time--;
				n.sequence = 0;
				n.pdu = (const unsigned char *)(c ? "one" : "zero");
				n.pdu_len = (uint16_t)strlen((const char *)n.pdu);
				put_event(fp, &n);
			}
			put_event(fp, &ev);
		}
	ck_assert_int_eq(fclose(fp), 0);
	nw = names_read(file, NULL, 0, want, tw, 1200);
	ck_assert_uint_eq(nw, 1200);
	for (i = 0; i < nw; i++)
		unnamed += tw[i] % 20 == 10 && !want[i][0];
	/* Named from the middle on: the test can see a name too early. */
	ck_assert_uint_gt(unnamed, 0);
	ck_assert_str_ne(want[nw - 1], "");
	for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
		ng = names_read(file, NULL, maxes[m], got, tg, 1200);
		ck_assert_uint_eq(ng, nw);
		ck_assert_mem_eq(tg, tw, nw * sizeof(*tw));
		for (i = 0; i < nw; i++)
			ck_assert_msg(!strcmp(got[i], want[i]), "max %zu: event "
				      "%u (time %" PRIu64 "): '%s', one at a "
				      "time '%s'", maxes[m], i, tg[i], got[i],
				      want[i]);
	}
	unlink(file);
}
END_TEST

/* Names are kept for a bounded number of pids, and gaps for a bounded
 * number of (device, cpu) pairs: a trace of endless distinct pids or cpu
 * numbers (corrupt, or made to hurt) cannot grow memory without end. */
START_TEST(test_bounded_tables)
{
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	const uint64_t process = WC_TC(WC_TC_NOTIFY) | WC_TN_PROCESS;
	const uint32_t npids = WC_INPUT_MAX_PIDS + 1000;
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	char dir[64], file[128], name[16];
	uint32_t pid;
	unsigned n = 0;
	FILE *fp;

	wc_check_template(dir, sizeof(dir), "check_input");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/sda.blktrace.0", dir);
	fp = fopen(file, "wb");
	ck_assert_ptr_nonnull(fp);
	for (pid = 1; pid <= npids; pid++) {
		memset(name, 0, sizeof(name));
		snprintf(name, sizeof(name), "p%u", pid);
		put(fp, 0, pid, process, pid, name, 16);
	}
	for (pid = 1; pid <= WC_INPUT_MAX_SEQ_KEYS + 10; pid++) {
		struct wc_event e = {
			.time = npids + pid, .bytes = 4096, .action = q,
			.device = WC_DEV_MAKE(8, 0), .cpu = pid,
		};

		/* sequence 1 then 3 on every cpu: one gap each */
		e.sequence = 1;
		put_event(fp, &e);
		e.sequence = 3;
		put_event(fp, &e);
	}
	fclose(fp);

	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, dir, &err), 0);
	while (wc_input_next(in, &ev, &err) > 0)
		n++;
	ck_assert_uint_eq(n, 2 * (WC_INPUT_MAX_SEQ_KEYS + 10));
	ck_assert_str_eq(wc_input_comm(in, 1), "p1");
	snprintf(name, sizeof(name), "p%u", WC_INPUT_MAX_PIDS);
	ck_assert_str_eq(wc_input_comm(in, WC_INPUT_MAX_PIDS), name);
	ck_assert_ptr_null(wc_input_comm(in, WC_INPUT_MAX_PIDS + 1));
	ck_assert_ptr_null(wc_input_comm(in, npids));
	ck_assert_uint_eq(wc_input_stream(in, 0)->skips, WC_INPUT_MAX_SEQ_KEYS);
	wc_input_free(in);
	unlink(file);
	rmdir(dir);
}
END_TEST

/* The fixture's two CPU files one after the other into a new temporary
 * file: one interleaved stream, late events all through the second. */
static void concat_cpus(char *file, size_t size)
{
	unsigned char *a, *b;
	size_t na, nb;
	FILE *fp;
	int fd;

	a = wc_check_slurp(FIX "/loop1.blktrace.0", &na);
	b = wc_check_slurp(FIX "/loop1.blktrace.1", &nb);
	wc_check_template(file, size, "check_input");
	fd = mkstemp(file);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "wb");
	fwrite(a, 1, na, fp);
	fwrite(b, 1, nb, fp);
	fclose(fp);
	free(a);
	free(b);
}

START_TEST(test_stdin_and_merged)
{
	struct wc_input *in = NULL;
	char file[64];
	int fd;

	/* Put back in order through the reorder window. */
	concat_cpus(file, sizeof(file));
	ck_assert_uint_eq(count(file, &in), FIX_EVENTS);
	ck_assert_uint_eq(wc_input_nstreams(in), 1);
	ck_assert_uint_eq(wc_input_stream(in, 0)->cpu, UINT32_MAX);
	wc_input_free(in);

	/* The same through standard input (each test runs in its own
	 * process: replacing fd 0 is harmless). */
	fd = open(file, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	ck_assert_uint_eq(count("-", NULL), FIX_EVENTS);
	unlink(file);
}
END_TEST

/* A digest of each event of path, read one at a time (max 0) or by
 * wc_input_next_ref() max at a time, each batch looked at only after
 * the whole batch was handed out; the number of events. */
static unsigned ref_digests(const char *path, size_t max, uint64_t *out,
			    unsigned cap, uint64_t *backwards)
{
	struct wc_input *in = NULL;
	struct wc_err err;
	unsigned n = 0;
	int r;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_input_open(&in, path, &err), 0);
	for (;;) {
		struct wc_event one;
		const struct wc_event *evs = &one;
		size_t got = 0, k, i;

		if (max)
			r = wc_input_next_ref(in, &evs, max, &got, &err);
		else
			got = (r = wc_input_next(in, &one, &err)) > 0;
		if (r <= 0)
			break;
		ck_assert_uint_le(got, max ? max : 1);
		for (k = 0; k < got; k++) {
			uint64_t h = 1469598103934665603ull;

			h = (h ^ evs[k].time ^ evs[k].sector << 20 ^
			     evs[k].sequence) * 1099511628211ull;
			for (i = 0; i < evs[k].pdu_len; i++)
				h = (h ^ evs[k].pdu[i]) * 1099511628211ull;
			ck_assert_uint_lt(n, cap);
			out[n++] = h;
		}
	}
	ck_assert_int_eq(r, 0);
	*backwards = wc_input_backwards(in);
	wc_input_free(in);
	return n;
}

/* wc_input_next_ref() hands out the events wc_input_next() does, for a
 * single stream (events in place in the reorder window, or copied when
 * late ones are among them) and per-CPU files alike. */
START_TEST(test_next_ref)
{
	static uint64_t want[1024], got[1024];
	static const size_t maxes[] = { 1, 7, WC_INPUT_BATCH, 1000 };
	const char *paths[2];
	uint64_t bw, bg;
	char file[64];
	unsigned nw, ng, p, m;

	concat_cpus(file, sizeof(file));
	paths[0] = file;
	paths[1] = FIX;
	for (p = 0; p < 2; p++) {
		nw = ref_digests(paths[p], 0, want, 1024, &bw);
		ck_assert_uint_eq(nw, FIX_EVENTS);
		for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
			ng = ref_digests(paths[p], maxes[m], got, 1024, &bg);
			ck_assert_uint_eq(ng, nw);
			ck_assert_mem_eq(got, want, nw * sizeof(*want));
			ck_assert_uint_eq(bg, bw);
		}
	}
	unlink(file);
}
END_TEST

/* Records further out of order than the reorder window in a merged
 * file: each goes out earlier than the one before it, mid-batch or
 * first, among runs of the window's ring (wc_reorder_sorted(), whose
 * batches count only their first event, against the last before),
 * three before all the others and one before only the last few: the
 * same count, 4, and the same events one at a time and in batches of
 * every size. */
START_TEST(test_backwards_ref)
{
	static uint64_t want[20000], got[20000];
	static const size_t maxes[] = { 1, 7, WC_INPUT_BATCH };
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	const unsigned n = 20000;
	char dir[64], file[128];
	uint64_t bw, bg;
	unsigned i, nw, ng, m;
	FILE *fp;

	wc_check_template(dir, sizeof(dir), "check_input");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/trace.merged", dir);
	fp = fopen(file, "wb");
	ck_assert_ptr_nonnull(fp);
	for (i = 0; i < n; i++) {
		struct wc_event e = {
			.time = 10 * (uint64_t)i + 100, .bytes = 4096,
			.action = q, .device = WC_DEV_MAKE(8, 0),
			.sequence = i + 1,
		};

		if (i == WC_REORDER_WINDOW + 700 ||
		    i == WC_REORDER_WINDOW + 1701 ||
		    i == WC_REORDER_WINDOW + 3202)
			e.time = 5 + i % 7;     /* before all but these */
		if (i == WC_REORDER_WINDOW + 3500)  /* before a few only */
			e.time = 10 * 3496 + 105;
		put_event(fp, &e);
	}
	fclose(fp);
	nw = ref_digests(file, 0, want, n, &bw);
	ck_assert_uint_eq(nw, n);
	ck_assert_uint_eq(bw, 4);
	for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
		ng = ref_digests(file, maxes[m], got, n, &bg);
		ck_assert_uint_eq(ng, nw);
		ck_assert_mem_eq(got, want, nw * sizeof(*want));
		ck_assert_uint_eq(bg, bw);
	}
	unlink(file);
	rmdir(dir);
}
END_TEST

/* ---- a stream that ends within a batch -------------------------------- */

/* The payload of record SEQ of CPU CPU in the files of
 * test_ref_stream_ends(): 16 bytes no other record has. */
static void ends_pdu(unsigned cpu, uint32_t seq, unsigned char *pdu)
{
	unsigned j;

	for (j = 0; j < 16; j++)
		pdu[j] = (unsigned char)(cpu * 37 + seq + j);
}

/* Every event of a batch, looked at after the whole batch was handed
 * out: its payload is its record's.  MAX 0: one at a time; else by
 * wc_input_next_ref(), MAX at a time, looked at in place (REF) or
 * copied out.
 * The events, the last return in *r and its message in err. */
static unsigned ends_read(const char *dir, size_t max, bool ref, int *r,
			  struct wc_err *err)
{
	static struct wc_event copy[WC_INPUT_BATCH];
	struct wc_input *in = NULL;
	unsigned n = 0;

	wc_err_clear(err);
	ck_assert_int_eq(wc_input_open(&in, dir, err), 0);
	for (;;) {
		const struct wc_event *evs = copy;
		size_t got = 0, k;

		if (!max)
			got = (*r = wc_input_next(in, copy, err)) > 0;
		else
			*r = wc_input_next_ref(in, &evs, max, &got, err);
		/* Copied out, as a caller that holds events would. */
		if (max && !ref && *r > 0) {
			memcpy(copy, evs, got * sizeof(*copy));
			evs = copy;
		}
		if (*r <= 0)
			break;
		for (k = 0; k < got; k++) {
			unsigned char want[16];
			unsigned j, differ = 0;

			ends_pdu(evs[k].stream, evs[k].sequence, want);
			ck_assert_uint_eq(evs[k].pdu_len, 16);
			/* Byte by byte: ASan sees each read (a memcmp of 16
			 * bytes may be compiled into loads it does not). */
			for (j = 0; j < 16; j++)
				differ += evs[k].pdu[j] != want[j];
			ck_assert_msg(!differ, "max %zu%s: CPU %u record %u: "
				      "another payload", max, ref ? " ref" : "",
				      evs[k].stream, evs[k].sequence);
		}
		n += (unsigned)got;
	}
	wc_input_free(in);
	return n;
}

/* Three CPU files: CPU 0 fails at a bad record after 50 (in the bytes
 * its decoder already read, so in the middle of a batch: the merge's
 * pull under WC_PULL_BUFFERED fails it), CPU 1 ends cleanly after 20,
 * CPU 2 runs on to 200.  Every batch is looked at after it was handed
 * out, CPU 0's events in it too: the stream's buffer must outlive the
 * batch (streams.c, end_stream(); before, it was freed within the pull,
 * and --dump read a payload from freed memory under ASan, t17).  The
 * same events every way, then the failure. */
START_TEST(test_ref_stream_ends)
{
	static const unsigned nrec[3] = { 50, 20, 200 };
	static const size_t maxes[] = { 13, WC_INPUT_BATCH };
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	unsigned char pdu[16], junk[256];
	char dir[64], file[3][128];
	struct wc_err err;
	unsigned cpu, i, m, n;
	int r, ref;
	FILE *fp;

	wc_check_template(dir, sizeof(dir), "check_input");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (cpu = 0; cpu < 3; cpu++) {
		snprintf(file[cpu], sizeof(file[cpu]), "%s/sda.blktrace.%u",
			 dir, cpu);
		fp = fopen(file[cpu], "wb");
		ck_assert_ptr_nonnull(fp);
		for (i = 1; i <= nrec[cpu]; i++) {
			ends_pdu(cpu, i, pdu);
			put(fp, i, 10 + 3 * (uint64_t)i + cpu, q, 42, pdu, 16);
		}
		/* Not the magic: "bad magic", a whole header's worth. */
		memset(junk, 0xab, sizeof(junk));
		if (cpu == 0)
			ck_assert_uint_eq(fwrite(junk, 1, sizeof(junk), fp),
					  sizeof(junk));
		fclose(fp);
	}
	n = ends_read(dir, 0, false, &r, &err);
	ck_assert_uint_eq(n, 50 + 20 + 200);
	ck_assert_int_eq(r, -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "bad magic"));
	for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++)
		for (ref = 0; ref < 2; ref++) {
			n = ends_read(dir, maxes[m], ref, &r, &err);
			ck_assert_uint_eq(n, 50 + 20 + 200);
			ck_assert_int_eq(r, -1);
			ck_assert_ptr_nonnull(strstr(err.msg, "bad magic"));
		}
	for (cpu = 0; cpu < 3; cpu++)
		unlink(file[cpu]);
	rmdir(dir);
}
END_TEST

/* ---- many files, few handles ------------------------------------------ */

/* Stream K of N: NREC records at times K, K+N, K+2N... so that the merge
 * takes one event from each stream in turn, the worst case for a bounded
 * number of open streams.  Every other record carries a 16-byte payload
 * (as remaps do), PDU_BIG on the first record a larger one. */
static unsigned char *make_stream(unsigned k, unsigned n, unsigned nrec,
				  uint16_t pdu_big, size_t *len)
{
	const uint64_t q = WC_TA_QUEUE | WC_TC(WC_TC_WRITE) | WC_TC(WC_TC_QUEUE);
	unsigned char pdu[WC_INPUT_STASH_BIG + 64];
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	unsigned r;

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_le(pdu_big, sizeof(pdu));
	for (r = 0; r < nrec; r++) {
		uint16_t pl = r % 2 ? 16 : 0;

		if (r == 0 && pdu_big)
			pl = pdu_big;
		memset(pdu, (int)(k * 7 + r), pl);
		put(fp, r + 1, 1000 + (uint64_t)r * n + k, q, k, pdu, pl);
	}
	fclose(fp);
	return (unsigned char *)buf;
}

/* Reads all of path under lim; returns the number of events and a digest
 * of every event's time, stream, sector and payload. */
static unsigned digest(const char *path, const struct wc_input_limits *lim,
		       uint64_t *sum, struct wc_err *err)
{
	struct wc_input *in = NULL;
	struct wc_event ev;
	uint64_t h = 1469598103934665603ull, last = 0;
	unsigned n = 0, i;
	int r;

	wc_err_clear(err);
	if (wc_input_open_limits(&in, path, lim, err) < 0)
		return 0;
	while ((r = wc_input_next(in, &ev, err)) > 0) {
		ck_assert_uint_ge(ev.time, last);
		last = ev.time;
		h = (h ^ ev.time ^ ev.sector << 20 ^ ev.pid) * 1099511628211ull;
		for (i = 0; i < ev.pdu_len; i++)
			h = (h ^ ev.pdu[i]) * 1099511628211ull;
		n++;
	}
	wc_input_free(in);
	*sum = h;
	return r < 0 ? 0 : n;
}

static void limit_files(rlim_t n)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = n;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* A new folder DIR (64 bytes) of NFILES streams of make_stream(), NREC
 * records each; dir_remove() removes it. */
static void dir_of_streams(char *dir, unsigned nfiles, unsigned nrec)
{
	char file[128];
	unsigned k;

	snprintf(dir, 64, "/tmp/check_input.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (k = 0; k < nfiles; k++) {
		size_t n;
		unsigned char *b = make_stream(k, nfiles, nrec, 0, &n);
		FILE *fp;

		snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, k);
		fp = fopen(file, "wb");
		ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
		fclose(fp);
		free(b);
	}
}

static void dir_remove(const char *dir, unsigned nfiles)
{
	char file[128];
	unsigned k;

	for (k = 0; k < nfiles; k++) {
		snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, k);
		unlink(file);
	}
	rmdir(dir);
}

/* 150 files in a folder, under a limit of 80 open files: each file once
 * held a descriptor for the whole merge. */
START_TEST(test_many_files_few_handles)
{
	struct wc_input_limits small = { .max_open = 4 };
	struct wc_err err;
	char dir[64];
	uint64_t d1, d2;

	dir_of_streams(dir, 150, 20);
	limit_files(80);
	ck_assert_msg(digest(dir, NULL, &d1, &err) == 150 * 20, "%s", err.msg);
	/* Four open at a time: streams closed and taken up again by seeks,
	 * the same events with the same payloads. */
	ck_assert_msg(digest(dir, &small, &d2, &err) == 150 * 20, "%s", err.msg);
	ck_assert_uint_eq(d1, d2);
	dir_remove(dir, 150);
}
END_TEST

/* Two inputs of 48 files each read at once (wcanalyze -j 2) under an
 * open-file limit of 40: each input's pool is its part of the limit
 * (lim.sharing, inputdefs.h).  With the whole room each, the second
 * input's opens failed at the limit. */
START_TEST(test_inputs_share_limit)
{
	struct wc_input_limits two = { .sharing = 2 };
	struct wc_input *in[2] = { NULL, NULL };
	uint64_t h[2] = { 1469598103934665603ull, 1469598103934665603ull };
	unsigned n[2] = { 0, 0 }, k, i, alone, ended = 0;
	const struct wc_event *evs;
	struct wc_err err;
	char dir[64];
	uint64_t d1;
	size_t got;
	int r;

	dir_of_streams(dir, 48, 500);
	alone = digest(dir, NULL, &d1, &err);
	ck_assert_msg(alone == 48 * 500, "%s", err.msg);
	limit_files(40);
	wc_err_clear(&err);
	for (k = 0; k < 2; k++)
		ck_assert_msg(wc_input_open_limits(&in[k], dir, &two, &err) == 0,
			      "%s", err.msg);
	/* A batch of each in turn: both hold their handles at once. */
	while (ended != 3) {
		for (k = 0; k < 2; k++) {
			if (ended & (1u << k))
				continue;
			r = wc_input_next_ref(in[k], &evs, 0, &got, &err);
			ck_assert_msg(r >= 0, "input %u: %s", k, err.msg);
			for (i = 0; i < got; i++) {
				h[k] = (h[k] ^ evs[i].time ^ evs[i].sector << 20 ^
					evs[i].pid) * 1099511628211ull;
				n[k]++;
			}
			if (r == 0)
				ended |= 1u << k;
		}
	}
	for (k = 0; k < 2; k++) {
		ck_assert_uint_eq(n[k], alone);
		wc_input_free(in[k]);
	}
	ck_assert_uint_eq(h[0], h[1]);
	dir_remove(dir, 48);
}
END_TEST

static void archive_of_streams(unsigned nmembers, unsigned nrec,
			       uint16_t pdu_big)
{
	struct archive *a = archive_start();
	char name[64];
	unsigned k;

	for (k = 0; k < nmembers; k++) {
		size_t n;
		unsigned char *b = make_stream(k, nmembers, nrec, pdu_big, &n);

		snprintf(name, sizeof(name), "run/trace/sda.blktrace.%u", k);
		wc_check_archive_add(a, name, b, n);
		free(b);
	}
	archive_end(a);
}

/* 3000 one-record members, under a limit of 80 open files: each member
 * once kept its own libarchive handle (and descriptor) for the merge. */
START_TEST(test_many_members_few_handles)
{
	struct wc_err err;
	uint64_t d;

	archive_of_streams(3000, 1, 0);
	limit_files(80);
	ck_assert_msg(digest(apath, NULL, &d, &err) == 3000, "%s", err.msg);
	unlink(apath);
}
END_TEST

/* Members too large for memory are closed and read again from the
 * archive's start up to where they stopped: the same events. */
START_TEST(test_members_resumed)
{
	struct wc_input_limits none = { .max_open = 3, .no_memory = true };
	struct wc_err err;
	uint64_t d1, d2;

	archive_of_streams(12, 200, 0);
	ck_assert_msg(digest(apath, NULL, &d1, &err) == 12 * 200, "%s", err.msg);
	ck_assert_msg(digest(apath, &none, &d2, &err) == 12 * 200, "%s", err.msg);
	ck_assert_uint_eq(d1, d2);
	unlink(apath);
}
END_TEST

/* Many members that each need a handle (too large to read whole: here
 * 16 KiB over a limit of 1 byte, nothing kept in memory), interleaved
 * in time, under 4 handles: the merge wants each member in turn, and the
 * member closed to make room (the one used longest ago) was the one
 * wanted next, reopened by decompressing the archive again from its
 * start: 87,040 events took that many decompressions and never ended
 * within the timeout (issue 22, case 1; 80 members of 1.6 MB as tar.xz
 * did not end in 25 minutes).  The members past the first two are now
 * copied aside at the scan: the same events, in seconds. */
START_TEST(test_many_large_members)
{
	struct wc_input_limits few = { .max_open = 4, .small_member = 1,
				       .no_memory = true };
	struct wc_err err;
	uint64_t d1, d2, d3;

	archive_of_streams(256, 340, 0);
	ck_assert_msg(digest(apath, NULL, &d1, &err) == 256 * 340, "%s", err.msg);
	/* 254 members copied aside, all open at once on the temporary
	 * file's one descriptor (WC_INPUT_ASIDE_OPEN): well under 64. */
	limit_files(64);
	ck_assert_msg(digest(apath, &few, &d2, &err) == 256 * 340, "%s", err.msg);
	ck_assert_uint_eq(d1, d2);
	/* The other path: one kept open, the rest closed and taken up
	 * again in the pool of handles. */
	few.aside_open = 1;
	ck_assert_msg(digest(apath, &few, &d3, &err) == 256 * 340, "%s", err.msg);
	ck_assert_uint_eq(d1, d3);
	unlink(apath);
}
END_TEST

/* Members closed for want of handles keep what their handle can still
 * read, so that they are not decompressed again from the archive's start
 * at every resume: the same events, whether the records kept reach the
 * member's end (a budget of 64 MiB) or end in the middle of it (128 KiB
 * a stream: taken up from memory, then from the reopened handle). */
START_TEST(test_members_kept)
{
	/* Copied aside, a member is kept open (WC_INPUT_ASIDE_OPEN): one
	 * only, so that the others are closed. */
	struct wc_input_limits kept = { .max_open = 3, .small_member = 1,
					.aside_open = 1 };
	struct wc_err err;
	uint64_t d1, d2, d3;

	archive_of_streams(12, 5000, 0);
	ck_assert_msg(digest(apath, NULL, &d1, &err) == 12 * 5000, "%s", err.msg);
	ck_assert_msg(digest(apath, &kept, &d2, &err) == 12 * 5000, "%s", err.msg);
	ck_assert_uint_eq(d1, d2);
	unlink(apath);
	/* One stream closed at a time, 5000 records of 48 or 64 bytes
	 * each, 128 KiB kept: it goes back to its handle several times. */
	archive_of_streams(5, 5000, 0);
	ck_assert_msg(digest(apath, NULL, &d1, &err) == 5 * 5000, "%s", err.msg);
	kept.mem_budget = 128 * 1024;
	ck_assert_msg(digest(apath, &kept, &d3, &err) == 5 * 5000, "%s", err.msg);
	ck_assert_uint_eq(d1, d3);
	unlink(apath);
}
END_TEST

/* A stream whose waiting event has a payload past what is set aside
 * for it (WC_INPUT_STASH_BIG) cannot be closed; with every open stream
 * so, the input says so instead of opening more.  A message's (100
 * bytes) is set aside: with every open stream waiting on one, the
 * input failed so under a pool of a few handles. */
START_TEST(test_pinned_streams)
{
	struct wc_input_limits two = { .max_open = 2, .no_memory = true,
				       .aside_open = 1 };
	struct wc_err err;
	uint64_t d, d4;

	/* One member from the archive, three copied aside, one of them
	 * kept open: two share the pool's other handle. */
	archive_of_streams(4, 4, 100);
	ck_assert_msg(digest(apath, &two, &d, &err) == 16, "%s", err.msg);
	two.max_open = 4;
	ck_assert_msg(digest(apath, &two, &d4, &err) == 16, "%s", err.msg);
	ck_assert_uint_eq(d, d4);
	two.max_open = 2;
	unlink(apath);
	archive_of_streams(4, 4, WC_INPUT_STASH_BIG + 8);
	ck_assert_uint_eq(digest(apath, &two, &d, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "more than 2 trace files hold payloads"));
	/* Members copied aside and kept open are never closed: their
	 * payloads need no stash. */
	two.aside_open = 0;
	ck_assert_msg(digest(apath, &two, &d, &err) == 16, "%s", err.msg);
	/* With room for all of them, the same archive reads. */
	two.aside_open = 1;
	two.max_open = 4;
	ck_assert_msg(digest(apath, &two, &d, &err) == 16, "%s", err.msg);
	unlink(apath);
}
END_TEST

/* Events until the end or the error; the count, the error in *err. */
static unsigned read_to_error(const char *path,
			      const struct wc_input_limits *lim, int *r,
			      struct wc_err *err)
{
	struct wc_input *in = NULL;
	struct wc_event ev;
	unsigned n = 0;

	wc_err_clear(err);
	ck_assert_int_eq(wc_input_open_limits(&in, path, lim, err), 0);
	while ((*r = wc_input_next(in, &ev, err)) > 0)
		n++;
	wc_input_free(in);
	return n;
}

/* Members read ahead on threads (each has a handle of its own), one of
 * them ending in the middle of a record: every event before it, then
 * the decoder's message at the record's offset, as from a folder of the
 * same files, and as from the archive read without threads (more members
 * than handles: streams closed, kept and reopened). */
START_TEST(test_members_ahead_cut)
{
	const struct wc_input_limits ahead = { .small_member = 1 };
	const struct wc_input_limits few = { .max_open = 2, .small_member = 1 };
	unsigned char *b[3];
	size_t len[3], cut;
	struct wc_err e1, e2, e3;
	char dir[64], file[128], name[64];
	struct archive *a;
	unsigned k, n1, n2, n3;
	int r1, r2, r3;
	FILE *fp;

	snprintf(dir, sizeof(dir), "/tmp/check_input.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (k = 0; k < 3; k++)
		b[k] = make_stream(k, 3, 20000, 0, &len[k]);
	/* 20000 records of 48 and 64 bytes: 1.1 MB, 17 blocks; cut in
	 * the header of its record 15001. */
	cut = (size_t)7500 * 48 + (size_t)7500 * 64 + 20;
	ck_assert_uint_lt(cut, len[1]);
	len[1] = cut;
	a = archive_start();
	for (k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "run/trace/sda.blktrace.%u", k);
		wc_check_archive_add(a, name, b[k], len[k]);
		snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, k);
		fp = fopen(file, "wb");
		ck_assert_uint_eq(fwrite(b[k], 1, len[k], fp), len[k]);
		fclose(fp);
	}
	archive_end(a);

	n1 = read_to_error(apath, &ahead, &r1, &e1);
	n2 = read_to_error(dir, NULL, &r2, &e2);
	n3 = read_to_error(apath, &few, &r3, &e3);
	ck_assert_int_eq(r1, -1);
	ck_assert_str_eq(e1.msg, "truncated record: 20 of 48 header bytes");
	ck_assert_str_eq(e1.member, "run/trace/sda.blktrace.1");
	ck_assert_uint_eq(e1.offset, cut - 20);
	/* Its 15000 whole records, and all of the other two: one bad
	 * stream does not hide the others. */
	ck_assert_uint_eq(n1, 15000 + 2 * 20000);
	ck_assert_int_eq(r2, -1);
	ck_assert_uint_eq(n2, n1);
	ck_assert_str_eq(e2.msg, e1.msg);
	ck_assert_uint_eq(e2.offset, e1.offset);
	ck_assert_int_eq(r3, -1);
	ck_assert_uint_eq(n3, n1);
	ck_assert_str_eq(e3.msg, e1.msg);
	ck_assert_str_eq(e3.member, e1.member);
	ck_assert_uint_eq(e3.offset, e1.offset);
	for (k = 0; k < 3; k++) {
		snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, k);
		unlink(file);
		free(b[k]);
	}
	rmdir(dir);
	unlink(apath);
}
END_TEST

/* More members than are read on threads (WC_INPUT_AHEAD), fewer than
 * may be open: the first read ahead, the others on the caller's thread,
 * the same events as with every member read whole at the scan. */
START_TEST(test_members_some_ahead)
{
	const struct wc_input_limits handles = { .small_member = 1 };
	struct wc_err err;
	uint64_t d1, d2;

	archive_of_streams(WC_INPUT_AHEAD + 4, 3000, 0);
	ck_assert_msg(digest(apath, NULL, &d1, &err) == (WC_INPUT_AHEAD + 4) * 3000,
		      "%s", err.msg);
	ck_assert_msg(digest(apath, &handles, &d2, &err) == (WC_INPUT_AHEAD + 4) * 3000,
		      "%s", err.msg);
	ck_assert_uint_eq(d1, d2);
	unlink(apath);
}
END_TEST

/* The sizes of the batches wc_input_next_ref() hands out of path under
 * lim, in sizes[] (at most cap of them, each ended by where a stream
 * would have to read: merge.h), and a digest of their events in *sum:
 * the number of batches. */
static unsigned batch_sizes(const char *path, const struct wc_input_limits *lim,
			    uint32_t *sizes, unsigned cap, uint64_t *sum)
{
	struct wc_input *in = NULL;
	const struct wc_event *evs;
	uint64_t h = 1469598103934665603ull;
	struct wc_err err;
	unsigned n = 0;
	size_t got, k;
	int r;

	wc_err_clear(&err);
	ck_assert_msg(wc_input_open_limits(&in, path, lim, &err) == 0, "%s",
		      err.msg);
	while ((r = wc_input_next_ref(in, &evs, WC_INPUT_BATCH, &got,
				      &err)) > 0) {
		ck_assert_uint_lt(n, cap);
		sizes[n++] = (uint32_t)got;
		for (k = 0; k < got; k++)
			h = (h ^ evs[k].time ^ evs[k].sector << 20) *
			    1099511628211ull;
	}
	ck_assert_msg(r == 0, "%s", err.msg);
	wc_input_free(in);
	*sum = h;
	return n;
}

/* A one-pass input (lim.once: a timeline's, a bundle's) copies aside the
 * members it would have read on handles of their own and reads the
 * copies in the handles' blocks (wc_source_open_region_blocks()): the
 * same batches, so the same timeline, whose lines follow the batches
 * (traceevent.h).  Four members of 5,000 records each need a handle
 * (nothing held in memory), two of which get one (max_open 4): the
 * others are copied aside both ways, read through a region's small
 * buffer.  In 8 KiB reads, starting at 4 KiB, the copies ended the
 * batches elsewhere. */
START_TEST(test_once_same_batches)
{
	static uint32_t want[4096], got[4096];
	struct wc_input_limits handles = { .small_member = 1, .max_open = 4 };
	struct wc_input_limits once = { .small_member = 1, .max_open = 4,
					.once = true };
	uint64_t dw, dg;
	unsigned nw, ng;

	archive_of_streams(4, 5000, 0);
	nw = batch_sizes(apath, &handles, want, 4096, &dw);
	ng = batch_sizes(apath, &once, got, 4096, &dg);
	ck_assert_uint_eq(dg, dw);
	ck_assert_uint_eq(ng, nw);
	ck_assert_mem_eq(got, want, nw * sizeof(want[0]));
	/* Every member on a handle of its own, or copied in place of one. */
	handles.max_open = once.max_open = 0;
	nw = batch_sizes(apath, &handles, want, 4096, &dw);
	ng = batch_sizes(apath, &once, got, 4096, &dg);
	ck_assert_uint_eq(dg, dw);
	ck_assert_uint_eq(ng, nw);
	ck_assert_mem_eq(got, want, nw * sizeof(want[0]));
	unlink(apath);
}
END_TEST

/* An input read from a descriptor its caller's peek opened
 * (wc_input_open_fd_any(): a bundle's, a timeline's) reads it from its
 * start, whatever the peek read, and closes it; a descriptor that is no
 * regular file's (a folder's) is closed and the path opened instead. */
START_TEST(test_open_fd)
{
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	unsigned char b[16];
	char file[64];
	unsigned n;
	int fd, r;

	concat_cpus(file, sizeof(file));
	wc_err_clear(&err);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, b, sizeof(b)), (ssize_t)sizeof(b));
	ck_assert_int_eq(wc_input_open_fd_any(&in, NULL, file, fd, NULL,
					      &err), 0);
	for (n = 0; (r = wc_input_next(in, &ev, &err)) > 0; n++)
		;
	ck_assert_msg(r == 0, "%s", err.msg);
	ck_assert_uint_eq(n, FIX_EVENTS);
	wc_input_free(in);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	fd = open(FIX, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(wc_input_open_fd_any(&in, NULL, FIX, fd, NULL, &err),
			 0);
	for (n = 0; (r = wc_input_next(in, &ev, &err)) > 0; n++)
		;
	ck_assert_msg(r == 0, "%s", err.msg);
	ck_assert_uint_eq(n, FIX_EVENTS);
	wc_input_free(in);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	unlink(file);
}
END_TEST

/* Threads of the process (the test's own, and readers still running). */
static unsigned tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* tasks() once it is at most want, or after 2 s: a joined thread can
 * still be listed for a moment after pthread_join() returns, one never
 * stopped for ever. */
static unsigned tasks_settled(unsigned want)
{
	unsigned n, i;

	for (i = 0; (n = tasks()) > want && i < 200; i++)
		usleep(10000);
	return n;
}

/* A compressed archive cut in its fourth member: the scan has started a
 * reader thread for each member before it, then fails.  The open says
 * what the scan met, and every thread it started is stopped and gone.
 * With more members than handles the scan copies the members past the
 * first aside (spill_member()), and meets the cut in the member's data,
 * not at the next header: libarchive's words differ, "truncated" both. */
START_TEST(test_scan_truncated)
{
	const struct wc_input_limits ahead = { .small_member = 1 };
	const struct wc_input_limits few = { .max_open = 2, .small_member = 1 };
	struct wc_input *in = NULL;
	struct wc_err e1, e2;
	unsigned before;
	struct stat st;
	uint64_t d;

	archive_of_streams(6, 20000, 0);
	ck_assert_int_eq(stat(apath, &st), 0);
	ck_assert_int_eq(truncate(apath, st.st_size / 2), 0);
	/* A run of the readers first: what a runtime (a sanitizer) starts
	 * beside the first thread is counted in before. */
	ck_assert_uint_eq(digest(apath, &few, &d, &e1), 0);
	before = tasks_settled(1);
	wc_err_clear(&e1);
	ck_assert_int_eq(wc_input_open_limits(&in, apath, &ahead, &e1), -1);
	ck_assert_ptr_null(in);
	ck_assert_uint_eq(tasks_settled(before), before);
	ck_assert_int_eq(e1.kind, WC_ERR_INPUT);
	ck_assert_str_eq(e1.file, apath);
	ck_assert_uint_gt(strlen(e1.msg), 0);
	wc_err_clear(&e2);
	ck_assert_int_eq(wc_input_open_limits(&in, apath, &few, &e2), -1);
	ck_assert_int_eq(e2.kind, WC_ERR_INPUT);
	ck_assert_str_eq(e2.file, apath);
	ck_assert_ptr_nonnull(strcasestr(e1.msg, "truncated"));
	ck_assert_ptr_nonnull(strcasestr(e2.msg, "truncated"));
	unlink(apath);
}
END_TEST

/* ---- speculation: the scan stops at the last announced trace file ---- */

/* A member of a speculation fixture: NAME, and either text or a stream
 * made by make_stream() (K, of NREC records), or LEN pseudo-random bytes
 * (which gzip cannot shrink). */
struct spec_member {
	const char *name;
	const char *text;
	int k;
	unsigned nrec;
	size_t random;
};

#define SPEC_STREAMS 3u

static void spec_archive(const struct spec_member *m, size_t n)
{
	struct archive *a = archive_start();
	size_t i, len, j;

	for (i = 0; i < n; i++) {
		unsigned char *b;
		uint32_t x = 12345;

		if (m[i].text) {
			wc_check_archive_add(a, m[i].name, m[i].text, strlen(m[i].text));
			continue;
		}
		if (m[i].random) {
			b = malloc(m[i].random);
			ck_assert_ptr_nonnull(b);
			for (j = 0; j < m[i].random; j++) {
				x = x * 1103515245u + 12345u;
				b[j] = (unsigned char)(x >> 23);
			}
			wc_check_archive_add(a, m[i].name, b, m[i].random);
			free(b);
			continue;
		}
		b = make_stream((unsigned)m[i].k, SPEC_STREAMS, m[i].nrec, 0, &len);
		wc_check_archive_add(a, m[i].name, b, len);
		free(b);
	}
	archive_end(a);
}

/* What an input reports, read to its end. */
struct spec_read {
	int open_r, r;
	bool speculated;
	unsigned events;
	uint64_t sum;
	size_t nstreams;
	uint64_t stream_events[8];
	char name[256];
	size_t nphases;
	uint32_t trace_files;
	struct wc_err err;
};

static void spec_read(const char *path, bool speculate, size_t stop_after,
		      struct spec_read *out)
{
	struct wc_input_limits lim = { .small_member = 1,
				       .speculate = speculate };
	struct wc_input *in = NULL;
	struct wc_event ev;
	uint64_t h = 1469598103934665603ull;
	unsigned i;
	int r;

	memset(out, 0, sizeof(*out));
	wc_err_clear(&out->err);
	out->open_r = wc_input_open_limits(&in, path, &lim, &out->err);
	if (out->open_r < 0)
		return;
	out->speculated = wc_input_speculated(in);
	while ((r = wc_input_next(in, &ev, &out->err)) > 0) {
		h = (h ^ ev.time ^ ev.sector << 20 ^ ev.pid) * 1099511628211ull;
		for (i = 0; i < ev.pdu_len; i++)
			h = (h ^ ev.pdu[i]) * 1099511628211ull;
		if (++out->events == stop_after)
			break;
	}
	out->r = r;
	out->sum = h;
	/* After its end or failure, an input says the same again. */
	if (r <= 0 && stop_after == 0)
		ck_assert_int_eq(wc_input_next(in, &ev, NULL), r);
	out->nstreams = wc_input_nstreams(in);
	for (i = 0; i < out->nstreams && i < 8; i++)
		out->stream_events[i] = wc_input_stream(in, (size_t)i)->events;
	snprintf(out->name, sizeof(out->name), "%s", wc_input_capture(in)->name);
	out->nphases = wc_input_capture(in)->nphases;
	out->trace_files = wc_input_capture(in)->trace_files;
	wc_input_free(in);
}

static void spec_same(const struct spec_read *a, const struct spec_read *b)
{
	size_t i;

	ck_assert_int_eq(a->open_r, 0);
	ck_assert_int_eq(b->open_r, 0);
	ck_assert_msg(a->r == 0 && b->r == 0, "%s / %s", a->err.msg, b->err.msg);
	ck_assert_uint_eq(a->events, b->events);
	ck_assert_uint_eq(a->sum, b->sum);
	ck_assert_uint_eq(a->nstreams, b->nstreams);
	for (i = 0; i < a->nstreams && i < 8; i++)
		ck_assert_uint_eq(a->stream_events[i], b->stream_events[i]);
	ck_assert_str_eq(a->name, b->name);
	ck_assert_uint_eq(a->nphases, b->nphases);
	ck_assert_uint_eq(a->trace_files, b->trace_files);
}

#define SPEC_CONF(n) "name = spec\ntrace_files = " #n "\n"
#define SPEC_PHASES "phase\tstart_ns\tend_ns\treal_s\tuser_s\tsys_s\n" \
		    "copy\t1000\t9000000\t1.0\t0.5\t0.5\n"

/* An archive packed as wccapture packs it: the scan stops at its last
 * trace file, and the input reports what the whole scan does. */
START_TEST(test_spec_announced)
{
	const struct spec_member m[] = {
		{ "run/capture.conf", SPEC_CONF(3), 0, 0, 0 },
		{ "run/phases.tsv", SPEC_PHASES, 0, 0, 0 },
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 300, 0 },
		{ "run/trace/sda.blktrace.2", NULL, 2, 20000, 0 },
		{ "run/info/notes.txt", "notes\n", 0, 0, 0 },
		{ "run/ledger.tsv", NULL, 0, 0, 300000 },
	};
	struct spec_read whole, spec;

	spec_archive(m, sizeof(m) / sizeof(m[0]));
	spec_read(apath, false, 0, &whole);
	spec_read(apath, true, 0, &spec);
	ck_assert(!whole.speculated);
	ck_assert(spec.speculated);
	spec_same(&spec, &whole);
	ck_assert_uint_eq(spec.nstreams, 3);
	ck_assert_uint_eq(spec.events, 2 * 20000 + 300);
	ck_assert_uint_eq(spec.nphases, 1);
	ck_assert_str_eq(spec.name, "spec");
	unlink(apath);
}
END_TEST

/* wc_analysis_read() on an archive that is not as announced: the first
 * read fails with WC_ERR_AGAIN at its end, and the analysis is that of
 * the whole scan (and its message, when the whole scan fails). */
static void spec_again(const struct spec_member *m, size_t n, off_t cut_at)
{
	struct spec_read whole, spec;
	struct wc_analysis *an = NULL;
	struct wc_err err, open_err;
	struct wc_input *in = NULL;
	struct stat st;
	int r;

	spec_archive(m, n);
	if (cut_at) {
		ck_assert_int_eq(stat(apath, &st), 0);
		ck_assert_int_eq(truncate(apath, cut_at > 0 ? cut_at :
					  st.st_size + cut_at), 0);
	}
	spec_read(apath, false, 0, &whole);
	spec_read(apath, true, 0, &spec);
	ck_assert(spec.speculated);
	ck_assert_int_eq(spec.open_r, 0);
	ck_assert_int_eq(spec.r, -1);
	ck_assert_int_eq(spec.err.kind, WC_ERR_AGAIN);
	ck_assert_uint_gt(strlen(spec.err.msg), 0);

	wc_err_clear(&err);
	r = wc_analysis_read(&an, apath, NULL, &err);
	if (whole.open_r < 0) {
		/* The whole scan's very message. */
		ck_assert_int_eq(r, -1);
		ck_assert_ptr_null(an);
		wc_err_clear(&open_err);
		ck_assert_int_eq(wc_input_open(&in, apath, &open_err), -1);
		ck_assert_int_eq(err.kind, open_err.kind);
		ck_assert_str_eq(err.msg, open_err.msg);
		ck_assert_str_eq(err.file, open_err.file);
		ck_assert_str_eq(err.member, open_err.member);
		ck_assert_uint_eq(err.offset, open_err.offset);
	} else {
		ck_assert_msg(r == 0, "%s", err.msg);
		ck_assert_int_eq(whole.r, 0);
		ck_assert_uint_eq(wc_analysis_meta(an)->events, whole.events);
	}
	wc_analysis_free(an);
	unlink(apath);
}

START_TEST(test_spec_more_traces)
{
	const struct spec_member m[] = {
		{ "run/capture.conf", SPEC_CONF(1), 0, 0, 0 },
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 20000, 0 },
	};

	spec_again(m, 3, 0);
}
END_TEST

START_TEST(test_spec_side_after)
{
	const struct spec_member p[] = {
		{ "run/capture.conf", SPEC_CONF(2), 0, 0, 0 },
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 20000, 0 },
		{ "run/info/notes.txt", "notes\n", 0, 0, 0 },
		{ "run/phases.tsv", SPEC_PHASES, 0, 0, 0 },
	};
	const struct spec_member c[] = {
		{ "run/capture.conf", SPEC_CONF(2), 0, 0, 0 },
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 20000, 0 },
		{ "other/capture.conf", "name = other\n", 0, 0, 0 },
	};

	spec_again(p, 5, 0);
	spec_again(c, 4, 0);
}
END_TEST

/* Cut inside the last trace file, and inside the member after it: the
 * whole scan refuses the archive at the open; the speculative read fails
 * later (AGAIN), and the analysis says what the whole scan says. */
START_TEST(test_spec_truncated)
{
	const struct spec_member m[] = {
		{ "run/capture.conf", SPEC_CONF(2), 0, 0, 0 },
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 0, 400000 },
	};
	const struct spec_member t[] = {
		{ "run/capture.conf", SPEC_CONF(2), 0, 0, 0 },
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 20000, 0 },
		{ "run/ledger.tsv", NULL, 0, 0, 400000 },
	};

	/* The random member is most of the compressed bytes: 100 KB before
	 * the end is inside it. */
	spec_again(m, 3, -100000);
	spec_again(t, 4, -100000);
}
END_TEST

/* No speculation without the key, or when capture.conf comes after the
 * traces (its count is not known when they are met). */
START_TEST(test_spec_not_announced)
{
	const struct spec_member after[] = {
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 20000, 0 },
		{ "run/capture.conf", SPEC_CONF(2), 0, 0, 0 },
	};
	const struct spec_member none[] = {
		{ "run/capture.conf", "name = spec\n", 0, 0, 0 },
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 20000, 0 },
	};
	struct spec_read whole, spec;

	spec_archive(after, 3);
	spec_read(apath, true, 0, &spec);
	spec_read(apath, false, 0, &whole);
	ck_assert(!spec.speculated);
	spec_same(&spec, &whole);
	ck_assert_uint_eq(spec.trace_files, 2);
	unlink(apath);
	spec_archive(none, 3);
	spec_read(apath, true, 0, &spec);
	spec_read(apath, false, 0, &whole);
	ck_assert(!spec.speculated);
	spec_same(&spec, &whole);
	unlink(apath);
}
END_TEST

/* wc_input_free() in the middle of a speculative read, and right after
 * the open: the member's reader (which would go on to check the tail)
 * is stopped and joined. */
START_TEST(test_spec_free_midway)
{
	const struct spec_member m[] = {
		{ "run/capture.conf", SPEC_CONF(2), 0, 0, 0 },
		{ "run/trace/sda.blktrace.0", NULL, 0, 20000, 0 },
		{ "run/trace/sda.blktrace.1", NULL, 1, 20000, 0 },
		{ "run/ledger.tsv", NULL, 0, 0, 3000000 },
	};
	const struct wc_input_limits lim = { .small_member = 1,
					     .speculate = true };
	struct wc_input *in = NULL;
	struct spec_read spec;
	unsigned before;
	uint64_t d;

	spec_archive(m, 4);
	/* A run of the readers first: what a runtime (a sanitizer) starts
	 * beside the first thread is counted in before. */
	spec_read(apath, true, 0, &spec);
	ck_assert(spec.speculated);
	ck_assert_int_eq(spec.r, 0);
	ck_assert_uint_eq(digest(apath, NULL, &d, &spec.err), 40000);
	before = tasks_settled(1);
	spec_read(apath, true, 1000, &spec);
	ck_assert(spec.speculated);
	ck_assert_uint_eq(spec.events, 1000);
	ck_assert_uint_eq(tasks_settled(before), before);
	ck_assert_int_eq(wc_input_open_limits(&in, apath, &lim, NULL), 0);
	ck_assert(wc_input_speculated(in));
	ck_assert_uint_gt(tasks(), before);
	wc_input_free(in);
	ck_assert_uint_eq(tasks_settled(before), before);
	unlink(apath);
}
END_TEST

static Suite *input_suite(void)
{
	Suite *s = suite_create("input");
	TCase *tc = tcase_create("resolve");

	wc_check_timeout(tc, 30);
	tcase_add_test(tc, test_directory);
	tcase_add_test(tc, test_base_and_file_names);
	tcase_add_test(tc, test_name_without_slash);
	tcase_add_test(tc, test_bounded_tables);
	tcase_add_test(tc, test_sparse_cpus);
	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_capture_archive);
	tcase_add_test(tc, test_archive_diagnostics);
	tcase_add_test(tc, test_notify_and_gaps);
	tcase_add_test(tc, test_seq_shared_key_map_grows);
	tcase_add_test(tc, test_seq_hints_merged);
	tcase_add_test(tc, test_seq_turns_new_key);
	tcase_add_test(tc, test_backwards_ref);
	tcase_add_test(tc, test_blkparse_names);
	tcase_add_test(tc, test_blkparse_names_stream);
	tcase_add_test(tc, test_stdin_and_merged);
	tcase_add_test(tc, test_next_ref);
	tcase_add_test(tc, test_ref_stream_ends);
	tcase_add_test(tc, test_many_files_few_handles);
	tcase_add_test(tc, test_inputs_share_limit);
	tcase_add_test(tc, test_many_members_few_handles);
	tcase_add_test(tc, test_members_resumed);
	tcase_add_test(tc, test_members_kept);
	tcase_add_test(tc, test_many_large_members);
	tcase_add_test(tc, test_pinned_streams);
	tcase_add_test(tc, test_members_ahead_cut);
	tcase_add_test(tc, test_members_some_ahead);
	tcase_add_test(tc, test_once_same_batches);
	tcase_add_test(tc, test_open_fd);
	tcase_add_test(tc, test_scan_truncated);
	tcase_add_test(tc, test_spec_announced);
	tcase_add_test(tc, test_spec_more_traces);
	tcase_add_test(tc, test_spec_side_after);
	tcase_add_test(tc, test_spec_truncated);
	tcase_add_test(tc, test_spec_not_announced);
	tcase_add_test(tc, test_spec_free_midway);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(input_suite)
