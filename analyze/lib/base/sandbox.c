/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sandbox.c - Landlock rules (see sandbox.h).
 */
#include "base/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "base/buildinfo.h"

/* Rights by ABI version (landlock.h): 1 has EXECUTE to MAKE_SYM, 2 adds
 * REFER, 3 TRUNCATE; later ABIs add no file-system right. */
#define FS_ABI1 ((1ull << 13) - 1)
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ull << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ull << 14)
#endif

#define READ_RIGHTS (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
		     LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)

struct wc_sandbox {
	int fd;                  /* the ruleset */
	uint64_t handled;        /* rights this kernel knows */
};

int wc_sandbox_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
			 LANDLOCK_CREATE_RULESET_VERSION);

	return v > 0 ? (int)v : 0;
}

int wc_sandbox_open(struct wc_sandbox **out, struct wc_err *err)
{
	struct landlock_ruleset_attr attr;
	struct wc_sandbox *sb;
	int abi = wc_sandbox_abi();

	*out = NULL;
	if (abi <= 0)
		return 0;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return wc_err_oom(err, NULL, NULL);
	sb->handled = FS_ABI1;
	if (abi >= 2)
		sb->handled |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		sb->handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = sb->handled;
	sb->fd = (int)syscall(SYS_landlock_create_ruleset, &attr,
			      sizeof(attr.handled_access_fs), 0);
	if (sb->fd < 0) {
		int e = errno;

		free(sb);
		if (e == ENOSYS || e == EOPNOTSUPP)
			return 0;
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "Landlock: cannot make a ruleset: %s",
				  strerror(e));
	}
	*out = sb;
	return 0;
}

int wc_sandbox_allow(struct wc_sandbox *sb, const char *path,
		     enum wc_sandbox_access how, struct wc_err *err)
{
	struct landlock_path_beneath_attr pb;
	struct stat st;
	uint64_t want;
	int fd, rc = 0;

	if (!sb || !path || !*path)
		return 0;
	/* O_PATH: no read of it, no block on a FIFO; links followed, so a
	 * rule on /lib lands on /usr/lib where it points. */
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0)
		goto out_close;
	want = READ_RIGHTS;
	if (how >= WC_SANDBOX_EXEC)
		want |= LANDLOCK_ACCESS_FS_EXECUTE;
	if (how == WC_SANDBOX_WRITE)
		want = sb->handled;
	if (!S_ISDIR(st.st_mode))
		want &= FILE_RIGHTS;
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = want & sb->handled;
	pb.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, sb->fd, LANDLOCK_RULE_PATH_BENEATH,
		    &pb, 0) < 0)
		rc = wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				"Landlock: cannot allow it: %s",
				strerror(errno));
out_close:
	close(fd);
	return rc;
}

int wc_sandbox_enforce(struct wc_sandbox *sb, struct wc_err *err)
{
	if (!sb)
		return 0;
	/* Needed without CAP_SYS_ADMIN; and nothing wcanalyze runs needs
	 * to gain rights (gnuplot is no set-user-id program). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, sb->fd, 0) < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "Landlock: cannot restrict the process: %s",
				  strerror(errno));
	return 0;
}

void wc_sandbox_free(struct wc_sandbox *sb)
{
	if (!sb)
		return;
	close(sb->fd);
	free(sb);
}

/* Allows path for reading as an input: the file or folder, or for a
 * base name (NAME of NAME.blktrace.N) or one CPU's file of it (the
 * others are read too) the folder holding it. */
static int allow_input(struct wc_sandbox *sb, const char *path,
		       struct wc_err *err)
{
	char dir[PATH_MAX];
	const char *slash;

	if (!strcmp(path, "-"))
		return 0;
	slash = strrchr(path, '/');
	if (access(path, F_OK) == 0 &&
	    !strstr(slash ? slash : path, ".blktrace."))
		return wc_sandbox_allow(sb, path, WC_SANDBOX_READ, err);
	if (!slash)
		return wc_sandbox_allow(sb, ".", WC_SANDBOX_READ, err);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path + 1), path);
	return wc_sandbox_allow(sb, dir, WC_SANDBOX_READ, err);
}

/* What gnuplot, the libraries loaded late and the sanitizers read. */
static const char *const sys_read[] = {
	"/etc/ld.so.cache", "/etc/localtime", "/etc/fonts",
	"/var/cache/fontconfig", "/etc/gnuplot",
	/* The process's own folder of /proc (/proc/self points there):
	 * what it reads of itself, as LeakSanitizer's /proc/PID/task at
	 * exit; no other process's. */
	"/proc/self",
};

/* The installed data, where plot.h and whatif.h look for it. */
static int allow_data(struct wc_sandbox *sb, struct wc_err *err)
{
	static const char *const env_read[] = {
		"WCANALYZE_PLOTS", "WCANALYZE_DISKS",
	};
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	size_t i;
	ssize_t n;
	int rc = 0;

	for (i = 0; i < sizeof(env_read) / sizeof(env_read[0]) && rc == 0; i++)
		rc = wc_sandbox_allow(sb, getenv(env_read[i]), WC_SANDBOX_READ,
				      err);
	if (rc == 0)
		rc = wc_sandbox_allow(sb, wc_datadir, WC_SANDBOX_READ, err);
	if (rc == 0)
		rc = wc_sandbox_allow(sb, "plots", WC_SANDBOX_READ, err);
	if (rc == 0)
		rc = wc_sandbox_allow(sb, "capture/disks", WC_SANDBOX_READ, err);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (rc == 0 && n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(cand, sizeof(cand), "%s/../plots", exe);
			rc = wc_sandbox_allow(sb, cand, WC_SANDBOX_READ, err);
			snprintf(cand, sizeof(cand), "%s/../share/wcanalyze", exe);
			if (rc == 0)
				rc = wc_sandbox_allow(sb, cand, WC_SANDBOX_READ,
						      err);
		}
	}
	return rc;
}

int wc_sandbox_apply(const struct wc_sandbox_rules *r, struct wc_err *err)
{
	struct wc_sandbox *sb = NULL;
	const char *tmp = getenv("TMPDIR"), *gp = getenv("WCANALYZE_GNUPLOT");
	size_t i;
	int rc;

	if (wc_sandbox_open(&sb, err) < 0)
		return -1;
	if (!sb)
		return 0;
	rc = 0;
	for (i = 0; i < r->ninputs && rc == 0; i++)
		rc = allow_input(sb, r->inputs[i], err);
	for (i = 0; i < r->nfiles && rc == 0; i++)
		rc = wc_sandbox_allow(sb, r->files[i], WC_SANDBOX_READ, err);
	if (rc == 0)
		rc = wc_sandbox_allow(sb, tmp && *tmp ? tmp : "/tmp",
				      WC_SANDBOX_WRITE, err);
	if (rc == 0 && r->output)
		rc = wc_sandbox_allow(sb, r->output, WC_SANDBOX_WRITE, err);
	if (rc == 0 && r->trace && strcmp(r->trace, "-"))
		rc = wc_sandbox_allow(sb, r->trace, WC_SANDBOX_WRITE, err);
	if (rc == 0)
		rc = wc_sandbox_allow(sb, "/dev/null", WC_SANDBOX_WRITE, err);
	if (rc == 0)
		rc = wc_sandbox_allow(sb, "/usr", WC_SANDBOX_EXEC, err);
	if (rc == 0 && gp && strchr(gp, '/'))
		rc = wc_sandbox_allow(sb, gp, WC_SANDBOX_EXEC, err);
	for (i = 0; i < sizeof(sys_read) / sizeof(sys_read[0]) && rc == 0; i++)
		rc = wc_sandbox_allow(sb, sys_read[i], WC_SANDBOX_READ, err);
	if (rc == 0)
		rc = allow_data(sb, err);
	if (rc == 0)
		rc = wc_sandbox_enforce(sb, err);
	wc_sandbox_free(sb);
	return rc < 0 ? -1 : 1;
}
