/*
 * wcanalyze - where the time goes when a journaling filesystem copies or
 * deletes a tree: reads blktrace captures and attributes elapsed time.
 *
 * main() only parses options into struct options and calls one function
 * per mode; every mode reports its own failures and returns an exit
 * status from exitcodes.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "exitcodes.h"
#include "input.h"
#include "wcerr.h"

#define PROG "wcanalyze"

enum mode {
	MODE_ANALYZE,   /* the default: attribute elapsed time */
	MODE_DUMP,      /* --dump: every event, as blkparse prints it */
};

struct options {
	enum mode mode;
	char **inputs;      /* INPUT... from the command line */
	int ninputs;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: " PROG " [--dump] INPUT...\n"
		"       " PROG " --help | --version\n"
		"\n"
		"INPUT is a blktrace base name (NAME for NAME.blktrace.N), a directory\n"
		"of such files, a merged trace file, '-' for standard input, or a\n"
		"capture archive (tar, tar.gz, tar.xz, tar.zst, tar.bz2, zip, cpio).\n"
		"\n"
		"  -d, --dump      print every event as blkparse does, no analysis\n"
		"  -h, --help      show this help and exit\n"
		"  -V, --version   show the version and exit\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n" PROG ": try '" PROG " --help'\n");
	return WC_EXIT_USAGE;
}

/* Prints err as "wcanalyze: FILE: offset N: what", returns its status. */
static int report(const struct wc_err *err)
{
	char buf[2048];

	fprintf(stderr, PROG ": %s\n", wc_err_format(err, buf, sizeof(buf)));
	return err->kind == WC_ERR_SYSTEM ? WC_EXIT_FAILURE : WC_EXIT_INPUT;
}

/* Sequence gaps are worth a line: they mean the recorder lost events. */
static void report_skips(const struct wc_input *in)
{
	size_t i;

	for (i = 0; i < wc_input_nstreams(in); i++) {
		const struct wc_stream_info *si = wc_input_stream(in, i);

		if (si->skips)
			fprintf(stderr,
				PROG ": %s: %llu events missing (sequence gaps)\n",
				si->name, (unsigned long long)si->skips);
	}
}

static int dump_one(const char *path)
{
	struct wc_input *in = NULL;
	struct wc_event ev;
	struct wc_err err;
	int r, status = WC_EXIT_OK;

	wc_err_clear(&err);
	if (wc_input_open(&in, path, &err) < 0)
		return report(&err);
	while ((r = wc_input_next(in, &ev, &err)) > 0) {
		if (wc_dump_event(stdout, &ev, wc_input_genesis(in),
				  wc_input_comm(in, ev.pid)) < 0)
			break;
	}
	if (r < 0)
		status = report(&err);
	report_skips(in);
	wc_input_free(in);
	return status;
}

static int run_dump(const struct options *o)
{
	int i, status = WC_EXIT_OK;

	for (i = 0; i < o->ninputs; i++) {
		int s = dump_one(o->inputs[i]);

		if (s != WC_EXIT_OK && status == WC_EXIT_OK)
			status = s;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": standard output: %s\n", strerror(errno));
		return WC_EXIT_FAILURE;
	}
	return status;
}

/*
 * PLACEHOLDER - the analysis mode (issue 4).  The "attribution" engineer
 * replaces this function; it gets the parsed options and returns an exit
 * status.  Nothing else in main() needs to change for it.
 */
static int run_analysis(const struct options *o)
{
	(void)o;
	fprintf(stderr, PROG ": analysis not built yet\n");
	return WC_EXIT_FAILURE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .mode = MODE_ANALYZE };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":dhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.mode = MODE_DUMP;
			break;
		case 'h':
			usage(stdout);
			return WC_EXIT_OK;
		case 'V':
			printf(PROG " " WC_VERSION "\n");
			return WC_EXIT_OK;
		case ':':
			return usage_error("option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	o.inputs = argv + optind;
	o.ninputs = argc - optind;
	if (o.ninputs == 0)
		return usage_error("%s", "no INPUT given");

	switch (o.mode) {
	case MODE_DUMP:
		return run_dump(&o);
	case MODE_ANALYZE:
	default:
		return run_analysis(&o);
	}
}
