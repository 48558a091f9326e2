/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Extended attributes on a fresh in-memory filesystem: a regular file is
 * made from a free inode of the root's chunk, then attributes of every
 * namespace (parent pointers included) are set, replaced and removed at
 * random against a model, checking after every step that listing gives
 * exactly the model and that each attribute reads back.  Also the fork
 * offset rules, the short form <-> leaf transitions, remote values, and
 * hostile short forms and leaf blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/attr.h"
#include "fs/bmap.h"
#include "core/crc32c.h"
#include "fs/defer.h"
#include "core/layout.h"

#define MB		(1ULL << 20)
#define MAXA		48
#define MAXM		440	/* the deep tree test's model */

static const struct xfsj_sb *SB(struct fs_fixture *fx)
{
	return xfsj_fs_sb(fx->fs);
}

/* Turn a free inode of the root's chunk into an empty regular file. */
static uint64_t make_file(struct fs_fixture *fx, unsigned int slot,
			  uint8_t forkoff, struct xfsj_iref *ip)
{
	uint64_t flags2 = 0;

	if (SB(fx)->features_incompat & XFSJ_INCOMPAT_NREXT64)
		flags2 |= XFSJ_DIFLAG2_NREXT64;
	return fs_fixture_make_file(fx, slot, 5, flags2, forkoff, ip);
}

/* Write the core back and read the inode again (its verifier runs). */
static void reget(struct fs_fixture *fx, struct xfsj_iref *ip)
{
	uint64_t ino = ip->ino;

	xfsj_iput(fx->fs, ip, false);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, ip, &fx->f), 0);
}

/* With parent pointers the kernel keeps an emptied short-form fork. */
static bool pptrs(struct fs_fixture *fx)
{
	return xfsj_fs_has_incompat(fx->fs, XFSJ_INCOMPAT_PARENT);
}

static uint8_t *leaf_block(struct fs_fixture *fx, struct xfsj_iref *ip)
{
	struct xfsj_bmbt_irec *ext;
	struct xfsj_buf *bp;
	size_t n;
	uint64_t fsb;

	ck_assert_int_eq(xfsj_bmap_read(fx->fs, ip, XFSJ_ATTR_FORK, &ext, &n,
					&fx->f), 0);
	ck_assert_uint_ge(n, 1);
	fsb = ext[0].startblock;
	free(ext);
	ck_assert_int_eq(xfsj_buf_read(fx->fs,
				       xfsj_agb_to_daddr(SB(fx),
						xfsj_fsb_agno(SB(fx), fsb),
						xfsj_fsb_agbno(SB(fx), fsb)),
				       SB(fx)->blocksize, &bp), 0);
	return bp->data;
}

static uint32_t litino(struct fs_fixture *fx)
{
	return SB(fx)->inodesize - XFSJ_DINODE_CORE_SIZE;
}

/* ---- the model ---- */

struct mattr {
	uint8_t ns;
	uint8_t name[256];
	uint32_t namelen;
	uint8_t *value;
	uint32_t valuelen;
	bool seen;
};

struct model {
	struct mattr a[MAXM];
	int n;
};

static void to_arg(const struct mattr *m, struct xfsj_attr_arg *a)
{
	a->ns = m->ns;
	a->name = m->name;
	a->namelen = m->namelen;
	a->value = m->value;
	a->valuelen = m->valuelen;
}

static bool same_key(const struct mattr *m, const struct xfsj_attr_arg *a)
{
	if (m->ns != a->ns || m->namelen != a->namelen ||
	    memcmp(m->name, a->name, a->namelen))
		return false;
	if (m->ns != XFSJ_ATTR_NS_PARENT)
		return true;
	return m->valuelen == a->valuelen &&
	       memcmp(m->value, a->value, a->valuelen) == 0;
}

static int model_find(struct model *md, const struct xfsj_attr_arg *a)
{
	for (int i = 0; i < md->n; i++)
		if (same_key(&md->a[i], a))
			return i;
	return -1;
}

static int list_fn(void *arg, const struct xfsj_attr_arg *a)
{
	struct model *md = arg;
	int i = model_find(md, a);

	ck_assert_msg(i >= 0, "listed attribute not in the model");
	ck_assert(!md->a[i].seen);
	md->a[i].seen = true;
	ck_assert_uint_eq(a->valuelen, md->a[i].valuelen);
	if (a->valuelen)
		ck_assert(memcmp(a->value, md->a[i].value, a->valuelen) == 0);
	return 0;
}

static int count_fn(void *arg, const struct xfsj_attr_arg *a)
{
	(void)a;
	(*(int *)arg)++;
	return 0;
}

static int list_fn_any(void *arg, const struct xfsj_attr_arg *a)
{
	(void)arg;
	(void)a;
	return 0;
}

static void check(struct fs_fixture *fx, struct xfsj_iref *ip,
		  struct model *md)
{
	static uint8_t buf[XFSJ_XATTR_SIZE_MAX];

	for (int i = 0; i < md->n; i++)
		md->a[i].seen = false;
	ck_assert_int_eq(xfsj_attr_list(fx->fs, ip, list_fn, md, &fx->f), 0);
	for (int i = 0; i < md->n; i++) {
		struct xfsj_attr_arg a = { 0 };
		uint32_t vlen = sizeof(buf);
		bool found;

		ck_assert_msg(md->a[i].seen, "attribute %d not listed", i);
		to_arg(&md->a[i], &a);
		ck_assert_int_eq(xfsj_attr_get(fx->fs, ip, &a, buf, &vlen,
					       &found, &fx->f), 0);
		ck_assert(found);
		ck_assert_uint_eq(vlen, md->a[i].valuelen);
		if (vlen)
			ck_assert(memcmp(buf, md->a[i].value, vlen) == 0);
	}
}

static void rnd_value(uint8_t *v, uint32_t len, unsigned int *seed)
{
	for (uint32_t i = 0; i < len; i++)
		v[i] = (uint8_t)rand_r(seed);
}

static uint32_t rnd_valuelen(unsigned int *seed)
{
	switch (rand_r(seed) % 10) {
	case 0:
		return 0;
	case 1:
	case 2:
		return 100 + rand_r(seed) % 200;
	case 3:
		/* Remote: from just past the local limit to 64 KiB. */
		return 3070 + rand_r(seed) % (XFSJ_XATTR_SIZE_MAX - 3069);
	default:
		return 1 + rand_r(seed) % 40;
	}
}

/* Bytes an attribute takes in a 4 KiB leaf (entry + name structure). */
static uint32_t leaf_cost(uint32_t namelen, uint32_t valuelen)
{
	uint32_t local = (3 + namelen + valuelen + 3) & ~3U;

	if (local < 3072)
		return 8 + local;
	return 8 + ((11 + namelen + 3) & ~3U);
}

static uint32_t model_cost(const struct model *md)
{
	uint32_t sum = 0;

	for (int i = 0; i < md->n; i++)
		sum += leaf_cost(md->a[i].namelen, md->a[i].valuelen);
	return sum;
}

static void parent_rec(uint8_t *v, uint64_t ino, uint32_t gen)
{
	xfsj_put_be64(v, ino);
	xfsj_put_be32(v + 8, gen);
}

static void random_key(struct mattr *m, unsigned int *seed)
{
	static const uint8_t nss[] = { 0, XFSJ_ATTR_NS_ROOT,
				       XFSJ_ATTR_NS_SECURE,
				       XFSJ_ATTR_NS_PARENT };

	m->ns = nss[rand_r(seed) % 4];
	/* Few distinct names so that names repeat across namespaces. */
	m->namelen = 1 + rand_r(seed) % 12;
	if (rand_r(seed) % 20 == 0)
		m->namelen = 200 + rand_r(seed) % 56;
	for (uint32_t i = 0; i < m->namelen; i++)
		m->name[i] = (uint8_t)('a' + rand_r(seed) % 3);
}

static uint8_t *fork_block(struct fs_fixture *fx, struct xfsj_iref *ip,
			   uint64_t lblk)
{
	struct xfsj_bmbt_irec *ext;
	struct xfsj_buf *bp;
	uint64_t fsb = 0;
	size_t n;

	ck_assert_int_eq(xfsj_bmap_read(fx->fs, ip, XFSJ_ATTR_FORK, &ext, &n,
					&fx->f), 0);
	for (size_t i = 0; i < n; i++)
		if (lblk >= ext[i].startoff &&
		    lblk < ext[i].startoff + ext[i].blockcount)
			fsb = ext[i].startblock + lblk - ext[i].startoff;
	free(ext);
	ck_assert_uint_ne(fsb, 0);
	ck_assert_int_eq(xfsj_buf_read(fx->fs,
				       xfsj_agb_to_daddr(SB(fx),
						xfsj_fsb_agno(SB(fx), fsb),
						xfsj_fsb_agbno(SB(fx), fsb)),
				       SB(fx)->blocksize, &bp), 0);
	return bp->data;
}

/* Root hashes, sibling links and hash order across the leaves. */
static uint32_t check_tree(struct fs_fixture *fx, struct xfsj_iref *ip)
{
	const uint8_t *root = fork_block(fx, ip, 0);
	uint32_t count = xfsj_get_be16(root + 56), prev = 0, last = 0;

	ck_assert_uint_eq(xfsj_get_be16(root + 8), 0x3ebe);
	ck_assert_uint_eq(xfsj_get_be16(root + 58), 1);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t lblk = xfsj_get_be32(root + 64 + 8 * i + 4);
		const uint8_t *l = fork_block(fx, ip, lblk);
		uint32_t n = xfsj_attr_leaf_count(l);

		ck_assert_uint_eq(xfsj_get_be16(l + 8), 0x3bee);
		ck_assert_uint_gt(n, 0);
		ck_assert_uint_eq(xfsj_get_be32(root + 64 + 8 * i),
				  xfsj_attr_leaf_lasthash(l));
		ck_assert_uint_ge(xfsj_get_be32(l + 80), last);
		last = xfsj_attr_leaf_lasthash(l);
		ck_assert_uint_eq(xfsj_get_be32(l + 4), prev);
		ck_assert_uint_eq(xfsj_get_be32(l),
				  i + 1 < count ?
				  xfsj_get_be32(root + 64 + 8 * (i + 1) + 4) :
				  0);
		prev = lblk;
	}
	return count;
}

static void random_run(unsigned int seed, int steps, uint8_t forkoff,
		       uint32_t cap, uint32_t blocksize)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct model md;
	int transitions = 0, nodes = 0;
	bool was_leaf = false;

	fs_fixture_make(&fx, 64 * MB, blocksize, 2, true, false);
	make_file(&fx, 9, forkoff, &ip);
	memset(&md, 0, sizeof(md));
	for (int step = 0; step < steps; step++) {
		struct mattr m;
		struct xfsj_attr_arg a = { 0 };
		int op = rand_r(&seed) % 10;
		int i;
		bool found;

		memset(&m, 0, sizeof(m));
		if (op < 3 && md.n) {
			/* Remove an existing one. */
			i = rand_r(&seed) % md.n;
			to_arg(&md.a[i], &a);
			ck_assert_int_eq(xfsj_attr_remove(fx.fs, &ip, &a,
							  &found, &fx.f), 0);
			ck_assert(found);
			free(md.a[i].value);
			md.a[i] = md.a[--md.n];
		} else if (op < 5 && md.n) {
			/* Replace the value of an existing (non-parent) one. */
			i = rand_r(&seed) % md.n;
			if (md.a[i].ns == XFSJ_ATTR_NS_PARENT)
				continue;
			m = md.a[i];
			m.valuelen = rnd_valuelen(&seed);
			if (model_cost(&md) - leaf_cost(m.namelen,
						md.a[i].valuelen) +
			    leaf_cost(m.namelen, m.valuelen) > cap)
				continue;
			m.value = malloc(m.valuelen + 1);
			rnd_value(m.value, m.valuelen, &seed);
			to_arg(&m, &a);
			ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a,
						       op == 3 ?
						       XFSJ_ATTR_REPLACE :
						       XFSJ_ATTR_UPSERT,
						       &fx.f), 0);
			free(md.a[i].value);
			md.a[i] = m;
		} else if (op == 5) {
			/* Remove one that is not there. */
			random_key(&m, &seed);
			m.value = (uint8_t[12]){ 0 };
			m.valuelen = m.ns == XFSJ_ATTR_NS_PARENT ? 12 : 0;
			parent_rec(m.value, 99999, 1);
			to_arg(&m, &a);
			if (model_find(&md, &a) >= 0)
				continue;
			ck_assert_int_eq(xfsj_attr_remove(fx.fs, &ip, &a,
							  &found, &fx.f), 0);
			ck_assert(!found);
		} else {
			/* Create a new one. */
			if (md.n == MAXA)
				continue;
			random_key(&m, &seed);
			if (m.ns == XFSJ_ATTR_NS_PARENT) {
				m.valuelen = 12;
				m.value = malloc(12);
				parent_rec(m.value, 128 + rand_r(&seed) % 3,
					   1 + rand_r(&seed) % 2);
			} else {
				m.valuelen = rnd_valuelen(&seed);
				/* Node runs: bigger values fill leaves. */
				if (cap == UINT32_MAX && m.valuelen < 3000)
					m.valuelen += 150;
				m.value = malloc(m.valuelen + 1);
				rnd_value(m.value, m.valuelen, &seed);
			}
			to_arg(&m, &a);
			if (model_find(&md, &a) >= 0 ||
			    model_cost(&md) + leaf_cost(m.namelen,
							m.valuelen) > cap) {
				free(m.value);
				continue;
			}
			ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a,
						       XFSJ_ATTR_CREATE,
						       &fx.f), 0);
			md.a[md.n++] = m;
		}
		reget(&fx, &ip);
		check(&fx, &ip, &md);
		if (md.n == 0 && !pptrs(&fx))
			ck_assert_uint_eq(ip.di.forkoff, 0);
		if (ip.di.aformat == XFSJ_DINODE_FMT_EXTENTS &&
		    ip.di.forkoff &&
		    xfsj_get_be16(fork_block(&fx, &ip, 0) + 8) == 0x3ebe) {
			check_tree(&fx, &ip);
			nodes++;
		}
		if ((ip.di.aformat == XFSJ_DINODE_FMT_EXTENTS &&
		     ip.di.forkoff) != was_leaf) {
			transitions++;
			was_leaf = !was_leaf;
		}
	}
	ck_assert_int_gt(transitions, 2);
	if (cap == UINT32_MAX)
		ck_assert_int_gt(nodes, 5);
	/* Everything goes away again, fork included. */
	while (md.n) {
		struct xfsj_attr_arg a = { 0 };
		bool found;

		to_arg(&md.a[md.n - 1], &a);
		ck_assert_int_eq(xfsj_attr_remove(fx.fs, &ip, &a, &found,
						  &fx.f), 0);
		ck_assert(found);
		free(md.a[--md.n].value);
		reget(&fx, &ip);
		check(&fx, &ip, &md);
	}
	if (!pptrs(&fx) || ip.di.aformat != XFSJ_DINODE_FMT_LOCAL)
		ck_assert_uint_eq(ip.di.forkoff, 0);
	ck_assert_uint_eq(ip.di.nblocks, 0);
	ck_assert_uint_eq(xfsj_dinode_anextents(&ip.di), 0);
	fs_fixture_reopen(&fx);
	fs_fixture_free(&fx);
}

START_TEST(test_random)
{
	/* With and without an attribute fork to begin with. */
	random_run(1 + (unsigned int)_i, 400, _i % 2 ? 24 : 0,
		   _i < 4 ? 3800 : UINT32_MAX, _i < 6 ? 4096 : 1024);
}
END_TEST

/* ---- hashes ---- */

START_TEST(test_hash)
{
	const uint8_t *n = (const uint8_t *)"abcde";

	ck_assert_uint_eq(xfsj_da_hashname(n, 1), 0x61);
	ck_assert_uint_eq(xfsj_da_hashname(n, 2), 0x61u << 7 ^ 0x62);
	ck_assert_uint_eq(xfsj_da_hashname(n, 4),
			  0x61u << 21 ^ 0x62u << 14 ^ 0x63u << 7 ^ 0x64);
	ck_assert_uint_eq(xfsj_da_hashname(n, 5),
			  0x65 ^ (xfsj_da_hashname(n, 4) << 7 |
				  xfsj_da_hashname(n, 4) >> 25));
	ck_assert_uint_eq(xfsj_parent_hashval(n, 3, 0x100000080ULL),
			  xfsj_da_hashname(n, 3) ^ 1 ^ 0x80);
}
END_TEST

/* ---- fork offset and the short form ---- */

static void set_ok(struct fs_fixture *fx, struct xfsj_iref *ip, uint8_t ns,
		   const char *name, const uint8_t *v, uint32_t vlen)
{
	struct xfsj_attr_arg a = { ns, (const uint8_t *)name,
				   (uint32_t)strlen(name), v, vlen, false };

	ck_assert_int_eq(xfsj_attr_set(fx->fs, ip, &a, XFSJ_ATTR_UPSERT,
				       &fx->f), 0);
	reget(fx, ip);
}

static void rm_ok(struct fs_fixture *fx, struct xfsj_iref *ip, uint8_t ns,
		  const char *name, const uint8_t *v, uint32_t vlen)
{
	struct xfsj_attr_arg a = { ns, (const uint8_t *)name,
				   (uint32_t)strlen(name), v, vlen, false };
	bool found;

	ck_assert_int_eq(xfsj_attr_remove(fx->fs, ip, &a, &found, &fx->f), 0);
	ck_assert(found);
	reget(fx, ip);
}

START_TEST(test_forkoff)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint8_t v[200];
	uint32_t maxfo, fo;
	uint8_t *sf;
	uint32_t asize;

	memset(v, 'v', sizeof(v));
	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_file(&fx, 9, 0, &ip);
	maxfo = (litino(&fx) - 36) / 8;
	/* The first small attribute adds the fork as far up as it goes. */
	set_ok(&fx, &ip, 0, "a", v, 4);
	ck_assert_uint_eq(ip.di.forkoff, maxfo);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_LOCAL);
	sf = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &asize);
	ck_assert_uint_eq(xfsj_get_be16(sf), 4 + 3 + 1 + 4);
	ck_assert_uint_eq(sf[2], 1);
	ck_assert_uint_eq(sf[4], 1);
	ck_assert_uint_eq(sf[5], 4);
	ck_assert_uint_eq(sf[6], 0);
	/* Growing moves it down just enough, 8 bytes at a time. */
	set_ok(&fx, &ip, XFSJ_ATTR_NS_ROOT, "bb", v, 60);
	fo = (litino(&fx) - (12 + 3 + 2 + 60)) / 8;
	ck_assert_uint_eq(ip.di.forkoff, fo < maxfo ? fo : maxfo);
	set_ok(&fx, &ip, XFSJ_ATTR_NS_SECURE, "ccc", v, 150);
	fo = (litino(&fx) - (77 + 3 + 3 + 150)) / 8;
	ck_assert_uint_eq(ip.di.forkoff, fo);
	sf = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &asize);
	ck_assert_uint_eq(xfsj_get_be16(sf), 77 + 3 + 3 + 150);
	ck_assert_uint_eq(sf[2], 3);
	/* The first entry moved with the fork. */
	ck_assert_uint_eq(sf[4], 1);
	ck_assert(memcmp(sf + 7, "a", 1) == 0);
	/* Shrinking leaves it where it is. */
	rm_ok(&fx, &ip, XFSJ_ATTR_NS_ROOT, "bb", NULL, 0);
	ck_assert_uint_eq(ip.di.forkoff, fo);
	rm_ok(&fx, &ip, 0, "a", NULL, 0);
	ck_assert_uint_eq(ip.di.forkoff, fo);
	/*
	 * The last one takes the fork with it, unless the filesystem has
	 * parent pointers: then an empty short form stays.
	 */
	rm_ok(&fx, &ip, XFSJ_ATTR_NS_SECURE, "ccc", NULL, 0);
	if (pptrs(&fx)) {
		ck_assert_uint_eq(ip.di.forkoff, fo);
		ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_LOCAL);
		sf = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &asize);
		ck_assert_uint_eq(xfsj_get_be16(sf), 4);
		ck_assert_uint_eq(sf[2], 0);
	} else {
		ck_assert_uint_eq(ip.di.forkoff, 0);
		ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	}
	/* A value of 255 bytes or more never goes in the short form. */
	{
		static uint8_t big[300];

		set_ok(&fx, &ip, 0, "x", big, 300);
		ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
		ck_assert_uint_eq(xfsj_dinode_anextents(&ip.di), 1);
		/* The leaf raised the fork offset to the default (196/8). */
		ck_assert_uint_ge(ip.di.forkoff, 24);
		/* An emptied leaf takes the fork, parent pointers or not. */
		rm_ok(&fx, &ip, 0, "x", NULL, 0);
		ck_assert_uint_eq(ip.di.forkoff, 0);
		ck_assert_uint_eq(ip.di.nblocks, 0);
	}
	fs_fixture_free(&fx);
}
END_TEST

/* ---- short form <-> leaf, remote values, parent pointers ---- */

START_TEST(test_leaf_and_back)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint8_t v[64];
	char name[16];

	memset(v, 'q', sizeof(v));
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	make_file(&fx, 9, 24, &ip);
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "user.n%02d", i);
		set_ok(&fx, &ip, 0, name, v, 40);
	}
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(ip.di.nblocks, 1);
	/* Entries in hash order in the leaf. */
	{
		const uint8_t *b = leaf_block(&fx, &ip);
		uint32_t last = 0;

		ck_assert_uint_eq(xfsj_get_be16(b + 8), 0x3bee);
		ck_assert_uint_eq(xfsj_get_be16(b + 56), 12);
		for (int i = 0; i < 12; i++) {
			uint32_t h = xfsj_get_be32(b + 80 + 8 * i);

			ck_assert_uint_ge(h, last);
			last = h;
		}
	}
	/* Removing until the rest fits inline goes back to short form. */
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "user.n%02d", i);
		rm_ok(&fx, &ip, 0, name, NULL, 0);
		if (ip.di.aformat == XFSJ_DINODE_FMT_LOCAL)
			break;
	}
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_LOCAL);
	ck_assert_uint_eq(ip.di.nblocks, 0);
	ck_assert_int_eq(xfsj_defer_finish(fx.fs, &fx.f), 0);
	fs_fixture_reopen(&fx);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_remote)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	static uint8_t v[XFSJ_XATTR_SIZE_MAX], out[XFSJ_XATTR_SIZE_MAX];
	struct xfsj_attr_arg a = { XFSJ_ATTR_NS_ROOT,
				   (const uint8_t *)"big", 3, v, sizeof(v), false };
	uint32_t vlen;
	bool found;
	unsigned int seed = 7;

	rnd_value(v, sizeof(v), &seed);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	make_file(&fx, 9, 24, &ip);
	ck_assert_uint_eq(xfsj_attr_rmt_blocks(4096, 65536), 17);
	ck_assert_uint_eq(xfsj_attr_rmt_blocks(4096, 4040), 1);
	ck_assert_uint_eq(xfsj_attr_rmt_blocks(4096, 4041), 2);
	set_ok(&fx, &ip, XFSJ_ATTR_NS_ROOT, "big", v, sizeof(v));
	ck_assert_uint_eq(ip.di.nblocks, 1 + 17);
	vlen = sizeof(out);
	ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, out, &vlen, &found,
				       &fx.f), 0);
	ck_assert(found);
	ck_assert_uint_eq(vlen, sizeof(v));
	ck_assert(memcmp(out, v, sizeof(v)) == 0);
	/* Too small a buffer: the length only. */
	vlen = 10;
	ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, out, &vlen, &found,
				       &fx.f), 0);
	ck_assert_uint_eq(vlen, sizeof(v));
	/* Replace with a shorter remote value, then a local one. */
	a.valuelen = 5000;
	ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a, XFSJ_ATTR_REPLACE,
				       &fx.f), 0);
	reget(&fx, &ip);
	ck_assert_uint_eq(ip.di.nblocks, 1 + 2);
	a.valuelen = 10;
	ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a, XFSJ_ATTR_REPLACE,
				       &fx.f), 0);
	reget(&fx, &ip);
	/* Fits inline again: back to short form, no blocks. */
	ck_assert_uint_eq(ip.di.nblocks, 0);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_LOCAL);
	vlen = sizeof(out);
	ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, out, &vlen, &found,
				       &fx.f), 0);
	ck_assert_uint_eq(vlen, 10);
	ck_assert(memcmp(out, v, 10) == 0);
	/* CREATE of an existing name and REPLACE of a missing one fail. */
	ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a, XFSJ_ATTR_CREATE,
				       &fx.f), -XFSJ_E_EXISTS);
	a.name = (const uint8_t *)"nope";
	a.namelen = 4;
	ck_assert_int_lt(xfsj_attr_set(fx.fs, &ip, &a, XFSJ_ATTR_REPLACE,
				       &fx.f), 0);
	fs_fixture_reopen(&fx);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(test_parent)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint8_t r1[12], r2[12], r3[12], out[16];
	struct xfsj_attr_arg a = { XFSJ_ATTR_NS_PARENT,
				   (const uint8_t *)"file", 4, r1, 12, false };
	uint32_t vlen;
	bool found;

	parent_rec(r1, 128, 1);
	parent_rec(r2, 131, 1);
	parent_rec(r3, 128, 2);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_file(&fx, 9, 24, &ip);
	set_ok(&fx, &ip, XFSJ_ATTR_NS_PARENT, "file", r1, 12);
	set_ok(&fx, &ip, XFSJ_ATTR_NS_PARENT, "file", r2, 12);
	set_ok(&fx, &ip, 0, "file", r3, 12);
	/* Same name, different parents: both there, found by value. */
	a.value = r2;
	vlen = sizeof(out);
	ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, out, &vlen, &found,
				       &fx.f), 0);
	ck_assert(found);
	ck_assert(memcmp(out, r2, 12) == 0);
	a.value = r3;
	ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, out, &vlen, &found,
				       &fx.f), 0);
	ck_assert(!found);
	ck_assert_uint_eq(xfsj_attr_hash(&(struct xfsj_attr_arg){
		XFSJ_ATTR_NS_PARENT, (const uint8_t *)"file", 4, r2, 12, false }),
		xfsj_parent_hashval((const uint8_t *)"file", 4, 131));
	rm_ok(&fx, &ip, XFSJ_ATTR_NS_PARENT, "file", r1, 12);
	a.value = r1;
	ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, out, &vlen, &found,
				       &fx.f), 0);
	ck_assert(!found);
	a.value = r2;
	ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, out, &vlen, &found,
				       &fx.f), 0);
	ck_assert(found);
	/* A rename moves it: one replace of name and value. */
	{
		struct xfsj_attr_arg to = { XFSJ_ATTR_NS_PARENT,
					    (const uint8_t *)"moved", 5, r1,
					    12, false };

		ck_assert_int_eq(xfsj_attr_replace(fx.fs, &ip, &a, &to,
						   &found, &fx.f), 0);
		ck_assert(found);
		reget(&fx, &ip);
		ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, out, &vlen,
					       &found, &fx.f), 0);
		ck_assert(!found);
		ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &to, out, &vlen,
					       &found, &fx.f), 0);
		ck_assert(found);
	}
	fs_fixture_free(&fx);
}
END_TEST

/* The fork an emptied leaf would lose stays for the replacement. */
START_TEST(test_replace_keeps_fork)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	static uint8_t big[300];
	uint8_t rec[12];
	struct xfsj_attr_arg old = { 0, (const uint8_t *)"x", 1, big, 300, false };
	struct xfsj_attr_arg pp = { XFSJ_ATTR_NS_PARENT,
				    (const uint8_t *)"name", 4, rec, 12, false };
	uint8_t fo;
	bool found;

	parent_rec(rec, 128, 1);
	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_file(&fx, 9, 0, &ip);
	set_ok(&fx, &ip, 0, "x", big, 300);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	fo = ip.di.forkoff;
	ck_assert_int_eq(xfsj_attr_replace(fx.fs, &ip, &old, &pp, &found,
					   &fx.f), 0);
	ck_assert(found);
	reget(&fx, &ip);
	/* Kept where the leaf had it: not re-added at the top. */
	ck_assert_uint_eq(ip.di.forkoff, fo);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_LOCAL);
	ck_assert_uint_eq(ip.di.nblocks, 0);
	/* Removed then set instead, the fork goes and comes back higher. */
	rm_ok(&fx, &ip, XFSJ_ATTR_NS_PARENT, "name", rec, 12);
	set_ok(&fx, &ip, 0, "x", big, 300);
	rm_ok(&fx, &ip, 0, "x", NULL, 0);
	ck_assert_uint_eq(ip.di.forkoff, 0);
	set_ok(&fx, &ip, XFSJ_ATTR_NS_PARENT, "name", rec, 12);
	ck_assert_uint_gt(ip.di.forkoff, fo);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- past one leaf: the root node over split leaves ---- */

START_TEST(test_node_grow)
{
	static const uint8_t nss[] = { 0, XFSJ_ATTR_NS_ROOT,
				       XFSJ_ATTR_NS_SECURE,
				       XFSJ_ATTR_NS_PARENT };
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_attr_arg a = { 0 };
	static struct model md;
	unsigned int seed = 11 + (unsigned int)_i;
	uint32_t leaves = 0;
	bool found;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	make_file(&fx, 9, _i ? 0 : 24, &ip);
	memset(&md, 0, sizeof(md));
	while (md.n < MAXA) {
		struct mattr *m = &md.a[md.n];

		m->ns = nss[md.n % 4];
		m->namelen = (uint32_t)snprintf((char *)m->name, 256,
						"name.%03d", md.n);
		if (m->ns == XFSJ_ATTR_NS_PARENT)
			m->valuelen = 12;
		else if (md.n % 7 == 5)
			m->valuelen = 5000 + rand_r(&seed) % 9000;
		else
			m->valuelen = 100 + rand_r(&seed) % 500;
		m->value = malloc(m->valuelen);
		rnd_value(m->value, m->valuelen, &seed);
		to_arg(m, &a);
		md.n++;
		ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a,
					       XFSJ_ATTR_CREATE, &fx.f), 0);
		reget(&fx, &ip);
		check(&fx, &ip, &md);
		if (ip.di.aformat == XFSJ_DINODE_FMT_EXTENTS &&
		    xfsj_get_be16(fork_block(&fx, &ip, 0) + 8) == 0x3ebe)
			leaves = check_tree(&fx, &ip);
	}
	ck_assert_uint_ge(leaves, 3);
	/*
	 * Replace values and remove, leaves merging back until the tree
	 * collapses to one leaf and then to short form.
	 */
	for (int step = 0; md.n; step++) {
		int i = rand_r(&seed) % md.n;

		to_arg(&md.a[i], &a);
		if (step % 3 == 1 && md.a[i].ns != XFSJ_ATTR_NS_PARENT) {
			md.a[i].valuelen = 100 + rand_r(&seed) % 500;
			md.a[i].value = realloc(md.a[i].value,
						md.a[i].valuelen);
			rnd_value(md.a[i].value, md.a[i].valuelen, &seed);
			to_arg(&md.a[i], &a);
			ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a,
						       XFSJ_ATTR_REPLACE,
						       &fx.f), 0);
		} else {
			ck_assert_int_eq(xfsj_attr_remove(fx.fs, &ip, &a,
							  &found, &fx.f), 0);
			ck_assert(found);
			free(md.a[i].value);
			md.a[i] = md.a[--md.n];
		}
		reget(&fx, &ip);
		check(&fx, &ip, &md);
		if (ip.di.aformat == XFSJ_DINODE_FMT_EXTENTS && ip.di.forkoff &&
		    xfsj_get_be16(fork_block(&fx, &ip, 0) + 8) == 0x3ebe)
			check_tree(&fx, &ip);
	}
	ck_assert_uint_eq(ip.di.nblocks, 0);
	fs_fixture_reopen(&fx);
	for (int i = 0; i < md.n; i++)
		free(md.a[i].value);
	fs_fixture_free(&fx);
}
END_TEST

/* Values of most of a block: leaves split twice for one entry. */
START_TEST(test_node_big_values)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_attr_arg a = { 0 };
	static struct model md;
	unsigned int seed = 5;
	uint32_t prev = 1;
	bool found, doubled = false;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_file(&fx, 9, 24, &ip);
	memset(&md, 0, sizeof(md));
	for (int i = 0; i < 30; i++) {
		struct mattr *m = &md.a[md.n++];

		m->ns = 0;
		m->namelen = (uint32_t)snprintf((char *)m->name, 256, "big%d",
						i);
		/* Local values, from a third to 3/4 of the block. */
		m->valuelen = 1300 + rand_r(&seed) % 1700;
		m->value = malloc(m->valuelen);
		rnd_value(m->value, m->valuelen, &seed);
		to_arg(m, &a);
		ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a,
					       XFSJ_ATTR_CREATE, &fx.f), 0);
		reget(&fx, &ip);
		check(&fx, &ip, &md);
		if (md.n > 1) {
			uint32_t leaves = check_tree(&fx, &ip);

			if (leaves == prev + 2)
				doubled = true;
			prev = leaves;
		}
	}
	ck_assert(doubled);
	while (md.n) {
		to_arg(&md.a[0], &a);
		ck_assert_int_eq(xfsj_attr_remove(fx.fs, &ip, &a, &found,
						  &fx.f), 0);
		ck_assert(found);
		free(md.a[0].value);
		md.a[0] = md.a[--md.n];
		reget(&fx, &ip);
		check(&fx, &ip, &md);
	}
	ck_assert_uint_eq(ip.di.forkoff, 0);
	ck_assert_uint_eq(ip.di.nblocks, 0);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- hostile input ---- */

static int get_err(struct fs_fixture *fx, struct xfsj_iref *ip)
{
	struct xfsj_attr_arg a = { 0, (const uint8_t *)"zz", 2, NULL, 0, false };
	uint32_t vlen = 0;
	bool found;

	memset(&fx->f, 0, sizeof(fx->f));
	return xfsj_attr_get(fx->fs, ip, &a, NULL, &vlen, &found, &fx->f);
}

START_TEST(test_hostile_sf)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	uint8_t v[8] = { 0 };
	uint8_t *sf, save[64];
	uint32_t asize;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_file(&fx, 9, 24, &ip);
	set_ok(&fx, &ip, 0, "ab", v, 8);
	set_ok(&fx, &ip, 0, "cd", v, 8);
	sf = xfsj_ifork(fx.fs, &ip, XFSJ_ATTR_FORK, &asize);
	memcpy(save, sf, sizeof(save));
	ck_assert_int_eq(get_err(&fx, &ip), 0);

	xfsj_put_be16(sf, (uint16_t)(asize + 1));	/* totsize too big */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.structure, "attr shortform");
	memcpy(sf, save, sizeof(save));
	xfsj_put_be16(sf, 3);				/* below the header */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	memcpy(sf, save, sizeof(save));
	sf[2] = 3;					/* count too big */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	memcpy(sf, save, sizeof(save));
	sf[2] = 1;					/* count too small */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	memcpy(sf, save, sizeof(save));
	sf[4] = 0;					/* empty name */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	memcpy(sf, save, sizeof(save));
	sf[5] = 200;					/* value past end */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	memcpy(sf, save, sizeof(save));
	sf[6] = XFSJ_ATTR_NS_ROOT | XFSJ_ATTR_NS_SECURE; /* two namespaces */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	memcpy(sf, save, sizeof(save));
	sf[6] = 0x80;					/* incomplete */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	memcpy(sf, save, sizeof(save));
	ck_assert_int_eq(get_err(&fx, &ip), 0);
	/* A fork offset past the literal area. */
	ip.di.forkoff = 250;
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.field, "forkoff");
	fs_fixture_free(&fx);
}
END_TEST

/* Corrupt, re-checksum (so the structure check is what fails), test. */
static int leaf_err(struct fs_fixture *fx, struct xfsj_iref *ip, uint8_t *b)
{
	xfsj_cksum_update(b, 4096, 12);
	return get_err(fx, ip);
}

START_TEST(test_hostile_leaf)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	static uint8_t v[300], save[4096];
	uint8_t *b;
	uint16_t ni;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_file(&fx, 9, 24, &ip);
	set_ok(&fx, &ip, 0, "ab", v, 300);
	set_ok(&fx, &ip, 0, "cd", v, 20);
	b = leaf_block(&fx, &ip);
	xfsj_cksum_update(b, 4096, 12);
	memcpy(save, b, sizeof(save));
	ck_assert_int_eq(get_err(&fx, &ip), 0);

	b[100] ^= 1;					/* bad CRC */
	ck_assert_int_eq(get_err(&fx, &ip), -XFSJ_E_BADCRC);
	memcpy(b, save, 4096);
	xfsj_put_be16(b + 56, 600);			/* count */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.structure, "attr leaf");
	ck_assert_str_eq(fx.f.field, "count");
	memcpy(b, save, 4096);
	xfsj_put_be16(b + 60, 40);			/* firstused */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	memcpy(b, save, 4096);
	xfsj_put_be16(b + 80 + 4, 4095);		/* nameidx at end */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	memcpy(b, save, 4096);
	xfsj_put_be16(b + 80 + 4, 10);			/* below firstused */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	memcpy(b, save, 4096);
	ni = xfsj_get_be16(b + 80 + 4);
	xfsj_put_be16(b + ni, 4000);			/* valuelen past end */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	memcpy(b, save, 4096);
	xfsj_put_be32(b + 80, 0xffffffff);		/* hash order */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	memcpy(b, save, 4096);
	xfsj_put_be16(b + 64, 2);			/* freemap align */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	memcpy(b, save, 4096);
	xfsj_put_be16(b + 64, 4000);			/* freemap end */
	xfsj_put_be16(b + 66, 200);
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	memcpy(b, save, 4096);
	xfsj_put_be64(b + 48, 12345);			/* owner */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	memcpy(b, save, 4096);
	b[80 + 6] |= 0x80;				/* half-made entry */
	xfsj_cksum_update(b, 4096, 12);
	{
		struct xfsj_attr_arg a = { 0 };
		uint32_t h = xfsj_get_be32(b + 80);
		uint32_t vlen = 0;
		bool found;
		int listed = 0;

		ck_assert_int_eq(xfsj_attr_list(fx.fs, &ip, count_fn, &listed,
						&fx.f), 0);
		ck_assert_int_eq(listed, 1);
		/* Whichever of the two it was is gone for lookups too. */
		for (int k = 0; k < 2; k++) {
			a = (struct xfsj_attr_arg){ 0, (const uint8_t *)
						    (k ? "cd" : "ab"), 2,
						    NULL, 0, false };
			ck_assert_int_eq(xfsj_attr_get(fx.fs, &ip, &a, NULL,
						       &vlen, &found, &fx.f),
					 0);
			if (xfsj_attr_hash(&a) == h)
				ck_assert(!found);
		}
	}
	memcpy(b, save, 4096);
	xfsj_put_be16(b + 8, 0x3ebe);			/* a bad node */
	ck_assert_int_eq(leaf_err(&fx, &ip, b), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.structure, "attr node");
	memcpy(b, save, 4096);
	ck_assert_int_eq(get_err(&fx, &ip), 0);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- node (dabtree) forks: read, not changed ---- */

static uint64_t ablock_daddr(struct fs_fixture *fx, uint64_t fsb)
{
	return xfsj_agb_to_daddr(SB(fx), xfsj_fsb_agno(SB(fx), fsb),
				 xfsj_fsb_agbno(SB(fx), fsb));
}

static uint8_t *new_block(struct fs_fixture *fx, struct xfsj_iref *ip,
			  uint64_t lblk, uint64_t *daddr)
{
	struct xfsj_buf *bp;
	uint64_t fsb;

	ck_assert_int_eq(xfsj_bmap_alloc(fx->fs, ip, XFSJ_ATTR_FORK, lblk, 1,
					 &fsb, &fx->f), 0);
	*daddr = ablock_daddr(fx, fsb);
	ck_assert_int_eq(xfsj_buf_get_zero(fx->fs, *daddr, 4096, &bp), 0);
	xfsj_buf_dirty(bp);
	return bp->data;
}

START_TEST(test_node_read)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct model md;
	struct xfsj_attr_arg a = { 0 };
	uint8_t *leaf[2], *node, *old;
	uint64_t daddr[3];
	uint32_t hashes[20], median;
	unsigned int seed = 3;
	bool found;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, false, false);
	make_file(&fx, 9, 24, &ip);
	memset(&md, 0, sizeof(md));
	/* A leaf fork first: the node replaces its block 0 below. */
	for (int i = 0; i < 20; i++) {
		struct mattr *m = &md.a[md.n++];

		m->ns = (uint8_t)(i % 3 ? 0 : XFSJ_ATTR_NS_SECURE);
		m->namelen = (uint32_t)snprintf((char *)m->name, 256, "n%d", i);
		m->valuelen = 20 + (uint32_t)i;
		m->value = malloc(m->valuelen);
		rnd_value(m->value, m->valuelen, &seed);
		to_arg(m, &a);
		hashes[i] = xfsj_attr_hash(&a);
		ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a,
					       XFSJ_ATTR_CREATE, &fx.f), 0);
	}
	reget(&fx, &ip);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	old = leaf_block(&fx, &ip);
	median = xfsj_get_be32(old + 80 + 8 * 10);
	/* Two leaves at blocks 1 and 2 split at the median hash. */
	leaf[0] = new_block(&fx, &ip, 1, &daddr[1]);
	leaf[1] = new_block(&fx, &ip, 2, &daddr[2]);
	xfsj_attr_leaf_init(fx.fs, ip.ino, leaf[0], daddr[1]);
	xfsj_attr_leaf_init(fx.fs, ip.ino, leaf[1], daddr[2]);
	xfsj_put_be32(leaf[0], 2);			/* forw */
	xfsj_put_be32(leaf[1] + 4, 1);			/* back */
	for (int i = 0; i < md.n; i++) {
		int k = hashes[i] < median ? 0 : 1;
		uint32_t index;
		bool nospc, remote;

		to_arg(&md.a[i], &a);
		xfsj_attr_leaf_lookup(leaf[k], 4096, &a, hashes[i], &index,
				      &found);
		ck_assert(!found);
		ck_assert_int_eq(xfsj_attr_leaf_add(leaf[k], 4096, &a,
						    hashes[i], index, &nospc,
						    &remote), 0);
		ck_assert(!nospc && !remote);
	}
	/* Block 0 becomes the root node over them. */
	node = old;
	daddr[0] = xfsj_get_be64(old + 16);
	memset(node, 0, 4096);
	xfsj_put_be16(node + 8, 0x3ebe);
	xfsj_put_be64(node + 16, daddr[0]);
	memcpy(node + 32, leaf[0] + 32, 16);
	xfsj_put_be64(node + 48, ip.ino);
	xfsj_put_be16(node + 56, 2);
	xfsj_put_be16(node + 58, 1);
	for (int k = 0; k < 2; k++) {
		uint32_t n = xfsj_attr_leaf_count(leaf[k]);

		xfsj_put_be32(node + 64 + 8 * k,
			      xfsj_get_be32(leaf[k] + 80 + 8 * (n - 1)));
		xfsj_put_be32(node + 64 + 8 * k + 4, (uint32_t)k + 1);
		xfsj_cksum_update(leaf[k], 4096, 12);
	}
	xfsj_cksum_update(node, 4096, 12);
	reget(&fx, &ip);
	check(&fx, &ip, &md);
	/* A sibling loop is caught. */
	xfsj_put_be32(leaf[1], 1);
	xfsj_cksum_update(leaf[1], 4096, 12);
	ck_assert_int_eq(xfsj_attr_list(fx.fs, &ip, list_fn_any, NULL,
					&fx.f), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(fx.f.field, "forw (loop)");
	xfsj_put_be32(leaf[1], 0);
	xfsj_cksum_update(leaf[1], 4096, 12);
	/*
	 * These leaves are sparse: the first removal merges them, the root
	 * gives way to the one leaf left, and that fits in the inode.
	 */
	to_arg(&md.a[0], &a);
	ck_assert_int_eq(xfsj_attr_remove(fx.fs, &ip, &a, &found, &fx.f), 0);
	ck_assert(found);
	free(md.a[0].value);
	md.a[0] = md.a[--md.n];
	reget(&fx, &ip);
	check(&fx, &ip, &md);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(ip.di.nblocks, 1);
	ck_assert_uint_eq(xfsj_get_be16(leaf_block(&fx, &ip) + 8), 0x3bee);
	for (int i = 0; i < md.n; i++)
		free(md.a[i].value);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * One level of a tree: every node's entries carry its children's last
 * hashes in order, and the blocks of each level form one sibling chain
 * from left to right.  Returns the root's level.
 */
static uint32_t check_deep(struct fs_fixture *fx, struct xfsj_iref *ip)
{
	static uint32_t cur[4096], nxt[4096];
	const uint8_t *root = fork_block(fx, ip, 0);
	uint32_t level = xfsj_get_be16(root + 58), ncur = 1, nnxt;

	ck_assert_uint_eq(xfsj_get_be16(root + 8), 0x3ebe);
	cur[0] = 0;
	for (uint32_t lv = level; lv > 0; lv--) {
		uint32_t prev = 0, last = 0;

		nnxt = 0;
		for (uint32_t k = 0; k < ncur; k++) {
			const uint8_t *b = fork_block(fx, ip, cur[k]);
			uint32_t count = xfsj_get_be16(b + 56);

			ck_assert_uint_eq(xfsj_get_be16(b + 8), 0x3ebe);
			ck_assert_uint_eq(xfsj_get_be16(b + 58), lv);
			ck_assert_uint_gt(count, lv == level ? 1 : 0);
			if (lv != level) {
				ck_assert_uint_eq(xfsj_get_be32(b + 4), prev);
				ck_assert_uint_eq(xfsj_get_be32(b),
						  k + 1 < ncur ? cur[k + 1]
							       : 0);
			}
			prev = cur[k];
			for (uint32_t i = 0; i < count; i++) {
				uint32_t h = xfsj_get_be32(b + 64 + 8 * i);
				uint32_t c = xfsj_get_be32(b + 68 + 8 * i);
				const uint8_t *cb = fork_block(fx, ip, c);
				uint32_t ch;

				ck_assert_uint_ge(h, last);
				last = h;
				if (lv == 1) {
					ck_assert_uint_eq(
						xfsj_get_be16(cb + 8), 0x3bee);
					ck_assert_uint_gt(
						xfsj_attr_leaf_count(cb), 0);
					ch = xfsj_attr_leaf_lasthash(cb);
				} else {
					uint32_t n = xfsj_get_be16(cb + 56);

					ch = xfsj_get_be32(cb + 64 +
							   8 * (n - 1));
				}
				ck_assert_uint_eq(h, ch);
				ck_assert_uint_lt(nnxt, 4096);
				nxt[nnxt++] = c;
			}
		}
		memcpy(cur, nxt, nnxt * sizeof(*cur));
		ncur = nnxt;
	}
	/* The leaves: one chain, hashes not falling across it. */
	for (uint32_t k = 0, last = 0; k < ncur; k++) {
		const uint8_t *l = fork_block(fx, ip, cur[k]);

		ck_assert_uint_eq(xfsj_get_be32(l + 4), k ? cur[k - 1] : 0);
		ck_assert_uint_eq(xfsj_get_be32(l),
				  k + 1 < ncur ? cur[k + 1] : 0);
		ck_assert_uint_ge(xfsj_get_be32(l + 80), last);
		last = xfsj_attr_leaf_lasthash(l);
	}
	return level;
}

/* The attributes a full model check looks up, @n at the end. */
static void check_some(struct fs_fixture *fx, struct xfsj_iref *ip,
		       struct model *md, int step)
{
	int cnt = 0;

	/* A full check now and then, the whole list and a few every time. */
	if (step % 16 == 0 || md->n < 24) {
		check(fx, ip, md);
		return;
	}
	ck_assert_int_eq(xfsj_attr_list(fx->fs, ip, count_fn, &cnt, &fx->f),
			 0);
	ck_assert_int_eq(cnt, md->n);
	for (int k = 0; k < 8 && md->n; k++) {
		static uint8_t buf[1024];
		struct xfsj_attr_arg a = { 0 };
		uint32_t vlen = sizeof(buf);
		int i = (step * 7 + k * 37) % md->n;
		bool found;

		to_arg(&md->a[i], &a);
		ck_assert_int_eq(xfsj_attr_get(fx->fs, ip, &a, buf, &vlen,
					       &found, &fx->f), 0);
		ck_assert(found);
		ck_assert_uint_eq(vlen, md->a[i].valuelen);
		if (vlen)
			ck_assert(memcmp(buf, md->a[i].value, vlen) == 0);
	}
}

/*
 * A level-1 node claiming level 2 (its checksum right) under the root:
 * a change that walks through it is refused, nothing changed, and the
 * tree works again once the byte is back.
 */
static void deep_hostile(struct fs_fixture *fx, struct xfsj_iref *ip,
			 struct model *md)
{
	uint8_t *root = fork_block(fx, ip, 0), *b, save[1024];
	uint32_t bs = SB(fx)->blocksize, best = UINT32_MAX;
	struct xfsj_attr_arg a = { 0 };
	bool found;
	int k = 0;

	/* The attribute with the lowest hash lives under the first child. */
	for (int i = 0; i < md->n; i++) {
		to_arg(&md->a[i], &a);
		if (xfsj_attr_hash(&a) < best) {
			best = xfsj_attr_hash(&a);
			k = i;
		}
	}
	b = fork_block(fx, ip, xfsj_get_be32(root + 68));
	ck_assert_uint_eq(xfsj_get_be16(b + 58), 1);
	memcpy(save, b, bs);
	xfsj_put_be16(b + 58, 2);
	xfsj_cksum_update(b, bs, 12);
	to_arg(&md->a[k], &a);
	ck_assert_int_eq(xfsj_attr_remove(fx->fs, ip, &a, &found, &fx->f),
			 -XFSJ_E_CORRUPT);
	memcpy(b, save, bs);
	check(fx, ip, md);
}

/*
 * Long names in 1 KiB blocks (one or two per leaf) grow the tree past a
 * full root: a new level, nodes splitting below it; then everything is
 * removed in random order, nodes joining and the root collapsing level
 * by level back to one leaf and to short form.
 */
START_TEST(test_node_deep)
{
	struct fs_fixture fx;
	struct xfsj_iref ip;
	struct xfsj_attr_arg a = { 0 };
	static struct model md;
	unsigned int seed = 23;
	uint32_t maxlevel = 0, level, rootcount = 0;
	bool found;
	int step = 0;

	fs_fixture_make(&fx, 64 * MB, 1024, 2, true, false);
	make_file(&fx, 9, 0, &ip);
	memset(&md, 0, sizeof(md));
	while (md.n < MAXM) {
		struct mattr *m = &md.a[md.n];
		int len;

		m->ns = md.n % 5 == 4 ? XFSJ_ATTR_NS_PARENT : 0;
		m->namelen = 160 + rand_r(&seed) % 96;
		len = snprintf((char *)m->name, 256, "deep.%04d.", md.n);
		for (uint32_t i = (uint32_t)len; i < m->namelen; i++)
			m->name[i] = (uint8_t)('a' + rand_r(&seed) % 26);
		m->valuelen = m->ns ? 12 : rand_r(&seed) % 300;
		m->value = malloc(300);
		rnd_value(m->value, m->valuelen, &seed);
		to_arg(m, &a);
		md.n++;
		ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a,
					       XFSJ_ATTR_CREATE, &fx.f), 0);
		reget(&fx, &ip);
		check_some(&fx, &ip, &md, step++);
		if (md.n % 8 == 0 || md.n == MAXM) {
			level = check_deep(&fx, &ip);
			if (level > maxlevel)
				maxlevel = level;
			if (level == 2)
				rootcount = xfsj_get_be16(
					fork_block(&fx, &ip, 0) + 56);
		}
	}
	check(&fx, &ip, &md);
	/* 440 long names make 3 level-1 nodes under a level-2 root. */
	ck_assert_uint_ge(maxlevel, 2);
	ck_assert_uint_ge(rootcount, 3);
	deep_hostile(&fx, &ip, &md);
	while (md.n) {
		int i = rand_r(&seed) % md.n;

		to_arg(&md.a[i], &a);
		if (step % 5 == 0 && md.a[i].ns != XFSJ_ATTR_NS_PARENT) {
			/* A replace: remove and add again in a deep tree. */
			md.a[i].valuelen = rand_r(&seed) % 300;
			rnd_value(md.a[i].value, md.a[i].valuelen, &seed);
			to_arg(&md.a[i], &a);
			ck_assert_int_eq(xfsj_attr_set(fx.fs, &ip, &a,
						       XFSJ_ATTR_REPLACE,
						       &fx.f), 0);
		} else {
			ck_assert_int_eq(xfsj_attr_remove(fx.fs, &ip, &a,
							  &found, &fx.f), 0);
			ck_assert(found);
			free(md.a[i].value);
			md.a[i] = md.a[--md.n];
		}
		reget(&fx, &ip);
		check_some(&fx, &ip, &md, step++);
		if (md.n % 8 == 0 && ip.di.aformat != XFSJ_DINODE_FMT_LOCAL &&
		    ip.di.forkoff &&
		    xfsj_get_be16(fork_block(&fx, &ip, 0) + 8) == 0x3ebe)
			check_deep(&fx, &ip);
	}
	/* Back to short form, or no fork at all (as test_random). */
	if (ip.di.aformat != XFSJ_DINODE_FMT_LOCAL)
		ck_assert_uint_eq(ip.di.forkoff, 0);
	ck_assert_uint_eq(ip.di.nblocks, 0);
	ck_assert_uint_eq(xfsj_dinode_anextents(&ip.di), 0);
	fs_fixture_reopen(&fx);
	fs_fixture_free(&fx);
}
END_TEST

Suite *attr_suite(void)
{
	Suite *s = suite_create("attr");
	TCase *tc = tcase_create("attr");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_forkoff);
	tcase_add_test(tc, test_leaf_and_back);
	tcase_add_test(tc, test_remote);
	tcase_add_test(tc, test_parent);
	tcase_add_test(tc, test_replace_keeps_fork);
	tcase_add_loop_test(tc, test_node_grow, 0, 2);
	tcase_add_test(tc, test_node_big_values);
	tcase_add_test(tc, test_hostile_sf);
	tcase_add_test(tc, test_hostile_leaf);
	tcase_add_test(tc, test_node_read);
	tcase_add_test(tc, test_node_deep);
	/*
	 * Runs 4 and 5 also grow past one leaf into a node tree; 6 and 7
	 * do it with 1 KiB blocks.
	 */
	tcase_add_loop_test(tc, test_random, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}
