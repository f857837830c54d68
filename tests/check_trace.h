/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_trace.h - a generated per-CPU trace for the Check tests of an
 * input read on a thread of its own (check_batchq, check_analysis): long
 * enough to go round the queue (input/batchq.h) many times, with process
 * names that come late.
 *
 *     char dir[256];
 *     wc_check_trace(dir, sizeof(dir), 12000, 0);  // dir/sda.blktrace.{0,1}
 *
 * Request k (0 <= k < n) is queued, dispatched and completed on CPU k % 2
 * at 4 KiB sector 8 k of device 8,0, by pid WC_CHECK_TRACE_PID + k % 300
 * (more pids than a table by process tallies at once, account.h); its
 * C comes three requests later, so requests overlap.  Pid p is named
 * "pP" by a process notify on CPU 0 only once its (2 + p % 37)-th request
 * has been queued: every name comes after its pid's first requests, up to
 * hundreds of batches after them, and the names come all along.  With cut, the last record of CPU 1 is cut short by that
 * many bytes (a truncated trace).  A failure fails the test.
 */
#ifndef WC_CHECK_TRACE_H
#define WC_CHECK_TRACE_H

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "format/encode.h"
#include "format/event.h"

#define WC_CHECK_TRACE_PID 100u

static inline void wc_check_trace_put_(FILE *fp, const struct wc_event *ev)
{
	unsigned char rec[WC_BLK_RECORD_MAX];
	ssize_t n = wc_blk_encode(rec, sizeof(rec), ev, WC_BLK_VERSION_7,
				  false, NULL);

	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq(fwrite(rec, 1, (size_t)n, fp), (size_t)n);
}

static inline void wc_check_trace(char *dir, size_t size, unsigned n,
				  unsigned cut)
{
	const uint64_t w = WC_TC(WC_TC_WRITE);
	FILE *fp[2];
	char file[300];
	uint32_t seq[2] = { 0, 0 };
	unsigned k, c, step, named[300] = { 0 };
	long end;

	wc_check_template(dir, size, "check_trace");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (c = 0; c < 2; c++) {
		snprintf(file, sizeof(file), "%s/sda.blktrace.%u", dir, c);
		fp[c] = fopen(file, "wb");
		ck_assert_ptr_nonnull(fp[c]);
	}
	/* Each request's three events at times 10 k (Q), 10 k + 1 (D)
	 * and 10 (k + 3) + 5 (C): written in time order per CPU. */
	for (k = 0; k < n + 3; k++) {
		for (step = 0; step < 3; step++) {
			static const unsigned what[3] = {
				WC_TA_COMPLETE, WC_TA_QUEUE, WC_TA_ISSUE,
			};
			/* The C of request k - 3 first: its time is the
			 * smallest of the three. */
			unsigned r = step == 0 ? k - 3 : k;
			struct wc_event ev;

			if ((step == 0 && k < 3) || (step > 0 && k >= n))
				continue;
			memset(&ev, 0, sizeof(ev));
			ev.time = 10ull * k + (step == 0 ? 0 : step == 1 ? 1 : 2);
			ev.sector = 8ull * r;
			ev.bytes = 4096;
			ev.action = what[step] | w |
				    (step == 1 ? WC_TC(WC_TC_QUEUE) : 0);
			ev.pid = WC_CHECK_TRACE_PID + r % 300;
			ev.device = WC_DEV_MAKE(8, 0);
			ev.cpu = r % 2;
			ev.sequence = ++seq[r % 2];
			wc_check_trace_put_(fp[r % 2], &ev);
			if (step == 1 &&
			    ++named[r % 300] == 2 + r % 300 % 37) {
				char name[16] = { 0 };

				memset(&ev, 0, sizeof(ev));
				snprintf(name, sizeof(name), "p%u",
					 WC_CHECK_TRACE_PID + r % 300);
				ev.time = 10ull * k + 1;
				ev.action = WC_ACTION_PROCESS;
				ev.pid = WC_CHECK_TRACE_PID + r % 300;
				ev.device = WC_DEV_MAKE(8, 0);
				ev.pdu = (const unsigned char *)name;
				ev.pdu_len = 16;
				wc_check_trace_put_(fp[0], &ev);
			}
		}
	}
	for (c = 0; c < 2; c++) {
		end = ftell(fp[c]);
		ck_assert_int_eq(fclose(fp[c]), 0);
		if (c == 1 && cut) {
			snprintf(file, sizeof(file), "%s/sda.blktrace.1", dir);
			ck_assert_int_eq(truncate(file, end - (long)cut), 0);
		}
	}
}

#endif /* WC_CHECK_TRACE_H */
