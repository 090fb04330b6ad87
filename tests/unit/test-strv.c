/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-strv.c: string vectors, their sticky out-of-memory state, and the
 * shell splitter and quoter (mc_shell_split, mc_shell_quote,
 * mc_strv_join_shell) that every command line maxcode builds or reads
 * goes through.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "strv.h"
#include "tap.h"

/* Split S and join the words with '|' into OUT (at most CAP bytes):
 * the status of the split. */
static enum mc_code
split(const char *s, char *out, size_t cap, struct mc_err *err)
{
    struct mc_strv sv = MC_STRV_INIT;
    enum mc_code rc = mc_shell_split(s, &sv, err);
    size_t i, len = 0;

    out[0] = '\0';
    for (i = 0; i < sv.n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "|" : "",
                                sv.v[i]);
    mc_strv_release(&sv);
    return rc;
}

static void
test_strv__push_extend_contains(void)
{
    struct mc_strv a = MC_STRV_INIT, b = MC_STRV_INIT;
    int i;

    for (i = 0; i < 100; i++)
        mc_strv_push(&a, i % 2 ? "odd" : "even");
    is_long(a.n, 100, "100 pushes give 100 strings");
    ok(a.v[100] == NULL, "the vector is NULL-terminated");
    mc_strv_pushn(&b, "abcdef", 3);
    is_str(b.v[0], "abc", "pushn copies LEN bytes");
    mc_strv_extend(&b, &a);
    is_long(b.n, 101, "extend appends copies of all");
    ok(mc_strv_contains(&b, "odd") && !mc_strv_contains(&b, "ab"),
       "contains compares whole strings");
    is_long(mc_strv_status(&b), MC_OK, "no push failed");
    mc_strv_release(&a);
    mc_strv_release(&b);
    ok(a.v == NULL && a.n == 0, "release empties the vector");
}

static void
test_strv__errors_are_sticky(void)
{
    struct mc_strv sv = MC_STRV_INIT;
    struct mc_err err = MC_ERR_INIT;

    mc_strv_push(&sv, "cc");
    /* A NULL string is what a failed copy gives push_owned. */
    is_long(mc_strv_push_owned(&sv, NULL), MC_ENOMEM,
            "a failed allocation is MC_ENOMEM");
    is_long(mc_strv_status(&sv), MC_ENOMEM, "and the vector remembers it");
    is_long(mc_strv_push(&sv, "-O2"), MC_ENOMEM,
            "a later push fails too");
    is_long(mc_strv_push_owned(&sv, mc_strdup("-c")), MC_ENOMEM,
            "and so does a later push_owned (which frees its string)");
    is_long(sv.n, 1, "so no command is built with a word missing");
    is_str(sv.v[0], "cc", "what came before stays");
    is_long(mc_shell_split("a b", &sv, &err), MC_ENOMEM,
            "a split into a failed vector fails");
    is_str(err.msg, "out of memory", "and says why");
    mc_strv_release(&sv);
    is_long(mc_strv_status(&sv), MC_OK, "release clears the state");
    is_long(mc_strv_push(&sv, "x"), MC_OK, "and the vector works again");
    mc_strv_release(&sv);
    mc_strv_init(&sv);
    is_long(mc_strv_status(&sv), MC_OK, "init starts clean");
}

static void
test_shell_split__words(void)
{
    struct mc_err err = MC_ERR_INIT;
    char out[256];

    split("  gcc\t-O2 \n -c  ", out, sizeof(out), &err);
    is_str(out, "gcc|-O2|-c", "blanks, tabs and newlines separate words");
    split("", out, sizeof(out), &err);
    is_str(out, "", "an empty command has no words");
    split("'a b' \"c d\"", out, sizeof(out), &err);
    is_str(out, "a b|c d", "quotes keep blanks");
    split("a'b'\"c\"d", out, sizeof(out), &err);
    is_str(out, "abcd", "quoted parts join the word around them");
    split("'' \"\" x", out, sizeof(out), &err);
    is_str(out, "||x", "empty quotes are empty words");
    split("'a\\b' '\"'", out, sizeof(out), &err);
    is_str(out, "a\\b|\"", "nothing is special inside single quotes");
    split("\"a\\\"b\\\\c\\$d\\`e\\nf\"", out, sizeof(out), &err);
    is_str(out, "a\"b\\c$d`e\\nf",
           "inside double quotes \\ escapes only \\ \" $ ` and newline");
    split("a\\ b \\'c", out, sizeof(out), &err);
    is_str(out, "a b|'c", "a backslash outside quotes escapes any byte");
    split("end\\", out, sizeof(out), &err);
    is_str(out, "end\\", "a trailing backslash is kept");
    split("$HOME *.c ~", out, sizeof(out), &err);
    is_str(out, "$HOME|*.c|~", "no expansion happens");
    is_long(err.code, MC_OK, "no error so far");
}

static void
test_shell_split__unterminated(void)
{
    struct mc_strv sv = MC_STRV_INIT;
    struct mc_err err = MC_ERR_INIT;

    is_long(mc_shell_split("cc 'oops", &sv, &err), MC_ESYNTAX,
            "an unterminated ' is MC_ESYNTAX");
    is_str(err.msg, "unterminated ' in 'cc 'oops'", "and quotes the command");
    is_long(sv.n, 1, "the words before it were split");
    is_long(mc_strv_status(&sv), MC_OK, "a syntax error is not sticky");
    mc_strv_release(&sv);
    mc_err_clear(&err);
    is_long(mc_shell_split("say \"hi", &sv, &err), MC_ESYNTAX,
            "an unterminated \" is MC_ESYNTAX");
    is_str(err.msg, "unterminated \" in 'say \"hi'", "and says which quote");
    mc_strv_release(&sv);
    is_long(mc_shell_split("x 'y", &sv, NULL), MC_ESYNTAX,
            "ERR may be NULL");
    mc_strv_release(&sv);
}

static void
test_shell_quote__round_trip(void)
{
    static const char *const words[] = {
        "plain", "-DX=1", "a/b.c", "", "two words", "it's", "'", "a\"b",
        "$HOME", "back\\slash", "tab\there", "new\nline", "*?[x]", "~user",
    };
    struct mc_strv in = MC_STRV_INIT, back = MC_STRV_INIT;
    struct mc_buf b = MC_BUF_INIT;
    size_t i;
    int same;

    mc_shell_quote(&b, "-O2");
    is_str(b.s, "-O2", "a safe word is left unquoted");
    mc_buf_reset(&b);
    mc_shell_quote(&b, "");
    is_str(b.s, "''", "the empty word is ''");
    mc_buf_reset(&b);
    mc_shell_quote(&b, "it's x");
    is_str(b.s, "'it'\\''s x'", "a quote inside is written '\\''");
    mc_buf_reset(&b);
    for (i = 0; i < MC_ARRAY_SIZE(words); i++)
        mc_strv_push(&in, words[i]);
    is_long(mc_strv_join_shell(&in, &b), MC_OK, "join succeeds");
    is_long(mc_shell_split(b.s, &back, NULL), MC_OK, "its output splits");
    same = back.n == in.n;
    for (i = 0; same && i < in.n; i++)
        same = !strcmp(in.v[i], back.v[i]);
    ok(same, "split(join(words)) gives the words back");
    mc_strv_release(&in);
    mc_strv_release(&back);
    mc_buf_release(&b);
}

int
main(void)
{
    TAP_RUN(test_strv__push_extend_contains);
    TAP_RUN(test_strv__errors_are_sticky);
    TAP_RUN(test_shell_split__words);
    TAP_RUN(test_shell_split__unterminated);
    TAP_RUN(test_shell_quote__round_trip);
    return tap_done();
}
