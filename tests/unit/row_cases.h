/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cases of test_repair_rows.c: each makes one row's problem on a
 * fresh fixture (the fixture's features as the case says), for the
 * test to prove the row found, repaired and gone.  test_repair_rows.c
 * holds the first table; row_cases.c the groups after it (remote
 * symlinks, bmbt forks, attribute and directory trees, parent pointer
 * shapes, two-level and file rmapbt records, shared blocks, free space,
 * metadata inodes), a table each.
 */
#ifndef XFSJ_TEST_ROW_CASES_H
#define XFSJ_TEST_ROW_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "row_fixture.h"

struct row_case;
typedef void (*row_make_fn)(struct fs_fixture *fx, const struct row_case *c);

struct row_case {
	const char *code;
	row_make_fn make;
	enum poke_where at;	/* for poked(): where, which field */
	const char *field;	/* (NULL: 32 bits at byte @off) */
	uint64_t v;
	size_t off;
	bool keep_crc;		/* the CRC left as it was, or (a block
				 * written through the handle, whose flush
				 * restamps it) made wrong */
	bool reflink;		/* the fixture has reflink */
	uint32_t agcount;	/* the fixture's AGs (0: 2) */
	bool from_end;		/* @off counts back from the block's end */
	bool old_format;	/* the fixture without bigtime and nrext64 */
	bool no_parent;		/* the fixture without parent pointers */
	/* A second field set at the same place (NULL and 0: none). */
	const char *field2;
	uint64_t v2;
	size_t off2;
};


struct row_table {
	const struct row_case *c;
	size_t n;
};

/* row_cases.c: its groups' tables. */
extern const struct row_table row_groups[];
extern const size_t row_ngroups;

#endif
