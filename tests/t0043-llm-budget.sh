#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0043-llm-budget: max-tokens and max-cost stop a search at the cap;
# the usage totals (requests, tokens, cost at MAXCODE_PRICE_IN/_OUT) are
# in the manifest and in `maxcode stats`.
. "$MC_SRCDIR/tests/lib.sh"

# The timing decides nothing asserted here: its rounds keep lib.sh's
# shortest cap, and the projects llm_small's inputs.
export MAXCODE_CACHE_DIR="$TRASH/cache"

# script FILE: every answer is the original (correct, no faster) and
# reports 1000 tokens in and 500 out.
script () {
  python3 -S -c "
import json
a = \"\`\`\`c\n\" + open(\"v/same.c\").read() + \"\`\`\`\n\"
json.dump({\"rules\": [{\"responses\": [{\"usage\": {\"in\": 1000, \"out\": 500},
                                        \"text\": a}]}]}, open(\"$1\", \"w\"))"
}

test_expect_success 'max-tokens stops the search at the cap' '
  llm_project tok "strategy=flat, budget=8, critique=off, max-tokens=3000" &&
  llm_small tok && cd tok && script s.json && stub_start s.json &&
  llm_env &&
  before=$(stat_of llm_requests) &&
  run_make >out 2>err &&
  contains err "max-tokens 3000 reached (3000 tokens) after 2 candidates" &&
  test $(stub_requests) -eq 2 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"candidates\"] == 2" "j[\"llm_requests\"] == 2" \
    "j[\"tokens_in\"] == 2000" "j[\"tokens_out\"] == 1000" \
    "j[\"status\"] == \"original\"" "\"max-tokens\" in j[\"reason\"]" &&
  test $(( $(stat_of llm_requests) - before )) -eq 2
'

test_expect_success 'max-cost stops the search at the cap' '
  llm_project cost "strategy=flat, budget=8, critique=off, max-cost=0.02" &&
  llm_small cost && cd cost && script s.json && stub_start s.json &&
  llm_env &&
  "$MAXCODE_BIN" stats --zero >/dev/null &&
  MAXCODE_PRICE_IN=2 MAXCODE_PRICE_OUT=10 run_make >out 2>err &&
  contains err "max-cost 0.02 reached (0.0210) after 3 candidates" &&
  test $(stub_requests) -eq 3 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"llm_requests\"] == 3" "abs(j[\"cost\"] - 0.021) < 1e-9" \
    "abs(j[\"usage\"][\"stub-model\"][\"cost\"] - 0.021) < 1e-9" &&
  "$MAXCODE_BIN" stats --json >st &&
  json st "j[\"llm_requests\"] == 3" "j[\"tokens_in\"] == 3000" \
    "j[\"tokens_out\"] == 1500" "abs(j[\"cost\"] - 0.021) < 1e-6" &&
  "$MAXCODE_BIN" stats >st.txt && grep -q "^  Tokens in: *3000\$" st.txt &&
  grep -q "^  Cost: *0.0210\$" st.txt
'

test_expect_success 'critic calls count against the cap too' '
  llm_project crit "strategy=flat, budget=8, max-tokens=4500" &&
  llm_small crit && cd crit && script s.json && stub_start s.json &&
  llm_env &&
  run_make >out 2>err && contains err "max-tokens 4500 reached" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"tokens_in\"] + j[\"tokens_out\"] <= 4500 + 1500" \
    "j[\"llm_requests\"] < 8"
'

test_expect_success 'without a cap the whole budget is spent' '
  llm_project nocap "strategy=flat, budget=3, critique=off" &&
  llm_small nocap && cd nocap && script s.json && stub_start s.json &&
  llm_env &&
  run_make >out 2>err && test $(stub_requests) -eq 3 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"candidates\"] == 3" "j[\"cost\"] == 0"
'

test_done
