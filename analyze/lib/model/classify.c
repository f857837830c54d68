/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "model/classify.h"

#include <string.h>

static const char *const cat_names[WC_NCAT] = {
	[WC_CAT_FLUSH] = "flush",
	[WC_CAT_JOURNAL] = "journal",
	[WC_CAT_METADATA] = "metadata",
	[WC_CAT_DATA_READ] = "data_read",
	[WC_CAT_DATA_WRITE] = "data_write",
	[WC_CAT_DISCARD] = "discard",
	[WC_CAT_OTHER] = "other",
};

const char *wc_cat_name(enum wc_cat cat)
{
	if ((unsigned)cat >= WC_NCAT)
		return "?";
	return cat_names[cat];
}

const char *wc_journal_method_name(enum wc_journal_method m)
{
	return m == WC_JOURNAL_RANGE ? "range" : "heuristic";
}

void wc_classifier_heuristic(struct wc_classifier *cl)
{
	memset(cl, 0, sizeof(*cl));
	cl->method = WC_JOURNAL_HEURISTIC;
}

void wc_classifier_range(struct wc_classifier *cl, uint32_t device,
			 uint64_t start, uint64_t len)
{
	memset(cl, 0, sizeof(*cl));
	cl->method = WC_JOURNAL_RANGE;
	cl->device = device;
	cl->journal_start = start;
	cl->journal_len = len;
}

