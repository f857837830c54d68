/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_plot.c - unit tests of analyze/lib/out/plot.c: the templates found
 * through $WCANALYZE_PLOTS and their colours, a script assembled from
 * its header, variables, common.gp and template, and rendering with
 * stand-ins for gnuplot (small shell scripts): figures moved in over a
 * planted link, links gnuplot made left out, the log kept only when
 * gnuplot said something, a failing gnuplot named, no gnuplot at all.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_common.h"
#include "out/plot.h"
#include "compare/summary.h"

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s", path);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* Templates of our own: colours to parse and a template to copy. */
static struct wc_plot *open_plot(void)
{
	struct wc_plot *p = NULL;
	struct wc_err err;

	mkdir(wc_check_path("tpl"), 0777);
	write_file(wc_check_path("tpl/common.gp"),
		   "# common\ncatcolor = \"#111111 #222222 #333333 #444444 "
		   "#555555 #666666 #777777\"\nidlecolor = \"#EEEEEE\"\n", 0644);
	write_file(wc_check_path("tpl/fig.gp"), "plot 1 # the template\n", 0644);
	setenv("WCANALYZE_PLOTS", wc_check_path("tpl"), 1);
	wc_err_clear(&err);
	ck_assert_msg(wc_plot_open(&p, &err) == 0, "%s", err.msg);
	return p;
}

static struct wc_outdir *open_out(void)
{
	struct wc_outdir *d = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_msg(wc_outdir_open(&d, wc_check_path("out"), &err) == 0,
		      "%s", err.msg);
	ck_assert_int_eq(wc_outdir_mkdir(d, "sub", &err), 0);
	return d;
}

static void script(struct wc_plot *p, struct wc_outdir *d)
{
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_msg(wc_plot_script(p, d, "sub/fig.gp", "fig",
				     "out = \"fig\"\n", &err) == 0, "%s", err.msg);
}

START_TEST(test_templates_and_script)
{
	struct wc_plot *p = open_plot();
	struct wc_outdir *d = open_out();
	struct wc_err err;
	char *s, *hdr, *vars, *common, *body;

	ck_assert_str_eq(wc_plot_templates(p), wc_check_path("tpl"));
	ck_assert_str_eq(wc_plot_color(p, 0), "#111111");
	ck_assert_str_eq(wc_plot_color(p, 6), "#777777");
	ck_assert_str_eq(wc_plot_color(p, WC_PART_IDLE), "#EEEEEE");
	ck_assert_str_eq(wc_plot_color(p, WC_NPARTS), "");

	script(p, d);
	s = (char *)wc_check_slurp(wc_check_path("out/sub/fig.gp"), NULL);
	hdr = strstr(s, "# fig.gp - written by wcanalyze ");
	vars = strstr(s, "out = \"fig\"\n");
	common = strstr(s, "# common\n");
	body = strstr(s, "plot 1 # the template\n");
	ck_assert_ptr_eq(hdr, s);
	ck_assert_ptr_nonnull(strstr(s, "gnuplot fig.gp\n"));
	ck_assert(vars && common && body && vars < common && common < body);
	free(s);

	/* A template that is not there. */
	wc_err_clear(&err);
	ck_assert_int_eq(wc_plot_script(p, d, "sub/x.gp", "nothing", "", &err), -1);
	ck_assert_int_eq(err.kind, WC_ERR_SYSTEM);
	ck_assert(access(wc_check_path("out/sub/x.gp"), F_OK) != 0);

	/* Nor a folder of templates. */
	setenv("WCANALYZE_PLOTS", wc_check_path("out"), 1);
	wc_plot_free(p);
	p = NULL;
	wc_err_clear(&err);
	ck_assert_int_eq(wc_plot_open(&p, &err), -1);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(err.msg, "WCANALYZE_PLOTS"));
	wc_outdir_free(d);
	wc_plot_free(NULL);
}
END_TEST

START_TEST(test_no_gnuplot)
{
	struct wc_plot *p = open_plot();
	struct wc_outdir *d = open_out();
	struct wc_err err;
	struct stat st;

	script(p, d);
	setenv("WCANALYZE_GNUPLOT", "", 1);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_plot_render(p, d, &err), 0);
	ck_assert(!wc_plot_rendered(p));
	ck_assert_ptr_nonnull(wc_plot_notice(p));
	ck_assert_ptr_nonnull(strstr(wc_plot_notice(p), "WCANALYZE_GNUPLOT is empty"));
	ck_assert_ptr_nonnull(strstr(wc_plot_notice(p), "render.sh"));
	ck_assert_int_eq(stat(wc_check_path("out/render.sh"), &st), 0);
	ck_assert(st.st_mode & S_IXUSR);
	wc_plot_free(p);
	wc_outdir_free(d);
}
END_TEST

START_TEST(test_render)
{
	struct wc_plot *p = open_plot();
	struct wc_outdir *d = open_out();
	struct wc_err err;
	struct stat st;
	char *t;

	/* gnuplot -e "outdir = 'DIR/'" SCRIPT, in the script's folder. */
	write_file(wc_check_path("gnuplot"),
		   "#!/bin/sh\n"
		   "dir=${2#outdir = \\'}; dir=${dir%\\'}\n"
		   "echo \"drawn $3\"\n"
		   "printf 'png\\000\\000\\000\\000IEND\\256B`\\202' > \"${dir}fig.png\"\n"
		   "ln -s /etc/hostname \"${dir}made.svg\"\n", 0755);
	write_file(wc_check_path("victim"), "keep\n", 0644);
	ck_assert_int_eq(symlink(wc_check_path("victim"),
				 wc_check_path("out/sub/fig.png")), 0);
	script(p, d);
	setenv("WCANALYZE_GNUPLOT", wc_check_path("gnuplot"), 1);
	wc_err_clear(&err);
	ck_assert_msg(wc_plot_render(p, d, &err) == 0, "%s", err.msg);
	ck_assert(wc_plot_rendered(p));
	ck_assert_ptr_null(wc_plot_notice(p));
	t = (char *)wc_check_slurp(wc_check_path("victim"), NULL);
	ck_assert_str_eq(t, "keep\n");
	free(t);
	ck_assert_int_eq(lstat(wc_check_path("out/sub/fig.png"), &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	t = (char *)wc_check_slurp(wc_check_path("out/sub/fig.png"), NULL);
	ck_assert_str_eq(t, "png");
	free(t);
	ck_assert(lstat(wc_check_path("out/sub/made.svg"), &st) != 0);
	t = (char *)wc_check_slurp(wc_check_path("out/gnuplot.log"), NULL);
	ck_assert_str_eq(t, "drawn fig.gp\n");
	free(t);
	wc_plot_free(p);

	/* A quiet gnuplot leaves no log, and removes the old one. */
	p = open_plot();
	script(p, d);
	write_file(wc_check_path("gnuplot"), "#!/bin/sh\nexit 0\n", 0755);
	ck_assert_int_eq(wc_plot_render(p, d, &err), 0);
	ck_assert(access(wc_check_path("out/gnuplot.log"), F_OK) != 0);
	wc_plot_free(p);

	/* A figure cut short (as gnuplot leaves it on a full disk, and
	 * exits 0) is not moved in, and is named. */
	p = open_plot();
	script(p, d);
	write_file(wc_check_path("gnuplot"),
		   "#!/bin/sh\n"
		   "dir=${2#outdir = \\'}; dir=${dir%\\'}\n"
		   "printf cut > \"${dir}fig.png\"\n", 0755);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_plot_render(p, d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.file, "sub/fig.png"));
	ck_assert_ptr_nonnull(strstr(err.msg, "cut short"));
	t = (char *)wc_check_slurp(wc_check_path("out/sub/fig.png"), NULL);
	ck_assert_str_eq(t, "png");
	free(t);
	wc_plot_free(p);

	/* One that fails is named. */
	p = open_plot();
	script(p, d);
	write_file(wc_check_path("gnuplot"), "#!/bin/sh\necho no >&2\nexit 3\n", 0755);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_plot_render(p, d, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "gnuplot failed on sub/fig.gp (exit 3)"));
	ck_assert_ptr_nonnull(strstr(err.file, "gnuplot.log"));
	t = (char *)wc_check_slurp(wc_check_path("out/gnuplot.log"), NULL);
	ck_assert_str_eq(t, "no\n");
	free(t);
	wc_plot_free(p);
	wc_outdir_free(d);
}
END_TEST

static Suite *plot_suite(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_templates_and_script);
	tcase_add_test(tc, test_no_gnuplot);
	tcase_add_test(tc, test_render);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(plot_suite)
