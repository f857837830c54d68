/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode.h - blktrace records from a source, as struct wc_event.
 *
 *     struct wc_decoder *dec = NULL;
 *     struct wc_event ev;
 *
 *     if (wc_decoder_open(&dec, src, 0, &err) < 0)   // dec now owns src
 *             goto fail;
 *     while ((r = wc_decoder_next(dec, &ev, &err)) > 0)
 *             use(&ev);                 // ev.pdu valid until the next call
 *     wc_decoder_free(dec);             // frees src too
 *
 * Each record is read in three steps: peek the header, validate it (magic,
 * version 7 or 8, pdu_len against the bytes that are really left), and only
 * then consume it.  The byte order is found from the first record's magic
 * and applied to every field of every record; version is checked per record.
 *
 * What always holds:
 *  - every record becomes one event, notify records included, in file
 *    order; ev.stream is the stream number given to wc_decoder_open();
 *  - the cgroup flag (bit 8 of what) is taken out of ev.action, the id is
 *    in ev.cgroup and ev.pdu starts after it;
 *  - wc_decoder_next() returns 1 with an event, 0 at a clean end, -1 on bad
 *    input or a read error; err then names the file (and member), the byte
 *    offset of the bad record and the reason: "not a blktrace trace",
 *    "bad magic", "unknown version", "truncated record", "pdu_len ... past
 *    the end".  After -1 it keeps returning -1;
 *  - nothing is allocated per record: payloads are read in place.
 */
#ifndef WC_DECODE_H
#define WC_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "format/event.h"
#include "input/merge.h"
#include "input/source.h"
#include "base/wcerr.h"

struct wc_decoder;

/* Takes ownership of src, also when it fails. */
int wc_decoder_open(struct wc_decoder **out, struct wc_source *src,
		    unsigned stream, struct wc_err *err);
int wc_decoder_next(struct wc_decoder *dec, struct wc_event *ev,
		    struct wc_err *err);
/*
 * A span of events into out[0..*got): the next record as wc_decoder_next()
 * gives it, then the records after it while they are whole in the bytes
 * already read, at most max in all, stopping after the first whose time
 * is later than limit (it is handed out too).  With buffered, the first
 * too only from the bytes already read: WC_PULL_WOULD_READ
 * (input/merge.h), nothing handed out and nothing consumed, when it is
 * not wholly in them (the call that would read more moves the buffer
 * the payloads handed out so far point into), so a caller gathering a
 * batch from several calls keeps every event of it valid.  Returns as
 * wc_decoder_next(): 1 with *got >= 1 events, all valid with their
 * payloads until the next call; 0, -1 or WC_PULL_WOULD_READ with none.
 * A record of either version and byte order is taken in the span; one
 * the general path must look at (bad, or cut by the buffer's end) ends
 * the span and is the next call's first.
 */
int wc_decoder_next_span(struct wc_decoder *dec, struct wc_event *out,
			 size_t max, uint64_t limit, bool buffered,
			 size_t *got, struct wc_err *err);
/*
 * For a reader that wants the notify records alone (the scouts of
 * blknames.h, for process names): passes over the records that are not
 * notifies, at most max of them, without decoding them, and hands out
 * the notify record that comes next, if one comes before the max-th is
 * passed: *passed records passed over, then *got (0 or 1) in *ev, valid
 * with its payload until the next call.  Returns as
 * wc_decoder_next_span(): 1 with *passed + *got >= 1; 0 (the end), -1
 * (err filled) or, with max 0, WC_PULL_WOULD_READ, with none.  The
 * records are framed and checked as wc_decoder_next() checks them, and
 * one it would refuse ends the run and is the next call's first: so
 * the two read the same records and stop at the same place.
 */
int wc_decoder_skim(struct wc_decoder *dec, size_t max, struct wc_event *ev,
		    size_t *passed, size_t *got, struct wc_err *err);
/* True when the file is in the other byte order than this machine's. */
bool wc_decoder_swapped(const struct wc_decoder *dec);
/* A decoder taken up again in the middle of its stream (the source
 * skipped to a record boundary) keeps the byte order found at its start. */
void wc_decoder_expect(struct wc_decoder *dec, bool swapped);
/* Byte offset of the record after the one last handed out: where to take
 * the stream up again. */
uint64_t wc_decoder_resume_offset(const struct wc_decoder *dec);
/* Reads ahead whole records, from the record after the one handed out
 * last, into *bytes (malloc'd, NULL when none): as many as fit in MAX
 * bytes, at least one when there is one.  *at_end is true when the stream
 * ended with them.  For closing a stream without throwing away what its
 * handle could still read (an archive member reopened is decompressed
 * again from the archive's start): the stream is taken up from memory,
 * at wc_decoder_resume_offset() - *len, and its handle reopened only
 * where the bytes end.  Stops early, before a record it cannot frame
 * (the decoder taken up there reports it); -1 with err filled when out
 * of memory or on a read error, nothing kept then. */
int wc_decoder_keep(struct wc_decoder *dec, size_t max, unsigned char **bytes,
		    size_t *len, bool *at_end, struct wc_err *err);
void wc_decoder_free(struct wc_decoder *dec);

/*
 * The decoder's check of a record's first word, for readers of raw bytes
 * (wcrecord): the header size of a record whose magic, in this machine's
 * byte order, is magic (WC_BLK_V7_SIZE or WC_BLK_V8_SIZE), or 0 when it
 * is not the blktrace magic with a known version.
 */
unsigned wc_blk_header_size(uint32_t magic);

/* Payload readers; each returns false when the payload is too short. */
/* Remap: {be32 device_from, be32 device_to, be64 sector_from}. */
bool wc_event_remap(const struct wc_event *ev, uint32_t *dev_from,
		    uint32_t *dev_to, uint64_t *sector_from);
/* Unplug count and split sector: one be64. */
bool wc_event_pdu_be64(const struct wc_event *ev, uint64_t *v);

#endif /* WC_DECODE_H */
