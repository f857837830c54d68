/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hot.h - WC_HOT, the mark of a function on the per-event path.
 *
 * The pipeline calls each stage once per event, and a call costs more
 * than the few comparisons most of its helpers make: a helper of the
 * per-event path (decoding a record, a window's step, a bio found, a
 * request's figures) is written as a function of its own for clarity and
 * marked WC_HOT, so that it is inlined where it is called.  A function
 * taking a constant argument (a byte order, "buffered") is marked so too:
 * each caller then gets the copy for its constant, without a branch.
 * What runs once per device, per stream or per failure is not marked.
 */
#ifndef WC_HOT_H
#define WC_HOT_H

#define WC_HOT static inline __attribute__((always_inline))

#endif /* WC_HOT_H */
