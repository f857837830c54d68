/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.h - the bytes of one stream: a plain file, standard input, or one
 * member of an archive read through libarchive (never extracted to disk).
 *
 * A source is read with peek and consume, so a parser can look at a whole
 * record before deciding to take it:
 *
 *     struct wc_source *src = NULL;
 *     const unsigned char *p;
 *     ssize_t n;
 *
 *     if (wc_source_open_file(&src, "sda.blktrace.0", 0, &err) < 0)
 *             goto fail;
 *     n = wc_source_peek(src, 48, &p, &err);   // < 48 only at the end
 *     ...validate p[0..n)...
 *     wc_source_consume(src, 48);
 *     wc_source_free(src);
 *
 * What always holds:
 *  - reads go through one fixed buffer (64 KiB of read-ahead plus room for
 *    the largest peek, WC_SOURCE_MAX_PEEK, about 128 KiB in all); nothing
 *    is allocated per read.  A memory source has no buffer of its own; a
 *    member read ahead on a thread (WC_SOURCE_AHEAD) has
 *    WC_SOURCE_RING such buffers, 1 MiB, and no other;
 *  - an archive member is read 64 KiB at a time from offsets that are
 *    multiples of 64 KiB, with or without a thread: the offset of a read
 *    error is where the read that failed began (the bytes before it are
 *    handed out first), the same both ways;
 *  - only regular files are opened by name, and without blocking: a FIFO
 *    or device in place of a trace file is refused, never waited on;
 *  - a peek of n bytes (n at most WC_SOURCE_MAX_PEEK, larger asks are cut
 *    to it) returns n, or fewer only when the stream ends first
 *    (0 at the very end), or -1 on a read error (err filled);
 *  - pointers from a peek stay valid until the next peek, consume or free;
 *  - wc_source_offset() is the byte offset of the first unconsumed byte,
 *    counted from the start of the file or archive member: use it in
 *    messages;
 *  - errors name the file (and member): wc_source_path(), _member();
 *  - wc_source_free(NULL) is fine.
 */
#ifndef WC_SOURCE_H
#define WC_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/wcerr.h"

/* The largest single peek: a v8 header plus the largest pdu_len. */
#define WC_SOURCE_MAX_PEEK (64u + 65535u)

struct wc_source;

/*
 * The constructors, one for each place a stream's bytes come from: a
 * file, a descriptor, an archive's member, a region of a descriptor,
 * bytes in memory (and an archive handle handed over, below).  What
 * differs within one is said in FLAGS.
 */

/* A plain file; "-" is not special here.  OFLAGS of open(2) added:
 * O_NOFOLLOW (the only one taken) for a file found in a folder that
 * came from elsewhere (a capture unpacked from a stranger's archive),
 * whose link could point at any file the user may read: refused as "a
 * symbolic link: not followed", and no byte of it is read. */
int wc_source_open_file(struct wc_source **out, const char *path, int oflags,
			struct wc_err *err);

/* Opens PATH for reading without blocking, regular files only, with
 * OFLAGS as above: the descriptor, and its size in *size (may be NULL);
 * -1 with err filled (errno left ENOENT when PATH does not exist). */
int wc_source_open_regular(const char *path, off_t *size, int oflags,
			   struct wc_err *err);

/* An already open descriptor (standard input); name is used in messages.
 * The descriptor is not closed by wc_source_free(). */
int wc_source_open_fd(struct wc_source **out, int fd, const char *name,
		      struct wc_err *err);

/*
 * Member MEMBER of archive PATH: opens the archive on its own and skips to
 * the member, so several members can be read at once, each through its own
 * handle, with memory bounded by the number of open members.  FLAGS:
 * 0, or one of
 *  - WC_SOURCE_OPTIONAL: a member a capture may lack (ledger.tsv): an
 *    archive without it is no failure, 0 with *out NULL.  MEMBER names
 *    it from the capture folder: a member of that name with "./" in
 *    front (an archive packed as ./FOLDER) is the one
 *    (wc_input_member_name());
 *  - WC_SOURCE_AHEAD: read ahead on a thread of its own (below).
 */
#define WC_SOURCE_OPTIONAL 1u
#define WC_SOURCE_AHEAD    2u
int wc_source_open_member(struct wc_source **out, const char *path,
			  const char *member, unsigned flags,
			  struct wc_err *err);

/*
 * WC_SOURCE_AHEAD: it opens the archive,
 * decompresses it up to the member and reads the member into a ring of
 * WC_SOURCE_RING blocks of 64 KiB (each with room for the largest peek
 * in front: 128 KiB) while the caller reads the blocks before, so the
 * decompression and the caller's work run side by side.  A thread that
 * filled the ring sleeps until half of it is free again, and each side
 * wakes the other only when it sleeps: a wake-up per few blocks, not two
 * per block.  Memory: the
 * ring, a libarchive handle and a thread stack of WC_SOURCE_STACK; one
 * descriptor, closed with the handle as soon as the member is read.
 *
 * Returns 0 unless out of memory: what a member opened without it
 * reports at the open (not an archive, member not found) comes from the first
 * peek instead, with the same message, as do the read errors, each after
 * the bytes before it.  The thread owns the archive handle from open to
 * close and is born with every signal blocked, so signals go to the
 * caller's threads.  wc_source_free() stops it at its next 64 KiB
 * (while decompressing its way to the member too) and waits for it.
 * When no thread can be made, the blocks are read at the caller's peeks
 * as a member opened without it, opening the archive at the first.
 */
#define WC_SOURCE_RING 8u
#define WC_SOURCE_STACK (1u << 20)

/*
 * The same, on a handle the caller already has, positioned at MEMBER's
 * data (an archive scan that just met it): the scan hands its handle
 * over instead of a thread decompressing the archive again up to the
 * member.  The thread fills the ring as WC_SOURCE_AHEAD's
 * does (the same blocks, offsets and messages), then reads the headers
 * after the member to the archive's end, calling CHECK(PATH, entry, why)
 * for each, on the thread (so CHECK must use nothing but its arguments):
 * -1 with why filled when the entry would have changed what the caller
 * found by reading the whole archive itself.  *tail is that check's
 * answer: wc_source_tail_wait() waits for it and says 0 when every entry
 * passed and the end was read, -1 otherwise (err says why: a CHECK that
 * objected, a tail that cannot be read, or a member not read to its
 * end).  Call it once the source was read to its end or freed, never
 * before (the thread waits for ring room until then).
 *
 * Returns 0 with the handle the source's (closed by the thread at the
 * archive's end, or by the last of wc_source_free() and
 * wc_source_tail_free()); 1 when no thread could be made, -1 when out of
 * memory (err filled): in both the handle stays the caller's, untouched,
 * and nothing is made.  wc_source_free() ends the member's reading at
 * its next block (the tail is then "not read to its end") and waits
 * until the thread is past the member; wc_source_tail_free() stops the
 * tail at its next 64 KiB; the last of the two joins the thread.  Memory:
 * that of WC_SOURCE_AHEAD, until the last of the two.
 */
struct archive;
struct archive_entry;
struct wc_source_tail;
typedef int (*wc_source_check_fn)(const char *path, struct archive_entry *ent,
				  struct wc_err *why);
int wc_source_adopt_member_ahead(struct wc_source **out,
				 struct wc_source_tail **tail,
				 const char *path, const char *member,
				 struct archive *ar, wc_source_check_fn check,
				 struct wc_err *err);
int wc_source_tail_wait(struct wc_source_tail *tail, struct wc_err *err);
/* wc_source_tail_free(NULL) is fine. */
void wc_source_tail_free(struct wc_source_tail *tail);

/* LEN bytes at offset OFF of descriptor FD (an archive member copied to
 * a temporary file while the archive was scanned), under the names PATH
 * and MEMBER: read with pread(), so any number of regions share FD, and
 * skipping is counting.  FD stays the caller's and must outlive the
 * source.  Costs a buffer of 8 KiB, not a file's read-ahead: a merge of
 * many members keeps them all open (input.h); a peek past it (a record
 * with a payload of kilobytes) grows it by the peek's size, so at most
 * 8 KiB more than the largest peek, WC_SOURCE_MAX_PEEK. */
int wc_source_open_region(struct wc_source **out, int fd, uint64_t off,
			  uint64_t len, const char *path, const char *member,
			  struct wc_err *err);
/* The same, read as a member is read from the archive
 * (wc_source_open_member()): READ_CHUNK (64 KiB) at a time from offsets
 * that are multiples of it, into a block with the unconsumed tail in
 * front.  So what a peek finds buffered at each point is what the
 * member's own reader would have buffered, and a merge's batches, which
 * end where a stream would have to read (merge.h), end at the same
 * events: a one-pass scan's copy gives the timeline (traceevent.h) the
 * bytes the member's handle gave.  Costs a member's buffer, about
 * 128 KiB; a copy found shorter than LEN fails as a member cut short
 * does, after the bytes before it. */
int wc_source_open_region_blocks(struct wc_source **out, int fd,
				 uint64_t off, uint64_t len, const char *path,
				 const char *member, struct wc_err *err);

/* LEN bytes already read (a small archive member, read whole while the
 * archive was scanned), under the names PATH and MEMBER (may be NULL).
 * They stay the caller's: they must outlive the source, which never
 * writes them and does not free them; with FLAGS WC_SOURCE_TAKE the
 * source takes BYTES (malloc'd, may be NULL when LEN is 0) also when it
 * fails, and wc_source_free() frees it.  Costs a few dozen bytes. */
#define WC_SOURCE_TAKE 4u
int wc_source_open_memory(struct wc_source **out, const char *path,
			  const char *member, const unsigned char *bytes,
			  size_t len, unsigned flags, struct wc_err *err);

/* A memory source's bytes were taken from offset OFFSET of its stream:
 * offsets (and so messages) count from there. */
void wc_source_rebase(struct wc_source *src, uint64_t offset);

/* Skips the first N bytes (a seek for a file, read and dropped otherwise),
 * to take up a stream again where it was left; offsets count them.  An
 * input error when the stream ends first. */
int wc_source_skip(struct wc_source *src, uint64_t n, struct wc_err *err);

ssize_t wc_source_peek(struct wc_source *src, size_t n,
		       const unsigned char **p, struct wc_err *err);
/* wc_source_peek(), but returns every byte already buffered (at least n,
 * fewer only at the end): a parser takes many records from one call and
 * consumes them at once, instead of a peek and a consume per record. */
ssize_t wc_source_peek_all(struct wc_source *src, size_t n,
			   const unsigned char **p, struct wc_err *err);
void wc_source_consume(struct wc_source *src, size_t n);
uint64_t wc_source_offset(const struct wc_source *src);

const char *wc_source_path(const struct wc_source *src);
/* The archive member, or NULL for a plain file or descriptor. */
const char *wc_source_member(const struct wc_source *src);

void wc_source_free(struct wc_source *src);

#endif /* WC_SOURCE_H */
