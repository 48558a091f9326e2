/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reverse mappings (rmapbt), changed the way the kernel's xfs_rmap does:
 * mapping an extent merges it with a contiguous record of the same owner,
 * fork and state on either side; unmapping may trim or split a record.
 * On a reflink filesystem data-fork mappings may overlap between owners,
 * so the _SHARED operations look records up by owner and offset too.
 * Every function is a no-op when the filesystem has no rmapbt.
 */
#ifndef XFSJ_RMAP_H
#define XFSJ_RMAP_H

#include "fs/alloc.h"
#include "fs/defer.h"

/* The direct forms used by the allocator (XFSJ_RMAP_ALLOC / _FREE). */
int xfsj_rmap_alloc(struct xfsj_fs *fs, uint32_t agno, uint32_t agbno,
		    uint32_t len, const struct xfsj_owner *oi,
		    struct xfsj_fault *f);
int xfsj_rmap_free(struct xfsj_fs *fs, uint32_t agno, uint32_t agbno,
		   uint32_t len, const struct xfsj_owner *oi,
		   struct xfsj_fault *f);

#endif
