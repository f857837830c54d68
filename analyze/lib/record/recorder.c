/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "format/encode.h"
#include "input/decode.h"
#include "base/map.h"
#include "input/source.h"

enum undo_kind { UNDO_SET, UNDO_UMOUNT };

struct undo_entry {
	enum undo_kind kind;
	char path[WC_UNDO_LINE];
	char old[WC_UNDO_LINE];
};

struct wc_undo {
	char prefix[256];
	char file[WC_UNDO_LINE];	/* empty: in memory only */
	FILE *fp;
	int n;
	struct undo_entry e[WC_UNDO_MAX];
};

int wc_sysfs_write(const char *path, const char *val, struct wc_err *err)
{
	size_t len = strlen(val);
	int fd;

	/* O_TRUNC matters for tracefs's trace file; harmless elsewhere. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	if (write(fd, val, len) != (ssize_t)len) {
		wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
			   "cannot write '%s': %s", val, strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "cannot write '%s': %s", val, strerror(errno));
	return 0;
}

/*
 * Another program may have a file open under dir for a moment (a shell
 * reading current_tracer): give it a second before giving up.
 */
static int unmount_dir(const char *dir, struct wc_err *err)
{
	int n;

	for (n = 0; umount2(dir, 0) < 0; n++) {
		if (errno == EINVAL)	/* not a mount point (any more) */
			return 0;
		if (errno != EBUSY || n == 10)
			return wc_err_set(err, WC_ERR_SYSTEM, dir, NULL,
					  WC_NO_OFFSET, "cannot unmount: %s",
					  strerror(errno));
		usleep(100000);
	}
	return 0;
}

static int entry_undo(const struct undo_entry *e, struct wc_err *err)
{
	return e->kind == UNDO_SET ? wc_sysfs_write(e->path, e->old, err) :
				     unmount_dir(e->path, err);
}

/* What a path or value must be to fit on an undo line and come back. */
static int path_ok(const char *prefix, const char *path)
{
	return path[0] == '/' && strncmp(path, prefix, strlen(prefix)) == 0 &&
	       !strstr(path, "/../") && strlen(path) < WC_UNDO_LINE &&
	       !strpbrk(path, "\t\n");
}

static int value_ok(const char *v)
{
	return strlen(v) < WC_UNDO_LINE && !strpbrk(v, "\t\n");
}

struct wc_undo *wc_undo_open(const char *file, const char *prefix,
			     struct wc_err *err)
{
	struct wc_undo *u;

	if (strlen(prefix) >= sizeof(u->prefix) ||
	    (file && strlen(file) >= sizeof(u->file))) {
		wc_err_set(err, WC_ERR_USAGE, file, NULL, WC_NO_OFFSET,
			   "name too long");
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		wc_err_oom(err, file, NULL);
		return NULL;
	}
	snprintf(u->prefix, sizeof(u->prefix), "%s", prefix);
	if (file) {
		snprintf(u->file, sizeof(u->file), "%s", file);
		u->fp = fopen(file, "we");
		if (!u->fp) {
			wc_err_set(err, WC_ERR_SYSTEM, file, NULL, WC_NO_OFFSET,
				   "%s", strerror(errno));
			free(u);
			return NULL;
		}
	}
	return u;
}

/* Notes e in memory and in the file, flushed, before it is acted on. */
static int undo_note(struct wc_undo *u, enum undo_kind kind, const char *path,
		     const char *old, struct wc_err *err)
{
	struct undo_entry *e;

	if (u->n == WC_UNDO_MAX)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "more than %d settings to restore",
				  WC_UNDO_MAX);
	if (!path_ok(u->prefix, path) || !value_ok(old))
		return wc_err_set(err, WC_ERR_USAGE, path, NULL, WC_NO_OFFSET,
				  "cannot be noted for restoring (outside %s, or a tab or newline in it)",
				  u->prefix);
	if (u->fp) {
		if (kind == UNDO_SET)
			fprintf(u->fp, "set\t%s\t%s\n", path, old);
		else
			fprintf(u->fp, "umount\t%s\n", path);
		if (fflush(u->fp) != 0 || ferror(u->fp))
			return wc_err_set(err, WC_ERR_SYSTEM, u->file, NULL,
					  WC_NO_OFFSET, "%s", strerror(errno));
	}
	e = &u->e[u->n++];
	e->kind = kind;
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->old, sizeof(e->old), "%s", old);
	return 0;
}

int wc_undo_change(struct wc_undo *u, const char *path, const char *old,
		   const char *val, struct wc_err *err)
{
	if (strcmp(old, val) == 0)
		return 0;
	if (undo_note(u, UNDO_SET, path, old, err) < 0)
		return -1;
	return wc_sysfs_write(path, val, err);
}

int wc_undo_note_mount(struct wc_undo *u, const char *dir, struct wc_err *err)
{
	return undo_note(u, UNDO_UMOUNT, dir, "", err);
}

int wc_undo_count(const struct wc_undo *u)
{
	return u ? u->n : 0;
}

int wc_undo_restore(struct wc_undo *u, struct wc_err *err)
{
	int rc = 0;

	while (u->n > 0)
		if (entry_undo(&u->e[--u->n], err) < 0)
			rc = -1;
	if (u->fp) {
		fclose(u->fp);
		u->fp = NULL;
		if (rc == 0 && unlink(u->file) < 0 && errno != ENOENT)
			rc = wc_err_set(err, WC_ERR_SYSTEM, u->file, NULL,
					WC_NO_OFFSET, "%s", strerror(errno));
	}
	return rc;
}

/* Peek a whole line, validate it, then consume it into e. */
static int line_parse(char *line, const char *prefix, struct undo_entry *e)
{
	char *tab, *nl = strchr(line, '\n');

	if (!nl)
		return -1;	/* too long, or cut off */
	*nl = '\0';
	tab = strchr(line, '\t');
	if (!tab)
		return -1;
	*tab = '\0';
	if (strcmp(line, "set") == 0) {
		char *path = tab + 1, *old = strchr(path, '\t');

		if (!old)
			return -1;
		*old++ = '\0';
		if (!path_ok(prefix, path) || !value_ok(old))
			return -1;
		e->kind = UNDO_SET;
		snprintf(e->path, sizeof(e->path), "%s", path);
		snprintf(e->old, sizeof(e->old), "%s", old);
		return 0;
	}
	if (strcmp(line, "umount") == 0 && path_ok(prefix, tab + 1)) {
		e->kind = UNDO_UMOUNT;
		snprintf(e->path, sizeof(e->path), "%s", tab + 1);
		e->old[0] = '\0';
		return 0;
	}
	return -1;
}

int wc_undo_restore_file(const char *file, const char *prefix,
			 struct wc_err *err)
{
	struct wc_undo *u;
	char line[WC_UNDO_LINE * 2 + 16];
	uint64_t offset = 0;
	int rc = -1, ln = 0;
	FILE *fp;

	fp = fopen(file, "re");
	if (!fp) {
		if (errno == ENOENT)
			return 0;
		return wc_err_set(err, WC_ERR_SYSTEM, file, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	}
	u = wc_undo_open(NULL, prefix, err);
	if (!u)
		goto close_file;
	while (fgets(line, sizeof(line), fp)) {
		uint64_t at = offset;

		ln++;
		offset += strlen(line);
		if (u->n == WC_UNDO_MAX) {
			wc_err_set(err, WC_ERR_INPUT, file, NULL, at,
				   "line %d: more than %d settings", ln,
				   WC_UNDO_MAX);
			goto free_undo;
		}
		if (line_parse(line, prefix, &u->e[u->n]) < 0) {
			wc_err_set(err, WC_ERR_INPUT, file, NULL, at,
				   "line %d: not an undo line (set PATH OLD or umount DIR under %s, at most %d bytes)",
				   ln, prefix, WC_UNDO_LINE);
			goto free_undo;
		}
		u->n++;
	}
	if (ferror(fp)) {
		wc_err_set(err, WC_ERR_SYSTEM, file, NULL, WC_NO_OFFSET, "%s",
			   strerror(errno));
		goto free_undo;
	}
	rc = wc_undo_restore(u, err);
	if (rc == 0 && unlink(file) < 0 && errno != ENOENT)
		rc = wc_err_set(err, WC_ERR_SYSTEM, file, NULL, WC_NO_OFFSET,
				"%s", strerror(errno));
free_undo:
	wc_undo_free(u);
close_file:
	fclose(fp);
	return rc;
}

void wc_undo_free(struct wc_undo *u)
{
	if (!u)
		return;
	if (u->fp)
		fclose(u->fp);
	free(u);
}

char *wc_tracefs_value(char *s)
{
	size_t n = strlen(s);
	char *p, *q;

	while (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
	p = strchr(s, '[');
	if (p && (q = strchr(p, ']'))) {
		*q = '\0';
		memmove(s, p + 1, strlen(p + 1) + 1);
	} else if ((p = strstr(s, "(expanded: "))) {
		memmove(s, p + 11, strlen(p + 11) + 1);
		if ((q = strchr(s, ')')))
			*q = '\0';
	}
	return s;
}

/* Pid 0 is a real pid: keys are never 0, which marks an empty slot. */
static uint32_t pid_key(uint32_t pid)
{
	return pid ? pid : ~0u;
}

/* Multiplicative hashing: the top bits are the well-mixed ones. */
static uint32_t pid_hash(uint32_t key, unsigned bits)
{
	return (key * 2654435761u) >> (32 - bits);
}

struct comm_entry {
	char comm[WC_COMM_LEN];
	uint64_t learned;
};

/* Two generations of names: new ones go into the current; when it is
 * full the older is emptied and becomes the current, so the names
 * learned last are always kept. */
struct wc_comms {
	struct wc_map *gen[2];          /* pid -> struct comm_entry */
	int cur;
};

struct wc_comms *wc_comms_open(struct wc_err *err)
{
	struct wc_comms *c = calloc(1, sizeof(*c));
	int g;

	if (!c) {
		wc_err_oom(err, NULL, NULL);
		return NULL;
	}
	for (g = 0; g < 2; g++)
		if (wc_map_open(&c->gen[g], sizeof(struct comm_entry),
				WC_COMMS_SLOTS / 2, err) < 0) {
			wc_comms_free(c);
			return NULL;
		}
	return c;
}

const char *wc_comms_get(const struct wc_comms *c, uint32_t pid,
			 uint64_t *learned)
{
	const struct comm_entry *e = wc_map_get(c->gen[c->cur], pid);

	if (!e)
		e = wc_map_get(c->gen[!c->cur], pid);
	if (!e)
		return NULL;
	*learned = e->learned;
	return e->comm;
}

const char *wc_comms_put(struct wc_comms *c, uint32_t pid, const char *comm,
			 uint64_t now)
{
	struct comm_entry *e = NULL;
	int r = wc_map_put(c->gen[c->cur], pid, (void **)&e, NULL);

	if (r == WC_MAP_FULL) {
		c->cur = !c->cur;
		wc_map_clear(c->gen[c->cur]);
		r = wc_map_put(c->gen[c->cur], pid, (void **)&e, NULL);
	}
	if (r < 0 || !e)
		return NULL;
	e->learned = now;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
	return e->comm;
}

void wc_comms_load(struct wc_comms *c, FILE *fp, uint64_t now)
{
	char line[256], comm[WC_COMM_LEN];
	unsigned pid;

	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%u %15[^\n]", &pid, comm) == 2 &&
		    strcmp(comm, "<...>") != 0)
			wc_comms_put(c, pid, comm, now);
}

void wc_comms_free(struct wc_comms *c)
{
	if (!c)
		return;
	wc_map_free(c->gen[0]);
	wc_map_free(c->gen[1]);
	free(c);
}

struct wc_seen {
	uint32_t key[WC_SEEN_SETS * WC_SEEN_WAYS];
};

struct wc_seen *wc_seen_open(struct wc_err *err)
{
	struct wc_seen *s = calloc(1, sizeof(*s));

	if (!s)
		wc_err_oom(err, NULL, NULL);
	return s;
}

int wc_seen_mark(struct wc_seen *s, uint32_t pid)
{
	uint32_t key = pid_key(pid);
	uint32_t *set = s->key + pid_hash(key, WC_SEEN_BITS) * WC_SEEN_WAYS;
	unsigned n;

	for (n = 0; n < WC_SEEN_WAYS; n++)
		if (set[n] == key)
			return 1;
	memmove(set + 1, set, (WC_SEEN_WAYS - 1) * sizeof(*set));
	set[0] = key;
	return 0;
}

void wc_seen_free(struct wc_seen *s)
{
	free(s);
}

/* ---- the record filter ------------------------------------------------- */

/* What the header at buf says of the record's length: 0 when the bytes
 * are too few to tell. */
static size_t header_total(const unsigned char *buf, size_t len,
			   bool *too_big, bool *invalid)
{
	uint32_t magic;
	uint16_t pdu_len;
	size_t hdr;

	*too_big = *invalid = false;
	if (len < sizeof(magic))
		return 0;
	memcpy(&magic, buf, sizeof(magic));
	hdr = wc_blk_header_size(magic);
	if (!hdr) {
		*invalid = true;
		return 0;
	}
	if (len < hdr)
		return 0;
	/* pdu_len is the header's last field in both versions but v8's
	 * padding: 46 in v7, 50 in v8. */
	memcpy(&pdu_len, buf + (hdr == WC_BLK_V7_SIZE ? 46 : 50), sizeof(pdu_len));
	*too_big = pdu_len > WC_RECORD_MAX_PDU;
	return hdr + pdu_len;
}

int wc_record_frame(const unsigned char *buf, size_t len, size_t *total,
		    struct wc_event *ev, struct wc_err *err)
{
	struct wc_source *src = NULL;
	struct wc_decoder *dec = NULL;
	struct wc_err derr;
	bool too_big, invalid;
	size_t n = header_total(buf, len, &too_big, &invalid);
	int r;

	*total = 0;
	if (invalid || too_big)
		return WC_FRAME_INVALID;
	if (n == 0 || len < n)
		return WC_FRAME_PARTIAL;
	/* The decoder's own checks, on exactly the record's bytes. */
	if (wc_source_open_memory(&src, "trace_pipe", NULL, buf, n, 0,
				  err) < 0 ||
	    wc_decoder_open(&dec, src, 0, err) < 0)
		return -1;     /* the decoder frees src when it fails */
	wc_decoder_expect(dec, false);
	wc_err_clear(&derr);
	r = wc_decoder_next(dec, ev, &derr);
	wc_decoder_free(dec);
	if (r < 0 && derr.kind == WC_ERR_SYSTEM)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "%s", derr.msg);
	if (r != 1)
		return WC_FRAME_INVALID;
	/* The payload ends the record, past any cgroup id. */
	ev->pdu = buf + n - ev->pdu_len;
	*total = n;
	return WC_FRAME_RECORD;
}

ssize_t wc_record_process(unsigned char *buf, size_t size,
			  const struct wc_event *ev, const char *comm,
			  unsigned version, struct wc_err *err)
{
	char name[WC_COMM_LEN];
	struct wc_event n;

	memset(name, 0, sizeof(name));
	snprintf(name, sizeof(name), "%s", comm);
	memset(&n, 0, sizeof(n));
	n.time = ev->time;
	n.action = WC_ACTION_PROCESS;
	n.pid = ev->pid;
	n.device = ev->device;
	n.cpu = ev->cpu;
	n.pdu = (const unsigned char *)name;
	n.pdu_len = (uint16_t)(strlen(name) + 1);
	return wc_blk_encode(buf, size, &n, version, false, err);
}
