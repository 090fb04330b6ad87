/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-compdb.c: finding a source file's entry in compile_commands.json,
 * by "arguments" or by a quoted "command", by realpath and through a
 * .maxcode/KEY/.source variant; flag cleaning; and the errors that name
 * the DB. Each case runs in its own scratch directory, which is also the
 * current directory, and removes it at the end.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "compdb.h"
#include "tap.h"
#include "testfs.h"

#include <cjson/cJSON.h>
#include <ftw.h>

#define DB "compile_commands.json"

static char scratch[PATH_MAX];

/* Make a scratch directory and enter it; scratch holds its realpath.
 * A case that cannot have one fails (it would otherwise return before
 * asserting anything, and the binary would pass with nothing checked). */
static int
enter(void)
{
    char tmpl[] = "/tmp/mc-compdb-XXXXXX";

    if (!mkdtemp(tmpl) || !realpath(tmpl, scratch) || chdir(scratch)) {
        ok(0, "make a scratch directory and enter it");
        printf("#   %s: %s\n", tmpl, strerror(errno));
        return 0;
    }
    return 1;
}

/* Leave the scratch directory and remove it. */
static void
leave(void)
{
    if (chdir("/") || nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS))
        printf("# cannot remove %s\n", scratch);
}

/* Append to DB an entry for FILE in DIR, with COMMAND unless it is NULL,
 * else with the NULL-terminated ARGS. */
static void
add_entry(cJSON *db, const char *dir, const char *file, const char *command,
          const char *const *args)
{
    cJSON *e = cJSON_CreateObject();

    cJSON_AddStringToObject(e, "directory", dir);
    cJSON_AddStringToObject(e, "file", file);
    if (command) {
        cJSON_AddStringToObject(e, "command", command);
    } else {
        cJSON *a = cJSON_AddArrayToObject(e, "arguments");
        for (; *args; args++)
            cJSON_AddItemToArray(a, cJSON_CreateString(*args));
    }
    cJSON_AddItemToArray(db, e);
}

/* Write DB to ./compile_commands.json and free it. */
static void
write_db(cJSON *db)
{
    char *text = cJSON_Print(db);

    write_file(DB, text ? text : "");
    cJSON_free(text);
    cJSON_Delete(db);
}

/* SV's strings joined by spaces, shell-quoted; valid until the next
 * call. */
static const char *
joined(const struct mc_strv *sv)
{
    static char s[4096];
    struct mc_buf b = MC_BUF_INIT;

    mc_strv_join_shell(sv, &b);
    snprintf(s, sizeof(s), "%s", b.s);
    mc_buf_release(&b);
    return s;
}

/* Look SOURCE up in ./compile_commands.json; assert that it is found
 * and return its flags joined ("" when not found). */
static const char *
flags_of(const char *source, struct mc_compdb_entry *e)
{
    struct mc_err err = MC_ERR_INIT;
    enum mc_code rc;
    int found = -1;

    rc = mc_compdb_find(DB, source, e, &found, &err);
    if (!is_long(rc, MC_OK, "mc_compdb_find succeeds"))
        printf("#   %s\n", err.msg);
    if (!is_long(found, 1, "an entry is found"))
        return "";
    return joined(&e->flags);
}

static void
test_compdb__arguments(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    static const char *const args[] = {
        "gcc", "-DX=1", "-O2", "-std=c11", "-march=native", "-c",
        "src/a.c", "-o", "a.o", NULL};
    cJSON *db = cJSON_CreateArray();

    if (!enter())
        return;
    mkdir("src", 0755);
    write_file("src/a.c", "int a;\n");
    add_entry(db, scratch, "src/a.c", NULL, args);
    cJSON_AddStringToObject(cJSON_GetArrayItem(db, 0), "output", "a.o");
    write_db(db);
    is_str(flags_of("src/a.c", &e), "-DX=1 -O2 -std=c11 -march=native",
           "the flags are kept in order; -c, -o and the file go");
    is_str(e.compiler, "gcc", "argv[0] is the compiler");
    is_str(e.directory, scratch, "the directory is the entry's");
    mc_compdb_entry_release(&e);
    ok(!e.compiler && !e.flags.n && !e.directory, "release empties it");
    leave();
}

static void
test_compdb__command_with_quoting(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    cJSON *db = cJSON_CreateArray();

    if (!enter())
        return;
    mkdir("src", 0755);
    write_file("src/a b.c", "int a;\n");
    /* The shell sees: cc -DMSG="\"hi there\"" -DSTR=\"s\" -c 'src/a b.c'
     * -o x.o */
    add_entry(db, scratch, "src/a b.c",
              "cc -DMSG=\"\\\"hi there\\\"\" -DSTR=\\\"s\\\" -c "
              "'src/a b.c' -o x.o",
              NULL);
    write_db(db);
    flags_of("src/a b.c", &e);
    is_long(e.flags.n, 2, "two flags are left");
    if (e.flags.n == 2) {
        is_str(e.flags.v[0], "-DMSG=\"hi there\"",
               "a double-quoted word keeps its escaped quotes");
        is_str(e.flags.v[1], "-DSTR=\"s\"", "backslash-quotes are unquoted");
    }
    is_str(e.compiler, "cc", "the command's first word is the compiler");
    mc_compdb_entry_release(&e);
    leave();
}

static void
test_compdb__drops_output_and_depfile_options(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    static const char *const args[] = {
        "clang", "-c", "-MD", "-MMD", "-MF", "a.d", "-MFb.d", "-MT", "a.o",
        "-MTa.o", "-MQ", "q.o", "-Wp,-MMD,k.d", "-oa.o", "-DKEEP",
        "src/a.c", "-MP", "-o", "a.o", "-g", NULL};
    cJSON *db = cJSON_CreateArray();

    if (!enter())
        return;
    mkdir("src", 0755);
    write_file("src/a.c", "int a;\n");
    add_entry(db, scratch, "src/a.c", NULL, args);
    write_db(db);
    is_str(flags_of("src/a.c", &e), "-DKEEP -MP -g",
           "-c, -o, -MD, -MMD, -MF, -MT, -MQ and -Wp,-MMD go");
    mc_compdb_entry_release(&e);
    leave();
}

static void
test_compdb__paths_rebased_to_the_current_directory(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    static const char *const args[] = {
        "cc", "-I", "inc", "-Iinc2", "-I/abs", "-iquote", "q", "-isystem",
        "sys", "-idirafter", "late", "-include", "cfg.h", "-I=sysinc",
        "-include-pch", "p.pch", "-I-", "-Llib", "-Wl,-rpath,lib,-O1",
        "-Xlinker", "-rpath", "-Xlinker", "rp", "-I../up", "-c",
        "../src/a.c", NULL};
    cJSON *db = cJSON_CreateArray();
    char build[PATH_MAX + 8];

    if (!enter())
        return;
    mkdir("src", 0755);
    mkdir("build", 0755);
    write_file("src/a.c", "int a;\n");
    snprintf(build, sizeof(build), "%s/build", scratch);
    add_entry(db, build, "../src/a.c", NULL, args);
    write_db(db);
    is_str(flags_of("src/a.c", &e),
           "-I build/inc -Ibuild/inc2 -I/abs -iquote build/q -isystem "
           "build/sys -idirafter build/late -include build/cfg.h -I=sysinc "
           "-include-pch p.pch -I- -Wl,-rpath,build/lib,-O1 "
           "-Xlinker -rpath -Xlinker build/rp -Ibuild/../up",
           "relative paths are rebased to the current directory, others "
           "kept");
    is_str(joined(&e.ldflags), "-Lbuild/lib",
           "-L is rebased too, into the link's flags");
    is_str(e.directory, build, "the directory is the entry's");
    mc_compdb_entry_release(&e);
    leave();
}

static void
test_compdb__match_by_realpath(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    static const char *const args[] = {"cc", "-c", "src/a.c", "-O1", NULL};
    cJSON *db = cJSON_CreateArray();
    char abs[PATH_MAX + 16];

    if (!enter())
        return;
    mkdir("src", 0755);
    write_file("src/a.c", "int a;\n");
    if (symlink("src/a.c", "link.c"))
        printf("# cannot make a symlink\n");
    add_entry(db, scratch, "./src//a.c", NULL, args);
    write_db(db);
    is_str(flags_of("link.c", &e), "-O1",
           "a symlink to the file matches; the file resolved is dropped");
    mc_compdb_entry_release(&e);
    is_str(flags_of("./src/../src/a.c", &e), "-O1", "a ./ path matches");
    mc_compdb_entry_release(&e);
    snprintf(abs, sizeof(abs), "%s/src/a.c", scratch);
    is_str(flags_of(abs, &e), "-O1", "an absolute path matches");
    mc_compdb_entry_release(&e);
    leave();
}

static void
test_compdb__maxcode_variant(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    static const char *const k1[] = {
        "cc", "-O3", "-c", ".maxcode/k1/a.c", "-o", ".maxcode/k1/a.o", NULL};
    static const char *const k2[] = {"cc", "-O0", "-c", ".maxcode/k2/a.c",
                                     NULL};
    static const char *const k3[] = {"cc", "-Os", "-c", ".maxcode/k3/a.c",
                                     NULL};
    cJSON *db = cJSON_CreateArray();
    char text[PATH_MAX + 16];

    if (!enter())
        return;
    mkdir("src", 0755);
    write_file("src/a.c", "int a;\n");
    write_file("src/b.c", "int b;\n");
    mkdir(".maxcode", 0755);
    mkdir(".maxcode/k1", 0755);
    mkdir(".maxcode/k2", 0755);
    mkdir(".maxcode/k3", 0755);
    write_file(".maxcode/k1/a.c", "int a;\n");
    write_file(".maxcode/k2/a.c", "int b;\n");
    write_file(".maxcode/k3/a.c", "int a;\n");
    snprintf(text, sizeof(text), "%s/src/a.c\n", scratch);
    write_file(".maxcode/k1/.source", text);
    snprintf(text, sizeof(text), "%s/src/b.c\n", scratch);
    write_file(".maxcode/k2/.source", text);
    /* k3 has no .source: it belongs to nobody. */
    add_entry(db, scratch, ".maxcode/k1/a.c", NULL, k1);
    add_entry(db, scratch, ".maxcode/k2/a.c", NULL, k2);
    add_entry(db, scratch, ".maxcode/k3/a.c", NULL, k3);
    write_db(db);
    is_str(flags_of("src/a.c", &e), "-O3",
           "a variant whose .source names the file is its entry");
    mc_compdb_entry_release(&e);
    is_str(flags_of("src/b.c", &e), "-O0",
           "another .source maps to another file");
    mc_compdb_entry_release(&e);
    leave();
}

static void
test_compdb__no_entry(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    struct mc_err err = MC_ERR_INIT;
    static const char *const args[] = {"cc", "-c", "src/b.c", NULL};
    cJSON *db = cJSON_CreateArray();
    int found = -1;

    if (!enter())
        return;
    mkdir("src", 0755);
    write_file("src/a.c", "int a;\n");
    write_file("src/b.c", "int b;\n");
    add_entry(db, scratch, "src/b.c", NULL, args);
    add_entry(db, scratch, "src/gone.c", NULL, args);
    write_db(db);
    is_long(mc_compdb_find(DB, "src/a.c", &e, &found, &err), MC_OK,
            "a file without an entry is not an error");
    is_long(found, 0, "and is not found");
    found = -1;
    is_long(mc_compdb_find(DB, "src/nope.c", &e, &found, &err), MC_OK,
            "a source that does not exist is not an error");
    is_long(found, 0, "and is not found");
    leave();
}

static void
test_compdb__missing_db(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    struct mc_err err = MC_ERR_INIT;
    int found = -1;

    if (!enter())
        return;
    write_file("a.c", "int a;\n");
    is_long(mc_compdb_find("nope/" DB, "a.c", &e, &found, &err), MC_OK,
            "a missing DB is not an error");
    is_long(found, 0, "and nothing is found");
    ok(!e.compiler && !e.flags.n, "and the entry is left empty");
    leave();
}

static void
expect_syntax(const char *text, const char *want, const char *name)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    struct mc_err err = MC_ERR_INIT;
    int found = -1;

    write_file(DB, text);
    is_long(mc_compdb_find(DB, "a.c", &e, &found, &err), MC_ESYNTAX, name);
    if (!contains(err.msg, want, "the message names the DB"))
        printf("#   message: %s\n", err.msg);
    ok(found == 0 && !e.compiler, "nothing is found");
}

static void
test_compdb__malformed(void)
{
    if (!enter())
        return;
    write_file("a.c", "int a;\n");
    expect_syntax("[{\"directory\": \"/\", ",
                  "'" DB "': not valid JSON (line 1)", "truncated JSON");
    expect_syntax("[]\n\n]", "'" DB "': not valid JSON (line 3)",
                  "trailing garbage");
    expect_syntax("{\"directory\": \"/\"}",
                  "'" DB "': expected a JSON array", "not an array");
    expect_syntax("[{\"directory\": \"/\", \"file\": \"a.c\"}]",
                  "'" DB "': .[0] has neither",
                  "no arguments and no command");
    expect_syntax("[{\"directory\": \".\", \"file\": \"a.c\", "
                  "\"command\": \"cc -c a.c\"}, {\"directory\": \".\", "
                  "\"file\": \"a.c\", \"arguments\": [\"cc\", 1]}]",
                  "'" DB "': .[1].arguments holds something other",
                  "arguments that are not strings");
    expect_syntax("[{\"directory\": \".\", \"file\": 7, \"command\": \"\"}]",
                  "'" DB "': .[0].file is missing or not a string",
                  "a file that is not a string");
    expect_syntax("[{\"directory\": \".\", \"file\": \"a.c\", "
                  "\"command\": \"cc 'a.c\"}]",
                  "'" DB "': .[0].command: unterminated '",
                  "an unterminated quote in the command");
    leave();
}

static void
test_compdb__last_match_wins(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    static const char *const o1[] = {"cc", "-O1", "-c", "a.c", NULL};
    static const char *const o2[] = {"cc", "-O2", "-c", "b.c", NULL};
    cJSON *db = cJSON_CreateArray();
    char abs[PATH_MAX + 8];

    if (!enter())
        return;
    write_file("a.c", "int a;\n");
    write_file("b.c", "int b;\n");
    snprintf(abs, sizeof(abs), "%s/a.c", scratch);
    add_entry(db, scratch, "a.c", NULL, o1);
    add_entry(db, scratch, abs, "cc -O3 -c a.c", NULL);
    add_entry(db, scratch, "b.c", NULL, o2);
    write_db(db);
    is_str(flags_of("a.c", &e), "-O3", "the last of several matches wins");
    is_str(e.compiler, "cc", "with its compiler");
    mc_compdb_entry_release(&e);
    leave();
}

static void
test_compdb__other_inputs_leave_the_flags(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    /* A one-line compile-and-link, as Bear records it, run in build/. */
    static const char *const args[] = {
        "cc", "-O2", "-x", "c", "-D", "N=a.o", "-o", "prog", "../src/hot.c",
        "../src/main.c", "util.o", "libz.a", "/usr/lib/libq.so.1",
        "-Xlinker", "-zmuldefs", "-L", "lib", "-Llib2", "-lm", "-l", "pthread",
        "-fPIC", NULL};
    cJSON *db = cJSON_CreateArray();
    char dir[PATH_MAX + 8];

    if (!enter())
        return;
    mkdir("src", 0755);
    mkdir("build", 0755);
    write_file("src/hot.c", "int h;\n");
    snprintf(dir, sizeof(dir), "%s/build", scratch);
    add_entry(db, dir, "../src/hot.c", NULL, args);
    write_db(db);
    is_str(flags_of("src/hot.c", &e),
           "-O2 -x c -D N=a.o -Xlinker -zmuldefs -fPIC",
           "other sources, objects, libraries, -l and -L leave the flags; "
           "an option's argument stays");
    is_str(joined(&e.others),
           "src/main.c build/util.o build/libz.a /usr/lib/libq.so.1",
           "the other inputs, rebased to the current directory");
    is_str(joined(&e.ldflags), "-L build/lib -Lbuild/lib2",
           "-L goes to ldflags, rebased");
    is_str(joined(&e.ldlibs), "-lm -l pthread", "-l goes to ldlibs");
    mc_compdb_entry_release(&e);
    ok(!e.others.n && !e.ldflags.n && !e.ldlibs.n, "release empties them");
    leave();
}

/* An option's separate argument stays with it even when it reads as a
 * dropped option: "-U -c" undefines a macro named "-c" (found by
 * fuzz-compdb, whose check then thought "-c" was left in). */
static void
test_compdb__argument_that_looks_like_a_dropped_option(void)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    static const char *const args[] = {
        "cc", "-U", "-c", "-D", "-MD", "-I", "-MMD", "-c", "a.c", NULL};
    cJSON *db = cJSON_CreateArray();

    if (!enter())
        return;
    write_file("a.c", "int a;\n");
    add_entry(db, scratch, "a.c", NULL, args);
    write_db(db);
    is_str(flags_of("a.c", &e), "-U -c -D -MD -I -MMD",
           "the word after -U, -D or -I stays; the lone -c goes");
    ok(mc_compdb_keeps_next("-U") && mc_compdb_keeps_next("-I") &&
           mc_compdb_keeps_next("-include") && !mc_compdb_keeps_next("-c") &&
           !mc_compdb_keeps_next("-Ifoo"),
       "mc_compdb_keeps_next names the options that keep their next word");
    mc_compdb_entry_release(&e);
    leave();
}

int
main(void)
{
    TAP_RUN(test_compdb__arguments);
    TAP_RUN(test_compdb__command_with_quoting);
    TAP_RUN(test_compdb__drops_output_and_depfile_options);
    TAP_RUN(test_compdb__paths_rebased_to_the_current_directory);
    TAP_RUN(test_compdb__match_by_realpath);
    TAP_RUN(test_compdb__maxcode_variant);
    TAP_RUN(test_compdb__no_entry);
    TAP_RUN(test_compdb__missing_db);
    TAP_RUN(test_compdb__malformed);
    TAP_RUN(test_compdb__last_match_wins);
    TAP_RUN(test_compdb__other_inputs_leave_the_flags);
    TAP_RUN(test_compdb__argument_that_looks_like_a_dropped_option);
    return tap_done();
}
