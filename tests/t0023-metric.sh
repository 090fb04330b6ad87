#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0023-metric: metric=instructions counts instructions (perf stat where
# the kernel allows it, else valgrind's callgrind): the counts are the same
# on every evaluation, and a candidate doing half the work shows a speedup
# of about 2. Valgrind is slow: the programs are tiny.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

# A loop of N steps (N from stdin) done twice; the candidate does it once.
cat >orig.c <<\EOF
#include <stdio.h>

static unsigned
work(long n)
{
    unsigned h = 1;
    long i;

    for (i = 0; i < n; i++)
        h = h * 2654435761u + (unsigned)i;
    return h;
}

int
main(void)
{
    long n;
    unsigned a, b;

    if (scanf("%ld", &n) != 1)
        return 1;
    a = work(n);
    b = work(n); /* the same again */
    printf("%u\n", a == b ? a : 0u);
    return 0;
}
EOF
sed 's|^    b = work(n); /\* the same again \*/$|    b = a;|' orig.c >half.c
sed 's/^    long i;$/    long  i ;/' orig.c >noop.c
echo 300000 >n.in

# eval_i CAND OUT: CAND.c with metric=instructions into OUT.json. At -O0
# the original really calls work() twice (an optimiser may see that it
# is pure and call it once).
eval_i () {
  "$MAXCODE_BIN" eval orig.c "$1.c" inputs=n.in metric=instructions \
    sanitize=0 --flags -O0 --json >"$2.json"
}

have_tool=yes
if ! command -v valgrind >/dev/null 2>&1 &&
   ! perf stat -x, -e instructions:u -- true 2>&1 | grep -q '^[0-9]'; then
  have_tool=no
fi

if [ $have_tool = no ]; then
  test_skip 'instruction counts' 'neither valgrind nor a working perf'
  test_done
  exit
fi

test_expect_success 'the candidates differ as claimed' '
  ! cmp -s orig.c half.c && ! cmp -s orig.c noop.c &&
  test "$(tr -d " \n" <orig.c)" = "$(tr -d " \n" <noop.c)"
'

test_expect_success 'the same candidate twice: identical instruction counts' '
  eval_i half h1 && eval_i half h2 &&
  json_get h1.json "d[\"metric\"] == \"instructions\" and d[\"verdict\"] == \"correct\"" >p &&
  echo True >e && test_cmp e p &&
  for k in baseline_seconds candidate_seconds; do
    a=$(json_get h1.json "repr(d[\"$k\"])") &&
    b=$(json_get h2.json "repr(d[\"$k\"])") &&
    echo "# $k: $a $b" &&
    test "$a" = "$b" || exit 1
  done &&
  for k in median_speedup ci99_low ci99_high; do
    a=$(json_get h1.json "repr(d[\"timing\"][\"$k\"])") &&
    b=$(json_get h2.json "repr(d[\"timing\"][\"$k\"])") &&
    test "$a" = "$b" || exit 1
  done
'

test_expect_success 'the counts are instructions, not seconds' '
  json_get h1.json "d[\"baseline_seconds\"] > 2000000 and
    d[\"candidate_seconds\"] > 1000000 and
    d[\"baseline_seconds\"] == int(d[\"baseline_seconds\"])" >p &&
  echo True >e && test_cmp e p
'

test_expect_success 'half the work: speedup about 2, promoted' '
  json_get h1.json "d[\"timing\"][\"median_speedup\"]" &&
  json_get h1.json "1.8 < d[\"timing\"][\"median_speedup\"] <= 2.0 and
    d[\"timing\"][\"ci99_low\"] == d[\"timing\"][\"median_speedup\"] and
    d[\"timing\"][\"promoted\"] and d[\"timing\"][\"pairs\"] == 1" >p &&
  echo True >e && test_cmp e p
'

# Not asserted: "confirmed" (the candidate counted again must give the
# same count) and an exact 1.0 for the no-op. Both need the counts not to
# depend on the run directory, whose name (HOME, TMPDIR, argv[0]) changes
# the environment's size and with it a few instructions of the startup.
test_expect_success 'a no-op counts (almost) like the original: not promoted' '
  eval_i noop n1 &&
  json_get n1.json "abs(d[\"timing\"][\"median_speedup\"] - 1) < 1e-4 and
    not d[\"timing\"][\"promoted\"] and d[\"speedup\"] is None" >p &&
  echo True >e && test_cmp e p
'

test_done
