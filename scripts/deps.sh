#!/bin/bash
# Install everything xfsj needs to build and test, from Debian packages.
# Safe to run again: apt-get skips what is installed.
set -eu
if [ "$(id -u)" != 0 ]; then
	echo "scripts/deps.sh: run as root (apt-get, loop devices, mounts)" >&2
	exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	libblkid-dev uuid-dev libreadline-dev libinih-dev check \
	xfsprogs attr util-linux fdisk kmod coreutils e2fsprogs time
# libfuse3 and fuse3: the write recorder of scripts/crash-torture.sh
apt-get install -y -q --no-install-recommends libfuse3-dev fuse3
# setfacl for the ACLs of tests/system/mkfs-populate.sh, /usr/bin/time
# for the peak RSS of tests/system/mkfs-populate-large.sh, scale-smoke.sh
# and bench/
apt-get install -y -q --no-install-recommends acl time
# The Debian package (tests/system/pkg-deb.sh: dpkg-buildpackage, lintian,
# man for its pages); util-linux's fsck for tests/system/fsck-xfs.sh
# comes with util-linux above.
apt-get install -y -q --no-install-recommends \
	dpkg-dev debhelper fakeroot lintian git man-db
