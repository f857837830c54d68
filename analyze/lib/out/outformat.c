/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/outformat.h"

#include <errno.h>
#include <string.h>

int wc_format_parse(const char *s, enum wc_format *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = WC_FORMAT_TEXT;
	else if (!strcmp(s, "json"))
		*fmt = WC_FORMAT_JSON;
	else if (!strcmp(s, "csv"))
		*fmt = WC_FORMAT_CSV;
	else
		return -1;
	return 0;
}

int wc_format_finish(FILE *f, struct wc_err *err)
{
	if (fflush(f) == EOF || ferror(f))
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "write error: %s", strerror(errno));
	return 0;
}
