/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bundle.h - writes a bug-report bundle: one self-contained folder with
 * the reports, the figures of every capture and across captures, and a
 * static index.html that shows them all (docs/bundle.md).  It orders the
 * work of outdir.h (the files), chart.h (the figures' data), plot.h (the
 * scripts and gnuplot), report.h and html.h (the pages).
 *
 *     struct wc_bundle *b = NULL;
 *     struct wc_analysis_opts o = WC_ANALYSIS_OPTS_INIT;
 *
 *     if (wc_bundle_open(&b, "report-dir", &err) < 0)
 *             goto fail;
 *     for (each input) {
 *             wc_bundle_begin(b, &o, &err); // o.series, the timeline
 *             wc_analysis_read(&a[i], path, &o, &err);
 *             if (a[i] && wc_bundle_add(b, a[i], &err) < 0) goto fail;
 *     }
 *     wc_summary_build(&s, a, n, baseline, &err);       // summary.h
 *     if (wc_bundle_close(b, s, &err) < 0)
 *             goto fail;
 *     if (wc_bundle_notice(b))
 *             tell the user wc_bundle_notice(b);   // e.g. no gnuplot
 *     puts(wc_bundle_index(b));
 *     wc_bundle_free(b);
 *     free the analyses;
 *
 * What the folder holds (names are stable; docs/bundle.md has the
 * columns of every .dat file):
 *   report.txt, report.json, summary.csv   from report.h
 *   index.html, render.sh, gnuplot.log (only when gnuplot said something)
 *   bundle-files.txt   every file and folder above, one a line
 *   CAPTURE/   per capture with a page (wc_bundle_all_pages()): timeline.json.gz (wc_bundle_begin(): the
 *              Trace Event Format, gzip-compressed (gzfile.h), for
 *              ui.perfetto.dev and chrome://tracing; at most the first
 *              WC_BUNDLE_TIMELINE_SLICES requests), timeline.dat
 *              scatter.dat latency.dat
 *              phases.dat, and scatter throughput flushes latency queue
 *              phases, each as .gp script, .png and .svg
 *   compare-time, compare-phases, compare-throughput (.dat .gp .png .svg)
 *              when there are two captures or more
 *
 * Every .gp script is its figure's template from plots/ with the
 * figure's variables put in front and plots/common.gp (colours and
 * names of the categories) in between, so it renders on its own:
 * "cd CAPTURE && gnuplot scatter.gp".  Templates are looked up in order:
 *   1. $WCANALYZE_PLOTS (an error when set and holding no common.gp);
 *   2. next to the program: EXEDIR/../plots, EXEDIR/../share/wcanalyze/plots;
 *   3. WC_DATADIR/plots (where "make install" puts them);
 *   4. ./plots (running from the source tree).
 * gnuplot is $WCANALYZE_GNUPLOT, else "gnuplot" from PATH; an empty
 * $WCANALYZE_GNUPLOT means do not render.  Without gnuplot every .dat
 * and .gp file is still written, index.html says the figures are not
 * rendered, and wc_bundle_notice() tells how to render them.
 *
 * What always holds:
 *  - memory: the analysis keeps one struct wc_series per device (at most
 *    WC_SERIES_MAX_DEVICES, fixed size each) while a capture is analysed;
 *    wc_bundle_add() releases them (wc_analysis_release_series()) once
 *    the capture's figures are written, and keeps only a few hundred
 *    points a capture;
 *  - the analyses given to wc_bundle_add() are not owned by the bundle
 *    and must live until wc_bundle_close();
 *  - the folder is created if needed (its parent must exist); files of
 *    the same names in it are replaced; bundle-files.txt lists every file
 *    and folder of the bundle, and a bundle written into a folder that
 *    has one removes what it lists and the new bundle did not write
 *    (outdir.h's wc_outdir_sweep()); nothing else is touched;
 *  - nothing is written through a link (docs/security.md): a
 *    file is written under a fresh name in its folder (O_EXCL and
 *    O_NOFOLLOW) and renamed over its own name, so that a link planted
 *    there is replaced, not followed; gnuplot runs (fixed argv, no
 *    shell) in each folder but writes into a fresh private folder of
 *    ours, whose figures are then renamed in the same way; DIR or a
 *    capture's folder that is a symbolic link is refused (WC_ERR_USAGE,
 *    "a symbolic link where a folder of the bundle goes: refused");
 *    a run killed midway may leave .wc-* files or .render-* folders;
 *  - the capture names reach the .gp scripts only as single-quoted
 *    gnuplot strings (escape.h), and a capture's folder never takes a
 *    name of the bundle's own (compare-*, index.html, ...: it gets
 *    "capture-" in front);
 *  - wc_bundle_free(NULL) is fine.
 */
#ifndef WC_BUNDLE_H
#define WC_BUNDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "compare/summary.h"
#include "base/wcerr.h"

/* Requests drawn in a capture's timeline, by default.  A request is
 * 50 to 60 bytes of gzip (600 to 800 of JSON with its counters), so a
 * timeline stays at about 6 MB (75 MB of JSON for the viewer to load)
 * however long the trace; the page says where one ends, and wcanalyze
 * --export-trace --timeline-limit 0 writes every request. */
#define WC_BUNDLE_TIMELINE_SLICES 100000

struct wc_bundle;

/* Creates the folder dir and finds the templates. */
int wc_bundle_open(struct wc_bundle **out, const char *dir, struct wc_err *err);

/* Before analysing a capture for the bundle: sets o->series and points
 * o->trace at the capture's timeline (traceevent.h), written under a
 * fresh name until wc_bundle_add() moves it to CAPTURE/timeline.json.gz.
 * A timeline begun for a capture that is never added (its analysis
 * failed) is dropped by the next call, wc_bundle_close() or
 * wc_bundle_free().  Without this call a capture has no timeline. */
int wc_bundle_begin(struct wc_bundle *b, struct wc_analysis_opts *o,
		    struct wc_err *err);

/* The requests a capture's timeline draws from the next wc_bundle_begin()
 * on (traceevent.h's limit): WC_BUNDLE_TIMELINE_SLICES unless set, 0
 * for every request. */
void wc_bundle_timeline_limit(struct wc_bundle *b, uint64_t slices);

/* Which captures get their page (figures, their data and timeline):
 * by default (all false) the captures the findings name (summary.h:
 * a finding's "capture" or "baseline"), every capture when none is
 * named; with all, every capture.  The others keep their section of
 * index.html (settings and time by category) without figures, and no
 * folder.  Rendering a figure costs a gnuplot run: a comparison of
 * sixty captures draws a few pages, not sixty. */
void wc_bundle_all_pages(struct wc_bundle *b, bool all);

/* Adds the capture a (analysed with o.series: else a usage error) and
 * writes its .dat and .gp files from the series of its main device; then
 * releases a's series. */
int wc_bundle_add(struct wc_bundle *b, struct wc_analysis *a,
		  struct wc_err *err);

/* Writes the reports of the summary s (summary.h: built from the same
 * analyses, in the order given to wc_bundle_add(); used during the call
 * only), the figures across captures, renders every figure and writes
 * index.html.  A gnuplot that fails is an error naming the script and
 * gnuplot.log; a missing gnuplot is not (see wc_bundle_notice()). */
int wc_bundle_close(struct wc_bundle *b, const struct wc_summary *s,
		    struct wc_err *err);

/* After close: what the user should know although nothing failed (a
 * sentence without a full stop, lower case), or NULL. */
const char *wc_bundle_notice(const struct wc_bundle *b);

/* The path of index.html (dir/index.html). */
const char *wc_bundle_index(const struct wc_bundle *b);

/* The template folder in use. */
const char *wc_bundle_plots(const struct wc_bundle *b);

void wc_bundle_free(struct wc_bundle *b);

#endif /* WC_BUNDLE_H */
