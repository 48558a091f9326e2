/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rmapbt merge rule (rmap_merge.c): when two records are one. */
#ifndef XFSJ_RMAP_MERGE_H
#define XFSJ_RMAP_MERGE_H

#include <stdbool.h>

#include "xfsj/ondisk.h"

/* Same owner (not the null owner) and the same fork/bmbt/unwritten flags. */
bool xfsj_rmap_same_kind(const struct xfsj_rmap_rec *a,
			 const struct xfsj_rmap_rec *b);
/* @b continues @a: the kernel would hold the two as one record. */
bool xfsj_rmap_continues(const struct xfsj_rmap_rec *a,
			 const struct xfsj_rmap_rec *b);

#endif
