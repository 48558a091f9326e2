/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The batch runner (core/jobs.c): every job runs once and has finished
 * when the call returns, the first on the calling thread; more jobs than
 * threads may be had, one job, and none.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "suites.h"
#include "core/jobs.h"

struct job {
	atomic_int runs;
	pthread_t on;
	char pad[40];		/* a size that is no power of two */
};

static void *run(void *arg)
{
	struct job *j = arg;

	j->on = pthread_self();
	atomic_fetch_add(&j->runs, 1);
	return NULL;
}

static void run_n(unsigned int n)
{
	struct job *j = calloc(n ? n : 1, sizeof(*j));

	ck_assert_ptr_nonnull(j);
	xfsj_run_jobs(run, j, sizeof(*j), n);
	for (unsigned int k = 0; k < n; k++)
		ck_assert_int_eq(atomic_load(&j[k].runs), 1);
	if (n)
		ck_assert(pthread_equal(j[0].on, pthread_self()));
	else
		ck_assert_int_eq(atomic_load(&j[0].runs), 0);
	free(j);
}

START_TEST(each_job_once)
{
	run_n(0);
	run_n(1);
	run_n(2);
	run_n(7);
	/* Past the threads it starts: the rest on the caller. */
	run_n(XFSJ_JOBS_THREADS_MAX + 9);
}
END_TEST

Suite *jobs_suite(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, each_job_once);
	suite_add_tcase(s, tc);
	return s;
}
