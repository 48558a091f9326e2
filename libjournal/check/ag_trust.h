/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How far the check's verdict on an AG's headers and btrees lets later
 * work lean on them (ag_trust.c).  One predicate, asked by the check
 * (before it compares a fork with the free space and the rmapbt) and by
 * the repair (before it allocates, frees or believes the rmapbt).
 */
#ifndef XFSJ_CHECK_AG_TRUST_H
#define XFSJ_CHECK_AG_TRUST_H

#include <stdbool.h>
#include <stdint.h>

struct xck;

/* What must be sound; each bit "nothing of this is in doubt". */
enum xck_trust {
	XCK_TRUST_FREE = 1 << 0,	/* the AGF, its bnobt and cntbt */
	XCK_TRUST_AGFL = 1 << 1,	/* the AGFL */
	XCK_TRUST_RMAP = 1 << 2,	/* the AGF and rmapbt, if the fs has one */
	XCK_TRUST_INODES = 1 << 3,	/* the AGI, inobt, finobt if any */
};

/* Is everything @what names sound in AG @agno?  (false past the AGs) */
bool xck_ag_trusted(const struct xck *ck, uint32_t agno, unsigned int what);
/* ... in every AG? */
bool xck_ags_trusted(const struct xck *ck, unsigned int what);

#endif
