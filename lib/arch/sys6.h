/*
 * arch/sys6.h - one system call made with the instruction itself: no libc,
 * no errno (the kernel's -errno comes back as it is).  For the audit
 * module, which has no libc (lib/audit/nolibc.c), and for the library's
 * own syscall() and prctl() (lib/seccomp.c), which must not call the
 * ones they replace.  AS-safe.
 */
#ifndef PROFIL_ARCH_SYS6_H
#define PROFIL_ARCH_SYS6_H

#if defined(__x86_64__)
static inline long profil_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}
#define PROFIL_HAVE_SYS6 1
#elif defined(__aarch64__)
static inline long profil_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n, x0 __asm__("x0") = a, x1 __asm__("x1") = b,
			 x2 __asm__("x2") = c, x3 __asm__("x3") = d, x4 __asm__("x4") = e,
			 x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
#define PROFIL_HAVE_SYS6 1
#endif

#endif
