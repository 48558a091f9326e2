/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Directories: every format (short form, block, leaf, node, and any of
 * them in a btree-format fork).  This file holds the problem rows, the
 * driver, the short form, and the checks over all entries of one
 * directory (each entry has its leaf entry and no leaf entry points at
 * nothing, no name twice).  Every entry, "." and ".." included, goes to
 * ck->dirents for names.c, which checks the children's existence and type
 * and counts the links.
 */
#include <stdlib.h>
#include <string.h>

#include "check/dir_priv.h"
#include "core/crc32c.h"
#include "core/grow.h"
#include "fs/attr.h"
#include "fs/bmbt.h"
#include "ondisk/meta.h"

#define R(id, code, num, fix, msg, ...) \
	[id] = { code, num, XFSJ_SEV_CORRUPT, "directory", msg, fix, \
		 __VA_ARGS__ }

const struct xfsj_problem_def xck_dir_rows[DIR__N] = {
	R(DIR_SF, "dir.sf", 0x050001, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: short-form {field} is wrong at byte {off} "
	  "(found {found})",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_SF_SIZE, "dir.sf.size", 0x050002, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: short-form size {found} does not fit its "
	  "fork of {expected} bytes",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_NOBLOCKS, "dir.noblocks", 0x050003, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: no directory block is mapped",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_UNMAPPED, "dir.unmapped", 0x050004, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: directory block at offset {off} is only "
	  "partly mapped",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_MAGIC, "dir.magic", 0x050005, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: block at directory offset {off}: magic "
	  "{xfound}, expected {xexpected}",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_CRC, "dir.crc", 0x050006, XFSJ_FIX_FIELD,
	  "directory inode {ino}: block at directory offset {off}: CRC "
	  "{xfound} does not match its contents ({xexpected})",
		XFSJ_H_DIR_CRC, 0),
	R(DIR_HDR, "dir.header", 0x050007, XFSJ_FIX_FIELD,
	  "directory inode {ino}: block at directory offset {off}: header "
	  "{field} is {found}, expected {expected}",
		XFSJ_H_DIR_HEADER, 0),
	R(DIR_UUID, "dir.uuid", 0x050008, XFSJ_FIX_FIELD,
	  "directory inode {ino}: block at directory offset {off}: header "
	  "uuid is not the filesystem's",
		XFSJ_H_DIR_UUID, 0),
	R(DIR_BESTFREE, "dir.bestfree", 0x050009, XFSJ_FIX_FIELD,
	  "directory inode {ino}: block at directory offset {off}: {field} "
	  "is {found}, expected {expected}",
		XFSJ_H_DIR_INDEX, XFSJ_T_DIR_INDEX),
	R(DIR_UNUSED, "dir.unused", 0x05000a, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: unused region at directory offset {off}: "
	  "{field} is {found}",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_ENTRY, "dir.entry", 0x05000b, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: entry at directory offset {off}: {field} "
	  "is {found}",
		XFSJ_H_SALVAGE_DIR, 0),
	/*
	 * An entry naming a number no inode can have (outside the AGs, over
	 * the headers, bits past the geometry).  Not names.c's dirent.target
	 * (a valid number whose inode is not in use): the two are disjoint,
	 * both decided by xck_ino_valid, and an entry of this row never
	 * reaches the name tables (unit test entry_target_disjoint).
	 */
	R(DIR_ENT_INO, "dir.entry.ino", 0x05000c, XFSJ_FIX_CLEAR_ENTRY,
	  "directory inode {ino}: entry '{name}' at directory offset {off} "
	  "names invalid inode number {found}",
		XFSJ_H_CLEAR_ENTRY, XFSJ_T_DROPS_ENTRY),
	R(DIR_ENT_NAME, "dir.entry.name", 0x05000d, XFSJ_FIX_CLEAR_ENTRY,
	  "directory inode {ino}: entry '{name}' at directory offset {off}: "
	  "{field} is not allowed",
		XFSJ_H_CLEAR_ENTRY, XFSJ_T_DROPS_ENTRY),
	R(DIR_DUP, "dir.entry.dup", 0x05000f, XFSJ_FIX_CLEAR_ENTRY,
	  "directory inode {ino}: name '{name}' at directory offset {off} is "
	  "there twice",
		XFSJ_H_CLEAR_ENTRY, XFSJ_T_DROPS_ENTRY),
	R(DIR_DOT, "dir.dot", 0x050010, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: the '.' entry: {field} is {found}, "
	  "expected {expected}",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_DOTDOT, "dir.dotdot", 0x050011, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: the '..' entry: {field} is {found}",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_LEAF_FIELD, "dir.leaf.header", 0x050012, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: leaf block at directory offset {off}: "
	  "{field} is {found}, expected {expected}",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_LEAF_ORDER, "dir.leaf.order", 0x050013, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: leaf block at directory offset {off}: hash "
	  "of entry {count} is {xfound}, below its predecessor's",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_LEAF_MISSING, "dir.leaf.missing", 0x050014,
	  XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: entry '{name}' at directory offset {off} "
	  "has no leaf entry",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_LEAF_DANGLING, "dir.leaf.dangling", 0x050015,
	  XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: a leaf entry with hash {xfound} points at "
	  "directory offset {off}, where no entry has that hash",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_BESTS, "dir.bests", 0x050016, XFSJ_FIX_FIELD,
	  "directory inode {ino}: {field} for data block {count} is {found}, "
	  "expected {expected}",
		XFSJ_H_DIR_INDEX, XFSJ_T_DIR_INDEX),
	R(DIR_NODE, "dir.node", 0x050017, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: node block at directory offset {off}: "
	  "{field} is {found}, expected {expected}",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_FREE_HDR, "dir.free.header", 0x050018, XFSJ_FIX_FIELD,
	  "directory inode {ino}: free index block at directory offset "
	  "{off}: {field} is {found}, expected {expected}",
		XFSJ_H_DIR_INDEX, XFSJ_T_DIR_INDEX),
	R(DIR_SIZE, "dir.size", 0x050019, XFSJ_FIX_FIELD,
	  "directory inode {ino}: size {found}, expected {expected}",
		XFSJ_H_DIR_SIZE, 0),
	R(DIR_STRAY, "dir.stray", 0x05001a, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: block at directory offset {off} is not "
	  "part of the directory's {field}",
		XFSJ_H_SALVAGE_DIR, 0),
	R(DIR_SF_OFFSET, "dir.sf.offset", 0x05001b, XFSJ_FIX_SALVAGE_DIR,
	  "directory inode {ino}: short-form {field}: {expected}, found "
	  "{found}",
		XFSJ_H_SALVAGE_DIR, 0),
};
const struct xck_table xck_dir_table = { xck_dir_rows, DIR__N };

void xck_dir_report(struct xck_dctx *d, int row, unsigned int has,
		    uint64_t off, const char *field, uint64_t expected,
		    uint64_t found)
{
	xck_report(d->ck, &(struct xfsj_problem){
		.def = &xck_dir_rows[row], .has = XFSJ_PF_INO | has,
		.ino = d->ic->ino, .off = off, .field = field,
		.expected = expected, .found = found });
}

void xck_dir_blk_field(struct xck_dctx *d, int row, uint64_t db,
		       const char *field, uint64_t expected, uint64_t found)
{
	xck_dir_report(d, row, XFSJ_PF_OFF | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
		       db << d->dirblkbytelog, field, expected, found);
}

void xck_dir_lost(struct xck_dctx *d, uint64_t first)
{
	if (d->lost || d->ck->next_id <= first)
		return;
	d->lost = true;
	d->lost_id = first;
}

int xck_dir_add_dent(struct xck_dctx *d, uint64_t ino, const uint8_t *name,
		     uint8_t namelen, uint8_t ftype, uint32_t addr)
{
	struct xck_dent e = { .ino = ino, .addr = addr, .namelen = namelen,
			      .ftype = ftype };

	if (xfsj_grow(&d->names, &d->names_cap, d->names_len, namelen, 1,
		      4096))
		return -XFSJ_E_NOMEM;
	memcpy(d->names + d->names_len, name, namelen);
	e.nameoff = (uint32_t)d->names_len;
	d->names_len += namelen;
	e.hash = xfsj_da_hashname(name, namelen);
	d->ck->res->work[XFSJ_WK_DIRENTS]++;
	return xck_vec_push(d->ck, &d->dents, &e);
}

struct xck_best *xck_dir_best(const struct xck_dctx *d, uint64_t db)
{
	size_t lo = 0, hi = d->bests.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct xck_best *b = xck_vec_at(&d->bests, mid);

		if (b->db == db)
			return b;
		if (b->db < db)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint8_t *xck_dir_read(struct xck_dctx *d, uint64_t db, uint64_t *daddr,
		      int *err)
{
	const struct xfsj_bmbt_irec *m;
	uint64_t fileoff = db * d->fsbs;
	uint8_t *b;

	*err = 0;
	m = xck_fork_lookup(d->ic, XFSJ_DATA_FORK, fileoff);
	*err = xck_fork_read(d->ck, d->ic, XFSJ_DATA_FORK, fileoff, d->fsbs,
			     &b);
	if (*err < 0)
		return NULL;
	if (*err > 0 || !m) {
		*err = 0;
		xck_dir_report(d, DIR_UNMAPPED, XFSJ_PF_OFF,
			       db << d->dirblkbytelog, NULL, 0, 0);
		return NULL;
	}
	*daddr = xfsj_fsb_daddr(d->ck->sb,
				m->startblock + (fileoff - m->startoff));
	return b;
}

bool xck_dir_hdr_check(struct xck_dctx *d, uint64_t db, const uint8_t *b,
		       const struct xfsj_dir3_hdr *h, uint32_t magic,
		       uint64_t daddr)
{
	uint64_t off = db << d->dirblkbytelog;
	unsigned int has = XFSJ_PF_OFF | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND;
	uint32_t crc;

	if (h->magic != magic) {
		xck_dir_report(d, DIR_MAGIC, has, off, "magic", magic,
			       h->magic);
		return false;
	}
	crc = xfsj_cksum(b, d->dirblksize, h->crc_off);
	if (crc != xfsj_get_le32(b + h->crc_off))
		xck_dir_report(d, DIR_CRC, has, off, "crc", crc,
			       xfsj_get_le32(b + h->crc_off));
	if (h->blkno != daddr)
		xck_dir_report(d, DIR_HDR, has, off, "blkno", daddr,
			       h->blkno);
	/* A wrong owner is one field: the entries stay good. */
	if (h->owner != d->ic->ino)
		xck_dir_report(d, DIR_HDR, has, off, "owner", d->ic->ino,
			       h->owner);
	if (memcmp(h->uuid, xfsj_meta_fs_uuid(d->ck->sb), 16))
		xck_dir_report(d, DIR_UUID, XFSJ_PF_OFF, off, "uuid", 0, 0);
	return true;
}

/* ---- short form ---- */

struct sf_walk {
	struct xck_dctx *d;
	unsigned int idx;
	uint32_t next;		/* the lowest offset the entry may have */
	bool bad_off;
	int err;
};

static int sf_entry(const struct xfsj_dirent *e, void *arg)
{
	struct sf_walk *w = arg;
	/* The entry's offset field sits just before its name. */
	uint32_t off = xfsj_get_be16((const uint8_t *)e->name - 2);

	w->idx++;
	/*
	 * Each entry keeps the offset it would have in a block: at or past
	 * the end of the one before (the kernel's xfs_dir2_sf_verify).
	 */
	if (off < w->next && !w->bad_off) {
		w->bad_off = true;
		xck_dir_report(w->d, DIR_SF_OFFSET,
			       XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, 0,
			       "entry offset (the least it may be)", w->next,
			       off);
	}
	w->next = off + xfsj_dir2_data_entsize(e->namelen, w->d->ftype);
	/* The offsets the short form keeps are those of a block; the
	 * entry's index stands in for its place. */
	w->err = xck_dir_add_dent(w->d, e->ino, (const uint8_t *)e->name,
				  e->namelen, e->ftype, w->idx + 2);
	return w->err;
}

static int check_sf(struct xck_dctx *d)
{
	struct xck_icheck *ic = d->ic;
	struct sf_walk w = { .d = d, .next = XFSJ_DIR3_FIRST_OFFSET };
	struct xfsj_fault f = { 0 };
	uint64_t parent = XFSJ_NULLFSINO;
	int err;

	uint64_t first = d->ck->next_id;

	if (ic->di.size > ic->forksize[XFSJ_DATA_FORK] || ic->di.size < 6) {
		xck_dir_report(d, DIR_SF_SIZE, XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
			       0, "size", ic->forksize[XFSJ_DATA_FORK],
			       ic->di.size);
		xck_dir_lost(d, first);
		return 0;
	}
	err = xck_dir_add_dent(d, ic->ino, (const uint8_t *)".", 1,
			       XFSJ_FT_DIR, 1);
	if (!err)
		err = xfsj_dir_sf_walk(ic->fork[XFSJ_DATA_FORK], ic->di.size,
				       d->ftype, &parent, sf_entry, &w, &f);
	if (w.err)
		return w.err;
	if (err == -XFSJ_E_NOMEM)
		return err;
	if (err) {
		xck_report(d->ck, &(struct xfsj_problem){
			.def = &xck_dir_rows[DIR_SF],
			.has = XFSJ_PF_INO | XFSJ_PF_OFF | XFSJ_PF_FOUND,
			.ino = ic->ino, .off = f.offset,
			.field = f.field ? f.field : "header",
			.found = f.value });
		xck_dir_lost(d, first);
	}
	/*
	 * The entries must fit one block with their leaf entries and tail,
	 * or the kernel could not turn the short form into a block (it
	 * converts before an entry would not fit: xfs_dir2_sf_addname).
	 */
	if (!err && !w.bad_off &&
	    w.next + (w.idx + 2) * XFSJ_DIR2_LEAF_ENT_SIZE +
	    XFSJ_DIR2_BLOCK_TAIL > d->dirblksize)
		xck_dir_report(d, DIR_SF_OFFSET,
			       XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, 0,
			       "end of the last entry (the most it may be)",
			       d->dirblksize - (w.idx + 2) *
			       XFSJ_DIR2_LEAF_ENT_SIZE - XFSJ_DIR2_BLOCK_TAIL,
			       w.next);
	/* ".." is the header's parent; it goes in second place. */
	err = xck_dir_add_dent(d, parent, (const uint8_t *)"..", 2,
			       XFSJ_FT_DIR, 2);
	if (err)
		return err;
	if (d->dents.n > 2) {
		struct xck_dent *v = d->dents.v, dd = v[d->dents.n - 1];

		memmove(&v[2], &v[1], (d->dents.n - 2) * sizeof(*v));
		v[1] = dd;
	}
	return 0;
}

/* ---- over all entries ---- */

static int lent_cmp(const void *a, const void *b)
{
	const struct xck_lent *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* dents sorted by hash and address: the leaf's order. */
static int dent_addr_cmp(const void *a, const void *b)
{
	const struct xck_dent *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The radix sort's keys for both orders: the hash, then the address.  Two
 * keys, not one of 64 bits: the hash takes four passes and only the runs
 * of one hash (few, and short) are sorted again by address.
 */
static uint64_t lent_hash_key(const void *p)
{
	return ((const struct xck_lent *)p)->hash;
}

static uint64_t lent_addr_key(const void *p)
{
	return ((const struct xck_lent *)p)->addr;
}

static uint64_t dent_hash_key(const void *p)
{
	return ((const struct xck_dent *)p)->hash;
}

static uint64_t dent_addr_key(const void *p)
{
	return ((const struct xck_dent *)p)->addr;
}

static const xfsj_sort_key dent_keys[] = { dent_hash_key, dent_addr_key };
static const xfsj_sort_key lent_keys[] = { lent_hash_key, lent_addr_key };

static void report_name(struct xck_dctx *d, int row,
			const struct xck_dent *e, uint64_t found)
{
	xck_report(d->ck, &(struct xfsj_problem){
		.def = &xck_dir_rows[row],
		.has = XFSJ_PF_INO | XFSJ_PF_OFF | XFSJ_PF_FOUND,
		.ino = d->ic->ino, .off = (uint64_t)e->addr << 3,
		.found = found, .name = (const char *)d->names + e->nameoff,
		.namelen = e->namelen });
}

static bool leaf_addr_walked(const struct xck_dctx *d, uint32_t addr)
{
	const struct xck_best *b =
		xck_dir_best(d, ((uint64_t)addr << 3) >> d->dirblkbytelog);

	return b && b->walked;
}

/*
 * Every data entry has one live leaf entry of its hash and address, and
 * every live leaf entry has its data entry (the kernel's lookups go
 * through the leaves: an entry without one cannot be found).
 */
static void leaf_vs_data(struct xck_dctx *d)
{
	struct xck_lent *l = d->lents.v;
	struct xck_dent *e = d->dents.v;
	size_t i = 0, j = 0;

	xck_vec_sort_keys(&d->dents, dent_keys, 2, dent_addr_cmp);
	xck_vec_sort_keys(&d->lents, lent_keys, 2, lent_cmp);
	while (i < d->dents.n || j < d->lents.n) {
		int c;

		if (i == d->dents.n)
			c = 1;
		else if (j == d->lents.n)
			c = -1;
		else
			c = e[i].hash != l[j].hash ?
				(e[i].hash < l[j].hash ? -1 : 1) :
				(e[i].addr < l[j].addr ? -1 :
				 e[i].addr > l[j].addr);
		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			report_name(d, DIR_LEAF_MISSING, &e[i], 0);
			i++;
		} else {
			if (leaf_addr_walked(d, l[j].addr))
				xck_dir_report(d, DIR_LEAF_DANGLING,
					XFSJ_PF_OFF | XFSJ_PF_FOUND,
					(uint64_t)l[j].addr << 3, NULL, 0,
					l[j].hash);
			j++;
		}
	}
}

/* qsort has no argument for the names: one per thread (parallel.c). */
static _Thread_local const struct xck_dctx *name_ctx;

static int dent_name_cmp(const void *a, const void *b)
{
	const struct xck_dent *x = a, *y = b;
	int c;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->namelen != y->namelen)
		return x->namelen < y->namelen ? -1 : 1;
	c = memcmp(name_ctx->names + x->nameoff, name_ctx->names + y->nameoff,
		   x->namelen);
	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The entries by hash, then name, then address: sorted by hash and
 * address already (leaf_vs_data, or here), only the runs of one hash are
 * left to sort by name, and most hold one entry.  The order is the one a
 * sort by dent_name_cmp gives (the address tells every two apart).
 */
static void sort_by_name(struct xck_dctx *d, bool by_hash)
{
	struct xck_dent *e;
	size_t i, j;

	if (!by_hash)
		xck_vec_sort_keys(&d->dents, dent_keys, 2, dent_addr_cmp);
	e = d->dents.v;
	name_ctx = d;
	for (i = 0; i < d->dents.n; i = j) {
		for (j = i + 1; j < d->dents.n && e[j].hash == e[i].hash; j++)
			;
		if (j - i > 1)
			qsort(&e[i], j - i, sizeof(*e), dent_name_cmp);
	}
	name_ctx = NULL;
}

static void find_dups(struct xck_dctx *d, bool by_hash)
{
	const struct xck_dent *e;

	sort_by_name(d, by_hash);
	e = d->dents.v;
	for (size_t i = 1; i < d->dents.n; i++)
		if (e[i].hash == e[i - 1].hash &&
		    e[i].namelen == e[i - 1].namelen &&
		    !memcmp(d->names + e[i].nameoff,
			    d->names + e[i - 1].nameoff, e[i].namelen))
			report_name(d, DIR_DUP, &e[i], 0);
}

/* Give the entries to names.c; "..", found first, names the parent. */
static int store_dirents(struct xck_dctx *d)
{
	const struct xck_dent *e = d->dents.v;

	for (size_t i = 0; i < d->dents.n; i++) {
		struct xck_dirent de = {
			.dir = d->ic->ino, .child = e[i].ino,
			.namehash = e[i].hash, .namelen = e[i].namelen,
			.ftype = e[i].ftype,
		};
		int err;

		/* An invalid number or a "." naming another inode is
		 * reported here and links nothing. */
		if (!xck_ino_valid(d->ck, e[i].ino) ||
		    (e[i].namelen == 1 && d->names[e[i].nameoff] == '.' &&
		     e[i].ino != d->ic->ino))
			continue;
		if (e[i].namelen == 2 && !memcmp(d->names + e[i].nameoff,
						 "..", 2) &&
		    d->ic->st->parent == XFSJ_NULLFSINO)
			d->ic->st->parent = e[i].ino;
		err = xck_vec_push(d->ck, &d->ck->dirents, &de);
		if (err)
			return err;
	}
	return 0;
}

/* "." or ".." not where it belongs: lost with a block, when one was. */
static void dir_report_lost(struct xck_dctx *d, int row, const char *field)
{
	xck_report(d->ck, &(struct xfsj_problem){
		.def = &xck_dir_rows[row],
		.has = XFSJ_PF_INO | (d->lost ? XFSJ_PF_CAUSE : 0),
		.ino = d->ic->ino, .field = field, .cause = d->lost_id });
}

/* Entries' inode numbers, names, ".", "..", in the order found. */
static void check_entries(struct xck_dctx *d, bool sf)
{
	const struct xck_dent *e = d->dents.v;

	for (size_t i = 0; i < d->dents.n; i++) {
		const uint8_t *nm = d->names + e[i].nameoff;
		bool dot = e[i].namelen == 1 && nm[0] == '.';
		bool dotdot = e[i].namelen == 2 && !memcmp(nm, "..", 2);

		if ((dot && i != 0) || (dotdot && i != 1)) {
			xck_report(d->ck, &(struct xfsj_problem){
				.def = &xck_dir_rows[DIR_ENT_NAME],
				.has = XFSJ_PF_INO | XFSJ_PF_OFF,
				.ino = d->ic->ino,
				.off = (uint64_t)e[i].addr << 3,
				.field = "the name's place",
				.name = (const char *)nm,
				.namelen = e[i].namelen });
			continue;
		}
		if (i == 0 && !dot) {
			dir_report_lost(d, DIR_DOT, "first entry");
		} else if (i == 0 && e[i].ino != d->ic->ino) {
			xck_dir_report(d, DIR_DOT,
				       XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, 0,
				       "inode number", d->ic->ino, e[i].ino);
			continue;
		}
		if (i == 1 && !dotdot)
			dir_report_lost(d, DIR_DOTDOT, "second entry");
		/* "." and ".." name directories (xfs_repair checks both). */
		if (!sf && (dot || dotdot) && e[i].ftype != XFSJ_FT_DIR &&
		    xfsj_fs_has_incompat(d->ck->fs, XFSJ_INCOMPAT_FTYPE))
			xck_dir_report(d, dot ? DIR_DOT : DIR_DOTDOT,
				       XFSJ_PF_EXPECTED | XFSJ_PF_FOUND, 0,
				       "file type", XFSJ_FT_DIR, e[i].ftype);
		if (!xck_ino_valid(d->ck, e[i].ino)) {
			if (sf && i == 1)
				xck_dir_report(d, DIR_DOTDOT, XFSJ_PF_FOUND, 0,
					       "parent inode number", 0,
					       e[i].ino);
			else
				report_name(d, DIR_ENT_INO, &e[i], e[i].ino);
		}
	}
}

/* The bytes of the data space: up to the end of its last mapped block. */
static void check_size(struct xck_dctx *d, uint64_t data_end)
{
	uint64_t want = data_end << d->ck->sb->blocklog;

	if (d->ic->di.size != want)
		xck_dir_report(d, DIR_SIZE, XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
			       0, "size", want, d->ic->di.size);
}

static int check_blocks(struct xck_dctx *d)
{
	const struct xck_icheck *ic = d->ic;
	uint64_t leafda = d->leafdb * d->fsbs, lastoff = 0, data_end = 0;
	uint64_t next_db = 0;
	int err;

	for (size_t i = 0; i < ic->nmap[0]; i++) {
		const struct xfsj_bmbt_irec *m = &ic->map[0][i];
		uint64_t end = m->startoff + m->blockcount;

		if (end > lastoff)
			lastoff = end;
		if (m->startoff < leafda)
			data_end = end < leafda ? end : leafda;
	}
	if (!ic->nmap[0] || !data_end) {
		uint64_t first = d->ck->next_id;

		xck_dir_report(d, DIR_NOBLOCKS, 0, 0, NULL, 0, 0);
		xck_dir_lost(d, first);
		return 0;
	}
	d->isblock = lastoff == d->fsbs;
	d->nbest = (data_end + d->fsbs - 1) / d->fsbs;
	for (size_t i = 0; i < ic->nmap[0]; i++) {
		const struct xfsj_bmbt_irec *m = &ic->map[0][i];
		uint64_t end = m->startoff + m->blockcount;

		if (m->startoff >= leafda)
			break;
		if (end > leafda)
			end = leafda;
		for (uint64_t db = m->startoff / d->fsbs;
		     db * d->fsbs < end; db++) {
			if (db < next_db)
				continue;
			next_db = db + 1;
			err = xck_dir_data(d, db);
			if (err)
				return err;
		}
	}
	if (d->isblock)
		err = 0;
	else if (lastoff == leafda + d->fsbs)
		err = xck_dir_leaf1(d);
	else
		err = xck_dir_node(d);
	if (err)
		return err;
	check_size(d, data_end);
	return 0;
}

/*
 * ---- the tables of one directory, kept for the next ----
 * A huge directory's tables fill megabytes of fresh pages; freed after
 * each directory, the next one faulted them in again (a tenth of a check
 * of huge directories).  Each thread keeps them, emptied, for its next
 * directory, up to SCRATCH_KEEP bytes; their bytes count in the check's
 * state only while a directory is being checked.
 */
#define SCRATCH_KEEP	(32U << 20)

static size_t vec_cap_bytes(const struct xck_vec *v)
{
	return v->cap * v->esz;
}

static void scratch_take(struct xck_dctx *d)
{
	struct xck_dir_scratch *s = &d->ck->dir_scratch;

	if (!s->kept) {
		xck_vec_init(&d->dents, sizeof(struct xck_dent));
		xck_vec_init(&d->lents, sizeof(struct xck_lent));
		xck_vec_init(&d->bests, sizeof(struct xck_best));
		return;
	}
	d->dents = s->dents;
	d->lents = s->lents;
	d->bests = s->bests;
	d->names = s->names;
	d->names_cap = s->names_cap;
	s->kept = false;
	xck_account(d->ck, (int64_t)(vec_cap_bytes(&d->dents) +
				     vec_cap_bytes(&d->lents) +
				     vec_cap_bytes(&d->bests)));
}

static void scratch_drop(struct xck *ck, struct xck_vec *dents,
			 struct xck_vec *lents, struct xck_vec *bests,
			 uint8_t *names)
{
	xck_vec_free(ck, dents);
	xck_vec_free(ck, lents);
	xck_vec_free(ck, bests);
	free(names);
}

static void scratch_keep(struct xck_dctx *d)
{
	struct xck *ck = d->ck;
	struct xck_dir_scratch *s = &ck->dir_scratch;
	size_t bytes = vec_cap_bytes(&d->dents) + vec_cap_bytes(&d->lents) +
		       vec_cap_bytes(&d->bests);

	if (s->kept || bytes + d->names_cap > SCRATCH_KEEP) {
		scratch_drop(ck, &d->dents, &d->lents, &d->bests, d->names);
		return;
	}
	d->dents.n = d->lents.n = d->bests.n = 0;
	*s = (struct xck_dir_scratch){
		.dents = d->dents, .lents = d->lents, .bests = d->bests,
		.names = d->names, .names_cap = d->names_cap, .kept = true };
	xck_account(ck, -(int64_t)bytes);
}

void xck_dir_scratch_free(struct xck *ck)
{
	struct xck_dir_scratch *s = &ck->dir_scratch;

	if (!s->kept)
		return;
	s->kept = false;
	/* Counted out of the state when kept: freed without counting (a
	 * worker's last job may be another thread's to read by now). */
	xck_vec_release(&s->dents);
	xck_vec_release(&s->lents);
	xck_vec_release(&s->bests);
	free(s->names);
}

int xck_dir(struct xck *ck, struct xck_icheck *ic)
{
	const struct xfsj_sb *sb = ck->sb;
	struct xck_dctx d = {
		.ck = ck, .ic = ic,
		.dirblkbytelog = sb->blocklog + sb->dirblklog,
		.fsbs = 1U << sb->dirblklog,
		.ftype = (sb->features_incompat & XFSJ_INCOMPAT_FTYPE) != 0,
		.leaves_ok = true,
	};
	bool sf = ic->di.format == XFSJ_DINODE_FMT_LOCAL;
	int err;

	ck->res->dirs++;
	if (!sf && ic->di.format != XFSJ_DINODE_FMT_EXTENTS &&
	    ic->di.format != XFSJ_DINODE_FMT_BTREE)
		return 0;	/* the inode phase reports the format */
	/* Only v5 directories (the dir3 blocks) are understood. */
	if ((sb->versionnum & 0xf) != XFSJ_SB_VERSION_5 ||
	    d.dirblkbytelog > 16)
		return 0;
	d.dirblksize = 1U << d.dirblkbytelog;
	d.leafdb = XFSJ_DIR2_LEAF_OFFSET >> d.dirblkbytelog;
	d.freedb = XFSJ_DIR2_FREE_OFFSET >> d.dirblkbytelog;
	scratch_take(&d);
	err = sf ? check_sf(&d) : check_blocks(&d);
	if (!err && d.lost)
		err = xck_note_lossy(ck, ic->ino, d.lost_id);
	if (!err && d.dents.n) {
		bool by_hash;

		/* In the order found: "." and ".." first. */
		check_entries(&d, sf);
		by_hash = !sf && d.leaves_ok;
		if (by_hash)
			leaf_vs_data(&d);
		find_dups(&d, by_hash);
		err = store_dirents(&d);
	}
	scratch_keep(&d);
	return err;
}
