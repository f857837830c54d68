/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input_test.h - the input's doors for its tests only (check_input):
 * whether an archive's scan took the shortcut (input.h, Speculation).
 * input.h is the interface.
 */
#ifndef WC_INPUT_TEST_H
#define WC_INPUT_TEST_H

#include <stdbool.h>

#include "input/input.h"

/* True when the scan stopped at the last announced trace file. */
bool wc_input_speculated(const struct wc_input *in);

#endif /* WC_INPUT_TEST_H */
