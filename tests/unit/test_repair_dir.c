/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directory writer (fs/dir_write.c) on the fixture filesystem: N
 * entries written in each format (short form, one block, leaf, node of
 * one level, node of two levels with two free index blocks), read back
 * by the checker's directory walker (check/dir*.c), which must find
 * every entry and no problem; the old blocks of a rewritten directory
 * leave its fork.  And dirent.ftype fixed in a short form
 * (repair/fix_dir.c), and names.dotdot in each format
 * (repair/fix_dotdot.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "fs_fixture.h"
#include "check/dir_priv.h"
#include "fs/alloc.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/iget.h"
#include "repair/repair_priv.h"
#include "row_fixture.h"

struct env {
	struct fs_fixture fx;
	struct xck ck;
	struct xfsj_check_result res;
	struct xfsj_check_cb cb;
	unsigned int problems;
	uint64_t dir;
};

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	unsigned int *n = arg;

	(void)p;
	(*n)++;
}

static void env_make(struct env *e)
{
	const struct xfsj_sb *sb;
	struct xfsj_iref ip;

	memset(e, 0, sizeof(*e));
	fs_fixture_make(&e->fx, 64ULL << 20, 4096, 0, true, false);
	e->cb.arg = &e->problems;
	e->cb.problem = on_problem;
	sb = xfsj_fs_sb(e->fx.fs);
	e->ck = (struct xck){ .fs = e->fx.fs, .sb = sb, .cb = &e->cb,
			      .res = &e->res, .agcount = sb->agcount,
			      .ags = calloc(sb->agcount, sizeof(*e->ck.ags)) };
	ck_assert_ptr_nonnull(e->ck.ags);
	/* The walker asks only whether inode numbers are inside an AG. */
	for (uint32_t a = 0; a < sb->agcount; a++)
		e->ck.ags[a] = (struct xck_ag){ .agno = a,
			.agblocks = xfsj_fs_ag_blocks(e->fx.fs, a) };
	xck_vec_init(&e->ck.dirents, sizeof(struct xck_dirent));
	xck_vec_init(&e->ck.lossy, sizeof(struct xck_lossy));
	/* A free inode of the root's chunk made an empty directory. */
	e->dir = fs_fixture_make_file(&e->fx, 5, 1, 0, 0, &ip);
	ip.di.mode = 040755;
	ip.di.nlink = 2;
	xfsj_iput(e->fx.fs, &ip, true);
}

static void env_free(struct env *e)
{
	xck_dir_scratch_free(&e->ck);
	xck_vec_free(&e->ck, &e->ck.dirents);
	xck_vec_free(&e->ck, &e->ck.lossy);
	free(e->ck.ags);
	fs_fixture_free(&e->fx);
}

/* Walk the directory back with the checker: its format, and its ".."
 * in *@parent. */
static int walk_parent(struct env *e, uint64_t *parent)
{
	struct xck_inode st = { .parent = XFSJ_NULLFSINO };
	struct xck_icheck ic = { .ino = e->dir, .st = &st };
	struct xfsj_bmbt_irec *ext = NULL;
	struct xfsj_iref ip;
	size_t n = 0;

	ck_assert_int_eq(xfsj_iget(e->fx.fs, e->dir, true, &ip, &e->fx.f), 0);
	if (ip.di.format != XFSJ_DINODE_FMT_LOCAL)
		ck_assert_int_eq(xfsj_bmap_read(e->fx.fs, &ip, XFSJ_DATA_FORK,
						&ext, &n, &e->fx.f), 0);
	ic.dip = ip.dip;
	ic.di = ip.di;
	ic.map[0] = ext;
	ic.nmap[0] = n;
	ic.fork[0] = xfsj_ifork(e->fx.fs, &ip, XFSJ_DATA_FORK,
				&ic.forksize[0]);
	e->problems = 0;
	e->ck.dirents.n = 0;
	ck_assert_int_eq(xck_dir(&e->ck, &ic), 0);
	*parent = st.parent;
	free(ext);
	return ip.di.format;
}

/* Walk the directory back: its format; its ".." must be the root. */
static int walk_back(struct env *e)
{
	uint64_t parent;
	int format = walk_parent(e, &parent);

	ck_assert_uint_eq(parent, e->ck.sb->rootino);
	return format;
}

/* @n entries named "entry_NNNN" (long names with @pad), children of
 * the 1,000 numbers after the directory's. */
static struct xfsj_dirent *entries(struct env *e, size_t n, int pad,
				   char (**names)[64])
{
	struct xfsj_dirent *d = calloc(n, sizeof(*d));

	*names = calloc(n, sizeof(**names));
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(*names);
	for (size_t i = 0; i < n; i++) {
		snprintf((*names)[i], sizeof((*names)[i]), "entry_%0*zu",
			 pad, i);
		d[i] = (struct xfsj_dirent){ (*names)[i],
			(uint8_t)strlen((*names)[i]),
			i % 3 ? XFSJ_FT_REG : XFSJ_FT_DIR,
			e->dir + 1 + i % 1000 };
	}
	return d;
}

static void write_and_walk(struct env *e, size_t n, int pad, int format,
			   uint64_t size)
{
	char (*names)[64];
	struct xfsj_dirent *d = entries(e, n, pad, &names);
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_dir_write(e->fx.fs, e->dir, e->ck.sb->rootino,
				       d, n, false, &e->fx.f), 0);
	/* Flushed (the CRCs stamped), then read back from the disk. */
	fs_fixture_reopen(&e->fx);
	e->ck.fs = e->fx.fs;
	e->ck.sb = xfsj_fs_sb(e->fx.fs);
	ck_assert_int_eq(walk_back(e), format);
	ck_assert_uint_eq(e->problems, 0);
	ck_assert_uint_eq(e->ck.dirents.n, n + 2);
	ck_assert_int_eq(xfsj_iget(e->fx.fs, e->dir, true, &ip, &e->fx.f), 0);
	if (size)
		ck_assert_uint_eq(ip.di.size, size);
	free(d);
	free(names);
}

START_TEST(each_format)
{
	struct env e;
	uint32_t bs;

	env_make(&e);
	bs = e.ck.sb->blocksize << e.ck.sb->dirblklog;
	write_and_walk(&e, 3, 4, XFSJ_DINODE_FMT_LOCAL, 0);
	write_and_walk(&e, 40, 4, XFSJ_DINODE_FMT_EXTENTS, bs);
	write_and_walk(&e, 300, 40, XFSJ_DINODE_FMT_EXTENTS, 0);
	/* Back down: the leaf directory's blocks leave the fork. */
	write_and_walk(&e, 2, 4, XFSJ_DINODE_FMT_LOCAL, 0);
	{
		struct xfsj_iref ip;

		ck_assert_int_eq(xfsj_iget(e.fx.fs, e.dir, true, &ip,
					   &e.fx.f), 0);
		ck_assert_uint_eq(ip.di.nblocks, 0);
		ck_assert_uint_eq(xfsj_dinode_nextents(&ip.di), 0);
	}
	env_free(&e);
}
END_TEST

START_TEST(node_format)
{
	struct env e;
	char (*names)[64];
	struct xfsj_dirent *d;

	env_make(&e);
	/* More leaf entries than one leaf block holds: the node format. */
	d = entries(&e, 600, 50, &names);
	ck_assert(xfsj_dir_fits(e.ck.sb, d, 600));
	ck_assert(!xfsj_dir_fits_block(e.ck.sb, d, 600));
	free(d);
	free(names);
	write_and_walk(&e, 600, 50, XFSJ_DINODE_FMT_EXTENTS, 0);
	write_and_walk(&e, 1500, 50, XFSJ_DINODE_FMT_EXTENTS, 0);
	env_free(&e);
}
END_TEST

/* The directory written with @n entries, read back: @n names and no
 * problem, in extents format. */
static void written_holds(struct env *e, size_t n)
{
	fs_fixture_reopen(&e->fx);
	e->ck.fs = e->fx.fs;
	e->ck.sb = xfsj_fs_sb(e->fx.fs);
	ck_assert_int_eq(walk_back(e), XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(e->problems, 0);
	ck_assert_uint_eq(e->ck.dirents.n, n + 2);
}

/*
 * A rewrite that fails half way leaves the directory as it was: the new
 * blocks are written beside the old ones, which leave the fork only once
 * every new block is in.  Here AG 0's free space btrees fail verification
 * (their roots' magic), so the first allocation fails: the old leaf
 * directory keeps its 300 names, whether its old blocks would have been
 * freed or kept.  (Before, the old blocks left first: the fork came back
 * empty.)
 */
START_TEST(failed_write_keeps_old)
{
	for (int keep = 0; keep < 2; keep++) {
		struct env e;
		char (*names)[64];
		struct xfsj_dirent *d;
		struct xfsj_buf *bp;
		uint32_t bno, cnt, bs;
		uint64_t root;

		env_make(&e);
		d = entries(&e, 400, 40, &names);
		ck_assert_int_eq(xfsj_dir_write(e.fx.fs, e.dir,
					       e.ck.sb->rootino, d, 300,
					       false, &e.fx.f), 0);
		written_holds(&e, 300);
		ck_assert_int_eq(xfsj_agf_read(e.fx.fs, 0, &bp, &e.fx.f), 0);
		bno = xfsj_get_be32(bp->data + 16);
		cnt = xfsj_get_be32(bp->data + 20);
		bs = e.ck.sb->blocksize;
		root = e.ck.sb->rootino;
		overlay_xor(&e.fx, (uint64_t)bno * bs, 0x40);
		overlay_xor(&e.fx, (uint64_t)cnt * bs, 0x40);
		memset(&e.fx.f, 0, sizeof(e.fx.f));
		ck_assert_int_ne(xfsj_dir_write(e.fx.fs, e.dir, root, d, 400,
					       keep, &e.fx.f), 0);
		written_holds(&e, 300);
		free(d);
		free(names);
		env_free(&e);
	}
}
END_TEST

/*
 * No room for the new blocks beside the old ones (every free block of
 * every AG taken): the rewrite falls back to writing in place, the old
 * blocks freed first, and succeeds.
 */
START_TEST(full_fs_writes_in_place)
{
	struct env e;
	char (*names)[64];
	struct xfsj_dirent *d;

	env_make(&e);
	d = entries(&e, 300, 40, &names);
	ck_assert_int_eq(xfsj_dir_write(e.fx.fs, e.dir, e.ck.sb->rootino, d,
				       300, false, &e.fx.f), 0);
	written_holds(&e, 300);
	fs_fixture_fill(&e.fx);
	/* Half the names renamed: the same number of blocks. */
	for (size_t i = 0; i < 300; i += 2)
		names[i][0] = 'E';
	memset(&e.fx.f, 0, sizeof(e.fx.f));
	ck_assert_int_eq(xfsj_dir_write(e.fx.fs, e.dir, e.ck.sb->rootino, d,
				       300, false, &e.fx.f), 0);
	written_holds(&e, 300);
	free(d);
	free(names);
	env_free(&e);
}
END_TEST

/* The 32-bit big-endian field at @off of the directory block at file
 * block @fileoff. */
static uint32_t block_field(struct env *e, uint64_t fileoff, uint32_t off,
			    bool half)
{
	struct xfsj_bmbt_irec *ext = NULL;
	struct xfsj_buf *bp;
	struct xfsj_iref ip;
	uint32_t v = UINT32_MAX;
	size_t n = 0;

	ck_assert_int_eq(xfsj_iget(e->fx.fs, e->dir, true, &ip, &e->fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_read(e->fx.fs, &ip, XFSJ_DATA_FORK, &ext,
					&n, &e->fx.f), 0);
	for (size_t i = 0; i < n; i++) {
		if (fileoff < ext[i].startoff ||
		    fileoff >= ext[i].startoff + ext[i].blockcount)
			continue;
		ck_assert_int_eq(xfsj_buf_read(e->fx.fs, xfsj_fsb_daddr(
				e->ck.sb, ext[i].startblock + fileoff -
				ext[i].startoff), e->ck.sb->blocksize, &bp),
				 0);
		v = half ? xfsj_get_be16(bp->data + off) :
			   xfsj_get_be32(bp->data + off);
	}
	free(ext);
	return v;
}

START_TEST(two_levels)
{
	struct env e;
	uint64_t leaf0, free0;
	/* 4 KiB blocks: 504 leaf entries a leaf, 504 leaves a node, 2,016
	 * bests a free index block; names of 36 bytes, 84 to a block. */
	size_t n = 255000;

	env_make(&e);
	leaf0 = XFSJ_DIR2_LEAF_OFFSET >> e.ck.sb->blocklog;
	free0 = XFSJ_DIR2_FREE_OFFSET >> e.ck.sb->blocklog;
	write_and_walk(&e, n, 30, XFSJ_DINODE_FMT_EXTENTS, 0);
	ck_assert_uint_eq(block_field(&e, leaf0, XFSJ_DA3_NODE_OFF_LEVEL,
				      true), 2);
	ck_assert_uint_eq(block_field(&e, leaf0, XFSJ_DA3_NODE_OFF_COUNT,
				      true), 2);
	ck_assert_uint_eq(block_field(&e, free0 + 1, 48, false), 2016);
	ck_assert_uint_eq(block_field(&e, free0 + 2, 48, false), UINT32_MAX);
	env_free(&e);
}
END_TEST

/* The extents mapping file blocks [@from, @to) of the directory. */
static size_t extents_in(struct env *e, uint64_t from, uint64_t to)
{
	struct xfsj_bmbt_irec *ext = NULL;
	struct xfsj_iref ip;
	size_t n = 0, k = 0;

	ck_assert_int_eq(xfsj_iget(e->fx.fs, e->dir, true, &ip, &e->fx.f), 0);
	ck_assert_int_eq(xfsj_bmap_read(e->fx.fs, &ip, XFSJ_DATA_FORK, &ext,
					&n, &e->fx.f), 0);
	for (size_t i = 0; i < n; i++)
		k += ext[i].startoff >= from && ext[i].startoff < to;
	free(ext);
	return k;
}

/*
 * The directory's AG holds only one-block holes, the other AGs whole free
 * extents: a node directory rewritten there is mapped a region at a time
 * (its data blocks in one extent from another AG), where a block at a
 * time took one hole per block (an extent and a fork rewrite each).
 */
START_TEST(mapped_in_runs)
{
	struct env e;
	uint64_t *blk = NULL, leaf0, free0;
	size_t n = 0, cap = 0;
	uint32_t agno, agbno;

	env_make(&e);
	agno = xfsj_ino_agno(e.ck.sb, e.dir);
	while (xfsj_alloc_extent(e.fx.fs, agno, 0, 1, NULL, &agbno,
				 &e.fx.f) == 0) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			blk = realloc(blk, cap * sizeof(*blk));
			ck_assert_ptr_nonnull(blk);
		}
		blk[n++] = agbno;
	}
	ck_assert_uint_gt(n, 1000);
	for (size_t i = 0; i < n; i += 2)
		ck_assert_int_eq(xfsj_free_extent(e.fx.fs, agno,
						  (uint32_t)blk[i], 1, NULL,
						  &e.fx.f), 0);
	free(blk);
	memset(&e.fx.f, 0, sizeof(e.fx.f));
	leaf0 = XFSJ_DIR2_LEAF_OFFSET >> e.ck.sb->blocklog;
	free0 = XFSJ_DIR2_FREE_OFFSET >> e.ck.sb->blocklog;
	write_and_walk(&e, 20000, 30, XFSJ_DINODE_FMT_EXTENTS, 0);
	ck_assert_uint_eq(extents_in(&e, 0, leaf0), 1);
	ck_assert_uint_eq(extents_in(&e, leaf0, free0), 1);
	ck_assert_uint_eq(extents_in(&e, free0, UINT64_MAX), 1);
	env_free(&e);
}
END_TEST

/* The file type of the short-form entry naming @ino (0: none). */
static uint8_t sf_type_of(struct env *e, uint64_t ino)
{
	struct xfsj_iref ip;
	uint32_t fsz;
	const uint8_t *f;
	uint64_t pos;

	ck_assert_int_eq(xfsj_iget(e->fx.fs, e->dir, true, &ip, &e->fx.f), 0);
	f = xfsj_ifork(e->fx.fs, &ip, XFSJ_DATA_FORK, &fsz);
	pos = 2 + (f[1] ? 8 : 4);
	for (unsigned int i = 0; i < f[0]; i++) {
		uint64_t end = pos + 3 + f[pos] + 1 + (f[1] ? 8 : 4);
		uint64_t child = f[1] ? xfsj_get_be64(f + end - 8) :
					xfsj_get_be32(f + end - 4);

		if (child == ino)
			return f[pos + 3 + f[pos]];
		pos = end;
	}
	return 0;
}

/* dirent.ftype in a short form: the entry naming the child with the
 * type found gets the type expected; another type found changes none. */
START_TEST(sf_dirent_ftype)
{
	struct env e;
	char (*names)[64];
	struct xfsj_dirent *d;
	struct xfsj_iref ip;
	struct xrp rp;
	struct xrp_prob pr = { 0 };

	env_make(&e);
	d = entries(&e, 3, 4, &names);
	ck_assert_int_eq(xfsj_dir_write(e.fx.fs, e.dir, e.ck.sb->rootino, d, 3,
				       false, &e.fx.f), 0);
	rp = (struct xrp){ .fs = e.fx.fs, .sb = e.ck.sb };
	pr.p.ino = e.dir;
	pr.p.off = d[1].ino;
	pr.p.found = XFSJ_FT_DIR;		/* entry 1 is a regular file */
	pr.p.expected = XFSJ_FT_SYMLINK;
	ck_assert_int_eq(xfsj_iget(e.fx.fs, e.dir, true, &ip, &e.fx.f), 0);
	ck_assert_int_eq(xrp_sf_dirent_ftype(&rp, &pr, &ip), 0);
	ck_assert_uint_eq(sf_type_of(&e, d[1].ino), XFSJ_FT_REG);
	pr.p.found = XFSJ_FT_REG;
	ck_assert_int_eq(xfsj_iget(e.fx.fs, e.dir, true, &ip, &e.fx.f), 0);
	ck_assert_int_eq(xrp_sf_dirent_ftype(&rp, &pr, &ip), 1);
	ck_assert_uint_eq(sf_type_of(&e, d[1].ino), XFSJ_FT_SYMLINK);
	ck_assert_uint_eq(sf_type_of(&e, d[0].ino), XFSJ_FT_DIR);
	ck_assert_uint_eq(sf_type_of(&e, d[2].ino), XFSJ_FT_REG);
	free(d);
	free(names);
	env_free(&e);
}
END_TEST

/*
 * names.dotdot: the directory's ".." (the root) set to another directory,
 * the one the problem says holds it, in short form, block and leaf
 * directories; the entries stay.  A holder that is not a directory
 * changes nothing.
 */
START_TEST(dotdot_each_format)
{
	static const struct { size_t n; int pad, format; } cases[] = {
		{ 3, 4, XFSJ_DINODE_FMT_LOCAL },
		{ 40, 4, XFSJ_DINODE_FMT_EXTENTS },
		{ 300, 40, XFSJ_DINODE_FMT_EXTENTS },
	};
	struct xfsj_repair_result res = { 0 };
	struct xfsj_repair_cb cb = { 0 };

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct env e;
		char (*names)[64];
		struct xfsj_dirent *d;
		struct xfsj_iref ip;
		struct xrp rp;
		struct xrp_prob pr = { 0 };
		uint64_t holder, file, parent;

		env_make(&e);
		holder = fs_fixture_make_file(&e.fx, 6, 1, 0, 0, &ip);
		ip.di.mode = 040755;
		ip.di.nlink = 2;
		xfsj_iput(e.fx.fs, &ip, true);
		file = fs_fixture_make_file(&e.fx, 7, 1, 0, 0, &ip);
		d = entries(&e, cases[c].n, cases[c].pad, &names);
		ck_assert_int_eq(xfsj_dir_write(e.fx.fs, e.dir,
					       e.ck.sb->rootino, d, cases[c].n,
					       false, &e.fx.f), 0);
		fs_fixture_reopen(&e.fx);
		e.ck.fs = e.fx.fs;
		e.ck.sb = xfsj_fs_sb(e.fx.fs);
		rp = (struct xrp){ .fs = e.fx.fs, .sb = e.ck.sb, .res = &res,
				   .cb = &cb };
		pr.p.has = XFSJ_PF_INO | XFSJ_PF_FOUND | XFSJ_PF_EXPECTED;
		pr.p.ino = e.dir;
		pr.p.found = e.ck.sb->rootino;
		/* Not a directory: left. */
		pr.p.expected = file;
		ck_assert_int_eq(xrp_fix_dotdot(&rp, &pr), 0);
		ck_assert(!pr.done);
		ck_assert_int_eq(walk_parent(&e, &parent), cases[c].format);
		ck_assert_uint_eq(parent, e.ck.sb->rootino);
		pr.p.expected = holder;
		ck_assert_int_eq(xrp_fix_dotdot(&rp, &pr), 0);
		ck_assert(pr.done);
		ck_assert(rp.recheck);
		/* Flushed, then read back from the disk. */
		fs_fixture_reopen(&e.fx);
		e.ck.fs = e.fx.fs;
		e.ck.sb = xfsj_fs_sb(e.fx.fs);
		ck_assert_int_eq(walk_parent(&e, &parent), cases[c].format);
		ck_assert_uint_eq(parent, holder);
		ck_assert_uint_eq(e.problems, 0);
		ck_assert_uint_eq(e.ck.dirents.n, cases[c].n + 2);
		free(d);
		free(names);
		env_free(&e);
	}
	ck_assert_uint_eq(res.fields_fixed, 3);
}
END_TEST

Suite *repair_dir_suite(void)
{
	Suite *s = suite_create("repair_dir");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, each_format);
	tcase_add_test(tc, node_format);
	tcase_add_test(tc, failed_write_keeps_old);
	tcase_add_test(tc, full_fs_writes_in_place);
	tcase_add_test(tc, two_levels);
	tcase_add_test(tc, mapped_in_runs);
	tcase_add_test(tc, sf_dirent_ftype);
	tcase_add_test(tc, dotdot_each_format);
	suite_add_tcase(s, tc);
	return s;
}
