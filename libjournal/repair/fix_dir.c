/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_CLEAR_ENTRY: one directory entry removed (an entry naming an
 * invalid or free inode, a name that is not allowed, a name there twice).
 *
 * A short-form directory loses the entry from the inode's literal area:
 * the entries after it move up, the count and the size shrink.  The entry
 * is found by its place (the check's directory offset of a short-form
 * entry is its index, "." and ".." first) and name, or, for an entry
 * naming a free inode, by the inode it names and its name's hash.
 * Entries of block and leaf directories: fix_dir_block.c.  A directory
 * whose entry neither removes (node and btree-fork directories) is
 * rebuilt from its salvageable entries (fix_dir_salvage.c), which leaves
 * out the entries naming no inode in use, the names not allowed and the
 * names there twice: all of its entries the check asks to remove.
 *
 * dir.parents (a directory named from several directories): the entries
 * naming it outside the directory the check took as its parent are
 * removed the same way, by child and hash.
 *
 * The link counts and parent pointers the removal changes are the next
 * round's to fix.
 *
 * dirent.ftype in a short form (xrp_sf_dirent_ftype): the entries naming
 * the child with the type found get the type expected, in place.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/layout.h"
#include "fs/attr.h"
#include "fs/iget.h"
#include "repair/repair_priv.h"

/* The check numbers a short-form entry by its index after "." and "..". */
#define SF_ADDR_FIRST	3

/* One short-form entry as found in the literal area. */
struct sf_ent {
	uint32_t pos, len;	/* its bytes in the fork */
	const uint8_t *name;
	uint8_t namelen;
	uint64_t ino;
};

/* How a problem names the entry to remove. */
struct sf_target {
	long idx;		/* its index, or -1 */
	const char *name;	/* its name, or NULL */
	size_t namelen;
	bool by_child;		/* ... or the inode it names and a hash */
	uint64_t child;
	uint32_t hash;
};

static bool sf_matches(const struct sf_ent *e, long idx,
		       const struct sf_target *t)
{
	if (t->by_child)
		return e->ino == t->child &&
		       xfsj_da_hashname(e->name, e->namelen) == t->hash;
	if (t->idx >= 0 && t->idx != idx)
		return false;
	return !t->name || (t->namelen == e->namelen &&
			    !memcmp(t->name, e->name, e->namelen));
}

/*
 * The short-form entry at *@pos of the fork @f of @size bytes: 0, @e
 * filled and *@pos moved past it, or 1 when it does not fit.
 */
static int sf_next(const uint8_t *f, uint64_t size, bool ftype,
		   uint64_t *pos, struct sf_ent *e)
{
	unsigned int inosz = f[1] ? 8 : 4;
	uint64_t end;

	if (*pos + 3 > size)
		return 1;
	e->namelen = f[*pos];
	end = *pos + 3 + e->namelen + (ftype ? 1 : 0) + inosz;
	if (end > size)
		return 1;
	e->pos = (uint32_t)*pos;
	e->len = (uint32_t)(end - *pos);
	e->name = f + *pos + 3;
	e->ino = inosz == 8 ? xfsj_get_be64(f + end - 8) :
			      xfsj_get_be32(f + end - 4);
	*pos = end;
	return 0;
}

/* The offset of the first short-form entry (the header's end). */
static uint64_t sf_first(const uint8_t *f)
{
	return 2 + (f[1] ? 8 : 4);
}

/*
 * Find the entry @t names in the short-form fork @f of @size bytes (the
 * directory's size); 0 and *@out filled, or 1 when it is not there or the
 * fork cannot be walked.
 */
static int sf_find(const uint8_t *f, uint64_t size, bool ftype,
		   const struct sf_target *t, struct sf_ent *out)
{
	uint64_t pos;

	if (size < 6)
		return 1;
	pos = sf_first(f);
	for (unsigned int i = 0; i < f[0]; i++) {
		struct sf_ent e;

		if (sf_next(f, size, ftype, &pos, &e))
			return 1;
		if (sf_matches(&e, i, t)) {
			*out = e;
			return 0;
		}
	}
	return 1;
}

int xrp_sf_dirent_ftype(struct xrp *rp, struct xrp_prob *pr,
			struct xfsj_iref *ip)
{
	uint32_t fsize;
	uint8_t *f = xfsj_ifork(rp->fs, ip, XFSJ_DATA_FORK, &fsize);
	uint64_t size = ip->di.size, pos;
	int changed = 0;

	if (size > fsize || size < 6)
		return 0;
	pos = sf_first(f);
	for (unsigned int i = 0; i < f[0]; i++) {
		struct sf_ent e;
		uint8_t *ft;

		if (sf_next(f, size, true, &pos, &e))
			break;
		ft = f + e.pos + 3 + e.namelen;
		if (e.ino != pr->p.off || *ft != pr->p.found)
			continue;
		*ft = (uint8_t)pr->p.expected;
		changed = 1;
	}
	if (changed)
		xfsj_iput(rp->fs, ip, false);
	return changed;
}

/* What the problem says of the entry. */
static bool sf_target_of(const struct xrp_prob *pr, struct sf_target *t)
{
	const struct xfsj_problem *p = &pr->p;

	memset(t, 0, sizeof(*t));
	t->idx = -1;
	if (xrp_by_child(pr)) {
		if (!(p->has & XFSJ_PF_EXPECTED) || !(p->has & XFSJ_PF_FOUND))
			return false;
		t->by_child = true;
		t->child = p->expected;
		t->hash = (uint32_t)p->found;
		return true;
	}
	if (!(p->has & XFSJ_PF_OFF) || !p->name)
		return false;
	if ((p->off >> 3) >= SF_ADDR_FIRST)
		t->idx = (long)((p->off >> 3) - SF_ADDR_FIRST);
	t->name = p->name;
	t->namelen = p->namelen;
	return true;
}

static int clear_sf_entry(struct xrp *rp, struct xrp_prob *pr,
			  struct xfsj_iref *ip)
{
	bool ftype = xfsj_fs_has_incompat(rp->fs, XFSJ_INCOMPAT_FTYPE);
	struct sf_target t;
	struct sf_ent e;
	uint32_t fsize;
	uint8_t *f = xfsj_ifork(rp->fs, ip, XFSJ_DATA_FORK, &fsize);
	uint64_t size = ip->di.size;
	char name[64];

	if (size > fsize || !sf_target_of(pr, &t) ||
	    sf_find(f, size, ftype, &t, &e))
		return 0;
	/* The last wide number gone would change every number's width. */
	if (f[1] == 1 && e.ino > UINT32_MAX)
		return 0;
	snprintf(name, sizeof(name), "%.*s", e.namelen, (const char *)e.name);
	memmove(f + e.pos, f + e.pos + e.len, size - e.pos - e.len);
	memset(f + size - e.len, 0, e.len);
	f[0]--;
	if (e.ino > UINT32_MAX)
		f[1]--;
	ip->di.size = size - e.len;
	xfsj_iput(rp->fs, ip, false);
	xrp_ino_action(rp, pr, XFSJ_FIX_CLEAR_ENTRY, ip->ino,
		       "removed entry '%s' (inode %llu) from directory %llu",
		       name, (unsigned long long)e.ino,
		       (unsigned long long)ip->ino);
	return 0;
}

/* Entry problems the salvage answers by leaving the entry out. */
static bool salvage_drops(const struct xrp_prob *pr)
{
	return xrp_has(pr, XFSJ_T_DROPS_ENTRY);
}

/* The entry left in place: the directory rebuilt without it. */
static int rebuild_for(struct xrp *rp, struct xrp_prob *pr)
{
	uint64_t dir = pr->p.ino;
	int err;

	if (!salvage_drops(pr) && !xrp_names(pr, XFSJ_H_DIR_PARENTS))
		return 0;
	err = xrp_dir_rebuild(rp, dir);
	if (err <= 0)
		return err;
	pr->done = true;
	for (size_t i = 0; i < rp->nprobs; i++) {
		struct xrp_prob *q = &rp->probs[i];

		if (q->p.def->fix == XFSJ_FIX_CLEAR_ENTRY &&
		    (q->p.has & XFSJ_PF_INO) && q->p.ino == dir &&
		    salvage_drops(q))
			q->done = true;
	}
	return 0;
}

bool xrp_by_child(const struct xrp_prob *pr)
{
	return xrp_has(pr, XFSJ_T_BY_CHILD);
}

/* Remove the entry @pr names (by place and name, or by child and hash)
 * from directory @dir. */
static int clear_in(struct xrp *rp, struct xrp_prob *pr, uint64_t dir)
{
	struct xfsj_iref ip;
	int err = xrp_iget(rp, dir, &ip);

	if (err || (ip.di.mode & S_IFMT) != S_IFDIR)
		return err < 0 ? err : 0;
	if (ip.di.format == XFSJ_DINODE_FMT_LOCAL)
		err = clear_sf_entry(rp, pr, &ip);
	else
		err = xrp_clear_block_entry(rp, pr, &ip);
	if (!err && !pr->done && ip.di.format != XFSJ_DINODE_FMT_LOCAL)
		err = rebuild_for(rp, pr);
	return err;
}

struct extra {
	struct xrp *rp;
	struct xrp_prob *pr;
	uint32_t dotdot;	/* the hash of ".." */
};

static int clear_extra(void *arg, const struct xck_dirent *e)
{
	struct extra *x = arg;
	struct xrp_prob *pr = x->pr, one = *pr;
	uint64_t child = pr->p.ino;
	int err;

	if (e->dir == child || (e->namelen == 2 && e->namehash == x->dotdot))
		return 0;
	if (e->dir == pr->p.off && (!(pr->p.has & XFSJ_PF_FOUND) ||
				    e->namehash == (uint32_t)pr->p.found))
		return 0;
	one.done = false;
	one.p.ino = e->dir;
	one.p.expected = child;
	one.p.found = e->namehash;
	one.p.has |= XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;
	err = clear_in(x->rp, &one, e->dir);
	if (one.done)
		pr->done = true;
	return err;
}

/*
 * dir.parents: a directory named by several entries (a loop, two parents,
 * or one directory naming it twice).  The entry the check chose stays
 * (its directory, and its name's hash); the others are removed, each
 * found by the child it names and its name's hash (one that cannot be
 * told from the kept entry by its hash stays).  Its ".." and the link
 * counts follow in the next round.
 */
static int clear_extra_parents(struct xrp *rp, struct xrp_prob *pr)
{
	struct extra x = { rp, pr,
			   xfsj_da_hashname((const uint8_t *)"..", 2) };

	if (!(pr->p.has & XFSJ_PF_OFF))
		return 0;
	return xrp_entries_naming(rp, pr->p.ino, &(struct xrp_naming_cb){
		clear_extra, &x });
}

int xrp_fix_clear_entry(struct xrp *rp)
{
	struct xrp_prob *pr;
	int err;

	xrp_for_each(rp, pr, XFSJ_FIX_CLEAR_ENTRY) {
		if (pr->done || !(pr->p.has & XFSJ_PF_INO))
			continue;
		if (xrp_names(pr, XFSJ_H_DIR_PARENTS))
			err = clear_extra_parents(rp, pr);
		else
			err = clear_in(rp, pr, pr->p.ino);
		if (err)
			return err;
	}
	return 0;
}
