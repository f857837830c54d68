/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/decode.h"
#include "input/decode_test.h"

#include <byteswap.h>
#include <endian.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hot.h"

enum { ORDER_UNKNOWN, ORDER_NATIVE, ORDER_SWAPPED };

struct wc_decoder {
	struct wc_source *src;
	unsigned stream;
	int order;
	/* Bytes peeked at once, records taken from them without a call to
	 * the source: win[0..win_len) starts at offset win_off, records up
	 * to win_used are decoded but not yet consumed from the source. */
	const unsigned char *win;
	size_t win_len, win_used;
	uint64_t win_off;
	size_t pending;        /* bytes of the last record, still to consume */
	/* The record last handed out, or being looked at, is at win_used:
	 * its offset is win_off + win_used, not kept apart. */
	int failed;
};

int wc_decoder_open(struct wc_decoder **out, struct wc_source *src,
		    unsigned stream, struct wc_err *err)
{
	struct wc_decoder *dec;

	*out = NULL;
	dec = calloc(1, sizeof(*dec));
	if (!dec) {
		wc_err_oom(err, wc_source_path(src), wc_source_member(src));
		wc_source_free(src);
		return -1;
	}
	dec->src = src;
	dec->stream = stream;
	dec->win_off = wc_source_offset(src);
	*out = dec;
	return 0;
}

static inline uint16_t get16(const unsigned char *p, bool sw)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return sw ? bswap_16(v) : v;
}

static inline uint32_t get32(const unsigned char *p, bool sw)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return sw ? bswap_32(v) : v;
}

static inline uint64_t get64(const unsigned char *p, bool sw)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return sw ? bswap_64(v) : v;
}

static int dec_fail(struct wc_decoder *dec, struct wc_err *err,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int dec_fail(struct wc_decoder *dec, struct wc_err *err,
		    const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	dec->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return wc_err_set(err, WC_ERR_INPUT, wc_source_path(dec->src),
			  wc_source_member(dec->src), dec->win_off + dec->win_used,
			  "%s", msg);
}

unsigned wc_blk_header_size(uint32_t magic)
{
	if ((magic & WC_BLK_MAGIC_MASK) != WC_BLK_MAGIC)
		return 0;
	switch (magic & 0xffu) {
	case WC_BLK_VERSION_7:
		return WC_BLK_V7_SIZE;
	case WC_BLK_VERSION_8:
		return WC_BLK_V8_SIZE;
	default:
		return 0;
	}
}

/* Hands the records decoded so far back to the source and peeks at
 * least NEED bytes from the record at win_used on: the bytes left, or -1
 * (failed). */
static ssize_t dec_refill(struct wc_decoder *dec, size_t need,
			  struct wc_err *err)
{
	const unsigned char *p;
	ssize_t n;

	wc_source_consume(dec->src, dec->win_used);
	dec->win_used = 0;
	dec->win_off = wc_source_offset(dec->src);
	n = wc_source_peek_all(dec->src, need, &p, err);
	if (n < 0) {
		dec->failed = 1;
		dec->win = NULL;
		dec->win_len = 0;
		return -1;
	}
	dec->win = p;
	dec->win_len = (size_t)n;
	return n;
}

/* Where each field lies on the wire: the one layout, blktrace_format.h. */
#define AT7(field) offsetof(struct wc_blk_io_trace, field)
#define AT8(field) offsetof(struct wc_blk_io_trace2, field)

/* What peeking at a record found. */
enum rec_state {
	REC_WHOLE,          /* header and payload are in the bytes */
	REC_SHORT_HEADER,   /* fewer bytes than its header */
	REC_SHORT_PAYLOAD,  /* the header, not all of its payload */
	REC_BAD_MAGIC,
	REC_BAD_VERSION,
	REC_SHORT_CGROUP,   /* cgroup flag, payload too short for the id */
};

/* The fields a version 7 record in this machine's byte order holds in
 * the same order as struct wc_event: time and sector, and pid to
 * pdu_len, each span taken in one copy. */
_Static_assert(offsetof(struct wc_event, sector) ==
	       offsetof(struct wc_event, time) + 8 &&
	       AT7(sector) == AT7(time) + 8, "time, sector");
_Static_assert(offsetof(struct wc_event, device) -
	       offsetof(struct wc_event, pid) == AT7(device) - AT7(pid) &&
	       offsetof(struct wc_event, cpu) -
	       offsetof(struct wc_event, pid) == AT7(cpu) - AT7(pid) &&
	       offsetof(struct wc_event, error) -
	       offsetof(struct wc_event, pid) == AT7(error) - AT7(pid) &&
	       offsetof(struct wc_event, pdu_len) -
	       offsetof(struct wc_event, pid) == AT7(pdu_len) - AT7(pid),
	       "pid .. pdu_len");
/* The version 8 header starts as version 7's does. */
_Static_assert(AT8(sequence) == AT7(sequence) && AT8(bytes) == AT7(bytes),
	       "v7 and v8 share their start");

/*
 * The one record parser: the record at p, n bytes from p on, in byte
 * order sw, into *ev.  Peek: its magic gives the version and so the
 * header's size (*hsize); validate: its header and payload (*len bytes
 * in all) are in the n bytes, and a cgroup id fits its payload; consume:
 * only then is *ev written, every field.  REC_WHOLE or why not.  sw is
 * a constant where it is called, and each byte order gets its own copy.
 */
WC_HOT
enum rec_state rec_take(const unsigned char *p, size_t n, bool sw,
			unsigned stream, struct wc_event *ev, size_t *hsize,
			size_t *len)
{
	uint32_t magic;
	uint64_t action;
	size_t plen;

	if (n >= WC_BLK_V7_SIZE &&
	    get32(p + AT7(magic), sw) == (WC_BLK_MAGIC | WC_BLK_VERSION_7)) {
		*hsize = WC_BLK_V7_SIZE;
		plen = get16(p + AT7(pdu_len), sw);
		*len = WC_BLK_V7_SIZE + plen;
		action = get32(p + AT7(action), sw);
		if (n < *len)
			return REC_SHORT_PAYLOAD;
		if ((action & WC_TA_CGROUP) && plen < sizeof(uint64_t))
			return REC_SHORT_CGROUP;
		if (!sw) {
			memcpy(&ev->time, p + AT7(time), 16);
			memcpy(&ev->pid, p + AT7(pid),
			       AT7(pdu_len) + 2 - AT7(pid));
		} else {
			ev->time = get64(p + AT7(time), sw);
			ev->sector = get64(p + AT7(sector), sw);
			ev->pid = get32(p + AT7(pid), sw);
			ev->device = get32(p + AT7(device), sw);
			ev->cpu = get32(p + AT7(cpu), sw);
			ev->error = get16(p + AT7(error), sw);
			ev->pdu_len = (uint16_t)plen;
		}
		ev->version = WC_BLK_VERSION_7;
	} else {
		*hsize = *len = WC_BLK_V7_SIZE;
		if (n < sizeof(magic))
			return REC_SHORT_HEADER;
		magic = get32(p + AT7(magic), sw);
		if ((magic & WC_BLK_MAGIC_MASK) != WC_BLK_MAGIC)
			return REC_BAD_MAGIC;
		if (magic != (WC_BLK_MAGIC | WC_BLK_VERSION_7) &&
		    magic != (WC_BLK_MAGIC | WC_BLK_VERSION_8))
			return REC_BAD_VERSION;
		if (magic == (WC_BLK_MAGIC | WC_BLK_VERSION_8))
			*hsize = *len = WC_BLK_V8_SIZE;
		/* A version 7 header comes here only when cut short. */
		if (n < *hsize)
			return REC_SHORT_HEADER;
		plen = get16(p + AT8(pdu_len), sw);
		*len = WC_BLK_V8_SIZE + plen;
		action = get64(p + AT8(action), sw);
		if (n < *len)
			return REC_SHORT_PAYLOAD;
		if ((action & WC_TA_CGROUP) && plen < sizeof(uint64_t))
			return REC_SHORT_CGROUP;
		ev->time = get64(p + AT8(time), sw);
		ev->sector = get64(p + AT8(sector), sw);
		ev->pid = get32(p + AT8(pid), sw);
		ev->device = get32(p + AT8(device), sw);
		ev->cpu = get32(p + AT8(cpu), sw);
		ev->error = get16(p + AT8(error), sw);
		ev->pdu_len = (uint16_t)plen;
		ev->version = WC_BLK_VERSION_8;
	}
	ev->sequence = get32(p + AT7(sequence), sw);
	ev->bytes = get32(p + AT7(bytes), sw);
	ev->stream = stream;
	ev->pdu = p + *hsize;
	if (!(action & WC_TA_CGROUP)) {
		ev->action = action;
		ev->has_cgroup = false;
		ev->cgroup = 0;
	} else {
		ev->action = action & ~(uint64_t)WC_TA_CGROUP;
		ev->has_cgroup = true;
		ev->cgroup = get64(ev->pdu, sw);
		ev->pdu += sizeof(uint64_t);
		ev->pdu_len = (uint16_t)(plen - sizeof(uint64_t));
	}
	return REC_WHOLE;
}

/*
 * rec_take()'s peek and validation alone, for a reader that passes most
 * records over (wc_decoder_skim()): REC_WHOLE with the record's length
 * in *len and its action, the cgroup flag still in it, in *action, or
 * what rec_take() returns for it.  rec_take() keeps its own copy, the
 * reader's path, fused with the copies of the fields; check_decode runs
 * both over the same records, good and bad.
 */
WC_HOT
enum rec_state rec_frame(const unsigned char *p, size_t n, bool sw,
			 size_t *len, uint64_t *action)
{
	uint32_t magic;
	size_t hsize, plen;

	if (n >= WC_BLK_V7_SIZE &&
	    get32(p + AT7(magic), sw) == (WC_BLK_MAGIC | WC_BLK_VERSION_7)) {
		plen = get16(p + AT7(pdu_len), sw);
		*len = WC_BLK_V7_SIZE + plen;
		*action = get32(p + AT7(action), sw);
	} else {
		if (n < sizeof(magic))
			return REC_SHORT_HEADER;
		magic = get32(p + AT7(magic), sw);
		if ((magic & WC_BLK_MAGIC_MASK) != WC_BLK_MAGIC)
			return REC_BAD_MAGIC;
		if (magic != (WC_BLK_MAGIC | WC_BLK_VERSION_7) &&
		    magic != (WC_BLK_MAGIC | WC_BLK_VERSION_8))
			return REC_BAD_VERSION;
		hsize = magic == (WC_BLK_MAGIC | WC_BLK_VERSION_8) ?
			WC_BLK_V8_SIZE : WC_BLK_V7_SIZE;
		if (n < hsize)
			return REC_SHORT_HEADER;
		plen = get16(p + AT8(pdu_len), sw);
		*len = WC_BLK_V8_SIZE + plen;
		*action = get64(p + AT8(action), sw);
	}
	if (n < *len)
		return REC_SHORT_PAYLOAD;
	if ((*action & WC_TA_CGROUP) && plen < sizeof(uint64_t))
		return REC_SHORT_CGROUP;
	return REC_WHOLE;
}

/* wc_decoder_next(), and a span's first record (wc_decoder_next_span();
 * with buffered, only from the bytes already read).  Every record the
 * loop over a buffer (dec_run()) does not take comes here, which reads
 * more when it must and says what is wrong. */
WC_HOT
int dec_next(struct wc_decoder *dec, struct wc_event *ev, struct wc_err *err,
	     bool buffered)
{
	const unsigned char *p;
	size_t hsize, len;
	uint32_t raw;
	ssize_t n;
	enum rec_state r;

	if (dec->failed)
		return -1;
	dec->win_used += dec->pending;
	dec->pending = 0;

	/* Peek as much as the largest header, which holds the magic (byte
	 * order, version, header size) and usually the whole record; fewer
	 * bytes only at the end of the stream.  One peek serves the records
	 * of a whole buffer. */
	n = (ssize_t)(dec->win_len - dec->win_used);
	if ((size_t)n < WC_BLK_V8_SIZE) {
		/* A refill moves the buffer under the payloads handed out. */
		if (buffered)
			return WC_PULL_WOULD_READ;
		if ((n = dec_refill(dec, WC_BLK_V8_SIZE, err)) < 0)
			return -1;
	}
	if (n == 0)
		return 0;
	p = dec->win + dec->win_used;

	/* The first record's magic says the byte order of all. */
	if (dec->order == ORDER_UNKNOWN && n >= (ssize_t)sizeof(raw)) {
		memcpy(&raw, p, sizeof(raw));
		if ((raw & WC_BLK_MAGIC_MASK) == WC_BLK_MAGIC)
			dec->order = ORDER_NATIVE;
		else if ((bswap_32(raw) & WC_BLK_MAGIC_MASK) == WC_BLK_MAGIC)
			dec->order = ORDER_SWAPPED;
		else
			return dec_fail(dec, err,
					"not a blktrace trace (magic 0x%08x)",
					raw);
	}
	r = dec->order == ORDER_SWAPPED ?
	    rec_take(p, (size_t)n, true, dec->stream, ev, &hsize, &len) :
	    rec_take(p, (size_t)n, false, dec->stream, ev, &hsize, &len);
	if (r == REC_SHORT_PAYLOAD) {
		/* The payload must be there before anything trusts
		 * pdu_len; the first peek often holds it already. */
		if (buffered)
			return WC_PULL_WOULD_READ;
		if ((n = dec_refill(dec, len, err)) < 0)
			return -1;
		p = dec->win;
		if ((size_t)n >= len)
			r = dec->order == ORDER_SWAPPED ?
			    rec_take(p, (size_t)n, true, dec->stream, ev,
				     &hsize, &len) :
			    rec_take(p, (size_t)n, false, dec->stream, ev,
				     &hsize, &len);
	}
	switch (r) {
	case REC_WHOLE:
		break;
	case REC_SHORT_HEADER:
		return dec_fail(dec, err, "truncated record: %zd of %zu header bytes",
				n, hsize);
	case REC_SHORT_PAYLOAD:
		return dec_fail(dec, err,
				"pdu_len %zu past the end (%zd bytes left)",
				len - hsize, n - (ssize_t)hsize);
	case REC_BAD_MAGIC:
		return dec_fail(dec, err, "bad magic 0x%08x",
				get32(p, dec->order == ORDER_SWAPPED));
	case REC_BAD_VERSION:
		return dec_fail(dec, err, "unknown version %u",
				get32(p, dec->order == ORDER_SWAPPED) & 0xffu);
	case REC_SHORT_CGROUP:
		return dec_fail(dec, err,
				"pdu_len %zu too short for the cgroup id",
				len - hsize);
	}
	/* Consumed at the next call, so ev->pdu stays valid until then. */
	dec->pending = len;
	return 1;
}

int wc_decoder_next(struct wc_decoder *dec, struct wc_event *ev,
		    struct wc_err *err)
{
	return dec_next(dec, ev, err, false);
}

/* The records after the first of a span, while they are whole in the
 * window: k events in out so far, the last handed out at win_used.  A
 * record it does not take is the general path's (dec_next()). */
WC_HOT
size_t dec_span(struct wc_decoder *dec, struct wc_event *out, size_t k,
		size_t max, uint64_t limit, bool sw)
{
	const unsigned char *win = dec->win;
	size_t used = dec->win_used + dec->pending, last = used;
	size_t end = dec->win_len, hsize, len;
	unsigned stream = dec->stream;

	while (k < max && rec_take(win + used, end - used, sw, stream,
				   &out[k], &hsize, &len) == REC_WHOLE) {
		last = used;
		used += len;
		if (out[k++].time > limit)
			break;
	}
	/* The last record handed out is consumed at the next call. */
	if (used != last) {
		dec->win_used = last;
		dec->pending = used - last;
	}
	return k;
}

int wc_decoder_next_span(struct wc_decoder *dec, struct wc_event *out,
			 size_t max, uint64_t limit, bool buffered,
			 size_t *got, struct wc_err *err)
{
	int r;

	*got = 0;
	if (max == 0)
		return WC_PULL_WOULD_READ;
	r = dec_next(dec, &out[0], err, buffered);
	if (r != 1)
		return r;
	*got = 1;
	if (out[0].time > limit)
		return 1;
	if (dec->order == ORDER_SWAPPED)
		*got = dec_span(dec, out, 1, max, limit, true);
	else
		*got = dec_span(dec, out, 1, max, limit, false);
	return 1;
}

/* wc_decoder_skim()'s records after its first, while they are whole in
 * the window: passed over so far *passed, the last at win_used. */
WC_HOT
void dec_skim(struct wc_decoder *dec, size_t max, struct wc_event *ev,
	      size_t *passed, size_t *got, bool sw)
{
	const unsigned char *win = dec->win;
	size_t used = dec->win_used + dec->pending, last = used;
	size_t end = dec->win_len, len, hsize;
	uint64_t action;

	while (*passed < max && rec_frame(win + used, end - used, sw, &len,
					  &action) == REC_WHOLE) {
		if (action & WC_TC(WC_TC_NOTIFY)) {
			rec_take(win + used, end - used, sw, dec->stream, ev,
				 &hsize, &len);
			last = used;
			used += len;
			*got = 1;
			break;
		}
		last = used;
		used += len;
		++*passed;
	}
	/* The last record is consumed at the next call, as a span's. */
	if (used != last) {
		dec->win_used = last;
		dec->pending = used - last;
	}
}

int wc_decoder_skim(struct wc_decoder *dec, size_t max, struct wc_event *ev,
		    size_t *passed, size_t *got, struct wc_err *err)
{
	int r;

	*passed = *got = 0;
	if (max == 0)
		return WC_PULL_WOULD_READ;
	r = dec_next(dec, ev, err, false);
	if (r != 1)
		return r;
	if (wc_event_is_notify(ev)) {
		*got = 1;
		return 1;
	}
	*passed = 1;
	if (dec->order == ORDER_SWAPPED)
		dec_skim(dec, max, ev, passed, got, true);
	else
		dec_skim(dec, max, ev, passed, got, false);
	return 1;
}

int wc_decoder_keep(struct wc_decoder *dec, size_t max, unsigned char **bytes,
		    size_t *len, bool *at_end, struct wc_err *err)
{
	unsigned char *buf = NULL, *nb;
	size_t got = 0, cap = 0;
	bool sw = dec->order == ORDER_SWAPPED;

	*bytes = NULL;
	*len = 0;
	*at_end = false;
	if (dec->failed || dec->order == ORDER_UNKNOWN)
		return 0;
	dec->win_used += dec->pending;
	dec->pending = 0;
	for (;;) {
		const unsigned char *p;
		size_t n = dec->win_len - dec->win_used, rec, hsize;
		struct wc_event scratch;
		enum rec_state st;
		ssize_t r;

		if (n < WC_BLK_V8_SIZE) {
			r = dec_refill(dec, WC_BLK_V8_SIZE, err);
			if (r < 0)
				goto fail;
			n = (size_t)r;
		}
		if (n == 0) {
			*at_end = true;
			break;
		}
		p = dec->win + dec->win_used;
		/* A record it cannot frame stops the keep: the decoder
		 * taken up there reports it.  One whose payload is not all
		 * here yet is read on below. */
		st = rec_take(p, n, sw, 0, &scratch, &hsize, &rec);
		if (st == REC_SHORT_HEADER || st == REC_BAD_MAGIC ||
		    st == REC_BAD_VERSION)
			break;
		if (got && got + rec > max)
			break;
		if (n < rec) {
			r = dec_refill(dec, rec, err);
			if (r < 0)
				goto fail;
			if ((size_t)r < rec)
				break;
			p = dec->win;
		}
		if (got + rec > cap) {
			cap = cap ? 2 * cap : 64 * 1024;
			while (cap < got + rec)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				wc_err_oom(err, wc_source_path(dec->src), wc_source_member(dec->src));
				goto fail;
			}
			buf = nb;
		}
		memcpy(buf + got, p, rec);
		got += rec;
		dec->win_used += rec;
	}
	if (got && got < cap && (nb = realloc(buf, got)))
		buf = nb;
	*bytes = buf;
	*len = got;
	return 0;

fail:
	/* The window moved: this decoder cannot go on either. */
	dec->failed = 1;
	free(buf);
	return -1;
}

void wc_decoder_expect(struct wc_decoder *dec, bool swapped)
{
	dec->order = swapped ? ORDER_SWAPPED : ORDER_NATIVE;
}

uint64_t wc_decoder_resume_offset(const struct wc_decoder *dec)
{
	return dec->win_off + dec->win_used + dec->pending;
}

int wc_decoder_open_file(struct wc_decoder **out, const char *path,
			 unsigned stream, struct wc_err *err)
{
	struct wc_source *src = NULL;

	*out = NULL;
	if (wc_source_open_file(&src, path, 0, err) < 0)
		return -1;
	return wc_decoder_open(out, src, stream, err);
}

bool wc_decoder_swapped(const struct wc_decoder *dec)
{
	return dec->order == ORDER_SWAPPED;
}

uint64_t wc_decoder_offset(const struct wc_decoder *dec)
{
	return dec->win_off + dec->win_used;
}

const struct wc_source *wc_decoder_source(const struct wc_decoder *dec)
{
	return dec->src;
}

void wc_decoder_free(struct wc_decoder *dec)
{
	if (!dec)
		return;
	wc_source_free(dec->src);
	free(dec);
}

bool wc_event_remap(const struct wc_event *ev, uint32_t *dev_from,
		    uint32_t *dev_to, uint64_t *sector_from)
{
	if (ev->pdu_len < sizeof(struct wc_blk_remap_pdu))
		return false;
	*dev_from = be32toh(get32(ev->pdu, false));
	*dev_to = be32toh(get32(ev->pdu + 4, false));
	*sector_from = be64toh(get64(ev->pdu + 8, false));
	return true;
}

bool wc_event_pdu_be64(const struct wc_event *ev, uint64_t *v)
{
	if (ev->pdu_len < 8)
		return false;
	*v = be64toh(get64(ev->pdu, false));
	return true;
}

bool wc_event_timestamp(const struct wc_event *ev, bool swapped,
			uint32_t *sec, uint32_t *nsec)
{
	if (ev->pdu_len != 8)
		return false;
	*sec = get32(ev->pdu, swapped);
	*nsec = get32(ev->pdu + 4, swapped);
	return true;
}
