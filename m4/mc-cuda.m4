# SPDX-License-Identifier: GPL-3.0-or-later
# MC_WITH_CUDA: --with-cuda[=DIR] / --without-cuda. Without the option,
# nvcc is looked for on PATH and in /usr/local/cuda; the build works
# without it. --with-cuda (or =DIR) makes a missing nvcc an error.
AC_DEFUN([MC_WITH_CUDA], [
  AC_ARG_WITH([cuda],
    [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@],
      [use the CUDA toolkit in DIR (default: auto-detect nvcc)])],
    [], [with_cuda=check])
  NVCC=
  AS_CASE([$with_cuda],
    [no], [],
    [yes|check],
      [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH$PATH_SEPARATOR/usr/local/cuda/bin])],
    [AC_PATH_PROG([NVCC], [nvcc], [], [$with_cuda/bin])])
  AS_IF([test "x$with_cuda" != xno && test "x$with_cuda" != xcheck &&
         test -z "$NVCC"],
    [AC_MSG_ERROR([--with-cuda given, but no nvcc found (looked in
${with_cuda}/bin and PATH)])])
  AS_IF([test -n "$NVCC"],
    [AC_DEFINE_UNQUOTED([MC_NVCC], ["$NVCC"], [Path of nvcc found by configure])])
  AM_CONDITIONAL([MC_HAVE_CUDA], [test -n "$NVCC"])
  AC_SUBST([NVCC])
])
