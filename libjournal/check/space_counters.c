/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AGF and AGI counters of one AG against what its trees hold, the
 * finobt against the inobt, and the AG's share of the superblock's
 * summary counters (counters.c compares the totals).
 *
 * The rules, as the kernel keeps the counters (and xfs_repair counts
 * them):
 *   agf_freeblks     the blocks of the free space records
 *   agf_longest      the longest free extent
 *   agf_flcount      the AGFL entries from flfirst to fllast
 *   agf_btreeblks    the blocks of the bnobt and cntbt (and the rmapbt,
 *                    with rmapbt) beyond their roots: they came from the
 *                    AGFL and count as free space (lazysbcount; v5 always)
 *   agf_rmap_blocks, agf_refcount_blocks   every block of those trees
 *   agi_count        the inodes of the inobt records (ir_count with
 *                    sparse inodes, else 64 a record)
 *   agi_freecount    their ir_freecount; the finobt's records hold the
 *                    same free inodes
 *   agi_iblocks, agi_fblocks   every block of the inobt, finobt
 *                    (inobtcount)
 *   sb_fdblocks      the sum over the AGs of free records + AGFL entries
 *                    + btreeblks
 * A counter is only compared with a tree walked whole (tree_ok), and a
 * block count only when the walk counted the blocks.
 */
#include <stdlib.h>

#include "check/space_priv.h"

static void report(struct xck *ck, const struct xck_ag *ag,
		   const struct xfsj_problem_def *row, const char *field,
		   uint64_t found, uint64_t counted)
{
	xck_report(ck, &(struct xfsj_problem){
		.def = row,
		.has = XFSJ_PF_AG | XFSJ_PF_FOUND | XFSJ_PF_EXPECTED,
		.agno = ag->agno, .field = field, .found = found,
		.expected = counted });
}

static void check_field(struct xck *ck, const struct xck_ag *ag,
			const struct xfsj_problem_def *row, const char *field,
			uint64_t found, uint64_t counted)
{
	if (found != counted)
		report(ck, ag, row, field, found, counted);
}

/* The blocks of tree @bt, when the walk counted them all (else 0). */
static uint64_t tree_blocks(const struct xck_ag *ag, enum xfsj_btnum bt)
{
	return ag->tree_ok[bt] ? ag->btblocks[bt] : 0;
}

/* The AGFL entries the AGF says are live, from flfirst to fllast. */
static bool agfl_span(const struct xck *ck, const struct xfsj_agf *agf,
		      uint32_t *n)
{
	uint32_t size = xfsj_agfl_size(ck->sb->sectsize);

	if (!agf->flcount) {
		*n = 0;
		return true;
	}
	if (agf->flfirst >= size || agf->fllast >= size)
		return false;
	*n = (agf->fllast + size - agf->flfirst) % size + 1;
	return true;
}

/* Returns the AG's free blocks for sb_fdblocks, or -1 when unknown. */
static int64_t agf_counters(struct xck *ck, struct xck_ag *ag,
			    const struct xfsj_problem_def *row)
{
	const struct xfsj_agf *agf = &ag->agf;
	const struct xck_vec *fr = NULL;
	uint64_t freeblks = 0, longest = 0, bt = 0, nbno, ncnt, nrmap = 0;
	bool rmapbt = xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_RMAPBT);
	bool lazy = (ck->sb->versionnum & XFSJ_SB_VERSION_NUMBITS) ==
		    XFSJ_SB_VERSION_5 ||
		    (ck->sb->features2 & XFSJ_SB_VERSION2_LAZYSBCOUNT);
	uint32_t flspan;
	int64_t fd;
	size_t i;

	if (!ag->agf_ok)
		return -1;
	/* xfs_repair counts the cntbt; either tree does when whole. */
	if (ag->tree_ok[XFSJ_BT_CNT])
		fr = &ag->cnt_free;
	else if (ag->tree_ok[XFSJ_BT_BNO])
		fr = &ag->bno_free;
	if (fr) {
		const struct xfsj_alloc_rec *r = fr->v;

		for (i = 0; i < fr->n; i++) {
			freeblks += r[i].blockcount;
			if (r[i].blockcount > longest)
				longest = r[i].blockcount;
		}
		check_field(ck, ag, row, "freeblks", agf->freeblks, freeblks);
		check_field(ck, ag, row, "longest", agf->longest, longest);
	}
	if (agfl_span(ck, agf, &flspan))
		check_field(ck, ag, row, "flcount", agf->flcount, flspan);

	nbno = tree_blocks(ag, XFSJ_BT_BNO);
	ncnt = tree_blocks(ag, XFSJ_BT_CNT);
	if (rmapbt) {
		nrmap = tree_blocks(ag, XFSJ_BT_RMAP);
		if (nrmap)
			check_field(ck, ag, row, "rmap_blocks",
				    agf->rmap_blocks, nrmap);
	}
	if (xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_REFLINK) &&
	    tree_blocks(ag, XFSJ_BT_REFC))
		check_field(ck, ag, row, "refcount_blocks",
			    agf->refcount_blocks,
			    tree_blocks(ag, XFSJ_BT_REFC));
	if (nbno && ncnt && (!rmapbt || nrmap)) {
		bt = nbno - 1 + ncnt - 1 + (rmapbt ? nrmap - 1 : 0);
		if (lazy)
			check_field(ck, ag, row, "btreeblks", agf->btreeblks,
				    bt);
	} else {
		bt = agf->btreeblks;
	}

	fd = (int64_t)(fr ? freeblks : agf->freeblks) + bt;
	fd += ag->agfl_ok ? ag->agfl_n : agf->flcount;
	return fd;
}

static int fino_by_start(const void *pa, const void *pb)
{
	const struct xfsj_inobt_rec *a = pa, *b = pb;

	return a->startino < b->startino ? -1 : a->startino > b->startino;
}

static void finobt_report(struct xck *ck, const struct xck_ag *ag,
			  const struct xfsj_problem_def *row,
			  uint32_t startino, const char *what)
{
	xck_report(ck, &(struct xfsj_problem){
		.def = row, .has = XFSJ_PF_AG | XFSJ_PF_INO,
		.agno = ag->agno,
		.ino = xfsj_agino_to_ino(ck->sb, ag->agno, startino),
		.field = what });
}

/* The finobt holds exactly the inobt records that have free inodes. */
static void finobt_compare(struct xck *ck, struct xck_ag *ag,
			   const struct xfsj_problem_def *row)
{
	const struct xck_chunk *c = ag->chunks.v;
	const struct xfsj_inobt_rec *f;
	size_t i = 0, j = 0;

	xck_vec_sort(&ag->fino, fino_by_start);
	f = ag->fino.v;
	while (i < ag->chunks.n || j < ag->fino.n) {
		const struct xfsj_inobt_rec *a = i < ag->chunks.n ?
						 &c[i].rec : NULL;

		if (a && !a->freecount &&
		    (j >= ag->fino.n || a->startino < f[j].startino)) {
			i++;
			continue;
		}
		if (!a || (j < ag->fino.n && f[j].startino < a->startino)) {
			finobt_report(ck, ag, row, f[j].startino,
				      "in the finobt but not in the inobt");
			j++;
			continue;
		}
		if (j >= ag->fino.n || a->startino < f[j].startino) {
			finobt_report(ck, ag, row, a->startino,
				      "has free inodes but no finobt record");
			i++;
			continue;
		}
		if (!a->freecount)
			finobt_report(ck, ag, row, a->startino,
				      "in the finobt but has no free inode");
		else if (a->holemask != f[j].holemask ||
			 a->count != f[j].count ||
			 a->freecount != f[j].freecount ||
			 a->free != f[j].free)
			finobt_report(ck, ag, row, a->startino,
				      "differs between the inobt and the finobt");
		i++;
		j++;
	}
}

/* Adds the AG's inodes and free inodes to the totals, or says unknown. */
static bool agi_counters(struct xck *ck, struct xck_ag *ag,
			 const struct xfsj_problem_def *row,
			 const struct xfsj_problem_def *finobt_row)
{
	const struct xck_chunk *c = ag->chunks.v;
	bool sparse = xfsj_fs_has_incompat(ck->fs, XFSJ_INCOMPAT_SPINODES);
	bool finobt = xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_FINOBT);
	uint64_t count = 0, freecount = 0;
	size_t i;

	if (!ag->agi_ok || !ag->tree_ok[XFSJ_BT_INO])
		return false;
	for (i = 0; i < ag->chunks.n; i++) {
		count += sparse ? c[i].rec.count : XFSJ_INODES_PER_CHUNK;
		freecount += c[i].rec.freecount;
	}
	check_field(ck, ag, row, "count", ag->agi.count, count);
	check_field(ck, ag, row, "freecount", ag->agi.freecount, freecount);
	if (xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_INOBTCNT)) {
		if (tree_blocks(ag, XFSJ_BT_INO))
			check_field(ck, ag, row, "iblocks", ag->agi.iblocks,
				    tree_blocks(ag, XFSJ_BT_INO));
		if (finobt && tree_blocks(ag, XFSJ_BT_FINO))
			check_field(ck, ag, row, "fblocks", ag->agi.fblocks,
				    tree_blocks(ag, XFSJ_BT_FINO));
	}
	if (finobt && ag->tree_ok[XFSJ_BT_FINO])
		finobt_compare(ck, ag, finobt_row);
	ck->icount += count;
	ck->ifree += freecount;
	return true;
}

void xck_space_counters(struct xck *ck, struct xck_ag *ag,
			const struct xfsj_problem_def *agf_row,
			const struct xfsj_problem_def *agi_row,
			const struct xfsj_problem_def *finobt_row)
{
	int64_t fd = agf_counters(ck, ag, agf_row);

	if (fd < 0)
		ck->totals_unknown |= XCK_TOTAL_FDBLOCKS;
	else
		ck->fdblocks += (uint64_t)fd;
	if (!agi_counters(ck, ag, agi_row, finobt_row))
		ck->totals_unknown |= XCK_TOTAL_INODES;
}
