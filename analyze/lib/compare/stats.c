/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "compare/stats.h"
#include "compare/summary.h"

#include <math.h>
#include <string.h>

void wc_acc_add(struct wc_acc *a, double v)
{
	double d;

	if (v < 0)
		return;
	if (!a->n)
		a->first = a->min = a->max = v;
	if (v < a->min)
		a->min = v;
	if (v > a->max)
		a->max = v;
	d = v - a->first;
	a->n++;
	a->sum += v;
	a->dsum += d;
	a->dss += d * d;
}

void wc_acc_stat(const struct wc_acc *a, struct wc_stat *st)
{
	double var;

	memset(st, 0, sizeof(*st));
	st->n = a->n;
	if (!a->n) {
		st->mean = st->min = st->max = -1;
		return;
	}
	st->mean = a->sum / (double)a->n;
	st->min = a->min;
	st->max = a->max;
	if (a->n < 2)
		return;
	var = (a->dss - a->dsum * a->dsum / (double)a->n) / (double)(a->n - 1);
	/* Rounding can leave a spread of nothing a hair below 0. */
	st->sd = var > 0 ? sqrt(var) : 0;
}

/* Student's t, two-sided 95 %, for df degrees of freedom (rounded down,
 * which widens the interval: it errs towards "not decided"). */
static double t95(double df)
{
	static const double t[30] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};
	int k = (int)floor(df);

	if (k < 1)
		k = 1;
	if (k <= 30)
		return t[k - 1];
	/* Within 0.002 of the table from 40 on. */
	return 1.96 + 2.4 / (double)k;
}

/* Student's t, one-sided 95 % (the two-sided 90 % interval of the two
 * one-sided tests), rounded down likewise. */
static double t90(double df)
{
	static const double t[30] = {
		6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833,
		1.812, 1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734,
		1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703,
		1.701, 1.699, 1.697,
	};
	int k = (int)floor(df);

	if (k < 1)
		k = 1;
	if (k <= 30)
		return t[k - 1];
	/* Within 0.002 of the table from 31 on (1.684 at 40, 1.658 at
	 * 120). */
	return 1.645 + 1.56 / (double)k;
}

/* The verdict of a difference d whose standard error is se on df
 * degrees of freedom, against the bound x (docs/methodology.md,
 * "Verdicts"): real when the 95 % interval excludes 0, no larger than
 * x when the 90 % interval lies inside +-x, else not decided. */
static enum wc_verdict decide(double d, double se, double df, double x)
{
	if (fabs(d) > t95(df) * se)
		return WC_VERDICT_REAL;
	if (fabs(d) + t90(df) * se < x)
		return WC_VERDICT_BOUNDED;
	return WC_VERDICT_UNDECIDED;
}

/* The runs a side that would decide difference d at the sample
 * deviations sa and sb (both sides of n runs, Welch's degrees of
 * freedom for them); WC_RUNS_NEEDED_MAX + 1 when none up to that. */
static size_t runs_to_decide(double d, double sa, double sb, double x)
{
	double v = sa * sa + sb * sb;
	double w = sa * sa * sa * sa + sb * sb * sb * sb;
	size_t n;

	for (n = 2; n <= WC_RUNS_NEEDED_MAX; n++) {
		double se = sqrt(v / (double)n);
		double df = w > 0 ? v * v * (double)(n - 1) / w : 1;

		if (decide(d, se, df, x) != WC_VERDICT_UNDECIDED)
			return n;
	}
	return WC_RUNS_NEEDED_MAX + 1;
}

/* Welch's t-test of measure a against the baseline's b, with the
 * equivalence bound x (summary.h, docs/methodology.md "Verdicts"). */
void wc_test_of(struct wc_test *t, const struct wc_stat *a,
		const struct wc_stat *b, double x)
{
	double va, vb, se2, se, q, q90, tol;

	memset(t, 0, sizeof(*t));
	t->n = a->n;
	t->base_n = b->n;
	t->bound_s = x;
	t->known = a->n && b->n;
	t->verdict = WC_VERDICT_UNDECIDED;
	if (!t->known)
		return;
	t->diff_s = a->mean - b->mean;
	if (a->n < 2 || b->n < 2)
		return;
	t->has_interval = true;
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	se2 = va + vb;
	/* Figures are whole nanoseconds: means closer than half of one
	 * are equal (a sum of doubles divided by n is not exact). */
	tol = 0.5e-9 + 1e-12 * fmax(fabs(a->mean), fabs(b->mean));
	if (se2 <= 0 || sqrt(se2) < tol) {
		/* Runs that never vary: an interval of no width, which
		 * excludes 0 unless the means are equal. */
		if (fabs(t->diff_s) <= tol)
			t->diff_s = 0;
		t->t = t->diff_s > 0 ? INFINITY : t->diff_s < 0 ? -INFINITY : 0;
		t->df = (double)(a->n + b->n - 2);
		t->lo_s = t->hi_s = t->lo90_s = t->hi90_s = t->diff_s;
		t->verdict = decide(t->diff_s, 0, t->df, x);
		return;
	}
	se = sqrt(se2);
	t->t = t->diff_s / se;
	t->df = se2 * se2 / (va * va / (double)(a->n - 1) +
			     vb * vb / (double)(b->n - 1));
	q = t95(t->df);
	q90 = t90(t->df);
	t->lo_s = t->diff_s - q * se;
	t->hi_s = t->diff_s + q * se;
	t->lo90_s = t->diff_s - q90 * se;
	t->hi90_s = t->diff_s + q90 * se;
	t->verdict = decide(t->diff_s, se, t->df, x);
	if (t->verdict == WC_VERDICT_UNDECIDED)
		t->runs_needed = runs_to_decide(t->diff_s, a->sd, b->sd, x);
}
