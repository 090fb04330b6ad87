#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0030-search: the max-reward search with the built-in proposer: each
# strategy evaluates exactly its budget, the built program's outputs equal
# the original's, a killed search resumes from its journal without
# evaluating anything twice, and a target with nothing to win keeps the
# original with a reason that names the best speedup found.
. "$MC_SRCDIR/tests/lib.sh"

# The timing decides nothing asserted here (a count of candidates, a
# resume, no win where there is none): its rounds keep lib.sh's
# shortest cap, but for the resumed search, whose candidates must take
# long enough to be killed between two of them.
export MAXCODE_CACHE_DIR="$TRASH/cache"

# project DIR OPTIONS: a kernel that -O3 vectorizes and -O2 does not.
project () {
  mkdir -p "$1/t" &&
  vector_kernel "$1/hot.c" &&
  echo "2000 200" >"$1/t/a.in" && echo "3000 100" >"$1/t/b.in" &&
  printf 'load %s\nCFLAGS = -O2\nprog: $(maxcode hot.c, inputs=t/*.in, %s)\n\t$(CC) $(CFLAGS) -o $@ $^\n' \
    "$PLUGIN" "$2" >"$1/Makefile"
}

for s in flat effi-learner cuda-llm; do
  test_expect_success "strategy $s evaluates exactly the budget" "
    project $s 'strategy=$s, budget=5' && cd $s &&
    before=\$(stat_of candidates) &&
    run_make >out 2>err &&
    test \$(( \$(stat_of candidates) - before )) -eq 5 &&
    test \$(grep -c '^maxcode: hot.c \[[0-9]/5\]' err) -eq 5 &&
    \"\$MAXCODE_BIN\" show hot.c --json >m &&
    test \"\$(json_get m 'd[\"candidates\"]')\" = 5 &&
    test \"\$(json_get m 'len(d[\"trajectory\"])')\" = 5
  "
done

test_expect_success 'the built program prints what the original prints' '
  cd cuda-llm && cc -O2 -o orig hot.c &&
  for f in t/*.in; do ./orig <$f >want; ./prog <$f >got; cmp want got || exit 1; done
'

test_expect_success 'progress lines carry a critique' '
  grep -q "^maxcode: hot.c \[1/5\] correct [0-9.]*x\(, not confirmed\)\? (best [0-9.]*x; f_r [0-4] u_t [0-9.]*) \[[^]]*\]: added " cuda-llm/err
'

test_expect_success 'MAXCODE_LOG=quiet silences the progress lines' '
  project quiet "strategy=flat, budget=2" && cd quiet &&
  MAXCODE_LOG=quiet run_make >out 2>err &&
  ! grep "^maxcode:" err && test -x prog
'

test_expect_success 'a killed search resumes from its journal' '
  project resume "strategy=flat, budget=4" && cd resume &&
  MAXCODE_TIMING_CAP=1 && export MAXCODE_TIMING_CAP &&
  before=$(stat_of candidates) &&
  { run_make >out1 2>err1 & } &&
  j=$(kill_search_after 3) ;
  wait ;
  done1=$(( $(wc -l <"$j") - 1 )) &&
  test "$done1" -ge 2 && test "$done1" -lt 4 &&
  run_make >out2 2>err2 &&
  grep -q "resumed from the journal: $done1 of 4 candidates" err2 &&
  test $(( $(stat_of candidates) - before )) -eq 4 &&
  test -x prog
'

test_expect_success 'nothing to win keeps the original and names the best speedup' '
  mkdir -p io/t && cd io &&
  printf "#include <stdio.h>\nint main(void){int c; while((c=getchar())!=EOF) putchar(c); return 0;}\n" >hot.c &&
  echo hello >t/a.in &&
  printf "load %s\nCFLAGS = -O2\nprog: \$(maxcode hot.c, inputs=t/*.in, budget=3)\n\t\$(CC) \$(CFLAGS) -o \$@ \$^\n" "$PLUGIN" >Makefile &&
  run_make >out 2>err &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  test "$(json_get m "d[\"status\"]")" = original &&
  json_get m "d[\"reason\"]" | grep -q "the best was [0-9.]*x"
'

test_done
