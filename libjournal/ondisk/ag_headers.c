/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AG headers: AGF (free space), AGI (inodes) and AGFL (the free list), the
 * three sectors after each AG's superblock.
 */
#include <string.h>

#include "core/crc32c.h"
#include "xfsj/ondisk.h"

#define XFSJ_CUR xfsj_agf
XFSJ_DEFINE_LAYOUT(xfsj_agf_layout, XFSJ_AGF_FIELDS, "AGF", XFSJ_AGF_DISK_SIZE);
#undef XFSJ_CUR
#define XFSJ_CUR xfsj_agi
XFSJ_DEFINE_LAYOUT(xfsj_agi_layout, XFSJ_AGI_FIELDS, "AGI", XFSJ_AGI_DISK_SIZE);
#undef XFSJ_CUR
#define XFSJ_CUR xfsj_agfl_hdr
XFSJ_DEFINE_LAYOUT(xfsj_agfl_layout, XFSJ_AGFL_FIELDS, "AGFL",
		   XFSJ_AGFL_HDR_SIZE);
#undef XFSJ_CUR

static int bad(struct xfsj_fault *f, int err, const struct xfsj_layout *l,
	       const char *field, uint64_t byte_off, uint64_t val)
{
	int off = xfsj_layout_offset(l, field);

	return xfsj_fault_set(f, err, l->name, field,
			      byte_off + (off < 0 ? 0 : (uint64_t)off), val);
}

/* The checks every v5 AG header shares: CRC, magic and uuid. */
static int check_common(const void *buf, const struct xfsj_vctx *c,
			const struct xfsj_layout *l, uint32_t magic,
			size_t crc_off, uint64_t byte_off,
			struct xfsj_fault *f)
{
	int uoff = xfsj_layout_offset(l, "uuid");

	if (xfsj_get_be32(buf) != magic)
		return bad(f, XFSJ_E_BADMAGIC, l, "magicnum", byte_off,
			   xfsj_get_be32(buf));
	if (!xfsj_cksum_ok(buf, c->sectsize, crc_off))
		return bad(f, XFSJ_E_BADCRC, l, "crc", byte_off,
			   xfsj_get_le32((const char *)buf + crc_off));
	if (memcmp((const char *)buf + uoff, c->uuid, 16))
		return bad(f, XFSJ_E_CORRUPT, l, "uuid", byte_off, 0);
	return 0;
}

void xfsj_agf_decode(const void *buf, struct xfsj_agf *agf)
{
	xfsj_layout_decode(&xfsj_agf_layout, buf, agf);
}

void xfsj_agf_encode(const struct xfsj_agf *agf, void *buf, size_t sectsize)
{
	memset(buf, 0, sectsize);
	xfsj_layout_encode(&xfsj_agf_layout, agf, buf);
	xfsj_cksum_update(buf, sectsize, XFSJ_AGF_CRC_OFF);
}

int xfsj_agf_verify(const void *buf, const struct xfsj_vctx *c,
		    uint64_t byte_off, struct xfsj_fault *f)
{
	const struct xfsj_layout *l = &xfsj_agf_layout;
	unsigned int flsize = xfsj_agfl_size(c->sectsize);
	struct xfsj_agf agf;
	int err;

	err = check_common(buf, c, l, XFSJ_AGF_MAGIC, XFSJ_AGF_CRC_OFF,
			   byte_off, f);
	if (err)
		return err;
	xfsj_agf_decode(buf, &agf);
	if (agf.versionnum != 1)
		return bad(f, XFSJ_E_CORRUPT, l, "versionnum", byte_off,
			   agf.versionnum);
	if (agf.seqno != c->agno)
		return bad(f, XFSJ_E_CORRUPT, l, "seqno", byte_off, agf.seqno);
	if (agf.length != c->agblocks)
		return bad(f, XFSJ_E_CORRUPT, l, "length", byte_off, agf.length);
	if (agf.flfirst >= flsize)
		return bad(f, XFSJ_E_CORRUPT, l, "flfirst", byte_off, agf.flfirst);
	if (agf.fllast >= flsize)
		return bad(f, XFSJ_E_CORRUPT, l, "fllast", byte_off, agf.fllast);
	if (agf.flcount > flsize)
		return bad(f, XFSJ_E_CORRUPT, l, "flcount", byte_off, agf.flcount);
	if (agf.freeblks > agf.length)
		return bad(f, XFSJ_E_CORRUPT, l, "freeblks", byte_off,
			   agf.freeblks);
	if (agf.longest > agf.freeblks)
		return bad(f, XFSJ_E_CORRUPT, l, "longest", byte_off, agf.longest);
	if (agf.bno_level < 1 || agf.bno_level > 16)
		return bad(f, XFSJ_E_CORRUPT, l, "bno_level", byte_off,
			   agf.bno_level);
	if (agf.cnt_level < 1 || agf.cnt_level > 16)
		return bad(f, XFSJ_E_CORRUPT, l, "cnt_level", byte_off,
			   agf.cnt_level);
	if (agf.bno_root == 0 || agf.bno_root >= agf.length)
		return bad(f, XFSJ_E_CORRUPT, l, "bno_root", byte_off,
			   agf.bno_root);
	if (agf.cnt_root == 0 || agf.cnt_root >= agf.length)
		return bad(f, XFSJ_E_CORRUPT, l, "cnt_root", byte_off,
			   agf.cnt_root);
	if (c->features_ro_compat & XFSJ_RO_COMPAT_RMAPBT) {
		if (agf.rmap_level < 1 || agf.rmap_level > 16)
			return bad(f, XFSJ_E_CORRUPT, l, "rmap_level", byte_off,
				   agf.rmap_level);
		if (agf.rmap_blocks > agf.length)
			return bad(f, XFSJ_E_CORRUPT, l, "rmap_blocks",
				   byte_off, agf.rmap_blocks);
	}
	if (c->features_ro_compat & XFSJ_RO_COMPAT_REFLINK) {
		if (agf.refcount_level < 1 || agf.refcount_level > 16)
			return bad(f, XFSJ_E_CORRUPT, l, "refcount_level",
				   byte_off, agf.refcount_level);
		if (agf.refcount_blocks > agf.length)
			return bad(f, XFSJ_E_CORRUPT, l, "refcount_blocks",
				   byte_off, agf.refcount_blocks);
	}
	if (agf.btreeblks > agf.length)
		return bad(f, XFSJ_E_CORRUPT, l, "btreeblks", byte_off,
			   agf.btreeblks);
	return 0;
}

void xfsj_agi_decode(const void *buf, struct xfsj_agi *agi)
{
	xfsj_layout_decode(&xfsj_agi_layout, buf, agi);
}

void xfsj_agi_encode(const struct xfsj_agi *agi, void *buf, size_t sectsize)
{
	memset(buf, 0, sectsize);
	xfsj_layout_encode(&xfsj_agi_layout, agi, buf);
	xfsj_cksum_update(buf, sectsize, XFSJ_AGI_CRC_OFF);
}

int xfsj_agi_verify(const void *buf, const struct xfsj_vctx *c,
		    uint64_t byte_off, struct xfsj_fault *f)
{
	const struct xfsj_layout *l = &xfsj_agi_layout;
	struct xfsj_agi agi;
	int err;

	err = check_common(buf, c, l, XFSJ_AGI_MAGIC, XFSJ_AGI_CRC_OFF,
			   byte_off, f);
	if (err)
		return err;
	xfsj_agi_decode(buf, &agi);
	if (agi.versionnum != 1)
		return bad(f, XFSJ_E_CORRUPT, l, "versionnum", byte_off,
			   agi.versionnum);
	if (agi.seqno != c->agno)
		return bad(f, XFSJ_E_CORRUPT, l, "seqno", byte_off, agi.seqno);
	if (agi.length != c->agblocks)
		return bad(f, XFSJ_E_CORRUPT, l, "length", byte_off, agi.length);
	if (agi.level < 1 || agi.level > 16)
		return bad(f, XFSJ_E_CORRUPT, l, "level", byte_off, agi.level);
	if (agi.root == 0 || agi.root >= agi.length)
		return bad(f, XFSJ_E_CORRUPT, l, "root", byte_off, agi.root);
	if (agi.freecount > agi.count)
		return bad(f, XFSJ_E_CORRUPT, l, "freecount", byte_off,
			   agi.freecount);
	if (c->features_ro_compat & XFSJ_RO_COMPAT_FINOBT) {
		if (agi.free_level < 1 || agi.free_level > 16)
			return bad(f, XFSJ_E_CORRUPT, l, "free_level", byte_off,
				   agi.free_level);
		if (agi.free_root == 0 || agi.free_root >= agi.length)
			return bad(f, XFSJ_E_CORRUPT, l, "free_root", byte_off,
				   agi.free_root);
	}
	for (int i = 0; i < XFSJ_AGI_UNLINKED_BUCKETS; i++) {
		uint32_t v = agi.unlinked[i];

		/* A bucket holds NULLAGINO or an inode number in this AG. */
		if (v == 0 || (v != XFSJ_NULLAGINO &&
			       v / (c->blocksize / c->inodesize) >= agi.length))
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, l->name,
					      "unlinked", byte_off + 40 + 4 * i,
					      v);
	}
	return 0;
}

void xfsj_agfl_decode(const void *buf, size_t sectsize,
		      struct xfsj_agfl_hdr *hdr, uint32_t *bno)
{
	const uint8_t *p = (const uint8_t *)buf + XFSJ_AGFL_HDR_SIZE;

	xfsj_layout_decode(&xfsj_agfl_layout, buf, hdr);
	for (unsigned int i = 0; i < xfsj_agfl_size(sectsize); i++)
		bno[i] = xfsj_get_be32(p + 4 * i);
}

void xfsj_agfl_encode(const struct xfsj_agfl_hdr *hdr, const uint32_t *bno,
		      void *buf, size_t sectsize)
{
	uint8_t *p = (uint8_t *)buf + XFSJ_AGFL_HDR_SIZE;

	memset(buf, 0, sectsize);
	xfsj_layout_encode(&xfsj_agfl_layout, hdr, buf);
	for (unsigned int i = 0; i < xfsj_agfl_size(sectsize); i++)
		xfsj_put_be32(p + 4 * i, bno[i]);
	xfsj_cksum_update(buf, sectsize, XFSJ_AGFL_CRC_OFF);
}

int xfsj_agfl_verify(const void *buf, const struct xfsj_vctx *c,
		     uint64_t byte_off, struct xfsj_fault *f)
{
	const struct xfsj_layout *l = &xfsj_agfl_layout;
	const uint8_t *p = (const uint8_t *)buf + XFSJ_AGFL_HDR_SIZE;
	int err;

	err = check_common(buf, c, l, XFSJ_AGFL_MAGIC, XFSJ_AGFL_CRC_OFF,
			   byte_off, f);
	if (err)
		return err;
	if (xfsj_get_be32((const uint8_t *)buf + 4) != c->agno)
		return bad(f, XFSJ_E_CORRUPT, l, "seqno", byte_off,
			   xfsj_get_be32((const uint8_t *)buf + 4));
	for (unsigned int i = 0; i < xfsj_agfl_size(c->sectsize); i++) {
		uint32_t b = xfsj_get_be32(p + 4 * i);

		if (b != XFSJ_NULLAGBLOCK && b >= c->agblocks)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT, l->name, "bno",
					      byte_off + XFSJ_AGFL_HDR_SIZE + 4 * i,
					      b);
	}
	return 0;
}
