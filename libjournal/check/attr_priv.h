/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the attribute fork checker's files: attr.c (the rows, the
 * short form, the rules of one attribute and parent pointers) and
 * attr_blk.c (leaf and node blocks, remote values).
 */
#ifndef XFSJ_CHECK_ATTR_PRIV_H
#define XFSJ_CHECK_ATTR_PRIV_H

#include "check/check_priv.h"

/* The rows of xck_attr_table (attr.c), numbered 0x06nnnn. */
enum {
	AT_FORMAT,
	AT_SF_SMALL, AT_SF_TOTSIZE_BIG, AT_SF_COUNT, AT_SF_TOTSIZE,
	AT_SF_NAMELEN, AT_SF_PAST_END,
	AT_FLAGS, AT_NAMESPACE, AT_INCOMPLETE, AT_NAMELEN, AT_NAME,
	AT_DUP, AT_PPTR_NOFEAT, AT_PPTR_VALUE, AT_PPTR_PARENT,
	AT_PPTR_REMOTE,
	AT_BLK_MISSING, AT_BLK_CRC, AT_BLK_MAGIC, AT_BLK_UUID, AT_BLK_OWNER,
	AT_BLK_BLKNO, AT_BLK_SIBLING, AT_BLK_SHARED, AT_BLK_PAD,
	AT_LEAF_COUNT, AT_LEAF_EMPTY, AT_LEAF_FIRSTUSED, AT_LEAF_USED,
	AT_LEAF_FREEMAP, AT_LEAF_FREEMAP_USED, AT_LEAF_NAMEIDX,
	AT_LEAF_HASHORDER, AT_LEAF_HASHVAL, AT_LEAF_NAME_PAST,
	AT_LEAF_OVERLAP,
	AT_RMT_VALUEBLK, AT_RMT_VALUELEN, AT_RMT_MISSING, AT_RMT_HEADER,
	AT_NODE_COUNT, AT_NODE_LEVEL, AT_NODE_HASHORDER, AT_NODE_HASHVAL,
	AT_NODE_BEFORE,
	AT__N
};
extern const struct xfsj_problem_def xck_attr_rows[AT__N];

/* One attribute as stored (short form or leaf entry). */
struct xck_aent {
	uint8_t flags;		/* XFSJ_ATTR_NS_*, LOCAL, INCOMPLETE */
	uint8_t namelen;
	const uint8_t *name;
	uint32_t valuelen;
	const uint8_t *value;	/* NULL: a remote value */
};

/* The check of one attribute fork. */
struct xck_aw {
	struct xck *ck;
	struct xck_icheck *ic;
	uint32_t bs;
	uint8_t uuid[16];
	bool has_parent;
	char field[96];		/* the field of the problem being reported */
};

/* Report row @row for the inode, with the field in w->field. */
void xck_attr_report(struct xck_aw *w, int row, unsigned int has,
		     const struct xfsj_problem *more);

/*
 * The rules of one attribute, wherever it is stored (w->field names it):
 * flags, one namespace, INCOMPLETE, the name, parent pointers (value and
 * parent inode; a good one is recorded in ck->pptrs).  Returns false when
 * the entry is too damaged to be compared with others.
 */
bool xck_attr_entry(struct xck_aw *w, const struct xck_aent *e);
/* Same (name, namespace), and for parent pointers the same value. */
bool xck_attr_same(const struct xck_aent *a, const struct xck_aent *b);

/* Leaf and node forks (attr_blk.c). */
int xck_attr_blocks(struct xck_aw *w);

#endif
