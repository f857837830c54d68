/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t wc_spool_write_at(int fd, const void *buf, size_t len,
			  uint64_t off)
{
	const unsigned char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t w = pwrite(fd, p + done, len - done,
				   (off_t)(off + done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = ENOSPC;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	return done;
}

size_t wc_spool_read_at(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, p + done, len - done,
				  (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			errno = 0;
		if (r <= 0)
			break;
		done += (size_t)r;
	}
	return done;
}

int wc_spool_tmpfile(const char *what, struct wc_err *err)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(tmpl, sizeof(tmpl), "%s/wcanalyze.XXXXXX", dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	if (fd < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, dir, NULL, WC_NO_OFFSET,
				  "cannot make a temporary file for %s: %s",
				  what, strerror(errno));
	return fd;
}

struct wc_spool {
	const char *what;
	size_t bound;
	unsigned char *mem;            /* NULL once in the file */
	size_t room;
	int fd;                        /* -1 while in memory */
	uint64_t size;
};

int wc_spool_open(struct wc_spool **out, size_t bound, const char *what,
		  struct wc_err *err)
{
	struct wc_spool *sp = calloc(1, sizeof(*sp));

	*out = NULL;
	if (!sp) {
		errno = ENOMEM;
		return wc_err_oom(err, NULL, NULL);
	}
	sp->what = what;
	sp->bound = bound;
	sp->fd = -1;
	*out = sp;
	return 0;
}

/* A failed write or read of the file, errno saying why. */
static int file_failed(const struct wc_spool *sp, struct wc_err *err)
{
	int e = errno;

	wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
		   "the temporary file of %s: %s", sp->what,
		   e ? strerror(e) : "cut short");
	errno = e;
	return -1;
}

/* Everything held so far, from memory to a new temporary file; on
 * failure the spool stays in memory, whole. */
static int to_file(struct wc_spool *sp, struct wc_err *err)
{
	int fd = wc_spool_tmpfile(sp->what, err), e;

	if (fd < 0)
		return -1;
	if (wc_spool_write_at(fd, sp->mem, (size_t)sp->size, 0) < sp->size) {
		file_failed(sp, err);
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	free(sp->mem);
	sp->mem = NULL;
	sp->room = 0;
	sp->fd = fd;
	return 0;
}

int wc_spool_put(struct wc_spool *sp, const void *buf, size_t len,
		 uint64_t off, struct wc_err *err)
{
	uint64_t end = off + len;

	if (off > sp->size || end < off) {
		errno = EINVAL;
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "%s: a put past their end", sp->what);
	}
	if (sp->fd < 0 && end > sp->bound && to_file(sp, err) < 0)
		return -1;
	if (sp->fd >= 0) {
		if (wc_spool_write_at(sp->fd, buf, len, off) < len)
			return file_failed(sp, err);
	} else if (len) {
		if (end > sp->room) {
			size_t want = sp->room ? 2 * sp->room : 4096;
			unsigned char *m;

			while (want < end)
				want *= 2;
			if (want > sp->bound)
				want = sp->bound;
			m = realloc(sp->mem, want);
			if (!m) {
				errno = ENOMEM;
				return wc_err_oom(err, NULL, NULL);
			}
			sp->mem = m;
			sp->room = want;
		}
		memcpy(sp->mem + off, buf, len);
	}
	if (end > sp->size)
		sp->size = end;
	return 0;
}

int wc_spool_get(const struct wc_spool *sp, void *buf, size_t len,
		 uint64_t off, struct wc_err *err)
{
	if (off > sp->size || len > sp->size - off) {
		errno = 0;
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "%s cut short", sp->what);
	}
	if (sp->fd >= 0) {
		if (wc_spool_read_at(sp->fd, buf, len, off) < len)
			return file_failed(sp, err);
	} else if (len) {
		memcpy(buf, sp->mem + off, len);
	}
	return 0;
}

uint64_t wc_spool_size(const struct wc_spool *sp)
{
	return sp->size;
}

bool wc_spool_in_file(const struct wc_spool *sp)
{
	return sp->fd >= 0;
}

void wc_spool_free(struct wc_spool *sp)
{
	if (!sp)
		return;
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->mem);
	free(sp);
}
