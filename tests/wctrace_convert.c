/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wctrace_convert - rewrites one blktrace file for the reader's tests.
 *
 *   wctrace_convert [OPTION]... IN OUT
 *
 *   --v8            write version 8 records (struct blk_io_trace2)
 *   --swap          write in the other byte order than IN's
 *   --device M:m    set every record's device
 *   --remap M:m:OFF before every Q, a remap (A) record from device M:m,
 *                   sector - OFF, as a partition remap looks
 *   --split         after every Q of more than 8 sectors, a split (X)
 *   --notify        a timestamp notify first, a process notify before each
 *                   pid's first event ("proc-PID"), a message notify after
 *                   the tenth event
 *   --names TAG     a process notify "TAG-PID" before each pid's first event
 *                   and before every 300th event for its pid: converting
 *                   each CPU file with its own TAG gives pids several names,
 *                   some of them read only in blkparse's later batches;
 *                   the input's own process notifies are left out
 *   --names-after N with --names, no name before the Nth event: events
 *                   before it have a pid that blkparse cannot name yet
 *   --cgroup ID     flag every event with a cgroup id
 *   --seq N         number the non-notify records 1, 2, ... leaving out
 *                   every Nth number (0: no gaps), as real blktrace does
 *   --cpu N         set every record's CPU (a copy of a CPU file as
 *                   another CPU's: every event then has a twin equal in
 *                   time, device and sequence)
 *   --part K/N      keep the Kth of every N records (notifies in every
 *                   part): N parts, each with its own --cpu (and --seq
 *                   0), are one CPU file's events spread over N CPUs'
 *   --messages N    before every Nth event, a message notify of 100 bytes
 *                   (a scheduler's, as bfq writes them), half way in time
 *                   from the event before: longer than a closed stream's
 *                   stash (inputdefs.h)
 *   --shift NS      add NS to every record's time: a file "blkparse -d"
 *                   wrote starts at time 0, which "blkparse -i -" treats
 *                   as no genesis found yet (reorder.h)
 *   --scramble SEED about one record in eight gets one field the decoder
 *                   cannot check replaced (time backwards or far ahead,
 *                   sector, bytes, what, category bits, device, error),
 *                   so the analysis meets traces that are well formed but
 *                   make no sense; the same SEED gives the same trace
 *   --scramble-devices SEED
 *                   every record but notifies gets a random device number,
 *                   as a corrupt device field would look: the analysis
 *                   must cap what it keeps per device (WC_MAX_DEVICES)
 *
 * Records are read with the project's decoder and written with its
 * encoder, so the tests can make big-endian, v8, remap and
 * notify traces from the small recorded fixtures instead of keeping
 * hand-made binaries.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/blktrace_format.h"
#include "input/decode_test.h"
#include "format/encode.h"
#include "input/source.h"

struct conv {
	bool v8, swap, split, notify;
	const char *names;
	unsigned long names_after;
	bool set_device;
	uint32_t device;
	bool remap;
	uint32_t remap_from;
	uint64_t remap_off;
	bool cgroup;
	uint64_t cgroup_id;
	unsigned seq_gap;
	bool seq;
	uint32_t next_seq;
	uint64_t shift;
	bool set_cpu;
	uint32_t cpu;
	unsigned long part, parts;
	unsigned long messages;
	bool scramble, scramble_devices;
	uint64_t rng;
	FILE *out;
};

/* xorshift64: small, and the same sequence on every machine. */
static uint64_t rnd(struct conv *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return c->rng;
}

static void scramble(struct conv *c, struct wc_event *ev)
{
	uint64_t r = rnd(c);

	if (wc_event_is_notify(ev) || r % 8)
		return;
	switch ((r >> 3) % 8) {
	case 0:
		ev->time = ev->time > (r >> 40) ? ev->time - (r >> 40) : 0;
		break;
	case 1:
		ev->time += rnd(c) >> 20;
		break;
	case 2:
		ev->sector = rnd(c) >> (r >> 58);
		break;
	case 3:
		ev->bytes = (uint32_t)(rnd(c) >> (32 + (r >> 59)));
		break;
	case 4:
		ev->action = (ev->action & ~(uint64_t)WC_TA_MASK) |
			     (1 + rnd(c) % WC_TA_DRV_DATA);
		break;
	case 5:
		ev->action = (ev->action & WC_TA_MASK) |
			     ((rnd(c) & 0xffff) << WC_TC_SHIFT);
		break;
	case 6:
		ev->device ^= 1;
		break;
	default:
		ev->error = (uint16_t)rnd(c);
		break;
	}
}

/* Writes ev in the output's version and byte order. */
static int put(struct conv *c, const struct wc_event *in, struct wc_err *err)
{
	static unsigned char rec[WC_BLK_RECORD_MAX];
	struct wc_event shifted = *in;
	const struct wc_event *ev = &shifted;
	ssize_t n;

	shifted.time += c->shift;
	if (c->set_cpu)
		shifted.cpu = c->cpu;

	n = wc_blk_encode(rec, sizeof(rec), ev,
			  c->v8 ? WC_BLK_VERSION_8 : WC_BLK_VERSION_7, c->swap,
			  err);
	if (n < 0)
		return -1;
	if (fwrite(rec, 1, (size_t)n, c->out) != (size_t)n)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "write error");
	return 0;
}

/* Writes ev, numbering it when asked. */
static int emit(struct conv *c, struct wc_event *ev, struct wc_err *err)
{
	if (c->seq && !wc_event_is_notify(ev)) {
		c->next_seq++;
		if (c->seq_gap && c->next_seq % c->seq_gap == 0)
			c->next_seq++;
		ev->sequence = c->next_seq;
	}
	return put(c, ev, err);
}

static bool seen_pid(uint32_t pid)
{
	static uint32_t pids[4096];
	static size_t n;
	size_t i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	if (n < 4096)
		pids[n++] = pid;
	return false;
}

/* A process notify naming ev's pid "PREFIX-PID", before ev. */
static int put_process(struct conv *c, const struct wc_event *ev,
		       const char *prefix, struct wc_err *err)
{
	unsigned char pdu[16] = { 0 };
	struct wc_event x = *ev;

	x.action = WC_TC(WC_TC_NOTIFY) | WC_TN_PROCESS;
	x.sequence = 0;
	x.has_cgroup = false;
	snprintf((char *)pdu, sizeof(pdu), "%.8s-%u", prefix, ev->pid);
	x.pdu_len = 16;
	x.pdu = pdu;
	return put(c, &x, err);
}

static int convert(struct conv *c, const char *in)
{
	struct wc_decoder *dec = NULL;
	struct wc_event ev;
	struct wc_err err;
	unsigned long nev = 0, nnamed = 0, nrec = 0, nkept = 0;
	uint64_t last_time = 0;
	int r;

	wc_err_clear(&err);
	if (wc_decoder_open_file(&dec, in, 0, &err) < 0)
		goto fail;
	while ((r = wc_decoder_next(dec, &ev, &err)) > 0) {
		bool swapped_in = wc_decoder_swapped(dec);
		unsigned char pdu[64];
		struct wc_event x;

		uint32_t sec, nsec;

		if (wc_event_is_notify(&ev) && (ev.action & WC_TA_MASK) ==
		    WC_TN_TIMESTAMP &&
		    wc_event_timestamp(&ev, swapped_in, &sec, &nsec)) {
			/* Timestamp payloads follow the file's byte order. */
			wc_blk_encode_timestamp(pdu, sec, nsec, c->swap);
			ev.pdu = pdu;
		}
		if (c->parts && !wc_event_is_notify(&ev) &&
		    nrec++ % c->parts != c->part)
			continue;
		/* --names: the only names are its own. */
		if (c->names && wc_event_is_notify(&ev) &&
		    (ev.action & WC_TA_MASK) == WC_TN_PROCESS)
			continue;
		if (c->set_device)
			ev.device = c->device;
		if (c->scramble)
			scramble(c, &ev);
		if (c->scramble_devices && !wc_event_is_notify(&ev))
			ev.device = (uint32_t)(rnd(c) >> 32);
		if (c->notify && nev == 0) {
			unsigned char ts[8];

			x = ev;
			x.action = WC_TC(WC_TC_NOTIFY) | WC_TN_TIMESTAMP;
			x.sequence = 0;
			x.has_cgroup = false;
			x.pdu_len = 8;
			wc_blk_encode_timestamp(ts, 1700000000u, 5u, c->swap);
			x.pdu = ts;
			if (put(c, &x, &err) < 0)
				goto fail;
		}
		if (c->notify && !wc_event_is_notify(&ev) && !seen_pid(ev.pid) &&
		    put_process(c, &ev, "proc", &err) < 0)
			goto fail;
		if (c->names && !wc_event_is_notify(&ev) &&
		    nev >= c->names_after &&
		    (!seen_pid(ev.pid) || ++nnamed % 300 == 0) &&
		    put_process(c, &ev, c->names, &err) < 0)
			goto fail;
		/* --messages: before the event, half way from the one
		 * before it, so that other CPUs' events come between. */
		if (c->messages && !wc_event_is_notify(&ev) &&
		    ++nkept % c->messages == 0) {
			char msg[101];

			snprintf(msg, sizeof(msg), "%-100.100s",
				 "bfq message: longer than a stash of 32 bytes, "
				 "as a scheduler's messages are");
			x = ev;
			x.time = ev.time > last_time ?
				 last_time + (ev.time - last_time) / 2 : ev.time;
			x.action = WC_TC(WC_TC_NOTIFY) | WC_TN_MESSAGE;
			x.sequence = 0;
			x.has_cgroup = false;
			x.pdu = (const unsigned char *)msg;
			x.pdu_len = 100;
			if (put(c, &x, &err) < 0)
				goto fail;
		}
		if (!wc_event_is_notify(&ev) && ev.time > last_time)
			last_time = ev.time;
		if (c->cgroup && !wc_event_is_notify(&ev)) {
			ev.has_cgroup = true;
			ev.cgroup = c->cgroup_id;
		}
		if (c->remap && (ev.action & WC_TA_MASK) == WC_TA_QUEUE &&
		    !wc_event_is_notify(&ev)) {
			x = ev;
			x.action = (ev.action & ~(uint64_t)0xffff) | WC_TA_REMAP;
			wc_blk_encode_remap(pdu, c->remap_from, ev.device,
					    ev.sector - c->remap_off);
			x.pdu = pdu;
			x.pdu_len = 16;
			if (emit(c, &x, &err) < 0)
				goto fail;
		}
		if (emit(c, &ev, &err) < 0)
			goto fail;
		if (c->split && (ev.action & WC_TA_MASK) == WC_TA_QUEUE &&
		    !wc_event_is_notify(&ev) && ev.bytes > 4096) {
			x = ev;
			x.action = (ev.action & ~(uint64_t)0xffff) | WC_TA_SPLIT;
			wc_blk_encode_be64(pdu, ev.sector + 8);
			x.pdu = pdu;
			x.pdu_len = 8;
			if (emit(c, &x, &err) < 0)
				goto fail;
		}
		if (c->notify && ++nev == 10) {
			static const char msg[] = "wctrace_convert was here";

			x = ev;
			x.action = WC_TC(WC_TC_NOTIFY) | WC_TN_MESSAGE;
			x.sequence = 0;
			x.pid = 0;
			x.has_cgroup = false;
			x.pdu = (const unsigned char *)msg;
			x.pdu_len = sizeof(msg) - 1;
			if (put(c, &x, &err) < 0)
				goto fail;
		} else if (!c->notify) {
			nev++;
		}
	}
	if (r < 0)
		goto fail;
	wc_decoder_free(dec);
	return 0;

fail: {
	char buf[2048];

	fprintf(stderr, "wctrace_convert: %s\n",
		wc_err_format(&err, buf, sizeof(buf)));
	wc_decoder_free(dec);
	return 1;
}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wctrace_convert [--v8] [--swap] [--device M:m] "
		"[--remap M:m:OFF] [--split] [--notify] [--names TAG [--names-after N]] "
		"[--cgroup ID] "
		"[--seq N] [--cpu N] [--part K/N] [--messages N] [--shift NS]\n"
		"       [--scramble SEED] [--scramble-devices SEED] IN OUT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct conv c;
	int i, r;

	memset(&c, 0, sizeof(c));
	for (i = 1; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		const char *a = argv[i];
		unsigned maj, min;
		unsigned long long off;

		if (!strcmp(a, "--v8")) {
			c.v8 = true;
		} else if (!strcmp(a, "--swap")) {
			c.swap = true;
		} else if (!strcmp(a, "--split")) {
			c.split = true;
		} else if (!strcmp(a, "--notify")) {
			c.notify = true;
		} else if (!strcmp(a, "--names") && i + 1 < argc) {
			c.names = argv[++i];
		} else if (!strcmp(a, "--names-after") && i + 1 < argc) {
			c.names_after = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(a, "--device") && i + 1 < argc &&
			   sscanf(argv[i + 1], "%u:%u", &maj, &min) == 2) {
			c.set_device = true;
			c.device = WC_DEV_MAKE(maj, min);
			i++;
		} else if (!strcmp(a, "--remap") && i + 1 < argc &&
			   sscanf(argv[i + 1], "%u:%u:%llu", &maj, &min, &off) == 3) {
			c.remap = true;
			c.remap_from = WC_DEV_MAKE(maj, min);
			c.remap_off = off;
			i++;
		} else if (!strcmp(a, "--cgroup") && i + 1 < argc) {
			c.cgroup = true;
			c.cgroup_id = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--scramble") && i + 1 < argc) {
			c.scramble = true;
			c.rng = strtoull(argv[++i], NULL, 0) * 2654435761u + 1;
		} else if (!strcmp(a, "--scramble-devices") && i + 1 < argc) {
			c.scramble_devices = true;
			c.rng = strtoull(argv[++i], NULL, 0) * 2654435761u + 1;
		} else if (!strcmp(a, "--cpu") && i + 1 < argc) {
			c.set_cpu = true;
			c.cpu = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--part") && i + 1 < argc &&
			   sscanf(argv[i + 1], "%lu/%lu", &c.part, &c.parts) == 2 &&
			   c.part < c.parts) {
			i++;
		} else if (!strcmp(a, "--messages") && i + 1 < argc) {
			c.messages = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--shift") && i + 1 < argc) {
			c.shift = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--seq") && i + 1 < argc) {
			c.seq = true;
			c.seq_gap = (unsigned)strtoul(argv[++i], NULL, 0);
		} else {
			usage();
		}
	}
	if (argc - i != 2)
		usage();
	c.out = fopen(argv[i + 1], "wb");
	if (!c.out) {
		perror(argv[i + 1]);
		return 1;
	}
	r = convert(&c, argv[i]);
	if (fclose(c.out) != 0) {
		perror(argv[i + 1]);
		r = 1;
	}
	return r;
}
