/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * platterlog.h - the platter log: every write that reached a model disk's
 * platter, in the order the head wrote it, with when; and what of each is
 * on the platter after a power cut at a given time.
 *
 * wcdisk --platter-log FILE (capture/wcdisk_platter.c) appends one record per
 * media write (a destage from its volatile cache, a write-through, a
 * discard) and one per flush it acknowledged; `wcdisk --replay FILE --at
 * T` rebuilds the platter as it was at T from an empty image; `wccapture
 * crash` chooses the cut times from the records (tests/check_platterlog.c
 * checks the rules below, no I/O here).
 *
 * The file: a header (WC_PLATTER_HEADER_BYTES: magic "WCPLATR1", the
 * capacity in bytes), then records of WC_PLATTER_REC_BYTES, each followed
 * by its data (sectors * 512 bytes) when its kind carries data (destage,
 * write).  Integers little-endian; field offsets are those of the
 * wc_platter_*_layout structs below.
 *
 * A power cut at cut_ns (wc_platter_landed()):
 *  - a record that ended by cut_ns (end_ns <= cut_ns) is on the platter;
 *    one that had not started (start_ns >= cut_ns) is not;
 *  - one being transferred at cut_ns is torn as the tear parameter says:
 *    WC_TEAR_SECTOR, 512-byte sectors are atomic (what drives promise):
 *    the sectors transferred by cut_ns at the record's constant rate, a
 *    prefix; WC_TEAR_WRITE, each media write is atomic: all of it if the
 *    write it belongs to (atom_end_ns: a destage run split around sectors
 *    no longer cached still belongs to one media write) ended by cut_ns,
 *    else none;
 *  - records apply in file order, a later one over an earlier one.
 * The cache's contents at cut_ns are lost: they are not in the log.
 *
 * Usage:
 *
 *     uint8_t h[WC_PLATTER_HEADER_BYTES], r[WC_PLATTER_REC_BYTES];
 *     uint64_t capacity;
 *     struct wc_platter_rec rec;
 *     if (wc_platter_header_decode(h, n, &capacity, &err) < 0) ...
 *     while (... read WC_PLATTER_REC_BYTES into r ...) {
 *             if (wc_platter_rec_decode(r, n, capacity, &rec, &err) < 0) ...
 *             landed = wc_platter_landed(&rec, cut_ns, WC_TEAR_SECTOR);
 *             ... apply the first `landed` sectors, skip the rest's data
 *     }
 *
 * Decoding is peek, validate, consume: a short buffer, a wrong magic, an
 * unknown kind, a range beyond the capacity, a length beyond
 * WC_PLATTER_MAX_SECTORS or times out of order fail with the field's
 * offset in the message (WC_ERR_INPUT); nothing is read past n bytes.
 */
#ifndef WC_PLATTERLOG_H
#define WC_PLATTERLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wcerr.h"

enum wc_platter_kind {
	WC_PLATTER_DESTAGE = 1,		/* from the volatile cache */
	WC_PLATTER_WRITE = 2,		/* write-through (cache off, FUA, large) */
	WC_PLATTER_DISCARD = 3,		/* the range reads as zeros; no data */
	WC_PLATTER_FLUSH = 4,		/* a flush acknowledged at end_ns; no data */
};

enum wc_platter_tear { WC_TEAR_SECTOR, WC_TEAR_WRITE };

/* The largest record: a write larger than this is logged as several. */
#define WC_PLATTER_MAX_SECTORS (1u << 16)

struct wc_platter_rec {
	enum wc_platter_kind kind;
	uint64_t sector, sectors;	/* 512-byte sectors; 0, 0 for a flush */
	uint64_t start_ns, end_ns;	/* this record's transfer */
	uint64_t atom_end_ns;		/* end of the media write it is part of */
};

/* The layouts on disk: only their offsets and sizes are used. */
struct wc_platter_header_layout {
	uint8_t magic[8];
	uint8_t capacity[8];
};

struct wc_platter_rec_layout {
	uint8_t kind[4];
	uint8_t reserved[4];
	uint8_t sector[8];
	uint8_t sectors[8];
	uint8_t start_ns[8];
	uint8_t end_ns[8];
	uint8_t atom_end_ns[8];
};

#define WC_PLATTER_HEADER_BYTES sizeof(struct wc_platter_header_layout)
#define WC_PLATTER_REC_BYTES sizeof(struct wc_platter_rec_layout)

void wc_platter_header_encode(uint8_t out[WC_PLATTER_HEADER_BYTES],
			      uint64_t capacity);
int wc_platter_header_decode(const uint8_t *p, size_t n, uint64_t *capacity,
			     struct wc_err *err);

void wc_platter_rec_encode(const struct wc_platter_rec *r,
			   uint8_t out[WC_PLATTER_REC_BYTES]);
int wc_platter_rec_decode(const uint8_t *p, size_t n, uint64_t capacity,
			  struct wc_platter_rec *r, struct wc_err *err);

/* Whether records of this kind are followed by their data. */
bool wc_platter_has_data(enum wc_platter_kind kind);

/* Sectors of r, from its first, on the platter after a cut at cut_ns. */
uint64_t wc_platter_landed(const struct wc_platter_rec *r, uint64_t cut_ns,
			   enum wc_platter_tear tear);

/* "destage", "write", "discard", "flush". */
const char *wc_platter_kind_name(enum wc_platter_kind kind);

#endif /* WC_PLATTERLOG_H */
