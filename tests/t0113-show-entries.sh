#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0113-show-entries: two builds of one source with other CFLAGS (a
# release build's -O2, a test build's -O2 -g -DDEBUG) make two entries.
# `maxcode show SOURCE` lists both (key, date, build, the words that
# tell them apart, directory, status) and shows the one the current
# Makefile hits, as make computes its key (make -q -p), both ways round
# as CFLAGS switches back; a CFLAGS with no entry yet and a directory
# without a makefile say so; --json adds the list. `maxcode report`
# rows show the directory and the flags that differ.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_BUDGET=1
# A trivial program: nothing may win by noise, the original is kept.
export MAXCODE_MIN_SPEEDUP=1000
# The make that show asks is the tests' make (with the ASan runtime
# preloaded, as run_make has it, when the plugin is instrumented).
export MAKE="$MC_SYSTEM_MAKE"
if [ -n "$MC_ASAN_PRELOAD" ]; then
  printf '#!/bin/sh\nLD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 exec %s "$@"\n' \
    "$MC_ASAN_PRELOAD" "$MC_SYSTEM_MAKE" >"$TRASH/asan-make" &&
    chmod +x "$TRASH/asan-make" && MAKE=$TRASH/asan-make
fi

sample_unit p &&
tabify >p/Makefile.in <<-EOF &&
	load $PLUGIN
	CFLAGS = @CF@
	prog: \$(maxcode src/hot.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
DIR=$(cd p && pwd -P)

# flags WORDS: the Makefile with CFLAGS = WORDS.
flags () { sed "s/@CF@/$1/" p/Makefile.in >p/Makefile; }

# entry_line FILE KEY: the list's line of KEY in show's output FILE.
entry_line () { grep "^  [* ] $2  " "$1"; }

test_expect_success 'a release build and a debug build make two entries' '
  flags -O2 && (cd p && run_make >out 2>err) &&
  "$MAXCODE_BIN" show p/src/hot.c --json >one.json &&
  json one.json "\"entries\" not in j" &&
  json_get one.json "d[\"key\"]" >k1 &&
  flags "-O2 -g -DDEBUG" && rm -f p/prog && (cd p && run_make >out 2>err) &&
  test "$(entries)" = 2 && expect_stat searches 2
'
K1=$(cat k1 2>/dev/null)
K2=$("$MAXCODE_BIN" cache list | awk -v k="$K1" '$1 != k { print $1 }')

test_expect_success 'show lists both and shows the debug one, which make hits now; asking counts no hit' '
  cd p && hits=$(stat_of hits) && misses=$(stat_of misses) &&
  COLUMNS=200 "$MAXCODE_BIN" show src/hot.c >s.out 2>s.err &&
  expect_stats hits "$hits" misses "$misses" &&
  contains s.out "entries   2 for this source, newest first; * marks the one the current Makefile hits" &&
  entry_line s.out "$K2" | grep -q "^  \* $K2  20.*Z  (shown below)$" &&
  entry_line s.out "$K1" | grep -q "^    $K1  20.*Z$" &&
  contains s.out "       build     " &&
  contains s.out " -O2 -g -DDEBUG" &&
  contains s.out "       differs   -g -DDEBUG" &&
  contains s.out "       differs   without -g -DDEBUG" &&
  test "$(grep -c "^       directory $DIR\$" s.out)" = 2 &&
  test "$(grep -c "^       status    original kept: " s.out)" = 2 &&
  contains s.out "chosen    the current Makefile computes key $K2 ($MAKE -q -p in $DIR)" &&
  grep -q "^key *$K2\$" s.out &&
  expect_stat searches 2
'

test_expect_success 'CFLAGS back to -O2: the release entry is marked and shown' '
  flags -O2 && cd p && COLUMNS=200 "$MAXCODE_BIN" show src/hot.c >s.out &&
  entry_line s.out "$K1" | grep -q "^  \* $K1 .*(shown below)$" &&
  entry_line s.out "$K2" | grep -q "^    $K2  [^(]*$" &&
  contains s.out "chosen    the current Makefile computes key $K1 (" &&
  grep -q "^key *$K1\$" s.out
'

test_expect_success 'show --json adds the list and how the one shown was chosen' '
  flags -O2 && cd p && "$MAXCODE_BIN" show src/hot.c --json >m.json &&
  json m.json "j[\"key\"] == \"$K1\"" \
    "[e[\"key\"] for e in j[\"entries\"]] == [\"$K2\", \"$K1\"]" \
    "[e[\"current\"] for e in j[\"entries\"]] == [False, True]" \
    "[e[\"shown\"] for e in j[\"entries\"]] == [False, True]" \
    "[e[\"differs\"] for e in j[\"entries\"]] == [\"-g -DDEBUG\", \"without -g -DDEBUG\"]" \
    "all(e[\"directory\"] == \"$DIR\" for e in j[\"entries\"])" \
    "j[\"entries\"][0][\"flags\"][-2:] == [\"-g\", \"-DDEBUG\"]" \
    "all(e[\"status\"] == \"original\" and e[\"reason\"] for e in j[\"entries\"])" \
    "j[\"entry_choice\"].startswith(\"the current Makefile computes key $K1 \")" \
    "j[\"directory\"] == \"$DIR\""
'

test_expect_success 'flags with no entry yet: none marked, the newest shown' '
  flags -O1 && cd p && COLUMNS=200 "$MAXCODE_BIN" show src/hot.c >s.out &&
  ! grep -q "^  \*" s.out &&
  entry_line s.out "$K2" | grep -q "(shown below)$" &&
  grep -q "^chosen    the current Makefile computes key [0-9a-f]\{32\}, which has no entry yet (its next build searches); the newest is shown\$" s.out &&
  expect_stat searches 2
'

test_expect_success 'outside make'\''s directory: said, the newest shown' '
  flags -O2 && mkdir -p away && cd away &&
  COLUMNS=300 "$MAXCODE_BIN" show ../p/src/hot.c >s.out &&
  ! grep -q "^  \*" s.out &&
  contains s.out "chosen    no makefile in $TRASH" &&
  contains s.out "(run show in make'\''s directory); the newest is shown" &&
  grep -q "^key *$K2\$" s.out
'

test_expect_success 'a key names its entry, without a list' '
  cd p && "$MAXCODE_BIN" show "$K2" >s.out &&
  ! grep -q "^entries" s.out && grep -q "^key *$K2\$" s.out
'

test_expect_success 'report: each row has its directory and the flags that differ' '
  "$MAXCODE_BIN" report -o r.html 2>/dev/null &&
  python3 - r.html "$DIR" "$K1" "$K2" <<-\EOP
	import re, sys
	page = open(sys.argv[1]).read()
	d, k1, k2 = sys.argv[2:]
	rows = re.findall(r"<tr><td><a href=\"#t-(\w+)\">(.*?)</td>", page)
	got = {k: cell for k, cell in rows}
	want = {k1: "flags: <code>without -g -DDEBUG</code>",
	        k2: "flags: <code>-g -DDEBUG</code>"}
	for k, w in want.items():
	    cell = got.get(k, "")
	    if ("<div class=\"where\">in <code>%s</code></div>" % d) not in cell \
	            or w not in cell:
	        print("# row %s: %s" % (k, cell))
	        sys.exit(1)
	EOP
'

test_done
