/*
 * check_diskmodel.c - unit tests of analyze/lib/diskmodel.c: the seek
 * curve's end points and mean, rotational latency from the clock, zoned
 * media rates, the write cache (fill, destage when full, when idle and on
 * flush, in elevator order), FUA and write-through, parameter files.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_common.h"
#include "diskmodel.h"

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
	p.idle_destage_ms = 0;
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
	p.idle_destage_ms = 0;
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
	ck_assert_uint_eq(c.background_ns, 0);
	ck_assert_uint_eq(c.dirty_bytes, 65536);
	end = c.end_ns;
	/* just after it: the destage has begun and this request waits */
	wc_disk_serve(d, WC_DISK_READ, 0, 4096, false, end + 100 * MS + 10000, &c);
	check_sum(&c);
	ck_assert_uint_gt(c.destage_ns, 0);
	ck_assert_uint_eq(c.background_ns, 10000);
	ck_assert_uint_eq(c.dirty_bytes, 0);
	wc_disk_free(d);
}
END_TEST

START_TEST(flush_and_plp)
{
	struct wc_disk_params p;
	struct wc_disk *d;
	struct wc_disk_cost c;

	plain_params(&p);
	p.idle_destage_ms = 0;
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
	p.idle_destage_ms = 0;
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

static Suite *diskmodel_suite(void)
{
	Suite *s = suite_create("diskmodel");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, seek_curve);
	tcase_add_test(tc, seek_params_rejected);
	tcase_add_test(tc, rotation_from_clock);
	tcase_add_test(tc, zones);
	tcase_add_test(tc, cache_fill_and_destage_when_full);
	tcase_add_test(tc, destage_elevator_order);
	tcase_add_test(tc, destage_when_idle);
	tcase_add_test(tc, flush_and_plp);
	tcase_add_test(tc, fua_and_write_through);
	tcase_add_test(tc, ssd_latency);
	tcase_add_test(tc, invariants_random);
	tcase_add_test(tc, param_files);
	suite_add_tcase(s, tc);
	return s;
}

WC_CHECK_MAIN(diskmodel_suite)
