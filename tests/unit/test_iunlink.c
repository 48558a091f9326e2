/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *iunlink_suite(void)
{
	Suite *s = suite_create("iunlink");

	return s;
}
