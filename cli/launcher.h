/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * launcher.h: maxcode as a compiler launcher, as ccache is one:
 * `maxcode COMPILER ARGS...` (CMAKE_<LANG>_COMPILER_LAUNCHER=maxcode,
 * CC="maxcode gcc"). A compile of one marked source file to an object
 * (`-c`, '#pragma maxcode optimize' in the file) compiles the cached
 * variant on a hit, searches on a miss in mode optimize (the compile
 * waits, as a make recipe does), and compiles the original otherwise;
 * every other command runs the compiler unchanged. The build never
 * fails because of maxcode: the compiler's exit status is the
 * launcher's. doc/launcher.md tells the whole story.
 */
#ifndef MC_LAUNCHER_H
#define MC_LAUNCHER_H

/* What a compile command is to the launcher (mc_launcher_classify()). */
struct mc_launcher_cmd {
    int source;  /* the index in ARGV of the one source file, or -1 when
                  * the command is not one maxcode may take: no -c, not
                  * one source, preprocessing or assembly only, a
                  * response file, stdin, a -x language */
    int output;  /* the index of -o's argument (or of -oFILE), or -1 */
};

/*
 * Classify the compiler command ARGV (ARGC words, the compiler first)
 * into C. Reads no file.
 */
void mc_launcher_classify(int argc, char *const *argv,
                          struct mc_launcher_cmd *c);

/*
 * Whether the LEN bytes at TEXT hold a '#pragma maxcode optimize' line
 * (mark.h's grammar, read quickly: a yes is checked by mc_mark_scan()).
 */
int mc_launcher_marked(const char *text, size_t len);

/*
 * The 1-based line of the first '#pragma maxcode optimize' line of TEXT
 * that ends inside a block comment it opens (an unquoted glob such as
 * "t/" "*.in" opens one: the compiler then skips what follows, up to
 * the comment's end), or 0.
 */
size_t mc_launcher_open_comment(const char *text, size_t len);

/*
 * Run ARGV (ARGC words: the compiler, then its arguments) as the
 * launcher does, and return the compiler's exit status (127 when it
 * cannot be run). Replaces the process with the compiler where it can.
 */
int mc_launcher_main(int argc, char **argv);

#endif /* MC_LAUNCHER_H */
