/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_source.c - unit tests of analyze/lib/input/source.c: peek and consume
 * across buffer refills, exact offsets, short peeks at the end, the
 * largest peek, descriptors, and archive members read in place, on the
 * caller's thread or read ahead on one of their own: the same bytes, and
 * for a truncated or corrupt member the same message at the same offset,
 * after every byte before it; a source freed while its thread still reads;
 * a member's copy read in the member's blocks, buffered as the member is.
 */
#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_archive.h"
#include "check_common.h"
#include "input/source.h"

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
	ck_assert_int_eq(wc_source_open_file(&src, path, 0, &err), 0);
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
	ck_assert_int_eq(wc_source_open_file(&src, path, 0, &err), 0);
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
	ck_assert_int_eq(wc_source_open_file(&src, path, 0, &err), 0);
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
	ck_assert_int_eq(wc_source_open_file(&src, "/nonexistent/x.blktrace.0", 0, &err), -1);
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

/* Member NAME of N bytes, byte i being gen(i). */
static void add_bytes(struct archive *a, const char *name, size_t n,
		      unsigned char (*gen)(size_t))
{
	unsigned char *b = malloc(n ? n : 1);
	size_t i;

	ck_assert_ptr_nonnull(b);
	for (i = 0; i < n; i++)
		b[i] = gen(i);
	wc_check_archive_add(a, name, b, n);
	free(b);
}

static void add_member(struct archive *a, const char *name, size_t n)
{
	add_bytes(a, name, n, pattern);
}

/* Bytes that compress (16 values) but not to nothing: deflate codes them
 * in Huffman blocks, where damage is found as it is met. */
static unsigned char noise(size_t i)
{
	return (unsigned char)(((i * 2654435761u) >> 13) & 0x0fu);
}

/* A tar (gzip'd when GZ) being written at a new path. */
static struct archive *new_archive(bool gz)
{
	struct archive *a;
	int fd;

	wc_check_template(path, sizeof(path), "check_source");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	if (gz)
		archive_write_add_filter_gzip(a);
	ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	return a;
}

/* A tar.gz at path: run/a of 1000 bytes, run/b of BIG, run/c of four
 * whole blocks (its end falls on a block's), then run/d of NOISE bytes
 * of noise(). */
static void make_archive(size_t nnoise)
{
	struct archive *a = new_archive(true);

	add_member(a, "run/a", 1000);
	add_member(a, "run/b", BIG);
	add_member(a, "run/c", 4u << 16);
	if (nnoise)
		add_bytes(a, "run/d", nnoise, noise);
	archive_write_close(a);
	archive_write_free(a);
}

/* Reads a and b in lockstep, peeking for all that is buffered: each
 * peek hands out the same bytes, as many (what a merge's batch ends at:
 * merge.h), at the same offsets. */
static void same_views(struct wc_source *a, struct wc_source *b, size_t n)
{
	const unsigned char *pa, *pb;
	struct wc_err ea, eb;
	size_t off = 0, step = 1;
	ssize_t ga, gb;

	wc_err_clear(&ea);
	wc_err_clear(&eb);
	for (;;) {
		ga = wc_source_peek_all(a, step, &pa, &ea);
		gb = wc_source_peek_all(b, step, &pb, &eb);
		ck_assert_int_eq(gb, ga);
		if (ga <= 0)
			break;
		ck_assert_int_eq(memcmp(pa, pb, (size_t)ga), 0);
		ck_assert_uint_eq(wc_source_offset(b), wc_source_offset(a));
		/* All of it, or a part: as a decoder stops at a record. */
		if (step % 3 == 0 && ga > 1)
			ga /= 3;
		wc_source_consume(a, (size_t)ga);
		wc_source_consume(b, (size_t)ga);
		off += (size_t)ga;
		step = step * 5 % WC_SOURCE_MAX_PEEK + 1;
	}
	ck_assert_int_eq(ga, 0);
	ck_assert_uint_eq(off, n);
}

/* A copy of a member read in the member's blocks
 * (wc_source_open_region_blocks()) buffers what the member's own reader
 * does at every peek, for a member whose end falls inside a block
 * (run/b) and on a block's end (run/c); a copy shorter than its length
 * fails there, after the bytes before it. */
START_TEST(test_region_blocks)
{
	static const struct { const char *name; size_t n; } m[] = {
		{ "run/b", BIG }, { "run/c", 4u << 16 },
	};
	struct wc_source *member = NULL, *copy = NULL;
	char tmp[64];
	struct wc_err err;
	const unsigned char *p;
	unsigned char *b;
	size_t i, k;
	ssize_t got;
	int fd;

	make_archive(0);
	wc_check_template(tmp, sizeof(tmp), "check_source");
	fd = mkstemp(tmp);
	ck_assert_int_ge(fd, 0);
	unlink(tmp);
	b = malloc(BIG + 100);
	ck_assert_ptr_nonnull(b);
	for (i = 0; i < BIG; i++)
		b[100 + i] = pattern(i);
	memset(b, 0xee, 100);
	ck_assert_int_eq(pwrite(fd, b, BIG + 100, 0), BIG + 100);
	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		wc_err_clear(&err);
		ck_assert_int_eq(wc_source_open_member(&member, path, m[k].name,
						       0, &err), 0);
		/* The bytes at 100 are pattern(): run/c's are its first. */
		ck_assert_int_eq(wc_source_open_region_blocks(&copy, fd, 100,
							      m[k].n, "a.tar",
							      m[k].name, &err),
				 0);
		same_views(member, copy, m[k].n);
		wc_source_free(member);
		wc_source_free(copy);
	}
	/* Ten bytes more than the file holds. */
	ck_assert_int_eq(wc_source_open_region_blocks(&copy, fd, 100, BIG + 10,
						      "a.tar", "run/b", &err),
			 0);
	for (i = 0; (got = wc_source_peek_all(copy, 1, &p, &err)) > 0;
	     i += (size_t)got)
		wc_source_consume(copy, (size_t)got);
	ck_assert_int_eq(got, -1);
	ck_assert_uint_eq(i, BIG);
	ck_assert_uint_eq(err.offset, BIG);
	ck_assert_str_eq(err.msg, "the temporary copy ends early");
	ck_assert_str_eq(err.member, "run/b");
	wc_source_free(copy);
	free(b);
	close(fd);
	unlink(path);
}
END_TEST

START_TEST(test_archive_member)
{
	struct wc_source *src = NULL, *src2 = NULL;
	const unsigned char *p;
	struct wc_err err;

	make_archive(0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_member(&src, path, "run/b", 0, &err), 0);
	ck_assert_str_eq(wc_source_member(src), "run/b");
	/* Two members open at once, each through its own handle. */
	ck_assert_int_eq(wc_source_open_member(&src2, path, "run/a", 0, &err), 0);
	ck_assert_int_eq(wc_source_peek(src2, 2000, &p, &err), 1000);
	read_all(src, BIG);
	wc_source_free(src);
	wc_source_free(src2);

	ck_assert_int_eq(wc_source_open_member(&src, path, "run/x", 0, &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	ck_assert_str_eq(err.member, "run/x");
	ck_assert_str_eq(err.msg, "member not found in archive");
	unlink(path);
}
END_TEST

/* A side file a capture may lack (WC_SOURCE_OPTIONAL) is named from
 * the capture folder, which has no "./" in front: an archive packed as
 * ./FOLDER (tar's members "./run/a") has it all the same.  A member
 * asked for by its exact name (a trace file's) is not looked for under
 * another. */
START_TEST(test_member_optional_dot)
{
	struct wc_source *src = NULL;
	const unsigned char *p;
	struct archive *a = new_archive(false);
	struct wc_err err;

	add_member(a, "./run/a", 1000);
	archive_write_close(a);
	archive_write_free(a);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_member(&src, path, "run/a",
						 WC_SOURCE_OPTIONAL, &err), 0);
	ck_assert_ptr_nonnull(src);
	ck_assert_int_eq(wc_source_peek(src, 2000, &p, &err), 1000);
	wc_source_free(src);
	ck_assert_int_eq(wc_source_open_member(&src, path, "run/b",
						 WC_SOURCE_OPTIONAL, &err), 0);
	ck_assert_ptr_null(src);
	ck_assert_int_eq(wc_source_open_member(&src, path, "run/a", 0, &err),
			 -1);
	ck_assert_str_eq(err.msg, "member not found in archive");
	unlink(path);
}
END_TEST

START_TEST(test_member_ahead)
{
	struct wc_source *b = NULL, *c = NULL, *a = NULL, *x = NULL;
	const unsigned char *p;
	struct wc_err err, err2;

	make_archive(0);
	wc_err_clear(&err);
	/* Three threads at once, each with its own handle. */
	ck_assert_int_eq(wc_source_open_member(&b, path, "run/b", WC_SOURCE_AHEAD, &err), 0);
	ck_assert_int_eq(wc_source_open_member(&c, path, "run/c", WC_SOURCE_AHEAD, &err), 0);
	ck_assert_int_eq(wc_source_open_member(&a, path, "run/a", WC_SOURCE_AHEAD, &err), 0);
	ck_assert_str_eq(wc_source_member(c), "run/c");
	ck_assert_int_eq(wc_source_peek(a, 2000, &p, &err), 1000);
	ck_assert_uint_eq(p[999], pattern(999));
	read_all(c, 4u << 16);
	read_all(b, BIG);
	wc_source_free(a);
	wc_source_free(b);
	wc_source_free(c);

	/* Not found: the open succeeds, the first peek says what the
	 * open of wc_source_open_member() says. */
	ck_assert_int_eq(wc_source_open_member(&x, path, "run/x", WC_SOURCE_AHEAD, &err), 0);
	ck_assert_int_eq(wc_source_peek(x, 1, &p, &err), -1);
	ck_assert_int_eq(wc_source_peek(x, 1, &p, &err), -1);
	wc_source_free(x);
	wc_err_clear(&err2);
	ck_assert_int_eq(wc_source_open_member(&x, path, "run/x", 0, &err2), -1);
	ck_assert_int_eq(err.kind, err2.kind);
	ck_assert_str_eq(err.msg, "member not found in archive");
	ck_assert_str_eq(err.member, err2.member);
	ck_assert_uint_eq(err.offset, err2.offset);
	unlink(path);
}
END_TEST

/* Reads all it can, then the error: *err, and the number of bytes
 * handed out before it; their digest in *sum.  With check, every byte is
 * the one written (a truncated archive); damage in the middle of a
 * compressed stream may decode to wrong bytes for a while before the
 * decompressor finds it. */
static size_t read_until_error(struct wc_source *src, bool check,
			       uint64_t *sum, struct wc_err *err)
{
	const unsigned char *p;
	uint64_t h = 1469598103934665603ull;
	size_t off = 0, i;
	ssize_t got;

	wc_err_clear(err);
	while ((got = wc_source_peek_all(src, 1, &p, err)) > 0) {
		for (i = 0; i < (size_t)got; i++) {
			if (check && p[i] != noise(off + i))
				ck_abort_msg("byte %zu differs", off + i);
			h = (h ^ p[i]) * 1099511628211ull;
		}
		wc_source_consume(src, (size_t)got);
		off += (size_t)got;
	}
	*sum = h;
	ck_assert_int_eq(got, -1);
	ck_assert_uint_eq(wc_source_offset(src), off);
	return off;
}

/* run/d cut at half the archive, or 4 KiB of it overwritten there with
 * 0xff (deflate meets codes it does not define; zeros would decode to
 * wrong bytes without an error until past the member): read on the
 * caller's thread and read ahead, the same bytes before the same error. */
static void damaged(int truncate_it)
{
	struct wc_source *sync = NULL, *ahead = NULL;
	struct wc_err e1, e2;
	uint64_t h1, h2;
	size_t n1, n2, size = 8u << 20;
	unsigned char *z;
	long half;
	FILE *fp;

	make_archive(size);
	fp = fopen(path, "r+b");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	half = ftell(fp) / 2;
	if (truncate_it) {
		ck_assert_int_eq(ftruncate(fileno(fp), half), 0);
	} else {
		z = malloc(4096);
		memset(z, 0xff, 4096);
		ck_assert_int_eq(fseek(fp, half, SEEK_SET), 0);
		ck_assert_uint_eq(fwrite(z, 1, 4096, fp), 4096);
		free(z);
	}
	fclose(fp);

	wc_err_clear(&e1);
	ck_assert_int_eq(wc_source_open_member(&sync, path, "run/d", 0, &e1), 0);
	n1 = read_until_error(sync, truncate_it, &h1, &e1);
	ck_assert_int_eq(wc_source_open_member(&ahead, path, "run/d", WC_SOURCE_AHEAD, &e2), 0);
	n2 = read_until_error(ahead, truncate_it, &h2, &e2);
	/* Well inside the member, after whole blocks, every one handed
	 * out: the offset is where the read that failed began. */
	ck_assert_uint_gt(n1, 0);
	ck_assert_uint_lt(n1, size);
	ck_assert_uint_eq(n1 % (64u << 10), 0);
	ck_assert_uint_eq(e1.offset, n1);
	ck_assert_int_eq(e1.kind, WC_ERR_INPUT);
	ck_assert_str_eq(e1.member, "run/d");
	ck_assert_str_eq(e1.file, path);
	ck_assert_uint_eq(n2, n1);
	ck_assert_uint_eq(h2, h1);
	ck_assert_uint_eq(e2.offset, e1.offset);
	ck_assert_int_eq(e2.kind, e1.kind);
	ck_assert_str_eq(e2.msg, e1.msg);
	ck_assert_str_eq(e2.member, e1.member);
	ck_assert_str_eq(e2.file, e1.file);
	wc_source_free(sync);
	wc_source_free(ahead);
	unlink(path);
}

START_TEST(test_member_truncated)
{
	damaged(1);
}
END_TEST

START_TEST(test_member_corrupt)
{
	damaged(0);
}
END_TEST

/* Freed while its thread decompresses its way to the member, while it
 * waits for room in the ring, and while it reads: it stops, and nothing
 * it owned is left (the sanitizer build checks leaks and races). */
START_TEST(test_ahead_early_free)
{
	struct wc_source *src = NULL;
	const unsigned char *p;
	struct wc_err err;
	int i;

	make_archive(16u << 20);
	wc_err_clear(&err);
	for (i = 0; i < 4; i++) {
		/* run/d is last, after BIG and more: still on its way. */
		ck_assert_int_eq(wc_source_open_member(&src, path, "run/d", WC_SOURCE_AHEAD, &err), 0);
		wc_source_free(src);
		ck_assert_int_eq(wc_source_open_member(&src, path, "run/d", WC_SOURCE_AHEAD, &err), 0);
		ck_assert_int_eq(wc_source_peek(src, 100, &p, &err), 100);
		ck_assert_uint_eq(p[99], noise(99));
		if (i % 2) {
			/* time to fill the ring, likely: the free finds the
			 * thread reading or waiting for room, and either way
			 * it must stop; nothing asserted hangs on which */
			usleep(20000);
		}
		wc_source_free(src);
	}
	unlink(path);
}
END_TEST

/* A member many rings long, read in steps of every size with pauses that
 * let the thread fill its ring and sleep: it sleeps until half the ring
 * is free and is woken then, so every byte arrives, in order, whether
 * the caller waits for a block or the thread waits for room. */
START_TEST(test_ahead_refill)
{
	static const size_t steps[] = { 1, 48, 4096, 65536, 65601, 131072 };
	struct wc_source *src = NULL;
	const unsigned char *p;
	size_t size = 4u << 20, off = 0, i, k = 0;
	struct wc_err err;
	ssize_t got;

	make_archive(size);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_source_open_member(&src, path, "run/d", WC_SOURCE_AHEAD, &err), 0);
	while ((got = wc_source_peek_all(src, 1, &p, &err)) > 0) {
		size_t take = steps[k++ % (sizeof(steps) / sizeof(steps[0]))];

		if (take > (size_t)got)
			take = (size_t)got;
		for (i = 0; i < take; i++)
			if (p[i] != noise(off + i))
				ck_abort_msg("byte %zu differs", off + i);
		wc_source_consume(src, take);
		off += take;
		ck_assert_uint_eq(wc_source_offset(src), off);
		/* Now and then the thread gets ahead and fills the ring. */
		if (k % 37 == 0)
			usleep(2000);
	}
	ck_assert_int_eq(got, 0);
	ck_assert_uint_eq(off, size);
	wc_source_free(src);
	unlink(path);
}
END_TEST

/* The tail's check of the adopt tests: objects to run/d only. */
static int object_to_d(const char *apath, struct archive_entry *ent,
		       struct wc_err *why)
{
	const char *name = archive_entry_pathname(ent);

	if (name && !strcmp(name, "run/d"))
		return wc_err_set(why, WC_ERR_INPUT, apath, name, WC_NO_OFFSET,
				  "run/d after the member");
	return 0;
}

static int object_to_none(const char *apath, struct archive_entry *ent,
			  struct wc_err *why)
{
	(void)apath;
	(void)ent;
	(void)why;
	return 0;
}

/* A handle of path positioned at MEMBER's data, as a scan leaves it. */
static struct archive *handle_at(const char *member)
{
	struct archive *ar = archive_read_new();
	struct archive_entry *ent;

	archive_read_support_filter_all(ar);
	archive_read_support_format_all(ar);
	ck_assert_int_eq(archive_read_open_filename(ar, path, 64 * 1024),
			 ARCHIVE_OK);
	while (archive_read_next_header(ar, &ent) == ARCHIVE_OK)
		if (!strcmp(archive_entry_pathname(ent), member))
			return ar;
	ck_abort_msg("%s not found", member);
	return NULL;
}

/* The scan's handle handed over at run/b: the same bytes and offsets as
 * a member read on its own thread, then the headers after it checked
 * to the end on the same thread. */
START_TEST(test_adopt_member)
{
	struct wc_source *src = NULL;
	struct wc_source_tail *tail = NULL;
	struct archive *ar;
	struct wc_err err;

	make_archive(1u << 20);
	wc_err_clear(&err);
	ar = handle_at("run/b");
	ck_assert_int_eq(wc_source_adopt_member_ahead(&src, &tail, path,
			 "run/b", ar, object_to_none, &err), 0);
	ck_assert_str_eq(wc_source_member(src), "run/b");
	read_all(src, BIG);
	wc_source_free(src);
	ck_assert_int_eq(wc_source_tail_wait(tail, &err), 0);
	ck_assert_int_eq(err.kind, WC_ERR_NONE);
	wc_source_tail_free(tail);

	/* A check that objects: the tail is not as it should be. */
	ar = handle_at("run/b");
	ck_assert_int_eq(wc_source_adopt_member_ahead(&src, &tail, path,
			 "run/b", ar, object_to_d, &err), 0);
	read_all(src, BIG);
	ck_assert_int_eq(wc_source_tail_wait(tail, &err), -1);
	ck_assert_str_eq(err.msg, "run/d after the member");
	ck_assert_str_eq(err.member, "run/d");
	wc_source_tail_free(tail);
	wc_source_free(src);
	wc_source_tail_free(NULL);
	unlink(path);
}
END_TEST

/* The tail cannot be read to its end (the archive cut in run/d), or the
 * member was not read to its end (freed first): -1, saying why. */
START_TEST(test_adopt_unfinished)
{
	struct wc_source *src = NULL;
	struct wc_source_tail *tail = NULL;
	struct archive *ar;
	struct wc_err err;
	struct stat st;

	make_archive(4u << 20);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(truncate(path, st.st_size - 1000), 0);
	wc_err_clear(&err);
	ar = handle_at("run/b");
	ck_assert_int_eq(wc_source_adopt_member_ahead(&src, &tail, path,
			 "run/b", ar, object_to_none, &err), 0);
	read_all(src, BIG);
	ck_assert_int_eq(wc_source_tail_wait(tail, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "the archive's tail cannot be read"));
	wc_source_free(src);
	wc_source_tail_free(tail);

	/* run/d, 4 MiB, is many rings long: its thread fills the ring and
	 * waits for room, so it is still in the member when the source is
	 * freed, however late that comes.  (run/b fits in the ring: a
	 * thread that got to its end first would check the tail and say
	 * the archive is cut instead.) */
	wc_err_clear(&err);
	ar = handle_at("run/d");
	ck_assert_int_eq(wc_source_adopt_member_ahead(&src, &tail, path,
			 "run/d", ar, object_to_none, &err), 0);
	wc_source_free(src);
	ck_assert_int_eq(wc_source_tail_wait(tail, &err), -1);
	ck_assert_str_eq(err.msg, "the last trace file was not read to its end");
	wc_source_tail_free(tail);
	unlink(path);
}
END_TEST

/* Either holder let go first, at any point: the thread stops at its
 * next step and the last holder joins it (the sanitizer build checks
 * leaks and races); nothing waits for the 16 MiB of run/d. */
START_TEST(test_adopt_early_free)
{
	struct wc_source *src = NULL;
	struct wc_source_tail *tail = NULL;
	const unsigned char *p;
	struct archive *ar;
	struct wc_err err;
	int i;

	make_archive(16u << 20);
	wc_err_clear(&err);
	for (i = 0; i < 4; i++) {
		/* run/d is many rings long: its thread waits for room. */
		ar = handle_at("run/d");
		ck_assert_int_eq(wc_source_adopt_member_ahead(&src, &tail, path,
				 "run/d", ar, object_to_none, &err), 0);
		if (i % 2) {
			ck_assert_int_eq(wc_source_peek(src, 100, &p, &err), 100);
			ck_assert_uint_eq(p[99], noise(99));
			/* time to fill the ring, likely: the free finds the
			 * thread reading or waiting for room, and either way
			 * it must stop; nothing asserted hangs on which */
			usleep(20000);
		}
		if (i < 2) {
			wc_source_tail_free(tail);
			wc_source_free(src);
		} else {
			wc_source_free(src);
			wc_source_tail_free(tail);
		}
	}
	/* The tail's holder gone while the thread reads run/d. */
	ar = handle_at("run/b");
	ck_assert_int_eq(wc_source_adopt_member_ahead(&src, &tail, path,
			 "run/b", ar, object_to_none, &err), 0);
	read_all(src, BIG);
	wc_source_free(src);
	wc_source_tail_free(tail);
	unlink(path);
}
END_TEST

static Suite *source_suite(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("bytes");

	wc_check_timeout(tc, 30);
	tcase_add_test(tc, test_file_steps);
	tcase_add_test(tc, test_largest_peek);
	tcase_add_test(tc, test_short_and_empty);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_fd_not_closed);
	tcase_add_test(tc, test_archive_member);
	tcase_add_test(tc, test_member_optional_dot);
	tcase_add_test(tc, test_member_ahead);
	tcase_add_test(tc, test_member_truncated);
	tcase_add_test(tc, test_member_corrupt);
	tcase_add_test(tc, test_ahead_early_free);
	tcase_add_test(tc, test_ahead_refill);
	tcase_add_test(tc, test_adopt_member);
	tcase_add_test(tc, test_adopt_unfinished);
	tcase_add_test(tc, test_adopt_early_free);
	tcase_add_test(tc, test_region_blocks);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(source_suite)
