#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0050-makefiles: the Makefiles people have. Each case generates a small
# project in the style of a classic Makefile, runs make twice, and checks
# that the first make searched and kept a correct variant or fell back for
# a reason other than a build failure, that the program built is right,
# and that the second make is a cache hit: relative -I and -include, an
# object rule into an archive, pattern rules over $(maxcode-marked),
# LDLIBS and ldlibs=, C++, files= and compare=file:, ignore=, recursive
# make, VPATH, and a Bear DB recorded in a subdirectory. Keys do not
# depend on where the checkout is.
. "$MC_SRCDIR/tests/lib.sh"

# A correct variant or the original is asserted, not what the timing
# decided between them: lib.sh's shortest timing cap.
# One candidate per search: what is asserted is that the project builds,
# searches once and hits after; its kernels are integer code, which every
# variant the built-in proposer writes of it computes alike (searched
# asks for one correct candidate, or the search optimized).
export MAXCODE_CACHE_DIR="$TRASH/cache" MAXCODE_BUDGET=1

# searched SOURCE [MAKE-ARGS...]: make (in the current directory)
# searched once and kept a correct variant of SOURCE, or the original for
# a reason that is not a failure to build or run it.
searched () {
  _src=$1; shift
  _before=$(stat_of searches)
  run_make "$@" >out 2>err || { sed 's/^/# /' out err; return 1; }
  test "$(( $(stat_of searches) - _before ))" -eq 1 ||
    { echo "# no search"; sed 's/^/# /' err; return 1; }
  "$MAXCODE_BIN" show "$_src" --json >manifest.json &&
  json manifest.json \
    'j["status"] == "optimized" or j["correct_candidates"] > 0' \
    '"cannot measure" not in j["reason"]' \
    '"does not build" not in j["reason"]'
}

# kernel FILE [HEADER]: a C file, including HEADER when given, whose
# function sum_kernel(n) runs a loop that -O3 does more with than -O2.
kernel () {
  {
    [ $# -lt 2 ] || printf '#include "%s"\n' "$2"
    cat <<-\EOF
	long
	sum_kernel(long n)
	{
	    long s = 0;
	    for (long r = 0; r < 40; r++)
	        for (long i = 0; i < n; i++)
	            s += (i * 7 + r) % 13;
	    return s;
	}
	EOF
  } >"$1"
}

# harness FILE: a main() that reads n and prints sum_kernel(n).
harness () {
  cat >"$1" <<-\EOF
	#include <stdio.h>
	long sum_kernel(long n);
	int main(void)
	{
	    long n;
	    if (scanf("%ld", &n) != 1)
	        return 1;
	    printf("%ld\n", sum_kernel(n));
	    return 0;
	}
	EOF
}

# 1. src/ and include/, a relative -I and a -include.
test_expect_success 'relative -Iinclude and -include config.h' '
  mkdir -p p1/src p1/include p1/t && cd p1 &&
  echo "#define SCALE 3" >include/config.h &&
  echo "static inline long twice(long x) { return 2 * x; }" >include/util.h &&
  cat >src/hot.c <<-\EOF &&
	#include <stdio.h>
	#include "util.h"
	int main(void)
	{
	    long n, s = 0;
	    if (scanf("%ld", &n) != 1)
	        return 1;
	    for (long i = 0; i < n; i++)
	        s += twice(i % 7) * SCALE;
	    printf("%ld\n", s);
	    return 0;
	}
	EOF
  echo 200000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CPPFLAGS = -Iinclude -include config.h
	CFLAGS = -O2
	prog: \$(maxcode src/hot.c, inputs=t/*.in)
	>\$(CC) \$(CPPFLAGS) \$(CFLAGS) -o \$@ \$^
	EOF
  searched src/hot.c && cc -Iinclude -include config.h -o orig src/hot.c &&
  ./orig <t/a.in >want && ./prog <t/a.in >got && test_cmp want got &&
  rm prog && hit
'

test_expect_success 'the key does not depend on where the checkout is' '
  mkdir -p moved/deeper && cp -R p1 moved/deeper/p1 &&
  cd moved/deeper/p1 && rm -rf .maxcode prog && hit &&
  ./prog <t/a.in >got && test_cmp want got
'

# 2. An object rule: hot.o goes into an archive; the test executable
# links the variant with the other sources.
test_expect_success 'an object rule, an archive, the harness from link=' '
  mkdir -p p2/t && cd p2 && kernel hot.c &&
  printf "long helper(long x) { return x + 1; }\n" >util.c &&
  cat >main.c <<-\EOF &&
	#include <stdio.h>
	long sum_kernel(long n);
	long helper(long x);
	int main(void)
	{
	    long n;
	    if (scanf("%ld", &n) != 1)
	        return 1;
	    printf("%ld\n", helper(sum_kernel(n)));
	    return 0;
	}
	EOF
  echo 30000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	OTHER_SRCS = util.c
	prog: main.o libhot.a
	>\$(CC) \$(CFLAGS) -o \$@ main.o -L. -lhot
	hot.o: \$(maxcode hot.c, link=\$(OTHER_SRCS) main.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -c \$< -o \$@
	libhot.a: hot.o util.o
	>\$(AR) rcs \$@ \$^
	EOF
  searched hot.c && ar t libhot.a >members && contains members hot.o &&
  cc -O2 -o orig hot.c util.c main.c && ./orig <t/a.in >want &&
  ./prog <t/a.in >got && test_cmp want got && rm hot.o prog && hit
'

# 2b. SRCS := $(maxcode-marked $(SRCS)), OBJS from SRCS, a pattern rule:
# the variant's object lands beside the variant, in .maxcode/KEY/.
test_expect_success 'maxcode-marked SRCS, OBJS = $(SRCS:.c=.o), %.o: %.c' '
  mkdir -p p2b/t && cd p2b && kernel hot0.c &&
  { echo "#pragma maxcode optimize inputs=t/a.in link=main.c"
    cat hot0.c; } >hot.c &&
  harness main.c &&
  echo 30000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	SRCS = main.c hot.c
	SRCS := \$(maxcode-marked \$(SRCS))
	OBJS = \$(SRCS:.c=.o)
	prog: \$(OBJS)
	>\$(CC) \$(CFLAGS) -o \$@ \$(OBJS)
	%.o: %.c
	>\$(CC) \$(CFLAGS) -c \$< -o \$@
	clean:
	>rm -f prog \$(OBJS)
	EOF
  searched hot.c && ls .maxcode/*/hot.o &&
  cc -O2 -o orig hot.c main.c && ./orig <t/a.in >want &&
  ./prog <t/a.in >got && test_cmp want got &&
  run_make clean >/dev/null && ! ls .maxcode/*/hot.o 2>/dev/null && hit
'

# 3. A library that is not linked by default, through LDLIBS.
test_expect_success 'LDLIBS = -lz links the test executable too' '
  mkdir -p p3/t && cd p3 &&
  cat >hot.c <<-\EOF &&
	#include <stdio.h>
	#include <zlib.h>
	int main(void)
	{
	    static unsigned char buf[1 << 16];
	    unsigned long crc = crc32(0L, Z_NULL, 0);
	    long n, s = 0;
	    if (scanf("%ld", &n) != 1)
	        return 1;
	    for (long i = 0; i < n; i++)
	        s += (i * 7) % 13;
	    for (unsigned i = 0; i < sizeof(buf); i++)
	        buf[i] = (unsigned char)(s + i);
	    crc = crc32(crc, buf, sizeof(buf));
	    printf("%ld %lx\n", s, crc);
	    return 0;
	}
	EOF
  echo 300000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	LDLIBS = -lz
	prog: \$(maxcode hot.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^ \$(LDLIBS)
	EOF
  searched hot.c && rm prog && hit
'

test_expect_success 'ldlibs= links a library that only the harness needs' '
  mkdir -p p3b/t && cd p3b && kernel hot.c &&
  cat >harness.c <<-\EOF &&
	#include <stdio.h>
	#include <zlib.h>
	long sum_kernel(long n);
	int main(void)
	{
	    long n, s;
	    if (scanf("%ld", &n) != 1)
	        return 1;
	    s = sum_kernel(n);
	    printf("%lx\n", crc32(0L, (const unsigned char *)&s, sizeof(s)));
	    return 0;
	}
	EOF
  printf "long sum_kernel(long);\nint main(void) { return sum_kernel(3) < 0; }\n" >main.c &&
  echo 30000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	prog: main.c \$(maxcode hot.c, link=harness.c, ldlibs=-lz, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  searched hot.c && ./prog && rm prog && hit
'

# 4. C++: a C++ unit with a C++ harness; and a C unit whose harness is
# C++ (the test executable links with $(CXX)).
test_expect_success 'a C++ translation unit with a C++ harness' '
  mkdir -p p4/t && cd p4 &&
  cat >hot.cpp <<-\EOF &&
	#include <vector>
	#include <numeric>
	long sum_kernel(long n)
	{
	    std::vector<long> v(n);
	    std::iota(v.begin(), v.end(), 0L);
	    long s = 0;
	    for (int r = 0; r < 40; r++)
	        for (long x : v)
	            s += (x * 7 + r) % 13;
	    return s;
	}
	EOF
  cat >main.cpp <<-\EOF &&
	#include <iostream>
	long sum_kernel(long n);
	int main()
	{
	    long n;
	    if (!(std::cin >> n))
	        return 1;
	    std::cout << sum_kernel(n) << std::endl;
	    return 0;
	}
	EOF
  echo 30000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CXXFLAGS = -O2
	prog: main.cpp \$(maxcode hot.cpp, link=main.cpp, inputs=t/*.in)
	>\$(CXX) \$(CXXFLAGS) -o \$@ \$^
	EOF
  searched hot.cpp && c++ -O2 -o orig hot.cpp main.cpp &&
  ./orig <t/a.in >want && ./prog <t/a.in >got && test_cmp want got &&
  rm prog && hit
'

test_expect_success 'a C unit with a C++ harness links with $(CXX)' '
  mkdir -p p4b/t && cd p4b && kernel hot.c &&
  cat >main.cpp <<-\EOF &&
	#include <iostream>
	extern "C" long sum_kernel(long n);
	int main()
	{
	    long n;
	    if (!(std::cin >> n))
	        return 1;
	    std::cout << sum_kernel(n) << std::endl;
	    return 0;
	}
	EOF
  echo 30000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	CXXFLAGS = -O2
	hot.o: \$(maxcode hot.c, link=main.cpp, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -c -o \$@ \$<
	EOF
  searched hot.c && rm hot.o && hit
'

# 5. A program that reads a file named in args and writes one.
cat >filer.c <<-\EOF
	#include <stdio.h>
	#include <string.h>
	int main(int argc, char **argv)
	{
	    const char *in = NULL, *out = NULL;
	    long s = 0;
	    int c;
	    for (int i = 1; i + 1 < argc; i += 2) {
	        if (!strcmp(argv[i], "-i")) in = argv[i + 1];
	        if (!strcmp(argv[i], "-o")) out = argv[i + 1];
	    }
	    FILE *f = in ? fopen(in, "r") : NULL, *g;
	    if (!f) { perror(in ? in : "no -i"); return 1; }
	    for (int r = 0; r < 200; r++) {
	        rewind(f);
	        while ((c = getc(f)) != EOF)
	            s += (c * 7 + r) % 13;
	    }
	    fclose(f);
	    g = out ? fopen(out, "w") : NULL;
	    if (!g) { perror(out ? out : "no -o"); return 1; }
	    fprintf(g, "%ld\n", s);
	    return fclose(g) != 0;
	}
	EOF

test_expect_success 'files= brings args files into each run; compare=file:' '
  mkdir -p p5/data && cd p5 && cp ../filer.c hot.c &&
  seq 1 3000 >data/in.txt &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	prog: \$(maxcode hot.c, args=-i data/in.txt -o out.txt, files=data, compare=file:out.txt)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  searched hot.c && ./prog -i data/in.txt -o got &&
  cc -O2 -o orig ../filer.c && ./orig -i data/in.txt -o want &&
  test_cmp want got && rm prog && hit
'

test_expect_success 'without files=, the reason names the file and files=' '
  mkdir -p p5b/data && cd p5b && cp ../filer.c hot.c &&
  seq 1 30 >data/in.txt &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	prog: \$(maxcode hot.c, args=-i data/in.txt -o out.txt, compare=file:out.txt)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  run_make >out 2>err && contains err "files=data/in.txt" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "\"data/in.txt\" in j[\"reason\"]" "\"files=\" in j[\"reason\"]"
'

# 6. A program that prints its elapsed time.
cat >timer.c <<-\EOF
	#include <stdio.h>
	#include <time.h>
	int main(void)
	{
	    struct timespec a, b;
	    long n, s = 0;
	    clock_gettime(CLOCK_MONOTONIC, &a);
	    if (scanf("%ld", &n) != 1)
	        return 1;
	    for (long r = 0; r < 40; r++)
	        for (long i = 0; i < n; i++)
	            s += (i * 7 + r) % 13;
	    clock_gettime(CLOCK_MONOTONIC, &b);
	    printf("sum %ld\n", s);
	    printf("elapsed: %.9f s\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	    return 0;
	}
	EOF

test_expect_success 'ignore= drops a line that changes on every run' '
  mkdir -p p6/t && cd p6 && cp ../timer.c hot.c && echo 30000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	prog: \$(maxcode hot.c, inputs=t/*.in, ignore=^elapsed: )
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  searched hot.c && rm prog && hit
'

test_expect_success 'without ignore=, the reason names the line and ignore=' '
  mkdir -p p6b/t && cd p6b && cp ../timer.c hot.c && echo 30000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	prog: \$(maxcode hot.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  run_make >out 2>err && contains err "ignore=" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "\"elapsed: \" in j[\"reason\"]" "\"ignore=REGEX\" in j[\"reason\"]"
'

# 7. Recursive make: the sub-make loads the plugin itself.
test_expect_success 'recursive make: $(MAKE) -C lib' '
  mkdir -p p7/lib/t && cd p7 && kernel lib/hot.c &&
  harness lib/main.c &&
  echo 30000 >lib/t/a.in &&
  tabify >lib/Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -O2
	prog: main.c \$(maxcode hot.c, link=main.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  tabify >Makefile <<-\EOF &&
	all:
	>$(MAKE) -C lib
	EOF
  _before=$(stat_of searches) && run_make >out 2>err &&
  test "$(( $(stat_of searches) - _before ))" -eq 1 &&
  test -x lib/prog && test -d lib/.maxcode && ! test -d .maxcode &&
  (cd lib && "$MAXCODE_BIN" show hot.c --json) >m &&
  json m "\"cannot measure\" not in j[\"reason\"]" &&
  rm lib/prog && hit
'

# 8. An out-of-tree build: the sources in src/, make in build/ through
# VPATH = $(srcdir).
test_expect_success 'an out-of-tree build through VPATH' '
  mkdir -p p8/src/t p8/build && cd p8 &&
  echo "static inline long twice(long x) { return 2 * x; }" >src/util.h &&
  kernel src/hot.c util.h &&
  harness src/main.c &&
  echo 30000 >src/t/a.in &&
  tabify >src/Makefile <<-EOF &&
	load $PLUGIN
	srcdir = .
	VPATH = \$(srcdir)
	CFLAGS = -O2
	prog: main.c \$(maxcode hot.c, link=main.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  cd build && searched ../src/hot.c -f ../src/Makefile srcdir=../src &&
  test -x prog && test -d .maxcode && ! test -d ../src/.maxcode &&
  rm prog && hit -f ../src/Makefile srcdir=../src
'

test_expect_success 'VPATH with $(maxcode-marked) finds the marked source' '
  mkdir -p p8b/build && cp -R p8/src p8b/src && cd p8b &&
  { echo "#pragma maxcode optimize link=main.c inputs=t/a.in"
    cat src/hot.c; } >src/hot.tmp && mv src/hot.tmp src/hot.c &&
  tabify >src/Makefile <<-EOF &&
	load $PLUGIN
	srcdir = .
	VPATH = \$(srcdir)
	CFLAGS = -O2
	SRCS := \$(maxcode-marked main.c hot.c)
	prog: \$(SRCS:.c=.o)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  cd build && searched ../src/hot.c -f ../src/Makefile srcdir=../src &&
  ls .maxcode/*/hot.o && rm prog && hit -f ../src/Makefile srcdir=../src
'

# 9. A Bear DB recorded from the top of the tree, for a build in a
# subdirectory: its paths are relative to that subdirectory.
test_expect_success 'a Bear DB with relative paths, recorded for sub/' '
  mkdir -p p9/include p9/src p9/sub/t && cd p9 &&
  echo "#define SCALE 3" >include/scale.h &&
  kernel src/hot.c scale.h &&
  sed -i "s/s += (i \* 7 + r) % 13;/s += (i * SCALE + r) % 13;/" src/hot.c &&
  harness src/main.c &&
  echo 30000 >sub/t/a.in &&
  tabify >sub/Makefile <<-EOF &&
	load $PLUGIN
	prog: ../src/main.o hot.o
	>\$(CC) -o \$@ \$^
	../src/main.o: ../src/main.c
	>\$(CC) -O2 -c -o \$@ \$<
	hot.o: \$(maxcode ../src/hot.c, link=../src/main.c, inputs=t/*.in)
	>\$(CC) -O2 -DDB_ONLY -I../include -c -o \$@ \$<
	EOF
  MAXCODE_MODE=off bear_make --force-wrapper -C sub >out 2>&1 &&
  grep -q "\"-I../include\"" compile_commands.json &&
  rm -f sub/prog sub/hot.o src/main.o &&
  cd sub && searched ../src/hot.c MAXCODE_COMPDB=../compile_commands.json &&
  json manifest.json "\"-DDB_ONLY\" in j[\"flags\"]" \
    "\"-I../include\" in j[\"flags\"]" &&
  rm prog hot.o && hit MAXCODE_COMPDB=../compile_commands.json &&
  cd ../.. && cp -R p9 p9-moved && cd p9-moved &&
  rm -rf sub/.maxcode sub/prog sub/hot.o src/main.o compile_commands.json &&
  MAXCODE_MODE=off bear_make --force-wrapper -C sub >out 2>&1 &&
  rm -f sub/prog sub/hot.o src/main.o && cd sub &&
  hit MAXCODE_COMPDB=../compile_commands.json
'

# 10. What real Makefiles put in their flags: -c in CFLAGS, a linker
# map in LDFLAGS, a shared library in the tree found through a relative
# -L and rpath.
test_expect_success 'CFLAGS with -c, LDFLAGS with -Wl,-Map and a relative rpath' '
  chmod 755 "$TRASH" && mkdir -p p10/t p10/lib && cd p10 &&
  printf "long lib_k(long x) { return x * 3 + 1; }\n" >lib/k.c &&
  cc -shared -fPIC -o lib/libk.so lib/k.c &&
  cat >hot.c <<-\EOF &&
	#include <stdio.h>
	long lib_k(long x);
	int main(void)
	{
	    long n, s = 0;
	    if (scanf("%ld", &n) != 1)
	        return 1;
	    for (long r = 0; r < 40; r++)
	        for (long i = 0; i < n; i++)
	            s += (i * 7 + r) % 13;
	    printf("%ld\n", lib_k(s));
	    return 0;
	}
	EOF
  echo 30000 >t/a.in &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -Wall -O2 -c
	LDFLAGS = -Llib -Wl,-rpath,lib -Wl,-Map,prog.map
	LDLIBS = -lk
	prog: hot.o
	>\$(CC) \$(LDFLAGS) -o \$@ \$^ \$(LDLIBS)
	hot.o: \$(maxcode hot.c, inputs=t/*.in)
	>\$(CC) \$(CFLAGS) -o \$@ \$<
	EOF
  searched hot.c && test -f prog.map && ./prog <t/a.in >got &&
  ! ls .maxcode/*/*.map 2>/dev/null && rm prog hot.o && hit
'

test_expect_success 'an original that cannot load its library says so' '
  cd p10 && chmod 700 lib && rm -f prog hot.o &&
  run_make MAXCODE_MIN_SPEEDUP=1.5 >out 2>err &&
  if [ "$(id -u)" = 0 ]; then
    contains err "cannot start in its runs: " && contains err "libk.so"
  else
    "$MAXCODE_BIN" show hot.c --json >m && json m "j[\"correct_candidates\"] > 0"
  fi
'

# 11. An original that does not build: the reason gives the command, the
# directory and the first error lines, not the warnings before them.
test_expect_success 'an original that does not build: command, directory, errors' '
  mkdir -p p11 && cd p11 &&
  printf "int main(void) { int unused; return 0; }\n" >hot.c &&
  tabify >Makefile <<-EOF &&
	load $PLUGIN
	CFLAGS = -Wall -O2
	LDLIBS = -lnot-a-library
	prog: \$(maxcode hot.c)
	>\$(CC) \$(CFLAGS) -o \$@ \$^
	EOF
  run_make >out 2>err && contains err "cannot find -lnot-a-library" &&
  "$MAXCODE_BIN" show hot.c --json >m &&
  json m "\"does not build: cc -Wall -O2 -o \" in j[\"reason\"]" \
    "\"-lnot-a-library\" in j[\"reason\"]" \
    "\"(in %s)\" % __import__(\"os\").getcwd() in j[\"reason\"]" \
    "\"cannot find -lnot-a-library\" in j[\"reason\"]" \
    "\"warning\" not in j[\"reason\"]"
'

test_done
