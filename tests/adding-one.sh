#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# adding-one.sh [TREE]: doc/ARCHITECTURE.md's "Adding one" table, tried.
# In a scratch copy of TREE (default: this checkout; git ls-files, so a
# git checkout), it adds
#   - a proposer: one new file, runtime/search/proposer_fixed.c (the original
#     code with a comment), its row (and extern line) in proposers[] and
#     its name in Makefile.am's sources;
#   - a strategy: one row {"gvf-flat", "gvf", plan_flat} in strategies[]:
#     the gvf ranker with the flat plan;
#   - a storage backend: runtime/store/store_dir.c (entries as files beneath
#     a directory, MAXCODE_REMOTE=dir://DIR) and its row in stores[];
# builds the copy and checks that proposer=fixed runs the new proposer
# (its manifest and journal say so), that its identity is in the key
# (proposer=fixed and builtin key apart, and the fixed proposer's
# version changes its key), and that strategy=gvf-flat searches with a
# value model that is in its key (the value model's identity changes
# the key, as it does not for strategy=flat), and that the backend
# serves a hit to a second "machine".
# It prints "ok N - ..." or "not ok N - ..." per check and exits non-zero
# when one fails. It runs as its own CI step (.ci/run), not in make
# check: it builds a second tree (a few minutes on two cores).
set -u

top=$(cd "${1:-$(dirname "$0")/..}" && pwd) || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/mc-adding-one.XXXXXX") || exit 1
keep=${MC_ADDING_ONE_KEEP:-}
cleanup () {
  if [ -n "$keep" ]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
tree=$work/tree
n=0
failed=0

# check NAME CMD...: one result line.
check () {
  local name=$1; shift
  n=$((n + 1))
  if "$@" >>"$work/checks.log" 2>&1; then
    echo "ok $n - $name"
  else
    echo "not ok $n - $name"
    failed=$((failed + 1))
  fi
}

# bail WHY: the copy cannot be built or checked; nothing further runs.
bail () {
  echo "Bail out! $1"
  [ -f "$work/build.log" ] && tail -n 30 "$work/build.log"
  exit 1
}

# ---- the scratch copy ----

# Times are kept (cp -p), and where TOP is built (its config.status),
# its compiled objects and their dependency files go along: the copy
# then compiles only what the additions change, as an incremental build
# of a checkout would (a third of this script's time otherwise, the
# whole library compiled again). A file the additions do not name is
# never compiled again, so a missing source line in Makefile.am still
# fails the link.
mkdir -p "$tree" &&
  git -C "$top" ls-files -co --exclude-standard -z |
  (cd "$top" && xargs -0 cp --parents -P -p -t "$tree" 2>/dev/null)
if [ -f "$top/config.status" ] && [ -f "$top/config.h" ]; then
  (cd "$top" && cp -p config.h "$tree/" &&
   find runtime cli plugin \( -name '*.o' -o -name '*.lo' -o \
       -name '*.Po' -o -name '*.Plo' -o -name .dirstamp -o \
       -path '*/.libs/*' \) \( -type f -o -type l \) -print0 |
   xargs -0 -r cp --parents -P -p -t "$tree") ||
    bail "cannot copy the objects of $top"
fi
[ -f "$tree/runtime/search/proposer.c" ] ||
  bail "cannot copy $top (a git checkout?)"
edited="runtime/search/proposer.c runtime/search/strategy.c \
  runtime/store/store.c Makefile.am"
mkdir -p "$work/orig" && (cd "$tree" && cp --parents $edited "$work/orig") ||
  bail "cannot keep the tables as they were"

# insert_in FILE TABLE-LINE-RE TEXT-BEFORE ROW: TEXT-BEFORE goes before
# the line that opens the table (matching the awk regular expression
# TABLE-LINE-RE) and ROW before the "};" that closes it.
insert_in () {
  awk -v re="$2" -v before="$3" -v row="$4" '
    $0 ~ re { if (before != "") print before; intable = 1 }
    intable && $0 == "};" { print row; intable = 0; done = 1 }
    { print }
    END { exit !done }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# ---- a proposer: one new file, one row ----

add_proposer () {
  cat >"$tree/runtime/search/proposer_fixed.c" <<-\EOF &&
	/* SPDX-License-Identifier: GPL-3.0-or-later */
	/*
	 * proposer_fixed.c: a proposer that proposes the original with a
	 * comment, as tests/adding-one.sh adds it.
	 */
	#include "mc_setup.h"
	#include "proposer.h"
	#include "alloc.h"
	#include "eval.h"
	#include "search.h"

	#define FIXED_VERSION "1"

	static void
	fixed_identity(const struct mc_target *t,
	               const struct mc_key_versions *v, struct mc_hash *h)
	{
	    (void)t;
	    (void)v;
	    mc_hash_field_str(h, "proposer-resolved", "fixed");
	    mc_hash_field_str(h, "fixed-version", FIXED_VERSION);
	}

	static enum mc_code
	fixed_init(struct mc_search *s, struct mc_err *err)
	{
	    (void)s;
	    (void)err;
	    return MC_OK;
	}

	static void
	fixed_release(struct mc_search *s)
	{
	    (void)s;
	}

	static enum mc_code
	fixed_propose(struct mc_search *s, const struct mc_plan *plan,
	              struct mc_proposals *out, struct mc_err *err)
	{
	    const struct mc_buf *orig = &s->ev->orig_text;
	    size_t i;

	    for (i = 0; i < plan->want && i < plan->n; i++) {
	        struct mc_proposal *p = &out->v[out->n++];

	        p->parent = plan->slot[i].parent;
	        p->label = mc_strdup("fixed");
	        mc_buf_add(&p->code, orig->s, orig->len);
	        mc_buf_addf(&p->code, "\n/* fixed %zu */\n", s->n + i);
	        if (!p->label || mc_buf_status(&p->code))
	            return mc_err_set(err, MC_ENOMEM, "out of memory");
	    }
	    return MC_OK;
	}

	static void
	fixed_critique(struct mc_search *s, size_t first, size_t n)
	{
	    (void)s;
	    (void)first;
	    (void)n;
	}

	const struct mc_proposer mc_proposer_fixed = {
	    .name = "fixed",
	    .k = 2,
	    .k_flat = 2,
	    .identity = fixed_identity,
	    .init = fixed_init,
	    .release = fixed_release,
	    .propose = fixed_propose,
	    .critique = fixed_critique,
	};
	EOF
  insert_in "$tree/runtime/search/proposer.c" \
    '^static const struct mc_proposer \*const proposers\[\] = \{' \
    'extern const struct mc_proposer mc_proposer_fixed;' \
    '    &mc_proposer_fixed,' &&
  awk '{ print }
       /runtime\/search\/proposer\.c runtime\/search\/proposer\.h \\$/ {
         print "\truntime/search/proposer_fixed.c \\"; done = 1 }
       END { exit !done }' "$tree/Makefile.am" >"$tree/Makefile.am.new" &&
  mv "$tree/Makefile.am.new" "$tree/Makefile.am"
}

# ---- a strategy: one row ----

add_strategy () {
  insert_in "$tree/runtime/search/strategy.c" \
    '^static const struct mc_strategy strategies\[\] = \{' '' \
    '    {"gvf-flat", "gvf", plan_flat},'
}

# ---- a storage backend: one new file, one row ----

# A backend "dir://DIRECTORY": each entry a file named by its object
# beneath DIRECTORY, read by the checking read, written atomically.
add_backend () {
  cat >"$tree/runtime/store/store_dir.c" <<-\EOF &&
	/* SPDX-License-Identifier: GPL-3.0-or-later */
	/*
	 * store_dir.c: entries as files beneath a directory (dir://DIR), as
	 * tests/adding-one.sh adds a storage backend.
	 */
	#include "mc_setup.h"
	#include "store.h"
	#include "alloc.h"
	#include "cache.h"
	#include "file.h"

	static const char *const dir_schemes[] = {"dir://", NULL};

	static enum mc_code
	dir_open(struct mc_store *s, const char *where,
	         const struct mc_conf *c, struct mc_err *err)
	{
	    (void)c;
	    s->state = mc_strdup(where + strlen("dir://"));
	    return s->state ? MC_OK
	                    : mc_err_set(err, MC_ENOMEM, "out of memory");
	}

	static enum mc_code
	dir_get(struct mc_store *s, const char *key, struct mc_buf *out,
	        struct mc_err *err)
	{
	    struct mc_buf obj = MC_BUF_INIT;
	    enum mc_code rc = mc_store_object(s, key, &obj);

	    mc_buf_reset(out);
	    if (rc == MC_OK)
	        rc = mc_file_read_beneath(s->state, obj.s, MC_ENTRY_MAX, out,
	                                  NULL, err);
	    mc_buf_release(&obj);
	    return rc;
	}

	static enum mc_code
	dir_put(struct mc_store *s, const char *key, const void *data,
	        size_t len, struct mc_err *err)
	{
	    struct mc_buf path = MC_BUF_INIT, obj = MC_BUF_INIT;
	    enum mc_code rc = mc_store_object(s, key, &obj);

	    if (rc == MC_OK) {
	        mc_buf_addf(&path, "%s/%s", (const char *)s->state, obj.s);
	        rc = mc_buf_status(&path);
	    }
	    if (rc == MC_OK)
	        rc = mc_file_mkdirs_for(path.s, err);
	    if (rc == MC_OK)
	        rc = mc_file_write_atomic(path.s, data, len, err);
	    mc_buf_release(&path);
	    mc_buf_release(&obj);
	    return rc;
	}

	static void
	dir_describe(const struct mc_store *s, char *out, size_t cap)
	{
	    snprintf(out, cap, "dir://%s", (const char *)s->state);
	}

	static void
	dir_close(struct mc_store *s)
	{
	    mc_free(s->state);
	    s->state = NULL;
	}

	const struct mc_store_ops mc_store_dir = {
	    .name = "dir",
	    .schemes = dir_schemes,
	    .open = dir_open,
	    .get = dir_get,
	    .put = dir_put,
	    .describe = dir_describe,
	    .close = dir_close,
	};
	EOF
  insert_in "$tree/runtime/store/store.c" \
    '^static const struct mc_store_ops \*const stores\[\] = \{' \
    'extern const struct mc_store_ops mc_store_dir;' \
    '    &mc_store_dir,' &&
  awk '{ print }
       /runtime\/store\/store\.c runtime\/store\/store\.h/ {
         print "\truntime/store/store_dir.c \\"; done = 1 }
       END { exit !done }' "$tree/Makefile.am" >"$tree/Makefile.am.new" &&
  mv "$tree/Makefile.am.new" "$tree/Makefile.am"
}

# check_backend: two "machines" (two caches, two checkouts) share a
# dir:// store: the first searches and pushes, the second only hits.
backend_hit () {
  local shared=$work/shared
  mkdir -p "$shared" &&
  project "$work/m1" ", budget=2" && project "$work/m2" ", budget=2" &&
  (cd "$work/m1" && MAXCODE_CACHE_DIR=$work/c1 \
     MAXCODE_REMOTE=dir://$shared make >make.out 2>&1) &&
  (cd "$work/m2" && MAXCODE_CACHE_DIR=$work/c2 \
     MAXCODE_REMOTE=dir://$shared make >make.out 2>&1 &&
   ./prog <t/a.in | grep -qx 12) &&
  MAXCODE_CACHE_DIR=$work/c2 "$mcbin" stats --json >"$work/c2.json" &&
  cat "$work/c2.json" &&
  json "$work/c2.json" 'd["remote_hits"] == 1 and d["searches"] == 0'
}

check_backend () {
  check "a dir:// backend: the second machine hits, with 0 searches" \
    backend_hit
  check "and an unknown scheme is still refused, naming dir://" \
    sh -c 'cd "$1" && MAXCODE_REMOTE=nosuch://x make 2>&1 |
      grep -q "dir://"' sh "$work/m2"
}

check "a proposer is one new file and one row" add_proposer
check "a strategy is one row" add_strategy
check "a storage backend is one new file and one row" add_backend
# What the additions took, line by line: nothing but new files and rows.
for f in $edited; do
  diff "$work/orig/$f" "$tree/$f" | sed -n "s|^\([<>]\) |# $f: \1 |p"
done
echo "# runtime/search/proposer_fixed.c, runtime/store/store_dir.c:" \
  "new files"

# ---- build ----

build () {
  (cd "$tree" &&
   if [ ! -x configure ] || [ Makefile.am -nt Makefile.in ]; then
     autoreconf -fi
   fi &&
   { [ -f Makefile ] || ./configure -q; } &&
   make -j"${MC_JOBS:-2}" maxcode cli/maxcode plugin/maxcode.la) \
     >>"$work/build.log" 2>&1
}
echo "# building the copy in $tree"
build || bail "the copy does not build (see above)"

mcbin=$tree/maxcode
plugin=$("$mcbin" --plugin-path) || bail "maxcode --plugin-path failed"

# ---- a project ----

# project DIR OPTIONS: a small marked unit with two inputs; OPTIONS go
# into its $(maxcode ...) call.
project () {
  rm -rf "$1" && mkdir -p "$1/src" "$1/t" &&
  cat >"$1/src/hot.c" <<-\EOF &&
	#include <stdio.h>
	int main(void)
	{
	    long n, s = 0;
	    while (scanf("%ld", &n) == 1)
	        s += 2 * n;
	    printf("%ld\n", s);
	    return 0;
	}
	EOF
  echo "1 2 3" >"$1/t/a.in" && echo "4 6" >"$1/t/b.in" &&
  printf 'load %s\nprog: $(maxcode src/hot.c, inputs=t/*.in%s)\n%b\n' \
    "$plugin" "$2" '\t$(CC) -o $@ $^' >"$1/Makefile"
}

# Every search here is short and wins nothing; its own cache, its own
# timing lock (no wait on other builds of this machine).
export MAXCODE_CACHE_DIR="$work/cache" MAXCODE_MIN_SPEEDUP=1000
export MAXCODE_TIMING_CAP=0.1 MAXCODE_TIMING_LOCK="$work/timing.lock"
export MAXCODE_COMPILER_CHECK=string:adding-one
unset MAXCODE_PROPOSER MAXCODE_STRATEGY MAXCODE_LLM_URL MAXCODE_LLM_REPLAY \
  MAXCODE_GVF_URL MAXCODE_GVF_MODEL MAXCODE_MODE 2>/dev/null

# key OPTIONS [VAR=VALUE...]: the key of the unit with OPTIONS, as
# `make -n` shows it on the search's recipe.
key () {
  local opts=$1; shift
  project "$work/k" "$opts" &&
  (cd "$work/k" && env "$@" make -n 2>&1) |
    sed -n 's/.*--key \([0-9a-f]\{32\}\).*/\1/p' | head -n 1
}

# differ A B: both keys exist and differ; same A B: both exist, equal.
differ () { echo "$1 / $2"; [ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]; }
same () { echo "$1 / $2"; [ -n "$1" ] && [ "$1" = "$2" ]; }

# json FILE EXPR: EXPR (Python, on d) is true of the JSON in FILE.
json () {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# ---- the proposer runs ----

search_with () {
  project "$work/$1" ", budget=2$2" &&
  (cd "$work/$1" && make >make.out 2>&1 && ./prog <t/a.in | grep -qx 12 &&
   "$mcbin" show src/hot.c --json >show.json)
}

check "proposer=fixed: make builds, searching with the new proposer" \
  search_with fixed ", proposer=fixed, strategy=flat"
check "its manifest names it and counts its candidates" \
  json "$work/fixed/show.json" \
  'd["proposer"] == "fixed" and d["candidates"] == 2'
check "its journal holds what it proposed" \
  sh -c 'grep -c "\"label\":\"fixed\"" "$1"/.maxcode/*/journal.jsonl |
    grep -qx 2' sh "$work/fixed"

# ---- its identity is in the key ----

k_builtin=$(key ", proposer=builtin")
k_fixed=$(key ", proposer=fixed")
check "proposer=fixed and proposer=builtin key apart" \
  differ "$k_fixed" "$k_builtin"

sed -i 's/^#define FIXED_VERSION "1"$/#define FIXED_VERSION "2"/' \
  "$tree/runtime/search/proposer_fixed.c"
build || bail "the copy does not build with FIXED_VERSION 2"
check "the fixed proposer's version changes its key" \
  differ "$(key ", proposer=fixed")" "$k_fixed"
check "and not the built-in proposer's" \
  same "$(key ", proposer=builtin")" "$k_builtin"

# ---- strategy=gvf-flat searches with a value model, in its key ----

check "strategy=gvf-flat: make builds, the search asks for a value model" \
  search_with gvfflat ", proposer=fixed, strategy=gvf-flat"
check "its manifest says how it ranked (no value model here: reward)" \
  json "$work/gvfflat/show.json" \
  'd.get("ranking") == "reward" and "value model" in d.get("ranking_note", "")'
# served MODEL: a served value model's settings (never asked: keys only).
served () {
  echo MAXCODE_GVF_URL=http://127.0.0.1:9/v1 MAXCODE_GVF_MODEL=$1
}
check "the value model's identity changes the key of strategy=gvf-flat" \
  differ "$(key ", strategy=gvf-flat" $(served v1))" \
         "$(key ", strategy=gvf-flat" $(served v2))"
check "as it does not for strategy=flat, which ranks by reward" \
  same "$(key ", strategy=flat" $(served v1))" \
       "$(key ", strategy=flat" $(served v2))"

# ---- the storage backend serves a hit ----

check_backend

echo "1..$n"
if [ "$failed" -ne 0 ]; then
  echo "# $failed of $n failed; the checks' output:"
  tail -n 40 "$work/checks.log" | sed 's/^/#   /'
  exit 1
fi
