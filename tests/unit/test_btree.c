/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *btree_suite(void)
{
	Suite *s = suite_create("btree");

	return s;
}
