/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spool.h - unnamed temporary files, and bytes held in memory up to a
 * bound, then in one of them (a spool).
 *
 *     int fd = wc_spool_tmpfile("the ledger", &err);      // or -1
 *     if (wc_spool_write_at(fd, buf, len, off) < len)     // errno: why
 *     ...
 *     close(fd);
 *
 * A temporary file is made in TMPDIR (or /tmp) with O_TMPFILE, mode
 * 0600: no name, no other process can open it, and it is gone with its
 * descriptor however the process ends (docs/security.md).  Where the
 * filesystem has no O_TMPFILE, a name from mkostemp() is unlinked at
 * once.
 */
#ifndef WC_SPOOL_H
#define WC_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "base/wcerr.h"

/* An unnamed temporary file in TMPDIR (or /tmp); WHAT names the bytes
 * it is for in the message ("cannot make a temporary file for WHAT:
 * why", under TMPDIR's path).  The descriptor (the caller's to close),
 * or -1 with err filled. */
int wc_spool_tmpfile(const char *what, struct wc_err *err);

/* LEN bytes of BUF written at offset OFF of FD (a temporary file), as
 * many pwrite() calls as it takes, EINTR retried.  Returns the bytes
 * written: LEN, or fewer with errno saying why (ENOSPC for a write that
 * made no progress). */
size_t wc_spool_write_at(int fd, const void *buf, size_t len, uint64_t off);

/* LEN bytes read into BUF from offset OFF of FD, as many pread() calls
 * as it takes, EINTR retried.  Returns the bytes read: LEN, or fewer at
 * the file's end (errno 0) or on an error (errno set). */
size_t wc_spool_read_at(int fd, void *buf, size_t len, uint64_t off);

#endif /* WC_SPOOL_H */
