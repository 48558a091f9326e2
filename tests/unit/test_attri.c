/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ATTRI and XMI recovery on a fresh in-memory filesystem.  Intents are
 * built by hand, little-endian as Linux on x86 logs them, and applied to
 * regular files made from free inodes of the root's chunk:
 *  - ATTRI: parent-pointer set/remove/replace (matched by name and
 *    value), logged user xattr set/replace/remove, the kernel's
 *    corner cases (no attribute fork, empty fork, missing attribute),
 *    and every refusal of a bad item (op, flags, filter, lengths,
 *    regions, names, values, inode, generation);
 *  - XMI: two small files exchanging their extents, resumed mid-way,
 *    INO1_WRITTEN, holes, sizes, reflink flags, and bad items; attribute
 *    forks exchanged, inode 2's leaf going back to short form at the
 *    end, a symlink's remote target going back inline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs_fixture.h"
#include "suites.h"
#include "fs/alloc.h"
#include "fs/attr.h"
#include "fs/attri.h"
#include "fs/bmap.h"
#include "fs/btree.h"
#include "core/crc32c.h"
#include "core/layout.h"

#define MB	(1ULL << 20)
#define GEN	3U

static const struct xfsj_sb *SB(struct fs_fixture *fx)
{
	return xfsj_fs_sb(fx->fs);
}

/* Turn a free inode of the root's chunk into an empty regular file. */
static uint64_t make_file(struct fs_fixture *fx, unsigned int slot,
			  uint64_t flags2, uint8_t forkoff)
{
	struct xfsj_iref ip;

	return fs_fixture_make_file(fx, slot, GEN, flags2, forkoff, &ip);
}

/* The features an intent needs, switched on in the handle's superblock. */
static void with_features(struct fs_fixture *fx, uint32_t incompat_clear,
			  uint32_t log_incompat)
{
	fx->sb.features_incompat &= ~incompat_clear;
	fx->sb.features_log_incompat |= log_incompat;
	fs_fixture_reopen(fx);
}

/* ---- ATTRI ---- */

struct item {
	uint8_t fmt[128];
	uint8_t buf[4][512];
	struct xfsj_region regs[5];
	struct xfsj_pending_intent pi;
};

/* Append a region of @len bytes padded to 4, as the kernel logs it. */
static void add_region(struct item *it, const void *p, uint32_t len)
{
	uint16_t k = it->pi.nreg;

	ck_assert_uint_lt(k, 5);
	ck_assert_uint_ge(k, 1);
	memset(it->buf[k - 1], 0, sizeof(it->buf[k - 1]));
	memcpy(it->buf[k - 1], p, len);
	it->regs[k].p = it->buf[k - 1];
	it->regs[k].len = (len + 3) / 4 * 4;
	it->pi.nreg++;
}

static void attri_init(struct item *it, uint32_t op, uint64_t ino,
		       uint32_t filter, const char *name, const void *value,
		       uint32_t vlen, const char *new_name,
		       const void *new_value)
{
	uint8_t *p = it->fmt;
	uint32_t nlen = (uint32_t)strlen(name);

	memset(it, 0, sizeof(*it));
	xfsj_put_le16(p, XFSJ_LI_ATTRI);
	xfsj_put_le32(p + 4, GEN);
	xfsj_put_le64(p + 8, 0xffff888812345678ULL);
	xfsj_put_le64(p + 16, ino);
	xfsj_put_le32(p + 24, op);
	if (new_name) {
		xfsj_put_le16(p + 28, (uint16_t)nlen);
		xfsj_put_le16(p + 30, (uint16_t)strlen(new_name));
	} else {
		xfsj_put_le32(p + 28, nlen);
	}
	xfsj_put_le32(p + 32, vlen);
	xfsj_put_le32(p + 36, filter);
	it->regs[0].p = it->fmt;
	it->regs[0].len = XFSJ_ATTRI_FMT_SIZE;
	it->pi.type = XFSJ_LI_ATTRI;
	it->pi.id = 1;
	it->pi.lsn = (1ULL << 32) | 100;
	it->pi.fmt = it->fmt;
	it->pi.len = XFSJ_ATTRI_FMT_SIZE;
	it->pi.regs = it->regs;
	it->pi.nreg = 1;
	add_region(it, name, nlen);
	if (new_name)
		add_region(it, new_name, (uint32_t)strlen(new_name));
	if (vlen)
		add_region(it, value, vlen);
	if (new_value)
		add_region(it, new_value, vlen);
	xfsj_put_le16(p + 2, it->pi.nreg);
}

static void pptr_rec(uint8_t v[12], uint64_t parent, uint32_t gen)
{
	xfsj_put_be64(v, parent);
	xfsj_put_be32(v + 8, gen);
}

static int attri_run(struct fs_fixture *fx, struct item *it)
{
	memset(&fx->f, 0, sizeof(fx->f));
	return xfsj_attri_recover(fx->fs, &it->pi, &fx->f);
}

/* Does @ino hold (ns, name[, value])? */
static bool has_attr(struct fs_fixture *fx, uint64_t ino, uint8_t ns,
		     const char *name, const void *value, uint32_t vlen)
{
	struct xfsj_attr_arg a = {
		.ns = ns, .name = (const uint8_t *)name,
		.namelen = (uint32_t)strlen(name),
		.value = value, .valuelen = vlen,
	};
	struct xfsj_iref ip;
	uint8_t got[256];
	uint32_t glen = sizeof(got);
	bool found = false;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_attr_get(fx->fs, &ip, &a, got, &glen, &found,
				       &fx->f), 0);
	if (found && value && !(ns & XFSJ_ATTR_NS_PARENT))
		return glen == vlen && memcmp(got, value, vlen) == 0;
	return found;
}

static int count_fn(void *arg, const struct xfsj_attr_arg *a)
{
	(void)a;
	(*(unsigned int *)arg)++;
	return 0;
}

static unsigned int nattrs(struct fs_fixture *fx, uint64_t ino)
{
	struct xfsj_iref ip;
	unsigned int n = 0;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_attr_list(fx->fs, &ip, count_fn, &n, &fx->f), 0);
	return n;
}

/* The kernel's default attribute fork offset for a 512-byte inode. */
#define FORKOFF	15

/* Parent pointers: set, set again, replace, remove, by name and value. */
START_TEST(pptr_ops)
{
	struct fs_fixture fx;
	struct item it;
	uint8_t v1[12], v2[12];
	uint64_t ino, root;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	root = fx.sb.rootino;
	ino = make_file(&fx, 10, 0, FORKOFF);
	pptr_rec(v1, root, 1);
	pptr_rec(v2, root + 40, 5);

	attri_init(&it, XFSJ_ATTRI_OP_PPTR_SET, ino, XFSJ_ATTR_NS_PARENT,
		   "a.txt", v1, 12, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert(has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, "a.txt", v1, 12));
	ck_assert_uint_eq(nattrs(&fx, ino), 1);
	/* Replayed again (the crash came after the set): still one. */
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino), 1);
	/* A hard link: the same name under another parent is another pptr. */
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_SET, ino, XFSJ_ATTR_NS_PARENT,
		   "a.txt", v2, 12, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino), 2);
	ck_assert(has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, "a.txt", v1, 12));
	ck_assert(has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, "a.txt", v2, 12));

	/* Rename a.txt in v2's directory to b.txt in v1's. */
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_REPLACE, ino, XFSJ_ATTR_NS_PARENT,
		   "a.txt", v2, 12, "b.txt", v1);
	ck_assert_uint_eq(it.pi.nreg, 5);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino), 2);
	ck_assert(!has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, "a.txt", v2, 12));
	ck_assert(has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, "a.txt", v1, 12));
	ck_assert(has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, "b.txt", v1, 12));
	/* Replayed after it was done: the old one is missing, new stays. */
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino), 2);

	/* Remove: by name and value; a missing one is fine. */
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_REMOVE, ino, XFSJ_ATTR_NS_PARENT,
		   "a.txt", v2, 12, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino), 2);
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_REMOVE, ino, XFSJ_ATTR_NS_PARENT,
		   "a.txt", v1, 12, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino), 1);
	ck_assert(has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, "b.txt", v1, 12));
	fs_fixture_free(&fx);
}
END_TEST

/* The kernel's corner cases around missing or empty attribute forks. */
START_TEST(pptr_fork_cases)
{
	struct fs_fixture fx;
	struct item it;
	struct xfsj_iref ip;
	uint8_t v1[12], v2[12], before[512];
	uint64_t ino, ino2;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	pptr_rec(v1, fx.sb.rootino, 1);
	pptr_rec(v2, fx.sb.rootino + 40, 5);

	/* No attribute fork: the add ends at once, nothing changes. */
	ino = make_file(&fx, 10, 0, 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	memcpy(before, ip.dip, SB(&fx)->inodesize);
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_SET, ino, XFSJ_ATTR_NS_PARENT,
		   "x", v1, 12, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_REMOVE, ino, XFSJ_ATTR_NS_PARENT,
		   "x", v1, 12, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_int_eq(memcmp(before, ip.dip, SB(&fx)->inodesize), 0);

	/* Replace on an empty fork adds the *old* pair, as the kernel does. */
	ino2 = make_file(&fx, 11, 0, FORKOFF);
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_REPLACE, ino2, XFSJ_ATTR_NS_PARENT,
		   "old", v1, 12, "new", v2);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino2), 1);
	ck_assert(has_attr(&fx, ino2, XFSJ_ATTR_NS_PARENT, "old", v1, 12));
	/* Now the fork holds something: the replace does its work. */
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino2), 1);
	ck_assert(has_attr(&fx, ino2, XFSJ_ATTR_NS_PARENT, "new", v2, 12));
	fs_fixture_free(&fx);
}
END_TEST

/* Enough parent pointers for a leaf block; replace and remove in it. */
START_TEST(pptr_leaf)
{
	struct fs_fixture fx;
	struct item it;
	struct xfsj_iref ip;
	uint8_t v1[12], v2[12];
	char name[32], name2[32];
	uint64_t ino;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 10, 0, FORKOFF);
	pptr_rec(v1, fx.sb.rootino, 1);
	pptr_rec(v2, fx.sb.rootino + 40, 5);
	for (int i = 0; i < 60; i++) {
		snprintf(name, sizeof(name), "link-number-%03d", i);
		attri_init(&it, XFSJ_ATTRI_OP_PPTR_SET, ino,
			   XFSJ_ATTR_NS_PARENT, name, v1, 12, NULL, NULL);
		ck_assert_int_eq(attri_run(&fx, &it), 0);
	}
	ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(xfsj_dinode_anextents(&ip.di), 1);
	ck_assert_uint_eq(nattrs(&fx, ino), 60);
	for (int i = 0; i < 60; i += 7) {
		snprintf(name, sizeof(name), "link-number-%03d", i);
		snprintf(name2, sizeof(name2), "renamed-%03d", i);
		attri_init(&it, XFSJ_ATTRI_OP_PPTR_REPLACE, ino,
			   XFSJ_ATTR_NS_PARENT, name, v1, 12, name2, v2);
		ck_assert_int_eq(attri_run(&fx, &it), 0);
		ck_assert(!has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, name, v1,
				    12));
		ck_assert(has_attr(&fx, ino, XFSJ_ATTR_NS_PARENT, name2, v2,
				   12));
	}
	ck_assert_uint_eq(nattrs(&fx, ino), 60);
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_REMOVE, ino, XFSJ_ATTR_NS_PARENT,
		   "renamed-007", v2, 12, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino), 59);
	fs_fixture_free(&fx);
}
END_TEST

/* Logged user/root/secure xattrs (LOG_XATTRS in the log-incompat bits). */
START_TEST(user_ops)
{
	struct fs_fixture fx;
	struct item it;
	uint64_t ino;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 10, 0, FORKOFF);
	/* Without the log-incompat bit the kernel calls it corruption. */
	attri_init(&it, XFSJ_ATTRI_OP_SET, ino, 0, "user.k", "v1", 2, NULL,
		   NULL);
	ck_assert_int_eq(attri_run(&fx, &it), -XFSJ_E_CORRUPT);
	with_features(&fx, 0, XFSJ_LOG_INCOMPAT_XATTRS);

	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert(has_attr(&fx, ino, 0, "user.k", "v1", 2));
	/* Set of an existing name replaces its value. */
	attri_init(&it, XFSJ_ATTRI_OP_SET, ino, 0, "user.k", "value2", 6,
		   NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert(has_attr(&fx, ino, 0, "user.k", "value2", 6));
	ck_assert_uint_eq(nattrs(&fx, ino), 1);
	/* Replace of a missing name adds it; namespaces are separate. */
	attri_init(&it, XFSJ_ATTRI_OP_REPLACE, ino, XFSJ_ATTR_NS_SECURE, "k",
		   "s", 1, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert(has_attr(&fx, ino, XFSJ_ATTR_NS_SECURE, "k", "s", 1));
	ck_assert_uint_eq(nattrs(&fx, ino), 2);
	/* Remove, then remove again (missing: fine). */
	attri_init(&it, XFSJ_ATTRI_OP_REMOVE, ino, 0, "user.k", NULL, 0, NULL,
		   NULL);
	ck_assert_uint_eq(it.pi.nreg, 2);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert(!has_attr(&fx, ino, 0, "user.k", NULL, 0));
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(nattrs(&fx, ino), 1);
	/* The incomplete flag is never logged: we do not guess. */
	attri_init(&it, XFSJ_ATTRI_OP_SET, ino, XFSJ_ATTRI_FILTER_INCOMPLETE,
		   "user.k", "v", 1, NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), -XFSJ_E_UNSUPP);
	fs_fixture_free(&fx);
}
END_TEST

static uint64_t ctime_of(struct fs_fixture *fx, uint64_t ino)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	return ip.di.ctime;
}

/*
 * A name the recovery adds in short form stamps the change time with the
 * handle's "now" (the kernel's short-form add does); a remove and an add
 * in leaf form keep the logged time.
 */
START_TEST(attri_stamps_sf_add)
{
	struct fs_fixture fx;
	struct item it;
	uint64_t ino, before, now;
	char name[32];
	bool big;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	with_features(&fx, 0, XFSJ_LOG_INCOMPAT_XATTRS);
	ino = make_file(&fx, 10, 0, FORKOFF);
	xfsj_fs_set_now(fx.fs, 1800000000, 7);
	{
		struct xfsj_iref ip;

		ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
		big = ip.di.flags2 & XFSJ_DIFLAG2_BIGTIME;
	}
	now = xfsj_time_encode(1800000000, 7, big);
	before = ctime_of(&fx, ino);
	ck_assert_uint_ne(before, now);
	attri_init(&it, XFSJ_ATTRI_OP_SET, ino, 0, "user.k", "v1", 2, NULL,
		   NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(ctime_of(&fx, ino), now);

	/* A remove does not stamp. */
	xfsj_fs_set_now(fx.fs, 1900000000, 0);
	attri_init(&it, XFSJ_ATTRI_OP_REMOVE, ino, 0, "user.k", NULL, 0, NULL,
		   NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(ctime_of(&fx, ino), now);

	/* Past short form (a leaf block), an add does not stamp either. */
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "user.long-name-number-%03d", i);
		attri_init(&it, XFSJ_ATTRI_OP_SET, ino, 0, name,
			   "some value here", 15, NULL, NULL);
		ck_assert_int_eq(attri_run(&fx, &it), 0);
	}
	{
		struct xfsj_iref ip;

		ck_assert_int_eq(xfsj_iget(fx.fs, ino, false, &ip, &fx.f), 0);
		ck_assert_uint_eq(ip.di.aformat, XFSJ_DINODE_FMT_EXTENTS);
	}
	/* The adds in short form before the leaf stamped 1900000000. */
	before = ctime_of(&fx, ino);
	ck_assert_uint_eq(before, xfsj_time_encode(1900000000, 0, big));
	xfsj_fs_set_now(fx.fs, 2000000000, 0);
	attri_init(&it, XFSJ_ATTRI_OP_SET, ino, 0, "user.one-more", "v", 1,
		   NULL, NULL);
	ck_assert_int_eq(attri_run(&fx, &it), 0);
	ck_assert_uint_eq(ctime_of(&fx, ino), before);
	fs_fixture_free(&fx);
}
END_TEST

/* Every refusal: corruption, nothing changed. */
START_TEST(attri_bad)
{
	struct fs_fixture fx;
	struct item it;
	uint8_t v1[12], bad_v[12];
	uint64_t ino, freeino;
	char longname[300];

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	ino = make_file(&fx, 10, 0, FORKOFF);
	freeino = fx.sb.rootino + 12;
	pptr_rec(v1, fx.sb.rootino, 1);
	pptr_rec(bad_v, 1ULL << 50, 1);
	memset(longname, 'n', sizeof(longname));
	longname[256] = 0;

#define PPTR(op, i, name) \
	attri_init(&it, op, i, XFSJ_ATTR_NS_PARENT, name, v1, 12, NULL, NULL)
#define REFUSED(field_part) do { \
		ck_assert_int_eq(attri_run(&fx, &it), -XFSJ_E_CORRUPT); \
		ck_assert_ptr_nonnull(strstr(fx.f.field, field_part)); \
	} while (0)

	PPTR(7, ino, "a");
	REFUSED("op_flags");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET | 0x100, ino, "a");
	REFUSED("op_flags");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a");
	xfsj_put_le32(it.fmt + 36, XFSJ_ATTR_NS_PARENT | 0x10);
	REFUSED("attr_filter");
	xfsj_put_le32(it.fmt + 36, XFSJ_ATTR_NS_PARENT | XFSJ_ATTR_NS_ROOT);
	REFUSED("attr_filter");
	/* A parent-pointer op outside the parent namespace. */
	xfsj_put_le32(it.fmt + 36, XFSJ_ATTR_NS_ROOT);
	REFUSED("attr_filter");
	/* Format size, name length 0 and past 255, value length. */
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a");
	it.pi.len = 36;
	REFUSED("size");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a");
	xfsj_put_le32(it.fmt + 28, 0);
	REFUSED("name_len");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, longname);
	REFUSED("name_len");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a");
	xfsj_put_le32(it.fmt + 32, 16);
	REFUSED("value_len");
	/* Regions: a length past the region, a missing one, an extra one. */
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "abcd");
	xfsj_put_le32(it.fmt + 28, 5);
	REFUSED("name region");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a");
	it.pi.nreg = 2;
	REFUSED("regions");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a");
	add_region(&it, v1, 12);
	REFUSED("regions");
	/* Names: NUL inside, '/' in a parent pointer. */
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "ab");
	it.buf[0][1] = 0;
	REFUSED("name");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a/b");
	REFUSED("name");
	/* A parent that cannot be a directory inode. */
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_SET, ino, XFSJ_ATTR_NS_PARENT, "a",
		   bad_v, 12, NULL, NULL);
	REFUSED("p_ino");
	pptr_rec(bad_v, fx.sb.rbmino, 1);
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_SET, ino, XFSJ_ATTR_NS_PARENT, "a",
		   bad_v, 12, NULL, NULL);
	REFUSED("p_ino");
	/* Inode: impossible number, free inode, other generation. */
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, 0, "a");
	REFUSED("ino");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, 1ULL << 40, "a");
	REFUSED("ino");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, freeino, "a");
	REFUSED("not in use");
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a");
	xfsj_put_le32(it.fmt + 4, GEN + 1);
	REFUSED("igen");
	/* Replace: new name length 0, region count. */
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_REPLACE, ino, XFSJ_ATTR_NS_PARENT,
		   "a", v1, 12, "b", v1);
	xfsj_put_le16(it.fmt + 30, 0);
	REFUSED("new_name_len");
	attri_init(&it, XFSJ_ATTRI_OP_PPTR_REPLACE, ino, XFSJ_ATTR_NS_PARENT,
		   "a", v1, 12, "b", v1);
	it.pi.nreg = 4;
	REFUSED("regions");
	/* Logged xattrs: a remove with a value, a set without one. */
	with_features(&fx, 0, XFSJ_LOG_INCOMPAT_XATTRS);
	attri_init(&it, XFSJ_ATTRI_OP_REMOVE, ino, 0, "k", "v", 1, NULL, NULL);
	REFUSED("value_len");
	attri_init(&it, XFSJ_ATTRI_OP_SET, ino, 0, "k", NULL, 0, NULL, NULL);
	REFUSED("regions");
	/* Without the parent feature, parent-pointer ops are corruption. */
	with_features(&fx, XFSJ_INCOMPAT_PARENT, 0);
	PPTR(XFSJ_ATTRI_OP_PPTR_SET, ino, "a");
	REFUSED("parent");
#undef PPTR
#undef REFUSED
	ck_assert_uint_eq(nattrs(&fx, ino), 0);
	fs_fixture_free(&fx);
}
END_TEST

/* ---- XMI ---- */

static uint64_t pool_alloc(struct fs_fixture *fx, uint32_t len)
{
	return fs_fixture_alloc(fx, 0, len);
}

static void map_fork(struct fs_fixture *fx, uint64_t ino, int whichfork,
		     uint64_t off, uint64_t fsb, uint64_t len, bool unw)
{
	fs_fixture_map(fx, ino, whichfork, off, fsb, len, unw);
}

static void map(struct fs_fixture *fx, uint64_t ino, uint64_t off,
		uint64_t fsb, uint64_t len, bool unw)
{
	map_fork(fx, ino, XFSJ_DATA_FORK, off, fsb, len, unw);
}

static void amap(struct fs_fixture *fx, uint64_t ino, uint64_t off,
		 uint64_t fsb, uint64_t len)
{
	map_fork(fx, ino, XFSJ_ATTR_FORK, off, fsb, len, false);
}

static void set_core(struct fs_fixture *fx, uint64_t ino, uint64_t size,
		     uint64_t flags2_or)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ip.di.size = size;
	ip.di.flags2 |= flags2_or;
	xfsj_iput(fx->fs, &ip, false);
}

static struct xfsj_dinode core(struct fs_fixture *fx, uint64_t ino)
{
	struct xfsj_iref ip;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	return ip.di;
}

/* The fork as "off:fsb+len[u]" runs relative to @base, for comparing. */
static void fork_str_w(struct fs_fixture *fx, uint64_t ino, int whichfork,
		       uint64_t base, char *out, size_t outlen)
{
	struct xfsj_bmbt_irec *ext;
	struct xfsj_iref ip;
	size_t n, used = 0;

	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ck_assert_int_eq(xfsj_bmap_read(fx->fs, &ip, whichfork, &ext, &n,
					&fx->f), 0);
	out[0] = 0;
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(out + used, outlen - used,
					 "%s%llu:%llu+%llu%s", i ? " " : "",
					 (unsigned long long)ext[i].startoff,
					 (unsigned long long)(ext[i].startblock - base),
					 (unsigned long long)ext[i].blockcount,
					 ext[i].unwritten ? "u" : "");
	free(ext);
}

static void fork_str(struct fs_fixture *fx, uint64_t ino, uint64_t base,
		     char *out, size_t outlen)
{
	fork_str_w(fx, ino, XFSJ_DATA_FORK, base, out, outlen);
}

struct rmaps {
	uint64_t ino;
	unsigned int n;
	uint64_t blocks;
	uint64_t ablocks;	/* attribute fork */
};

static int rmap_fn(struct xfsj_btree_cur *cur,
		   const union xfsj_btree_irec *rec, void *arg)
{
	struct rmaps *r = arg;

	(void)cur;
	if (rec->r.owner == r->ino) {
		r->n++;
		r->blocks += rec->r.blockcount;
		if (rec->r.offset & XFSJ_RMAP_OFF_ATTR_FORK)
			r->ablocks += rec->r.blockcount;
	}
	return 0;
}

static struct rmaps rmaps_of(struct fs_fixture *fx, uint64_t ino)
{
	struct xfsj_btree_cur *cur;
	struct rmaps r = { ino, 0, 0, 0 };

	for (uint32_t agno = 0; agno < SB(fx)->agcount; agno++) {
		ck_assert_int_eq(xfsj_btree_cur_new(fx->fs, XFSJ_BT_RMAP, agno,
						    NULL, &fx->f, &cur), 0);
		ck_assert_int_eq(xfsj_btree_query_all(cur, rmap_fn, &r), 0);
		xfsj_btree_cur_free(cur);
	}
	return r;
}

static void xmi_init(struct item *it, uint64_t ino1, uint64_t ino2,
		     uint64_t off1, uint64_t off2, uint64_t count,
		     uint64_t flags)
{
	uint8_t *p = it->fmt;

	memset(it, 0, sizeof(*it));
	xfsj_put_le16(p, XFSJ_LI_XMI);
	xfsj_put_le16(p + 2, 1);
	xfsj_put_le64(p + 8, 0xffff888800001111ULL);
	xfsj_put_le64(p + 16, ino1);
	xfsj_put_le64(p + 24, ino2);
	xfsj_put_le32(p + 32, GEN);
	xfsj_put_le32(p + 36, GEN);
	xfsj_put_le64(p + 40, off1);
	xfsj_put_le64(p + 48, off2);
	xfsj_put_le64(p + 56, count);
	xfsj_put_le64(p + 64, flags);
	/* Logged sizes: recovery recomputes them, so make them wrong. */
	xfsj_put_le64(p + 72, 123);
	xfsj_put_le64(p + 80, 456);
	it->regs[0].p = p;
	it->regs[0].len = XFSJ_XMI_FMT_SIZE;
	it->pi.type = XFSJ_LI_XMI;
	it->pi.id = 2;
	it->pi.lsn = (1ULL << 32) | 200;
	it->pi.fmt = p;
	it->pi.len = XFSJ_XMI_FMT_SIZE;
	it->pi.regs = it->regs;
	it->pi.nreg = 1;
}

static int xmi_run(struct fs_fixture *fx, struct item *it)
{
	return fs_fixture_xmi(fx, &it->pi);
}

/* Two small files exchange everything, sizes too. */
START_TEST(xmi_whole)
{
	struct fs_fixture fx;
	struct item it;
	char s[256];
	uint64_t a, b, p;
	struct xfsj_dinode da, db;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = make_file(&fx, 10, 0, 0);
	b = make_file(&fx, 11, 0, 0);
	p = pool_alloc(&fx, 64);
	map(&fx, a, 0, p, 4, false);
	map(&fx, a, 4, p + 10, 4, true);
	map(&fx, b, 0, p + 20, 6, false);
	map(&fx, b, 7, p + 30, 1, false);
	set_core(&fx, a, 8 * 4096, 0);
	set_core(&fx, b, 7 * 4096 + 100, 0);

	xmi_init(&it, a, b, 0, 0, 8, XFSJ_XMI_SET_SIZES);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	fork_str(&fx, a, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:20+6 7:30+1");
	fork_str(&fx, b, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:0+4 4:10+4u");
	da = core(&fx, a);
	db = core(&fx, b);
	ck_assert_uint_eq(da.size, 7 * 4096 + 100);
	ck_assert_uint_eq(db.size, 8 * 4096);
	ck_assert_uint_eq(da.nblocks, 7);
	ck_assert_uint_eq(db.nblocks, 8);
	ck_assert_uint_eq(xfsj_dinode_nextents(&da), 2);
	/* The reverse mappings moved with the blocks. */
	ck_assert_uint_eq(rmaps_of(&fx, a).blocks, 7);
	ck_assert_uint_eq(rmaps_of(&fx, b).blocks, 8);
	ck_assert_uint_eq(rmaps_of(&fx, b).n, 2);
	/* Nothing was freed or allocated. */
	ck_assert_int_eq(xfsj_fs_flush(fx.fs, &fx.f), 0);
	fs_fixture_free(&fx);
}
END_TEST

/* Resumed mid-way: only the rest of the range moves; no size change. */
START_TEST(xmi_resume)
{
	struct fs_fixture fx;
	struct item it;
	char s[256];
	uint64_t a, b, p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = make_file(&fx, 10, 0, 0);
	b = make_file(&fx, 11, 0, 0);
	p = pool_alloc(&fx, 64);
	/* Blocks 0-3 were already exchanged before the crash. */
	map(&fx, a, 0, p + 20, 4, false);
	map(&fx, a, 4, p + 4, 4, false);
	map(&fx, b, 0, p, 4, false);
	map(&fx, b, 4, p + 24, 4, false);
	set_core(&fx, a, 8 * 4096, 0);
	set_core(&fx, b, 8 * 4096, 0);
	xmi_init(&it, a, b, 4, 4, 4, 0);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	fork_str(&fx, a, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:20+8");
	fork_str(&fx, b, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:0+8");
	ck_assert_uint_eq(core(&fx, a).size, 8 * 4096);
	ck_assert_uint_eq(rmaps_of(&fx, a).blocks, 8);
	ck_assert_uint_eq(rmaps_of(&fx, b).blocks, 8);
	fs_fixture_free(&fx);
}
END_TEST

/* INO1_WRITTEN skips file 1's holes and unwritten extents; holes move. */
START_TEST(xmi_written_and_holes)
{
	struct fs_fixture fx;
	struct item it;
	char s[256];
	uint64_t a, b, p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = make_file(&fx, 10, 0, 0);
	b = make_file(&fx, 11, 0, 0);
	p = pool_alloc(&fx, 64);
	map(&fx, a, 0, p, 2, false);
	map(&fx, a, 2, p + 2, 2, true);
	/* a: 4-5 hole */
	map(&fx, a, 6, p + 6, 2, false);
	map(&fx, b, 0, p + 20, 8, false);
	set_core(&fx, a, 8 * 4096, 0);
	set_core(&fx, b, 8 * 4096, 0);
	xmi_init(&it, a, b, 0, 0, 8, XFSJ_XMI_INO1_WRITTEN);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	fork_str(&fx, a, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:20+2 2:2+2u 6:26+2");
	fork_str(&fx, b, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:0+2 2:22+4 6:6+2");

	/* Without the flag the hole in a moves to b too. */
	xmi_init(&it, a, b, 0, 0, 8, 0);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	fork_str(&fx, a, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:0+2 2:22+4 6:6+2");
	fork_str(&fx, b, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:20+2 2:2+2u 6:26+2");
	ck_assert_uint_eq(core(&fx, a).nblocks, 8);
	ck_assert_uint_eq(core(&fx, b).nblocks, 6);
	ck_assert_uint_eq(rmaps_of(&fx, a).blocks, 8);
	ck_assert_uint_eq(rmaps_of(&fx, b).blocks, 6);
	fs_fixture_free(&fx);
}
END_TEST

/* Reflink flags: set on both before, the one flag moves at the end. */
START_TEST(xmi_reflink_flags)
{
	struct fs_fixture fx;
	struct item it;
	uint64_t a, b, c, p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	a = make_file(&fx, 10, 0, 0);
	b = make_file(&fx, 11, 0, 0);
	c = make_file(&fx, 12, 0, 0);
	p = pool_alloc(&fx, 64);
	map(&fx, a, 0, p, 4, false);
	map(&fx, b, 0, p + 10, 4, false);
	map(&fx, c, 0, p + 20, 4, false);
	set_core(&fx, a, 4 * 4096, XFSJ_DIFLAG2_REFLINK);
	set_core(&fx, b, 4 * 4096, 0);
	set_core(&fx, c, 2 * 4096, 0);
	/* Whole files from 0: a's flag is cleared, b keeps the one it got. */
	xmi_init(&it, a, b, 0, 0, 4, 0);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	ck_assert(!(core(&fx, a).flags2 & XFSJ_DIFLAG2_REFLINK));
	ck_assert(core(&fx, b).flags2 & XFSJ_DIFLAG2_REFLINK);
	/* Not the whole of c: both end up flagged. */
	xmi_init(&it, b, c, 0, 0, 4, 0);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	ck_assert(core(&fx, b).flags2 & XFSJ_DIFLAG2_REFLINK);
	ck_assert(core(&fx, c).flags2 & XFSJ_DIFLAG2_REFLINK);
	fs_fixture_free(&fx);
}
END_TEST

START_TEST(xmi_bad)
{
	struct fs_fixture fx;
	struct item it;
	uint64_t a, b, d, p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = make_file(&fx, 10, 0, 0);
	b = make_file(&fx, 11, 0, 0);
	p = pool_alloc(&fx, 8);
	map(&fx, a, 0, p, 4, false);

#define REFUSED(err, field_part) do { \
		ck_assert_int_eq(xmi_run(&fx, &it), err); \
		ck_assert_ptr_nonnull(strstr(fx.f.field, field_part)); \
	} while (0)
	xmi_init(&it, a, b, 0, 0, 4, 0);
	it.pi.len = 80;
	REFUSED(-XFSJ_E_CORRUPT, "size");
	xmi_init(&it, a, b, 0, 0, 4, 0);
	xfsj_put_le32(it.fmt + 4, 1);
	REFUSED(-XFSJ_E_CORRUPT, "pad");
	xmi_init(&it, a, b, 0, 0, 4, 1ULL << 5);
	REFUSED(-XFSJ_E_CORRUPT, "flags");
	xmi_init(&it, a, b, 0, 0, 0, 0);
	REFUSED(-XFSJ_E_CORRUPT, "startoff1");
	xmi_init(&it, a, b, 0, (1ULL << 54) - 2, 4, 0);
	REFUSED(-XFSJ_E_CORRUPT, "startoff2");
	xmi_init(&it, a, 1ULL << 40, 0, 0, 4, 0);
	REFUSED(-XFSJ_E_CORRUPT, "inode2");
	xmi_init(&it, a, fx.sb.rootino + 13, 0, 0, 4, 0);
	REFUSED(-XFSJ_E_CORRUPT, "not in use");
	xmi_init(&it, a, b, 0, 0, 4, 0);
	xfsj_put_le32(it.fmt + 32, GEN + 1);
	REFUSED(-XFSJ_E_CORRUPT, "igen");
	/* Attribute forks: both files must have one (xfs_bmapi_read). */
	xmi_init(&it, a, b, 0, 0, 4, XFSJ_XMI_ATTR_FORK);
	REFUSED(-XFSJ_E_CORRUPT, "attr fork");
	/* Not done here: sizes on an attr exchange, directories. */
	xmi_init(&it, a, b, 0, 0, 4,
		 XFSJ_XMI_ATTR_FORK | XFSJ_XMI_SET_SIZES);
	REFUSED(-XFSJ_E_UNSUPP, "SET_SIZES");
	d = fx.sb.rootino;
	xmi_init(&it, a, d, 0, 0, 4, 0);
	xfsj_put_le32(it.fmt + 36, core(&fx, d).gen);
	REFUSED(-XFSJ_E_UNSUPP, "directory");
	/* Without the feature the item cannot exist. */
	with_features(&fx, XFSJ_INCOMPAT_EXCHRANGE, 0);
	xmi_init(&it, a, b, 0, 0, 4, 0);
	REFUSED(-XFSJ_E_CORRUPT, "exchange");
#undef REFUSED
	/* Nothing moved. */
	ck_assert_uint_eq(core(&fx, a).nblocks, 4);
	ck_assert_uint_eq(core(&fx, b).nblocks, 0);
	fs_fixture_free(&fx);
}
END_TEST

/*
 * Attribute forks of several extents exchanged: the data forks and sizes
 * stay, the reverse mappings move with the attr-fork flag, the reflink
 * flag is still shared out first (but never cleared at the end).
 */
START_TEST(xmi_attr_fork)
{
	struct fs_fixture fx;
	struct item it;
	char s[256];
	uint64_t a, b, p;
	struct xfsj_dinode da, db;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, true);
	a = make_file(&fx, 10, 0, FORKOFF);
	b = make_file(&fx, 11, 0, FORKOFF);
	p = pool_alloc(&fx, 64);
	map(&fx, a, 0, p + 40, 2, false);
	map(&fx, b, 0, p + 44, 1, false);
	set_core(&fx, a, 2 * 4096, XFSJ_DIFLAG2_REFLINK);
	set_core(&fx, b, 4096 - 10, 0);
	amap(&fx, a, 0, p, 2);
	amap(&fx, a, 3, p + 5, 1);
	amap(&fx, a, 6, p + 8, 2);
	amap(&fx, b, 0, p + 20, 1);
	amap(&fx, b, 2, p + 22, 3);

	xmi_init(&it, a, b, 0, 0, 8, XFSJ_XMI_ATTR_FORK);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	fork_str_w(&fx, a, XFSJ_ATTR_FORK, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:20+1 2:22+3");
	fork_str_w(&fx, b, XFSJ_ATTR_FORK, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:0+2 3:5+1 6:8+2");
	fork_str(&fx, a, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:40+2");
	fork_str(&fx, b, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:44+1");
	da = core(&fx, a);
	db = core(&fx, b);
	ck_assert_uint_eq(da.size, 2 * 4096);
	ck_assert_uint_eq(db.size, 4096 - 10);
	ck_assert_uint_eq(da.nblocks, 2 + 4);
	ck_assert_uint_eq(db.nblocks, 1 + 5);
	ck_assert_uint_eq(xfsj_dinode_anextents(&da), 2);
	ck_assert_uint_eq(xfsj_dinode_anextents(&db), 3);
	ck_assert_uint_eq(xfsj_dinode_nextents(&da), 1);
	ck_assert_uint_eq(xfsj_dinode_nextents(&db), 1);
	ck_assert_uint_eq(da.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(db.aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert(da.flags2 & XFSJ_DIFLAG2_REFLINK);
	ck_assert(db.flags2 & XFSJ_DIFLAG2_REFLINK);
	ck_assert_uint_eq(rmaps_of(&fx, a).ablocks, 4);
	ck_assert_uint_eq(rmaps_of(&fx, b).ablocks, 5);
	ck_assert_uint_eq(rmaps_of(&fx, a).blocks, 6);
	ck_assert_uint_eq(rmaps_of(&fx, b).blocks, 6);
	ck_assert_uint_eq(rmaps_of(&fx, b).n, 4);
	ck_assert_int_eq(xfsj_fs_flush(fx.fs, &fx.f), 0);
	fs_fixture_free(&fx);
}
END_TEST

struct sattr {
	const char *name;
	const char *value;
};

/* Give @ino an attr leaf at fork block 0 (@fsb) holding @attrs. */
static void leaf_into(struct fs_fixture *fx, uint64_t ino, uint64_t fsb,
		      const struct sattr *attrs, unsigned int n)
{
	const struct xfsj_sb *sb = SB(fx);
	uint64_t daddr = xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
					   xfsj_fsb_agbno(sb, fsb));
	struct xfsj_buf *bp;

	amap(fx, ino, 0, fsb, 1);
	ck_assert_int_eq(xfsj_buf_get_zero(fx->fs, daddr, sb->blocksize, &bp),
			 0);
	xfsj_attr_leaf_init(fx->fs, ino, bp->data, daddr);
	for (unsigned int i = 0; i < n; i++) {
		struct xfsj_attr_arg a = {
			.name = (const uint8_t *)attrs[i].name,
			.namelen = (uint32_t)strlen(attrs[i].name),
			.value = (const uint8_t *)attrs[i].value,
			.valuelen = (uint32_t)strlen(attrs[i].value),
		};
		uint32_t hash = xfsj_attr_hash(&a), index;
		bool found, nospc, remote;

		xfsj_attr_leaf_lookup(bp->data, sb->blocksize, &a, hash,
				      &index, &found);
		ck_assert(!found);
		ck_assert_int_eq(xfsj_attr_leaf_add(bp->data, sb->blocksize,
						    &a, hash, index, &nospc,
						    &remote), 0);
		ck_assert(!nospc && !remote);
	}
	xfsj_cksum_update(bp->data, sb->blocksize, 12);
	xfsj_buf_dirty(bp);
}

/*
 * Resumed where the rest of the range is holes in both files: no mapping
 * moves, and the end-of-exchange step turns inode 2's one-block leaf
 * back into a short form, freeing the leaf.
 */
START_TEST(xmi_attr_to_sf)
{
	static const struct sattr attrs[] = {
		{ "colour", "blue" }, { "shape", "round" },
		{ "size", "a rather long value for a small attribute" },
	};
	struct fs_fixture fx;
	struct item it;
	char s[256];
	uint64_t a, b, c, p;
	struct xfsj_dinode db;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = make_file(&fx, 10, 0, FORKOFF);
	b = make_file(&fx, 11, 0, FORKOFF);
	c = make_file(&fx, 12, 0, FORKOFF);
	p = pool_alloc(&fx, 16);
	amap(&fx, a, 0, p + 4, 1);
	leaf_into(&fx, b, p, attrs, 3);
	ck_assert_uint_eq(core(&fx, b).aformat, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert(has_attr(&fx, b, 0, "shape", "round", 5));

	xmi_init(&it, a, b, 1, 1, 7, XFSJ_XMI_ATTR_FORK);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	db = core(&fx, b);
	ck_assert_uint_eq(db.aformat, XFSJ_DINODE_FMT_LOCAL);
	ck_assert_uint_eq(xfsj_dinode_anextents(&db), 0);
	ck_assert_uint_eq(db.nblocks, 0);
	ck_assert_uint_ne(db.forkoff, 0);
	for (unsigned int i = 0; i < 3; i++)
		ck_assert(has_attr(&fx, b, 0, attrs[i].name, attrs[i].value,
				   (uint32_t)strlen(attrs[i].value)));
	ck_assert_uint_eq(nattrs(&fx, b), 3);
	ck_assert(fs_fixture_is_free(&fx, p, 1));
	ck_assert_uint_eq(rmaps_of(&fx, b).n, 0);
	/* File 1 is not converted. */
	fork_str_w(&fx, a, XFSJ_ATTR_FORK, p, s, sizeof(s));
	ck_assert_str_eq(s, "0:4+1");

	/* An empty leaf: the attribute fork goes away. */
	leaf_into(&fx, c, p + 8, NULL, 0);
	xmi_init(&it, a, c, 2, 2, 3, XFSJ_XMI_ATTR_FORK);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	ck_assert_uint_eq(core(&fx, c).forkoff, 0);
	ck_assert_uint_eq(core(&fx, c).nblocks, 0);
	ck_assert(fs_fixture_is_free(&fx, p + 8, 1));
	ck_assert_int_eq(xfsj_fs_flush(fx.fs, &fx.f), 0);
	fs_fixture_free(&fx);
}
END_TEST

/* A remote symlink target block (one header) for @ino at @fsb. */
static void symlink_block(struct fs_fixture *fx, uint64_t ino, uint64_t fsb,
			  const char *target)
{
	const struct xfsj_sb *sb = SB(fx);
	uint64_t daddr = xfsj_agb_to_daddr(sb, xfsj_fsb_agno(sb, fsb),
					   xfsj_fsb_agbno(sb, fsb));
	uint32_t len = (uint32_t)strlen(target);
	struct xfsj_buf *bp;
	struct xfsj_vctx c;
	struct xfsj_iref ip;

	map(fx, ino, 0, fsb, 1, false);
	ck_assert_int_eq(xfsj_buf_get_zero(fx->fs, daddr, sb->blocksize, &bp),
			 0);
	xfsj_fs_vctx(fx->fs, 0, &c);
	xfsj_put_be32(bp->data, 0x58534c4dU);
	xfsj_put_be32(bp->data + 4, 0);
	xfsj_put_be32(bp->data + 8, len);
	memcpy(bp->data + 16, c.uuid, 16);
	xfsj_put_be64(bp->data + 32, ino);
	xfsj_put_be64(bp->data + 40, daddr);
	memcpy(bp->data + 56, target, len);
	xfsj_cksum_update(bp->data, sb->blocksize, 12);
	xfsj_buf_dirty(bp);
	ck_assert_int_eq(xfsj_iget(fx->fs, ino, false, &ip, &fx->f), 0);
	ip.di.mode = S_IFLNK | 0777;
	ip.di.size = len;
	xfsj_iput(fx->fs, &ip, false);
}

/*
 * A symlink inode 2 whose target fits in the inode: at the end its
 * target is read from the block, the block is freed and the target goes
 * inline.
 */
START_TEST(xmi_symlink_to_sf)
{
	static const char target[] = "../../some/where/else/entirely";
	struct fs_fixture fx;
	struct item it;
	struct xfsj_iref ip;
	uint64_t a, b, c, p;
	uint32_t dsize;
	uint8_t *d;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = make_file(&fx, 10, 0, 0);
	b = make_file(&fx, 11, 0, 0);
	c = make_file(&fx, 12, 0, 0);
	p = pool_alloc(&fx, 16);
	map(&fx, a, 0, p + 4, 1, false);
	set_core(&fx, a, 4096, 0);
	symlink_block(&fx, b, p, target);

	/* The rest of the range is holes in both files: only the end. */
	xmi_init(&it, a, b, 1, 1, 3, XFSJ_XMI_SET_SIZES);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, b, false, &ip, &fx.f), 0);
	/* SET_SIZES crossed the sizes over before the end step: too big. */
	ck_assert_uint_eq(ip.di.format, XFSJ_DINODE_FMT_EXTENTS);
	ck_assert_uint_eq(ip.di.size, 4096);
	ck_assert_uint_eq(ip.di.nblocks, 1);
	ck_assert_uint_eq(core(&fx, a).size, strlen(target));
	fs_fixture_free(&fx);

	/* Again without sizes: the target goes inline. */
	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = make_file(&fx, 10, 0, 0);
	b = make_file(&fx, 11, 0, 0);
	c = make_file(&fx, 12, 0, 0);
	p = pool_alloc(&fx, 16);
	map(&fx, a, 0, p + 4, 1, false);
	set_core(&fx, a, 4096, 0);
	symlink_block(&fx, b, p, target);
	xmi_init(&it, a, b, 1, 1, 3, 0);
	ck_assert_int_eq(xmi_run(&fx, &it), 0);
	ck_assert_int_eq(xfsj_iget(fx.fs, b, false, &ip, &fx.f), 0);
	ck_assert_uint_eq(ip.di.format, XFSJ_DINODE_FMT_LOCAL);
	ck_assert_uint_eq(ip.di.size, strlen(target));
	ck_assert_uint_eq(ip.di.nblocks, 0);
	ck_assert_uint_eq(xfsj_dinode_nextents(&ip.di), 0);
	d = xfsj_ifork(fx.fs, &ip, XFSJ_DATA_FORK, &dsize);
	ck_assert_uint_ge(dsize, strlen(target));
	ck_assert_int_eq(memcmp(d, target, strlen(target)), 0);
	ck_assert(fs_fixture_is_free(&fx, p, 1));
	ck_assert_uint_eq(rmaps_of(&fx, b).n, 0);
	/* File 1 keeps its block. */
	ck_assert_uint_eq(core(&fx, a).nblocks, 1);

	/* A bad header (owner) is corruption. */
	symlink_block(&fx, c, p + 8, target);
	{
		const struct xfsj_sb *sb = SB(&fx);
		uint64_t daddr = xfsj_agb_to_daddr(sb, 0,
						   xfsj_fsb_agbno(sb, p + 8));
		struct xfsj_buf *bp;

		ck_assert_int_eq(xfsj_buf_read(fx.fs, daddr, sb->blocksize,
					       &bp), 0);
		xfsj_put_be64(bp->data + 32, a);
		xfsj_cksum_update(bp->data, sb->blocksize, 12);
	}
	xmi_init(&it, a, c, 1, 1, 3, 0);
	ck_assert_int_eq(xmi_run(&fx, &it), -XFSJ_E_CORRUPT);
	ck_assert_ptr_nonnull(strstr(fx.f.field, "owner"));
	fs_fixture_free(&fx);
}
END_TEST

/*
 * The kernel's order: recovery's first step keeps the end-of-exchange
 * step ahead of its own mapping work, so a symlink exchanged whole in
 * that one step is converted from its old block, and unmapping that
 * block from the now inline fork afterwards is corruption.
 */
START_TEST(xmi_symlink_first_step)
{
	static const char target[] = "old/target";
	struct fs_fixture fx;
	struct item it;
	uint64_t a, b, p;

	fs_fixture_make(&fx, 64 * MB, 4096, 2, true, false);
	a = make_file(&fx, 10, 0, 0);
	b = make_file(&fx, 11, 0, 0);
	p = pool_alloc(&fx, 16);
	map(&fx, a, 0, p + 4, 1, false);
	symlink_block(&fx, b, p, target);
	xmi_init(&it, a, b, 0, 0, 1, 0);
	ck_assert_int_eq(xmi_run(&fx, &it), -XFSJ_E_CORRUPT);
	ck_assert_ptr_nonnull(strstr(fx.f.field, "format"));
	fs_fixture_free(&fx);
}
END_TEST

Suite *attri_suite(void)
{
	Suite *s = suite_create("attri");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pptr_ops);
	tcase_add_test(tc, pptr_fork_cases);
	tcase_add_test(tc, pptr_leaf);
	tcase_add_test(tc, user_ops);
	tcase_add_test(tc, attri_stamps_sf_add);
	tcase_add_test(tc, attri_bad);
	tcase_add_test(tc, xmi_whole);
	tcase_add_test(tc, xmi_resume);
	tcase_add_test(tc, xmi_written_and_holes);
	tcase_add_test(tc, xmi_reflink_flags);
	tcase_add_test(tc, xmi_bad);
	tcase_add_test(tc, xmi_attr_fork);
	tcase_add_test(tc, xmi_attr_to_sf);
	tcase_add_test(tc, xmi_symlink_to_sf);
	tcase_add_test(tc, xmi_symlink_first_step);
	suite_add_tcase(s, tc);
	return s;
}
