# shellcheck shell=sh
# helpers/stage.sh - sourced by the tests that build programs as a user
# would, against an installed libprofil: `make install DESTDIR=$stage
# PREFIX=/usr` into a fresh directory $stage (removed at exit), with
# pkg-config pointed at the staged .pc (PKG_CONFIG_SYSROOT_DIR and
# PKG_CONFIG_PATH).  make install also links into the build tree
# (build/install/), so tests that run at the same time take turns.
# Source it from the top of the tree.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if ! flock "${B:-build}/install.lock" make -s install DESTDIR="$stage" PREFIX=/usr \
	>"$stage/install.log" 2>&1; then
	echo "make install DESTDIR=$stage PREFIX=/usr failed:"
	cat "$stage/install.log"
	exit 1
fi
PKG_CONFIG_SYSROOT_DIR=$stage
PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig
export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
