/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What wcdisk's parts share (capture/wcdisk*.c, internal to wcdisk): its
 * name, its largest request, the images as regions of the model disk,
 * and the one state every part works on, g, whose options main() sets.
 * The parts: wcdisk.c (the options and the wiring), wcdisk_serve.h (the
 * FUSE server), wcdisk_platter.h (the images on the model disk and what
 * reaches the platter) and wcdisk_replay.h (--replay and --list).
 *
 * What always holds: the model and what follows it in g are under
 * g.lock while the server runs; the data cache and the platter log are
 * the scheduler thread's alone (wcdisk_platter.h), then main()'s.  Who
 * frees what: main() opens and closes the images, the model, the ledger,
 * the data cache and the platter log; serve_mount() makes and frees its
 * commands and g.rows.
 */
#ifndef WCDISK_H
#define WCDISK_H

/* g holds a FUSE request (a read of the control file). */
#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 35
#endif

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "base/wcerr.h"
#include "disk/datacache.h"
#include "disk/diskmodel.h"

#define PROG "wcdisk"
#define MAX_WRITE (1024 * 1024)
#define MAX_REGIONS 2

/* One image file, one range of the model disk's sectors. */
struct region {
	int fd;
	uint64_t size;			/* bytes, a multiple of 512 */
	uint64_t base;			/* its first byte on the model disk
					 * (the placement's offset) */
};

struct command;		/* one request being served (wcdisk_serve.c) */

struct wcdisk_state {
	struct region reg[MAX_REGIONS];
	unsigned nreg;
	uint64_t size;			/* the model disk's capacity */
	struct wc_disk *disk;
	FILE *ledger;
	const char *ledger_path;
	const char *ready_path;
	bool ledger_failed;
	uint64_t requests;
	uint64_t late_max;
	/* the model and what follows are under lock; the scheduler waits on
	 * wake for an arrival or for the next command's start */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	struct command *free_commands;
	fuse_req_t destage_req;		/* a read of the control file waiting
					 * for the disk to be free */
	struct wc_disk_cost *rows;	/* the scheduler's copy of the
					 * destage rows of one command */
	/* the volatile cache's data and the platter log, both in the model
	 * disk's bytes: the scheduler's alone (then the exit's), no lock */
	struct wc_datacache *cache;
	FILE *plog;
	const char *plog_path;
	bool plog_failed, cache_failed;
	unsigned char *destage_buf;	/* MAX_WRITE bytes */
};

/* The one state, in wcdisk.c. */
extern struct wcdisk_state g;

/* The host's CLOCK_MONOTONIC in ns: the model's clock and the trace's. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Prints err (or, with err NULL, what) and where the help is to stderr;
 * returns WC_EXIT_USAGE. */
int usage_error(const struct wc_err *err, const char *what);

#endif
