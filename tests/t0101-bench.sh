#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0101-bench: `maxcode bench SOURCE-or-KEY` re-measures a kept variant
# against its original now and prints the entry's claim beside it: the
# claimed figure is the manifest's, the measurement has a ratio and an
# interval, --json parses, a key works from anywhere as a source does,
# and the measurement uses the entry's metric whatever the environment
# says. It cannot measure an unknown key, a source with no entry, an
# entry that kept its original, or a source changed since the search:
# exit 1 with a plain reason. Timing records carry the machine's load
# around each round (the feedback record, the journal, the manifest).
# The search counts instructions, so it keeps its variant however busy
# the machine is; no timing figure is asserted.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

llm_project p "budget=1" &&
echo 3000 >p/t/a.in && echo 2000 >p/t/b.in &&
llm_script s.json CRIT -- p/v/fast.c &&
stub_start s.json && llm_env &&
(cd p && MAXCODE_METRIC=instructions run_make >../build.out 2>&1)
stub_stop
unset MAXCODE_LLM_URL MAXCODE_MODEL MAXCODE_API_KEY
KEY=$(cd p && "$MAXCODE_BIN" show hot.c --json |
  python3 -S -c 'import json,sys; print(json.load(sys.stdin)["key"])')

test_expect_success 'the search kept the variant' '
  cd p && "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"status\"] == \"optimized\"" "j[\"metric\"] == \"instructions\""
'

test_expect_success 'bench SOURCE: the claim beside a measurement' '
  cd p && "$MAXCODE_BIN" show hot.c --json >m &&
  claim=$(json_get m "\"%.3fx\" % d[\"speedup\"]") &&
  expect_exit 0 "$MAXCODE_BIN" bench hot.c >out 2>err &&
  contains out "claimed:    $claim" &&
  grep "^measured:   [0-9.]*x, 99% interval \[[0-9.]*, [0-9.]*\]" out &&
  grep "^agreement:  \(holds\|lower than claimed\|higher than claimed\)" out &&
  grep "^load:       round 1: " out
'

test_expect_success 'bench --json: the fields, the claim as the manifest has it' '
  cd p && "$MAXCODE_BIN" show hot.c --json >m &&
  MAXCODE_METRIC=time "$MAXCODE_BIN" bench --json hot.c >b &&
  python3 -S - m b <<-\EOP
	import json, sys
	m, b = (json.load(open(f)) for f in sys.argv[1:3])
	assert b["key"] == m["key"] and b["source"] == "hot.c", b
	assert b["claimed"]["speedup"] == m["speedup"], (b, m)
	assert b["claimed"]["interval"] == m["speedup_interval"], (b, m)
	x = b["measured"]
	lo, hi = x["interval"]
	assert lo <= x["speedup"] <= hi, x
	assert x["rounds"] >= 1 and x["pairs"] >= 1, x
	assert x["baseline_seconds"] > 0 and x["variant_seconds"] > 0, x
	assert len(x["load"]) == x["rounds"], x
	for r in x["load"]:
	    assert set(r) == {"before", "after", "repeats", "changed"}, r
	    assert set(r["before"]) == {"running", "psi_some", "loadavg", "cpus"}, r
	    assert 0 <= r["repeats"] <= 2, r
	# The entry was searched counting instructions: so is it measured,
	# whatever MAXCODE_METRIC says now; and the counts agree.
	assert b["metric"] == "instructions", b
	assert b["agreement"] == "holds", b
	# The original's count now against the search's: the same code.
	assert b["claimed"]["baseline_seconds"] == m["baseline_seconds"], (b, m)
	assert x["original_moved"] is False, x
	EOP
'

test_expect_success 'bench KEY works from another directory' '
  mkdir -p elsewhere && cd elsewhere &&
  expect_exit 0 "$MAXCODE_BIN" bench --json "$KEY" >b 2>err &&
  json b "j[\"key\"] == \"$KEY\"" "j[\"measured\"][\"speedup\"] > 1" &&
  contains err "where the search ran"
'

test_expect_success 'an unknown key: exit 1, said' '
  expect_exit 1 "$MAXCODE_BIN" bench 0123456789abcdef0123456789abcdef \
    >out 2>err &&
  contains err "no cache entry" && test ! -s out
'

test_expect_success 'a source that was never searched: exit 1, said' '
  cd p && cp hot.c other.c &&
  expect_exit 1 "$MAXCODE_BIN" bench other.c >out 2>err &&
  contains err "no cache entry for '\''other.c'\''" && test ! -s out
'

test_expect_success 'an entry that kept its original: exit 1, said' '
  llm_project flat "budget=1, min-speedup=1000" &&
  echo 3000 >flat/t/a.in && echo 2000 >flat/t/b.in &&
  llm_script s2.json CRIT -- flat/v/fast.c &&
  stub_start s2.json && llm_env &&
  (cd flat && MAXCODE_METRIC=instructions run_make >out 2>&1) &&
  stub_stop && cd flat &&
  expect_exit 1 "$MAXCODE_BIN" bench hot.c >out 2>err &&
  contains err "keeps the original" && test ! -s out
'

test_expect_success 'a source changed since the search: exit 1, said' '
  cd p && cp hot.c hot.c.orig && echo "/* edited */" >>hot.c &&
  "$MAXCODE_BIN" bench "$KEY" >out 2>err; rc=$? &&
  mv hot.c.orig hot.c && test "$rc" = 1 &&
  contains err "has changed since entry $KEY" && test ! -s out
'

test_expect_success 'usage errors: exit 2' '
  expect_exit 2 "$MAXCODE_BIN" bench 2>err &&
  expect_exit 2 "$MAXCODE_BIN" bench --rounds 0 "$KEY" 2>err &&
  contains err "--rounds" &&
  expect_exit 2 "$MAXCODE_BIN" bench a.c b.c 2>err
'

test_expect_success 'the journal and the manifest record the load' '
  cd p && "$MAXCODE_BIN" show hot.c --json >m &&
  json m "len(j[\"load\"]) >= 1" \
    "set(j[\"load\"][0]) == {\"before\", \"after\", \"repeats\", \"changed\"}" &&
  python3 - .maxcode/*/journal.jsonl <<-\EOP
	import json, sys
	nodes = [json.loads(l) for l in open(sys.argv[1])][1:]
	timed = [n for n in nodes if n["correct"]]
	assert timed and all(len(n["load"]) >= 1 for n in timed), nodes
	EOP
'

test_expect_success 'maxcode eval --json: each timing round and its load' '
  cd p && MAXCODE_TIMING_CAP=0.1 "$MAXCODE_BIN" eval hot.c v/fast.c \
    "inputs=t/*.in" --json >e || test $? = 3 &&
  json e "j[\"timing\"][\"rounds\"] in (1, 2)" \
    "len(j[\"timing\"][\"load\"]) == j[\"timing\"][\"rounds\"]" \
    "all(0 <= r[\"repeats\"] <= 2 for r in j[\"timing\"][\"load\"])" \
    "isinstance(j[\"timing\"][\"load_changed\"], bool)"
'

test_done
