/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_test.h - the decoder's doors for its tests and the tools that
 * read fixtures only (check_decode, check_encode, wctrace_convert,
 * bench/reader_bench): a decoder opened on a path, where it stands, and
 * a timestamp notify's payload (nothing in the library reads one).  The
 * pipeline opens its decoders over the sources streams.h makes; decode.h
 * is the interface.
 */
#ifndef WC_DECODE_TEST_H
#define WC_DECODE_TEST_H

#include "input/decode.h"

/* Opens the file at path as a source (wc_source_open_file(), source.h)
 * and a decoder over it (wc_decoder_open()); *out is NULL on failure. */
int wc_decoder_open_file(struct wc_decoder **out, const char *path,
			 unsigned stream, struct wc_err *err);
/* Byte offset of the record last handed out. */
uint64_t wc_decoder_offset(const struct wc_decoder *dec);
const struct wc_source *wc_decoder_source(const struct wc_decoder *dec);
/* Timestamp notify: wall seconds and nanoseconds, in the file's order. */
bool wc_event_timestamp(const struct wc_event *ev, bool swapped,
			uint32_t *sec, uint32_t *nsec);

#endif /* WC_DECODE_TEST_H */
