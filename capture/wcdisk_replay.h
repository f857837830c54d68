/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcdisk's second program mode, no FUSE: `wcdisk --replay LOG --at NS
 * [--tear sector|write] IMAGE` rebuilds the platter as a power cut at NS
 * would have left it, from a platter log on an empty image; `wcdisk
 * --list LOG` lists the log's records (one TSV row each) for wccapture
 * crash to choose cuts from.  The log is hostile input: every record is
 * decoded (analyze/lib/disk/platterlog.h).  Both print their error to
 * stderr and return an exit code (exitcodes.h).
 */
#ifndef WCDISK_REPLAY_H
#define WCDISK_REPLAY_H

/* --replay: log's writes landed by time at (ns, decimal) into image,
 * created or truncated to the log's capacity; tear_s "sector" (NULL) or
 * "write".  Returns an exit code. */
int replay_main(const char *log, const char *at, const char *tear_s,
		const char *image);

/* --list: log's records as TSV on stdout.  Returns an exit code. */
int list_main(const char *log);

#endif
