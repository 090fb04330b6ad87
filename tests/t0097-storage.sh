#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0097-storage: storage faults end in a build that succeeds, with the
# original or a cached variant, and never with a corrupt entry served:
# a cache on a tmpfs too small for the entry (ENOSPC mid-store); a
# read-only cache (a tmpfs remounted ro: root ignores file modes); the
# cache dir and .maxcode/ removed while a search runs; a variant file
# edited by hand in .maxcode/ (found by its size and mtime, rewritten
# from the cache); a .maxcode/ too small for the search's journal; and a
# TMPDIR the sandbox's user (nobody, from root) cannot enter.
# The tests mount tmpfs file systems, so they need root (CAP_SYS_ADMIN);
# a mount that fails fails its test.
. "$MC_SRCDIR/tests/lib.sh"

# The mounts made, removed before the scratch directory is.
: >"$TRASH/.mounts"
trap 'while read -r m; do umount "$m" 2>/dev/null ||
        umount -l "$m" 2>/dev/null; done <"$TRASH/.mounts"
      cd /; rm -rf "$TRASH"' EXIT
trap 'exit 129' HUP INT TERM

# tmpfs DIR SIZE: mount a tmpfs of SIZE at DIR (made).
tmpfs () {
  mkdir -p "$1" &&
  mount -t tmpfs -o "size=$2" tmpfs "$1" &&
  echo "$1" >>"$TRASH/.mounts" || {
    echo "# cannot mount a tmpfs at $1 (root is needed)"; return 1; }
}

# Every proposal is wrong: a search is then one quick candidate, and it
# keeps (and caches) the original. Only where things are stored counts.
llm_project tpl "budget=1, critique=off" &&
llm_script wrong.json "" -- tpl/v/wrong.c &&
LLM_DELAY=2 llm_script slow.json "" -- tpl/v/wrong.c &&
stub_start wrong.json && llm_env || exit 1

# proj DIR: a project in DIR whose prog prints the sums of its inputs;
# DIR/expect.a is what it must print for t/a.in.
proj () {
  llm_project "$1" "budget=1, critique=off" &&
  echo 3000 >"$1/t/a.in" && echo 2000 >"$1/t/b.in" &&
  (cd "$1" && cc -O2 -o orig hot.c && ./orig <t/a.in >expect.a)
}

# prog_works: prog prints what the original does.
prog_works () {
  ./prog <t/a.in >out.a && test_cmp expect.a out.a
}

# entry_files DIR: the entry files and temporary files under DIR.
entry_files () { find "$1" -name "*.mce" -o -name ".*.tmp.*"; }

# wait_search: wait (two minutes at most) until the search under
# .maxcode/ has started its journal.
wait_search () {
  i=0
  while [ $i -lt 1200 ]; do
    j=$(ls .maxcode/*/journal.jsonl 2>/dev/null | head -n 1)
    [ -n "$j" ] && [ -s "$j" ] && return 0
    sleep 0.1; i=$((i + 1))
  done
  echo "# no search started"; return 1
}

# removed_mid_search DIR PATH: in a new project DIR (cd there) with its
# own cache, PATH is removed while the build's search waits on the model
# (the slow stub); the build succeeds with the right program, and the
# next build hits.
removed_mid_search () {
  proj "$1" && cd "$1" &&
  MAXCODE_CACHE_DIR=$TRASH/cache-$1 && export MAXCODE_CACHE_DIR &&
  stub_start "$TRASH/slow.json" slow-log && llm_env || return 1
  { run_make >out 2>err; echo $? >rc; } &
  mk=$!
  wait_search && rm -rf "$2" && wait $mk &&
  echo 0 >expect && test_cmp expect rc && prog_works &&
  rm prog && run_make >out 2>err && prog_works &&
  expect_stat hits 1
}

# The cache every copy of `base` hits: one entry, the original kept.
proj base &&
(cd base && MAXCODE_CACHE_DIR="$TRASH/cache-base" run_make >out 2>err) ||
  { sed 's/^/# /' base/err; echo "Bail out! the base build failed"; exit 1; }

test_expect_success 'a cache too small for the entry: the build keeps the original' '
  proj full && cd full &&
  awk "BEGIN { for (i = 0; i < 1500; i++)
    printf \"/* padding %04d: the entry outgrows the cache ........ */\\n\", i }" \
    >>hot.c && test "$(wc -c <hot.c)" -gt 65536 &&
  tmpfs "$TRASH/small" 64k &&
  MAXCODE_CACHE_DIR=$TRASH/small/cache && export MAXCODE_CACHE_DIR &&
  run_make >out 2>err && prog_works &&
  contains err "hot.c: not cached (the next build searches again): " &&
  contains err "No space left on device" &&
  test -z "$(entry_files "$TRASH/small")" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"status\"] == \"original\"" &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "0 entries, 0 ok, 0 corrupt" &&
  expect_stat searches 1 && expect_stat stores 0 && expect_stat corrupt 0
'

test_expect_success 'the same cache made roomy: no torn entry served, the next search stores' '
  cd full && MAXCODE_CACHE_DIR=$TRASH/small/cache && export MAXCODE_CACHE_DIR &&
  mount -o remount,size=4m "$TRASH/small" &&
  rm -f prog && MAXCODE_MODE=cache run_make >out 2>err && prog_works &&
  expect_stat hits 0 && expect_stat corrupt 0 &&
  rm -f prog && run_make >out 2>err && prog_works &&
  expect_stat searches 2 && expect_stat stores 1 && expect_stat corrupt 0 &&
  rm -f prog && run_make >out 2>err && prog_works &&
  expect_stat hits 1 &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "1 entries, 1 ok, 0 corrupt"
'

test_expect_success 'a read-only cache: a hit serves its variant, a miss the original' '
  cp -R base ro && cd ro && rm -rf prog .maxcode &&
  tmpfs "$TRASH/rocache" 4m &&
  cp -R "$TRASH/cache-base/." "$TRASH/rocache/" &&
  mount -o remount,ro "$TRASH/rocache" &&
  MAXCODE_CACHE_DIR=$TRASH/rocache && export MAXCODE_CACHE_DIR &&
  run_make >out 2>err && prog_works &&
  ! grep "^maxcode" err &&
  echo "/* changed */" >>hot.c &&
  run_make >out 2>err && prog_works &&
  grep "^maxcode" err >said &&
  test "$(wc -l <said)" = 1 &&
  contains said "hot.c: keeping the original (not searched" &&
  contains said "Read-only file system"
'

test_expect_success 'the cache dir removed while a search runs' '
  removed_mid_search gone "$TRASH/cache-gone" &&
  "$MAXCODE_BIN" cache verify >verify &&
  contains verify "1 entries, 1 ok, 0 corrupt"
'

test_expect_success '.maxcode/ removed while a search runs' '
  removed_mid_search work .maxcode && expect_stat stores 1
'

test_expect_success 'a variant edited by hand in .maxcode/ is rewritten' '
  cp -R base edit && cd edit && rm -rf prog .maxcode &&
  cp -R "$TRASH/cache-base" "$TRASH/cache-edit" &&
  MAXCODE_CACHE_DIR=$TRASH/cache-edit && export MAXCODE_CACHE_DIR &&
  run_make >out 2>err && prog_works &&
  v=$(ls .maxcode/*/hot.c) && cp "$v" written &&
  sed "s/return s;/return s + 1;/" written >"$v" && ! cmp -s written "$v" &&
  MAXCODE_LOG=verbose run_make >out 2>err && prog_works &&
  test_cmp written "$v" &&
  contains err "had changed since maxcode wrote it; written again from the cache" &&
  MAXCODE_LOG=verbose run_make >out 2>err &&
  ! grep "changed since" err &&
  expect_stat hits 3
'

test_expect_success 'a variant touched but not changed is left as it is' '
  cd edit && v=$(ls .maxcode/*/hot.c) &&
  touch "$v" && MAXCODE_LOG=verbose run_make >out 2>err && prog_works &&
  test_cmp written "$v" && ! grep "changed since" err
'

test_expect_success 'a .maxcode/ too small for the journal: the build goes on' '
  proj jfull && cd jfull &&
  MAXCODE_CACHE_DIR=$TRASH/cache-jfull && export MAXCODE_CACHE_DIR &&
  cp v/wrong.c big.c &&
  awk "BEGIN { for (i = 0; i < 1500; i++)
    printf \"/* padding %04d: the journal outgrows .maxcode ....... */\\n\", i }" \
    >>big.c &&
  llm_script big.json "" -- big.c && stub_start big.json big-log && llm_env &&
  tmpfs "$TRASH/jfull/.maxcode" 64k &&
  run_make >out 2>err && prog_works &&
  contains err "cannot write the journal" &&
  contains err "No space left on device" &&
  python3 -c "import json, sys
for l in open(sys.argv[1]): json.loads(l)" .maxcode/*/journal.jsonl &&
  rm prog && run_make >out 2>err && prog_works && expect_stat hits 1
'

test_expect_success 'a scratch directory the sandbox user cannot enter: the original, and why' '
  proj private && cd private &&
  MAXCODE_CACHE_DIR=$TRASH/cache-private && export MAXCODE_CACHE_DIR &&
  mkdir -m 0700 "$TRASH/private-tmp" &&
  TMPDIR=$TRASH/private-tmp run_make >out 2>err && prog_works &&
  grep "^maxcode" err >said &&
  contains said "hot.c: keeping the original (cannot measure the original: " &&
  contains said "the sandbox'"'"'s user nobody (maxcode runs as root) cannot enter '"'"'" &&
  contains said "set TMPDIR to a directory every user may enter" &&
  ! grep -i incorrect said &&
  test -z "$(ls -A "$TRASH/private-tmp")"
'

test_done
