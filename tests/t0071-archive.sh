#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0071-archive: `maxcode cache export` and `import` move a cache as one
# archive (the way CI keeps it as an artifact): a fresh cache filled from
# it hits every entry without a search; a damaged entry is named and
# skipped while the others come in; a cut archive gives what came before
# the cut. And the line a make in MAXCODE_MODE=cache prints at its end.
. "$MC_SRCDIR/tests/lib.sh"

# One candidate per search: nothing asserted here depends on how many
# (lib.sh's default is 2).
export MAXCODE_BUDGET=1

# project DIR: two marked units, src/hot.c (sample_unit's: twice the sum)
# and src/cold.c (the sum), built into ./hot and ./cold.
project () {
  sample_unit "$1" &&
  sed 's/twice(x)/x/' "$1/src/hot.c" >"$1/src/cold.c" &&
  tabify >"$1/Makefile" <<-EOF
	load $PLUGIN
	all: hot cold
	hot: \$(maxcode src/hot.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	cold: \$(maxcode src/cold.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
}

# progs_work: both programs give the right sums.
progs_work () {
  ./hot <t/a.in >out.a && echo 12 >expect.a && test_cmp expect.a out.a &&
  ./cold <t/a.in >out.a && echo 6 >expect.a && test_cmp expect.a out.a
}

# items ARCHIVE: one line per item, "INDEX KEY OFFSET LENGTH" (OFFSET:
# where its entry's bytes start), read by the layout that
# doc/internals/cache.md gives; fails on anything else.
items () {
  python3 - "$1" <<'EOP'
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:4] == b"MCXA", "magic"
version, count = struct.unpack_from("<IQ", d, 4)
assert version == 1, "version %d" % version
off = 16
for i in range(1, count + 1):
    key = d[off:off + 32].decode("ascii")
    (n,) = struct.unpack_from("<Q", d, off + 32)
    assert d[off + 40:off + 44] == b"MCXE", "item %d is no entry" % i
    print(i, key, off + 40, n)
    off += 40 + n
assert len(d) == off + 16, "%d bytes, items end at %d" % (len(d), off)
EOP
}

# item N FIELD ARCHIVE: field 2 (key), 3 (offset) or 4 (length) of item N.
item () { items "$3" | awk -v n="$1" -v f="$2" '$1 == n { print $f }'; }

# damage ARCHIVE OUT N: OUT is ARCHIVE with the byte in the middle of
# item N's entry flipped.
damage () {
  off=$(item "$3" 3 "$1") && len=$(item "$3" 4 "$1") &&
  python3 - "$1" "$2" $((off + len / 2)) <<'EOP'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[int(sys.argv[3])] ^= 0xff
open(sys.argv[2], "wb").write(d)
EOP
}

# keys: the keys in the cache, sorted.
keys () { "$MAXCODE_BIN" cache list | cut -d" " -f1 | sort; }

# ino FILE: its inode number (a rewrite renames a new file into place).
ino () { ls -i "$1" | cut -d" " -f1; }

test_expect_success 'a build of two marked units fills the cache' '
  project main && cd main &&
  MAXCODE_CACHE_DIR="$TRASH/cache-main" && export MAXCODE_CACHE_DIR &&
  run_make >out 2>err && progs_work &&
  expect_stat searches 2 && expect_stat stores 2 &&
  test "$(entries)" = 2
'

# Each item is its entry as it leaves the machine (runtime/store/share.h): the
# same header (magic, version, key, created), the manifest naming paths
# relative to make's directory where the local entry has them absolute.
test_expect_success 'cache export writes both entries into one archive' '
  MAXCODE_CACHE_DIR="$TRASH/cache-main" && export MAXCODE_CACHE_DIR &&
  "$MAXCODE_BIN" cache export "$TRASH/a.mcxa" >out 2>err &&
  echo "exported 2 entries, 0 skipped" >expect && test_cmp expect out &&
  test ! -s err &&
  items "$TRASH/a.mcxa" >items && test "$(wc -l <items)" = 2 &&
  cut -d" " -f2 items | sort >archived && keys >cached &&
  test_cmp cached archived &&
  while read i key off len; do
    f=$(find "$MAXCODE_CACHE_DIR" -name "$key.mce") &&
    tail -c +$((off + 1)) "$TRASH/a.mcxa" | head -c "$len" >bytes &&
    cmp -n 32 "$f" bytes && grep -qF "$TRASH/main/src/" "$f" &&
    ! grep -qF "$TRASH" bytes || exit 1
  done <items &&
  ls -a "$TRASH" >listing && ! grep "\.tmp\." listing
'

test_expect_success 'imported into a fresh cache, every entry hits and nothing searches' '
  MAXCODE_CACHE_DIR="$TRASH/cache-fresh" && export MAXCODE_CACHE_DIR &&
  "$MAXCODE_BIN" cache import "$TRASH/a.mcxa" >out 2>err &&
  echo "imported 2 entries, 0 skipped" >expect && test_cmp expect out &&
  test ! -s err &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "2 entries, 2 ok, 0 corrupt" &&
  project ci && cd ci &&
  run_make >out 2>err && progs_work &&
  expect_stat hits 2 && expect_stat misses 0 && expect_stat searches 0 &&
  expect_stat stores 0
'

test_expect_success 'importing the same archive again rewrites nothing' '
  MAXCODE_CACHE_DIR="$TRASH/cache-fresh" && export MAXCODE_CACHE_DIR &&
  for k in $(keys); do
    ino "$(find "$MAXCODE_CACHE_DIR" -name "$k.mce")"
  done >before &&
  "$MAXCODE_BIN" cache import "$TRASH/a.mcxa" >out 2>err &&
  echo "imported 2 entries, 0 skipped" >expect && test_cmp expect out &&
  for k in $(keys); do
    ino "$(find "$MAXCODE_CACHE_DIR" -name "$k.mce")"
  done >after &&
  test_cmp before after
'

test_expect_success 'export - and import - go through a pipe' '
  MAXCODE_CACHE_DIR="$TRASH/cache-main" "$MAXCODE_BIN" cache export - \
    >piped.mcxa 2>err &&
  echo "exported 2 entries, 0 skipped" >expect && test_cmp expect err &&
  cmp "$TRASH/a.mcxa" piped.mcxa &&
  MAXCODE_CACHE_DIR="$TRASH/cache-main" "$MAXCODE_BIN" cache export - |
    MAXCODE_CACHE_DIR="$TRASH/cache-pipe" "$MAXCODE_BIN" cache import - \
      >out 2>err &&
  echo "imported 2 entries, 0 skipped" >expect && test_cmp expect out &&
  MAXCODE_CACHE_DIR="$TRASH/cache-pipe" "$MAXCODE_BIN" cache verify >verify &&
  contains verify "2 entries, 2 ok, 0 corrupt"
'

test_expect_success 'a damaged entry is named and skipped; the other is imported' '
  damage "$TRASH/a.mcxa" bad.mcxa 2 && ! cmp -s "$TRASH/a.mcxa" bad.mcxa &&
  k1=$(item 1 2 bad.mcxa) && k2=$(item 2 2 bad.mcxa) &&
  MAXCODE_CACHE_DIR="$TRASH/cache-bad" && export MAXCODE_CACHE_DIR &&
  expect_exit 1 "$MAXCODE_BIN" cache import bad.mcxa >out 2>err &&
  echo "imported 1 entries, 1 skipped" >expect && test_cmp expect out &&
  contains err "maxcode: import: entry 2 ($k2): checksum mismatch; skipped" &&
  ! grep "entry 1 " err &&
  echo "$k1" >expect && keys >got && test_cmp expect got &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "1 entries, 1 ok, 0 corrupt"
'

test_expect_success 'a cut archive gives what came before the cut and says where' '
  k1=$(item 1 2 "$TRASH/a.mcxa") && k2=$(item 2 2 "$TRASH/a.mcxa") &&
  off=$(item 2 3 "$TRASH/a.mcxa") && len=$(item 2 4 "$TRASH/a.mcxa") &&
  cut=$((off + len / 2)) &&
  head -c $cut "$TRASH/a.mcxa" >cut.mcxa &&
  MAXCODE_CACHE_DIR="$TRASH/cache-cut" && export MAXCODE_CACHE_DIR &&
  expect_exit 1 "$MAXCODE_BIN" cache import cut.mcxa >out 2>err &&
  echo "imported 1 entries, 0 skipped" >expect && test_cmp expect out &&
  contains err "import: archive cut short in entry 2 of 2 ($k2), at byte $cut: $((len / 2)) of $len bytes" &&
  echo "$k1" >expect && keys >got && test_cmp expect got &&
  head -c $((off - 40)) "$TRASH/a.mcxa" >cut2.mcxa &&
  MAXCODE_CACHE_DIR="$TRASH/cache-cut2" && export MAXCODE_CACHE_DIR &&
  expect_exit 1 "$MAXCODE_BIN" cache import cut2.mcxa >out 2>err &&
  echo "imported 1 entries, 0 skipped" >expect && test_cmp expect out &&
  contains err "import: archive cut short before entry 2 of 2, at byte $((off - 40))" &&
  echo "$k1" >expect && keys >got && test_cmp expect got
'

test_expect_success 'a file that is no archive is refused, and nothing stored' '
  MAXCODE_CACHE_DIR="$TRASH/cache-junk" && export MAXCODE_CACHE_DIR &&
  echo "not an archive" >junk &&
  expect_exit 1 "$MAXCODE_BIN" cache import junk >out 2>err &&
  contains err "maxcode: import: '"'"'junk'"'"': not a maxcode archive" &&
  test "$(entries)" = 0 &&
  expect_exit 2 "$MAXCODE_BIN" cache import 2>err &&
  contains err "cache import: expected one FILE"
'

test_expect_success 'export leaves a corrupt entry out and names it' '
  cp -R "$TRASH/cache-main" "$TRASH/cache-rot" &&
  MAXCODE_CACHE_DIR="$TRASH/cache-rot" && export MAXCODE_CACHE_DIR &&
  k=$(keys | head -n 1) && f=$(find "$MAXCODE_CACHE_DIR" -name "$k.mce") &&
  size=$(wc -c <"$f") && truncate -s $((size - 5)) "$f" &&
  "$MAXCODE_BIN" cache export rot.mcxa >out 2>err &&
  echo "exported 1 entries, 1 skipped" >expect && test_cmp expect out &&
  contains err "maxcode: export: entry $k: truncated entry" &&
  items rot.mcxa >items && test "$(wc -l <items)" = 1 &&
  ! grep "$k" items
'

# cache_line FILE: the cache-mode lines in FILE.
cache_line () { grep "^maxcode: cache mode:" "$1"; }

test_expect_success 'MAXCODE_MODE=cache prints one line at the end: all hits' '
  MAXCODE_CACHE_DIR="$TRASH/cache-fresh" && export MAXCODE_CACHE_DIR &&
  cd ci && rm -f hot cold &&
  MAXCODE_MODE=cache run_make >out 2>err && progs_work &&
  echo "maxcode: cache mode: 2 hits, 0 misses (0 built from the original)" \
    >expect && cache_line err >got && test_cmp expect got &&
  tail -n 1 err >last && test_cmp expect last
'

test_expect_success 'MAXCODE_MODE=cache on an empty cache: the originals, no search' '
  MAXCODE_CACHE_DIR="$TRASH/cache-empty" && export MAXCODE_CACHE_DIR &&
  project pr && cd pr &&
  run_make MAXCODE_MODE=cache >out 2>err && progs_work &&
  echo "maxcode: cache mode: 0 hits, 2 misses (2 built from the original)" \
    >expect && cache_line err >got && test_cmp expect got &&
  expect_stat misses 2 && expect_stat searches 0 && test "$(entries)" = 0 &&
  test ! -d .maxcode || test -z "$(ls .maxcode)"
'

test_expect_success 'no line in mode optimize, nor in mode cache without a call' '
  MAXCODE_CACHE_DIR="$TRASH/cache-fresh" && export MAXCODE_CACHE_DIR &&
  cd ci && rm -f hot cold &&
  run_make >out 2>err && ! cache_line err &&
  mkdir -p plain && printf "load %s\nall:\n\t@:\n" "$PLUGIN" >plain/Makefile &&
  MAXCODE_MODE=cache run_make -C plain >out 2>err && ! cache_line err
'

test_expect_success 'a recursive make: each make with calls has its own line' '
  MAXCODE_CACHE_DIR="$TRASH/cache-fresh" && export MAXCODE_CACHE_DIR &&
  mkdir top && project top/sub && cd top &&
  printf "load %s\nall:\n\t@\$(MAKE) --no-print-directory -C sub\n" \
    "$PLUGIN" >Makefile &&
  MAXCODE_MODE=cache run_make >out 2>err &&
  echo "maxcode: cache mode: 2 hits, 0 misses (0 built from the original)" \
    >expect && cache_line err >got && test_cmp expect got
'

test_expect_success 'a make that re-executes itself prints the line once' '
  MAXCODE_CACHE_DIR="$TRASH/cache-fresh" && export MAXCODE_CACHE_DIR &&
  project reexec && cd reexec &&
  printf "include dep.mk\ndep.mk:\n\techo \"# made\" >\$@\n" >>Makefile &&
  MAXCODE_MODE=cache run_make >out 2>err && test -f dep.mk && progs_work &&
  echo "maxcode: cache mode: 2 hits, 0 misses (0 built from the original)" \
    >expect && cache_line err >got && test_cmp expect got
'

test_done
