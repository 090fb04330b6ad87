#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0075-remote: the remote cache against a real HTTP server (Debian's
# nginx with WebDAV PUT, on 127.0.0.1, started here). Two "machines"
# (two cache directories, two checkouts at different paths) share a
# result through it; a server that is down costs one warning per make
# run and never the build; a read-only remote gets no PUT; a corrupted
# object is refused by its checksum; a search run through
# MAXCODE_LAUNCHER comes back through the remote; the token stays out of
# everything maxcode writes.
. "$MC_SRCDIR/tests/lib.sh"

# One candidate per search: nothing asserted here depends on how many
# (lib.sh's default is 2).
export MAXCODE_BUDGET=1

nginx_start

# project DIR [N]: N marked units (default 1) hot1.c..., each summing
# its input twice over, and a main that calls them.
hot_n () { from_data hot-n.c "I=$1"; }
project () { linked_units "$1" "${2:-1}" 20000 hot_n; }

test_expect_success 'machine A searches and fills the remote' '
  project a/proj && cd a/proj &&
  MAXCODE_REMOTE=$NGINX_URL on_machine A run_make >out 2>err &&
  on_machine A expect_stats searches 1 stores 1 remote_stores 1 \
    remote_misses 1 &&
  test -n "$(find "$NGINX_DIR/store/cache" -type f)" &&
  grep -q "\"PUT /cache/" "$NGINX_DIR/access.log"
'

test_expect_success 'machine B, elsewhere, gets it from the remote' '
  mkdir -p b/deeper && cp -R a/proj b/deeper/proj &&
  rm -rf b/deeper/proj/.maxcode b/deeper/proj/prog && cd b/deeper/proj &&
  MAXCODE_REMOTE=$NGINX_URL on_machine B run_make >out 2>err &&
  on_machine B expect_stats searches 0 remote_hits 1 &&
  test "$(stat_on B remote_bytes_in)" -gt 0 &&
  ka=$(cd "$TRASH/a/proj" && on_machine A "$MAXCODE_BIN" show hot1.c --json |
       python3 -S -c "import json,sys;print(json.load(sys.stdin)[\"key\"])") &&
  kb=$(on_machine B "$MAXCODE_BIN" show hot1.c --json |
       python3 -S -c "import json,sys;print(json.load(sys.stdin)[\"key\"])") &&
  test "$ka" = "$kb" && test -f "$TRASH/cache-B/$(echo $kb | cut -c1-2)/$(echo $kb | cut -c3-4)/$kb.mce" &&
  tail -n +2 "$TRASH/a/proj/.maxcode/$ka/hot1.c" >va &&
  tail -n +2 ".maxcode/$kb/hot1.c" >vb && test_cmp va vb &&
  ./prog <t/a.in >got && (cd "$TRASH/a/proj" && ./prog <t/a.in) >want &&
  test_cmp want got
'

test_expect_success 'mode cache on machine C: a remote hit, no search' '
  mkdir -p c && cp -R a/proj c/proj && rm -rf c/proj/.maxcode c/proj/prog &&
  cd c/proj &&
  MAXCODE_REMOTE=$NGINX_URL MAXCODE_MODE=cache on_machine C run_make \
    >out 2>err && test -x prog &&
  on_machine C expect_stats searches 0 remote_hits 1
'

test_expect_success 'a read-only remote gets no PUT' '
  project ro && cd ro && sed -i "s/+ \\\$_i/+ 5/; s/% 13/% 11/" hot1.c &&
  : >"$NGINX_DIR/access.log" &&
  MAXCODE_REMOTE="$NGINX_URL|read-only" on_machine RO run_make >out 2>err &&
  on_machine RO expect_stats searches 1 stores 1 remote_stores 0 &&
  grep -q "\"GET /cache/" "$NGINX_DIR/access.log" &&
  ! grep -q "\"PUT " "$NGINX_DIR/access.log"
'

test_expect_success 'a corrupted remote object is refused and counted' '
  obj=$(find "$NGINX_DIR/store/cache" -type f | head -n 1) &&
  python3 -S -c "import sys; p = sys.argv[1]
b = bytearray(open(p, \"rb\").read());
b[len(b) // 2] ^= 0xff; open(p, \"wb\").write(bytes(b))" "$obj" &&
  mkdir -p d && cp -R a/proj d/proj && rm -rf d/proj/.maxcode d/proj/prog &&
  cd d/proj &&
  MAXCODE_REMOTE=$NGINX_URL MAXCODE_MODE=cache on_machine D run_make \
    >out 2>err && test -x prog &&
  on_machine D expect_stats remote_corrupt 1 searches 0 &&
  contains err "is corrupt" &&
  MAXCODE_REMOTE=$NGINX_URL on_machine E run_make -B >out2 2>err2 &&
  on_machine E expect_stats remote_corrupt 1 searches 1
'

# The second make run, a new machine's, shows that each run warns once:
# its three lookups fail as the first run's lookups and stores did, and
# it searches nothing (MAXCODE_MODE=cache) to show it.
test_expect_success 'the server down: the build goes on, one warning' '
  project down 3 && cd down &&
  MAXCODE_REMOTE=http://127.0.0.1:9/cache on_machine DOWN run_make -j3 \
    >out 2>err && test -x prog &&
  test "$(grep -c "warning: remote" err)" = 1 &&
  test "$(stat_on DOWN searches)" = 3 &&
  test "$(stat_on DOWN remote_errors)" -ge 1 &&
  rm -rf .maxcode prog &&
  MAXCODE_REMOTE=http://127.0.0.1:9/cache MAXCODE_MODE=cache \
    on_machine DOWN2 run_make -j3 >out2 2>err2 && test -x prog &&
  test "$(grep -c "warning: remote" err2)" = 1
'

test_expect_success 'a search through MAXCODE_LAUNCHER comes back' '
  project l && cd l && sed -i "s/% 13/% 17/" hot1.c &&
  cat >launch.sh <<-EOF &&
	#!/bin/sh
	# a node of its own: a private cache, only the remote shared
	echo "launched: \$*" >>"$TRASH/l/launched"
	MAXCODE_CACHE_DIR="$TRASH/node-cache" exec "\$@"
	EOF
  chmod +x launch.sh &&
  MAXCODE_REMOTE=$NGINX_URL MAXCODE_LAUNCHER="$TRASH/l/launch.sh" \
    on_machine L run_make >out 2>err && test -x prog &&
  contains launched "optimize --key" &&
  on_machine L expect_stats searches 0 remote_hits 1 &&
  test "$(stat_on NODE searches)" = 0 &&
  MAXCODE_CACHE_DIR="$TRASH/node-cache" "$MAXCODE_BIN" stats --json |
    python3 -S -c "import json,sys; j = json.load(sys.stdin);
assert j[\"searches\"] == 1 and j[\"remote_stores\"] == 1, j"
'

test_expect_success 'the token authenticates and is written nowhere' '
  nginx_stop && nginx_start "$TRASH/nginx-auth" s3cr3t-t0k3n &&
  project tok && cd tok && sed -i "s/% 13/% 19/" hot1.c &&
  MAXCODE_REMOTE=$NGINX_URL MAXCODE_REMOTE_TOKEN=wrong \
    on_machine T1 run_make >out 2>err &&
  contains err "HTTP status 401" && ! grep -q wrong err &&
  rm -rf .maxcode prog &&
  MAXCODE_REMOTE=$NGINX_URL MAXCODE_REMOTE_TOKEN=s3cr3t-t0k3n \
    MAXCODE_LOG=verbose on_machine T2 run_make >out2 2>err2 &&
  test "$(stat_on T2 remote_stores)" = 1 &&
  MAXCODE_REMOTE=$NGINX_URL MAXCODE_REMOTE_TOKEN=s3cr3t-t0k3n \
    on_machine T2 run_make -n >dry 2>&1 &&
  ! grep -rq s3cr3t-t0k3n out2 err2 dry .maxcode "$TRASH/cache-T2" \
    "$NGINX_DIR/access.log"
'

test_done
