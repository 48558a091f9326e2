/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AG btrees of one AG: bnobt, cntbt, inobt, finobt, rmapbt,
 * refcountbt (the last three only with their feature bits).
 *
 * Each tree is walked from the root its AG header names, depth first in
 * key order, every block read once through the bounded cache:
 *
 *   - the header: magic, CRC, uuid, blkno (its own address), owner (the
 *     AG), level (one below its parent's; the root's from the header),
 *     numrecs (at most the block's capacity; a block other than the root
 *     at least half full, as xfs_repair demands; a node at least one);
 *   - the sibling chain of every level: the leftmost block has no left
 *     sibling, each block's left sibling is the block before it in the
 *     walk and that block's right sibling is this one, the rightmost has
 *     no right sibling;
 *   - node keys in order, each equal to its child's lowest key (rmapbt:
 *     and the high key equal to the child's highest), pointers inside the
 *     AG past its headers, no block reached twice (a loop or a cross-link
 *     within the tree);
 *   - the records, tree by tree (agbtree_recs.c).
 *
 * Every block reached is claimed for the ownership map (bnobt, cntbt and
 * rmapbt blocks by the AG, inobt and finobt blocks by the inode btrees,
 * refcountbt blocks by the refcount btree); the records fill the AG's
 * tables.  A tree in which nothing was found wrong is marked sound.
 */
#include <stdlib.h>
#include <string.h>

#include "check/agbtree.h"
#include "core/crc32c.h"
#include "fs/btree.h"

#define REBUILD	XFSJ_FIX_REBUILD_BTREE
#define AT	"{field} block {agbno} of AG {ag}"
#define REC	"record {off} of " AT

static const struct xfsj_problem_def rows[AGBT__N] = {
	[AGBT_UNREADABLE] = { "btree.unreadable", 0x030001, XFSJ_SEV_CORRUPT,
		"btree", "{field} of AG {ag} cannot be walked", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_ROOT] = { "btree.root", 0x030002, XFSJ_SEV_CORRUPT, "btree",
		"{field} of AG {ag}: root block {found} is not a block of the "
		"AG past its headers", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_HEIGHT] = { "btree.height", 0x030003, XFSJ_SEV_CORRUPT,
		"btree", "{field} of AG {ag}: height {found}, at most "
		"{expected} is possible", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_MAGIC] = { "btree.magic", 0x030004, XFSJ_SEV_CORRUPT, "btree",
		AT ": magic {xfound}, expected {xexpected}", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_CRC] = { "btree.crc", 0x030005, XFSJ_SEV_CORRUPT, "btree",
		AT ": CRC {xfound} does not match the contents ({xexpected})",
		REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_UUID] = { "btree.uuid", 0x030006, XFSJ_SEV_CORRUPT, "btree",
		AT ": uuid is not the filesystem's", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_BLKNO] = { "btree.blkno", 0x030007, XFSJ_SEV_CORRUPT, "btree",
		AT ": blkno {found}, expected its address {expected}",
		REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_OWNER] = { "btree.owner", 0x030008, XFSJ_SEV_CORRUPT, "btree",
		AT ": owner {found}, expected the AG number {expected}",
		REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_LEVEL] = { "btree.level", 0x030009, XFSJ_SEV_CORRUPT, "btree",
		AT ": level {found}, expected {expected}", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_NUMRECS_MAX] = { "btree.numrecs_max", 0x03000a,
		XFSJ_SEV_CORRUPT, "btree",
		AT ": numrecs {found}, at most {expected} fit", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_NUMRECS_MIN] = { "btree.numrecs_min", 0x03000b,
		XFSJ_SEV_CORRUPT, "btree",
		AT ": numrecs {found}, at least {expected} expected", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_LEFTSIB] = { "btree.leftsib", 0x03000c, XFSJ_SEV_CORRUPT,
		"btree", AT ": leftsib {found}, expected {expected}", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_INOBT_READ },
	[AGBT_RIGHTSIB] = { "btree.rightsib", 0x03000d, XFSJ_SEV_CORRUPT,
		"btree", AT ": rightsib {found}, expected {expected}",
		REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_INOBT_READ },
	[AGBT_PTR] = { "btree.ptr", 0x03000e, XFSJ_SEV_CORRUPT, "btree",
		AT ": pointer {off} is {found}, not a block of the AG past "
		"its headers", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_TWICE] = { "btree.twice", 0x03000f, XFSJ_SEV_CORRUPT, "btree",
		AT ": reached a second time (a loop or a cross-link)",
		REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_KEY_ORDER] = { "btree.key_order", 0x030010, XFSJ_SEV_CORRUPT,
		"btree", AT ": key {off} is out of order", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_KEY] = { "btree.key", 0x030011, XFSJ_SEV_CORRUPT, "btree",
		AT ": key {off} is not its child's lowest key", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_HIGH_KEY] = { "btree.high_key", 0x030012, XFSJ_SEV_CORRUPT,
		"btree", AT ": high key {off} is not its child's highest key",
		REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_REC_START] = { "btree.rec_start", 0x030013, XFSJ_SEV_CORRUPT,
		"btree", REC ": start block {found} is not a block of the AG "
		"past its headers", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_REC_LEN] = { "btree.rec_len", 0x030014, XFSJ_SEV_CORRUPT,
		"btree", REC ": length {found} is zero or runs past the AG",
		REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[AGBT_REC_ORDER] = { "btree.rec_order", 0x030015, XFSJ_SEV_CORRUPT,
		"btree", REC ": starting at {found}, out of order with or "
		"overlapping the record before", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[INOBT_ALIGN] = { "inobt.align", 0x030016, XFSJ_SEV_CORRUPT,
		"inobt", REC ": start inode {found} is not aligned to an inode "
		"chunk", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_INOBT },
	[INOBT_RANGE] = { "inobt.range", 0x030017, XFSJ_SEV_CORRUPT,
		"inobt", REC ": inodes from {found} are not all inodes of the "
		"AG", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_INOBT },
	[INOBT_FREECOUNT] = { "inobt.freecount", 0x030018,
		XFSJ_SEV_CORRUPT, "inobt", REC ": freecount {found}, the free "
		"mask says {expected}", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_INOBT_READ |
		XFSJ_T_INOBT },
	[INOBT_COUNT] = { "inobt.count", 0x030019, XFSJ_SEV_CORRUPT, "inobt",
		REC ": count {found}, the holemask says {expected}", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_INOBT_READ |
		XFSJ_T_INOBT },
	[INOBT_HOLES] = { "inobt.holes", 0x03001a, XFSJ_SEV_CORRUPT, "inobt",
		REC ": holemask {xexpected} has inodes not marked free "
		"(free {xfound})", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_INOBT_READ |
		XFSJ_T_INOBT },
	[FINOBT_NOFREE] = { "finobt.nofree", 0x03001b, XFSJ_SEV_CORRUPT,
		"finobt", REC ": chunk {found} has no free inode", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_FINOBT },
	[FINOBT_DIFFERS] = { "finobt.differs", 0x03001c, XFSJ_SEV_XCORRUPT,
		"finobt", REC ": chunk {found} differs from the inobt's "
		"record", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_FINOBT },
	[FINOBT_UNKNOWN] = { "finobt.unknown", 0x03001d, XFSJ_SEV_XCORRUPT,
		"finobt", REC ": chunk {found} is not in the inobt",
		REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_FINOBT },
	[FINOBT_MISSING] = { "finobt.missing", 0x03001e, XFSJ_SEV_XCORRUPT,
		"finobt", "{field} of AG {ag}: inobt chunk {found} has free "
		"inodes but no finobt record", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_FINOBT },
	[RMAPBT_FLAGS] = { "rmapbt.flags", 0x03001f, XFSJ_SEV_CORRUPT,
		"rmapbt", REC ": offset {xfound} has bits no rmap record may "
		"have", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[RMAPBT_OWNER] = { "rmapbt.owner", 0x030020, XFSJ_SEV_CORRUPT,
		"rmapbt", REC ": owner {xfound} is neither an inode nor a "
		"metadata owner", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[RMAPBT_META] = { "rmapbt.meta", 0x030021, XFSJ_SEV_CORRUPT,
		"rmapbt", REC ": metadata owner {xexpected} with flags or "
		"offset {xfound}", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[RMAPBT_FLAGMIX] = { "rmapbt.flagmix", 0x030022, XFSJ_SEV_CORRUPT,
		"rmapbt", REC ": offset flags {xfound} do not go together",
		REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[RMAPBT_MERGE] = { "rmapbt.merge", 0x030023, XFSJ_SEV_CORRUPT,
		"rmapbt", REC ": starting at {found}, should be merged with "
		"the record before", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[RMAPBT_FILEOFF] = { "rmapbt.fileoff", 0x030024, XFSJ_SEV_CORRUPT,
		"rmapbt", REC ": file offset {found} and length run past the "
		"largest file offset", REBUILD,
		XFSJ_H_AG_BTREES, 0 },
	[REFCBT_COUNT] = { "refcountbt.count", 0x030025, XFSJ_SEV_CORRUPT,
		"refcountbt", REC ": shared extent with refcount {found}, "
		"at least 2 expected", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_REFC_BTREE },
	[REFCBT_COW] = { "refcountbt.cow", 0x030026, XFSJ_SEV_CORRUPT,
		"refcountbt", REC ": CoW staging extent with refcount "
		"{found}, expected 1", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_REFC_BTREE },
	[REFCBT_MERGE] = { "refcountbt.merge", 0x030027, XFSJ_SEV_CORRUPT,
		"refcountbt", REC ": starting at {found}, should be merged "
		"with the record before", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_REFC_BTREE },
	[INOBT_MISSING] = { "inobt.missing", 0x030028, XFSJ_SEV_XCORRUPT,
		"inobt", "{field} of AG {ag}: chunk {found}, inode chunk "
		"blocks in the rmapbt, is not in the inobt", REBUILD,
		XFSJ_H_AG_BTREES, XFSJ_T_INOBT },
};
const struct xck_table xck_agbt_table = { rows, AGBT__N };

int agbt_key_cmp(const struct agbt_key *x, const struct agbt_key *y)
{
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	return 0;
}

bool agbt_key_same(const struct agbt_key *x, const struct agbt_key *y)
{
	return !agbt_key_cmp(x, y) && x->flags == y->flags;
}

/*
 * ---- blocks already reached in this walk ----
 * A bitmap of the AG's blocks in pages of 32768 bits, a page allocated
 * when a block in it is first reached: btree blocks cluster, so a walk
 * touches few pages.
 */
#define SEEN_PAGE_SHIFT	15
#define SEEN_PAGE_BYTES	((1U << SEEN_PAGE_SHIFT) / 8)

struct seen {
	uint8_t **page;
	uint32_t npages;
};

static int seen_init(struct seen *s, uint32_t agblocks)
{
	s->npages = (uint32_t)(((uint64_t)agblocks + (1U << SEEN_PAGE_SHIFT) -
				1) >> SEEN_PAGE_SHIFT);
	s->page = calloc(s->npages ? s->npages : 1, sizeof(*s->page));
	return s->page ? 0 : -XFSJ_E_NOMEM;
}

static void seen_free(struct seen *s)
{
	for (uint32_t i = 0; s->page && i < s->npages; i++)
		free(s->page[i]);
	free(s->page);
}

/* Mark @agbno (inside the AG): 1 when it was marked already, 0, -NOMEM. */
static int seen_add(struct seen *s, uint32_t agbno)
{
	uint8_t **pg = &s->page[agbno >> SEEN_PAGE_SHIFT];
	uint32_t bit = agbno & ((1U << SEEN_PAGE_SHIFT) - 1);

	if (!*pg && !(*pg = calloc(1, SEEN_PAGE_BYTES)))
		return -XFSJ_E_NOMEM;
	if ((*pg)[bit / 8] & (1U << (bit % 8)))
		return 1;
	(*pg)[bit / 8] |= (uint8_t)(1U << (bit % 8));
	return 0;
}

/* ---- the walk ---- */
enum sib { SIB_FIRST, SIB_KNOWN, SIB_UNKNOWN };

struct walk {
	struct agbt_walk w;
	const struct agbt_ops *ops;
	struct xfsj_vctx vc;
	uint32_t bsize;
	unsigned int maxr[2], minr[2];
	struct seen seen;
	/* Per level: the block before in the walk, and its right sibling. */
	enum sib sib[XFSJ_BTREE_MAXLEVELS];
	uint32_t prev[XFSJ_BTREE_MAXLEVELS], prev_right[XFSJ_BTREE_MAXLEVELS];
	uint64_t claim_owner;
	/* The leaf after the one walked (its right sibling), read when the
	 * outlier rule asks for it. */
	uint32_t next_agbno;
	bool next_tried;
	struct xfsj_buf *next_bp;
	unsigned int next_n;
};

void agbt_say(struct agbt_walk *w, int row, unsigned int has,
	      uint64_t expected, uint64_t found, bool rec)
{
	w->bad = true;
	xck_report(w->ck, &(struct xfsj_problem){
		.def = &rows[row],
		.has = XFSJ_PF_AG | XFSJ_PF_AGBNO | (rec ? XFSJ_PF_OFF : 0) |
		       has,
		.agno = w->ag->agno, .agbno = w->rec_agbno, .off = w->rec_i,
		.expected = expected, .found = found, .field = w->s->name });
}

static void say_block(struct walk *k, int row, uint32_t agbno,
		      unsigned int has, uint64_t expected, uint64_t found)
{
	k->w.rec_agbno = agbno;
	agbt_say(&k->w, row, has, expected, found, false);
}

#define EF	(XFSJ_PF_EXPECTED | XFSJ_PF_FOUND)

static bool agbno_ok(const struct walk *k, uint32_t agbno)
{
	return agbt_agbno_ok(&k->w, agbno);
}

/*
 * A subtree that could not be walked: the sibling chains below it are
 * broken off, so the next block of each of those levels is not checked
 * against the one before.
 */
static void sib_lost(struct walk *k, int level)
{
	for (int l = 0; l < level; l++)
		k->sib[l] = SIB_UNKNOWN;
}

static void check_siblings(struct walk *k, const struct xfsj_sblock *h,
			   uint32_t agbno, int level)
{
	if (k->sib[level] == SIB_FIRST && h->leftsib != XFSJ_NULLAGBLOCK)
		say_block(k, AGBT_LEFTSIB, agbno, EF, XFSJ_NULLAGBLOCK,
			  h->leftsib);
	if (k->sib[level] == SIB_KNOWN) {
		if (h->leftsib != k->prev[level])
			say_block(k, AGBT_LEFTSIB, agbno, EF, k->prev[level],
				  h->leftsib);
		if (k->prev_right[level] != agbno)
			say_block(k, AGBT_RIGHTSIB, k->prev[level], EF, agbno,
				  k->prev_right[level]);
	}
	k->sib[level] = SIB_KNOWN;
	k->prev[level] = agbno;
	k->prev_right[level] = h->rightsib;
}

/*
 * The header of a block expected at @level.  Returns false when the block
 * is not one of this tree's at that level (nothing in it is used).
 */
static bool check_header(struct walk *k, const uint8_t *data,
			 const struct xfsj_sblock *h, uint32_t agbno,
			 int level, bool isroot, unsigned int *nrecs)
{
	const struct xfsj_sb *sb = k->w.ck->sb;
	uint64_t daddr = xfsj_agb_to_daddr(sb, k->w.ag->agno, agbno);
	int leaf = level == 0;
	unsigned int min;

	if (h->magic != k->w.s->magic) {
		say_block(k, AGBT_MAGIC, agbno, EF, k->w.s->magic, h->magic);
		return false;
	}
	if (!xfsj_cksum_ok(data, k->bsize, XFSJ_SBLOCK_CRC_OFF))
		say_block(k, AGBT_CRC, agbno, EF,
			  xfsj_cksum(data, k->bsize, XFSJ_SBLOCK_CRC_OFF),
			  h->crc);
	if (memcmp(h->uuid, k->vc.uuid, 16))
		say_block(k, AGBT_UUID, agbno, 0, 0, 0);
	if (h->blkno != daddr)
		say_block(k, AGBT_BLKNO, agbno, EF, daddr, h->blkno);
	if (h->owner != k->w.ag->agno)
		say_block(k, AGBT_OWNER, agbno, EF, k->w.ag->agno, h->owner);
	if (h->level != level) {
		say_block(k, AGBT_LEVEL, agbno, EF, (uint64_t)level, h->level);
		return false;
	}
	*nrecs = h->numrecs;
	if (h->numrecs > k->maxr[!leaf]) {
		say_block(k, AGBT_NUMRECS_MAX, agbno, EF, k->maxr[!leaf],
			  h->numrecs);
		*nrecs = k->maxr[!leaf];
	}
	/* xfs_repair's minimum below the root; a node has a child. */
	min = isroot ? !leaf : k->minr[!leaf];
	if (h->numrecs < min)
		say_block(k, AGBT_NUMRECS_MIN, agbno, EF, min, h->numrecs);
	check_siblings(k, h, agbno, level);
	return true;
}

static int walk_block(struct walk *k, uint32_t agbno, int level, bool isroot,
		      struct agbt_key *lo, struct agbt_key *hi, bool *have);

static void node_key(const struct walk *k, const uint8_t *data,
		     unsigned int i, bool high, struct agbt_key *key)
{
	const uint8_t *p = data + k->w.s->hdrlen + (size_t)i * k->w.s->keylen;

	k->ops->key(high ? p + k->w.s->keylen / 2 : p, key);
}

static uint32_t node_ptr(const struct walk *k, const uint8_t *data,
			 unsigned int i)
{
	const uint8_t *p = data + k->w.s->hdrlen +
			   (size_t)k->maxr[1] * k->w.s->keylen +
			   (size_t)i * k->w.s->ptrlen;

	return xfsj_get_be32(p);
}

/* Ask the cache for the children of a node before walking them. */
static void node_readahead(struct walk *k, const uint8_t *data,
			   unsigned int nrecs)
{
	struct xfsj_buf_ra ra[64];
	unsigned int i, n = 0;

	for (i = 0; i < nrecs && n < 64; i++) {
		uint32_t p = node_ptr(k, data, i);

		if (!agbno_ok(k, p))
			continue;
		ra[n].daddr = xfsj_agb_to_daddr(k->w.ck->sb, k->w.ag->agno, p);
		ra[n++].len = k->bsize;
	}
	if (n > 1)
		(void)xfsj_buf_readahead(k->w.ck->fs, ra, n);
}

static int walk_node(struct walk *k, const uint8_t *data, uint32_t agbno,
		     int level, unsigned int nrecs, struct agbt_key *lo,
		     struct agbt_key *hi, bool *have)
{
	struct agbt_key key, prevkey, hkey, clo, chi;
	bool overlap = k->w.s->overlapping, chave;
	unsigned int i;
	int err;

	node_readahead(k, data, nrecs);
	for (i = 0; i < nrecs; i++) {
		uint32_t p = node_ptr(k, data, i);

		k->w.rec_i = i;
		k->w.rec_agbno = agbno;
		node_key(k, data, i, false, &key);
		/* rmapbt low keys may repeat; the others' may not. */
		if (i > 0 && (overlap ? agbt_key_cmp(&prevkey, &key) > 0 :
					agbt_key_cmp(&prevkey, &key) >= 0))
			agbt_say(&k->w, AGBT_KEY_ORDER, 0, 0, 0, true);
		prevkey = key;
		if (overlap)
			node_key(k, data, i, true, &hkey);
		if (!*have) {
			*lo = key;
			if (overlap)
				*hi = hkey;
			*have = true;
		} else if (overlap && agbt_key_cmp(&hkey, hi) > 0) {
			*hi = hkey;
		}
		if (!agbno_ok(k, p)) {
			k->w.rec_i = i;
			k->w.rec_agbno = agbno;
			agbt_say(&k->w, AGBT_PTR, XFSJ_PF_FOUND, 0, p, true);
			sib_lost(k, level);
			continue;
		}
		err = walk_block(k, p, level - 1, false, &clo, &chi, &chave);
		if (err)
			return err;
		if (!chave)
			continue;
		k->w.rec_i = i;
		k->w.rec_agbno = agbno;
		if (!agbt_key_same(&key, &clo))
			agbt_say(&k->w, AGBT_KEY, 0, 0, 0, true);
		if (overlap && !agbt_key_same(&hkey, &chi))
			agbt_say(&k->w, AGBT_HIGH_KEY, 0, 0, 0, true);
	}
	return 0;
}

/* The records of the leaf after the one walked, or NULL (none, or not
 * a leaf of this tree). */
static const void *next_leaf(struct walk *k, unsigned int *n)
{
	const struct xfsj_sb *sb = k->w.ck->sb;
	struct xfsj_sblock h;

	if (!k->next_tried) {
		k->next_tried = true;
		if (!agbno_ok(k, k->next_agbno) ||
		    k->next_agbno == k->w.rec_agbno ||
		    xfsj_buf_read_ref(k->w.ck->fs,
				      xfsj_agb_to_daddr(sb, k->w.ag->agno,
							k->next_agbno),
				      k->bsize, &k->next_bp))
			return NULL;
		xfsj_sblock_decode(k->next_bp->data, &h);
		k->next_n = h.numrecs < k->maxr[0] ? h.numrecs : k->maxr[0];
		if (h.magic != k->w.s->magic || h.level != 0) {
			xfsj_buf_rele(k->w.ck->fs, k->next_bp);
			k->next_bp = NULL;
		}
	}
	*n = k->next_n;
	return k->next_bp ? k->next_bp->data : NULL;
}

/* The record @d places after record @i of the leaf being walked. */
static bool rec_after(struct walk *k, const void *block, unsigned int i,
		      unsigned int d, union agbt_rec *r)
{
	unsigned int j = i + d, n;
	const void *next;

	if (j < k->w.rec_n) {
		k->ops->get(&k->w, block, j, r);
		return true;
	}
	next = next_leaf(k, &n);
	j -= k->w.rec_n;
	if (!next || j >= n)
		return false;
	k->ops->get(&k->w, next, j, r);
	return true;
}

bool agbt_outlier(struct agbt_walk *w, const void *block, unsigned int i,
		  const union agbt_rec *r)
{
	struct walk *k = (struct walk *)w;
	bool (*before)(const struct agbt_walk *, const union agbt_rec *,
		       const union agbt_rec *) = k->ops->before;
	union agbt_rec next, after;

	if (!rec_after(k, block, i, 1, &next) || before(w, r, &next))
		return false;
	if (w->have_last)
		return before(w, &w->last, &next);
	return rec_after(k, block, i, 2, &after) &&
	       before(w, &next, &after) && !before(w, r, &after);
}

static int walk_leaf(struct walk *k, const uint8_t *data, uint32_t agbno,
		     unsigned int nrecs, uint32_t rightsib,
		     struct agbt_key *lo, struct agbt_key *hi, bool *have)
{
	struct agbt_key rlo, rhi;
	unsigned int i;
	int err = 0;

	k->next_agbno = rightsib;
	k->next_tried = false;
	k->next_bp = NULL;
	for (i = 0; i < nrecs && !err; i++) {
		k->ops->rec_keys(data, i, &rlo, &rhi);
		if (!*have) {
			*lo = rlo;
			*hi = rhi;
			*have = true;
		} else if (agbt_key_cmp(&rhi, hi) > 0) {
			*hi = rhi;
		}
		k->w.rec_i = i;
		k->w.rec_n = nrecs;
		k->w.rec_agbno = agbno;
		k->w.ck->res->work[XFSJ_WK_AGBT]++;
		err = k->ops->rec(&k->w, data, i);
	}
	if (k->next_bp)
		xfsj_buf_rele(k->w.ck->fs, k->next_bp);
	k->next_bp = NULL;
	return err;
}

/*
 * Walk the subtree of the block @agbno (a block of the AG past its
 * headers) expected at @level.  *have tells whether @lo and @hi hold its
 * lowest and highest keys (false: nothing of it could be used).
 */
static int walk_block(struct walk *k, uint32_t agbno, int level, bool isroot,
		      struct agbt_key *lo, struct agbt_key *hi, bool *have)
{
	struct xck *ck = k->w.ck;
	const struct xfsj_sb *sb = ck->sb;
	struct xfsj_sblock h;
	struct xfsj_buf *bp;
	unsigned int nrecs = 0;
	int err;

	*have = false;
	err = seen_add(&k->seen, agbno);
	if (err < 0)
		return err;
	if (err) {
		say_block(k, AGBT_TWICE, agbno, 0, 0, 0);
		sib_lost(k, level + 1);
		return 0;
	}
	k->w.ag->btblocks[k->w.bt]++;
	ck->res->btree_blocks++;
	err = xck_claim(ck, k->w.ag->agno, agbno, 1, k->claim_owner, 0);
	if (err)
		return err;
	err = xfsj_buf_read_ref(ck->fs, xfsj_agb_to_daddr(sb, k->w.ag->agno,
							  agbno),
				k->bsize, &bp);
	if (err)
		return err;
	xfsj_sblock_decode(bp->data, &h);
	if (!check_header(k, bp->data, &h, agbno, level, isroot, &nrecs)) {
		sib_lost(k, level + 1);
		xfsj_buf_rele(ck->fs, bp);
		return 0;
	}
	if (level > 0)
		err = walk_node(k, bp->data, agbno, level, nrecs, lo, hi,
				have);
	else
		err = walk_leaf(k, bp->data, agbno, nrecs, h.rightsib, lo, hi,
				have);
	xfsj_buf_rele(ck->fs, bp);
	return err;
}

/* ---- the most levels a tree may have, as the kernel computes it ---- */
static unsigned int levels_for(unsigned int minleaf, unsigned int minnode,
			       uint64_t records)
{
	uint64_t blocks = (records + minleaf - 1) / minleaf;
	unsigned int level = 1;

	while (blocks > 1 && level < 64) {
		blocks = (blocks + minnode - 1) / minnode;
		level++;
	}
	return level;
}

/* The height a tree of @leaf_blocks leaves can reach (rmapbt, reflink). */
static unsigned int levels_for_space(unsigned int minnode,
				     uint64_t leaf_blocks)
{
	uint64_t node_blocks = minnode, left = leaf_blocks - 1;
	unsigned int height = 1;

	while (node_blocks < left && height < 64) {
		left -= node_blocks;
		node_blocks *= minnode;
		height++;
	}
	return height;
}

static unsigned int max_levels(const struct walk *k)
{
	const struct xfsj_sb *sb = k->w.ck->sb;
	unsigned int l0 = k->minr[0] ? k->minr[0] : 1;
	unsigned int l1 = k->minr[1] > 1 ? k->minr[1] : 2;

	switch (k->w.bt) {
	case XFSJ_BT_BNO:
	case XFSJ_BT_CNT:
		return levels_for(l0, l1, ((uint64_t)sb->agblocks + 1) / 2);
	case XFSJ_BT_INO:
	case XFSJ_BT_FINO:
		return levels_for(l0, l1, (1ULL << (sb->agblklog +
						    sb->inopblog)) /
					  XFSJ_INODES_PER_CHUNK);
	case XFSJ_BT_RMAP:
		if (sb->features_ro_compat & XFSJ_RO_COMPAT_REFLINK)
			return levels_for_space(l1, sb->agblocks);
		return levels_for(l0, l1, sb->agblocks);
	default:
		return levels_for(l0, l1, sb->agblocks);
	}
}

static const uint64_t claim_owner[XFSJ_BT__COUNT] = {
	[XFSJ_BT_BNO] = XFSJ_RMAP_OWN_AG,
	[XFSJ_BT_CNT] = XFSJ_RMAP_OWN_AG,
	[XFSJ_BT_RMAP] = XFSJ_RMAP_OWN_AG,
	[XFSJ_BT_INO] = XFSJ_RMAP_OWN_INOBT,
	[XFSJ_BT_FINO] = XFSJ_RMAP_OWN_INOBT,
	[XFSJ_BT_REFC] = XFSJ_RMAP_OWN_REFC,
};

static int walk_tree(struct xck *ck, struct xck_ag *ag, enum xfsj_btnum bt,
		     uint32_t root, uint32_t height)
{
	const struct xfsj_sb *sb = ck->sb;
	struct walk k = {
		.w = { .ck = ck, .ag = ag, .bt = bt,
		       .s = xfsj_btree_shape(bt) },
		.ops = agbt_ops(bt),
		.bsize = sb->blocksize,
		.claim_owner = claim_owner[bt],
	};
	k.w.last_iblock = XFSJ_NULLAGBLOCK;
	struct agbt_key lo, hi;
	unsigned int maxh;
	bool have;
	int err = 0, l;

	xfsj_fs_vctx(ck->fs, ag->agno, &k.vc);
	/* The AGFL, in the fourth sector, ends the headers. */
	k.w.first_agbno = xfsj_ag_hdr_blocks(sb->sectsize, sb->blocklog);
	k.maxr[0] = xfsj_btree_maxrecs(bt, sb->blocksize, true);
	k.maxr[1] = xfsj_btree_maxrecs(bt, sb->blocksize, false);
	k.minr[0] = k.maxr[0] / 2;
	k.minr[1] = k.maxr[1] / 2;
	maxh = max_levels(&k);
	if (maxh > XFSJ_BTREE_MAXLEVELS)
		maxh = XFSJ_BTREE_MAXLEVELS;
	k.w.rec_agbno = root;
	if (height == 0 || height > maxh) {
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[AGBT_HEIGHT],
			.has = XFSJ_PF_AG | EF, .agno = ag->agno,
			.expected = maxh, .found = height,
			.field = k.w.s->name });
		return 0;
	}
	if (!agbno_ok(&k, root)) {
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[AGBT_ROOT],
			.has = XFSJ_PF_AG | XFSJ_PF_FOUND, .agno = ag->agno,
			.found = root, .field = k.w.s->name });
		return 0;
	}
	err = seen_init(&k.seen, ag->agblocks);
	if (!err)
		err = walk_block(&k, root, (int)height - 1, true, &lo, &hi,
				 &have);
	/* The last block of each level has no right sibling. */
	for (l = 0; !err && l < (int)height; l++)
		if (k.sib[l] == SIB_KNOWN && k.prev_right[l] != XFSJ_NULLAGBLOCK)
			say_block(&k, AGBT_RIGHTSIB, k.prev[l], EF,
				  XFSJ_NULLAGBLOCK, k.prev_right[l]);
	if (!err && k.ops->done)
		err = k.ops->done(&k.w);
	seen_free(&k.seen);
	if (!err)
		ag->tree_ok[bt] = !k.w.bad;
	return err;
}

int xck_ag_btrees(struct xck *ck, struct xck_ag *ag)
{
	struct xfsj_fs *fs = ck->fs;
	int err = 0;

	if (ag->agf_ok) {
		err = walk_tree(ck, ag, XFSJ_BT_BNO, ag->agf.bno_root,
				ag->agf.bno_level);
		if (!err)
			err = walk_tree(ck, ag, XFSJ_BT_CNT, ag->agf.cnt_root,
					ag->agf.cnt_level);
		if (!err && xfsj_fs_has(fs, XFSJ_RO_COMPAT_RMAPBT))
			err = walk_tree(ck, ag, XFSJ_BT_RMAP,
					ag->agf.rmap_root, ag->agf.rmap_level);
		if (!err && xfsj_fs_has(fs, XFSJ_RO_COMPAT_REFLINK))
			err = walk_tree(ck, ag, XFSJ_BT_REFC,
					ag->agf.refcount_root,
					ag->agf.refcount_level);
	}
	if (!err && ag->agi_ok) {
		err = walk_tree(ck, ag, XFSJ_BT_INO, ag->agi.root,
				ag->agi.level);
		if (!err && xfsj_fs_has(fs, XFSJ_RO_COMPAT_FINOBT))
			err = walk_tree(ck, ag, XFSJ_BT_FINO,
					ag->agi.free_root, ag->agi.free_level);
	}
	/* (an AGI that cannot be used too: its chunks are not known) */
	if (!err)
		err = agbt_chunks_recover(ck, ag);
	return err;
}
