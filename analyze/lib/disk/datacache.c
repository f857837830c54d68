/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datacache.c - see datacache.h.
 *
 * An open-addressing index (linear probing, deletion by backward shift,
 * so no tombstones accumulate however long the disk spans) from a sector to
 * its slot in a fixed pool of sector-sized slots; free slots on a stack.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "disk/datacache.h"

#define SECTOR WC_DATACACHE_SECTOR
#define EMPTY UINT64_MAX

struct wc_datacache {
	uint64_t *key;			/* sector, or EMPTY */
	uint32_t *slot;			/* its slot in data */
	size_t mask;			/* index size - 1 (a power of two) */
	unsigned char *data;		/* max slots of SECTOR bytes */
	uint32_t *free_slots;
	size_t nfree, max;
};

static size_t home(const struct wc_datacache *c, uint64_t s)
{
	/* Fibonacci hashing: neighbouring sectors spread over the index */
	return (size_t)((s * 0x9e3779b97f4a7c15ull) >> 17) & c->mask;
}

/* Index position of sector s, or SIZE_MAX. */
static size_t find(const struct wc_datacache *c, uint64_t s)
{
	size_t i;

	if (c->max == 0)
		return SIZE_MAX;
	for (i = home(c, s); c->key[i] != EMPTY; i = (i + 1) & c->mask)
		if (c->key[i] == s)
			return i;
	return SIZE_MAX;
}

static void forget(struct wc_datacache *c, size_t i)
{
	size_t j = i, h;

	c->free_slots[c->nfree++] = c->slot[i];
	c->key[i] = EMPTY;
	/* shift back every entry of the span after i that may move to i */
	for (;;) {
		j = (j + 1) & c->mask;
		if (c->key[j] == EMPTY)
			return;
		h = home(c, c->key[j]);
		/* j may fill i when its home does not lie in (i, j] */
		if ((i <= j) ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		c->key[i] = c->key[j];
		c->slot[i] = c->slot[j];
		c->key[j] = EMPTY;
		i = j;
	}
}

int wc_datacache_open(struct wc_datacache **cp, uint64_t max_bytes,
		      struct wc_err *err)
{
	struct wc_datacache *c;
	size_t n = 1, i;
	uint64_t max = max_bytes / SECTOR;

	*cp = NULL;
	if (max > UINT32_MAX / 2)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "data cache of %llu bytes: too large",
				  (unsigned long long)max_bytes);
	while (n < 2 * max)
		n *= 2;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto no_memory;
	c->max = (size_t)max;
	c->mask = n - 1;
	c->key = malloc(n * sizeof(*c->key));
	c->slot = malloc(n * sizeof(*c->slot));
	c->free_slots = malloc((c->max + 1) * sizeof(*c->free_slots));
	c->data = malloc(c->max * SECTOR + 1);
	if (!c->key || !c->slot || !c->free_slots || !c->data)
		goto free_cache;
	for (i = 0; i < n; i++)
		c->key[i] = EMPTY;
	for (i = 0; i < c->max; i++)
		c->free_slots[i] = (uint32_t)(c->max - 1 - i);
	c->nfree = c->max;
	*cp = c;
	return 0;
free_cache:
	wc_datacache_free(c);
no_memory:
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory for a data cache of %llu bytes",
			  (unsigned long long)max_bytes);
}

void wc_datacache_free(struct wc_datacache *c)
{
	if (!c)
		return;
	free(c->key);
	free(c->slot);
	free(c->free_slots);
	free(c->data);
	free(c);
}

uint64_t wc_datacache_bytes(const struct wc_datacache *c)
{
	return (uint64_t)(c->max - c->nfree) * SECTOR;
}

int wc_datacache_put(struct wc_datacache *c, uint64_t offset, const void *buf,
		     uint64_t bytes)
{
	uint64_t s = offset / SECTOR, n = bytes / SECTOR, k, fresh = 0;
	const unsigned char *src = buf;
	size_t i;

	if (offset % SECTOR != 0 || bytes % SECTOR != 0 ||
	    s > UINT64_MAX - 1 - n)
		return -1;
	/* peek: how many slots the new sectors need, before anything moves */
	for (k = 0; k < n && fresh <= c->nfree; k++)
		if (find(c, s + k) == SIZE_MAX)
			fresh++;
	if (fresh > c->nfree)
		return -1;
	for (k = 0; k < n; k++) {
		i = find(c, s + k);
		if (i == SIZE_MAX) {
			for (i = home(c, s + k); c->key[i] != EMPTY; i = (i + 1) & c->mask)
				;
			c->key[i] = s + k;
			c->slot[i] = c->free_slots[--c->nfree];
		}
		memcpy(c->data + (size_t)c->slot[i] * SECTOR, src + k * SECTOR, SECTOR);
	}
	return 0;
}

void wc_datacache_drop(struct wc_datacache *c, uint64_t offset, uint64_t bytes)
{
	uint64_t s = (offset + SECTOR - 1) / SECTOR, e, k;
	size_t i;

	if (offset > UINT64_MAX - bytes || c->nfree == c->max)
		return;
	e = (offset + bytes) / SECTOR;
	if (e <= s)
		return;
	if (e - s > c->mask) {
		/* a range wider than the index: visit what is held instead.
		 * A forget shifts later entries back, to i (looked at again)
		 * or, across the index's end, behind the scan: until a pass
		 * finds nothing. */
		bool again = true;

		while (again) {
			again = false;
			for (i = 0; i <= c->mask; i++)
				while (c->key[i] != EMPTY && c->key[i] >= s &&
				       c->key[i] < e) {
					forget(c, i);
					again = true;
				}
		}
		return;
	}
	for (k = s; k < e; k++)
		if ((i = find(c, k)) != SIZE_MAX)
			forget(c, i);
}

uint64_t wc_datacache_overlay(const struct wc_datacache *c, uint64_t offset,
			      void *buf, uint64_t bytes)
{
	uint64_t s = (offset + SECTOR - 1) / SECTOR, e, k, copied = 0;
	unsigned char *dst = buf;
	size_t i;

	if (offset > UINT64_MAX - bytes || c->nfree == c->max)
		return 0;
	e = (offset + bytes) / SECTOR;
	for (k = s; k < e; k++) {
		if ((i = find(c, k)) == SIZE_MAX)
			continue;
		memcpy(dst + (k * SECTOR - offset),
		       c->data + (size_t)c->slot[i] * SECTOR, SECTOR);
		copied++;
	}
	return copied;
}

uint64_t wc_datacache_take(struct wc_datacache *c, uint64_t *from, uint64_t end,
			   void *buf, uint64_t max_sectors,
			   uint64_t *span_start)
{
	unsigned char *dst = buf;
	uint64_t k = *from, n = 0;
	size_t i = SIZE_MAX;

	if (c->nfree == c->max) {
		*from = end > *from ? end : *from;
		return 0;
	}
	while (k < end && (i = find(c, k)) == SIZE_MAX)
		k++;
	if (k >= end) {
		*from = k;
		return 0;
	}
	*span_start = k;
	while (k < end && n < max_sectors && i != SIZE_MAX) {
		memcpy(dst + n * SECTOR, c->data + (size_t)c->slot[i] * SECTOR, SECTOR);
		forget(c, i);
		n++;
		k++;
		i = k < end ? find(c, k) : SIZE_MAX;
	}
	*from = k;
	return n;
}
