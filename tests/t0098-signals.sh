#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0098-signals: a build stopped during a search, as Ctrl-C stops it
# (SIGINT to make's whole process group), as SIGTERM to that group does,
# or by SIGKILL of the search process alone (maxcode optimize), leaves
# no process behind (no compiler, no candidate, no maxcode), holds no
# lock (the key's lock and the timing lock can be taken at once), and
# leaves a journal that the next build resumes from; that build removes
# the scratch directory the killed search left. The signal comes while
# a candidate that sleeps for a minute runs: a process maxcode must kill
# itself, since it runs in a process group of its own.
. "$MC_SRCDIR/tests/lib.sh"

# A timing lock of this test's own: it checks that lock, and no search
# here queues behind other tests' for it.
export MAXCODE_TIMING_LOCK="$TRASH/timing.lock"
# The searches' scratch directories go to $TRASH/tmp, which candidates
# (run as nobody under root) must reach.
mkdir -p "$TRASH/tmp" && chmod 711 "$TRASH" "$TRASH/tmp" || exit 1

# sleeper FILE: a candidate that reads its input and sleeps for a minute
# (its run's timeout is some seconds: the signal comes first).
sleeper () {
  cat >"$1" <<-\EOF
	#include <stdio.h>
	#include <unistd.h>
	int main(void)
	{
	    int n;
	    if (scanf("%d", &n) != 1) return 1;
	    sleep(60);
	    printf("%d\n", n);
	    return 0;
	}
	EOF
}

# project NAME: a project, with a cache of its own, whose search (budget
# 2, one path) gets the original back first, then the sleeper, then (on
# resuming) fast code; a stub serves it, and maxcode points at it. Ends
# in NAME. What the timing decides is not asserted: llm_small's inputs.
project () {
  export MAXCODE_CACHE_DIR="$TRASH/cache-$1" &&
  llm_project "$1" 'strategy=effi-learner, budget=2, critique=off' &&
  llm_small "$1" && sleeper "$1/v/sleep.c" &&
  llm_script "$TRASH/$1.json" '' -- "$1/v/same.c" "$1/v/sleep.c" \
    "$1/v/fast.c" &&
  stub_start "$TRASH/$1.json" "$TRASH/$1-log" && llm_env && cd "$1"
}

# ours: the processes of this test's builds, one "PID ARGS" line each:
# those with MC_SIG_MARK=$TRASH in their environment (make, the recipe's
# shell, maxcode, its compilers) and those working in $TRASH/tmp (the
# candidates, whose environment is scrubbed). Called every 0.1 s while
# a search runs: python3 -S, without the site module's start-up.
ours () {
  python3 -S - "$TRASH" <<-\EOP
	import os, sys
	trash = sys.argv[1]
	mark = ("MC_SIG_MARK=" + trash).encode()
	for pid in filter(str.isdigit, os.listdir("/proc")):
	    try:
	        cwd = os.readlink("/proc/%s/cwd" % pid)
	        ours = cwd.startswith(trash + "/tmp/")
	        if not ours:
	            with open("/proc/%s/environ" % pid, "rb") as f:
	                ours = mark in f.read().split(b"\0")
	        if ours:
	            with open("/proc/%s/cmdline" % pid, "rb") as f:
	                args = f.read().split(b"\0")
	            print(pid, b" ".join(args).decode(errors="replace"))
	    except OSError:
	        pass
	EOP
}

# group_make: the system make in the background, in a process group of
# its own (as a terminal's foreground job is) and with SIGINT at its
# default (a script's background job ignores it); its PID in MAKE_PID.
group_make () {
  if [ -n "$MC_ASAN_PRELOAD" ]; then
    set -- env LD_PRELOAD="$MC_ASAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0
  else
    set -- env
  fi
  MC_SIG_MARK=$TRASH TMPDIR=$TRASH/tmp setsid perl -e \
    '$SIG{INT} = $SIG{QUIT} = "DEFAULT"; exec @ARGV or die "exec: $!\n"' \
    "$@" "$MC_SYSTEM_MAKE" --no-print-directory >out1 2>err1 &
  MAKE_PID=$!
}

# underway: wait (two minutes at most) until the journal has a judged
# candidate and the next candidate runs; its path in JOURNAL.
underway () {
  _i=0
  while [ $_i -lt 1200 ]; do
    JOURNAL=$(ls .maxcode/*/journal.jsonl 2>/dev/null | head -n 1)
    if [ -n "$JOURNAL" ] && [ "$(wc -l <"$JOURNAL")" -ge 2 ] &&
       ours | grep -q "/candidate-[0-9]*/"; then
      return 0
    fi
    if ! kill -0 "$MAKE_PID" 2>/dev/null; then
      echo "# make ended early:"; sed 's/^/#   /' err1; return 1
    fi
    sleep 0.1
    _i=$((_i + 1))
  done
  echo "# the search never got underway"; return 1
}

# search_pid: the PID of this build's `maxcode optimize`.
search_pid () {
  ours | while read -r _pid _exe _cmd _rest; do
    case $_exe:$_cmd in */maxcode:optimize) echo "$_pid" ;; esac
  done
}

# gone: wait (5 s at most) until no process of ours is left; list them
# if some are.
gone () {
  _i=0
  while [ -n "$(ours)" ]; do
    if [ $_i -ge 50 ]; then
      echo "# left running:"; ours | sed 's/^/#   /'; return 1
    fi
    sleep 0.1
    _i=$((_i + 1))
  done
}

# unlocked: the key's lock and the timing lock can be taken at once.
unlocked () {
  _key=$(basename "$(dirname "$JOURNAL")")
  _lock=$(find "$MAXCODE_CACHE_DIR" -name "$_key.lock") &&
  test -n "$_lock" &&
  flock -n "$_lock" true && flock -n "$MAXCODE_TIMING_LOCK" true
}

# stopped HOW: a build is stopped by HOW (INT or TERM to make's group,
# or KILL to the search alone) while a candidate runs; then nothing of
# it runs, no lock is held, and the next build resumes from the journal
# and removes the stopped search's scratch directory.
stopped () {
  group_make &&
  underway &&
  case $1 in
  KILL) _victim=$(search_pid) && test -n "$_victim" &&
        kill -KILL "$_victim" ;;
  *) _pgid=$(ps -o pgid= -p "$MAKE_PID" | tr -d " ") &&
     test "$_pgid" = "$MAKE_PID" && kill -"$1" -"$_pgid" ;;
  esac &&
  { wait "$MAKE_PID"; test $? -ne 0; } &&
  gone && unlocked &&
  left=$(ls "$TRASH/tmp") && test -n "$left" &&
  done1=$(( $(wc -l <"$JOURNAL") - 1 )) && test "$done1" -ge 1 &&
  TMPDIR=$TRASH/tmp run_make >out2 2>err2 &&
  contains err2 "resumed from the journal: $done1 of 2 candidates" &&
  test -x prog && ./prog <t/a.in >/dev/null &&
  for d in $left; do test ! -e "$TRASH/tmp/$d" || return 1; done
}

if ! command -v setsid >/dev/null || ! command -v perl >/dev/null ||
   ! command -v flock >/dev/null; then
  for how in 'Ctrl-C (SIGINT to the group)' 'SIGTERM to the group' \
             'SIGKILL of the search alone'; do
    test_skip "$how: no orphan, no lock, the journal resumes" \
      'needs setsid, perl and flock'
  done
  test_done
  exit
fi

test_expect_success 'Ctrl-C (SIGINT to the group): no orphan, no lock, the journal resumes' '
  project int && stopped INT &&
  { grep -q Interrupt err1 ||
    # make 4.3, interrupted while it reaps, may say only this:
    grep -q "wait: No child processes.  Stop." err1; }
'

test_expect_success 'SIGTERM to the group: no orphan, no lock, the journal resumes' '
  project term && stopped TERM &&
  { grep -q Terminated err1 ||
    # make 4.3, killed while it reaps, may say only this:
    grep -q "wait: No child processes.  Stop." err1; }
'

test_expect_success 'SIGKILL of the search alone: no orphan, no lock, the journal resumes' '
  project kill && stopped KILL
'

test_done
