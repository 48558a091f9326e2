/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay of quota items.  Quota accounting is rebuilt by quotacheck
 * when the dquots cannot be trusted; we only replay filesystems without
 * quota: a DQUOT item on one with quota on is refused, otherwise passed
 * over (as are dquot buffers, item_buf.c); QUOTAOFF needs nothing.
 */
#include "recover/recover_priv.h"

int xrec_dquot_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		     const struct xfsj_item_info *in, uint64_t lsn,
		     struct xfsj_fault *f)
{
	(void)it;
	(void)in;
	(void)lsn;
	if (xrec_quota_on(rc))
		return xfsj_fault_set(f, XFSJ_E_UNSUPP, "dquot log item",
				      "quota", 0, 0);
	rc->st.dquots_skipped++;
	return 0;
}

int xrec_qoff_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		    const struct xfsj_item_info *in, uint64_t lsn,
		    struct xfsj_fault *f)
{
	(void)rc;
	(void)it;
	(void)in;
	(void)lsn;
	(void)f;
	return 0;
}
