/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map.h - one integer-keyed hash map: a uint64_t key to a fixed-size value
 * stored in the map, with a bound on how many keys it takes.  For the
 * tables the analysis keeps per pid, per (device, CPU) and the like.
 *
 *     struct wc_map *m = NULL;
 *     struct name { char comm[17]; } *v;
 *
 *     if (wc_map_open(&m, sizeof(*v), 4096, &err) < 0)
 *             goto fail;                       // out of memory
 *     switch (wc_map_put(m, pid, (void **)&v, &err)) {
 *     case WC_MAP_ADDED:  fill(v); break;      // new key, value zeroed
 *     case WC_MAP_FOUND:  break;               // v is the value kept
 *     case WC_MAP_FULL:   count_ignored(); break;   // v is NULL
 *     default:            goto fail;           // out of memory
 *     }
 *     v = wc_map_get(m, pid);                  // NULL when absent
 *     wc_map_free(m);
 *
 * What always holds:
 *  - open addressing with linear probing in one array of slots (key, a
 *    used flag, the value), at most half full; nothing is allocated per
 *    key;
 *  - a look-up costs O(1) on average whatever the keys, even keys chosen
 *    to collide (pids, (device, CPU) pairs, hashes of names, in a trace
 *    or summary a stranger sent), because a key's first slot is
 *    SipHash-1-3 of it under a 128-bit secret drawn once a process from
 *    getrandom(): to whoever does not know the secret, the slots of any
 *    keys they write down are independent and uniform, so their runs of
 *    used slots are those of random keys (at most half full, about 1.5
 *    slots a look-up that finds its key, 2.5 one that does not; a run of
 *    L slots has a chance under 0.83^L).  A public mixer lets keys be
 *    aimed at one slot from its formula (Fibonacci hashing's were: 4,096
 *    in one run); seeded fast hashes have had collisions found that hold
 *    whatever the seed (Aumasson, Bernstein and Bosslet, "Hash-flooding
 *    DoS reloaded", 2012: MurmurHash, CityHash), where SipHash is a
 *    pseudorandom function.  It costs about 50 instructions a key; the
 *    maps met at every event or request have a cache in front
 *    (recfilter.c, blkorder.c, replay.c);
 *  - nothing walks the keys: where a key sits changes from run to run,
 *    so no output may depend on it;
 *  - the array doubles when a new key would make it more than half full,
 *    so memory is at most about 4 x max x (value size + 16) bytes; a put
 *    of a new key past max keys returns WC_MAP_FULL and changes nothing;
 *  - keys are never removed one by one (the tables it serves only grow
 *    to their bound), only all at once (wc_map_clear()); any uint64_t is
 *    a key, 0 and UINT64_MAX included;
 *  - a value pointer is valid until the next wc_map_put() that adds a
 *    key (WC_MAP_ADDED: it may move the array; one that finds its key or
 *    is full moves nothing), wc_map_clear() or wc_map_free(); values
 *    start zeroed;
 *  - the map owns its memory; wc_map_free(NULL) is fine.
 */
#ifndef WC_MAP_H
#define WC_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/wcerr.h"

enum wc_map_put_result {
	WC_MAP_FOUND = 0,   /* the key was there: *value is its value */
	WC_MAP_ADDED = 1,   /* new key: *value is zeroed, for the caller */
	WC_MAP_FULL = 2,    /* new key past max: *value is NULL */
};

struct wc_map;

/* A map of at most max keys (max >= 1), each with value_size bytes
 * (0 is allowed: a set). */
int wc_map_open(struct wc_map **out, size_t value_size, size_t max,
		struct wc_err *err);

/* The value of key, or NULL. */
void *wc_map_get(const struct wc_map *m, uint64_t key);

/* Finds key, or adds it: returns an enum wc_map_put_result, or -1 when
 * out of memory (err filled, the map unchanged). */
int wc_map_put(struct wc_map *m, uint64_t key, void **value,
	       struct wc_err *err);

/* Forgets every key and keeps the memory: for a cache that starts over
 * when it is full. */
void wc_map_clear(struct wc_map *m);

/* A key for a map keyed by what a stranger names (a configuration, a
 * capture's name and digest): SipHash-1-3 of data[0..len) under the
 * process's secret.  Different data share a key with a chance of 2^-64
 * whatever they are (a public hash such as FNV-1a lets anyone write
 * many names of one hash); equal data share it within one process only,
 * so it is never written out. */
uint64_t wc_map_key_of(const void *data, size_t len);

/* Keys in the map. */
size_t wc_map_count(const struct wc_map *m);

void wc_map_free(struct wc_map *m);

#endif /* WC_MAP_H */
