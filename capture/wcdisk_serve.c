/* SPDX-License-Identifier: GPL-2.0-or-later */
#define FUSE_USE_VERSION 35

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "disk/datacache.h"
#include "disk/diskmodel.h"
#include "disk/platterlog.h"
#include "wcdisk.h"
#include "wcdisk_platter.h"
#include "wcdisk_serve.h"

#define FILE_NAME "disk"
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

/* ------------------------------------------------------------ files and ledger */

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
int serve_mount(const char *argv0, const char *mnt)
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
