/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "out/report_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kcounters.h"
#include "base/escape.h"
#include "base/numfmt.h"
#include "out/outformat.h"

static const char *const col_label[WC_NCAT] = {
	"flush", "journal", "metadata", "data read", "data write", "discard",
	"other",
};

/* True when the word at s is a unit: s, ms or %, with any punctuation. */
static bool is_unit(const char *s)
{
	size_t n = strspn(s, "ms%");

	return n && n <= 2 && (n == 1 || !strncmp(s, "ms", 2)) &&
	       (!s[n] || s[n] == ' ' || strchr(".,;:)", s[n]));
}

/* Text for a terminal: wrapped to 78 columns after LEAD (at most 4
 * columns), the lines after it indented by 4, bytes that are not
 * printable ASCII shown as '?'. */
static void text_wrap(FILE *f, const char *lead, const char *raw)
{
	char buf[WC_ESCAPE_SIZE(sizeof(((struct wc_finding *)0)->text))];
	const char *s = wc_escape_text(raw, buf, sizeof(buf));
	size_t col, i, w, first = strlen(lead);

	fputs(lead, f);
	col = first;
	while (*s) {
		while (*s == ' ')
			s++;
		for (w = 0; s[w] && s[w] != ' '; w++)
			;
		if (!w)
			break;
		/* A unit stays on the line of its number: "12.3 ms", "4 %". */
		while (s[w] == ' ' && is_unit(s + w + 1)) {
			for (w++; s[w] && s[w] != ' '; w++)
				;
		}
		if (col > first && col + 1 + w > 78) {
			fputs("\n    ", f);
			col = first = 4;
		} else if (col > first) {
			fputc(' ', f);
			col++;
		}
		for (i = 0; i < w; i++) {
			unsigned char ch = (unsigned char)s[i];

			fputc(ch >= 0x20 && ch < 0x7f ? ch : '?', f);
		}
		col += w;
		s += w;
	}
	fputc('\n', f);
}

/* The journal line of a capture whose journal is told by flags, with
 * why (capture text: escaped and wrapped by text_wrap()). */
static void text_journal_guessed(FILE *f, const struct wc_capture_meta *m)
{
	char line[sizeof(m->journal_why) + 80];

	snprintf(line, sizeof(line), "journal: guessed from flags (FUA, "
		 "preflush, or sync+meta writes)%s%s",
		 m->journal_why[0] ? ": " : "", m->journal_why);
	text_wrap(f, "  ", line);
}

/* A finding's sentence: wrapped after "  - ". */
static void text_sentence(FILE *f, const char *raw)
{
	text_wrap(f, "  - ", raw);
}

static void text_findings(FILE *f, const struct wc_summary *s)
{
	size_t i;

	if (!s->nfindings)
		return;
	fprintf(f, "findings\n");
	for (i = 0; i < s->nfindings; i++) {
		/* The answers, then what to bear in mind beside them. */
		if (s->findings[i].caveat && (!i || !s->findings[i - 1].caveat))
			fprintf(f, "caveats\n");
		text_sentence(f, s->findings[i].text);
	}
	fprintf(f, "\n");
}

static const char *devname(const struct wc_capture_meta *m, uint32_t dev,
			   char *buf, size_t size)
{
	char e[WC_ESCAPE_SIZE(sizeof(m->devices[0].name))];
	size_t i;

	for (i = 0; i < m->ndevices; i++)
		if (m->devices[i].device == dev && m->devices[i].name[0]) {
			snprintf(buf, size, "%s (%u,%u)",
				 wc_escape_text(m->devices[i].name, e, sizeof(e)),
				 WC_DEV_MAJOR(dev), WC_DEV_MINOR(dev));
			return buf;
		}
	snprintf(buf, size, "%u,%u", WC_DEV_MAJOR(dev), WC_DEV_MINOR(dev));
	return buf;
}

/* ---- text, one capture ------------------------------------------------- */

static void text_categories(FILE *f, const struct wc_sum_figs *sf)
{
	char b[32];
	int c;

	fprintf(f, "%-12s %12s %7s %10s %12s\n", "", "time (s)", "share",
		"requests", "bytes");
	fprintf(f, "%-12s %12.6f %6.1f%%\n", "idle",
		wc_secs(sf->part_ns[WC_PART_IDLE]),
		sf->share[WC_PART_IDLE]);
	if (sf->outstanding_ns)
		fprintf(f, "%-12s %12.6f %6.1f%%  dispatched, never completed\n",
			"outstanding", wc_secs(sf->outstanding_ns),
			100.0 * (double)sf->outstanding_ns /
			(double)sf->wall_ns);
	/* The disk's own work, from its ledger: busy, of no request. */
	if (sf->internal_known)
		fprintf(f, "%-12s %12.6f %6.1f%% %10" PRIu64 " %12s  the drive's "
			"destage of no request (ledger)\n", "destage",
			wc_secs(sf->part_ns[WC_PART_INTERNAL]),
			sf->share[WC_PART_INTERNAL], sf->internal_ranges,
			wc_fmt_bytes(sf->internal_bytes, b, sizeof(b)));
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, "%-12s %12.6f %6.1f%% %10" PRIu64 " %12s\n",
			col_label[c], wc_secs(sf->part_ns[c]),
			sf->share[c], sf->requests[c],
			wc_fmt_bytes(sf->bytes[c], b, sizeof(b)));
	fprintf(f, "%-12s %12.6f %6.1f%% %10" PRIu64 " %12s\n", "window",
		wc_secs(sf->wall_ns), sf->wall_ns ? 100.0 : 0.0, sf->all_requests,
		wc_fmt_bytes(sf->all_bytes, b, sizeof(b)));
}

/* One disk of partitions: each one's part of the disk's figures above,
 * who it was for (its role) and its busy time's share of the disk's. */
static void text_parts(FILE *f, const struct wc_sum_capture *sc)
{
	char b[32], e[WC_ESCAPE_SIZE(64)], e2[WC_ESCAPE_SIZE(16)];
	const struct wc_figures *g = sc->disk.raw;
	size_t k;

	if (!sc->nparts || sc->main != &sc->disk)
		return;
	fprintf(f, "\n%-24s %10s %12s %12s %7s\n", "by partition",
		"requests", "bytes", "busy (s)", "of busy");
	for (k = 0; k < sc->nparts; k++) {
		const struct wc_sum_part *p = &sc->parts[k];
		char who[128];

		snprintf(who, sizeof(who), "%s %s",
			 p->name ? wc_escape_text(p->name, e, sizeof(e)) : "?",
			 p->role ? wc_escape_text(p->role, e2, sizeof(e2)) : "");
		fprintf(f, "  %-22.22s %10" PRIu64 " %12s %12.6f %6.1f%%\n", who,
			p->requests, wc_fmt_bytes(p->bytes, b, sizeof(b)),
			p->busy_s, p->busy_pct);
	}
	/* The rest of the disk's busy time is no partition's request: the
	 * drive's own destage (its ledger). */
	if (g->internal_ns)
		fprintf(f, "  %-22.22s %10s %12s %12.6f %6.1f%%\n",
			"destage (no request)", "", "",
			wc_secs(g->internal_ns), 100.0 *
			(double)g->internal_ns / (double)wc_figures_busy(g));
}

static void text_latency(FILE *f, const char *what, const struct wc_latency *l)
{
	char a[5][24];

	if (!l->n) {
		fprintf(f, "%-14s none\n", what);
		return;
	}
	fprintf(f, "%-14s n %" PRIu64 ", ms: min %s p50 %s p90 %s p99 %s max %s\n",
		what, l->n, wc_fmt_ms(l->min, a[0], 24),
		wc_fmt_ms(l->p50, a[1], 24), wc_fmt_ms(l->p90, a[2], 24),
		wc_fmt_ms(l->p99, a[3], 24), wc_fmt_ms(l->max, a[4], 24));
}

/* 2^k as 128, 1Ki, 32Mi, ... */
static const char *pow2_label(int k, char *buf, size_t size)
{
	static const char *const suffix[] = { "", "Ki", "Mi", "Gi", "Ti" };

	snprintf(buf, size, "%llu%s", 1ull << (k % 10), suffix[k / 10]);
	return buf;
}

static void text_seeks(FILE *f, const struct wc_sum_device *d)
{
	const struct wc_figures *g = d->raw;
	char line[96], lo[16], item[40];
	int k, shown = 0;
	size_t len = 0;

	fprintf(f, "seeks          %" PRIu64 " of %" PRIu64
		" requests (%.1f%%) moved more than 128 sectors\n",
		g->seeks, g->seek_candidates, d->seek_pct);
	if (g->seeks)
		fprintf(f, "  by distance, sectors at least:\n");
	for (k = 0; k < WC_SEEK_BINS; k++) {
		if (!g->seek_hist[k])
			continue;
		snprintf(item, sizeof(item), "%6s: %-10" PRIu64,
			 pow2_label(k, lo, sizeof(lo)), g->seek_hist[k]);
		len += (size_t)snprintf(line + len, sizeof(line) - len, "  %s",
					item);
		if (++shown % 4 == 0) {
			while (len && line[len - 1] == ' ')
				line[--len] = '\0';
			fprintf(f, "%s\n", line);
			len = 0;
		}
	}
	if (len) {
		while (len && line[len - 1] == ' ')
			line[--len] = '\0';
		fprintf(f, "%s\n", line);
	}
}

static void text_phases(FILE *f, const struct wc_sum_capture *c)
{
	char w[8][16];
	size_t p;

	if (!c->nphases)
		return;
	fprintf(f, "\nphases (s)       wall   busy  flush journal metadata   data "
		"discard  other\n");
	for (p = 0; p < c->nphases; p++) {
		const struct wc_sum_phase *ph = &c->phases[p];
		const double *v = ph->figs.col;
		char e[13];

		fprintf(f, "  %-12s %6s %6s %6s %7s %8s %6s %7s %6s\n",
			wc_escape_text(ph->name, e, sizeof(e)),
			wc_fmt_s6(v[WC_COL_WALL], w[0], 16),
			wc_fmt_s6(v[WC_COL_BUSY], w[1], 16),
			wc_fmt_s6(v[WC_COL_FLUSH], w[2], 16),
			wc_fmt_s6(v[WC_COL_JOURNAL], w[3], 16),
			wc_fmt_s6(v[WC_COL_METADATA], w[4], 16),
			wc_fmt_s6(v[WC_COL_DATA], w[5], 16),
			wc_fmt_s6(v[WC_COL_DISCARD], w[6], 16),
			wc_fmt_s6(v[WC_COL_OTHER], w[7], 16));
	}
}

static void text_waits(FILE *f, const struct wc_sum_capture *c)
{
	size_t i, n = c->nwaits;

	if (!n)
		return;
	fprintf(f, "\nprocesses waiting on sync requests (Q to C)\n");
	fprintf(f, "  %-20s %10s %12s\n", "command", "requests", "waited (s)");
	for (i = 0; i < n && i < 10; i++) {
		const struct wc_wait *w = c->waits[i];

		char e[21];

		fprintf(f, "  %-20s %10" PRIu64 " %12.6f\n",
			wc_escape_text(w->comm, e, sizeof(e)),
			w->requests, wc_secs(w->wait_ns));
	}
	if (n > 10)
		fprintf(f, "  (%zu more)\n", n - 10);
}

/* The main device's time by process: who the device worked for. */
static void text_procs(FILE *f, const struct wc_sum_capture *c)
{
	size_t i, n = c->nprocs;

	if (!n)
		return;
	fprintf(f, "\ndevice time by process (flushes: the thread that asked)\n");
	fprintf(f, "  %-20s %10s %12s %12s\n", "command", "requests",
		"bytes", "time (s)");
	for (i = 0; i < n && i < 10; i++) {
		const struct wc_wait *w = c->procs[i];
		char e[21], b[32];

		fprintf(f, "  %-20s %10" PRIu64 " %12s %12.6f\n",
			wc_escape_text(w->comm, e, sizeof(e)), w->requests,
			wc_fmt_bytes(w->bytes, b, sizeof(b)), wc_secs(w->wait_ns));
	}
	if (n > 10)
		fprintf(f, "  (%zu more)\n", n - 10);
}

static void text_kcheck(FILE *f, const struct wc_kcheck *k)
{
	char e[512], line[1024];
	uint64_t pm;
	size_t i;
	int fl;

	if (k->state == WC_KC_NONE) {
		fprintf(f, "\nkernel counters: none (no counters.tsv): the trace "
			"could not be checked\n");
		return;
	}
	if (k->state == WC_KC_UNUSABLE) {
		snprintf(line, sizeof(line), "kernel counters: not compared, so "
			 "the trace could not be checked: %s", k->why);
		fputc('\n', f);
		text_wrap(f, "", line);
		return;
	}
	for (i = 0; i < k->ndevices; i++) {
		const struct wc_kc_device *d = &k->dev[i];

		fprintf(f, "\nbeside the kernel's counters, %s (%.3f s between "
			"the readings)\n", wc_escape_text(d->name, e, sizeof(e)),
			(double)(d->end - d->start) / 1e9);
		fprintf(f, "  %s%s\n", wc_kc_held_words(d, e, sizeof(e)),
			wc_kc_device_agrees(d) ? ", and agrees on every field" :
			"");
		fprintf(f, "                       kernel        trace     held\n");
		for (fl = 0; fl < WC_KC_NFIELDS; fl++) {
			const struct wc_kc_figure *g = &d->fig[fl];

			if (!g->known)
				continue;
			fprintf(f, "  %-17s %10" PRIu64 " %12" PRIu64,
				wc_kc_field_words((enum wc_kc_field)fl),
				g->kernel, g->trace);
			if (g->maybe)
				fprintf(f, " +%" PRIu64, g->maybe);
			pm = wc_kc_held_permille(g);
			fprintf(f, " %5" PRIu64 ".%" PRIu64 "%%%s\n", pm / 10,
				pm % 10,
				g->missing ? "  events lost" :
				g->extra ? "  more than the kernel" : "");
		}
		snprintf(line, sizeof(line), "writes include %" PRIu64 " empty "
			 "flushes: %s", d->empty_flush_writes, wc_kc_reason_flush);
		text_wrap(f, "  ", line);
		if (d->io_ticks_known) {
			snprintf(line, sizeof(line), "busy %.3f s in the trace, "
				 "io_ticks %.3f s: %s", (double)d->busy_ns / 1e9,
				 (double)d->io_ticks_ms / 1e3, wc_kc_reason_ticks);
			text_wrap(f, "  ", line);
		}
	}
}

static void text_btt(FILE *f, const struct wc_sum_btt *b)
{
	const struct wc_btt_stat *st[2] = { &b->q2c, &b->d2c };
	const double mean[2] = { b->q2c_mean_s, b->d2c_mean_s };
	const char *name[2] = { "Q2C", "D2C" };
	int i;

	if (!b->on) {
		fprintf(f, "\nbtt, all devices: not computed (only with "
			"--btt, from a trace's events)\n");
		return;
	}
	fprintf(f, "\nbtt, all devices (s)       MIN           AVG           MAX"
		"           N\n");
	for (i = 0; i < 2; i++)
		fprintf(f, "  %-3s           %13.9f %13.9f %13.9f %11" PRIu64 "\n",
			name[i], wc_secs(st[i]->min), mean[i],
			wc_secs(st[i]->max), st[i]->n);
	if (b->forgotten)
		fprintf(f, "  (%" PRIu64 " queued bios never completed were "
			"forgotten: btt itself may differ)\n", b->forgotten);
	if (b->ignored)
		fprintf(f, "  (%" PRIu64 " queued bios on devices past the first "
			"%d were ignored)\n", b->ignored, WC_MAX_DEVICES);
}

/* The filters, when the analysis applied any: every figure below is
 * of what passed them. */
static void text_filter(FILE *f, const struct wc_sum_capture *sc,
			const char *indent)
{
	if (!sc->filter)
		return;
	fprintf(f, "%sfiltered: ", indent);
	wc_escape_text_put(f, sc->filter);
	fputs("\n", f);
}

int wc_report_text(FILE *f, const struct wc_summary *s, size_t i,
		   struct wc_err *err)
{
	/* Without kept rows, the first capture's is the summary's. */
	const struct wc_sum_capture *sc = s->caps ? &s->caps[i] :
					  s->groups[0].first;
	const struct wc_capture_meta *m = sc->meta;
	const struct wc_sum_device *dv = sc->main;
	const struct wc_figures *g = dv ? dv->raw : NULL;
	const struct wc_tracker_stats *st = sc->tracking;
	char b[64], e[WC_ESCAPE_SIZE(sizeof(m->mount_options))], e2[41];

	text_findings(f, s);
	/* Names and settings are the input's: escaped for a terminal. */
	fprintf(f, "capture %s\n", m->name[0] ?
		wc_escape_text(m->name, e, sizeof(e)) : "(unnamed)");
	text_filter(f, sc, "  ");
	fprintf(f, "  fs %s, write cache %s, barriers %s\n",
		m->fs[0] ? wc_escape_text(m->fs, e, sizeof(e)) : "?",
		wc_onoff(m->write_cache), wc_onoff(m->barrier));
	if (m->kernel[0] || m->recorder[0])
		fprintf(f, "  kernel %s, recorder %s\n",
			m->kernel[0] ? wc_escape_text(m->kernel, e2, 41) : "?",
			m->recorder[0] ? wc_escape_text(m->recorder, e, 21) : "?");
	if (m->mount_options[0])
		fprintf(f, "  mount %.69s%s\n",
			wc_escape_text(m->mount_options, e, sizeof(e)),
			strlen(e) > 69 ? "..." : "");
	fprintf(f, "  %" PRIu64 " events, %s dropped%s\n", m->events,
		m->events_dropped >= 0 ? (snprintf(b, sizeof(b), "%" PRId64,
					  m->events_dropped), b) : "?",
		sc->partial ? ", input ended early: partial" :
		m->complete == 0 ? ", capture incomplete" : "");
	if (!g) {
		fprintf(f, "  %s\n", sc->missing ? sc->missing :
			"no completed I/O in the trace");
		return wc_format_finish(f, err);
	}
	if (sc->main == &sc->disk)
		fprintf(f, "  disk %s, %zu partitions of one disk (capture.conf "
			"disk_regions), %s\n",
			wc_escape_text(sc->disk_name, e, sizeof(e)), sc->nparts,
			m->main_rotational == 1 ? "rotational" :
			m->main_rotational == 0 ? "not rotational" :
						  "rotational: unknown");
	else
	fprintf(f, "  device %s%s, %s\n", devname(m, g->device, b, sizeof(b)),
		!m->main_from_conf ? ", the busiest" :
		g->device == m->dest_device ? ", the destination" :
		", chosen by --device (not the destination)",
		m->main_rotational == 1 ? "rotational" :
		m->main_rotational == 0 ? "not rotational" :
					  "rotational: unknown");
	/* A plain trace of several devices ("blkparse -d" of a whole
	 * machine): say which the figures below are of, and why. */
	if (!m->main_from_conf && m->main_among > 1)
		fprintf(f, "    (most bytes of the %zu devices with I/O: "
			"capture.conf names none)\n", m->main_among);
	if (m->journal_method == WC_JOURNAL_RANGE)
		fprintf(f, "  journal: sectors %" PRIu64 "+%" PRIu64 "%s\n",
			m->journal_start, m->journal_len,
			m->main_from_conf && g->device != m->dest_device ?
			" of the destination, none on this device" : "");
	else
		text_journal_guessed(f, m);
	fprintf(f, "  window %.6f s, busy %.6f s (%.1f%%)\n",
		sc->figs.col[WC_COL_WALL], sc->figs.col[WC_COL_BUSY],
		sc->figs.busy_pct);
	if (sc->has_durable) {
		fprintf(f, "  command returned %.6f s from the window's start\n",
			sc->returned_s);
		fprintf(f, "  data durable     %.6f s: %.6f s later, the drive "
			"destaged %s\n", sc->durable_s,
			sc->durable_s - sc->returned_s,
			wc_fmt_bytes(sc->durable_bytes, b, sizeof(b)));
		fprintf(f, "                   %s\n", !sc->durable_in_window ?
			"(after the window: not in its busy time)" :
			sc->figs.internal_known && !sc->durable_bytes ?
			"(in the window: nothing was left in the drive's cache)" :
			sc->figs.internal_known ?
			"(in the window: the drive's destage, busy, no request)" :
			"(in the window: off the device, no request)");
	}
	fprintf(f, "\n");
	text_categories(f, &sc->figs);
	text_parts(f, sc);

	fprintf(f, "\n");
	if (g->positioning_known) {
		bool destage = sc->figs.destage_s[0] + sc->figs.destage_s[1] > 0;

		fprintf(f, "positioning    %.6f s, %.1f%% of journal+metadata+data"
			"%s time\n", sc->figs.col[WC_COL_POSITIONING],
			sc->positioning_pct, destage ? "+destage" : "");
		if (destage)
			fprintf(f, "  in flushes   destage positioning %.6f s, "
				"transfer %.6f s\n"
				"               (estimated: the writes the cache "
				"absorbed since the previous flush)\n",
				sc->figs.destage_s[0], sc->figs.destage_s[1]);
		fprintf(f, "media rate     %.1f MB/s, %s\n", dv->media_rate / 1e6,
			dv->media_rate_estimated ? "estimated from streaming requests" :
			      "given with --media-rate");
		if (m->main_rotational != 1)
			fprintf(f, "  (device %s rotational: positioning is not "
				"seek time)\n",
				m->main_rotational == 0 ? "not" : "maybe not");
	} else if (wc_analysis_rotational_doubt(m, g->device)) {
		fprintf(f, "positioning    not split: %s's rotational flag cannot "
			"be trusted\n               (%s;\n"
			"               give --media-rate to split)\n", devname(m, g->device, b, sizeof(b)),
			wc_analysis_rotational_doubt(m, g->device));
	} else {
		fprintf(f, "positioning    unknown: too few streaming requests "
			"to estimate the media rate\n"
			"               (%sgive it with --media-rate)\n",
			m->write_cache == 1 ? "the cache's writes do not "
			"show it: " : "");
	}
	fprintf(f, "FUA writes     %" PRIu64 "\n", g->fua_writes);
	text_latency(f, "flush D2C", &g->flush_d2c);
	text_latency(f, "all D2C", &g->d2c);
	fprintf(f, "queue depth    mean %.2f, max %u\n", dv->queue_mean,
		g->max_depth);
	text_seeks(f, dv);
	if (st->orphan_completions || st->unfinished || st->dropped_inflight ||
	    st->never_dispatched)
		fprintf(f, "lost events    %" PRIu64 " completions without issue,"
			" %" PRIu64 " unfinished (%" PRIu64 " past the bound),"
			"\n               %" PRIu64
			" never issued, %" PRIu64 " forgotten (in-flight cap)\n",
			st->orphan_completions, st->unfinished, st->expired,
			st->never_dispatched, st->dropped_inflight);
	if (st->began_in_flight)
		fprintf(f, "in flight      %" PRIu64 " completion%s of requests "
			"dispatched before the recording began\n",
			st->began_in_flight, st->began_in_flight == 1 ? "" : "s");
	if (st->ignored_events)
		fprintf(f, "ignored        %" PRIu64 " events on devices past the "
			"first %d\n", st->ignored_events, WC_MAX_DEVICES);
	text_phases(f, sc);
	text_procs(f, sc);
	text_waits(f, sc);
	text_btt(f, &sc->btt);
	text_kcheck(f, sc->kcheck);
	return wc_format_finish(f, err);
}

/* ---- text, comparison -------------------------------------------------- */

/* 5 columns each, so that the disk fits in 80 with the runs' columns. */
static const char *const cmp_head[WC_NCOLS] = {
	"wall", "busy", "flush", "jrnl", "meta", "posn", "data", "disc",
	"other",
};

/* Whether column c is in the text table: discard and other only when a
 * group spent time there, so that a comparison without them keeps room
 * for its names; every other column always.  JSON and CSV have all. */
static bool col_shown(const struct wc_summary *s, int c)
{
	size_t g;

	if (c != WC_COL_DISCARD && c != WC_COL_OTHER)
		return true;
	for (g = 0; g < s->ngroups; g++)
		if (s->groups[g].col[c].n && s->groups[g].col[c].mean > 0)
			return true;
	return false;
}

/* The optional columns shown, 6 columns each. */
static int cols_extra(const struct wc_summary *s)
{
	return col_shown(s, WC_COL_DISCARD) + col_shown(s, WC_COL_OTHER);
}

/* The disk column: the disk model, cut to DISK_MAX_W (the model disks'
 * names fit; the text report names a longer one whole elsewhere). */
#define DISK_MAX_W 7

/* Short heads of the parts, 6 columns each. */
static const char *const part_head[WC_NPARTS] = {
	"flush", "journl", "meta", "dread", "dwrite", "discrd", "other",
	"offdev", "destag",
};

/* Signed seconds in at most 6 characters: "0" when nothing changed. */
static const char *s6signed(double v, char *buf, size_t size)
{
	char a[16];

	if (v == 0)
		snprintf(buf, size, "0");
	else
		snprintf(buf, size, "%c%s", v < 0 ? '-' : '+',
			 wc_fmt_s6(v < 0 ? -v : v, a, sizeof(a)));
	return buf;
}

/* Room for names in an 80-column row: the rest takes 15 columns, the
 * disk column's width and 6 for each value column shown; never more
 * than NAME_MAX_W. */
#define ROW_REST_W 15
#define NAME_MAX_W 16

/* The width of the name column, or 0 when a name does not fit or rows
 * are groups of runs (rows are then numbered and listed below). */
static int name_width(const struct wc_summary *s, int disk_w)
{
	size_t g, w = 7, max = 80 - ROW_REST_W - (size_t)disk_w -
			       6 * (WC_NCOLS - 2 + (size_t)cols_extra(s));

	if (max > NAME_MAX_W)
		max = NAME_MAX_W;

	if (s->any_runs)
		return 0;
	/* Without runs, every capture is a group's first. */
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_capture_meta *m = s->groups[g].first->meta;
		char e[WC_ESCAPE_SIZE(sizeof(m->name))];
		size_t l = strlen(wc_escape_text(m->name, e, sizeof(e)));

		if (l > max)
			return 0;
		if (l > w)
			w = l;
	}
	return (int)w;
}

/* The label of group g (a capture, without runs). */
static void row_label(const struct wc_summary *s, size_t g, int w, char *buf,
		      size_t size)
{
	if (w)
		wc_escape_text(s->groups[g].first->meta->name, buf,
			       size < NAME_MAX_W + 1 ? size : NAME_MAX_W + 1);
	else
		snprintf(buf, size, "#%zu", g + 1);
}

/* The disk column: the disk models themselves when every one fits in
 * DISK_MAX_W, else d1, d2 ... in the order of their first group, named
 * whole under the table, so that two models cut to the same text never
 * look alike. */
struct disk_col {
	int width;
	size_t *num;                   /* per group; NULL: names */
	size_t n;                      /* models numbered */
};

static int disk_col_open(struct disk_col *dc, const struct wc_summary *s)
{
	char b[DISK_MAX_W + 2];
	size_t g, h;
	/* Groups of runs have their n and +-sd columns: an optional column
	 * fits in 80 only with the models numbered. */
	size_t max = s->any_runs && cols_extra(s) ? 4 : DISK_MAX_W;
	bool fit = true;

	memset(dc, 0, sizeof(*dc));
	dc->width = 4;
	for (g = 0; g < s->ngroups; g++) {
		size_t l = strlen(wc_escape_text(s->groups[g].disk_name, b,
						 sizeof(b)));

		if (l > max)
			fit = false;
		else if ((int)l > dc->width)
			dc->width = (int)l;
	}
	if (fit)
		return 0;
	dc->num = calloc(s->ngroups ? s->ngroups : 1, sizeof(*dc->num));
	if (!dc->num)
		return -1;
	for (g = 0; g < s->ngroups; g++) {
		const char *d = s->groups[g].disk_name;

		for (h = 0; h < g && strcmp(s->groups[h].disk_name, d); h++)
			;
		dc->num[g] = h < g ? dc->num[h] : ++dc->n;
	}
	snprintf(b, sizeof(b), "d%zu", dc->n);
	dc->width = strlen(b) > 4 ? (int)strlen(b) : 4;
	return 0;
}

/* Group g's cell: its disk's name escaped, or its number. */
static const char *disk_cell(const struct disk_col *dc,
			     const struct wc_summary *s, size_t g, char *buf,
			     size_t size)
{
	const char *d = s->groups[g].disk_name;

	if (dc->num)
		snprintf(buf, size, "d%zu", dc->num[g]);
	else
		wc_escape_text(d, buf, size);
	return buf;
}

/* Under the table: what each number stands for, cut to a line. */
static void disk_legend(FILE *f, const struct disk_col *dc,
			const struct wc_summary *s)
{
	char b[80 - 8];
	size_t g, k = 0;

	for (g = 0; dc->num && g < s->ngroups; g++) {
		if (dc->num[g] != k + 1)
			continue;
		k++;
		fprintf(f, "%sd%zu = %s\n", k == 1 ? "\ndisks:\n" : "", k,
			wc_escape_text(s->groups[g].disk_name, b, sizeof(b)));
	}
}

/* The label column's width: the names', else 7 for "#N", 5 ("group")
 * for groups of runs with an optional column. */
static int label_width(const struct wc_summary *s, int w)
{
	if (w)
		return w;
	return s->any_runs && cols_extra(s) ? 5 : 7;
}

static void cmp_head_line(FILE *f, const struct wc_summary *s, int w,
			  const struct disk_col *dc)
{
	int c;

	fprintf(f, "%-*s %-4s %-3s %-3s %-*s", label_width(s, w), s->any_runs ?
		"group" : "capture", "fs", "wc", "bar", dc->width, "disk");
	if (s->any_runs)
		fprintf(f, " %2s", "n");
	for (c = 0; c < WC_NCOLS; c++) {
		if (!col_shown(s, c))
			continue;
		fprintf(f, " %5s", cmp_head[c]);
		if (s->any_runs && c == WC_COL_WALL)
			fprintf(f, " %5s", "+-sd");
	}
	fprintf(f, "\n");
}

static void cmp_row_start(FILE *f, const struct wc_summary *s, size_t g,
			  int w, const struct disk_col *dc)
{
	const struct wc_capture_meta *m = s->groups[g].first->meta;
	char label[32], fs[5], disk[DISK_MAX_W + 1];

	row_label(s, g, w, label, sizeof(label));
	fprintf(f, "%-*s %-4s %-3s %-3s %-*s", label_width(s, w), label,
		m->fs[0] ? wc_escape_text(m->fs, fs, sizeof(fs)) : "?",
		wc_onoff(m->write_cache),
		wc_onoff(m->barrier), dc->width,
		disk_cell(dc, s, g, disk, sizeof(disk)));
	if (s->any_runs)
		fprintf(f, " %2zu", s->groups[g].n);
}

/* A table of differences: one row per label, wall then every part. */
static void diff_head_line(FILE *f, const struct wc_summary *s, int w)
{
	int p;

	fprintf(f, "%-*s %6s", w, "", "wall");
	for (p = 0; p < WC_NPARTS; p++)
		if (wc_summary_part_shown(s, p))
			fprintf(f, " %6s", part_head[p]);
	fprintf(f, "\n");
}

static void diff_row(FILE *f, const struct wc_summary *s, const char *label,
		     int w, const struct wc_sum_diff *d)
{
	char b[16];
	int p;

	fprintf(f, "%-*s %6s", w, label, s6signed((double)d->wall_ns / 1e9, b,
						      sizeof(b)));
	for (p = 0; p < WC_NPARTS; p++)
		if (wc_summary_part_shown(s, p))
			fprintf(f, " %6s", s6signed((double)d->part_ns[p] / 1e9,
						    b, sizeof(b)));
	fprintf(f, "\n");
}

/* True when measure m is 0 in every run of both sides: nothing to say. */
static bool meas_idle(const struct wc_sum_group *gr,
		      const struct wc_sum_group *b, int m)
{
	return gr->meas[m].max == 0 && b->meas[m].max == 0;
}

/* One measure's row: difference, 95 % interval, verdict. */
static void text_test_row(FILE *f, int m, const struct wc_test *t)
{
	char lo[24], hi[24], words[96];

	if (t->has_interval) {
		snprintf(lo, sizeof(lo), "%+.3f", t->lo_s);
		snprintf(hi, sizeof(hi), "%+.3f", t->hi_s);
	} else {
		snprintf(lo, sizeof(lo), "-");
		snprintf(hi, sizeof(hi), "-");
	}
	fprintf(f, "  %-16s %+8.3f %8s %8s  %s\n", wc_meas_key(m), t->diff_s, lo,
		hi, wc_test_words(t, words, sizeof(words)));
}

/* The verdicts of every group against its baseline: a line with the
 * verdict on device time and the wall's, then a row per measure that is
 * known and not 0 throughout (summary.h, docs/methodology.md). */
static void text_verdicts(FILE *f, const struct wc_summary *s, int w)
{
	char label[32], base[32], wd[96], ww[96];
	size_t g;
	int m;

	if (s->replay) {
		fprintf(f, "replays through the disk model: no verdict (a "
			"replay is deterministic;\nthe differences are the "
			"model's predictions)\n");
		return;
	}
	if (!s->any_runs) {
		fprintf(f, "one run per configuration: no verdict is decided "
			"(a test needs two runs a side)\n");
		return;
	}
	fprintf(f, "verdicts: each measure's difference of the means (seconds) "
		"and its 95 %%\ninterval (Welch's t-test): real when the "
		"interval excludes 0; no larger\nthan X when the 90 %% interval "
		"lies inside +-X (two one-sided tests), X = ");
	if (s->equiv_s > 0)
		fprintf(f, "%.3f s\n(--equivalence)", s->equiv_s);
	else
		fprintf(f, "%g %%\nof the baseline's mean wall",
			s->equiv_share * 100);
	fprintf(f, "; else not decided, with the runs a side that would\n"
		"decide it at the spread seen.  Whether the disk caused it is "
		"decided on the\ndevice's busy time, the wall's verdict beside "
		"it\n");
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];
		const struct wc_sum_group *b = &s->groups[gr->base];

		if (g == gr->base)
			continue;
		row_label(s, g, w, label, sizeof(label));
		row_label(s, gr->base, w, base, sizeof(base));
		fprintf(f, "\n%s against %s (%zu and %zu runs): device %s,\n"
			"  wall %s\n", label, base, gr->n, b->n,
			wc_test_words(&gr->test[WC_MEAS_BUSY], wd, sizeof(wd)),
			wc_test_words(&gr->test[WC_MEAS_WALL], ww, sizeof(ww)));
		if (gr->n < 2 || b->n < 2)
			continue;
		fprintf(f, "  %-16s %8s %8s %8s  %s\n", "measure", "diff",
			"95 % lo", "hi", "verdict");
		for (m = 0; m < WC_NMEAS; m++)
			if (gr->test[m].known && !meas_idle(gr, b, m))
				text_test_row(f, m, &gr->test[m]);
	}
}

/* Labels of the per-phase rows: 16 columns, 63 for the figures. */
#define PHASE_W 16

/* Who a run is in the per-phase table: its name when the tables show
 * names, else "#G", or "#G.R" for run R of a group with runs. */
static void run_label(const struct wc_summary *s,
		      const struct wc_sum_capture *c, int w, char *buf,
		      size_t size)
{
	const struct wc_sum_group *gr = &s->groups[c->group];

	if (w) {
		wc_escape_text(c->meta->name, buf, size);
	} else if (gr->n > 1) {
		snprintf(buf, size, "#%zu.%zu", c->group + 1, c->rank + 1);
	} else {
		snprintf(buf, size, "#%zu", c->group + 1);
	}
}

/* The rows of the differences of comparable set `set` (SIZE_MAX: every
 * group); '*' marks a group on another disk than its baseline. */
static void diff_rows(FILE *f, const struct wc_summary *s, size_t set,
		      int w, int lw)
{
	char label[300];
	size_t g;

	diff_head_line(f, s, lw);
	for (g = 0; g < s->ngroups; g++) {
		if (set != SIZE_MAX && s->groups[g].set != set)
			continue;
		row_label(s, g, w, label, sizeof(label));
		if (s->groups[g].cross_disk)
			strcat(label, "*");
		diff_row(f, s, label, lw, &s->groups[g].diff);
	}
}

static void text_differences(FILE *f, const struct wc_summary *s, int w,
			     const struct disk_col *dc)
{
	char label[300], disk[DISK_MAX_W + 1];
	size_t k;
	int lw = (w ? w : 7) + (s->any_cross_disk ? 1 : 0);

	row_label(s, s->base_group, w, label, sizeof(label));
	if (s->named_baseline || s->nsets < 2) {
		fprintf(f, "\ndifference to %s (%s), seconds, + slower;\n"
			"dread/dwrite = data read/write, offdev = device idle "
			"(off the device:\nnot seen by the block layer)%s\n\n", label,
			s->named_baseline ? "the baseline" : "the fastest",
			s->internal ? ";\ndestag = the drive's destage with no "
			"request (its ledger), busy" : "");
		diff_rows(f, s, SIZE_MAX, w, lw);
	} else {
		fprintf(f, "\ndifference to the fastest configuration of the "
			"same disk, workload and scale,\nseconds, + slower; "
			"dread/dwrite = data read/write, offdev = device idle\n"
			"(off the device: not seen by the block layer)%s\n",
			s->internal ? ";\ndestag = the drive's destage with no "
			"request (its ledger), busy" : "");
		for (k = 0; k < s->nsets; k++) {
			size_t b = s->sets[k].base_group;

			/* Alone on its disk: nothing to compare with. */
			if (s->sets[k].ngroups < 2)
				continue;
			row_label(s, b, w, label, sizeof(label));
			fprintf(f, "\ndisk %s: difference to %s\n",
				disk_cell(dc, s, b, disk, sizeof(disk)), label);
			diff_rows(f, s, k, w, lw);
		}
	}
	if (s->any_cross_disk) {
		row_label(s, s->base_group, w, label, sizeof(label));
		fprintf(f, "* ran on another disk than the baseline %s\n  "
			"(disk %s): its difference crosses disks\n", label,
			disk_cell(dc, s, s->base_group, disk, sizeof(disk)));
	}
	fprintf(f, "\n");
	text_verdicts(f, s, w);
}

/* Per phase: a run's phases against the baseline's of that name, under
 * a line naming the run (per-run detail: one row per phase and run). */
static int text_phase_differences(FILE *f, const struct wc_summary *s, int w,
				  struct wc_err *err)
{
	const struct wc_sum_capture *c;
	struct wc_sum_rows *rows;
	char label[300];
	bool head = false;
	size_t p;
	int got;

	/* One row at a time, as the summary reads each capture again. */
	if (wc_summary_rows(s, &rows, err) < 0)
		return -1;
	while ((got = wc_summary_rows_next(rows, &c, err)) > 0) {
		bool named = false;

		for (p = 0; p < c->nphases; p++) {
			const struct wc_sum_phase *ph = &c->phases[p];

			if (!ph->diff.known)
				continue;
			if (!head) {
				fprintf(f, "\nper phase, against its baseline's "
					"phase of that name\n\n");
				diff_head_line(f, s, PHASE_W);
				head = true;
			}
			if (!named) {
				run_label(s, c, w, label, sizeof(label));
				fprintf(f, "%s\n", label);
				named = true;
			}
			label[0] = label[1] = ' ';
			wc_escape_text(ph->name, label + 2, PHASE_W - 1);
			diff_row(f, s, label, PHASE_W, &ph->diff);
		}
	}
	wc_summary_rows_free(rows);
	return got < 0 ? -1 : 0;
}

/* The names of the captures the table numbers: "#G NAME", or for a
 * group of runs "#G.R NAME" a run. */
static int text_members(FILE *f, const struct wc_summary *s,
			struct wc_err *err)
{
	char name[256];
	uint64_t at;
	size_t g, i;
	int got;

	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];

		for (i = 0, at = 0; (got = wc_summary_member(s, g, &at, name,
							     sizeof(name),
							     err)) > 0; i++) {
			if (gr->n > 1)
				fprintf(f, "#%zu.%zu ", g + 1, i + 1);
			else
				fprintf(f, "#%zu ", g + 1);
			wc_escape_text_put(f, name);
			fputs("\n", f);
		}
		if (got < 0)
			return -1;
	}
	return 0;
}

int wc_report_compare(FILE *f, const struct wc_summary *s, struct wc_err *err)
{
	return wc_report_compare_detail(f, s, WC_REPORT_BRIEF, err);
}

/* Whether some capture's main device is a disk of partitions. */
static bool any_disk(const struct wc_summary *s)
{
	return s->any_disk;
}

int wc_report_compare_detail(FILE *f, const struct wc_summary *s,
			     enum wc_report_detail detail, struct wc_err *err)
{
	bool runs = detail == WC_REPORT_RUNS, more;
	struct disk_col dc;
	size_t g;
	char b[16];
	int c;

	int w;

	if (disk_col_open(&dc, s) < 0)
		return wc_err_oom(err, NULL, NULL);
	w = name_width(s, dc.width);
	text_findings(f, s);
	if (s->ncaps)
		text_filter(f, s->groups[0].first, "");
	fprintf(f, "time on the main device, seconds; wc = write cache, "
		"bar = barriers;\nposn = positioning part of jrnl+meta+data "
		"(and with the cache on of the\nflushes' destage; ? without "
		"a media rate)%s%s"
		"%s\n\n", cols_extra(s) ? ";\ndisc = discards, other = "
		"empty requests that are not flushes" : "", s->any_runs ? ";\ngroups: runs of one configuration, "
		"means and the wall's standard deviation" : "",
		any_disk(s) ? ";\na capture of partitions of one disk "
		"(capture.conf disk_regions): the disk,\nall its partitions' "
		"requests" : "");
	cmp_head_line(f, s, w, &dc);
	for (g = 0; g < s->ngroups; g++) {
		const struct wc_sum_group *gr = &s->groups[g];

		cmp_row_start(f, s, g, w, &dc);
		for (c = 0; c < WC_NCOLS; c++) {
			double v = gr->col[c].n ? gr->col[c].mean : -1;

			if (!col_shown(s, c))
				continue;
			fprintf(f, " %5s", v < 0 ? "?" : wc_fmt_s6(v, b, sizeof(b)));
			if (s->any_runs && c == WC_COL_WALL)
				fprintf(f, " %5s", gr->n > 1 ?
					wc_fmt_s6(gr->col[c].sd, b, sizeof(b)) : "-");
		}
		fprintf(f, "\n");
	}
	if (s->named_baseline && !s->any_runs) {
		fputs("\nratio to ", f);
		wc_escape_text_put(f, s->named_baseline);
		fputs("\n", f);
		cmp_head_line(f, s, w, &dc);
		for (g = 0; g < s->ngroups; g++) {
			const struct wc_sum_capture *sc = s->groups[g].first;

			cmp_row_start(f, s, g, w, &dc);
			for (c = 0; c < WC_NCOLS; c++) {
				if (!col_shown(s, c))
					continue;
				if (sc->ratio[c] < 0)
					fprintf(f, " %5s", "-");
				else
					fprintf(f, " %5.2f", sc->ratio[c]);
			}
			fprintf(f, "\n");
		}
	}
	/* Rows of one capture each are named here; groups of runs are
	 * named by their columns, their runs in the detail. */
	if (!w && !s->any_runs) {
		fprintf(f, "\n");
		if (text_members(f, s, err) < 0)
			goto fail;
	}
	disk_legend(f, &dc, s);
	if (s->has_diff)
		text_differences(f, s, w, &dc);
	if (s->durable_outside)
		fprintf(f, "\nnote: %zu compared capture%s data became durable "
			"after the window: the busy\n      times leave out what "
			"the drive destaged then\n", s->durable_outside,
			s->durable_outside == 1 ? "'s" : "s'");
	/* Per-run detail last, behind one heading: a reader of the summary
	 * above stops before it. */
	more = s->any_runs || (s->has_diff && s->any_phases);
	if (more && runs) {
		fputs("\n---- per-run detail ", f);
		for (c = 0; c < 60; c++)
			putc('-', f);
		fputs("\n", f);
		if (!w && s->any_runs) {
			fputs("\n", f);
			if (text_members(f, s, err) < 0)
				goto fail;
		}
		if (s->has_diff && text_phase_differences(f, s, w, err) < 0)
			goto fail;
	} else if (more) {
		fputs("\nper-run detail (every run's name, its phases against "
		      "the baseline's): --runs\n", f);
	}
	free(dc.num);
	return wc_format_finish(f, err);

fail:
	free(dc.num);
	return -1;
}
