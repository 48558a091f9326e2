/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening the log: where it is (internal, at sb_logstart, or on its own
 * device; or a raw copy of the log), its size and sector size, checked
 * against the device that holds it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/layout.h"
#include "log/logread_priv.h"

static int alloc_buffers(struct xfsj_log *l)
{
	/* Largest record: 8 header sectors and 256 KiB of data. */
	l->rbuf_cap = XFSJ_LOG_MAX_RECORD + 8 * XFSJ_BBSIZE;
	l->rbuf = malloc(l->rbuf_cap);
	return l->rbuf ? 0 : -XFSJ_E_NOMEM;
}

int xfsj_log_open(struct xfsj_io *io, struct xfsj_io *logio, unsigned int flags,
		  struct xfsj_log **out, struct xfsj_fault *f)
{
	uint8_t sbuf[XFSJ_BBSIZE];
	struct xfsj_log *l;
	struct xfsj_sb *sb;
	int err;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -XFSJ_E_NOMEM;
	err = alloc_buffers(l);
	if (err)
		goto fail;
	l->g.sect_bb = 1;

	if (flags & XFSJ_LOGOPEN_RAW) {
		l->io = io;
		l->g.raw = true;
		if (io->size / XFSJ_BBSIZE < 2 ||
		    io->size / XFSJ_BBSIZE > UINT32_MAX) {
			err = xfsj_fault_set(f, XFSJ_E_TOOSMALL, "log", "size",
					     0, io->size);
			goto fail;
		}
		l->g.size_bb = (uint32_t)(io->size / XFSJ_BBSIZE);
		*out = l;
		return 0;
	}

	err = xfsj_pread(io, sbuf, sizeof(sbuf), 0);
	if (err) {
		err = xfsj_fault_set(f, -err, "superblock", "read", 0, 0);
		goto fail;
	}
	sb = &l->g.sb;
	xfsj_sb_decode(sbuf, sb);
	if (sb->magicnum != XFSJ_SB_MAGIC) {
		err = xfsj_fault_set(f, XFSJ_E_BADMAGIC, "superblock",
				     "sb_magicnum", 0, sb->magicnum);
		goto fail;
	}
	if (sb->blocklog < 9 || sb->blocklog > 16 ||
	    sb->blocksize != 1U << sb->blocklog) {
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "superblock",
				     "sb_blocksize", 4, sb->blocksize);
		goto fail;
	}
	if (sb->agblklog > 31 || sb->inopblog > 16 || !sb->agblocks) {
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "superblock",
				     "sb_agblklog", 124, sb->agblklog);
		goto fail;
	}
	if (!sb->logblocks ||
	    ((uint64_t)sb->logblocks << (sb->blocklog - 9)) > UINT32_MAX) {
		err = xfsj_fault_set(f, XFSJ_E_CORRUPT, "superblock",
				     "sb_logblocks", 96, sb->logblocks);
		goto fail;
	}
	l->g.size_bb = sb->logblocks << (sb->blocklog - 9);
	l->g.logsunit = sb->logsunit;
	if ((sb->versionnum & XFSJ_SB_VERSION_SECTORBIT) &&
	    sb->logsectlog > 9 && sb->logsectlog <= 15)
		l->g.sect_bb = 1U << (sb->logsectlog - 9);
	if (sb->logstart == 0) {
		if (!logio) {
			err = xfsj_fault_reason(f, XFSJ_FR_EXTLOG_NEEDED,
				xfsj_fault_set(f, XFSJ_E_UNSUPP, "superblock",
					       "sb_logstart",
					       XFSJ_SB_OFF(logstart), 0));
			goto fail;
		}
		l->io = logio;
		l->g.external = true;
	} else {
		uint64_t agno = sb->logstart >> sb->agblklog;
		uint64_t agbno = sb->logstart & ((1ULL << sb->agblklog) - 1);

		l->io = io;
		l->g.daddr = (agno * sb->agblocks + agbno) <<
			     (sb->blocklog - 9);
		l->g.dev_off = l->g.daddr * XFSJ_BBSIZE;
	}
	if (l->io->size < l->g.dev_off ||
	    (l->io->size - l->g.dev_off) / XFSJ_BBSIZE < l->g.size_bb) {
		err = xfsj_fault_reason(f, XFSJ_FR_LOG_PAST_END,
			xfsj_fault_set(f, XFSJ_E_SHORTIO, "log",
				       "sb_logblocks", l->g.dev_off,
				       l->io->size));
		goto fail;
	}
	xfsj_fsgeo_from_sb(sb, &l->fsg);
	*out = l;
	return 0;
fail:
	xfsj_log_close(l);
	return err;
}

void xfsj_log_close(struct xfsj_log *log)
{
	if (!log)
		return;
	xlog_stream_end(log);
	if (log->io)
		xlog_win_drop(log);
	free(log->win);
	free(log->rbuf);
	free(log);
}

const struct xfsj_log_geom *xfsj_log_geom(const struct xfsj_log *log)
{
	return &log->g;
}
