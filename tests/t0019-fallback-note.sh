#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0019-fallback-note: a cached fallback whose cause is in the Makefile
# is never silent (issue 27). A unit whose program needs another file
# (main in main.c) and whose call forgets link=: the original "does not
# build" in maxcode's test build. The first build says so with the fix
# (link=); the entry keeps that line (its NOTE section), and every later
# build that hits it says it again, one line; `maxcode stats` counts it
# as "does not build". The entry of a search that ran (a variant, or
# the original because nothing was faster) is silent when hit.
# MAXCODE_LOG=quiet silences the note. `show` wraps the long reason
# instead of cutting it.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_BUDGET=1

mkdir -p p && cd p || exit 1
cat >hot.c <<'EOF'
long
hot(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i % 7;
    return s;
}
EOF
cat >main.c <<'EOF'
#include <stdio.h>
long hot(long);
int main(void) { printf("%ld\n", hot(1000)); return 0; }
EOF
{
  echo "load $PLUGIN"
  echo 'prog: $(maxcode hot.c) main.c'
  echo '>$(CC) -O2 -o $@ $^'
} | tabify >Makefile

test_expect_success 'the first build keeps the original and names link=' '
  run_make >out 2>err && ./prog >got && test "$(cat got)" = 2997 &&
  grep "hot.c: keeping the original" err >line &&
  grep -q "does not build" line &&
  grep -q "nothing linked with SOURCE defines main" line &&
  grep -q "link=main.c" line
'

test_expect_success 'the next build hits and says it again, on one line' '
  rm -f prog && run_make >out 2>err && ./prog >got &&
  test "$(grep -c "hot.c: the cached entry keeps the original" err)" = 1 &&
  grep "cached entry keeps" err | grep -q "link=main.c" &&
  test "$(stat_of fallback_no_build)" = 1 &&
  test "$(stat_of searches)" = 1
'

test_expect_success 'so does a parse alone, every time' '
  run_make -n >out 2>err &&
  grep -q "hot.c: the cached entry keeps the original" err &&
  run_make -n >out 2>err &&
  grep -q "hot.c: the cached entry keeps the original" err
'

test_expect_success 'MAXCODE_LOG=quiet says nothing' '
  MAXCODE_LOG=quiet run_make -n >out 2>err && ! test -s err
'

test_expect_success '"does not build" is counted as such by maxcode stats' '
  "$MAXCODE_BIN" stats >st &&
  grep "Does not build:" st | grep -q 1
'

test_expect_success 'show wraps the reason, whole, to the width' '
  COLUMNS=50 "$MAXCODE_BIN" show hot.c >shown &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json_get m "d[\"reason\"]" | tr -d " \n" >want &&
  awk "length > 50 { bad = 1 } END { exit bad }" shown &&
  sed -n "/^reason/,/^speedup/p" shown | sed "\$d" |
    cut -c11- | tr -d " \n" >got &&
  test "$(cat got)" = "$(cat want)"
'

test_expect_success 'the entry of a search that ran is silent when hit' '
  sed "s/^prog: \$(maxcode hot.c)/prog: \$(maxcode hot.c, link=main.c)/" \
    Makefile >M2 && mv M2 Makefile &&
  rm -f prog && run_make >out 2>err1 && ./prog >got &&
  test "$(cat got)" = 2997 &&
  ! grep -q "cached entry keeps" err1 &&
  rm -f prog && run_make >out 2>err2 &&
  ! grep -q "hot.c" err2
'

test_done
