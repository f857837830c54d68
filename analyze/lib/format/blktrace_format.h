/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blktrace_format.h - the on-disk blktrace record layout, defined once.
 *
 * This is the one definition of the record layout in the project.  The
 * reader (decode.c), the writer (encode.c: every generator, benchmark and
 * test that makes a trace writes through wc_blk_encode()) and the
 * recorder (capture/wcrecord.c) all include it; nothing else may
 * redeclare these structures.
 *
 * A trace file is a sequence of records, each a fixed header followed by
 * pdu_len bytes of payload.  Two header versions exist:
 *
 *   version 7: struct blk_io_trace,  48 bytes (every kernel up to 6.18)
 *   version 8: struct blk_io_trace2, 64 bytes (Linux 6.19+, 64-bit action)
 *
 * A file is in its writer's byte order.  The low byte of the magic is the
 * version, the upper 24 bits are WC_BLK_MAGIC; readers find the byte order
 * by testing the first magic in both orders, and swap every field of every
 * record.  Payloads of remap, unplug and split events are big-endian
 * whatever the file's byte order.
 *
 * The structures below are the exact wire layout (no implicit padding:
 * static assertions at the bottom hold that).  Never read them by casting
 * an unaligned buffer; copy with memcpy.
 */
#ifndef WC_BLKTRACE_FORMAT_H
#define WC_BLKTRACE_FORMAT_H

#include <stdint.h>

#define WC_BLK_MAGIC      0x65617400u  /* "eat" + version byte */
#define WC_BLK_MAGIC_MASK 0xffffff00u
#define WC_BLK_VERSION_7  7u
#define WC_BLK_VERSION_8  8u

#define WC_BLK_V7_SIZE 48u
#define WC_BLK_V8_SIZE 64u

/* Version 7 record header (uapi struct blk_io_trace). */
struct wc_blk_io_trace {
	uint32_t magic;
	uint32_t sequence;  /* per CPU, starts at 1; 0 on notify and ftrace records */
	uint64_t time;      /* ns, trace clock */
	uint64_t sector;    /* 512-byte units */
	uint32_t bytes;
	uint32_t action;    /* low 16: what (WC_TA_*), high 16: category mask */
	uint32_t pid;
	uint32_t device;    /* kernel dev_t: major << 20 | minor */
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;
};

/* Version 8 record header (uapi struct blk_io_trace2). */
struct wc_blk_io_trace2 {
	uint32_t magic;
	uint32_t sequence;
	uint64_t time;
	uint64_t sector;
	uint32_t bytes;
	uint32_t pid;
	uint64_t action;    /* low 32 bits as v7; zone categories above */
	uint32_t device;
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;
	uint8_t pad[12];
};

_Static_assert(sizeof(struct wc_blk_io_trace) == WC_BLK_V7_SIZE, "v7 layout");
_Static_assert(sizeof(struct wc_blk_io_trace2) == WC_BLK_V8_SIZE, "v8 layout");

/* What happened: the low 16 bits of action (__BLK_TA_*). */
enum wc_blk_ta {
	WC_TA_QUEUE = 1,
	WC_TA_BACKMERGE = 2,
	WC_TA_FRONTMERGE = 3,
	WC_TA_GETRQ = 4,
	WC_TA_SLEEPRQ = 5,
	WC_TA_REQUEUE = 6,
	WC_TA_ISSUE = 7,
	WC_TA_COMPLETE = 8,
	WC_TA_PLUG = 9,
	WC_TA_UNPLUG_IO = 10,
	WC_TA_UNPLUG_TIMER = 11,
	WC_TA_INSERT = 12,
	WC_TA_SPLIT = 13,
	WC_TA_BOUNCE = 14,
	WC_TA_REMAP = 15,
	WC_TA_ABORT = 16,
	WC_TA_DRV_DATA = 17,
};
/* Set in "what" when the payload starts with a u64 cgroup id. */
#define WC_TA_CGROUP   (1u << 8)
#define WC_TA_MASK     0xffu          /* what, once the cgroup flag is off */

/* Notify records (category NOTIFY): what they carry. */
enum wc_blk_tn {
	WC_TN_PROCESS = 0,    /* payload: command name */
	WC_TN_TIMESTAMP = 1,  /* payload: u32 wall seconds, u32 nanoseconds */
	WC_TN_MESSAGE = 2,    /* payload: text */
};

/* Categories: bit numbers above WC_TC_SHIFT in action. */
#define WC_TC_SHIFT 16
enum wc_blk_tc_bit {
	WC_TC_READ = 0,
	WC_TC_WRITE = 1,
	WC_TC_FLUSH = 2,
	WC_TC_SYNC = 3,
	WC_TC_QUEUE = 4,
	WC_TC_REQUEUE = 5,
	WC_TC_ISSUE = 6,
	WC_TC_COMPLETE = 7,
	WC_TC_FS = 8,
	WC_TC_PC = 9,
	WC_TC_NOTIFY = 10,
	WC_TC_AHEAD = 11,
	WC_TC_META = 12,
	WC_TC_DISCARD = 13,
	WC_TC_DRV_DATA = 14,
	WC_TC_FUA = 15,
};
/* The mask of one category inside a 64-bit action. */
#define WC_TC(bit) ((uint64_t)1 << (WC_TC_SHIFT + (bit)))

/* Zone-operation categories of v8 records.  The patch versions of the
 * series disagreed: early ones shifted the zone categories by a second
 * shift of 32 (BLK_TC_ACT2), which put them at bits 48..53 or 33..38.
 * What was merged, "blktrace: add block trace commands for zone
 * operations" (v5 13/16, Johannes Thumshirn), is commit f9ee38bbf70f
 * (applied by Jens Axboe to for-6.19/block on 22 Oct 2025 with the rest
 * of the series, blk_io_trace2 in c44347d60626), the same commit ids in
 * mainline's (torvalds/linux) history, where uapi blktrace_api.h was read
 * at f9ee38bbf70f (which release tag first holds it was not checked): it
 * has BLK_TC_ZONE_APPEND = 1ull << 16 .. BLK_TC_ZONE_CLOSE
 * = 1ull << 21 and BLK_TC_ACT(act) = (u64)(act) << 16, bits 32..37, and
 * struct blk_io_trace2 with pad[12] (64 bytes).  A later patch
 * (BLK_TC_WRITE_ZEROES = 1ull << 22, bit 38) is not read here: such an
 * event dumps as what its other category bits say. */
#define WC_TC_ZONE_APPEND    ((uint64_t)1 << 32)
#define WC_TC_ZONE_RESET     ((uint64_t)1 << 33)
#define WC_TC_ZONE_RESET_ALL ((uint64_t)1 << 34)
#define WC_TC_ZONE_FINISH    ((uint64_t)1 << 35)
#define WC_TC_ZONE_OPEN      ((uint64_t)1 << 36)
#define WC_TC_ZONE_CLOSE     ((uint64_t)1 << 37)

/* Payloads that are big-endian whatever the file's byte order. */
struct wc_blk_remap_pdu {   /* 16 bytes */
	uint32_t device_from;   /* be32 */
	uint32_t device_to;     /* be32 */
	uint64_t sector_from;   /* be64 */
};
_Static_assert(sizeof(struct wc_blk_remap_pdu) == 16, "remap pdu layout");

#define WC_DEV_MAJOR(dev) ((unsigned)((dev) >> 20))
#define WC_DEV_MINOR(dev) ((unsigned)((dev) & 0xfffffu))
#define WC_DEV_MAKE(maj, min) \
	((uint32_t)(((uint32_t)(maj) << 20) | ((uint32_t)(min) & 0xfffffu)))

#endif /* WC_BLKTRACE_FORMAT_H */
