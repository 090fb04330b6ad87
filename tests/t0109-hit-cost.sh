#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0109-hit-cost: what a cache hit costs make's thread, counted in system
# calls, which a busy machine does not move (issue 26, item 8). Once a
# hit has read its entry (one openat2() beneath the cache directory, an
# fstat(), a read() and a close()), the variant's record names the entry
# file (inode, size, birth time) and holds what a hit needs of it (its
# include records and note): the next hit is a statx() of the entry
# file, a stat() of the variant and a readlink() of its record: three
# calls beyond what the same parse makes in MAXCODE_MODE=off, where it
# made 22 two rounds ago and 6 in the last. The bound here is 4. Then
# what the faster checks must still see: a variant edited by hand, a
# record from an older maxcode (a regular file), a changed header, an
# entry written again, a cache directory reached through a link, a
# linked shard directory in it; and a build variable whose value holds
# the byte the plugin reads the five apart by.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_BUDGET=1
N=20

mkdir -p p/src && cd p || exit 1
# makefile FILE N: a makefile of the first N units.
makefile () {
  {
    echo "load $PLUGIN"
    echo 'CFLAGS = -O2'
    echo 'OBJS :='
    i=1
    while [ "$i" -le "$2" ]; do
      echo "OBJS += \$(maxcode src/f$i.c)"
      i=$((i + 1))
    done
    echo 'parse: ; @echo $(OBJS)'
    echo 'fill: $(OBJS) ; @:'
  } >"$1"
}
i=1
while [ "$i" -le "$N" ]; do
  printf 'int f%d(int x) { return x * %d + 7; }\n' "$i" "$i" >"src/f$i.c"
  i=$((i + 1))
done
makefile Makefile "$N"
makefile half.mk "$((N / 2))"
export MAXCODE_CACHE_DIR="$TRASH/cache"

# calls MODE MAKEFILE: the system calls of make's parse of MAKEFILE in
# MODE (-n: nothing runs), with the sanitizer's runtime where the plugin
# needs it.
calls () {
  MAXCODE_MODE=$1 strace -f -qq -o "$TRASH/trace" \
    ${MC_ASAN_PRELOAD:+-E LD_PRELOAD="$MC_ASAN_PRELOAD"} \
    "$MC_SYSTEM_MAKE" -s -n -f "$2" parse >/dev/null &&
    wc -l <"$TRASH/trace" | tr -d ' '
}

test_expect_success 'the cache is filled, then every unit is a hit' '
  run_make -s -j2 fill >/dev/null 2>&1 &&
  run_make -s parse >/dev/null &&
  before=$(stat_of hits) &&
  run_make -s parse >/dev/null &&
  test "$(($(stat_of hits) - before))" = "$N"
'

# What a hit adds, less what a make run pays once (the compiler's
# identity, the counters written at exit): the calls of N units less
# those of N/2, in each mode.
test_expect_success 'a hit makes at most 4 system calls beyond mode off' '
  command -v strace >/dev/null &&
  off=$(calls off Makefile) && on=$(calls optimize Makefile) &&
  off2=$(calls off half.mk) && on2=$(calls optimize half.mk) &&
  per=$((((on - off) - (on2 - off2)) / (N - N / 2))) &&
  echo "# $N units: $off calls in mode off, $on all hits; $((N / 2)):" \
    "$off2, $on2; per hit: $per" &&
  test "$per" -le 4
'

v=$(run_make -s parse 2>/dev/null | tr " " "\n" | sed -n 1p)
test_expect_success 'a variant edited by hand is seen and written again' '
  test -n "$v" && cp "$v" "$TRASH/right" &&
  echo "int evil;" >>"$v" &&
  run_make -s parse 2>"$TRASH/err" >/dev/null &&
  grep -q "had changed since maxcode wrote it" "$TRASH/err" &&
  cmp "$v" "$TRASH/right"
'

test_expect_success 'a record from an older maxcode (a file) is left for a link' '
  w=$(dirname "$v")/.written &&
  test -L "$w" &&
  rm "$w" && echo "old record" >"$w" &&
  touch -d @1600000000 "$v" &&
  run_make -s parse 2>"$TRASH/err" >/dev/null &&
  ! grep -q "had changed" "$TRASH/err" &&
  test -L "$w" &&
  test "$(stat -c %Y "$v")" = 1600000000
'

test_expect_success 'a hit that names its entry still sees a changed header' '
  mkdir -p inc && echo "#define K 7" >inc/k.h &&
  printf "#include \"k.h\"\nint g(int x) { return x + K; }\n" >inc/g.c &&
  printf "load %s\nOBJ := \$(maxcode inc/g.c)\nparse: ; @echo \$(OBJ)\nfill: \$(OBJ) ; @:\n" \
    "$PLUGIN" >inc.mk &&
  run_make -s -f inc.mk fill >/dev/null 2>&1 &&
  run_make -s -f inc.mk parse >/dev/null 2>&1 &&
  g=$(run_make -s -f inc.mk parse 2>/dev/null) &&
  readlink "$(dirname "$g")/.written" | grep -q "^@ " &&
  readlink "$(dirname "$g")/.written" | grep -q "inc/k.h" &&
  misses=$(stat_of misses) &&
  echo "#define K 8" >inc/k.h &&
  run_make -s -f inc.mk parse >/dev/null 2>&1 &&
  test "$(stat_of misses)" = "$((misses + 1))"
'

test_expect_success 'an entry written again is read again, not trusted by name' '
  w=$(dirname "$v")/.written &&
  run_make -s parse >/dev/null 2>&1 &&
  readlink "$w" | grep -q "^@ " &&
  e=$(find "$TRASH/cache" -name "$(basename "$(dirname "$v")").mce") &&
  cp "$e" "$e.new" && mv "$e.new" "$e" &&
  old=$(readlink "$w" | sed -n "s/^@ //p") &&
  run_make -s parse >/dev/null 2>&1 &&
  new=$(readlink "$w" | sed -n "s/^@ //p") &&
  test -n "$new" && test "$old" != "$new"
'

test_expect_success 'a cache directory reached through a link still hits' '
  ln -s "$TRASH/cache" "$TRASH/cache-link" &&
  before=$(stat_of hits) &&
  MAXCODE_CACHE_DIR="$TRASH/cache-link" run_make -s parse >/dev/null &&
  test "$(($(stat_of hits) - before))" = "$N"
'

# A record that names an entry is checked with a statx() that may cross a
# linked shard (it reads nothing there, and what the build compiles is
# the variant in .maxcode/, checked by its own record); without such a
# record, nothing is read through the link.
test_expect_success 'a linked shard directory in the cache is not followed' '
  mv "$TRASH/cache" "$TRASH/cache2" && mkdir "$TRASH/cache" &&
  for d in "$TRASH"/cache2/[0-9a-f][0-9a-f]; do
    ln -s "$d" "$TRASH/cache/$(basename "$d")" || return 1
  done &&
  rm -rf .maxcode &&
  MAXCODE_MODE=cache run_make -s parse >"$TRASH/out" 2>"$TRASH/err" &&
  grep -q "src/f1.c" "$TRASH/out" &&
  ! grep -q "\.maxcode/" "$TRASH/out" &&
  grep -q "is a symbolic link" "$TRASH/err"
'

# The plugin reads the five build variables with one expansion, their
# values apart by a control character; a value that holds it is read on
# its own, whole: 7 bytes in the key (the log shows the byte as "?"),
# the other values unchanged.
test_expect_success 'a flag holding the separator of the build variables' '
  mkdir "$TRASH/sep" && cd "$TRASH/sep" && us=$(printf "\037") &&
  echo "int f(int x) { return x + 1; }" >a.c &&
  { echo "load $PLUGIN"; echo "CPPFLAGS = -DP=1"
    echo "CFLAGS = -O2 -DQ=a${us}b"; echo "LDLIBS = -lm"
    echo "all: \$(maxcode a.c) ; @:"; } >Makefile &&
  MAXCODE_LOG=verbose MAXCODE_MODE=cache run_make -n >out 2>&1 &&
  grep -F "key: flag = [7] -DQ=a?b" out &&
  grep -F "key: flag = [5] -DP=1" out && grep -F "key: ldlib = [3] -lm" out
'

test_done
