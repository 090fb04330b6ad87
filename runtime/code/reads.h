/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * reads.h: the files that a compile of candidate code reads, as text
 * tells them. Candidate code must not read files outside the project
 * (an `#include "/home/u/.ssh/id_ed25519"` would have a line of it
 * quoted back in the diagnostics, which go to the model). The sandbox
 * stops such reads where Landlock is there; these scanners find them
 * where it is not, and give the plain reason a rejection states:
 *   - the directives of a source text that name a file,
 *   - the prerequisites of the make rules that `cc -M` prints,
 *   - the words of compiler output that look like paths.
 * They only parse; whether a path is outside is the sandbox's call
 * (mc_sandbox_may_read()). See doc/internals/eval.md, "Reads".
 */
#ifndef MC_READS_H
#define MC_READS_H

#include <stddef.h>
#include "status.h"
#include "strv.h"

/*
 * Append to OUT each file name that source TEXT (LEN bytes of C, C++ or
 * CUDA) names where a compiler or an assembler reads it: the argument of
 * #include, #include_next, #import and #embed ("NAME" or <NAME>), the
 * file of #line and of a line marker (`# 12 "NAME"`: the compiler reads
 * it to quote lines in diagnostics), and the file of an assembler
 * .incbin or .include inside a string literal. The text is read as the
 * preprocessor reads it: backslash-newlines spliced, comments gone,
 * "%:" and "??=" for '#', adjacent string literals joined and their
 * escapes decoded (so `".inc" "bin \"\x2fx\""` is found). Names built by
 * macros are not found: the dependency list (mc_reads_deps()) and
 * Landlock catch those. MC_ENOMEM is the only error.
 */
enum mc_code mc_reads_directives(const char *text, size_t len,
                                 struct mc_strv *out);

/*
 * Append to OUT the prerequisites of the make rules in TEXT (LEN bytes),
 * as `cc -M` prints them: targets (words that end in ':') left out,
 * backslash-newlines and "\ " (a space in a name) and "$$" undone.
 * MC_ENOMEM is the only error.
 */
enum mc_code mc_reads_deps(const char *text, size_t len,
                           struct mc_strv *out);

/*
 * Append to OUT the words of compiler output TEXT (LEN bytes) that may
 * name a file: cut at blanks, quotes and brackets, a location suffix
 * (":12:3:", ":") taken off, kept when it holds a '/' or a '.'
 * ("/x/secret.h" of "/x/secret.h:1:1: error: ..."). MC_ENOMEM is the
 * only error.
 */
enum mc_code mc_reads_paths_in(const char *text, size_t len,
                               struct mc_strv *out);

#endif /* MC_READS_H */
