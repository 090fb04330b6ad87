/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * commands.h: the subcommands of the maxcode command. Each takes the
 * arguments after its name (ARGV[0] is the command name) and returns the
 * exit status: 0 success, 1 failure, 2 usage error.
 */
#ifndef MC_COMMANDS_H
#define MC_COMMANDS_H

#define MC_EXIT_USAGE 2

int mc_cmd_optimize(int argc, char **argv);
int mc_cmd_eval(int argc, char **argv);
int mc_cmd_show(int argc, char **argv);
int mc_cmd_stats(int argc, char **argv);
int mc_cmd_cache(int argc, char **argv);

/* Print "maxcode: MESSAGE" and the usage; returns MC_EXIT_USAGE. */
int mc_usage_error(const char *fmt, ...) MC_PRINTF(1, 2);

#endif /* MC_COMMANDS_H */
