/*
 * <sys/resource.h> overlay: the system header, plus Tru64's struct
 * profil_args and extended profil() form, which Tru64 declared here.
 */
#ifndef _LIBPROFIL_SYS_RESOURCE_H
#define _LIBPROFIL_SYS_RESOURCE_H 1

#include_next <sys/resource.h>
#include <sys/profil_args.h>

#endif
