#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0116-tight-interval: tight enough to state. A program of a few
# milliseconds, whose confirmation interval a busy machine makes wide:
# the figure stated (the manifest's speedup, the last progress line,
# `show`) is the interval's lower bound whenever the interval lies more
# than 15% from its median (MC_STATE_SHARE), says so and why, and is the
# median otherwise. It asserts the rule on whatever the timing gives,
# never a timing outcome (tests/unit/test-eval.c drives the rule itself
# over chosen intervals).
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
# The final confirmation may go on past its 8 pairs while too wide: a
# second per round lets it, and keeps the test short.
export MAXCODE_TIMING_CAP=1

# check_stated DIR SOURCE: SOURCE's entry and its search's last line
# (DIR/err) state the same figure by the rule.
check_stated () {
  (cd "$1" && "$MAXCODE_BIN" show "$2" --json >m.json &&
   "$MAXCODE_BIN" show "$2" >show.txt) &&
  python3 - "$1" "$2" <<'EOP'
import json, re, sys
d, src = sys.argv[1], sys.argv[2]
m = json.load(open(d + "/m.json"))
err = open(d + "/err", errors="replace").read()
# show wraps a long speedup line after its tag's column: as one line.
show = re.sub(r"\n {5,}", " ",
              open(d + "/show.txt", errors="replace").read())
bad = []
line = [l for l in err.splitlines() if l.startswith("maxcode: %s: " % src)
        and ("optimized: kept" in l or "keeping the original" in l)]
if len(line) != 1:
    print("# last lines:", line); sys.exit(1)
line = line[0]
if m["status"] != "optimized":
    # The original kept: no figure to state, none said.
    if "speedup_basis" in m or "keeping the original" not in line:
        bad.append("an original with a basis, or a kept line")
    print("# %s: the original is kept (%s)" % (src, m["reason"]))
else:
    s, med = m["speedup"], m["speedup_median"]
    lo, hi = m["speedup_interval"]
    basis, why = m["speedup_basis"], m["speedup_why"]
    wide = lo < med * (1 - 0.15) or hi > med * (1 + 0.15)
    print("# %s: stated %.3f (%s), median %.3f in [%.3f, %.3f]"
          % (src, s, basis, med, lo, hi))
    if wide and not (s <= lo and basis == "lower bound" and why):
        bad.append("wide, yet not stated as its lower bound with why")
    if not wide and not (s == med and basis == "median" and why == ""):
        bad.append("narrow, yet not stated as its median")
    if not s > 1:
        bad.append("a kept figure not above 1")
    ms = float(m["options"].get("min-speedup", "1.03"))
    if s < ms - 1e-9:
        bad.append("kept, stating %.3f, below min-speedup %.2f" % (s, ms))
    x = re.search(r"optimized: kept .+, ([0-9.]+)x confirmed "
                  r"\((?:lower bound; (.+); )?interval ([0-9.]+)x-"
                  r"([0-9.]+)x\);", line)
    if not x:
        bad.append("no progress form: " + line)
    else:
        if x.group(1) != "%.2f" % s:
            bad.append("the line states %s, the manifest %.2f"
                       % (x.group(1), s))
        if (x.group(2) is not None) != (basis == "lower bound") or \
           (x.group(2) is not None and x.group(2) != why):
            bad.append("the line's reason and the manifest's disagree")
        if x.group(3) != "%.2f" % lo or x.group(4) != "%.2f" % hi:
            bad.append("the line's interval is not the manifest's")
    said = re.search(r"speedup +([0-9.]+)x confirmed( \(lower bound; "
                     r"(.+)\))?,", show)
    if not said or said.group(1) != "%.2f" % s or \
       (said.group(2) is not None) != (basis == "lower bound") or \
       (said.group(3) is not None and said.group(3) != why):
        bad.append("show says otherwise")
for b in bad:
    print("#", b)
sys.exit(1 if bad else 0)
EOP
}

test_expect_success 'a few-millisecond program: the figure stated keeps the rule' '
  mkdir -p p/t && cd p &&
  vector_kernel k.c "*" && echo "4000 1500" >t/a.in &&
  printf "load %s\nprog: \$(maxcode k.c, inputs=t/*.in, strategy=flat, budget=2)\n\t\$(CC) -O2 -o \$@ \$^\n" \
    "$PLUGIN" >Makefile &&
  MAXCODE_LOG=verbose run_make >out 2>err && test -x prog &&
  { grep "timing: a round of" err | sed "s/^/# /" || :; } &&
  check_stated . k.c &&
  MAXCODE_CACHE_DIR="$MAXCODE_CACHE_DIR" "$MAXCODE_BIN" show k.c --json >m.json &&
  json m.json "0 < j[\"search_child_seconds\"] <= j[\"search_seconds\"]"
'

test_done
