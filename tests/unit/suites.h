/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One Check suite per libjournal file; run_unit.c runs them all. */
#ifndef XFSJ_TEST_SUITES_H
#define XFSJ_TEST_SUITES_H

#include <check.h>

#define XFSJ_SUITES(X)		\
	X(crc32c_suite)		\
	X(geometry_suite)	\
	X(newfs_suite)		\
	X(trans_resv_suite)		\
	X(log_scan_suite)	\
	X(log_trans_suite)	\
	X(log_salvage_suite)	\
	X(log_lost_suite)	\
	X(log_items_suite)	\
	X(item_brief_suite)	\
	X(layout_suite)		\
	X(sb_suite)		\
	X(ag_headers_suite)	\
	X(btree_block_suite)	\
	X(bmdr_suite)		\
	X(bmbt_walk_suite)	\
	X(inode_suite)		\
	X(dir_sf_suite)		\
	X(dir_data_walk_suite)	\
	X(log_record_suite)	\
	X(io_suite)		\
	X(io_unix_suite)		\
	X(io_concat_suite)	\
	X(io_copy_suite)	\
	X(io_fault_suite)	\
	X(overlay_suite)	\
	X(grow_suite)		\
	X(spill_suite)		\
	X(u64set_suite)		\
	X(radix_sort_suite)	\
	X(jobs_suite)		\
	X(rapool_suite)		\
	X(progress_suite)	\
	X(redo_suite)		\
	X(undo_suite)		\
	X(errors_suite)		\
	X(fs_suite)		\
	X(buf_cache_suite)	\
	X(btree_suite)		\
	X(alloc_suite)		\
	X(rmap_suite)		\
	X(rmap_merge_suite)	\
	X(refcount_suite)	\
	X(defer_suite)		\
	X(iunlink_suite)		\
	X(bmap_suite)		\
	X(attr_suite)		\
	X(attri_suite)		\
	X(recover_suite)	\
	X(meta_suite)		\
	X(iget_suite)		\
	X(ialloc_suite)		\
	X(finish_suite)		\
	X(attr_leaf_suite)	\
	X(attr_leaf_ent_suite)	\
	X(attr_node_suite)	\
	X(check_attr_suite)	\
	X(xmi_suite)		\
	X(intent_fmt_suite)	\
	X(check_problem_suite)	\
	X(check_dir_suite)	\
	X(repair_dir_suite)	\
	X(repair_attr_suite)	\
	X(repair_dir2_suite)	\
	X(repair_home_suite)	\
	X(check_space_suite)	\
	X(recheck_suite)	\
	X(ag_trust_suite)	\
	X(check_index_suite)	\
	X(check_agbt_suite)	\
	X(check_inodes_suite)	\
	X(repair_inode_suite)	\
	X(repair_policy_suite)	\
	X(repair_rows_suite)	\
	X(repair_fork_suite)	\
	X(repair_evidence_suite)	\
	X(check_headers_suite)	\
	X(repair_ag_suite)	\
	X(populate_suite)	\
	X(replay_suite)

#define XFSJ_SUITE_DECL(fn) Suite *fn(void);
XFSJ_SUITES(XFSJ_SUITE_DECL)
#undef XFSJ_SUITE_DECL

#endif
