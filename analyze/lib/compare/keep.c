/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compare/keep.h"

#include <stdbool.h>
#include <stdlib.h>

struct wc_keep {
	struct wc_summary_opts so;
	struct wc_capsule *held[WC_KEEP_HELD];
	size_t nheld;
	size_t count;
	bool failed;                   /* a spill failed: no summary */
	struct wc_capsule_spill *spill;
	struct wc_summary_plan *plan;  /* NULL once the summary's */
};

int wc_keep_open(struct wc_keep **out, const struct wc_summary_opts *opts,
		 struct wc_err *err)
{
	struct wc_keep *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (!k)
		return wc_err_oom(err, NULL, NULL);
	k->so = *opts;
	*out = k;
	return 0;
}

int wc_keep_add(struct wc_keep *k, struct wc_capsule *c, struct wc_err *err)
{
	size_t i;
	int r = -1;

	k->count++;
	if (!k->spill && k->nheld < WC_KEEP_HELD) {
		k->held[k->nheld++] = c;
		return 0;
	}
	if (!k->spill) {
		if (wc_capsule_spill_open(&k->spill, err) < 0 ||
		    wc_summary_plan_open(&k->plan, &k->so, err) < 0)
			goto free_c;
		for (i = 0; i < k->nheld; i++)
			if (wc_summary_plan_add(k->plan, k->held[i], err) < 0 ||
			    wc_capsule_spill_add(k->spill, k->held[i],
						 err) < 0)
				goto free_c;
		for (i = 0; i < k->nheld; i++)
			wc_capsule_free(k->held[i]);
		k->nheld = 0;
	}
	if (wc_summary_plan_add(k->plan, c, err) < 0 ||
	    wc_capsule_spill_add(k->spill, c, err) < 0)
		goto free_c;
	r = 0;
free_c:
	wc_capsule_free(c);
	if (r < 0)
		k->failed = true;
	return r;
}

size_t wc_keep_count(const struct wc_keep *k)
{
	return k->count;
}

static int spill_next(void *ctx, const struct wc_capsule **cap,
		      struct wc_err *err)
{
	return wc_capsule_spill_next(ctx, cap, err);
}

static int spill_rewind(void *ctx, struct wc_err *err)
{
	return wc_capsule_spill_rewind(ctx, err);
}

int wc_keep_summary(struct wc_keep *k, struct wc_summary **out,
		    struct wc_err *err)
{
	const struct wc_summary_src src = {
		.next = spill_next, .rewind = spill_rewind, .ctx = k->spill,
	};
	struct wc_summary_plan *plan = k->plan;

	if (k->failed || !k->count)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "no summary of captures not all kept");
	if (!k->spill)
		return wc_summary_build_capsules(out, k->held, k->nheld,
						 &k->so, err);
	k->plan = NULL;                 /* the summary's, built or not */
	return wc_summary_build_planned(out, &src, plan, false, err);
}

void wc_keep_free(struct wc_keep *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nheld; i++)
		wc_capsule_free(k->held[i]);
	wc_summary_plan_free(k->plan);
	wc_capsule_spill_free(k->spill);
	free(k);
}
