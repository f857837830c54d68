/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_diskparams.c - the disk-parameter reader (diskmodel.h: wcdisk
 * --disk, a what-if's disk=, the installed disks) and the disk-name
 * check a capture's disk_model goes through.
 *
 * The input is read as a disk file (wc_disk_params_read()) and checked
 * as a name (wc_disk_name_check()).  What must hold besides the
 * sanitizers: parameters read are written back (wc_disk_params_write())
 * in a form read again to the same text; a name that passes holds only
 * the name's characters and no ".."; a disk whose parameters pass
 * opens, takes a few requests and frees; its placement of two images
 * (wc_disk_place(): as the platter, and as the report's partitions when
 * it gives a capacity) lies inside the capacity, in order, and a disk of
 * that capacity opens.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk/diskmodel.h"
#include "fuzz.h"

static char *write_params(const struct wc_disk_params *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f || wc_disk_params_write(f, p) < 0)
		fuzz_fail("diskparams", "cannot write parameters");
	fclose(f);
	return buf;
}

static void name_check(const uint8_t *data, size_t size)
{
	char name[512];
	struct wc_err err;
	size_t i, n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;

	memcpy(name, data, n);
	name[n] = '\0';
	wc_err_clear(&err);
	if (wc_disk_name_check(name, &err) < 0)
		return;
	if (!name[0] || name[0] == '.' || name[0] == '-' || strstr(name, ".."))
		fuzz_fail("diskparams", "name '%s' passed", name);
	for (i = 0; name[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._+-", name[i]))
			fuzz_fail("diskparams", "name with byte 0x%02x passed",
				  (unsigned char)name[i]);
}

static void serve(const struct wc_disk_params *p)
{
	struct wc_disk *d = NULL;
	struct wc_disk_cost c;
	struct wc_err err;
	int i;

	wc_err_clear(&err);
	if (wc_disk_open(&d, p, 1ull << 30, &err) < 0)
		return;
	for (i = 0; i < 8; i++) {
		struct wc_disk_req r;

		memset(&r, 0, sizeof(r));
		r.tag = (uint64_t)i;
		r.op = i == 5 ? WC_DISK_FLUSH : i % 2 ? WC_DISK_WRITE :
							 WC_DISK_READ;
		r.offset = i == 5 ? 0 : (uint64_t)i * 1048576;
		r.bytes = i == 5 ? 0 : 4096u << i;
		r.arrival_ns = (uint64_t)i * 1000;
		wc_disk_submit(d, &r);
	}
	for (i = 0; i < 64 && wc_disk_next(d, &c); i++)
		;
	wc_disk_free(d);
}

static void place(const struct wc_disk_params *p)
{
	uint64_t sz[2] = { 1ull << 30, 512 }, off[2];
	struct wc_disk_placement pl;
	struct wc_disk *d = NULL;
	unsigned r;

	if (wc_disk_place(&pl, p, sz, 2, NULL, NULL) < 0 ||
	    pl.capacity_bytes != sz[0] + sz[1])
		fuzz_fail("diskparams", "images as the platter not placed");
	if (wc_disk_partition_offsets(p, 2, off, NULL) < 0) {
		if (wc_disk_capacity_bytes(p) != 0)
			fuzz_fail("diskparams", "a capacity without partitions");
		return;
	}
	if (wc_disk_place(&pl, p, sz, 2, off, NULL) < 0)
		return;		/* the images do not fit: refused */
	for (r = 0; r < 2; r++)
		if (pl.offset[r] % 512 || pl.offset[r] + pl.bytes[r] >
		    pl.capacity_bytes || (r && pl.offset[r] < pl.offset[r - 1] +
					  pl.bytes[r - 1]))
			fuzz_fail("diskparams", "image %u placed outside", r);
	if (wc_disk_open(&d, p, pl.capacity_bytes, NULL) == 0 &&
	    wc_disk_cylinder(d, pl.capacity_bytes / 512 - 1) >= p->cylinders &&
	    p->model == WC_DISK_HDD)
		fuzz_fail("diskparams", "a sector past the last cylinder");
	wc_disk_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wc_disk_params p, q;
	struct wc_err err;
	char *a, *b;
	size_t alen, blen;
	FILE *f;

	name_check(data, size);
	f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	if (!size)
		fgetc(f);
	wc_disk_params_init(&p);
	wc_err_clear(&err);
	if (wc_disk_params_read(&p, f, "fuzz", &err) < 0) {
		fclose(f);
		return 0;
	}
	fclose(f);
	a = write_params(&p, &alen);
	f = fmemopen(a, alen ? alen : 1, "r");
	if (!f)
		fuzz_fail("diskparams", "fmemopen failed");
	wc_disk_params_init(&q);
	wc_err_clear(&err);
	if (wc_disk_params_read(&q, f, "again", &err) < 0)
		fuzz_fail("diskparams", "its own output refused: %s\n%s",
			  err.msg, a);
	fclose(f);
	b = write_params(&q, &blen);
	if (alen != blen || memcmp(a, b, alen))
		fuzz_fail("diskparams", "written twice, not the same:\n%s\n%s",
			  a, b);
	serve(&p);
	place(&p);
	free(a);
	free(b);
	return 0;
}
