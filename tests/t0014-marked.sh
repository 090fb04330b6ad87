#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0014-marked: '#pragma maxcode optimize' inside a source marks it, and
# $(maxcode-marked FILES) replaces each marked file by its $(maxcode ...)
# result, leaving the others as they are (DESIGN 1.3). The pragma's
# options apply; a function argument beats them.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

# The glob is quoted in the pragma: unquoted, its '/*' would open a C
# comment.
mkdir -p src t
cat >src/hot.c <<\EOF
#include <stdio.h>
#pragma maxcode optimize inputs="t/*.in" budget=5
int other(int x);
int main(void)
{
    int x, s = 0;
    while (scanf("%d", &x) == 1)
        s += other(x);
    printf("%d\n", s);
    return 0;
}
EOF
cat >src/other.c <<\EOF
/* Not marked: the pragma below is in a comment line.
// #pragma maxcode optimize
 */
int other(int x) { return 3 * x; }
EOF
printf '1 2 3\n' >t/a.in
printf '10\n' >t/b.in
tabify >Makefile <<EOF
load $PLUGIN
SRCS := \$(maxcode-marked src/hot.c src/other.c)
\$(info SRCS=\$(SRCS))
prog: \$(SRCS)
>\$(CC) \$(CFLAGS) -o \$@ \$^
EOF

# prog_works: ./prog gives the right sums.
prog_works () {
  ./prog <t/a.in >out.a && echo 18 >expect.a && test_cmp expect.a out.a &&
  ./prog <t/b.in >out.b && echo 30 >expect.b && test_cmp expect.b out.b
}

test_expect_success 'maxcode-marked replaces the marked file only' '
  run_make >out 2>err &&
  grep "^SRCS=" out >srcs &&
  grep -q "^SRCS=\.maxcode/[0-9a-f]\{32\}/hot\.c src/other\.c\$" srcs &&
  prog_works &&
  expect_stat misses 1 && expect_stat searches 1 &&
  test "$(entries)" = 1
'

test_expect_success 'the pragma options are used' '
  "$MAXCODE_BIN" show src/hot.c --json >show.json &&
  test "$(json_get show.json "d[\"options\"][\"inputs\"]")" = "t/*.in" &&
  test "$(json_get show.json "d[\"options\"][\"budget\"]")" = 5 &&
  test "$(json_get show.json "d[\"source\"]")" = src/hot.c &&
  ! "$MAXCODE_BIN" show src/other.c >/dev/null 2>&1
'

test_expect_success 'a second make hits and has nothing to do' '
  run_make >out 2>err &&
  grep -E "Nothing to be done|is up to date" out &&
  expect_stat hits 1 && expect_stat misses 1 && expect_stat searches 1
'

test_expect_success 'the pragma inputs are hashed: a changed input misses' '
  printf "10 0\n" >t/b.in &&
  run_make >out 2>err &&
  prog_works &&
  expect_stat misses 2 && expect_stat searches 2 &&
  test "$(entries)" = 2
'

test_expect_success 'a function argument beats the pragma option' '
  mkdir -p arg && cp -R src t arg/ &&
  cd arg &&
  printf "load %s\n\$(info \$(maxcode src/hot.c, budget=7))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  MAXCODE_CACHE_DIR="$TRASH/cache-arg" run_make >out 2>err &&
  cat out | sed -n "1s/^\.maxcode\/\([0-9a-f]*\)\/hot\.c\$/\1/p" >key &&
  test -s key &&
  MAXCODE_CACHE_DIR="$TRASH/cache-arg" run_make .maxcode/$(cat key)/hot.c \
    >out 2>err &&
  MAXCODE_CACHE_DIR="$TRASH/cache-arg" "$MAXCODE_BIN" show src/hot.c --json \
    >show.json &&
  test "$(json_get show.json "d[\"options\"][\"budget\"]")" = 7 &&
  test "$(json_get show.json "d[\"options\"][\"inputs\"]")" = "t/*.in"
'

test_expect_success 'words that are not sources are left alone' '
  mkdir -p words && cd words && mkdir src &&
  printf "#pragma maxcode optimize\nint x;\n" >src/marked.h &&
  printf "#pragma maxcode optimize\n" >notes.txt &&
  printf "load %s\n\$(info \$(maxcode-marked -lm lib.a src/marked.h notes.txt missing.c))\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  run_make >out 2>err &&
  echo "-lm lib.a src/marked.h notes.txt missing.c" >expect &&
  test_cmp expect out &&
  test ! -d .maxcode
'

test_expect_success 'mode off: maxcode-marked gives its files unchanged' '
  MAXCODE_MODE=off run_make >out 2>err &&
  grep "^SRCS=" out >srcs &&
  echo "SRCS=src/hot.c src/other.c" >expect &&
  test_cmp expect srcs &&
  prog_works
'

test_done
