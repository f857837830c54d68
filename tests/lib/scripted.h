/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scripted.h - a source of events a Check test writes out one by one, for
 * wc_analysis_read_source() (analysis.h): the events come back in the
 * order they were added.  Header only; at most SCRIPTED_MAX events.
 *
 *     struct scripted s = { .n = 0 };
 *     scripted_add(&s, DEV, t, WC_TA_QUEUE, WC_TC(WC_TC_WRITE), 8000, 4096);
 *     wc_analysis_read_source(&a, scripted_next, &s, &meta, ...);
 */
#ifndef WC_TESTS_SCRIPTED_H
#define WC_TESTS_SCRIPTED_H

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "format/event.h"
#include "base/wcerr.h"

#define SCRIPTED_MAX 256

struct scripted {
	struct wc_event ev[SCRIPTED_MAX];
	size_t n, i;
};

static inline int scripted_next(void *ctx, struct wc_event *ev,
				struct wc_err *err)
{
	struct scripted *s = ctx;

	(void)err;
	if (s->i >= s->n)
		return 0;
	*ev = s->ev[s->i++];
	return 1;
}

static inline void scripted_add(struct scripted *s, uint32_t device,
				uint64_t t, unsigned what, uint64_t flags,
				uint64_t sector, uint32_t bytes)
{
	struct wc_event *e;

	ck_assert_uint_lt(s->n, SCRIPTED_MAX);
	e = &s->ev[s->n++];
	memset(e, 0, sizeof(*e));
	e->device = device;
	e->time = t;
	e->action = what | flags;
	e->sector = sector;
	e->bytes = bytes;
}

#endif /* WC_TESTS_SCRIPTED_H */
