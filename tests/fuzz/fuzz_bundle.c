/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_bundle.c - a capture folder through the analysis and the bundle
 * writer (wcanalyze -o), figures written but not drawn (no gnuplot).
 *
 * The input is a list of sections, each a line "=== KIND" and the bytes
 * up to the next "\n=== " (or the end):
 *   name                  the capture folder's name (its first line; '/'
 *                         and NUL become '_')
 *   capture.conf, phases.tsv
 *   trace/DEV.blktrace.N  a per-CPU file (DEV letters, digits, '_', '-';
 *                         at most 16 files); a second section of the same
 *                         name appends
 *   options               words: "twice" (the folder analysed twice, so
 *                         there are figures across captures), "baseline"
 *                         (the first capture is the baseline), "rate"
 *                         (--media-rate 100), "journal" (--journal 0+8)
 * Sections of other kinds are ignored.
 *
 * Besides the checks of fuzz.h on every file the bundle writes (by its
 * name: .json, report.txt, .csv, .gp, .html, anything else as terminal
 * text), nothing may appear in the scratch folder but the capture folder
 * and the bundle, and the bundle holds no symbolic link.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "out/bundle.h"
#include "fuzz.h"

#ifndef FUZZ_PLOTS
#define FUZZ_PLOTS "plots"
#endif

#define MAX_TRACE_FILES 16

struct capture {
	char name[256];
	unsigned ntrace;
	char trace[MAX_TRACE_FILES][96];
	bool twice, baseline, rate, journal;
};

static bool trace_name_ok(const char *s, size_t n)
{
	const char *dot;
	size_t i, devlen;

	if (n < 16 || n > 80 || memcmp(s, "trace/", 6) != 0)
		return false;
	s += 6;
	n -= 6;
	dot = memchr(s, '.', n);
	if (!dot || dot == s)
		return false;
	devlen = (size_t)(dot - s);
	/* strchr() finds the terminator too: a NUL byte would pass, and
	 * "%.*s" would then cut the name at it ("trace/", a folder). */
	for (i = 0; i < devlen; i++)
		if (!s[i] || !strchr("abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", s[i]))
			return false;
	if (n - devlen < 11 || memcmp(dot, ".blktrace.", 10) != 0)
		return false;
	for (i = devlen + 10; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n - devlen - 10 <= 4;
}

static void section(struct capture *c, const char *kind, size_t klen,
		    const uint8_t *p, size_t n)
{
	char rel[512];
	unsigned i;

	if (klen == 4 && !memcmp(kind, "name", 4)) {
		const uint8_t *nl = memchr(p, '\n', n);

		if (nl)
			n = (size_t)(nl - p);
		if (n >= sizeof(c->name))
			n = sizeof(c->name) - 1;
		for (i = 0; i < n; i++)
			c->name[i] = p[i] == '/' || p[i] == '\0' ? '_' : (char)p[i];
		c->name[n] = '\0';
		return;
	}
	if (klen == 7 && !memcmp(kind, "options", 7)) {
		c->twice = memmem(p, n, "twice", 5) != NULL;
		c->baseline = memmem(p, n, "baseline", 8) != NULL;
		c->rate = memmem(p, n, "rate", 4) != NULL;
		c->journal = memmem(p, n, "journal", 7) != NULL;
		return;
	}
	if ((klen == 12 && !memcmp(kind, "capture.conf", 12)) ||
	    (klen == 10 && !memcmp(kind, "phases.tsv", 10))) {
		snprintf(rel, sizeof(rel), "in/%.*s", (int)klen, kind);
		fuzz_append(rel, p, n);
		return;
	}
	if (!trace_name_ok(kind, klen))
		return;
	for (i = 0; i < c->ntrace; i++)
		if (strlen(c->trace[i]) == klen && !memcmp(c->trace[i], kind, klen))
			break;
	if (i == c->ntrace) {
		if (c->ntrace == MAX_TRACE_FILES)
			return;
		memcpy(c->trace[c->ntrace], kind, klen);
		c->trace[c->ntrace++][klen] = '\0';
	}
	snprintf(rel, sizeof(rel), "in/%.*s", (int)klen, kind);
	fuzz_append(rel, p, n);
}

/* Cuts the input into sections; the files go into scratch/in, renamed to
 * the capture's name afterwards. */
static void parse(struct capture *c, const uint8_t *data, size_t size)
{
	size_t i = 0;

	fuzz_write("in/.keep", "", 0);
	while (i < size) {
		const uint8_t *kind, *body, *next, *nl;
		size_t klen, blen;

		if (size - i < 4 || memcmp(data + i, "=== ", 4) != 0) {
			/* Bytes before the first section are ignored. */
			next = memmem(data + i, size - i, "\n=== ", 5);
			if (!next)
				return;
			i = (size_t)(next - data) + 1;
			continue;
		}
		kind = data + i + 4;
		nl = memchr(kind, '\n', size - i - 4);
		klen = nl ? (size_t)(nl - kind) : size - i - 4;
		body = nl ? nl + 1 : data + size;
		next = memmem(body, (size_t)(data + size - body), "\n=== ", 5);
		blen = next ? (size_t)(next - body) : (size_t)(data + size - body);
		section(c, (const char *)kind, klen, body, blen);
		i = next ? (size_t)(next - data) + 1 : size;
	}
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/* A URL attribute (href, src, action) whose value runs a script.  The
 * same words as text or in another attribute (alt="x javascript: y",
 * from a capture's name) are inert: the scheme is only ever read from
 * a URL. */
static void check_urls(const char *what, const char *low, size_t n)
{
	static const char *const attr[] = { " href=\"", " src=\"", " action=\"" };
	static const char *const scheme[] = { "javascript:", "vbscript:",
					      "data:text/html" };
	const char *p, *end, *q;
	size_t k, j;

	for (k = 0; k < sizeof(attr) / sizeof(attr[0]); k++) {
		for (p = low; (p = memmem(p, n - (size_t)(p - low), attr[k],
					  strlen(attr[k]))) != NULL; p = end) {
			p += strlen(attr[k]);
			end = memchr(p, '"', n - (size_t)(p - low));
			if (!end)
				fuzz_fail(what, "attribute value not closed");
			for (j = 0; j < sizeof(scheme) / sizeof(scheme[0]); j++) {
				q = memmem(p, (size_t)(end - p), scheme[j],
					   strlen(scheme[j]));
				if (q)
					fuzz_fail(what, "holds \"%s\" in a URL",
						  scheme[j]);
			}
		}
	}
}

/* HTML: no script or active content whatever the names were. */
static void check_html(const char *what, const char *s, size_t n)
{
	static const char *const bad[] = { "<script", "<iframe",
					   "<object", "<embed", "<base", "<form" };
	char *low = malloc(n + 1);
	size_t i, k;

	if (!low)
		fuzz_fail(what, "out of memory");
	fuzz_check_terminal(what, s, n);
	for (i = 0; i < n; i++)
		low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	low[n] = '\0';
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		if (memmem(low, n, bad[k], strlen(bad[k])))
			fuzz_fail(what, "holds \"%s\"", bad[k]);
	check_urls(what, low, n);
	/* In a tag, an attribute name starting with "on" is an event
	 * handler; attribute values are double-quoted. */
	for (i = 0; i < n; i++) {
		if (low[i] != '<')
			continue;
		for (i++; i < n && low[i] != '>'; i++) {
			if (low[i] == '"') {
				const char *q = memchr(low + i + 1, '"', n - i - 1);

				if (!q)
					fuzz_fail(what, "attribute value not closed");
				i = (size_t)(q - low);
			} else if (low[i] == '<') {
				fuzz_fail(what, "'<' inside a tag at offset %zu", i);
			} else if ((low[i - 1] == ' ' || low[i - 1] == '\n') &&
				   i + 2 < n && low[i] == 'o' && low[i + 1] == 'n') {
				fuzz_fail(what, "event handler attribute at "
					  "offset %zu", i);
			}
		}
	}
	free(low);
}

static void check_file(const char *path, const char *base)
{
	size_t n = 0;
	char *s = fuzz_read(path, &n);

	if (!s)
		fuzz_fail(path, "written but cannot be read");
	if (has_suffix(base, ".json")) {
		if (!fuzz_skipped("json"))
			fuzz_check_json(path, s, n);
	} else if (!strcmp(base, "report.txt")) {
		if (!fuzz_skipped("text"))
			fuzz_check_ascii(path, s, n);
	} else if (has_suffix(base, ".csv")) {
		if (!fuzz_skipped("csv"))
			fuzz_check_csv(path, s, n);
	} else if (has_suffix(base, ".gp")) {
		if (!fuzz_skipped("gnuplot"))
			fuzz_check_gnuplot(path, s, n);
	} else if (has_suffix(base, ".html")) {
		if (!fuzz_skipped("html"))
			check_html(path, s, n);
	} else if (!fuzz_skipped("text")) {
		fuzz_check_terminal(path, s, n);
	}
	free(s);
}

static void check_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		fuzz_fail(dir, "bundle folder cannot be read");
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(path))
			fuzz_fail(dir, "a name in the bundle is too long");
		if (lstat(path, &st) < 0)
			fuzz_fail(path, "vanished");
		if (S_ISLNK(st.st_mode))
			fuzz_fail(path, "the bundle holds a symbolic link");
		if (S_ISDIR(st.st_mode))
			check_tree(path);
		else
			check_file(path, e->d_name);
	}
	closedir(d);
}

/* Only the capture folder and the bundle may be in the scratch folder. */
static void check_scratch(const char *capname)
{
	DIR *d = opendir(fuzz_scratch());
	struct dirent *e;

	if (!d)
		fuzz_fail("scratch", "cannot be read");
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "out") || !strcmp(e->d_name, capname))
			continue;
		fuzz_fail("scratch", "\"%s\" written outside the bundle",
			  e->d_name);
	}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct capture c;
	struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
	struct wc_analysis *caps[2] = { NULL, NULL };
	struct wc_bundle *b = NULL;
	struct wc_err err;
	char in[PATH_MAX], cap[PATH_MAX], out[PATH_MAX];
	size_t i, n = 0, runs;

	/* Figures are written, never drawn: no gnuplot runs here. */
	setenv("WCANALYZE_GNUPLOT", "", 1);
	setenv("WCANALYZE_PLOTS", FUZZ_PLOTS, 1);
	memset(&c, 0, sizeof(c));
	fuzz_reset();
	parse(&c, data, size);
	if (!c.name[0] || !strcmp(c.name, ".") || !strcmp(c.name, "..") ||
	    !strcmp(c.name, "out") || !strcmp(c.name, "in"))
		snprintf(c.name, sizeof(c.name), "capture");
	fuzz_path(in, sizeof(in), "in");
	fuzz_path(cap, sizeof(cap), c.name);
	if (rename(in, cap) < 0)
		return 0;       /* a name the filesystem refuses (too long) */
	fuzz_path(out, sizeof(out), "out");

	if (c.rate)
		o.media_rate = 100e6;
	if (c.journal) {
		o.journal_given = true;
		o.journal_start = 0;
		o.journal_len = 8;
	}
	wc_err_clear(&err);
	if (wc_bundle_open(&b, out, &err) < 0)
		fuzz_fail("bundle", "cannot open: %s", err.msg);
	o.series = true;
	runs = c.twice ? 2 : 1;
	for (i = 0; i < runs; i++) {
		struct wc_analysis *a = NULL;

		wc_err_clear(&err);
		wc_analysis_read(&a, cap, &o, &err);
		if (!a)
			continue;
		caps[n++] = a;
		wc_err_clear(&err);
		if (wc_bundle_add(b, a, &err) < 0)
			fuzz_fail("bundle", "add: %s", err.msg);
	}
	if (n > 0) {
		const char *base = c.baseline ? wc_analysis_meta(caps[0])->name
					      : NULL;

		struct wc_summary *sum = NULL;

		wc_err_clear(&err);
		if (wc_summary_build(&sum, caps, n, base, &err) < 0)
			fuzz_fail("bundle", "summary: %s", err.msg);
		if (wc_bundle_close(b, sum, &err) < 0 && err.kind != WC_ERR_INPUT &&
		    err.kind != WC_ERR_USAGE)
			fuzz_fail("bundle", "close: %s", err.msg);
		wc_summary_free(sum);
		check_tree(out);
	}
	check_scratch(c.name);
	wc_bundle_free(b);
	for (i = 0; i < n; i++)
		wc_analysis_free(caps[i]);
	return 0;
}
