/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Buffer log items (shared/reference/xfs-log.md §8): the buf log format
 * and the data regions its dirty map places, decoded once here for both
 * xfsj-logprint and the replay.
 *
 * Region 0, the format (host order): 0 type u16, 2 size u16, 4 flags u16,
 * 6 len u16 (512-byte units), 8 blkno u64 (daddr), 16 map_size u32
 * (words), 20 the dirty map (one bit per 128-byte chunk of the buffer).
 * Then one data region per run of set bits.  The flags say what the
 * buffer is (its type in the top five bits), whether it is an inode
 * buffer (only the unlinked pointers are replayed) and whether the item
 * cancels the buffer (it was freed): that decides the item's reorder
 * class.
 */
#include <string.h>

#include "log/item_priv.h"

/*
 * ---- buffer contents by magic ----
 * Btree blocks come from the btree descriptions (ondisk); the realtime
 * btrees, which have none yet, and every other kind are listed here.
 */

enum lvkind { LV_NONE, LV_BTREE, LV_DA3, LV_DA2 };

struct bufkind {
	uint32_t magic;
	uint8_t off, size;
	enum lvkind lv;
	const char *name;
};

static const struct bufkind bufkinds[] = {
	{ 0x58465342, 0, 4, LV_NONE,  "superblock" },		/* XFSB */
	{ 0x58414746, 0, 4, LV_NONE,  "AGF" },			/* XAGF */
	{ 0x58414749, 0, 4, LV_NONE,  "AGI" },			/* XAGI */
	{ 0x5841464c, 0, 4, LV_NONE,  "AGFL" },			/* XAFL */
	{ 0x4d524d42, 0, 4, LV_BTREE, "rtrmapbt" },		/* MRMB */
	{ 0x52434e54, 0, 4, LV_BTREE, "rtrefcountbt" },		/* RCNT */
	{ 0x58444233, 0, 4, LV_NONE,  "dir block" },		/* XDB3 */
	{ 0x58443242, 0, 4, LV_NONE,  "dir block (v4)" },	/* XD2B */
	{ 0x58444433, 0, 4, LV_NONE,  "dir data" },		/* XDD3 */
	{ 0x58443244, 0, 4, LV_NONE,  "dir data (v4)" },	/* XD2D */
	{ 0x58444633, 0, 4, LV_NONE,  "dir free" },		/* XDF3 */
	{ 0x58443246, 0, 4, LV_NONE,  "dir free (v4)" },	/* XD2F */
	{ 0x5841524d, 0, 4, LV_NONE,  "attr remote" },		/* XARM */
	{ 0x58534c4d, 0, 4, LV_NONE,  "symlink" },		/* XSLM */
	{ 0x424d505a, 0, 4, LV_NONE,  "rt bitmap" },		/* BMPZ */
	{ 0x53554d59, 0, 4, LV_NONE,  "rt summary" },		/* SUMY */
	{ 0x3df1, 8, 2, LV_NONE, "dir leaf1" },
	{ 0xd2f1, 8, 2, LV_NONE, "dir leaf1 (v4)" },
	{ 0x3dff, 8, 2, LV_NONE, "dir leafn" },
	{ 0xd2ff, 8, 2, LV_NONE, "dir leafn (v4)" },
	{ 0x3ebe, 8, 2, LV_DA3,  "da node" },
	{ 0xfebe, 8, 2, LV_DA2,  "da node (v4)" },
	{ 0x3bee, 8, 2, LV_NONE, "attr leaf" },
	{ 0xfbee, 8, 2, LV_NONE, "attr leaf (v4)" },
	{ 0x494e, 0, 2, LV_NONE, "inode cluster" },		/* IN */
	{ 0x4451, 0, 2, LV_NONE, "dquot" },			/* DQ */
};

void xfsj_buf_identify(const uint8_t *p, uint32_t len, uint64_t blkno,
		       struct xfsj_buf_content *c)
{
	c->name = NULL;
	c->magic = 0;
	c->level = -1;
	/* Btree blocks: by the one description of each btree type. */
	if (len >= 4) {
		bool v4;
		const struct xfsj_btree_shape *bt =
			xfsj_btree_by_magic(xfsj_get_be32(p), &v4);

		if (bt) {
			c->name = v4 ? bt->name_v4 : bt->name;
			c->magic = v4 ? bt->magic_v4 : bt->magic;
			if (len >= 6)
				c->level = xfsj_get_be16(p + 4);
			return;
		}
	}
	for (size_t i = 0; i < sizeof(bufkinds) / sizeof(bufkinds[0]); i++) {
		const struct bufkind *k = &bufkinds[i];
		uint32_t m;

		if ((uint32_t)k->off + k->size > len)
			continue;
		m = k->size == 4 ? xfsj_get_be32(p + k->off) :
				   xfsj_get_be16(p + k->off);
		if (m != k->magic)
			continue;
		c->name = k->name;
		c->magic = m;
		if (k->lv == LV_BTREE && len >= 6)
			c->level = xfsj_get_be16(p + 4);
		else if (k->lv == LV_DA3 && len >= 60)
			c->level = xfsj_get_be16(p + 58);
		else if (k->lv == LV_DA2 && len >= 16)
			c->level = xfsj_get_be16(p + 14);
		if (c->magic == XFSJ_SB_MAGIC && blkno)
			c->name = "superblock (secondary)";
		return;
	}
}

const char *xfsj_blft_name(unsigned int blft)
{
	static const char *const names[] = {
		"unknown", "udquot", "pdquot", "gdquot", "btree", "agf",
		"agfl", "agi", "dinode", "symlink", "dir block", "dir data",
		"dir free", "dir leaf1", "dir leafn", "da node", "attr leaf",
		"attr remote", "superblock", "rt bitmap", "rt summary",
	};

	return blft < sizeof(names) / sizeof(names[0]) ? names[blft] :
							 "unknown";
}

static int dec_buf(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len, bits = 0, bytes = 0;

	if (len < 20)
		return ITEM_BAD(in, "BUF item", "blf_len", 0, len);
	in->u.buf.flags = xlog_le16(p + 4);
	in->u.buf.len = xlog_le16(p + 6);
	in->u.buf.blkno = xlog_le64(p + 8);
	in->u.buf.map_size = xlog_le32(p + 16);
	in->u.buf.map = p + 20;
	in->u.buf.blft = in->u.buf.flags >> 11;
	if (in->u.buf.flags & XFSJ_BLF_CANCEL)
		in->order = XFSJ_ORDER_CANCEL;
	else if (in->u.buf.flags & XFSJ_BLF_INODE_BUF)
		in->order = XFSJ_ORDER_INODE_BUF;
	if (in->u.buf.map_size > 17 ||
	    20 + 4 * in->u.buf.map_size > len)
		return ITEM_BAD(in, "BUF item", "blf_map_size", 16,
				in->u.buf.map_size);
	for (uint32_t i = 0; i < in->u.buf.map_size; i++)
		bits += (uint32_t)__builtin_popcount(xlog_le32(p + 20 + 4 * i));
	for (uint32_t i = 1; i < it->nreg; i++)
		bytes += it->reg[i].len;
	in->u.buf.nbits = bits;
	in->u.buf.data_bytes = bytes;
	in->u.buf.map_mismatch = bytes != bits * XFSJ_BLF_CHUNK;
	in->u.buf.content.name = NULL;
	in->u.buf.content.level = -1;
	/* The first region starts at buffer byte 0 only if bit 0 is set. */
	if (it->nreg >= 2 && in->u.buf.map_size && (xlog_le32(p + 20) & 1))
		xfsj_buf_identify(it->reg[1].p, it->reg[1].len,
				  in->u.buf.blkno, &in->u.buf.content);
	return 0;
}

static bool map_bit(const struct xfsj_item_info *in, unsigned int bit)
{
	if (bit / 32 >= in->u.buf.map_size)
		return false;
	return xlog_le32(in->u.buf.map + 4 * (bit / 32)) >> (bit % 32) & 1;
}

static int runs_bad(struct xfsj_fault *f, const char *field, uint64_t off,
		    uint64_t val)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, "buf log item", field, off,
			      val);
}

int xfsj_buf_item_runs(const struct xfsj_ritem *it,
		       const struct xfsj_item_info *in, uint32_t buflen,
		       xfsj_buf_run_fn fn, void *arg, struct xfsj_fault *f)
{
	unsigned int nbits = in->u.buf.map_size * 32;
	unsigned int bit = 0;
	unsigned int reg = 1;
	uint64_t where = in->u.buf.blkno << 9;

	while (bit < nbits) {
		unsigned int n = 0;
		uint32_t off, len;

		if (!map_bit(in, bit)) {
			bit++;
			continue;
		}
		while (bit + n < nbits && map_bit(in, bit + n))
			n++;
		if (reg >= it->nreg)
			return runs_bad(f, "region count", where, it->nreg);
		len = n * XFSJ_BLF_CHUNK;
		if (it->reg[reg].len < len)
			len = it->reg[reg].len / XFSJ_BLF_CHUNK * XFSJ_BLF_CHUNK;
		if (!len)
			return runs_bad(f, "region length", where,
					it->reg[reg].len);
		off = bit * XFSJ_BLF_CHUNK;
		if (off >= buflen)
			return runs_bad(f, "dirty map", where, bit);
		if (len > buflen - off)
			len = buflen - off;
		fn(arg, off, it->reg[reg].p, len);
		bit += len / XFSJ_BLF_CHUNK;
		reg++;
	}
	return 0;
}

/* Device address (512-byte units) of the inode's cluster block. */
static uint64_t ino_daddr(const struct xfsj_fsgeo *g, uint64_t ino)
{
	uint64_t fsb = ino >> g->inopblog;

	return xfsj_fsb_to_daddr(g, fsb) +
	       (((ino & ((1ULL << g->inopblog) - 1)) * g->inodesize) >> 9);
}

/* The cluster buffer that holds the inode. */
static bool buf_touches_ino(const struct xfsj_item_info *in,
			    const struct xfsj_fsgeo *g, uint64_t ino)
{
	if (!g->known || (in->u.buf.content.magic != XFSJ_DINODE_MAGIC &&
			  !(in->u.buf.flags & XFSJ_BLF_INODE_BUF)))
		return false;
	return xlog_in_range(ino_daddr(g, ino), in->u.buf.blkno,
			     in->u.buf.len);
}

static bool buf_touches(const struct xfsj_item_info *in,
			const struct xfsj_fsgeo *g, uint64_t daddr,
			int64_t agno)
{
	if (agno >= 0)
		return g->known &&
		       xfsj_daddr_to_agno(g, in->u.buf.blkno) == agno;
	return xlog_in_range(daddr, in->u.buf.blkno, in->u.buf.len);
}

const struct xfsj_item_ops xlog_buf_ops = {
	.decode = dec_buf,
	.touches_ino = buf_touches_ino,
	.touches = buf_touches,
};
