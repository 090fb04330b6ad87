/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_plugin.c: `maxcode --plugin-path` prints the absolute path of the
 * maxcode.so that belongs to this maxcode binary (paths.h finds it from
 * the build tree, an installed tree or a DESTDIR), for a Makefile's
 * `load $(shell maxcode --plugin-path)`.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "commands.h"
#include "log.h"
#include "paths.h"

#ifndef MC_BINDIR
#define MC_BINDIR "/usr/local/bin"
#endif
#ifndef MC_PKGLIBDIR
#define MC_PKGLIBDIR "/usr/local/lib/maxcode"
#endif

int
mc_cmd_plugin_path(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    char *dir = NULL, *path = NULL;
    int status = 1;

    if (argc > 1)
        return mc_usage_error("--plugin-path takes no argument, got '%s'",
                           argv[1]);
    if (!(dir = mc_command_dir()))
        goto out;
    if (mc_path_plugin(dir, MC_BINDIR, MC_PKGLIBDIR, &path, &err)) {
        mc_error("%s", err.msg);
        goto out;
    }
    printf("%s\n", path);
    status = 0;
out:
    mc_free(dir);
    mc_free(path);
    return status;
}
