/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wcdisk's FUSE server (wcdisk_serve.c); internal to wcdisk.
 *
 * Serves the regions of g (wcdisk.h) as MOUNTPOINT/disk and
 * MOUNTPOINT/disk1, and the control file MOUNTPOINT/destage.  One thread
 * (FUSE's loop) takes the requests and puts each into the model's queue;
 * a scheduler thread has the model pick the next, does its I/O through
 * the platter (wcdisk_platter.h) or straight on the image, waits until
 * the model's end, answers it and writes its ledger rows (g.ledger).
 *
 * What always holds: the model (g.disk) and the server's state in g are
 * touched under g.lock only; a request is answered once, with EIO if the
 * session ends before the model served it.  Who frees what: the commands
 * and g.rows are serve_mount()'s, freed before it returns; main() opens
 * the model, the ledger and the platter before, and closes them after.
 */
#ifndef WCDISK_SERVE_H
#define WCDISK_SERVE_H

/* Serves mnt until it is unmounted or a signal ends the session (argv0:
 * the program's name, for FUSE).  Returns 0 or a nonzero status. */
int serve_mount(const char *argv0, const char *mnt);

#endif
