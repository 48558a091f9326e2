/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checker's cross-checks (check/space.c, space_counters.c, names.c,
 * counters.c) on hand-made tables: one AG whose claims, free extents,
 * rmaps and refcounts are written out here, then changed one fact at a
 * time; a small namespace of entries over one inode chunk.  Each test
 * says which problem codes it expects, and only those.  Last, a whole
 * check of a fresh filesystem finds nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "check/check_priv.h"
#include "fs/attr.h"

#define MB	(1ULL << 20)
#define AGB	(t->ag.agblocks)	/* the fixture's AG 0 */

struct tcheck {
	struct fs_fixture fx;
	struct xck ck;
	struct xfsj_check_result res;
	struct xfsj_check_cb cb;
	struct xck_ag ag;
	char codes[32][48];
	char names[32][256];
	struct xfsj_problem last[32];
	unsigned int n;
};

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct tcheck *t = arg;

	if (t->n < 32) {
		snprintf(t->codes[t->n], sizeof(t->codes[0]), "%s",
			 p->def->code);
		t->last[t->n] = *p;
		snprintf(t->names[t->n], sizeof(t->names[0]), "%.*s",
			 (int)p->namelen, p->name ? p->name : "");
		t->last[t->n].name = t->names[t->n];
	}
	t->n++;
}

static void push_claim(struct tcheck *t, struct xck_vec *v, uint32_t s,
		       uint32_t len, uint64_t owner, uint64_t off)
{
	struct xfsj_rmap_rec r = { s, len, owner, off };

	ck_assert_int_eq(xck_vec_push(&t->ck, v, &r), 0);
}

/* A claim, and the same record in the rmapbt. */
static void own(struct tcheck *t, uint32_t s, uint32_t len, uint64_t owner,
		uint64_t off)
{
	push_claim(t, &t->ag.claims, s, len, owner, off);
	push_claim(t, &t->ag.rmaps, s, len, owner, off);
}

static void free_ext(struct tcheck *t, uint32_t s, uint32_t len)
{
	struct xfsj_alloc_rec r = { s, len };

	ck_assert_int_eq(xck_vec_push(&t->ck, &t->ag.bno_free, &r), 0);
	ck_assert_int_eq(xck_vec_push(&t->ck, &t->ag.cnt_free, &r), 0);
}

static uint32_t root_agino(const struct tcheck *t)
{
	return xfsj_ino_agino(t->ck.sb, t->ck.sb->rootino);
}

/*
 * AG 0 of a fixture filesystem, consistent: headers 0, free space roots
 * 1-2, inode btrees 3-4, rmapbt 5, refcountbt 6, AGFL 7-10, inode chunk
 * 16-23, inode 131's data 30-39, inode 132's 40-44; free 11-15, 24-29,
 * 45 to the AG's end.
 */
/* A 64 MiB filesystem of two AGs with rmapbt and reflink, and parent
 * pointers when @pptr; the check's state of AG 0 as mkfs left it. */
static void setup_feat(struct tcheck *t, bool pptr)
{
	struct xck_ag *ag = &t->ag;
	struct xck_chunk c = { 0 };
	struct xfsj_inobt_rec fr;
	struct xfsj_features feat;

	memset(t, 0, sizeof(*t));
	xfsj_features_default(&feat);
	feat.rmapbt = feat.reflink = true;
	feat.parent = pptr;
	fs_fixture_make_feat(&t->fx, 64 * MB, 4096, 2, &feat);
	t->cb.arg = t;
	t->cb.problem = on_problem;
	t->ck.fs = t->fx.fs;
	t->ck.sb = xfsj_fs_sb(t->fx.fs);
	t->ck.primary = *t->ck.sb;
	t->ck.cb = &t->cb;
	t->ck.res = &t->res;
	t->ck.ags = ag;
	t->ck.agcount = 1;
	xck_vec_init(&t->ck.dirents, sizeof(struct xck_dirent));
	xck_vec_init(&t->ck.pptrs, sizeof(struct xck_pptr));
	xck_vec_init(&t->ck.lossy, sizeof(struct xck_lossy));
	xck_vec_init(&t->ck.holders, sizeof(struct xck_lossy_holder));

	ag->agno = 0;
	ag->agblocks = xfsj_fs_ag_blocks(t->fx.fs, 0);
	{
		const struct { struct xck_vec *v; size_t esz; } tab[] = {
			{ &ag->claims, sizeof(struct xfsj_rmap_rec) },
			{ &ag->rmaps, sizeof(struct xfsj_rmap_rec) },
			{ &ag->bno_free, sizeof(struct xfsj_alloc_rec) },
			{ &ag->cnt_free, sizeof(struct xfsj_alloc_rec) },
			{ &ag->refcs, sizeof(struct xfsj_refc_rec) },
			{ &ag->chunks, sizeof(struct xck_chunk) },
			{ &ag->fino, sizeof(struct xfsj_inobt_rec) },
		};

		for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			xck_vec_init(tab[i].v, tab[i].esz);
	}
	ag->agf_ok = ag->agi_ok = ag->agfl_ok = true;
	for (int bt = 0; bt < XFSJ_BT__COUNT; bt++) {
		ag->tree_ok[bt] = true;
		ag->btblocks[bt] = 1;
	}

	own(t, 0, 1, XFSJ_RMAP_OWN_FS, 0);
	own(t, 1, 2, XFSJ_RMAP_OWN_AG, 0);
	own(t, 3, 2, XFSJ_RMAP_OWN_INOBT, 0);
	own(t, 5, 1, XFSJ_RMAP_OWN_AG, 0);
	own(t, 6, 1, XFSJ_RMAP_OWN_REFC, 0);
	own(t, 7, 4, XFSJ_RMAP_OWN_AG, 0);
	own(t, 16, 8, XFSJ_RMAP_OWN_INODES, 0);
	own(t, 30, 10, 131, 0);
	own(t, 40, 5, 132, 0);
	free_ext(t, 11, 5);
	free_ext(t, 24, 6);
	free_ext(t, 45, AGB - 45);

	ag->agf.freeblks = 5 + 6 + AGB - 45;
	ag->agf.longest = AGB - 45;
	ag->agf.flfirst = 0;
	ag->agf.fllast = 3;
	ag->agf.flcount = 4;
	ag->agf.btreeblks = 0;
	ag->agf.rmap_blocks = 1;
	ag->agf.refcount_blocks = 1;
	ag->agfl_n = 4;

	c.rec.startino = root_agino(t) & ~63U;
	c.rec.count = 64;
	c.rec.freecount = 64;
	c.rec.free = ~0ULL;
	c.ino = calloc(XFSJ_INODES_PER_CHUNK, sizeof(*c.ino));
	ck_assert_ptr_nonnull(c.ino);
	for (int k = 0; k < XFSJ_INODES_PER_CHUNK; k++) {
		c.ino[k].parent = XFSJ_NULLFSINO;
		c.ino[k].flags = XCK_I_SCANNED;
	}
	ck_assert_int_eq(xck_vec_push(&t->ck, &ag->chunks, &c), 0);
	fr = c.rec;
	ck_assert_int_eq(xck_vec_push(&t->ck, &ag->fino, &fr), 0);
	ag->agi.count = 64;
	ag->agi.freecount = 64;
	ag->agi.iblocks = 1;
	ag->agi.fblocks = 1;
	for (int b = 0; b < XFSJ_AGI_UNLINKED_BUCKETS; b++)
		ag->agi.unlinked[b] = XFSJ_NULLAGINO;
}

static void setup(struct tcheck *t)
{
	setup_feat(t, false);
}

static void teardown(struct tcheck *t)
{
	struct xck_ag *ag = &t->ag;

	for (size_t i = 0; i < ag->chunks.n; i++)
		free(((struct xck_chunk *)xck_vec_at(&ag->chunks, i))->ino);
	{
		struct xck_vec *const tab[] = {
			&ag->claims, &ag->rmaps, &ag->bno_free, &ag->cnt_free,
			&ag->refcs, &ag->chunks, &ag->fino, &t->ck.dirents,
			&t->ck.pptrs, &t->ck.lossy, &t->ck.holders,
		};

		for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			xck_vec_free(&t->ck, tab[i]);
	}
	fs_fixture_free(&t->fx);
}

/* The codes reported, sorted and joined by spaces, must be @want. */
static void expect(struct tcheck *t, const char *want)
{
	char got[1024] = "";
	unsigned int i, j;

	ck_assert_uint_le(t->n, 32);
	for (i = 1; i < t->n; i++)
		for (j = i; j > 0 && strcmp(t->codes[j - 1], t->codes[j]) > 0;
		     j--) {
			char tmp[48];

			memcpy(tmp, t->codes[j], sizeof(tmp));
			memcpy(t->codes[j], t->codes[j - 1], sizeof(tmp));
			memcpy(t->codes[j - 1], tmp, sizeof(tmp));
		}
	for (i = 0; i < t->n; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, t->codes[i]);
	}
	if (strcmp(got, want))
		for (i = 0; i < t->n && i < 32; i++) {
			char msg[256];

			xfsj_problem_format(&t->last[i], msg, sizeof(msg));
			fprintf(stderr, "  %s: %s\n", t->last[i].def->code, msg);
		}
	ck_assert_str_eq(got, want);
}

static void run_space(struct tcheck *t)
{
	ck_assert_int_eq(xck_space(&t->ck, &t->ag), 0);
}

/* The problem reported with code @code (there is one). */
static const struct xfsj_problem *find(struct tcheck *t, const char *code)
{
	for (unsigned int i = 0; i < t->n && i < 32; i++)
		if (!strcmp(t->last[i].def->code, code))
			return &t->last[i];
	ck_abort_msg("no %s", code);
	return NULL;
}

START_TEST(space_consistent_ag_is_clean)
{
	struct tcheck t;

	setup(&t);
	run_space(&t);
	expect(&t, "");
	ck_assert_uint_eq(t.ck.fdblocks, t.ag.agf.freeblks + 4);
	ck_assert_uint_eq(t.ck.icount, 64);
	ck_assert_uint_eq(t.ck.ifree, 64);
	teardown(&t);
}
END_TEST

/* Shrunk in both free space btrees and the AGF: only the leak tells. */
START_TEST(space_consistent_leak_is_found)
{
	struct tcheck t;
	struct xfsj_alloc_rec *b, *c;

	setup(&t);
	b = xck_vec_at(&t.ag.bno_free, 1);
	c = xck_vec_at(&t.ag.cnt_free, 1);
	b->blockcount = c->blockcount = 4;
	t.ag.agf.freeblks -= 2;
	run_space(&t);
	expect(&t, "space.leaked");
	ck_assert_uint_eq(find(&t, "space.leaked")->agbno, 28);
	ck_assert_uint_eq(find(&t, "space.leaked")->count, 2);
	teardown(&t);
}
END_TEST

START_TEST(space_block_owned_twice)
{
	struct tcheck t;
	const struct xfsj_problem *p;

	setup(&t);
	own(&t, 35, 2, XFSJ_RMAP_OWN_INODES, 0);
	run_space(&t);
	expect(&t, "space.multiply_claimed");
	p = find(&t, "space.multiply_claimed");
	ck_assert_uint_eq(p->agbno, 35);
	ck_assert_uint_eq(p->count, 2);
	ck_assert_ptr_nonnull(strstr(p->name, "inode 131 data"));
	teardown(&t);
}
END_TEST

/* Shared data (reflink) is legal exactly as the refcountbt says. */
START_TEST(space_reflink_sharing)
{
	struct tcheck t;
	struct xfsj_refc_rec r = { 32, 4, 2 };

	setup(&t);
	own(&t, 32, 4, 133, 2);
	run_space(&t);
	expect(&t, "refcount.shared");
	ck_assert_uint_eq(find(&t, "refcount.shared")->agbno, 32);
	ck_assert_uint_eq(find(&t, "refcount.shared")->expected, 2);
	ck_assert_uint_eq(find(&t, "refcount.shared")->found, 1);
	teardown(&t);

	setup(&t);
	own(&t, 32, 4, 133, 2);
	ck_assert_int_eq(xck_vec_push(&t.ck, &t.ag.refcs, &r), 0);
	run_space(&t);
	expect(&t, "");
	teardown(&t);

	/* An attr fork extent may not be shared. */
	setup(&t);
	own(&t, 32, 4, 133, XFSJ_RMAP_OFF_ATTR_FORK);
	ck_assert_int_eq(xck_vec_push(&t.ck, &t.ag.refcs, &r), 0);
	run_space(&t);
	expect(&t, "refcount.shared space.multiply_claimed");
	teardown(&t);

	/* Nor an unwritten extent: the kernel shares none. */
	setup(&t);
	own(&t, 32, 4, 133, XFSJ_RMAP_OFF_UNWRITTEN);
	ck_assert_int_eq(xck_vec_push(&t.ck, &t.ag.refcs, &r), 0);
	run_space(&t);
	expect(&t, "refcount.shared space.multiply_claimed");
	teardown(&t);
}
END_TEST

START_TEST(space_free_and_used)
{
	struct tcheck t;
	struct xfsj_alloc_rec *b;

	setup(&t);
	b = xck_vec_at(&t.ag.bno_free, 1);
	b->startblock = 22;	/* 22-27: 22 and 23 are the inode chunk's */
	b->blockcount = 8;	/* and 28, 29 in the cntbt only */
	run_space(&t);
	expect(&t, "space.free_and_used space.one_free_tree space.one_free_tree");
	ck_assert_uint_eq(find(&t, "space.free_and_used")->agbno, 22);
	ck_assert_uint_eq(find(&t, "space.free_and_used")->count, 2);
	teardown(&t);
}
END_TEST

START_TEST(space_free_trees_differ)
{
	struct tcheck t;

	setup(&t);
	t.ag.cnt_free.n--;	/* the big extent only in the bnobt */
	run_space(&t);
	/* The counters follow the cntbt, as xfs_repair's do. */
	expect(&t, "agf.counter agf.counter space.one_free_tree");
	ck_assert_str_eq(find(&t, "space.one_free_tree")->field, "bnobt");
	teardown(&t);
}
END_TEST

/* The rmapbt may cut a mapping anywhere; the file offsets must follow. */
START_TEST(space_rmap_canonical)
{
	struct tcheck t;
	struct xfsj_rmap_rec *r;

	setup(&t);
	r = xck_vec_at(&t.ag.rmaps, 7);		/* inode 131, 30+10 */
	r->blockcount = 4;
	push_claim(&t, &t.ag.rmaps, 34, 6, 131, 4);
	run_space(&t);
	expect(&t, "");
	teardown(&t);

	setup(&t);
	r = xck_vec_at(&t.ag.rmaps, 7);
	r->blockcount = 4;
	push_claim(&t, &t.ag.rmaps, 34, 6, 131, 5);
	run_space(&t);
	expect(&t, "rmapbt.extra rmapbt.extra rmapbt.missing");
	teardown(&t);

	/* A record of the wrong owner; one missing. */
	setup(&t);
	r = xck_vec_at(&t.ag.rmaps, 8);		/* inode 132 */
	r->owner = 134;
	/* In place of the refcountbt root's record. */
	*(struct xfsj_rmap_rec *)xck_vec_at(&t.ag.rmaps, 4) = *r;
	t.ag.rmaps.n--;
	run_space(&t);
	expect(&t, "rmapbt.extra rmapbt.missing rmapbt.missing");
	teardown(&t);
}
END_TEST

START_TEST(space_cow_leftover)
{
	struct tcheck t;
	struct xfsj_refc_rec r = { 50 | XFSJ_REFC_COWFLAG, 2, 1 };
	struct xfsj_alloc_rec *b, *c;
	struct xfsj_alloc_rec tail;

	setup(&t);
	tail.startblock = 52;
	tail.blockcount = t.ag.agblocks - 52;
	ck_assert_int_eq(xck_vec_push(&t.ck, &t.ag.refcs, &r), 0);
	push_claim(&t, &t.ag.rmaps, 50, 2, XFSJ_RMAP_OWN_COW, 0);
	b = xck_vec_at(&t.ag.bno_free, 2);
	c = xck_vec_at(&t.ag.cnt_free, 2);
	b->blockcount = c->blockcount = 5;
	ck_assert_int_eq(xck_vec_push(&t.ck, &t.ag.bno_free, &tail), 0);
	ck_assert_int_eq(xck_vec_push(&t.ck, &t.ag.cnt_free, &tail), 0);
	t.ag.agf.freeblks -= 2;
	t.ag.agf.longest = t.ag.agblocks - 52;
	run_space(&t);
	expect(&t, "refcountbt.cow_leftover");
	teardown(&t);
}
END_TEST

START_TEST(space_ag_counters)
{
	struct tcheck t;

	setup(&t);
	t.ag.agf.freeblks++;
	t.ag.agf.longest--;
	t.ag.agf.btreeblks = 3;
	t.ag.agf.flcount = 5;	/* fllast - flfirst + 1 = 4 */
	t.ag.agf.rmap_blocks = 2;
	t.ag.agi.count = 128;
	t.ag.agi.freecount = 0;
	t.ag.agi.iblocks = 0;
	run_space(&t);
	expect(&t, "agf.counter agf.counter agf.counter agf.counter "
		   "agf.counter agi.counter agi.counter agi.counter");
	teardown(&t);

	/* Two-level free space btrees: their leaves came from the AGFL. */
	setup(&t);
	t.ag.btblocks[XFSJ_BT_BNO] = 3;
	t.ag.btblocks[XFSJ_BT_CNT] = 2;
	t.ag.agf.btreeblks = 3;
	run_space(&t);
	expect(&t, "");
	ck_assert_uint_eq(t.ck.fdblocks, t.ag.agf.freeblks + 4 + 3);
	teardown(&t);
}
END_TEST

START_TEST(space_finobt)
{
	struct tcheck t;
	struct xfsj_inobt_rec *f;

	setup(&t);
	t.ag.fino.n = 0;
	run_space(&t);
	expect(&t, "finobt.mismatch");
	teardown(&t);

	setup(&t);
	f = xck_vec_at(&t.ag.fino, 0);
	f->free &= ~1ULL;
	run_space(&t);
	expect(&t, "finobt.mismatch");
	teardown(&t);
}
END_TEST

/* A damaged tree was reported by its walk: no cross-check repeats it. */
START_TEST(space_damaged_tree_not_compared)
{
	struct tcheck t;

	setup(&t);
	t.ag.tree_ok[XFSJ_BT_RMAP] = false;
	t.ag.rmaps.n = 0;
	t.ag.tree_ok[XFSJ_BT_BNO] = false;
	t.ag.bno_free.n = 0;
	run_space(&t);
	expect(&t, "");
	teardown(&t);
}
END_TEST

START_TEST(counters_sb)
{
	struct tcheck t;

	setup(&t);
	t.ck.icount = t.ck.sb->icount;
	t.ck.ifree = t.ck.sb->ifree;
	t.ck.fdblocks = t.ck.sb->fdblocks;
	ck_assert_int_eq(xck_counters(&t.ck), 0);
	expect(&t, "");
	t.ck.fdblocks++;
	t.ck.ifree++;
	ck_assert_int_eq(xck_counters(&t.ck), 0);
	expect(&t, "sb.counter sb.counter");
	t.n = 0;
	t.ck.totals_unknown = XCK_TOTAL_INODES | XCK_TOTAL_FDBLOCKS;
	ck_assert_int_eq(xck_counters(&t.ck), 0);
	expect(&t, "");
	teardown(&t);
}
END_TEST

/* ---- names ---- */

static struct xck_inode *slot(struct tcheck *t, unsigned int k)
{
	struct xck_chunk *c = xck_vec_at(&t->ag.chunks, 0);

	return &c->ino[(root_agino(t) & 63U) + k];
}

static uint64_t ino_of(struct tcheck *t, unsigned int k)
{
	return t->ck.sb->rootino + k;
}

static void inode_use(struct tcheck *t, unsigned int k, uint8_t ftype,
		      uint32_t nlink, int parent)
{
	struct xck_inode *st = slot(t, k);

	st->flags |= XCK_I_INUSE;
	st->ftype = ftype;
	st->nlink = nlink;
	st->gen = 100 + k;
	st->parent = parent < 0 ? XFSJ_NULLFSINO : ino_of(t, parent);
}

static void entry(struct tcheck *t, unsigned int dir, unsigned int child,
		  const char *name, uint8_t ftype)
{
	struct xck_dirent e = {
		.dir = ino_of(t, dir), .child = ino_of(t, child),
		.namehash = xfsj_da_hashname((const uint8_t *)name,
					     strlen(name)),
		.namelen = strlen(name), .ftype = ftype,
	};

	ck_assert_int_eq(xck_vec_push(&t->ck, &t->ck.dirents, &e), 0);
}

static void dir_entries(struct tcheck *t, unsigned int dir, unsigned int up)
{
	entry(t, dir, dir, ".", XFSJ_FT_DIR);
	entry(t, dir, up, "..", XFSJ_FT_DIR);
}

/* root (slot 0) holds dir a (1) holding file f (2); parent pointers
 * when @pptr. */
static void setup_names_feat(struct tcheck *t, bool pptr)
{
	setup_feat(t, pptr);
	inode_use(t, 0, XFSJ_FT_DIR, 3, 0);
	inode_use(t, 1, XFSJ_FT_DIR, 2, 0);
	inode_use(t, 2, XFSJ_FT_REG, 1, -1);
	dir_entries(t, 0, 0);
	entry(t, 0, 1, "a", XFSJ_FT_DIR);
	dir_entries(t, 1, 0);
	entry(t, 1, 2, "f", XFSJ_FT_REG);
}

static void setup_names(struct tcheck *t)
{
	setup_names_feat(t, false);
}

static void run_names(struct tcheck *t)
{
	ck_assert_int_eq(xck_names(&t->ck), 0);
}

START_TEST(names_consistent_is_clean)
{
	struct tcheck t;

	setup_names(&t);
	run_names(&t);
	expect(&t, "");
	ck_assert(slot(&t, 2)->flags & XCK_I_REACHED);
	teardown(&t);
}
END_TEST

/*
 * A clean table is counted in the scan's order (by directory), not
 * sorted by child; a table with something to report is counted again
 * after the sort, from zero, whatever the first pass had counted.
 */
START_TEST(names_counted_unsorted)
{
	struct tcheck t;
	const struct xck_dirent *e;

	setup_names(&t);
	entry(&t, 1, 2, "hard", XFSJ_FT_REG);
	slot(&t, 2)->nlink = 2;
	run_names(&t);
	expect(&t, "");
	e = t.ck.dirents.v;
	for (size_t i = 1; i < t.ck.dirents.n; i++)
		ck_assert_uint_le(e[i - 1].dir, e[i].dir);
	ck_assert_uint_eq(e[t.ck.dirents.n - 1].child, ino_of(&t, 2));
	ck_assert_uint_eq(slot(&t, 0)->refs, 3);
	ck_assert_uint_eq(slot(&t, 1)->refs, 2);
	ck_assert_uint_eq(slot(&t, 2)->refs, 2);
	ck_assert(slot(&t, 2)->flags & XCK_I_INDIR);
	ck_assert_uint_eq(slot(&t, 1)->named, 0);
	teardown(&t);

	/* The last entry's file type is wrong: counted again, once. */
	setup_names(&t);
	entry(&t, 1, 2, "hard", XFSJ_FT_SYMLINK);
	slot(&t, 2)->nlink = 2;
	run_names(&t);
	expect(&t, "dirent.ftype");
	ck_assert_uint_eq(slot(&t, 0)->refs, 3);
	ck_assert_uint_eq(slot(&t, 1)->refs, 2);
	ck_assert_uint_eq(slot(&t, 2)->refs, 2);
	ck_assert_uint_eq(slot(&t, 1)->named, 0);
	teardown(&t);

	/* A directory named twice, the second time last. */
	setup_names(&t);
	entry(&t, 1, 1, "again", XFSJ_FT_DIR);
	run_names(&t);
	ck_assert_ptr_nonnull(find(&t, "dir.parents"));
	ck_assert_uint_eq(slot(&t, 0)->refs, 3);
	ck_assert_uint_eq(slot(&t, 1)->named, 0);
	teardown(&t);

	/* On two threads: 6,000 hard links of f counted across both
	 * shares; then one of them of the wrong type, in the first. */
	for (int bad = 0; bad < 2; bad++) {
		setup_names(&t);
		t.ck.threads = 2;
		for (unsigned int i = 0; i < 6000; i++)
			entry(&t, 1, 2, "link",
			      bad && i == 10 ? XFSJ_FT_SYMLINK : XFSJ_FT_REG);
		slot(&t, 2)->nlink = 6001;
		run_names(&t);
		expect(&t, bad ? "dirent.ftype" : "");
		ck_assert_uint_eq(slot(&t, 2)->refs, 6001);
		ck_assert_uint_eq(slot(&t, 1)->refs, 2);
		ck_assert_uint_eq(slot(&t, 1)->named, 0);
		teardown(&t);
	}
}
END_TEST

START_TEST(names_link_counts)
{
	struct tcheck t;

	setup_names(&t);
	slot(&t, 2)->nlink = 0xffffffff;
	slot(&t, 1)->nlink = 3;
	run_names(&t);
	expect(&t, "inode.nlink inode.nlink");
	teardown(&t);

	/* A hard link counts; the inode is reached once. */
	setup_names(&t);
	entry(&t, 0, 2, "hard", XFSJ_FT_REG);
	slot(&t, 2)->nlink = 2;
	run_names(&t);
	expect(&t, "");
	teardown(&t);
}
END_TEST

START_TEST(names_entry_targets)
{
	struct tcheck t;

	setup_names(&t);
	entry(&t, 1, 3, "gone", XFSJ_FT_REG);	/* slot 3 is free */
	entry(&t, 1, 2, "g", XFSJ_FT_SYMLINK);	/* f is a file */
	slot(&t, 2)->nlink = 2;
	run_names(&t);
	expect(&t, "dirent.ftype dirent.target");
	ck_assert_str_eq(find(&t, "dirent.target")->field, "free");
	teardown(&t);
}
END_TEST

START_TEST(names_disconnected_and_loops)
{
	struct tcheck t;

	setup_names(&t);
	/* A file nobody names; a directory tree cut off at 4. */
	inode_use(&t, 3, XFSJ_FT_REG, 0, -1);
	inode_use(&t, 4, XFSJ_FT_DIR, 2, 0);
	inode_use(&t, 5, XFSJ_FT_REG, 1, -1);
	dir_entries(&t, 4, 0);
	entry(&t, 4, 5, "x", XFSJ_FT_REG);
	slot(&t, 4)->nlink = 1;		/* "." only: ".." names root */
	slot(&t, 0)->nlink = 4;		/* and 4's ".." */
	/* Two directories holding one another. */
	inode_use(&t, 6, XFSJ_FT_DIR, 3, 7);
	inode_use(&t, 7, XFSJ_FT_DIR, 3, 6);
	dir_entries(&t, 6, 7);
	dir_entries(&t, 7, 6);
	entry(&t, 6, 7, "b", XFSJ_FT_DIR);
	entry(&t, 7, 6, "c", XFSJ_FT_DIR);
	run_names(&t);
	expect(&t, "dir.loop inode.disconnected inode.disconnected");
	teardown(&t);
}
END_TEST

START_TEST(names_two_parents)
{
	struct tcheck t;

	setup_names(&t);
	inode_use(&t, 3, XFSJ_FT_DIR, 2, 0);
	dir_entries(&t, 3, 0);
	entry(&t, 0, 3, "b", XFSJ_FT_DIR);
	slot(&t, 0)->nlink = 4;
	entry(&t, 3, 1, "again", XFSJ_FT_DIR);	/* a is in root too */
	slot(&t, 1)->nlink = 3;
	slot(&t, 3)->parent = ino_of(&t, 1);	/* and b's ".." is wrong */
	run_names(&t);
	expect(&t, "dir.parents names.dotdot");
	teardown(&t);
}
END_TEST

static void pptr(struct tcheck *t, unsigned int child, unsigned int parent,
		 const char *name, uint32_t gen);

/*
 * A directory named twice in one directory: a stale entry (a file's, its
 * removal lost, the inode number reused for a directory made there) and
 * the directory's own.  The one whose file type agrees stays, and with
 * parent pointers the one its pointer names, whichever sorts first.
 */
static uint32_t hash_of(const char *name)
{
	return xfsj_da_hashname((const uint8_t *)name, strlen(name));
}

START_TEST(names_named_twice_in_one_directory)
{
	const char *lo = "f38", *hi = "d7";
	const struct xfsj_problem *p;
	struct tcheck t;

	if (hash_of(lo) > hash_of(hi)) {
		lo = "d7";
		hi = "f38";
	}
	setup_names(&t);
	inode_use(&t, 3, XFSJ_FT_DIR, 2, 0);
	dir_entries(&t, 3, 0);
	entry(&t, 0, 3, lo, XFSJ_FT_REG);	/* stale, sorts first */
	entry(&t, 0, 3, hi, XFSJ_FT_DIR);
	slot(&t, 0)->nlink = 4;
	run_names(&t);
	expect(&t, "dir.parents dirent.ftype inode.nlink");
	p = find(&t, "dir.parents");
	ck_assert_uint_eq(p->off, ino_of(&t, 0));
	ck_assert(p->has & XFSJ_PF_FOUND);
	ck_assert_uint_eq(p->found, hash_of(hi));
	teardown(&t);

	setup_names_feat(&t, true);
	ck_assert(xfsj_fs_has_incompat(t.ck.fs, XFSJ_INCOMPAT_PARENT));
	pptr(&t, 1, 0, "a", 100);
	pptr(&t, 2, 1, "f", 101);
	inode_use(&t, 3, XFSJ_FT_DIR, 2, 0);
	dir_entries(&t, 3, 0);
	entry(&t, 0, 3, lo, XFSJ_FT_DIR);	/* both agree on the type */
	entry(&t, 0, 3, hi, XFSJ_FT_DIR);
	pptr(&t, 3, 0, hi, 100);
	slot(&t, 0)->nlink = 4;
	run_names(&t);
	expect(&t, "dir.parents inode.nlink pptr.missing");
	ck_assert_uint_eq(find(&t, "dir.parents")->found, hash_of(hi));
	teardown(&t);
}
END_TEST

START_TEST(names_unlinked_lists)
{
	struct tcheck t;
	uint32_t agino;

	setup_names(&t);
	inode_use(&t, 3, XFSJ_FT_REG, 0, -1);
	agino = xfsj_ino_agino(t.ck.sb, ino_of(&t, 3));
	t.ag.agi.unlinked[agino % 64] = agino;
	run_names(&t);
	/* The inode's next pointer on disk is NULLAGINO (mkfs). */
	expect(&t, "agi.unlinked_pending");
	ck_assert_uint_eq(find(&t, "agi.unlinked_pending")->count, 1);
	teardown(&t);

	setup_names(&t);
	agino = xfsj_ino_agino(t.ck.sb, ino_of(&t, 2));	/* nlink 1 */
	t.ag.agi.unlinked[(agino + 1) % 64] = agino;	/* wrong bucket */
	agino = xfsj_ino_agino(t.ck.sb, ino_of(&t, 5));	/* free */
	t.ag.agi.unlinked[agino % 64] = agino;
	run_names(&t);
	expect(&t, "agi.unlinked_list agi.unlinked_list "
		   "agi.unlinked_pending inode.unlinked_nlink");
	teardown(&t);
}
END_TEST

static void pptr(struct tcheck *t, unsigned int child, unsigned int parent,
		 const char *name, uint32_t gen)
{
	struct xck_pptr p = {
		.child = ino_of(t, child), .parent = ino_of(t, parent),
		.namehash = xfsj_da_hashname((const uint8_t *)name,
					     strlen(name)),
		.namelen = strlen(name), .parent_gen = gen,
	};

	ck_assert_int_eq(xck_vec_push(&t->ck, &t->ck.pptrs, &p), 0);
}

START_TEST(names_parent_pointers)
{
	struct tcheck t;

	setup_names_feat(&t, true);
	ck_assert(xfsj_fs_has_incompat(t.ck.fs, XFSJ_INCOMPAT_PARENT));
	pptr(&t, 1, 0, "a", 100);
	pptr(&t, 2, 1, "f", 101);
	run_names(&t);
	expect(&t, "");
	teardown(&t);

	setup_names_feat(&t, true);
	pptr(&t, 1, 0, "a", 99);	/* stale generation */
	pptr(&t, 2, 1, "g", 101);	/* no such entry; "f" has none */
	run_names(&t);
	expect(&t, "pptr.extra pptr.gen pptr.missing");
	teardown(&t);
}
END_TEST

/*
 * Directory a (5) lost its block (noted as problem 42): its file f (6)
 * and subdirectory g (7) are short of a link, f's and g's parent
 * pointers have no entry, both are cut off, a's own "." is gone and so is
 * g's ".." (a's link count) and a's ".." (the root's).  Each of those
 * names problem 42 as its cause; a file h (8) of the root with a wrong
 * link count of its own names none.  (Slots 1 and 2 are the fixture's
 * realtime inodes.)
 */
START_TEST(names_causes)
{
	struct tcheck t;
	unsigned int caused = 0, i;

	setup_feat(&t, true);
	inode_use(&t, 0, XFSJ_FT_DIR, 3, 0);
	inode_use(&t, 5, XFSJ_FT_DIR, 3, -1);
	inode_use(&t, 6, XFSJ_FT_REG, 1, -1);
	inode_use(&t, 7, XFSJ_FT_DIR, 2, 5);
	inode_use(&t, 8, XFSJ_FT_REG, 2, -1);
	dir_entries(&t, 0, 0);
	entry(&t, 0, 5, "a", XFSJ_FT_DIR);
	entry(&t, 0, 8, "h", XFSJ_FT_REG);
	entry(&t, 7, 7, ".", XFSJ_FT_DIR);
	entry(&t, 7, 5, "..", XFSJ_FT_DIR);
	pptr(&t, 5, 0, "a", 100);
	pptr(&t, 6, 5, "f", 105);
	pptr(&t, 7, 5, "g", 105);
	pptr(&t, 8, 0, "h", 100);
	ck_assert_int_eq(xck_note_lossy(&t.ck, ino_of(&t, 5), 42), 0);
	ck_assert_int_eq(xck_note_lossy(&t.ck, ino_of(&t, 5), 44), 0);
	t.ck.next_id = 43;
	run_names(&t);
	for (i = 0; i < t.n; i++) {
		const struct xfsj_problem *p = &t.last[i];

		ck_assert_uint_eq(p->id, 43 + i);
		if (p->ino == ino_of(&t, 8)) {
			ck_assert_str_eq(p->def->code, "inode.nlink");
			ck_assert(!(p->has & XFSJ_PF_CAUSE));
			continue;
		}
		ck_assert_msg(p->has & XFSJ_PF_CAUSE, "%s of %llu has no cause",
			      p->def->code, (unsigned long long)p->ino);
		ck_assert_uint_eq(p->cause, 42);
		caused++;
	}
	/* nlink of 0, 5, 6, 7; pptr.extra of 6, 7; 6 and 7 cut off */
	ck_assert_uint_eq(caused, 8);
	ck_assert_uint_eq(t.n, 9);
	teardown(&t);
}
END_TEST

/* No entries at all: the directories were not read; judge nothing. */
START_TEST(names_without_entries)
{
	struct tcheck t;

	setup(&t);
	inode_use(&t, 0, XFSJ_FT_DIR, 2, 0);
	inode_use(&t, 5, XFSJ_FT_REG, 1, -1);
	run_names(&t);
	expect(&t, "");
	teardown(&t);
}
END_TEST

/* An inobt not read whole hides inodes: no count or tree is judged. */
START_TEST(names_incomplete_inodes)
{
	struct tcheck t;

	setup_names(&t);
	t.ag.tree_ok[XFSJ_BT_INO] = false;
	slot(&t, 2)->nlink = 5;
	inode_use(&t, 3, XFSJ_FT_REG, 1, -1);
	entry(&t, 1, 70, "elsewhere", XFSJ_FT_REG);	/* no chunk */
	run_names(&t);
	expect(&t, "");
	teardown(&t);
}
END_TEST

static void on_problem_count(void *arg, const struct xfsj_problem *p)
{
	(void)p;
	(*(unsigned int *)arg)++;
}

/* A fresh filesystem, with reflink and rmapbt, checks clean whole. */
START_TEST(check_fresh_filesystem_clean)
{
	struct fs_fixture fx;
	unsigned int n = 0;
	struct xfsj_check_cb cb = { .arg = &n, .problem = on_problem_count };
	struct xfsj_check_result res;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	ck_assert_int_eq(xfsj_check(fx.fs, NULL, &cb, &res), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(res.problems, 0);
	fs_fixture_free(&fx);
}
END_TEST

Suite *check_space_suite(void)
{
	Suite *s = suite_create("check_space");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, space_consistent_ag_is_clean);
	tcase_add_test(tc, space_consistent_leak_is_found);
	tcase_add_test(tc, space_block_owned_twice);
	tcase_add_test(tc, space_reflink_sharing);
	tcase_add_test(tc, space_free_and_used);
	tcase_add_test(tc, space_free_trees_differ);
	tcase_add_test(tc, space_rmap_canonical);
	tcase_add_test(tc, space_cow_leftover);
	tcase_add_test(tc, space_ag_counters);
	tcase_add_test(tc, space_finobt);
	tcase_add_test(tc, space_damaged_tree_not_compared);
	tcase_add_test(tc, counters_sb);
	tcase_add_test(tc, names_consistent_is_clean);
	tcase_add_test(tc, names_counted_unsorted);
	tcase_add_test(tc, names_link_counts);
	tcase_add_test(tc, names_entry_targets);
	tcase_add_test(tc, names_disconnected_and_loops);
	tcase_add_test(tc, names_two_parents);
	tcase_add_test(tc, names_named_twice_in_one_directory);
	tcase_add_test(tc, names_unlinked_lists);
	tcase_add_test(tc, names_parent_pointers);
	tcase_add_test(tc, names_causes);
	tcase_add_test(tc, names_without_entries);
	tcase_add_test(tc, names_incomplete_inodes);
	tcase_add_test(tc, check_fresh_filesystem_clean);
	suite_add_tcase(s, tc);
	return s;
}
