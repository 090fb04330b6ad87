/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-propose.c: the built-in proposer's CUDA knobs on a source with
 * two kernels and host code: each knob's rendering (unroll pragmas on the
 * kernels' innermost loops only, __launch_bounds__ before the name,
 * __restrict__ on the pointer parameters, fast intrinsics), kernel=NAME
 * leaving everything outside that kernel byte-identical, fast intrinsics
 * only with a tolerance, no knob without a place to apply, labels, and
 * that the variants compile with nvcc (a missing nvcc fails: CI never
 * skips). The cases run in a scratch directory that is the current
 * directory.
 *
 * A second mode writes the first round's variants for a shell test:
 *   test-propose --render FILE.cu OUTDIR [KEY=VALUE]...
 * writes, for each knob set that mc_builtin_choose() picks from the
 * original (K = 8), OUTDIR/NN-LABEL.cu (NN from 01; in LABEL, '(' and
 * ',' are '-' and ')' is dropped: "launch_bounds-256-2") and prints the
 * file names, one per line.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "ctext.h"
#include "file.h"
#include "builtin.h"
#include "target.h"
#include "tap.h"

static char dir[] = "/tmp/mc-propose-XXXXXX";

static const char source[] =
    "#include <math.h>\n"
    "\n"
    "/* host code: must not change */\n"
    "static void fill(float *x, int n)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        x[i] = expf((float)i);\n"
    "}\n"
    "\n"
    "__global__ void scale(float *out, const float* in, int n, float s)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = s * expf(in[i]) + sinf (in[i]);\n"
    "}\n"
    "\n"
    "template <int TILE>\n"
    "__global__ void matmul(const float *a, const float *b, float *c,\n"
    "                       int n)\n"
    "{\n"
    "    int row = blockIdx.y * TILE + threadIdx.y;\n"
    "    int col = blockIdx.x * TILE + threadIdx.x;\n"
    "    float acc = 0.0f;\n"
    "\n"
    "    if (row >= n || col >= n)\n"
    "        return;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        acc += a[row * n + k] * b[k * n + col];\n"
    "    c[row * n + col] = logf(1.0f + acc); // not expf(\n"
    "}\n"
    "\n"
    "int main(void)\n"
    "{\n"
    "    float h[64], *d;\n"
    "\n"
    "    fill(h, 64);\n"
    "    cudaMalloc(&d, sizeof(h));\n"
    "    for (int r = 0; r < 2; r++)\n"
    "        scale<<<1, 64>>>(d, d, 64, 2.0f);\n"
    "    matmul<8><<<dim3(1, 1), dim3(8, 8)>>>(d, d, d, 8);\n"
    "    return 0;\n"
    "}\n";

static void
write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");

    if (!f) {
        printf("# cannot write %s\n", path);
        return;
    }
    fwrite(text, 1, len, f);
    fclose(f);
}

/* What the set-ups made, released at the end. */
static struct mc_builtin made[64];
static size_t nmade;

static void
release_made(void)
{
    while (nmade)
        mc_builtin_release(&made[--nmade]);
}

/* Set B up for PATH with the options ARGS (N of them); T is released. */
static enum mc_code
setup(struct mc_builtin *b, const char *path, char *const *args, size_t n,
      const char *text, size_t len)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    struct mc_conf c;
    enum mc_code rc;

    mc_conf_init(&c, NULL);
    rc = mc_target_parse(&t, path, args, n, &c, &err);
    mc_conf_release(&c);
    if (!rc && !t.compiler && !(t.compiler = mc_strdup(getenv("CC") ?
                                                       getenv("CC") : "gcc")))
        rc = MC_ENOMEM;
    if (!rc)
        rc = mc_builtin_init(b, &t, text, len, NULL, 0, &err);
    if (rc)
        printf("# %s: %s\n", path, err.msg);
    if (nmade < MC_ARRAY_SIZE(made))
        made[nmade++] = *b; /* a shallow copy: the owned parts */
    else
        printf("# too many set-ups to release\n");
    mc_target_release(&t);
    return rc;
}

/* The knob whose label is LABEL, or 0. */
static unsigned long
knob(const struct mc_builtin *b, const char *label)
{
    unsigned long bit = 0;
    unsigned i;

    for (i = 0; i < 8 * sizeof(bit) && !bit; i++) {
        struct mc_buf l = MC_BUF_INIT;

        mc_builtin_label(b, 1ul << i, &l);
        if (l.s && !strcmp(l.s, label))
            bit = 1ul << i;
        mc_buf_release(&l);
    }
    return bit;
}

/* SOURCE rendered by B with TAG, into OUT (reset first). */
static void
render(const struct mc_builtin *b, unsigned long tag, struct mc_buf *out)
{
    mc_buf_reset(out);
    if (mc_builtin_render(b, tag, source, strlen(source), out) ||
        !out->s)
        mc_buf_adds(out, "(render failed)");
}

/* The knob sets B would try first from the original, K of them at most,
 * into TAGS; returns how many. */
static size_t
first_round(struct mc_builtin *b, size_t k, unsigned long *tags)
{
    size_t n = 0;

    mc_builtin_choose(b, NULL, 0, -1, k, 0, tags, &n);
    return n;
}

/* Whether TEXT compiles with nvcc as CUDA, written to NAME first; its
 * messages go to the TAP output as diagnostics when it does not. */
static int
nvcc_compiles(const char *name, const char *text)
{
    char cmd[512];
    int st;

    write_file(name, text, strlen(text));
    snprintf(cmd, sizeof(cmd),
             "PATH=\"$PATH:/usr/local/cuda/bin\"; "
             "nvcc -c -o /dev/null -x cu %s >%s.log 2>&1", name, name);
    st = system(cmd);
    if (st != 0) {
        printf("# nvcc failed on %s (status %d)%s\n", name, st,
               WIFEXITED(st) && WEXITSTATUS(st) == 127 ? ": nvcc not found"
                                                       : "");
        snprintf(cmd, sizeof(cmd), "sed 's/^/#   /' %s.log | head -20",
                 name);
        if (system(cmd) != 0)
            printf("# (no log)\n");
    }
    return st == 0;
}

/* Whether R (SOURCE rendered) is SOURCE outside kernel NAME's span, and
 * NAME is still a kernel there. */
static int
outside_same(const char *name, const struct mc_buf *r)
{
    size_t len = strlen(source);
    char *c0 = mc_ctext_blank(source, len);
    char *c1 = mc_ctext_blank(r->s, r->len);
    struct mc_kernel k0, k1;
    int same = c0 && c1 && mc_ctext_kernel(c0, len, name, &k0) &&
               mc_ctext_kernel(c1, r->len, name, &k1) &&
               k0.start == k1.start && !memcmp(source, r->s, k0.start) &&
               len - k0.end == r->len - k1.end &&
               !memcmp(source + k0.end, r->s + k1.end, len - k0.end);

    mc_free(c0);
    mc_free(c1);
    return same;
}

static void
test_propose__labels(void)
{
    static const char *const labels[] = {
        "unroll(4)", "unroll(8)", "launch_bounds(256,2)",
        "launch_bounds(1024,1)", "restrict", "fast-intrinsics"};
    char *tol[] = {"tolerance=1e-3"};
    struct mc_builtin b;
    struct mc_buf l = MC_BUF_INIT;
    size_t i;

    if (!ok(!setup(&b, "k.cu", tol, 1, source, strlen(source)), "setup"))
        return;
    is_long(b.family, MC_CC_NVCC, "a .cu target is nvcc's");
    for (i = 0; i < MC_ARRAY_SIZE(labels); i++)
        ok(knob(&b, labels[i]), labels[i]);
    mc_builtin_label(&b, knob(&b, "restrict") | knob(&b, "unroll(4)"), &l);
    is_str(l.s, "unroll(4)+restrict", "a knob set's label");
    mc_buf_release(&l);
}

static void
test_propose__unroll_in_kernels_only(void)
{
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;

    if (!ok(!setup(&b, "k.cu", NULL, 0, source, strlen(source)), "setup"))
        return;
    render(&b, knob(&b, "unroll(4)"), &r);
    contains(r.s, "        return;\n#pragma unroll 4\n#line 27\n"
                  "    for (int k = 0;", "before matmul's loop");
    is_long(tap_count(r.s, "#pragma unroll"), 1, "nowhere else (host loops)");
    render(&b, knob(&b, "unroll(8)"), &r);
    contains(r.s, "#pragma unroll 8\n#line 27\n    for (int k", "unroll 8");
    is_long(tap_count(r.s, "#pragma unroll"), 1, "once");
    mc_buf_release(&r);
}

static void
test_propose__launch_bounds_and_restrict(void)
{
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;

    if (!ok(!setup(&b, "k.cu", NULL, 0, source, strlen(source)), "setup"))
        return;
    render(&b, knob(&b, "launch_bounds(256,2)"), &r);
    contains(r.s, "__global__ void __launch_bounds__(256, 2) scale(float",
             "before scale's name");
    contains(r.s, "\n__global__ void __launch_bounds__(256, 2) matmul(",
             "before the template kernel's name");
    is_long(tap_count(r.s, "__launch_bounds__"), 2, "on the kernels only");
    render(&b, knob(&b, "launch_bounds(1024,1)"), &r);
    contains(r.s, "void __launch_bounds__(1024, 1) matmul(", "1024, 1");
    render(&b, knob(&b, "restrict"), &r);
    contains(r.s, "scale(float *__restrict__ out, const float* __restrict__ "
                  "in, int n, float s)\n", "scale's pointers");
    contains(r.s, "matmul(const float *__restrict__ a, const float "
                  "*__restrict__ b, float *__restrict__ c,\n", "matmul's");
    is_long(tap_count(r.s, "__restrict__"), 5, "no other parameter");
    contains(r.s, "static void fill(float *x, int n)\n", "host unchanged");
    contains(r.s, "    float h[64], *d;\n", "host variables unchanged");
    mc_buf_release(&r);
}

static void
test_propose__fast_intrinsics(void)
{
    char *tol[] = {"tolerance=1e-3"};
    unsigned long tags[64];
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;
    size_t n, i;
    int any = 0;

    if (!ok(!setup(&b, "k.cu", tol, 1, source, strlen(source)), "setup"))
        return;
    render(&b, knob(&b, "fast-intrinsics"), &r);
    contains(r.s, "out[i] = s * __expf(in[i]) + __sinf (in[i]);\n",
             "expf and sinf in scale");
    contains(r.s, "c[row * n + col] = __logf(1.0f + acc); // not expf(\n",
             "logf in matmul, not in the comment");
    contains(r.s, "        x[i] = expf((float)i);\n", "host code unchanged");
    is_long(tap_count(r.s, "__"), tap_count(source, "__") + 3, "three calls only");
    n = first_round(&b, MC_ARRAY_SIZE(tags), tags);
    for (i = 0; i < n; i++)
        any |= (tags[i] & knob(&b, "fast-intrinsics")) != 0;
    ok(any, "chosen with a tolerance");
    if (!ok(!setup(&b, "k.cu", NULL, 0, source, strlen(source)), "setup"))
        return;
    n = first_round(&b, MC_ARRAY_SIZE(tags), tags);
    ok(n > 0, "knobs to try without a tolerance");
    for (i = 0, any = 0; i < n; i++)
        any |= (tags[i] & knob(&b, "fast-intrinsics")) != 0;
    ok(!any, "never chosen without one");
    mc_buf_release(&r);
}

/* With kernel=NAME, every knob set chosen (and all knobs at once) leaves
 * SOURCE outside NAME byte-identical; the knobs chosen into LABELS. */
static void
fenced(const char *name, struct mc_buf *labels)
{
    char arg[64], *args[] = {arg, "tolerance=1e-3"};
    unsigned long tags[64], all = 0;
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;
    size_t n, i;
    int same = 1;

    snprintf(arg, sizeof(arg), "kernel=%s", name);
    if (!ok(!setup(&b, "k.cu", args, 2, source, strlen(source)), arg))
        return;
    n = first_round(&b, MC_ARRAY_SIZE(tags), tags);
    for (i = 0; i < n; i++) {
        render(&b, tags[i], &r);
        same &= outside_same(name, &r);
        all |= tags[i];
    }
    ok(n > 0 && same, "each knob set changes NAME only");
    render(&b, ~0ul, &r);
    ok(outside_same(name, &r) && r.len > strlen(source),
       "all knobs at once change NAME only");
    mc_builtin_label(&b, all, labels);
    mc_buf_release(&r);
}

static void
test_propose__kernel_fence(void)
{
    struct mc_buf s = MC_BUF_INIT, m = MC_BUF_INIT;

    fenced("scale", &s);
    fenced("matmul", &m);
    ok(s.s && !strstr(s.s, "unroll("),
       "kernel=scale: no unroll (scale has no loop)");
    ok(m.s && strstr(m.s, "unroll("), "kernel=matmul: unroll on its loop");
    ok(s.s && m.s && strstr(s.s, "fast-intrinsics") &&
       strstr(m.s, "restrict"), "the other knobs are chosen");
    mc_buf_release(&s);
    mc_buf_release(&m);
}

/* The knob sets chosen (all of them, K = 64) for TEXT as .cu with a
 * tolerance (and kernel=KERNEL unless NULL), their labels joined into
 * ALL ("original" when none); returns how many. */
static size_t
chosen_for(const char *text, const char *kernel, struct mc_buf *all)
{
    char arg[64], *args[] = {"tolerance=1e-3", arg};
    unsigned long tags[64], any = 0;
    struct mc_builtin b;
    size_t i, n;

    snprintf(arg, sizeof(arg), "kernel=%s", kernel ? kernel : "");
    write_file("other.cu", text, strlen(text));
    mc_buf_reset(all);
    if (setup(&b, "other.cu", args, kernel ? 2 : 1, text, strlen(text))) {
        mc_buf_adds(all, "(setup failed)");
        return 0;
    }
    n = first_round(&b, MC_ARRAY_SIZE(tags), tags);
    for (i = 0; i < n; i++)
        any |= tags[i];
    mc_builtin_label(&b, any, all);
    return n;
}

static void
test_propose__nothing_to_apply(void)
{
    struct mc_buf all = MC_BUF_INIT;
    size_t n;

    n = chosen_for("int main(void)\n{\n    float *p = 0;\n"
                   "    for (int i = 0; i < 3; i++)\n        p++;\n"
                   "    return expf(1.0f) > 0 && p;\n}\n", NULL, &all);
    ok(n == 0 && !strcmp(all.s, "original"), "host code only: nothing");
    n = chosen_for("__global__ void k(int n)\n{\n}\n"
                   "void h(float *p)\n{\n    for (int i = 0; i < 3; i++)\n"
                   "        p[i] = expf(p[i]);\n}\n", NULL, &all);
    ok(n == 2 && !strcmp(all.s, "launch_bounds(256,2)+"
                                "launch_bounds(1024,1)"),
       "a bare kernel: launch bounds only");
    n = chosen_for("__global__ void __launch_bounds__(128) k(float "
                   "*__restrict__ p, const float *__restrict q)\n{\n"
                   "    for (int i = 0; i < 3; i++)\n"
                   "        p[i] = q[i];\n}\n", NULL, &all);
    ok(n && !strcmp(all.s, "unroll(8)+unroll(4)"),
       "bounds and restrict there already: unroll only");
    n = chosen_for(source, "nosuch", &all);
    ok(n == 0 && !strcmp(all.s, "original"),
       "kernel=NAME that is not there: nothing");
    mc_buf_release(&all);
}

static void
test_propose__first_round(void)
{
    static const char *const want[] = {
        "restrict", "launch_bounds(256,2)", "unroll(4)", "unroll(4)+restrict",
        "fast-intrinsics", "unroll(8)", "launch_bounds(1024,1)"};
    char *tol[] = {"tolerance=1e-3"};
    unsigned long tags[64], lbs, unrolls;
    struct mc_builtin b;
    struct mc_buf l = MC_BUF_INIT;
    size_t n, i;
    int one = 1;

    if (!ok(!setup(&b, "k.cu", tol, 1, source, strlen(source)), "setup"))
        return;
    n = first_round(&b, 8, tags);
    is_long(n, 8, "eight from the original");
    for (i = 0; i < n && i < MC_ARRAY_SIZE(want); i++) {
        mc_buf_reset(&l);
        mc_builtin_label(&b, tags[i], &l);
        is_str(l.s, want[i], "the seeds first, in order");
    }
    lbs = knob(&b, "launch_bounds(256,2)") | knob(&b, "launch_bounds(1024,1)");
    unrolls = knob(&b, "unroll(4)") | knob(&b, "unroll(8)");
    n = first_round(&b, MC_ARRAY_SIZE(tags), tags);
    for (i = 0; i < n; i++)
        one &= (tags[i] & lbs) != lbs && (tags[i] & unrolls) != unrolls;
    ok(n > 8 && one, "one launch bounds and one unroll at most");
    mc_buf_release(&l);
}

/* The variant of SOURCE with the knobs LABELS ('+'-separated) under
 * the options ARGS compiles with nvcc, as NAME. */
static void
compiles(const char *name, const char *labels, char *const *args, size_t n)
{
    struct mc_builtin b;
    struct mc_buf r = MC_BUF_INIT;
    unsigned long tag = 0;
    const char *p, *e;
    char one[64];

    if (setup(&b, "k.cu", args, n, source, strlen(source))) {
        ok(0, name);
        return;
    }
    for (p = labels; *p; p = *e ? e + 1 : e) {
        e = p + strcspn(p, "+");
        snprintf(one, sizeof(one), "%.*s", (int)(e - p), p);
        tag |= knob(&b, one);
    }
    render(&b, tag, &r);
    ok(nvcc_compiles(name, r.s), name);
    mc_buf_release(&r);
}

static void
test_propose__variants_compile_with_nvcc(void)
{
    char *tol[] = {"tolerance=1e-3"};

    /* Between them, every knob (nvcc is slow: three compiles). */
    ok(nvcc_compiles("original.cu", source), "the original compiles");
    compiles("all.cu", "unroll(4)+launch_bounds(256,2)+restrict+"
             "fast-intrinsics", tol, 1);
    compiles("wide.cu", "unroll(8)+launch_bounds(1024,1)", NULL, 0);
}

/* LABEL as a file name part: '(' and ',' become '-', ')' goes. */
static void
file_label(const char *label, struct mc_buf *out)
{
    for (; *label; label++)
        if (*label == '(' || *label == ',')
            mc_buf_addc(out, '-');
        else if (*label != ')')
            mc_buf_addc(out, *label);
}

/* Write the variant of TEXT with TAG by B into OUTDIR as NN-LABEL.cu
 * (NN: I + 1) and print its name. */
static enum mc_code
write_variant(const struct mc_builtin *b, unsigned long tag, size_t i,
              const struct mc_buf *text, const char *outdir)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf label = MC_BUF_INIT, path = MC_BUF_INIT, r = MC_BUF_INIT;
    enum mc_code rc;

    mc_builtin_label(b, tag, &label);
    mc_buf_addf(&path, "%s/%02zu-", outdir, i + 1);
    file_label(label.s, &path);
    mc_buf_adds(&path, ".cu");
    rc = mc_builtin_render(b, tag, text->s, text->len, &r);
    if (!rc)
        rc = mc_file_write_atomic(path.s, r.s, r.len, &err);
    if (rc)
        fprintf(stderr, "test-propose: cannot write '%s': %s\n", path.s,
                err.msg[0] ? err.msg : mc_strerror(rc));
    else
        printf("%s\n", path.s + strlen(outdir) + 1);
    mc_buf_release(&label);
    mc_buf_release(&path);
    mc_buf_release(&r);
    return rc;
}

/* --render FILE OUTDIR [KEY=VALUE]...: the first round's variants. */
static int
render_mode(const char *file, const char *outdir, char *const *args,
            size_t n)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf text = MC_BUF_INIT;
    struct mc_builtin b;
    unsigned long tags[8];
    size_t got, i;
    enum mc_code rc;

    rc = mc_file_read(file, &text, &err);
    if (rc)
        fprintf(stderr, "test-propose: cannot read '%s'\n", file);
    if (!rc)
        rc = setup(&b, file, args, n, text.s, text.len);
    got = rc ? 0 : first_round(&b, MC_ARRAY_SIZE(tags), tags);
    for (i = 0; !rc && i < got; i++)
        rc = write_variant(&b, tags[i], i, &text, outdir);
    mc_buf_release(&text);
    release_made();
    return rc ? 1 : 0;
}

int
main(int argc, char **argv)
{
    char cmd[64];

    if (argc >= 4 && !strcmp(argv[1], "--render"))
        return render_mode(argv[2], argv[3], argv + 4, (size_t)argc - 4);
    if (!mkdtemp(dir) || chdir(dir)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    write_file("k.cu", source, strlen(source));
    TAP_RUN(test_propose__labels);
    TAP_RUN(test_propose__unroll_in_kernels_only);
    TAP_RUN(test_propose__launch_bounds_and_restrict);
    TAP_RUN(test_propose__fast_intrinsics);
    TAP_RUN(test_propose__kernel_fence);
    TAP_RUN(test_propose__nothing_to_apply);
    TAP_RUN(test_propose__first_round);
    TAP_RUN(test_propose__variants_compile_with_nvcc);
    release_made();
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("# cannot remove %s\n", dir);
    return tap_done();
}
