/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A batch of jobs run side by side (jobs.c): the shares of a table that
 * the check's passes cut one per thread.  The caller runs one of them
 * itself, so a batch of one starts no thread; a thread that cannot be
 * started costs only time, never a job.
 */
#ifndef XFSJ_JOBS_H
#define XFSJ_JOBS_H

#include <stddef.h>

/*
 * At most this many jobs run at once, the caller's among them; the rest
 * run on the caller after its own.
 */
#define XFSJ_JOBS_THREADS_MAX 64

/*
 * Run @fn on each of the @n jobs of @size bytes at @jobs: the first on
 * the calling thread, each other on a thread of its own, or on the
 * calling thread too when no thread is to be had.  Returns when all have
 * finished.
 */
void xfsj_run_jobs(void *(*fn)(void *), void *jobs, size_t size,
		   unsigned int n);

#endif
