/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * record_includes.c: the include records of an entry that `maxcode
 * optimize` stores (record_includes.h).
 */
#include "mc_setup.h"
#include "record_includes.h"
#include "flags.h"
#include "hash.h"
#include "paths.h"
#include "reads.h"
#include "spawn.h"
#include "strv.h"

/* DEPS (from -MM) but T's source as "HASH PATH" lines in OUT: a path
 * inside make's directory relative to it, as the lookup reads it, so the
 * entry holds for the same checkout elsewhere. */
static void
add_includes(const struct mc_target *t, const struct mc_strv *deps,
             struct mc_buf *out)
{
    char cwd[PATH_MAX];
    size_t i;

    if (!getcwd(cwd, sizeof(cwd)))
        cwd[0] = '\0';
    for (i = 0; i < deps->n; i++) {
        char hex[MC_KEY_HEX + 1];

        if (!strcmp(deps->v[i], t->source))
            continue;
        if (mc_hash_file_hex(deps->v[i], hex, NULL))
            continue; /* gone already: the next lookup misses anyway */
        mc_buf_addf(out, "%s %s\n", hex, mc_path_in_dir(deps->v[i], cwd));
    }
}

enum mc_code
mc_record_includes(const struct mc_target *t, struct mc_buf *out,
                struct mc_err *err)
{
    struct mc_spawn_opts so = {.timeout_s = 120};
    struct mc_spawn_result r;
    struct mc_strv argv = MC_STRV_INIT, deps = MC_STRV_INIT;
    enum mc_code rc;

    mc_spawn_result_init(&r);
    rc = mc_shell_split(t->compiler, &argv, err);
    if (!rc && !argv.n)
        rc = mc_err_set(err, MC_EINVAL, "empty compiler command");
    if (!rc && (mc_flags_for_build(&t->flags, NULL, &argv) ||
                mc_strv_push(&argv, "-MM") ||
                mc_strv_push(&argv, t->source)))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!rc)
        rc = mc_spawn(argv.v, &so, &r, err);
    if (rc)
        goto out;
    if (!r.exited || r.status) {
        mc_buf_rtrim(&r.err);
        rc = mc_err_set(err, MC_EINVAL, "'%s -MM %s' failed: %.160s",
                        argv.v[0], t->source, r.err.s);
        goto out;
    }
    /* "obj.o: src/a.c src/b.h \\\n src/c.h", as reads.h reads it. */
    if (mc_reads_deps(r.out.s, r.out.len, &deps))
        goto oom;
    add_includes(t, &deps, out);
    if (mc_buf_status(out))
        goto oom;
    goto out;
oom:
    rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    mc_strv_release(&deps);
    return rc;
}
