#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0070-portable: keys that survive a move to another checkout (another
# place, another machine with the same toolchain) and that never let a
# variant built for one CPU be served to another. Two checkouts of one
# project at different absolute paths share one cache: SOURCE written
# relative, as $(CURDIR)/..., and with a Bear compile DB. The compiler
# identity under MAXCODE_COMPILER_CHECK (mtime, content, string:, a
# command run once and remembered). isa=native keyed by the resolved
# architecture (MAXCODE_NATIVE_ARCH is the test hook), resolved by the
# search recipe when make's thread has none. A cached variant with
# target("arch=X") is not used where X is not this machine's.
. "$MC_SRCDIR/tests/lib.sh"

# Keys, hits and searches are asserted, and the arch case decides by
# instructions: no timing decision, so lib.sh's shortest timing cap. One
# candidate per search (the arch case's budget=1 says so itself): none
# of that depends on how many.
export MAXCODE_BUDGET=1

# searched [MAKE-ARGS...]: make searched once.
searched () {
  _searches=$(stat_of searches)
  run_make "$@" >out 2>err || { sed 's/^/# /' out err; return 1; }
  test "$(stat_of searches)" = $((_searches + 1)) ||
    { echo "# no search"; sed 's/^/# /' err; return 1; }
}

# key_of MAKE-ARGS...: the key of hot.c's variant in `make -n`.
key_of () {
  run_make -n "$@" 2>/dev/null | grep -o '\.maxcode/[0-9a-f]*/hot\.c' |
    head -n 1 | cut -d/ -f2
}

# project DIR SOURCE-ARG INPUTS-ARG: sample_unit in DIR, whose prog is
# built from $(maxcode SOURCE-ARG, inputs=INPUTS-ARG).
project () {
  sample_unit "$1" &&
  tabify >"$1/Makefile" <<-EOF
	load $PLUGIN
	CFLAGS = -O2
	prog: \$(maxcode $2, inputs=$3)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
}

# moved FROM TO: copy the checkout FROM to TO, without what a build left,
# and remove FROM, so nothing can still point into it.
moved () {
  mkdir -p "$(dirname "$2")" && cp -R "$1" "$2" && rm -rf "$1" &&
  rm -rf "$2/.maxcode" "$2/prog"
}

test_expect_success 'a relative SOURCE: the other checkout hits' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-rel" &&
  project a/proj src/hot.c "t/*.in" &&
  (cd a/proj && searched) &&
  moved a/proj b/deeper/proj && cd b/deeper/proj && hit &&
  ./prog <t/a.in >got && echo 12 >want && test_cmp want got
'

test_expect_success 'SOURCE and inputs as $(CURDIR)/...: the other checkout hits' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-abs" &&
  project a2/proj "\$(CURDIR)/src/hot.c" "\$(CURDIR)/t/*.in" &&
  (cd a2/proj && searched && "$MAXCODE_BIN" show src/hot.c --json >m &&
   json m "j[\"includes\"] == [\"src/util.h\"]") &&
  moved a2/proj b2/deeper/proj && cd b2/deeper/proj && hit &&
  ./prog <t/a.in >got && echo 12 >want && test_cmp want got
'

test_expect_success 'a Bear compile DB: the other checkout hits' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-db" &&
  sample_unit a3/proj && mkdir a3/proj/include &&
  mv a3/proj/src/util.h a3/proj/include/ &&
  tabify >a3/proj/Makefile <<-EOF &&
	load $PLUGIN
	prog: hot.o
	>\$(CC) -o \$@ \$^
	hot.o: \$(maxcode src/hot.c, inputs=t/*.in)
	>\$(CC) -O2 -DDB_ONLY -Iinclude -c -o \$@ \$<
	EOF
  (cd a3/proj && MAXCODE_MODE=off bear_make --force-wrapper >out 2>&1 &&
   grep -q "\"-Iinclude\"" compile_commands.json && rm -f prog hot.o &&
   searched && "$MAXCODE_BIN" show src/hot.c --json >m &&
   json m "\"-DDB_ONLY\" in j[\"flags\"]") &&
  moved a3/proj b3/deeper/proj && cd b3/deeper/proj &&
  rm -f hot.o compile_commands.json &&
  MAXCODE_MODE=off bear_make --force-wrapper >out 2>&1 &&
  grep -q "b3/deeper/proj" compile_commands.json && rm -f prog hot.o &&
  hit && ./prog <t/a.in >got && echo 12 >want && test_cmp want got
'

test_expect_success 'MAXCODE_COMPILER_CHECK: content, mtime, none, string:' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-cc" &&
  project cc src/hot.c "t/*.in" && cd cc &&
  mkdir bin2 && cp -p "$(command -v cc)" bin2/cc && touch bin2/cc &&
  c1=$(key_of) && c2=$(PATH=$PWD/bin2:$PATH key_of) &&
  ls "$MAXCODE_CACHE_DIR"/compilers/*.id >/dev/null &&
  m1=$(MAXCODE_COMPILER_CHECK=mtime key_of) &&
  m2=$(PATH=$PWD/bin2:$PATH MAXCODE_COMPILER_CHECK=mtime key_of) &&
  n1=$(key_of MAXCODE_COMPILER_CHECK=none) &&
  n2=$(PATH=$PWD/bin2:$PATH key_of MAXCODE_COMPILER_CHECK=none) &&
  s1=$(key_of MAXCODE_COMPILER_CHECK=string:v1) &&
  s2=$(key_of MAXCODE_COMPILER_CHECK=string:v2) &&
  w=$(key_of CC="cc -m64") &&
  echo "content $c1 $c2 mtime $m1 $m2 none $n1 $n2 string $s1 $s2 $w" &&
  test -n "$c1" && test "$c1" = "$c2" &&
  test -n "$m1" && test "$m1" != "$m2" && test "$m1" != "$c1" &&
  test "$n1" = "$n2" && test "$n1" != "$c1" &&
  test -n "$s1" && test "$s1" != "$s2" && test "$w" != "$c1"
'

test_expect_success 'a check command runs once per compiler, then is remembered' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-cc" && cd cc &&
  check="echo x >>$TRASH/ran; %compiler% --version" &&
  k1=$(MAXCODE_COMPILER_CHECK="$check" key_of) &&
  k2=$(MAXCODE_COMPILER_CHECK="$check" key_of) &&
  test -n "$k1" && test "$k1" = "$k2" && test "$k1" != "$(key_of)" &&
  test "$(wc -l <"$TRASH/ran")" -eq 1 &&
  k3=$(MAXCODE_COMPILER_CHECK="%compiler% -v" key_of) &&
  test -n "$k3" && test "$k3" != "$k1" &&
  ! MAXCODE_COMPILER_CHECK=false run_make -n >out 2>err &&
  contains err "MAXCODE_COMPILER_CHECK: '\''false'\'' exited with status 1"
'

test_expect_success 'isa=native: the key has the resolved architecture' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-native" &&
  project nat src/hot.c "t/*.in, isa=native" && cd nat &&
  k1=$(MAXCODE_NATIVE_ARCH=skylake key_of) &&
  k2=$(MAXCODE_NATIVE_ARCH=haswell key_of) &&
  k3=$(MAXCODE_NATIVE_ARCH=skylake key_of) && u=$(key_of) &&
  echo "$k1 $k2 $u" && test -n "$k1" && test -n "$k2" && test -n "$u" &&
  test "$k1" != "$k2" && test "$k1" = "$k3" &&
  test "$u" != "$k1" && test "$u" != "$k2"
'

test_expect_success 'isa=native: the first build searches, under the resolved key' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-native" && cd nat &&
  u=$(key_of) && ! ls "$MAXCODE_CACHE_DIR"/native/*.arch 2>/dev/null &&
  searched && ! grep -q "resolved only now" err &&
  test "$(entries)" -eq 1 && test -f .maxcode/$u/hot.c &&
  ls "$MAXCODE_CACHE_DIR"/native/*.arch && k=$(key_of) &&
  test -n "$k" && test "$k" != "$u" &&
  "$MAXCODE_BIN" cache list | grep -q "$k" &&
  ! "$MAXCODE_BIN" cache list | grep -q "$u"
'

test_expect_success 'isa=native: the next build hits that entry, no search' '
  export MAXCODE_CACHE_DIR="$TRASH/cache-native" && cd nat &&
  k=$(key_of) && rm prog && hits_searches && s0=$_s h0=$_h &&
  run_make >out 2>err && test -x prog && hits_searches &&
  test "$_s" = "$s0" && test "$_h" -gt "$h0" && test -f .maxcode/$k/hot.c &&
  grep -q "\.maxcode/$k/hot\.c" out
'

# The architecture gcc resolves -march=native to here, or "".
host_arch () {
  cc -march=native -E -v - </dev/null 2>&1 |
    sed -n "s/.* -march=\([A-Za-z0-9_.+-]*\).*/\1/p" | grep -v "^native$" |
    head -n 1
}

ARCH=$(host_arch)
if [ -n "$ARCH" ]; then
  test_expect_success 'a cached variant for another arch is not used there' '
    export MAXCODE_CACHE_DIR="$TRASH/cache-arch" &&
    llm_project arch "budget=1, critique=off, metric=instructions" &&
    llm_small arch && cd arch &&
    { echo "#pragma GCC target(\"arch=$ARCH\")"; cat v/fast.c; } >v/fa.c &&
    llm_script s.json "" -- v/fa.c && stub_start s.json && llm_env &&
    MAXCODE_NATIVE_ARCH=$ARCH searched && contains err "optimized" &&
    grep -q "arch=$ARCH" .maxcode/*/hot.c &&
    rm prog && MAXCODE_NATIVE_ARCH=$ARCH hit &&
    rm prog && MAXCODE_NATIVE_ARCH=otherarch MAXCODE_MODE=cache \
      run_make >out 2>err && contains out " -o prog hot.c" &&
    contains err "hot.c: the cached variant is for arch=$ARCH, this machine is otherarch; using the original" &&
    MAXCODE_NATIVE_ARCH=otherarch run_make >out 2>err &&
    contains err "this machine is otherarch; searching again" &&
    expect_stat searches 2
  '
else
  test_skip 'a cached variant for another arch is not used there' \
    'cc does not say what -march=native is here (not gcc?)'
fi

test_done
