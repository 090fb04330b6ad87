#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0040-llm-search: the model-driven proposer in MaxCode's loop, against
# the loopback stub. A scripted trajectory (a wrong variant, a correct
# but slower one, a correct faster one) ends with the faster variant; the
# recorded prompts carry the previous round's feedback and critique, the
# best-so-far reward, and the trajectory only when the field is on.
# Also: critique=off sends no critic call, the Anthropic API, and
# proposer=auto choosing the model only when an endpoint is configured.
. "$MC_SRCDIR/tests/lib.sh"

# lib.sh's shortest timing cap, but in the cases that assert what the
# timing decides (the search optimized, the faster variant kept): there
# a 1 s cap (cap1) lets the timing confirm it on a busy machine. The
# cases that assert nothing the timing decides (prompts, requests,
# verdicts, keys, a resumed count) run on smaller inputs (llm_small).
export MAXCODE_CACHE_DIR="$TRASH/cache"
cap1 () { MAXCODE_TIMING_CAP=1 && export MAXCODE_TIMING_CAP; }

# Requests whose prompt is a proposal (not a critique), in order.
proposals () { stub_select '"critic in maxcode" not in r["prompt"]'; }

test_expect_success 'a scripted trajectory ends with the faster variant' '
  cap1 && llm_project traj "strategy=effi-learner, budget=3" && cd traj &&
  llm_script s.json CRIT-ONE-wrong,CRIT-TWO-slower,CRIT-THREE-faster -- \
    v/wrong.c v/slow.c v/fast.c &&
  stub_start s.json && llm_env &&
  run_make >out 2>err &&
  contains err "[1/3] incorrect" &&
  contains err "[2/3] correct" &&
  contains err "[3/3] correct" &&
  contains err "optimized" &&
  ./prog <t/a.in >got && cmp got /dev/null >/dev/null; test -s got &&
  cc -O2 -o orig hot.c && ./orig <t/a.in >want && cmp want got &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"status\"] == \"optimized\"" "j[\"proposer\"] == \"llm\"" \
    "j[\"model\"] == \"stub-model\"" "j[\"best\"] == \"llm#3\"" \
    "j[\"candidates\"] == 3" "j[\"correct_candidates\"] == 2" \
    "[t[\"verdict\"] for t in j[\"trajectory\"]] == [\"incorrect\", \"correct\", \"correct\"]" \
    "j[\"trajectory\"][1][\"parent\"] == 0" \
    "j[\"llm_requests\"] == 6" "j[\"tokens_in\"] > 0" \
    "j[\"tokens_out\"] > 0" "j[\"prompt_version\"].startswith(\"p1-\")" &&
  grep -q "v/fast.c\|r < 8;" .maxcode/*/hot.c
'

test_expect_success 'round 2 carries round 1 feedback and critique' '
  cd traj && STUB_LOG=$PWD/stub-log && set -- $(proposals) && test $# -eq 3 &&
  stub_prompt $2 >p2 &&
  contains p2 "# Current code (llm#1)" &&
  contains p2 "incorrect: t/a.in: line 1: expected" &&
  contains p2 "CRIT-ONE-wrong" &&
  contains p2 "The current code is not correct. Fix it" &&
  stub_prompt $1 >p1 && ! grep -q "Current code" p1 &&
  ! grep -q "CRIT-" p1
'

test_expect_success 'the best-so-far field carries its reward' '
  cd traj && STUB_LOG=$PWD/stub-log && set -- $(proposals) && stub_prompt $3 >p3 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  r=$(json_get m "\"%.2f\" % d[\"trajectory\"][1][\"speedup\"]") &&
  contains p3 "# Best so far: reward $r" &&
  contains p3 "r < 80;"
'

test_expect_success 'the trajectory field is there when enabled' '
  cd traj && STUB_LOG=$PWD/stub-log && set -- $(proposals) && stub_prompt $2 >p2 &&
  contains p2 "# Trajectory" && contains p2 "## Step 1 (llm#1), reward 0.00"
'

test_expect_success 'the trajectory field is absent when disabled' '
  llm_project notraj "strategy=effi-learner, budget=3, fields=best+critique" &&
  llm_small notraj && cd notraj &&
  llm_script s.json CRIT-ONE-wrong,CRIT-TWO -- v/wrong.c v/slow.c v/fast.c &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  set -- $(proposals) && test $# -eq 3 && stub_prompt $2 >p2 &&
  ! grep -q "# Trajectory" p2 && ! grep -q "## Step" p2 &&
  contains p2 "CRIT-ONE-wrong"
'

test_expect_success 'fields=traj alone: no critique and no best-so-far' '
  llm_project onlytraj "strategy=effi-learner, budget=3, fields=traj" &&
  llm_small onlytraj && cd onlytraj &&
  llm_script s.json CRIT-ONE-wrong,CRIT-TWO -- v/wrong.c v/slow.c v/fast.c &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  set -- $(proposals) && stub_prompt $2 >p2 && stub_prompt $3 >p3 &&
  contains p2 "# Trajectory" && ! grep -q "CRIT-" p2 &&
  ! grep -q "# Best so far" p3
'

test_expect_success 'critique=off sends no critic request' '
  llm_project nocrit "strategy=flat, budget=2, critique=off" &&
  llm_small nocrit && cd nocrit &&
  llm_script s.json CRIT -- v/same.c v/fast.c &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  test $(stub_requests) -eq 2 && test "$(proposals | wc -l)" -eq 2 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"llm_requests\"] == 2" "j[\"options\"][\"critique\"] == \"off\""
'

test_expect_success 'the Anthropic messages API' '
  cap1 && llm_project anth "strategy=flat, budget=1" && cd anth &&
  llm_script s.json CRIT-A -- v/fast.c &&
  stub_start s.json && llm_env &&
  MAXCODE_LLM_API=anthropic MAXCODE_LLM_URL=$STUB_URL run_make >out 2>err &&
  test $(stub_requests) -eq 2 &&
  test "$(stub_field 1 "r[\"path\"]")" = /v1/messages &&
  test "$(stub_field 1 "r[\"headers\"][\"x-api-key\"]")" = sk-test-SECRET-4242 &&
  test "$(stub_field 1 "r[\"headers\"][\"anthropic-version\"]")" = 2023-06-01 &&
  test "$(stub_field 1 "\"optimizer in maxcode\" in r[\"body\"][\"system\"]")" = True &&
  test "$(stub_field 1 "r[\"body\"][\"messages\"][0][\"role\"]")" = user &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"status\"] == \"optimized\"" "j[\"critique\"] == \"CRIT-A\""
'

test_expect_success 'OpenAI requests: path, bearer key, system and user, seeds' '
  cd traj && STUB_LOG=$PWD/stub-log &&
  test "$(stub_field 1 "r[\"path\"]")" = /v1/chat/completions &&
  test "$(stub_field 1 "r[\"headers\"][\"authorization\"]")" = "Bearer sk-test-SECRET-4242" &&
  test "$(stub_field 1 "\"+\".join(m[\"role\"] for m in r[\"body\"][\"messages\"])")" = system+user &&
  test "$(stub_field 1 "r[\"body\"][\"model\"]")" = stub-model &&
  set -- $(proposals) &&
  test "$(stub_field $1 "r[\"body\"][\"seed\"]")" != "$(stub_field $2 "r[\"body\"][\"seed\"]")"
'

test_expect_success 'proposer=auto: builtin without an endpoint, llm with one' '
  llm_project auto "strategy=flat, budget=1" && llm_small auto && cd auto &&
  (unset MAXCODE_LLM_URL; run_make >out 2>err) &&
  "$MAXCODE_BIN" show hot.c --json >m1 &&
  json m1 "j[\"proposer\"] == \"builtin\"" &&
  rm -f prog && llm_script s.json CRIT -- v/fast.c &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  "$MAXCODE_BIN" show hot.c --json >m2 &&
  json m2 "j[\"proposer\"] == \"llm\"" &&
  test "$(json_get m1 "d[\"key\"]")" != "$(json_get m2 "d[\"key\"]")"
'

test_expect_success 'a bad answer is a rejected candidate, not a crash' '
  llm_project junk "strategy=flat, budget=2, critique=off, min-speedup=1.04" &&
  llm_small junk && cd junk &&
  printf "%s\n" "{\"rules\":[{\"responses\":[{\"text\":\"I cannot help with that.\"},{\"text\":\"\`\`\`c\nint main(void) { return }\n\`\`\`\"}]}]}" >s.json &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"status\"] == \"original\"" \
    "sorted(t[\"verdict\"] for t in j[\"trajectory\"]) == [\"compile-error\", \"rejected\"]" &&
  contains err "the answer holds no code"
'

test_expect_success 'output that is not UTF-8 still makes a valid request' '
  llm_project utf "strategy=effi-learner, budget=2, critique=off" &&
  llm_small utf && cd utf &&
  sed "s/printf(\"%ld\\\\n\", work(n));/printf(\"\\\\377%ld\\\\n\", work(n));/" \
    v/same.c >v/bad.c && grep -q 377 v/bad.c &&
  llm_script s.json "" -- v/bad.c v/fast.c &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  test $(stub_requests) -eq 2 &&
  test "$(stub_field 2 "isinstance(r[\"body\"], dict)")" = True &&
  contains err "[1/2] incorrect" && contains err "[2/2] correct"
'

test_expect_success 'a critic that fails for good does not stop the search' '
  cap1 && llm_project crit404 "strategy=flat, budget=2" && cd crit404 &&
  llm_script s.json x -- v/same.c v/fast.c &&
  python3 -c "
import json
d = json.load(open(\"s.json\"))
d[\"rules\"][0][\"responses\"] = [{\"fault\": \"404\"}]
json.dump(d, open(\"s.json\", \"w\"))" &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  contains err "the critic failed" && contains err "[2/2]" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"candidates\"] == 2" "j[\"status\"] == \"optimized\""
'

test_expect_success 'a killed model search resumes from its journal' '
  llm_project resume "strategy=effi-learner, budget=4, critique=off" &&
  llm_small resume && cd resume && before=$(stat_of candidates) &&
  export LLM_DELAY=0.7 && llm_script s.json "" -- v/same.c &&
  stub_start s.json && llm_env &&
  { run_make >out1 2>err1 & } &&
  mpid=$! && j=$(kill_search_after 3) ;
  wait $mpid ;
  done1=$(( $(wc -l <"$j") - 1 )) &&
  test "$done1" -ge 2 && test "$done1" -lt 4 &&
  run_make >out2 2>err2 &&
  contains err2 "resumed from the journal: $done1 of 4 candidates" &&
  test $(( $(stat_of candidates) - before )) -eq 4 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"candidates\"] == 4" "j[\"llm_requests\"] >= 4" \
    "j[\"llm_requests\"] <= $(stub_requests)" &&
  test -x prog
'

test_done
