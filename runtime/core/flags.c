/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * flags.c: rewriting the relative paths inside compiler and linker flags
 * from one directory to another (see flags.h for which).
 */
#include "mc_setup.h"
#include "flags.h"
#include "alloc.h"
#include "buf.h"
#include "paths.h"

/* Options with a path argument, separate or joined. A longer name comes
 * before a shorter one it starts with. */
static const char *const path_opts[] = {
    "-iwithprefixbefore", "-iwithprefix", "-iprefix", "-isysroot",
    "-isystem", "-idirafter", "-iquote", "-include", "-imacros",
    "-I", "-L", "-B", "-T",
};

/* Options with a joined path argument only. */
static const char *const joined_opts[] = {
    "--sysroot=", "-specs=", "-fprofile-use=", "@",
};

/* Linker words (inside -Wl, or after -Xlinker) followed by a path. */
static const char *const ld_sep[] = {"-rpath", "--rpath", "-R", "-L", "-T"};
static const char *const ld_joined[] = {
    "-rpath=", "--rpath=", "--version-script=", "--dynamic-list=", "-L",
};

/* Whether linker word W is one that the program reads at run time. */
static int
ld_runtime(const char *w)
{
    return !strncmp(w, "-rpath", 6) || !strncmp(w, "--rpath", 7) ||
           !strcmp(w, "-R");
}

/* P rewritten (see mc_flags_rebase), or a copy of P when it is not
 * relative. NULL if out of memory. */
static char *
rebase_path(const char *p, const char *from, const char *to)
{
    struct mc_buf b = MC_BUF_INIT;
    char *rel;

    if (!*p || *p == '/' || *p == '=' || !strncmp(p, "$SYSROOT", 8) ||
        !strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9))
        return mc_strdup(p);
    mc_buf_adds(&b, from);
    if (b.len && b.s[b.len - 1] != '/')
        mc_buf_addc(&b, '/');
    mc_buf_adds(&b, p);
    if (mc_buf_status(&b) || !to)
        return mc_buf_detach(&b, NULL);
    rel = mc_path_relative(to, b.s);
    mc_buf_release(&b);
    return rel;
}

/* Append PREFIX (LEN bytes) and P rebased to B. */
static void
add_rebased(struct mc_buf *b, const char *prefix, size_t len, const char *p,
            const char *from, const char *to)
{
    char *r = rebase_path(p, from, to);

    mc_buf_add(b, prefix, len);
    if (r)
        mc_buf_adds(b, r);
    else
        mc_buf_grow(b, (size_t)-1 / 2); /* marks B out of memory */
    mc_free(r);
}

/* The linker word W (inside -Wl, or after -Xlinker): whether a path
 * follows it. */
static int
ld_wants_path(const char *w, int all)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(ld_sep); i++)
        if (!strcmp(w, ld_sep[i]) && (all || ld_runtime(w)))
            return 1;
    return 0;
}

/* Linker word W, rebased when it has a joined path, into B. */
static void
add_ld_word(struct mc_buf *b, const char *w, const char *from,
            const char *to, int all)
{
    size_t i, k;

    for (i = 0; i < MC_ARRAY_SIZE(ld_joined); i++) {
        k = strlen(ld_joined[i]);
        if (!strncmp(w, ld_joined[i], k) && w[k] &&
            (all || ld_runtime(w))) {
            add_rebased(b, w, k, w + k, from, to);
            return;
        }
    }
    mc_buf_adds(b, w);
}

/* The linker words of "-Wl,A,B,..." in W, rebased, into B. */
static void
rebase_wl(const char *w, const char *from, const char *to, int all,
          struct mc_buf *b)
{
    const char *p = w + 4;
    int path_next = 0;

    mc_buf_adds(b, "-Wl");
    for (;;) {
        size_t n = strcspn(p, ",");
        char *piece = mc_malloc(n + 1);

        if (!piece) {
            mc_buf_grow(b, (size_t)-1 / 2);
            return;
        }
        memcpy(piece, p, n);
        piece[n] = '\0';
        mc_buf_addc(b, ',');
        if (path_next) {
            add_rebased(b, "", 0, piece, from, to);
            path_next = 0;
        } else {
            path_next = ld_wants_path(piece, all);
            add_ld_word(b, piece, from, to, all);
        }
        mc_free(piece);
        p += n;
        if (!*p)
            break;
        p++;
    }
}

enum mc_code
mc_flags_rebase(const struct mc_strv *in, const char *from, const char *to,
                enum mc_flags_which which, struct mc_strv *out)
{
    struct mc_buf b = MC_BUF_INIT;
    int all = which == MC_FLAGS_ALL, sep_next = 0, xl_path = 0;
    enum mc_code rc = MC_OK;
    size_t i, k;

    for (i = 0; i < in->n && !rc; i++) {
        const char *a = in->v[i];
        int done = 0;

        mc_buf_reset(&b);
        if (sep_next) {
            /* The argument of "-I DIR" or of "-Xlinker -rpath -Xlinker". */
            add_rebased(&b, "", 0, a, from, to);
            sep_next = 0;
            done = 1;
        } else if (!strcmp(a, "-Xlinker") && i + 1 < in->n) {
            mc_buf_adds(&b, a);
            rc = mc_buf_status(&b) ? MC_ENOMEM : mc_strv_push(out, b.s);
            mc_buf_reset(&b);
            a = in->v[++i];
            if (xl_path) {
                add_rebased(&b, "", 0, a, from, to);
                xl_path = 0;
            } else {
                xl_path = ld_wants_path(a, all);
                add_ld_word(&b, a, from, to, all);
            }
            done = 1;
        } else if (!strncmp(a, "-Wl,", 4)) {
            rebase_wl(a, from, to, all, &b);
            done = 1;
        }
        for (k = 0; all && !done && k < MC_ARRAY_SIZE(path_opts); k++) {
            size_t n = strlen(path_opts[k]);

            if (strncmp(a, path_opts[k], n))
                continue;
            if (!a[n]) {
                mc_buf_adds(&b, a);
                sep_next = 1;
            } else if (a[n] == '-') {
                mc_buf_adds(&b, a); /* "-I-", "-include-pch" */
            } else {
                add_rebased(&b, a, n, a + n, from, to);
            }
            done = 1;
        }
        for (k = 0; all && !done && k < MC_ARRAY_SIZE(joined_opts); k++) {
            size_t n = strlen(joined_opts[k]);

            if (!strncmp(a, joined_opts[k], n) && a[n]) {
                add_rebased(&b, a, n, a + n, from, to);
                done = 1;
            }
        }
        if (!done)
            mc_buf_adds(&b, a);
        if (!rc)
            rc = mc_buf_status(&b) ? MC_ENOMEM : mc_strv_push(out, b.s);
    }
    mc_buf_release(&b);
    return rc;
}

enum mc_code
mc_flags_for_build(const struct mc_strv *in, const char *dir,
                   struct mc_strv *out)
{
    struct mc_buf b = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    size_t i;

    for (i = 0; i < in->n && !rc; i++) {
        const char *a = in->v[i];

        if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") ||
            !strcmp(a, "-MD") || !strcmp(a, "-MMD") ||
            !strncmp(a, "-Wp,-MD,", 8) || !strncmp(a, "-Wp,-MMD,", 9))
            continue;
        if (a[0] == '-' && a[1] == 'M' && a[2] && strchr("FTQ", a[2])) {
            i += !a[3]; /* "-MF X": X goes too */
            continue;
        }
        if (!strcmp(a, "-save-temps") || !strcmp(a, "-save-temps=cwd")) {
            /* Next to the output, in DIR, not in make's directory. */
            rc = dir ? mc_strv_push(out, "-save-temps=obj") : MC_OK;
            continue;
        }
        if (!strncmp(a, "-Wl,-Map,", 9) || !strncmp(a, "-Wl,-Map=", 9)) {
            if (!dir)
                continue;
            mc_buf_reset(&b);
            mc_buf_addf(&b, "-Wl,-Map,%s/link.map", dir);
            rc = mc_buf_status(&b) ? MC_ENOMEM : mc_strv_push(out, b.s);
            continue;
        }
        rc = mc_strv_push(out, a);
    }
    mc_buf_release(&b);
    return rc;
}

/* Options of nvcc with a path argument, separate or after '='. */
static const char *const nvcc_opts[] = {"-ccbin", "--compiler-bindir"};

/* P made absolute against FROM into OUT, unless it is empty or relative
 * to a sysroot or to the executable. */
static void
push_path(struct mc_strv *out, const char *p, const char *from)
{
    if (*p && *p != '=' && strncmp(p, "$SYSROOT", 8) &&
        strncmp(p, "$ORIGIN", 7) && strncmp(p, "${ORIGIN}", 9))
        mc_strv_push_owned(out, rebase_path(p, from, NULL));
}

/* The paths in the linker words of "-Wl,A,B,..." in W into OUT. */
static void
paths_wl(const char *w, const char *from, struct mc_strv *out)
{
    struct mc_strv pieces = MC_STRV_INIT;
    size_t i, k;
    const char *p;

    for (p = w + 4;; p++) {
        size_t n = strcspn(p, ",");

        mc_strv_pushn(&pieces, p, n);
        p += n;
        if (!*p)
            break;
    }
    for (i = 0; i < pieces.n; i++) {
        if (ld_wants_path(pieces.v[i], 1) && i + 1 < pieces.n) {
            push_path(out, pieces.v[++i], from);
            continue;
        }
        for (k = 0; k < MC_ARRAY_SIZE(ld_joined); k++)
            if (!strncmp(pieces.v[i], ld_joined[k], strlen(ld_joined[k])))
                push_path(out, pieces.v[i] + strlen(ld_joined[k]), from);
    }
    if (mc_strv_status(&pieces))
        out->oom = 1;
    mc_strv_release(&pieces);
}

enum mc_code
mc_flags_paths(const struct mc_strv *in, const char *from,
               struct mc_strv *out)
{
    size_t i, k;

    for (i = 0; i < in->n; i++) {
        const char *a = in->v[i];
        int done = 0;

        if (!strcmp(a, "-Xlinker") && i + 2 < in->n &&
            !strcmp(in->v[i + 2], "-Xlinker") &&
            ld_wants_path(in->v[i + 1], 1) && i + 3 < in->n) {
            push_path(out, in->v[i + 3], from);
            i += 3;
            continue;
        }
        if (!strncmp(a, "-Wl,", 4)) {
            paths_wl(a, from, out);
            continue;
        }
        for (k = 0; !done && k < MC_ARRAY_SIZE(path_opts); k++) {
            size_t n = strlen(path_opts[k]);

            if (strncmp(a, path_opts[k], n))
                continue;
            if (!a[n] && i + 1 < in->n)
                push_path(out, in->v[++i], from);
            else if (a[n] && a[n] != '-')
                push_path(out, a + n, from);
            done = 1;
        }
        for (k = 0; !done && k < MC_ARRAY_SIZE(joined_opts); k++) {
            size_t n = strlen(joined_opts[k]);

            if (!strncmp(a, joined_opts[k], n) && a[n]) {
                push_path(out, a + n, from);
                done = 1;
            }
        }
        for (k = 0; !done && k < MC_ARRAY_SIZE(nvcc_opts); k++) {
            size_t n = strlen(nvcc_opts[k]);

            if (strncmp(a, nvcc_opts[k], n) || (a[n] && a[n] != '='))
                continue;
            if (a[n] == '=')
                push_path(out, a + n + 1, from);
            else if (i + 1 < in->n)
                push_path(out, in->v[++i], from);
            done = 1;
        }
    }
    return mc_strv_status(out);
}
