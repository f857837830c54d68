/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/input.h"
#include "input/input_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/blknames.h"
#include "input/capture.h"
#include "input/json.h"
#include "input/members.h"
#include "input/merge.h"
#include "input/reorder.h"
#include "input/recfilter.h"
#include "input/streams.h"

struct wc_input {
	char *path;
	struct wc_input_limits lim;
	uint64_t last_time;     /* of the event handed out last */
	uint64_t backwards;     /* events earlier than the one before */
	struct wc_streams *streams;
	struct wc_members *members;   /* an archive's, or NULL */
	bool folder;                  /* path is a capture folder */
	char *name;
	enum wc_streams_kind kind;
	struct wc_merge *merge;
	struct wc_reorder *reorder;
	struct wc_capture *capture;
	struct wc_recfilter *filter;  /* process names, sequence gaps */
	struct wc_blknames *names;    /* names as blkparse gives them */
	bool names_oom;         /* ... had no memory for their scouts: said
				 * by the next batch */
	int failed;
	/* wc_input_open_any()'s: where a summary's descriptor goes */
	int *summary_fd;
	/* wc_input_open_fd_any()'s descriptor of the path, until the peek
	 * takes it; else -1 */
	int given_fd;
	/* The archive's descriptor the shortcut's member reader reads on
	 * (members.h), closed after the streams; else -1. */
	int archive_fd;
	/* lim.files of a capture folder (an archive's: members) */
	char *ftext[WC_INPUT_MAX_FILES];
	size_t flen[WC_INPUT_MAX_FILES];
};

/* A batch of the input is one of the merge's or of the window's. */
_Static_assert(WC_INPUT_BATCH <= WC_MERGE_BATCH &&
	       WC_INPUT_BATCH <= WC_REORDER_BATCH, "batch sizes");

/* ---- capture.conf, phases.tsv and counters.tsv ------------------------ */

static int load_side_files(struct wc_input *in, const char *dir,
			   struct wc_err *err)
{
	const char *const *f;
	char path[4096];
	size_t len;
	char *text;

	for (f = wc_capture_side_files; *f; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *f);
		if (wc_capture_read_file(path, &text, &len, err) < 0)
			return -1;
		if (text)
			wc_capture_parse_side(in->capture, *f, text, len, path);
		free(text);
	}
	return 0;
}

/* ---- resolving a path ------------------------------------------------- */

/* Adds DIR/BASE.blktrace.N for every N (all of them when base is NULL). */
static int scan_dir(struct wc_input *in, const char *dir, const char *base,
		    struct wc_err *err)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d)
		return wc_err_set(err, WC_ERR_INPUT, in->path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	while ((de = readdir(d)) != NULL) {
		char path[4096], dev[4096];
		size_t baselen;
		long cpu = wc_streams_name_cpu(de->d_name, &baselen);
		struct stat st;

		if (cpu == WC_STREAMS_NOT_TRACE)
			continue;
		if (base && (strlen(base) != baselen ||
			     strncmp(de->d_name, base, baselen) != 0))
			continue;
		/* "NAME" in the current directory names its files plainly. */
		if (strcmp(dir, ".") == 0 && !strchr(in->path, '/'))
			snprintf(path, sizeof(path), "%s", de->d_name);
		else
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (cpu == WC_STREAMS_CPU_BAD) {
			r = wc_streams_cpu_bad(path, NULL, err);
			break;
		}
		/* A folder may come from a stranger's archive: a link in it
		 * could point at any file the user may read (and a bad
		 * trace's message would show its first bytes).  Said, not
		 * followed; the streams open them with O_NOFOLLOW too, for a
		 * link put there after this look. */
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
			r = wc_err_set(err, WC_ERR_INPUT, path, NULL,
				       WC_NO_OFFSET,
				       "a symbolic link: not followed");
			break;
		}
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		snprintf(dev, sizeof(dev), "%.*s", (int)baselen, de->d_name);
		r = wc_streams_add(in->streams, path, dev, (uint32_t)cpu, err);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

/* What the first bytes of a file hold. */
enum peeked { PEEK_OTHER, PEEK_MAGIC, PEEK_EMPTY, PEEK_SUMMARY };

static bool json_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Peeks at the first bytes of PATH: a blktrace magic in either order, an
 * empty file, with SUMMARIES a summary handed back (its first byte past
 * JSON's white space '{', which no trace, archive or compressed stream
 * begins with: read past the white space, at most a summary's bound,
 * WC_JSON_MAX_BYTES), or anything else (an archive, or no trace).  -1 when PATH cannot be read
 * (err says why: an unreadable file is the system's refusal, not a bad
 * trace).  *KEEP gets the descriptor, open still, at some offset (the
 * caller reads from the start and closes it).
 */
static int peek_file(const char *path, bool summaries, int *keep,
		     struct wc_err *err);
static int peek_fd(const char *path, int fd, bool summaries, int *keep,
		   struct wc_err *err);

bool wc_input_is_summary(const char *path)
{
	int fd = -1;
	bool summary = wc_input_is_summary_fd(path, &fd);

	if (fd >= 0)
		close(fd);
	return summary;
}

bool wc_input_is_summary_fd(const char *path, int *fd)
{
	struct stat st;
	int peek;

	*fd = -1;
	if (!strcmp(path, "-"))
		return false;
	peek = peek_file(path, true, fd, NULL);
	/* Only a regular file is read again on it (resolve()). */
	if (*fd >= 0 && (peek == PEEK_SUMMARY || fstat(*fd, &st) < 0 ||
			 !S_ISREG(st.st_mode))) {
		close(*fd);
		*fd = -1;
	}
	return peek == PEEK_SUMMARY;
}

static int peek_file(const char *path, bool summaries, int *keep,
		     struct wc_err *err)
{
	int fd;

	*keep = -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	return peek_fd(path, fd, summaries, keep, err);
}

/* peek_file() on FD, a descriptor of PATH at any offset (taken: in
 * *keep, or closed on failure). */
static int peek_fd(const char *path, int fd, bool summaries, int *keep,
		   struct wc_err *err)
{
	unsigned char b[4096];
	uint32_t m;
	ssize_t n, k = 0;
	size_t seen = 0;         /* bytes before b[0] */

	*keep = -1;
	n = read(fd, b, 4);
	if (n < 0)
		goto fail_read;
	*keep = fd;
	if (n == 0)
		return PEEK_EMPTY;
	if (n == 4) {
		memcpy(&m, b, 4);
		if ((m & WC_BLK_MAGIC_MASK) == WC_BLK_MAGIC ||
		    (__builtin_bswap32(m) & WC_BLK_MAGIC_MASK) == WC_BLK_MAGIC)
			return PEEK_MAGIC;
	}
	while (summaries && seen < WC_JSON_MAX_BYTES) {
		while (k < n && json_space(b[k]))
			k++;
		if (k < n)
			return b[k] == '{' && seen + (size_t)k < WC_JSON_MAX_BYTES ?
			       PEEK_SUMMARY : PEEK_OTHER;
		seen += (size_t)n;
		n = read(fd, b, sizeof(b));
		if (n < 0)
			goto fail_read;
		if (n == 0)
			break;
		k = 0;
	}
	return PEEK_OTHER;

fail_read:
	wc_err_set(err, WC_ERR_SYSTEM, path, NULL, 0, "%s", strerror(errno));
	close(fd);
	*keep = -1;
	return -1;
}

static int resolve(struct wc_input *in, struct wc_err *err)
{
	const char *path = in->path;
	char tmp[4096], dir[4096];
	struct stat st;
	size_t baselen;
	int peek, fd = -1, r, given = in->given_fd;

	in->given_fd = -1;
	/* The caller's descriptor of the path (wc_input_open_fd_any()) is
	 * read from its start when it is a regular file, as the path would
	 * be; otherwise the path is opened as always. */
	if (given >= 0 && (strcmp(path, "-") == 0 || fstat(given, &st) < 0 ||
			   !S_ISREG(st.st_mode) ||
			   lseek(given, 0, SEEK_SET) != 0)) {
		close(given);
		given = -1;
	}
	if (strcmp(path, "-") == 0) {
		in->kind = WC_STREAMS_SINGLE;
		return wc_streams_add(in->streams, "-", "-", UINT32_MAX, err);
	}
	if (given < 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct stat st2;

		snprintf(dir, sizeof(dir), "%s/trace", path);
		if (lstat(dir, &st2) == 0 && S_ISLNK(st2.st_mode))
			return wc_err_set(err, WC_ERR_INPUT, dir, NULL,
					  WC_NO_OFFSET,
					  "a symbolic link: not followed");
		if (stat(dir, &st2) < 0 || !S_ISDIR(st2.st_mode))
			snprintf(dir, sizeof(dir), "%s", path);
		in->folder = true;
		if (load_side_files(in, path, err) < 0)
			return -1;
		if (in->lim.nfiles &&
		    wc_members_read_folder_files(path, in->lim.files,
						 in->lim.nfiles, in->ftext,
						 in->flen, err) < 0)
			return -1;
		if (scan_dir(in, dir, NULL, err) < 0)
			return -1;
		if (wc_streams_count(in->streams) == 0)
			return wc_err_set(err, WC_ERR_INPUT, path, NULL,
					  WC_NO_OFFSET,
					  "not a trace: no NAME.blktrace.CPU files in the directory");
		return 0;
	}
	if (given >= 0 || stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return wc_err_set(err, WC_ERR_INPUT, path, NULL,
					  WC_NO_OFFSET,
					  "not a trace: not a regular file");
		/* The one open of the path: its peek tells a trace from an
		 * archive (and a summary, when asked), and the trace file is
		 * read on its descriptor, as the archive is in one pass. */
		peek = given >= 0 ?
		       peek_fd(path, given, in->summary_fd != NULL, &fd, err) :
		       peek_file(path, in->summary_fd != NULL, &fd, err);
		if (peek < 0)
			return -1;
		if (peek == PEEK_SUMMARY) {
			*in->summary_fd = fd;
			return 1;
		}
		if (peek == PEEK_MAGIC) {
			if (wc_streams_name_cpu(wc_input_base_name(path), &baselen) >= 0) {
				close(fd);
				goto base_name;
			}
			in->kind = WC_STREAMS_SINGLE;
			r = wc_streams_add(in->streams, path, path, UINT32_MAX, err);
			if (r == 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
				wc_streams_hold_fd(in->streams, 0, fd);
				fd = -1;
			}
			if (fd >= 0)
				close(fd);
			return r;
		}
		if (peek == PEEK_EMPTY) {
			close(fd);
			return wc_err_set(err, WC_ERR_INPUT, path, NULL, 0,
					  "not a trace: empty file");
		}
		r = wc_members_scan_fd(&in->members, path, fd, in->streams,
				       in->capture, &in->lim, err);
		/* The shortcut's member reader reads on with it. */
		if (r == 0 && wc_members_speculated(in->members))
			in->archive_fd = fd;
		else
			close(fd);
		if (r < 0)
			return -1;
		in->kind = WC_STREAMS_MEMBERS;
		return 0;
	}
	if (errno != ENOENT)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));

base_name:
	/* NAME stands for NAME.blktrace.0 ... NAME.blktrace.N. */
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	snprintf(tmp, sizeof(tmp), "%s", wc_input_base_name(path));
	if (wc_streams_name_cpu(tmp, &baselen) >= 0)
		tmp[baselen] = '\0';
	if (scan_dir(in, dir, tmp, err) < 0)
		return -1;
	if (wc_streams_count(in->streams) == 0)
		return wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
				  "no such file, and no %s.blktrace.CPU files",
				  tmp);
	return 0;
}

/* ---- process names ---------------------------------------------------- */

const char *wc_input_comm(const struct wc_input *in, uint32_t pid)
{
	return wc_recfilter_comm(in->filter, pid);
}

uint32_t wc_input_names(const struct wc_input *in)
{
	return wc_recfilter_names(in->filter);
}

const char *wc_input_comm_before(const struct wc_input *in, uint32_t pid,
				 uint32_t names)
{
	return wc_recfilter_comm_before(in->filter, pid, names);
}

void wc_input_set_blkparse_names(struct wc_input *in)
{
	struct wc_err err;

	wc_err_clear(&err);
	/* Once: the scouts of a second call would read ahead again. */
	if (!in->names &&
	    wc_blknames_open(&in->names, in->streams, in->filter,
			     wc_members_packed(in->members), &err) < 0) {
		in->failed = 1;
		in->names_oom = true;
	}
	/* Read in blkparse's batches, a single stream knows the names
	 * blkparse knew when it printed. */
	if (in->reorder)
		wc_reorder_set_blkparse(in->reorder);
}

static void make_name(struct wc_input *in)
{
	static const char *const ext[] = {
		".tar.gz", ".tgz", ".tar.xz", ".tar.zst", ".tar.bz2", ".tar",
		".zip", ".cpio",
	};
	const char *conf_name = in->capture->name;
	char buf[4096];
	size_t i, n;

	if (conf_name && *conf_name) {
		in->name = strdup(conf_name);
		return;
	}
	snprintf(buf, sizeof(buf), "%s", in->path);
	n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	/* snprintf may not read from its own buffer: move the base name. */
	memmove(buf, wc_input_base_name(buf), strlen(wc_input_base_name(buf)) + 1);
	n = strlen(buf);
	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);

		if (n > e && strcmp(buf + n - e, ext[i]) == 0) {
			buf[n - e] = '\0';
			break;
		}
	}
	in->name = strdup(buf);
}

int wc_input_open(struct wc_input **out, const char *path, struct wc_err *err)
{
	return wc_input_open_limits(out, path, NULL, err);
}

int wc_input_open_limits(struct wc_input **out, const char *path,
			 const struct wc_input_limits *lim, struct wc_err *err)
{
	return wc_input_open_any(out, NULL, path, lim, err);
}

int wc_input_open_any(struct wc_input **out, int *summary, const char *path,
		      const struct wc_input_limits *lim, struct wc_err *err)
{
	return wc_input_open_fd_any(out, summary, path, -1, lim, err);
}

int wc_input_open_fd_any(struct wc_input **out, int *summary,
			 const char *path, int fd,
			 const struct wc_input_limits *lim, struct wc_err *err)
{
	struct wc_input *in;
	size_t n, room;
	int r;

	*out = NULL;
	if (summary)
		*summary = -1;
	in = calloc(1, sizeof(*in));
	if (!in) {
		if (fd >= 0)
			close(fd);
		return wc_err_oom(err, path, NULL);
	}
	in->summary_fd = summary;
	in->archive_fd = -1;
	in->given_fd = fd;
	if (lim)
		in->lim = *lim;
	wc_input_limits_default(&in->lim);
	/* Under a short open-file limit, fewer handles: the streams past
	 * them are closed and taken up again, as past WC_INPUT_MAX_OPEN,
	 * rather than failing at the limit. */
	room = wc_streams_fd_room();
	if (in->lim.sharing > 1 && room != SIZE_MAX)
		room = room > (in->lim.sharing - 1) * WC_INPUT_FD_EACH ?
		       (room - (in->lim.sharing - 1) * WC_INPUT_FD_EACH) /
		       in->lim.sharing : 0;
	if (in->lim.max_open > room)
		in->lim.max_open = room ? (unsigned)room : 1u;
	if (in->lim.nfiles > WC_INPUT_MAX_FILES)
		in->lim.nfiles = WC_INPUT_MAX_FILES;
	if (in->lim.naside_files > WC_INPUT_MAX_FILES)
		in->lim.naside_files = WC_INPUT_MAX_FILES;
	/* The files kept may come after the last trace file. */
	if (in->lim.nfiles || in->lim.once)
		in->lim.speculate = false;
	in->path = strdup(path);
	if (!in->path) {
		wc_err_oom(err, path, NULL);
		goto fail;
	}
	if (wc_capture_new(&in->capture, err) < 0)
		goto fail;
	if (wc_recfilter_open(&in->filter) < 0) {
		wc_err_oom(err, path, NULL);
		goto fail;
	}
	if (wc_streams_new(&in->streams, path, &in->lim, in->filter, err) < 0)
		goto fail;
	r = resolve(in, err);
	if (r < 0)
		goto fail;
	if (r > 0) {
		/* A summary: no input; its descriptor is the caller's. */
		wc_input_free(in);
		return 1;
	}
	if (wc_streams_seal(in->streams, in->kind, err) < 0)
		goto fail;
	make_name(in);
	if (!in->name) {
		wc_err_oom(err, path, NULL);
		goto fail;
	}
	n = wc_streams_count(in->streams);
	if (in->kind == WC_STREAMS_SINGLE) {
		if (wc_reorder_open(&in->reorder, WC_REORDER_WINDOW,
				    wc_streams_pull, in->streams, err) < 0)
			goto fail;
	} else if (wc_merge_open(&in->merge, (unsigned)n, wc_streams_pull,
				 in->streams, err) < 0) {
		goto fail;
	}
	*out = in;
	return 0;

fail:
	wc_input_free(in);
	return -1;
}

/* Counts the events of a batch earlier than the one before them. */
static void count_backwards(struct wc_input *in, const struct wc_event *evs,
			    size_t n)
{
	/* In locals: the events' fields could be the input's for all the
	 * compiler knows, and it would reload both per event. */
	uint64_t last = in->last_time, back = in->backwards;
	size_t k;

	for (k = 0; k < n; k++) {
		back += evs[k].time < last;
		last = evs[k].time;
	}
	in->last_time = last;
	in->backwards = back;
}

/* At the end of an input that may have handed out nothing: -1 when not
 * one record was read (every trace file empty, an empty standard input),
 * which would otherwise pass as a capture of no time; else 0. */
static __attribute__((noinline)) int no_records(struct wc_input *in,
						struct wc_err *err)
{
	size_t i;

	for (i = 0; i < wc_streams_count(in->streams); i++)
		if (wc_streams_info(in->streams, i)->events)
			return 0;
	return wc_err_set(err, WC_ERR_INPUT, in->path, NULL, WC_NO_OFFSET,
			  wc_streams_count(in->streams) > 1 ? "no trace record: every trace file is empty" :
					     "no trace record: the trace is empty");
}

/* After a failure, -1 again; the first time after
 * wc_input_set_blkparse_names() ran out of memory, with why. */
static __attribute__((noinline)) int failed_again(struct wc_input *in,
						  struct wc_err *err)
{
	if (!in->names_oom)
		return -1;
	in->names_oom = false;
	return wc_err_oom(err, in->path, NULL);
}

static int next_batch(struct wc_input *in, const struct wc_event **evs,
		      size_t max, size_t *got, struct wc_err *err)
{
	int r;

	*got = 0;
	if (in->failed)
		return failed_again(in, err);
	/* A stream that may be closed keeps one payload in its stash. */
	if (wc_streams_may_close(in->streams) || max > WC_INPUT_BATCH)
		max = wc_streams_may_close(in->streams) ? 1 : WC_INPUT_BATCH;
	if (in->reorder)
		r = wc_reorder_next_ref(in->reorder, evs, max, got, err);
	else
		r = wc_merge_next_ref(in->merge, evs, max, got, err);
	if (r == 0 && !in->last_time && !in->backwards)
		r = no_records(in, err);
	if (r < 0)
		in->failed = 1;
	/* A clock that steps back, or a stream out of order beyond what
	 * the merge can mend: counted, said once at the end.  A span of the
	 * window's ring is in time order: only its first event may be
	 * earlier than the one before. */
	if (in->reorder && *got && wc_reorder_sorted(in->reorder)) {
		in->backwards += (*evs)[0].time < in->last_time;
		in->last_time = (*evs)[*got - 1].time;
	} else {
		count_backwards(in, *evs, *got);
	}
	return r;
}

/* The end, or a failure (R): the archive's to confirm when its scan took
 * the shortcut (members.h). */
static __attribute__((noinline)) int input_end(struct wc_input *in, int r,
					       struct wc_err *err)
{
	if (!wc_members_speculated(in->members))
		return r;
	r = wc_members_end(in->members, r, err);
	in->failed = r < 0;
	return r;
}

int wc_input_next_ref(struct wc_input *in, const struct wc_event **evs,
		      size_t max, size_t *got, struct wc_err *err)
{
	int r;

	r = next_batch(in, evs, max ? max : WC_INPUT_BATCH, got, err);
	if (__builtin_expect(r <= 0, 0))
		r = input_end(in, r, err);
	return r;
}

bool wc_input_speculated(const struct wc_input *in)
{
	return wc_members_speculated(in->members);
}

uint64_t wc_input_repeats(const struct wc_input *in)
{
	return in->filter ? wc_recfilter_repeats(in->filter) : 0;
}

bool wc_input_cpu_named(const struct wc_input *in, uint32_t cpu)
{
	return in->filter && wc_recfilter_cpu_named(in->filter, cpu);
}

uint32_t wc_input_cpu_end(const struct wc_input *in)
{
	return in->filter ? wc_recfilter_cpu_end(in->filter) : 0;
}

uint64_t wc_input_backwards(const struct wc_input *in)
{
	return in->backwards;
}

size_t wc_input_fd_room(void)
{
	return wc_streams_fd_room();
}

void wc_input_free(struct wc_input *in)
{
	size_t i;

	if (!in)
		return;
	for (i = 0; i < WC_INPUT_MAX_FILES; i++)
		free(in->ftext[i]);
	wc_merge_free(in->merge);
	wc_reorder_free(in->reorder);
	wc_members_free(in->members);
	wc_blknames_free(in->names);
	wc_streams_free(in->streams);
	if (in->given_fd >= 0)
		close(in->given_fd);
	if (in->archive_fd >= 0)
		close(in->archive_fd);
	wc_capture_free(in->capture);
	wc_recfilter_free(in->filter);
	free(in->name);
	free(in->path);
	free(in);
}

const char *wc_input_name(const struct wc_input *in)
{
	return in->name;
}

char *wc_input_take_file(struct wc_input *in, size_t i, size_t *len)
{
	char *t;

	*len = 0;
	if (in->members)
		return wc_members_take_file(in->members, i, len);
	if (i >= WC_INPUT_MAX_FILES || !in->ftext[i])
		return NULL;
	t = in->ftext[i];
	*len = in->flen[i];
	in->ftext[i] = NULL;
	return t;
}

const struct wc_capture *wc_input_capture(const struct wc_input *in)
{
	return in->capture;
}

bool wc_input_side_kept(const struct wc_input *in)
{
	return wc_members_once(in->members);
}

int wc_input_open_side(const struct wc_input *in, const char *file,
		       struct wc_source **out, struct wc_err *err)
{
	struct wc_err mine;
	char p[4096];
	const char *dir;
	size_t len;

	*out = NULL;
	if (strchr(file, '/'))
		return wc_err_set(err, WC_ERR_USAGE, in->path, NULL,
				  WC_NO_OFFSET, "%s: a side file names no folder",
				  file);
	/* A one-pass scan copied it aside: the archive is not read again. */
	if (wc_input_side_kept(in))
		return wc_members_open_aside(in->members, file, out, err);
	if (in->members) {
		dir = wc_members_folder(in->members, &len);
		if (!dir)
			return 0;
		if ((size_t)snprintf(p, sizeof(p), "%.*s%s%s", (int)len, dir,
				     len ? "/" : "", file) >= sizeof(p))
			return wc_err_set(err, WC_ERR_INPUT, in->path, NULL,
					  WC_NO_OFFSET, "member name too long");
		return wc_source_open_member(out, in->path, p,
					     WC_SOURCE_OPTIONAL, err);
	}
	if (!in->folder)
		return 0;
	if ((size_t)snprintf(p, sizeof(p), "%s/%s", in->path, file) >= sizeof(p))
		return wc_err_set(err, WC_ERR_INPUT, in->path, NULL,
				  WC_NO_OFFSET, "path too long");
	/* A stranger's folder: its file is opened as itself, never through
	 * a link; absent is no failure. */
	wc_err_clear(&mine);
	if (wc_source_open_file(out, p, O_NOFOLLOW, &mine) == 0)
		return 0;
	if (errno == ENOENT)
		return 0;
	return wc_err_set(err, mine.kind, mine.file, mine.member[0] ?
			  mine.member : NULL, mine.offset, "%s", mine.msg);
}

size_t wc_input_nstreams(const struct wc_input *in)
{
	return wc_streams_count(in->streams);
}

const struct wc_stream_info *wc_input_stream(const struct wc_input *in,
					     size_t i)
{
	return wc_streams_info(in->streams, i);
}

uint64_t wc_input_genesis(const struct wc_input *in)
{
	if (in->reorder)
		return wc_reorder_genesis(in->reorder);
	return in->merge ? wc_merge_genesis(in->merge) : 0;
}
