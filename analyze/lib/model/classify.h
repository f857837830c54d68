/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * classify.h - says what a request was for: the categories time goes to.
 *
 * The order of enum wc_cat is the order every report, table, legend and
 * figure uses.  wc_cat_name() gives the stable identifier used in JSON,
 * CSV and .dat files.
 */
#ifndef WC_CLASSIFY_H
#define WC_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "format/blktrace_format.h"
#include "format/request.h"

enum wc_cat {
	WC_CAT_FLUSH,        /* empty preflush / flush requests */
	WC_CAT_JOURNAL,      /* writes inside the journal range */
	WC_CAT_METADATA,     /* other META requests */
	WC_CAT_DATA_READ,
	WC_CAT_DATA_WRITE,
	WC_CAT_DISCARD,
	WC_CAT_OTHER,
	WC_NCAT
};

/* How journal writes were told apart. */
enum wc_journal_method {
	WC_JOURNAL_RANGE,      /* journal_start_sector/journal_sectors or --journal */
	WC_JOURNAL_HEURISTIC,  /* RWBS flags, see docs/methodology.md */
};

struct wc_classifier {
	enum wc_journal_method method;
	uint32_t device;         /* the device the journal range is on */
	uint64_t journal_start;  /* sectors, with any partition offset */
	uint64_t journal_len;
};

/* The stable identifier ("flush", "journal", ...); "?" when out of range. */
const char *wc_cat_name(enum wc_cat cat);
/* "range" or "heuristic". */
const char *wc_journal_method_name(enum wc_journal_method m);

/* A classifier that tells journal writes by the heuristic. */
void wc_classifier_heuristic(struct wc_classifier *cl);
/* A classifier for the journal at START, LEN sectors on DEVICE (dev_t; 0
 * means on every device). */
void wc_classifier_range(struct wc_classifier *cl, uint32_t device,
			 uint64_t start, uint64_t len);

/*
 * The category of a request, first rule that matches:
 *   flush      no bytes and the FLUSH flag (a pure cache flush, "FN");
 *   discard    the DISCARD flag;
 *   journal    a write with bytes, and
 *                range method: on cl->device, starting inside the range;
 *                heuristic: FUA or PREFLUSH set, or both SYNC and META
 *                (XFS log "FWFSM"/"WSM", jbd2 commit "FWFS");
 *   metadata   the META flag;
 *   data_write a write with bytes;
 *   data_read  a read with bytes;
 *   other      everything else (an empty request that is not a flush).
 */
static inline enum wc_cat wc_classify(const struct wc_classifier *cl,
				      const struct wc_request *rq);

/* True when a request is a FUA write.  Inline: the accountant asks it
 * for every request. */
static inline bool wc_request_is_fua(const struct wc_request *rq)
{
	return (rq->action & WC_TC(WC_TC_WRITE)) &&
	       (rq->action & WC_TC(WC_TC_FUA));
}

/* ---- inline: the analysis asks for every request ---------------------- */

static inline bool wc_request_has_(const struct wc_request *rq, unsigned bit)
{
	return (rq->action & WC_TC(bit)) != 0;
}

static inline bool wc_is_journal_(const struct wc_classifier *cl,
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
	if (wc_request_has_(rq, WC_TC_FUA) || wc_request_has_(rq, WC_TC_FLUSH))
		return true;
	return wc_request_has_(rq, WC_TC_SYNC) &&
	       wc_request_has_(rq, WC_TC_META);
}

static inline enum wc_cat wc_classify(const struct wc_classifier *cl,
				      const struct wc_request *rq)
{
	if (rq->bytes == 0)
		return wc_request_has_(rq, WC_TC_FLUSH) ? WC_CAT_FLUSH :
							  WC_CAT_OTHER;
	if (wc_request_has_(rq, WC_TC_DISCARD))
		return WC_CAT_DISCARD;
	if (wc_request_has_(rq, WC_TC_WRITE) && wc_is_journal_(cl, rq))
		return WC_CAT_JOURNAL;
	if (wc_request_has_(rq, WC_TC_META))
		return WC_CAT_METADATA;
	if (wc_request_has_(rq, WC_TC_WRITE))
		return WC_CAT_DATA_WRITE;
	return WC_CAT_DATA_READ;
}

#endif /* WC_CLASSIFY_H */
