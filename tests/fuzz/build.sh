#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/fuzz/build.sh: the body of `make fuzz`. Builds each libFuzzer
# target tests/fuzz/fuzz-NAME.c into OUT/fuzz-NAME with clang, linked
# with the runtime compiled anew with the same sanitizers (into
# OUT/libmaxcode-fuzz.a), so that coverage reaches the parsers; the
# non-instrumented libmaxcode.a is never used. An object is rebuilt when
# it is older than its source, config.h or any runtime or fuzz header.
#
#   build.sh OUT SRCDIR 'RUNTIME-SOURCES' NAME...
#
# From make: FUZZ_CC (clang), FUZZ_CFLAGS (extra flags: the libraries'
# include options), FUZZ_LIBS (the libraries), AR. The compiles and the
# links each run as many at a time as there are CPUs (nproc).
set -e

out=$1 srcdir=$2 sources=$3
shift 3
cc=${FUZZ_CC:-clang}
ar=${AR:-ar}
san='-fsanitize=address,undefined -fno-sanitize-recover=undefined'
cflags="-g -O1 -fno-omit-frame-pointer $san -DHAVE_CONFIG_H -I. \
$(for l in util code core store exec model search report; do
    printf ' -I%s/runtime/%s' "$srcdir" "$l"; done) $FUZZ_CFLAGS"

die() {
    echo "make fuzz: $*" >&2
    exit 1
}

command -v "$cc" >/dev/null 2>&1 ||
    die "'$cc' not found: the fuzz targets need clang with libFuzzer" \
        "(apt-get install clang; or make fuzz FUZZ_CC=clang-NN)"
mkdir -p "$out/obj"
# clang without its libFuzzer runtime (compiler-rt) fails here, clearly.
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n%s\n' \
    '{ (void)d; (void)n; return 0; }' > "$out/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$out/probe.c" \
    -o "$out/probe" 2> "$out/probe.log" ||
    die "'$cc' cannot build a libFuzzer target (is compiler-rt" \
        "installed?); see $out/probe.log"
rm -f "$out/probe" "$out/probe.c" "$out/probe.log"

# Whether OBJ is missing or older than SRC, config.h or a header.
stale() {
    test -f "$1" || return 0
    test -n "$(find "$2" config.h "$srcdir"/runtime/*/*.h \
        "$srcdir"/tests/fuzz/*.h -newer "$1" \
        2>/dev/null | head -n 1)"
}

# The compiles and links in flight (their pids) and how many may be.
pids= njobs=$(nproc 2>/dev/null || echo 1)

# spawn CMD...: run CMD in the background, after waiting for the ones in
# flight when there are njobs of them.
spawn() {
    if test "$(echo $pids | wc -w)" -ge "$njobs"; then
        reap
    fi
    "$@" &
    pids="$pids $!"
}

# reap: wait for every command in flight; stop if one failed.
reap() {
    bad=
    for p in $pids; do
        wait "$p" || bad=1
    done
    pids=
    test -z "$bad" || die "a compile or a link failed (see above)"
}

objs= changed=
for f in $sources; do
    case $f in *.c) ;; *) continue ;; esac
    src=$srcdir/$f
    test -f "$src" || src=$f # generated in the build tree
    o=$out/obj/$(basename "$f" .c).o
    objs="$objs $o"
    if stale "$o" "$src"; then
        echo "  CC(fuzz) $f"
        spawn $cc $cflags -fsanitize=fuzzer-no-link -c "$src" -o "$o"
        changed=1
    fi
done
reap
lib=$out/libmaxcode-fuzz.a
if test -n "$changed" || test ! -f "$lib"; then
    rm -f "$lib"
    $ar rcs "$lib" $objs
fi
for name in "$@"; do
    src=$srcdir/tests/fuzz/fuzz-$name.c
    bin=$out/fuzz-$name
    if stale "$bin" "$src" || test "$lib" -nt "$bin"; then
        echo "  CCLD(fuzz) $bin"
        spawn $cc $cflags -fsanitize=fuzzer "$src" "$lib" $FUZZ_LIBS -o "$bin"
    fi
done
reap
