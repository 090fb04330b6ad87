#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0100-load: bench/load, small. Eight marked units built with make -j4
# against the model stub, each request slowed by 0.2-2 s and a share of
# them failed at random (HTTP 500, 429 with Retry-After, resets, bodies
# cut short or not JSON, a hang past the client's timeout). Every target
# ends kept or fallen back and its program prints what the original
# prints; make exits 0 within a bound (a deadlock would end there); no
# process of the build is left once make is done; every line make
# printed is whole and of an expected shape.
. "$MC_SRCDIR/tests/lib.sh"

# The whole build may take this long on a busy machine; it takes about
# half a minute on a loaded two-core one.
LIMIT=240
# The stub's seed: its first 18 draws (the build asks at least 23
# times) hold each of the seven faults.
SEED=207

test_expect_success 'make -j4 of eight searches against a faulty model' '
  SERIAL=0 QUICK=1 BUDGET=2 SIZE=100000 SEED=$SEED LIMIT=$LIMIT \
    OUT=$TRASH/out \
    MAXCODE=$MAXCODE_BIN bash "$MC_SRCDIR/bench/load" 8 4 >report 2>&1
  test -s out/j4/rc
'
sed "s/^/# /" report

test_expect_success 'make exited 0, within the bound' '
  test "$(cat out/j4/rc)" = 0
'

test_expect_success 'every target ended kept or fallen back' '
  test "$(wc -l <out/j4/outcomes)" -eq 8 &&
  ! grep -v " kept$\| fallen-back$" out/j4/outcomes
'

test_expect_success 'the model failed in each of the seven ways' '
  for f in 429 500 hang malformed reset truncated truncated-reset; do
    grep -q "[(, ]$f [0-9]" out/j4/faults ||
      { echo "# no $f: $(cat out/j4/faults)"; exit 1; }
  done
'

test_expect_success 'no process of the build is left' '
  test -f out/j4/orphans && ! test -s out/j4/orphans
'

test_expect_success 'no line of make cut or merged' '
  test -f out/j4/bad-lines && ! test -s out/j4/bad-lines &&
  test "$(grep -c "^maxcode: src/k0[1-8]\.c: searching: " out/j4/make.out)" -eq 8
'

test_done
