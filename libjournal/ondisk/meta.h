/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What kind of v5 metadata a buffer holds, judged by its magic number, and
 * where that kind keeps its LSN, UUID and CRC.  Log recovery needs this to
 * apply the v5 rule ("skip when the disk is already newer") and to stamp
 * and checksum what it replays; logprint uses the names.
 */
#ifndef XFSJ_META_H
#define XFSJ_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ondisk/format.h"

struct xfsj_meta_kind {
	const char *name;
	uint32_t magic;
	uint8_t magic_off;	/* 0, or 8 for the 16-bit da magics */
	uint8_t magic_size;	/* 4 or 2 */
	int16_t lsn_off;	/* -1: this kind has no LSN */
	int16_t uuid_off;
	int16_t crc_off;	/* -1: no CRC */
	/* CRC span: 0 = whole buffer, else a fixed size (sector kinds use
	 * the sector size, given at run time, flagged by SPAN_SECTOR). */
	uint16_t span;
	bool per_block;		/* one header per FS block (remote attr) */
};

#define XFSJ_META_SPAN_SECTOR	0xffff

/* The kind of the metadata at the start of @buf; false when unknown. */
bool xfsj_meta_identify(const void *buf, size_t len,
			struct xfsj_meta_kind *kind);

/*
 * The LSN stamped in @buf if it is v5 metadata of this filesystem, else 0
 * ("no LSN": always replay).  @uuid is the UUID the filesystem stamps
 * its metadata with: sb_meta_uuid when it has META_UUID, else sb_uuid
 * (xfsj_meta_fs_uuid).
 */
uint64_t xfsj_meta_lsn(const void *buf, size_t len, const uint8_t uuid[16]);

/* The UUID @sb's metadata is stamped with. */
const uint8_t *xfsj_meta_fs_uuid(const struct xfsj_sb *sb);

/*
 * Stamp @lsn into every header of the metadata in @buf and recompute its
 * CRC(s).  Unknown contents are left alone.
 */
void xfsj_meta_stamp(void *buf, size_t len, uint64_t lsn, uint32_t sectsize,
		     uint32_t blocksize, uint32_t inodesize);

#endif
