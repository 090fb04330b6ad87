#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0119-launcher: maxcode as a compiler launcher (maxcode(1), COMPILER
# LAUNCHER), as CMake (both generators) and Meson run it. A project with
# one file marked by '#pragma maxcode optimize' is configured with the
# launcher and built twice: the first build searches and keeps a variant
# or the original for a stated reason, never a build failure; the
# second is a hit; the program prints what a plain build's prints. A
# checkout at another path, in mode cache, searches nothing. Unmarked
# compiles and every other command run the compiler unchanged, and a
# compile that fails fails with the compiler's own diagnostics.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
export MAXCODE_TIMING_CAP=1
unset MAXCODE_ROOT MAXCODE_COMPDB MAXCODE_MODE

# checkout DIR: a git checkout of the project: src/hot.c (marked, its
# link file and inputs named relative to it, including scale.h from
# include/, which CMake names by its absolute path), src/main.c,
# t/a.in, CMakeLists.txt and meson.build.
checkout () {
  mkdir -p "$1/src" "$1/t" "$1/include" && (cd "$1" && git init -q .) &&
  echo "#define SCALE 3" >"$1/include/scale.h" &&
  cat >"$1/src/hot.c" <<-\EOF &&
	#pragma maxcode optimize link=main.c inputs="../t/*.in" budget=1
	#include "scale.h"
	long
	sum(const int *a, int n)
	{
	    long s = 0;
	    for (int i = 0; i < n; i++)
	        s += a[i] * SCALE + (a[i] >> 2);
	    return s;
	}
	EOF
  cat >"$1/src/main.c" <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	long sum(const int *a, int n);
	int main(void)
	{
	    int n;
	    if (scanf("%d", &n) != 1) return 1;
	    int *a = malloc(sizeof(int) * (n + 1));
	    for (int i = 0; i < n; i++) a[i] = (i * 7) % 101;
	    long s = 0;
	    for (int r = 0; r < 20; r++) s += sum(a, n);
	    printf("%ld\n", s);
	    return 0;
	}
	EOF
  echo 100000 >"$1/t/a.in" &&
  cat >"$1/CMakeLists.txt" <<-\EOF &&
	cmake_minimum_required(VERSION 3.13)
	project(demo C)
	set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
	add_executable(prog src/main.c src/hot.c)
	target_include_directories(prog PRIVATE include)
	EOF
  cat >"$1/meson.build" <<-\EOF
	project('demo', 'c')
	executable('prog', 'src/main.c', 'src/hot.c',
	           include_directories: include_directories('include'))
	EOF
}

# cmake_build SRC BUILD GENERATOR: configure SRC into BUILD with the
# launcher and -O2, and build (output in BUILD.out, BUILD.err).
cmake_build () {
  CFLAGS=-O2 cmake -S "$1" -B "$2" -G "$3" \
    -DCMAKE_C_COMPILER_LAUNCHER="$MAXCODE_BIN" >/dev/null &&
  cmake --build "$2" >"$2.out" 2>"$2.err" ||
    { sed 's/^/# /' "$2.out" "$2.err"; return 1; }
}

# searched_well OUT ERR: the build's search ended in a kept variant or
# the original for a stated reason, and nothing fell back for a failure
# (Ninja prints what a compile says on its stdout, make on stderr).
searched_well () {
  cat "$1" "$2" >said &&
  { grep -q 'maxcode: hot.c: optimized: kept' said ||
    grep -q 'maxcode: hot.c: keeping the original (' said; } &&
  ! grep -q 'does not build\|failed (status\|did not compile' said ||
    { sed 's/^/# /' said; return 1; }
}

test_expect_success 'the tools are installed (CI installs them)' '
  cmake --version >/dev/null && ninja --version >/dev/null &&
  meson --version >/dev/null && git --version >/dev/null
'

test_expect_success 'unmarked compiles and other commands: the compiler, unchanged' '
  mkdir plain && cd plain &&
  printf "int f(int x) { return x * 3; }\n" >f.c &&
  cc -O2 -c f.c -o want.o &&
  "$MAXCODE_BIN" cc -O2 -c f.c -o got.o && cmp want.o got.o &&
  "$MAXCODE_BIN" -- cc -O2 -c f.c -o got2.o && cmp want.o got2.o &&
  cc --version >want && "$MAXCODE_BIN" cc --version >got &&
  test_cmp want got &&
  expect_exit 1 "$MAXCODE_BIN" false &&
  test ! -e .maxcode && expect_stats hits 0 misses 0
'

test_expect_success 'CMake with Ninja: a search, then a hit; the output of a plain build' '
  checkout one &&
  cmake_build one one/b-ninja Ninja && searched_well one/b-ninja.out one/b-ninja.err &&
  expect_stats searches 1 misses 1 &&
  cc -O2 -Ione/include -o plain-prog one/src/hot.c one/src/main.c &&
  ./plain-prog <one/t/a.in >want && one/b-ninja/prog <one/t/a.in >got &&
  test_cmp want got &&
  cmake --build one/b-ninja --target clean >/dev/null &&
  cmake_build one one/b-ninja Ninja &&
  expect_stats searches 1 hits 1 &&
  one/b-ninja/prog <one/t/a.in >got && test_cmp want got &&
  ! grep -q "maxcode:" one/b-ninja.out one/b-ninja.err
'

test_expect_success 'CMake with Unix Makefiles in another build directory: a hit' '
  cmake_build one "$TRASH/elsewhere" "Unix Makefiles" &&
  expect_stats searches 1 hits 2 &&
  ./plain-prog <one/t/a.in >want && "$TRASH/elsewhere/prog" <one/t/a.in >got &&
  test_cmp want got
'

test_expect_success 'another checkout at another path, mode cache: a hit, no search' '
  grep -q -- "-I$TRASH/one/include" one/b-ninja/compile_commands.json &&
  checkout two &&
  MAXCODE_MODE=cache cmake_build two two/b Ninja &&
  expect_stats searches 1 hits 3 &&
  ./plain-prog <two/t/a.in >want && two/b/prog <two/t/a.in >got &&
  test_cmp want got &&
  : "keyed with its include path as written, a third checkout misses" &&
  checkout four && misses=$(stat_of misses) &&
  MAXCODE_ROOT=/nowhere MAXCODE_MODE=cache cmake_build four four/b Ninja &&
  expect_stats searches 1 hits 3 misses $((misses + 1))
'

test_expect_success 'Meson: a search, then a hit; the output of a plain build' '
  checkout three &&
  (cd three && CC="$MAXCODE_BIN cc" meson setup -Dbuildtype=plain \
     -Dc_args=-O2 b >../meson.out 2>&1) ||
    { sed "s/^/# /" meson.out; false; } &&
  ninja -C three/b >three.out 2>three.err && searched_well three.out three.err &&
  expect_stats searches 2 &&
  : "Meson builds with -Wall: what the compiler says names the source" &&
  ! grep -q "\.maxcode/" three.out three.err &&
  ./plain-prog <three/t/a.in >want && three/b/prog <three/t/a.in >got &&
  test_cmp want got &&
  ninja -C three/b -t clean >/dev/null &&
  ninja -C three/b >three.out 2>three.err &&
  expect_stats searches 2 hits 4 &&
  three/b/prog <three/t/a.in >got && test_cmp want got
'

test_expect_success 'the examples build with both CMake generators and with Meson' '
  copy_example cmake excm && copy_example meson exme &&
  for g in Ninja "Unix Makefiles"; do
    MAXCODE_MODE=cache cmake_build excm "excm/b-${g%% *}" "$g" &&
    excm/b-${g%% *}/matmul <excm/inputs/small.in >got &&
    cc -O2 -o ref excm/src/matmul.c excm/src/main.c &&
    ./ref <excm/inputs/small.in >want && test_cmp want got || exit 1
  done &&
  (cd exme && CC="$MAXCODE_BIN cc" meson setup -Dbuildtype=plain \
     -Dc_args=-O2 b >../meson2.out 2>&1) &&
  MAXCODE_MODE=cache ninja -C exme/b >/dev/null &&
  exme/b/stencil <exme/inputs/small.in >got &&
  cc -O2 -o ref2 exme/src/stencil.c exme/src/main.c &&
  ./ref2 <exme/inputs/small.in >want && test_cmp want got
'

test_expect_success 'a compile that fails in the original fails the same way' '
  mkdir bad && cd bad &&
  printf "#pragma maxcode optimize budget=1\nint f(int x) { return x +; }\n" >bad.c &&
  cc -O2 -c bad.c -o bad.o 2>want; want_rc=$? &&
  test "$want_rc" -ne 0 && test ! -e bad.o &&
  "$MAXCODE_BIN" cc -O2 -c bad.c -o bad.o 2>all; got_rc=$? &&
  test "$got_rc" = "$want_rc" && test ! -e bad.o &&
  grep -v "^maxcode:" all >got && test_cmp want got
'

test_expect_success 'a malformed pragma is a warning at its line; the original is compiled' '
  mkdir malformed && cd malformed &&
  printf "int g;\n#pragma maxcode optimize budget\nint f(int x) { return x * 3; }\n" >m.c &&
  cc -O2 -c m.c -o want.o &&
  "$MAXCODE_BIN" cc -O2 -c m.c -o got.o 2>err && cmp want.o got.o &&
  contains err "maxcode: m.c:2:" && contains err "compiling the original"
'

test_expect_success 'the search gets the flags, never -o or the dependency files' '
  mkdir flags && cd flags &&
  printf "#pragma maxcode optimize budget=1\nint f(int x) { return x * 3; }\n" >k.c &&
  MAXCODE_MODE=cache MAXCODE_LOG=verbose "$MAXCODE_BIN" cc -O2 -DK=1 -c k.c \
    -ok.o -MD -MF k.d 2>err && test -s k.o && test -s k.d &&
  contains err "key: flag = [3] -O2" && contains err "key: flag = [5] -DK=1" &&
  ! grep "key: flag" err | grep -q -e "-o" -e "-M" -e "k\.d" -e "-c"
'

test_expect_success 'no compile database: a warning says link files get the source'"'"'s flags' '
  mkdir nodb && cd nodb &&
  printf "#pragma maxcode optimize link=main.c\nint f(int x) { return x; }\n" >k.c &&
  printf "int f(int); int main(void) { return f(0); }\n" >main.c &&
  MAXCODE_MODE=cache "$MAXCODE_BIN" cc -O2 -c k.c -o k.o 2>err && test -s k.o &&
  contains err "maxcode: k.c: no compile_commands.json in" &&
  contains err "its link files are compiled with its flags"
'

test_expect_success 'an unquoted glob that opens a comment is named' '
  mkdir glob && cd glob &&
  printf "#pragma maxcode optimize inputs=t/*.in\nint f(int x) { return x; }\n" >g.c &&
  cc -O2 -c g.c -o want.o 2>/dev/null; want_rc=$? &&
  MAXCODE_MODE=off "$MAXCODE_BIN" cc -O2 -c g.c -o got.o 2>err; got_rc=$? &&
  test "$got_rc" = "$want_rc" &&
  contains err "maxcode: g.c:1: the pragma'"'"'s line ends inside a comment"
'

test_done
