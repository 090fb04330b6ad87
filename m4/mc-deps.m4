# SPDX-License-Identifier: GPL-3.0-or-later
# MC_CHECK_DEPS: libcurl, cJSON, xxHash and libsodium through pkg-config.
# All four are required (libsodium signs and verifies cache entries:
# runtime/store/sign.c); the message names the Debian package that provides
# each, and configure stops without it: CI fails, it never skips.
AC_DEFUN([MC_CHECK_DEPS], [
  PKG_CHECK_MODULES([CURL], [libcurl >= 7.68], [],
    [AC_MSG_ERROR([libcurl not found: apt-get install libcurl4-openssl-dev])])
  # libcurl is opened with dlopen() on first use (runtime/util/curl_lib.c),
  # by the name of its ABI, which has been 4 since 2006: the file must be
  # there at run time.
  AC_MSG_CHECKING([for the libcurl shared library])
  mc_save_LIBS=$LIBS
  LIBS="$CURL_LIBS $LIBS"
  AC_RUN_IFELSE([AC_LANG_PROGRAM([[#include <dlfcn.h>]],
      [[return dlopen("libcurl.so.4", RTLD_NOW) ? 0 : 1;]])],
    [AC_MSG_RESULT([libcurl.so.4])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([libcurl.so.4 cannot be opened: apt-get install libcurl4])],
    [AC_MSG_RESULT([libcurl.so.4 (cross-compiling: not checked)])])
  LIBS=$mc_save_LIBS
  AC_DEFINE([MC_CURL_SONAME], ["libcurl.so.4"],
    [The libcurl that runtime/util/curl_lib.c opens.])
  PKG_CHECK_MODULES([CJSON], [libcjson >= 1.7], [],
    [AC_MSG_ERROR([cJSON not found: apt-get install libcjson-dev])])
  PKG_CHECK_MODULES([XXHASH], [libxxhash >= 0.8], [],
    [AC_MSG_ERROR([xxHash not found: apt-get install libxxhash-dev])])
  PKG_CHECK_MODULES([SODIUM], [libsodium >= 1.0.14], [],
    [AC_MSG_ERROR([libsodium not found: apt-get install libsodium-dev])])
  mc_save_LIBS=$LIBS
  LIBS="$SODIUM_LIBS $LIBS"
  AC_CHECK_FUNC([crypto_sign_verify_detached], [],
    [AC_MSG_ERROR([libsodium without Ed25519 signatures (crypto_sign_verify_detached): apt-get install libsodium-dev])])
  LIBS=$mc_save_LIBS
])
