/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcdisk.c's part that every part may call: its main's way out of a bad
 * command line.  Internal to wcdisk (capture/wcdisk*.c).
 */
#ifndef WCDISK_H
#define WCDISK_H

#include "base/wcerr.h"

#define PROG "wcdisk"
#define MAX_WRITE (1024 * 1024)

/* Prints err (or, with err NULL, what) and where the help is to stderr;
 * returns WC_EXIT_USAGE. */
int usage_error(const struct wc_err *err, const char *what);

#endif
