#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0118-blocking: the built-in proposer's cache blocking, end to end
# through make. A matrix product in i-k-j order is blocked on k and j
# with a tile size the caches favour, in a candidate judged correct:
# each element's sum over k runs in its order, so the output is the
# same to the bit, at sizes that are no multiple of the tile and where
# the loops run zero times. The verdict and the text are asserted, not
# what the timing decides.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

# project: prog from hot.c and main.c. With -O3 given, the seeds are
# the bundle, restrict, scalar replacement with restrict, blocking: a
# budget of 4 reaches the last (builtin_knobs.c, mc_builtin_host_seeds).
project () {
  printf 'load %s\nCFLAGS = -O3\nprog: $(maxcode hot.c, link=main.c, inputs=in/*.in, %s) main.c\n\t$(CC) $(CFLAGS) -o $@ $^\n' \
    "$PLUGIN" budget=4 >Makefile
}

test_expect_success 'a product in i-k-j order is blocked, correctly' '
  mkdir -p mm/in && cd mm &&
  cat >hot.c <<-\EOF &&
	void
	mm(int n, double *c, const double *a, const double *b)
	{
	    for (int i = 0; i < n; i++)
	        for (int k = 0; k < n; k++)
	            for (int j = 0; j < n; j++)
	                c[i * n + j] += a[i * n + k] * b[k * n + j];
	}
	EOF
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	void mm(int n, double *c, const double *a, const double *b);
	int main(void)
	{
	    int n;
	    if (scanf("%d", &n) != 1) return 1;
	    size_t nn = (size_t)n * n;
	    double *a = malloc(sizeof(double) * nn + 1);
	    double *b = malloc(sizeof(double) * nn + 1);
	    double *c = calloc(nn + 1, sizeof(double));
	    for (size_t i = 0; i < nn; i++)
	        a[i] = (i % 13) * 0.1 - 0.55, b[i] = (i % 7) * 0.3 + 0.01;
	    mm(n, c, a, b);
	    /* every element, to the last bit */
	    for (size_t i = 0; i < nn; i++) printf("%a\n", c[i]);
	    return 0;
	}
	EOF
  echo 37 >in/a.in && echo 70 >in/b.in && echo 0 >in/c.in &&
  project &&
  run_make >out 2>err &&
  journal_node . "any(x.startswith(\"block\")
                     for x in n[\"label\"].split(\"+\"))" >n.json &&
  json n.json "j[\"verdict\"] == \"correct\"" &&
  json_get n.json "d[\"code\"]" >variant.c &&
  t=$(json_get n.json "[x for x in d[\"label\"].split(\"+\")
                        if x.startswith(\"block\")][0]") &&
  t=${t#block} && t=${t%%(*} &&
  case $t in 16|32|64|128) ;; *) false ;; esac &&
  contains variant.c "mm(int n, double *__restrict c, const double *__restrict a, const double *__restrict b)" &&
  contains variant.c "    for (long long mc_bk_k = 0; mc_bk_k < (n); mc_bk_k += $t) for (long long mc_bk_j = 0; mc_bk_j < (n); mc_bk_j += $t) for (int i = 0; i < n; i++)" &&
  contains variant.c "        for (int k = (int)mc_bk_k, mc_be_k = (int)((n) - mc_bk_k > $t ? mc_bk_k + $t : (n)); k < mc_be_k; k++)" &&
  contains variant.c "            for (int j = (int)mc_bk_j, mc_be_j = (int)((n) - mc_bk_j > $t ? mc_bk_j + $t : (n)); j < mc_be_j; j++)" &&
  contains variant.c "                c[i * n + j] += a[i * n + k] * b[k * n + j];" &&
  cc -O2 -o orig hot.c main.c && cc -O2 -o blocked variant.c main.c &&
  for f in in/*.in; do
    ./orig <"$f" >want && ./blocked <"$f" >got && cmp want got || exit 1
  done
'

test_done
