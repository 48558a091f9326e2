/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recovery of inode-level intents: ATTRI (extended attributes and parent
 * pointers, attri.c) and XMI (file mapping exchange, xmi.c), each from
 * its logged format region(s), as the kernel's recovery finishes them.
 */
#ifndef XFSJ_ATTRI_H
#define XFSJ_ATTRI_H

#include "xfsj/fs.h"
#include "xfsj/recover.h"

/*
 * @pi: the pending intent with all its regions (ATTRI: format, name,
 * [new name], [value], [new value]; XMI: format only).
 */
int xfsj_attri_recover(struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		       struct xfsj_fault *f);
int xfsj_xmi_recover(struct xfsj_fs *fs, const struct xfsj_pending_intent *pi,
		     struct xfsj_fault *f);

#endif
