#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0114-no-repeats: the built-in proposer never judges one text twice in
# a search. Here every variant for the machine's architecture prints
# something else (the code reports __FMA__, which #pragma GCC target
# defines), so the first round (four seeds, all with arch=) is wrong
# and the next repairs each of them: dropping arch leads each repair to
# the same knob set. A repeat takes the earlier verdict, is not built,
# run or counted, and the journal says so on the candidate proposed
# instead: the budget of 8 gives 8 different texts.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_NATIVE_ARCH=haswell

test_expect_success 'a budget of 8 judges 8 different texts' '
  mkdir -p p/in && cd p &&
  cat >hot.c <<-\EOF &&
	#include <stdio.h>
	/* A checksum, and which instruction set the file was built for. */
	unsigned long checksum(const unsigned *v, unsigned n) {
	    unsigned long h = 5381;
	    unsigned i;
	    for (i = 0; i < n; i++)
	        h = h * 33 + v[i];
	    return h;
	}
	void
	report(void)
	{
	#ifdef __FMA__
	    puts("fma");
	#else
	    puts("plain");
	#endif
	}
	EOF
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	unsigned long checksum(const unsigned *v, unsigned n);
	void report(void);
	int main(void)
	{
	    unsigned n, r;
	    unsigned long t = 0;
	    if (scanf("%u %u", &n, &r) != 2) return 1;
	    unsigned *v = malloc(sizeof(unsigned) * n);
	    for (unsigned i = 0; i < n; i++) v[i] = i % 101;
	    for (unsigned k = 0; k < r; k++) t ^= checksum(v, n) + k;
	    printf("%lu\n", t);
	    report();
	    return 0;
	}
	EOF
  echo "20000 20" >in/a.in && echo "30000 10" >in/b.in &&
  printf "load %s\nCFLAGS = -O2\nprog: \$(maxcode hot.c, link=main.c, inputs=in/*.in, isa=native, budget=8) main.c\n\t\$(CC) \$(CFLAGS) -o \$@ \$^\n" \
    "$PLUGIN" >Makefile &&
  run_make >out 2>err &&
  cc -O2 -o orig hot.c main.c && ./orig <in/a.in >want &&
  ./prog <in/a.in >got && test_cmp want got &&
  python3 - .maxcode/*/journal.jsonl <<-\EOP
	import json, sys
	nodes = [json.loads(l) for l in open(sys.argv[1])]
	nodes = [n for n in nodes if "code" in n]
	def show():
	    return [(i + 1, n["label"], n["verdict"], n.get("duplicate_of"),
	             n.get("repeats")) for i, n in enumerate(nodes)]
	assert len(nodes) == 8, show()
	assert all("arch=haswell" in n["label"] for n in nodes[:4]), show()
	assert not any("duplicate_of" in n for n in nodes), show()
	codes = [" ".join(n["code"].split()) for n in nodes]
	assert len(set(codes)) == 8, show()
	assert any("(candidate " in n.get("repeats", "") for n in nodes), show()
	EOP
'

test_done
