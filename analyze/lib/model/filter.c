/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter.c - the requests an analysis looks at (see filter.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/blktrace_format.h"
#include "model/filter.h"

bool wc_filter_any(const struct wc_filter *f)
{
	return f && (f->has_window || f->phase[0] || f->has_device ||
		     f->has_pid || f->comm[0]);
}

/* A number of seconds >= 0, all of s[0..len). */
static int parse_secs(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	double v;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (end == buf || *end || errno || !isfinite(v) || v < 0 || v > 1e9)
		return -1;
	*out = v;
	return 0;
}

int wc_filter_parse_window(struct wc_filter *f, const char *arg)
{
	const char *comma = strchr(arg, ',');
	double s, e = -1;

	if (!comma || parse_secs(arg, (size_t)(comma - arg), &s) < 0)
		return -1;
	if (comma[1] && (parse_secs(comma + 1, strlen(comma + 1), &e) < 0 ||
			 e <= s))
		return -1;
	f->has_window = true;
	f->win_start_s = s;
	f->win_end_s = e;
	return 0;
}

static int set_name(char *dst, size_t size, const char *arg)
{
	if (!*arg || strlen(arg) >= size)
		return -1;
	snprintf(dst, size, "%s", arg);
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int wc_filter_parse_device(struct wc_filter *f, const char *arg)
{
	const char *sep = strpbrk(arg, ",:");

	if (sep) {
		char maj[16], *end;
		unsigned long a, b;
		size_t n = (size_t)(sep - arg);

		if (n == 0 || n >= sizeof(maj) || !all_digits(sep + 1))
			return -1;
		memcpy(maj, arg, n);
		maj[n] = '\0';
		if (!all_digits(maj))
			return -1;
		errno = 0;
		a = strtoul(maj, &end, 10);
		b = strtoul(sep + 1, &end, 10);
		if (errno || a > 0xfff || b > 0xfffff)
			return -1;
		f->has_device = true;
		f->device_known = true;
		f->device = WC_DEV_MAKE((uint32_t)a, (uint32_t)b);
		snprintf(f->device_name, sizeof(f->device_name), "%lu,%lu", a, b);
		return 0;
	}
	if (set_name(f->device_name, sizeof(f->device_name), arg) < 0)
		return -1;
	f->has_device = true;
	f->device_known = false;
	return 0;
}

int wc_filter_parse_process(struct wc_filter *f, const char *arg)
{
	if (all_digits(arg)) {
		unsigned long v;

		errno = 0;
		v = strtoul(arg, NULL, 10);
		if (errno || v > UINT32_MAX)
			return -1;
		f->has_pid = true;
		f->pid = (uint32_t)v;
		f->comm[0] = '\0';
		return 0;
	}
	f->has_pid = false;
	return set_name(f->comm, sizeof(f->comm), arg);
}

int wc_filter_parse_phase(struct wc_filter *f, const char *arg)
{
	return set_name(f->phase, sizeof(f->phase), arg);
}

bool wc_filter_resolve_device(struct wc_filter *f, const uint32_t *devs,
			      const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; !f->device_known && i < n; i++)
		if (names[i] && !strcmp(names[i], f->device_name)) {
			f->device = devs[i];
			f->device_known = true;
		}
	return f->device_known;
}

/* origin + s seconds, saturating. */
static uint64_t at(uint64_t origin, double s)
{
	double ns = s * 1e9;

	if (ns >= (double)(UINT64_MAX - origin))
		return UINT64_MAX;
	return origin + (uint64_t)llround(ns);
}

void wc_filter_window_of(const struct wc_filter *f, uint64_t origin,
			 bool has_phase, uint64_t pstart, uint64_t pend,
			 struct wc_filter_window *w)
{
	uint64_t base = has_phase ? pstart : origin;

	w->start = 0;
	w->end = UINT64_MAX;
	if (has_phase) {
		w->start = pstart;
		w->end = pend;
	}
	if (f->has_window) {
		uint64_t s = at(base, f->win_start_s);
		uint64_t e = f->win_end_s < 0 ? UINT64_MAX : at(base, f->win_end_s);

		w->start = s > w->start ? s : w->start;
		w->end = e < w->end ? e : w->end;
	}
	if (w->end < w->start)
		w->end = w->start;
}

static bool is_process(const struct wc_filter *f, uint32_t pid,
		       const char *comm)
{
	if (f->has_pid)
		return pid == f->pid;
	return comm && !strcmp(comm, f->comm);
}

bool wc_filter_keep(const struct wc_filter *f, const struct wc_request *rq,
		    const char *comm, const char *cause)
{
	if (f->has_device && (!f->device_known || rq->device != f->device))
		return false;
	/* A flush is the thread's that asked for it, not the kworker's that
	 * dispatched it: each request belongs to one process. */
	if ((f->has_pid || f->comm[0]) &&
	    !(rq->has_cause ? is_process(f, rq->cause_pid, cause) :
			      is_process(f, rq->pid, comm)))
		return false;
	return true;
}

void wc_filter_describe(const struct wc_filter *f, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
#define ADD(...) do { \
		if (len < size) \
			len += (size_t)snprintf(buf + len, size - len, __VA_ARGS__); \
	} while (0)
	if (f->has_window) {
		ADD("window %g s to ", f->win_start_s);
		if (f->win_end_s < 0)
			ADD("the end");
		else
			ADD("%g s", f->win_end_s);
		ADD(" %s", f->phase[0] ? "of phase " : "from the start");
		if (f->phase[0])
			ADD("%s", f->phase);
	} else if (f->phase[0]) {
		ADD("phase %s", f->phase);
	}
	if (f->has_device)
		ADD("%sdevice %s", len ? "; " : "", f->device_name);
	if (f->has_pid)
		ADD("%sprocess %u", len ? "; " : "", (unsigned)f->pid);
	else if (f->comm[0])
		ADD("%sprocess %s", len ? "; " : "", f->comm);
#undef ADD
}
