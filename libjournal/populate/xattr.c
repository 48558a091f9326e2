/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Extended attributes: every name of the source (in byte order, so the
 * attribute fork does not depend on the order listxattr returns) set on
 * the new inode in its namespace: user.* in the user namespace,
 * trusted.* in the root one, security.* in the secure one.  POSIX ACLs
 * (system.posix_acl_access and _default) become the root namespace's
 * SGI_ACL_FILE and SGI_ACL_DEFAULT in XFS's own form: a big-endian entry
 * count, then per entry its tag, id and permissions, big-endian, the id
 * ACL_UNDEFINED_ID unless the entry names a user or a group.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "fs/attr.h"
#include "fs/defer.h"
#include "populate/pop_priv.h"

/* Linux's xattr form: a little-endian header (version 2), then entries
 * of tag (16 bits), perm (16 bits) and id (32 bits). */
#define LINUX_ACL_VERSION	2U
#define ACL_TAG_USER		0x02U
#define ACL_TAG_GROUP		0x08U
#define ACL_UNDEFINED		0xffffffffU
/* XFS's limit on entries (XFS_ACL_MAX_ENTRIES for v5 filesystems is far
 * larger; this bounds the buffer). */
#define ACL_MAX_ENTRIES		8192U

static uint32_t get_le32(const uint8_t *b)
{
	return b[0] | b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint16_t get_le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

int xfsj_pop_acl_to_disk(const uint8_t *v, size_t len, uint8_t *out,
			 size_t outlen)
{
	size_t n;

	if (len < 4 || (len - 4) % 8 || get_le32(v) != LINUX_ACL_VERSION)
		return -XFSJ_E_INVAL;
	n = (len - 4) / 8;
	if (n > ACL_MAX_ENTRIES || 4 + 12 * n > outlen)
		return -XFSJ_E_RANGE;
	xfsj_put_be32(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = v + 4 + 8 * i;
		uint8_t *d = out + 4 + 12 * i;
		uint16_t tag = get_le16(e);

		xfsj_put_be32(d, tag);
		xfsj_put_be32(d + 4, tag == ACL_TAG_USER || tag == ACL_TAG_GROUP ?
				     get_le32(e + 4) : ACL_UNDEFINED);
		xfsj_put_be16(d + 8, get_le16(e + 2));
		xfsj_put_be16(d + 10, 0);
	}
	return (int)(4 + 12 * n);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Namespace and on-disk name of @name; false if it cannot be stored. */
static bool map_name(const char *name, uint8_t *ns, const char **dname,
		     bool *acl)
{
	static const struct {
		const char *prefix;
		uint8_t ns;
	} pre[] = {
		{ "user.", 0 },
		{ "trusted.", XFSJ_ATTR_NS_ROOT },
		{ "security.", XFSJ_ATTR_NS_SECURE },
	};

	*acl = false;
	if (!strcmp(name, "system.posix_acl_access") ||
	    !strcmp(name, "system.posix_acl_default")) {
		*ns = XFSJ_ATTR_NS_ROOT;
		*dname = name[17] == 'a' ? "SGI_ACL_FILE" : "SGI_ACL_DEFAULT";
		*acl = true;
		return true;
	}
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t l = strlen(pre[i].prefix);

		if (!strncmp(name, pre[i].prefix, l) && name[l]) {
			*ns = pre[i].ns;
			*dname = name + l;
			return true;
		}
	}
	return false;
}

static int set_one(struct pop *p, uint64_t ino, const char *name,
		   uint8_t *val, uint8_t *acl)
{
	struct xfsj_attr_arg a = { 0 };
	struct xfsj_iref ip;
	const char *dname;
	bool is_acl;
	ssize_t vlen;
	int err;

	if (!map_name(name, &a.ns, &dname, &is_acl))
		return xfsj_pop_fail(p, "xattr namespace", EOPNOTSUPP,
				     -XFSJ_E_UNSUPP);
	vlen = lgetxattr(p->path, name, val, XATTR_SIZE_MAX);
	if (vlen < 0)
		return xfsj_pop_fail(p, "getxattr", errno, -XFSJ_E_IO);
	a.value = val;
	a.valuelen = (uint32_t)vlen;
	if (is_acl) {
		int n = xfsj_pop_acl_to_disk(val, (size_t)vlen, acl,
					     4 + 12 * ACL_MAX_ENTRIES);

		if (n < 0)
			return xfsj_pop_fail(p, "ACL", EINVAL, n);
		a.value = acl;
		a.valuelen = (uint32_t)n;
	}
	a.name = (const uint8_t *)dname;
	a.namelen = (uint32_t)strlen(dname);
	if (a.namelen > 255)
		return xfsj_pop_fail(p, "xattr name", ENAMETOOLONG,
				     -XFSJ_E_RANGE);
	err = xfsj_iget(p->fs, ino, true, &ip, p->f);
	if (!err)
		err = xfsj_attr_set(p->fs, &ip, &a, XFSJ_ATTR_UPSERT, p->f);
	if (!err) {
		xfsj_iput(p->fs, &ip, true);
		err = xfsj_defer_finish(p->fs, p->f);
	}
	if (err)
		return xfsj_pop_fail(p, "xattr", 0, err);
	return 0;
}

int xfsj_pop_xattrs(struct pop *p, uint64_t ino)
{
	char *list = NULL, **names = NULL;
	uint8_t *val = NULL, *acl = NULL;
	ssize_t len;
	size_t n = 0;
	int err = 0;

	len = llistxattr(p->path, NULL, 0);
	if (len < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP))
		return 0;
	if (len < 0)
		return xfsj_pop_fail(p, "listxattr", errno, -XFSJ_E_IO);
	if (!len)
		return 0;
	list = malloc((size_t)len + 1);
	if (!list)
		return -XFSJ_E_NOMEM;
	len = llistxattr(p->path, list, (size_t)len);
	if (len < 0) {
		free(list);
		return xfsj_pop_fail(p, "listxattr", errno, -XFSJ_E_IO);
	}
	list[len] = 0;
	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(list + i) + 1)
		n++;
	names = calloc(n, sizeof(*names));
	val = malloc(XATTR_SIZE_MAX);
	acl = malloc(4 + 12 * ACL_MAX_ENTRIES);
	if (!names || !val || !acl) {
		err = -XFSJ_E_NOMEM;
		goto out;
	}
	n = 0;
	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(list + i) + 1)
		names[n++] = list + i;
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n && !err; i++)
		err = set_one(p, ino, names[i], val, acl);
out:
	free(names);
	free(val);
	free(acl);
	free(list);
	return err;
}
