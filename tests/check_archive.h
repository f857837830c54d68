/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_archive.h - writing archive members in the Check tests of the
 * modules that read archives (check_input, check_members, check_source).
 *
 *     struct archive *a = archive_write_new();
 *     archive_write_set_format_pax_restricted(a);
 *     archive_write_open_filename(a, path);
 *     wc_check_archive_add(a, "cap/trace/sda.blktrace.0", bytes, len);
 *     archive_write_close(a);
 *     archive_write_free(a);
 *
 * A member is a regular file of mode 0644; a failure to write it fails
 * the test that called.
 */
#ifndef WC_CHECK_ARCHIVE_H
#define WC_CHECK_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <stddef.h>

static inline void wc_check_archive_add(struct archive *a, const char *name,
					const void *data, size_t n)
{
	struct archive_entry *e = archive_entry_new();

	ck_assert_ptr_nonnull(e);
	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, (la_int64_t)n);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
	if (n)
		ck_assert_int_eq(archive_write_data(a, data, n), (la_ssize_t)n);
	archive_entry_free(e);
}

#endif /* WC_CHECK_ARCHIVE_H */
