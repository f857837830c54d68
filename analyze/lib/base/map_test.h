/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map_test.h - the map's doors for its tests only (check_map, and the
 * tests of the modules that key maps by what a stranger names): how long
 * the runs of used slots are, so that a test can see keys chosen to
 * collide spread all the same, and the hash itself, to check it against
 * SipHash's published vectors.  map.h is the interface.
 */
#ifndef WC_MAP_TEST_H
#define WC_MAP_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/map.h"

/* The most consecutive used slots of m (0 for an empty map): a look-up
 * visits at most this many slots plus one, whether it finds its key or
 * not, so it is what a stranger's keys chosen to collide would make
 * long. */
size_t wc_map_longest_run(const struct wc_map *m);

/* SipHash-1-3 of data[0..len) under the key whose bytes 0-7 and 8-15,
 * read little-endian, are k0 and k1: what wc_map_key_of() computes under
 * the process's key. */
uint64_t wc_map_siphash13(uint64_t k0, uint64_t k1, const void *data,
			  size_t len);

/* The same of x's 8 bytes in little-endian order, without the loop: the
 * hash of a key to its slot, which must equal wc_map_siphash13() of those
 * bytes. */
uint64_t wc_map_siphash13_u64(uint64_t k0, uint64_t k1, uint64_t x);

#endif /* WC_MAP_TEST_H */
