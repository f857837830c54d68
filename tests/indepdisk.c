// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * indepdisk.c - a second disk model for the tests, independent of the
 * project's (it shares no code with analyze/lib/disk or wcdisk, and its
 * costs follow other rules): one file, "disk", over an image, served
 * through FUSE one request at a time, each taking the time a simple
 * drive with a write-back cache of its own design would:
 *
 *   read   positioning + bytes / media rate, where positioning is the
 *          seek from the head to the read plus half a revolution, none
 *          when the read starts where the head is;
 *   write  absorbed: a command overhead of 2 ms (the cache's handling,
 *          neither positioning nor transfer) + bytes / interface rate;
 *          the range is remembered, never merged with another;
 *   fsync  (a cache flush) every remembered range in order of offset,
 *          each positioned as a read is and transferred at the media
 *          rate, then the cache is empty.
 *
 * The seek is settle + stroke * sqrt(distance / capacity), one media
 * rate for the whole image (no zones), no command overhead on a read or a
 * flush: so all of their time that is not transfer is positioning, which
 * is what a trace can estimate, while an absorbed write's overhead is
 * what a trace must not call positioning.  The data itself goes to the
 * image at once (the cache is only time).
 *
 *   indepdisk LEDGER IMAGE MOUNTPOINT
 *
 * serves MOUNTPOINT/disk until unmounted (fusermount3 -u), in the
 * foreground.  LEDGER gets one line per request, tab-separated:
 *   op start_ns end_ns offset bytes positioning_ns transfer_ns overhead_ns
 * (op R, W or F; CLOCK_MONOTONIC, the clock of the kernel's traces).
 */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A slow drive of 2008: 5,400 rpm, 60 MB/s everywhere, a 1.5 ms settle
 * and 12 ms more across the whole image, a 150 MB/s interface. */
#define HALF_REV_NS  5555556ull
#define MEDIA_BPS    60000000.0
#define IFACE_BPS    150000000.0
#define SETTLE_NS    1500000.0
#define STROKE_NS    12000000.0
#define WRITE_OVERHEAD_NS 2000000ull
#define MAX_RANGES   65536

struct range {
	off_t off;
	size_t len;
};

static struct {
	int fd;
	FILE *ledger;
	off_t size;
	off_t head;
	struct range dirty[MAX_RANGES];
	size_t ndirty;
} d;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleeps until the request started at START has taken NS. */
static void take(uint64_t start, uint64_t ns)
{
	uint64_t end = start + ns;
	struct timespec ts = { (time_t)(end / 1000000000ull),
			       (long)(end % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Positioning from the head to OFF, and the head moved there. */
static uint64_t position(off_t off)
{
	off_t dist = off > d.head ? off - d.head : d.head - off;
	double frac;

	if (dist == 0)
		return 0;
	frac = d.size > 0 ? (double)dist / (double)d.size : 1.0;
	if (frac > 1.0)
		frac = 1.0;
	return (uint64_t)(SETTLE_NS + STROKE_NS * sqrt(frac)) + HALF_REV_NS;
}

static uint64_t media(size_t len)
{
	return (uint64_t)((double)len / MEDIA_BPS * 1e9);
}

static void ledger(char op, uint64_t start, uint64_t end, off_t off,
		   size_t len, uint64_t pos, uint64_t xfer, uint64_t over)
{
	fprintf(d.ledger, "%c\t%llu\t%llu\t%lld\t%zu\t%llu\t%llu\t%llu\n",
		op, (unsigned long long)start, (unsigned long long)end,
		(long long)off, len, (unsigned long long)pos,
		(unsigned long long)xfer, (unsigned long long)over);
	fflush(d.ledger);
}

static int by_offset(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Destages every remembered range: the flush. */
static void destage(uint64_t start)
{
	uint64_t pos = 0, xfer = 0;
	size_t i;

	qsort(d.dirty, d.ndirty, sizeof(d.dirty[0]), by_offset);
	for (i = 0; i < d.ndirty; i++) {
		pos += position(d.dirty[i].off);
		xfer += media(d.dirty[i].len);
		d.head = d.dirty[i].off + (off_t)d.dirty[i].len;
	}
	d.ndirty = 0;
	take(start, pos + xfer);
	ledger('F', start, now_ns(), 0, 0, pos, xfer, 0);
}

static int op_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/disk") == 0) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = d.size;
		return 0;
	}
	return -ENOENT;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	return 0;
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/disk") != 0)
		return -ENOENT;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int op_read(const char *path, char *buf, size_t len, off_t off,
		   struct fuse_file_info *fi)
{
	uint64_t start = now_ns(), pos, xfer;
	ssize_t n;

	(void)path;
	(void)fi;
	pos = position(off);
	n = pread(d.fd, buf, len, off);
	if (n < 0)
		return -errno;
	xfer = media((size_t)n);
	d.head = off + n;
	take(start, pos + xfer);
	ledger('R', start, now_ns(), off, (size_t)n, pos, xfer, 0);
	return (int)n;
}

static int op_write(const char *path, const char *buf, size_t len,
		    off_t off, struct fuse_file_info *fi)
{
	uint64_t start = now_ns(), xfer;
	ssize_t n;

	(void)path;
	(void)fi;
	n = pwrite(d.fd, buf, len, off);
	if (n < 0)
		return -errno;
	/* a cache that is full destages first, as a flush would */
	if (d.ndirty == MAX_RANGES) {
		destage(start);
		start = now_ns();
	}
	d.dirty[d.ndirty].off = off;
	d.dirty[d.ndirty].len = (size_t)n;
	d.ndirty++;
	xfer = (uint64_t)((double)n / IFACE_BPS * 1e9);
	take(start, WRITE_OVERHEAD_NS + xfer);
	ledger('W', start, now_ns(), off, (size_t)n, 0, xfer,
	       WRITE_OVERHEAD_NS);
	return (int)n;
}

static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	(void)datasync;
	(void)fi;
	destage(now_ns());
	return 0;
}

static const struct fuse_operations ops = {
	.getattr = op_getattr,
	.readdir = op_readdir,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.fsync = op_fsync,
};

int main(int argc, char **argv)
{
	char *fargv[6];
	struct stat st;

	if (argc != 4) {
		fprintf(stderr, "usage: indepdisk LEDGER IMAGE MOUNTPOINT\n");
		return 2;
	}
	d.ledger = fopen(argv[1], "w");
	if (!d.ledger) {
		fprintf(stderr, "indepdisk: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	d.fd = open(argv[2], O_RDWR);
	if (d.fd < 0 || fstat(d.fd, &st) < 0) {
		fprintf(stderr, "indepdisk: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	d.size = st.st_size;
	fprintf(d.ledger, "op\tstart_ns\tend_ns\toffset\tbytes\tpositioning_ns"
		"\ttransfer_ns\toverhead_ns\n");
	/* one request at a time, in the foreground */
	fargv[0] = argv[0];
	fargv[1] = "-f";
	fargv[2] = "-s";
	fargv[3] = "-o";
	fargv[4] = "fsname=indepdisk";
	fargv[5] = argv[3];
	return fuse_main(6, fargv, &ops, NULL);
}
