/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xfsj-repair --salvage: the loss report.  Each damaged stretch of the log
 * skipped, each transaction not replayed with what it touched, and the
 * summary (what was kept, against xfs_repair -L which keeps nothing); text
 * on the tool's text stream, or JSON Lines objects on stdout.
 */
#include <inttypes.h>
#include <stdio.h>

#include "xfsj/logread.h"
#include "repair.h"

static void lsn_json(FILE *f, const char *key, uint64_t lsn)
{
	fprintf(f, ",\"%s\":[%" PRIu32 ",%" PRIu32 "]", key, xfsj_lsn_cycle(lsn),
		xfsj_lsn_block(lsn));
}

static const char *type_name(uint16_t type)
{
	const struct xfsj_item_type *k = xfsj_item_type_lookup(type);

	return k ? k->name : "?";
}

void salvage_print_damage(const struct salvage_out *so,
			  const struct xfsj_log_damage *d)
{
	if (so->json) {
		printf("{\"kind\":\"salvage_damage\",\"bad_block\":%" PRIu32, d->bad_blk);
		printf(",\"bad_crc\":%s", d->bad_crc ? "true" : "false");
		if (d->bad_crc)
			lsn_json(stdout, "bad_lsn", d->bad_lsn);
		lsn_json(stdout, "prev_lsn", d->prev_lsn);
		printf(",\"resumed\":%s,\"next_block\":%" PRIu32,
		       d->resumed ? "true" : "false", d->next_blk);
		if (d->resumed)
			lsn_json(stdout, "next_lsn", d->next_lsn);
		printf(",\"skipped_blocks\":%" PRIu32 ",\"open_transactions\":%" PRIu32
		       ",\"stale\":%s}\n", d->skipped_bbs, d->open_trans,
		       d->stale ? "true" : "false");
		return;
	}
	fprintf(so->txt, "%s: salvage: damaged log record at log block %" PRIu32, so->device,
		d->bad_blk);
	if (d->bad_crc)
		fprintf(so->txt, " (LSN %" PRIu32 ":%" PRIu32 ", bad CRC)",
			xfsj_lsn_cycle(d->bad_lsn), xfsj_lsn_block(d->bad_lsn));
	else if (d->stale)
		fputs(" (an older cycle: a lost write)", so->txt);
	else
		fputs(" (not a log record)", so->txt);
	if (d->resumed)
		fprintf(so->txt, ": %" PRIu32 " blocks skipped, going on at log block %" PRIu32
			" (LSN %" PRIu32 ":%" PRIu32 ")", d->skipped_bbs, d->next_blk,
			xfsj_lsn_cycle(d->next_lsn), xfsj_lsn_block(d->next_lsn));
	else
		fprintf(so->txt, ": no record after it can be trusted (%" PRIu32
			" blocks to the head skipped)", d->skipped_bbs);
	fprintf(so->txt, "; %" PRIu32 " transaction(s) open across it are lost\n",
		d->open_trans);
}

static void lost_json(const struct xfsj_salvage_trans *t)
{
	printf("{\"kind\":\"salvage_lost\",\"tid\":\"0x%08" PRIx32 "\"", t->tid);
	lsn_json(stdout, "lsn", t->lsn);
	if (t->commit_lsn)
		lsn_json(stdout, "commit_lsn", t->commit_lsn);
	else
		printf(",\"commit_lsn\":null");
	printf(",\"start_block\":%" PRIu32 ",\"items\":%" PRIu32 ",\"undecoded\":%" PRIu32,
	       t->start_blk, t->nitems, t->nfailed);
	printf(",\"inodes\":[");
	for (uint32_t i = 0; i < t->ninos; i++)
		printf("%s%" PRIu64, i ? "," : "", t->inos[i]);
	printf("],\"daddrs\":[");
	for (uint32_t i = 0; i < t->nranges; i++)
		printf("%s[%" PRIu64 ",%" PRIu32 "]", i ? "," : "",
		       t->ranges[i].daddr, t->ranges[i].bbs);
	printf("],\"extents\":[");
	for (uint32_t i = 0; i < t->nexts; i++)
		printf("%s{\"type\":\"%s\",\"startblock\":%" PRIu64 ",\"len\":%" PRIu32
		       ",\"owner\":%" PRIu64 "}", i ? "," : "",
		       type_name(t->exts[i].type), t->exts[i].startblock,
		       t->exts[i].len, t->exts[i].owner);
	printf("]}\n");
}

void salvage_print_lost(const struct salvage_out *so,
			const struct xfsj_salvage_trans *t)
{
	FILE *f = so->txt;

	if (so->json) {
		lost_json(t);
		return;
	}
	fprintf(f, "%s: salvage: not replayed: transaction 0x%08" PRIx32 " at LSN %" PRIu32
		":%" PRIu32, so->device, t->tid, xfsj_lsn_cycle(t->lsn),
		xfsj_lsn_block(t->lsn));
	if (t->commit_lsn)
		fprintf(f, " (commit at %" PRIu32 ":%" PRIu32 ")",
			xfsj_lsn_cycle(t->commit_lsn), xfsj_lsn_block(t->commit_lsn));
	else
		fputs(" (commit lost)", f);
	fprintf(f, ", %" PRIu32 " items decoded, %" PRIu32 " not\n", t->nitems, t->nfailed);
	if (t->ninos) {
		fputs("  inodes:", f);
		for (uint32_t i = 0; i < t->ninos; i++)
			fprintf(f, " %" PRIu64, t->inos[i]);
		fputc('\n', f);
	}
	if (t->nranges) {
		fputs("  blocks (daddr+len):", f);
		for (uint32_t i = 0; i < t->nranges; i++)
			fprintf(f, " %" PRIu64 "+%" PRIu32, t->ranges[i].daddr,
				t->ranges[i].bbs);
		fputc('\n', f);
	}
	if (t->nexts) {
		fputs("  extents (fsbno+len):", f);
		for (uint32_t i = 0; i < t->nexts; i++)
			fprintf(f, " %s %" PRIu64 "+%" PRIu32, type_name(t->exts[i].type),
				t->exts[i].startblock, t->exts[i].len);
		fputc('\n', f);
	}
}

/* The lost stretch the kernel would stop at (xfsj_log_ht.lost). */
static void lost_stretch(const struct salvage_out *so,
			 const struct xfsj_log_ht *ht)
{
	if (so->json) {
		printf(",\"lost_stretch\":{\"kernel_head\":%" PRIu32
		       ",\"next_block\":%" PRIu32, ht->lost_blk, ht->lost_next_blk);
		lsn_json(stdout, "prev_lsn", ht->lost_prev_lsn);
		lsn_json(stdout, "next_lsn", ht->lost_next_lsn);
		printf(",\"records_after\":%" PRIu32 ",\"head\":%" PRIu32 "}",
		       ht->lost_records, ht->head_blk);
		return;
	}
	fprintf(so->txt, "%s: salvage: log block %" PRIu32 " holds an older cycle (lost "
		"writes) and %" PRIu32 " records follow it (log block %" PRIu32 " to head %"
		PRIu32 "): the kernel would stop at it and drop them\n", so->device,
		ht->lost_blk, ht->lost_records, ht->lost_next_blk, ht->head_blk);
}

void salvage_print_summary(const struct salvage_out *so,
			   const struct xfsj_salvage_summary *sv,
			   const struct xfsj_log_ht *ht)
{
	if (!so->json && ht->lost)
		lost_stretch(so, ht);
	if (so->json) {
		printf("{\"kind\":\"salvage_summary\",\"damaged\":%" PRIu32 ",\"kept\":%" PRIu64
		       ",\"kept_after_damage\":%" PRIu64 ",\"kept_by_L\":0,\"lost\":%" PRIu64
		       ",\"items_passed\":%" PRIu64 ",\"clusters_remade\":%" PRIu64
		       ",\"inodes_kept_newer\":%" PRIu64,
		       sv->ndamage, sv->kept, sv->kept_after, sv->lost, sv->passed,
		       sv->clusters, sv->inodes_kept);
		if (sv->ndamage) {
			/* Between the last good record and the next one. */
			printf(",\"damaged_after_lsn\":[%" PRIu32 ",%" PRIu32 "]",
			       xfsj_lsn_cycle(sv->first.prev_lsn),
			       xfsj_lsn_block(sv->first.prev_lsn));
			if (sv->first.resumed)
				lsn_json(stdout, "damaged_before_lsn",
					 sv->first.next_lsn);
		}
		if (sv->unfinished)
			printf(",\"leftover_work_undone\":true,\"leftover_error\":\"%s\"",
			       xfsj_strerror(sv->unfinished_err));
		if (sv->lost) {
			printf(",\"unreplayed_lsn\":[[%" PRIu32 ",%" PRIu32 "],[%" PRIu32
			       ",%" PRIu32 "]]", xfsj_lsn_cycle(sv->lost_lsn_lo),
			       xfsj_lsn_block(sv->lost_lsn_lo),
			       xfsj_lsn_cycle(sv->lost_lsn_hi),
			       xfsj_lsn_block(sv->lost_lsn_hi));
		}
		if (ht->lost)
			lost_stretch(so, ht);
		printf("}\n");
		return;
	}
	if (!sv->ndamage) {
		fprintf(so->txt, "%s: salvage: the live log has no damaged record; replayed as usual\n",
			so->device);
		return;
	}
	fprintf(so->txt, "%s: salvage: the log between LSN %" PRIu32 ":%" PRIu32
		" and %s%" PRIu32 ":%" PRIu32 " was not read\n", so->device,
		xfsj_lsn_cycle(sv->first.prev_lsn), xfsj_lsn_block(sv->first.prev_lsn),
		sv->first.resumed ? "" : "the head, past ",
		xfsj_lsn_cycle(sv->first.resumed ? sv->first.next_lsn : sv->first.prev_lsn),
		xfsj_lsn_block(sv->first.resumed ? sv->first.next_lsn : sv->first.prev_lsn));
	fprintf(so->txt, "%s: salvage: kept %" PRIu64 " checkpoints (%" PRIu64
		" after the damage; xfs_repair -L keeps none); %" PRIu64 " not replayed",
		so->device, sv->kept, sv->kept_after, sv->lost);
	if (sv->lost)
		fprintf(so->txt, ", LSN %" PRIu32 ":%" PRIu32 " to %" PRIu32 ":%" PRIu32,
			xfsj_lsn_cycle(sv->lost_lsn_lo), xfsj_lsn_block(sv->lost_lsn_lo),
			xfsj_lsn_cycle(sv->lost_lsn_hi), xfsj_lsn_block(sv->lost_lsn_hi));
	if (sv->passed)
		fprintf(so->txt, "; %" PRIu64 " items of kept ones could not land (what they change was lost) and were passed over",
			sv->passed);
	if (sv->clusters)
		fprintf(so->txt, "; %" PRIu64 " inode clusters a lost checkpoint made were made again for the inodes kept ones log",
			sv->clusters);
	if (sv->inodes_kept)
		fprintf(so->txt, "; %" PRIu64 " inodes written back after their chunk was made kept as the disk holds them (a lost checkpoint logged them last)",
			sv->inodes_kept);
	if (sv->unfinished)
		fprintf(so->txt, "; the work the log leaves (intents, unlinked inodes, CoW staging) could not be finished on what was kept (%s) and was left to the repair, as xfs_repair -L leaves it",
			xfsj_strerror(sv->unfinished_err));
	fputc('\n', so->txt);
}
