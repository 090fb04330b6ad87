#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0076-slurm: searches farmed out to a real Slurm cluster (one node,
# tests/slurm-cluster.sh) through MAXCODE_LAUNCHER, the shared store a
# file:// directory, each node search with a cache directory of its own
# (the make machine's stays apart, as on a real cluster):
#   - six marked units, make -j3: one Slurm job per search (the job
#     completion log), every variant written, no search of make's own,
#     then a second make all hits;
#   - isa=native: the key holds the nodes' architecture, asked of a node
#     once and remembered for the launcher (the native-arch hook: the
#     make machine says one architecture, the node another);
#   - faults, each ending with the original for that unit and the
#     scheduler's message, the rest of the build done, nothing partial
#     in the shared store, and the next build searching that unit again:
#     a partition that does not exist, a job cancelled mid-search
#     (scancel), a job past its time limit (a minute: Slurm's least), a
#     node set down during the search, and a wait for a node (all are
#     drained) bounded by srun --immediate;
#   - nothing of the cluster left running after the test.
# Not root, or no slurm-wlm/munge: skipped with the reason (CI, as root,
# counts a skip as a failure). A search that must still be running when
# the fault strikes waits on the model stub (its answer delayed).
. "$MC_SRCDIR/tests/lib.sh"

CL=$TRASH/cluster
if ! sh "$MC_SRCDIR/tests/slurm-cluster.sh" start "$CL" >"$TRASH/conf" \
     2>"$TRASH/cluster.err"; then
  test_skip 'a one-node Slurm cluster' \
    "$(tail -n 1 "$TRASH/cluster.err")"
  test_done
  exit
fi
# The cluster stops when the test ends, however it ends.
trap 'sh "$MC_SRCDIR/tests/slurm-cluster.sh" stop "$CL"; _trash_exit' EXIT
. "$TRASH/conf"
NODE=$(sinfo -h -o %N)
SHARED=$TRASH/shared
mkdir -p "$SHARED"
export MAXCODE_REMOTE=file://$SHARED

# project DIR N [OPTS]: N marked units (h1.c ... hN.c, each a program
# that reads t/a.in and names DIR: no two cases share a key), one
# program each, OPTS added to each call.
project () {
  mkdir -p "$1/t" && echo 3000 >"$1/t/a.in" &&
  { echo "load $PLUGIN"; echo 'CFLAGS = -O2'
    printf 'all:'; i=1
    while [ $i -le "$2" ]; do printf ' p%d' $i; i=$((i + 1)); done
    echo; i=1
    while [ $i -le "$2" ]; do
      echo "p$i: \$(maxcode h$i.c, inputs=t/a.in, budget=1${3:+, $3})"
      printf '\t$(CC) $(CFLAGS) -o $@ $^\n'
      i=$((i + 1))
    done; } >"$1/Makefile" &&
  i=1 &&
  while [ $i -le "$2" ]; do
    { from_data llm-hot.c "REPS=$((10 + i))" "TAIL=" &&
      echo "/* $1 */"; } >"$1/h$i.c" || return 1
    i=$((i + 1))
  done
}

# launcher NAME [SRUN-OPTIONS...]: MAXCODE_LAUNCHER for srun with the
# options, its jobs named NAME, the node's search keeping its own cache
# $TRASH/node-NAME; make's is $TRASH/cache-NAME (its counters the case's
# own).
launcher () {
  _l_name=$1; shift
  MAXCODE_LAUNCHER="srun -N1 -J $_l_name $* env MAXCODE_CACHE_DIR=$TRASH/node-$_l_name"
  MAXCODE_CACHE_DIR=$TRASH/cache-$_l_name
  export MAXCODE_LAUNCHER MAXCODE_CACHE_DIR
}

# jobs_in NAME STATE: how many jobs named NAME ended in STATE.
jobs_in () {
  grep -c "Name=$1 JobState=$2 " "$CL/jobcomp.txt" 2>/dev/null || :
}

# running NAME: wait (120 s at most: CI runs this beside builds) until a
# job named NAME runs and its search has started on the node; print the
# job's id. What it waited for goes to stderr, seen when a case fails.
running () {
  _r_i=0
  until _r_id=$(squeue -h -t R -n "$1" -o %i | head -n 1) &&
        [ -n "$_r_id" ] && [ -d "$TRASH/node-$1" ]; do
    _r_i=$((_r_i + 1))
    [ $_r_i -lt 1200 ] || {
      echo "# no job $1 running after 120 s: $(squeue -h -n "$1")" >&2
      return 1
    }
    sleep 0.1
  done
  echo "# job $_r_id ($1) running after $((_r_i / 10)) s" >&2
  echo "$_r_id"
}

# same_output DIR N: each program of DIR prints what its original does.
same_output () {
  i=1
  while [ $i -le "$2" ]; do
    cc -O2 -o "$1/orig$i" "$1/h$i.c" &&
    "$1/orig$i" <"$1/t/a.in" >"$1/want" && "$1/p$i" <"$1/t/a.in" >"$1/got" &&
    test_cmp "$1/want" "$1/got" || return 1
    i=$((i + 1))
  done
}

# store_list: the files of the shared store (a partial one would be a
# ".KEY.tmp..." file, store_file.c).
store_list () { (cd "$SHARED" && find . -type f | sort); }

# stub_project DIR DELAY: one unit searched by the model stub, whose
# answer takes DELAY seconds (the search is still running then); its
# source names DIR, so that no two cases share a key.
stub_project () {
  llm_project "$1" "budget=1" && llm_small "$1" &&
  echo "/* $1 */" >>"$1/hot.c" && (
    cd "$1" && LLM_DELAY=$2 llm_script s.json "" -- v/fast.c)
}

test_expect_success 'the cluster runs a job' '
  test "$(srun -N1 hostname)" = "$(hostname)"
'

# A search after a killed one must not wait on anything the killed one
# left (its key's lock): the builds after a fault are bounded.
# The time limit case runs beside the others (a minute, Slurm's least
# limit; one CPU of the node's two), its model answer 200 s away.
stub_project limit 200 &&
(
  cd limit && stub_start s.json && llm_env &&
  launcher limit -c1 -p short -t 1 &&
  run_make >out 2>err; echo $? >rc
) &
LIMIT_PID=$!

test_expect_success 'a partition that does not exist: the original, the message' '
  project nopart 2 && cd nopart &&
  launcher nopart -c1 -p nosuch &&
  run_make >out 2>err &&
  test "$(grep -c "keeping the original (the search launcher failed: srun: error: Unable to allocate resources: Invalid partition name specified)" err)" = 2 &&
  same_output . 2 && expect_stats launched 2 launch_failures 2 searches 0 &&
  test -z "$(find "$SHARED" -type f)"
'

# Slurm's own notice ("*** STEP ... CANCELLED AT ...") reaches srun's
# stderr only when srun relays it before it exits; else srun's last word
# is "error: NODE: task 0: Terminated". Either is the launcher's failure.
test_expect_success 'a job cancelled mid-search: the original, the message' '
  stub_project cancel 60 && cd cancel && stub_start s.json && llm_env &&
  store_list >before && launcher cancel -c1 || return 1
  { run_make >out 2>err; echo $? >rc; } &
  mk=$! && job=$(running cancel) && scancel "$job" && wait "$mk" &&
  test "$(cat rc)" = 0 && ./prog <t/a.in >got && cc -O2 -o orig hot.c &&
  ./orig <t/a.in >want && test_cmp want got &&
  { grep -E "keeping the original \(the search launcher failed: .*(CANCELLED AT|Terminated)" \
      err || { cat err; false; }; } &&
  store_list >after && test_cmp before after
'

test_expect_success 'the next build searches the cancelled unit again' '
  cd cancel && llm_script s.json "" -- v/fast.c && stub_start s.json &&
  llm_env && launcher cancel -c1 && rm -f prog &&
  run_make_within 300 >out 2>err && test -x prog &&
  test "$(jobs_in cancel COMPLETED)" = 1 && ! grep "launcher failed" err
'

test_expect_success 'isa=native: the nodes'"'"' architecture in the key, remembered' '
  project native 1 isa=native && cd native &&
  export MAXCODE_CACHE_DIR=$TRASH/cache-native &&
  MAXCODE_NATIVE_ARCH=x86-64 &&
  export MAXCODE_NATIVE_ARCH &&
  MAXCODE_LAUNCHER="srun -N1 -J native -c1 env MAXCODE_NATIVE_ARCH=x86-64-v2 MAXCODE_CACHE_DIR=$TRASH/node-native" &&
  export MAXCODE_LAUNCHER &&
  run_make >out 2>err && same_output . 1 &&
  grep -x "x86-64-v2 .*" "$MAXCODE_CACHE_DIR"/native/launcher-*.arch &&
  expect_stats launched 1 launch_failures 0 searches 0 remote_hits 1 &&
  rm p1 && MAXCODE_LOG=verbose run_make >out2 2>err2 &&
  grep "key: native-arch = \[9\] x86-64-v2" err2 &&
  expect_stats launched 1 hits 1
'

# A case runs in a subshell, which cannot wait for the time limit case.
wait "$LIMIT_PID"
test_expect_success 'a job past its time limit: the original, the message' '
  cd limit && test "$(cat rc)" = 0 &&
  grep "keeping the original (the search launcher failed: .*DUE TO TIME LIMIT" err &&
  ./prog <t/a.in >got && cc -O2 -o orig hot.c && ./orig <t/a.in >want &&
  test_cmp want got && test "$(jobs_in limit TIMEOUT)" = 1 &&
  ! find "$SHARED" -name ".*" | grep .
'

test_expect_success 'six units, make -j3: a Slurm job each, then all hits' '
  project six 6 && cd six &&
  store_list >before &&
  launcher six --exclusive --immediate=120 &&
  run_make -j3 >out 2>err && same_output . 6 &&
  test "$(jobs_in six COMPLETED)" = 6 &&
  expect_stats launched 6 launch_failures 0 searches 0 &&
  test "$(ls .maxcode/*/h*.c | wc -l)" -ge 6 &&
  store_list >after && test "$(comm -13 before after | wc -l)" = 6 &&
  ! find "$SHARED" -name ".*" | grep . &&
  rm p? && run_make -j3 >out2 2>err2 && same_output . 6 &&
  expect_stats launched 6 hits 6 && test "$(jobs_in six COMPLETED)" = 6
'

test_expect_success 'a node set down during the search: the original, the message' '
  stub_project down 60 && cd down && stub_start s.json && llm_env &&
  store_list >before && launcher down -c1 --immediate=5 || return 1
  { run_make >out 2>err; echo $? >rc; } &
  mk=$! && running down >/dev/null &&
  scontrol update nodename="$NODE" state=down reason=t0076 && wait "$mk" &&
  test "$(cat rc)" = 0 &&
  grep "keeping the original (the search launcher failed: " err &&
  ./prog <t/a.in >got && cc -O2 -o orig hot.c && ./orig <t/a.in >want &&
  test_cmp want got && store_list >after && test_cmp before after
'

# Slurm takes a node that was set down back when its slurmd registers
# again (ReturnToService=2): drained, it takes no job until resumed.
test_expect_success 'no node to run on: the wait for one is bounded (--immediate)' '
  scontrol update nodename="$NODE" state=drain reason=t0076 &&
  project wait 1 && cd wait && launcher wait -c1 --immediate=2 &&
  start=$(date +%s) && run_make >out 2>err && end=$(date +%s) &&
  test $((end - start)) -lt 60 && same_output . 1 &&
  grep "keeping the original (the search launcher failed: srun: error: Unable to allocate resources" err
'

test_expect_success 'the node back: the unit is searched again' '
  scontrol update nodename="$NODE" state=resume && cd wait && rm p1 &&
  launcher wait -c1 --immediate=60 &&
  run_make_within 300 >out 2>err && same_output . 1 && ! grep "launcher failed" err &&
  expect_stats launched 2 launch_failures 1 searches 0 &&
  test "$(jobs_in wait COMPLETED)" = 1
'

test_expect_success 'nothing of the cluster is left running' '
  pids=$(cat "$CL/slurmctld.pid" "$CL/slurmd.pid" "$CL/munge/munged.pid") &&
  sh "$MC_SRCDIR/tests/slurm-cluster.sh" stop "$CL" &&
  for p in $pids; do ! kill -0 "$p" 2>/dev/null || return 1; done
'

test_done
