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
 *     struct wc_spool *sp;                     // bytes, in memory up to
 *     wc_spool_open(&sp, 64 << 10, "the names", &err);  // 64 KiB, then
 *     wc_spool_put(sp, buf, len, wc_spool_size(sp), &err);  // in a file
 *     wc_spool_get(sp, buf, len, off, &err);
 *     wc_spool_free(sp);
 *
 * A temporary file is made in TMPDIR (or /tmp) with O_TMPFILE, mode
 * 0600: no name, no other process can open it, and it is gone with its
 * descriptor however the process ends (docs/security.md).  Where the
 * filesystem has no O_TMPFILE, a name from mkostemp() is unlinked at
 * once.
 */
#ifndef WC_SPOOL_H
#define WC_SPOOL_H

#include <stdbool.h>
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

/* A spool: bytes at offsets 0 to its size, held in memory while they
 * fit in BOUND bytes, so that a few need no TMPDIR; the put that would
 * pass BOUND first moves them all to an unnamed temporary file
 * (wc_spool_tmpfile()), where they stay until the spool is freed.  What
 * is held never depends on where: a get returns what the puts wrote.
 *
 * Every function returning int returns 0, or -1 with err filled; when
 * a write or read of the file failed, errno says why (0: cut short),
 * for a caller that words its own message.  The messages name WHAT (a
 * string that must outlive the spool): "cannot make a temporary file
 * for WHAT: why", "the temporary file of WHAT: why", "WHAT cut short".
 * A spool is used by one thread at a time. */
struct wc_spool;

/* An empty spool in *out; no file is made yet.  WHAT names its bytes
 * in messages. */
int wc_spool_open(struct wc_spool **out, size_t bound, const char *what,
		  struct wc_err *err);

/* LEN bytes of BUF at offset OFF, at most the size (no hole): over what
 * is there, the size grown to OFF + LEN when past it.  When the move to
 * a file fails (TMPDIR missing, full), the spool is as before the put,
 * still in memory, and a later put tries again; when a write to the
 * file fails, the bytes from OFF to OFF + LEN are unknown. */
int wc_spool_put(struct wc_spool *sp, const void *buf, size_t len,
		 uint64_t off, struct wc_err *err);

/* LEN bytes at offset OFF into BUF; OFF + LEN past the size is "cut
 * short". */
int wc_spool_get(const struct wc_spool *sp, void *buf, size_t len,
		 uint64_t off, struct wc_err *err);

/* The bytes held: the largest OFF + LEN put. */
uint64_t wc_spool_size(const struct wc_spool *sp);

/* Whether the bytes are in the temporary file (past BOUND once). */
bool wc_spool_in_file(const struct wc_spool *sp);

/* Frees the memory, closes the file (gone with it).  NULL is fine. */
void wc_spool_free(struct wc_spool *sp);

#endif /* WC_SPOOL_H */
