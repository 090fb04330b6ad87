#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/gpu/cuda-check.sh: the CUDA check, run by hand on a machine with an
# NVIDIA GPU, from the root of a tree built beforehand (./maxcode there).
# It needs only the NVIDIA driver, the CUDA toolkit's nvcc and runtime,
# make, python3 and POSIX tools: no network, no build packages.
#
#   tests/gpu/cuda-check.sh            (NVCC=PATH if nvcc is not on PATH
#                                       or in /usr/local/cuda/bin)
#
# Steps:
#   a. `./maxcode cuda --refresh`: the device, or stop (exit 2);
#   b. examples/cuda built in a temporary copy with the built-in proposer
#      and a fresh cache: the manifest's status, speedup, best, reason;
#   c. the original and the kept variant built with nvcc and run 5 times
#      each, alternately: the median `maxcode-time:` of each, their ratio;
#   d. the same example searched by the model-driven proposer against the
#      loopback stub (tests/llm-stub.py), which answers every proposal
#      with a shared-memory tiled kernel (budget 4, fresh copy and cache);
#   e. a summary.
# Exit status: 0 both searches ran (a variant kept, or the original with
# a reason that is not an error), 1 a step failed, 2 no CUDA device.
# Everything it writes is under one temporary directory, kept for
# inspection (its path is printed; KEEP=0 removes it at the end). The
# whole run stays under 5 minutes: each step runs under `timeout` within
# what is left of that.

set -u

ROOT=$(pwd)
MC=$ROOT/maxcode
T0=$SECONDS
DEADLINE=$((T0 + 285))
STUB_PID=
FAILED=0

say () { printf '%s\n' "$*"; }
step () { printf '\n== %s\n' "$*"; }
fail () { say "FAIL: $*"; FAILED=1; }

# left CAP: seconds a step may take, at most CAP, within the deadline.
left () {
    _l=$((DEADLINE - SECONDS))
    [ "$_l" -gt "$1" ] && _l=$1
    [ "$_l" -lt 5 ] && _l=5
    echo "$_l"
}

cleanup () {
    if [ -n "$STUB_PID" ]; then
        kill "$STUB_PID" 2>/dev/null
        wait "$STUB_PID" 2>/dev/null
    fi
    if [ "${KEEP:-1}" = 0 ] && [ -n "${WORK:-}" ]; then
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

# json FILE EXPR: print Python EXPR over the JSON object j in FILE.
json () {
    python3 - "$1" "$2" <<'EOP'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("unreadable (%s)" % e)
    sys.exit(1)
print(eval(sys.argv[2]))
EOP
}

# manifest MODE FILE: for the manifest in FILE, MODE "summary" prints the
# fields the steps show; MODE "ran" exits 0 when it says a search ran to
# its end: a variant was kept, or the original after evaluating
# candidates for a reason that is not an error.
manifest () {
    python3 - "$1" "$2" <<'EOP'
import json, sys
mode, path = sys.argv[1:]
try:
    j = json.load(open(path))
except (OSError, ValueError) as e:
    print("unreadable manifest (%s)" % e)
    sys.exit(1)
reason = j.get("reason") or ""
if mode == "summary":
    print("status %s, speedup %.2fx, best %s, %s candidates (%s correct)%s"
          % (j.get("status"), j.get("speedup") or 0, j.get("best") or "-",
             j.get("candidates"), j.get("correct_candidates"),
             ", reason: " + reason if reason else ""))
    sys.exit(0)
errors = ("no CUDA device", "CUDA error", "the search failed",
          "cannot measure the original", "does not preprocess", "no proposer")
ran = j.get("status") == "optimized" or (
    (j.get("candidates") or 0) > 0 and not any(e in reason for e in errors))
sys.exit(0 if ran else 1)
EOP
}

# median_time OUT...: the median over runs of the summed maxcode-time
# lines of each run's output file.
median_time () {
    python3 - "$@" <<'EOP'
import sys
ts = []
for f in sys.argv[1:]:
    s = sum(float(l.split(":", 1)[1]) for l in open(f)
            if l.startswith("maxcode-time:"))
    ts.append(s)
ts.sort()
n = len(ts)
print("%.9f" % (ts[n // 2] if n % 2 else (ts[n // 2 - 1] + ts[n // 2]) / 2))
EOP
}

if [ ! -x "$MC" ] || [ ! -f examples/cuda/Makefile ]; then
    say "cuda-check: run me from the root of a built maxcode tree" \
        "(no ./maxcode or examples/cuda here)"
    exit 1
fi
say "cuda-check: $("$MC" --version) in $ROOT"

# ---- a. the device
step "a. device: maxcode cuda --refresh"
out=$(timeout "$(left 60)" "$MC" cuda --refresh 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/   /'
case $out in
*"unknown command"*)
    say "FAIL: this maxcode has no 'cuda' command (built before CUDA support?)"
    exit 1 ;;
esac
if [ $rc -ne 0 ] || printf '%s\n' "$out" | grep -q 'no CUDA device' ||
   ! printf '%s\n' "$out" | grep -q '^CUDA: ' ||
   ! printf '%s\n' "$out" | grep -Eq '^ +[0-9]+: '; then
    why=$(printf '%s\n' "$out" | grep -m1 'no CUDA device' || true)
    say "${why:-no CUDA device}"
    say "cuda-check: nothing to check on this machine"
    exit 2
fi

if [ -z "${NVCC:-}" ]; then
    NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
fi
if [ ! -x "$NVCC" ]; then
    say "FAIL: no nvcc (not on PATH nor in /usr/local/cuda/bin; set NVCC=)"
    exit 1
fi
say "   nvcc: $NVCC ($("$NVCC" --version | grep -m1 -o 'release [0-9.]*'))"
if command -v compute-sanitizer >/dev/null 2>&1; then
    say "   compute-sanitizer: $(command -v compute-sanitizer)"
else
    say "   compute-sanitizer: not installed (candidates run without memcheck)"
fi
# The header's directory, as the example's Makefile gets it. $INC is
# left unquoted where it is used: it may hold several words.
if INC=$("$MC" --cflags 2>/dev/null) && [ -n "$INC" ]; then
    FLAGS_OVERRIDE=
else
    INC="-I$ROOT/include"
    FLAGS_OVERRIDE="NVCCFLAGS=-O3 $INC"
    say "   (maxcode --cflags failed: using $INC)"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/maxcode-cuda-check.XXXXXX") || exit 1
say "   work directory: $WORK"

# run_example DIR CACHE TIMEOUT BUDGET [VAR=VALUE...]: make in a fresh
# copy of examples/cuda, its budget= set to BUDGET, with this tree's
# maxcode and VAR=VALUE in the environment; the log is DIR.log.
run_example () {
    _dir=$1 _cache=$2 _to=$3 _budget=$4
    shift 4
    rm -rf "$_dir"
    cp -R examples/cuda "$_dir" && rm -rf "$_dir/.maxcode" "$_dir/matmul" &&
        sed "s/budget=[0-9]*/budget=$_budget/" examples/cuda/Makefile \
            >"$_dir/Makefile" || return 1
    (
        cd "$_dir" &&
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAXCODE_REMOTE \
            -u MAXCODE_LLM_RECORD -u MAXCODE_LLM_REPLAY -u MAXCODE_STRICT \
            MAXCODE_CACHE_DIR="$_cache" MAXCODE_MODE=optimize \
            MAXCODE_TIME_LIMIT=$((_to * 6 / 10)) MAXCODE_TIMING_CAP=6 \
            "$@" timeout --kill-after=10 "$_to" \
            make MAXCODE="$MC" NVCC="$NVCC" \
            ${FLAGS_OVERRIDE:+"$FLAGS_OVERRIDE"}
    ) >"$_dir.log" 2>&1
}

# show DIR CACHE OUT: the manifest of matmul.cu's entry, into OUT.
show () {
    (cd "$1" && MAXCODE_CACHE_DIR=$2 "$MC" show matmul.cu --json) >"$3" 2>&1
}

# ---- b. built-in search
step "b. search with the built-in proposer (budget 6)"
B_OK=0
t=$SECONDS
if run_example "$WORK/builtin" "$WORK/cache-builtin" "$(left 120)" 6 \
        MAXCODE_PROPOSER=builtin; then
    say "   make: ok in $((SECONDS - t)) s"
else
    fail "make failed or timed out (status $?): see $WORK/builtin.log"
fi
grep -E '^(maxcode:|CUDA error)' "$WORK/builtin.log" | sed 's/^/   /'
if show "$WORK/builtin" "$WORK/cache-builtin" "$WORK/builtin.json"; then
    say "   manifest: $(manifest summary "$WORK/builtin.json")"
    if manifest ran "$WORK/builtin.json"; then
        B_OK=1
    else
        fail "the built-in search did not run to an end"
    fi
else
    fail "no manifest: $(head -1 "$WORK/builtin.json")"
fi

# ---- c. re-measure
step "c. re-measure the original and the kept variant (5 runs each)"
C_LINE="re-measured: not measured"
key=
[ -s "$WORK/builtin.json" ] && key=$(json "$WORK/builtin.json" 'j["key"]')
variant=$WORK/builtin/.maxcode/$key/matmul.cu
if [ -z "$key" ] || [ ! -f "$variant" ]; then
    fail "no variant file to measure (.maxcode/${key:-?}/matmul.cu)"
else
    (
        cd "$WORK/builtin" &&
        timeout "$(left 60)" "$NVCC" -O3 $INC -o "$WORK/orig" \
            harness.cu matmul.cu &&
        timeout "$(left 60)" "$NVCC" -O3 $INC -o "$WORK/variant" \
            ".maxcode/$key/matmul.cu" harness.cu
    ) >"$WORK/remeasure-build.log" 2>&1 ||
        fail "nvcc failed: see $WORK/remeasure-build.log"
    if [ -x "$WORK/orig" ] && [ -x "$WORK/variant" ]; then
        ok=1
        for i in 1 2 3 4 5; do
            for w in orig variant; do
                [ $ok = 1 ] || break
                timeout "$(left 30)" "$WORK/$w" 512 >"$WORK/$w.$i.out" \
                    2>"$WORK/$w.$i.err" && continue
                ok=0
                fail "$w run $i failed: $(head -1 "$WORK/$w.$i.err")"
            done
        done
        if [ $ok = 1 ]; then
            to=$(median_time "$WORK"/orig.[1-5].out)
            tv=$(median_time "$WORK"/variant.[1-5].out)
            C_LINE=$(python3 - "$to" "$tv" <<'EOP'
import sys
o, v = map(float, sys.argv[1:])
print("re-measured: original %.9f s, variant %.9f s, ratio %.2f"
      % (o, v, o / v if v > 0 else float("nan")))
EOP
)
            say "   $C_LINE"
            grep -v '^maxcode-time:' "$WORK/orig.1.out" >"$WORK/orig.txt"
            grep -v '^maxcode-time:' "$WORK/variant.1.out" >"$WORK/variant.txt"
            if python3 - "$WORK/orig.txt" "$WORK/variant.txt" <<'EOP'
import re, sys
num = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf")
a, b = (open(f).read() for f in sys.argv[1:])
ta, tb = num.split(a), num.split(b)
na, nb = num.findall(a), num.findall(b)
ok = ta == tb and len(na) == len(nb) and all(
    x == y or abs(float(x) - float(y)) <= 1e-5 or
    abs(float(x) - float(y)) <= 1e-4 * max(abs(float(x)), abs(float(y)))
    for x, y in zip(na, nb))
sys.exit(0 if ok else 1)
EOP
            then
                say "   outputs agree within tolerance 1e-4/1e-5"
            else
                fail "the variant's output differs from the original's"
            fi
        fi
    fi
fi

# ---- d. model-driven search against the loopback stub
step "d. search with the model-driven proposer against the stub (budget 4)"
D_OK=0
STUB=$WORK/stub
mkdir -p "$STUB/log"
# The known faster kernel: matmul.cu with the body of matmul replaced by a
# 16 x 16 shared-memory tiled one (the harness launches 16 x 16 blocks).
# Only the kernel changes, so the kernel=matmul fence lets it through.
python3 - examples/cuda/matmul.cu "$STUB/script.json" <<'EOP'
import json, sys
src = open(sys.argv[1]).read()
sig = "matmul(const float *A, const float *B, float *C, int n)\n{\n"
head = src[:src.index(sig) + len(sig)]
end = src.rindex("}\n")
body = """    constexpr int TILE = 16;
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;

    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = row < n && t + tx < n ? A[row * n + t + tx] : 0.0f;
        Bs[ty][tx] = t + ty < n && col < n ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = sum;
"""
fast = head + body + src[end:]
answer = ("Tile A and B through shared memory, 16 x 16 like the launch, so "
          "each element is read from global memory once per tile.\n"
          "```cuda\n" + fast + "```\n")
critique = ("1. Bugs: none.\n2. Bottlenecks: global memory bandwidth.\n"
            "3. Suggestions: tile through shared memory.")
json.dump({"rules": [
    {"match": "critic in maxcode", "responses": [{"text": critique}]},
    {"match": None, "responses": [{"text": answer}]},
]}, open(sys.argv[2], "w"), indent=1)
EOP
python3 tests/llm-stub.py --script "$STUB/script.json" --log "$STUB/log" \
    --port-file "$STUB/port" --watch-pid $$ </dev/null \
    >"$STUB/stderr" 2>&1 &
STUB_PID=$!
i=0
while [ ! -s "$STUB/port" ] && [ $i -lt 100 ] &&
      kill -0 "$STUB_PID" 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
if [ ! -s "$STUB/port" ]; then
    fail "the LLM stub did not start: $(head -3 "$STUB/stderr")"
else
    say "   stub on 127.0.0.1:$(cat "$STUB/port")"
    t=$SECONDS
    if run_example "$WORK/llm" "$WORK/cache-llm" "$(left 120)" 4 \
            MAXCODE_PROPOSER=llm MAXCODE_LLM_API=openai \
            MAXCODE_LLM_URL="http://127.0.0.1:$(cat "$STUB/port")/v1" \
            MAXCODE_MODEL=stub-model MAXCODE_API_KEY=sk-cuda-check-dummy; then
        say "   make: ok in $((SECONDS - t)) s"
    else
        fail "make failed or timed out (status $?): see $WORK/llm.log"
    fi
    grep -E '^(maxcode:|CUDA error)' "$WORK/llm.log" | sed 's/^/   /'
    n=$(find "$STUB/log" -name '[0-9][0-9][0-9][0-9].json' | wc -l)
    say "   stub requests: $n"
    if show "$WORK/llm" "$WORK/cache-llm" "$WORK/llm.json"; then
        say "   manifest: $(manifest summary "$WORK/llm.json")"
        lkey=$(json "$WORK/llm.json" 'j["key"]')
        if grep -q __shared__ "$WORK/llm/.maxcode/$lkey/matmul.cu" 2>/dev/null
        then
            say "   kept variant: the tiled kernel"
        fi
        if manifest ran "$WORK/llm.json" && [ "$n" -gt 0 ]; then
            D_OK=1
        else
            fail "the model-driven search did not run to an end"
        fi
    else
        fail "no manifest: $(head -1 "$WORK/llm.json")"
    fi
fi

# ---- e. summary
step "e. summary ($((SECONDS - T0)) s)"
say "   device:  $(printf '%s\n' "$out" | sed -n 2p | sed 's/^ *//')"
[ -s "$WORK/builtin.json" ] &&
    say "   builtin: $(manifest summary "$WORK/builtin.json")"
say "   $C_LINE"
[ -s "$WORK/llm.json" ] &&
    say "   llm:     $(manifest summary "$WORK/llm.json")"
if [ $B_OK = 1 ] && [ $D_OK = 1 ] && [ $FAILED = 0 ]; then
    say "cuda-check: ok"
    exit 0
fi
say "cuda-check: FAILED (logs in $WORK)"
exit 1
