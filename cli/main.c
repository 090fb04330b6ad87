/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * main.c: the maxcode command. It dispatches from a table of subcommands
 * (commands.h); the generated make rules and users call it. Exit status:
 * 0 success, 1 failure, 2 usage error. SIGINT, SIGTERM and SIGHUP kill
 * the children first (compilers, candidates), then the command dies of
 * the signal, as make expects of a recipe. What the commands share is in
 * common.c; the help text comes from maxcode(1) (help.h). A first word
 * that is no command is a compiler, which maxcode launches (launcher.h).
 */
#include "mc_setup.h"
#include "commands.h"
#include "help.h"
#include "launcher.h"
#include "spawn.h"

#include <signal.h>

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
};

#define COMMAND_ROW(name, run) {name, run},
static const struct command commands[] = {MC_COMMANDS(COMMAND_ROW)};
#undef COMMAND_ROW

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
        fputs(mc_help_usage, stderr);
        return MC_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("maxcode %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        (!strcmp(argv[1], "help") && argc == 2))
        return mc_cmd_help(1, argv + 1);
    /* A compiler: maxcode as its launcher (launcher.h); "--" forces. */
    if (!strcmp(argv[1], "--") && argc > 2)
        return mc_launcher_main(argc - 2, argv + 2);
    for (i = 0; i < MC_ARRAY_SIZE(commands); i++)
        if (!strcmp(argv[1], commands[i].name))
            break;
    if (i == MC_ARRAY_SIZE(commands) && argv[1][0] != '-')
        return mc_launcher_main(argc - 1, argv + 1);
    if (i == MC_ARRAY_SIZE(commands))
        return mc_usage_error("unknown option '%s'", argv[1]);
    if (argc > 2 && strcmp(argv[1], "help") &&
        !strcmp(argv[argc - 1], "--help"))
        return mc_help_for(argc - 2, argv + 1);
    return commands[i].run(argc - 1, argv + 1);
}
