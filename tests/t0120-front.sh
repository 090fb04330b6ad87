#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0120-front: the program installed as `maxcode` is a front (cli/front.c)
# that runs a compile maxcode leaves alone as the compiler itself, and
# execs the full program (cli/maxcode, pkglibexecdir) for everything
# else. A copy of the front with no full program beside it shows which
# is which: an unmarked compile still builds, a command needs the full
# program and says it is missing, a marked compile falls back to the
# original, and an LD_PRELOAD interposer (Bear's) makes the full
# program do the exec, so that the interposer sees it: Bear records the
# compiler's command.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
unset MAXCODE_ROOT MAXCODE_COMPDB MAXCODE_MODE LD_PRELOAD

mkdir lone &&
cp "$MC_BUILDDIR/maxcode" lone/maxcode
printf 'int twice(int x) { return 2 * x; }\n' >plain.c
printf '#pragma maxcode optimize budget=1\nint thrice(int x) { return 3 * x; }\n' \
  >marked.c
cc -O2 -c plain.c -o expect.o

test_expect_success 'the front alone compiles an unmarked file, as cc does' '
  lone/maxcode cc -O2 -c plain.c -o plain.o 2>err &&
  cmp expect.o plain.o &&
  ! test -s err
'

test_expect_success 'the front alone runs a command that is not a compile' '
  lone/maxcode cc -O2 plain.c -c -E -o plain.i 2>err &&
  grep -q twice plain.i &&
  ! test -s err
'

test_expect_success 'a subcommand needs the full program, and says it is missing' '
  expect_exit 127 lone/maxcode --version 2>err &&
  grep "maxcode: cannot run the maxcode program" err
'

test_expect_success 'a marked compile without the full program compiles the original' '
  lone/maxcode cc -O2 -c marked.c -o marked.o 2>err &&
  test -s marked.o &&
  grep "cannot run the maxcode program" err
'

test_expect_success 'a full program that is the front itself (a link) is not run' '
  mkdir -p loop/cli && cp lone/maxcode loop/maxcode &&
  ln -s ../maxcode loop/cli/maxcode &&
  expect_exit 127 timeout 20 loop/maxcode --version 2>err &&
  grep "cannot run the maxcode program" err
'

test_expect_success 'with LD_PRELOAD set, an unmarked compile goes to the full program' '
  LD_PRELOAD=" " lone/maxcode cc -O2 -c plain.c -o pre.o 2>err &&
  cmp expect.o pre.o &&
  grep "cannot run the maxcode program" err
'

test_expect_success 'bear records an unmarked compile through the launcher' '
  printf "plain.o: plain.c\n\t\$(CC) -O2 -c plain.c -o plain.o\n" \
    >Makefile &&
  rm -f plain.o compile_commands.json &&
  bear_make --force-preload CC="$MAXCODE_BIN cc" >out 2>&1 &&
  cmp expect.o plain.o &&
  python3 -c "
import json, sys
db = json.load(open(\"compile_commands.json\"))
assert len(db) == 1, db
assert db[0][\"file\"].endswith(\"/plain.c\"), db
assert \"maxcode\" not in db[0][\"arguments\"][0], db
"
'

test_expect_success 'the built front finds the full program: a command and a marked compile' '
  "$MAXCODE_BIN" --version >out &&
  grep "^maxcode " out &&
  MAXCODE_MODE=cache "$MAXCODE_BIN" cc -O2 -c marked.c -o marked2.o 2>err &&
  test -s marked2.o &&
  ! grep "cannot run" err
'

test_expect_success 'a first word neither a command nor on PATH is an unknown command' '
  expect_exit 2 "$MAXCODE_BIN" no-such-cc-here -c plain.c 2>err &&
  grep "unknown command .no-such-cc-here." err
'

test_done
