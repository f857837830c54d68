/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/dump.h"

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
 * are written without asking for room, into the buffer's slack (a field
 * remembered is copied whole, up to 48 bytes past its end), and
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

/* The nanoseconds of a time (below 10^9) as %09d, every line's widest
 * number: scaled once by 2^57 / 10^8 (rounded up; exact for every value
 * below 10^9), the first digit is the top of the product and each pair
 * the top of what is left times 100, with no division at all. */
static inline char *l_nanos(char *p, uint32_t ns)
{
	const uint64_t low = (UINT64_C(1) << 57) - 1;
	uint64_t y = (uint64_t)ns * UINT64_C(1441151881);

	*p = (char)('0' + (y >> 57));
	y = (y & low) * 100;
	memcpy(p + 1, pairs + 2 * (y >> 57), 2);
	y = (y & low) * 100;
	memcpy(p + 3, pairs + 2 * (y >> 57), 2);
	y = (y & low) * 100;
	memcpy(p + 5, pairs + 2 * (y >> 57), 2);
	y = (y & low) * 100;
	memcpy(p + 7, pairs + 2 * (y >> 57), 2);
	return p + 9;
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
 * What a dumper remembers of the lines before, so that the fields a
 * trace repeats are copied rather than formatted again.  Each memo holds
 * a field's text with the values it was made from, and is used only
 * when the values are the same (or, for a CPU's sequence, one more): a
 * line is the same whatever the memos held.  A CPU's events come with
 * its sequence numbers in order, from one device mostly; a second's
 * events share its whole seconds; a request's Q, G, I, D and C carry
 * its sector and size, and a process its pid, on many lines.
 */

/* A CPU's last line up to its sequence: "%3d,%-3d %2d %8d " at most
 * 4+1+7+1+11+1+11+1 = 37 bytes. */
struct memo_head {
	uint32_t device, cpu;
	uint32_t seq;           /* the sequence in text; from 99999999 up
				 * never counted on */
	uint32_t len;
	char text[48];
};

/* "sector + sectors": at most 20 + 3 + 10 bytes. */
struct memo_range {
	uint64_t sector;
	uint32_t sectors, len;
	char text[40];
};

/* A pid as "%5d ": at most 11 bytes. */
struct memo_pid {
	uint32_t pid, len;
	char text[16];
};

/* An action's letters and RWBS, "%2s %3s " (at most 11 bytes; 24 for
 * the spaces written ahead), for the action's bits and what else the
 * letters depend on (more: the event moves bytes, it is of version 8);
 * act: the first letter, 0 when blkparse prints no line. */
struct memo_kind {
	uint64_t action;
	uint32_t more;
	char act;
	uint8_t len;
	char text[24];
};

/* The memos of a dumper: heads a CPU number modulo MEMO_HEADS, ranges
 * a request's sector modulo MEMO_RANGES (a hash of it: they step by
 * a request's size), pids a pid modulo MEMO_PIDS, kinds the action's
 * bits (a hash) modulo MEMO_KINDS. */
#define MEMO_HEADS 64u
#define MEMO_RANGES 256u
#define MEMO_PIDS 64u
#define MEMO_KINDS 256u

/* The hash of memo keys that step by more than one. */
#define MEMO_HASH(k, mask) ((uint32_t)(((k) * UINT64_C(0x9e3779b97f4a7c15)) >> 40) & (mask))

struct dump_memo {
	struct memo_head heads[MEMO_HEADS];
	struct memo_range ranges[MEMO_RANGES];
	struct memo_pid pids[MEMO_PIDS];
	struct memo_kind kinds[MEMO_KINDS];
};

/*
 * Where lines go: a buffer of size bytes, n of them held, written to fp
 * when the next line might not fit (wc_dump_add()) or after each line
 * (wc_dump_event(), whose buffer is one line).  A line is built in place
 * at buf + n, so the buffer keeps room for a whole one and its slack.
 * The memos: the second the last time was in (its start sec_from, its
 * text "%5d." in sec_text), and heads, ranges, pids, kinds of mask + 1
 * slots each (one each for wc_dump_event(), many for a dumper).
 */
struct wc_dump {
	FILE *fp;
	char *buf;
	size_t size, n;
	uint64_t sec_from;
	uint32_t sec_len;
	char sec_text[16];
	uint32_t head_mask, range_mask, pid_mask, kind_mask;
	struct memo_head *heads;
	struct memo_range *ranges;
	struct memo_pid *pids;
	struct memo_kind *kinds;
};

/* Device and CPU: "%3d,%-3d %2d ". */
static char *l_devcpu(char *p, uint32_t device, uint32_t cpu)
{
	p = l_unum(p, WC_DEV_MAJOR(device), 3);
	p = l_chr(p, ',');
	p = l_unum(p, WC_DEV_MINOR(device), -3);
	p = l_chr(p, ' ');
	p = l_num(p, (int)cpu, 2);
	return l_chr(p, ' ');
}

/* The head of device, CPU and sequence into h. */
static void head_make(struct memo_head *h, uint32_t device, uint32_t cpu,
		      uint32_t seq)
{
	char *q = l_devcpu(h->text, device, cpu);

	q = l_num(q, (int)seq, 8);
	q = l_chr(q, ' ');
	h->device = device;
	h->cpu = cpu;
	h->seq = seq;
	h->len = (uint32_t)(q - h->text);
}

/* Device, CPU and sequence: "%3d,%-3d %2d %8d ", the CPU's last head
 * as it was when the sequence is the same (a trace recorded through
 * tracefs has none: all 0), counted on by one when it is one more. */
static inline char *l_devseq(struct wc_dump *d, char *p, uint32_t device,
			     uint32_t cpu, uint32_t seq)
{
	struct memo_head *h = &d->heads[cpu & d->head_mask];

	if (h->device == device && h->cpu == cpu && seq == h->seq + 1 &&
	    h->seq < 99999999u) {
		/* Counted on only below 99999999: never a '-' sign nor 9
		 * digits, and the carry stops inside the field. */
		char *c = h->text + h->len - 2;

		while (*c == '9')
			*c-- = '0';
		*c = *c == ' ' ? '1' : (char)(*c + 1);
		h->seq = seq;
	} else if (h->device != device || h->cpu != cpu || seq != h->seq) {
		head_make(h, device, cpu, seq);
	}
	memcpy(p, h->text, sizeof(h->text));
	return p + h->len;
}

/* The time since genesis, "%5d.%09d ", its second's text remembered. */
static inline char *l_time(struct wc_dump *d, char *p, uint64_t t)
{
	uint64_t ns = t - d->sec_from;

	/* Both tests: the last second a time can reach is cut short. */
	if (t < d->sec_from || ns >= NSEC_PER_SEC) {
		uint64_t s = t / NSEC_PER_SEC;
		char *q = l_num(d->sec_text, (int)s, 5);

		d->sec_from = s * NSEC_PER_SEC;
		ns = t - d->sec_from;
		d->sec_len = (uint32_t)(l_chr(q, '.') - d->sec_text);
	}
	memcpy(p, d->sec_text, sizeof(d->sec_text));
	p = l_nanos(p + d->sec_len, (uint32_t)ns);
	return l_chr(p, ' ');
}

/* The pid, "%5d ". */
static inline char *l_pid(struct wc_dump *d, char *p, uint32_t pid)
{
	struct memo_pid *m = &d->pids[pid & d->pid_mask];

	if (m->pid != pid) {
		m->pid = pid;
		m->len = (uint32_t)(l_chr(l_unum(m->text, pid, 5), ' ') -
				    m->text);
	}
	memcpy(p, m->text, sizeof(m->text));
	return p + m->len;
}

/* "sector + sectors" */
static char *l_range(struct wc_dump *d, char *p, uint64_t sector,
		     unsigned sectors)
{
	struct memo_range *m = &d->ranges[MEMO_HASH(sector, d->range_mask)];

	if (m->sector != sector || m->sectors != sectors) {
		char *q = l_unum(m->text, sector, 0);

		q = l_lit(q, " + ");
		m->len = (uint32_t)(l_unum(q, sectors, 0) - m->text);
		m->sector = sector;
		m->sectors = sectors;
	}
	memcpy(p, m->text, sizeof(m->text));
	return p + m->len;
}

/* Every memo true from the start: head i holds device 0, CPU i and
 * sequence 0, pid i and the range "0 + 0" their texts, the kinds action
 * 0's (no line), the second is the first.  Slot 0's texts are written
 * out here: wc_dump_event() has only those, made for each line. */
static void memo_init(struct wc_dump *d)
{
	static const char head0[] = "  0,0    0        0 ";
	uint32_t i;

	d->heads[0].device = d->heads[0].cpu = d->heads[0].seq = 0;
	d->heads[0].len = sizeof(head0) - 1;
	memcpy(d->heads[0].text, head0, sizeof(head0) - 1);
	for (i = 1; i <= d->head_mask; i++)
		head_make(&d->heads[i], 0, i, 0);
	d->pids[0].pid = 0;
	d->pids[0].len = 6;
	memcpy(d->pids[0].text, "    0 ", 6);
	for (i = 1; i <= d->pid_mask; i++) {
		d->pids[i].pid = i;
		d->pids[i].len = (uint32_t)(l_chr(l_unum(d->pids[i].text, i, 5),
						  ' ') - d->pids[i].text);
	}
	for (i = 0; i <= d->range_mask; i++) {
		d->ranges[i].sector = 0;
		d->ranges[i].sectors = 0;
		d->ranges[i].len = 5;
		memcpy(d->ranges[i].text, "0 + 0", 5);
	}
	for (i = 0; i <= d->kind_mask; i++) {
		d->kinds[i].action = 0;
		d->kinds[i].more = 0;
		d->kinds[i].act = 0;
	}
	d->sec_from = 0;
	d->sec_len = 6;
	memcpy(d->sec_text, "    0.", 6);
}

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

/* An action's letters and RWBS: "%2s %3s " (rwbs_len letters, 8 bytes
 * readable at rwbs). */
static char *l_actrwbs(char *p, const char *act, const char *rwbs,
		       size_t rwbs_len)
{
	p = l_chr(p, act[1] ? act[0] : ' ');
	p = l_chr(p, act[1] ? act[1] : act[0]);
	p = l_chr(p, ' ');
	p = l_short(p, rwbs, rwbs_len, 3);
	return l_chr(p, ' ');
}

/* The letters blkparse prints for ev's action, NULL for no line. */
static const char *act_of(const struct wc_event *ev)
{
	bool pc = wc_event_has(ev, WC_TC_PC);

	switch (wc_event_what(ev)) {
	case WC_TA_QUEUE: return "Q";
	case WC_TA_GETRQ: return "G";
	case WC_TA_SLEEPRQ: return "S";
	case WC_TA_REQUEUE: return "R";
	case WC_TA_ISSUE: return "D";
	case WC_TA_COMPLETE: return "C";
	case WC_TA_INSERT: return "I";
	case WC_TA_BACKMERGE: return pc ? NULL : "M";
	case WC_TA_FRONTMERGE: return pc ? NULL : "F";
	case WC_TA_PLUG: return pc ? NULL : "P";
	case WC_TA_UNPLUG_IO: return pc ? NULL : "U";
	case WC_TA_UNPLUG_TIMER: return pc ? NULL : "UT";
	case WC_TA_SPLIT: return pc ? NULL : "X";
	case WC_TA_BOUNCE: return pc ? NULL : "B";
	case WC_TA_REMAP: return pc ? NULL : "A";
	default: return NULL;
	}
}

/* ev's action letters and RWBS, remembered: a trace has few kinds of
 * events, each on many lines. */
static inline const struct memo_kind *l_kind(struct wc_dump *d,
					     const struct wc_event *ev)
{
	uint32_t more = (ev->bytes != 0) | (uint32_t)(ev->version >= 8) << 1;
	struct memo_kind *m = &d->kinds[MEMO_HASH(ev->action, d->kind_mask)];

	if (m->action != ev->action || m->more != more) {
		const char *act = act_of(ev);
		char rwbs[8];

		m->action = ev->action;
		m->more = more;
		m->act = act ? act[0] : 0;
		if (act)
			m->len = (uint8_t)(l_actrwbs(m->text, act, rwbs,
						     rwbs_of(ev, rwbs)) -
					   m->text);
	}
	return m;
}

/* The common head: device, CPU, sequence, time, pid; then the kind's
 * letters. */
static inline char *l_head(struct wc_dump *d, char *p, uint32_t device,
			   const struct wc_event *ev, uint64_t t,
			   const struct memo_kind *k)
{
	p = l_devseq(d, p, device, ev->cpu, ev->sequence);
	p = l_time(d, p, t);
	p = l_pid(d, p, ev->pid);
	memcpy(p, k->text, 16);
	return p + k->len;
}

/* The line of ev into d (written out when d holds one line only), as
 * wc_dump_event() returns. */
static int dump_line(struct wc_dump *d, const struct wc_event *ev,
		     uint64_t genesis, const char *comm, bool one)
{
	FILE *fp = d->fp;
	uint64_t t = ev->time - genesis;
	unsigned sectors = ev->bytes >> 9;
	uint32_t device = ev->device;
	bool pc = wc_event_has(ev, WC_TC_PC);
	const struct memo_kind *k;
	const char *name = comm ? comm : "(null)";
	uint32_t from = 0, to = 0;
	uint64_t from_sector = 0;
	/* Not blanked: only the bytes before p are ever read. */
	char *line, *p;

	if (d->size - d->n < DUMP_LINE_MAX + DUMP_LINE_SLACK) {
		line = p = d->buf + d->n;
		if (l_flush(d, &line, &p) < 0)
			return -1;
	}
	line = p = d->buf + d->n;
	if (ev->action == WC_ACTION_MESSAGE) {
		if (!ev->pdu_len)
			return 0;
		p = l_devcpu(p, device, ev->cpu);
		p = l_lit(p, "       0 "); /* blkparse prints "0" */
		p = l_time(d, p, t);
		p = l_pid(d, p, 0);
		p = l_actrwbs(p, "m", "N\0\0\0\0\0\0\0", 1);
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
	k = l_kind(d, ev);
	if (!k->act)
		return 0;
	if (k->act == 'A') {
		/* The line is about the device the bio went to. */
		wc_event_remap(ev, &from, &to, &from_sector);
		device = to;
	}
	p = l_head(d, p, device, ev, t, k);

	switch (k->act) {
	case 'R':
	case 'C':
		if (pc) {
			if (l_flush(d, &line, &p) < 0)
				return -1;
			if (k->act == 'C')
				put_pdu(fp, ev);
			p = l_chr(p, '[');
			p = l_num(p, ev->error, 0);
			p = l_chr(p, ']');
			break;
		}
		if (sectors)
			p = l_range(d, p, ev->sector, sectors);
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
			if (k->act != 'Q')
				put_pdu(fp, ev);
			p = l_name(line, p, name);
			break;
		}
		if (sectors) {
			p = l_range(d, p, ev->sector, sectors);
			p = l_chr(p, ' ');
		}
		p = l_name(line, p, name);
		break;
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (sectors) {
			p = l_range(d, p, ev->sector, sectors);
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
		p = l_range(d, p, ev->sector, sectors);
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
	struct memo_head head;
	struct memo_range range;
	struct memo_pid pid;
	struct memo_kind kind;
	struct wc_dump d = { .fp = fp, .buf = line, .size = sizeof(line),
			     .heads = &head, .ranges = &range, .pids = &pid,
			     .kinds = &kind };

	/* One slot each: a line alone, its fields formatted afresh. */
	memo_init(&d);
	return dump_line(&d, ev, genesis, comm, true);
}

/* Lines gathered: about a thousand of them to a write. */
#define DUMP_BUFFER (64 * 1024)

int wc_dump_open(struct wc_dump **out, FILE *fp)
{
	struct wc_dump *d = malloc(sizeof(*d) + sizeof(struct dump_memo) +
				   DUMP_BUFFER);
	struct dump_memo *m;

	*out = NULL;
	if (!d)
		return -1;
	m = (struct dump_memo *)(d + 1);
	d->fp = fp;
	d->buf = (char *)(m + 1);
	d->size = DUMP_BUFFER;
	d->n = 0;
	d->heads = m->heads;
	d->ranges = m->ranges;
	d->pids = m->pids;
	d->kinds = m->kinds;
	d->kind_mask = MEMO_KINDS - 1;
	d->head_mask = MEMO_HEADS - 1;
	d->range_mask = MEMO_RANGES - 1;
	d->pid_mask = MEMO_PIDS - 1;
	memo_init(d);
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
