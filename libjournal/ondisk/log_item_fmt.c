/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log item formats of ondisk/log.h whose decoders read their fields
 * directly (log/item_buf.c, item_intent.c, item_inode.c, item_icreate.c,
 * item_quota.c), and the dquot they log: their layouts, checked at
 * compile time against the offsets the headers state.
 */
#include "ondisk/log.h"

#define XFSJ_CUR xfsj_intent_hdr
XFSJ_DEFINE_LAYOUT(xfsj_intent_hdr_layout, XFSJ_INTENT_HDR_FIELDS,
		   "intent item", XFSJ_INTENT_HDR_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_efi_ext
XFSJ_DEFINE_LAYOUT(xfsj_efi_ext_layout, XFSJ_EFI_EXT_FIELDS, "EFI extent",
		   XFSJ_EFI_EXT_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_map_ext
XFSJ_DEFINE_LAYOUT(xfsj_map_ext_layout, XFSJ_MAP_EXT_FIELDS, "mapping",
		   XFSJ_MAP_EXT_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_cui_ext
XFSJ_DEFINE_LAYOUT(xfsj_cui_ext_layout, XFSJ_CUI_EXT_FIELDS,
		   "refcount update", XFSJ_CUI_EXT_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_blf
XFSJ_DEFINE_LAYOUT(xfsj_blf_layout, XFSJ_BLF_FIELDS, "buf log format",
		   XFSJ_BLF_HDR_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_ilf
XFSJ_DEFINE_LAYOUT(xfsj_ilf_layout, XFSJ_ILF_FIELDS, "inode log format",
		   XFSJ_INODE_LOGFMT_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_ilf32
XFSJ_DEFINE_LAYOUT(xfsj_ilf32_layout, XFSJ_ILF32_FIELDS,
		   "packed inode log format", XFSJ_INODE_LOGFMT32_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_icl
XFSJ_DEFINE_LAYOUT(xfsj_icl_layout, XFSJ_ICL_FIELDS, "ICREATE item",
		   XFSJ_ICREATE_LOGFMT_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_qlf
XFSJ_DEFINE_LAYOUT(xfsj_qlf_layout, XFSJ_QLF_FIELDS, "dquot log format",
		   XFSJ_DQUOT_LOGFMT_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_qoff
XFSJ_DEFINE_LAYOUT(xfsj_qoff_layout, XFSJ_QOFF_FIELDS, "QUOTAOFF item",
		   XFSJ_QOFF_LOGFMT_SIZE);
#undef XFSJ_CUR

#define XFSJ_CUR xfsj_dqblk
XFSJ_DEFINE_LAYOUT(xfsj_dqblk_layout, XFSJ_DQBLK_FIELDS, "dquot",
		   XFSJ_DQBLK_CORE_SIZE);
#undef XFSJ_CUR
