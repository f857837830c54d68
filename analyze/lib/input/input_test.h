/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input_test.h - the input's doors for its tests only (check_input, the
 * fuzzers): whether an archive's scan took the shortcut (input.h,
 * Speculation), and one event at a time, copied out of a batch of one.
 * input.h is the interface.
 */
#ifndef WC_INPUT_TEST_H
#define WC_INPUT_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "input/input.h"

/* True when the scan stopped at the last announced trace file. */
bool wc_input_speculated(const struct wc_input *in);

static inline int wc_input_next(struct wc_input *in, struct wc_event *ev,
				struct wc_err *err)
{
	const struct wc_event *evs;
	size_t got;
	int r = wc_input_next_ref(in, &evs, 1, &got, err);

	if (r > 0)
		*ev = evs[0];
	return r;
}

#endif /* WC_INPUT_TEST_H */
