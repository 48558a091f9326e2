/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The index of a directory: the leaf1 block of a leaf-format directory
 * (leaf entries and the bests of every data block), or the dabtree of a
 * node-format directory (da3 nodes down to leafn blocks, hashes in order,
 * each node entry's hash the highest of its child, siblings linked left
 * to right on every level) and its free index blocks (the bests of the
 * data blocks, XFSJ_DIR3 free_max_bests to a block).  The leaf entries
 * are collected for dir.c, which matches them against the data entries.
 */
#include <stdlib.h>
#include <string.h>

#include "check/dir_priv.h"

uint32_t xck_dir_leaf_ents(struct xck_dctx *d, uint64_t db,
			   const uint8_t *ents, uint32_t count,
			   uint32_t *stale, int *err)
{
	uint32_t prev = 0;

	*err = 0;
	*stale = 0;
	for (uint32_t i = 0; i < count; i++) {
		struct xfsj_dir2_leaf_ent e;
		struct xck_lent l;

		xfsj_dir2_leaf_ent_get(ents + (size_t)i * 8, &e);
		if (i && e.hashval < prev)
			xck_report(d->ck, &(struct xfsj_problem){
				.def = &xck_dir_rows[DIR_LEAF_ORDER],
				.has = XFSJ_PF_INO | XFSJ_PF_OFF |
				       XFSJ_PF_FOUND | XFSJ_PF_COUNT,
				.ino = d->ic->ino,
				.off = db << d->dirblkbytelog,
				.found = e.hashval, .count = i });
		prev = e.hashval;
		if (!e.address) {
			(*stale)++;
			continue;
		}
		l = (struct xck_lent){ e.hashval, e.address };
		*err = xck_vec_push(d->ck, &d->lents, &l);
		if (*err)
			break;
	}
	return prev;
}

#define leaf_field(d, db, field, expected, found) \
	xck_dir_blk_field(d, DIR_LEAF_FIELD, db, field, expected, found)

/* A leaf's entries from byte 64 up to @end; false when they do not fit. */
static bool leaf_body(struct xck_dctx *d, uint64_t db, const uint8_t *b,
		      uint32_t end, uint32_t *lasthash, int *err)
{
	uint32_t count = xfsj_get_be16(b + 56), stale = xfsj_get_be16(b + 58);
	uint32_t nstale = 0;

	*err = 0;
	if (end < XFSJ_DIR3_HDR_SIZE ||
	    count > (end - XFSJ_DIR3_HDR_SIZE) / XFSJ_DIR2_LEAF_ENT_SIZE) {
		leaf_field(d, db, "count",
			   end < XFSJ_DIR3_HDR_SIZE ? 0 :
			   (end - XFSJ_DIR3_HDR_SIZE) / XFSJ_DIR2_LEAF_ENT_SIZE,
			   count);
		d->leaves_ok = false;
		return false;
	}
	*lasthash = xck_dir_leaf_ents(d, db, b + XFSJ_DIR3_HDR_SIZE, count,
				      &nstale, err);
	if (!*err && nstale != stale)
		leaf_field(d, db, "stale", nstale, stale);
	return true;
}

/* What the bests of data block @db must say; false: unknown. */
static bool best_of(struct xck_dctx *d, uint64_t db, uint32_t *want,
		    bool cover)
{
	struct xck_best *b = xck_dir_best(d, db);

	if (!b) {
		*want = XCK_BEST_HOLE;
		return true;
	}
	if (cover)
		b->covered = true;
	*want = b->best;
	return b->best != XCK_BEST_UNKNOWN;
}

static void bests_field(struct xck_dctx *d, const char *field, uint64_t db,
			uint32_t want, uint32_t found)
{
	xck_report(d->ck, &(struct xfsj_problem){
		.def = &xck_dir_rows[DIR_BESTS],
		.has = XFSJ_PF_INO | XFSJ_PF_COUNT | XFSJ_PF_EXPECTED |
		       XFSJ_PF_FOUND,
		.ino = d->ic->ino, .field = field, .count = db,
		.expected = want, .found = found });
}

int xck_dir_leaf1(struct xck_dctx *d)
{
	uint64_t db = d->leafdb, daddr = 0;
	uint32_t bs = d->dirblksize, bestcount, lasthash, maxbests;
	struct xfsj_dir3_hdr h;
	uint8_t *b;
	int err;

	b = xck_dir_read(d, db, &daddr, &err);
	if (!b) {
		d->leaves_ok = false;
		return err;
	}
	xfsj_dir3_blkinfo_decode(b, &h);
	if (!xck_dir_hdr_check(d, db, b, &h, XFSJ_DIR3_LEAF1_MAGIC, daddr)) {
		d->leaves_ok = false;
		goto out;
	}
	/* The only leaf block has no siblings. */
	if (h.forw)
		leaf_field(d, db, "forw", 0, h.forw);
	if (h.back)
		leaf_field(d, db, "back", 0, h.back);
	bestcount = xfsj_get_be32(b + bs - XFSJ_DIR2_LEAF_TAIL);
	maxbests = (bs - XFSJ_DIR3_HDR_SIZE - XFSJ_DIR2_LEAF_TAIL) / 2;
	if (bestcount > maxbests) {
		leaf_field(d, db, "bestcount", d->nbest, bestcount);
		d->leaves_ok = false;
		goto out;
	}
	if (!leaf_body(d, db, b, bs - XFSJ_DIR2_LEAF_TAIL - 2 * bestcount,
		       &lasthash, &err) || err)
		goto out;
	/* One best for every data block, holes included. */
	if (bestcount != d->nbest)
		leaf_field(d, db, "bestcount", d->nbest, bestcount);
	for (uint32_t i = 0; i < bestcount && i < d->nbest; i++) {
		const uint8_t *p = b + bs - XFSJ_DIR2_LEAF_TAIL -
				   2 * (bestcount - i);
		uint32_t want;

		if (best_of(d, i, &want, false) &&
		    xfsj_get_be16(p) != want)
			bests_field(d, "leaf bests", i, want,
				    xfsj_get_be16(p));
	}
out:
	free(b);
	return err;
}

/* ---- node format ---- */

struct sib {
	uint64_t db;
	uint32_t forw, back;
	uint16_t level;
};

struct node_walk {
	struct xck_dctx *d;
	struct xck_vec seen;	/* uint64_t db, sorted */
	struct xck_vec sibs;	/* struct sib, depth first */
};

/* Mark @db seen; false if it was already. */
static bool see(struct node_walk *w, uint64_t db, int *err)
{
	uint64_t *v = w->seen.v;
	size_t lo = 0, hi = w->seen.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == db)
			return false;
		if (v[mid] < db)
			lo = mid + 1;
		else
			hi = mid;
	}
	*err = xck_vec_push(w->d->ck, &w->seen, &db);
	if (*err)
		return true;
	v = w->seen.v;
	memmove(&v[lo + 1], &v[lo], (w->seen.n - 1 - lo) * sizeof(*v));
	v[lo] = db;
	return true;
}

#define node_field(d, db, field, expected, found) \
	xck_dir_blk_field(d, DIR_NODE, db, field, expected, found)

/*
 * Visit the node or leafn block @db, at @level (-1: the root, either).
 * *@maxhash gets its highest hash; false when the subtree is unusable.
 */
static bool visit(struct node_walk *w, uint64_t db, int level,
		  uint32_t *maxhash, int *err)
{
	struct xck_dctx *d = w->d;
	uint32_t count, nlevel, prev = 0;
	struct xfsj_dir3_hdr h;
	uint64_t daddr = 0;
	bool ok = true;
	uint8_t *b;

	*err = 0;
	if (!see(w, db, err)) {
		node_field(d, db, "a second reference to the block", 0, db);
		return false;
	}
	if (*err)
		return false;
	b = xck_dir_read(d, db, &daddr, err);
	if (!b)
		return false;
	xfsj_dir3_blkinfo_decode(b, &h);
	if (h.magic == XFSJ_DIR3_LEAFN_MAGIC && level <= 0) {
		struct sib s = { db, h.forw, h.back, 0 };

		ok = xck_dir_hdr_check(d, db, b, &h, XFSJ_DIR3_LEAFN_MAGIC,
				       daddr) &&
		     leaf_body(d, db, b, d->dirblksize, maxhash, err);
		if (ok && !*err)
			*err = xck_vec_push(d->ck, &w->sibs, &s);
		goto out;
	}
	if (!xck_dir_hdr_check(d, db, b, &h, XFSJ_DIR3_NODE_MAGIC, daddr)) {
		ok = false;
		goto out;
	}
	count = xfsj_get_be16(b + 56);
	nlevel = xfsj_get_be16(b + 58);
	if (nlevel == 0 || nlevel >= XFSJ_DA_NODE_MAXDEPTH ||
	    (level >= 0 && nlevel != (uint32_t)level)) {
		node_field(d, db, "level", level > 0 ? (uint32_t)level : 1,
			   nlevel);
		ok = false;
		goto out;
	}
	if (count == 0 || count > xfsj_dir3_leaf_max_ents(d->dirblksize)) {
		node_field(d, db, "count",
			   xfsj_dir3_leaf_max_ents(d->dirblksize), count);
		ok = false;
		goto out;
	}
	{
		struct sib s = { db, h.forw, h.back, (uint16_t)nlevel };

		*err = xck_vec_push(d->ck, &w->sibs, &s);
		if (*err)
			goto out;
	}
	for (uint32_t i = 0; i < count && !*err; i++) {
		const uint8_t *p = b + XFSJ_DIR3_HDR_SIZE + 8 * i;
		uint32_t hash = xfsj_get_be32(p), before = xfsj_get_be32(p + 4);
		uint32_t cmax = 0;
		uint64_t cdb = before / d->fsbs;

		if (i && hash < prev)
			node_field(d, db, "hashval order", prev, hash);
		prev = hash;
		if (before % d->fsbs || cdb < d->leafdb || cdb >= d->freedb) {
			node_field(d, db, "before", d->leafdb * d->fsbs,
				   before);
			ok = false;
			continue;
		}
		if (!visit(w, cdb, (int)nlevel - 1, &cmax, err)) {
			ok = false;
			continue;
		}
		if (cmax != hash)
			node_field(d, db, "hashval", cmax, hash);
	}
	*maxhash = prev;
out:
	free(b);
	return ok;
}

/*
 * Each level's blocks, left to right, link to their neighbours; the ends
 * link to nothing, so the root has no siblings (xfs_repair -n lets a root
 * with a sibling pass; the kernel's online scrub of a dabtree does not).
 */
static void check_siblings(struct node_walk *w)
{
	const struct sib *s = w->sibs.v;

	for (uint16_t lv = 0; lv < XFSJ_DA_NODE_MAXDEPTH; lv++) {
		const struct sib *prev = NULL;

		for (size_t i = 0; i < w->sibs.n; i++) {
			uint32_t da = (uint32_t)(s[i].db * w->d->fsbs);

			if (s[i].level != lv)
				continue;
			if (s[i].back != (prev ? prev->db * w->d->fsbs : 0))
				node_field(w->d, s[i].db, "back",
					   prev ? prev->db * w->d->fsbs : 0,
					   s[i].back);
			if (prev && prev->forw != da)
				node_field(w->d, prev->db, "forw", da,
					   prev->forw);
			prev = &s[i];
		}
		if (prev && prev->forw)
			node_field(w->d, prev->db, "forw", 0, prev->forw);
	}
}

/* Blocks of the leaf space the tree does not reach. */
static void check_strays(struct node_walk *w)
{
	struct xck_dctx *d = w->d;
	const struct xck_icheck *ic = d->ic;
	const uint64_t *v = w->seen.v;
	size_t k = 0;

	for (size_t i = 0; i < ic->nmap[0]; i++) {
		const struct xfsj_bmbt_irec *m = &ic->map[0][i];
		uint64_t end = m->startoff + m->blockcount;

		for (uint64_t db = m->startoff / d->fsbs;
		     db * d->fsbs < end && db < d->freedb; db++) {
			if (db < d->leafdb)
				continue;
			while (k < w->seen.n && v[k] < db)
				k++;
			if (k < w->seen.n && v[k] == db)
				continue;
			xck_dir_report(d, DIR_STRAY, XFSJ_PF_OFF,
				       db << d->dirblkbytelog, "node tree",
				       0, 0);
			/* One report per mapping is enough. */
			break;
		}
	}
}

static int free_block(struct xck_dctx *d, uint64_t db)
{
	uint32_t maxb = xfsj_dir3_free_max_bests(d->dirblksize);
	uint64_t first = (db - d->freedb) * maxb, daddr = 0;
	uint64_t off = db << d->dirblkbytelog;
	unsigned int has = XFSJ_PF_OFF | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;
	uint32_t firstdb, nvalid, nused, used = 0;
	struct xfsj_dir3_hdr h;
	uint8_t *b;
	int err;

	b = xck_dir_read(d, db, &daddr, &err);
	if (!b)
		return err;
	xfsj_dir3_data_hdr_decode(b, &h);
	if (!xck_dir_hdr_check(d, db, b, &h, XFSJ_DIR3_FREE_MAGIC, daddr))
		goto out;
	firstdb = xfsj_get_be32(b + 48);
	nvalid = xfsj_get_be32(b + 52);
	nused = xfsj_get_be32(b + 56);
	if (firstdb != first)
		xck_dir_report(d, DIR_FREE_HDR, has, off, "firstdb", first,
			       firstdb);
	if (nvalid > maxb) {
		xck_dir_report(d, DIR_FREE_HDR, has, off, "nvalid", maxb,
			       nvalid);
		nvalid = maxb;
	}
	for (uint32_t i = 0; i < nvalid; i++) {
		uint32_t v = xfsj_get_be16(b + XFSJ_DIR3_HDR_SIZE + 2 * i);
		uint32_t want;

		if (v != XCK_BEST_HOLE)
			used++;
		if (best_of(d, first + i, &want, true) && v != want)
			bests_field(d, "free index bests", first + i, want, v);
	}
	if (nused != used)
		xck_dir_report(d, DIR_FREE_HDR, has, off, "nused", used, nused);
out:
	free(b);
	return 0;
}

static int free_index(struct xck_dctx *d)
{
	const struct xck_icheck *ic = d->ic;
	uint64_t next_db = 0;
	int err;

	for (size_t i = 0; i < ic->nmap[0]; i++) {
		const struct xfsj_bmbt_irec *m = &ic->map[0][i];
		uint64_t end = m->startoff + m->blockcount;
		uint64_t spend = (XFSJ_DIR2_SPACE_END >> d->ck->sb->blocklog);

		if (end > spend)
			end = spend;
		for (uint64_t db = m->startoff / d->fsbs;
		     db * d->fsbs < end; db++) {
			if (db < d->freedb || db < next_db)
				continue;
			next_db = db + 1;
			err = free_block(d, db);
			if (err)
				return err;
		}
	}
	/* Every data block has its best in a free index block. */
	for (size_t i = 0; i < d->bests.n; i++) {
		const struct xck_best *b = xck_vec_at(&d->bests, i);

		if (!b->covered && b->best != XCK_BEST_UNKNOWN)
			bests_field(d, "free index bests", b->db, b->best,
				    XCK_BEST_HOLE);
	}
	return 0;
}

int xck_dir_node(struct xck_dctx *d)
{
	struct node_walk w = { .d = d };
	uint32_t maxhash = 0;
	int err = 0;

	xck_vec_init(&w.seen, sizeof(uint64_t));
	xck_vec_init(&w.sibs, sizeof(struct sib));
	if (!visit(&w, d->leafdb, -1, &maxhash, &err))
		d->leaves_ok = false;
	if (!err) {
		check_siblings(&w);
		check_strays(&w);
		err = free_index(d);
	}
	xck_vec_free(d->ck, &w.seen);
	xck_vec_free(d->ck, &w.sibs);
	return err;
}
