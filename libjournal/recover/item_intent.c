/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intents and done items during pass 2: an intent is kept, with a copy of
 * its regions, until a done item of its pair type and id ends it; what is
 * left after the replay is the work finish.c does, in log order.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "recover/recover_priv.h"

void xrec_intents_free(struct xfsj_recover *rc)
{
	for (size_t i = 0; i < rc->nintent; i++) {
		free(rc->intents[i].fmt);
		free(rc->intents[i].regs);
	}
	free(rc->intents);
	rc->intents = NULL;
	rc->nintent = rc->capintent = 0;
}

int xrec_intent_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		      const struct xfsj_item_info *in, uint64_t lsn,
		      struct xfsj_fault *f)
{
	if (!in->have_id)
		return xrec_corrupt(f, "intent log item", "size", 0,
				    it->reg[0].len);
	if (xfsj_grow(&rc->intents, &rc->capintent, rc->nintent, 1,
		      sizeof(*rc->intents), 64))
		return -XFSJ_E_NOMEM;
	/*
	 * Recovery needs the regions after the transaction is gone (an
	 * ATTRI's name and values follow its format region).
	 */
	size_t total = 0;

	for (uint16_t r = 0; r < it->nreg; r++)
		total += it->reg[r].len;
	uint8_t *fmt = malloc(total ? total : 1);
	struct xfsj_region *regs = malloc(it->nreg * sizeof(*regs));

	if (!fmt || !regs) {
		free(fmt);
		free(regs);
		return -XFSJ_E_NOMEM;
	}
	total = 0;
	for (uint16_t r = 0; r < it->nreg; r++) {
		memcpy(fmt + total, it->reg[r].p, it->reg[r].len);
		regs[r].p = fmt + total;
		regs[r].len = it->reg[r].len;
		total += it->reg[r].len;
	}
	rc->intents[rc->nintent++] = (struct intent){
		it->type, in->id, lsn, fmt, it->reg[0].len,
		regs, it->nreg,
	};
	rc->st.intents++;
	return 0;
}

int xrec_done_pass2(struct xfsj_recover *rc, const struct xfsj_ritem *it,
		    const struct xfsj_item_info *in, uint64_t lsn,
		    struct xfsj_fault *f)
{
	uint16_t itype;
	uint64_t id = in->id;
	size_t w = 0;

	(void)lsn;
	if (!in->have_id)
		return xrec_corrupt(f, "done log item", "size", 0,
				    it->reg[0].len);
	itype = in->kind->pair;
	/* Every pending intent of that type and id is finished. */
	for (size_t i = 0; i < rc->nintent; i++) {
		if (rc->intents[i].type == itype && rc->intents[i].id == id) {
			free(rc->intents[i].fmt);
			free(rc->intents[i].regs);
			continue;
		}
		rc->intents[w++] = rc->intents[i];
	}
	rc->nintent = w;
	rc->st.intents_done++;
	return 0;
}

int xfsj_recover_each_intent(struct xfsj_recover *rc, xfsj_intent_fn fn,
			      void *arg)
{
	for (size_t i = 0; i < rc->nintent; i++) {
		const struct intent *in = &rc->intents[i];
		struct xfsj_pending_intent pi = {
			in->type, in->id, in->lsn, in->fmt, in->len,
			in->regs, in->nreg,
		};
		int err = fn(arg, &pi);

		if (err)
			return err;
	}
	return 0;
}

