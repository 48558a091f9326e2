/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metadata kinds by magic number: the table the v5 LSN rule and the
 * re-stamping of replayed buffers are driven by.  Offsets are those of the
 * v5 headers in the kernel's format headers.  Btree blocks are not in the
 * table: their kind comes from the btree descriptions (btree_block.c).
 */
#include <stddef.h>
#include <string.h>

#include "core/crc32c.h"
#include "ondisk/format.h"
#include "core/layout.h"
#include "ondisk/meta.h"
#include "ondisk/dir_block.h"
#include "xfsj/ondisk.h"

#define SB_SPAN	XFSJ_META_SPAN_SECTOR
/* Where a header keeps its LSN, UUID and CRC, from its checked layout. */
#define AT(raw)	(int16_t)offsetof(struct raw, lsn),			\
		(int16_t)offsetof(struct raw, uuid),			\
		(int16_t)offsetof(struct raw, crc)
/* The dir3 data, block and free headers: crc, blkno, lsn, uuid, owner. */
#define DIR3	XFSJ_DIR3_OFF_LSN, XFSJ_DIR3_OFF_UUID, XFSJ_DIR3_OFF_CRC
/* The da3 block info of leaf and node blocks. */
#define DA3	XFSJ_DA3_OFF_LSN, XFSJ_DA3_OFF_UUID, XFSJ_DA3_OFF_CRC
#define DA_MAGIC	XFSJ_DA3_OFF_MAGIC, 2

static const struct xfsj_meta_kind kinds[] = {
	/* name          magic, its offset and size; lsn, uuid, crc; span */
	{ "superblock",  XFSJ_SB_MAGIC, 0, 4, AT(xfsj_sb_raw), SB_SPAN, false },
	{ "AGF",         XFSJ_AGF_MAGIC, 0, 4, AT(xfsj_agf_raw), SB_SPAN,
	  false },
	{ "AGI",         XFSJ_AGI_MAGIC, 0, 4, AT(xfsj_agi_raw), SB_SPAN,
	  false },
	{ "AGFL",        XFSJ_AGFL_MAGIC, 0, 4, AT(xfsj_agfl_hdr_raw), SB_SPAN,
	  false },
	{ "symlink",     XFSJ_SYMLINK_MAGIC, 0, 4, AT(xfsj_rmt_hdr_raw), 0,
	  false },
	{ "dir block",   XFSJ_DIR3_BLOCK_MAGIC, 0, 4, DIR3, 0, false },
	{ "dir data",    XFSJ_DIR3_DATA_MAGIC, 0, 4, DIR3, 0, false },
	{ "dir free",    XFSJ_DIR3_FREE_MAGIC, 0, 4, DIR3, 0, false },
	{ "dir leaf1",   XFSJ_DIR3_LEAF1_MAGIC, DA_MAGIC, DA3, 0, false },
	{ "dir leafn",   XFSJ_DIR3_LEAFN_MAGIC, DA_MAGIC, DA3, 0, false },
	{ "da node",     XFSJ_DA3_NODE_MAGIC, DA_MAGIC, DA3, 0, false },
	{ "attr leaf",   XFSJ_ATTR3_LEAF_MAGIC, DA_MAGIC, DA3, 0, false },
	/* Remote attr values: a header in every FS block; no LSN rule. */
	{ "attr remote", XFSJ_ATTR_RMT_MAGIC, 0, 4, AT(xfsj_rmt_hdr_raw), 0,
	  true },
};

/* A v5 btree block's kind, from its tree's description. */
static bool btree_kind(uint32_t magic, struct xfsj_meta_kind *k)
{
	bool v4;
	const struct xfsj_btree_shape *s = xfsj_btree_by_magic(magic, &v4);

	if (!s || v4)
		return false;
	*k = (struct xfsj_meta_kind){
		.name = s->name, .magic = s->magic, .magic_off = 0,
		.magic_size = 4, .lsn_off = (int16_t)s->lsn_off,
		.uuid_off = (int16_t)s->uuid_off,
		.crc_off = (int16_t)s->crc_off,
	};
	return true;
}

bool xfsj_meta_identify(const void *buf, size_t len,
			struct xfsj_meta_kind *out)
{
	const uint8_t *p = buf;

	if (len >= 4 && btree_kind(xfsj_get_be32(p), out))
		return true;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct xfsj_meta_kind *k = &kinds[i];
		uint32_t m;

		if ((size_t)k->magic_off + k->magic_size > len)
			continue;
		m = k->magic_size == 4 ? xfsj_get_be32(p + k->magic_off) :
					 xfsj_get_be16(p + k->magic_off);
		if (m == k->magic) {
			*out = *k;
			return true;
		}
	}
	return false;
}

/*
 * Where @buf keeps the UUID its metadata is stamped with: the kind's
 * field, but for a superblock with META_UUID (its UUID changed since
 * mkfs), whose metadata carries sb_meta_uuid, as the kernel compares it.
 */
static size_t uuid_off(const struct xfsj_meta_kind *k, const uint8_t *p,
		       size_t len)
{
	size_t incompat = offsetof(struct xfsj_sb_raw, features_incompat);

	if (k->magic == XFSJ_SB_MAGIC && incompat + 4 <= len &&
	    (xfsj_get_be32(p + incompat) & XFSJ_INCOMPAT_META_UUID))
		return offsetof(struct xfsj_sb_raw, meta_uuid);
	return (size_t)k->uuid_off;
}

uint64_t xfsj_meta_lsn(const void *buf, size_t len, const uint8_t uuid[16])
{
	struct xfsj_meta_kind kind, *k = &kind;
	const uint8_t *p = buf;
	size_t uoff;

	if (!xfsj_meta_identify(buf, len, k) || k->per_block ||
	    k->lsn_off < 0 || (size_t)k->lsn_off + 8 > len)
		return 0;
	uoff = uuid_off(k, p, len);
	/* A block left by an older filesystem: its LSN means nothing. */
	if (uoff + 16 > len || memcmp(p + uoff, uuid, 16))
		return 0;
	return xfsj_get_be64(p + k->lsn_off);
}

const uint8_t *xfsj_meta_fs_uuid(const struct xfsj_sb *sb)
{
	return (sb->features_incompat & XFSJ_INCOMPAT_META_UUID) ?
	       sb->meta_uuid : sb->uuid;
}

void xfsj_meta_stamp(void *buf, size_t len, uint64_t lsn, uint32_t sectsize,
		     uint32_t blocksize, uint32_t inodesize)
{
	struct xfsj_meta_kind kind, *k = &kind;
	uint8_t *p = buf;

	(void)inodesize;
	if (!xfsj_meta_identify(buf, len, k))
		return;
	if (k->per_block) {
		for (size_t off = 0; off + blocksize <= len; off += blocksize) {
			if (xfsj_get_be32(p + off) != k->magic)
				break;
			/*
			 * Remote attribute blocks are written synchronously,
			 * never logged, so their LSN field holds all-ones
			 * ("no LSN"), which the kernel's write verifier
			 * insists on: keep it, only the CRC is redone.
			 */
			xfsj_cksum_update(p + off, blocksize, (size_t)k->crc_off);
		}
		return;
	}
	size_t span = k->span == XFSJ_META_SPAN_SECTOR ? sectsize :
		      (k->span ? k->span : len);

	if (span > len || (size_t)k->lsn_off + 8 > span)
		return;
	xfsj_put_be64(p + k->lsn_off, lsn);
	xfsj_cksum_update(p, span, (size_t)k->crc_off);
}
