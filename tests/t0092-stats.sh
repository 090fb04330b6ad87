#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0092-stats: `maxcode stats` as ccache -s shows its own. Searches that
# fall back for a known reason (every candidate incorrect, none faster,
# none builds, no model endpoint, the model budget, no CUDA device as
# the documented probe hook plays it) count that reason
# once, in --json and in the table, beside the time spent searching;
# --json keeps the keys of the contract; --zero resets every counter;
# a stats file of an older maxcode reads; the rates are in percent of
# the lookups; the remote section shows only with a remote.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

REASONS="fallback_no_speedup fallback_incorrect fallback_no_build
fallback_no_model fallback_no_device fallback_budget fallback_other"

# only_reason NAME: the reason counters are all 0 but NAME, which is 1,
# and so is fallbacks.
only_reason () {
  "$MAXCODE_BIN" stats --json >st.json &&
  json st.json "j[\"fallbacks\"] == 1" "j[\"optimized\"] == 0" \
    "j[\"searches\"] == 1" "j[\"$1\"] == 1" \
    "sum(j[k] for k in \"$(echo $REASONS)\".split()) == 1"
}

# table_row FILE LABEL VALUE: the table FILE has the row LABEL VALUE.
table_row () {
  grep -q "^ *$2 *$3\( \|\$\)" "$1" || {
    echo "# no row '$2 $3' in:"; sed 's/^/#   /' "$1"; return 1; }
}

# search DIR OPTIONS FILES...: a model-driven search of llm_project DIR
# with OPTIONS, the stub answering with FILES, from zeroed counters, in
# a cache of its own (the projects share their key); on llm_small's
# inputs, as every project here: the counters do not depend on the
# size of a run.
search () {
  _d=$1 _o=$2; shift 2
  MAXCODE_CACHE_DIR=$TRASH/cache-$_d && export MAXCODE_CACHE_DIR &&
  llm_project "$_d" "$_o" && llm_small "$_d" && cd "$_d" &&
  llm_script s.json "" -- "$@" && stub_start s.json && llm_env &&
  "$MAXCODE_BIN" stats --zero && run_make >out 2>err && test -x prog
}

test_expect_success 'every candidate incorrect: fallback_incorrect' '
  search wrong "strategy=flat, budget=2, critique=off" v/wrong.c &&
  contains err "keeping the original" &&
  only_reason fallback_incorrect &&
  "$MAXCODE_BIN" stats >table &&
  table_row table "Fallbacks:" "1  100.00 %" &&
  table_row table "Incorrect:" "1  100.00 %" &&
  table_row table "No speedup:" 0 &&
  table_row table "Searches:" 1 &&
  table_row table "Candidates evaluated:" 2 &&
  json st.json "j[\"search_ms\"] >= 1" "j[\"candidates\"] == 2"
'

test_expect_success 'correct but no faster: fallback_no_speedup' '
  search same "strategy=flat, budget=2, critique=off" v/same.c &&
  only_reason fallback_no_speedup &&
  "$MAXCODE_BIN" stats >table && table_row table "No speedup:" "1  100.00 %"
'

test_expect_success 'no candidate builds: fallback_no_build' '
  mkdir -p broken/v && printf "int main(void) { return }\n" >broken/v/bad.c &&
  search broken "strategy=flat, budget=2, critique=off" v/bad.c &&
  only_reason fallback_no_build &&
  "$MAXCODE_BIN" stats >table &&
  table_row table "Does not build:" "1  100.00 %"
'

test_expect_success 'proposer=llm without an endpoint: fallback_no_model' '
  llm_project nomodel "proposer=llm, budget=2" && llm_small nomodel &&
  cd nomodel &&
  "$MAXCODE_BIN" stats --zero && run_make >out 2>err && test -x prog &&
  only_reason fallback_no_model &&
  "$MAXCODE_BIN" stats >table && table_row table "No model:" "1  100.00 %"
'

test_expect_success 'max-tokens stops the search: fallback_budget' '
  llm_project capped \
    "strategy=flat, budget=8, critique=off, max-tokens=3000" &&
  llm_small capped && cd capped && python3 -S -c "
import json
a = \"\`\`\`c\n\" + open(\"v/same.c\").read() + \"\`\`\`\n\"
r = {\"usage\": {\"in\": 1000, \"out\": 500}, \"text\": a}
json.dump({\"rules\": [{\"responses\": [r]}]}, open(\"s.json\", \"w\"))" &&
  stub_start s.json && llm_env && "$MAXCODE_BIN" stats --zero &&
  run_make >out 2>err && contains err "max-tokens 3000 reached" &&
  only_reason fallback_budget &&
  "$MAXCODE_BIN" stats >table && table_row table "Budget:" "1  100.00 %" &&
  table_row table "Requests:" 2 && table_row table "Tokens in:" 2000 &&
  table_row table "Tokens out:" 1000
'

test_expect_success 'a CUDA target without a device: fallback_no_device' '
  mkdir -p nodev && cd nodev &&
  printf "__global__ void k(float *y) { y[0] = 1.0f; }\n" >kern.cu &&
  echo "{\"devices\": [], \"driver\": \"\", \"runtime\": \"\"," \
    "\"error\": \"none in this test\", \"via\": \"hook\"}" >none.json &&
  printf "load %s\nNVCC = true\ncopy: \$(maxcode kern.cu)\n\tcp \$< \$@\n" \
    "$PLUGIN" >Makefile &&
  MAXCODE_CACHE_DIR=$PWD/cache && export MAXCODE_CACHE_DIR &&
  MAXCODE_CUDA_PROBE=$PWD/none.json run_make >out 2>err &&
  contains err "no CUDA device" && cmp kern.cu copy &&
  "$MAXCODE_BIN" stats --json >st.json &&
  json st.json "j[\"fallbacks\"] == 1" "j[\"fallback_no_device\"] == 1" \
    "j[\"searches\"] == 0" "j[\"misses\"] == 0" &&
  "$MAXCODE_BIN" stats >table && table_row table "No device:" "1  100.00 %"
'

test_expect_success '--json keeps the contract keys; --zero resets all' '
  cd capped && "$MAXCODE_BIN" stats --json >before.json &&
  json before.json "j[\"fallbacks\"] == 1" &&
  for k in hits misses stores searches optimized fallbacks candidates \
           llm_requests tokens_in tokens_out cost search_ms $REASONS; do
    json before.json "\"$k\" in j" || exit 1
  done &&
  "$MAXCODE_BIN" stats --zero >zero.out && test ! -s zero.out &&
  "$MAXCODE_BIN" stats --json >after.json &&
  json after.json "all(v == 0 for v in j.values())" \
    "set(j) == set(json.load(open(\"before.json\")))" &&
  "$MAXCODE_BIN" stats >table && table_row table "Fallbacks:" 0 &&
  table_row table "Incorrect:" 0 && table_row table "Budget:" 0 &&
  "$MAXCODE_BIN" stats --zero --json >both.json &&
  json both.json "j[\"fallbacks\"] == 0"
'

test_expect_success 'a stats file of an older maxcode reads' '
  mkdir -p old && printf "%s\n" "hits 3" "misses 1" "stores 1" \
    "searches 1" "optimized 0" "fallbacks 1" "candidates 4" \
    "llm_requests 0" "tokens_in 0" "tokens_out 0" "corrupt 0" \
    "trimmed 0" "cost 0.000000" >old/stats &&
  MAXCODE_CACHE_DIR=$PWD/old "$MAXCODE_BIN" stats --json >old.json &&
  json old.json "j[\"hits\"] == 3" "j[\"misses\"] == 1" \
    "j[\"fallbacks\"] == 1" "j[\"fallback_incorrect\"] == 0" \
    "j[\"search_ms\"] == 0" &&
  MAXCODE_CACHE_DIR=$PWD/old "$MAXCODE_BIN" stats >old.txt &&
  table_row old.txt "Lookups:" 4 &&
  table_row old.txt "Hits:" "3   75.00 %" &&
  table_row old.txt "Misses:" "1   25.00 %" &&
  table_row old.txt "Fallbacks:" "1  100.00 %" &&
  table_row old.txt "Reason not recorded:" "1  100.00 %" &&
  contains old.txt "Cache directory:" && contains old.txt "$PWD/old"
'

test_expect_success 'the remote section shows only with a remote' '
  MAXCODE_CACHE_DIR=$PWD/old "$MAXCODE_BIN" stats >plain.txt &&
  ! grep -q "^Remote" plain.txt &&
  MAXCODE_CACHE_DIR=$PWD/old MAXCODE_REMOTE=http://127.0.0.1:9/c \
    "$MAXCODE_BIN" stats >remote.txt &&
  table_row remote.txt "Remote lookups:" 0 &&
  printf "remote_hits 1\nremote_misses 3\n" >>old/stats &&
  MAXCODE_CACHE_DIR=$PWD/old "$MAXCODE_BIN" stats >counted.txt &&
  table_row counted.txt "Remote lookups:" 4 &&
  grep -A1 "^Remote lookups:" counted.txt | grep -q "Hits: *1   25.00 %"
'

test_expect_success 'a bad argument is a usage error' '
  expect_exit 2 "$MAXCODE_BIN" stats --bogus 2>err && contains err "usage:"
'

test_done
