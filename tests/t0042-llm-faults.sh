#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0042-llm-faults: every fault of the model endpoint ends well. A fault
# worth a retry (HTTP 500, 529, 429 with Retry-After, a body that is not
# JSON, a truncated body, a reset connection) is retried and the next
# answer is used; one that is not (400, 401, 403, 404, a spent quota, an
# answer too slow for the timeout, an endpoint that does not listen) keeps
# the original and, nothing having been evaluated, caches nothing, so the
# next build asks again; an answer
# without code (no choices, cut at max_tokens) is a rejected candidate.
# The build always succeeds, and within the configured timeouts.
. "$MC_SRCDIR/tests/lib.sh"

# The timing decides nothing asserted here (see optimized): lib.sh's
# shortest timing cap. The cases that keep the original (an endpoint that
# fails, an answer rejected) run on small inputs (llm_small); those whose
# answer is used keep llm_project's, where the variant that the timing
# keeps is most often what make builds.
export MAXCODE_CACHE_DIR="$TRASH/cache"
# The builds' wall times are bounded against the first one's; with tests
# running two at a time, a build must not queue for the machine's timing
# lock behind another test's timing phase. Its timing decides nothing
# asserted here (see optimized), so the lock is this test's own, and its
# timing runs are not pinned to the CPU where the other test's are.
export MAXCODE_TIMING_LOCK="$TRASH/timing.lock" MAXCODE_TIMING_CPU=none
# Each attempt ends within LLM_T seconds; the first retry waits at most
# 0.5 s (backoff, llm.h) unless the server says when. (The client polls
# at most once a second, so today a retry sooner than 1 s comes after
# about 1 s; the bounds below, counted in attempt timeouts, allow it.)
LLM_T=2
export MAXCODE_LLM_TIMEOUT=$LLM_T MAXCODE_LLM_CONNECT_TIMEOUT=1

# Steps of the stub's script (see fault_script): the good answer, the same
# answer too late for a 1 s timeout, and cut at max_tokens.
SLOW='{"delay": 3, "text": "FAST"}'
CUT='{"finish": "length", "text": "FAST"}'

# fault_script FILE DIR STEP...: a stub script whose one rule serves the
# STEPs in turn (the last one repeats). A STEP is "fast" (DIR/v/fast.c,
# fenced in prose, as the model would answer), a fault name ("500",
# "reset", ...) or a JSON object, in which a text "FAST" stands for the
# fast answer.
fault_script () {
  python3 -S - "$@" <<'EOP'
import json, sys
out, d, args = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(d + "/v/fast.c") as f:
    fast = ("Here is a faster version.\n```c\n" + f.read() +
            "```\nIt prints the same.")
steps = []
for a in args:
    if a == "fast":
        s = {"text": "FAST"}
    elif a.startswith("{"):
        s = json.loads(a)
    else:
        s = {"fault": a}
    if s.get("text") == "FAST":
        s["text"] = fast
    steps.append(s)
with open(out, "w") as f:
    json.dump({"rules": [{"match": None, "responses": steps}]}, f, indent=1)
EOP
}

# setup NAME STEP...: a project NAME (one proposal, no critic) with its own
# cache, a stub serving the STEPs, maxcode pointed at it; cds into NAME.
setup () {
  _name=$1; shift
  llm_project "$_name" 'strategy=flat, budget=1, critique=off' &&
  fault_script "$TRASH/$_name.json" "$_name" "$@" &&
  stub_start "$TRASH/$_name.json" "$TRASH/$_name-log" &&
  llm_env &&
  MAXCODE_CACHE_DIR=$TRASH/cache-$_name && export MAXCODE_CACHE_DIR &&
  cd "$_name"
}

# now: the time in seconds (GNU date, else Python).
case $(date +%N) in
  [0-9]*) now () { date +%s.%N; } ;;
  *) now () { python3 -c 'import time; print("%.3f" % time.time())'; } ;;
esac

# timed_make: run_make >out 2>err, its wall time (s) to ./elapsed.
timed_make () {
  _t0=$(now)
  run_make >out 2>err
  _rc=$?
  _t1=$(now)
  awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.3f\n", b - a }' >elapsed
  [ "$_rc" -eq 0 ] || { echo "# make failed ($_rc)"; sed 's/^/#   /' err; }
  return "$_rc"
}

# baseline: the wall time of a normal build (the first test), 5 s if that
# test did not record it.
baseline () { cat "$TRASH/baseline" 2>/dev/null || echo 5; }

# within EXTRA: the last timed_make took less than a normal build plus
# EXTRA seconds (what the timeouts and waits allow).
within () {
  awk -v t="$(cat elapsed)" -v b="$(baseline)" -v x="$1" 'BEGIN {
    if (t < b + x) exit 0
    printf "# make took %.2f s, limit %.2f s + %s s\n", t, b, x; exit 1 }'
}

# below LIMIT / above LIMIT: the last timed_make took less / at least
# LIMIT seconds.
below () {
  awk -v t="$(cat elapsed)" -v l="$1" 'BEGIN {
    if (t < l) exit 0; printf "# make took %.2f s, limit %s s\n", t, l; exit 1 }'
}
above () {
  awk -v t="$(cat elapsed)" -v l="$1" 'BEGIN {
    if (t >= l) exit 0; printf "# make took %.2f s, at least %s s expected\n", t, l
    exit 1 }'
}

# gap N M MIN [MAX]: request M started at least MIN (and at most MAX)
# seconds after request N.
gap () {
  python3 -S - "$STUB_LOG" "$@" <<'EOP2'
import json, sys
d, n, m, least = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
most = float(sys.argv[5]) if len(sys.argv) > 5 else 1e9
t = [json.load(open("%s/%04d.json" % (d, int(i))))["t_start"] for i in (n, m)]
if not least <= t[1] - t[0] <= most:
    print("# request %s came %.3f s after request %s; %s to %s s expected"
          % (m, t[1] - t[0], n, least, most))
    sys.exit(1)
EOP2
}

# faults: the fault of each request the stub logged, in order ("None":
# an answer), on one line.
faults () {
  python3 -S - "$STUB_LOG" <<'EOP2'
import glob, json, os, sys
fs = sorted(glob.glob(os.path.join(sys.argv[1], "[0-9][0-9][0-9][0-9]*.json")))
print(" ".join(str(json.load(open(f))["fault"]) for f in fs))
EOP2
}

# served LIST: the stub served exactly the faults LIST (see faults).
served () {
  _got=$(faults)
  [ "$_got" = "$1" ] || { echo "# the stub served '$_got', not '$1'"; return 1; }
}

# requests N: the stub has logged exactly N requests.
requests () {
  _n=$(stub_requests)
  [ "$_n" -eq "$1" ] || { echo "# $1 requests expected, the stub logged $_n"; return 1; }
}

# wait_requests N SECS: until the stub has logged N requests (it logs a
# request once it answers).
wait_requests () {
  _i=0
  while [ "$(stub_requests)" -lt "$1" ] && [ "$_i" -lt $(($2 * 10)) ]; do
    sleep 0.1; _i=$((_i + 1))
  done
  requests "$1"
}

# built_from: the source make compiled prog from.
built_from () { sed -n 's/^.* -o prog //p' out; }

# from_original: that source is the original (after the #line maxcode
# puts first).
from_original () {
  _src=$(built_from) && test -n "$_src" &&
  sed '1{/^#line /d;}' "$_src" | cmp -s - hot.c
}

# same_output: ./prog prints what the original prints.
same_output () {
  cc -O2 -o orig hot.c || return 1
  for _f in t/*.in; do
    ./orig <"$_f" >want && ./prog <"$_f" >got && test_cmp want got || return 1
  done
}

# optimized: the last make used the model's answer (a correct candidate
# that the timing kept, or that a very busy machine could not confirm:
# the fault handling is what is tested), and the outcome was cached.
optimized () {
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m 'j["candidates"] == 1' 'j["correct_candidates"] == 1' \
    'j["status"] == "optimized" or "beat min-speedup" in j["reason"] or "did not hold in the final confirmation" in j["reason"]' &&
  { json m 'j["status"] != "optimized"' ||
    { test -n "$(built_from)" && ! from_original; }; } &&
  same_output &&
  test "$(stat_of stores)" = 1 ||
  { echo "# not optimized; make said:"; sed 's/^/#   /' err; return 1; }
}

# fell_back STORES: the last make built the original, said why, and
# stored nothing (STORES is the counter before it).
fell_back () {
  from_original &&
  same_output &&
  contains err "keeping the original" &&
  contains err "model endpoint failed" &&
  test "$(stat_of stores)" = "$1" &&
  test "$(entries)" = 0
}

# asks_again FAULT: a second build contacts the endpoint again, once, and
# falls back again.
asks_again () {
  rm -f prog &&
  run_make >out2 2>err2 &&
  contains err2 "keeping the original" &&
  served "$1 $1"
}

# rejected: the last make judged the answer a rejected candidate, kept
# the original and cached that; a second build does not ask again.
rejected () {
  from_original &&
  same_output &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m 'j["status"] == "original"' 'j["candidates"] == 1' \
    'j["trajectory"][0]["verdict"] == "rejected"' &&
  test "$(stat_of stores)" = 1 &&
  rm -f prog && run_make >out2 2>err2 && test -x prog &&
  requests 1
}

test_expect_success 'a normal answer is used (the time of a normal build)' '
  setup base fast &&
  timed_make &&
  optimized &&
  requests 1 &&
  cp elapsed "$TRASH/baseline" &&
  echo "# a normal build: $(cat elapsed) s"
'

# Retried once, then the answer: two attempts of at most LLM_T each and a
# backoff of at most 0.5 s.
for f in 500 529 malformed truncated; do
  test_expect_success "fault $f is retried, then the answer is used" "
    setup e$f $f fast &&
    timed_make &&
    optimized &&
    served '$f None' &&
    gap 1 2 0.2 0.8 &&
    within $((2 * LLM_T)).5
  "
done

test_expect_success 'HTTP 429 waits the Retry-After, then the answer is used' '
  setup e429 429 fast &&
  timed_make &&
  optimized &&
  served "429 None" &&
  gap 1 2 0.9 &&
  within $((2 * LLM_T + 1))
'

test_expect_success 'a reset connection is retried, then the answer is used' '
  setup reset reset fast &&
  timed_make &&
  optimized &&
  n=$(stub_requests) &&
  case $(faults) in "reset "*None) ;; *) served "reset None" ;; esac &&
  within $((n * LLM_T)).5
'

test_expect_success 'the Anthropic API: 529 is retried, then the answer is used' '
  setup anthropic 529 fast &&
  MAXCODE_LLM_API=anthropic MAXCODE_LLM_URL=$STUB_URL &&
  export MAXCODE_LLM_API MAXCODE_LLM_URL &&
  timed_make &&
  optimized &&
  served "529 None" &&
  test "$(stub_field 2 "r[\"api\"] + r[\"path\"]")" = anthropic/v1/messages &&
  gap 1 2 0.2 &&
  within $((2 * LLM_T)).5
'

# Not retried: one attempt, the original, nothing cached.
test_expect_success 'HTTP 400 is not retried: the original, not cached' '
  setup e400 400 && llm_small . &&
  timed_make &&
  served 400 &&
  fell_back 0 &&
  contains err "HTTP 400" &&
  within $LLM_T &&
  asks_again 400
'

for f in 401 403 404; do
  test_expect_success "HTTP $f is fatal: the original, not cached" "
    setup e$f $f && llm_small . &&
    timed_make &&
    served $f &&
    fell_back 0 &&
    contains err 'the model endpoint failed: HTTP $f' &&
    within $LLM_T &&
    asks_again $f
  "
done

test_expect_success 'a spent quota (429) is fatal: the original, not cached' '
  setup quota quota && llm_small . &&
  timed_make &&
  served quota &&
  fell_back 0 &&
  contains err "the model endpoint failed: HTTP 429" &&
  contains err "quota" &&
  within $LLM_T &&
  asks_again quota
'

# An answer without code: a rejected candidate, cached.
test_expect_success 'no choices: not retried, a rejected candidate' '
  setup empty empty fast && llm_small . &&
  timed_make &&
  served empty &&
  contains err "no content" &&
  within $LLM_T &&
  rejected
'

test_expect_success 'an answer cut at max_tokens is a rejected candidate' '
  setup cut "$CUT" fast && llm_small . &&
  timed_make &&
  requests 1 &&
  contains err "cut at max_tokens" &&
  within $LLM_T &&
  rejected
'

test_expect_success 'an answer slower than the timeout: 2 attempts, then the original' '
  MAXCODE_LLM_TIMEOUT=1 MAXCODE_LLM_RETRIES=1 &&
  export MAXCODE_LLM_TIMEOUT MAXCODE_LLM_RETRIES &&
  setup slow "$SLOW" && llm_small . &&
  timed_make &&
  fell_back 0 &&
  contains err "after 2 attempts" &&
  above 2 &&
  within 2.5 &&
  below 8 &&
  wait_requests 2 6 &&
  served "None None"
'

test_expect_success 'an endpoint that does not listen: the original, in time' '
  llm_project dead "strategy=flat, budget=1, critique=off" &&
  llm_small dead && cd dead &&
  port=$(python3 -S -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1]); s.close()") &&
  MAXCODE_LLM_URL=http://127.0.0.1:$port/v1 MAXCODE_MODEL=stub-model \
  MAXCODE_API_KEY=sk-test-SECRET-4242 MAXCODE_LLM_RETRIES=2 \
  MAXCODE_CACHE_DIR=$TRASH/cache-dead &&
  export MAXCODE_LLM_URL MAXCODE_MODEL MAXCODE_API_KEY MAXCODE_LLM_RETRIES \
    MAXCODE_CACHE_DIR &&
  timed_make &&
  fell_back 0 &&
  contains err "after 3 attempts" &&
  below 6
'

test_done
