/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outdir.c - an output folder written without following links (see
 * outdir.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "out/outdir.h"

/* Tries at a fresh temporary name before giving up. */
#define TMP_TRIES 32

struct wc_outdir {
	char *dir;
	int dirfd;
	/* What this run wrote ("FILE", "FOLDER/FILE", "FOLDER/"), for
	 * wc_outdir_sweep(); sorted there. */
	char **written;
	size_t nwritten, capwritten;
	bool note_failed;
	struct pending {                 /* files written, not yet renamed */
		FILE *f;
		int dfd;                 /* the folder it goes in */
		char tmp[32], leaf[WC_OUTDIR_NAME_MAX + 32];
	} pend[WC_OUTDIR_MAX_OPEN];
};

static int sys_err(struct wc_err *err, const char *file, const char *what)
{
	return wc_err_set(err, WC_ERR_SYSTEM, file, NULL, WC_NO_OFFSET,
			  "%s: %s", what, strerror(errno));
}

void wc_outdir_safe_name(const char *in, char *out, size_t size)
{
	size_t i = 0;

	for (; in && *in && i + 1 < size && i < WC_OUTDIR_NAME_MAX; in++) {
		char c = *in;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			c = '_';
		if (i == 0 && c == '.')
			c = '_';
		out[i++] = c;
	}
	if (i == 0 && size > 8) {
		strcpy(out, "capture");
		return;
	}
	out[i] = '\0';
}

/* d's path and rel, for messages; rel alone when too long. */
static void path_of(const struct wc_outdir *d, const char *rel, char *buf,
		    size_t size)
{
	int n = snprintf(buf, size, "%s/%s", d->dir, rel);

	if (n < 0 || (size_t)n >= size)
		snprintf(buf, size, "%s", rel);
}

/* The error for a folder that cannot be used as one (e is the errno of
 * opening it with O_DIRECTORY | O_NOFOLLOW, which says ENOTDIR for a
 * link as for a file: lstat() tells them apart). */
static int refuse_dir(struct wc_err *err, const char *path, int e)
{
	char p[PATH_MAX];
	struct stat st;
	size_t n;

	snprintf(p, sizeof(p), "%s", path);
	for (n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
		p[n - 1] = '\0';
	if (e == ELOOP || (e == ENOTDIR && lstat(p, &st) == 0 && S_ISLNK(st.st_mode)))
		return wc_err_set(err, WC_ERR_USAGE, path, NULL, WC_NO_OFFSET,
				  "a symbolic link where a folder of the bundle "
				  "goes: refused");
	if (e == ENOTDIR)
		return wc_err_set(err, WC_ERR_USAGE, path, NULL, WC_NO_OFFSET,
				  "not a folder: refused");
	errno = e;
	return sys_err(err, path, "cannot open folder");
}

int wc_outdir_open(struct wc_outdir **out, const char *dir,
		   struct wc_err *err)
{
	struct wc_outdir *d;
	char path[PATH_MAX];
	size_t n;
	int len;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->dir = strdup(dir))) {
		free(d);
		return wc_err_oom(err, NULL, NULL);
	}
	d->dirfd = -1;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		sys_err(err, dir, "cannot create folder");
		goto fail_free;
	}
	/* "DIR/" would follow a link named DIR, which O_NOFOLLOW is here to
	 * refuse: someone else may have made it (in /tmp, say). */
	len = snprintf(path, sizeof(path), "%s", dir);
	if (len < 0 || (size_t)len >= sizeof(path)) {
		wc_err_set(err, WC_ERR_USAGE, dir, NULL, WC_NO_OFFSET,
			   "path too long");
		goto fail_free;
	}
	for (n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
		path[n - 1] = '\0';
	d->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->dirfd < 0) {
		refuse_dir(err, dir, errno);
		goto fail_free;
	}
	*out = d;
	return 0;

fail_free:
	wc_outdir_free(d);
	return -1;
}

const char *wc_outdir_path(const struct wc_outdir *d)
{
	return d->dir;
}

void wc_outdir_note(struct wc_outdir *d, const char *rel)
{
	char **w;

	if (d->nwritten == d->capwritten) {
		size_t n = d->capwritten ? 2 * d->capwritten : 64;

		w = realloc(d->written, n * sizeof(*w));
		if (!w) {
			d->note_failed = true;
			return;
		}
		d->written = w;
		d->capwritten = n;
	}
	if (!(d->written[d->nwritten] = strdup(rel)))
		d->note_failed = true;
	else
		d->nwritten++;
}

int wc_outdir_mkdir(struct wc_outdir *d, const char *sub, struct wc_err *err)
{
	char path[PATH_MAX], note[WC_OUTDIR_NAME_MAX + 34];
	int fd;

	path_of(d, sub, path, sizeof(path));
	/* A folder left by an earlier run is used again; a link in its
	 * place is refused. */
	if (mkdirat(d->dirfd, sub, 0777) < 0 && errno != EEXIST)
		return sys_err(err, path, "cannot create folder");
	fd = openat(d->dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return refuse_dir(err, path, errno);
	close(fd);
	snprintf(note, sizeof(note), "%s/", sub);
	wc_outdir_note(d, note);
	return 0;
}

int wc_outdir_folder(const struct wc_outdir *d, const char *rel,
		     const char **leaf, struct wc_err *err)
{
	const char *slash = strchr(rel, '/');
	char sub[WC_OUTDIR_NAME_MAX + 32], path[PATH_MAX];
	int fd;

	*leaf = slash ? slash + 1 : rel;
	if (!slash) {
		fd = fcntl(d->dirfd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			sys_err(err, d->dir, "cannot open folder");
		return fd;
	}
	if ((size_t)(slash - rel) >= sizeof(sub) || strchr(slash + 1, '/')) {
		wc_err_set(err, WC_ERR_USAGE, rel, NULL, WC_NO_OFFSET,
			   "bundle: bad file name");
		return -1;
	}
	memcpy(sub, rel, (size_t)(slash - rel));
	sub[slash - rel] = '\0';
	fd = openat(d->dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		path_of(d, sub, path, sizeof(path));
		refuse_dir(err, path, e);
	}
	return fd;
}

void wc_outdir_fresh_name(char *buf, size_t size, const char *prefix)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)buf ^
		     (uint64_t)rand();
	snprintf(buf, size, ".%s-%016llx", prefix, (unsigned long long)r);
}

/* A fresh file in dfd: O_EXCL and O_NOFOLLOW on a name not used before,
 * so that nothing planted there is written through.  Its name goes into
 * tmp. */
static int create_fresh(int dfd, char *tmp, size_t size)
{
	int i, fd = -1;

	for (i = 0; i < TMP_TRIES && fd < 0; i++) {
		wc_outdir_fresh_name(tmp, size, "wc");
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

FILE *wc_outdir_create(struct wc_outdir *d, const char *rel,
		       struct wc_err *err)
{
	struct pending *p = NULL;
	char path[PATH_MAX];
	const char *leaf;
	size_t i;
	int fd;

	for (i = 0; i < WC_OUTDIR_MAX_OPEN && !p; i++)
		if (!d->pend[i].f)
			p = &d->pend[i];
	if (!p || strlen(rel) >= sizeof(p->leaf)) {
		wc_err_set(err, WC_ERR_USAGE, rel, NULL, WC_NO_OFFSET,
			   "bundle: too many files open");
		return NULL;
	}
	p->dfd = wc_outdir_folder(d, rel, &leaf, err);
	if (p->dfd < 0)
		return NULL;
	snprintf(p->leaf, sizeof(p->leaf), "%s", leaf);
	fd = create_fresh(p->dfd, p->tmp, sizeof(p->tmp));
	if (fd < 0)
		goto fail_dfd;
	p->f = fdopen(fd, "w");
	if (!p->f) {
		close(fd);
		unlinkat(p->dfd, p->tmp, 0);
		goto fail_dfd;
	}
	return p->f;

fail_dfd:
	path_of(d, rel, path, sizeof(path));
	sys_err(err, path, "cannot create");
	close(p->dfd);
	return NULL;
}

static struct pending *pending_of(struct wc_outdir *d, const FILE *f)
{
	size_t i;

	for (i = 0; f && i < WC_OUTDIR_MAX_OPEN; i++)
		if (d->pend[i].f == f)
			return &d->pend[i];
	return NULL;
}

/* Closes f and renames it to leaf in the folder tdfd (rel for messages). */
static int commit_in(struct wc_outdir *d, FILE *f, int tdfd, const char *leaf,
		     const char *rel, struct wc_err *err)
{
	struct pending *p = pending_of(d, f);
	char path[PATH_MAX];
	bool bad = ferror(f) != 0;
	const char *what = "write failed";
	int r = 0;

	if (fclose(f) != 0)
		bad = true;
	if (!p)
		return wc_err_set(err, WC_ERR_USAGE, rel, NULL, WC_NO_OFFSET,
				  "bundle: file not opened by wc_outdir_create");
	if (!bad && renameat(p->dfd, p->tmp, tdfd < 0 ? p->dfd : tdfd,
			     tdfd < 0 ? p->leaf : leaf) < 0) {
		bad = true;
		what = "cannot replace";
	}
	if (bad) {
		int e = errno;

		unlinkat(p->dfd, p->tmp, 0);
		path_of(d, rel, path, sizeof(path));
		errno = e;
		r = sys_err(err, path, what);
	}
	close(p->dfd);
	p->f = NULL;
	if (r == 0)
		wc_outdir_note(d, rel);
	return r;
}

int wc_outdir_commit(struct wc_outdir *d, FILE *f, const char *rel,
		     struct wc_err *err)
{
	return commit_in(d, f, -1, NULL, rel, err);
}

int wc_outdir_commit_as(struct wc_outdir *d, FILE *f, const char *rel,
			struct wc_err *err)
{
	const char *leaf;
	int fd = wc_outdir_folder(d, rel, &leaf, err), r;

	if (fd < 0) {
		wc_outdir_discard(d, f);
		return -1;
	}
	r = commit_in(d, f, fd, leaf, rel, err);
	close(fd);
	return r;
}

static void drop(struct pending *p)
{
	fclose(p->f);
	unlinkat(p->dfd, p->tmp, 0);
	close(p->dfd);
	p->f = NULL;
}

void wc_outdir_discard(struct wc_outdir *d, FILE *f)
{
	struct pending *p = pending_of(d, f);

	if (p)
		drop(p);
}

void wc_outdir_remove(struct wc_outdir *d, const char *rel)
{
	const char *leaf;
	int fd = wc_outdir_folder(d, rel, &leaf, NULL);

	if (fd < 0)
		return;
	unlinkat(fd, leaf, 0);
	close(fd);
}

void wc_outdir_forget(struct wc_outdir *d, const char *sub)
{
	size_t i, k = 0, n = strlen(sub);
	bool folder = false;

	for (i = 0; i < d->nwritten; i++) {
		char *w = d->written[i];

		if (strncmp(w, sub, n) || w[n] != '/') {
			d->written[k++] = w;
			continue;
		}
		if (w[n + 1])
			wc_outdir_remove(d, w);
		else
			folder = true;
		free(w);
	}
	d->nwritten = k;
	/* Only when empty: a file of the user's keeps its folder. */
	if (folder)
		unlinkat(d->dirfd, sub, AT_REMOVEDIR);
}

int wc_outdir_read(const struct wc_outdir *d, const char *rel, char **out,
		   struct wc_err *err)
{
	char path[PATH_MAX];
	const char *leaf = rel;
	int dfd = AT_FDCWD, fd;
	FILE *f, *m;
	char *buf = NULL;
	size_t len = 0;
	int c, r = -1;

	*out = NULL;
	if (d) {
		path_of(d, rel, path, sizeof(path));
		dfd = wc_outdir_folder(d, rel, &leaf, err);
		if (dfd < 0)
			return -1;
	} else {
		snprintf(path, sizeof(path), "%s", rel);
	}
	fd = openat(dfd, leaf, O_RDONLY | O_CLOEXEC | (d ? O_NOFOLLOW : 0));
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f) {
		if (fd >= 0)
			close(fd);
		sys_err(err, path, "cannot open");
		goto out_dfd;
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		wc_err_oom(err, NULL, NULL);
		goto out_file;
	}
	while ((c = getc(f)) != EOF)
		putc(c, m);
	if (ferror(f)) {
		fclose(m);
		free(buf);
		sys_err(err, path, "read failed");
		goto out_file;
	}
	if (fclose(m) != 0) {
		free(buf);
		wc_err_oom(err, NULL, NULL);
		goto out_file;
	}
	*out = buf;
	r = 0;

out_file:
	fclose(f);
out_dfd:
	if (d)
		close(dfd);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A line of a previous list is only ever "FILE", "FOLDER/FILE" or
 * "FOLDER/" of safe names (outdir.h): whatever else a list holds (it is
 * a file in the folder, anyone may have edited it) is passed over. */
static bool listed_name_ok(const char *rel)
{
	const char *c;
	int slashes = 0;
	size_t part = 0;

	if (!*rel)
		return false;
	for (c = rel; *c; c++) {
		if (*c == '/') {
			if (part == 0 || ++slashes > 1)
				return false;
			part = 0;
			continue;
		}
		if (part == 0 && *c == '.')
			return false;
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' ||
		      *c == '-') || ++part > WC_OUTDIR_NAME_MAX + 16)
			return false;
	}
	return true;
}

/* Removes rel of a previous list when this run did not write it: a file
 * (never through a link: the link itself goes), or a folder when it is
 * empty. */
static void sweep_one(struct wc_outdir *d, char *rel)
{
	size_t n = strlen(rel);
	char *key = rel;
	const char *leaf;
	int fd;

	if (!listed_name_ok(rel) ||
	    bsearch(&key, d->written, d->nwritten, sizeof(*d->written), cmp_str))
		return;
	if (rel[n - 1] == '/') {
		rel[n - 1] = '\0';
		unlinkat(d->dirfd, rel, AT_REMOVEDIR);   /* only when empty */
		rel[n - 1] = '/';
		return;
	}
	fd = wc_outdir_folder(d, rel, &leaf, NULL);
	if (fd < 0)
		return;
	unlinkat(fd, leaf, 0);
	close(fd);
}

int wc_outdir_sweep(struct wc_outdir *d, const char *list, struct wc_err *err)
{
	char *prev = NULL, *line, *next;
	struct wc_err ignore;
	size_t i;
	FILE *f;
	int pass;

	if (d->note_failed)
		return wc_err_oom(err, NULL, NULL);
	wc_err_clear(&ignore);
	qsort(d->written, d->nwritten, sizeof(*d->written), cmp_str);
	/* No list: a first run, or a folder that was never a bundle;
	 * nothing in it is ours to remove. */
	if (wc_outdir_read(d, list, &prev, &ignore) == 0) {
		/* Files first, then the folders they emptied. */
		for (pass = 0; pass < 2; pass++) {
			for (line = prev; line && *line; line = next) {
				size_t n;

				next = strchr(line, '\n');
				if (next)
					*next = '\0';
				n = strlen(line);
				if (n && (line[n - 1] == '/') == (pass == 1))
					sweep_one(d, line);
				if (next)
					*next++ = '\n';
			}
		}
		free(prev);
	}
	f = wc_outdir_create(d, list, err);
	if (!f)
		return -1;
	for (i = 0; i < d->nwritten; i++)
		if (strcmp(d->written[i], list) &&
		    (i == 0 || strcmp(d->written[i], d->written[i - 1])))
			fprintf(f, "%s\n", d->written[i]);
	return wc_outdir_commit(d, f, list, err);
}

void wc_outdir_free(struct wc_outdir *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nwritten; i++)
		free(d->written[i]);
	free(d->written);
	for (i = 0; i < WC_OUTDIR_MAX_OPEN; i++)
		if (d->pend[i].f)
			drop(&d->pend[i]);
	if (d->dirfd >= 0)
		close(d->dirfd);
	free(d->dir);
	free(d);
}
