/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * streams_test.h - the stream table's doors for its tests only
 * (check_streams, check_members): how many handles of the pool are held,
 * so a test can see the bound kept.  streams.h is the interface.
 */
#ifndef WC_STREAMS_TEST_H
#define WC_STREAMS_TEST_H

#include "input/streams.h"

/* Streams holding a handle of the pool now (at most lim.max_open). */
unsigned wc_streams_open_count(const struct wc_streams *st);

#endif /* WC_STREAMS_TEST_H */
