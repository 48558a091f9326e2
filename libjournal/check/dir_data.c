/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directory data blocks and the single block of a block-format directory:
 * the header, the items tiling the data area (entries and unused regions,
 * each tagged with its own offset, no two unused regions side by side),
 * the bestfree table (the three largest unused regions, largest first),
 * and for the single block its leaf entries and tail.  The rules are the
 * kernel's data block checks (xfs_dir3_data_check, the block verifier).
 */
#include <stdlib.h>
#include <string.h>

#include "check/dir_priv.h"

struct data_walk {
	struct xck_dctx *d;
	uint64_t db;
	const uint8_t *b;
	struct xfsj_dir2_bestfree bf[XFSJ_DIR2_BEST_FREE];
	struct xfsj_dir2_bestfree top[XFSJ_DIR2_BEST_FREE]; /* largest seen */
	unsigned int matched;			/* bf entries found */
	bool lastfree;
};

static uint64_t doff(const struct data_walk *w, uint32_t off)
{
	return (w->db << w->d->dirblkbytelog) + off;
}

static void unused_item(struct data_walk *w, const struct xfsj_dir2_item *it)
{
	struct xck_dctx *d = w->d;
	unsigned int i;
	uint16_t len = (uint16_t)it->len;

	if (it->tag != it->off)
		xck_dir_report(d, DIR_UNUSED, XFSJ_PF_OFF | XFSJ_PF_FOUND,
			       doff(w, it->off), "tag", 0, it->tag);
	if (w->lastfree)
		xck_dir_report(d, DIR_UNUSED, XFSJ_PF_OFF | XFSJ_PF_FOUND,
			       doff(w, it->off), "after another unused region",
			       0, it->len);
	for (i = 0; i < XFSJ_DIR2_BEST_FREE; i++)
		if (!(w->matched & 1U << i) && w->bf[i].offset == it->off &&
		    w->bf[i].length == len) {
			w->matched |= 1U << i;
			break;
		}
	xfsj_dir2_bestfree_add(w->top, it->off, len);
}

static int entry_item(struct data_walk *w, const struct xfsj_dir2_item *it)
{
	struct xck_dctx *d = w->d;

	if (it->tag != it->off)
		xck_dir_report(d, DIR_ENTRY, XFSJ_PF_OFF | XFSJ_PF_FOUND,
			       doff(w, it->off), "tag", 0, it->tag);
	if (memchr(it->name, '/', it->namelen) ||
	    memchr(it->name, 0, it->namelen))
		xck_report(d->ck, &(struct xfsj_problem){
			.def = &xck_dir_rows[DIR_ENT_NAME],
			.has = XFSJ_PF_INO | XFSJ_PF_OFF, .ino = d->ic->ino,
			.off = doff(w, it->off), .field = "a '/' or NUL",
			.name = (const char *)it->name,
			.namelen = it->namelen });
	/* A file type that is none is the names check's (dirent.ftype):
	 * one rule, the child's mode, decides every entry's type. */
	return xck_dir_add_dent(d, it->ino, it->name, it->namelen, it->ftype,
				xfsj_dir2_dataptr(d->dirblkbytelog, w->db,
						  it->off));
}

/* The table against the regions seen (the kernel's rules, as a whole:
 * lengths are the three largest, each entry names its region). */
static void check_bestfree(struct data_walk *w)
{
	static const char *const fl[] = { "bestfree[0].length",
		"bestfree[1].length", "bestfree[2].length" };
	static const char *const fo[] = { "bestfree[0].offset",
		"bestfree[1].offset", "bestfree[2].offset" };
	unsigned int has = XFSJ_PF_OFF | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;

	for (unsigned int i = 0; i < XFSJ_DIR2_BEST_FREE; i++) {
		const struct xfsj_dir2_bestfree *f = &w->bf[i];

		if (f->length != w->top[i].length)
			xck_dir_report(w->d, DIR_BESTFREE, has, doff(w, 0),
				       fl[i], w->top[i].length, f->length);
		else if (f->length && !(w->matched & 1U << i))
			xck_dir_report(w->d, DIR_BESTFREE, XFSJ_PF_OFF |
				       XFSJ_PF_FOUND, doff(w, 0), fo[i], 0,
				       f->offset);
		else if (!f->length && f->offset)
			xck_dir_report(w->d, DIR_BESTFREE, has, doff(w, 0),
				       fo[i], 0, f->offset);
	}
}

/* The single block's tail: a count past what fits is reported, taken 0. */
static void block_tail(struct data_walk *w, struct xfsj_dir2_area *a)
{
	struct xck_dctx *d = w->d;

	if (a->count_ok)
		return;
	xck_dir_report(d, DIR_LEAF_FIELD, XFSJ_PF_OFF | XFSJ_PF_EXPECTED |
		       XFSJ_PF_FOUND, doff(w, 0), "block tail count",
		       (d->dirblksize - XFSJ_DIR3_HDR_SIZE -
			XFSJ_DIR2_BLOCK_TAIL) / XFSJ_DIR2_LEAF_ENT_SIZE,
		       a->count);
	d->leaves_ok = false;
	a->count = 0;
}

int xck_dir_data(struct xck_dctx *d, uint64_t db)
{
	struct data_walk w = { .d = d, .db = db };
	struct xck_best bst = { .db = db, .best = XCK_BEST_UNKNOWN };
	struct xfsj_dir3_hdr h;
	struct xfsj_dir2_area area = { .end = d->dirblksize };
	struct xfsj_dir2_walk dw;
	struct xfsj_dir2_item it;
	uint64_t daddr = 0;
	uint64_t first = d->ck->next_id;
	uint8_t *b;
	int err;

	b = xck_dir_read(d, db, &daddr, &err);
	if (!b) {
		if (d->isblock)
			d->leaves_ok = false;
		xck_dir_lost(d, first);
		return err ? err : xck_vec_push(d->ck, &d->bests, &bst);
	}
	w.b = b;
	xfsj_dir3_data_hdr_decode(b, &h);
	if (!xck_dir_hdr_check(d, db, b, &h, d->isblock ?
			       XFSJ_DIR3_BLOCK_MAGIC : XFSJ_DIR3_DATA_MAGIC,
			       daddr)) {
		if (d->isblock)
			d->leaves_ok = false;
		xck_dir_lost(d, first);
		free(b);
		return xck_vec_push(d->ck, &d->bests, &bst);
	}
	xfsj_dir3_bestfree_get(b, w.bf);
	if (d->isblock) {
		/* The header check took the block magic: the area decodes. */
		xfsj_dir2_data_area(b, d->dirblksize, &area);
		block_tail(&w, &area);
	}
	xfsj_dir2_walk_init(&dw, b, area.end, d->ftype);
	while (xfsj_dir2_walk_next(&dw, &it)) {
		if (it.unused) {
			unused_item(&w, &it);
		} else {
			err = entry_item(&w, &it);
			if (err)
				goto out;
		}
		w.lastfree = it.unused;
	}
	bst.walked = !dw.field;
	if (dw.field) {
		first = d->ck->next_id;
		xck_dir_report(d, it.unused ? DIR_UNUSED : DIR_ENTRY,
			       XFSJ_PF_OFF | XFSJ_PF_FOUND, doff(&w, dw.off),
			       dw.field, 0, it.unused ? it.len : it.namelen);
		xck_dir_lost(d, first);
	}
	if (bst.walked) {
		check_bestfree(&w);
		bst.best = w.bf[0].length;
	}
	if (d->isblock) {
		uint32_t nstale = 0;

		xck_dir_leaf_ents(d, db, b + area.end, area.count, &nstale,
				  &err);
		if (err)
			goto out;
		if (nstale != area.stale)
			xck_dir_report(d, DIR_LEAF_FIELD, XFSJ_PF_OFF |
				       XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
				       doff(&w, 0), "block tail stale",
				       nstale, area.stale);
	}
	err = xck_vec_push(d->ck, &d->bests, &bst);
out:
	free(b);
	return err;
}
