/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/recfilter.h"

#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/wclimits.h"

/* A command name is at most 15 characters, kept with its NUL. */
#define COMM_SIZE 16

/* Slots of the sequence cache: a power of two.  The (device, CPU) pairs
 * a stream meets in turn are its CPUs' for a merged file, one for a
 * per-CPU file; the streams of a merge take turns, each with its own. */
#define SEQ_CACHE_BITS 6u
#define SEQ_CACHE (1u << SEQ_CACHE_BITS)

struct comm {
	char name[COMM_SIZE];
	uint32_t order;         /* names given before it (wc_recfilter_names()) */
};

/* A (device, CPU) pair met lately and where its last sequence number is
 * in the map; val NULL: an empty slot. */
struct seq_slot {
	uint64_t key;
	uint32_t *val;
};

struct wc_recfilter {
	struct wc_map *comms;   /* pid -> struct comm, made at the first name */
	/* (device, CPU) -> last sequence number, made at the first
	 * numbered record, and the one cache in front of it: a pointer
	 * into the map is valid until a key is added (map.h), so adding
	 * one empties the cache. */
	struct wc_map *seqs;
	struct seq_slot cache[SEQ_CACHE];
	uint64_t repeats;       /* records repeating the number before */
	/* CPUs below WC_RECFILTER_CPUS a numbered record named, a bit
	 * each: marked when a (device, CPU) pair misses the cache. */
	uint64_t cpus[WC_RECFILTER_CPUS / 64];
	uint32_t cpu_max;       /* the highest CPU named, + 1; 0 none */
	uint32_t names;         /* pids named so far */
};

int wc_recfilter_open(struct wc_recfilter **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -1;
}

uint64_t wc_recfilter_repeats(const struct wc_recfilter *f)
{
	return f->repeats;
}

bool wc_recfilter_cpu_named(const struct wc_recfilter *f, uint32_t cpu)
{
	return cpu < WC_RECFILTER_CPUS &&
	       (f->cpus[cpu / 64] >> (cpu % 64) & 1u);
}

uint32_t wc_recfilter_cpu_end(const struct wc_recfilter *f)
{
	return f->cpu_max;
}

void wc_recfilter_free(struct wc_recfilter *f)
{
	if (!f)
		return;
	wc_map_free(f->comms);
	wc_map_free(f->seqs);
	free(f);
}

int wc_recfilter_name(struct wc_recfilter *f, uint32_t pid,
		      const unsigned char *name, size_t len)
{
	struct comm *comm;
	int r;

	if (!f->comms && wc_map_open(&f->comms, sizeof(struct comm),
				     WC_INPUT_MAX_PIDS, NULL) < 0)
		return -1;
	r = wc_map_put(f->comms, pid, (void **)&comm, NULL);
	if (r < 0)
		return -1;
	/* The first name seen for a pid stays, as in blkparse; past
	 * WC_INPUT_MAX_PIDS pids, new ones get none. */
	if (r != WC_MAP_ADDED)
		return 0;
	if (len > COMM_SIZE - 1)
		len = COMM_SIZE - 1;
	memcpy(comm->name, name, len);
	comm->name[len] = '\0';
	comm->order = f->names++;
	return 0;
}

const char *wc_recfilter_comm(const struct wc_recfilter *f, uint32_t pid)
{
	const struct comm *comm = f->comms ? wc_map_get(f->comms, pid) : NULL;

	return comm ? comm->name : NULL;
}

uint32_t wc_recfilter_names(const struct wc_recfilter *f)
{
	return f->names;
}

const char *wc_recfilter_comm_before(const struct wc_recfilter *f,
				     uint32_t pid, uint32_t names)
{
	const struct comm *comm = f->comms ? wc_map_get(f->comms, pid) : NULL;

	return comm && comm->order < names ? comm->name : NULL;
}

/* The cache slot of a (device, CPU) key: the high bits of a Fibonacci
 * hash, so that the CPUs of one device, and devices whose minors are 16
 * apart (sda, sdb), spread over the slots. */
static inline size_t seq_slot(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64u - SEQ_CACHE_BITS));
}

/* The last sequence number of KEY from the map (0 when new), into the
 * cache; *last NULL when WC_INPUT_MAX_SEQ_KEYS pairs are taken.  Out of
 * line: a pair new to the cache is rare, and the filter's loop keeps
 * its registers. */
static __attribute__((noinline)) int seq_miss(struct wc_recfilter *f,
					      uint64_t key, uint32_t **last)
{
	struct seq_slot *sl;
	uint32_t cpu = (uint32_t)key;

	if (cpu < WC_RECFILTER_CPUS)
		f->cpus[cpu / 64] |= 1ull << (cpu % 64);
	if (cpu >= f->cpu_max)
		f->cpu_max = cpu == UINT32_MAX ? cpu : cpu + 1;
	*last = NULL;
	if (!f->seqs && wc_map_open(&f->seqs, sizeof(uint32_t),
				    WC_INPUT_MAX_SEQ_KEYS, NULL) < 0)
		return -1;
	switch (wc_map_put(f->seqs, key, (void **)last, NULL)) {
	case WC_MAP_ADDED:
		memset(f->cache, 0, sizeof(f->cache));
		break;
	case -1:
		return -1;
	}
	sl = &f->cache[seq_slot(key)];
	sl->key = key;
	sl->val = *last;
	return 0;
}

/* A numbered event's sequence number against the last of its (device,
 * CPU): the numbers skipped to *sk, a repeat counted.  -1 when out of
 * memory for a new pair. */
static inline int seq_take(struct wc_recfilter *f, const struct wc_event *ev,
			   uint64_t *sk)
{
	uint64_t key = (uint64_t)ev->device << 32 | ev->cpu;
	const struct seq_slot *sl = &f->cache[seq_slot(key)];
	uint32_t *last = sl->val;

	if ((sl->key != key || !last) && seq_miss(f, key, &last) < 0)
		return -1;
	if (last) {
		if (*last && ev->sequence > *last + 1)
			*sk += ev->sequence - *last - 1;
		else if (ev->sequence == *last)
			f->repeats++;
		*last = ev->sequence;
	}
	return 0;
}

int wc_recfilter_apply(struct wc_recfilter *f, struct wc_event *evs, size_t n,
		       size_t *kept, uint64_t *skips)
{
	/* In locals: the events could alias the counts for all the
	 * compiler knows. */
	uint64_t sk = *skips;
	size_t j, k;
	int ret = 0;

	/* Up to the first notify record every event is kept where it is:
	 * a batch of block-layer events alone (nearly all) is looked at
	 * for its sequence numbers only. */
	for (j = 0; j < n && !wc_event_is_notify(&evs[j]); j++)
		if (evs[j].sequence && seq_take(f, &evs[j], &sk) < 0) {
			k = j;
			goto fail;
		}
	for (k = j; j < n; j++) {
		struct wc_event *ev = &evs[j];

		if (wc_event_is_notify(ev)) {
			if (ev->action == WC_ACTION_MESSAGE)
				goto keep;
			if (ev->action == WC_ACTION_PROCESS &&
			    wc_recfilter_name(f, ev->pid, ev->pdu,
					      ev->pdu_len) < 0)
				goto fail;
			continue;
		}
		if (ev->sequence && seq_take(f, ev, &sk) < 0)
			goto fail;
keep:
		if (k != j)
			evs[k] = *ev;
		k++;
	}
	goto out;

fail:
	ret = -1;
out:
	*kept = k;
	*skips = sk;
	return ret;
}
