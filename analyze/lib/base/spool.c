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
