/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * main.c: the maxcode command. It dispatches from a table of subcommands;
 * the generated make rules and users call it. Exit status: 0 success,
 * 1 failure, 2 usage error. SIGINT, SIGTERM and SIGHUP kill the
 * children first (compilers, candidates), then the command dies of the
 * signal, as make expects of a recipe.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "commands.h"
#include "log.h"
#include "paths.h"
#include "spawn.h"

#include <cjson/cJSON.h>
#include <signal.h>

#ifndef MC_BINDIR
#define MC_BINDIR "/usr/local/bin"
#endif
#ifndef MC_PKGLIBDIR
#define MC_PKGLIBDIR "/usr/local/lib/maxcode"
#endif

#define EXIT_USAGE MC_EXIT_USAGE

static const char usage_text[] =
    "usage: maxcode --version | --help | --plugin-path | --cflags\n"
    "       maxcode help [COMMAND] | COMMAND --help\n"
    "       maxcode optimize SOURCE [KEY=VALUE...]\n"
    "       maxcode eval SOURCE CANDIDATE [KEY=VALUE...] [--json]\n"
    "       maxcode show SOURCE-or-KEY [--json]\n"
    "       maxcode diff [--color | --no-color] SOURCE-or-KEY\n"
    "       maxcode bench [--json] [--rounds N] SOURCE-or-KEY\n"
    "       maxcode stats [--json] [--zero]\n"
    "       maxcode report [-o FILE.html] [KEY...]\n"
    "       maxcode cache list | clean | trim --max-size SIZE | verify\n"
    "       maxcode cache export FILE | import FILE\n"
    "       maxcode config [--json]\n"
    "       maxcode key generate -o PREFIX [--comment TEXT]\n"
    "       maxcode cuda [--json] [--refresh]\n"
    "       maxcode rollouts export [-o FILE] [--split SHARE] [KEY...]\n"
    "       maxcode gvf train [-o MODEL] [--split SHARE]\n";

static const char help_text[] =
    "maxcode optimizes marked C, C++ and CUDA code during a GNU make build.\n"
    "\n"
    "In a Makefile:\n"
    "  load $(shell maxcode --plugin-path)\n"
    "  prog: $(maxcode src/hot.c, inputs=t/*.in)\n"
    "\n"
    "Commands:\n"
    "  --version        print the version\n"
    "  --help           print this help\n"
    "  --plugin-path    print the absolute path of the matching maxcode.so\n"
    "  --cflags         print the -I option that finds "
    "<maxcode/cuda_harness.h>\n"
    "  help COMMAND, COMMAND --help\n"
    "                   print the manual's text for COMMAND (maxcode(1))\n"
    "  optimize SOURCE [KEY=VALUE...]\n"
    "                   search for a faster SOURCE and cache the result;\n"
    "                   prints the variant path (the generated rules run "
    "it)\n"
    "  eval SOURCE CANDIDATE [KEY=VALUE...] [--json] [--no-time]\n"
    "                   judge one candidate file against SOURCE: build, "
    "check,\n"
    "                   time; print its feedback record\n"
    "  show SOURCE-or-KEY [--json]\n"
    "                   what maxcode did to a target: status, speedup, "
    "options\n"
    "                   and the trajectory (for SOURCE: its newest entry);\n"
    "                   --json: the manifest itself\n"
    "  diff [--color | --no-color] SOURCE-or-KEY\n"
    "                   the kept variant against the original, as a "
    "unified diff\n"
    "  bench [--json] [--rounds N] SOURCE-or-KEY\n"
    "                   re-measure the kept variant against the original "
    "now,\n"
    "                   A/B, beside the speedup the entry claims\n"
    "  stats [--json] [--zero]\n"
    "                   the cache counters; --zero resets them\n"
    "  report [-o FILE.html] [KEY...]\n"
    "                   an HTML report of every search in the cache (or "
    "of\n"
    "                   KEY...): plots, candidates, diffs; written to\n"
    "                   maxcode-report.html (- for stdout)\n"
    "  cache list       the cache entries, most recently used first\n"
    "  cache clean      remove every entry\n"
    "  cache trim --max-size SIZE\n"
    "                   remove least recently used entries down to SIZE\n"
    "  cache verify     check every entry's checksum\n"
    "  cache export FILE\n"
    "                   write every entry into one archive FILE (- for "
    "stdout)\n"
    "  cache import FILE\n"
    "                   store the good entries of archive FILE (- for "
    "stdin);\n"
    "                   names each bad one, exit status 1 if there was "
    "one\n"
    "  config [--json]  print every setting, its value and where it came "
    "from\n"
    "  key generate -o PREFIX [--comment TEXT]\n"
    "                   a key pair to sign cache entries: PREFIX (secret, "
    "0600)\n"
    "                   and PREFIX.pub (for MAXCODE_TRUSTED_KEYS)\n"
    "  cuda [--json] [--refresh]\n"
    "                   the CUDA devices this machine has (probed once per "
    "boot)\n"
    "  rollouts export [-o FILE] [--split SHARE] [KEY...]\n"
    "                   the recorded searches as value-model training "
    "records\n"
    "  gvf train [-o MODEL] [--split SHARE]\n"
    "                   fit the built-in value model on this cache's "
    "rollouts\n"
    "\n"
    "Settings come from, highest first: a $(maxcode ...) argument, a make\n"
    "variable, the environment, ./maxcode.conf,\n"
    "~/.config/maxcode/maxcode.conf, the default. See maxcode(1).\n";

int
mc_usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("maxcode: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", usage_text);
    return EXIT_USAGE;
}

int
mc_put_json_text(char *text)
{
    if (!text) {
        mc_error("out of memory");
        return 1;
    }
    printf("%s\n", text);
    cJSON_free(text);
    return 0;
}

static int
cmd_plugin_path(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    char *dir = NULL, *path = NULL;
    int status = 1;

    if (argc > 1)
        return mc_usage_error("--plugin-path takes no argument, got '%s'",
                           argv[1]);
    if (mc_path_exe_dir(&dir, &err) ||
        mc_path_plugin(dir, MC_BINDIR, MC_PKGLIBDIR, &path, &err)) {
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

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
    {"--plugin-path", cmd_plugin_path},
    {"--cflags", mc_cmd_cflags},
    {"cuda", mc_cmd_cuda},
    {"config", mc_cmd_config},
    {"key", mc_cmd_key},
    {"optimize", mc_cmd_optimize},
    {"eval", mc_cmd_eval},
    {"show", mc_cmd_show},
    {"diff", mc_cmd_diff},
    {"bench", mc_cmd_bench},
    {"stats", mc_cmd_stats},
    {"report", mc_cmd_report},
    {"cache", mc_cmd_cache},
    {"rollouts", mc_cmd_rollouts},
    {"gvf", mc_cmd_gvf},
    {"help", mc_cmd_help},
};

/* A signal that ends us: our children's process groups go first (they
 * are not in make's group, so the terminal's Ctrl-C does not reach
 * them), then we die of SIG, which was blocked while this ran. Locks
 * are released by the kernel as our descriptors close. */
static void
die_of(int sig)
{
    int saved = errno;

    mc_spawn_kill_all();
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

/* die_of() for the signals that end a build, unless ignored on entry
 * (nohup, a background job of a script), as make does. */
static void
catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(sigs); i++) {
        struct sigaction sa, old;

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = die_of;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[i], NULL, &old) == 0 &&
            old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

int
main(int argc, char **argv)
{
    size_t i;

    catch_signals();
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("maxcode %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        (!strcmp(argv[1], "help") && argc == 2)) {
        fputs(usage_text, stdout);
        fputs("\n", stdout);
        fputs(help_text, stdout);
        return 0;
    }
    if (argc > 2 && strcmp(argv[1], "help") &&
        !strcmp(argv[argc - 1], "--help"))
        return mc_help_for(argc - 2, argv + 1);
    for (i = 0; i < MC_ARRAY_SIZE(commands); i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    if (argv[1][0] == '-')
        return mc_usage_error("unknown option '%s'", argv[1]);
    return mc_usage_error("unknown command '%s'", argv[1]);
}
