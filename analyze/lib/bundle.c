/*
 * bundle.c - the bug-report bundle: reports, figures, index.html (see
 * bundle.h and docs/bundle.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle.h"
#include "escape.h"
#include "report.h"
#include "series.h"

#ifndef WC_VERSION
#define WC_VERSION "unknown"
#endif
#ifndef WC_DATADIR
#define WC_DATADIR "/usr/local/share/wcanalyze"
#endif

/* Points of a capture's curve in the overlaid throughput figure: enough
 * for a 1200-pixel figure, few enough to keep per capture. */
#define CURVE_POINTS 400
#define TIMELINE_POINTS 300
/* An SVG of more points than this takes a browser many seconds to draw
 * (a point is an element); such a scatter is a PNG only. */
#define SVG_MAX_POINTS 50000
#define MAX_PHASE_NAMES 16
#define NAME_MAX_LEN 64
/* Bundle files open at once (one is the most the code needs). */
#define MAX_PENDING 4
/* Tries at a fresh temporary name before giving up. */
#define TMP_TRIES 32

enum fig {
	FIG_SCATTER,
	FIG_THROUGHPUT,
	FIG_FLUSHES,
	FIG_LATENCY,
	FIG_QUEUE,
	FIG_PHASES,
	NFIG
};

static const struct {
	const char *name;       /* template and file name */
	const char *caption;
	int width, height;      /* as the template renders the PNG */
} figs[NFIG] = {
	[FIG_SCATTER] = { "scatter", "Sector over time: one point per request "
			  "(per pixel), coloured by category; flushes marked "
			  "above the data", 1200, 680 },
	[FIG_THROUGHPUT] = { "throughput", "Throughput (MB/s) and IOPS over "
			     "time, stacked by category", 1200, 760 },
	[FIG_FLUSHES] = { "flushes", "Cache flushes per second and cumulative "
			  "time spent in flush requests", 1200, 760 },
	[FIG_LATENCY] = { "latency", "D2C latency CDF per category", 1200, 680 },
	[FIG_QUEUE] = { "queue", "Queue depth over time", 1200, 600 },
	[FIG_PHASES] = { "phases", "Busy time of each phase by category, "
			 "labelled with the busy time and the phase's window",
			 1000, 650 },
};

/* The figures across captures, in the order index.html shows them. */
enum { CMP_TIME, CMP_PHASES, CMP_THROUGHPUT, CMP_DIFFERENCE, NCOMPARE };

struct point {
	double t, mbps;
};

struct cap {
	struct wc_analysis *a;
	char dir[NAME_MAX_LEN + 16];     /* folder inside the bundle */
	bool fig[NFIG];                  /* figure written */
	const char *why[NFIG];           /* why not, when not */
	uint64_t scatter_requests, points, ignored_devices;
	struct point *curve;
	size_t ncurve;
};

struct wc_bundle {
	char *dir;
	char *index;
	char *notice;
	char plots[PATH_MAX];
	char *common;                    /* plots/common.gp */
	char catcolor[WC_NCAT][8];       /* "#RRGGBB", from common.gp */
	char idlecolor[8];

	struct cap *caps;
	size_t ncaps, capsize;
	bool compare[NCOMPARE];          /* cross-capture figures written */

	char **scripts;                  /* .gp files to render, relative */
	size_t nscripts, scriptsize;
	bool rendered;
	const struct wc_summary *sum;    /* given to wc_bundle_close() */

	/* Every file and folder is made relative to dirfd, never through a
	 * link (see bopen()). */
	int dirfd;
	struct pending {                 /* files written, not yet renamed */
		FILE *f;
		int dfd;                 /* the folder it goes in */
		char tmp[32], leaf[NAME_MAX_LEN + 32];
	} pend[MAX_PENDING];
};

static const char *const compare_names[NCOMPARE] = {
	"compare-time", "compare-phases", "compare-throughput",
	"compare-difference",
};

static int sys_err(struct wc_err *err, const char *file, const char *what)
{
	return wc_err_set(err, WC_ERR_SYSTEM, file, NULL, WC_NO_OFFSET,
			  "%s: %s", what, strerror(errno));
}

static int nomem(struct wc_err *err)
{
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
}

/* Folder and file names: letters, digits, '.', '_', '-' only. */
static void safe_name(const char *in, char *out, size_t size)
{
	size_t i = 0;

	for (; in && *in && i + 1 < size && i < NAME_MAX_LEN; in++) {
		char c = *in;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			c = '_';
		if (i == 0 && c == '.')
			c = '_';
		out[i++] = c;
	}
	if (i == 0 && size > 8) {
		strcpy(out, "capture");
		return;
	}
	out[i] = '\0';
}

/* snprintf into buf; false when it did not fit. */
static bool __attribute__((format(printf, 3, 4)))
fits(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

static int path_of(const struct wc_bundle *b, const char *rel, char *buf,
		   size_t size, struct wc_err *err)
{
	int n = snprintf(buf, size, "%s/%s", b->dir, rel);

	if (n < 0 || (size_t)n >= size)
		return wc_err_set(err, WC_ERR_USAGE, b->dir, NULL, WC_NO_OFFSET,
				  "path too long");
	return 0;
}

/* The error for a folder of the bundle that cannot be used as one (e is
 * the errno of opening it with O_DIRECTORY | O_NOFOLLOW, which says
 * ENOTDIR for a link as for a file: lstat() tells them apart). */
static int refuse_dir(struct wc_err *err, const char *path, int e)
{
	char p[PATH_MAX];
	struct stat st;
	size_t n;

	snprintf(p, sizeof(p), "%s", path);
	for (n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
		p[n - 1] = '\0';
	if (e == ELOOP || (e == ENOTDIR && lstat(p, &st) == 0 && S_ISLNK(st.st_mode)))
		return wc_err_set(err, WC_ERR_USAGE, path, NULL, WC_NO_OFFSET,
				  "a symbolic link where a folder of the bundle "
				  "goes: refused");
	if (e == ENOTDIR)
		return wc_err_set(err, WC_ERR_USAGE, path, NULL, WC_NO_OFFSET,
				  "not a folder: refused");
	errno = e;
	return sys_err(err, path, "cannot open folder");
}

/*
 * An fd of the folder that holds rel ("FILE" or "CAPTURE/FILE"), opened
 * so that a symbolic link planted in place of a capture folder is
 * refused, not followed; *leaf is rel's last part.  -1 on failure.
 */
static int parent_fd(const struct wc_bundle *b, const char *rel,
		     const char **leaf, struct wc_err *err)
{
	const char *slash = strchr(rel, '/');
	char sub[NAME_MAX_LEN + 32], path[PATH_MAX];
	int fd;

	*leaf = slash ? slash + 1 : rel;
	if (!slash) {
		fd = fcntl(b->dirfd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			sys_err(err, b->dir, "cannot open folder");
		return fd;
	}
	if ((size_t)(slash - rel) >= sizeof(sub) || strchr(slash + 1, '/')) {
		wc_err_set(err, WC_ERR_USAGE, rel, NULL, WC_NO_OFFSET,
			   "bundle: bad file name");
		return -1;
	}
	memcpy(sub, rel, (size_t)(slash - rel));
	sub[slash - rel] = '\0';
	fd = openat(b->dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (path_of(b, sub, path, sizeof(path), NULL) < 0)
			snprintf(path, sizeof(path), "%s", sub);
		refuse_dir(err, path, e);
	}
	return fd;
}

/* A name no one can have guessed for a file or folder we create. */
static void fresh_name(char *buf, size_t size, const char *prefix)
{
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)buf ^
		     (uint64_t)rand();
	snprintf(buf, size, ".%s-%016llx", prefix, (unsigned long long)r);
}

/*
 * Creates a fresh file in dfd: O_EXCL and O_NOFOLLOW on a name not used
 * before, so that nothing planted there (a link to a file outside the
 * bundle) is written through.  Its name goes into tmp.
 */
static int create_fresh(int dfd, char *tmp, size_t size, int flags)
{
	int i, fd = -1;

	for (i = 0; i < TMP_TRIES && fd < 0; i++) {
		fresh_name(tmp, size, "wc");
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC | flags, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

/*
 * Opens the bundle's file rel for writing.  What is written goes to a
 * fresh file beside it; bclose() renames that over rel, which replaces a
 * planted link instead of following it.
 */
static FILE *bopen(struct wc_bundle *b, const char *rel, struct wc_err *err)
{
	struct pending *p = NULL;
	char path[PATH_MAX];
	const char *leaf;
	size_t i;
	int fd;

	for (i = 0; i < MAX_PENDING && !p; i++)
		if (!b->pend[i].f)
			p = &b->pend[i];
	if (!p || strlen(rel) >= sizeof(p->leaf)) {
		wc_err_set(err, WC_ERR_USAGE, rel, NULL, WC_NO_OFFSET,
			   "bundle: too many files open");
		return NULL;
	}
	p->dfd = parent_fd(b, rel, &leaf, err);
	if (p->dfd < 0)
		return NULL;
	snprintf(p->leaf, sizeof(p->leaf), "%s", leaf);
	fd = create_fresh(p->dfd, p->tmp, sizeof(p->tmp), 0);
	if (fd < 0)
		goto fail_dfd;
	p->f = fdopen(fd, "w");
	if (!p->f) {
		close(fd);
		unlinkat(p->dfd, p->tmp, 0);
		goto fail_dfd;
	}
	return p->f;

fail_dfd:
	if (path_of(b, rel, path, sizeof(path), NULL) < 0)
		snprintf(path, sizeof(path), "%s", rel);
	sys_err(err, path, "cannot create");
	close(p->dfd);
	return NULL;
}

static int bclose(struct wc_bundle *b, FILE *f, const char *rel,
		  struct wc_err *err)
{
	struct pending *p = NULL;
	char path[PATH_MAX];
	bool bad = ferror(f) != 0;
	const char *what = "write failed";
	size_t i;
	int r = 0;

	for (i = 0; i < MAX_PENDING && !p; i++)
		if (b->pend[i].f == f)
			p = &b->pend[i];
	if (fclose(f) != 0)
		bad = true;
	if (!p)
		return wc_err_set(err, WC_ERR_USAGE, rel, NULL, WC_NO_OFFSET,
				  "bundle: file not opened by bopen");
	if (!bad && renameat(p->dfd, p->tmp, p->dfd, p->leaf) < 0) {
		bad = true;
		what = "cannot replace";
	}
	if (bad) {
		int e = errno;

		unlinkat(p->dfd, p->tmp, 0);
		if (path_of(b, rel, path, sizeof(path), NULL) < 0)
			snprintf(path, sizeof(path), "%s", rel);
		errno = e;
		r = sys_err(err, path, what);
	}
	close(p->dfd);
	p->f = NULL;
	return r;
}

/* Drops the files still open (a failure midway): nothing half written
 * is left behind, nothing is renamed. */
static void drop_pending(struct wc_bundle *b)
{
	size_t i;

	for (i = 0; i < MAX_PENDING; i++) {
		struct pending *p = &b->pend[i];

		if (!p->f)
			continue;
		fclose(p->f);
		unlinkat(p->dfd, p->tmp, 0);
		close(p->dfd);
		p->f = NULL;
	}
}

/* Reads name, relative to dfd (AT_FDCWD or a folder of the bundle, where
 * a link is not followed), into *out; path names it in errors. */
static int slurp(int dfd, const char *name, const char *path, char **out,
		 struct wc_err *err)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC |
			(dfd == AT_FDCWD ? 0 : O_NOFOLLOW));
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	*out = NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return sys_err(err, path, "cannot open");
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		fclose(f);
		return nomem(err);
	}
	while ((c = getc(f)) != EOF)
		putc(c, m);
	if (ferror(f)) {
		fclose(f);
		fclose(m);
		free(buf);
		return sys_err(err, path, "read failed");
	}
	fclose(f);
	if (fclose(m) != 0) {
		free(buf);
		return nomem(err);
	}
	*out = buf;
	return 0;
}

static bool has_common(const char *dir)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/common.gp", dir);

	return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

static bool try_plots(struct wc_bundle *b, const char *dir)
{
	int n;

	if (!has_common(dir))
		return false;
	n = snprintf(b->plots, sizeof(b->plots), "%s", dir);
	return n > 0 && (size_t)n < sizeof(b->plots);
}

/* The lookup order of bundle.h. */
static int find_plots(struct wc_bundle *b, struct wc_err *err)
{
	const char *env = getenv("WCANALYZE_PLOTS");
	char exe[PATH_MAX], cand[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		if (try_plots(b, env))
			return 0;
		return wc_err_set(err, WC_ERR_USAGE, env, NULL, WC_NO_OFFSET,
				  "WCANALYZE_PLOTS names no folder with common.gp");
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (fits(cand, sizeof(cand), "%s/../plots", exe) &&
			    try_plots(b, cand))
				return 0;
			if (fits(cand, sizeof(cand), "%s/../share/wcanalyze/plots", exe) &&
			    try_plots(b, cand))
				return 0;
		}
	}
	if (try_plots(b, WC_DATADIR "/plots") || try_plots(b, "plots"))
		return 0;
	return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
			  "gnuplot templates not found in " WC_DATADIR
			  "/plots nor ./plots: set WCANALYZE_PLOTS to the "
			  "source tree's plots folder");
}

/* Reads NAME = "#.. #.." from common.gp, so the page's colour keys are
 * the figures' colours by construction. */
static void parse_colors(struct wc_bundle *b)
{
	const char *p = strstr(b->common, "\ncatcolor = \"");
	int k;

	if (p) {
		p += strlen("\ncatcolor = \"");
		for (k = 0; k < WC_NCAT && *p == '#'; k++) {
			snprintf(b->catcolor[k], sizeof(b->catcolor[k]), "%.7s", p);
			p += 7;
			while (*p == ' ')
				p++;
		}
	}
	p = strstr(b->common, "\nidlecolor = \"");
	if (p)
		snprintf(b->idlecolor, sizeof(b->idlecolor), "%.7s",
			 p + strlen("\nidlecolor = \""));
}

int wc_bundle_open(struct wc_bundle **out, const char *dir, struct wc_err *err)
{
	struct wc_bundle *b;
	char path[PATH_MAX];
	size_t n;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return nomem(err);
	b->dirfd = -1;
	b->dir = strdup(dir);
	if (!b->dir || asprintf(&b->index, "%s/index.html", dir) < 0) {
		b->index = NULL;
		nomem(err);
		goto fail_free;
	}
	if (find_plots(b, err) < 0)
		goto fail_free;
	if (!fits(path, sizeof(path), "%s/common.gp", b->plots)) {
		wc_err_set(err, WC_ERR_USAGE, b->plots, NULL, WC_NO_OFFSET,
			   "path too long");
		goto fail_free;
	}
	if (slurp(AT_FDCWD, path, path, &b->common, err) < 0)
		goto fail_free;
	parse_colors(b);
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		sys_err(err, dir, "cannot create folder");
		goto fail_free;
	}
	/* "DIR/" would follow a link named DIR, which O_NOFOLLOW is here to
	 * refuse: someone else may have made it (in /tmp, say). */
	if (!fits(path, sizeof(path), "%s", dir)) {
		wc_err_set(err, WC_ERR_USAGE, dir, NULL, WC_NO_OFFSET,
			   "path too long");
		goto fail_free;
	}
	for (n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
		path[n - 1] = '\0';
	b->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (b->dirfd < 0) {
		refuse_dir(err, dir, errno);
		goto fail_free;
	}
	*out = b;
	return 0;

fail_free:
	wc_bundle_free(b);
	return -1;
}

static int add_script(struct wc_bundle *b, const char *rel, struct wc_err *err)
{
	char *copy;

	if (b->nscripts == b->scriptsize) {
		size_t n = b->scriptsize ? 2 * b->scriptsize : 16;
		char **p = realloc(b->scripts, n * sizeof(*p));

		if (!p)
			return nomem(err);
		b->scripts = p;
		b->scriptsize = n;
	}
	copy = strdup(rel);
	if (!copy)
		return nomem(err);
	b->scripts[b->nscripts++] = copy;
	return 0;
}

/*
 * Writes REL (a .gp script): a header, the figure's variables (vars),
 * common.gp, then the template plots/TPL.gp; and queues it for gnuplot.
 */
static int write_gp(struct wc_bundle *b, const char *rel, const char *tpl,
		    const char *vars, struct wc_err *err)
{
	char path[PATH_MAX], *body = NULL;
	const char *base = strrchr(rel, '/');
	FILE *f;

	if (!fits(path, sizeof(path), "%s/%s.gp", b->plots, tpl))
		return wc_err_set(err, WC_ERR_USAGE, b->plots, NULL, WC_NO_OFFSET,
				  "path too long");
	if (slurp(AT_FDCWD, path, path, &body, err) < 0)
		return -1;
	f = bopen(b, rel, err);
	if (!f)
		goto fail_body;
	fprintf(f, "# %s - written by wcanalyze %s from plots/%s.gp.\n"
		"# Render it again (PNG and SVG) in its folder: gnuplot %s\n"
		"# The figure's variables:\n%s\n",
		base ? base + 1 : rel, WC_VERSION, tpl, base ? base + 1 : rel,
		vars);
	fputs(b->common, f);
	fputs("\n", f);
	fputs(body, f);
	if (bclose(b, f, rel, err) < 0)
		goto fail_body;
	free(body);
	return add_script(b, rel, err);

fail_body:
	free(body);
	return -1;
}

/* Categories with time or requests in f, as a gnuplot word list. */
static void cat_list(char *buf, size_t size, const struct wc_figures *f)
{
	size_t len = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; f && k < WC_NCAT; k++)
		if (f->time_ns[k] || f->requests[k])
			len += (size_t)snprintf(buf + len, size - len, "%s%d",
						len ? " " : "", k);
}

/* Builds the figure variables in memory; *out must be freed. */
static FILE *vars_open(char **out, size_t *len)
{
	*out = NULL;
	return open_memstream(out, len);
}

/*
 * timeline.dat: the series' bins merged in groups so that a figure gets
 * at most TIMELINE_POINTS of them; a rate from a 5-microsecond bin would
 * be noise, not throughput.
 */
static int write_timeline(struct wc_bundle *b, struct cap *c,
			  const struct wc_series *s, uint64_t start,
			  double *bin_ms, struct wc_err *err)
{
	size_t n = wc_series_nbins(s), k = (n + TIMELINE_POINTS - 1) / TIMELINE_POINTS;
	uint64_t w = wc_series_bin_ns(s), origin = wc_series_origin(s);
	char rel[PATH_MAX];
	double cum = 0;
	size_t g, i;
	FILE *f;
	int cat;

	if (k == 0)
		k = 1;
	*bin_ms = (double)(k * w) / 1e6;
	snprintf(rel, sizeof(rel), "%s/timeline.dat", c->dir);
	f = bopen(b, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# timeline.dat - one line per time bin of %.6g s (docs/bundle.md)\n"
		"# 1 start_s 2 mid_s 3 bin_s, 4-10 MB/s per category, "
		"11-17 IOPS per category\n"
		"# (categories in order: flush journal metadata data_read "
		"data_write discard other)\n"
		"# 18 flushes/s 19 flush_cum_s 20 mean_at_driver "
		"21 mean_in_block_layer 22 max_depth 23 flushes 24 MB/s 25 IOPS\n",
		(double)(k * w) / 1e9);
	for (g = 0; g * k < n; g++) {
		struct wc_series_bin sum, bin;
		double t0 = ((double)origin - (double)start + (double)(g * k * w)) / 1e9;
		double span, mb = 0, io = 0;
		size_t m = 0;

		memset(&sum, 0, sizeof(sum));
		for (i = g * k; i < n && i < (g + 1) * k; i++, m++) {
			wc_series_bin(s, i, &bin);
			for (cat = 0; cat < WC_NCAT; cat++) {
				sum.bytes[cat] += bin.bytes[cat];
				sum.requests[cat] += bin.requests[cat];
			}
			sum.flush_ns += bin.flush_ns;
			sum.driver_ns += bin.driver_ns;
			sum.queued_ns += bin.queued_ns;
			if (bin.max_depth > sum.max_depth)
				sum.max_depth = bin.max_depth;
		}
		span = (double)(m * w) / 1e9;
		cum += wc_secs(sum.flush_ns);
		fprintf(f, "%.9f %.9f %.9f", t0, t0 + span / 2, span);
		for (cat = 0; cat < WC_NCAT; cat++) {
			fprintf(f, " %.6g", (double)sum.bytes[cat] / span / 1e6);
			mb += (double)sum.bytes[cat] / span / 1e6;
		}
		for (cat = 0; cat < WC_NCAT; cat++) {
			fprintf(f, " %.6g", (double)sum.requests[cat] / span);
			io += (double)sum.requests[cat] / span;
		}
		fprintf(f, " %.6g %.9f %.6g %.6g %u %llu %.6g %.6g\n",
			(double)sum.requests[WC_CAT_FLUSH] / span, cum,
			(double)sum.driver_ns / 1e9 / span,
			(double)sum.queued_ns / 1e9 / span, sum.max_depth,
			(unsigned long long)sum.requests[WC_CAT_FLUSH], mb, io);
	}
	return bclose(b, f, rel, err);
}

static int write_curve(struct cap *c, const struct wc_series *s,
		       uint64_t start, struct wc_err *err)
{
	size_t n = wc_series_nbins(s), k = (n + CURVE_POINTS - 1) / CURVE_POINTS;
	uint64_t w = wc_series_bin_ns(s), origin = wc_series_origin(s);
	size_t g, i;

	if (n == 0)
		return 0;
	c->curve = calloc((n + k - 1) / k, sizeof(*c->curve));
	if (!c->curve)
		return nomem(err);
	for (g = 0; g * k < n; g++) {
		uint64_t bytes = 0;
		size_t m = 0;

		for (i = g * k; i < n && i < (g + 1) * k; i++, m++) {
			struct wc_series_bin bin;
			int cat;

			wc_series_bin(s, i, &bin);
			for (cat = 0; cat < WC_NCAT; cat++)
				bytes += bin.bytes[cat];
		}
		c->curve[g].t = ((double)origin - (double)start +
				 ((double)(g * k) + (double)m / 2) * (double)w) / 1e9;
		c->curve[g].mbps = (double)bytes / ((double)m * (double)w / 1e9) / 1e6;
	}
	c->ncurve = g;
	return 0;
}

static int write_scatter(struct wc_bundle *b, struct cap *c,
			 const struct wc_series *s, uint64_t start,
			 unsigned *present, struct wc_err *err)
{
	char rel[PATH_MAX];
	uint64_t w = wc_series_bin_ns(s), rs = wc_series_row_sectors(s);
	double origin = (double)wc_series_origin(s) - (double)start;
	size_t col, row;
	FILE *f;

	*present = 0;
	snprintf(rel, sizeof(rel), "%s/scatter.dat", c->dir);
	f = bopen(b, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# scatter.dat - requests binned per pixel: %llu requests "
		"as %llu points (docs/bundle.md)\n"
		"# cells of %.6g s by %llu sectors; 1 time_s (cell centre) "
		"2 sector (cell centre) 3 categories (bit 1<<k, k in the "
		"order flush journal metadata data_read data_write discard other)\n"
		"# flushes have no sector: a line with sector -1 and bit 0 marks "
		"the pixel column of flushes that completed in it\n",
		(unsigned long long)wc_series_scatter_requests(s),
		(unsigned long long)wc_series_points(s), (double)w / 1e9,
		(unsigned long long)rs);
	for (col = 0; col < wc_series_nbins(s); col++) {
		double t = (origin + ((double)col + 0.5) * (double)w) / 1e9;
		struct wc_series_bin bin;

		wc_series_bin(s, col, &bin);
		if (bin.requests[WC_CAT_FLUSH])
			fprintf(f, "%.9f -1 1\n", t);

		for (row = 0; row < wc_series_nrows(s); row++) {
			unsigned m = wc_series_cell(s, col, row);

			if (!m)
				continue;
			*present |= m;
			fprintf(f, "%.9f %.0f %u\n", t,
				((double)row + 0.5) * (double)rs, m);
		}
	}
	return bclose(b, f, rel, err);
}

static int write_latency(struct wc_bundle *b, struct cap *c,
			 const struct wc_series *s, char *lcats, size_t lsize,
			 char *lcount, size_t csize, struct wc_err *err)
{
	size_t first = WC_SERIES_LAT_BINS, last = 0, i, len = 0, clen = 0;
	uint64_t cum[WC_NCAT] = { 0 };
	char rel[PATH_MAX];
	FILE *f;
	int k;

	lcats[0] = '\0';
	for (k = 0; k < WC_NCAT; k++) {
		uint64_t n = wc_series_lat_n(s, (enum wc_cat)k);

		clen += (size_t)snprintf(lcount + clen, csize - clen, "%s%llu",
					 k ? " " : "", (unsigned long long)n);
		if (n)
			len += (size_t)snprintf(lcats + len, lsize - len, "%s%d",
						len ? " " : "", k);
		for (i = 0; i < WC_SERIES_LAT_BINS; i++) {
			if (!wc_series_lat_count(s, (enum wc_cat)k, i))
				continue;
			if (i < first)
				first = i;
			if (i > last)
				last = i;
		}
	}
	snprintf(rel, sizeof(rel), "%s/latency.dat", c->dir);
	f = bopen(b, rel, err);
	if (!f)
		return -1;
	fprintf(f, "# latency.dat - D2C latency CDF per category, %d bins a "
		"decade (docs/bundle.md)\n# 1 latency_ms (top of the bin), "
		"2-8 fraction of the category's requests at most that slow\n"
		"# (flush journal metadata data_read data_write discard other; "
		"NaN: no requests)\n", WC_SERIES_LAT_PER_DECADE);
	if (first <= last) {
		/* Start every curve at 0 at the bottom of the first bin. */
		fprintf(f, "%.6g", (double)wc_series_lat_lower(first) / 1e6);
		for (k = 0; k < WC_NCAT; k++)
			fputs(wc_series_lat_n(s, (enum wc_cat)k) ? " 0" : " NaN", f);
		fputs("\n", f);
	}
	for (i = first; i <= last && i < WC_SERIES_LAT_BINS; i++) {
		fprintf(f, "%.6g", (double)wc_series_lat_lower(i + 1) / 1e6);
		for (k = 0; k < WC_NCAT; k++) {
			uint64_t n = wc_series_lat_n(s, (enum wc_cat)k);

			cum[k] += wc_series_lat_count(s, (enum wc_cat)k, i);
			if (n)
				fprintf(f, " %.6f", (double)cum[k] / (double)n);
			else
				fputs(" NaN", f);
		}
		fputs("\n", f);
	}
	return bclose(b, f, rel, err);
}

static void fig_row(FILE *f, const char *label, const struct wc_figures *fg)
{
	int k;

	fputs("\"", f);
	for (; *label; label++)
		putc(*label == '"' ? '\'' : *label, f);
	fprintf(f, "\" %.9f", fg ? wc_secs(fg->idle_ns) : 0.0);
	for (k = 0; k < WC_NCAT; k++)
		fprintf(f, " %.9f", fg ? wc_secs(fg->time_ns[k]) : 0.0);
	fputs("\n", f);
}

static int write_phases(struct wc_bundle *b, struct cap *c,
			const struct wc_analysis *a, struct wc_err *err)
{
	char rel[PATH_MAX], name[NAME_MAX_LEN + 1];
	size_t p;
	FILE *f;

	snprintf(rel, sizeof(rel), "%s/phases.dat", c->dir);
	f = bopen(b, rel, err);
	if (!f)
		return -1;
	fputs("# phases.dat - time per phase of the main device (docs/bundle.md)\n"
	      "# 1 phase 2 idle_s, 3-9 seconds per category (flush journal "
	      "metadata data_read data_write discard other)\n", f);
	for (p = 0; p < wc_analysis_nphases(a); p++) {
		safe_name(wc_analysis_phase(a, p)->name, name, sizeof(name));
		fig_row(f, name, wc_analysis_phase_figures(a, p));
	}
	fig_row(f, "whole capture", wc_analysis_main(a));
	return bclose(b, f, rel, err);
}

/* Writes FIG's script from the variables in buf (NULL: out of memory). */
static int finish_fig(struct wc_bundle *b, struct cap *c, enum fig fig,
		      FILE *vars, char **buf, struct wc_err *err)
{
	char rel[PATH_MAX];
	int r;

	if (fclose(vars) != 0) {
		free(*buf);
		return nomem(err);
	}
	snprintf(rel, sizeof(rel), "%s/%s.gp", c->dir, figs[fig].name);
	r = write_gp(b, rel, figs[fig].name, *buf, err);
	free(*buf);
	*buf = NULL;
	if (r == 0)
		c->fig[fig] = true;
	return r;
}

static void common_vars(FILE *v, enum fig fig, const char *name,
			const char *what)
{
	char title[512];

	fprintf(v, "out = \"%s\"\n", figs[fig].name);
	snprintf(title, sizeof(title), "%s: %s", name, what);
	/* The capture's name is the input's: single-quoted, where gnuplot
	 * runs no `command` and expands no @macro (escape.h). */
	fputs("title = ", v);
	wc_escape_gnuplot(v, title);
	fputs("\n", v);
}

/* Every per-capture figure of c; s is the main device's series. */
static int write_figures(struct wc_bundle *b, struct cap *c,
			 const struct wc_series *s, struct wc_err *err)
{
	const struct wc_capture_meta *meta = wc_analysis_meta(c->a);
	const struct wc_figures *main = wc_analysis_main(c->a);
	uint64_t start = main ? main->start : wc_series_origin(s);
	double xmax = main ? wc_secs(main->window_ns) : 0;
	char cats[64], lcats[64], lcount[256], scats[64];
	double bin_ms;
	uint64_t flushes = 0, flush_ns = 0;
	unsigned present;
	size_t i, len = 0;
	char *buf = NULL;
	size_t blen;
	FILE *v;
	int k;

	if (wc_series_origin(s) == WC_NO_TIME)
		start = 0;
	for (i = 0; i < wc_series_nbins(s); i++) {
		struct wc_series_bin bin;

		wc_series_bin(s, i, &bin);
		flushes += bin.requests[WC_CAT_FLUSH];
		flush_ns += bin.flush_ns;
	}
	if (wc_series_nbins(s)) {
		double end = ((double)wc_series_origin(s) - (double)start +
			      (double)(wc_series_nbins(s) * wc_series_bin_ns(s))) / 1e9;

		if (!main || end < xmax * 1.02)
			xmax = xmax > end ? xmax : end;
	}
	if (xmax <= 0)
		xmax = 1e-3;
	cat_list(cats, sizeof(cats), main);

	if (write_timeline(b, c, s, start, &bin_ms, err) < 0 ||
	    write_scatter(b, c, s, start, &present, err) < 0 ||
	    write_latency(b, c, s, lcats, sizeof(lcats), lcount, sizeof(lcount),
			  err) < 0 ||
	    write_phases(b, c, c->a, err) < 0 ||
	    write_curve(c, s, start, err) < 0)
		return -1;
	c->scatter_requests = wc_series_scatter_requests(s);
	c->points = wc_series_points(s);

	scats[0] = '\0';
	for (k = 0; k < WC_NCAT; k++)
		if (present & (1u << k))
			len += (size_t)snprintf(scats + len, sizeof(scats) - len,
						"%s%d", len ? " " : "", k);

	/* Sector over time. */
	if (c->scatter_requests == 0 && flushes == 0) {
		c->why[FIG_SCATTER] = "no request with a sector and no flush";
	} else {
		char note[256];

		v = vars_open(&buf, &blen);
		if (!v)
			return nomem(err);
		common_vars(v, FIG_SCATTER, meta->name, "sector over time");
		if (c->points < c->scatter_requests)
			snprintf(note, sizeof(note), "%llu requests drawn as %llu "
				 "points: requests of one category in one pixel "
				 "are merged", (unsigned long long)c->scatter_requests,
				 (unsigned long long)c->points);
		else
			snprintf(note, sizeof(note), "%llu requests, one point each",
				 (unsigned long long)c->scatter_requests);
		fputs("note = ", v);
		wc_escape_gnuplot(v, note);
		if (c->points > SVG_MAX_POINTS)
			fprintf(v, "\n# Too many points for an SVG a browser can draw.\n"
				"formats = \"png\"");
		/* Few points must stay visible; many must not hide each other. */
		fprintf(v, "\ndatafile = \"scatter.dat\"\nscats = \"%s\"\n"
			"has_flush = %d\nps = %.2f\nxmax = %.9g\nymax = %.0f\n",
			scats, flushes > 0, c->points < 2000 ? 0.8 : 0.35, xmax,
			(double)(wc_series_nrows(s) ? wc_series_nrows(s) : 1) *
			(double)wc_series_row_sectors(s));
		if (finish_fig(b, c, FIG_SCATTER, v, &buf, err) < 0)
			return -1;
	}

	if (wc_series_nbins(s) == 0 || !cats[0]) {
		c->why[FIG_THROUGHPUT] = c->why[FIG_FLUSHES] =
			c->why[FIG_QUEUE] = "no completed request";
	} else {
		v = vars_open(&buf, &blen);
		if (!v)
			return nomem(err);
		common_vars(v, FIG_THROUGHPUT, meta->name, "throughput and IOPS");
		fprintf(v, "datafile = \"timeline.dat\"\ncats = \"%s\"\n"
			"xmax = %.9g\nbin_ms = %.6g\n", cats, xmax, bin_ms);
		if (finish_fig(b, c, FIG_THROUGHPUT, v, &buf, err) < 0)
			return -1;

		v = vars_open(&buf, &blen);
		if (!v)
			return nomem(err);
		common_vars(v, FIG_FLUSHES, meta->name, "cache flushes");
		fprintf(v, "datafile = \"timeline.dat\"\nxmax = %.9g\n"
			"flushes = %llu\nflush_s = %.9f\n", xmax,
			(unsigned long long)flushes, wc_secs(flush_ns));
		if (finish_fig(b, c, FIG_FLUSHES, v, &buf, err) < 0)
			return -1;

		v = vars_open(&buf, &blen);
		if (!v)
			return nomem(err);
		common_vars(v, FIG_QUEUE, meta->name, "queue depth");
		fprintf(v, "datafile = \"timeline.dat\"\nxmax = %.9g\n"
			"bin_ms = %.6g\n", xmax, bin_ms);
		if (finish_fig(b, c, FIG_QUEUE, v, &buf, err) < 0)
			return -1;
	}

	if (!lcats[0]) {
		c->why[FIG_LATENCY] = "no request with both D and C";
	} else {
		v = vars_open(&buf, &blen);
		if (!v)
			return nomem(err);
		common_vars(v, FIG_LATENCY, meta->name, "D2C latency");
		fprintf(v, "datafile = \"latency.dat\"\nlcats = \"%s\"\n"
			"lcount = \"%s\"\n", lcats, lcount);
		if (finish_fig(b, c, FIG_LATENCY, v, &buf, err) < 0)
			return -1;
	}

	if (!main || main->window_ns == 0 || !cats[0]) {
		c->why[FIG_PHASES] = "an empty window";
	} else {
		v = vars_open(&buf, &blen);
		if (!v)
			return nomem(err);
		common_vars(v, FIG_PHASES, meta->name, "where the time went, by phase");
		fprintf(v, "datafile = \"phases.dat\"\ncats = \"%s\"\n", cats);
		if (finish_fig(b, c, FIG_PHASES, v, &buf, err) < 0)
			return -1;
	}
	return 0;
}

/* True when a capture folder named name would be one of the bundle's
 * own files (names that begin with '.' never come out of safe_name()). */
static bool reserved_name(const char *name)
{
	static const char *const own[] = {
		"index.html", "report.txt", "report.json", "summary.csv",
		"render.sh", "gnuplot.log",
	};
	size_t i;

	if (strncmp(name, "compare-", 8) == 0)
		return true;
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcmp(name, own[i]) == 0)
			return true;
	return false;
}

/*
 * A folder name for the capture, unique in the bundle.  A name the
 * bundle uses itself gets "capture-" in front, once: a suffix alone
 * cannot help ("compare-time-2" still begins with "compare-").
 */
static void cap_dir(const struct wc_bundle *b, const char *name, char *out,
		    size_t size)
{
	char base[NAME_MAX_LEN + 1], safe[NAME_MAX_LEN + 1];
	unsigned n = 1;
	size_t i;
	bool taken;

	safe_name(name, safe, sizeof(safe));
	if (reserved_name(safe))
		snprintf(base, sizeof(base), "capture-%.*s", NAME_MAX_LEN - 8, safe);
	else
		snprintf(base, sizeof(base), "%s", safe);
	snprintf(out, size, "%s", base);
	do {
		taken = false;
		for (i = 0; i < b->ncaps && !taken; i++)
			taken = strcmp(b->caps[i].dir, out) == 0;
		if (taken)
			snprintf(out, size, "%s-%u", base, ++n);
	} while (taken);
}

int wc_bundle_add(struct wc_bundle *b, struct wc_analysis *a,
		  struct wc_err *err)
{
	const struct wc_capture_meta *meta;
	const struct wc_series *s;
	struct wc_series *empty = NULL;
	char path[PATH_MAX];
	struct cap *c;
	int r = -1, fd;

	if (!wc_analysis_has_series(a))
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "bundle: analysis without series (run "
				  "without o.series, or added before)");
	if (b->ncaps == b->capsize) {
		size_t n = b->capsize ? 2 * b->capsize : 8;
		struct cap *p = realloc(b->caps, n * sizeof(*p));

		if (!p) {
			nomem(err);
			goto out_series;
		}
		b->caps = p;
		b->capsize = n;
	}
	c = &b->caps[b->ncaps];
	memset(c, 0, sizeof(*c));
	c->a = a;
	meta = wc_analysis_meta(a);
	cap_dir(b, meta->name, c->dir, sizeof(c->dir));
	b->ncaps++;
	c->ignored_devices = wc_analysis_series_ignored(a);

	s = wc_analysis_series(a, meta->main_device);
	if (!s) {
		/* No request on the main device: empty figures say so. */
		if (wc_series_open(&empty, err) < 0)
			goto out_series;
		s = empty;
	}
	if (path_of(b, c->dir, path, sizeof(path), err) < 0)
		goto out_series;
	/* A folder left by an earlier run is used again; a link in its
	 * place is refused (bopen() would refuse it too, later). */
	if (mkdirat(b->dirfd, c->dir, 0777) < 0 && errno != EEXIST) {
		sys_err(err, path, "cannot create folder");
		goto out_series;
	}
	fd = openat(b->dirfd, c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		refuse_dir(err, path, errno);
		goto out_series;
	}
	close(fd);
	r = write_figures(b, c, s, err);

out_series:
	wc_series_free(empty);
	wc_analysis_release_series(a);
	return r;
}

static int write_reports(struct wc_bundle *b, struct wc_err *err)
{
	static const struct {
		const char *file;
		enum wc_format fmt;
	} reports[] = {
		{ "report.txt", WC_FORMAT_TEXT },
		{ "report.json", WC_FORMAT_JSON },
		{ "summary.csv", WC_FORMAT_CSV },
	};
	size_t i;
	int r = 0;

	for (i = 0; i < sizeof(reports) / sizeof(reports[0]) && r == 0; i++) {
		FILE *f = bopen(b, reports[i].file, err);

		if (!f)
			return -1;
		r = wc_report_write(f, reports[i].fmt, b->sum, err);
		if (bclose(b, f, reports[i].file, err) < 0)
			r = -1;
	}
	return r;
}

/* The four label columns of a capture in the comparison .dat files. */
static void cap_label(FILE *f, const struct cap *c)
{
	const struct wc_capture_meta *m = wc_analysis_meta(c->a);
	char fs[40];

	safe_name(m->fs[0] ? m->fs : "?", fs, sizeof(fs));
	if (!m->fs[0])
		strcpy(fs, "fs?");
	fprintf(f, "\"%s\" \"%s\" \"%s\" \"%s\"", c->dir, fs,
		wc_onoff(m->write_cache), wc_onoff(m->barrier));
}

static int write_compare(struct wc_bundle *b, struct wc_err *err)
{
	char names[MAX_PHASE_NAMES][NAME_MAX_LEN + 1], cats[64], plist[8192];
	struct wc_figures all;
	size_t i, p, j, nnames = 0, len = 0;
	double xmax = 1e-3;
	char *buf = NULL;
	size_t blen;
	FILE *f, *v;
	int k;

	/* Time by category per capture. */
	memset(&all, 0, sizeof(all));
	f = bopen(b, "compare-time.dat", err);
	if (!f)
		return -1;
	fputs("# compare-time.dat - time by category per capture, main device "
	      "(docs/bundle.md)\n# 1 capture 2 fs 3 write_cache 4 barriers "
	      "5 idle_s, 6-12 seconds per category (flush journal metadata "
	      "data_read data_write discard other)\n", f);
	for (i = 0; i < b->ncaps; i++) {
		const struct wc_sum_figs *m = &b->sum->caps[i].figs;
		const struct wc_figures *g = wc_analysis_main(b->caps[i].a);

		cap_label(f, &b->caps[i]);
		fprintf(f, " %.9f", wc_secs(m->part_ns[WC_PART_IDLE]));
		for (k = 0; k < WC_NCAT; k++) {
			fprintf(f, " %.9f", wc_secs(m->part_ns[k]));
			all.time_ns[k] += m->part_ns[k];
			all.requests[k] += g ? g->requests[k] : 0;
		}
		fputs("\n", f);
		if (m->io && m->col[WC_COL_WALL] > xmax)
			xmax = m->col[WC_COL_WALL];
	}
	if (bclose(b, f, "compare-time.dat", err) < 0)
		return -1;
	cat_list(cats, sizeof(cats), &all);
	if (cats[0]) {
		v = vars_open(&buf, &blen);
		if (!v)
			return nomem(err);
		fprintf(v, "out = \"compare-time\"\ntitle = \"where the time went: "
			"busy time by category per capture (main device)\"\n"
			"datafile = \"compare-time.dat\"\n"
			"cats = \"%s\"\nncap = %zu\n", cats, b->ncaps);
		fclose(v);
		if (!buf || write_gp(b, "compare-time.gp", "compare-time", buf, err) < 0) {
			free(buf);
			return buf ? -1 : nomem(err);
		}
		free(buf);
		b->compare[CMP_TIME] = true;
	}

	/* Wall time per phase: the union of the phase names, in order. */
	for (i = 0; i < b->ncaps; i++) {
		const struct wc_analysis *a = b->caps[i].a;

		for (p = 0; p < wc_analysis_nphases(a); p++) {
			char n[NAME_MAX_LEN + 1];

			safe_name(wc_analysis_phase(a, p)->name, n, sizeof(n));
			for (j = 0; j < nnames && strcmp(names[j], n); j++)
				;
			if (j == nnames && nnames < MAX_PHASE_NAMES)
				strcpy(names[nnames++], n);
		}
	}
	if (nnames) {
		f = bopen(b, "compare-phases.dat", err);
		if (!f)
			return -1;
		fputs("# compare-phases.dat - wall time per phase and capture "
		      "(docs/bundle.md)\n# 1 capture 2 fs 3 write_cache 4 barriers, "
		      "then seconds per phase:", f);
		for (j = 0; j < nnames; j++)
			fprintf(f, " %s", names[j]);
		fputs("\n", f);
		for (i = 0; i < b->ncaps; i++) {
			const struct wc_analysis *a = b->caps[i].a;

			cap_label(f, &b->caps[i]);
			for (j = 0; j < nnames; j++) {
				double wall = 0;
				bool seen = false;

				for (p = 0; p < wc_analysis_nphases(a); p++) {
					char n[NAME_MAX_LEN + 1];

					safe_name(wc_analysis_phase(a, p)->name, n, sizeof(n));
					if (strcmp(n, names[j]) == 0) {
						wall += wc_analysis_phase(a, p)->wall_s;
						seen = true;
					}
				}
				if (seen)
					fprintf(f, " %.9f", wall);
				else
					fputs(" NaN", f);
			}
			fputs("\n", f);
		}
		if (bclose(b, f, "compare-phases.dat", err) < 0)
			return -1;
		plist[0] = '\0';
		for (j = 0; j < nnames; j++)
			len += (size_t)snprintf(plist + len, sizeof(plist) - len,
						"%s%s", j ? " " : "", names[j]);
		v = vars_open(&buf, &blen);
		if (!v)
			return nomem(err);
		fprintf(v, "out = \"compare-phases\"\ntitle = \"wall time per "
			"phase\"\ndatafile = \"compare-phases.dat\"\nphases = ");
		wc_escape_gnuplot(v, plist);
		fprintf(v, "\nncap = %zu\n", b->ncaps);
		fclose(v);
		if (!buf || write_gp(b, "compare-phases.gp", "compare-phases", buf, err) < 0) {
			free(buf);
			return buf ? -1 : nomem(err);
		}
		free(buf);
		b->compare[CMP_PHASES] = true;
	}

	/* Throughput curves. */
	f = bopen(b, "compare-throughput.dat", err);
	if (!f)
		return -1;
	fputs("# compare-throughput.dat - total MB/s over time, one block per "
	      "capture in order (docs/bundle.md)\n# 1 time_s 2 MB/s\n", f);
	len = 0;
	plist[0] = '\0';
	for (i = 0; i < b->ncaps; i++) {
		const struct cap *c = &b->caps[i];

		fprintf(f, "# %s\n", c->dir);
		if (c->ncurve == 0)
			fputs("0 NaN\n", f);
		for (j = 0; j < c->ncurve; j++)
			fprintf(f, "%.6f %.6g\n", c->curve[j].t, c->curve[j].mbps);
		fputs("\n\n", f);
		/* Numbered as in report.txt and the figures' labels. */
		len += (size_t)snprintf(plist + len, sizeof(plist) > len ? sizeof(plist) - len : 0,
					"%s#%zu:%s", i ? " " : "", i + 1, c->dir);
	}
	if (bclose(b, f, "compare-throughput.dat", err) < 0)
		return -1;
	if (len >= sizeof(plist))
		return 0;      /* too many names for one figure's legend */
	v = vars_open(&buf, &blen);
	if (!v)
		return nomem(err);
	fprintf(v, "out = \"compare-throughput\"\ntitle = \"throughput of "
		"every capture (main device)\"\ndatafile = \"compare-throughput.dat\"\n"
		"names = ");
	wc_escape_gnuplot(v, plist);
	fprintf(v, "\nxmax = %.9g\n", xmax);
	fclose(v);
	if (!buf || write_gp(b, "compare-throughput.gp", "compare-throughput",
			     buf, err) < 0) {
		free(buf);
		return buf ? -1 : nomem(err);
	}
	free(buf);
	b->compare[CMP_THROUGHPUT] = true;
	return 0;
}

/*
 * compare-difference.dat: per capture, its difference against the
 * baseline (summary.h) split into parts; the figure stacks what each part
 * added above zero and what it saved below.
 */
static int write_difference(struct wc_bundle *b, struct wc_err *err)
{
	const struct wc_summary *s = b->sum;
	char *buf = NULL;
	size_t i, blen;
	FILE *f, *v;
	int p;

	f = bopen(b, "compare-difference.dat", err);
	if (!f)
		return -1;
	fputs("# compare-difference.dat - each capture's wall-time difference "
	      "against the baseline and its parts, seconds (docs/bundle.md)\n"
	      "# 1 capture 2 fs 3 write_cache 4 barriers 5 role 6 wall, 7-14 "
	      "flush journal metadata data_read data_write discard other "
	      "off_device\n", f);
	for (i = 0; i < s->ncaps; i++) {
		const struct wc_sum_diff *d = &s->caps[i].diff;

		cap_label(f, &b->caps[i]);
		fprintf(f, " \"%s\" %.9f", s->caps[i].group == s->base_group ?
			"baseline" : "-", (double)d->wall_ns / 1e9);
		for (p = 0; p < WC_NPARTS; p++)
			fprintf(f, " %.9f", (double)d->part_ns[p] / 1e9);
		fputs("\n", f);
	}
	if (bclose(b, f, "compare-difference.dat", err) < 0)
		return -1;
	v = vars_open(&buf, &blen);
	if (!v)
		return nomem(err);
	fprintf(v, "out = \"compare-difference\"\ntitle = \"what each category "
		"added (up) or saved (down) against the baseline, main device\"\n"
		"datafile = \"compare-difference.dat\"\nncap = %zu\n", s->ncaps);
	fclose(v);
	if (!buf || write_gp(b, "compare-difference.gp", "compare-difference",
			     buf, err) < 0) {
		free(buf);
		return buf ? -1 : nomem(err);
	}
	free(buf);
	b->compare[CMP_DIFFERENCE] = true;
	return 0;
}

static int write_render_sh(struct wc_bundle *b, struct wc_err *err)
{
	FILE *f = bopen(b, "render.sh", err);

	if (!f)
		return -1;
	fputs("#!/usr/bin/env bash\n"
	      "# render.sh - renders every figure of this bundle again (PNG and\n"
	      "# SVG) from its .dat and .gp files.  Needs gnuplot (Debian:\n"
	      "# apt-get install gnuplot-nox).\n"
	      "set -euo pipefail\n"
	      "cd \"$(dirname \"$0\")\"\n"
	      "for g in *.gp */*.gp; do\n"
	      "\t[[ -e $g ]] || continue\n"
	      "\t(cd \"$(dirname \"$g\")\" && gnuplot \"$(basename \"$g\")\")\n"
	      "done\n", f);
	fchmod(fileno(f), 0755);
	return bclose(b, f, "render.sh", err);
}

/* gnuplot's path: $WCANALYZE_GNUPLOT or PATH; NULL when none. */
static char *find_gnuplot(void)
{
	const char *env = getenv("WCANALYZE_GNUPLOT");
	const char *name = "gnuplot", *path;
	char cand[PATH_MAX];

	if (env) {
		if (!*env)
			return NULL;
		name = env;
	}
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		int m = snprintf(cand, sizeof(cand), "%.*s/%s", (int)n,
				 n ? path : ".", name);

		if (m > 0 && (size_t)m < sizeof(cand) && access(cand, X_OK) == 0)
			return strdup(cand);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

/* Runs gnuplot with a fixed argv, no shell, in the folder dirfd. */
static pid_t spawn(const char *gnuplot, int dirfd, const char *outvar,
		   const char *script, int logfd)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* Child: only async-signal-safe calls from here on. */
	if (fchdir(dirfd) < 0 || dup2(logfd, STDOUT_FILENO) < 0 ||
	    dup2(logfd, STDERR_FILENO) < 0)
		_exit(126);
	execl(gnuplot, gnuplot, "-e", outvar, script, (char *)NULL);
	_exit(127);
}

/* The folder of the bundle that holds the scripts of capture i, or the
 * bundle's own folder for i == ncaps. */
static const char *folder_of(const struct wc_bundle *b, size_t i)
{
	return i < b->ncaps ? b->caps[i].dir : ".";
}

/* An fd of folder_of(b, i), refusing a link (see parent_fd()). */
static int folder_fd(const struct wc_bundle *b, size_t i, struct wc_err *err)
{
	char rel[NAME_MAX_LEN + 32];
	const char *leaf;

	if (i == b->ncaps)
		return parent_fd(b, "x", &leaf, err);
	snprintf(rel, sizeof(rel), "%s/x", b->caps[i].dir);
	return parent_fd(b, rel, &leaf, err);
}

/*
 * Moves the PNG and SVG files gnuplot wrote into the private folder
 * rname of folder i up into folder i, each renamed over its old copy
 * (so a link planted under that name is replaced, not written through),
 * then removes rname with anything else in it.
 */
static int collect(struct wc_bundle *b, size_t i, const char *rname,
		   struct wc_err *err)
{
	char path[PATH_MAX];
	int fd, rfd, pass, r = 0;

	fd = folder_fd(b, i, err);
	if (fd < 0)
		return -1;
	/* Entries renamed while a folder is read may hide others from
	 * readdir(): read it again until it is empty. */
	for (pass = 0; pass < 4; pass++) {
		struct dirent *de;
		DIR *d;

		rfd = openat(fd, rname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (rfd < 0 || !(d = fdopendir(rfd))) {
			if (rfd >= 0)
				close(rfd);
			break;
		}
		while ((de = readdir(d))) {
			const char *n = de->d_name, *dot = strrchr(n, '.');
			struct stat st;

			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			if (fstatat(rfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
				st.st_mode = 0;
			if (S_ISREG(st.st_mode) && dot &&
			    (!strcmp(dot, ".png") || !strcmp(dot, ".svg"))) {
				if (renameat(rfd, n, fd, n) == 0)
					continue;
				if (r == 0) {
					snprintf(path, sizeof(path), "%s/%s/%s",
						 b->dir, folder_of(b, i), n);
					r = sys_err(err, path, "cannot replace");
				}
			}
			unlinkat(rfd, n, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
		}
		closedir(d);
		if (unlinkat(fd, rname, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY)
			break;
	}
	close(fd);
	return r;
}

/*
 * Runs gnuplot on every queued script, a few at a time, in the script's
 * folder, with output to gnuplot.log.  gnuplot writes its figures into a
 * fresh folder of ours (outdir, see plots/common.gp) in each folder, as
 * it opens them through links; collect() moves them in.  Returns 0, or
 * -1 naming the first script that failed.
 */
static int render(struct wc_bundle *b, const char *gnuplot, struct wc_err *err)
{
	char logpath[PATH_MAX], path[PATH_MAX], logtmp[32], rname[32], outvar[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t par = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (size_t)ncpu;
	pid_t *pids = NULL;
	size_t next = 0, done = 0, made = 0, i;
	int logfd, r = 0;
	struct stat st;

	if (path_of(b, "gnuplot.log", logpath, sizeof(logpath), err) < 0)
		return -1;
	logfd = create_fresh(b->dirfd, logtmp, sizeof(logtmp), O_APPEND);
	if (logfd < 0)
		return sys_err(err, logpath, "cannot create");
	fresh_name(rname, sizeof(rname), "render");
	snprintf(outvar, sizeof(outvar), "outdir = '%s/'", rname);
	for (made = 0; made <= b->ncaps; made++) {
		int fd = folder_fd(b, made, err);

		if (fd < 0)
			goto fail_collect;
		if (mkdirat(fd, rname, 0700) < 0) {
			snprintf(path, sizeof(path), "%s/%s/%s", b->dir,
				 folder_of(b, made), rname);
			sys_err(err, path, "cannot create folder");
			close(fd);
			goto fail_collect;
		}
		close(fd);
	}
	pids = calloc(b->nscripts ? b->nscripts : 1, sizeof(*pids));
	if (!pids) {
		nomem(err);
		goto fail_collect;
	}
	while (done < b->nscripts) {
		int status;

		while (next < b->nscripts && next - done < par) {
			const char *script;
			int fd = parent_fd(b, b->scripts[next], &script, err);

			if (fd < 0)
				goto fail_wait;
			pids[next] = spawn(gnuplot, fd, outvar, script, logfd);
			close(fd);
			if (pids[next] < 0) {
				sys_err(err, gnuplot, "cannot run");
				goto fail_wait;
			}
			next++;
		}
		if (waitpid(pids[done], &status, 0) < 0)
			status = 0;
		if (r == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			wc_err_set(err, WC_ERR_SYSTEM, logpath, NULL, WC_NO_OFFSET,
				   "gnuplot failed on %s (%s %d): see this log",
				   b->scripts[done],
				   WIFEXITED(status) ? "exit" : "signal",
				   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			r = -1;
		}
		done++;
	}
	goto collect;

fail_wait:
	for (i = done; i < next; i++)
		waitpid(pids[i], NULL, 0);
fail_collect:
	r = -1;
collect:
	for (i = 0; i < made; i++)
		if (collect(b, i, rname, err) < 0)
			r = -1;
	free(pids);
	/* The log replaces an old one only when gnuplot said something. */
	if (fstat(logfd, &st) == 0 && st.st_size == 0) {
		unlinkat(b->dirfd, logtmp, 0);
		unlinkat(b->dirfd, "gnuplot.log", 0);
	} else if (renameat(b->dirfd, logtmp, b->dirfd, "gnuplot.log") < 0) {
		unlinkat(b->dirfd, logtmp, 0);
		if (r == 0)
			r = sys_err(err, logpath, "cannot replace");
	}
	close(logfd);
	return r;
}

static void html_swatch(FILE *f, const char *color)
{
	if (color[0] == '#')
		fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>", color);
}

static void html_figure(FILE *f, const char *dir,
			const char *name, const char *caption, int w, int h,
			const char *alt, bool svg)
{
	char pre[NAME_MAX_LEN + 24];
	const char *big = svg ? "svg" : "png";

	snprintf(pre, sizeof(pre), "%s%s", dir ? dir : "", dir ? "/" : "");
	/* The image is there even when gnuplot was not: render.sh then
	 * makes the page whole without writing it again. */
	fputs("<figure>\n", f);
	fprintf(f, "<a href=\"%s%s.%s\"><img src=\"%s%s.png\" width=\"%d\" "
		"height=\"%d\" alt=\"", pre, name, big, pre, name, w, h);
	wc_escape_html(f, alt);
	fputs("\"></a>\n", f);
	fputs("<figcaption>", f);
	wc_escape_html(f, caption);
	fputs(" (", f);
	if (svg)
		fprintf(f, "<a href=\"%s%s.svg\">SVG</a>, ", pre, name);
	else
		fputs("no SVG: too many points for a browser, ", f);
	fprintf(f, "<a href=\"%s%s.gp\">gnuplot script</a>)</figcaption>\n"
		"</figure>\n", pre, name);
}

static void html_cat_head(FILE *f, const struct wc_bundle *b)
{
	int k;

	for (k = 0; k < WC_NCAT; k++) {
		fputs("<th>", f);
		html_swatch(f, b->catcolor[k]);
		wc_escape_html(f, wc_cat_name((enum wc_cat)k));
		fputs("</th>", f);
	}
	fputs("<th>", f);
	html_swatch(f, b->idlecolor);
	fputs("idle</th>", f);
}

static void html_cell_time(FILE *f, uint64_t ns, uint64_t window)
{
	fprintf(f, "<td>%.3f", wc_secs(ns));
	if (window)
		fprintf(f, " <small>(%.1f%%)</small>", 100.0 * (double)ns / (double)window);
	fputs("</td>", f);
}

static void html_findings(FILE *f, const struct wc_summary *s)
{
	size_t i;

	if (!s->nfindings)
		return;
	fputs("<h2 id=\"findings\">Findings</h2>\n<ul>\n", f);
	for (i = 0; i < s->nfindings; i++) {
		fputs("<li>", f);
		wc_escape_html(f, s->findings[i].text);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

/* Signed seconds of a difference, exact to the millisecond shown. */
static void html_cell_diff(FILE *f, int64_t ns)
{
	fprintf(f, "<td>%+.3f</td>", (double)ns / 1e9);
}

/* The summary's differences: a row per group of runs (a capture when it
 * ran once), its parts, and what the noise rule says. */
static void html_differences(FILE *f, const struct wc_bundle *b)
{
	static const char *const verdict[] = {
		[WC_VERDICT_BASELINE] = "baseline",
		[WC_VERDICT_REAL] = "exceeds the noise",
		[WC_VERDICT_NOISE] = "within noise",
		[WC_VERDICT_NO_ESTIMATE] = "no noise estimate (one run)",
	};
	const struct wc_summary *s = b->sum;
	size_t g, i;
	int k;

	if (!s->has_diff)
		return;
	fputs("<h2 id=\"difference\">Difference against the baseline "
	      "(main device, seconds)</h2>\n<table>\n<tr><th>#</th>"
	      "<th class=\"l\">captures</th><th>runs</th><th>wall</th>", f);
	html_cat_head(f, b);
	fputs("<th class=\"l\">noise</th></tr>\n", f);
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];

		fprintf(f, "<tr><td>%zu</td><td class=\"l\">", g + 1);
		for (i = 0; i < gr->n; i++) {
			if (i)
				fputs(", ", f);
			wc_escape_html(f, s->caps[gr->members[i]].meta->name);
		}
		fprintf(f, "</td><td>%zu</td>", gr->n);
		html_cell_diff(f, gr->diff.wall_ns);
		for (k = 0; k < WC_NPARTS; k++)
			html_cell_diff(f, gr->diff.part_ns[k]);
		fprintf(f, "<td class=\"l\">%s</td></tr>\n",
			verdict[gr->verdict]);
	}
	fputs("</table>\n", f);
}

static int write_html(struct wc_bundle *b, struct wc_err *err)
{
	static const char *const compare_captions[NCOMPARE] = {
		"Busy time of each capture by category, stacked, labelled with "
		"the busy time and the window; captures numbered as in the table "
		"above",
		"Wall time of each phase in each capture",
		"Throughput over time of every capture, overlaid",
		"Difference of each capture's wall time against the baseline: "
		"what each category added (above zero) or saved (below), the dot "
		"at the wall difference; captures numbered as in the table above",
	};
	char *report = NULL, path[PATH_MAX];
	size_t i;
	FILE *f;
	int k, fig;

	if (path_of(b, "report.txt", path, sizeof(path), err) < 0 ||
	    slurp(b->dirfd, "report.txt", path, &report, err) < 0)
		return -1;
	f = bopen(b, "index.html", err);
	if (!f) {
		free(report);
		return -1;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>wcanalyze: where the time went</title>\n<style>\n"
	      "body { font-family: sans-serif; max-width: 1280px; margin: 1em auto; "
	      "padding: 0 1em; color: #222; }\n"
	      "table { border-collapse: collapse; margin: 0.5em 0; }\n"
	      "th, td { border: 1px solid #bbb; padding: 2px 8px; text-align: right; }\n"
	      "th { background: #eee; } .l { text-align: left; }\n"
	      "img { max-width: 100%; height: auto; border: 1px solid #ddd; }\n"
	      "figure { margin: 1em 0 2em 0; }\n"
	      "pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }\n"
	      ".sw { display: inline-block; width: 0.9em; height: 0.9em; "
	      "margin-right: 0.3em; vertical-align: middle; }\n"
	      ".note { background: #fff3cd; padding: 0.5em; }\n"
	      "</style>\n</head>\n<body>\n<h1>wcanalyze: where the time went</h1>\n", f);
	fprintf(f, "<p>wcanalyze %s, %zu capture%s.  For a mail or a bug report: "
		"<a href=\"report.txt\">report.txt</a> (plain text, 80 columns); "
		"for programs: <a href=\"report.json\">report.json</a>, "
		"<a href=\"summary.csv\">summary.csv</a>.  Every figure is drawn "
		"by gnuplot from the <code>.dat</code> and <code>.gp</code> files "
		"beside it; <a href=\"render.sh\">render.sh</a> draws them again.</p>\n",
		WC_VERSION, b->ncaps, b->ncaps == 1 ? "" : "s");
	if (!b->rendered)
		fputs("<p class=\"note\">The figures are not rendered: gnuplot was "
		      "not available.  Run <code>render.sh</code> in this folder "
		      "(it needs gnuplot) and reload this page.</p>\n", f);
	html_findings(f, b->sum);

	fputs("<h2 id=\"summary\">Time by category (main device)</h2>\n<table>\n"
	      "<tr><th>#</th><th class=\"l\">capture</th><th>fs</th><th>write cache</th>"
	      "<th>barriers</th><th>window (s)</th>", f);
	html_cat_head(f, b);
	fputs("</tr>\n", f);
	for (i = 0; i < b->ncaps; i++) {
		const struct wc_capture_meta *m = b->sum->caps[i].meta;
		const struct wc_sum_figs *sf = &b->sum->caps[i].figs;

		fprintf(f, "<tr><td>%zu</td><td class=\"l\"><a href=\"#cap-%s\">",
			i + 1, b->caps[i].dir);
		wc_escape_html(f, m->name);
		fputs("</a></td><td>", f);
		wc_escape_html(f, m->fs[0] ? m->fs : "?");
		fprintf(f, "</td><td>%s</td><td>%s</td>", wc_onoff(m->write_cache),
			wc_onoff(m->barrier));
		if (!sf->io) {
			fprintf(f, "<td colspan=\"%d\">no I/O</td></tr>\n", WC_NCAT + 2);
			continue;
		}
		fprintf(f, "<td>%.3f</td>", sf->col[WC_COL_WALL]);
		for (k = 0; k < WC_NPARTS; k++)
			html_cell_time(f, sf->part_ns[k], sf->wall_ns);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	html_differences(f, b);

	if (b->compare[CMP_TIME] || b->compare[CMP_PHASES] ||
	    b->compare[CMP_THROUGHPUT] || b->compare[CMP_DIFFERENCE]) {
		fputs("<h2 id=\"compare\">Across captures</h2>\n", f);
		for (k = 0; k < NCOMPARE; k++)
			if (b->compare[k])
				html_figure(f, NULL, compare_names[k],
					    compare_captions[k],
					    k == CMP_THROUGHPUT ? 1200 : (b->ncaps > 6 ?
						260 + 125 * (int)b->ncaps : 1000),
					    k == CMP_THROUGHPUT ? 680 : 700, compare_captions[k], true);
	}

	for (i = 0; i < b->ncaps; i++) {
		const struct cap *c = &b->caps[i];
		const struct wc_capture_meta *m = wc_analysis_meta(c->a);
		const struct wc_figures *fg = wc_analysis_main(c->a);
		const struct wc_sum_figs *sf = &b->sum->caps[i].figs;

		fprintf(f, "<h2 id=\"cap-%s\">", c->dir);
		wc_escape_html(f, m->name);
		fputs("</h2>\n<p>", f);
		fputs("filesystem ", f);
		wc_escape_html(f, m->fs[0] ? m->fs : "unknown");
		fprintf(f, ", write cache %s, barriers %s, %llu events", wc_onoff(m->write_cache),
			wc_onoff(m->barrier), (unsigned long long)m->events);
		if (m->events_dropped > 0)
			fprintf(f, ", <strong>%lld events lost</strong>",
				(long long)m->events_dropped);
		if (c->ignored_devices)
			fprintf(f, "; %llu requests on devices beyond the first %d "
				"are not in the figures",
				(unsigned long long)c->ignored_devices,
				WC_SERIES_MAX_DEVICES);
		fprintf(f, ".  Data and scripts: <a href=\"%s/\">%s/</a>.</p>\n",
			c->dir, c->dir);
		if (fg) {
			fputs("<table>\n<tr><th class=\"l\">category</th><th>time (s)</th>"
			      "<th>share</th><th>requests</th><th>bytes</th></tr>\n", f);
			for (k = 0; k <= WC_NCAT; k++) {
				/* The parts: categories, then idle. */
				uint64_t ns = sf->part_ns[k];

				fputs("<tr><td class=\"l\">", f);
				html_swatch(f, k < WC_NCAT ? b->catcolor[k] : b->idlecolor);
				wc_escape_html(f, k < WC_NCAT ? wc_cat_name((enum wc_cat)k) : "idle");
				fprintf(f, "</td><td>%.3f</td><td>%.1f%%</td>", wc_secs(ns),
					sf->wall_ns ? 100.0 * (double)ns / (double)sf->wall_ns : 0.0);
				if (k < WC_NCAT)
					fprintf(f, "<td>%llu</td><td>%llu</td></tr>\n",
						(unsigned long long)fg->requests[k],
						(unsigned long long)fg->bytes[k]);
				else
					fputs("<td></td><td></td></tr>\n", f);
			}
			fprintf(f, "<tr><th class=\"l\">window</th><th>%.3f</th>"
				"<th>100%%</th><th></th><th></th></tr>\n</table>\n",
				sf->col[WC_COL_WALL]);
		}
		for (fig = 0; fig < NFIG; fig++) {
			char alt[512];

			snprintf(alt, sizeof(alt), "%s: %s", m->name, figs[fig].caption);
			if (c->fig[fig]) {
				html_figure(f, c->dir, figs[fig].name, figs[fig].caption,
					    figs[fig].width, figs[fig].height, alt,
					    fig != FIG_SCATTER || c->points <= SVG_MAX_POINTS);
			} else {
				fputs("<p>No figure: ", f);
				wc_escape_html(f, figs[fig].caption);
				fputs(" (", f);
				wc_escape_html(f, c->why[fig] ? c->why[fig] : "not written");
				fputs(").</p>\n", f);
			}
		}
	}
	fputs("<h2 id=\"report\">Text report</h2>\n<pre>", f);
	wc_escape_html(f, report);
	fputs("</pre>\n</body>\n</html>\n", f);
	free(report);
	return bclose(b, f, "index.html", err);
}

int wc_bundle_close(struct wc_bundle *b, const struct wc_summary *s,
		    struct wc_err *err)
{
	char *gnuplot = NULL;
	int r = 0;

	if (b->ncaps == 0)
		return wc_err_set(err, WC_ERR_USAGE, b->dir, NULL, WC_NO_OFFSET,
				  "no capture to put in the bundle");
	if (!s || s->ncaps != b->ncaps)
		return wc_err_set(err, WC_ERR_USAGE, b->dir, NULL, WC_NO_OFFSET,
				  "bundle: the summary is not of its captures");
	b->sum = s;
	if (write_reports(b, err) < 0 || write_render_sh(b, err) < 0)
		return -1;
	if (b->ncaps > 1 && write_compare(b, err) < 0)
		return -1;
	if (s->has_diff && write_difference(b, err) < 0)
		return -1;
	gnuplot = find_gnuplot();
	if (gnuplot) {
		r = render(b, gnuplot, err);
		b->rendered = true;
	} else {
		free(b->notice);
		const char *env = getenv("WCANALYZE_GNUPLOT");

		if (asprintf(&b->notice, "%s: figures not rendered; their .dat "
			     "and .gp files are in %s; to render them, install "
			     "gnuplot (apt-get install gnuplot-nox) and run "
			     "%s/render.sh",
			     env && !*env ? "WCANALYZE_GNUPLOT is empty" :
			     "gnuplot not found", b->dir, b->dir) < 0)
			b->notice = NULL;
	}
	free(gnuplot);
	if (write_html(b, err) < 0)
		return -1;
	return r;
}

const char *wc_bundle_notice(const struct wc_bundle *b)
{
	return b->notice;
}

const char *wc_bundle_index(const struct wc_bundle *b)
{
	return b->index;
}

const char *wc_bundle_plots(const struct wc_bundle *b)
{
	return b->plots;
}

void wc_bundle_free(struct wc_bundle *b)
{
	size_t i;

	if (!b)
		return;
	drop_pending(b);
	if (b->dirfd >= 0)
		close(b->dirfd);
	for (i = 0; i < b->ncaps; i++)
		free(b->caps[i].curve);
	free(b->caps);
	for (i = 0; i < b->nscripts; i++)
		free(b->scripts[i]);
	free(b->scripts);
	free(b->common);
	free(b->notice);
	free(b->index);
	free(b->dir);
	free(b);
}
