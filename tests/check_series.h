/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_series.h - what the Check programs of the series and of the
 * figure data (check_series.c, check_figdata.c) share: a request
 * dispatched at d and completed at c, as the tracker hands it on, and a
 * fresh series.
 *
 *     struct wc_series *s = wc_check_series();
 *     struct wc_request rq = wc_check_request(d, c, sector, bytes);
 *     wc_series_add(s, &rq, WC_CAT_DATA_WRITE);
 *
 * Header-only, after check_common.h; a failure fails the running test.
 */
#ifndef WC_CHECK_SERIES_H
#define WC_CHECK_SERIES_H

#include <string.h>

#include "model/series.h"

static inline struct wc_request wc_check_request(uint64_t d, uint64_t c,
						 uint64_t sector, uint32_t bytes)
{
	struct wc_request rq;

	memset(&rq, 0, sizeof(rq));
	rq.q_time = d;
	rq.d_time = d;
	rq.c_time = c;
	rq.sector = sector;
	rq.bytes = bytes;
	rq.completed = true;
	rq.nbios = 1;
	rq.depth = 1;
	return rq;
}

static inline struct wc_series *wc_check_series(void)
{
	struct wc_series *s = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_series_open(&s, &err), 0);
	ck_assert_ptr_nonnull(s);
	return s;
}

#endif /* WC_CHECK_SERIES_H */
