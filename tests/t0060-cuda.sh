#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0060-cuda: CUDA targets on a machine without a GPU. The example's
# kernel and the built-in proposer's variants of it compile with nvcc;
# without a device the original is kept with the reason "no CUDA
# device", nothing is cached and the build succeeds (MAXCODE_STRICT=1
# too); an original whose runs end with a CUDA error is never searched;
# kernel= rejects a candidate that changes host code; and the key
# changes with the GPU. A machine with a given GPU, or none, is played
# through the documented test hook MAXCODE_CUDA_PROBE.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || PATH=/usr/local/cuda/bin:$PATH

# probe FILE NAME CC: a probe result with one device NAME of capability
# CC; with NAME "": none.
probe () {
  if [ -n "$2" ]; then
    printf '{"devices":[{"index":0,"name":"%s","cc":"%s"}],"driver":"12.8",'\
'"runtime":"13.0","error":null,"via":"hook"}\n' "$2" "$3" >"$1"
  else
    printf '{"devices":[],"driver":"","runtime":"","error":"no device in'\
' this test","via":"hook"}\n' >"$1"
  fi
}
probe "$TRASH/none.json" ""
probe "$TRASH/h200.json" "NVIDIA H200" 9.0
probe "$TRASH/a100.json" "NVIDIA A100-SXM4-80GB" 8.0
probe "$TRASH/h100.json" "NVIDIA H200" 8.0

# project DIR [MALLOC]: a kernel scale() in kern.cu, marked through the
# Makefile with kernel=scale, and a harness; MALLOC is the bytes the
# harness asks the device for (a huge one fails on any GPU).
project () {
  mkdir -p "$1" && cat >"$1/kern.cu" <<-\EOF &&
	__global__ void scale(float *y, const float *x, int n)
	{
	    int i = blockIdx.x * blockDim.x + threadIdx.x;
	    if (i < n)
	        y[i] = 2.0f * x[i];
	}
	int host_side(void) { return 7; }
	EOF
  cat >"$1/harness.cu" <<-EOF &&
	#include <cstdio>
	__global__ void scale(float *y, const float *x, int n);
	int main()
	{
	    int n = 1024;
	    float *x, *y;
	    cudaError_t e = cudaMalloc(&x, (size_t)${2:-4096});
	    if (e != cudaSuccess) {
	        fprintf(stderr, "CUDA error: %s (cudaMalloc)\\n",
	                cudaGetErrorString(e));
	        return 1;
	    }
	    cudaMalloc(&y, n * sizeof(float));
	    scale<<<(n + 255) / 256, 256>>>(y, x, n);
	    e = cudaDeviceSynchronize();
	    printf("%s\\n", e == cudaSuccess ? "done" : "failed");
	    return 0;
	}
	EOF
  # The recipe drops LD_PRELOAD: with an ASan plugin, run_make preloads
  # the ASan runtime into make, and nvcc crashes under it.
  printf '%s\n' "load $PLUGIN" 'NVCC = nvcc' \
    'prog: $(maxcode kern.cu, kernel=scale, link=harness.cu) harness.cu' \
    '>env -u LD_PRELOAD $(NVCC) -o $@ $^' | tabify >"$1/Makefile"
}

# key_of MAKE-ARGS...: the key of kern.cu's variant in `make -n`.
key_of () {
  run_make -n "$@" 2>/dev/null | grep -o '\.maxcode/[0-9a-f]*/kern\.cu' |
    head -n 1 | cut -d/ -f2
}

test_expect_success 'the example and built-in variants of it compile' '
  ex="$MC_SRCDIR/examples/cuda" && inc=$("$MAXCODE_BIN" --cflags) &&
  test -f "$ex/matmul.cu" && test -f "$ex/harness.cu" &&
  mkdir v && "$MC_BUILDDIR/tests/unit/test-propose" --render "$ex/matmul.cu" v \
    kernel=matmul tolerance=1e-4/1e-5 >variants &&
  test "$(wc -l <variants)" -ge 2 &&
  "$NVCC" -O3 $inc -c -o harness.o "$ex/harness.cu" &&
  "$NVCC" -O3 $inc -o orig "$ex/matmul.cu" harness.o &&
  for f in $(head -n 2 variants); do
    "$NVCC" -O3 $inc -o var "v/$f" harness.o || exit 1
    grep -q "__launch_bounds__\|__restrict__\|#pragma unroll\|__expf" "v/$f" ||
      { echo "# $f has no knob"; exit 1; }
  done
'

test_expect_success 'no device: the original, uncached, and no failure' '
  project p1 && cd p1 &&
  MAXCODE_CUDA_PROBE="$TRASH/none.json" MAXCODE_STRICT=1 \
    run_make >out 2>err && test -x prog &&
  contains err "kern.cu: no CUDA device" &&
  ! grep -q "\.maxcode/" out &&
  expect_stats stores 0 searches 0 && test "$(entries)" = 0 &&
  MAXCODE_CUDA_PROBE="$TRASH/none.json" MAXCODE_STRICT=1 \
    run_make >out2 2>err2 && contains out2 "is up to date"
'

test_expect_success 'no device, as the probe of this machine finds it' '
  project p2 && cd p2 &&
  "$MAXCODE_BIN" cuda --json >probe.json && test -s probe.json &&
  if json probe.json "len(j[\"devices\"]) == 0"; then
    MAXCODE_STRICT=1 run_make >out 2>err && test -x prog &&
    contains err "kern.cu: no CUDA device" && ! grep -q "\.maxcode/" out &&
    test "$(entries)" = 0 && expect_stat searches 0 &&
    MAXCODE_STRICT=1 run_make >out2 2>err2 &&
    contains err2 "kern.cu: no CUDA device" && expect_stat searches 0
  else
    run_make >out 2>err && ! grep -q "no CUDA device" err
  fi
'

test_expect_success 'an original failing with a CUDA error is not searched' '
  project p3 1125899906842624 && cd p3 &&
  MAXCODE_CUDA_PROBE="$TRASH/h200.json" run_make >out 2>err &&
  test -x prog &&
  "$MAXCODE_BIN" show kern.cu --json >m.json &&
  json m.json "j[\"status\"] == \"original\"" \
    "\"fails with a CUDA error\" in j[\"reason\"]" \
    "\"CUDA error: \" in j[\"reason\"]" \
    "j[\"candidates\"] == 0" "j[\"correct_candidates\"] == 0"
'

test_expect_success 'kernel= rejects a candidate that changes host code' '
  project p4 && cd p4 &&
  sed "s/return 7;/return 8;/" kern.cu >host.cu &&
  MAXCODE_CUDA_PROBE="$TRASH/h200.json" expect_exit 3 \
    "$MAXCODE_BIN" eval kern.cu host.cu kernel=scale link=harness.cu \
    --json >e.json &&
  json e.json "j[\"verdict\"] == \"rejected\"" \
    "\"text outside kernel \x27scale\x27 changed at line 7\" in j[\"detail\"]" &&
  sed "s/2.0f \* x\[i\]/x[i] + x[i]/" kern.cu >body.cu &&
  ! cmp -s kern.cu body.cu &&
  MAXCODE_CUDA_PROBE="$TRASH/h200.json" "$MAXCODE_BIN" eval kern.cu \
    body.cu kernel=scale link=harness.cu --json >b.json 2>b.err;
  ! grep -q "outside kernel" b.json b.err
'

test_expect_success 'the key changes with the GPU, not with the same GPU' '
  project p5 && cd p5 &&
  k1=$(MAXCODE_CUDA_PROBE="$TRASH/h200.json" key_of) &&
  k2=$(MAXCODE_CUDA_PROBE="$TRASH/h200.json" key_of) &&
  k3=$(MAXCODE_CUDA_PROBE="$TRASH/a100.json" key_of) &&
  k4=$(MAXCODE_CUDA_PROBE="$TRASH/h100.json" key_of) &&
  echo "$k1 $k2 $k3 $k4" && test -n "$k1" && test "$k1" = "$k2" &&
  test "$k1" != "$k3" && test "$k1" != "$k4" && test "$k3" != "$k4" &&
  k5=$(MAXCODE_CUDA_PROBE="$TRASH/h200.json" key_of NVCCFLAGS=-arch=sm_90) &&
  test -n "$k5" && test "$k5" != "$k1"
'

test_expect_success 'maxcode cuda prints the probe; the hook is read' '
  MAXCODE_CUDA_PROBE="$TRASH/h200.json" "$MAXCODE_BIN" cuda >c.txt &&
  contains c.txt "CUDA: 1 device, driver 12.8" &&
  contains c.txt "0: NVIDIA H200 (compute capability 9.0)" &&
  MAXCODE_CUDA_PROBE="$TRASH/none.json" "$MAXCODE_BIN" cuda >n.txt &&
  contains n.txt "no CUDA device: no device in this test"
'

test_done
