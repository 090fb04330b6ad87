#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0091-show-diff: what maxcode did, for people. On the demo
# (examples/blur, built-in proposer), `maxcode diff hot.c` shows the
# directives the kept variant inserted and nothing else, as a diff that
# turns the original into the variant; it is coloured only with --color
# or on a terminal without NO_COLOR. `maxcode show` prints the status,
# the speedup, the options that differ from their defaults and one
# table row per candidate, every line within COLUMNS; --json prints the
# stored manifest byte for byte. A target that kept its original has an
# empty diff and a note.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

# The demo with a budget of 2, built once for all the cases. It is timed
# by instructions, on smaller inputs: the count is the same on a loaded
# machine, so the demo keeps its variant however busy the machine is.
copy_example blur demo &&
echo "2000 300" >demo/inputs/small.in && echo "5000 150" >demo/inputs/wide.in &&
sed 's/budget=6/budget=2, metric=instructions/' demo/Makefile >demo/Makefile.new &&
mv demo/Makefile.new demo/Makefile &&
(cd demo && run_make MAXCODE="$MAXCODE_BIN" >../build.out 2>&1)

# The same hot file where nothing can win: min-speedup=1000.
mkdir -p flat && cp demo/hot.c demo/main.c demo/blur.h flat/ &&
cp -R demo/inputs flat/ &&
sed 's/budget=2/budget=1, min-speedup=1000/' demo/Makefile >flat/Makefile &&
(cd flat && run_make MAXCODE="$MAXCODE_BIN" blur >../flat.out 2>&1)

# diff_lines FILE: the added and removed lines of the diff in FILE.
diff_lines () {
  sed -n '3,$p' "$1" | grep '^[-+]' || true
}

# rows FILE: the rows of the trajectory table in show's output FILE.
rows () {
  sed -n "/^step parent variant/,\$p" "$1" | sed 1d |
    grep -c "^ *[0-9][0-9]*  *\(-\|[0-9][0-9]*\) "
}

test_expect_success 'the demo kept a variant' '
  cd demo && "$MAXCODE_BIN" show hot.c --json >m.json &&
  json m.json "j[\"status\"] == \"optimized\"" "j[\"candidates\"] >= 1"
'

test_expect_success 'diff shows the inserted directives and only them' '
  cd demo && "$MAXCODE_BIN" diff hot.c >d.out 2>d.err &&
  test "$(sed -n 1p d.out)" = "--- a/hot.c" &&
  test "$(sed -n 2p d.out)" = "+++ b/hot.c" &&
  contains d.out "+#pragma " &&
  diff_lines d.out >changed &&
  test -s changed &&
  ! grep -v "^+#pragma \|^+#line [0-9]\|^+__attribute__((" changed &&
  ! grep "^-" changed
'

test_expect_success 'the diff turns the original into the kept variant' '
  cd demo && "$MAXCODE_BIN" diff hot.c >d.out &&
  best=$(json_get m.json "d[\"best\"]") &&
  python3 - .maxcode/*/journal.jsonl "$best" >want.c <<-\EOP &&
	import json, sys
	for line in open(sys.argv[1]):
	    n = json.loads(line)
	    if n.get("label") == sys.argv[2] and n.get("verdict") == "correct":
	        sys.stdout.write(n["code"])
	        sys.exit(0)
	sys.exit(1)
	EOP
  patch -s -o got.c hot.c <d.out &&
  test_cmp want.c got.c
'

test_expect_success 'no colour off a terminal or with NO_COLOR; --color forces it' '
  cd demo && esc=$(printf "\033") &&
  "$MAXCODE_BIN" diff hot.c >plain &&
  ! grep -q "$esc" plain &&
  NO_COLOR=1 "$MAXCODE_BIN" diff hot.c >plain2 &&
  ! grep -q "$esc" plain2 &&
  NO_COLOR=1 "$MAXCODE_BIN" diff --color hot.c >col &&
  grep -q "$esc\[32m+#pragma" col &&
  grep -q "$esc\[1m--- a/hot.c" col &&
  grep -q "$esc\[36m@@ " col &&
  sed "s/$esc\[[0-9;]*m//g" col >col.plain &&
  test_cmp plain col.plain
'

if command -v script >/dev/null 2>&1; then
  test_expect_success 'on a terminal: colour, unless NO_COLOR or --no-color' '
    cd demo && esc=$(printf "\033") &&
    script -qec "\"$MAXCODE_BIN\" diff hot.c" /dev/null >tty </dev/null &&
    grep -q "$esc\[32m+" tty &&
    script -qec "NO_COLOR=1 \"$MAXCODE_BIN\" diff hot.c" /dev/null \
      >tty2 </dev/null &&
    ! grep -q "$esc" tty2 &&
    script -qec "\"$MAXCODE_BIN\" diff --no-color hot.c" /dev/null \
      >tty3 </dev/null &&
    ! grep -q "$esc" tty3
  '
else
  test_skip 'on a terminal: colour, unless NO_COLOR or --no-color' \
    'script(1) is not installed'
fi

test_expect_success 'diff by key is the diff by source' '
  cd demo && key=$(json_get m.json "d[\"key\"]") &&
  "$MAXCODE_BIN" diff hot.c >by-source &&
  "$MAXCODE_BIN" diff "$key" >by-key &&
  test_cmp by-source by-key
'

test_expect_success 'show: status, speedup, options, one row per candidate' '
  cd demo && COLUMNS=200 "$MAXCODE_BIN" show hot.c >s.out &&
  grep -q "^status  *optimized$" s.out &&
  grep -q "^speedup  *[0-9.]*x confirmed" s.out &&
  grep -q "^options  *link=main.c$" s.out &&
  grep -q "^ *budget=2$" s.out &&
  grep -q "^ *metric=instructions$" s.out &&
  ! grep -q "strategy=" s.out &&
  test "$(rows s.out)" = "$(json_get m.json "d[\"candidates\"]")"
'

test_expect_success 'show cuts every line to COLUMNS' '
  cd demo && COLUMNS=60 "$MAXCODE_BIN" show hot.c >narrow &&
  grep -q "^step parent" narrow &&
  test "$(awk "length > 60" narrow | wc -l)" = 0 &&
  COLUMNS=200 "$MAXCODE_BIN" show hot.c >wide &&
  test "$(awk "length > 60" wide | wc -l)" -gt 0
'

test_expect_success 'show --json is the stored manifest, with its members' '
  cd demo && key=$(json_get m.json "d[\"key\"]") &&
  python3 - "$MAXCODE_CACHE_DIR" "$key" >stored <<-\EOP &&
	import glob, struct, sys
	f, = glob.glob("%s/*/*/%s.mce" % (sys.argv[1], sys.argv[2]))
	d = open(f, "rb").read()
	p, end = 40, 40 + struct.unpack("<Q", d[32:40])[0]
	while p < end:
	    tag, n = d[p:p + 4], struct.unpack("<Q", d[p + 4:p + 12])[0]
	    if tag == b"MANI":
	        sys.stdout.write(d[p + 12:p + 12 + n].decode() + "\n")
	    p += 12 + n
	EOP
  test_cmp stored m.json &&
  python3 - m.json <<-\EOP
	import json, sys
	keys = list(json.load(open(sys.argv[1])))
	today = ["key", "source", "source_path", "status", "reason",
	         "speedup", "baseline_seconds", "best_seconds", "metric",
	         "candidates", "correct_candidates", "strategy", "proposer",
	         "model", "llm_requests", "tokens_in", "tokens_out", "cost",
	         "created", "maxcode_version", "compiler", "flags", "options",
	         "includes", "best", "critique", "trajectory"]
	kept = [k for k in keys if k in today]
	if kept != today:
	    print("# members:", keys)
	    sys.exit(1)
	EOP
'

test_expect_success 'a target that kept its original: empty diff and a note' '
  cd flat && "$MAXCODE_BIN" show hot.c --json >m.json &&
  json m.json "j[\"status\"] != \"optimized\"" &&
  "$MAXCODE_BIN" diff hot.c >d.out 2>d.err &&
  test ! -s d.out &&
  test "$(wc -l <d.err)" = 1 &&
  contains d.err "the original was kept"
'

test_expect_success 'show of that target: reason and the options given' '
  cd flat && COLUMNS=300 "$MAXCODE_BIN" show hot.c >s.out &&
  grep -q "^status  *original$" s.out &&
  grep -q "^reason  *." s.out &&
  grep -q "^speedup  *none" s.out &&
  grep -q "^ *min-speedup=1000$" s.out &&
  grep -q "budget=1$" s.out &&
  test "$(rows s.out)" = "$(json_get m.json "d[\"candidates\"]")"
'

test_expect_success 'diff of what has no entry fails' '
  cd demo &&
  expect_exit 1 "$MAXCODE_BIN" diff nothere.c 2>err &&
  contains err "no cache entry" &&
  expect_exit 2 "$MAXCODE_BIN" diff --bogus hot.c 2>err
'

test_done
