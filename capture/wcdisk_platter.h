/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcdisk's images on the model disk, and its platter (wcdisk_platter.c);
 * internal to wcdisk.
 *
 * Each image is a region of the model disk (wcdisk.h's struct region in
 * g): main() opens each (region_open()), places them, one after the
 * other or as partitions (place_regions(), wc_disk_place()), and may
 * print where they lie (print_placement()).  The server maps the model's
 * sectors back to a region's (region_of_sector(), region_localize()).
 *
 * The platter is the images as the model disk's media hold them.  The
 * model says what reaches it and when (its destage rows, in time order);
 * these functions move the bytes, through the data cache (what the
 * model's volatile cache holds, disk/datacache.h), and log every write
 * and flush with its time in the platter log (--platter-log,
 * disk/platterlog.h).  platter_open() makes the cache and the log before
 * the server runs; while it runs, the server's scheduler thread alone
 * calls the others (no lock); platter_close(), after it, writes the
 * cache back as a drive told to stand by does and closes the log.
 * Without a platter log (g.plog NULL) the server writes the images
 * itself and calls only platter_destage(), which then does nothing.
 *
 * Errors: region_open(), place_regions(), print_placement(),
 * platter_open() and platter_close() return -1 with err filled (err may
 * be NULL); the functions called while serving note a failure in
 * g.plog_failed or g.cache_failed, which platter_close() reports.  Who
 * frees what: main() closes the regions' files, frees g.cache and
 * g.destage_buf, and closes g.plog if platter_close() did not.
 */
#ifndef WCDISK_PLATTER_H
#define WCDISK_PLATTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/wcerr.h"
#include "disk/diskmodel.h"
#include "disk/platterlog.h"

/* ---- regions (main()'s, before serving) */

/* Opens image path as region r (placed later, place_regions()). */
int region_open(unsigned r, const char *path, struct wc_err *err);
/* Places the g.nreg regions: at offsets (noff of them), at the model's
 * partitions (autoplace), or, with neither, one after the other; sets
 * each base and g.size.  pl says where. */
int place_regions(const struct wc_disk_params *p, const uint64_t *offsets,
		  unsigned noff, bool autoplace,
		  struct wc_disk_placement *pl, struct wc_err *err);
/* --print-placement: pl as TSV on stdout, a row a region. */
int print_placement(const struct wc_disk_params *p,
		    const struct wc_disk_placement *pl, struct wc_err *err);

/* ---- the model's sectors and a region's (the server's) */

/* The region holding model sector s (the last one past the end). */
unsigned region_of_sector(uint64_t s);
/* c's sector made region r's, and c said to be r's (a ledger row). */
void region_localize(struct wc_disk_cost *c, unsigned r);

/* ---- the platter */

/* The data cache (as large as the model's cache) and the platter log. */
int platter_open(const struct wc_disk_params *p, struct wc_err *err);
/* Appends one record (and its data, n sectors) to the platter log. */
void plog_put(enum wc_platter_kind kind, uint64_t sector, uint64_t n,
	      uint64_t t0, uint64_t t1, uint64_t atom_end,
	      const void *data);
/* The disk's view of [off, off + size) of the model disk: size, or -1
 * with errno set. */
ssize_t platter_read(unsigned char *buf, size_t size, uint64_t off);
/* A write the model served as c, as the kernel sent it: 0 or -errno. */
int platter_write_cmd(const unsigned char *buf, uint64_t off,
		      uint64_t size, const struct wc_disk_cost *c);
/* Logs the whole sectors of a discard of [off, off + len) at time t. */
void platter_discard(uint64_t off, uint64_t len, uint64_t t);
/* The model's n destage rows, from the data cache to the platter. */
void platter_destage(const struct wc_disk_cost *rows, size_t n);
/* Unmounted: the cache written back, the log closed; the first failure
 * of the serving, if any, in err. */
int platter_close(struct wc_err *err);

#endif
