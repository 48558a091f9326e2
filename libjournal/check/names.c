/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The namespace, once every directory and attribute fork is read: the
 * directory entries (ck->dirents, "." and ".." included) against the
 * inodes they name, the inodes against the entries naming them.
 *
 *   - every entry names an inode in use, with the file type of its mode;
 *   - every inode's link count is the number of entries naming it ("."
 *     counts for the directory itself, ".." for the parent);
 *   - a directory is named by one entry (besides its "." and its
 *     children's ".."), and its ".." names the directory holding it;
 *   - every inode in use is reachable from the root directory (metadata
 *     inodes from the metadata directory, or named by the superblock), or
 *     is on an AGI unlinked list; directories not reachable that name one
 *     another in a ring are a loop;
 *   - an AGI unlinked list holds inodes in use with no links, each in the
 *     bucket of its number, once;
 *   - with parent pointers, every entry but "." and ".." has the parent
 *     pointer (child, parent, name) on its child and every parent pointer
 *     has its entry, with the parent's generation.
 *
 * The entries come from the scan grouped by directory, the directories in
 * inode order: in that order they drive the walk from the root, and a
 * clean table is counted without being sorted (the children's states
 * looked up a batch at a time).  Where something is to be reported, or
 * parent pointers are to be merged, it is a sort and a merge: the
 * entries sorted by child meet the inode table (chunks by start) and the
 * parent pointers; sorted back by directory they drive the walks from
 * what is left unreached.
 */
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"
#include "core/grow.h"
#include "core/jobs.h"
#include "fs/attr.h"

enum {
	NM_ENTRY_FREE, NM_FTYPE, NM_NLINK, NM_MULTI_PARENT, NM_DOTDOT,
	NM_ROOT, NM_DISCONNECTED, NM_LOOP, NM_UNLINKED_BAD,
	NM_UNLINKED_NLINK, NM_UNLINKED_PENDING, NM_PPTR_MISSING,
	NM_PPTR_EXTRA, NM_PPTR_GEN, NM__N
};

static const struct xfsj_problem_def rows[NM__N] = {
	/* A valid number whose inode is free or in no chunk; an invalid
	 * number is dir.c's dir.entry.ino (disjoint: xck_ino_valid). */
	[NM_ENTRY_FREE] = { "dirent.target", 0x080001, XFSJ_SEV_XCORRUPT,
		"directory",
		"directory {ino}: an entry (name hash {xfound}) names inode {expected}, which is {field}",
		XFSJ_FIX_CLEAR_ENTRY,
		XFSJ_H_CLEAR_ENTRY, XFSJ_T_DROPS_ENTRY | XFSJ_T_BY_CHILD },
	[NM_FTYPE] = { "dirent.ftype", 0x080002, XFSJ_SEV_XCORRUPT,
		"directory",
		"directory {ino}: the entry naming inode {off} has file type {found}, its mode says {expected}",
		XFSJ_FIX_FIELD,
		XFSJ_H_DIRENT_FTYPE, 0 },
	[NM_NLINK] = { "inode.nlink", 0x080003, XFSJ_SEV_XCORRUPT, "inode",
		"inode {ino}: link count {found}, but {expected} entries name it",
		XFSJ_FIX_NLINK,
		XFSJ_H_NLINK, 0 },
	[NM_MULTI_PARENT] = { "dir.parents", 0x080004, XFSJ_SEV_XCORRUPT,
		"directory",
		"directory {ino} is named by {count} entries, one of them in directory {off}",
		XFSJ_FIX_CLEAR_ENTRY,
		XFSJ_H_DIR_PARENTS, XFSJ_T_BY_CHILD },
	[NM_DOTDOT] = { "names.dotdot", 0x080005, XFSJ_SEV_XCORRUPT, "directory",
		"directory {ino}: '..' names {found}, but directory {expected} holds it",
		XFSJ_FIX_FIELD,
		XFSJ_H_DOTDOT, 0 },
	[NM_ROOT] = { "dir.root", 0x080006, XFSJ_SEV_CORRUPT, "directory",
		"root directory {ino} is {field}", XFSJ_FIX_RECONNECT,
		XFSJ_H_DIR_ROOT, 0 },
	[NM_DISCONNECTED] = { "inode.disconnected", 0x080007,
		XFSJ_SEV_XCORRUPT, "inode",
		"inode {ino} is in use but no directory entry reachable from the root names it",
		XFSJ_FIX_RECONNECT,
		XFSJ_H_RECONNECT, 0 },
	[NM_LOOP] = { "dir.loop", 0x080008, XFSJ_SEV_XCORRUPT, "directory",
		"directory {ino} is in a loop of directories not reachable from the root",
		XFSJ_FIX_RECONNECT,
		XFSJ_H_RECONNECT, 0 },
	[NM_UNLINKED_BAD] = { "agi.unlinked_list", 0x080009,
		XFSJ_SEV_CORRUPT, "AGI",
		"AG {ag} unlinked bucket {off}: inode {ino} {field}",
		XFSJ_FIX_UNLINKED,
		XFSJ_H_UNLINKED_CUT, 0 },
	[NM_UNLINKED_NLINK] = { "inode.unlinked_nlink", 0x08000a,
		XFSJ_SEV_XCORRUPT, "inode",
		"inode {ino} is on an AGI unlinked list but has {found} links",
		XFSJ_FIX_UNLINKED,
		XFSJ_H_UNLINKED_TAKE_OFF, 0 },
	/* The kernel frees them at mount; xfs_repair -n reports them. */
	[NM_UNLINKED_PENDING] = { "agi.unlinked_pending", 0x08000b,
		XFSJ_SEV_WARN, "AGI",
		"AG {ag} unlinked bucket {off} holds {count} unlinked inodes from inode {ino}",
		XFSJ_FIX_UNLINKED,
		XFSJ_H_UNLINKED_FREE, 0 },
	[NM_PPTR_MISSING] = { "pptr.missing", 0x08000c, XFSJ_SEV_XCORRUPT,
		"parent pointer",
		"inode {ino} has no parent pointer for its entry (name hash {xfound}) in directory {off}",
		XFSJ_FIX_PPTR,
		XFSJ_H_PPTR_ADD, 0 },
	[NM_PPTR_EXTRA] = { "pptr.extra", 0x08000d, XFSJ_SEV_XCORRUPT,
		"parent pointer",
		"inode {ino} has a parent pointer (name hash {xfound}) to directory {off}, which has no such entry",
		XFSJ_FIX_PPTR,
		XFSJ_H_PPTR_REMOVE, 0 },
	[NM_PPTR_GEN] = { "pptr.gen", 0x08000e, XFSJ_SEV_XCORRUPT,
		"parent pointer",
		"inode {ino}: parent pointer to directory {off} has generation {found}, the directory's is {expected}",
		XFSJ_FIX_PPTR,
		XFSJ_H_PPTR_GEN, 0 },
};
const struct xck_table xck_names_table = { rows, NM__N };

struct names {
	struct xck *ck;
	uint32_t hash_dot, hash_dotdot;
	bool ftype, pptr;
	bool complete;			/* xck_inodes_complete */
	uint64_t root, metaroot;	/* NULLFSINO: none */
	struct xck_vec queue;		/* uint64_t: directories to walk */
	/* The chunk of the last lookup (live_near), in AG near_agno. */
	const struct xck_chunk *near;
	uint32_t near_agno;
	/*
	 * On a thread of count_entries: its reports, kept for the main
	 * thread to give out in order (NULL: reported at once).
	 */
	struct kept *kept;
};

struct kept {
	struct xfsj_problem *p;
	size_t n, cap;
	bool nomem;
};

/* Report @p, or keep it when on a thread (its strings are literals). */
static void nm_report(const struct names *nm, const struct xfsj_problem *p)
{
	struct kept *k = nm->kept;

	if (!k) {
		xck_report(nm->ck, p);
		return;
	}
	if (k->nomem || xfsj_grow(&k->p, &k->cap, k->n, 1, sizeof(*k->p), 16)) {
		k->nomem = true;
		return;
	}
	k->p[k->n++] = *p;
}

static bool is_dot(const struct names *nm, const struct xck_dirent *e)
{
	return e->namelen == 1 && e->namehash == nm->hash_dot;
}

static bool is_dotdot(const struct names *nm, const struct xck_dirent *e)
{
	return e->namelen == 2 && e->namehash == nm->hash_dotdot;
}

static bool is_dotish(const struct names *nm, const struct xck_dirent *e)
{
	return is_dot(nm, e) || is_dotdot(nm, e);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int dirent_by_child(const void *pa, const void *pb)
{
	const struct xck_dirent *a = pa, *b = pb;
	int c = cmp_u64(a->child, b->child);

	if (!c)
		c = cmp_u64(a->dir, b->dir);
	if (!c)
		c = cmp_u64(a->namehash, b->namehash);
	return c ? c : cmp_u64(a->namelen, b->namelen);
}

static int dirent_by_dir(const void *pa, const void *pb)
{
	const struct xck_dirent *a = pa, *b = pb;
	int c = cmp_u64(a->dir, b->dir);

	return c ? c : cmp_u64(a->child, b->child);
}

static int pptr_by_child(const void *pa, const void *pb)
{
	const struct xck_pptr *a = pa, *b = pb;
	int c = cmp_u64(a->child, b->child);

	if (!c)
		c = cmp_u64(a->parent, b->parent);
	if (!c)
		c = cmp_u64(a->namehash, b->namehash);
	return c ? c : cmp_u64(a->namelen, b->namelen);
}

/* The same orders as keys of the radix sort. */
static uint64_t de_child(const void *p)
{
	return ((const struct xck_dirent *)p)->child;
}

static uint64_t de_dir(const void *p)
{
	return ((const struct xck_dirent *)p)->dir;
}

/* The name hash, then the name's length. */
static uint64_t de_name(const void *p)
{
	const struct xck_dirent *e = p;

	return (uint64_t)e->namehash << 8 | e->namelen;
}

static uint64_t pp_child(const void *p)
{
	return ((const struct xck_pptr *)p)->child;
}

static uint64_t pp_parent(const void *p)
{
	return ((const struct xck_pptr *)p)->parent;
}

static uint64_t pp_name(const void *p)
{
	const struct xck_pptr *e = p;

	return (uint64_t)e->namehash << 8 | e->namelen;
}

static const xfsj_sort_key dirent_child_keys[] = { de_child, de_dir, de_name };
static const xfsj_sort_key dirent_dir_keys[] = { de_dir };
static const xfsj_sort_key pptr_child_keys[] = { pp_child, pp_parent, pp_name };

/* @st when its inode is in use and sound, or NULL. */
static struct xck_inode *sound(struct xck_inode *st)
{
	if (!st || (st->flags & (XCK_I_INUSE | XCK_I_BAD)) != XCK_I_INUSE)
		return NULL;
	return st;
}

/* The state of an inode in use and sound, or NULL. */
static struct xck_inode *live(struct xck *ck, uint64_t ino)
{
	return sound(xck_inode_find(ck, ino, NULL));
}

/*
 * live() through the chunk of the last lookup first: the entries sorted
 * by child, and a directory's entries sorted by child, name inodes of one
 * chunk one after the other.
 */
static struct xck_inode *slot_near(struct names *nm, uint64_t ino)
{
	struct xck *ck = nm->ck;
	uint32_t agno = xfsj_ino_agno(ck->sb, ino);
	uint32_t agino = xfsj_ino_agino(ck->sb, ino);
	const struct xck_chunk *c = nm->near;
	struct xck_chunk *found;
	struct xck_inode *st;

	if (c && agno == nm->near_agno && agino >= c->rec.startino &&
	    agino - c->rec.startino < XFSJ_INODES_PER_CHUNK) {
		st = c->ino ? &c->ino[agino - c->rec.startino] : NULL;
	} else {
		st = xck_inode_find(ck, ino, &found);
		if (found) {
			nm->near = found;
			nm->near_agno = agno;
		}
	}
	return st;
}

static struct xck_inode *live_near(struct names *nm, uint64_t ino)
{
	return sound(slot_near(nm, ino));
}

/* Children looked up (and their states fetched) at once, then judged. */
#define WALK_BATCH	16

/* Is @ino named by the superblock (quota, realtime, metadata root)? */
static bool sb_named(const struct xck *ck, uint64_t ino)
{
	const struct xfsj_sb *sb = ck->sb;

	return ino == sb->uquotino || ino == sb->gquotino ||
	       ino == sb->pquotino || ino == sb->rbmino ||
	       ino == sb->rsumino ||
	       (xfsj_fs_has_incompat(ck->fs, XFSJ_INCOMPAT_METADIR) &&
		ino == sb->metadirino);
}

/* ---- pass 1: the entries naming each inode ---- */

static void entry_target_bad(struct names *nm, const struct xck_dirent *e)
{
	struct xck *ck = nm->ck;
	struct xck_chunk *c;
	struct xck_inode *st;
	const char *what;

	if (!xck_ino_valid(ck, e->child))
		return;		/* the directory check names the number */
	st = xck_inode_find(ck, e->child, &c);
	if (!c && !nm->complete) {
		uint32_t agno = xfsj_ino_agno(ck->sb, e->child);

		/* Its chunk may be in an inobt that could not be read. */
		if (!ck->ags[agno].agi_ok ||
		    !ck->ags[agno].tree_ok[XFSJ_BT_INO])
			return;
	}
	if (st && (st->flags & XCK_I_BAD))
		return;		/* the inode was reported */
	if (!c)
		what = "not in any inode chunk";
	else if (!st || !(st->flags & XCK_I_SCANNED))
		what = "in a sparse chunk's hole";
	else
		what = "free";
	nm_report(nm, &(struct xfsj_problem){
		.def = &rows[NM_ENTRY_FREE],
		.has = XFSJ_PF_INO | XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
		.ino = e->dir, .expected = e->child, .found = e->namehash,
		.field = what });
}

static int pptr_vs_entry(const struct xck_pptr *p, const struct xck_dirent *e)
{
	int c = cmp_u64(p->child, e->child);

	if (!c)
		c = cmp_u64(p->parent, e->dir);
	if (!c)
		c = cmp_u64(p->namehash, e->namehash);
	return c ? c : cmp_u64(p->namelen, e->namelen);
}

/* Does @e's child hold a parent pointer back to @e (pptrs sorted)? */
static bool pptr_backs(const struct names *nm, const struct xck_dirent *e)
{
	const struct xck_pptr *p = nm->ck->pptrs.v;
	size_t lo = 0, hi = nm->ck->pptrs.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = pptr_vs_entry(&p[mid], e);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Of the entries naming one directory, the one that stays: the entry its
 * parent pointer names, then the one in the directory its ".." names,
 * then one whose file type agrees; the first among equals.  A stale
 * entry (a removal lost, its inode number since reused for a directory
 * made in the same place) loses to the entry made with the directory.
 */
static int holder_score(const struct names *nm, const struct xck_inode *st,
			const struct xck_dirent *e)
{
	return (nm->pptr && pptr_backs(nm, e) ? 4 : 0) +
	       (e->dir == st->parent ? 2 : 0) +
	       (e->ftype == st->ftype ? 1 : 0);
}

/* The entries @e[0..n) all name one inode. */
static void child_group(struct names *nm, const struct xck_dirent *e,
			size_t n)
{
	struct xck_inode *st = live_near(nm, e[0].child);
	const struct xck_dirent *holder = NULL;
	uint32_t named = 0;
	size_t i;

	if (!st) {
		for (i = 0; i < n; i++)
			entry_target_bad(nm, &e[i]);
		return;
	}
	st->refs = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	for (i = 0; i < n; i++) {
		if (is_dotish(nm, &e[i]))
			continue;
		named++;
		if (!holder || (st->ftype == XFSJ_FT_DIR &&
				holder_score(nm, st, &e[i]) >
				holder_score(nm, st, holder)))
			holder = &e[i];
		if (nm->ftype && e[i].ftype != st->ftype)
			nm_report(nm, &(struct xfsj_problem){
				.def = &rows[NM_FTYPE],
				.has = XFSJ_PF_INO | XFSJ_PF_OFF |
				       XFSJ_PF_FOUND | XFSJ_PF_EXPECTED,
				.ino = e[i].dir, .off = e[i].child,
				.found = e[i].ftype, .expected = st->ftype });
	}
	if (named)
		st->flags |= XCK_I_INDIR;
	if (st->ftype != XFSJ_FT_DIR || !holder)
		return;
	if (named > 1 || e[0].child == nm->root) {
		nm_report(nm, &(struct xfsj_problem){
			.def = &rows[NM_MULTI_PARENT],
			.has = XFSJ_PF_INO | XFSJ_PF_COUNT | XFSJ_PF_OFF |
			       XFSJ_PF_FOUND,
			.ino = e[0].child, .off = holder->dir,
			.found = holder->namehash,
			.count = named + (e[0].child == nm->root) });
	} else if (st->parent != XFSJ_NULLFSINO &&
		   st->parent != holder->dir) {
		nm_report(nm, &(struct xfsj_problem){
			.def = &rows[NM_DOTDOT],
			.has = XFSJ_PF_INO | XFSJ_PF_FOUND | XFSJ_PF_EXPECTED,
			.ino = e[0].child, .found = st->parent,
			.expected = holder->dir });
	}
}

/* The groups of entries by child from @from to @to (group bounds). */
static void count_range(struct names *nm, size_t from, size_t to)
{
	const struct xck_dirent *e = nm->ck->dirents.v;
	size_t i, j;

	for (i = from; i < to; i = j) {
		for (j = i + 1; j < to && e[j].child == e[i].child; j++)
			;
		child_group(nm, &e[i], j - i);
	}
}

/* A share of count_entries on a thread of its own. */
struct count_job {
	struct names nm;	/* a copy, nm.kept = &kept */
	struct kept kept;
	size_t from, to;
};

static void *count_job_run(void *arg)
{
	struct count_job *cj = arg;

	count_range(&cj->nm, cj->from, cj->to);
	return NULL;
}

#define COUNT_THREADS_MAX XFSJ_JOBS_THREADS_MAX

/*
 * Each group touches only its child's state and reads the rest, so the
 * groups split at child boundaries into one share per thread; each share
 * keeps its reports, given out after in share order: what one thread
 * reports, in the same order.
 */
static int count_entries(struct names *nm)
{
	struct xck *ck = nm->ck;
	const struct xck_dirent *e = ck->dirents.v;
	size_t n = ck->dirents.n, at = 0;
	unsigned int t = ck->threads > 1 ? ck->threads : 1, k;
	struct count_job *cj;
	int err = 0;

	if (t > COUNT_THREADS_MAX)
		t = COUNT_THREADS_MAX;
	if (t == 1 || n < 4096) {
		count_range(nm, 0, n);
		return 0;
	}
	cj = calloc(t, sizeof(*cj));
	if (!cj)
		return -XFSJ_E_NOMEM;
	for (k = 0; k < t; k++) {
		size_t end = k + 1 == t ? n : n / t * (k + 1);

		if (end < at)
			end = at;
		while (end < n && end > 0 && e[end].child == e[end - 1].child)
			end++;
		cj[k].nm = *nm;
		cj[k].nm.kept = &cj[k].kept;
		cj[k].from = at;
		cj[k].to = end;
		at = end;
	}
	xfsj_run_jobs(count_job_run, cj, sizeof(*cj), t);
	for (k = 0; k < t; k++) {
		for (size_t i = 0; i < cj[k].kept.n; i++)
			xck_report(ck, &cj[k].kept.p[i]);
		if (cj[k].kept.nomem)
			err = -XFSJ_E_NOMEM;
		free(cj[k].kept.p);
	}
	free(cj);
	return err;
}

/*
 * The same counts without the sort, where nothing is to be reported: one
 * pass over the entries in the scan's order, the children's states
 * looked up a batch at a time (as the walk does), a share of the entries
 * per thread (the counts and marks atomic: hard links of one inode fall
 * in several shares).  It gives up at an entry count_range would report
 * on (a child not in use or unsound, a file type that disagrees, a
 * directory named twice, or by the root's entry, or from elsewhere than
 * its ".." says): whatever the threads' order, such an entry gives up.
 * Then the marks are undone and count_entries, on the entries sorted by
 * child, says what is wrong.  true: refs and XCK_I_INDIR as count_range
 * sets them, nothing to report.
 */
struct unsorted_job {
	struct names nm;	/* a copy: its own chunk of the last lookup */
	size_t from, to;
	bool *ok;		/* shared: cleared by the first to give up */
};

/* Does entry @d, naming the state @slot, leave nothing to report? */
static bool count_one(struct names *nm, const struct xck_dirent *d,
		      struct xck_inode *slot)
{
	uint8_t flags;

	if (!slot)
		return false;
	flags = __atomic_load_n(&slot->flags, __ATOMIC_RELAXED);
	if ((flags & (XCK_I_INUSE | XCK_I_BAD)) != XCK_I_INUSE)
		return false;
	__atomic_fetch_add(&slot->refs, 1, __ATOMIC_RELAXED);
	if (is_dotish(nm, d))
		return true;
	__atomic_fetch_or(&slot->flags, XCK_I_INDIR, __ATOMIC_RELAXED);
	if (nm->ftype && d->ftype != slot->ftype)
		return false;
	return slot->ftype != XFSJ_FT_DIR ||
	       (!__atomic_fetch_add(&slot->named, 1, __ATOMIC_RELAXED) &&
		d->child != nm->root &&
		(slot->parent == XFSJ_NULLFSINO || slot->parent == d->dir));
}

static void *count_unsorted_run(void *arg)
{
	struct unsorted_job *j = arg;
	const struct xck_dirent *e = j->nm.ck->dirents.v;
	size_t i = j->from;

	while (i < j->to && __atomic_load_n(j->ok, __ATOMIC_RELAXED)) {
		struct xck_inode *slot[WALK_BATCH];
		size_t at[WALK_BATCH];
		unsigned int m = 0, k;

		for (; i < j->to && m < WALK_BATCH; i++) {
			slot[m] = slot_near(&j->nm, e[i].child);
			if (slot[m])
				__builtin_prefetch(slot[m], 1);
			at[m++] = i;
		}
		for (k = 0; k < m; k++) {
			if (!count_one(&j->nm, &e[at[k]], slot[k])) {
				__atomic_store_n(j->ok, false,
						 __ATOMIC_RELAXED);
				break;
			}
		}
	}
	return NULL;
}

static bool count_unsorted(struct names *nm)
{
	struct xck *ck = nm->ck;
	size_t n = ck->dirents.n, at = 0;
	unsigned int t = ck->threads > 1 ? ck->threads : 1, k;
	struct unsorted_job *jobs;
	bool ok = true;

	if (t > COUNT_THREADS_MAX)
		t = COUNT_THREADS_MAX;
	if (n < 4096)
		t = 1;
	jobs = calloc(t, sizeof(*jobs));
	if (!jobs)
		return false;
	for (k = 0; k < t; k++) {
		size_t end = k + 1 == t ? n : n / t * (k + 1);

		jobs[k] = (struct unsorted_job){ .nm = *nm, .from = at,
						 .to = end, .ok = &ok };
		at = end;
	}
	xfsj_run_jobs(count_unsorted_run, jobs, sizeof(*jobs), t);
	free(jobs);
	/* The scratch counts cleared; the rest too when giving up. */
	for (uint32_t agno = 0; agno < ck->agcount; agno++) {
		struct xck_ag *ag = &ck->ags[agno];

		for (size_t c = 0; c < ag->chunks.n; c++) {
			struct xck_chunk *ch = xck_vec_at(&ag->chunks, c);

			for (unsigned int i = 0;
			     ch->ino && i < XFSJ_INODES_PER_CHUNK; i++) {
				struct xck_inode *st = &ch->ino[i];

				st->named = 0;
				if (ok)
					continue;
				st->refs = 0;
				st->flags &= (uint8_t)~XCK_I_INDIR;
			}
		}
	}
	return ok;
}

/* ---- parent pointers against the entries (both sorted by child) ---- */

static void pptr_report(struct xck *ck, int row, uint64_t child,
			uint64_t parent, uint32_t hash)
{
	struct xfsj_problem p = {
		.def = &rows[row], .has = XFSJ_PF_INO | XFSJ_PF_OFF |
					  XFSJ_PF_FOUND,
		.ino = child, .off = parent, .found = hash };

	if (row == NM_PPTR_EXTRA)
		xck_cause(ck, XCK_CQ_PPTR, &p);
	xck_report(ck, &p);
}

static void pptr_gen(struct xck *ck, const struct xck_pptr *p)
{
	const struct xck_inode *dst = live(ck, p->parent);

	if (dst && dst->gen != p->parent_gen)
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[NM_PPTR_GEN],
			.has = XFSJ_PF_INO | XFSJ_PF_OFF | XFSJ_PF_FOUND |
			       XFSJ_PF_EXPECTED,
			.ino = p->child, .off = p->parent,
			.found = p->parent_gen, .expected = dst->gen });
}

static void pptr_compare(struct names *nm)
{
	struct xck *ck = nm->ck;
	const struct xck_dirent *e = ck->dirents.v;
	const struct xck_pptr *p;
	size_t i = 0, j = 0, ne = ck->dirents.n;

	p = ck->pptrs.v;	/* sorted by child in xck_names */
	while (i < ne || j < ck->pptrs.n) {
		int c;

		if (i < ne && is_dotish(nm, &e[i])) {
			i++;
			continue;
		}
		c = i >= ne ? -1 : j >= ck->pptrs.n ? 1 :
		    pptr_vs_entry(&p[j], &e[i]);
		if (c < 0) {
			/* A parent pointer on an inode gone bad or free is
			 * that inode's problem. */
			if (live(ck, p[j].child))
				pptr_report(ck, NM_PPTR_EXTRA, p[j].child,
					    p[j].parent, p[j].namehash);
			j++;
		} else if (c > 0) {
			if (live(ck, e[i].child))
				pptr_report(ck, NM_PPTR_MISSING, e[i].child,
					    e[i].dir, e[i].namehash);
			i++;
		} else {
			pptr_gen(ck, &p[j]);
			i++;
			j++;
		}
	}
}

/* ---- the AGI unlinked lists ---- */

static int next_unlinked(struct xck *ck, uint32_t agno, uint32_t agino,
			 uint32_t *next)
{
	const struct xfsj_sb *sb = ck->sb;
	struct xfsj_buf *bp;
	uint32_t in_block = agino & ((1U << sb->inopblog) - 1);
	int err;

	err = xfsj_buf_read_ref(ck->fs, xfsj_agb_to_daddr(sb, agno,
				agino >> sb->inopblog), sb->blocksize, &bp);
	if (err)
		return err;
	*next = xfsj_get_be32(bp->data + (size_t)in_block * sb->inodesize +
			      XFSJ_DI_OFF(next_unlinked));
	xfsj_buf_rele(ck->fs, bp);
	return 0;
}

static void unlinked_bad(struct xck *ck, uint32_t agno, uint32_t bucket,
			 uint64_t ino, const char *what)
{
	xck_report(ck, &(struct xfsj_problem){
		.def = &rows[NM_UNLINKED_BAD],
		.has = XFSJ_PF_AG | XFSJ_PF_OFF | XFSJ_PF_INO,
		.agno = agno, .off = bucket, .ino = ino, .field = what });
}

static int unlinked_bucket(struct xck *ck, struct xck_ag *ag, uint32_t b)
{
	uint32_t agino = ag->agi.unlinked[b];
	uint64_t first = xfsj_agino_to_ino(ck->sb, ag->agno, agino), n = 0;
	bool wrong_bucket = false;
	int err = 0;

	while (agino != XFSJ_NULLAGINO) {
		uint64_t ino = xfsj_agino_to_ino(ck->sb, ag->agno, agino);
		struct xck_inode *st;

		if (!xck_ino_valid(ck, ino)) {
			unlinked_bad(ck, ag->agno, b, ino,
				     "is not a valid inode number");
			break;
		}
		st = xck_inode_find(ck, ino, NULL);
		if (!st || !(st->flags & XCK_I_SCANNED)) {
			unlinked_bad(ck, ag->agno, b, ino,
				     "is not in any inode chunk");
			break;
		}
		/*
		 * The inode scan marks every inode some list names
		 * (XCK_I_UNLINKED) before this walk: a loop is an inode
		 * this walk reaches twice.
		 */
		if (st->flags & XCK_I_WALKED) {
			unlinked_bad(ck, ag->agno, b, ino,
				     "is on an unlinked list twice (a loop)");
			break;
		}
		if (!(st->flags & XCK_I_INUSE)) {
			if (!(st->flags & XCK_I_BAD))
				unlinked_bad(ck, ag->agno, b, ino, "is free");
			break;
		}
		st->flags |= XCK_I_UNLINKED | XCK_I_WALKED;
		n++;
		if (agino % XFSJ_AGI_UNLINKED_BUCKETS != b && !wrong_bucket) {
			unlinked_bad(ck, ag->agno, b, ino,
				     "belongs in another bucket");
			wrong_bucket = true;
		}
		if (st->nlink)
			xck_report(ck, &(struct xfsj_problem){
				.def = &rows[NM_UNLINKED_NLINK],
				.has = XFSJ_PF_INO | XFSJ_PF_FOUND,
				.ino = ino, .found = st->nlink });
		err = next_unlinked(ck, ag->agno, agino, &agino);
		if (err)
			return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO ?
			       err : 0;
	}
	if (n)
		xck_report(ck, &(struct xfsj_problem){
			.def = &rows[NM_UNLINKED_PENDING],
			.has = XFSJ_PF_AG | XFSJ_PF_OFF | XFSJ_PF_INO |
			       XFSJ_PF_COUNT,
			.agno = ag->agno, .off = b, .ino = first, .count = n });
	return 0;
}

static int unlinked_lists(struct xck *ck)
{
	uint32_t agno, b;
	int err = 0;

	for (agno = 0; agno < ck->agcount && !err; agno++) {
		struct xck_ag *ag = &ck->ags[agno];

		if (!ag->agi_ok)
			continue;
		for (b = 0; b < XFSJ_AGI_UNLINKED_BUCKETS && !err; b++)
			err = unlinked_bucket(ck, ag, b);
	}
	return err;
}

/* ---- reachability (the entries sorted by directory) ---- */

static size_t first_entry_of(const struct xck_vec *v, uint64_t dir)
{
	const struct xck_dirent *e = v->v;
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].dir < dir)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Mark everything reachable from @start (in use) as reached. */
static int walk_from(struct names *nm, uint64_t start)
{
	struct xck *ck = nm->ck;
	const struct xck_dirent *e = ck->dirents.v;
	struct xck_inode *st = live(ck, start);
	size_t head = 0;
	int err;

	if (!st || (st->flags & XCK_I_REACHED))
		return 0;
	st->flags |= XCK_I_REACHED;
	if (st->ftype != XFSJ_FT_DIR)
		return 0;
	nm->queue.n = 0;
	err = xck_vec_push(ck, &nm->queue, &start);
	while (!err && head < nm->queue.n) {
		uint64_t dir = *(uint64_t *)xck_vec_at(&nm->queue, head++);
		size_t i = first_entry_of(&ck->dirents, dir);

		while (!err && i < ck->dirents.n && e[i].dir == dir) {
			struct xck_inode *slot[WALK_BATCH];
			size_t at[WALK_BATCH];
			unsigned int m = 0, k;

			/*
			 * A batch of the children's states looked up and
			 * fetched at once, then judged in order: in a
			 * directory's own order (the scan's) they are far
			 * apart in the table, and one at a time each waited
			 * on memory.
			 */
			for (; i < ck->dirents.n && e[i].dir == dir &&
			       m < WALK_BATCH; i++) {
				if (is_dotish(nm, &e[i]))
					continue;
				slot[m] = slot_near(nm, e[i].child);
				if (slot[m])
					__builtin_prefetch(slot[m], 1);
				at[m++] = i;
			}
			for (k = 0; k < m && !err; k++) {
				struct xck_inode *cst = sound(slot[k]);

				if (!cst || (cst->flags & XCK_I_REACHED))
					continue;
				cst->flags |= XCK_I_REACHED;
				if (cst->ftype == XFSJ_FT_DIR)
					err = xck_vec_push(ck, &nm->queue,
							   &e[at[k]].child);
			}
		}
	}
	return err;
}

/*
 * Does following ".." from directory @ino (not reached) come back round
 * without reaching the root's tree?  Floyd's tortoise and hare over the
 * parent function, bounded by the number of inodes.
 */
static uint64_t parent_of_unreached(struct xck *ck, uint64_t ino)
{
	struct xck_inode *st = live(ck, ino);

	if (!st || st->ftype != XFSJ_FT_DIR || (st->flags & XCK_I_REACHED))
		return XFSJ_NULLFSINO;
	return st->parent;
}

static bool in_loop(struct xck *ck, uint64_t ino)
{
	uint64_t slow = ino, fast = ino, bound = ck->res->inodes + 2;

	while (bound--) {
		slow = parent_of_unreached(ck, slow);
		fast = parent_of_unreached(ck, fast);
		if (fast != XFSJ_NULLFSINO)
			fast = parent_of_unreached(ck, fast);
		if (slow == XFSJ_NULLFSINO || fast == XFSJ_NULLFSINO)
			return false;
		if (slow == fast)
			return true;
	}
	return false;
}

/* Should an inode in use that is not reached be reported? */
static bool must_be_reached(const struct names *nm, uint64_t ino,
			    const struct xck_inode *st)
{
	return (st->flags & (XCK_I_INUSE | XCK_I_BAD | XCK_I_REACHED |
			     XCK_I_META | XCK_I_UNLINKED)) == XCK_I_INUSE &&
	       !sb_named(nm->ck, ino);
}

/*
 * Pass @pass over every inode not reached: 0 reports those no entry
 * names (the tops of what is cut off), 1 the directories in loops and
 * what else is left.  Each report walks from the inode, so a tree cut off
 * is reported once, at its top.
 */
static int unreached_pass(struct names *nm, int pass)
{
	struct xck *ck = nm->ck;
	uint32_t agno;
	size_t i;
	int err = 0;

	for (agno = 0; agno < ck->agcount && !err; agno++) {
		struct xck_ag *ag = &ck->ags[agno];

		for (i = 0; i < ag->chunks.n && !err; i++) {
			struct xck_chunk *c = xck_vec_at(&ag->chunks, i);
			unsigned int k;

			for (k = 0; c->ino && k < XFSJ_INODES_PER_CHUNK &&
				    !err; k++) {
				uint64_t ino = xfsj_agino_to_ino(ck->sb, agno,
						c->rec.startino + k);
				int row = NM_DISCONNECTED;

				if (!must_be_reached(nm, ino, &c->ino[k]))
					continue;
				if (pass == 0 &&
				    (c->ino[k].flags & XCK_I_INDIR))
					continue;
				if (pass == 1 && in_loop(ck, ino))
					row = NM_LOOP;
				xck_report(ck, xck_cause(ck, XCK_CQ_UNNAMED,
					&(struct xfsj_problem){
					.def = &rows[row], .has = XFSJ_PF_INO,
					.ino = ino }));
				err = walk_from(nm, ino);
			}
		}
	}
	return err;
}

/* What is wrong with the root directory, or NULL (BAD: reported). */
static const char *root_state(const struct names *nm, bool *bad)
{
	const struct xck_inode *st = xck_inode_find(nm->ck, nm->root, NULL);

	*bad = false;
	if (!st || !(st->flags & XCK_I_SCANNED))
		return "not in any inode chunk";
	if (st->flags & XCK_I_BAD)
		*bad = true;	/* reported with the inode */
	else if (!(st->flags & XCK_I_INUSE))
		return "free";
	else if (st->ftype != XFSJ_FT_DIR)
		return "not a directory";
	return NULL;
}

static bool root_ok(struct names *nm)
{
	bool bad;
	const char *what = root_state(nm, &bad);

	if (what)
		xck_report(nm->ck, &(struct xfsj_problem){
			.def = &rows[NM_ROOT], .has = XFSJ_PF_INO,
			.ino = nm->root, .field = what });
	return !what && !bad;
}

static bool sorted_by_dir(const struct xck_vec *v)
{
	const struct xck_dirent *e = v->v;

	for (size_t i = 1; i < v->n; i++)
		if (e[i - 1].dir > e[i].dir)
			return false;
	return true;
}

/* The walks from the root and the metadata root (entries by directory). */
static int walk_roots(struct names *nm)
{
	int err = walk_from(nm, nm->root);

	if (!err && nm->metaroot != XFSJ_NULLFSINO)
		err = walk_from(nm, nm->metaroot);
	return err;
}

/* Is some inode in use left unreached that must be reported? */
static bool any_unreached(const struct names *nm)
{
	const struct xck *ck = nm->ck;

	for (uint32_t agno = 0; agno < ck->agcount; agno++) {
		const struct xck_ag *ag = &ck->ags[agno];

		for (size_t i = 0; i < ag->chunks.n; i++) {
			const struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

			for (unsigned int k = 0;
			     c->ino && k < XFSJ_INODES_PER_CHUNK; k++)
				if (must_be_reached(nm,
					xfsj_agino_to_ino(ck->sb, agno,
						c->rec.startino + k),
					&c->ino[k]))
					return true;
		}
	}
	return false;
}

/*
 * @walked: the walks from the roots were made already, on the entries
 * in the order the scan gave them (by directory), before the sort by
 * child; the sort back by directory is then needed only when something
 * is left to walk from.
 */
static int reachability(struct names *nm, bool walked)
{
	struct xck *ck = nm->ck;
	int err = 0;

	if (!root_ok(nm))
		return 0;	/* everything would be cut off: say it once */
	if (walked && !any_unreached(nm))
		return 0;
	/*
	 * By directory alone: the radix sort is stable and the entries come
	 * sorted by child, so each directory's run is in the order of
	 * dirent_by_dir without being sorted again (a huge directory's run
	 * cost as much as the whole sort).  Counted unsorted, they are in
	 * the scan's order still: by directory already.
	 */
	if (!sorted_by_dir(&ck->dirents))
		xck_vec_sort_keys_threads(&ck->dirents, dirent_dir_keys, 1,
					  dirent_by_dir, ck->threads);
	if (!walked)
		err = walk_roots(nm);
	if (!err)
		err = unreached_pass(nm, 0);
	if (!err)
		err = unreached_pass(nm, 1);
	return err;
}

/* ---- link counts ---- */

static void link_counts(struct names *nm)
{
	struct xck *ck = nm->ck;
	uint32_t agno;
	size_t i;
	unsigned int k;

	for (agno = 0; agno < ck->agcount; agno++) {
		struct xck_ag *ag = &ck->ags[agno];

		for (i = 0; i < ag->chunks.n; i++) {
			struct xck_chunk *c = xck_vec_at(&ag->chunks, i);

			if (c->ino)
				ck->res->work[XFSJ_WK_NAMES] +=
					XFSJ_INODES_PER_CHUNK;
			for (k = 0; c->ino && k < XFSJ_INODES_PER_CHUNK; k++) {
				const struct xck_inode *st = &c->ino[k];
				uint64_t ino = xfsj_agino_to_ino(ck->sb, agno,
						c->rec.startino + k);

				if ((st->flags & (XCK_I_INUSE | XCK_I_BAD |
						  XCK_I_META)) != XCK_I_INUSE ||
				    st->nlink == st->refs)
					continue;
				/* Metadata inodes outside a metadata
				 * directory have one link and no entry. */
				if (!st->refs && sb_named(ck, ino))
					continue;
				xck_report(ck, xck_cause(ck, XCK_CQ_NLINK,
					&(struct xfsj_problem){
					.def = &rows[NM_NLINK],
					.has = XFSJ_PF_INO | XFSJ_PF_FOUND |
					       XFSJ_PF_EXPECTED,
					.ino = ino, .found = st->nlink,
					.expected = st->refs }));
			}
		}
	}
}

int xck_names(struct xck *ck)
{
	struct names nm = {
		.ck = ck,
		.hash_dot = xfsj_da_hashname((const uint8_t *)".", 1),
		.hash_dotdot = xfsj_da_hashname((const uint8_t *)"..", 2),
		.ftype = xfsj_fs_has_incompat(ck->fs, XFSJ_INCOMPAT_FTYPE),
		.pptr = xfsj_fs_has_incompat(ck->fs, XFSJ_INCOMPAT_PARENT),
		.complete = xck_inodes_complete(ck),
		.root = ck->sb->rootino,
		.metaroot = xfsj_fs_has_incompat(ck->fs, XFSJ_INCOMPAT_METADIR) ?
			    ck->sb->metadirino : XFSJ_NULLFSINO,
	};
	bool named_any, walked = false, root_bad;
	size_t i;
	int err;

	xck_vec_init(&nm.queue, sizeof(uint64_t));
	err = unlinked_lists(ck);
	/*
	 * Every directory holds "." and "..": no entry at all means the
	 * directories were not read, and nothing below can be judged; but
	 * for a root that is no directory (then there is none to read).
	 */
	if (!err && !ck->dirents.n && nm.complete)
		(void)root_ok(&nm);
	if (err || !ck->dirents.n)
		goto out;

	/*
	 * The scan gives each directory's entries together, the directories
	 * in inode order: the walks from the roots need that order, so they
	 * go first when the table has it (the tree reached is the same
	 * whenever it is walked: the counts below change no inode's state
	 * the walk reads).  A clean filesystem then never sorts the table
	 * back by directory.
	 */
	if (nm.complete && !root_state(&nm, &root_bad) && !root_bad &&
	    sorted_by_dir(&ck->dirents)) {
		err = walk_roots(&nm);
		if (err)
			goto out;
		walked = true;
	}
	/*
	 * One after the other, each on the threads: at once they would
	 * need both scratch copies at the peak of the tables (24 MB more at
	 * 1M entries with parent pointers) for a few tens of milliseconds.
	 */
	ck->res->work[XFSJ_WK_NAMES] += ck->dirents.n + ck->pptrs.n;
	/*
	 * Without parent pointers to merge with (nor lossy directories,
	 * whose causes are looked up by child), a clean table is counted in
	 * the scan's order; the sort by child only to say what is wrong.
	 */
	if (nm.pptr || ck->lossy.n || !count_unsorted(&nm)) {
		xck_vec_sort_keys_threads(&ck->dirents, dirent_child_keys, 3,
					  dirent_by_child, ck->threads);
		if (nm.pptr)
			xck_vec_sort_keys_threads(&ck->pptrs, pptr_child_keys,
						  3, pptr_by_child,
						  ck->threads);
		err = count_entries(&nm);
		if (err)
			goto out;
	}
	/*
	 * Inodes not found (an AGI or inobt not read whole) may hold entries
	 * and parent pointers: the counts and the tree are not known then.
	 */
	if (!nm.complete)
		goto out;
	link_counts(&nm);
	for (i = 0, named_any = false; i < ck->dirents.n && !named_any; i++)
		named_any = !is_dotish(&nm,
				       xck_vec_at(&ck->dirents, i));
	/* No parent pointer at all beside entries: attributes not read. */
	if (nm.pptr && (ck->pptrs.n || !named_any))
		pptr_compare(&nm);
	err = reachability(&nm, walked);
out:
	xck_vec_free(ck, &nm.queue);
	return err;
}
