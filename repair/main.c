/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xfsj-repair's entry point: the tool is repair_main() (repair.c). */
#include "repair.h"

int main(int argc, char **argv)
{
	return repair_main(argc, argv);
}
