# SPDX-License-Identifier: GPL-3.0-or-later
# MC_CHECK_GNUMAKE: require GNU Make's <gnumake.h> and report whether it
# carries GMK_ABI_VERSION (make 4.4 and later) or not (make 4.3).
AC_DEFUN([MC_CHECK_GNUMAKE], [
  AC_CHECK_HEADER([gnumake.h], [],
    [AC_MSG_ERROR([<gnumake.h> not found: install GNU Make's development
header (Debian: it ships with the 'make' package; else pass CPPFLAGS=-I...)])])
  AC_CACHE_CHECK([for GMK_ABI_VERSION in gnumake.h], [mc_cv_gmk_abi], [
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <gnumake.h>]], [[
#ifndef GMK_ABI_VERSION
#error no GMK_ABI_VERSION
#endif
      return GMK_ABI_VERSION;]])],
      [mc_cv_gmk_abi=yes], [mc_cv_gmk_abi=no])])
  AS_IF([test "x$mc_cv_gmk_abi" = xyes],
    [mc_gmk_abi="versioned (make >= 4.4): setup(abi, floc)"],
    [mc_gmk_abi="unversioned (make 4.3): setup(floc)"])
])
