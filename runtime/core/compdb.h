/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compdb.h: reading a compile_commands.json (as written by Bear or CMake)
 * to learn how one source file is compiled: its compiler, its flags made
 * fit to be rerun from any directory, and its working directory.
 *
 * The accepted file (the JSON Compilation Database; other members of an
 * entry are ignored):
 *
 *   db      = "[" [ entry *( "," entry ) ] "]"
 *   entry   = "{" members "}", with these members:
 *     "directory": string   the compilation's working directory; paths
 *                           in "file" and in the command are relative to
 *                           it (it should itself be absolute)
 *     "file":      string   the main source file, absolute or relative
 *                           to "directory"
 *     "arguments": [ string, ... ]   the argv, compiler first; or
 *     "command":   string   the same as one POSIX shell command line,
 *                           split as mc_shell_split() does.
 *                           "arguments" wins when both are present; an
 *                           argv must have at least one word.
 *     "output":    string   optional; the object file
 *
 * Which entry belongs to SOURCE: an entry whose "file" (joined to
 * "directory" when relative) has the same realpath() as SOURCE. Also, an
 * entry whose file resolves to PREFIX/.maxcode/KEY/NAME (KEY a single
 * path component) belongs to SOURCE when PREFIX/.maxcode/KEY/.source
 * exists and its first line (without the newline) is SOURCE's realpath:
 * maxcode compiles a variant of SOURCE from .maxcode/KEY/NAME, and the
 * plugin writes that .source file beside it. When several entries belong
 * to SOURCE, the last one in the file is taken, as a later compilation
 * overrides an earlier one.
 */
#ifndef MC_COMPDB_H
#define MC_COMPDB_H

#include "status.h"
#include "strv.h"

struct mc_compdb_entry {
    char *compiler;       /* argv[0] of the entry, as written */
    struct mc_strv flags; /* the flags, cleaned (see mc_compdb_find) */
    char *directory;      /* the entry's "directory" */
    struct mc_strv ldflags; /* its "-L DIR" options, rebased */
    struct mc_strv ldlibs;  /* its "-lNAME" options */
    struct mc_strv others;  /* its other input files (sources, objects,
                             * libraries), rebased: what the entry
                             * linked SOURCE with */
};

#define MC_COMPDB_ENTRY_INIT                                               \
    {NULL, MC_STRV_INIT, NULL, MC_STRV_INIT, MC_STRV_INIT, MC_STRV_INIT}

/* Set E up empty; allocates nothing. */
void mc_compdb_entry_init(struct mc_compdb_entry *e);

/* Free E's contents and leave E empty (and initialised). */
void mc_compdb_entry_release(struct mc_compdb_entry *e);

/*
 * Find SOURCE's entry in the compile DB at DB_PATH (see above for which
 * entry that is). SOURCE is a path relative to the current directory or
 * absolute. *FOUND is set to 1 and OUT filled when there is one, and to
 * 0 otherwise, which is not an error; neither is a DB_PATH that does not
 * exist (*FOUND = 0, MC_OK), nor a SOURCE that does not exist.
 *
 * OUT's flags are the entry's argv without argv[0] (which is COMPILER),
 * cleaned so that they can be reused to compile another file into
 * another place, from the current directory:
 *   - dropped: "-c"; "-o X" and "-oX"; every argument that names the
 *     entry's file, as written or once resolved; and the dependency-file
 *     options "-MD", "-MMD", "-MF X"/"-MFX", "-MT X"/"-MTX",
 *     "-MQ X"/"-MQX" and "-Wp,-MD,X"/"-Wp,-MMD,X", because they would
 *     write (or name) .d files of the original build whenever the flags
 *     are reused;
 *   - moved out, because they belong to a link and not to SOURCE's
 *     compile (an entry of a one-line compile-and-link, "cc -O2 -o prog
 *     hot.c main.o -lm", has them): every other input file, a word that
 *     is no option's argument and ends in an extension of the language
 *     table (lang.h), ".o", ".a", ".so" or ".so.N", into OUT's others;
 *     "-lNAME" and "-l NAME" into OUT's ldlibs; "-LDIR" and "-L DIR"
 *     into OUT's ldflags. The separate argument of "-x", "-D", "-U",
 *     "-u", "-z", "-e", "-B", "-T", "-Xlinker", "-Xassembler",
 *     "-Xpreprocessor" and "--param" stays with its option, whatever
 *     it looks like;
 *   - rebased: every relative path in an option (see flags.h: "-I DIR",
 *     "-iquote DIR", "-include FILE", "-L DIR", "-Wl,-rpath,DIR", ...)
 *     is meant relative to "directory"; it is rewritten relative to the
 *     current directory (make's), "../include" where needed, so that the
 *     flags work from there and name no absolute checkout location; so
 *     are OUT's ldflags and each relative file of OUT's others;
 *   - every other argument is kept, in order ("-DX=1", "-O2", ...).
 *
 * OUT is initialised here (any earlier contents are not freed); when
 * *FOUND is 1 the caller frees it with mc_compdb_entry_release(). On
 * failure OUT is left empty and *FOUND is 0. Errors: MC_ESYNTAX, with a
 * message naming DB_PATH, when the file is not valid JSON or has not the
 * shape above (or SOURCE's "command" does not split); MC_EIO when it
 * cannot be read; MC_ENOMEM.
 */
enum mc_code mc_compdb_find(const char *db_path, const char *source,
                            struct mc_compdb_entry *out, int *found,
                            struct mc_err *err);

/*
 * Whether the cleaned flags keep the word after option word A as A's
 * argument, whatever it looks like: A is an include option in its
 * separate form ("-I", "-include", ...) or one of the options listed
 * above ("-D", "-U", "-x", ...). So "-U -c" keeps its "-c".
 */
int mc_compdb_keeps_next(const char *a);

/*
 * mc_compdb_find() of each of the N files SOURCES, with DB_PATH read and
 * parsed once: OUTS[I] and FOUND[I] (arrays of N) for SOURCES[I]. OUTS
 * are initialised here; the caller releases each. On failure every
 * OUTS[I] is left empty and FOUND[I] 0.
 */
enum mc_code mc_compdb_find_each(const char *db_path, char *const *sources,
                                 size_t n, struct mc_compdb_entry *outs,
                                 int *found, struct mc_err *err);

#endif /* MC_COMPDB_H */
