/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "input/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/blktrace_format.h"
#include "input/source.h"

int wc_capture_new(struct wc_capture **out, struct wc_err *err)
{
	struct wc_capture *c;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return wc_err_oom(err, NULL, NULL);
	c->format_version = -1;
	c->write_cache = -1;
	c->barrier = -1;
	c->complete = -1;
	c->events_dropped = -1;
	*out = c;
	return 0;
}

void wc_capture_free(struct wc_capture *c)
{
	free(c);
}

/* ---- reading ----------------------------------------------------------- */

int wc_capture_read_file(const char *path, char **text, size_t *len,
			 struct wc_err *err)
{
	struct wc_err e;
	off_t size;
	char *buf = NULL;
	size_t got = 0, cap;
	int fd, ret = -1;

	*text = NULL;
	*len = 0;
	wc_err_clear(&e);
	/* Never through a link: a capture.conf linked to the user's own
	 * ~/.gitconfig would lend its "name = " to the capture. */
	fd = wc_source_open_regular(path, &size, O_NOFOLLOW, &e);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;     /* no such file: nothing to say */
		if (err && err->kind == WC_ERR_NONE)
			*err = e;
		return -1;
	}
	if (size > (off_t)WC_CAPTURE_MAX_BYTES) {
		wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
			   "larger than %u bytes", WC_CAPTURE_MAX_BYTES);
		goto close_fd;
	}
	/* Room for the file as it is now, its NUL and one byte more to see
	 * it grow; the limit's megabyte only for a file that really grows. */
	cap = (size_t)size + 2;
	buf = malloc(cap);
	if (!buf) {
		wc_err_oom(err, path, NULL);
		goto close_fd;
	}
	/* Read to the end, not to st_size: a file that grows meanwhile is
	 * still held to the limit. */
	for (;;) {
		ssize_t n;

		if (got + 1 == cap) {
			size_t ncap = cap > WC_CAPTURE_MAX_BYTES / 2 ?
				WC_CAPTURE_MAX_BYTES + 2 : 2 * cap;
			char *nbuf = realloc(buf, ncap);

			if (!nbuf) {
				wc_err_oom(err, path, NULL);
				goto free_buf;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + got, cap - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			wc_err_set(err, WC_ERR_SYSTEM, path, NULL, got, "%s",
				   strerror(errno));
			goto free_buf;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > WC_CAPTURE_MAX_BYTES) {
			wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
				   "larger than %u bytes", WC_CAPTURE_MAX_BYTES);
			goto free_buf;
		}
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	buf = NULL;
	ret = 0;
free_buf:
	free(buf);
close_fd:
	close(fd);
	return ret;
}

/* ---- notes ------------------------------------------------------------- */

static void note(struct wc_capture *c, const char *where, size_t line,
		 const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void note(struct wc_capture *c, const char *where, size_t line,
		 const char *key, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (c->nnotes >= WC_CAPTURE_MAX_NOTES) {
		c->nnotes_more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The key is input text: only its first 40 bytes. */
	snprintf(c->notes[c->nnotes++], WC_CAPTURE_NOTE_SIZE,
		 "%s: line %zu%s%.40s: %s", where, line, key ? ": " : "",
		 key ? key : "", msg);
}

/* ---- values ------------------------------------------------------------ */

/* A decimal from 0 to max, digits only. */
static bool parse_uint(const char *v, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (!*v)
		return false;
	for (; *v; v++) {
		unsigned d;

		if (*v < '0' || *v > '9')
			return false;
		d = (unsigned)(*v - '0');
		if (n > (max - d) / 10)
			return false;
		n = n * 10 + d;
	}
	*out = n;
	return true;
}

/* "on"/"off" and their spellings -> 1/0; "unknown" -> -1; else -2. */
static int on_off(const char *v)
{
	if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "yes") ||
	    !strcmp(v, "write back"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no") ||
	    !strcmp(v, "write through"))
		return 0;
	if (!strcmp(v, "unknown") || !*v)
		return -1;
	return -2;
}

/* "MAJ:MIN" or "MAJ,MIN" within the kernel's bits, or a decimal dev_t as
 * the records carry it. */
static bool parse_devt(const char *v, uint32_t *out)
{
	const char *sep = strpbrk(v, ":,");
	uint64_t maj, min;
	char buf[32];

	if (!sep) {
		if (!parse_uint(v, UINT32_MAX, &maj))
			return false;
		*out = (uint32_t)maj;
		return true;
	}
	if ((size_t)(sep - v) >= sizeof(buf))
		return false;
	memcpy(buf, v, (size_t)(sep - v));
	buf[sep - v] = '\0';
	if (!parse_uint(buf, 0xfff, &maj) || !parse_uint(sep + 1, 0xfffff, &min))
		return false;
	*out = WC_DEV_MAKE((uint32_t)maj, (uint32_t)min);
	return true;
}

static void set_str(char *dst, size_t size, const char *v)
{
	snprintf(dst, size, "%s", v);
}

static struct wc_capture_device *device_slot(struct wc_capture *c,
					     const char *name, size_t namelen,
					     const char *where, size_t line)
{
	size_t i;

	if (namelen == 0 || namelen >= sizeof(c->devices[0].name)) {
		note(c, where, line, NULL, "device name of %zu bytes, ignored",
		     namelen);
		return NULL;
	}
	for (i = 0; i < c->ndevices; i++)
		if (strlen(c->devices[i].name) == namelen &&
		    !memcmp(c->devices[i].name, name, namelen))
			return &c->devices[i];
	if (c->ndevices >= WC_CAPTURE_MAX_DEVICES) {
		note(c, where, line, NULL, "more than %u devices, the rest ignored",
		     WC_CAPTURE_MAX_DEVICES);
		return NULL;
	}
	memcpy(c->devices[c->ndevices].name, name, namelen);
	c->devices[c->ndevices].name[namelen] = '\0';
	c->devices[c->ndevices].rotational = -1;
	return &c->devices[c->ndevices++];
}

static void set_devices(struct wc_capture *c, char *v, const char *where,
			size_t line)
{
	char *tok, *save = NULL;
	int pos = 0;
	size_t i;

	for (i = 0; i < c->ndevices; i++)
		c->devices[i].listed = 0;
	for (tok = strtok_r(v, " ,\t", &save); tok;
	     tok = strtok_r(NULL, " ,\t", &save)) {
		struct wc_capture_device *d = device_slot(c, tok, strlen(tok),
							  where, line);

		if (d && !d->listed)
			d->listed = ++pos;
	}
}

/* disk_regions = NAME...: a name's place is its region (wcdisk places
 * each image after the one before), so a name refused keeps its place. */
static void set_regions(struct wc_capture *c, char *v, const char *where,
			size_t line)
{
	char *tok, *save = NULL;

	c->nregions = 0;
	for (tok = strtok_r(v, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		size_t len = strlen(tok);

		if (c->nregions == WC_CAPTURE_MAX_REGIONS) {
			note(c, where, line, "disk_regions", "more than %u "
			     "devices, the rest ignored", WC_CAPTURE_MAX_REGIONS);
			return;
		}
		if (len >= sizeof(c->regions[0])) {
			note(c, where, line, "disk_regions", "device name of "
			     "%zu bytes, names no device", len);
			tok = "";
		}
		set_str(c->regions[c->nregions++], sizeof(c->regions[0]), tok);
	}
}

/* device.DEV.WHAT = v */
static void set_device_key(struct wc_capture *c, const char *key, const char *v,
			   const char *where, size_t line)
{
	const char *name = key + strlen("device.");
	const char *dot = strrchr(name, '.');
	struct wc_capture_device *d;
	int b;

	if (!dot || (strcmp(dot, ".dev") && strcmp(dot, ".rotational") &&
		     strcmp(dot, ".timeout_ms") && strcmp(dot, ".hw_queues") &&
		     strcmp(dot, ".role")))
		return;     /* keys to come */
	d = device_slot(c, name, (size_t)(dot - name), where, line);
	if (!d)
		return;
	if (!strcmp(dot, ".role")) {
		size_t i, len = strlen(v);

		d->role[0] = '\0';
		for (i = 0; i < len && v[i] >= 'a' && v[i] <= 'z'; i++)
			;
		if (len && i == len && len < sizeof(d->role))
			set_str(d->role, sizeof(d->role), v);
		else
			note(c, where, line, key, "not a word of at most %zu "
			     "lowercase letters, ignored", sizeof(d->role) - 1);
		return;
	}
	if (!strcmp(dot, ".timeout_ms")) {
		uint64_t ms;

		d->timeout_ms = 0;
		if (parse_uint(v, 86400000, &ms) && ms > 0)
			d->timeout_ms = ms;
		else
			note(c, where, line, key,
			     "not milliseconds from 1 to 86400000, ignored");
		return;
	}
	if (!strcmp(dot, ".hw_queues")) {
		uint64_t n;

		d->hw_queues = 0;
		if (parse_uint(v, 65536, &n) && n > 0)
			d->hw_queues = (uint32_t)n;
		else
			note(c, where, line, key,
			     "not a count from 1 to 65536, ignored");
		return;
	}
	if (!strcmp(dot, ".dev")) {
		if (!parse_devt(v, &d->dev)) {
			d->dev = 0;
			note(c, where, line, key,
			     "not MAJ:MIN (major to 4095, minor to 1048575), ignored");
		}
		return;
	}
	b = on_off(v);
	if (b == -2) {
		note(c, where, line, key, "not 0 or 1, ignored");
		b = -1;
	}
	d->rotational = b;
}

static int flag(struct wc_capture *c, const char *key, const char *v,
		const char *where, size_t line)
{
	int b = on_off(v);

	if (b == -2) {
		note(c, where, line, key, "not on or off, ignored");
		return -1;
	}
	return b;
}

struct journal_keys {
	bool start_set, len_set;
	uint64_t start, len;
};

/* The keys whose value is kept as written (cut to its field). */
#define STR_KEY(k, field) { k, offsetof(struct wc_capture, field), \
			    sizeof(((struct wc_capture *)0)->field) }
static const struct {
	const char *key;
	size_t off, size;
} str_keys[] = {
	STR_KEY("name", name), STR_KEY("kernel", kernel),
	STR_KEY("mount_options", mount_options), STR_KEY("recorder", recorder),
	STR_KEY("write_cache_method", write_cache_method),
	STR_KEY("disk", disk), STR_KEY("disk_model", disk_model),
	STR_KEY("workload", workload), STR_KEY("command", command),
	STR_KEY("lab_workload", lab_workload),
	STR_KEY("source_files", source_files),
	STR_KEY("source_bytes", source_bytes),
	STR_KEY("run", run), STR_KEY("run_role", run_role),
	STR_KEY("lab_position", lab_position),
	STR_KEY("tool_version", tool_version),
	STR_KEY("tool_commit", tool_commit), STR_KEY("host_cpus", host_cpus),
	STR_KEY("host_mem_total_kb", host_mem_total_kb),
	STR_KEY("vm_dirty_ratio", vm_dirty[0]),
	STR_KEY("vm_dirty_background_ratio", vm_dirty[1]),
	STR_KEY("vm_dirty_bytes", vm_dirty[2]),
	STR_KEY("vm_dirty_background_bytes", vm_dirty[3]),
	STR_KEY("vm_dirty_expire_centisecs", vm_dirty[4]),
	STR_KEY("vm_dirty_writeback_centisecs", vm_dirty[5]),
	STR_KEY("host_loadavg_before", host_loadavg_before),
	STR_KEY("host_loadavg_after", host_loadavg_after),
	STR_KEY("host_dirty_kb_end", host_dirty_kb_end),
};
#undef STR_KEY

const char *const wc_capture_vm_dirty_keys[6] = {
	"vm_dirty_ratio", "vm_dirty_background_ratio", "vm_dirty_bytes",
	"vm_dirty_background_bytes", "vm_dirty_expire_centisecs",
	"vm_dirty_writeback_centisecs",
};

static void set_key(struct wc_capture *c, char *key, char *v,
		    const char *where, size_t line, struct journal_keys *j)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < sizeof(str_keys) / sizeof(str_keys[0]); i++)
		if (!strcmp(key, str_keys[i].key)) {
			set_str((char *)c + str_keys[i].off, str_keys[i].size, v);
			return;
		}
	if (!strcmp(key, "format_version")) {
		c->format_version = -1;
		if (parse_uint(v, 1000, &n))
			c->format_version = (int)n;
		else
			note(c, where, line, key, "not a number from 0 to 1000, ignored");
	} else if (!strcmp(key, "fs")) {
		set_str(c->fs, sizeof(c->fs), strcmp(v, "unknown") ? v : "");
	} else if (!strcmp(key, "write_cache")) {
		c->write_cache = flag(c, key, v, where, line);
	} else if (!strcmp(key, "barrier")) {
		c->barrier = flag(c, key, v, where, line);
	} else if (!strcmp(key, "complete")) {
		c->complete = flag(c, key, v, where, line);
	} else if (!strcmp(key, "events_dropped")) {
		c->events_dropped = -1;
		c->has_events_dropped = true;
		if (parse_uint(v, INT64_MAX, &n))
			c->events_dropped = (int64_t)n;
		else if (strcmp(v, "unknown"))
			note(c, where, line, key, "not a count from 0 to %lld, ignored",
			     (long long)INT64_MAX);
	} else if (!strcmp(key, "trace_files")) {
		/* Silent when malformed: a note would change the report of
		 * an archive that readers before this key analysed without
		 * one; absent only costs the scan its shortcut. */
		c->trace_files = 0;
		if (parse_uint(v, WC_CAPTURE_MAX_TRACE_FILES, &n))
			c->trace_files = (uint32_t)n;
	} else if (!strcmp(key, "destination")) {
		const char *base = strrchr(v, '/');

		set_str(c->destination, sizeof(c->destination),
			base ? base + 1 : v);
	} else if (!strcmp(key, "disk_regions")) {
		set_regions(c, v, where, line);
	} else if (!strcmp(key, "disk_capacity_bytes")) {
		c->disk_capacity = 0;
		if (!parse_uint(v, UINT64_MAX / 2, &n))
			note(c, where, line, key, "not a number of bytes, ignored");
		else
			c->disk_capacity = n;
	} else if (!strcmp(key, "workload_end_ns") ||
		   !strcmp(key, "durable_ns") ||
		   !strcmp(key, "durable_destaged_bytes")) {
		uint64_t *to = !strcmp(key, "workload_end_ns") ?
				       &c->workload_end_ns :
			       !strcmp(key, "durable_ns") ? &c->durable_ns :
							    &c->durable_bytes;

		*to = 0;
		if (!parse_uint(v, UINT64_MAX / 2, &n))
			note(c, where, line, key, "not a number, ignored");
		else
			*to = n;
	} else if (!strcmp(key, "disk_offsets")) {
		char *tok, *save = NULL;

		c->noffsets = 0;
		for (tok = strtok_r(v, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			if (c->noffsets == WC_CAPTURE_MAX_REGIONS ||
			    !parse_uint(tok, UINT64_MAX / 2, &n)) {
				note(c, where, line, key, "not up to %u numbers "
				     "of bytes, ignored", WC_CAPTURE_MAX_REGIONS);
				c->noffsets = 0;
				break;
			}
			c->offsets[c->noffsets++] = n;
		}
	} else if (!strcmp(key, "devices")) {
		set_devices(c, v, where, line);
	} else if (!strncmp(key, "device.", 7)) {
		set_device_key(c, key, v, where, line);
	} else if (!strcmp(key, "journal_guessed")) {
		/* Printed in every format: no byte a terminal, JSON or HTML
		 * would read as more than a character (escape.h escapes the
		 * rest where it is written). */
		c->journal_guessed[0] = '\0';
		for (i = 0; v[i]; i++)
			if ((unsigned char)v[i] < 0x20 ||
			    (unsigned char)v[i] > 0x7e)
				break;
		if (v[i])
			note(c, where, line, key, "byte 0x%02x at %zu is not "
			     "printable ASCII, ignored", (unsigned char)v[i], i);
		else
			set_str(c->journal_guessed, sizeof(c->journal_guessed),
				v);
	} else if (!strcmp(key, "journal_start_sector") ||
		   !strcmp(key, "journal_sectors")) {
		bool start = !strcmp(key, "journal_start_sector");
		bool ok = parse_uint(v, INT64_MAX, &n);

		if (!ok)
			note(c, where, line, key, "not a sector count from 0 to %lld, "
			     "ignored", (long long)INT64_MAX);
		if (start) {
			j->start_set = ok;
			j->start = n;
		} else {
			j->len_set = ok;
			j->len = n;
		}
	}
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/*
 * Calls fn on every line of TEXT, as a NUL-terminated copy in a buffer of
 * WC_CAPTURE_MAX_LINE bytes; overlong lines and lines holding NUL bytes
 * are noted and skipped.
 */
static void each_line(struct wc_capture *c, const char *text, size_t len,
		      const char *where,
		      void (*fn)(struct wc_capture *, char *, const char *,
				 size_t, void *),
		      void *ctx)
{
	char buf[WC_CAPTURE_MAX_LINE + 1];
	size_t pos = 0, line = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		line++;
		if (n > WC_CAPTURE_MAX_LINE)
			note(c, where, line, NULL, "longer than %u bytes, ignored",
			     WC_CAPTURE_MAX_LINE);
		else if (memchr(text + pos, '\0', n))
			note(c, where, line, NULL, "holds a NUL byte, ignored");
		else {
			memcpy(buf, text + pos, n);
			buf[n] = '\0';
			fn(c, buf, where, line, ctx);
		}
		pos += n + 1;
	}
}

static void conf_line(struct wc_capture *c, char *s, const char *where,
		      size_t line, void *ctx)
{
	char *eq;

	s = trim(s);
	if (!*s || *s == '#')
		return;
	eq = strchr(s, '=');
	if (!eq)
		return;
	*eq = '\0';
	set_key(c, trim(s), trim(eq + 1), where, line, ctx);
}

void wc_capture_parse_conf(struct wc_capture *c, const char *text, size_t len,
			   const char *where)
{
	struct journal_keys j = { 0 };

	c->has_conf = true;
	each_line(c, text, len, where, conf_line, &j);
	c->journal_known = false;
	if (j.start_set && j.len_set && j.len > 0) {
		if (j.start > UINT64_MAX - j.len) {
			note(c, where, 0, "journal_sectors",
			     "journal range past the last sector, ignored");
		} else {
			c->journal_known = true;
			c->journal_start = j.start;
			c->journal_sectors = j.len;
		}
	}
}

/* Seconds as bash's time prints them: finite, not negative. */
static bool parse_secs(const char *v, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(d) || d < 0 || d > 1e12)
		return false;
	*out = d;
	return true;
}

static void phase_line(struct wc_capture *c, char *s, const char *where,
		       size_t line, void *ctx)
{
	static const char *const names[] = {
		"phase", "start_ns", "end_ns", "real_s", "user_s", "sys_s",
	};
	char *f[6], *tok, *save = NULL;
	struct wc_phase *p;
	double secs[3] = { 0, 0, 0 };
	uint64_t start, end;
	bool *full = ctx;
	int nf = 0, k;

	if (!strncmp(s, "phase\t", 6) || !*trim(s))
		return;
	for (tok = strtok_r(s, "\t", &save); tok && nf < 6;
	     tok = strtok_r(NULL, "\t", &save))
		f[nf++] = trim(tok);
	if (nf < 3) {
		note(c, where, line, NULL, "fewer than 3 fields, ignored");
		return;
	}
	for (k = 1; k <= 2; k++)
		if (!parse_uint(f[k], UINT64_MAX, k == 1 ? &start : &end)) {
			note(c, where, line, names[k],
			     "not a time in ns from 0 to 2^64-1, row ignored");
			return;
		}
	if (end < start) {
		note(c, where, line, "end_ns", "before start_ns, row ignored");
		return;
	}
	for (k = 3; k < nf; k++)
		if (!parse_secs(f[k], &secs[k - 3]))
			note(c, where, line, names[k],
			     "not seconds from 0 to 1e12, taken as 0");
	if (c->nphases >= WC_CAPTURE_MAX_PHASES) {
		if (!*full)
			note(c, where, line, NULL,
			     "more than %u phases, the rest ignored",
			     WC_CAPTURE_MAX_PHASES);
		*full = true;
		return;
	}
	snprintf(c->phase_names[c->nphases], sizeof(c->phase_names[0]), "%s",
		 f[0]);
	p = &c->phases[c->nphases];
	p->name = c->phase_names[c->nphases];
	p->start = start;
	p->end = end;
	p->real_s = secs[0];
	p->user_s = secs[1];
	p->sys_s = secs[2];
	c->nphases++;
}

void wc_capture_parse_phases(struct wc_capture *c, const char *text,
			     size_t len, const char *where)
{
	bool full = false;

	c->has_phases = true;
	each_line(c, text, len, where, phase_line, &full);
}

/* ---- counters.tsv ------------------------------------------------------ */

/* A kernel name as sysfs has it: no '/', not "." or "..", fits. */
static bool counters_name(char *dst, size_t size, const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= size || strchr(v, '/') || !strcmp(v, ".") ||
	    !strcmp(v, ".."))
		return false;
	memcpy(dst, v, n + 1);
	return true;
}

static void counters_line(struct wc_capture *c, char *s, const char *where,
			  size_t line, void *ctx)
{
	static const char *const names[] = {
		"when", "device", "disk", "start_ns", "end_ns", "stat",
	};
	struct wc_counters_row r;
	char *f[6], *tok, *save = NULL;
	bool *full = ctx;
	int nf = 0, k;

	if (!strncmp(s, "when\t", 5) || !*trim(s))
		return;
	memset(&r, 0, sizeof(r));
	for (tok = strtok_r(s, "\t", &save); tok && nf < 6;
	     tok = strtok_r(NULL, "\t", &save))
		f[nf++] = trim(tok);
	if (nf < 6) {
		note(c, where, line, NULL, "fewer than 6 fields, ignored");
		return;
	}
	if (!strcmp(f[0], "after"))
		r.after = true;
	else if (strcmp(f[0], "before")) {
		note(c, where, line, names[0], "not before or after, row ignored");
		return;
	}
	for (k = 1; k <= 2; k++)
		if (!counters_name(k == 1 ? r.device : r.disk, sizeof(r.device),
				   f[k])) {
			note(c, where, line, names[k],
			     "not a device's kernel name, row ignored");
			return;
		}
	for (k = 3; k <= 4; k++)
		if (!parse_uint(f[k], UINT64_MAX, k == 3 ? &r.start : &r.end)) {
			note(c, where, line, names[k],
			     "not a time in ns from 0 to 2^64-1, row ignored");
			return;
		}
	if (r.end < r.start) {
		note(c, where, line, names[4], "before start_ns, row ignored");
		return;
	}
	for (tok = strtok_r(f[5], " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (r.nfields == WC_CAPTURE_STAT_FIELDS ||
		    !parse_uint(tok, UINT64_MAX, &r.f[r.nfields])) {
			note(c, where, line, names[5],
			     "not up to %u counters, row ignored",
			     WC_CAPTURE_STAT_FIELDS);
			return;
		}
		r.nfields++;
	}
	if (r.nfields != 17 && r.nfields != 15 && r.nfields != 11 &&
	    r.nfields != 4) {
		note(c, where, line, names[5],
		     "%u counters, not 17, 15, 11 or 4: row ignored", r.nfields);
		return;
	}
	if (c->ncounters >= WC_CAPTURE_MAX_COUNTERS) {
		if (!*full)
			note(c, where, line, NULL,
			     "more than %u rows, the rest ignored",
			     WC_CAPTURE_MAX_COUNTERS);
		*full = true;
		return;
	}
	c->counters[c->ncounters++] = r;
}

void wc_capture_parse_counters(struct wc_capture *c, const char *text,
			       size_t len, const char *where)
{
	bool full = false;

	c->has_counters = true;
	each_line(c, text, len, where, counters_line, &full);
}

const char *const wc_capture_side_files[] = {
	"capture.conf", "phases.tsv", "counters.tsv", NULL,
};

bool wc_capture_parse_side(struct wc_capture *c, const char *base,
			   const char *text, size_t len, const char *where)
{
	if (!strcmp(base, "capture.conf"))
		wc_capture_parse_conf(c, text, len, where);
	else if (!strcmp(base, "phases.tsv"))
		wc_capture_parse_phases(c, text, len, where);
	else if (!strcmp(base, "counters.tsv"))
		wc_capture_parse_counters(c, text, len, where);
	else
		return false;
	return true;
}

/* ---- lookups ----------------------------------------------------------- */

const struct wc_capture_device *wc_capture_device(const struct wc_capture *c,
						  const char *name)
{
	size_t i;

	for (i = 0; i < c->ndevices; i++)
		if (!strcmp(c->devices[i].name, name))
			return &c->devices[i];
	return NULL;
}

const struct wc_capture_device *wc_capture_destination(
	const struct wc_capture *c)
{
	if (!c->destination[0])
		return NULL;
	return wc_capture_device(c, c->destination);
}
