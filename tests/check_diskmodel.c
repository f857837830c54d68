/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_diskmodel.c - unit tests of analyze/lib/disk/diskmodel.c: the seek
 * curve's end points and mean, rotational latency from the clock (the
 * platter's angle exactly fmod()'s), zoned
 * media rates, the write cache (fill, destage when full, when idle and on
 * flush, in elevator order and rotational order), FUA and write-through,
 * command queueing (shortest positioning first, the age limit, the drain
 * around a SATA flush), destage rows partitioning busy time, parameter
 * files, placement (the IDEMA capacity, images as partitions).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "disk/diskmodel.h"

#define MS 1000000ull
#define GB (1000000000ull)

/* hdd7200-like, without the per-command overhead or read-ahead, so that
 * the parts under test stand alone */
static void plain_params(struct wc_disk_params *p)
{
	wc_disk_params_init(p);
	p->overhead_us = 0;
	p->readahead_kib = 0;
	p->flush_us = 0;
}

static struct wc_disk *open_disk(const struct wc_disk_params *p, uint64_t cap)
{
	struct wc_disk *d = NULL;
	struct wc_err err;

	wc_err_clear(&err);
	ck_assert_msg(wc_disk_open(&d, p, cap, &err) == 0, "%s", err.msg);
	ck_assert_ptr_nonnull(d);
	return d;
}

static void check_sum(const struct wc_disk_cost *c)
{
	ck_assert_uint_eq(c->end_ns, c->start_ns + c->overhead_ns + c->destage_ns +
			  c->position_ns + c->transfer_ns);
	ck_assert_uint_eq(c->position_ns, c->seek_ns + c->rotation_ns);
}

START_TEST(seek_curve)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	uint64_t n, k, prev = 0, s;
	double mean = 0, wsum = 0, w;

	plain_params(&p);
	d = open_disk(&p, 100 * GB / 512 * 512);
	n = p.cylinders;
	ck_assert_uint_eq(wc_disk_seek_ns(d, 0), 0);
	ck_assert_uint_eq(wc_disk_seek_ns(d, 1), 1 * MS);
	ck_assert(llabs((long long)wc_disk_seek_ns(d, n + 1) - (long long)(20 * MS)) <= 1);
	/* rising everywhere; mean over two random cylinders (distance k has
	 * weight 2 (N - k) / N^2) is the average seek */
	for (k = 1; k < n; k++) {
		s = wc_disk_seek_ns(d, k);
		ck_assert_uint_ge(s, prev);
		prev = s;
		w = 2.0 * (double)(n - k);
		mean += w * (double)s;
		wsum += w;
	}
	mean /= wsum;
	ck_assert_msg(fabs(mean - 8.5e6) < 0.01e6, "mean seek %.0f ns", mean);
	/* short seeks: the square root dominates, the curve bends (the first
	 * 100 cylinders cost more than the next 100); long seeks: the linear
	 * term dominates, the curve is nearly straight (within 5 %) */
	ck_assert_uint_gt(wc_disk_seek_ns(d, 101) - wc_disk_seek_ns(d, 1),
			  2 * (wc_disk_seek_ns(d, 201) - wc_disk_seek_ns(d, 101)) / 3);
	ck_assert(fabs((double)(wc_disk_seek_ns(d, n) - wc_disk_seek_ns(d, n - 1000)) /
		       (double)(wc_disk_seek_ns(d, n - 1000) - wc_disk_seek_ns(d, n - 2000)) - 1) < 0.05);
	wc_disk_free(d);
}
END_TEST

START_TEST(seek_params_rejected)
{
	struct wc_disk_params p;
	struct wc_disk *d = NULL;
	struct wc_err err;

	plain_params(&p);
	p.seek_avg_ms = 5;	/* below (10 + 100) / 15 = 7.33: the curve dips */
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_open(&d, &p, 1 << 20, &err), 0);
	ck_assert_ptr_null(d);
	ck_assert(strstr(err.msg, "rising seek curve") != NULL);
	plain_params(&p);
	ck_assert_int_lt(wc_disk_open(&d, &p, 1000, NULL), 0);
}
END_TEST

START_TEST(rotation_from_clock)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t rev, t;

	plain_params(&p);
	p.write_cache = false;
	d = open_disk(&p, 1 * GB / 512 * 512);
	rev = wc_disk_rev_ns(d);
	ck_assert(llabs((long long)rev - 8333333) <= 1);
	/* sector 0 is at angle 0 on cylinder 0, where the head starts: a read
	 * arriving 100 ns before angle 0 passes waits 100 ns */
	t = 400 * 25 * MS - 100;	/* 1200 turns of 25/3 ms */
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, t, &c);
	check_sum(&c);
	ck_assert_uint_eq(c.seek_ns, 0);
	ck_assert(llabs((long long)c.rotation_ns - 100) <= 1);
	/* a quarter turn later it waits three quarters of a turn */
	t = 800 * 25 * MS + rev / 4;
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, t, &c);
	ck_assert_uint_eq(c.seek_ns, 0);
	ck_assert(llabs((long long)c.rotation_ns - (long long)(rev * 3 / 4)) <= 2);
	/* the same request a little later waits that much less */
	t = 1200 * 25 * MS + rev / 2;
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, t, &c);
	ck_assert(llabs((long long)c.rotation_ns - (long long)(rev / 2)) <= 2);
	ck_assert_uint_lt(c.rotation_ns, rev);
	wc_disk_free(d);
}
END_TEST

/* The platter's angle is fmod()'s, to the bit, wherever the clock is:
 * near every whole turn, at a trace's times and at the far end. */
START_TEST(angle_is_fmod_exactly)
{
	static const double rpms[] = { 7200, 5400, 10000, 15000, 1, 100000, 7 };
	struct wc_disk_params p;
	struct wc_disk *d;
	unsigned seed = 26;
	size_t r;
	int i, k;

	for (r = 0; r < sizeof(rpms) / sizeof(rpms[0]); r++) {
		double rev = 60.0 * 1e9 / rpms[r];

		plain_params(&p);
		p.rpm = rpms[r];
		d = open_disk(&p, 1 * GB / 512 * 512);
		for (i = 0; i < 20000; i++) {
			uint64_t t;

			switch (i % 4) {
			case 0:		/* anywhere */
				t = (uint64_t)rand_r(&seed) << 33 ^
					(uint64_t)rand_r(&seed) << 11 ^
					(uint64_t)rand_r(&seed);
				break;
			case 1:		/* a trace's first hours */
				t = ((uint64_t)rand_r(&seed) << 16 ^
				     (uint64_t)rand_r(&seed)) % (10000 * GB);
				break;
			default:	/* a ns or two off a whole turn */
				k = rand_r(&seed) % 5 - 2;
				t = (uint64_t)((double)(rand_r(&seed) % 100000000) * rev);
				t = (uint64_t)((int64_t)t + k);
				break;
			}
			ck_assert_msg(wc_disk_angle_at(d, t) ==
				      fmod((double)t, rev) / rev,
				      "rpm %g, t %llu", rpms[r], (unsigned long long)t);
		}
		ck_assert(wc_disk_angle_at(d, 0) == 0);
		ck_assert(wc_disk_angle_at(d, UINT64_MAX) ==
			  fmod((double)UINT64_MAX, rev) / rev);
		wc_disk_free(d);
	}
}
END_TEST

START_TEST(zones)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t cap = 1 * GB / 512 * 512, last = cap / 512 - 2048;
	uint64_t outer_tx;

	plain_params(&p);
	p.write_cache = false;
	d = open_disk(&p, cap);
	ck_assert(fabs(wc_disk_media_rate(d, 0) - 125e6) < 1);
	ck_assert(fabs(wc_disk_media_rate(d, cap / 512) - 60e6) < 1);
	/* the middle of the capacity is past the middle of the stroke? no:
	 * outer tracks hold more, so half the sectors lie in less than half
	 * of the stroke, and the rate there is above the mean */
	ck_assert(wc_disk_media_rate(d, cap / 1024) > 92.5e6);
	ck_assert_uint_lt(wc_disk_cylinder(d, cap / 1024), p.cylinders / 2);
	wc_disk_serve(d, WC_DISK_WRITE, 0, 1 << 20, false, 10 * GB, &c);
	check_sum(&c);
	outer_tx = c.transfer_ns;
	ck_assert(llabs((long long)outer_tx - (long long)(1048576 / 125e6 * 1e9)) < 100);
	wc_disk_serve(d, WC_DISK_WRITE, last * 512, 1 << 20, false, 20 * GB, &c);
	check_sum(&c);
	ck_assert(c.transfer_ns > outer_tx * 2 - outer_tx / 10);
	/* from the outer to the inner edge: a full-stroke seek */
	ck_assert(c.seek_ns > 19 * MS && c.seek_ns <= 20 * MS);
	wc_disk_free(d);
}
END_TEST

START_TEST(cache_fill_and_destage_when_full)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t t = GB, i;

	plain_params(&p);
	p.cache_kib = 1024;	/* 1 MiB */
	p.idle_destage = false;
	d = open_disk(&p, 1 * GB / 512 * 512);
	for (i = 0; i < 16; i++) {	/* 16 x 64 KiB, scattered: fills it */
		wc_disk_serve(d, WC_DISK_WRITE, (i * 7919 % 16) * 50 * 1000 * 1000ull / 512 * 512,
			      65536, false, t, &c);
		check_sum(&c);
		ck_assert(c.cache_hit);
		ck_assert_uint_eq(c.position_ns, 0);
		ck_assert_uint_eq(c.destage_ns, 0);
		ck_assert(llabs((long long)c.transfer_ns - (long long)(65536 / 250e6 * 1e9)) <= 1);
		t = c.end_ns + 1000;
	}
	ck_assert_uint_eq(wc_disk_dirty_bytes(d), 1024 * 1024);
	/* full: the next write waits for one range to reach the media */
	wc_disk_serve(d, WC_DISK_WRITE, 900ull << 20, 65536, false, t, &c);
	check_sum(&c);
	ck_assert(c.cache_hit);
	ck_assert_uint_eq(c.destage_bytes, 65536);
	ck_assert_uint_gt(c.destage_ns, 65536 / 125e6 * 1e9);
	ck_assert_uint_eq(c.dirty_bytes, 1024 * 1024);
	/* rewriting a cached range adds nothing and needs no room */
	wc_disk_serve(d, WC_DISK_WRITE, 900ull << 20, 4096, false, c.end_ns, &c);
	ck_assert_uint_eq(c.destage_ns, 0);
	ck_assert_uint_eq(c.dirty_bytes, 1024 * 1024);
	wc_disk_free(d);
}
END_TEST

START_TEST(destage_elevator_order)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;

	plain_params(&p);
	p.idle_destage = false;
	p.destage_window = 1;	/* pure C-LOOK */
	d = open_disk(&p, 1 * GB / 512 * 512);
	/* the head goes to sector 400000 (a read) */
	wc_disk_serve(d, WC_DISK_READ, 400000ull * 512, 4096, false, GB, &c);
	wc_disk_serve(d, WC_DISK_WRITE, 1000ull * 512, 4096, false, c.end_ns, &c);
	wc_disk_serve(d, WC_DISK_WRITE, 500000ull * 512, 4096, false, c.end_ns, &c);
	wc_disk_serve(d, WC_DISK_WRITE, 200ull * 512, 4096, false, c.end_ns, &c);
	wc_disk_serve(d, WC_DISK_FLUSH, 0, 0, false, c.end_ns, &c);
	check_sum(&c);
	ck_assert_uint_eq(c.destage_bytes, 3 * 4096);
	ck_assert_uint_eq(c.dirty_bytes, 0);
	/* C-LOOK from 400000: 500000, then 200, then 1000 last.  A FUA write
	 * continuing at 1008 right away finds the head there (streaming, no
	 * positioning); in any other order it would be elsewhere. */
	wc_disk_serve(d, WC_DISK_WRITE, 1008ull * 512, 4096, true, c.end_ns, &c);
	check_sum(&c);
	ck_assert(!c.cache_hit);
	ck_assert_uint_eq(c.position_ns, 0);
	/* and one continuing at 508 (where the first destage ended) is not */
	wc_disk_serve(d, WC_DISK_WRITE, 500008ull * 512, 4096, true, c.end_ns, &c);
	ck_assert_uint_gt(c.position_ns, 0);
	wc_disk_free(d);
}
END_TEST

/* The flush of a cache of 1,024 scattered 4 KiB writes, destaged with a
 * window of n: the flush's destage time, and the rows' positioning. */
static uint64_t scattered_flush_ns(enum wc_disk_kind kind, uint64_t n,
				   uint64_t *rows_pos)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	const struct wc_disk_cost *rows;
	uint64_t x = 12345, t = GB;
	size_t nrows;

	plain_params(&p);
	p.model = kind;
	p.idle_destage = false;
	p.destage_window = n;
	d = open_disk(&p, 100 * GB / 512 * 512);
	for (int i = 0; i < 1024; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		wc_disk_serve(d, WC_DISK_WRITE, (x >> 20) % (100 * GB / 4096) * 4096,
			      4096, false, t, &c);
		t = c.end_ns;
	}
	wc_disk_serve(d, WC_DISK_FLUSH, 0, 0, false, t, &c);
	check_sum(&c);
	ck_assert_uint_eq(c.dirty_bytes, 0);
	nrows = wc_disk_destaged(d, &rows);
	*rows_pos = 0;
	for (size_t i = 0; i < nrows; i++)
		*rows_pos += rows[i].position_ns;
	wc_disk_free(d);
	return c.destage_ns;
}

START_TEST(destage_rotational_order)
{
	uint64_t clook, rpo, pos1, pos32, a, b;

	/* Of the next 32 ranges, the one the head reaches first: on a
	 * scattered cache that saves much of each rotational latency (half
	 * a revolution, 4.17 ms, on average in C-LOOK order).  Measured
	 * here: 3.20 s against 5.43 s. */
	clook = scattered_flush_ns(WC_DISK_HDD, 1, &pos1);
	rpo = scattered_flush_ns(WC_DISK_HDD, 32, &pos32);
	ck_assert_uint_lt(pos32, pos1);
	ck_assert_msg(rpo < clook * 7 / 10, "window 32: %llu ns, C-LOOK %llu ns",
		      (unsigned long long)rpo, (unsigned long long)clook);
	/* An ssd's positioning is the same for every range: the window
	 * changes nothing. */
	a = scattered_flush_ns(WC_DISK_SSD, 1, &pos1);
	b = scattered_flush_ns(WC_DISK_SSD, 32, &pos32);
	ck_assert_uint_eq(a, b);
	ck_assert_uint_eq(pos1, pos32);
}
END_TEST

START_TEST(destage_when_idle)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t end;

	plain_params(&p);
	p.idle_destage_ms = 100;
	d = open_disk(&p, 1 * GB / 512 * 512);
	wc_disk_serve(d, WC_DISK_WRITE, 1 << 20, 65536, false, GB, &c);
	ck_assert_uint_eq(c.dirty_bytes, 65536);
	end = c.end_ns;
	/* long after: destaged in the background, nobody waits */
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, end + 1000 * MS, &c);
	check_sum(&c);
	ck_assert_uint_eq(c.destage_ns, 0);
	ck_assert_uint_gt(c.background_ns, 0);
	ck_assert_uint_eq(c.dirty_bytes, 0);
	/* before the idle delay: nothing destaged */
	wc_disk_serve(d, WC_DISK_WRITE, 1 << 20, 65536, false, c.end_ns + MS, &c);
	end = c.end_ns;
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, end + 50 * MS, &c);
	ck_assert_uint_eq(c.start_ns, end + 50 * MS);
	ck_assert_uint_eq(c.background_ns, 0);
	ck_assert_uint_eq(c.dirty_bytes, 65536);
	end = c.end_ns;
	/* just after it: the destage has begun, and this request starts when
	 * the range is on the media (it waited in the queue, not for a
	 * destage of its own); the range is a row of its own, of an idle
	 * period (cause 0), ending where the request starts */
	{
		const struct wc_disk_cost *rows;
		uint64_t arrival = end + 100 * MS + 10000;

		wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, arrival, &c);
		check_sum(&c);
		ck_assert_uint_eq(c.destage_ns, 0);
		ck_assert_uint_gt(c.start_ns, arrival);
		ck_assert_uint_eq(wc_disk_destaged(d, &rows), 1);
		ck_assert_int_eq(rows[0].op, WC_DISK_DESTAGE);
		ck_assert_uint_eq(rows[0].cause_seq, 0);
		ck_assert_uint_eq(rows[0].bytes, 65536);
		ck_assert_uint_eq(rows[0].start_ns, end + 100 * MS);
		ck_assert_uint_eq(rows[0].end_ns, c.start_ns);
		ck_assert_uint_eq(rows[0].end_ns - rows[0].start_ns,
				  rows[0].position_ns + rows[0].transfer_ns);
		ck_assert_uint_eq(c.background_ns, rows[0].end_ns - rows[0].start_ns);
		ck_assert_uint_eq(c.dirty_bytes, 0);
	}
	wc_disk_free(d);
}
END_TEST

START_TEST(flush_and_plp)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;

	plain_params(&p);
	p.idle_destage = false;
	p.flush_us = 20;
	d = open_disk(&p, 1 * GB / 512 * 512);
	wc_disk_serve(d, WC_DISK_FLUSH, 0, 0, false, GB, &c);	/* empty */
	check_sum(&c);
	ck_assert_uint_eq(c.end_ns - c.start_ns, 20000);
	wc_disk_serve(d, WC_DISK_WRITE, 0, 65536, false, c.end_ns, &c);
	wc_disk_serve(d, WC_DISK_FLUSH, 0, 0, false, c.end_ns, &c);
	check_sum(&c);
	ck_assert_uint_eq(c.destage_bytes, 65536);
	ck_assert_uint_gt(c.destage_ns, 65536 / 125e6 * 1e9);
	ck_assert_uint_eq(c.dirty_bytes, 0);
	wc_disk_free(d);

	p.model = WC_DISK_SSD;
	p.plp = true;
	d = open_disk(&p, 1 * GB / 512 * 512);
	wc_disk_serve(d, WC_DISK_WRITE, 0, 65536, false, GB, &c);
	wc_disk_serve(d, WC_DISK_FLUSH, 0, 0, false, c.end_ns, &c);
	ck_assert_uint_eq(c.end_ns - c.start_ns, 20000);
	ck_assert_uint_eq(c.destage_ns, 0);
	ck_assert_uint_eq(c.dirty_bytes, 65536);
	wc_disk_free(d);
}
END_TEST

START_TEST(fua_and_write_through)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;

	plain_params(&p);
	p.idle_destage = false;
	d = open_disk(&p, 1 * GB / 512 * 512);
	wc_disk_serve(d, WC_DISK_WRITE, 1 << 20, 4096, false, GB, &c);
	ck_assert(c.cache_hit);
	wc_disk_serve(d, WC_DISK_WRITE, 300 << 20, 4096, true, c.end_ns, &c);
	check_sum(&c);
	ck_assert(!c.cache_hit);
	ck_assert_uint_gt(c.seek_ns, MS);
	ck_assert(llabs((long long)c.transfer_ns - (long long)(4096 / wc_disk_media_rate(d, (300 << 20) / 512) * 1e9)) <= 1);
	ck_assert_uint_eq(c.dirty_bytes, 4096);	/* the cache left alone */
	wc_disk_free(d);

	p.write_cache = false;
	d = open_disk(&p, 1 * GB / 512 * 512);
	wc_disk_serve(d, WC_DISK_WRITE, 300 << 20, 4096, false, GB, &c);
	ck_assert(!c.cache_hit);
	ck_assert_uint_gt(c.position_ns, MS);
	ck_assert_uint_eq(c.dirty_bytes, 0);
	wc_disk_serve(d, WC_DISK_FLUSH, 0, 0, false, c.end_ns, &c);
	ck_assert_uint_eq(c.destage_ns, 0);
	wc_disk_free(d);
}
END_TEST

START_TEST(ssd_latency)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;

	plain_params(&p);
	p.model = WC_DISK_SSD;
	p.read_us = 80;
	p.media_outer_mbs = p.media_inner_mbs = 500;
	d = open_disk(&p, 1 * GB / 512 * 512);
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, GB, &c);
	check_sum(&c);
	ck_assert_uint_eq(c.seek_ns, 80000);
	ck_assert_uint_eq(c.rotation_ns, 0);
	wc_disk_serve(d, WC_DISK_READ, 900 << 20, 4096, false, c.end_ns + MS, &c);
	ck_assert_uint_eq(c.seek_ns, 80000);
	wc_disk_free(d);
}
END_TEST

START_TEST(invariants_random)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t t = GB, cap = 1 * GB / 512 * 512, last_end = 0;
	unsigned seed = 7;
	int i;

	wc_disk_params_init(&p);
	p.cache_kib = 256;
	d = open_disk(&p, cap);
	for (i = 0; i < 20000; i++) {
		unsigned r = rand_r(&seed);
		enum wc_disk_op op = r % 10 == 0 ? WC_DISK_FLUSH :
			r % 3 == 0 ? WC_DISK_READ : WC_DISK_WRITE;
		uint64_t off = (uint64_t)rand_r(&seed) % (cap / 4096) * 4096;
		uint64_t len = 4096ull << (rand_r(&seed) % 6);

		if (off + len > cap)
			off = cap - len;
		t += (uint64_t)(rand_r(&seed) % 3000) * 1000;
		wc_disk_serve(d, op, off, len, r % 7 == 0, t, &c);
		check_sum(&c);
		ck_assert_uint_ge(c.start_ns, last_end);
		ck_assert_uint_le(c.dirty_bytes, 256 * 1024);
		last_end = c.end_ns;
	}
	wc_disk_free(d);
	wc_disk_free(NULL);
}
END_TEST

/* Submits a command arriving at t. */
static void submit(struct wc_disk *d, enum wc_disk_op op, uint64_t sector,
		   uint64_t bytes, uint64_t t, uint64_t tag)
{
	struct wc_disk_req r = {
		.op = op, .offset = sector * 512, .bytes = bytes,
		.arrival_ns = t, .tag = tag,
	};

	ck_assert_int_eq(wc_disk_submit(d, &r), 0);
}

START_TEST(queue_shortest_positioning_first)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t cap = 100 * GB / 512 * 512, n = cap / 512;
	/* far, middle, near, as fractions of the capacity: from the outer
	 * edge near is nearest, then middle (a 7 ms seek from near), far (20
	 * ms) last, whatever the rotation (at most 8.3 ms) */
	uint64_t sec[3] = { n / 100 * 99, n / 4, n / 200 };
	uint64_t order[3], busy[2], t = GB, depth;
	int i;

	for (depth = 1; depth <= 32; depth += 31) {
		plain_params(&p);
		p.write_cache = false;
		p.queue_depth = depth;
		d = open_disk(&p, cap);
		for (i = 0; i < 3; i++)
			submit(d, WC_DISK_READ, sec[i], 4096, t, (uint64_t)i);
		ck_assert_uint_eq(wc_disk_pending(d), 3);
		ck_assert_uint_eq(wc_disk_next_start(d), t);
		for (i = 0; i < 3; i++) {
			ck_assert(wc_disk_next(d, &c));
			check_sum(&c);
			order[i] = c.tag;
			ck_assert_uint_eq(c.queued, depth == 1 ? 1 : 3 - (uint32_t)i);
			ck_assert_uint_ge(c.start_ns, c.arrival_ns);
		}
		ck_assert(!wc_disk_next(d, &c));
		ck_assert_uint_eq(wc_disk_next_start(d), UINT64_MAX);
		busy[depth == 1 ? 0 : 1] = c.end_ns - t;
		if (depth == 1) {	/* no queueing: arrival order */
			ck_assert_uint_eq(order[0], 0);
			ck_assert_uint_eq(order[1], 1);
			ck_assert_uint_eq(order[2], 2);
		} else {		/* nearest first */
			ck_assert_uint_eq(order[0], 2);
			ck_assert_uint_eq(order[1], 1);
			ck_assert_uint_eq(order[2], 0);
		}
		wc_disk_free(d);
	}
	ck_assert_uint_lt(busy[1], busy[0]);
}
END_TEST

/* One far read among a stream of near ones that keeps 32 queued: only
 * the age limit gets it served. */
static uint64_t far_read_wait(double age_ms, uint64_t *max_service)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t cap = 100 * GB / 512 * 512, n = cap / 512, t = GB, wait = 0;
	unsigned seed = 3;
	int i;
	bool served = false;

	plain_params(&p);
	p.write_cache = false;
	p.queue_depth = 32;
	p.queue_age_ms = age_ms;
	d = open_disk(&p, cap);
	submit(d, WC_DISK_READ, n - 8, 4096, t, 1);
	for (i = 0; i < 31; i++)
		submit(d, WC_DISK_READ, (uint64_t)rand_r(&seed) % (n / 200), 4096, t, 0);
	*max_service = 0;
	for (i = 0; i < 2000 && !served; i++) {
		ck_assert(wc_disk_next(d, &c));
		check_sum(&c);
		if (c.end_ns - c.start_ns > *max_service)
			*max_service = c.end_ns - c.start_ns;
		if (c.tag == 1) {
			served = true;
			wait = c.start_ns - c.arrival_ns;
		}
		submit(d, WC_DISK_READ, (uint64_t)rand_r(&seed) % (n / 200), 4096,
		       c.end_ns, 0);
	}
	wc_disk_free(d);
	return served ? wait : UINT64_MAX;
}

START_TEST(queue_starvation_bound)
{
	uint64_t wait, service;

	/* without a limit the far read waits for ever (2000 others served) */
	ck_assert_uint_eq(far_read_wait(0, &service), UINT64_MAX);
	/* with one it starts within the limit plus the command in progress */
	wait = far_read_wait(100, &service);
	ck_assert_uint_ne(wait, UINT64_MAX);
	ck_assert_uint_ge(wait, 100 * MS);
	ck_assert_uint_le(wait, 100 * MS + service);
	wait = far_read_wait(20, &service);
	ck_assert_uint_ge(wait, 20 * MS);
	ck_assert_uint_le(wait, 20 * MS + service);
}
END_TEST

START_TEST(queue_drains_around_flush)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c[5];
	uint64_t cap = 100 * GB / 512 * 512, n = cap / 512, t = GB, fl = 0;
	int i, q;

	for (q = 0; q < 2; q++) {
		plain_params(&p);
		p.idle_destage = false;
		p.flush_queued = q == 1;
		d = open_disk(&p, cap);
		/* a write the cache takes, so the flush has work; two far
		 * reads; the flush; a near read after it, the nearest of all */
		submit(d, WC_DISK_WRITE, n / 2, 65536, t, 0);
		submit(d, WC_DISK_READ, n / 100 * 99, 4096, t, 1);
		submit(d, WC_DISK_READ, n / 100 * 98, 4096, t, 2);
		submit(d, WC_DISK_FLUSH, 0, 0, t, 3);
		submit(d, WC_DISK_READ, 8, 4096, t, 4);
		for (i = 0; i < 5; i++) {
			ck_assert(wc_disk_next(d, &c[i]));
			check_sum(&c[i]);
			if (c[i].op == WC_DISK_FLUSH)
				fl = (uint64_t)i;
			if (i > 0)
				ck_assert_uint_ge(c[i].start_ns, c[i - 1].end_ns);
		}
		if (q == 0) {
			/* SATA: everything before the flush is done before
			 * it starts, and the near read waits behind it */
			ck_assert_uint_eq(fl, 3);
			ck_assert_uint_eq(c[3].destage_bytes, 65536);
			ck_assert_uint_eq(c[4].tag, 4);
		} else {
			/* NVMe: the write, then the flush passes the reads */
			ck_assert_uint_eq(c[0].tag, 0);
			ck_assert_uint_eq(fl, 1);
			ck_assert_uint_eq(c[1].destage_bytes, 65536);
			ck_assert_uint_eq(c[2].tag, 4);
		}
		wc_disk_free(d);
	}
}
END_TEST

/* A random queued workload: every row adds up, commands never overlap,
 * destage rows lie in their cause or between commands, and the rows'
 * parts partition the busy time exactly. */
START_TEST(destage_accounting)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	const struct wc_disk_cost *rows;
	uint64_t t = GB, cap = 1 * GB / 512 * 512, last_end = 0, parts = 0,
		 busy = 0, cover = 0, waited, nrows = 0, forced = 0, idle = 0,
		 last_busy;
	unsigned seed = 11;
	size_t k, j;
	int i;

	wc_disk_params_init(&p);
	p.cache_kib = 256;
	p.idle_destage_ms = 5;
	d = open_disk(&p, cap);
	for (i = 0; i < 20000; i++) {
		unsigned r = (unsigned)rand_r(&seed);
		enum wc_disk_op op = r % 10 == 0 ? WC_DISK_FLUSH :
			r % 3 == 0 ? WC_DISK_READ : WC_DISK_WRITE;
		uint64_t off = (uint64_t)rand_r(&seed) % (cap / 4096) * 4096;
		uint64_t len = 4096ull << (rand_r(&seed) % 6);
		struct wc_disk_req q = { .op = op, .offset = off, .bytes = len,
					 .fua = r % 7 == 0 };

		if (off + len > cap)
			q.offset = cap - len;
		t += (uint64_t)(rand_r(&seed) % 3000) * 1000 + (r % 20 == 0 ? 300 * MS : 0);
		q.arrival_ns = t;
		ck_assert_int_eq(wc_disk_submit(d, &q), 0);
		/* serve what would start before the next arrival, some of the
		 * time (so that queues build up) */
		while (wc_disk_pending(d) > (r % 4 == 0 ? 0u : 20u) &&
		       wc_disk_next(d, &c)) {
			check_sum(&c);
			ck_assert_uint_ge(c.start_ns, last_end);
			ck_assert_uint_ge(c.start_ns, c.arrival_ns);
			last_busy = last_end;
			ck_assert_uint_le(c.queued, 32);
			ck_assert_uint_le(c.dirty_bytes, 256 * 1024);
			waited = 0;
			k = wc_disk_destaged(d, &rows);
			for (j = 0; j < k; j++) {
				const struct wc_disk_cost *w = &rows[j];

				ck_assert_int_eq(w->op, WC_DISK_DESTAGE);
				ck_assert_uint_eq(w->end_ns - w->start_ns,
						  w->position_ns + w->transfer_ns);
				ck_assert_uint_eq(w->overhead_ns + w->destage_ns, 0);
				if (w->cause_seq == 0) {
					ck_assert_uint_ge(w->start_ns, last_end);
					ck_assert_uint_le(w->end_ns, c.start_ns);
					last_busy = w->end_ns;
					idle++;
				} else {
					ck_assert_uint_eq(w->cause_seq, c.seq);
					ck_assert_uint_ge(w->start_ns, c.start_ns);
					ck_assert_uint_le(w->end_ns, c.end_ns);
					waited += w->end_ns - w->start_ns;
					forced++;
				}
				if (j > 0)
					ck_assert_uint_ge(w->start_ns, rows[j - 1].end_ns);
				parts += w->position_ns + w->transfer_ns;
				if (w->cause_seq == 0)
					busy += w->end_ns - w->start_ns;
				nrows++;
			}
			ck_assert_uint_eq(waited, c.destage_ns);
			/* never idle while a command waits: one that did not
			 * start on arrival started when the disk was free */
			if (c.start_ns > c.arrival_ns)
				ck_assert_uint_eq(c.start_ns, last_busy);
			parts += c.overhead_ns + c.position_ns + c.transfer_ns;
			/* commands' intervals contain their forced destage
			 * and are disjoint from everything else */
			busy += c.end_ns - c.start_ns;
			last_end = c.end_ns;
			cover++;
		}
	}
	ck_assert_uint_eq(parts, busy);
	ck_assert_uint_gt(forced, 100);
	ck_assert_uint_gt(idle, 100);
	ck_assert_uint_gt(nrows, 0);
	ck_assert_uint_gt(cover, 10000);
	wc_disk_free(d);
}
END_TEST

START_TEST(param_files)
{
	char path[256];
	struct wc_disk_params p;
	struct wc_err err;
	FILE *fp;
	int fd;
	char big[400];

	wc_check_template(path, sizeof(path), "check_diskmodel");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	fputs("# a comment\n\nmodel = ssd\nrpm=5400   # trailing comment\n"
	      "write_cache = off\ncache_kib = 2048\n", fp);
	fclose(fp);
	wc_disk_params_init(&p);
	wc_err_clear(&err);
	ck_assert_msg(wc_disk_params_load(&p, path, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(p.model, WC_DISK_SSD);
	ck_assert(p.rpm == 5400);
	ck_assert(!p.write_cache);
	ck_assert_uint_eq(p.cache_kib, 2048);

	fp = fopen(path, "w");
	fputs("rpm = 7200\nrmp = 7200\n", fp);
	fclose(fp);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_load(&p, path, &err), 0);
	ck_assert_uint_eq(err.offset, 11);
	ck_assert(strstr(err.msg, "unknown disk parameter 'rmp'") != NULL);

	fp = fopen(path, "w");
	fputs("rpm 7200\n", fp);
	fclose(fp);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_load(&p, path, &err), 0);
	ck_assert(strstr(err.msg, "no '='") != NULL);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fp = fopen(path, "w");
	fprintf(fp, "rpm = 1\n# %s\n", big);
	fclose(fp);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_load(&p, path, &err), 0);
	ck_assert_uint_eq(err.offset, 8);
	ck_assert(strstr(err.msg, "line longer") != NULL);
	unlink(path);

	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_param_set(&p, "cache_kib", "1.5", &err), 0);
	ck_assert_int_lt(wc_disk_param_set(&p, "rpm", "-1", NULL), 0);
	ck_assert_int_lt(wc_disk_param_set(&p, "rpm", "7200x", NULL), 0);
	ck_assert_int_lt(wc_disk_param_set(&p, "plp", "yes", NULL), 0);
	ck_assert_int_eq(wc_disk_param_set(&p, "plp", "on", NULL), 0);
	ck_assert(p.plp);
}
END_TEST


/* A parameter file is the user's or an installed disk's, never a
 * device, a FIFO or a stream without end: each fails at once, and a NUL
 * inside a line is an error, not a cut. */
START_TEST(param_files_hostile)
{
	struct wc_disk_params p;
	struct wc_err err;
	const char *fifo = wc_check_path("fifo");
	const char *nul = wc_check_path("nul");
	FILE *fp;

	wc_disk_params_init(&p);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_load(&p, "/dev/zero", &err), 0);
	ck_assert_msg(strstr(err.msg, "not a regular file"), "%s", err.msg);

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_load(&p, fifo, &err), 0);
	ck_assert_msg(strstr(err.msg, "not a regular file"), "%s", err.msg);

	/* "rpm = 5400\0...": the rest of the line was dropped silently */
	fp = fopen(nul, "w");
	ck_assert_ptr_nonnull(fp);
	fwrite("model = ssd\nrpm = 5400\0 garbage\n", 1, 33, fp);
	fclose(fp);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_load(&p, nul, &err), 0);
	ck_assert_msg(strstr(err.msg, "NUL"), "%s", err.msg);
	ck_assert_uint_eq(err.offset, 22);

	/* a stream of NULs (the reader used to take them as empty lines,
	 * for ever) */
	fp = fopen("/dev/zero", "r");
	ck_assert_ptr_nonnull(fp);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_read(&p, fp, "/dev/zero", &err), 0);
	fclose(fp);
	/* nor one of blank lines without end */
	fp = fopen(nul, "w");
	for (int i = 0; i < 70000; i++)
		fputc('\n', fp);
	fclose(fp);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_load(&p, nul, &err), 0);
	ck_assert_msg(strstr(err.msg, "larger than"), "%s", err.msg);
	unlink(nul);
}
END_TEST

/* A disk's name from a capture is looked up, never opened as a path. */
/* The drive's own capacity: IDEMA LBA1-02's counts (its example for 80
 * GB, and the 500 GB drive hdd7200 cites), none below 50 GB. */
START_TEST(capacity_idema)
{
	struct wc_disk_params p;
	struct wc_err err;

	wc_disk_params_init(&p);
	ck_assert_uint_eq(p.capacity_gb, 0);
	ck_assert_uint_eq(wc_disk_capacity_bytes(&p), 0);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_disk_param_set(&p, "capacity_gb", "80", &err), 0);
	ck_assert_uint_eq(wc_disk_capacity_bytes(&p), 156301488ull * 512);
	ck_assert_int_eq(wc_disk_param_set(&p, "capacity_gb", "500", &err), 0);
	ck_assert_uint_eq(wc_disk_capacity_bytes(&p), 976773168ull * 512);
	ck_assert_int_eq(wc_disk_param_set(&p, "capacity_gb", "50", &err), 0);
	ck_assert_uint_eq(wc_disk_capacity_bytes(&p), 97696368ull * 512);
	ck_assert_int_eq(wc_disk_param_set(&p, "capacity_gb", "0", &err), 0);
	ck_assert_uint_eq(wc_disk_capacity_bytes(&p), 0);
	ck_assert_int_lt(wc_disk_param_set(&p, "capacity_gb", "49", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "capacity_gb"));
	ck_assert_int_lt(wc_disk_param_set(&p, "capacity_gb", "1", NULL), 0);
	ck_assert_int_lt(wc_disk_param_set(&p, "capacity_gb", "500.5", NULL), 0);
	ck_assert_int_lt(wc_disk_param_set(&p, "capacity_gb", "1000001", NULL), 0);
	ck_assert_int_lt(wc_disk_param_set(&p, "capacity_gb", "-500", NULL), 0);
	ck_assert_uint_eq(p.capacity_gb, 0);
}
END_TEST

/* Images placed: back to back as the platter without offsets (capacity_gb
 * or not), as partitions with them; every bad placement refused. */
START_TEST(placement_rules)
{
	struct wc_disk_params p;
	struct wc_disk_placement pl;
	struct wc_err err;
	uint64_t sz[2] = { 1356ull << 20, 1356ull << 20 }, off[2];
	uint64_t cap;

	wc_disk_params_init(&p);
	wc_err_clear(&err);
	ck_assert_int_eq(wc_disk_place(&pl, &p, sz, 2, NULL, &err), 0);
	ck_assert_uint_eq(pl.n, 2);
	ck_assert_uint_eq(pl.offset[0], 0);
	ck_assert_uint_eq(pl.offset[1], sz[0]);
	ck_assert_uint_eq(pl.capacity_bytes, sz[0] + sz[1]);
	/* offsets need a capacity */
	off[0] = 1 << 20, off[1] = 100 * GB;
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 2, off, &err), 0);
	ck_assert_uint_eq(pl.n, 0);
	ck_assert_int_lt(wc_disk_partition_offsets(&p, 2, off, NULL), 0);
	p.capacity_gb = 500;
	cap = wc_disk_capacity_bytes(&p);
	/* a capacity alone changes nothing */
	ck_assert_int_eq(wc_disk_place(&pl, &p, sz, 2, NULL, NULL), 0);
	ck_assert_uint_eq(pl.capacity_bytes, sz[0] + sz[1]);
	ck_assert_int_eq(wc_disk_partition_offsets(&p, 2, off, NULL), 0);
	ck_assert_uint_eq(off[0], 1 << 20);
	ck_assert_uint_eq(off[1] % (1 << 20), 0);
	ck_assert_uint_le(off[1], cap / 2);
	ck_assert_uint_gt(off[1], cap / 2 - (1 << 20));
	ck_assert_int_eq(wc_disk_place(&pl, &p, sz, 2, off, NULL), 0);
	ck_assert_uint_eq(pl.capacity_bytes, cap);
	ck_assert_uint_eq(pl.offset[1], off[1]);
	ck_assert_uint_eq(pl.bytes[1], sz[1]);
	/* overlapping, out of order, unaligned, past the end, empty */
	off[1] = off[0] + sz[0] - 512;
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 2, off, &err), 0);
	off[1] = off[0] + sz[0];
	ck_assert_int_eq(wc_disk_place(&pl, &p, sz, 2, off, NULL), 0);
	off[0] = 200 * GB, off[1] = 1 << 20;
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 2, off, NULL), 0);
	off[0] = (1 << 20) + 1, off[1] = 100 * GB;
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 2, off, NULL), 0);
	off[0] = 1 << 20, off[1] = cap - sz[1] + 512;
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 2, off, NULL), 0);
	off[1] = cap - sz[1];
	ck_assert_int_eq(wc_disk_place(&pl, &p, sz, 2, off, NULL), 0);
	off[1] = UINT64_MAX / 512 * 512;
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 2, off, NULL), 0);
	sz[1] = 1000;
	off[1] = 100 * GB;
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 2, off, NULL), 0);
	sz[1] = 0;
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 2, NULL, NULL), 0);
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, 0, NULL, NULL), 0);
	ck_assert_int_lt(wc_disk_place(&pl, &p, sz, WC_DISK_MAX_REGIONS + 1,
				       NULL, NULL), 0);
	ck_assert_int_lt(wc_disk_partition_offsets(&p, 0, off, NULL), 0);
}
END_TEST

/* What placement is for: a 1.3 GB filesystem as a partition of a 500 GB
 * disk covers a fraction of the stroke (seeks inside it near
 * track-to-track, its rate nearly constant), and the seek to the other
 * partition at half the capacity is long; spread over the whole platter
 * the same image has seeks across of a full stroke. */
START_TEST(placement_geometry)
{
	struct wc_disk_params p;
	struct wc_disk_placement whole, part;
	uint64_t sz[2] = { 1356ull << 20, 1356ull << 20 }, off[2];
	struct wc_disk *dw, *dp;
	uint64_t c0, c1, d0;

	plain_params(&p);
	p.capacity_gb = 500;
	ck_assert_int_eq(wc_disk_place(&whole, &p, sz, 2, NULL, NULL), 0);
	ck_assert_int_eq(wc_disk_partition_offsets(&p, 2, off, NULL), 0);
	ck_assert_int_eq(wc_disk_place(&part, &p, sz, 2, off, NULL), 0);
	dw = open_disk(&p, whole.capacity_bytes);
	dp = open_disk(&p, part.capacity_bytes);
	/* the whole platter: the two images span every cylinder */
	ck_assert_uint_eq(wc_disk_cylinder(dw, 0), 0);
	ck_assert_uint_eq(wc_disk_cylinder(dw, whole.capacity_bytes / 512 - 1),
			  p.cylinders - 1);
	/* a partition: under 0.5 % of the cylinders, a seek across it under
	 * 1.5 ms (the track-to-track seek is 1 ms), its rate within 0.2 % */
	c0 = wc_disk_cylinder(dp, part.offset[0] / 512);
	c1 = wc_disk_cylinder(dp, (part.offset[0] + sz[0]) / 512 - 1);
	ck_assert_uint_lt(c1 - c0, p.cylinders / 200);
	ck_assert_uint_lt(wc_disk_seek_ns(dp, c1 - c0), 1500000);
	ck_assert_double_lt(wc_disk_media_rate(dp, part.offset[0] / 512) -
			    wc_disk_media_rate(dp, (part.offset[0] + sz[0]) / 512 - 1),
			    0.002 * p.media_outer_mbs * 1e6);
	/* the other partition: half the capacity away, a long seek (more
	 * than the average seek over a random distance) */
	d0 = wc_disk_cylinder(dp, part.offset[1] / 512) - c0;
	ck_assert_uint_gt(wc_disk_seek_ns(dp, d0), (uint64_t)(p.seek_avg_ms * 1e6));
	/* the same distance as seen by the whole-platter image: across */
	ck_assert_uint_gt(wc_disk_seek_ns(dw, wc_disk_cylinder(dw, sz[0] / 512 - 1)),
			  (uint64_t)(p.seek_avg_ms * 1e6));
	wc_disk_free(dw);
	wc_disk_free(dp);
}
END_TEST

START_TEST(disk_names)
{
	static const char *const bad[] = {
		"", "/etc/passwd", "../disks/ssd", "a/b", ".hidden", "-x", "..",
		"ssd..", "a\x1b[2Jb", "ssd\n", "a b",
		"0123456789012345678901234567890123456789012345678901234567890123x",
	};
	struct wc_disk_params p;
	struct wc_err err;
	const char *dirs[3] = { NULL, wc_check_path("none"), wc_check_path("d") };
	char path[512];
	FILE *fp;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wc_err_clear(&err);
		ck_assert_msg(wc_disk_name_check(bad[i], &err) < 0, "%s", bad[i]);
		ck_assert_int_eq(err.kind, WC_ERR_INPUT);
	}
	ck_assert_int_eq(wc_disk_name_check("hdd7200", NULL), 0);
	ck_assert_int_eq(wc_disk_name_check("ssd-plp_2.0+x", NULL), 0);

	ck_assert_int_eq(mkdir(dirs[2], 0700), 0);
	snprintf(path, sizeof(path), "%s/fast", dirs[2]);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("model = ssd\n", fp);
	fclose(fp);
	wc_disk_params_init(&p);
	wc_err_clear(&err);
	ck_assert_msg(wc_disk_params_find(&p, "fast", dirs, 3, &err) == 0, "%s",
		      err.msg);
	ck_assert_int_eq(p.model, WC_DISK_SSD);
	/* a path is refused before any folder is looked in */
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_find(&p, path, dirs, 3, &err), 0);
	ck_assert_msg(strstr(err.msg, "never opened as a path"), "%s", err.msg);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_find(&p, "slow", dirs, 3, &err), 0);
	ck_assert_int_eq(err.kind, WC_ERR_USAGE);
	/* an installed disk that is a link, or a FIFO, is not read */
	snprintf(path, sizeof(path), "%s/link", dirs[2]);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_find(&p, "link", dirs, 3, &err), 0);
	ck_assert_msg(strstr(err.msg, "symbolic link"), "%s", err.msg);
	snprintf(path, sizeof(path), "%s/fifo", dirs[2]);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	wc_err_clear(&err);
	ck_assert_int_lt(wc_disk_params_find(&p, "fifo", dirs, 3, &err), 0);
	ck_assert_msg(strstr(err.msg, "not a regular file"), "%s", err.msg);
}
END_TEST

/* A write that waits for room: without the overlap it pays destage then
 * its interface time; with it, the later of the two (issue 40). */
START_TEST(interface_overlaps_destage)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c, off_c;
	uint64_t t, i, iface = (uint64_t)llround(65536 / 250e6 * 1e9);
	int overlap;

	for (overlap = 0; overlap < 2; overlap++) {
		plain_params(&p);
		p.cache_kib = 1024;
		p.idle_destage = false;
		p.interface_overlap = overlap;
		d = open_disk(&p, 1 * GB / 512 * 512);
		for (i = 0, t = GB; i < 16; i++) {
			wc_disk_serve(d, WC_DISK_WRITE, i * 50000000ull / 512 * 512,
				      65536, false, t, &c);
			t = c.end_ns + 1000;
		}
		wc_disk_serve(d, WC_DISK_WRITE, 900ull << 20, 65536, false, t, &c);
		check_sum(&c);
		ck_assert_uint_gt(c.destage_ns, iface);	/* a seek at least */
		if (!overlap) {
			ck_assert_uint_eq(c.transfer_ns, iface);
			off_c = c;
		} else {
			/* the destage outlasts the transfer: none left after */
			ck_assert_uint_eq(c.transfer_ns, 0);
			ck_assert_uint_eq(c.destage_ns, off_c.destage_ns);
			ck_assert_uint_eq(c.end_ns - c.start_ns,
					  off_c.end_ns - off_c.start_ns - iface);
		}
		/* a write that needs no room still pays its transfer */
		wc_disk_serve(d, WC_DISK_WRITE, 900ull << 20, 4096, false,
			      c.end_ns + MS, &c);
		ck_assert_uint_eq(c.destage_ns, 0);
		ck_assert(llabs((long long)c.transfer_ns - (long long)(4096 / 250e6 * 1e9)) <= 1);
		wc_disk_free(d);
	}
}
END_TEST

/* A write seeks on the curve through the write figures: track-to-track
 * write_settle_track_ms above a read's, average and full stroke
 * write_settle_ms above; a write that does not move the head, no longer. */
START_TEST(write_settle)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost r, w;
	uint64_t far = 500ull << 20, t, n, k;
	double mean = 0, wsum = 0, wt;

	plain_params(&p);
	p.write_cache = false;
	p.write_settle_ms = 1.0;
	p.write_settle_track_ms = 0.1;
	d = open_disk(&p, 1 * GB / 512 * 512);
	n = p.cylinders;
	ck_assert_uint_eq(wc_disk_seek_write_ns(d, 0), 0);
	ck_assert_uint_eq(wc_disk_seek_write_ns(d, 1), wc_disk_seek_ns(d, 1) + MS / 10);
	ck_assert(llabs((long long)wc_disk_seek_write_ns(d, n + 1) - (long long)(21 * MS)) <= 1);
	for (k = 1; k < n; k++) {
		ck_assert_uint_ge(wc_disk_seek_write_ns(d, k), wc_disk_seek_write_ns(d, k - 1));
		wt = 2.0 * (double)(n - k);
		mean += wt * (double)wc_disk_seek_write_ns(d, k);
		wsum += wt;
	}
	mean /= wsum;
	ck_assert_msg(fabs(mean - 9.5e6) < 0.01e6, "mean write seek %.0f ns", mean);
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, GB, &r);
	wc_disk_serve(d, WC_DISK_READ, far, 4096, false, r.end_ns + MS, &r);
	check_sum(&r);
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, r.end_ns + MS, &w);
	wc_disk_serve(d, WC_DISK_WRITE, far, 4096, false, w.end_ns + MS, &w);
	check_sum(&w);
	ck_assert_uint_gt(w.seek_ns, r.seek_ns + MS / 10);
	ck_assert_uint_eq(w.seek_ns, wc_disk_seek_write_ns(d, wc_disk_cylinder(d, far / 512)));
	/* the same cylinder, a little later on the track: no seek, no settle */
	t = w.end_ns + 10 * MS;
	wc_disk_serve(d, WC_DISK_WRITE, far + 8192, 4096, false, t, &w);
	ck_assert_uint_eq(w.seek_ns, 0);
	wc_disk_free(d);
}
END_TEST

/* Two sequential streams read in turn: one read-ahead segment follows
 * only the last; two keep both (a drive's segmented buffer). */
START_TEST(readahead_segments_interleaved)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t a = 0, b = 600ull << 20, t;
	int segs, i, hits;

	for (segs = 1; segs <= 2; segs++) {
		plain_params(&p);
		p.readahead_kib = 512;
		p.readahead_segments = (uint64_t)segs;
		d = open_disk(&p, 1 * GB / 512 * 512);
		t = GB;
		hits = 0;
		for (i = 0; i < 4; i++) {
			/* 20 ms apart: each segment grows to its 512 KiB
			 * before the other stream's read stops it */
			wc_disk_serve(d, WC_DISK_READ, a + (uint64_t)i * 65536, 65536,
				      false, t, &c);
			check_sum(&c);
			hits += c.cache_hit;
			t += 20 * MS;
			wc_disk_serve(d, WC_DISK_READ, b + (uint64_t)i * 65536, 65536,
				      false, t, &c);
			hits += c.cache_hit;
			t += 20 * MS;
		}
		/* the first read of each stream misses; with two segments
		 * every later one hits, with one none does */
		ck_assert_int_eq(hits, segs == 1 ? 0 : 6);
		wc_disk_free(d);
	}
}
END_TEST

/* idle_destage_ms 0: the destage starts as soon as the last command
 * ends; idle_destage off: never. */
START_TEST(destage_when_head_free)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	const struct wc_disk_cost *rows;
	uint64_t end;

	plain_params(&p);
	p.idle_destage_ms = 0;
	d = open_disk(&p, 1 * GB / 512 * 512);
	wc_disk_serve(d, WC_DISK_WRITE, 1 << 20, 65536, false, GB, &c);
	end = c.end_ns;
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, end + 1000, &c);
	ck_assert_uint_eq(wc_disk_destaged(d, &rows), 1);
	ck_assert_uint_eq(rows[0].start_ns, end);
	ck_assert_uint_eq(rows[0].cause_seq, 0);
	ck_assert_uint_eq(c.start_ns, rows[0].end_ns);
	ck_assert_uint_eq(c.dirty_bytes, 0);
	wc_disk_free(d);

	p.idle_destage = false;
	d = open_disk(&p, 1 * GB / 512 * 512);
	wc_disk_serve(d, WC_DISK_WRITE, 1 << 20, 65536, false, GB, &c);
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, c.end_ns + 1000 * MS, &c);
	ck_assert_uint_eq(c.dirty_bytes, 65536);
	ck_assert_uint_eq(c.background_ns, 0);
	wc_disk_free(d);
}
END_TEST

/* An ssd's flush of many scattered ranges: with destage_parallel one
 * program latency for the run, not one a range. */
START_TEST(ssd_flush_parallel)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	uint64_t t, i, xfer, n = 1000;
	int par;

	for (par = 0; par < 2; par++) {
		plain_params(&p);
		p.model = WC_DISK_SSD;
		p.media_outer_mbs = p.media_inner_mbs = 500;
		p.write_us = 200;
		p.cache_kib = 16384;
		p.idle_destage = false;
		p.destage_parallel = par;
		d = open_disk(&p, 1 * GB / 512 * 512);
		for (i = 0, t = GB; i < n; i++) {
			wc_disk_serve(d, WC_DISK_WRITE, i * 1000000ull / 512 * 512,
				      4096, false, t, &c);
			t = c.end_ns + 1000;
		}
		wc_disk_serve(d, WC_DISK_FLUSH, 0, 0, false, t, &c);
		check_sum(&c);
		xfer = n * (uint64_t)llround(4096 / 500e6 * 1e9);
		if (par)
			ck_assert(llabs((long long)c.destage_ns -
					(long long)(200000 + xfer)) <= (long long)n);
		else
			ck_assert(llabs((long long)c.destage_ns -
					(long long)(n * 200000 + xfer)) <= (long long)n);
		wc_disk_free(d);
	}
}
END_TEST

/* With interface_overlap a write the cache takes, or a read it holds,
 * does not wait for an idle destage range in progress: only the head is
 * busy.  A read from the media still waits for the range. */
START_TEST(buffer_hit_during_idle_destage)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;
	const struct wc_disk_cost *rows;
	uint64_t end, arrival;
	int overlap;

	for (overlap = 0; overlap < 2; overlap++) {
		plain_params(&p);
		p.idle_destage_ms = 0;
		p.interface_overlap = overlap;
		d = open_disk(&p, 1 * GB / 512 * 512);
		wc_disk_serve(d, WC_DISK_WRITE, 1 << 20, 65536, false, GB, &c);
		end = c.end_ns;
		arrival = end + 100000;	/* the destage has begun */
		wc_disk_serve(d, WC_DISK_WRITE, 500ull << 20, 4096, false, arrival, &c);
		check_sum(&c);
		ck_assert_uint_eq(wc_disk_destaged(d, &rows), 1);
		ck_assert_uint_eq(rows[0].start_ns, end);
		ck_assert_uint_gt(rows[0].end_ns, arrival);
		if (overlap) {
			ck_assert_uint_eq(c.start_ns, arrival);
			ck_assert_uint_lt(c.end_ns, rows[0].end_ns);
		} else {
			ck_assert_uint_eq(c.start_ns, rows[0].end_ns);
		}
		/* a media read right after waits for the head either way */
		end = rows[0].end_ns;
		wc_disk_serve(d, WC_DISK_READ, 800ull << 20, 4096, false, c.end_ns + 1000, &c);
		check_sum(&c);
		ck_assert_uint_ge(c.start_ns, end);
		wc_disk_free(d);
	}
}
END_TEST

static Suite *diskmodel_suite(void)
{
	Suite *s = suite_create("diskmodel");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, seek_curve);
	tcase_add_test(tc, seek_params_rejected);
	tcase_add_test(tc, rotation_from_clock);
	tcase_add_test(tc, angle_is_fmod_exactly);
	tcase_add_test(tc, zones);
	tcase_add_test(tc, cache_fill_and_destage_when_full);
	tcase_add_test(tc, destage_elevator_order);
	tcase_add_test(tc, destage_rotational_order);
	tcase_add_test(tc, destage_when_idle);
	tcase_add_test(tc, flush_and_plp);
	tcase_add_test(tc, fua_and_write_through);
	tcase_add_test(tc, ssd_latency);
	tcase_add_test(tc, invariants_random);
	tcase_add_test(tc, queue_shortest_positioning_first);
	tcase_add_test(tc, queue_starvation_bound);
	tcase_add_test(tc, queue_drains_around_flush);
	tcase_add_test(tc, destage_accounting);
	tcase_add_test(tc, param_files);
	tcase_add_test(tc, interface_overlaps_destage);
	tcase_add_test(tc, write_settle);
	tcase_add_test(tc, readahead_segments_interleaved);
	tcase_add_test(tc, destage_when_head_free);
	tcase_add_test(tc, ssd_flush_parallel);
	tcase_add_test(tc, buffer_hit_during_idle_destage);
	suite_add_tcase(s, tc);
	/* each case fails at once, or not at all */
	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, param_files_hostile);
	tcase_add_test(tc, disk_names);
	tcase_add_test(tc, capacity_idema);
	tcase_add_test(tc, placement_rules);
	tcase_add_test(tc, placement_geometry);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(diskmodel_suite)
