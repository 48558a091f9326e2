/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Short-form directories: the whole directory inside the inode's data fork.
 * Header: count u8, i8count u8, parent (4 or 8 bytes).  Each entry: namelen
 * u8, offset be16, name, [ftype u8], inode number (4 or 8 bytes).  When any
 * inode number needs 64 bits, all of them (parent included) are stored in 8.
 */
#include <string.h>

#include "ondisk/dir_block.h"
#include "xfsj/ondisk.h"

/*
 * The offset an entry would have in a single-block directory: after the v5
 * data block header and the "." and ".." entries.
 */

static bool needs_i8(uint64_t ino)
{
	return ino > UINT32_MAX;
}

static unsigned int data_entsize(unsigned int namelen, bool ftype)
{
	/* inumber 8 + namelen 1 + name + [ftype] + tag 2, rounded to 8 */
	unsigned int sz = 8 + 1 + namelen + (ftype ? 1 : 0) + 2;

	return (sz + 7) & ~7U;
}

size_t xfsj_dir_sf_size(uint64_t parent, const struct xfsj_dirent *ents,
			unsigned int n, bool ftype)
{
	bool i8 = needs_i8(parent);
	size_t size;

	for (unsigned int i = 0; i < n; i++)
		i8 |= needs_i8(ents[i].ino);
	size = 2 + (i8 ? 8 : 4);
	for (unsigned int i = 0; i < n; i++)
		size += 1 + 2 + ents[i].namelen + (ftype ? 1 : 0) + (i8 ? 8 : 4);
	return size;
}

static uint8_t *put_ino(uint8_t *p, uint64_t ino, bool i8)
{
	if (i8) {
		xfsj_put_be64(p, ino);
		return p + 8;
	}
	xfsj_put_be32(p, (uint32_t)ino);
	return p + 4;
}

int xfsj_dir_sf_encode(uint64_t parent, const struct xfsj_dirent *ents,
		       unsigned int n, bool ftype, void *buf, size_t len)
{
	size_t size = xfsj_dir_sf_size(parent, ents, n, ftype);
	unsigned int offset = XFSJ_DIR3_FIRST_OFFSET;
	unsigned int i8count = 0;
	uint8_t *p = buf;

	if (n > 255)
		return -XFSJ_E_RANGE;
	if (size > len)
		return -XFSJ_E_NOSPC;
	for (unsigned int i = 0; i < n; i++) {
		if (ents[i].namelen == 0 || !ents[i].name ||
		    memchr(ents[i].name, '/', ents[i].namelen) ||
		    memchr(ents[i].name, 0, ents[i].namelen))
			return -XFSJ_E_INVAL;
		i8count += needs_i8(ents[i].ino);
	}
	/* The parent counts too: i8count is every number over 32 bits. */
	i8count += needs_i8(parent);
	bool i8 = i8count != 0;

	*p++ = (uint8_t)n;
	*p++ = (uint8_t)i8count;
	p = put_ino(p, parent, i8);
	for (unsigned int i = 0; i < n; i++) {
		*p++ = ents[i].namelen;
		xfsj_put_be16(p, (uint16_t)offset);
		p += 2;
		memcpy(p, ents[i].name, ents[i].namelen);
		p += ents[i].namelen;
		if (ftype)
			*p++ = ents[i].ftype;
		p = put_ino(p, ents[i].ino, i8);
		offset += data_entsize(ents[i].namelen, ftype);
	}
	return (int)size;
}

int xfsj_dir_sf_walk(const void *buf, size_t len, bool ftype,
		     uint64_t *parent, xfsj_dirent_fn fn, void *arg,
		     struct xfsj_fault *f)
{
	const uint8_t *p = buf, *end = p + len;
	unsigned int count, i8count, isz;
	unsigned int last_off = 0, big = 0;

	if (len < 6)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "short-form directory",
				      "size", 0, len);
	count = p[0];
	i8count = p[1];
	isz = i8count ? 8 : 4;
	if (len < 2 + isz)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "short-form directory",
				      "i8count", 1, i8count);
	{
		uint64_t par = isz == 8 ? xfsj_get_be64(p + 2) : xfsj_get_be32(p + 2);

		big += needs_i8(par);
		if (parent)
			*parent = par;
	}
	p += 2 + isz;
	for (unsigned int i = 0; i < count; i++) {
		struct xfsj_dirent e;
		size_t need;
		unsigned int off;

		if (end - p < 3)
			goto trunc;
		e.namelen = p[0];
		need = 3 + e.namelen + (ftype ? 1 : 0) + isz;
		if ((size_t)(end - p) < need || e.namelen == 0)
			goto trunc;
		off = xfsj_get_be16(p + 1);
		if (off < XFSJ_DIR3_FIRST_OFFSET || off <= last_off)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT,
					      "short-form directory", "offset",
					      (uint64_t)(p + 1 - (const uint8_t *)buf),
					      off);
		last_off = off;
		e.name = (const char *)p + 3;
		if (memchr(e.name, '/', e.namelen) || memchr(e.name, 0, e.namelen))
			return xfsj_fault_set(f, XFSJ_E_CORRUPT,
					      "short-form directory", "name",
					      (uint64_t)(p + 3 - (const uint8_t *)buf),
					      0);
		e.ftype = ftype ? p[3 + e.namelen] : XFSJ_FT_UNKNOWN;
		if (e.ftype >= XFSJ_FT__MAX)
			return xfsj_fault_set(f, XFSJ_E_CORRUPT,
					      "short-form directory", "ftype",
					      (uint64_t)(p + 3 + e.namelen -
							 (const uint8_t *)buf),
					      e.ftype);
		p += 3 + e.namelen + (ftype ? 1 : 0);
		e.ino = isz == 8 ? xfsj_get_be64(p) : xfsj_get_be32(p);
		big += needs_i8(e.ino);
		p += isz;
		if (fn) {
			int err = fn(&e, arg);

			if (err)
				return err;
		}
	}
	if (p != end)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "short-form directory",
				      "size", 0, len);
	/* As the kernel checks: i8count is exactly the numbers over 32 bits. */
	if (big != i8count)
		return xfsj_fault_set(f, XFSJ_E_CORRUPT, "short-form directory",
				      "i8count", 1, i8count);
	return 0;
trunc:
	return xfsj_fault_set(f, XFSJ_E_CORRUPT, "short-form directory",
			      "namelen", (uint64_t)(p - (const uint8_t *)buf),
			      len);
}
