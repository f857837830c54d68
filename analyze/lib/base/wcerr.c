/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/wcerr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void wc_err_clear(struct wc_err *err)
{
	if (!err)
		return;
	/* Not a memset of the whole 1.5 KB: the reader clears an err per
	 * event, and empty strings are all anyone reads. */
	err->kind = WC_ERR_NONE;
	err->offset = WC_NO_OFFSET;
	err->file[0] = '\0';
	err->member[0] = '\0';
	err->msg[0] = '\0';
}

int wc_err_set(struct wc_err *err, enum wc_err_kind kind, const char *file,
	       const char *member, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!err || err->kind != WC_ERR_NONE)
		return -1;
	err->kind = kind;
	err->offset = offset;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	snprintf(err->member, sizeof(err->member), "%s", member ? member : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int wc_err_oom(struct wc_err *err, const char *file, const char *member)
{
	return wc_err_set(err, WC_ERR_SYSTEM, file, member, WC_NO_OFFSET,
			  "out of memory");
}

char *wc_err_format(const struct wc_err *err, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (err->file[0])
		n += (size_t)snprintf(buf + n, size - n, "%s: ", err->file);
	if (err->member[0] && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s: ", err->member);
	if (err->offset != WC_NO_OFFSET && n < size)
		n += (size_t)snprintf(buf + n, size - n, "offset %llu: ",
				      (unsigned long long)err->offset);
	if (n < size)
		snprintf(buf + n, size - n, "%s", err->msg);
	return buf;
}
