#include "decode.h"

#include <byteswap.h>
#include <endian.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	/* The bytes from struct wc_event's version on of a native v7 record
	 * of this stream (dec_tail7()), made once, not per run. */
	unsigned char tail7[8];
};

/* tail for dec_native7(): version 7, has_cgroup false, stream. */
static inline void dec_tail7(unsigned char tail[8], unsigned stream)
{
	memset(tail, 0, 8);
	tail[0] = WC_BLK_VERSION_7;
	memcpy(tail + offsetof(struct wc_event, stream) -
	       offsetof(struct wc_event, version), &stream, sizeof(stream));
}

int wc_decoder_open(struct wc_decoder **out, struct wc_source *src,
		    unsigned stream, struct wc_err *err)
{
	struct wc_decoder *dec;

	*out = NULL;
	dec = calloc(1, sizeof(*dec));
	if (!dec) {
		wc_err_set(err, WC_ERR_SYSTEM, wc_source_path(src),
			   wc_source_member(src), WC_NO_OFFSET, "out of memory");
		wc_source_free(src);
		return -1;
	}
	dec->src = src;
	dec->stream = stream;
	dec->win_off = wc_source_offset(src);
	dec_tail7(dec->tail7, stream);
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

/*
 * The native v7 record without a cgroup id, the common one, in fewer
 * stores than dec_plain(): the header's time and sector, and its pid to
 * pdu_len, lie in the same order in struct wc_event as on the wire, so
 * each pair or run is one copy (the assertions hold that layout).  tail
 * is version, has_cgroup and stream as the 8 bytes from version on hold
 * them.  Its length, or 0 for dec_plain() to look at.
 */
_Static_assert(offsetof(struct wc_event, sector) ==
	       offsetof(struct wc_event, time) + 8, "time, sector");
_Static_assert(offsetof(struct wc_event, device) ==
	       offsetof(struct wc_event, pid) + 4 &&
	       offsetof(struct wc_event, cpu) ==
	       offsetof(struct wc_event, pid) + 8 &&
	       offsetof(struct wc_event, error) ==
	       offsetof(struct wc_event, pid) + 12 &&
	       offsetof(struct wc_event, pdu_len) ==
	       offsetof(struct wc_event, pid) + 14, "pid .. pdu_len");
_Static_assert(offsetof(struct wc_event, has_cgroup) ==
	       offsetof(struct wc_event, version) + 1 &&
	       offsetof(struct wc_event, stream) + sizeof(unsigned) <=
	       offsetof(struct wc_event, version) + 8 &&
	       offsetof(struct wc_event, pdu) >=
	       offsetof(struct wc_event, version) + 8, "version .. stream");

static inline __attribute__((always_inline))
size_t dec_native7(const unsigned char *p, size_t n, const unsigned char *tail,
		   struct wc_event *ev)
{
	uint32_t raw, a32;
	uint16_t plen;

	if (n < WC_BLK_V7_SIZE)
		return 0;
	memcpy(&raw, p, 4);
	memcpy(&a32, p + 28, 4);
	memcpy(&plen, p + 46, 2);
	if (raw != (WC_BLK_MAGIC | WC_BLK_VERSION_7) || (a32 & WC_TA_CGROUP) ||
	    n < WC_BLK_V7_SIZE + (size_t)plen)
		return 0;
	memcpy((char *)ev + offsetof(struct wc_event, time), p + 8, 16);
	ev->action = a32;
	ev->cgroup = 0;
	memcpy(&ev->sequence, p + 4, 4);
	memcpy(&ev->bytes, p + 24, 4);
	memcpy((char *)ev + offsetof(struct wc_event, pid), p + 32, 16);
	memcpy((char *)ev + offsetof(struct wc_event, version), tail, 8);
	ev->pdu = p + WC_BLK_V7_SIZE;
	return WC_BLK_V7_SIZE + (size_t)plen;
}

/* wc_decoder_next() and, with buffered, wc_decoder_next_buffered():
 * the constant argument makes two copies without a branch on it. */
static inline __attribute__((always_inline))
int dec_next(struct wc_decoder *dec, struct wc_event *ev, struct wc_err *err,
	     bool buffered)
{
	const unsigned char *p;
	uint32_t magic, raw;
	unsigned version, hsize;
	ssize_t n;
	bool sw;

	if (dec->failed)
		return -1;
	dec->win_used += dec->pending;
	dec->pending = 0;

	/* Peek: as much as the largest header, which holds the magic (byte
	 * order, version, header size) and usually the whole record; fewer
	 * bytes only at the end of the stream.  One peek serves the records
	 * of a whole buffer. */
	n = (ssize_t)(dec->win_len - dec->win_used);
	if ((size_t)n < WC_BLK_V8_SIZE) {
		/* A refill moves the buffer under the payloads handed out. */
		if (buffered)
			return 2;
		if ((n = dec_refill(dec, WC_BLK_V8_SIZE, err)) < 0)
			return -1;
	}
	if (n == 0)
		return 0;
	p = dec->win + dec->win_used;

	/* The common record, a v7 one in this machine's byte order whose
	 * payload is in the window and carries no cgroup id, taken without
	 * the general path's byte-order and version branches.  It fills
	 * every field the general path does, with the same values. */
	if (dec->order == ORDER_NATIVE) {
		size_t len;

		if ((len = dec_native7(p, (size_t)n, dec->tail7, ev)) != 0) {
			dec->pending = len;
			return 1;
		}
	}
	if (n < 4)
		return dec_fail(dec, err, "truncated record: %zd of %u header bytes",
				n, WC_BLK_V7_SIZE);
	memcpy(&raw, p, 4);

	/* Validate. */
	if (dec->order == ORDER_UNKNOWN) {
		if ((raw & WC_BLK_MAGIC_MASK) == WC_BLK_MAGIC)
			dec->order = ORDER_NATIVE;
		else if ((bswap_32(raw) & WC_BLK_MAGIC_MASK) == WC_BLK_MAGIC)
			dec->order = ORDER_SWAPPED;
		else
			return dec_fail(dec, err,
					"not a blktrace trace (magic 0x%08x)",
					raw);
	}
	sw = dec->order == ORDER_SWAPPED;
	magic = sw ? bswap_32(raw) : raw;
	if ((magic & WC_BLK_MAGIC_MASK) != WC_BLK_MAGIC)
		return dec_fail(dec, err, "bad magic 0x%08x", magic);
	version = magic & 0xffu;
	hsize = wc_blk_header_size(magic);
	if (!hsize)
		return dec_fail(dec, err, "unknown version %u", version);
	if ((size_t)n < hsize)
		return dec_fail(dec, err, "truncated record: %zd of %u header bytes",
				n, hsize);

	memset(ev, 0, sizeof(*ev));
	ev->version = (uint8_t)version;
	ev->sequence = get32(p + 4, sw);
	ev->time = get64(p + 8, sw);
	ev->sector = get64(p + 16, sw);
	ev->bytes = get32(p + 24, sw);
	if (version == WC_BLK_VERSION_7) {
		ev->action = get32(p + 28, sw);
		ev->pid = get32(p + 32, sw);
		ev->device = get32(p + 36, sw);
		ev->cpu = get32(p + 40, sw);
		ev->error = get16(p + 44, sw);
		ev->pdu_len = get16(p + 46, sw);
	} else {
		ev->pid = get32(p + 28, sw);
		ev->action = get64(p + 32, sw);
		ev->device = get32(p + 40, sw);
		ev->cpu = get32(p + 44, sw);
		ev->error = get16(p + 48, sw);
		ev->pdu_len = get16(p + 50, sw);
	}

	/* The payload must be there before anything trusts pdu_len; the
	 * first peek often holds it already. */
	if ((size_t)n < hsize + (size_t)ev->pdu_len) {
		if (buffered)
			return 2;
		n = dec_refill(dec, hsize + (size_t)ev->pdu_len, err);
		if (n < 0)
			return -1;
		p = dec->win;
	}
	if ((size_t)n < hsize + (size_t)ev->pdu_len)
		return dec_fail(dec, err,
				"pdu_len %u past the end (%zd bytes left)",
				ev->pdu_len, n - (ssize_t)hsize);

	ev->pdu = p + hsize;
	if (ev->action & WC_TA_CGROUP) {
		if (ev->pdu_len < 8)
			return dec_fail(dec, err,
					"pdu_len %u too short for the cgroup id",
					ev->pdu_len);
		ev->has_cgroup = true;
		ev->cgroup = get64(ev->pdu, sw);
		ev->pdu += 8;
		ev->pdu_len -= 8;
		ev->action &= ~(uint64_t)WC_TA_CGROUP;
	}
	ev->stream = dec->stream;

	/* Consume on the next call, so ev->pdu stays valid until then. */
	dec->pending = hsize + (size_t)(ev->pdu_len + (ev->has_cgroup ? 8 : 0));
	return 1;
}

int wc_decoder_next(struct wc_decoder *dec, struct wc_event *ev,
		    struct wc_err *err)
{
	return dec_next(dec, ev, err, false);
}

int wc_decoder_next_buffered(struct wc_decoder *dec, struct wc_event *ev,
			     struct wc_err *err)
{
	return dec_next(dec, ev, err, true);
}

/* One whole, well-formed record at p (n bytes from p on) into *ev, in
 * byte order sw: its length, or 0 when it is not whole here or anything
 * in it is for the general path to look at and report.  Fills every
 * field wc_decoder_next() does, with the same values. */
static inline __attribute__((always_inline))
size_t dec_plain(const unsigned char *p, size_t n, bool sw, unsigned stream,
		 struct wc_event *ev)
{
	uint32_t magic;
	uint64_t action;
	size_t hsize, plen;

	if (n < WC_BLK_V7_SIZE)
		return 0;
	magic = get32(p, sw);
	if (magic == (WC_BLK_MAGIC | WC_BLK_VERSION_7)) {
		hsize = WC_BLK_V7_SIZE;
		action = get32(p + 28, sw);
		plen = get16(p + 46, sw);
		ev->pid = get32(p + 32, sw);
		ev->device = get32(p + 36, sw);
		ev->cpu = get32(p + 40, sw);
		ev->error = get16(p + 44, sw);
	} else if (magic == (WC_BLK_MAGIC | WC_BLK_VERSION_8) &&
		   n >= WC_BLK_V8_SIZE) {
		hsize = WC_BLK_V8_SIZE;
		ev->pid = get32(p + 28, sw);
		action = get64(p + 32, sw);
		ev->device = get32(p + 40, sw);
		ev->cpu = get32(p + 44, sw);
		ev->error = get16(p + 48, sw);
		plen = get16(p + 50, sw);
	} else {
		return 0;
	}
	if (n < hsize + plen)
		return 0;
	ev->version = (uint8_t)(magic & 0xffu);
	ev->sequence = get32(p + 4, sw);
	ev->time = get64(p + 8, sw);
	ev->sector = get64(p + 16, sw);
	ev->bytes = get32(p + 24, sw);
	ev->stream = stream;
	ev->pdu = p + hsize;
	ev->pdu_len = (uint16_t)plen;
	ev->has_cgroup = false;
	ev->cgroup = 0;
	if (action & WC_TA_CGROUP) {
		if (plen < 8)
			return 0;
		ev->has_cgroup = true;
		ev->cgroup = get64(ev->pdu, sw);
		ev->pdu += 8;
		ev->pdu_len = (uint16_t)(plen - 8);
		action &= ~(uint64_t)WC_TA_CGROUP;
	}
	ev->action = action;
	return hsize + plen;
}

/* The records after the first of a run, while they are whole in the
 * window: k events in out so far, the last handed out at win_used. */
static inline __attribute__((always_inline))
size_t dec_run(struct wc_decoder *dec, struct wc_event *out, size_t k,
	       size_t max, uint64_t limit, bool sw)
{
	const unsigned char *win = dec->win;
	size_t used = dec->win_used + dec->pending, len = 0, last = used;
	size_t end = dec->win_len;
	unsigned char tail[8];

	/* In a local: the stores into out[] could change dec's for all
	 * the compiler knows, and it would load it again per record. */
	memcpy(tail, dec->tail7, sizeof(tail));
	while (k < max) {
		if (sw || !(len = dec_native7(win + used, end - used, tail,
					      &out[k])))
			len = dec_plain(win + used, end - used, sw,
					dec->stream, &out[k]);
		if (!len)
			break;
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

int wc_decoder_next_run(struct wc_decoder *dec, struct wc_event *out,
			size_t max, uint64_t limit, bool buffered,
			size_t *got, struct wc_err *err)
{
	int r;

	*got = 0;
	if (max == 0)
		return 2;
	/* The first through the general path: it reads more when it must,
	 * and finds and reports what is wrong. */
	r = dec_next(dec, &out[0], err, buffered);
	if (r != 1)
		return r;
	*got = 1;
	if (out[0].time > limit)
		return 1;
	if (dec->order == ORDER_SWAPPED)
		*got = dec_run(dec, out, 1, max, limit, true);
	else
		*got = dec_run(dec, out, 1, max, limit, false);
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
		size_t n = dec->win_len - dec->win_used, rec;
		unsigned hsize;
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
		if (n < 4 || !(hsize = wc_blk_header_size(get32(p, sw))) ||
		    n < hsize)
			break;
		rec = hsize + get16(p + (hsize == WC_BLK_V7_SIZE ? 46 : 50), sw);
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
				wc_err_set(err, WC_ERR_SYSTEM,
					   wc_source_path(dec->src),
					   wc_source_member(dec->src),
					   WC_NO_OFFSET, "out of memory");
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
	if (wc_source_open_file(&src, path, err) < 0)
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
