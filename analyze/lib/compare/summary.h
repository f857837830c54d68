/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary.h - the analysis' one computed summary: every number the text,
 * JSON, CSV and HTML writers print about one capture or across captures
 * (seconds, shares, the comparison columns, ratios, run groups with their
 * spread, the differences against the baseline and the findings).  The
 * writers only format what is here; nothing is derived twice.
 *
 *     struct wc_analysis *caps[N];          // from wc_analysis_read()
 *     struct wc_summary *s = NULL;
 *     if (wc_summary_build(&s, caps, n, baseline, &err) < 0)
 *             report(&err);                 // WC_ERR_USAGE: no such baseline
 *     wc_report_write(stdout, fmt, s, &err);
 *     wc_summary_free(s);                   // before the analyses
 *
 * The model (docs/methodology.md, "Differences, runs and findings"):
 *  - a capture's wall (or a phase's) is split into parts: the time of each
 *    category on the main device and the device's idle time ("off
 *    device": time the block layer does not see), in integer nanoseconds that
 *    sum to the wall exactly;
 *  - captures of the same configuration (capture.conf's fs, write cache,
 *    barriers, disk, workload: wc_capture_meta.config) form a group, its
 *    runs; a capture without that key is a group of its own.  Groups are
 *    numbered in the order of their first capture;
 *  - groups whose captures share wc_capture_meta.comparable (the disk,
 *    disk model, workload and its scale: files and bytes) form a
 *    comparable set; sets are numbered in the order of their first
 *    group.  Wall times across sets measure the disk or the amount of
 *    work, not the write cache and barrier settings compared: a 7200 rpm
 *    disk's fastest configuration says nothing about an ssd's, and a run
 *    on half the files is faster whatever its settings;
 *  - without a named baseline every set has its own: the group of the
 *    smallest mean wall in the set (the first such group on a tie), and
 *    every group's differences, verdict and the difference findings are
 *    against its set's baseline (a set of one group is its own baseline,
 *    with differences of 0);
 *  - with baseline, the group of the capture of that name is the one
 *    baseline of every group; a group in another set is compared all the
 *    same, and cross_disk says when its disk (capture.conf disk or
 *    disk_model) differs from the baseline's: the writers and the
 *    findings say so;
 *  - differences exist when a baseline was named or a comparable set has
 *    two groups or more;
 *  - a group's mean parts are rounded to whole nanoseconds and its mean
 *    wall is their sum, so that every difference (a capture's or a
 *    group's mean minus its baseline group's mean) has parts summing to
 *    its wall difference exactly;
 *  - a phase's difference is against its baseline group's phases of the
 *    same name (the first of that name in each run); unknown when none
 *    of its runs has one;
 *  - verdicts (docs/methodology.md, "Verdicts"): every measure of a
 *    group (each category's time, the device's busy total, positioning
 *    and transfer, the time off the device, the wall) is tested against
 *    its baseline group's by Welch's t-test, with the difference's 95 %
 *    interval.  Each verdict says what it excludes: real when the 95 %
 *    interval excludes 0; else no larger than X when the 90 % interval
 *    lies inside +-X (two one-sided tests at 5 %, TOST), X being the
 *    group's equivalence bound (wc_summary_opts); else not decided, with
 *    the runs a side that would decide it at the spreads observed (none
 *    can be said when a side has fewer than two runs).  The group's
 *    verdict, "did the disk cause it", is its busy total's; the wall's
 *    verdict is stated beside it;
 *  - ratios (the older --baseline output) are a capture's columns to the
 *    named baseline capture's own, unknown (< 0) when either is unknown
 *    or the baseline's is 0.
 *
 * The summary reads each capture through its capsule (capsule.h): made
 * here of an analysis (wc_summary_build_opts(), which keeps what it made;
 * the analyses may go once it returns), given (wc_summary_build_capsules(),
 * which points into them), or read from a source (wc_summary_build_src():
 * a comparison of many summaries, docs/performance.md).  From a source
 * it reads the captures one at a time: what to leave out (unless its
 * caller noted that as it made the source: wc_summary_plan_add()), then
 * the groups, their spreads and what the findings need, then, for the
 * writers, each capture's row (wc_summary_rows()).  Without
 * keep_rows it then holds, whatever the number of captures: its groups
 * (each with its first capture's capsule and row, its figures and at
 * most WC_MAX_PHASES phase names), a few captures the findings name
 * (the slowest, the named baseline, the first not whole, against the
 * kernel's counters, with a guessed journal, with data left unwritten),
 * at most three names of the others, and WC_SUM_HOST_VALUES values of
 * each host key; the groups' member names go to an unnamed temporary
 * file past 64 KiB (wc_summary_member()).  The check for one recording
 * given twice (struct wc_summary, nleft_out) keeps a Bloom filter of
 * the recordings (1 MiB), and a record for each capture that may be a
 * copy (each copy, and by chance five in a million at 100,000),
 * told by its digest, run and two 64-bit hashes of its name; only then
 * is the source read once more to tell.  So nothing grows with the
 * number of captures but that, and never with the number of requests.
 * wc_summary_free(NULL) is fine.
 */
#ifndef WC_SUMMARY_H
#define WC_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "base/wcerr.h"
#include "analysis/capsule.h"

/* The columns of the comparison table. */
enum wc_col {
	WC_COL_WALL,
	WC_COL_BUSY,
	WC_COL_FLUSH,
	WC_COL_JOURNAL,
	WC_COL_METADATA,
	WC_COL_POSITIONING,    /* part of journal+metadata+data; may be unknown */
	WC_COL_DATA,           /* data read + data write */
	WC_COL_DISCARD,        /* so that busy's parts are all columns: */
	WC_COL_OTHER,          /* flush+jrnl+meta+data+discard+other */
	WC_NCOLS
};

/* The parts of a wall time: the categories of classify.h, then idle,
 * then the disk's own work outside any request (account.h, internal_ns:
 * a model disk's ledger, its destage of no command), busy but no
 * request's.  Only a capture with a ledger has the last: the writers
 * show it when some capture of the summary has one
 * (wc_summary_part_shown()), so that a summary without one reads as it
 * did before the part was. */
#define WC_PART_IDLE WC_NCAT
#define WC_PART_INTERNAL (WC_NCAT + 1)
#define WC_NPARTS (WC_NCAT + 2)

/* JSON and CSV key of a column: "wall", "busy", ..., "data", "discard",
 * "other". */
const char *wc_col_key(enum wc_col c);
/* A part's key: wc_cat_name(), "off_device" for WC_PART_IDLE,
 * "destage_no_request" for WC_PART_INTERNAL. */
const char *wc_part_key(int part);
/* A part in words for sentences and tables: "flush", "data write", "off
 * the device", "destage (no request)". */
const char *wc_part_label(int part);

/* What a difference is tested on: each category's time (enum wc_cat's
 * order, the parts of a wall but off the device), then these. */
enum wc_measure {
	WC_MEAS_BUSY = WC_NCAT,        /* the main device's busy total */
	WC_MEAS_POSITIONING,           /* of journal+metadata+data, when the
	                                * media rate is known */
	WC_MEAS_TRANSFER,              /* journal+metadata+data less it */
	WC_MEAS_OFF_DEVICE,            /* the main device idle, split into: */
	WC_MEAS_OFF_OTHER,             /* another traced device busy */
	WC_MEAS_OFF_CPU,               /* the command's CPU time (phases.tsv
	                                * user + sys) in the rest */
	WC_MEAS_OFF_REST,              /* the rest: off the device, not
	                                * seen by the block layer */
	WC_MEAS_WALL,
	WC_NMEAS
};

/* "flush", ..., "busy", "positioning", "transfer", "off_device",
 * "off_device_other", "off_device_cpu", "off_device_rest", "wall". */
const char *wc_meas_key(int m);
/* In words: "flush", ..., "the device's busy time", "positioning". */
const char *wc_meas_label(int m);

/* Nanoseconds as seconds, for every writer. */
static inline double wc_secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* A capture.conf switch (1, 0, -1 unknown) as "on", "off" or "?". */
const char *wc_onoff(int v);

/* The figures of a capture or a phase on the main device. */
struct wc_sum_figs {
	bool io;                       /* a request completed in the window */
	uint64_t start_ns;             /* the window's start (trace clock), when io */
	uint64_t wall_ns;
	uint64_t part_ns[WC_NPARTS];   /* sum + outstanding_ns == wall_ns */
	/* Requests dispatched and never completed were outstanding
	 * (account.h): no part, neither idle nor any category's. */
	uint64_t outstanding_ns;
	/* The disk's own work is known (a ledger): part_ns[WC_PART_INTERNAL]
	 * and the ranges and bytes it destaged (in the window). */
	bool internal_known;
	uint64_t internal_ranges, internal_bytes;
	double col[WC_NCOLS];          /* seconds, < 0 unknown */
	double share[WC_NPARTS];       /* % of wall_ns, 0 when it is 0 */
	double busy_pct;               /* % of wall_ns not idle */
	uint64_t requests[WC_NCAT];    /* completed in the window */
	uint64_t bytes[WC_NCAT];
	uint64_t all_requests, all_bytes;      /* their sums */
	/* What positioning is a part of, seconds: journal, metadata and
	 * data, and with the write cache on the flushes that destaged what
	 * it absorbed (their split: destage_s[0] positioning, [1] transfer,
	 * both in col[WC_COL_POSITIONING] and the transfer measure; < 0
	 * when positioning is unknown). */
	double split_s;
	double destage_s[2];
};

/* A device's figures beyond its parts, for every writer. */
struct wc_sum_device {
	uint32_t device;
	const char *name;              /* capture.conf's name of it, or NULL */
	struct wc_sum_figs figs;       /* over the capture's window */
	/* The accountant's counts: latencies, seeks and their histogram,
	 * FUA writes, the deepest queue.  Never NULL. */
	const struct wc_figures *raw;
	double media_rate;             /* bytes/s used for positioning, 0
	                                * when unknown */
	bool media_rate_estimated;     /* from the trace, not --media-rate */
	double queue_mean;             /* mean requests at the driver */
	double seek_pct;               /* seeks of the requests that could
	                                * seek, % (0 of none) */
};

/* One partition of a disk (account.h, wc_account_part()): its
 * requests and bytes, and the part of the disk's busy time its own
 * requests ended (the parts sum to the disk's busy time). */
struct wc_sum_part {
	uint32_t device;
	const char *name;              /* capture.conf's name of it, or NULL */
	const char *role;              /* capture.conf's device.DEV.role
	                                * ("destination", "source"), or NULL */
	uint64_t requests, bytes;
	double busy_s;
	double busy_pct;               /* % of the disk's busy time */
};

/* btt's Q2C and D2C over every device, with their means. */
struct wc_sum_btt {
	bool on;                       /* run with o.btt; else all 0 */
	struct wc_btt_stat q2c, d2c;
	double q2c_mean_s, d2c_mean_s;
	uint64_t forgotten, ignored;
};

/* A difference against the baseline group's mean (of the capture's or
 * the phase's group: wc_sum_group.base). */
struct wc_sum_diff {
	bool known;
	int64_t wall_ns;
	int64_t part_ns[WC_NPARTS];    /* sum == wall_ns exactly */
	/* The part that moved most in the direction of the wall's change,
	 * or -1 when the wall did not change. */
	int main_part;
};

struct wc_sum_phase {
	const char *name;
	uint64_t start_ns, end_ns;     /* as phases.tsv gives them */
	double wall_s;                 /* end - start */
	struct wc_sum_figs figs;
	bool has_ratio;                /* a named baseline with this phase */
	double ratio[WC_NCOLS];
	struct wc_sum_diff diff;
};

struct wc_sum_capture {
	const struct wc_capsule *cap;  /* everything below comes from it */
	const struct wc_capture_meta *meta;
	size_t group;                  /* index into the groups */
	size_t rank;                   /* its place among its group's runs,
	                                * from 0, in input order */
	struct wc_sum_figs figs;
	bool partial;                  /* the input ended early */
	const char *filter;            /* the filters the analysis applied,
	                                * in words (filter.h), or NULL */
	const char *missing;           /* why the main device has no figures
	                                * (capture.conf names one the trace
	                                * has no I/O on), or NULL */
	/* Positioning's share of journal+metadata+data time, %, when
	 * figs.col[WC_COL_POSITIONING] is known. */
	double positioning_pct;
	size_t ndevices;               /* every device with I/O, the */
	struct wc_sum_device *devices; /* accountant's order */
	const struct wc_sum_device *main;      /* in devices, or disk;
	                                        * NULL: no I/O */
	/* One disk of partitions (capture.conf disk_regions, account.h):
	 * main is then disk, the disk's figures over every partition's
	 * requests, named "loop1+loop2" (disk_name), its device the first
	 * partition's, and parts its split by partition, in disk_regions'
	 * order; nparts 0 otherwise.  Its partitions are never "another
	 * device" (meas[WC_MEAS_OFF_OTHER], the findings). */
	size_t nparts;
	struct wc_sum_part *parts;
	struct wc_sum_device disk;
	char disk_name[160];
	char disk_said[176];           /* "the disk loop1+loop2", for
	                                * sentences */
	/* Every measure in seconds, < 0 unknown (the CPU part and the
	 * rest without phases.tsv). */
	double meas[WC_NMEAS];
	/* phases.tsv's times of the command: its wall (real) and CPU (user
	 * + sys) summed over its phases (under a window, those it holds
	 * whole); < 0 without phases, when they have no times (every real_s
	 * 0), or with cpu_cut. */
	double command_wall_s, command_cpu_s;
	/* A phase the filter's window cuts, whose CPU time phases.tsv
	 * gives only whole: the CPU part is then unknown.  NULL: none. */
	const char *cpu_cut;
	const struct wc_tracker_stats *tracking;
	/* The trace against the kernel's counters (kcounters.h). */
	const struct wc_kcheck *kcheck;
	struct wc_sum_btt btt;
	size_t nprocs;                 /* the main device's time by process, */
	const struct wc_wait *const *procs;    /* most first (account.h) */
	size_t nwaits;                 /* processes waiting on sync requests, */
	const struct wc_wait *const *waits;    /* longest wait first */
	bool has_ratio;                /* a baseline was named */
	double ratio[WC_NCOLS];
	struct wc_sum_diff diff;
	size_t nphases;
	struct wc_sum_phase *phases;
	/* A copy ends when its data is on the platter (the meta's
	 * has_durable: capture.conf workload_end_ns, durable_ns): when the
	 * command returned and when its data was durable, in seconds from
	 * the window's start, and the bytes the drive destaged between.
	 * durable_in_window: the window (whose busy times are compared)
	 * ends at the durable time or later, so no work left in the
	 * drive's cache is outside it; false when a filter's window ends
	 * before it. */
	bool has_durable;
	double returned_s, durable_s;
	uint64_t durable_bytes;
	bool durable_in_window;
};

/* Mean, standard deviation (n - 1; 0 when n < 2), range, of the n runs
 * where the figure is known. */
struct wc_stat {
	size_t n;
	double mean, sd, min, max;
};

enum wc_verdict {
	WC_VERDICT_BASELINE,           /* the baseline group itself */
	WC_VERDICT_REAL,               /* the 95 % interval excludes 0 */
	WC_VERDICT_BOUNDED,            /* no larger than the bound: the 90 %
	                                * interval inside +-bound_s (TOST) */
	WC_VERDICT_UNDECIDED,          /* neither: not decided */
};

/* "baseline", "real", "no_larger_than", "not_decided" (JSON, CSV). */
const char *wc_verdict_key(enum wc_verdict v);
/* "baseline", "real", "no larger than the bound", "not decided". */
const char *wc_verdict_label(enum wc_verdict v);

/* Runs a side beyond which runs_needed is not searched. */
#define WC_RUNS_NEEDED_MAX 1000

/* The test of one measure of a group against its baseline group. */
struct wc_test {
	bool known;                    /* the figure is known in a run of
	                                * each side: the rest is valid */
	enum wc_verdict verdict;
	size_t n, base_n;              /* runs with the figure known */
	double diff_s;                 /* mean less the baseline's mean */
	double bound_s;                /* X of "no larger than X": the
	                                * group's equivalence bound */
	/* With two runs or more a side: the 95 % interval of diff_s and
	 * the 90 % one of the equivalence test (both equal to it when no
	 * run varies), Welch's t (+-INFINITY then) and its degrees of
	 * freedom. */
	bool has_interval;
	double lo_s, hi_s;
	double lo90_s, hi90_s;
	double t, df;
	/* Not decided: the runs a side that would decide it (real or no
	 * larger than bound_s) if the means and spreads stayed as they
	 * are; 0 when that cannot be said (a side has fewer than two
	 * runs), WC_RUNS_NEEDED_MAX + 1 when more than that many. */
	size_t runs_needed;
};

/* The verdict in words with what it excludes: "real", "no larger than
 * +-0.093 s", "not decided (7 runs a side)" (the runs that would decide
 * it), "not decided (one run a side)", "baseline".  Returns buf. */
const char *wc_test_words(const struct wc_test *t, char *buf, size_t size);

struct wc_sum_group {
	size_t n;
	/* The row of its first capture, every figure of it: held whichever
	 * way the summary was built. */
	const struct wc_sum_capture *first;
	/* Capture indexes into caps, in input order; NULL when the summary
	 * keeps no rows (wc_summary_member() names them either way). */
	size_t *members;
	size_t set;                    /* index into the comparable sets */
	size_t phased;                 /* runs with phases (phases.tsv) */
	/* capture.conf's disk_model of the first capture, "" unknown; points
	 * into the analysis. */
	const char *disk_model;
	/* The disk's one name in every table, figure and sentence: the
	 * disk_model, else "loop" on a loop device (the lab's plain image),
	 * else the main device's name, else "unknown".  Input text: escape
	 * it where it is written. */
	const char *disk_name;
	/* When differences were computed: the group compared with (itself
	 * for a baseline), and whether its disk is another (only with a
	 * named baseline). */
	size_t base;
	bool cross_disk;
	struct wc_stat col[WC_NCOLS];  /* seconds */
	struct wc_stat part[WC_NPARTS];
	uint64_t mean_part_ns[WC_NPARTS];
	uint64_t mean_wall_ns;         /* sum of mean_part_ns */
	struct wc_sum_diff diff;       /* mean against the baseline's mean */
	struct wc_stat meas[WC_NMEAS]; /* seconds, over the runs */
	/* When differences were computed: every measure's test, the
	 * verdict on device time (test[WC_MEAS_BUSY]'s) and the wall's. */
	struct wc_test test[WC_NMEAS];
	enum wc_verdict verdict, wall_verdict;
	double equiv_s;                /* its tests' bound_s */
};

enum wc_finding_kind {
	WC_FIND_MOST_TIME,             /* what took most of the time */
	WC_FIND_DEVICE_IDLE,           /* time off the device */
	WC_FIND_FLUSHES,               /* count, median, p99, issuers */
	WC_FIND_DIFFERENCE,            /* largest difference and its cause:
	                                * one per comparable set of two
	                                * groups or more, or one against a
	                                * named baseline */
	WC_FIND_SKIPPED,               /* a configuration compared with
	                                * nothing, and why */
	WC_FIND_LEFT_OUT,              /* captures left out of the
	                                * comparison (warm-ups, options) */
	WC_FIND_RUN_ORDER,             /* whether the first run is the
	                                * slowest more often than chance */
	WC_FIND_HOST_STATE,            /* compared captures whose host,
	                                * tools or load differ */
	WC_FIND_DIRTY,                 /* data still unwritten at the end */
	WC_FIND_MODEL_ERROR,           /* a what-if: the recording against
	                                * its replay as recorded */
	WC_FIND_WHOLE,                 /* captures whose trace is not whole:
	                                * CPU files missing, events lost or
	                                * repeated, requests unmatched */
	WC_FIND_KCOUNTERS,             /* captures whose trace differs from
	                                * the kernel's counters: events lost,
	                                * or more than the kernel counted */
	WC_FIND_JOURNAL_GUESSED,       /* captures whose journal was
	                                * guessed from flags, and why */
};

#define WC_FINDING_MAX_NUMS 16
#define WC_FINDING_MAX_STRS 10

/* A finding: a sentence and the numbers it was made from.  Strings may
 * hold capture and process names as found in the input: writers make
 * them safe for where they go. */
struct wc_finding {
	enum wc_finding_kind kind;
	/* Not the answer to the user's question but a caveat beside it:
	 * host noise (run order, host state), captures left out, data left
	 * unwritten, and, when a difference answers a comparison, the
	 * slowest capture's own detail and a trace not whole (of one
	 * capture, WC_FIND_WHOLE is made first and opens the findings).
	 * Caveats come after the answers. */
	bool caveat;
	size_t nnums, nstrs;
	struct { const char *key; double value; } num[WC_FINDING_MAX_NUMS];
	struct { const char *key; char value[256]; } str[WC_FINDING_MAX_STRS];
	char text[2048];               /* a few sentences, full stops */
};

/* The JSON name of a kind: "most_time", "device_idle", "flushes",
 * "difference", "skipped", "left_out", "run_order", "host_state",
 * "dirty_at_end", "model_error", "whole_trace", "kernel_counters",
 * "journal_guessed". */
const char *wc_finding_kind_name(enum wc_finding_kind k);

/* A comparable set of groups (wc_capture_meta.comparable). */
struct wc_sum_set {
	size_t ngroups;
	size_t first;                  /* its first group */
	/* Without a named baseline (and with differences): the set's own
	 * baseline group, and the name of that group's first capture. */
	size_t base_group;
	const char *base_name;
};

struct wc_summary {
	size_t ncaps;                  /* the captures compared */
	/* Their rows in input order, when kept (wc_summary_build_src()'s
	 * keep_rows, and every other build); else NULL: wc_summary_rows(). */
	struct wc_sum_capture *caps;
	size_t ngroups;
	struct wc_sum_group *groups;
	size_t *members;               /* the groups' members, one array */
	bool any_runs;                 /* some group has two runs or more */
	const char *named_baseline;    /* as given, or NULL */
	size_t nsets;                  /* comparable sets, >= 1 when ncaps */
	struct wc_sum_set *sets;
	bool has_diff;                 /* differences were computed */
	/* When has_diff: the named baseline's group, or, without one, the
	 * first set's baseline (each group's own: groups[g].base). */
	size_t base_group;
	const char *base_name;         /* the named capture, or the name of
	                                * the base_group's first capture */
	bool any_cross_disk;           /* some group's cross_disk */
	/* A what-if (wc_summary_opts.recorded_index): the captures are a
	 * recording and its replays, and recorded_group is the
	 * recording's group. */
	bool replay;
	size_t recorded_group;
	/* Some capture's main device has its own work known (a ledger):
	 * the writers show WC_PART_INTERNAL. */
	bool internal;
	/* The equivalence bound as asked (wc_summary_opts): seconds when
	 * equiv_s > 0, else a share of each baseline's mean wall. */
	double equiv_s, equiv_share;
	/* Captures given but left out of everything above (never in
	 * caps): warm-ups, --exclude-runs, --drop-first, and a capture
	 * given again: the same capture.conf name and run and the same
	 * requests (wc_capture_meta's digest), under another name or the
	 * same, counted once, as the first given.  The findings name
	 * three, with why (WC_FIND_LEFT_OUT). */
	size_t nleft_out;
	/* Of the captures compared: some has phases (phases.tsv); some
	 * has a disk of partitions as its main device, the most
	 * partitions of one such disk. */
	bool any_phases, any_disk;
	size_t most_parts;
	/* With differences: compared captures whose data became durable
	 * after their window's end (has_durable, !durable_in_window), so
	 * that their busy times leave out what the drive destaged after
	 * the window: the writers say so beside the comparison. */
	size_t durable_outside;
	size_t nfindings;
	struct wc_finding *findings;
	/* The capsules wc_summary_build_opts() made of its analyses. */
	struct wc_capsule **owned;
	size_t nowned;
	/* What the build keeps for the rows and the findings (summary.c,
	 * findings.h). */
	struct wc_sum_state *st;
	struct wc_find_acc *find;
};

/* What to leave out of a comparison (docs/methodology.md, "Bias"). */
struct wc_summary_opts {
	const char *baseline;          /* a capture's name, or NULL */
	/* The baseline by position: caps[baseline_index - 1], or 0: by
	 * name (baseline) or none.  Two captures may share a name (the
	 * what-if's replays are named after the capture); a position
	 * cannot. */
	size_t baseline_index;
	/* With a what-if: the recording's position, plus 1, among its
	 * replays through the disk model (wc_whatif_analyses()[0]: 1), or
	 * 0.  A replay is deterministic, so the differences between
	 * replays are the model's predictions, given without a verdict,
	 * and the recording's difference from its replay as recorded is
	 * the model's error on it: a caveat (WC_FIND_MODEL_ERROR), never
	 * the headline. */
	size_t recorded_index;
	/* Runs (capture.conf run, else the name's "-runN") to leave out,
	 * of every configuration. */
	const int *exclude_runs;
	size_t nexclude;
	bool drop_first;               /* each configuration's first run */
	/* Else captures of run_role = warmup are left out when another
	 * capture is not one. */
	bool keep_warmups;
	/* The equivalence bound X of "no larger than X", in seconds when
	 * equiv_s > 0, else equiv_share of the baseline group's mean wall
	 * (WC_EQUIV_SHARE_DEFAULT when 0 too). */
	double equiv_s;
	double equiv_share;
};

#define WC_EQUIV_SHARE_DEFAULT 0.05

/* Builds the summary of the captures caps[0..n) (n >= 1), analysed here
 * or read back from their summaries (capsule.h): the same capsules give
 * the same summary, number for number.  The summary points into the
 * capsules: they must outlive it.  Otherwise as below. */
int wc_summary_build_capsules(struct wc_summary **out,
			      struct wc_capsule *const *caps, size_t n,
			      const struct wc_summary_opts *opts,
			      struct wc_err *err);

/* Builds the summary of caps[0..n) (n >= 1) less the captures opts leaves
 * out (opts may be NULL: only warm-ups are); they are listed in
 * left_out, never in caps.  Fails with WC_ERR_USAGE when
 * no capture has the baseline's name (or position) or it was left out,
 * or when every capture was; with WC_ERR_SYSTEM when out of memory. */
int wc_summary_build_opts(struct wc_summary **out,
			  struct wc_analysis *const *caps, size_t n,
			  const struct wc_summary_opts *opts, struct wc_err *err);
/* The same with only a baseline, leaving nothing out. */
int wc_summary_build(struct wc_summary **out, struct wc_analysis *const *caps,
		     size_t n, const char *baseline, struct wc_err *err);

/* Where wc_summary_build_src() reads the captures: next() gives the
 * next capture in input order (1, *cap set), or says there is none left
 * (0), or fails (-1, err filled); a capsule given stays valid until the
 * next call of next() or rewind(), which starts again from the first. */
struct wc_summary_src {
	int (*next)(void *ctx, const struct wc_capsule **cap,
		    struct wc_err *err);
	int (*rewind)(void *ctx, struct wc_err *err);
	void *ctx;
};

/* Builds the summary of the captures src gives, as
 * wc_summary_build_capsules() does of the same captures, reading them
 * one at a time (above).  With keep_rows the summary keeps every row
 * (caps, members), which then point into the capsules src gave: src
 * must give the same ones again and keep them.  src must outlive the
 * summary (wc_summary_rows() reads it again). */
int wc_summary_build_src(struct wc_summary **out,
			 const struct wc_summary_src *src,
			 const struct wc_summary_opts *opts, bool keep_rows,
			 struct wc_err *err);

/* The first of those readings, what to leave out, done by a caller
 * that sees every capture anyway (wcanalyze, as it writes its spill):
 * each capture noted in input order, then the summary built from the
 * same captures without reading them for it.  The plan holds what the
 * summary would (the recordings' map, each configuration's first run).
 * wc_summary_build_planned() takes it over, built or not. */
struct wc_summary_plan;
int wc_summary_plan_open(struct wc_summary_plan **out,
			 const struct wc_summary_opts *opts,
			 struct wc_err *err);
int wc_summary_plan_add(struct wc_summary_plan *p,
			const struct wc_capsule *cap, struct wc_err *err);
void wc_summary_plan_free(struct wc_summary_plan *p);
int wc_summary_build_planned(struct wc_summary **out,
			     const struct wc_summary_src *src,
			     struct wc_summary_plan *plan, bool keep_rows,
			     struct wc_err *err);

void wc_summary_free(struct wc_summary *s);

/* The rows of the captures compared, in input order, one at a time:
 * each given by wc_summary_rows_next() (1; 0 past the last, -1 with err)
 * stays valid until its next call.  Kept rows are walked; otherwise the
 * source is read again and each row made as its capsule comes.  One
 * walk at a time of a summary. */
struct wc_sum_rows;
int wc_summary_rows(const struct wc_summary *s, struct wc_sum_rows **out,
		    struct wc_err *err);
int wc_summary_rows_next(struct wc_sum_rows *r,
			 const struct wc_sum_capture **row, struct wc_err *err);
void wc_summary_rows_free(struct wc_sum_rows *r);

/* The names of group g's captures, in input order, into name[size]
 * (escape them where they are written): *at starts at 0 and is moved
 * on by each call; 1 a name, 0 past the last, -1 with err (the
 * temporary file could not be read). */
int wc_summary_member(const struct wc_summary *s, size_t g, uint64_t *at,
		      char *name, size_t size, struct wc_err *err);

/* The name group g's differences are against: the named baseline, or
 * the first capture of its set's baseline group.  NULL without
 * differences. */
const char *wc_summary_base_name(const struct wc_summary *s, size_t g);

/* A capture's disk in words, its group's disk_name (struct
 * wc_sum_group): one name in every table, figure and sentence. */
const char *wc_summary_disk_name(const struct wc_sum_capture *c);

/* The wall time (s) of phase `name` (summed when a run has it twice)
 * over the runs of group g that have it: n (0 when none has), mean, sd,
 * lowest and highest.  Of a summary that keeps its rows (the bundle's);
 * else n is 0. */
void wc_summary_group_phase_wall(const struct wc_summary *s, size_t g,
				 const char *name, struct wc_stat *out);

/* The figures of phase `name` of a capture, NULL when it has none. */
const struct wc_sum_phase *wc_summary_phase(const struct wc_sum_capture *c,
					    const char *name);

/* Whether writers show PART: every part but WC_PART_INTERNAL, and that
 * one when some capture has a ledger (s->internal). */
static inline bool wc_summary_part_shown(const struct wc_summary *s, int part)
{
	return part != WC_PART_INTERNAL || s->internal;
}

#endif /* WC_SUMMARY_H */
