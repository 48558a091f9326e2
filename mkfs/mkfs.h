/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef XFSJ_MKFS_H
#define XFSJ_MKFS_H

#include <stdbool.h>
#include <stdio.h>

#include "xfsj/geometry.h"

/* Exit codes (documented in xfsj-mkfs.8). */
enum {
	MKFS_EXIT_OK = 0,
	MKFS_EXIT_FAIL = 1,	/* bad geometry, I/O error, refused device */
	MKFS_EXIT_USAGE = 1,	/* mkfs.xfs exits 1 on usage errors too */
};

struct mkfs_cli {
	struct xfsj_mkfs_req req;
	const char *device;	/* -d name= or the positional argument */
	const char *logdev;	/* -l logdev=: the external log device */
	bool dfile;		/* -d file: a regular file, create it */
	bool dry_run;		/* -N */
	bool force;		/* -f */
	bool quiet;		/* -q */
	bool progress;		/* --progress: JSON Lines on stderr */
	bool nodiscard;		/* -K */
	bool uuid_set;
	unsigned char uuid[16];
	char label[13];
	const char *config;	/* -c options= */
	const char *proto;	/* -p [file=]PATH: the tree to copy in */
	/* The root directory's properties, inherited by what is made in it. */
	const char *autofsck;	/* -m autofsck=: the property's value, or NULL */
	uint32_t extszinherit;	/* -d extszinherit=: extent size hint, blocks */
	bool daxinherit;	/* -d daxinherit=1 */
};

/* options.c */
int mkfs_parse_args(int argc, char **argv, struct mkfs_cli *cli);
void mkfs_usage(FILE *out);

/* device.c */
struct xfsj_topology;
int mkfs_check_device(const struct mkfs_cli *cli, struct xfsj_topology *t);

/* kernel.c: warn on @out when the running kernel (uname, or
 * $XFSJ_TEST_KERNEL_RELEASE) cannot mount a feature of @f. */
void mkfs_kernel_check(FILE *out, const struct xfsj_features *f);

/* report.c */
/* @logdev: the external log device's name, NULL for an internal log. */
void mkfs_report(FILE *out, const char *name, const char *logdev,
		 const struct xfsj_geometry *g);

#endif
