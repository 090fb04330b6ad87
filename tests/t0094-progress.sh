#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0094-progress: the progress lines of searches, in the form maxcode(1)
# PROGRESS gives: a start line, one line per candidate with the time spent
# and left (none from the first candidate alone; a figure above the best
# says "not confirmed"), and a last line with the time and the model's cost; under
# make -j4 with four searches at once, every line is whole, starts with
# its target and is one of those forms.
. "$MC_SRCDIR/tests/lib.sh"

# The lines' forms hold whatever the timing decides (a figure confirmed
# or not, the variant kept or the original): lib.sh's shortest cap.
export MAXCODE_CACHE_DIR="$TRASH/cache"

# check_lines ERR TARGETS...: each line naming maxcode is one whole
# progress line of one of TARGETS, and each target has its start line,
# its three candidates in order and its last line.
check_lines () {
  python3 - "$@" <<'EOP'
import re, sys
err, targets = sys.argv[1], sys.argv[2:]
t = "(" + "|".join(re.escape(x) for x in targets) + ")"
forms = [
    ("start", t + r": searching: budget 3, strategy flat, proposer builtin$"),
    ("cand", t + r" \[([1-3])/3\] (correct ([0-9.]+)x(, not confirmed)?"
             r"|[a-z -]+) \(best ([0-9.]+)x; f_r [0-4] u_t [0-9.]+\) "
             r"\[[0-9hms]+(, ~[0-9hms]+ left)?\](: .*)?$"),
    ("end", t + r": (optimized: kept .+, [0-9.]+x confirmed \((lower "
            r"bound; .+; )?interval [0-9.]+x-[0-9.]+x\)|keeping the "
            r"original \(.+\)); [0-9hms]+, "
            r"3 candidates, 0 model requests, 0 tokens, cost 0\.0000$"),
]
seen = {x: [] for x in targets}
bad = 0
for line in open(err, errors="replace"):
    line = line.rstrip("\n")
    if "maxcode" not in line:
        continue
    if not line.startswith("maxcode: ") or line.count("maxcode:") != 1:
        print("# cut or merged:", line); bad = 1; continue
    body = line[len("maxcode: "):]
    for kind, rx in forms:
        m = re.match(rx, body)
        if m:
            seen[m.group(1)].append(kind + (m.group(2) if kind == "cand" else ""))
            # A figure above the best is "not confirmed", never beside a
            # lower best alone; the first candidate estimates no time.
            if kind == "cand" and m.group(4) and \
               ((float(m.group(4)) > float(m.group(6)) and not m.group(5))
                or (float(m.group(4)) < float(m.group(6)) and m.group(5))):
                print("# best and figure disagree:", line); bad = 1
            if kind == "cand" and m.group(2) == "1" and m.group(7):
                print("# an estimate from the first alone:", line); bad = 1
            break
    else:
        print("# no progress form:", line); bad = 1
for x in targets:
    want = ["start", "cand1", "cand2", "cand3", "end"]
    if seen[x] != want:
        print("#", x, "printed", seen[x], "not", want); bad = 1
sys.exit(bad)
EOP
}

test_expect_success 'four searches under make -j4: whole lines, each its target' '
  mkdir -p par/t && cd par &&
  vector_kernel a.c "*" && vector_kernel b.c "+" &&
  vector_kernel c.c "-" && vector_kernel d.c "/" &&
  echo "2000 100" >t/a.in && echo "3000 50" >t/b.in &&
  {
    printf "load %s\nCFLAGS = -O2\nall: pa pb pc pd\n" "$PLUGIN" &&
    for x in a b c d; do
      printf "p%s: \$(maxcode %s.c, inputs=t/*.in, strategy=flat, budget=3)\n\t\$(CC) \$(CFLAGS) -o \$@ \$^\n" $x $x
    done
  } >Makefile &&
  run_make -j4 >out 2>err &&
  test -x pa && test -x pb && test -x pc && test -x pd &&
  check_lines err a.c b.c c.c d.c
'

test_expect_success 'the manifest has the interval and the search time' '
  cd par &&
  "$MAXCODE_BIN" show a.c --json >m &&
  json_get m "d[\"search_seconds\"] > 0" | grep -qx True &&
  json_get m "(d[\"speedup_interval\"] is None) == (d[\"status\"] == \"original\")" |
    grep -qx True
'

test_expect_success 'a cache hit searches nothing and prints no progress' '
  cd par && rm -f pa pb pc pd &&
  run_make -j4 >out2 2>err2 &&
  ! grep "searching:\|\[[0-9]/3\]" err2
'

test_done
