/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * findings.h - the findings of a summary: what it found, in the domain's
 * words, each with its numbers by key (summary.h, struct wc_finding).
 * Internal to compare/: wc_summary_build_opts() calls it once, after the
 * figures, differences and verdicts are in.
 *
 * What always holds: the findings only read the summary's figures and
 * append to s->findings; 0, or -1 when out of memory (the summary keeps
 * the findings made so far and frees them).
 */
#ifndef WC_FINDINGS_H
#define WC_FINDINGS_H

struct wc_summary;

int wc_summary_findings(struct wc_summary *s);

#endif
