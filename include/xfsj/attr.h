/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Extended attributes of an inode, changed the way the kernel's xfs_attr
 * does: short form in the inode (the fork offset moved as the kernel
 * moves it), leaf blocks, node (dabtree) forks, remote values; set,
 * replace and remove; and parent pointers, whose names may repeat with
 * different values (a parent pointer is matched by name and value).
 */
#ifndef XFSJ_ATTR_H
#define XFSJ_ATTR_H

#include "xfsj/iget.h"

/* Namespace bits as stored in short-form and leaf entries. */
#define XFSJ_ATTR_NS_ROOT	0x02
#define XFSJ_ATTR_NS_SECURE	0x04
#define XFSJ_ATTR_NS_PARENT	0x08
#define XFSJ_ATTR_NS_MASK	(XFSJ_ATTR_NS_ROOT | XFSJ_ATTR_NS_SECURE | \
				 XFSJ_ATTR_NS_PARENT)

struct xfsj_attr_arg {
	uint8_t ns;			/* XFSJ_ATTR_NS_* (0: user) */
	const uint8_t *name;
	uint32_t namelen;
	const uint8_t *value;
	uint32_t valuelen;
};

/* The kernel's name hash (xfs_da_hashname), and the parent-pointer hash. */
uint32_t xfsj_da_hashname(const uint8_t *name, uint32_t len);
uint32_t xfsj_parent_hashval(const uint8_t *name, uint32_t namelen,
			     uint64_t parent_ino);

/* Look up: *found, and the value when @val is large enough (*vlen in/out).
 * Parent pointers match @a->value too. */
int xfsj_attr_get(struct xfsj_fs *fs, struct xfsj_iref *ip,
		  const struct xfsj_attr_arg *a, uint8_t *val, uint32_t *vlen,
		  bool *found, struct xfsj_fault *f);

enum xfsj_attr_how {
	XFSJ_ATTR_UPSERT,	/* create or replace */
	XFSJ_ATTR_CREATE,	/* must not exist */
	XFSJ_ATTR_REPLACE,	/* must exist */
};

int xfsj_attr_set(struct xfsj_fs *fs, struct xfsj_iref *ip,
		  const struct xfsj_attr_arg *a, enum xfsj_attr_how how,
		  struct xfsj_fault *f);
/* *found: whether there was one to remove. */
int xfsj_attr_remove(struct xfsj_fs *fs, struct xfsj_iref *ip,
		     const struct xfsj_attr_arg *a, bool *found,
		     struct xfsj_fault *f);

/* Every attribute (tests, and checks after recovery). */
typedef int (*xfsj_attr_fn)(void *arg, const struct xfsj_attr_arg *a);
int xfsj_attr_list(struct xfsj_fs *fs, struct xfsj_iref *ip, xfsj_attr_fn fn,
		   void *arg, struct xfsj_fault *f);

#endif
