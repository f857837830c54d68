/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct wc_json {
	const char *text;
	size_t len;
	struct wc_json_node *nodes;    /* [0] is the root */
	size_t n, cap;
};

struct parser {
	struct wc_json *j;
	size_t pos;
	struct wc_err *err;
};

static int fail(struct parser *p, size_t at, const char *what)
{
	return wc_err_set(p->err, WC_ERR_INPUT, NULL, NULL, at, "%s", what);
}

static void skip_ws(struct parser *p)
{
	const char *t = p->j->text;

	while (p->pos < p->j->len && (t[p->pos] == ' ' || t[p->pos] == '\t' ||
				      t[p->pos] == '\n' || t[p->pos] == '\r'))
		p->pos++;
}

/* A new node; its index in *idx.  Nodes never outnumber the text's
 * bytes, each value taking one at least. */
static int new_node(struct parser *p, enum wc_json_type type, size_t *idx)
{
	struct wc_json *j = p->j;

	if (j->n == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 64;
		struct wc_json_node *nn = realloc(j->nodes, cap * sizeof(*nn));

		if (!nn)
			return wc_err_oom(p->err, NULL, NULL);
		j->nodes = nn;
		j->cap = cap;
	}
	memset(&j->nodes[j->n], 0, sizeof(j->nodes[0]));
	j->nodes[j->n].type = type;
	j->nodes[j->n].start = p->pos;
	*idx = j->n++;
	return 0;
}

static int hex4(const char *t, unsigned *v)
{
	unsigned x = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = t[i];

		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*v = x;
	return 0;
}

/* Walks the string whose opening quote is at t[*pos]; *pos ends past its
 * closing quote.  With out, writes its bytes there (at most size - 1,
 * -2 when more); returns their count, or -1 (at *pos) when malformed. */
static long string_walk(const char *t, size_t len, size_t *pos, char *out,
			size_t size)
{
	size_t i = *pos + 1, n = 0;
	unsigned char b[4];
	size_t nb;

	for (;;) {
		unsigned c, lo;

		if (i >= len) {
			*pos = i;
			return -1;
		}
		c = (unsigned char)t[i];
		if (c == '"')
			break;
		if (c < 0x20) {
			*pos = i;
			return -1;
		}
		if (c != '\\') {
			b[0] = (unsigned char)c;
			nb = 1;
			i++;
		} else {
			if (i + 1 >= len) {
				*pos = i;
				return -1;
			}
			switch (t[i + 1]) {
			case '"': case '\\': case '/':
				b[0] = (unsigned char)t[i + 1];
				break;
			case 'b': b[0] = '\b'; break;
			case 'f': b[0] = '\f'; break;
			case 'n': b[0] = '\n'; break;
			case 'r': b[0] = '\r'; break;
			case 't': b[0] = '\t'; break;
			case 'u':
				break;
			default:
				*pos = i;
				return -1;
			}
			nb = 1;
			if (t[i + 1] != 'u') {
				i += 2;
				goto put;
			}
			if (i + 6 > len || hex4(t + i + 2, &c) < 0 || c == 0) {
				*pos = i;
				return -1;
			}
			i += 6;
			if (c >= 0xdc00 && c < 0xe000) {
				*pos = i - 6;
				return -1;
			}
			if (c >= 0xd800 && c < 0xdc00) {
				if (i + 6 > len || t[i] != '\\' ||
				    t[i + 1] != 'u' || hex4(t + i + 2, &lo) < 0 ||
				    lo < 0xdc00 || lo >= 0xe000) {
					*pos = i - 6;
					return -1;
				}
				i += 6;
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			}
			/* Up to \u00ff a byte: the writer's way of keeping
			 * any byte of a name (json.h). */
			if (c < 0x100) {
				b[0] = (unsigned char)c;
			} else if (c < 0x800) {
				b[0] = (unsigned char)(0xc0 | (c >> 6));
				b[1] = (unsigned char)(0x80 | (c & 0x3f));
				nb = 2;
			} else if (c < 0x10000) {
				b[0] = (unsigned char)(0xe0 | (c >> 12));
				b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
				b[2] = (unsigned char)(0x80 | (c & 0x3f));
				nb = 3;
			} else {
				b[0] = (unsigned char)(0xf0 | (c >> 18));
				b[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
				b[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
				b[3] = (unsigned char)(0x80 | (c & 0x3f));
				nb = 4;
			}
		}
put:
		if (out) {
			if (n + nb >= size)
				return -2;
			memcpy(out + n, b, nb);
		}
		n += nb;
	}
	*pos = i + 1;
	if (out)
		out[n] = '\0';
	return (long)n;
}

static int parse_value(struct parser *p, size_t depth, size_t *idx);

static int parse_number(struct parser *p, size_t *idx)
{
	const char *t = p->j->text;
	size_t i = p->pos, len = p->j->len, d;

	if (new_node(p, WC_JSON_NUMBER, idx) < 0)
		return -1;
	if (i < len && t[i] == '-')
		i++;
	if (i < len && t[i] == '0') {
		i++;
	} else {
		for (d = i; i < len && t[i] >= '0' && t[i] <= '9'; i++)
			;
		if (i == d)
			return fail(p, i, "a number without digits");
	}
	if (i < len && t[i] == '.') {
		for (d = ++i; i < len && t[i] >= '0' && t[i] <= '9'; i++)
			;
		if (i == d)
			return fail(p, i, "a number without digits after '.'");
	}
	if (i < len && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		if (i < len && (t[i] == '+' || t[i] == '-'))
			i++;
		for (d = i; i < len && t[i] >= '0' && t[i] <= '9'; i++)
			;
		if (i == d)
			return fail(p, i, "a number without an exponent");
	}
	p->j->nodes[*idx].len = i - p->pos;
	p->pos = i;
	return 0;
}

static int parse_members(struct parser *p, size_t depth, size_t idx,
			 bool object)
{
	const char *t = p->j->text;
	size_t prev = 0, count = 0;
	char close = object ? '}' : ']';

	p->pos++;
	skip_ws(p);
	if (p->pos < p->j->len && t[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		size_t key = 0, val, at;

		skip_ws(p);
		if (++count > WC_JSON_MAX_MEMBERS)
			return fail(p, p->pos, "more members than a summary has");
		if (object) {
			if (p->pos >= p->j->len || t[p->pos] != '"')
				return fail(p, p->pos, "a key expected");
			if (parse_value(p, depth, &key) < 0)
				return -1;
			skip_ws(p);
			if (p->pos >= p->j->len || t[p->pos] != ':')
				return fail(p, p->pos, "':' expected");
			p->pos++;
			skip_ws(p);
		}
		if (parse_value(p, depth, &val) < 0)
			return -1;
		p->j->nodes[val].key = key;
		if (prev)
			p->j->nodes[prev].next = val;
		else
			p->j->nodes[idx].child = val;
		prev = val;
		p->j->nodes[idx].count = count;
		skip_ws(p);
		at = p->pos;
		if (at < p->j->len && t[at] == ',') {
			p->pos++;
			continue;
		}
		if (at < p->j->len && t[at] == close) {
			p->pos++;
			return 0;
		}
		return fail(p, at, object ? "',' or '}' expected" :
			    "',' or ']' expected");
	}
}

static int parse_value(struct parser *p, size_t depth, size_t *idx)
{
	const char *t = p->j->text;
	size_t len = p->j->len, at = p->pos;
	long n;

	skip_ws(p);
	at = p->pos;
	if (at >= len)
		return fail(p, at, "the text ends where a value was expected");
	switch (t[at]) {
	case '{':
	case '[':
		if (depth >= WC_JSON_MAX_DEPTH)
			return fail(p, at, "nested deeper than a summary is");
		if (new_node(p, t[at] == '{' ? WC_JSON_OBJECT : WC_JSON_ARRAY,
			     idx) < 0)
			return -1;
		if (parse_members(p, depth + 1, *idx, t[at] == '{') < 0)
			return -1;
		p->j->nodes[*idx].len = p->pos - at;
		return 0;
	case '"':
		if (new_node(p, WC_JSON_STRING, idx) < 0)
			return -1;
		n = string_walk(t, len, &p->pos, NULL, 0);
		if (n < 0)
			return fail(p, p->pos, "a malformed string");
		p->j->nodes[*idx].start = at + 1;
		p->j->nodes[*idx].len = p->pos - at - 2;
		return 0;
	case 't':
	case 'f':
	case 'n': {
		static const char *const word[] = { "true", "false", "null" };
		static const enum wc_json_type type[] = {
			WC_JSON_TRUE, WC_JSON_FALSE, WC_JSON_NULL };
		int w = t[at] == 't' ? 0 : t[at] == 'f' ? 1 : 2;
		size_t wl = strlen(word[w]);

		if (len - at < wl || memcmp(t + at, word[w], wl))
			return fail(p, at, "an unknown word");
		if (new_node(p, type[w], idx) < 0)
			return -1;
		p->j->nodes[*idx].len = wl;
		p->pos += wl;
		return 0;
	}
	default:
		if (t[at] == '-' || (t[at] >= '0' && t[at] <= '9'))
			return parse_number(p, idx);
		return fail(p, at, "a value expected");
	}
}

int wc_json_parse(struct wc_json **out, const char *text, size_t len,
		  struct wc_err *err)
{
	return wc_json_parse_nested(out, text, len, 0, err);
}

int wc_json_parse_nested(struct wc_json **out, const char *text, size_t len,
			 size_t depth, struct wc_err *err)
{
	struct parser p = { .err = err };
	size_t root;

	*out = NULL;
	if (len > WC_JSON_MAX_BYTES)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL,
				  WC_JSON_MAX_BYTES, "longer than %zu bytes",
				  WC_JSON_MAX_BYTES);
	p.j = calloc(1, sizeof(*p.j));
	if (!p.j)
		return wc_err_oom(err, NULL, NULL);
	p.j->text = text;
	p.j->len = len;
	if (parse_value(&p, depth, &root) < 0)
		goto fail_json;
	skip_ws(&p);
	if (p.pos != len) {
		fail(&p, p.pos, "text after the value");
		goto fail_json;
	}
	*out = p.j;
	return 0;

fail_json:
	wc_json_free(p.j);
	return -1;
}

void wc_json_free(struct wc_json *j)
{
	if (!j)
		return;
	free(j->nodes);
	free(j);
}

const struct wc_json_node *wc_json_root(const struct wc_json *j)
{
	return &j->nodes[0];
}

const struct wc_json_node *wc_json_child(const struct wc_json *j,
					 const struct wc_json_node *n)
{
	return n && n->child ? &j->nodes[n->child] : NULL;
}

const struct wc_json_node *wc_json_next(const struct wc_json *j,
					const struct wc_json_node *n)
{
	return n && n->next ? &j->nodes[n->next] : NULL;
}

uint64_t wc_json_offset(const struct wc_json_node *n)
{
	/* A string's text starts past its quote. */
	return n->type == WC_JSON_STRING ? n->start - 1 : n->start;
}

bool wc_json_string_is(const struct wc_json *j, const struct wc_json_node *n,
		       const char *s)
{
	size_t l = strlen(s);

	/* Keys are plain ASCII: compare as written when nothing is escaped. */
	if (n->type != WC_JSON_STRING)
		return false;
	if (!memchr(j->text + n->start, '\\', n->len))
		return n->len == l && !memcmp(j->text + n->start, s, l);
	{
		char buf[256];

		return l < sizeof(buf) &&
		       wc_json_string(j, n, buf, sizeof(buf)) == 0 &&
		       !strcmp(buf, s);
	}
}

const struct wc_json_node *wc_json_get(const struct wc_json *j,
				       const struct wc_json_node *obj,
				       const char *key, bool *twice)
{
	const struct wc_json_node *c, *found = NULL;

	if (twice)
		*twice = false;
	if (!obj || obj->type != WC_JSON_OBJECT)
		return NULL;
	for (c = wc_json_child(j, obj); c; c = wc_json_next(j, c)) {
		if (!wc_json_string_is(j, &j->nodes[c->key], key))
			continue;
		if (found) {
			if (twice)
				*twice = true;
			return found;
		}
		found = c;
	}
	return found;
}

int wc_json_string(const struct wc_json *j, const struct wc_json_node *n,
		   char *buf, size_t size)
{
	size_t pos;

	if (n->type != WC_JSON_STRING || !size)
		return -1;
	pos = n->start - 1;
	return string_walk(j->text, j->len, &pos, buf, size) < 0 ? -1 : 0;
}

int wc_json_u64(const struct wc_json *j, const struct wc_json_node *n,
		uint64_t *v)
{
	const char *t = j->text + n->start;
	uint64_t x = 0;
	size_t i;

	if (n->type != WC_JSON_NUMBER || !n->len)
		return -1;
	for (i = 0; i < n->len; i++) {
		unsigned d = (unsigned)(t[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = 10 * x + d;
	}
	*v = x;
	return 0;
}

int wc_json_i64(const struct wc_json *j, const struct wc_json_node *n,
		int64_t *v)
{
	struct wc_json_node m = *n;
	uint64_t x;
	bool neg = n->type == WC_JSON_NUMBER && n->len &&
		   j->text[n->start] == '-';

	if (neg) {
		m.start++;
		m.len--;
	}
	if (wc_json_u64(j, &m, &x) < 0 || x > (uint64_t)INT64_MAX + neg)
		return -1;
	*v = neg ? (x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x) :
	     (int64_t)x;
	return 0;
}

int wc_json_double(const struct wc_json *j, const struct wc_json_node *n,
		   double *v)
{
	char buf[64];
	double x;
	char *end;

	if (n->type != WC_JSON_NUMBER || n->len >= sizeof(buf))
		return -1;
	memcpy(buf, j->text + n->start, n->len);
	buf[n->len] = '\0';
	x = strtod(buf, &end);
	if (*end || !isfinite(x))
		return -1;
	*v = x;
	return 0;
}
