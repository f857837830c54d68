/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/source.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/inputdefs.h"
#include "base/spool.h"

#define READ_CHUNK (64u * 1024u)
#define BUF_SIZE (READ_CHUNK + WC_SOURCE_MAX_PEEK)
/* An archive member is read READ_CHUNK bytes at a time, always from a
 * multiple of READ_CHUNK of the member, into a block of BUF_SIZE bytes
 * after HEAD bytes of room: the unconsumed tail of the block before
 * (shorter than the largest peek) is copied in front of it, so a block
 * is taken over whole, never copied.  Reading in the same steps with or
 * without a thread gives the same offsets in messages. */
#define HEAD WC_SOURCE_MAX_PEEK
/* The buffer of a region (wc_source_open_region()), and its first read.
 * A merge of many members copied aside keeps all of them open at once:
 * a region's buffer grows to BUF_SIZE only for a record that does not
 * fit (a payload of kilobytes). */
#define REGION_BUF 8192u
#define REGION_FIRST 4096u
/* A reader thread that filled its ring sleeps until no more than this
 * many of its blocks are left unread. */
#define AHEAD_LOW ((WC_SOURCE_RING - 1u) / 2u)

enum src_kind { SRC_FD, SRC_ARCHIVE, SRC_MEMORY, SRC_REGION };

/* A block a reader thread filled. */
struct block {
	size_t len;           /* bytes at HEAD */
	bool last;            /* the member ends after them */
	bool failed;          /* reading after them failed: ahead->err */
};

/*
 * The reader of a member read ahead (WC_SOURCE_AHEAD): a thread that owns the
 * archive handle from open to close and fills blocks[head % WC_SOURCE_RING]
 * while the caller reads blocks[tail % WC_SOURCE_RING] on; the caller
 * holds block (tail - 1) % WC_SOURCE_RING, its buf.  Counters, stop and
 * the block headers are under lock; a block's bytes belong to the thread
 * from when it is handed back (tail moves past it) to when it is filled
 * (head moves past it), to the caller otherwise.
 */
struct ahead {
	pthread_mutex_t lock;
	pthread_cond_t filled;   /* head moved, or the thread ended */
	pthread_cond_t freed;    /* tail moved, or stop */
	pthread_t thread;
	bool threaded;           /* false: filled on the caller's thread */
	bool stop;               /* wc_source_free(): end now */
	bool opened;             /* the member was found (without a thread) */
	bool thread_waits;       /* the thread sleeps on freed */
	bool caller_waits;       /* the caller sleeps on filled */
	uint64_t head, tail;
	unsigned char *mem;      /* the blocks, BUF_SIZE each */
	struct block blocks[WC_SOURCE_RING];
	struct wc_err err;       /* why the thread failed */
	/* wc_source_adopt_member_ahead(): the thread goes on past the
	 * member to the archive's end for the tail's holder, so the ring
	 * and these outlive the source while the holder keeps them: the
	 * last of the two (refs) stops and joins the thread and frees
	 * them. */
	bool adopted;
	unsigned refs;
	bool member_left;        /* past the member: src is no longer its */
	bool quit;               /* nobody wants the tail's answer */
	bool tail_done;
	int tail_r;              /* 0 as announced, -1 not (tail_err) */
	struct wc_err tail_err;
	wc_source_check_fn check;
	char *path;              /* the archive, for the tail's messages */
	pthread_cond_t ended;    /* member_left or tail_done */
};

struct wc_source_tail {
	struct ahead *ah;
};

struct wc_source {
	enum src_kind kind;
	int fd;
	int own_fd;
	struct archive *ar;
	char *path;
	char *member;
	unsigned char *buf;
	size_t cap;           /* bytes at buf of a file's or region's own */
	size_t start;         /* first unconsumed byte in buf */
	size_t end;           /* one past the last valid byte */
	uint64_t base;        /* stream offset of buf[0] */
	int eof;
	bool borrowed;        /* buf belongs to the caller */
	bool failed;          /* a read failed: read_err (or ahead->err) says why */
	uint64_t produced;    /* archive member bytes read from the handle */
	uint64_t roff, rlen;  /* SRC_REGION: where in fd, and how long */
	size_t rchunk;        /* SRC_REGION: the next read's size */
	bool blocks;          /* SRC_REGION read in a member's blocks
			       * (wc_source_open_region_blocks()) */
	/* Why the member's reading failed: only a source that reads an
	 * archive handle has one (1.5 KB; a source on bytes in memory, one
	 * per small member, has none). */
	struct wc_err *read_err;
	struct ahead *ahead;  /* its blocks are read on a thread of its own */
};

static int src_alloc(struct wc_source **out, const char *path,
		     const char *member, bool want_buf, bool handle,
		     struct wc_err *err)
{
	struct wc_source *src;

	src = calloc(1, sizeof(*src));
	if (!src)
		goto fail;
	src->fd = -1;
	src->path = strdup(path);
	src->member = member ? strdup(member) : NULL;
	/* Bytes already in memory are read in place: no read-ahead buffer. */
	src->buf = want_buf ? malloc(BUF_SIZE) : NULL;
	src->cap = BUF_SIZE;
	src->read_err = handle ? calloc(1, sizeof(*src->read_err)) : NULL;
	if (!src->path || (member && !src->member) || (want_buf && !src->buf) ||
	    (handle && !src->read_err))
		goto fail_free;
	*out = src;
	return 0;

fail_free:
	wc_source_free(src);
fail:
	return wc_err_oom(err, path, member);
}

int wc_source_open_regular(const char *path, off_t *size, int oflags,
			   struct wc_err *err)
{
	struct stat st;
	int fd, e;

	/* Not blocking: a FIFO opened for reading would wait for a writer
	 * for ever.  fstat then says what was really opened. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
		  (oflags & O_NOFOLLOW));
	if (fd < 0) {
		e = errno;
		/* O_NOFOLLOW's refusal, said in the user's terms rather
		 * than as "too many levels of symbolic links". */
		if (e == ELOOP && (oflags & O_NOFOLLOW))
			wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
				   "a symbolic link: not followed");
		else
			wc_err_set(err, WC_ERR_SYSTEM, path, NULL,
				   WC_NO_OFFSET, "%s", strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET, "%s",
			   strerror(errno));
		goto fail_close;
	}
	if (!S_ISREG(st.st_mode)) {
		wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
			   "not a regular file");
		goto fail_close;
	}
	if (size)
		*size = st.st_size;
	return fd;

fail_close:
	close(fd);
	errno = 0;
	return -1;
}

int wc_source_open_file(struct wc_source **out, const char *path, int oflags,
			struct wc_err *err)
{
	struct wc_source *src = NULL;
	int fd;

	*out = NULL;
	fd = wc_source_open_regular(path, NULL, oflags, err);
	if (fd < 0)
		return -1;
	if (src_alloc(&src, path, NULL, true, false, err) < 0)
		goto fail_close;
	src->kind = SRC_FD;
	src->fd = fd;
	src->own_fd = 1;
	*out = src;
	return 0;

fail_close:
	close(fd);
	return -1;
}

int wc_source_open_fd(struct wc_source **out, int fd, const char *name,
		      struct wc_err *err)
{
	struct wc_source *src = NULL;

	*out = NULL;
	if (src_alloc(&src, name, NULL, true, false, err) < 0)
		return -1;
	src->kind = SRC_FD;
	src->fd = fd;
	*out = src;
	return 0;
}

/* A region of fd: with BLOCKS read in a member's blocks, with a member's
 * buffer and a reason for a copy found short; else through a small
 * buffer, its reads starting small. */
static int region_open(struct wc_source **out, int fd, uint64_t off,
		       uint64_t len, const char *path, const char *member,
		       bool blocks, struct wc_err *err)
{
	struct wc_source *src = NULL;

	*out = NULL;
	if (src_alloc(&src, path, member, blocks, blocks, err) < 0)
		return -1;
	if (!blocks) {
		src->buf = malloc(REGION_BUF);
		src->cap = REGION_BUF;
		src->rchunk = REGION_FIRST;
		if (!src->buf) {
			wc_source_free(src);
			return wc_err_oom(err, path, member);
		}
	}
	src->kind = SRC_REGION;
	src->blocks = blocks;
	src->fd = fd;
	src->roff = off;
	src->rlen = len;
	*out = src;
	return 0;
}

int wc_source_open_region(struct wc_source **out, int fd, uint64_t off,
			  uint64_t len, const char *path, const char *member,
			  struct wc_err *err)
{
	return region_open(out, fd, off, len, path, member, false, err);
}

int wc_source_open_region_blocks(struct wc_source **out, int fd,
				 uint64_t off, uint64_t len, const char *path,
				 const char *member, struct wc_err *err)
{
	return region_open(out, fd, off, len, path, member, true, err);
}

/* True once wc_source_free() asked the reader thread to end. */
static bool ahead_stopped(struct wc_source *src)
{
	struct ahead *ah = src->ahead;
	bool stop;

	if (!ah || !ah->threaded)
		return false;
	pthread_mutex_lock(&ah->lock);
	stop = ah->stop;
	pthread_mutex_unlock(&ah->lock);
	return stop;
}

/* Reads past the data of the entry just met.  A compressed archive is
 * decompressed to get past it, which takes long for a large member: a
 * reader thread does it here in steps, to end soon when told to stop.
 * Otherwise the next header skips it (a seek where it can). */
static int member_pass(struct wc_source *src)
{
	const void *blk;
	size_t len;
	la_int64_t off;
	int r;

	if (!src->ahead || archive_filter_count(src->ar) <= 1)
		return 0;
	do {
		if (ahead_stopped(src))
			return -1;
		r = archive_read_data_block(src->ar, &blk, &len, &off);
	} while (r == ARCHIVE_OK || r == ARCHIVE_WARN);
	return r == ARCHIVE_EOF ? 0 : -1;
}

/* Opens the archive of src on its own and reads up to its member.  With
 * ABSENT, an archive without the member sets it and fills no err. */
static int member_find(struct wc_source *src, bool *absent,
		       struct wc_err *err)
{
	struct archive_entry *ent;
	int r;

	src->ar = archive_read_new();
	if (!src->ar)
		return wc_err_oom(err, src->path, NULL);
	archive_read_support_filter_all(src->ar);
	archive_read_support_format_all(src->ar);
	if (archive_read_open_filename(src->ar, src->path, READ_CHUNK) != ARCHIVE_OK)
		return wc_err_set(err, WC_ERR_INPUT, src->path, NULL,
				  WC_NO_OFFSET, "%s",
				  archive_error_string(src->ar));
	/* Skipping is cheap for tar (headers only) and bounded for the
	 * compressed kinds: nothing but the member's bytes is kept. */
	while ((r = archive_read_next_header(src->ar, &ent)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(ent);

		/* A side file (WC_SOURCE_OPTIONAL, absent allowed)
		 * is named from the capture folder, which has no "./" in
		 * front: its member may have one. */
		if (name && (absent ? strcmp(wc_input_member_name(name),
					     wc_input_member_name(src->member)) :
				      strcmp(name, src->member)) == 0)
			return 0;
		if (member_pass(src) < 0) {
			r = ARCHIVE_FATAL;
			break;
		}
	}
	if (r == ARCHIVE_EOF && absent) {
		*absent = true;
		return -1;
	}
	if (r == ARCHIVE_EOF)
		return wc_err_set(err, WC_ERR_INPUT, src->path, src->member,
				  WC_NO_OFFSET, "member not found in archive");
	return wc_err_set(err, WC_ERR_INPUT, src->path, src->member,
			  WC_NO_OFFSET, "%s", archive_error_string(src->ar));
}

/* Reads the member's next READ_CHUNK bytes to TO, *len of them: 1 when
 * more may follow, 0 at the end of the member, -1 when reading failed
 * (err says where: the offset of the read that failed; the bytes before
 * it are in TO). */
static int member_read(struct wc_source *src, unsigned char *to, size_t *len,
		       struct wc_err *err)
{
	size_t got = 0;
	la_ssize_t n;
	int r = 1;

	while (got < READ_CHUNK) {
		n = archive_read_data(src->ar, to + got, READ_CHUNK - got);
		if (n == ARCHIVE_RETRY)
			continue;
		if (n < 0) {
			wc_err_set(err, WC_ERR_INPUT, src->path, src->member,
				   src->produced + got, "%s",
				   archive_error_string(src->ar));
			r = -1;
			break;
		}
		if (n == 0) {
			r = 0;
			break;
		}
		got += (size_t)n;
	}
	src->produced += got;
	*len = got;
	return r;
}

/* member_read() of a region read in a member's blocks: the copy's next
 * READ_CHUNK bytes, fewer only at its end (0 then, as member_read()
 * says of a member whose last read came short). */
static int region_read(struct wc_source *src, unsigned char *to, size_t *len,
		       struct wc_err *err)
{
	uint64_t left = src->rlen - src->produced;
	size_t want = left < READ_CHUNK ? (size_t)left : READ_CHUNK;
	size_t got = wc_spool_read_at(src->fd, to, want,
				      src->roff + src->produced);

	*len = got;
	if (got < want) {
		/* The region was written whole before. */
		wc_err_set(err, WC_ERR_SYSTEM, src->path, src->member,
			   src->produced + got, "%s",
			   errno ? strerror(errno) :
			   "the temporary copy ends early");
		src->produced += got;
		return -1;
	}
	src->produced += got;
	return want == READ_CHUNK;
}

/* Member MEMBER of PATH on a handle of its own, opened now; with
 * OPTIONAL, an archive without it: 0 with *out NULL. */
static int member_open(struct wc_source **out, const char *path,
		       const char *member, bool optional, struct wc_err *err)
{
	struct wc_source *src = NULL;
	bool absent = false;

	*out = NULL;
	if (src_alloc(&src, path, member, true, true, err) < 0)
		return -1;
	src->kind = SRC_ARCHIVE;
	if (member_find(src, optional ? &absent : NULL, err) < 0) {
		wc_source_free(src);
		return absent ? 0 : -1;
	}
	*out = src;
	return 0;
}

/* Fills the next block of the ring and hands it to the caller's side:
 * 1 when more may follow, 0 at the end, -1 when it failed (ah->err).
 * Only the thread calls it, or without one only the caller. */
static int ahead_fill(struct wc_source *src)
{
	struct ahead *ah = src->ahead;
	unsigned idx = (unsigned)(ah->head % WC_SOURCE_RING);
	struct block *b = &ah->blocks[idx];
	size_t len = 0;
	int r = -1;

	if (!ah->opened && member_find(src, NULL, &ah->err) == 0)
		ah->opened = true;
	if (ah->opened)
		r = member_read(src, ah->mem + (size_t)idx * BUF_SIZE + HEAD,
				&len, &ah->err);
	b->len = len;
	b->last = r == 0;
	b->failed = r < 0;
	pthread_mutex_lock(&ah->lock);
	ah->head++;
	if (ah->caller_waits)
		pthread_cond_signal(&ah->filled);
	pthread_mutex_unlock(&ah->lock);
	return r;
}

/* Fills the ring until the member ends (0), fails (-1) or the source
 * stops the thread (1): ahead_fill()'s last answer, or 1. */
static int ahead_loop(struct wc_source *src)
{
	struct ahead *ah = src->ahead;
	bool stop;
	int r;

	for (;;) {
		pthread_mutex_lock(&ah->lock);
		/* A full ring is refilled once half of it is free, not at
		 * every block handed back: a wake-up costs more than a
		 * block's decompression on a virtual machine. */
		if (ah->head - ah->tail >= WC_SOURCE_RING - 1)
			while (!ah->stop && ah->head - ah->tail > AHEAD_LOW) {
				ah->thread_waits = true;
				pthread_cond_wait(&ah->freed, &ah->lock);
			}
		ah->thread_waits = false;
		stop = ah->stop;
		pthread_mutex_unlock(&ah->lock);
		if (stop)
			return 1;
		r = ahead_fill(src);
		if (r <= 0)
			return r;
	}
}

static void *ahead_main(void *arg)
{
	struct wc_source *src = arg;

	ahead_loop(src);
	/* The handle, its descriptor and its memory go as soon as the
	 * member is read, not when the source is freed. */
	archive_read_free(src->ar);
	src->ar = NULL;
	return NULL;
}

/* Member MEMBER of PATH read ahead on a thread (WC_SOURCE_AHEAD). */
static int member_ahead(struct wc_source **out, const char *path,
			const char *member, struct wc_err *err)
{
	struct wc_source *src = NULL;
	struct ahead *ah;
	pthread_attr_t attr;
	sigset_t all, old;

	*out = NULL;
	if (src_alloc(&src, path, member, false, true, err) < 0)
		return -1;
	src->kind = SRC_ARCHIVE;
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		goto fail_oom;
	pthread_mutex_init(&ah->lock, NULL);
	pthread_cond_init(&ah->filled, NULL);
	pthread_cond_init(&ah->freed, NULL);
	src->ahead = ah;
	ah->mem = malloc((size_t)WC_SOURCE_RING * BUF_SIZE);
	if (!ah->mem)
		goto fail_oom;
	/* The caller starts out holding the block filled last. */
	src->buf = ah->mem + (size_t)(WC_SOURCE_RING - 1) * BUF_SIZE;
	wc_err_clear(&ah->err);
	/* Signals are the main thread's to take (SIGINT ends wcanalyze):
	 * the reader is born with all of them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_attr_init(&attr) == 0) {
		pthread_attr_setstacksize(&attr, WC_SOURCE_STACK);
		/* Set before the thread reads it. */
		ah->threaded = true;
		if (pthread_create(&ah->thread, &attr, ahead_main, src) != 0)
			ah->threaded = false;
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Without a thread (none to be had) the blocks are filled at the
	 * caller's peeks, the same bytes in the same steps. */
	*out = src;
	return 0;

fail_oom:
	wc_source_free(src);
	return wc_err_oom(err, path, member);
}

int wc_source_open_member(struct wc_source **out, const char *path,
			  const char *member, unsigned flags,
			  struct wc_err *err)
{
	if (flags & WC_SOURCE_AHEAD)
		return member_ahead(out, path, member, err);
	return member_open(out, path, member, flags & WC_SOURCE_OPTIONAL, err);
}

/* Reads the headers after the member to the archive's end, asking
 * ah->check of each entry: 0 when none objects and the end was read,
 * -1 with why filled otherwise.  On the thread, which owns ar. */
static int tail_check(struct ahead *ah, struct archive *ar,
		      struct wc_err *why)
{
	bool filtered = archive_filter_count(ar) > 1;
	struct archive_entry *ent;
	const void *blk;
	size_t len;
	la_int64_t off;
	bool quit;
	int r;

	while ((r = archive_read_next_header(ar, &ent)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		if (ah->check(ah->path, ent, why) < 0)
			return -1;
		/* Past the entry's data in 64 KiB steps, as member_pass()
		 * does: a large one would keep wc_source_tail_free()
		 * waiting otherwise. */
		do {
			pthread_mutex_lock(&ah->lock);
			quit = ah->quit;
			pthread_mutex_unlock(&ah->lock);
			if (quit)
				return wc_err_set(why, WC_ERR_INPUT, ah->path,
						  NULL, WC_NO_OFFSET,
						  "the archive's tail was not read: stopped");
			if (!filtered)
				break;
			r = archive_read_data_block(ar, &blk, &len, &off);
		} while (r == ARCHIVE_OK || r == ARCHIVE_WARN);
		if (filtered && r != ARCHIVE_EOF)
			break;
	}
	if (r != ARCHIVE_EOF)
		return wc_err_set(why, WC_ERR_INPUT, ah->path, NULL,
				  WC_NO_OFFSET, "the archive's tail cannot be read: %s",
				  archive_error_string(ar));
	return 0;
}

/* The thread of an adopted member: the member into the ring as
 * ahead_main() reads it, then the tail on the same handle. */
static void *adopt_main(void *arg)
{
	struct wc_source *src = arg;
	struct ahead *ah = src->ahead;
	struct archive *ar;
	struct wc_err why;
	int r, tr;

	r = ahead_loop(src);
	/* From here on src may be freed at any time: only ah is ours. */
	ar = src->ar;
	src->ar = NULL;
	pthread_mutex_lock(&ah->lock);
	ah->member_left = true;
	pthread_cond_broadcast(&ah->ended);
	pthread_mutex_unlock(&ah->lock);

	wc_err_clear(&why);
	if (r == 0)
		tr = tail_check(ah, ar, &why);
	else
		tr = wc_err_set(&why, WC_ERR_INPUT, ah->path, NULL,
				WC_NO_OFFSET, "%s",
				r < 0 ? "the last trace file cannot be read to its end" :
					"the last trace file was not read to its end");
	archive_read_free(ar);
	pthread_mutex_lock(&ah->lock);
	ah->tail_r = tr;
	ah->tail_err = why;
	ah->tail_done = true;
	pthread_cond_broadcast(&ah->ended);
	pthread_mutex_unlock(&ah->lock);
	return NULL;
}

/* Drops one of an adopted reader's two holders; the last one stops the
 * thread (at its next step), joins it and frees what they shared. */
static void ahead_release(struct ahead *ah)
{
	bool last;

	pthread_mutex_lock(&ah->lock);
	last = --ah->refs == 0;
	if (last) {
		ah->stop = true;
		ah->quit = true;
		pthread_cond_broadcast(&ah->freed);
	}
	pthread_mutex_unlock(&ah->lock);
	if (!last)
		return;
	if (ah->threaded)
		pthread_join(ah->thread, NULL);
	pthread_cond_destroy(&ah->ended);
	pthread_cond_destroy(&ah->freed);
	pthread_cond_destroy(&ah->filled);
	pthread_mutex_destroy(&ah->lock);
	free(ah->mem);
	free(ah->path);
	free(ah);
}

int wc_source_adopt_member_ahead(struct wc_source **out,
				 struct wc_source_tail **tail,
				 const char *path, const char *member,
				 struct archive *ar, wc_source_check_fn check,
				 struct wc_err *err)
{
	struct wc_source *src = NULL;
	struct wc_source_tail *t = NULL;
	struct ahead *ah;
	pthread_attr_t attr;
	sigset_t all, old;
	bool made = false;

	*out = NULL;
	*tail = NULL;
	if (src_alloc(&src, path, member, false, true, err) < 0)
		return -1;
	src->kind = SRC_ARCHIVE;
	t = calloc(1, sizeof(*t));
	ah = calloc(1, sizeof(*ah));
	if (!t || !ah)
		goto fail_oom;
	pthread_mutex_init(&ah->lock, NULL);
	pthread_cond_init(&ah->filled, NULL);
	pthread_cond_init(&ah->freed, NULL);
	pthread_cond_init(&ah->ended, NULL);
	src->ahead = ah;
	ah->adopted = true;
	ah->refs = 2;
	ah->opened = true;
	ah->check = check;
	ah->mem = malloc((size_t)WC_SOURCE_RING * BUF_SIZE);
	ah->path = strdup(path);
	if (!ah->mem || !ah->path)
		goto fail_oom;
	src->buf = ah->mem + (size_t)(WC_SOURCE_RING - 1) * BUF_SIZE;
	wc_err_clear(&ah->err);
	src->ar = ar;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_attr_init(&attr) == 0) {
		pthread_attr_setstacksize(&attr, WC_SOURCE_STACK);
		ah->threaded = true;
		made = pthread_create(&ah->thread, &attr, adopt_main, src) == 0;
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!made)
		goto fail_thread;
	t->ah = ah;
	*tail = t;
	*out = src;
	return 0;

fail_thread:
	/* The handle stays the caller's: it reads on as if never asked. */
	src->ar = NULL;
	ah->threaded = false;
	ah->refs = 1;
	free(t);
	wc_source_free(src);
	return 1;
fail_oom:
	if (ah && !src->ahead)
		free(ah);
	else if (ah)
		ah->refs = 1;
	free(t);
	wc_source_free(src);
	return wc_err_oom(err, path, member);
}

int wc_source_tail_wait(struct wc_source_tail *tail, struct wc_err *err)
{
	struct ahead *ah = tail->ah;
	int r;

	pthread_mutex_lock(&ah->lock);
	while (!ah->tail_done)
		pthread_cond_wait(&ah->ended, &ah->lock);
	r = ah->tail_r;
	if (r < 0 && err && err->kind == WC_ERR_NONE)
		*err = ah->tail_err;
	pthread_mutex_unlock(&ah->lock);
	return r;
}

void wc_source_tail_free(struct wc_source_tail *tail)
{
	if (!tail)
		return;
	ahead_release(tail->ah);
	free(tail);
}

/* The bytes taken (WC_SOURCE_TAKE). */
static int memory_taken(struct wc_source **out, const char *path,
			const char *member, unsigned char *bytes, size_t len,
			struct wc_err *err)
{
	struct wc_source *src = NULL;

	*out = NULL;
	/* Never a NULL buffer, so that a peek's pointer is always valid. */
	if (!bytes)
		len = 0;
	if (!bytes && !(bytes = malloc(1)))
		return wc_err_oom(err, path, member);
	if (src_alloc(&src, path, member, false, false, err) < 0) {
		free(bytes);
		return -1;
	}
	src->buf = bytes;
	src->kind = SRC_MEMORY;
	src->end = len;
	src->eof = 1;
	*out = src;
	return 0;
}

int wc_source_open_memory(struct wc_source **out, const char *path,
			  const char *member, const unsigned char *bytes,
			  size_t len, unsigned flags, struct wc_err *err)
{
	static const unsigned char none[1];
	struct wc_source *src = NULL;

	/* Taken: malloc'd by the caller, freed here (never written). */
	if (flags & WC_SOURCE_TAKE)
		return memory_taken(out, path, member, (unsigned char *)bytes,
				    len, err);
	*out = NULL;
	if (src_alloc(&src, path, member, false, false, err) < 0)
		return -1;
	/* Never written through: the source only peeks and consumes. */
	src->buf = (unsigned char *)(bytes ? bytes : none);
	src->borrowed = true;
	src->kind = SRC_MEMORY;
	src->end = bytes ? len : 0;
	src->eof = 1;
	*out = src;
	return 0;
}

void wc_source_rebase(struct wc_source *src, uint64_t offset)
{
	src->base = offset - src->start;
}

int wc_source_skip(struct wc_source *src, uint64_t n, struct wc_err *err)
{
	const unsigned char *p;

	if (src->kind == SRC_FD && src->start == src->end &&
	    lseek(src->fd, (off_t)n, SEEK_CUR) >= 0) {
		src->base += n;
		return 0;
	}
	/* A region is read at offsets: skipping is counting (in a
	 * member's blocks, read on as the member is, to keep them). */
	if (src->kind == SRC_REGION && !src->blocks && src->start == src->end &&
	    n <= src->rlen - src->base) {
		src->base += n;
		return 0;
	}
	while (n > 0) {
		size_t want = n < WC_SOURCE_MAX_PEEK ? (size_t)n : WC_SOURCE_MAX_PEEK;
		ssize_t got = wc_source_peek(src, want, &p, err);

		if (got < 0)
			return -1;
		if (got == 0)
			return wc_err_set(err, WC_ERR_INPUT, src->path, src->member,
					  wc_source_offset(src),
					  "shorter than before: ends here");
		wc_source_consume(src, (size_t)got);
		n -= (uint64_t)got;
	}
	return 0;
}

/* A region's buffer grown for a peek of N bytes past it (N at most
 * WC_SOURCE_MAX_PEEK), with REGION_BUF more to read into. */
static int src_grow(struct wc_source *src, size_t n, struct wc_err *err)
{
	size_t cap = n + REGION_BUF < BUF_SIZE ? n + REGION_BUF : BUF_SIZE;
	unsigned char *buf = realloc(src->buf, cap);

	if (!buf)
		return wc_err_oom(err, src->path, src->member);
	src->buf = buf;
	src->cap = cap;
	return 0;
}

/* Reads more bytes after end; returns bytes read, 0 at the end, -1 on error. */
static ssize_t src_fill(struct wc_source *src, struct wc_err *err)
{
	size_t room = src->cap - src->end;
	ssize_t n;

	uint64_t at = src->base + src->end;

	if (room > READ_CHUNK)
		room = READ_CHUNK;
	if (src->kind == SRC_REGION) {
		/* A region is taken up again at every turn of a merge of
		 * more streams than may be open, for a record or two: its
		 * reads start small and double. */
		if (room > src->rchunk)
			room = src->rchunk;
		if (src->rchunk < READ_CHUNK)
			src->rchunk *= 2;
		if (room > src->rlen - at)
			room = (size_t)(src->rlen - at);
	}
	for (;;) {
		if (src->kind == SRC_REGION)
			n = room ? pread(src->fd, src->buf + src->end, room,
					 (off_t)(src->roff + at)) : 0;
		else
			n = read(src->fd, src->buf + src->end, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return wc_err_set(err, WC_ERR_SYSTEM, src->path,
					  src->member, at, "%s",
					  strerror(errno));
		break;
	}
	/* The region was written whole before: it cannot end sooner. */
	if (n == 0 && src->kind == SRC_REGION && at < src->rlen)
		return wc_err_set(err, WC_ERR_SYSTEM, src->path, src->member,
				  at, "the temporary copy ends early");
	if (n == 0)
		src->eof = 1;
	src->end += (size_t)n;
	return n;
}

/* The caller's side of the ring: waits for the next block (or fills it,
 * without a thread), copies the unconsumed tail of the block held in
 * front of it, and hands the held one back.  *to is the block's start. */
static void ahead_take(struct wc_source *src, unsigned char **to,
		       struct block *blk)
{
	struct ahead *ah = src->ahead;
	size_t tail = src->end - src->start;
	bool empty;
	unsigned idx;

	pthread_mutex_lock(&ah->lock);
	empty = ah->head == ah->tail;
	pthread_mutex_unlock(&ah->lock);
	if (empty && !ah->threaded)
		ahead_fill(src);
	pthread_mutex_lock(&ah->lock);
	while (ah->head == ah->tail) {
		ah->caller_waits = true;
		pthread_cond_wait(&ah->filled, &ah->lock);
	}
	ah->caller_waits = false;
	idx = (unsigned)(ah->tail % WC_SOURCE_RING);
	*blk = ah->blocks[idx];
	*to = ah->mem + (size_t)idx * BUF_SIZE;
	/* Before the held block goes back to the thread. */
	memcpy(*to + HEAD - tail, src->buf + src->start, tail);
	ah->tail++;
	if (ah->thread_waits && ah->head - ah->tail <= AHEAD_LOW)
		pthread_cond_signal(&ah->freed);
	pthread_mutex_unlock(&ah->lock);
	if (blk->failed)
		*src->read_err = ah->err;
}

/* Reads the member's next block after the unconsumed bytes; returns the
 * bytes read, 0 at the end, -1 on error (the bytes before it first). */
static ssize_t member_fill(struct wc_source *src, struct wc_err *err)
{
	size_t tail = src->end - src->start;
	struct block blk;
	unsigned char *to;
	int r;

	if (src->failed)
		goto failed;
	if (src->ahead) {
		ahead_take(src, &to, &blk);
	} else {
		/* tail < HEAD: only a peek of at most WC_SOURCE_MAX_PEEK
		 * reads more. */
		to = src->buf;
		memmove(to + HEAD - tail, src->buf + src->start, tail);
		wc_err_clear(src->read_err);
		r = src->kind == SRC_REGION ?
		    region_read(src, to + HEAD, &blk.len, src->read_err) :
		    member_read(src, to + HEAD, &blk.len, src->read_err);
		blk.last = r == 0;
		blk.failed = r < 0;
	}
	/* base counts modulo 2^64: the first unconsumed byte keeps its
	 * offset, now at HEAD - tail of the new block. */
	src->base += src->start;
	src->base -= HEAD - tail;
	src->buf = to;
	src->start = HEAD - tail;
	src->end = HEAD + blk.len;
	if (blk.last)
		src->eof = 1;
	if (blk.failed)
		src->failed = true;
	if (blk.len > 0 || !blk.failed)
		return (ssize_t)blk.len;
failed:
	if (err && err->kind == WC_ERR_NONE)
		*err = *src->read_err;
	return -1;
}

ssize_t wc_source_peek(struct wc_source *src, size_t n,
		       const unsigned char **p, struct wc_err *err)
{
	ssize_t got = wc_source_peek_all(src, n, p, err);

	if (n > WC_SOURCE_MAX_PEEK)
		n = WC_SOURCE_MAX_PEEK;
	return got > (ssize_t)n ? (ssize_t)n : got;
}

ssize_t wc_source_peek_all(struct wc_source *src, size_t n,
			   const unsigned char **p, struct wc_err *err)
{
	if (n > WC_SOURCE_MAX_PEEK)
		n = WC_SOURCE_MAX_PEEK;
	while (src->kind != SRC_MEMORY && src->end - src->start < n && !src->eof) {
		if (src->kind == SRC_ARCHIVE || src->blocks) {
			if (member_fill(src, err) < 0)
				return -1;
			continue;
		}
		if (src->cap - src->start < n || src->end == src->cap) {
			/* Slide the unconsumed tail to the front: the
			 * buffer has room for the largest peek, once a
			 * region's has grown for it. */
			size_t left = src->end - src->start;

			memmove(src->buf, src->buf + src->start, left);
			src->base += src->start;
			src->start = 0;
			src->end = left;
			if (src->cap < n && src_grow(src, n, err) < 0)
				return -1;
		}
		if (src_fill(src, err) < 0)
			return -1;
	}
	*p = src->buf + src->start;
	return (ssize_t)(src->end - src->start);
}

void wc_source_consume(struct wc_source *src, size_t n)
{
	if (n > src->end - src->start)
		n = src->end - src->start;
	src->start += n;
	if (src->start == src->end && src->kind != SRC_MEMORY) {
		src->base += src->start;
		src->start = src->end = 0;
	}
}

uint64_t wc_source_offset(const struct wc_source *src)
{
	return src->base + src->start;
}

const char *wc_source_path(const struct wc_source *src)
{
	return src->path;
}

const char *wc_source_member(const struct wc_source *src)
{
	return src->member;
}

/* Stops the reader thread (at its next block or step of a skip, not
 * later) and frees the ring; buf was one of its blocks. */
static void ahead_free(struct wc_source *src)
{
	struct ahead *ah = src->ahead;

	if (!ah)
		return;
	if (ah->adopted) {
		/* Ends the member's reading (the thread is past it when the
		 * member was read to its end) and waits until the thread no
		 * longer touches src; the tail's holder may still want the
		 * rest. */
		pthread_mutex_lock(&ah->lock);
		ah->stop = true;
		pthread_cond_broadcast(&ah->freed);
		while (ah->threaded && !ah->member_left)
			pthread_cond_wait(&ah->ended, &ah->lock);
		pthread_mutex_unlock(&ah->lock);
		ahead_release(ah);
		src->ahead = NULL;
		src->buf = NULL;
		return;
	}
	if (ah->threaded) {
		pthread_mutex_lock(&ah->lock);
		ah->stop = true;
		pthread_cond_broadcast(&ah->freed);
		pthread_mutex_unlock(&ah->lock);
		pthread_join(ah->thread, NULL);
	}
	pthread_cond_destroy(&ah->freed);
	pthread_cond_destroy(&ah->filled);
	pthread_mutex_destroy(&ah->lock);
	free(ah->mem);
	free(ah);
	src->ahead = NULL;
	src->buf = NULL;
}

void wc_source_free(struct wc_source *src)
{
	if (!src)
		return;
	ahead_free(src);
	if (src->ar)
		archive_read_free(src->ar);
	if (src->own_fd && src->fd >= 0)
		close(src->fd);
	if (!src->borrowed)
		free(src->buf);
	free(src->read_err);
	free(src->path);
	free(src->member);
	free(src);
}
