/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/dump.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
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

	/* One test for the common case of no zone operation at all. */
	if (ev->version < 8 || !(ev->action & (WC_TC_ZONE_APPEND |
		WC_TC_ZONE_RESET | WC_TC_ZONE_RESET_ALL | WC_TC_ZONE_FINISH |
		WC_TC_ZONE_OPEN | WC_TC_ZONE_CLOSE)))
		return NULL;
	for (k = 0; k < sizeof(zone_ops) / sizeof(zone_ops[0]); k++)
		if (ev->action & zone_ops[k].bit)
			return zone_ops[k].letters;
	return NULL;
}

/* The RWBS letters of ev into buf (at least 8 bytes); returns how many. */
static size_t rwbs_of(const struct wc_event *ev, char *buf)
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
	return (size_t)i;
}

char *wc_dump_rwbs(const struct wc_event *ev, char *buf)
{
	rwbs_of(ev, buf);
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
 *
 * A line is at most DUMP_LINE_MAX bytes; what goes past is cut.  Every field
 * but one is bounded by its type (the device's 12-bit major and 20-bit
 * minor, the 32-bit CPU, sequence, pid and error, the 64-bit sector and
 * time), so before the process name a line holds at most 152 bytes (a
 * remap's) and after it at most 22 (an unplug's count): those fields
 * are written without asking for room, into the buffer's slack, and
 * only the name, which a trace may make any length, is cut to the
 * line.  l_write() writes the first DUMP_LINE_MAX bytes, so a line is what
 * it would be had every field been cut at the line's end.  Of a dump's
 * per-event work the tests of room, the library's calls to copy a
 * few bytes and to blank the buffer were more than the digits.
 */
#define DUMP_LINE_MAX 256
#define DUMP_LINE_SLACK 64

/* Each piece is written at p and returns where the line goes on: the
 * end of the line in a local, not behind a pointer every byte written
 * might change. */

/* k spaces, k at most 16 (the widest field of a head is 9). */
static inline char *l_spaces(char *p, int k)
{
	memset(p, ' ', 16);
	return p + k;
}

/* Text of a known length at most 8 that has 8 bytes readable at s. */
static inline char *l_short(char *p, const char *s, size_t len, int width)
{
	if ((int)len < width)
		p = l_spaces(p, width - (int)len);
	memcpy(p, s, 8);
	return p + len;
}

/* A string literal, its length known at the call. */
#define l_lit(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* One character, for the separators: the most common piece of a line. */
static inline char *l_chr(char *p, char c)
{
	*p = c;
	return p + 1;
}

static const char pairs[] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* How many decimal digits u has: a dump's numbers are mostly short. */
static inline int ndigits(unsigned long long u)
{
	int n = 1;

	for (;;) {
		if (u < 10)
			return n;
		if (u < 100)
			return n + 1;
		if (u < 1000)
			return n + 2;
		if (u < 10000)
			return n + 3;
		u /= 10000;
		n += 4;
	}
}

/* The digits of u, ending just before end: two at a time from a table,
 * as a dump is mostly numbers. */
static inline void digits(char *end, unsigned long long u)
{
	while (u >= 100) {
		unsigned r = (unsigned)(u % 100);

		u /= 100;
		end -= 2;
		memcpy(end, pairs + 2 * r, 2);
	}
	if (u >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * u, 2);
	} else {
		*--end = (char)('0' + u);
	}
}

/* A decimal number as printf's %Nd would print it (width at most 9);
 * width < 0: %-Nd. */
static inline char *l_num(char *p, long long v, int width)
{
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v :
				       (unsigned long long)v;
	int len = ndigits(u) + (v < 0);

	if (len < width)
		p = l_spaces(p, width - len);
	digits(p + len, u);
	if (v < 0)
		*p = '-';
	p += len;
	if (len < -width)
		p = l_spaces(p, -width - len);
	return p;
}

/* The same for unsigned numbers. */
static inline char *l_unum(char *p, unsigned long long u, int width)
{
	int len = ndigits(u);

	if (len < width)
		p = l_spaces(p, width - len);
	digits(p + len, u);
	p += len;
	if (len < -width)
		p = l_spaces(p, -width - len);
	return p;
}

/* The nanoseconds of a time (below 10^9) as %09d. */
static inline char *l_nanos(char *p, uint32_t ns)
{
	char *end = p + 9;
	int k;

	for (k = 0; k < 4; k++) {
		end -= 2;
		memcpy(end, pairs + 2 * (ns % 100), 2);
		ns /= 100;
	}
	*--end = (char)('0' + ns);
	return p + 9;
}

/* "sector + sectors" */
static char *l_range(char *p, const struct wc_event *ev, unsigned sectors)
{
	p = l_unum(p, ev->sector, 0);
	p = l_lit(p, " + ");
	return l_unum(p, sectors, 0);
}

/* The one field of any length: cut to the line that starts at line. */
static char *l_name(const char *line, char *p, const char *name)
{
	size_t len = strlen(name);
	size_t room;

	p = l_chr(p, '[');
	room = p - line < DUMP_LINE_MAX ? DUMP_LINE_MAX - (size_t)(p - line) : 0;
	if (len > room)
		len = room;
	memcpy(p, name, len);
	return l_chr(p + len, ']');
}

/*
 * Where lines go: a buffer of size bytes, n of them held, written to fp
 * when the next line might not fit (wc_dump_add()) or after each line
 * (wc_dump_event(), whose buffer is one line).  A line is built in place
 * at buf + n, so the buffer keeps room for a whole one and its slack.
 */
struct wc_dump {
	FILE *fp;
	char *buf;
	size_t size, n;
};

/* The lines held, and the one from line to p cut to DUMP_LINE_MAX, to
 * the stream: the buffer is then empty, and the line goes on at its
 * start (*line, *p). */
static int l_flush(struct wc_dump *d, char **line, char **p)
{
	size_t n = (size_t)(*p - *line);

	if (n > DUMP_LINE_MAX)
		n = DUMP_LINE_MAX;
	n += (size_t)(*line - d->buf);
	*line = *p = d->buf;
	d->n = 0;
	/* The caller's stream, never shared between threads here: the
	 * locking fwrite() took a tenth of a dump's time. */
	return fwrite_unlocked(d->buf, 1, n, d->fp) == n ? 0 : -1;
}

/* The common head: device, CPU, sequence, time, pid, action (one or
 * two letters), RWBS (rwbs_len letters, 8 bytes readable). */
static char *l_head(char *p, uint32_t device, const struct wc_event *ev,
		    uint64_t t, long long seq, uint32_t pid, const char *act,
		    const char *rwbs, size_t rwbs_len)
{
	p = l_unum(p, WC_DEV_MAJOR(device), 3);
	p = l_chr(p, ',');
	p = l_unum(p, WC_DEV_MINOR(device), -3);
	p = l_chr(p, ' ');
	p = l_num(p, (int)ev->cpu, 2);
	p = l_chr(p, ' ');
	if (seq == LLONG_MIN)
		p = l_lit(p, "       0"); /* messages: blkparse prints "0" */
	else
		p = l_num(p, seq, 8);
	p = l_chr(p, ' ');
	p = l_num(p, (int)(t / NSEC_PER_SEC), 5);
	p = l_chr(p, '.');
	p = l_nanos(p, (uint32_t)(t % NSEC_PER_SEC));
	p = l_chr(p, ' ');
	p = l_unum(p, pid, 5);
	p = l_chr(p, ' ');
	p = l_chr(p, act[1] ? act[0] : ' ');
	p = l_chr(p, act[1] ? act[1] : act[0]);
	p = l_chr(p, ' ');
	p = l_short(p, rwbs, rwbs_len, 3);
	return l_chr(p, ' ');
}

/* The line of ev into d (written out when d holds one line only), as
 * wc_dump_event() returns. */
static int dump_line(struct wc_dump *d, const struct wc_event *ev,
		     uint64_t genesis, const char *comm, bool one)
{
	FILE *fp = d->fp;
	uint64_t t = ev->time - genesis;
	unsigned what = (unsigned)(ev->action & 0xffffu);
	unsigned sectors = ev->bytes >> 9;
	uint32_t device = ev->device;
	bool pc = wc_event_has(ev, WC_TC_PC);
	const char *act;
	const char *name = comm ? comm : "(null)";
	uint32_t from = 0, to = 0;
	uint64_t from_sector = 0;
	/* Not blanked: only the bytes before p are ever read. */
	char *line, *p;
	char rwbs[8] = "N";
	size_t rwbs_len = 1;

	if (d->size - d->n < DUMP_LINE_MAX + DUMP_LINE_SLACK) {
		line = p = d->buf + d->n;
		if (l_flush(d, &line, &p) < 0)
			return -1;
	}
	line = p = d->buf + d->n;
	if (ev->action == WC_ACTION_MESSAGE) {
		if (!ev->pdu_len)
			return 0;
		p = l_head(p, device, ev, t, LLONG_MIN, 0, "m", rwbs, rwbs_len);
		if (l_flush(d, &line, &p) < 0)
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

	rwbs_len = rwbs_of(ev, rwbs);
	if (act[0] == 'A') {
		/* The line is about the device the bio went to. */
		wc_event_remap(ev, &from, &to, &from_sector);
		device = to;
	}
	p = l_head(p, device, ev, t, (int)ev->sequence, ev->pid, act, rwbs,
	       rwbs_len);

	switch (act[0]) {
	case 'R':
	case 'C':
		if (pc) {
			if (l_flush(d, &line, &p) < 0)
				return -1;
			if (act[0] == 'C')
				put_pdu(fp, ev);
			p = l_chr(p, '[');
			p = l_num(p, ev->error, 0);
			p = l_chr(p, ']');
			break;
		}
		if (sectors)
			p = l_range(p, ev, sectors);
		else
			p = l_unum(p, ev->sector, 0);
		p = l_lit(p, " [");
		p = l_num(p, ev->error, 0);
		p = l_chr(p, ']');
		break;
	case 'D':
	case 'I':
	case 'Q':
	case 'B':
		if (pc) {
			p = l_unum(p, ev->bytes, 0);
			p = l_chr(p, ' ');
			if (l_flush(d, &line, &p) < 0)
				return -1;
			if (act[0] != 'Q')
				put_pdu(fp, ev);
			p = l_name(line, p, name);
			break;
		}
		if (sectors) {
			p = l_range(p, ev, sectors);
			p = l_chr(p, ' ');
		}
		p = l_name(line, p, name);
		break;
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (sectors) {
			p = l_range(p, ev, sectors);
			p = l_chr(p, ' ');
		}
		p = l_name(line, p, name);
		break;
	case 'P':
		p = l_name(line, p, name);
		break;
	case 'U':
		p = l_name(line, p, name);
		p = l_chr(p, ' ');
		p = l_unum(p, pdu_int(ev), 0);
		break;
	case 'A':
		p = l_range(p, ev, sectors);
		p = l_lit(p, " <- (");
		p = l_unum(p, WC_DEV_MAJOR(from), 0);
		p = l_chr(p, ',');
		p = l_unum(p, WC_DEV_MINOR(from), 0);
		p = l_lit(p, ") ");
		p = l_unum(p, from_sector, 0);
		break;
	case 'X':
		p = l_unum(p, ev->sector, 0);
		p = l_lit(p, " / ");
		p = l_unum(p, pdu_int(ev), 0);
		p = l_chr(p, ' ');
		p = l_name(line, p, name);
		break;
	}
	p = l_chr(p, '\n');
	d->n = (size_t)(line - d->buf) +
	       ((size_t)(p - line) < DUMP_LINE_MAX ? (size_t)(p - line) :
						     DUMP_LINE_MAX);
	if (!one)
		return 1;
	if (l_flush(d, &line, &p) < 0)
		return -1;
	return ferror_unlocked(fp) ? -1 : 1;
}

int wc_dump_event(FILE *fp, const struct wc_event *ev, uint64_t genesis,
		  const char *comm)
{
	char line[DUMP_LINE_MAX + DUMP_LINE_SLACK];
	struct wc_dump d = { .fp = fp, .buf = line, .size = sizeof(line) };

	return dump_line(&d, ev, genesis, comm, true);
}

/* Lines gathered: about a thousand of them to a write. */
#define DUMP_BUFFER (64 * 1024)

int wc_dump_open(struct wc_dump **out, FILE *fp)
{
	struct wc_dump *d = malloc(sizeof(*d) + DUMP_BUFFER);

	*out = NULL;
	if (!d)
		return -1;
	d->fp = fp;
	d->buf = (char *)(d + 1);
	d->size = DUMP_BUFFER;
	d->n = 0;
	*out = d;
	return 0;
}

int wc_dump_add(struct wc_dump *d, const struct wc_event *ev,
		uint64_t genesis, const char *comm)
{
	return dump_line(d, ev, genesis, comm, false);
}

int wc_dump_flush(struct wc_dump *d)
{
	char *line = d->buf + d->n, *p = line;

	if (l_flush(d, &line, &p) < 0)
		return -1;
	return ferror_unlocked(d->fp) ? -1 : 0;
}

void wc_dump_free(struct wc_dump *d)
{
	free(d);
}
