#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# t0111-directive-placement: every knob the built-in proposer offers on
# a corpus of real-code shapes, rendered and compiled with
# `cc -fsyntax-only` (tests/unit/test-placement --all): multi-line
# macros and conditions, if without braces, preprocessor conditionals
# around functions, loops and a return type, attributes and K&R-style
# line breaks, macros that expand to loops, do-while(0) macros, loops of
# one statement, labels, switch inside loops, for (;;), extern "C",
# a function type behind a typedef as a parameter, C++; each under the
# configurations its conditionals choose between. No candidate fails
# to compile, and no directive lands where the compiler ignores it.
# Then an interchange, and a blocking (a product in i-k-j order), with
# every loop knob of the table: all compile.
. "$MC_SRCDIR/tests/lib.sh"

TOOL="$MC_BUILDDIR/tests/unit/test-placement"
export XDG_CACHE_HOME="$TRASH/xdg"

# all FILE CC FLAG...: every candidate of FILE compiles; the summary is
# in FILE.out.
all () {
  _f=$1
  shift
  "$TOOL" --all "$_f" "$@" >"$_f.out" 2>&1
  _rc=$?
  cat "$_f.out"
  test $_rc = 0 && contains "$_f.out" "failed 0"
}

write_corpus () {
  mkdir -p src &&
  cat >src/shapes.c <<'EOF'
#include <stddef.h>
#include <string.h>
#define CLEAR(p, n) \
    do { \
        size_t k_; \
        for (k_ = 0; k_ < (n); k_++) \
            (p)[k_] = 0; \
    } while (0)
#define SWAP(a, b) do { int t_ = (a); (a) = (b); (b) = t_; } while (0)
#define FOR_EACH(i, n) for ((i) = 0; (i) < (n); (i)++)
#ifdef __GNUC__
#  define NOINLINE __attribute__((noinline))
#else
#  define NOINLINE
#endif

static int
sum_if(const int *a, size_t n, int lo,
       int hi)
{
    int s = 0;
    size_t i;
    for (i = 0; i < n; i++)
        if (a[i] > lo &&
            a[i] < hi)
            s += a[i];
    return s;
}

#if defined(USE_FAST)
static long fast(const long *a, size_t n) {
    long s = 0;
    for (size_t i = 0; i < n; i++) s += a[i];
    return s;
}
#else
static long fast(const long *a, size_t n)
{
    long s = 0;
    size_t i;
#  ifdef UNROLLED
    for (i = 0; i + 1 < n; i += 2) {
        s += a[i + 1];
#  else
    for (i = 0; i < n; i++) {
#  endif
        s += a[i];
    }
    return s;
}
#endif

NOINLINE static void
scale(double *x, const double *y, size_t n, double f)
{
    size_t i;
    FOR_EACH(i, n) x[i] = y[i] * f;
    for (i = 0;
         i < n;
         i++)
        x[i] += y[i];
}

static int
#ifdef WIDE
wide_or_narrow(long *a, int n)
#else
wide_or_narrow(int *a, int n)
#endif
{
    int j;
    for (j = 0; j < n; j++) a[j] = j;
    return n;
}

static int
labels(int *a, int n)
{
    int i = 0, j;
again:
    for (j = 0; j < n; j++)
        a[j] += j;
    if (++i < 3)
        goto again;
    for (j = 0; j < n; j++) {
        switch (a[j] & 3) {
        case 0: a[j]++; break;
        case 1:
            for (i = 0; i < 4; i++)
                a[j] ^= i;
            break;
        default: break;
        }
    }
    while (n > 0 &&
           a[n - 1] == 0)
        n--;
    do {
        n--;
    } while (n > 0);
    if (n)
        for (j = 0; j < 4; j++) a[j] = 0;
    else
        for (j = 0; j < 4; j++) a[j] = 1;
    return n;
}

static void clear_swap(int *a, int n)
{
    int x = 1, y = 2;
    CLEAR(a, (size_t)n);
    SWAP(x, y);
    if (n > 2)
        SWAP(a[0], a[1]);
    else if (n > 1 &&
             a[0] > a[1])
        return;
    a[0] += x - y;
}

static unsigned
forever(unsigned a, unsigned m)
{
    unsigned p = 0, k;
    for (;;) {
        if (a & m)
            break;
        p ^= a;
        a >>= 1;
    }
    for (k = 1 ; ; ++k)
        if (p < k)
            break;
    return p + k;
}

static inline int __attribute__((always_inline))
tiny(int x)
{
    return x > 0 ? x : -x;
}

int
checksum(const unsigned char *p, size_t n, int (*f)(int))
{
    unsigned s = 0;
    size_t i;
    if (!p)
        return 0;
    for (i = 0; i < n; i++) {
        if (p[i] == 0 ||
            p[i] == 0xff)
            continue;
        s = (s << 1) ^ (unsigned)f(p[i]);
    }
    return (int)s + tiny((int)n);
}

void
mm(int n, double (*c)[n], double (*a)[n], double (*b)[n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            c[i][j] *= 0.5;
            for (int k = 0; k < n; k++)
                c[i][j] += a[i][k] * b[k][j];
        }
}

void
mm_plain(int n, double (*c)[n], double (*a)[n], double (*b)[n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                c[i][j] += a[i][k] * b[k][j];
}

void
mm_flat(int n, int m, double *c, const double *a, const double *b)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < m; k++) {
            for (int j = 0; j < m; j++)
                c[i * m + j] -= a[i * m + k] * b[k * m + j];
        }
    }
}

int
main(void)
{
    static int v[64];
    static long w[64];
    static double d[64], e[8][8], f[8][8], g[8][8];
    clear_swap(v, 64);
    scale(d, d, 64, 0.5);
    mm(8, e, f, g);
    mm_plain(8, e, f, g);
    return sum_if(v, 64, 0, 9) + (int)fast(w, 64) + labels(v, 64) +
           wide_or_narrow(v, 64) + checksum((void *)v, 64, tiny) +
           (int)forever(9, 1);
}
EOF
  cat >src/kr.c <<'EOF'
/* Declarations and definitions as older code writes them. */
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

struct node { struct node *next; int v; };

static struct node *
walk(struct node *n, int v)
{
    while (n &&
           n->v != v)
        n = n->next;
    return n;
}

#if defined(__GNUC__) && !defined(NO_HOT)
__attribute__((hot))
#endif
static unsigned
hash(const char *s,
     size_t n)
{
    unsigned h = 5381;
    size_t i;

    for (i = 0; i < n; i++)
        h = h * 33 ^ (unsigned char)s[i];
    return h;
}

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int
run(int *a, int n)
{
    int i, j, t;

    qsort(a, (size_t)n, sizeof(*a), cmp);
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (a[j] < a[i]) {
                t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
    i = 0;
    do
        a[i] += (int)hash("x", 1);
    while (++i < n);
#ifdef DEBUG
    for (i = 0; i < n; i++)
        if (!walk(NULL, a[i]))
            break;
#endif
    return a[0];
}

#ifdef __cplusplus
}
#endif
EOF
  cat >src/cost.c <<'EOF'
/* A function type behind a typedef, passed as zopfli's squeeze.c
 * passes its cost model: no restrict on a pointer to it. */
#include <stddef.h>

typedef double CostFun(unsigned litlen, unsigned dist, void *context);
typedef CostFun CostAlias;
typedef int (*Cmp)(const void *, const void *);
typedef struct Block { int n; float w; } Block;
typedef unsigned short u16;

static double flat(unsigned litlen, unsigned dist, void *context);

static double
best_lengths(Block *s, const unsigned char *in, size_t n,
             CostFun *costmodel, void *costcontext,
             u16 *length_array, float *costs)
{
    double total = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        costs[i] = (float)costmodel(in[i], 1, costcontext) + s->w;
        length_array[i] = (u16)(in[i] & 7);
        total += costs[i];
    }
    return total;
}

static int lt(const void *a, const void *b) { return *(const int *)a < *(const int *)b; }

static int
pick(CostAlias *f, Cmp *cmps, const int *a, int *out, int n)
{
    int i;
    for (i = 0; i < n; i++)
        out[i] = cmps[0](a + i, a) > 0 && f(1, 2, NULL) > 0;
    return n;
}

double
run(const unsigned char *in, size_t n)
{
    static u16 len[64];
    static float costs[64];
    static int a[64], o[64];
    static Cmp c[1] = {lt};
    Block b = {0, 0.5f};
    return best_lengths(&b, in, n < 64 ? n : 64, flat, NULL, len, costs) +
           pick(flat, c, a, o, 64);
}

static double
flat(unsigned litlen, unsigned dist, void *context)
{
    (void)context;
    return litlen + dist;
}
EOF
  cat >src/lib.cc <<'EOF'
#include <vector>
#include <cstddef>

namespace ns {
template <typename T>
static T
dot(const std::vector<T> &a, const std::vector<T> &b)
{
    T s = 0;
    for (std::size_t i = 0; i < a.size(); i++)
        s += a[i] * b[i];
    return s;
}

struct acc {
    double v = 0;
    void add(const double *x, int n)
    {
        for (int i = 0; i < n; i++)
            v += x[i];
    }
};

double
total(const std::vector<double> &a, int n) noexcept
{
    acc c;
    double s = 0;
    for (int r = 0; r < n; r++) {
        c.add(a.data(), (int)a.size());
        for (auto x : a)
            s += x;
    }
    return s + c.v + dot(a, a);
}
}
EOF
}

# A Jacobi sweep and its copy-back, in a time loop (the fusion, cfuse.h).
write_sweep () {
  mkdir -p src &&
  cat >src/sweep.c <<'EOF'
void
relax(int w, int h, int steps, double *u, double *v, const double *f)
{
    for (int s = 0; s < steps; s++) {
        for (int y = 1; y < h - 1; y++)
            for (int x = 1; x < w - 1; x++)
                v[y * w + x] = 0.25 * (u[(y - 1) * w + x] + u[(y + 1) * w + x] +
                                       u[y * w + x - 1] + u[y * w + x + 1]) -
                               f[y * w + x];
        for (int y = 1; y < h - 1; y++)
            for (int x = 1; x < w - 1; x++)
                u[y * w + x] = v[y * w + x];
    }
}
EOF
}

test_expect_success 'the corpus compiles as it is' '
  write_corpus &&
  cc -fsyntax-only src/shapes.c &&
  cc -fsyntax-only -DUSE_FAST -DWIDE src/shapes.c &&
  cc -fsyntax-only -DUNROLLED src/shapes.c &&
  cc -fsyntax-only src/kr.c && cc -fsyntax-only -DDEBUG -DNO_HOT src/kr.c &&
  cc -fsyntax-only src/cost.c &&
  c++ -fsyntax-only src/lib.cc
'

# The first run also lists each candidate (MC_PLACEMENT_VERBOSE), for
# the interchange case below: shapes.c's candidates with gcc -O2 are
# compiled once, not again for that case.
test_expect_success 'every knob on real-code shapes compiles (gcc)' '
  write_corpus &&
  MC_PLACEMENT_VERBOSE=1 all src/shapes.c gcc -O2 &&
  cp src/shapes.c.out "$TRASH/shapes-gcc.out" &&
  all src/shapes.c gcc -O2 -DUSE_FAST -DWIDE &&
  all src/shapes.c gcc -O2 -DUNROLLED &&
  all src/kr.c gcc -O2 &&
  all src/kr.c gcc -O2 -DDEBUG -DNO_HOT &&
  all src/cost.c gcc -O2 &&
  all src/lib.cc g++ -O2
'

if command -v clang >/dev/null 2>&1; then
  test_expect_success 'and with clang' '
    write_corpus &&
    all src/shapes.c clang -O2 &&
    all src/kr.c clang -O2 -DDEBUG &&
    all src/cost.c clang -O2
  '
else
  test_skip 'and with clang' 'no clang'
fi

test_expect_success 'an interchange with every loop knob compiles' '
  out="$TRASH/shapes-gcc.out" &&
  contains "$out" "failed 0" &&
  grep "^ok interchange(j,k)@L[0-9]*+" "$out" >ic &&
  grep "^ok interchange(j,k)@L[0-9]*+.*unroll(8)" ic &&
  grep "^ok interchange(j,k)@L[0-9]*+.*ivdep" ic
'

# Blocking puts __restrict on its function itself.
test_expect_success 'a blocking with every loop knob compiles' '
  out="$TRASH/shapes-gcc.out" &&
  contains "$out" "failed 0" &&
  grep "^ok block[0-9]*(k,j)@L[0-9]*$" "$out" &&
  grep "^ok .*+block[0-9]*(k,j)@L[0-9]*$" "$out" >bk &&
  grep "^ok .*unroll(8)@L[0-9]*+block" bk &&
  grep "^ok .*ivdep@L[0-9]*+block" bk
'

# The fusion puts __restrict on its function itself.
test_expect_success 'a fusion with every loop knob compiles' '
  write_sweep &&
  cc -fsyntax-only src/sweep.c &&
  MC_PLACEMENT_VERBOSE=1 all src/sweep.c gcc -O2 &&
  grep "^ok fuse(y)@L5$" src/sweep.c.out &&
  grep "^ok unroll(8)@L6+fuse(y)@L5$" src/sweep.c.out &&
  grep "^ok ivdep@L11+fuse(y)@L5$" src/sweep.c.out
'

test_done
