# SPDX-License-Identifier: GPL-3.0-or-later
# MC_CHECK_DEPS: libcurl, cJSON and xxHash through pkg-config. All three are
# required; the message names the Debian package that provides each.
AC_DEFUN([MC_CHECK_DEPS], [
  PKG_CHECK_MODULES([CURL], [libcurl >= 7.68], [],
    [AC_MSG_ERROR([libcurl not found: apt-get install libcurl4-openssl-dev])])
  PKG_CHECK_MODULES([CJSON], [libcjson >= 1.7], [],
    [AC_MSG_ERROR([cJSON not found: apt-get install libcjson-dev])])
  PKG_CHECK_MODULES([XXHASH], [libxxhash >= 0.8], [],
    [AC_MSG_ERROR([xxHash not found: apt-get install libxxhash-dev])])
])
