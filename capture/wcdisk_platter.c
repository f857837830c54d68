/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/datacache.h"
#include "disk/diskmodel.h"
#include "disk/platterlog.h"
#include "base/wcerr.h"
#include "wcdisk.h"
#include "wcdisk_platter.h"

/* ------------------------------------------------------------ regions */

/* The region holding model sector s (the last one past the end). */
unsigned region_of_sector(uint64_t s)
{
	unsigned r = g.nreg - 1;

	while (r > 0 && s < g.reg[r].base / 512)
		r--;
	return r;
}

/* A ledger row says the sector on the device it came through (the
 * region's file, as the trace of its loop device has it) and which. */
void region_localize(struct wc_disk_cost *c, unsigned r)
{
	c->region = r;
	if (c->op != WC_DISK_FLUSH)
		c->sector -= g.reg[r].base / 512;
}

/* Opens image path as region r (placed later, place_regions()). */
int region_open(unsigned r, const char *path, struct wc_err *err)
{
	struct region *reg = &g.reg[r];
	struct stat st;

	reg->fd = open(path, O_RDWR | O_CLOEXEC);
	if (reg->fd < 0 || fstat(reg->fd, &st) < 0)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	reg->size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode) || reg->size == 0 || reg->size % 512 != 0)
		return wc_err_set(err, WC_ERR_INPUT, path, NULL, WC_NO_OFFSET,
				  "not a regular file of a positive multiple of 512 bytes");
	g.nreg = r + 1;
	return 0;
}

/* Where the regions lie on the model disk (wc_disk_place()): offsets
 * (noff of them; auto: the report's partitions) or, with none, one after
 * the other; sets each base and the disk's size. */
int place_regions(const struct wc_disk_params *p, const uint64_t *offsets,
		  unsigned noff, bool autoplace,
		  struct wc_disk_placement *pl, struct wc_err *err)
{
	uint64_t bytes[MAX_REGIONS], off[MAX_REGIONS];
	unsigned r;

	for (r = 0; r < g.nreg; r++)
		bytes[r] = g.reg[r].size;
	if (autoplace) {
		if (wc_disk_partition_offsets(p, g.nreg, off, err) < 0)
			return -1;
		offsets = off;
	} else if (noff != 0 && noff != g.nreg) {
		return wc_err_set(err, WC_ERR_USAGE, NULL, NULL, WC_NO_OFFSET,
				  "%u --offset for %u images: one each, or auto",
				  noff, g.nreg);
	} else if (noff == 0) {
		offsets = NULL;
	}
	if (wc_disk_place(pl, p, bytes, g.nreg, offsets, err) < 0)
		return -1;
	for (r = 0; r < g.nreg; r++)
		g.reg[r].base = pl->offset[r];
	g.size = pl->capacity_bytes;
	return 0;
}

/* --print-placement: one row a region, where it lies and what a seek
 * inside it and from the region before costs. */
int print_placement(const struct wc_disk_params *p,
		    const struct wc_disk_placement *pl, struct wc_err *err)
{
	struct wc_disk *d = NULL;
	int rc = -1;

	if (wc_disk_open(&d, p, pl->capacity_bytes, err) < 0)
		return -1;
	if (printf("capacity_bytes\t%" PRIu64 "\n"
		   "region\toffset\tbytes\tfirst_cylinder\tlast_cylinder\t"
		   "outer_mbs\tinner_mbs\tseek_across_ms\tseek_from_previous_ms\n",
		   pl->capacity_bytes) < 0)
		goto free_disk;
	for (unsigned r = 0; r < pl->n; r++) {
		uint64_t s = pl->offset[r] / 512;
		uint64_t e = (pl->offset[r] + pl->bytes[r]) / 512 - 1;
		uint64_t c0 = wc_disk_cylinder(d, s), c1 = wc_disk_cylinder(d, e);
		uint64_t prev = r ? wc_disk_cylinder(d, pl->offset[r - 1] / 512) : c0;

		if (printf("%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
			   "\t%.3f\t%.3f\t%.3f\t%.3f\n", r, pl->offset[r],
			   pl->bytes[r], c0, c1, wc_disk_media_rate(d, s) / 1e6,
			   wc_disk_media_rate(d, e) / 1e6,
			   wc_disk_seek_ns(d, c1 - c0) / 1e6,
			   wc_disk_seek_ns(d, c0 - prev) / 1e6) < 0)
			goto free_disk;
	}
	if (fflush(stdout) != 0)
		goto free_disk;
	rc = 0;
free_disk:
	wc_disk_free(d);
	if (rc < 0 && err && err->kind == WC_ERR_NONE)
		wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
			   "cannot write the placement");
	return rc;
}

/* ------------------------------------------------------------ platter
 * What reaches the platter (the image), and the log of it.  The model
 * says what and when (its destage rows, in time order); these functions
 * move the bytes. */

/* Appends one record (and its data) to the platter log. */
void plog_put(enum wc_platter_kind kind, uint64_t sector, uint64_t n,
	      uint64_t t0, uint64_t t1, uint64_t atom_end,
	      const void *data)
{
	struct wc_platter_rec r = {
		.kind = kind, .sector = sector, .sectors = n,
		.start_ns = t0, .end_ns = t1, .atom_end_ns = atom_end,
	};
	uint8_t b[WC_PLATTER_REC_BYTES];

	if (!g.plog)
		return;
	wc_platter_rec_encode(&r, b);
	if (fwrite(b, sizeof(b), 1, g.plog) != 1 ||
	    (data && n > 0 && fwrite(data, 512, n, g.plog) != n))
		g.plog_failed = true;
}

/* The platter's bytes [off, off + len) of the model disk, read into or
 * written from buf, in the regions' files that hold them (a destage run
 * may span two).  0, or -1 with errno set. */
static int platter_io(bool write, unsigned char *buf, uint64_t len, uint64_t off)
{
	uint64_t part;
	unsigned r;
	ssize_t n;

	while (len > 0) {
		r = region_of_sector(off / 512);
		part = g.reg[r].base + g.reg[r].size - off;
		if (part > len)
			part = len;
		n = write ? pwrite(g.reg[r].fd, buf, part, (off_t)(off - g.reg[r].base)) :
			pread(g.reg[r].fd, buf, part, (off_t)(off - g.reg[r].base));
		if (n < 0)
			return -1;
		if ((uint64_t)n < part) {
			if (write) {
				errno = EIO;
				return -1;
			}
			memset(buf + n, 0, part - (uint64_t)n);
		}
		buf += part, off += part, len -= part;
	}
	return 0;
}

/* Writes sectors [sector, sector + n) from buf to the platter, logged as
 * transferred over the part of [t0, t1] (the model's write of sectors
 * [m0, m1)) that they take. */
static void platter_write(enum wc_platter_kind kind, uint64_t sector,
			  uint64_t n, const unsigned char *buf, uint64_t m0,
			  uint64_t m1, uint64_t t0, uint64_t t1)
{
	double span = m1 > m0 ? (double)(t1 - t0) / (double)(m1 - m0) : 0;
	uint64_t k, part;

	if (platter_io(true, (unsigned char *)buf, n * 512, sector * 512) < 0)
		g.cache_failed = true;
	for (k = 0; k < n; k += part) {
		part = n - k < WC_PLATTER_MAX_SECTORS ? n - k : WC_PLATTER_MAX_SECTORS;
		plog_put(kind, sector + k, part,
			 t0 + (uint64_t)(span * (double)(sector + k - m0)),
			 t0 + (uint64_t)(span * (double)(sector + k + part - m0)),
			 t1, buf + k * 512);
	}
}

/* The disk's view of [off, off + size): the platter, then the cache's
 * newer sectors over it. */
ssize_t platter_read(unsigned char *buf, size_t size, uint64_t off)
{
	if (platter_io(false, buf, size, off) < 0)
		return -1;
	wc_datacache_overlay(g.cache, off, buf, size);
	return (ssize_t)size;
}

/* Logs the whole sectors of a discard (they read as zeros from t on). */
void platter_discard(uint64_t off, uint64_t len, uint64_t t)
{
	uint64_t s = (off + 511) / 512, e = (off + len) / 512, part;

	for (; s < e; s += part) {
		part = e - s < WC_PLATTER_MAX_SECTORS ? e - s : WC_PLATTER_MAX_SECTORS;
		plog_put(WC_PLATTER_DISCARD, s, part, t, t, t, NULL);
	}
}

/* Moves what the data cache holds of the model's destage rows to the
 * platter, in their (time) order: each row is one media write, its
 * transfer the last transfer_ns before its end. */
void platter_destage(const struct wc_disk_cost *rows, size_t n)
{
	uint64_t from, end, run, k, t1;
	size_t i;

	if (!g.plog)
		return;
	for (i = 0; i < n; i++) {
		from = rows[i].sector;
		end = from + (rows[i].bytes + 511) / 512;
		t1 = rows[i].end_ns;
		while ((k = wc_datacache_take(g.cache, &from, end, g.destage_buf,
					      MAX_WRITE / 512, &run)) > 0)
			platter_write(WC_PLATTER_DESTAGE, run, k, g.destage_buf,
				      rows[i].sector, end, t1 - rows[i].transfer_ns, t1);
	}
}

/* A write of whole sectors the model served as c: into the data cache
 * when the model cached it, else on the platter (what the cache held
 * there is older and must not be destaged over it: forgotten). */
static void platter_serve_write(const unsigned char *buf, uint64_t off,
				uint64_t len, const struct wc_disk_cost *c)
{
	if (c->cache_hit && wc_datacache_put(g.cache, off, buf, len) == 0)
		return;
	/* a cached write the data cache cannot hold cannot happen while it
	 * mirrors the model (it holds no more than the model's dirty
	 * sectors): on the platter rather than lost, and said at exit */
	if (c->cache_hit)
		g.cache_failed = true;
	wc_datacache_drop(g.cache, off, len);
	if (len > 0)
		platter_write(WC_PLATTER_WRITE, off / 512, len / 512, buf,
			      off / 512, (off + len) / 512,
			      c->end_ns - (c->cache_hit ? 0 : c->transfer_ns),
			      c->end_ns);
}

/* A write as the kernel sent it: a disk writes whole sectors, so the
 * rest of a partial first or last one as it stands (a loop device never
 * sends one).  0 or -errno. */
int platter_write_cmd(const unsigned char *buf, uint64_t off,
		      uint64_t size, const struct wc_disk_cost *c)
{
	uint64_t lo = off / 512 * 512, hi = (off + size + 511) / 512 * 512;
	unsigned char *whole;

	if (lo == off && hi == off + size) {
		platter_serve_write(buf, off, size, c);
		return 0;
	}
	whole = malloc(hi - lo);
	if (!whole)
		return -ENOMEM;
	if (platter_read(whole, hi - lo, lo) < 0) {
		free(whole);
		return -errno;
	}
	memcpy(whole + (off - lo), buf, size);
	platter_serve_write(whole, lo, hi - lo, c);
	free(whole);
	return 0;
}

/* The data cache (as large as the model's cache) and the platter log. */
int platter_open(const struct wc_disk_params *p, struct wc_err *err)
{
	uint8_t h[WC_PLATTER_HEADER_BYTES];

	if (wc_datacache_open(&g.cache, p->write_cache ? p->cache_kib * 1024 : 0,
			      err) < 0)
		return -1;
	g.destage_buf = malloc(MAX_WRITE);
	if (!g.destage_buf)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "out of memory");
	if (!g.plog_path)
		return 0;
	g.plog = fopen(g.plog_path, "wb");
	if (!g.plog)
		return wc_err_set(err, WC_ERR_SYSTEM, g.plog_path, NULL,
				  WC_NO_OFFSET, "%s", strerror(errno));
	wc_platter_header_encode(h, g.size);
	if (fwrite(h, sizeof(h), 1, g.plog) != 1)
		g.plog_failed = true;
	return 0;
}

/* Unmounted: an orderly power-off, which writes the cache back to the
 * platter as a drive does when told to stand by; then the log closed. */
int platter_close(struct wc_err *err)
{
	struct wc_disk_cost c;
	FILE *fp = g.plog;
	uint64_t from = 0, run, n, t;

	const struct wc_disk_cost *rows;

	wc_disk_serve(g.disk, WC_DISK_FLUSH, 0, 0, false, now_ns(), &c);
	platter_destage(rows, wc_disk_destaged(g.disk, &rows));
	/* with power-loss protection a flush destages nothing: the cache is
	 * written back all the same */
	t = c.end_ns;
	while ((n = wc_datacache_take(g.cache, &from, g.size / 512, g.destage_buf,
				      MAX_WRITE / 512, &run)) > 0)
		platter_write(WC_PLATTER_DESTAGE, run, n, g.destage_buf, run,
			      run + n, t, t);
	g.plog = NULL;
	if (fp && (fclose(fp) != 0 || g.plog_failed))
		return wc_err_set(err, WC_ERR_SYSTEM, g.plog_path, NULL,
				  WC_NO_OFFSET, "cannot write the platter log");
	if (g.cache_failed)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "the image could not be written, or the data cache "
				  "held less than the model's cache (a bug)");
	return 0;
}
