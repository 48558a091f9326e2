/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of the AG btrees, tree by tree: each is checked on its own
 * and against the record before it in the tree, then collected into the
 * AG's tables (free extents, inode chunks, rmaps, refcounts) for the
 * cross-checks of the later phases.  Inode chunks are claimed here.
 *
 * The rules are xfs_repair's (repair/scan.c) and the kernel's record
 * checks (xfs_*_check_irec, the btrees' recs_inorder); where one is
 * stricter the comment names it.
 */
#include <stdlib.h>
#include <string.h>

#include "check/agbtree.h"
#include "ondisk/rmap_merge.h"

#define EF	(XFSJ_PF_EXPECTED | XFSJ_PF_FOUND)

static void say(struct agbt_walk *w, int row, uint64_t expected,
		uint64_t found)
{
	agbt_say(w, row, EF, expected, found, true);
}

/* Start and length of an extent record; false when either is bad. */
static bool extent_ok(struct agbt_walk *w, uint32_t start, uint32_t len)
{
	if (!agbt_agbno_ok(w, start)) {
		say(w, AGBT_REC_START, 0, start);
		return false;
	}
	if (len == 0 || (uint64_t)start + len > w->ag->agblocks) {
		say(w, AGBT_REC_LEN, 0, len);
		return false;
	}
	return true;
}

/* ---- bnobt, cntbt ---- */
static void bno_key(const uint8_t *p, struct agbt_key *k)
{
	*k = (struct agbt_key){ .a = xfsj_get_be32(p) };
}

static void cnt_key(const uint8_t *p, struct agbt_key *k)
{
	*k = (struct agbt_key){ .a = xfsj_get_be32(p + 4),
				.b = xfsj_get_be32(p) };
}

static void bno_rec_keys(const void *block, unsigned int i,
			 struct agbt_key *lo, struct agbt_key *hi)
{
	struct xfsj_alloc_rec r;

	xfsj_alloc_rec_get(block, i, &r);
	*lo = (struct agbt_key){ .a = r.startblock };
	*hi = *lo;
}

static void cnt_rec_keys(const void *block, unsigned int i,
			 struct agbt_key *lo, struct agbt_key *hi)
{
	struct xfsj_alloc_rec r;

	xfsj_alloc_rec_get(block, i, &r);
	*lo = (struct agbt_key){ .a = r.blockcount, .b = r.startblock };
	*hi = *lo;
}

static void alloc_get(const struct agbt_walk *w, const void *block,
		      unsigned int i, union agbt_rec *r)
{
	(void)w;
	xfsj_alloc_rec_get(block, i, &r->a);
}

static bool bno_before(const struct agbt_walk *w, const union agbt_rec *a,
		       const union agbt_rec *b)
{
	(void)w;
	return (uint64_t)a->a.startblock + a->a.blockcount <= b->a.startblock;
}

static bool cnt_before(const struct agbt_walk *w, const union agbt_rec *a,
		       const union agbt_rec *b)
{
	(void)w;
	return a->a.blockcount < b->a.blockcount ||
	       (a->a.blockcount == b->a.blockcount &&
		a->a.startblock < b->a.startblock);
}

/*
 * Is @r (record @i of leaf @block) out of order, after the last record
 * in order or as the outlier of its neighbours?  Said when it is.
 */
static bool out_of_order(struct agbt_walk *w, const void *block,
			 unsigned int i, const union agbt_rec *r,
			 uint32_t start)
{
	const struct agbt_ops *o = agbt_ops(w->bt);

	if (agbt_outlier(w, block, i, r) ||
	    (w->have_last && !o->before(w, &w->last, r))) {
		say(w, AGBT_REC_ORDER, 0, start);
		return true;
	}
	return false;
}

/*
 * Free extents: inside the AG, sorted by start without overlap (bnobt),
 * by length then start (cntbt: xfs_repair checks only the lengths, the
 * kernel's order is both).  Adjacent extents are legal, as xfs_repair
 * has it.
 */
static int alloc_rec(struct agbt_walk *w, const void *block, unsigned int i)
{
	union agbt_rec r;
	bool bno = w->bt == XFSJ_BT_BNO;

	xfsj_alloc_rec_get(block, i, &r.a);
	if (!extent_ok(w, r.a.startblock, r.a.blockcount))
		return 0;
	if (out_of_order(w, block, i, &r, r.a.startblock))
		return 0;
	w->have_last = true;
	w->last = r;
	return xck_vec_push(w->ck, bno ? &w->ag->bno_free : &w->ag->cnt_free,
			    &r.a);
}

/* ---- inobt, finobt ---- */
static void ino_key(const uint8_t *p, struct agbt_key *k)
{
	*k = (struct agbt_key){ .a = xfsj_get_be32(p) };
}

static bool sparse_fs(const struct agbt_walk *w)
{
	return w->ck->sb->features_incompat & XFSJ_INCOMPAT_SPINODES;
}

static void ino_rec_keys(const void *block, unsigned int i,
			 struct agbt_key *lo, struct agbt_key *hi)
{
	/* The start inode comes first in both record formats. */
	*lo = (struct agbt_key){
		.a = xfsj_get_be32((const uint8_t *)block +
				   XFSJ_SBLOCK_HDR_SIZE + (size_t)i * 16) };
	*hi = *lo;
}

/* The inodes of a chunk that are holes (sparse chunks), one bit each. */
static uint64_t hole_bits(uint16_t holemask)
{
	uint64_t holes = 0;

	for (unsigned int j = 0; j < XFSJ_HOLEMASK_BITS; j++)
		if (holemask & (1U << j))
			holes |= 0xfULL << (j * XFSJ_INODES_PER_HOLEMASK_BIT);
	return holes;
}

static unsigned int popcount64(uint64_t v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The blocks where inode chunks may be: cluster-aligned past the AGFL. */
static uint32_t ichunk_align(const struct agbt_walk *w)
{
	const struct xfsj_sb *sb = w->ck->sb;

	if ((sb->versionnum & XFSJ_SB_VERSION_ALIGNBIT) && sb->inoalignmt)
		return sb->inoalignmt;
	return 1;
}

/*
 * The placement of a chunk: its first inode aligned (at the start of a
 * block, or of a 64-inode group in a block that holds more; on the
 * inode alignment when the filesystem has one) and all 64 inodes among
 * the AG's possible inodes.  False when the record cannot be used.
 */
static bool chunk_placed(struct agbt_walk *w, uint32_t startino)
{
	const struct xfsj_sb *sb = w->ck->sb;
	uint32_t align = ichunk_align(w), first, last, agbno;
	uint32_t inopb = sb->inopblock;

	agbno = startino >> sb->inopblog;
	if (startino == 0 ||
	    (inopb <= XFSJ_INODES_PER_CHUNK ? startino & (inopb - 1) :
					      startino % XFSJ_INODES_PER_CHUNK) ||
	    agbno % align) {
		say(w, INOBT_ALIGN, 0, startino);
		return false;
	}
	/* xfs_agino_range: whole aligned clusters past the AGFL. */
	first = (w->first_agbno + align - 1) / align * align;
	last = w->ag->agblocks / align * align;
	if (agbno < first ||
	    (uint64_t)startino + XFSJ_INODES_PER_CHUNK >
	    ((uint64_t)last << sb->inopblog)) {
		say(w, INOBT_RANGE, 0, startino);
		return false;
	}
	return true;
}

/* The counts of a record against its masks (both trees). */
static void chunk_counts(struct agbt_walk *w, const struct xfsj_inobt_rec *r)
{
	uint64_t holes = hole_bits(r->holemask);
	unsigned int nfree = popcount64(r->free & ~holes);

	if ((r->free & holes) != holes)
		say(w, INOBT_HOLES, r->holemask, r->free);
	if (r->freecount != nfree)
		say(w, INOBT_FREECOUNT, nfree, r->freecount);
	if (sparse_fs(w) &&
	    r->count != XFSJ_INODES_PER_CHUNK - popcount64(holes))
		say(w, INOBT_COUNT, XFSJ_INODES_PER_CHUNK - popcount64(holes),
		    r->count);
}

/* The blocks of a chunk (fewer than 64 inodes a block) that hold inodes
 * (not sparse holes), one bit each. */
static uint64_t chunk_block_bits(const struct xfsj_sb *sb, uint16_t holemask)
{
	uint64_t present = ~hole_bits(holemask), mask, bits = 0;
	uint32_t inopb = sb->inopblock;

	mask = (1ULL << inopb) - 1;
	for (uint32_t j = 0; j < XFSJ_INODES_PER_CHUNK / inopb; j++)
		if ((present >> (j * inopb)) & mask)
			bits |= 1ULL << j;
	return bits;
}

/* Claim the runs of blocks @bits of the chunk at block @agbno. */
static int claim_blocks(struct agbt_walk *w, uint32_t agbno, uint64_t bits)
{
	uint32_t nblocks = XFSJ_INODES_PER_CHUNK / w->ck->sb->inopblock;
	uint32_t j, run = 0;
	int err = 0;

	for (j = 0; j <= nblocks && !err; j++) {
		if (j < nblocks && (bits >> j & 1)) {
			run++;
			continue;
		}
		if (run)
			err = xck_claim(w->ck, w->ag->agno, agbno + j - run,
					run, XFSJ_RMAP_OWN_INODES, 0);
		run = 0;
	}
	return err;
}

/* Claim the blocks of a chunk that hold inodes (not sparse holes). */
static int claim_chunk(struct agbt_walk *w, const struct xfsj_inobt_rec *r)
{
	const struct xfsj_sb *sb = w->ck->sb;
	uint32_t agbno = r->startino >> sb->inopblog;

	if (sb->inopblock >= XFSJ_INODES_PER_CHUNK) {
		/* Several chunks share the block: claim it once. */
		if (agbno == w->last_iblock)
			return 0;
		w->last_iblock = agbno;
		return xck_claim(w->ck, w->ag->agno, agbno, 1,
				 XFSJ_RMAP_OWN_INODES, 0);
	}
	return claim_blocks(w, agbno, chunk_block_bits(sb, r->holemask));
}

static void ino_get(const struct agbt_walk *w, const void *block,
		    unsigned int i, union agbt_rec *r)
{
	xfsj_inobt_rec_get(block, i, &r->i, sparse_fs(w));
}

static bool ino_before(const struct agbt_walk *w, const union agbt_rec *a,
		       const union agbt_rec *b)
{
	(void)w;
	return (uint64_t)a->i.startino + XFSJ_INODES_PER_CHUNK <=
	       b->i.startino;
}

static bool chunk_in_order(struct agbt_walk *w, const void *block,
			   unsigned int i, const struct xfsj_inobt_rec *r)
{
	union agbt_rec u = { .i = *r };

	if (out_of_order(w, block, i, &u, r->startino))
		return false;
	w->have_last = true;
	w->last.i = *r;
	return true;
}

static int inobt_rec(struct agbt_walk *w, const void *block, unsigned int i)
{
	struct xck_chunk ch = { .ino = NULL };
	int err;

	xfsj_inobt_rec_get(block, i, &ch.rec, sparse_fs(w));
	if (!chunk_placed(w, ch.rec.startino))
		return 0;
	chunk_counts(w, &ch.rec);
	if (!chunk_in_order(w, block, i, &ch.rec))
		return 0;
	err = claim_chunk(w, &ch.rec);
	return err ? err : xck_vec_push(w->ck, &w->ag->chunks, &ch);
}

static int chunk_cmp(const void *key, const void *elt)
{
	uint32_t k = *(const uint32_t *)key;
	const struct xck_chunk *c = elt;

	return k < c->rec.startino ? -1 : k > c->rec.startino;
}

static int fino_cmp(const void *key, const void *elt)
{
	uint32_t k = *(const uint32_t *)key;
	const struct xfsj_inobt_rec *r = elt;

	return k < r->startino ? -1 : k > r->startino;
}

/* The chunk the inobt (so far) has at @startino, or NULL. */
static struct xck_chunk *chunk_known(const struct xck_ag *ag,
				      uint32_t startino)
{
	return xck_vec_find(&ag->chunks, &startino, chunk_cmp);
}

static unsigned int chunk_nfree(const struct xfsj_inobt_rec *r)
{
	return popcount64(r->free & ~hole_bits(r->holemask));
}

/*
 * The finobt holds exactly the inobt's records that have free inodes,
 * each as the inobt has it (xfs_repair: "undiscovered finobt record",
 * "finobt record with no free inodes"; a difference in the masks makes
 * it suspect).  Compared only against a sound inobt.
 */
static int finobt_rec(struct agbt_walk *w, const void *block, unsigned int i)
{
	struct xck_ag *ag = w->ag;
	struct xfsj_inobt_rec r;
	const struct xck_chunk *c;

	xfsj_inobt_rec_get(block, i, &r, sparse_fs(w));
	if (!chunk_placed(w, r.startino))
		return 0;
	chunk_counts(w, &r);
	if (chunk_nfree(&r) == 0)
		say(w, FINOBT_NOFREE, 0, r.startino);
	if (ag->tree_ok[XFSJ_BT_INO]) {
		c = chunk_known(ag, r.startino);
		if (!c)
			say(w, FINOBT_UNKNOWN, 0, r.startino);
		else if (c->rec.holemask != r.holemask ||
			 c->rec.count != r.count ||
			 c->rec.freecount != r.freecount ||
			 c->rec.free != r.free)
			say(w, FINOBT_DIFFERS, 0, r.startino);
	}
	if (!chunk_in_order(w, block, i, &r))
		return 0;
	return xck_vec_push(w->ck, &ag->fino, &r);
}

/* Every inobt chunk with a free inode has its finobt record. */
static int finobt_done(struct agbt_walk *w)
{
	struct xck_ag *ag = w->ag;
	size_t n;

	if (!ag->tree_ok[XFSJ_BT_INO] || w->bad)
		return 0;
	for (n = 0; n < ag->chunks.n; n++) {
		const struct xck_chunk *c = xck_vec_at(&ag->chunks, n);

		if (chunk_nfree(&c->rec) == 0 ||
		    xck_vec_find(&ag->fino, &c->rec.startino, fino_cmp))
			continue;
		w->rec_agbno = ag->agi.free_root;
		agbt_say(w, FINOBT_MISSING, XFSJ_PF_FOUND, 0,
			 c->rec.startino, false);
	}
	return 0;
}

/* ---- the chunks of an inobt not read whole ---- */

/*
 * The inodes of the chunk at @s (block) whose blocks the rmapbt's
 * inode chunk records leave out, as a holemask; false when they do not
 * fall on whole holemask bits.
 */
static bool chunk_holes(const struct xfsj_sb *sb, uint64_t covered,
			uint16_t *holemask)
{
	uint32_t inopb = sb->inopblock, in = 0, out = 0;

	/* (by inode: gcc 12 -O2 got a loop over the bits comparing their
	 * first and last inodes wrong) */
	for (unsigned int i = 0; i < XFSJ_INODES_PER_CHUNK; i++) {
		uint32_t bit = 1U << (i / XFSJ_INODES_PER_HOLEMASK_BIT);

		if (covered & (1ULL << (i / inopb)))
			in |= bit;
		else
			out |= bit;
	}
	*holemask = (uint16_t)out;
	return !(in & out);
}


/*
 * One chunk seen in the rmapbt: blocks @s.. (@covered: which of its
 * blocks hold inodes).  False when it cannot be an inode chunk.
 */
static bool chunk_guess(struct agbt_walk *w, uint32_t s, uint64_t covered,
			struct xck_chunk *ch)
{
	const struct xfsj_sb *sb = w->ck->sb;
	uint32_t cblocks = XFSJ_INODES_PER_CHUNK / sb->inopblock;
	uint16_t holemask;

	if (s % ichunk_align(w) || s < w->first_agbno ||
	    (uint64_t)s + cblocks > w->ag->agblocks ||
	    !chunk_holes(sb, covered, &holemask) ||
	    (holemask && !sparse_fs(w)))
		return false;
	memset(ch, 0, sizeof(*ch));
	ch->rec.startino = s << sb->inopblog;
	ch->rec.holemask = holemask;
	ch->rec.free = hole_bits(holemask);
	ch->rec.count = (uint8_t)(XFSJ_INODES_PER_CHUNK -
				  popcount64(ch->rec.free));
	ch->guessed = true;
	return true;
}

/*
 * The chunks, by their first block, that the rmapbt's inode chunk
 * records cover, with the covered blocks of each: every one the inobt
 * (or its readable part) does not have is added to @out, and every one
 * it has with more holes (in a record reported bad).  All or
 * nothing: a record that cannot be chunks, or a chunk the inobt had
 * that the rmapbt does not, leaves the chunks as they were.
 */
static int guess_chunks(struct agbt_walk *w, const struct xck_vec *recs,
			struct xck_vec *out)
{
	const struct xfsj_sb *sb = w->ck->sb;
	struct xck_ag *ag = w->ag;
	uint32_t cblocks = XFSJ_INODES_PER_CHUNK / sb->inopblock;
	uint32_t cur = XFSJ_NULLAGBLOCK;
	uint64_t covered = 0;
	size_t found = 0;
	struct xck_chunk ch;
	int err = 0;

	for (size_t i = 0; i <= recs->n && !err; i++) {
		const struct xfsj_rmap_rec *r = i < recs->n ?
			xck_vec_at(recs, i) : NULL;
		uint64_t b, end;

		if (r && r->owner != XFSJ_RMAP_OWN_INODES)
			continue;
		b = r ? r->startblock : XFSJ_NULLAGBLOCK;
		end = r ? b + r->blockcount : b + 1;
		for (; b < end && !err; b++) {
			uint32_t s = (uint32_t)(b - b % cblocks);

			if (s == cur) {
				covered |= 1ULL << (b - s);
				continue;
			}
			if (cur != XFSJ_NULLAGBLOCK) {
				if (s < cur || !chunk_guess(w, cur, covered, &ch))
					return 1;
				const struct xck_chunk *k =
					chunk_known(ag, ch.rec.startino);

				if (k)
					found++;
				/* A record reported bad whose holemask has
				 * more holes than the rmapbt: the rmapbt's. */
				if (k && k->rec.holemask != ch.rec.holemask &&
				    (ag->tree_ok[XFSJ_BT_INO] ||
				     (ch.rec.holemask & ~k->rec.holemask)))
					return 1;
				if (!k || k->rec.holemask != ch.rec.holemask)
					err = xck_vec_push(w->ck, out, &ch);
			}
			cur = s;
			covered = 1ULL << (b - s);
		}
	}
	return err ? err : found == ag->chunks.n ? 0 : 1;
}

/* Does the inobt have every chunk the finobt has? */
static bool fino_all_known(const struct xck_ag *ag)
{
	for (size_t i = 0; i < ag->fino.n; i++) {
		const struct xfsj_inobt_rec *r = xck_vec_at(&ag->fino, i);

		if (!chunk_known(ag, r->startino))
			return false;
	}
	return true;
}

static int chunk_order(const void *a, const void *b)
{
	const struct xck_chunk *x = a, *y = b;

	return x->rec.startino < y->rec.startino ? -1 :
	       x->rec.startino > y->rec.startino;
}

int agbt_chunks_recover(struct xck *ck, struct xck_ag *ag)
{
	const struct xfsj_sb *sb = ck->sb;
	struct agbt_walk w = {
		.ck = ck, .ag = ag, .bt = XFSJ_BT_INO,
		.s = xfsj_btree_shape(XFSJ_BT_INO),
		.first_agbno = xfsj_ag_hdr_blocks(sb->sectsize, sb->blocklog),
		.last_iblock = XFSJ_NULLAGBLOCK,
	};
	const struct xck_vec *recs = &ag->rmaps;
	struct xck_vec add, scanned;
	int err = 0;

	if (sb->inopblock == 0 || sb->inopblock > XFSJ_INODES_PER_CHUNK ||
	    !(sb->versionnum & XFSJ_SB_VERSION_ALIGNBIT) ||
	    sb->inoalignmt % (XFSJ_INODES_PER_CHUNK / sb->inopblock))
		return 0;
	xck_vec_init(&add, sizeof(struct xck_chunk));
	xck_vec_init(&scanned, sizeof(struct xfsj_rmap_rec));
	if (!xfsj_fs_has(ck->fs, XFSJ_RO_COMPAT_RMAPBT) ||
	    !ag->tree_ok[XFSJ_BT_RMAP]) {
		/* No rmapbt to go by: the used blocks read, when the
		 * inobt needs it and the bnobt says which are used. */
		if ((ag->agi_ok && ag->tree_ok[XFSJ_BT_INO] &&
		     fino_all_known(ag)) ||
		    (sb->versionnum & XFSJ_SB_VERSION_NUMBITS) !=
		    XFSJ_SB_VERSION_5 || !ag->tree_ok[XFSJ_BT_BNO])
			return 0;
		err = agbt_chunks_scan(ck, ag, w.first_agbno, sb->inoalignmt,
				       &scanned);
		recs = &scanned;
	}
	if (!err)
		err = guess_chunks(&w, recs, &add);
	/* A sound inobt that has every chunk stays as it is. */
	if (err == 0 && ag->tree_ok[XFSJ_BT_INO] && add.n == 0)
		err = 1;
	for (size_t i = 0; err == 0 && i < add.n; i++) {
		struct xck_chunk *c = xck_vec_at(&add, i);
		struct xck_chunk *k = chunk_known(ag, c->rec.startino);

		if (k) {
			/* Claim the blocks that were holes, then take the
			 * rmapbt's holemask. */
			err = claim_blocks(&w, c->rec.startino >> sb->inopblog,
				chunk_block_bits(sb, c->rec.holemask) &
				~chunk_block_bits(sb, k->rec.holemask));
			k->rec = c->rec;
			k->guessed = true;
			continue;
		}
		if (ag->tree_ok[XFSJ_BT_INO]) {
			w.rec_agbno = ag->agi.root;
			agbt_say(&w, INOBT_MISSING, XFSJ_PF_FOUND, 0,
				 c->rec.startino, false);
		}
		err = claim_chunk(&w, &c->rec);
		if (!err)
			err = xck_vec_push(ck, &ag->chunks, c);
	}
	if (err == 0) {
		xck_vec_sort(&ag->chunks, chunk_order);
		ag->tree_ok[XFSJ_BT_INO] = false;
		ag->chunks_recovered = true;
	}
	xck_vec_free(ck, &add);
	xck_vec_free(ck, &scanned);
	return err > 0 ? 0 : err;
}

/* ---- rmapbt ---- */
#define RMAP_FLAGS	(XFSJ_RMAP_OFF_ATTR_FORK | XFSJ_RMAP_OFF_BMBT_BLOCK | \
			 XFSJ_RMAP_OFF_UNWRITTEN)
/* The lowest metadata owner xfs_repair accepts (OWN_COW). */
#define RMAP_OWN_LOWEST	XFSJ_RMAP_OWN_COW

static bool rmap_meta_owner(uint64_t owner)
{
	return owner >> 63;
}

static void rmap_key(const uint8_t *p, struct agbt_key *k)
{
	uint64_t off = xfsj_get_be64(p + 12);

	*k = (struct agbt_key){
		.a = xfsj_get_be32(p),
		.b = xfsj_get_be64(p + 4),
		.c = off & XFSJ_RMAP_OFF_MASK,
		/*
		 * Kernels before the fix copied the unwritten flag into
		 * keys; xfs_repair -n only logs it, so it is ignored here.
		 */
		.flags = off & ~(XFSJ_RMAP_OFF_MASK | XFSJ_RMAP_OFF_UNWRITTEN),
	};
}

/* Low key: where the record starts; high key: its last block. */
static void rmap_rec_keys(const void *block, unsigned int i,
			  struct agbt_key *lo, struct agbt_key *hi)
{
	struct xfsj_rmap_rec r;
	uint32_t adj;

	xfsj_rmap_rec_get(block, i, &r);
	adj = r.blockcount - 1;
	*lo = (struct agbt_key){
		.a = r.startblock, .b = r.owner,
		.c = r.offset & XFSJ_RMAP_OFF_MASK,
		.flags = r.offset & ~(XFSJ_RMAP_OFF_MASK |
				      XFSJ_RMAP_OFF_UNWRITTEN),
	};
	*hi = *lo;
	hi->a = (uint32_t)(r.startblock + adj);
	if (!rmap_meta_owner(r.owner) &&
	    !(r.offset & XFSJ_RMAP_OFF_BMBT_BLOCK))
		hi->c = (lo->c + adj) & XFSJ_RMAP_OFF_MASK;
}

/*
 * The record's fields (the kernel's xfs_rmap_check_irec; xfs_repair's
 * scan checks a subset).  False when the record cannot be used.
 */
static bool rmap_fields_ok(struct agbt_walk *w, const struct xfsj_rmap_rec *r)
{
	const uint32_t agfl_block = w->first_agbno - 1;
	uint64_t flags = r->offset & ~XFSJ_RMAP_OFF_MASK;
	uint64_t off = r->offset & XFSJ_RMAP_OFF_MASK;
	bool meta = rmap_meta_owner(r->owner), ok = true;

	if (flags & ~RMAP_FLAGS) {
		say(w, RMAPBT_FLAGS, 0, r->offset);
		return false;
	}
	/* Only the static metadata's record covers the headers. */
	if (r->startblock <= agfl_block &&
	    (r->owner != XFSJ_RMAP_OWN_FS ||
	     r->blockcount != agfl_block + 1)) {
		say(w, AGBT_REC_START, 0, r->startblock);
		return false;
	}
	if (r->blockcount == 0 ||
	    (uint64_t)r->startblock + r->blockcount > w->ag->agblocks) {
		say(w, AGBT_REC_LEN, 0, r->blockcount);
		return false;
	}
	if (meta ? r->owner < RMAP_OWN_LOWEST || r->owner > XFSJ_RMAP_OWN_FS :
		   !xck_ino_valid(w->ck, r->owner)) {
		say(w, RMAPBT_OWNER, 0, r->owner);
		ok = false;
	}
	if (meta && r->offset) {
		say(w, RMAPBT_META, r->owner, r->offset);
		ok = false;
	}
	if (!meta && (((flags & XFSJ_RMAP_OFF_UNWRITTEN) &&
		       (flags & ~XFSJ_RMAP_OFF_UNWRITTEN)) ||
		      ((flags & XFSJ_RMAP_OFF_BMBT_BLOCK) && off))) {
		say(w, RMAPBT_FLAGMIX, 0, r->offset);
		ok = false;
	}
	if (!meta && !(flags & XFSJ_RMAP_OFF_BMBT_BLOCK) &&
	    off + r->blockcount - 1 > XFSJ_MAX_FILEOFF) {
		say(w, RMAPBT_FILEOFF, 0, off);
		ok = false;
	}
	return ok;
}

/*
 * Order: with reflink by (start, owner, offset), records may overlap;
 * without it no two records overlap.
 */
static void rmap_get(const struct agbt_walk *w, const void *block,
		     unsigned int i, union agbt_rec *r)
{
	(void)w;
	xfsj_rmap_rec_get(block, i, &r->r);
}

static bool rmap_before(const struct agbt_walk *w, const union agbt_rec *a,
			const union agbt_rec *b)
{
	const struct xfsj_rmap_rec *l = &a->r, *r = &b->r;
	struct agbt_key kl, kr;

	if (!(w->ck->sb->features_ro_compat & XFSJ_RO_COMPAT_REFLINK))
		return r->startblock >= (uint64_t)l->startblock +
					l->blockcount;
	/* The kernel's order: the fork and bmbt flags count, as high bits. */
	kl = (struct agbt_key){ .a = l->startblock, .b = l->owner,
				.c = l->offset & ~XFSJ_RMAP_OFF_UNWRITTEN };
	kr = (struct agbt_key){ .a = r->startblock, .b = r->owner,
				.c = r->offset & ~XFSJ_RMAP_OFF_UNWRITTEN };
	return agbt_key_cmp(&kl, &kr) < 0;
}

static int rmap_rec(struct agbt_walk *w, const void *block, unsigned int i)
{
	union agbt_rec u;
	struct xfsj_rmap_rec *r = &u.r;
	bool ok;

	rmap_get(w, block, i, &u);
	if (!rmap_fields_ok(w, r))
		return 0;
	ok = !out_of_order(w, block, i, &u, r->startblock);
	if (ok) {
		w->have_last = true;
		w->last = u;
	}
	if (w->have_merged && xfsj_rmap_continues(&w->merged.r, r)) {
		say(w, RMAPBT_MERGE, 0, r->startblock);
		w->merged.r.blockcount += r->blockcount;
	} else {
		w->have_merged = true;
		w->merged = u;
	}
	return ok ? xck_vec_push(w->ck, &w->ag->rmaps, r) : 0;
}

/* ---- refcountbt ---- */
static void refc_rec_keys(const void *block, unsigned int i,
			  struct agbt_key *lo, struct agbt_key *hi)
{
	struct xfsj_refc_rec r;

	xfsj_refc_rec_get(block, i, &r);
	*lo = (struct agbt_key){ .a = r.startblock };
	*hi = *lo;
}

/*
 * Shared extents have a refcount of 2 or more; CoW staging extents (the
 * start's top bit) exactly 1.  Sorted by the start as stored (so the CoW
 * domain follows the shared one), no overlap, and no two neighbours of
 * one domain with the same count (xfs_repair: "should be merged").
 */
static void refc_get(const struct agbt_walk *w, const void *block,
		     unsigned int i, union agbt_rec *r)
{
	(void)w;
	xfsj_refc_rec_get(block, i, &r->c);
}

static bool refc_before(const struct agbt_walk *w, const union agbt_rec *a,
			const union agbt_rec *b)
{
	(void)w;
	return (uint64_t)a->c.startblock + a->c.blockcount <= b->c.startblock;
}

static int refc_rec(struct agbt_walk *w, const void *block, unsigned int i)
{
	union agbt_rec u;
	struct xfsj_refc_rec r, *m = &w->merged.c;
	bool cow;
	uint32_t agb;

	refc_get(w, block, i, &u);
	r = u.c;
	cow = r.startblock & XFSJ_REFC_COWFLAG;
	agb = r.startblock & ~XFSJ_REFC_COWFLAG;
	if (cow && r.refcount != 1)
		say(w, REFCBT_COW, 1, r.refcount);
	if (!cow && r.refcount < 2)
		say(w, REFCBT_COUNT, 2, r.refcount);
	if (!extent_ok(w, agb, r.blockcount))
		return 0;
	if (!out_of_order(w, block, i, &u, agb)) {
		w->have_last = true;
		w->last = u;
	}
	if (w->have_merged &&
	    (m->startblock & XFSJ_REFC_COWFLAG) == (r.startblock &
						   XFSJ_REFC_COWFLAG) &&
	    (uint64_t)m->startblock + m->blockcount == r.startblock &&
	    m->refcount == r.refcount) {
		say(w, REFCBT_MERGE, 0, agb);
		m->blockcount += r.blockcount;
	} else {
		w->have_merged = true;
		*m = r;
	}
	return xck_vec_push(w->ck, &w->ag->refcs, &r);
}

static const struct agbt_ops ops[XFSJ_BT__COUNT] = {
	[XFSJ_BT_BNO] = { bno_key, bno_rec_keys, alloc_rec, NULL,
			  alloc_get, bno_before },
	[XFSJ_BT_CNT] = { cnt_key, cnt_rec_keys, alloc_rec, NULL,
			  alloc_get, cnt_before },
	[XFSJ_BT_INO] = { ino_key, ino_rec_keys, inobt_rec, NULL,
			  ino_get, ino_before },
	[XFSJ_BT_FINO] = { ino_key, ino_rec_keys, finobt_rec, finobt_done,
			   ino_get, ino_before },
	[XFSJ_BT_RMAP] = { rmap_key, rmap_rec_keys, rmap_rec, NULL,
			   rmap_get, rmap_before },
	[XFSJ_BT_REFC] = { bno_key, refc_rec_keys, refc_rec, NULL,
			   refc_get, refc_before },
};

const struct agbt_ops *agbt_ops(enum xfsj_btnum bt)
{
	return &ops[bt];
}
