/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *defer_suite(void)
{
	Suite *s = suite_create("defer");

	return s;
}
