/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_escape.c - unit tests of analyze/lib/base/escape.c: the exact escape
 * of hostile strings for each place, and, over every byte value and many
 * random strings, the properties escape.h promises (text is printable
 * ASCII, JSON is valid UTF-8 without raw controls, a gnuplot literal is
 * one line whose quotes are all doubled).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "base/escape.h"

/* What fn writes for s, as a string (static buffer). */
static const char *put(void (*fn)(FILE *, const char *), const char *s)
{
	static char out[8192];
	FILE *fp;

	/* glibc's fmemopen leaves the buffer as it was when nothing is
	 * written. */
	out[0] = '\0';
	fp = fmemopen(out, sizeof(out), "w");

	ck_assert_ptr_nonnull(fp);
	fn(fp, s);
	ck_assert_int_eq(ferror(fp), 0);
	fclose(fp);
	return out;
}

START_TEST(test_text)
{
	char buf[64];

	ck_assert_str_eq(wc_escape_text("ext4-cache-on_1.x", buf, sizeof(buf)),
			 "ext4-cache-on_1.x");
	ck_assert_str_eq(wc_escape_text("a\033[2Jb\r\n", buf, sizeof(buf)),
			 "a\\033[2Jb\\015\\012");
	ck_assert_str_eq(wc_escape_text("back\\slash", buf, sizeof(buf)),
			 "back\\\\slash");
	ck_assert_str_eq(wc_escape_text("\xff\x7f\x9b", buf, sizeof(buf)),
			 "\\377\\177\\233");
	/* Non-ASCII UTF-8 too: the text report is plain ASCII. */
	ck_assert_str_eq(wc_escape_text("gr\xc3\xb6\xc3\x9f" "e", buf, sizeof(buf)),
			 "gr\\303\\266\\303\\237e");
	ck_assert_str_eq(wc_escape_text("`$(x)'\"", buf, sizeof(buf)), "`$(x)'\"");
	ck_assert_str_eq(wc_escape_text(NULL, buf, sizeof(buf)), "");
	ck_assert_str_eq(put(wc_escape_text_put, "a\tb\\"), "a\\011b\\\\");
}
END_TEST

START_TEST(test_text_cut)
{
	char buf[8];

	/* Cut before an escape that does not fit whole, never inside it. */
	ck_assert_str_eq(wc_escape_text("abcd\033", buf, sizeof(buf)), "abcd");
	ck_assert_str_eq(wc_escape_text("abc\033", buf, sizeof(buf)), "abc\\033");
	ck_assert_str_eq(wc_escape_text("abcdef\\", buf, sizeof(buf)), "abcdef");
	ck_assert_str_eq(wc_escape_text("abcdefghij", buf, sizeof(buf)), "abcdefg");
	ck_assert_str_eq(wc_escape_text("abc", buf, 1), "");
}
END_TEST

START_TEST(test_json)
{
	ck_assert_str_eq(put(wc_escape_json, "plain"), "\"plain\"");
	ck_assert_str_eq(put(wc_escape_json, "q\"b\\s\n\033\x7f"),
			 "\"q\\\"b\\\\s\\u000a\\u001b\\u007f\"");
	/* Valid UTF-8 kept as it is. */
	ck_assert_str_eq(put(wc_escape_json, "gr\xc3\xb6\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x98\x80"),
			 "\"gr\xc3\xb6\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* Invalid: a lone byte, overlong, surrogate, past U+10FFFF, cut short. */
	ck_assert_str_eq(put(wc_escape_json, "a\xff" "b"), "\"a\\ufffdb\"");
	ck_assert_str_eq(put(wc_escape_json, "\xc0\x80"), "\"\\ufffd\\ufffd\"");
	ck_assert_str_eq(put(wc_escape_json, "\xed\xa0\x80"),
			 "\"\\ufffd\\ufffd\\ufffd\"");
	ck_assert_str_eq(put(wc_escape_json, "\xf4\x90\x80\x80"),
			 "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	ck_assert_str_eq(put(wc_escape_json, "x\xe2\x82"), "\"x\\ufffd\\ufffd\"");
	ck_assert_str_eq(put(wc_escape_json, "\xe2\x80\xa8"), "\"\\u2028\"");
	ck_assert_str_eq(put(wc_escape_json, NULL), "\"\"");
}
END_TEST

START_TEST(test_html)
{
	ck_assert_str_eq(put(wc_escape_html, "<script>alert('x')</script>&\""),
			 "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;");
	ck_assert_str_eq(put(wc_escape_html, "a\nb\tc\033d\x7f"),
			 "a\nb\tc&#xFFFD;d&#xFFFD;");
	ck_assert_str_eq(put(wc_escape_html, "\xff\xc2\x9b\xe2\x80\xae" "ok\xc3\xa9"),
			 "&#xFFFD;&#xFFFD;&#xFFFD;ok\xc3\xa9");
}
END_TEST

START_TEST(test_gnuplot)
{
	ck_assert_str_eq(put(wc_escape_gnuplot, "xfs-run1"), "'xfs-run1'");
	/* Backquotes and macros are literal in single quotes; a quote is
	 * doubled; a newline would end the command. */
	ck_assert_str_eq(put(wc_escape_gnuplot, "a`touch m`$(id)@x"),
			 "'a`touch m`$(id)@x'");
	ck_assert_str_eq(put(wc_escape_gnuplot, "it's\n'`x`"),
			 "'it''s\\012''`x`'");
	ck_assert_str_eq(put(wc_escape_gnuplot, "c:\\d\r\033"),
			 "'c:\\\\d\\015\\033'");
	ck_assert_str_eq(put(wc_escape_gnuplot, "gr\xc3\xb6\xc3\x9f" "e\xff\xe2\x80\xae"),
			 "'gr\xc3\xb6\xc3\x9f" "e\\377\\342\\200\\256'");
	ck_assert_str_eq(put(wc_escape_gnuplot, NULL), "''");
}
END_TEST

START_TEST(test_csv)
{
	ck_assert_str_eq(put(wc_escape_csv, "xfs"), "xfs");
	ck_assert_str_eq(put(wc_escape_csv, "a,b"), "\"a,b\"");
	ck_assert_str_eq(put(wc_escape_csv, "say \"hi\""), "\"say \"\"hi\"\"\"");
	ck_assert_str_eq(put(wc_escape_csv, "two\nlines\033"), "two\\012lines\\033");
}
END_TEST

/* True when s is valid UTF-8 (by a decoder of its own, not escape.c's). */
static int valid_utf8(const unsigned char *s)
{
	while (*s) {
		int n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 :
			(*s & 0xf0) == 0xe0 ? 3 : (*s & 0xf8) == 0xf0 ? 4 : 0;
		uint32_t cp;
		int i;

		if (n == 0)
			return 0;
		cp = n == 1 ? *s : (uint32_t)(*s & (0x7f >> n));
		for (i = 1; i < n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
		    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		s += n;
	}
	return 1;
}

/* Random strings biased to the bytes that matter: controls, quotes,
 * backslashes, UTF-8 lead and continuation bytes. */
static void random_string(unsigned *seed, char *s, size_t max)
{
	static const unsigned char pick[] = {
		'\'', '"', '\\', '`', '@', '$', '\n', '\r', 0x1b, 0x7f, 0x80,
		0x9b, 0xbf, 0xc2, 0xc3, 0xe2, 0xed, 0xf0, 0xf4, 0xff, 'a', ','
	};
	size_t n = (size_t)rand_r(seed) % max, i;

	for (i = 0; i < n; i++) {
		unsigned char c = (rand_r(seed) & 1) ?
			pick[(size_t)rand_r(seed) % sizeof(pick)] :
			(unsigned char)(1 + rand_r(seed) % 255);
		s[i] = (char)c;
	}
	s[n] = '\0';
}

START_TEST(test_properties)
{
	unsigned seed = 8;
	char s[64], text[WC_ESCAPE_SIZE(64)];
	int round;

	for (round = 0; round < 3000; round++) {
		const unsigned char *p;
		const char *out;
		size_t len, i;
		int bad = 0;

		if (round < 255) {
			s[0] = (char)(round + 1);
			s[1] = '\0';
		} else {
			random_string(&seed, s, sizeof(s));
		}
		for (p = (const unsigned char *)wc_escape_text(s, text, sizeof(text)); *p; p++)
			bad |= *p < 0x20 || *p >= 0x7f;
		ck_assert_msg(!bad && strlen(text) >= strlen(s), "text: %s", text);

		out = put(wc_escape_json, s);
		for (p = (const unsigned char *)out; *p; p++)
			bad |= *p < 0x20 || *p == 0x7f;
		ck_assert_msg(!bad && valid_utf8((const unsigned char *)out),
			      "json: %s", out);

		out = put(wc_escape_gnuplot, s);
		len = strlen(out);
		ck_assert(len >= 2 && out[0] == '\'' && out[len - 1] == '\'');
		for (i = 1; i + 1 < len; i++) {
			bad |= (unsigned char)out[i] < 0x20 || out[i] == 0x7f;
			/* Inside the literal a quote only comes doubled. */
			if (out[i] == '\'') {
				bad |= out[i + 1] != '\'' || i + 2 >= len;
				i++;
			}
		}
		ck_assert_msg(!bad && valid_utf8((const unsigned char *)out),
			      "gnuplot: %s", out);

		out = put(wc_escape_html, s);
		ck_assert_msg(valid_utf8((const unsigned char *)out) &&
			      strpbrk(out, "<>\"'\033\r") == NULL, "html: %s", out);
	}
}
END_TEST

static Suite *escape_suite(void)
{
	Suite *s = suite_create("escape");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_text_cut);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_html);
	tcase_add_test(tc, test_gnuplot);
	tcase_add_test(tc, test_csv);
	tcase_add_test(tc, test_properties);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(escape_suite)
