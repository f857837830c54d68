/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * streams_test.h - the stream table's doors for its tests only
 * (check_streams, check_members, check_blknames): how many handles of
 * the pool are held, so a test can see the bound kept, and one event of
 * a stream, a span of one.  streams.h is the interface.
 */
#ifndef WC_STREAMS_TEST_H
#define WC_STREAMS_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "input/streams.h"

/* Streams holding a handle of the pool now (at most lim.max_open). */
unsigned wc_streams_open_count(const struct wc_streams *st);

static inline int wc_streams_pull_one(struct wc_streams *st, unsigned i,
				      struct wc_event *ev, unsigned flags,
				      struct wc_err *err)
{
	size_t got;

	return wc_streams_pull(st, i, ev, 1, UINT64_MAX, flags, &got, err);
}

#endif /* WC_STREAMS_TEST_H */
