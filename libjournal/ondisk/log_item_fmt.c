/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The log item formats of ondisk/log.h whose decoders read their fields
 * directly (log/item_buf.c, log/item_intent.c): their layouts, checked
 * at compile time against the offsets the headers state.
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
