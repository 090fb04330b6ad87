#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0099-strict: MAXCODE_STRICT=1, as the design says: a search that
# fails for a reason other than "no faster variant" fails the build
# with that reason (the search's recipe fails, at the caller's makefile
# line, and nothing is linked), and nothing is cached, so the next
# build fails the same way. No faster variant (every candidate wrong
# or slower) is no failure. Without MAXCODE_STRICT the same failures
# keep the original and the build succeeds. The failures: a model
# endpoint that refuses connections, an original that crashes on its
# input (it cannot be measured), a key lock that cannot be taken. The
# setting reaches the search from the environment, from make's command
# line and from the makefile, and `maxcode optimize` by hand exits 1.
. "$MC_SRCDIR/tests/lib.sh"

# Nothing here asserts a timing: the searches do not queue for the
# machine's timing lock behind other tests'.
export MAXCODE_TIMING_LOCK="$TRASH/timing.lock"

# dead_env: the model endpoint is a port where nothing listens.
dead_env () {
  _port=$(python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()') &&
  MAXCODE_LLM_URL=http://127.0.0.1:$_port/v1 MAXCODE_MODEL=stub-model \
  MAXCODE_API_KEY=sk-test-SECRET-4242 MAXCODE_LLM_RETRIES=0 &&
  export MAXCODE_LLM_URL MAXCODE_MODEL MAXCODE_API_KEY MAXCODE_LLM_RETRIES
}

# project NAME: llm_project NAME with one candidate and its own cache,
# on llm_small's inputs (no case asserts what the timing decides); ends
# in NAME.
project () {
  export MAXCODE_CACHE_DIR="$TRASH/cache-$1" &&
  llm_project "$1" 'strategy=flat, budget=1, critique=off' &&
  llm_small "$1" && cd "$1"
}

# failed_with TEXT: the build (err, its status in $st) failed in the
# search's recipe at the caller's line, saying TEXT, and linked nothing.
failed_with () {
  test "$st" -ne 0 &&
  contains err "hot.c: the search failed (MAXCODE_STRICT=1): $1" &&
  contains err "[Makefile:3: .maxcode/" &&
  test ! -e prog
}

# original_kept TEXT: the build succeeded with the original, saying TEXT.
original_kept () {
  test "$st" -eq 0 && test -x prog &&
  contains err "hot.c: keeping the original ($1" &&
  ! grep -q "MAXCODE_STRICT" err
}

test_expect_success 'no faster variant, STRICT=1: the build succeeds with the original' '
  project none && llm_script s.json "" -- v/wrong.c && stub_start s.json &&
  llm_env &&
  { MAXCODE_STRICT=1 run_make >out 2>err; st=$?; } &&
  original_kept "no correct variant" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"status\"] == \"original\"" &&
  test "$(entries)" = 1 &&
  { MAXCODE_STRICT=1 run_make >out 2>err; st=$?; } && test "$st" -eq 0
'

test_expect_success 'a dead endpoint, STRICT=1: the build fails, naming it' '
  project dead && dead_env &&
  { MAXCODE_STRICT=1 run_make >out 2>err; st=$?; } &&
  failed_with "" && contains err "onnect" &&
  test "$(entries)" = 0 &&
  { MAXCODE_STRICT=1 run_make >out 2>err; st=$?; } &&
  failed_with ""
'

test_expect_success 'a dead endpoint without STRICT: the build succeeds with the original' '
  project dead-lax && dead_env &&
  { run_make >out 2>err; st=$?; } &&
  original_kept "" && contains err "onnect" && ./prog <t/a.in >/dev/null
'

test_expect_success 'STRICT=1 from make'"'"'s command line and from the makefile' '
  project dead-var && dead_env &&
  { run_make MAXCODE_STRICT=1 >out 2>err; st=$?; } &&
  failed_with "" &&
  sed -i "1a MAXCODE_STRICT = 1" Makefile &&
  { run_make >out 2>err; st=$?; } &&
  test "$st" -ne 0 &&
  contains err "the search failed (MAXCODE_STRICT=1)" &&
  test ! -e prog
'

# hot.c aborts on its input; the build links it all the same.
test_expect_success 'an original that crashes on its input, STRICT=1: the build fails' '
  project crash && llm_script s.json "" -- v/same.c && stub_start s.json &&
  llm_env &&
  sed -i -e "1i #include <stdlib.h>" \
    -e "s/if (scanf(\"%d\", &n) != 1) return 1;/&\n    if (n > 0) abort();/" \
    hot.c &&
  grep -q abort hot.c &&
  { MAXCODE_STRICT=1 run_make >out 2>err; st=$?; } &&
  failed_with "cannot measure the original" &&
  test "$(entries)" = 0 &&
  { run_make >out 2>err; st=$?; } &&
  original_kept "cannot measure the original"
'

test_expect_success 'a key lock that cannot be taken, STRICT=1: the build fails' '
  project lock && llm_script s.json "" -- v/wrong.c && stub_start s.json &&
  llm_env &&
  key=$(run_make -n | sed -n "s|.*\.maxcode/\([0-9a-f]*\)/hot\.c.*|\1|p" |
        head -n 1) &&
  test -n "$key" &&
  lock=$MAXCODE_CACHE_DIR/$(echo $key | cut -c1-2)/$(echo $key | cut -c3-4)/$key.lock &&
  mkdir -p "$lock" &&
  { MAXCODE_STRICT=1 run_make >out 2>err; st=$?; } &&
  failed_with "" && contains err "$key.lock" &&
  { run_make >out 2>err; st=$?; } &&
  test "$st" -eq 0 && test -x prog
'

test_expect_success 'maxcode optimize by hand, STRICT=1: exit 1 and the reason' '
  project hand && dead_env &&
  { MAXCODE_STRICT=1 "$MAXCODE_BIN" optimize hot.c inputs=t/*.in \
      strategy=flat budget=1 critique=off >out 2>err; st=$?; } &&
  test "$st" -eq 1 &&
  contains err "hot.c: the search failed (MAXCODE_STRICT=1)" &&
  test ! -s out &&
  "$MAXCODE_BIN" optimize hot.c inputs=t/*.in strategy=flat budget=1 \
    critique=off >out 2>err &&
  test -s out
'

test_done
