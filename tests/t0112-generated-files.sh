#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0112-generated-files: a link file, an input and a files= entry that
# the build itself makes (DESIGN 1.2) are no error when make reads the
# Makefile before they exist. The unit expands to a search target keyed
# by their names; its rule depends on them, so make makes them first;
# the recipe completes the key, looks it up and searches only on a
# miss. The first build searches, the next one hits when make reads
# the Makefile, and a build after `make clean` (which removes the
# generated files) finds the entry in the recipe without a search. A
# name no rule makes fails as make fails on any missing prerequisite.
. "$MC_SRCDIR/tests/lib.sh"

# Hits and searches are asserted, not what the timing decides: lib.sh's
# shortest timing cap, and one candidate.
export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_BUDGET=1

# hot.c: the marked unit. gen.c.in: the template of the link file (its
# main, which reads numbers and a scale from scale.txt, a files= entry
# made by a rule); t/gen.in: an input made by a rule.
mkdir -p p
cat >p/hot.c <<'EOF'
long hot(long n)
{
    long s = 0, i;

    for (i = 0; i < n; i++)
        s += i % 7;
    return s;
}
EOF
cat >p/gen.c.in <<'EOF'
#include <stdio.h>
long hot(long);
int main(void)
{
    long n = 0, x, scale = 0;
    FILE *f = fopen("scale.txt", "r");

    if (!f || fscanf(f, "%ld", &scale) != 1)
        return 3;
    fclose(f);
    while (scanf("%ld", &x) == 1)
        n += x;
    printf("@WORD@ %ld\n", hot(n * scale));
    return 0;
}
EOF
tabify >p/Makefile <<EOF
load $PLUGIN
CFLAGS = -O2
prog: \$(maxcode hot.c, link=gen.c, inputs=t/gen.in, files=scale.txt) gen.c
>\$(CC) \$(CFLAGS) -o \$@ \$^
gen.c: gen.c.in
>sed 's/@WORD@/sum/' gen.c.in >\$@
t/gen.in:
>mkdir -p t && printf '1 2 3\n' >\$@
scale.txt:
>echo 1000 >\$@
clean:
>rm -rf prog gen.c t scale.txt
EOF
# hot(6000): the sum of i % 7 for i below 6000.
awk 'BEGIN { for (i = 0; i < 6000; i++) s += i % 7; print "sum", s }' \
  >want

# right: prog prints what it should.
right () {
  ./prog <t/gen.in >got && test_cmp "$TRASH/want" got
}

# variant_key: the key of the variant path make's expansion named in
# the last link line (out).
variant_key () {
  grep -o '\.maxcode/[0-9a-f]*/hot\.c' out | head -n 1 | cut -d/ -f2
}

test_expect_success 'the first build makes the files, then searches' '
  cd p && test ! -e gen.c &&
  run_make >out 2>err || { sed "s/^/# /" out err; exit 1; }
  test -e gen.c && test -e t/gen.in && test -e scale.txt &&
  expect_stat searches 1 && right &&
  test "$(entries)" = 1 &&
  variant_key >pending_key && test -s pending_key &&
  test ! -e .maxcode/"$(cat pending_key)"/journal.jsonl
'

test_expect_success 'the next build is a hit when make reads the Makefile' '
  cd p &&
  run_make >out 2>err || { sed "s/^/# /" out err; exit 1; }
  expect_stat searches 1 && expect_stat hits 1 && right &&
  variant_key >full_key && test -s full_key &&
  ! test_cmp pending_key full_key >/dev/null &&
  "$MAXCODE_BIN" cache list | grep -q "$(cat full_key)"
'

test_expect_success 'after make clean: the recipe finds the entry, no search' '
  cd p && run_make clean >/dev/null 2>&1 && test ! -e gen.c &&
  test ! -e t/gen.in && test ! -e prog && hits=$(stat_of hits) &&
  run_make >out 2>err || { sed "s/^/# /" out err; exit 1; }
  expect_stat searches 1 && expect_stat hits $((hits + 1)) && right &&
  variant_key >key3 && test_cmp pending_key key3 &&
  test "$(entries)" = 1
'

test_expect_success 'a name no rule makes: make stops on the prerequisite' '
  mkdir -p q && cp p/hot.c q/ && cd q &&
  printf "load %s\nx := \$(maxcode hot.c, link=nope.c)\nall: \$(x)\n" \
    "$PLUGIN" >Makefile &&
  expect_exit 2 run_make >out 2>err &&
  contains err "No rule to make target" && contains err "nope.c" &&
  test "$(entries)" = 1
'

test_expect_success 'a glob that matches nothing is still an error' '
  cd q &&
  printf "load %s\nx := \$(maxcode hot.c, inputs=t/*.nope)\nall: ;@:\n" \
    "$PLUGIN" >Makefile &&
  expect_exit 2 run_make >out 2>err &&
  contains err "inputs '\''t/*.nope'\'' matches no file"
'

test_done
