/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_cuda.c: `maxcode cuda [--json] [--refresh]` prints the CUDA device
 * probe this machine remembers for its boot (cuda.h), probing when there
 * is none or with --refresh; `maxcode --cflags` prints the -I option
 * that finds <maxcode/cuda_harness.h> for this maxcode (its build tree
 * or its installed include directory).
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "commands.h"
#include "conf.h"
#include "cuda.h"
#include "log.h"
#include "paths.h"

#include <sys/stat.h>

#ifndef MC_INCLUDEDIR
#define MC_INCLUDEDIR "/usr/local/include"
#endif
#ifndef MC_SRCDIR
#define MC_SRCDIR "."
#endif

#define HARNESS "maxcode/cuda_harness.h"

/* The probe's compiler without $NVCC: the one configure found. */
#ifdef MC_NVCC
#define NVCC_DEFAULT MC_NVCC
#else
#define NVCC_DEFAULT "nvcc"
#endif

int
mc_cmd_cuda(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_cuda_probe p;
    struct mc_buf out = MC_BUF_INIT;
    struct mc_conf c;
    const char *nvcc;
    int json = 0, refresh = 0, i, status = 1;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--refresh"))
            refresh = 1;
        else
            return mc_usage_error("cuda: unknown argument '%s'", argv[i]);
    }
    if (mc_conf_load(&c, NULL, NULL, &err)) {
        mc_error("%s", err.msg);
        return 1;
    }
    nvcc = getenv("NVCC");
    if (!nvcc || !*nvcc)
        nvcc = NVCC_DEFAULT;
    if (refresh)
        mc_cuda_probe_run(mc_conf_get(&c, MC_SET_CACHE_DIR), nvcc, &p, &err);
    else
        mc_cuda_probe_get(mc_conf_get(&c, MC_SET_CACHE_DIR), nvcc, &p, &err);
    if (err.code)
        mc_error("%s", err.msg); /* not remembered: still printed */
    if (json ? mc_cuda_probe_json(&p, &out) == MC_OK
             : (mc_cuda_probe_describe(&p, &out), !mc_buf_status(&out))) {
        fputs(out.s, stdout);
        status = 0;
    }
    mc_buf_release(&out);
    mc_conf_release(&c);
    return status;
}

/* Whether DIR holds the harness header. */
static int
has_header(const char *dir)
{
    struct mc_buf b = MC_BUF_INIT;
    struct stat st;
    int ok;

    mc_buf_addf(&b, "%s/" HARNESS, dir);
    ok = !mc_buf_status(&b) && stat(b.s, &st) == 0;
    mc_buf_release(&b);
    return ok;
}

int
mc_cmd_cflags(int argc, char **argv)
{
    struct mc_buf b = MC_BUF_INIT;
    char *dir = NULL;
    const char *found = NULL;
    int status = 1;

    if (argc > 1)
        return mc_usage_error("--cflags takes no argument, got '%s'",
                              argv[1]);
    if (!(dir = mc_command_dir()))
        return 1;
    /* The build tree (in the source or apart from it), then an installed
     * tree next to the command, then the configured includedir. */
    mc_buf_addf(&b, "%s/include", dir);
    if (has_header(b.s))
        found = b.s;
    else if (has_header(MC_SRCDIR "/include"))
        found = MC_SRCDIR "/include";
    else {
        mc_buf_reset(&b);
        mc_buf_addf(&b, "%s/../include", dir);
        if (has_header(b.s))
            found = b.s;
        else if (has_header(MC_INCLUDEDIR))
            found = MC_INCLUDEDIR;
    }
    if (found) {
        printf("-I%s\n", found);
        status = 0;
    } else {
        mc_error("cannot find " HARNESS " (looked in %s/include, "
                 MC_SRCDIR "/include, %s/../include and " MC_INCLUDEDIR ")",
                 dir, dir);
    }
    mc_free(dir);
    mc_buf_release(&b);
    return status;
}
