/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcanalyze - where the time goes when a journaling filesystem copies or
 * deletes a tree: reads blktrace captures and attributes elapsed time.
 *
 * main() only parses options into struct options and calls one function
 * per mode; every mode reports its own failures and returns an exit
 * status from exitcodes.h.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "base/buildinfo.h"
#include "out/bundle.h"
#include "out/dump.h"
#include "base/escape.h"
#include "exitcodes.h"
#include "model/filter.h"
#include "input/input.h"
#include "base/spool.h"
#include "out/intervaltab.h"
#include "analysis/jobs.h"
#include "out/report.h"
#include "base/sandbox.h"
#include "compare/keep.h"
#include "compare/summary.h"
#include "analysis/capsule.h"
#include "model/traceevent.h"
#include "base/wcerr.h"
#include "disk/whatif.h"

#define PROG "wcanalyze"
#define WC_MAX_EXCLUDE 64           /* run numbers --exclude-runs holds */

/* Long options without a letter. */
enum {
	OPT_WINDOW = 256,
	OPT_PHASE,
	OPT_DEVICE,
	OPT_PROCESS,
	OPT_INTERVAL,
	OPT_EQUIVALENCE,
	OPT_TIMELINE_LIMIT,
	OPT_NO_SANDBOX,
	OPT_CAPTURE_PAGES,
	OPT_BTT,
	OPT_THREADS,
};

enum mode {
	MODE_ANALYZE,   /* the default: attribute elapsed time */
	MODE_DUMP,      /* --dump: every event, as blkparse prints it */
	MODE_WHATIF,    /* --what-if: replays through the disk model */
};

struct options {
	enum mode mode;
	char **inputs;      /* INPUT... from the command line */
	int ninputs;
	/* analysis mode (issue 4) */
	enum wc_format format;              /* --format */
	struct wc_analysis_opts analysis;   /* --journal, --media-rate */
	const char *baseline;               /* --baseline */
	enum wc_report_detail detail;       /* --runs */
	/* --exclude-runs, --drop-first: what the comparison leaves out */
	int exclude_runs[WC_MAX_EXCLUDE];
	size_t nexclude;
	bool drop_first;
	/* --equivalence: the bound of "no larger than", seconds or a share
	 * of the baseline's wall (0: the summary's default) */
	double equiv_s, equiv_share;
	const char *output;                 /* --output DIR: a bundle */
	bool all_pages;                     /* --capture-pages all */
	bool pages_given;                   /* --capture-pages at all */
	const char *trace;                  /* --export-trace FILE, or "-"
	                                     * for --format trace-event */
	bool trace_only;                    /* --format trace-event */
	bool timeline_limit_set;
	uint64_t timeline_limit;            /* --timeline-limit; 0: none */
	bool no_sandbox;                    /* --no-sandbox */
	bool verbose;                       /* --verbose */
	struct wc_filter filter;            /* --window, --phase, --device,
	                                     * --process */
	unsigned jobs;                      /* --jobs; 0: online CPUs */
	uint64_t interval_ns;               /* --interval; 0: no table */
	struct wc_whatif_spec specs[WC_WHATIF_MAX_SPECS];   /* --what-if */
	size_t nspecs;
	/* A bundle's or a timeline's: each INPUT's descriptor from its peek
	 * before writing (check_before_writing()), read by its analysis,
	 * or -1; NULL when none was kept */
	int *peeked;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: " PROG " [--format text|json|csv|trace-event]\n"
		"                 [--journal START+LEN] [--media-rate MB/s] [--btt]\n"
		"                 [--baseline NAME] [--runs] [--output DIR]\n"
		"                 [--capture-pages named|all]\n"
		"                 [--exclude-runs N,...] [--drop-first]\n"
		"                 [--equivalence SECONDS|PERCENT%%]\n"
		"                 [--export-trace FILE] [--timeline-limit N]\n"
		"                 [--jobs N] [--threads 1|2]\n"
		"                 [--window START,END] [--phase NAME]\n"
		"                 [--device MAJ,MIN|NAME] [--process PID|COMM]\n"
		"                 [--no-sandbox] [--verbose] INPUT...\n"
		"       " PROG " --interval SECONDS [--format text|json|csv]\n"
		"                 [--window START,END] [--phase NAME] [--device D]\n"
		"                 [--process P] INPUT...\n"
		"       " PROG " --what-if SPEC [--what-if SPEC]... [--format F]\n"
		"                 [--journal START+LEN] [--output DIR] INPUT\n"
		"       " PROG " --dump INPUT...\n"
		"       " PROG " --help | --version\n"
		"\n"
		"INPUT is a blktrace base name (NAME for NAME.blktrace.N), a directory\n"
		"of such files, a merged trace file, '-' for standard input, or a\n"
		"capture archive (tar, tar.gz, tar.xz, tar.zst, tar.bz2, zip, cpio);\n"
		"or a capture's summary (--format json), compared without its trace.\n"
		"\n"
		"  -d, --dump      print every event as blkparse does, no analysis\n"
		"  -f, --format F  report as text (default), json or csv; or\n"
		"                  trace-event: instead of a report, a timeline for\n"
		"                  ui.perfetto.dev or chrome://tracing (JSON)\n"
		"  -J, --journal START+LEN\n"
		"                  the journal's sectors on the main device\n"
		"  -r, --media-rate MB/s\n"
		"                  the device's media rate, instead of estimating it\n"
		"      --btt       also compute btt's Q2C and D2C figures, as btt\n"
		"                  does (a second walk of every event, which adds\n"
		"                  CPU time); without it the reports say\n"
		"                  they were not computed (JSON: \"btt\": null)\n"
		"  -b, --baseline NAME\n"
		"                  compare every capture with capture NAME\n"
		"  -x, --exclude-runs N,...\n"
		"                  leave run N (capture.conf run, or the name's\n"
		"                  -runN) of every configuration out of the\n"
		"                  comparison\n"
		"  -F, --drop-first\n"
		"                  leave each configuration's first run out\n"
		"                  (warm-up captures are always left out)\n"
		"      --equivalence SECONDS|PERCENT%%\n"
		"                  the bound X of the verdict \"no larger than X\":\n"
		"                  a difference whose 90 %% interval lies inside\n"
		"                  +-X (two one-sided tests); in seconds, or a\n"
		"                  percentage of the baseline's mean wall (default\n"
		"                  5%%); real means the 95 %% interval excludes 0,\n"
		"                  not decided neither\n"
		"  -R, --runs      the text comparison ends with every run's detail\n"
		"                  (its name, its phases against the baseline's)\n"
		"  -o, --output DIR\n"
		"                  write a bug-report bundle (reports, figures,\n"
		"                  index.html) into DIR and print index.html's path;\n"
		"                  its figures include heat maps of each capture:\n"
		"                  D2C latency over time a panel a category (flushes\n"
		"                  too) with each interval's p50, p90 and p99, and\n"
		"                  sector over time shaded by requests;\n"
		"                  e.g. wcanalyze -o report CAPTURE, then open\n"
		"                  report/*/heatmap-latency.png\n"
		"      --capture-pages named|all\n"
		"                  with --output, which captures get their figures\n"
		"                  and timeline: those the findings name (default:\n"
		"                  the few that answer, rendered in seconds) or all\n"
		"  -t, --export-trace FILE\n"
		"                  also write the timeline (as trace-event) to FILE\n"
		"      --timeline-limit N\n"
		"                  the timeline of a capture ends with its N-th\n"
		"                  request drawn, or its 16 N-th event (default\n"
		"                  1000000: about 700 MB of JSON); 0: every request\n"
		"      --window START,END\n"
		"                  only requests completed from START to END seconds\n"
		"                  after the start (of --phase's phase, if given);\n"
		"                  END may be left out: to the end\n"
		"      --phase NAME\n"
		"                  only the phase NAME of phases.tsv\n"
		"      --device MAJ,MIN|NAME\n"
		"                  only that device (NAME as capture.conf gives it)\n"
		"      --process PID|COMM\n"
		"                  only requests that PID or command COMM queued\n"
		"                  (or, for a flush, asked for)\n"
		"  -i, --interval SECONDS\n"
		"                  instead of a report, an iostat -x style table:\n"
		"                  per SECONDS and per device r/s, w/s, f/s (flushes),\n"
		"                  d/s (discards), rMB/s, wMB/s, dMB/s, r_await,\n"
		"                  w_await, f_await, d_await (ms, from the Q), aqu-sz\n"
		"                  and %%util; an I/O counts where it\n"
		"                  completed; %%util is busy time, not saturation on a\n"
		"                  device serving requests in parallel (SSD, RAID);\n"
		"                  e.g. wcanalyze --interval 1 --device sda CAPTURE\n"
		"  -j, --jobs N    analyse up to N inputs at once (default: the\n"
		"                  number of CPUs); the report is the same\n"
		"      --threads 1|2\n"
		"                  threads for each input: 2 reads it on one while\n"
		"                  the analysis runs on the other (default: 2 for\n"
		"                  one input or -j 1, else 1); the report is the same\n"
		"  -w, --what-if SPEC\n"
		"                  replay INPUT's main device through the disk model\n"
		"                  as recorded and as SPEC says (KEY=VALUE,...: disk=\n"
		"                  hdd7200|ssd|ssd-plp|PATH, cache=on|off,\n"
		"                  barrier=on|off, capacity=BYTES, kernel=2.6.24: the\n"
		"                  block layer's ordering before 2.6.37, barriers\n"
		"                  drained and wrapped in two flushes, or a disk\n"
		"                  parameter); compared with the replay as recorded\n"
		"                  (not with --baseline, --export-trace or\n"
		"                  --format trace-event)\n"
		"      --no-sandbox\n"
		"                  do not restrict wcanalyze with Landlock (by\n"
		"                  default it may then read only its inputs, the\n"
		"                  installed plots and disks, /usr and TMPDIR, and\n"
		"                  write only its output, standard output and\n"
		"                  TMPDIR: docs/security.md)\n"
		"  -v, --verbose   say whether the Landlock sandbox is on\n"
		"  -h, --help      show this help and exit\n"
		"  -V, --version   show the version and exit\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	char e[WC_ESCAPE_SIZE(256)];

	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, wc_escape_text(arg, e, sizeof(e)));
	fprintf(stderr, "\n" PROG ": try '" PROG " --help'\n");
	return WC_EXIT_USAGE;
}

/* The usage error of a summary given where a trace is needed.  It is
 * told apart where the input is read (wc_input_open_any(), input.h), by
 * the one open of it: nothing peeks at an INPUT before. */
static const char summary_no_trace[] =
	"a summary (an INPUT beginning with '{') holds no trace: --dump, "
	"--what-if, --interval, --output, --export-trace, --format "
	"trace-event, the filters, --journal, --media-rate and --btt need "
	"captures";

/* Whether the command needs every INPUT to be a capture. */
static bool needs_traces(const struct options *o)
{
	return o->trace || o->output || o->interval_ns ||
	       o->mode != MODE_ANALYZE || o->analysis.filter ||
	       o->analysis.journal_given || o->analysis.media_rate > 0 ||
	       o->analysis.btt;
}

static int summary_refused(int fd)
{
	close(fd);
	return usage_error("%s", summary_no_trace);
}

/* Prints err as "wcanalyze: FILE: offset N: what", returns its status.
 * File and member names come from the input: escaped for the terminal. */
static int report_to(FILE *f, const struct wc_err *err)
{
	char buf[2048], e[WC_ESCAPE_SIZE(2048)];

	fprintf(f, PROG ": %s\n",
		wc_escape_text(wc_err_format(err, buf, sizeof(buf)), e, sizeof(e)));
	return err->kind == WC_ERR_SYSTEM ? WC_EXIT_FAILURE : WC_EXIT_INPUT;
}

static int report(const struct wc_err *err)
{
	return report_to(stderr, err);
}

/* Sequence gaps are worth a line: they mean the recorder lost events. */
static void report_skips(const struct wc_input *in)
{
	size_t i;

	for (i = 0; i < wc_input_nstreams(in); i++) {
		const struct wc_stream_info *si = wc_input_stream(in, i);

		char e[WC_ESCAPE_SIZE(512)];

		if (si->skips)
			fprintf(stderr,
				PROG ": %s: %llu events missing (sequence gaps)\n",
				wc_escape_text(si->name, e, sizeof(e)),
				(unsigned long long)si->skips);
	}
}

/* What the input could only note: refused capture.conf values and such.
 * A note names the capture's folder and a key from the file: escaped. */
static void report_notes(const struct wc_input *in)
{
	const struct wc_capture *c = wc_input_capture(in);
	size_t i;

	for (i = 0; i < c->nnotes; i++) {
		char e[WC_ESCAPE_SIZE(WC_CAPTURE_NOTE_SIZE)];

		fprintf(stderr, PROG ": %s\n",
			wc_escape_text(c->notes[i], e, sizeof(e)));
	}
	if (c->nnotes_more)
		fprintf(stderr, PROG ": and %zu more such lines in the capture's "
			"files\n", c->nnotes_more);
}

/* Dumps the input at path; *refused when it was a summary (said). */
static int dump_one(const char *path, bool *refused)
{
	/* An archive in one pass on the one open that peeked at it: its
	 * members read whole or copied aside, and the scouts of blkparse's
	 * names (blknames.h) read those copies, not the archive again. */
	struct wc_input_limits lim = { .once = true };
	struct wc_input *in = NULL;
	struct wc_dump *d = NULL;
	const struct wc_event *evs;
	size_t got, k;
	struct wc_err err;
	int r, fd, status = WC_EXIT_OK;

	wc_err_clear(&err);
	if (wc_dump_open(&d, stdout) < 0) {
		wc_err_oom(&err, path, NULL);
		return report(&err);
	}
	r = wc_input_open_any(&in, &fd, path, &lim, &err);
	if (r != 0) {
		wc_dump_free(d);
		*refused = r > 0;
		return r > 0 ? summary_refused(fd) : report(&err);
	}
	wc_input_set_blkparse_names(in);
	/* A batch ends before blkparse would have learnt a name (input.h):
	 * the names now are the ones each of its events gets. */
	while ((r = wc_input_next_ref(in, &evs, 0, &got, &err)) > 0) {
		uint64_t genesis = wc_input_genesis(in);
		/* A process's events come in runs: its name looked up once
		 * a run, the batch's names holding to its end. */
		uint32_t pid = got ? evs[0].pid : 0;
		const char *comm = got ? wc_input_comm(in, pid) : NULL;

		for (k = 0; k < got; k++) {
			if (evs[k].pid != pid) {
				pid = evs[k].pid;
				comm = wc_input_comm(in, pid);
			}
			if (wc_dump_add(d, &evs[k], genesis, comm) < 0)
				goto out;
		}
	}
out:
	/* The lines before any message about them. */
	wc_dump_flush(d);
	wc_dump_free(d);
	/* Gaps first: the last line is the one that says why we stopped. */
	report_notes(in);
	report_skips(in);
	if (wc_input_backwards(in)) {
		fputs(PROG ": ", stderr);
		wc_escape_text_put(stderr, path);
		fprintf(stderr, ": time goes backwards %llu times "
			"(events kept in the order read)\n",
			(unsigned long long)wc_input_backwards(in));
	}
	if (r < 0)
		status = report(&err);
	wc_input_free(in);
	return status;
}

/*
 * Least privilege before the first byte of input is read (sandbox.h,
 * docs/security.md): the rules of wc_sandbox_apply() for this run's
 * inputs, --what-if disk=PATH files and output (the bundle's folder,
 * made by now, or the timeline's file, open by now); standard input
 * and output are open already.  gnuplot runs under the same rules.
 * Where the kernel has no Landlock, wcanalyze goes on and says so
 * under --verbose.
 */
static int sandbox_on(const struct options *o)
{
	const char *files[WC_WHATIF_MAX_SPECS];
	struct wc_sandbox_rules r = {
		.inputs = (const char *const *)o->inputs,
		.ninputs = (size_t)o->ninputs,
		.files = files,
		.output = o->output,
		.trace = o->trace,
	};
	struct wc_err err;
	size_t i;
	int on;

	if (o->no_sandbox) {
		if (o->verbose)
			fprintf(stderr, PROG ": sandbox off (--no-sandbox)\n");
		return 0;
	}
	for (i = 0; i < o->nspecs; i++)
		if (strchr(o->specs[i].disk, '/'))
			files[r.nfiles++] = o->specs[i].disk;
	wc_err_clear(&err);
	on = wc_sandbox_apply(&r, &err);
	if (on < 0)
		return report(&err), -1;
	if (o->verbose && on)
		fprintf(stderr, PROG ": sandbox on (Landlock ABI %d)\n",
			wc_sandbox_abi());
	else if (o->verbose)
		fprintf(stderr, PROG ": this kernel has no Landlock: "
			"running with every right of its user\n");
	return 0;
}

/* stdout's buffer for --dump, bytes. */
#define DUMP_BUFFER (256u * 1024u)

static int mode_dump(const struct options *o)
{
	int i, status = WC_EXIT_OK;

	if (sandbox_on(o) < 0)
		return WC_EXIT_FAILURE;
	/* A dump is written in large blocks unless someone watches it: a
	 * write a page at a time cost a tenth of a dump's CPU time. */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, DUMP_BUFFER);

	for (i = 0; i < o->ninputs; i++) {
		bool refused = false;
		int s = dump_one(o->inputs[i], &refused);

		if (s != WC_EXIT_OK && status == WC_EXIT_OK)
			status = s;
		if (refused)
			return s;         /* a summary: no trace to dump */
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": standard output: %s\n", strerror(errno));
		return WC_EXIT_FAILURE;
	}
	return status;
}

/* What the analysis could only note, before the line that says why an
 * input stopped (that one comes last). */
static void report_capsule_warnings(FILE *f, const struct wc_capsule *c)
{
	char e[WC_ESCAPE_SIZE(512)];
	size_t w;

	for (w = 0; c && w < c->nwarnings; w++)
		fprintf(f, PROG ": %s\n",
			wc_escape_text(c->warnings[w], e, sizeof(e)));
}

static void report_warnings(const struct wc_analysis *a)
{
	char e[WC_ESCAPE_SIZE(512)];
	size_t w;

	/* A warning names the capture's files, whose names are input. */
	for (w = 0; a && w < wc_analysis_nwarnings(a); w++)
		fprintf(stderr, PROG ": %s\n",
			wc_escape_text(wc_analysis_warning(a, w), e, sizeof(e)));
}

/* Inputs analysed at once a thread, at most: their capsules are held
 * until the batch ends, then spilled. */
#define BATCH_A_JOB 4

/* The warnings and failures of the inputs, held until every input is
 * read, so that a misspelt --baseline or a summary where traces are
 * needed is said alone: each message written whole to memory, then
 * kept in a spool (spool.h: in memory up to HELD_IN_MEMORY bytes, so a
 * few inputs need no TMPDIR, then in an unnamed temporary file), or,
 * when no file can be made, said as they come. */
struct held {
	FILE *f;                       /* the message being written, or NULL */
	char *msg;                     /* open_memstream()'s */
	size_t len;
	struct wc_spool *sp;           /* NULL: nothing kept yet */
	bool direct;                   /* no file: said as they come */
	const char *lost;              /* why some were lost, or NULL */
};

#define HELD_IN_MEMORY ((size_t)64 << 10)

/* Says what sp holds on standard error; NULL, or why not all of it. */
static const char *spool_say(const struct wc_spool *sp)
{
	char buf[8192];
	uint64_t off, size = sp ? wc_spool_size(sp) : 0;
	size_t n;

	for (off = 0; off < size; off += n) {
		n = size - off < sizeof(buf) ? (size_t)(size - off) :
		    sizeof(buf);
		if (wc_spool_get(sp, buf, n, off, NULL) < 0)
			return errno ? strerror(errno) : "cut short";
		fwrite(buf, 1, n, stderr);
	}
	return NULL;
}

/* The message written since the last call, to the spool. */
static void held_keep(struct held *h)
{
	bool written;

	if (!h->f)
		return;
	written = fclose(h->f) == 0;
	h->f = NULL;
	if (!written && !h->lost)
		h->lost = strerror(errno);
	if (written && h->len && !h->lost &&
	    ((!h->sp && wc_spool_open(&h->sp, HELD_IN_MEMORY,
				      "the inputs' messages", NULL) < 0) ||
	     wc_spool_put(h->sp, h->msg, h->len, wc_spool_size(h->sp),
			  NULL) < 0)) {
		if (h->sp && wc_spool_in_file(h->sp)) {
			h->lost = strerror(errno);
		} else {
			/* The spool as it was, in memory, then this one. */
			h->lost = spool_say(h->sp);
			fwrite(h->msg, 1, h->len, stderr);
			wc_spool_free(h->sp);
			h->sp = NULL;
			h->direct = true;
		}
	}
	free(h->msg);
	h->msg = NULL;
	h->len = 0;
}

/* Where the next message goes (written whole before the next call). */
static FILE *held_messages(struct held *h)
{
	held_keep(h);
	if (!h->direct)
		h->f = open_memstream(&h->msg, &h->len);
	return h->f ? h->f : stderr;
}

/* Says what h holds, in input order, and lets it go; false when some
 * was lost (TMPDIR full: said). */
static bool held_say(struct held *h)
{
	const char *lost;

	held_keep(h);
	lost = spool_say(h->sp);
	if (!lost)
		lost = h->lost;
	wc_spool_free(h->sp);
	h->sp = NULL;
	if (lost)
		fprintf(stderr, PROG ": the inputs' messages, held until "
			"every input was read: %s\n", lost);
	return !lost;
}

/* Lets what h holds go unsaid. */
static void held_drop(struct held *h)
{
	if (h->f)
		fclose(h->f);
	free(h->msg);
	wc_spool_free(h->sp);
	h->f = NULL;
	h->msg = NULL;
	h->sp = NULL;
}

/* Reads the summary job j found a capture at a time into kp, as
 * analyse_parallel() keeps an analysis' capsule (keep.h): what the
 * comparison holds is then one capture of it, however many it has (the
 * reduce of a reduce).  Its fault, said in input order (h), ends it, the
 * captures before it kept; a spill that failed is said now, and
 * *spilling cleared.  Returns the exit status so far. */
static int keep_summary(struct wc_job *j, struct wc_keep *kp, struct held *h,
			size_t *n, bool *spilling, int status)
{
	struct wc_capsule_reader *r = NULL;
	struct wc_capsule *c;
	struct wc_err err;
	int rc;

	wc_err_clear(&err);
	rc = wc_capsule_reader_fd(&r, j->fd, j->path, &err);
	while (rc == 0 && (rc = wc_capsule_reader_next(r, &c, &err)) > 0) {
		struct wc_err kerr;

		wc_err_clear(&kerr);
		(*n)++;
		if (wc_keep_add(kp, c, &kerr) < 0) {
			/* Said now: the messages' file is in the same
			 * TMPDIR, which may be full. */
			*spilling = false;
			status = report(&kerr);
			goto free_r;
		}
		rc = 0;
	}
	if (rc < 0) {
		int s = report_to(held_messages(h), &err);

		if (status == WC_EXIT_OK)
			status = s;
	}
free_r:
	wc_capsule_reader_free(r);
	return status;
}

/* Analyses the captures among the inputs o->jobs at a time
 * (wc_jobs_analyse), keeping only each one's capsule, and reads the
 * summaries among them; then reports their warnings and failures in
 * input order, as one at a time would have.  The capsules go to kp
 * (keep.h), in input order (a summary's in its order), *n of them: a
 * batch of inputs at a time, so that what waits is a batch's capsules
 * whatever the number of inputs; none read once the spill failed.
 * Returns the exit status so far. */
static int analyse_parallel(const struct options *o,
			    const struct wc_analysis_opts *ao,
			    struct wc_keep *kp, size_t *n)
{
	size_t batch = BATCH_A_JOB * (o->jobs ? o->jobs : wc_jobs_cpus());
	size_t at, k, i, count;
	struct wc_job *jobs;
	struct wc_err err;
	struct held held = { .f = NULL };
	bool refused = false, named = false, spilling = true;
	int status = WC_EXIT_OK;

	jobs = calloc(batch, sizeof(*jobs));
	if (!jobs) {
		fprintf(stderr, PROG ": out of memory\n");
		return WC_EXIT_FAILURE;
	}
	/* Once the spill failed, the comparison has: no input after is
	 * read. */
	for (at = 0; spilling && at < (size_t)o->ninputs; at += count) {
		count = (size_t)o->ninputs - at < batch ?
			(size_t)o->ninputs - at : batch;
		memset(jobs, 0, batch * sizeof(*jobs));
		for (i = 0; i < count; i++) {
			jobs[i].path = o->inputs[at + i];
			jobs[i].condense = true;
		}
		/* Fewer when summaries found hold their descriptors until
		 * read below: the rest come in the next batch. */
		count = wc_jobs_analyse(jobs, count, ao, o->jobs);
		for (i = 0; i < count; i++) {
			if (jobs[i].summary && needs_traces(o))
				refused = true;
			/* A summary's names and standard input's are the
			 * summary's to check (summary.h), as before. */
			if (jobs[i].summary || !strcmp(jobs[i].path, "-"))
				named = true;
			for (k = 0; o->baseline && k < jobs[i].ncaps; k++)
				named = named ||
					!strcmp(jobs[i].caps[k]->meta.name,
						o->baseline);
			for (k = 0; k < jobs[i].ncaps; k++)
				if (jobs[i].caps[k]->nwarnings)
					report_capsule_warnings(
						held_messages(&held),
						jobs[i].caps[k]);
			if (jobs[i].status < 0) {
				int s = report_to(held_messages(&held),
						  &jobs[i].err);

				if (status == WC_EXIT_OK)
					status = s;
			}
			for (k = 0; k < jobs[i].ncaps; k++) {
				wc_err_clear(&err);
				if (!spilling) {
					wc_capsule_free(jobs[i].caps[k]);
				} else if (wc_keep_add(kp, jobs[i].caps[k],
						       &err) < 0) {
					/* Said now: the messages' file is in
					 * the same TMPDIR, which may be full. */
					status = report(&err);
					spilling = false;
				}
				(*n)++;
			}
			free(jobs[i].caps);
			/* Refused, nothing of it is read. */
			if (jobs[i].summary && !refused && spilling)
				status = keep_summary(&jobs[i], kp, &held, n,
						      &spilling, status);
			if (jobs[i].fd >= 0)
				close(jobs[i].fd);
		}
	}
	free(jobs);
	if (refused || (spilling && o->baseline && !named)) {
		/* Nothing of the inputs is said: the command was wrong. */
		held_drop(&held);
		return refused ? usage_error("%s", summary_no_trace) :
			usage_error("no capture named '%s' for --baseline",
				    o->baseline);
	}
	/* Some lost (TMPDIR full): no report that would seem to have
	 * said everything. */
	if (!held_say(&held))
		spilling = false;
	if (!spilling)
		*n = 0;                 /* no report of part of them */
	return spilling ? status : WC_EXIT_FAILURE;
}

/* Descriptors of peeked inputs kept for their reading, at most: the
 * analysis of one input may hold WC_INPUT_MAX_OPEN + 2 (inputdefs.h;
 * twice that with blkparse's names), the bundle its files and gnuplot
 * a few; past the bound, or when RLIMIT_NOFILE leaves no room for them
 * beside those, an input is opened again to be read. */
#define PEEKED_MAX 64
#define PEEKED_SPARE (2 * (WC_INPUT_MAX_OPEN + 2) + 64)

/* How many peeks' descriptors may be kept. */
static int peeked_room(void)
{
	const size_t spare = PEEKED_SPARE - WC_INPUT_FD_SPARE;
	size_t room = wc_input_fd_room();

	if (room >= spare + PEEKED_MAX)
		return PEEKED_MAX;
	return room > spare ? (int)(room - spare) : 0;
}

/* INPUT i's peeked descriptor, handed over (-1: none kept). */
static int peeked_take(const struct options *o, int i)
{
	int fd;

	if (!o->peeked)
		return -1;
	fd = o->peeked[i];
	o->peeked[i] = -1;
	return fd;
}

/* Closes the descriptors not handed over (the reading stopped before
 * their inputs) and frees their table. */
static void peeked_free(const struct options *o)
{
	int i;

	for (i = 0; o->peeked && i < o->ninputs; i++)
		if (o->peeked[i] >= 0)
			close(o->peeked[i]);
	free(o->peeked);
}

/* Analyses the input at path into *a (NULL when nothing could be read),
 * from PEEKED when it is not -1 (the descriptor of its peek, taken), and
 * prints its warnings and failure; the exit status so far, or that
 * failure's when it is the first; a summary is a usage error, said,
 * with *refused. */
static int analyse_one(const char *path, int peeked,
		       const struct wc_analysis_opts *ao,
		       struct wc_analysis **a, int status, bool *refused)
{
	struct wc_err err;
	int r, fd;

	wc_err_clear(&err);
	/* The interval table needs traces (a bundle's and a timeline's
	 * inputs were peeked at before: check_before_writing()): a summary
	 * is a usage error (WC_EXIT_USAGE, said here), and the caller
	 * stops. */
	r = wc_analysis_read_fd_any(a, &fd, path, peeked, ao, &err);
	*refused = r > 0;
	if (r > 0)
		return summary_refused(fd);
	report_warnings(*a);
	if (r < 0) {
		int s = report(&err);

		if (status == WC_EXIT_OK)
			status = s;
	}
	return status;
}

/* Opens the timeline's file (standard output for "-") and its writer. */
static int open_trace(const struct options *o, FILE **tf,
		      struct wc_traceevent **te)
{
	struct wc_err err;

	wc_err_clear(&err);
	*tf = strcmp(o->trace, "-") ? fopen(o->trace, "w") : stdout;
	if (!*tf) {
		char e[WC_ESCAPE_SIZE(1024)];

		fprintf(stderr, PROG ": %s: %s\n",
			wc_escape_text(o->trace, e, sizeof(e)), strerror(errno));
		return -1;
	}
	if (wc_traceevent_open(te, *tf, &err) < 0) {
		report(&err);
		return -1;
	}
	wc_traceevent_limit(*te, o->timeline_limit);
	return 0;
}

/* Ends the timeline and closes its file; the exit status of that. */
static int close_trace(const struct options *o, FILE *tf,
		       struct wc_traceevent *te)
{
	struct wc_err err;
	int status = WC_EXIT_OK;

	wc_err_clear(&err);
	if (wc_traceevent_close(te, &err) < 0) {
		snprintf(err.file, sizeof(err.file), "%s",
			 strcmp(o->trace, "-") ? o->trace : "standard output");
		status = report(&err);
	}
	if (tf != stdout && fclose(tf) != 0 && status == WC_EXIT_OK) {
		char e[WC_ESCAPE_SIZE(1024)];

		fprintf(stderr, PROG ": %s: %s\n",
			wc_escape_text(o->trace, e, sizeof(e)), strerror(errno));
		status = WC_EXIT_FAILURE;
	}
	return status;
}

/* Analyses every input, then writes one report of all that could be read:
 * an input that turns bad midway still contributes what came before.
 * With --output the report is a bundle folder (docs/bundle.md), drawn
 * from the per-device series the analysis keeps when asked. */
/* The comparison's summary, less what --exclude-runs, --drop-first and
 * the warm-ups leave out (summary.h). */
static struct wc_summary_opts summary_opts(const struct options *o)
{
	struct wc_summary_opts so = {
		.baseline = o->baseline, .exclude_runs = o->exclude_runs,
		.nexclude = o->nexclude, .drop_first = o->drop_first,
		.equiv_s = o->equiv_s, .equiv_share = o->equiv_share,
	};

	return so;
}

static int summary_of(struct wc_summary **sum, struct wc_analysis *const *caps,
		      size_t n, const struct options *o, struct wc_err *err)
{
	struct wc_summary_opts so = summary_opts(o);

	return wc_summary_build_opts(sum, caps, n, &so, err);
}

/* Says where a capture's timeline ended when the limit cut it. */
static void timeline_notice(const char *input, const struct wc_traceevent *te)
{
	struct wc_traceevent_stats st;
	char e[WC_ESCAPE_SIZE(1024)];

	wc_traceevent_stats(te, &st);
	if (st.ends_s < 0)
		return;
	fprintf(stderr, PROG ": %s: the timeline ends at %.6f s, %" PRIu64
		" requests drawn, %" PRIu64 " after it left out "
		"(--timeline-limit 0 draws every one)\n",
		wc_escape_text(input, e, sizeof(e)), st.ends_s, st.slices,
		st.past_limit);
}

static int mode_analysis(const struct options *o)
{
	struct wc_analysis_opts ao = o->analysis;
	struct wc_analysis **caps;
	struct wc_summary_opts so = summary_opts(o);
	struct wc_keep *kept = NULL;
	size_t ncapsules = 0;
	struct wc_bundle *b = NULL;
	struct wc_summary *sum = NULL;
	struct wc_traceevent *te = NULL;
	FILE *tf = NULL;
	struct wc_err err;
	size_t n = 0;
	int i, r, status = WC_EXIT_OK;

	caps = calloc((size_t)o->ninputs, sizeof(*caps));
	if (!caps) {
		fprintf(stderr, PROG ": out of memory\n");
		return WC_EXIT_FAILURE;
	}
	wc_err_clear(&err);
	if (o->output) {
		if (wc_bundle_open(&b, o->output, &err) < 0) {
			status = report(&err);
			goto out;
		}
		wc_bundle_all_pages(b, o->all_pages);
		ao.series = true;
	}
	if (o->trace && open_trace(o, &tf, &te) < 0) {
		status = WC_EXIT_FAILURE;
		goto out;
	}
	if (sandbox_on(o) < 0) {
		status = WC_EXIT_FAILURE;
		goto out;
	}
	ao.trace = te;
	if (!b && !te) {
		if (wc_keep_open(&kept, &so, &err) < 0) {
			status = report(&err);
			goto out;
		}
		status = analyse_parallel(o, &ao, kept, &ncapsules);
		goto write;
	}
	for (i = 0; i < o->ninputs; i++) {
		struct wc_analysis *a = NULL;
		bool refused = false;

		wc_err_clear(&err);
		if (b && wc_bundle_begin(b, &ao, &err) < 0) {
			status = report(&err);
			goto out;
		}
		status = analyse_one(o->inputs[i], peeked_take(o, i), &ao, &a,
				     status, &refused);
		if (refused)
			goto out;
		if (te)
			timeline_notice(o->inputs[i], te);
		if (!a)
			continue;
		caps[n++] = a;
		wc_err_clear(&err);
		if (b && wc_bundle_add(b, a, &err) < 0) {
			status = report(&err);
			goto out;
		}
	}
write:
	if (te) {
		int s = close_trace(o, tf, te);

		tf = NULL;
		if (s != WC_EXIT_OK && status == WC_EXIT_OK)
			status = s;
	}
	if ((n == 0 && ncapsules == 0) || o->trace_only)
		goto out;
	wc_err_clear(&err);
	if (kept && wc_keep_count(kept))
		r = wc_keep_summary(kept, &sum, &err);
	else
		r = summary_of(&sum, caps, n, o, &err);
	if (r < 0) {
		int s = report(&err);

		status = err.kind == WC_ERR_USAGE ? WC_EXIT_USAGE : s;
		goto out;
	}
	if (!b) {
		if (wc_report_write_detail(stdout, o->format, sum, o->detail,
					   &err) < 0)
			status = report(&err);
		goto out;
	}
	if (wc_bundle_close(b, sum, &err) < 0) {
		int s = report(&err);

		status = err.kind == WC_ERR_USAGE ? WC_EXIT_USAGE : s;
		goto out;
	}
	if (wc_bundle_notice(b)) {
		char e[WC_ESCAPE_SIZE(1024)];

		fprintf(stderr, PROG ": %s\n",
			wc_escape_text(wc_bundle_notice(b), e, sizeof(e)));
	}
	/* The path the user gave, but a terminal may show it: escaped like
	 * every other name (a script gets the same path back when it has
	 * only printable ASCII). */
	wc_escape_text_put(stdout, wc_bundle_index(b));
	putchar('\n');
out:
	if (tf && tf != stdout)
		fclose(tf);
	wc_traceevent_free(te);
	wc_summary_free(sum);
	wc_bundle_free(b);
	for (i = 0; i < (int)n; i++)
		wc_analysis_free(caps[i]);
	free(caps);
	wc_keep_free(kept);
	peeked_free(o);
	return status;
}

/* The interval table of every input, streamed as each is analysed
 * (intervaltab.h): no report. */
static int mode_interval(const struct options *o)
{
	struct wc_analysis_opts ao = o->analysis;
	struct wc_intervaltab *t = NULL;
	struct wc_err err;
	int i, status = WC_EXIT_OK;

	if (sandbox_on(o) < 0)
		return WC_EXIT_FAILURE;
	wc_err_clear(&err);
	if (wc_intervaltab_open(&t, stdout, o->format, o->interval_ns,
				&err) < 0)
		return report(&err);
	ao.btt = false;
	ao.interval = wc_intervaltab_sink(t);
	ao.interval_ns = o->interval_ns;
	for (i = 0; i < o->ninputs; i++) {
		struct wc_analysis *a = NULL;
		bool refused = false;

		status = analyse_one(o->inputs[i], -1, &ao, &a, status,
				     &refused);
		wc_analysis_free(a);
		if (refused) {
			wc_intervaltab_free(t);
			return status;
		}
	}
	wc_err_clear(&err);
	if (wc_intervaltab_close(t, &err) < 0) {
		snprintf(err.file, sizeof(err.file), "standard output");
		status = report(&err);
	}
	wc_intervaltab_free(t);
	return status;
}

/* Replays the one INPUT as recorded and as each --what-if says, and
 * reports them as captures compared with the replay as recorded. */
static int mode_whatif(const struct options *o)
{
	struct wc_whatif_opts wo = { .analysis = o->analysis };
	struct wc_summary_opts so = { 0 };
	struct wc_whatif *w = NULL;
	struct wc_summary *sum = NULL;
	struct wc_bundle *b = NULL;
	struct wc_err err;
	int status = WC_EXIT_OK;
	size_t i;

	if (o->ninputs != 1)
		return usage_error("%s", "--what-if takes one INPUT");
	wc_err_clear(&err);
	if (o->output) {
		if (wc_bundle_open(&b, o->output, &err) < 0)
			return report(&err);
		/* A replay's few analyses: each is the answer. */
		wc_bundle_all_pages(b, true);
		wo.analysis.series = true;
	}
	if (sandbox_on(o) < 0) {
		status = WC_EXIT_FAILURE;
		goto out;
	}
	if (wc_whatif_replay(&w, o->inputs[0], o->specs, o->nspecs, &wo,
			     &err) < 0) {
		/* Read only now that its reading failed: a summary is no
		 * trace, and saying so is the answer. */
		if (wc_input_is_summary(o->inputs[0]))
			status = usage_error("%s", summary_no_trace);
		else
			status = err.kind == WC_ERR_USAGE ?
				 (report(&err), WC_EXIT_USAGE) : report(&err);
		goto out;
	}
	for (i = 0; i < wc_whatif_count(w); i++)
		report_warnings(wc_whatif_analyses(w)[i]);
	for (i = 0; i < wc_whatif_nnotes(w); i++) {
		char e[WC_ESCAPE_SIZE(512)];

		fprintf(stderr, PROG ": %s\n",
			wc_escape_text(wc_whatif_note(w, i), e, sizeof(e)));
	}
	for (i = 0; b && i < wc_whatif_count(w); i++)
		if (wc_bundle_add(b, wc_whatif_analyses(w)[i], &err) < 0) {
			status = report(&err);
			goto out;
		}
	so.baseline_index = wc_whatif_baseline_index(w);
	so.recorded_index = 1;          /* wc_whatif_analyses()[0] */
	if (wc_summary_build_opts(&sum, wc_whatif_analyses(w),
				  wc_whatif_count(w), &so, &err) < 0) {
		status = report(&err);
		goto out;
	}
	if (!b) {
		if (wc_report_write(stdout, o->format, sum, &err) < 0)
			status = report(&err);
		goto out;
	}
	if (wc_bundle_close(b, sum, &err) < 0) {
		status = report(&err);
		goto out;
	}
	wc_escape_text_put(stdout, wc_bundle_index(b));
	putchar('\n');
out:
	wc_summary_free(sum);
	wc_bundle_free(b);
	wc_whatif_free(w);
	return status;
}

/*
 * For a bundle or a timeline, which are written as the inputs are read,
 * the usage errors the reading would find are found first, before a
 * folder or a file is half written: a summary among the inputs (a peek
 * at each one's first bytes) and, with --baseline, no capture of that
 * name (each input opened for its name until one has it: a scan for an
 * archive, which also tells a summary).  A peek's descriptor is kept in
 * o->peeked, and the input's reading reads it (input.h,
 * wc_input_open_fd_any()): one open of each of the first PEEKED_MAX
 * inputs; the name's open, and past those, the peek, cost an open more.
 * A report finds both as it reads (analyse_parallel()), --dump and
 * --interval where they read.  Standard input cannot be opened twice:
 * never a summary here, and with "-" among the inputs the name is taken
 * on trust and the report checks it at the end.  WC_EXIT_OK, or the
 * usage error's status (nothing kept then).
 */
static int check_before_writing(struct options *o)
{
	bool found = !o->baseline;
	int i, room = peeked_room(), status = WC_EXIT_OK;

	o->peeked = malloc((size_t)o->ninputs * sizeof(*o->peeked));
	for (i = 0; o->peeked && i < o->ninputs; i++)
		o->peeked[i] = -1;
	for (i = 0; i < o->ninputs && status == WC_EXIT_OK; i++) {
		struct wc_input *in = NULL;
		int fd, r;

		if (!strcmp(o->inputs[i], "-")) {
			found = true;
			continue;
		}
		if (found && (!o->peeked || room == 0)) {
			if (wc_input_is_summary(o->inputs[i]))
				status = usage_error("%s", summary_no_trace);
			continue;
		}
		if (found) {
			if (wc_input_is_summary_fd(o->inputs[i], &fd))
				status = usage_error("%s", summary_no_trace);
			o->peeked[i] = fd;
			room -= fd >= 0;
			continue;
		}
		r = wc_input_open_any(&in, &fd, o->inputs[i], NULL, NULL);
		if (r > 0)
			status = summary_refused(fd);
		if (r != 0)
			continue;
		found = !strcmp(wc_input_name(in), o->baseline);
		wc_input_free(in);
	}
	if (status == WC_EXIT_OK && !found)
		status = usage_error("no capture named '%s' for --baseline",
				     o->baseline);
	if (status != WC_EXIT_OK) {
		peeked_free(o);
		o->peeked = NULL;
	}
	return status;
}

/* "START+LEN" in sectors. */
static int parse_journal(const char *arg, struct wc_analysis_opts *a)
{
	unsigned long long start, len;
	char *end;

	errno = 0;
	start = strtoull(arg, &end, 10);
	if (end == arg || *end != '+' || errno)
		return -1;
	arg = end + 1;
	len = strtoull(arg, &end, 10);
	if (end == arg || *end || errno || len == 0)
		return -1;
	a->journal_given = true;
	a->journal_start = start;
	a->journal_len = len;
	return 0;
}

/* A count from 0 to 2^64 - 1, digits only. */
static int parse_count(const char *arg, uint64_t *n)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end == arg || *end || errno || *arg < '0' || *arg > '9')
		return -1;
	*n = v;
	return 0;
}

static int parse_jobs(const char *arg, unsigned *jobs)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (end == arg || *end || errno || v < 1 || v > 1024 || *arg == '-')
		return -1;
	*jobs = (unsigned)v;
	return 0;
}

/* "1,3": run numbers from 1 to 999999, at most WC_MAX_EXCLUDE, added to
 * o's. */
static int parse_runs(const char *arg, struct options *o)
{
	const char *p = arg;

	for (;;) {
		unsigned long v;
		char *end;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v < 1 || v > 999999 || (*end && *end != ',') ||
		    o->nexclude == WC_MAX_EXCLUDE)
			return -1;
		o->exclude_runs[o->nexclude++] = (int)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* SECONDS, from 1 microsecond to a day. */
static int parse_interval(const char *arg, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !(v >= 1e-6 && v <= 86400))
		return -1;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

static int parse_rate(const char *arg, double *bytes_per_s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !(v > 0))
		return -1;
	*bytes_per_s = v * 1e6;
	return 0;
}

/* --equivalence: "0.25" or "0.25s" seconds, "5%" of the baseline's
 * mean wall. */
static int parse_equivalence(const char *arg, struct options *o)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || !isfinite(v) || !(v > 0))
		return -1;
	if (!strcmp(end, "%")) {
		if (v > 100)
			return -1;
		o->equiv_share = v / 100;
		o->equiv_s = 0;
		return 0;
	}
	if (*end && strcmp(end, "s"))
		return -1;
	o->equiv_s = v;
	o->equiv_share = 0;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", no_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "journal", required_argument, NULL, 'J' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "media-rate", required_argument, NULL, 'r' },
		{ "btt", no_argument, NULL, OPT_BTT },
		{ "baseline", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "capture-pages", required_argument, NULL, OPT_CAPTURE_PAGES },
		{ "what-if", required_argument, NULL, 'w' },
		{ "export-trace", required_argument, NULL, 't' },
		{ "timeline-limit", required_argument, NULL, OPT_TIMELINE_LIMIT },
		{ "runs", no_argument, NULL, 'R' },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "phase", required_argument, NULL, OPT_PHASE },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "process", required_argument, NULL, OPT_PROCESS },
		{ "interval", required_argument, NULL, 'i' },
		{ "exclude-runs", required_argument, NULL, 'x' },
		{ "drop-first", no_argument, NULL, 'F' },
		{ "equivalence", required_argument, NULL, OPT_EQUIVALENCE },
		{ "no-sandbox", no_argument, NULL, OPT_NO_SANDBOX },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .mode = MODE_ANALYZE, .format = WC_FORMAT_TEXT,
			     .analysis = WC_ANALYSIS_OPTS_INIT,
			     .filter = WC_FILTER_INIT,
			     .timeline_limit = WC_TRACEEVENT_DEFAULT_SLICES };
	int c, i, nstdin;

	o.analysis.threads = 0;         /* --threads not given */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":df:i:j:J:r:b:o:t:w:x:FRhvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.mode = MODE_DUMP;
			break;
		case 'f':
			if (!strcmp(optarg, "trace-event")) {
				o.trace_only = true;
				o.trace = "-";
				break;
			}
			o.trace_only = false;
			if (wc_format_parse(optarg, &o.format) < 0)
				return usage_error("unknown format '%s' (text, json, "
						   "csv or trace-event)", optarg);
			break;
		case OPT_WINDOW:
			if (wc_filter_parse_window(&o.filter, optarg) < 0)
				return usage_error("bad --window '%s' (START,END in "
						   "seconds, START < END; END may be "
						   "left out)", optarg);
			break;
		case OPT_PHASE:
			if (wc_filter_parse_phase(&o.filter, optarg) < 0)
				return usage_error("bad --phase '%s' (a phase name "
						   "of phases.tsv)", optarg);
			break;
		case OPT_DEVICE:
			if (wc_filter_parse_device(&o.filter, optarg) < 0)
				return usage_error("bad --device '%s' (MAJ,MIN or a "
						   "name capture.conf gives)", optarg);
			break;
		case OPT_PROCESS:
			if (wc_filter_parse_process(&o.filter, optarg) < 0)
				return usage_error("bad --process '%s' (a pid or a "
						   "command name)", optarg);
			break;
		case 'i':
			if (parse_interval(optarg, &o.interval_ns) < 0)
				return usage_error("bad --interval '%s' (seconds, "
						   "0.000001 to 86400)", optarg);
			break;
		case 't':
			o.trace = optarg;
			o.trace_only = false;
			break;
		case OPT_TIMELINE_LIMIT:
			if (parse_count(optarg, &o.timeline_limit) < 0)
				return usage_error("bad --timeline-limit '%s' (a "
						   "number of requests, 0 for "
						   "all)", optarg);
			o.timeline_limit_set = true;
			break;
		case 'j':
			if (parse_jobs(optarg, &o.jobs) < 0)
				return usage_error("bad --jobs '%s' (1 to 1024)",
						   optarg);
			break;
		case OPT_THREADS:
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				return usage_error("bad --threads '%s' (1 or 2)",
						   optarg);
			o.analysis.threads = (unsigned)(optarg[0] - '0');
			break;
		case 'J':
			if (parse_journal(optarg, &o.analysis) < 0)
				return usage_error("bad --journal '%s' (START+LEN "
						   "in sectors)", optarg);
			break;
		case 'r':
			if (parse_rate(optarg, &o.analysis.media_rate) < 0)
				return usage_error("bad --media-rate '%s' (MB/s)",
						   optarg);
			break;
		case OPT_BTT:
			o.analysis.btt = true;
			break;
		case 'b':
			o.baseline = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case OPT_CAPTURE_PAGES:
			if (strcmp(optarg, "named") && strcmp(optarg, "all"))
				return usage_error("bad --capture-pages '%s' (named "
						   "or all)", optarg);
			o.all_pages = !strcmp(optarg, "all");
			o.pages_given = true;
			break;
		case 'w': {
			struct wc_err e;

			if (o.nspecs == WC_WHATIF_MAX_SPECS)
				return usage_error("more than 16 --what-if (at "
						   "'%s')", optarg);
			wc_err_clear(&e);
			if (wc_whatif_spec_parse(&o.specs[o.nspecs], optarg,
						 &e) < 0)
				return usage_error("%s", e.msg);
			o.nspecs++;
			o.mode = MODE_WHATIF;
			break;
		}
		case 'R':
			o.detail = WC_REPORT_RUNS;
			break;
		case 'x':
			if (parse_runs(optarg, &o) < 0)
				return usage_error("bad --exclude-runs '%s' (run "
						   "numbers 1 to 999999, "
						   "comma-separated, at most 64)",
						   optarg);
			break;
		case 'F':
			o.drop_first = true;
			break;
		case OPT_EQUIVALENCE:
			if (parse_equivalence(optarg, &o) < 0)
				return usage_error("bad --equivalence '%s' (seconds "
						   "above 0, or a percentage above 0 "
						   "and up to 100 followed by %%)",
						   optarg);
			break;
		case OPT_NO_SANDBOX:
			o.no_sandbox = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return WC_EXIT_OK;
		case 'V':
			printf(PROG " %s\n", wc_version);
			return WC_EXIT_OK;
		case ':':
			return usage_error("option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	o.inputs = argv + optind;
	o.ninputs = argc - optind;
	/* Two threads for an input analysed alone; inputs analysed side
	 * by side (--jobs) have the cores already.  docs/performance.md,
	 * "Two threads for one trace", has the measurement. */
	if (!o.analysis.threads)
		o.analysis.threads = o.ninputs > 1 && o.jobs != 1 ? 1 : 2;
	if (wc_filter_any(&o.filter))
		o.analysis.filter = &o.filter;
	if (o.ninputs == 0)
		return usage_error("%s", "no INPUT given");
	/* Standard input can be read once: a second "-" would be an empty
	 * capture, and could become the comparison's baseline. */
	for (i = 0, nstdin = 0; i < o.ninputs; i++)
		if (!strcmp(o.inputs[i], "-") && ++nstdin > 1)
			return usage_error("%s", "standard input ('-') named "
					   "more than once");

	if (o.trace && o.output)
		return usage_error("%s", "--output writes each capture's timeline "
				   "into the bundle (CAPTURE/timeline.json.gz): not "
				   "with --format trace-event or --export-trace");
	if (o.timeline_limit_set && !o.trace)
		return usage_error("%s", "--timeline-limit is for --format "
				   "trace-event and --export-trace");
	if (o.pages_given && !o.output)
		return usage_error("%s", "--capture-pages chooses the pages of a "
				   "bundle: only with --output");
	if (o.trace && !o.trace_only && !strcmp(o.trace, "-"))
		return usage_error("%s", "--export-trace -: the report goes to "
				   "standard output; use --format trace-event");

	if (o.interval_ns && (o.trace || o.output || o.mode != MODE_ANALYZE ||
			      o.baseline))
		return usage_error("%s", "--interval writes its table instead of a "
				   "report: not with --dump, --what-if, --output, "
				   "--baseline, --export-trace or --format "
				   "trace-event");

	/* The what-if's baseline is its replay as recorded, and its
	 * captures are replays: no timeline of them is written. */
	if (o.mode == MODE_WHATIF && (o.trace || o.baseline))
		return usage_error("%s", "--what-if compares with the replay as "
				   "recorded and writes no timeline: not with "
				   "--baseline, --export-trace or --format "
				   "trace-event");

	if (o.mode == MODE_ANALYZE && (o.output || o.trace) &&
	    (c = check_before_writing(&o)) != WC_EXIT_OK)
		return c;

	switch (o.mode) {
	case MODE_DUMP:
		return mode_dump(&o);
	case MODE_WHATIF:
		return mode_whatif(&o);
	case MODE_ANALYZE:
	default:
		return o.interval_ns ? mode_interval(&o) : mode_analysis(&o);
	}
}
