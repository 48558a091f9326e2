#!/bin/bash
# shellcheck shell=bash
# xfsprogs 6.13 (Debian 13 "trixie") as a test oracle.
#
# Why: Debian 12's own xfsprogs is 6.1, older than the on-disk features that
# xfsj writes and checks (parent pointers, file range exchange, nrext64 and
# the 6.13 mkfs defaults).  The tests compare against mkfs.xfs, xfs_db,
# xfs_repair, xfs_logprint and xfs_io 6.13, built here from Debian's trixie
# *source package*.  Nothing of xfsprogs goes into this repository: the
# source is fetched, built and installed into a cache outside it.
#
#   bash tests/system/lib/xfsprogs613.sh     prints the tools' directory
#   source tests/system/lib/xfsprogs613.sh   exports XFSPROGS613=that dir
#
# The directory, ${XFSJ_CACHE:-/var/cache/xfsj}/xfsprogs-6.13/bin, holds
# mkfs.xfs, xfs_repair, xfs_db, xfs_logprint, xfs_io and the other tools.
# A working cache (stamp file present, mkfs.xfs -V says 6.13) is used as it
# is; otherwise, as root: the build dependencies are installed with apt-get,
# the trixie source package is fetched with a private apt configuration (its
# own sources list, lists and cache; the system's apt state is not touched)
# from the mirror that the machine's own bookworm apt sources name, and it is
# built and installed into the cache.  Progress goes to stderr, the build
# log to ${XFSJ_CACHE:-/var/cache/xfsj}/xfsprogs-6.13.log.
#
# Environment: XFSJ_CACHE (cache root), XFSJ_JOBS (make -j, default 2).

# Bump when the recipe below changes: the cache is rebuilt.
_X613_RECIPE=1
_X613_TOOLS="mkfs.xfs xfs_repair xfs_db xfs_logprint xfs_io"
_X613_STAMP=.xfsj-xfsprogs613.stamp
# Build dependencies (xfsprogs 6.13's configure needs libinih, liburcu,
# libuuid and libblkid; gettext, editline, libicu and xfs_scrub are turned
# off, so their -dev packages are not needed).
_X613_DEPS="build-essential dpkg-dev pkg-config xz-utils gpgv debian-archive-keyring
	linux-libc-dev uuid-dev libblkid-dev libinih-dev liburcu-dev"

_x613_prefix() {
	local c=${XFSJ_CACHE:-/var/cache/xfsj}
	case "$c" in /*) ;; *) c=$PWD/$c ;; esac
	printf '%s/xfsprogs-6.13' "${c%/}"
}

# _x613_ready PREFIX: the cache holds a working build.
_x613_ready() {
	local p=$1 t
	[ -r "$p/$_X613_STAMP" ] || return 1
	grep -qx "recipe=$_X613_RECIPE" "$p/$_X613_STAMP" || return 1
	for t in $_X613_TOOLS; do
		[ -x "$p/bin/$t" ] || return 1
	done
	case "$("$p/bin/mkfs.xfs" -V 2>/dev/null)" in
	*"version 6.13."*) return 0 ;;
	esac
	return 1
}

# _x613_mirrors CODENAME: the archive URIs of the machine's apt entries for
# suite CODENAME, one a line, from deb822 .sources files and from one-line
# sources.list files.
_x613_mirrors() {
	local s=$1 f
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] || continue
			awk -v s="$s" '
			function flush(  n, a, i) {
				if ((" " f["types"] " ") ~ /[ \t]deb(-src)?[ \t]/ &&
				    (" " f["suites"] " ") ~ ("[ \t]" s "[ \t]") &&
				    tolower(f["enabled"]) !~ /no/) {
					n = split(f["uris"], a, /[ \t]+/)
					for (i = 1; i <= n; i++)
						if (a[i] != "") print a[i]
				}
				split("", f); key = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]/ { if (key != "") f[key] = f[key] " " $0; next }
			{
				i = index($0, ":")
				if (i == 0) next
				key = tolower(substr($0, 1, i - 1))
				f[key] = substr($0, i + 1)
			}
			END { flush() }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -r "$f" ] || continue
			sed -e 's/#.*//' -e 's/\[[^]]*\]//g' "$f" |
				awk -v s="$s" '($1 == "deb" || $1 == "deb-src") && $3 == s { print $2 }'
		done
	} | sed -e 's:/*$::' | awk '!seen[$0]++'
}

# _x613_build PREFIX: build and install into PREFIX (a subshell: its traps,
# options and variables stay inside).
_x613_build() (
	set -u
	prefix=$1
	cache=$(dirname "$prefix")
	log=$prefix.log
	tmp=
	die() {
		echo "xfsprogs613: $*" >&2
		exit 1
	}
	# run WHAT COMMAND...: COMMAND's output goes to the log.
	run() {
		local what=$1
		shift
		echo "+ $*" >>"$log"
		"$@" >>"$log" 2>&1 && return 0
		die "$what failed (last line: $(tail -n 1 "$log" 2>/dev/null)); log: $log"
	}
	# shellcheck disable=SC2317 # called by the EXIT trap
	cleanup() { [ -n "$tmp" ] && rm -rf "$tmp"; }
	trap cleanup EXIT
	trap 'exit 130' INT TERM

	[ "$(id -u)" = 0 ] || die "not built yet in $prefix, and building it needs root"
	mkdir -p "$cache" || die "cannot create $cache"
	exec 9>"$prefix.lock" || die "cannot open $prefix.lock"
	if ! flock -n 9; then
		echo "xfsprogs613: another run is building; waiting for $prefix.lock" >&2
		flock -w 3600 9 || die "timed out waiting for $prefix.lock"
	fi
	# Another run may have built it while we waited.
	_x613_ready "$prefix" && exit 0
	# Leftovers of a run that was killed (only one run holds the lock).
	rm -rf "$prefix".build.*
	tmp=$(mktemp -d "$prefix.build.XXXXXX") || die "cannot create a temporary directory in $cache"
	: >"$log"
	start=$(date +%s)
	echo "xfsprogs613: building xfsprogs 6.13 into $prefix (a few minutes; log: $log)" >&2

	# 1. Build dependencies.
	export DEBIAN_FRONTEND=noninteractive
	missing=
	for p in $_X613_DEPS; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "xfsprogs613: installing$missing" >&2
		aptopt=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=600)
		# shellcheck disable=SC2086
		if ! apt-get install "${aptopt[@]}" $missing >>"$log" 2>&1; then
			# The package lists are missing or stale: update them once.
			run "apt-get update" apt-get -q -o DPkg::Lock::Timeout=600 update
			# shellcheck disable=SC2086
			run "apt-get install$missing" apt-get install "${aptopt[@]}" $missing
		fi
	fi

	# 2. The trixie source package, through a private apt configuration.
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	mirrors=$(_x613_mirrors "${codename:-bookworm}")
	[ -n "$mirrors" ] || mirrors=$(_x613_mirrors bookworm)
	[ -n "$mirrors" ] || die "no apt source for ${codename:-bookworm} in /etc/apt (sources.list or sources.list.d) to take the mirror from"
	apt=$tmp/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" "$tmp/dl" ||
		die "cannot create $apt"
	# The system's configuration is read first (proxies and the like), then
	# this: own sources, lists and cache; no update hooks (they would touch
	# the system's caches).
	cat >"$apt/apt.conf" <<-EOF || die "cannot write $apt/apt.conf"
		#clear APT::Update::Pre-Invoke;
		#clear APT::Update::Post-Invoke;
		#clear APT::Update::Post-Invoke-Success;
		Dir::Etc::SourceList "$apt/trixie.sources";
		Dir::Etc::SourceParts "$apt/parts";
		Dir::State::Lists "$apt/lists";
		Dir::Cache "$apt/cache";
		Dir::Cache::pkgcache "";
		Dir::Cache::srcpkgcache "";
		APT::Sandbox::User "root";
		Acquire::Languages "none";
	EOF
	A=(-q -c "$apt/apt.conf")
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	# sources MIRROR SIGNED-BY-LINE: write the private sources list.
	sources() {
		printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\n%s\n' "$1" "$2" \
			>"$apt/trixie.sources"
	}
	# update: fetch trixie's Sources index; true when it is there.
	update() {
		rm -rf "$apt/lists"/*_Sources* "$apt/lists"/*Release*
		echo "+ apt-get update (trixie deb-src from $(sed -n 's/^URIs: //p' "$apt/trixie.sources"))" >>"$log"
		apt-get "${A[@]}" update >>"$log" 2>&1 &&
			ls "$apt/lists"/*_Sources* >/dev/null 2>&1
	}
	got=
	for m in $mirrors; do
		echo "xfsprogs613: fetching the trixie source index from $m" >&2
		# The trixie release is signed with keys that bookworm's
		# debian-archive-keyring already carries.
		sources "$m" "Signed-By: $keyring"
		if update; then got=$m; break; fi
		# An older keyring may lack them: take bookworm's newest and retry.
		apt-get install -y -q -o DPkg::Lock::Timeout=600 debian-archive-keyring >>"$log" 2>&1 || true
		if update; then got=$m; break; fi
		# Last resort, used only when the signature cannot be checked at
		# all: an unverified index (the files' checksums still come from
		# it).  Said loudly on stderr.
		sources "$m" "Trusted: yes"
		if update; then
			echo "xfsprogs613: WARNING: trixie's Release signature could not be verified; using $m unverified" >&2
			got=$m
			break
		fi
	done
	[ -n "$got" ] || die "cannot fetch the trixie source index from: $(echo "$mirrors" | tr '\n' ' ')(log: $log)"
	ver=$(apt-cache "${A[@]}" showsrc xfsprogs 2>>"$log" | awk '/^Version: 6\.13\./ { print $2 }' |
		sort -u | {
		best=
		while read -r v; do
			if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
		done
		echo "$best"
	})
	[ -n "$ver" ] || die "trixie has no xfsprogs 6.13.x source package (see: apt-cache showsrc in $log)"
	echo "xfsprogs613: fetching xfsprogs $ver (source)" >&2
	(cd "$tmp/dl" && run "apt-get source xfsprogs=$ver" apt-get "${A[@]}" source --download-only "xfsprogs=$ver") ||
		exit 1
	dsc=
	for f in "$tmp/dl"/xfsprogs_*.dsc; do [ -f "$f" ] && dsc=$f; done
	[ -n "$dsc" ] || die "apt-get source left no .dsc in $tmp/dl"
	run "dpkg-source -x" dpkg-source -x "$dsc" "$tmp/src"

	# 3. Configure, build, install into a staging root, check, then move
	# into place.  Static internal libraries (no rpath, no
	# LD_LIBRARY_PATH); no xfs_scrub, translations or editline; the
	# distribution's assertion setting (-DNDEBUG, as debian/rules).
	echo "xfsprogs613: configuring and building (make -j${XFSJ_JOBS:-2})" >&2
	cd "$tmp/src" || die "no $tmp/src"
	# configure is shipped: keep make from regenerating it with autotools.
	touch configure
	run configure env DEBUG=-DNDEBUG OPTIMIZER=-O2 ./configure \
		--prefix="$prefix" \
		--enable-shared=no --enable-gettext=no --enable-editline=no \
		--enable-scrub=no --enable-lto=no --enable-libicu=no \
		--with-systemd-unit-dir=no --with-crond-dir=no --with-udev-rule-dir=no
	run make make -j"${XFSJ_JOBS:-2}"
	stage=$tmp/stage
	run "make install" env DIST_ROOT="$stage" make install
	out=$stage$prefix
	[ -d "$out/sbin" ] || die "make install left no $out/sbin"
	mkdir -p "$out/bin" || die "cannot create $out/bin"
	for f in "$out"/sbin/*; do
		if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
		[ -e "$out/bin/${f##*/}" ] || ln -s "../sbin/${f##*/}" "$out/bin/${f##*/}"
	done
	for t in $_X613_TOOLS; do
		[ -x "$out/bin/$t" ] || die "the build has no $t"
	done
	v=$("$out/bin/mkfs.xfs" -V 2>&1)
	case "$v" in *"version 6.13."*) ;; *) die "the built mkfs.xfs -V says: $v" ;; esac
	# Smoke test on a small file image: every oracle tool runs.
	img=$tmp/smoke.img
	run "smoke: mkfs.xfs" "$out/bin/mkfs.xfs" -f -d file,name="$img",size=512m -n parent=1 -i exchange=1
	run "smoke: xfs_db" "$out/bin/xfs_db" -r -c "sb 0" -c "p versionnum" -c logres "$img"
	run "smoke: xfs_repair -n" "$out/bin/xfs_repair" -n "$img"
	run "smoke: xfs_logprint" "$out/bin/xfs_logprint" -t "$img"
	run "smoke: xfs_io" "$out/bin/xfs_io" -f -c "pwrite -q 0 4k" -c "stat" "$tmp/smoke.file"
	{
		echo "recipe=$_X613_RECIPE"
		echo "source=xfsprogs $ver (Debian trixie) from $got"
		echo "version=${v##* }"
		echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) in $(($(date +%s) - start)) s"
	} >"$out/$_X613_STAMP" || die "cannot write the stamp"
	cd / || die "cd /"
	rm -rf "$prefix" || die "cannot remove the old $prefix"
	mv "$out" "$prefix" || die "cannot move the build to $prefix"
	echo "xfsprogs613: built xfsprogs $ver into $prefix in $(($(date +%s) - start)) s" >&2
)

_x613_main() {
	local prefix
	prefix=$(_x613_prefix)
	if ! _x613_ready "$prefix"; then
		_x613_build "$prefix" >&2 || return 1
		_x613_ready "$prefix" || {
			echo "xfsprogs613: the build in $prefix does not work (mkfs.xfs -V is not 6.13)" >&2
			return 1
		}
	fi
	XFSPROGS613=$prefix/bin
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	# Sourced.
	if _x613_main; then
		export XFSPROGS613
		unset -f _x613_prefix _x613_ready _x613_mirrors _x613_build _x613_main
	else
		unset -f _x613_prefix _x613_ready _x613_mirrors _x613_build _x613_main
		return 1
	fi
else
	_x613_main || exit 1
	printf '%s\n' "$XFSPROGS613"
fi
