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

#define NAME_MAX_LEN	255U		/* XATTR_NAME_MAX; MAXNAMELEN - 1 */
#define VALUE_MAX_LEN	65536U		/* XATTR_SIZE_MAX */
#define FILTER_NS	(XFSJ_ATTR_NS_ROOT | XFSJ_ATTR_NS_SECURE | \
			 XFSJ_ATTR_NS_PARENT)
#define FILTER_MASK	(FILTER_NS | XFSJ_ATTRI_FILTER_INCOMPLETE)

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
	if (len == 0 || len > NAME_MAX_LEN)
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

struct attri {
	uint32_t igen;
	uint64_t ino;
	uint32_t op;
	uint32_t filter;
	uint32_t name_len, new_name_len, value_len, new_value_len;
	const uint8_t *name, *new_name, *value, *new_value;
};

static int bad(const struct xfsj_pending_intent *pi, const char *field,
	       uint64_t val, struct xfsj_fault *f)
{
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, ITEM, field, pi->lsn, val);
}

static bool popcount_le1(uint32_t v)
{
	return (v & (v - 1)) == 0;
}

/* The format region alone (the kernel's xfs_attri_validate). */
static int check_format(const struct xfsj_fs *fs,
			const struct xfsj_pending_intent *pi, struct attri *a,
			struct xfsj_fault *f)
{
	const struct xfsj_sb *sb = xfsj_fs_sb(fs);
	const uint8_t *p = pi->fmt;
	uint32_t op_flags;
	bool pptr_fs = sb->features_incompat & XFSJ_INCOMPAT_PARENT;
	bool larp = sb->features_log_incompat & XFSJ_LOG_INCOMPAT_XATTRS;

	if (!p || pi->len != XFSJ_ATTRI_FMT_SIZE || pi->nreg < 1 || !pi->regs)
		return bad(pi, "size", pi->len, f);
	memset(a, 0, sizeof(*a));
	a->igen = xfsj_get_le32(p + 4);
	a->ino = xfsj_get_le64(p + 16);
	op_flags = xfsj_get_le32(p + 24);
	a->value_len = xfsj_get_le32(p + 32);
	a->filter = xfsj_get_le32(p + 36);
	a->op = op_flags & 0xffU;
	if (op_flags & ~0xffU)
		return bad(pi, "op_flags", op_flags, f);
	if (a->filter & ~FILTER_MASK)
		return bad(pi, "attr_filter", a->filter, f);
	if (!popcount_le1(a->filter & FILTER_NS))
		return bad(pi, "attr_filter", a->filter, f);

	switch (a->op) {
	case XFSJ_ATTRI_OP_PPTR_SET:
	case XFSJ_ATTRI_OP_PPTR_REMOVE:
		a->name_len = xfsj_get_le32(p + 28);
		if (!pptr_fs)
			return bad(pi, "op_flags (no parent pointers)", a->op, f);
		if (a->value_len != XFSJ_ATTR_PPTR_VALUE_LEN)
			return bad(pi, "value_len", a->value_len, f);
		if (!(a->filter & XFSJ_ATTR_NS_PARENT))
			return bad(pi, "attr_filter", a->filter, f);
		break;
	case XFSJ_ATTRI_OP_SET:
	case XFSJ_ATTRI_OP_REPLACE:
		a->name_len = xfsj_get_le32(p + 28);
		if (!larp)
			return bad(pi, "op_flags (logged xattrs off)", a->op, f);
		if (a->value_len > VALUE_MAX_LEN)
			return bad(pi, "value_len", a->value_len, f);
		break;
	case XFSJ_ATTRI_OP_REMOVE:
		a->name_len = xfsj_get_le32(p + 28);
		if (!larp)
			return bad(pi, "op_flags (logged xattrs off)", a->op, f);
		if (a->value_len != 0)
			return bad(pi, "value_len", a->value_len, f);
		break;
	case XFSJ_ATTRI_OP_PPTR_REPLACE:
		/* Two host-order u16 lengths share the name_len word. */
		a->name_len = xfsj_get_le16(p + 28);
		a->new_name_len = xfsj_get_le16(p + 30);
		a->new_value_len = a->value_len;
		if (!pptr_fs)
			return bad(pi, "op_flags (no parent pointers)", a->op, f);
		if (a->new_name_len == 0 || a->new_name_len > NAME_MAX_LEN)
			return bad(pi, "new_name_len", a->new_name_len, f);
		if (a->value_len != XFSJ_ATTR_PPTR_VALUE_LEN)
			return bad(pi, "value_len", a->value_len, f);
		if (!(a->filter & XFSJ_ATTR_NS_PARENT))
			return bad(pi, "attr_filter", a->filter, f);
		break;
	default:
		return bad(pi, "op_flags", a->op, f);
	}
	if (a->name_len == 0 || a->name_len > NAME_MAX_LEN)
		return bad(pi, "name_len", a->name_len, f);
	if (!xfsj_intent_ino_ok(fs, a->ino))
		return bad(pi, "ino", a->ino, f);
	return 0;
}

/*
 * Take the next region as a name or value of @len bytes: the region is
 * exactly @len rounded up to 4 bytes (the kernel's xlog_calc_iovec_len).
 */
static int take_region(const struct xfsj_pending_intent *pi, uint16_t *i,
		       uint32_t len, const char *what, const uint8_t **out,
		       struct xfsj_fault *f)
{
	const struct xfsj_region *r;

	if (*i >= pi->nreg)
		return bad(pi, "size (regions)", pi->nreg, f);
	r = &pi->regs[*i];
	if (!r->p || r->len != ((uint64_t)len + 3) / 4 * 4)
		return bad(pi, what, r->len, f);
	*out = r->p;
	(*i)++;
	return 0;
}

static int check_value(const struct xfsj_fs *fs,
		       const struct xfsj_pending_intent *pi,
		       const struct attri *a, const uint8_t *v,
		       struct xfsj_fault *f)
{
	if (!(a->filter & XFSJ_ATTR_NS_PARENT))
		return 0;
	if (!dir_ino_ok(fs, xfsj_get_be64(v)))
		return bad(pi, "parent pointer value (p_ino)",
			   xfsj_get_be64(v), f);
	return 0;
}

/* The regions after the format (the kernel's commit_pass2 checks). */
static int check_regions(const struct xfsj_fs *fs,
			 const struct xfsj_pending_intent *pi, struct attri *a,
			 struct xfsj_fault *f)
{
	uint16_t want, i = 1;
	int err;

	switch (a->op) {
	case XFSJ_ATTRI_OP_REMOVE:
		want = 2;
		break;
	case XFSJ_ATTRI_OP_PPTR_REPLACE:
		want = 5;
		break;
	default:
		/* SET and REPLACE too: the kernel wants a value region. */
		want = 3;
		break;
	}
	if (pi->nreg != want)
		return bad(pi, "size (regions)", pi->nreg, f);
	err = take_region(pi, &i, a->name_len, "name region", &a->name, f);
	if (err)
		return err;
	if (!name_ok(a->filter, a->name, a->name_len))
		return bad(pi, "name", a->name_len, f);
	if (a->new_name_len) {
		err = take_region(pi, &i, a->new_name_len, "new name region",
				  &a->new_name, f);
		if (err)
			return err;
		if (!name_ok(a->filter, a->new_name, a->new_name_len))
			return bad(pi, "new name", a->new_name_len, f);
	}
	if (a->value_len) {
		err = take_region(pi, &i, a->value_len, "value region",
				  &a->value, f);
		if (!err)
			err = check_value(fs, pi, a, a->value, f);
		if (err)
			return err;
	}
	if (a->new_value_len) {
		err = take_region(pi, &i, a->new_value_len, "new value region",
				  &a->new_value, f);
		if (!err)
			err = check_value(fs, pi, a, a->new_value, f);
		if (err)
			return err;
	}
	if (i != pi->nreg)
		return bad(pi, "size (regions)", pi->nreg, f);
	return 0;
}

static bool is_pptr_op(uint32_t op)
{
	return op == XFSJ_ATTRI_OP_PPTR_SET || op == XFSJ_ATTRI_OP_PPTR_REMOVE ||
	       op == XFSJ_ATTRI_OP_PPTR_REPLACE;
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
		.ns = (uint8_t)(a->filter & FILTER_NS),
		.name = a->name, .namelen = a->name_len,
		.value = a->value, .valuelen = a->value_len,
		.recovery = true,
	};
	struct xfsj_attr_arg new = old;
	bool found = false;

	switch (a->op) {
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
		old.value = a->op == XFSJ_ATTRI_OP_REMOVE ? NULL : a->value;
		return do_remove(fs, ip, &old, dirty, f);
	case XFSJ_ATTRI_OP_PPTR_REPLACE:
		if (!ip->di.forkoff)
			return 0;
		/* Empty fork: the kernel adds the old pair (see above). */
		if (!has_attrs(ip))
			return do_set(fs, ip, &old, dirty, f);
		new.name = a->new_name;
		new.namelen = a->new_name_len;
		new.value = a->new_value;
		new.valuelen = a->new_value_len;
		/*
		 * One replace, not a remove then a set: removing the old
		 * pair may empty a leaf, and the kernel keeps the fork
		 * (and its offset) for the new pair.
		 */
		*dirty = true;
		return xfsj_attr_replace(fs, ip, &old, &new, &found, f);
	}
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, ITEM, "op_flags", 0, a->op);
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
	if (a.filter & XFSJ_ATTRI_FILTER_INCOMPLETE)
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, ITEM,
				      "attr_filter (INCOMPLETE)", pi->lsn,
				      a.filter);

	err = xfsj_iget(fs, a.ino, false, &ip, f);
	if (err)
		return err;
	/* The kernel's iget finds no inode there: corruption. */
	if ((ip.di.mode & S_IFMT) == 0)
		return bad(pi, "ino (inode not in use)", a.ino, f);
	if (is_pptr_op(a.op) && ip.di.gen != a.igen)
		return bad(pi, "igen", a.igen, f);

	err = apply(fs, &ip, &a, &dirty, f);
	if (err)
		return err;
	if (dirty)
		xfsj_iput(fs, &ip, true);
	return 0;
}
