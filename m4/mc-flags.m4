# SPDX-License-Identifier: GPL-3.0-or-later
# MC_CHECK_CFLAG(FLAG, [IF-OK], [IF-NOT]): does $CC accept FLAG (as an
# error, not a warning)? Results are cached per flag.
AC_DEFUN([MC_CHECK_CFLAG], [
  AS_VAR_PUSHDEF([mc_var], [mc_cv_cflag_$1])
  AC_CACHE_CHECK([whether $CC accepts $1], [mc_var], [
    mc_save_cflags=$CFLAGS
    CFLAGS="$CFLAGS -Werror $1"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
      [AS_VAR_SET([mc_var], [yes])], [AS_VAR_SET([mc_var], [no])])
    CFLAGS=$mc_save_cflags])
  AS_VAR_IF([mc_var], [yes], [$2], [$3])
  AS_VAR_POPDEF([mc_var])
])

# MC_WARNING_CFLAGS: the warnings every build uses, in MC_WARN_CFLAGS.
AC_DEFUN([MC_WARNING_CFLAGS], [
  MC_WARN_CFLAGS=
  for mc_flag in -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
                 -Wmissing-prototypes -Wpointer-arith -Wvla; do
    MC_CHECK_CFLAG([$mc_flag], [MC_WARN_CFLAGS="$MC_WARN_CFLAGS $mc_flag"])
  done
  AS_IF([test "x$enable_werror" = xyes],
    [MC_WARN_CFLAGS="$MC_WARN_CFLAGS -Werror"])
  MC_CHECK_CFLAG([-fvisibility=hidden],
    [MC_VISIBILITY_CFLAGS=-fvisibility=hidden],
    [AC_MSG_ERROR([$CC does not support -fvisibility=hidden])])
  # A variable read before it is set gets a fixed non-zero pattern
  # instead of whatever the stack held: such a bug then shows the same
  # way on every run (and in the unit tests) instead of now and then.
  MC_HARDEN_CFLAGS=
  MC_CHECK_CFLAG([-ftrivial-auto-var-init=pattern],
    [MC_HARDEN_CFLAGS=-ftrivial-auto-var-init=pattern])
  AC_SUBST([MC_WARN_CFLAGS])
  AC_SUBST([MC_HARDEN_CFLAGS])
  AC_SUBST([MC_VISIBILITY_CFLAGS])
])

# MC_FRONT: how cli/front.c, the program installed as `maxcode`, is
# built. Where a static program without the C library links and runs
# here (x86-64 Linux, the compiler's own flags allowing it), it is one
# (MC_FRONT_BARE): it starts in a third of the time of a program linked
# with libc, which is what a compiler launcher's call on an unmarked
# file costs (doc/benchmarks.md). Elsewhere it is an ordinary program.
# --disable-bare-front builds the ordinary one.
AC_DEFUN([MC_FRONT], [
  AC_ARG_ENABLE([bare-front],
    [AS_HELP_STRING([--disable-bare-front],
      [build the maxcode front program with the C library, not as a
       static program without it])],
    [], [enable_bare_front=yes])
  MC_FRONT_CFLAGS="-ffreestanding -fno-stack-protector"
  MC_FRONT_LDFLAGS="-all-static -Wc,-nostdlib"
  AC_CACHE_CHECK([whether a static program without the C library runs],
    [mc_cv_front_bare], [
    mc_save_cflags=$CFLAGS
    mc_save_ldflags=$LDFLAGS
    CFLAGS="$CFLAGS $MC_FRONT_CFLAGS"
    LDFLAGS="$LDFLAGS -static -nostdlib"
    AC_RUN_IFELSE([AC_LANG_SOURCE([[
#if !defined(__x86_64__) || !defined(__linux__)
#error only x86-64 Linux
#endif
#include <sys/syscall.h>
void mc_start(long *sp);
void mc_start(long *sp)
{
    volatile char buf[64];
    long r;
    buf[0] = (char)sp[0];
    __asm__ volatile("syscall" : "=a"(r)
                     : "a"(SYS_exit_group), "D"((long)buf[0] - 1)
                     : "rcx", "r11", "memory");
}
__asm__(".text\n.globl _start\n_start:\n\txor %ebp, %ebp\n"
        "\tmov %rsp, %rdi\n\tand \$-16, %rsp\n\tcall mc_start\n\thlt\n");
]])], [mc_cv_front_bare=yes], [mc_cv_front_bare=no],
      [mc_cv_front_bare=no])
    CFLAGS=$mc_save_cflags
    LDFLAGS=$mc_save_ldflags])
  AS_IF([test "x$enable_bare_front" = xyes && test "x$mc_cv_front_bare" = xyes],
    [mc_front_bare=1 mc_front_kind="static, without the C library"],
    [mc_front_bare=0 mc_front_kind="linked with the C library"
     MC_FRONT_CFLAGS= MC_FRONT_LDFLAGS=])
  AC_DEFINE_UNQUOTED([MC_FRONT_BARE], [$mc_front_bare],
    [Define to 1 when the maxcode front is built without the C library.])
  AC_SUBST([MC_FRONT_CFLAGS])
  AC_SUBST([MC_FRONT_LDFLAGS])
])
