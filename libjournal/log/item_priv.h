/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the log item table (items.c) and the family files (item_*.c)
 * share: the fault helper of the decoders and each family's ops.
 */
#ifndef XFSJ_ITEM_PRIV_H
#define XFSJ_ITEM_PRIV_H

#include "log/logread_priv.h"

/*
 * Record a decode problem at byte @off of region @reg (the first problem
 * only: later ones are usually its consequence).  Returns info->err.
 */
int xlog_item_fault(struct xfsj_item_info *info, int err, unsigned int reg,
		    const char *structure, const char *field, uint64_t off,
		    uint64_t val);

#define ITEM_BAD(info, st, fld, off, val)				\
	xlog_item_fault(info, XFSJ_E_CORRUPT, 0, st, fld, off, val)
/* A problem at byte @off of region @reg (ITEM_BAD: of region 0). */
#define ITEM_BAD_R(info, reg, st, fld, off, val)			\
	xlog_item_fault(info, XFSJ_E_CORRUPT, reg, st, fld, off, val)

static inline bool xlog_in_range(uint64_t x, uint64_t start, uint64_t len)
{
	return x >= start && x - start < len;
}

/* The families (one file each). */
extern const struct xfsj_item_ops xlog_buf_ops;		/* item_buf.c */
extern const struct xfsj_item_ops xlog_inode_ops;	/* item_inode.c */
extern const struct xfsj_item_ops xlog_dquot_ops;	/* item_quota.c */
extern const struct xfsj_item_ops xlog_qoff_ops;
extern const struct xfsj_item_ops xlog_icreate_ops;	/* item_icreate.c */
extern const struct xfsj_item_ops xlog_efi_ops;		/* item_intent.c */
extern const struct xfsj_item_ops xlog_rui_ops;
extern const struct xfsj_item_ops xlog_cui_ops;
extern const struct xfsj_item_ops xlog_bui_ops;
extern const struct xfsj_item_ops xlog_done_ops;
extern const struct xfsj_item_ops xlog_attri_ops;	/* item_attri.c */
extern const struct xfsj_item_ops xlog_xmi_ops;		/* item_xmi.c */
extern const struct xfsj_item_ops xlog_iunlink_ops;	/* items.c */

#endif
