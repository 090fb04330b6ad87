#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0001-load: make 4.3 loads maxcode.so; it exports only what it must.
. "$MC_SRCDIR/tests/lib.sh"

test_expect_success 'plugin path is absolute and exists' '
  case $PLUGIN in /*) ;; *) exit 1 ;; esac &&
  test -f "$PLUGIN"
'

test_expect_success 'make loads the plugin and expands maxcode-version' '
  printf "load %s\n\$(info version=\$(maxcode-version))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  run_make >out 2>err &&
  echo "version=$MC_VERSION" >expect &&
  test_cmp expect out
'

test_expect_success 'load via $(shell maxcode --plugin-path)' '
  cat >Makefile <<-EOF &&
	load \$(shell $MAXCODE_BIN --plugin-path)
	all: ; @echo \$(maxcode-version)
	EOF
  run_make >out &&
  echo "$MC_VERSION" >expect &&
  test_cmp expect out
'

test_expect_success 'the function form works too' '
  printf "load %s\nall: ; @echo \$(maxcode-version ) \$(call maxcode-version)\n" \
    "$PLUGIN" >Makefile &&
  run_make >out &&
  echo "$MC_VERSION $MC_VERSION" >expect &&
  test_cmp expect out
'

test_expect_success 'without maxcode, -load $(shell maxcode ...) still builds' '
  printf -- "-load \$(shell %s --plugin-path 2>/dev/null)\nall: ; @echo built\n" \
    "$TRASH/not-installed/maxcode" >Makefile &&
  run_make >out &&
  echo built >expect &&
  test_cmp expect out
'

test_expect_success 'only the GPL symbol, setup and unload are exported' '
  nm -D --defined-only "$PLUGIN" | awk "{print \$NF}" | sort >out &&
  printf "%s\n" maxcode_gmk_setup maxcode_gmk_unload \
    plugin_is_GPL_compatible >expect &&
  test_cmp expect out
'

test_done
