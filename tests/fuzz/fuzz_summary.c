/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_summary.c - a summary (wcanalyze --format json) as a comparison
 * reads it: the reader of capsule.h, a capture at a time, from a file
 * and from text.
 *
 * The input is the summary.  What must hold besides the sanitizers: the
 * file and the text give the same captures, then the same end or the
 * same fault (its offset and message); each capture read writes a raw
 * record (wc_capsule_write()) that is one line of well-formed JSON and,
 * as a one-capture summary, reads back to the same record.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/capsule.h"
#include "fuzz.h"

/* The most captures compared between the two readers. */
#define MAX_CAPS 64

static char *raw_of(const struct wc_capsule *c, size_t *len)
{
	char *t = NULL;
	FILE *f = open_memstream(&t, len);

	if (!f)
		fuzz_fail("summary", "open_memstream failed");
	wc_capsule_write(f, c);
	if (fclose(f) != 0)
		fuzz_fail("summary", "cannot write a raw record");
	return t;
}

/* raw read back as a summary of its one capture: the same record. */
static void round_trip(const char *raw, size_t len)
{
	struct wc_capsule_reader *r = NULL;
	struct wc_capsule *c = NULL, *more = NULL;
	struct wc_err err;
	char *s = NULL, *again;
	size_t slen = 0, alen;
	FILE *f = open_memstream(&s, &slen);

	if (!f)
		fuzz_fail("summary", "open_memstream failed");
	fprintf(f, "{\"format\": \"wcanalyze\", \"version\": 1, "
		"\"captures\": [{\"name\": \"x\", \"raw\": %.*s}]}\n",
		(int)len, raw);
	fclose(f);
	fuzz_check_json("summary: a raw record", s, slen);
	wc_err_clear(&err);
	if (wc_capsule_reader_text(&r, s, slen, &err) < 0)
		fuzz_fail("summary", "reader: %s", err.msg);
	if (wc_capsule_reader_next(r, &c, &err) != 1)
		fuzz_fail("summary", "its own record refused: %s\n%s", err.msg,
			  s);
	if (wc_capsule_reader_next(r, &more, &err) != 0)
		fuzz_fail("summary", "more than its own record: %s", err.msg);
	again = raw_of(c, &alen);
	if (alen != len || memcmp(again, raw, len))
		fuzz_fail("summary", "a record read back differs:\n%s\n%s",
			  raw, again);
	free(again);
	wc_capsule_free(c);
	wc_capsule_reader_free(r);
	free(s);
}

/* Reads r to its end or fault: up to MAX_CAPS raw records into raws
 * (the caller's), their count in *n; the last return of _next(). */
static int read_all(struct wc_capsule_reader *r, char **raws, size_t *lens,
		    size_t *n, struct wc_err *err)
{
	struct wc_capsule *c;
	int rc;

	*n = 0;
	while ((rc = wc_capsule_reader_next(r, &c, err)) > 0) {
		if (*n < MAX_CAPS) {
			raws[*n] = raw_of(c, &lens[*n]);
			(*n)++;
		}
		wc_capsule_free(c);
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wc_capsule_reader *r = NULL;
	struct wc_err et, ef;
	char *rt[MAX_CAPS], *rf[MAX_CAPS], path[PATH_MAX];
	size_t lt[MAX_CAPS], lf[MAX_CAPS], nt, nf, i;
	int ct, cf, fd;

	fuzz_reset();
	wc_err_clear(&et);
	wc_err_clear(&ef);
	if (wc_capsule_reader_text(&r, (const char *)data, size, &et) < 0)
		fuzz_fail("summary", "reader: %s", et.msg);
	ct = read_all(r, rt, lt, &nt, &et);
	wc_capsule_reader_free(r);
	fuzz_write("s.json", data, size);
	fd = open(fuzz_path(path, sizeof(path), "s.json"), O_RDONLY);
	if (fd < 0)
		fuzz_fail("summary", "cannot open %s", path);
	if (wc_capsule_reader_fd(&r, fd, path, &ef) < 0)
		fuzz_fail("summary", "reader: %s", ef.msg);
	cf = read_all(r, rf, lf, &nf, &ef);
	wc_capsule_reader_free(r);
	close(fd);
	if (ct != cf || nt != nf)
		fuzz_fail("summary", "text: %zu captures, then %d (%s); file: "
			  "%zu, then %d (%s)", nt, ct, et.msg, nf, cf, ef.msg);
	if (ct < 0 && (et.offset != ef.offset || strcmp(et.msg, ef.msg)))
		fuzz_fail("summary", "text: offset %llu: %s; file: offset "
			  "%llu: %s", (unsigned long long)et.offset, et.msg,
			  (unsigned long long)ef.offset, ef.msg);
	for (i = 0; i < nt; i++) {
		if (lt[i] != lf[i] || memcmp(rt[i], rf[i], lt[i]))
			fuzz_fail("summary", "capture %zu: text and file "
				  "differ", i);
		round_trip(rt[i], lt[i]);
		free(rt[i]);
		free(rf[i]);
	}
	return 0;
}
