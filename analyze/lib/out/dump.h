/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dump.h - one event as blkparse prints it by default.
 *
 *     uint64_t genesis = wc_input_genesis(in);   // after the first event
 *     wc_dump_event(stdout, &ev, genesis, wc_input_comm(in, ev.pid));
 *
 * The line is byte for byte what "blkparse -i" (blktrace 1.2, default
 * format, no -t) prints for the event:
 *
 *     8,0    1        5     0.000123456  4242  D  WS 1234 + 8 [jbd2/sda1-8]
 *
 * device, CPU, sequence, time since genesis, pid, action, RWBS, then what
 * the action carries: sector + sectors and the process name (Q, I, D, B,
 * M, F, G, S), the error (C, R), the unplug count (U, UT), the split
 * sector (X), the origin of a remap (A), a message (m); packet commands
 * print their payload in hex.  comm NULL prints "(null)", which is what
 * blkparse prints when no process notify record named the pid (always
 * the case for traces recorded through tracefs).
 *
 * What always holds:
 *  - events blkparse prints nothing for (drive data, abort, unknown
 *    actions, events without any category bit) print nothing here either:
 *    wc_dump_event() returns 0 for them, 1 for a line, -1 on a write error;
 *  - the RWBS letters of v8 zone operations follow the blktrace 1.3
 *    patches (ZA, ZR, ZRA, ZF, ZO, ZC);
 *  - wc_dump_event() allocates nothing;
 *  - fp is written with stdio's unlocked calls (fwrite_unlocked), so
 *    no other thread may use fp during the call.
 *
 * Many events (--dump): a dumper gathers their lines and writes them to
 * fp a buffer at a time, the same bytes as wc_dump_event() for each; a
 * call to stdio per line cost a tenth of a dump.  It also remembers the
 * fields the lines before it repeat (a CPU's head and next sequence
 * number, the second, a request's range, a pid, an action's letters)
 * and copies them: 30 KiB beside the 64 KiB buffer.
 *
 *     struct wc_dump *d = NULL;
 *     if (wc_dump_open(&d, stdout) < 0) goto fail;     // out of memory
 *     while (...)
 *             if (wc_dump_add(d, &ev, genesis, comm) < 0) goto fail;
 *     if (wc_dump_flush(d) < 0) goto fail;              // a write failed
 *     wc_dump_free(d);          // writes nothing; fp stays the caller's
 *
 * wc_dump_add() returns as wc_dump_event() (-1: a write of the lines
 * before failed); the lines are all on fp once wc_dump_flush() returned
 * 0.  fp is not used by the dumper between calls.
 */
#ifndef WC_DUMP_H
#define WC_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "format/event.h"

/* RWBS string of ev into buf (at least 8 bytes); returns buf. */
char *wc_dump_rwbs(const struct wc_event *ev, char *buf);

int wc_dump_event(FILE *fp, const struct wc_event *ev, uint64_t genesis,
		  const char *comm);

struct wc_dump;

int wc_dump_open(struct wc_dump **out, FILE *fp);
int wc_dump_add(struct wc_dump *d, const struct wc_event *ev,
		uint64_t genesis, const char *comm);
int wc_dump_flush(struct wc_dump *d);
void wc_dump_free(struct wc_dump *d);

#endif /* WC_DUMP_H */
