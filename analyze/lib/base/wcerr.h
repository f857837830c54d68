/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcerr.h - how library code reports a failure without printing.
 *
 * Library functions never print and never exit.  A function that can fail
 * takes a struct wc_err *, returns a negative status on failure and fills
 * the struct; main() turns it into one line, err(3)-style:
 *
 *     wcanalyze: FILE: offset N: what is wrong
 *     wcanalyze: ARCHIVE: MEMBER: offset N: what is wrong
 *
 * The message is lower case, without a full stop, and says what is wrong
 * with the input, not what the code was doing.  Passing a NULL err is
 * allowed: the failure is then only returned.
 *
 * The first error set wins: wc_err_set() on an err that already holds a
 * message does nothing, so the innermost (most precise) cause survives
 * while callers unwind.
 */
#ifndef WC_WCERR_H
#define WC_WCERR_H

#include <stddef.h>
#include <stdint.h>

enum wc_err_kind {
	WC_ERR_NONE = 0,
	WC_ERR_INPUT,    /* the input is bad: not a trace, truncated, ... */
	WC_ERR_SYSTEM,   /* the system failed us: open, read, out of memory */
	WC_ERR_USAGE,    /* the caller asked for something impossible */
	WC_ERR_AGAIN,    /* a shortcut did not hold: do it again without it
			  * (input.h, speculate); never reaches a user */
};

#define WC_NO_OFFSET UINT64_MAX

struct wc_err {
	enum wc_err_kind kind;
	uint64_t offset;        /* byte offset in file or member, or WC_NO_OFFSET */
	char file[512];         /* file or archive path, may be empty */
	char member[512];       /* archive member, may be empty */
	char msg[512];
};

/* Empties err; call before first use.  err may be NULL. */
void wc_err_clear(struct wc_err *err);

/* Records a failure unless one is already recorded.  file, member may be
 * NULL; offset may be WC_NO_OFFSET.  Returns -1 so callers can write
 * "return wc_err_set(...)". */
int wc_err_set(struct wc_err *err, enum wc_err_kind kind, const char *file,
	       const char *member, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* wc_err_set() for the one failure every allocation can have: kind
 * WC_ERR_SYSTEM, no offset, "out of memory".  file, member may be NULL.
 * Returns -1. */
int wc_err_oom(struct wc_err *err, const char *file, const char *member);

/* Formats err as "FILE: MEMBER: offset N: msg" (parts left out when
 * unknown) into buf; returns buf. */
char *wc_err_format(const struct wc_err *err, char *buf, size_t size);

#endif /* WC_WCERR_H */
