/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_opens.h - how often a Check test's code opens an archive.
 *
 * A test program that includes this header defines libarchive's
 * archive_read_open_filename() and archive_read_open_fd() itself,
 * counting the calls in wc_check_archive_opens and handing each to
 * libarchive's (dlsym(RTLD_NEXT)), so every pass over an archive,
 * whoever in the library makes it, is counted; and open(2), counting in
 * wc_check_path_opens the opens of the path wc_check_watch (when not
 * NULL) by the library and by libarchive, whatever they read (a peek at
 * the first bytes is an open too).  Include it in one file of a test
 * program only.
 */
#ifndef WC_CHECK_OPENS_H
#define WC_CHECK_OPENS_H

#include <archive.h>
#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

static unsigned wc_check_archive_opens;
static unsigned wc_check_path_opens;
static const char *wc_check_watch;

int archive_read_open_filename(struct archive *a, const char *name,
			       size_t block);
int archive_read_open_fd(struct archive *a, int fd, size_t block);

int archive_read_open_filename(struct archive *a, const char *name,
			       size_t block)
{
	int (*real)(struct archive *, const char *, size_t);

	wc_check_archive_opens++;
	*(void **)&real = dlsym(RTLD_NEXT, "archive_read_open_filename");
	ck_assert_ptr_nonnull(real);
	return real(a, name, block);
}

int archive_read_open_fd(struct archive *a, int fd, size_t block)
{
	int (*real)(struct archive *, int, size_t);

	wc_check_archive_opens++;
	*(void **)&real = dlsym(RTLD_NEXT, "archive_read_open_fd");
	ck_assert_ptr_nonnull(real);
	return real(a, fd, block);
}

int open(const char *path, int flags, ...)
{
	int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (wc_check_watch && !strcmp(path, wc_check_watch))
		wc_check_path_opens++;
	*(void **)&real = dlsym(RTLD_NEXT, "open");
	return real(path, flags, mode);
}

#endif /* WC_CHECK_OPENS_H */
