/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "suites.h"

Suite *bmap_suite(void)
{
	Suite *s = suite_create("bmap");

	return s;
}
