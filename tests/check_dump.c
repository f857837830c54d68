/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_dump.c - unit tests of analyze/lib/out/dump.c: the exact text of each
 * kind of line, the RWBS letters, and the events blkparse prints nothing
 * for.  The expected lines follow blkparse 1.2's default format; the shell
 * tests compare whole traces with blkparse itself.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_common.h"
#include "input/decode.h"
#include "out/dump.h"

static struct wc_event mkev(unsigned what, uint64_t cats, uint64_t time,
			    uint64_t sector, uint32_t bytes)
{
	struct wc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.version = 7;
	ev.action = what | cats;
	ev.time = time;
	ev.sector = sector;
	ev.bytes = bytes;
	ev.device = WC_DEV_MAKE(8, 0);
	ev.cpu = 1;
	ev.sequence = 5;
	ev.pid = 4242;
	return ev;
}

/* The dump of ev as a string (static buffer), and its return value. */
static const char *dump(const struct wc_event *ev, uint64_t genesis,
			const char *comm, int *ret)
{
	static char out[1024];
	FILE *fp = fmemopen(out, sizeof(out), "w");

	ck_assert_ptr_nonnull(fp);
	*ret = wc_dump_event(fp, ev, genesis, comm);
	fclose(fp);
	return out;
}

#define W WC_TC(WC_TC_WRITE)
#define SYNC WC_TC(WC_TC_SYNC)
#define QUEUE WC_TC(WC_TC_QUEUE)

START_TEST(test_queue_line)
{
	struct wc_event ev = mkev(WC_TA_QUEUE, W | SYNC | QUEUE,
				  1000000100, 1234, 4096);
	int r;

	ck_assert_str_eq(dump(&ev, 1000000000, "jbd2/loop1-8", &r),
			 "  8,0    1        5     0.000000100  4242  Q  WS 1234 + 8 [jbd2/loop1-8]\n");
	ck_assert_int_eq(r, 1);
	/* Seconds and the (null) blkparse prints without a notify record. */
	ev.time = 3 * 1000000000ull + 7;
	ck_assert_str_eq(dump(&ev, 0, NULL, &r),
			 "  8,0    1        5     3.000000007  4242  Q  WS 1234 + 8 [(null)]\n");
}
END_TEST

START_TEST(test_complete_and_flush)
{
	struct wc_event ev = mkev(WC_TA_COMPLETE, W | WC_TC(WC_TC_FLUSH) |
				  WC_TC(WC_TC_COMPLETE), 10, 0, 0);
	int r;

	/* An empty flush: "FN", and no "+ sectors" without sectors. */
	ev.action &= ~W;
	ck_assert_str_eq(dump(&ev, 0, "x", &r),
			 "  8,0    1        5     0.000000010  4242  C  FN 0 [0]\n");
	ev = mkev(WC_TA_COMPLETE, W | WC_TC(WC_TC_COMPLETE), 10, 77, 512);
	ev.error = 5;
	ck_assert_str_eq(dump(&ev, 0, "x", &r),
			 "  8,0    1        5     0.000000010  4242  C   W 77 + 1 [5]\n");
	ev = mkev(WC_TA_ISSUE, WC_TC(WC_TC_FLUSH) | WC_TC(WC_TC_ISSUE), 10, 0, 0);
	ck_assert_str_eq(dump(&ev, 0, "kworker", &r),
			 "  8,0    1        5     0.000000010  4242  D  FN [kworker]\n");
}
END_TEST

START_TEST(test_rwbs)
{
	struct wc_event ev = mkev(WC_TA_QUEUE, 0, 0, 0, 4096);
	char b[8];

	ev.action = WC_TA_QUEUE | WC_TC(WC_TC_FLUSH) | W | WC_TC(WC_TC_FUA) |
		    SYNC | WC_TC(WC_TC_META);
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "FWFSM");
	ev.action = WC_TA_QUEUE | WC_TC(WC_TC_AHEAD);
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "RA");
	ev.action = WC_TA_QUEUE | WC_TC(WC_TC_DISCARD) | W;
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "D");
	ev.bytes = 0;
	ev.action = WC_TA_QUEUE | WC_TC(WC_TC_READ);
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "N");
	/* v8 zone operations sit above bit 32; v7 has no such bits. */
	ev.version = 8;
	ev.action = WC_TA_COMPLETE | W | WC_TC_ZONE_APPEND;
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "ZA");
	ev.action = WC_TA_COMPLETE | WC_TC_ZONE_RESET_ALL | SYNC;
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "ZRAS");
	/* The positions as merged (blktrace_format.h): BLK_TC_ZONE_APPEND
	 * 1 << 16 and BLK_TC_ZONE_CLOSE 1 << 21, shifted by 16; not 48..53
	 * as an earlier version of the patch had them. */
	ev.action = WC_TA_COMPLETE | W | (UINT64_C(1) << (16 + 16));
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "ZA");
	ev.action = WC_TA_COMPLETE | W | (UINT64_C(1) << (21 + 16));
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "ZC");
	ev.action = WC_TA_COMPLETE | W | (UINT64_C(1) << 48);
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "W");
	ev.version = 7;
	ev.action = WC_TA_COMPLETE | W | WC_TC_ZONE_APPEND;
	ck_assert_str_eq(wc_dump_rwbs(&ev, b), "W");
}
END_TEST

START_TEST(test_remap_unplug_split)
{
	unsigned char pdu[16] = {
		0x00, 0x80, 0x00, 0x01,   /* from 8,1 */
		0x00, 0x70, 0x00, 0x02,   /* to 7,2 */
		0, 0, 0, 0, 0, 0, 0x03, 0xe8,   /* sector 1000 */
	};
	unsigned char be3[8] = { 0, 0, 0, 0, 0, 0, 0, 3 };
	unsigned char be108[8] = { 0, 0, 0, 0, 0, 0, 0, 108 };
	struct wc_event ev = mkev(WC_TA_REMAP, W | QUEUE, 0, 3048, 4096);
	int r;

	ev.pdu = pdu;
	ev.pdu_len = 16;
	/* The line names the device the bio went to. */
	ck_assert_str_eq(dump(&ev, 0, "cp", &r),
			 "  7,2    1        5     0.000000000  4242  A   W 3048 + 8 <- (8,1) 1000\n");
	ev = mkev(WC_TA_UNPLUG_IO, QUEUE, 0, 0, 0);
	ev.pdu = be3;
	ev.pdu_len = 8;
	ck_assert_str_eq(dump(&ev, 0, NULL, &r),
			 "  8,0    1        5     0.000000000  4242  U   N [(null)] 3\n");
	ev.action = WC_TA_UNPLUG_TIMER | QUEUE;
	ck_assert_str_eq(dump(&ev, 0, NULL, &r),
			 "  8,0    1        5     0.000000000  4242 UT   N [(null)] 3\n");
	ev = mkev(WC_TA_SPLIT, W, 0, 100, 8192);
	ev.pdu = be108;
	ev.pdu_len = 8;
	ck_assert_str_eq(dump(&ev, 0, "dd", &r),
			 "  8,0    1        5     0.000000000  4242  X   W 100 / 108 [dd]\n");
}
END_TEST

START_TEST(test_message_and_pc)
{
	static const char msg[] = "hello there";
	unsigned char cdb[6] = { 0x2a, 0x00, 0x01, 0x00, 0x00, 0x00 };
	struct wc_event ev = mkev(WC_TN_MESSAGE, WC_TC(WC_TC_NOTIFY),
				  2000000000, 0, 0);
	int r;

	ev.pdu = (const unsigned char *)msg;
	ev.pdu_len = sizeof(msg) - 1;
	ev.cpu = 3;
	ck_assert_str_eq(dump(&ev, 1000000000, NULL, &r),
			 "  8,0    3        0     1.000000000     0  m   N hello there\n");
	ev.pdu_len = 0;
	dump(&ev, 0, NULL, &r);
	ck_assert_int_eq(r, 0);

	ev = mkev(WC_TA_ISSUE, WC_TC(WC_TC_PC) | W | WC_TC(WC_TC_ISSUE), 0, 0, 512);
	ev.pdu = cdb;
	ev.pdu_len = 6;
	ck_assert_str_eq(dump(&ev, 0, "sg", &r),
			 "  8,0    1        5     0.000000000  4242  D   W 512 (2a 00 01 00 ..) [sg]\n");
	ev.action = WC_TA_COMPLETE | WC_TC(WC_TC_PC) | W;
	ck_assert_str_eq(dump(&ev, 0, "sg", &r),
			 "  8,0    1        5     0.000000000  4242  C   W (2a 00 01 00 ..) [0]\n");
}
END_TEST

START_TEST(test_silent_events)
{
	struct wc_event ev;
	int r;

	/* blkparse prints nothing for these. */
	ev = mkev(WC_TA_DRV_DATA, WC_TC(WC_TC_DRV_DATA), 0, 0, 0);
	dump(&ev, 0, NULL, &r);
	ck_assert_int_eq(r, 0);
	ev = mkev(WC_TA_ABORT, QUEUE, 0, 0, 0);
	dump(&ev, 0, NULL, &r);
	ck_assert_int_eq(r, 0);
	ev = mkev(WC_TA_QUEUE, 0, 0, 0, 4096);     /* no category bit */
	dump(&ev, 0, NULL, &r);
	ck_assert_int_eq(r, 0);
	ev = mkev(WC_TA_PLUG, WC_TC(WC_TC_PC) | QUEUE, 0, 0, 0);
	dump(&ev, 0, NULL, &r);
	ck_assert_int_eq(r, 0);
}
END_TEST

/* What blkparse's default format prints for ev, by printf, cut to the
 * formatter's 256 bytes: the reference the fast formatter must equal. */
static void ref_line(char *out, size_t size, const struct wc_event *ev,
		     uint64_t genesis, const char *comm)
{
	static const char *const acts[] = {
		[WC_TA_QUEUE] = "Q", [WC_TA_GETRQ] = "G",
		[WC_TA_SLEEPRQ] = "S", [WC_TA_REQUEUE] = "R",
		[WC_TA_ISSUE] = "D", [WC_TA_COMPLETE] = "C",
		[WC_TA_INSERT] = "I", [WC_TA_BACKMERGE] = "M",
		[WC_TA_FRONTMERGE] = "F", [WC_TA_PLUG] = "P",
		[WC_TA_UNPLUG_IO] = "U", [WC_TA_UNPLUG_TIMER] = "UT",
		[WC_TA_SPLIT] = "X", [WC_TA_BOUNCE] = "B", [WC_TA_REMAP] = "A",
	};
	char full[1024], rwbs[8];
	const char *act = acts[ev->action & 0xffff];
	const char *name = comm ? comm : "(null)";
	uint64_t t = ev->time - genesis, v = 0, from_sector = 0;
	unsigned sectors = ev->bytes >> 9;
	uint32_t device = ev->device, from = 0, to = 0;
	int n;

	if (act[0] == 'A') {
		ck_assert(wc_event_remap(ev, &from, &to, &from_sector));
		device = to;
	}
	if (act[0] == 'U' || act[0] == 'X')
		ck_assert(wc_event_pdu_be64(ev, &v));
	n = snprintf(full, sizeof(full), "%3u,%-3u %2d %8d %5d.%09llu %5u %2s %3s ",
		     WC_DEV_MAJOR(device), WC_DEV_MINOR(device), (int)ev->cpu,
		     (int)ev->sequence, (int)(t / 1000000000ull),
		     (unsigned long long)(t % 1000000000ull), ev->pid, act,
		     wc_dump_rwbs(ev, rwbs));
	switch (act[0]) {
	case 'R':
	case 'C':
		if (sectors)
			n += snprintf(full + n, sizeof(full) - (size_t)n,
				      "%llu + %u [%d]\n",
				      (unsigned long long)ev->sector, sectors,
				      ev->error);
		else
			n += snprintf(full + n, sizeof(full) - (size_t)n,
				      "%llu [%d]\n",
				      (unsigned long long)ev->sector, ev->error);
		break;
	case 'P':
		n += snprintf(full + n, sizeof(full) - (size_t)n, "[%s]\n", name);
		break;
	case 'U':
		n += snprintf(full + n, sizeof(full) - (size_t)n, "[%s] %u\n",
			      name, (unsigned)v);
		break;
	case 'A':
		n += snprintf(full + n, sizeof(full) - (size_t)n,
			      "%llu + %u <- (%u,%u) %llu\n",
			      (unsigned long long)ev->sector, sectors,
			      WC_DEV_MAJOR(from), WC_DEV_MINOR(from),
			      (unsigned long long)from_sector);
		break;
	case 'X':
		n += snprintf(full + n, sizeof(full) - (size_t)n,
			      "%llu / %u [%s]\n",
			      (unsigned long long)ev->sector, (unsigned)v, name);
		break;
	default:
		if (sectors)
			n += snprintf(full + n, sizeof(full) - (size_t)n,
				      "%llu + %u ",
				      (unsigned long long)ev->sector, sectors);
		n += snprintf(full + n, sizeof(full) - (size_t)n, "[%s]\n", name);
		break;
	}
	ck_assert_int_lt(n, (int)sizeof(full));
	if (n > 256)
		n = 256;
	ck_assert_uint_gt(size, (size_t)n);
	memcpy(out, full, (size_t)n);
	out[n] = '\0';
}

/* A value of a field of w bits, as a trace may hold it: zero, small, the
 * largest, a power of ten or one less (where a number gains a digit),
 * or anything. */
static uint64_t any_value(uint64_t *state, unsigned w)
{
	uint64_t x = *state, mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	switch (x % 5) {
	case 0: return 0;
	case 1: return (x >> 8) % 1000;
	case 2: return mask;
	case 3: {
		uint64_t p = 1;
		unsigned k, e = (unsigned)((x >> 8) % 20);

		for (k = 0; k < e; k++)
			p *= 10;
		return (p - ((x >> 16) & 1)) & mask;
	}
	default: return (x >> 3) & mask;
	}
}

/* Event i of a run: every action with a line in turn, every field at
 * its extremes and in between, names up to longer than a line (name:
 * 300 bytes) and NULL; pdu (16 bytes) its payload. */
static struct wc_event any_event(uint64_t *state, unsigned i,
				 unsigned char *pdu, char *name,
				 uint64_t *genesis, const char **comm)
{
	static const unsigned whats[] = {
		WC_TA_QUEUE, WC_TA_GETRQ, WC_TA_SLEEPRQ, WC_TA_REQUEUE,
		WC_TA_ISSUE, WC_TA_COMPLETE, WC_TA_INSERT, WC_TA_BACKMERGE,
		WC_TA_FRONTMERGE, WC_TA_PLUG, WC_TA_UNPLUG_IO,
		WC_TA_UNPLUG_TIMER, WC_TA_SPLIT, WC_TA_BOUNCE, WC_TA_REMAP,
	};
	struct wc_event ev = mkev(whats[i % (sizeof(whats) / sizeof(whats[0]))],
				  0, 0, 0, 0);
	size_t len = (size_t)any_value(state, 8) % 300;
	unsigned k;

	*genesis = any_value(state, 64);
	ev.action |= any_value(state, 64) & ~(UINT64_C(0xffff) |
					      WC_TC(WC_TC_PC) |
					      WC_TC(WC_TC_NOTIFY));
	ev.action |= WC_TC(WC_TC_QUEUE);
	ev.version = 7 + (i & 1);
	ev.time = any_value(state, 64);
	if (*genesis)
		ev.time = *genesis + ev.time % (UINT64_MAX - *genesis + 1);
	ev.device = (uint32_t)any_value(state, 32);
	ev.cpu = (uint32_t)any_value(state, 32);
	ev.sequence = (uint32_t)any_value(state, 32);
	ev.pid = (uint32_t)any_value(state, 32);
	ev.sector = any_value(state, 64);
	ev.bytes = (uint32_t)any_value(state, 32);
	ev.error = (uint16_t)any_value(state, 16);
	for (k = 0; k < 16; k++)
		pdu[k] = (unsigned char)any_value(state, 8);
	ev.pdu = pdu;
	ev.pdu_len = 16;
	for (k = 0; k < len; k++)
		name[k] = (char)('a' + k % 26);
	name[len] = '\0';
	*comm = i % 7 == 0 ? NULL : name;
	return ev;
}

/* The same text as printf gives, for every kind of line. */
START_TEST(test_fields_as_printf)
{
	static char name[300];
	uint64_t state = 0x9e3779b97f4a7c15ull, genesis;
	unsigned char pdu[16];
	const char *comm;
	char want[1024];
	unsigned i;
	int r;

	for (i = 0; i < 20000; i++) {
		struct wc_event ev = any_event(&state, i, pdu, name, &genesis,
					       &comm);

		ref_line(want, sizeof(want), &ev, genesis, comm);
		ck_assert_str_eq(dump(&ev, genesis, comm, &r), want);
		ck_assert_int_eq(r, 1);
	}
}
END_TEST

/* A dumper's lines, gathered, are the lines of wc_dump_event() one by
 * one, over many buffers' worth; messages and packet commands (written
 * past the buffer) and silent events among them. */
START_TEST(test_dumper_as_events)
{
	static const char msg[] = "hello\0there";
	static char name[300];
	unsigned char cdb[6] = { 0x2a, 0x00, 0x01, 0x00, 0x00, 0x00 };
	uint64_t state = 0x2545f4914f6cdd1dull, genesis;
	unsigned char pdu[16];
	char *one = NULL, *many = NULL;
	size_t one_len = 0, many_len = 0;
	FILE *fp1 = open_memstream(&one, &one_len);
	FILE *fp2 = open_memstream(&many, &many_len);
	struct wc_dump *d = NULL;
	const char *comm;
	unsigned i;

	ck_assert_ptr_nonnull(fp1);
	ck_assert_ptr_nonnull(fp2);
	ck_assert_int_eq(wc_dump_open(&d, fp2), 0);
	for (i = 0; i < 30000; i++) {
		struct wc_event ev = any_event(&state, i, pdu, name, &genesis,
					       &comm);

		if (i % 1000 == 1) {
			ev = mkev(WC_TN_MESSAGE, WC_TC(WC_TC_NOTIFY), genesis, 0, 0);
			ev.pdu = (const unsigned char *)msg;
			ev.pdu_len = sizeof(msg) - 1;
		} else if (i % 1000 == 2) {
			ev = mkev(i % 2 ? WC_TA_ISSUE : WC_TA_COMPLETE,
				  WC_TC(WC_TC_PC) | W, genesis, 0, 512);
			ev.pdu = cdb;
			ev.pdu_len = sizeof(cdb);
		} else if (i % 1000 == 3) {
			ev = mkev(WC_TA_DRV_DATA, WC_TC(WC_TC_DRV_DATA), 0, 0, 0);
		}
		ck_assert_int_eq(wc_dump_add(d, &ev, genesis, comm),
				 wc_dump_event(fp1, &ev, genesis, comm));
	}
	ck_assert_int_eq(wc_dump_flush(d), 0);
	wc_dump_free(d);
	fclose(fp1);
	fclose(fp2);
	ck_assert_uint_gt(one_len, 3 * 64 * 1024);
	ck_assert_uint_eq(many_len, one_len);
	ck_assert(memcmp(one, many, one_len) == 0);
	free(one);
	free(many);
}
END_TEST

/* Event i of a trace as a dumper meets it, for the memos that copy what
 * lines before held (out/dump.c): each CPU's sequence counting up (past
 * 9, 99, 9999999, 99999999 and into int's negatives, restarting and
 * on CPUs 64 apart, which share a slot; or all 0), two devices on a
 * CPU, time in small steps across seconds (and back, and through the
 * end of its range), ranges on many lines and more than the slots, pids
 * 64 apart, every kind of line, and the zone letters of v8 against
 * v7's. */
static struct wc_event trace_event(uint64_t *state, unsigned i,
				   unsigned char *pdu, uint32_t *seqs,
				   uint64_t *time)
{
	static const unsigned whats[] = {
		WC_TA_QUEUE, WC_TA_GETRQ, WC_TA_INSERT, WC_TA_ISSUE,
		WC_TA_COMPLETE, WC_TA_BACKMERGE, WC_TA_QUEUE, WC_TA_GETRQ,
		WC_TA_ISSUE, WC_TA_COMPLETE, WC_TA_PLUG, WC_TA_UNPLUG_IO,
		WC_TA_SPLIT, WC_TA_REMAP, WC_TA_REQUEUE, WC_TA_FRONTMERGE,
	};
	static const uint32_t starts[] = {
		0, 5, 95, 9999990, 99999990, 2147483640u, 4294967290u,
	};
	static const uint32_t cpus[] = { 0, 1, 3, 67, 131 };
	struct wc_event ev;
	uint64_t x = *state;
	unsigned c, k;

	/* Every bit of x at random (any_value() favours its extremes). */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	c = (unsigned)(x % 5);

	ev = mkev(whats[(x >> 8) % 16], W | QUEUE, 0, 0, 0);
	if ((x >> 12) % 3 == 0)
		ev.action |= SYNC | WC_TC(WC_TC_META);
	if ((x >> 14) % 7 == 0)
		ev.action |= WC_TC_ZONE_RESET;
	ev.version = (x >> 17) % 4 ? 8 : 7;
	ev.cpu = cpus[c];
	ev.device = (x >> 20) % 9 ? WC_DEV_MAKE(7, 9) : WC_DEV_MAKE(259, 1);
	/* A restart now and then at a place where the digits change. */
	if ((x >> 24) % 400 == 0 || i == 0)
		for (k = 0; k < 5; k++)
			seqs[k] = starts[(x >> 32) % 7] + k;
	/* CPU 131's all 0, as a trace recorded through tracefs has. */
	ev.sequence = c == 4 ? 0 : seqs[c]++;
	if ((x >> 36) % 500 == 0)
		*time -= 2000000000;    /* backwards: blkparse prints it so */
	*time += (x >> 40) % 50000000;
	ev.time = *time;
	ev.pid = (uint32_t)((x >> 48) % 4) * 64 + 1000;
	ev.sector = 1000000 + ((x >> 50) % 512) * 8;
	ev.bytes = (uint32_t)((x >> 60) % 2) * 4096 + 4096;
	ev.error = 0;
	for (k = 0; k < 16; k++)
		pdu[k] = (unsigned char)(k + 1);
	ev.pdu = pdu;
	ev.pdu_len = 16;
	return ev;
}

/* A dumper's memos change no line: a trace's lines, gathered, are
 * printf's, and wc_dump_event()'s one by one (which remember nothing). */
START_TEST(test_dumper_memos)
{
	static char want[4 * 1024 * 1024];
	/* Time starts 3 s before the end of its range, to wrap through
	 * the last second, which is cut short. */
	uint64_t state = 0x5851f42d4c957f2dull, time = UINT64_MAX - 3000000000u;
	unsigned char pdu[16];
	uint32_t seqs[5];
	char *one = NULL, *many = NULL;
	size_t one_len = 0, many_len = 0, want_len = 0;
	FILE *fp1 = open_memstream(&one, &one_len);
	FILE *fp2 = open_memstream(&many, &many_len);
	struct wc_dump *d = NULL;
	unsigned i;

	ck_assert_ptr_nonnull(fp1);
	ck_assert_ptr_nonnull(fp2);
	ck_assert_int_eq(wc_dump_open(&d, fp2), 0);
	for (i = 0; i < 10000; i++) {
		struct wc_event ev = trace_event(&state, i, pdu, seqs, &time);
		const char *comm = i % 5 ? "kworker/u4:2" : "cp";

		ref_line(want + want_len, sizeof(want) - want_len, &ev, 0,
			 comm);
		want_len += strlen(want + want_len);
		ck_assert_int_eq(wc_dump_add(d, &ev, 0, comm), 1);
		ck_assert_int_eq(wc_dump_event(fp1, &ev, 0, comm), 1);
	}
	ck_assert_int_eq(wc_dump_flush(d), 0);
	wc_dump_free(d);
	fclose(fp1);
	fclose(fp2);
	ck_assert_uint_eq(many_len, want_len);
	ck_assert(memcmp(many, want, want_len) == 0);
	ck_assert_uint_eq(one_len, want_len);
	ck_assert(memcmp(one, want, want_len) == 0);
	free(one);
	free(many);
}
END_TEST

static Suite *dump_suite(void)
{
	Suite *s = suite_create("dump");
	TCase *tc = tcase_create("lines");

	tcase_add_test(tc, test_queue_line);
	tcase_add_test(tc, test_complete_and_flush);
	tcase_add_test(tc, test_rwbs);
	tcase_add_test(tc, test_remap_unplug_split);
	tcase_add_test(tc, test_message_and_pc);
	tcase_add_test(tc, test_silent_events);
	tcase_add_test(tc, test_fields_as_printf);
	tcase_add_test(tc, test_dumper_as_events);
	tcase_add_test(tc, test_dumper_memos);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(dump_suite)
