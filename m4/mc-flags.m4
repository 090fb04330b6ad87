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
