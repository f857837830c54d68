/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot.h - the bundle's gnuplot side: finds the templates, assembles each
 * figure's .gp script from its variables and template, and renders the
 * scripts with gnuplot (bundle.h has the lookup order and the files).
 *
 *     struct wc_plot *p = NULL;
 *
 *     if (wc_plot_open(&p, &err) < 0)       // finds plots/common.gp
 *             goto fail;
 *     wc_plot_script(p, d, "xfs/scatter.gp", "scatter", vars, &err);
 *     ...                                   // every script of the bundle
 *     if (wc_plot_render(p, d, &err) < 0)   // render.sh, then gnuplot
 *             goto fail;
 *     if (!wc_plot_rendered(p))
 *             tell the user wc_plot_notice(p);
 *     wc_plot_free(p);
 *
 * A script is a header, the figure's variables, plots/common.gp (colours
 * and names of the categories), then plots/TEMPLATE.gp, so that it
 * renders on its own in its folder.
 *
 * What always holds:
 *  - vars are written as given: the caller makes every string in them a
 *    single-quoted gnuplot string (escape.h);
 *  - gnuplot ($WCANALYZE_GNUPLOT, else "gnuplot" from PATH; empty: do not
 *    render) runs with a fixed argv, no shell, a few at a time, in the
 *    script's folder, its output to gnuplot.log (left only when gnuplot
 *    said something); it writes its figures into a fresh private folder
 *    (outdir, see plots/common.gp) whose PNG and SVG files are then
 *    renamed over their own names (outdir.h);
 *  - a gnuplot that fails is an error naming the script and gnuplot.log;
 *    a missing gnuplot is not (wc_plot_notice());
 *  - wc_plot_free(NULL) is fine.
 */
#ifndef WC_PLOT_H
#define WC_PLOT_H

#include <stdbool.h>

#include "out/outdir.h"
#include "base/wcerr.h"

struct wc_plot;

/* Finds the templates and reads common.gp. */
int wc_plot_open(struct wc_plot **out, struct wc_err *err);

/* The template folder in use. */
const char *wc_plot_templates(const struct wc_plot *p);

/* The colour of a part of the time (summary.h: the categories, then
 * idle) as common.gp gives it, "#RRGGBB", or "" when it gives none. */
const char *wc_plot_color(const struct wc_plot *p, int part);

/* Writes rel, the script of template tpl with the variables vars, into
 * d, and queues it for wc_plot_render(). */
int wc_plot_script(struct wc_plot *p, struct wc_outdir *d, const char *rel,
		   const char *tpl, const char *vars, struct wc_err *err);

/* Drops the queued scripts of the folder sub ("FOLDER"): neither
 * rendered nor in render.sh (the caller takes back the folder's files:
 * outdir.h's wc_outdir_forget()). */
void wc_plot_forget(struct wc_plot *p, const char *sub);

/* Writes render.sh into d and renders every queued script, when there is
 * a gnuplot. */
int wc_plot_render(struct wc_plot *p, struct wc_outdir *d,
		   struct wc_err *err);

/* After wc_plot_render(): whether gnuplot ran. */
bool wc_plot_rendered(const struct wc_plot *p);

/* After wc_plot_render(): why the figures were not rendered and how to
 * render them (lower case, no full stop), or NULL. */
const char *wc_plot_notice(const struct wc_plot *p);

void wc_plot_free(struct wc_plot *p);

#endif /* WC_PLOT_H */
