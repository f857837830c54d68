/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/map.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A slot: the key, then a used byte, then the value at VALUE_OFF,
 * padded so that the next slot's key is aligned. */
#define VALUE_OFF 16u

struct wc_map {
	unsigned char *slots;
	size_t nslots;          /* a power of two, or 0 before the first put */
	size_t stride;          /* bytes a slot */
	size_t value_size;
	size_t count, max;
};

static size_t hash(uint64_t key, size_t nslots)
{
	/* Fibonacci hashing: the high bits of the product mix every key
	 * bit, so pids and dev_t values that share low bits spread. */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (nslots - 1);
}

static unsigned char *slot(const struct wc_map *m, size_t i)
{
	return m->slots + i * m->stride;
}

static uint64_t slot_key(const unsigned char *s)
{
	uint64_t k;

	memcpy(&k, s, sizeof(k));
	return k;
}

static bool slot_used(const unsigned char *s)
{
	return s[8] != 0;
}

/* The slot holding key, or the free slot where it would go. */
static unsigned char *probe(const struct wc_map *m, uint64_t key)
{
	size_t i = hash(key, m->nslots);
	unsigned char *s;

	for (;; i = (i + 1) & (m->nslots - 1)) {
		s = slot(m, i);
		if (!slot_used(s) || slot_key(s) == key)
			return s;
	}
}

int wc_map_open(struct wc_map **out, size_t value_size, size_t max,
		struct wc_err *err)
{
	struct wc_map *m;

	*out = NULL;
	if (max == 0 || max > SIZE_MAX / 4 ||
	    value_size > (SIZE_MAX - VALUE_OFF) / 4 / max)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "map of %zu keys of %zu bytes", max,
				  value_size);
	m = calloc(1, sizeof(*m));
	if (!m)
		return wc_err_oom(err, NULL, NULL);
	m->value_size = value_size;
	m->stride = (VALUE_OFF + value_size + 7u) & ~(size_t)7u;
	m->max = max;
	*out = m;
	return 0;
}

void *wc_map_get(const struct wc_map *m, uint64_t key)
{
	unsigned char *s;

	if (!m->nslots)
		return NULL;
	s = probe(m, key);
	return slot_used(s) ? s + VALUE_OFF : NULL;
}

static int grow(struct wc_map *m, struct wc_err *err)
{
	struct wc_map bigger = *m;
	size_t i;

	bigger.nslots = m->nslots ? 2 * m->nslots : 16;
	bigger.slots = calloc(bigger.nslots, m->stride);
	if (!bigger.slots)
		return wc_err_oom(err, NULL, NULL);
	for (i = 0; i < m->nslots; i++) {
		const unsigned char *s = slot(m, i);

		if (slot_used(s))
			memcpy(probe(&bigger, slot_key(s)), s, m->stride);
	}
	free(m->slots);
	m->slots = bigger.slots;
	m->nslots = bigger.nslots;
	return 0;
}

int wc_map_put(struct wc_map *m, uint64_t key, void **value,
	       struct wc_err *err)
{
	unsigned char *s;

	*value = NULL;
	if (m->nslots) {
		s = probe(m, key);
		if (slot_used(s)) {
			*value = s + VALUE_OFF;
			return WC_MAP_FOUND;
		}
	}
	if (m->count >= m->max)
		return WC_MAP_FULL;
	if (2 * (m->count + 1) > m->nslots && grow(m, err) < 0)
		return -1;
	s = probe(m, key);
	memcpy(s, &key, sizeof(key));
	s[8] = 1;
	m->count++;
	*value = s + VALUE_OFF;
	return WC_MAP_ADDED;
}

size_t wc_map_count(const struct wc_map *m)
{
	return m->count;
}

void wc_map_clear(struct wc_map *m)
{
	if (m->slots)
		memset(m->slots, 0, m->nslots * m->stride);
	m->count = 0;
}

void wc_map_free(struct wc_map *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}
