/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/streams.h"
#include "input/streams_test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "input/decode.h"
#include "input/merge.h"
#include "input/recfilter.h"
#include "input/source.h"

struct stream {
	char *file;             /* path, or archive member */
	char *dev;              /* what the CPU files share: NAME of NAME.blktrace.N */
	struct wc_decoder *dec;
	/* dec once pull() found that a span may read it straight (not
	 * from kept records, no batches looked at, streams never closed,
	 * no failure waiting), else NULL: whatever ends one of those drops
	 * the decoder, or clears this with it. */
	struct wc_decoder *straight;
	struct wc_stream_info info;
	unsigned char *mem;     /* the whole member, read at the scan; handed
				 * to its source at the first pull */
	size_t memlen;
	bool in_memory;         /* holds no file or archive handle */
	bool spilled;           /* copied to st->spill_fd at spill_off, memlen
				 * bytes: read from there, never from the
				 * archive */
	bool aside;             /* spilled, and kept open outside the pool
				 * of handles (WC_INPUT_ASIDE_OPEN) */
	bool blocks;            /* spilled in place of a handle: read in
				 * the member's blocks */
	uint64_t spill_off;
	bool has_fd;            /* read from fd, the table's */
	int fd;
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
	unsigned char *big;     /* ... when longer (WC_INPUT_STASH_BIG) */
	size_t big_cap;
	const unsigned char *bytes;  /* the in-memory member, owned by mem
				      * or, once open, by the source */
	uint32_t batch_left;    /* events of the current batch not yet
				 * handed out (wc_streams_set_batches());
				 * 0: the next one begins */
	/* Its decoder once it ended or failed (end_stream()): the events it
	 * handed out in the caller's batch still point into its buffer, so
	 * it goes at the next pull without WC_PULL_BUFFERED
	 * (free_ended()).  ended_next: the next such stream + 1, 0 none. */
	struct wc_decoder *ended;
	size_t ended_next;
};

struct wc_streams {
	char *path;
	struct wc_input_limits lim;
	bool archive;           /* streams are members of path */
	bool single;            /* one interleaved stream */
	struct stream *streams;
	size_t nstreams, cap_streams;
	unsigned open[WC_INPUT_MAX_OPEN];   /* streams holding a handle */
	unsigned nopen;
	bool may_close;         /* more streams with handles than may be open */
	size_t keep_share;      /* what a stream closed keeps at most */
	size_t mem_used;        /* bytes of members held in memory */
	size_t kept_used;       /* bytes read ahead by closed streams */
	size_t big_used;        /* bytes of the streams' big stashes */
	uint64_t tick;
	int spill_fd;           /* the members copied aside, or -1 */
	struct wc_recfilter *filter;  /* the caller's */
	/* wc_streams_set_batches(): */
	uint32_t batch;
	wc_streams_begin_fn begin;
	wc_streams_end_fn end;
	void *batch_ctx;
	size_t ended;           /* the first stream + 1 whose decoder waits
				 * for free_ended(), 0 none */
};

int wc_streams_new(struct wc_streams **out, const char *path,
		   const struct wc_input_limits *lim,
		   struct wc_recfilter *filter, struct wc_err *err)
{
	struct wc_streams *st;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return wc_err_oom(err, path, NULL);
	st->path = strdup(path);
	if (!st->path) {
		free(st);
		return wc_err_oom(err, path, NULL);
	}
	st->lim = *lim;
	st->filter = filter;
	st->spill_fd = -1;
	*out = st;
	return 0;
}

size_t wc_streams_fd_room(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= SIZE_MAX)
		return SIZE_MAX;
	return rl.rlim_cur > WC_INPUT_FD_SPARE ?
	       (size_t)(rl.rlim_cur - WC_INPUT_FD_SPARE) : 0;
}

/* ---- names ------------------------------------------------------------ */

long wc_streams_name_cpu(const char *name, size_t *baselen)
{
	const char *p = strstr(name, ".blktrace.");
	const char *next, *q;
	char *end;
	unsigned long cpu;

	if (!p)
		return WC_STREAMS_NOT_TRACE;
	/* The last occurrence: a directory may contain ".blktrace." too. */
	while ((next = strstr(p + 1, ".blktrace.")) != NULL)
		p = next;
	if (p[10] < '0' || p[10] > '9')
		return WC_STREAMS_NOT_TRACE;
	for (q = p + 10; *q; q++)
		if (!(*q >= '0' && *q <= '9') && !(*q >= 'a' && *q <= 'z') &&
		    !(*q >= 'A' && *q <= 'Z'))
			return WC_STREAMS_NOT_TRACE;
	if (baselen)
		*baselen = (size_t)(p - name);
	errno = 0;
	cpu = strtoul(p + 10, &end, 10);
	if (*end || errno || cpu > 65535)
		return WC_STREAMS_CPU_BAD;
	return (long)cpu;
}

int wc_streams_cpu_bad(const char *file, const char *member,
		       struct wc_err *err)
{
	return wc_err_set(err, WC_ERR_INPUT, file, member, WC_NO_OFFSET,
			  "not a trace file's name: its CPU part is no "
			  "number from 0 to 65535");
}

/* ---- the table -------------------------------------------------------- */

int wc_streams_add(struct wc_streams *st, const char *file, const char *dev,
		   uint32_t cpu, struct wc_err *err)
{
	struct stream *s;

	if (st->nstreams >= WC_INPUT_MAX_STREAMS)
		return wc_err_set(err, WC_ERR_INPUT, st->path, NULL,
				  WC_NO_OFFSET, "more than %u trace files",
				  WC_INPUT_MAX_STREAMS);
	if (st->nstreams == st->cap_streams) {
		size_t cap = st->cap_streams ? 2 * st->cap_streams : 8;
		struct stream *n = realloc(st->streams, cap * sizeof(*n));

		if (!n)
			return wc_err_oom(err, st->path, NULL);
		st->streams = n;
		st->cap_streams = cap;
	}
	s = &st->streams[st->nstreams];
	memset(s, 0, sizeof(*s));
	s->file = strdup(file);
	s->dev = strdup(dev);
	if (!s->file || !s->dev) {
		free(s->file);
		free(s->dev);
		return wc_err_oom(err, st->path, NULL);
	}
	s->info.cpu = cpu;
	st->nstreams++;
	return 0;
}

size_t wc_streams_count(const struct wc_streams *st)
{
	return st->nstreams;
}

void wc_streams_hold_memory(struct wc_streams *st, size_t i,
			    unsigned char *bytes, size_t len)
{
	struct stream *s = &st->streams[i];

	s->mem = bytes;
	s->memlen = len;
	s->bytes = bytes;
	s->in_memory = true;
	st->mem_used += len;
}

size_t wc_streams_mem_used(const struct wc_streams *st)
{
	return st->mem_used;
}

void wc_streams_hold_fd(struct wc_streams *st, size_t i, int fd)
{
	st->streams[i].has_fd = true;
	st->streams[i].fd = fd;
}

void wc_streams_set_aside(struct wc_streams *st, int fd)
{
	st->spill_fd = fd;
}

void wc_streams_hold_aside(struct wc_streams *st, size_t i, uint64_t off,
			   uint64_t len, bool blocks)
{
	struct stream *s = &st->streams[i];

	s->spilled = true;
	s->blocks = blocks;
	s->spill_off = off;
	s->memlen = (size_t)len;
}

void wc_streams_hold_ahead(struct wc_streams *st, size_t i,
			   struct wc_source *src)
{
	st->streams[i].ahead = src;
}

void wc_streams_stop_ahead(struct wc_streams *st)
{
	size_t i;

	for (i = 0; i < st->nstreams; i++) {
		wc_source_free(st->streams[i].ahead);
		st->streams[i].ahead = NULL;
	}
}

static int stream_cmp(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;
	int c = strcmp(x->dev, y->dev);

	if (c)
		return c;
	return (x->info.cpu > y->info.cpu) - (x->info.cpu < y->info.cpu);
}

/* Two trace files for one CPU of one device (sorted, they are next to
 * each other).  Refused at every size: a member is found again by its
 * name, its first namesake, while one read whole at the scan is its own,
 * and "tar x" keeps the last, so wcanalyze could be shown other data
 * than extracting shows. */
static int twice(struct wc_streams *st, struct wc_err *err)
{
	size_t i;

	for (i = 1; i < st->nstreams; i++) {
		const struct stream *a = &st->streams[i - 1];
		const struct stream *b = &st->streams[i];

		if (b->info.cpu == UINT32_MAX || a->info.cpu != b->info.cpu ||
		    strcmp(a->dev, b->dev) != 0)
			continue;
		if (strcmp(a->file, b->file) == 0)
			return wc_err_set(err, WC_ERR_INPUT,
					  st->archive ? st->path : a->file,
					  st->archive ? a->file : NULL,
					  WC_NO_OFFSET,
					  "twice in the archive: refused (which "
					  "of the two is the trace?)");
		return wc_err_set(err, WC_ERR_INPUT, st->path, NULL,
				  WC_NO_OFFSET,
				  "two trace files for CPU %u of %s (%s and %s): "
				  "refused", b->info.cpu, b->dev, a->file,
				  b->file);
	}
	return 0;
}

int wc_streams_seal(struct wc_streams *st, enum wc_streams_kind kind,
		    struct wc_err *err)
{
	size_t i, nhandles, naside, room;

	st->archive = kind == WC_STREAMS_MEMBERS;
	st->single = kind == WC_STREAMS_SINGLE;
	qsort(st->streams, st->nstreams, sizeof(*st->streams), stream_cmp);
	if (twice(st, err) < 0)
		return -1;
	for (i = 0, nhandles = 0, naside = 0; i < st->nstreams; i++) {
		struct stream *s = &st->streams[i];

		if (s->spilled && naside < st->lim.aside_open) {
			s->aside = true;
			naside++;
		}
		nhandles += !s->in_memory && !s->aside;
	}
	st->may_close = nhandles > st->lim.max_open;
	/* The records kept at a close are shared by the streams closed at
	 * once (about those past the pool): each then goes back to its
	 * handle once per share of its records, rather than a few keeping
	 * WC_INPUT_KEEP to their end while the others, with nothing kept,
	 * take an open per event when the pool is far smaller than the
	 * streams that share it (a short open-file limit). */
	room = st->mem_used < st->lim.mem_budget ?
	       st->lim.mem_budget - st->mem_used : 0;
	if (room > WC_INPUT_KEEP_ALL)
		room = WC_INPUT_KEEP_ALL;
	st->keep_share = WC_INPUT_KEEP;
	if (st->may_close && room / (nhandles - st->lim.max_open) < WC_INPUT_KEEP)
		st->keep_share = room / (nhandles - st->lim.max_open);
	if (st->keep_share < WC_INPUT_KEEP_MIN)
		st->keep_share = WC_INPUT_KEEP_MIN;
	for (i = 0; i < st->nstreams; i++) {
		st->streams[i].info.name = st->streams[i].file;
		if (st->single)
			st->streams[i].info.cpu = UINT32_MAX;
	}
	return 0;
}

const struct wc_stream_info *wc_streams_info(const struct wc_streams *st,
					     size_t i)
{
	return i < st->nstreams ? &st->streams[i].info : NULL;
}

bool wc_streams_may_close(const struct wc_streams *st)
{
	return st->may_close;
}

unsigned wc_streams_open_count(const struct wc_streams *st)
{
	return st->nopen;
}

bool wc_streams_in_memory(const struct wc_streams *st, size_t i)
{
	return st->streams[i].in_memory;
}

bool wc_streams_aside(const struct wc_streams *st, size_t i)
{
	return st->streams[i].spilled;
}

enum wc_streams_kind wc_streams_kind(const struct wc_streams *st)
{
	if (st->archive)
		return WC_STREAMS_MEMBERS;
	return st->single ? WC_STREAMS_SINGLE : WC_STREAMS_FILES;
}

const char *wc_streams_path(const struct wc_streams *st)
{
	return st->path;
}

void wc_streams_set_batches(struct wc_streams *st, uint32_t every,
			    wc_streams_begin_fn begin, wc_streams_end_fn end,
			    void *ctx)
{
	st->batch = every;
	st->begin = begin;
	st->end = end;
	st->batch_ctx = ctx;
}

/* ---- handles ---------------------------------------------------------- */

/* A new handle on stream s: its archive member, standard input or file. */
static int open_handle(struct wc_streams *st, const struct stream *s,
		       struct wc_source **src, struct wc_err *err)
{
	if (s->spilled && s->blocks)
		return wc_source_open_region_blocks(src, st->spill_fd,
						    s->spill_off, s->memlen,
						    st->path, s->file, err);
	if (s->spilled)
		return wc_source_open_region(src, st->spill_fd, s->spill_off,
					     s->memlen, st->path, s->file, err);
	if (st->archive)
		return wc_source_open_member(src, st->path, s->file, 0, err);
	if (strcmp(s->file, "-") == 0)
		return wc_source_open_fd(src, STDIN_FILENO, "-", err);
	if (s->has_fd) {
		if (lseek(s->fd, 0, SEEK_SET) != 0)
			return wc_err_set(err, WC_ERR_SYSTEM, s->file, NULL,
					  WC_NO_OFFSET, "%s", strerror(errno));
		return wc_source_open_fd(src, s->fd, s->file, err);
	}
	/* The one file the user named is theirs to have linked; files
	 * found in a folder are not followed (input.c). */
	return wc_source_open_file(src, s->file,
				   st->single ? 0 : O_NOFOLLOW, err);
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

int wc_streams_open_decoder(struct wc_streams *st, unsigned i,
			    struct wc_source *src, uint64_t off, bool swapped,
			    struct wc_decoder **dec, struct wc_err *err)
{
	const struct stream *s = &st->streams[i];
	int r = 0;

	if (s->in_memory) {
		wc_source_free(src);
		r = wc_source_open_memory(&src, st->path, s->file, s->bytes,
					  s->memlen, 0, err);
	} else if (!src) {
		r = open_handle(st, s, &src, err);
	}
	if (r < 0)
		return -1;
	return decoder_at(src, i, off != 0, off, swapped, dec, err);
}

/* The records stream s's decoder read from memory are gone with it. */
static void drop_kept(struct wc_streams *st, struct stream *s)
{
	if (s->from_kept) {
		st->kept_used -= s->held;
		s->held = 0;
		s->from_kept = false;
	}
}

/* Frees stream s's decoder, and the records it read from memory. */
static void drop_decoder(struct wc_streams *st, struct stream *s)
{
	wc_decoder_free(s->dec);
	s->dec = NULL;
	s->straight = NULL;
	drop_kept(st, s);
}

/* Closes stream s, to take it up again at the record after the one it
 * handed out last (whose payload is in its stash, or it has none).
 * Reopening an archive member decompresses the archive again from its
 * start, so the records its handle can still read go to memory first,
 * as many as the memory budget leaves room for (up to its share of
 * WC_INPUT_KEEP_ALL, at most WC_INPUT_KEEP): the stream needs its
 * handle again only after those. */
static void close_stream(struct wc_streams *st, unsigned k)
{
	unsigned i = st->open[k];
	struct stream *s = &st->streams[i];
	size_t used = st->mem_used + st->kept_used, room;
	struct wc_err scratch;

	s->resume = wc_decoder_resume_offset(s->dec);
	s->swapped = wc_decoder_swapped(s->dec);
	s->started = true;
	room = used < st->lim.mem_budget ? st->lim.mem_budget - used : 0;
	if (room > WC_INPUT_KEEP_ALL - st->kept_used)
		room = WC_INPUT_KEEP_ALL - st->kept_used;
	if (room > st->keep_share)
		room = st->keep_share;
	if (!st->lim.no_memory && room >= WC_INPUT_KEEP_MIN) {
		wc_err_clear(&scratch);
		/* On failure nothing is kept: the reopened handle reads
		 * the records again and reports what went wrong. */
		if (wc_decoder_keep(s->dec, room, &s->kept, &s->keptlen,
				    &s->kept_end, &scratch) == 0 &&
		    (s->keptlen || s->kept_end)) {
			s->has_kept = true;
			st->kept_used += s->keptlen;
		}
	}
	drop_decoder(st, s);
	st->open[k] = st->open[--st->nopen];
}

/* Stream i takes up the records kept when it was closed; no handle. */
static int open_kept(struct wc_streams *st, unsigned i, struct wc_err *err)
{
	struct stream *s = &st->streams[i];
	struct wc_source *src = NULL;
	const char *path = st->archive ? st->path : s->file;
	const char *member = st->archive ? s->file : NULL;

	s->has_kept = false;
	s->from_kept = true;
	s->chunk_end = s->kept_end;
	s->held = s->keptlen;
	if (wc_source_open_memory(&src, path, member, s->kept, s->keptlen,
				  WC_SOURCE_TAKE, err) < 0)
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
	st->kept_used -= s->held;
	s->held = 0;
	s->from_kept = false;
	return -1;
}

/* A stream whose reopening costs a decompression of the archive up to
 * it, not a seek. */
static bool costly(const struct wc_streams *st, const struct stream *s)
{
	return st->archive && !s->spilled;
}

/* Makes room for one more handle: closes the stream used longest ago,
 * among those cheap to reopen (files, members copied aside) when there
 * is one: at most WC_INPUT_HANDLES members hold an archive handle, so
 * those stay open while the many share the rest. */
static int make_room(struct wc_streams *st, struct wc_err *err)
{
	unsigned k, best = UINT_MAX;

	for (k = 0; k < st->nopen; k++) {
		const struct stream *s = &st->streams[st->open[k]];
		const struct stream *b = best == UINT_MAX ? NULL :
					 &st->streams[st->open[best]];

		if (s->pinned)
			continue;
		if (!b || costly(st, b) > costly(st, s) ||
		    (costly(st, b) == costly(st, s) && s->used < b->used))
			best = k;
	}
	if (best == UINT_MAX)
		return wc_err_set(err, WC_ERR_INPUT, st->path, NULL,
				  WC_NO_OFFSET,
				  "more than %u trace files hold payloads of over "
				  "%u bytes at once (or of %u in all)",
				  st->lim.max_open, WC_INPUT_STASH_BIG,
				  WC_INPUT_STASH_ALL);
	close_stream(st, best);
	return 0;
}

int wc_streams_make_room(struct wc_streams *st, struct wc_err *err)
{
	if (st->nopen < st->lim.max_open)
		return 0;
	return make_room(st, err);
}

static int open_stream(struct wc_streams *st, unsigned i, struct wc_err *err)
{
	struct stream *s = &st->streams[i];
	struct wc_source *src = NULL;
	int r;

	if (s->in_memory) {
		r = wc_source_open_memory(&src, st->path, s->file, s->mem,
					  s->memlen, WC_SOURCE_TAKE, err);
		s->mem = NULL;
		if (r < 0)
			return -1;
		return wc_decoder_open(&s->dec, src, i, err);
	}
	if (s->has_kept)
		return open_kept(st, i, err);
	if (!s->aside && st->nopen >= st->lim.max_open &&
	    make_room(st, err) < 0)
		return -1;
	if (s->ahead) {
		src = s->ahead;
		s->ahead = NULL;
	} else if (open_handle(st, s, &src, err) < 0) {
		return -1;
	}
	if (decoder_at(src, i, s->started, s->resume, s->swapped, &s->dec,
		       err) < 0)
		return -1;
	if (!s->aside)
		st->open[st->nopen++] = i;
	return 0;
}

/*
 * The stream is over: its handle (or memory) goes at the next pull
 * without WC_PULL_BUFFERED, not at the end of the input.  Not at once: a
 * stream may end or fail in the middle of a merge's batch (a bad record
 * in the bytes already read), and the events it handed out earlier in
 * that batch, with their payloads in its decoder's buffer, are the
 * caller's until it asks for the next batch (input.h, "valid until the
 * next call").  It leaves the pool of handles now; no stream is opened
 * under WC_PULL_BUFFERED, so no other takes the handle before it goes.
 */
static void end_stream(struct wc_streams *st, unsigned i)
{
	struct stream *s = &st->streams[i];
	unsigned k;

	for (k = 0; k < st->nopen; k++)
		if (st->open[k] == i) {
			st->open[k] = st->open[--st->nopen];
			break;
		}
	if (s->dec) {
		s->ended = s->dec;
		s->dec = NULL;
		s->straight = NULL;
		s->ended_next = st->ended;
		st->ended = (size_t)i + 1;
	}
	wc_source_free(s->ahead);
	s->ahead = NULL;
	if (st->end)
		st->end(st->batch_ctx, i);
	s->done = true;
}

/* The decoders of the streams that ended since the last pull without
 * WC_PULL_BUFFERED: the batch that held their events was handed back,
 * and with it their last payload set aside. */
static __attribute__((noinline)) void free_ended(struct wc_streams *st)
{
	while (st->ended) {
		struct stream *s = &st->streams[st->ended - 1];

		st->ended = s->ended_next;
		s->ended_next = 0;
		wc_decoder_free(s->ended);
		s->ended = NULL;
		drop_kept(st, s);
		free(s->big);
		s->big = NULL;
		st->big_used -= s->big_cap;
		s->big_cap = 0;
	}
}

/* ---- pulling ---------------------------------------------------------- */

/*
 * Stream i's records as the decoder gives them, up to MAX and LIMIT as
 * wc_decoder_next_span() reads them, through the record filter
 * (recfilter.h), until a read keeps at least one event: 1 with *got of
 * them in out, else the decoder's 0, -1 or WC_PULL_WOULD_READ.  The
 * stream is open.
 */
static inline int read_events(struct wc_streams *st, struct stream *s,
			      unsigned i, struct wc_event *out, size_t max,
			      uint64_t limit, unsigned flags, size_t *got,
			      struct wc_err *err)
{
	size_t n, k;
	int r;

	for (;;) {
		r = wc_decoder_next_span(s->dec, out, max, limit,
					 flags & WC_PULL_BUFFERED, &n, err);
		if (__builtin_expect(r != 1, 0)) {
			if (r == WC_PULL_WOULD_READ)
				return WC_PULL_WOULD_READ;
			if (r == 0 && s->from_kept && !s->chunk_end) {
				/* Its records in memory go with the
				 * decoder. */
				if (flags & WC_PULL_BUFFERED)
					return WC_PULL_WOULD_READ;
				/* The records kept in memory are over: the
				 * handle again, where they end. */
				drop_decoder(st, s);
				if (open_stream(st, i, err) < 0) {
					end_stream(st, i);
					return -1;
				}
				continue;
			}
			end_stream(st, i);
			return r;
		}
		s->info.events += n;
		if (__builtin_expect(wc_recfilter_apply(st->filter, out, n, &k,
							&s->info.skips) < 0, 0)) {
			/* The events before it go first; the failure at
			 * the next call. */
			if (!k) {
				end_stream(st, i);
				return wc_err_oom(err, st->path, NULL);
			}
			s->oom = true;
			s->straight = NULL;
		}
		/* Only notify records: on to the next event. */
		if (k) {
			*got = k;
			return 1;
		}
	}
}

/*
 * pull()'s start for a stream that is not known to be read straight
 * (s->straight): its failure waiting, its end, the next batch begun
 * (wc_streams_set_batches()), its handle to open.  1 to read on, at most
 * *max events, else what pull() returns.  The stream is read a
 * record at a time while each event must be looked at on its own
 * (pull_one()): when it may be closed under the merge, and while it
 * reads the records kept at a close (its handle again where they end).
 * When batches of its records are looked at ahead (blkparse's names for
 * --dump) it is read in spans that end with the batch, and a merge's
 * batch ends before the next one begins (WC_PULL_WOULD_READ under
 * WC_PULL_BUFFERED), so its names are taken after the events before it
 * were looked at.  Else it is read straight from now on, until its
 * decoder changes.
 */
static __attribute__((noinline)) int pull_start(struct wc_streams *st,
						unsigned i, size_t *max,
						unsigned flags,
						struct wc_err *err)
{
	struct stream *s = &st->streams[i];

	if (s->oom) {
		s->oom = false;
		end_stream(st, i);
		return wc_err_oom(err, st->path, NULL);
	}
	if (s->done)
		return 0;
	s->pinned = false;
	if (st->begin && s->batch_left == 0) {
		/* The next batch's names come before its first event is
		 * handed out, and after the events handed out with it
		 * are looked at: the merge's batch ends here. */
		if (flags & WC_PULL_BUFFERED)
			return WC_PULL_WOULD_READ;
		if (st->begin(st->batch_ctx, i, err) < 0)
			return -1;
		s->batch_left = st->batch;
	}
	if (!s->dec && open_stream(st, i, err) < 0) {
		end_stream(st, i);
		return -1;
	}
	if (s->from_kept || st->may_close)
		*max = 1;
	else if (st->begin && *max > s->batch_left)
		*max = s->batch_left;
	else if (!st->begin)
		s->straight = s->dec;
	return 1;
}

/* Room in s->big for a payload of LEN bytes, past the stash: a message
 * (at most 128 bytes from the kernel) must not pin its stream, or a
 * pool of a few handles (a short open-file limit) fails as soon as
 * those few streams wait on messages at once.  False past
 * WC_INPUT_STASH_BIG, past WC_INPUT_STASH_ALL for all streams, or out
 * of memory: the stream is pinned then, as before. */
static bool stash_big(struct wc_streams *st, struct stream *s, size_t len)
{
	unsigned char *b;

	if (len <= s->big_cap)
		return true;
	if (len > WC_INPUT_STASH_BIG ||
	    st->big_used - s->big_cap + len > WC_INPUT_STASH_ALL)
		return false;
	b = realloc(s->big, len);
	if (!b)
		return false;
	st->big_used = st->big_used - s->big_cap + len;
	s->big = b;
	s->big_cap = len;
	return true;
}

/* The events a stream not read straight handed out, EV[0..N) (one
 * but in a batch of blkparse's, pull_start()). */
static __attribute__((noinline)) void pull_one(struct wc_streams *st,
					       struct stream *s,
					       struct wc_event *ev, size_t n)
{
	s->batch_left -= n < s->batch_left ? (uint32_t)n : s->batch_left;
	if (st->may_close && !s->in_memory && !s->aside) {
		/* The merge keeps this event while the stream may be closed
		 * under it: its payload must outlive the decoder's buffer. */
		s->used = ++st->tick;
		if (ev->pdu_len <= WC_INPUT_STASH) {
			memcpy(s->stash, ev->pdu, ev->pdu_len);
			ev->pdu = s->stash;
		} else if (stash_big(st, s, ev->pdu_len)) {
			memcpy(s->big, ev->pdu, ev->pdu_len);
			ev->pdu = s->big;
		} else {
			s->pinned = true;
		}
	}
}

int wc_streams_pull(void *ctx, unsigned i, struct wc_event *out,
		    size_t max, uint64_t limit, unsigned flags, size_t *got,
		    struct wc_err *err)
{
	struct wc_streams *st = ctx;
	struct stream *s = &st->streams[i];
	int r;

	*got = 0;
	if (__builtin_expect(st->ended != 0, 0) &&
	    !(flags & WC_PULL_BUFFERED))
		free_ended(st);
	if (__builtin_expect(!s->straight, 0) &&
	    (r = pull_start(st, i, &max, flags, err)) != 1)
		return r;
	r = read_events(st, s, i, out, max, limit, flags, got, err);
	if (__builtin_expect(!s->straight, 0) && r == 1)
		pull_one(st, s, out, *got);
	return r;
}

void wc_streams_free(struct wc_streams *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nstreams; i++) {
		wc_source_free(st->streams[i].ahead);
		wc_decoder_free(st->streams[i].dec);
		wc_decoder_free(st->streams[i].ended);
		free(st->streams[i].mem);
		free(st->streams[i].kept);
		free(st->streams[i].big);
		free(st->streams[i].file);
		free(st->streams[i].dev);
		if (st->streams[i].has_fd)
			close(st->streams[i].fd);
	}
	free(st->streams);
	if (st->spill_fd >= 0)
		close(st->spill_fd);
	free(st->path);
	free(st);
}
