#include "report.h"
#include "escape.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static const char *const col_label[WC_NCAT] = {
	"flush", "journal", "metadata", "data read", "data write", "discard",
	"other",
};

int wc_format_parse(const char *s, enum wc_format *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = WC_FORMAT_TEXT;
	else if (!strcmp(s, "json"))
		*fmt = WC_FORMAT_JSON;
	else if (!strcmp(s, "csv"))
		*fmt = WC_FORMAT_CSV;
	else
		return -1;
	return 0;
}

static int finish(FILE *f, struct wc_err *err)
{
	if (fflush(f) == EOF || ferror(f))
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "write error: %s", strerror(errno));
	return 0;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Bytes in binary units, at most 10 characters. */
static const char *human_bytes(uint64_t b, char *buf, size_t size)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%" PRIu64 " B", b);
	else
		snprintf(buf, size, "%.1f %s", v, unit[u]);
	return buf;
}

/* A duration in ms, 3 significant-ish digits. */
static const char *ms(uint64_t ns, char *buf, size_t size)
{
	double v = (double)ns / 1e6;

	if (v < 10)
		snprintf(buf, size, "%.3f", v);
	else if (v < 1000)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

/* Seconds in at most 6 characters. */
static const char *s6(double v, char *buf, size_t size)
{
	if (v < 10)
		snprintf(buf, size, "%.3f", v);
	else if (v < 100)
		snprintf(buf, size, "%.2f", v);
	else if (v < 1000)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

static const char *tristate(int v, const char *on, const char *off)
{
	return v == 1 ? on : v == 0 ? off : "?";
}

static const char *devname(const struct wc_capture_meta *m, uint32_t dev,
			   char *buf, size_t size)
{
	size_t i;

	char e[WC_ESCAPE_SIZE(sizeof(m->devices[0].name))];

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

static uint64_t data_ns(const struct wc_figures *f)
{
	return f->time_ns[WC_CAT_DATA_READ] + f->time_ns[WC_CAT_DATA_WRITE];
}

/* ---- text, one capture ------------------------------------------------- */

static void text_categories(FILE *f, const struct wc_figures *g)
{
	char b[32];
	uint64_t nreq = 0, nbytes = 0;
	int c;

	fprintf(f, "%-12s %12s %7s %10s %12s\n", "", "time (s)", "share",
		"requests", "bytes");
	fprintf(f, "%-12s %12.6f %6.1f%%\n", "idle", secs(g->idle_ns),
		pct(g->idle_ns, g->window_ns));
	for (c = 0; c < WC_NCAT; c++) {
		nreq += g->requests[c];
		nbytes += g->bytes[c];
		fprintf(f, "%-12s %12.6f %6.1f%% %10" PRIu64 " %12s\n",
			col_label[c], secs(g->time_ns[c]),
			pct(g->time_ns[c], g->window_ns), g->requests[c],
			human_bytes(g->bytes[c], b, sizeof(b)));
	}
	fprintf(f, "%-12s %12.6f %6.1f%% %10" PRIu64 " %12s\n", "window",
		secs(g->window_ns), g->window_ns ? 100.0 : 0.0, nreq,
		human_bytes(nbytes, b, sizeof(b)));
}

static void text_latency(FILE *f, const char *what, const struct wc_latency *l)
{
	char a[5][24];

	if (!l->n) {
		fprintf(f, "%-14s none\n", what);
		return;
	}
	fprintf(f, "%-14s n %" PRIu64 ", ms: min %s p50 %s p90 %s p99 %s max %s\n",
		what, l->n, ms(l->min, a[0], 24), ms(l->p50, a[1], 24),
		ms(l->p90, a[2], 24), ms(l->p99, a[3], 24),
		ms(l->max, a[4], 24));
}

/* 2^k as 128, 1Ki, 32Mi, ... */
static const char *pow2_label(int k, char *buf, size_t size)
{
	static const char *const suffix[] = { "", "Ki", "Mi", "Gi", "Ti" };

	snprintf(buf, size, "%llu%s", 1ull << (k % 10), suffix[k / 10]);
	return buf;
}

static void text_seeks(FILE *f, const struct wc_figures *g)
{
	char line[96], lo[16], item[40];
	int k, shown = 0;
	size_t len = 0;

	fprintf(f, "seeks          %" PRIu64 " of %" PRIu64
		" requests (%.1f%%) moved more than 128 sectors\n",
		g->seeks, g->seek_candidates, pct(g->seeks, g->seek_candidates));
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

static void text_phases(FILE *f, const struct wc_analysis *a)
{
	size_t p, n = wc_analysis_nphases(a);
	char w[6][16];

	if (!n)
		return;
	fprintf(f, "\nphases (s)       wall   busy  flush journal metadata   data\n");
	for (p = 0; p < n; p++) {
		const struct wc_phase_result *ph = wc_analysis_phase(a, p);
		const struct wc_figures *g = wc_analysis_phase_figures(a, p);
		uint64_t busy = g ? wc_figures_busy(g) : 0;
		char e[13];

		fprintf(f, "  %-12s %6s %6s %6s %7s %8s %6s\n",
			wc_escape_text(ph->name, e, sizeof(e)),
			s6(ph->wall_s, w[0], 16), s6(secs(busy), w[1], 16),
			s6(g ? secs(g->time_ns[WC_CAT_FLUSH]) : 0, w[2], 16),
			s6(g ? secs(g->time_ns[WC_CAT_JOURNAL]) : 0, w[3], 16),
			s6(g ? secs(g->time_ns[WC_CAT_METADATA]) : 0, w[4], 16),
			s6(g ? secs(data_ns(g)) : 0, w[5], 16));
	}
}

static void text_waits(FILE *f, const struct wc_account *ac)
{
	size_t i, n = wc_account_nwaits(ac);

	if (!n)
		return;
	fprintf(f, "\nprocesses waiting on sync requests (Q to C)\n");
	fprintf(f, "  %-20s %10s %12s\n", "command", "requests", "waited (s)");
	for (i = 0; i < n && i < 10; i++) {
		const struct wc_wait *w = wc_account_wait(ac, i);
		char e[21];

		fprintf(f, "  %-20s %10" PRIu64 " %12.6f\n",
			wc_escape_text(w->comm, e, sizeof(e)),
			w->requests, secs(w->wait_ns));
	}
	if (n > 10)
		fprintf(f, "  (%zu more)\n", n - 10);
}

static void text_btt(FILE *f, const struct wc_btt *b)
{
	const struct wc_btt_stat *st[2] = { wc_btt_q2c(b), wc_btt_d2c(b) };
	const char *name[2] = { "Q2C", "D2C" };
	int i;

	fprintf(f, "\nbtt, all devices (s)       MIN           AVG           MAX"
		"           N\n");
	for (i = 0; i < 2; i++)
		fprintf(f, "  %-3s           %13.9f %13.9f %13.9f %11" PRIu64 "\n",
			name[i], secs(st[i]->min), wc_btt_mean_s(st[i]),
			secs(st[i]->max), st[i]->n);
	if (wc_btt_dropped(b))
		fprintf(f, "  (%" PRIu64 " queued bios never completed were "
			"forgotten: btt itself may differ)\n", wc_btt_dropped(b));
	if (wc_btt_ignored(b))
		fprintf(f, "  (%" PRIu64 " queued bios on devices past the first "
			"%d were ignored)\n", wc_btt_ignored(b), WC_MAX_DEVICES);
}

int wc_report_text(FILE *f, const struct wc_analysis *a, struct wc_err *err)
{
	const struct wc_capture_meta *m = wc_analysis_meta(a);
	const struct wc_figures *g = wc_analysis_main(a);
	const struct wc_account *ac = wc_analysis_account(a);
	const struct wc_tracker_stats *st = wc_analysis_tracker_stats(a);
	char b[64], e[WC_ESCAPE_SIZE(sizeof(m->mount_options))], e2[41];
	bool est;
	double rate;

	/* Names and settings are the input's: escaped for a terminal. */
	fprintf(f, "capture %s\n", m->name[0] ?
		wc_escape_text(m->name, e, sizeof(e)) : "(unnamed)");
	fprintf(f, "  fs %s, write cache %s, barriers %s\n",
		m->fs[0] ? wc_escape_text(m->fs, e, sizeof(e)) : "?",
		tristate(m->write_cache, "on", "off"),
		tristate(m->barrier, "on", "off"));
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
		wc_analysis_partial(a) ? ", input ended early: partial" :
		m->complete == 0 ? ", capture incomplete" : "");
	if (!g) {
		fprintf(f, "  no completed I/O in the trace\n");
		return finish(f, err);
	}
	fprintf(f, "  device %s%s, %s\n", devname(m, g->device, b, sizeof(b)),
		m->main_from_conf ? ", the destination" : ", the busiest",
		m->main_rotational == 1 ? "rotational" :
		m->main_rotational == 0 ? "not rotational" :
					  "rotational: unknown");
	if (m->journal_method == WC_JOURNAL_RANGE)
		fprintf(f, "  journal: sectors %" PRIu64 "+%" PRIu64 "\n",
			m->journal_start, m->journal_len);
	else
		fprintf(f, "  journal: guessed from flags (FUA, preflush, or "
			"sync+meta writes)\n");
	fprintf(f, "  window %.6f s, busy %.6f s (%.1f%%)\n\n",
		secs(g->window_ns), secs(wc_figures_busy(g)),
		pct(wc_figures_busy(g), g->window_ns));
	text_categories(f, g);

	fprintf(f, "\n");
	rate = wc_account_media_rate(ac, (size_t)wc_analysis_main_index(a), &est);
	if (g->positioning_known) {
		uint64_t pos_all = g->time_ns[WC_CAT_JOURNAL] +
				   g->time_ns[WC_CAT_METADATA] + data_ns(g);

		fprintf(f, "positioning    %.6f s, %.1f%% of journal+metadata+data"
			" time\n", secs(g->positioning_ns),
			pct(g->positioning_ns, pos_all));
		fprintf(f, "media rate     %.1f MB/s, %s\n", rate / 1e6,
			est ? "estimated from streaming requests" :
			      "given with --media-rate");
		if (m->main_rotational != 1)
			fprintf(f, "  (device %s rotational: positioning is not "
				"seek time)\n",
				m->main_rotational == 0 ? "not" : "maybe not");
	} else {
		fprintf(f, "positioning    unknown: too few streaming requests "
			"to estimate the media rate\n"
			"               (give it with --media-rate)\n");
	}
	fprintf(f, "FUA writes     %" PRIu64 "\n", g->fua_writes);
	text_latency(f, "flush D2C", &g->flush_d2c);
	text_latency(f, "all D2C", &g->d2c);
	fprintf(f, "queue depth    mean %.2f, max %u\n",
		g->window_ns ? (double)g->inflight_ns / (double)g->window_ns : 0,
		g->max_depth);
	text_seeks(f, g);
	if (st->orphan_completions || st->unfinished || st->dropped_inflight ||
	    st->never_dispatched)
		fprintf(f, "lost events    %" PRIu64 " completions without issue,"
			" %" PRIu64 " unfinished,\n               %" PRIu64
			" never issued, %" PRIu64 " forgotten (in-flight cap)\n",
			st->orphan_completions, st->unfinished,
			st->never_dispatched, st->dropped_inflight);
	if (st->ignored_events)
		fprintf(f, "ignored        %" PRIu64 " events on devices past the "
			"first %d\n", st->ignored_events, WC_MAX_DEVICES);
	text_phases(f, a);
	text_waits(f, ac);
	text_btt(f, wc_analysis_btt(a));
	return finish(f, err);
}

/* ---- text, comparison -------------------------------------------------- */

enum { C_WALL, C_BUSY, C_FLUSH, C_JOURNAL, C_META, C_POSN, C_DATA, NCOLS };

static const char *const cmp_head[NCOLS] = {
	"wall", "busy", "flush", "journl", "meta", "posn", "data",
};

/* The compared figures of g over a window of wall_ns, in seconds; < 0
 * when unknown.  g may be NULL: no request completed in the window. */
static void fig_values(const struct wc_figures *g, uint64_t wall_ns,
		       double v[NCOLS])
{
	int i;

	if (!g) {
		for (i = 0; i < NCOLS; i++)
			v[i] = 0;
		v[C_WALL] = secs(wall_ns);
		v[C_POSN] = -1;
		return;
	}
	v[C_WALL] = secs(g->window_ns);
	v[C_BUSY] = secs(wc_figures_busy(g));
	v[C_FLUSH] = secs(g->time_ns[WC_CAT_FLUSH]);
	v[C_JOURNAL] = secs(g->time_ns[WC_CAT_JOURNAL]);
	v[C_META] = secs(g->time_ns[WC_CAT_METADATA]);
	v[C_POSN] = g->positioning_known ? secs(g->positioning_ns) : -1;
	v[C_DATA] = secs(data_ns(g));
}

/* Column values of a whole capture. */
static void cmp_values(const struct wc_analysis *a, double v[NCOLS])
{
	const struct wc_tracker_stats *st = wc_analysis_tracker_stats(a);

	fig_values(wc_analysis_main(a), st->first_time != WC_NO_TIME ?
		   st->last_time - st->first_time : 0, v);
}

/* Column values of phase `name` of a capture; false when it has none. */
static bool phase_values(const struct wc_analysis *a, const char *name,
			 double v[NCOLS])
{
	size_t p;

	for (p = 0; p < wc_analysis_nphases(a); p++) {
		const struct wc_phase_result *ph = wc_analysis_phase(a, p);

		if (!strcmp(ph->name, name)) {
			fig_values(wc_analysis_phase_figures(a, p),
				   ph->end - ph->start, v);
			return true;
		}
	}
	return false;
}

/* The ratio v / base, or < 0 when either is unknown or base is 0 (a
 * ratio to nothing says nothing). */
static double ratio(double v, double base)
{
	return v < 0 || base <= 0 ? -1 : v / base;
}

/* Index of the capture named baseline in *bi (n when baseline is NULL);
 * -1 with err filled when no capture has that name. */
static int find_baseline(struct wc_analysis *const *caps, size_t n,
			 const char *baseline, size_t *bi, struct wc_err *err)
{
	size_t i;

	*bi = n;
	if (!baseline)
		return 0;
	for (i = 0; i < n; i++)
		if (!strcmp(wc_analysis_meta(caps[i])->name, baseline)) {
			*bi = i;
			return 0;
		}
	return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
			  "no capture named '%s' for --baseline", baseline);
}

/* Room for names in an 80-column row: the rest takes 62 columns. */
#define NAME_MAX_W 18

/* The width of the name column, or 0 when a name does not fit (rows are
 * then numbered and the names listed below the table). */
static int name_width(struct wc_analysis *const *caps, size_t n)
{
	size_t i, w = 7;

	for (i = 0; i < n; i++) {
		const struct wc_capture_meta *m = wc_analysis_meta(caps[i]);
		char e[WC_ESCAPE_SIZE(sizeof(m->name))];
		size_t l = strlen(wc_escape_text(m->name, e, sizeof(e)));

		if (l > NAME_MAX_W)
			return 0;
		if (l > w)
			w = l;
	}
	return (int)w;
}

static void cmp_label(struct wc_analysis *const *caps, size_t i, int w,
		      char *buf, size_t size)
{
	if (w)
		wc_escape_text(wc_analysis_meta(caps[i])->name, buf,
			       size < NAME_MAX_W + 1 ? size : NAME_MAX_W + 1);
	else
		snprintf(buf, size, "#%zu", i + 1);
}

static void cmp_head_line(FILE *f, int w)
{
	int c;

	fprintf(f, "%-*s %-4s %-3s %-3s", w ? w : 7, "capture", "fs", "wc",
		"bar");
	for (c = 0; c < NCOLS; c++)
		fprintf(f, " %6s", cmp_head[c]);
	fprintf(f, "\n");
}

static void cmp_row_start(FILE *f, struct wc_analysis *const *caps, size_t i,
			  int w)
{
	const struct wc_capture_meta *m = wc_analysis_meta(caps[i]);
	char label[32], fs[5];

	cmp_label(caps, i, w, label, sizeof(label));
	fprintf(f, "%-*s %-4s %-3s %-3s", w ? w : 7, label,
		m->fs[0] ? wc_escape_text(m->fs, fs, sizeof(fs)) : "?",
		tristate(m->write_cache, "on", "off"),
		tristate(m->barrier, "on", "off"));
}

int wc_report_compare(FILE *f, struct wc_analysis *const *caps, size_t n,
		      const char *baseline, struct wc_err *err)
{
	int w = name_width(caps, n);
	double base[NCOLS];
	size_t i, bi;
	char b[16];
	int c;

	if (find_baseline(caps, n, baseline, &bi, err) < 0)
		return -1;
	fprintf(f, "time on the main device, seconds; wc = write cache, "
		"bar = barriers;\nposn = positioning part of journl+meta+data\n\n");
	cmp_head_line(f, w);
	for (i = 0; i < n; i++) {
		double v[NCOLS];

		cmp_values(caps[i], v);
		cmp_row_start(f, caps, i, w);
		for (c = 0; c < NCOLS; c++)
			fprintf(f, " %6s", v[c] < 0 ? "?" : s6(v[c], b, sizeof(b)));
		fprintf(f, "\n");
	}
	if (bi < n) {
		cmp_values(caps[bi], base);
		fputs("\nratio to ", f);
		wc_escape_text_put(f, baseline);
		fputs("\n", f);
		cmp_head_line(f, w);
		for (i = 0; i < n; i++) {
			double v[NCOLS];

			cmp_values(caps[i], v);
			cmp_row_start(f, caps, i, w);
			for (c = 0; c < NCOLS; c++) {
				double r = ratio(v[c], base[c]);

				if (r < 0)
					fprintf(f, " %6s", "-");
				else
					fprintf(f, " %6.2f", r);
			}
			fprintf(f, "\n");
		}
	}
	if (!w) {
		fprintf(f, "\n");
		for (i = 0; i < n; i++) {
			fprintf(f, "#%zu ", i + 1);
			wc_escape_text_put(f, wc_analysis_meta(caps[i])->name);
			fputs("\n", f);
		}
	}
	return finish(f, err);
}

/* ---- JSON -------------------------------------------------------------- */

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

static void json_bool3(FILE *f, int v)
{
	fputs(v == 1 ? "true" : v == 0 ? "false" : "null", f);
}

static void json_cats_s(FILE *f, const struct wc_figures *g)
{
	int c;

	fprintf(f, "{\"idle\": %.9f", g ? secs(g->idle_ns) : 0.0);
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ", \"%s\": %.9f", wc_cat_name((enum wc_cat)c),
			g ? secs(g->time_ns[c]) : 0.0);
	fputc('}', f);
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
		secs(l->min), secs(l->p50), secs(l->p90), secs(l->p99),
		secs(l->max));
}

/* The figures every device (and the capture itself) carries. */
static void json_figures(FILE *f, const struct wc_figures *g,
			 const struct wc_account *ac, int idx, const char *ind)
{
	bool est = false;
	double rate = idx >= 0 ? wc_account_media_rate(ac, (size_t)idx, &est) : 0;
	int k, first = 1;

	fprintf(f, "%s\"window_s\": %.9f,\n", ind, g ? secs(g->window_ns) : 0.0);
	fprintf(f, "%s\"time_s\": ", ind);
	json_cats_s(f, g);
	fprintf(f, ",\n%s\"positioning_s\": ", ind);
	if (g && g->positioning_known)
		fprintf(f, "%.9f", secs(g->positioning_ns));
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
	json_cats_u(f, g ? g->requests : NULL);
	fprintf(f, ",\n%s\"bytes\": ", ind);
	json_cats_u(f, g ? g->bytes : NULL);
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
		g && g->window_ns ? (double)g->inflight_ns / (double)g->window_ns :
				    0.0, g ? g->max_depth : 0);
}

static void json_btt_stat(FILE *f, const struct wc_btt_stat *s)
{
	if (!s->n) {
		fprintf(f, "{\"n\": 0, \"min\": null, \"mean\": null, "
			"\"max\": null}");
		return;
	}
	fprintf(f, "{\"n\": %" PRIu64 ", \"min\": %.9f, \"mean\": %.9f, "
		"\"max\": %.9f}", s->n, secs(s->min), wc_btt_mean_s(s),
		secs(s->max));
}

/* Keys of the compared figures, in column order (docs/json-format.md). */
static const char *const ratio_key[NCOLS] = {
	"wall", "busy", "flush", "journal", "metadata", "positioning", "data",
};

static void json_ratios(FILE *f, const double v[NCOLS],
			const double base[NCOLS])
{
	int c;

	fputc('{', f);
	for (c = 0; c < NCOLS; c++) {
		double r = ratio(v[c], base[c]);

		fprintf(f, "%s\"%s\": ", c ? ", " : "", ratio_key[c]);
		if (r < 0)
			fputs("null", f);
		else
			fprintf(f, "%.6f", r);
	}
	fputc('}', f);
}

/* base: the baseline capture, or NULL without --baseline. */
static void json_capture(FILE *f, const struct wc_analysis *a,
			 const struct wc_analysis *base)
{
	const struct wc_capture_meta *m = wc_analysis_meta(a);
	const struct wc_account *ac = wc_analysis_account(a);
	const struct wc_figures *g = wc_analysis_main(a);
	const struct wc_btt *b = wc_analysis_btt(a);
	const struct wc_tracker_stats *st = wc_analysis_tracker_stats(a);
	size_t i, j, n = wc_account_ndevices(ac);
	char dev[32];

	fprintf(f, "    {\n      \"name\": ");
	json_str(f, m->name);
	fprintf(f, ",\n      \"fs\": ");
	if (m->fs[0])
		json_str(f, m->fs);
	else
		fputs("null", f);
	fprintf(f, ",\n      \"write_cache\": ");
	json_bool3(f, m->write_cache);
	fprintf(f, ",\n      \"barrier\": ");
	json_bool3(f, m->barrier);
	fprintf(f, ",\n      \"complete\": ");
	json_bool3(f, m->complete);
	fprintf(f, ",\n      \"partial\": %s",
		wc_analysis_partial(a) ? "true" : "false");
	fprintf(f, ",\n      \"kernel\": ");
	json_opt_str(f, m->kernel);
	fprintf(f, ",\n      \"recorder\": ");
	json_opt_str(f, m->recorder);
	fprintf(f, ",\n      \"mount_options\": ");
	json_opt_str(f, m->mount_options);
	fprintf(f, ",\n      \"events\": %" PRIu64, m->events);
	fprintf(f, ",\n      \"events_dropped\": ");
	if (m->events_dropped >= 0)
		fprintf(f, "%" PRId64, m->events_dropped);
	else
		fputs("null", f);
	fprintf(f, ",\n      \"device\": ");
	if (g) {
		snprintf(dev, sizeof(dev), "%u,%u", WC_DEV_MAJOR(g->device),
			 WC_DEV_MINOR(g->device));
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
	else
		fprintf(f, "null, \"sectors\": null}");
	fprintf(f, ",\n");
	json_figures(f, g, ac, wc_analysis_main_index(a), "      ");

	fprintf(f, ",\n      \"devices\": [");
	for (i = 0; i < n; i++) {
		const struct wc_figures *d = wc_account_device(ac, i);
		const char *name = NULL;

		for (j = 0; j < m->ndevices; j++)
			if (m->devices[j].device == d->device &&
			    m->devices[j].name[0])
				name = m->devices[j].name;
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
		json_figures(f, d, ac, (int)i, "          ");
		fprintf(f, "\n        }");
	}
	fprintf(f, "%s],\n      \"phases\": [", n ? "\n      " : "");
	for (i = 0; i < wc_analysis_nphases(a); i++) {
		const struct wc_phase_result *p = wc_analysis_phase(a, i);
		const struct wc_figures *pg = wc_analysis_phase_figures(a, i);

		fprintf(f, "%s\n        {\"name\": ", i ? "," : "");
		json_str(f, p->name);
		fprintf(f, ", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
			", \"wall_s\": %.9f,\n         \"time_s\": ",
			p->start, p->end, p->wall_s);
		if (pg) {
			json_cats_s(f, pg);
		} else {
			/* No I/O at all: the phase was all idle. */
			struct wc_figures idle = { 0 };

			idle.idle_ns = p->end - p->start;
			json_cats_s(f, &idle);
		}
		fprintf(f, ",\n         \"positioning_s\": ");
		if (pg && pg->positioning_known)
			fprintf(f, "%.9f", secs(pg->positioning_ns));
		else
			fputs("null", f);
		fprintf(f, ",\n         \"requests\": ");
		json_cats_u(f, pg ? pg->requests : NULL);
		fprintf(f, ",\n         \"bytes\": ");
		json_cats_u(f, pg ? pg->bytes : NULL);
		if (base) {
			double v[NCOLS], bv[NCOLS];

			fprintf(f, ",\n         \"ratio_to_baseline\": ");
			fig_values(pg, p->end - p->start, v);
			if (phase_values(base, p->name, bv))
				json_ratios(f, v, bv);
			else
				fputs("null", f);
		}
		fprintf(f, "}");
	}
	fprintf(f, "%s],\n      \"tracking\": {\"orphan_completions\": %"
		PRIu64 ", \"unfinished\": %" PRIu64 ", \"never_dispatched\": %"
		PRIu64 ", \"dropped_inflight\": %" PRIu64
		", \"sequence_ends\": %" PRIu64 ", \"ignored_events\": %" PRIu64
		"}",
		wc_analysis_nphases(a) ? "\n      " : "", st->orphan_completions,
		st->unfinished, st->never_dispatched, st->dropped_inflight,
		st->sequence_ends, st->ignored_events);
	fprintf(f, ",\n      \"btt\": {\"q2c\": ");
	json_btt_stat(f, wc_btt_q2c(b));
	fprintf(f, ", \"d2c\": ");
	json_btt_stat(f, wc_btt_d2c(b));
	fprintf(f, ", \"forgotten\": %" PRIu64 ", \"ignored\": %" PRIu64 "}",
		wc_btt_dropped(b), wc_btt_ignored(b));
	if (base) {
		double v[NCOLS], bv[NCOLS];

		cmp_values(a, v);
		cmp_values(base, bv);
		fprintf(f, ",\n      \"ratio_to_baseline\": ");
		json_ratios(f, v, bv);
	}
	fprintf(f, "\n    }");
}

int wc_report_json(FILE *f, struct wc_analysis *const *caps, size_t n,
		   const char *baseline, struct wc_err *err)
{
	size_t i, bi;

	if (find_baseline(caps, n, baseline, &bi, err) < 0)
		return -1;
	fprintf(f, "{\n  \"format\": \"wcanalyze\",\n  \"version\": 1,\n");
	if (bi < n) {
		fprintf(f, "  \"baseline\": ");
		json_str(f, baseline);
		fprintf(f, ",\n");
	}
	fprintf(f, "  \"captures\": [");
	for (i = 0; i < n; i++) {
		fprintf(f, "%s\n", i ? "," : "");
		json_capture(f, caps[i], bi < n ? caps[bi] : NULL);
	}
	fprintf(f, "%s]\n}\n", n ? "\n  " : "");
	return finish(f, err);
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_str(FILE *f, const char *s)
{
	wc_escape_csv(f, s);
}

/* base: the baseline's values for this row (ratio columns), NULL for
 * none; no_base: a baseline was given but has nothing to compare with
 * (empty ratio columns). */
static void csv_row(FILE *f, const struct wc_analysis *a, const char *phase,
		    const struct wc_figures *g, uint64_t window_ns,
		    const double *base, bool no_base)
{
	const struct wc_capture_meta *m = wc_analysis_meta(a);
	int c;

	csv_str(f, m->name);
	fputc(',', f);
	csv_str(f, phase);
	fprintf(f, ",");
	csv_str(f, m->fs);
	fprintf(f, ",%s,%s,%.9f,%.9f", m->write_cache < 0 ? "" :
		m->write_cache ? "on" : "off", m->barrier < 0 ? "" :
		m->barrier ? "on" : "off", secs(window_ns),
		g ? secs(g->idle_ns) : secs(window_ns));
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",%.9f", g ? secs(g->time_ns[c]) : 0.0);
	if (g && g->positioning_known)
		fprintf(f, ",%.9f", secs(g->positioning_ns));
	else
		fprintf(f, ",");
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",%" PRIu64, g ? g->requests[c] : 0);
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",%" PRIu64, g ? g->bytes[c] : 0);
	if (base || no_base) {
		double v[NCOLS];

		fig_values(g, window_ns, v);
		for (c = 0; c < NCOLS; c++) {
			double r = base ? ratio(v[c], base[c]) : -1;

			if (r < 0)
				fprintf(f, ",");
			else
				fprintf(f, ",%.6f", r);
		}
	}
	fprintf(f, "\n");
}

int wc_report_csv(FILE *f, struct wc_analysis *const *caps, size_t n,
		  const char *baseline, struct wc_err *err)
{
	const struct wc_analysis *base;
	size_t i, p, bi;
	int c;

	if (find_baseline(caps, n, baseline, &bi, err) < 0)
		return -1;
	base = bi < n ? caps[bi] : NULL;
	fprintf(f, "capture,phase,fs,write_cache,barrier,window_s,idle_s");
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",%s_s", wc_cat_name((enum wc_cat)c));
	fprintf(f, ",positioning_s");
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",requests_%s", wc_cat_name((enum wc_cat)c));
	for (c = 0; c < WC_NCAT; c++)
		fprintf(f, ",bytes_%s", wc_cat_name((enum wc_cat)c));
	/* Only with a baseline, so the default columns never change. */
	for (c = 0; base && c < NCOLS; c++)
		fprintf(f, ",ratio_%s", ratio_key[c]);
	fprintf(f, "\n");
	for (i = 0; i < n; i++) {
		const struct wc_analysis *a = caps[i];
		const struct wc_figures *g = wc_analysis_main(a);
		double bv[NCOLS];

		if (base)
			cmp_values(base, bv);
		csv_row(f, a, "all", g, g ? g->window_ns : 0, base ? bv : NULL,
			false);
		for (p = 0; p < wc_analysis_nphases(a); p++) {
			const struct wc_phase_result *ph = wc_analysis_phase(a, p);
			bool have = base && phase_values(base, ph->name, bv);

			csv_row(f, a, ph->name, wc_analysis_phase_figures(a, p),
				ph->end - ph->start, have ? bv : NULL,
				base && !have);
		}
	}
	return finish(f, err);
}

int wc_report_write(FILE *f, enum wc_format fmt,
		    struct wc_analysis *const *caps, size_t n,
		    const char *baseline, struct wc_err *err)
{
	switch (fmt) {
	case WC_FORMAT_JSON:
		return wc_report_json(f, caps, n, baseline, err);
	case WC_FORMAT_CSV:
		return wc_report_csv(f, caps, n, baseline, err);
	default:
		if (n == 1 && !baseline)
			return wc_report_text(f, caps[0], err);
		return wc_report_compare(f, caps, n, baseline, err);
	}
}
