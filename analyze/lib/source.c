#include "source.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK (64u * 1024u)
#define BUF_SIZE (READ_CHUNK + WC_SOURCE_MAX_PEEK)

enum src_kind { SRC_FD, SRC_ARCHIVE, SRC_MEMORY };

struct wc_source {
	enum src_kind kind;
	int fd;
	int own_fd;
	struct archive *ar;
	char *path;
	char *member;
	unsigned char *buf;
	size_t start;         /* first unconsumed byte in buf */
	size_t end;           /* one past the last valid byte */
	uint64_t base;        /* stream offset of buf[0] */
	int eof;
	bool borrowed;        /* buf belongs to the caller */
};

static int src_alloc(struct wc_source **out, const char *path,
		     const char *member, bool want_buf, struct wc_err *err)
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
	if (!src->path || (member && !src->member) || (want_buf && !src->buf))
		goto fail_free;
	*out = src;
	return 0;

fail_free:
	wc_source_free(src);
fail:
	return wc_err_set(err, WC_ERR_SYSTEM, path, member, WC_NO_OFFSET,
			  "out of memory");
}

int wc_source_open_regular(const char *path, off_t *size, struct wc_err *err)
{
	struct stat st;
	int fd, e;

	/* Not blocking: a FIFO opened for reading would wait for a writer
	 * for ever.  fstat then says what was really opened. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET, "%s",
			   strerror(e));
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

int wc_source_open_file(struct wc_source **out, const char *path,
			struct wc_err *err)
{
	struct wc_source *src = NULL;
	int fd;

	*out = NULL;
	fd = wc_source_open_regular(path, NULL, err);
	if (fd < 0)
		return -1;
	if (src_alloc(&src, path, NULL, true, err) < 0)
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
	if (src_alloc(&src, name, NULL, true, err) < 0)
		return -1;
	src->kind = SRC_FD;
	src->fd = fd;
	*out = src;
	return 0;
}

int wc_source_open_member(struct wc_source **out, const char *path,
			  const char *member, struct wc_err *err)
{
	struct wc_source *src = NULL;
	struct archive_entry *ent;
	int r;

	*out = NULL;
	if (src_alloc(&src, path, member, true, err) < 0)
		return -1;
	src->kind = SRC_ARCHIVE;
	src->ar = archive_read_new();
	if (!src->ar) {
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
			   "out of memory");
		goto fail;
	}
	archive_read_support_filter_all(src->ar);
	archive_read_support_format_all(src->ar);
	if (archive_read_open_filename(src->ar, path, READ_CHUNK) != ARCHIVE_OK) {
		wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET, "%s",
			   archive_error_string(src->ar));
		goto fail;
	}
	/* Skipping is cheap for tar (headers only) and bounded for the
	 * compressed kinds: nothing but the member's bytes is kept. */
	while ((r = archive_read_next_header(src->ar, &ent)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(ent);

		if (name && strcmp(name, member) == 0) {
			*out = src;
			return 0;
		}
	}
	if (r == ARCHIVE_EOF)
		wc_err_set(err, WC_ERR_INPUT, path, member, WC_NO_OFFSET,
			   "member not found in archive");
	else
		wc_err_set(err, WC_ERR_INPUT, path, member, WC_NO_OFFSET, "%s",
			   archive_error_string(src->ar));
fail:
	wc_source_free(src);
	return -1;
}

int wc_source_open_memory(struct wc_source **out, const char *path,
			  const char *member, unsigned char *bytes, size_t len,
			  struct wc_err *err)
{
	struct wc_source *src = NULL;

	*out = NULL;
	/* Never a NULL buffer, so that a peek's pointer is always valid. */
	if (!bytes)
		len = 0;
	if (!bytes && !(bytes = malloc(1)))
		return wc_err_set(err, WC_ERR_SYSTEM, path, member,
				  WC_NO_OFFSET, "out of memory");
	if (src_alloc(&src, path, member, false, err) < 0) {
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

int wc_source_open_borrowed(struct wc_source **out, const char *path,
			    const char *member, const unsigned char *bytes,
			    size_t len, struct wc_err *err)
{
	static const unsigned char none[1];
	struct wc_source *src = NULL;

	*out = NULL;
	if (src_alloc(&src, path, member, false, err) < 0)
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

/* Reads more bytes after end; returns bytes read, 0 at the end, -1 on error. */
static ssize_t src_fill(struct wc_source *src, struct wc_err *err)
{
	size_t room = BUF_SIZE - src->end;
	ssize_t n;

	if (room > READ_CHUNK)
		room = READ_CHUNK;
	for (;;) {
		if (src->kind == SRC_FD) {
			n = read(src->fd, src->buf + src->end, room);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return wc_err_set(err, WC_ERR_SYSTEM, src->path,
						  NULL, src->base + src->end,
						  "%s", strerror(errno));
		} else {
			n = archive_read_data(src->ar, src->buf + src->end, room);
			if (n == ARCHIVE_RETRY)
				continue;
			if (n < 0)
				return wc_err_set(err, WC_ERR_INPUT, src->path,
						  src->member,
						  src->base + src->end, "%s",
						  archive_error_string(src->ar));
		}
		break;
	}
	if (n == 0)
		src->eof = 1;
	src->end += (size_t)n;
	return n;
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
		if (BUF_SIZE - src->start < n || src->end == BUF_SIZE) {
			/* Slide the unconsumed tail to the front: the
			 * buffer always has room for the largest peek. */
			size_t left = src->end - src->start;

			memmove(src->buf, src->buf + src->start, left);
			src->base += src->start;
			src->start = 0;
			src->end = left;
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

void wc_source_free(struct wc_source *src)
{
	if (!src)
		return;
	if (src->ar)
		archive_read_free(src->ar);
	if (src->own_fd && src->fd >= 0)
		close(src->fd);
	if (!src->borrowed)
		free(src->buf);
	free(src->path);
	free(src->member);
	free(src);
}
