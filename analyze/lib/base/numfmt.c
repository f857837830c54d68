/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/numfmt.h"

#include <inttypes.h>
#include <stdio.h>

const char *wc_fmt_bytes(uint64_t b, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%" PRIu64 " B", b);
	else
		snprintf(buf, size, "%.1f %s", v, unit[u]);
	return buf;
}

const char *wc_fmt_ms(uint64_t ns, char *buf, size_t size)
{
	double v = (double)ns / 1e6;

	if (v < 10)
		snprintf(buf, size, "%.3f", v);
	else if (v < 1000)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

const char *wc_fmt_s6(double v, char *buf, size_t size)
{
	if (v < 10)
		snprintf(buf, size, "%.3f", v);
	else if (v < 100)
		snprintf(buf, size, "%.2f", v);
	else if (v < 1000)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

const char *wc_fmt_sns(int64_t ns, char *buf, size_t size)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, size, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "",
		 a / 1000000000u, a % 1000000000u);
	return buf;
}
