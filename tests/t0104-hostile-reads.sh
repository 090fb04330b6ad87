#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0104-hostile-reads: files that someone else placed are read without
# following links, only when regular, and up to a cap (issue 25,
# findings 3 and 4). A candidate that leaves compare=file:NAME as a link
# to a file outside the project, a FIFO, a link to /dev/zero, or a file
# under a directory that is a link, is judged incorrect with the reason,
# the evaluation ends, and the outside text is nowhere; an original that
# does so cannot judge, and says why. A hostile cache directory (FIFOs,
# links to /dev/zero, links to an outside file in place of the entries,
# stats, the compiler, native, CUDA and builtin probes, the wins file and
# the value model): `make -n` finishes within 10 s with make's peak
# memory under 100 MB and each bad file reported; `make` searches again
# and builds a program that works; the entries count as corrupt.
. "$MC_SRCDIR/tests/lib.sh"

# The timing decides nothing asserted here: its rounds keep lib.sh's
# shortest cap. One candidate per search: what is asserted is that make
# searches again and builds programs that work, not what it kept.
export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_BUDGET=1
unset CC CPPFLAGS LDFLAGS CFLAGS
MARK=OUTSIDE-TEXT-5e1d7
OUT=$TRASH/outside
mkdir -p "$OUT" && chmod 755 "$OUT" &&
printf '%s\n' "$MARK" >"$OUT/secret.txt" && chmod 644 "$OUT/secret.txt" ||
  exit 1

# ---- finding 3: compare=file: read back from a run directory ----

# The original writes out.txt; a candidate's main() is BODY.
cat >orig.c <<'EOF'
#include <stdio.h>
int main(void)
{
    FILE *f = fopen("out.txt", "w");
    if (!f)
        return 1;
    fprintf(f, "answer 42\n");
    return fclose(f) != 0;
}
EOF
# candidate NAME BODY: NAME.c, whose main() runs BODY and exits 0.
candidate () {
  cat >"$1.c" <<EOF
#include <sys/stat.h>
#include <unistd.h>
int main(void)
{
    $2
    return 0;
}
EOF
}
candidate link "if (symlink(\"$OUT/secret.txt\", \"out.txt\")) return 1;"
candidate fifo 'if (mkfifo("out.txt", 0666)) return 1;'
candidate zero 'if (symlink("/dev/zero", "out.txt")) return 1;'
candidate subdir "if (symlink(\"$OUT\", \"sub\")) return 1;"
sed -e 's|"out.txt"|"sub/secret.txt"|' \
  -e 's|^{$|{ mkdir("sub", 0777);|' -e '1i #include <sys/stat.h>' \
  orig.c >sub.c || exit 1

# judge CAND [OPTION...]: `maxcode eval orig.c CAND.c compare=file:...`
# under a timeout, its JSON into CAND.json; a hang fails.
judge () {
  c=$1; shift
  timeout 60 "$MAXCODE_BIN" eval orig.c "$c.c" compare=file:out.txt \
    "$@" --json >"$c.json" 2>"$c.err"
  rc=$?
  [ "$rc" != 124 ] || { echo "# maxcode eval $c.c hung"; return 1; }
  [ -s "$c.json" ] || { echo "# no JSON (exit $rc)"; cat "$c.err"; return 1; }
}

# nowhere FILE...: the outside text is in none of the files, the cache,
# nor make's directory (links not followed).
nowhere () {
  ! grep -l "$MARK" "$@" &&
  ! grep -rl "$MARK" "$MAXCODE_CACHE_DIR" . --exclude-dir=outside
}

test_expect_success 'compare=file: a link to an outside file is incorrect' '
  judge link &&
  json link.json "j[\"verdict\"] == \"incorrect\"" \
    "\"file '\''out.txt'\'' is a symbolic link\" in j[\"detail\"]" &&
  nowhere link.json link.err
'

test_expect_success 'compare=file: a FIFO is incorrect, no hang' '
  judge fifo &&
  json fifo.json "j[\"verdict\"] == \"incorrect\"" \
    "\"file '\''out.txt'\'' is a FIFO\" in j[\"detail\"]"
'

test_expect_success 'compare=file: a link to /dev/zero is incorrect, unread' '
  judge zero &&
  json zero.json "j[\"verdict\"] == \"incorrect\"" \
    "\"file '\''out.txt'\'' is a symbolic link\" in j[\"detail\"]"
'

test_expect_success 'compare=file: a directory on the way that is a link' '
  timeout 60 "$MAXCODE_BIN" eval sub.c subdir.c compare=file:sub/secret.txt \
    --json >subdir.json 2>subdir.err
  test $? != 124 &&
  json subdir.json "j[\"verdict\"] == \"incorrect\"" \
    "\"'\''sub'\'' is a symbolic link\" in j[\"detail\"]" &&
  nowhere subdir.json subdir.err
'

test_expect_success 'an original that leaves a FIFO cannot judge, says why' '
  timeout 60 "$MAXCODE_BIN" eval fifo.c orig.c compare=file:out.txt \
    --json >ref.json 2>ref.err
  test $? != 124 &&
  contains ref.err "the original leaves no file that compare=file: can read" &&
  contains ref.err "'\''out.txt'\'' is a FIFO"
'

# ---- finding 4 and acceptance point 2: a hostile cache directory ----

# The project: two units (one with isa=native, so that a native probe is
# remembered), and, with DRY=1 (for `make -n`), a CUDA unit and a unit
# with strategy=gvf, whose keys make's thread computes from the device
# probe and the value model. `peak` prints make's peak RSS in KiB once
# every call has been expanded.
mkdir -p proj && cd proj && sample_unit . &&
cp src/hot.c src/hot2.c && cp src/hot.c src/hot3.c &&
printf '__global__ void k(float *x) { x[0] = 1; }\nint main(void) { return 0; }\n' \
  >src/k.cu || exit 1
tabify >Makefile <<EOF
load $PLUGIN
all: prog prog2
prog: \$(maxcode src/hot.c, inputs=t/*.in)
>\$(CC) \$(CFLAGS) -o \$@ \$^
prog2: \$(maxcode src/hot2.c, isa=native, inputs=t/*.in)
>\$(CC) \$(CFLAGS) -march=native -o \$@ \$^
ifdef DRY
kern: \$(maxcode src/k.cu)
>nvcc -o \$@ \$^
prog3: \$(maxcode src/hot3.c, strategy=gvf, inputs=t/*.in)
>\$(CC) \$(CFLAGS) -o \$@ \$^
endif
peak: all \$(if \$(DRY),kern prog3)
>@echo peak \$(shell awk '/^VmHWM/ {print \$\$2}' /proc/\$\$PPID/status)
EOF
cd .. || exit 1

# prog_works DIR PROG: the program gives the right sums.
prog_works () {
  "$1/$2" <proj/t/a.in >got.a && echo 12 >want.a && test_cmp want.a got.a &&
  "$1/$2" <proj/t/b.in >got.b && echo 20 >want.b && test_cmp want.b got.b
}

# The cache as a build leaves it, and the names of the files that are
# read in make's thread and by the search, besides the entries.
MACHINE=$(head -n 1 /etc/machine-id 2>/dev/null)
[ -n "$MACHINE" ] || MACHINE=$(hostname)
BOOT=$(head -n 1 /proc/sys/kernel/random/boot_id 2>/dev/null)
CUDA_PROBE=cuda/$MACHINE-${BOOT:-boot}.json
GOOD=$TRASH/cache-good

test_expect_success 'a build fills the cache (entries, stats, probes)' '
  cp -R proj fill && cd fill &&
  MAXCODE_CACHE_DIR=$GOOD && export MAXCODE_CACHE_DIR &&
  run_make >out 2>err && rm prog2 && run_make >out 2>err &&
  cd .. && prog_works fill prog && prog_works fill prog2 &&
  test "$(find "$GOOD" -name "*.mce" | wc -l)" = 2 &&
  test -f "$GOOD/stats" && ls "$GOOD"/compilers/*.id "$GOOD"/probes/* \
    "$GOOD"/native/*.arch >/dev/null &&
  ( cd fill && "$MAXCODE_BIN" show src/hot.c --json ) >hot.json &&
  key=$(json_get hot.json "d[\"key\"]") &&
  echo "$key" | sed "s|^\(..\)\(..\)|\1/\2/&|; s|$|.mce|" >hot-entry &&
  test -f "$GOOD/$(cat hot-entry)"
'
HOT_ENTRY=$(cat hot-entry 2>/dev/null)

# hostile KIND DIR: a copy of the good cache at DIR where each file but
# the locks, and the wins file, the value model and the CUDA probe, is
# KIND: fifo, zero (a link to /dev/zero) or out (a link to the outside
# file). The names replaced, relative to DIR, go to DIR.list.
hostile () {
  rm -rf "$2" && cp -R "$GOOD" "$2" &&
  mkdir -p "$2/gvf" "$2/cuda" &&
  touch "$2/builtin-wins" "$2/gvf/model" "$2/$CUDA_PROBE" &&
  ( cd "$2" && find . -type f ! -name "*.lock" | sed "s|^\./||" ) \
    >"$2.list" &&
  while read -r f; do
    rm -f "$2/$f" &&
    case $1 in
      fifo) mkfifo "$2/$f" ;;
      zero) ln -s /dev/zero "$2/$f" ;;
      out) ln -s "$OUT/secret.txt" "$2/$f" ;;
    esac || return 1
  done <"$2.list"
}

# dry KIND: `make -n` over a hostile cache of KIND finishes within 10 s,
# make's peak RSS stays under 100 MB, each bad file that make reads is
# reported once (all but the search's probes/ and builtin-wins; of the
# entries, the one of src/hot.c: src/hot2.c's key needs the native probe,
# itself bad), counted when it is an entry, and the outside text is
# nowhere.
dry () {
  C=$TRASH/cache-dry-$1 && hostile "$1" "$C" &&
  rm -rf "dry-$1" && cp -R proj "dry-$1" && cd "dry-$1" &&
  MAXCODE_CACHE_DIR=$C && export MAXCODE_CACHE_DIR &&
  run_make_within 10 -n peak DRY=1 >out 2>err
  rc=$?
  cat err | sed "s/^/# /"
  [ "$rc" = 0 ] || { echo "# make -n exited $rc (124: it hung)"; return 1; }
  kib=$(sed -n "s/^echo peak //p" out) &&
  echo "# make -n peak RSS: $kib KiB" &&
  [ -n "$kib" ] && [ "$kib" -lt 102400 ] &&
  for f in $(grep -v -e "^probes/" -e "^builtin-wins" -e "\.mce$" \
               "$C.list") "$HOT_ENTRY"; do
    case $f in
      *.mce) n=$(grep -c "removing corrupt cache entry .*: '$f' is " err) ;;
      *) n=$(grep -c "ignoring a file in the cache directory .*: '$f' is " err) ;;
    esac
    [ "$n" = 1 ] || { echo "# $f reported $n times"; return 1; }
  done &&
  ! grep -l "$MARK" out err && ! grep -rl "$MARK" . "$C" &&
  expect_stat corrupt 1
}

# build KIND: `make` over a fresh hostile cache of KIND searches again
# (src/hot2.c keeps the original while its native architecture is
# resolved anew) and builds programs that work; the probes the search
# reads are reported too, and the outside text is nowhere.
build () {
  C=$TRASH/cache-build-$1 && hostile "$1" "$C" &&
  rm -rf "build-$1" && cp -R proj "build-$1" && cd "build-$1" &&
  MAXCODE_CACHE_DIR=$C && export MAXCODE_CACHE_DIR &&
  run_make_within 120 >out 2>err
  rc=$?
  [ "$rc" = 0 ] || { echo "# make exited $rc"; sed "s/^/# /" err; return 1; }
  cd .. && prog_works "build-$1" prog && prog_works "build-$1" prog2 &&
  cd "build-$1" &&
  contains err "cache directory '$C': 'builtin-wins' is " &&
  contains err "cache directory '$C': 'probes/" &&
  ! grep -l "$MARK" out err && ! grep -rl "$MARK" . "$C" &&
  test "$(stat_of searches)" -ge 1
}

test_expect_success 'hostile cache, FIFOs: make -n ends, bounded, reports' '
  dry fifo
'
test_expect_success 'hostile cache, links to /dev/zero: make -n ends' '
  dry zero
'
test_expect_success 'hostile cache, links outside: make -n, nothing leaks' '
  dry out
'
test_expect_success 'hostile cache, FIFOs: make searches and builds' '
  build fifo
'
test_expect_success 'hostile cache, links to /dev/zero: make builds' '
  build zero
'
test_expect_success 'hostile cache, links outside: make builds, no leak' '
  build out
'

test_done
