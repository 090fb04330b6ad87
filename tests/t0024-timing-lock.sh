#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0024-timing-lock: timing phases never overlap. Evaluations on one
# machine take the machine's lock (flock; MAXCODE_TIMING_LOCK here, by
# default /run/lock/maxcode-timing.lock, never in the cache directory,
# which machines may share) around each timing phase, the candidate's
# A/B rounds and the baseline of the original alike: evaluations started
# together time one after another.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
export MAXCODE_TIMING_CAP=1
mkdir -p "$MAXCODE_CACHE_DIR"
LOCK="$TRASH/machine/timing.lock"
mkdir -p "$TRASH/machine"
export MAXCODE_TIMING_LOCK="$LOCK"

cat >orig.c <<\EOF
#include <stdio.h>
int
main(void)
{
    unsigned long n, i, h = 1;

    if (scanf("%lu", &n) != 1)
        return 1;
    for (i = 0; i < n; i++)
        h = (h ^ (h >> 13)) * 0x9e3779b97f4a7c15UL + i;
    printf("%lu\n", h);
    return 0;
}
EOF
sed 's/h = 1;/h  =  1;/' orig.c >noop.c
echo 2000000 >bench.in

# evaluate N [KEY=VALUE...]: one evaluation of the no-op, its record in
# eN.json and its verbose log in eN.log.
evaluate () {
  n=$1; shift
  MAXCODE_LOG=verbose "$MAXCODE_BIN" eval orig.c noop.c inputs=bench.in \
    sanitize=0 --flags -O2 --json "$@" >"e$n.json" 2>"e$n.log"
}

# stamps FILE WHAT: the times of FILE's "timing: WHAT T SOURCE" lines.
stamps () {
  sed -n "s/^maxcode: timing: $2 \([0-9.]*\) .*/\1/p" "$1"
}

# The third evaluation counts instructions when it can: the lock is the
# same for both metrics.
third=
if command -v valgrind >/dev/null 2>&1; then
  third=metric=instructions
fi

test_expect_success 'three evaluations started together' '
  evaluate 1 &
  p1=$!
  evaluate 2 &
  p2=$!
  evaluate 3 $third &
  p3=$!
  wait $p1 && wait $p2 && wait $p3 &&
  for n in 1 2 3; do
    json_get e$n.json "d[\"verdict\"]" >v && echo correct >e &&
    test_cmp e v || exit 1
  done
'

test_expect_success 'each logged one timing phase, as its record says' '
  for n in 1 2 3; do
    test "$(stamps e$n.log start | wc -l)" -eq 1 &&
    test "$(stamps e$n.log end | wc -l)" -eq 1 &&
    python3 -c "
import json, sys
d = json.load(open(\"e$n.json\"))[\"timing\"]
s, e = float(sys.argv[1]), float(sys.argv[2])
assert abs(s - d[\"start\"]) < 1e-5 and abs(e - d[\"end\"]) < 1e-5, (s, e, d)
assert s < e
" "$(stamps e$n.log start)" "$(stamps e$n.log end)" || exit 1
  done
'

test_expect_success 'the three timing phases are disjoint' '
  for n in 1 2 3; do
    echo "$(stamps e$n.log start) $(stamps e$n.log end) e$n"
  done | sort -g >intervals &&
  sed "s/^/# /" intervals &&
  test "$(grep -c "^[0-9.]* [0-9.]* e" intervals)" -eq 3 &&
  awk "NR > 1 && \$1 < prev { print \"# overlap: \" \$3 \" starts at \" \$1 \" before \" who \" ends at \" prev; bad = 1 }
       \$2 > prev { prev = \$2; who = \$3 } END { exit bad }" intervals
'

test_expect_success 'the lock is the machine'"'"'s, not the cache directory'"'"'s' '
  test -f "$LOCK" && ! test -e "$MAXCODE_CACHE_DIR/timing.lock" &&
  env -u MAXCODE_TIMING_LOCK "$MAXCODE_BIN" eval orig.c orig.c \
    inputs=bench.in sanitize=0 --json >d.json 2>d.err &&
  ! test -e "$MAXCODE_CACHE_DIR/timing.lock" &&
  if test -w /run/lock; then test -f /run/lock/maxcode-timing.lock; fi
'

# Hold the lock from outside for HOLD seconds: flock(1) takes the same
# kind of lock (flock(2), exclusive) on the same file.
HOLD=3
hold_lock () {
  rm -f held released &&
  flock "$LOCK" sh -c "touch held; sleep $HOLD; date +%s.%N >released" &
  while [ ! -f held ]; do sleep 0.05; done
}

if command -v flock >/dev/null 2>&1; then
  test_expect_success 'a candidate is timed only once the lock is free' '
    hold_lock &&
    evaluate 4 &&
    wait &&
    python3 -c "
import json
t = json.load(open(\"e4.json\"))[\"timing\"][\"start\"]
r = float(open(\"released\").read())
assert t >= r, (t, r)
"
  '

  test_expect_success 'the baseline of the original takes the lock too' '
    hold_lock &&
    MAXCODE_LOG=verbose "$MAXCODE_BIN" eval orig.c noop.c inputs=bench.in \
      sanitize=0 --flags -O2 --no-time --json >e5.json 2>e5.log &&
    date +%s.%N >finished &&
    wait &&
    json_get e5.json "d[\"verdict\"], d[\"timing\"]" &&
    ! grep -q "timing: start" e5.log &&
    python3 -c "
f = float(open(\"finished\").read())
r = float(open(\"released\").read())
assert f >= r, (f, r)
"
  '
else
  test_skip 'a candidate is timed only once the lock is free' 'no flock(1)'
  test_skip 'the baseline of the original takes the lock too' 'no flock(1)'
fi

test_done
