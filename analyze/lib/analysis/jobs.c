/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "analysis/jobs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pool {
	struct wc_job *jobs;
	size_t n;
	size_t next;             /* the next job to take, under lock */
	const struct wc_analysis_opts *o;
	pthread_mutex_t lock;
	/* Inputs whose descriptors are open, under lock: those being read,
	 * and the summaries found, left open for the caller; no job is
	 * taken once they are njobs (jobs.h). */
	size_t busy, held;
	unsigned njobs;
};

static void analyse_one(struct wc_job *j, const struct wc_analysis_opts *o)
{
	j->a = NULL;
	j->caps = NULL;
	j->ncaps = 0;
	j->fd = -1;
	wc_err_clear(&j->err);
	j->summary = false;
	/* A summary is told apart by the input's one open, and left to
	 * the caller to read on its descriptor, a capture at a time. */
	j->status = j->condense ?
		    wc_analysis_read_any(&j->a, &j->fd, j->path, o, &j->err) :
		    wc_analysis_read(&j->a, j->path, o, &j->err);
	if (j->status > 0) {
		j->summary = true;
		j->status = 0;
		return;
	}
	if (!j->condense || !j->a)
		return;
	/* A partial analysis is kept as one: its capsule says so. */
	j->caps = calloc(1, sizeof(*j->caps));
	if (!j->caps || wc_capsule_of(&j->caps[0], j->a, &j->err) < 0) {
		if (!j->caps)
			wc_err_oom(&j->err, NULL, NULL);
		free(j->caps);
		j->caps = NULL;
		j->status = -1;
	} else {
		j->ncaps = 1;
	}
	wc_analysis_free(j->a);
	j->a = NULL;
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		i = p->next < p->n && p->busy + p->held < p->njobs ?
		    p->next++ : p->n;
		p->busy += i < p->n;
		pthread_mutex_unlock(&p->lock);
		if (i == p->n)
			break;
		analyse_one(&p->jobs[i], p->o);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		p->held += p->jobs[i].summary;
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

unsigned wc_jobs_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1u;
}

size_t wc_jobs_analyse(struct wc_job *jobs, size_t n,
		       const struct wc_analysis_opts *o, unsigned njobs)
{
	struct wc_analysis_opts shared = WC_ANALYSIS_OPTS_INIT;
	struct pool p = { jobs, n, 0, &shared, PTHREAD_MUTEX_INITIALIZER,
			  0, 0, 0 };
	pthread_t *tids = NULL;
	size_t i, started = 0;

	if (o)
		shared = *o;
	if (njobs == 0)
		njobs = wc_jobs_cpus();
	if (njobs > n)
		njobs = (unsigned)n;
	p.njobs = njobs ? njobs : 1u;
	/* The inputs read at once share the open-file limit: each input's
	 * pool of handles is its part (inputdefs.h, WC_INPUT_FD_EACH). */
	if (njobs > 1)
		shared.inputs_at_once = njobs;
	if (njobs > 1)
		tids = calloc(njobs, sizeof(*tids));
	for (i = 0; tids && i + 1 < njobs; i++) {
		if (pthread_create(&tids[i], NULL, worker, &p) != 0)
			break;
		started++;
	}
	/* The calling thread takes its share too: everything, when no
	 * thread could be started or none was wanted. */
	worker(&p);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	/* Taken in order: the first p.next are done. */
	return p.next;
}
