#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0017-bear-link: a compile DB entry of a one-line compile-and-link, as
# Bear records `cc -O2 -o prog hot.c main.o` (or `... hot.c main.c
# -lm`), is reduced to what compiles SOURCE: the other inputs never reach
# the dependency scan or the compile of SOURCE, and the message that
# asks for link= names them.
. "$MC_SRCDIR/tests/lib.sh"

# One candidate per search: nothing here depends on how many.
export MAXCODE_BUDGET=1
export MAXCODE_CACHE_DIR="$TRASH/cache"

mkdir -p p
cat >p/hot.c <<'EOC'
long hot(long n)
{
    long s = 0, i;
    for (i = 0; i < n; i++)
        s += i % 7 * FACTOR;
    return s;
}
EOC
cat >p/main.c <<'EOC'
#include <stdio.h>
long hot(long n);
int main(void)
{
    long n;
    if (scanf("%ld", &n) != 1)
        return 1;
    printf("%ld\n", hot(n));
    return 0;
}
EOC
echo 1000 >p/in.txt
# The build Bear records: hot.c compiled and linked with main.o at once;
# -DFACTOR=2 is only in the DB.
tabify >p/Makefile.plain <<'EOF2'
prog: hot.c main.o
>$(CC) -O2 -DFACTOR=2 -o $@ hot.c main.o
main.o: main.c
>$(CC) -c main.c
EOF2
cp -pR p q

# maxmake DIR CALL-OPTIONS: DIR's Makefile marks hot.c with the options.
maxmake () {
  tabify >"$1/Makefile" <<EOF2
load $PLUGIN
prog: \$(maxcode hot.c, inputs=in.txt$2) main.o
>\$(CC) -O2 -DFACTOR=2 -o \$@ \$^
main.o: main.c
>\$(CC) -c main.c
EOF2
}

test_expect_success 'bear records hot.c with main.o in its arguments' '
  cd p && bear_make --force-wrapper -f Makefile.plain >out 2>&1 &&
  python3 -c "
import json
db = json.load(open(\"compile_commands.json\"))
e = [x for x in db if x[\"file\"].endswith(\"/hot.c\")]
assert len(e) == 1 and \"main.o\" in e[0][\"arguments\"], db
" && rm -f prog main.o
'

test_expect_success 'without link=: the original is scanned, link= main.o asked' '
  cd p && maxmake . "" && { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  ! grep "does not preprocess" out &&
  contains out "undefined reference to" &&
  contains out "with link=main.o (the other inputs" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"flags\"] == [\"-O2\", \"-DFACTOR=2\"]" \
    "\"link=main.o\" in j[\"reason\"]" &&
  test "$(./prog <in.txt)" = 5994
'

test_expect_success 'with link=main.c: the search runs on the entry s flags' '
  cd p && rm -rf prog main.o .maxcode && maxmake . ", link=main.c" &&
  { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  ! grep "does not preprocess" out && ! grep "keeping the original (cannot" out &&
  expect_stat candidates 1 &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"flags\"] == [\"-O2\", \"-DFACTOR=2\"]" "j[\"candidates\"] == 1" &&
  test "$(./prog <in.txt)" = 5994
'

test_expect_success 'MAXCODE_COMPDB: Bear splits cc -o prog hot.c main.c -lm' '
  cd q && sed -i "s/hot.c main.o\$/hot.c main.c -lm/; s/^prog: hot.c main.o/prog: hot.c main.c/" \
    Makefile.plain && mkdir db && (cd db && bear_make --force-wrapper -C .. \
    -f Makefile.plain >../out 2>&1) && test -s db/compile_commands.json &&
  rm -f prog && maxmake . "" &&
  export MAXCODE_COMPDB=db/compile_commands.json \
    MAXCODE_CACHE_DIR="$TRASH/cache-q" &&
  { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  ! grep "does not preprocess" out &&
  contains out "complete the program with link=" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"flags\"] == [\"-O2\", \"-DFACTOR=2\"]"
'

# Other tools (compiledb, a hand-written DB) keep the whole command.
test_expect_success 'a whole one-line command in the DB: link= names main.c' '
  cd q && mkdir db2 && cat >db2/compile_commands.json <<EOJ &&
[{"directory": "$TRASH/q", "file": "hot.c",
  "command": "cc -O2 -DFACTOR=2 -o prog hot.c main.c -L lib -lm"}]
EOJ
  rm -f prog && maxmake . "" &&
  export MAXCODE_COMPDB=db2/compile_commands.json \
    MAXCODE_CACHE_DIR="$TRASH/cache-q2" &&
  { run_make >out 2>&1; s=$?; cat out; test $s = 0; } &&
  ! grep "does not preprocess" out &&
  contains out "with link=main.c (the other inputs" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"flags\"] == [\"-O2\", \"-DFACTOR=2\"]"
'

test_done
