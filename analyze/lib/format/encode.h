/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encode.h - struct wc_event back into a blktrace record: the decoder's
 * inverse, for everything that writes traces (the test generators, the
 * benchmarks' capture writers, Check fixtures).
 *
 *     unsigned char rec[WC_BLK_RECORD_MAX];
 *     ssize_t n;
 *
 *     n = wc_blk_encode(rec, sizeof(rec), &ev, WC_BLK_VERSION_8, false, &err);
 *     if (n < 0)
 *             goto fail;                  // err says why
 *     fwrite(rec, 1, (size_t)n, fp);
 *
 * What a record holds, field by field from ev:
 *  - magic WC_BLK_MAGIC | version (7 or 8), then sequence, time, sector,
 *    bytes, action, pid, device, cpu, error, pdu_len in the layout of
 *    blktrace_format.h; a v8 header's pad is zero;
 *  - in the host's byte order, or the other one when swapped is true (the
 *    same sense as wc_decoder_swapped());
 *  - when ev->has_cgroup: WC_TA_CGROUP set in action, and ev->cgroup as the
 *    first 8 bytes of the payload in the record's byte order, pdu_len
 *    counting it; otherwise action is written as given (a test may set
 *    WC_TA_CGROUP itself and supply the id inside ev->pdu);
 *  - then ev->pdu_len bytes of ev->pdu, copied as they are: payloads have
 *    their own byte order (remap, unplug, split big-endian; a timestamp in
 *    the file's), which the wc_blk_encode_*() helpers below write.
 *  ev->version and ev->stream are not read: the caller chooses the version.
 *
 * wc_decoder_next() on the bytes written gives back ev, field for field.
 * A record that cannot be written exactly is an error, never truncated:
 * a version other than 7 or 8, a v7 action with bits above 31 (the zone
 * categories exist only in v8), a payload over 65535 bytes with the
 * cgroup id, a buffer too small.  Nothing is allocated.
 */
#ifndef WC_ENCODE_H
#define WC_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/blktrace_format.h"
#include "format/event.h"
#include "base/wcerr.h"

/* The largest record: a v8 header and the largest payload. */
#define WC_BLK_RECORD_MAX (WC_BLK_V8_SIZE + 65535u)

/* Bytes the record of ev takes in version (header, cgroup id, payload);
 * 0 for an unknown version. */
size_t wc_blk_encoded_size(const struct wc_event *ev, unsigned version);

/* Writes ev as one record into buf[0..size); returns its length, or -1
 * with err set (WC_ERR_USAGE) and nothing promised about buf. */
ssize_t wc_blk_encode(void *buf, size_t size, const struct wc_event *ev,
		      unsigned version, bool swapped, struct wc_err *err);

/* Payloads, the inverse of decode.h's payload readers. */
/* Remap: {be32 device_from, be32 device_to, be64 sector_from}, 16 bytes. */
void wc_blk_encode_remap(unsigned char pdu[16], uint32_t dev_from,
			 uint32_t dev_to, uint64_t sector_from);
/* Unplug count and split sector: one be64, 8 bytes. */
void wc_blk_encode_be64(unsigned char pdu[8], uint64_t v);
/* Timestamp notify: u32 seconds, u32 nanoseconds in the record's order. */
void wc_blk_encode_timestamp(unsigned char pdu[8], uint32_t sec,
			     uint32_t nsec, bool swapped);

#endif /* WC_ENCODE_H */
