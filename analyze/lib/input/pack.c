/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/pack.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/capture.h"
#include "input/inputdefs.h"
#include "input/members.h"

/* One file or folder of the capture, as the folder was read. */
struct member {
	char *name;             /* "NAME/info/uname.txt", no '/' at its end */
	uint64_t size;          /* a file's */
	bool dir;
	enum wc_member_kind kind;
};

struct pack {
	const char *dir;        /* as given, for messages */
	int top;                /* the capture folder NAME */
	const char *capname;    /* NAME */
	struct member *m;
	size_t n, cap;
	struct wc_member_rules rules;
	size_t ntrace;
};

static int add_member(struct pack *p, const char *name, const struct stat *st,
		      struct wc_err *err)
{
	struct member *m;

	if (p->n == WC_PACK_MAX_MEMBERS)
		return wc_err_set(err, WC_ERR_INPUT, p->dir, NULL, WC_NO_OFFSET,
				  "more than %u files and folders: refused",
				  WC_PACK_MAX_MEMBERS);
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;

		m = realloc(p->m, cap * sizeof(*m));
		if (!m)
			return wc_err_oom(err, p->dir, NULL);
		p->m = m;
		p->cap = cap;
	}
	m = &p->m[p->n];
	m->name = strdup(name);
	if (!m->name)
		return wc_err_oom(err, p->dir, NULL);
	m->dir = S_ISDIR(st->st_mode);
	m->size = m->dir ? 0 : (uint64_t)st->st_size;
	m->kind = WC_MEMBER_OTHER;
	p->n++;
	return 0;
}

/* Reads the folder FD, member name PREFIX, DEPTH folders below NAME,
 * into p->m: files and folders only, no link followed. */
static int read_folder(struct pack *p, int fd, const char *prefix, int depth,
		       struct wc_err *err)
{
	char name[WC_PACK_MAX_NAME];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = -1;

	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return wc_err_set(err, WC_ERR_SYSTEM, p->dir, prefix,
				  WC_NO_OFFSET, "%s", strerror(errno));
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(name, sizeof(name), "%s/%s", prefix,
				     de->d_name) >= sizeof(name)) {
			wc_err_set(err, WC_ERR_INPUT, p->dir, prefix,
				   WC_NO_OFFSET, "a name in it is %d bytes or "
				   "longer: refused", WC_PACK_MAX_NAME);
			goto close_dir;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			wc_err_set(err, WC_ERR_SYSTEM, p->dir, name,
				   WC_NO_OFFSET, "%s", strerror(errno));
			goto close_dir;
		}
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			wc_err_set(err, WC_ERR_INPUT, p->dir, name,
				   WC_NO_OFFSET, "%s: refused (a capture holds "
				   "files and folders only)",
				   S_ISLNK(st.st_mode) ? "a symbolic link" :
				   "not a regular file");
			goto close_dir;
		}
		if (add_member(p, name, &st, err) < 0)
			goto close_dir;
		if (!S_ISDIR(st.st_mode))
			continue;
		if (depth + 1 >= WC_PACK_MAX_DEPTH) {
			wc_err_set(err, WC_ERR_INPUT, p->dir, name,
				   WC_NO_OFFSET, "folders more than %d deep: "
				   "refused", WC_PACK_MAX_DEPTH);
			goto close_dir;
		}
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			wc_err_set(err, WC_ERR_SYSTEM, p->dir, name,
				   WC_NO_OFFSET, "%s", strerror(errno));
			goto close_dir;
		}
		if (read_folder(p, sub, name, depth + 1, err) < 0)
			goto close_dir;
	}
	if (errno) {
		wc_err_set(err, WC_ERR_SYSTEM, p->dir, prefix, WC_NO_OFFSET,
			   "%s", strerror(errno));
		goto close_dir;
	}
	ret = 0;
close_dir:
	closedir(d);
	return ret;
}

/* Opens member NAME ("NAME/a/b") below the capture folder, one
 * component at a time, following no link. */
static int open_member(struct pack *p, const char *name, bool dir)
{
	const char *s = name + strlen(p->capname), *slash;
	char part[WC_PACK_MAX_NAME];
	int fd = dup(p->top), next;

	while (fd >= 0 && *s == '/') {
		s++;
		slash = strchr(s, '/');
		snprintf(part, sizeof(part), "%.*s",
			 (int)(slash ? (size_t)(slash - s) : strlen(s)), s);
		next = openat(fd, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
			      (slash || dir ? O_DIRECTORY : 0));
		close(fd);
		fd = next;
		s += strlen(part);
	}
	return fd;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->name,
		      ((const struct member *)b)->name);
}

/* Trace files (pointers to them): the smallest first, names in order
 * between files of one size. */
static int by_size(const void *a, const void *b)
{
	const struct member *x = *(const struct member *const *)a;
	const struct member *y = *(const struct member *const *)b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The member called NAME/FILE, or NULL. */
static struct member *top_file(struct pack *p, const char *file)
{
	char name[WC_PACK_MAX_NAME];
	struct member key = { .name = name }, *m;

	snprintf(name, sizeof(name), "%s/%s", p->capname, file);
	m = bsearch(&key, p->m, p->n, sizeof(*m), by_name);
	return m && !m->dir ? m : NULL;
}

/* Applies the reader's rules to every file: capture.conf's first, so
 * that the capture folder is NAME. */
static int check_names(struct pack *p, struct wc_err *err)
{
	struct member *conf = top_file(p, "capture.conf");
	size_t i, baselen;
	long cpu;
	int side, kind;

	if (!conf)
		return wc_err_set(err, WC_ERR_INPUT, p->dir, "capture.conf",
				  WC_NO_OFFSET, "missing: a capture's archive "
				  "starts with it");
	if (wc_member_rules_check(&p->rules, p->dir, conf->name, &cpu,
				  &baselen, &side, err) < 0)
		return -1;
	conf->kind = WC_MEMBER_SIDE;
	for (i = 0; i < p->n; i++) {
		struct member *m = &p->m[i];

		if (m->dir || m == conf)
			continue;
		kind = wc_member_rules_check(&p->rules, p->dir, m->name, &cpu,
					     &baselen, &side, err);
		if (kind < 0)
			return -1;
		m->kind = (enum wc_member_kind)kind;
		if (kind == WC_MEMBER_SIDE && m->size > WC_CAPTURE_MAX_BYTES)
			return wc_err_set(err, WC_ERR_INPUT, p->dir, m->name,
					  WC_NO_OFFSET, "larger than %u bytes: "
					  "refused (the reader takes no more)",
					  WC_CAPTURE_MAX_BYTES);
		if (kind == WC_MEMBER_TRACE &&
		    ++p->ntrace > WC_INPUT_MAX_STREAMS)
			return wc_err_set(err, WC_ERR_INPUT, p->dir, m->name,
					  WC_NO_OFFSET, "more than %u trace "
					  "files: refused", WC_INPUT_MAX_STREAMS);
	}
	return 0;
}

/* The capture.conf line [K, END) sets trace_files (as the reader reads
 * a key: blanks around it). */
static bool is_trace_files(const char *k, const char *end)
{
	const size_t n = strlen("trace_files");

	while (k < end && (*k == ' ' || *k == '\t'))
		k++;
	if ((size_t)(end - k) < n || strncmp(k, "trace_files", n))
		return false;
	for (k += n; k < end && (*k == ' ' || *k == '\t'); k++)
		;
	return k < end && *k == '=';
}

/* capture.conf's text as packed: the folder's, without its trace_files
 * lines, and "trace_files = N" at its end. */
static int conf_text(struct pack *p, char **text, size_t *len,
		     struct wc_err *err)
{
	char *raw = NULL, *out = NULL, *line, *next;
	size_t rawlen = 0, n = 0;
	char path[WC_PACK_MAX_NAME];
	int ret = -1;

	snprintf(path, sizeof(path), "%s/capture.conf", p->dir);
	if (wc_capture_read_file(path, &raw, &rawlen, err) < 0)
		return -1;
	out = malloc(rawlen + 64);
	if (!out) {
		wc_err_oom(err, p->dir, "capture.conf");
		goto free_raw;
	}
	for (line = raw; line < raw + rawlen; line = next) {
		next = memchr(line, '\n', (size_t)(raw + rawlen - line));
		next = next ? next + 1 : raw + rawlen;
		if (is_trace_files(line, next))
			continue;
		memcpy(out + n, line, (size_t)(next - line));
		n += (size_t)(next - line);
	}
	if (n && out[n - 1] != '\n')
		out[n++] = '\n';
	n += (size_t)snprintf(out + n, 64, "trace_files = %zu\n", p->ntrace);
	if (n > WC_CAPTURE_MAX_BYTES) {
		wc_err_set(err, WC_ERR_INPUT, p->dir, "capture.conf",
			   WC_NO_OFFSET, "larger than %u bytes with trace_files: "
			   "refused", WC_CAPTURE_MAX_BYTES);
		goto free_out;
	}
	*text = out;
	*len = n;
	out = NULL;
	ret = 0;
free_out:
	free(out);
free_raw:
	free(raw);
	return ret;
}

static int ar_fail(struct pack *p, struct archive *a, const char *name,
		   struct wc_err *err)
{
	const char *why = archive_error_string(a);

	return wc_err_set(err, WC_ERR_SYSTEM, p->dir, name, WC_NO_OFFSET,
			  "writing the archive: %s", why ? why : "failed");
}

/* Writes member M (TEXT, when not NULL, its bytes instead of the file's). */
static int write_member(struct pack *p, struct archive *a,
			const struct member *m, const char *text, size_t len,
			unsigned char *buf, size_t bufsize, struct wc_err *err)
{
	char name[WC_PACK_MAX_NAME + 1];
	struct archive_entry *e = NULL;
	uint64_t done = 0, size = text ? len : m->size;
	struct stat st;
	int fd, ret = -1;
	ssize_t n;

	fd = open_member(p, m->name, m->dir);
	if (fd < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, p->dir, m->name,
				  WC_NO_OFFSET, "%s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		wc_err_set(err, WC_ERR_SYSTEM, p->dir, m->name, WC_NO_OFFSET,
			   "%s", strerror(errno));
		goto close_fd;
	}
	if (!!S_ISDIR(st.st_mode) != m->dir ||
	    (!m->dir && !S_ISREG(st.st_mode))) {
		wc_err_set(err, WC_ERR_INPUT, p->dir, m->name, WC_NO_OFFSET,
			   "changed while it was packed");
		goto close_fd;
	}
	e = archive_entry_new();
	if (!e) {
		wc_err_oom(err, p->dir, m->name);
		goto close_fd;
	}
	snprintf(name, sizeof(name), "%s%s", m->name, m->dir ? "/" : "");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, m->dir ? AE_IFDIR : AE_IFREG);
	archive_entry_set_perm(e, st.st_mode & 07777);
	archive_entry_set_uid(e, st.st_uid);
	archive_entry_set_gid(e, st.st_gid);
	archive_entry_set_mtime(e, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	archive_entry_set_size(e, (la_int64_t)size);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		ar_fail(p, a, m->name, err);
		goto free_entry;
	}
	if (text && archive_write_data(a, text, len) != (la_ssize_t)len) {
		ar_fail(p, a, m->name, err);
		goto free_entry;
	}
	while (!text && done < size) {
		size_t want = size - done < bufsize ? (size_t)(size - done) : bufsize;

		n = read(fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			wc_err_set(err, n < 0 ? WC_ERR_SYSTEM : WC_ERR_INPUT,
				   p->dir, m->name, done, "%s",
				   n < 0 ? strerror(errno) :
				   "the file ends here: it shrank while it was "
				   "packed");
			goto free_entry;
		}
		if (archive_write_data(a, buf, (size_t)n) != n) {
			ar_fail(p, a, m->name, err);
			goto free_entry;
		}
		done += (uint64_t)n;
	}
	ret = 0;
free_entry:
	archive_entry_free(e);
close_fd:
	close(fd);
	return ret;
}

/* Writes the members in the reader's order (pack.h): CONF is
 * capture.conf's text. */
static int write_archive(struct pack *p, int out, const char *conf,
			 size_t conflen, struct wc_err *err)
{
	const size_t bufsize = 64u * 1024u;
	struct member top = { .name = (char *)p->capname, .dir = true };
	struct member *side[3], **order = NULL;
	unsigned char *buf = NULL;
	struct archive *a = NULL;
	size_t i, j, k = 0, t;
	int ret = -1;

	side[0] = top_file(p, "capture.conf");
	side[1] = top_file(p, "phases.tsv");
	side[2] = top_file(p, "counters.tsv");
	order = malloc((p->n + 1) * sizeof(*order));
	buf = malloc(bufsize);
	a = archive_write_new();
	if (!order || !buf || !a) {
		wc_err_oom(err, p->dir, NULL);
		goto free_all;
	}
	order[k++] = &top;
	for (j = 0; j < 3; j++)
		if (side[j])
			order[k++] = side[j];
	t = k;
	for (i = 0; i < p->n; i++)
		if (p->m[i].kind == WC_MEMBER_TRACE)
			order[k++] = &p->m[i];
	qsort(order + t, k - t, sizeof(*order), by_size);
	for (i = 0; i < p->n; i++) {
		if (p->m[i].kind == WC_MEMBER_TRACE)
			continue;
		for (j = 0; j < 3 && side[j] != &p->m[i]; j++)
			;
		if (j == 3)
			order[k++] = &p->m[i];
	}
	if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open_fd(a, out) != ARCHIVE_OK) {
		ar_fail(p, a, NULL, err);
		goto free_all;
	}
	for (i = 0; i < k; i++)
		if (write_member(p, a, order[i], order[i] == side[0] ? conf : NULL,
				 conflen, buf, bufsize, err) < 0)
			goto free_all;
	if (archive_write_close(a) != ARCHIVE_OK) {
		ar_fail(p, a, NULL, err);
		goto free_all;
	}
	ret = 0;
free_all:
	archive_write_free(a);
	free(buf);
	free(order);
	return ret;
}

int wc_pack_capture(const char *dir, int fd, struct wc_err *err)
{
	struct pack p = { .dir = dir, .top = -1 };
	char *conf = NULL, *name = NULL, *s;
	size_t conflen = 0, i;
	int sub, ret = -1;

	name = strdup(dir);
	if (!name)
		return wc_err_oom(err, dir, NULL);
	for (s = name + strlen(name); s > name + 1 && s[-1] == '/'; s--)
		s[-1] = '\0';
	s = strrchr(name, '/');
	p.capname = s ? s + 1 : name;
	if (!*p.capname || !strcmp(p.capname, ".") || !strcmp(p.capname, "..")) {
		wc_err_set(err, WC_ERR_USAGE, dir, NULL, WC_NO_OFFSET,
			   "no capture folder's name: give the folder NAME");
		goto free_name;
	}
	p.top = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p.top < 0) {
		struct stat st;
		int e = errno;

		if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
			wc_err_set(err, WC_ERR_INPUT, dir, NULL, WC_NO_OFFSET,
				   "a symbolic link: not followed");
		else
			wc_err_set(err, e == ENOTDIR ? WC_ERR_INPUT :
				   WC_ERR_SYSTEM, dir, NULL, WC_NO_OFFSET,
				   "%s", strerror(e));
		goto free_name;
	}
	sub = dup(p.top);
	if (sub < 0) {
		wc_err_set(err, WC_ERR_SYSTEM, dir, NULL, WC_NO_OFFSET, "%s",
			   strerror(errno));
		goto close_top;
	}
	if (read_folder(&p, sub, p.capname, 0, err) < 0)
		goto free_members;
	qsort(p.m, p.n, sizeof(*p.m), by_name);
	if (check_names(&p, err) < 0 || conf_text(&p, &conf, &conflen, err) < 0)
		goto free_members;
	ret = write_archive(&p, fd, conf, conflen, err);
free_members:
	for (i = 0; i < p.n; i++)
		free(p.m[i].name);
	free(p.m);
	free(conf);
	wc_member_rules_free(&p.rules);
close_top:
	close(p.top);
free_name:
	free(name);
	return ret;
}
