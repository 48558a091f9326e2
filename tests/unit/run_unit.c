/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

#define XFSJ_SUITE_ADD(fn) srunner_add_suite(sr, fn());
	XFSJ_SUITES(XFSJ_SUITE_ADD)
#undef XFSJ_SUITE_ADD
#ifdef XFSJ_UNIT_ONE_PROCESS
	/*
	 * Under ASan/UBSan a forked child per test pays the sanitizers'
	 * exit work (the leak scan) 1,240 times: 7 minutes instead of 80 s.
	 * The plain binary keeps one process per test (a failure is named
	 * alone, a hang times out); this one runs every test in one process
	 * and scans for leaks once at the end.  CK_FORK=yes restores forking.
	 */
	if (!getenv("CK_FORK"))
		srunner_set_fork_status(sr, CK_NOFORK);
#endif
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
