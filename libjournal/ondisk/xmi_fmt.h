/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The XMI log item (a file mapping exchange intent), decoded once here
 * for xfsj-logprint (log/item_xmi.c) and for its recovery (fs/xmi.c).
 *
 * One 88-byte format region, in the byte order of the host that wrote
 * the log (little-endian: the logs we read): two inodes with their
 * generations, a range of file blocks in each (the same length), the
 * flags, and the sizes to set at the end.
 *
 * What is checked here is what needs no filesystem: the kernel's
 * xfs_xmi_validate without its feature and inode number checks (those
 * are fs/xmi.c's).
 */
#ifndef XFSJ_XMI_FMT_H
#define XFSJ_XMI_FMT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/layout.h"
#include "ondisk/log.h"

#define XFSJ_XMI_FIELDS(F, P)						\
	F(U16, type, 0)		F(U16, size, 2)				\
	F(U32, pad, 4)		F(U64, id, 8)				\
	F(U64, ino1, 16)	F(U64, ino2, 24)			\
	F(U32, igen1, 32)	F(U32, igen2, 36)			\
	F(U64, startoff1, 40)	F(U64, startoff2, 48)			\
	F(U64, blockcount, 56)	F(U64, flags, 64)			\
	F(U64, isize1, 72)	F(U64, isize2, 80)

/* The decoded format: struct xfsj_xmi_fmt. */
XFSJ_DECLARE_STRUCTS(xfsj_xmi_fmt, XFSJ_XMI_FIELDS);
#define XFSJ_XMI_OFF(field)	offsetof(struct xfsj_xmi_fmt_raw, field)
#define XFSJ_XMI_FMT_SIZE	88
extern const struct xfsj_layout xfsj_xmi_fmt_layout;

/* XMI flags. */
#define XFSJ_XMI_ATTR_FORK		(1ULL << 0)
#define XFSJ_XMI_SET_SIZES		(1ULL << 1)
#define XFSJ_XMI_INO1_WRITTEN		(1ULL << 2)
#define XFSJ_XMI_CLEAR_INO1_REFLINK	(1ULL << 3)
#define XFSJ_XMI_CLEAR_INO2_REFLINK	(1ULL << 4)
#define XFSJ_XMI_LOGGED_FLAGS		0x1fULL

/* Decode region 0 (@len bytes); false if it is not the format's size. */
bool xfsj_xmi_fmt_decode(const uint8_t *p, uint32_t len,
			 struct xfsj_xmi_fmt *x);

/*
 * The structural rules of the kernel's xfs_xmi_validate, in its order:
 * a zero pad, no unknown flag, both ranges possible file ranges.  Returns
 * NULL if @x keeps them, else the field it breaks (*@val: its value).
 */
const char *xfsj_xmi_fmt_verify(const struct xfsj_xmi_fmt *x, uint64_t *val);

#endif
