#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0020-eval-verdicts: `maxcode eval SOURCE CANDIDATE` by hand: each
# verdict, what its detail says, the compare/tolerance/check/fence keys,
# the maxcode-time convention, the exit statuses.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
export MAXCODE_TIMING_CAP=3
export CFLAGS=-O2
unset CC CPPFLAGS LDFLAGS
# As root, candidates (and check commands) run as nobody, whose 64-process
# limit is machine-wide: lib.sh keeps this test apart from t0021's fork
# bombs (nobody_lock).
mkdir -p t
echo 300000 >t/a.in
echo 500000 >t/b.in

# The original does its work 20 times over; the candidate once.
cat >slow.c <<'EOC'
#include <stdio.h>
static long work(long n)
{
    volatile long s = 0;
    for (long i = 0; i < n; i++)
        s += i % 7;
    return s;
}
int main(void)
{
    long n, t = 0;
    if (scanf("%ld", &n) != 1)
        return 1;
    for (int k = 0; k < 20; k++)
        t += work(n);
    printf("total %ld\n", t);
    return 0;
}
EOC
sed 's/for (int k = 0; k < 20; k++)/t = 20 * work(n); if (0)/' slow.c >fast.c
# Wrong everywhere; wrong only on t/b.in (n = 500000).
sed 's/printf("total %ld\\n", t);/printf("total %ld\\n", t + 1);/' \
  fast.c >wrong.c
sed 's/printf("total %ld\\n", t);/printf("total %ld\\n", t + (n == 500000));/' \
  fast.c >wrong-b.c

test_expect_success 'the candidates differ from the original as meant' '
  ! cmp -s slow.c fast.c && ! cmp -s fast.c wrong.c &&
  ! cmp -s fast.c wrong-b.c && ! cmp -s wrong.c wrong-b.c
'

test_expect_success 'a faster correct candidate: correct, speedup confirmed' '
  "$MAXCODE_BIN" eval slow.c fast.c "inputs=t/*.in" --json >fb &&
  json fb "j[\"verdict\"] == \"correct\"" "j[\"correct\"] is True" \
    "j[\"compiled\"] is True" \
    "j[\"speedup\"] is not None and j[\"speedup\"] > 1" \
    "j[\"timing\"][\"promoted\"] is True" \
    "j[\"timing\"][\"confirmed\"] is True" \
    "j[\"timing\"][\"pairs\"] >= 8" \
    "j[\"timing\"][\"ci99_low\"] > 1" \
    "j[\"timing\"][\"ci99_low\"] <= j[\"timing\"][\"median_speedup\"] <= j[\"timing\"][\"ci99_high\"]" \
    "j[\"baseline_seconds\"] > j[\"candidate_seconds\"] > 0" \
    "j[\"timing\"][\"start\"] <= j[\"timing\"][\"end\"]" \
    "j[\"metric\"] == \"time\"" "j[\"detail\"] == \"\""
'

test_expect_success 'the human-readable record says the same' '
  "$MAXCODE_BIN" eval slow.c fast.c "inputs=t/*.in" --no-time >out &&
  contains out "candidate:  fast.c (against slow.c)" &&
  contains out "verdict:    correct" && contains out "sandbox:    network:" &&
  ! grep -q "^timing:" out
'

test_expect_success '--no-time: correct, no timing, speedup null' '
  "$MAXCODE_BIN" eval slow.c fast.c "inputs=t/*.in" --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\"" "j[\"speedup\"] is None" \
    "j[\"timing\"] == {}" "j[\"baseline_seconds\"] > 0" "j[\"candidate_seconds\"] is None"
'

test_expect_success 'wrong output: incorrect, detail names input and first differing line' '
  expect_exit 3 "$MAXCODE_BIN" eval slow.c wrong.c "inputs=t/*.in" \
    --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" "j[\"correct\"] is False" \
    "j[\"compiled\"] is True" "j[\"speedup\"] is None" \
    "j[\"detail\"] == \"t/a.in: line 1: expected \x27total 17999940\x27, got \x27total 17999941\x27 (stdout)\""
'

test_expect_success 'right on t/a.in, wrong on t/b.in: detail names t/b.in' '
  expect_exit 3 "$MAXCODE_BIN" eval slow.c wrong-b.c "inputs=t/*.in" \
    --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" \
    "j[\"detail\"].startswith(\"t/b.in: line 1: expected \x27total 29999880\x27, got \x27total 29999881\x27\")"
'

test_expect_success 'the first differing line is the one quoted' '
  printf "#include <stdio.h>\nint main(void) { puts(\"one\"); puts(\"two\"); puts(\"three\"); return 0; }\n" >lines.c &&
  sed "s/\"two\"/\"TWO\"/" lines.c >lines2.c &&
  expect_exit 3 "$MAXCODE_BIN" eval lines.c lines2.c --json --no-time >fb &&
  json fb "j[\"detail\"] == \"(no input): line 2: expected \x27two\x27, got \x27TWO\x27 (stdout)\""
'

# 1/3 and 1/3 * (1 + 1e-9), printed with all their digits.
cat >third.c <<'EOC'
#include <stdio.h>
int main(void)
{
    volatile double x = 1.0 / 3;
    printf("x = %.17g\n", x);
    return 0;
}
EOC
sed 's|x = 1.0 / 3;|x = 1.0 / 3 * (1 + 1e-9);|' third.c >third2.c

test_expect_success 'a 1e-9 relative difference: correct with tolerance=1e-6' '
  "$MAXCODE_BIN" eval third.c third2.c tolerance=1e-6 --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\""
'

test_expect_success 'the same difference is incorrect without tolerance' '
  expect_exit 3 "$MAXCODE_BIN" eval third.c third2.c --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" \
    "j[\"detail\"].startswith(\"(no input): line 1: expected \x27x = 0.33333333333333331\x27, got \x27x = 0.3333333336\")"
'

test_expect_success 'and incorrect with a tolerance smaller than it' '
  expect_exit 3 "$MAXCODE_BIN" eval third.c third2.c tolerance=1e-12 \
    --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\""
'

# Line 5 of the candidate has an undeclared identifier.
cat >broken.c <<'EOC'
#include <stdio.h>
int main(void)
{
    long t = 0;
    t = undeclared_thing + 1;
    printf("total %ld\n", t);
    return 0;
}
EOC

test_expect_success 'a compile error: verdict compile-error with diagnostics' '
  expect_exit 3 "$MAXCODE_BIN" eval slow.c broken.c "inputs=t/*.in" \
    --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"compile-error\"" "j[\"compiled\"] is False" \
    "j[\"correct\"] is False" "\"undeclared_thing\" in j[\"detail\"]" \
    "j[\"diagnostics\"].rstrip() == j[\"detail\"]"
'

test_expect_success 'the diagnostics point at the line, under SOURCE name (#line)' '
  json fb "\"slow.c:5:\" in j[\"detail\"]" "\"broken.c\" not in j[\"detail\"]"
'

cat >exit0.c <<'EOC'
#include <stdio.h>
int main(void) { puts("same"); fputs("note\n", stderr); return 0; }
EOC
sed 's/return 0;/return 1;/' exit0.c >exit1.c
sed 's/"note\\n"/"other note\\n"/' exit0.c >stderr2.c
sed 's/"same"/"different"/; s/"note\\n"/"other\\n"/' exit0.c >out2.c
sed 's/"same"/"different"/; s/return 0;/return 4;/' exit0.c >out2exit4.c

test_expect_success 'the fixtures differ as meant' '
  ! cmp -s exit0.c exit1.c && ! cmp -s exit0.c stderr2.c &&
  ! cmp -s exit0.c out2.c && ! cmp -s exit0.c out2exit4.c
'

test_expect_success 'another exit status: incorrect' '
  expect_exit 3 "$MAXCODE_BIN" eval exit0.c exit1.c --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" \
    "j[\"detail\"] == \"(no input): exit status 1, expected 0\""
'

test_expect_success 'the exit status counts even with compare=stdout' '
  expect_exit 3 "$MAXCODE_BIN" eval exit0.c exit1.c compare=stdout \
    --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\""
'

test_expect_success 'by default (both) stderr counts' '
  expect_exit 3 "$MAXCODE_BIN" eval exit0.c stderr2.c --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" "\"(stderr)\" in j[\"detail\"]"
'

test_expect_success 'compare=stdout ignores stderr differences' '
  "$MAXCODE_BIN" eval exit0.c stderr2.c compare=stdout --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\""
'

test_expect_success 'compare=stderr ignores stdout but not stderr' '
  expect_exit 3 "$MAXCODE_BIN" eval exit0.c stderr2.c compare=stderr \
    --no-time >out &&
  contains out "verdict:    incorrect"
'

test_expect_success 'compare=exit ignores output' '
  "$MAXCODE_BIN" eval exit0.c out2.c compare=exit --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\""
'

test_expect_success 'compare=exit still compares the exit status' '
  expect_exit 3 "$MAXCODE_BIN" eval exit0.c out2exit4.c compare=exit \
    --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" \
    "\"exit status 4, expected 0\" in j[\"detail\"]"
'

# The candidate tells itself apart from the original when asked "who":
# the check command must run the candidate, through $MAXCODE_EXE.
cat >who.c <<'EOC'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "who"))
        puts("candidate");
    puts("hello");
    return 0;
}
EOC
sed 's/int main(int argc, char \*\*argv)/int main(void)/; s/if (argc.*/if (0)/' \
  who.c >who-orig.c

test_expect_success 'a check command that fails: incorrect' '
  expect_exit 3 "$MAXCODE_BIN" eval who-orig.c who.c \
    "check=test \"\$(\"\$MAXCODE_EXE\" who)\" = hello || { echo check-said-no >&2; exit 1; }" \
    --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" "j[\"compiled\"] is True" \
    "\"check-said-no\" in j[\"detail\"]" "\"failed\" in j[\"detail\"]"
'

test_expect_success 'a check command that tests $MAXCODE_EXE passes' '
  "$MAXCODE_BIN" eval who-orig.c who.c \
    "check=test -x \"\$MAXCODE_EXE\" && \"\$MAXCODE_EXE\" who | grep -qx hello" \
    --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\""
'

test_expect_success 'the check command runs the candidate, not only the original' '
  expect_exit 3 "$MAXCODE_BIN" eval who-orig.c who.c \
    "check=! \"\$MAXCODE_EXE\" who | grep -qx candidate" --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\""
'

test_expect_success 'an original that fails its own check judges no candidate' '
  expect_exit 1 "$MAXCODE_BIN" eval who-orig.c who.c \
    "check=echo check-said-no >&2; exit 1" --json --no-time >fb 2>err &&
  contains err "the original fails its own check on (no input)" &&
  contains err "check-said-no" && contains err "exit status 1" &&
  ! test -s fb
'

cat >fenced.c <<'EOC'
#include <stdio.h>
static int f(int x)
{
#pragma maxcode begin
    int r = 0;
    for (int i = 0; i < x; i++)
        r += 2;
    return r;
#pragma maxcode end
}
int main(void) { printf("%d\n", f(21)); return 0; }
EOC
sed 's/    for (int i = 0; i < x; i++)/    r = 2 * x;/; /        r += 2;/d' \
  fenced.c >fenced-in.c
sed 's/printf("%d\\n", f(21));/printf("%d\\n", f(21)); fflush(stdout);/' \
  fenced-in.c >fenced-out.c

test_expect_success 'a change inside the fences is judged' '
  ! cmp -s fenced.c fenced-in.c &&
  "$MAXCODE_BIN" eval fenced.c fenced-in.c --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\""
'

test_expect_success 'a change outside the fences is rejected' '
  ! cmp -s fenced-in.c fenced-out.c &&
  expect_exit 3 "$MAXCODE_BIN" eval fenced.c fenced-out.c --json \
    --no-time >fb &&
  json fb "j[\"verdict\"] == \"rejected\"" "j[\"compiled\"] is False" \
    "j[\"correct\"] is False" \
    "j[\"detail\"] == \"text outside \x27#pragma maxcode begin/end\x27 changed at line 11\""
'

test_expect_success 'removing a fence is rejected too' '
  grep -v "pragma maxcode end" fenced.c >nofence.c &&
  expect_exit 3 "$MAXCODE_BIN" eval fenced.c nofence.c --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"rejected\""
'

cat >mtime.c <<'EOC'
#include <stdio.h>
int main(void) { puts("maxcode-time: 0.5"); puts("result 42"); return 0; }
EOC
sed 's/0\.5/0.25/' mtime.c >mtime2.c
sed 's/42/43/' mtime2.c >mtime3.c

test_expect_success 'maxcode-time lines are stripped before comparing' '
  ! cmp -s mtime.c mtime2.c &&
  "$MAXCODE_BIN" eval mtime.c mtime2.c --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\""
'

test_expect_success 'but the rest of the output still counts' '
  expect_exit 3 "$MAXCODE_BIN" eval mtime.c mtime3.c --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" \
    "j[\"detail\"] == \"(no input): line 1: expected \x27result 42\x27, got \x27result 43\x27 (stdout)\""
'

test_expect_success 'usage: SOURCE and CANDIDATE are required (exit 2)' '
  expect_exit 2 "$MAXCODE_BIN" eval 2>err &&
  contains err "eval: expected SOURCE CANDIDATE" &&
  expect_exit 2 "$MAXCODE_BIN" eval slow.c 2>err &&
  contains err "eval: expected SOURCE CANDIDATE"
'

test_expect_success 'usage: an unknown option (exit 2)' '
  expect_exit 2 "$MAXCODE_BIN" eval --fast slow.c fast.c 2>err &&
  contains err "eval: unknown option '\''--fast'\''"
'

test_expect_success 'usage: a bad KEY=VALUE (exit 2)' '
  expect_exit 2 "$MAXCODE_BIN" eval slow.c fast.c compare=bytes 2>err &&
  contains err "expected stdout, stderr, both, exit or file:NAME" &&
  expect_exit 2 "$MAXCODE_BIN" eval slow.c fast.c tolerance=-1 2>err &&
  expect_exit 2 "$MAXCODE_BIN" eval slow.c fast.c sanitize=2 2>err &&
  expect_exit 2 "$MAXCODE_BIN" eval slow.c fast.c "inputs=nothing/*.in" 2>err &&
  contains err "matches no file" &&
  expect_exit 2 "$MAXCODE_BIN" eval slow.c fast.c bogus=1 2>err
'

test_expect_success 'a missing candidate file cannot be judged (exit 1)' '
  expect_exit 1 "$MAXCODE_BIN" eval slow.c missing.c --no-time 2>err &&
  contains err "cannot read candidate '\''missing.c'\''"
'

test_expect_success 'an original that does not build cannot judge (exit 1)' '
  expect_exit 1 "$MAXCODE_BIN" eval broken.c fast.c --no-time 2>err &&
  contains err "the original does not build"
'

test_done
