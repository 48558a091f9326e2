/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FIX_RECONNECT's first step: a head (an inode in use that no directory
 * names, a directory cut off from the root, or the member of a loop of
 * directories the check reported) goes back under the names its parent
 * pointers give, when they name a directory the root reaches; only what
 * no parent pointer places goes on to lost+found (fix_reconnect.c).
 *
 *   - a directory gets one home: its first pointer, in attribute order,
 *     that qualifies; a loop is broken at its first member, in inode
 *     order, that has one;
 *   - any other inode gets back every name whose pointer qualifies (hard
 *     links), its link count the number of names it then has;
 *   - a pointer qualifies when its name is one a directory may hold (no
 *     '/', no NUL, not "." or "..") and its parent is another inode, a
 *     directory in use the root reaches, that holds no such name (its
 *     hash and length), that no earlier head of this pass was given
 *     (heads in inode order: the first wins), and, for a directory, that
 *     is not inside the head's own subtree (the check's entries and the
 *     directories moved earlier in the pass walked down from the head);
 *     the root's "lost+found" is one only for a directory, and only when
 *     there is no lost+found;
 *   - the names are added directory by directory, each directory written
 *     once; a name found there by then is left out, and a head left with
 *     no name goes to lost+found.
 *
 * The pointer that placed a name is kept (with the parent's generation,
 * or given it), and the pptr.extra problem the check reported for it is
 * answered; stale pointers stay FIX_PPTR's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/u64set.h"
#include "fs/attr.h"
#include "fs/iget.h"
#include "repair/reconnect.h"

#define LPF_NAME	"lost+found"
#define LPF_LEN		10

/* A parent pointer of the inode being placed. */
struct cand {
	uint64_t parent;
	uint32_t gen;
	uint32_t nameoff;	/* in the pool */
	uint8_t namelen;
};

/* A name to give back: @child in @parent. */
struct plan {
	uint64_t parent, child;
	uint32_t head;		/* the head's index in the list */
	uint32_t nameoff, hash, gen;
	uint8_t namelen, ftype;
	bool ok;		/* written */
};

struct homes {
	struct xrp *rp;
	struct xrp_dix *ix;
	char *pool;			/* the names */
	size_t npool, cappool;
	struct cand *c;			/* one inode's pointers */
	size_t nc, capc;
	struct plan *p;
	size_t np, capp;
	struct xfsj_u64set taken;	/* (parent, name) given this pass */
	uint64_t lpf;
	int err;			/* of the listing callback */
};

static bool fatal(int err)
{
	return err == -XFSJ_E_NOMEM || err == -XFSJ_E_IO;
}

static const char *name_of(const struct homes *hs, uint32_t off)
{
	return hs->pool + off;
}

static int list_one(void *arg, const struct xfsj_attr_arg *a)
{
	struct homes *hs = arg;

	if (a->ns != XFSJ_ATTR_NS_PARENT || !a->value ||
	    a->valuelen != XFSJ_ATTR_PPTR_VALUE_LEN || !a->namelen ||
	    a->namelen > 255)
		return 0;
	if (xfsj_grow(&hs->c, &hs->capc, hs->nc, 1, sizeof(*hs->c), 8) ||
	    xfsj_grow(&hs->pool, &hs->cappool, hs->npool, a->namelen + 1, 1,
		      4096))
		return -XFSJ_E_NOMEM;
	hs->c[hs->nc++] = (struct cand){
		.parent = xfsj_get_be64(a->value),
		.gen = xfsj_get_be32(a->value + 8),
		.nameoff = (uint32_t)hs->npool,
		.namelen = (uint8_t)a->namelen,
	};
	memcpy(hs->pool + hs->npool, a->name, a->namelen);
	hs->pool[hs->npool + a->namelen] = 0;
	hs->npool += a->namelen + 1;
	return 0;
}

/* The parent pointers of @ino into hs->c (none when its fork cannot be
 * read). */
static int list_pptrs(struct homes *hs, uint64_t ino)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_iref ip;
	size_t mark = hs->npool;
	int err;

	hs->nc = 0;
	err = xfsj_iget(hs->rp->fs, ino, true, &ip, &f);
	if (!err)
		err = xfsj_attr_list(hs->rp->fs, &ip, list_one, hs, &f);
	if (err && fatal(err))
		return err;
	if (err) {
		hs->nc = 0;
		hs->npool = mark;
	}
	return 0;
}

/* (parent, name hash, length) as one number for the taken set. */
static uint64_t taken_key(uint64_t parent, uint32_t hash, uint8_t len)
{
	uint64_t k = parent * 0x9e3779b97f4a7c15ULL;

	return k ^ ((uint64_t)hash << 8 | len);
}

/* Queue directory @ino for the walk unless @seen has it. */
static int visit(struct xfsj_u64set *seen, uint64_t **q, size_t *nq,
		 size_t *capq, uint64_t ino)
{
	int err = xfsj_u64set_add(seen, ino);

	if (err)
		return err < 0 ? err : 0;
	if (xfsj_grow(q, capq, *nq, 1, sizeof(**q), 16))
		return -XFSJ_E_NOMEM;
	(*q)[(*nq)++] = ino;
	return 0;
}

/*
 * Is directory @target inside the subtree of directory @head: the
 * check's entries walked down from it, and under a directory the root
 * reaches the directories this pass placed there?  1, 0, or a negative
 * XFSJ_E_*.
 */
static int under_head(struct homes *hs, uint64_t head, uint64_t target)
{
	struct xrp *rp = hs->rp;
	struct xfsj_u64set seen = { 0 };
	uint64_t *q = NULL;
	size_t nq = 0, capq = 0, at = 0;
	int err = 0, found = 0;

	err = visit(&seen, &q, &nq, &capq, head);
	while (!err && !found && at < nq) {
		uint64_t d = q[at++];
		size_t i, end;

		if (d == target) {
			found = 1;
			break;
		}
		for (xrp_dix_run(hs->ix, d, &i, &end); i < end && !err; i++) {
			const struct xck_dirent *e = &hs->ix->de[i];

			if (!xrp_dix_dotish(hs->ix, e) &&
			    xrp_rc_dir_inuse(rp, e->child))
				err = visit(&seen, &q, &nq, &capq, e->child);
		}
		if (!xrp_dix_rooted(hs->ix, d))
			continue;
		for (i = 0; i < hs->np && !err; i++)
			if (hs->p[i].parent == d &&
			    hs->p[i].ftype == XFSJ_FT_DIR)
				err = visit(&seen, &q, &nq, &capq,
					    hs->p[i].child);
	}
	xfsj_u64set_free(&seen);
	free(q);
	return err ? err : found;
}

/*
 * Does pointer @c of @ino (a directory when @dir) give it a home?  1, 0,
 * or a negative XFSJ_E_*.
 */
static int qualifies(struct homes *hs, uint64_t ino, bool dir,
		     const struct cand *c, uint32_t *hash)
{
	struct xrp *rp = hs->rp;
	const char *name = name_of(hs, c->nameoff);
	int held;

	if (memchr(name, '/', c->namelen) || memchr(name, 0, c->namelen) ||
	    (c->namelen == 1 && name[0] == '.') ||
	    (c->namelen == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	if (c->parent == ino || !xrp_rc_dir_inuse(rp, c->parent) ||
	    !xrp_dix_rooted(hs->ix, c->parent))
		return 0;
	if (c->parent == rp->sb->rootino && c->namelen == LPF_LEN &&
	    !memcmp(name, LPF_NAME, LPF_LEN) &&
	    (!dir || hs->lpf != XFSJ_NULLFSINO))
		return 0;
	*hash = xfsj_da_hashname((const uint8_t *)name, c->namelen);
	held = xrp_dix_holds(hs->ix, c->parent, *hash, c->namelen);
	if (held)
		return held < 0 ? held : 0;
	if (xfsj_u64set_has(&hs->taken,
			    taken_key(c->parent, *hash, c->namelen)))
		return 0;
	if (!dir)
		return 1;
	held = under_head(hs, ino, c->parent);
	return held < 0 ? held : !held;
}

/* Plan name @c (hash @hash) for @child of head @head. */
static int plan(struct homes *hs, uint32_t head, uint64_t child,
		uint8_t ftype, const struct cand *c, uint32_t hash)
{
	int err = xfsj_u64set_add(&hs->taken,
				  taken_key(c->parent, hash, c->namelen));

	if (err < 0)
		return err;
	if (xfsj_grow(&hs->p, &hs->capp, hs->np, 1, sizeof(*hs->p), 16))
		return -XFSJ_E_NOMEM;
	hs->p[hs->np++] = (struct plan){
		.parent = c->parent, .child = child, .head = head,
		.nameoff = c->nameoff, .hash = hash, .gen = c->gen,
		.namelen = c->namelen, .ftype = ftype,
	};
	return 0;
}

/* Head @h[i], not in a loop: its pointers that qualify planned. */
static int plan_head(struct homes *hs, uint32_t i, uint64_t ino,
		     uint8_t ftype)
{
	bool dir = ftype == XFSJ_FT_DIR;
	size_t mark = hs->npool, first = hs->np, w;
	int err = list_pptrs(hs, ino);

	for (size_t k = 0; k < hs->nc && !err; k++) {
		uint32_t hash;
		int q = qualifies(hs, ino, dir, &hs->c[k], &hash);

		if (q < 0)
			return q;
		if (!q)
			continue;
		err = plan(hs, i, ino, ftype, &hs->c[k], hash);
		if (dir)
			break;
	}
	/* Only the names planned stay in the pool (in order: moved down). */
	for (w = mark; first < hs->np && !err; first++) {
		struct plan *p = &hs->p[first];

		memmove(hs->pool + w, hs->pool + p->nameoff, p->namelen + 1u);
		p->nameoff = (uint32_t)w;
		w += p->namelen + 1u;
	}
	if (!err)
		hs->npool = w;
	return err;
}

/*
 * Head @h[i], a loop member: the loop's first member in inode order that
 * has a home is planned there.
 */
static int plan_loop(struct homes *hs, uint32_t i, uint64_t head)
{
	uint64_t m = head, best = UINT64_MAX;
	size_t bound = hs->ix->n + 1, mark = hs->npool;
	struct cand win = { 0 };
	uint32_t winhash = 0;
	int err = 0;

	do {
		if (m < best) {
			err = list_pptrs(hs, m);
			for (size_t k = 0; k < hs->nc && !err; k++) {
				uint32_t hash;
				int q = qualifies(hs, m, true, &hs->c[k],
						  &hash);

				if (q < 0)
					err = q;
				if (q <= 0)
					continue;
				best = m;
				win = hs->c[k];
				winhash = hash;
				/* (kept at the pool's start) */
				memmove(hs->pool + mark,
					hs->pool + win.nameoff,
					win.namelen + 1u);
				win.nameoff = (uint32_t)mark;
				break;
			}
			hs->npool = best == UINT64_MAX ? mark :
				    mark + win.namelen + 1u;
		}
		m = xrp_dix_namer(hs->ix, m);
	} while (!err && m != head && m != XFSJ_NULLFSINO && bound--);
	if (err || best == UINT64_MAX)
		return err;
	return plan(hs, i, best, XFSJ_FT_DIR, &win, winhash);
}

static int by_parent(const void *pa, const void *pb)
{
	const struct plan *a = *(struct plan *const *)pa;
	const struct plan *b = *(struct plan *const *)pb;

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The names planned added, each directory written once. */
static int write_names(struct homes *hs)
{
	struct plan **v = calloc(hs->np ? hs->np : 1, sizeof(*v));
	struct xfsj_dirent *add = calloc(hs->np ? hs->np : 1, sizeof(*add));
	bool *ok = calloc(hs->np ? hs->np : 1, sizeof(*ok));
	size_t i, k, j;
	int err = 0;

	if (!v || !add || !ok)
		err = -XFSJ_E_NOMEM;
	for (i = 0; i < hs->np && !err; i++)
		v[i] = &hs->p[i];
	if (!err)
		qsort(v, hs->np, sizeof(*v), by_parent);
	for (i = 0; i < hs->np && !err; i = k) {
		for (k = i; k < hs->np && v[k]->parent == v[i]->parent; k++)
			add[k - i] = (struct xfsj_dirent){
				name_of(hs, v[k]->nameoff), v[k]->namelen,
				v[k]->ftype, v[k]->child };
		err = xrp_rc_dir_add(hs->rp, v[i]->parent, add, k - i, ok);
		for (j = i; j < k && err >= 0; j++)
			v[j]->ok = !err && ok[j - i];
		if (err > 0)
			err = 0;	/* none written: lost+found */
	}
	free(v);
	free(add);
	free(ok);
	return err;
}

static void say(struct xrp *rp, uint64_t ino, const struct xrp_rc_name *nm,
		bool first)
{
	char what[360];

	snprintf(what, sizeof(what),
		 "%s inode %llu %s directory %llu as %s (its parent pointer)",
		 first ? "moved" : "linked", (unsigned long long)ino,
		 first ? "to" : "in", (unsigned long long)nm->parent,
		 nm->name);
	xrp_action(rp, &(struct xfsj_repair_action){
		.fix = XFSJ_FIX_RECONNECT, .has = XFSJ_PF_INO | XFSJ_PF_COUNT,
		.ino = ino, .count = 1, .what = what });
}

/* Directory @m moved to @parent: the links its ".." moves. */
static int move_dotdot_link(struct xrp *rp, uint64_t m, uint64_t parent)
{
	const struct xck_inode *st = xck_inode_find(rp->ck, m, NULL);
	struct xfsj_iref ip;
	int err = xrp_rc_unlink_old_parents(rp, &m, 1, parent);

	if (err || st->parent == parent)
		return err;
	err = xrp_iget(rp, parent, &ip);
	if (err)
		return err < 0 ? err : 0;
	ip.di.nlink++;
	xfsj_iput(rp->fs, &ip, false);
	return 0;
}

/* The heads' planned names [*@at, ...) of head @i settled: 1 when it
 * has a name now, 0 when none was written, or a negative XFSJ_E_*. */
static int settle_head(struct homes *hs, const uint64_t *h, uint32_t i,
		       size_t *at)
{
	struct xrp *rp = hs->rp;
	struct xrp_rc_name *nm;
	const struct plan *p0 = NULL;
	size_t n = 0, k, first = *at;
	int cut = 0, err;

	for (k = first; k < hs->np && hs->p[k].head == i; k++)
		if (hs->p[k].ok && !n++)
			p0 = &hs->p[k];
	*at = k;
	if (!n)
		return 0;
	nm = calloc(n, sizeof(*nm));
	if (!nm)
		return -XFSJ_E_NOMEM;
	for (n = 0, k = first; k < *at; k++)
		if (hs->p[k].ok)
			nm[n++] = (struct xrp_rc_name){
				hs->p[k].parent, name_of(hs, hs->p[k].nameoff),
				hs->p[k].namelen, true, hs->p[k].gen };
	if (xck_inode_find(rp->ck, h[i], NULL)->flags & XCK_I_INDIR)
		cut = xrp_rc_cut_loop(rp, hs->ix, p0->child, p0->parent);
	err = cut < 0 ? cut :
	      xrp_rc_settle(rp, p0->child, nm, n, cut);
	if (!err && p0->ftype == XFSJ_FT_DIR)
		err = move_dotdot_link(rp, p0->child, p0->parent);
	for (k = 0; k < n && !err; k++)
		say(rp, p0->child, &nm[k], !k);
	free(nm);
	return err ? err : 1;
}

/* A pointer that placed a name: (child, parent, name hash). */
struct kept {
	uint64_t child, parent;
	uint32_t hash;
};

static int kept_cmp(const void *pa, const void *pb)
{
	const struct kept *a = pa, *b = pb;

	if (a->child != b->child)
		return a->child < b->child ? -1 : 1;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

/* The pptr.extra problems of the pointers that placed a name: answered
 * (the entry is there now). */
static int answer_extras(struct homes *hs)
{
	const unsigned int need = XFSJ_PF_INO | XFSJ_PF_OFF | XFSJ_PF_FOUND;
	struct kept *v = calloc(hs->np ? hs->np : 1, sizeof(*v));
	struct xrp_prob *pr;
	size_t n = 0;

	if (!v)
		return -XFSJ_E_NOMEM;
	for (size_t i = 0; i < hs->np; i++)
		if (hs->p[i].ok)
			v[n++] = (struct kept){ hs->p[i].child,
						hs->p[i].parent,
						hs->p[i].hash };
	qsort(v, n, sizeof(*v), kept_cmp);
	for (pr = hs->rp->probs; n && pr < hs->rp->probs + hs->rp->nprobs;
	     pr++) {
		struct kept key = { pr->p.ino, pr->p.off,
				    (uint32_t)pr->p.found };

		if (xrp_names(pr, XFSJ_H_PPTR_REMOVE) &&
		    (pr->p.has & need) == need &&
		    bsearch(&key, v, n, sizeof(key), kept_cmp))
			pr->done = true;
	}
	free(v);
	return 0;
}

int xrp_homes(struct xrp *rp, struct xrp_dix *ix, uint64_t *h, size_t *n,
	      uint64_t *lpf)
{
	struct homes hs = { .rp = rp, .ix = ix, .lpf = *lpf };
	uint64_t *moved = NULL;
	size_t k = 0, nmoved = 0, at = 0;
	int err = 0;

	if (!(rp->sb->features_incompat & XFSJ_INCOMPAT_PARENT))
		return 0;
	for (uint32_t i = 0; i < *n && !err; i++) {
		const struct xck_inode *st = xck_inode_find(rp->ck, h[i], NULL);

		err = st->flags & XCK_I_INDIR ? plan_loop(&hs, i, h[i]) :
		      plan_head(&hs, i, h[i], st->ftype);
	}
	if (!err && hs.np)
		err = write_names(&hs);
	if (!err && hs.np) {
		moved = calloc(*n, sizeof(*moved));
		if (!moved)
			err = -XFSJ_E_NOMEM;
	}
	for (uint32_t i = 0; i < *n && !err; i++) {
		int r = hs.np ? settle_head(&hs, h, i, &at) : 0;

		if (r < 0)
			err = r;
		else if (r)
			moved[nmoved++] = h[i];
		else
			h[k++] = h[i];
	}
	for (size_t i = 0; i < hs.np && !err; i++)
		if (hs.p[i].ok && hs.p[i].parent == rp->sb->rootino &&
		    hs.p[i].ftype == XFSJ_FT_DIR &&
		    hs.p[i].namelen == LPF_LEN &&
		    !memcmp(name_of(&hs, hs.p[i].nameoff), LPF_NAME, LPF_LEN))
			*lpf = hs.p[i].child;
	if (!err && nmoved) {
		xrp_rc_mark_done(rp, moved, nmoved);
		err = answer_extras(&hs);
	}
	if (!err)
		*n = k;
	free(moved);
	free(hs.pool);
	free(hs.c);
	free(hs.p);
	xfsj_u64set_free(&hs.taken);
	return err;
}
