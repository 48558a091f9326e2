/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recovery of ATTRI intents (attri.h): an extended-attribute or
 * parent-pointer change logged as one intent, finished after the replay
 * the way the kernel's log recovery finishes it.
 *
 * The rules, from the kernel's attribute intent recovery:
 *  - the item is checked completely before anything is done: known op,
 *    no unknown op or filter bits, at most one namespace, lengths in
 *    range, the feature the op needs (parent pointers for the PPTR ops,
 *    the LOG_XATTRS log-incompat bit for the others), a valid inode
 *    number, the number and lengths of the regions, valid names, and
 *    parent-pointer values naming a possible directory.  Anything else is
 *    corruption: the kernel refuses to mount.
 *  - the inode must be in use; for parent-pointer ops its generation
 *    must be the logged one (they log a file handle).  Else corruption.
 *  - recovery redoes the whole operation, whatever part of it was done
 *    before the crash, and a missing attribute is never an error: a set
 *    or replace becomes "remove the old one if it is there, then add";
 *    a parent-pointer replace removes the old (name, value) if present
 *    and adds the new one; a remove of a missing attribute does nothing.
 *  - an inode without an attribute fork gets nothing added (the kernel's
 *    add path ends at once), and a remove on an inode without attributes
 *    does nothing.
 *  - a parent-pointer replace on an inode whose attribute fork is empty
 *    (extents format, no extents) adds the *old* (name, value): the
 *    kernel starts the add state directly and the switch to the new name
 *    only happens after a remove phase.  We do the same so that the
 *    result matches a kernel mount.
 */
#include <string.h>
#include <sys/stat.h>

#include "fs/attr.h"
#include "fs/attri.h"
#include "core/layout.h"
#include "ondisk/attri_fmt.h"

static const char ITEM[] = "ATTRI log item";

bool xfsj_intent_ino_ok(const struct xfsj_fs *fs, uint64_t ino)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	uint32_t agno = xfsj_ino_agno(sb, ino);
	uint32_t agino = xfsj_ino_agino(sb, ino);
	uint32_t align = 1, agfl_block, first_b, end_b;

	if (agno >= sb->agcount || xfsj_agino_to_ino(sb, agno, agino) != ino)
		return false;
	/* Inode chunks are aligned when the superblock says so. */
	if ((sb->versionnum & XFSJ_SB_VERSION_ALIGNBIT) && sb->inoalignmt)
		align = sb->inoalignmt;
	/* The first block after the AGFL sector, rounded up to alignment. */
	agfl_block = (3U * sb->sectsize) >> sb->blocklog;
	first_b = (agfl_block + 1 + align - 1) / align * align;
	end_b = xfsj_fs_ag_blocks(fs, agno) / align * align;
	return (agino >> sb->inopblog) >= first_b &&
	       (agino >> sb->inopblog) < end_b;
}

/* The superblock's own inodes cannot be a parent directory. */
static bool dir_ino_ok(const struct xfsj_fs *fs, uint64_t ino)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);

	if (ino == sb->rbmino || ino == sb->rsumino || ino == sb->uquotino ||
	    ino == sb->gquotino || ino == sb->pquotino)
		return false;
	if ((sb->features_incompat & XFSJ_INCOMPAT_METADIR) &&
	    ino == sb->metadirino)
		return false;
	return xfsj_intent_ino_ok(fs, ino);
}

/* The kernel's name check: short enough, and no NUL (nor '/' for pptrs). */
static bool name_ok(uint32_t filter, const uint8_t *name, uint32_t len)
{
	if (len == 0 || len > XFSJ_ATTR_NAME_MAX)
		return false;
	if (memchr(name, 0, len))
		return false;
	if (filter & XFSJ_ATTR_NS_PARENT) {
		/* Parent pointers are always logged: never incomplete. */
		if (filter & XFSJ_ATTRI_FILTER_INCOMPLETE)
			return false;
		if (memchr(name, '/', len))
			return false;
	}
	return true;
}

/* The format (ondisk/attri_fmt.h) and where its regions are. */
struct attri {
	struct xfsj_attri_fmt fmt;
	const uint8_t *name, *new_name, *value, *new_value;
};

static int bad(const struct xfsj_pending_intent *pi, const char *field,
	       uint64_t val, struct xfsj_fault *f)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, ITEM, field, pi->lsn, val);
}

/*
 * The format region alone (the kernel's xfs_attri_validate): its
 * structural rules (ondisk/attri_fmt.c), then the feature the op needs
 * and the inode number.
 */
static int check_format(const struct xfsj_fs *fs,
			const struct xfsj_pending_intent *pi, struct attri *a,
			struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	const struct xfsj_attri_fmt *fmt = &a->fmt;
	bool pptr_fs = sb->features_incompat & XFSJ_INCOMPAT_PARENT;
	bool larp = sb->features_log_incompat & XFSJ_LOG_INCOMPAT_XATTRS;
	const char *field;
	uint64_t val;

	memset(a, 0, sizeof(*a));
	if (pi->nreg < 1 || !pi->regs ||
	    !xfsj_attri_fmt_decode(pi->fmt, pi->len, &a->fmt))
		return bad(pi, "size", pi->len, f);
	field = xfsj_attri_fmt_verify(fmt, &val);
	if (field)
		return bad(pi, field, val, f);
	if (fmt->pptr && !pptr_fs)
		return bad(pi, "op_flags (no parent pointers)", fmt->op, f);
	if (!fmt->pptr && !larp)
		return bad(pi, "op_flags (logged xattrs off)", fmt->op, f);
	if (!xfsj_intent_ino_ok(fs, fmt->ino))
		return bad(pi, "ino", fmt->ino, f);
	return 0;
}

/* The next region, holding exactly @s->len bytes padded to 4. */
static int take_region(const struct xfsj_pending_intent *pi, uint16_t *i,
		       const struct xfsj_attri_slot *s, const uint8_t **out,
		       struct xfsj_fault *f)
{
	const struct xfsj_region *r;

	if (*i >= pi->nreg)
		return bad(pi, "size (regions)", pi->nreg, f);
	r = &pi->regs[*i];
	if (!r->p || r->len != xfsj_attri_region_len(s->len))
		return bad(pi, s->what, r->len, f);
	*out = r->p;
	(*i)++;
	return 0;
}

/* A region's own rules: names, and parent pointer values. */
static int check_part(const struct xfsj_fs *fs,
		      const struct xfsj_pending_intent *pi,
		      const struct attri *a, const struct xfsj_attri_slot *s,
		      const uint8_t *p, struct xfsj_fault *f)
{
	uint64_t ino;
	uint32_t gen;

	switch (s->part) {
	case XFSJ_ATTRI_NAME:
		if (!name_ok(a->fmt.filter, p, s->len))
			return bad(pi, "name", s->len, f);
		return 0;
	case XFSJ_ATTRI_NEW_NAME:
		if (!name_ok(a->fmt.filter, p, s->len))
			return bad(pi, "new name", s->len, f);
		return 0;
	case XFSJ_ATTRI_VALUE:
	case XFSJ_ATTRI_NEW_VALUE:
		break;
	}
	if (!(a->fmt.filter & XFSJ_ATTR_NS_PARENT))
		return 0;
	xfsj_pptr_value_decode(p, &ino, &gen);
	if (!dir_ino_ok(fs, ino))
		return bad(pi, "parent pointer value (p_ino)", ino, f);
	return 0;
}

/* The regions after the format (the kernel's commit_pass2 checks). */
static int check_regions(const struct xfsj_fs *fs,
			 const struct xfsj_pending_intent *pi, struct attri *a,
			 struct xfsj_fault *f)
{
	struct xfsj_attri_slot s[4];
	unsigned int n = xfsj_attri_fmt_parts(&a->fmt, s);
	const uint8_t **at[] = {
		[XFSJ_ATTRI_NAME] = &a->name,
		[XFSJ_ATTRI_NEW_NAME] = &a->new_name,
		[XFSJ_ATTRI_VALUE] = &a->value,
		[XFSJ_ATTRI_NEW_VALUE] = &a->new_value,
	};
	uint16_t i = 1;
	int err;

	if (pi->nreg != xfsj_attri_fmt_nregions(a->fmt.op))
		return bad(pi, "size (regions)", pi->nreg, f);
	for (unsigned int k = 0; k < n; k++) {
		err = take_region(pi, &i, &s[k], at[s[k].part], f);
		if (!err)
			err = check_part(fs, pi, a, &s[k], *at[s[k].part], f);
		if (err)
			return err;
	}
	if (i != pi->nreg)
		return bad(pi, "size (regions)", pi->nreg, f);
	return 0;
}

/* The kernel's xfs_inode_hasattr: a fork that holds something. */
static bool has_attrs(const struct xfsj_iref *ip)
{
	if (!ip->di.forkoff)
		return false;
	return !(ip->di.aformat == XFSJ_DINODE_FMT_EXTENTS &&
		 xfsj_dinode_anextents(&ip->di) == 0);
}

/* Set (remove any old one first) and note that the inode changed. */
static int do_set(struct xfsj_fs *fs, struct xfsj_iref *ip,
		  const struct xfsj_attr_arg *arg, bool *dirty,
		  struct xfsj_fault *f)
{
	*dirty = true;
	return xfsj_attr_set(fs, ip, arg, XFSJ_ATTR_UPSERT, f);
}

static int do_remove(struct xfsj_fs *fs, struct xfsj_iref *ip,
		     const struct xfsj_attr_arg *arg, bool *dirty,
		     struct xfsj_fault *f)
{
	bool found = false;
	int err = xfsj_attr_remove(fs, ip, arg, &found, f);

	if (found)
		*dirty = true;
	return err;
}

static int apply(struct xfsj_fs *fs, struct xfsj_iref *ip,
		 const struct attri *a, bool *dirty, struct xfsj_fault *f)
{
	struct xfsj_attr_arg old = {
		.ns = (uint8_t)(a->fmt.filter & XFSJ_ATTRI_FILTER_NS),
		.name = a->name, .namelen = a->fmt.name_len,
		.value = a->value, .valuelen = a->fmt.value_len,
		.recovery = true,
	};
	struct xfsj_attr_arg new = old;
	bool found = false;

	switch (a->fmt.op) {
	case XFSJ_ATTRI_OP_SET:
	case XFSJ_ATTRI_OP_REPLACE:
	case XFSJ_ATTRI_OP_PPTR_SET:
		/* No attribute fork: the kernel's add state is "done". */
		if (!ip->di.forkoff)
			return 0;
		return do_set(fs, ip, &old, dirty, f);
	case XFSJ_ATTRI_OP_REMOVE:
	case XFSJ_ATTRI_OP_PPTR_REMOVE:
		if (!has_attrs(ip))
			return 0;
		old.value = a->fmt.op == XFSJ_ATTRI_OP_REMOVE ? NULL : a->value;
		return do_remove(fs, ip, &old, dirty, f);
	case XFSJ_ATTRI_OP_PPTR_REPLACE:
		if (!ip->di.forkoff)
			return 0;
		/* Empty fork: the kernel adds the old pair (see above). */
		if (!has_attrs(ip))
			return do_set(fs, ip, &old, dirty, f);
		new.name = a->new_name;
		new.namelen = a->fmt.new_name_len;
		new.value = a->new_value;
		new.valuelen = a->fmt.new_value_len;
		/*
		 * One replace, not a remove then a set: removing the old
		 * pair may empty a leaf, and the kernel keeps the fork
		 * (and its offset) for the new pair.
		 */
		*dirty = true;
		return xfsj_attr_replace(fs, ip, &old, &new, &found, f);
	}
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, ITEM, "op_flags", 0,
			      a->fmt.op);
}

int xfsj_attri_recover(struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		       struct xfsj_fault *f)
{
	struct xfsj_iref ip;
	struct attri a;
	bool dirty = false;
	int err;

	err = check_format(fs, pi, &a, f);
	if (!err)
		err = check_regions(fs, pi, &a, f);
	if (err)
		return err;
	/*
	 * Logged xattr ops never carry the incomplete flag; what the kernel
	 * would do with one (look for and add incomplete entries) is not
	 * something we model.
	 */
	if (a.fmt.filter & XFSJ_ATTRI_FILTER_INCOMPLETE)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, ITEM,
				      "attr_filter (INCOMPLETE)", pi->lsn,
				      a.fmt.filter);

	err = xfsj_iget(fs, a.fmt.ino, false, &ip, f);
	if (err)
		return err;
	/* The kernel's iget finds no inode there: corruption. */
	if ((ip.di.mode & S_IFMT) == 0)
		return bad(pi, "ino (inode not in use)", a.fmt.ino, f);
	if (a.fmt.pptr && ip.di.gen != a.fmt.igen)
		return bad(pi, "igen", a.fmt.igen, f);

	err = apply(fs, &ip, &a, &dirty, f);
	if (err)
		return err;
	if (dirty)
		xfsj_iput(fs, &ip, true);
	return 0;
}
