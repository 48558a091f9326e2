/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The batch runner of jobs.h.  Threads are started in job order until one
 * fails to start; from there on the caller runs the jobs itself, after
 * its own first job, then waits for the threads it started.
 */
#include <pthread.h>

#include "core/jobs.h"

void xfsj_run_jobs(void *(*fn)(void *), void *jobs, size_t size,
		   unsigned int n)
{
	pthread_t tid[XFSJ_JOBS_THREADS_MAX];
	char *job = jobs;
	unsigned int k, started;

	if (!n)
		return;
	for (started = 1; started < n && started < XFSJ_JOBS_THREADS_MAX;
	     started++)
		if (pthread_create(&tid[started], NULL, fn,
				   job + (size_t)started * size))
			break;
	fn(job);
	for (k = started; k < n; k++)
		fn(job + (size_t)k * size);
	for (k = 1; k < started; k++)
		pthread_join(tid[k], NULL);
}
