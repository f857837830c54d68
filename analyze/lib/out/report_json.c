/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/report_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "analysis/kcounters.h"
#include "analysis/capsule.h"
#include "base/escape.h"
#include "base/numfmt.h"
#include "out/outformat.h"

static void json_str(FILE *f, const char *s)
{
	wc_escape_json(f, s);
}

static void json_opt_str(FILE *f, const char *s)
{
	if (s[0])
		json_str(f, s);
	else
		fputs("null", f);
}

/* A capture.conf count the meta keeps as 0 when unknown: null then. */
static void json_opt_count(FILE *f, uint64_t v)
{
	if (v)
		fprintf(f, "%" PRIu64, v);
	else
		fputs("null", f);
}

static void json_bool3(FILE *f, int v)
{
	fputs(v == 1 ? "true" : v == 0 ? "false" : "null", f);
}

static void json_cats_s(FILE *f, const struct wc_sum_figs *sf)
{
	int c;

	fprintf(f, "{\"idle\": %.9f", sf ? wc_secs(sf->part_ns[WC_PART_IDLE]) : 0.0);
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ", \"%s\": %.9f", wc_cat_name((enum wc_cat)c),
			sf ? wc_secs(sf->part_ns[c]) : 0.0);
	/* The disk's own work, known from a ledger only. */
	if (sf && sf->internal_known)
		fprintf(f, ", \"%s\": %.9f", wc_part_key(WC_PART_INTERNAL),
			wc_secs(sf->part_ns[WC_PART_INTERNAL]));
	fputc('}', f);
}

/* The ranges and bytes of the disk's own work, after outstanding_s. */
static void json_internal(FILE *f, const struct wc_sum_figs *sf,
			  const char *ind)
{
	if (sf && sf->internal_known)
		fprintf(f, ",\n%s\"destage_no_request\": {\"ranges\": %" PRIu64
			", \"bytes\": %" PRIu64 "}", ind, sf->internal_ranges,
			sf->internal_bytes);
}

static void json_cats_u(FILE *f, const uint64_t *v)
{
	int c;

	fputc('{', f);
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, "%s\"%s\": %" PRIu64, c ? ", " : "",
			wc_cat_name((enum wc_cat)c), v ? v[c] : 0);
	fputc('}', f);
}

static void json_latency(FILE *f, const struct wc_latency *l)
{
	if (!l->n) {
		fprintf(f, "{\"n\": 0, \"min\": null, \"p50\": null, "
			"\"p90\": null, \"p99\": null, \"max\": null}");
		return;
	}
	fprintf(f, "{\"n\": %" PRIu64 ", \"min\": %.9f, \"p50\": %.9f, "
		"\"p90\": %.9f, \"p99\": %.9f, \"max\": %.9f}", l->n,
		wc_secs(l->min), wc_secs(l->p50), wc_secs(l->p90), wc_secs(l->p99),
		wc_secs(l->max));
}

/* The figures every device (and the capture itself) carries; dv NULL:
 * the capture's main device had no I/O. */
static void json_figures(FILE *f, const struct wc_sum_device *dv,
			 const char *ind)
{
	const struct wc_sum_figs *sf = dv ? &dv->figs : NULL;
	const struct wc_figures *g = dv ? dv->raw : NULL;
	bool est = dv && dv->media_rate_estimated;
	double rate = dv ? dv->media_rate : 0;
	int k, first = 1;

	fprintf(f, "%s\"window_s\": %.9f,\n", ind, sf ? wc_secs(sf->wall_ns) : 0.0);
	fprintf(f, "%s\"time_s\": ", ind);
	json_cats_s(f, sf);
	fprintf(f, ",\n%s\"outstanding_s\": %.9f", ind,
		sf ? wc_secs(sf->outstanding_ns) : 0.0);
	json_internal(f, sf, ind);
	fprintf(f, ",\n%s\"positioning_s\": ", ind);
	if (sf && sf->col[WC_COL_POSITIONING] >= 0)
		fprintf(f, "%.9f", sf->col[WC_COL_POSITIONING]);
	else
		fputs("null", f);
	fprintf(f, ",\n%s\"destage_positioning_s\": ", ind);
	if (sf && sf->destage_s[0] >= 0)
		fprintf(f, "%.9f", sf->destage_s[0]);
	else
		fputs("null", f);
	fprintf(f, ",\n%s\"destage_transfer_s\": ", ind);
	if (sf && sf->destage_s[1] >= 0)
		fprintf(f, "%.9f", sf->destage_s[1]);
	else
		fputs("null", f);
	fprintf(f, ",\n%s\"media_rate_mb_s\": ", ind);
	if (rate > 0)
		fprintf(f, "%.3f", rate / 1e6);
	else
		fputs("null", f);
	fprintf(f, ",\n%s\"media_rate_estimated\": %s,\n", ind,
		rate > 0 ? (est ? "true" : "false") : "null");
	fprintf(f, "%s\"requests\": ", ind);
	json_cats_u(f, sf ? sf->requests : NULL);
	fprintf(f, ",\n%s\"bytes\": ", ind);
	json_cats_u(f, sf ? sf->bytes : NULL);
	fprintf(f, ",\n%s\"fua_writes\": %" PRIu64 ",\n", ind,
		g ? g->fua_writes : 0);
	fprintf(f, "%s\"seeks\": {\"count\": %" PRIu64 ", \"requests\": %"
		PRIu64 ", \"histogram\": [", ind, g ? g->seeks : 0,
		g ? g->seek_candidates : 0);
	for (k = 0; g && k < WC_SEEK_BINS; k++) {
		if (!g->seek_hist[k])
			continue;
		fprintf(f, "%s{\"min_sectors\": %" PRIu64 ", \"count\": %" PRIu64
			"}", first ? "" : ", ", (uint64_t)1 << k,
			g->seek_hist[k]);
		first = 0;
	}
	fprintf(f, "]},\n%s\"flush_d2c_s\": ", ind);
	if (g)
		json_latency(f, &g->flush_d2c);
	else
		fputs("null", f);
	fprintf(f, ",\n%s\"d2c_s\": ", ind);
	if (g)
		json_latency(f, &g->d2c);
	else
		fputs("null", f);
	fprintf(f, ",\n%s\"queue_depth\": {\"mean\": %.3f, \"max\": %u}", ind,
		dv ? dv->queue_mean : 0.0, g ? g->max_depth : 0);
}

static void json_btt_stat(FILE *f, const struct wc_btt_stat *s, double mean)
{
	if (!s->n) {
		fprintf(f, "{\"n\": 0, \"min\": null, \"mean\": null, "
			"\"max\": null}");
		return;
	}
	fprintf(f, "{\"n\": %" PRIu64 ", \"min\": %.9f, \"mean\": %.9f, "
		"\"max\": %.9f}", s->n, wc_secs(s->min), mean,
		wc_secs(s->max));
}

static void json_num_or_null(FILE *f, double v, const char *fmt)
{
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, fmt, v);
}

static void json_ratios(FILE *f, const double r[WC_NCOLS])
{
	int c;

	fputc('{', f);
	for (c = 0; c < WC_NCOLS; c++) {
		fprintf(f, "%s\"%s\": ", c ? ", " : "", wc_col_key((enum wc_col)c));
		json_num_or_null(f, r[c], "%.6f");
	}
	fputc('}', f);
}

/* Signed ns as seconds, exact (numfmt.h). */
static void json_sns(FILE *f, int64_t ns)
{
	char b[WC_NUMFMT_SIZE];

	fputs(wc_fmt_sns(ns, b, sizeof(b)), f);
}

/* The difference d of a capture, phase or group of group g against g's
 * baseline. */
static void json_diff(FILE *f, const struct wc_summary *s, size_t g,
		      const struct wc_sum_diff *d)
{
	const struct wc_sum_group *gr = &s->groups[g];
	int p;

	fprintf(f, "{\"baseline\": ");
	json_str(f, wc_summary_base_name(s, g));
	fprintf(f, ", \"baseline_group\": %zu, \"baseline_runs\": %zu, "
		"\"across_disks\": %s, \"wall_s\": ", gr->base + 1,
		s->groups[gr->base].n, gr->cross_disk ? "true" : "false");
	json_sns(f, d->wall_ns);
	fprintf(f, ", \"parts_s\": {");
	for (p = 0; p < WC_NPARTS; p++) {
		if (!wc_summary_part_shown(s, p))
			continue;
		fprintf(f, "%s\"%s\": ", p ? ", " : "", wc_part_key(p));
		json_sns(f, d->part_ns[p]);
	}
	fprintf(f, "}, \"main_cause\": ");
	if (d->main_part >= 0)
		fprintf(f, "\"%s\"", wc_part_key(d->main_part));
	else
		fputs("null", f);
	fputc('}', f);
}

static void json_stat(FILE *f, const struct wc_stat *st)
{
	if (!st->n) {
		fputs("{\"n\": 0, \"mean\": null, \"sd\": null, \"min\": null, "
		      "\"max\": null}", f);
		return;
	}
	fprintf(f, "{\"n\": %zu, \"mean\": %.9f, \"sd\": ", st->n, st->mean);
	if (st->n > 1)
		fprintf(f, "%.9f", st->sd);
	else
		fputs("null", f);
	fprintf(f, ", \"min\": %.9f, \"max\": %.9f}", st->min, st->max);
}

/* A number, or null when it is not finite (t of runs that never vary). */
static void json_finite(FILE *f, double v, const char *fmt)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}

/* The group's tests, one object per measure (null when unknown). */
static void json_tests(FILE *f, const struct wc_sum_group *gr)
{
	int m;

	fprintf(f, ",\n     \"tests\": {");
	for (m = 0; m < WC_NMEAS; m++) {
		const struct wc_test *t = &gr->test[m];

		fprintf(f, "%s\n       \"%s\": ", m ? "," : "", wc_meas_key(m));
		if (!t->known) {
			fputs("null", f);
			continue;
		}
		fprintf(f, "{\"verdict\": \"%s\", \"runs\": %zu, "
			"\"baseline_runs\": %zu, \"difference_s\": %.9f, "
			"\"bound_s\": %.9f, \"runs_to_decide\": ",
			wc_verdict_key(t->verdict), t->n, t->base_n, t->diff_s,
			t->bound_s);
		if (t->runs_needed)
			fprintf(f, "%zu", t->runs_needed);
		else
			fputs("null", f);
		fputs(", \"interval_s\": ", f);
		if (!t->has_interval) {
			fputs("null, \"interval90_s\": null, \"welch_t\": null, "
			      "\"welch_df\": null}", f);
			continue;
		}
		fprintf(f, "[%.9f, %.9f], \"interval90_s\": [%.9f, %.9f], "
			"\"welch_t\": ", t->lo_s, t->hi_s, t->lo90_s, t->hi90_s);
		json_finite(f, t->t, "%.6f");
		fprintf(f, ", \"welch_df\": %.3f}", t->df);
	}
	fputc('}', f);
}

/* The groups, each with its captures' names (summary.h's member
 * names, read back): -1 with err when they cannot be. */
static int json_groups(FILE *f, const struct wc_summary *s,
		       struct wc_err *err)
{
	char name[256];
	size_t g, i;
	uint64_t at;
	int c, got;

	fprintf(f, "  \"groups\": [");
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];

		fprintf(f, "%s\n    {\"group\": %zu, \"runs\": %zu, "
			"\"disk\": ", g ? "," : "", g + 1, gr->n);
		json_opt_str(f, gr->disk_model);
		fprintf(f, ", \"comparable_set\": %zu, \"captures\": [",
			gr->set + 1);
		for (i = 0, at = 0; (got = wc_summary_member(s, g, &at, name,
							     sizeof(name),
							     err)) > 0; i++) {
			fputs(i ? ", " : "", f);
			json_str(f, name);
		}
		if (got < 0)
			return -1;
		fprintf(f, "],\n     \"figures_s\": {");
		for (c = 0; c < WC_NCOLS; c++) {
			fprintf(f, "%s\n       \"%s\": ", c ? "," : "",
				wc_col_key((enum wc_col)c));
			json_stat(f, &gr->col[c]);
		}
		fprintf(f, "},\n     \"parts_s\": {");
		for (c = 0; c < WC_NPARTS; c++) {
			if (!wc_summary_part_shown(s, c))
				continue;
			fprintf(f, "%s\n       \"%s\": ", c ? "," : "",
				wc_part_key(c));
			json_stat(f, &gr->part[c]);
		}
		fprintf(f, "}");
		if (s->has_diff) {
			fprintf(f, ",\n     \"difference\": ");
			json_diff(f, s, g, &gr->diff);
			fprintf(f, ",\n     \"verdict\": \"%s\", "
				"\"wall_verdict\": \"%s\", \"bound_s\": %.9f",
				wc_verdict_key(gr->verdict),
				wc_verdict_key(gr->wall_verdict), gr->equiv_s);
			json_tests(f, gr);
		}
		fprintf(f, "}");
	}
	fprintf(f, "%s],\n", s->ngroups ? "\n  " : "");
	return 0;
}

static void json_findings(FILE *f, const struct wc_summary *s)
{
	size_t i, k;

	fprintf(f, "  \"findings\": [");
	for (i = 0; i < s->nfindings; i++) {
		const struct wc_finding *fd = &s->findings[i];

		fprintf(f, "%s\n    {\"kind\": \"%s\", \"caveat\": %s",
			i ? "," : "", wc_finding_kind_name(fd->kind),
			fd->caveat ? "true" : "false");
		for (k = 0; k < fd->nstrs; k++) {
			fprintf(f, ", \"%s\": ", fd->str[k].key);
			json_str(f, fd->str[k].value);
		}
		for (k = 0; k < fd->nnums; k++)
			fprintf(f, ", \"%s\": %.9g", fd->num[k].key,
				fd->num[k].value);
		fprintf(f, ",\n     \"sentence\": ");
		json_str(f, fd->text);
		fputc('}', f);
	}
	fprintf(f, "%s],\n", s->nfindings ? "\n  " : "");
}

static void json_kcheck(FILE *f, const struct wc_kcheck *k)
{
	static const char *const states[] = { "none", "not_compared",
					      "compared" };
	char words[256];
	size_t i;
	int fl;

	fprintf(f, "{\"state\": \"%s\", \"why\": ", states[k->state]);
	json_opt_str(f, k->state == WC_KC_UNUSABLE ? k->why :
		     k->state == WC_KC_NONE ? "no counters.tsv: the trace could not "
		     "be checked" : "");
	fprintf(f, ", \"reasons\": [");
	json_str(f, wc_kc_reason_flush);
	fprintf(f, ", ");
	json_str(f, wc_kc_reason_ticks);
	fprintf(f, "], \"devices\": [");
	for (i = 0; i < k->ndevices; i++) {
		const struct wc_kc_device *d = &k->dev[i];

		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		json_str(f, d->name);
		fprintf(f, ", \"seconds\": %.9f, \"agrees\": %s, \"held\": ",
			(double)(d->end - d->start) / 1e9,
			wc_kc_device_agrees(d) ? "true" : "false");
		json_str(f, wc_kc_held_words(d, words, sizeof(words)));
		for (fl = 0; fl < WC_KC_NFIELDS; fl++) {
			const struct wc_kc_figure *g = &d->fig[fl];

			fprintf(f, ", \"%s\": ",
				wc_kc_field_key((enum wc_kc_field)fl));
			if (!g->known) {
				fprintf(f, "null");
				continue;
			}
			fprintf(f, "{\"kernel\": %" PRIu64 ", \"trace\": %"
				PRIu64 ", \"maybe\": %" PRIu64
				", \"missing\": %" PRIu64 ", \"extra\": %"
				PRIu64 ", \"held_pct\": %.3f}", g->kernel,
				g->trace, g->maybe, g->missing, g->extra,
				wc_kc_held_pct(g));
		}
		fprintf(f, ", \"empty_flush_writes\": %" PRIu64
			", \"busy_s\": %.9f, \"io_ticks_s\": ",
			d->empty_flush_writes, (double)d->busy_ns / 1e9);
		if (d->io_ticks_known)
			fprintf(f, "%.3f}", (double)d->io_ticks_ms / 1e3);
		else
			fprintf(f, "null}");
	}
	fprintf(f, "], \"partitions\": %zu}", k->partitions);
}


/* One disk of partitions (summary.h): the figures below are the disk's,
 * and this its split by partition.  Only then: the schema's other keys
 * never move. */
static void json_parts(FILE *f, const struct wc_sum_capture *sc)
{
	char dev[32];
	size_t k;

	if (!sc->nparts || sc->main != &sc->disk)
		return;
	fprintf(f, ",\n      \"disk_partitions\": [");
	for (k = 0; k < sc->nparts; k++) {
		const struct wc_sum_part *p = &sc->parts[k];

		snprintf(dev, sizeof(dev), "%u,%u", WC_DEV_MAJOR(p->device),
			 WC_DEV_MINOR(p->device));
		fprintf(f, "%s\n        {\"device\": ", k ? "," : "");
		json_str(f, dev);
		fprintf(f, ", \"name\": ");
		json_opt_str(f, p->name ? p->name : "");
		fprintf(f, ", \"role\": ");
		json_opt_str(f, p->role ? p->role : "");
		fprintf(f, ", \"requests\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"busy_s\": %.9f}", p->requests, p->bytes, p->busy_s);
	}
	fprintf(f, "\n      ]");
}
static void json_raw(FILE *f, const struct wc_capsule *c)
{
	fprintf(f, ",\n      \"raw\": ");
	wc_capsule_write(f, c);
}

static void json_capture(FILE *f, const struct wc_summary *s,
			 const struct wc_sum_capture *sc)
{
	const struct wc_capture_meta *m = sc->meta;
	const struct wc_tracker_stats *st = sc->tracking;
	const struct wc_sum_btt *b = &sc->btt;
	size_t i, n = sc->ndevices;
	char dev[32];

	fprintf(f, "    {\n      \"name\": ");
	json_str(f, m->name);
	fprintf(f, ",\n      \"group\": %zu", sc->group + 1);
	if (sc->filter) {
		/* Only when filtered: the schema's other keys never move. */
		fprintf(f, ",\n      \"filter\": ");
		json_str(f, sc->filter);
	}
	fprintf(f, ",\n      \"fs\": ");
	if (m->fs[0])
		json_str(f, m->fs);
	else
		fputs("null", f);
	fprintf(f, ",\n      \"write_cache\": ");
	json_bool3(f, m->write_cache);
	fprintf(f, ",\n      \"barrier\": ");
	json_bool3(f, m->barrier);
	fprintf(f, ",\n      \"disk\": ");
	json_opt_str(f, m->disk_model);
	fprintf(f, ",\n      \"complete\": ");
	json_bool3(f, m->complete);
	fprintf(f, ",\n      \"partial\": %s",
		sc->partial ? "true" : "false");
	fprintf(f, ",\n      \"kernel\": ");
	json_opt_str(f, m->kernel);
	fprintf(f, ",\n      \"recorder\": ");
	json_opt_str(f, m->recorder);
	fprintf(f, ",\n      \"mount_options\": ");
	json_opt_str(f, m->mount_options);
	fprintf(f, ",\n      \"source_files\": ");
	json_opt_count(f, m->source_files);
	fprintf(f, ",\n      \"source_bytes\": ");
	json_opt_count(f, m->source_bytes);
	fprintf(f, ",\n      \"lab_workload\": ");
	json_opt_str(f, m->lab_workload);
	fprintf(f, ",\n      \"events\": %" PRIu64, m->events);
	fprintf(f, ",\n      \"events_dropped\": ");
	if (m->events_dropped >= 0)
		fprintf(f, "%" PRId64, m->events_dropped);
	else
		fputs("null", f);
	fprintf(f, ",\n      \"device\": ");
	if (sc->main) {
		snprintf(dev, sizeof(dev), "%u,%u", WC_DEV_MAJOR(sc->main->device),
			 WC_DEV_MINOR(sc->main->device));
		json_str(f, dev);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\n      \"device_source\": \"%s\"",
		m->main_from_conf ? "capture.conf" : "most_io");
	fprintf(f, ",\n      \"rotational\": ");
	json_bool3(f, m->main_rotational);
	fprintf(f, ",\n      \"journal\": {\"method\": \"%s\", "
		"\"start_sector\": ", wc_journal_method_name(m->journal_method));
	if (m->journal_method == WC_JOURNAL_RANGE)
		fprintf(f, "%" PRIu64 ", \"sectors\": %" PRIu64 "}",
			m->journal_start, m->journal_len);
	else if (m->journal_why[0]) {
		fprintf(f, "null, \"sectors\": null, \"reason\": ");
		json_str(f, m->journal_why);
		fputc('}', f);
	} else {
		fprintf(f, "null, \"sectors\": null}");
	}
	/* Only when capture.conf gives it: the schema's other keys never
	 * move. */
	if (sc->has_durable)
		fprintf(f, ",\n      \"durable\": {\"returned_s\": %.9f, "
			"\"durable_s\": %.9f, \"destaged_bytes\": %" PRIu64
			", \"in_window\": %s}", sc->returned_s, sc->durable_s,
			sc->durable_bytes,
			sc->durable_in_window ? "true" : "false");
	/* Only with a ledger, likewise. */
	if (m->has_ledger)
		fprintf(f, ",\n      \"ledger\": {\"rows\": %" PRIu64
			", \"busy_s\": %" PRIu64 ".%09" PRIu64
			", \"commands_s\": %" PRIu64 ".%09" PRIu64 "}",
			m->ledger_rows, m->ledger_busy_ns / 1000000000u,
			m->ledger_busy_ns % 1000000000u,
			m->ledger_commands_ns / 1000000000u,
			m->ledger_commands_ns % 1000000000u);
	json_parts(f, sc);
	fprintf(f, ",\n");
	json_figures(f, sc->main, "      ");

	fprintf(f, ",\n      \"devices\": [");
	for (i = 0; i < n; i++) {
		const struct wc_sum_device *d = &sc->devices[i];
		const char *name = d->name;

		snprintf(dev, sizeof(dev), "%u,%u", WC_DEV_MAJOR(d->device),
			 WC_DEV_MINOR(d->device));
		fprintf(f, "%s\n        {\n          \"device\": ", i ? "," : "");
		json_str(f, dev);
		fprintf(f, ",\n          \"name\": ");
		if (name)
			json_str(f, name);
		else
			fputs("null", f);
		fprintf(f, ",\n");
		json_figures(f, d, "          ");
		fprintf(f, "\n        }");
	}
	fprintf(f, "%s],\n      \"phases\": [", n ? "\n      " : "");
	for (i = 0; i < sc->nphases; i++) {
		const struct wc_sum_phase *p = &sc->phases[i];

		fprintf(f, "%s\n        {\"name\": ", i ? "," : "");
		json_str(f, p->name);
		fprintf(f, ", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
			", \"wall_s\": %.9f,\n         \"time_s\": ",
			p->start_ns, p->end_ns, p->wall_s);
		/* Without I/O, the phase was all idle. */
		json_cats_s(f, &p->figs);
		fprintf(f, ",\n         \"outstanding_s\": %.9f",
			wc_secs(p->figs.outstanding_ns));
		json_internal(f, &p->figs, "         ");
		fprintf(f, ",\n         \"positioning_s\": ");
		if (p->figs.col[WC_COL_POSITIONING] >= 0)
			fprintf(f, "%.9f", p->figs.col[WC_COL_POSITIONING]);
		else
			fputs("null", f);
		fprintf(f, ",\n         \"requests\": ");
		json_cats_u(f, p->figs.requests);
		fprintf(f, ",\n         \"bytes\": ");
		json_cats_u(f, p->figs.bytes);
		if (s->named_baseline) {
			fprintf(f, ",\n         \"ratio_to_baseline\": ");
			if (sc->phases[i].has_ratio)
				json_ratios(f, sc->phases[i].ratio);
			else
				fputs("null", f);
		}
		if (sc->phases[i].diff.known) {
			fprintf(f, ",\n         \"difference\": ");
			json_diff(f, s, sc->group, &sc->phases[i].diff);
		}
		fprintf(f, "}");
	}
	fprintf(f, "%s],\n      \"processes\": [", sc->nphases ? "\n      " : "");
	for (i = 0; i < sc->nprocs; i++) {
		const struct wc_wait *w = sc->procs[i];

		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		json_str(f, w->comm);
		fprintf(f, ", \"requests\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"time_s\": %.9f}", w->requests, w->bytes,
			wc_secs(w->wait_ns));
	}
	fprintf(f, "],\n      \"tracking\": {\"orphan_completions\": %"
		PRIu64 ", \"began_in_flight\": %" PRIu64
		", \"unfinished\": %" PRIu64 ", \"expired\": %" PRIu64
		", \"never_dispatched\": %"
		PRIu64 ", \"dropped_inflight\": %" PRIu64
		", \"sequence_ends\": %" PRIu64 ", \"ignored_events\": %" PRIu64
		"}",
		st->orphan_completions, st->began_in_flight,
		st->unfinished, st->expired, st->never_dispatched,
		st->dropped_inflight,
		st->sequence_ends, st->ignored_events);
	if (b->on) {
		fprintf(f, ",\n      \"btt\": {\"q2c\": ");
		json_btt_stat(f, &b->q2c, b->q2c_mean_s);
		fprintf(f, ", \"d2c\": ");
		json_btt_stat(f, &b->d2c, b->d2c_mean_s);
		fprintf(f, ", \"forgotten\": %" PRIu64 ", \"ignored\": %"
			PRIu64 "}", b->forgotten, b->ignored);
	} else {
		/* Not computed (no --btt): null, never zeros that read as
		 * figures. */
		fprintf(f, ",\n      \"btt\": null");
	}
	fprintf(f, ",\n      \"kernel_counters\": ");
	json_kcheck(f, sc->kcheck);
	if (sc->has_ratio) {
		fprintf(f, ",\n      \"ratio_to_baseline\": ");
		json_ratios(f, sc->ratio);
	}
	if (sc->diff.known) {
		fprintf(f, ",\n      \"difference\": ");
		json_diff(f, s, sc->group, &sc->diff);
	}
	json_raw(f, sc->cap);
	fprintf(f, "\n    }");
}

int wc_report_json(FILE *f, const struct wc_summary *s, struct wc_err *err)
{
	const struct wc_sum_capture *sc;
	struct wc_sum_rows *rows;
	size_t i;
	int got;

	fprintf(f, "{\n  \"format\": \"wcanalyze\",\n  \"version\": 1,\n");
	if (s->named_baseline) {
		fprintf(f, "  \"baseline\": ");
		json_str(f, s->named_baseline);
		fprintf(f, ",\n");
	}
	json_findings(f, s);
	if (json_groups(f, s, err) < 0 || wc_summary_rows(s, &rows, err) < 0)
		return -1;
	fprintf(f, "  \"captures\": [");
	/* One row at a time, as the summary reads each capture again. */
	for (i = 0; (got = wc_summary_rows_next(rows, &sc, err)) > 0; i++) {
		fprintf(f, "%s\n", i ? "," : "");
		json_capture(f, s, sc);
	}
	wc_summary_rows_free(rows);
	if (got < 0)
		return -1;
	fprintf(f, "%s]\n}\n", s->ncaps ? "\n  " : "");
	return wc_format_finish(f, err);
}
