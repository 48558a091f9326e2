#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A deterministic source tree for bench/populate.sh: FILES regular files
# holding MIB MiB in all, in about FILES / 33 directories two levels deep
# (one of them large: 2% of the files), sizes log-normal (median ~3 KiB,
# 5% empty, none over 64 MiB) scaled to the total, contents from the
# seeded generator; and 1% symlinks, 1% extra hard links (to files in
# other directories), 0.5% files with one or two user.* xattrs.  The same
# arguments give the same tree (names, sizes, bytes, links, xattrs).
#   mktree.py DIR FILES MIB SEED
import math
import os
import random
import sys


def main():
	root, nfiles, mib, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
	rng = random.Random(seed)
	ndirs = max(1, nfiles // 33)
	top = max(1, int(math.sqrt(ndirs) / 2))
	dirs = []
	for i in range(ndirs):
		d = os.path.join(root, "t%03d" % (i % top), "d%05d" % i)
		os.makedirs(d)
		dirs.append(d)
	big = os.path.join(root, "big-dir")
	os.makedirs(big)

	raw = []
	for i in range(nfiles):
		raw.append(0.0 if rng.random() < 0.05 else rng.lognormvariate(8.0, 2.0))
	scale = (mib << 20) / max(1.0, sum(raw))
	sizes = [min(64 << 20, int(w * scale)) for w in raw]

	files = []
	for i, size in enumerate(sizes):
		d = big if rng.random() < 0.02 else dirs[rng.randrange(ndirs)]
		path = os.path.join(d, "f%06d-%s" % (i, "x" * rng.randrange(0, 40)))
		with open(path, "wb") as f:
			left = size
			while left:
				n = min(left, 1 << 22)
				f.write(rng.randbytes(n))
				left -= n
		files.append(path)
		if rng.random() < 0.005:
			os.setxattr(path, "user.bench", rng.randbytes(rng.randrange(1, 200)))
			if rng.random() < 0.5:
				os.setxattr(path, "user.more", rng.randbytes(rng.randrange(200, 2000)))
	for i in range(nfiles // 100):
		d = dirs[rng.randrange(ndirs)]
		os.link(files[rng.randrange(nfiles)], os.path.join(d, "h%06d" % i))
		target = "../" * rng.randrange(0, 3) + "y" * rng.randrange(1, 300)
		os.symlink(target, os.path.join(dirs[rng.randrange(ndirs)], "s%06d" % i))
	# Fixed times: the tree's metadata does not depend on when it was made.
	for d, subdirs, names in os.walk(root):
		for n in names:
			os.utime(os.path.join(d, n), (1600000000, 1600000000), follow_symlinks=False)
	for d, subdirs, names in os.walk(root, topdown=False):
		os.utime(d, (1600000000, 1600000000))


if __name__ == "__main__":
	main()
