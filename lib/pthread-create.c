/*
 * pthread-create.c - how the program's pthread_create reaches threads.c.
 *
 * libprofil.so interposes pthread_create: the dynamic linker finds our
 * definition first, and we create the thread with the next one (libc's),
 * which dlsym(RTLD_NEXT) finds.
 *
 * libprofil.a cannot do that.  A static program has no next definition to
 * look up, and a pthread_create defined in the archive would have to call
 * libc.a's by its internal name (__pthread_create_2_1 in glibc 2.34 and
 * later, of which pthread_create is a weak alias), which libc.so.6 does not
 * export: a program linking the archive dynamically would no longer link.
 * So the archive (compiled with PROFIL_STATIC_ARCHIVE) defines no
 * pthread_create, and a plain static link keeps libc's, untracked.  It
 * defines __wrap_pthread_create for the linker's --wrap=pthread_create,
 * which the static link flags of libprofil.pc carry: every call to
 * pthread_create in the program then comes here, and __real_pthread_create
 * is libc's pthread_create, bound by the linker in static and dynamic links
 * alike.  This file is an object of its own in the archive, pulled in only
 * when something asks for __wrap_pthread_create (the -u of those flags),
 * because without --wrap its __real_pthread_create has no definition.
 *
 * libprofil.so exports __wrap_pthread_create as well, the same as its
 * pthread_create, so that the static flags also link a program in
 * which -lprofil finds the shared library.
 */
#include <dlfcn.h>
#include <errno.h>

#include "threads.h"

#ifdef PROFIL_STATIC_ARCHIVE

extern profil__create_fn __real_pthread_create;

PROFIL_API int __wrap_pthread_create(pthread_t *thr, const pthread_attr_t *attr,
				     void *(*fn)(void *), void *arg)
{
	return profil__thread_create(__real_pthread_create, thr, attr, fn, arg);
}

#else

static int create(pthread_t *thr, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	/* Racing first calls store the same value. */
	static profil__create_fn *real;
	profil__create_fn *f = __atomic_load_n(&real, __ATOMIC_RELAXED);
	if (!f) {
		f = (profil__create_fn *)dlsym(RTLD_NEXT, "pthread_create");
		if (!f)
			return EAGAIN;
		__atomic_store_n(&real, f, __ATOMIC_RELAXED);
	}
	return profil__thread_create(f, thr, attr, fn, arg);
}

PROFIL_API int pthread_create(pthread_t *thr, const pthread_attr_t *attr, void *(*fn)(void *),
			      void *arg)
{
	return create(thr, attr, fn, arg);
}

PROFIL_API int __wrap_pthread_create(pthread_t *thr, const pthread_attr_t *attr,
				     void *(*fn)(void *), void *arg)
{
	return create(thr, attr, fn, arg);
}

#endif
