/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wcdisk --replay and --list: see wcdisk_replay.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/platterlog.h"
#include "exitcodes.h"
#include "base/wcerr.h"
#include "wcdisk.h"
#include "wcdisk_replay.h"

/* ------------------------------------------------------------ replay
 * The platter after a power cut, rebuilt from a platter log on an empty
 * image; and the log's records listed for wccapture crash to choose
 * cuts from.  Hostile input: every record is decoded (platterlog.h). */

/* Reads the header; sets *capacity.  0, or -1 with err set. */
static int log_open(const char *path, FILE **fpp, uint64_t *capacity,
		    struct wc_err *err)
{
	uint8_t h[WC_PLATTER_HEADER_BYTES];
	size_t n;
	FILE *fp = fopen(path, "rb");

	*fpp = NULL;
	if (!fp)
		return wc_err_set(err, WC_ERR_SYSTEM, path, NULL, WC_NO_OFFSET,
				  "%s", strerror(errno));
	n = fread(h, 1, sizeof(h), fp);
	if (wc_platter_header_decode(h, n, capacity, err) < 0) {
		snprintf(err->file, sizeof(err->file), "%s", path);
		fclose(fp);
		return -1;
	}
	*fpp = fp;
	return 0;
}

/* The next record at *off: 1, 0 at the end, -1 with err set. */
static int log_next(FILE *fp, const char *path, uint64_t capacity,
		    uint64_t *off, struct wc_platter_rec *r, struct wc_err *err)
{
	uint8_t b[WC_PLATTER_REC_BYTES];
	size_t n = fread(b, 1, sizeof(b), fp);

	if (n == 0 && feof(fp))
		return 0;
	if (wc_platter_rec_decode(b, n, capacity, r, err) < 0) {
		snprintf(err->file, sizeof(err->file), "%s", path);
		err->offset += *off;
		return -1;
	}
	*off += n;
	return 1;
}

int replay_main(const char *log, const char *at, const char *tear_s,
		       const char *image)
{
	struct wc_platter_rec r;
	struct wc_err err;
	enum wc_platter_tear tear = WC_TEAR_SECTOR;
	uint64_t capacity, off = WC_PLATTER_HEADER_BYTES, cut, landed, k, part;
	unsigned char *buf = NULL;
	char msg[1600], *end;
	FILE *fp = NULL;
	int fd = -1, rc = WC_EXIT_FAILURE, more;

	wc_err_clear(&err);
	errno = 0;
	cut = strtoull(at, &end, 10);
	if (*at == '\0' || *end != '\0' || errno != 0 || *at == '-') {
		return usage_error(NULL, "--at: not a time in nanoseconds");
	}
	if (tear_s && strcmp(tear_s, "write") == 0) {
		tear = WC_TEAR_WRITE;
	} else if (tear_s && strcmp(tear_s, "sector") != 0) {
		return usage_error(NULL, "--tear: not sector or write");
	}
	if (log_open(log, &fp, &capacity, &err) < 0)
		goto report;
	buf = malloc(MAX_WRITE);
	fd = open(image, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (!buf || fd < 0 || ftruncate(fd, (off_t)capacity) < 0) {
		wc_err_set(&err, WC_ERR_SYSTEM, image, NULL, WC_NO_OFFSET, "%s",
			   strerror(errno));
		goto close_all;
	}
	while ((more = log_next(fp, log, capacity, &off, &r, &err)) > 0) {
		landed = wc_platter_landed(&r, cut, tear);
		if (r.kind == WC_PLATTER_DISCARD && landed > 0 &&
		    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)(r.sector * 512), (off_t)(landed * 512)) < 0) {
			wc_err_set(&err, WC_ERR_SYSTEM, image, NULL, WC_NO_OFFSET,
				   "%s", strerror(errno));
			goto close_all;
		}
		if (!wc_platter_has_data(r.kind))
			continue;
		/* the data in chunks: the landed prefix written, the rest read
		 * past */
		for (k = 0; k < r.sectors; k += part) {
			part = r.sectors - k < MAX_WRITE / 512 ? r.sectors - k : MAX_WRITE / 512;
			if (fread(buf, 512, part, fp) != part) {
				wc_err_set(&err, WC_ERR_INPUT, log, NULL, off,
					   "platter log: a record's data cut short");
				goto close_all;
			}
			off += part * 512;
			if (k < landed &&
			    pwrite(fd, buf, (landed - k < part ? landed - k : part) * 512,
				   (off_t)((r.sector + k) * 512)) < 0) {
				wc_err_set(&err, WC_ERR_SYSTEM, image, NULL,
					   WC_NO_OFFSET, "%s", strerror(errno));
				goto close_all;
			}
		}
	}
	if (more < 0)
		goto close_all;
	if (ferror(fp)) {
		wc_err_set(&err, WC_ERR_SYSTEM, log, NULL, off, "read error");
		goto close_all;
	}
	rc = WC_EXIT_OK;
close_all:
	if (fd >= 0 && close(fd) < 0 && rc == WC_EXIT_OK) {
		wc_err_set(&err, WC_ERR_SYSTEM, image, NULL, WC_NO_OFFSET, "%s",
			   strerror(errno));
		rc = WC_EXIT_FAILURE;
	}
	free(buf);
	fclose(fp);
report:
	if (rc != WC_EXIT_OK) {
		fprintf(stderr, "%s: %s\n", PROG, wc_err_format(&err, msg, sizeof(msg)));
		if (err.kind == WC_ERR_INPUT)
			rc = WC_EXIT_INPUT;
	}
	return rc;
}

int list_main(const char *log)
{
	struct wc_platter_rec r;
	struct wc_err err;
	uint64_t capacity, off = WC_PLATTER_HEADER_BYTES, i = 0;
	char msg[1600];
	FILE *fp = NULL;
	int more, rc = WC_EXIT_FAILURE;

	wc_err_clear(&err);
	if (log_open(log, &fp, &capacity, &err) < 0)
		goto report;
	printf("index\tkind\tsector\tsectors\tstart_ns\tend_ns\tatom_end_ns\n");
	while ((more = log_next(fp, log, capacity, &off, &r, &err)) > 0) {
		printf("%" PRIu64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%"
		       PRIu64 "\t%" PRIu64 "\n", ++i, wc_platter_kind_name(r.kind),
		       r.sector, r.sectors, r.start_ns, r.end_ns, r.atom_end_ns);
		if (wc_platter_has_data(r.kind)) {
			if (fseeko(fp, (off_t)(r.sectors * 512), SEEK_CUR) < 0) {
				wc_err_set(&err, WC_ERR_SYSTEM, log, NULL, off,
					   "%s", strerror(errno));
				goto close_log;
			}
			off += r.sectors * 512;
		}
	}
	if (more < 0 || ferror(fp))
		goto close_log;
	/* a seek past the end is no error to fseeko: the size says */
	if (fseeko(fp, 0, SEEK_END) < 0 || (uint64_t)ftello(fp) < off) {
		wc_err_set(&err, WC_ERR_INPUT, log, NULL, off,
			   "platter log: the last record's data cut short");
		goto close_log;
	}
	rc = fflush(stdout) == 0 ? WC_EXIT_OK : WC_EXIT_FAILURE;
close_log:
	fclose(fp);
report:
	if (rc != WC_EXIT_OK && err.msg[0]) {
		fprintf(stderr, "%s: %s\n", PROG, wc_err_format(&err, msg, sizeof(msg)));
		if (err.kind == WC_ERR_INPUT)
			rc = WC_EXIT_INPUT;
	}
	return rc;
}
