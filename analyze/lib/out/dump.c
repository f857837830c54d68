/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/dump.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "input/decode.h"

#define NSEC_PER_SEC 1000000000ull

/* Zone operations (v8 only), in the order blkparse tests them. */
static const struct {
	uint64_t bit;
	const char *letters;
} zone_ops[] = {
	{ WC_TC_ZONE_APPEND, "ZA" },
	{ WC_TC_ZONE_RESET, "ZR" },
	{ WC_TC_ZONE_RESET_ALL, "ZRA" },
	{ WC_TC_ZONE_FINISH, "ZF" },
	{ WC_TC_ZONE_OPEN, "ZO" },
	{ WC_TC_ZONE_CLOSE, "ZC" },
};

/* The zone letters of a v8 event, or NULL. */
static const char *zone_letters(const struct wc_event *ev)
{
	size_t k;

	if (ev->version < 8)
		return NULL;
	for (k = 0; k < sizeof(zone_ops) / sizeof(zone_ops[0]); k++)
		if (ev->action & zone_ops[k].bit)
			return zone_ops[k].letters;
	return NULL;
}

char *wc_dump_rwbs(const struct wc_event *ev, char *buf)
{
	uint64_t a = ev->action;
	const char *zone;
	int i = 0;

	if (a & WC_TC(WC_TC_FLUSH))
		buf[i++] = 'F';
	if (a & WC_TC(WC_TC_DISCARD)) {
		buf[i++] = 'D';
	} else if ((zone = zone_letters(ev)) != NULL) {
		while (*zone)
			buf[i++] = *zone++;
	} else if (a & WC_TC(WC_TC_WRITE)) {
		buf[i++] = 'W';
	} else if (ev->bytes) {
		buf[i++] = 'R';
	} else {
		buf[i++] = 'N';
	}
	/* Room is left for at most 4 of these after 3 letters: 8 bytes. */
	if ((a & WC_TC(WC_TC_FUA)) && i < 7)
		buf[i++] = 'F';
	if ((a & WC_TC(WC_TC_AHEAD)) && i < 7)
		buf[i++] = 'A';
	if ((a & WC_TC(WC_TC_SYNC)) && i < 7)
		buf[i++] = 'S';
	if ((a & WC_TC(WC_TC_META)) && i < 7)
		buf[i++] = 'M';
	buf[i] = '\0';
	return buf;
}

/* The payload in hex, as blkparse shows packet commands: stops at the
 * first zero byte after which everything is zero, and says so with "..". */
static void put_pdu(FILE *fp, const struct wc_event *ev)
{
	unsigned i, j;

	if (!ev->pdu_len)
		return;
	fputc('(', fp);
	for (i = 0; i < ev->pdu_len; i++) {
		bool rest_zero = true;

		if (i)
			fputc(' ', fp);
		fprintf(fp, "%02x", ev->pdu[i]);
		if (ev->pdu[i])
			continue;
		for (j = i; j < ev->pdu_len; j++)
			if (ev->pdu[j]) {
				rest_zero = false;
				break;
			}
		if (rest_zero) {
			fputs(" ..", fp);
			break;
		}
	}
	fputs(") ", fp);
}

static unsigned pdu_int(const struct wc_event *ev)
{
	uint64_t v = 0;

	wc_event_pdu_be64(ev, &v);
	return (unsigned)v;
}

/*
 * Lines are built in a buffer and written with one fwrite: printf's
 * format parsing costs more than the rest of the reader together.
 */
struct line {
	char buf[256];
	size_t n;
};

static inline void l_pad(struct line *l, size_t len, int width)
{
	size_t k;

	if ((int)len >= width)
		return;
	k = (size_t)width - len;
	if (k > sizeof(l->buf) - l->n)
		k = sizeof(l->buf) - l->n;
	memset(l->buf + l->n, ' ', k);
	l->n += k;
}

/* len bytes at s padded to width: right-aligned, or left when width < 0. */
static inline void l_mem(struct line *l, const char *s, size_t len, int width)
{
	if (width > 0)
		l_pad(l, len, width);
	if (len > sizeof(l->buf) - l->n)
		len = sizeof(l->buf) - l->n;
	memcpy(l->buf + l->n, s, len);
	l->n += len;
	if (width < 0)
		l_pad(l, len, -width);
}

static inline void l_str(struct line *l, const char *s, int width)
{
	l_mem(l, s, strlen(s), width);
}

/* One character, for the separators: the most common piece of a line. */
static inline void l_chr(struct line *l, char c)
{
	if (l->n < sizeof(l->buf))
		l->buf[l->n++] = c;
}

/* The digits of u, ending at tmp[end]: two at a time from a table, as
 * a dump is mostly numbers.  Returns the index of the first digit. */
static inline int digits(char *tmp, int end, unsigned long long u)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	int i = end;

	while (u >= 100) {
		unsigned r = (unsigned)(u % 100);

		u /= 100;
		tmp[--i] = pairs[2 * r + 1];
		tmp[--i] = pairs[2 * r];
	}
	if (u >= 10) {
		tmp[--i] = pairs[2 * u + 1];
		tmp[--i] = pairs[2 * u];
	} else {
		tmp[--i] = (char)('0' + u);
	}
	return i;
}

/* A decimal number as printf's %Nd, %-Nd (width < 0) or %0Nd (zero)
 * would print it. */
static inline void l_num(struct line *l, long long v, int width, bool zero)
{
	char tmp[24];
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v :
				       (unsigned long long)v;
	int i = digits(tmp, (int)sizeof(tmp), u);

	if (zero)
		while ((int)sizeof(tmp) - i < width)
			tmp[--i] = '0';
	if (v < 0)
		tmp[--i] = '-';
	l_mem(l, tmp + i, sizeof(tmp) - (size_t)i, width);
}

/* The same for unsigned numbers, without zero padding. */
static inline void l_unum(struct line *l, unsigned long long u, int width)
{
	char tmp[24];
	int i = digits(tmp, (int)sizeof(tmp), u);

	l_mem(l, tmp + i, sizeof(tmp) - (size_t)i, width);
}

/* "sector + sectors" */
static void l_range(struct line *l, const struct wc_event *ev, unsigned sectors)
{
	l_unum(l, ev->sector, 0);
	l_str(l, " + ", 0);
	l_unum(l, sectors, 0);
}

static void l_name(struct line *l, const char *name)
{
	l_chr(l, '[');
	l_str(l, name, 0);
	l_chr(l, ']');
}

static int l_write(FILE *fp, struct line *l)
{
	/* The caller's stream, never shared between threads here: the
	 * locking fwrite() took a tenth of a dump's time. */
	if (fwrite_unlocked(l->buf, 1, l->n, fp) != l->n)
		return -1;
	l->n = 0;
	return 0;
}

/* The common head: device, CPU, sequence, time, pid, action, RWBS. */
static void l_head(struct line *l, uint32_t device, const struct wc_event *ev,
		   uint64_t t, long long seq, uint32_t pid, const char *act,
		   const char *rwbs)
{
	l_unum(l, WC_DEV_MAJOR(device), 3);
	l_chr(l, ',');
	l_unum(l, WC_DEV_MINOR(device), -3);
	l_chr(l, ' ');
	l_num(l, (int)ev->cpu, 2, false);
	l_chr(l, ' ');
	if (seq == LLONG_MIN)
		l_str(l, "0", 8);     /* messages: blkparse prints the string "0" */
	else
		l_num(l, seq, 8, false);
	l_chr(l, ' ');
	l_num(l, (int)(t / NSEC_PER_SEC), 5, false);
	l_chr(l, '.');
	l_num(l, (long long)(t % NSEC_PER_SEC), 9, true);
	l_chr(l, ' ');
	l_unum(l, pid, 5);
	l_chr(l, ' ');
	l_str(l, act, 2);
	l_chr(l, ' ');
	l_str(l, rwbs, 3);
	l_chr(l, ' ');
}

int wc_dump_event(FILE *fp, const struct wc_event *ev, uint64_t genesis,
		  const char *comm)
{
	uint64_t t = ev->time - genesis;
	unsigned what = (unsigned)(ev->action & 0xffffu);
	unsigned sectors = ev->bytes >> 9;
	uint32_t device = ev->device;
	bool pc = wc_event_has(ev, WC_TC_PC);
	const char *act;
	const char *name = comm ? comm : "(null)";
	uint32_t from = 0, to = 0;
	uint64_t from_sector = 0;
	struct line l = { .n = 0 };
	char rwbs[8];

	if (ev->action == WC_ACTION_MESSAGE) {
		if (!ev->pdu_len)
			return 0;
		l_head(&l, device, ev, t, LLONG_MIN, 0, "m", "N");
		if (l_write(fp, &l) < 0)
			return -1;
		/* Up to the first NUL inside the message, as in blkparse. */
		fprintf(fp, "%.*s\n",
			(int)strnlen((const char *)ev->pdu, ev->pdu_len),
			(const char *)ev->pdu);
		return ferror(fp) ? -1 : 1;
	}
	/* blkparse's default action mask covers the category bits only. */
	if (!((uint32_t)ev->action & 0xffff0000u))
		return 0;

	switch (what) {
	case WC_TA_QUEUE: act = "Q"; break;
	case WC_TA_GETRQ: act = "G"; break;
	case WC_TA_SLEEPRQ: act = "S"; break;
	case WC_TA_REQUEUE: act = "R"; break;
	case WC_TA_ISSUE: act = "D"; break;
	case WC_TA_COMPLETE: act = "C"; break;
	case WC_TA_INSERT: act = "I"; break;
	case WC_TA_BACKMERGE: act = pc ? NULL : "M"; break;
	case WC_TA_FRONTMERGE: act = pc ? NULL : "F"; break;
	case WC_TA_PLUG: act = pc ? NULL : "P"; break;
	case WC_TA_UNPLUG_IO: act = pc ? NULL : "U"; break;
	case WC_TA_UNPLUG_TIMER: act = pc ? NULL : "UT"; break;
	case WC_TA_SPLIT: act = pc ? NULL : "X"; break;
	case WC_TA_BOUNCE: act = pc ? NULL : "B"; break;
	case WC_TA_REMAP: act = pc ? NULL : "A"; break;
	default: act = NULL; break;
	}
	if (!act)
		return 0;

	wc_dump_rwbs(ev, rwbs);
	if (act[0] == 'A') {
		/* The line is about the device the bio went to. */
		wc_event_remap(ev, &from, &to, &from_sector);
		device = to;
	}
	l_head(&l, device, ev, t, (int)ev->sequence, ev->pid, act, rwbs);

	switch (act[0]) {
	case 'R':
	case 'C':
		if (pc) {
			if (l_write(fp, &l) < 0)
				return -1;
			if (act[0] == 'C')
				put_pdu(fp, ev);
			l_chr(&l, '[');
			l_num(&l, ev->error, 0, false);
			l_chr(&l, ']');
			break;
		}
		if (sectors)
			l_range(&l, ev, sectors);
		else
			l_unum(&l, ev->sector, 0);
		l_str(&l, " [", 0);
		l_num(&l, ev->error, 0, false);
		l_chr(&l, ']');
		break;
	case 'D':
	case 'I':
	case 'Q':
	case 'B':
		if (pc) {
			l_unum(&l, ev->bytes, 0);
			l_chr(&l, ' ');
			if (l_write(fp, &l) < 0)
				return -1;
			if (act[0] != 'Q')
				put_pdu(fp, ev);
			l_name(&l, name);
			break;
		}
		if (sectors) {
			l_range(&l, ev, sectors);
			l_chr(&l, ' ');
		}
		l_name(&l, name);
		break;
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (sectors) {
			l_range(&l, ev, sectors);
			l_chr(&l, ' ');
		}
		l_name(&l, name);
		break;
	case 'P':
		l_name(&l, name);
		break;
	case 'U':
		l_name(&l, name);
		l_chr(&l, ' ');
		l_unum(&l, pdu_int(ev), 0);
		break;
	case 'A':
		l_range(&l, ev, sectors);
		l_str(&l, " <- (", 0);
		l_unum(&l, WC_DEV_MAJOR(from), 0);
		l_chr(&l, ',');
		l_unum(&l, WC_DEV_MINOR(from), 0);
		l_str(&l, ") ", 0);
		l_unum(&l, from_sector, 0);
		break;
	case 'X':
		l_unum(&l, ev->sector, 0);
		l_str(&l, " / ", 0);
		l_unum(&l, pdu_int(ev), 0);
		l_chr(&l, ' ');
		l_name(&l, name);
		break;
	}
	l_chr(&l, '\n');
	if (l_write(fp, &l) < 0)
		return -1;
	return ferror_unlocked(fp) ? -1 : 1;
}
