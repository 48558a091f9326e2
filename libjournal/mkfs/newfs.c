/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Laying out a new filesystem.  The AG contents follow what mkfs.xfs
 * writes (see shared/reference/xfs-format.md §6-§10) so that xfs_repair
 * finds the root inode where it computes it and the AG headers equal
 * mkfs.xfs's field for field.
 *
 * Write order: the primary superblock goes out first with sb_inprogress set,
 * so a crash mid-format leaves something the kernel refuses to mount; it is
 * rewritten last, after a sync, with the real counters.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/crc32c.h"
#include "ondisk/log.h"
#include "xfsj/newfs.h"
#include "xfsj/ondisk.h"

/* What one AG holds besides its headers, in AG block numbers. */
struct ag_plan {
	uint32_t agno, length;
	uint32_t log_start, log_len;		/* log_len 0: no log here */
	uint32_t agfl_start, agfl_len;
	uint32_t chunk_start, chunk_len;	/* chunk_len 0: no inodes */
	struct xfsj_alloc_rec free[8];
	unsigned int nfree;
};

/* Fixed block numbers of the btree roots, in the order mkfs places them. */
struct roots {
	uint32_t hdr_blocks;		/* blocks holding the 4 header sectors */
	uint32_t bno, cnt, ino, fino, rmap, refc;
};

static void get_roots(const struct xfsj_geometry *g, struct roots *r)
{
	uint32_t next = 3 * g->sectsize / g->blocksize + 1;

	r->hdr_blocks = next;
	r->bno = next++;
	r->cnt = next++;
	r->ino = next++;
	r->fino = g->feat.finobt ? next++ : 0;
	r->rmap = g->feat.rmapbt ? next++ : 0;
	r->refc = g->feat.reflink ? next++ : 0;
}

static uint64_t ag_byte(const struct xfsj_geometry *g, uint32_t agno,
			uint32_t agbno)
{
	return ((uint64_t)agno * g->agblocks + agbno) << g->blocklog;
}

/* Take [start, start+len) out of a sorted free-extent list. */
static void carve(struct ag_plan *p, uint32_t start, uint32_t len)
{
	for (unsigned int i = 0; i < p->nfree && len; i++) {
		struct xfsj_alloc_rec *e = &p->free[i];
		uint32_t end = e->startblock + e->blockcount;

		if (start < e->startblock || start + len > end)
			continue;
		if (start == e->startblock) {
			e->startblock += len;
			e->blockcount -= len;
		} else if (start + len == end) {
			e->blockcount -= len;
		} else {
			/* split: the tail becomes a new extent after this one */
			memmove(&p->free[i + 2], &p->free[i + 1],
				(p->nfree - i - 1) * sizeof(p->free[0]));
			p->free[i + 1].startblock = start + len;
			p->free[i + 1].blockcount = end - start - len;
			e->blockcount = start - e->startblock;
			p->nfree++;
		}
		if (!e->blockcount) {
			memmove(e, e + 1, (p->nfree - i - 1) * sizeof(*e));
			p->nfree--;
		}
		return;
	}
}

static void plan_ag(const struct xfsj_geometry *g, uint32_t agno,
		    struct ag_plan *p)
{
	uint32_t k = g->min_freelist;
	int best = -1;

	memset(p, 0, sizeof(*p));
	p->agno = agno;
	p->length = xfsj_geom_ag_blocks(g, agno);
	p->free[0].startblock = g->prealloc_blocks;
	p->free[0].blockcount = p->length - g->prealloc_blocks;
	p->nfree = 1;
	if (g->logstart && (g->logstart >> g->agblklog) == agno) {
		p->log_start = (uint32_t)(g->logstart &
					  ((1ULL << g->agblklog) - 1));
		p->log_len = g->logblocks;
		carve(p, p->log_start, p->log_len);
	}
	/*
	 * The AGFL fill takes its blocks from the front of the smallest free
	 * extent that holds them all (the by-size btree's best fit).
	 */
	for (unsigned int i = 0; i < p->nfree && k; i++) {
		if (p->free[i].blockcount < k)
			continue;
		if (best < 0 || p->free[i].blockcount < p->free[best].blockcount)
			best = (int)i;
	}
	if (best >= 0) {
		p->agfl_start = p->free[best].startblock;
		p->agfl_len = k;
		carve(p, p->agfl_start, k);
	}
	if (agno == 0) {
		p->chunk_start = (uint32_t)(g->rootino >> g->inopblog);
		p->chunk_len = g->chunk_blocks;
		carve(p, p->chunk_start, p->chunk_len);
	}
}

static void sb_fill(const struct xfsj_geometry *g,
		    const struct xfsj_newfs_opts *o, struct xfsj_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->magicnum = XFSJ_SB_MAGIC;
	sb->blocksize = g->blocksize;
	sb->dblocks = g->dblocks;
	memcpy(sb->uuid, o->uuid, 16);
	sb->logstart = g->logstart;
	sb->rootino = sb->rbmino = sb->rsumino = XFSJ_NULLFSINO;
	sb->rextsize = g->rextsize;
	sb->agblocks = g->agblocks;
	sb->agcount = g->agcount;
	sb->logblocks = g->logblocks;
	sb->versionnum = g->versionnum;
	sb->sectsize = (uint16_t)g->sectsize;
	sb->inodesize = (uint16_t)g->inodesize;
	sb->inopblock = (uint16_t)g->inopblock;
	memcpy(sb->fname, o->label, strnlen(o->label, 12));
	sb->blocklog = g->blocklog;
	sb->sectlog = g->sectlog;
	sb->inodelog = g->inodelog;
	sb->inopblog = g->inopblog;
	sb->agblklog = g->agblklog;
	sb->inprogress = 1;
	sb->imax_pct = (uint8_t)g->imaxpct;
	sb->inoalignmt = g->inoalignmt;
	sb->unit = g->dsunit;
	sb->width = g->dswidth;
	sb->dirblklog = g->dirblklog;
	if (g->versionnum & XFSJ_SB_VERSION_SECTORBIT) {
		uint8_t l = 0;

		while ((1U << l) < g->logsectsize)
			l++;
		sb->logsectlog = l;
		sb->logsectsize = (uint16_t)g->logsectsize;
	}
	sb->logsunit = g->lsunit ? g->lsunit * g->blocksize : 1;
	sb->features2 = g->features2;
	sb->bad_features2 = g->features2;
	sb->features_ro_compat = g->ro_compat;
	sb->features_incompat = g->incompat;
	sb->spino_align = g->spino_align;
	/* Counters of a secondary: nothing allocated yet. */
	sb->fdblocks = g->dblocks - (uint64_t)g->agcount * g->prealloc_blocks -
		       (g->logexternal ? 0 : g->logblocks);
}

static int write_sb(struct xfsj_io *io, const struct xfsj_geometry *g,
		    const struct xfsj_sb *sb, uint32_t agno, uint8_t *buf)
{
	xfsj_sb_encode(sb, buf, g->sectsize);
	return xfsj_pwrite(io, buf, g->sectsize, ag_byte(g, agno, 0));
}

/* Initialise a short-format btree block header in @blk. */
static void btree_hdr(const struct xfsj_geometry *g,
		      const struct xfsj_newfs_opts *o, enum xfsj_btnum bt,
		      uint32_t agno, uint32_t agbno, uint16_t numrecs,
		      uint8_t *blk)
{
	struct xfsj_sblock h = {
		.magic = xfsj_btree_shape(bt)->magic,
		.level = 0,
		.numrecs = numrecs,
		.leftsib = XFSJ_NULLAGBLOCK,
		.rightsib = XFSJ_NULLAGBLOCK,
		.blkno = ag_byte(g, agno, agbno) >> XFSJ_BBSHIFT,
		.owner = agno,
	};

	memset(blk, 0, g->blocksize);
	memcpy(h.uuid, o->uuid, 16);
	xfsj_sblock_encode(&h, blk);
}

static int put_block(struct xfsj_io *io, const struct xfsj_geometry *g,
		     uint32_t agno, uint32_t agbno, uint8_t *blk)
{
	xfsj_btree_block_finish(blk, g->blocksize, false);
	return xfsj_pwrite(io, blk, g->blocksize, ag_byte(g, agno, agbno));
}

static int cmp_cnt(const void *a, const void *b)
{
	const struct xfsj_alloc_rec *x = a, *y = b;

	if (x->blockcount != y->blockcount)
		return x->blockcount < y->blockcount ? -1 : 1;
	return x->startblock < y->startblock ? -1 : x->startblock > y->startblock;
}

static int cmp_rmap(const void *a, const void *b)
{
	const struct xfsj_rmap_rec *x = a, *y = b;

	return x->startblock < y->startblock ? -1 : x->startblock > y->startblock;
}

static unsigned int rmap_add(struct xfsj_rmap_rec *r, unsigned int n,
			     uint32_t start, uint32_t len, uint64_t owner)
{
	if (len) {
		r[n].startblock = start;
		r[n].blockcount = len;
		r[n].owner = owner;
		r[n].offset = 0;
		n++;
	}
	return n;
}

static int write_btrees(struct xfsj_io *io, const struct xfsj_geometry *g,
			const struct xfsj_newfs_opts *o,
			const struct ag_plan *p, const struct roots *rt,
			uint8_t *blk)
{
	struct xfsj_alloc_rec bycnt[8];
	uint32_t a = p->agno;
	int err;

	/* free space, by block and by size */
	btree_hdr(g, o, XFSJ_BT_BNO, a, rt->bno, (uint16_t)p->nfree, blk);
	for (unsigned int i = 0; i < p->nfree; i++)
		xfsj_alloc_rec_put(blk, i, &p->free[i]);
	err = put_block(io, g, a, rt->bno, blk);
	if (err)
		return err;
	memcpy(bycnt, p->free, p->nfree * sizeof(bycnt[0]));
	qsort(bycnt, p->nfree, sizeof(bycnt[0]), cmp_cnt);
	btree_hdr(g, o, XFSJ_BT_CNT, a, rt->cnt, (uint16_t)p->nfree, blk);
	for (unsigned int i = 0; i < p->nfree; i++)
		xfsj_alloc_rec_put(blk, i, &bycnt[i]);
	err = put_block(io, g, a, rt->cnt, blk);
	if (err)
		return err;

	/* inode btrees: one record per 64 inodes of the root chunk */
	for (int fino = 0; fino <= (int)g->feat.finobt; fino++) {
		uint32_t nrec = p->chunk_len ? g->chunk_inodes / 64 : 0;
		uint32_t agbno = fino ? rt->fino : rt->ino;

		btree_hdr(g, o, fino ? XFSJ_BT_FINO : XFSJ_BT_INO, a, agbno,
			  (uint16_t)nrec, blk);
		for (uint32_t i = 0; i < nrec; i++) {
			struct xfsj_inobt_rec r = {
				.startino = (uint32_t)(p->chunk_start << g->inopblog) + 64 * i,
				.holemask = 0,
				.count = 64,
				.freecount = i ? 64 : 61,
				.free = i ? ~0ULL : ~0ULL << 3,
			};

			xfsj_inobt_rec_put(blk, i, &r, g->feat.sparse);
		}
		err = put_block(io, g, a, agbno, blk);
		if (err)
			return err;
	}

	if (g->feat.rmapbt) {
		struct xfsj_rmap_rec r[16];
		unsigned int n = 0, m = 0;

		n = rmap_add(r, n, 0, rt->hdr_blocks, XFSJ_RMAP_OWN_FS);
		n = rmap_add(r, n, rt->bno, 2, XFSJ_RMAP_OWN_AG);
		n = rmap_add(r, n, rt->ino, g->feat.finobt ? 2 : 1,
			     XFSJ_RMAP_OWN_INOBT);
		n = rmap_add(r, n, rt->rmap, 1, XFSJ_RMAP_OWN_AG);
		if (g->feat.reflink)
			n = rmap_add(r, n, rt->refc, 1, XFSJ_RMAP_OWN_REFC);
		n = rmap_add(r, n, p->agfl_start, p->agfl_len, XFSJ_RMAP_OWN_AG);
		n = rmap_add(r, n, p->log_start, p->log_len, XFSJ_RMAP_OWN_LOG);
		n = rmap_add(r, n, p->chunk_start, p->chunk_len,
			     XFSJ_RMAP_OWN_INODES);
		qsort(r, n, sizeof(r[0]), cmp_rmap);
		/* Neighbours with the same owner are one record. */
		for (unsigned int i = 0; i < n; i++) {
			if (m && r[m - 1].owner == r[i].owner &&
			    r[m - 1].startblock + r[m - 1].blockcount ==
			    r[i].startblock)
				r[m - 1].blockcount += r[i].blockcount;
			else
				r[m++] = r[i];
		}
		btree_hdr(g, o, XFSJ_BT_RMAP, a, rt->rmap, (uint16_t)m, blk);
		for (unsigned int i = 0; i < m; i++)
			xfsj_rmap_rec_put(blk, i, &r[i]);
		err = put_block(io, g, a, rt->rmap, blk);
		if (err)
			return err;
	}
	if (g->feat.reflink) {
		btree_hdr(g, o, XFSJ_BT_REFC, a, rt->refc, 0, blk);
		err = put_block(io, g, a, rt->refc, blk);
		if (err)
			return err;
	}
	return 0;
}

static int write_ag_headers(struct xfsj_io *io, const struct xfsj_geometry *g,
			    const struct xfsj_newfs_opts *o,
			    const struct ag_plan *p, const struct roots *rt,
			    uint8_t *buf, uint64_t *fdblocks)
{
	unsigned int flsize = xfsj_agfl_size(g->sectsize);
	struct xfsj_agf agf;
	struct xfsj_agi agi;
	struct xfsj_agfl_hdr fl;
	uint32_t *slots;
	uint32_t freeblks = 0, longest = 0;
	uint64_t base = ag_byte(g, p->agno, 0);
	int err;

	for (unsigned int i = 0; i < p->nfree; i++) {
		freeblks += p->free[i].blockcount;
		if (p->free[i].blockcount > longest)
			longest = p->free[i].blockcount;
	}
	memset(&agf, 0, sizeof(agf));
	agf.magicnum = XFSJ_AGF_MAGIC;
	agf.versionnum = 1;
	agf.seqno = p->agno;
	agf.length = p->length;
	agf.bno_root = rt->bno;
	agf.cnt_root = rt->cnt;
	agf.bno_level = agf.cnt_level = 1;
	if (g->feat.rmapbt) {
		agf.rmap_root = rt->rmap;
		agf.rmap_level = 1;
		agf.rmap_blocks = 1;
	}
	/* The fill starts at slot 1: header init leaves flfirst 1, fllast 0. */
	agf.flfirst = 1;
	agf.fllast = p->agfl_len;
	agf.flcount = p->agfl_len;
	agf.freeblks = freeblks;
	agf.longest = longest;
	memcpy(agf.uuid, o->uuid, 16);
	if (g->feat.reflink) {
		agf.refcount_root = rt->refc;
		agf.refcount_level = 1;
		agf.refcount_blocks = 1;
	}
	xfsj_agf_encode(&agf, buf, g->sectsize);
	err = xfsj_pwrite(io, buf, g->sectsize, base + g->sectsize);
	if (err)
		return err;
	*fdblocks += agf.freeblks + agf.flcount + agf.btreeblks;

	memset(&agi, 0, sizeof(agi));
	agi.magicnum = XFSJ_AGI_MAGIC;
	agi.versionnum = 1;
	agi.seqno = p->agno;
	agi.length = p->length;
	agi.root = rt->ino;
	agi.level = 1;
	agi.newino = XFSJ_NULLAGINO;
	agi.dirino = XFSJ_NULLAGINO;
	if (p->chunk_len) {
		agi.count = g->chunk_inodes;
		agi.freecount = g->chunk_inodes - 3;
		agi.newino = p->chunk_start << g->inopblog;
	}
	for (int i = 0; i < XFSJ_AGI_UNLINKED_BUCKETS; i++)
		agi.unlinked[i] = XFSJ_NULLAGINO;
	memcpy(agi.uuid, o->uuid, 16);
	if (g->feat.finobt) {
		agi.free_root = rt->fino;
		agi.free_level = 1;
	}
	if (g->feat.inobtcount) {
		agi.iblocks = 1;
		agi.fblocks = g->feat.finobt ? 1 : 0;
	}
	xfsj_agi_encode(&agi, buf, g->sectsize);
	err = xfsj_pwrite(io, buf, g->sectsize, base + 2 * g->sectsize);
	if (err)
		return err;

	slots = malloc(flsize * sizeof(*slots));
	if (!slots)
		return -XFSJ_E_NOMEM;
	for (unsigned int i = 0; i < flsize; i++)
		slots[i] = XFSJ_NULLAGBLOCK;
	for (uint32_t i = 0; i < p->agfl_len && i + 1 < flsize; i++)
		slots[i + 1] = p->agfl_start + i;
	memset(&fl, 0, sizeof(fl));
	fl.magicnum = XFSJ_AGFL_MAGIC;
	fl.seqno = p->agno;
	memcpy(fl.uuid, o->uuid, 16);
	xfsj_agfl_encode(&fl, slots, buf, g->sectsize);
	free(slots);
	return xfsj_pwrite(io, buf, g->sectsize, base + 3 * g->sectsize);
}

/* The root inode chunk: the root directory, the rt bitmap and summary. */
static int write_inodes(struct xfsj_io *io, const struct xfsj_geometry *g,
			const struct xfsj_newfs_opts *o)
{
	size_t bytes = (size_t)g->chunk_blocks << g->blocklog;
	uint8_t *buf = calloc(1, bytes);
	uint64_t flags2 = (g->feat.bigtime ? XFSJ_DIFLAG2_BIGTIME : 0) |
			  (g->feat.nrext64 ? XFSJ_DIFLAG2_NREXT64 : 0);
	uint64_t now = xfsj_time_encode(o->now_sec, o->now_nsec,
					g->feat.bigtime);
	uint64_t epoch = xfsj_time_encode(0, 0, g->feat.bigtime);
	uint32_t ninodes = (uint32_t)(bytes / g->inodesize);
	int err;

	if (!buf)
		return -XFSJ_E_NOMEM;
	for (uint32_t i = 0; i < ninodes; i++) {
		uint8_t *ip = buf + (size_t)i * g->inodesize;
		struct xfsj_dinode di;

		memset(&di, 0, sizeof(di));
		di.magic = XFSJ_DINODE_MAGIC;
		di.version = 3;
		di.gen = o->gen;
		di.next_unlinked = XFSJ_NULLAGINO;
		di.ino = g->rootino + i;
		memcpy(di.uuid, o->uuid, 16);
		if (i < 3) {
			di.uid = di.gid = 0;
			di.flags2 = flags2;
			di.mtime = di.ctime = di.crtime = now;
			di.aformat = XFSJ_DINODE_FMT_EXTENTS;
			di.changecount = 1;
		}
		if (i == 0) {
			int n;

			di.mode = S_IFDIR | 0755;
			di.format = XFSJ_DINODE_FMT_LOCAL;
			di.nlink = 2;
			di.atime = now;
			n = xfsj_dir_sf_encode(g->rootino, NULL, 0, true,
					       ip + XFSJ_DINODE_CORE_SIZE,
					       g->inodesize - XFSJ_DINODE_CORE_SIZE);
			if (n < 0) {
				free(buf);
				return n;
			}
			di.size = (uint64_t)n;
		} else if (i <= 2) {
			/* The rt bitmap's atime is the allocator's rotor. */
			di.mode = S_IFREG;
			di.format = XFSJ_DINODE_FMT_EXTENTS;
			di.nlink = 1;
			di.flags = i == 1 ? XFSJ_DIFLAG_NEWRTBM : 0;
			di.atime = i == 1 ? epoch : now;
		}
		xfsj_dinode_encode(&di, ip);
		xfsj_dinode_finish(ip, g->inodesize);
	}
	err = xfsj_pwrite(io, buf, bytes,
			  ag_byte(g, 0, (uint32_t)(g->rootino >> g->inopblog)));
	free(buf);
	return err;
}

static int write_log(struct xfsj_io *io, const struct xfsj_geometry *g,
		     const struct xfsj_newfs_opts *o)
{
	uint32_t logsunit = g->lsunit ? g->lsunit * g->blocksize : 1;
	uint32_t lss = (g->versionnum & XFSJ_SB_VERSION_SECTORBIT) ?
		       g->logsectsize : 0;
	uint32_t size = xfsj_log_unmount_record_size(logsunit, lss);
	uint64_t agno = g->logstart >> g->agblklog;
	uint32_t agbno = (uint32_t)(g->logstart & ((1ULL << g->agblklog) - 1));
	uint64_t off = ag_byte(g, (uint32_t)agno, agbno);
	const uint64_t bytes = (uint64_t)g->logblocks << g->blocklog;
	uint8_t *rec;
	int err;

	/* An external log: its device from the start, the data has none. */
	if (g->logexternal) {
		io = o->logio;
		off = 0;
		if (!io)
			return -XFSJ_E_INVAL;
		if (io->size < bytes) {
			err = xfsj_io_extend(io, bytes);
			if (err)
				return err;
		}
		if (o->discard)
			xfsj_io_discard(io, 0, bytes);
	}
	err = xfsj_io_zero(io, off, bytes);
	if (err)
		return err;
	rec = malloc(size);
	if (!rec)
		return -XFSJ_E_NOMEM;
	err = xfsj_log_build_unmount_record(rec, logsunit, lss, o->uuid, 1, 0,
					    xfsj_lsn(1, 0), false);
	if (!err)
		err = xfsj_pwrite(io, rec, size, off);
	free(rec);
	return err;
}

/*
 * An old XFS leaves secondary superblocks at its own AG boundaries; if they
 * survive, xfs_repair may take them for ours.  Zero the ones we will not
 * overwrite.
 */
static int wipe_old_secondaries(struct xfsj_io *io,
				const struct xfsj_geometry *g, uint8_t *buf)
{
	struct xfsj_sb old;
	uint64_t agbytes;
	int err;

	if (xfsj_pread(io, buf, 512, 0))
		return 0;
	xfsj_sb_decode(buf, &old);
	if (old.magicnum != XFSJ_SB_MAGIC || old.blocksize < 512 ||
	    old.blocksize > 65536 || !old.agblocks || old.agcount < 2)
		return 0;
	agbytes = (uint64_t)old.agblocks * old.blocksize;
	if (agbytes == ((uint64_t)g->agblocks << g->blocklog))
		return 0;
	memset(buf, 0, 512);
	for (uint32_t i = 1; i < old.agcount; i++) {
		uint64_t off = agbytes * i;

		if (off + 512 > io->size)
			break;
		err = xfsj_pwrite(io, buf, 512, off);
		if (err)
			return err;
	}
	return 0;
}

int xfsj_newfs_write(struct xfsj_io *io, const struct xfsj_geometry *g,
		     const struct xfsj_newfs_opts *o, struct xfsj_fault *f)
{
	const uint64_t fsbytes = g->dblocks << g->blocklog;
	const uint64_t whack = 128 * 1024;
	struct roots rt;
	struct xfsj_sb sb;
	uint64_t fdblocks = 0;
	uint8_t *sect, *blk;
	uint32_t mid, last;
	int err;

	if (io->size < fsbytes) {
		err = xfsj_io_extend(io, fsbytes);
		if (err)
			return xfsj_fault_set(f, XFSJ_E_TOOSMALL, "device", "size",
					      io->size, fsbytes);
	}
	sect = calloc(1, g->blocksize);
	blk = calloc(1, g->blocksize);
	if (!sect || !blk) {
		err = -XFSJ_E_NOMEM;
		goto out;
	}
	err = wipe_old_secondaries(io, g, sect);
	if (err)
		goto out;
	if (o->discard)
		xfsj_io_discard(io, 0, fsbytes);
	/* Old signatures at both ends of the device (MD, other fs). */
	err = xfsj_io_zero(io, 0, whack < io->size ? whack : io->size);
	if (!err && io->size > whack)
		err = xfsj_io_zero(io, io->size - whack, whack);
	if (err)
		goto out;

	sb_fill(g, o, &sb);
	err = write_sb(io, g, &sb, 0, sect);
	if (!err)
		err = write_log(io, g, o);
	if (err)
		goto out;

	get_roots(g, &rt);
	for (uint32_t a = 0; a < g->agcount; a++) {
		struct ag_plan p;

		plan_ag(g, a, &p);
		if (a)
			err = write_sb(io, g, &sb, a, sect);
		if (!err)
			err = write_ag_headers(io, g, o, &p, &rt, sect,
					       &fdblocks);
		if (!err)
			err = write_btrees(io, g, o, &p, &rt, blk);
		if (err)
			goto out;
		if (o->progress)
			o->progress(o->progress_arg, a + 1, g->agcount);
	}
	err = write_inodes(io, g, o);
	if (err)
		goto out;

	/* Two secondaries learn the root inode, as mkfs.xfs does. */
	mid = (g->agcount - 1) / 2;
	last = g->agcount - 1;
	sb.rootino = g->rootino;
	if (mid) {
		err = write_sb(io, g, &sb, mid, sect);
		if (err)
			goto out;
	}
	if (last && last != mid) {
		err = write_sb(io, g, &sb, last, sect);
		if (err)
			goto out;
	}

	err = xfsj_io_sync(io);
	if (!err && g->logexternal)
		err = xfsj_io_sync(o->logio);
	if (err)
		goto out;
	sb.rbmino = g->rootino + 1;
	sb.rsumino = g->rootino + 2;
	sb.icount = g->chunk_inodes;
	sb.ifree = g->chunk_inodes - 3;
	sb.fdblocks = fdblocks;
	sb.inprogress = 0;
	err = write_sb(io, g, &sb, 0, sect);
	if (!err)
		err = xfsj_io_sync(io);
out:
	free(sect);
	free(blk);
	if (err && f && !f->structure)
		xfsj_fault_set(f, err, "device", "write", 0, 0);
	return err;
}
