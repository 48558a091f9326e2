/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *rmap_suite(void)
{
	Suite *s = suite_create("rmap");

	return s;
}
