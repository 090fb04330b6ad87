#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0110-what-ships: the search tests what the build ships. A link file
# is compiled with its own flags (its compile DB entry, else link-flags=,
# else SOURCE's), and the manifest records its command: here one that
# needs its own -I, or a same-named header in a "system" directory of
# SOURCE's flags changes the program's output. A target-specific
# `prog: CFLAGS += -DX` reaches the search recipe, which says that the
# flags differ, naming both, records them, and every build that hits the
# entry says it again.
. "$MC_SRCDIR/tests/lib.sh"

# One candidate per search: nothing here depends on how many.
export MAXCODE_BUDGET=1
export MAXCODE_CACHE_DIR="$TRASH/cache"

mkdir -p p/sys p/test
cat >p/hot.c <<'EOC'
long hot(long n)
{
    long s = 0, i;
    for (i = 0; i < n; i++)
        s += i % 7;
    return s;
}
EOC
# The tree's header, which test/main.c's own build finds with -I.; the
# "system" one, which SOURCE's flags reach, scales differently.
printf '#define SCALE 3\n' >p/conf.h
printf '#define SCALE 1\n' >p/sys/conf.h
cat >p/test/main.c <<'EOC'
#include <stdio.h>
#include "conf.h"
long hot(long n);
int main(void)
{
    long n;
    if (scanf("%ld", &n) != 1)
        return 1;
    printf("%ld\n", hot(n) * SCALE);
    return 0;
}
EOC
echo 1000 >p/in.txt
# hot(1000) is 2997; the program prints 8991 with the tree's conf.h.
cp -pR p q

# maxmake DIR OPTIONS: DIR's Makefile, its test program built with -I.
# and hot.c marked with OPTIONS; the check wants the tree's SCALE.
maxmake () {
  tabify >"$1/Makefile" <<EOF2
load $PLUGIN
CPPFLAGS = -isystem sys
CFLAGS = -O2
prog: \$(maxcode hot.c, link=test/main.c, inputs=in.txt, check=test "\$\$(\$\$MAXCODE_EXE)" = 8991$2) test/main.o
>\$(CC) -o \$@ \$^
test/main.o: test/main.c conf.h
>\$(CC) \$(CFLAGS) -I. -c -o \$@ test/main.c
EOF2
}

test_expect_success 'with SOURCE s flags, the link file finds the wrong header' '
  cd p && maxmake . "" && { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  test "$(./prog <in.txt)" = 8991 &&
  contains out "the original fails its own check" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"links\"][0][\"file\"] == \"test/main.c\"" \
    "j[\"links\"][0][\"flags_from\"] == \"SOURCE\x27s flags\"" \
    "\"-isystem sys -O2 -c test/main.c\" in j[\"links\"][0][\"command\"]"
'

test_expect_success 'link-flags=: the link file is compiled with its own -I' '
  cd p && rm -rf prog test/main.o .maxcode &&
  maxmake . ", link-flags=-O2 -I." &&
  { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  ! grep "fails its own check" out && expect_stat candidates 1 &&
  test "$(./prog <in.txt)" = 8991 &&
  test "$(entries)" = 2 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"candidates\"] == 1" "j[\"options\"][\"link-flags\"] == \"-O2 -I.\"" \
    "j[\"links\"][0][\"flags_from\"] == \"link-flags\"" \
    "j[\"links\"][0][\"command\"].endswith(\" -O2 -I. -c test/main.c\")" \
    "j[\"flags\"] == [\"-isystem\", \"sys\", \"-O2\"]"
'

test_expect_success 'link-flags= keys: the next make hits' '
  cd p && rm -f prog && run_make >out 2>&1 && cat out &&
  expect_stat searches 2 && expect_stat hits 1 &&
  test "$(./prog <in.txt)" = 8991
'

test_expect_success 'a compile DB entry gives the link file its flags' '
  cd q && maxmake . "" && cat >compile_commands.json <<EOJ &&
[{"directory": "$TRASH/q", "file": "hot.c",
  "command": "cc -isystem sys -O2 -c -o hot.o hot.c"},
 {"directory": "$TRASH/q", "file": "test/main.c",
  "command": "cc -O2 -I. -c -o test/main.o test/main.c"}]
EOJ
  export MAXCODE_CACHE_DIR="$TRASH/cache-q" &&
  { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  ! grep "fails its own check" out && expect_stat candidates 1 &&
  test "$(./prog <in.txt)" = 8991 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"links\"][0][\"flags_from\"] == \"compile DB\"" \
    "j[\"links\"][0][\"command\"] == \"cc -O2 -I. -c test/main.c\""
'

# key_of: the key of the unit in make -n's recipe (no search runs).
key_of () {
  run_make -n 2>&1 | sed -n 's/.* optimize --key \([0-9a-f]*\) .*/\1/p'
}

test_expect_success 'the key: link files built as SOURCE keep it, own builds change it' '
  cp -pR q s && cd s && rm -rf compile_commands.json .maxcode prog &&
  export MAXCODE_CACHE_DIR="$TRASH/cache-s" && maxmake . "" &&
  plain=$(key_of) && test -n "$plain" &&
  cat >compile_commands.json <<EOJ &&
[{"directory": "$TRASH/s", "file": "hot.c",
  "command": "cc -isystem sys -O2 -c -o hot.o hot.c"},
 {"directory": "$TRASH/s", "file": "test/main.c",
  "command": "cc -isystem sys -O2 -c -o test/main.o test/main.c"}]
EOJ
  test "$(key_of)" = "$plain" &&
  sed -i "s/-isystem sys -O2 -c -o test/-O2 -I. -c -o test/" \
    compile_commands.json && own=$(key_of) && test -n "$own" &&
  test "$own" != "$plain" &&
  rm compile_commands.json && maxmake . ", link-flags=-O2 -I." &&
  test "$(key_of)" != "$plain" && test "$(key_of)" != "$own"
'

# b: a target-specific variable on the program target.
said="hot.c: the target that uses this variant has other flags than the \
search tested (it adds -DX): its recipe has '-O2 -DX', the search '-O2'"
mkdir -p r
cat >r/hot.c <<'EOC'
#include <stdio.h>
int main(void)
{
    long n, s = 0, i;
    if (scanf("%ld", &n) != 1)
        return 1;
    for (i = 0; i < n; i++)
        s += i % 7;
    printf("%ld\n", s);
    return 0;
}
EOC
echo 1000 >r/in.txt
tabify >r/Makefile <<EOF2
load $PLUGIN
CFLAGS = -O2
prog: CFLAGS += -DX
prog: \$(maxcode hot.c, inputs=in.txt)
>\$(CC) \$(CFLAGS) -o \$@ \$^
EOF2

test_expect_success 'prog: CFLAGS += -DX: one line names both flag sets' '
  cd r && export MAXCODE_CACHE_DIR="$TRASH/cache-r" &&
  { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  test "$(grep -c "other flags than the search tested" out)" = 1 &&
  contains out "$said" &&
  contains out "set the flags for the whole Makefile" &&
  contains out "cflags= in the \$(maxcode ...) call" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"recipe_flags\"].split() == [\"-O2\", \"-DX\"]" \
    "j[\"flags\"] == [\"-O2\"]" "\"it adds -DX\" in j[\"flags_warning\"]"
'

test_expect_success 'the next make hits the entry and says it again' '
  cd r && rm -f prog && export MAXCODE_CACHE_DIR="$TRASH/cache-r" &&
  run_make >out 2>&1 && cat out && expect_stat hits 1 &&
  expect_stat searches 1 &&
  test "$(grep -c "other flags than the search tested" out)" = 1 &&
  contains out "$said"
'

test_expect_success 'flags set for the whole Makefile: no warning' '
  cd r && sed -i "s/^prog: CFLAGS += -DX\$//; s/^CFLAGS = -O2\$/CFLAGS = -O2 -DX/" \
    Makefile && rm -f prog && export MAXCODE_CACHE_DIR="$TRASH/cache-r" &&
  { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  expect_stat searches 2 && ! grep "other flags" out
'

test_expect_success 'cflags= in the call: the recipe has nothing to compare' '
  cd r && printf "load %s\nCFLAGS = -O2\nprog: CFLAGS += -DX\nprog: \$(maxcode hot.c, inputs=in.txt, cflags=-DX -O2)\n\t\$(CC) \$(CFLAGS) -o \$@ \$^\n" \
    "$PLUGIN" >Makefile && rm -f prog && export MAXCODE_CACHE_DIR="$TRASH/cache-r" &&
  run_make -n >out 2>&1 && cat out && contains out " optimize --key " &&
  ! grep -e "--recipe-flags" out
'

test_done
