/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/report_csv.h"

#include <inttypes.h>
#include <stdio.h>

#include "base/escape.h"
#include "base/numfmt.h"
#include "out/outformat.h"

static void csv_str(FILE *f, const char *s)
{
	wc_escape_csv(f, s);
}

/* The group's verdicts on the row of a whole capture (whole), empty
 * cells on a phase's: per measure its verdict and 95 % interval. */
static void csv_tests(FILE *f, const struct wc_sum_group *gr, bool whole)
{
	int m;

	for (m = 0; m < WC_NMEAS; m++) {
		const struct wc_test *t = &gr->test[m];

		if (!whole || !t->known) {
			fputs(",,,", f);
			continue;
		}
		fprintf(f, ",%s", wc_verdict_key(t->verdict));
		if (t->has_interval)
			fprintf(f, ",%.9f,%.9f", t->lo_s, t->hi_s);
		else
			fputs(",,", f);
	}
}

/* The group's equivalence bound and the runs a side that would decide
 * its device and wall verdicts (empty: decided, or cannot be said), on
 * the row of a whole capture. */
static void csv_bound(FILE *f, const struct wc_sum_group *gr, bool whole)
{
	static const int m[2] = { WC_MEAS_BUSY, WC_MEAS_WALL };
	int k;

	if (!whole) {
		fputs(",,,", f);
		return;
	}
	fprintf(f, ",%.9f", gr->equiv_s);
	for (k = 0; k < 2; k++) {
		if (gr->test[m[k]].runs_needed)
			fprintf(f, ",%zu", gr->test[m[k]].runs_needed);
		else
			fputc(',', f);
	}
}

/* The most partitions of one disk any capture has (summary.h): the
 * columns of their split, 0 when none is of a disk. */
static size_t csv_nparts(const struct wc_summary *s)
{
	return s->most_parts;
}

/* The split by partition on the row of a whole capture of one disk:
 * each one's device, name, role, requests, bytes and busy time; empty
 * cells on a phase's row and past its partitions. */
static void csv_parts(FILE *f, const struct wc_summary *s,
		      const struct wc_sum_capture *sc, bool whole)
{
	size_t k, n = csv_nparts(s);

	for (k = 0; k < n; k++) {
		const struct wc_sum_part *p = &sc->parts[k];

		if (!whole || sc->main != &sc->disk || k >= sc->nparts) {
			fputs(",,,,,,", f);
			continue;
		}
		fprintf(f, ",%u:%u,", WC_DEV_MAJOR(p->device),
			WC_DEV_MINOR(p->device));
		csv_str(f, p->name ? p->name : "");
		fputc(',', f);
		csv_str(f, p->role ? p->role : "");
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.9f", p->requests,
			p->bytes, p->busy_s);
	}
}

/* One row: the capture's or a phase's figures (all idle without I/O in
 * the window), then the ratio columns when a baseline was named and the
 * difference columns when there are differences. */
static void csv_row(FILE *f, const struct wc_summary *s,
		    const struct wc_sum_capture *sc, const char *phase,
		    const struct wc_sum_figs *sf, const double *ratio,
		    const struct wc_sum_diff *d)
{
	const struct wc_capture_meta *m = sc->meta;
	char b[WC_NUMFMT_SIZE];
	int c;

	csv_str(f, m->name);
	fputc(',', f);
	csv_str(f, phase);
	fprintf(f, ",");
	csv_str(f, m->fs);
	fprintf(f, ",%s,%s,%.9f,%.9f", m->write_cache < 0 ? "" :
		wc_onoff(m->write_cache), m->barrier < 0 ? "" :
		wc_onoff(m->barrier), wc_secs(sf->wall_ns),
		wc_secs(sf->part_ns[WC_PART_IDLE]));
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",%.9f", wc_secs(sf->part_ns[c]));
	if (sf->col[WC_COL_POSITIONING] >= 0)
		fprintf(f, ",%.9f", sf->col[WC_COL_POSITIONING]);
	else
		fprintf(f, ",");
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",%" PRIu64, sf->requests[c]);
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",%" PRIu64, sf->bytes[c]);
	fputc(',', f);
	csv_str(f, m->disk_model);
	for (c = 0; s->named_baseline && c < WC_NCOLS; c++) {
		if (!ratio || ratio[c] < 0)
			fprintf(f, ",");
		else
			fprintf(f, ",%.6f", ratio[c]);
	}
	if (s->has_diff) {
		fprintf(f, ",%zu,%zu,%d,", sc->group + 1,
			s->groups[sc->group].base + 1,
			s->groups[sc->group].cross_disk);
		if (d && d->known)
			fputs(wc_fmt_sns(d->wall_ns, b, sizeof(b)), f);
		/* The disk's own work's difference goes last (below). */
		for (c = 0; c < WC_NPARTS; c++) {
			if (c == WC_PART_INTERNAL)
				continue;
			fputc(',', f);
			if (d && d->known)
				fputs(wc_fmt_sns(d->part_ns[c], b,
						  sizeof(b)), f);
		}
		csv_tests(f, &s->groups[sc->group], sf == &sc->figs);
		csv_bound(f, &s->groups[sc->group], sf == &sc->figs);
	}
	csv_parts(f, s, sc, sf == &sc->figs);
	if (s->internal) {
		/* Empty where this capture has no ledger: unknown, not 0. */
		if (sf->internal_known)
			fprintf(f, ",%.9f,%" PRIu64 ",%" PRIu64,
				wc_secs(sf->part_ns[WC_PART_INTERNAL]),
				sf->internal_ranges, sf->internal_bytes);
		else
			fputs(",,,", f);
		if (s->has_diff) {
			fputc(',', f);
			if (d && d->known)
				fputs(wc_fmt_sns(d->part_ns[WC_PART_INTERNAL],
						 b, sizeof(b)), f);
		}
	}
	fprintf(f, ",%.9f\n", wc_secs(sf->outstanding_ns));
}

int wc_report_csv(FILE *f, const struct wc_summary *s, struct wc_err *err)
{
	const struct wc_sum_capture *sc;
	struct wc_sum_rows *rows;
	size_t p, k;
	int c, got;

	fprintf(f, "capture,phase,fs,write_cache,barrier,window_s,idle_s");
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",%s_s", wc_cat_name((enum wc_cat)c));
	fprintf(f, ",positioning_s");
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",requests_%s", wc_cat_name((enum wc_cat)c));
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",bytes_%s", wc_cat_name((enum wc_cat)c));
	/* Last of the fixed columns, so that the first 29 never moved. */
	fprintf(f, ",disk");
	/* Only with a baseline, so the default columns never change. */
	for (c = 0; s->named_baseline && c < WC_NCOLS; c++)
		fprintf(f, ",ratio_%s", wc_col_key((enum wc_col)c));
	/* Only when there is something to compare with. */
	if (s->has_diff) {
		fprintf(f, ",group,baseline_group,across_disks,diff_wall_s");
		for (c = 0; c < WC_NPARTS; c++)
			if (c != WC_PART_INTERNAL)
				fprintf(f, ",diff_%s_s", wc_part_key(c));
		for (c = 0; c < WC_NMEAS; c++)
			fprintf(f, ",verdict_%s,ci95_lo_%s_s,ci95_hi_%s_s",
				wc_meas_key(c), wc_meas_key(c), wc_meas_key(c));
		fprintf(f, ",bound_s,runs_to_decide_busy,runs_to_decide_wall");
	}
	/* Only with a disk of partitions: the default columns stay. */
	for (k = 1; k <= csv_nparts(s); k++)
		fprintf(f, ",part%zu_device,part%zu_name,part%zu_role,"
			"part%zu_requests,part%zu_bytes,part%zu_busy_s",
			k, k, k, k, k, k);
	/* The disk's own work (a ledger's), when some capture has one:
	 * before the last column, which stays the last. */
	if (s->internal) {
		fprintf(f, ",%s_s,%s_ranges,%s_bytes",
			wc_part_key(WC_PART_INTERNAL),
			wc_part_key(WC_PART_INTERNAL),
			wc_part_key(WC_PART_INTERNAL));
		if (s->has_diff)
			fprintf(f, ",diff_%s_s", wc_part_key(WC_PART_INTERNAL));
	}
	/* Last: a column added since moves no other. */
	fprintf(f, ",outstanding_s\n");
	/* One row at a time, as the summary reads each capture again. */
	if (wc_summary_rows(s, &rows, err) < 0)
		return -1;
	while ((got = wc_summary_rows_next(rows, &sc, err)) > 0) {
		csv_row(f, s, sc, "all", &sc->figs,
			sc->has_ratio ? sc->ratio : NULL, &sc->diff);
		for (p = 0; p < sc->nphases; p++) {
			const struct wc_sum_phase *ph = &sc->phases[p];

			csv_row(f, s, sc, ph->name, &ph->figs,
				ph->has_ratio ? ph->ratio : NULL, &ph->diff);
		}
	}
	wc_summary_rows_free(rows);
	if (got < 0)
		return -1;
	return wc_format_finish(f, err);
}
