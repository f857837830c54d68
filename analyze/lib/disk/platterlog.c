/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * platterlog.c - see platterlog.h.
 */
#include <stddef.h>
#include <string.h>

#include "disk/platterlog.h"

#define SECTOR 512u
#define MAGIC "WCPLATR1"

#define HOFF(f) offsetof(struct wc_platter_header_layout, f)
#define ROFF(f) offsetof(struct wc_platter_rec_layout, f)

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
}

void wc_platter_header_encode(uint8_t out[WC_PLATTER_HEADER_BYTES],
			      uint64_t capacity)
{
	memcpy(out + HOFF(magic), MAGIC, sizeof(((struct wc_platter_header_layout *)0)->magic));
	put64(out + HOFF(capacity), capacity);
}

int wc_platter_header_decode(const uint8_t *p, size_t n, uint64_t *capacity,
			     struct wc_err *err)
{
	uint64_t c;

	if (n < WC_PLATTER_HEADER_BYTES)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, 0,
				  "platter log: header cut short (%zu of %zu bytes)",
				  n, WC_PLATTER_HEADER_BYTES);
	if (memcmp(p + HOFF(magic), MAGIC, 8) != 0)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, HOFF(magic),
				  "not a platter log (no WCPLATR1 magic)");
	c = get64(p + HOFF(capacity));
	if (c == 0 || c % SECTOR != 0)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, HOFF(capacity),
				  "platter log: capacity %llu is not a positive multiple of 512",
				  (unsigned long long)c);
	*capacity = c;
	return 0;
}

void wc_platter_rec_encode(const struct wc_platter_rec *r,
			   uint8_t out[WC_PLATTER_REC_BYTES])
{
	memset(out, 0, WC_PLATTER_REC_BYTES);
	out[ROFF(kind)] = (uint8_t)r->kind;
	put64(out + ROFF(sector), r->sector);
	put64(out + ROFF(sectors), r->sectors);
	put64(out + ROFF(start_ns), r->start_ns);
	put64(out + ROFF(end_ns), r->end_ns);
	put64(out + ROFF(atom_end_ns), r->atom_end_ns);
}

bool wc_platter_has_data(enum wc_platter_kind kind)
{
	return kind == WC_PLATTER_DESTAGE || kind == WC_PLATTER_WRITE;
}

int wc_platter_rec_decode(const uint8_t *p, size_t n, uint64_t capacity,
			  struct wc_platter_rec *r, struct wc_err *err)
{
	uint32_t kind;
	uint64_t s, k, t0, t1, ta, cap = capacity / SECTOR;

	/* peek */
	if (n < WC_PLATTER_REC_BYTES)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, 0,
				  "platter log: record cut short (%zu of %zu bytes)",
				  n, WC_PLATTER_REC_BYTES);
	kind = get32(p + ROFF(kind));
	s = get64(p + ROFF(sector));
	k = get64(p + ROFF(sectors));
	t0 = get64(p + ROFF(start_ns));
	t1 = get64(p + ROFF(end_ns));
	ta = get64(p + ROFF(atom_end_ns));
	/* validate */
	if (kind < WC_PLATTER_DESTAGE || kind > WC_PLATTER_FLUSH)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, ROFF(kind),
				  "platter log: unknown record kind %u", kind);
	if (k > WC_PLATTER_MAX_SECTORS)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, ROFF(sectors),
				  "platter log: %llu sectors in one record (at most %u)",
				  (unsigned long long)k, WC_PLATTER_MAX_SECTORS);
	if (s > cap || k > cap - s)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, ROFF(sector),
				  "platter log: sectors %llu+%llu beyond the capacity of %llu",
				  (unsigned long long)s, (unsigned long long)k,
				  (unsigned long long)cap);
	if (kind == WC_PLATTER_FLUSH && (s != 0 || k != 0))
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, ROFF(sector),
				  "platter log: a flush record with sectors");
	if (t1 < t0 || ta < t1)
		return wc_err_set(err, WC_ERR_INPUT, NULL, NULL, ROFF(start_ns),
				  "platter log: times out of order (start %llu, end %llu, write's end %llu)",
				  (unsigned long long)t0, (unsigned long long)t1,
				  (unsigned long long)ta);
	/* consume */
	r->kind = (enum wc_platter_kind)kind;
	r->sector = s;
	r->sectors = k;
	r->start_ns = t0;
	r->end_ns = t1;
	r->atom_end_ns = ta;
	return 0;
}

uint64_t wc_platter_landed(const struct wc_platter_rec *r, uint64_t cut_ns,
			   enum wc_platter_tear tear)
{
	double f;
	uint64_t n;

	if (r->kind == WC_PLATTER_FLUSH)
		return 0;
	if (tear == WC_TEAR_WRITE)
		return r->atom_end_ns <= cut_ns ? r->sectors : 0;
	if (r->end_ns <= cut_ns)
		return r->sectors;
	if (r->start_ns >= cut_ns)
		return 0;
	/* a sector is there once all of it is transferred */
	f = (double)(cut_ns - r->start_ns) / (double)(r->end_ns - r->start_ns);
	n = (uint64_t)(f * (double)r->sectors);
	return n < r->sectors ? n : r->sectors - 1;
}

const char *wc_platter_kind_name(enum wc_platter_kind kind)
{
	switch (kind) {
	case WC_PLATTER_DESTAGE: return "destage";
	case WC_PLATTER_WRITE: return "write";
	case WC_PLATTER_DISCARD: return "discard";
	case WC_PLATTER_FLUSH: return "flush";
	}
	return "unknown";
}
