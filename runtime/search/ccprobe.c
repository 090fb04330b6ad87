/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ccprobe.c: what the compiler accepts of the proposer's directives,
 * probed once per compiler identity (see ccprobe.h).
 */
#include "mc_setup.h"
#include "ccprobe.h"
#include "alloc.h"
#include "buf.h"
#include "compiler.h"
#include "file.h"
#include "hash.h"
#include "lang.h"
#include "spawn.h"
#include "strv.h"

#include <ftw.h>

#define PROBE_TIMEOUT_S 30

/* The probe source for ITEM into OUT. */
static void
probe_source(const char *item, struct mc_buf *out)
{
    const char *fn_attr = "", *loop = "", *cond = "i < n";

    if (!strncmp(item, "opt:", 4))
        mc_buf_addf(out, "#pragma GCC optimize (\"%s\")\n", item + 4);
    if (!strncmp(item, "fnopt:", 6) || !strncmp(item, "attr:", 5))
        fn_attr = item;
    if (!strncmp(item, "loop:", 5))
        loop = item + 5;
    if (!strcmp(item, "expect"))
        cond = "__builtin_expect(!!(i < n), 1)";
    /* A declaration first, as most sources have one in a header. */
    mc_buf_adds(out, "double mc_probe(double *a, int n);\n");
    if (*fn_attr == 'f')
        mc_buf_addf(out, "__attribute__((optimize(\"%s\")))\n", fn_attr + 6);
    else if (*fn_attr)
        mc_buf_addf(out, "__attribute__((%s))\n", fn_attr + 5);
    mc_buf_adds(out, "double mc_probe(double *a, int n)\n{\n"
                     "    double s = 0;\n");
    if (*loop)
        mc_buf_addf(out, "#pragma %s\n", loop);
    mc_buf_addf(out, "    for (int i = 0; %s; i++)\n"
                     "        s += a[i] * a[i];\n"
                     "    return s;\n}\n", cond);
}

/* Whether T's compiler compiles the probe of ITEM in DIR. */
static int
accepts(const struct mc_target *t, const char *item, const char *dir)
{
    struct mc_buf src = MC_BUF_INIT, path = MC_BUF_INIT;
    struct mc_strv argv = MC_STRV_INIT;
    struct mc_spawn_opts so = {.timeout_s = PROBE_TIMEOUT_S};
    struct mc_spawn_result r;
    int yes = 0;

    probe_source(item, &src);
    mc_buf_addf(&path, "%s/probe%s", dir,
                t->lang == MC_LANG_CXX ? ".cc" : ".c");
    mc_spawn_result_init(&r);
    if (mc_buf_status(&src) || mc_buf_status(&path) ||
        mc_file_write_atomic(path.s, src.s, src.len, NULL) ||
        mc_shell_split(t->compiler, &argv, NULL) || !argv.n)
        goto out;
    mc_strv_push(&argv, "-O2");
    mc_strv_push(&argv, "-Wall");
    mc_strv_push(&argv, "-Wextra");
    mc_strv_push(&argv, "-Werror");
    mc_strv_push(&argv, "-c");
    mc_strv_push(&argv, "-o");
    mc_strv_push(&argv, "/dev/null");
    mc_strv_push(&argv, path.s);
    if (!mc_strv_status(&argv) && mc_spawn(argv.v, &so, &r, NULL) == MC_OK)
        yes = r.exited && r.status == 0;
out:
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    mc_buf_release(&src);
    mc_buf_release(&path);
    return yes;
}

/* The answer for ITEM in the remembered TEXT: 1, 0, or -1 when absent. */
static int
remembered(const char *text, const char *item)
{
    size_t n = strlen(item);
    const char *p = text;

    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);

        if (len == n + 2 && !strncmp(p, item, n) && p[n] == ' ' &&
            (p[n + 1] == '0' || p[n + 1] == '1'))
            return p[n + 1] == '1';
        p = nl ? nl + 1 : NULL;
    }
    return -1;
}

/* The path of T's probe file into OUT. */
static enum mc_code
probe_path(const struct mc_target *t, struct mc_buf *out, struct mc_err *err)
{
    const char *cache = mc_conf_get(&t->conf, MC_SET_CACHE_DIR), *id;
    struct mc_buf f = MC_BUF_INIT;
    struct mc_digest d;
    char hex[MC_KEY_HEX + 1];
    enum mc_code rc;

    rc = mc_compiler_identity(t->compiler ? t->compiler : "",
                              mc_conf_get(&t->conf, MC_SET_COMPILER_CHECK),
                              cache, &id, err);
    if (rc)
        return rc;
    mc_buf_addf(&f, "%s\n%s\n", id, mc_lang_get(t->lang)->key_name);
    if (mc_buf_status(&f)) {
        mc_buf_release(&f);
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    mc_hash_buffer(f.s, f.len, &d);
    mc_digest_hex(&d, hex);
    mc_buf_addf(out, "%s/probes/%s", cache, hex);
    mc_buf_release(&f);
    return mc_buf_status(out) ? mc_err_set(err, MC_ENOMEM, "out of memory")
                              : MC_OK;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Probe the items of ITEMS that TEXT lacks, appending them to TEXT;
 * *OK gets every answer. Returns how many were probed. */
static size_t
probe_missing(const struct mc_target *t, const char *const *items, size_t n,
              struct mc_buf *text, unsigned long *ok)
{
    char dir[] = "/tmp/maxcode-probe.XXXXXX";
    const char *tmp = getenv("TMPDIR");
    struct mc_buf d = MC_BUF_INIT;
    size_t i, probed = 0;

    mc_buf_addf(&d, "%s/maxcode-probe.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mc_buf_status(&d) || !mkdtemp(d.s)) {
        mc_buf_release(&d);
        if (!mkdtemp(dir))
            return 0;
        mc_buf_adds(&d, dir);
    }
    for (i = 0; i < n && d.s; i++) {
        int yes = text->s ? remembered(text->s, items[i]) : -1;
        if (yes < 0) {
            yes = accepts(t, items[i], d.s);
            mc_buf_addf(text, "%s %d\n", items[i], yes);
            probed++;
        }
        if (yes)
            *ok |= 1ul << i;
    }
    if (d.s)
        nftw(d.s, rm_one, 8, FTW_DEPTH | FTW_PHYS);
    mc_buf_release(&d);
    return probed;
}

enum mc_code
mc_ccprobe(const struct mc_target *t, const char *const *items, size_t n,
           unsigned long *ok, struct mc_err *err)
{
    const char *cache = mc_conf_get(&t->conf, MC_SET_CACHE_DIR);
    struct mc_buf path = MC_BUF_INIT, text = MC_BUF_INIT;
    enum mc_code rc;

    *ok = 0;
    if (n > 8 * sizeof(*ok))
        n = 8 * sizeof(*ok);
    rc = probe_path(t, &path, err);
    if (rc)
        goto out;
    if (mc_file_read_shared(cache, path.s + strlen(cache) + 1,
                            MC_FILE_SMALL, &text, NULL))
        mc_buf_reset(&text);
    if (probe_missing(t, items, n, &text, ok) && text.s &&
        !mc_file_mkdirs_for(path.s, NULL))
        mc_file_write_atomic(path.s, text.s, text.len, NULL); /* a cache */
    if (mc_buf_status(&text))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    mc_buf_release(&path);
    mc_buf_release(&text);
    return rc;
}
