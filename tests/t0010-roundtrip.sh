#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0010-roundtrip: $(maxcode ...) in a real project, end to end: the first
# build searches and stores, later builds hit the cache and search no
# more; the default goal, -n/-q, the modes, the manifest and the variant
# file (quote includes, #line) behave as DESIGN 1.2-1.6 say.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
# A trivial program: nothing here may win by noise.
export MAXCODE_MIN_SPEEDUP=1000

# project DIR: a small program with a marked source that includes a
# header next to it, and two inputs. The Makefile's first rule is prog.
project () {
  sample_unit "$1" &&
  tabify >"$1/Makefile" <<-EOF
	load $PLUGIN
	prog: \$(maxcode src/hot.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
}

# prog_works: ./prog gives the right sums.
prog_works () {
  ./prog <t/a.in >out.a && echo 12 >expect.a && test_cmp expect.a out.a &&
  ./prog <t/b.in >out.b && echo 20 >expect.b && test_cmp expect.b out.b
}

project rt

test_expect_success 'the first build searches once, stores and links prog' '
  cd rt &&
  run_make >out 2>err &&
  prog_works &&
  expect_stat misses 1 && expect_stat hits 0 &&
  expect_stat searches 1 && expect_stat stores 1 &&
  test "$(entries)" = 1 &&
  ls .maxcode/*/hot.c >/dev/null
'

test_expect_success 'a second make has nothing to do and does not search' '
  cd rt &&
  run_make >out 2>err &&
  grep -E "Nothing to be done|is up to date" out &&
  ! grep -F "cc " out &&
  expect_stat searches 1 && expect_stat misses 1 && expect_stat hits 1 &&
  prog_works
'

test_expect_success 'rm prog, make again: a hit, no search' '
  cd rt &&
  rm prog &&
  run_make >out 2>err &&
  prog_works &&
  expect_stat hits 2 && expect_stat misses 1 && expect_stat searches 1 &&
  test "$(entries)" = 1
'

test_expect_success 'rm -rf .maxcode, make again: the variant comes back from the cache' '
  cd rt &&
  rm -rf .maxcode prog &&
  run_make >out 2>err &&
  prog_works &&
  ls .maxcode/*/hot.c >/dev/null &&
  expect_stat hits 3 && expect_stat misses 1 && expect_stat searches 1
'

test_expect_success 'show --json: status original, a reason, includes util.h' '
  cd rt &&
  "$MAXCODE_BIN" show src/hot.c --json >show.json &&
  test "$(json_get show.json "d[\"status\"]")" = original &&
  json_get show.json "d[\"reason\"]" | grep -q "no variant beat min-speedup 1000" &&
  test "$(json_get show.json "d[\"candidates\"]")" = 2 &&
  test "$(json_get show.json "d[\"baseline_seconds\"] > 0")" = True &&
  test "$(json_get show.json "d[\"source\"]")" = src/hot.c &&
  test "$(json_get show.json "\"src/util.h\" in d[\"includes\"]")" = True &&
  key=$(json_get show.json "d[\"key\"]") &&
  test -f ".maxcode/$key/hot.c"
'

test_expect_success 'the variant starts with #line 1 "src/hot.c" and reaches util.h' '
  cd rt &&
  v=$(ls .maxcode/*/hot.c) &&
  head -n 1 "$v" >first &&
  grep -q "^#line 1 \"src/hot.c\"\( \|\$\)" first &&
  tail -n +2 "$v" | sed "/#include/d" >body &&
  sed "/#include/d" src/hot.c >orig &&
  test_cmp orig body &&
  ! grep -q "^#include \"util.h\"" "$v" &&
  cc -fsyntax-only "$v"
'

test_expect_success 'a compiler message in the variant points at src/hot.c' '
  project warn && cd warn &&
  sed "s/^int main(void)\$/#warning hello\n&/" src/hot.c >hot.tmp &&
  mv hot.tmp src/hot.c &&
  line=$(grep -n "^#warning hello" src/hot.c | cut -d: -f1) &&
  test "$line" = 3 &&
  run_make >out 2>err &&
  prog_works &&
  grep "src/hot.c:3:[0-9]*: warning: #warning hello" err &&
  ! grep "\.maxcode/[^ ]*:[0-9]*:[0-9]*: warning" err
'

test_expect_success 'a first rule all stays the default goal' '
  project goal && cd goal &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	HOT := \$(maxcode src/hot.c, inputs=t/*.in)
	all: prog
	>@echo all-marker
	prog: \$(HOT)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  run_make >out 2>err &&
  contains out all-marker &&
  prog_works
'

test_expect_success 'make -n on a fresh cache starts no search' '
  project dry && cd dry &&
  export MAXCODE_CACHE_DIR="$TRASH/cache-dry" &&
  run_make -n >out 2>err &&
  test ! -e prog &&
  expect_stat searches 0 && expect_stat stores 0 &&
  test "$(entries)" = 0
'

test_expect_success 'make -q on a fresh cache exits 1 and starts no search' '
  project query && cd query &&
  export MAXCODE_CACHE_DIR="$TRASH/cache-query" &&
  expect_exit 1 run_make -q >out 2>err &&
  test ! -e prog &&
  expect_stat searches 0 && expect_stat stores 0 &&
  test "$(entries)" = 0
'

test_expect_success 'MAXCODE_MODE=off expands to SOURCE and counts nothing' '
  project off && cd off &&
  export MAXCODE_CACHE_DIR="$TRASH/cache-off" &&
  printf "load %s\n\$(info \$(maxcode src/hot.c, inputs=t/*.in))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  MAXCODE_MODE=off run_make >out 2>err &&
  echo src/hot.c >expect && test_cmp expect out &&
  expect_stat misses 0 && expect_stat hits 0 &&
  test ! -d .maxcode
'

test_expect_success 'cache mode: a miss expands to SOURCE and starts no search' '
  project cmode && cd cmode &&
  export MAXCODE_CACHE_DIR="$TRASH/cache-cmode" &&
  MAXCODE_MODE=cache run_make >out 2>err &&
  prog_works &&
  grep -F "src/hot.c" out &&
  ! grep -F ".maxcode/" out &&
  expect_stat misses 1 && expect_stat searches 0 &&
  test "$(entries)" = 0
'

test_expect_success 'the make variable MAXCODE_MODE beats the environment' '
  project mvar && cd mvar &&
  export MAXCODE_CACHE_DIR="$TRASH/cache-mvar" &&
  printf "load %s\nMAXCODE_MODE := optimize\n\$(info \$(maxcode src/hot.c))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  MAXCODE_MODE=off run_make >out 2>err &&
  grep -q "^\.maxcode/[0-9a-f]*/hot\.c\$" out &&
  printf "load %s\nMAXCODE_MODE := off\n\$(info \$(maxcode src/hot.c))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  MAXCODE_MODE=optimize run_make >out 2>err &&
  echo src/hot.c >expect && test_cmp expect out
'

test_done
