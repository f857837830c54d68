/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot.c - gnuplot templates, scripts and rendering (see plot.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "out/plot.h"
#include "base/buildinfo.h"
#include "compare/summary.h"

/* gnuplots running at once, at most. */
#define MAX_PARALLEL 8

struct wc_plot {
	char templates[PATH_MAX];
	char *common;                    /* plots/common.gp */
	char color[WC_NPARTS][8];        /* "#RRGGBB", from common.gp */
	char **scripts;                  /* queued, relative to the folder */
	size_t nscripts, scriptsize;
	bool rendered;
	char *notice;
};

static int sys_err(struct wc_err *err, const char *file, const char *what)
{
	return wc_err_set(err, WC_ERR_SYSTEM, file, NULL, WC_NO_OFFSET,
			  "%s: %s", what, strerror(errno));
}

static int nomem(struct wc_err *err)
{
	return wc_err_oom(err, NULL, NULL);
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

static bool try_templates(struct wc_plot *p, const char *dir)
{
	char path[PATH_MAX];

	if (!fits(path, sizeof(path), "%s/common.gp", dir) ||
	    access(path, R_OK) != 0)
		return false;
	return fits(p->templates, sizeof(p->templates), "%s", dir);
}

/* The lookup order of bundle.h. */
static int find_templates(struct wc_plot *p, struct wc_err *err)
{
	const char *env = getenv("WCANALYZE_PLOTS");
	char exe[PATH_MAX], cand[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		if (try_templates(p, env))
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
			    try_templates(p, cand))
				return 0;
			if (fits(cand, sizeof(cand), "%s/../share/wcanalyze/plots", exe) &&
			    try_templates(p, cand))
				return 0;
		}
	}
	if ((fits(cand, sizeof(cand), "%s/plots", wc_datadir) &&
	     try_templates(p, cand)) || try_templates(p, "plots"))
		return 0;
	return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
			  "gnuplot templates not found in %s/plots nor "
			  "./plots: set WCANALYZE_PLOTS to the source tree's "
			  "plots folder", wc_datadir);
}

/* Reads NAME = "#.. #.." from common.gp, so that the page's colour keys
 * are the figures' colours by construction. */
static void parse_colors(struct wc_plot *p)
{
	const char *s = strstr(p->common, "\ncatcolor = \"");
	int k;

	if (s) {
		s += strlen("\ncatcolor = \"");
		for (k = 0; k < WC_NCAT && *s == '#'; k++) {
			snprintf(p->color[k], sizeof(p->color[k]), "%.7s", s);
			s += 7;
			while (*s == ' ')
				s++;
		}
	}
	s = strstr(p->common, "\nidlecolor = \"");
	if (s)
		snprintf(p->color[WC_PART_IDLE], sizeof(p->color[0]), "%.7s",
			 s + strlen("\nidlecolor = \""));
	s = strstr(p->common, "\ndestagecolor = \"");
	if (s)
		snprintf(p->color[WC_PART_INTERNAL], sizeof(p->color[0]),
			 "%.7s", s + strlen("\ndestagecolor = \""));
}

int wc_plot_open(struct wc_plot **out, struct wc_err *err)
{
	struct wc_plot *p;
	char path[PATH_MAX];

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return nomem(err);
	if (find_templates(p, err) < 0)
		goto fail_free;
	if (!fits(path, sizeof(path), "%s/common.gp", p->templates)) {
		wc_err_set(err, WC_ERR_USAGE, p->templates, NULL, WC_NO_OFFSET,
			   "path too long");
		goto fail_free;
	}
	if (wc_outdir_read(NULL, path, &p->common, err) < 0)
		goto fail_free;
	parse_colors(p);
	*out = p;
	return 0;

fail_free:
	wc_plot_free(p);
	return -1;
}

const char *wc_plot_templates(const struct wc_plot *p)
{
	return p->templates;
}

const char *wc_plot_color(const struct wc_plot *p, int part)
{
	return part >= 0 && part < WC_NPARTS ? p->color[part] : "";
}

static int queue(struct wc_plot *p, const char *rel, struct wc_err *err)
{
	char *copy;

	if (p->nscripts == p->scriptsize) {
		size_t n = p->scriptsize ? 2 * p->scriptsize : 16;
		char **s = realloc(p->scripts, n * sizeof(*s));

		if (!s)
			return nomem(err);
		p->scripts = s;
		p->scriptsize = n;
	}
	copy = strdup(rel);
	if (!copy)
		return nomem(err);
	p->scripts[p->nscripts++] = copy;
	return 0;
}

void wc_plot_forget(struct wc_plot *p, const char *sub)
{
	size_t i, k = 0, n = strlen(sub);

	for (i = 0; i < p->nscripts; i++) {
		if (!strncmp(p->scripts[i], sub, n) && p->scripts[i][n] == '/')
			free(p->scripts[i]);
		else
			p->scripts[k++] = p->scripts[i];
	}
	p->nscripts = k;
}

/* Whether the script's variables make it draw format fmt ("png",
 * "svg"): the words of its `formats = "..."` line, else common.gp's
 * default, both. */
static bool draws(const char *vars, const char *fmt)
{
	const char *v = vars ? strstr(vars, "formats = \"") : NULL;
	size_t n = strlen(fmt);

	if (!v)
		return true;
	v += strlen("formats = \"");
	while (*v && *v != '"') {
		size_t w = strcspn(v, " \"");

		if (w == n && !strncmp(v, fmt, n))
			return true;
		v += w;
		v += *v == ' ';
	}
	return false;
}

/* The figures script rel ("F/x.gp") makes, F/x.png and F/x.svg where its
 * formats name them, are the bundle's files whether gnuplot renders them
 * now or render.sh later; only those: a re-run removes what the list
 * names and it did not write again, and a user's own F/x.svg beside a
 * PNG-only figure is not the bundle's. */
static void note_figures(struct wc_outdir *d, const char *rel,
			 const char *vars)
{
	char fig[PATH_MAX];
	size_t n = strlen(rel);

	if (n < 3 || n + 2 > sizeof(fig) || strcmp(rel + n - 3, ".gp"))
		return;
	memcpy(fig, rel, n - 3);
	memcpy(fig + n - 3, ".png", 5);
	if (draws(vars, "png"))
		wc_outdir_note(d, fig);
	memcpy(fig + n - 3, ".svg", 5);
	if (draws(vars, "svg"))
		wc_outdir_note(d, fig);
}

int wc_plot_script(struct wc_plot *p, struct wc_outdir *d, const char *rel,
		   const char *tpl, const char *vars, struct wc_err *err)
{
	char path[PATH_MAX], *body = NULL;
	const char *base = strrchr(rel, '/');
	FILE *f;

	if (!fits(path, sizeof(path), "%s/%s.gp", p->templates, tpl))
		return wc_err_set(err, WC_ERR_USAGE, p->templates, NULL,
				  WC_NO_OFFSET, "path too long");
	if (wc_outdir_read(NULL, path, &body, err) < 0)
		return -1;
	f = wc_outdir_create(d, rel, err);
	if (!f)
		goto fail_body;
	fprintf(f, "# %s - written by wcanalyze %s from plots/%s.gp.\n"
		"# Render it again (PNG and SVG) in its folder: gnuplot %s\n"
		"# The figure's variables:\n%s\n",
		base ? base + 1 : rel, wc_version, tpl, base ? base + 1 : rel,
		vars);
	fputs(p->common, f);
	fputs("\n", f);
	fputs(body, f);
	if (wc_outdir_commit(d, f, rel, err) < 0)
		goto fail_body;
	free(body);
	note_figures(d, rel, vars);
	return queue(p, rel, err);

fail_body:
	free(body);
	return -1;
}

static int write_render_sh(struct wc_outdir *d, struct wc_err *err)
{
	FILE *f = wc_outdir_create(d, "render.sh", err);

	if (!f)
		return -1;
	fputs("#!/usr/bin/env bash\n"
	      "# render.sh - renders every figure of this bundle again (PNG and\n"
	      "# SVG) from its .dat and .gp files.  Needs gnuplot (Debian:\n"
	      "# apt-get install gnuplot-nox).\n"
	      "set -euo pipefail\n"
	      "# A capture's folder may be named -P, - or --help: every path\n"
	      "# starts with ./ and no name goes to dirname or cd bare.\n"
	      "cd -- \"$(dirname -- \"$0\")\"\n"
	      "for g in ./*.gp ./*/*.gp; do\n"
	      "\t[[ -e $g ]] || continue\n"
	      "\t(cd -- \"${g%/*}\" && gnuplot \"./${g##*/}\")\n"
	      "done\n", f);
	fchmod(fileno(f), 0755);
	return wc_outdir_commit(d, f, "render.sh", err);
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

		if (fits(cand, sizeof(cand), "%.*s/%s", (int)n, n ? path : ".",
			 name) && access(cand, X_OK) == 0)
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

/* The folders that hold scripts, as "F/x" names for wc_outdir_folder():
 * the bundle's own first, then each other one once, in queue order. */
static char **script_folders(const struct wc_plot *p, size_t *n)
{
	char **f = calloc(p->nscripts + 1, sizeof(*f));
	size_t i, j;

	*n = 0;
	if (!f || !(f[(*n)++] = strdup("x")))
		goto fail;
	for (i = 0; i < p->nscripts; i++) {
		const char *slash = strchr(p->scripts[i], '/');
		int len = slash ? (int)(slash - p->scripts[i]) : 0;

		if (!slash)
			continue;
		for (j = 1; j < *n; j++)
			if (!strncmp(f[j], p->scripts[i], (size_t)len + 1))
				break;
		if (j < *n)
			continue;
		if (asprintf(&f[*n], "%.*s/x", len, p->scripts[i]) < 0)
			goto fail;
		(*n)++;
	}
	return f;

fail:
	for (i = 0; f && i < *n; i++)
		free(f[i]);
	free(f);
	return NULL;
}

/* The folder of a script_folders() name, for messages. */
static void folder_path(const struct wc_outdir *d, const char *fx,
			const char *leaf, char *buf, size_t size)
{
	int len = (int)strlen(fx) - 2;

	snprintf(buf, size, "%s/%.*s/%s", wc_outdir_path(d),
		 len > 0 ? len : 1, len > 0 ? fx : ".", leaf);
}

/*
 * True when the figure N in folder RFD ends as a whole one does: a PNG
 * with its IEND chunk (length 0, "IEND", its CRC), an SVG with
 * "</svg>".  gnuplot does not fail when its output cannot be written (a
 * full disk): it leaves the file empty or cut short, and exits 0.
 */
static bool figure_whole(int rfd, const char *n, bool png)
{
	static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D',
						0xae, 0x42, 0x60, 0x82 };
	unsigned char tail[64];
	struct stat st;
	ssize_t got;
	size_t len;
	int fd;

	fd = openat(rfd, n, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	len = 0;
	if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(iend)) {
		len = st.st_size < (off_t)sizeof(tail) ? (size_t)st.st_size :
							  sizeof(tail);
		got = pread(fd, tail, len, st.st_size - (off_t)len);
		len = got == (ssize_t)len ? len : 0;
	}
	close(fd);
	if (png)
		return len >= sizeof(iend) &&
		       !memcmp(tail + len - sizeof(iend), iend, sizeof(iend));
	while (len > 0 && (tail[len - 1] == '\n' || tail[len - 1] == ' ' ||
			   tail[len - 1] == '\r' || tail[len - 1] == '\t'))
		len--;
	return len >= 6 && !memcmp(tail + len - 6, "</svg>", 6);
}

/*
 * Moves the PNG and SVG files gnuplot wrote into the private folder
 * rname of folder fx up into that folder, each renamed over its old copy
 * (so a link planted under that name is replaced, not written through),
 * then removes rname with anything else in it.  A figure that is not
 * whole (figure_whole()) is not moved in: -1 naming it.
 */
static int collect(const struct wc_outdir *d, const char *fx,
		   const char *rname, struct wc_err *err)
{
	char path[PATH_MAX];
	const char *leaf;
	int fd, rfd, pass, r = 0;

	fd = wc_outdir_folder(d, fx, &leaf, err);
	if (fd < 0)
		return -1;
	/* Entries renamed while a folder is read may hide others from
	 * readdir(): read it again until it is empty. */
	for (pass = 0; pass < 4; pass++) {
		struct dirent *de;
		DIR *dir;

		rfd = openat(fd, rname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (rfd < 0 || !(dir = fdopendir(rfd))) {
			if (rfd >= 0)
				close(rfd);
			break;
		}
		while ((de = readdir(dir))) {
			const char *n = de->d_name, *dot = strrchr(n, '.');
			struct stat st;

			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			if (fstatat(rfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0)
				st.st_mode = 0;
			if (S_ISREG(st.st_mode) && dot &&
			    (!strcmp(dot, ".png") || !strcmp(dot, ".svg"))) {
				if (!figure_whole(rfd, n, !strcmp(dot, ".png"))) {
					folder_path(d, fx, n, path, sizeof(path));
					r = wc_err_set(err, WC_ERR_SYSTEM, path,
						       NULL, WC_NO_OFFSET,
						       "gnuplot left it empty or "
						       "cut short (is the disk "
						       "full?): not put in the "
						       "bundle");
				} else if (renameat(rfd, n, fd, n) == 0) {
					continue;
				} else if (r == 0) {
					folder_path(d, fx, n, path, sizeof(path));
					r = sys_err(err, path, "cannot replace");
				}
			}
			unlinkat(rfd, n, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
		}
		closedir(dir);
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
static int render(struct wc_plot *p, struct wc_outdir *d, const char *gnuplot,
		  struct wc_err *err)
{
	char logpath[PATH_MAX], path[PATH_MAX], rname[32], outvar[64];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t par = ncpu < 1 ? 1 : ncpu > MAX_PARALLEL ? MAX_PARALLEL : (size_t)ncpu;
	size_t next = 0, done = 0, made = 0, nfolders = 0, i;
	char **folders = NULL;
	pid_t *pids = NULL;
	int logfd, r = 0;
	struct stat st;
	FILE *log;

	snprintf(logpath, sizeof(logpath), "%s/gnuplot.log", wc_outdir_path(d));
	log = wc_outdir_create(d, "gnuplot.log", err);
	if (!log)
		return -1;
	logfd = fileno(log);
	/* gnuplots running at once write to it: none over another. */
	fcntl(logfd, F_SETFL, fcntl(logfd, F_GETFL) | O_APPEND);
	wc_outdir_fresh_name(rname, sizeof(rname), "render");
	snprintf(outvar, sizeof(outvar), "outdir = '%s/'", rname);
	folders = script_folders(p, &nfolders);
	pids = calloc(p->nscripts ? p->nscripts : 1, sizeof(*pids));
	if (!folders || !pids) {
		nomem(err);
		goto fail_collect;
	}
	for (made = 0; made < nfolders; made++) {
		const char *leaf;
		int fd = wc_outdir_folder(d, folders[made], &leaf, err);

		if (fd < 0)
			goto fail_collect;
		if (mkdirat(fd, rname, 0700) < 0) {
			folder_path(d, folders[made], rname, path, sizeof(path));
			sys_err(err, path, "cannot create folder");
			close(fd);
			goto fail_collect;
		}
		close(fd);
	}
	while (done < p->nscripts) {
		int status;

		while (next < p->nscripts && next - done < par) {
			const char *script;
			int fd = wc_outdir_folder(d, p->scripts[next], &script, err);

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
				   p->scripts[done],
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
		if (collect(d, folders[i], rname, err) < 0)
			r = -1;
	for (i = 0; folders && i < nfolders; i++)
		free(folders[i]);
	free(folders);
	free(pids);
	/* The log replaces an old one only when gnuplot said something. */
	if (fstat(logfd, &st) == 0 && st.st_size == 0) {
		wc_outdir_discard(d, log);
		wc_outdir_remove(d, "gnuplot.log");
	} else if (wc_outdir_commit(d, log, "gnuplot.log",
				    r == 0 ? err : NULL) < 0) {
		r = -1;
	}
	return r;
}

int wc_plot_render(struct wc_plot *p, struct wc_outdir *d,
		   struct wc_err *err)
{
	const char *env = getenv("WCANALYZE_GNUPLOT");
	char *gnuplot;
	int r = 0;

	if (write_render_sh(d, err) < 0)
		return -1;
	gnuplot = find_gnuplot();
	if (gnuplot) {
		r = render(p, d, gnuplot, err);
		p->rendered = true;
		free(gnuplot);
		return r;
	}
	free(p->notice);
	if (asprintf(&p->notice, "%s: figures not rendered; their .dat and .gp "
		     "files are in %s; to render them, install gnuplot "
		     "(apt-get install gnuplot-nox) and run %s/render.sh",
		     env && !*env ? "WCANALYZE_GNUPLOT is empty" :
		     "gnuplot not found", wc_outdir_path(d),
		     wc_outdir_path(d)) < 0)
		p->notice = NULL;
	return 0;
}

bool wc_plot_rendered(const struct wc_plot *p)
{
	return p->rendered;
}

const char *wc_plot_notice(const struct wc_plot *p)
{
	return p->notice;
}

void wc_plot_free(struct wc_plot *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nscripts; i++)
		free(p->scripts[i]);
	free(p->scripts);
	free(p->common);
	free(p->notice);
	free(p);
}
