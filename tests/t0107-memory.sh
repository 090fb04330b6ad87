#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0107-memory: every run of candidate code has a real memory bound
# (issue 25, finding 8). With MAXCODE_RUN_MEMORY=256M, a candidate that
# writes 1 GiB of shared anonymous memory (mmap MAP_SHARED|MAP_ANONYMOUS,
# memset), which RLIMIT_DATA does not count and which sanitizer and
# instruction-counting runs did not bound at all, is judged `crash`,
# "out of memory": in a plain run, in a sanitizer run, in a run with the
# GPU relaxations (a .cu target, the fake device nodes of the test hook
# MAXCODE_CUDA_DEVICES and a device played by MAXCODE_CUDA_PROBE) and in
# an instruction-counting run. As root on a machine with a writable
# memory controller (this project's machines, CI), the bound is the
# run's own memory cgroup, removed after the run (an original over the
# bound cannot judge, and says so); one that a killed
# maxcode left is swept by the next; two maxcode processes at once get
# two. Without a cgroup (the hook MAXCODE_NO_CGROUP), the record's
# sandbox line says which bound is in force.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
unset CC CFLAGS CPPFLAGS LDFLAGS
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || PATH=/usr/local/cuda/bin:$PATH
# As root, candidates run as nobody, whose 64-process limit is
# machine-wide: lib.sh keeps this test apart from t0021's fork bombs
# (nobody_lock).

# own_memcg: the directory of this process's memory cgroup (v1), as
# /proc/self/cgroup and the mount of the memory controller place it;
# nothing when there is none. maxcode makes its cgroups beneath it.
own_memcg () {
  _p=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}://p' \
    /proc/self/cgroup)
  [ -n "$_p" ] || return 0
  awk -v p="$_p" '{
    for (i = 7; i <= NF && $i != "-"; i++) ;
    if ($(i + 1) != "cgroup" || $(i + 3) !~ /(^|,)memory(,|$)/) next
    r = $4
    if (r == "/") { print $5 (p == "/" ? "" : p); exit }
    if (index(p, r) == 1) { print $5 substr(p, length(r) + 1); exit }
  }' /proc/self/mountinfo
}
CG=$(own_memcg)
if [ "$(id -u)" = 0 ] && [ -n "$CG" ] && [ -w "$CG" ]; then
  CGROUP=1
else
  CGROUP=
  WHY="not root, or no writable v1 memory controller here${CG:+ ($CG)}"
fi

# mc_eval JSON ARGS...: `maxcode eval ARGS --json` into JSON (stderr in
# JSON.err); its status, and its PID in $last_pid (its cgroup's name
# ends in -PID).
mc_eval () {
  _out=$1; shift
  "$MAXCODE_BIN" eval "$@" --json >"$_out" 2>"$_out.err" &
  last_pid=$!
  wait "$last_pid"
}

# cgroup_gone PID: no cgroup of maxcode process PID is left.
cgroup_gone () {
  ! ls "$CG" | grep -q -- "^maxcode-eval-.*-$1\$"
}

# The original prints 42; the candidates print 42 too, after writing
# 1 GiB of shared anonymous memory (always, under ASan only, or on the
# input "big" only).
cat >orig.c <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#pragma maxcode begin
static int work(const char *w)
{
    (void)w;
    return 42;
}
#pragma maxcode end
int main(void)
{
    char w[16] = "";
    if (scanf("%15s", w) != 1)
        w[0] = '\0';
    printf("%d\n", work(w));
    return 0;
}
EOF
# fill COND: the candidate that writes 1 GiB when the C condition COND
# holds.
fill () {
  sed "s/^    (void)w;/    size_t n = (size_t)1 << 30;\\
    if ($1) {\\
        char *p = (char *)mmap(0, n, PROT_READ | PROT_WRITE,\\
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);\\
        if (p != MAP_FAILED)\\
            memset(p, 1, n);\\
    }\\
    (void)w;/" orig.c
}
fill 1 >plain.c
# Under ASan only: the plain runs pass, the sanitizer run does not.
fill SAN | sed 's/^static int work/#if defined(__SANITIZE_ADDRESS__)\
#define SAN 1\
#else\
#define SAN 0\
#endif\
static int work/' >san.c
fill '!strcmp(w, "big")' >big.c
# The CUDA pair waits a second before it prints: a run's timeout is ten
# times the original's plus 5 s, and on a loaded machine the cgroup's
# reclaim can take longer than 5 s to end in the OOM kill asserted.
slow () {
  sed 's/^    printf("%d\\n", work(w));$/    usleep(1000000);\n&/' "$1"
}
slow orig.c >orig.cu
fill 1 | slow /dev/stdin >plain.cu
echo small >small.txt
echo big >big.txt

test_expect_success 'the candidates differ from the original as meant' '
  ! cmp -s orig.c plain.c && ! cmp -s orig.c san.c && ! cmp -s orig.c big.c &&
  grep -q "MAP_SHARED | MAP_ANONYMOUS" plain.c &&
  grep -q "if (SAN)" san.c && grep -q "strcmp(w, \"big\")" big.c &&
  cc -o p plain.c && cc -o s san.c && cc -o b big.c
'

test_expect_success 'MAXCODE_RUN_MEMORY: a documented setting, checked' '
  "$MAXCODE_BIN" config >c.txt && contains c.txt "MAXCODE_RUN_MEMORY" &&
  grep "MAXCODE_RUN_MEMORY" c.txt | grep -q "4G" &&
  MAXCODE_RUN_MEMORY=12M expect_exit 1 "$MAXCODE_BIN" eval orig.c orig.c \
    --no-time 2>e12 &&
  contains e12 "MAXCODE_RUN_MEMORY '"'"'12M'"'"' is not a memory bound" &&
  MAXCODE_RUN_MEMORY=lots expect_exit 1 "$MAXCODE_BIN" eval orig.c \
    orig.c --no-time 2>elots && contains elots "MAXCODE_RUN_MEMORY"
'

if [ -n "$CGROUP" ]; then
  export MAXCODE_RUN_MEMORY=256M

  test_expect_success 'a plain run writing 1 GiB of shared memory: crash, out of memory; its cgroup removed' '
    mc_eval fb orig.c plain.c --no-time; st=$? &&
    json fb "j[\"verdict\"] == \"crash\"" \
      "j[\"detail\"].startswith(\"(no input): out of memory: killed in its cgroup at the run\x27s bound of 256 MiB (MAXCODE_RUN_MEMORY)\")" \
      "\"memory 256 MiB per run, every page counted, shared memory too (its own cgroup v1\" in j[\"sandbox\"]" &&
    test "$st" = 3 && cgroup_gone "$last_pid"
  '

  test_expect_success 'a sanitizer run writing 1 GiB of shared memory: crash, out of memory' '
    mc_eval fb orig.c san.c --no-time; st=$? &&
    json fb "j[\"verdict\"] == \"crash\"" \
      "j[\"detail\"].startswith(\"(no input): out of memory in the sanitizer run: killed in its cgroup\")" &&
    test "$st" = 3 && cgroup_gone "$last_pid"
  '

  if command -v "$NVCC" >/dev/null; then
    test_expect_success 'a run with the GPU relaxations writing 1 GiB of shared memory: crash, out of memory' '
      mkdir -p dev && : >dev/nvidia0 && : >dev/nvidiactl &&
      chmod 666 dev/nvidia0 dev/nvidiactl &&
      printf "%s\n" "{\"devices\":[{\"index\":0,\"name\":\"NVIDIA H200\",\"cc\":\"9.0\"}],\"driver\":\"12.8\",\"runtime\":\"13.0\",\"error\":null,\"via\":\"hook\"}" >h200.json &&
      MAXCODE_CUDA_DEVICES="$TRASH/dev/nvidia*" \
        MAXCODE_CUDA_PROBE="$TRASH/h200.json" \
        mc_eval fb orig.cu plain.cu --no-time; st=$? &&
      json fb "j[\"verdict\"] == \"crash\"" \
        "j[\"detail\"].startswith(\"(no input): out of memory: killed in its cgroup at the run\x27s bound of 256 MiB\")" \
        "\"CUDA runs: the NVIDIA device nodes writable, no address-space limit (the cgroup bounds their host memory)\" in j[\"sandbox\"]" &&
      test "$st" = 3 && cgroup_gone "$last_pid"
    '
  else
    test_skip 'a run with the GPU relaxations writing 1 GiB of shared memory: crash, out of memory' \
      "no $NVCC (CI installs the CUDA toolkit, see t0060)"
  fi

  test_expect_success 'an instruction-counting run writing 1 GiB of shared memory: crash, out of memory' '
    mc_eval fb orig.c big.c inputs=small.txt bench-inputs=big.txt \
      metric=instructions; st=$? &&
    json fb "j[\"verdict\"] == \"crash\"" \
      "j[\"detail\"] == \"out of memory while it was counted: killed in its cgroup at the run\x27s bound of 256 MiB (MAXCODE_RUN_MEMORY)\"" &&
    test "$st" = 3 && cgroup_gone "$last_pid"
  '

  test_expect_success 'the original itself over the bound: cannot judge, and why' '
    "$MAXCODE_BIN" eval plain.c orig.c --no-time >o.out 2>o.err &
    last_pid=$!
    wait "$last_pid"; test $? = 1 &&
    contains o.err "the original ran out of memory on (no input): killed in its cgroup at the run'"'"'s bound of 256 MiB (MAXCODE_RUN_MEMORY); raise MAXCODE_RUN_MEMORY" &&
    cgroup_gone "$last_pid"
  '

  test_expect_success 'a killed maxcode leaves a cgroup that the next one sweeps' '
    sed "s/^    return 42;/    sleep(w[0] ? 1 : 30);\\
    return 42;/" orig.c >sleepy.c || exit 1
    # Alone in its list: bash would fork a subshell for "A && B &".
    "$MAXCODE_BIN" eval orig.c sleepy.c --no-time >/dev/null 2>&1 &
    pid=$! && n=0 &&
    while [ $n -lt 300 ]; do
      for procs in "$CG"/maxcode-eval-*-"$pid"/run-*/cgroup.procs; do
        grep -q . "$procs" 2>/dev/null && break 2
      done
      sleep 0.1; n=$((n + 1))
    done &&
    kill -9 "$pid" && wait "$pid"; ls "$CG" >before &&
    grep -q -- "^maxcode-eval-.*-$pid\$" before &&
    mc_eval fb orig.c orig.c --no-time &&
    cgroup_gone "$pid" && cgroup_gone "$last_pid"
  '

  test_expect_success 'two maxcode processes at once: two cgroups, none left' '
    sed "s/^    return 42;/    sleep(2);\\
    return 42;/" orig.c >slow.c || exit 1
    "$MAXCODE_BIN" eval orig.c slow.c --no-time --json >f1 2>&1 & p1=$!
    "$MAXCODE_BIN" eval orig.c slow.c --no-time --json >f2 2>&1 & p2=$!
    n=0 both=
    while [ $n -lt 300 ] && [ -z "$both" ]; do
      ls "$CG" >now
      grep -q -- "-$p1\$" now && grep -q -- "-$p2\$" now && both=1
      sleep 0.1; n=$((n + 1))
    done
    wait $p1; s1=$?; wait $p2; s2=$?
    test -n "$both" && test $s1 = 0 && test $s2 = 0 &&
    json f1 "j[\"verdict\"] == \"correct\"" &&
    json f2 "j[\"verdict\"] == \"correct\"" &&
    cgroup_gone "$p1" && cgroup_gone "$p2"
  '
  unset MAXCODE_RUN_MEMORY
else
  for t in 'a plain run' 'a sanitizer run' 'a run with the GPU relaxations' \
      'an instruction-counting run'; do
    test_skip "$t writing 1 GiB of shared memory: crash, out of memory" "$WHY"
  done
  test_skip 'the original itself over the bound: cannot judge, and why' "$WHY"
  test_skip 'a killed maxcode leaves a cgroup that the next one sweeps' "$WHY"
  test_skip 'two maxcode processes at once: two cgroups, none left' "$WHY"
fi

test_expect_success 'without a cgroup: the record says which bound; ASan watches a sanitizer run' '
  MAXCODE_NO_CGROUP=1 MAXCODE_RUN_MEMORY=256M \
    mc_eval fb orig.c san.c --no-time; st=$? &&
  json fb "j[\"verdict\"] == \"crash\"" \
    "j[\"detail\"].startswith(\"(no input): out of memory in the sanitizer run: stopped by ASan\x27s resident-memory limit at the run\x27s bound of 256 MiB\")" \
    "\"address space 256 MiB per run (RLIMIT_AS; no memory cgroup: MAXCODE_NO_CGROUP is set), sanitizer runs: NO hard memory bound\" in j[\"sandbox\"]" &&
  test "$st" = 3
'

test_done
