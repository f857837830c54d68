/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buildinfo.c - the one object compiled with the version and PREFIX
 * (the makefile gives it WC_VERSION and WC_DATADIR; buildinfo.h). */
#include "base/buildinfo.h"

#ifndef WC_VERSION
#define WC_VERSION "unknown"
#endif
#ifndef WC_DATADIR
#define WC_DATADIR "/usr/local/share/wcanalyze"
#endif

const char wc_version[] = WC_VERSION;
const char wc_datadir[] = WC_DATADIR;
