#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/fuzz/run-all.sh [SECONDS]: run each fuzz target built by
# `make fuzz` (FUZZ_DIR, default ./fuzz: run it from the build tree) for
# SECONDS (default 20), FUZZ_JOBS of them at a time (default 1), each on
# a scratch copy of its seed corpus (tests/fuzz/corpus/NAME), so that
# nothing is written into the source tree. Prints per target, in name
# order, the runs, the seconds and the crashes (inputs that crashed,
# leaked or timed out, kept under the printed scratch directory), and
# exits 1 if any target crashed.
# FUZZ_FLAGS adds libFuzzer options (e.g. -jobs=2 -workers=2).
set -u

secs=${1:-20}
jobs=${FUZZ_JOBS:-1}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${FUZZ_DIR:-fuzz}" 2>/dev/null && pwd) || {
    echo "run-all.sh: no ${FUZZ_DIR:-fuzz}/; run \`make fuzz\` first" >&2
    exit 2
}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mc-fuzz-run.XXXXXX") || exit 2
failed=0 ran=0

# fuzz_one TARGET: run it; its row goes to $scratch/NAME/row, and what
# a crash left to $scratch/NAME/said.
fuzz_one () {
    f=$1
    name=${f##*/fuzz-}
    dir=$scratch/$name
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
        "$crashes" > "$dir/row"
    if test "$crashes" -ne 0; then
        {
            echo "  $name: exit $rc; log $dir/log"
            find "$dir/crashes" -type f | sed 's/^/  input: /'
            grep -m 4 -E 'ERROR|runtime error|SUMMARY|==[0-9]+==|in LLVMF' \
                "$dir/log" | sed 's/^/  /'
        } > "$dir/said"
    fi
}

names=
running=0
for f in "$bin"/fuzz-*; do
    test -x "$f" || continue
    name=${f##*/fuzz-}
    mkdir -p "$scratch/$name/corpus" "$scratch/$name/crashes"
    if test -d "$here/corpus/$name"; then
        cp "$here/corpus/$name"/* "$scratch/$name/corpus/"
    fi
    names="$names $name"
    fuzz_one "$f" &
    running=$((running + 1))
    if test "$running" -ge "$jobs"; then
        wait
        running=0
    fi
done
wait

printf '%-12s %10s %6s %8s\n' target runs secs crashes
for name in $names; do
    ran=$((ran + 1))
    if test -f "$scratch/$name/row"; then
        cat "$scratch/$name/row"
    else
        printf '%-12s %10s %6s %8s\n' "$name" "?" "?" 1
        echo "  $name: no result" > "$scratch/$name/said"
    fi
    if test -f "$scratch/$name/said"; then
        failed=1
        cat "$scratch/$name/said" >&2
    fi
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
