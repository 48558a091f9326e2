/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Attribute node (dabtree) forks (fs/attr_node.c), at their boundaries:
 * the one leaf that cannot take one more entry becomes a root node over
 * exactly two linked leaves, laid out as the format says (struct
 * xfs_da3_intnode: magic 0x3ebe at 8, count at 56, level at 58, then
 * {hashval, before} pairs from 64, each the last hash under its child);
 * lookups through the path (found, or the insertion point in hash
 * order); the sibling-chain bound; removals until the leaves join and
 * the fork is one leaf again.  Hostile node blocks -- every field the
 * node verifier checks, a child pointing back at the root, a child in a
 * hole of the fork -- are refused with a fault naming it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/attr.h"
#include "fs/bmap.h"
#include "fs/defer.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define MB	(1ULL << 20)
#define BS	4096

struct tfs {
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint64_t ino;
	unsigned int n;			/* names set: name(0) .. name(n-1) */
};

static void name_of(unsigned int i, char *out)
{
	snprintf(out, 32, "user.attribute-%05u", i * 7919U % 100000U);
}

static void arg_of(unsigned int i, char *name, uint8_t *value,
		   struct xfsj_attr_arg *a)
{
	name_of(i, name);
	memset(value, (int)(i & 0xff), 40);
	memset(a, 0, sizeof(*a));
	a->name = (const uint8_t *)name;
	a->namelen = (uint32_t)strlen(name);
	a->value = value;
	a->valuelen = 40;
}

static void reread(struct tfs *t)
{
	xfsj_iput(t->fx.fs, &t->ip, false);
	ck_assert_int_eq(xfsj_defer_finish(t->fx.fs, &t->fx.f), 0);
	ck_assert_int_eq(xfsj_iget(t->fx.fs, t->ino, false, &t->ip, &t->fx.f),
			 0);
}

/* Block @lblk of the attribute fork, through the library's mapping. */
static struct xfsj_buf *ablock(struct tfs *t, uint64_t lblk)
{
	const struct xfsj_sb *sb = &t->fx.sb;
	struct xfsj_buf *bp;
	uint64_t fsb;

	ck_assert_int_eq(xfsj_attr_bmap(t->fx.fs, &t->ip, lblk, &fsb,
					&t->fx.f), 0);
	ck_assert_int_eq(xfsj_buf_read(t->fx.fs,
			 xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
					   xfsj_fsb_agbno(sb, fsb)),
			 BS, &bp), 0);
	return bp;
}

static uint16_t magic_of(struct tfs *t, uint64_t lblk)
{
	return xfsj_get_be16(ablock(t, lblk)->data + 8);
}

/* Set name(n) and count it. */
static void add_next(struct tfs *t)
{
	struct xfsj_attr_arg a;
	char name[32];
	uint8_t v[40];

	arg_of(t->n, name, v, &a);
	ck_assert_int_eq(xfsj_attr_set(t->fx.fs, &t->ip, &a, XFSJ_ATTR_CREATE,
				       &t->fx.f), 0);
	t->n++;
	reread(t);
}

/* A file whose attribute fork is one full leaf: one more makes a node. */
static void tfs_full_leaf(struct tfs *t)
{
	memset(t, 0, sizeof(*t));
	fs_fixture_make(&t->fx, 64 * MB, BS, 2, false, false);
	t->ino = fs_fixture_make_file(&t->fx, 9, 5, 0, 24, &t->ip);
	for (;;) {
		struct xfsj_buf *bp;

		add_next(t);
		if (t->ip.di.aformat != XFSJ_DINODE_FMT_EXTENTS)
			continue;
		bp = ablock(t, 0);
		ck_assert_uint_eq(xfsj_get_be16(bp->data + 8), 0x3bee);
		/* 8 + 3 + 20 + 40 bytes more would not fit. */
		if (BS - xfsj_attr_leaf_used(bp->data) < 8 + 64)
			return;
	}
}

/* Every name set so far is found, with its value; the count matches. */
static int count_fn(void *arg, const struct xfsj_attr_arg *a)
{
	(void)a;
	(*(unsigned int *)arg)++;
	return 0;
}

static void check_all(struct tfs *t, unsigned int from)
{
	unsigned int listed = 0;

	for (unsigned int i = from; i < t->n; i++) {
		struct xfsj_attr_arg a;
		char name[32];
		uint8_t v[40], got[64];
		uint32_t vlen = sizeof(got);
		bool found;

		arg_of(i, name, v, &a);
		ck_assert_int_eq(xfsj_attr_get(t->fx.fs, &t->ip, &a, got, &vlen,
					       &found, &t->fx.f), 0);
		ck_assert_msg(found, "%s", name);
		ck_assert_uint_eq(vlen, 40);
		ck_assert(memcmp(got, v, 40) == 0);
	}
	ck_assert_int_eq(xfsj_attr_list(t->fx.fs, &t->ip, count_fn, &listed,
					&t->fx.f), 0);
	ck_assert_uint_eq(listed, t->n - from);
}

/* ---- tests ---- */

/*
 * The one more entry: block 0 becomes the root (level 1) over two
 * leaves, its hashes their last hashes, the leaves linked both ways and
 * in hash order.
 */
START_TEST(leaf_to_node_boundary)
{
	struct tfs t;
	const uint8_t *root, *l[2];
	uint32_t child[2];

	tfs_full_leaf(&t);
	add_next(&t);
	check_all(&t, 0);
	root = ablock(&t, 0)->data;
	ck_assert_uint_eq(xfsj_get_be16(root + 8), 0x3ebe);
	ck_assert_uint_eq(xfsj_get_be16(root + 56), 2);	/* count */
	ck_assert_uint_eq(xfsj_get_be16(root + 58), 1);	/* level */
	ck_assert_uint_eq(xfsj_get_be64(root + 48), t.ino);
	for (int k = 0; k < 2; k++) {
		child[k] = xfsj_get_be32(root + 64 + 8 * k + 4);
		ck_assert_uint_ne(child[k], 0);
		l[k] = ablock(&t, child[k])->data;
		ck_assert_uint_eq(xfsj_get_be16(l[k] + 8), 0x3bee);
		ck_assert_uint_eq(xfsj_get_be32(root + 64 + 8 * k),
				  xfsj_attr_leaf_lasthash(l[k]));
	}
	ck_assert_uint_eq(xfsj_get_be32(l[0]), child[1]);	/* forw */
	ck_assert_uint_eq(xfsj_get_be32(l[1] + 4), child[0]);	/* back */
	ck_assert_uint_eq(xfsj_get_be32(l[0] + 4), 0);
	ck_assert_uint_eq(xfsj_get_be32(l[1]), 0);
	ck_assert_uint_le(xfsj_attr_leaf_lasthash(l[0]),
			  xfsj_get_be32(l[1] + 80));
	ck_assert_uint_eq(xfsj_attr_leaf_count(l[0]) +
			  xfsj_attr_leaf_count(l[1]), t.n);
	fs_fixture_free(&t.fx);
}
END_TEST

/* Lookups through the path: the match, or where a name would go. */
START_TEST(npath_lookup)
{
	struct tfs t;
	struct xfsj_attr_ctx c;
	struct xfsj_attr_npath np;
	uint64_t max = 0;

	tfs_full_leaf(&t);
	for (int i = 0; i < 40; i++)
		add_next(&t);
	ck_assert_int_eq(xfsj_attr_ctx_open(&c, t.fx.fs, &t.ip, &t.fx.f), 0);
	ck_assert_int_eq(c.st, XFSJ_AF_NODE);
	ck_assert_int_eq(xfsj_attr_chain_max(&c, &max, &t.fx.f), 0);
	ck_assert_uint_eq(max, t.ip.di.nblocks);
	for (unsigned int i = 0; i < t.n + 30; i++) {
		struct xfsj_attr_arg a;
		struct xfsj_attr_lent e;
		char name[32];
		uint8_t v[40];
		uint32_t hash, cnt;

		arg_of(i, name, v, &a);
		hash = xfsj_attr_hash(&a);
		ck_assert_int_eq(xfsj_attr_npath_lookup(&c, &a, hash, &np,
							&t.fx.f), 0);
		ck_assert(np.found == (i < t.n));
		ck_assert_int_eq(np.active, 2);
		ck_assert_ptr_eq(np.leaf, np.blk[1].bp);
		cnt = xfsj_attr_leaf_count(np.leaf->data);
		ck_assert_uint_le(np.index, cnt);
		if (np.index < cnt) {
			xfsj_attr_leaf_get_ent(np.leaf->data, BS, np.index, &e);
			ck_assert_uint_ge(e.hash, hash);
			if (np.found)
				ck_assert(e.namelen == a.namelen &&
					  !memcmp(e.name, name, a.namelen));
		}
		if (np.index) {
			xfsj_attr_leaf_get_ent(np.leaf->data, BS,
					       np.index - 1, &e);
			ck_assert_uint_le(e.hash, hash);
		}
	}
	xfsj_attr_ctx_close(&c);
	fs_fixture_free(&t.fx);
}
END_TEST

/* Removals until the two leaves join and the fork is one leaf again. */
START_TEST(join_back_to_leaf)
{
	struct tfs t;
	unsigned int from = 0;

	tfs_full_leaf(&t);
	for (int i = 0; i < 5; i++)
		add_next(&t);
	ck_assert_uint_eq(magic_of(&t, 0), 0x3ebe);
	while (magic_of(&t, 0) == 0x3ebe) {
		struct xfsj_attr_arg a;
		char name[32];
		uint8_t v[40];
		bool found;

		ck_assert_uint_lt(from, t.n);
		arg_of(from++, name, v, &a);
		ck_assert_int_eq(xfsj_attr_remove(t.fx.fs, &t.ip, &a, &found,
						  &t.fx.f), 0);
		ck_assert(found);
		reread(&t);
		check_all(&t, from);
	}
	/* Joined while the entries still fill a good part of one leaf. */
	ck_assert_uint_lt(from, t.n / 2);
	ck_assert_uint_eq(t.ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(t.ip.di.nblocks, 1);
	ck_assert_uint_eq(xfsj_attr_leaf_count(ablock(&t, 0)->data),
			  t.n - from);
	fs_fixture_reopen(&t.fx);
	fs_fixture_free(&t.fx);
}
END_TEST

/* ---- hostile nodes ---- */

struct hostile {
	struct tfs t;
	struct xfsj_buf *root;
	uint8_t good[BS];
};

static void hostile_make(struct hostile *h)
{
	tfs_full_leaf(&h->t);
	for (int i = 0; i < 3; i++)
		add_next(&h->t);
	h->root = ablock(&h->t, 0);
	ck_assert_uint_eq(xfsj_get_be16(h->root->data + 8), 0x3ebe);
	memcpy(h->good, h->root->data, BS);
}

/* Re-checksum the root as changed, look a name up, restore. */
static int lookup_err(struct hostile *h, bool crc)
{
	struct xfsj_attr_arg a;
	char name[32];
	uint8_t v[40], got[64];
	uint32_t vlen = sizeof(got);
	bool found;
	int err;

	if (crc)
		xfsj_cksum_update(h->root->data, BS, 12);
	arg_of(1, name, v, &a);
	memset(&h->t.fx.f, 0, sizeof(h->t.fx.f));
	err = xfsj_attr_get(h->t.fx.fs, &h->t.ip, &a, got, &vlen, &found,
			    &h->t.fx.f);
	memcpy(h->root->data, h->good, BS);
	return err;
}

#define REFUSED(crc, err, fld) do { \
		ck_assert_int_eq(lookup_err(&h, (crc)), (err)); \
		ck_assert_str_eq(h.t.fx.f.field, (fld)); \
	} while (0)

START_TEST(hostile_nodes)
{
	static struct hostile h;
	uint8_t *r;
	struct xfsj_attr_ctx c;

	hostile_make(&h);
	r = h.root->data;
	ck_assert_int_eq(lookup_err(&h, false), 0);

	r[200] ^= 1;
	REFUSED(false, -XFSJ_E_BADCRC, "crc");
	r[33] ^= 1;
	REFUSED(true, -XFSJ_E_CORRUPT, "uuid");
	xfsj_put_be64(r + 16, xfsj_get_be64(r + 16) + 8);
	REFUSED(true, -XFSJ_E_CORRUPT, "blkno");
	xfsj_put_be64(r + 48, h.t.ino + 1);
	REFUSED(true, -XFSJ_E_CORRUPT, "owner");
	xfsj_put_be16(r + 56, 0);
	REFUSED(true, -XFSJ_E_CORRUPT, "count");
	xfsj_put_be16(r + 56, (BS - 64) / 8 + 1);
	REFUSED(true, -XFSJ_E_CORRUPT, "count");
	xfsj_put_be16(r + 58, 0);
	REFUSED(true, -XFSJ_E_CORRUPT, "level");
	xfsj_put_be16(r + 58, 6);
	REFUSED(true, -XFSJ_E_CORRUPT, "level");
	xfsj_put_be16(r + 8, 0x3eff);
	REFUSED(true, -XFSJ_E_BADMAGIC, "magic");
	/* Every child is the root itself: the descent is bounded. */
	xfsj_put_be32(r + 64 + 4, 0);
	xfsj_put_be32(r + 64 + 12, 0);
	REFUSED(true, -XFSJ_E_CORRUPT, "level");
	/* Children in a hole of the fork: refused by the mapping. */
	xfsj_put_be32(r + 64 + 4, 5000);
	xfsj_put_be32(r + 64 + 12, 5000);
	ck_assert_int_ne(lookup_err(&h, true), 0);
	ck_assert_ptr_nonnull(h.t.fx.f.field);

	/* The node verifier alone, on the intact root. */
	memset(&c, 0, sizeof(c));
	c.fs = h.t.fx.fs;
	c.ip = &h.t.ip;
	c.bs = BS;
	ck_assert_int_eq(xfsj_attr_node_verify(&c, r, h.root->daddr,
					       &h.t.fx.f), 0);
	ck_assert_int_eq(xfsj_attr_node_verify(&c, r, h.root->daddr + 1,
					       &h.t.fx.f), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(h.t.fx.f.field, "blkno");
	/* After all that the tree still reads. */
	check_all(&h.t, 0);
	fs_fixture_free(&h.t.fx);
}
END_TEST

Suite *attr_node_suite(void)
{
	Suite *s = suite_create("attr_node");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, leaf_to_node_boundary);
	tcase_add_test(tc, npath_lookup);
	tcase_add_test(tc, join_back_to_leaf);
	tcase_add_test(tc, hostile_nodes);
	suite_add_tcase(s, tc);
	return s;
}
