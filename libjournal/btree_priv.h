/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private parts of the generic btree shared by btree.c and btree_ag.c. */
#ifndef XFSJ_BTREE_PRIV_H
#define XFSJ_BTREE_PRIV_H
#include "xfsj/btree.h"
#endif
