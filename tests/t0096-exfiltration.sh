#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0096-exfiltration: a candidate that tries to read a file outside the
# project while it compiles (an #include of it, an assembler .incbin of
# it, an #include of a symbolic link in the project that points at it,
# an #include whose name a macro builds) is rejected with a plain
# reason, the build keeps another candidate, and the file's content
# appears nowhere: not in make's output, the feedback, the journal, the
# manifest, the cache, .maxcode/, or any request the model endpoint got.
# Twice: with Landlock limiting reads, and with the test hook
# MAXCODE_NO_LANDLOCK, where the checks of what a candidate names must
# do it alone. The secret is readable by everyone (nobody too), so what
# keeps it out is the sandbox and the checks, not the file's mode.
. "$MC_SRCDIR/tests/lib.sh"

# The timing decides nothing asserted here (see kept_fast): a 1 s cap
# lets it confirm the fast variant on a busy machine, most often.
export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_TIMING_CAP=1
MARK=SECRET-7f3a9
OUT=$TRASH/outside
REASON="candidate reads a file outside the project"

mkdir -p "$OUT" && chmod 755 "$OUT" &&
printf '%s\n' "$MARK" >"$OUT/secret.h" &&
printf '%s' "$MARK" >"$OUT/secret.bin" &&
chmod 644 "$OUT/secret.h" "$OUT/secret.bin" || exit 1

# attacks DIR: the four variants under DIR/v/, each the fast variant
# plus its attempt: a.c includes the secret by its path, b.c embeds it
# with .incbin and prints it, c.c includes evil.h (a link in the
# project to the secret), d.c includes a name a macro builds.
attacks () {
  ln -s "$OUT/secret.h" "$1/evil.h" &&
  { echo "#include \"$OUT/secret.h\""; cat "$1/v/fast.c"; } >"$1/v/a.c" &&
  { cat "$1/v/fast.c"
    echo "__asm__(\".section .rodata\\n.globl mc_blob\\nmc_blob:\\n\""
    echo "        \".incbin \\\"$OUT/secret.bin\\\"\\n.byte 0\\n.text\\n\");"
    echo 'extern const char mc_blob[];'
    echo '__attribute__((constructor)) static void show(void) { puts(mc_blob); }'
  } >"$1/v/b.c" &&
  { echo '#include "evil.h"'; cat "$1/v/fast.c"; } >"$1/v/c.c" &&
  { echo '#define MC_S(x) #x'; echo '#define MC_Q(x) MC_S(x)'
    echo "#include MC_Q($OUT/secret.h)"; cat "$1/v/fast.c"; } >"$1/v/d.c" &&
  ! grep -l "$MARK" "$1"/v/*.c
}

# search DIR: a search whose model answers the four attacks, then the
# fast variant; make's output in DIR/out and DIR/err, the requests the
# endpoint got in DIR/stub-log, the recorded exchanges in DIR/rec.
search () {
  llm_project "$1" "strategy=flat, budget=5" && attacks "$1" && cd "$1" &&
  llm_script s.json CRIT -- v/a.c v/b.c v/c.c v/d.c v/fast.c &&
  stub_start s.json && llm_env &&
  { MAXCODE_LLM_RECORD=$PWD/rec run_make >out 2>err ||
    { echo "# make failed; it said:"; sed 's/^/#   /' out err; return 1; }; }
}

# KEPT (Python, over the manifest j): the fast variant, the one correct
# candidate, is the search's best and the build keeps it; or, where a
# busy machine (the tests run two at a time) hid its win in the noise,
# the original is kept for that reason alone, which names it. No attack
# is ever the best.
KEPT='(lambda fast: [j.get("best")] == fast if j["status"] == "optimized"
  else j["status"] == "original" and j.get("best", fast[0]) == fast[0]
  and "(" + fast[0] in j["reason"]
  and ("did not hold in the final confirmation" in j["reason"]
       or "beat min-speedup" in j["reason"]))(
  [t["variant"] for t in j["trajectory"] if t["verdict"] == "correct"])'

# kept_fast: the four attacks rejected with the reason and the fast
# variant correct (flat asks for its proposals side by side, so which
# label gets which answer varies); the build keeps the fast variant, or
# the original when the timing could not confirm its win beyond the
# noise (KEPT); either way the build's program prints what the original
# does. On a failure, what each candidate got and make's progress lines.
kept_fast () {
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m 'j["candidates"] == 5' \
    '(sorted(t["verdict"] for t in j["trajectory"]) ==
      ["correct"] + ["rejected"] * 4)' "$KEPT" &&
  ./prog <t/a.in >got && cc -O2 -o orig hot.c && ./orig <t/a.in >want &&
  test_cmp want got &&
  j=$(ls .maxcode/*/journal.jsonl) &&
  { test "$(grep -c "$REASON" "$j")" -ge 4 ||
    { echo "# fewer than 4 candidates have: $REASON"; false; }; } &&
  contains "$j" "$REASON: '$OUT/secret.h'" &&
  contains "$j" "$REASON: '$OUT/secret.bin'" &&
  contains "$j" "$REASON: 'evil.h'" || { judged >&2; return 1; }
}

# judged: each candidate of the journal under .maxcode/ (its label,
# verdict and detail), then make's progress lines (err).
judged () {
  echo "# the journal's candidates:"
  for _jd in .maxcode/*/journal.jsonl; do
    python3 -S - "$_jd" <<'EOP'
import json, sys
for line in open(sys.argv[1]):
    n = json.loads(line)
    if "label" in n:
        print("#   %s: %s: %s" % (n["label"], n["verdict"],
                                  n.get("detail", "")))
EOP
  done
  echo "# make said:"
  sed 's/^/#   /' err
}

# nowhere: the secret is in no file of the project (links not
# followed), the cache, the requests, the recorded exchanges, or make's
# output; and the critic got the plain reason.
nowhere () {
  STUB_LOG=$PWD/stub-log &&
  ! grep -rl "$MARK" . "$MAXCODE_CACHE_DIR" "$STUB_LOG" rec &&
  { test -d rec || { echo "# no recorded exchanges (rec)"; return 1; }; } &&
  { test "$(stub_requests)" -ge 5 ||
    { echo "# the endpoint got $(stub_requests) requests"; return 1; }; } &&
  { grep -rl "$REASON" "$STUB_LOG" >/dev/null ||
    { echo "# no request has: $REASON"; return 1; }; }
}

test_expect_success 'with Landlock: each attempt rejected, another kept' '
  search ll && kept_fast &&
  expect_exit 3 "$MAXCODE_BIN" eval hot.c v/d.c inputs=t/a.in --json \
    --no-time >fb &&
  json fb "j[\"verdict\"] == \"rejected\"" \
    "j[\"detail\"].startswith(\"$REASON\")" "j[\"diagnostics\"] == \"\"" &&
  ! grep -q "$MARK" fb
'

test_expect_success 'with Landlock: the secret is nowhere' '
  cd ll && nowhere
'

# Its own cache: the first search's entry would be a hit.
test_expect_success 'without Landlock: the checks reject each attempt' '
  export MAXCODE_NO_LANDLOCK=1 MAXCODE_CACHE_DIR=$TRASH/cache-noll &&
  search noll && kept_fast &&
  expect_exit 3 "$MAXCODE_BIN" eval hot.c v/d.c inputs=t/a.in --json \
    --no-time >fb &&
  json fb "j[\"verdict\"] == \"rejected\"" \
    "j[\"detail\"] == \"$REASON: '"'"'$OUT/secret.h'"'"'\"" \
    "\"reads: NOT restricted (no Landlock here\" in j[\"sandbox\"]" &&
  ! grep -q "$MARK" fb
'

test_expect_success 'without Landlock: the secret is nowhere' '
  export MAXCODE_CACHE_DIR=$TRASH/cache-noll && cd noll && nowhere
'

# A candidate that reads the secret when it runs, and prints it when it
# can; only Landlock stops that (without it, see doc/internals/eval.md).
test_expect_success 'with Landlock: a run cannot read it either' '
  mkdir run && cd run && cp ../ll/hot.c . && echo 1000 >in &&
  { cat hot.c; echo "__attribute__((constructor)) static void peek(void) {"
    echo "  char b[64]; FILE *f = fopen(\"$OUT/secret.bin\", \"r\");"
    echo "  if (f && fgets(b, sizeof b, f)) puts(b); }"; } >peek.c &&
  "$MAXCODE_BIN" eval hot.c peek.c inputs=in --json --no-time >fb &&
  if grep -q "reads: only the project" fb; then
    json fb "j[\"verdict\"] == \"correct\"" && ! grep -q "$MARK" fb
  else
    echo "# no Landlock here: only the compile-time checks hold"
  fi
'

test_expect_success 'a build that reads a header through -I still works' '
  mkdir inc && cd inc && mkdir include src &&
  echo "#define STEP 1" >include/step.h &&
  printf "#include <stdio.h>\n#include \"step.h\"\nint main(void) { long s = 0; for (int i = 0; i < 1000; i += STEP) s += i; printf(\"%%ld\\\\n\", s); return 0; }\n" >src/hot.c &&
  sed "s/i += STEP/i += STEP * 1/" src/hot.c >cand.c &&
  "$MAXCODE_BIN" eval src/hot.c cand.c cflags=-Iinclude --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\""
'

test_done
