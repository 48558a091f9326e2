/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *attri_suite(void)
{
	Suite *s = suite_create("attri");

	return s;
}
