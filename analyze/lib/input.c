#include "input.h"

#include <archive.h>
#include <archive_entry.h>
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

#include "blknames.h"
#include "capture.h"
#include "merge.h"
#include "recfilter.h"
#include "source.h"
#include "streams.h"

struct wc_input {
	char *path;
	/* The batch of wc_input_next_ref() when it is not the window's. */
	struct wc_event batch[WC_INPUT_BATCH];
	struct wc_input_limits lim;
	uint64_t last_time;     /* of the event handed out last */
	uint64_t backwards;     /* events earlier than the one before */
	struct wc_streams *streams;
	/* The archive scan: */
	size_t handles;         /* members the scan found that need one */
	size_t large;           /* members read neither whole nor aside */
	int spill_fd;           /* the members copied aside, or -1 */
	uint64_t spill_used;    /* bytes in it */
	size_t nahead;          /* members it started reading ahead */
	bool packed;            /* members are decompressed to be read */
	/* The scan stopped at the last trace file capture.conf announced
	 * and handed its handle to that member's reader, which checks the
	 * rest of the archive (tail): the end waits for that check. */
	bool speculated;
	bool spec_over;         /* the end or a failure was reported: */
	int spec_r;             /* ... and which, for the calls after it */
	struct wc_source_tail *tail;
	/* The scan: the capture folder of the first trace file or side
	 * file (capture_dir()), and the side files met. */
	char *capdir;
	size_t capdir_len;
	unsigned nside[2];
	char *name;
	enum wc_streams_kind kind;
	struct wc_merge *merge;
	struct wc_reorder *reorder;
	struct wc_capture *capture;
	struct wc_recfilter *filter;  /* process names, sequence gaps */
	struct wc_blknames *names;    /* names as blkparse gives them */
	bool names_oom;         /* ... could not be had: said at the next */
	int failed;
};

/* ---- small helpers ---------------------------------------------------- */

/* libarchive's reason, which it does not always give (a zip cut inside
 * a header): never a "(null)" in a message. */
static const char *ar_why(struct archive *a)
{
	const char *why = archive_error_string(a);

	return why ? why : "cut short or damaged (libarchive gives no reason)";
}

/* ---- capture.conf and phases.tsv -------------------------------------- */

/* A member of this base name is read as capture.conf or phases.tsv. */
static bool is_side_file(const char *base)
{
	return !strcmp(base, "capture.conf") || !strcmp(base, "phases.tsv");
}

static void parse_side(struct wc_input *in, const char *base, const char *text,
		       size_t len, const char *where)
{
	if (!strcmp(base, "capture.conf"))
		wc_capture_parse_conf(in->capture, text, len, where);
	else
		wc_capture_parse_phases(in->capture, text, len, where);
}

static int load_side_files(struct wc_input *in, const char *dir,
			   struct wc_err *err)
{
	static const char *const files[] = { "capture.conf", "phases.tsv" };
	char path[4096];
	size_t i, len;
	char *text;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (wc_capture_read_file(path, &text, &len, err) < 0)
			return -1;
		if (text)
			parse_side(in, files[i], text, len, path);
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

		if (cpu == -1)
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
		 * followed; open_handle() opens with O_NOFOLLOW too, for a
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
static int keep_small_member(struct wc_input *in, struct archive *a,
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
	if (in->lim.no_memory || size < 0 ||
	    (uint64_t)size > in->lim.small_member ||
	    (uint64_t)size > in->lim.mem_budget - wc_streams_mem_used(in->streams))
		return 0;
	mem = malloc(size ? (size_t)size : 1);
	if (!mem)
		return wc_err_oom(err, in->path, NULL);
	while (got < (size_t)size) {
		n = archive_read_data(a, mem + got, (size_t)size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (member_to_end(a, in->path, name, got, (size_t)size,
			  n < 0 ? n : 1, err) < 0) {
		free(mem);
		return -1;
	}
	wc_streams_hold_memory(in->streams, i, mem, got);
	return 1;
}

/* An unnamed temporary file in TMPDIR (or /tmp), gone with its
 * descriptor; -1 with err filled. */
static int spill_open(struct wc_input *in, struct wc_err *err)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		/* A filesystem without O_TMPFILE: a name, unlinked at once. */
		snprintf(tmpl, sizeof(tmpl), "%s/wcanalyze.XXXXXX", dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	if (fd < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, dir, NULL, WC_NO_OFFSET,
				  "cannot make a temporary file for the "
				  "members read aside: %s", strerror(errno));
	in->spill_fd = fd;
	wc_streams_set_aside(in->streams, fd);
	return 0;
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
static int spill_member(struct wc_input *in, struct archive *a,
			struct archive_entry *ent, size_t i, const char *name,
			struct wc_err *err)
{
	const size_t chunk = 64u * 1024u;
	uint64_t got = 0, start = in->spill_used;
	unsigned char *buf;
	ssize_t n, w;
	size_t off;
	int ret = -1;

	if (++in->large <= wc_input_handles(&in->lim))
		return 0;
	if (in->spill_fd < 0 && spill_open(in, err) < 0)
		return -1;
	buf = malloc(chunk);
	if (!buf)
		return wc_err_oom(err, in->path, NULL);
	while ((n = archive_read_data(a, buf, chunk)) != 0) {
		if (n == ARCHIVE_RETRY)
			continue;
		if (n < 0) {
			wc_err_set(err, WC_ERR_INPUT, in->path, name, got,
				   "%s", ar_why(a));
			goto out;
		}
		if (in->spill_used + (uint64_t)n > WC_INPUT_SPILL_MAX) {
			wc_err_set(err, WC_ERR_INPUT, in->path, name, got,
				   "the members past the first %zu that need a "
				   "handle hold more than %llu bytes, the most "
				   "copied to a temporary file: refused",
				   wc_input_handles(&in->lim),
				   (unsigned long long)WC_INPUT_SPILL_MAX);
			goto out;
		}
		for (off = 0; off < (size_t)n; off += (size_t)w) {
			w = pwrite(in->spill_fd, buf + off, (size_t)n - off,
				   (off_t)(in->spill_used + off));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w <= 0) {
				wc_err_set(err, WC_ERR_SYSTEM, in->path, name,
					   got + off,
					   "copying the member to a temporary "
					   "file in %s: %s",
					   getenv("TMPDIR") && *getenv("TMPDIR") ?
					   getenv("TMPDIR") : "/tmp",
					   w < 0 ? strerror(errno) : "no room");
				goto out;
			}
		}
		in->spill_used += (uint64_t)n;
		got += (uint64_t)n;
	}
	if (archive_entry_size_is_set(ent) &&
	    got < (uint64_t)archive_entry_size(ent)) {
		wc_err_set(err, WC_ERR_INPUT, in->path, name, got,
			   "the member ends here, before the %lld bytes its "
			   "header gives", (long long)archive_entry_size(ent));
		goto out;
	}
	wc_streams_hold_aside(in->streams, i, start, got);
	ret = 1;
out:
	free(buf);
	return ret;
}

/*
 * Members of a compressed archive each decompress it from its start: on
 * threads of their own, started as the scan meets them, that work runs
 * beside the scan, the analysis and each other instead of one member
 * after the other before the analysis.  Only while every member can keep
 * its handle (past WC_INPUT_MAX_OPEN, streams are closed and taken up
 * again on the caller's thread: those started are stopped), and for at
 * most WC_INPUT_AHEAD members.
 */
static int ahead_at_scan(struct wc_input *in, struct archive *a, size_t i,
			 const char *name, bool held, struct wc_err *err)
{
	int format = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	struct wc_source *src = NULL;

	/* A plain tar or cpio has nothing to decompress: read in place,
	 * a thread only moves the bytes to another core's cache (0.2 s
	 * more CPU time on the 490 MB of the sample's 10 M events). */
	in->packed = archive_filter_count(a) > 1 ||
		     (format != ARCHIVE_FORMAT_TAR && format != ARCHIVE_FORMAT_CPIO);
	if (held || !in->packed)
		return 0;
	if (++in->handles > in->lim.max_open) {
		if (in->nahead)
			wc_streams_stop_ahead(in->streams);
		in->nahead = 0;
		return 0;
	}
	if (in->nahead >= WC_INPUT_AHEAD)
		return 0;
	if (wc_source_open_member_ahead(&src, in->path, name, err) < 0)
		return -1;
	wc_streams_hold_ahead(in->streams, i, src);
	in->nahead++;
	return 0;
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* An entry after the last announced trace file, on its reader's thread
 * (wc_source_adopt_member_ahead()): one the whole scan would have taken
 * (a trace file, capture.conf, phases.tsv) means the archive is not as
 * announced. */
static int tail_entry(const char *path, struct archive_entry *ent,
		      struct wc_err *why)
{
	const char *name = archive_entry_pathname(ent), *base;

	if (!name || archive_entry_filetype(ent) != AE_IFREG)
		return 0;
	base = base_of(name);
	if (wc_streams_name_cpu(name, NULL) != -1 || is_side_file(base))
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
static int speculate_at(struct wc_input *in, struct archive *a,
			size_t ntrace, size_t i, const char *name, bool held,
			struct wc_err *err)
{
	int format = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	struct wc_source *src = NULL;
	int r;

	if (!in->lim.speculate || !in->capture->trace_files ||
	    ntrace != in->capture->trace_files || held)
		return 0;
	if (archive_filter_count(a) <= 1 &&
	    (format == ARCHIVE_FORMAT_TAR || format == ARCHIVE_FORMAT_CPIO))
		return 0;
	if (in->handles + 1 > in->lim.max_open || in->nahead != in->handles ||
	    in->nahead >= WC_INPUT_AHEAD)
		return 0;
	r = wc_source_adopt_member_ahead(&src, &in->tail, in->path, name, a,
					 tail_entry, err);
	if (r != 0)
		return r < 0 ? -1 : 0;
	wc_streams_hold_ahead(in->streams, i, src);
	in->packed = true;
	in->handles++;
	in->nahead++;
	in->speculated = true;
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

	while (name[0] == '.' && name[1] == '/') {
		name += 2;
		while (*name == '/')
			name++;
	}
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
 * capture folder, at most one capture.conf and one phases.tsv.  A tar of
 * two capture folders would otherwise be read as one trace spliced from
 * two clocks, under the last capture.conf's name and the first's
 * destination.  Refused with the reason (the folders can be unpacked and
 * analysed each); SIDE is 0 for capture.conf, 1 for phases.tsv, -1 for a
 * trace file.
 */
static int one_capture(struct wc_input *in, const char *name, int side,
		       struct wc_err *err)
{
	size_t len;
	const char *dir = capture_dir(name, side < 0, &len);

	if (!in->capdir) {
		in->capdir = strndup(dir, len);
		if (!in->capdir)
			return wc_err_oom(err, in->path, NULL);
		in->capdir_len = len;
	} else if (len != in->capdir_len || strncmp(dir, in->capdir, len)) {
		return wc_err_set(err, WC_ERR_INPUT, in->path, name,
				  WC_NO_OFFSET,
				  "the archive holds two captures, in %s%s and "
				  "%.*s%s: refused (unpack it and analyse each "
				  "capture folder)",
				  in->capdir_len ? in->capdir : ".",
				  in->capdir_len ? "/" : "", len ? (int)len : 1,
				  len ? dir : ".", len ? "/" : "");
	}
	if (side >= 0 && ++in->nside[side] > 1)
		return wc_err_set(err, WC_ERR_INPUT, in->path, name,
				  WC_NO_OFFSET, "twice in the archive: refused "
				  "(which of the two is the capture's?)");
	return 0;
}

static int scan_archive(struct wc_input *in, struct wc_err *err)
{
	struct archive_entry *ent;
	struct archive *a;
	size_t entries = 0, ntrace = 0;
	int r, ret = -1;

	a = archive_read_new();
	if (!a)
		return wc_err_oom(err, in->path, NULL);
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, in->path, 64 * 1024) != ARCHIVE_OK) {
		wc_err_set(err, WC_ERR_INPUT, in->path, NULL, 0,
			   "not a trace or archive: %s", ar_why(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(ent);
		const char *base;
		size_t baselen;
		long cpu;

		entries++;
		if (!name || archive_entry_filetype(ent) != AE_IFREG)
			continue;
		base = base_of(name);
		cpu = wc_streams_name_cpu(name, &baselen);
		if (cpu == WC_STREAMS_CPU_BAD) {
			wc_streams_cpu_bad(in->path, name, err);
			goto out;
		}
		if (cpu >= 0) {
			char dev[4096];
			size_t i = wc_streams_count(in->streams);
			int held;

			if (one_capture(in, name, -1, err) < 0)
				goto out;
			snprintf(dev, sizeof(dev), "%.*s", (int)baselen, name);
			if (wc_streams_add(in->streams, name, dev, (uint32_t)cpu,
					   err) < 0)
				goto out;
			/* Read whole, copied aside, or neither (read from
			 * the archive on a handle of its own). */
			held = keep_small_member(in, a, ent, i, name, err);
			if (held == 0)
				held = spill_member(in, a, ent, i, name, err);
			if (held < 0)
				goto out;
			r = speculate_at(in, a, ++ntrace, i, name, held, err);
			if (r < 0)
				goto out;
			if (r > 0) {
				/* The handle is the member's reader's now. */
				a = NULL;
				in->kind = WC_STREAMS_MEMBERS;
				ret = 0;
				goto out;
			}
			if (ahead_at_scan(in, a, i, name, held, err) < 0)
				goto out;
		} else if (is_side_file(base)) {
			char *text = NULL, where[1024];
			size_t len = 0;

			if (one_capture(in, name, strcmp(base, "phases.tsv") == 0,
					err) < 0)
				goto out;
			if (read_member_text(a, ent, in->path, name, &text,
					     &len, err) < 0)
				goto out;
			snprintf(where, sizeof(where), "%s: %s", in->path, name);
			parse_side(in, base, text, len, where);
			free(text);
		}
	}
	if (r != ARCHIVE_EOF) {
		/* A file libarchive cannot make sense of at all. */
		if (entries == 0)
			wc_err_set(err, WC_ERR_INPUT, in->path, NULL, 0,
				   "not a trace or archive: %s",
				   ar_why(a));
		else
			wc_err_set(err, WC_ERR_INPUT, in->path, NULL,
				   WC_NO_OFFSET, "%s", ar_why(a));
		goto out;
	}
	if (entries == 0) {
		wc_err_set(err, WC_ERR_INPUT, in->path, NULL, WC_NO_OFFSET,
			   "empty archive");
		goto out;
	}
	if (wc_streams_count(in->streams) == 0 &&
	    (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_MTREE) {
		/* libarchive takes a text file of path-like lines (/etc/passwd)
		 * for an mtree listing: it is no archive of files. */
		wc_err_set(err, WC_ERR_INPUT, in->path, NULL, 0,
			   "not a trace or archive");
		goto out;
	}
	if (wc_streams_count(in->streams) == 0) {
		wc_err_set(err, WC_ERR_INPUT, in->path, NULL, WC_NO_OFFSET,
			   "archive without traces (no NAME.blktrace.CPU member)");
		goto out;
	}
	in->kind = WC_STREAMS_MEMBERS;
	ret = 0;
out:
	archive_read_free(a);
	return ret;
}

/* 1 when the first bytes of PATH are a blktrace magic in either order,
 * 0 when not, -1 when PATH cannot be read (err says why: an unreadable
 * file is the system's refusal, not a bad trace). */
static int starts_with_magic(const char *path, int *empty, struct wc_err *err)
{
	unsigned char b[4];
	uint32_t m;
	ssize_t n;
	int fd;

	*empty = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	n = read(fd, b, sizeof(b));
	if (n < 0) {
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, 0, "%s",
			   strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if (n == 0)
		*empty = 1;
	if (n != 4)
		return 0;
	memcpy(&m, b, 4);
	return (m & WC_BLK_MAGIC_MASK) == WC_BLK_MAGIC ||
	       (__builtin_bswap32(m) & WC_BLK_MAGIC_MASK) == WC_BLK_MAGIC;
}

static int resolve(struct wc_input *in, struct wc_err *err)
{
	const char *path = in->path;
	char tmp[4096], dir[4096];
	struct stat st;
	size_t baselen;
	int empty, magic;

	if (strcmp(path, "-") == 0) {
		in->kind = WC_STREAMS_SINGLE;
		return wc_streams_add(in->streams, "-", "-", UINT32_MAX, err);
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		struct stat st2;

		snprintf(dir, sizeof(dir), "%s/trace", path);
		if (lstat(dir, &st2) == 0 && S_ISLNK(st2.st_mode))
			return wc_err_set(err, WC_ERR_INPUT, dir, NULL,
					  WC_NO_OFFSET,
					  "a symbolic link: not followed");
		if (stat(dir, &st2) < 0 || !S_ISDIR(st2.st_mode))
			snprintf(dir, sizeof(dir), "%s", path);
		if (load_side_files(in, path, err) < 0)
			return -1;
		if (scan_dir(in, dir, NULL, err) < 0)
			return -1;
		if (wc_streams_count(in->streams) == 0)
			return wc_err_set(err, WC_ERR_INPUT, path, NULL,
					  WC_NO_OFFSET,
					  "not a trace: no NAME.blktrace.CPU files in the directory");
		return 0;
	}
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return wc_err_set(err, WC_ERR_INPUT, path, NULL,
					  WC_NO_OFFSET,
					  "not a trace: not a regular file");
		magic = starts_with_magic(path, &empty, err);
		if (magic < 0)
			return -1;
		if (magic) {
			if (wc_streams_name_cpu(base_of(path), &baselen) >= 0)
				goto base_name;
			in->kind = WC_STREAMS_SINGLE;
			return wc_streams_add(in->streams, path, path, UINT32_MAX, err);
		}
		if (empty)
			return wc_err_set(err, WC_ERR_INPUT, path, NULL, 0,
					  "not a trace: empty file");
		return scan_archive(in, err);
	}
	if (errno != ENOENT)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));

base_name:
	/* NAME stands for NAME.blktrace.0 ... NAME.blktrace.N. */
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	snprintf(tmp, sizeof(tmp), "%s", base_of(path));
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

void wc_input_set_blkparse_names(struct wc_input *in)
{
	struct wc_err err;

	wc_err_clear(&err);
	if (wc_blknames_open(&in->names, in->streams, in->filter, in->packed,
			     &err) < 0) {
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
	memmove(buf, base_of(buf), strlen(base_of(buf)) + 1);
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
	struct wc_input *in;
	size_t n;

	*out = NULL;
	in = calloc(1, sizeof(*in));
	if (!in)
		return wc_err_oom(err, path, NULL);
	if (lim)
		in->lim = *lim;
	if (!in->lim.max_open || in->lim.max_open > WC_INPUT_MAX_OPEN)
		in->lim.max_open = WC_INPUT_MAX_OPEN;
	if (!in->lim.small_member || in->lim.small_member > WC_INPUT_SMALL_MEMBER)
		in->lim.small_member = WC_INPUT_SMALL_MEMBER;
	if (!in->lim.mem_budget || in->lim.mem_budget > WC_INPUT_MEM_BUDGET)
		in->lim.mem_budget = WC_INPUT_MEM_BUDGET;
	if (!in->lim.aside_open || in->lim.aside_open > WC_INPUT_ASIDE_OPEN)
		in->lim.aside_open = WC_INPUT_ASIDE_OPEN;
	in->spill_fd = -1;
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
	if (resolve(in, err) < 0)
		goto fail;
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
		wc_reorder_set_pull_run(in->reorder, wc_streams_pull_run);
	} else if (wc_merge_open(&in->merge, (unsigned)n, wc_streams_pull,
				 in->streams, err) < 0) {
		goto fail;
	} else {
		wc_merge_set_pull_run(in->merge, wc_streams_pull_run);
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

/* A batch into evs, or with ref where the window holds it (*ref). */
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

static int next_batch(struct wc_input *in, struct wc_event *evs, size_t max,
		      const struct wc_event **ref, size_t *got,
		      struct wc_err *err)
{
	int r;

	*got = 0;
	if (in->failed)
		return failed_again(in, err);
	/* A stream that may be closed keeps one payload in its stash. */
	if (wc_streams_may_close(in->streams) || max > WC_INPUT_BATCH)
		max = wc_streams_may_close(in->streams) ? 1 : WC_INPUT_BATCH;
	if (in->reorder && ref)
		r = wc_reorder_next_ref(in->reorder, ref, max, got, err);
	else if (in->reorder)
		r = wc_reorder_next_batch(in->reorder, evs, max, got, err);
	else
		r = wc_merge_next_batch(in->merge, evs, max, got, err);
	if (r == 0 && !in->last_time && !in->backwards)
		r = no_records(in, err);
	if (r < 0)
		in->failed = 1;
	if (ref && !in->reorder)
		*ref = evs;
	/* A clock that steps back, or a stream out of order beyond what
	 * the merge can mend: counted, said once at the end.  A run of the
	 * window's ring is in time order: only its first event may be
	 * earlier than the one before. */
	if (in->reorder && ref && *got && wc_reorder_sorted(in->reorder)) {
		in->backwards += (*ref)[0].time < in->last_time;
		in->last_time = (*ref)[*got - 1].time;
	} else {
		count_backwards(in, ref ? *ref : evs, *got);
	}
	return r;
}

/*
 * The end of a speculative input (R, next_batch()'s 0 or -1): the rest
 * of the archive must be as announced, and any failure may come from
 * the speculation (a read of the last trace file that the whole scan
 * would have refused before the analysis began): WC_ERR_AGAIN says to
 * read the input again without it (wc_analysis_run() does).
 */
static __attribute__((noinline)) int spec_end(struct wc_input *in, int r,
					      struct wc_err *err)
{
	struct wc_err why;
	char msg[sizeof(why.msg)];

	if (in->spec_over)
		return in->spec_r;
	in->spec_over = true;
	in->spec_r = -1;
	in->failed = 1;
	wc_err_clear(&why);
	if (r == 0) {
		if (wc_source_tail_wait(in->tail, &why) == 0) {
			in->failed = 0;
			in->spec_r = 0;
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
		wc_err_set(err, WC_ERR_AGAIN, in->path, NULL, WC_NO_OFFSET,
			   "read again without the shortcut");
	}
	return -1;
}

int wc_input_next_batch(struct wc_input *in, struct wc_event *evs, size_t max,
			size_t *got, struct wc_err *err)
{
	int r = next_batch(in, evs, max, NULL, got, err);

	if (__builtin_expect(in->speculated && r <= 0, 0))
		r = spec_end(in, r, err);
	return r;
}

int wc_input_next_ref(struct wc_input *in, const struct wc_event **evs,
		      size_t max, size_t *got, struct wc_err *err)
{
	int r;

	*evs = in->batch;
	r = next_batch(in, in->batch, max ? max : WC_INPUT_BATCH, evs, got,
		       err);
	if (__builtin_expect(in->speculated && r <= 0, 0))
		r = spec_end(in, r, err);
	return r;
}

bool wc_input_speculated(const struct wc_input *in)
{
	return in->speculated;
}

int wc_input_next(struct wc_input *in, struct wc_event *ev, struct wc_err *err)
{
	size_t got;

	return wc_input_next_batch(in, ev, 1, &got, err);
}

uint64_t wc_input_backwards(const struct wc_input *in)
{
	return in->backwards;
}

void wc_input_free(struct wc_input *in)
{
	if (!in)
		return;
	wc_merge_free(in->merge);
	wc_reorder_free(in->reorder);
	/* Stops the tail's check (the member's reader, freed below, waits
	 * for nothing then). */
	wc_source_tail_free(in->tail);
	wc_blknames_free(in->names);
	wc_streams_free(in->streams);
	wc_capture_free(in->capture);
	wc_recfilter_free(in->filter);
	free(in->name);
	free(in->capdir);
	free(in->path);
	free(in);
}

const char *wc_input_name(const struct wc_input *in)
{
	return in->name;
}

const struct wc_capture *wc_input_capture(const struct wc_input *in)
{
	return in->capture;
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
