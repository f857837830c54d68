/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_common.c - the checks and scratch files of the fuzz targets
 * (fuzz.h).  Test code: it prints and aborts, the library never does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out/dump.h"
#include "fuzz.h"
#include "input/input_test.h"
#include "model/filter.h"
#include "out/report.h"

void fuzz_fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* ---- UTF-8 ---- */

/* Length of the valid UTF-8 sequence at s[0..n) and its code point, or 0
 * when the bytes there are not one (overlong, surrogate, > U+10FFFF,
 * truncated).  Written apart from escape.c's decoder on purpose: a check
 * that shared the code it checks could not catch that code's mistakes. */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2; c &= 0x1f; min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3; c &= 0x0f; min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4; c &= 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

bool fuzz_skipped(const char *check)
{
	const char *env = getenv("WCFUZZ_SKIP");
	size_t n = strlen(check);

	while (env && *env) {
		size_t len = strcspn(env, " ,");

		if (len == n && !strncmp(env, check, n))
			return true;
		env += len;
		env += strspn(env, " ,");
	}
	return false;
}

void fuzz_check_ascii(const char *what, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c != '\n' && (c < 0x20 || c > 0x7e))
			fuzz_fail(what, "byte 0x%02x at offset %zu is not "
				  "printable ASCII", c, i);
	}
}

void fuzz_check_terminal(const char *what, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		uint32_t cp = 0;
		size_t len = utf8_seq(u + i, n - i, &cp);

		if (len == 0) {
			if (u[i] >= 0x80 && u[i] <= 0x9f)
				fuzz_fail(what, "raw C1 control byte 0x%02x at "
					  "offset %zu", u[i], i);
			i++;
			continue;
		}
		if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f))
			fuzz_fail(what, "control character U+%04X at offset %zu",
				  (unsigned)cp, i);
		i += len;
	}
}

/* ---- JSON (RFC 8259) ---- */

struct json {
	const char *what;
	const unsigned char *s;
	size_t n, i;
	unsigned depth;
};

#define JSON_MAX_DEPTH 64

static void json_fail(struct json *j, const char *why)
{
	size_t from = j->i > 40 ? j->i - 40 : 0;
	size_t len = j->n - from < 80 ? j->n - from : 80;

	fuzz_fail(j->what, "invalid JSON at offset %zu: %s (near \"%.*s\")",
		  j->i, why, (int)len, (const char *)j->s + from);
}

static void json_ws(struct json *j)
{
	while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
			       j->s[j->i] == '\n' || j->s[j->i] == '\r'))
		j->i++;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static uint32_t json_u4(struct json *j)
{
	uint32_t v = 0;
	int k;

	if (j->n - j->i < 4)
		json_fail(j, "short \\u escape");
	for (k = 0; k < 4; k++) {
		int h = hexval(j->s[j->i + (size_t)k]);

		if (h < 0)
			json_fail(j, "bad hex digit in \\u escape");
		v = v << 4 | (uint32_t)h;
	}
	j->i += 4;
	return v;
}

static void json_string(struct json *j)
{
	j->i++; /* the opening quote */
	for (;;) {
		uint32_t cp;
		size_t len;

		if (j->i >= j->n)
			json_fail(j, "string not closed");
		if (j->s[j->i] == '"') {
			j->i++;
			return;
		}
		if (j->s[j->i] < 0x20)
			json_fail(j, "raw control character in string");
		if (j->s[j->i] == '\\') {
			j->i++;
			if (j->i >= j->n)
				json_fail(j, "escape at the end");
			switch (j->s[j->i++]) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				break;
			case 'u':
				cp = json_u4(j);
				if (cp >= 0xdc00 && cp <= 0xdfff)
					json_fail(j, "lone low surrogate");
				if (cp >= 0xd800 && cp <= 0xdbff) {
					if (j->n - j->i < 6 || j->s[j->i] != '\\' ||
					    j->s[j->i + 1] != 'u')
						json_fail(j, "lone high surrogate");
					j->i += 2;
					cp = json_u4(j);
					if (cp < 0xdc00 || cp > 0xdfff)
						json_fail(j, "bad low surrogate");
				}
				break;
			default:
				j->i--;
				json_fail(j, "unknown escape");
			}
			continue;
		}
		len = utf8_seq(j->s + j->i, j->n - j->i, &cp);
		if (len == 0)
			json_fail(j, "invalid UTF-8 in string");
		j->i += len;
	}
}

static void json_digits(struct json *j)
{
	if (j->i >= j->n || j->s[j->i] < '0' || j->s[j->i] > '9')
		json_fail(j, "digit expected");
	while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
		j->i++;
}

static void json_number(struct json *j)
{
	if (j->s[j->i] == '-')
		j->i++;
	if (j->i < j->n && j->s[j->i] == '0')
		j->i++;
	else
		json_digits(j);
	if (j->i < j->n && j->s[j->i] == '.') {
		j->i++;
		json_digits(j);
	}
	if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
		j->i++;
		if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
			j->i++;
		json_digits(j);
	}
}

static void json_word(struct json *j, const char *w)
{
	size_t len = strlen(w);

	if (j->n - j->i < len || memcmp(j->s + j->i, w, len) != 0)
		json_fail(j, "unexpected character (not a JSON value)");
	j->i += len;
}

static void json_value(struct json *j);

static void json_container(struct json *j, unsigned char close)
{
	bool first = true;

	if (++j->depth > JSON_MAX_DEPTH)
		json_fail(j, "nested too deep");
	j->i++;
	json_ws(j);
	if (j->i < j->n && j->s[j->i] == close) {
		j->i++;
		j->depth--;
		return;
	}
	for (;;) {
		if (!first) {
			json_ws(j);
			if (j->i < j->n && j->s[j->i] == close) {
				j->i++;
				break;
			}
			if (j->i >= j->n || j->s[j->i] != ',')
				json_fail(j, "',' or end of container expected");
			j->i++;
		}
		first = false;
		json_ws(j);
		if (close == '}') {
			if (j->i >= j->n || j->s[j->i] != '"')
				json_fail(j, "member name expected");
			json_string(j);
			json_ws(j);
			if (j->i >= j->n || j->s[j->i] != ':')
				json_fail(j, "':' expected");
			j->i++;
		}
		json_value(j);
	}
	j->depth--;
}

static void json_value(struct json *j)
{
	json_ws(j);
	if (j->i >= j->n)
		json_fail(j, "value expected");
	switch (j->s[j->i]) {
	case '{':
		json_container(j, '}');
		break;
	case '[':
		json_container(j, ']');
		break;
	case '"':
		json_string(j);
		break;
	case 't':
		json_word(j, "true");
		break;
	case 'f':
		json_word(j, "false");
		break;
	case 'n':
		json_word(j, "null");
		break;
	default:
		if (j->s[j->i] == '-' || (j->s[j->i] >= '0' && j->s[j->i] <= '9'))
			json_number(j);
		else
			json_fail(j, "unexpected character (not a JSON value)");
	}
}

void fuzz_check_json(const char *what, const char *s, size_t n)
{
	struct json j = { what, (const unsigned char *)s, n, 0, 0 };

	json_value(&j);
	json_ws(&j);
	if (j.i != j.n)
		json_fail(&j, "text after the value");
}

/* ---- CSV ---- */

void fuzz_check_csv(const char *what, const char *s, size_t n)
{
	size_t i = 0, fields = 1, want = 0, row = 0;
	bool quoted = false;

	fuzz_check_terminal(what, s, n);
	if (n == 0)
		return;
	if (s[n - 1] != '\n')
		fuzz_fail(what, "CSV does not end with a newline");
	for (i = 0; i < n; i++) {
		if (quoted) {
			if (s[i] != '"')
				continue;
			if (i + 1 < n && s[i + 1] == '"') {
				i++;
				continue;
			}
			quoted = false;
			if (i + 1 < n && s[i + 1] != ',' && s[i + 1] != '\n')
				fuzz_fail(what, "text after a closing quote at "
					  "offset %zu", i);
			continue;
		}
		if (s[i] == '"') {
			if (i > 0 && s[i - 1] != ',' && s[i - 1] != '\n')
				fuzz_fail(what, "quote inside an unquoted field "
					  "at offset %zu", i);
			quoted = true;
		} else if (s[i] == ',') {
			fields++;
		} else if (s[i] == '\n') {
			if (row == 0)
				want = fields;
			else if (fields != want)
				fuzz_fail(what, "row %zu has %zu fields, the "
					  "header %zu", row, fields, want);
			row++;
			fields = 1;
		}
	}
	if (quoted)
		fuzz_fail(what, "quoted field not closed");
}

/* ---- gnuplot ---- */

void fuzz_check_gnuplot(const char *what, const char *s, size_t n)
{
	size_t i = 0;

	fuzz_check_terminal(what, s, n);
	while (i < n) {
		char c = s[i];

		if (c == '#') {         /* a comment, to the end of the line */
			while (i < n && s[i] != '\n')
				i++;
		} else if (c == '\'') { /* '' is a quote inside; no escapes */
			for (i++;; i++) {
				if (i >= n || s[i] == '\n')
					fuzz_fail(what, "single-quoted string "
						  "not closed at offset %zu", i);
				if (s[i] == '\'') {
					if (i + 1 < n && s[i + 1] == '\'') {
						i++;
						continue;
					}
					break;
				}
			}
			i++;
		} else if (c == '"') {  /* backslash escapes; backquotes run */
			for (i++;; i++) {
				if (i >= n || s[i] == '\n')
					fuzz_fail(what, "double-quoted string "
						  "not closed at offset %zu", i);
				if (s[i] == '`')
					fuzz_fail(what, "backquote in a double-"
						  "quoted string at offset %zu", i);
				if (s[i] == '\\' && i + 1 < n && s[i + 1] != '\n') {
					i++;
					continue;
				}
				if (s[i] == '"')
					break;
			}
			i++;
		} else if (c == '`' || c == '@') {
			fuzz_fail(what, "'%c' outside strings at offset %zu", c, i);
		} else if (n - i >= 6 && memcmp(s + i, "system", 6) == 0) {
			fuzz_fail(what, "\"system\" outside strings at offset %zu", i);
		} else {
			i++;
		}
	}
}

/* ---- scratch files ---- */

static char scratch[PATH_MAX];

static void rm_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	/* A file without read or search permission must not survive. */
	chmod(path, 0700);
	d = opendir(path);
	if (d) {
		while ((e = readdir(d))) {
			char sub[PATH_MAX];

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >=
			    (int)sizeof(sub))
				continue;
			rm_tree(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

static void scratch_remove(void)
{
	if (scratch[0])
		rm_tree(scratch);
}

const char *fuzz_scratch(void)
{
	const char *tmp;

	if (scratch[0])
		return scratch;
	tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(scratch, sizeof(scratch), "%s/wcfuzz.XXXXXX", tmp);
	if (!mkdtemp(scratch))
		fuzz_fail("scratch", "%s: %s", scratch, strerror(errno));
	atexit(scratch_remove);
	return scratch;
}

void fuzz_reset(void)
{
	const char *dir = fuzz_scratch();
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		fuzz_fail("scratch", "%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char sub[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(sub))
			fuzz_fail("scratch", "name too long: %s", e->d_name);
		rm_tree(sub);
	}
	closedir(d);
}

char *fuzz_path(char *buf, size_t size, const char *rel)
{
	if (snprintf(buf, size, "%s/%s", fuzz_scratch(), rel) >= (int)size)
		fuzz_fail("scratch", "path too long: %s", rel);
	return buf;
}

static void write_mode(const char *rel, const void *data, size_t n,
		       const char *mode)
{
	char path[PATH_MAX], *p;
	bool short_write;
	FILE *f;

	fuzz_path(path, sizeof(path), rel);
	for (p = path + strlen(fuzz_scratch()) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			fuzz_fail("scratch", "%s: %s", path, strerror(errno));
		*p = '/';
	}
	f = fopen(path, mode);
	if (!f)
		fuzz_fail("scratch", "%s: %s", path, strerror(errno));
	/* Both run: a failed write must not leave the FILE open. */
	short_write = n && fwrite(data, 1, n, f) != n;
	if (fclose(f) != 0 || short_write)
		fuzz_fail("scratch", "%s: write failed", path);
}

void fuzz_write(const char *rel, const void *data, size_t n)
{
	write_mode(rel, data, n, "wb");
}

void fuzz_append(const char *rel, const void *data, size_t n)
{
	write_mode(rel, data, n, "ab");
}

char *fuzz_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, len = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap ? cap * 2 : 8192);

			if (!nb)
				fuzz_fail(path, "out of memory");
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	fclose(f);
	buf[len] = '\0';
	*n = len;
	return buf;
}

void fuzz_split(const uint8_t *data, size_t size, const char *sep,
		void (*fn)(void *ctx, size_t i, const uint8_t *p, size_t n),
		void *ctx)
{
	size_t seplen = strlen(sep), start = 0, i = 0, k = 0;

	while (i + seplen <= size) {
		if (memcmp(data + i, sep, seplen) == 0) {
			fn(ctx, k++, data + start, i - start);
			i += seplen;
			start = i;
		} else {
			i++;
		}
	}
	fn(ctx, k, data + start, size - start);
}

/* ---- reports ---- */

typedef int (*report_fn)(FILE *f, const struct wc_summary *s,
			 struct wc_err *err);

/* Writes one report (of caps[0] alone when fn is NULL) into memory; NULL
 * when the library refused (err). */
static char *report_mem(report_fn fn, struct wc_analysis *const *caps,
			size_t n, const char *baseline, size_t *len)
{
	struct wc_summary *sum = NULL;
	struct wc_err err;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int r;

	if (!f)
		fuzz_fail("report", "open_memstream: %s", strerror(errno));
	wc_err_clear(&err);
	r = wc_summary_build(&sum, caps, fn ? n : 1, baseline, &err);
	if (r == 0)
		r = fn ? fn(f, sum, &err) : wc_report_text(f, sum, 0, &err);
	wc_summary_free(sum);
	if (fclose(f) != 0)
		fuzz_fail("report", "memory stream failed");
	if (r < 0) {
		/* Only an unknown baseline may be refused: memory never fails
		 * to take a write. */
		if (!baseline)
			fuzz_fail("report", "refused without a baseline: %s",
				  err.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

void fuzz_reports(struct wc_analysis *const *caps, size_t n)
{
	const char *base[2] = { NULL, NULL };
	size_t i, b, len;
	char *s;

	if (n == 0)
		return;
	base[1] = wc_analysis_meta(caps[0])->name;
	for (i = 0; i < n; i++) {
		s = report_mem(NULL, &caps[i], 1, NULL, &len);
		if (!fuzz_skipped("text"))
			fuzz_check_ascii("text report", s, len);
		free(s);
	}
	for (b = 0; b < 2; b++) {
		s = report_mem(wc_report_compare, caps, n, base[b], &len);
		if (s && !fuzz_skipped("text"))
			fuzz_check_ascii("comparison report", s, len);
		free(s);
		s = report_mem(wc_report_json, caps, n, base[b], &len);
		if (s && !fuzz_skipped("json"))
			fuzz_check_json("JSON report", s, len);
		free(s);
		s = report_mem(wc_report_csv, caps, n, base[b], &len);
		if (s && !fuzz_skipped("csv"))
			fuzz_check_csv("CSV report", s, len);
		free(s);
	}
}

/* --dump of path with limits lim (NULL: wcanalyze's) into *buf; how it
 * ended (err empty: at the end of the input) in *err. */
static size_t dump_to(const char *path, const struct wc_input_limits *lim,
		      char **buf, size_t *len, struct wc_err *err)
{
	struct wc_input *in = NULL;
	struct wc_event ev;
	size_t events = 0;
	FILE *f;

	*buf = NULL;
	*len = 0;
	wc_err_clear(err);
	if (wc_input_open_limits(&in, path, lim, err) < 0)
		return 0;
	wc_input_set_blkparse_names(in);
	f = open_memstream(buf, len);
	if (!f)
		fuzz_fail("dump", "open_memstream: %s", strerror(errno));
	while (wc_input_next(in, &ev, err) > 0) {
		if (wc_dump_event(f, &ev, wc_input_genesis(in),
				  wc_input_comm(in, ev.pid)) < 0)
			fuzz_fail("dump", "write to memory failed");
		events++;
	}
	if (fclose(f) != 0)
		fuzz_fail("dump", "memory stream failed");
	wc_input_free(in);
	return events;
}

size_t fuzz_dump(const char *path)
{
	/* Two handles and nothing in memory: files and members closed and
	 * resumed, scouts in passes (input.h); the lines must not change.
	 * When both read to the end: two handles can be too few for the
	 * payloads waiting at once (input.h), a failure by design after
	 * which the other streams run on without the failed one, and only
	 * an input's first failure is reported, so that one may hide it. */
	const struct wc_input_limits few = { .max_open = 2, .no_memory = true };
	struct wc_err err, few_err;
	char *buf, *few_buf;
	size_t len, few_len, events;

	events = dump_to(path, NULL, &buf, &len, &err);
	/* --dump prints process names and messages raw, as blkparse does
	 * (it must match blkparse byte for byte: docs/security.md, limits),
	 * so its text is checked only on request. */
	if (getenv("WCFUZZ_DUMP_TERMINAL") && !fuzz_skipped("dump"))
		fuzz_check_terminal("--dump output", buf, len);
	dump_to(path, &few, &few_buf, &few_len, &few_err);
	if (!fuzz_skipped("dump-handles") && err.kind == WC_ERR_NONE &&
	    few_err.kind == WC_ERR_NONE &&
	    (len != few_len || (len && memcmp(buf, few_buf, len) != 0)))
		fuzz_fail("dump", "with 2 handles and nothing in memory the "
			  "lines differ (%zu bytes against %zu)", few_len, len);
	free(buf);
	free(few_buf);
	return events;
}

/* ---- a capture folder with options (fuzz_interval, _timeline, _whatif) */

struct capture_parts {
	char *opts;
	size_t optsize;
};

static void capture_part(void *ctx, size_t i, const uint8_t *p, size_t n)
{
	struct capture_parts *c = ctx;
	char rel[64];

	if (i == 0) {
		n = n < c->optsize - 1 ? n : c->optsize - 1;
		memcpy(c->opts, p, n);
		c->opts[n] = '\0';
	} else if (i == 1) {
		fuzz_append("cap/capture.conf", p, n);
	} else if (i == 2) {
		fuzz_write("cap/phases.tsv", p, n);
	} else if (i < 3 + FUZZ_CAPTURE_STREAMS) {
		snprintf(rel, sizeof(rel), "cap/trace/d.blktrace.%zu", i - 3);
		fuzz_write(rel, p, n);
	}
}

void fuzz_capture(const uint8_t *data, size_t size, char *opts,
		  size_t optsize)
{
	static const char head[] = "format_version = 1\nname = cap\n";
	struct capture_parts c = { opts, optsize };

	opts[0] = '\0';
	fuzz_write("cap/capture.conf", head, sizeof(head) - 1);
	fuzz_split(data, size, FUZZ_SEP, capture_part, &c);
}

void fuzz_filters(const char *opts, struct wc_filter *f)
{
	char v[256];

	if (fuzz_option(opts, "window", v, sizeof(v)))
		(void)wc_filter_parse_window(f, v);
	if (fuzz_option(opts, "phase", v, sizeof(v)))
		(void)wc_filter_parse_phase(f, v);
	if (fuzz_option(opts, "device", v, sizeof(v)))
		(void)wc_filter_parse_device(f, v);
	if (fuzz_option(opts, "process", v, sizeof(v)))
		(void)wc_filter_parse_process(f, v);
}

bool fuzz_option(const char *opts, const char *key, char *value, size_t size)
{
	size_t klen = strlen(key);
	const char *p = opts;

	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > klen && !memcmp(p, key, klen) && p[klen] == ' ') {
			len -= klen + 1;
			len = len < size - 1 ? len : size - 1;
			memcpy(value, p + klen + 1, len);
			value[len] = '\0';
			return true;
		}
		p += len + (end != NULL);
	}
	return false;
}
