/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sandbox.h - least privilege for a process about to read a stranger's
 * input: Linux's Landlock (since 5.13; Documentation/userspace-api/
 * landlock.rst), as OpenBSD's kdump calls unveil() before it reads a
 * trace.  Once on, the process and everything it runs (gnuplot) may
 * open, read, write, create and execute under the paths named only, as
 * each was allowed; the kernel refuses the rest with EACCES.
 *
 *     struct wc_sandbox *sb = NULL;
 *     if (wc_sandbox_open(&sb, &err) < 0) goto fail;   // NULL sb: no
 *     wc_sandbox_allow(sb, input, WC_SANDBOX_READ);    //   Landlock here
 *     wc_sandbox_allow(sb, outdir, WC_SANDBOX_WRITE);
 *     wc_sandbox_allow(sb, "/usr", WC_SANDBOX_EXEC);
 *     if (wc_sandbox_enforce(sb, &err) < 0) goto fail;
 *     wc_sandbox_free(sb);
 *
 * What always holds: wc_sandbox_open() succeeds with *out NULL when the
 * kernel has no Landlock (ENOSYS, EOPNOTSUPP: too old, or not in its
 * LSM list), and every other call then does nothing and succeeds, so
 * that the caller goes on as before and says so (wc_sandbox_abi() is 0);
 * a path that does not exist is skipped (nothing can be read there
 * anyway); a file is allowed what a file can be (read, write,
 * execute), a folder everything under it.  Already open descriptors
 * (standard input and output) are not affected: Landlock checks opens.
 * Rights Landlock's ABI on this kernel does not know are left out of
 * the ruleset (so they stay allowed): with ABI 1, renames between
 * folders (REFER) and truncation are not restricted.  The library never
 * prints; wc_sandbox_free(NULL) is fine.
 */
#ifndef WC_SANDBOX_H
#define WC_SANDBOX_H

#include "base/wcerr.h"

enum wc_sandbox_access {
	WC_SANDBOX_READ,        /* read files, list folders */
	WC_SANDBOX_EXEC,        /* and execute */
	WC_SANDBOX_WRITE,       /* and create, write, remove, rename within */
};

struct wc_sandbox;

/* Landlock's ABI version on this kernel, 0 without Landlock. */
int wc_sandbox_abi(void);

int wc_sandbox_open(struct wc_sandbox **out, struct wc_err *err);
/* -1 with err (naming path) when the kernel refuses the rule. */
int wc_sandbox_allow(struct wc_sandbox *sb, const char *path,
		     enum wc_sandbox_access how, struct wc_err *err);
/* Restricts this thread (call it before starting others: threads made
 * later inherit it) and its children from now on: no way back. */
int wc_sandbox_enforce(struct wc_sandbox *sb, struct wc_err *err);
void wc_sandbox_free(struct wc_sandbox *sb);

#endif /* WC_SANDBOX_H */
