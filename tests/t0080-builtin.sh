#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0080-builtin: what the built-in proposer writes beyond flags, end to
# end through make: the profile of the original puts __builtin_expect on
# a heavily biased branch, at that branch's line, in a variant that
# prints what the original prints; a loop nest that walks a column is
# interchanged in the first candidate, which is correct, and the build
# (kept or not: on a loaded machine the gain may not be confirmed) prints
# the same; and restrict on a
# function that one input calls with aliased pointers is rejected by the
# differential runs, so the build keeps code without it.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

# makefile DIR CFLAGS OPTIONS: prog from DIR/hot.c and DIR/main.c.
makefile () {
  printf 'load %s\nCFLAGS = %s\nprog: $(maxcode hot.c, link=main.c, inputs=in/*.in, %s) main.c\n\t$(CC) $(CFLAGS) -o $@ $^ -lm\n' \
    "$PLUGIN" "$2" "$3" >"$1/Makefile"
}

# same_outputs DIR: prog prints what the original prints on each input.
same_outputs () {
  (cd "$1" && cc -O2 -o orig hot.c main.c -lm &&
   for f in in/*.in; do
     ./orig <"$f" >want && ./prog <"$f" >got && cmp want got || exit 1
   done)
}

# line_of FILE TEXT: the source line (after #line directives) of the
# first line of FILE that holds TEXT.
line_of () {
  python3 - "$1" "$2" <<'EOP'
import re, sys
n = 1
for l in open(sys.argv[1]):
    m = re.match(r'\s*#line (\d+)', l)
    if m:
        n = int(m.group(1))
        continue
    if sys.argv[2] in l:
        print(n)
        sys.exit(0)
    n += 1
sys.exit(1)
EOP
}

# The built-in proposer's first candidate is its bundle of what the
# profile supports (expect among it), and its second with -O3 given is
# restrict on the first function that takes pointers: the budgets are
# those candidates (builtin_knobs.c, mc_builtin_host_seeds).
test_expect_success 'a biased branch gets __builtin_expect at its line' '
  mkdir -p pgo/in && cd pgo &&
  cat >hot.c <<-\EOF &&
	/* A sum with a branch that is almost never taken. */
	long
	work(const int *v, int n)
	{
	    long s = 0;
	    for (int i = 0; i < n; i++) {
	        if (v[i] < 0)
	            s -= v[i] * 3;
	        else
	            s += v[i] & 7;
	    }
	    return s;
	}
	EOF
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	long work(const int *v, int n);
	int main(void)
	{
	    int n, r;
	    long t = 0;
	    if (scanf("%d %d", &n, &r) != 2) return 1;
	    int *v = malloc(sizeof(int) * n);
	    for (int i = 0; i < n; i++) v[i] = i % 997 == 0 ? -i : i;
	    for (int k = 0; k < r; k++) t += work(v, n);
	    printf("%ld\n", t);
	    return 0;
	}
	EOF
  echo "20000 20" >in/a.in && echo "30000 10" >in/b.in &&
  makefile . -O2 "budget=1" &&
  run_make >out 2>err &&
  journal_node . "\"expect\" in n[\"label\"].split(\"+\") and n[\"verdict\"] == \"correct\"" >n.json &&
  json_get n.json "d[\"code\"]" >variant.c &&
  contains variant.c "if (__builtin_expect(!!(v[i] < 0), 0))" &&
  test "$(line_of variant.c __builtin_expect)" = "$(line_of hot.c "if (v[i] < 0)")" &&
  cc -O2 -o orig hot.c main.c && cc -O2 -o var variant.c main.c &&
  for f in in/*.in; do ./orig <$f >want && ./var <$f >got && cmp want got || exit 1; done &&
  same_outputs .
'

# Nothing asserted depends on what the timing decides (the interchange
# kept or not), so the matrices are small (n of 100 and 83: a run in
# milliseconds; the search runs it some 50 times), still large enough
# that the profile gives no trip count to unroll fully (16 at most).
test_expect_success 'a nest that walks a column is interchanged' '
  mkdir -p ikj/in && cd ikj &&
  cat >hot.c <<-\EOF &&
	void
	mm(int n, double (*c)[n], double (*a)[n], double (*b)[n])
	{
	    for (int i = 0; i < n; i++)
	        for (int j = 0; j < n; j++)
	            for (int k = 0; k < n; k++)
	                c[i][j] += a[i][k] * b[k][j];
	}
	EOF
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	void mm(int n, double (*c)[n], double (*a)[n], double (*b)[n]);
	int main(void)
	{
	    int n;
	    if (scanf("%d", &n) != 1) return 1;
	    double (*a)[n] = malloc(sizeof(double) * n * n);
	    double (*b)[n] = malloc(sizeof(double) * n * n);
	    double (*c)[n] = calloc((size_t)n * n, sizeof(double));
	    for (int i = 0; i < n; i++)
	        for (int j = 0; j < n; j++)
	            a[i][j] = (i * 7 + j) % 13 - 6.5, b[i][j] = (i + 3 * j) % 11 * 0.25;
	    mm(n, c, a, b);
	    double s = 0;
	    for (int i = 0; i < n; i++) s += c[i][(i * 5) % n] * (i + 1);
	    printf("%.17g\n", s);
	    return 0;
	}
	EOF
  echo 100 >in/a.in && echo 83 >in/b.in &&
  makefile . -O2 "budget=1" &&
  run_make >out 2>err &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "\"interchange(j,k)@L5\" in j[\"trajectory\"][0][\"variant\"]" \
    "j[\"trajectory\"][0][\"verdict\"] == \"correct\"" \
    "j[\"status\"] == \"original\" or \"interchange(j,k)@L5\" in j[\"best\"]" &&
  same_outputs .
'

# restrict is tried alone, or with the rewrite that needs it (here the
# read of src[0] kept in a register: dst may be src), which brings it.
test_expect_success 'restrict that aliased arguments break is rejected' '
  mkdir -p alias/in && cd alias &&
  cat >hot.c <<-\EOF &&
	static void
	shift(int *dst, const int *src, int n)
	{
	    for (int i = 0; i < n; i++)
	        dst[i] += src[0];
	}
	long
	run(int alias, int reps)
	{
	    static int v[4096];
	    long s = 0;
	    for (int r = 0; r < reps; r++) {
	        for (int i = 0; i < 4096; i++)
	            v[i] = i;
	        shift(v, alias ? v + 5 : v + 2048, 2000);
	        for (int i = 0; i < 4096; i++)
	            s = s * 31 + v[i];
	    }
	    return s;
	}
	EOF
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	long run(int alias, int reps);
	int main(void)
	{
	    int alias, reps;
	    if (scanf("%d %d", &alias, &reps) != 2) return 1;
	    printf("%ld\n", run(alias, reps));
	    return 0;
	}
	EOF
  echo "0 200" >in/a.in && echo "1 200" >in/b.in &&
  makefile . -O3 "budget=2" &&
  run_make >out 2>err &&
  journal_node . "any(x == \"restrict@shift\" or x.startswith(\"scalar-restrict@\")
                     for x in n[\"label\"].split(\"+\"))" >n.json &&
  json n.json "j[\"verdict\"] == \"incorrect\"" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "\"restrict\" not in (j.get(\"best\") or \"\")" &&
  same_outputs .
'

test_done
