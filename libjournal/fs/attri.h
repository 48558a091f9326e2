/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recovery of inode-level intents: ATTRI (extended attributes and parent
 * pointers, attri.c) and XMI (file mapping exchange, xmi.c), each from
 * its logged format region(s), as the kernel's recovery finishes them.
 *
 * The formats are decoded, and their structural rules checked, by
 * ondisk/attri_fmt.c and ondisk/xmi_fmt.c (the same decoders serve
 * xfsj-logprint); what needs the filesystem is checked here.
 */
#ifndef XFSJ_ATTRI_H
#define XFSJ_ATTRI_H

#include <stdbool.h>

#include "xfsj/fs.h"
#include "xfsj/logread.h"
#include "ondisk/xmi_fmt.h"

struct xfsj_work;

/*
 * Never logged (the kernel's __XFS_EXCHMAPS_INO2_SHORTFORM): at the end,
 * inode 2's fork goes back to short form if it fits.  Recovery sets it
 * for attribute-fork exchanges and for a directory or symlink inode 2.
 */
#define XFSJ_XMI_INO2_SHORTFORM		(1ULL << 63)

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
