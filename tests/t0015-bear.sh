#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0015-bear: flags that only the compile DB carries reach the variant's
# compile, and maxcode's own compiles never land in a DB Bear records.
. "$MC_SRCDIR/tests/lib.sh"

# One candidate per search: nothing asserted here depends on how many
# (lib.sh's default is 2).
export MAXCODE_BUDGET=1

export MAXCODE_CACHE_DIR="$TRASH/cache"
mkdir -p src
cat >src/hot.c <<'EOC'
#include <stdio.h>
#ifdef ONLY_IN_DB
#include "dbonly.h"
#endif
int main(void) { puts("hi"); return 0; }
EOC
echo '/* only with -DONLY_IN_DB */' >src/dbonly.h
printf 'load %s\nCFLAGS = -O2\nprog: $(maxcode src/hot.c)\n\t$(CC) $(CFLAGS) $(EXTRA) -o $@ $^\n' "$PLUGIN" >Makefile

# check_db: the DB holds just the user's compile of the variant.
cat >check_db.py <<'EOS'
import json
db = json.load(open("compile_commands.json"))
assert len(db) == 1, db
args = db[0]["arguments"]
assert "-MM" not in args, args
assert "-DONLY_IN_DB" in args, args
assert db[0]["file"].endswith("/hot.c") and "/.maxcode/" in db[0]["file"], db
EOS

test_expect_success 'bear --force-wrapper -- make records only the user compile' '
  bear_make --force-wrapper EXTRA=-DONLY_IN_DB >out 2>&1 &&
  python3 check_db.py &&
  ! grep "does not preprocess" out &&
  rm -rf compile_commands.json .maxcode prog "$MAXCODE_CACHE_DIR"
'

# Bear's default mode preloads a library, which it puts ahead of the ASan
# runtime; make then cannot load an ASan-built plugin. So an ASan build
# runs this second pass in wrapper mode too; a plain build tests preload
# mode, whose defence is the raw execve in runtime/util/spawn.c.
if [ -n "$MC_ASAN_PRELOAD" ]; then mode=--force-wrapper
else mode=--force-preload; fi

test_expect_success "bear $mode -- make records only the user compile" '
  bear_make $mode EXTRA=-DONLY_IN_DB >out 2>&1 &&
  python3 check_db.py
'

test_expect_success 'the next make takes -DONLY_IN_DB from the DB' '
  rm -f prog &&
  run_make >out 2>&1 &&
  "$MAXCODE_BIN" show src/hot.c --json >m &&
  python3 -c "
import json
m = json.load(open(\"m\"))
assert \"-DONLY_IN_DB\" in m[\"flags\"], m[\"flags\"]
assert \"-c\" not in m[\"flags\"] and \"-o\" not in m[\"flags\"], m[\"flags\"]
assert \"src/dbonly.h\" in m[\"includes\"], m[\"includes\"]
"
'

test_expect_success 'a header only the DB flags include invalidates the entry' '
  run_make >/dev/null 2>&1 &&
  "$MAXCODE_BIN" stats --json >before &&
  echo "/* changed */" >>src/dbonly.h &&
  rm -f prog && run_make >/dev/null 2>&1 &&
  "$MAXCODE_BIN" stats --json >after &&
  python3 -c "
import json
b, a = json.load(open(\"before\")), json.load(open(\"after\"))
assert a[\"searches\"] == b[\"searches\"] + 1, (b, a)
"
'

test_expect_success 'MAXCODE_COMPDB names another DB' '
  mkdir -p db && mv compile_commands.json db/ &&
  rm -f prog && MAXCODE_COMPDB=db/compile_commands.json run_make >/dev/null 2>&1 &&
  "$MAXCODE_BIN" show src/hot.c --json | grep -q ONLY_IN_DB
'

test_done
