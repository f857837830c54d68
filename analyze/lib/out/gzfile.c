/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gzfile.c - a FILE that writes gzip (see gzfile.h), a stdio cookie
 * around zlib's deflate.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
/* next_in is then const, as what is compressed is. */
#define ZLIB_CONST
#include <zlib.h>

#include "out/gzfile.h"

/* deflate's window bits: 15, plus 16 for the gzip wrapping. */
#define GZIP_WBITS (15 + 16)
#define OUT_BYTES 65536

struct gz {
	z_stream z;
	FILE *f;
	int failed;                 /* errno of the first failure, 0: none */
	unsigned char out[OUT_BYTES];
};

/* Runs deflate over what z holds with flush, writing full buffers to
 * f; -1 (errno set) once anything failed. */
static int pump(struct gz *g, int flush)
{
	int zr;

	if (g->failed) {
		errno = g->failed;
		return -1;
	}
	do {
		size_t n;

		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR) {
			g->failed = EIO;
			break;
		}
		n = sizeof(g->out) - g->z.avail_out;
		if (n && fwrite(g->out, 1, n, g->f) != n) {
			g->failed = errno ? errno : EIO;
			break;
		}
	} while (g->z.avail_out == 0 ||
		 (flush == Z_FINISH && zr != Z_STREAM_END));
	if (g->failed) {
		errno = g->failed;
		return -1;
	}
	return 0;
}

/* stdio's write: 0 (errno set) is its failure. */
static ssize_t gz_write(void *cookie, const char *buf, size_t size)
{
	struct gz *g = cookie;
	size_t done = 0;

	/* avail_in is an unsigned int: a huge write goes in pieces. */
	while (done < size) {
		size_t n = size - done;

		if (n > 1u << 30)
			n = 1u << 30;
		g->z.next_in = (const Bytef *)buf + done;
		g->z.avail_in = (uInt)n;
		if (pump(g, Z_NO_FLUSH) < 0)
			return 0;
		done += n;
	}
	return (ssize_t)size;
}

static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	int r = pump(g, Z_FINISH);
	int e = g->failed;

	if (r == 0 && fflush(g->f) != 0)
		e = errno ? errno : EIO;
	deflateEnd(&g->z);
	free(g);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

FILE *wc_gzfile_open(FILE *f, struct wc_err *err)
{
	cookie_io_functions_t io = { .write = gz_write, .close = gz_close };
	struct gz *g = calloc(1, sizeof(*g));
	FILE *gz;

	if (!g)
		goto fail;
	g->f = f;
	/* Level 6, zlib's default: a timeline of the samples becomes a
	 * twelfth of its JSON; level 9 saves a further 9 % of that. */
	if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WBITS,
			 8, Z_DEFAULT_STRATEGY) != Z_OK)
		goto fail_free;
	gz = fopencookie(g, "w", io);
	if (!gz)
		goto fail_deflate;
	return gz;

fail_deflate:
	deflateEnd(&g->z);
fail_free:
	free(g);
fail:
	wc_err_oom(err, NULL, NULL);
	return NULL;
}

int wc_gzfile_close(FILE *gz, struct wc_err *err)
{
	if (!gz)
		return 0;
	errno = 0;
	if (fclose(gz) != 0)
		return wc_err_set(err, WC_ERR_SYSTEM, NULL, NULL, WC_NO_OFFSET,
				  "write error: %s",
				  strerror(errno ? errno : EIO));
	return 0;
}
