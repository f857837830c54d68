/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compare/findings.h"
#include "base/numfmt.h"
#include "compare/summary.h"
#include "compare/stats.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct wc_finding *finding(struct wc_summary *s,
				  enum wc_finding_kind kind)
{
	struct wc_finding *f = &s->findings[s->nfindings++];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	return f;
}

static void num(struct wc_finding *f, const char *key, double v)
{
	if (f->nnums < WC_FINDING_MAX_NUMS) {
		f->num[f->nnums].key = key;
		f->num[f->nnums++].value = v;
	}
}

static void str(struct wc_finding *f, const char *key, const char *v)
{
	if (f->nstrs < WC_FINDING_MAX_STRS) {
		f->str[f->nstrs].key = key;
		snprintf(f->str[f->nstrs++].value, sizeof(f->str[0].value),
			 "%s", v);
	}
}

static void __attribute__((format(printf, 2, 3)))
say(struct wc_finding *f, const char *fmt, ...)
{
	size_t len = strlen(f->text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->text + len, sizeof(f->text) - len, fmt, ap);
	va_end(ap);
}

/* Who: "The slowest capture, NAME (group #G, run R)," or "NAME" alone. */
static void subject(const struct wc_summary *s, const struct wc_sum_capture *c,
		    char *buf, size_t size)
{
	char run[48] = "";

	if (c->meta->run > 0)
		snprintf(run, sizeof(run), ", run %d", c->meta->run);
	if (s->ncaps > 1)
		snprintf(buf, size, "The slowest capture, %s (group #%zu%s),",
			 c->meta->name, c->group + 1, run);
	else
		snprintf(buf, size, "%s", c->meta->name[0] ? c->meta->name :
			 "The capture");
}

/* The main device's name for sentences: of one disk of partitions,
 * "the disk loop1+loop2". */
static const char *main_name(const struct wc_sum_capture *c)
{
	if (c->nparts && c->main == &c->disk)
		return c->disk_said;
	return c->main && c->main->name ? c->main->name : "the main device";
}

/* The main device's name as a key's value: "loop1+loop2" for a disk. */
static const char *main_key(const struct wc_sum_capture *c)
{
	return c->main && c->main->name ? c->main->name : main_name(c);
}

/* Whether device i is one of the main disk's partitions: the same
 * spindle, never "another device". */
static bool on_main_disk(const struct wc_sum_capture *c, size_t i)
{
	size_t k;

	for (k = 0; c->main == &c->disk && k < c->nparts; k++)
		if (c->parts[k].device == c->devices[i].device)
			return true;
	return false;
}

static void find_most_time(struct wc_summary *s, const struct wc_sum_capture *c)
{
	struct wc_finding *f = finding(s, WC_FIND_MOST_TIME);
	const struct wc_sum_figs *g = &c->figs;
	char who[320];
	int k, best = 0;

	subject(s, c, who, sizeof(who));
	for (k = 1; k < WC_NCAT; k++)
		if (g->part_ns[k] > g->part_ns[best])
			best = k;
	str(f, "capture", c->meta->name);
	str(f, "device", main_key(c));
	num(f, "wall_s", wc_secs(g->wall_ns));
	say(f, "%s took %.3f s in the trace's window", who, wc_secs(g->wall_ns));
	if (c->command_wall_s >= 0) {
		num(f, "command_wall_s", c->command_wall_s);
		say(f, " (its command ran %.3f s, phases.tsv)", c->command_wall_s);
	}
	if (!g->part_ns[best]) {
		say(f, ", and no request completed on its main device.");
		return;
	}
	str(f, "category", wc_part_key(best));
	num(f, "time_s", wc_secs(g->part_ns[best]));
	num(f, "share", pct(g->part_ns[best], g->wall_ns) / 100);
	say(f, "; of the time of %s, %s took most: %.3f s, %.1f %% of the "
	    "wall.", main_name(c), wc_part_label(best), wc_secs(g->part_ns[best]),
	    pct(g->part_ns[best], g->wall_ns));
	/* Why it took that long: positioning against transfer. */
	if (best != WC_CAT_FLUSH && best != WC_CAT_DISCARD &&
	    best != WC_CAT_OTHER && c->meas[WC_MEAS_POSITIONING] >= 0) {
		num(f, "positioning_s", c->meas[WC_MEAS_POSITIONING]);
		num(f, "transfer_s", c->meas[WC_MEAS_TRANSFER]);
		say(f, " Of journal, metadata and data together%s, "
		    "positioning (seeks and rotation) took %.3f s (%.0f %%) "
		    "and transfer %.3f s.",
		    c->figs.destage_s[0] + c->figs.destage_s[1] > 0 ?
		    " with the flushes' destage" : "",
		    c->meas[WC_MEAS_POSITIONING], c->positioning_pct,
		    c->meas[WC_MEAS_TRANSFER]);
	}
}

/* "NAME" of the traced devices but the main one, up to three, with
 * their count; "" when there are none. */
static size_t other_devices(const struct wc_sum_capture *c, char *buf,
			    size_t size)
{
	size_t i, n = 0, len = 0;

	buf[0] = '\0';
	for (i = 0; i < c->ndevices; i++) {
		if (&c->devices[i] == c->main || on_main_disk(c, i))
			continue;
		if (n < 3 && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						n ? ", " : "",
						c->devices[i].name ?
						c->devices[i].name : "unnamed");
		n++;
	}
	if (n > 3 && len < size)
		snprintf(buf + len, size - len, " and %zu more", n - 3);
	return n;
}

static bool host_value(const char *host, const char *key, char *buf,
		       size_t size);

/* What the host's load says of the time off the device the trace cannot
 * see (capture.conf host_loadavg_before, host_cpus): the load before the
 * command is other work's, runnable or in uninterruptible sleep; as many
 * such tasks as CPUs leave the command waiting for one. */
static void say_load(struct wc_finding *f, const struct wc_sum_capture *c)
{
	double load = c->meta->load_before;
	char v[32], *end;
	long cpus = 0;

	if (load < 0)
		return;
	if (host_value(c->meta->host, "host_cpus", v, sizeof(v))) {
		cpus = strtol(v, &end, 10);
		if (*end || cpus <= 0 || cpus > 1 << 20)
			cpus = 0;
	}
	num(f, "load_before", load);
	if (!cpus) {
		say(f, " The load average before the command was %.2f "
		    "(capture.conf; the host's CPUs are not recorded).", load);
		return;
	}
	num(f, "host_cpus", (double)cpus);
	if (load >= (double)cpus)
		say(f, " The load average before the command was %.2f on %ld "
		    "CPU%s (capture.conf): with as many tasks runnable or in "
		    "uninterruptible sleep as CPUs, the command likely waited "
		    "for a CPU for part of that time.", load, cpus,
		    cpus == 1 ? "" : "s");
	else
		say(f, " The load average before the command was %.2f on %ld "
		    "CPU%s (capture.conf): with CPUs free, little of that time "
		    "was waiting for a CPU; the page cache (write-back "
		    "throttling) or the command sleeping is likelier, which "
		    "the trace cannot tell apart.", load, cpus,
		    cpus == 1 ? "" : "s");
}

static void find_idle(struct wc_summary *s, const struct wc_sum_capture *c)
{
	struct wc_finding *f = finding(s, WC_FIND_DEVICE_IDLE);
	uint64_t idle = c->figs.part_ns[WC_PART_IDLE];
	double other = c->meas[WC_MEAS_OFF_OTHER];
	char devs[200];
	size_t nd = other_devices(c, devs, sizeof(devs));

	str(f, "capture", c->meta->name);
	str(f, "device", main_key(c));
	num(f, "idle_s", wc_secs(idle));
	num(f, "wall_s", wc_secs(c->figs.wall_ns));
	num(f, "share", pct(idle, c->figs.wall_ns) / 100);
	num(f, "other_device_s", other);
	say(f, "In %s, %s was idle for %.3f s (%.1f %% of the wall)",
	    c->meta->name, main_name(c), wc_secs(idle), pct(idle, c->figs.wall_ns));
	if (c->figs.outstanding_ns) {
		num(f, "outstanding_s", wc_secs(c->figs.outstanding_ns));
		say(f, " and had requests outstanding that never completed for "
		    "%.3f s more (%.1f %%)", wc_secs(c->figs.outstanding_ns),
		    pct(c->figs.outstanding_ns, c->figs.wall_ns));
	}
	if (nd) {
		str(f, "other_devices", devs);
		say(f, ": the other traced device%s (%s) %s busy for %.3f s of "
		    "it", nd == 1 ? "" : "s", devs, nd == 1 ? "was" : "were",
		    other);
	} else if (c->nparts && c->main == &c->disk) {
		/* Its partitions are the disk: idle means all of them. */
		say(f, ": none of its %zu partitions had a request at the "
		    "disk then", c->nparts);
	} else if (c->filter && c->meta->ndevices > 1) {
		/* The filter left the others out, not the recording. */
		say(f, ": no other traced device's I/O passed the filter (%s)",
		    c->filter);
	} else if (c->meta->ndevices > 1) {
		say(f, ": no other traced device had I/O");
	} else {
		say(f, ": no other device was traced");
	}
	if (c->meas[WC_MEAS_OFF_CPU] >= 0) {
		num(f, "cpu_s", c->meas[WC_MEAS_OFF_CPU]);
		num(f, "rest_s", c->meas[WC_MEAS_OFF_REST]);
		say(f, "; the command's CPU time (user + sys, phases.tsv: %.3f s) "
		    "accounts for %.3f s of %s; %.3f s remain off the device: not "
		    "seen by the block layer.", c->command_cpu_s,
		    c->meas[WC_MEAS_OFF_CPU], nd ? "the rest" : "it",
		    c->meas[WC_MEAS_OFF_REST]);
	} else if (c->cpu_cut) {
		str(f, "window_cuts_phase", c->cpu_cut);
		say(f, "; %s is off the device: not seen by the block layer "
		    "(the window cuts phase %s, whose CPU time phases.tsv "
		    "gives only whole).", nd ? "the rest" : "all of it",
		    c->cpu_cut);
	} else {
		say(f, "; %s is off the device: not seen by the block layer "
		    "(phases.tsv gives no CPU time to take from it).",
		    nd ? "the rest" : "all of it");
	}
	if (c->figs.internal_known && c->figs.part_ns[WC_PART_INTERNAL]) {
		/* The ledger saw the disk work when no request was there:
		 * busy time of its own, neither idle nor off the device. */
		num(f, "destage_no_request_s",
		    wc_secs(c->figs.part_ns[WC_PART_INTERNAL]));
		say(f, " Besides, for %.3f s (%.1f %% of the wall) the drive "
		    "destaged its write cache with no request (its ledger): "
		    "busy time of its own, counted in its busy time, not as "
		    "idle.", wc_secs(c->figs.part_ns[WC_PART_INTERNAL]),
		    pct(c->figs.part_ns[WC_PART_INTERNAL], c->figs.wall_ns));
	}
	say_load(f, c);
}

/* How many configurations had flushes, and the most flush time of one
 * (its group in *most). */
static size_t groups_with_flushes(const struct wc_summary *s, size_t *most)
{
	size_t g, n = 0;

	*most = 0;
	for (g = 0; g < s->ngroups; g++) {
		if (s->groups[g].part[WC_CAT_FLUSH].max > 0)
			n++;
		if (s->groups[g].part[WC_CAT_FLUSH].mean >
		    s->groups[*most].part[WC_CAT_FLUSH].mean)
			*most = g;
	}
	return n;
}

static void find_flushes(struct wc_summary *s, const struct wc_sum_capture *c)
{
	struct wc_finding *f = finding(s, WC_FIND_FLUSHES);
	const struct wc_figures *g = wc_capsule_main(c->cap);
	const struct wc_capsule *cap = c->cap;
	uint64_t n = g ? g->requests[WC_CAT_FLUSH] : 0, jbd = 0;
	uint64_t t = c->figs.part_ns[WC_CAT_FLUSH];
	char who[256] = "", a[WC_NUMFMT_SIZE], b[WC_NUMFMT_SIZE];
	size_t k, nf, len = 0, most, nwith;

	str(f, "capture", c->meta->name);
	num(f, "count", (double)n);
	num(f, "time_s", wc_secs(t));
	num(f, "share", pct(t, c->figs.wall_ns) / 100);
	if (!n) {
		if (c->filter)
			/* Flushes may have reached it, none the filter's. */
			say(f, "No cache flush to the main device of %s "
			    "passed the filter (%s)", c->meta->name, c->filter);
		else
			say(f, "No cache flush reached the main device of %s",
			    c->meta->name);
		nwith = s->ngroups > 1 ? groups_with_flushes(s, &most) : 0;
		if (nwith) {
			num(f, "groups_with_flushes", (double)nwith);
			say(f, "; across the comparison, %zu of %zu configurations "
			    "had flushes (the most: group #%zu, %.3f s a run)",
			    nwith, s->ngroups, most + 1,
			    s->groups[most].part[WC_CAT_FLUSH].mean);
		}
		say(f, ".");
		return;
	}
	nf = cap->nflushers;
	for (k = 0; k < nf; k++) {
		const struct wc_wait *w = &cap->flushers[k];

		if (!strncmp(w->comm, "jbd2/", 5))
			jbd += w->requests;
		if (k < 3 && len < sizeof(who))
			len += (size_t)snprintf(who + len, sizeof(who) - len,
						"%s%s (%llu)", k ? ", " : "",
						w->comm,
						(unsigned long long)w->requests);
	}
	if (nf > 3 && len < sizeof(who))
		snprintf(who + len, sizeof(who) - len, " and %zu more", nf - 3);
	say(f, "In %s, %llu cache flush%s", c->meta->name,
	    (unsigned long long)n, n == 1 ? "" : "es");
	if (g->flush_d2c.n) {
		num(f, "p50_s", wc_secs(g->flush_d2c.p50));
		num(f, "p99_s", wc_secs(g->flush_d2c.p99));
		say(f, " x median %s ms (p99 %s ms)",
		    wc_fmt_ms(g->flush_d2c.p50, a, sizeof(a)),
		    wc_fmt_ms(g->flush_d2c.p99, b, sizeof(b)));
	}
	say(f, " took %.3f s (%.1f %% of the wall)", wc_secs(t),
	    pct(t, c->figs.wall_ns));
	if (nf == 1 && !strcmp(cap->flushers[0].comm,
			       "(unknown)")) {
		/* A trace without process names (no notify records). */
		say(f, "; the trace does not name the processes that issued "
		    "them");
	} else if (who[0]) {
		str(f, "issued_by", who);
		say(f, "; issued by %s", who);
	}
	if (jbd) {
		num(f, "journal_commits", (double)jbd);
		say(f, "; jbd2's %llu are its journal commits",
		    (unsigned long long)jbd);
	}
	say(f, ".");
}

/* A test's verdict in a sentence's parentheses: wc_test_words(), with
 * the runs that would decide it spelt out. */
static const char *sentence_words(const struct wc_test *t, char *buf,
				  size_t size)
{
	if (t->verdict != WC_VERDICT_UNDECIDED)
		return wc_test_words(t, buf, size);
	if (!t->has_interval)
		snprintf(buf, size, "not decided: one run a side");
	else if (!t->runs_needed)
		snprintf(buf, size, "not decided");
	else if (t->runs_needed > WC_RUNS_NEEDED_MAX)
		snprintf(buf, size, "not decided: over %d runs a side would "
			 "decide it", WC_RUNS_NEEDED_MAX);
	else
		snprintf(buf, size, "not decided: %zu runs a side would "
			 "decide it", t->runs_needed);
	return buf;
}

/* What the bound X of "no larger than X" is, in words. */
static void say_bound(struct wc_finding *f, const struct wc_summary *s)
{
	if (s->equiv_s > 0)
		say(f, "the bound set by --equivalence");
	else
		say(f, "%g %% of the baseline's wall", s->equiv_share * 100);
}

/* The sentences on group g's verdicts against its baseline group: the
 * one on the device's time with what it excludes, the wall's beside. */
static void say_verdict(struct wc_finding *f, const struct wc_summary *s,
			const struct wc_sum_group *g)
{
	const struct wc_test *d = &g->test[WC_MEAS_BUSY];
	const struct wc_test *w = &g->test[WC_MEAS_WALL];
	const struct wc_sum_group *b = &s->groups[g->base];
	char words[96];

	if (s->replay) {
		/* Replays have no spread: nothing to test, and no verdict
		 * on runs that would mean something here.  What bounds
		 * the prediction is the model's error on the recording. */
		int64_t e = s->groups[s->recorded_group].diff.wall_ns;

		str(f, "verdict", "prediction");
		say(f, " A replay is deterministic: this is the model's "
		    "prediction for this capture, with no run-to-run spread "
		    "to test");
		if (s->recorded_group != g->base &&
		    llabs(g->diff.wall_ns) <= llabs(e))
			say(f, "; it is no larger than the model's error on "
			    "the recording (%.3f s), so only a recording can "
			    "confirm it", fabs(ssecs(e)));
		say(f, ".");
		return;
	}
	str(f, "verdict", wc_verdict_key(g->verdict));
	str(f, "wall_verdict", wc_verdict_key(g->wall_verdict));
	num(f, "busy_s", d->diff_s);
	num(f, "bound_s", g->equiv_s);
	if (!d->has_interval) {
		say(f, " It is not decided: with %zu and %zu runs there is no "
		    "spread to test against; record each configuration at "
		    "least twice, three times or more for a small "
		    "difference.", g->n, b->n);
		return;
	}
	num(f, "busy_lo_s", d->lo_s);
	num(f, "busy_hi_s", d->hi_s);
	say(f, " On the device's time (%+.3f s, 95 %% interval %+.3f to "
	    "%+.3f s, Welch's t-test, %zu and %zu runs) it is ", d->diff_s,
	    d->lo_s, d->hi_s, g->n, b->n);
	if (g->verdict == WC_VERDICT_REAL) {
		say(f, "real: the disk's work changed (the interval "
		    "excludes 0)");
	} else if (g->verdict == WC_VERDICT_BOUNDED) {
		say(f, "no larger than +-%.3f s (", g->equiv_s);
		say_bound(f, s);
		say(f, "): its 90 %% interval, %+.3f to %+.3f s, lies inside",
		    d->lo90_s, d->hi90_s);
	} else {
		num(f, "runs_needed", (double)d->runs_needed);
		say(f, "not decided: it excludes neither 0 nor a change over "
		    "+-%.3f s (", g->equiv_s);
		say_bound(f, s);
		say(f, ")");
		if (d->runs_needed > WC_RUNS_NEEDED_MAX)
			say(f, ", and over %d runs a side would be needed at "
			    "this spread", WC_RUNS_NEEDED_MAX);
		else if (d->runs_needed)
			say(f, "; %zu runs a side would decide it at this "
			    "spread", d->runs_needed);
	}
	say(f, "; the wall's difference (%+.3f s, %+.3f to %+.3f s) is %s.",
	    w->diff_s, w->lo_s, w->hi_s, sentence_words(w, words,
						       sizeof(words)));
}

/* The mean over group g's runs of a main-device count: flushes, journal
 * writes; and the mean median flush D2C in ns (0 without one). */
static double mean_requests(const struct wc_summary *s,
			    const struct wc_sum_group *g, int cat)
{
	const struct wc_find_group *fg =
		&s->find->g[(size_t)(g - s->groups)];

	return g->n ? fg->requests[cat] / (double)g->n : 0;
}

static double mean_flush_p50(const struct wc_summary *s,
			     const struct wc_sum_group *g)
{
	const struct wc_find_group *fg =
		&s->find->g[(size_t)(g - s->groups)];

	return fg->p50_n ? fg->p50_sum / (double)fg->p50_n : 0;
}

/* Why the main part moved: flushes as count x median cost, journal
 * writes as a count, positioning against transfer. */
static void say_subcause(struct wc_finding *f, const struct wc_summary *s,
			 const struct wc_sum_group *g, int p)
{
	const struct wc_sum_group *b = &s->groups[g->base];
	const struct wc_test *pos = &g->test[WC_MEAS_POSITIONING];
	const struct wc_test *tr = &g->test[WC_MEAS_TRANSFER];

	if (p == WC_CAT_FLUSH) {
		double n = mean_requests(s, g, WC_CAT_FLUSH);
		double nb = mean_requests(s, b, WC_CAT_FLUSH);

		num(f, "flushes", n);
		num(f, "baseline_flushes", nb);
		say(f, " Flushes: %.0f x median %.2f ms a run, against %.0f x "
		    "%.2f ms.", n, mean_flush_p50(s, g) / 1e6, nb,
		    mean_flush_p50(s, b) / 1e6);
	} else if (p == WC_CAT_JOURNAL) {
		say(f, " Journal writes: %.0f a run, against %.0f.",
		    mean_requests(s, g, WC_CAT_JOURNAL),
		    mean_requests(s, b, WC_CAT_JOURNAL));
	}
	if ((p == WC_CAT_JOURNAL || p == WC_CAT_METADATA ||
	     p == WC_CAT_DATA_READ || p == WC_CAT_DATA_WRITE) &&
	    pos->known && tr->known) {
		char wp[96], wt[96];

		num(f, "positioning_s", pos->diff_s);
		num(f, "transfer_s", tr->diff_s);
		if (s->replay)
			say(f, " Of journal, metadata and data, positioning "
			    "(seeks and rotation) moved %+.3f s and transfer "
			    "%+.3f s.", pos->diff_s, tr->diff_s);
		else
			say(f, " Of journal, metadata and data, positioning "
			    "(seeks and rotation) moved %+.3f s (%s) and "
			    "transfer %+.3f s (%s).", pos->diff_s,
			    sentence_words(pos, wp, sizeof(wp)), tr->diff_s,
			    sentence_words(tr, wt, sizeof(wt)));
	}
}

/* Where the time off the device moved: the command's CPU time, another
 * traced device busy (the source), the rest; each with its verdict. */
static void say_off_split(struct wc_finding *f, const struct wc_sum_group *g)
{
	const struct wc_test *cpu = &g->test[WC_MEAS_OFF_CPU];
	const struct wc_test *other = &g->test[WC_MEAS_OFF_OTHER];
	const struct wc_test *rest = &g->test[WC_MEAS_OFF_REST];
	char wc[96], wo[96], wr[96];

	if (!cpu->known || !other->known || !rest->known)
		return;
	num(f, "off_cpu_s", cpu->diff_s);
	num(f, "off_other_s", other->diff_s);
	num(f, "off_rest_s", rest->diff_s);
	say(f, " Off the device, the command's CPU time moved %+.3f s (%s), "
	    "another traced device's busy time %+.3f s (%s) and the rest (off "
	    "the device, not seen by the block layer) %+.3f s (%s).", cpu->diff_s,
	    sentence_words(cpu, wc, sizeof(wc)), other->diff_s,
	    sentence_words(other, wo, sizeof(wo)), rest->diff_s,
	    sentence_words(rest, wr, sizeof(wr)));
}

/* When the difference is mostly off the device, what moved on it: its
 * largest part, with that part's sub-cause. */
static void say_device_cause(struct wc_finding *f, const struct wc_summary *s,
			     const struct wc_sum_group *g)
{
	int q, best = -1;

	for (q = 0; q < WC_NCAT; q++)
		if (g->diff.part_ns[q] &&
		    (best < 0 || llabs(g->diff.part_ns[q]) >
					 llabs(g->diff.part_ns[best])))
			best = q;
	if (best < 0)
		return;
	str(f, "device_cause", wc_part_key(best));
	num(f, "device_cause_s", ssecs(g->diff.part_ns[best]));
	say(f, " On the device, mostly %s: %+.3f s.", wc_part_label(best),
	    ssecs(g->diff.part_ns[best]));
	say_subcause(f, s, g, best);
}

/* "1, 2, 3" of group g's run numbers, or "N runs" when one is unknown
 * or the list does not fit: a list cut short would name runs that are
 * not the ones used (run 42 cut to 4). */
static void runs_of(const struct wc_summary *s, size_t g, char *buf,
		    size_t size)
{
	const struct wc_sum_group *gr = &s->groups[g];
	const struct wc_find_group *fg = &s->find->g[g];

	if (fg->unnumbered || fg->runs_len >= sizeof(fg->runs) ||
	    fg->runs_len >= size)
		snprintf(buf, size, "%zu run%s", gr->n, gr->n == 1 ? "" : "s");
	else
		snprintf(buf, size, "%s", fg->runs);
}

/* Which runs the finding used: group gi's and its baseline's. */
static void say_runs(struct wc_finding *f, const struct wc_summary *s,
		     size_t gi)
{
	char a[128], b[128];

	runs_of(s, gi, a, sizeof(a));
	runs_of(s, s->groups[gi].base, b, sizeof(b));
	str(f, "runs_used", a);
	str(f, "baseline_runs_used", b);
	say(f, " Runs used: %s against %s.", a, b);
}

/* How a group is named in a sentence: its first capture, with its runs. */
static void group_name(const struct wc_summary *s, size_t g, char *buf,
		       size_t size)
{
	const struct wc_sum_group *gr = &s->groups[g];
	const char *name = gr->first->meta->name;

	if (gr->n > 1)
		snprintf(buf, size, "%s (mean of %zu runs)", name, gr->n);
	else
		snprintf(buf, size, "%s", name);
}

/* A group's disk for sentences: capture.conf's disk_model, else its
 * disk, else "". */
static const char *disk_of(const struct wc_summary *s, size_t g)
{
	return s->groups[g].disk_name;
}

/* "On disk D, " before a set's finding when there are several sets; the
 * set's number too when another set has the same disk (another workload
 * or scale).  False when it says nothing. */
static bool say_set(struct wc_finding *f, const struct wc_summary *s,
		    size_t set)
{
	const char *d;
	size_t k;
	bool twin = false;

	if (set == SIZE_MAX || s->nsets < 2)
		return false;
	d = disk_of(s, s->sets[set].first);
	for (k = 0; k < s->nsets; k++)
		if (k != set && !strcmp(disk_of(s, s->sets[k].first), d))
			twin = true;
	if (d[0])
		say(f, "On disk %s", d);
	else
		say(f, "On the captures without a disk model");
	if (twin)
		say(f, " (comparable set %zu)", set + 1);
	say(f, ", ");
	return true;
}

/* The difference of group g (not a baseline) against its baseline, in
 * comparable set `set`, or SIZE_MAX (a named baseline); `crossing` of
 * the groups it speaks for compare across disks. */
static void say_difference(struct wc_summary *s, size_t set,
			   const struct wc_sum_group *g, size_t crossing)
{
	const struct wc_sum_group *b = &s->groups[g->base];
	struct wc_finding *f;
	char who[320], base[320];
	size_t gi = (size_t)(g - s->groups);
	bool on;
	int64_t w;

	f = finding(s, WC_FIND_DIFFERENCE);
	w = g->diff.wall_ns;
	group_name(s, gi, who, sizeof(who));
	group_name(s, g->base, base, sizeof(base));
	str(f, "capture", g->first->meta->name);
	str(f, "baseline", wc_summary_base_name(s, gi));
	if (disk_of(s, gi)[0])
		str(f, "disk", disk_of(s, gi));
	if (g->cross_disk && disk_of(s, g->base)[0])
		str(f, "baseline_disk", disk_of(s, g->base));
	num(f, "wall_s", ssecs(w));
	num(f, "runs", (double)g->n);
	num(f, "baseline_runs", (double)b->n);
	on = say_set(f, s, set);
	if (!w && s->replay)
		say(f, "The model predicts that %s would take as long as %s.",
		    who, base);
	else if (!w)
		say(f, "%s took as long as the baseline %s.", who, base);
	else if (s->replay)
		say(f, "The model predicts that %s would take %.3f s %s than "
		    "%s (%.3f s against %.3f s)", who, fabs(ssecs(w)),
		    w > 0 ? "longer" : "less", base, wc_secs(g->mean_wall_ns),
		    wc_secs(b->mean_wall_ns));
	else
		say(f, "%s largest difference against the baseline %s: %s "
		    "took %.3f s %s (%.3f s against %.3f s)", on ? "the" :
		    "The", base, who, fabs(ssecs(w)), w > 0 ? "longer" : "less",
		    wc_secs(g->mean_wall_ns), wc_secs(b->mean_wall_ns));
	if (w && g->diff.main_part >= 0) {
		int p = g->diff.main_part;
		int q, o = -1;

		str(f, "cause", wc_part_key(p));
		num(f, "cause_s", ssecs(g->diff.part_ns[p]));
		num(f, "cause_share", (double)g->diff.part_ns[p] / (double)w);
		say(f, ", mostly %s: %+.3f s", wc_part_label(p),
		    ssecs(g->diff.part_ns[p]));
		/* The largest part that went the other way, when it hides
		 * much of the main one (an idle device absorbs slow flushes
		 * when nothing waits for them). */
		for (q = 0; q < WC_NPARTS; q++)
			if (g->diff.part_ns[q] * (w > 0 ? 1 : -1) < 0 &&
			    (o < 0 || llabs(g->diff.part_ns[q]) >
				      llabs(g->diff.part_ns[o])))
				o = q;
		if (o >= 0 && llabs(g->diff.part_ns[o]) * 10 >
			      llabs(g->diff.part_ns[p])) {
			str(f, "offset_by", wc_part_key(o));
			num(f, "offset_s", ssecs(g->diff.part_ns[o]));
			say(f, ", offset by %s: %+.3f s", wc_part_label(o),
			    ssecs(g->diff.part_ns[o]));
		} else {
			say(f, ", %.0f %% of the difference",
			    100.0 * (double)g->diff.part_ns[p] / (double)w);
		}
		say(f, ".");
		say_subcause(f, s, g, p);
		if (p == WC_PART_IDLE)
			say_off_split(f, g);
	} else if (w) {
		say(f, ".");
	}
	if (g->cross_disk) {
		const char *d = disk_of(s, gi), *bd = disk_of(s, g->base);

		say(f, " It compares across disks: %s ran on %s%s, the baseline "
		    "on %s%s, so the difference is the disk's as much as the "
		    "configuration's.", who, d[0] ? "disk " : "",
		    d[0] ? d : "an unknown disk", bd[0] ? "disk " : "",
		    bd[0] ? bd : "an unknown disk");
		crossing--;
	}
	if (crossing)
		say(f, " %zu other configuration%s ran on another disk than "
		    "the baseline: %s differences cross disks.", crossing,
		    crossing == 1 ? "" : "s", crossing == 1 ? "its" : "their");
	say_verdict(f, s, g);
	if (w && g->diff.main_part == WC_PART_IDLE)
		say_device_cause(f, s, g);
	if (!s->replay)
		say_runs(f, s, gi);
}

/* The largest difference in comparable set `set` against its baseline,
 * or, with set == SIZE_MAX (a named baseline), over every group.  A
 * what-if's replays each answer a question of their own: each gets its
 * prediction, and the recording none (find_model_error). */
static void find_difference(struct wc_summary *s, size_t set)
{
	const struct wc_sum_group *g = NULL;
	size_t k, crossing = 0;

	for (k = 0; k < s->ngroups; k++) {
		if (k == s->groups[k].base ||
		    (set != SIZE_MAX && s->groups[k].set != set) ||
		    (s->replay && k == s->recorded_group))
			continue;
		if (s->replay) {
			say_difference(s, set, &s->groups[k],
				       s->groups[k].cross_disk);
			continue;
		}
		if (s->groups[k].cross_disk)
			crossing++;
		if (!g || llabs(s->groups[k].diff.wall_ns) >
			  llabs(g->diff.wall_ns))
			g = &s->groups[k];
	}
	if (g)
		say_difference(s, set, g, crossing);
}

/* A what-if's caveat: how far the replay as recorded is from the
 * recording, the error of the model's costs on this capture (host
 * latency in the recording, costs the model gets wrong).  It bounds
 * how far the model's absolute times can be trusted; in a difference
 * of two replays much of it cancels. */
static void find_model_error(struct wc_summary *s)
{
	const struct wc_sum_group *g, *b;
	struct wc_finding *f;
	int64_t w;
	int p;

	if (!s->replay || !s->has_diff)
		return;
	g = &s->groups[s->recorded_group];
	b = &s->groups[g->base];
	if (g == b)
		return;
	w = g->diff.wall_ns;
	p = g->diff.main_part;
	f = finding(s, WC_FIND_MODEL_ERROR);
	str(f, "capture", g->first->meta->name);
	str(f, "baseline", wc_summary_base_name(s, s->recorded_group));
	num(f, "recorded_wall_s", wc_secs(g->mean_wall_ns));
	num(f, "replay_wall_s", wc_secs(b->mean_wall_ns));
	num(f, "error_s", -ssecs(w));
	if (g->mean_wall_ns)
		num(f, "error_share", -(double)w / (double)g->mean_wall_ns);
	say(f, "The model's error on %s: its replay as recorded took %.3f s "
	    "against the recording's %.3f s (%+.3f s",
	    g->first->meta->name, wc_secs(b->mean_wall_ns),
	    wc_secs(g->mean_wall_ns), -ssecs(w));
	if (g->mean_wall_ns)
		say(f, ", %+.1f %%", -100.0 * (double)w /
					 (double)g->mean_wall_ns);
	say(f, ")");
	if (w && p >= 0) {
		str(f, "cause", wc_part_key(p));
		num(f, "cause_s", -ssecs(g->diff.part_ns[p]));
		say(f, ", most in %s: %+.3f s", wc_part_label(p),
		    -ssecs(g->diff.part_ns[p]));
	}
	say(f, ".");
	{
		/* The lab's window runs on to the durable end, the drive's
		 * destage after the last sync, which is no request: the
		 * replay ends at its last request, so that stretch is in
		 * the error and is no cost the model got wrong. */
		const struct wc_sum_capture *c = g->first;

		if (c->has_durable && c->durable_in_window &&
		    c->durable_s > c->returned_s) {
			num(f, "durable_after_return_s",
			    c->durable_s - c->returned_s);
			say(f, " The recording's window runs on to its data "
			    "being durable, %.3f s after the command "
			    "returned (the drive's destage after the last "
			    "sync, no request), which the replay does not "
			    "model: up to that much of the error is that "
			    "destage, not the requests' costs.",
			    c->durable_s - c->returned_s);
		}
	}
	say(f, " Both sides of a prediction are replays on the same model, "
	    "so much of this error cancels in their difference; how much "
	    "is measured in docs/what-if.md (\"Validation against the "
	    "lab\").");
}

/* "NAME, NAME and NAME" of up to three names, "and N more" after. */
static void names_of(const char *const *names, size_t n, char *buf,
		     size_t size)
{
	size_t k, len = 0;

	buf[0] = '\0';
	for (k = 0; k < n && k < 3 && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					k ? (k + 1 == n ? " and " : ", ") : "",
					names[k]);
	if (n > 3 && len < size)
		snprintf(buf + len, size - len, " and %zu more", n - 3);
}

static void find_left_out(struct wc_summary *s)
{
	const struct wc_find_acc *fa = s->find;
	struct wc_finding *f;
	char list[256] = "";
	size_t k, j, len = 0;

	if (!s->nleft_out)
		return;
	f = finding(s, WC_FIND_LEFT_OUT);
	num(f, "count", (double)s->nleft_out);
	/* The copies of a recording first, then the rest. */
	for (k = 0; k < fa->ncopies && k < 3 && len < sizeof(list); k++)
		len += (size_t)snprintf(list + len, sizeof(list) - len,
					"%s%s (%s)", k ? ", " : "",
					fa->copy_name[k], fa->copy_why[k]);
	for (j = 0; j < fa->nothers && k < 3 && len < sizeof(list); j++, k++)
		len += (size_t)snprintf(list + len, sizeof(list) - len,
					"%s%s (%s)", k ? ", " : "",
					fa->other_name[j], fa->other_why[j]);
	if (s->nleft_out > 3 && len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, " and %zu more",
			 s->nleft_out - 3);
	str(f, "captures", list);
	say(f, "Left out of everything here: %s.", list);
}

/* The keys of two "k=v;" lists whose values differ, as "k1, k2". */
static void differing_keys(const char *a, const char *b, char *buf,
			   size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	while (*a && *b) {
		size_t ka = strcspn(a, "="), kb = strcspn(b, "=");
		size_t la = strcspn(a, ";"), lb = strcspn(b, ";");

		if ((la != lb || memcmp(a, b, la)) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%.*s",
						len ? ", " : "", (int)ka, a);
		(void)kb;
		a += la + (a[la] == ';');
		b += lb + (b[lb] == ';');
	}
}

/* A configuration alone in its comparable set, without a named baseline,
 * is compared with nothing: say why, once per such set (at most four). */
static void find_skipped(struct wc_summary *s)
{
	size_t k, o, said = 0;

	if (s->named_baseline || s->nsets < 2)
		return;
	for (k = 0; k < s->nsets && said < 4; k++) {
		const struct wc_sum_capture *c, *x;
		struct wc_finding *f;
		char keys[160];

		if (s->sets[k].ngroups > 1)
			continue;
		c = s->groups[s->sets[k].first].first;
		o = k ? 0 : 1;
		x = s->groups[s->sets[o].first].first;
		differing_keys(c->meta->comparable, x->meta->comparable, keys,
			       sizeof(keys));
		f = finding(s, WC_FIND_SKIPPED);
		str(f, "capture", c->meta->name);
		str(f, "differs_in", keys);
		say(f, "%s (group #%zu) is compared with no other configuration: "
		    "none has its disk, workload and scale; against %s, its "
		    "capture.conf differs in %s (--baseline compares across all "
		    "the same).", c->meta->name, c->group + 1, x->meta->name,
		    keys[0] ? keys : "a key too long to compare");
		said++;
	}
}

/* P(X >= k) for X the number of successes of independent trials of
 * probabilities p[0..n): the chance of k or more first runs slowest when
 * the run order does not matter. */
static double tail_at_least(const double *p, size_t n, size_t k)
{
	double d[257] = { 1 }, q = 0;
	size_t i, j;

	if (n > 256)
		n = 256;
	for (i = 0; i < n; i++) {
		for (j = i + 1; j > 0; j--)
			d[j] = d[j] * (1 - p[i]) + d[j - 1] * p[i];
		d[0] *= 1 - p[i];
	}
	for (j = k; j <= n; j++)
		q += d[j];
	return q;
}

/* Whether each configuration's first run (its lowest run number) is its
 * slowest more often than chance would make it: over the groups of
 * three runs or more, all numbered, the count of groups whose first run
 * has the longest wall (and, apart, the most busy time), against the
 * Poisson-binomial tail with 1/n a group (docs/methodology.md, "Bias"). */
static void find_run_order(struct wc_summary *s)
{
	double p[256], excess_wall = 0, excess_off = 0, excess_busy = 0;
	double tail_wall, tail_busy;
	const char *names[256];
	size_t g, ng = 0, kw = 0, kb = 0, nn = 0;
	int run = -1;
	struct wc_finding *f;
	char list[256];

	for (g = 0; g < s->ngroups && ng < 256; g++) {
		const struct wc_sum_group *gr = &s->groups[g];
		const struct wc_find_group *fg = &s->find->g[g];
		double m = (double)(gr->n - 1);

		if (gr->n < 3 || fg->unnumbered)
			continue;
		excess_wall += fg->first_meas[0] - fg->others[0] / m;
		excess_off += fg->first_meas[1] - fg->others[1] / m;
		excess_busy += fg->first_meas[2] - fg->others[2] / m;
		if (run < 0 || fg->first_run < run)
			run = fg->first_run;
		if (nn < 256)
			names[nn++] = fg->first_name;
		kw += fg->slow_wall == fg->first;
		kb += fg->slow_busy == fg->first;
		p[ng++] = 1.0 / (double)gr->n;
	}
	if (ng < 2)
		return;
	tail_wall = tail_at_least(p, ng, kw);
	tail_busy = tail_at_least(p, ng, kb);
	f = finding(s, WC_FIND_RUN_ORDER);
	num(f, "groups", (double)ng);
	num(f, "first_slowest_wall", (double)kw);
	num(f, "chance_wall", tail_wall);
	num(f, "first_slowest_busy", (double)kb);
	num(f, "chance_busy", tail_busy);
	num(f, "excess_wall_s", excess_wall / (double)ng);
	num(f, "excess_off_device_s", excess_off / (double)ng);
	num(f, "excess_busy_s", excess_busy / (double)ng);
	num(f, "effect", tail_wall < 0.05 || tail_busy < 0.05);
	say(f, "Run order: each configuration's first run (run %d where "
	    "numbered so) was its slowest in %zu of %zu groups of three runs or "
	    "more on the wall (%.2g by chance) and in %zu on the device's busy "
	    "time (%.2g by chance)", run, kw, ng, tail_wall, kb, tail_busy);
	if (tail_wall >= 0.05 && tail_busy >= 0.05) {
		say(f, ": no run-order effect.");
		return;
	}
	names_of(names, nn, list, sizeof(list));
	str(f, "runs", list);
	say(f, ": a run-order effect. On average it took %+.3f s longer than "
	    "the other runs, %+.3f s of it off the device and %+.3f s on it. "
	    "Its runs (%s) carry a warm-up or a drift of the host; "
	    "--drop-first leaves them out.", excess_wall / (double)ng,
	    excess_off / (double)ng, excess_busy / (double)ng, list);
}

/* The value of key in a "k=v;" list into buf, or false. */
static bool host_value(const char *host, const char *key, char *buf,
		       size_t size)
{
	size_t kl = strlen(key);

	while (*host) {
		size_t l = strcspn(host, ";");

		if (l > kl && !strncmp(host, key, kl) && host[kl] == '=') {
			snprintf(buf, size, "%.*s", (int)(l - kl - 1),
				 host + kl + 1);
			return true;
		}
		host += l + (host[l] == ';');
	}
	return false;
}

static const char *const host_keys[WC_HOST_KEYS] = {
	"tool_version", "tool_commit", "kernel", "recorder",
	"host_cpus", "host_mem_total_kb", "vm_dirty_ratio",
	"vm_dirty_background_ratio", "vm_dirty_bytes",
	"vm_dirty_background_bytes", "vm_dirty_expire_centisecs",
	"vm_dirty_writeback_centisecs",
};

/* Capture at (its position), named name, with value v of a host key. */
static int host_add(struct wc_host_key *hk, const char *v, size_t at,
		    const char *name)
{
	struct wc_host_val *hv = NULL;
	size_t j;

	hk->nwith++;
	for (j = 0; j < hk->nvals; j++)
		if (!strcmp(hk->vals[j].v, v))
			hv = &hk->vals[j];
	if (!hv && hk->nvals < WC_SUM_HOST_VALUES) {
		if (!hk->vals) {
			hk->vals = calloc(WC_SUM_HOST_VALUES,
					  sizeof(*hk->vals));
			if (!hk->vals)
				return -1;
		}
		hv = &hk->vals[hk->nvals++];
	}
	if (!hv)
		hv = &hk->over;
	if (!hv->count++) {
		snprintf(hv->v, sizeof(hv->v), "%s", v);
		hv->first = at;
	}
	if (hv->named < 3) {
		hv->at[hv->named] = at;
		snprintf(hv->names[hv->named++], sizeof(hv->names[0]), "%s",
			 name);
	}
	return 0;
}

/* Compared captures whose recorded host state or tools differ: per key,
 * the most common value and the captures with another (at most three
 * keys); and load averages before the captures far apart. */
static void find_host_state(struct wc_summary *s)
{
	const struct wc_find_acc *fa = s->find;
	struct wc_finding *f = NULL;
	size_t k, j, said = 0;

	for (k = 0; k < WC_HOST_KEYS && said < 3; k++) {
		const struct wc_host_key *hk = &fa->host[k];
		const struct wc_host_val *common = NULL, *odd = NULL;
		const struct wc_host_val *odds[WC_SUM_HOST_VALUES + 1];
		const char *odd_names[3];
		size_t best = 0, nodd, nv = 0, pos[WC_SUM_HOST_VALUES + 1];
		char list[256];

		/* The most common value: the one most captures share, the
		 * first seen of those; never the captures past the values
		 * told apart. */
		for (j = 0; j < hk->nvals; j++)
			if (hk->vals[j].count > best) {
				best = hk->vals[j].count;
				common = &hk->vals[j];
			}
		if (best == hk->nwith)
			continue;
		for (j = 0; j < hk->nvals; j++)
			if (&hk->vals[j] != common)
				odds[nv++] = &hk->vals[j];
		if (hk->over.count)
			odds[nv++] = &hk->over;
		/* The first capture of another value, and the first three
		 * of them all, in input order. */
		for (j = 0; j < nv; j++) {
			pos[j] = 0;
			if (!odd || odds[j]->first < odd->first)
				odd = odds[j];
		}
		nodd = 0;
		while (nodd < 3) {
			size_t m = nv;

			for (j = 0; j < nv; j++)
				if (pos[j] < odds[j]->named &&
				    (m == nv || odds[j]->at[pos[j]] <
						odds[m]->at[pos[m]]))
					m = j;
			if (m == nv)
				break;
			odd_names[nodd++] = odds[m]->names[pos[m]++];
		}
		nodd = hk->nwith - best > 256 ? 256 : hk->nwith - best;
		if (!f) {
			f = finding(s, WC_FIND_HOST_STATE);
			say(f, "Compared captures were recorded on unlike hosts "
			    "or tools:");
		}
		names_of(odd_names, nodd, list, sizeof(list));
		if (said < 2)
			str(f, host_keys[k], list);
		say(f, "%s %s: %zu capture%s %s, %s (%s)%s", said ? ";" : "",
		    host_keys[k], best, best == 1 ? "" : "s",
		    common ? common->v : "", odd->v, list,
		    nodd > 1 ? " and others" : "");
		said++;
	}
	if (fa->nload > 1 && fa->load_hi > 2 * fa->load_lo &&
	    fa->load_hi - fa->load_lo > 1) {
		if (!f) {
			f = finding(s, WC_FIND_HOST_STATE);
			say(f, "Compared captures were recorded on unlike hosts:");
		} else {
			say(f, ";");
		}
		num(f, "load_min", fa->load_lo);
		num(f, "load_max", fa->load_hi);
		say(f, " the load average before them ranged from %.2f (%s) to "
		    "%.2f (%s)", fa->load_lo, fa->lo_name, fa->load_hi,
		    fa->hi_name);
	}
	if (f)
		say(f, ". Their walls carry that difference; the device's time "
		    "much less.");
}

/* Captures that ended with data unwritten: of an unfiltered copy, less
 * data written on the main device than the source holds (90 %), or Dirty
 * at the end
 * over 16 MiB (capture.conf host_dirty_kb_end).  At most three named. */
static bool is_dirty(const struct wc_sum_capture *c)
{
	uint64_t written = c->figs.bytes[WC_CAT_DATA_WRITE];
	bool copy = strstr(c->meta->config, "copy-delete;") != NULL;

	/* A filter's figures hold only some of the data written (another
	 * device, process or time's are left out): no evidence of data
	 * left unwritten. */
	return (copy && c->meta->source_bytes && !c->filter &&
		(double)written < 0.9 * (double)c->meta->source_bytes) ||
	       c->meta->dirty_kb_end > 16 * 1024;
}

static void find_dirty(struct wc_summary *s)
{
	const struct wc_sum_some *d = &s->find->dirty;
	const char *names[3] = { d->names[0], d->names[1], d->names[2] };
	const struct wc_sum_capture *first = &d->first.row;
	struct wc_finding *f;
	/* Counted up to 256, as they were named. */
	size_t n = d->n > 256 ? 256 : d->n;
	char list[256];

	if (!n)
		return;
	f = finding(s, WC_FIND_DIRTY);
	names_of(names, n, list, sizeof(list));
	str(f, "captures", list);
	num(f, "count", (double)n);
	num(f, "written_bytes", (double)first->figs.bytes[WC_CAT_DATA_WRITE]);
	say(f, "Dirty data was still pending when the trace ended in %s: ",
	    list);
	if (first->meta->source_bytes)
		say(f, "%s wrote %.0f MiB of data to its main device against a "
		    "%.0f MiB source", first->meta->name,
		    (double)first->figs.bytes[WC_CAT_DATA_WRITE] / 1048576.0,
		    (double)first->meta->source_bytes / 1048576.0);
	else
		say(f, "%s", first->meta->name);
	if (first->meta->dirty_kb_end >= 0)
		say(f, "%sDirty was %.0f MiB when its workload ended",
		    first->meta->source_bytes ? ", and " : " ",
		    (double)first->meta->dirty_kb_end / 1024.0);
	say(f, ". The writing of the rest is not in the trace: end the "
	    "command with sync to measure it.");
}

/* How many of the per-CPU files capture.conf announces (trace_files)
 * were not read: 0 when it announces none. */
static uint32_t files_unread(const struct wc_capture_meta *m)
{
	return m->trace_files_announced > m->cpu_files ?
	       m->trace_files_announced - m->cpu_files : 0;
}

/* Whether a capture's trace is not whole (wc_capture_meta's checks and
 * the tracker's unmatched halves). */
static bool not_whole(const struct wc_sum_capture *c)
{
	const struct wc_capture_meta *m = c->meta;
	const struct wc_tracker_stats *t = c->tracking;

	return m->cpus_missing || m->files_missing || files_unread(m) ||
	       m->repeats || m->events_dropped > 0 ||
	       (t && (t->unfinished || t->orphan_completions ||
		      t->dropped_inflight));
}

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

/* What is missing from one capture's trace, or there twice, each with how
 * many requests or records it touches and what it does to which figures;
 * never fatal: the figures stand, with this said. */
static void say_whole(struct wc_finding *f, const struct wc_sum_capture *c)
{
	const struct wc_capture_meta *m = c->meta;
	const struct wc_tracker_stats *t = c->tracking;
	int64_t lost = m->events_dropped - (int64_t)m->sequence_gaps;

	say(f, "The trace of %s is not whole", m->name[0] ? m->name :
	    "the capture");
	if (m->cpus_missing && m->cpu_files) {
		num(f, "cpu_files", m->cpu_files);
		num(f, "cpu_files_missing", m->cpus_missing);
		str(f, "cpus_missing", m->cpus_missing_list);
		say(f, ": %u CPU file%s missing (CPU %s, of %u files read%s): "
		    "the requests dispatched or completed on %s are not in "
		    "the trace, and their other halves are unmatched",
		    m->cpus_missing, m->cpus_missing == 1 ? " is" : "s are",
		    m->cpus_missing_list, m->cpu_files,
		    m->cpus_named_without_file ? "; events name CPUs that "
		    "have no file" : "",
		    m->cpus_missing == 1 ? "it" : "them");
	} else if (m->cpus_missing) {
		num(f, "cpus_never_named", m->cpus_missing);
		str(f, "cpus_missing", m->cpus_missing_list);
		say(f, ": its records never name CPU %s, below the highest "
		    "they name (a CPU without I/O, or a CPU's file left out of "
		    "the merge)", m->cpus_missing_list);
	}
	if (m->files_missing) {
		num(f, "device_files_missing", m->files_missing);
		str(f, "files_missing", m->files_missing_list);
		say(f, "; %u per-CPU file%s of a device %s missing (%s), where "
		    "another device has that CPU's file: the device's requests "
		    "dispatched or completed there are not in the trace, and "
		    "their other halves are unmatched", m->files_missing,
		    m->files_missing == 1 ? "" : "s",
		    m->files_missing == 1 ? "is" : "are",
		    m->files_missing_list);
	}
	if (files_unread(m)) {
		num(f, "trace_files_announced", m->trace_files_announced);
		say(f, "; capture.conf announces %u per-CPU trace files and "
		    "%u %s read", m->trace_files_announced, m->cpu_files,
		    m->cpu_files == 1 ? "was" : "were");
	}
	if (m->sequence_gaps) {
		num(f, "sequence_gaps", (double)m->sequence_gaps);
		say(f, "; %llu sequence numbers are missing: events lost "
		    "between the recorder and the file, their requests in no "
		    "figure", ull(m->sequence_gaps));
	}
	if (lost > 0) {
		num(f, "recorder_dropped", (double)lost);
		say(f, "; the recorder dropped %lld events (capture.conf), "
		    "their requests in no figure", (long long)lost);
	}
	if (m->repeats) {
		num(f, "repeated_records", (double)m->repeats);
		say(f, "; %llu records repeat the sequence number of the one "
		    "before them on their CPU: the same records more than "
		    "once, and requests, bytes and times count each copy",
		    ull(m->repeats));
	}
	if (t && t->unfinished) {
		num(f, "never_completed", (double)t->unfinished);
		num(f, "past_bound", (double)t->expired);
		say(f, "; %llu requests were dispatched and never completed "
		    "(%llu outstanding past the command timeout): they are in "
		    "no request, byte or latency figure", ull(t->unfinished),
		    ull(t->expired));
		if (c->figs.outstanding_ns) {
			num(f, "outstanding_s", wc_secs(c->figs.outstanding_ns));
			say(f, ", and the %.3f s the main device had them "
			    "outstanding is counted apart, not as idle",
			    wc_secs(c->figs.outstanding_ns));
		}
	}
	if (t && t->orphan_completions) {
		num(f, "never_dispatched", (double)t->orphan_completions);
		say(f, "; %llu completions had no dispatch to pair with: "
		    "counted, never turned into latency, and in no request or "
		    "byte figure", ull(t->orphan_completions));
	}
	if (t && t->dropped_inflight) {
		num(f, "forgotten_in_flight", (double)t->dropped_inflight);
		say(f, "; %llu dispatches were forgotten past the in-flight "
		    "cap, in no figure", ull(t->dropped_inflight));
	}
	say(f, ".");
}

/* The captures of SOME: the first is returned (NULL if none), how many
 * in *N, and the others, up to three named, in LIST ("NAME, NAME and
 * NAME and K more"). */
static const struct wc_sum_capture *
captures_where(const struct wc_sum_some *some, size_t *n, char *list,
	       size_t size)
{
	const char *names[3] = { some->names[0], some->names[1],
				 some->names[2] };

	*n = some->n;
	names_of(names, *n ? *n - 1 : 0, list, size);
	return some->n ? &some->first.row : NULL;
}

/* Captures whose trace is not whole, the first said in full, at most
 * three more named. */
static void find_whole(struct wc_summary *s)
{
	const struct wc_sum_capture *first;
	struct wc_finding *f;
	size_t n;
	char list[256];

	first = captures_where(&s->find->whole, &n, list, sizeof(list));
	if (!first)
		return;
	f = finding(s, WC_FIND_WHOLE);
	str(f, "capture", first->meta->name);
	num(f, "captures", (double)n);
	say_whole(f, first);
	if (n > 1) {
		str(f, "others", list);
		say(f, " %zu other capture%s %s not whole either: %s.",
		    n - 1, n == 2 ? "" : "s", n == 2 ? "is" : "are", list);
	}
}

/* V with a comma every three digits: "1,204". */
static const char *grouped(uint64_t v, char *buf, size_t size)
{
	char raw[24];
	size_t n, i, o = 0;

	n = (size_t)snprintf(raw, sizeof(raw), "%" PRIu64, v);
	for (i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

/* The finding's keys of what a figure lost or has beyond the kernel's
 * (kcounters.h's JSON keys, prefixed). */
static const char *const kc_missing_key[WC_KC_NFIELDS] = {
	[WC_KC_READS] = "missing_reads",
	[WC_KC_READ_SECTORS] = "missing_read_sectors",
	[WC_KC_WRITES] = "missing_writes",
	[WC_KC_WRITE_SECTORS] = "missing_write_sectors",
	[WC_KC_DISCARDS] = "missing_discards",
	[WC_KC_DISCARD_SECTORS] = "missing_discard_sectors",
	[WC_KC_FLUSHES] = "missing_flushes",
};
static const char *const kc_extra_key[WC_KC_NFIELDS] = {
	[WC_KC_READS] = "extra_reads",
	[WC_KC_READ_SECTORS] = "extra_read_sectors",
	[WC_KC_WRITES] = "extra_writes",
	[WC_KC_WRITE_SECTORS] = "extra_write_sectors",
	[WC_KC_DISCARDS] = "extra_discards",
	[WC_KC_DISCARD_SECTORS] = "extra_discard_sectors",
	[WC_KC_FLUSHES] = "extra_flushes",
};

/* "1,204 writes, 3 reads and 9,632 sectors written" into BUF: the
 * figures of D the trace lost (EXTRA false) or holds beyond the kernel's
 * (true), each also a number of F; how many were named. */
static size_t kc_list(struct wc_finding *f, const struct wc_kc_device *d,
		      bool extra, char *buf, size_t size)
{
	char n[32];
	size_t len = 0, count = 0, named = 0;
	int fl;

	buf[0] = '\0';
	for (fl = 0; fl < WC_KC_NFIELDS; fl++)
		if (d->fig[fl].known &&
		    (extra ? d->fig[fl].extra : d->fig[fl].missing))
			count++;
	for (fl = 0; fl < WC_KC_NFIELDS; fl++) {
		const struct wc_kc_figure *g = &d->fig[fl];
		uint64_t v = extra ? g->extra : g->missing;

		if (!g->known || !v)
			continue;
		named++;
		num(f, extra ? kc_extra_key[fl] : kc_missing_key[fl], (double)v);
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s %s",
						named == 1 ? "" : named == count ?
						" and " : ", ",
						grouped(v, n, sizeof(n)),
						wc_kc_field_words(
							(enum wc_kc_field)fl));
	}
	return count;
}

/* A device whose trace and counters disagree: what was lost, what is
 * there beyond the kernel's count, and the agreement in words. */
static void say_kc_device(struct wc_finding *f, const struct wc_kc_device *d,
			  bool first)
{
	char lost[400], extra[400], held[160];
	size_t nl = kc_list(f, d, false, lost, sizeof(lost));
	size_t ne = kc_list(f, d, true, extra, sizeof(extra));

	if (nl)
		say(f, "%son %s the kernel completed %s the trace does not "
		    "have (%s), and the report's request, byte and time "
		    "figures leave them out", first ? "" : "; ", d->name, lost,
		    wc_kc_held_words(d, held, sizeof(held)));
	if (ne)
		say(f, "%son %s the trace holds %s more than the kernel "
		    "completed (records repeated, or requests of another "
		    "reading)", first && !nl ? "" : "; ", d->name, extra);
}

/* Whether some device's trace differs from the kernel's counters. */
static bool kc_differs(const struct wc_sum_capture *c)
{
	const struct wc_kcheck *kc = c->kcheck;
	size_t k;

	for (k = 0; kc && kc->state == WC_KC_COMPARED && k < kc->ndevices; k++)
		if (!wc_kc_device_agrees(&kc->dev[k]))
			return true;
	return false;
}

/* Captures whose trace differs from the kernel's counters (kcounters.h):
 * the first said in full, device by device, up to three more named. */
static void find_kcounters(struct wc_summary *s)
{
	const struct wc_sum_capture *first;
	struct wc_finding *f;
	size_t i, k, n;
	bool lost = false, said = false;
	char list[256];

	first = captures_where(&s->find->kc, &n, list, sizeof(list));
	if (!first)
		return;
	f = finding(s, WC_FIND_KCOUNTERS);
	str(f, "capture", first->meta->name);
	num(f, "captures", (double)n);
	for (k = 0; k < first->kcheck->ndevices; k++)
		for (i = 0; i < WC_KC_NFIELDS; i++)
			lost |= first->kcheck->dev[k].fig[i].missing > 0;
	say(f, "%s in %s: ", lost ? "Events were lost" :
	    "The trace holds more than the kernel counted",
	    first->meta->name[0] ? first->meta->name : "the capture");
	for (k = 0; k < first->kcheck->ndevices; k++) {
		const struct wc_kc_device *d = &first->kcheck->dev[k];

		if (wc_kc_device_agrees(d))
			continue;
		if (!said)
			str(f, "device", d->name);
		say_kc_device(f, d, !said);
		said = true;
	}
	say(f, ".");
	if (n > 1) {
		str(f, "others", list);
		say(f, " The trace of %zu other capture%s differs from the "
		    "kernel's counters too: %s.", n - 1, n == 2 ? "" : "s",
		    list);
	}
}

/* Captures whose journal was guessed from flags: the first with its
 * reason, in the words "guessed: REASON", up to three more named.  Of a
 * what-if, the recording only: its replays carry its requests' guess. */
static void find_journal_guessed(struct wc_summary *s)
{
	const struct wc_sum_some *j = &s->find->journal;
	const char *names[3] = { j->names[0], j->names[1], j->names[2] };
	const struct wc_sum_capture *first = &j->first.row;
	struct wc_finding *f;
	size_t n = j->n;
	char list[256];
	const char *why;

	if (!n)
		return;
	why = first->meta->journal_why[0] ? first->meta->journal_why :
	      "no journal range was given";
	f = finding(s, WC_FIND_JOURNAL_GUESSED);
	str(f, "capture", first->meta->name);
	str(f, "reason", why);
	num(f, "captures", (double)n);
	say(f, "The journal of %s was not located on the disk: its requests "
	    "are told from metadata by their flags (FUA, preflush, or "
	    "sync+meta writes), so the journal and metadata figures are an "
	    "estimate (--journal START+LEN gives the range); guessed: %s%s",
	    first->meta->name[0] ? first->meta->name : "the capture", why,
	    why[strlen(why) - 1] == '.' ? "" : ".");
	if (n > 1) {
		names_of(names, n - 1, list, sizeof(list));
		str(f, "others", list);
		say(f, " The journal of %zu other capture%s was guessed too: "
		    "%s.", n - 1, n == 2 ? "" : "s", list);
	}
}

/* Marks the caveats (summary.h, struct wc_finding) and puts them after
 * the answers, each side in the order made. */
static int caveats_last(struct wc_summary *s)
{
	struct wc_finding *tmp;
	bool answered = false;
	size_t i, n = 0;

	for (i = 0; i < s->nfindings; i++)
		answered |= s->findings[i].kind == WC_FIND_DIFFERENCE;
	for (i = 0; i < s->nfindings; i++) {
		struct wc_finding *f = &s->findings[i];

		switch (f->kind) {
		case WC_FIND_WHOLE:
		case WC_FIND_KCOUNTERS:
		case WC_FIND_MOST_TIME:
		case WC_FIND_DEVICE_IDLE:
		case WC_FIND_FLUSHES:
			f->caveat = answered;
			break;
		case WC_FIND_DIFFERENCE:
		case WC_FIND_SKIPPED:
			f->caveat = false;
			break;
		default:
			f->caveat = true;
			break;
		}
	}
	if (!s->nfindings)
		return 0;
	tmp = malloc(s->nfindings * sizeof(*tmp));
	if (!tmp)
		return -1;
	for (i = 0; i < s->nfindings; i++)
		if (!s->findings[i].caveat)
			tmp[n++] = s->findings[i];
	for (i = 0; i < s->nfindings; i++)
		if (s->findings[i].caveat)
			tmp[n++] = s->findings[i];
	memcpy(s->findings, tmp, n * sizeof(*tmp));
	free(tmp);
	return 0;
}

int wc_summary_findings(struct wc_summary *s, struct wc_find_acc *fa)
{
	const struct wc_sum_capture *slow = &fa->slow.row;
	size_t i;

	/* Three on the slowest capture, a difference and at most one skip
	 * a set (a what-if: a difference a replay), then those on the
	 * whole comparison (seven, and a what-if's model error). */
	s->findings = calloc(3 + 2 * s->nsets + 8 + (s->replay ? s->ngroups : 0),
			     sizeof(*s->findings));
	if (!s->findings)
		return -1;
	/* The captures said in full, now that their differences are. */
	if (wc_sum_held_row(s, &fa->slow) < 0 ||
	    wc_sum_held_row(s, &fa->whole.first) < 0 ||
	    wc_sum_held_row(s, &fa->kc.first) < 0 ||
	    wc_sum_held_row(s, &fa->journal.first) < 0 ||
	    wc_sum_held_row(s, &fa->dirty.first) < 0)
		return -1;
	find_whole(s);
	find_kcounters(s);
	find_left_out(s);
	find_most_time(s, slow);
	find_idle(s, slow);
	find_flushes(s, slow);
	if (s->has_diff && s->named_baseline)
		find_difference(s, SIZE_MAX);
	else if (s->has_diff)
		for (i = 0; i < s->nsets; i++)
			find_difference(s, i);
	find_skipped(s);
	find_run_order(s);
	find_host_state(s);
	find_dirty(s);
	find_journal_guessed(s);
	find_model_error(s);
	return caveats_last(s);
}

/* ---- as the captures come ---------------------------------------------- */

/* c into some: counted, held when the first, named when among the
 * first three after it (or, with_first, from it). */
static int some_add(struct wc_sum_some *some, const struct wc_sum_capture *c,
		    bool with_first)
{
	if (!some->n++ && wc_sum_held_set(&some->first, c->cap, c->group,
					  c->rank) < 0)
		return -1;
	if ((with_first || some->n > 1) && some->named < 3)
		snprintf(some->names[some->named++], sizeof(some->names[0]),
			 "%s", c->meta->name);
	return 0;
}

/* What the run-order finding needs of group fg's run c. */
static void run_order_add(struct wc_find_group *fg,
			  const struct wc_sum_capture *c)
{
	const double m[3] = { c->meas[WC_MEAS_WALL],
			      c->meas[WC_MEAS_OFF_DEVICE],
			      c->meas[WC_MEAS_BUSY] };
	const double *other = m;
	int k;

	if (!c->rank || c->meta->run < fg->first_run) {
		/* The first run so far (its lowest number): the one it
		 * replaces counts among the others. */
		other = c->rank ? fg->first_meas : NULL;
		for (k = 0; other && k < 3; k++)
			fg->others[k] += other[k];
		other = NULL;
		fg->first = c->rank;
		fg->first_run = c->meta->run;
		memcpy(fg->first_meas, m, sizeof(m));
		snprintf(fg->first_name, sizeof(fg->first_name), "%s",
			 c->meta->name);
	}
	for (k = 0; other && k < 3; k++)
		fg->others[k] += other[k];
	if (!c->rank || m[0] > fg->max_wall) {
		fg->max_wall = m[0];
		fg->slow_wall = c->rank;
	}
	if (!c->rank || m[2] > fg->max_busy) {
		fg->max_busy = m[2];
		fg->slow_busy = c->rank;
	}
}

/* What the differences' findings need of group fg's run c: its counts,
 * its flushes' median, its run number. */
static void group_add(struct wc_find_group *fg, const struct wc_sum_capture *c)
{
	const struct wc_figures *x = wc_capsule_main(c->cap);
	int k;

	for (k = 0; k < WC_NCAT; k++)
		fg->requests[k] += (double)c->figs.requests[k];
	if (x && x->flush_d2c.n) {
		fg->p50_sum += (double)x->flush_d2c.p50;
		fg->p50_n++;
	}
	if (c->meta->run <= 0)
		fg->unnumbered = true;
	else if (fg->runs_len < sizeof(fg->runs))
		fg->runs_len += (size_t)snprintf(fg->runs + fg->runs_len,
						 sizeof(fg->runs) -
						 fg->runs_len, "%s%d",
						 c->rank ? ", " : "",
						 c->meta->run);
	if (!fg->unnumbered)
		run_order_add(fg, c);
}

int wc_findings_add(struct wc_find_acc *fa, const struct wc_sum_capture *c,
		    bool replay_other)
{
	char v[128];
	size_t k;
	double l = c->meta->load_before;

	if (c->group >= fa->ngroups) {
		size_t want = fa->ngroups ? 2 * fa->ngroups : 8;
		struct wc_find_group *g;

		while (want <= c->group)
			want *= 2;
		g = realloc(fa->g, want * sizeof(*g));
		if (!g)
			return -1;
		memset(g + fa->ngroups, 0, (want - fa->ngroups) * sizeof(*g));
		fa->g = g;
		fa->ngroups = want;
	}
	group_add(&fa->g[c->group], c);
	if (!fa->seen || c->figs.wall_ns > fa->slow_wall_ns) {
		if (wc_sum_held_set(&fa->slow, c->cap, c->group, c->rank) < 0)
			return -1;
		fa->slow_wall_ns = c->figs.wall_ns;
	}
	if ((not_whole(c) && some_add(&fa->whole, c, false) < 0) ||
	    (kc_differs(c) && some_add(&fa->kc, c, false) < 0) ||
	    (c->meta->journal_method == WC_JOURNAL_HEURISTIC &&
	     !replay_other && some_add(&fa->journal, c, false) < 0) ||
	    (is_dirty(c) && some_add(&fa->dirty, c, true) < 0))
		return -1;
	for (k = 0; k < WC_HOST_KEYS; k++)
		if (host_value(c->meta->host, host_keys[k], v, sizeof(v)) &&
		    host_add(&fa->host[k], v, fa->seen, c->meta->name) < 0)
			return -1;
	if (l >= 0) {
		if (!fa->nload || l < fa->load_lo) {
			fa->load_lo = l;
			snprintf(fa->lo_name, sizeof(fa->lo_name), "%s",
				 c->meta->name);
		}
		if (!fa->nload || l > fa->load_hi) {
			fa->load_hi = l;
			snprintf(fa->hi_name, sizeof(fa->hi_name), "%s",
				 c->meta->name);
		}
		fa->nload++;
	}
	fa->seen++;
	return 0;
}

void wc_findings_left_out(struct wc_find_acc *fa, const char *name,
			  const char *why, bool copy)
{
	if (copy && fa->ncopies < 3) {
		snprintf(fa->copy_name[fa->ncopies], sizeof(fa->copy_name[0]),
			 "%s", name);
		snprintf(fa->copy_why[fa->ncopies], sizeof(fa->copy_why[0]),
			 "%s", why);
	} else if (!copy && fa->nothers < 3) {
		snprintf(fa->other_name[fa->nothers],
			 sizeof(fa->other_name[0]), "%s", name);
		fa->other_why[fa->nothers] = why;
	}
	if (copy)
		fa->ncopies++;
	else
		fa->nothers++;
}

void wc_findings_free(struct wc_find_acc *fa)
{
	size_t k;

	wc_sum_held_clear(&fa->slow);
	wc_sum_held_clear(&fa->whole.first);
	wc_sum_held_clear(&fa->kc.first);
	wc_sum_held_clear(&fa->journal.first);
	wc_sum_held_clear(&fa->dirty.first);
	for (k = 0; k < WC_HOST_KEYS; k++)
		free(fa->host[k].vals);
	free(fa->g);
	memset(fa, 0, sizeof(*fa));
}
