/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "format/encode.h"

#include <byteswap.h>
#include <endian.h>
#include <string.h>

static inline void put16(unsigned char *p, uint16_t v, bool sw)
{
	if (sw)
		v = bswap_16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put32(unsigned char *p, uint32_t v, bool sw)
{
	if (sw)
		v = bswap_32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put64(unsigned char *p, uint64_t v, bool sw)
{
	if (sw)
		v = bswap_64(v);
	memcpy(p, &v, sizeof(v));
}

static size_t header_size(unsigned version)
{
	if (version == WC_BLK_VERSION_7)
		return WC_BLK_V7_SIZE;
	if (version == WC_BLK_VERSION_8)
		return WC_BLK_V8_SIZE;
	return 0;
}

size_t wc_blk_encoded_size(const struct wc_event *ev, unsigned version)
{
	size_t h = header_size(version);

	if (!h)
		return 0;
	return h + (ev->has_cgroup ? 8u : 0u) + ev->pdu_len;
}

ssize_t wc_blk_encode(void *buf, size_t size, const struct wc_event *ev,
		      unsigned version, bool swapped, struct wc_err *err)
{
	unsigned char *p = buf;
	uint64_t action = ev->action;
	size_t hsize = header_size(version), total, pdu_len;

	if (!hsize)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "unknown version %u", version);
	if (ev->has_cgroup)
		action |= WC_TA_CGROUP;
	if (version == WC_BLK_VERSION_7 && action > UINT32_MAX)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "action 0x%llx does not fit a version 7 record",
				  (unsigned long long)action);
	pdu_len = (size_t)ev->pdu_len + (ev->has_cgroup ? 8u : 0u);
	if (pdu_len > UINT16_MAX)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "payload of %zu bytes over the 65535 of pdu_len",
				  pdu_len);
	total = hsize + pdu_len;
	if (size < total)
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "record of %zu bytes in a buffer of %zu",
				  total, size);

	memset(p, 0, hsize);
	put32(p, WC_BLK_MAGIC | version, swapped);
	put32(p + 4, ev->sequence, swapped);
	put64(p + 8, ev->time, swapped);
	put64(p + 16, ev->sector, swapped);
	put32(p + 24, ev->bytes, swapped);
	if (version == WC_BLK_VERSION_7) {
		put32(p + 28, (uint32_t)action, swapped);
		put32(p + 32, ev->pid, swapped);
		put32(p + 36, ev->device, swapped);
		put32(p + 40, ev->cpu, swapped);
		put16(p + 44, ev->error, swapped);
		put16(p + 46, (uint16_t)pdu_len, swapped);
	} else {
		put32(p + 28, ev->pid, swapped);
		put64(p + 32, action, swapped);
		put32(p + 40, ev->device, swapped);
		put32(p + 44, ev->cpu, swapped);
		put16(p + 48, ev->error, swapped);
		put16(p + 50, (uint16_t)pdu_len, swapped);
	}
	p += hsize;
	if (ev->has_cgroup) {
		put64(p, ev->cgroup, swapped);
		p += 8;
	}
	if (ev->pdu_len)
		memcpy(p, ev->pdu, ev->pdu_len);
	return (ssize_t)total;
}

void wc_blk_encode_remap(unsigned char pdu[16], uint32_t dev_from,
			 uint32_t dev_to, uint64_t sector_from)
{
	put32(pdu, htobe32(dev_from), false);
	put32(pdu + 4, htobe32(dev_to), false);
	put64(pdu + 8, htobe64(sector_from), false);
}

void wc_blk_encode_be64(unsigned char pdu[8], uint64_t v)
{
	put64(pdu, htobe64(v), false);
}

void wc_blk_encode_timestamp(unsigned char pdu[8], uint32_t sec,
			     uint32_t nsec, bool swapped)
{
	put32(pdu, sec, swapped);
	put32(pdu + 4, nsec, swapped);
}
