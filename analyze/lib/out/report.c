/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/report.h"

int wc_report_write(FILE *f, enum wc_format fmt, const struct wc_summary *s,
		    struct wc_err *err)
{
	return wc_report_write_detail(f, fmt, s, WC_REPORT_BRIEF, err);
}

int wc_report_write_detail(FILE *f, enum wc_format fmt,
			   const struct wc_summary *s,
			   enum wc_report_detail detail, struct wc_err *err)
{
	switch (fmt) {
	case WC_FORMAT_JSON:
		return wc_report_json(f, s, err);
	case WC_FORMAT_CSV:
		return wc_report_csv(f, s, err);
	default:
		if (s->ncaps == 1 && !s->named_baseline)
			return wc_report_text(f, s, 0, err);
		return wc_report_compare_detail(f, s, detail, err);
	}
}
