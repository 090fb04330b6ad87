#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0022-noise: the timing protocol, small: a no-op candidate (whitespace
# changed) never ends with a confirmed speedup, a candidate that does a
# quarter of the work always does, and the feedback's timing figures hang together.
# Only the decision a user sees is asserted (kept with a confirmed
# speedup of at least min-speedup, or not): on a busy machine the first
# round may promote a no-op that the confirmation round then rejects, and
# the size of a confirmed speedup moves with the load.
# bench/noise is the full-scale version.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
export MAXCODE_TIMING_CAP=2
ROUNDS=5

# A serial hash chain of N steps (N from stdin), then three redundant
# passes that recompute the whole chain to verify it: about 10 ms at -O2.
cat >orig.c <<\EOF
#include <stdint.h>
#include <stdio.h>

static uint64_t
step(uint64_t x)
{
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 32;
    return x;
}

int
main(void)
{
    long n, i;
    volatile int checks = 3; /* opaque: each check is done */
    int r;
    uint64_t h = 1, v;

    if (scanf("%ld", &n) != 1)
        return 1;
    for (i = 0; i < n; i++)
        h = step(h + (uint64_t)i);
    for (r = 0; r < checks; r++) { /* verify: the whole chain again */
        v = 1;
        for (i = 0; i < n; i++)
            v = step(v + (uint64_t)i);
        if (v != h)
            return 2;
    }
    printf("%llu\n", (unsigned long long)h);
    return 0;
}
EOF
# The no-op: whitespace only. The faster one: no verification passes (a
# quarter of the work: an effect that load cannot hide).
sed 's/^    x \*= \(.*\);$/    x  *=  \1 ;/' orig.c >noop.c
sed 's/volatile int checks = 3;/volatile int checks = 0;/' orig.c >fast.c
echo 1000000 >bench.in

# evaluate CAND OUT: one timed evaluation of CAND.c into OUT.json.
evaluate () {
  "$MAXCODE_BIN" eval orig.c "$1.c" inputs=bench.in sanitize=0 \
    --flags -O2 --json >"$2.json"
}

test_expect_success 'the candidates are what they claim' '
  ! cmp -s orig.c noop.c &&
  test "$(tr -d " \n" <orig.c)" = "$(tr -d " \n" <noop.c)" &&
  grep -q "checks = 0;" fast.c && grep -q "checks = 3;" orig.c
'

test_expect_success "a no-op ends with no speedup $ROUNDS times in $ROUNDS" '
  i=0 &&
  while [ $i -lt $ROUNDS ]; do
    i=$((i + 1)) &&
    evaluate noop noop$i &&
    json_get noop$i.json "d[\"verdict\"]" >v && echo correct >e &&
    test_cmp e v &&
    echo "# no-op $i: $(json_get noop$i.json "d[\"timing\"]")" &&
    json_get noop$i.json "d[\"timing\"][\"confirmed\"]" >p &&
    echo False >e && test_cmp e p &&
    json_get noop$i.json "d[\"speedup\"]" >s && echo None >e &&
    test_cmp e s || exit 1
  done
'

test_expect_success "a quarter of the work is confirmed faster $ROUNDS times in $ROUNDS" '
  i=0 &&
  while [ $i -lt $ROUNDS ]; do
    i=$((i + 1)) &&
    evaluate fast fast$i &&
    echo "# faster $i: $(json_get fast$i.json "d[\"timing\"]")" &&
    json_get fast$i.json \
      "d[\"speedup\"] is not None and d[\"speedup\"] >= 1.03" >p &&
    echo True >e && test_cmp e p ||
    exit 1
  done
'

# The figures of one record, as the protocol defines them.
test_expect_success 'the interval holds the median; 8 to 40 pairs' '
  for f in noop1 fast1; do
    json_get $f.json "(lambda t: t[\"ci99_low\"] <= t[\"median_speedup\"]
      <= t[\"ci99_high\"] and 8 <= t[\"pairs\"] <= 40 and
      t[\"start\"] < t[\"end\"])(d[\"timing\"])" >p &&
    echo True >e && test_cmp e p || exit 1
  done
'

# A no-op's round ends at 40 pairs, when its interval decides, or at the
# cap (2 s), finishing the pair under way; the phase adds the warm-up.
test_expect_success 'MAXCODE_TIMING_CAP bounds a round that cannot decide' '
  for f in noop1 noop2 noop3 noop4 noop5; do
    json_get $f.json "(lambda t: t[\"end\"] - t[\"start\"] < 2 + 4)(d[\"timing\"])" >p &&
    echo True >e && test_cmp e p || exit 1
  done
'

test_expect_success 'the human record gives the no-op no confirmed speedup' '
  "$MAXCODE_BIN" eval orig.c noop.c inputs=bench.in sanitize=0 \
    --flags -O2 >out &&
  contains out "verdict:    correct" && contains out "A/B pairs" &&
  ! grep "^confirmed:" out && ! grep "promoted and confirmed" out
'

test_expect_success '--no-time judges without timing' '
  "$MAXCODE_BIN" eval orig.c fast.c inputs=bench.in sanitize=0 \
    --flags -O2 --no-time --json >nt.json &&
  json_get nt.json \
    "[d[\"verdict\"], d[\"speedup\"], d[\"timing\"]] == [\"correct\", None, {}]" >p &&
  echo True >e && test_cmp e p
'

test_done
