/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diskmodel_curve - prints what a disk model does with its parameters, for
 * docs/model-disk.md: the seek curve, rotational latency over arrivals
 * spread across a turn, media rate by position, and the cost of
 * destaging a full write cache (sequential and scattered) on a flush.
 *
 *     diskmodel_curve [PARAMETER-FILE [CAPACITY-MB]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "disk/diskmodel.h"

#define MS 1e6

int main(int argc, char **argv)
{
	struct wc_disk_params p;
	struct wc_disk *d = NULL;
	struct wc_disk_cost c;
	struct wc_err err;
	char msg[1600];
	uint64_t cap = 2048ull << 20, t, i, n, dist[] = { 1, 2, 10, 100, 1000, 10000, 33333, 50000, 100000 };
	double sum = 0;
	unsigned seed = 1;
	int rc = EXIT_FAILURE;

	wc_err_clear(&err);
	wc_disk_params_init(&p);
	if (argc > 1 && wc_disk_params_load(&p, argv[1], &err) < 0)
		goto report;
	if (argc > 2)
		cap = strtoull(argv[2], NULL, 10) << 20;
	if (wc_disk_open(&d, &p, cap, &err) < 0)
		goto report;
	printf("capacity %" PRIu64 " MiB, %" PRIu64 " cylinders\n", cap >> 20, p.cylinders);
	printf("seek curve: distance (cylinders) -> ms\n");
	for (i = 0; i < sizeof(dist) / sizeof(dist[0]); i++)
		if (dist[i] <= p.cylinders)
			printf("  %6" PRIu64 "  %7.3f\n", dist[i], wc_disk_seek_ns(d, dist[i]) / MS);
	printf("media rate: outer %.1f, middle of capacity %.1f, inner %.1f MB/s\n",
	       wc_disk_media_rate(d, 0) / 1e6, wc_disk_media_rate(d, cap / 1024) / 1e6,
	       wc_disk_media_rate(d, cap / 512 - 1) / 1e6);
	wc_disk_free(d);

	/* rotation: the same 4 KiB read arriving at 1000 points of a turn,
	 * no seek (same place each time), cache and read-ahead off */
	p.write_cache = false;
	p.readahead_kib = 0;
	p.stream_window_us = 0;
	if (wc_disk_open(&d, &p, cap, &err) < 0)
		goto report;
	t = 1000000000ull;
	n = 1000;
	for (i = 0; i < n; i++) {
		t += 100 * wc_disk_rev_ns(d) + wc_disk_rev_ns(d) * i / n;
		wc_disk_serve(d, WC_DISK_READ, 1 << 20, 4096, false, t, &c);
		sum += (double)c.rotation_ns;
		t = c.end_ns;
	}
	printf("rotational latency: mean %.3f ms over %" PRIu64 " arrivals (a turn is %.3f ms)\n",
	       sum / n / MS, n, wc_disk_rev_ns(d) / MS);
	wc_disk_free(d);

	/* destage on flush: the cache filled with sequential 64 KiB writes,
	 * then with scattered 4 KiB writes */
	p.write_cache = true;
	p.idle_destage = false;
	for (int scattered = 0; scattered < 2; scattered++) {
		uint64_t len = scattered ? 4096 : 65536, k = p.cache_kib * 1024 / len;

		if (wc_disk_open(&d, &p, cap, &err) < 0)
			goto report;
		t = 1000000000ull;
		for (i = 0; i < k; i++) {
			uint64_t off = scattered ? (uint64_t)rand_r(&seed) % (cap / 4096) * 4096 : i * len;

			wc_disk_serve(d, WC_DISK_WRITE, off, len, false, t, &c);
			t = c.end_ns;
		}
		wc_disk_serve(d, WC_DISK_FLUSH, 0, 0, false, t, &c);
		printf("flush of a full cache (%" PRIu64 " writes of %" PRIu64 " KiB, %s): %.1f ms, %.2f ms a write\n",
		       k, len / 1024, scattered ? "scattered" : "sequential",
		       c.destage_ns / MS, c.destage_ns / MS / (double)k);
		wc_disk_free(d);
	}
	rc = EXIT_SUCCESS;
report:
	if (rc != EXIT_SUCCESS)
		fprintf(stderr, "diskmodel_curve: %s\n", wc_err_format(&err, msg, sizeof(msg)));
	return rc;
}
