/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-flags.c: relative paths inside compiler and linker flags,
 * rebased from one directory to another, and listed (what a build may
 * read).
 */
#include "mc_setup.h"
#include "buf.h"
#include "flags.h"
#include "strv.h"
#include "tap.h"

/* The words of FLAGS (split at blanks) rebased, joined by blanks, into
 * OUT (static). */
static const char *
rebase(const char *flags, const char *from, const char *to,
       enum mc_flags_which which)
{
    static char out[1024];
    struct mc_strv in = MC_STRV_INIT, res = MC_STRV_INIT;
    struct mc_buf b = MC_BUF_INIT;
    size_t i;

    mc_shell_split(flags, &in, NULL);
    if (mc_flags_rebase(&in, from, to, which, &res))
        snprintf(out, sizeof(out), "(error)");
    else {
        for (i = 0; i < res.n; i++)
            mc_buf_addf(&b, "%s%s", i ? " " : "", res.v[i]);
        snprintf(out, sizeof(out), "%s", b.s ? b.s : "");
    }
    mc_buf_release(&b);
    mc_strv_release(&in);
    mc_strv_release(&res);
    return out;
}

static void
test_flags__include_and_library_paths(void)
{
    is_str(rebase("-Iinc -I inc2 -isystem sys -include cfg.h -O2 -DX=a/b",
                  "/p/sub", "/p", MC_FLAGS_ALL),
           "-Isub/inc -I sub/inc2 -isystem sub/sys -include sub/cfg.h -O2 "
           "-DX=a/b",
           "paths move from /p/sub to /p; other flags stay");
    is_str(rebase("-I../include -L../lib", "/p/sub", "/p/sub",
                  MC_FLAGS_ALL),
           "-I../include -L../lib", "the same directory keeps them");
    is_str(rebase("-I/usr/include/x -I=sys -I- -include-pch p.pch",
                  "/p", "/q", MC_FLAGS_ALL),
           "-I/usr/include/x -I=sys -I- -include-pch p.pch",
           "absolute, sysroot-relative and non-path forms are kept");
    is_str(rebase("-Iinc --sysroot=sr @opts.rsp -specs=my.specs",
                  "/p", NULL, MC_FLAGS_ALL),
           "-I/p/inc --sysroot=/p/sr @/p/opts.rsp -specs=/p/my.specs",
           "made absolute without TO");
}

static void
test_flags__linker_words(void)
{
    is_str(rebase("-Wl,-rpath,lib,--as-needed -Wl,-rpath=l2 "
                  "-Wl,-R,l3 -Wl,-rpath,$ORIGIN/lib",
                  "/p", NULL, MC_FLAGS_RUNTIME),
           "-Wl,-rpath,/p/lib,--as-needed -Wl,-rpath=/p/l2 -Wl,-R,/p/l3 "
           "-Wl,-rpath,$ORIGIN/lib",
           "rpaths made absolute, $ORIGIN kept");
    is_str(rebase("-Xlinker -rpath -Xlinker lib -Llib -Iinc", "/p", NULL,
                  MC_FLAGS_RUNTIME),
           "-Xlinker -rpath -Xlinker /p/lib -Llib -Iinc",
           "only run-time paths in MC_FLAGS_RUNTIME");
    is_str(rebase("-Wl,--version-script=v.map,-L,lib", "/p/sub", "/p",
                  MC_FLAGS_ALL),
           "-Wl,--version-script=sub/v.map,-L,sub/lib",
           "linker words with paths move too");
}

static void
test_flags__for_build(void)
{
    static const char *const words[] = {
        "-Wall", "-c", "-O2", "-MMD", "-MF", "x.d", "-MTx.o",
        "-Wl,-Map,prog.map", "-save-temps", "-Wp,-MD,y.d", "-DX"};
    struct mc_strv in = MC_STRV_INIT, out = MC_STRV_INIT;
    struct mc_buf b = MC_BUF_INIT;
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(words); i++)
        mc_strv_push(&in, words[i]);
    mc_flags_for_build(&in, "/s", &out);
    for (i = 0; i < out.n; i++)
        mc_buf_addf(&b, "%s%s", i ? " " : "", out.v[i]);
    is_str(b.s, "-Wall -O2 -Wl,-Map,/s/link.map -save-temps=obj -DX",
           "compile-mode and dependency options go, outputs go to DIR");
    mc_strv_release(&out);
    mc_buf_reset(&b);
    mc_flags_for_build(&in, NULL, &out);
    for (i = 0; i < out.n; i++)
        mc_buf_addf(&b, "%s%s", i ? " " : "", out.v[i]);
    is_str(b.s, "-Wall -O2 -DX", "without DIR, outputs go too");
    mc_strv_release(&out);
    mc_strv_release(&in);
    mc_buf_release(&b);
}

/* The paths FLAGS name, made absolute against FROM, joined by blanks. */
static const char *
paths(const char *flags, const char *from)
{
    static char out[1024];
    struct mc_strv in = MC_STRV_INIT, res = MC_STRV_INIT;
    size_t i;

    out[0] = '\0';
    mc_shell_split(flags, &in, NULL);
    if (mc_flags_paths(&in, from, &res))
        snprintf(out, sizeof(out), "(error)");
    for (i = 0; i < res.n; i++)
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
                 i ? " " : "", res.v[i]);
    mc_strv_release(&in);
    mc_strv_release(&res);
    return out;
}

static void
test_flags__paths(void)
{
    is_str(paths("-Iinc -I /abs -isystem sys -include cfg.h -O2 -DX=a/b "
                 "-I- -include-pch p.pch", "/p"),
           "/p/inc /abs /p/sys /p/cfg.h", "include options");
    is_str(paths("-L../lib -Wl,-rpath,rl -Wl,-T,ld.x -Xlinker -rpath "
                 "-Xlinker xr @rsp --sysroot=sr -I=sys -Wl,-rpath=$ORIGIN",
                 "/p"),
           "/p/../lib /p/rl /p/ld.x /p/xr /p/rsp /p/sr",
           "library and linker paths; sysroot and $ORIGIN left out");
    is_str(paths("-ccbin /opt/gcc/bin/g++ --compiler-bindir=bin -arch=sm_90",
                 "/p"),
           "/opt/gcc/bin/g++ /p/bin", "nvcc's host compiler");
}

int
main(void)
{
    TAP_RUN(test_flags__include_and_library_paths);
    TAP_RUN(test_flags__linker_words);
    TAP_RUN(test_flags__for_build);
    TAP_RUN(test_flags__paths);
    return tap_done();
}
