#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0105-remote-trust: what comes back from a remote cache, and what goes
# to one (issue 25, findings 6, 10 and 11).
#  6. A server that answers without end (an entry with no length, one
#     announced as 1 TiB, an error page, the answer to a PUT) is cut off:
#     maxcode's memory stays far below what the stream would take, the
#     answer is a miss or a remote error with one line saying so, and the
#     build uses the original or searches (tests/hostile-remote.py).
# 10. Credentials in MAXCODE_REMOTE are refused, at the caller's line when
#     the setting comes from make and by `maxcode config`, without the
#     password in the message; a token goes over http:// only to the
#     loopback, unless MAXCODE_REMOTE_INSECURE=1.
# 11. An entry pushed to a remote (nginx, tests/nginx-cache.sh) or
#     exported names no path of the writer's ($TRASH): its manifest's
#     paths are relative to make's directory, it is a valid entry under
#     the same key, a second machine hits it, and `show` and `bench` find
#     its source there; the writer's local entry keeps the absolute path.
. "$MC_SRCDIR/tests/lib.sh"

TOKEN=t0k3n-105
nginx_start "$TRASH/nginx" "$TOKEN"

# project DIR: one marked unit hot1.c summing its input 40 times over,
# and a main that calls it.
project () {
  mkdir -p "$1/t" && printf '1 2 3\n' >"$1/t/a.in" &&
  cat >"$1/hot1.c" <<-\EOF &&
	long
	hot1(long n)
	{
	    long s = 0;
	    for (long r = 0; r < 40; r++)
	        for (long i = 0; i < n; i++)
	            s += (i * 7 + r + 1) % 13;
	    return s;
	}
	EOF
  printf '%s\n' '#include <stdio.h>' 'long hot1(long);' \
    'int main(void) { long n = 0, x;' \
    '  while (scanf("%ld", &x) == 1) n += x * 20000;' \
    '  printf("%ld\n", hot1(n)); return 0; }' >"$1/main.c" &&
  printf '%s\n' "load $PLUGIN" \
    'prog: $(maxcode hot1.c, link=main.c, inputs=t/a.in) main.c' \
    '>$(CC) -O2 -o $@ $^' | tabify >"$1/Makefile"
}

# peak_make FILE MAKE-ARGS...: run_make, with the most memory that any
# one of its processes held (KiB, the largest maximum resident set among
# make and the processes it waited for) written to FILE.
peak_make () {
  _pk=$1; shift
  set -- "$MC_SYSTEM_MAKE" --no-print-directory "$@"
  [ -z "$MC_ASAN_PRELOAD" ] ||
    set -- env LD_PRELOAD="$MC_ASAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0 "$@"
  python3 -S -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write("%d\n" % peak)
sys.exit(rc)' "$_pk" "$@"
}

# Well below the 1 GB and more that an endless answer grew maxcode to in
# its 6 s, well above the 64 MiB of the largest entry (with ASan's
# overhead).
MEM_BOUND_KB=409600

# mem_bounded FILE: FILE (from peak_make) is under MEM_BOUND_KB.
mem_bounded () {
  [ "$(cat "$1")" -lt "$MEM_BOUND_KB" ] ||
    { echo "# peak memory $(cat "$1") KiB, over $MEM_BOUND_KB"; return 1; }
}

# hostile_start MODE: tests/hostile-remote.py in MODE; HOSTILE_URL is its
# cache, HOSTILE_PID its process, stopped by hostile_stop and, failing
# that, when the shell that started it exits.
hostile_start () {
  rm -f "$TRASH/hostile.port"
  _stub_arm
  python3 -S "$MC_SRCDIR/tests/hostile-remote.py" "$1" "$TRASH/hostile.port" \
    </dev/null >"$TRASH/hostile.err" 2>&1 &
  HOSTILE_PID=$!
  _stub_pids="$_stub_pids $HOSTILE_PID"
  _h_i=0
  while [ ! -s "$TRASH/hostile.port" ]; do
    if [ "$_h_i" -ge 100 ] || ! kill -0 "$HOSTILE_PID" 2>/dev/null; then
      sed 's/^/# /' "$TRASH/hostile.err"; return 1
    fi
    sleep 0.1; _h_i=$((_h_i + 1))
  done
  HOSTILE_URL=http://127.0.0.1:$(cat "$TRASH/hostile.port")/cache
}

hostile_stop () {
  kill "$HOSTILE_PID" 2>/dev/null
  wait "$HOSTILE_PID" 2>/dev/null
  HOSTILE_PID=
}

# ---- 6. answers without end ----

# Each remote transfer may take 6 s: an unbounded reader holds what
# arrives in that time.
export MAXCODE_REMOTE_TIMEOUT=6

test_expect_success '6: an entry without end is cut off at 64 MiB' '
  project e1 && cd e1 && hostile_start entry &&
  MAXCODE_REMOTE=$HOSTILE_URL MAXCODE_MODE=cache on_machine E1 \
    peak_make mem >out 2>err; st=$?; hostile_stop &&
  test "$st" = 0 && test -x prog && mem_bounded mem &&
  contains err "the answer is larger than any entry (64 MiB); cut off" &&
  test "$(grep -c "larger than any entry" err)" = 1 &&
  on_machine E1 expect_stats remote_corrupt 1 remote_hits 0
'

test_expect_success '6: an entry announced as 1 TiB is refused; the build searches' '
  project e2 && cd e2 && hostile_start entry-length &&
  MAXCODE_REMOTE=$HOSTILE_URL on_machine E2 peak_make mem >out 2>err
  st=$?; hostile_stop &&
  test "$st" = 0 && test -x prog && mem_bounded mem &&
  contains err "the answer is larger than any entry (64 MiB); cut off" &&
  on_machine E2 expect_stats remote_corrupt 1 searches 1
'

test_expect_success '6: an error page without end is cut off; its status decides' '
  project e3 && cd e3 && hostile_start error &&
  MAXCODE_REMOTE=$HOSTILE_URL MAXCODE_MODE=cache on_machine E3 \
    peak_make mem >out 2>err; st=$?; hostile_stop &&
  test "$st" = 0 && test -x prog && mem_bounded mem &&
  contains err "HTTP status 500; going on without the remote cache" &&
  test "$(stat_on E3 remote_errors)" = 1
'

test_expect_success '6: the answer to a PUT is cut off at 4 KiB' '
  project e4 && cd e4 && hostile_start put &&
  MAXCODE_REMOTE=$HOSTILE_URL on_machine E4 peak_make mem >out 2>err
  st=$?; hostile_stop &&
  test "$st" = 0 && test -x prog && mem_bounded mem &&
  on_machine E4 expect_stats searches 1 stores 1 remote_stores 0 \
    remote_errors 1 &&
  contains err "HTTP status 201 with an answer over 4096 bytes; cut off"
'

unset MAXCODE_REMOTE_TIMEOUT

# ---- 10. credentials ----

PW=pw-s3cr3t-105

test_expect_success '10: a password in MAXCODE_REMOTE is refused at the caller line' '
  project c1 && cd c1 &&
  { echo "MAXCODE_REMOTE = http://mc-user:$PW@127.0.0.1:$NGINX_PORT/cache" &&
    cat Makefile; } >M && mv M Makefile &&
  : >"$NGINX_DIR/access.log" &&
  expect_exit 2 run_make -n >out 2>err &&
  contains err "Makefile:3: *** maxcode: make variable MAXCODE_REMOTE:" &&
  contains err "MAXCODE_REMOTE=http://***@127.0.0.1:$NGINX_PORT: a user name or password in the URL is refused" &&
  contains err "put a bearer token in MAXCODE_REMOTE_TOKEN instead" &&
  expect_exit 2 on_machine C1 run_make >out2 2>err2 &&
  contains err2 "a user name or password in the URL is refused" &&
  ! test -e prog && ! test -e .maxcode &&
  ! grep -rqF "$PW" out err out2 err2 "$NGINX_DIR/access.log" &&
  ! { test -e "$TRASH/cache-C1" && grep -rqF "$PW" "$TRASH/cache-C1"; } &&
  ! grep -q "PUT\|GET" "$NGINX_DIR/access.log"
'

test_expect_success '10: maxcode config refuses a password from the environment or a file' '
  mkdir c2 && cd c2 &&
  MAXCODE_REMOTE="https://mc-user:$PW@cache.example/x|read-only" \
    expect_exit 1 "$MAXCODE_BIN" config >out 2>err &&
  contains err "environment: MAXCODE_REMOTE=https://***@cache.example: a user name or password in the URL is refused" &&
  MAXCODE_REMOTE="http://$PW@cache.example/x" \
    expect_exit 1 "$MAXCODE_BIN" config --json >out2 2>err2 &&
  contains err2 "MAXCODE_REMOTE_TOKEN" &&
  echo "MAXCODE_REMOTE = http://mc-user:$PW@cache.example/x" >maxcode.conf &&
  expect_exit 1 "$MAXCODE_BIN" config >out3 2>err3 &&
  contains err3 "maxcode.conf:1: MAXCODE_REMOTE=http://***@cache.example:" &&
  ! grep -qF "$PW" out err out2 err2 out3 err3 &&
  rm maxcode.conf &&
  MAXCODE_REMOTE=http://cache.example/x@y "$MAXCODE_BIN" config >ok &&
  grep -q "^MAXCODE_REMOTE *= http://cache.example/x@y" ok
'

test_expect_success '10: a token over http:// goes only to the loopback' '
  project c3 && cd c3 && : >"$NGINX_DIR/access.log" &&
  MAXCODE_REMOTE=http://0.0.0.0:$NGINX_PORT/cache MAXCODE_REMOTE_TOKEN=$TOKEN \
    on_machine C3 run_make >out 2>err && test -x prog &&
  contains err "MAXCODE_REMOTE_TOKEN is not sent to http://0.0.0.0:$NGINX_PORT/cache: over http:// to a host outside the loopback anyone on the way can read it; use https://, or MAXCODE_REMOTE_INSECURE=1" &&
  on_machine C3 expect_stats searches 1 remote_errors 1 remote_stores 0 &&
  ! test -s "$NGINX_DIR/access.log" && ! grep -rqF "$TOKEN" out err &&
  rm -rf .maxcode prog &&
  MAXCODE_REMOTE=http://0.0.0.0:$NGINX_PORT/cache MAXCODE_REMOTE_TOKEN=$TOKEN \
    MAXCODE_REMOTE_INSECURE=1 on_machine C3B run_make >out2 2>err2 &&
  test "$(stat_on C3B remote_stores)" = 1 &&
  grep -q "\"PUT /cache/" "$NGINX_DIR/access.log" &&
  rm -rf .maxcode prog &&
  MAXCODE_REMOTE=http://localhost:$NGINX_PORT/cache MAXCODE_REMOTE_TOKEN=$TOKEN \
    MAXCODE_MODE=cache on_machine C3C run_make >out3 2>err3 &&
  test "$(stat_on C3C remote_hits)" = 1
'

# ---- 11. what a shared entry names ----

# A search that keeps a variant (the model stub's fast.c; instructions,
# so that it is kept however busy the machine is), on machine A in
# $TRASH/w/a, pushed to nginx. The model settings stay for the other
# machines (the key names the model); they only look up.
export MAXCODE_METRIC=instructions
mkdir -p w &&
llm_project w/a "budget=1" && llm_small w/a && llm_script s.json CRIT -- w/a/v/fast.c &&
stub_start s.json && llm_env &&
(cd w/a && MAXCODE_REMOTE=$NGINX_URL MAXCODE_REMOTE_TOKEN=$TOKEN \
  on_machine A run_make >../a.out 2>&1)
stub_stop

test_expect_success '11: a pushed entry names no path of the writer' '
  test "$(stat_on A remote_stores)" = 1 &&
  obj=$(find "$NGINX_DIR/store/cache" -type f -newer "$TRASH/s.json") &&
  test "$(echo "$obj" | wc -l)" = 1 &&
  ! grep -qF "$TRASH" "$obj" && grep -qa "\"source_path\":[[:space:]]*\"hot.c\"" "$obj" &&
  (cd w/a && on_machine A "$MAXCODE_BIN" show hot.c --json) >m &&
  json m "j[\"source_path\"] == \"$TRASH/w/a/hot.c\"" \
    "j[\"status\"] == \"optimized\"" &&
  test "$(json_get m "d[\"key\"]")" = "$(basename "$obj")"
'

test_expect_success '11: a second machine hits it; show and bench find the source' '
  mkdir -p w/b && cp -R w/a w/b/a && rm -rf w/b/a/.maxcode w/b/a/prog &&
  cd w/b/a &&
  MAXCODE_REMOTE=$NGINX_URL MAXCODE_REMOTE_TOKEN=$TOKEN MAXCODE_MODE=cache \
    on_machine B run_make >out 2>err && test -x prog &&
  on_machine B expect_stats remote_hits 1 searches 0 &&
  on_machine B "$MAXCODE_BIN" cache verify >vfy 2>&1 &&
  on_machine B "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"source_path\"] == \"hot.c\"" &&
  key=$(json_get m "d[\"key\"]") &&
  on_machine B "$MAXCODE_BIN" show hot.c >shown &&
  contains shown "hot.c (hot.c)" &&
  on_machine B "$MAXCODE_BIN" bench "$key" >bench 2>berr &&
  grep "^measured:" bench &&
  (cd / && expect_exit 1 on_machine B "$MAXCODE_BIN" bench "$key") \
    >bench2 2>berr2 &&
  contains berr2 "hot.c: the entry came from another machine and names its source relative to make'"'"'s directory (hot.c); run maxcode bench there"
'

test_expect_success '11: an exported archive names no path of the writer' '
  on_machine A "$MAXCODE_BIN" cache export a.mca >out 2>err &&
  contains out "exported 1 entries" && ! grep -qF "$TRASH" a.mca &&
  on_machine X "$MAXCODE_BIN" cache import a.mca >out2 2>err2 &&
  on_machine X "$MAXCODE_BIN" cache verify >vfy 2>&1 &&
  test "$(on_machine X "$MAXCODE_BIN" cache list | wc -l)" = 1 &&
  (cd w/a && on_machine A "$MAXCODE_BIN" show hot.c --json) >m &&
  json m "j[\"source_path\"] == \"$TRASH/w/a/hot.c\""
'

test_done
