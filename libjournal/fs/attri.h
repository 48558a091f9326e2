/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recovery of inode-level intents: ATTRI (extended attributes and parent
 * pointers, attri.c) and XMI (file mapping exchange, xmi.c), each from
 * its logged format region(s), as the kernel's recovery finishes them.
 *
 * Both formats are in the byte order of the host that wrote the log
 * (little-endian, as the replay requires).
 *
 * ATTRI (40-byte format, then name, [new name], [value], [new value],
 * each region padded to 4 bytes):
 *   0 type u16, 2 size u16 (region count), 4 igen u32 (parent-pointer
 *   ops), 8 id u64, 16 ino u64, 24 op_flags u32 (low byte: the op),
 *   28 name_len u32 -- for PPTR_REPLACE two u16: old name at 28, new name
 *   at 30 --, 32 value_len u32, 36 attr_filter u32 (namespace bits).
 *
 * XMI (88-byte format, one region):
 *   0 type u16, 2 size u16, 4 pad u32 (zero), 8 id u64, 16 ino1 u64,
 *   24 ino2 u64, 32 igen1 u32, 36 igen2 u32, 40 startoff1 u64,
 *   48 startoff2 u64, 56 blockcount u64, 64 flags u64, 72 isize1 u64,
 *   80 isize2 u64.
 */
#ifndef XFSJ_ATTRI_H
#define XFSJ_ATTRI_H

#include <stdbool.h>

#include "xfsj/fs.h"
#include "xfsj/logread.h"

struct xfsj_work;

/* XMI flags. */
#define XFSJ_XMI_ATTR_FORK		(1ULL << 0)
#define XFSJ_XMI_SET_SIZES		(1ULL << 1)
#define XFSJ_XMI_INO1_WRITTEN		(1ULL << 2)
#define XFSJ_XMI_CLEAR_INO1_REFLINK	(1ULL << 3)
#define XFSJ_XMI_CLEAR_INO2_REFLINK	(1ULL << 4)
#define XFSJ_XMI_LOGGED_FLAGS		0x1fULL
/*
 * Never logged (the kernel's __XFS_EXCHMAPS_INO2_SHORTFORM): at the end,
 * inode 2's fork goes back to short form if it fits.  Recovery sets it
 * for attribute-fork exchanges and for a directory or symlink inode 2.
 */
#define XFSJ_XMI_INO2_SHORTFORM		(1ULL << 63)

#define XFSJ_XMI_FMT_SIZE		88

/*
 * @pi: the pending intent with all its regions (ATTRI: format, name,
 * [new name], [value], [new value]; XMI: format only).
 */
int xfsj_attri_recover(struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		       struct xfsj_fault *f);
int xfsj_xmi_recover(struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		     struct xfsj_fault *f);
/* One step of an exchange (work of kind XFSJ_W_XMI, defer.h). */
int xfsj_xmi_finish(struct xfsj_fs *fs, const struct xfsj_work *w,
		    struct xfsj_fault *f);

/*
 * Is @ino a possible inode number of this filesystem (the kernel's
 * xfs_verify_ino: an existing AG, and a block past the AG headers and
 * before the AG's end, at the inode alignment)?
 */
bool xfsj_intent_ino_ok(const struct xfsj_fs *fs, uint64_t ino);

#endif
