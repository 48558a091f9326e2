/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fixcrc RAWLOG BLOCK: recompute the CRC of the log record whose header is
 * at BLOCK of a raw log copy (shared/reference/xfs-log.md section 4), so
 * that damage made by a test lies behind a valid CRC and reaches the
 * decoders.  Exit 4 for a record that wraps past the end of the file (not
 * handled), 3 for a header whose lengths point outside it.  Used by the
 * logprint-corrupt and repair-corrupt system tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
static uint32_t crc32c(uint32_t crc, const unsigned char *p, size_t n)
{
	int k;
	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1));
	}
	return crc;
}
static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}
int main(int argc, char **argv)
{
	FILE *f;
	long blk, size;
	unsigned char h[512], *buf;
	uint32_t len, hsize, hblks, next, crc, i;

	if (argc != 3 || !(f = fopen(argv[1], "r+b")))
		return 2;
	blk = atol(argv[2]);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	if (fseek(f, blk * 512, SEEK_SET) || fread(h, 1, 512, f) != 512)
		return 3;
	len = be32(h + 12);
	hsize = be32(h + 320);
	hblks = hsize > 32768 ? (hsize + 32767) / 32768 : 1;
	next = len ? (len + 32767) / 32768 - 1 : 0;
	/* A record that wraps past the end of the log: not this helper's job. */
	if ((blk + hblks) * 512 + (long)len > size)
		return 4;
	if (next >= hblks && next > 0)
		return 3;
	h[32] = h[33] = h[34] = h[35] = 0;
	crc = crc32c(0xffffffff, h, 328);
	buf = malloc(len > 512 ? len : 512);
	for (i = 1; i <= next; i++) {
		fseek(f, (blk + i) * 512, SEEK_SET);
		if (fread(buf, 1, 512, f) != 512)
			return 3;
		crc = crc32c(crc, buf, 260);
	}
	fseek(f, (blk + hblks) * 512, SEEK_SET);
	if (fread(buf, 1, len, f) != len)
		return 3;
	crc = ~crc32c(crc, buf, len);
	h[32] = crc; h[33] = crc >> 8; h[34] = crc >> 16; h[35] = crc >> 24;
	fseek(f, blk * 512 + 32, SEEK_SET);
	fwrite(h + 32, 1, 4, f);
	return fclose(f) ? 3 : 0;
}
