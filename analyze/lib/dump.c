#include "dump.h"

#include <stdbool.h>
#include <string.h>

#include "decode.h"

#define NSEC_PER_SEC 1000000000ull

char *wc_dump_rwbs(const struct wc_event *ev, char *buf)
{
	uint64_t a = ev->action;
	int i = 0;

	if (a & WC_TC(WC_TC_FLUSH))
		buf[i++] = 'F';
	if (a & WC_TC(WC_TC_DISCARD)) {
		buf[i++] = 'D';
	} else if (ev->version >= 8 && (a & WC_TC_ZONE_APPEND)) {
		buf[i++] = 'Z';
		buf[i++] = 'A';
	} else if (ev->version >= 8 && (a & WC_TC_ZONE_RESET)) {
		buf[i++] = 'Z';
		buf[i++] = 'R';
	} else if (ev->version >= 8 && (a & WC_TC_ZONE_RESET_ALL)) {
		buf[i++] = 'Z';
		buf[i++] = 'R';
		buf[i++] = 'A';
	} else if (ev->version >= 8 && (a & WC_TC_ZONE_FINISH)) {
		buf[i++] = 'Z';
		buf[i++] = 'F';
	} else if (ev->version >= 8 && (a & WC_TC_ZONE_OPEN)) {
		buf[i++] = 'Z';
		buf[i++] = 'O';
	} else if (ev->version >= 8 && (a & WC_TC_ZONE_CLOSE)) {
		buf[i++] = 'Z';
		buf[i++] = 'C';
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

int wc_dump_event(FILE *fp, const struct wc_event *ev, uint64_t genesis,
		  const char *comm)
{
	const uint64_t message = WC_TC(WC_TC_NOTIFY) | WC_TN_MESSAGE;
	uint64_t t = ev->time - genesis;
	unsigned what = (unsigned)(ev->action & 0xffffu);
	unsigned sectors = ev->bytes >> 9;
	uint32_t device = ev->device;
	bool pc = wc_event_has(ev, WC_TC_PC);
	const char *act;
	const char *name = comm ? comm : "(null)";
	uint32_t from = 0, to = 0;
	uint64_t from_sector = 0;
	char rwbs[8];

	if (ev->action == message) {
		if (!ev->pdu_len)
			return 0;
		/* %s stops at a NUL inside the message, as in blkparse. */
		fprintf(fp, "%3u,%-3u %2d %8s %5d.%09lu %5u %2s %3s %.*s\n",
			WC_DEV_MAJOR(device), WC_DEV_MINOR(device),
			(int)ev->cpu, "0", (int)(t / NSEC_PER_SEC),
			(unsigned long)(t % NSEC_PER_SEC), 0u, "m", "N",
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
	fprintf(fp, "%3u,%-3u %2d %8d %5d.%09lu %5u %2s %3s ",
		WC_DEV_MAJOR(device), WC_DEV_MINOR(device), (int)ev->cpu,
		(int)ev->sequence, (int)(t / NSEC_PER_SEC),
		(unsigned long)(t % NSEC_PER_SEC), ev->pid, act, rwbs);

	switch (act[0]) {
	case 'R':
	case 'C':
		if (pc) {
			if (act[0] == 'C')
				put_pdu(fp, ev);
			fprintf(fp, "[%d]\n", ev->error);
		} else if (sectors) {
			fprintf(fp, "%llu + %u [%d]\n",
				(unsigned long long)ev->sector, sectors,
				ev->error);
		} else {
			fprintf(fp, "%llu [%d]\n",
				(unsigned long long)ev->sector, ev->error);
		}
		break;
	case 'D':
	case 'I':
	case 'Q':
	case 'B':
		if (pc) {
			fprintf(fp, "%u ", ev->bytes);
			if (act[0] != 'Q')
				put_pdu(fp, ev);
			fprintf(fp, "[%s]\n", name);
		} else if (sectors) {
			fprintf(fp, "%llu + %u [%s]\n",
				(unsigned long long)ev->sector, sectors, name);
		} else {
			fprintf(fp, "[%s]\n", name);
		}
		break;
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (sectors)
			fprintf(fp, "%llu + %u [%s]\n",
				(unsigned long long)ev->sector, sectors, name);
		else
			fprintf(fp, "[%s]\n", name);
		break;
	case 'P':
		fprintf(fp, "[%s]\n", name);
		break;
	case 'U':
		fprintf(fp, "[%s] %u\n", name, pdu_int(ev));
		break;
	case 'A':
		fprintf(fp, "%llu + %u <- (%u,%u) %llu\n",
			(unsigned long long)ev->sector, sectors,
			WC_DEV_MAJOR(from), WC_DEV_MINOR(from),
			(unsigned long long)from_sector);
		break;
	case 'X':
		fprintf(fp, "%llu / %u [%s]\n", (unsigned long long)ev->sector,
			pdu_int(ev), name);
		break;
	}
	return ferror(fp) ? -1 : 1;
}
