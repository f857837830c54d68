/*
 * classify.h - says what a request was for: the categories time goes to.
 *
 * The order of enum wc_cat is the order every report, table, legend and
 * figure uses.  wc_cat_name() gives the stable identifier used in JSON,
 * CSV and .dat files.
 */
#ifndef WC_CLASSIFY_H
#define WC_CLASSIFY_H

#include <stdint.h>

#include "tracker.h"

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

const char *wc_cat_name(enum wc_cat cat);
enum wc_cat wc_classify(const struct wc_classifier *cl,
			const struct wc_request *rq);

#endif /* WC_CLASSIFY_H */
