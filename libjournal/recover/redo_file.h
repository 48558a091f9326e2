/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the redo file (redo.c) and the undo file (undo.c) share: the tag
 * that ties an undo file to the redo file of the same commit, and making
 * a new file's name durable.
 */
#ifndef XFSJ_REDO_FILE_H
#define XFSJ_REDO_FILE_H

#include <stdint.h>

#include "xfsj/io.h"

/*
 * The tag of a commit: a CRC32c, from XFSJ_REDO_TAG_INIT, over the redo
 * file's entries (byte offset and CRC32c of each page, in order) as
 * xfsj_redo_tag_add() encodes them.  Two commits with the same tag write
 * the same bytes to the same pages.
 */
#define XFSJ_REDO_TAG_INIT	0xffffffffU
uint32_t xfsj_redo_tag_add(uint32_t tag, uint64_t off, uint32_t page_crc);

/* A new, empty, private (0600) file at @path, opened for writing. */
int xfsj_redo_file_create(const char *path, struct xfsj_io **out);

/* fsync the directory holding @path (after creating or removing it). */
int xfsj_sync_dir_of(const char *path);

#endif
