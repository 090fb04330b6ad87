/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-variant.c: the variant file: its path, the first line (#line and
 * the stamp), the rewriting of quote includes that exist next to SOURCE,
 * line numbers kept, and writing it (with .source) only when it changed;
 * a file edited by hand is found by its size and mtime (.written) and
 * written again.
 * The cases run in a scratch directory that is the current directory.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "file.h"
#include "hash.h"
#include "variant.h"
#include "tap.h"
#include "testfs.h"

#include <ctype.h>
#include <fcntl.h>
#include <ftw.h>

static char scratch[PATH_MAX];

/* The variant of TEXT for SOURCE at PATH, into OUT (rewritten). */
static enum mc_code
rewrite(const char *path, const char *source, const char *text,
        struct mc_buf *out)
{
    char real[PATH_MAX];

    mc_buf_reset(out);
    if (!realpath(source, real))
        return MC_ENOENT;
    return mc_variant_rewrite(path, source, real, text, strlen(text), out,
                              NULL);
}

/* Whether LINE is '#line 1 "NAME" / * maxcode HEX32 * /' and a newline;
 * the stamp goes to STAMP (33 bytes). */
static int
first_line_ok(const char *line, const char *name, char *stamp)
{
    char want[PATH_MAX + 32];
    size_t n, i;

    n = (size_t)snprintf(want, sizeof(want), "#line 1 \"%s\" /* maxcode ",
                         name);
    if (strncmp(line, want, n))
        return 0;
    for (i = 0; i < 32; i++)
        if (!isxdigit((unsigned char)line[n + i]))
            return 0;
    memcpy(stamp, line + n, 32);
    stamp[32] = '\0';
    return !strncmp(line + n + 32, " */\n", 4);
}

static void
test_variant__path(void)
{
    struct mc_buf b = MC_BUF_INIT;

    mc_variant_path("0123abcd", "hot.c", &b);
    is_str(b.s, ".maxcode/0123abcd/hot.c", "the variant path");
    mc_buf_release(&b);
}

static void
test_variant__first_line_and_stamp(void)
{
    static const char escaped[] = "#line 1 \"q\\\"b\\\\s.c\" /* ";
    struct mc_buf v = MC_BUF_INIT;
    char s1[33] = "", s2[33] = "", s3[33] = "";

    is_long(rewrite(".maxcode/k/hot.c", "src/hot.c", "int x;\n", &v), MC_OK,
            "rewrites");
    ok(first_line_ok(v.s, "src/hot.c", s1),
       "the first line is #line 1 \"SOURCE\" and a maxcode stamp");
    contains(v.s, "\nint x;\n", "the text follows it");
    rewrite(".maxcode/k/hot.c", "src/hot.c", "int x;\n", &v);
    first_line_ok(v.s, "src/hot.c", s2);
    is_str(s1, s2, "the same text gives the same stamp");
    rewrite(".maxcode/k/hot.c", "src/hot.c", "int y;\n", &v);
    first_line_ok(v.s, "src/hot.c", s3);
    ok(strcmp(s1, s3) != 0, "another text, another stamp");
    rewrite(".maxcode/k/hot.c", "src/../src/hot.c", "int x;\n", &v);
    first_line_ok(v.s, "src/../src/hot.c", s3);
    ok(strcmp(s1, s3) != 0, "another SOURCE name, another stamp");
    write_file("q\"b\\s.c", "int z;\n");
    rewrite(".maxcode/k/q.c", "q\"b\\s.c", "int z;\n", &v);
    ok(!strncmp(v.s, escaped, sizeof(escaped) - 1),
       "\" and \\ in SOURCE's name are escaped in #line");
    mc_buf_release(&v);
}

static void
test_variant__quote_includes(void)
{
    static const char text[] =
        "#include \"hot.h\"\n"
        "  #  include   \"hot.h\" // spaced\n"
        "#include \"sub/deep.h\"\n"
        "#include \"missing.h\"\n"
        "#include <stdio.h>\n"
        "#include \"/usr/include/stdio.h\"\n"
        "#define S \"#include \\\"hot.h\\\"\"\n"
        "#include \"\"\n"
        "#include \"hot.h\"";
    static const char want[] =
        "#include \"../../src/hot.h\"\n"
        "  #  include   \"../../src/hot.h\" // spaced\n"
        "#include \"../../src/sub/deep.h\"\n"
        "#include \"missing.h\"\n"
        "#include <stdio.h>\n"
        "#include \"/usr/include/stdio.h\"\n"
        "#define S \"#include \\\"hot.h\\\"\"\n"
        "#include \"\"\n"
        "#include \"../../src/hot.h\"";
    struct mc_buf v = MC_BUF_INIT;
    const char *body;

    is_long(rewrite(".maxcode/k/hot.c", "src/hot.c", text, &v), MC_OK,
            "rewrites");
    body = strchr(v.s, '\n');
    is_str(body ? body + 1 : NULL, want,
           "includes next to SOURCE lead there from the variant; others, "
           "system and absolute ones stay; no newline is added at the end");
    rewrite("hot.c", "src/hot.c", text, &v);
    contains(v.s, "\n#include \"src/hot.h\"\n",
             "the path is relative to the variant's directory");
    mc_buf_release(&v);
}

static void
test_variant__lines_kept(void)
{
    static const char text[] = "a\n\n#include \"hot.h\"\nb\n\n";
    struct mc_buf v = MC_BUF_INIT;
    size_t i, lines = 0;

    rewrite(".maxcode/k/hot.c", "src/hot.c", text, &v);
    for (i = 0; i < v.len; i++)
        lines += v.s[i] == '\n';
    is_long(lines, 6, "the variant has the original's lines plus one");
    contains(v.s, "*/\na\n\n#include \"../../src/hot.h\"\nb\n\n",
             "each original line N is the variant's line N + 1");
    rewrite(".maxcode/k/hot.c", "src/hot.c", "", &v);
    ok(v.len && v.s[v.len - 1] == '\n' && !strchr(v.s, '\n')[1],
       "an empty text gives the first line alone");
    mc_buf_release(&v);
}

/* PATH's modification time, or -1. */
static long long
mtime_of(const char *path)
{
    struct stat st;

    return stat(path, &st) ? -1 : (long long)st.st_mtime;
}

static void
test_variant__materialize(void)
{
    static const char path[] = ".maxcode/m1/hot.c";
    struct mc_buf got = MC_BUF_INIT, want = MC_BUF_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    char real[PATH_MAX], line[PATH_MAX + 2];

    if (!realpath("src/hot.c", real)) {
        ok(0, "src/hot.c resolves");
        return;
    }
    is_long(mc_variant_materialize(path, "src/hot.c", real, "int x;\n", 7,
                                   NULL, &err),
            MC_OK, "materializes, making the directory");
    mc_file_read(path, &got, NULL);
    rewrite(path, "src/hot.c", "int x;\n", &want);
    is_str(got.s, want.s, "the file is the rewritten text");
    mc_buf_reset(&got);
    mc_file_read(".maxcode/m1/.source", &got, NULL);
    snprintf(line, sizeof(line), "%s\n", real);
    is_str(got.s, line, ".source holds SOURCE's real path");
    utimensat(AT_FDCWD, path, old, 0);
    is_long(mc_variant_materialize(path, "src/hot.c", real, "int x;\n", 7,
                                   NULL, &err),
            MC_OK, "again, with the same text");
    is_long(mtime_of(path), 1000000000,
            "a file with the same stamp is left alone (its mtime too)");
    mc_variant_materialize(path, "src/hot.c", real, "int y;\n", 7, NULL,
                           &err);
    ok(mtime_of(path) != 1000000000, "another text is written");
    mc_buf_reset(&got);
    mc_file_read(path, &got, NULL);
    contains(got.s, "\nint y;\n", "with the new text");
    is_long(mc_variant_mark_source(".maxcode/m2/hot.c", real, &err), MC_OK,
            "mark_source alone");
    ok(access(".maxcode/m2/.source", F_OK) == 0 &&
           access(".maxcode/m2/hot.c", F_OK) != 0,
       "writes .source and not the variant");
    mc_buf_release(&got);
    mc_buf_release(&want);
}

/* A record that names the entry it was written from (ORIGIN): the next
 * hit knows the file is right from a stat() and a readlink(), and gets
 * the payload back; another origin, another place, a file edited by
 * hand or a record without a tail is no such hit. */
static void
test_variant__fresh(void)
{
    static const char path[] = ".maxcode/f1/hot.c";
    struct mc_buf pay = MC_BUF_INIT;
    struct mc_err err = MC_ERR_INIT;
    char real[PATH_MAX];
    FILE *f;

    if (!realpath("src/hot.c", real)) {
        ok(0, "src/hot.c resolves");
        return;
    }
    is_long(mc_variant_materialize(path, "src/hot.c", real, "int x;\n", 7,
                                   NULL, &err),
            MC_OK, "materializes without an origin");
    ok(!mc_variant_fresh(path, "src/hot.c", real, "1 2 3.000000004", &pay),
       "a record without a tail names no entry");
    is_long(mc_variant_materialize_from(path, "src/hot.c", real, "int x;\n",
                                        7, "1 2 3.000000004",
                                        "abc inc.h\n! a note", NULL, &err),
            MC_OK, "the same text, now with an origin");
    ok(mc_variant_fresh(path, "src/hot.c", real, "1 2 3.000000004", &pay),
       "the record names that entry");
    is_str(pay.s, "abc inc.h\n! a note", "and gives its payload back");
    mc_buf_reset(&pay);
    ok(!mc_variant_fresh(path, "src/hot.c", real, "1 2 3.000000005", &pay),
       "another entry file is not named");
    ok(!mc_variant_fresh(path, "src/hot.c", "/elsewhere/src/hot.c",
                         "1 2 3.000000004", &pay),
       "nor is the same entry for a source elsewhere");
    is_long(mc_variant_materialize_from(path, "src/hot.c", real, "int x;\n",
                                        7, "1 2 9.000000000", NULL, NULL,
                                        &err),
            MC_OK, "a new origin renews the record");
    ok(mc_variant_fresh(path, "src/hot.c", real, "1 2 9.000000000", &pay) &&
           pay.len == 0,
       "which names the new entry, without a payload");
    if ((f = fopen(path, "a"))) {
        fputs("int evil;\n", f);
        fclose(f);
    }
    ok(!mc_variant_fresh(path, "src/hot.c", real, "1 2 9.000000000", &pay),
       "a file edited by hand is not fresh");
    mc_buf_release(&pay);
}

/* Set PATH's mtime to SEC seconds (and access time). */
static void
set_mtime(const char *path, time_t sec)
{
    struct timespec t[2] = {{sec, 0}, {sec, 0}};

    utimensat(AT_FDCWD, path, t, 0);
}

/* Replace the first FROM in the file at PATH by TO (as long), in place:
 * the size stays. */
static void
edit_in_place(const char *path, const char *from, const char *to)
{
    struct mc_buf b = MC_BUF_INIT;
    char *at;

    mc_file_read(path, &b, NULL);
    at = b.s ? strstr(b.s, from) : NULL;
    if (at) {
        memcpy(at, to, strlen(to));
        write_file(path, b.s);
    }
    mc_buf_release(&b);
}

/* Materialize "int x;" for src/hot.c at PATH; *EDITED as it says. */
static enum mc_code
put_x(const char *path, int *edited)
{
    char real[PATH_MAX];

    if (!realpath("src/hot.c", real))
        return MC_ENOENT;
    return mc_variant_materialize(path, "src/hot.c", real, "int x;\n", 7,
                                  edited, NULL);
}

/* The .written record beside PATH's file: a symbolic link's text,
 * without its stamp (the last word), into B; "" when there is none. */
static void
read_record(struct mc_buf *b)
{
    char rec[512];
    ssize_t n = readlink(".maxcode/m3/.written", rec, sizeof(rec) - 1);
    char *sp;

    mc_buf_reset(b);
    if (n <= 0)
        return;
    rec[n] = '\0';
    sp = strrchr(rec, ' ');
    if (sp && strlen(sp + 1) == MC_KEY_HEX)
        *sp = '\0';
    mc_buf_adds(b, rec);
}

static void
test_variant__hand_edit(void)
{
    static const char path[] = ".maxcode/m3/hot.c";
    struct mc_buf want = MC_BUF_INIT, got = MC_BUF_INIT, rec = MC_BUF_INIT;
    struct stat st;
    char line[128];
    int edited = -1;

    is_long(put_x(path, &edited), MC_OK, "written");
    is_long(edited, 0, "a new file is no edit");
    mc_file_read(path, &want, NULL);
    read_record(&rec);
    stat(path, &st);
    snprintf(line, sizeof(line), "%lld %lld.%09ld hot.c",
             (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             (long)st.st_mtim.tv_nsec);
    is_str(rec.s, line, ".written records its size and mtime");

    mc_buf_adds(&got, want.s);
    mc_buf_adds(&got, "int evil;\n");
    write_file(path, got.s);
    is_long(put_x(path, &edited), MC_OK, "after an edit that adds a line");
    is_long(edited, 1, "the edit is reported");
    mc_buf_reset(&got);
    mc_file_read(path, &got, NULL);
    is_str(got.s, want.s, "and the file written again");

    edit_in_place(path, "int x;", "int z;");
    set_mtime(path, 2000000000);
    is_long(put_x(path, &edited), MC_OK, "after an edit of the same size");
    is_long(edited, 1, "its mtime gives it away");
    mc_buf_reset(&got);
    mc_file_read(path, &got, NULL);
    is_str(got.s, want.s, "written again");

    set_mtime(path, 1500000000);
    is_long(put_x(path, &edited), MC_OK, "after a touch");
    is_long(edited, 0, "a touch is no edit");
    is_long(mtime_of(path), 1500000000, "and the file is not written");
    read_record(&rec);
    snprintf(line, sizeof(line), "%lld 1500000000.000000000 hot.c",
             (long long)st.st_size);
    is_str(rec.s, line, "the record is renewed");

    /* What a hit costs: no read of the whole file. An edit that keeps
     * the size and puts the mtime back is not seen. */
    edit_in_place(path, "int x;", "int z;");
    set_mtime(path, 1500000000);
    put_x(path, &edited);
    mc_buf_reset(&got);
    mc_file_read(path, &got, NULL);
    ok(edited == 0 && strstr(got.s, "int z;") != NULL,
       "a hit does not hash the file");

    unlink(".maxcode/m3/.written");
    write_file(path, want.s);
    set_mtime(path, 1600000000);
    is_long(put_x(path, &edited), MC_OK, "with no record");
    ok(edited == 0 && mtime_of(path) == 1600000000,
       "a right file without a record is left alone");
    read_record(&rec);
    ok(rec.len > 0, "and recorded");

    /* A record from before the records were links: a regular file. */
    unlink(".maxcode/m3/.written");
    write_file(".maxcode/m3/.written", "36 1600000000.000000000 hot.c\n");
    set_mtime(path, 1600000000);
    is_long(put_x(path, &edited), MC_OK, "with an old record");
    ok(edited == 0 && mtime_of(path) == 1600000000,
       "a right file with an old record is left alone");
    read_record(&rec);
    ok(rec.len > 0, "and recorded anew");
    mc_buf_release(&want);
    mc_buf_release(&got);
    mc_buf_release(&rec);
}

int
main(void)
{
    char tmpl[] = "/tmp/mc-variant-XXXXXX";

    if (!mkdtemp(tmpl) || !realpath(tmpl, scratch) || chdir(scratch) ||
        mkdir("src", 0755) || mkdir("src/sub", 0755)) {
        printf("Bail out! cannot make a scratch directory\n");
        return 1;
    }
    write_file("src/hot.c", "int x;\n");
    write_file("src/hot.h", "int h;\n");
    write_file("src/sub/deep.h", "int d;\n");
    TAP_RUN(test_variant__path);
    TAP_RUN(test_variant__first_line_and_stamp);
    TAP_RUN(test_variant__quote_includes);
    TAP_RUN(test_variant__lines_kept);
    TAP_RUN(test_variant__materialize);
    TAP_RUN(test_variant__hand_edit);
    TAP_RUN(test_variant__fresh);
    if (chdir("/") || nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS))
        printf("# cannot remove %s\n", scratch);
    return tap_done();
}
