/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sandbox_escape - a planted capture tries to read outside, with no
 * check of ours in the way, under wcanalyze's own Landlock rules
 * (wc_sandbox_apply(), sandbox.h), for tests/t62-sandbox.sh.
 *
 *   sandbox_escape [--no-sandbox] [--output DIR] INPUT...
 *
 * Applies the rules wcanalyze applies to the same inputs and output
 * (none with --no-sandbox), then, for each INPUT:
 *   - a folder (a capture): reads its capture.conf with a plain
 *     fopen(), opens the value of its disk_model line as a path (what
 *     --what-if did before a disk model was a name) and its
 *     info/disk.conf, links followed (what a plain fopen() of it did);
 *   - a file: opens it.
 * Each open is a bare open(2) (O_NONBLOCK: a FIFO does not block), so
 * only the kernel can refuse it.  With --output, creates DIR/written.
 * One line a try on standard output, "WHAT: opened" or "WHAT: ERROR"
 * (strerror).  Exit 0 once every try was made; 1 when the rules could
 * not be applied, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sandbox.h"
#include "base/wcerr.h"

#define MAX_INPUTS 16

static void try_open(const char *what, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC | O_NONBLOCK, 0600);

	printf("%s: %s\n", what, fd < 0 ? strerror(errno) : "opened");
	if (fd >= 0)
		close(fd);
}

/* The value of capture.conf's "disk_model = VALUE" line, or "" */
static void disk_model(FILE *conf, char *value, size_t size)
{
	char line[4096];

	*value = '\0';
	while (fgets(line, sizeof(line), conf)) {
		char *v;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "disk_model", 10))
			continue;
		v = line + 10 + strspn(line + 10, " \t");
		if (*v != '=')
			continue;
		v += 1 + strspn(v + 1, " \t");
		snprintf(value, size, "%s", v);
	}
}

static void try_capture(const char *dir)
{
	char path[4096], value[4096], what[4200];
	FILE *conf;

	snprintf(path, sizeof(path), "%s/capture.conf", dir);
	conf = fopen(path, "r");
	printf("%s: %s\n", path, conf ? "opened" : strerror(errno));
	if (conf) {
		disk_model(conf, value, sizeof(value));
		fclose(conf);
		if (*value) {
			snprintf(what, sizeof(what), "disk_model %s", value);
			try_open(what, value, O_RDONLY);
		}
	}
	snprintf(path, sizeof(path), "%s/info/disk.conf", dir);
	try_open(path, path, O_RDONLY);
}

int main(int argc, char **argv)
{
	const char *inputs[MAX_INPUTS];
	struct wc_sandbox_rules r = { .inputs = inputs };
	struct wc_err err;
	bool sandbox = true;
	struct stat st;
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--no-sandbox"))
			sandbox = false;
		else if (!strcmp(argv[i], "--output") && i + 1 < argc)
			r.output = argv[++i];
		else
			goto usage;
	}
	if (i == argc || argc - i > MAX_INPUTS)
		goto usage;
	for (; i < argc; i++)
		inputs[r.ninputs++] = argv[i];

	wc_err_clear(&err);
	if (sandbox && wc_sandbox_apply(&r, &err) < 0) {
		fprintf(stderr, "sandbox_escape: %s\n", err.msg);
		return 1;
	}
	for (size_t k = 0; k < r.ninputs; k++) {
		if (stat(inputs[k], &st) == 0 && S_ISDIR(st.st_mode))
			try_capture(inputs[k]);
		else
			try_open(inputs[k], inputs[k], O_RDONLY);
	}
	if (r.output) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/written", r.output);
		try_open(path, path, O_WRONLY | O_CREAT | O_TRUNC);
	}
	return fflush(stdout) == 0 ? 0 : 1;
usage:
	fputs("usage: sandbox_escape [--no-sandbox] [--output DIR] INPUT...\n",
	      stderr);
	return 2;
}
