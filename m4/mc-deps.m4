# SPDX-License-Identifier: GPL-3.0-or-later
# MC_CHECK_DEPS: libcurl, cJSON, xxHash and libsodium through pkg-config.
# All four are required (libsodium signs and verifies cache entries:
# runtime/store/sign.c); the message names the Debian package that provides
# each, and configure stops without it: CI fails, it never skips.
AC_DEFUN([MC_CHECK_DEPS], [
  PKG_CHECK_MODULES([CURL], [libcurl >= 7.68], [],
    [AC_MSG_ERROR([libcurl not found: apt-get install libcurl4-openssl-dev])])
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
