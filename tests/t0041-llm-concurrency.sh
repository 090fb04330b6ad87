#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0041-llm-concurrency: the K proposals of a round are in flight
# together. Eight proposals against a stub that takes 500 ms for each
# finish in under 1.5 s of wall time, each with its own seed. With
# MAXCODE_LLM_N=1 the round is one request with n = 8 (the prompt paid
# once), and a server that ignores n gets the missing ones separately.
. "$MC_SRCDIR/tests/lib.sh"

# The timing decides nothing asserted here: its rounds keep lib.sh's
# shortest cap, and the projects run on small inputs (llm_small).
export MAXCODE_CACHE_DIR="$TRASH/cache"

test_expect_success 'eight proposals of one round overlap' '
  llm_project p "strategy=cuda-llm, budget=8, critique=off" &&
  llm_small p && cd p &&
  python3 -S -c "
import json
a = \"\`\`\`c\n\" + open(\"v/same.c\").read() + \"\`\`\`\n\"
json.dump({\"rules\": [{\"responses\": [{\"delay\": 0.5, \"text\": a}]}]},
          open(\"s.json\", \"w\"))" &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  test $(stub_requests) -eq 8 &&
  python3 -S - "$STUB_LOG" <<-\EOP
	import glob, json, sys
	rs = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/0*.json"))]
	start = min(r["t_start"] for r in rs)
	end = max(r["t_end"] for r in rs)
	print("# wall time of the round: %.2f s" % (end - start))
	assert end - start < 1.5, end - start
	# All in flight at once: the last arrived before the first answered.
	assert max(r["t_start"] for r in rs) < min(r["t_end"] for r in rs)
	seeds = {r["body"]["seed"] for r in rs}
	assert len(seeds) == 8, seeds
	EOP
'

test_expect_success 'the round is one cuda-llm round of K = 8' '
  cd p && "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"candidates\"] == 8" "j[\"llm_requests\"] == 8" \
    "all(t[\"parent\"] == -1 for t in j[\"trajectory\"])"
'

# script_n FILE [IGNORE]: eight distinct correct answers (the original
# with a comment naming its number); IGNORE plays a server without n.
script_n () {
  python3 -S - "$1" "${2:-}" <<-\EOP
	import json, sys
	code = open("v/same.c").read()
	steps = [{"text": "```c\n/* variant %d */\n%s```\n" % (i, code)}
	         for i in range(8)]
	rule = {"responses": steps}
	if sys.argv[2]:
	    rule["ignore_n"] = True
	json.dump({"rules": [rule]}, open(sys.argv[1], "w"))
	EOP
}

test_expect_success 'MAXCODE_LLM_N=1: the round is one request with n' '
  llm_project n "strategy=cuda-llm, budget=8, critique=off, min-speedup=1.05" &&
  llm_small n && cd n &&
  script_n s.json && stub_start s.json && llm_env &&
  MAXCODE_LLM_N=1 run_make >out 2>err &&
  test $(stub_requests) -eq 1 &&
  test "$(stub_field 1 "r[\"body\"][\"n\"]")" = 8 &&
  test "$(stub_field 1 "r[\"choices\"]")" = 8 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"candidates\"] == 8" "j[\"llm_requests\"] == 1" &&
  for i in 0 1 2 3 4 5 6 7; do
    grep -q "variant $i " .maxcode/*/journal.jsonl || exit 1
  done
'

test_expect_success 'a server that ignores n: the rest are asked one by one' '
  llm_project ign "strategy=cuda-llm, budget=8, critique=off, min-speedup=1.04" &&
  llm_small ign && cd ign && script_n s.json ignore && stub_start s.json && llm_env &&
  MAXCODE_LLM_N=1 run_make >out 2>err &&
  test $(stub_requests) -eq 8 &&
  test "$(stub_field 1 "r[\"body\"][\"n\"]")" = 8 &&
  test "$(stub_field 2 "r[\"body\"].get(\"n\", 1)")" = 1 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"candidates\"] == 8" "j[\"llm_requests\"] == 8"
'

test_done
