#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0021-adversarial: hostile candidates under `maxcode eval`. Each one must
# be judged not correct, or be contained: nothing changes outside the
# eval's scratch directory, no process of it outlives the eval, and the
# scratch directory itself is gone afterwards.
. "$MC_SRCDIR/tests/lib.sh"

export MAXCODE_CACHE_DIR="$TRASH/cache"
export MAXCODE_TIMING_CAP=3
export CFLAGS=-O2
unset CC CPPFLAGS LDFLAGS

# The evals make their scratch directories (maxcode-eval-*) here, not in
# /tmp, so that "none is left" and "no process runs from one" are about
# this test only. As root the candidates run as nobody, who must be able
# to reach the directory: $TRASH is 0700 from mktemp.
chmod 0711 "$TRASH"
mkdir -m 0711 "$TRASH/tmp"
export TMPDIR="$TRASH/tmp"
# Programs the candidates exec carry this in their command line.
MARK="mcadv-$(basename "$TRASH" | tr -c 'A-Za-z0-9\n' -)"
if [ "$(id -u)" -eq 0 ]; then ROOT=1; else ROOT=; fi

# The candidates of a root eval share nobody's 64-process limit with every
# other eval on the machine; every test holds lib.sh's lock shared, the
# fork bombs here take it exclusively (nobody_lock, in lib.sh).
nproc_lock () { nobody_lock; }
nproc_unlock () { nobody_unlock; }

# procs: the processes of this test's evals that still run (those of
# cases 2 to 4 run under $TRASH/tmp-NAME/, below).
procs () {
  pgrep -f "^$TRASH/tmp[/-]" ; pgrep -f "$MARK"
}

# kill_leftovers: what a broken sandbox left running (a fork bomb goes on
# forking): stop them all first, then kill them, by PID. The stopping
# ends when two rounds in a row find no process it has not stopped (a
# stopped one forks no more), or after 100 rounds; not at 100 rounds
# always, where what is left cannot fork (the marked sleeper below).
kill_leftovers () {
  i=0 calm=0 stopped=" "
  while [ $i -lt 100 ] && [ $calm -lt 2 ]; do
    pids=$(procs) || true
    [ -n "$pids" ] || break
    calm=$((calm + 1))
    for p in $pids; do
      kill -STOP "$p" 2>/dev/null
      case $stopped in *" $p "*) ;; *) stopped="$stopped$p " calm=0 ;; esac
    done
    i=$((i + 1))
  done
  [ $i -gt 0 ] || return 0
  for p in $(procs); do kill -KILL "$p" 2>/dev/null; done
  sleep 0.2
}
trap 'kill_leftovers; cd /; rm -rf "$TRASH"' EXIT

# contained [NAME]: no process and no scratch directory left by the eval
# (by the eval of case NAME, which ran in $TRASH/tmp-NAME: see timeouts).
contained () {
  sleep 0.2 # let the kernel finish tearing down what was killed
  ok=0
  if [ $# -gt 0 ]; then
    left=$(pgrep -f "^$TRASH/tmp-$1/") || true
    _dir=$TRASH/tmp-$1
  else
    left=$(procs) || true
    _dir=$TMPDIR
  fi
  if [ -n "$left" ]; then
    echo "# processes left running:"
    ps -o pid,ppid,user,stat,args -p "$(echo $left | tr " " ,)" |
      head -20 | sed "s/^/#   /"
    kill_leftovers
    ok=1
  fi
  if [ -n "$(ls -A "$_dir")" ]; then
    echo "# left in $_dir:"; ls -lAR "$_dir" | head -20 | sed "s/^/#   /"
    rm -rf "$_dir"/maxcode-eval-*
    ok=1
  fi
  return $ok
}

# fresh: nothing an earlier, failed test left (it said so already).
fresh () {
  kill_leftovers; rm -rf "$TMPDIR"/maxcode-eval-*
}

# mce ARGS...: maxcode, killed after 60 s: a broken sandbox must fail a
# test, not hang the suite.
if command -v timeout >/dev/null 2>&1; then
  mce () { fresh; timeout -s KILL 60 "$MAXCODE_BIN" "$@"; }
else
  mce () { fresh; "$MAXCODE_BIN" "$@"; }
fi

# ev CANDIDATE [KEY=VALUE...]: judge CANDIDATE against orig.c into fb;
# it must not be correct (exit 3).
ev () {
  c=$1; shift
  expect_exit 3 mce eval orig.c "$c" "$@" --json --no-time >fb
}

# now: seconds since the epoch, with decimals.
now () { python3 -c 'import time; print(time.time())'; }

# The original: tiny, so that a candidate's timeout is about 5 s (10 times
# the original's run time + 5 s).
cat >orig.c <<'EOC'
#include <stdio.h>
int main(void) { puts("42"); return 0; }
EOC

test_expect_success 'the original alone is correct against itself' '
  mce eval orig.c orig.c --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\"" && contained
'

cat >loop.c <<'EOC'
int main(void) { for (;;) ; }
EOC

cat >sleep.c <<'EOC'
#include <unistd.h>
int main(void) { sleep(30); return 0; }
EOC

# The same, after closing its output pipes. 15 s, not forever, so that a
# broken timeout shows as a failure rather than a hang.
cat >sleep-quiet.c <<'EOC'
#include <fcntl.h>
#include <unistd.h>
int main(void)
{
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    dup2(fd, 2);
    sleep(15);
    return 0;
}
EOC

# Cases 2 to 4 each wait out the timeout of about 5 s, the least there
# is (RUN_TIMEOUT_PAD_S in runtime/exec/eval.c): their three evals run
# at once, here, each with a TMPDIR of its own ($TRASH/tmp-NAME), so
# that each case still judges its own eval: its exit status in st-NAME,
# its feedback in fb-NAME, its start and end in t-NAME ("T0 T1"), and
# "contained NAME" looks for what it alone left.
fresh
for c in loop sleep sleep-quiet; do
  mkdir -m 0711 "$TRASH/tmp-$c"
  (
    t0=$(now)
    TMPDIR=$TRASH/tmp-$c timeout -s KILL 60 "$MAXCODE_BIN" eval orig.c \
      "$c.c" --json --no-time >"fb-$c"
    echo $? >"st-$c"
    echo "$t0 $(now)" >"t-$c"
  ) &
done
wait

# exited NAME: the eval of NAME exited 3 (not correct), as ev asks.
exited () {
  [ "$(cat "st-$1")" = 3 ] ||
    { echo "# expected exit 3, got $(cat "st-$1")"; return 1; }
}

# took NAME MIN MAX: the eval of NAME took more than MIN and less than
# MAX seconds (and says how long).
took () {
  python3 -S - "$@" <<'EOP'
import sys
t0, t1 = map(float, open("t-" + sys.argv[1]).read().split())
d, least, most = t1 - t0, float(sys.argv[2]), float(sys.argv[3])
print("# %.1f s" % d)
sys.exit(not least < d < most)
EOP
}

test_expect_success 'an infinite loop: timeout after about 5 s' '
  exited loop &&
  json fb-loop "j[\"verdict\"] == \"timeout\"" "j[\"compiled\"] is True" \
    "\"timed out after 5.\" in j[\"detail\"]" &&
  took loop 4.5 15 &&
  contained loop
'

test_expect_success 'sleeping past the timeout: timeout, the sleeper killed' '
  exited sleep &&
  json fb-sleep "j[\"verdict\"] == \"timeout\"" &&
  took sleep 0 15 &&
  contained sleep
'

test_expect_success 'sleeping with stdout and stderr closed: still a timeout' '
  exited sleep-quiet &&
  json fb-sleep-quiet "j[\"verdict\"] == \"timeout\"" &&
  took sleep-quiet 0 12 &&
  contained sleep-quiet
'

cat >forkbomb.c <<'EOC'
#include <unistd.h>
int main(void) { for (;;) fork(); }
EOC

test_expect_success 'a fork bomb: contained, not correct, no process left' '
  nproc_lock && ev forkbomb.c; st=$?; contained; ct=$?; nproc_unlock;
  test $st -eq 0 && test $ct -eq 0 &&
  json fb "j[\"verdict\"] in (\"timeout\", \"crash\", \"incorrect\")"
'

# Every child leaves the process group (setsid), so that killing the
# group does not reach it.
cat >forkbomb-setsid.c <<'EOC'
#include <unistd.h>
int main(void)
{
    for (;;)
        if (fork() == 0)
            setsid();
}
EOC

test_expect_success 'a fork bomb whose children setsid(): contained, no process left' '
  nproc_lock && fresh && t0=$(now) &&
  timeout -s KILL 20 "$MAXCODE_BIN" eval orig.c forkbomb-setsid.c \
    --json --no-time >fb; st=$?; t1=$(now);
  contained; ct=$?; nproc_unlock;
  python3 -c "print(\"# %.1f s\" % ($t1 - $t0))";
  test $st -eq 3 && test $ct -eq 0 &&
  json fb "j[\"verdict\"] in (\"timeout\", \"crash\", \"incorrect\")" &&
  python3 -c "import sys; sys.exit(not $t1 - $t0 < 15)"
'

cat >bigmem.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
    size_t n = (size_t)50 << 30;
    char *p = malloc(n);
    if (!p) {
        puts("no memory");
        return 1;
    }
    memset(p, 1, n);
    printf("%d\n", p[n - 1] + 41);
    return 0;
}
EOC

test_expect_success 'a 50 GiB malloc+memset: not correct, the machine survives' '
  ev bigmem.c &&
  json fb "j[\"verdict\"] in (\"incorrect\", \"crash\")" &&
  contained && mce eval orig.c orig.c --no-time >/dev/null
'

# 10 GiB in 1 MiB writes into its working directory.
cat >bigfile.c <<'EOC'
#include <stdio.h>
#include <string.h>
int main(void)
{
    static char b[1 << 20];
    FILE *f = fopen("big.dat", "w");
    memset(b, 'x', sizeof(b));
    if (!f)
        return 2;
    for (int i = 0; i < 10240; i++)
        if (fwrite(b, 1, sizeof(b), f) != sizeof(b)) {
            puts("short write");
            return 1;
        }
    fclose(f);
    puts("42");
    return 0;
}
EOC

test_expect_success 'a 10 GiB file: stopped by the file size limit, nothing left' '
  before=$(df -Pk "$TMPDIR" | awk "NR == 2 { print \$4 }") &&
  ev bigfile.c && contained &&
  json fb "j[\"verdict\"] in (\"crash\", \"incorrect\")" &&
  { json fb "\"signal 25\" in j[\"detail\"] or \"short write\" in j[\"detail\"]" ||
    json fb "\"exit status\" in j[\"detail\"]"; } &&
  after=$(df -Pk "$TMPDIR" | awk "NR == 2 { print \$4 }") &&
  echo "# free before $before KiB, after $after KiB" &&
  test $((before - after)) -lt 1048576 &&
  test -z "$(find "$TRASH" -xdev -size +10M 2>/dev/null)"
'

# Writes outside the run directory. The targets are world-writable, so
# that only the sandbox (Landlock) can stop a candidate running as
# nobody; "precious" files must keep their bytes.
mkdir -p src/sub "$HOME/.config"
chmod 0755 "$TRASH/src" "$HOME"
chmod 0777 src/sub "$HOME" "$HOME/.config"
for f in "$HOME/precious" src/sub/precious; do
  echo "precious bytes" >"$f"; chmod 0666 "$f"
done
cat >writes.c <<EOC
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
static char got[4096]; /* what got through, as "op:dir" words */
static void through(const char *op, const char *tag)
{
    snprintf(got + strlen(got), sizeof(got) - strlen(got), " %s:%s", op,
             tag);
}
static void try_dir(const char *tag, const char *d)
{
    char p[4096];
    FILE *f;
    int fd;

    snprintf(p, sizeof(p), "%s/pwned", d);
    if ((f = fopen(p, "w")) != NULL) { fputs("pwned\n", f); fclose(f); through("create", tag); }
    snprintf(p, sizeof(p), "%s/pwned-dir", d);
    if (mkdir(p, 0777) == 0) through("mkdir", tag);
    snprintf(p, sizeof(p), "%s/pwned-link", d);
    if (symlink("/etc/passwd", p) == 0) through("symlink", tag);
    snprintf(p, sizeof(p), "%s/precious", d);
    if ((fd = open(p, O_WRONLY | O_APPEND)) >= 0) {
        if (write(fd, "pwned\n", 6) > 0) through("append", tag);
        close(fd);
    }
    if (truncate(p, 3) == 0) through("truncate", tag);
    if (unlink(p) == 0) through("unlink", tag);
}
int main(void)
{
    try_dir("HOME", "$HOME");
    try_dir("HOME/.config", "$HOME/.config");
    try_dir("src/sub", "$TRASH/src/sub");
    try_dir("src", "$TRASH/src");
    try_dir("TRASH", "$TRASH");
    if (*got)
        printf("got through:%s\n", got);
    else
        puts("42");
    return 0;
}
EOC

test_expect_success 'writes into HOME and the source tree do not happen' '
  mce eval orig.c writes.c --json --no-time >fb; st=$?;
  json fb "print(\"# detail:\", j[\"detail\"]) or True" &&
  contained &&
  for d in "$HOME" "$HOME/.config" src/sub src "$TRASH"; do
    test ! -e "$d/pwned" && test ! -e "$d/pwned-dir" &&
    test ! -L "$d/pwned-link" || { echo "# $d was written"; exit 1; }
  done &&
  for f in "$HOME/precious" src/sub/precious; do
    echo "precious bytes" >expect && test_cmp expect "$f" ||
      { echo "# $f changed"; exit 1; }
  done &&
  json fb "j[\"verdict\"] == \"correct\"" && test $st -eq 0
'

# A listener on 127.0.0.1 that notes every connection it accepts.
cat >listen.py <<'EOP'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
open("port.tmp", "w").write("%d\n" % s.getsockname()[1])
import os; os.rename("port.tmp", "port")
s.settimeout(0.2)
end = time.time() + 60
while time.time() < end and not os.path.exists("stop"):
    try:
        c, a = s.accept()
    except socket.timeout:
        continue
    open("connections", "a").write("%s\n" % (a,))
    c.close()
EOP

cat >net.c.in <<'EOC'
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
int main(void)
{
    struct sockaddr_in a = {0};
    int s = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_family = AF_INET;
    a.sin_port = htons(@PORT@);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
        puts("connected");
    else
        puts("42");
    return 0;
}
EOC

if unshare -n true 2>/dev/null; then
test_expect_success 'a TCP connect to 127.0.0.1 fails: the network is cut' '
  rm -f port stop connections &&
  { python3 listen.py & } && lpid=$! &&
  i=0 && while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done &&
  port=$(cat port) &&
  python3 -c "import socket; socket.create_connection((\"127.0.0.1\", $port)).close()" &&
  test -s connections && rm connections &&
  sed "s/@PORT@/$port/" net.c.in >net.c &&
  mce eval orig.c net.c --json --no-time >fb; st=$?;
  touch stop; wait $lpid;
  contained && test $st -eq 0 &&
  test ! -e connections &&
  json fb "j[\"verdict\"] == \"correct\"" \
    "j[\"sandbox\"].startswith(\"network: cut\")"
'
else
  test_skip 'a TCP connect to 127.0.0.1 fails: the network is cut' \
    'this user cannot make a network namespace'
fi

# The key is in maxcode's environment; the original prints "(absent)",
# and so does the candidate unless the key reaches it.
cat >key.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern char **environ;
int main(void)
{
    const char *k = getenv("MAXCODE_API_KEY");
    char buf[65536];
    FILE *f;
    size_t n, i;

    if (k) {
        printf("%s\n", k);
        return 0;
    }
    for (char **e = environ; *e; e++)
        if (strstr(*e, "sk-mc-"))
            printf("%s\n", *e);
    /* Its own and its parent's environment, as files. */
    if ((f = fopen("/proc/self/environ", "r")) != NULL) {
        n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        for (i = 0; i < n; i++)
            if (!strncmp(buf + i, "sk-mc-", 6))
                printf("%s\n", buf + i);
        fclose(f);
    }
    {
        char p[64];
        snprintf(p, sizeof(p), "/proc/%d/environ", (int)getppid());
        if ((f = fopen(p, "r")) != NULL) {
            n = fread(buf, 1, sizeof(buf) - 1, f);
            buf[n] = 0;
            for (i = 0; i < n; i++)
                if (!strncmp(buf + i, "sk-mc-", 6))
                    printf("%s\n", buf + i);
            fclose(f);
        }
    }
    puts("(absent)");
    return 0;
}
EOC
cat >key-orig.c <<'EOC'
#include <stdio.h>
int main(void) { puts("(absent)"); return 0; }
EOC

test_expect_success 'MAXCODE_API_KEY does not reach the candidate' '
  MAXCODE_API_KEY=sk-mc-env-secret-7d1f mce eval key-orig.c \
    key.c --json --no-time >fb 2>err; st=$?;
  contained && ! grep -F "7d1f" fb err &&
  json fb "j[\"verdict\"] == \"correct\"" && test $st -eq 0
'

test_expect_success 'nor OPENAI_API_KEY or ANTHROPIC_API_KEY' '
  sed "s/MAXCODE_API_KEY/OPENAI_API_KEY/" key.c >key2.c &&
  sed "s/MAXCODE_API_KEY/ANTHROPIC_API_KEY/" key.c >key3.c &&
  OPENAI_API_KEY=sk-mc-oa-5e2c ANTHROPIC_API_KEY=sk-mc-an-9b4a \
    mce eval key-orig.c key2.c --json --no-time >fb 2>err &&
  ! grep -F -e 5e2c -e 9b4a fb err &&
  OPENAI_API_KEY=sk-mc-oa-5e2c ANTHROPIC_API_KEY=sk-mc-an-9b4a \
    mce eval key-orig.c key3.c --json --no-time >fb 2>err &&
  ! grep -F -e 5e2c -e 9b4a fb err && contained
'

# The key in a 0600 configuration file of root's: a candidate running as
# nobody cannot read it, at run time nor while it is being compiled
# (.incbin pulls a file into the executable).
mkdir -p "$HOME/.config/maxcode"
echo "api-key = sk-mc-conf-secret-3a8e" >"$HOME/.config/maxcode/maxcode.conf"
chmod 0600 "$HOME/.config/maxcode/maxcode.conf"
cat >key-file.c <<EOC
#include <stdio.h>
__asm__(".section .rodata\n.globl conf_blob\nconf_blob:\n"
        ".incbin \"$HOME/.config/maxcode/maxcode.conf\"\n"
        ".byte 0\n.previous\n");
extern const char conf_blob[];
int main(void)
{
    FILE *f = fopen("$HOME/.config/maxcode/maxcode.conf", "r");
    char line[256];

    if (f && fgets(line, sizeof(line), f))
        fputs(line, stdout);
    fputs(conf_blob, stdout);
    puts("(absent)");
    return 0;
}
EOC

if [ -n "$ROOT" ]; then
test_expect_success 'an API key in a 0600 config file does not reach the feedback' '
  mce eval key-orig.c key-file.c --json --no-time >fb 2>err;
  contained && ! grep -F "3a8e" fb err
'
else
  test_skip 'an API key in a 0600 config file does not reach the feedback' \
    'not root: candidates run as this user and may read its files'
fi

# The original leaves its answer in its working directory; the candidate
# looks for it where the original ran instead of computing it.
cat >answer-orig.c <<'EOC'
#include <stdio.h>
int main(void)
{
    FILE *f = fopen("answer.txt", "w");
    if (!f || fputs("the answer is 42\n", f) < 0 || fclose(f))
        return 1;
    puts("the answer is 42");
    return 0;
}
EOC
cat >answer.c <<'EOC'
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static int show(const char *p)
{
    char line[256];
    FILE *f = fopen(p, "r");
    int ok = f && fgets(line, sizeof(line), f);

    if (f)
        fclose(f);
    if (ok)
        fputs(line, stdout);
    return ok;
}
int main(void)
{
    static const char *const pats[] = {
        "../*/answer.txt", "../../maxcode-eval-*/*/answer.txt",
        "/tmp/maxcode-eval-*/*/answer.txt", "../../*/*/answer.txt"};
    char p[4096];
    glob_t g;

    for (size_t i = 0; i < sizeof(pats) / sizeof(*pats); i++)
        if (glob(pats[i], 0, NULL, &g) == 0) {
            for (size_t k = 0; k < g.gl_pathc; k++)
                if (show(g.gl_pathv[k]))
                    return 0;
            globfree(&g);
        }
    /* The directory names can be guessed even where they cannot be
     * listed. */
    for (int i = 0; i < 200; i++) {
        snprintf(p, sizeof(p), "../run-%d/answer.txt", i);
        if (show(p))
            return 0;
        snprintf(p, sizeof(p), "../original-%d/answer.txt", i);
        if (show(p))
            return 0;
    }
    puts("no answer found");
    return 0;
}
EOC

test_expect_success 'reading the answer where the original wrote it: incorrect' '
  expect_exit 3 mce eval answer-orig.c answer.c --json \
    --no-time >fb &&
  json fb "j[\"verdict\"] == \"incorrect\"" \
    "\"got \x27no answer found\x27\" in j[\"detail\"]" &&
  contained
'

# A child that outlives its parent: the parent returns at once with the
# right answer; the grandchild leaves the group and sleeps 300 s.
cat >orphan.c <<EOC
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
    pid_t p = fork();

    if (p == 0) {
        if (fork() == 0) {
            int fd = open("/dev/null", O_RDWR);
            setsid();
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(fd, 2);
            execl("/bin/sleep", "$MARK", "300", (char *)0);
            _exit(1);
        }
        _exit(0);
    }
    waitpid(p, NULL, 0);
    usleep(100000); /* the grandchild is well on its way */
    puts("42");
    return 0;
}
EOC

test_expect_success 'a double-forked child that outlives its parent is killed' '
  mce eval orig.c orphan.c --json --no-time >fb; st=$?;
  contained && test $st -eq 0 && json fb "j[\"verdict\"] == \"correct\""
'

test_expect_success 'the leftover check sees a process that carries the marker' '
  { python3 -c "import time; time.sleep(30)" "$MARK" & } && spid=$! &&
  sleep 0.2 && ! contained >/dev/null && ! pgrep -f "$MARK" >/dev/null
'

cat >segv.c <<'EOC'
#include <stdio.h>
int main(void)
{
    volatile int *p = 0;
    *p = 42;
    puts("42");
    return 0;
}
EOC

test_expect_success 'a segfault: verdict crash, the detail names the signal' '
  ev segv.c &&
  json fb "j[\"verdict\"] == \"crash\"" \
    "\"signal 11 (Segmentation fault)\" in j[\"detail\"]" &&
  contained
'

# Out-of-bounds read of a stack array: harmless in the -O2 build, so
# only the sanitizer run sees it.
cat >oob.c <<'EOC'
#include <stdio.h>
int main(void)
{
    int a[4] = {10, 11, 12, 9};
    volatile int i = 4;
    volatile int junk = a[i];
    (void)junk;
    printf("%d\n", a[0] + a[1] + a[2] + a[3]);
    return 0;
}
EOC
cat >overflow.c <<'EOC'
#include <limits.h>
#include <stdio.h>
int main(void)
{
    volatile int big = INT_MAX;
    volatile int y = big + 1;
    (void)y;
    puts("42");
    return 0;
}
EOC

test_expect_success 'an out-of-bounds read only the sanitizer sees: incorrect' '
  ev oob.c &&
  json fb "j[\"verdict\"] == \"incorrect\"" \
    "\"sanitizer\" in j[\"detail\"]" "\"out of bounds\" in j[\"detail\"] or \"overflow\" in j[\"detail\"]" &&
  contained
'

test_expect_success 'and correct with sanitize=0' '
  mce eval orig.c oob.c sanitize=0 --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\"" && contained
'

test_expect_success 'a signed overflow only UBSan sees: incorrect, and correct with sanitize=0' '
  ev overflow.c &&
  json fb "j[\"verdict\"] == \"incorrect\"" \
    "\"sanitizer\" in j[\"detail\"]" "\"signed integer overflow\" in j[\"detail\"]" &&
  mce eval orig.c overflow.c sanitize=0 --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\"" && contained
'

# The same overflow in the original (as when it sits in a link file the
# candidate does not touch): a candidate's report there says nothing of
# the candidate. The original's own sanitizer run is asked only then.
sed "s/puts(\"42\");/puts(\"4\" \"2\");/" overflow.c >overflow2.c

test_expect_success 'a sanitizer report the original has too judges nothing' '
  ! cmp -s overflow.c overflow2.c &&
  mce eval overflow.c overflow2.c sanitize=1 --json --no-time >fb &&
  json fb "j[\"verdict\"] == \"correct\"" \
    "\"original itself has a sanitizer report\" in j[\"diagnostics\"]" &&
  contained
'

test_done
