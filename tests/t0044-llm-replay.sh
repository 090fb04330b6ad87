#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0044-llm-replay: MAXCODE_LLM_RECORD stores every exchange under the
# hash of its canonical request; MAXCODE_LLM_REPLAY answers from there
# with the endpoint down, and the replayed search gives the same variant
# and the same manifest fields, timings apart. (The stub of the recorded
# run stops with the test that started it: the endpoint is down after.)
# The search uses metric=instructions, so that its decisions, and so the
# variant and the trajectory, do not move with the machine's load; its
# inputs are llm_small's (where valgrind counts, a run costs some fifty
# times the program's own time, and the counts decide alike).
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache1" MAXCODE_TIMING_CAP=1

# The manifest fields a replay must reproduce.
fields='{k: d[k] for k in ("key", "status", "reason", "best", "critique",
  "candidates", "correct_candidates", "strategy", "proposer", "model",
  "llm_requests", "tokens_in", "tokens_out", "cost", "prompt_version",
  "usage")} | {"trajectory": [{k: t[k] for k in ("parent", "variant",
  "verdict", "critique")} for t in d["trajectory"]]}'

test_expect_success 'a recorded search' '
  llm_project p "strategy=effi-learner, budget=3, metric=instructions" &&
  llm_small p && cd p &&
  llm_script s.json CRIT-1,CRIT-2,CRIT-3 -- v/wrong.c v/slow.c v/fast.c &&
  stub_start s.json && llm_env &&
  MAXCODE_LLM_RECORD=$TRASH/rec run_make >out 2>err &&
  test $(ls "$TRASH/rec" | wc -l) -eq 6 &&
  "$MAXCODE_BIN" show hot.c --json >../m1 &&
  cp .maxcode/*/hot.c ../variant1 &&
  json ../m1 "j[\"status\"] == \"optimized\"" &&
  for f in "$TRASH"/rec/*.json; do
    json "$f" "j[\"maxcode_exchange\"] == 1" "j[\"status\"] == 200" \
      "j[\"purpose\"] in (\"propose\", \"critique\")" \
      "j[\"request\"][\"model\"] == \"stub-model\"" || exit 1
  done
'

test_expect_success 'replayed with the endpoint down: same variant and fields' '
  cd p && rm -rf .maxcode prog && STUB_LOG=$PWD/stub-log &&
  STUB_URL=http://127.0.0.1:9 && llm_env &&
  MAXCODE_CACHE_DIR=$TRASH/cache2 MAXCODE_LLM_REPLAY=$TRASH/rec \
    run_make >out 2>err &&
  ! grep -q "request failed" err &&
  MAXCODE_CACHE_DIR=$TRASH/cache2 "$MAXCODE_BIN" show hot.c --json >../m2 &&
  cmp ../variant1 .maxcode/*/hot.c &&
  json_get ../m1 "$fields" >f1 && json_get ../m2 "$fields" >f2 &&
  cat f2 && cmp f1 f2 && test $(stub_requests) -eq 6
'

test_expect_success 'a request missing from the replay directory fails cleanly' '
  cd p && rm -rf .maxcode prog && mkdir -p "$TRASH/empty" &&
  STUB_URL=http://127.0.0.1:9 && llm_env &&
  MAXCODE_CACHE_DIR=$TRASH/cache3 MAXCODE_LLM_REPLAY=$TRASH/empty \
    run_make >out 2>err &&
  contains err "no recorded exchange" && contains err "keeping the original" &&
  ./prog <t/a.in >got && cc -O2 -o orig hot.c && ./orig <t/a.in >want &&
  cmp want got
'

test_expect_success 'the recorded exchanges hold no key' '
  ! grep -r "sk-test-SECRET-4242" "$TRASH/rec"
'

test_done
