/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directory checker (check/dir*.c) on directories built by hand in a
 * fixture filesystem: a clean single-block directory and short form pass
 * with their entries stored for names.c; one damaged field gives the one
 * problem it should; hostile bytes never crash (the sanitizer build).
 */
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "fs_fixture.h"
#include "check/dir_priv.h"
#include "core/crc32c.h"
#include "fs/attr.h"
#include "fs/bmbt.h"
#include "ondisk/meta.h"

struct got {
	unsigned int n;
	char code[16][32];
	char field[16][64];
};

static void on_problem(void *arg, const struct xfsj_problem *p)
{
	struct got *g = arg;

	if (g->n < 16) {
		strncpy(g->code[g->n], p->def->code, 31);
		strncpy(g->field[g->n], p->field ? p->field : "", 63);
	}
	g->n++;
}

struct env {
	struct fs_fixture fx;
	struct xck ck;
	struct xfsj_check_result res;
	struct xfsj_check_cb cb;
	struct got got;
	struct xck_inode st;
	struct xck_icheck ic;
	struct xfsj_bmbt_irec map;
	uint64_t fsb, daddr, ino;
	uint32_t bs;
};

static void env_make(struct env *e)
{
	memset(e, 0, sizeof(*e));
	fs_fixture_make(&e->fx, 64ULL << 20, 4096, 0, true, false);
	e->cb = (struct xfsj_check_cb){ .arg = &e->got,
					.problem = on_problem };
	e->ck.fs = e->fx.fs;
	e->ck.sb = xfsj_fs_sb(e->fx.fs);
	e->ck.cb = &e->cb;
	e->ck.res = &e->res;
	e->ck.agcount = e->ck.sb->agcount;
	e->ck.ags = calloc(e->ck.agcount, sizeof(*e->ck.ags));
	ck_assert_ptr_nonnull(e->ck.ags);
	for (uint32_t a = 0; a < e->ck.agcount; a++)
		e->ck.ags[a].agblocks = xfsj_fs_ag_blocks(e->fx.fs, a);
	xck_vec_init(&e->ck.dirents, sizeof(struct xck_dirent));
	xck_vec_init(&e->ck.lossy, sizeof(struct xck_lossy));
	xck_vec_init(&e->ck.holders, sizeof(struct xck_lossy_holder));
	e->bs = e->ck.sb->blocksize;
	e->ino = e->ck.sb->rootino;
	e->fsb = fs_fixture_alloc(&e->fx, 0, 1);
	e->daddr = xfsj_fsb_daddr(e->ck.sb, e->fsb);
	e->st.parent = XFSJ_NULLFSINO;
	e->ic.ino = e->ino;
	e->ic.st = &e->st;
}

static void env_free(struct env *e)
{
	xck_dir_scratch_free(&e->ck);
	xck_vec_free(&e->ck, &e->ck.dirents);
	xck_vec_free(&e->ck, &e->ck.lossy);
	xck_vec_free(&e->ck, &e->ck.holders);
	free(e->ck.ags);
	fs_fixture_free(&e->fx);
}

static const char *const names[] = { "alpha", "beta", "gamma", "delta" };
#define NNAMES 4

static uint32_t put_entry(uint8_t *b, uint32_t off, uint64_t ino,
			  const char *name, uint8_t ftype)
{
	size_t len = strlen(name);
	unsigned int sz = xfsj_dir2_data_entsize((unsigned int)len, true);

	xfsj_put_be64(b + off, ino);
	b[off + 8] = (uint8_t)len;
	memcpy(b + off + 9, name, len);
	b[off + 9 + len] = ftype;
	xfsj_put_be16(b + off + sz - 2, (uint16_t)off);
	return off + sz;
}

static int lent_cmp(const void *a, const void *b)
{
	uint32_t x = xfsj_get_be32(a), y = xfsj_get_be32(b);

	return x < y ? -1 : x > y;
}

/* A single-block directory: ".", "..", @n names; names[0] may repeat. */
static void build_block(struct env *e, uint8_t *b, const char *const *nm,
			unsigned int n)
{
	uint32_t bs = e->bs, off = XFSJ_DIR3_HDR_SIZE, leaf, i;
	uint32_t count = n + 2;
	uint8_t *ents;

	memset(b, 0, bs);
	xfsj_put_be32(b, XFSJ_DIR3_BLOCK_MAGIC);
	xfsj_put_be64(b + 8, e->daddr);
	memcpy(b + 24, xfsj_meta_fs_uuid(e->ck.sb), 16);
	xfsj_put_be64(b + 40, e->ino);
	leaf = bs - XFSJ_DIR2_BLOCK_TAIL - count * 8;
	ents = b + leaf;
	for (i = 0; i < count; i++) {
		const char *name = i == 0 ? "." : i == 1 ? ".." : nm[i - 2];
		uint64_t ino = i < 2 ? e->ino : e->ino + 1 + i;

		xfsj_put_be32(ents + 8 * i,
			      xfsj_da_hashname((const uint8_t *)name,
					       (uint32_t)strlen(name)));
		xfsj_put_be32(ents + 8 * i + 4, off >> 3);
		off = put_entry(b, off, ino, name,
				i < 2 ? XFSJ_FT_DIR : XFSJ_FT_REG);
	}
	qsort(ents, count, 8, lent_cmp);
	xfsj_put_be16(b + off, XFSJ_DIR2_FREE_TAG);
	xfsj_put_be16(b + off + 2, (uint16_t)(leaf - off));
	xfsj_put_be16(b + leaf - 2, (uint16_t)off);
	xfsj_put_be16(b + 48, (uint16_t)off);
	xfsj_put_be16(b + 50, (uint16_t)(leaf - off));
	xfsj_put_be32(b + bs - 8, count);
	xfsj_put_be32(b + bs - 4, 0);
	xfsj_cksum_update(b, bs, 4);
}

static void write_block(struct env *e, const uint8_t *b)
{
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_buf_get_zero_ref(e->fx.fs, e->daddr, e->bs,
					       &bp), 0);
	memcpy(bp->data, b, e->bs);
	xfsj_buf_dirty(bp);
	xfsj_buf_rele(e->fx.fs, bp);
}

static void check_once(struct env *e)
{
	memset(&e->got, 0, sizeof(e->got));
	e->ck.dirents.n = 0;
	ck_assert_int_eq(xck_dir(&e->ck, &e->ic), 0);
}

static void run_block(struct env *e, const uint8_t *b)
{
	write_block(e, b);
	e->map = (struct xfsj_bmbt_irec){ .startoff = 0,
					  .startblock = e->fsb,
					  .blockcount = 1 };
	e->ic.di.format = XFSJ_DINODE_FMT_EXTENTS;
	e->ic.di.size = e->bs;
	e->ic.map[0] = &e->map;
	e->ic.nmap[0] = 1;
	check_once(e);
}

START_TEST(block_clean)
{
	struct env e;
	uint8_t *b;

	env_make(&e);
	b = malloc(e.bs);
	build_block(&e, b, names, NNAMES);
	run_block(&e, b);
	ck_assert_uint_eq(e.got.n, 0);
	ck_assert_uint_eq(e.ck.dirents.n, NNAMES + 2);
	ck_assert_uint_eq(e.st.parent, e.ino);
	ck_assert_uint_eq(e.res.dirs, 1);
	free(b);
	env_free(&e);
}
END_TEST

/* One field changed, CRC made good again: one problem of that field. */
static void one_problem(void (*damage)(struct env *, uint8_t *),
			const char *code, const char *field)
{
	struct env e;
	uint8_t *b;

	env_make(&e);
	b = malloc(e.bs);
	build_block(&e, b, names, NNAMES);
	damage(&e, b);
	xfsj_cksum_update(b, e.bs, 4);
	run_block(&e, b);
	ck_assert_uint_ge(e.got.n, 1);
	ck_assert_str_eq(e.got.code[0], code);
	if (field)
		ck_assert_str_eq(e.got.field[0], field);
	free(b);
	env_free(&e);
}

static void bad_owner(struct env *e, uint8_t *b)
{
	xfsj_put_be64(b + 40, e->ino + 7);
}

static void bad_leaf_order(struct env *e, uint8_t *b)
{
	uint8_t *ents = b + e->bs - 8 - (NNAMES + 2) * 8, t[8];

	memcpy(t, ents, 8);
	memcpy(ents, ents + 8, 8);
	memcpy(ents + 8, t, 8);
}

static void bad_bestfree(struct env *e, uint8_t *b)
{
	(void)e;
	xfsj_put_be16(b + 50, xfsj_get_be16(b + 50) - 8);
}

static void bad_dot(struct env *e, uint8_t *b)
{
	xfsj_put_be64(b + XFSJ_DIR3_HDR_SIZE, e->ino + 3);
}

START_TEST(block_one_field)
{
	one_problem(bad_owner, "dir.header", "owner");
	one_problem(bad_leaf_order, "dir.leaf.order", NULL);
	one_problem(bad_bestfree, "dir.bestfree", "bestfree[0].length");
	one_problem(bad_dot, "dir.dot", "inode number");
}
END_TEST

static void bad_magic(struct env *e, uint8_t *b)
{
	(void)e;
	xfsj_put_be32(b, 0);
}

/* An entry's length field past the block's end: the walk stops there. */
static void bad_entry_len(struct env *e, uint8_t *b)
{
	(void)e;
	b[XFSJ_DIR3_HDR_SIZE + 16 + 8] = 250;	/* the ".." name length */
}

/*
 * A directory that lost entries (a block not walked whole) is noted for
 * causes.c with the problem that said so (the magic; the entry the walk
 * stopped at, not the problems before it); one whose damage loses no
 * entry (bestfree, the owner) is not.
 */
static void lossy_case(void (*damage)(struct env *, uint8_t *),
		       const char *cause, uint64_t before)
{
	struct env e;
	uint8_t *b;

	env_make(&e);
	b = malloc(e.bs);
	build_block(&e, b, names, NNAMES);
	if (damage)
		damage(&e, b);
	xfsj_cksum_update(b, e.bs, 4);
	e.ck.next_id = before;
	run_block(&e, b);
	ck_assert_uint_eq(e.ck.lossy.n, cause ? 1 : 0);
	if (cause) {
		const struct xck_lossy *l = xck_vec_at(&e.ck.lossy, 0);

		ck_assert_uint_eq(l->dir, e.ino);
		ck_assert_uint_ge(l->id, before);
		ck_assert_uint_lt(l->id, before + e.got.n);
		ck_assert_str_eq(e.got.code[l->id - before], cause);
	}
	ck_assert_uint_eq(e.ck.next_id, before + e.got.n);
	free(b);
	env_free(&e);
}

START_TEST(block_lost_noted)
{
	lossy_case(NULL, NULL, 0);
	lossy_case(bad_bestfree, NULL, 5);
	lossy_case(bad_owner, NULL, 5);
	lossy_case(bad_magic, "dir.magic", 7);
	lossy_case(bad_entry_len, "dir.entry", 3);
}
END_TEST

START_TEST(block_duplicate_name)
{
	static const char *const dup[] = { "alpha", "beta", "alpha" };
	struct env e;
	uint8_t *b;

	env_make(&e);
	b = malloc(e.bs);
	build_block(&e, b, dup, 3);
	run_block(&e, b);
	ck_assert_uint_eq(e.got.n, 1);
	ck_assert_str_eq(e.got.code[0], "dir.entry.dup");
	free(b);
	env_free(&e);
}
END_TEST

/*
 * The tables of a directory are kept for the next one on the same
 * thread: the next directory sees none of the last one's entries, and
 * the check's state counts them only while a directory is checked.
 */
START_TEST(block_tables_kept)
{
	static const char *const dup[] = { "alpha", "beta", "alpha" };
	struct env e;
	uint64_t bytes;
	uint8_t *b;

	env_make(&e);
	b = malloc(e.bs);
	bytes = e.ck.state_bytes;
	build_block(&e, b, names, NNAMES);
	run_block(&e, b);
	ck_assert(e.ck.dir_scratch.kept);
	ck_assert_uint_eq(e.got.n, 0);
	ck_assert_uint_eq(e.ck.state_bytes,
			  bytes + e.ck.dirents.cap * e.ck.dirents.esz);
	bytes = e.ck.state_bytes;
	/* Fewer names: none of the last directory's is seen again. */
	build_block(&e, b, names + 2, 1);
	run_block(&e, b);
	ck_assert_uint_eq(e.got.n, 0);
	ck_assert_uint_eq(e.ck.dirents.n, 3);
	ck_assert_uint_eq(e.ck.state_bytes, bytes);
	/* A duplicate still found on kept tables, and only it. */
	build_block(&e, b, dup, 3);
	run_block(&e, b);
	ck_assert_uint_eq(e.got.n, 1);
	ck_assert_str_eq(e.got.code[0], "dir.entry.dup");
	free(b);
	env_free(&e);
	ck_assert(!e.ck.dir_scratch.kept);
}
END_TEST

START_TEST(block_hostile)
{
	struct env e;
	uint8_t *good, *b;

	env_make(&e);
	good = malloc(e.bs);
	b = malloc(e.bs);
	build_block(&e, good, names, NNAMES);
	srand(12);
	for (int iter = 0; iter < 300; iter++) {
		memcpy(b, good, e.bs);
		for (int k = 0; k < 1 + iter % 6; k++) {
			uint32_t at = (uint32_t)rand() % e.bs;

			b[at] = (uint8_t)rand();
		}
		xfsj_cksum_update(b, e.bs, 4);
		run_block(&e, b);
	}
	free(good);
	free(b);
	env_free(&e);
}
END_TEST

static void run_sf(struct env *e, uint64_t parent, const struct xfsj_dirent *d,
		   unsigned int n)
{
	static uint8_t fork[512];
	int len;

	len = xfsj_dir_sf_encode(parent, d, n, true, fork, sizeof(fork));
	ck_assert_int_gt(len, 0);
	e->ic.di.format = XFSJ_DINODE_FMT_LOCAL;
	e->ic.di.size = (uint64_t)len;
	e->ic.fork[0] = fork;
	e->ic.forksize[0] = 336;
	check_once(e);
}

START_TEST(short_form)
{
	struct env e;
	struct xfsj_dirent d[3] = {
		{ "one", 3, XFSJ_FT_REG, 0 },
		{ "two", 3, XFSJ_FT_DIR, 0 },
		{ "three", 5, XFSJ_FT_REG, 0 },
	};

	env_make(&e);
	for (int i = 0; i < 3; i++)
		d[i].ino = e.ino + 1 + (uint64_t)i;
	run_sf(&e, e.ino, d, 3);
	ck_assert_uint_eq(e.got.n, 0);
	ck_assert_uint_eq(e.ck.dirents.n, 5);
	ck_assert_uint_eq(e.st.parent, e.ino);
	/* An inode number no AG holds. */
	d[1].ino = 1ULL << 40;
	e.st.parent = XFSJ_NULLFSINO;
	run_sf(&e, e.ino, d, 3);
	ck_assert_uint_eq(e.got.n, 1);
	ck_assert_str_eq(e.got.code[0], "dir.entry.ino");
	ck_assert_uint_eq(e.ck.dirents.n, 4);
	/* The same name twice. */
	d[1] = d[0];
	run_sf(&e, e.ino, d, 3);
	ck_assert_uint_eq(e.got.n, 1);
	ck_assert_str_eq(e.got.code[0], "dir.entry.dup");
	env_free(&e);
}
END_TEST

Suite *check_dir_suite(void)
{
	Suite *s = suite_create("check_dir");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, block_clean);
	tcase_add_test(tc, block_one_field);
	tcase_add_test(tc, block_duplicate_name);
	tcase_add_test(tc, block_lost_noted);
	tcase_add_test(tc, block_tables_kept);
	tcase_add_test(tc, block_hostile);
	tcase_add_test(tc, short_form);
	suite_add_tcase(s, tc);
	return s;
}
