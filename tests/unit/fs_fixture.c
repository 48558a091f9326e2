/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>
#include <sys/stat.h>

#include <check.h>

#include "fs_fixture.h"
#include "fs/alloc.h"
#include "fs/attri.h"
#include "fs/bmap.h"
#include "fs/btree.h"
#include "fs/defer.h"
#include "xfsj/check.h"
#include "xfsj/newfs.h"

void fs_fixture_make(struct fs_fixture *fx, uint64_t size, uint32_t blocksize,
		     uint32_t agcount, bool rmapbt, bool reflink)
{
	struct xfsj_features feat;

	xfsj_features_default(&feat);
	feat.rmapbt = rmapbt;
	feat.reflink = reflink;
	fs_fixture_make_feat(fx, size, blocksize, agcount, &feat);
}

void fs_fixture_make_feat(struct fs_fixture *fx, uint64_t size,
			  uint32_t blocksize, uint32_t agcount,
			  const struct xfsj_features *feat)
{
	struct xfsj_topology t = { .size = size, .lsectsize = 512,
				   .psectsize = 512, .is_file = true };
	struct xfsj_newfs_opts o = { .now_sec = 1700000000, .gen = 7 };
	struct xfsj_mkfs_req r;
	char msg[256];
	uint8_t sect[4096];

	memset(fx, 0, sizeof(*fx));
	memset(&r, 0, sizeof(r));
	r.feat = *feat;
	r.blocksize = blocksize;
	r.agcount = agcount;
	r.small = size < XFSJ_MIN_FS_BYTES;
	ck_assert_msg(xfsj_geometry_compute(&r, &t, &fx->g, msg, sizeof(msg)) == 0,
		      "geometry: %s", msg);
	ck_assert_int_eq(xfsj_io_open_mem(size, &fx->io), 0);
	memset(o.uuid, 0x5a, 16);
	ck_assert_int_eq(xfsj_newfs_write(fx->io, &fx->g, &o, &fx->f), 0);
	ck_assert_int_eq(xfsj_overlay_create(fx->io, &fx->ov), 0);
	ck_assert_int_eq(xfsj_overlay_read(fx->ov, sect, 512, 0), 0);
	xfsj_sb_decode(sect, &fx->sb);
	/* Cycle 1, block 0: no later than any LSN of a fresh log. */
	ck_assert_int_eq(xfsj_fs_open(fx->ov, &fx->sb, 1ULL << 32, &fx->fs), 0);
}

void fs_fixture_reopen(struct fs_fixture *fx)
{
	ck_assert_int_eq(xfsj_fs_flush(fx->fs, &fx->f), 0);
	xfsj_fs_close(fx->fs);
	ck_assert_int_eq(xfsj_fs_open(fx->ov, &fx->sb, 1ULL << 32, &fx->fs), 0);
}

void fs_fixture_free(struct fs_fixture *fx)
{
	xfsj_fs_close(fx->fs);
	xfsj_overlay_free(fx->ov);
	xfsj_io_close(fx->io);
	memset(fx, 0, sizeof(*fx));
}

bool fs_fixture_is_free(struct fs_fixture *fx, uint64_t fsb, uint32_t len)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fx->fs);
	uint32_t agbno = xfsj_fsb_agbno(sb, fsb);
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec r;
	bool ok = false;
	int stat;

	ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_BNO,
					    xfsj_fsb_agno(sb, fsb), NULL,
					    &fx->f, &cur), 0);
	memset(&r, 0, sizeof(r));
	r.a.startblock = agbno;
	ck_assert_int_eq(xfsj_btree_lookup(cur, XFSJ_LOOKUP_LE, &r, &stat), 0);
	if (stat) {
		ck_assert_int_eq(xfsj_btree_get_rec(cur, &r, &stat), 0);
		ok = r.a.startblock <= agbno &&
		     r.a.startblock + r.a.blockcount >= agbno + len;
	}
	xfsj_btree_cur_free(cur);
	return ok;
}

uint64_t fs_fixture_make_file(struct fs_fixture *fx, unsigned int slot,
			      uint32_t gen, uint64_t flags2, uint8_t forkoff,
			      struct xfsj_iref *ip)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fx->fs);
	uint64_t ino = fx->sb.rootino + slot;
	struct xfsj_dinode *di;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, ip, &fx->f), 0);
	ck_assert_uint_eq(ip->di.mode, 0);
	di = &ip->di;
	memset(di, 0, sizeof(*di));
	di->magic = XFSJ_DINODE_MAGIC;
	di->version = 3;
	di->mode = S_IFREG | 0644;
	di->nlink = 1;
	di->ino = ino;
	di->gen = gen;
	di->next_unlinked = XFSJ_NULLAGINO;
	memcpy(di->uuid, sb->uuid, 16);
	if (sb->features_incompat & XFSJ_INCOMPAT_BIGTIME)
		di->flags2 |= XFSJ_DIFLAG2_BIGTIME;
	di->flags2 |= flags2;
	di->format = XFSJ_DINODE_FMT_EXTENTS;
	di->aformat = XFSJ_DINODE_FMT_EXTENTS;
	di->forkoff = forkoff;
	memset(ip->dip + XFSJ_DINODE_CORE_SIZE, 0,
	       sb->inodesize - XFSJ_DINODE_CORE_SIZE);
	xfsj_iput(fx->fs, ip, false);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, ip, &fx->f), 0);
	return ino;
}

uint64_t fs_fixture_alloc(struct fs_fixture *fx, uint32_t agno, uint32_t len)
{
	uint32_t agbno;

	ck_assert_int_eq(xfsj_alloc_extent(fx->fs, agno, 0, len, NULL, &agbno,
					   &fx->f), 0);
	return xfsj_agb_to_fsb(xfsj_fs_sb(fx->fs), agno, agbno);
}

void fs_fixture_fill(struct fs_fixture *fx)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fx->fs);

	/* Extents halved while none that long is left, down to one block. */
	for (uint32_t a = 0; a < sb->agcount; a++)
		for (uint32_t len = 1U << 14, agbno; len;) {
			struct xfsj_fault f = { 0 };

			if (xfsj_alloc_extent(fx->fs, a, 0, len, NULL, &agbno,
					      &f))
				len /= 2;
		}
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
}

void fs_fixture_map(struct fs_fixture *fx, uint64_t ino, int whichfork,
		    uint64_t off, uint64_t fsb, uint64_t len, bool unwritten)
{
	struct xfsj_bmbt_irec r = { off, fsb, len, unwritten };
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_bmap_map(fx->fs, &ip, whichfork, &r, &fx->f), 0);
	xfsj_iput(fx->fs, &ip, false);
	ck_assert_int_eq(xfsj_defer_finish(fx->fs, &fx->f), 0);
}

int fs_fixture_xmi(struct fs_fixture *fx, const struct xfsj_pending_intent *pi)
{
	int err;

	memset(&fx->f, 0, sizeof(fx->f));
	err = xfsj_xmi_recover(fx->fs, pi, &fx->f);
	if (!err)
		err = xfsj_defer_finish(fx->fs, &fx->f);
	return err;
}

uint64_t fs_fixture_problems(struct fs_fixture *fx)
{
	struct xfsj_check_result res;

	fs_fixture_reopen(fx);
	ck_assert_int_eq(xfsj_check(fx->fs, NULL, NULL, &res), 0);
	return res.problems;
}
