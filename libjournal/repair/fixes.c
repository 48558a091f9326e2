/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The handler table: the code of every handler a row of the problem table
 * names (xfsj_problem_def.handler), and the order in which a round's
 * stage applies the fix kinds.
 *
 * A handler carries out one fix kind.  It is either a pass (@pass: given
 * every problem of its kind this stage, called once however many of its
 * rows were reported; handlers that share the code share the pass) or a
 * fix of one problem (@one: called for each problem naming it, in the
 * order the check reported them).  A handler marked @todo is named by its
 * row but not written yet: its problems are left for the final check to
 * report.
 */
#include "repair/repair_priv.h"

/* names.dotdot: the fix of a child's ".." is not in this version. */
static int dotdot_not_implemented(struct xrp *rp, struct xrp_prob *pr)
{
	(void)rp;
	(void)pr;
	return 0;
}

/* sb.primary.needsrepair: the flag is cleared before the first check
 * (xrp_clear_needsrepair); a problem left names a flag that came back. */
static int needsrepair_one(struct xrp *rp, struct xrp_prob *pr)
{
	int err = xrp_clear_needsrepair(rp);

	if (!err)
		pr->done = true;
	return err;
}

#define PASS(kind, fn)	{ .fix = XFSJ_FIX_##kind, .pass = fn }
#define ONE(kind, fn)	{ .fix = XFSJ_FIX_##kind, .one = fn }

static const struct xrp_handler handlers[XFSJ_H__COUNT] = {
	[XFSJ_H_NONE]			= { .fix = XFSJ_FIX_NONE },
	[XFSJ_H_SB_SECONDARY]		= PASS(SB_FROM_SECONDARY,
					       xrp_fix_sb_secondary),
	[XFSJ_H_SB_COPIES]		= PASS(AG_HEADER, xrp_fix_sb_copies),
	[XFSJ_H_SB_QUOTINO]		= ONE(FIELD, xrp_field_sb),
	[XFSJ_H_SB_NEEDSREPAIR]		= ONE(FIELD, needsrepair_one),
	[XFSJ_H_AG_HEADERS]		= PASS(AG_HEADER, xrp_fix_ag_headers),
	[XFSJ_H_AGF_COUNTER]		= ONE(FIELD, xrp_field_ag),
	[XFSJ_H_AGI_COUNTER]		= ONE(FIELD, xrp_field_ag),
	[XFSJ_H_AG_BTREES]		= PASS(REBUILD_BTREE,
					       xrp_fix_rebuild_btrees),
	[XFSJ_H_FREE_LEAKED]		= PASS(FREE_SPACE, xrp_fix_free_space),
	[XFSJ_H_CLEAR_INODE]		= PASS(CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_INODE_HEADER]		= PASS(CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_INODE_FORMAT]		= PASS(CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_INODE_META]		= PASS(CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_SYMLINK_CRC]		= PASS(CLEAR_INODE, xrp_fix_clear_inode),
	[XFSJ_H_INODE_INO]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_UUID]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_NEXTENTS]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_FORK_NEXTENTS]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_BIG_NEXTENTS]	= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_NBLOCKS]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_FLAGS]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_FLAGS2]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_SIZE]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_EXTSIZE]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_COWEXTSIZE]	= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_ONLINK]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_NSEC]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_TIME]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_INODE_REFLINK]		= ONE(FIELD, xrp_field_inode),
	[XFSJ_H_NLINK]			= PASS(NLINK, xrp_fix_nlink),
	[XFSJ_H_NLINK_ZERO]		= PASS(NLINK, xrp_fix_nlink),
	[XFSJ_H_FORK_MAP]		= PASS(REBUILD_BMBT,
					       xrp_fix_rebuild_bmbt),
	[XFSJ_H_FORK_TRIM]		= PASS(CLEAR_FORK, xrp_fix_clear_fork),
	[XFSJ_H_ATTR_FORK_CLEAR]	= PASS(CLEAR_FORK, xrp_fix_clear_fork),
	[XFSJ_H_CROSSLINK]		= PASS(CLEAR_FORK, xrp_fix_clear_fork),
	[XFSJ_H_SALVAGE_DIR]		= PASS(SALVAGE_DIR, xrp_fix_salvage_dir),
	[XFSJ_H_DIR_HEADER]		= ONE(FIELD, xrp_field_dir),
	[XFSJ_H_DIR_UUID]		= ONE(FIELD, xrp_field_dir),
	[XFSJ_H_DIR_CRC]		= ONE(FIELD, xrp_field_dir),
	[XFSJ_H_DIR_SIZE]		= ONE(FIELD, xrp_field_dir),
	[XFSJ_H_DIR_INDEX]		= ONE(FIELD, xrp_field_dir),
	[XFSJ_H_DIRENT_FTYPE]		= ONE(FIELD, xrp_field_dir),
	[XFSJ_H_CLEAR_ENTRY]		= PASS(CLEAR_ENTRY, xrp_fix_clear_entry),
	[XFSJ_H_DIR_PARENTS]		= PASS(CLEAR_ENTRY, xrp_fix_clear_entry),
	[XFSJ_H_DOTDOT]			= { .fix = XFSJ_FIX_FIELD, .todo = true,
					    .one = dotdot_not_implemented },
	[XFSJ_H_DIR_ROOT]		= PASS(RECONNECT, xrp_fix_dir_root),
	[XFSJ_H_RECONNECT]		= PASS(RECONNECT, xrp_fix_reconnect),
	[XFSJ_H_SALVAGE_ATTR]		= PASS(SALVAGE_ATTR,
					       xrp_fix_salvage_attr),
	[XFSJ_H_ATTR_FIELD]		= ONE(FIELD, xrp_field_attr),
	[XFSJ_H_PPTR_ADD]		= PASS(PPTR, xrp_fix_pptr),
	[XFSJ_H_PPTR_REMOVE]		= PASS(PPTR, xrp_fix_pptr),
	[XFSJ_H_PPTR_GEN]		= PASS(PPTR, xrp_fix_pptr),
	[XFSJ_H_PPTR_BAD_PARENT]	= PASS(PPTR, xrp_fix_pptr),
	[XFSJ_H_UNLINKED_NEXT]		= PASS(UNLINKED, xrp_fix_unlinked),
	[XFSJ_H_UNLINKED_TAKE_OFF]	= PASS(UNLINKED, xrp_fix_unlinked),
	[XFSJ_H_UNLINKED_CUT]		= PASS(UNLINKED, xrp_fix_unlinked),
	[XFSJ_H_UNLINKED_FREE]		= PASS(UNLINKED, xrp_fix_unlinked),
	[XFSJ_H_COUNTERS]		= PASS(COUNTERS, xrp_fix_counters),
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
