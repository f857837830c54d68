/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_capture.c - unit tests of analyze/lib/input/capture.c:
 * capture.conf, phases.tsv and counters.tsv into typed fields, values out
 * of range refused with a note
 * naming file, line and key, and the file reader's refusals (FIFO, size).
 * Fixtures: tests/fixtures/capture-conf/.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/blktrace_format.h"
#include "input/capture.h"
#include "check_common.h"

#define FIX "tests/fixtures/capture-conf"

static struct wc_capture *parse(const char *conf, const char *tsv)
{
	struct wc_capture *c = NULL;
	struct wc_err err;
	char *text;
	size_t len;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_capture_new(&c, &err), 0);
	if (conf) {
		ck_assert_int_eq(wc_capture_read_file(conf, &text, &len, &err), 0);
		ck_assert_ptr_nonnull(text);
		wc_capture_parse_conf(c, text, len, "capture.conf");
		free(text);
	}
	if (tsv) {
		ck_assert_int_eq(wc_capture_read_file(tsv, &text, &len, &err), 0);
		ck_assert_ptr_nonnull(text);
		wc_capture_parse_phases(c, text, len, "phases.tsv");
		free(text);
	}
	return c;
}

static bool has_note(const struct wc_capture *c, const char *s)
{
	size_t i;

	for (i = 0; i < c->nnotes; i++)
		if (strstr(c->notes[i], s))
			return true;
	return false;
}

START_TEST(test_unknown)
{
	struct wc_capture *c = parse(NULL, NULL);

	ck_assert(!c->has_conf);
	ck_assert_int_eq(c->write_cache, -1);
	ck_assert_int_eq(c->barrier, -1);
	ck_assert_int_eq(c->complete, -1);
	ck_assert_int_eq(c->events_dropped, -1);
	ck_assert_str_eq(c->name, "");
	ck_assert(!c->journal_known);
	ck_assert_ptr_null(wc_capture_destination(c));
	wc_capture_free(c);
	wc_capture_free(NULL);
}
END_TEST

START_TEST(test_good)
{
	struct wc_capture *c = parse(FIX "/good.conf", FIX "/good.tsv");
	const struct wc_capture_device *d;

	ck_assert_uint_eq(c->nnotes, 0);
	ck_assert_int_eq(c->format_version, 1);
	ck_assert_str_eq(c->name, "ext4-cache-on-barrier-on-run1");
	ck_assert_str_eq(c->fs, "ext4");
	ck_assert_str_eq(c->kernel, "6.18.0-test");
	ck_assert_str_eq(c->recorder, "tracefs");
	ck_assert_str_eq(c->mount_options, "rw,relatime");
	ck_assert_int_eq(c->write_cache, 1);
	ck_assert_int_eq(c->barrier, 1);          /* the last one wins */
	ck_assert_int_eq(c->complete, 1);
	ck_assert_int_eq(c->events_dropped, 12);
	ck_assert(c->journal_known);
	ck_assert_uint_eq(c->journal_start, 327680);
	ck_assert_uint_eq(c->journal_sectors, 32768);
	ck_assert_uint_eq(c->ndevices, 2);
	d = wc_capture_destination(c);           /* "/dev/loop2" */
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d->name, "loop2");
	ck_assert_uint_eq(d->dev, WC_DEV_MAKE(7, 2));
	ck_assert_int_eq(d->rotational, 0);
	ck_assert_uint_eq(d->timeout_ms, 30000);
	ck_assert_uint_eq(d->hw_queues, 1);
	ck_assert_str_eq(d->role, "destination");
	ck_assert_int_eq(d->listed, 2);
	d = wc_capture_device(c, "loop1");
	ck_assert_int_eq(d->listed, 1);
	ck_assert_int_eq(d->rotational, 1);
	ck_assert_uint_eq(d->hw_queues, 0);
	ck_assert_str_eq(d->role, "source");
	ck_assert_ptr_null(wc_capture_device(c, "loop3"));

	ck_assert_uint_eq(c->nphases, 2);
	ck_assert_str_eq(c->phases[1].name, "delete");
	ck_assert_uint_eq(c->phases[1].start, 607723520396ull);
	ck_assert_uint_eq(c->phases[1].end, 607733071574ull);
	ck_assert_double_eq(c->phases[0].real_s, 0.043);
	ck_assert_double_eq(c->phases[0].sys_s, 0.019);
	wc_capture_free(c);
}
END_TEST

/* A device's role is a word of lowercase letters: anything else (a
 * control byte, upper case, too long) is refused and noted, the role
 * then unknown. */
START_TEST(test_role_refused)
{
	static const char text[] =
		"device.loop1.role = sou\033rce\n"
		"device.loop2.role = destinationdestination\n"
		"device.loop3.role = other\n";
	struct wc_capture *c = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_capture_new(&c, &err), 0);
	wc_capture_parse_conf(c, text, sizeof(text) - 1, "capture.conf");
	ck_assert_str_eq(wc_capture_device(c, "loop1")->role, "");
	ck_assert(has_note(c, "line 1: device.loop1.role: not a word"));
	ck_assert_str_eq(wc_capture_device(c, "loop2")->role, "");
	ck_assert(has_note(c, "line 2: device.loop2.role: not a word"));
	ck_assert_str_eq(wc_capture_device(c, "loop3")->role, "other");
	ck_assert_uint_eq(c->nnotes, 2);
	wc_capture_free(c);
}
END_TEST

/* Out-of-range numbers were taken silently (a negative events_dropped
 * became a huge count): now each is refused with file, line and key. */
START_TEST(test_bad_values)
{
	struct wc_capture *c = parse(FIX "/bad.conf", FIX "/bad.tsv");
	const struct wc_capture_device *d;

	ck_assert_str_eq(c->name, "bad-values");   /* CRLF taken off */
	ck_assert_int_eq(c->events_dropped, -1);
	ck_assert(c->has_events_dropped);
	ck_assert(has_note(c, "capture.conf: line 3: events_dropped: not a count"));
	ck_assert_int_eq(c->write_cache, -1);
	ck_assert(has_note(c, "capture.conf: line 4: write_cache: not on or off"));
	d = wc_capture_device(c, "loop1");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->dev, 0);
	ck_assert(has_note(c, "line 5: device.loop1.dev: not MAJ:MIN"));
	ck_assert_int_eq(d->rotational, -1);
	ck_assert(has_note(c, "line 6: device.loop1.rotational"));
	ck_assert(!c->journal_known);
	ck_assert(has_note(c, "line 7: journal_start_sector"));
	ck_assert_int_eq(c->complete, -1);
	ck_assert(has_note(c, "line 9: complete"));
	ck_assert_uint_eq(d->timeout_ms, 0);
	ck_assert(has_note(c, "line 10: device.loop1.timeout_ms: not "
			      "milliseconds"));
	ck_assert_uint_eq(d->hw_queues, 0);
	ck_assert(has_note(c, "line 11: device.loop1.hw_queues: not a count"));

	/* phases: end before start, a negative time and a short row are
	 * left out; bad seconds are noted and taken as 0. */
	ck_assert_uint_eq(c->nphases, 1);
	ck_assert_str_eq(c->phases[0].name, "delete");
	ck_assert_double_eq(c->phases[0].real_s, 0);
	ck_assert_double_eq(c->phases[0].sys_s, 0.5);
	ck_assert_uint_eq(c->nnotes, WC_CAPTURE_MAX_NOTES);
	ck_assert_uint_gt(c->nnotes_more, 0);
	wc_capture_free(c);
}
END_TEST

START_TEST(test_saturation_edges)
{
	static const char conf[] =
		"events_dropped = 9223372036854775807\n"
		"device.sda.dev = 4095:1048575\n"
		"device.sdb.dev = 8388624\n"           /* a dev_t as recorded */
		"journal_start_sector = 9223372036854775807\n"
		"journal_sectors = 9223372036854775807\n";
	struct wc_capture *c = parse(NULL, NULL);

	wc_capture_parse_conf(c, conf, sizeof(conf) - 1, "capture.conf");
	ck_assert_int_eq(c->events_dropped, INT64_MAX);
	ck_assert_uint_eq(wc_capture_device(c, "sda")->dev,
			  WC_DEV_MAKE(4095, 1048575));
	ck_assert_uint_eq(wc_capture_device(c, "sdb")->dev, WC_DEV_MAKE(8, 16));
	ck_assert(c->journal_known);
	ck_assert_uint_eq(c->nnotes, 0);

	wc_capture_parse_conf(c, "events_dropped = 9223372036854775808\n",
			      36, "capture.conf");
	ck_assert_int_eq(c->events_dropped, -1);
	ck_assert(has_note(c, "line 1: events_dropped"));
	wc_capture_free(c);
}
END_TEST

/* Lines past the limit, NUL bytes, and more phases than are kept. */
START_TEST(test_limits)
{
	struct wc_capture *c = parse(NULL, NULL);
	size_t n = 2 * WC_CAPTURE_MAX_LINE, i;
	char *text = malloc(n + 64), *p;

	memset(text, 'x', n);
	memcpy(text + n, "\nname = kept\nfs = ab\0c\n", 23);
	wc_capture_parse_conf(c, text, n + 23, "capture.conf");
	ck_assert_str_eq(c->name, "kept");
	ck_assert_str_eq(c->fs, "");
	ck_assert(has_note(c, "line 1: longer than 4096 bytes"));
	ck_assert(has_note(c, "line 3: holds a NUL byte"));
	free(text);
	wc_capture_free(c);

	c = parse(NULL, NULL);
	text = malloc((WC_CAPTURE_MAX_PHASES + 10) * 32);
	p = text;
	for (i = 0; i < WC_CAPTURE_MAX_PHASES + 10; i++)
		p += sprintf(p, "p%zu\t%zu\t%zu\n", i, i, i + 1);
	wc_capture_parse_phases(c, text, (size_t)(p - text), "phases.tsv");
	ck_assert_uint_eq(c->nphases, WC_CAPTURE_MAX_PHASES);
	ck_assert_uint_eq(c->nnotes, 1);             /* said once */
	ck_assert(has_note(c, "more than 64 phases"));
	ck_assert_str_eq(c->phases[WC_CAPTURE_MAX_PHASES - 1].name, "p63");
	free(text);
	wc_capture_free(c);
}
END_TEST

/* A FIFO named capture.conf once blocked the reader for ever: it is now
 * refused at once (the test's alarm fails it if it blocks). */
START_TEST(test_read_file_refusals)
{
	char dir[64], path[128];
	struct wc_err err;
	size_t len;
	char *text = (char *)"";
	FILE *fp;

	wc_check_template(dir, sizeof(dir), "check_capture");
	ck_assert_ptr_nonnull(mkdtemp(dir));

	snprintf(path, sizeof(path), "%s/absent", dir);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_capture_read_file(path, &text, &len, &err), 0);
	ck_assert_ptr_null(text);

	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	alarm(5);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_capture_read_file(path, &text, &len, &err), -1);
	alarm(0);
	ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	ck_assert_str_eq(err.msg, "not a regular file");
	unlink(path);

	wc_err_clear(&err);
	ck_assert_int_eq(wc_capture_read_file(dir, &text, &len, &err), -1);
	ck_assert_str_eq(err.msg, "not a regular file");

	snprintf(path, sizeof(path), "%s/big", dir);
	fp = fopen(path, "w");
	ck_assert_int_eq(fseek(fp, WC_CAPTURE_MAX_BYTES, SEEK_SET), 0);
	fputc('\n', fp);
	fclose(fp);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_capture_read_file(path, &text, &len, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "larger than"));
	unlink(path);
	rmdir(dir);
}
END_TEST

static uint32_t trace_files_of(const char *text)
{
	struct wc_capture *c = NULL;
	uint32_t n;

	ck_assert_int_eq(wc_capture_new(&c, NULL), 0);
	wc_capture_parse_conf(c, text, strlen(text), "capture.conf");
	n = c->trace_files;
	/* Refused values are silent: a report that never used the key
	 * must not change because of it. */
	ck_assert_uint_eq(c->nnotes, 0);
	wc_capture_free(c);
	return n;
}

/* trace_files announces the archive's trace members (input.h stops its
 * scan at the last one): only a count from 1 to the bound is taken,
 * anything else is absent (0). */
START_TEST(test_trace_files)
{
	ck_assert_uint_eq(trace_files_of("trace_files = 4\n"), 4);
	ck_assert_uint_eq(trace_files_of("trace_files = 1\n"), 1);
	ck_assert_uint_eq(trace_files_of("trace_files = 262144\n"),
			  WC_CAPTURE_MAX_TRACE_FILES);
	ck_assert_uint_eq(trace_files_of("trace_files = 262145\n"), 0);
	ck_assert_uint_eq(trace_files_of("trace_files = 0\n"), 0);
	ck_assert_uint_eq(trace_files_of("trace_files = -2\n"), 0);
	ck_assert_uint_eq(trace_files_of("trace_files = 2x\n"), 0);
	ck_assert_uint_eq(trace_files_of("trace_files = \n"), 0);
	ck_assert_uint_eq(trace_files_of("trace_files = 18446744073709551617\n"), 0);
	ck_assert_uint_eq(trace_files_of("name = x\n"), 0);
	/* The last one wins, a bad one included. */
	ck_assert_uint_eq(trace_files_of("trace_files = 3\ntrace_files = 2\n"), 2);
	ck_assert_uint_eq(trace_files_of("trace_files = 3\ntrace_files = x\n"), 0);
}
END_TEST

/* counters.tsv: the kernel's stat fields of 6.x (17), 4.18 (15), older
 * (11) and an old partition (4) kept; every other row left out with a
 * note naming its line and column. */
/* disk_regions was parsed by the what-if on its own, from the raw
 * text: it is capture.conf's, read here with the rest.  A name keeps its
 * place (its region) even when it is too long to be a device's. */
START_TEST(test_disk_regions)
{
	static const char conf[] =
		"disk_regions = loop2\n"
		"disk_regions = loop2\tloop5 \r\n";    /* the last one wins */
	struct wc_capture *c = parse(NULL, NULL);
	char *text, *p;
	size_t i;

	ck_assert_uint_eq(c->nregions, 0);
	wc_capture_parse_conf(c, conf, sizeof(conf) - 1, "capture.conf");
	ck_assert_uint_eq(c->nnotes, 0);
	ck_assert_uint_eq(c->nregions, 2);
	ck_assert_str_eq(c->regions[0], "loop2");
	ck_assert_str_eq(c->regions[1], "loop5");
	wc_capture_free(c);

	/* hostile: a name no device can have, and more names than kept */
	c = parse(NULL, NULL);
	text = malloc(4096);
	p = text + sprintf(text, "disk_regions = loop2 %0100d", 7);
	for (i = 0; i < WC_CAPTURE_MAX_REGIONS + 3; i++)
		p += sprintf(p, " sd%c", (char)('a' + i));
	*p++ = '\n';
	wc_capture_parse_conf(c, text, (size_t)(p - text), "capture.conf");
	ck_assert_uint_eq(c->nregions, WC_CAPTURE_MAX_REGIONS);
	ck_assert_str_eq(c->regions[0], "loop2");
	ck_assert_str_eq(c->regions[1], "");             /* keeps its place */
	ck_assert_str_eq(c->regions[2], "sda");
	ck_assert_str_eq(c->regions[WC_CAPTURE_MAX_REGIONS - 1], "sdf");
	ck_assert(has_note(c, "line 1: disk_regions: device name of 100 bytes"));
	ck_assert(has_note(c, "line 1: disk_regions: more than 8 devices"));
	ck_assert_uint_eq(c->nnotes, 2);
	free(text);

	/* an empty value: no regions (the earlier line's are gone) */
	wc_capture_parse_conf(c, "disk_regions =\n", 15, "capture.conf");
	ck_assert_uint_eq(c->nregions, 0);
	wc_capture_free(c);
}
END_TEST

/* When the workload returned and its data was durable (a lab on a model
 * disk): numbers kept, anything else noted and left 0. */
START_TEST(test_durable)
{
	static const char conf[] =
		"workload_end_ns = 519313947460\n"
		"durable_ns = 519416656922\n"
		"durable_destaged_bytes = 86016\n";
	struct wc_capture *c = parse(NULL, NULL);

	ck_assert_uint_eq(c->durable_ns, 0);
	wc_capture_parse_conf(c, conf, sizeof(conf) - 1, "capture.conf");
	ck_assert_uint_eq(c->nnotes, 0);
	ck_assert_uint_eq(c->workload_end_ns, 519313947460ull);
	ck_assert_uint_eq(c->durable_ns, 519416656922ull);
	ck_assert_uint_eq(c->durable_bytes, 86016);
	wc_capture_parse_conf(c, "durable_ns = -5\n", 16, "capture.conf");
	ck_assert_uint_eq(c->durable_ns, 0);
	ck_assert(has_note(c, "capture.conf: line 1: durable_ns: not a number"));
	ck_assert_uint_eq(c->workload_end_ns, 519313947460ull);
	wc_capture_free(c);
}
END_TEST

START_TEST(test_counters)
{
	static const char text[] =
		"when\tdevice\tdisk\tstart_ns\tend_ns\tstat\n"
		"before\tvda\tvda\t10\t20\t1 2 3 4 5 6 7 8 0 10 11 12 13 14 15 16 17\n"
		"after\tsda2\tsda\t30\t30\t1 2 3 4\n"
		"before\tsdb\tsdb\t1\t2\t1 2 3 4 5 6 7 8 0 10 11 12 13 14 15\n"
		"after\tsdc\tsdc\t1\t2\t18446744073709551615 2 3 4 5 6 7 8 0 10 11\n"
		"during\tvda\tvda\t1\t2\t1 2 3 4\n"              /* 6 */
		"after\tvda\tvda\t5\t4\t1 2 3 4\n"               /* 7 */
		"after\tvda\tvda\t5\tx\t1 2 3 4\n"               /* 8 */
		"after\tv/da\tvda\t5\t6\t1 2 3 4\n"              /* 9 */
		"after\tvda\tvda\t5\t6\t1 2 3 4 5\n"             /* 10 */
		"after\tvda\tvda\t5\t6\t1 2 -3 4\n"              /* 11 */
		"after\tvda\tvda\t5\t6\n"                         /* 12 */
		"after\tvda\tvda\t5\t6\t1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n";
	struct wc_capture *c = parse(NULL, NULL);
	const struct wc_counters_row *r;

	ck_assert(!c->has_counters);
	ck_assert(wc_capture_parse_side(c, "counters.tsv", text,
					sizeof(text) - 1, "counters.tsv"));
	ck_assert(c->has_counters);
	ck_assert_uint_eq(c->ncounters, 4);
	r = &c->counters[0];
	ck_assert_str_eq(r->device, "vda");
	ck_assert_str_eq(r->disk, "vda");
	ck_assert(!r->after);
	ck_assert_uint_eq(r->start, 10);
	ck_assert_uint_eq(r->end, 20);
	ck_assert_uint_eq(r->nfields, 17);
	ck_assert_uint_eq(r->f[0], 1);
	ck_assert_uint_eq(r->f[16], 17);
	r = &c->counters[1];
	ck_assert(r->after);
	ck_assert_str_eq(r->device, "sda2");
	ck_assert_str_eq(r->disk, "sda");
	ck_assert_uint_eq(r->nfields, 4);
	ck_assert_uint_eq(c->counters[2].nfields, 15);
	ck_assert_uint_eq(c->counters[3].nfields, 11);
	ck_assert_uint_eq(c->counters[3].f[0], UINT64_MAX);
	ck_assert(has_note(c, "line 6: when: not before or after"));
	ck_assert(has_note(c, "line 7: end_ns: before start_ns"));
	ck_assert(has_note(c, "line 8: end_ns: not a time"));
	ck_assert(has_note(c, "line 9: device: not a device's kernel name"));
	ck_assert(has_note(c, "line 10: stat: 5 counters, not 17, 15, 11 or 4"));
	ck_assert(has_note(c, "line 11: stat: not up to 17 counters"));
	ck_assert(has_note(c, "line 12: fewer than 6 fields"));
	ck_assert(has_note(c, "line 13: stat: not up to 17 counters"));
	ck_assert_uint_eq(c->nnotes, 8);
	wc_capture_free(c);

	c = parse(NULL, NULL);
	ck_assert(!wc_capture_parse_side(c, "ledger.tsv", "x", 1, "ledger.tsv"));
	wc_capture_free(c);
}
END_TEST

static Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_unknown);
	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_role_refused);
	tcase_add_test(tc, test_bad_values);
	tcase_add_test(tc, test_saturation_edges);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_read_file_refusals);
	tcase_add_test(tc, test_trace_files);
	tcase_add_test(tc, test_counters);
	tcase_add_test(tc, test_disk_regions);
	tcase_add_test(tc, test_durable);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(capture_suite)
