/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Attribute leaf blocks (fs/attr_leaf.c) worked on directly, against a
 * model written here from the format (struct xfs_attr3_leafblock): after
 * every change the entries are sorted by hash, the names and values lie
 * in the block without overlapping each other, the entry table or the
 * free map, their sizes (local: 3 + name + value, remote: 11 + name,
 * each rounded up to 4) add up to usedbytes, and the entries are exactly
 * the model's.  Insertion until the block is full (the boundary: refused
 * only when the free bytes cannot hold the entry), removals leaving
 * holes and compaction, remote entries, the split (rebalance) and join
 * (unbalance) of two leaves, the short-form size, and hostile blocks
 * refused by the verifier naming the field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/attr.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define MB	(1ULL << 20)
#define BS	4096
#define HDR	80
#define DADDR	800

struct ment {
	uint8_t ns;
	char name[64];
	uint32_t nlen, vlen;
	uint8_t value[3200];
	bool remote;
};

struct lmodel {
	unsigned int n;
	struct ment e[400];
};

static uint32_t r4(uint32_t x)
{
	return (x + 3) & ~3U;
}

static void arg_of(const struct ment *m, struct xfsj_attr_arg *a)
{
	memset(a, 0, sizeof(*a));
	a->ns = m->ns;
	a->name = (const uint8_t *)m->name;
	a->namelen = m->nlen;
	a->value = m->value;
	a->valuelen = m->vlen;
}

/* The entry a model entry is in the block, by name and namespace. */
static bool ent_is(const uint8_t *b, uint32_t i, const struct ment *m)
{
	struct xfsj_attr_lent e;

	xfsj_attr_leaf_get_ent(b, BS, i, &e);
	if ((e.flags & XFSJ_ATTR_NS_MASK) != m->ns || e.namelen != m->nlen ||
	    memcmp(e.name, m->name, m->nlen))
		return false;
	if (m->remote)
		return !(e.flags & XFSJ_ATTR_FLAG_LOCAL);
	return (e.flags & XFSJ_ATTR_FLAG_LOCAL) && e.valuelen == m->vlen &&
	       memcmp(e.value, m->value, m->vlen) == 0;
}

/* The layout rules and the model, checked on the raw bytes. */
static void check_leaf(const uint8_t *b, const struct lmodel *md)
{
	uint32_t count = xfsj_get_be16(b + 56);
	uint32_t used = xfsj_get_be16(b + 58);
	uint32_t firstused = xfsj_get_be16(b + 60) ? xfsj_get_be16(b + 60) : BS;
	uint32_t table = HDR + 8 * count, sum = 0, lasthash = 0;
	static uint8_t owner[BS];	/* who holds each byte: 0 free */
	bool seen[400] = { false };

	ck_assert_uint_eq(xfsj_get_be16(b + 8), 0x3bee);
	ck_assert_uint_eq(count, md->n);
	ck_assert_uint_le(table, firstused);
	memset(owner, 0, sizeof(owner));
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = b + HDR + 8 * i;
		uint32_t hash = xfsj_get_be32(e), ni = xfsj_get_be16(e + 4);
		const uint8_t *n = b + ni;
		uint32_t size;
		bool match = false;

		ck_assert_uint_ge(hash, lasthash);
		lasthash = hash;
		ck_assert_uint_ge(ni, firstused);
		ck_assert_uint_eq(ni % 4, 0);
		ck_assert_uint_lt(ni + 3, BS);
		if (e[6] & XFSJ_ATTR_FLAG_LOCAL)
			size = r4(3 + n[2] + xfsj_get_be16(n));
		else
			size = r4(11 + n[8]);
		ck_assert_uint_le(ni + size, BS);
		for (uint32_t k = ni; k < ni + size; k++) {
			ck_assert_msg(!owner[k], "names overlap at %u", k);
			owner[k] = 1;
		}
		sum += size;
		for (unsigned int m = 0; m < md->n && !match; m++) {
			if (seen[m] || !ent_is(b, i, &md->e[m]))
				continue;
			struct xfsj_attr_arg a;

			arg_of(&md->e[m], &a);
			ck_assert_uint_eq(hash, xfsj_attr_hash(&a));
			seen[m] = match = true;
		}
		ck_assert_msg(match, "entry %u is not in the model", i);
	}
	ck_assert_uint_eq(used, sum);
	/* Free regions: aligned, past the table, over no name. */
	for (int i = 0; i < 3; i++) {
		uint32_t base = xfsj_get_be16(b + 64 + 4 * i);
		uint32_t size = xfsj_get_be16(b + 66 + 4 * i);

		if (!size)
			continue;
		ck_assert_uint_eq(base % 4, 0);
		ck_assert_uint_eq(size % 4, 0);
		ck_assert_uint_ge(base, table);
		ck_assert_uint_le(base + size, BS);
		for (uint32_t k = base; k < base + size; k++)
			ck_assert_msg(!owner[k], "free region over a name");
	}
}

/* Bytes still free: what no entry, name or header takes. */
static uint32_t free_bytes(const uint8_t *b)
{
	return BS - xfsj_attr_leaf_used(b);
}

static uint32_t new_size(const struct ment *m)
{
	uint32_t local = r4(3 + m->nlen + m->vlen);

	return local < BS * 3 / 4 ? local : r4(11 + m->nlen);
}

/* Add @m where lookup says; *nospc as the leaf said. */
static void add(uint8_t *b, struct lmodel *md, const struct ment *m,
		bool *nospc)
{
	struct xfsj_attr_arg a;
	uint32_t index, hash;
	bool found, remote;

	arg_of(m, &a);
	hash = xfsj_attr_hash(&a);
	xfsj_attr_leaf_lookup(b, BS, &a, hash, &index, &found);
	ck_assert(!found);
	ck_assert_int_eq(xfsj_attr_leaf_add(b, BS, &a, hash, index, nospc,
					    &remote), 0);
	if (*nospc)
		return;
	ck_assert(remote == (r4(3 + m->nlen + m->vlen) >= BS * 3 / 4));
	if (remote)
		xfsj_attr_leaf_set_rmt(b, BS, index, 7, m->vlen);
	md->e[md->n] = *m;
	md->e[md->n++].remote = remote;
}

static void rnd_ent(struct ment *m, unsigned int *seed, unsigned int i,
		    uint32_t maxv)
{
	memset(m, 0, sizeof(*m));
	m->ns = (uint8_t)((rand_r(seed) % 3) << 1);
	m->nlen = (uint32_t)snprintf(m->name, sizeof(m->name), "a%u.%u", i,
				     (unsigned int)rand_r(seed) % 100000);
	m->vlen = (uint32_t)rand_r(seed) % maxv;
	for (uint32_t k = 0; k < m->vlen; k++)
		m->value[k] = (uint8_t)rand_r(seed);
}

/* Remove model entry @k from the block and the model. */
static bool del(uint8_t *b, struct lmodel *md, unsigned int k)
{
	struct xfsj_attr_arg a;
	uint32_t index;
	bool found, low;

	arg_of(&md->e[k], &a);
	xfsj_attr_leaf_lookup(b, BS, &a, xfsj_attr_hash(&a), &index, &found);
	ck_assert(found);
	low = xfsj_attr_leaf_remove(b, BS, index);
	md->e[k] = md->e[--md->n];
	return low;
}

struct fixture {
	struct fs_fixture fx;
	uint8_t *b, *b2;
	struct lmodel *md, *md2;
};

static void fixture_make(struct fixture *t)
{
	fs_fixture_make(&t->fx, 64 * MB, BS, 2, false, false);
	t->b = malloc(BS);
	t->b2 = malloc(BS);
	t->md = calloc(1, sizeof(*t->md));
	t->md2 = calloc(1, sizeof(*t->md2));
	ck_assert(t->b && t->b2 && t->md && t->md2);
	xfsj_attr_leaf_init(t->fx.fs, 1234, t->b, DADDR);
	xfsj_attr_leaf_init(t->fx.fs, 1234, t->b2, DADDR + 8);
}

static void fixture_free(struct fixture *t)
{
	free(t->b);
	free(t->b2);
	free(t->md);
	free(t->md2);
	fs_fixture_free(&t->fx);
}

static int verify(struct fixture *t, uint8_t *b, uint64_t daddr)
{
	xfsj_cksum_update(b, BS, 12);
	memset(&t->fx.f, 0, sizeof(t->fx.f));
	return xfsj_attr_leaf_verify(t->fx.fs, 1234, b, daddr, &t->fx.f);
}

/* ---- tests ---- */

/* A new leaf: the format's empty header, and the verifier takes it. */
START_TEST(init_empty)
{
	struct fixture t;

	fixture_make(&t);
	ck_assert_uint_eq(xfsj_get_be16(t.b + 56), 0);
	ck_assert_uint_eq(xfsj_get_be16(t.b + 60), BS);
	ck_assert_uint_eq(xfsj_get_be16(t.b + 64), HDR);
	ck_assert_uint_eq(xfsj_get_be16(t.b + 66), BS - HDR);
	ck_assert_uint_eq(xfsj_get_be64(t.b + 16), DADDR);
	ck_assert_uint_eq(xfsj_get_be64(t.b + 48), 1234);
	ck_assert(memcmp(t.b + 32, t.fx.sb.uuid, 16) == 0);
	ck_assert_int_eq(verify(&t, t.b, DADDR), 0);
	check_leaf(t.b, t.md);
	fixture_free(&t);
}
END_TEST

/*
 * Random entries until the leaf is full; then removals and more
 * insertions (holes, compaction).  The model after every step; "no
 * space" only when the free bytes cannot hold the entry and its slot.
 */
START_TEST(fill_remove_refill)
{
	struct fixture t;
	unsigned int seed = 11 + (unsigned int)_i, fulls = 0;
	struct ment m;
	bool nospc;

	fixture_make(&t);
	for (unsigned int round = 0; round < 6; round++) {
		for (unsigned int i = 0; i < 400; i++) {
			uint32_t before = free_bytes(t.b);

			rnd_ent(&m, &seed, round * 1000 + i, _i ? 40 : 200);
			add(t.b, t.md, &m, &nospc);
			check_leaf(t.b, t.md);
			ck_assert_int_eq(verify(&t, t.b, DADDR), 0);
			if (nospc) {
				ck_assert_uint_lt(before, new_size(&m) + 8);
				fulls++;
				break;
			}
			ck_assert_uint_eq(free_bytes(t.b),
					  before - new_size(&m) - 8);
		}
		/* Every other entry goes, leaving holes. */
		for (unsigned int k = 0; k < t.md->n; k++) {
			del(t.b, t.md, k);
			check_leaf(t.b, t.md);
		}
		ck_assert_int_eq(verify(&t, t.b, DADDR), 0);
	}
	ck_assert_uint_eq(fulls, 6);
	while (t.md->n)
		del(t.b, t.md, 0);
	check_leaf(t.b, t.md);
	ck_assert_uint_eq(xfsj_attr_leaf_used(t.b), HDR);
	fixture_free(&t);
}
END_TEST

/* The last byte: an entry that fits exactly, and one byte more. */
START_TEST(exact_fit)
{
	struct fixture t;
	struct ment m;
	bool nospc;
	uint32_t room;

	fixture_make(&t);
	memset(&m, 0, sizeof(m));
	m.nlen = 1;
	for (unsigned int i = 0; ; i++) {
		m.name[0] = (char)('A' + i);
		m.vlen = 2000;
		room = free_bytes(t.b);
		if (room < 2000 + 8 + 4)
			break;
		add(t.b, t.md, &m, &nospc);
		ck_assert(!nospc);
	}
	/* 3 + 1 + vlen rounds to room - 8 exactly; then one byte more. */
	m.name[0] = 'z';
	m.vlen = room - 8 - 4 + 1;
	add(t.b, t.md, &m, &nospc);
	ck_assert(nospc);
	m.vlen--;
	ck_assert_uint_eq(new_size(&m) + 8, room);
	add(t.b, t.md, &m, &nospc);
	ck_assert(!nospc);
	ck_assert_uint_eq(free_bytes(t.b), 0);
	check_leaf(t.b, t.md);
	ck_assert_int_eq(verify(&t, t.b, DADDR), 0);
	fixture_free(&t);
}
END_TEST

/* Values of 3/4 of a block and more live outside the leaf. */
START_TEST(remote_entries)
{
	struct fixture t;
	struct ment m;
	struct xfsj_attr_lent e;
	bool nospc;

	fixture_make(&t);
	memset(&m, 0, sizeof(m));
	strcpy(m.name, "big");
	m.nlen = 3;
	m.vlen = 3 * BS / 4 - 10;		/* 3 + 3 + 3062 = 3068 < 3072 */
	add(t.b, t.md, &m, &nospc);
	ck_assert(!t.md->e[0].remote);
	strcpy(m.name, "bigger");
	m.nlen = 6;
	m.vlen = 3 * BS / 4 - 9;		/* 3 + 6 + 3063 = 3072: remote */
	add(t.b, t.md, &m, &nospc);
	ck_assert(t.md->e[1].remote);
	check_leaf(t.b, t.md);
	for (uint32_t i = 0; i < 2; i++) {
		xfsj_attr_leaf_get_ent(t.b, BS, i, &e);
		if (e.flags & XFSJ_ATTR_FLAG_LOCAL)
			continue;
		ck_assert_uint_eq(e.entsize, 20);	/* 11 + 6, to 4 */
		ck_assert_uint_eq(e.valueblk, 7);
		ck_assert_uint_eq(e.valuelen, 3 * BS / 4 - 9);
		ck_assert_ptr_null(e.value);
		ck_assert(!(e.flags & XFSJ_ATTR_FLAG_INCOMPLETE));
	}
	ck_assert_int_eq(verify(&t, t.b, DADDR), 0);
	/* 4096-byte blocks carry 4040 bytes of value after a 56-byte header. */
	ck_assert_uint_eq(xfsj_attr_rmt_blocks(4096, 4040), 1);
	ck_assert_uint_eq(xfsj_attr_rmt_blocks(4096, 4041), 2);
	ck_assert_uint_eq(xfsj_attr_rmt_blocks(4096, 65536), 17);
	ck_assert_uint_eq(xfsj_attr_rmt_blocks(1024, 968 * 3), 3);
	/* Short form: a remote value cannot go back. */
	ck_assert_int_eq(xfsj_attr_leaf_sf_bytes(t.b, BS), -1);
	fixture_free(&t);
}
END_TEST

/* Short-form size: 4 + (3 + name + value) per entry. */
START_TEST(sf_bytes)
{
	struct fixture t;
	struct ment m;
	bool nospc;
	int want = 4;

	fixture_make(&t);
	memset(&m, 0, sizeof(m));
	for (unsigned int i = 0; i < 5; i++) {
		m.nlen = (uint32_t)snprintf(m.name, sizeof(m.name), "k%u", i);
		m.vlen = 10 * i;
		add(t.b, t.md, &m, &nospc);
		want += 3 + (int)m.nlen + (int)m.vlen;
	}
	ck_assert_int_eq(xfsj_attr_leaf_sf_bytes(t.b, BS), want);
	/* A value of 255 bytes or more does not fit a short-form entry. */
	strcpy(m.name, "long");
	m.nlen = 4;
	m.vlen = 255;
	add(t.b, t.md, &m, &nospc);
	ck_assert_int_eq(xfsj_attr_leaf_sf_bytes(t.b, BS), -1);
	fixture_free(&t);
}
END_TEST

/* Every model entry is in one of the two leaves. */
static void check_pair(const uint8_t *l1, const uint8_t *l2,
		       const struct lmodel *md)
{
	for (unsigned int m = 0; m < md->n; m++) {
		struct xfsj_attr_arg a;
		uint32_t index;
		bool f1, f2;

		arg_of(&md->e[m], &a);
		xfsj_attr_leaf_lookup(l1, BS, &a, xfsj_attr_hash(&a), &index,
				      &f1);
		xfsj_attr_leaf_lookup(l2, BS, &a, xfsj_attr_hash(&a), &index,
				      &f2);
		ck_assert(f1 != f2);
	}
	ck_assert_uint_eq(xfsj_attr_leaf_count(l1) + xfsj_attr_leaf_count(l2),
			  md->n);
	ck_assert_uint_le(xfsj_attr_leaf_lasthash(l1),
			  xfsj_get_be32(l2 + HDR));
}

/* Fill @t.b with random entries until one does not fit: *extra. */
static void fill(struct fixture *t, unsigned int *seed, struct ment *extra)
{
	bool nospc;

	for (unsigned int i = 0; ; i++) {
		rnd_ent(extra, seed, i, 120);
		add(t->b, t->md, extra, &nospc);
		if (nospc)
			return;
	}
}

/* Split @t.b onto a new @t.b2 for @m, as a dabtree split does. */
static void split(struct fixture *t, const struct ment *m, bool *inleaf,
		  uint32_t *newindex)
{
	struct xfsj_attr_arg a;
	uint32_t index;
	bool found;

	arg_of(m, &a);
	xfsj_attr_leaf_lookup(t->b, BS, &a, xfsj_attr_hash(&a), &index,
			      &found);
	xfsj_attr_leaf_init(t->fx.fs, 1234, t->b2, DADDR + 8);
	ck_assert_int_eq(xfsj_attr_leaf_rebalance(t->b, t->b2, BS, &a, index,
						  inleaf, newindex), 0);
}

/*
 * The split, for many full leaves and new entries: both halves hold the
 * model between them, in hash order across the two, the bytes about
 * even; the new entry fits where the split says, at the place its hash
 * belongs.  Then the joins: either half into the other.
 */
START_TEST(split_and_join)
{
	unsigned int seed = 5 + (unsigned int)_i;
	struct fixture t;
	struct ment extra;
	struct lmodel *all = malloc(sizeof(*all));
	uint8_t *l[2], *full = malloc(BS);
	uint32_t newindex, u1, u2;
	bool inleaf, nospc;

	ck_assert(all && full);
	fixture_make(&t);
	l[0] = t.b;
	l[1] = t.b2;
	fill(&t, &seed, &extra);
	memcpy(full, t.b, BS);
	*all = *t.md;
	for (int k = 0; k < 12; k++) {
		memcpy(t.b, full, BS);
		*t.md = *all;
		if (k)
			rnd_ent(&extra, &seed, 5000 + (unsigned int)k, 120);
		split(&t, &extra, &inleaf, &newindex);
		check_pair(t.b, t.b2, t.md);
		u1 = xfsj_attr_leaf_used(t.b);
		u2 = xfsj_attr_leaf_used(t.b2);
		ck_assert_uint_lt(u1 > u2 ? u1 - u2 : u2 - u1, BS / 3);
		ck_assert_int_eq(verify(&t, t.b, DADDR), 0);
		ck_assert_int_eq(verify(&t, t.b2, DADDR + 8), 0);
		{
			struct xfsj_attr_arg a;
			uint32_t index;
			bool found, remote;
			uint8_t *dst = l[!inleaf];

			arg_of(&extra, &a);
			xfsj_attr_leaf_lookup(dst, BS, &a, xfsj_attr_hash(&a),
					      &index, &found);
			ck_assert_uint_eq(index, newindex);
			ck_assert_int_eq(xfsj_attr_leaf_add(dst, BS, &a,
					 xfsj_attr_hash(&a), newindex, &nospc,
					 &remote), 0);
			ck_assert(!nospc);
		}
		t.md->e[t.md->n++] = extra;
		check_pair(t.b, t.b2, t.md);
	}

	/* Joins: the second half into the first (which has holes). */
	memcpy(t.b, full, BS);
	split(&t, &extra, &inleaf, &newindex);
	ck_assert_uint_ne(t.b[62], 0);
	ck_assert(!xfsj_attr_leaf_order(t.b, t.b2));
	ck_assert(xfsj_attr_leaf_order(t.b2, t.b));
	ck_assert_int_eq(xfsj_attr_leaf_unbalance(t.b2, t.b, BS), 0);
	check_leaf(t.b, all);
	ck_assert_int_eq(verify(&t, t.b, DADDR), 0);
	/* The first into the second (no holes: moved to its front). */
	memcpy(t.b, full, BS);
	split(&t, &extra, &inleaf, &newindex);
	ck_assert_uint_eq(t.b2[62], 0);
	ck_assert_int_eq(xfsj_attr_leaf_unbalance(t.b, t.b2, BS), 0);
	check_leaf(t.b2, all);
	ck_assert_int_eq(verify(&t, t.b2, DADDR + 8), 0);
	free(full);
	free(all);
	fixture_free(&t);
}
END_TEST

static int by_hash(const void *x, const void *y)
{
	const struct ment *a = x, *b = y;
	struct xfsj_attr_arg p, q;
	uint32_t hp, hq;

	arg_of(a, &p);
	arg_of(b, &q);
	hp = xfsj_attr_hash(&p);
	hq = xfsj_attr_hash(&q);
	return hp < hq ? -1 : hp > hq;
}

/* Siblings (the lower hashes in one), the survivor with holes. */
START_TEST(join_with_holes)
{
	unsigned int seed = 9;
	struct fixture t;
	struct ment *pool = calloc(30, sizeof(*pool));
	bool nospc;

	ck_assert_ptr_nonnull(pool);
	fixture_make(&t);
	for (unsigned int i = 0; i < 30; i++)
		rnd_ent(&pool[i], &seed, i, 60);
	qsort(pool, 30, sizeof(*pool), by_hash);
	for (unsigned int i = 0; i < 30; i++) {
		add(i < 15 ? t.b2 : t.b, i < 15 ? t.md2 : t.md, &pool[i],
		    &nospc);
		ck_assert(!nospc);
	}
	del(t.b, t.md, 3);
	del(t.b, t.md, 0);
	ck_assert_uint_ne(t.b[62], 0);		/* holes */
	for (unsigned int k = 0; k < t.md2->n; k++)
		t.md->e[t.md->n++] = t.md2->e[k];
	ck_assert(xfsj_attr_leaf_order(t.b, t.b2));
	ck_assert_int_eq(xfsj_attr_leaf_unbalance(t.b2, t.b, BS), 0);
	/* Entries of both, sorted, packed afresh: the model holds. */
	check_leaf(t.b, t.md);
	ck_assert_uint_eq(t.b[62], 0);
	ck_assert_int_eq(verify(&t, t.b, DADDR), 0);
	free(pool);
	fixture_free(&t);
}
END_TEST

/* ---- hostile blocks ---- */

#define REFUSED(err, fld) do { \
		ck_assert_int_eq(verify(&t, b, DADDR), (err)); \
		ck_assert_str_eq(t.fx.f.field, (fld)); \
		memcpy(b, good, BS); \
	} while (0)

START_TEST(hostile_refused)
{
	struct fixture t;
	struct ment m;
	uint8_t *b, good[BS];
	uint32_t ni;
	bool nospc;

	fixture_make(&t);
	b = t.b;
	memset(&m, 0, sizeof(m));
	strcpy(m.name, "one");
	m.nlen = 3;
	m.vlen = 40;
	add(b, t.md, &m, &nospc);
	strcpy(m.name, "two");
	add(b, t.md, &m, &nospc);
	ck_assert_int_eq(verify(&t, b, DADDR), 0);
	memcpy(good, b, BS);
	ni = xfsj_get_be16(b + HDR + 4);

	ck_assert_int_eq(xfsj_attr_leaf_verify(t.fx.fs, 1234, b, DADDR + 1,
					       &t.fx.f), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(t.fx.f.field, "blkno");
	ck_assert_int_eq(xfsj_attr_leaf_verify(t.fx.fs, 99, b, DADDR,
					       &t.fx.f), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(t.fx.f.field, "owner");
	b[40] ^= 1;
	xfsj_cksum_update(b, BS, 12);
	b[41] ^= 1;					/* stale CRC */
	ck_assert_int_eq(xfsj_attr_leaf_verify(t.fx.fs, 1234, b, DADDR,
					       &t.fx.f), -XFSJ_E_BADCRC);
	ck_assert_str_eq(t.fx.f.field, "crc");
	memcpy(b, good, BS);
	b[40] ^= 1;
	REFUSED(-XFSJ_E_CORRUPT, "uuid");
	xfsj_put_be16(b + 8, 0x3bef);
	REFUSED(-XFSJ_E_BADMAGIC, "magic");
	xfsj_put_be16(b + 60, 40);
	REFUSED(-XFSJ_E_CORRUPT, "firstused");
	xfsj_put_be16(b + 56, 512);
	REFUSED(-XFSJ_E_CORRUPT, "count");
	xfsj_put_be32(b + HDR + 8, 0);
	xfsj_put_be32(b + HDR, 1);
	REFUSED(-XFSJ_E_CORRUPT, "entries.hashval (order)");
	b[HDR + 6] |= 0x10;
	REFUSED(-XFSJ_E_CORRUPT, "entries.flags");
	b[HDR + 6] |= XFSJ_ATTR_NS_ROOT | XFSJ_ATTR_NS_SECURE;
	REFUSED(-XFSJ_E_CORRUPT, "entries.flags (namespace)");
	xfsj_put_be16(b + HDR + 4, BS);
	REFUSED(-XFSJ_E_CORRUPT, "entries.nameidx");
	b[ni + 2] = 0;
	REFUSED(-XFSJ_E_CORRUPT, "name_local.namelen");
	xfsj_put_be16(b + ni, 5000);
	REFUSED(-XFSJ_E_CORRUPT, "entries (name past block end)");
	/* A remote entry: value block 0 without INCOMPLETE, huge length. */
	b[HDR + 6] &= (uint8_t)~XFSJ_ATTR_FLAG_LOCAL;
	xfsj_put_be32(b + ni, 0);
	xfsj_put_be32(b + ni + 4, 10);
	b[ni + 8] = 3;
	REFUSED(-XFSJ_E_CORRUPT, "name_remote.valueblk");
	b[HDR + 6] &= (uint8_t)~XFSJ_ATTR_FLAG_LOCAL;
	xfsj_put_be32(b + ni, 9);
	xfsj_put_be32(b + ni + 4, 65537);
	b[ni + 8] = 3;
	REFUSED(-XFSJ_E_CORRUPT, "name_remote.valuelen");
	xfsj_put_be16(b + 64, HDR + 16 + 2);
	REFUSED(-XFSJ_E_CORRUPT, "freemap");
	xfsj_put_be16(b + 64, 8);
	xfsj_put_be16(b + 66, 8);
	REFUSED(-XFSJ_E_CORRUPT, "freemap.base");
	/* Two entries naming one name. */
	xfsj_put_be16(b + HDR + 8 + 4, (uint16_t)ni);
	REFUSED(-XFSJ_E_CORRUPT, "entries.nameidx (overlap)");
	xfsj_put_be16(b + 58, (uint16_t)(xfsj_get_be16(b + 58) + 4));
	REFUSED(-XFSJ_E_CORRUPT, "usedbytes");
	ck_assert_int_eq(verify(&t, b, DADDR), 0);
	fixture_free(&t);
}
END_TEST

/*
 * Many entries naming the same bytes: each one alone is inside the
 * block, together they claim more bytes than the block has.  Taken, a
 * compaction repacks them below the entry table and past the block's
 * start: it must be refused.
 */
START_TEST(hostile_overlap_refused)
{
	struct fixture t;
	uint8_t *b;

	fixture_make(&t);
	b = t.b;
	xfsj_put_be16(b + 56, 300);			/* count */
	xfsj_put_be16(b + 60, 3800);			/* firstused */
	xfsj_put_be16(b + 58, (uint16_t)(300 * r4(3 + 200)));
	b[62] = 1;					/* holes */
	memset(b + 64, 0, 12);
	for (uint32_t i = 0; i < 300; i++) {
		xfsj_put_be32(b + HDR + 8 * i, 77);
		xfsj_put_be16(b + HDR + 8 * i + 4, 3800);
		b[HDR + 8 * i + 6] = XFSJ_ATTR_FLAG_LOCAL;
	}
	xfsj_put_be16(b + 3800, 0);
	b[3802] = 200;
	memset(b + 3803, 'x', 200);
	ck_assert_int_eq(verify(&t, b, DADDR), -XFSJ_E_CORRUPT);
	ck_assert_str_eq(t.fx.f.field, "entries.nameidx (overlap)");
	fixture_free(&t);
}
END_TEST

Suite *attr_leaf_suite(void)
{
	Suite *s = suite_create("attr_leaf");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, init_empty);
	tcase_add_loop_test(tc, fill_remove_refill, 0, 2);
	tcase_add_test(tc, exact_fit);
	tcase_add_test(tc, remote_entries);
	tcase_add_test(tc, sf_bytes);
	tcase_add_loop_test(tc, split_and_join, 0, 4);
	tcase_add_test(tc, join_with_holes);
	tcase_add_test(tc, hostile_refused);
	tcase_add_test(tc, hostile_overlap_refused);
	suite_add_tcase(s, tc);
	return s;
}
