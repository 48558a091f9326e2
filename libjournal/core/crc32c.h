/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef XFSJ_CRC32C_H
#define XFSJ_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Raw update: no pre/post inversion, so calls can be chained. */
uint32_t xfsj_crc32c_update(uint32_t crc, const void *buf, size_t len);

/* Standard crc32c of a buffer (seed ~0, final inversion). */
uint32_t xfsj_crc32c(const void *buf, size_t len);

/*
 * The XFS metadata rule: crc32c over @len bytes with the 4-byte field at
 * @crc_off taken as zero.  The buffer is not modified.
 */
uint32_t xfsj_cksum(const void *buf, size_t len, size_t crc_off);

/* Compute and store (little-endian) the checksum at @crc_off. */
void xfsj_cksum_update(void *buf, size_t len, size_t crc_off);

/* True when the stored checksum at @crc_off matches the contents. */
int xfsj_cksum_ok(const void *buf, size_t len, size_t crc_off);

#endif
