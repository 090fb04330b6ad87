#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0004-install: an installed (and a DESTDIR-staged) maxcode finds its own
# maxcode.so, and make loads it from there.
. "$MC_SRCDIR/tests/lib.sh"

STAGE="$TRASH/stage"
bindir=$(run_make -s -C "$MC_BUILDDIR" print-bindir 2>/dev/null)

test_expect_success 'make install DESTDIR=... stages the files' '
  run_make -s -C "$MC_BUILDDIR" install DESTDIR="$STAGE" >log 2>&1 &&
  test -x "$STAGE$bindir/maxcode"
'

test_expect_success 'the staged maxcode prints the staged plugin' '
  "$STAGE$bindir/maxcode" --plugin-path >out &&
  p=$(cat out) &&
  case $p in "$STAGE"/*) ;; *) echo "# not under the stage: $p"; exit 1 ;; esac &&
  test -f "$p"
'

test_expect_success 'make loads the staged plugin' '
  printf "load \$(shell %s --plugin-path)\nall: ; @echo \$(maxcode-version)\n" \
    "$STAGE$bindir/maxcode" >Makefile &&
  run_make >out &&
  echo "$MC_VERSION" >expect && test_cmp expect out
'

test_expect_success 'the installed plugin exports only its three symbols' '
  nm -D --defined-only "$("$STAGE$bindir/maxcode" --plugin-path)" |
    awk "{print \$NF}" | sort >out &&
  printf "%s\n" maxcode_gmk_setup maxcode_gmk_unload \
    plugin_is_GPL_compatible >expect &&
  test_cmp expect out
'

test_done
