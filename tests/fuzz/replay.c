/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.c - runs a fuzz target's LLVMFuzzerTestOneInput() on saved
 * inputs, without libFuzzer: how "make check" keeps every seed and every
 * crasher of tests/fuzz/ a regression test with any compiler.
 *
 *     replay-trace FILE|DIR...
 *
 * A directory stands for the files in it (not recursively, in name
 * order).  A check that fails aborts with the target's message, so the
 * last "replay:" line names the input.  Exit 0 when every input ran, 1
 * when an argument could not be read.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path, unsigned long *count)
{
	size_t n = 0;
	char *buf = fuzz_read(path, &n);

	if (!buf) {
		fprintf(stderr, "replay: %s: cannot be read\n", path);
		return -1;
	}
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
	free(buf);
	(*count)++;
	return 0;
}

static int run_dir(const char *dir, unsigned long *count)
{
	struct dirent **names = NULL;
	int i, n, status = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: cannot be read\n", dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     names[i]->d_name) >= (int)sizeof(path))
			status = -1;
		else if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode) && run_file(path, count) < 0)
			status = -1;
		free(names[i]);
	}
	free(names);
	return status;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	int i, status = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		int r;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: cannot be read\n", argv[i]);
			status = 1;
			continue;
		}
		r = S_ISDIR(st.st_mode) ? run_dir(argv[i], &count)
					: run_file(argv[i], &count);
		if (r < 0)
			status = 1;
	}
	printf("replay: %lu inputs\n", count);
	return status;
}
