/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * AG headers: AGF, AGI and AGFL of one AG.
 *
 * FIRST CUT (skeleton): the headers are read and verified with the ondisk
 * verifiers; the first fault of each is reported.  Field-by-field checks
 * and the counters against what the scan sees come next.
 */
#include <stdlib.h>
#include <string.h>

#include "check/check_priv.h"

enum { AGH_AGF_BAD, AGH_AGI_BAD, AGH_AGFL_BAD, AGH__N };

static const struct xfsj_problem_def rows[AGH__N] = {
	[AGH_AGF_BAD] = { "agf.verify", 0x020001, XFSJ_SEV_CORRUPT, "AGF",
		"AGF of AG {ag}: {field} is wrong ({found})",
		XFSJ_FIX_AG_HEADER },
	[AGH_AGI_BAD] = { "agi.verify", 0x020002, XFSJ_SEV_CORRUPT, "AGI",
		"AGI of AG {ag}: {field} is wrong ({found})",
		XFSJ_FIX_AG_HEADER },
	[AGH_AGFL_BAD] = { "agfl.verify", 0x020003, XFSJ_SEV_CORRUPT, "AGFL",
		"AGFL of AG {ag}: {field} is wrong ({found})",
		XFSJ_FIX_AG_HEADER },
};
const struct xck_table xck_agh_table = { rows, AGH__N };

static void report_fault(struct xck *ck, uint32_t agno, int row,
			 const struct xfsj_fault *f)
{
	xck_report(ck, &(struct xfsj_problem){
		.def = &rows[row], .has = XFSJ_PF_AG | XFSJ_PF_FOUND,
		.agno = agno, .field = f->field ? f->field : "block",
		.found = f->value });
}

int xck_ag_headers(struct xck *ck, struct xck_ag *ag)
{
	struct xfsj_fault f = { 0 };
	struct xfsj_buf *bp;
	int err;

	err = xfsj_agf_read(ck->fs, ag->agno, &bp, &f);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_SHORTIO || err == -XFSJ_E_NOMEM)
		return err;
	if (err) {
		report_fault(ck, ag->agno, AGH_AGF_BAD, &f);
	} else {
		xfsj_agf_decode(bp->data, &ag->agf);
		ag->agf_ok = true;
	}
	memset(&f, 0, sizeof(f));
	err = xfsj_agi_read(ck->fs, ag->agno, &bp, &f);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_SHORTIO || err == -XFSJ_E_NOMEM)
		return err;
	if (err) {
		report_fault(ck, ag->agno, AGH_AGI_BAD, &f);
	} else {
		xfsj_agi_decode(bp->data, &ag->agi);
		ag->agi_ok = true;
	}
	memset(&f, 0, sizeof(f));
	err = xfsj_agfl_read(ck->fs, ag->agno, &bp, &f);
	if (err == -XFSJ_E_IO || err == -XFSJ_E_SHORTIO || err == -XFSJ_E_NOMEM)
		return err;
	if (err) {
		report_fault(ck, ag->agno, AGH_AGFL_BAD, &f);
	} else if (ag->agf_ok) {
		unsigned int size = xfsj_agfl_size(ck->sb->sectsize);
		struct xfsj_agfl_hdr hdr;
		uint32_t *bno = malloc(size * sizeof(*bno));
		uint32_t i, k;

		if (!bno)
			return -XFSJ_E_NOMEM;
		xfsj_agfl_decode(bp->data, ck->sb->sectsize, &hdr, bno);
		ag->agfl = malloc(size * sizeof(*bno));
		if (!ag->agfl) {
			free(bno);
			return -XFSJ_E_NOMEM;
		}
		for (i = 0, k = ag->agf.flfirst;
		     i < ag->agf.flcount && i < size && k < size;
		     i++, k = (k + 1) % size)
			ag->agfl[ag->agfl_n++] = bno[k];
		free(bno);
		ag->agfl_ok = true;
	}
	return 0;
}
