/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *attr_suite(void)
{
	Suite *s = suite_create("attr");

	return s;
}
