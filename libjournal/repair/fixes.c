/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The handler table: the code of every handler a row of the problem table
 * names (xfsj_problem_def.handler), and the order in which a round's
 * stage applies the fix kinds.
 *
 * A handler carries out one fix kind in one stage of a round (the stage
 * of every problem naming it: xrp_stage_of).  It is either a pass (@pass: given
 * every problem of its kind this stage, called once however many of its
 * rows were reported; handlers that share the code share the pass) or a
 * fix of one problem (@one: called for each problem naming it, in the
 * order the check reported them).  A handler marked @todo is named by its
 * row but not written yet: its problems are left for the final check to
 * report.
 */
#include "repair/repair_priv.h"

/* sb.primary.needsrepair: the flag is cleared before the first check
 * (xrp_clear_needsrepair); a problem left names a flag that came back. */
static int needsrepair_one(struct xrp *rp, struct xrp_prob *pr)
{
	int err = xrp_clear_needsrepair(rp);

	if (!err)
		pr->done = true;
	return err;
}

#define PASS(st, kind, fn) \
	{ .stage = XFSJ_RS_##st, .fix = XFSJ_FIX_##kind, .pass = fn }
#define ONE(st, kind, fn) \
	{ .stage = XFSJ_RS_##st, .fix = XFSJ_FIX_##kind, .one = fn }
/* A handler of the AG stage that mends what an allocation reads. */
#define ALLOC_PASS(kind, fn) \
	{ .stage = XFSJ_RS_AG, .fix = XFSJ_FIX_##kind, .pass = fn, \
	  .alloc_reads = true }
#define ALLOC_ONE(kind, fn) \
	{ .stage = XFSJ_RS_AG, .fix = XFSJ_FIX_##kind, .one = fn, \
	  .alloc_reads = true }

static const struct xrp_handler handlers[XFSJ_H__COUNT] = {
	[XFSJ_H_NONE] = { .stage = XFSJ_RS_INODES, .fix = XFSJ_FIX_NONE },
	[XFSJ_H_SB_SECONDARY] =
		PASS(SB, SB_FROM_SECONDARY, xrp_fix_sb_secondary),
	[XFSJ_H_SB_COPIES] = PASS(SB, AG_HEADER, xrp_fix_sb_copies),
	[XFSJ_H_SB_QUOTINO] = ONE(SB, FIELD, xrp_field_sb),
	[XFSJ_H_SB_NEEDSREPAIR] = ONE(SB, FIELD, needsrepair_one),
	[XFSJ_H_AG_HEADERS] = ALLOC_PASS(AG_HEADER, xrp_fix_ag_headers),
	[XFSJ_H_AGF_COUNTER] = ALLOC_ONE(FIELD, xrp_field_ag),
	[XFSJ_H_AGI_COUNTER] = ALLOC_ONE(FIELD, xrp_field_ag),
	[XFSJ_H_AG_BTREES] = ALLOC_PASS(REBUILD_BTREE, xrp_fix_rebuild_btrees),
	[XFSJ_H_FREE_LEAKED] = PASS(AG, FREE_SPACE, xrp_fix_free_space),
	[XFSJ_H_CLEAR_INODE] = PASS(INODES, CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_INODE_HEADER] = PASS(INODES, CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_INODE_FORMAT] = PASS(INODES, CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_INODE_META] = PASS(INODES, CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_SYMLINK_CRC] = PASS(INODES, CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_INODE_INO] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_UUID] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_FORK_NEXTENTS] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_BIG_NEXTENTS] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_NBLOCKS] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_FLAGS] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_FLAGS2] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_SIZE] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_EXTSIZE] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_COWEXTSIZE] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_ONLINK] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_NSEC] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_TIME] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_INODE_REFLINK] = ONE(INODES, FIELD, xrp_field_inode),
	[XFSJ_H_NLINK] = PASS(INODES, NLINK, xrp_fix_nlink),
	[XFSJ_H_NLINK_ZERO] = PASS(INODES, NLINK, xrp_fix_nlink),
	[XFSJ_H_FORK_MAP] = PASS(INODES, REBUILD_BMBT, xrp_fix_rebuild_bmbt),
	[XFSJ_H_FORK_TRIM] = PASS(INODES, CLEAR_FORK, xrp_fix_clear_fork),
	[XFSJ_H_ATTR_FORK_CLEAR] = PASS(INODES, CLEAR_FORK, xrp_fix_clear_fork),
	[XFSJ_H_CROSSLINK] = PASS(AG, CLEAR_FORK, xrp_fix_clear_fork),
	[XFSJ_H_SALVAGE_DIR] = PASS(INODES, SALVAGE_DIR, xrp_fix_salvage_dir),
	[XFSJ_H_DIR_HEADER] = ONE(INODES, FIELD, xrp_field_dir),
	[XFSJ_H_DIR_UUID] = ONE(INODES, FIELD, xrp_field_dir),
	[XFSJ_H_DIR_CRC] = ONE(INODES, FIELD, xrp_field_dir),
	[XFSJ_H_DIR_SIZE] = ONE(INODES, FIELD, xrp_field_dir),
	[XFSJ_H_DIR_INDEX] = ONE(INODES, FIELD, xrp_field_dir),
	[XFSJ_H_DIRENT_FTYPE] = ONE(INODES, FIELD, xrp_field_dir),
	[XFSJ_H_CLEAR_ENTRY] = PASS(INODES, CLEAR_ENTRY, xrp_fix_clear_entry),
	[XFSJ_H_DIR_PARENTS] = PASS(INODES, CLEAR_ENTRY, xrp_fix_clear_entry),
	[XFSJ_H_DOTDOT] = ONE(INODES, FIELD, xrp_fix_dotdot),
	[XFSJ_H_DIR_ROOT] = PASS(INODES, RECONNECT, xrp_fix_dir_root),
	[XFSJ_H_RECONNECT] = PASS(INODES, RECONNECT, xrp_fix_reconnect),
	[XFSJ_H_SALVAGE_ATTR] =
		PASS(INODES, SALVAGE_ATTR, xrp_fix_salvage_attr),
	[XFSJ_H_ATTR_FIELD] = ONE(INODES, FIELD, xrp_field_attr),
	[XFSJ_H_PPTR_ADD] = PASS(INODES, PPTR, xrp_fix_pptr),
	[XFSJ_H_PPTR_REMOVE] = PASS(INODES, PPTR, xrp_fix_pptr),
	[XFSJ_H_PPTR_GEN] = PASS(INODES, PPTR, xrp_fix_pptr),
	[XFSJ_H_PPTR_BAD_PARENT] = PASS(INODES, PPTR, xrp_fix_pptr),
	[XFSJ_H_UNLINKED_NEXT] = PASS(INODES, UNLINKED, xrp_fix_unlinked),
	[XFSJ_H_UNLINKED_TAKE_OFF] = PASS(INODES, UNLINKED, xrp_fix_unlinked),
	[XFSJ_H_UNLINKED_CUT] = PASS(INODES, UNLINKED, xrp_fix_unlinked),
	[XFSJ_H_UNLINKED_FREE] = PASS(INODES, UNLINKED, xrp_fix_unlinked),
	[XFSJ_H_COUNTERS] = PASS(COUNTERS, COUNTERS, xrp_fix_counters),
};

/*
 * The order a stage applies the kinds in: fields before rebuilds, inodes
 * cleared before the forks and directories that name them, names before
 * links, leaks and lists, the counters last.
 */
static const enum xfsj_fix order[] = {
	XFSJ_FIX_FIELD,
	XFSJ_FIX_SB_FROM_SECONDARY,
	XFSJ_FIX_AG_HEADER,
	XFSJ_FIX_REBUILD_BTREE,
	XFSJ_FIX_REBUILD_BMBT,
	XFSJ_FIX_CLEAR_INODE,
	XFSJ_FIX_CLEAR_FORK,
	XFSJ_FIX_SALVAGE_DIR,
	XFSJ_FIX_CLEAR_ENTRY,
	XFSJ_FIX_SALVAGE_ATTR,
	XFSJ_FIX_NLINK,
	XFSJ_FIX_RECONNECT,
	XFSJ_FIX_PPTR,
	XFSJ_FIX_FREE_SPACE,
	XFSJ_FIX_COUNTERS,
	XFSJ_FIX_UNLINKED,
};

/*
 * The kinds that write names, and what follows them: after the AG stage
 * while it has something to mend that an allocation reads (repair.c,
 * names_wait).  HERE: they allocate beside the inode their problem
 * names (its directory, attribute fork); FOLLOWS: they write that
 * inode's core or entries in lost+found, under the root.
 */
enum { AFTER_NO, AFTER_FOLLOWS, AFTER_HERE };

static const unsigned char after_space[XFSJ_FIX__COUNT] = {
	[XFSJ_FIX_SALVAGE_DIR] = AFTER_HERE,
	[XFSJ_FIX_CLEAR_ENTRY] = AFTER_HERE,
	[XFSJ_FIX_SALVAGE_ATTR] = AFTER_HERE,
	[XFSJ_FIX_PPTR] = AFTER_HERE,
	[XFSJ_FIX_NLINK] = AFTER_FOLLOWS,
	[XFSJ_FIX_RECONNECT] = AFTER_FOLLOWS,
	[XFSJ_FIX_UNLINKED] = AFTER_FOLLOWS,
};

bool xrp_fix_after_space(enum xfsj_fix fix)
{
	return (unsigned int)fix < XFSJ_FIX__COUNT && after_space[fix];
}

bool xrp_fix_allocs_here(enum xfsj_fix fix)
{
	return (unsigned int)fix < XFSJ_FIX__COUNT &&
	       after_space[fix] == AFTER_HERE;
}

/* The kinds preen applies without a person. */
static bool preen_kind(enum xfsj_fix fix)
{
	return fix == XFSJ_FIX_UNLINKED || fix == XFSJ_FIX_FREE_SPACE ||
	       fix == XFSJ_FIX_COUNTERS;
}

const struct xrp_handler *xrp_handler_of(enum xfsj_handler h)
{
	return (unsigned)h < XFSJ_H__COUNT ? &handlers[h] : NULL;
}

size_t xrp_fix_order(const enum xfsj_fix **kinds)
{
	*kinds = order;
	return sizeof(order) / sizeof(order[0]);
}

bool xfsj_row_preen_safe(const struct xfsj_problem_def *d)
{
	return preen_kind(d->fix) || (d->traits & XFSJ_T_COUNTER);
}

bool xfsj_handler_implemented(enum xfsj_handler h)
{
	const struct xrp_handler *x = xrp_handler_of(h);

	return x && !x->todo && (x->pass || x->one);
}

enum xfsj_fix xfsj_handler_fix(enum xfsj_handler h)
{
	const struct xrp_handler *x = xrp_handler_of(h);

	return x ? x->fix : XFSJ_FIX_NONE;
}
