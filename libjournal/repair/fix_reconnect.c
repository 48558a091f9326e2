/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_RECONNECT: an inode in use that no directory names, a directory
 * whose chain of parents never reaches the root (when nothing names it),
 * and a member of a loop of directories cut off from the root: the heads.
 * Only the heads move: an inode named by a directory that is itself
 * disconnected comes back with it.
 *
 * First each head goes back under the names its parent pointers give,
 * when they name a directory the root reaches that lacks the name
 * (fix_home.c: one home for a directory, every name for a file with hard
 * links; the rules against hostile pointers are there).  The rest go to
 * /lost+found under their inode numbers in decimal, as xfs_repair names
 * them.
 *
 * lost+found is found in the root's entries, or made (mode 0700, in a
 * free inode of an existing chunk: the inobt and finobt records and the
 * AGI's free count follow; the superblock's count is the counters
 * stage's), its entries and the root's written again by the directory
 * writer.  A moved directory's ".." becomes its new parent (in place, as
 * names.dotdot's fix does, or the directory written again); link counts
 * are set; with parent pointers each moved inode (and a new lost+found)
 * gets the pointer of its new entry (stale ones are FIX_PPTR's).
 *
 * A loop of directories cut off from the root (A names B, B names A; or
 * a directory that names itself) has no head: the check reports one
 * member.  The loop is broken at one member, the entries that named it
 * inside the loop removed, the link counts following: the first member
 * in inode order with a parent pointer that gives a home goes back
 * there; without one, the member reported goes to lost+found like a
 * head.
 *
 * The lookups in the check's entries are dirent_index.c's, logarithmic:
 * a fuzzed filesystem may orphan thousands of inodes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/alloc.h"
#include "fs/attr.h"
#include "fs/btree.h"
#include "fs/iget.h"
#include "repair/reconnect.h"

#define LPF_NAME	"lost+found"
#define LPF_LEN		10
#define S_IFMT_		0170000U
#define S_IFDIR_	0040000U

bool xrp_rc_dir_inuse(struct xrp *rp, uint64_t ino)
{
	struct xck_inode *st;

	if (!xck_ino_valid(rp->ck, ino))
		return false;
	st = xck_inode_find(rp->ck, ino, NULL);
	return st && (st->flags & XCK_I_INUSE) && st->ftype == XFSJ_FT_DIR;
}

/* lost+found in the root's entries, or NULLFSINO. */
static uint64_t find_lpf(struct xrp *rp, const struct xrp_dix *ix)
{
	uint32_t h = xfsj_da_hashname((const uint8_t *)LPF_NAME, LPF_LEN);
	const struct xck_dirent *de = ix->de;
	size_t i, end;

	for (xrp_dix_run(ix, rp->sb->rootino, &i, &end); i < end; i++)
		if (de[i].namelen == LPF_LEN && de[i].namehash == h &&
		    de[i].child != rp->sb->rootino &&
		    xrp_rc_dir_inuse(rp, de[i].child))
			return de[i].child;
	return XFSJ_NULLFSINO;
}

/* ---- a free inode taken ---- */

static int take_inobt(struct xrp *rp, enum xfsj_btnum bt, uint32_t agno,
		      uint32_t startino, unsigned int bit, struct xfsj_fault *f)
{
	struct xfsj_btree_cur *cur;
	union xfsj_btree_irec rec;
	int stat, err;

	err = xfsj_btree_cur_new(rp->fs, bt, agno, xfsj_alloc_block_source(bt),
				 f, &cur);
	if (err)
		return err;
	memset(&rec, 0, sizeof(rec));
	rec.i.startino = startino;
	err = xfsj_btree_lookup(cur, XFSJ_LOOKUP_EQ, &rec, &stat);
	if (!err && stat)
		err = xfsj_btree_get_rec(cur, &rec, &stat);
	if (!err && (!stat || !(rec.i.free & (1ULL << bit)) ||
		     !rec.i.freecount))
		err = -XFSJ_E_CORRUPT;
	if (!err) {
		rec.i.free &= ~(1ULL << bit);
		rec.i.freecount--;
		/* The finobt holds only chunks with a free inode. */
		if (bt == XFSJ_BT_FINO && !rec.i.freecount)
			err = xfsj_btree_delete(cur, &stat);
		else
			err = xfsj_btree_update(cur, &rec);
	}
	xfsj_btree_cur_free(cur);
	return err;
}

/* A free inode of AG @agno's chunks (the scan's view), made in use. */
static int alloc_inode(struct xrp *rp, uint32_t agno, uint64_t *ino)
{
	struct xck_ag *ag = &rp->ck->ags[agno];
	struct xfsj_fault f = { 0 };
	struct xfsj_buf *agibp;
	int err;

	if (!xck_ag_trusted(rp->ck, agno, XCK_TRUST_INODES))
		return 1;
	for (size_t c = 0; c < ag->chunks.n; c++) {
		struct xck_chunk *ch = xck_vec_at(&ag->chunks, c);
		unsigned int bit;

		if (!ch->ino || !ch->rec.freecount)
			continue;
		for (bit = 0; bit < XFSJ_INODES_PER_CHUNK; bit++)
			if ((ch->rec.free & (1ULL << bit)) &&
			    !(ch->rec.holemask &
			      (1U << (bit / XFSJ_INODES_PER_HOLEMASK_BIT))) &&
			    !(ch->ino[bit].flags & XCK_I_INUSE))
				break;
		if (bit == XFSJ_INODES_PER_CHUNK)
			continue;
		err = take_inobt(rp, XFSJ_BT_INO, agno, ch->rec.startino, bit,
				 &f);
		if (!err && xfsj_fs_has(rp->fs, XFSJ_RO_COMPAT_FINOBT))
			err = take_inobt(rp, XFSJ_BT_FINO, agno,
					 ch->rec.startino, bit, &f);
		if (!err)
			err = xrp_ag_header_buf(rp, agno, 2, &agibp);
		if (err)
			return err;
		xfsj_put_be32(agibp->data + XFSJ_AGI_OFF(freecount),
			      xfsj_get_be32(agibp->data +
					    XFSJ_AGI_OFF(freecount)) - 1);
		xfsj_buf_dirty(agibp);
		ch->rec.free &= ~(1ULL << bit);
		ch->rec.freecount--;
		ch->ino[bit].flags |= XCK_I_INUSE;
		ch->ino[bit].ftype = XFSJ_FT_DIR;
		*ino = xfsj_agino_to_ino(rp->sb, agno, ch->rec.startino + bit);
		return 0;
	}
	return 1;
}

/* A name of a directory, by its hash (then the name itself). */
struct held {
	uint32_t hash;
	uint32_t i;		/* its entry */
};

static int held_cmp(const void *pa, const void *pb)
{
	const struct held *a = pa, *b = pb;

	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

/* Does the entry list @v (@byhash, @n) hold the name of @e? */
static bool list_holds(const struct xfsj_dirent *v, const struct held *byhash,
		       size_t n, const struct xfsj_dirent *e)
{
	struct held key = { xfsj_da_hashname((const uint8_t *)e->name,
					     e->namelen), 0 };
	const struct held *hit = bsearch(&key, byhash, n, sizeof(key),
					 held_cmp);

	if (!hit)
		return false;
	while (hit > byhash && hit[-1].hash == key.hash)
		hit--;
	for (; hit < byhash + n && hit->hash == key.hash; hit++)
		if (v[hit->i].namelen == e->namelen &&
		    !memcmp(v[hit->i].name, e->name, e->namelen))
			return true;
	return false;
}

/* The names of the @n entries of @v, by hash (NULL: out of memory). */
static struct held *by_hash(const struct xfsj_dirent *v, size_t n)
{
	struct held *b = calloc(n ? n : 1, sizeof(*b));

	if (!b)
		return NULL;
	for (size_t i = 0; i < n; i++)
		b[i] = (struct held){ xfsj_da_hashname((const uint8_t *)
						       v[i].name,
						       v[i].namelen),
				      (uint32_t)i };
	qsort(b, n, sizeof(*b), held_cmp);
	return b;
}

int xrp_rc_dir_add(struct xrp *rp, uint64_t dir,
		   const struct xfsj_dirent *add, size_t nadd, bool *ok)
{
	struct xfsj_fault f = { 0 };
	struct xrp_dirlist l;
	struct xfsj_dirent *v;
	struct held *b = NULL;
	size_t n;
	int err;

	err = xrp_dir_collect_entries(rp, dir, &l);
	if (err)
		return err < 0 ? err : 1;
	v = realloc(l.de, (l.n + nadd) * sizeof(*v));
	if (v)
		l.de = v;
	if (v && ok)
		b = by_hash(v, l.n);
	if (!v || (ok && !b)) {
		xrp_dirlist_free(&l);
		return -XFSJ_E_NOMEM;
	}
	n = l.n;
	for (size_t i = 0; i < nadd; i++) {
		if (ok)
			ok[i] = !list_holds(v, b, l.n, &add[i]);
		if (!ok || ok[i])
			v[n++] = add[i];
	}
	free(b);
	if (dir == rp->sb->rootino)
		l.parent = dir;
	err = n == l.n ? 0 : xfsj_dir_fits(rp->sb, v, n) ?
	      xfsj_dir_write(rp->fs, dir, l.parent, v, n,
			    xrp_keep_old_blocks(rp, dir, XFSJ_DATA_FORK), &f) : 1;
	xrp_dirlist_free(&l);
	if (err < 0 && err != -XFSJ_E_NOMEM && err != -XFSJ_E_IO)
		err = 1;
	return err;
}

static int pptr_of(struct xrp *rp, struct xfsj_iref *ip,
		   const struct xrp_rc_name *nm);

/*
 * The lost+found names of @n heads, each its inode number in decimal; a
 * number lost+found @lpf already holds as a name (a file put there by an
 * earlier repair and renamed, or made by hand) gets ".1", ".2", ... as
 * xfs_repair's orphanage does, until free.  The suffixed names cannot
 * collide with each other: each starts with a different number.
 */
static int lpf_names(struct xrp *rp, uint64_t lpf, const uint64_t *h,
		     size_t n, char (*names)[32], struct xfsj_dirent *add)
{
	struct xrp_dirlist l = { 0 };
	struct held *b = NULL;
	int err;

	for (size_t i = 0; i < n; i++) {
		const struct xck_inode *st = xck_inode_find(rp->ck, h[i], NULL);

		snprintf(names[i], sizeof(names[i]), "%llu",
			 (unsigned long long)h[i]);
		add[i] = (struct xfsj_dirent){ names[i],
			(uint8_t)strlen(names[i]), st->ftype, h[i] };
	}
	err = xrp_dir_collect_entries(rp, lpf, &l);
	if (err)
		return err < 0 ? err : 0;	/* unreadable: written anew */
	b = by_hash(l.de, l.n);
	if (!b) {
		xrp_dirlist_free(&l);
		return -XFSJ_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 1; list_holds(l.de, b, l.n, &add[i]) &&
				     k < 100000; k++) {
			snprintf(names[i], sizeof(names[i]), "%llu.%u",
				 (unsigned long long)h[i], k);
			add[i].namelen = (uint8_t)strlen(names[i]);
		}
	free(b);
	xrp_dirlist_free(&l);
	return 0;
}

/* A new lost+found in the root. */
static int make_lpf(struct xrp *rp, uint64_t *lpf)
{
	const struct xfsj_sb *sb = rp->sb;
	struct xfsj_dirent e = { LPF_NAME, LPF_LEN, XFSJ_FT_DIR, 0 };
	struct xfsj_fault f = { 0 };
	struct xfsj_iref root, ip;
	struct xfsj_dinode di;
	uint32_t fsz;
	uint8_t *fork;
	int err = 1;

	for (uint32_t i = 0; i < sb->agcount && err == 1; i++)
		err = alloc_inode(rp, (xfsj_ino_agno(sb, sb->rootino) + i) %
				  sb->agcount, lpf);
	if (err)
		return err;
	err = xfsj_iget(rp->fs, sb->rootino, true, &root, &f);
	if (!err)
		err = xfsj_iget(rp->fs, *lpf, true, &ip, &f);
	if (err)
		return err;
	/* The root's core as the pattern: owner, times, flags2. */
	di = root.di;
	di.mode = (uint16_t)(S_IFDIR_ | 0700);
	di.format = XFSJ_DINODE_FMT_LOCAL;
	di.onlink = 0;
	di.nlink = 2;
	di.nblocks = 0;
	di.nextents = 0;
	di.big_nextents = 0;
	di.anextents = 0;
	di.forkoff = 0;
	di.aformat = XFSJ_DINODE_FMT_EXTENTS;
	di.flags = 0;
	di.extsize = 0;
	di.cowextsize = 0;
	di.gen = ip.di.gen;
	di.next_unlinked = XFSJ_NULLAGINO;
	di.ino = *lpf;
	di.changecount = 0;
	ip.di = di;
	fork = xfsj_ifork(rp->fs, &ip, XFSJ_DATA_FORK, &fsz);
	memset(fork, 0, fsz);
	/* An empty short form: only the parent. */
	err = xfsj_dir_sf_encode(sb->rootino, NULL, 0,
				 (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0,
				 fork, fsz);
	if (err < 0)
		return err;
	ip.di.size = (uint64_t)err;
	xfsj_iput(rp->fs, &ip, true);
	e.ino = *lpf;
	err = xrp_rc_dir_add(rp, sb->rootino, &e, 1, NULL);
	if (err)
		return err;
	err = xfsj_iget(rp->fs, sb->rootino, true, &root, &f);
	if (err)
		return err;
	root.di.nlink++;
	xfsj_iput(rp->fs, &root, true);
	err = xfsj_iget(rp->fs, *lpf, true, &ip, &f);
	if (!err)
		err = pptr_of(rp, &ip, &(struct xrp_rc_name){
			.parent = sb->rootino, .name = LPF_NAME,
			.namelen = LPF_LEN });
	if (!err)
		xfsj_iput(rp->fs, &ip, true);
	if (!err)
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_RECONNECT, .has = XFSJ_PF_INO,
			.ino = *lpf, .what = "created /lost+found" });
	return err;
}

/*
 * Is directory @ino on a loop of names: do the directories naming it,
 * followed up, come back to it?  Floyd's tortoise and hare, so a chain
 * that runs into another loop ends.
 */
static bool in_name_loop(const struct xrp_dix *ix, uint64_t ino)
{
	uint64_t slow = ino, fast = ino;
	size_t bound = ix->n + 1;

	while (bound--) {
		slow = xrp_dix_namer(ix, slow);
		fast = xrp_dix_namer(ix, fast);
		if (fast != XFSJ_NULLFSINO && fast != ino)
			fast = xrp_dix_namer(ix, fast);
		if (slow == ino || fast == ino)
			return true;
		if (slow == XFSJ_NULLFSINO || fast == XFSJ_NULLFSINO ||
		    slow == fast)
			return false;
	}
	return false;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The heads to move, in inode order, once each: in use, named by no
 * directory entry at all, or the member of a loop of names the check
 * reported.
 */
static int heads(struct xrp *rp, const struct xrp_dix *ix, uint64_t lpf,
		 uint64_t **out, size_t *n)
{
	struct xrp_prob *pr;
	uint64_t *v = NULL;
	size_t cap = 0, k = 0;

	*n = 0;
	xrp_for_each(rp, pr, XFSJ_FIX_RECONNECT) {
		struct xck_inode *st;
		uint64_t ino = pr->p.ino;

		/* (one a directory rebuilt this round names again stays) */
		if (!(pr->p.has & XFSJ_PF_INO) || ino == lpf ||
		    ino == rp->sb->rootino ||
		    !xrp_names(pr, XFSJ_H_RECONNECT) ||
		    xrp_renamed(rp, ino))
			continue;
		st = xck_inode_find(rp->ck, ino, NULL);
		if (!st || !(st->flags & XCK_I_INUSE) ||
		    (st->flags & (XCK_I_META | XCK_I_UNLINKED)) ||
		    !st->ftype)
			continue;
		if ((st->flags & XCK_I_INDIR) &&
		    (st->ftype != XFSJ_FT_DIR || !in_name_loop(ix, ino)))
			continue;
		if (xfsj_grow(&v, &cap, *n, 1, sizeof(*v), 16)) {
			free(v);
			return -XFSJ_E_NOMEM;
		}
		v[(*n)++] = ino;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), u64_cmp);
	for (size_t i = 0; i < *n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	*n = k;
	*out = v;
	return 0;
}

/*
 * Directory @dir written again without its entries naming @ino (its
 * parent @parent).  0, or a negative XFSJ_E_*.
 */
static int drop_names(struct xrp *rp, uint64_t dir, uint64_t ino,
		      uint64_t parent)
{
	struct xfsj_fault f = { 0 };
	struct xrp_dirlist l;
	size_t k = 0;
	int err;

	err = xrp_dir_collect(rp, dir, &l);
	if (err)
		return err < 0 ? err : 0;
	/* (the walk leaves out a directory's names of itself) */
	for (size_t i = 0; i < l.n; i++)
		if (l.de[i].ino != ino)
			l.de[k++] = l.de[i];
	err = xfsj_dir_fits(rp->sb, l.de, k) ?
	      xfsj_dir_write(rp->fs, dir, parent, l.de, k,
			    xrp_keep_old_blocks(rp, dir, XFSJ_DATA_FORK), &f) : 0;
	xrp_dirlist_free(&l);
	return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
}

int xrp_rc_cut_loop(struct xrp *rp, struct xrp_dix *ix, uint64_t ino,
		    uint64_t lpf)
{
	uint64_t *dirs = NULL;
	size_t n = 0, cap = 0, i, end;
	int err = 0, cut = 0;

	for (xrp_dix_namers(ix, ino, &i, &end); i < end; i++) {
		uint64_t dir = xrp_dix_namer_at(ix, i);
		size_t k;

		if (dir == lpf)
			continue;
		cut++;
		/* (the namers come by directory: one run each) */
		for (k = n; k > 0 && dirs[k - 1] != dir; k--)
			;
		if (k)
			continue;
		if (xfsj_grow(&dirs, &cap, n, 1, sizeof(*dirs), 4)) {
			free(dirs);
			return -XFSJ_E_NOMEM;
		}
		dirs[n++] = dir;
	}
	for (size_t k = 0; k < n && !err; k++) {
		const struct xck_inode *st = xck_inode_find(rp->ck, dirs[k],
							    NULL);
		uint64_t parent = dirs[k] == ino || !st ? lpf : st->parent;

		err = drop_names(rp, dirs[k], ino, parent);
	}
	free(dirs);
	return err < 0 ? err : cut;
}

/* Directory @ino's ".." set to @parent: in place, or written again. */
static int set_parent(struct xrp *rp, uint64_t ino, uint64_t parent)
{
	struct xfsj_fault f = { 0 };
	struct xrp_dirlist l;
	int err = xrp_set_dotdot(rp, ino, parent);

	if (err <= 0)
		return err;
	err = xrp_dir_collect(rp, ino, &l);
	if (err)
		return err;
	/* Too big to write again: its ".." is left for the next round to
	 * report. */
	err = xfsj_dir_fits(rp->sb, l.de, l.n) ?
	      xfsj_dir_write(rp->fs, ino, parent, l.de, l.n,
			    xrp_keep_old_blocks(rp, ino, XFSJ_DATA_FORK), &f) : 0;
	xrp_dirlist_free(&l);
	return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
}

/* The parent pointer of name @nm on @ip, one there already kept when it
 * has the parent's generation. */
static int pptr_of(struct xrp *rp, struct xfsj_iref *ip,
		   const struct xrp_rc_name *nm)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_iref pip;
	uint8_t val[XFSJ_ATTR_PPTR_VALUE_LEN];
	struct xfsj_attr_arg a = {
		.ns = XFSJ_ATTR_NS_PARENT, .name = (const uint8_t *)nm->name,
		.namelen = nm->namelen, .value = val, .valuelen = sizeof(val),
	};
	bool found;
	int err;

	if (!(rp->sb->features_incompat & XFSJ_INCOMPAT_PARENT))
		return 0;
	err = xfsj_iget(rp->fs, nm->parent, true, &pip, &f);
	if (err)
		return err;
	if (nm->had && nm->gen == pip.di.gen)
		return 0;
	xfsj_put_be64(val, nm->parent);
	if (nm->had) {
		xfsj_put_be32(val + 8, nm->gen);
		err = xfsj_attr_remove(rp->fs, ip, &a, &found, &f);
		if (err)
			return err;
	}
	xfsj_put_be32(val + 8, pip.di.gen);
	return xfsj_attr_set(rp->fs, ip, &a, XFSJ_ATTR_UPSERT, &f);
}

int xrp_rc_settle(struct xrp *rp, uint64_t ino, const struct xrp_rc_name *nm,
		  size_t n, int cut)
{
	struct xck_inode *st = xck_inode_find(rp->ck, ino, NULL);
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	int err;

	if (!n)
		return 0;
	/* Only ".." changes: in place, or the directory written again. */
	err = st->ftype == XFSJ_FT_DIR ? set_parent(rp, ino, nm[0].parent) : 0;
	if (!err)
		err = xfsj_iget(rp->fs, ino, true, &ip, &f);
	if (err)
		return err;
	/* Its own "." and its subdirectories' "..", and the new entries;
	 * not the entries cut, nor its own ".." when it named itself. */
	ip.di.nlink = st->refs + (uint32_t)n - (uint32_t)cut -
		      (st->parent == ino);
	for (size_t i = 0; i < n && !err; i++)
		err = pptr_of(rp, &ip, &nm[i]);
	xfsj_iput(rp->fs, &ip, true);
	return err;
}

/*
 * The old parents of the directories moved (@h, @n): each loses the link
 * the ".." of each gave it, so that the next check finds their counts
 * right instead of fixing them in another round.
 */
int xrp_rc_unlink_old_parents(struct xrp *rp, const uint64_t *h, size_t n,
			      uint64_t lpf)
{
	uint64_t *par = calloc(n ? n : 1, sizeof(*par));
	size_t np = 0, i, k;
	int err = 0;

	if (!par)
		return -XFSJ_E_NOMEM;
	for (i = 0; i < n; i++) {
		const struct xck_inode *st = xck_inode_find(rp->ck, h[i], NULL);

		if (st && st->ftype == XFSJ_FT_DIR && st->parent != lpf &&
		    st->parent != h[i] && xrp_rc_dir_inuse(rp, st->parent))
			par[np++] = st->parent;
	}
	qsort(par, np, sizeof(*par), u64_cmp);
	for (i = 0; i < np && !err; i = k) {
		struct xfsj_iref ip;
		char what[96];

		for (k = i; k < np && par[k] == par[i]; k++)
			;
		err = xrp_iget(rp, par[i], &ip);
		if (err)
			break;
		if (ip.di.nlink < 2 + (k - i))
			continue;	/* wrong already: the next check's */
		ip.di.nlink -= (uint32_t)(k - i);
		xfsj_iput(rp->fs, &ip, false);
		snprintf(what, sizeof(what), "set nlink of inode %llu to %u",
			 (unsigned long long)par[i], ip.di.nlink);
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_NLINK, .has = XFSJ_PF_INO,
			.ino = par[i], .what = what });
	}
	free(par);
	return err < 0 ? err : 0;
}

void xrp_rc_mark_done(struct xrp *rp, const uint64_t *h, size_t n)
{
	for (struct xrp_prob *pr = rp->probs; pr < rp->probs + rp->nprobs;
	     pr++)
		if (pr->p.def->fix == XFSJ_FIX_RECONNECT &&
		    bsearch(&pr->p.ino, h, n, sizeof(*h), u64_cmp))
			pr->done = true;
}

/* The heads @h (@n) to lost+found @lpf (made when NULLFSINO). */
static int to_lpf(struct xrp *rp, struct xrp_dix *ix, uint64_t lpf,
		  const uint64_t *h, size_t n)
{
	struct xfsj_dirent *add = NULL;
	char (*names)[32] = NULL;
	struct xfsj_fault f = { 0 };
	struct xrp_dirlist l;
	struct xfsj_iref ip;
	size_t ndirs = 0;
	int err = 0;

	if (lpf == XFSJ_NULLFSINO)
		err = make_lpf(rp, &lpf);
	add = calloc(n, sizeof(*add));
	names = calloc(n, sizeof(*names));
	if (!err && (!add || !names))
		err = -XFSJ_E_NOMEM;
	if (!err)
		err = lpf_names(rp, lpf, h, n, names, add);
	if (!err)
		err = xrp_rc_dir_add(rp, lpf, add, n, NULL);
	for (size_t i = 0; i < n && !err; i++) {
		const struct xck_inode *st = xck_inode_find(rp->ck, h[i],
							    NULL);
		char what[96];
		int cut = 0;

		if (st->flags & XCK_I_INDIR)
			cut = xrp_rc_cut_loop(rp, ix, h[i], lpf);
		if (cut < 0) {
			err = cut;
			break;
		}
		err = xrp_rc_settle(rp, h[i], &(struct xrp_rc_name){
			.parent = lpf, .name = names[i],
			.namelen = add[i].namelen }, 1, cut);
		if (err)
			break;
		snprintf(what, sizeof(what),
			 "moved inode %llu to lost+found as %s",
			 (unsigned long long)h[i], names[i]);
		xrp_action(rp, &(struct xfsj_repair_action){
			.fix = XFSJ_FIX_RECONNECT,
			.has = XFSJ_PF_INO | XFSJ_PF_COUNT, .ino = h[i],
			.count = 1, .what = what });
	}
	free(add);
	free(names);
	if (!err)
		err = xrp_rc_unlink_old_parents(rp, h, n, lpf);
	/* lost+found's links: ".", its entry, each subdirectory's "..". */
	if (!err)
		err = xrp_dir_collect(rp, lpf, &l);
	if (err)
		return err;
	for (size_t i = 0; i < l.n; i++)
		ndirs += l.de[i].ftype == XFSJ_FT_DIR;
	xrp_dirlist_free(&l);
	err = xfsj_iget(rp->fs, lpf, true, &ip, &f);
	if (err)
		return err;
	ip.di.nlink = (uint32_t)(2 + ndirs);
	xfsj_iput(rp->fs, &ip, true);
	xrp_rc_mark_done(rp, h, n);
	return 0;
}

int xrp_fix_reconnect(struct xrp *rp)
{
	struct xrp_dix ix;
	uint64_t lpf, *h = NULL;
	size_t n = 0;
	int err;

	err = xrp_dix_build(rp, &ix);
	if (err)
		goto out;
	lpf = find_lpf(rp, &ix);
	err = heads(rp, &ix, lpf, &h, &n);
	if (!err && n)
		err = xrp_homes(rp, &ix, h, &n, &lpf);
	if (!err && n)
		err = to_lpf(rp, &ix, lpf, h, n);
out:
	xrp_dix_free(&ix);
	free(h);
	/* A fix that cannot be made is left for the final check. */
	return err > 0 ? 0 : err;
}
