#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0002-cli: the maxcode command's options, usage errors and exit codes.
. "$MC_SRCDIR/tests/lib.sh"

test_expect_success '--version prints the version' '
  "$MAXCODE_BIN" --version >out &&
  echo "maxcode $MC_VERSION" >expect &&
  test_cmp expect out
'

test_expect_success '--help exits 0 and lists the commands' '
  "$MAXCODE_BIN" --help >out &&
  contains out "--plugin-path" &&
  contains out "config [--json]"
'

test_expect_success 'an unknown command is a usage error (exit 2)' '
  expect_exit 2 "$MAXCODE_BIN" frobnicate 2>err &&
  contains err "maxcode: unknown command '\''frobnicate'\''" &&
  contains err "usage: maxcode"
'

test_expect_success 'an unknown option is a usage error (exit 2)' '
  expect_exit 2 "$MAXCODE_BIN" --frob 2>err &&
  contains err "unknown option '\''--frob'\''"
'

test_expect_success 'no arguments is a usage error (exit 2)' '
  expect_exit 2 "$MAXCODE_BIN" 2>err &&
  contains err "usage: maxcode"
'

test_expect_success 'config with an unknown option is a usage error' '
  expect_exit 2 "$MAXCODE_BIN" config --frob 2>err &&
  contains err "config: unknown option '\''--frob'\''"
'

test_expect_success '--plugin-path takes no argument' '
  expect_exit 2 "$MAXCODE_BIN" --plugin-path extra 2>err
'

test_done
