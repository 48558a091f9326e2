/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *alloc_suite(void)
{
	Suite *s = suite_create("alloc");

	return s;
}
