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
 */
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buildinfo.h"
#include "disk/datacache.h"
#include "disk/diskmodel.h"
#include "exitcodes.h"
#include "disk/platterlog.h"
#include "base/wcerr.h"
#include "wcdisk.h"
#include "wcdisk_replay.h"

#define FILE_NAME "disk"
#define MAX_REGIONS 2
#define INO_FILE 2		/* region r's file is INO_FILE + r */
/* The control file: a read of it destages the whole cache (destage_now()) */
#define INO_CONTROL (INO_FILE + MAX_REGIONS)
#define CONTROL_NAME "destage"
/* Requests the kernel may have outstanding at once (the loop device's
 * direct I/O is asynchronous, so each is a FUSE background request): more
 * than the model's deepest queue, so the device's queue can fill and the
 * rest wait in the model's host queue as they would in the block layer. */
#define MAX_BACKGROUND 64

/* One request between its arrival and its answer.  A write's data is
 * copied at arrival and reaches the image when the model serves it; a
 * read's is read from the image then. */
struct command {
	fuse_req_t req;
	enum wc_disk_op op;
	unsigned region;
	uint64_t off, size;		/* in the region's file */
	int mode;			/* fallocate */
	char *buf;			/* MAX_WRITE bytes, kept for reuse */
	struct command *next_free;
};

/* One image file, one range of the model disk's sectors. */
struct region {
	int fd;
	uint64_t size;			/* bytes, a multiple of 512 */
	uint64_t base;			/* its first byte on the model disk
					 * (the placement's offset) */
};

static struct {
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
} g = { .reg = { { .fd = -1 }, { .fd = -1 } }, .lock = PTHREAD_MUTEX_INITIALIZER };

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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Waits until the model's end, then notes how late the answer is. */
static void finish(struct wc_disk_cost *c)
{
	struct timespec ts = {
		.tv_sec = (time_t)(c->end_ns / 1000000000ull),
		.tv_nsec = (long)(c->end_ns % 1000000000ull),
	};
	uint64_t now;

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	now = now_ns();
	/* the model keeps its own time: a late answer is the host's, said
	 * in the ledger, and moves neither the platter nor the next start */
	c->late_ns = now > c->end_ns ? now - c->end_ns : 0;
	if (c->late_ns > g.late_max)
		g.late_max = c->late_ns;
	g.requests++;
}

/* ------------------------------------------------------------ regions */

/* The region of file inode ino, or NULL. */
static const struct region *region_of_ino(fuse_ino_t ino, unsigned *r)
{
	if (ino < INO_FILE || ino >= INO_FILE + g.nreg)
		return NULL;
	*r = (unsigned)(ino - INO_FILE);
	return &g.reg[*r];
}

/* The region of the file a read, write or fallocate names; replies
 * EISDIR and returns NULL for anything else. */
static const struct region *file_region(fuse_req_t req, fuse_ino_t ino,
					unsigned *r)
{
	const struct region *reg = region_of_ino(ino, r);

	if (!reg)
		fuse_reply_err(req, EISDIR);
	return reg;
}

/* The region holding model sector s (the last one past the end). */
static unsigned region_of_sector(uint64_t s)
{
	unsigned r = g.nreg - 1;

	while (r > 0 && s < g.reg[r].base / 512)
		r--;
	return r;
}

/* A ledger row says the sector on the device it came through (the
 * region's file, as the trace of its loop device has it) and which. */
static void region_localize(struct wc_disk_cost *c, unsigned r)
{
	c->region = r;
	if (c->op != WC_DISK_FLUSH)
		c->sector -= g.reg[r].base / 512;
}

static void record_row(const struct wc_disk_cost *c)
{
	if (g.ledger && wc_disk_ledger_row(g.ledger, c) < 0)
		g.ledger_failed = true;
}

/* After the answer: the ledger rows (their write costs nobody), in time
 * order: the idle period's destage before the command, the command, the
 * destage it waited for. */
static void record(struct wc_disk_cost *c, unsigned region,
		   struct wc_disk_cost *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		region_localize(&rows[i], region_of_sector(rows[i].sector));
	region_localize(c, region);
	for (i = 0; i < n; i++)
		if (rows[i].cause_seq == 0)
			record_row(&rows[i]);
	record_row(c);
	for (i = 0; i < n; i++)
		if (rows[i].cause_seq != 0)
			record_row(&rows[i]);
	if (c->op == WC_DISK_FLUSH && g.ledger && fflush(g.ledger) != 0)
		g.ledger_failed = true;
}

/* ------------------------------------------------------------ platter
 * What reaches the platter (the image), and the log of it.  The model
 * says what and when (its destage rows, in time order); these functions
 * move the bytes. */

/* Appends one record (and its data) to the platter log. */
static void plog_put(enum wc_platter_kind kind, uint64_t sector, uint64_t n,
		     uint64_t t0, uint64_t t1, uint64_t atom_end,
		     const void *data)
{
	struct wc_platter_rec r = {
		.kind = kind, .sector = sector, .sectors = n,
		.start_ns = t0, .end_ns = t1, .atom_end_ns = atom_end,
	};
	uint8_t b[WC_PLATTER_REC_BYTES];

	if (!g.plog)
		return;
	wc_platter_rec_encode(&r, b);
	if (fwrite(b, sizeof(b), 1, g.plog) != 1 ||
	    (data && n > 0 && fwrite(data, 512, n, g.plog) != n))
		g.plog_failed = true;
}

/* The platter's bytes [off, off + len) of the model disk, read into or
 * written from buf, in the regions' files that hold them (a destage run
 * may span two).  0, or -1 with errno set. */
static int platter_io(bool write, unsigned char *buf, uint64_t len, uint64_t off)
{
	uint64_t part;
	unsigned r;
	ssize_t n;

	while (len > 0) {
		r = region_of_sector(off / 512);
		part = g.reg[r].base + g.reg[r].size - off;
		if (part > len)
			part = len;
		n = write ? pwrite(g.reg[r].fd, buf, part, (off_t)(off - g.reg[r].base)) :
			pread(g.reg[r].fd, buf, part, (off_t)(off - g.reg[r].base));
		if (n < 0)
			return -1;
		if ((uint64_t)n < part) {
			if (write) {
				errno = EIO;
				return -1;
			}
			memset(buf + n, 0, part - (uint64_t)n);
		}
		buf += part, off += part, len -= part;
	}
	return 0;
}

/* Writes sectors [sector, sector + n) from buf to the platter, logged as
 * transferred over the part of [t0, t1] (the model's write of sectors
 * [m0, m1)) that they take. */
static void platter_write(enum wc_platter_kind kind, uint64_t sector,
			  uint64_t n, const unsigned char *buf, uint64_t m0,
			  uint64_t m1, uint64_t t0, uint64_t t1)
{
	double span = m1 > m0 ? (double)(t1 - t0) / (double)(m1 - m0) : 0;
	uint64_t k, part;

	if (platter_io(true, (unsigned char *)buf, n * 512, sector * 512) < 0)
		g.cache_failed = true;
	for (k = 0; k < n; k += part) {
		part = n - k < WC_PLATTER_MAX_SECTORS ? n - k : WC_PLATTER_MAX_SECTORS;
		plog_put(kind, sector + k, part,
			 t0 + (uint64_t)(span * (double)(sector + k - m0)),
			 t0 + (uint64_t)(span * (double)(sector + k + part - m0)),
			 t1, buf + k * 512);
	}
}

/* The disk's view of [off, off + size): the platter, then the cache's
 * newer sectors over it. */
static ssize_t platter_read(unsigned char *buf, size_t size, uint64_t off)
{
	if (platter_io(false, buf, size, off) < 0)
		return -1;
	wc_datacache_overlay(g.cache, off, buf, size);
	return (ssize_t)size;
}

/* Logs the whole sectors of a discard (they read as zeros from t on). */
static void platter_discard(uint64_t off, uint64_t len, uint64_t t)
{
	uint64_t s = (off + 511) / 512, e = (off + len) / 512, part;

	for (; s < e; s += part) {
		part = e - s < WC_PLATTER_MAX_SECTORS ? e - s : WC_PLATTER_MAX_SECTORS;
		plog_put(WC_PLATTER_DISCARD, s, part, t, t, t, NULL);
	}
}

/* Moves what the data cache holds of the model's destage rows to the
 * platter, in their (time) order: each row is one media write, its
 * transfer the last transfer_ns before its end. */
static void platter_destage(const struct wc_disk_cost *rows, size_t n)
{
	uint64_t from, end, run, k, t1;
	size_t i;

	if (!g.plog)
		return;
	for (i = 0; i < n; i++) {
		from = rows[i].sector;
		end = from + (rows[i].bytes + 511) / 512;
		t1 = rows[i].end_ns;
		while ((k = wc_datacache_take(g.cache, &from, end, g.destage_buf,
					      MAX_WRITE / 512, &run)) > 0)
			platter_write(WC_PLATTER_DESTAGE, run, k, g.destage_buf,
				      rows[i].sector, end, t1 - rows[i].transfer_ns, t1);
	}
}

/* A write of whole sectors the model served as c: into the data cache
 * when the model cached it, else on the platter (what the cache held
 * there is older and must not be destaged over it: forgotten). */
static void platter_serve_write(const unsigned char *buf, uint64_t off,
				uint64_t len, const struct wc_disk_cost *c)
{
	if (c->cache_hit && wc_datacache_put(g.cache, off, buf, len) == 0)
		return;
	/* a cached write the data cache cannot hold cannot happen while it
	 * mirrors the model (it holds no more than the model's dirty
	 * sectors): on the platter rather than lost, and said at exit */
	if (c->cache_hit)
		g.cache_failed = true;
	wc_datacache_drop(g.cache, off, len);
	if (len > 0)
		platter_write(WC_PLATTER_WRITE, off / 512, len / 512, buf,
			      off / 512, (off + len) / 512,
			      c->end_ns - (c->cache_hit ? 0 : c->transfer_ns),
			      c->end_ns);
}

/* A write as the kernel sent it: a disk writes whole sectors, so the
 * rest of a partial first or last one as it stands (a loop device never
 * sends one).  0 or -errno. */
static int platter_write_cmd(const unsigned char *buf, uint64_t off,
			     uint64_t size, const struct wc_disk_cost *c)
{
	uint64_t lo = off / 512 * 512, hi = (off + size + 511) / 512 * 512;
	unsigned char *whole;

	if (lo == off && hi == off + size) {
		platter_serve_write(buf, off, size, c);
		return 0;
	}
	whole = malloc(hi - lo);
	if (!whole)
		return -ENOMEM;
	if (platter_read(whole, hi - lo, lo) < 0) {
		free(whole);
		return -errno;
	}
	memcpy(whole + (off - lo), buf, size);
	platter_serve_write(whole, lo, hi - lo, c);
	free(whole);
	return 0;
}

/* The data cache (as large as the model's cache) and the platter log. */
static int platter_open(const struct wc_disk_params *p, struct wc_err *err)
{
	uint8_t h[WC_PLATTER_HEADER_BYTES];

	if (wc_datacache_open(&g.cache, p->write_cache ? p->cache_kib * 1024 : 0,
			      err) < 0)
		return -1;
	g.destage_buf = malloc(MAX_WRITE);
	if (!g.destage_buf)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "out of memory");
	if (!g.plog_path)
		return 0;
	g.plog = fopen(g.plog_path, "wb");
	if (!g.plog)
		return wc_err_set(err, WC_ERR_SYSTEM, g.plog_path, NULL,
				  WC_NO_OFFSET, "%s", strerror(errno));
	wc_platter_header_encode(h, g.size);
	if (fwrite(h, sizeof(h), 1, g.plog) != 1)
		g.plog_failed = true;
	return 0;
}

/* Unmounted: an orderly power-off, which writes the cache back to the
 * platter as a drive does when told to stand by; then the log closed. */
static int platter_close(struct wc_err *err)
{
	struct wc_disk_cost c;
	FILE *fp = g.plog;
	uint64_t from = 0, run, n, t;

	const struct wc_disk_cost *rows;

	wc_disk_serve(g.disk, WC_DISK_FLUSH, 0, 0, false, now_ns(), &c);
	platter_destage(rows, wc_disk_destaged(g.disk, &rows));
	/* with power-loss protection a flush destages nothing: the cache is
	 * written back all the same */
	t = c.end_ns;
	while ((n = wc_datacache_take(g.cache, &from, g.size / 512, g.destage_buf,
				      MAX_WRITE / 512, &run)) > 0)
		platter_write(WC_PLATTER_DESTAGE, run, n, g.destage_buf, run,
			      run + n, t, t);
	g.plog = NULL;
	if (fp && (fclose(fp) != 0 || g.plog_failed))
		return wc_err_set(err, WC_ERR_SYSTEM, g.plog_path, NULL,
				  WC_NO_OFFSET, "cannot write the platter log");
	if (g.cache_failed)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "the image could not be written, or the data cache "
				  "held less than the model's cache (a bug)");
	return 0;
}

/* ------------------------------------------------------------ commands */

static struct command *command_get(fuse_req_t req, enum wc_disk_op op,
				   unsigned region, uint64_t off, uint64_t size)
{
	struct command *cmd;

	pthread_mutex_lock(&g.lock);
	cmd = g.free_commands;
	if (cmd)
		g.free_commands = cmd->next_free;
	pthread_mutex_unlock(&g.lock);
	if (!cmd) {
		cmd = calloc(1, sizeof(*cmd));
		if (cmd)
			cmd->buf = malloc(MAX_WRITE);
		if (!cmd || !cmd->buf) {
			free(cmd);
			fuse_reply_err(req, ENOMEM);
			return NULL;
		}
	}
	cmd->req = req;
	cmd->op = op;
	cmd->region = region;
	cmd->off = off;
	cmd->size = size;
	cmd->mode = 0;
	return cmd;
}

static void command_put(struct command *cmd)
{
	pthread_mutex_lock(&g.lock);
	cmd->next_free = g.free_commands;
	g.free_commands = cmd;
	pthread_mutex_unlock(&g.lock);
}

/* The arrival: its time is taken under the model's lock, so once the
 * scheduler's clock has passed a time, every command that arrived by
 * then is in the model's queue (the pick is the one a replay makes). */
static void submit_command(struct command *cmd)
{
	struct wc_disk_req r = {
		.op = cmd->op, .offset = g.reg[cmd->region].base + cmd->off,
		.bytes = cmd->size, .tag = (uint64_t)(uintptr_t)cmd,
	};
	int rc;

	pthread_mutex_lock(&g.lock);
	r.arrival_ns = now_ns();
	rc = wc_disk_submit(g.disk, &r);
	if (rc == 0)
		pthread_cond_signal(&g.wake);
	pthread_mutex_unlock(&g.lock);
	if (rc < 0) {
		/* more than WC_DISK_MAX_PENDING: the kernel never sends
		 * that many (MAX_BACKGROUND) */
		fuse_reply_err(cmd->req, EBUSY);
		command_put(cmd);
	}
}

/* The image's side of a command the model served as c: the platter and
 * the data cache (the platter functions above). */
static int command_io(struct command *cmd, const struct wc_disk_cost *c,
		      size_t *done)
{
	int fd = g.reg[cmd->region].fd;
	uint64_t off = g.reg[cmd->region].base + cmd->off;	/* the model's */
	ssize_t n = 0;
	int rc;

	*done = 0;
	/* without a platter log the image takes every write at once, as
	 * before the data cache: the lab's disks need no power cut */
	if (!g.plog) {
		switch (cmd->op) {
		case WC_DISK_READ:
			n = pread(fd, cmd->buf, cmd->size, (off_t)cmd->off);
			break;
		case WC_DISK_WRITE:
			n = pwrite(fd, cmd->buf, cmd->size, (off_t)cmd->off);
			break;
		case WC_DISK_DISCARD:
			n = fallocate(fd, cmd->mode, (off_t)cmd->off, (off_t)cmd->size);
			break;
		default:
			break;
		}
		if (n < 0)
			return -errno;
		*done = (size_t)n;
		return 0;
	}
	switch (cmd->op) {
	case WC_DISK_READ:
		n = platter_read((unsigned char *)cmd->buf, cmd->size, off);
		break;
	case WC_DISK_WRITE:
		if ((rc = platter_write_cmd((unsigned char *)cmd->buf, off,
					    cmd->size, c)) < 0)
			return rc;
		n = (ssize_t)cmd->size;
		break;
	case WC_DISK_DISCARD:
		/* the cache's older data there must not be destaged over it */
		wc_datacache_drop(g.cache, off, cmd->size);
		n = fallocate(fd, cmd->mode, (off_t)cmd->off, (off_t)cmd->size);
		if (n == 0)
			platter_discard(off, cmd->size, c->end_ns);
		break;
	default:
		/* a flush: the image needs no fsync, its durability is not
		 * what is modelled (the platter log's is) */
		break;
	}
	if (n < 0)
		return -errno;
	*done = (size_t)n;
	return 0;
}

static void command_reply(struct command *cmd, int rc, size_t done)
{
	if (rc < 0)
		fuse_reply_err(cmd->req, -rc);
	else if (cmd->op == WC_DISK_READ)
		fuse_reply_buf(cmd->req, cmd->buf, done);
	else if (cmd->op == WC_DISK_WRITE)
		fuse_reply_write(cmd->req, done);
	else
		fuse_reply_err(cmd->req, 0);
}

/* Serves the command the model picked: the image's I/O, the wait until
 * the model's end, the answer, the ledger. */
static void answer(struct wc_disk_cost *c, size_t nrows)
{
	struct command *cmd = (struct command *)(uintptr_t)c->tag;
	size_t done;
	int rc;

	/* what the model destaged before and for it reaches the platter
	 * first, in the model's order (its sectors are the model's: before
	 * record() makes them the region's) */
	platter_destage(g.rows, nrows);
	rc = command_io(cmd, c, &done);
	finish(c);
	/* acknowledged now: what it destaged is on the platter before */
	if (cmd->op == WC_DISK_FLUSH)
		plog_put(WC_PLATTER_FLUSH, 0, 0, c->start_ns, c->end_ns + c->late_ns,
			 c->end_ns + c->late_ns, NULL);
	command_reply(cmd, rc, done);
	record(c, cmd->region, g.rows, nrows);
	command_put(cmd);
}

/* The control file's read, once no command waits (called and returning
 * with the lock held): the model writes back everything its cache holds,
 * as a drive told to stand by does, with no command from the kernel (the
 * lab's end of a run: the data on the platter, not in the cache).  Its
 * rows are destage rows of no command (cause_seq 0), in the ledger as
 * the disk does them; the read is answered when the last one ends, with
 * "destaged BYTES bytes in N ranges, durable at NS" (NS: CLOCK_MONOTONIC,
 * the trace clock). */
static void destage_now(void)
{
	fuse_req_t req = g.destage_req;
	const struct wc_disk_cost *rows;
	struct timespec ts;
	uint64_t bytes = 0, end;
	char text[128];
	size_t n, i;
	int len;

	g.destage_req = NULL;
	end = now_ns();
	wc_disk_destage_all(g.disk, end);
	n = wc_disk_destaged(g.disk, &rows);
	memcpy(g.rows, rows, n * sizeof(*rows));
	pthread_mutex_unlock(&g.lock);
	platter_destage(g.rows, n);
	if (n > 0 && g.rows[n - 1].end_ns > end)
		end = g.rows[n - 1].end_ns;
	ts.tv_sec = (time_t)(end / 1000000000ull);
	ts.tv_nsec = (long)(end % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	for (i = 0; i < n; i++) {
		bytes += g.rows[i].bytes;
		region_localize(&g.rows[i], region_of_sector(g.rows[i].sector));
		record_row(&g.rows[i]);
	}
	if (g.ledger && fflush(g.ledger) != 0)
		g.ledger_failed = true;
	len = snprintf(text, sizeof(text),
		       "destaged %" PRIu64 " bytes in %zu ranges, durable at %" PRIu64 "\n",
		       bytes, n, end);
	fuse_reply_buf(req, text, (size_t)len);
	pthread_mutex_lock(&g.lock);
}

/* The scheduler thread: whenever the model's next command is due by the
 * host's clock, has the model pick it and answers it. */
static void *schedule(void *arg)
{
	struct wc_disk_cost c;
	const struct wc_disk_cost *rows;
	struct timespec ts;
	uint64_t t, now;
	size_t n;

	(void)arg;
	pthread_mutex_lock(&g.lock);
	while (!g.stop) {
		t = wc_disk_next_start(g.disk);
		if (t == UINT64_MAX && g.destage_req) {
			destage_now();
			continue;
		}
		if (t == UINT64_MAX) {
			pthread_cond_wait(&g.wake, &g.lock);
			continue;
		}
		now = now_ns();
		if (now < t) {
			ts.tv_sec = (time_t)(t / 1000000000ull);
			ts.tv_nsec = (long)(t % 1000000000ull);
			pthread_cond_timedwait(&g.wake, &g.lock, &ts);
			continue;
		}
		wc_disk_next(g.disk, &c);
		n = wc_disk_destaged(g.disk, &rows);
		memcpy(g.rows, rows, n * sizeof(*rows));
		pthread_mutex_unlock(&g.lock);
		answer(&c, n);
		pthread_mutex_lock(&g.lock);
	}
	pthread_mutex_unlock(&g.lock);
	return NULL;
}

/* ------------------------------------------------------------ FUSE */

static void file_stat(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (ino == INO_CONTROL) {
		st->st_mode = S_IFREG | 0400;
		st->st_nlink = 1;
	} else {
		uint64_t size = g.reg[ino - INO_FILE].size;

		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = (off_t)size;
		st->st_blocks = (blkcnt_t)(size / 512);
	}
}

static void ll_init(void *userdata, struct fuse_conn_info *conn)
{
	FILE *fp;

	(void)userdata;
	/* one large request stays one request where the kernel allows it */
	conn->max_write = MAX_WRITE;
	/* many requests at once: reads in parallel, and the loop driver's
	 * asynchronous direct I/O kept asynchronous */
	if (conn->capable & FUSE_CAP_ASYNC_READ)
		conn->want |= FUSE_CAP_ASYNC_READ;
	if (conn->capable & FUSE_CAP_ASYNC_DIO)
		conn->want |= FUSE_CAP_ASYNC_DIO;
	conn->max_background = MAX_BACKGROUND;
	conn->congestion_threshold = MAX_BACKGROUND;
	if (g.ready_path) {
		fp = fopen(g.ready_path, "w");
		if (fp)
			fclose(fp);
	}
}

static void ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	unsigned r;

	if (parent != FUSE_ROOT_ID || strcmp(name, FILE_NAME) == 0)
		r = 0;
	else if (g.nreg > 1 && strcmp(name, FILE_NAME "1") == 0)
		r = 1;
	else if (strcmp(name, CONTROL_NAME) == 0)
		r = INO_CONTROL - INO_FILE;
	else
		r = MAX_REGIONS;
	if (parent != FUSE_ROOT_ID || r > MAX_REGIONS) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = INO_FILE + r;
	e.attr_timeout = 3600;
	e.entry_timeout = 3600;
	file_stat(e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void ll_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	unsigned r;

	(void)fi;
	if (ino != FUSE_ROOT_ID && ino != INO_CONTROL && !region_of_ino(ino, &r)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	file_stat(ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

/* Only a truncate to the size it has (what an O_TRUNC open asks). */
static void ll_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	const struct region *reg;
	struct stat st;
	unsigned r;

	(void)fi;
	reg = region_of_ino(ino, &r);
	if (!reg || to_set != FUSE_SET_ATTR_SIZE) {
		fuse_reply_err(req, !reg ? EISDIR : ENOSYS);
		return;
	}
	if ((uint64_t)attr->st_size != reg->size) {
		fuse_reply_err(req, EPERM);
		return;
	}
	file_stat(ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	static const char *const names[] = { ".", "..", FILE_NAME, FILE_NAME "1" };
	static const fuse_ino_t inos[] = { FUSE_ROOT_ID, FUSE_ROOT_ID, INO_FILE,
					   INO_FILE + 1 };
	char buf[512];
	size_t used = 0, len, i;
	struct stat st;

	(void)fi;
	if (ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	for (i = off < 0 ? 0 : (size_t)off; i < 2 + g.nreg; i++) {
		memset(&st, 0, sizeof(st));
		st.st_ino = inos[i];
		st.st_mode = i < 2 ? S_IFDIR : S_IFREG;
		len = fuse_add_direntry(req, buf + used, size - used, names[i],
					&st, (off_t)(i + 1));
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
}

static void ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	unsigned r;

	if (ino != INO_CONTROL && !region_of_ino(ino, &r)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	/* the page cache would answer reads and absorb writes without us */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	fuse_reply_open(req, fi);
}

/* A read of the control file at its start asks for destage_now() (one
 * at a time); past it, the end of the file. */
static void control_read(fuse_req_t req, off_t off)
{
	if (off != 0) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	pthread_mutex_lock(&g.lock);
	if (g.destage_req) {
		pthread_mutex_unlock(&g.lock);
		fuse_reply_err(req, EBUSY);
		return;
	}
	g.destage_req = req;
	pthread_cond_signal(&g.wake);
	pthread_mutex_unlock(&g.lock);
}

static void ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	const struct region *reg;
	struct command *cmd;
	unsigned r;

	(void)fi;
	if (ino == INO_CONTROL) {
		control_read(req, off);
		return;
	}
	reg = file_region(req, ino, &r);
	if (!reg)
		return;
	if (off < 0 || (uint64_t)off >= reg->size) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > reg->size - (uint64_t)off)
		size = (size_t)(reg->size - (uint64_t)off);
	if (size > MAX_WRITE)
		size = MAX_WRITE;
	cmd = command_get(req, WC_DISK_READ, r, (uint64_t)off, size);
	if (cmd)
		submit_command(cmd);
}

static void ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	const struct region *reg;
	struct command *cmd;
	unsigned r;

	(void)fi;
	reg = file_region(req, ino, &r);
	if (!reg)
		return;
	if (off < 0 || (uint64_t)off >= reg->size || size > reg->size - (uint64_t)off) {
		fuse_reply_err(req, ENOSPC);
		return;
	}
	if (size > MAX_WRITE) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	cmd = command_get(req, WC_DISK_WRITE, r, (uint64_t)off, size);
	if (!cmd)
		return;
	memcpy(cmd->buf, buf, size);
	submit_command(cmd);
}

/* The loop driver turns a flush request (and the post-flush that stands
 * for FUA on a device without FUA) into vfs_fsync: a cache flush. */
static void ll_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi)
{
	struct command *cmd;
	unsigned r = 0;

	/* one cache for the whole disk: a flush through either file
	 * flushes it all */
	(void)datasync, (void)fi;
	region_of_ino(ino, &r);
	cmd = command_get(req, WC_DISK_FLUSH, r, 0, 0);
	if (cmd)
		submit_command(cmd);
}

static void ll_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino, (void)fi;
	fuse_reply_err(req, 0);
}

static void ll_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			 off_t len, struct fuse_file_info *fi)
{
	const struct region *reg;
	struct command *cmd;
	unsigned r;

	(void)fi;
	reg = file_region(req, ino, &r);
	if (!reg)
		return;
	if (mode != (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	if (off < 0 || len < 0 || (uint64_t)off > reg->size ||
	    (uint64_t)len > reg->size - (uint64_t)off) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	cmd = command_get(req, WC_DISK_DISCARD, r, (uint64_t)off, (uint64_t)len);
	if (!cmd)
		return;
	cmd->mode = mode;
	submit_command(cmd);
}

static const struct fuse_lowlevel_ops ops = {
	.init = ll_init,
	.lookup = ll_lookup,
	.getattr = ll_getattr,
	.setattr = ll_setattr,
	.readdir = ll_readdir,
	.open = ll_open,
	.read = ll_read,
	.write = ll_write,
	.fsync = ll_fsync,
	.flush = ll_flush,
	.fallocate = ll_fallocate,
};

/* Serves mnt until it is unmounted or a signal ends the session: this
 * thread takes the requests, a scheduler thread answers them.  Returns 0
 * or a nonzero status. */
static int serve_mount(const char *argv0, const char *mnt)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_session *se = NULL;
	pthread_condattr_t ca;
	pthread_t sched;
	struct wc_disk_cost c;
	struct command *cmd;
	int rc = 1;

	g.rows = calloc(WC_DISK_MAX_EXTENTS + 1, sizeof(*g.rows));
	if (!g.rows)
		return 1;
	/* the scheduler sleeps until a time on the model's clock */
	if (pthread_condattr_init(&ca) != 0)
		goto free_rows;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&g.wake, &ca);
	pthread_condattr_destroy(&ca);
	if (rc != 0)
		goto free_rows;
	rc = 1;
	if (fuse_opt_add_arg(&args, argv0) < 0 ||
	    fuse_opt_add_arg(&args, "-o") < 0 ||
	    fuse_opt_add_arg(&args, "fsname=wcdisk,subtype=wcdisk") < 0)
		goto free_args;
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (!se)
		goto free_args;
	if (fuse_set_signal_handlers(se) < 0)
		goto destroy_session;
	if (fuse_session_mount(se, mnt) < 0)
		goto remove_handlers;
	if (pthread_create(&sched, NULL, schedule, NULL) != 0)
		goto unmount;
	rc = fuse_session_loop(se);
	pthread_mutex_lock(&g.lock);
	g.stop = true;
	pthread_cond_signal(&g.wake);
	pthread_mutex_unlock(&g.lock);
	pthread_join(sched, NULL);
	if (g.destage_req)
		fuse_reply_err(g.destage_req, EIO);
	g.destage_req = NULL;
	/* what the kernel still waits for (nothing, once unmounted) */
	while (wc_disk_next(g.disk, &c)) {
		cmd = (struct command *)(uintptr_t)c.tag;
		fuse_reply_err(cmd->req, EIO);
		command_put(cmd);
	}
unmount:
	fuse_session_unmount(se);
remove_handlers:
	fuse_remove_signal_handlers(se);
destroy_session:
	fuse_session_destroy(se);
free_args:
	fuse_opt_free_args(&args);
	pthread_cond_destroy(&g.wake);
free_rows:
	while ((cmd = g.free_commands) != NULL) {
		g.free_commands = cmd->next_free;
		free(cmd->buf);
		free(cmd);
	}
	free(g.rows);
	g.rows = NULL;
	return rc;
}

/* Opens image path as region r (placed later, place_regions()). */
static int region_open(unsigned r, const char *path, struct wc_err *err)
{
	struct region *reg = &g.reg[r];
	struct stat st;

	reg->fd = open(path, O_RDWR | O_CLOEXEC);
	if (reg->fd < 0 || fstat(reg->fd, &st) < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	reg->size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode) || reg->size == 0 || reg->size % 512 != 0)
		return wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
				  "not a regular file of a positive multiple of 512 bytes");
	g.nreg = r + 1;
	return 0;
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

/* Where the regions lie on the model disk (wc_disk_place()): offsets
 * (noff of them; auto: the report's partitions) or, with none, one after
 * the other; sets each base and the disk's size. */
static int place_regions(const struct wc_disk_params *p, const uint64_t *offsets,
			 unsigned noff, bool autoplace,
			 struct wc_disk_placement *pl, struct wc_err *err)
{
	uint64_t bytes[MAX_REGIONS], off[MAX_REGIONS];
	unsigned r;

	for (r = 0; r < g.nreg; r++)
		bytes[r] = g.reg[r].size;
	if (autoplace) {
		if (wc_disk_partition_offsets(p, g.nreg, off, err) < 0)
			return -1;
		offsets = off;
	} else if (noff != 0 && noff != g.nreg) {
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "%u --offset for %u images: one each, or auto",
				  noff, g.nreg);
	} else if (noff == 0) {
		offsets = NULL;
	}
	if (wc_disk_place(pl, p, bytes, g.nreg, offsets, err) < 0)
		return -1;
	for (r = 0; r < g.nreg; r++)
		g.reg[r].base = pl->offset[r];
	g.size = pl->capacity_bytes;
	return 0;
}

/* --print-placement: one row a region, where it lies and what a seek
 * inside it and from the region before costs. */
static int print_placement(const struct wc_disk_params *p,
			   const struct wc_disk_placement *pl, struct wc_err *err)
{
	struct wc_disk *d = NULL;
	int rc = -1;

	if (wc_disk_open(&d, p, pl->capacity_bytes, err) < 0)
		return -1;
	if (printf("capacity_bytes\t%" PRIu64 "\n"
		   "region\toffset\tbytes\tfirst_cylinder\tlast_cylinder\t"
		   "outer_mbs\tinner_mbs\tseek_across_ms\tseek_from_previous_ms\n",
		   pl->capacity_bytes) < 0)
		goto free_disk;
	for (unsigned r = 0; r < pl->n; r++) {
		uint64_t s = pl->offset[r] / 512;
		uint64_t e = (pl->offset[r] + pl->bytes[r]) / 512 - 1;
		uint64_t c0 = wc_disk_cylinder(d, s), c1 = wc_disk_cylinder(d, e);
		uint64_t prev = r ? wc_disk_cylinder(d, pl->offset[r - 1] / 512) : c0;

		if (printf("%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
			   "\t%.3f\t%.3f\t%.3f\t%.3f\n", r, pl->offset[r],
			   pl->bytes[r], c0, c1, wc_disk_media_rate(d, s) / 1e6,
			   wc_disk_media_rate(d, e) / 1e6,
			   wc_disk_seek_ns(d, c1 - c0) / 1e6,
			   wc_disk_seek_ns(d, c0 - prev) / 1e6) < 0)
			goto free_disk;
	}
	if (fflush(stdout) != 0)
		goto free_disk;
	rc = 0;
free_disk:
	wc_disk_free(d);
	if (rc < 0 && err && err->kind == WC_ERR_NONE)
		wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			   "cannot write the placement");
	return rc;
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
