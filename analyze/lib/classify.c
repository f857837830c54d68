#include "classify.h"

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

static bool has(const struct wc_request *rq, unsigned bit)
{
	return (rq->action & WC_TC(bit)) != 0;
}

static bool is_journal(const struct wc_classifier *cl,
		       const struct wc_request *rq)
{
	if (cl->method == WC_JOURNAL_RANGE) {
		if (cl->device && cl->device != rq->device)
			return false;
		return rq->sector >= cl->journal_start &&
		       rq->sector - cl->journal_start < cl->journal_len;
	}
	/* Log and commit writes must be durable before the caller goes on,
	 * which is what FUA and preflush ask for; XFS's log writes without
	 * them still carry both SYNC and META. */
	if (has(rq, WC_TC_FUA) || has(rq, WC_TC_FLUSH))
		return true;
	return has(rq, WC_TC_SYNC) && has(rq, WC_TC_META);
}

enum wc_cat wc_classify(const struct wc_classifier *cl,
			const struct wc_request *rq)
{
	if (rq->bytes == 0)
		return has(rq, WC_TC_FLUSH) ? WC_CAT_FLUSH : WC_CAT_OTHER;
	if (has(rq, WC_TC_DISCARD))
		return WC_CAT_DISCARD;
	if (has(rq, WC_TC_WRITE) && is_journal(cl, rq))
		return WC_CAT_JOURNAL;
	if (has(rq, WC_TC_META))
		return WC_CAT_METADATA;
	if (has(rq, WC_TC_WRITE))
		return WC_CAT_DATA_WRITE;
	return WC_CAT_DATA_READ;
}
