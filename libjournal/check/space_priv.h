/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between the two files of the space phase: space.c (the ownership map)
 * and space_counters.c (the AGF and AGI counters against the trees, the
 * finobt against the inobt, the totals for the superblock).
 */
#ifndef XFSJ_CHECK_SPACE_PRIV_H
#define XFSJ_CHECK_SPACE_PRIV_H

#include "check/check_priv.h"

/*
 * Check AG @ag's counters with the rows given (their templates name the
 * field, the value found and the value counted) and add the AG to the
 * totals of @ck.
 */
void xck_space_counters(struct xck *ck, struct xck_ag *ag,
			const struct xfsj_problem_def *agf_row,
			const struct xfsj_problem_def *agi_row,
			const struct xfsj_problem_def *finobt_row);

#endif
