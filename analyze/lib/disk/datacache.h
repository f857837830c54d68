/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datacache.h - the data a disk's volatile write cache holds: the newest
 * contents of each 512-byte sector written and not yet on the platter.
 *
 * The disk model (diskmodel.h) decides when and what is destaged; this
 * module only holds the bytes, so that wcdisk (capture/wcdisk_platter.c) can keep
 * a cached write off its image (the platter) until the model writes it
 * there, serve reads of it from memory, and lose it in a power cut.  No
 * I/O, no clock; tests/check_datacache.c drives it with made-up data.
 *
 * Usage (wcdisk's, with the model's destage rows, diskmodel.h):
 *
 *     struct wc_datacache *c = NULL;
 *     if (wc_datacache_open(&c, cache_bytes, &err) < 0)
 *             goto fail;
 *     // a write the model cached:
 *     wc_datacache_put(c, offset, buf, bytes);
 *     // a write that went to the platter past the cache (FUA, cache off,
 *     // larger than the cache), or a discard: what the cache held there
 *     // is older, and must not be destaged over it
 *     wc_datacache_drop(c, offset, bytes);
 *     // a read: the platter's bytes, then the newer ones cached
 *     pread(fd, buf, bytes, offset);
 *     wc_datacache_overlay(c, offset, buf, bytes);
 *     // the model destages sectors [s, e): each span held there, in order
 *     uint64_t from = s, span, n;
 *     while ((n = wc_datacache_take(c, &from, e, tmp, tmp_sectors, &span)) > 0)
 *             pwrite(fd, tmp, n * 512, span * 512);
 *     wc_datacache_free(c);
 *
 * What always holds:
 *  - offsets and sizes are bytes, multiples of 512 (a call with others
 *    fails or does nothing, as said below); sector s is bytes
 *    [512 s, 512 s + 512);
 *  - a sector is held at most once, with the bytes of the last put that
 *    covered it; take() and drop() forget it;
 *  - memory is fixed at open: max_bytes of data and an index of twice as
 *    many slots; a put that would hold more fails and changes nothing;
 *  - the cache owns its memory; wc_datacache_free(NULL) is fine.
 */
#ifndef WC_DATACACHE_H
#define WC_DATACACHE_H

#include <stdint.h>

#include "base/wcerr.h"

#define WC_DATACACHE_SECTOR 512u

struct wc_datacache;

/* Opens an empty cache that holds at most max_bytes (rounded down to
 * whole sectors; 0 holds nothing: every put of data fails). */
int wc_datacache_open(struct wc_datacache **c, uint64_t max_bytes,
		      struct wc_err *err);

/* Holds buf as the contents of [offset, offset + bytes).  Returns 0, or
 * -1 (nothing changed) when offset or bytes is not whole sectors or the
 * sectors not held yet do not fit. */
int wc_datacache_put(struct wc_datacache *c, uint64_t offset, const void *buf,
		     uint64_t bytes);

/* Forgets the sectors held inside [offset, offset + bytes); partial
 * sectors at the ends are kept. */
void wc_datacache_drop(struct wc_datacache *c, uint64_t offset, uint64_t bytes);

/* Copies every held sector inside [offset, offset + bytes) over buf (buf
 * is offset's first byte); returns how many sectors it copied. */
uint64_t wc_datacache_overlay(const struct wc_datacache *c, uint64_t offset,
			      void *buf, uint64_t bytes);

/* Takes the first span of consecutive held sectors in [*from, end): copies
 * at most max_sectors of it into buf, forgets them, sets *span_start to its
 * first sector and *from past it, and returns its length; 0 when nothing
 * is held there (then *from = end). */
uint64_t wc_datacache_take(struct wc_datacache *c, uint64_t *from, uint64_t end,
			   void *buf, uint64_t max_sectors,
			   uint64_t *span_start);

/* Bytes held. */
uint64_t wc_datacache_bytes(const struct wc_datacache *c);

void wc_datacache_free(struct wc_datacache *c);

#endif /* WC_DATACACHE_H */
