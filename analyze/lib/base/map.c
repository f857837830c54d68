/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/map.h"
#include "base/map_test.h"

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* A slot: the key, then a used byte, then the value at VALUE_OFF,
 * padded so that the next slot's key is aligned. */
#define VALUE_OFF 16u

struct wc_map {
	unsigned char *slots;
	size_t nslots;          /* a power of two, or 0 before the first put */
	size_t stride;          /* bytes a slot */
	size_t value_size;
	size_t count, max;
	uint64_t k0, k1;        /* the process's secret key (draw_key()) */
};

/* ---- SipHash-1-3 (Aumasson and Bernstein, "SipHash: a fast short-input
 * PRF", 2012): one compression round a block of 8 bytes, three to
 * finish, as Python and Rust hash their tables' keys with. */

static inline uint64_t rotl(uint64_t x, unsigned b)
{
	return x << b | x >> (64 - b);
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static inline void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13) ^ s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16) ^ s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21) ^ s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17) ^ s->v2;
	s->v2 = rotl(s->v2, 32);
}

static inline struct sip sip_init(uint64_t k0, uint64_t k1)
{
	struct sip s = {
		k0 ^ UINT64_C(0x736f6d6570736575),
		k1 ^ UINT64_C(0x646f72616e646f6d),
		k0 ^ UINT64_C(0x6c7967656e657261),
		k1 ^ UINT64_C(0x7465646279746573),
	};

	return s;
}

static inline void sip_block(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	s->v0 ^= m;
}

static inline uint64_t sip_end(struct sip *s)
{
	s->v2 ^= 0xff;
	sip_round(s);
	sip_round(s);
	sip_round(s);
	return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

uint64_t wc_map_siphash13(uint64_t k0, uint64_t k1, const void *data,
			  size_t len)
{
	const unsigned char *p = data;
	struct sip s = sip_init(k0, k1);
	uint64_t m, last = (uint64_t)len << 56;
	size_t i, tail = len % 8;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&m, p + i, sizeof(m));
		sip_block(&s, le64toh(m));
	}
	while (tail--)
		last |= (uint64_t)p[i + tail] << (8 * tail);
	sip_block(&s, last);
	return sip_end(&s);
}

uint64_t wc_map_siphash13_u64(uint64_t k0, uint64_t k1, uint64_t x)
{
	struct sip s = sip_init(k0, k1);

	/* The 8 bytes of x, little-endian, are x: one block, then the
	 * length's. */
	sip_block(&s, x);
	sip_block(&s, (uint64_t)8 << 56);
	return sip_end(&s);
}

/* ---- the process's key ------------------------------------------------- */

static uint64_t key0, key1;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* 16 bytes from the kernel's random pool.  Should it have none to give
 * (a kernel before getrandom(), or a pool not ready so early in boot),
 * the 16 random bytes the kernel hands every program it starts
 * (AT_RANDOM), the clocks, the pid and where the stack and this library
 * were placed, hashed: no longer secret from someone on this machine,
 * still unknown to whoever wrote a trace elsewhere. */
static void draw_key(void)
{
	int saved = errno;
	unsigned char b[16];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, GRND_NONBLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got == sizeof(b)) {
		memcpy(&key0, b, 8);
		memcpy(&key1, b + 8, 8);
	} else {
		struct {
			unsigned char at_random[16];
			struct timespec real, mono;
			pid_t pid;
			const void *stack, *code;
		} m;
		const void *ar = (const void *)getauxval(AT_RANDOM);

		memset(&m, 0, sizeof(m));
		if (ar)
			memcpy(m.at_random, ar, sizeof(m.at_random));
		clock_gettime(CLOCK_REALTIME, &m.real);
		clock_gettime(CLOCK_MONOTONIC, &m.mono);
		m.pid = getpid();
		m.stack = &m;
		m.code = (const void *)draw_key;
		key0 = wc_map_siphash13(1, 2, &m, sizeof(m));
		key1 = wc_map_siphash13(3, 4, &m, sizeof(m));
	}
	errno = saved;
}

static void process_key(uint64_t *k0, uint64_t *k1)
{
	pthread_once(&key_once, draw_key);
	*k0 = key0;
	*k1 = key1;
}

uint64_t wc_map_key_of(const void *data, size_t len)
{
	uint64_t k0, k1;

	process_key(&k0, &k1);
	return wc_map_siphash13(k0, k1, data, len);
}

/* ---- the map ----------------------------------------------------------- */

/* A key's first slot: its SipHash under the secret key (map.h). */
static size_t hash(const struct wc_map *m, uint64_t key)
{
	return (size_t)wc_map_siphash13_u64(m->k0, m->k1, key) &
	       (m->nslots - 1);
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
	size_t i = hash(m, key);
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
	process_key(&m->k0, &m->k1);
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

size_t wc_map_longest_run(const struct wc_map *m)
{
	size_t i, run = 0, longest = 0;

	/* Twice round, so that a run wrapping past the last slot counts
	 * whole; a full array cannot be (at most half full). */
	for (i = 0; i < 2 * m->nslots; i++) {
		run = slot_used(slot(m, i & (m->nslots - 1))) ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
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
