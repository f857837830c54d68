/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_common.h - what every Check program (tests/check_<module>.c)
 * shares, so that each holds only its own tests:
 *
 *     WC_CHECK_MAIN(decode_suite)             // the whole main()
 *
 *     const char *d = wc_check_tmpdir();      // made on first use, under
 *                                             // $TMPDIR (else /tmp)
 *     const char *p = wc_check_path("x.bin"); // d/x.bin
 *     unsigned char *b = wc_check_slurp(p, &n);   // the whole file, with a
 *     free(b);                                // NUL after it
 *
 *     char t[256];                            // $TMPDIR/NAME.XXXXXX, for
 *     wc_check_template(t, sizeof(t), NAME);  // mkstemp() or mkdtemp()
 *
 *     wc_check_timeout(tc, 30);               // 30 s a test, or the
 *                                             // runner's longer one
 *
 * Check runs each test in a child process (CK_FORK), and a child's exit
 * must not remove the parent's directory: the scratch directory is made
 * per process that asks for it and removed when that process exits.
 * wc_check_path() returns one of four static buffers, so up to four
 * paths can be in use at once.  Everything here fails the running test
 * (ck_assert) rather than returning an error.
 *
 * Header-only: each check_*.c is linked alone with the library.
 */
#ifndef WC_CHECK_COMMON_H
#define WC_CHECK_COMMON_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The main() of a Check program whose suite suite_fn() builds. */
#define WC_CHECK_MAIN(suite_fn)                                          \
	int main(void)                                                   \
	{                                                                \
		SRunner *sr_ = srunner_create(suite_fn());               \
		int failed_;                                             \
									 \
		srunner_run_all(sr_, CK_NORMAL);                         \
		failed_ = srunner_ntests_failed(sr_);                    \
		srunner_free(sr_);                                       \
		return failed_ ? EXIT_FAILURE : EXIT_SUCCESS;            \
	}

static char wc_check_dir_[256];
static pid_t wc_check_dir_pid_;

static inline int wc_check_rm_(const char *path, const struct stat *st,
			       int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void wc_check_cleanup_(void)
{
	if (wc_check_dir_[0] && wc_check_dir_pid_ == getpid())
		nftw(wc_check_dir_, wc_check_rm_, 16, FTW_DEPTH | FTW_PHYS);
}

static inline const char *wc_check_tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (wc_check_dir_[0] && wc_check_dir_pid_ == getpid())
		return wc_check_dir_;
	snprintf(wc_check_dir_, sizeof(wc_check_dir_), "%s/wccheck.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(wc_check_dir_));
	if (!wc_check_dir_pid_)
		atexit(wc_check_cleanup_);
	wc_check_dir_pid_ = getpid();
	return wc_check_dir_;
}

static inline const char *wc_check_path(const char *name)
{
	static char buf[4][512];
	static unsigned i;

	i = (i + 1) % 4;
	ck_assert_int_lt(snprintf(buf[i], sizeof(buf[i]), "%s/%s",
				  wc_check_tmpdir(), name),
			 (int)sizeof(buf[i]));
	return buf[i];
}

static inline void wc_check_template(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	ck_assert_int_lt(snprintf(buf, size, "%s/%s.XXXXXX",
				  tmp && *tmp ? tmp : "/tmp", name),
			 (int)size);
}

/* Gives each test of tc SECS seconds, or CK_DEFAULT_TIMEOUT's if that is
 * longer: tcase_set_timeout() alone overrides the 120 s run-tests.sh
 * gives every test so that a loaded machine is not a failing test (at a
 * load of 17 on two cores a test of 1 s took 7). */
static inline void wc_check_timeout(TCase *tc, double secs)
{
	const char *env = getenv("CK_DEFAULT_TIMEOUT");
	double d = env && *env ? strtod(env, NULL) : 0;

	tcase_set_timeout(tc, d > secs ? d : secs);
}

static inline unsigned char *wc_check_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *b;
	long n;

	ck_assert_msg(fp != NULL, "%s: cannot open", path);
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	ck_assert_int_ge(n, 0);
	rewind(fp);
	b = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	b[n] = '\0';
	if (len)
		*len = (size_t)n;
	return b;
}

#endif /* WC_CHECK_COMMON_H */
