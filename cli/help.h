/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * help.h: maxcode(1) compiled in, for `maxcode help COMMAND`, `maxcode
 * --help` and the usage of a usage error. cli/help.c is generated from
 * doc/maxcode.1 by cli/man2help.awk at build time, so the manual is the
 * one source of the text.
 */
#ifndef MC_HELP_H
#define MC_HELP_H

/* One top-level item of COMMANDS: NAME is its tag's first word
 * ("stats", "cache", "--version"); TEXT the item as man prints it, tag
 * first, laid out for 78 columns less the section's indent. */
struct mc_help_entry {
    const char *name;
    const char *text;
};

/* The items in the manual's order, ended by { NULL, NULL }. */
extern const struct mc_help_entry mc_help_entries[];

/* SYNOPSIS: "usage: " and its first line, then one line a form of the
 * command (a form too wide for a line goes on, further in, below it);
 * it ends with a newline. */
extern const char mc_help_usage[];

/* The rest of `maxcode --help`, after the usage and a blank line:
 * NAME's line, DESCRIPTION, each COMMANDS item's tag with the first
 * sentence of its text, and the paragraph that opens SETTINGS. */
extern const char mc_help_overview[];

#endif /* MC_HELP_H */
