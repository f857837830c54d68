/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analysis.h - analyse one input end to end: input -> tracker ->
 * classifier -> accountant, with the capture's metadata, and the other
 * consumers of events and requests the caller switches on: btt's figures
 * (every event) and a time series per device (every request).
 *
 *     struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
 *     struct wc_analysis *a = NULL;
 *     o.series = true;               // e.g. for a bundle's figures
 *     if (wc_analysis_read(&a, path, &o, &err) < 0)
 *             report(&err);          // a may still hold a partial result
 *     meta = wc_analysis_meta(a);     // name, fs, write_cache, barrier ...
 *     main = wc_analysis_main(a);     // figures of the main device
 *     wc_report_text(stdout, &a, 1, NULL, &err);
 *     wc_analysis_free(a);
 *
 * Metadata comes from the capture's capture.conf (docs/capture-format.md);
 * what a plain trace cannot tell is unknown (-1 or an empty string here,
 * null in JSON).  The main device is capture.conf's destination, or the
 * device that moved the most bytes; when capture.conf's disk_regions
 * names two traced devices or more, the destination among them (or no
 * destination named), it is the disk they are partitions of
 * (account.h), unless a --device filter chose one device.
 *
 * What always holds:
 *  - the analysis owns its consumers and nothing outside it sees events
 *    or requests as they pass: btt (only with o.btt, off by default: a
 *    second walk of every event) sees every event before the tracker;
 *    with o.series, every request the tracker hands out (unfinished ones
 *    too) goes, with its category, to its device's series (a disk of
 *    partitions' requests to the disk's, under its first partition's
 *    dev_t, each sector where it lies on the disk; at most
 *    WC_SERIES_MAX_DEVICES devices, the first seen; the requests of the
 *    rest are only counted), then to the accountant;
 *  - memory: btt's and the tracker's bounds (wclimits.h), and with
 *    o.series about 1.4 MiB a device, until wc_analysis_release_series()
 *    or wc_analysis_free(); with o.threads 2, the queue's (batchq.h),
 *    until wc_analysis_read() returns;
 *  - o.threads changes nothing of the result: the same analysis, the
 *    same err, the same names (batchq.h) on one thread or two; every
 *    way out of the run (the end, the input's failure, a consumer's
 *    failure) stops and joins the reader before it returns;
 *  - when the input turns bad midway (after at least one record),
 *    wc_analysis_read() returns -1 with err filled, but *out holds the
 *    analysis of every event before the failure (wc_analysis_partial()
 *    is then true); on other failures *out is NULL;
 *  - the analysis owns everything it hands out; wc_analysis_free(NULL)
 *    is fine.
 */
#ifndef WC_ANALYSIS_H
#define WC_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/account.h"
#include "compat/btt.h"
#include "model/classify.h"
#include "model/filter.h"
#include "input/input.h"
#include "model/interval.h"
#include "analysis/kcounters.h"
#include "model/series.h"
#include "model/traceevent.h"
#include "model/tracker.h"
#include "base/wcerr.h"
#include "base/wclimits.h"

struct wc_analysis_opts {
	bool journal_given;        /* --journal START+LEN */
	uint64_t journal_start;
	uint64_t journal_len;
	double media_rate;         /* --media-rate, bytes/s; 0: estimate */
	/* btt's Q2C and D2C (--btt): a second walk of every event, in
	 * btt's own way (compat/btt.h), that adds CPU time; off by
	 * default, and the reports then say btt's figures were not
	 * computed. */
	bool btt;
	bool series;               /* a time series per device */
	/* A timeline to stream the capture into (traceevent.h), or NULL:
	 * it sees every event after btt and every request with its
	 * category and process names before the accountant.  Not owned.
	 * An input read into it is read once, without the scan's
	 * shortcut: what was written cannot be taken back. */
	struct wc_traceevent *trace;
	/* Which requests to look at (filter.h), or NULL: all.  Applied to
	 * the tracker's requests before the classifier, the series, the
	 * timeline and the accountant; the window and the phases are cut
	 * to the filter's window. */
	const struct wc_filter *filter;
	/* An interval table to stream the capture's rows into (interval.h),
	 * or NULL: every request that passed the filter, with its
	 * category, after the accountant; intervals of interval_ns from the
	 * window's start (the first event's, or the filter's), cut at its
	 * end.  Not owned.  Read once, like the timeline. */
	const struct wc_interval_sink *interval;
	uint64_t interval_ns;
	/* Every request the tracker hands out, before the filter, or NULL
	 * (the what-if keeps them to replay: whatif.h); a -1 from it ends
	 * the run with its err, and no analysis is handed out.  Read once,
	 * like the timeline. */
	int (*keep)(void *ctx, const struct wc_request *rq,
		    struct wc_err *err);
	void *keep_ctx;
	/* The capture's own files to read in the same pass (input.h,
	 * wc_input_take_file()), at most WC_INPUT_MAX_FILES: texts[i] and
	 * lens[i] get files[i] (NULL when the capture has none; the caller
	 * frees, after a failure too).  Read once, like the timeline. */
	const char *const *files;
	size_t nfiles;
	char **texts;
	size_t *lens;
	/* Threads for an input (wc_analysis_read()): 1, everything on the
	 * caller's; 2, the input read, decoded and merged on a thread of
	 * its own while the caller's tracks and accounts, through a
	 * bounded queue of batches (input/batchq.h, its memory).  The
	 * result is the same, byte for byte, either way. */
	unsigned threads;
	/* The input read in one pass (wc_input_limits.once, inputdefs.h):
	 * an archive's trace files and its ledger.tsv held or copied aside
	 * by its scan, whatever their order, so that nothing reads the
	 * archive again (the what-if: whatif.h).  The same analysis. */
	bool once;
	/* Inputs analysed at once in this process, this one among them
	 * (jobs.h sets it): they share the open-file limit
	 * (wc_input_limits.sharing, inputdefs.h); 0 or 1: this one alone.
	 * The same analysis. */
	unsigned inputs_at_once;
};

#define WC_ANALYSIS_OPTS_INIT { false, 0, 0, 0.0, false, false, NULL, NULL, \
				NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, 1, false, \
				0 }

/* One traced device as capture.conf describes it. */
struct wc_device_meta {
	uint32_t device;           /* dev_t */
	char name[64];             /* e.g. "loop1", or "" */
	int rotational;            /* 1, 0, or -1 unknown */
	uint64_t timeout_ns;       /* its command timeout, the tracker's
				    * bound (tracker.h); 0 unknown: the
				    * default */
	uint32_t hw_queues;        /* its hardware queues (tracker.h, one
				    * flush in flight); 0 unknown */
	char role[16];             /* capture.conf device.DEV.role
				    * ("destination", "source"), or "" */
};

struct wc_capture_meta {
	char name[256];
	char input[256];           /* the input as given (its last 255
				    * bytes): what tells two copies of one
				    * capture apart */
	/* The requests' digest: a sum over every request the tracker
	 * handed out (device, sector, size, flags, Q, D and C times), in
	 * any order.  Two inputs with the same name, run and digest are
	 * one recording given twice (summary.h). */
	uint64_t digest;
	char fs[32];               /* "" unknown */
	int write_cache;           /* 1 on, 0 off, -1 unknown */
	int barrier;               /* 1 on, 0 off, -1 unknown */
	uint64_t events;           /* events read */
	int64_t events_dropped;    /* capture.conf, plus sequence gaps; */
	                           /* -1 when neither is known */
	uint32_t main_device;      /* dev_t of the main device */
	bool main_from_conf;       /* destination named in capture.conf */
	uint32_t dest_device;      /* capture.conf's destination; 0: none
	                            * (main_device unless --device chose
	                            * another) */
	size_t main_among;         /* devices with I/O it was picked from
	                            * when capture.conf names none */
	int main_rotational;       /* 1, 0, -1 unknown */
	enum wc_journal_method journal_method;
	uint64_t journal_start, journal_len;   /* when method is range */
	/* Why the journal is guessed from flags (method heuristic): the
	 * reason capture.conf's journal_guessed records, or what is missing
	 * ("no capture.conf gives the journal's sectors"); "" for events
	 * given without an input. */
	char journal_why[256];
	size_t ndevices;
	struct wc_device_meta devices[WC_MAX_DEVICES];
	int complete;              /* capture.conf complete: 1, 0, -1 */
	char kernel[128];          /* capture.conf kernel, or "" */
	char mount_options[256];   /* capture.conf mount_options, or "" */
	char recorder[32];         /* capture.conf recorder, or "" */
	/* The configuration runs share (summary.h groups by it): capture.conf's
	 * fs, write_cache, write_cache_method, barrier, disk, disk_model,
	 * workload, command, source_files and source_bytes as "key=value;"
	 * pairs, or "" when capture.conf has none of them. */
	char config[1536];
	/* What makes wall times comparable at all, the configuration less
	 * the settings compared (fs, write_cache, write_cache_method,
	 * barrier): disk, disk_model, workload, command, source_files and
	 * source_bytes as "key=value;" pairs ("" values when absent, so that
	 * captures without capture.conf share one); "" only when too long. */
	char comparable[1280];
	char disk_model[256];      /* capture.conf disk_model, or "" */
	char disk[64];             /* capture.conf disk, or "" */
	/* capture.conf disk_regions (capture.h): the devices one model
	 * disk served, in its images' order, as names in devices[] ("" a
	 * name no device has); 0 when none. */
	size_t nregions;
	char regions[WC_CAPTURE_MAX_REGIONS][64];
	/* capture.conf disk_capacity_bytes, disk_offsets (capture.h) */
	uint64_t disk_capacity;
	size_t noffsets;
	uint64_t offsets[WC_CAPTURE_MAX_REGIONS];
	/* The run and the host it ran on (docs/capture-format.md, "Host
	 * state and the run design"), for the summary's bias checks: */
	int run;                   /* capture.conf run, else the name's
	                            * "-runN" ending; -1 unknown */
	bool warmup;               /* run_role = warmup */
	int lab_position;          /* capture.conf lab_position; -1 */
	/* "key=value;" pairs of what should be equal in compared runs:
	 * tool_version, tool_commit, kernel, recorder, host_cpus,
	 * host_mem_total_kb and the vm_dirty_* keys, those present only
	 * (';' and '=' in values replaced by '_'). */
	char host[1024];
	double load_before;        /* 1-minute load average, < 0 unknown */
	double load_after;
	int64_t dirty_kb_end;      /* Dirty when the workload ended; -1 */
	/* When the workload returned (its last sync) and when its data was
	 * durable, the drive's cache destaged (capture.conf workload_end_ns,
	 * durable_ns: trace clock, ns), and the bytes that destage wrote:
	 * has_durable when both times are given, the durable one not before
	 * the other nor more than WC_DURABLE_MAX_NS after it.  A trace's
	 * window then runs to durable_ns at least (the destage is the
	 * drive's own work, no request of the kernel's: off the device in
	 * the figures), unless a filter chose the window; durable_window
	 * says it did.  A replay (whatif.h) has none. */
	bool has_durable;
	bool durable_window;
	uint64_t returned_ns, durable_ns, durable_bytes;
	/* The model disk's own account of the capture (its whole ledger,
	 * ledger.h's totals), has_ledger when the capture has one and was
	 * read as recorded (a replay has none): its rows, its busy time
	 * and its commands' time, ns. */
	bool has_ledger;
	uint64_t ledger_rows, ledger_busy_ns, ledger_commands_ns;
	char lab_workload[64];     /* capture.conf lab_workload, or "" */
	uint64_t source_bytes;     /* capture.conf source_bytes; 0 unknown */
	uint64_t source_files;     /* capture.conf source_files; 0 unknown */
	/* Whole-trace checks (the summary's "whole_trace" finding), of a
	 * trace read from an input (all 0 for a source or requests): */
	uint32_t cpu_files;        /* per-CPU files with a CPU number; 0:
	                            * one file, or names without numbers */
	/* CPUs that should have a file and have none: with cpu_files,
	 * numbers below the highest file's, or named by a record, without
	 * a file; without, numbers below the highest a record names that
	 * no record names (a CPU without I/O, or a file left out of a
	 * merge).  The first of them in cpus_missing_list ("17, 23"). */
	uint32_t cpus_missing;
	uint32_t cpus_named_without_file;  /* of those, named by a record */
	char cpus_missing_list[64];
	uint64_t sequence_gaps;    /* sequence numbers missing (also in
	                            * events_dropped) */
	uint64_t repeats;          /* records repeating their CPU's number */
	/* capture.conf's trace_files: the per-CPU files the archive was
	 * packed with (0: not said); fewer read is a file lost. */
	uint32_t trace_files_announced;
	/* Per-CPU files a device lacks where another device of the input
	 * has that CPU's file (blktrace writes one per CPU for every
	 * device), the first named in files_missing_list
	 * ("loop1.blktrace.0"). */
	uint32_t files_missing;
	char files_missing_list[96];
};

/* A phase of the capture (its figures: wc_analysis_phase_figures()). */
struct wc_phase_result {
	char name[64];
	uint64_t start, end;
	double wall_s;              /* end - start */
	/* phases.tsv's own times of the command: wall, user and system
	 * CPU (0 when phases.tsv has no such column). */
	double real_s, user_s, sys_s;
	/* The filter's window holds only part of it (start and end cut to
	 * the window; both equal when it holds none): real_s, user_s and
	 * sys_s are still the whole phase's. */
	bool cut;
};

struct wc_analysis;

/* Analyses the input at path (anything wc_input_open() takes).  An
 * archive whose capture.conf announces its trace files is read with the
 * scan's shortcut (input.h, speculation); when the archive was not as
 * announced, or the read failed, everything of that try is thrown away
 * and the input read once more without it: the result and messages are
 * always those of the whole scan, at the cost of a second read then. */
int wc_analysis_read(struct wc_analysis **out, const char *path,
		     const struct wc_analysis_opts *o, struct wc_err *err);
/* The same, where PATH may be a summary handed back (input.h,
 * wc_input_open_any()): told apart by the input's one open, it is not
 * analysed: 1 with *out NULL and *summary that descriptor (the caller
 * reads it, capsule.h's wc_capsule_reader_fd(), and closes it).  Else *summary -1 and
 * as wc_analysis_read(). */
int wc_analysis_read_any(struct wc_analysis **out, int *summary,
			 const char *path, const struct wc_analysis_opts *o,
			 struct wc_err *err);
/* The same, reading PATH from FD, a descriptor of it the caller's peek
 * opened (input.h, wc_input_is_summary_fd()), taken; -1: the path is
 * opened. */
int wc_analysis_read_fd_any(struct wc_analysis **out, int *summary,
			    const char *path, int fd,
			    const struct wc_analysis_opts *o,
			    struct wc_err *err);

/* Analyses events from any source, with metadata given by the caller
 * (meta may be NULL: all unknown; meta->name names the capture).  Phases
 * may be NULL when nphases is 0.  For tests and tools. */
int wc_analysis_read_source(struct wc_analysis **out, wc_event_source next,
			    void *ctx, const struct wc_capture_meta *meta,
			    const struct wc_phase *phases, size_t nphases,
			    const struct wc_analysis_opts *o,
			    struct wc_err *err);

/* Analyses requests instead of events (a replay's, replay.h: no btt)
 * over the window [first, last], with metadata and phases given as for
 * wc_analysis_read_source().  The tracker's statistics are those of the
 * requests: requests, first_time and last_time. */
int wc_analysis_read_requests(struct wc_analysis **out, wc_request_source next,
			      void *ctx, const struct wc_capture_meta *meta,
			      const struct wc_phase *phases, size_t nphases,
			      uint64_t first, uint64_t last,
			      const struct wc_analysis_opts *o,
			      struct wc_err *err);

const struct wc_capture_meta *wc_analysis_meta(const struct wc_analysis *a);
/* The trace checked against the kernel's counters (kcounters.h): state
 * WC_KC_NONE for an input without counters.tsv or given events. */
const struct wc_kcheck *wc_analysis_kcheck(const struct wc_analysis *a);
/* The classifier its requests were classified with (--journal, the
 * capture's journal range, or the heuristic). */
void wc_analysis_classifier(const struct wc_analysis *a,
			    struct wc_classifier *cl);
/* Figures of the main device over the whole window (NULL: no I/O seen). */
const struct wc_figures *wc_analysis_main(const struct wc_analysis *a);
/* The accountant, for every device and phase. */
const struct wc_account *wc_analysis_account(const struct wc_analysis *a);
/* Index of the main device in the accountant (wc_account_disk() for a
 * disk of partitions), or -1. */
int wc_analysis_main_index(const struct wc_analysis *a);
size_t wc_analysis_nphases(const struct wc_analysis *a);
const struct wc_phase_result *wc_analysis_phase(const struct wc_analysis *a,
						size_t p);
/* Figures of the main device over phase p (NULL: no I/O seen). */
const struct wc_figures *wc_analysis_phase_figures(const struct wc_analysis *a,
						   size_t p);
/* btt's figures, or NULL when o.btt was off. */
const struct wc_btt *wc_analysis_btt(const struct wc_analysis *a);
/* The series of device (dev_t), or NULL: o.series was off, the device had
 * no request, it came past WC_SERIES_MAX_DEVICES, or the series were
 * released. */
const struct wc_series *wc_analysis_series(const struct wc_analysis *a,
					   uint32_t device);
/* True when the analysis ran with o.series and its series were not
 * released. */
bool wc_analysis_has_series(const struct wc_analysis *a);
/* Requests on devices past the first WC_SERIES_MAX_DEVICES, not in any
 * series. */
uint64_t wc_analysis_series_ignored(const struct wc_analysis *a);
/* Frees the series (a bundle keeps only a few hundred points of them once
 * its figures are written); everything else stays. */
void wc_analysis_release_series(struct wc_analysis *a);
const struct wc_tracker_stats *wc_analysis_tracker_stats(
	const struct wc_analysis *a);
/*
 * Warnings about the input that did not stop the analysis, one line each
 * without the program's name: values capture.conf or phases.tsv gave that
 * were refused (capture.h), and whatever else the input could only note.
 * At most WC_ANALYSIS_MAX_WARNINGS; the last one says how many more.
 */
#define WC_ANALYSIS_MAX_WARNINGS 12u
size_t wc_analysis_nwarnings(const struct wc_analysis *a);
const char *wc_analysis_warning(const struct wc_analysis *a, size_t i);

/* Why the main device has no figures when capture.conf named one the
 * trace holds no I/O on ("capture.conf names device 7,0 as the
 * destination, but the trace holds I/O only on 7,1 and 7,2"), or NULL. */
const char *wc_analysis_main_missing(const struct wc_analysis *a);

/* Why device's rotational flag cannot be trusted, or NULL: a loop,
 * virtio, Xen or network block device (by its kernel name in m) whose
 * capture names no disk_model (wcdisk's model disk is the evidence of a
 * medium).  Such a device gets no positioning split without
 * --media-rate. */
const char *wc_analysis_rotational_doubt(const struct wc_capture_meta *m,
					 uint32_t device);

/* The filters in words (filter.h, wc_filter_describe()), or NULL when
 * the analysis ran without any. */
const char *wc_analysis_filter(const struct wc_analysis *a);

/* True when the input failed midway and only part of it was analysed. */
bool wc_analysis_partial(const struct wc_analysis *a);

void wc_analysis_free(struct wc_analysis *a);

#endif /* WC_ANALYSIS_H */
