/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/members.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/capture.h"
#include "base/spool.h"
#include "input/source.h"
#include "input/streams.h"

struct wc_members {
	char *path;
	int fd;                 /* the caller's descriptor of path, or -1 */
	struct wc_streams *st;
	struct wc_capture *capture;
	struct wc_input_limits lim;
	size_t handles;         /* members the scan found that need one */
	size_t large;           /* members read neither whole nor aside */
	int spill_fd;           /* the members copied aside (the table's), or -1 */
	uint64_t spill_used;    /* bytes in it */
	size_t nahead;          /* members it started reading ahead */
	bool packed;            /* members are decompressed to be read */
	/* A file of lim.aside_files met before the scan read in one pass
	 * (not copied): lim.once_model then leaves the scan as it is. */
	bool aside_passed;
	/* The scan stopped at the last trace file capture.conf announced
	 * and handed its handle to that member's reader, which checks the
	 * rest of the archive (tail): the end waits for that check. */
	bool speculated;
	bool spec_over;         /* the end or a failure was reported: */
	int spec_r;             /* ... and which, for the calls after it */
	struct wc_source_tail *tail;
	/* The capture folder of the first trace file or side file, and
	 * the side files met. */
	struct wc_member_rules rules;
	/* lim.files' texts, kept by the scan */
	char *ftext[WC_INPUT_MAX_FILES];
	size_t flen[WC_INPUT_MAX_FILES];
	/* lim.aside_files copied aside by a one-pass scan (lim.once): the
	 * member's name (NULL: not met) and where its copy is in the spill
	 * file */
	struct {
		char *member;
		uint64_t off, len;
	} aside[WC_INPUT_MAX_FILES];
};

/* libarchive's reason, which it does not always give (a zip cut inside
 * a header): never a "(null)" in a message. */
static const char *ar_why(struct archive *a)
{
	const char *why = archive_error_string(a);

	return why ? why : "cut short or damaged (libarchive gives no reason)";
}

/* The side file (capture.h) a member of this base name is read as, its
 * index in wc_capture_side_files, or -1. */
static int side_file(const char *base)
{
	int i;

	for (i = 0; wc_capture_side_files[i]; i++)
		if (!strcmp(base, wc_capture_side_files[i]))
			return i;
	return -1;
}

static bool is_side_file(const char *base)
{
	return side_file(base) >= 0;
}

/*
 * Reads the member's data past the SIZE bytes taken (GOT of them) to its
 * end, so that libarchive's end-of-entry checks run (a zip member's CRC,
 * the end of a deflate stream): a member whose data stop early, or whose
 * checks fail, is refused with libarchive's reason, never taken for the
 * bytes read so far.  0 when it ended where its size said, -1 with err
 * filled.
 */
static int member_to_end(struct archive *a, const char *path,
			 const char *member, size_t got, size_t size,
			 ssize_t last, struct wc_err *err)
{
	char scratch[512];
	ssize_t n = last;

	while (n > 0)
		n = archive_read_data(a, scratch, sizeof(scratch));
	if (n < 0)
		return wc_err_set(err, WC_ERR_INPUT, path, member, got, "%s",
				  ar_why(a));
	if (got < size)
		return wc_err_set(err, WC_ERR_INPUT, path, member, got,
				  "the member ends here, before the %zu bytes "
				  "its header gives", size);
	return 0;
}

static int read_member_text(struct archive *a, struct archive_entry *ent,
			    const char *path, const char *member, char **text,
			    size_t *len, struct wc_err *err)
{
	la_int64_t size = archive_entry_size_is_set(ent) ?
			  archive_entry_size(ent) : WC_CAPTURE_MAX_BYTES;
	size_t cap, got = 0;
	char *buf;
	ssize_t n = 0;

	if (size < 0 || size > WC_CAPTURE_MAX_BYTES)
		return wc_err_set(err, WC_ERR_INPUT, path, member, WC_NO_OFFSET,
				  "larger than %u bytes", WC_CAPTURE_MAX_BYTES);
	/* As large as the member says it is, no larger. */
	cap = (size_t)size;
	buf = malloc(cap + 1);
	if (!buf)
		return wc_err_oom(err, path, NULL);
	while (got < cap) {
		n = archive_read_data(a, buf + got, cap - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	/* Without a size in its header (WC_CAPTURE_MAX_BYTES then), a
	 * member that ends sooner is whole. */
	if (member_to_end(a, path, member, got,
			  archive_entry_size_is_set(ent) ? cap : got,
			  n < 0 ? n : 1, err) < 0) {
		free(buf);
		return -1;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

/*
 * Reads member NAME, just added as stream I, whole into memory when it
 * is small and the budget allows: it then needs no archive handle of its
 * own, however many such members there are.  1 when it did, 0 when not,
 * -1 with err filled.
 */
static int keep_small_member(struct wc_members *m, struct archive *a,
			     struct archive_entry *ent, size_t i,
			     const char *name, struct wc_err *err)
{
	unsigned char *mem;
	la_int64_t size;
	size_t got = 0;
	ssize_t n = 0;

	if (!archive_entry_size_is_set(ent))
		return 0;
	size = archive_entry_size(ent);
	if (m->lim.no_memory || size < 0 ||
	    (uint64_t)size > m->lim.small_member ||
	    (uint64_t)size > m->lim.mem_budget - wc_streams_mem_used(m->st))
		return 0;
	mem = malloc(size ? (size_t)size : 1);
	if (!mem)
		return wc_err_oom(err, m->path, NULL);
	while (got < (size_t)size) {
		n = archive_read_data(a, mem + got, (size_t)size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (member_to_end(a, m->path, name, got, (size_t)size,
			  n < 0 ? n : 1, err) < 0) {
		free(mem);
		return -1;
	}
	wc_streams_hold_memory(m->st, i, mem, got);
	return 1;
}

/* The spill file (wc_spool_tmpfile()); -1 with err filled. */
static int spill_open(struct wc_members *m, struct wc_err *err)
{
	int fd = wc_spool_tmpfile("the members read aside", err);

	if (fd < 0)
		return -1;
	m->spill_fd = fd;
	wc_streams_set_aside(m->st, fd);
	return 0;
}

/* Copies the member NAME to the end of the spill file (opened at the
 * first), to its end (libarchive's checks run): at *start, *len bytes.
 * 0, or -1 with err filled. */
static int spill_copy(struct wc_members *m, struct archive *a,
		      struct archive_entry *ent, const char *name,
		      uint64_t *start, uint64_t *len, struct wc_err *err)
{
	const size_t chunk = 64u * 1024u;
	uint64_t got = 0;
	unsigned char *buf;
	ssize_t n;
	size_t off;
	int ret = -1;

	*start = m->spill_used;
	*len = 0;
	if (m->spill_fd < 0 && spill_open(m, err) < 0)
		return -1;
	buf = malloc(chunk);
	if (!buf)
		return wc_err_oom(err, m->path, NULL);
	while ((n = archive_read_data(a, buf, chunk)) != 0) {
		if (n == ARCHIVE_RETRY)
			continue;
		if (n < 0) {
			wc_err_set(err, WC_ERR_INPUT, m->path, name, got,
				   "%s", ar_why(a));
			goto out;
		}
		if (m->spill_used + (uint64_t)n > WC_INPUT_SPILL_MAX) {
			if (m->lim.once)
				wc_err_set(err, WC_ERR_INPUT, m->path, name,
					   got, "the members read in one pass "
					   "hold more than %llu bytes, the "
					   "most copied to a temporary file: "
					   "refused", (unsigned long long)
					   WC_INPUT_SPILL_MAX);
			else
				wc_err_set(err, WC_ERR_INPUT, m->path, name,
					   got, "the members past the first %zu "
					   "that need a handle hold more than "
					   "%llu bytes, the most copied to a "
					   "temporary file: refused",
					   wc_input_handles(&m->lim),
					   (unsigned long long)WC_INPUT_SPILL_MAX);
			goto out;
		}
		off = wc_spool_write_at(m->spill_fd, buf, (size_t)n,
					 m->spill_used);
		if (off < (size_t)n) {
			wc_err_set(err, WC_ERR_SYSTEM, m->path, name, got + off,
				   "copying the member to a temporary file in "
				   "%s: %s",
				   getenv("TMPDIR") && *getenv("TMPDIR") ?
				   getenv("TMPDIR") : "/tmp", strerror(errno));
			goto out;
		}
		m->spill_used += (uint64_t)n;
		got += (uint64_t)n;
	}
	if (archive_entry_size_is_set(ent) &&
	    got < (uint64_t)archive_entry_size(ent)) {
		wc_err_set(err, WC_ERR_INPUT, m->path, name, got,
			   "the member ends here, before the %lld bytes its "
			   "header gives", (long long)archive_entry_size(ent));
		goto out;
	}
	*len = got;
	ret = 0;
out:
	free(buf);
	return ret;
}

/*
 * Member NAME, just added as stream I, when neither read whole nor among the first
 * WC_INPUT_HANDLES members that need a handle: copied to the spill file
 * now, as the scan decompresses the archive anyway, and read from there.
 * Each member past those first ones would need its own handle, and more
 * than WC_INPUT_MAX_OPEN of them share handles by closing the stream
 * used longest ago: in a time-ordered merge of many CPUs, that is the
 * one needed next, and each reopening decompressed the archive again
 * from its start (80 members of 1.6 MB as tar.xz did not finish in
 * 25 minutes).  Copied aside, a member is reopened with no
 * decompression at all, as a file in a folder is.  The member is read
 * to its end (libarchive's checks run).  Disk instead of time: at most
 * WC_INPUT_SPILL_MAX bytes.  1 when copied, 0 when not, -1 with err
 * filled.
 */
static int spill_member(struct wc_members *m, struct archive *a,
			struct archive_entry *ent, size_t i, const char *name,
			struct wc_err *err)
{
	uint64_t start, got;
	bool handle = ++m->large <= wc_input_handles(&m->lim);

	/* One pass: no member is read from the archive again. */
	if (!m->lim.once && handle)
		return 0;
	if (spill_copy(m, a, ent, name, &start, &got, err) < 0)
		return -1;
	/* A copy in place of a handle is read in the handle's blocks: the
	 * same batches downstream, so the same timeline (source.h). */
	wc_streams_hold_aside(m->st, i, start, got, handle);
	return 1;
}

/*
 * Members of a compressed archive each decompress it from its start: on
 * threads of their own, started as the scan meets them, that work spans
 * beside the scan, the analysis and each other instead of one member
 * after the other before the analysis.  Only while every member can keep
 * its handle (past WC_INPUT_MAX_OPEN, streams are closed and taken up
 * again on the caller's thread: those started are stopped), and for at
 * most WC_INPUT_AHEAD members.
 */
static int ahead_at_scan(struct wc_members *m, struct archive *a, size_t i,
			 const char *name, bool held, struct wc_err *err)
{
	int format = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	struct wc_source *src = NULL;

	/* A plain tar or cpio has nothing to decompress: read in place,
	 * a thread only moves the bytes to another core's cache (0.2 s
	 * more CPU time on the 490 MB of the sample's 10 M events). */
	m->packed = archive_filter_count(a) > 1 ||
		    (format != ARCHIVE_FORMAT_TAR && format != ARCHIVE_FORMAT_CPIO);
	if (held || !m->packed || m->lim.once)
		return 0;
	if (++m->handles > m->lim.max_open) {
		if (m->nahead)
			wc_streams_stop_ahead(m->st);
		m->nahead = 0;
		return 0;
	}
	if (m->nahead >= WC_INPUT_AHEAD)
		return 0;
	if (wc_source_open_member(&src, m->path, name, WC_SOURCE_AHEAD,
				  err) < 0)
		return -1;
	wc_streams_hold_ahead(m->st, i, src);
	m->nahead++;
	return 0;
}

/* An entry after the last announced trace file, on its reader's thread
 * (wc_source_adopt_member_ahead()): one the whole scan would have taken
 * (a trace file, or a side file: capture.conf, phases.tsv, counters.tsv)
 * means the archive is not as announced. */
static int tail_entry(const char *path, struct archive_entry *ent,
		      struct wc_err *why)
{
	const char *name = archive_entry_pathname(ent), *base;

	if (!name || archive_entry_filetype(ent) != AE_IFREG)
		return 0;
	base = wc_input_base_name(name);
	if (wc_streams_name_cpu(name, NULL) != WC_STREAMS_NOT_TRACE ||
	    is_side_file(base))
		return wc_err_set(why, WC_ERR_AGAIN, path, name, WC_NO_OFFSET,
				  "not as capture.conf announced: after its "
				  "last trace file");
	return 0;
}

/*
 * At the scan's NTRACE-th trace member: when it is the last one
 * capture.conf announced (trace_files), read from the archive, and every
 * member that needs a handle so far has a thread of its own, the scan
 * hands its handle to that member's reader instead of decompressing the
 * rest of the archive on the caller's thread first (and the member's own
 * thread decompressing it again up to the member): 1 then, and the scan
 * ends here as it would have at the archive's end; 0 to scan on.
 */
static int speculate_at(struct wc_members *m, struct archive *a,
			size_t ntrace, size_t i, const char *name, bool held,
			struct wc_err *err)
{
	int format = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	struct wc_source *src = NULL;
	int r;

	if (!m->lim.speculate || !m->capture->trace_files ||
	    ntrace != m->capture->trace_files || held)
		return 0;
	if (archive_filter_count(a) <= 1 &&
	    (format == ARCHIVE_FORMAT_TAR || format == ARCHIVE_FORMAT_CPIO))
		return 0;
	if (m->handles + 1 > m->lim.max_open || m->nahead != m->handles ||
	    m->nahead >= WC_INPUT_AHEAD)
		return 0;
	r = wc_source_adopt_member_ahead(&src, &m->tail, m->path, name, a,
					 tail_entry, err);
	if (r != 0)
		return r < 0 ? -1 : 0;
	wc_streams_hold_ahead(m->st, i, src);
	m->packed = true;
	m->handles++;
	m->nahead++;
	m->speculated = true;
	return 1;
}

/*
 * The capture folder member NAME belongs to: its folder, without the
 * "./" in front, and for a trace file without a last "trace" (where
 * wccapture puts them; capture.conf and phases.tsv are beside it).  Its
 * length in *len, 0 for the archive's top.
 */
static const char *capture_dir(const char *name, bool trace, size_t *len)
{
	const char *end, *q;

	name = wc_input_member_name(name);
	end = strrchr(name, '/');
	if (!end) {
		*len = 0;
		return name;
	}
	if (trace) {
		for (q = end; q > name && q[-1] != '/'; q--)
			;
		if (end - q == 5 && strncmp(q, "trace", 5) == 0)
			end = q > name ? q - 1 : q;
	}
	*len = (size_t)(end - name);
	return name;
}

/*
 * One archive is one capture: its trace files and side files all in one
 * capture folder, at most one of each side file.  A tar of two capture
 * folders would otherwise be read as one trace spliced from two clocks,
 * under the last capture.conf's name and the first's destination.
 * Refused with the reason (the folders can be unpacked and analysed
 * each); SIDE is the index of its side file in wc_capture_side_files,
 * -1 for a trace file.
 */
static int one_capture(struct wc_member_rules *r, const char *path,
		       const char *name, int side, struct wc_err *err)
{
	size_t len;
	const char *dir = capture_dir(name, side < 0, &len);

	if (!r->capdir) {
		r->capdir = strndup(dir, len);
		if (!r->capdir)
			return wc_err_oom(err, path, NULL);
		r->capdir_len = len;
	} else if (len != r->capdir_len || strncmp(dir, r->capdir, len)) {
		return wc_err_set(err, WC_ERR_INPUT, path, name,
				  WC_NO_OFFSET,
				  "the archive holds two captures, in %s%s and "
				  "%.*s%s: refused (unpack it and analyse each "
				  "capture folder)",
				  r->capdir_len ? r->capdir : ".",
				  r->capdir_len ? "/" : "", len ? (int)len : 1,
				  len ? dir : ".", len ? "/" : "");
	}
	if (side >= 0 && ++r->nside[side] > 1)
		return wc_err_set(err, WC_ERR_INPUT, path, name,
				  WC_NO_OFFSET, "twice in the archive: refused "
				  "(which of the two is the capture's?)");
	return 0;
}

int wc_member_rules_check(struct wc_member_rules *rules, const char *path,
			  const char *name, long *cpu, size_t *baselen,
			  int *side, struct wc_err *err)
{
	*side = -1;
	*cpu = wc_streams_name_cpu(name, baselen);
	if (*cpu == WC_STREAMS_CPU_BAD)
		return wc_streams_cpu_bad(path, name, err);
	if (*cpu >= 0)
		return one_capture(rules, path, name, -1, err) < 0 ? -1 :
		       WC_MEMBER_TRACE;
	*side = side_file(wc_input_base_name(name));
	if (*side >= 0)
		return one_capture(rules, path, name, *side, err) < 0 ? -1 :
		       WC_MEMBER_SIDE;
	return WC_MEMBER_OTHER;
}

void wc_member_rules_free(struct wc_member_rules *rules)
{
	if (!rules)
		return;
	free(rules->capdir);
	rules->capdir = NULL;
}

static bool is_capture_file(const char *name, const char *file);

/* The index in lim.files of the member NAME, or -1. */
static int kept_file(const struct wc_members *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->lim.nfiles && i < WC_INPUT_MAX_FILES; i++)
		if (is_capture_file(name, m->lim.files[i]))
			return (int)i;
	return -1;
}

/* Keeps the member NAME, lim.files[K], whole: a regular member, once,
 * at most WC_CAPTURE_MAX_BYTES (the archive's side of the capture's own
 * files; a folder's is wc_members_read_folder_files()).  TEXT, when not NULL, is its text read already
 * (a side file's), given over. */
static int keep_file(struct wc_members *m, struct archive *a,
		     struct archive_entry *ent, const char *name, int k,
		     char *text, size_t len, struct wc_err *err)
{
	if (archive_entry_filetype(ent) != AE_IFREG) {
		free(text);
		return wc_err_set(err, WC_ERR_INPUT, m->path, name,
				  WC_NO_OFFSET, "not a regular file");
	}
	if (m->ftext[k]) {
		free(text);
		return wc_err_set(err, WC_ERR_INPUT, m->path, name,
				  WC_NO_OFFSET, "twice in the archive: refused "
				  "(which of the two is the capture's?)");
	}
	if (!text && read_member_text(a, ent, m->path, name, &text, &len,
				      err) < 0)
		return -1;
	m->ftext[k] = text;
	m->flen[k] = len;
	return 0;
}

/* The index in lim.aside_files of the member NAME (a one-pass scan's),
 * or -1. */
static int aside_file(struct wc_members *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->lim.naside_files && i < WC_INPUT_MAX_FILES; i++)
		if (is_capture_file(name, m->lim.aside_files[i])) {
			m->aside_passed = m->aside_passed || !m->lim.once;
			return m->lim.once ? (int)i : -1;
		}
	return -1;
}

/* MEMBER's folder is the capture folder (the first trace or side
 * file's, as far as the scan has met one). */
static bool in_capture_folder(const struct wc_members *m, const char *member)
{
	size_t len;
	const char *dir = capture_dir(member, false, &len);

	return m->rules.capdir && len == m->rules.capdir_len &&
	       !strncmp(dir, m->rules.capdir, len);
}

/*
 * Copies the member NAME, lim.aside_files[K], aside (a one-pass scan):
 * the capture's own file, so in the capture folder.  Met before the
 * capture folder is known (a stranger may put the ledger first), it is
 * copied on trust, and given up at the scan's end when it is not there
 * (aside_settle()).  The same file twice in one folder, or in two
 * folders before either is known to be the capture's, is refused.
 */
static int keep_aside(struct wc_members *m, struct archive *a,
		      struct archive_entry *ent, const char *name, int k,
		      struct wc_err *err)
{
	size_t len, klen;
	const char *dir = capture_dir(name, false, &len), *kdir;
	char *copy;

	if (m->rules.capdir && !in_capture_folder(m, name))
		return 0;            /* another folder's: not the capture's */
	if (m->aside[k].member) {
		kdir = capture_dir(m->aside[k].member, false, &klen);
		if (klen == len && !strncmp(kdir, dir, len))
			return wc_err_set(err, WC_ERR_INPUT, m->path, name,
					  WC_NO_OFFSET, "twice in the archive: "
					  "refused (which of the two is the "
					  "capture's?)");
		if (!m->rules.capdir)
			return wc_err_set(err, WC_ERR_INPUT, m->path, name,
					  WC_NO_OFFSET, "also in another "
					  "folder, both before the capture's "
					  "first trace file: refused (which of "
					  "the two is the capture's?)");
		/* the one copied on trust was another folder's */
		free(m->aside[k].member);
		m->aside[k].member = NULL;
	}
	copy = strdup(name);
	if (!copy)
		return wc_err_oom(err, m->path, NULL);
	if (spill_copy(m, a, ent, name, &m->aside[k].off, &m->aside[k].len,
		       err) < 0) {
		free(copy);
		return -1;
	}
	m->aside[k].member = copy;
	return 0;
}

/* At the scan's end: a file copied on trust outside the capture folder
 * is not the capture's. */
static void aside_settle(struct wc_members *m)
{
	size_t k;

	for (k = 0; k < WC_INPUT_MAX_FILES; k++)
		if (m->aside[k].member &&
		    !in_capture_folder(m, m->aside[k].member)) {
			free(m->aside[k].member);
			m->aside[k].member = NULL;
		}
}

static int scan_archive(struct wc_members *m, struct wc_err *err)
{
	struct archive_entry *ent;
	struct archive *a;
	size_t entries = 0, ntrace = 0;
	int r, ret = -1;

	a = archive_read_new();
	if (!a)
		return wc_err_oom(err, m->path, NULL);
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (m->fd >= 0 && lseek(m->fd, 0, SEEK_SET) != 0) {
		wc_err_set(err, WC_ERR_SYSTEM, m->path, NULL, 0, "%s",
			   strerror(errno));
		goto out;
	}
	if ((m->fd >= 0 ? archive_read_open_fd(a, m->fd, 64 * 1024) :
	     archive_read_open_filename(a, m->path, 64 * 1024)) != ARCHIVE_OK) {
		wc_err_set(err, WC_ERR_INPUT, m->path, NULL, 0,
			   "not a trace or archive: %s", ar_why(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(ent);
		const char *base;
		size_t baselen;
		long cpu;
		int keep, kind, side, aside;

		entries++;
		keep = name ? kept_file(m, name) : -1;
		if (keep >= 0 && (archive_entry_filetype(ent) != AE_IFREG ||
				  !is_side_file(wc_input_base_name(name)))) {
			if (keep_file(m, a, ent, name, keep, NULL, 0, err) < 0)
				goto out;
			continue;
		}
		if (!name || archive_entry_filetype(ent) != AE_IFREG)
			continue;
		base = wc_input_base_name(name);
		kind = wc_member_rules_check(&m->rules, m->path, name, &cpu,
					     &baselen, &side, err);
		if (kind < 0)
			goto out;
		if (kind == WC_MEMBER_TRACE) {
			char dev[4096];
			size_t i = wc_streams_count(m->st);
			int held;

			snprintf(dev, sizeof(dev), "%.*s", (int)baselen, name);
			if (wc_streams_add(m->st, name, dev, (uint32_t)cpu,
					   err) < 0)
				goto out;
			/* Read whole, copied aside, or neither (read from
			 * the archive on a handle of its own). */
			held = keep_small_member(m, a, ent, i, name, err);
			if (held == 0)
				held = spill_member(m, a, ent, i, name, err);
			if (held < 0)
				goto out;
			r = speculate_at(m, a, ++ntrace, i, name, held, err);
			if (r < 0)
				goto out;
			if (r > 0) {
				/* The handle is the member's reader's now. */
				a = NULL;
				ret = 0;
				goto out;
			}
			if (ahead_at_scan(m, a, i, name, held, err) < 0)
				goto out;
		} else if (kind == WC_MEMBER_OTHER &&
			   (aside = aside_file(m, name)) >= 0) {
			if (keep_aside(m, a, ent, name, aside, err) < 0)
				goto out;
		} else if (kind == WC_MEMBER_SIDE) {
			char *text = NULL, where[1024];
			size_t len = 0;

			if (read_member_text(a, ent, m->path, name, &text,
					     &len, err) < 0)
				goto out;
			snprintf(where, sizeof(where), "%s: %s", m->path, name);
			wc_capture_parse_side(m->capture, base, text, len,
					      where);
			/* A model disk's ledger lies after the trace files:
			 * read in this one pass (lim.once_model), unless the
			 * scan has passed a file to copy aside already. */
			if (m->lim.once_model && !m->aside_passed &&
			    m->capture->disk_model[0]) {
				m->lim.once = true;
				m->lim.speculate = false;
			}
			if (keep >= 0) {
				if (keep_file(m, a, ent, name, keep, text, len,
					      err) < 0)
					goto out;
			} else {
				free(text);
			}
		}
	}
	if (r != ARCHIVE_EOF) {
		/* A file libarchive cannot make sense of at all. */
		if (entries == 0)
			wc_err_set(err, WC_ERR_INPUT, m->path, NULL, 0,
				   "not a trace or archive: %s",
				   ar_why(a));
		else
			wc_err_set(err, WC_ERR_INPUT, m->path, NULL,
				   WC_NO_OFFSET, "%s", ar_why(a));
		goto out;
	}
	if (entries == 0) {
		wc_err_set(err, WC_ERR_INPUT, m->path, NULL, WC_NO_OFFSET,
			   "empty archive");
		goto out;
	}
	if (wc_streams_count(m->st) == 0 &&
	    (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_MTREE) {
		/* libarchive takes a text file of path-like lines (/etc/passwd)
		 * for an mtree listing: it is no archive of files. */
		wc_err_set(err, WC_ERR_INPUT, m->path, NULL, 0,
			   "not a trace or archive");
		goto out;
	}
	if (wc_streams_count(m->st) == 0) {
		wc_err_set(err, WC_ERR_INPUT, m->path, NULL, WC_NO_OFFSET,
			   "archive without traces (no NAME.blktrace.CPU member)");
		goto out;
	}
	aside_settle(m);
	ret = 0;
out:
	archive_read_free(a);
	return ret;
}

int wc_members_scan(struct wc_members **out, const char *path,
		    struct wc_streams *st, struct wc_capture *cap,
		    const struct wc_input_limits *lim, struct wc_err *err)
{
	return wc_members_scan_fd(out, path, -1, st, cap, lim, err);
}

int wc_members_scan_fd(struct wc_members **out, const char *path, int fd,
		       struct wc_streams *st, struct wc_capture *cap,
		       const struct wc_input_limits *lim, struct wc_err *err)
{
	struct wc_members *m;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return wc_err_oom(err, path, NULL);
	m->path = strdup(path);
	if (!m->path) {
		free(m);
		return wc_err_oom(err, path, NULL);
	}
	m->st = st;
	m->capture = cap;
	m->lim = *lim;
	m->fd = fd;
	m->spill_fd = -1;
	if (scan_archive(m, err) < 0) {
		wc_members_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

bool wc_members_packed(const struct wc_members *m)
{
	return m && m->packed;
}

bool wc_members_once(const struct wc_members *m)
{
	return m && m->lim.once;
}

bool wc_members_speculated(const struct wc_members *m)
{
	return m && m->speculated;
}

/*
 * The end of a speculative input (R, the input's 0 or -1): the rest
 * of the archive must be as announced, and any failure may come from
 * the speculation (a read of the last trace file that the whole scan
 * would have refused before the analysis began): WC_ERR_AGAIN says to
 * read the input again without it (wc_analysis_read() does).
 */
int wc_members_end(struct wc_members *m, int r, struct wc_err *err)
{
	struct wc_err why;
	char msg[sizeof(why.msg)];

	if (!m || !m->speculated)
		return r;
	if (m->spec_over)
		return m->spec_r;
	m->spec_over = true;
	m->spec_r = -1;
	wc_err_clear(&why);
	if (r == 0) {
		if (wc_source_tail_wait(m->tail, &why) == 0) {
			m->spec_r = 0;
			return 0;
		}
		if (err && err->kind == WC_ERR_NONE) {
			*err = why;
			err->kind = WC_ERR_AGAIN;
		}
		return -1;
	}
	if (err && err->kind != WC_ERR_NONE && err->kind != WC_ERR_AGAIN) {
		/* Cut to fit: the reread says the real message. */
		snprintf(msg, sizeof(msg), "read again without the shortcut: %.470s",
			 err->msg);
		memcpy(err->msg, msg, sizeof(msg));
		err->kind = WC_ERR_AGAIN;
	} else if (err && err->kind == WC_ERR_NONE) {
		wc_err_set(err, WC_ERR_AGAIN, m->path, NULL, WC_NO_OFFSET,
			   "read again without the shortcut");
	}
	return -1;
}

void wc_members_free(struct wc_members *m)
{
	size_t i;

	if (!m)
		return;
	/* Stops the tail's check (the member's reader, the table's, waits
	 * for nothing then). */
	wc_source_tail_free(m->tail);
	for (i = 0; i < WC_INPUT_MAX_FILES; i++) {
		free(m->ftext[i]);
		free(m->aside[i].member);
	}
	wc_member_rules_free(&m->rules);
	free(m->path);
	free(m);
}

char *wc_members_take_file(struct wc_members *m, size_t i, size_t *len)
{
	char *t;

	*len = 0;
	if (!m || i >= WC_INPUT_MAX_FILES || !m->ftext[i])
		return NULL;
	t = m->ftext[i];
	*len = m->flen[i];
	m->ftext[i] = NULL;
	return t;
}

int wc_members_open_aside(const struct wc_members *m, const char *file,
			  struct wc_source **out, struct wc_err *err)
{
	size_t k;

	*out = NULL;
	for (k = 0; k < m->lim.naside_files && k < WC_INPUT_MAX_FILES; k++)
		if (!strcmp(m->lim.aside_files[k], file))
			break;
	if (!m->lim.once || k == m->lim.naside_files || k == WC_INPUT_MAX_FILES)
		return wc_err_set(err, WC_ERR_USAGE, m->path, NULL,
				  WC_NO_OFFSET, "%s: not copied aside by the "
				  "scan (lim.aside_files)", file);
	if (!m->aside[k].member)
		return 0;
	return wc_source_open_region(out, m->spill_fd, m->aside[k].off,
				     m->aside[k].len, m->path,
				     m->aside[k].member, err);
}

/* ---- the capture's own files, on request -------------------------------- */

/* NAME (an archive member's) is the capture's FILE: FILE itself or
 * FOLDER/FILE, FOLDER one component (the capture's), "./" in front
 * ignored. */
static bool is_capture_file(const char *name, const char *file)
{
	size_t n, k = strlen(file);
	const char *slash;

	name = wc_input_member_name(name);
	if (!strcmp(name, file))
		return true;
	slash = strchr(name, '/');
	n = strlen(name);
	return slash && slash > name && (size_t)(n - (size_t)(slash - name) - 1) == k &&
	       !strcmp(slash + 1, file);
}

/* PATH/FILE of a capture folder, with no link among FILE's folders
 * (capture.conf's checks do the last component). */
static int folder_file(const char *path, const char *file, char **text,
		       size_t *len, struct wc_err *err)
{
	char p[4096];
	const char *s;
	struct stat st;

	for (s = strchr(file, '/'); s; s = strchr(s + 1, '/')) {
		if ((size_t)snprintf(p, sizeof(p), "%s/%.*s", path,
				     (int)(s - file), file) >= sizeof(p))
			return wc_err_set(err, WC_ERR_INPUT, path, NULL,
					  WC_NO_OFFSET, "path too long");
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
			return wc_err_set(err, WC_ERR_INPUT, p, NULL,
					  WC_NO_OFFSET,
					  "a symbolic link: not followed");
	}
	if ((size_t)snprintf(p, sizeof(p), "%s/%s", path, file) >= sizeof(p))
		return wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
				  "path too long");
	return wc_capture_read_file(p, text, len, err);
}

int wc_members_read_folder_files(const char *path, const char *const *files,
				 size_t n, char **texts, size_t *lens,
				 struct wc_err *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		texts[i] = NULL;
		lens[i] = 0;
	}
	for (i = 0; i < n; i++)
		if (folder_file(path, files[i], &texts[i], &lens[i], err) < 0)
			goto fail;
	return 0;
fail:
	for (i = 0; i < n; i++) {
		free(texts[i]);
		texts[i] = NULL;
		lens[i] = 0;
	}
	return -1;
}

const char *wc_members_folder(const struct wc_members *m, size_t *len)
{
	*len = m ? m->rules.capdir_len : 0;
	return m ? m->rules.capdir : NULL;
}
