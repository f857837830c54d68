/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt_test.h - btt's door for its tests only (check_btt): a btt that
 * keeps every device's tree at every event, to run beside wc_btt_open()'s
 * on the same events and compare the figures.  The pipeline never opens
 * one; btt.h is the interface.
 */
#ifndef WC_BTT_TEST_H
#define WC_BTT_TEST_H

#include "compat/btt.h"

/* wc_btt_open() for a btt that keeps its tree at every event, also while
 * the Qs kept are disjoint and their tree's shape cannot change a figure
 * (wc_btt_open()'s btt keeps them as a list then): the same figures,
 * more slowly; for the test that spans both on the same events. */
int wc_btt_open_tree(struct wc_btt **out, struct wc_err *err);

#endif /* WC_BTT_TEST_H */
