/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The second half of log recovery: what the kernel finishes at mount
 * after the physical replay (EFI, RUI, CUI, BUI, ATTRI and XMI intents,
 * unlinked inodes, CoW staging extents).  In its order: every pending intent in log
 * order (its own work first, what that work queues after all intents),
 * then the inodes on the AGI unlinked lists, then (on reflink
 * filesystems) the CoW staging extents.  See shared/reference/xfs-log.md
 * §10.
 */
#ifndef XFSJ_FINISH_H
#define XFSJ_FINISH_H

#include "xfsj/fs.h"
#include "fs/iunlink.h"
#include "xfsj/recover.h"

struct xfsj_finish_stats {
	uint64_t efi, rui, cui;		/* intents finished */
	uint64_t bui, attri, xmi;
	uint64_t extents;		/* extents they named */
	uint64_t deferred;		/* work items run in all */
	struct xfsj_iunlink_stats iul;
	uint64_t cow;			/* CoW staging extents freed */
};

/*
 * 0 when every pending intent is of a kind this version finishes, else
 * 1 with *type set to the first one that is not.
 */
int xfsj_finish_supported(struct xfsj_recover *rc, uint16_t *type);

/* Do it all on @fs (whose overlay is the replay's). */
int xfsj_finish_all(struct xfsj_recover *rc, struct xfsj_fs *fs,
		    struct xfsj_finish_stats *st, struct xfsj_fault *f);

#endif
