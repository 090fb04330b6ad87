#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0095-duplicates: a candidate whose code is one already judged in the
# same search, but for whitespace, is not built or timed again: it takes
# the earlier judgement (the very same speedup, which a second timing
# would never reproduce to the last digit), says so in its detail, is
# marked duplicate_of in the manifest and the journal, and still counts
# against the budget. Code that differs in more than whitespace is
# judged.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_TIMING_CAP=1

test_expect_success 'a repeated candidate takes the earlier judgement' '
  llm_project dup "strategy=effi-learner, budget=4" && cd dup &&
  sed "s/^    /\t/; s/ = 0;/  =   0;/" v/fast.c >v/fast-ws.c &&
  printf "\n\n" >>v/fast-ws.c &&
  ! cmp -s v/fast.c v/fast-ws.c &&
  llm_script s.json CRIT -- v/fast.c v/fast-ws.c v/slow.c v/fast.c &&
  stub_start s.json && llm_env && run_make >out 2>err &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "len(j[\"trajectory\"]) == 4" \
    "j[\"candidates\"] == 4" \
    "j[\"trajectory\"][1][\"duplicate_of\"] == 0" \
    "j[\"trajectory\"][3][\"duplicate_of\"] == 0" \
    "\"duplicate_of\" not in j[\"trajectory\"][0]" \
    "\"duplicate_of\" not in j[\"trajectory\"][2]" \
    "j[\"trajectory\"][1][\"speedup\"] == j[\"trajectory\"][0][\"speedup\"]" \
    "j[\"trajectory\"][3][\"verdict\"] == j[\"trajectory\"][0][\"verdict\"]" &&
  python3 - .maxcode/*/journal.jsonl <<-\EOP
	import json, sys
	nodes = [json.loads(l) for l in open(sys.argv[1]) if "code" in json.loads(l)]
	assert len(nodes) == 4, len(nodes)
	assert nodes[1].get("duplicate_of") == 0, [(n.get("label"), n.get("duplicate_of"), n.get("speedup")) for n in nodes]
	assert "the same code as candidate 1" in nodes[1]["detail"], nodes[1]["detail"]
	assert "duplicate_of" not in nodes[2]
	EOP
'

test_done
