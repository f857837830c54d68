/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcdisk - a model disk: serves one image file through FUSE and answers
 * each request only when a disk model says the disk would have finished.
 *
 * The image appears as MOUNTPOINT/disk; a second image, if given, as
 * MOUNTPOINT/disk1, the second region of the same model disk, after the
 * first (two partitions of one disk: one head, one queue, one cache; the
 * region_*() functions map between them).  By default the images are
 * the platter, one after the other; with --offset each is a partition at
 * that offset of a disk of the model's own capacity (capacity_gb), placed
 * by wc_disk_place(): a small image then covers a few cylinders, as a
 * filesystem on a partition of a large disk does.  A loop device attached to a
 * file sends every read and write of the filesystem on it here (the file
 * is opened in direct-I/O mode, so the page cache stays out), and its
 * flushes arrive as fsync.  The disk holds many requests at once, as a
 * disk with a command queue does: FUSE's low-level API lets one thread
 * take requests as they arrive (submit_command(): each goes into the
 * model's queue, analyze/lib/disk/diskmodel.h) and another answer them
 * (schedule(): the model picks the next command, and it is answered when
 * the model says it ends).  Every command served, and every range the
 * model destaged, is one row of the ledger (docs/capture-format.md,
 * ledger.tsv).  A read of MOUNTPOINT/destage, the control file, has the
 * model write its whole cache back with no command from the kernel
 * (destage_now()).  See docs/wcdisk.8.
 *
 * With --platter-log the images are the platter: a write the model caches
 * stays in memory
 * (the data cache, analyze/lib/disk/datacache.h) until the model destages it,
 * reads see the cache's newer data, and with --platter-log every write
 * reaching the platter is logged with its time, so that `wcdisk --replay`
 * can rebuild the platter as a power cut at any time would have left it
 * (analyze/lib/disk/platterlog.h).
 *
 * This file is the options and the wiring; the parts: wcdisk_serve.c, the
 * FUSE server (submit_command(), schedule(), destage_now());
 * wcdisk_platter.c, the regions (region_*()) and the platter;
 * wcdisk_replay.c, --replay and --list; wcdisk.h, what they share.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/buildinfo.h"
#include "disk/datacache.h"
#include "disk/diskmodel.h"
#include "exitcodes.h"
#include "base/wcerr.h"
#include "wcdisk.h"
#include "wcdisk_platter.h"
#include "wcdisk_replay.h"
#include "wcdisk_serve.h"

struct wcdisk_state g = { .reg = { { .fd = -1 }, { .fd = -1 } }, .lock = PTHREAD_MUTEX_INITIALIZER };

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: wcdisk [--disk FILE] [--param KEY=VALUE]... [--ledger FILE]\n"
		"              [--platter-log FILE] [--ready FILE] [--offset OFF|auto]...\n"
		"              IMAGE [IMAGE2] MOUNTPOINT\n"
		"       wcdisk --replay LOG --at NS [--tear sector|write] IMAGE\n"
		"       wcdisk --list LOG\n"
		"       wcdisk [--disk FILE] [--param KEY=VALUE]... --print-params\n"
		"       wcdisk [--disk FILE] [--param KEY=VALUE]... [--offset OFF|auto]...\n"
		"              --print-placement IMAGE [IMAGE2]\n"
		"       wcdisk --help | --version\n");
}

/* --help: every option, as docs/wcdisk.8 explains them. */
static void help(FILE *fp)
{
	usage(fp);
	fputs("\n"
	      "Serves IMAGE as MOUNTPOINT/disk through FUSE; each request costs\n"
	      "what the disk model says (docs/model-disk.md).\n"
	      "\n"
	      "  -d, --disk FILE       read model parameters from FILE (key = value\n"
	      "                        lines; capture/disks has hdd7200, ssd, ssd-plp)\n"
	      "  -p, --param KEY=VALUE set one parameter, after --disk's (in\n"
	      "                        command-line order; repeatable)\n"
	      "  -l, --ledger FILE     write one tab-separated row per request served\n"
	      "      --platter-log FILE  log every write reaching the platter, with\n"
	      "                        its data and times, and every flush answered\n"
	      "      --replay LOG --at NS  write to IMAGE the platter as a power cut\n"
	      "                        at NS (CLOCK_MONOTONIC ns) left it\n"
	      "      --tear sector|write  with --replay: a write in flight leaves the\n"
	      "                        sectors transferred (default) or nothing\n"
	      "      --list LOG        print the log's records, tab-separated\n"
	      "      --ready FILE      create FILE once the kernel has connected\n"
	      "      --offset OFF|auto each IMAGE, in order, is a partition at byte\n"
	      "                        OFF (K, M, G, T: binary units) of a disk of the\n"
	      "                        model's capacity_gb; auto: the disk cut into\n"
	      "                        as many equal partitions, one IMAGE at the\n"
	      "                        start of each (default: the images are the\n"
	      "                        whole platter, one after the other)\n"
	      "      --print-placement print where each IMAGE lies on the disk, exit\n"
	      "      --print-params    print every parameter as it would be used, exit\n"
	      "  -h, --help            show this help and exit\n"
	      "  -V, --version         show the version and exit\n", fp);
}

/* A bad command line: the mistake on one line (wccapture shows it to its
 * user as it is), then where the help is. */
int usage_error(const struct wc_err *err, const char *what)
{
	char msg[1600];

	fprintf(stderr, "%s: %s\n%s: try 'wcdisk --help'\n", PROG,
		err ? wc_err_format(err, msg, sizeof(msg)) : what, PROG);
	return WC_EXIT_USAGE;
}

/* --offset's value: bytes, with a binary K, M, G or T; 0, or -1. */
static int offset_arg(const char *arg, uint64_t *off)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno != 0)
		return -1;
	if (*end != '\0') {
		u = strchr(units, *end);
		if (!u || end[1] != '\0')
			return -1;
		for (long k = 0; k <= u - units; k++) {
			if (v > UINT64_MAX / 1024)
				return -1;
			v *= 1024;
		}
	}
	*off = v;
	return 0;
}

static int param_arg(struct wc_disk_params *p, const char *arg, struct wc_err *err)
{
	const char *eq = strchr(arg, '=');
	char key[64];

	if (!eq || (size_t)(eq - arg) >= sizeof(key))
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "--param '%.64s': not KEY=VALUE", arg);
	/* argv stays as given: ps shows what was asked for */
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = '\0';
	return wc_disk_param_set(p, key, eq + 1, err);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "disk", required_argument, NULL, 'd' },
		{ "param", required_argument, NULL, 'p' },
		{ "ledger", required_argument, NULL, 'l' },
		{ "ready", required_argument, NULL, 'r' },
		{ "platter-log", required_argument, NULL, 'L' },
		{ "replay", required_argument, NULL, 'R' },
		{ "at", required_argument, NULL, 'A' },
		{ "tear", required_argument, NULL, 'T' },
		{ "list", required_argument, NULL, 'S' },
		{ "print-params", no_argument, NULL, 'P' },
		{ "offset", required_argument, NULL, 'O' },
		{ "print-placement", no_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct wc_disk_params p;
	struct wc_err err;
	char msg[1600];
	int c, rc = WC_EXIT_FAILURE, print = 0, frc, print_place = 0;
	const char *mnt, *replay = NULL, *at = NULL, *tear = NULL, *list = NULL;
	uint64_t offsets[MAX_REGIONS];
	unsigned r, noff = 0, nimg;
	bool autoplace = false;
	struct wc_disk_placement pl;

	wc_err_clear(&err);
	wc_disk_params_init(&p);
	while ((c = getopt_long(argc, argv, "d:p:l:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
		case 'p':
			/* in command-line order: a file, then overrides */
			if (c == 'd' && wc_disk_params_load(&p, optarg, &err) < 0)
				goto report;
			if (c == 'p' && param_arg(&p, optarg, &err) < 0)
				goto usage_error;
			break;
		case 'l':
			g.ledger_path = optarg;
			break;
		case 'r':
			g.ready_path = optarg;
			break;
		case 'P':
			print = 1;
			break;
		case 'L':
			g.plog_path = optarg;
			break;
		case 'O':
			if (!strcmp(optarg, "auto")) {
				autoplace = true;
				break;
			}
			if (noff == MAX_REGIONS) {
				rc = usage_error(NULL, "--offset: one an image, at most two");
				goto free_args;
			}
			if (offset_arg(optarg, &offsets[noff]) < 0) {
				wc_err_set(&err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
					   "--offset '%.64s': not bytes (K, M, G, T) nor auto",
					   optarg);
				goto usage_error;
			}
			noff++;
			break;
		case 'Q':
			print_place = 1;
			break;
		case 'R':
			replay = optarg;
			break;
		case 'A':
			at = optarg;
			break;
		case 'T':
			tear = optarg;
			break;
		case 'S':
			list = optarg;
			break;
		case 'h':
			help(stdout);
			rc = WC_EXIT_OK;
			goto free_args;
		case 'V':
			printf("wcdisk %s\n", wc_version);
			rc = WC_EXIT_OK;
			goto free_args;
		default:
			/* getopt_long() has said which option */
			fprintf(stderr, "%s: try 'wcdisk --help'\n", PROG);
			rc = WC_EXIT_USAGE;
			goto free_args;
		}
	}
	if (list) {
		rc = replay || at || optind != argc ?
			usage_error(NULL, "--list takes no other option nor IMAGE") :
			list_main(list);
		goto free_args;
	}
	if (replay) {
		rc = !at || argc - optind != 1 ?
			usage_error(NULL, "--replay needs --at NS and one IMAGE") :
			replay_main(replay, at, tear, argv[optind]);
		goto free_args;
	}
	if (at || tear) {
		rc = usage_error(NULL, "--at and --tear go with --replay");
		goto free_args;
	}
	if (autoplace && noff) {
		rc = usage_error(NULL, "--offset auto places every image: no other --offset");
		goto free_args;
	}
	if ((autoplace || noff) && g.plog_path) {
		/* the log and --replay's image are the platter's bytes: a
		 * partition's would be a disk-sized file */
		rc = usage_error(NULL, "--platter-log: the images are the platter, not with --offset");
		goto free_args;
	}
	if (print) {
		if (optind != argc) {
			rc = usage_error(NULL, "--print-params takes no IMAGE or MOUNTPOINT");
			goto free_args;
		}
		rc = wc_disk_params_write(stdout, &p) < 0 || fflush(stdout) != 0 ?
			WC_EXIT_FAILURE : WC_EXIT_OK;
		goto free_args;
	}
	if (print_place) {
		if (argc - optind != 1 && argc - optind != 2) {
			rc = usage_error(NULL, "--print-placement needs IMAGE (and an optional IMAGE2)");
			goto free_args;
		}
		nimg = (unsigned)(argc - optind);
	} else if (argc - optind != 2 && argc - optind != 3) {
		rc = usage_error(NULL, "needs IMAGE (and an optional IMAGE2) and MOUNTPOINT");
		goto free_args;
	} else {
		nimg = (unsigned)(argc - optind - 1);
	}
	mnt = argv[argc - 1];
	for (r = 0; r < nimg; r++)
		if (region_open(r, argv[optind + (int)r], &err) < 0)
			goto close_image;
	if (place_regions(&p, offsets, noff, autoplace, &pl, &err) < 0)
		goto close_image;
	if (print_place) {
		if (print_placement(&p, &pl, &err) == 0)
			rc = WC_EXIT_OK;
		goto close_image;
	}
	if (wc_disk_open(&g.disk, &p, g.size, &err) < 0)
		goto close_image;
	if (platter_open(&p, &err) < 0)
		goto free_disk;
	if (g.ledger_path) {
		g.ledger = fopen(g.ledger_path, "w");
		/* a row per line as it is answered: wccapture reads the
		 * ledger while the disk still serves */
		if (g.ledger)
			setvbuf(g.ledger, NULL, _IOLBF, 0);
		if (!g.ledger || wc_disk_ledger_header(g.ledger) < 0) {
			wc_err_set(&err, WC_ERR_SYSTEM, g.ledger_path, NULL,
				   WC_NO_OFFSET, "%s", strerror(errno));
			goto free_disk;
		}
	}
	/* Paged out, the daemon would wait for the disk it is modelling
	 * (or for memory that only writeback through it can free). */
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		fprintf(stderr, "%s: warning: cannot lock memory: %s\n", PROG,
			strerror(errno));
	/* timer slack would add 50 us to every answer */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* A disk keeps its own time whatever the host is busy with: on a
	 * loaded machine an ordinary thread wakes milliseconds late.  It
	 * sleeps between requests, so a real-time priority starves nobody. */
	{
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			fprintf(stderr, "%s: warning: no real-time priority (%s): "
				"answers may be late on a busy machine (ledger late_ns)\n",
				PROG, strerror(errno));
	}

	frc = serve_mount(argv[0], mnt);
	if (platter_close(&err) < 0)
		goto free_disk;
	if (g.ledger && (fclose(g.ledger) != 0 || g.ledger_failed)) {
		g.ledger = NULL;
		wc_err_set(&err, WC_ERR_SYSTEM, g.ledger_path, NULL, WC_NO_OFFSET,
			   "cannot write the ledger");
		goto free_disk;
	}
	g.ledger = NULL;
	if (frc != 0) {
		wc_err_set(&err, WC_ERR_SYSTEM, mnt, NULL, WC_NO_OFFSET,
			   "cannot serve the mount (fuse status %d)", frc);
		goto free_disk;
	}
	rc = WC_EXIT_OK;
free_disk:
	if (g.ledger)
		fclose(g.ledger);
	if (g.plog)
		fclose(g.plog);
	wc_datacache_free(g.cache);
	free(g.destage_buf);
	wc_disk_free(g.disk);
close_image:
	for (r = 0; r < MAX_REGIONS; r++)
		if (g.reg[r].fd >= 0)
			close(g.reg[r].fd);
report:
	if (rc != WC_EXIT_OK)
		fprintf(stderr, "%s: %s\n", PROG, wc_err_format(&err, msg, sizeof(msg)));
	/* a placement the disk cannot take (place_regions()) or a parameter
	 * out of range is the command line's mistake, as wcdisk.8 says */
	if (rc != WC_EXIT_OK && err.kind == WC_ERR_USAGE)
		rc = WC_EXIT_USAGE;
	if (rc != WC_EXIT_OK && err.kind == WC_ERR_INPUT)
		rc = WC_EXIT_INPUT;
free_args:
	return rc;
usage_error:
	rc = usage_error(&err, NULL);
	goto free_args;
}
