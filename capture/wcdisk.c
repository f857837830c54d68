/*
 * wcdisk - a model disk: serves one image file through FUSE and answers
 * each request only when a disk model says the disk would have finished.
 *
 * The image appears as MOUNTPOINT/disk.  A loop device attached to that
 * file sends every read and write of the filesystem on it here (the file
 * is opened in direct-I/O mode, so the page cache stays out), and its
 * flushes arrive as fsync.  One thread serves one request at a time, as
 * one actuator does.  The model is analyze/lib/diskmodel.h; every request
 * served is one row of the ledger (docs/capture-format.md, ledger.tsv).
 * See docs/wcdisk.8.
 */
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diskmodel.h"
#include "exitcodes.h"
#include "wcerr.h"

#define PROG "wcdisk"
#define FILE_NAME "disk"
#define MAX_WRITE (1024 * 1024)

static struct {
	int fd;
	uint64_t size;
	struct wc_disk *disk;
	FILE *ledger;
	const char *ledger_path;
	const char *ready_path;
	bool ledger_failed;
	uint64_t requests;
	uint64_t late_max;
} g = { .fd = -1 };

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: wcdisk [--disk FILE] [--param KEY=VALUE]... [--ledger FILE]\n"
		"              [--ready FILE] IMAGE MOUNTPOINT\n"
		"       wcdisk [--disk FILE] [--param KEY=VALUE]... --print-params\n"
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
	      "      --ready FILE      create FILE once the kernel has connected\n"
	      "      --print-params    print every parameter as it would be used, exit\n"
	      "  -h, --help            show this help and exit\n"
	      "  -V, --version         show the version and exit\n", fp);
}

/* A bad command line: the mistake on one line (wccapture shows it to its
 * user as it is), then where the help is. */
static int usage_error(const struct wc_err *err, const char *what)
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

static void record_row(const struct wc_disk_cost *c)
{
	if (g.ledger && wc_disk_ledger_row(g.ledger, c) < 0)
		g.ledger_failed = true;
}

/* After the answer: the ledger rows (their write costs nobody), in time
 * order: the idle period's destage before the command, the command, the
 * destage it waited for. */
static void record(const struct wc_disk_cost *c)
{
	const struct wc_disk_cost *rows;
	size_t n = wc_disk_destaged(g.disk, &rows), i;

	for (i = 0; i < n; i++)
		if (rows[i].cause_seq == 0)
			record_row(&rows[i]);
	record_row(c);
	for (i = 0; i < n; i++)
		if (rows[i].cause_seq != 0)
			record_row(&rows[i]);
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	FILE *fp;

	/* one large request stays one request where the kernel allows it */
	conn->max_write = MAX_WRITE;
	conn->want &= ~FUSE_CAP_ASYNC_READ;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 3600;
	cfg->entry_timeout = 3600;
	if (g.ready_path) {
		fp = fopen(g.ready_path, "w");
		if (fp)
			fclose(fp);
	}
	return NULL;
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, "/" FILE_NAME) == 0) {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = (off_t)g.size;
		st->st_blocks = (blkcnt_t)(g.size / 512);
		return 0;
	}
	return -ENOENT;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, FILE_NAME, NULL, 0, 0);
	return 0;
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/" FILE_NAME) != 0)
		return -ENOENT;
	/* the page cache would answer reads and absorb writes without us */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)path, (void)fi;
	return (uint64_t)size == g.size ? 0 : -EPERM;
}

static int op_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct wc_disk_cost c;
	uint64_t arrival = now_ns();
	ssize_t n;

	(void)path, (void)fi;
	if (off < 0 || (uint64_t)off >= g.size)
		return 0;
	if (size > g.size - (uint64_t)off)
		size = (size_t)(g.size - (uint64_t)off);
	wc_disk_serve(g.disk, WC_DISK_READ, (uint64_t)off, size, false, arrival, &c);
	n = pread(g.fd, buf, size, off);
	finish(&c);
	record(&c);
	return n < 0 ? -errno : (int)n;
}

static int op_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct wc_disk_cost c;
	uint64_t arrival = now_ns();
	ssize_t n;

	(void)path, (void)fi;
	if (off < 0 || (uint64_t)off >= g.size || size > g.size - (uint64_t)off)
		return -ENOSPC;
	wc_disk_serve(g.disk, WC_DISK_WRITE, (uint64_t)off, size, false, arrival, &c);
	n = pwrite(g.fd, buf, size, off);
	finish(&c);
	record(&c);
	return n < 0 ? -errno : (int)n;
}

/* The loop driver turns a flush request (and the post-flush that stands
 * for FUA on a device without FUA) into vfs_fsync: a cache flush.  The
 * image itself needs no fsync: its durability is not what is modelled. */
static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct wc_disk_cost c;

	(void)path, (void)datasync, (void)fi;
	wc_disk_serve(g.disk, WC_DISK_FLUSH, 0, 0, false, now_ns(), &c);
	finish(&c);
	record(&c);
	if (g.ledger && fflush(g.ledger) != 0)
		g.ledger_failed = true;
	return 0;
}

static int op_flush(const char *path, struct fuse_file_info *fi)
{
	(void)path, (void)fi;
	return 0;
}

static int op_fallocate(const char *path, int mode, off_t off, off_t len,
			struct fuse_file_info *fi)
{
	struct wc_disk_cost c;
	uint64_t arrival = now_ns();
	int rc = 0;

	(void)path, (void)fi;
	if (mode != (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	if (off < 0 || len < 0 || (uint64_t)off > g.size ||
	    (uint64_t)len > g.size - (uint64_t)off)
		return -EINVAL;
	wc_disk_serve(g.disk, WC_DISK_DISCARD, (uint64_t)off, (uint64_t)len,
		      false, arrival, &c);
	if (fallocate(g.fd, mode, off, len) < 0)
		rc = -errno;
	finish(&c);
	record(&c);
	return rc;
}

static const struct fuse_operations ops = {
	.init = op_init,
	.getattr = op_getattr,
	.readdir = op_readdir,
	.open = op_open,
	.truncate = op_truncate,
	.read = op_read,
	.write = op_write,
	.fsync = op_fsync,
	.flush = op_flush,
	.fallocate = op_fallocate,
};

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
		{ "print-params", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct wc_disk_params p;
	struct wc_err err;
	struct stat st;
	char msg[1600];
	char *fargv[8];
	int c, fargc = 0, rc = WC_EXIT_FAILURE, print = 0, frc;
	const char *image, *mnt;

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
		case 'h':
			help(stdout);
			rc = WC_EXIT_OK;
			goto free_args;
		case 'V':
			printf("wcdisk %s\n", WC_VERSION);
			rc = WC_EXIT_OK;
			goto free_args;
		default:
			/* getopt_long() has said which option */
			fprintf(stderr, "%s: try 'wcdisk --help'\n", PROG);
			rc = WC_EXIT_USAGE;
			goto free_args;
		}
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
	if (argc - optind != 2) {
		rc = usage_error(NULL, "needs IMAGE and MOUNTPOINT");
		goto free_args;
	}
	image = argv[optind];
	mnt = argv[optind + 1];

	g.fd = open(image, O_RDWR | O_CLOEXEC);
	if (g.fd < 0 || fstat(g.fd, &st) < 0) {
		wc_err_set(&err, WC_ERR_SYSTEM, image, NULL, WC_NO_OFFSET, "%s",
			   strerror(errno));
		goto report;
	}
	g.size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode) || g.size == 0 || g.size % 512 != 0) {
		wc_err_set(&err, WC_ERR_INPUT, image, NULL, WC_NO_OFFSET,
			   "not a regular file of a positive multiple of 512 bytes");
		goto close_image;
	}
	if (wc_disk_open(&g.disk, &p, g.size, &err) < 0)
		goto close_image;
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

	fargv[fargc++] = argv[0];
	fargv[fargc++] = "-f";		/* the caller backgrounds us */
	fargv[fargc++] = "-s";		/* one actuator */
	fargv[fargc++] = "-o";
	fargv[fargc++] = "fsname=wcdisk,subtype=wcdisk";
	fargv[fargc++] = (char *)mnt;
	fargv[fargc] = NULL;
	frc = fuse_main(fargc, fargv, &ops, NULL);
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
	wc_disk_free(g.disk);
close_image:
	if (g.fd >= 0)
		close(g.fd);
report:
	if (rc != WC_EXIT_OK)
		fprintf(stderr, "%s: %s\n", PROG, wc_err_format(&err, msg, sizeof(msg)));
	if (rc != WC_EXIT_OK && err.kind == WC_ERR_INPUT)
		rc = WC_EXIT_INPUT;
free_args:
	return rc;
usage_error:
	rc = usage_error(&err, NULL);
	goto free_args;
}
