#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0117-scalar-replacement: the built-in proposer's scalar replacement,
# end to end through make. An element that an inner loop reads at a
# subscript the loop does not change is read once into a local before
# it, in a first candidate that is correct; an element it updates while
# it reads other arrays is replaced only with restrict, and where the
# caller passes overlapping arrays that candidate is judged incorrect
# and not kept; where the loop runs zero times (and the arrays are
# NULL) nothing is read or written, and the build prints what the
# original prints.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

# project DIR FLAGS OPTIONS: prog from DIR/hot.c and DIR/main.c.
project () {
  printf 'load %s\nCFLAGS = %s\nprog: $(maxcode hot.c, link=main.c, inputs=in/*.in, %s) main.c\n\t$(CC) $(CFLAGS) -o $@ $^\n' \
    "$PLUGIN" "$2" "$3" >"$1/Makefile"
}

# same_outputs DIR: prog prints what the original prints on each input.
same_outputs () {
  (cd "$1" && cc -O2 -o orig hot.c main.c &&
   for f in in/*.in; do
     ./orig <"$f" >want && ./prog <"$f" >got && cmp want got || exit 1
   done)
}

# candidate KNOB VERDICT BUDGET: a search of budget BUDGET in this
# directory; its first candidate with KNOB has VERDICT and its code is in
# variant.c.
candidate () {
  project . -O2 "budget=$3" &&
  run_make >out 2>err &&
  journal_node . "\"$1\" in n[\"label\"].split(\"+\")" >n.json &&
  json n.json "j[\"verdict\"] == \"$2\"" &&
  json_get n.json "d[\"code\"]" >variant.c
}

# The programs run in about a millisecond: what is asserted is the
# text and the verdicts, not what the timing decides.
test_expect_success 'a read the loop repeats is hoisted, correctly' '
  mkdir -p dot/in && cd dot &&
  cat >hot.c <<-\EOF &&
	double
	dot(int n, const double *a, const double *w)
	{
	    double s = 0;
	    for (int i = 0; i < n; i++)
	        for (int j = 0; j < n; j++)
	            s += a[j] * w[i];
	    return s;
	}
	EOF
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	double dot(int n, const double *a, const double *w);
	int main(void)
	{
	    int n;
	    if (scanf("%d", &n) != 1) return 1;
	    double *a = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
	    for (int i = 0; i < n; i++) a[i] = i % 7 - 3, w[i] = i % 5 * 0.5;
	    printf("%.17g\n", dot(n, a, w));
	    return 0;
	}
	EOF
  echo 200 >in/a.in && echo 150 >in/b.in &&
  candidate scalar@L6 correct 1 &&
  contains variant.c "{ int j = 0; if (j < n) { __typeof__(w[i]) mc_sr_w = w[i]; for (; j < n; j++)" &&
  contains variant.c "            s += a[j] * mc_sr_w; } }" &&
  same_outputs .
'

test_expect_success 'with arrays that overlap, the rewrite is judged incorrect' '
  mkdir -p alias/in && cd alias &&
  cat >hot.c <<-\EOF &&
	void
	mv(int n, double *c, const double *a, const double *b)
	{
	    for (int i = 0; i < n; i++)
	        for (int j = 0; j < n; j++)
	            c[i] += a[i * n + j] * b[j];
	}
	EOF
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	void mv(int n, double *c, const double *a, const double *b);
	int main(void)
	{
	    int n, overlap;
	    if (scanf("%d %d", &n, &overlap) != 2) return 1;
	    double *a = malloc(sizeof(double) * n * n);
	    double *c = calloc(2 * (size_t)n, sizeof(double));
	    for (int i = 0; i < n * n; i++) a[i] = (i % 9 - 4) * 0.25;
	    for (int i = 0; i < 2 * n; i++) c[i] = i % 3 + 1;
	    /* overlapping: b is c itself, so each c[i] written feeds later
	     * rows; apart: b is the second half of the buffer */
	    mv(n, c, a, overlap ? c : c + n);
	    double s = 0;
	    for (int i = 0; i < n; i++) s += c[i] * (i + 1);
	    printf("%.17g\n", s);
	    return 0;
	}
	EOF
  echo "60 0" >in/a.in && echo "60 1" >in/b.in &&
  candidate scalar-restrict@L5 incorrect 4 &&
  contains variant.c "mv(int n, double *__restrict c, const double *__restrict a, const double *__restrict b)" &&
  contains variant.c "__typeof__(c[i]) mc_sr_c = c[i]; for (; j < n; j++)" &&
  contains variant.c "c[i] = mc_sr_c; } }" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "\"scalar\" not in (j.get(\"best\") or \"\")" &&
  same_outputs .
'

test_expect_success 'a loop that runs zero times reads and writes nothing' '
  mkdir -p zero/in && cd zero &&
  cat >hot.c <<-\EOF &&
	void
	ramp(int n, int m, double *c, double step)
	{
	    for (int i = 0; i < n; i++)
	        for (int j = 0; j < m; j++)
	            c[i] += step * j;
	}
	EOF
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	void ramp(int n, int m, double *c, double step);
	int main(void)
	{
	    int n, m;
	    if (scanf("%d %d", &n, &m) != 2) return 1;
	    /* no array at all when the inner loop runs zero times: a read
	     * or write of c[i] there crashes */
	    double *c = m ? calloc((size_t)n, sizeof(double)) : NULL;
	    ramp(n, m, c, 0.5);
	    double s = 0;
	    for (int i = 0; c && i < n; i++) s += c[i] * (i + 1);
	    printf("%.17g\n", s);
	    return 0;
	}
	EOF
  echo "100 0" >in/a.in && echo "100 50" >in/b.in &&
  candidate scalar@L5 correct 1 &&
  contains variant.c "{ int j = 0; if (j < m) { __typeof__(c[i]) mc_sr_c = c[i]; for (; j < m; j++)" &&
  contains variant.c "c[i] = mc_sr_c; } }" &&
  same_outputs .
'

test_done
