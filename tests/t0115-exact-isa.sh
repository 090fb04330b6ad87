#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0115-exact-isa: isa=native where outputs compare exactly. The target's
# fused multiply-add rounds a*b+c once where the original rounds twice
# (GCC contracts by default outside ISO mode), so y = a*x + y, summed
# and printed with %.17g, prints other digits under plain arch=. The
# built-in proposer offers arch= paired with fp-contract=off first: that
# variant is correct, with both directives in its text; the unpaired
# one is judged incorrect, and the critique says why. Clang takes no
# #pragma GCC target, so it gets no arch= knob and nothing to pair.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"

# The architecture gcc resolves -march=native to here, or "" (t0070).
host_arch () {
  cc -march=native -E -v - </dev/null 2>&1 |
    sed -n "s/.* -march=\([A-Za-z0-9_.+-]*\).*/\1/p" | grep -v "^native$" |
    head -n 1
}

# project DIR CC: y = a*x + y element by element in DIR/hot.c, whose
# sum DIR/main.c prints with %.17g.
project () {
  mkdir -p "$1/in" &&
  cat >"$1/hot.c" <<-\EOF &&
	/* y = a*x + y: each element a fused multiply-add, where the
	 * target has one. */
	void
	axpy(const double *a, const double *x, double *y, int n)
	{
	    for (int i = 0; i < n; i++)
	        y[i] = a[i] * x[i] + y[i];
	}
	EOF
  cat >"$1/main.c" <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	void axpy(const double *a, const double *x, double *y, int n);
	int main(void)
	{
	    int n, r;
	    double t = 0;
	    if (scanf("%d %d", &n, &r) != 2) return 1;
	    double *a = malloc(sizeof(double) * n);
	    double *y = malloc(sizeof(double) * n);
	    /* -1 + a*a, a = 1 + 2^-30 (i % 5 + 1): rounded twice, the low
	     * bits of a*a are lost before -1 cancels the rest. */
	    for (int i = 0; i < n; i++)
	        a[i] = 1.0 + (i % 5 + 1.0) / (1 << 30);
	    for (int k = 0; k < r; k++) {
	        for (int i = 0; i < n; i++) y[i] = -1.0;
	        axpy(a, a, y, n);
	        for (int i = 0; i < n; i++) t += y[i];
	    }
	    printf("%.17g\n", t);
	    return 0;
	}
	EOF
  echo "20000 20" >"$1/in/a.in" && echo "30000 10" >"$1/in/b.in" &&
  printf "load %s\nCC = %s\nCFLAGS = -O2\nprog: \$(maxcode hot.c, link=main.c, inputs=in/*.in, isa=native) main.c\n\t\$(CC) \$(CFLAGS) -o \$@ \$^\n" \
    "$PLUGIN" "$2" >"$1/Makefile"
}

# nodes PYTHON...: each PYTHON holds over the journal's nodes (nodes).
nodes () {
  python3 - .maxcode/*/journal.jsonl "$@" <<-\EOP
	import json, sys
	nodes = [json.loads(l) for l in open(sys.argv[1])]
	nodes = [n for n in nodes if "code" in n]
	for e in sys.argv[2:]:
	    assert eval(e), (e, [(n["label"], n["verdict"], n["critique"])
	                         for n in nodes])
	EOP
}

ARCH=$(host_arch)
# Whether plain arch=ARCH changes the digits here (FMA on this CPU).
fma_digits () {
  project fma cc && cd fma &&
  cc -O2 -o orig hot.c main.c &&
  { echo "#pragma GCC target (\"arch=$ARCH\")"; cat hot.c; } >arch.c &&
  cc -O2 -o arch arch.c main.c && ./orig <in/a.in >want &&
  ./arch <in/a.in >got && ! cmp -s want got
}
if [ -z "$ARCH" ]; then
  test_skip 'gcc: arch= paired with fp-contract=off gives the digits' \
    'cc does not say what -march=native is here (not gcc?)'
elif ! (fma_digits) >/dev/null 2>&1; then
  test_skip 'gcc: arch= paired with fp-contract=off gives the digits' \
    "arch=$ARCH prints the original's digits here (no FMA?)"
else
  test_expect_success 'gcc: arch= paired with fp-contract=off gives the digits' '
    project g cc && cd g &&
    MAXCODE_NATIVE_ARCH=$ARCH run_make >out 2>err &&
    cc -O2 -o orig hot.c main.c && ./orig <in/a.in >want &&
    ./prog <in/a.in >got && test_cmp want got &&
    nodes "len(nodes) == 2" \
      "\"arch=$ARCH\" in nodes[0][\"label\"].split(\"+\")" \
      "\"fp-contract=off\" in nodes[0][\"label\"].split(\"+\")" \
      "nodes[0][\"verdict\"] == \"correct\"" \
      "\"#pragma GCC optimize (\\\"O3\\\", \\\"fp-contract=off\\\")\" in nodes[0][\"code\"]" \
      "\"#pragma GCC target (\\\"arch=$ARCH\\\")\" in nodes[0][\"code\"]" \
      "nodes[1][\"label\"] == nodes[0][\"label\"].replace(\"+fp-contract=off\", \"\")" \
      "nodes[1][\"verdict\"] == \"incorrect\"" \
      "\"fp-contract\" not in nodes[1][\"code\"]" \
      "\"without fp-contract=off\" in nodes[1][\"critique\"]"
  '
fi

if command -v clang >/dev/null 2>&1; then
  test_expect_success 'clang: no arch= knob, nothing to pair' '
    project c clang && cd c &&
    MAXCODE_NATIVE_ARCH=${ARCH:-x86-64-v3} run_make >out 2>err &&
    clang -O2 -o orig hot.c main.c && ./orig <in/a.in >want &&
    ./prog <in/a.in >got && test_cmp want got &&
    nodes "len(nodes) == 2" \
      "all(\"arch=\" not in n[\"label\"] for n in nodes)" \
      "all(\"fp-contract\" not in n[\"code\"] for n in nodes)"
  '
else
  test_skip 'clang: no arch= knob, nothing to pair' 'no clang'
fi

test_done
