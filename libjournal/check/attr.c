/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Phase 06: the attribute fork of one in-use inode, after its mappings
 * were checked (forks.c): the short form in the inode here, leaf and node
 * blocks and remote values in attr_blk.c; the rules of one attribute and
 * of parent pointers here, for both.
 *
 * Every problem names the attribute (its name when it can be read, and
 * the on-disk field as xfs_db names it: "sfattr.list[3].flags",
 * "ablock 2: entries[7].hashval"), so that a repair can drop that one
 * entry and keep the others: xfs_repair 6.13 clears the whole fork.
 *
 * Parent pointers (the parent namespace, with the parent feature): each
 * good one is recorded in ck->pptrs as {child: this inode, parent: the
 * value's be64 inode, namehash: xfsj_da_hashname of the name (the entry
 * name in the parent directory), parent_gen: the value's be32
 * generation, namelen}, INCOMPLETE ones and those whose value or name is
 * bad left out; names.c matches them with the directory entries.
 */
#include <stdio.h>
#include <string.h>

#include "check/attr_priv.h"
#include "fs/attr.h"
#include "core/layout.h"

#define ROW(code, num, sev, st, msg, fix, ...) \
	{ code, num, XFSJ_SEV_##sev, st, msg, XFSJ_FIX_##fix, __VA_ARGS__ }

const struct xfsj_problem_def xck_attr_rows[AT__N] = {
	[AT_FORMAT] = ROW("attr.format", 0x060001, CORRUPT, "inode",
		"inode {ino}: attribute fork format {found} is not local, "
		"extents or btree", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_SF_SMALL] = ROW("attr.sf.small", 0x060101, CORRUPT,
		"attr short form", "inode {ino}: {field} {found} is smaller "
		"than the short-form header ({expected} bytes)", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_SF_TOTSIZE_BIG] = ROW("attr.sf.totsize_big", 0x060102, CORRUPT,
		"attr short form", "inode {ino}: {field} {found} is larger "
		"than the attribute fork ({expected} bytes)", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_SF_COUNT] = ROW("attr.sf.count", 0x060103, CORRUPT,
		"attr short form", "inode {ino}: {field} {found}, but "
		"{expected} entries fit in totsize", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_SF_TOTSIZE] = ROW("attr.sf.totsize", 0x060104, CORRUPT,
		"attr short form", "inode {ino}: {field} {found}, but the "
		"entries end at {expected}", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_SF_NAMELEN] = ROW("attr.sf.namelen", 0x060105, CORRUPT,
		"attr short form", "inode {ino}: {field} is 0: the entries "
		"from {off} on cannot be found", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_SF_PAST_END] = ROW("attr.sf.past_end", 0x060106, CORRUPT,
		"attr short form", "inode {ino}: attribute {field} ends at "
		"byte {found}, past totsize {expected}", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_FLAGS] = ROW("attr.flags", 0x060201, CORRUPT, "attribute",
		"inode {ino}: attribute {name} ({field}) has unknown flags "
		"{xfound}", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_NAMESPACE] = ROW("attr.namespace", 0x060202, CORRUPT,
		"attribute", "inode {ino}: attribute {name} ({field}) is in "
		"several namespaces ({xfound})", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_INCOMPLETE] = ROW("attr.incomplete", 0x060203, CORRUPT,
		"attribute", "inode {ino}: attribute {name} ({field}) is "
		"INCOMPLETE: a set or removal that never finished",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_NAMELEN] = ROW("attr.namelen", 0x060204, CORRUPT, "attribute",
		"inode {ino}: attribute {field} has an empty name",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_NAME] = ROW("attr.name", 0x060205, CORRUPT, "attribute",
		"inode {ino}: attribute {name} ({field}) has a byte its "
		"namespace forbids in its name (NUL; '/' in a parent pointer)",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_DUP] = ROW("attr.duplicate", 0x060206, CORRUPT, "attribute",
		"inode {ino}: attribute {name} ({field}) is there twice in "
		"its namespace", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_PPTR_NOFEAT] = ROW("attr.pptr.nofeature", 0x060207, CORRUPT,
		"parent pointer", "inode {ino}: parent pointer {name} "
		"({field}) on a filesystem without parent pointers",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_PPTR_VALUE] = ROW("attr.pptr.value", 0x060208, CORRUPT,
		"parent pointer", "inode {ino}: parent pointer {name} "
		"({field}) has a {found}-byte value, expected {expected}",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_PPTR_PARENT] = ROW("attr.pptr.parent", 0x060209, CORRUPT,
		"parent pointer", "inode {ino}: parent pointer {name} "
		"({field}) names parent inode {found}, not an inode number",
		PPTR,
		XFSJ_H_PPTR_BAD_PARENT, 0),
	[AT_PPTR_REMOTE] = ROW("attr.pptr.remote", 0x06020a, CORRUPT,
		"parent pointer", "inode {ino}: parent pointer {name} "
		"({field}) keeps its value in remote blocks", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_BLK_MISSING] = ROW("attr.blk.missing", 0x060301, CORRUPT,
		"attr fork", "inode {ino}: attribute fork block {off} is not "
		"mapped ({field})", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_BLK_CRC] = ROW("attr.blk.crc", 0x060302, CORRUPT, "attr block",
		"inode {ino}: attr block {off} (fsbno {fsbno}): bad CRC",
		FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_BLK_MAGIC] = ROW("attr.blk.magic", 0x060303, CORRUPT,
		"attr block", "inode {ino}: attr block {off} (fsbno {fsbno}): "
		"{field} {xfound}, expected {xexpected}", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_BLK_UUID] = ROW("attr.blk.uuid", 0x060304, CORRUPT, "attr block",
		"inode {ino}: attr block {off} (fsbno {fsbno}): {field} is "
		"not the filesystem's", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_BLK_OWNER] = ROW("attr.blk.owner", 0x060305, CORRUPT,
		"attr block", "inode {ino}: attr block {off} (fsbno {fsbno}): "
		"{field} {found}, expected {expected}", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_BLK_BLKNO] = ROW("attr.blk.blkno", 0x060306, CORRUPT,
		"attr block", "inode {ino}: attr block {off} (fsbno {fsbno}): "
		"{field} {found}, expected {expected}", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_BLK_SIBLING] = ROW("attr.blk.sibling", 0x060307, CORRUPT,
		"attr block", "inode {ino}: attr block {off}: {field} "
		"{found}, expected {expected}", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_BLK_SHARED] = ROW("attr.blk.shared", 0x060308, CORRUPT,
		"attr fork", "inode {ino}: attr fork block {off} is used "
		"twice (again by {field})", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_BLK_PAD] = ROW("attr.blk.pad", 0x060309, CORRUPT, "attr block",
		"inode {ino}: attr block {off}: {field} is {xfound}, not 0",
		FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_LEAF_COUNT] = ROW("attr.leaf.count", 0x060401, CORRUPT,
		"attr leaf", "inode {ino}: attr block {off}: {field} {found}, "
		"expected 1 to {expected}", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_LEAF_EMPTY] = ROW("attr.leaf.empty", 0x060402, INFO,
		"attr leaf", "inode {ino}: attr block 0 is an empty leaf (a "
		"crash between a fork conversion and its set)", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_LEAF_FIRSTUSED] = ROW("attr.leaf.firstused", 0x060403, CORRUPT,
		"attr leaf", "inode {ino}: attr block {off}: {field} {found}, "
		"expected {expected}", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_LEAF_USED] = ROW("attr.leaf.usedbytes", 0x060404, CORRUPT,
		"attr leaf", "inode {ino}: attr block {off}: {field} {found}, "
		"the entries use {expected}", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_LEAF_FREEMAP] = ROW("attr.leaf.freemap", 0x060405, CORRUPT,
		"attr leaf", "inode {ino}: attr block {off}: {field} {found} "
		"is past the block end or not a multiple of 4", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_LEAF_FREEMAP_USED] = ROW("attr.leaf.freemap_used", 0x060406,
		CORRUPT, "attr leaf", "inode {ino}: attr block {off}: {field} "
		"marks bytes in use (or free twice) as free", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_LEAF_NAMEIDX] = ROW("attr.leaf.nameidx", 0x060407, CORRUPT,
		"attr leaf", "inode {ino}: attr block {off}: {field} {found} "
		"is outside the names area ({expected} to the block end)",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_LEAF_HASHORDER] = ROW("attr.leaf.hashorder", 0x060408, CORRUPT,
		"attr leaf", "inode {ino}: attribute {name} ({field}): hash "
		"{xfound} is below the one before ({xexpected})",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_LEAF_HASHVAL] = ROW("attr.leaf.hashval", 0x060409, CORRUPT,
		"attr leaf", "inode {ino}: attribute {name} ({field}): hash "
		"{xfound}, the name hashes to {xexpected}", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_LEAF_NAME_PAST] = ROW("attr.leaf.name_past", 0x06040a, CORRUPT,
		"attr leaf", "inode {ino}: attribute {field} ends at byte "
		"{found}, past the block end ({expected})", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_LEAF_OVERLAP] = ROW("attr.leaf.overlap", 0x06040b, CORRUPT,
		"attr leaf", "inode {ino}: attribute {name} ({field}) shares "
		"bytes with another entry", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_RMT_VALUEBLK] = ROW("attr.rmt.valueblk", 0x060501, CORRUPT,
		"attr remote value", "inode {ino}: attribute {name} "
		"({field}): remote value at block 0", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_RMT_VALUELEN] = ROW("attr.rmt.valuelen", 0x060502, CORRUPT,
		"attr remote value", "inode {ino}: attribute {name} "
		"({field}): value of {found} bytes, at most {expected}",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_RMT_MISSING] = ROW("attr.rmt.missing", 0x060503, CORRUPT,
		"attr remote value", "inode {ino}: attribute {name} "
		"({field}): remote value block {off} is not mapped",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_RMT_HEADER] = ROW("attr.rmt.header", 0x060504, CORRUPT,
		"attr remote value", "inode {ino}: attribute {name}: remote "
		"value block {off} (fsbno {fsbno}): {field} is wrong",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_NODE_COUNT] = ROW("attr.node.count", 0x060601, CORRUPT,
		"attr node", "inode {ino}: attr block {off}: {field} {found}, "
		"expected 1 to {expected}", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_NODE_LEVEL] = ROW("attr.node.level", 0x060602, CORRUPT,
		"attr node", "inode {ino}: attr block {off}: {field} {found}, "
		"expected {expected}", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_NODE_HASHORDER] = ROW("attr.node.hashorder", 0x060603, CORRUPT,
		"attr node", "inode {ino}: attr block {off}: {field} {xfound} "
		"is below the one before ({xexpected})", SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
	[AT_NODE_HASHVAL] = ROW("attr.node.hashval", 0x060604, CORRUPT,
		"attr node", "inode {ino}: attr block {off}: {field} "
		"{xfound}, the child's last hash is {xexpected}", FIELD,
		XFSJ_H_ATTR_FIELD, 0),
	[AT_NODE_BEFORE] = ROW("attr.node.before", 0x060605, CORRUPT,
		"attr node", "inode {ino}: attr block {off}: {field} {found} "
		"is block 0, a block seen before or no attr block",
		SALVAGE_ATTR,
		XFSJ_H_SALVAGE_ATTR, 0),
};
const struct xck_table xck_attr_table = { xck_attr_rows, AT__N };

void xck_attr_report(struct xck_aw *w, int row, unsigned int has,
		     const struct xfsj_problem *more)
{
	struct xfsj_problem p = *more;

	p.def = &xck_attr_rows[row];
	p.has = has | XFSJ_PF_INO;
	p.ino = w->ic->ino;
	p.field = w->field;
	xck_report(w->ck, &p);
}

/* ---- one attribute ---- */

#define FLAGS_KNOWN	(XFSJ_ATTR_NS_MASK | XFSJ_ATTR_FLAG_LOCAL | \
			 XFSJ_ATTR_FLAG_INCOMPLETE)

static void entry_report(struct xck_aw *w, const struct xck_aent *e, int row,
			 unsigned int has, uint64_t expected, uint64_t found)
{
	xck_attr_report(w, row, has, &(struct xfsj_problem){
		.name = (const char *)e->name, .namelen = e->namelen,
		.expected = expected, .found = found });
}

static void pptr_record(struct xck_aw *w, const struct xck_aent *e)
{
	struct xck_pptr pp = { 0 };
	uint64_t parent = xfsj_get_be64(e->value);

	if (!xck_ino_valid(w->ck, parent)) {
		entry_report(w, e, AT_PPTR_PARENT, XFSJ_PF_FOUND, 0, parent);
		return;
	}
	pp.child = w->ic->ino;
	pp.parent = parent;
	pp.namehash = xfsj_da_hashname(e->name, e->namelen);
	pp.parent_gen = xfsj_get_be32(e->value + 8);
	pp.namelen = e->namelen;
	/* Out of memory is the caller's next allocation's to report. */
	(void)xck_vec_push(w->ck, &w->ck->pptrs, &pp);
}

bool xck_attr_entry(struct xck_aw *w, const struct xck_aent *e)
{
	uint8_t ns = e->flags & XFSJ_ATTR_NS_MASK;
	bool ok = true;

	w->ck->res->work[XFSJ_WK_ATTRS]++;
	if (e->namelen == 0) {
		entry_report(w, e, AT_NAMELEN, 0, 0, 0);
		return false;
	}
	if (e->flags & ~FLAGS_KNOWN) {
		entry_report(w, e, AT_FLAGS, XFSJ_PF_FOUND, 0, e->flags);
		ok = false;
	}
	if (ns & (ns - 1)) {
		entry_report(w, e, AT_NAMESPACE, XFSJ_PF_FOUND, 0, ns);
		return false;
	}
	/* xfs_attr_namecheck: no NUL; parent pointers: a directory name. */
	if (memchr(e->name, 0, e->namelen) ||
	    (ns == XFSJ_ATTR_NS_PARENT && memchr(e->name, '/', e->namelen))) {
		entry_report(w, e, AT_NAME, 0, 0, 0);
		ok = false;
	}
	if (e->flags & XFSJ_ATTR_FLAG_INCOMPLETE) {
		entry_report(w, e, AT_INCOMPLETE, 0, 0, 0);
		return false;
	}
	if (ns != XFSJ_ATTR_NS_PARENT)
		return ok;
	if (!w->has_parent) {
		entry_report(w, e, AT_PPTR_NOFEAT, 0, 0, 0);
		return false;
	}
	if (!e->value) {
		entry_report(w, e, AT_PPTR_REMOTE, 0, 0, 0);
		return false;
	}
	if (e->valuelen != XFSJ_ATTR_PPTR_VALUE_LEN) {
		entry_report(w, e, AT_PPTR_VALUE,
			     XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
			     XFSJ_ATTR_PPTR_VALUE_LEN, e->valuelen);
		return false;
	}
	if (ok)
		pptr_record(w, e);
	return ok;
}

bool xck_attr_same(const struct xck_aent *a, const struct xck_aent *b)
{
	uint8_t ns = a->flags & XFSJ_ATTR_NS_MASK;

	if (ns != (b->flags & XFSJ_ATTR_NS_MASK) || a->namelen != b->namelen ||
	    memcmp(a->name, b->name, a->namelen))
		return false;
	/* One name may point at several parents. */
	if (ns != XFSJ_ATTR_NS_PARENT)
		return true;
	return a->value && b->value && a->valuelen == b->valuelen &&
	       !memcmp(a->value, b->value, a->valuelen);
}

/* ---- the short form (struct xfs_attr_shortform, fs/attr.c) ---- */

#define SF_HDR	XFSJ_ATTR_SF_HDR_SIZE
#define SF_ENT	XFSJ_ATTR_SF_ENTRY_HDR

static void sf_field(struct xck_aw *w, uint32_t i, const char *what)
{
	snprintf(w->field, sizeof(w->field), "sfattr.list[%u].%s", i, what);
}

/* No two good entries with the same name in one namespace. */
static void sf_dups(struct xck_aw *w, const struct xck_aent *ents,
		    const uint32_t *idx, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		for (uint32_t j = 0; j < i; j++) {
			if (!xck_attr_same(&ents[i], &ents[j]))
				continue;
			snprintf(w->field, sizeof(w->field),
				 "sfattr.list[%u]", idx[i]);
			entry_report(w, &ents[i], AT_DUP, 0, 0, 0);
			break;
		}
	}
}

static int check_sf(struct xck_aw *w)
{
	const uint8_t *p = w->ic->fork[XFSJ_ATTR_FORK];
	uint32_t asize = w->ic->forksize[XFSJ_ATTR_FORK];
	uint32_t totsize, count, end, off = SF_HDR, i, ngood = 0;
	struct xck_aent ents[256];	/* count is 8 bits */
	uint32_t idx[256];

	if (asize < SF_HDR) {
		strcpy(w->field, "attr fork size");
		xck_attr_report(w, AT_SF_SMALL,
				XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
				&(struct xfsj_problem){ .expected = SF_HDR,
							.found = asize });
		return 0;
	}
	totsize = xfsj_get_be16(p);
	count = p[2];
	end = totsize;
	strcpy(w->field, "sfattr.hdr.totsize");
	if (totsize < SF_HDR) {
		xck_attr_report(w, AT_SF_SMALL,
				XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
				&(struct xfsj_problem){ .expected = SF_HDR,
							.found = totsize });
		return 0;
	}
	if (totsize > asize) {
		xck_attr_report(w, AT_SF_TOTSIZE_BIG,
				XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
				&(struct xfsj_problem){ .expected = asize,
							.found = totsize });
		end = asize;
	}
	for (i = 0; i < count; i++) {
		struct xck_aent e;
		uint32_t size;

		/* The kernel's verifier: the fixed part before the end. */
		if (off + SF_ENT >= end)
			break;
		e.namelen = p[off];
		e.valuelen = p[off + 1];
		e.flags = p[off + 2];
		e.name = p + off + SF_ENT;
		e.value = e.name + e.namelen;
		size = SF_ENT + e.namelen + e.valuelen;
		if (e.namelen == 0) {
			sf_field(w, i, "namelen");
			xck_attr_report(w, AT_SF_NAMELEN, XFSJ_PF_OFF,
					&(struct xfsj_problem){ .off = i });
			return 0;
		}
		if (off + size > end) {
			sf_field(w, i, "valuelen");
			xck_attr_report(w, AT_SF_PAST_END,
					XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
					&(struct xfsj_problem){
						.expected = end,
						.found = off + size });
			return 0;
		}
		snprintf(w->field, sizeof(w->field), "sfattr.list[%u]", i);
		if (xck_attr_entry(w, &e)) {
			ents[ngood] = e;
			idx[ngood++] = i;
		}
		off += size;
	}
	if (i != count) {
		strcpy(w->field, "sfattr.hdr.count");
		xck_attr_report(w, AT_SF_COUNT,
				XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
				&(struct xfsj_problem){ .expected = i,
							.found = count });
	} else if (off != totsize && totsize <= asize) {
		strcpy(w->field, "sfattr.hdr.totsize");
		xck_attr_report(w, AT_SF_TOTSIZE,
				XFSJ_PF_EXPECTED | XFSJ_PF_FOUND,
				&(struct xfsj_problem){ .expected = off,
							.found = totsize });
	}
	sf_dups(w, ents, idx, ngood);
	return 0;
}

int xck_attr(struct xck *ck, struct xck_icheck *ic)
{
	struct xck_aw w = { .ck = ck, .ic = ic, .bs = ck->sb->blocksize };
	struct xfsj_vctx v;

	ck->res->attr_forks++;
	xfsj_fs_vctx(ck->fs, 0, &v);
	memcpy(w.uuid, v.uuid, sizeof(w.uuid));
	w.has_parent = v.features_incompat & XFSJ_INCOMPAT_PARENT;
	switch (ic->di.aformat) {
	case XFSJ_DINODE_FMT_LOCAL:
		return check_sf(&w);
	case XFSJ_DINODE_FMT_EXTENTS:
	case XFSJ_DINODE_FMT_BTREE:
		return xck_attr_blocks(&w);
	default:
		strcpy(w.field, "core.aformat");
		xck_attr_report(&w, AT_FORMAT, XFSJ_PF_FOUND,
				&(struct xfsj_problem){
					.found = ic->di.aformat });
		return 0;
	}
}
