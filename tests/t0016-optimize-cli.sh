#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0016-optimize-cli: `maxcode optimize` by hand: modes, flags, keys.
. "$MC_SRCDIR/tests/lib.sh"

# One candidate per search: nothing asserted here depends on how many
# (lib.sh's default is 2).
export MAXCODE_BUDGET=1

export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_MIN_SPEEDUP=1000
mkdir -p a b
printf 'int main(void) { return 0; }\n' >a/x.c
cp a/x.c b/x.c

test_expect_success 'mode off prints SOURCE and stores nothing' '
  "$MAXCODE_BIN" optimize --mode off a/x.c >out &&
  echo a/x.c >expect && test_cmp expect out &&
  test "$(entries)" -eq 0
'

test_expect_success 'mode cache never searches: a miss prints SOURCE' '
  MAXCODE_MODE=cache "$MAXCODE_BIN" optimize a/x.c >out &&
  echo a/x.c >expect && test_cmp expect out &&
  test "$(entries)" -eq 0 && test ! -d .maxcode
'

test_expect_success 'an unknown --mode is a usage error' '
  expect_exit 2 "$MAXCODE_BIN" optimize --mode fast a/x.c 2>err &&
  contains err "expected one of: optimize cache verify refresh off"
'

test_expect_success 'optimize stores an entry and prints the variant' '
  "$MAXCODE_BIN" optimize a/x.c >out 2>err &&
  grep -q "^\.maxcode/[0-9a-f]\{32\}/x\.c$" out &&
  test -f "$(cat out)" && test "$(entries)" -eq 1 &&
  contains err "keeping the original (no variant beat min-speedup"
'

test_expect_success 'then mode cache is a hit' '
  MAXCODE_MODE=cache "$MAXCODE_BIN" optimize a/x.c >out2 &&
  test_cmp out out2
'

test_expect_success 'the same bytes in another directory are another unit' '
  "$MAXCODE_BIN" optimize b/x.c >outb 2>/dev/null &&
  ! test_cmp out outb >/dev/null && test "$(entries)" -eq 2
'

test_expect_success 'CFLAGS from the environment, --flags over them' '
  CFLAGS=-O1 "$MAXCODE_BIN" optimize a/x.c >/dev/null 2>&1 &&
  "$MAXCODE_BIN" show a/x.c --json | grep -q "\"-O1\"" &&
  CFLAGS=-O1 "$MAXCODE_BIN" optimize --flags "-O3 -DX=1" a/x.c \
    >/dev/null 2>&1 &&
  "$MAXCODE_BIN" show a/x.c --json >m &&
  json m "\"-O3\" in j[\"flags\"]" "\"-DX=1\" in j[\"flags\"]" \
    "\"-O1\" not in j[\"flags\"]"
'

test_expect_success 'a wrong --key keeps the original and stores nothing' '
  n=$(entries) &&
  "$MAXCODE_BIN" optimize --key 0123456789abcdef0123456789abcdef \
    a/x.c >out 2>err &&
  contains err "inputs changed while make ran" &&
  test "$(entries)" -eq "$n" &&
  test -f .maxcode/0123456789abcdef0123456789abcdef/x.c
'

test_done
