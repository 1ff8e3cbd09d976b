#!/bin/sh
# Every man page in man/ is clean under `mandoc -T lint -W warning` (any
# message, warnings included, is a failure) and has the sections a reader
# looks for: NAME, SYNOPSIS, DESCRIPTION and SEE ALSO everywhere, plus
# LIBRARY, RETURN VALUES, ERRORS, ENVIRONMENT, STANDARDS, HISTORY and
# BUGS or CAVEATS in the library pages (section 3).  Also: .Dt names the
# file it is in, and cross references to our own pages point to files that
# exist.
set -u
cd "$(dirname "$0")/../.."

if ! command -v mandoc >/dev/null 2>&1; then
	echo "SKIP: mandoc is not installed (make deps installs it)"
	exit 77
fi

pages=$(ls man/*.[1-8] 2>/dev/null)
[ -n "$pages" ] || { echo "no man pages found in man/"; exit 1; }

fail=0
bad() {
	echo "$1: $2"
	fail=1
}

for p in $pages; do
	out=$(mandoc -T lint -W warning "$p" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || [ -n "$out" ]; then
		bad "$p" "mandoc -T lint -W warning (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi

	base=${p##*/}
	name=${base%.*}
	sec=${base##*.}
	dt=$(sed -n 's/^\.Dt  *\([^ ]*\)  *\([^ ]*\).*/\1 \2/p' "$p")
	want="$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]') $sec"
	[ "$dt" = "$want" ] || bad "$p" ".Dt is '$dt', expected '$want'"

	secs=$(sed -n 's/^\.Sh  *//p' "$p" | tr -d '"')
	need="NAME|SYNOPSIS|DESCRIPTION|SEE ALSO"
	[ "$sec" = 3 ] &&
		need="$need|LIBRARY|RETURN VALUES|ERRORS|ENVIRONMENT|STANDARDS|HISTORY"
	old_ifs=$IFS
	IFS='|'
	for s in $need; do
		printf '%s\n' "$secs" | grep -qx "$s" || bad "$p" "no $s section"
	done
	IFS=$old_ifs
	if [ "$sec" = 3 ] && ! printf '%s\n' "$secs" | grep -qx -e BUGS -e CAVEATS; then
		bad "$p" "no BUGS or CAVEATS section"
	fi

	# .Xr to one of our own pages must name a page that exists.
	sed -n 's/^\.Xr  *\([^ ]*\)  *\([1-8]\).*/\1 \2/p' "$p" | sort -u |
		while read -r xn xs; do
			case $xn in
			profil | sprofil | pcsample | libprofil* | pcprof*)
				[ -f "man/$xn.$xs" ] || echo "$p: .Xr $xn $xs: no man/$xn.$xs"
				;;
			esac
		done >"${TMPDIR:-/tmp}/man-lint.$$"
	if [ -s "${TMPDIR:-/tmp}/man-lint.$$" ]; then
		cat "${TMPDIR:-/tmp}/man-lint.$$"
		fail=1
	fi
	rm -f "${TMPDIR:-/tmp}/man-lint.$$"
done

exit $fail
