/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * findings.h - the findings of a summary: what it found, in the domain's
 * words, each with its numbers by key (summary.h, struct wc_finding).
 * Internal to compare/: the summary's build hands every capture it
 * compares to wc_findings_add() (and every one it leaves out to
 * wc_findings_left_out()) as it reads them, in input order, its group
 * known; then, once the figures, differences and verdicts are in, calls
 * wc_summary_findings() once.
 *
 * What always holds: the findings keep what they need as the captures
 * come, per group or as bounded lists and counts (struct wc_find_acc),
 * never a row of every capture: a copy of the few captures they say in
 * full (struct wc_sum_held), at most three names of the others, at most
 * WC_SUM_HOST_VALUES values of each host key (past them, the captures of
 * further values count as one value, never the most common).  They then
 * read only the summary's figures and that, and append to s->findings:
 * 0, or -1 when out of memory (the summary keeps the findings made so
 * far and frees them).
 */
#ifndef WC_FINDINGS_H
#define WC_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/capsule.h"
#include "compare/summary.h"

/* Values of each host key (capture.conf's tool_version, kernel, ...)
 * the host-state finding tells apart. */
#define WC_SUM_HOST_VALUES 16

/* A capture kept past its reading: a copy of its capsule and, once the
 * summary is made, its row (wc_sum_held_row()). */
struct wc_sum_held {
	struct wc_capsule *cap;        /* NULL: none */
	size_t group, rank;
	bool made;
	struct wc_sum_capture row;
};

/* Captures for which something holds: how many, the first held whole,
 * and the names of three: those after the first (for the data left
 * unwritten, from the first). */
struct wc_sum_some {
	size_t n;
	struct wc_sum_held first;
	size_t named;
	char names[3][256];
};

/* What the findings need of a group's runs. */
struct wc_find_group {
	double requests[WC_NCAT];      /* summed over its runs */
	double p50_sum;                /* median flush D2C, ns, summed */
	size_t p50_n;                  /* over the runs with flushes */
	bool unnumbered;               /* a run has no run number */
	char runs[128];                /* "1, 2, 3" while it fits */
	size_t runs_len;
	/* Its first run (the lowest number), slowest and busiest, and the
	 * other runs' wall, time off the device and busy time summed. */
	int first_run;
	size_t first, slow_wall, slow_busy;
	double first_meas[3], max_wall, max_busy, others[3];
	char first_name[256];
};

/* One value of a host key: how many captures have it, the first, and
 * up to three of them (input position and name). */
struct wc_host_val {
	char v[128];
	size_t count, first, named;
	size_t at[3];
	char names[3][256];
};

struct wc_host_key {
	size_t nwith, nvals;
	struct wc_host_val *vals;      /* WC_SUM_HOST_VALUES */
	struct wc_host_val over;       /* the captures of values past them */
};

#define WC_HOST_KEYS 12

struct wc_find_acc {
	size_t seen;                   /* captures added */
	struct wc_sum_held slow;       /* the longest wall, the first such */
	uint64_t slow_wall_ns;
	struct wc_sum_some whole, kc, journal, dirty;
	/* Left out: copies of a recording first, then the rest. */
	size_t ncopies, nothers;
	char copy_name[3][256], copy_why[3][544];
	char other_name[3][256];
	const char *other_why[3];
	struct wc_host_key host[WC_HOST_KEYS];
	size_t nload;
	double load_lo, load_hi;
	char lo_name[256], hi_name[256];
	size_t ngroups;
	struct wc_find_group *g;
};

/* Capture c of the summary, compared (its row as the build reads it:
 * no differences yet); replay_other: of a what-if, not of the
 * recording's group.  -1 when out of memory. */
int wc_findings_add(struct wc_find_acc *fa, const struct wc_sum_capture *c,
		    bool replay_other);

/* A capture left out, with why: copy, one recording given again. */
void wc_findings_left_out(struct wc_find_acc *fa, const char *name,
			  const char *why, bool copy);

int wc_summary_findings(struct wc_summary *s, struct wc_find_acc *fa);

void wc_findings_free(struct wc_find_acc *fa);

/* summary.c's, for the findings: a copy of cap kept in h (the one it
 * held goes), -1 when out of memory; h's row, made once when the
 * summary is (its figures, differences and ratios); h emptied. */
int wc_sum_held_set(struct wc_sum_held *h, const struct wc_capsule *cap,
		    size_t group, size_t rank);
int wc_sum_held_row(const struct wc_summary *s, struct wc_sum_held *h);
void wc_sum_held_clear(struct wc_sum_held *h);

#endif
