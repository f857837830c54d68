/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outdir.h - an output folder written without following links: the
 * bundle's folder and its capture folders (bundle.h, docs/security.md).
 *
 *     struct wc_outdir *d = NULL;
 *     FILE *f;
 *
 *     if (wc_outdir_open(&d, "report-dir", &err) < 0)
 *             goto fail;
 *     if (wc_outdir_mkdir(d, "xfs", &err) < 0)
 *             goto fail;
 *     f = wc_outdir_create(d, "xfs/timeline.dat", &err);
 *     if (!f)
 *             goto fail;
 *     fprintf(f, ...);
 *     if (wc_outdir_commit(d, f, "xfs/timeline.dat", &err) < 0)
 *             goto fail;
 *     wc_outdir_free(d);
 *
 * A file name rel is "FILE" or "FOLDER/FILE", one level deep.
 *
 * What always holds:
 *  - a file is written under a fresh name in its folder (O_EXCL and
 *    O_NOFOLLOW, a random name) and wc_outdir_commit() renames it over
 *    its own name, so that a link planted there is replaced, never
 *    written through; a folder that is a symbolic link is refused
 *    (WC_ERR_USAGE, "a symbolic link where a folder of the bundle goes:
 *    refused"), as is one that is no folder ("not a folder: refused");
 *  - at most WC_OUTDIR_MAX_OPEN files are open at once (WC_ERR_USAGE
 *    beyond); wc_outdir_discard() and wc_outdir_free() remove the fresh
 *    files of those not committed, nothing half written is left behind;
 *  - the folder is created if needed (its parent must exist); nothing
 *    outside it is written;
 *  - every file committed and folder made is noted (wc_outdir_note() adds
 *    those written another way); wc_outdir_sweep() writes that list into
 *    the folder and removes what the previous run's list names and this
 *    run did not write again: only names of that list, only inside the
 *    folder, never through a link, a folder only when it is empty;
 *  - wc_outdir_free(NULL) is fine.
 */
#ifndef WC_OUTDIR_H
#define WC_OUTDIR_H

#include <stdio.h>

#include "base/wcerr.h"

/* Files open at once (the bundle needs two: gnuplot.log while a script
 * is written). */
#define WC_OUTDIR_MAX_OPEN 4
/* The longest name of a folder in it, as wc_outdir_safe_name() makes. */
#define WC_OUTDIR_NAME_MAX 64

struct wc_outdir;

/* Creates the folder dir if needed and opens it, refusing a link. */
int wc_outdir_open(struct wc_outdir **out, const char *dir,
		   struct wc_err *err);

/* The folder as given to wc_outdir_open(). */
const char *wc_outdir_path(const struct wc_outdir *d);

/* Creates the folder sub inside (used again when it is there), refusing
 * a link in its place. */
int wc_outdir_mkdir(struct wc_outdir *d, const char *sub, struct wc_err *err);

/* A new fd of the folder that holds rel, a link refused; *leaf is rel's
 * last part.  -1 on failure.  The caller closes it. */
int wc_outdir_folder(const struct wc_outdir *d, const char *rel,
		     const char **leaf, struct wc_err *err);

/* Opens rel for writing (under a fresh name until committed). */
FILE *wc_outdir_create(struct wc_outdir *d, const char *rel,
		       struct wc_err *err);

/* Closes f (from wc_outdir_create() of the same rel) and renames it over
 * rel; an error when anything written failed. */
int wc_outdir_commit(struct wc_outdir *d, FILE *f, const char *rel,
		     struct wc_err *err);

/* As wc_outdir_commit(), but the file goes to rel, which may be in
 * another folder of d than the one f was created for (made already): a
 * file whose folder is known only once it is written (a timeline, named
 * after the capture it holds).  On failure f is removed. */
int wc_outdir_commit_as(struct wc_outdir *d, FILE *f, const char *rel,
			struct wc_err *err);

/* Closes f and removes what was written: rel is left as it was. */
void wc_outdir_discard(struct wc_outdir *d, FILE *f);

/* Notes rel ("FILE", "FOLDER/FILE") as written by this run although it
 * was not committed here (gnuplot's figures, renamed in). */
void wc_outdir_note(struct wc_outdir *d, const char *rel);

/* After the run: removes the files (then the emptied folders) that the
 * previous run's list, the file `list`, names and this run did not
 * write, and writes this run's list there. */
int wc_outdir_sweep(struct wc_outdir *d, const char *list, struct wc_err *err);

/* Removes the file rel, when it is there. */
void wc_outdir_remove(struct wc_outdir *d, const char *rel);

/* Takes back what this run wrote in the folder sub ("FOLDER"): removes
 * every file noted there (committed, or noted by wc_outdir_note()), then
 * the folder when that leaves it empty, and drops them from the list
 * wc_outdir_sweep() writes.  A file this run did not write stays. */
void wc_outdir_forget(struct wc_outdir *d, const char *sub);

/* Reads the whole file rel into *out (to be freed), not through a link;
 * with d NULL, rel is a path of the system read as it is (templates). */
int wc_outdir_read(const struct wc_outdir *d, const char *rel, char **out,
		   struct wc_err *err);

/* A name no one can have guessed (".PREFIX-" and 16 hex digits), for a
 * private file or folder. */
void wc_outdir_fresh_name(char *buf, size_t size, const char *prefix);

/* A name of the input made a folder or file name: letters, digits, '.',
 * '_' and '-' only, no leading '.', at most WC_OUTDIR_NAME_MAX bytes,
 * "capture" when nothing is left. */
void wc_outdir_safe_name(const char *in, char *out, size_t size);

void wc_outdir_free(struct wc_outdir *d);

#endif /* WC_OUTDIR_H */
