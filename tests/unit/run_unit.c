/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"

typedef Suite *(*suite_fn)(void);

static const suite_fn suites[] = {
#define XFSJ_SUITE_FN(fn) fn,
	XFSJ_SUITES(XFSJ_SUITE_FN)
#undef XFSJ_SUITE_FN
};
#define NSUITES (sizeof(suites) / sizeof(suites[0]))

static void no_fork(SRunner *sr)
{
#ifdef XFSJ_UNIT_ONE_PROCESS
	/*
	 * Under ASan/UBSan a forked child per test pays the sanitizers'
	 * exit work (the leak scan) 1,240 times: 7 minutes instead of 80 s.
	 * The plain binary keeps one process per test (a failure is named
	 * alone, a hang times out); this one runs every test of a worker in
	 * one process and scans for leaks once at the end.  CK_FORK=yes
	 * restores forking.
	 */
	if (!getenv("CK_FORK"))
		srunner_set_fork_status(sr, CK_NOFORK);
#else
	(void)sr;
#endif
}

/* Every suite in one runner: Check's own report. */
static int run_all(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

	for (size_t i = 0; i < NSUITES; i++)
		srunner_add_suite(sr, suites[i]());
	no_fork(sr);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

/*
 * A worker: the next suite nobody has taken (@next, shared), until none
 * is left; each failure printed as Check prints it, then the worker's
 * totals in Check's summary form.
 */
static int worker(atomic_uint *next)
{
	unsigned int run = 0, fail = 0, err = 0, i;

	while ((i = atomic_fetch_add(next, 1)) < NSUITES) {
		SRunner *sr = srunner_create(suites[i]());
		TestResult **tr;
		int nf;

		no_fork(sr);
		srunner_run_all(sr, CK_SILENT);
		run += (unsigned int)srunner_ntests_run(sr);
		nf = srunner_ntests_failed(sr);
		tr = srunner_failures(sr);
		for (int k = 0; k < nf; k++) {
			bool error = tr_rtype(tr[k]) == CK_ERROR;

			err += error;
			fail += !error;
			printf("%s:%d:%c:%s: %s\n", tr_lfile(tr[k]),
			       tr_lno(tr[k]), error ? 'E' : 'F',
			       tr_tcname(tr[k]), tr_msg(tr[k]));
		}
		free(tr);
		srunner_free(sr);
		fflush(stdout);
	}
	printf("%u%%: Checks: %u, Failures: %u, Errors: %u\n",
	       run ? (run - fail - err) * 100 / run : 100, run, fail, err);
	return fail + err;
}

/*
 * The sanitizer build runs its suites in one worker process per CPU (at
 * most 2; XFSJ_UNIT_WORKERS=n to choose), each taking the next suite
 * left: one process would leave the other CPU idle for most of a CI
 * run.  The plain build forks a process per test already and runs the
 * suites in one runner.
 */
static unsigned int workers(void)
{
	const char *e = getenv("XFSJ_UNIT_WORKERS");
	long n = 1;

#ifdef XFSJ_UNIT_ONE_PROCESS
	n = sysconf(_SC_NPROCESSORS_ONLN);
	n = n > 2 ? 2 : n;
#endif
	if (e)
		n = strtol(e, NULL, 10);
	return n < 1 ? 1 : n > 16 ? 16 : (unsigned int)n;
}

int main(void)
{
	unsigned int n = workers(), w, bad = 0;
	atomic_uint *next;

	if (n == 1)
		return run_all() ? EXIT_FAILURE : EXIT_SUCCESS;
	next = mmap(NULL, sizeof(*next), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (next == MAP_FAILED) {
		perror("run_unit: mmap");
		return EXIT_FAILURE;
	}
	atomic_init(next, 0);
	printf("Running %zu suites in %u workers\n", NSUITES, n);
	fflush(NULL);	/* (each worker leaves through exit(): the leak scan) */
	for (w = 0; w < n; w++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("run_unit: fork");
			return EXIT_FAILURE;
		}
		if (pid == 0)
			exit(worker(next) ? EXIT_FAILURE : EXIT_SUCCESS);
	}
	for (w = 0; w < n; w++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != EXIT_SUCCESS)
			bad++;
	}
	if (bad)
		fprintf(stderr, "run_unit: %u of %u workers failed\n", bad, n);
	return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
