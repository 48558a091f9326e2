/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_SALVAGE_DIR: a directory whose structure is damaged (a block's
 * magic, an entry's length, the leaves, the short form's bytes) is
 * rewritten from the entries that survive, where xfs_repair 6.13 drops
 * the whole directory for one bad field.
 *
 * Every block of the data space is walked, whatever its header says:
 * items are read in order; past one that does not decode, the walk
 * resumes at the next 8-byte boundary holding an item whose tag is its
 * own offset.  A short form is read the same way: past a bad entry, the
 * next place where a whole sound entry starts.  An entry is kept when
 * its name is legal and not seen before in the directory, and its inode
 * number names an inode in use in the check's state (whose file type it
 * takes); on a filesystem with parent pointers, the children's pointers
 * to the directory give back the entries the blocks lost.  ".." is the
 * directory that names it, else the ".." the scan found if that is a
 * directory, else the root.  The directory writer
 * (fs/dir_write.c) writes the survivors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fs/attr.h"
#include "fs/bmap.h"
#include "fs/bmbt.h"
#include "fs/iget.h"
#include "ondisk/dir_block.h"
#include "repair/repair_priv.h"

/* An entry kept: its name is in the salvage's name arena, at @off. */
struct sent {
	uint64_t ino;
	uint64_t off;
	uint32_t hash;
	uint8_t namelen;
	uint8_t ftype;
};

/* A name left out (few: kept whole). */
struct lent {
	uint32_t hash;
	uint8_t namelen;
	char name[256];
};

struct salvage {
	struct xrp *rp;
	uint64_t dir;
	struct sent *e;
	size_t n, cap;
	char *names;		/* the kept names, each ended by a NUL */
	size_t nnames, capnames;
	size_t seen;		/* entries found, "." and ".." left out */
	uint64_t dotdot;	/* the ".." found, or NULLFSINO */
	uint32_t *slot;		/* names by hash: index + 1, 0 empty */
	size_t nslot;		/* a power of two, over twice n */
	const struct xrp_prob **named;	/* this round's dir.parents */
	size_t nnamed;
	struct dropped *drop;	/* names lost, or NULL: not counted */
	struct lent *lo;	/* names left out (with drop) */
	size_t nlo, caplo;
};

/*
 * Names the rebuild lost: found with a readable name, left out, and not
 * given back under that name (a parent pointer restores an entry whose
 * inode number was damaged); the first few named.
 */
#define DROP_NAMES	3
struct dropped {
	size_t n;
	char names[DROP_NAMES * 44];	/* 'name', 'name' (cut at 40) */
};

/* An entry named @name is left out: kept aside till the end (collect). */
static int left_out(struct salvage *s, const uint8_t *name, uint8_t namelen)
{
	struct lent *e;

	if (!s->drop || !namelen)
		return 0;
	if (xfsj_grow(&s->lo, &s->caplo, s->nlo, 1, sizeof(*s->lo), 8))
		return -XFSJ_E_NOMEM;
	e = &s->lo[s->nlo++];
	e->namelen = namelen;
	e->hash = xfsj_da_hashname(name, namelen);
	memcpy(e->name, name, namelen);
	return 0;
}

/* Name @e in @d's list (the first few). */
static void name_lost(struct dropped *d, const struct lent *e)
{
	size_t at = strlen(d->names), i;

	if (d->n++ >= DROP_NAMES)
		return;
	if (at)
		at += (size_t)snprintf(d->names + at, sizeof(d->names) - at,
				       ", ");
	if (at + 3 >= sizeof(d->names))
		return;
	d->names[at++] = '\'';
	for (i = 0; i < e->namelen && i < 40 && at + 2 < sizeof(d->names); i++)
		d->names[at++] = e->name[i] > 0x20 && e->name[i] < 0x7f ?
				 e->name[i] : '?';
	d->names[at++] = '\'';
	d->names[at] = '\0';
}


/*
 * A directory named by several entries keeps only the one the check
 * chose (dir.parents: its directory, and its name's hash): an entry of
 * this directory naming it otherwise is left out.
 */
static bool named_elsewhere(const struct salvage *s, uint64_t ino,
			    uint32_t hash)
{
	for (size_t i = 0; i < s->nnamed; i++) {
		const struct xfsj_problem *p = &s->named[i]->p;

		if (p->ino == ino)
			return p->off != s->dir || p->found != hash;
	}
	return false;
}

/* The dir.parents problems of this round that name the entry to keep. */
static int find_named(struct salvage *s)
{
	const struct xrp *rp = s->rp;
	size_t n = 0;

	for (size_t i = 0; i < rp->nprobs; i++)
		n += xrp_names(&rp->probs[i], XFSJ_H_DIR_PARENTS);
	if (!n)
		return 0;
	s->named = calloc(n, sizeof(*s->named));
	if (!s->named)
		return -XFSJ_E_NOMEM;
	for (size_t i = 0; i < rp->nprobs; i++) {
		const struct xfsj_problem *p = &rp->probs[i].p;

		if (xrp_names(&rp->probs[i], XFSJ_H_DIR_PARENTS) &&
		    (p->has & (XFSJ_PF_INO | XFSJ_PF_OFF | XFSJ_PF_FOUND)) ==
		    (XFSJ_PF_INO | XFSJ_PF_OFF | XFSJ_PF_FOUND))
			s->named[s->nnamed++] = &rp->probs[i];
	}
	return 0;
}

static bool is_dot(const uint8_t *name, uint8_t len)
{
	return (len == 1 && name[0] == '.') ||
	       (len == 2 && name[0] == '.' && name[1] == '.');
}

/* A child the state knows in use: its file type, else 0. */
static uint8_t child_ftype(struct xrp *rp, uint64_t ino)
{
	struct xck_inode *st;

	if (!xck_ino_valid(rp->ck, ino))
		return 0;
	st = xck_inode_find(rp->ck, ino, NULL);
	if (!st || !(st->flags & XCK_I_INUSE))
		return 0;
	return st->ftype;
}

/* The slot of the name @name (hash @hash): where it is, else the empty
 * one where it goes. */
static uint32_t *name_slot(const struct salvage *s, uint32_t hash,
			   const uint8_t *name, uint8_t namelen)
{
	size_t mask = s->nslot - 1;
	/*
	 * The high half of a 64-bit product: the name hash's low bits vary
	 * little between names that differ in one character, and a slot
	 * taken from them made long runs of probes.
	 */
	size_t i = (size_t)(((uint64_t)hash * 0x9e3779b97f4a7c15ULL) >> 32);

	for (i &= mask;; i = (i + 1) & mask) {
		const struct sent *e;

		if (!s->slot[i])
			return &s->slot[i];
		e = &s->e[s->slot[i] - 1];
		if (e->hash == hash && e->namelen == namelen &&
		    !memcmp(s->names + e->off, name, namelen))
			return &s->slot[i];
	}
}

/* Room for one more entry and its slot. */
static int grow(struct salvage *s)
{
	if (xfsj_grow(&s->e, &s->cap, s->n, 1, sizeof(*s->e), 64) ||
	    xfsj_grow(&s->names, &s->capnames, s->nnames, 256, 1, 4096))
		return -XFSJ_E_NOMEM;
	if (2 * (s->n + 1) >= s->nslot) {
		size_t nslot = s->nslot ? 2 * s->nslot : 256;
		uint32_t *old = s->slot;

		if (s->n >= UINT32_MAX / 4)
			return -XFSJ_E_NOMEM;
		s->slot = calloc(nslot, sizeof(*s->slot));
		if (!s->slot) {
			s->slot = old;
			return -XFSJ_E_NOMEM;
		}
		s->nslot = nslot;
		for (size_t i = 0; i < s->n; i++) {
			const struct sent *e = &s->e[i];

			*name_slot(s, e->hash,
				   (const uint8_t *)s->names + e->off,
				   e->namelen) = (uint32_t)i + 1;
		}
		free(old);
	}
	return 0;
}

static int add(struct salvage *s, uint64_t ino, const uint8_t *name,
	       uint8_t namelen)
{
	uint8_t ft;
	uint32_t hash, *slot;
	struct sent *e;
	int err;

	if (is_dot(name, namelen)) {
		if (namelen == 2 && s->dotdot == XFSJ_NULLFSINO)
			s->dotdot = ino;
		return 0;
	}
	s->seen++;
	if (!namelen || memchr(name, '/', namelen) ||
	    memchr(name, 0, namelen) || ino == s->dir ||
	    ino == s->rp->sb->rootino)
		return left_out(s, name, namelen);
	ft = child_ftype(s->rp, ino);
	if (!ft)
		return left_out(s, name, namelen);
	hash = xfsj_da_hashname(name, namelen);
	if (ft == XFSJ_FT_DIR && named_elsewhere(s, ino, hash))
		return left_out(s, name, namelen);
	err = grow(s);
	if (err)
		return err;
	slot = name_slot(s, hash, name, namelen);
	if (*slot)
		return left_out(s, name, namelen);
	e = &s->e[s->n++];
	*slot = (uint32_t)s->n;
	e->ino = ino;
	e->off = s->nnames;
	e->hash = hash;
	e->namelen = namelen;
	e->ftype = ft;
	memcpy(s->names + s->nnames, name, namelen);
	s->names[s->nnames + namelen] = 0;
	s->nnames += (size_t)namelen + 1;
	return 0;
}

/* Left-out names in order of hash and name; equal names by position. */
static int lent_ptr_cmp(const void *a, const void *b)
{
	const struct lent *x = *(const struct lent *const *)a;
	const struct lent *y = *(const struct lent *const *)b;
	int c;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->namelen != y->namelen)
		return x->namelen < y->namelen ? -1 : 1;
	c = memcmp(x->name, y->name, x->namelen);
	if (c)
		return c;
	return x < y ? -1 : x > y;
}

/*
 * The names left out that no kept entry has, into s->drop, each once and
 * in the order the walk found them.  The repeats are found by sorting
 * (a directory may leave out most of its entries).
 */
static int count_lost(struct salvage *s)
{
	const struct lent **by;
	bool *dup;

	if (!s->nlo)
		return 0;
	by = malloc(s->nlo * sizeof(*by));
	dup = calloc(s->nlo, sizeof(*dup));
	if (!by || !dup) {
		free(by);
		free(dup);
		return -XFSJ_E_NOMEM;
	}
	for (size_t i = 0; i < s->nlo; i++)
		by[i] = &s->lo[i];
	qsort(by, s->nlo, sizeof(*by), lent_ptr_cmp);
	for (size_t i = 1; i < s->nlo; i++)
		if (by[i]->hash == by[i - 1]->hash &&
		    by[i]->namelen == by[i - 1]->namelen &&
		    !memcmp(by[i]->name, by[i - 1]->name, by[i]->namelen))
			dup[by[i] - s->lo] = true;
	free(by);
	for (size_t i = 0; i < s->nlo; i++) {
		const struct lent *e = &s->lo[i];

		if (dup[i] || (s->nslot &&
			       *name_slot(s, e->hash, (const uint8_t *)e->name,
					  e->namelen)))
			continue;
		name_lost(s->drop, e);
	}
	free(dup);
	return 0;
}

/* ---- blocks ---- */

/* An item decodes at @off and ends where its tag says. */
static bool item_sound(const uint8_t *b, uint32_t off, uint32_t end,
		       bool ftype, struct xfsj_dir2_item *it)
{
	const char *field;

	return !xfsj_dir2_data_item(b, off, end, ftype, it, &field) &&
	       it->tag == off;
}

/*
 * The entry at @off whose length field is damaged, ending at @next (where
 * a sound item starts): the name length that makes it end there with its
 * tag, a legal name and a file type.  0: none.
 */
static unsigned int entry_len_between(const uint8_t *b, uint32_t off,
				      uint32_t next, bool ftype)
{
	for (unsigned int n = 255; n > 0; n--) {
		if (xfsj_dir2_data_entsize(n, ftype) != next - off ||
		    xfsj_get_be16(b + next - 2) != off ||
		    memchr(b + off + 9, 0, n) || memchr(b + off + 9, '/', n))
			continue;
		if (ftype && (!b[off + 9 + n] || b[off + 9 + n] >= XFSJ_FT__MAX))
			continue;
		return n;
	}
	return 0;
}

static int walk_block(struct salvage *s, const uint8_t *b, uint32_t bs,
		      bool ftype)
{
	uint32_t off = XFSJ_DIR3_HDR_SIZE, end = bs;
	struct xfsj_dir2_area area;
	int err;

	if (!xfsj_dir2_data_area(b, bs, &area))
		end = area.end;
	while (off < end) {
		struct xfsj_dir2_item it, nx;
		const char *field;
		uint32_t q;
		unsigned int n;

		/* Sound, or only its tag is wrong (the next item is sound). */
		if (!xfsj_dir2_data_item(b, off, end, ftype, &it, &field) &&
		    (it.tag == off || off + it.len == end ||
		     item_sound(b, off + it.len, end, ftype, &nx))) {
			if (!it.unused) {
				err = add(s, it.ino, it.name, it.namelen);
				if (err)
					return err;
			}
			off += it.len;
			continue;
		}
		/* Lost: the next item that knows its place. */
		for (q = off + XFSJ_DIR2_DATA_ALIGN; q < end;
		     q += XFSJ_DIR2_DATA_ALIGN)
			if (item_sound(b, q, end, ftype, &nx))
				break;
		if (xfsj_get_be16(b + off) != XFSJ_DIR2_FREE_TAG) {
			n = entry_len_between(b, off, q, ftype);
			err = n ? add(s, xfsj_get_be64(b + off), b + off + 9,
				      (uint8_t)n) : (s->seen++, 0);
			if (err)
				return err;
		}
		off = q;
	}
	return 0;
}

static int walk_blocks(struct salvage *s, struct xfsj_iref *ip)
{
	struct xrp *rp = s->rp;
	const struct xfsj_sb *sb = rp->sb;
	bool ftype = (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0;
	uint32_t fsbs = 1U << sb->dirblklog;
	uint32_t bs = sb->blocksize << sb->dirblklog;
	uint64_t leafoff = XFSJ_DIR2_LEAF_OFFSET >> sb->blocklog;
	struct xfsj_bmbt_irec *ext = NULL;
	struct xfsj_fault f = { 0 };
	size_t n = 0;
	int err;

	err = xfsj_bmap_read(rp->fs, ip, XFSJ_DATA_FORK, &ext, &n, &f);
	if (err) {
		free(ext);
		return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
	}
	for (size_t i = 0; i < n && !err; i++) {
		const struct xfsj_bmbt_irec *m = &ext[i];
		uint64_t first = (m->startoff + fsbs - 1) / fsbs * fsbs;

		for (uint64_t o = first; !err && o < leafoff &&
		     o + fsbs <= m->startoff + m->blockcount; o += fsbs) {
			uint64_t fsb = m->startblock + (o - m->startoff);
			struct xfsj_buf *bp;

			if (!xrp_blocks_ok(rp, fsb, fsbs))
				break;
			err = xfsj_dirbuf_get(rp->fs, xfsj_fsb_daddr(sb, fsb),
					     sb->blocksize, fsbs, false, &bp,
					     &f);
			if (err == -XFSJ_E_IO || err == -XFSJ_E_NOMEM)
				break;
			if (err) {
				/* (unreadable: its entries are not salvaged) */
				err = 0;
				continue;
			}
			err = walk_block(s, bp->data, bs, ftype);
			if (!err)
				err = xfsj_dirbuf_put(rp->fs, bp, fsbs, &f);
		}
	}
	free(ext);
	return err;
}

/* ---- short form ---- */

/* @last for sf_entry_ok: an entry whose offset is out of order is sound
 * too (the rewrite gives every entry a new offset, as xfs_repair
 * corrects them). */
#define SF_ANY_OFFSET	UINT32_MAX

/*
 * The entry at @p (of @left bytes) decodes whole with a legal name and a
 * sound inode number, its offset above @last: its size, else 0.
 */
static size_t sf_entry_ok(struct salvage *s, const uint8_t *p, size_t left,
			  unsigned int isz, bool ftype, uint32_t last,
			  unsigned int namelen)
{
	size_t need = 3 + namelen + (ftype ? 1 : 0) + isz;
	uint64_t ino;

	if (!namelen || left < need ||
	    (last != SF_ANY_OFFSET && xfsj_get_be16(p + 1) <= last) ||
	    memchr(p + 3, '/', namelen) || memchr(p + 3, 0, namelen))
		return 0;
	ino = isz == 8 ? xfsj_get_be64(p + need - 8) :
			 xfsj_get_be32(p + need - 4);
	return child_ftype(s->rp, ino) ? need : 0;
}

static int walk_sf(struct salvage *s, const uint8_t *fork, size_t len,
		   bool ftype)
{
	const uint8_t *p, *end = fork + len;
	unsigned int count, isz;
	uint32_t last = 0;
	int err;

	if (len < 6)
		return 0;
	count = fork[0];
	isz = fork[1] ? 8 : 4;
	if (len < 2 + isz)
		return 0;
	s->dotdot = isz == 8 ? xfsj_get_be64(fork + 2) :
			       xfsj_get_be32(fork + 2);
	p = fork + 2 + isz;
	for (unsigned int i = 0; i < count && p + 3 <= end; i++) {
		size_t sz = sf_entry_ok(s, p, (size_t)(end - p), isz, ftype,
					last, p[0]);
		bool in_order = sz != 0;
		const uint8_t *q;

		/* Sound but for its offset: kept, the order left as it was. */
		if (!sz)
			sz = sf_entry_ok(s, p, (size_t)(end - p), isz, ftype,
					 SF_ANY_OFFSET, p[0]);
		if (!sz) {
			/*
			 * A bad entry: find where the next sound one starts;
			 * the bytes between give this one's name length.
			 */
			s->seen++;
			for (q = p + 1; q + 3 <= end; q++)
				if (sf_entry_ok(s, q, (size_t)(end - q), isz,
						ftype, last, q[0]))
					break;
			sz = (size_t)(q - p);
			if (sz > 3 + (ftype ? 1U : 0U) + isz &&
			    sf_entry_ok(s, p, sz, isz, ftype, last,
					(unsigned int)(sz - 3 - isz -
						       (ftype ? 1 : 0)))) {
				s->seen--;
				in_order = true;
			} else {
				p = q;
				continue;
			}
		}
		if (in_order)
			last = xfsj_get_be16(p + 1);
		err = add(s, isz == 8 ? xfsj_get_be64(p + sz - 8) :
			  xfsj_get_be32(p + sz - 4), p + 3,
			  (uint8_t)(sz - 3 - isz - (ftype ? 1 : 0)));
		if (err)
			return err;
		p += sz;
	}
	return 0;
}

/* ---- parent pointers ---- */

struct pp_walk {
	struct salvage *s;
	uint64_t child;
};

/* A parent pointer of the child naming the directory: its entry. */
static int pp_entry(void *arg, const struct xfsj_attr_arg *a)
{
	struct pp_walk *pw = arg;

	if (a->ns != XFSJ_ATTR_NS_PARENT || !a->value ||
	    a->valuelen != XFSJ_ATTR_PPTR_VALUE_LEN || !a->namelen ||
	    a->namelen > 255 || xfsj_get_be64(a->value) != pw->s->dir)
		return 0;
	return add(pw->s, pw->child, a->name, (uint8_t)a->namelen);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * On a filesystem with parent pointers, the entries the children's
 * pointers to the directory name (the check's table says which children
 * have one) for the children the blocks gave no entry (a name the walk
 * read damaged is not doubled by its pointer's): what the walk lost with
 * a block or a fork comes back.  Not counted as seen.
 */
static int walk_pptrs(struct salvage *s)
{
	const struct xck_vec *pv = &s->rp->ck->pptrs;
	size_t seen = s->seen, nc = 0, nfound = s->n;
	struct dropped *drop = s->drop;
	uint64_t *kids, *found;
	int err = 0;

	if (!xfsj_fs_has_incompat(s->rp->fs, XFSJ_INCOMPAT_PARENT) || !pv->n)
		return 0;
	kids = malloc((pv->n + nfound + 1) * sizeof(*kids));
	if (!kids)
		return -XFSJ_E_NOMEM;
	found = kids + pv->n;
	for (size_t i = 0; i < nfound; i++)
		found[i] = s->e[i].ino;
	qsort(found, nfound, sizeof(*found), u64_cmp);
	for (size_t i = 0; i < pv->n; i++) {
		const struct xck_pptr *pp = xck_vec_at(pv, i);

		if (pp->parent == s->dir && child_ftype(s->rp, pp->child) &&
		    !bsearch(&pp->child, found, nfound, sizeof(*found),
			     u64_cmp))
			kids[nc++] = pp->child;
	}
	qsort(kids, nc, sizeof(*kids), u64_cmp);
	s->drop = NULL;		/* what the pointers give back is no loss */
	for (size_t i = 0; i < nc && !err; i++) {
		struct pp_walk pw = { .s = s, .child = kids[i] };
		struct xfsj_fault f = { 0 };
		struct xfsj_iref ip;

		if (i && kids[i] == kids[i - 1])
			continue;
		err = xfsj_iget(s->rp->fs, kids[i], true, &ip, &f);
		if (!err)
			err = xfsj_attr_list(s->rp->fs, &ip, pp_entry, &pw, &f);
		if (err && err != -XFSJ_E_NOMEM && err != -XFSJ_E_IO)
			err = 0;
	}
	free(kids);
	s->seen = seen;
	s->drop = drop;
	return err;
}

/* ---- the parent ---- */

struct parent_of {
	struct xrp *rp;
	uint64_t dir;
	uint32_t dotdot;	/* the hash of ".." */
	uint64_t found;
};

static int first_dir(void *arg, const struct xck_dirent *e)
{
	struct parent_of *p = arg;

	if (e->dir == p->dir || (e->namelen == 2 && e->namehash == p->dotdot) ||
	    child_ftype(p->rp, e->dir) != XFSJ_FT_DIR)
		return 0;
	p->found = e->dir;
	return 1;
}

/*
 * The directory that names @s->dir (the lowest numbered, when several
 * do), else its "..", else the root, into *@parent; 0 or -XFSJ_E_NOMEM.
 */
static int find_parent(struct salvage *s, uint64_t *parent)
{
	struct xrp *rp = s->rp;
	uint64_t root = rp->sb->rootino;
	struct parent_of p = { rp, s->dir,
			       xfsj_da_hashname((const uint8_t *)"..", 2),
			       XFSJ_NULLFSINO };
	int ret;

	*parent = root;
	if (s->dir == root)
		return 0;
	ret = xrp_entries_naming(rp, s->dir, &(struct xrp_naming_cb){
		first_dir, &p });
	if (ret < 0)
		return ret;
	if (ret == 1)
		*parent = p.found;
	else if (s->dotdot != XFSJ_NULLFSINO &&
		 child_ftype(rp, s->dotdot) == XFSJ_FT_DIR)
		*parent = s->dotdot;
	return 0;
}

void xrp_dirlist_free(struct xrp_dirlist *l)
{
	free(l->de);
	free(l->priv);
	memset(l, 0, sizeof(*l));
}

/* xrp_dir_collect, the names left out in @drop (may be NULL). */
static int collect(struct xrp *rp, uint64_t dir, struct xrp_dirlist *l,
		   struct dropped *drop, bool pptrs)
{
	bool ftype = (rp->sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0;
	struct salvage s = { .rp = rp, .dir = dir, .dotdot = XFSJ_NULLFSINO,
			     .drop = drop };
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	int err;

	memset(l, 0, sizeof(*l));
	err = xfsj_iget(rp->fs, dir, true, &ip, &f);
	if (err)
		return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 1;
	if ((ip.di.mode & 0170000) != 0040000)
		return 1;
	err = find_named(&s);
	if (err)
		return err;
	if (ip.di.format == XFSJ_DINODE_FMT_LOCAL) {
		uint32_t fsz;
		const uint8_t *fork = xfsj_ifork(rp->fs, &ip, XFSJ_DATA_FORK,
						 &fsz);

		err = walk_sf(&s, fork, ip.di.size && ip.di.size < fsz ?
			      ip.di.size : fsz, ftype);
	} else {
		err = walk_blocks(&s, &ip);
	}
	if (!err)
		err = pptrs ? walk_pptrs(&s) : 0;
	if (!err && drop)
		err = count_lost(&s);
	free(s.lo);
	if (!err)
		err = find_parent(&s, &l->parent);
	if (!err) {
		l->de = calloc(s.n + 1, sizeof(*l->de));
		if (!l->de)
			err = -XFSJ_E_NOMEM;
	}
	free(s.slot);
	free(s.named);
	if (err) {
		free(s.e);
		free(s.names);
		return err;
	}
	for (size_t i = 0; i < s.n; i++)
		l->de[i] = (struct xfsj_dirent){ s.names + s.e[i].off,
						 s.e[i].namelen, s.e[i].ftype,
						 s.e[i].ino };
	free(s.e);
	l->n = s.n;
	l->seen = s.seen;
	l->priv = s.names;
	return 0;
}

/* A problem the rebuild of @dir answers: its structure's, or its leaves',
 * free index's and data blocks' bestfree fields. */
static bool rebuilt_away(const struct xrp_prob *pr, uint64_t dir)
{
	if (!(pr->p.has & XFSJ_PF_INO) || pr->p.ino != dir)
		return false;
	return pr->p.def->fix == XFSJ_FIX_SALVAGE_DIR ||
	       xrp_has(pr, XFSJ_T_DIR_INDEX);
}

int xrp_dir_collect(struct xrp *rp, uint64_t dir, struct xrp_dirlist *l)
{
	return collect(rp, dir, l, NULL, true);
}

int xrp_dir_collect_entries(struct xrp *rp, uint64_t dir,
			    struct xrp_dirlist *l)
{
	return collect(rp, dir, l, NULL, false);
}

/* The children of a directory written again (xrp_renamed). */
static int note_renamed(struct xrp *rp, const struct xrp_dirlist *l)
{
	if (xfsj_grow(&rp->renamed, &rp->caprenamed, rp->nrenamed, l->n,
		      sizeof(*rp->renamed), 64))
		return -XFSJ_E_NOMEM;
	for (size_t i = 0; i < l->n; i++)
		rp->renamed[rp->nrenamed++] = l->de[i].ino;
	rp->renamed_sorted = false;
	return 0;
}

static int ino_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

bool xrp_renamed(struct xrp *rp, uint64_t ino)
{
	if (!rp->renamed_sorted && rp->nrenamed > 1)
		qsort(rp->renamed, rp->nrenamed, sizeof(*rp->renamed),
		      ino_cmp);
	rp->renamed_sorted = true;
	return rp->nrenamed && bsearch(&ino, rp->renamed, rp->nrenamed,
				       sizeof(*rp->renamed), ino_cmp);
}

int xrp_dir_rebuild(struct xrp *rp, uint64_t dir)
{
	struct xrp_dirlist l;
	struct xfsj_fault f = { 0 };
	struct dropped drop = { 0 };
	char what[256];
	int err;

	err = collect(rp, dir, &l, &drop, true);
	if (err)
		return err < 0 ? err : 0;
	/* More than the data space holds: left alone. */
	if (!xfsj_dir_fits(rp->sb, l.de, l.n))
		goto out;
	err = xfsj_dir_write(rp->fs, dir, l.parent, l.de, l.n,
			    xrp_keep_old_blocks(rp, dir, XFSJ_DATA_FORK), &f);
	if (err) {
		err = err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ? err : 0;
		goto out;
	}
	err = note_renamed(rp, &l);
	if (err)
		goto out;
	/* Named, the entries left out; not said when there are none (an
	 * item too damaged to read names nothing, and may be none). */
	if (!drop.n)
		snprintf(what, sizeof(what),
			 "rebuilt directory %llu from %zu entries",
			 (unsigned long long)dir, l.n);
	else if (drop.n <= DROP_NAMES)
		snprintf(what, sizeof(what),
			 "rebuilt directory %llu from %zu entries, leaving out %s",
			 (unsigned long long)dir, l.n, drop.names);
	else
		snprintf(what, sizeof(what),
			 "rebuilt directory %llu from %zu entries, leaving out %s and %zu more",
			 (unsigned long long)dir, l.n, drop.names,
			 drop.n - DROP_NAMES);
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_SALVAGE_DIR, .has = XFSJ_PF_INO | XFSJ_PF_COUNT,
		.ino = dir, .count = l.n, .what = what });
	for (size_t i = 0; i < rp->nprobs; i++)
		if (rebuilt_away(&rp->probs[i], dir))
			rp->probs[i].done = true;
	err = 1;
out:
	xrp_dirlist_free(&l);
	return err;
}

int xrp_fix_salvage_dir(struct xrp *rp)
{
	struct xrp_prob *pr;
	int err;

	xrp_for_each(rp, pr, XFSJ_FIX_SALVAGE_DIR) {
		const struct xrp_prob *q;

		if (pr->done || !(pr->p.has & XFSJ_PF_INO))
			continue;
		/* Once per directory, even when it was left alone. */
		for (q = rp->probs; q < pr; q++)
			if (q->p.def->fix == XFSJ_FIX_SALVAGE_DIR &&
			    (q->p.has & XFSJ_PF_INO) && q->p.ino == pr->p.ino)
				break;
		if (q < pr)
			continue;
		err = xrp_dir_rebuild(rp, pr->p.ino);
		if (err < 0)
			return err;
	}
	return 0;
}
