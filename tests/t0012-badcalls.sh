#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0012-badcalls: each malformed $(maxcode ...) call stops make (exit 2)
# at the caller's makefile line, "Makefile:N: *** maxcode: ...", with a
# message that names the problem, before any work starts (DESIGN 1.2).
# One test per bad call. A goal list of only cleaning goals (clean,
# distclean, ...) is never stopped by one.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

mkdir -p src t
printf 'int main(void) { return 0; }\n' >src/x.c
printf '#include <stdio.h>\n#pragma maxcode frob\nint main(void) { return 0; }\n' \
  >src/p.c
printf '/* q */\n\n#pragma maxcode optimize budget\nint main(void) { return 0; }\n' \
  >src/q.c
printf '1\n' >t/a.in
echo 'not a source' >notes.txt

# fails_at FILE:LINE TEXT: make failed with exit 2, saying on its one line
# of stderr "FILE:LINE: *** maxcode: ...TEXT...  Stop."; nothing was
# built, searched or cached.
fails_at () {
  expect_exit 2 run_make >out 2>err &&
  test "$(wc -l <err)" -eq 1 &&
  case $(cat err) in
    "$1: *** maxcode: "*) ;;
    *) echo "# not at $1:"; sed 's/^/#   /' err; exit 1 ;;
  esac &&
  contains err "$2" &&
  contains err "  Stop." &&
  test ! -s out &&
  test ! -e .maxcode && test ! -e "$MAXCODE_CACHE_DIR"
}

# bad_call 'ARGS' TEXT: $(maxcode ARGS) on line 4 of the Makefile stops
# make at Makefile:4 with a message containing TEXT.
bad_call () {
  printf 'load %s\n# line 2\n\nx := $(maxcode %s)\nall: ;@:\n' \
    "$PLUGIN" "$1" >Makefile &&
  fails_at Makefile:4 "$2"
}

test_expect_success 'an unknown key' '
  bad_call "src/x.c, colour=red" "src/x.c: unknown option '\''colour'\'' (known: link, args, inputs"
'

test_expect_success 'budget=0' '
  bad_call "src/x.c, budget=0" "src/x.c: option '\''budget=0'\'': expected a whole number"
'

test_expect_success 'budget=abc' '
  bad_call "src/x.c, budget=abc" "src/x.c: option '\''budget=abc'\'': expected a whole number"
'

test_expect_success 'compare=bogus' '
  bad_call "src/x.c, compare=bogus" "option '\''compare=bogus'\'': expected stdout, stderr, both, exit or file:NAME"
'

test_expect_success 'compare=file: without a name' '
  bad_call "src/x.c, compare=file:" "option '\''compare=file:'\'': expected"
'

test_expect_success 'tolerance=x' '
  bad_call "src/x.c, tolerance=x" "option '\''tolerance=x'\'': expected REL or REL/ABS"
'

test_expect_success 'a missing SOURCE' '
  bad_call ", budget=3" "maxcode: missing SOURCE"
'

test_expect_success 'an option where SOURCE should be' '
  bad_call "budget=3, src/x.c" "the first argument must be SOURCE, not the option '\''budget=3'\''"
'

test_expect_success 'a SOURCE that does not exist' '
  bad_call "src/nope.c" "SOURCE '\''src/nope.c'\'' not found"
'

test_expect_success 'a SOURCE that is not C, C++ or CUDA' '
  bad_call "notes.txt" "SOURCE '\''notes.txt'\'' is not C, C++ or CUDA"
'

# A link file that is not there may be one the build makes: no bad
# call (t0112). One that is no regular file is.
test_expect_success 'a link file that is a directory' '
  bad_call "src/x.c, link=t" "link file '\''t'\'' not found"
'

test_expect_success 'an inputs glob that matches nothing' '
  bad_call "src/x.c, inputs=t/*.nope" "inputs '\''t/*.nope'\'' matches no file"
'

test_expect_success 'a bench-inputs glob that matches nothing' '
  bad_call "src/x.c, inputs=t/*.in, bench-inputs=big/*.in" "bench-inputs '\''big/*.in'\'' matches no file"
'

test_expect_success 'an argument without =' '
  bad_call "src/x.c, budget" "argument '\''budget'\'' is not KEY=VALUE"
'

test_expect_success 'an empty argument (a stray comma)' '
  bad_call "src/x.c,, budget=3" "empty argument"
'

test_expect_success 'a key given twice' '
  bad_call "src/x.c, budget=3, budget=4" "option '\''budget'\'' given twice"
'

test_expect_success 'strategy=bogus' '
  bad_call "src/x.c, strategy=bogus" "option '\''strategy=bogus'\'': expected one of: flat effi-learner cuda-llm gvf"
'

test_expect_success 'metric=cycles' '
  bad_call "src/x.c, metric=cycles" "option '\''metric=cycles'\'': expected one of: time instructions"
'

test_expect_success 'min-speedup=0.5' '
  bad_call "src/x.c, min-speedup=0.5" "option '\''min-speedup=0.5'\'': expected a number"
'

test_expect_success 'sanitize=2' '
  bad_call "src/x.c, sanitize=2" "option '\''sanitize=2'\'': expected 0 or 1"
'

test_expect_success 'kernel=foo on a .c file' '
  bad_call "src/x.c, kernel=foo" "option '\''kernel'\'' applies only to CUDA sources (.cu)"
'

test_expect_success 'bins=3+2+1' '
  bad_call "src/x.c, bins=3+2+1" "option '\''bins=3+2+1'\'': expected three increasing percentages"
'

test_expect_success 'isa=avx' '
  bad_call "src/x.c, isa=avx" "option '\''isa=avx'\'': the only value is '\''native'\''"
'

test_expect_success 'args with an unbalanced quote names the option' '
  bad_call "src/x.c, args=\"oops" "src/x.c: option '\''args="
'

test_expect_success 'an unknown #pragma maxcode in SOURCE names its line' '
  bad_call "src/p.c" "maxcode: src/p.c:2: unknown '\''#pragma maxcode frob'\''"
'

test_expect_success 'a malformed #pragma maxcode optimize option names its line' '
  bad_call "src/q.c" "maxcode: src/q.c:3: malformed option '\''budget'\''"
'

test_expect_success '$(maxcode-marked ...) reports a bad pragma at its line' '
  printf "load %s\n\n\nSRCS := \$(maxcode-marked src/x.c src/p.c)\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  fails_at Makefile:4 "src/p.c:2: unknown '\''#pragma maxcode frob'\''"
'

test_expect_success 'a bad call in an included makefile names that file and line' '
  printf "# sub.mk\n\nprog: \$(maxcode src/x.c, budget=0)\n" >sub.mk &&
  printf "load %s\ninclude sub.mk\nall: ;@:\n" "$PLUGIN" >Makefile &&
  fails_at sub.mk:3 "option '\''budget=0'\''"
'

# A bad call must not keep a project from being cleaned (issue 27): a
# goal list of cleaning goals only turns the plugin off.
test_expect_success 'make clean and distclean run despite a bad call' '
  printf "load %s\nprog: \$(maxcode src/gone.c) \$(maxcode src/x.c, budget=0)\n" \
    "$PLUGIN" >Makefile &&
  printf "SRCS := \$(maxcode-marked src/x.c src/p.c)\n" >>Makefile &&
  printf "clean distclean maintainer-clean clobber: ; @echo cleaned \$@\n" \
    >>Makefile &&
  run_make clean >out 2>err && test "$(cat out)" = "cleaned clean" &&
  ! test -s err &&
  run_make distclean maintainer-clean clobber >out 2>err &&
  test "$(wc -l <out)" = 3 && ! test -s err &&
  ! test -d .maxcode
'

test_expect_success 'a goal besides cleaning ones still stops at the bad call' '
  expect_exit 2 run_make clean prog >out 2>err &&
  contains err "Makefile:2: *** maxcode:" &&
  expect_exit 2 run_make >out 2>err &&
  contains err "Makefile:2: *** maxcode:"
'

test_done
