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
#include "ondisk/attr_layout.h"
#include "ondisk/dir_block.h"

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

#define M32(m)	(m), 0, 4			/* be32 at byte 0 */
#define M16(m)	(m), 0, 2			/* be16 at byte 0 */
#define DA(m)	(m), XFSJ_DA3_OFF_MAGIC, 2	/* da block info magic */

static const struct bufkind bufkinds[] = {
	{ M32(XFSJ_SB_MAGIC),		LV_NONE,  "superblock" },
	{ M32(XFSJ_AGF_MAGIC),		LV_NONE,  "AGF" },
	{ M32(XFSJ_AGI_MAGIC),		LV_NONE,  "AGI" },
	{ M32(XFSJ_AGFL_MAGIC),		LV_NONE,  "AGFL" },
	{ M32(XFSJ_RTRMAP_MAGIC),	LV_BTREE, "rtrmapbt" },
	{ M32(XFSJ_RTREFC_MAGIC),	LV_BTREE, "rtrefcountbt" },
	{ M32(XFSJ_DIR3_BLOCK_MAGIC),	LV_NONE,  "dir block" },
	{ M32(XFSJ_DIR_BLOCK_MAGIC_V4),	LV_NONE,  "dir block (v4)" },
	{ M32(XFSJ_DIR3_DATA_MAGIC),	LV_NONE,  "dir data" },
	{ M32(XFSJ_DIR_DATA_MAGIC_V4),	LV_NONE,  "dir data (v4)" },
	{ M32(XFSJ_DIR3_FREE_MAGIC),	LV_NONE,  "dir free" },
	{ M32(XFSJ_DIR_FREE_MAGIC_V4),	LV_NONE,  "dir free (v4)" },
	{ M32(XFSJ_ATTR_RMT_MAGIC),	LV_NONE,  "attr remote" },
	{ M32(XFSJ_SYMLINK_MAGIC),	LV_NONE,  "symlink" },
	{ M32(XFSJ_RTBITMAP_MAGIC),	LV_NONE,  "rt bitmap" },
	{ M32(XFSJ_RTSUMMARY_MAGIC),	LV_NONE,  "rt summary" },
	{ DA(XFSJ_DIR3_LEAF1_MAGIC),	LV_NONE,  "dir leaf1" },
	{ DA(XFSJ_DIR_LEAF1_MAGIC_V4),	LV_NONE,  "dir leaf1 (v4)" },
	{ DA(XFSJ_DIR3_LEAFN_MAGIC),	LV_NONE,  "dir leafn" },
	{ DA(XFSJ_DIR_LEAFN_MAGIC_V4),	LV_NONE,  "dir leafn (v4)" },
	{ DA(XFSJ_DA3_NODE_MAGIC),	LV_DA3,   "da node" },
	{ DA(XFSJ_DA_NODE_MAGIC_V4),	LV_DA2,   "da node (v4)" },
	{ DA(XFSJ_ATTR3_LEAF_MAGIC),	LV_NONE,  "attr leaf" },
	{ DA(XFSJ_ATTR_LEAF_MAGIC_V4),	LV_NONE,  "attr leaf (v4)" },
	{ M16(XFSJ_DINODE_MAGIC),	LV_NONE,  "inode cluster" },
	{ M16(XFSJ_DQUOT_MAGIC),	LV_NONE,  "dquot" },
};

/* A btree block's level (short and long blocks alike). */
#define BT_LEVEL	XFSJ_LB_OFF(level)

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
			if (len >= BT_LEVEL + 2)
				c->level = xfsj_get_be16(p + BT_LEVEL);
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
		if (k->lv == LV_BTREE && len >= BT_LEVEL + 2)
			c->level = xfsj_get_be16(p + BT_LEVEL);
		else if (k->lv == LV_DA3 && len >= XFSJ_DA3_NODE_OFF_LEVEL + 2)
			c->level = xfsj_get_be16(p + XFSJ_DA3_NODE_OFF_LEVEL);
		else if (k->lv == LV_DA2 && len >= XFSJ_DA_NODE_OFF_LEVEL_V4 + 2)
			c->level = xfsj_get_be16(p + XFSJ_DA_NODE_OFF_LEVEL_V4);
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

/* Cancellations last, inode buffers before them, the rest first. */
static uint8_t order_of(uint16_t flags, uint8_t row_order)
{
	if (flags & XFSJ_BLF_CANCEL)
		return XFSJ_ORDER_CANCEL;
	if (flags & XFSJ_BLF_INODE_BUF)
		return XFSJ_ORDER_INODE_BUF;
	return row_order;
}

static uint8_t buf_order(const struct xfsj_ritem *it, uint8_t row_order)
{
	if (it->reg[0].len < XFSJ_BLF_HDR_SIZE)
		return row_order;
	return order_of(xlog_le16(it->reg[0].p + XFSJ_BLF_OFF(flags)),
			row_order);
}

static int dec_buf(const struct xfsj_ritem *it, struct xfsj_item_info *in)
{
	const uint8_t *p = it->reg[0].p;
	uint32_t len = it->reg[0].len, bits = 0, bytes = 0;

	if (len < XFSJ_BLF_HDR_SIZE)
		return ITEM_BAD(in, "BUF item", "blf_len", 0, len);
	in->u.buf.flags = xlog_le16(p + XFSJ_BLF_OFF(flags));
	in->u.buf.len = xlog_le16(p + XFSJ_BLF_OFF(len));
	in->u.buf.blkno = xlog_le64(p + XFSJ_BLF_OFF(blkno));
	in->u.buf.map_size = xlog_le32(p + XFSJ_BLF_OFF(map_size));
	in->u.buf.map = p + XFSJ_BLF_HDR_SIZE;
	in->u.buf.blft = in->u.buf.flags >> XFSJ_BLFT_SHIFT;
	in->order = order_of(in->u.buf.flags, in->order);
	if (in->u.buf.map_size > XFSJ_BLF_MAP_MAX ||
	    XFSJ_BLF_HDR_SIZE + 4 * in->u.buf.map_size > len)
		return ITEM_BAD(in, "BUF item", "blf_map_size",
				XFSJ_BLF_OFF(map_size), in->u.buf.map_size);
	in->u.buf.content.level = -1;
	if (in->brief)		/* the rest describes the item for printing */
		return 0;
	for (uint32_t i = 0; i < in->u.buf.map_size; i++)
		bits += (uint32_t)__builtin_popcount(xlog_le32(in->u.buf.map +
							       4 * i));
	for (uint32_t i = 1; i < it->nreg; i++)
		bytes += it->reg[i].len;
	in->u.buf.nbits = bits;
	in->u.buf.data_bytes = bytes;
	in->u.buf.map_mismatch = bytes != bits * XFSJ_BLF_CHUNK;
	/* The first region starts at buffer byte 0 only if bit 0 is set. */
	if (it->nreg >= 2 && in->u.buf.map_size &&
	    (xlog_le32(in->u.buf.map) & 1))
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

static void buf_each_daddr(const struct xfsj_item_info *in,
			   void (*fn)(void *arg, uint64_t daddr, uint32_t bbs),
			   void *arg)
{
	fn(arg, in->u.buf.blkno, in->u.buf.len);
}

const struct xfsj_item_ops xlog_buf_ops = {
	.decode = dec_buf,
	.order = buf_order,
	.touches_ino = buf_touches_ino,
	.touches = buf_touches,
	.each_daddr = buf_each_daddr,
};
