/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcrecord - record block-layer traces through the tracefs "blk" tracer.
 *
 * blktrace(8) reads the kernel's relay files under debugfs, which kernel
 * lockdown forbids.  The ftrace "blk" tracer in binary mode emits the same
 * version 7 records through per_cpu/cpuN/trace_pipe, so this program turns
 * those pipes into standard DEV.blktrace.CPU files that blkparse and btt
 * read.  See docs/wcrecord.8.
 *
 * Every tracefs setting changed is written down before it is changed and
 * put back, in reverse order, on every way out short of SIGKILL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buildinfo.h"
#include "format/blktrace_format.h"
#include "exitcodes.h"
#include "input/pack.h"
#include "record/recorder.h"
#include "base/wcerr.h"

#define PROG "wcrecord"
#define MAX_DEVS 16
#define MAX_CPUS 1024
#define PIPE_BUF_SIZE (256 * 1024)
/* A cached name is believed this long; past it the pid may be another
 * process's (pids wrap at pid_max, 32768 by default). */
#define COMM_TRUST_NS 1000000000ull
static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_child;

/* One output file: one device seen from one CPU. */
struct out_file {
	FILE *fp;
	char path[PATH_MAX];
	uint64_t events;
	struct wc_seen *seen;	/* pids announced; NULL until the file's
				 * first record */
};

struct device {
	char name[64];		/* kernel name: loop0, sda, sdb1 */
	uint32_t dev;		/* dev_t in blktrace's encoding */
	struct out_file *files;	/* one per CPU slot */
	uint64_t events;
};

struct cpu_pipe {
	int cpu;
	int fd;
	unsigned char *buf;
	size_t len;		/* bytes waiting to be parsed */
	uint64_t offset;	/* bytes of this pipe consumed so far */
	uint64_t lost0;		/* overrun + dropped at start */
};

struct recorder {
	const char *tracefs;
	const char *outdir;
	struct device devs[MAX_DEVS];
	int ndevs;
	struct cpu_pipe cpus[MAX_CPUS];
	int ncpus;
	int max_cpu;
	struct wc_undo *undo;	/* every setting changed, and the mount */
	struct wc_comms *comms;
	uint64_t comms_loaded;	/* now_ns() of the last saved_cmdlines read */
	uint64_t read_ns;	/* now_ns() before the last trace_pipe read */
	uint64_t events;
	uint64_t foreign;	/* records of devices not asked for */
	uint64_t invalid_bytes;
	uint64_t dropped;
};

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		got_child = 1;
	else
		got_signal = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int read_text(const char *path, char *buf, size_t size,
		     struct wc_err *err)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	n = read(fd, buf, size - 1);
	if (n < 0) {
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET, "%s",
			   strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

/*
 * Sets a tracefs file, noting the old value.  With at_least, a larger
 * number already there is left alone: the kernel rounds
 * saved_cmdlines_size up and then refuses its own rounded value, so it
 * must not be written back.
 */
static int tracefs_set_num(struct recorder *r, const char *file,
			   const char *val, int at_least, struct wc_err *err);

static int tracefs_set(struct recorder *r, const char *file, const char *val,
		       struct wc_err *err)
{
	return tracefs_set_num(r, file, val, 0, err);
}

static int tracefs_set_num(struct recorder *r, const char *file,
			   const char *val, int at_least, struct wc_err *err)
{
	char path[PATH_MAX], cur[4096];

	snprintf(path, sizeof(path), "%s/%s", r->tracefs, file);
	if (read_text(path, cur, sizeof(cur), err) < 0)
		return -1;
	wc_tracefs_value(cur);
	if (at_least && strtoull(cur, NULL, 10) >= strtoull(val, NULL, 10))
		return 0;
	return wc_undo_change(r->undo, path, cur, val, err);
}

#define TRACEFS_DIR "/sys/kernel/tracing"

/*
 * Where tracefs is, mounting it on TRACEFS_DIR when it is nowhere (as
 * trace-cmd and libtracefs do); the mount goes on the undo list, so that
 * only a mount made here is undone.
 */
static const char *find_tracefs(struct wc_undo *undo, struct wc_err *err)
{
	static const char *const dirs[] = {
		TRACEFS_DIR, "/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/current_tracer", dirs[i]);
		if (access(path, F_OK) == 0)
			return dirs[i];
	}
	if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) < 0) {
		wc_err_set(err, WC_ERR_SYSTEM, TRACEFS_DIR, NULL, WC_NO_OFFSET,
			   "tracefs is not mounted and mounting it failed: %s",
			   strerror(errno));
		return NULL;
	}
	if (wc_undo_note_mount(undo, TRACEFS_DIR, err) < 0) {
		umount2(TRACEFS_DIR, 0);
		return NULL;
	}
	return TRACEFS_DIR;
}

/* Accepts "sda", "/dev/sda" or a symlink to it; fills name and dev. */
static int device_resolve(struct device *d, const char *arg,
			  struct wc_err *err)
{
	char real[PATH_MAX], path[PATH_MAX], buf[64];
	const char *base = arg;
	unsigned maj, min;

	if (strchr(arg, '/')) {
		if (!realpath(arg, real))
			return wc_err_set(err, WC_ERR_USAGE, arg, NULL,
					  WC_NO_OFFSET, "%s", strerror(errno));
		base = strrchr(real, '/') + 1;
	}
	snprintf(d->name, sizeof(d->name), "%s", base);
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", d->name);
	if (read_text(path, buf, sizeof(buf), NULL) < 0)
		return wc_err_set(err, WC_ERR_USAGE, arg, NULL, WC_NO_OFFSET,
				  "not a block device");
	if (sscanf(buf, "%u:%u", &maj, &min) != 2)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "unexpected contents '%s'", buf);
	d->dev = WC_DEV_MAKE(maj, min);
	return 0;
}

static int cpus_find(struct recorder *r, struct wc_err *err)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int cpu;

	snprintf(path, sizeof(path), "%s/per_cpu", r->tracefs);
	dir = opendir(path);
	if (!dir)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	r->max_cpu = -1;
	while ((de = readdir(dir))) {
		if (sscanf(de->d_name, "cpu%d", &cpu) != 1 || cpu < 0 ||
		    cpu >= MAX_CPUS || r->ncpus == MAX_CPUS)
			continue;
		r->cpus[r->ncpus].cpu = cpu;
		r->cpus[r->ncpus].fd = -1;
		r->ncpus++;
		if (cpu > r->max_cpu)
			r->max_cpu = cpu;
	}
	closedir(dir);
	if (r->ncpus == 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "no per-CPU buffers");
	return 0;
}

/* Events the ring buffer lost on one CPU so far: overruns plus drops. */
static uint64_t cpu_lost(struct recorder *r, int cpu)
{
	char path[PATH_MAX], buf[1024], *p;
	uint64_t lost = 0;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", r->tracefs, cpu);
	if (read_text(path, buf, sizeof(buf), NULL) < 0)
		return 0;
	/* "\n" first: "commit overrun:" counts something else. */
	if ((p = strstr(buf, "\noverrun: ")))
		lost += strtoull(p + 10, NULL, 10);
	if ((p = strstr(buf, "dropped events: ")))
		lost += strtoull(p + 16, NULL, 10);
	return lost;
}

static int files_open(struct recorder *r, struct wc_err *err)
{
	int i, c;

	for (i = 0; i < r->ndevs; i++) {
		struct device *d = &r->devs[i];

		d->files = calloc((size_t)r->max_cpu + 1, sizeof(*d->files));
		if (!d->files)
			return wc_err_oom(err, NULL, NULL);
		/* blkparse stops at the first missing CPU file, so every
		 * CPU gets one, empty or not. */
		for (c = 0; c <= r->max_cpu; c++) {
			struct out_file *f = &d->files[c];

			snprintf(f->path, sizeof(f->path), "%s/%s.blktrace.%d",
				 r->outdir, d->name, c);
			f->fp = fopen(f->path, "we");
			if (!f->fp)
				return wc_err_set(err, WC_ERR_SYSTEM, f->path,
						  NULL, WC_NO_OFFSET, "%s",
						  strerror(errno));
		}
	}
	return 0;
}

static int files_close(struct recorder *r, struct wc_err *err)
{
	int i, c, rc = 0;

	for (i = 0; i < r->ndevs; i++) {
		struct device *d = &r->devs[i];

		if (!d->files)
			continue;
		for (c = 0; c <= r->max_cpu; c++) {
			struct out_file *f = &d->files[c];

			if (f->fp && fclose(f->fp) != 0) {
				wc_err_set(err, WC_ERR_SYSTEM, f->path, NULL,
					   WC_NO_OFFSET, "%s", strerror(errno));
				rc = -1;
			}
			f->fp = NULL;
			wc_seen_free(f->seen);
			f->seen = NULL;
		}
		free(d->files);
		d->files = NULL;
	}
	return rc;
}

/* Loads saved_cmdlines ("PID COMM" lines): the names the tracer saw. */
static void comms_load(struct recorder *r)
{
	char path[PATH_MAX];
	FILE *fp;

	r->comms_loaded = now_ns();
	snprintf(path, sizeof(path), "%s/saved_cmdlines", r->tracefs);
	fp = fopen(path, "re");
	if (!fp)
		return;
	wc_comms_load(r->comms, fp, r->comms_loaded);
	fclose(fp);
}

/*
 * The name of pid as the tracer saw it.  saved_cmdlines is read again
 * only when a name is missing or too old and it has not been read since
 * the records in hand were: a read then covers every one of them, so it
 * is read at most once per trace_pipe read, not once per new pid.
 */
static const char *comm_of(struct recorder *r, uint32_t pid)
{
	char path[64], comm[WC_COMM_LEN];
	uint64_t now = now_ns(), learned = 0;
	const char *name = wc_comms_get(r->comms, pid, &learned);

	if (name && now - learned < COMM_TRUST_NS)
		return name;
	if (r->comms_loaded < r->read_ns) {
		comms_load(r);
		name = wc_comms_get(r->comms, pid, &learned);
		if (name && learned == r->comms_loaded)
			return name;
	}
	/*
	 * Not in the tracer's cmdline cache (the kernel saves names with a
	 * trylock and skips one now and then): ask /proc while the process
	 * may still be there.  An old name is not used: the pid may have
	 * been reused.
	 */
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (read_text(path, comm, sizeof(comm), NULL) < 0)
		return NULL;
	return wc_comms_put(r->comms, pid, comm, now);
}

/*
 * blkparse learns process names only from PROCESS notify records, which
 * the ftrace tracer never writes; one goes in front of each pid's first
 * record in each file, so it precedes the pid's events in time order.
 */
static int notify_process(struct recorder *r, struct out_file *f,
			  const struct wc_event *ev, struct wc_err *err)
{
	unsigned char rec[WC_BLK_V8_SIZE + WC_COMM_LEN];
	const char *comm;
	ssize_t n;

	if (!f->seen && !(f->seen = wc_seen_open(err)))
		return -1;
	if (wc_seen_mark(f->seen, ev->pid))
		return 0;
	comm = comm_of(r, ev->pid);
	if (!comm)
		return 0;
	/* Same version as the records around it: one version per file. */
	n = wc_record_process(rec, sizeof(rec), ev, comm, ev->version, err);
	if (n < 0)
		return -1;
	if (fwrite(rec, (size_t)n, 1, f->fp) != 1)
		return wc_err_set(err, WC_ERR_SYSTEM, f->path, NULL,
				  WC_NO_OFFSET, "%s", strerror(errno));
	return 0;
}

static struct device *device_of(struct recorder *r, uint32_t dev)
{
	int i;

	for (i = 0; i < r->ndevs; i++)
		if (r->devs[i].dev == dev)
			return &r->devs[i];
	return NULL;
}

/*
 * Parses the complete records waiting in one pipe's buffer with the
 * decoder's checks (wc_record_frame()): a record is kept whole, a byte
 * that starts none is skipped, a partial record stays for the next read.
 */
static int pipe_parse(struct recorder *r, struct cpu_pipe *p,
		      struct wc_err *err)
{
	size_t pos = 0;

	while (pos < p->len) {
		const unsigned char *rec = p->buf + pos;
		struct wc_event ev;
		struct out_file *f;
		struct device *d;
		size_t total;
		int fr = wc_record_frame(rec, p->len - pos, &total, &ev, err);

		if (fr < 0)
			return -1;
		if (fr == WC_FRAME_PARTIAL)
			break;
		if (fr == WC_FRAME_INVALID) {
			/* Not a record boundary: on to the next byte. */
			r->invalid_bytes++;
			pos++;
			continue;
		}
		if (ev.cpu != (uint32_t)p->cpu) {
			/* The pipe is the authority on the CPU. */
			r->invalid_bytes += total;
			pos += total;
			continue;
		}
		d = device_of(r, ev.device);
		if (!d) {
			r->foreign++;
			pos += total;
			continue;
		}
		f = &d->files[ev.cpu];
		if (notify_process(r, f, &ev, err) < 0)
			return -1;
		if (fwrite(rec, total, 1, f->fp) != 1)
			return wc_err_set(err, WC_ERR_SYSTEM, f->path, NULL,
					  WC_NO_OFFSET, "%s", strerror(errno));
		f->events++;
		d->events++;
		r->events++;
		pos += total;
	}
	p->offset += pos;
	memmove(p->buf, p->buf + pos, p->len - pos);
	p->len -= pos;
	return 0;
}

/* Reads what one pipe has; returns 1 if it gave bytes, 0 if empty. */
static int pipe_read(struct recorder *r, struct cpu_pipe *p,
		     struct wc_err *err)
{
	ssize_t n;

	if (p->len == PIPE_BUF_SIZE) {
		/* A full buffer with no complete record: cannot happen with
		 * payloads capped at WC_RECORD_MAX_PDU, but never spin on it. */
		r->invalid_bytes += p->len;
		p->len = 0;
	}
	/* Whatever this read returns was traced before now. */
	r->read_ns = now_ns();
	n = read(p->fd, p->buf + p->len, PIPE_BUF_SIZE - p->len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "cpu%d trace_pipe: %s", p->cpu,
				  strerror(errno));
	}
	if (n == 0)
		return 0;
	p->len += (size_t)n;
	if (pipe_parse(r, p, err) < 0)
		return -1;
	return 1;
}

static int pipes_open(struct recorder *r, struct wc_err *err)
{
	char path[PATH_MAX];
	int i;

	for (i = 0; i < r->ncpus; i++) {
		struct cpu_pipe *p = &r->cpus[i];

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe",
			 r->tracefs, p->cpu);
		p->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (p->fd < 0)
			return wc_err_set(err, WC_ERR_SYSTEM, path, NULL,
					  WC_NO_OFFSET, "%s", strerror(errno));
		p->buf = malloc(PIPE_BUF_SIZE);
		if (!p->buf)
			return wc_err_oom(err, NULL, NULL);
		p->lost0 = cpu_lost(r, p->cpu);
	}
	return 0;
}

static void pipes_close(struct recorder *r)
{
	int i;

	for (i = 0; i < r->ncpus; i++) {
		if (r->cpus[i].fd >= 0)
			close(r->cpus[i].fd);
		r->cpus[i].fd = -1;
		free(r->cpus[i].buf);
		r->cpus[i].buf = NULL;
	}
}

/* Empties every pipe; used once tracing is off, so it ends. */
static int pipes_drain(struct recorder *r, struct wc_err *err)
{
	int i, got;

	do {
		got = 0;
		for (i = 0; i < r->ncpus; i++) {
			int n = pipe_read(r, &r->cpus[i], err);

			if (n < 0)
				return -1;
			got |= n;
		}
	} while (got);
	for (i = 0; i < r->ncpus; i++) {
		r->dropped += cpu_lost(r, r->cpus[i].cpu) - r->cpus[i].lost0;
		/* Bytes of a record cut off when tracing stopped. */
		r->invalid_bytes += r->cpus[i].len;
	}
	return 0;
}

/* Puts the tracer into binary blk mode and enables each device. */
static int tracing_start(struct recorder *r, unsigned buffer_kb,
			 struct wc_err *err)
{
	char path[PATH_MAX], cur[256], val[32];
	int i;

	snprintf(path, sizeof(path), "%s/current_tracer", r->tracefs);
	if (read_text(path, cur, sizeof(cur), err) < 0)
		return -1;
	if (strcmp(cur, "nop") != 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "tracer '%s' is in use; wcrecord needs it to be nop",
				  cur);
	for (i = 0; i < r->ndevs; i++) {
		snprintf(path, sizeof(path), "/sys/class/block/%s/trace/enable",
			 r->devs[i].name);
		if (read_text(path, cur, sizeof(cur), err) < 0)
			return -1;
		if (strcmp(cur, "0") != 0)
			return wc_err_set(err, WC_ERR_SYSTEM, path, NULL,
					  WC_NO_OFFSET,
					  "%s is already being traced",
					  r->devs[i].name);
	}
	snprintf(val, sizeof(val), "%u", buffer_kb);
	if (tracefs_set(r, "tracing_on", "0", err) < 0 ||
	    tracefs_set(r, "trace_clock", "mono", err) < 0 ||
	    tracefs_set(r, "buffer_size_kb", val, err) < 0 ||
	    tracefs_set_num(r, "saved_cmdlines_size", "32768", 1, err) < 0 ||
	    tracefs_set(r, "options/record-cmd", "1", err) < 0 ||
	    tracefs_set(r, "options/bin", "1", err) < 0 ||
	    tracefs_set(r, "options/context-info", "0", err) < 0 ||
	    tracefs_set(r, "current_tracer", "blk", err) < 0)
		return -1;
	/* Setting the tracer empties the buffers, but an old reader may
	 * have left some behind: start clean. */
	snprintf(path, sizeof(path), "%s/trace", r->tracefs);
	if (wc_sysfs_write(path, "", err) < 0)
		return -1;
	if (pipes_open(r, err) < 0)
		return -1;
	for (i = 0; i < r->ndevs; i++) {
		snprintf(path, sizeof(path), "/sys/class/block/%s/trace/enable",
			 r->devs[i].name);
		if (wc_undo_change(r->undo, path, "0", "1", err) < 0)
			return -1;
	}
	return tracefs_set(r, "tracing_on", "1", err);
}

/* Turns the devices' tracing off, keeping every other setting. */
static int devices_stop(struct recorder *r, struct wc_err *err)
{
	char path[PATH_MAX];
	int i, rc = 0;

	for (i = 0; i < r->ndevs; i++) {
		snprintf(path, sizeof(path), "/sys/class/block/%s/trace/enable",
			 r->devs[i].name);
		if (wc_sysfs_write(path, "0", err) < 0)
			rc = -1;
	}
	return rc;
}

static int run_loop(struct recorder *r, pid_t child, int *child_status,
		    double seconds, struct wc_err *err)
{
	struct pollfd pfd[MAX_CPUS];
	uint64_t deadline = 0;
	int i;

	if (seconds > 0)
		deadline = now_ns() + (uint64_t)(seconds * 1e9);
	for (i = 0; i < r->ncpus; i++) {
		pfd[i].fd = r->cpus[i].fd;
		pfd[i].events = POLLIN;
	}
	for (;;) {
		if (got_signal && child > 0) {
			/* Let the command go first so its I/O is traced. */
			kill(child, got_signal);
			got_signal = 0;
		} else if (got_signal) {
			return 0;
		}
		if (child > 0 && got_child) {
			got_child = 0;
			if (waitpid(child, child_status, WNOHANG) == child)
				return 0;
		}
		if (deadline && now_ns() >= deadline)
			return 0;
		/* Short timeout: signals and the deadline are checked here,
		 * and trace_pipe only wakes pollers after a page fills. */
		if (poll(pfd, (nfds_t)r->ncpus, 100) < 0 && errno != EINTR)
			return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL,
					  WC_NO_OFFSET, "poll: %s",
					  strerror(errno));
		for (i = 0; i < r->ncpus; i++)
			if (pipe_read(r, &r->cpus[i], err) < 0)
				return -1;
	}
}

/* The signals wcrecord stops on (and SIGCHLD, its command's end). */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
}

static pid_t command_start(char **argv, struct wc_err *err)
{
	sigset_t stops, old;
	pid_t pid;

	/* Held from the fork until the command's handlers are its own
	 * again: a signal forwarded at once (run_loop()) must end the
	 * command, not run wcrecord's handler in the child. */
	stop_signals(&stops);
	sigprocmask(SIG_BLOCK, &stops, &old);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		wc_err_set(err, WC_ERR_SYSTEM, argv[0], NULL, WC_NO_OFFSET,
			   "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: %s\n", PROG, argv[0], strerror(errno));
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

static int stats_write(struct recorder *r, const char *path,
		       struct wc_err *err)
{
	FILE *fp = fopen(path, "we");
	int i;

	if (!fp)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	fprintf(fp, "recorder = tracefs\n");
	fprintf(fp, "events = %" PRIu64 "\n", r->events);
	fprintf(fp, "events_dropped = %" PRIu64 "\n", r->dropped);
	fprintf(fp, "invalid_bytes = %" PRIu64 "\n", r->invalid_bytes);
	for (i = 0; i < r->ndevs; i++)
		fprintf(fp, "device.%s.events = %" PRIu64 "\n", r->devs[i].name,
			r->devs[i].events);
	if (fclose(fp) != 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	return 0;
}

/*
 * --counters WHEN DEV...: one counters.tsv row (docs/capture-format.md)
 * per device: the kernel's own I/O counters, /sys/class/block/DEV/stat
 * (Documentation/admin-guide/iostats.rst: 17 fields on 6.x, 15 or 11 on
 * older kernels, 4 for a partition before 2.6.25), read between two
 * readings of the trace clock, so that the analysis knows which
 * completions the reading holds and which it may hold.  A partition
 * names the disk that holds it (the trace is the disk's).
 */
static int counters_row(FILE *out, const char *when, const char *arg,
			struct wc_err *err)
{
	char path[PATH_MAX], real[PATH_MAX], stat[1024], disk[64];
	const char *name = arg, *p;
	uint64_t t0, t1;
	size_t n = 0;
	char *q;

	if (strchr(arg, '/')) {
		if (!realpath(arg, real))
			return wc_err_set(err, WC_ERR_USAGE, arg, NULL,
					  WC_NO_OFFSET, "%s", strerror(errno));
		name = strrchr(real, '/') + 1;
	}
	if (!*name || strlen(name) >= sizeof(disk) || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return wc_err_set(err, WC_ERR_USAGE, arg, NULL, WC_NO_OFFSET,
				  "not a block device");
	snprintf(disk, sizeof(disk), "%s", name);
	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	if (access(path, F_OK) == 0) {
		/* /sys/devices/.../DISK/PART: the parent is the disk. */
		snprintf(path, sizeof(path), "/sys/class/block/%s", name);
		if (realpath(path, real) && (q = strrchr(real, '/'))) {
			*q = '\0';
			if ((q = strrchr(real, '/')) && strlen(q + 1) < sizeof(disk))
				snprintf(disk, sizeof(disk), "%s", q + 1);
		}
	}
	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", name);
	t0 = now_ns();
	if (read_text(path, stat, sizeof(stat), NULL) < 0)
		return wc_err_set(err, WC_ERR_USAGE, arg, NULL, WC_NO_OFFSET,
				  "not a block device (no %s)", path);
	t1 = now_ns();
	/* The fields as the kernel printed them, one space between. */
	fprintf(out, "%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t", when, name,
		disk, t0, t1);
	for (p = stat; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n')
			continue;
		if (n++ && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n'))
			putc(' ', out);
		if (*p < '0' || *p > '9')
			return wc_err_set(err, WC_ERR_SYSTEM, path, NULL,
					  WC_NO_OFFSET, "not a stat file");
		putc(*p, out);
	}
	putc('\n', out);
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: wcrecord -d DEV [-d DEV]... -o DIR [-b KB] [-w SECONDS]\n"
		"                [--ready FILE] [--stats FILE] [--undo FILE]\n"
		"                [--] [COMMAND [ARG]...]\n"
		"       wcrecord --restore FILE\n"
		"       wcrecord --now\n"
		"       wcrecord --counters before|after DEV...\n"
		"       wcrecord --pack DIR >NAME.tar.gz\n"
		"       wcrecord --help | --version\n");
}

static void report(const struct wc_err *err)
{
	char buf[2048];

	fprintf(stderr, "%s: %s\n", PROG, wc_err_format(err, buf, sizeof(buf)));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "seconds", required_argument, NULL, 'w' },
		{ "ready", required_argument, NULL, 'r' },
		{ "stats", required_argument, NULL, 's' },
		{ "undo", required_argument, NULL, 'u' },
		{ "restore", required_argument, NULL, 'R' },
		{ "now", no_argument, NULL, 'n' },
		{ "counters", required_argument, NULL, 'k' },
		{ "pack", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct recorder rec;
	struct recorder *r = &rec;
	const char *ready = NULL, *stats = NULL;
	unsigned long buffer_kb = 65536;
	double seconds = 0;
	struct sigaction sa;
	sigset_t stops;
	struct wc_err err;
	const char *undo = NULL, *restore = NULL, *counters = NULL, *pack = NULL;
	int status = 0, rc = WC_EXIT_OK, c, i;
	pid_t child = 0;
	char *end;

	wc_err_clear(&err);
	while ((c = getopt_long(argc, argv, "+d:o:b:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (r->ndevs == MAX_DEVS) {
				fprintf(stderr, "%s: at most %d devices\n",
					PROG, MAX_DEVS);
				return WC_EXIT_USAGE;
			}
			if (device_resolve(&r->devs[r->ndevs], optarg,
					   &err) < 0) {
				report(&err);
				return WC_EXIT_USAGE;
			}
			for (i = 0; i < r->ndevs; i++)
				if (r->devs[i].dev == r->devs[r->ndevs].dev)
					break;
			if (i == r->ndevs)
				r->ndevs++;
			break;
		case 'o':
			r->outdir = optarg;
			break;
		case 'b':
			buffer_kb = strtoul(optarg, &end, 10);
			if (*end || buffer_kb < 64 || buffer_kb > 4194304) {
				fprintf(stderr, "%s: -b %s: not a buffer size in KB (64..4194304)\n",
					PROG, optarg);
				return WC_EXIT_USAGE;
			}
			break;
		case 'w':
			seconds = strtod(optarg, &end);
			if (*end || !(seconds > 0)) {
				fprintf(stderr, "%s: -w %s: not a number of seconds\n",
					PROG, optarg);
				return WC_EXIT_USAGE;
			}
			break;
		case 'r':
			ready = optarg;
			break;
		case 's':
			stats = optarg;
			break;
		case 'u':
			undo = optarg;
			break;
		case 'R':
			restore = optarg;
			break;
		case 'n':
			printf("%" PRIu64 "\n", now_ns());
			return WC_EXIT_OK;
		case 'k':
			if (strcmp(optarg, "before") && strcmp(optarg, "after")) {
				fprintf(stderr, "%s: --counters %s: not before or after\n",
					PROG, optarg);
				return WC_EXIT_USAGE;
			}
			counters = optarg;
			break;
		case 'P':
			pack = optarg;
			break;
		case 'h':
			usage(stdout);
			return WC_EXIT_OK;
		case 'V':
			printf("wcrecord %s\n", wc_version);
			return WC_EXIT_OK;
		default:
			usage(stderr);
			return WC_EXIT_USAGE;
		}
	}
	if (counters) {
		if (optind == argc) {
			fprintf(stderr, "%s: --counters %s: no device given\n",
				PROG, counters);
			return WC_EXIT_USAGE;
		}
		for (i = optind; i < argc; i++)
			if (counters_row(stdout, counters, argv[i], &err) < 0) {
				report(&err);
				return WC_EXIT_USAGE;
			}
		if (fflush(stdout) != 0) {
			fprintf(stderr, "%s: standard output: %s\n", PROG,
				strerror(errno));
			return WC_EXIT_FAILURE;
		}
		return WC_EXIT_OK;
	}
	if (pack) {
		if (optind < argc) {
			fprintf(stderr, "%s: --pack %s: %s: one folder only\n",
				PROG, pack, argv[optind]);
			return WC_EXIT_USAGE;
		}
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, "%s: --pack %s: standard output is a "
				"terminal; redirect it to NAME.tar.gz\n", PROG, pack);
			return WC_EXIT_USAGE;
		}
		if (wc_pack_capture(pack, STDOUT_FILENO, &err) < 0) {
			report(&err);
			return err.kind == WC_ERR_SYSTEM ? WC_EXIT_FAILURE :
							   WC_EXIT_INPUT;
		}
		return WC_EXIT_OK;
	}
	if (restore) {
		if (wc_undo_restore_file(restore, "/sys/", &err) < 0) {
			report(&err);
			return WC_EXIT_FAILURE;
		}
		return WC_EXIT_OK;
	}
	if (r->ndevs == 0 || !r->outdir) {
		fprintf(stderr, "%s: %s\n", PROG,
			r->ndevs == 0 ? "no device given (-d DEV)" :
					"no output directory given (-o DIR)");
		usage(stderr);
		return WC_EXIT_USAGE;
	}
	/* Before the mount: a signal must not skip its undoing. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	/* A recorder that inherited these blocked could not be stopped,
	 * and one pending would never arrive. */
	stop_signals(&stops);
	sigprocmask(SIG_UNBLOCK, &stops, NULL);

	r->undo = wc_undo_open(undo, "/sys/", &err);
	if (!r->undo) {
		report(&err);
		return WC_EXIT_FAILURE;
	}
	r->comms = wc_comms_open(&err);
	if (!r->comms)
		goto fail_undo;
	r->tracefs = find_tracefs(r->undo, &err);
	if (!r->tracefs)
		goto fail_undo;
	if (mkdir(r->outdir, 0755) < 0 && errno != EEXIST) {
		wc_err_set(&err, WC_ERR_SYSTEM, r->outdir, NULL, WC_NO_OFFSET,
			   "%s", strerror(errno));
		goto fail_undo;
	}

	if (cpus_find(r, &err) < 0 || files_open(r, &err) < 0)
		goto fail_files;
	if (tracing_start(r, (unsigned)buffer_kb, &err) < 0)
		goto fail_tracing;
	if (ready) {
		FILE *fp = fopen(ready, "we");

		if (!fp || fclose(fp) != 0) {
			wc_err_set(&err, WC_ERR_SYSTEM, ready, NULL,
				   WC_NO_OFFSET, "%s", strerror(errno));
			goto fail_tracing;
		}
	}
	if (optind < argc) {
		child = command_start(argv + optind, &err);
		if (child < 0)
			goto fail_tracing;
	}
	/* Even when a signal came already: a command started must get it,
	 * and its end is waited for. */
	if (run_loop(r, child, &status, seconds, &err) < 0)
		goto fail_tracing;
	if (devices_stop(r, &err) < 0 || pipes_drain(r, &err) < 0)
		goto fail_tracing;
	/* The tracer cannot change while its pipes are open. */
	pipes_close(r);
	if (wc_undo_restore(r->undo, &err) < 0)
		goto fail_files;
	if (files_close(r, &err) < 0 || (stats && stats_write(r, stats, &err) < 0))
		goto fail_undo;
	fprintf(stderr, "%s: %" PRIu64 " events recorded, %" PRIu64 " dropped\n",
		PROG, r->events, r->dropped);
	if (r->invalid_bytes) {
		fprintf(stderr, "%s: %" PRIu64 " bytes of the trace pipes were not valid records\n",
			PROG, r->invalid_bytes);
		rc = WC_EXIT_FAILURE;
	}
	if (child > 0) {
		if (WIFSIGNALED(status)) {
			fprintf(stderr, "%s: %s: killed by signal %d\n", PROG,
				argv[optind], WTERMSIG(status));
			rc = WTERMSIG(status) == SIGINT ? WC_EXIT_INTERRUPTED :
							 WC_EXIT_FAILURE;
		} else if (WEXITSTATUS(status) != 0) {
			fprintf(stderr, "%s: %s: exited with status %d\n", PROG,
				argv[optind], WEXITSTATUS(status));
			rc = WC_EXIT_FAILURE;
		}
	}
	goto free_undo;

fail_tracing:
	devices_stop(r, NULL);
	pipes_close(r);
	wc_undo_restore(r->undo, NULL);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
fail_files:
	pipes_close(r);
	files_close(r, NULL);
fail_undo:
	report(&err);
	rc = WC_EXIT_FAILURE;
free_undo:
	/* Empty but for the mount when the recording could not start. */
	wc_err_clear(&err);
	if (wc_undo_restore(r->undo, &err) < 0) {
		report(&err);
		rc = WC_EXIT_FAILURE;
	}
	wc_undo_free(r->undo);
	wc_comms_free(r->comms);
	return rc;
}
