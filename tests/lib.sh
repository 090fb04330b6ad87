# SPDX-License-Identifier: GPL-3.0-or-later
# tests/lib.sh: the shell test library, sourced by tests/tNNNN-*.sh.
#
# It makes a scratch directory (removed on exit), cds into it, points HOME
# and the cache there, and prints TAP:
#   test_expect_success 'NAME' 'COMMANDS'   the commands must succeed
#   test_skip 'NAME' 'REASON'               a skip, with its reason
#   test_done                               prints the plan, sets the status
# Helpers for the commands: run_make (the system make with this build's
# plugin), run_make_within SECONDS (the same, killed past SECONDS),
# expect_exit N CMD..., test_cmp EXPECTED ACTUAL, contains FILE
# TEXT, stat_of NAME / expect_stat NAME VALUE / expect_stats NAME VALUE
# ... (counters), hit (a make that hits, no search), on_machine NAME
# CMD / stat_on NAME COUNTER (one cache per machine), entries (cache
# entries), json_get FILE EXPR, json FILE EXPR..., tabify, copy_example
# NAME DIR and sample_unit DIR.
# Environment from Makefile.am: MAXCODE_BIN, MC_BUILDDIR, MC_SRCDIR,
# MC_SYSTEM_MAKE, MC_ASAN_PRELOAD, MC_VERSION; and, by hand,
# MC_KEEP_TRASH=1 (below).

set -u
: "${MAXCODE_BIN:?run the tests through make check}"
: "${MC_SYSTEM_MAKE:=make}"
: "${MC_ASAN_PRELOAD:=}"

test_count=0
test_failed=0
TEST_NAME=$(basename "$0" .sh)
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/mc-$TEST_NAME.XXXXXX") || exit 1
# _trash_exit: the scratch directory goes, unless MC_KEEP_TRASH=1 and
# a case failed: then it stays, for a look at what the case left, and
# the log's last line names it.
_trash_exit () {
  cd /
  if [ -n "${MC_KEEP_TRASH:-}" ] && [ "$test_failed" -gt 0 ]; then
    echo "# kept $TRASH"
  else
    rm -rf "$TRASH"
  fi
}
trap _trash_exit EXIT
cd "$TRASH" || exit 1

# Nothing of the outer make or the user's settings may leak in.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES GNUMAKEFLAGS
for v in $(env | sed -n 's/^\(MAXCODE_[A-Z_]*\)=.*/\1/p'); do
  case $v in MAXCODE_BIN) ;; *) unset "$v" ;; esac
done
unset OPENAI_API_KEY ANTHROPIC_API_KEY XDG_CONFIG_HOME XDG_CACHE_HOME
# Searches in tests stay small and their timing rounds as short as they
# can be (0.1 s, the least: a round still has its 8 pairs); a test that
# asserts what the timing decides sets a longer cap.
export MAXCODE_BUDGET=2 MAXCODE_TIMING_CAP=0.1
export HOME="$TRASH/home"
mkdir -p "$HOME"

# The tests run python3 hundreds of times (json, the stub's records). A
# python3 on PATH that is a version manager's shim (pyenv's is a script
# that runs pyenv, about 0.4 s a call) is resolved once, here, to the
# interpreter it runs, first on PATH as $TRASH/.bin/python3: the same
# Python, without the shim's cost on each call. (Not a virtual
# environment's: a link to its interpreter would lose its packages.)
_py=$(python3 -c 'import sys
print(sys.executable if sys.prefix == sys.base_prefix else "")' \
  2>/dev/null) && [ -n "$_py" ] &&
  [ -x "$_py" ] && [ "$(command -v python3)" != "$_py" ] &&
  mkdir -p "$TRASH/.bin" && ln -s "$_py" "$TRASH/.bin/python3" &&
  PATH=$TRASH/.bin:$PATH && export PATH
# The Python of this library's helpers and of the LLM stub needs only
# the standard library: they run python3 -S, without the site module,
# whose .pth files may import packages at every start (on the VM the
# suite is timed on, one imports certifi: half of the 0.13 s of CPU a
# start costs there). A test's own python3 that needs a package (t0072's
# yaml) runs python3 as it is.

# Tests run two at a time (make check is make -j2 check). As root, the
# candidates of every eval run as nobody and share nobody's process limit
# (the sandbox's RLIMIT_NPROC), machine-wide: each test holds lib.sh
# locked shared (fd 9) while it runs, and nobody_lock takes it
# exclusively, waiting for the other tests to end, for what may use all
# of nobody's processes (t0021's fork bombs); nobody_unlock makes it
# shared again. The lock is this checkout's: a machine-wide one would
# keep t0021 waiting for as long as suites of other checkouts overlap.
if [ "$(id -u)" = 0 ] && command -v flock >/dev/null 2>&1; then
  exec 9<"$MC_SRCDIR/tests/lib.sh" && flock -s 9
  nobody_lock () { flock -x 9; }
  nobody_unlock () { flock -s 9; }
else
  nobody_lock () { :; }
  nobody_unlock () { :; }
fi
PLUGIN=$("$MAXCODE_BIN" --plugin-path) || {
  echo "Bail out! maxcode --plugin-path failed"; exit 1; }

# Under `make check-valgrind`, MC_VALGRIND is a valgrind command line and
# every run of the maxcode command goes through it, the tests' own and
# the generated search recipes' alike: MAXCODE_BIN becomes a script that
# runs the full program (cli/maxcode, not the front that execs it: a
# static program without libc, which valgrind would not follow) under
# MC_VALGRIND, one log per process in
# $TRASH/.valgrind/log, and PLUGIN a copy of maxcode.so beside it, so
# that the plugin takes that script for its command (plugin/unit.c runs
# the maxcode found at ../../maxcode from its own directory). test_done
# then adds one case: no log holds an error.
: "${MC_VALGRIND:=}"
if [ -n "$MC_VALGRIND" ]; then
  _vg=$TRASH/.valgrind
  mkdir -p "$_vg/log" "$_vg/lib/.libs" &&
  cp "$PLUGIN" "$_vg/lib/.libs/maxcode.so" &&
  cat >"$_vg/maxcode" <<EOF &&
#!/bin/sh
if [ "\$#" = 1 ] && [ "\$1" = --plugin-path ]; then
  echo '$_vg/lib/.libs/maxcode.so'
  exit 0
fi
exec $MC_VALGRIND --log-file='$_vg/log/%p.log' '$MC_BUILDDIR/cli/maxcode' "\$@"
EOF
  chmod +x "$_vg/maxcode" || {
    echo "Bail out! cannot set up the valgrind wrapper in $_vg"; exit 1; }
  MAXCODE_BIN=$_vg/maxcode
  PLUGIN=$_vg/lib/.libs/maxcode.so
  export MAXCODE_BIN
fi

# The system make, with the ASan runtime preloaded when the plugin is
# instrumented (make itself is not). Leak checks stay off for make,
# unless MC_DETECT_LEAKS=1 (then a leak fails make).
run_make () {
  if [ -n "$MC_ASAN_PRELOAD" ]; then
    LD_PRELOAD="$MC_ASAN_PRELOAD" \
      ASAN_OPTIONS=detect_leaks=${MC_DETECT_LEAKS:-0} \
      "$MC_SYSTEM_MAKE" --no-print-directory "$@"
  else
    "$MC_SYSTEM_MAKE" --no-print-directory "$@"
  fi
}

# run_make_within SECONDS MAKE-ARGS...: run_make, killed after SECONDS
# (status 124), for a test that a hang must fail, not stop.
run_make_within () {
  _secs=$1; shift
  if [ -n "$MC_ASAN_PRELOAD" ]; then
    timeout "$_secs" env LD_PRELOAD="$MC_ASAN_PRELOAD" \
      ASAN_OPTIONS=detect_leaks=${MC_DETECT_LEAKS:-0} \
      "$MC_SYSTEM_MAKE" --no-print-directory "$@"
  else
    timeout "$_secs" "$MC_SYSTEM_MAKE" --no-print-directory "$@"
  fi
}

# from_data NAME [VAR=VALUE...]: the shared fixture tests/data/NAME on
# stdout, each @VAR@ in it replaced by VALUE (no '|', '&' or '\' in
# VALUE).
from_data () {
  _fd_file=$MC_SRCDIR/tests/data/$1; shift
  _fd_sed=
  for _fd_a in "$@"; do
    _fd_sed="$_fd_sed;s|@${_fd_a%%=*}@|${_fd_a#*=}|g"
  done
  sed "${_fd_sed#;}" "$_fd_file"
}

# vector_kernel FILE [OP]: a program (N and REPS from stdin) whose loop
# a[i] = a[i] OP 0.5f + b[i] (OP: * by default) -O3 vectorizes and -O2
# does not (tests/data/vector-kernel.c).
vector_kernel () {
  from_data vector-kernel.c "OP=${2:-*}" >"$1"
}

# expect_exit STATUS CMD...: run CMD, succeed if it exits with STATUS.
expect_exit () {
  want=$1; shift
  "$@"; got=$?
  if [ "$got" -ne "$want" ]; then
    echo "# expected exit $want, got $got: $*"
    return 1
  fi
}

# test_cmp EXPECTED ACTUAL: files must be equal; shows a diff if not.
test_cmp () {
  cmp -s "$1" "$2" || { diff -u "$1" "$2" | sed 's/^/# /'; return 1; }
}

# contains FILE TEXT: FILE has TEXT (fixed string).
contains () {
  grep -qF -- "$2" "$1" || {
    echo "# '$1' lacks: $2"; sed 's/^/#   /' "$1"; return 1; }
}

# _stat_in JSON NAME: counter NAME of JSON (what `maxcode stats --json`
# prints) in _stat, or nothing where JSON has none; shell builtins only
# (the tests read counters hundreds of times).
_stat_in () {
  _stat=${1#*\"$2\":}
  _stat=${_stat#"${_stat%%[![:space:]]*}"}
  _stat=${_stat%%[!0-9.]*}
}

# hit [MAKE-ARGS...]: make again expands every $(maxcode ...) from the
# cache: the hits grow and the searches do not (make's output in out2
# and err2).
hit () {
  hits_searches || return 1; _hits=$_h _searches=$_s
  run_make "$@" >out2 2>err2 || { sed 's/^/# /' out2 err2; return 1; }
  hits_searches
  test "$_h" -gt "$_hits" && test "$_s" = "$_searches" || {
    echo "# hits $_hits -> $_h, searches $_searches -> $_s"
    sed 's/^/# /' err2; return 1; }
}

# hits_searches: the counters hits and searches in _h and _s, from one
# run of maxcode stats.
hits_searches () {
  _j=$("$MAXCODE_BIN" stats --json) &&
  _stat_in "$_j" hits && _h=$_stat && _stat_in "$_j" searches && _s=$_stat
}

# stat_of NAME: counter NAME of `maxcode stats --json`.
stat_of () {
  _stat_in "$("$MAXCODE_BIN" stats --json)" "$1" && echo "$_stat"
}

# copy_example NAME DIR: examples/NAME copied to DIR as git has it,
# without what a build there left (`make demo` runs in the source tree):
# its .maxcode/ work directory and its program, NAME.
copy_example () {
  cp -R "$MC_SRCDIR/examples/$1" "$2" && chmod -R u+w "$2" &&
  rm -rf "$2/.maxcode" "$2/$1"
}

# on_machine NAME CMD...: CMD with the cache directory of machine NAME
# ($TRASH/cache-NAME), for tests that play several machines. A machine's
# new cache gets the compiler probes an earlier machine's holds
# (seed_probes), which its first search would otherwise compile again.
on_machine () {
  _m=$1; shift
  [ -d "$TRASH/cache-$_m" ] || seed_probes "$TRASH/cache-$_m"
  MAXCODE_CACHE_DIR="$TRASH/cache-$_m" "$@"
}

# stat_on NAME COUNTER: stat_of COUNTER on machine NAME.
stat_on () { on_machine "$1" stat_of "$2"; }

# expect_stat NAME VALUE: counter NAME is VALUE.
expect_stat () {
  got=$(stat_of "$1")
  [ "$got" = "$2" ] || { echo "# stats $1: expected $2, got '$got'"; return 1; }
}

# expect_stats NAME VALUE [NAME VALUE...]: each counter NAME is its VALUE,
# as expect_stat NAME VALUE for each pair in turn, read from one run of
# `maxcode stats --json`.
expect_stats () {
  _es_json=$("$MAXCODE_BIN" stats --json)
  while [ $# -ge 2 ]; do
    _stat_in "$_es_json" "$1"
    [ "$_stat" = "$2" ] || {
      echo "# stats $1: expected $2, got '$_stat'"; return 1; }
    shift 2
  done
}

# seed_probes DIR: give the new cache directory DIR the built-in
# proposer's compiler probes (CACHE_DIR/probes/: what the compiler
# accepts, per compiler identity) that a cache of this test already
# holds ($TRASH/cache*), so that DIR's first search does not compile
# them again; nothing when none does. DIR then holds what its first
# search would have written there.
seed_probes () {
  if [ ! -d "$TRASH/.probes" ]; then
    # Copied aside, then renamed: two machines may start at once.
    for _sp in "$TRASH"/cache*/probes; do
      [ -d "$_sp" ] || continue
      _sp_t=$(mktemp -d "$TRASH/.probes-new.XXXXXX") &&
        cp -pR "$_sp" "$_sp_t/probes" &&
        mv -T "$_sp_t/probes" "$TRASH/.probes" 2>/dev/null
      rm -rf "$_sp_t"
      break
    done
  fi
  [ -d "$TRASH/.probes" ] || return 0
  mkdir -p "$1" && cp -pR "$TRASH/.probes" "$1/probes"
}

# entries: how many entries the cache holds (the lines of `maxcode cache
# list`, counted by the shell).
entries () {
  "$MAXCODE_BIN" cache list | {
    _en_n=0
    while IFS= read -r _en_line; do _en_n=$((_en_n + 1)); done
    echo "$_en_n"
  }
}

# json_get FILE EXPR: print EXPR (Python, over the JSON object d) of FILE.
json_get () {
  python3 -S -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# journal_node DIR PYTHON: the first node of DIR's search journal (as
# n) that has code and for which PYTHON holds, printed as JSON; fails
# when there is none.
journal_node () {
  python3 - "$1"/.maxcode/*/journal.jsonl "$2" <<'EOP'
import json, sys
for line in open(sys.argv[1]):
    n = json.loads(line)
    if "code" in n and eval(sys.argv[2]):
        print(json.dumps(n))
        sys.exit(0)
print("# no journal node with", sys.argv[2])
sys.exit(1)
EOP
}

# json FILE EXPR...: each Python EXPR, over the JSON object j, holds;
# when one does not, say which and show the object.
json () {
  f=$1; shift
  python3 -S - "$f" "$@" <<'EOP'
import json, sys
j = json.load(open(sys.argv[1]))
for e in sys.argv[2:]:
    if not eval(e):
        print("# failed: %s\n# record: %s" % (e, json.dumps(j, indent=1)))
        sys.exit(1)
EOP
}

# bear_make BEAR-OPTION MAKE-ARGS...: the system make under Bear. An
# ASan-built plugin needs the ASan runtime first in LD_PRELOAD, before
# the library Bear preloads (make itself is not instrumented).
bear_make () {
  _bear_opt=$1; shift
  bear "$_bear_opt" -- sh -c '
    if [ -n "$MC_ASAN_PRELOAD" ]; then
      LD_PRELOAD="$MC_ASAN_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}"
      ASAN_OPTIONS=detect_leaks=0; export LD_PRELOAD ASAN_OPTIONS
    fi
    exec "$MC_SYSTEM_MAKE" "$@"' sh "$@"
}

# tabify: a makefile from stdin, each leading '>' made a tab (a <<-
# here-document strips the tabs of recipe lines).
tabify () { sed 's/^>/\t/'; }

# linked_units DIR N SCALE WRITE: N marked units DIR/hot1.c ... hotN.c,
# each `long hotI(long)` as the command WRITE I prints it, each linked
# with main.c and the others; main.c sums the numbers of t/a.in ("1 2
# 3") times SCALE into n and prints each hotI(n) on a line; the
# Makefile builds prog of them.
linked_units () {
  mkdir -p "$1/t" && printf '1 2 3\n' >"$1/t/a.in" &&
  _lu_i=1 _lu_objs= _lu_calls= _lu_decls=
  while [ "$_lu_i" -le "$2" ]; do
    $4 "$_lu_i" >"$1/hot$_lu_i.c" || return 1
    _lu_others=$(seq 1 "$2" | grep -vx "$_lu_i" | sed "s/.*/hot&.c/" |
      tr "\n" " ")
    _lu_objs="$_lu_objs \$(maxcode hot$_lu_i.c, link=main.c $_lu_others, inputs=t/a.in)"
    _lu_decls="$_lu_decls long hot$_lu_i(long);"
    _lu_calls="$_lu_calls printf(\"%ld\\\\n\", hot$_lu_i(n));"
    _lu_i=$((_lu_i + 1))
  done
  printf '#include <stdio.h>\n%s\nint main(void) { long n = 0, x;\n  while (scanf("%%ld", &x) == 1) n += x * %s;\n %s\n  return 0; }\n' \
    "$_lu_decls" "$3" "$_lu_calls" >"$1/main.c" &&
  printf '%s\n' "load $PLUGIN" "prog:$_lu_objs main.c" \
    '>$(CC) -O2 -o $@ $^' | tabify >"$1/Makefile"
}

# sample_unit DIR: a marked source DIR/src/hot.c that includes a header
# next to it (src/util.h), and two inputs t/a.in and t/b.in; it prints
# twice the sum of its input (tests/data/sample-hot.c, sample-util.h).
sample_unit () {
  mkdir -p "$1/src" "$1/t" &&
  cp "$MC_SRCDIR/tests/data/sample-util.h" "$1/src/util.h" &&
  cp "$MC_SRCDIR/tests/data/sample-hot.c" "$1/src/hot.c" &&
  chmod u+w "$1/src/util.h" "$1/src/hot.c" &&
  printf '1 2 3\n' >"$1/t/a.in" &&
  printf '10\n' >"$1/t/b.in"
}

# _elapsed T0: the seconds since T0 (an EPOCHREALTIME reading) with one
# decimal, or nothing where the shell has no EPOCHREALTIME (bash < 5).
_elapsed () {
  [ -n "${EPOCHREALTIME:-}" ] && [ -n "$1" ] || return 0
  awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}
_t_start=${EPOCHREALTIME:-}

test_expect_success () {
  test_count=$((test_count + 1))
  _t_case=${EPOCHREALTIME:-}
  if ( eval "$2" ) >"$TRASH/.out" 2>&1; then
    echo "ok $test_count - $1"
  else
    test_failed=$((test_failed + 1))
    echo "not ok $test_count - $1"
    sed 's/^/#   /' "$TRASH/.out"
  fi
  [ -z "$_t_case" ] || echo "# time $test_count: $(_elapsed "$_t_case") s"
}

test_skip () {
  test_count=$((test_count + 1))
  echo "ok $test_count - $1 # SKIP $2"
}

# _valgrind_case: the case test_done adds under MC_VALGRIND: each run of
# maxcode that valgrind saw to its end reported no error (a leak of kind
# definite or indirect is one); a run killed by SIGKILL leaves no summary.
_valgrind_case () {
  _vg_runs=0 _vg_done=0 _vg_bad=
  for _vg_f in "$_vg"/log/*.log; do
    [ -f "$_vg_f" ] || continue
    _vg_runs=$((_vg_runs + 1))
    grep -q 'ERROR SUMMARY: ' "$_vg_f" && _vg_done=$((_vg_done + 1))
    grep -q 'ERROR SUMMARY: [1-9]' "$_vg_f" && _vg_bad="$_vg_bad $_vg_f"
  done
  _vg_nbad=$(echo $_vg_bad | wc -w)
  test_count=$((test_count + 1))
  if [ -z "$_vg_bad" ] && [ "$_vg_runs" -gt 0 ]; then
    echo "ok $test_count - valgrind: $_vg_runs runs of maxcode" \
      "($_vg_done to their summary), no memory error, no leak"
  else
    test_failed=$((test_failed + 1))
    echo "not ok $test_count - valgrind: $_vg_runs runs of maxcode," \
      "$_vg_nbad with errors"
    for _vg_f in $_vg_bad; do sed 's/^/#   /' "$_vg_f"; done
  fi
}

test_done () {
  [ -z "$MC_VALGRIND" ] || _valgrind_case
  [ -z "$_t_start" ] || echo "# time: $(_elapsed "$_t_start") s in all"
  echo "1..$test_count"
  [ "$test_failed" -eq 0 ]
}

# The LLM stub (tests/llm-stub.py, whose comment describes its script):
#   stub_start SCRIPT [LOGDIR [PORT]]  start it (LOGDIR: ./stub-log, its
#       old request records removed); exports STUB_PORT, STUB_URL
#       (http://127.0.0.1:PORT), STUB_LOG, STUB_PID; it is stopped when
#       the shell that started it exits (its EXIT trap runs the one
#       before; in a subshell the subshell's trap is set) or, failing
#       that, soon after the test script is gone
#   stub_stop                  stop the last one started
#   stub_requests              how many requests it has logged
#   stub_prompt N              the prompt text of request N (from 1)
#   stub_field N EXPR          Python EXPR over request N's record r
#   stub_select EXPR           the numbers of the requests (from 1) whose
#       record r makes Python EXPR true, one a line, in order (one
#       python3 for all, where a loop of stub_field starts one each)
_stub_pids=
_stub_owner=

# _stub_cleanup: stop the stubs this shell started.
_stub_cleanup () {
  for _stub_p in $_stub_pids; do kill "$_stub_p" 2>/dev/null; done
  for _stub_p in $_stub_pids; do wait "$_stub_p" 2>/dev/null; done
  _stub_pids=
}

# _stub_trap_entry CMD SIGNAL: one line of `trap`'s listing.
_stub_trap_entry () {
  case $2 in EXIT|0) _stub_oldtrap=$1 ;; esac
}

# _stub_arm: once per shell process, an EXIT trap that runs _stub_cleanup
# and then the trap that was there.  A subshell lists its parent's traps
# in bash although they do not run in it, so a subshell's trap is only
# _stub_cleanup.
_stub_arm () {
  _stub_self=$(exec sh -c 'echo "$PPID"')
  [ "$_stub_owner" = "$_stub_self" ] && return 0
  _stub_owner=$_stub_self
  _stub_pids=
  _stub_oldtrap=
  if [ "$_stub_self" = "$$" ]; then
    trap >"$TRASH/.stub-traps"
    eval "$(sed 's/^trap -- /_stub_trap_entry /' "$TRASH/.stub-traps")"
    rm -f "$TRASH/.stub-traps"
  fi
  if [ -n "$_stub_oldtrap" ]; then
    trap "_stub_cleanup; $_stub_oldtrap" EXIT
  else
    trap '_stub_cleanup' EXIT
  fi
}

stub_start () {
  _stub_log=${2:-$PWD/stub-log}
  case $_stub_log in /*) ;; *) _stub_log=$PWD/$_stub_log ;; esac
  mkdir -p "$_stub_log" || { echo "Bail out! cannot make $_stub_log"; exit 1; }
  rm -f "$_stub_log"/[0-9][0-9][0-9][0-9]*.json \
    "$_stub_log/.port" "$_stub_log/.pid"
  _stub_arm
  python3 -S "$MC_SRCDIR/tests/llm-stub.py" --script "$1" --log "$_stub_log" \
    --port-file "$_stub_log/.port" --pid-file "$_stub_log/.pid" \
    --port "${3:-0}" --watch-pid "$$" \
    </dev/null >"$_stub_log/.stderr" 2>&1 9<&- &
  _stub_p=$!
  _stub_pids="$_stub_pids $_stub_p"
  _stub_i=0
  while [ ! -s "$_stub_log/.port" ]; do
    if [ "$_stub_i" -ge 100 ] || ! kill -0 "$_stub_p" 2>/dev/null; then
      sed 's/^/# /' "$_stub_log/.stderr"
      echo "Bail out! the LLM stub did not start"
      exit 1
    fi
    sleep 0.1
    _stub_i=$((_stub_i + 1))
  done
  STUB_PORT=$(cat "$_stub_log/.port")
  STUB_URL=http://127.0.0.1:$STUB_PORT
  STUB_LOG=$_stub_log
  STUB_PID=$_stub_p
  export STUB_PORT STUB_URL STUB_LOG STUB_PID
}

stub_stop () {
  [ -n "${STUB_PID:-}" ] || return 0
  kill "$STUB_PID" 2>/dev/null
  wait "$STUB_PID" 2>/dev/null
  # Started by another shell: wait until it is gone (or a zombie).
  _stub_i=0
  while kill -0 "$STUB_PID" 2>/dev/null; do
    case $(ps -o stat= -p "$STUB_PID" 2>/dev/null) in Z*) break ;; esac
    _stub_i=$((_stub_i + 1))
    if [ "$_stub_i" -ge 50 ]; then kill -9 "$STUB_PID" 2>/dev/null; break; fi
    sleep 0.1
  done
  _stub_left=
  for _stub_p in $_stub_pids; do
    [ "$_stub_p" = "$STUB_PID" ] || _stub_left="$_stub_left $_stub_p"
  done
  _stub_pids=$_stub_left
  STUB_PID=
}

stub_requests () {
  set -- "$STUB_LOG"/[0-9][0-9][0-9][0-9]*.json
  if [ -e "$1" ]; then echo $#; else echo 0; fi
}

# _stub_eval N EXPR: print Python EXPR over request N's record r.
_stub_eval () {
  PYTHONIOENCODING=utf-8 python3 -S - "$STUB_LOG" "$1" "$2" <<'EOP'
import json, os, sys
f = os.path.join(sys.argv[1], "%04d.json" % int(sys.argv[2]))
try:
    r = json.load(open(f, encoding="utf-8"))
except OSError:
    print("# stub: no request %s (%s)" % (sys.argv[2], f), file=sys.stderr)
    sys.exit(1)
print(eval(sys.argv[3]))
EOP
}

stub_prompt () { _stub_eval "$1" 'r["prompt"]'; }

stub_select () {
  python3 -S - "$STUB_LOG" "$(stub_requests)" "$1" <<'EOP'
import json, os, sys
for i in range(1, int(sys.argv[2]) + 1):
    f = os.path.join(sys.argv[1], "%04d.json" % i)
    try:
        r = json.load(open(f, encoding="utf-8"))
    except OSError:
        print("# stub: no request %d (%s)" % (i, f), file=sys.stderr)
        continue
    if eval(sys.argv[3]):
        print(i)
EOP
}

stub_field () { _stub_eval "$1" "$2"; }

# kill_search_after N: wait (two minutes at most, for a loaded machine)
# until a journal under .maxcode/ has N lines, kill its search with
# SIGKILL and print the journal's path.
kill_search_after () {
  _ks_i=0 _ks_j=
  while [ $_ks_i -lt 1200 ]; do
    _ks_j=$(ls .maxcode/*/journal.jsonl 2>/dev/null | head -n 1)
    [ -n "$_ks_j" ] && [ "$(wc -l <"$_ks_j")" -ge "$1" ] && break
    sleep 0.1; _ks_i=$((_ks_i + 1))
  done
  [ -n "$_ks_j" ] || return 1
  # Only this test's search: another test (or checkout) may search the
  # same key at the same time.
  _ks_k=$(basename "$(dirname "$_ks_j")")
  for _ks_p in $(pgrep -f "optimize --key $_ks_k"); do
    case $(readlink "/proc/$_ks_p/cwd" 2>/dev/null) in
      "$TRASH"/*) kill -9 "$_ks_p" 2>/dev/null ;;
    esac
  done
  echo "$_ks_j"
}

# Model-driven search fixtures:
#   llm_project DIR OPTIONS  a project in DIR whose hot.c repeats a loop 40
#       times (-O2 keeps every repetition); DIR/v/ holds answers the stub
#       can serve: wrong.c (prints one more), slow.c (80 repetitions),
#       fast.c (8 repetitions, about 5x faster), same.c (the original);
#       the Makefile's prog uses $(maxcode hot.c, inputs=t/*.in, OPTIONS)
#   llm_script FILE [CRITIC-TEXTS] -- POLICY-FILES...
#       write a stub script: critic requests get the texts in order (a
#       comma-separated list), proposals get each file, fenced in prose
#       (the last one again when they run out); LLM_DELAY=S delays each
#   llm_env                  point maxcode at the stub (STUB_URL), model
#       "stub-model", key "sk-test-SECRET-4242"
#   llm_small DIR            DIR's inputs a tenth as large (30000 and
#       20000), for a search whose asserted outcome does not depend on
#       what its timing decides: a run of the program then costs little
#       more than its start, and a search about half the CPU (it runs the
#       program some 50 times per candidate)
_llm_hot () { from_data llm-hot.c "REPS=$1" "TAIL=$2"; }

llm_project () {
  mkdir -p "$1/t" "$1/v" &&
  _llm_hot 40 '' >"$1/hot.c" &&
  _llm_hot 40 ' + 1' >"$1/v/wrong.c" &&
  _llm_hot 80 '' >"$1/v/slow.c" &&
  _llm_hot 8 '' >"$1/v/fast.c" &&
  cp "$1/hot.c" "$1/v/same.c" &&
  echo 300000 >"$1/t/a.in" && echo 200000 >"$1/t/b.in" &&
  printf 'load %s\nCFLAGS = -O2\nprog: $(maxcode hot.c, inputs=t/*.in, %s)\n\t$(CC) $(CFLAGS) -o $@ $^\n' \
    "$PLUGIN" "$2" >"$1/Makefile"
}

llm_small () { echo 30000 >"$1/t/a.in" && echo 20000 >"$1/t/b.in"; }

llm_script () {
  _llm_out=$1; _llm_crit=$2; shift 2
  [ "$1" = -- ] && shift
  python3 -S - "$_llm_out" "$_llm_crit" "$@" <<'EOP'
import json, os, sys
out, crit, files = sys.argv[1], sys.argv[2], sys.argv[3:]
def answer(f):
    return ("Here is a faster version.\n```c\n" + open(f).read() +
            "```\nIt keeps the output.")
rules = []
if crit:
    rules.append({"match": "critic in maxcode",
                  "responses": [{"text": t} for t in crit.split(",")]})
delay = float(os.environ.get("LLM_DELAY", "0"))
rules.append({"match": None,
              "responses": [dict({"text": answer(f)},
                                 **({"delay": delay} if delay else {}))
                            for f in files]})
json.dump({"rules": rules}, open(out, "w"), indent=1)
EOP
}

llm_env () {
  MAXCODE_LLM_URL=$STUB_URL/v1
  MAXCODE_MODEL=stub-model
  MAXCODE_API_KEY=sk-test-SECRET-4242
  export MAXCODE_LLM_URL MAXCODE_MODEL MAXCODE_API_KEY
}

# A real HTTP cache server for the remote-cache tests: Debian's nginx
# with WebDAV PUT, on 127.0.0.1, with its own config, store and logs
# under DIR (default $TRASH/nginx), started by the test and stopped when
# the test script exits.
#   nginx_start [DIR [TOKEN]]  start it; with TOKEN, every request must
#       carry "Authorization: Bearer TOKEN" (else 401); exports
#       NGINX_PORT, NGINX_URL (http://127.0.0.1:PORT/cache), NGINX_DIR
#       (its store is NGINX_DIR/store/cache, its access log
#       NGINX_DIR/access.log)
#   nginx_stop                 stop it (the port then refuses)
nginx_start () {
  NGINX_DIR=${1:-$TRASH/nginx}
  NGINX_PORT=$(python3 -S -c 'import socket; s = socket.socket();
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') || return 1
  mkdir -p "$NGINX_DIR" || return 1
  _stub_arm
  sh "$MC_SRCDIR/tests/nginx-cache.sh" "$NGINX_DIR" "$NGINX_PORT" \
    "${2:-}" >"$NGINX_DIR/stderr" 2>&1 </dev/null 9<&- &
  NGINX_PID=$!
  _stub_pids="$_stub_pids $NGINX_PID"
  _ng_i=0
  until python3 -S -c "import socket; socket.create_connection(
('127.0.0.1', $NGINX_PORT), 1)" 2>/dev/null; do
    if [ "$_ng_i" -ge 100 ] || ! kill -0 "$NGINX_PID" 2>/dev/null; then
      sed 's/^/# /' "$NGINX_DIR/stderr" "$NGINX_DIR/error.log" 2>/dev/null
      echo "Bail out! nginx did not start"
      exit 1
    fi
    sleep 0.1
    _ng_i=$((_ng_i + 1))
  done
  NGINX_URL=http://127.0.0.1:$NGINX_PORT/cache
  export NGINX_PORT NGINX_URL NGINX_DIR NGINX_PID
}

nginx_stop () {
  [ -n "${NGINX_PID:-}" ] || return 0
  kill "$NGINX_PID" 2>/dev/null
  wait "$NGINX_PID" 2>/dev/null
  NGINX_PID=
}
