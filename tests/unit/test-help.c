/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-help.c: the help compiled in from maxcode(1) (cli/help.c, made by
 * cli/man2help.awk) and the command table (MC_COMMANDS, commands.h)
 * agree: each command has its item in COMMANDS and each item is a
 * command, the usage names every command, the overview lists every item,
 * and no line of either is wider than 79 columns.
 */
#include "mc_setup.h"
#include "commands.h"
#include "help.h"
#include "tap.h"

#define COMMAND_NAME(name, run) name,
static const char *const commands[] = {MC_COMMANDS(COMMAND_NAME)};
#undef COMMAND_NAME

/* What main() answers before its table. */
static const char *const main_own[] = {"--version", "--help"};

static int
has_item(const char *name)
{
    size_t i;

    for (i = 0; mc_help_entries[i].name; i++)
        if (!strcmp(mc_help_entries[i].name, name))
            return 1;
    return 0;
}

static int
in_list(const char *name, const char *const *v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!strcmp(v[i], name))
            return 1;
    return 0;
}

/* Whether TEXT has WORDS, a space or a newline after them. */
static int
has_words(const char *text, const char *words)
{
    const char *p;

    for (p = strstr(text, words); p; p = strstr(p + 1, words))
        if (p[strlen(words)] == ' ' || p[strlen(words)] == '\n')
            return 1;
    return 0;
}

/* The width of TEXT's widest line. */
static size_t
widest(const char *text)
{
    size_t w = 0, n;

    for (; *text; text += n + (text[n] == '\n')) {
        n = strcspn(text, "\n");
        if (n > w)
            w = n;
    }
    return w;
}

static void
test_help__every_command_has_an_item(void)
{
    size_t i;
    int all = 1;

    for (i = 0; i < MC_ARRAY_SIZE(commands); i++)
        if (!has_item(commands[i])) {
            printf("# no item in maxcode(1) COMMANDS for '%s'\n",
                   commands[i]);
            all = 0;
        }
    for (i = 0; i < MC_ARRAY_SIZE(main_own); i++)
        if (!has_item(main_own[i])) {
            printf("# no item in maxcode(1) COMMANDS for '%s'\n",
                   main_own[i]);
            all = 0;
        }
    ok(all, "each command of the table has its item");
    ok(MC_ARRAY_SIZE(commands) > 10, "the table has the commands");
}

static void
test_help__every_item_is_a_command(void)
{
    size_t i;
    int all = 1;

    for (i = 0; mc_help_entries[i].name; i++) {
        const char *name = mc_help_entries[i].name;

        if (!in_list(name, commands, MC_ARRAY_SIZE(commands)) &&
            !in_list(name, main_own, MC_ARRAY_SIZE(main_own))) {
            printf("# maxcode(1) describes '%s', which is no command\n",
                   name);
            all = 0;
        }
    }
    ok(all, "each item of COMMANDS is a command");
}

static void
test_help__usage_names_every_command(void)
{
    char word[64];
    size_t i;
    int all = 1;

    ok(!strncmp(mc_help_usage, "usage: maxcode ", 15),
       "the usage starts with 'usage: maxcode '");
    for (i = 0; i < MC_ARRAY_SIZE(commands); i++) {
        snprintf(word, sizeof(word), "%s%s",
                 commands[i][0] == '-' ? " " : " maxcode ", commands[i]);
        if (!has_words(mc_help_usage, word)) {
            printf("# the usage lacks '%s'\n", word);
            all = 0;
        }
    }
    ok(all, "the usage names every command");
}

static void
test_help__overview_lists_every_item(void)
{
    char line[128];
    size_t i;
    int all = 1;

    for (i = 0; mc_help_entries[i].name; i++) {
        const char *t = mc_help_entries[i].text;
        const char *gap = strstr(t, "  ");
        int n = (int)strcspn(t, "\n");

        /* The tag: the item's first line, up to its text if that
         * follows on the line (two spaces apart). */
        if (gap && gap - t < n)
            n = (int)(gap - t);
        snprintf(line, sizeof(line), "\n  %.*s", n, t);
        if (!strstr(mc_help_overview, line)) {
            printf("# the overview lacks '%s'\n", line + 1);
            all = 0;
        }
    }
    ok(all, "the overview lists every item");
    ok(strstr(mc_help_overview, "\nCommands:\n") != NULL,
       "the overview has its list of commands");
}

static void
test_help__fits_79_columns(void)
{
    is_long((long)(widest(mc_help_usage) <= 79), 1, "the usage fits");
    is_long((long)(widest(mc_help_overview) <= 79), 1, "the overview fits");
}

int
main(void)
{
    TAP_RUN(test_help__every_command_has_an_item);
    TAP_RUN(test_help__every_item_is_a_command);
    TAP_RUN(test_help__usage_names_every_command);
    TAP_RUN(test_help__overview_lists_every_item);
    TAP_RUN(test_help__fits_79_columns);
    return tap_done();
}
