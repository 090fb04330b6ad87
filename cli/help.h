/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * help.h: the COMMANDS section of maxcode(1) compiled in, for `maxcode
 * help COMMAND`. cli/help.c is generated from doc/maxcode.1 by
 * cli/man2help.awk at build time, so the manual is the one source of the
 * text.
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

#endif /* MC_HELP_H */
