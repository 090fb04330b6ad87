#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0025-check-original: the check= command runs on the original first;
# an original that fails its own check is no reference: no candidate is
# compiled or judged, the original is kept and stored as a fallback
# whose reason quotes the check, the input and what the check printed,
# and the next make hits that entry instead of searching again.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
export MAXCODE_BUDGET=1

mkdir -p p
cat >p/hot.c <<'EOC'
#include <stdio.h>
int main(void)
{
    long n = 0, s = 0, x;
    while (scanf("%ld", &x) == 1) {
        s += x;
        n++;
    }
    printf("%ld\n", s + n); /* 41 on in.txt: the check wants 42 */
    return 0;
}
EOC
printf '20 19\n' >p/in.txt
# The check runs in a fresh directory with the input on its stdin.
tabify >p/Makefile <<EOF2
load $PLUGIN
prog: \$(maxcode hot.c, inputs=in.txt, check=out=\$\$(\$\$MAXCODE_EXE); test "\$\$out" = 42 || { echo "want 42 but got \$\$out" >&2; exit 3; })
>\$(CC) -o \$@ \$^
EOF2

test_expect_success 'an original that fails its check: no candidate, kept' '
  cd p && { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  contains out "the original fails its own check on in.txt" &&
  contains out "want 42 but got 41" && contains out "exit status 3" &&
  test "$(./prog <in.txt)" = 41 &&
  expect_stat candidates 0 && expect_stat searches 1 &&
  expect_stat fallbacks 1 && expect_stat optimized 0 &&
  test "$(entries)" = 1 && ! test -e .maxcode/*/journal.jsonl
'

test_expect_success 'show: the reason quotes the check, the input, its words' '
  cd p && "$MAXCODE_BIN" show hot.c --json >m &&
  json m "\"the original fails its own check on in.txt\" in j[\"reason\"]" \
    "\"check \x27out=\" in j[\"reason\"]" \
    "\"want 42 but got 41\" in j[\"reason\"]" \
    "j[\"status\"] == \"original\"" "j[\"candidates\"] == 0" &&
  COLUMNS=400 "$MAXCODE_BIN" show hot.c >s &&
  contains s "the original fails its own check on in.txt" &&
  contains s "want 42 but got 41"
'

test_expect_success 'the next make hits the stored fallback, no search' '
  cd p && rm -f prog && run_make >out 2>&1 && cat out &&
  expect_stat searches 1 && expect_stat hits 1 &&
  test "$(./prog <in.txt)" = 41
'

test_expect_success 'an original that passes its check (on stdin) is searched' '
  mkdir q && cp p/hot.c p/in.txt q/ && sed "s/= 42/= 41/" p/Makefile >q/Makefile &&
  export MAXCODE_CACHE_DIR="$TRASH/cache-q" && cd q &&
  run_make >out 2>&1 && cat out &&
  ! grep "fails its own check" out &&
  expect_stat searches 1 && expect_stat candidates 1 &&
  test "$(./prog <in.txt)" = 41
'

test_done
