#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0013-cache: the local cache under concurrency and crashes: two makes on
# one fresh key search once (the per-key lock); a writer killed mid-store
# leaves no entry; a flipped byte is caught, counted and rebuilt; and the
# upkeep commands (trim, clean, stats --zero) do what they say.
. "$MC_SRCDIR/tests/lib.sh"

# One candidate per search: nothing asserted here depends on how many
# (lib.sh's default is 2).
export MAXCODE_BUDGET=1

# project DIR: a marked source with a header and two inputs; the program
# is $(PROG), prog by default. With SYNC=FILE, make creates FILE once it
# has looked the key up.
project () {
  sample_unit "$1" &&
  tabify >"$1/Makefile" <<-EOF
	load $PLUGIN
	PROG = prog
	\$(PROG): \$(maxcode src/hot.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	\$(if \$(SYNC),\$(shell touch \$(SYNC)))
	EOF
}

# prog_works [PROG]: the program gives the right sums.
prog_works () {
  p=${1:-prog}
  ./$p <t/a.in >out.a && echo 12 >expect.a && test_cmp expect.a out.a &&
  ./$p <t/b.in >out.b && echo 20 >expect.b && test_cmp expect.b out.b
}

# fresh NAME: a new project NAME with its own cache (the compiler probes
# of an earlier case's in it); cd there.
fresh () {
  project "$1" && cd "$1" &&
  MAXCODE_CACHE_DIR="$TRASH/cache-$1" && export MAXCODE_CACHE_DIR &&
  seed_probes "$MAXCODE_CACHE_DIR"
}

# built NAME ENTRIES: a project NAME and its cache cache-NAME as fresh
# NAME and then make left them (ENTRIES 1), or as make left them after
# "/* two */" went into src/hot.c (ENTRIES 2: two entries, the first
# one's file, under the cache, named in NAME/first, src/hot.c as it was
# in NAME/hot.v1); cd there. Copies of one project and cache built once
# each (misses, searches and stores 1, or 2), so that the cases that
# start from them do not search for them again.
built () {
  _built "$2" && cp -pR "$TRASH/built$2/p" "$1" && cd "$1" &&
  MAXCODE_CACHE_DIR="$TRASH/cache-$1" && export MAXCODE_CACHE_DIR &&
  cp -pR "$TRASH/built$2/cache" "$MAXCODE_CACHE_DIR"
}

# _built ENTRIES: build $TRASH/builtENTRIES (p/ and cache/) unless built.
_built () {
  [ "$1" = 1 ] || _built 1 || return 1
  _b=$TRASH/built$1
  [ -d "$_b" ] && return
  (
    if [ "$1" = 1 ]; then
      project "$_b.tmp/p" && seed_probes "$_b.tmp/cache"
    else
      cp -pR "$TRASH/built1" "$_b.tmp"
    fi &&
    cd "$_b.tmp/p" && MAXCODE_CACHE_DIR=$_b.tmp/cache &&
    export MAXCODE_CACHE_DIR &&
    if [ "$1" = 2 ]; then
      cp src/hot.c hot.v1 && mce | sed "s|^$MAXCODE_CACHE_DIR/||" >first &&
      echo "/* two */" >>src/hot.c
    fi &&
    run_make >out 2>err || { sed 's/^/# /' out err; exit 1; }
  ) && mv "$_b.tmp" "$_b"
}

# mce: the path of the one entry file in the cache.
mce () { find "$MAXCODE_CACHE_DIR" -name "*.mce"; }

# flip_byte FILE: change the byte in the middle of FILE.
flip_byte () {
  size=$(wc -c <"$1") && off=$((size / 2)) &&
  old=$(dd if="$1" bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 |
        tr -d " ") &&
  if [ "$old" = 65 ]; then new="\\102"; else new="\\101"; fi &&
  printf "$new" | dd of="$1" bs=1 seek=$off count=1 conv=notrunc 2>/dev/null
}

# A compiler whose `-MM` (the search's include scan, under the key's
# lock) waits until two makes have looked the key up (two files in
# $SYNC_DIR), so that the second make surely finds the key locked, not
# stored.
mkdir -p bin
cat >bin/slowcc <<\EOF
#!/bin/sh
case " $* " in *" -MM "*)
  i=0
  while [ $i -lt 100 ] && [ "$(ls "$SYNC_DIR" | wc -l)" -lt 2 ]; do
    sleep 0.1; i=$((i + 1))
  done ;;
esac
exec cc "$@"
EOF
chmod +x bin/slowcc

test_expect_success 'two parallel makes on one fresh key search once' '
  fresh par || exit 1
  SYNC_DIR=$TRASH/sync-par && export SYNC_DIR && mkdir "$SYNC_DIR" || exit 1
  ( run_make -j2 CC="$TRASH/bin/slowcc" PROG=prog1 SYNC="$SYNC_DIR/1" \
      >out1 2>err1; echo $? >rc1 ) &
  ( run_make -j2 CC="$TRASH/bin/slowcc" PROG=prog2 SYNC="$SYNC_DIR/2" \
      >out2 2>err2; echo $? >rc2 ) &
  wait &&
  echo 0 >expect && test_cmp expect rc1 && test_cmp expect rc2 &&
  prog_works prog1 && prog_works prog2 &&
  expect_stats misses 2 searches 1 stores 1 &&
  test "$(entries)" = 1 &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "1 entries, 1 ok, 0 corrupt"
'

test_expect_success 'two parallel makes in two projects share one search' '
  project two-a && project two-b &&
  MAXCODE_CACHE_DIR="$TRASH/cache-two" && export MAXCODE_CACHE_DIR &&
  SYNC_DIR=$TRASH/sync-two && export SYNC_DIR && mkdir "$SYNC_DIR" || exit 1
  ( cd two-a && run_make -j2 CC="$TRASH/bin/slowcc" SYNC="$SYNC_DIR/a" \
      >out 2>err; echo $? >rc ) &
  ( cd two-b && run_make -j2 CC="$TRASH/bin/slowcc" SYNC="$SYNC_DIR/b" \
      >out 2>err; echo $? >rc ) &
  wait &&
  echo 0 >expect && test_cmp expect two-a/rc && test_cmp expect two-b/rc &&
  (cd two-a && prog_works) && (cd two-b && prog_works) &&
  expect_stats misses 2 searches 1 stores 1 &&
  test "$(entries)" = 1 &&
  "$MAXCODE_BIN" cache verify >verify
'

test_expect_success 'a store killed with -9 halfway leaves no entry' '
  fresh killed || exit 1
  MAXCODE_DEBUG_STORE_PAUSE=5 "$MAXCODE_BIN" optimize --cc cc --flags -O2 \
    -- src/hot.c >opt.out 2>opt.err &
  pid=$! &&
  i=0 &&
  while [ $i -lt 1200 ]; do
    find "$MAXCODE_CACHE_DIR" -name ".*.mce.tmp.*" >tmps 2>/dev/null
    test -s tmps && break
    sleep 0.1; i=$((i + 1))
  done &&
  test -s tmps &&
  kill -9 $pid &&
  { wait $pid; test $? -eq 137; } &&
  test -z "$(mce)" &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "0 corrupt" &&
  "$MAXCODE_BIN" cache list >list && test ! -s list &&
  run_make CFLAGS=-O2 >out 2>err &&
  prog_works &&
  expect_stats misses 1 searches 1 stores 1 corrupt 0 &&
  test "$(entries)" = 1 &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "1 entries, 1 ok, 0 corrupt"
'

test_expect_success 'a flipped byte: verify fails, make counts it and searches again' '
  built flip 1 && prog_works &&
  f=$(mce) && test -f "$f" &&
  cp "$f" before && flip_byte "$f" && ! cmp -s before "$f" &&
  expect_exit 1 "$MAXCODE_BIN" cache verify >verify &&
  contains verify "corrupt $f: checksum mismatch" &&
  contains verify "1 entries, 0 ok, 1 corrupt" &&
  run_make >out 2>err && prog_works &&
  expect_stats corrupt 1 misses 2 hits 0 searches 2 stores 2 &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "1 entries, 1 ok, 0 corrupt"
'

test_expect_success 'a truncated entry is corrupt too' '
  built trunc 1 &&
  f=$(mce) && size=$(wc -c <"$f") &&
  truncate -s $((size - 7)) "$f" &&
  expect_exit 1 "$MAXCODE_BIN" cache verify >verify &&
  contains verify "corrupt $f: truncated entry" &&
  run_make >out 2>err && prog_works &&
  expect_stats corrupt 1 searches 2 &&
  "$MAXCODE_BIN" cache verify >verify
'

test_expect_success 'cache trim --max-size 0 removes every entry' '
  built trim0 2 &&
  test "$(entries)" = 2 &&
  "$MAXCODE_BIN" cache trim --max-size 0 >trim &&
  echo "removed 2 entries" >expect && test_cmp expect trim &&
  test "$(entries)" = 0 && test -z "$(mce)" &&
  expect_stat trimmed 2
'

test_expect_success 'cache trim keeps the entry used last' '
  built lru 2 &&
  a=$MAXCODE_CACHE_DIR/$(cat first) && test -f "$a" &&
  b=$(mce | grep -v "$a") && test -f "$b" &&
  touch -d "3 hours ago" "$a" && touch -d "2 hours ago" "$b" &&
  cp hot.v1 src/hot.c && run_make >out 2>err &&
  expect_stats hits 1 misses 2 &&
  sa=$(wc -c <"$a") && sb=$(wc -c <"$b") &&
  max=$sa && if [ "$sb" -gt "$max" ]; then max=$sb; fi &&
  "$MAXCODE_BIN" cache trim --max-size "$max" >trim &&
  echo "removed 1 entries" >expect && test_cmp expect trim &&
  test -f "$a" && test ! -e "$b"
'

test_expect_success 'cache clean removes all entries' '
  built clean 2 &&
  test "$(entries)" = 2 &&
  "$MAXCODE_BIN" cache clean >clean &&
  echo "removed 2 entries" >expect && test_cmp expect clean &&
  test "$(entries)" = 0 && test -z "$(mce)" &&
  rm prog && run_make >out 2>err && prog_works &&
  expect_stats misses 3 searches 3
'

test_expect_success 'stats --zero zeroes every counter' '
  built zero 1 && rm prog && run_make >out 2>err &&
  expect_stats hits 1 misses 1 &&
  "$MAXCODE_BIN" stats --zero &&
  "$MAXCODE_BIN" stats --json >stats &&
  grep -c ":" stats >n && test "$(cat n)" -ge 11 &&
  ! grep -v "^[{}]\$" stats | grep -v ":[[:space:]]*0,\{0,1\}\$" &&
  test "$(entries)" = 1
'

test_done
