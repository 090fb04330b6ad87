#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/fuzz/run-all.sh [SECONDS]: run each fuzz target built by
# `make fuzz` (FUZZ_DIR, default ./fuzz: run it from the build tree) for
# SECONDS (default 20), one after the other, on a scratch copy of its
# seed corpus (tests/fuzz/corpus/NAME), so that nothing is written into
# the source tree. Prints per target the runs, the seconds and the
# crashes (inputs that crashed, leaked or timed out, kept under the
# printed scratch directory), and exits 1 if any target crashed.
# FUZZ_FLAGS adds libFuzzer options (e.g. -jobs=2 -workers=2).
set -u

secs=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${FUZZ_DIR:-fuzz}" 2>/dev/null && pwd) || {
    echo "run-all.sh: no ${FUZZ_DIR:-fuzz}/; run \`make fuzz\` first" >&2
    exit 2
}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mc-fuzz-run.XXXXXX") || exit 2
failed=0 ran=0

printf '%-12s %10s %6s %8s\n' target runs secs crashes
for f in "$bin"/fuzz-*; do
    test -x "$f" || continue
    name=${f##*/fuzz-}
    dir=$scratch/$name
    mkdir -p "$dir/corpus" "$dir/crashes"
    if test -d "$here/corpus/$name"; then
        cp "$here/corpus/$name"/* "$dir/corpus/"
    fi
    start=$(date +%s)
    # Paths are absolute: some targets change directory.
    # shellcheck disable=SC2086
    "$f" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
        -artifact_prefix="$dir/crashes/" -print_final_stats=1 \
        ${FUZZ_FLAGS:-} "$dir/corpus" > "$dir/log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" |
        tail -n 1)
    took=$(($(date +%s) - start))
    crashes=$(find "$dir/crashes" -type f | wc -l)
    if test "$rc" -ne 0 && test "$crashes" -eq 0; then
        crashes=1 # died without an artifact: see the log
    fi
    printf '%-12s %10s %6s %8s\n' "$name" "${runs:-?}" "$took" \
        "$crashes"
    if test "$crashes" -ne 0; then
        failed=1
        echo "  $name: exit $rc; log $dir/log" >&2
        find "$dir/crashes" -type f | sed 's/^/  input: /' >&2
        grep -m 3 -E 'ERROR|runtime error|SUMMARY|==[0-9]+==' "$dir/log" |
            sed 's/^/  /' >&2
    fi
    ran=$((ran + 1))
done
if test "$ran" -eq 0; then
    echo "run-all.sh: no fuzz-* targets in $bin; run \`make fuzz\`" >&2
    exit 2
fi
if test "$failed" -eq 0; then
    rm -rf "$scratch"
else
    echo "run-all.sh: crashes found; inputs and logs under $scratch" >&2
fi
exit "$failed"
