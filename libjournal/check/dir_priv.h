/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the directory checkers: dir.c (the driver, short form, names),
 * dir_data.c (data and single blocks), dir_leaf.c (leaf1, node, leafn and
 * free index blocks).
 */
#ifndef XFSJ_CHECK_DIR_PRIV_H
#define XFSJ_CHECK_DIR_PRIV_H

#include "check/check_priv.h"
#include "ondisk/dir_block.h"

enum {
	DIR_SF,			/* a short-form field */
	DIR_SF_SIZE,
	DIR_NOBLOCKS,
	DIR_UNMAPPED,
	DIR_MAGIC,
	DIR_CRC,
	DIR_HDR,		/* blkno, owner: a field with its value */
	DIR_UUID,
	DIR_BESTFREE,
	DIR_UNUSED,		/* an unused region of a data block */
	DIR_ENTRY,		/* a data entry's layout */
	DIR_ENT_INO,
	DIR_ENT_NAME,
	DIR_DUP,
	DIR_DOT,
	DIR_DOTDOT,
	DIR_LEAF_FIELD,		/* count, stale, bestcount, siblings */
	DIR_LEAF_ORDER,
	DIR_LEAF_MISSING,
	DIR_LEAF_DANGLING,
	DIR_BESTS,
	DIR_NODE,
	DIR_FREE_HDR,
	DIR_SIZE,
	DIR_STRAY,
	DIR_SF_OFFSET,
	DIR__N
};
extern const struct xfsj_problem_def xck_dir_rows[DIR__N];

/* One data entry seen. */
struct xck_dent {
	uint64_t ino;
	uint32_t hash;
	uint32_t addr;		/* dataptr */
	uint32_t nameoff;	/* in the context's names */
	uint8_t namelen;
	uint8_t ftype;
	uint16_t pad;
};

/* One live leaf entry seen. */
struct xck_lent {
	uint32_t hash, addr;
};

/* What a data block says of its best free region. */
#define XCK_BEST_UNKNOWN	0x10000U	/* unread or unusable */
#define XCK_BEST_HOLE		XFSJ_DIR2_NULL_DATAOFF

/* One data block seen, in block order. */
struct xck_best {
	uint64_t db;
	uint32_t best;		/* bestfree[0].length or XCK_BEST_UNKNOWN */
	bool walked;		/* every entry of it was seen */
	bool covered;		/* a free index names it */
};

/* One directory being checked. */
struct xck_dctx {
	struct xck *ck;
	struct xck_icheck *ic;
	uint32_t dirblksize;
	unsigned int dirblkbytelog;
	uint32_t fsbs;		/* filesystem blocks per directory block */
	uint64_t leafdb, freedb;	/* first block of each space, in
					 * directory blocks */
	uint64_t nblocks_end;	/* directory blocks up to the last mapped */
	bool ftype;
	bool isblock;
	struct xck_vec dents;	/* struct xck_dent */
	struct xck_vec lents;	/* struct xck_lent */
	uint8_t *names;
	size_t names_len, names_cap;
	struct xck_vec bests;	/* struct xck_best, by db */
	uint64_t nbest;		/* the last data block + 1 */
	bool leaves_ok;		/* every leaf block was read and walked */
	bool data_ok;		/* every data block was walked whole */
	/* Entries were lost (a block not walked whole): lost_id is the
	 * problem that said so first (causes.c). */
	bool lost;
	uint64_t lost_id;
};

/*
 * Entries of the directory were lost; @first: the number the next problem
 * had before the check that lost them reported (nothing reported since:
 * nothing noted).
 */
void xck_dir_lost(struct xck_dctx *d, uint64_t first);

/* Report a directory problem; @has adds to INO. */
void xck_dir_report(struct xck_dctx *d, int row, unsigned int has,
		    uint64_t off, const char *field, uint64_t expected,
		    uint64_t found);
/* Report @field of the block at directory block @db: @expected, @found. */
void xck_dir_blk_field(struct xck_dctx *d, int row, uint64_t db,
		       const char *field, uint64_t expected, uint64_t found);
/* Record one entry (its name copied). */
int xck_dir_add_dent(struct xck_dctx *d, uint64_t ino, const uint8_t *name,
		     uint8_t namelen, uint8_t ftype, uint32_t addr);

/*
 * Read directory block @db (in directory blocks); NULL with *@err = 0 and a
 * report when it is unmapped (partly), or *@err on an I/O error.
 * @daddr gets the disk address of its first sector.
 */
uint8_t *xck_dir_read(struct xck_dctx *d, uint64_t db, uint64_t *daddr,
		      int *err);
/*
 * Check the self-describing header of a block read at @daddr: false when
 * the magic is not @magic (reported: the block cannot be walked).
 */
bool xck_dir_hdr_check(struct xck_dctx *d, uint64_t db, const uint8_t *b,
		       const struct xfsj_dir3_hdr *h, uint32_t magic,
		       uint64_t daddr);

/* The best free length of data block @db: XCK_BEST_HOLE when unmapped. */
struct xck_best *xck_dir_best(const struct xck_dctx *d, uint64_t db);

/* dir_data.c: a data block (or the single block) @db. */
int xck_dir_data(struct xck_dctx *d, uint64_t db);
/* dir_leaf.c: the leaf1 block, or the node tree and free index. */
int xck_dir_leaf1(struct xck_dctx *d);
int xck_dir_node(struct xck_dctx *d);
/* Leaf entries of a leaf or single block, from @ents; the count of stale
 * ones.  Reports order; returns the last hash. */
uint32_t xck_dir_leaf_ents(struct xck_dctx *d, uint64_t db,
			   const uint8_t *ents, uint32_t count,
			   uint32_t *stale, int *err);

#endif
