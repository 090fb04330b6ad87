/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_help.c: `maxcode help COMMAND` and `maxcode COMMAND --help`: the
 * manual's text for one command, from the items of maxcode(1)'s
 * COMMANDS section compiled in (help.h); `maxcode --help`: the usage and
 * the overview made from the same page.
 */
#include "mc_setup.h"
#include "buf.h"
#include "commands.h"
#include "help.h"

/* Whether the first N words of TEXT (a trailing comma dropped) are
 * WORDS. */
static int
starts_with_words(const char *text, int n, char **words)
{
    const char *p = text;
    int i;

    for (i = 0; i < n; i++) {
        size_t len = strcspn(p, " \n"), wl = strlen(words[i]);

        if (len && p[len - 1] == ',')
            len--;
        if (len != wl || strncmp(p, words[i], wl))
            return 0;
        p += strcspn(p, " \n");
        p += strspn(p, " \n");
    }
    return 1;
}

/* Print every item whose tag starts with the N WORDS (all of "cache"'s
 * for "cache"), a blank line between two; how many there were. */
static int
print_items(int n, char **words)
{
    size_t i;
    int found = 0;

    for (i = 0; mc_help_entries[i].name; i++) {
        if (strcmp(mc_help_entries[i].name, words[0]) ||
            !starts_with_words(mc_help_entries[i].text, n, words))
            continue;
        if (found++)
            putchar('\n');
        fputs(mc_help_entries[i].text, stdout);
    }
    return found;
}

/* The usage error for the N WORDS that name nothing. */
static int
no_such(const char *who, int n, char **words)
{
    struct mc_buf b = MC_BUF_INIT;
    int i, status;

    for (i = 0; i < n; i++)
        mc_buf_addf(&b, "%s%s", i ? " " : "", words[i]);
    status = mc_usage_error("%sno command '%s' in maxcode(1)", who,
                            mc_buf_status(&b) ? words[0] : b.s);
    mc_buf_release(&b);
    return status;
}

int
mc_cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        fputs(mc_help_usage, stdout);
        putchar('\n');
        fputs(mc_help_overview, stdout);
        return 0;
    }
    if (!print_items(argc - 1, argv + 1))
        return no_such("help: ", argc - 1, argv + 1);
    return 0;
}

int
mc_help_for(int argc, char **argv)
{
    int n;

    /* The longest run of leading words that names items: `maxcode
     * cache trim --max-size 1G --help` shows `cache trim`. */
    for (n = argc; n > 0; n--)
        if (print_items(n, argv))
            return 0;
    return no_such("", 1, argv);
}
