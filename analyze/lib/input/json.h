/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - a strict JSON reader for text from a stranger (a capture's
 * summary, wcanalyze --format json, handed back for a comparison): the
 * whole text is checked against RFC 8259 and made into a tree of nodes,
 * or refused with the byte offset of the first thing wrong.
 *
 *     struct wc_json *j = NULL;
 *     if (wc_json_parse(&j, text, len, &err) < 0)
 *             report(&err);              // err.offset: where, from 0
 *     const struct wc_json_node *root = wc_json_root(j);
 *     const struct wc_json_node *v = wc_json_get(j, root, "format");
 *     char name[256];
 *     if (v && wc_json_string(j, v, name, sizeof(name)) < 0) ...
 *     for (c = wc_json_child(j, arr); c; c = wc_json_next(j, c)) ...
 *     wc_json_free(j);
 *
 * What always holds:
 *  - bounded: at most WC_JSON_MAX_BYTES of text, WC_JSON_MAX_DEPTH
 *    nested arrays and objects, WC_JSON_MAX_MEMBERS members an object
 *    or array; past any of them the text is refused (the offset says
 *    where);
 *  - strings are checked but kept as written; wc_json_string() decodes
 *    one into a caller's buffer: \u0000 is refused (a name holds no
 *    NUL), \u0001 to \u00ff give that byte (how the JSON writer keeps
 *    any byte of a name: report_json.h), higher code points UTF-8, a
 *    surrogate only as a pair;
 *  - numbers are checked against JSON's grammar; wc_json_u64() and
 *    wc_json_i64() take integers only, exactly, refusing what does not
 *    fit; wc_json_double() takes any, refusing what overflows;
 *  - a key given twice in an object is refused by wc_json_get();
 *  - the tree points into the text: keep the text until wc_json_free().
 *    wc_json_free(NULL) is fine.
 */
#ifndef WC_JSON_H
#define WC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wcerr.h"

#define WC_JSON_MAX_BYTES ((size_t)64 << 20)
#define WC_JSON_MAX_DEPTH 32
#define WC_JSON_MAX_MEMBERS 4096

enum wc_json_type {
	WC_JSON_NULL,
	WC_JSON_FALSE,
	WC_JSON_TRUE,
	WC_JSON_NUMBER,
	WC_JSON_STRING,
	WC_JSON_ARRAY,
	WC_JSON_OBJECT,
};

struct wc_json_node {
	enum wc_json_type type;
	size_t start, len;         /* its text: a string's between its quotes */
	size_t key;                /* in an object: its key's node; else 0 */
	size_t child, next;        /* first member, next sibling; 0: none */
	size_t count;              /* members of an array or object */
};

struct wc_json;

/* Parses text[0..len); one value, whitespace around it. */
int wc_json_parse(struct wc_json **out, const char *text, size_t len,
		  struct wc_err *err);
/* The same of a value found depth arrays and objects deep in a larger
 * text (a summary read a capture at a time, capsule.h): the bound on
 * nesting counts from the larger text's root. */
int wc_json_parse_nested(struct wc_json **out, const char *text, size_t len,
			 size_t depth, struct wc_err *err);
void wc_json_free(struct wc_json *j);

const struct wc_json_node *wc_json_root(const struct wc_json *j);
const struct wc_json_node *wc_json_child(const struct wc_json *j,
					 const struct wc_json_node *n);
const struct wc_json_node *wc_json_next(const struct wc_json *j,
					const struct wc_json_node *n);
/* The byte offset of n in the text. */
uint64_t wc_json_offset(const struct wc_json_node *n);

/* The member of object obj named key; NULL when obj is no object or has
 * none.  *twice (may be NULL) is set when it has two. */
const struct wc_json_node *wc_json_get(const struct wc_json *j,
				       const struct wc_json_node *obj,
				       const char *key, bool *twice);

/* Decodes string n into buf (NUL-terminated); -1 when n is no string,
 * holds \u0000 or does not fit in size - 1 bytes. */
int wc_json_string(const struct wc_json *j, const struct wc_json_node *n,
		   char *buf, size_t size);
/* Whether string n decodes to s. */
bool wc_json_string_is(const struct wc_json *j, const struct wc_json_node *n,
		       const char *s);
int wc_json_u64(const struct wc_json *j, const struct wc_json_node *n,
		uint64_t *v);
int wc_json_i64(const struct wc_json *j, const struct wc_json_node *n,
		int64_t *v);
int wc_json_double(const struct wc_json *j, const struct wc_json_node *n,
		   double *v);

#endif /* WC_JSON_H */
