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
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
