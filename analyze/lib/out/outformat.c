/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/outformat.h"

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
