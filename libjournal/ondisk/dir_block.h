/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory blocks of the v5 ("dir3") format, outside the inode: the
 * layouts of data, block, leaf1, leafn, da node and free index blocks.
 *
 * A directory's file offsets are split in three spaces of 32 GiB each:
 * data blocks from 0, leaf and node blocks from XFSJ_DIR2_LEAF_OFFSET,
 * free index blocks from XFSJ_DIR2_FREE_OFFSET.  A directory block is
 * 1 << sb_dirblklog filesystem blocks.
 *
 * Data and block headers (64 bytes): magic be32 @0, crc @4, blkno be64 @8,
 * lsn @16, uuid @24, owner be64 @40, bestfree[3] @48 (offset be16,
 * length be16: the three largest unused regions, largest first), pad.
 * The free index header shares the first 48 bytes, then firstdb be32 @48,
 * nvalid @52, nused @56, pad; bests be16[] from 64.
 * Leaf and node blocks start with the da3 block info (56 bytes): forw be32
 * @0, back @4, magic be16 @8, pad, crc @12, blkno be64 @16, lsn @24, uuid
 * @32, owner be64 @48; then count be16 @56 and stale (leaf) or level
 * (node) be16 @58, pad to 64.  Leaf entries: hashval be32, address be32
 * (the entry's directory byte offset >> 3; 0 is a stale entry).  Node
 * entries: hashval be32, before be32 (the child's file block).
 * A leaf1 block ends with bests be16[bestcount] and bestcount be32; a
 * single-block directory ends with its leaf entries and count be32, stale
 * be32.
 *
 * In the data area every 8-byte aligned byte belongs to an entry
 * (inumber be64, namelen u8, name, [ftype u8], pad, tag be16 at the end:
 * the entry's own offset; rounded to 8 bytes) or to an unused region
 * (freetag 0xffff be16, length be16, ..., tag be16 at the end).
 */
#ifndef XFSJ_DIR_BLOCK_H
#define XFSJ_DIR_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/layout.h"
#include "ondisk/attr_layout.h"

#define XFSJ_DIR3_BLOCK_MAGIC	0x58444233U	/* XDB3: single block */
#define XFSJ_DIR3_DATA_MAGIC	0x58444433U	/* XDD3: data block */
#define XFSJ_DIR3_FREE_MAGIC	0x58444633U	/* XDF3: free index */
#define XFSJ_DIR3_LEAF1_MAGIC	0x3df1U		/* leaf with bests */
#define XFSJ_DIR3_LEAFN_MAGIC	0x3dffU		/* leaf of a node dir */
#define XFSJ_DIR3_NODE_MAGIC	XFSJ_DA3_NODE_MAGIC	/* attr_layout.h */
/* The same blocks on v4 (pre-CRC) filesystems. */
#define XFSJ_DIR_BLOCK_MAGIC_V4	0x58443242U	/* XD2B */
#define XFSJ_DIR_DATA_MAGIC_V4	0x58443244U	/* XD2D */
#define XFSJ_DIR_FREE_MAGIC_V4	0x58443246U	/* XD2F */
#define XFSJ_DIR_LEAF1_MAGIC_V4	0xd2f1U
#define XFSJ_DIR_LEAFN_MAGIC_V4	0xd2ffU

#define XFSJ_DIR2_LEAF_OFFSET	(1ULL << 35)	/* bytes */
#define XFSJ_DIR2_FREE_OFFSET	(1ULL << 36)
#define XFSJ_DIR2_SPACE_END	(3ULL << 35)
#define XFSJ_DIR3_HDR_SIZE	64	/* every dir3 block header */
#define XFSJ_DIR3_OFF_CRC	4	/* data, block and free headers */
#define XFSJ_DIR3_OFF_LSN	16
#define XFSJ_DIR3_OFF_UUID	24
/*
 * The offset of the first entry after "." and ".." (16 bytes each) in a
 * data block: what a short-form directory's entry offsets start from.
 */
#define XFSJ_DIR3_FIRST_OFFSET	(XFSJ_DIR3_HDR_SIZE + 2 * 16)
#define XFSJ_DIR3_BLKINFO_SIZE	56
#define XFSJ_DIR2_BEST_FREE	3
#define XFSJ_DIR2_FREE_TAG	0xffffU
#define XFSJ_DIR2_NULL_DATAOFF	0xffffU
#define XFSJ_DIR2_DATA_ALIGN	8
#define XFSJ_DIR2_LEAF_ENT_SIZE	8
#define XFSJ_DIR2_BLOCK_TAIL	8	/* count, stale */
#define XFSJ_DIR2_LEAF_TAIL	4	/* bestcount */
/* The kernel's smallest unused region and entry: 8 and 16 bytes. */
#define XFSJ_DIR2_UNUSED_MIN	8

/* The header fields every dir3 block has (either layout). */
struct xfsj_dir3_hdr {
	uint32_t magic;
	uint64_t blkno;		/* daddr of the block's first sector */
	uint64_t lsn;
	uint64_t owner;		/* the directory's inode */
	uint8_t uuid[16];
	uint32_t forw, back;	/* da3 blocks only */
	uint32_t crc_off;	/* where the CRC is */
};

/* Decode a data, block or free index header (magic be32 at 0). */
void xfsj_dir3_data_hdr_decode(const uint8_t *b, struct xfsj_dir3_hdr *h);
/* Decode a leaf or node header's block info (magic be16 at 8). */
void xfsj_dir3_blkinfo_decode(const uint8_t *b, struct xfsj_dir3_hdr *h);
/*
 * Decode whichever header @b starts with (by its magic; false: none of
 * the dir3 magics), and write @h back in the layout it was decoded from
 * (h->crc_off says which; the CRC itself is the writer's to stamp).
 */
bool xfsj_dir3_hdr_decode_any(const uint8_t *b, struct xfsj_dir3_hdr *h);
void xfsj_dir3_hdr_encode(uint8_t *b, const struct xfsj_dir3_hdr *h);

struct xfsj_dir2_bestfree {
	uint16_t offset, length;
};

void xfsj_dir3_bestfree_get(const uint8_t *b,
			    struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE]);
void xfsj_dir3_bestfree_put(uint8_t *b,
			    const struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE]);
/*
 * The bestfree rule, the one copy: @bf (zeroed to start) holds the three
 * largest unused regions seen, largest first, an equal one after those
 * before it; add the region of @len bytes at @off.
 */
void xfsj_dir2_bestfree_add(struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE],
			    uint32_t off, uint32_t len);

/* One item of a data area: an entry or an unused region. */
struct xfsj_dir2_item {
	bool unused;
	uint32_t off;		/* in the block */
	uint32_t len;		/* bytes the item takes */
	uint16_t tag;		/* the offset its last two bytes hold */
	/* entries: */
	uint64_t ino;
	const uint8_t *name;
	uint8_t namelen;
	uint8_t ftype;		/* 0 without the ftype feature */
};

/* Bytes an entry with a @namelen name takes (8-byte aligned). */
unsigned int xfsj_dir2_data_entsize(unsigned int namelen, bool ftype);

/*
 * Decode the item at byte @off of the data area ending at @end.  Returns
 * 0, or -XFSJ_E_CORRUPT with *@field naming what does not fit ("length",
 * "namelen", "offset"); the walk cannot go on past such an item.
 */
int xfsj_dir2_data_item(const uint8_t *b, uint32_t off, uint32_t end,
			bool ftype, struct xfsj_dir2_item *it,
			const char **field);

/* The data area of a data or single block (dir_data_walk.c). */
struct xfsj_dir2_area {
	uint32_t end;		/* the area is [XFSJ_DIR3_HDR_SIZE, end) */
	bool block;		/* a single block: the fields below are read */
	bool count_ok;		/* else count is past what fits: end at tail */
	uint32_t count, stale;	/* the tail, as found */
};

/*
 * The area of the block @b of @bsize bytes; -XFSJ_E_CORRUPT when it is
 * neither a dir3 data block nor a single block.
 */
int xfsj_dir2_data_area(const uint8_t *b, uint32_t bsize,
			struct xfsj_dir2_area *a);

/* A walk over the items of [XFSJ_DIR3_HDR_SIZE, end). */
struct xfsj_dir2_walk {
	const uint8_t *b;
	uint32_t off;		/* the next item's; where a bad one starts */
	uint32_t end;
	bool ftype;
	const char *field;	/* what did not fit, after the walk stopped */
};

void xfsj_dir2_walk_init(struct xfsj_dir2_walk *w, const uint8_t *b,
			 uint32_t end, bool ftype);
/*
 * The next item into @it (whose off is where it starts); false at the
 * end, or at an item that does not fit: then @w->field names what did
 * not and @it holds what was read of it.
 */
bool xfsj_dir2_walk_next(struct xfsj_dir2_walk *w, struct xfsj_dir2_item *it);

struct xfsj_dir2_leaf_ent {
	uint32_t hashval;
	uint32_t address;	/* dataptr; 0: stale */
};

static inline void xfsj_dir2_leaf_ent_get(const uint8_t *p,
					  struct xfsj_dir2_leaf_ent *e)
{
	e->hashval = xfsj_get_be32(p);
	e->address = xfsj_get_be32(p + 4);
}

/* The dataptr of byte @off of directory data block @db. */
static inline uint32_t xfsj_dir2_dataptr(unsigned int dirblkbytelog,
					 uint64_t db, uint32_t off)
{
	return (uint32_t)(((db << dirblkbytelog) + off) >> 3);
}

/* Leaf entries a leaf block holds at most; bests a free block holds. */
static inline uint32_t xfsj_dir3_leaf_max_ents(uint32_t dirblksize)
{
	return (dirblksize - XFSJ_DIR3_HDR_SIZE) / XFSJ_DIR2_LEAF_ENT_SIZE;
}

static inline uint32_t xfsj_dir3_free_max_bests(uint32_t dirblksize)
{
	return (dirblksize - XFSJ_DIR3_HDR_SIZE) / 2;
}

#endif
