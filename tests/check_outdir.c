/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_outdir.c - unit tests of analyze/lib/out/outdir.c: a file appears
 * only when committed, a link planted at its name is replaced and its
 * target left alone, a link or a file in place of a folder is refused,
 * a discarded file leaves the old one, the bound on open files, reading
 * back without following a link, safe names, and the sweep of what a
 * previous run wrote.
 */
#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_common.h"
#include "out/outdir.h"

static struct wc_outdir *open_out(const char *name)
{
	struct wc_outdir *d = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_msg(wc_outdir_open(&d, wc_check_path(name), &err) == 0,
		      "%s", err.msg);
	return d;
}

static void put(struct wc_outdir *d, const char *rel, const char *text)
{
	struct wc_err err;
	FILE *f;

	wc_err_clear(&err);
	f = wc_outdir_create(d, rel, &err);
	ck_assert_msg(f != NULL, "%s", err.msg);
	fputs(text, f);
	ck_assert_msg(wc_outdir_commit(d, f, rel, &err) == 0, "%s", err.msg);
}

static char *text_of(const char *name)
{
	return (char *)wc_check_slurp(wc_check_path(name), NULL);
}

/* Entries of the folder besides . and .. */
static int entries(const char *name)
{
	DIR *dir = opendir(wc_check_path(name));
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(dir);
	return n;
}

START_TEST(test_commit_and_discard)
{
	struct wc_outdir *d = open_out("out");
	struct wc_err err;
	char *t;
	FILE *f;

	ck_assert_str_eq(wc_outdir_path(d), wc_check_path("out"));
	put(d, "a.txt", "one\n");
	t = text_of("out/a.txt");
	ck_assert_str_eq(t, "one\n");
	free(t);

	/* Until committed, the old file stays and the new one is hidden. */
	wc_err_clear(&err);
	f = wc_outdir_create(d, "a.txt", &err);
	ck_assert_ptr_nonnull(f);
	fputs("two\n", f);
	fflush(f);
	t = text_of("out/a.txt");
	ck_assert_str_eq(t, "one\n");
	free(t);
	ck_assert_int_eq(entries("out"), 2);
	wc_outdir_discard(d, f);
	ck_assert_int_eq(entries("out"), 1);
	t = text_of("out/a.txt");
	ck_assert_str_eq(t, "one\n");
	free(t);

	/* In a sub-folder, made again without complaint. */
	ck_assert_int_eq(wc_outdir_mkdir(d, "sub", &err), 0);
	ck_assert_int_eq(wc_outdir_mkdir(d, "sub", &err), 0);
	put(d, "sub/b.txt", "three\n");
	t = text_of("out/sub/b.txt");
	ck_assert_str_eq(t, "three\n");
	free(t);
	wc_outdir_remove(d, "sub/b.txt");
	ck_assert_int_eq(entries("out/sub"), 0);

	/* Deeper than one folder is no name of the bundle. */
	wc_err_clear(&err);
	ck_assert_ptr_null(wc_outdir_create(d, "sub/x/y", &err));
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);

	/* Freed with a file open: nothing of it is left. */
	f = wc_outdir_create(d, "sub/c.txt", &err);
	ck_assert_ptr_nonnull(f);
	fputs("lost\n", f);
	wc_outdir_free(d);
	ck_assert_int_eq(entries("out/sub"), 0);
	wc_outdir_free(NULL);
}
END_TEST

/* A folder taken back: what this run wrote there goes, and leaves the
 * list; a file of the user's keeps itself and its folder. */
START_TEST(test_forget)
{
	struct wc_outdir *d = open_out("out");
	struct wc_err err;
	char *list;
	FILE *fp;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_outdir_mkdir(d, "gone", &err), 0);
	ck_assert_int_eq(wc_outdir_mkdir(d, "mine", &err), 0);
	ck_assert_int_eq(wc_outdir_mkdir(d, "kept", &err), 0);
	put(d, "gone/a.txt", "a\n");
	put(d, "gone/b.txt", "b\n");
	put(d, "mine/c.txt", "c\n");
	put(d, "kept/d.txt", "d\n");
	fp = fopen(wc_check_path("out/mine/precious"), "w");
	ck_assert_ptr_nonnull(fp);
	fclose(fp);
	wc_outdir_forget(d, "gone");
	wc_outdir_forget(d, "mine");
	wc_outdir_forget(d, "kep");     /* no folder of that name */
	ck_assert_int_ne(access(wc_check_path("out/gone"), F_OK), 0);
	ck_assert_int_ne(access(wc_check_path("out/mine/c.txt"), F_OK), 0);
	ck_assert_int_eq(access(wc_check_path("out/mine/precious"), F_OK), 0);
	ck_assert_int_eq(access(wc_check_path("out/kept/d.txt"), F_OK), 0);
	ck_assert_int_eq(wc_outdir_sweep(d, "list", &err), 0);
	list = text_of("out/list");
	ck_assert_str_eq(list, "kept/\nkept/d.txt\n");
	free(list);
	wc_outdir_free(d);
}
END_TEST

START_TEST(test_links)
{
	struct wc_outdir *d = open_out("out");
	struct wc_err err;
	char *t;
	FILE *fp;

	fp = fopen(wc_check_path("victim"), "w");
	ck_assert_ptr_nonnull(fp);
	fputs("keep\n", fp);
	fclose(fp);

	/* A link planted at a file's name is replaced, not written through. */
	ck_assert_int_eq(symlink(wc_check_path("victim"),
				 wc_check_path("out/a.txt")), 0);
	put(d, "a.txt", "mine\n");
	t = text_of("victim");
	ck_assert_str_eq(t, "keep\n");
	free(t);
	t = text_of("out/a.txt");
	ck_assert_str_eq(t, "mine\n");
	free(t);

	/* Nor read through. */
	ck_assert_int_eq(symlink(wc_check_path("victim"),
				 wc_check_path("out/r.txt")), 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_outdir_read(d, "r.txt", &t, &err), -1);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(wc_outdir_read(d, "a.txt", &t, &err), 0);
	ck_assert_str_eq(t, "mine\n");
	free(t);

	/* A link or a file in place of a folder is refused. */
	ck_assert_int_eq(mkdir(wc_check_path("elsewhere"), 0777), 0);
	ck_assert_int_eq(symlink(wc_check_path("elsewhere"),
				 wc_check_path("out/cap")), 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_outdir_mkdir(d, "cap", &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "symbolic link"));
	wc_err_clear(&err);
	ck_assert_ptr_null(wc_outdir_create(d, "cap/x.dat", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "symbolic link"));
	ck_assert_int_eq(entries("elsewhere"), 0);
	put(d, "plain", "x");
	wc_err_clear(&err);
	ck_assert_int_eq(wc_outdir_mkdir(d, "plain", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a folder"));
	wc_outdir_free(d);

	/* The folder itself. */
	ck_assert_int_eq(symlink(wc_check_path("elsewhere"),
				 wc_check_path("linked")), 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_outdir_open(&d, wc_check_path("linked"), &err), -1);
	ck_assert_ptr_null(d);
	ck_assert_ptr_nonnull(strstr(err.msg, "symbolic link"));
	wc_err_clear(&err);
	ck_assert_int_eq(wc_outdir_open(&d, "/nonexistent/dir/x", &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
}
END_TEST

START_TEST(test_bound)
{
	struct wc_outdir *d = open_out("out");
	FILE *f[WC_OUTDIR_MAX_OPEN];
	struct wc_err err;
	char rel[16];
	int i;

	for (i = 0; i < WC_OUTDIR_MAX_OPEN; i++) {
		snprintf(rel, sizeof(rel), "f%d", i);
		f[i] = wc_outdir_create(d, rel, &err);
		ck_assert_ptr_nonnull(f[i]);
	}
	wc_err_clear(&err);
	ck_assert_ptr_null(wc_outdir_create(d, "one-more", &err));
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	for (i = 0; i < WC_OUTDIR_MAX_OPEN; i++) {
		snprintf(rel, sizeof(rel), "f%d", i);
		ck_assert_int_eq(wc_outdir_commit(d, f[i], rel, &err), 0);
	}
	ck_assert_int_eq(entries("out"), WC_OUTDIR_MAX_OPEN);
	wc_outdir_free(d);
}
END_TEST

START_TEST(test_names)
{
	char out[WC_OUTDIR_NAME_MAX + 8], fresh[32], other[32], longer[200];

	wc_outdir_safe_name("../a b/$(x)", out, sizeof(out));
	ck_assert_str_eq(out, "_._a_b___x_");
	wc_outdir_safe_name("ext4-cache_on.run1", out, sizeof(out));
	ck_assert_str_eq(out, "ext4-cache_on.run1");
	wc_outdir_safe_name("", out, sizeof(out));
	ck_assert_str_eq(out, "capture");
	wc_outdir_safe_name(NULL, out, sizeof(out));
	ck_assert_str_eq(out, "capture");
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	wc_outdir_safe_name(longer, out, sizeof(out));
	ck_assert_uint_eq(strlen(out), WC_OUTDIR_NAME_MAX);

	wc_outdir_fresh_name(fresh, sizeof(fresh), "wc");
	wc_outdir_fresh_name(other, sizeof(other), "wc");
	ck_assert_uint_eq(strlen(fresh), strlen(".wc-") + 16);
	ck_assert_int_eq(strncmp(fresh, ".wc-", 4), 0);
	ck_assert_str_ne(fresh, other);
}
END_TEST

/* A second run removes what only the first run wrote, by the first
 * run's list: never a file that list does not name, never outside the
 * folder, never through a link, a folder only when emptied. */
START_TEST(test_sweep)
{
	struct wc_outdir *d = open_out("out");
	struct wc_err err;
	struct stat st;
	char *t;
	FILE *f;

	wc_err_clear(&err);
	ck_assert_int_eq(wc_outdir_mkdir(d, "old", &err), 0);
	put(d, "old/a.dat", "a\n");
	ck_assert_int_eq(wc_outdir_mkdir(d, "kept", &err), 0);
	put(d, "kept/b.dat", "b\n");
	put(d, "gone.txt", "c\n");
	wc_outdir_note(d, "kept/b.png");     /* renamed in by someone else */
	ck_assert_int_eq(wc_outdir_sweep(d, "list.txt", &err), 0);
	wc_outdir_free(d);
	t = text_of("out/list.txt");
	ck_assert_str_eq(t, "gone.txt\nkept/\nkept/b.dat\nkept/b.png\nold/\nold/a.dat\n");
	free(t);

	/* Someone else's files in the folder, and a list edited to name
	 * what is not the bundle's. */
	f = fopen(wc_check_path("out/mine.txt"), "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	f = fopen(wc_check_path("out/kept/mine.txt"), "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	f = fopen(wc_check_path("precious"), "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(symlink(wc_check_path("precious"), wc_check_path("out/link")), 0);
	f = fopen(wc_check_path("out/list.txt"), "a");
	ck_assert_ptr_nonnull(f);
	fputs("../precious\n/etc/passwd\nlink/x\n.hidden\nkept/../../precious\n", f);
	fclose(f);

	d = open_out("out");
	ck_assert_int_eq(wc_outdir_mkdir(d, "kept", &err), 0);
	put(d, "kept/b.dat", "b2\n");
	ck_assert_int_eq(wc_outdir_sweep(d, "list.txt", &err), 0);
	wc_outdir_free(d);
	t = text_of("out/list.txt");
	ck_assert_str_eq(t, "kept/\nkept/b.dat\n");
	free(t);
	ck_assert_int_ne(stat(wc_check_path("out/gone.txt"), &st), 0);
	ck_assert_int_ne(stat(wc_check_path("out/old"), &st), 0);
	ck_assert_int_eq(stat(wc_check_path("out/mine.txt"), &st), 0);
	ck_assert_int_eq(stat(wc_check_path("out/kept/mine.txt"), &st), 0);
	ck_assert_int_eq(stat(wc_check_path("precious"), &st), 0);
	ck_assert_int_eq(lstat(wc_check_path("out/link"), &st), 0);
	/* kept, list.txt, mine.txt, link */
	ck_assert_int_eq(entries("out"), 4);
}
END_TEST

static Suite *outdir_suite(void)
{
	Suite *s = suite_create("outdir");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_commit_and_discard);
	tcase_add_test(tc, test_forget);
	tcase_add_test(tc, test_links);
	tcase_add_test(tc, test_bound);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_sweep);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(outdir_suite)
