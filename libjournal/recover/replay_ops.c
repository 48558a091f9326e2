/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay side of the log item table (recover_priv.h): one row per
 * item type, the same types as the log layer's table (log/items.c).
 * Types without a pass 2 (IUNLINK, which is never on disk, and types
 * unknown to the log layer) make the replay refuse the log; intents
 * without a finish column (the realtime ones: this version handles no
 * realtime device) make it refuse to finish.
 */
#include "recover/recover_priv.h"

#define BASE	XFSJ_LI_EFI	/* the lowest item type */
#define NROWS	(XFSJ_LI_CUD_RT - BASE + 1)
#define ROW(t, p1, p2, fin)	[(t) - BASE] = { t, p1, p2, fin }

/* Indexed by type - BASE: a look-up per item of every pass. */
static const struct xrec_ops rows[NROWS] = {
	ROW(XFSJ_LI_BUF,      xrec_buf_pass1, xrec_buf_pass2, NULL),
	ROW(XFSJ_LI_INODE,    NULL, xrec_inode_pass2, NULL),
	ROW(XFSJ_LI_DQUOT,    NULL, xrec_dquot_pass2, NULL),
	ROW(XFSJ_LI_QUOTAOFF, NULL, xrec_qoff_pass2, NULL),
	ROW(XFSJ_LI_ICREATE,  NULL, xrec_icreate_pass2, NULL),
	ROW(XFSJ_LI_EFI,      NULL, xrec_intent_pass2, xrec_finish_efi),
	ROW(XFSJ_LI_EFD,      NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_RUI,      NULL, xrec_intent_pass2, xrec_finish_rui),
	ROW(XFSJ_LI_RUD,      NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_CUI,      NULL, xrec_intent_pass2, xrec_finish_cui),
	ROW(XFSJ_LI_CUD,      NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_BUI,      NULL, xrec_intent_pass2, xrec_finish_bui),
	ROW(XFSJ_LI_BUD,      NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_ATTRI,    NULL, xrec_intent_pass2, xrec_finish_attri),
	ROW(XFSJ_LI_ATTRD,    NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_XMI,      NULL, xrec_intent_pass2, xrec_finish_xmi),
	ROW(XFSJ_LI_XMD,      NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_EFI_RT,   NULL, xrec_intent_pass2, NULL),
	ROW(XFSJ_LI_EFD_RT,   NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_RUI_RT,   NULL, xrec_intent_pass2, NULL),
	ROW(XFSJ_LI_RUD_RT,   NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_CUI_RT,   NULL, xrec_intent_pass2, NULL),
	ROW(XFSJ_LI_CUD_RT,   NULL, xrec_done_pass2, NULL),
	ROW(XFSJ_LI_IUNLINK,  NULL, NULL, NULL),
};

const struct xrec_ops *xrec_ops(uint16_t type)
{
	if (type < BASE || type - BASE >= NROWS || !rows[type - BASE].type)
		return NULL;
	return &rows[type - BASE];
}
