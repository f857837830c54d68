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

/*
 * wcanalyze's rules (docs/security.md), in one place so that a test
 * (tests/sandbox_escape.c) holds exactly what wcanalyze holds.  A run
 * names its inputs, the user's own files and its output; the rest is
 * fixed.  Reading: the inputs (a file or folder as named; for a base
 * name DIR/NAME or one CPU file DIR/NAME.blktrace.N, the folder DIR;
 * "-" is standard input, open already), files, the installed data
 * wherever plot.h and whatif.h look for it (WC_DATADIR,
 * WCANALYZE_PLOTS, WCANALYZE_DISKS, ./plots, ./capture/disks, the
 * executable's ../plots and ../share/wcanalyze), /usr, a few system
 * files, the process's own /proc/self, and TMPDIR (or /tmp).
 * Executing: /usr and WCANALYZE_GNUPLOT.  Writing: output, trace (not
 * "-"), TMPDIR and /dev/null.
 */
struct wc_sandbox_rules {
	const char *const *inputs;  /* the inputs as named */
	size_t ninputs;
	const char *const *files;   /* the user's own files (--what-if
	                             * disk=PATH), read */
	size_t nfiles;
	const char *output;         /* the bundle's folder, or NULL */
	const char *trace;          /* the timeline's file, NULL or "-" */
};

/* Restricts the process to r's rules: 1 when they hold, 0 where the
 * kernel has no Landlock (nothing restricted), -1 with err. */
int wc_sandbox_apply(const struct wc_sandbox_rules *r, struct wc_err *err);

#endif /* WC_SANDBOX_H */
