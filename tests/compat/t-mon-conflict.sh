#!/bin/sh
# T75: <mon.h> (AIX struct prof) and <sys/profil.h> (sprofil's struct prof)
# cannot share a translation unit; in either include order compilation
# fails with the library's own #error, and that is the first error the
# programmer sees (the compiler may add a redefinition error after it).
# Each header alone compiles (control).
. "$(dirname "$0")/compat.sh"

msg='both define struct prof with different layouts'

printf '#include <mon.h>\nint main(void) { return 0; }\n' | cc_ok mon_alone
printf '#include <sys/profil.h>\nint main(void) { return 0; }\n' | cc_ok profil_alone

printf '#include <mon.h>\n#include <sys/profil.h>\nint main(void) { return 0; }\n' |
	cc_fail mon_first
printf '#include <sys/profil.h>\n#include <mon.h>\nint main(void) { return 0; }\n' |
	cc_fail profil_first
for t in mon_first profil_first; do
	first=$(grep -m1 'error:' "$tmp/$t.err" || true)
	case $first in
	*"#error"*"$msg"*) ;;
	*)
		echo "$t: the first error is not the library's diagnostic:"
		cat "$tmp/$t.err"
		exit 1
		;;
	esac
done
