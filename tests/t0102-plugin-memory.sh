#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0102-plugin-memory: maxcode.so keeps no memory per call. One make
# process expands $(maxcode ...) 10,000 times, on a cached hit, in mode
# off, and $(maxcode-marked ...) over an unmarked file; make's VmRSS may
# not grow by 256 KiB from the 1,000th call to the 10,000th (make itself
# grows by about 80 KiB there, a leak of 32 bytes a call would add 280
# KiB). Under valgrind, make with the plugin loses no memory after 200
# calls, and holds no more blocks at exit than after 20; with an ASan
# build, LeakSanitizer checks each make instead. (bench/plugin-memory
# prints the figures.)
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_LOG=quiet

mkdir src &&
printf 'int f(int x) { return x * 3 + 7; }\n' >src/f.c &&
printf 'int g(int x) { return x - 1; }\n' >src/g.c || exit 1
# CALL (hit, off or marked): the function expanded; the goal `measure`
# prints make's VmRSS in KiB before the first call and after 100, 1,000
# and 10,000; with N=COUNT, make expands it COUNT times.
tabify >Makefile <<EOF
load $PLUGIN
hit = \$(maxcode src/f.c)
off = \$(maxcode src/f.c)
marked = \$(maxcode-marked src/g.c)
rss = \$(shell awk '/^VmRSS/ {print \$\$2}' /proc/\$\$PPID/status)
ifdef N
x := \$(foreach i,\$(shell seq \$(N)),\$(if \$(\$(CALL)),))
none: ; @:
else ifdef CALL
once = \$(if \$(\$(CALL)),)
r0 := \$(rss)
x := \$(foreach i,\$(shell seq 100),\$(once))
r1 := \$(rss)
x := \$(foreach i,\$(shell seq 900),\$(once))
r2 := \$(rss)
x := \$(foreach i,\$(shell seq 9000),\$(once))
r3 := \$(rss)
measure: ; @echo \$(r0) \$(r1) \$(r2) \$(r3)
else
fill: \$(maxcode src/f.c) ; @:
endif
EOF

# mem_make ARGS...: the system make; with an ASan-built plugin, its
# runtime preloaded with leak detection on: a leak fails make.
mem_make () { MC_DETECT_LEAKS=1 run_make "$@"; }

# flat CALL MODE: 10,000 calls of CALL in mode MODE; RSS at 10,000 less
# RSS at 1,000 is under 256 KiB. Under ASan, whose allocator grows by
# some 760 KiB there whatever the call, LeakSanitizer judges instead.
flat () {
  MAXCODE_MODE=$2 mem_make -s measure CALL="$1" >rss.out &&
  read r0 r1 r2 r3 <rss.out &&
  echo "# VmRSS KiB at 0, 100, 1000, 10000 calls: $r0 $r1 $r2 $r3" &&
  { [ -n "$MC_ASAN_PRELOAD" ] || [ $((r3 - r2)) -lt 256 ]; } ||
    { echo "# grew by $((r3 - r2)) KiB from 1,000 to 10,000 calls"; false; }
}

test_expect_success 'the cache holds the unit' '
  mem_make -s fill && expect_stat stores 1 && expect_stat hits 0
'

test_expect_success '10,000 cached hits: memory stays flat' '
  flat hit optimize && expect_stat hits 10000
'

test_expect_success '10,000 calls in mode off: memory stays flat' '
  flat off off && expect_stat hits 10000 && expect_stat misses 1
'

test_expect_success '10,000 calls of maxcode-marked, no mark: memory stays flat' '
  flat marked optimize && expect_stat hits 10000
'

# vg_make CALL N: make under memcheck, N calls of CALL; prints the bytes
# definitely and indirectly lost, and the blocks in use at exit.
vg_make () {
  valgrind --leak-check=full --log-file="vg-$1-$2.log" \
    "$MC_SYSTEM_MAKE" -s none CALL="$1" N="$2" &&
  for _re in 'definitely lost: \([0-9,]*\) bytes' \
             'indirectly lost: \([0-9,]*\) bytes' \
             'in use at exit: [0-9,]* bytes in \([0-9,]*\) blocks'; do
    sed -n "s/.*$_re.*/\1/p" "vg-$1-$2.log" | tr -d ,
  done | tr '\n' ' '
}

# Under ASan, the RSS cases above ran make with LeakSanitizer on, and
# valgrind cannot run an ASan-built plugin.
if [ -z "$MC_ASAN_PRELOAD" ]; then
  if ! command -v valgrind >/dev/null; then
    test_skip 'valgrind: no memory lost per call' 'valgrind is not installed'
  else
    test_expect_success 'valgrind: no memory lost per call' '
      set -- $(vg_make hit 20) $(vg_make hit 200) &&
      echo "# lost after 20 hits: $1 + $2 bytes, after 200: $4 + $5" &&
      echo "# blocks in use at exit after 20 and 200 hits: $3 and $6" &&
      [ "$#" = 6 ] && [ "$1 $2 $4 $5" = "0 0 0 0" ] &&
      [ "$6" -le $(($3 + 5)) ] || { sed "s/^/# /" vg-hit-200.log; false; }
    '
  fi
fi

test_done
