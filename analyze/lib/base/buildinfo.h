/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buildinfo.h - what the build compiled in: the version, and where
 * "make install" puts the data files (templates, disk models).
 *
 * Only buildinfo.c is compiled with WC_VERSION and WC_DATADIR (as git
 * compiles its prefix into one object), so a change of PREFIX or of the
 * version rebuilds that object and relinks, nothing more.  Both strings
 * are constant and never NULL. */
#ifndef WC_BUILDINFO_H
#define WC_BUILDINFO_H

extern const char wc_version[];  /* "0.1.0" */
extern const char wc_datadir[];  /* "PREFIX/share/wcanalyze", no '/' at its end */

#endif
