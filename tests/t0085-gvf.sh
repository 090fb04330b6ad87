#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0085-gvf: value-guided search. A scripted search's trajectory is kept
# in its cache entry, and `maxcode rollouts export` turns it into exactly
# the records and labels (f_r, u_t, v*) worked out by hand; a served
# value model (the loopback stub, with logprobs) decides which node the
# next round expands, even one whose measured reward is not the highest;
# with the value endpoint down the search ranks by reward and says so;
# `maxcode gvf train` fits the built-in model, which then ranks (and
# changes the key of gvf searches).
. "$MC_SRCDIR/tests/lib.sh"

# lib.sh's shortest timing cap, but in the scripted search whose reward
# bins (f_r) the timing decides: there a 1 s cap lets it measure them on
# a busy machine. (The served and built-in rankings below are the value
# model's; the speedups they compare are 5x apart or more.)
export MAXCODE_CACHE_DIR="$TRASH/cache"

# faster.c: one repetition instead of 40 (well over 6x faster, even with
# the process's start-up in its time: the inputs are 5x llm_project's).
# The scripted search's reward bins need them, and so does the search
# that must end "optimized" (its final confirmation, on a busy machine);
# the searches whose assertions are the value model's ranking (served,
# built-in) run on llm_project's inputs, a fifth of the work for every
# run of the program (fast.c about 5x, slow.c about 0.5x: still far
# apart).
gvf_project () {
  llm_project "$1" "$2" && _llm_hot 1 '' >"$1/v/faster.c" &&
  echo 1500000 >"$1/t/a.in" && echo 1000000 >"$1/t/b.in"
}

test_expect_success 'a scripted search keeps its trajectory in the entry' '
  MAXCODE_TIMING_CAP=1 && export MAXCODE_TIMING_CAP &&
  gvf_project traj "strategy=effi-learner, budget=4, bins=150+600+100000" &&
  cd traj &&
  llm_script s.json CRIT-A,CRIT-B,CRIT-C,CRIT-D -- \
    v/faster.c v/fast.c v/wrong.c v/fast.c &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  contains err "[4/4]" && contains err "f_r " &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "[t[\"fr\"] for t in j[\"trajectory\"]] == [3, 2, 0, 2]" \
    "[t[\"ut\"] for t in j[\"trajectory\"]] == [3, 3, 0, 2]" &&
  grep -q "maxcode_trajectory" "$(find "$MAXCODE_CACHE_DIR" -name "*.mce")"
'

test_expect_success 'the export has the records and labels worked out by hand' '
  cd traj && "$MAXCODE_BIN" rollouts export -o r.jsonl 2>err &&
  contains err "4 records from 1 searches" &&
  key=$(json_get m "d[\"key\"]") &&
  python3 - r.jsonl "$key" <<-\EOP
	import json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	key = sys.argv[2]
	def check(cond, what):
	    if not cond:
	        print("# failed: " + what)
	        print("# " + json.dumps(recs, indent=1)[:3000])
	        sys.exit(1)
	check(len(recs) == 4, "four records")
	# Path 0 -> 1: the past best (3) is above what follows (2).
	# Path 2 -> 3: the wrong start (0) reaches 2 later.
	check([r["node"] for r in recs] == [0, 1, 2, 3], "nodes in order")
	check([r["parent"] for r in recs] == [-1, 0, -1, 2], "parents")
	check([r["depth"] for r in recs] == [1, 2, 1, 2], "depths")
	check([r["fr"] for r in recs] == [3, 2, 0, 2], "f_r")
	check([r["ut"] for r in recs] == [3, 3, 0, 2], "u_t")
	check([r["vstar"] for r in recs] == [3, 3, 2, 2], "v*")
	check(all(r["problem"] == key for r in recs), "the problem is the key")
	check(all(r["lang"] == "c" for r in recs), "language")
	check(len({r["split"] for r in recs}) == 1 and
	      recs[0]["split"] in ("train", "val"), "one split per problem")
	check("r < 1;" in recs[0]["code"] and "r < 8;" in recs[1]["code"],
	      "the code of each state")
	check([r["knobs"] for r in recs] ==
	      ["llm#1", "llm#2", "llm#3", "llm#4"], "labels")
	check([r["feedback"]["verdict"] for r in recs] ==
	      ["correct", "correct", "incorrect", "correct"], "verdicts")
	check(recs[0]["feedback"]["confirmed"] and
	      recs[0]["feedback"]["speedup"] > 6, "feedback of node 0")
	check([r["critique"] for r in recs] ==
	      ["CRIT-A", "CRIT-B", "CRIT-C", "CRIT-D"], "critiques")
	check(all("## Candidate (llm#%d)" % (i + 1) in r["prompt"] and
	          "u_t): %d" % r["ut"] in r["prompt"]
	          for i, r in enumerate(recs)), "the value prompt")
	check(all(r["bins"] == "150+600+100000" for r in recs), "bins")
	EOP
'

test_expect_success 'export: named keys, the split, bad arguments' '
  cd traj && key=$(json_get m "d[\"key\"]") &&
  "$MAXCODE_BIN" rollouts export "$key" >one 2>/dev/null &&
  test "$(wc -l <one)" -eq 4 &&
  "$MAXCODE_BIN" rollouts export --split 1 >all 2>/dev/null &&
  test "$(grep -c "\"split\":\"train\"" all)" -eq 4 &&
  expect_exit 2 "$MAXCODE_BIN" rollouts export --split 2 2>e &&
  contains e "--split takes a share" &&
  expect_exit 1 "$MAXCODE_BIN" rollouts export 0123 2>e &&
  contains e "no entry" &&
  expect_exit 2 "$MAXCODE_BIN" rollouts list 2>e
'

test_expect_success 'gvf train fits the built-in model on the cache' '
  cd traj &&
  "$MAXCODE_BIN" gvf train >out &&
  contains out "fitted on 4 records of 1 searches" &&
  test -s "$MAXCODE_CACHE_DIR/gvf/model" &&
  head -n 1 "$MAXCODE_CACHE_DIR/gvf/model" | grep -q "^maxcode-gvf 1$" &&
  "$MAXCODE_BIN" gvf train -o m2 >/dev/null && test -s m2 &&
  MAXCODE_CACHE_DIR=$TRASH/empty expect_exit 1 "$MAXCODE_BIN" gvf train \
    2>e && contains e "no recorded search"
'

# A served value model: the value request of llm#4 (slow.c, the slowest
# correct candidate) gets logprobs that put it in bin 4, every other one
# bin 1. The policy's K is 8: round 1 proposes 8, round 2 expands one;
# MAXCODE_LLM_N=1 asks for round 1 in one request with n=8, so that the
# scripted answers keep their order however the machine schedules.
served_script () {
  python3 - "$1" <<-\EOP
	import json, sys
	s = json.load(open(sys.argv[1]))
	s["rules"][0:0] = [
	    {"match": "## Candidate (llm#4)",
	     "responses": [{"text": "4",
	                    "logprobs": {"4": -0.05, "3": -3.0, "0": -6.0}}]},
	    {"match": "value model of a search",
	     "responses": [{"text": "1",
	                    "logprobs": {"1": -0.1, "0": -2.4}}]}]
	json.dump(s, open(sys.argv[1], "w"), indent=1)
	EOP
}

test_expect_success 'served: the highest expected bin is expanded next, without the policy key' '
  llm_project served "strategy=gvf, budget=9" && cd served &&
  llm_script s.json CRIT -- v/fast.c v/same.c v/wrong.c v/slow.c \
    v/same.c v/same.c v/same.c v/same.c v/fast.c &&
  served_script s.json &&
  stub_start s.json && llm_env &&
  MAXCODE_GVF_URL=$STUB_URL/v1 MAXCODE_LLM_N=1 run_make >out 2>err &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"ranking\"] == \"served\"" \
    "len(j[\"trajectory\"]) == 9" \
    "j[\"trajectory\"][3][\"verdict\"] == \"correct\"" \
    "j[\"trajectory\"][3][\"value\"] > 3.8" \
    "abs(j[\"trajectory\"][0][\"value\"] - 0.909) < 0.01" \
    "j[\"trajectory\"][0][\"speedup\"] > j[\"trajectory\"][3][\"speedup\"]" \
    "j[\"trajectory\"][8][\"parent\"] == 3" &&
  n=$(stub_requests) &&
  set -- $(python3 - "$STUB_LOG" "$n" <<-\EOP
	import json, os, sys
	v = k = 0
	for i in range(1, int(sys.argv[2]) + 1):
	    f = os.path.join(sys.argv[1], "%04d.json" % i)
	    r = json.load(open(f, encoding="utf-8"))
	    v += ("value model of a search" in r["prompt"] and
	          r["body"]["logprobs"] == True and
	          "authorization" not in r["headers"])
	    k += "sk-test-SECRET-4242" in r["headers"].get("authorization", "")
	print(v, k)
	EOP
  ) && v=$1 && k=$2 &&
  test $v -eq 9 && test $k -eq $((n - 9)) &&
  json m "j[\"llm_requests\"] == $n" \
    "j[\"usage\"][\"stub-model\"][\"requests\"] == $n"
'

test_expect_success 'served: the value endpoint down, the search ranks by reward' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-down" &&
  gvf_project down "strategy=gvf, budget=9" && cd down &&
  llm_script s.json CRIT -- v/same.c v/same.c v/wrong.c v/fast.c \
    v/same.c v/same.c v/same.c v/same.c v/fast.c &&
  stub_start s.json && llm_env &&
  MAXCODE_GVF_URL=http://127.0.0.1:9/v1 MAXCODE_LLM_RETRIES=0 \
    MAXCODE_LLM_N=1 run_make >out 2>err &&
  contains err "value model failed" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"ranking\"] == \"reward\"" \
    "\"served value model failed\" in j[\"ranking_note\"]" \
    "j[\"status\"] == \"optimized\"" \
    "all(\"value\" not in t for t in j[\"trajectory\"])" \
    "len(j[\"trajectory\"]) == 9" \
    "max(range(8), key=lambda i: j[\"trajectory\"][i][\"u\"]) == 3" \
    "j[\"trajectory\"][8][\"parent\"] == 3" &&
  ./prog <t/a.in >got && cc -O2 -o orig hot.c && ./orig <t/a.in >want &&
  test_cmp want got
'

test_expect_success 'the built-in model ranks, orders knobs and is in the key' '
  rm -f "$MAXCODE_CACHE_DIR/gvf/model" &&
  llm_project built "strategy=gvf, proposer=builtin, budget=2" && cd built &&
  run_make >out 2>err &&
  "$MAXCODE_BIN" show hot.c --json >m1 &&
  json m1 "j[\"ranking\"] == \"reward\"" \
    "\"no value model\" in j[\"ranking_note\"]" &&
  (cd ../traj && "$MAXCODE_BIN" gvf train >/dev/null) &&
  rm -f prog && run_make >out 2>err &&
  "$MAXCODE_BIN" show hot.c --json >m2 &&
  json m2 "j[\"ranking\"] == \"built-in\"" \
    "all(0 <= t[\"value\"] <= 4 for t in j[\"trajectory\"])" &&
  test "$(json_get m1 "d[\"key\"]")" != "$(json_get m2 "d[\"key\"]")"
'

test_done
