/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>
#include <sys/stat.h>

#include <check.h>

#include "ino_fixture.h"
#include "fs/alloc.h"
#include "fs/ialloc.h"
#include "core/crc32c.h"
#include "core/layout.h"
#include "fs/attr.h"
#include "fs/dir_write.h"

uint8_t *ino_ptr(struct fs_fixture *fx, uint64_t ino, struct xfsj_buf **bpp)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fx->fs);
	uint32_t agno = xfsj_ino_agno(sb, ino);
	uint32_t agino = xfsj_ino_agino(sb, ino);
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_buf_read(fx->fs,
				       xfsj_agb_to_daddr(sb, agno,
							 agino >> sb->inopblog),
				       sb->blocksize, &bp), 0);
	if (bpp)
		*bpp = bp;
	return bp->data + (size_t)(agino & (sb->inopblock - 1)) * sb->inodesize;
}

void ino_get(struct fs_fixture *fx, uint64_t ino, struct xfsj_dinode *di)
{
	xfsj_dinode_decode(ino_ptr(fx, ino, NULL), di);
}

void set_bucket(struct fs_fixture *fx, uint32_t agno, unsigned int bucket,
		uint32_t agino)
{
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_agi_read(fx->fs, agno, &bp, &fx->f), 0);
	xfsj_put_be32(bp->data + 40 + 4 * bucket, agino);
	xfsj_buf_dirty(bp);
}

uint32_t get_bucket(struct fs_fixture *fx, uint32_t agno, unsigned int bucket)
{
	struct xfsj_agi agi;

	agi_get(fx, agno, &agi);
	return agi.unlinked[bucket];
}

void agi_get(struct fs_fixture *fx, uint32_t agno, struct xfsj_agi *agi)
{
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_agi_read(fx->fs, agno, &bp, &fx->f), 0);
	xfsj_agi_decode(bp->data, agi);
}

void agi_add(struct fs_fixture *fx, uint32_t agno, int count, int freecount)
{
	struct xfsj_buf *bp;

	ck_assert_int_eq(xfsj_agi_read(fx->fs, agno, &bp, &fx->f), 0);
	xfsj_put_be32(bp->data + 16,
		      (uint32_t)((int)xfsj_get_be32(bp->data + 16) + count));
	xfsj_put_be32(bp->data + 28,
		      (uint32_t)((int)xfsj_get_be32(bp->data + 28) + freecount));
	xfsj_buf_dirty(bp);
}

/* The inobt (or finobt) record holding @agino; false when none. */
bool ibt_rec(struct fs_fixture *fx, enum xfsj_btnum bt, uint32_t agno,
	     uint32_t agino, struct xfsj_inobt_rec *out)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec r;
	int stat;

	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, bt, agno, NULL, &fx->f,
					    &cur), 0);
	memset(&r, 0, sizeof(r));
	r.i.startino = agino;
	ck_assert_int_eq(xfsj_btree_lookup(cur, XFSJ_LOOKUP_LE, &r, &stat), 0);
	if (stat) {
		ck_assert_int_eq(xfsj_btree_get_rec(cur, &r, &stat), 0);
		ck_assert_int_eq(stat, 1);
		stat = agino - r.i.startino < 64;
	}
	xfsj_btree_cur_free(cur);
	if (stat)
		*out = r.i;
	return stat;
}

/* Mark @agino in use in the inobt, finobt and AGI, as an allocation would. */
void ino_take(struct fs_fixture *fx, uint32_t agno, uint32_t agino)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec r;
	uint32_t off;
	int stat;

	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_INO, agno,
					    xfsj_alloc_block_source(XFSJ_BT_INO),
					    &fx->f, &cur), 0);
	memset(&r, 0, sizeof(r));
	r.i.startino = agino;
	ck_assert_int_eq(xfsj_btree_lookup(cur, XFSJ_LOOKUP_LE, &r, &stat), 0);
	ck_assert_int_eq(stat, 1);
	ck_assert_int_eq(xfsj_btree_get_rec(cur, &r, &stat), 0);
	off = agino - r.i.startino;
	ck_assert_uint_lt(off, 64);
	ck_assert(r.i.free & (1ULL << off));
	r.i.free &= ~(1ULL << off);
	r.i.freecount--;
	ck_assert_int_eq(xfsj_btree_update(cur, &r), 0);
	xfsj_btree_cur_free(cur);

	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_FINO, agno,
					    xfsj_alloc_block_source(XFSJ_BT_FINO),
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_lookup(cur, XFSJ_LOOKUP_EQ, &r, &stat), 0);
	ck_assert_int_eq(stat, 1);
	if (r.i.freecount == 0)
		ck_assert_int_eq(xfsj_btree_delete(cur, &stat), 0);
	else
		ck_assert_int_eq(xfsj_btree_update(cur, &r), 0);
	xfsj_btree_cur_free(cur);
	agi_add(fx, agno, 0, -1);
}

void dinode_base(struct fs_fixture *fx, uint64_t ino, struct xfsj_dinode *di)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fx->fs);

	memset(di, 0, sizeof(*di));
	di->magic = XFSJ_DINODE_MAGIC;
	di->version = 3;
	di->ino = ino;
	di->gen = 7;
	di->next_unlinked = XFSJ_NULLAGINO;
	memcpy(di->uuid, sb->uuid, 16);
	if (sb->features_incompat & XFSJ_INCOMPAT_BIGTIME)
		di->flags2 |= XFSJ_DIFLAG2_BIGTIME;
	if (sb->features_incompat & XFSJ_INCOMPAT_NREXT64)
		di->flags2 |= XFSJ_DIFLAG2_NREXT64;
	di->format = XFSJ_DINODE_FMT_EXTENTS;
	di->aformat = XFSJ_DINODE_FMT_EXTENTS;
}

struct find_arg {
	uint32_t from, len, align, found;
};

static int find_fn(struct xfsj_btree_cur *cur, const union xfsj_btree_irec *rec,
		   void *arg)
{
	struct find_arg *a = arg;
	uint32_t start = rec->a.startblock > a->from ? rec->a.startblock :
						       a->from;

	(void)cur;
	start = (start + a->align - 1) / a->align * a->align;
	if (start + a->len <= rec->a.startblock + rec->a.blockcount) {
		a->found = start;
		return 1;
	}
	return 0;
}

/* The first free, aligned @len blocks at or after @from. */
static uint32_t free_aligned(struct fs_fixture *fx, uint32_t agno,
			     uint32_t from, uint32_t len)
{
	struct xfsj_btree_cur *cur;
	struct find_arg a = { from, len, 8, 0 };

	if (xfsj_fs_sb(fx->fs)->inoalignmt > a.align)
		a.align = xfsj_fs_sb(fx->fs)->inoalignmt;
	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_BNO, agno, NULL,
					    &fx->f, &cur), 0);
	ck_assert_int_eq(xfsj_btree_query_all(cur, find_fn, &a), 1);
	xfsj_btree_cur_free(cur);
	return a.found;
}

/* Where make_chunk_sparse puts the chunk, for chunk_alloc_fn. */
struct chunk_alloc {
	struct fs_fixture *fx;
	uint32_t agno, startino;
};

static int chunk_alloc_fn(void *arg, uint32_t agbno, uint32_t len)
{
	struct chunk_alloc *a = arg;
	struct fs_fixture *fx = a->fx;
	const struct xfsj_sb *sb = xfsj_fs_sb(fx->fs);
	struct xfsj_owner oi = { .owner = XFSJ_RMAP_OWN_INODES };
	uint32_t got;

	ck_assert_int_eq(xfsj_alloc_extent(fx->fs, a->agno, agbno, len, &oi,
					   &got, &fx->f), 0);
	ck_assert_uint_eq(got, agbno);
	for (uint32_t b = 0; b < len; b++) {
		struct xfsj_buf *bp;

		ck_assert_int_eq(xfsj_buf_get_zero(fx->fs,
				xfsj_agb_to_daddr(sb, a->agno, agbno + b),
				sb->blocksize, &bp), 0);
		for (uint32_t i = 0; i < sb->inopblock; i++) {
			struct xfsj_dinode di;
			uint8_t *p = bp->data + (size_t)i * sb->inodesize;

			dinode_base(fx, xfsj_agino_to_ino(sb, a->agno,
					((agbno + b) << sb->inopblog) + i), &di);
			di.flags2 = 0;
			di.format = 0;
			di.aformat = 0;
			xfsj_dinode_encode(&di, p);
			xfsj_dinode_finish(p, sb->inodesize);
		}
	}
	return 0;
}

/*
 * A new inode chunk at the first free aligned place from @from in AG
 * @agno (only the parts @holemask does not mark as holes), every inode
 * free, with its inobt/finobt records and AGI counts; its inodes are
 * initialised.
 */
uint32_t make_chunk_sparse(struct fs_fixture *fx, uint32_t agno,
			   uint32_t from, uint16_t holemask)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fx->fs);
	uint32_t agbno = free_aligned(fx, agno, from,
				      64 * sb->inodesize / sb->blocksize);
	struct chunk_alloc a = { fx, agno, agbno << sb->inopblog };
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec r;
	unsigned int holes = 0;
	int stat;

	ck_assert_int_eq(xfsj_ichunk_extents(sb, a.startino, holemask,
					     chunk_alloc_fn, &a), 0);
	for (int b = 0; b < 16; b++)
		holes += (holemask >> b) & 1;
	memset(&r, 0, sizeof(r));
	r.i.startino = a.startino;
	r.i.holemask = holemask;
	r.i.count = (uint8_t)(64 - 4 * holes);
	r.i.freecount = r.i.count;
	r.i.free = ~0ULL;
	for (int bt = XFSJ_BT_INO; bt <= XFSJ_BT_FINO; bt++) {
		ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, (enum xfsj_btnum)bt,
				agno, xfsj_alloc_block_source((enum xfsj_btnum)bt),
				&fx->f, &cur), 0);
		ck_assert_int_eq(xfsj_btree_lookup(cur, XFSJ_LOOKUP_EQ, &r,
						   &stat), 0);
		ck_assert_int_eq(stat, 0);
		ck_assert_int_eq(xfsj_btree_insert(cur, &r, &stat), 0);
		ck_assert_int_eq(stat, 1);
		xfsj_btree_cur_free(cur);
	}
	agi_add(fx, agno, (int)r.i.count, (int)r.i.count);
	return a.startino;
}

uint32_t make_chunk(struct fs_fixture *fx, uint32_t agno, uint32_t from)
{
	return make_chunk_sparse(fx, agno, from, 0);
}

uint64_t ino_make_dir(struct fs_fixture *fx, unsigned int slot)
{
	struct xfsj_iref ip;
	uint64_t ino = fs_fixture_make_file(fx, slot, 1, 0, 0, &ip);

	ip.di.mode = S_IFDIR | 0755;
	ip.di.nlink = 2;
	xfsj_iput(fx->fs, &ip, true);
	ino_take(fx, 0, xfsj_ino_agino(&fx->sb, ino));
	return ino;
}

uint64_t ino_make_reg(struct fs_fixture *fx, unsigned int slot,
		      uint32_t nlink)
{
	struct xfsj_iref ip;
	uint64_t ino = fs_fixture_make_file(fx, slot, 1, 0, 0, &ip);

	ip.di.mode = S_IFREG | 0644;
	ip.di.nlink = nlink;
	xfsj_iput(fx->fs, &ip, true);
	ino_take(fx, 0, xfsj_ino_agino(&fx->sb, ino));
	return ino;
}

void ino_add_pptr(struct fs_fixture *fx, uint64_t ino, uint64_t parent,
		  const char *name)
{
	struct xfsj_iref ip, pip;
	uint8_t val[XFSJ_ATTR_PPTR_VALUE_LEN];

	ck_assert_int_eq(xfsj_iget(fx->fs, parent, true, &pip, &fx->f), 0);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, true, &ip, &fx->f), 0);
	xfsj_put_be64(val, parent);
	xfsj_put_be32(val + 8, pip.di.gen);
	ck_assert_int_eq(xfsj_attr_set(fx->fs, &ip, &(struct xfsj_attr_arg){
		.ns = XFSJ_ATTR_NS_PARENT, .name = (const uint8_t *)name,
		.namelen = (uint32_t)strlen(name), .value = val,
		.valuelen = sizeof(val) }, XFSJ_ATTR_UPSERT, &fx->f), 0);
	xfsj_iput(fx->fs, &ip, true);
}

struct sf_look {
	const struct xfsj_dirent *want;	/* NULL: count them; ino 0: any */
	size_t n;
	uint64_t found;
};

static int sf_look_one(const struct xfsj_dirent *e, void *arg)
{
	struct sf_look *l = arg;

	l->n++;
	if (!l->want || (l->want->ino && e->ino != l->want->ino) ||
	    e->namelen != l->want->namelen ||
	    memcmp(e->name, l->want->name, e->namelen))
		return 0;
	l->found = e->ino;
	return 1;
}

static int sf_look(struct fs_fixture *fx, uint64_t dir, struct sf_look *l)
{
	struct xfsj_iref ip;
	uint64_t parent;
	uint32_t size;
	const uint8_t *f;

	ck_assert_int_eq(xfsj_iget(fx->fs, dir, true, &ip, &fx->f), 0);
	ck_assert_uint_eq(ip.di.format, XFSJ_DINODE_FMT_LOCAL);
	f = xfsj_ifork(fx->fs, &ip, XFSJ_DATA_FORK, &size);
	return xfsj_dir_sf_walk(f, ip.di.size,
				(fx->sb.features_incompat &
				 XFSJ_INCOMPAT_FTYPE) != 0,
				&parent, sf_look_one, l, &fx->f);
}

bool dir_sf_names(struct fs_fixture *fx, uint64_t dir, uint64_t ino,
		  const char *name)
{
	struct xfsj_dirent want = { name, (uint8_t)strlen(name), 0, ino };
	struct sf_look l = { &want, 0, 0 };

	return sf_look(fx, dir, &l) == 1;
}

uint64_t dir_sf_lookup(struct fs_fixture *fx, uint64_t dir, const char *name)
{
	struct xfsj_dirent want = { name, (uint8_t)strlen(name), 0, 0 };
	struct sf_look l = { &want, 0, XFSJ_NULLFSINO };

	sf_look(fx, dir, &l);
	return l.found;
}

size_t dir_sf_count(struct fs_fixture *fx, uint64_t dir)
{
	struct sf_look l = { NULL, 0, 0 };

	ck_assert_int_eq(sf_look(fx, dir, &l), 0);
	return l.n;
}
