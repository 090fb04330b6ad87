# SPDX-License-Identifier: GPL-3.0-or-later
# MC_ENABLE_SWITCHES: --enable-asan, --enable-ubsan, --enable-werror,
# --enable-debug. Sanitizer flags go into MC_SAN_CFLAGS/MC_SAN_LDFLAGS.
# Make itself is not instrumented, so loading an ASan-built maxcode.so
# into make needs the ASan runtime preloaded: MC_ASAN_PRELOAD names it
# and the test suite sets LD_PRELOAD from it.
AC_DEFUN([MC_ENABLE_SWITCHES], [
  AC_ARG_ENABLE([asan], [AS_HELP_STRING([--enable-asan],
    [build with AddressSanitizer])], [], [enable_asan=no])
  AC_ARG_ENABLE([ubsan], [AS_HELP_STRING([--enable-ubsan],
    [build with UndefinedBehaviorSanitizer])], [], [enable_ubsan=no])
  AC_ARG_ENABLE([werror], [AS_HELP_STRING([--enable-werror],
    [turn compiler warnings into errors])], [], [enable_werror=no])
  AC_ARG_ENABLE([debug], [AS_HELP_STRING([--enable-debug],
    [build with -O0 -g3 and allocation fault injection (MC_DEBUG)])],
    [], [enable_debug=no])

  MC_SAN_CFLAGS=
  MC_ASAN_PRELOAD=
  AS_IF([test "x$enable_asan" = xyes], [
    MC_CHECK_CFLAG([-fsanitize=address], [],
      [AC_MSG_ERROR([$CC does not support -fsanitize=address])])
    MC_SAN_CFLAGS="$MC_SAN_CFLAGS -fsanitize=address -fno-omit-frame-pointer"
    AC_MSG_CHECKING([for the shared ASan runtime])
    for mc_rt in libasan.so libclang_rt.asan-x86_64.so; do
      mc_path=`$CC -print-file-name=$mc_rt 2>/dev/null`
      AS_IF([test -n "$mc_path" && test -f "$mc_path"],
        [MC_ASAN_PRELOAD=`cd "$(dirname "$mc_path")" && pwd`/`basename "$mc_path"`; break])
    done
    AC_MSG_RESULT([${MC_ASAN_PRELOAD:-none}])])
  AS_IF([test "x$enable_ubsan" = xyes], [
    MC_CHECK_CFLAG([-fsanitize=undefined], [],
      [AC_MSG_ERROR([$CC does not support -fsanitize=undefined])])
    MC_SAN_CFLAGS="$MC_SAN_CFLAGS -fsanitize=undefined -fno-sanitize-recover=undefined"])
  MC_SAN_LDFLAGS=$MC_SAN_CFLAGS

  MC_DEBUG_CFLAGS=
  AS_IF([test "x$enable_debug" = xyes], [
    MC_DEBUG_CFLAGS="-O0 -g3"
    AC_DEFINE([MC_DEBUG], [1], [Debug build: counted, failable allocation])])

  AC_SUBST([MC_SAN_CFLAGS])
  AC_SUBST([MC_SAN_LDFLAGS])
  AC_SUBST([MC_ASAN_PRELOAD])
  AC_SUBST([MC_DEBUG_CFLAGS])
])
