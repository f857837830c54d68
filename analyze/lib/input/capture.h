/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture.h - a capture's own description, capture.conf, phases.tsv and
 * counters.tsv (docs/capture-format.md), read once into one typed struct.
 *
 * The input (input.h) finds the files beside the trace or in the
 * archive and fills a struct wc_capture through this module; everything
 * downstream reads typed fields, never "key = value" strings.
 *
 *     struct wc_capture *c = NULL;
 *     char *text = NULL;
 *     size_t len;
 *
 *     if (wc_capture_new(&c, &err) < 0)
 *             goto fail;
 *     if (wc_capture_read_file("cap/capture.conf", &text, &len, &err) < 0)
 *             goto fail;                 // a FIFO, too large, unreadable
 *     if (text)                          // NULL: the file does not exist
 *             wc_capture_parse_conf(c, text, len, "cap/capture.conf", NULL);
 *     free(text);
 *     ...c->write_cache, c->journal_known, c->phases[i]...
 *     for (i = 0; i < c->nnotes; i++)
 *             warn("%s", c->notes[i]);   // values that were refused
 *     wc_capture_free(c);
 *
 * Both files come from whoever made the archive, so nothing in them is
 * trusted:
 *  - wc_capture_read_file() opens without blocking and takes regular files
 *    only (a FIFO, socket or device named capture.conf is refused, never
 *    waited on), nor a symbolic link ("a symbolic link: not followed": it
 *    could point at any file of the user's), at most WC_CAPTURE_MAX_BYTES
 *    bytes;
 *  - a line longer than WC_CAPTURE_MAX_LINE, a number out of its range
 *    (negative, past 2^63-1, trailing garbage), a device number that is not
 *    MAJ:MIN within the kernel's 12+20 bits, a phase row whose fields do not
 *    parse, the phases past WC_CAPTURE_MAX_PHASES and the devices past
 *    WC_CAPTURE_MAX_DEVICES are left out (unknown) and each noted, naming
 *    the file, line and key: "capture.conf: line 7: events_dropped: ...".
 *    At most WC_CAPTURE_MAX_NOTES notes are kept; nnotes_more counts the
 *    rest.  Parsing itself never fails on content;
 *  - unknown keys are ignored; when a key appears twice the last one wins,
 *    as when a shell sources the file;
 *  - text fields are cut to their arrays (NUL-terminated); what they hold
 *    is still raw input bytes: make it safe where it is written.
 *
 * Memory: one allocation of fixed size (sizeof(struct wc_capture)), plus
 * the text of one file at a time while it is parsed.  The struct holds
 * pointers into itself (phases[i].name): do not copy it, pass a pointer.
 * wc_capture_free(NULL) is fine.
 */
#ifndef WC_CAPTURE_H
#define WC_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wcerr.h"
#include "base/wclimits.h"

#define WC_CAPTURE_MAX_BYTES   (1u << 20)  /* capture.conf, phases.tsv */
/* trace_files past this is absent: an input holds at most this many
 * trace files (WC_INPUT_MAX_STREAMS, input.h). */
#define WC_CAPTURE_MAX_TRACE_FILES (1u << 18)
#define WC_CAPTURE_MAX_LINE    4096u       /* bytes of one line */
#define WC_CAPTURE_MAX_PHASES  ((unsigned)WC_MAX_PHASES)   /* rows kept */
#define WC_CAPTURE_MAX_DEVICES ((unsigned)WC_MAX_DEVICES)  /* device.DEV.* kept */
#define WC_CAPTURE_MAX_COUNTERS 64u        /* counters.tsv rows kept */
#define WC_CAPTURE_STAT_FIELDS 17u         /* fields of a stat file, at most */
#define WC_CAPTURE_MAX_REGIONS 8u         /* disk_regions names kept */
#define WC_CAPTURE_MAX_NOTES   8u
#define WC_CAPTURE_NOTE_SIZE   256u

/* One row of phases.tsv. */
struct wc_phase {
	const char *name;        /* never NULL when read from a file */
	uint64_t start;          /* trace clock, ns */
	uint64_t end;
	double real_s, user_s, sys_s;
};

/* One row of counters.tsv: a device's /sys/class/block/DEV/stat, read
 * between start and end (trace clock, ns).  Its fields as
 * Documentation/admin-guide/iostats.rst numbers them, from 0: nfields is
 * 17, 15, 11 (a disk, or a partition since 2.6.25) or 4 (a partition
 * before: reads, sectors read, writes, sectors written). */
struct wc_counters_row {
	char device[64];         /* the device read */
	char disk[64];           /* the traced device holding it (itself) */
	bool after;              /* "after" the workload; else "before" */
	uint64_t start, end;
	unsigned nfields;
	uint64_t f[WC_CAPTURE_STAT_FIELDS];
};

/* One device.DEV.* group of capture.conf. */
struct wc_capture_device {
	char name[64];           /* DEV, the kernel name */
	uint32_t dev;            /* dev_t of device.DEV.dev; 0 unknown */
	int rotational;          /* 1, 0, -1 unknown */
	uint64_t timeout_ms;     /* device.DEV.timeout_ms, 1 to 86400000
				  * (a day); 0 unknown */
	uint32_t hw_queues;      /* device.DEV.hw_queues, 1 to 65536; 0
				  * unknown */
	int listed;              /* position in "devices" + 1; 0 not listed */
	char role[16];           /* device.DEV.role: a word of lowercase
				  * letters ("destination", "source"), or
				  * "" absent or refused (noted) */
};

struct wc_capture {
	bool has_conf;           /* a capture.conf was read */
	bool has_phases;         /* a phases.tsv was read */
	int format_version;      /* -1 unknown */
	char name[256];          /* "" unknown */
	char fs[32];             /* "" unknown (also for "unknown") */
	int write_cache;         /* 1 on, 0 off, -1 unknown */
	int barrier;             /* 1 on, 0 off, -1 unknown */
	int complete;            /* 1, 0, -1 unknown */
	int64_t events_dropped;  /* 0..INT64_MAX, -1 unknown */
	bool has_events_dropped; /* the key is there (even as "unknown") */
	char kernel[128];
	char mount_options[256];
	char recorder[32];
	char destination[64];    /* the destination's kernel name, or "" */
	/* What spans of one experiment share besides fs, write_cache and
	 * barrier (summary.h groups captures by them): raw values, "" absent. */
	char write_cache_method[32];
	char disk[64];
	char disk_model[256];
	char workload[256];
	char command[512];
	char lab_workload[64];   /* the lab's workload (not a group key) */
	char source_files[32];
	char source_bytes[32];
	/* The span and the host's state (docs/capture-format.md, "Host
	 * state and the span design"): raw values, "" absent. */
	char run[16];
	char run_role[16];
	char lab_position[16];
	char tool_version[64];
	char tool_commit[48];
	char host_cpus[16];
	char host_mem_total_kb[24];
	char vm_dirty[6][24];    /* WC_CAPTURE_VM_DIRTY_KEYS' order */
	char host_loadavg_before[48];
	char host_loadavg_after[48];
	char host_dirty_kb_end[24];
	/* trace_files: how many NAME.blktrace.CPU members the archive
	 * holds, packed right after capture.conf and phases.tsv (wccapture
	 * since 2026-12): the input may then stop its scan at the last one
	 * (input.h).  0 when absent, or when the value is not a count from 1
	 * to WC_CAPTURE_MAX_TRACE_FILES: not noted, as the reports of a
	 * capture never depended on it. */
	uint32_t trace_files;
	bool journal_known;      /* both journal keys valid, length > 0 */
	uint64_t journal_start;  /* sectors */
	uint64_t journal_sectors;
	/* journal_guessed: why wccapture could not locate the journal (the
	 * tool's own words, "dumpe2fs: Permission denied while trying to
	 * open /dev/sda1"), the classifier then guessing it from flags.
	 * Printable ASCII only: a value holding any other byte is refused
	 * and noted, "" then as when absent. */
	char journal_guessed[256];

	/* disk_regions: the traced devices one model disk (wcdisk)
	 * served, in the order of its images (the ledger's region column,
	 * the destination first), as kernel names to look up in devices[].
	 * A name's place is its region, so a name too long for a device
	 * keeps its place as "", which names no device (noted); names past
	 * WC_CAPTURE_MAX_REGIONS are left out and noted.  0 when absent. */
	size_t nregions;
	char regions[WC_CAPTURE_MAX_REGIONS][64];
	/* disk_capacity_bytes and disk_offsets: where wcdisk placed those
	 * images on the model disk (bytes; diskmodel.h "Placement").  0 and
	 * 0 offsets when absent or not numbers (noted); whether they make a
	 * placement is the what-if's to check. */
	uint64_t disk_capacity;
	size_t noffsets;
	uint64_t offsets[WC_CAPTURE_MAX_REGIONS];
	/* workload_end_ns, durable_ns and durable_destaged_bytes (a lab on a
	 * model disk): when the workload's last sync returned and when the
	 * drive's cache was empty after it (trace clock, ns), and the bytes
	 * that destage wrote.  0 when absent or not numbers (noted); whether
	 * they make sense together is the analysis' to check. */
	uint64_t workload_end_ns;
	uint64_t durable_ns;
	uint64_t durable_bytes;

	size_t ndevices;         /* listed and unlisted, in first-seen order */
	struct wc_capture_device devices[WC_CAPTURE_MAX_DEVICES];

	bool has_counters;       /* a counters.tsv was read */
	size_t ncounters;        /* rows that parsed, in the file's order */
	struct wc_counters_row counters[WC_CAPTURE_MAX_COUNTERS];

	size_t nphases;
	struct wc_phase phases[WC_CAPTURE_MAX_PHASES];
	char phase_names[WC_CAPTURE_MAX_PHASES][64];

	size_t nnotes;
	size_t nnotes_more;      /* notes past WC_CAPTURE_MAX_NOTES */
	char notes[WC_CAPTURE_MAX_NOTES][WC_CAPTURE_NOTE_SIZE];
};

/* The vm_dirty_* keys of capture.conf, the order of vm_dirty[]. */
extern const char *const wc_capture_vm_dirty_keys[6];

/* A capture with every field unknown. */
int wc_capture_new(struct wc_capture **out, struct wc_err *err);
void wc_capture_free(struct wc_capture *c);

/*
 * Reads PATH whole into *text (NUL-terminated, *len bytes, caller frees).
 * 0 with *text NULL when PATH does not exist; -1 with err when it is not a
 * regular file, larger than WC_CAPTURE_MAX_BYTES (input errors), or cannot
 * be opened or read (system errors, with errno's text).
 */
int wc_capture_read_file(const char *path, char **text, size_t *len,
			 struct wc_err *err);

/* Parses LEN bytes of capture.conf / phases.tsv text into c.  WHERE names
 * the file in notes ("capture.conf", or an archive member).  TEXT may hold
 * NUL bytes: they end nothing but are refused inside values. */
void wc_capture_parse_conf(struct wc_capture *c, const char *text, size_t len,
			   const char *where);
void wc_capture_parse_phases(struct wc_capture *c, const char *text,
			     size_t len, const char *where);
/* counters.tsv: rows past WC_CAPTURE_MAX_COUNTERS, and rows whose "when"
 * is not before or after, whose names are empty or too long, whose times
 * or fields do not parse (or whose end comes before its start, or whose
 * field count is none a kernel prints) are left out and noted. */
void wc_capture_parse_counters(struct wc_capture *c, const char *text,
			       size_t len, const char *where);
/* Parses a side file by its base name (capture.conf, phases.tsv,
 * counters.tsv); false, and nothing read, for any other name. */
bool wc_capture_parse_side(struct wc_capture *c, const char *base,
			   const char *text, size_t len, const char *where);
/* The side files' base names, NULL-terminated. */
extern const char *const wc_capture_side_files[];

/* The device.NAME.* group of NAME, or NULL. */
const struct wc_capture_device *wc_capture_device(const struct wc_capture *c,
						  const char *name);

/* The destination's group (destination may be a path: its base name
 * counts), or NULL when capture.conf names none or gives it no group. */
const struct wc_capture_device *wc_capture_destination(
	const struct wc_capture *c);

#endif /* WC_CAPTURE_H */
