/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/blknames.h"

#include <stdlib.h>
#include <string.h>

#include "input/decode.h"
#include "format/event.h"
#include "input/recfilter.h"
#include "input/source.h"
#include "input/streams.h"

/* A command name is at most 15 characters, kept with its NUL. */
#define COMM_SIZE 16

/* A process notify a scout pass read, for the batch it is in. */
struct scout_name {
	uint64_t batch;
	uint32_t pid;
	char name[COMM_SIZE];
};

/* The scout of one stream. */
struct scout {
	uint64_t scouted;       /* offset after the last record scouted */
	bool swapped;           /* byte order found by the scout */
	bool over;              /* nothing more to scout */
	struct wc_decoder *dec;  /* kept open for a member not in memory */
	struct wc_source *ahead;  /* its source, read ahead on a thread
				   * until the scout's first batch */
	uint64_t batch_no;      /* blkparse's batches of it begun */
	/* Names a scout pass read ahead (an archive member that shares
	 * handles), in the order of their batches: */
	struct scout_name *names;
	uint32_t nnames, names_next, names_cap;
	uint64_t names_upto;    /* batches before this one were scouted */
};

struct wc_blknames {
	struct wc_streams *st;
	struct wc_recfilter *filter;
	bool archive;           /* the streams are archive members */
	bool may_close;         /* ... more of them need handles than may be
				 * open */
	bool keep;              /* scouts keep their handles */
	size_t scout_names;     /* entries of all scouts' names arrays */
	size_t n;
	struct scout scouts[];
};

/* Whether the scouts of ST's files may keep a second handle each: the
 * open-file limit leaves room for two a file read from its handle
 * (wc_streams_fd_room(): WC_INPUT_FD_SPARE kept for the rest). */
static bool files_fit(struct wc_streams *st)
{
	size_t i, n = wc_streams_count(st), handles = 0;

	for (i = 0; i < n; i++)
		handles += !wc_streams_in_memory(st, i);
	return handles <= wc_streams_fd_room() / 2;
}

/* The decoder the scout of stream i reads with, from where it stopped;
 * -1 when it cannot have one. */
static int scout_open(struct wc_blknames *bn, unsigned i,
		      struct wc_decoder **dec, struct wc_err *err)
{
	struct scout *c = &bn->scouts[i];
	struct wc_source *src = c->ahead;

	if (c->dec) {
		*dec = c->dec;
		return 0;
	}
	c->ahead = NULL;
	if (wc_streams_open_decoder(bn->st, i, src, c->scouted, c->swapped,
				    dec, err) < 0)
		return -1;
	/* Keep the scout's handle: an archive member is read from the
	 * archive's start at each open, and a file opened for each batch
	 * was read a block ahead of it every time (its records read about
	 * three times over) at the cost of four calls to the system.  Not
	 * when handles must be shared among more streams than may be open,
	 * where it would need a second handle each (a member: scout_pass()
	 * instead; a file: opened at each batch), nor for files whose
	 * second handles the open-file limit has no room for. */
	if (!wc_streams_in_memory(bn->st, i) && bn->keep)
		c->dec = *dec;
	return 0;
}

static void names_drop(struct wc_blknames *bn, struct scout *c)
{
	bn->scout_names -= c->names_cap;
	free(c->names);
	c->names = NULL;
	c->nnames = c->names_next = c->names_cap = 0;
}

/* Queues pid's name for batch b; false when the bounds leave no room. */
static bool names_put(struct wc_blknames *bn, struct scout *c, uint64_t b,
		      uint32_t pid, const unsigned char *p, size_t len)
{
	struct scout_name *n;

	if (c->nnames == c->names_cap) {
		uint32_t cap = c->names_cap ? 2 * c->names_cap : 16;

		if (cap > WC_INPUT_SCOUT_NAMES ||
		    bn->scout_names + (cap - c->names_cap) > WC_INPUT_SCOUT_NAMES_ALL)
			return false;
		n = realloc(c->names, cap * sizeof(*n));
		if (!n)
			return false;
		bn->scout_names += cap - c->names_cap;
		c->names = n;
		c->names_cap = cap;
	}
	n = &c->names[c->nnames++];
	n->batch = b;
	n->pid = pid;
	if (len > COMM_SIZE - 1)
		len = COMM_SIZE - 1;
	memcpy(n->name, p, len);
	n->name[len] = '\0';
	return true;
}

/* Reads one of blkparse's batches from dec (WC_BLKNAMES_BATCH events;
 * notify records other than messages do not count) for its process
 * names: to the filter now, or with queue, to c's queue for batch b.
 * Returns what the last decoding returned (1: more to read), or -2 out
 * of memory.  The scout reads every record the reader reads, for a name
 * in one of a hundred: it passes the others over undecoded
 * (wc_decoder_skim()), at most the events the batch still lacks, so
 * that no run reaches past the batch's end. */
static int scout_read_batch(struct wc_blknames *bn, struct scout *c,
			    struct wc_decoder *dec, bool queue, uint64_t b,
			    struct wc_err *scratch)
{
	struct wc_event ev;
	uint32_t n = 0;
	size_t passed, got;
	int r = 1;

	while (n < WC_BLKNAMES_BATCH) {
		r = wc_decoder_skim(dec, WC_BLKNAMES_BATCH - n, &ev, &passed,
				    &got, scratch);
		if (r <= 0)
			break;
		n += (uint32_t)passed;
		if (!got)
			continue;
		if (ev.action == WC_ACTION_MESSAGE) {
			n++;
			continue;
		}
		if (ev.action != WC_ACTION_PROCESS)
			continue;
		if (!queue) {
			if (wc_recfilter_name(bn->filter, ev.pid, ev.pdu,
					      ev.pdu_len) < 0)
				return -2;
		} else if (!wc_recfilter_comm(bn->filter, ev.pid)) {
			names_put(bn, c, b, ev.pid, ev.pdu, ev.pdu_len);
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
static void scout_pass(struct wc_blknames *bn, unsigned i, uint64_t b)
{
	struct scout *c = &bn->scouts[i];
	struct wc_decoder *dec = NULL;
	struct wc_err scratch;
	uint64_t start = c->scouted;
	int r;

	names_drop(bn, c);
	c->names_upto = b + 1;
	wc_err_clear(&scratch);
	if (wc_streams_make_room(bn->st, &scratch) < 0)
		return;   /* every open stream pinned: this batch unscouted */
	if (scout_open(bn, i, &dec, &scratch) < 0) {
		c->over = true;
		return;
	}
	for (;;) {
		r = scout_read_batch(bn, c, dec, true, b, &scratch);
		c->names_upto = ++b;
		/* A failure is the reader's to report, when it gets there. */
		if (r <= 0) {
			c->over = true;
			break;
		}
		c->scouted = wc_decoder_resume_offset(dec);
		if (c->scouted - start >= WC_INPUT_KEEP ||
		    c->nnames == WC_INPUT_SCOUT_NAMES)
			break;
	}
	c->swapped = wc_decoder_swapped(dec);
	wc_decoder_free(dec);
}

/* Batch b of stream i begins: the names scout_pass() read for it. */
static int scout_queued(struct wc_blknames *bn, unsigned i, uint64_t b,
			struct wc_err *err)
{
	struct scout *c = &bn->scouts[i];

	if (b >= c->names_upto && !c->over)
		scout_pass(bn, i, b);
	while (c->names_next < c->nnames && c->names[c->names_next].batch <= b) {
		const struct scout_name *n = &c->names[c->names_next++];

		if (n->batch == b &&
		    wc_recfilter_name(bn->filter, n->pid,
				      (const unsigned char *)n->name,
				      strlen(n->name)) < 0)
			return wc_err_oom(err, wc_streams_path(bn->st), NULL);
	}
	return 0;
}

/*
 * Stream i's next batch begins (wc_streams_set_batches()): its scout
 * reads the batch ahead of the reader, taking the names only; the reader
 * hands the events out.  Failing, it leaves the names to the reader.
 */
static int scout_batch(void *ctx, unsigned i, struct wc_err *err)
{
	struct wc_blknames *bn = ctx;
	struct scout *c = &bn->scouts[i];
	struct wc_decoder *dec = NULL;
	struct wc_err scratch;
	int r;
	uint64_t b = c->batch_no++;

	if (!wc_streams_in_memory(bn->st, i) && bn->archive && bn->may_close)
		return scout_queued(bn, i, b, err);
	if (c->over)
		return 0;
	wc_err_clear(&scratch);
	if (scout_open(bn, i, &dec, &scratch) < 0) {
		c->over = true;
		return 0;
	}
	r = scout_read_batch(bn, c, dec, false, b, &scratch);
	if (r == -2) {
		if (dec != c->dec)
			wc_decoder_free(dec);
		return wc_err_oom(err, wc_streams_path(bn->st), NULL);
	}
	/* A failure is the reader's to report, when it gets there. */
	if (r <= 0)
		c->over = true;
	c->scouted = wc_decoder_resume_offset(dec);
	c->swapped = wc_decoder_swapped(dec);
	if (dec != c->dec || c->over) {
		wc_decoder_free(dec);
		c->dec = NULL;
	}
	return 0;
}

/* Stream i ended: its scout's handle and queue go with its own. */
static void scout_end(void *ctx, unsigned i)
{
	struct wc_blknames *bn = ctx;
	struct scout *c = &bn->scouts[i];

	wc_decoder_free(c->dec);
	c->dec = NULL;
	wc_source_free(c->ahead);
	c->ahead = NULL;
	names_drop(bn, c);
}

int wc_blknames_open(struct wc_blknames **out, struct wc_streams *st,
		     struct wc_recfilter *filter, bool packed,
		     struct wc_err *err)
{
	size_t i, n = wc_streams_count(st), ahead = 0;
	struct wc_blknames *bn;

	*out = NULL;
	if (wc_streams_kind(st) == WC_STREAMS_SINGLE)
		return 0;
	bn = calloc(1, sizeof(*bn) + n * sizeof(bn->scouts[0]));
	if (!bn)
		return wc_err_oom(err, wc_streams_path(st), NULL);
	bn->st = st;
	bn->filter = filter;
	bn->archive = wc_streams_kind(st) == WC_STREAMS_MEMBERS;
	bn->may_close = wc_streams_may_close(st);
	bn->keep = !bn->may_close && (bn->archive || files_fit(st));
	bn->n = n;
	/* The scouts of archive members keep handles of their own: read
	 * ahead on threads from now, as the members themselves are (for
	 * at most WC_INPUT_AHEAD), they decompress their way to their
	 * members side by side rather than at their first batches, one
	 * after the other.  On failure, the scout opens its handle later.
	 * A member copied aside is scouted on its copy: the archive is not
	 * opened again for it. */
	for (i = 0; bn->archive && packed && !bn->may_close && i < n &&
		    ahead < WC_INPUT_AHEAD; i++) {
		if (wc_streams_in_memory(st, i) || wc_streams_aside(st, i))
			continue;
		if (wc_source_open_member(&bn->scouts[i].ahead,
					  wc_streams_path(st),
					  wc_streams_info(st, i)->name,
					  WC_SOURCE_AHEAD, NULL) < 0)
			break;
		ahead++;
	}
	wc_streams_set_batches(st, WC_BLKNAMES_BATCH, scout_batch, scout_end,
			       bn);
	*out = bn;
	return 0;
}

void wc_blknames_free(struct wc_blknames *bn)
{
	size_t i;

	if (!bn)
		return;
	for (i = 0; i < bn->n; i++) {
		wc_source_free(bn->scouts[i].ahead);
		wc_decoder_free(bn->scouts[i].dec);
		free(bn->scouts[i].names);
	}
	free(bn);
}
