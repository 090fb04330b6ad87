#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0011-invalidation: whatever the content key covers (the source, the
# headers it includes, the compiler and flags, link files, inputs, each
# option) gives a miss and a new search when it changes; a change to
# anything else gives a hit. One change per test, each in a fresh project
# with its own cache, built once before the change: the first test builds
# one, and a test whose build needs no make arguments starts from a copy
# of it and its cache.
. "$MC_SRCDIR/tests/lib.sh"

# The project's own budget (OPT = budget=1) for a change of OPT that
# names another option too: such a change then differs from the first
# build in that option only (the key holds each option's effective
# value, wherever it was set), and its search has one candidate.
export MAXCODE_BUDGET=1

# project DIR: hot.c (main) includes util.h and calls bump() from the
# link file extra.c; two inputs; options from $(OPT).
project () {
  mkdir -p "$1/src" "$1/t" &&
  cat >"$1/src/util.h" <<-\EOF &&
	static int twice(int x) { return 2 * x; }
	EOF
  cat >"$1/src/hot.c" <<-\EOF &&
	#include <stdio.h>
	#include "util.h"
	int bump(int x);
	int main(void)
	{
	    int x, s = 0;
	    while (scanf("%d", &x) == 1)
	        s += twice(x);
	    printf("%d\n", bump(s));
	    return 0;
	}
	EOF
  cat >"$1/extra.c" <<-\EOF &&
	int bump(int x) { return x + 1; }
	EOF
  printf '1 2 3\n' >"$1/t/a.in" &&
  printf '10\n' >"$1/t/b.in" &&
  tabify >"$1/Makefile" <<-EOF
	load $PLUGIN
	OPT = budget=1
	prog: \$(maxcode src/hot.c, inputs=t/*.in, link=extra.c, \$(OPT)) extra.c
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
}

# prog_works: ./prog gives the right answers.
prog_works () {
  ./prog <t/a.in >out.a && echo 13 >expect.a && test_cmp expect.a out.a &&
  ./prog <t/b.in >out.b && echo 21 >expect.b && test_cmp expect.b out.b
}

# fresh NAME [MAKE-ARGS...]: a new project NAME with its own cache (the
# compiler probes of "built"'s in it: seed_probes), cd there and build it
# once: one miss, one search, one entry. Without MAKE-ARGS, NAME and its
# cache are copies (mtimes kept) of the project "built" and its cache,
# which the first test built so: the same state without a search of its
# own (keys and entries do not depend on where the project or the cache
# is: t0070, t0071). "built" is also the build with make's default CC
# (cc) and the Makefile's OPT (budget=1) given on the command line: the
# key holds their values, not where they come from.
fresh () {
  name=$1; shift
  MAXCODE_CACHE_DIR="$TRASH/cache-$name" && export MAXCODE_CACHE_DIR &&
  if [ $# -eq 0 ] && [ "$name" != built ]; then
    cp -pR "$TRASH/built" "$name" &&
    cp -pR "$TRASH/cache-built" "$MAXCODE_CACHE_DIR" && cd "$name"
  else
    project "$name" && cd "$name" && seed_probes "$MAXCODE_CACHE_DIR" &&
    run_make "$@" >out 2>err
  fi &&
  prog_works &&
  expect_stats misses 1 searches 1 && test "$(entries)" = 1
}

# expect_miss [MAKE-ARGS...]: make again; it must miss, search and store
# a second entry, and the build must still work.
expect_miss () {
  run_make "$@" >out 2>err && prog_works &&
  expect_stats misses 2 hits 0 searches 2 stores 2 &&
  test "$(entries)" = 2
}

# expect_hit [MAKE-ARGS...]: make again; it must hit and not search.
expect_hit () {
  run_make "$@" >out 2>err && prog_works &&
  expect_stats hits 1 misses 1 searches 1 &&
  test "$(entries)" = 1
}

test_expect_success 'a first build misses, searches and stores an entry' '
  fresh built
'

test_expect_success 'a change to the source misses' '
  fresh source &&
  echo "/* changed */" >>src/hot.c &&
  expect_miss
'

test_expect_success 'a change to an included header misses' '
  fresh header &&
  echo "static int twice(int x) { return 3 * x; }" >src/util.h &&
  run_make >out 2>err &&
  expect_stats misses 2 hits 0 searches 2 stores 2 &&
  ./prog <t/a.in >out.a && echo 19 >expect.a && test_cmp expect.a out.a &&
  run_make >out 2>err &&
  expect_stats hits 1 searches 2
'

test_expect_success 'a change of CFLAGS misses' '
  fresh flags CFLAGS=-O2 &&
  expect_miss CFLAGS=-O1
'

test_expect_success 'a change of the compiler command misses' '
  fresh compiler &&
  expect_miss CC=gcc
'

test_expect_success 'a change to a link file misses' '
  fresh link &&
  echo "/* changed */" >>extra.c &&
  expect_miss
'

test_expect_success 'a change to an input file misses' '
  fresh input &&
  printf "10 0\n" >t/b.in &&
  expect_miss
'

test_expect_success 'a new file matched by the inputs glob misses' '
  fresh newinput &&
  printf "0\n" >t/c.in &&
  expect_miss
'

test_expect_success 'budget=1 then budget=2 misses' '
  fresh budget &&
  expect_miss OPT=budget=2
'

test_expect_success 'min-speedup misses' '
  fresh minspeedup &&
  expect_miss OPT=min-speedup=1.1
'

test_expect_success 'metric=instructions misses' '
  fresh metric &&
  expect_miss OPT=metric=instructions
'

test_expect_success 'compare=stdout misses' '
  fresh compare &&
  expect_miss OPT=compare=stdout
'

test_expect_success 'tolerance=1e-6 misses' '
  fresh tolerance &&
  expect_miss OPT=tolerance=1e-6
'

test_expect_success 'args=-n misses' '
  fresh args &&
  expect_miss OPT=args=-n
'

test_expect_success 'test-cppflags misses' '
  fresh cppflags &&
  expect_miss OPT=test-cppflags=-DSMALL
'

test_expect_success 'a change to an unrelated file hits' '
  fresh unrelated &&
  echo notes >notes.txt &&
  echo "#define UNUSED 1" >src/other.h &&
  expect_hit
'

test_expect_success 'touching the source without changing it hits' '
  fresh touched &&
  touch src/hot.c src/util.h t/a.in extra.c &&
  expect_hit
'

test_done
