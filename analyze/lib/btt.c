#include "btt.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct kept_q {
	uint64_t start, end;     /* sectors, end exclusive */
	uint64_t q_time;
	uint64_t d_time;         /* UINT64_MAX until a D covers it */
};

struct bdev {
	uint32_t device;
	bool seen_q;             /* btt ignores a device until its first Q */
	struct kept_q *qs;       /* sorted by start, starts unique */
	size_t n, cap;
};

struct wc_btt {
	struct bdev *devs;
	size_t ndevs, cdevs;
	struct wc_btt_stat q2c, d2c;
	uint64_t dropped;
	bool failed;
	struct wc_err err;
};

static const uint64_t NO_D = UINT64_MAX;

static int oom(struct wc_btt *b, struct wc_err *err)
{
	b->failed = true;
	wc_err_set(&b->err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
		   "out of memory");
	return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			  "out of memory");
}

static struct bdev *find_dev(struct wc_btt *b, uint32_t device)
{
	size_t i;

	for (i = 0; i < b->ndevs; i++)
		if (b->devs[i].device == device)
			return &b->devs[i];
	return NULL;
}

static struct bdev *add_dev(struct wc_btt *b, uint32_t device)
{
	if (b->ndevs == b->cdevs) {
		size_t c = b->cdevs ? b->cdevs * 2 : 8;
		struct bdev *d = realloc(b->devs, c * sizeof(*d));

		if (!d)
			return NULL;
		b->devs = d;
		b->cdevs = c;
	}
	memset(&b->devs[b->ndevs], 0, sizeof(b->devs[0]));
	b->devs[b->ndevs].device = device;
	return &b->devs[b->ndevs++];
}

/* First index whose start >= s. */
static size_t lower_bound(const struct bdev *d, uint64_t s)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->qs[mid].start < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t tdelta(uint64_t from, uint64_t to)
{
	return from < to ? to - from : 1;
}

static void stat_add(struct wc_btt_stat *s, uint64_t v)
{
	if (s->n == 0 || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->n++;
	s->total += (double)v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Forgets the oldest quarter of a device's kept Qs.  Only lost completions
 * fill the array this far; btt would keep them forever, but one insert
 * would then move megabytes. */
static int forget_oldest(struct wc_btt *b, struct bdev *d, struct wc_err *err)
{
	uint64_t *t = malloc(d->n * sizeof(*t)), cut;
	size_t i, w = 0;

	if (!t)
		return oom(b, err);
	for (i = 0; i < d->n; i++)
		t[i] = d->qs[i].q_time;
	qsort(t, d->n, sizeof(*t), cmp_u64);
	cut = t[d->n / 4];
	free(t);
	for (i = 0; i < d->n; i++)
		if (d->qs[i].q_time > cut)
			d->qs[w++] = d->qs[i];
	b->dropped += d->n - w;
	d->n = w;
	return 0;
}

static int on_queue(struct wc_btt *b, struct bdev *d,
		    const struct wc_event *ev, struct wc_err *err)
{
	size_t i;

	if (d->n >= WC_BTT_MAX_KEPT && forget_oldest(b, d, err) < 0)
		return -1;
	i = lower_bound(d, ev->sector);
	d->seen_q = true;
	if (i < d->n && d->qs[i].start == ev->sector)
		return 0;
	if (d->n == d->cap) {
		size_t c = d->cap ? d->cap * 2 : 64;
		struct kept_q *q = realloc(d->qs, c * sizeof(*q));

		if (!q)
			return oom(b, err);
		d->qs = q;
		d->cap = c;
	}
	memmove(&d->qs[i + 1], &d->qs[i], (d->n - i) * sizeof(d->qs[0]));
	d->qs[i].start = ev->sector;
	d->qs[i].end = ev->sector + (ev->bytes >> 9);
	d->qs[i].q_time = ev->time;
	d->qs[i].d_time = NO_D;
	d->n++;
	return 0;
}

static void on_issue(struct bdev *d, const struct wc_event *ev)
{
	uint64_t s = ev->sector, e = ev->sector + (ev->bytes >> 9);
	size_t i;

	for (i = lower_bound(d, s); i < d->n && d->qs[i].start <= e; i++)
		if (d->qs[i].end <= e)
			d->qs[i].d_time = ev->time;
}

static void on_complete(struct wc_btt *b, struct bdev *d,
			const struct wc_event *ev)
{
	uint64_t s = ev->sector, e = ev->sector + (ev->bytes >> 9);
	size_t i = lower_bound(d, s), w = i;

	for (; i < d->n && d->qs[i].start <= e; i++) {
		struct kept_q *q = &d->qs[i];

		if (q->end > e) {
			d->qs[w++] = *q;
			continue;
		}
		stat_add(&b->q2c, tdelta(q->q_time, ev->time));
		if (q->d_time != NO_D)
			stat_add(&b->d2c, tdelta(q->d_time, ev->time));
	}
	if (w != i) {
		memmove(&d->qs[w], &d->qs[i], (d->n - i) * sizeof(d->qs[0]));
		d->n -= i - w;
	}
}

int wc_btt_add(struct wc_btt *b, const struct wc_event *ev, struct wc_err *err)
{
	struct bdev *d;
	unsigned what;

	if (b->failed)
		return -1;
	if (wc_event_is_notify(ev) || wc_event_has(ev, WC_TC_PC))
		return 0;
	/* btt matches the low 16 bits of action, cgroup flag included. */
	if (ev->has_cgroup || ev->bytes == 0)
		return 0;
	what = wc_event_what(ev);
	if (what != WC_TA_QUEUE && what != WC_TA_ISSUE &&
	    what != WC_TA_COMPLETE)
		return 0;
	d = find_dev(b, ev->device);
	if (!d) {
		if (what != WC_TA_QUEUE)
			return 0;
		d = add_dev(b, ev->device);
		if (!d)
			return oom(b, err);
	}
	if (what == WC_TA_QUEUE)
		return on_queue(b, d, ev, err);
	if (!d->seen_q)
		return 0;
	if (what == WC_TA_ISSUE)
		on_issue(d, ev);
	else
		on_complete(b, d, ev);
	return 0;
}

void wc_btt_hook(void *ctx, const struct wc_event *ev)
{
	wc_btt_add(ctx, ev, NULL);
}

int wc_btt_status(const struct wc_btt *b, struct wc_err *err)
{
	if (!b->failed)
		return 0;
	if (err && err->kind == WC_ERR_NONE)
		*err = b->err;
	return -1;
}

int wc_btt_open(struct wc_btt **out, struct wc_err *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "out of memory");
	wc_err_clear(&(*out)->err);
	return 0;
}

const struct wc_btt_stat *wc_btt_q2c(const struct wc_btt *b)
{
	return &b->q2c;
}

const struct wc_btt_stat *wc_btt_d2c(const struct wc_btt *b)
{
	return &b->d2c;
}

uint64_t wc_btt_dropped(const struct wc_btt *b)
{
	return b->dropped;
}

double wc_btt_mean_s(const struct wc_btt_stat *s)
{
	return s->n ? s->total / (double)s->n / 1e9 : 0.0;
}

void wc_btt_free(struct wc_btt *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->ndevs; i++)
		free(b->devs[i].qs);
	free(b->devs);
	free(b);
}
