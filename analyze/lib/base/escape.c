/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * escape.c - input text made safe for each place it is written (see
 * escape.h).
 */
#include "base/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * The length (2 to 4) of the well-formed UTF-8 sequence of a non-ASCII
 * character at s, its code point in *cp; 0 when the bytes at s are not
 * one (overlong, a surrogate, past U+10FFFF, cut short).  A NUL is never
 * a continuation byte, so this never reads past the end of s.
 */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t c, min;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2; c = s[0] & 0x1f; min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3; c = s[0] & 0x0f; min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4; c = s[0] & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Characters that must not reach a page or a figure as themselves:
 * controls (C0, DEL, C1), line and paragraph separators, and the
 * bidirectional marks and overrides that make text read other than it
 * is stored. */
static bool unsafe_cp(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The text escape of the byte c into out (at most 4 bytes and a NUL);
 * returns the length. */
static size_t text_byte(unsigned char c, char *out)
{
	if (c == '\\') {
		memcpy(out, "\\\\", 3);
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		out[1] = '\0';
		return 1;
	}
	out[0] = '\\';
	out[1] = (char)('0' + (c >> 6));
	out[2] = (char)('0' + ((c >> 3) & 7));
	out[3] = (char)('0' + (c & 7));
	out[4] = '\0';
	return 4;
}

char *wc_escape_text(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = 0;

	if (size == 0)
		return buf;
	for (; *p; p++) {
		char e[5];
		size_t n = text_byte(*p, e);

		if (len + n >= size)
			break;
		memcpy(buf + len, e, n);
		len += n;
	}
	buf[len] = '\0';
	return buf;
}

void wc_escape_text_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char e[5];

	for (; *p; p++) {
		text_byte(*p, e);
		fputs(e, f);
	}
}

void wc_escape_json(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	uint32_t cp;
	size_t n;

	putc('"', f);
	while (*p) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			putc(*p++, f);
		} else if ((n = utf8_seq(p, &cp)) == 0) {
			fputs("\\ufffd", f);
			p++;
		} else if (cp == 0x2028 || cp == 0x2029) {
			/* Valid JSON, but a line break to JavaScript. */
			fprintf(f, "\\u%04x", (unsigned)cp);
			p += n;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	putc('"', f);
}

void wc_escape_json_bytes(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	putc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			putc(*p, f);
	}
	putc('"', f);
}

void wc_escape_html(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	uint32_t cp;
	size_t n;

	while (*p) {
		switch (*p) {
		case '&': fputs("&amp;", f); p++; continue;
		case '<': fputs("&lt;", f); p++; continue;
		case '>': fputs("&gt;", f); p++; continue;
		case '"': fputs("&quot;", f); p++; continue;
		case '\'': fputs("&#39;", f); p++; continue;
		case '\n': case '\t': putc(*p++, f); continue;
		default: break;
		}
		if (*p < 0x80) {
			if (*p < 0x20 || *p == 0x7f)
				fputs("&#xFFFD;", f);
			else
				putc(*p, f);
			p++;
		} else if ((n = utf8_seq(p, &cp)) == 0 || unsafe_cp(cp)) {
			fputs("&#xFFFD;", f);
			p += n ? n : 1;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
}

void wc_escape_gnuplot(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	uint32_t cp;
	size_t n, i;
	char e[5];

	putc('\'', f);
	while (*p) {
		if (*p == '\'') {
			fputs("''", f);
			p++;
		} else if (*p < 0x80) {
			text_byte(*p++, e);
			fputs(e, f);
		} else if ((n = utf8_seq(p, &cp)) == 0 || unsafe_cp(cp)) {
			for (i = 0; i < (n ? n : 1); i++) {
				text_byte(*p++, e);
				fputs(e, f);
			}
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	putc('\'', f);
}

void wc_escape_csv(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	bool quote = strpbrk((const char *)p, ",\"") != NULL;
	char e[5];

	if (quote)
		putc('"', f);
	for (; *p; p++) {
		if (*p == '"')
			putc('"', f);
		text_byte(*p, e);
		fputs(e, f);
	}
	if (quote)
		putc('"', f);
}
