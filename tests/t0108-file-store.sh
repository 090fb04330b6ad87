#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0108-file-store: the file:// backend, a directory that several
# machines share (issue 26, acceptance 2). Two "machines" (two cache
# directories, two checkouts at different paths) share one directory:
# the first searches and pushes, the second builds with no search, every
# unit a hit from the shared directory. `make -j4` on two checkouts at
# once, both writing the same keys, leaves only complete entries there
# and no temporary file. A hostile shared directory (a link, a FIFO, a
# linked subdirectory, a truncated entry, an entry of another key, an
# unsigned one where signatures are asked for) is a miss counted as
# remote_corrupt or remote_untrusted, never a hang; a missing one is one
# warning and the build goes on; a read-only one is not written.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_BUDGET=1
SHARED=$TRASH/shared
mkdir -p "$SHARED"

# project DIR [N] [SALT]: N marked units (default 4) hot1.c..., each
# summing its input, and a main that calls them; SALT (default 13)
# changes every unit's code, and so its key.
salted_unit () {
  cat <<-EOF
	long
	hot$1(long n)
	{
	    long s = 0;
	    for (long i = 0; i < n; i++)
	        s += (i * 7 + $1) % $_salt;
	    return s;
	}
	EOF
}
project () { _salt=${3:-13}; linked_units "$1" "${2:-4}" 2000 salted_unit; }

# checkout FROM TO: another checkout of FROM at TO, without its build.
checkout () {
  mkdir -p "$(dirname "$2")" && cp -R "$1" "$2" &&
  rm -rf "$2/.maxcode" "$2/prog"
}

# objects DIR: the objects of the shared directory DIR.
objects () { find "$1" -type f ! -name '.*' | sort; }

# complete DIR: every file in DIR is a complete entry (the header's
# magic, and a size that is the header, the payload it announces and the
# trailer), and no temporary file is there.
complete () {
  test -z "$(find "$1" -name '.*' ! -path "$1")" ||
    { echo "# temporary files left:"; find "$1" -name '.*' | sed 's/^/#   /'
      return 1; }
  python3 -S - $(find "$1" -type f) <<'EOP'
import struct, sys
for p in sys.argv[1:]:
    b = open(p, "rb").read()
    if len(b) < 56 or b[:4] != b"MCXE":
        sys.exit("# %s: no entry header" % p)
    (n,) = struct.unpack("<Q", b[32:40])
    if len(b) != 40 + n + 16:
        sys.exit("# %s: %d bytes, the header says %d" % (p, len(b), 56 + n))
EOP
}

test_expect_success 'machine A searches and fills the shared directory' '
  project a/proj && cd a/proj &&
  MAXCODE_REMOTE=file://$SHARED on_machine A run_make -j4 >out 2>err &&
  on_machine A expect_stats searches 4 stores 4 remote_misses 4 \
    remote_stores 4 &&
  test "$(stat_on A remote_bytes_out)" -gt 0 &&
  test "$(objects "$SHARED" | wc -l)" = 4 && complete "$SHARED" &&
  for o in $(objects "$SHARED"); do
    k=$(basename "$o") &&
    test "$o" = "$SHARED/$(echo "$k" | cut -c1-2)/$k" || exit 1
  done &&
  ! grep -rqF "$TRASH/a" "$SHARED"
'

test_expect_success 'machine B, elsewhere, builds with no search' '
  checkout a/proj b/deeper/proj && cd b/deeper/proj &&
  MAXCODE_REMOTE=file://$SHARED/ on_machine B run_make -j4 >out 2>err &&
  on_machine B expect_stats searches 0 remote_hits 4 remote_corrupt 0 &&
  test "$(stat_on B remote_bytes_in)" -gt 0 &&
  on_machine B "$MAXCODE_BIN" cache verify >vfy 2>&1 &&
  test "$(on_machine B "$MAXCODE_BIN" cache list | wc -l)" = 4 &&
  ./prog <t/a.in >got && (cd "$TRASH/a/proj" && ./prog <t/a.in) >want &&
  test_cmp want got
'

test_expect_success 'make -j4 on two checkouts at once: only whole entries' '
  { project c1/proj 4 11 && checkout c1/proj c2/other/proj; } || exit 1
  (cd c1/proj && MAXCODE_REMOTE=file://$SHARED on_machine C1 \
     run_make_within 120 -j4 >out 2>err) &
  p1=$!
  (cd c2/other/proj && MAXCODE_REMOTE=file://$SHARED on_machine C2 \
     run_make_within 120 -j4 >out 2>err) &
  p2=$!
  wait $p1; s1=$?; wait $p2; s2=$?
  test "$s1" = 0 && test "$s2" = 0 &&
  test -x c1/proj/prog && test -x c2/other/proj/prog &&
  test "$(objects "$SHARED" | wc -l)" = 8 && complete "$SHARED" &&
  pushed=$(( $(stat_on C1 remote_stores) + $(stat_on C2 remote_stores) )) &&
  test "$pushed" -ge 4 &&
  checkout c1/proj c3/proj && cd c3/proj &&
  MAXCODE_REMOTE=file://$SHARED MAXCODE_MODE=cache on_machine C3 \
    run_make >out 2>err &&
  on_machine C3 expect_stats remote_hits 4 searches 0 remote_corrupt 0
'

# ---- a hostile shared directory ----

# One unit whose entry is in $SHARED/one (KEY, OBJ: its object there).
mkdir -p "$SHARED/one" && project h/proj 1 7 &&
(cd h/proj && MAXCODE_REMOTE=file://$SHARED/one on_machine H0 \
  run_make >/dev/null 2>&1)
OBJ=$(objects "$SHARED/one" | head -n 1)
KEY=$(basename "$OBJ")
AB=$(echo "$KEY" | cut -c1-2)

# hostile NAME [COUNTER VALUE...]: a fresh checkout h/NAME, built in mode
# cache on machine NAME against $TRASH/bad-NAME (made by the caller),
# killed past 30 s; no remote hit, no search, and each COUNTER its VALUE
# (one read of the counters).
hostile () {
  _hn=$1; shift
  checkout h/proj "h/$_hn" && (cd "h/$_hn" &&
    MAXCODE_REMOTE=file://$TRASH/bad-$_hn MAXCODE_MODE=cache \
      on_machine "$_hn" run_make_within 30 >out 2>err) &&
  test -x "h/$_hn/prog" &&
  on_machine "$_hn" expect_stats remote_hits 0 searches 0 "$@"
}

test_expect_success 'the hostile cases have their entry' '
  test -n "$KEY" && test -f "$OBJ"
'

test_expect_success 'a link in the shared directory is not followed' '
  mkdir -p bad-L/$AB && ln -s "$OBJ" bad-L/$AB/$KEY &&
  hostile L remote_corrupt 1 &&
  contains h/L/err "is a symbolic link; not used"
'

test_expect_success 'a linked subdirectory is not followed' '
  mkdir -p bad-D && ln -s "$SHARED/one/$AB" bad-D/$AB &&
  hostile D remote_corrupt 1 remote_errors 0
'

test_expect_success 'a FIFO is no entry, and never waited on' '
  mkdir -p bad-F/$AB && mkfifo bad-F/$AB/$KEY &&
  hostile F remote_corrupt 1 &&
  contains h/F/err "is a FIFO; not used"
'

test_expect_success 'a truncated entry is corrupt' '
  mkdir -p bad-T/$AB &&
  head -c $(( $(wc -c <"$OBJ") / 2 )) "$OBJ" >bad-T/$AB/$KEY &&
  hostile T remote_corrupt 1 &&
  contains h/T/err "is corrupt"
'

test_expect_success 'an entry of another key is corrupt' '
  other=$(objects "$SHARED" | grep -v "/one/" | head -n 1) &&
  mkdir -p bad-K/$AB && cp "$other" bad-K/$AB/$KEY &&
  hostile K remote_corrupt 1 &&
  contains h/K/err "entry holds key $(basename "$other")"
'

test_expect_success 'an unsigned entry where signatures are asked: untrusted' '
  "$MAXCODE_BIN" key generate -o k1 >/dev/null &&
  mkdir -p bad-U/$AB && cp "$OBJ" bad-U/$AB/$KEY &&
  MAXCODE_TRUSTED_KEYS=$TRASH/k1.pub hostile U remote_untrusted 1 &&
  contains h/U/err "is refused, it is not signed"
'

test_expect_success 'a missing shared directory: one warning, the build goes on' '
  checkout a/proj m/proj && cd m/proj &&
  MAXCODE_REMOTE=file://$TRASH/nowhere MAXCODE_MODE=cache on_machine M \
    run_make_within 30 -j4 >out 2>err && test -x prog &&
  test "$(grep -c "warning: the shared directory" err)" = 1 &&
  contains err "nowhere'"'"': No such file or directory; going on without" &&
  test "$(stat_on M remote_errors)" -ge 1 && ! test -e "$TRASH/nowhere"
'

test_expect_success 'a read-only shared directory is not written' '
  mkdir ro && project r/proj 1 5 && cd r/proj &&
  MAXCODE_REMOTE="file://$TRASH/ro|read-only" on_machine R run_make \
    >out 2>err &&
  on_machine R expect_stats searches 1 remote_misses 1 remote_stores 0 &&
  test -z "$(ls -A "$TRASH/ro")"
'

test_expect_success 'layout=flat keeps KEY at the top' '
  mkdir flat && project f/proj 1 3 && checkout f/proj g/proj &&
  (cd f/proj && MAXCODE_REMOTE="file://$TRASH/flat|layout=flat" \
     on_machine FL run_make >out 2>err) &&
  test "$(stat_on FL remote_stores)" = 1 &&
  test "$(find "$TRASH/flat" -mindepth 1 -maxdepth 1 -type f | wc -l)" = 1 &&
  complete "$TRASH/flat" &&
  (cd g/proj && MAXCODE_REMOTE="file://$TRASH/flat|layout=flat" \
     MAXCODE_MODE=cache on_machine FL2 run_make >out 2>err) &&
  test "$(stat_on FL2 remote_hits)" = 1
'

test_done
