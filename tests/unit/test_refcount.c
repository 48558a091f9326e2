/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *refcount_suite(void)
{
	Suite *s = suite_create("refcount");

	return s;
}
