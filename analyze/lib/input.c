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

#include "capture.h"
#include "decode.h"
#include "hot.h"
#include "map.h"
#include "merge.h"
#include "recfilter.h"
#include "source.h"

struct stream {
	char *file;             /* path, or archive member */
	char *dev;              /* what the CPU files share: NAME of NAME.blktrace.N */
	struct wc_decoder *dec;
	/* dec once pull_run() found that a run may read it straight (not
	 * from kept records, no blkparse names, streams never closed, no
	 * failure waiting), else NULL: whatever ends one of those drops
	 * the decoder, or clears this with it. */
	struct wc_decoder *run;
	struct wc_stream_info info;
	unsigned char *mem;     /* the whole member, read at the scan; handed
				 * to its source at the first pull */
	size_t memlen;
	bool in_memory;         /* holds no file or archive handle */
	bool spilled;           /* copied to in->spill_fd at spill_off, memlen
				 * bytes: read from there, never from the
				 * archive */
	bool aside;             /* spilled, and kept open outside the pool
				 * of handles (WC_INPUT_ASIDE_OPEN) */
	uint64_t spill_off;
	struct wc_source *ahead;  /* its member, read ahead on a thread since
				   * the scan met it, until its first pull
				   * takes it */
	bool started;           /* was open before: resume at resume */
	bool swapped;           /* its byte order, kept for the resume */
	bool done;              /* ended or failed: never opened again */
	bool oom;               /* out of memory after the events handed out */
	bool pinned;            /* the event it handed out has its payload in
				 * the decoder's buffer: cannot be closed */
	uint64_t resume;        /* offset of the next record, once closed */
	/* Records read ahead when it was closed (wc_decoder_keep), taken up
	 * from memory before its handle is reopened at resume. */
	unsigned char *kept;
	size_t keptlen;
	bool has_kept;
	bool kept_end;          /* the stream ends with them */
	bool from_kept;         /* its decoder reads them: holds no handle */
	bool chunk_end;         /* ... and the stream ends with them */
	size_t held;            /* their bytes, while its decoder reads them */
	uint64_t used;          /* when it last handed out an event */
	unsigned char stash[WC_INPUT_STASH];  /* that event's payload */
	/* blkparse's names (wc_input_set_blkparse_names): */
	const unsigned char *bytes;  /* the in-memory member, owned by mem
				      * or, once open, by the source */
	uint32_t batch_left;    /* events of blkparse's current batch not yet
				 * handed out; 0: read the next batch's names */
	uint64_t scouted;       /* offset after the last record scouted */
	bool scout_swapped;     /* byte order found by the scout */
	bool scout_over;        /* nothing more to scout */
	struct wc_decoder *scout;  /* kept open for a member not in memory */
	struct wc_source *scout_ahead;  /* its source, read ahead on a thread
					 * until the scout's first batch */
	uint64_t batch_no;      /* blkparse's batches of it begun */
	/* Names a scout pass read ahead (an archive member that shares
	 * handles), in the order of their batches: */
	struct scout_name *names;
	uint32_t nnames, names_next, names_cap;
	uint64_t names_upto;    /* batches before this one were scouted */
};


struct wc_input {
	char *path;
	/* The batch of wc_input_next_ref() when it is not the window's. */
	struct wc_event batch[WC_INPUT_BATCH];
	size_t mem_used;        /* bytes of members read at the scan */
	size_t kept_used;       /* bytes read ahead by closed streams */
	struct wc_input_limits lim;
	uint64_t last_time;     /* of the event handed out last */
	uint64_t backwards;     /* events earlier than the one before */
	unsigned open[WC_INPUT_MAX_OPEN];   /* streams holding a handle */
	unsigned nopen;
	bool may_close;         /* more streams with handles than may be open */
	size_t scout_names;     /* entries of all streams' names arrays */
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
	uint64_t tick;
	char *name;
	int archive;            /* streams are members of path */
	int single;             /* one interleaved stream */
	struct stream *streams;
	size_t nstreams, cap_streams;
	struct wc_merge *merge;
	struct wc_reorder *reorder;
	struct wc_capture *capture;
	struct wc_recfilter *filter;  /* process names, sequence gaps */
	bool blk_names;         /* names as blkparse gives them */
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

/* blktrace_cpu()'s answer for a name meant as a trace file's whose CPU
 * part is no CPU number. */
#define CPU_BAD (-2L)

/* The CPU of a "NAME.blktrace.CPU" name, with the length of NAME; -1 when
 * the name is not one; CPU_BAD (with *baselen set) when the part after
 * ".blktrace." is meant as a CPU (a digit, then letters and digits only)
 * but is no decimal number of 0 to 65535 (".65536", ".99999999999",
 * ".0x1"): such a file is refused, never quietly left out of the trace.
 * "NAME.blktrace.0.bak" is not a trace file. */
static long blktrace_cpu(const char *name, size_t *baselen)
{
	const char *p = strstr(name, ".blktrace.");
	const char *next, *q;
	char *end;
	unsigned long cpu;

	if (!p)
		return -1;
	/* The last occurrence: a directory may contain ".blktrace." too. */
	while ((next = strstr(p + 1, ".blktrace.")) != NULL)
		p = next;
	if (p[10] < '0' || p[10] > '9')
		return -1;
	for (q = p + 10; *q; q++)
		if (!(*q >= '0' && *q <= '9') && !(*q >= 'a' && *q <= 'z') &&
		    !(*q >= 'A' && *q <= 'Z'))
			return -1;
	if (baselen)
		*baselen = (size_t)(p - name);
	errno = 0;
	cpu = strtoul(p + 10, &end, 10);
	if (*end || errno || cpu > 65535)
		return CPU_BAD;
	return (long)cpu;
}

static int cpu_bad(const char *file, const char *member, struct wc_err *err)
{
	return wc_err_set(err, WC_ERR_INPUT, file, member, WC_NO_OFFSET,
			  "not a trace file's name: its CPU part is no "
			  "number from 0 to 65535");
}

static int add_stream(struct wc_input *in, const char *file, const char *dev,
		      uint32_t cpu, struct wc_err *err)
{
	struct stream *s;

	if (in->nstreams >= WC_INPUT_MAX_STREAMS)
		return wc_err_set(err, WC_ERR_INPUT, in->path, NULL,
				  WC_NO_OFFSET, "more than %u trace files",
				  WC_INPUT_MAX_STREAMS);
	if (in->nstreams == in->cap_streams) {
		size_t cap = in->cap_streams ? 2 * in->cap_streams : 8;
		struct stream *n = realloc(in->streams, cap * sizeof(*n));

		if (!n)
			return wc_err_oom(err, in->path, NULL);
		in->streams = n;
		in->cap_streams = cap;
	}
	s = &in->streams[in->nstreams];
	memset(s, 0, sizeof(*s));
	s->file = strdup(file);
	s->dev = strdup(dev);
	if (!s->file || !s->dev) {
		free(s->file);
		free(s->dev);
		return wc_err_oom(err, in->path, NULL);
	}
	s->info.cpu = cpu;
	in->nstreams++;
	return 0;
}

static int stream_cmp(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;
	int c = strcmp(x->dev, y->dev);

	if (c)
		return c;
	return (x->info.cpu > y->info.cpu) - (x->info.cpu < y->info.cpu);
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
		long cpu = blktrace_cpu(de->d_name, &baselen);
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
		if (cpu == CPU_BAD) {
			r = cpu_bad(path, NULL, err);
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
		r = add_stream(in, path, dev, (uint32_t)cpu, err);
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
 * Reads the member just added as a stream whole into memory when it is
 * small and the budget allows: it then needs no archive handle of its
 * own, however many such members there are.
 */
static int keep_small_member(struct wc_input *in, struct archive *a,
			     struct archive_entry *ent, struct wc_err *err)
{
	struct stream *s = &in->streams[in->nstreams - 1];
	la_int64_t size;
	size_t got = 0;
	ssize_t n = 0;

	if (!archive_entry_size_is_set(ent))
		return 0;
	size = archive_entry_size(ent);
	if (in->lim.no_memory || size < 0 ||
	    (uint64_t)size > in->lim.small_member ||
	    (uint64_t)size > in->lim.mem_budget - in->mem_used)
		return 0;
	s->mem = malloc(size ? (size_t)size : 1);
	if (!s->mem)
		return wc_err_oom(err, in->path, NULL);
	while (got < (size_t)size) {
		n = archive_read_data(a, s->mem + got, (size_t)size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (member_to_end(a, in->path, s->file, got, (size_t)size,
			  n < 0 ? n : 1, err) < 0)
		return -1;
	s->memlen = got;
	s->bytes = s->mem;
	s->in_memory = true;
	in->mem_used += (size_t)size;
	return 0;
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
	return 0;
}

/*
 * The member just added, when neither read whole nor among the first
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
 * WC_INPUT_SPILL_MAX bytes.
 */
static int spill_member(struct wc_input *in, struct archive *a,
			struct archive_entry *ent, struct wc_err *err)
{
	struct stream *s = &in->streams[in->nstreams - 1];
	const size_t chunk = 64u * 1024u;
	unsigned char *buf;
	uint64_t got = 0;
	ssize_t n, w;
	size_t off;
	int ret = -1;

	if (s->in_memory || ++in->large <= wc_input_handles(&in->lim))
		return 0;
	if (in->spill_fd < 0 && spill_open(in, err) < 0)
		return -1;
	buf = malloc(chunk);
	if (!buf)
		return wc_err_oom(err, in->path, NULL);
	s->spill_off = in->spill_used;
	while ((n = archive_read_data(a, buf, chunk)) != 0) {
		if (n == ARCHIVE_RETRY)
			continue;
		if (n < 0) {
			wc_err_set(err, WC_ERR_INPUT, in->path, s->file, got,
				   "%s", ar_why(a));
			goto out;
		}
		if (in->spill_used + (uint64_t)n > WC_INPUT_SPILL_MAX) {
			wc_err_set(err, WC_ERR_INPUT, in->path, s->file, got,
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
				wc_err_set(err, WC_ERR_SYSTEM, in->path, s->file,
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
		wc_err_set(err, WC_ERR_INPUT, in->path, s->file, got,
			   "the member ends here, before the %lld bytes its "
			   "header gives", (long long)archive_entry_size(ent));
		goto out;
	}
	s->spilled = true;
	s->memlen = (size_t)got;
	ret = 0;
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
static int ahead_at_scan(struct wc_input *in, struct archive *a,
			 struct wc_err *err)
{
	struct stream *s = &in->streams[in->nstreams - 1];
	int format = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	size_t i;

	/* A plain tar or cpio has nothing to decompress: read in place,
	 * a thread only moves the bytes to another core's cache (0.2 s
	 * more CPU time on the 490 MB of the sample's 10 M events). */
	in->packed = archive_filter_count(a) > 1 ||
		     (format != ARCHIVE_FORMAT_TAR && format != ARCHIVE_FORMAT_CPIO);
	if (s->in_memory || s->spilled || !in->packed)
		return 0;
	if (++in->handles > in->lim.max_open) {
		for (i = 0; i < in->nstreams && in->nahead; i++) {
			if (!in->streams[i].ahead)
				continue;
			wc_source_free(in->streams[i].ahead);
			in->streams[i].ahead = NULL;
			in->nahead--;
		}
		return 0;
	}
	if (in->nahead >= WC_INPUT_AHEAD)
		return 0;
	if (wc_source_open_member_ahead(&s->ahead, in->path, s->file, err) < 0)
		return -1;
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
	if (blktrace_cpu(name, NULL) != -1 || is_side_file(base))
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
			size_t ntrace, struct wc_err *err)
{
	struct stream *s = &in->streams[in->nstreams - 1];
	int format = archive_format(a) & ARCHIVE_FORMAT_BASE_MASK;
	int r;

	if (!in->lim.speculate || !in->capture->trace_files ||
	    ntrace != in->capture->trace_files || s->in_memory || s->spilled)
		return 0;
	if (archive_filter_count(a) <= 1 &&
	    (format == ARCHIVE_FORMAT_TAR || format == ARCHIVE_FORMAT_CPIO))
		return 0;
	if (in->handles + 1 > in->lim.max_open || in->nahead != in->handles ||
	    in->nahead >= WC_INPUT_AHEAD)
		return 0;
	r = wc_source_adopt_member_ahead(&s->ahead, &in->tail, in->path,
					 s->file, a, tail_entry, err);
	if (r != 0)
		return r < 0 ? -1 : 0;
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
		cpu = blktrace_cpu(name, &baselen);
		if (cpu == CPU_BAD) {
			cpu_bad(in->path, name, err);
			goto out;
		}
		if (cpu >= 0) {
			char dev[4096];

			if (one_capture(in, name, -1, err) < 0)
				goto out;
			snprintf(dev, sizeof(dev), "%.*s", (int)baselen, name);
			if (add_stream(in, name, dev, (uint32_t)cpu, err) < 0)
				goto out;
			if (keep_small_member(in, a, ent, err) < 0)
				goto out;
			if (spill_member(in, a, ent, err) < 0)
				goto out;
			r = speculate_at(in, a, ++ntrace, err);
			if (r < 0)
				goto out;
			if (r > 0) {
				/* The handle is the member's reader's now. */
				a = NULL;
				in->archive = 1;
				ret = 0;
				goto out;
			}
			if (ahead_at_scan(in, a, err) < 0)
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
	if (in->nstreams == 0 && (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_MTREE) {
		/* libarchive takes a text file of path-like lines (/etc/passwd)
		 * for an mtree listing: it is no archive of files. */
		wc_err_set(err, WC_ERR_INPUT, in->path, NULL, 0,
			   "not a trace or archive");
		goto out;
	}
	if (in->nstreams == 0) {
		wc_err_set(err, WC_ERR_INPUT, in->path, NULL, WC_NO_OFFSET,
			   "archive without traces (no NAME.blktrace.CPU member)");
		goto out;
	}
	in->archive = 1;
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
		in->single = 1;
		return add_stream(in, "-", "-", UINT32_MAX, err);
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
		if (in->nstreams == 0)
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
			if (blktrace_cpu(base_of(path), &baselen) >= 0)
				goto base_name;
			in->single = 1;
			return add_stream(in, path, path, UINT32_MAX, err);
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
	if (blktrace_cpu(tmp, &baselen) >= 0)
		tmp[baselen] = '\0';
	if (scan_dir(in, dir, tmp, err) < 0)
		return -1;
	if (in->nstreams == 0)
		return wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
				  "no such file, and no %s.blktrace.CPU files",
				  tmp);
	return 0;
}

/* ---- process names ---------------------------------------------------- */

/* A command name is at most 15 characters, kept with its NUL. */
#define COMM_SIZE 16

/* blkparse reads each per-CPU file in batches of this many records
 * (rb_batch; notify records other than messages not counted). */
#define BLKPARSE_BATCH 512u

/* A process notify a scout pass read, for the batch it is in. */
struct scout_name {
	uint64_t batch;
	uint32_t pid;
	char name[COMM_SIZE];
};

static int comm_add(struct wc_input *in, uint32_t pid, const unsigned char *p,
		    size_t len)
{
	return wc_recfilter_name(in->filter, pid, p, len);
}

const char *wc_input_comm(const struct wc_input *in, uint32_t pid)
{
	return wc_recfilter_comm(in->filter, pid);
}

void wc_input_set_blkparse_names(struct wc_input *in)
{
	size_t i, n = 0;

	in->blk_names = true;
	/* The scouts of archive members keep handles of their own: read
	 * ahead on threads from now, as the members themselves are (for
	 * at most WC_INPUT_AHEAD), they decompress their way to their
	 * members side by side rather than at their first batches, one
	 * after the other.  On failure, the scout opens its handle later. */
	for (i = 0; in->archive && in->packed && !in->may_close &&
		    i < in->nstreams && n < WC_INPUT_AHEAD; i++) {
		struct stream *s = &in->streams[i];

		if (s->in_memory || s->scout || s->scout_ahead)
			continue;
		if (wc_source_open_member_ahead(&s->scout_ahead, in->path,
						s->file, NULL) < 0)
			break;
		n++;
	}
	/* Read in blkparse's batches, a single stream knows the names
	 * blkparse knew when it printed. */
	if (in->reorder)
		wc_reorder_set_blkparse(in->reorder);
}

/* A new handle on stream s: its archive member, standard input or file. */
static int open_handle(struct wc_input *in, const struct stream *s,
		       struct wc_source **src, struct wc_err *err)
{
	if (s->spilled)
		return wc_source_open_region(src, in->spill_fd, s->spill_off,
					     s->memlen, in->path, s->file, err);
	if (in->archive)
		return wc_source_open_member(src, in->path, s->file, err);
	if (strcmp(s->file, "-") == 0)
		return wc_source_open_fd(src, STDIN_FILENO, "-", err);
	/* The one file the user named is theirs to have linked; files
	 * found in a folder are not followed (scan_dir()). */
	return wc_source_open_file_flags(src, s->file,
					 in->single ? 0 : O_NOFOLLOW, err);
}

/* A decoder of stream i over src, which it takes; with resume, from
 * offset off of a stream in byte order swapped. */
static int decoder_at(struct wc_source *src, unsigned i, bool resume,
		      uint64_t off, bool swapped, struct wc_decoder **dec,
		      struct wc_err *err)
{
	if (resume && wc_source_skip(src, off, err) < 0) {
		wc_source_free(src);
		return -1;
	}
	if (wc_decoder_open(dec, src, i, err) < 0)
		return -1;
	if (resume)
		wc_decoder_expect(*dec, swapped);
	return 0;
}

/* The decoder the scout of stream i reads with, from where it stopped;
 * -1 when it cannot have one. */
static int scout_open(struct wc_input *in, unsigned i, struct wc_decoder **dec,
		      struct wc_err *err)
{
	struct stream *s = &in->streams[i];
	struct wc_source *src = NULL;
	int r;

	if (s->scout) {
		*dec = s->scout;
		return 0;
	}
	r = 0;
	if (s->in_memory)
		r = wc_source_open_borrowed(&src, in->path, s->file, s->bytes,
					    s->memlen, err);
	else if (s->scout_ahead)
		src = s->scout_ahead;
	else
		r = open_handle(in, s, &src, err);
	s->scout_ahead = NULL;
	if (r < 0 || decoder_at(src, i, s->scouted != 0, s->scouted,
				s->scout_swapped, dec, err) < 0)
		return -1;
	/* An archive member is read from the archive's start at each open:
	 * keep its scout.  Not when handles must be shared among more
	 * streams than may be open, where it would need a second handle
	 * each (scout_pass() instead). */
	if (!s->in_memory && in->archive && !in->may_close)
		s->scout = *dec;
	return 0;
}

static int make_room(struct wc_input *in, struct wc_err *err);

static void names_drop(struct wc_input *in, struct stream *s)
{
	in->scout_names -= s->names_cap;
	free(s->names);
	s->names = NULL;
	s->nnames = s->names_next = s->names_cap = 0;
}

/* Queues pid's name for batch b; false when the bounds leave no room. */
static bool names_put(struct wc_input *in, struct stream *s, uint64_t b,
		      uint32_t pid, const unsigned char *p, size_t len)
{
	struct scout_name *n;

	if (s->nnames == s->names_cap) {
		uint32_t cap = s->names_cap ? 2 * s->names_cap : 16;

		if (cap > WC_INPUT_SCOUT_NAMES ||
		    in->scout_names + (cap - s->names_cap) > WC_INPUT_SCOUT_NAMES_ALL)
			return false;
		n = realloc(s->names, cap * sizeof(*n));
		if (!n)
			return false;
		in->scout_names += cap - s->names_cap;
		s->names = n;
		s->names_cap = cap;
	}
	n = &s->names[s->nnames++];
	n->batch = b;
	n->pid = pid;
	if (len > COMM_SIZE - 1)
		len = COMM_SIZE - 1;
	memcpy(n->name, p, len);
	n->name[len] = '\0';
	return true;
}

/* Reads one of blkparse's batches from dec (BLKPARSE_BATCH events; notify
 * records do not count) for its process names: to comm_add() now, or
 * with queue, to s's queue for batch b.  Returns what the last
 * wc_decoder_next() returned (1: more to read), or -2 out of memory. */
static int scout_read_batch(struct wc_input *in, struct stream *s,
			    struct wc_decoder *dec, bool queue, uint64_t b,
			    struct wc_err *scratch)
{
	struct wc_event ev;
	uint32_t n = 0;
	int r = 1;

	while (n < BLKPARSE_BATCH && (r = wc_decoder_next(dec, &ev, scratch)) > 0) {
		if (!wc_event_is_notify(&ev) || ev.action == WC_ACTION_MESSAGE) {
			n++;
			continue;
		}
		if (ev.action != WC_ACTION_PROCESS)
			continue;
		if (!queue) {
			if (comm_add(in, ev.pid, ev.pdu, ev.pdu_len) < 0)
				return -2;
		} else if (!wc_recfilter_comm(in->filter, ev.pid)) {
			names_put(in, s, b, ev.pid, ev.pdu, ev.pdu_len);
		}
	}
	return r;
}

/*
 * The scout of an archive member when more members need handles than may
 * be open: a second handle kept per member would double them, and one
 * opened per batch would decompress the archive from its start every 512
 * records.  So one handle, opened for the pass (after closing a stream if
 * none is free) and closed after it, reads from batch b on up to
 * WC_INPUT_KEEP bytes of records, and queues the names of pids not named
 * yet with their batch numbers, at most WC_INPUT_SCOUT_NAMES a stream and
 * WC_INPUT_SCOUT_NAMES_ALL in all: names past that are the reader's to
 * take when it reads them.  Failing, it leaves the names to the reader.
 */
static int scout_pass(struct wc_input *in, unsigned i, uint64_t b)
{
	struct stream *s = &in->streams[i];
	struct wc_decoder *dec = NULL;
	struct wc_err scratch;
	uint64_t start = s->scouted;
	int r;

	names_drop(in, s);
	s->names_upto = b + 1;
	wc_err_clear(&scratch);
	if (in->nopen >= in->lim.max_open && make_room(in, &scratch) < 0)
		return 0;   /* every open stream pinned: this batch unscouted */
	if (scout_open(in, i, &dec, &scratch) < 0) {
		s->scout_over = true;
		return 0;
	}
	for (;;) {
		r = scout_read_batch(in, s, dec, true, b, &scratch);
		s->names_upto = ++b;
		/* A failure is the reader's to report, when it gets there. */
		if (r <= 0) {
			s->scout_over = true;
			break;
		}
		s->scouted = wc_decoder_resume_offset(dec);
		if (s->scouted - start >= WC_INPUT_KEEP ||
		    s->nnames == WC_INPUT_SCOUT_NAMES)
			break;
	}
	s->scout_swapped = wc_decoder_swapped(dec);
	wc_decoder_free(dec);
	return 0;
}

/* Batch b of stream i begins: the names scout_pass() read for it. */
static int scout_queued(struct wc_input *in, unsigned i, uint64_t b,
			struct wc_err *err)
{
	struct stream *s = &in->streams[i];

	if (b >= s->names_upto && !s->scout_over)
		scout_pass(in, i, b);
	while (s->names_next < s->nnames && s->names[s->names_next].batch <= b) {
		const struct scout_name *n = &s->names[s->names_next++];

		if (n->batch == b &&
		    comm_add(in, n->pid, (const unsigned char *)n->name,
			     strlen(n->name)) < 0)
			return wc_err_oom(err, in->path, NULL);
	}
	return 0;
}

/*
 * blkparse names a pid by the first process notify it reads for it, and
 * it reads each per-CPU file a batch at a time: every file's first batch
 * before it prints anything, the next batch of a file right after it
 * printed the last event of the one before.  So a name can come from a
 * notify far ahead of the event, on another CPU.  The scout reads stream
 * i's next batch ahead of its reader, taking the names only; the reader
 * hands the events out.  Failing, it leaves the names to the reader.
 */
static int scout_batch(struct wc_input *in, unsigned i, struct wc_err *err)
{
	struct stream *s = &in->streams[i];
	struct wc_decoder *dec = NULL;
	struct wc_err scratch;
	int r;
	uint64_t b = s->batch_no++;

	if (!s->in_memory && in->archive && in->may_close)
		return scout_queued(in, i, b, err);
	if (s->scout_over)
		return 0;
	wc_err_clear(&scratch);
	if (scout_open(in, i, &dec, &scratch) < 0) {
		s->scout_over = true;
		return 0;
	}
	r = scout_read_batch(in, s, dec, false, b, &scratch);
	if (r == -2) {
		if (dec != s->scout)
			wc_decoder_free(dec);
		return wc_err_oom(err, in->path, NULL);
	}
	/* A failure is the reader's to report, when it gets there. */
	if (r <= 0)
		s->scout_over = true;
	s->scouted = wc_decoder_resume_offset(dec);
	s->scout_swapped = wc_decoder_swapped(dec);
	if (dec != s->scout || s->scout_over) {
		wc_decoder_free(dec);
		s->scout = NULL;
	}
	return 0;
}

/* ---- reading ---------------------------------------------------------- */

/* Frees stream s's decoder, and the records it read from memory. */
static void drop_decoder(struct wc_input *in, struct stream *s)
{
	wc_decoder_free(s->dec);
	s->dec = NULL;
	s->run = NULL;
	if (s->from_kept) {
		in->kept_used -= s->held;
		s->held = 0;
		s->from_kept = false;
	}
}

/* Closes stream s, to take it up again at the record after the one it
 * handed out last (whose payload is in its stash, or it has none).
 * Reopening an archive member decompresses the archive again from its
 * start, so the records its handle can still read go to memory first,
 * as many as the memory budget leaves room for (up to WC_INPUT_KEEP):
 * the stream needs its handle again only after those. */
static void close_stream(struct wc_input *in, unsigned k)
{
	unsigned i = in->open[k];
	struct stream *s = &in->streams[i];
	size_t used = in->mem_used + in->kept_used, room;
	struct wc_err scratch;

	s->resume = wc_decoder_resume_offset(s->dec);
	s->swapped = wc_decoder_swapped(s->dec);
	s->started = true;
	room = used < in->lim.mem_budget ? in->lim.mem_budget - used : 0;
	if (room > WC_INPUT_KEEP_ALL - in->kept_used)
		room = WC_INPUT_KEEP_ALL - in->kept_used;
	if (room > WC_INPUT_KEEP)
		room = WC_INPUT_KEEP;
	if (!in->lim.no_memory && room >= WC_INPUT_KEEP_MIN) {
		wc_err_clear(&scratch);
		/* On failure nothing is kept: the reopened handle reads
		 * the records again and reports what went wrong. */
		if (wc_decoder_keep(s->dec, room, &s->kept, &s->keptlen,
				    &s->kept_end, &scratch) == 0 &&
		    (s->keptlen || s->kept_end)) {
			s->has_kept = true;
			in->kept_used += s->keptlen;
		}
	}
	drop_decoder(in, s);
	in->open[k] = in->open[--in->nopen];
}

/* Stream i takes up the records kept when it was closed; no handle. */
static int open_kept(struct wc_input *in, unsigned i, struct wc_err *err)
{
	struct stream *s = &in->streams[i];
	struct wc_source *src = NULL;
	const char *path = in->archive ? in->path : s->file;
	const char *member = in->archive ? s->file : NULL;

	s->has_kept = false;
	s->from_kept = true;
	s->chunk_end = s->kept_end;
	s->held = s->keptlen;
	if (wc_source_open_memory(&src, path, member, s->kept, s->keptlen,
				  err) < 0)
		goto fail;
	s->kept = NULL;
	wc_source_rebase(src, s->resume);
	s->resume += s->keptlen;
	if (wc_decoder_open(&s->dec, src, i, err) < 0)
		goto fail;
	wc_decoder_expect(s->dec, s->swapped);
	return 0;

fail:
	s->kept = NULL;
	in->kept_used -= s->held;
	s->held = 0;
	s->from_kept = false;
	return -1;
}

/* A stream whose reopening costs a decompression of the archive up to
 * it, not a seek. */
static bool costly(const struct wc_input *in, const struct stream *s)
{
	return in->archive && !s->spilled;
}

/* Makes room for one more handle: closes the stream used longest ago,
 * among those cheap to reopen (files, members copied aside) when there
 * is one: at most WC_INPUT_HANDLES members hold an archive handle, so
 * those stay open while the many share the rest. */
static int make_room(struct wc_input *in, struct wc_err *err)
{
	unsigned k, best = UINT_MAX;

	for (k = 0; k < in->nopen; k++) {
		const struct stream *s = &in->streams[in->open[k]];
		const struct stream *b = best == UINT_MAX ? NULL :
					 &in->streams[in->open[best]];

		if (s->pinned)
			continue;
		if (!b || costly(in, b) > costly(in, s) ||
		    (costly(in, b) == costly(in, s) && s->used < b->used))
			best = k;
	}
	if (best == UINT_MAX)
		return wc_err_set(err, WC_ERR_INPUT, in->path, NULL,
				  WC_NO_OFFSET,
				  "more than %u trace files hold payloads of over "
				  "%u bytes at once", in->lim.max_open,
				  WC_INPUT_STASH);
	close_stream(in, best);
	return 0;
}

static int open_stream(struct wc_input *in, unsigned i, struct wc_err *err)
{
	struct stream *s = &in->streams[i];
	struct wc_source *src = NULL;
	int r;

	if (s->in_memory) {
		r = wc_source_open_memory(&src, in->path, s->file, s->mem,
					  s->memlen, err);
		s->mem = NULL;
		if (r < 0)
			return -1;
		return wc_decoder_open(&s->dec, src, i, err);
	}
	if (s->has_kept)
		return open_kept(in, i, err);
	if (!s->aside && in->nopen >= in->lim.max_open &&
	    make_room(in, err) < 0)
		return -1;
	if (s->ahead) {
		src = s->ahead;
		s->ahead = NULL;
	} else if (open_handle(in, s, &src, err) < 0) {
		return -1;
	}
	if (decoder_at(src, i, s->started, s->resume, s->swapped, &s->dec,
		       err) < 0)
		return -1;
	if (!s->aside)
		in->open[in->nopen++] = i;
	return 0;
}

/* The stream is over: its handle (or memory) goes now, not at the end. */
static void end_stream(struct wc_input *in, unsigned i)
{
	struct stream *s = &in->streams[i];
	unsigned k;

	for (k = 0; k < in->nopen; k++)
		if (in->open[k] == i) {
			in->open[k] = in->open[--in->nopen];
			break;
		}
	drop_decoder(in, s);
	wc_decoder_free(s->scout);
	s->scout = NULL;
	wc_source_free(s->ahead);
	s->ahead = NULL;
	wc_source_free(s->scout_ahead);
	s->scout_ahead = NULL;
	names_drop(in, s);
	s->done = true;
}

/*
 * Stream i's records as the decoder gives them, up to MAX and LIMIT as
 * wc_decoder_next_run() reads them, through the record filter
 * (recfilter.h), until a read keeps at least one event: 1 with *got of
 * them in out, else the decoder's 0, -1 or 2.  The stream is open.
 */
static inline int read_events(struct wc_input *in, struct stream *s, unsigned i,
		       struct wc_event *out, size_t max, uint64_t limit,
		       unsigned flags, size_t *got, struct wc_err *err)
{
	size_t n, k;
	int r;

	for (;;) {
		r = wc_decoder_next_run(s->dec, out, max, limit,
					flags & WC_PULL_BUFFERED, &n, err);
		if (__builtin_expect(r != 1, 0)) {
			if (r == 2)
				return 2;
			if (r == 0 && s->from_kept && !s->chunk_end) {
				/* Its records in memory go with the
				 * decoder. */
				if (flags & WC_PULL_BUFFERED)
					return 2;
				/* The records kept in memory are over: the
				 * handle again, where they end. */
				drop_decoder(in, s);
				if (open_stream(in, i, err) < 0) {
					end_stream(in, i);
					return -1;
				}
				continue;
			}
			end_stream(in, i);
			return r;
		}
		s->info.events += n;
		if (__builtin_expect(wc_recfilter_run(in->filter, out, n, &k,
						      &s->info.skips) < 0, 0)) {
			/* The events before it go first; the failure at
			 * the next call. */
			if (!k) {
				end_stream(in, i);
				return wc_err_oom(err, in->path, NULL);
			}
			s->oom = true;
			s->run = NULL;
		}
		/* Only notify records: on to the next event. */
		if (k) {
			*got = k;
			return 1;
		}
	}
}

/*
 * pull_run()'s start for a stream that is not known to be read straight
 * (s->run): its failure waiting, its end, blkparse's next batch of
 * names, its handle to open.  1 to read on, at most *max events, else
 * what pull_run() returns.  The stream is read a record at a time while
 * each event must be looked at on its own (pull_one()): when it may be
 * closed under the merge, when blkparse's batches of its per-CPU file
 * name the pids (--dump), and while it reads the records kept at a close (its handle
 * again where they end).  Else it is read straight from now on, until
 * its decoder changes.
 */
static __attribute__((noinline)) int pull_start(struct wc_input *in,
						unsigned i, size_t *max,
						struct wc_err *err)
{
	struct stream *s = &in->streams[i];

	if (s->oom) {
		s->oom = false;
		end_stream(in, i);
		return wc_err_oom(err, in->path, NULL);
	}
	if (s->done)
		return 0;
	s->pinned = false;
	if (in->blk_names && !in->single && s->batch_left == 0) {
		if (scout_batch(in, i, err) < 0)
			return -1;
		s->batch_left = BLKPARSE_BATCH;
	}
	if (!s->dec && open_stream(in, i, err) < 0) {
		end_stream(in, i);
		return -1;
	}
	if (s->from_kept || (in->blk_names && !in->single) || in->may_close)
		*max = 1;
	else
		s->run = s->dec;
	return 1;
}

/* The one event a stream not read straight handed out, EV. */
static __attribute__((noinline)) void pull_one(struct wc_input *in,
					       struct stream *s,
					       struct wc_event *ev)
{
	if (s->batch_left)
		s->batch_left--;
	if (in->may_close && !s->in_memory && !s->aside) {
		/* The merge keeps this event while the stream may be closed
		 * under it: its payload must outlive the decoder's buffer. */
		s->used = ++in->tick;
		if (ev->pdu_len <= WC_INPUT_STASH) {
			memcpy(s->stash, ev->pdu, ev->pdu_len);
			ev->pdu = s->stash;
		} else {
			s->pinned = true;
		}
	}
}

/* The next events of stream i for the merge (wc_merge_pull_run_fn). */
static int pull_run(void *ctx, unsigned i, struct wc_event *out, size_t max,
		    uint64_t limit, unsigned flags, size_t *got,
		    struct wc_err *err)
{
	struct wc_input *in = ctx;
	struct stream *s = &in->streams[i];
	int r;

	*got = 0;
	if (__builtin_expect(!s->run, 0) &&
	    (r = pull_start(in, i, &max, err)) != 1)
		return r;
	r = read_events(in, s, i, out, max, limit, flags, got, err);
	if (__builtin_expect(!s->run, 0) && r == 1)
		pull_one(in, s, out);
	return r;
}

/* One event of stream i: a run of one. */
static int pull(void *ctx, unsigned i, struct wc_event *ev, unsigned flags,
		struct wc_err *err)
{
	size_t got;

	return pull_run(ctx, i, ev, 1, UINT64_MAX, flags, &got, err);
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

/*
 * Two trace files for one CPU of one device (sorted, they are next to
 * each other): an archive member whose name comes twice, or
 * NAME.blktrace.1 beside NAME.blktrace.01.  Refused at every size: which
 * one would be read depended on the member's size (a member is found
 * again by its name, its first namesake; one read whole at the scan is
 * its own), and "tar x" keeps the last, so wcanalyze could be shown
 * other data than extracting shows.
 */
static int twice(struct wc_input *in, struct wc_err *err)
{
	size_t i;

	for (i = 1; i < in->nstreams; i++) {
		const struct stream *a = &in->streams[i - 1];
		const struct stream *b = &in->streams[i];

		if (b->info.cpu == UINT32_MAX || a->info.cpu != b->info.cpu ||
		    strcmp(a->dev, b->dev) != 0)
			continue;
		if (strcmp(a->file, b->file) == 0)
			return wc_err_set(err, WC_ERR_INPUT,
					  in->archive ? in->path : a->file,
					  in->archive ? a->file : NULL,
					  WC_NO_OFFSET,
					  "twice in the archive: refused (which "
					  "of the two is the trace?)");
		return wc_err_set(err, WC_ERR_INPUT, in->path, NULL,
				  WC_NO_OFFSET,
				  "two trace files for CPU %u of %s (%s and %s): "
				  "refused", b->info.cpu, b->dev, a->file,
				  b->file);
	}
	return 0;
}

int wc_input_open_limits(struct wc_input **out, const char *path,
			 const struct wc_input_limits *lim, struct wc_err *err)
{
	struct wc_input *in;
	size_t i, nhandles, naside;

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
	if (resolve(in, err) < 0)
		goto fail;
	qsort(in->streams, in->nstreams, sizeof(*in->streams), stream_cmp);
	if (twice(in, err) < 0)
		goto fail;
	for (i = 0, nhandles = 0, naside = 0; i < in->nstreams; i++) {
		struct stream *s = &in->streams[i];

		if (s->spilled && naside < in->lim.aside_open) {
			s->aside = true;
			naside++;
		}
		nhandles += !s->in_memory && !s->aside;
	}
	in->may_close = nhandles > in->lim.max_open;
	for (i = 0; i < in->nstreams; i++) {
		in->streams[i].info.name = in->streams[i].file;
		if (in->single)
			in->streams[i].info.cpu = UINT32_MAX;
	}
	make_name(in);
	if (!in->name) {
		wc_err_oom(err, path, NULL);
		goto fail;
	}
	if (in->single) {
		if (wc_reorder_open(&in->reorder, WC_REORDER_WINDOW, pull, in,
				    err) < 0)
			goto fail;
		wc_reorder_set_pull_run(in->reorder, pull_run);
	} else if (wc_merge_open(&in->merge, (unsigned)in->nstreams, pull, in,
				 err) < 0) {
		goto fail;
	} else {
		wc_merge_set_pull_run(in->merge, pull_run);
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

	for (i = 0; i < in->nstreams; i++)
		if (in->streams[i].info.events)
			return 0;
	return wc_err_set(err, WC_ERR_INPUT, in->path, NULL, WC_NO_OFFSET,
			  in->nstreams > 1 ? "no trace record: every trace file is empty" :
					     "no trace record: the trace is empty");
}

static int next_batch(struct wc_input *in, struct wc_event *evs, size_t max,
		      const struct wc_event **ref, size_t *got,
		      struct wc_err *err)
{
	int r;

	*got = 0;
	if (in->failed)
		return -1;
	/* A stream that may be closed keeps one payload in its stash. */
	if (in->may_close || max > WC_INPUT_BATCH)
		max = in->may_close ? 1 : WC_INPUT_BATCH;
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
	size_t i;

	if (!in)
		return;
	wc_merge_free(in->merge);
	wc_reorder_free(in->reorder);
	/* Stops the tail's check (the member's reader, freed below, waits
	 * for nothing then). */
	wc_source_tail_free(in->tail);
	for (i = 0; i < in->nstreams; i++) {
		wc_source_free(in->streams[i].ahead);
		wc_source_free(in->streams[i].scout_ahead);
		wc_decoder_free(in->streams[i].scout);
		free(in->streams[i].names);
		wc_decoder_free(in->streams[i].dec);
		free(in->streams[i].mem);
		free(in->streams[i].kept);
		free(in->streams[i].file);
		free(in->streams[i].dev);
	}
	free(in->streams);
	wc_capture_free(in->capture);
	wc_recfilter_free(in->filter);
	if (in->spill_fd >= 0)
		close(in->spill_fd);
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
	return in->nstreams;
}

const struct wc_stream_info *wc_input_stream(const struct wc_input *in,
					     size_t i)
{
	return i < in->nstreams ? &in->streams[i].info : NULL;
}

uint64_t wc_input_genesis(const struct wc_input *in)
{
	if (in->reorder)
		return wc_reorder_genesis(in->reorder);
	return in->merge ? wc_merge_genesis(in->merge) : 0;
}
