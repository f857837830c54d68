/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_opens.h - how often a Check test's code opens an archive.
 *
 * An archive is read through libarchive's archive_read_open_filename():
 * a test program that includes this header defines that function itself,
 * counting the calls in wc_check_archive_opens and handing each to
 * libarchive's (dlsym(RTLD_NEXT)), so every pass over an archive,
 * whoever in the library makes it, is counted.  Include it in one file
 * of a test program only.
 */
#ifndef WC_CHECK_OPENS_H
#define WC_CHECK_OPENS_H

#include <archive.h>
#include <check.h>
#include <dlfcn.h>
#include <stddef.h>

static unsigned wc_check_archive_opens;

int archive_read_open_filename(struct archive *a, const char *name,
			       size_t block);

int archive_read_open_filename(struct archive *a, const char *name,
			       size_t block)
{
	int (*real)(struct archive *, const char *, size_t);

	wc_check_archive_opens++;
	*(void **)&real = dlsym(RTLD_NEXT, "archive_read_open_filename");
	ck_assert_ptr_nonnull(real);
	return real(a, name, block);
}

#endif /* WC_CHECK_OPENS_H */
