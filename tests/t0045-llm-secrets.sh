#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0045-llm-secrets: the API key reaches the endpoint's request header
# and nothing else: no file under the cache directory or .maxcode/, no
# log line (verbose included), no recorded exchange, and no child
# process's command line or environment (the compiler and the candidate
# both look for it, and a sampler watches every descendant of make).
. "$MC_SRCDIR/tests/lib.sh"

# The timing decides nothing asserted here: its rounds keep lib.sh's
# shortest cap, and the searches run on llm_small inputs (a correct
# candidate is asserted, not what the timing kept).
export MAXCODE_CACHE_DIR="$TRASH/cache"
KEY=sk-test-SECRET-4242

# The fast variant, which prints a wrong answer when it finds the key in
# its own or its parent's environment or command line. The key is put
# together at run time, so the code itself does not hold it.
spy_variant () {
  sed -n '1p' v/fast.c
  cat <<-\EOF2
	#include <string.h>
	#include <unistd.h>
	static int
	holds(const char *path, const char *needle)
	{
	    static char buf[1 << 16];
	    FILE *f = fopen(path, "r");
	    size_t n, k = strlen(needle), i;
	    if (!f)
	        return 0;
	    n = fread(buf, 1, sizeof buf, f);
	    fclose(f);
	    for (i = 0; i + k <= n; i++)
	        if (!memcmp(buf + i, needle, k))
	            return 1;
	    return 0;
	}
	static int
	leaked(void)
	{
	    char needle[64], p[64];
	    int found;
	    snprintf(needle, sizeof needle, "%s-%s-%d", "sk-test", "SECRET", 4242);
	    found = holds("/proc/self/environ", needle) |
	            holds("/proc/self/cmdline", needle);
	    snprintf(p, sizeof p, "/proc/%d/environ", (int)getppid());
	    found |= holds(p, needle);
	    snprintf(p, sizeof p, "/proc/%d/cmdline", (int)getppid());
	    return found | holds(p, needle);
	}
	EOF2
  sed -n '2,$p' v/fast.c | sed 's/^    int n;$/    int n;\n    if (leaked()) { puts("LEAK"); return 0; }/'
}

# spy_makefile: maxcode compiles with spycc ($(CC)); the link recipe, the
# user's own, runs plain cc (it may see what the user exported).
spy_makefile () {
  sed -i -e "s|^CFLAGS|CC = $PWD/spycc\nCFLAGS|" \
    -e "s|\$(CC) \$(CFLAGS)|cc \$(CFLAGS)|" Makefile
}

# A compiler that refuses to compile when it sees the key.
spy_cc () {
  cat >spycc <<-\EOF2
	#!/bin/sh
	case "$*" in *SECRET-4242*) echo "spycc: key on the command line" >&2; exit 1 ;; esac
	if env | grep -q SECRET-4242; then echo "spycc: key in the environment" >&2; exit 1; fi
	exec cc "$@"
	EOF2
  chmod +x spycc
}

# sampler KEY: watch every process under a running "maxcode optimize"
# (not that process: it holds the key the user gave it) until ./done
# appears; print how many it saw and which held KEY.
sampler () {
  python3 -S - "$1" <<-\EOP
	import os, sys, time
	key = sys.argv[1].encode()
	me = os.getpid()
	seen, leaks = set(), []
	def ppid(p):
	    try:
	        return int(open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()[1])
	    except Exception:
	        return 0
	here = os.getcwd()
	def under_maxcode(p):
	    # A descendant of a "maxcode optimize" run in this directory,
	    # itself not maxcode (a child between fork and exec still is).
	    try:
	        if open("/proc/%d/cmdline" % p, "rb").read().split(b"\0")[0] \
	                .endswith(b"/maxcode"):
	            return False
	    except Exception:
	        return False
	    q = ppid(p)
	    while q > 1:
	        try:
	            if b"optimize" in open("/proc/%d/cmdline" % q, "rb").read():
	                return os.readlink("/proc/%d/cwd" % q) == here
	        except Exception:
	            return False
	        q = ppid(q)
	    return False
	end = time.time() + 60
	while time.time() < end and not os.path.exists("done"):
	    for d in os.listdir("/proc"):
	        if not d.isdigit() or int(d) == me:
	            continue
	        p = int(d)
	        if not under_maxcode(p):
	            continue
	        try:
	            data = open("/proc/%d/environ" % p, "rb").read() + \
	                   open("/proc/%d/cmdline" % p, "rb").read()
	        except Exception:
	            continue
	        seen.add(p)
	        if key in data:
	            leaks.append(open("/proc/%d/cmdline" % p, "rb").read())
	    time.sleep(0.002)
	print("seen", len(seen))
	print("leaks", len(leaks), leaks[:3])
	EOP
}

test_expect_success 'a search with the key set' '
  llm_project p "strategy=flat, budget=1" && llm_small p && cd p && spy_cc &&
  spy_makefile &&
  spy_variant >v/spy.c && grep -q "LEAK" v/spy.c && ! grep -q "$KEY" v/spy.c &&
  llm_script s.json CRITIQUE -- v/spy.c && stub_start s.json && llm_env ||
    exit 1
  sampler "$KEY" >sampled &
  pid=$!
  MAXCODE_LOG=verbose MAXCODE_LLM_RECORD=$TRASH/rec run_make >out 2>err;
  status=$?; touch done; wait $pid; cat sampled; test $status -eq 0 &&
  grep -q "^leaks 0" sampled && ! grep -q "^seen 0$" sampled &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "j[\"correct_candidates\"] >= 1" \
    "j[\"trajectory\"][0][\"verdict\"] == \"correct\"" &&
  test "$(stub_field 1 "r[\"headers\"][\"authorization\"]")" = "Bearer $KEY"
'

test_expect_success 'the key is in no file of the cache or .maxcode/' '
  cd p && test -d "$MAXCODE_CACHE_DIR" && test -d .maxcode &&
  ! grep -rl "$KEY" "$MAXCODE_CACHE_DIR" .maxcode
'

test_expect_success 'the key is in no log line and no recorded exchange' '
  cd p && test -s err && ! grep -l "$KEY" out err &&
  test -d "$TRASH/rec" && ! grep -rl "$KEY" "$TRASH/rec"
'

test_expect_success 'a key given on the make command line reaches no child' '
  llm_project q "strategy=flat, budget=1, min-speedup=1.04" && llm_small q &&
  cd q &&
  spy_cc && spy_makefile &&
  cp ../p/v/spy.c v/ && llm_script s.json CRITIQUE -- v/spy.c &&
  stub_start s.json && llm_env && unset MAXCODE_API_KEY &&
  run_make MAXCODE_API_KEY=$KEY >out 2>err &&
  test "$(stub_field 1 "r[\"headers\"][\"authorization\"]")" = "Bearer $KEY" &&
  ! grep -l "$KEY" out err && ! grep -rl "$KEY" "$MAXCODE_CACHE_DIR" .maxcode &&
  "$MAXCODE_BIN" show hot.c --json >m && json m "j[\"correct_candidates\"] >= 1"
'

test_expect_success 'a key set in the makefile reaches the endpoint, no child' '
  llm_project r "strategy=flat, budget=1, min-speedup=1.05" && llm_small r &&
  cd r &&
  spy_cc && spy_makefile && sed -i "1a MAXCODE_API_KEY = $KEY" Makefile &&
  cp ../p/v/spy.c v/ && llm_script s.json CRITIQUE -- v/spy.c &&
  stub_start s.json && llm_env && unset MAXCODE_API_KEY &&
  run_make >out 2>err &&
  test "$(stub_field 1 "r[\"headers\"][\"authorization\"]")" = "Bearer $KEY" &&
  ! grep -l "$KEY" out err && ! grep -rl "$KEY" "$MAXCODE_CACHE_DIR" .maxcode &&
  { run_make -n -B >dry 2>&1 || :; } && ! grep -q "$KEY" dry &&
  "$MAXCODE_BIN" show hot.c --json >m && json m "j[\"correct_candidates\"] >= 1"
'

test_expect_success 'maxcode config does not show the key' '
  MAXCODE_API_KEY=$KEY "$MAXCODE_BIN" config >c &&
  grep -q MAXCODE_API_KEY c && ! grep -q "$KEY" c
'

test_done
