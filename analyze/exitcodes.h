/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exitcodes.h - the exit statuses of every program in the project.
 *
 * Kept in one place so the man pages, the tests and the programs agree.
 */
#ifndef WC_EXITCODES_H
#define WC_EXITCODES_H

enum wc_exit {
	WC_EXIT_OK = 0,
	WC_EXIT_FAILURE = 1,   /* the system failed: I/O error, no memory */
	WC_EXIT_INPUT = 2,     /* bad input: not a trace, truncated, corrupt */
	WC_EXIT_USAGE = 2,     /* bad command line (same status, as cmp(1)) */
	WC_EXIT_INTERRUPTED = 130,
};

#endif /* WC_EXITCODES_H */
