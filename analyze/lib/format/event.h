/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event.h - one decoded blktrace record in host byte order.
 *
 * The decoder turns every record, v7 or v8, little- or big-endian, into a
 * struct wc_event.  Everything downstream (merge, tracker, dump) sees only
 * this structure, never the wire layout of blktrace_format.h.
 *
 * What always holds for an event handed out by a reader:
 *  - all integer fields are in host byte order;
 *  - action is 64 bits wide for both versions; the cgroup flag has been
 *    removed from "what" (see has_cgroup / cgroup);
 *  - pdu points at pdu_len bytes of payload *after* the cgroup id, owned by
 *    the reader and valid only until the next call on that reader; copy it
 *    if you need it longer;
 *  - stream names the per-CPU stream the record came from (an index into
 *    the capture's stream list), so sequence gaps can be charged to it.
 */
#ifndef WC_EVENT_H
#define WC_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/blktrace_format.h"

struct wc_event {
	uint64_t time;       /* ns, trace clock, as recorded */
	uint64_t sector;
	uint64_t action;     /* what in bits 0..15, categories from bit 16 */
	uint64_t cgroup;     /* valid when has_cgroup */
	uint32_t sequence;
	uint32_t bytes;
	uint32_t pid;
	uint32_t device;     /* dev_t: WC_DEV_MAJOR / WC_DEV_MINOR */
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;    /* payload bytes at pdu (cgroup id excluded) */
	uint8_t version;     /* 7 or 8 */
	bool has_cgroup;
	unsigned stream;     /* index of the stream this record came from */
	const unsigned char *pdu;
};

struct wc_err;

/*
 * Where events come from, for every module that pulls them (tracker,
 * analysis): returns 1 with an event in *ev, 0 at the end, -1 on failure
 * with err filled (wcerr.h).  ctx is the source's own state, passed back
 * unchanged (a test's array of events, say).
 */
typedef int (*wc_event_source)(void *ctx, struct wc_event *ev,
			       struct wc_err *err);

/* The "what" of an event: one of enum wc_blk_ta (or wc_blk_tn for notify). */
static inline unsigned wc_event_what(const struct wc_event *ev)
{
	return (unsigned)(ev->action & WC_TA_MASK);
}

/* True when the event carries category bit (enum wc_blk_tc_bit). */
static inline bool wc_event_has(const struct wc_event *ev, unsigned bit)
{
	return (ev->action & WC_TC(bit)) != 0;
}

static inline bool wc_event_is_notify(const struct wc_event *ev)
{
	return wc_event_has(ev, WC_TC_NOTIFY);
}

/* The actions of the notify records the reader acts on: a process's
 * command name (the names blkparse prints, the waits by command), taken
 * by the reader; a message, handed on as an event (--dump prints it). */
#define WC_ACTION_PROCESS (WC_TC(WC_TC_NOTIFY) | WC_TN_PROCESS)
#define WC_ACTION_MESSAGE (WC_TC(WC_TC_NOTIFY) | WC_TN_MESSAGE)

#endif /* WC_EVENT_H */
