/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-target.c: option checks, defaults, pragma options and the key.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "key.h"
#include "target.h"
#include "tap.h"
#include "testfs.h"

static char dir[] = "/tmp/mc-target-XXXXXX";

/* Parse SOURCE with the options ARGS (NULL-terminated) and, when it
 * parses, key it with FLAG as the one flag. Returns the parse status. */
static enum mc_code
parse(struct mc_target *t, const char *source, char **args, const char *flag,
      char key[MC_KEY_HEX + 1], struct mc_err *err)
{
    struct mc_conf c;
    enum mc_code rc;
    size_t n = 0;

    while (args && args[n])
        n++;
    mc_conf_init(&c, NULL);
    rc = mc_target_parse_marked(t, source, args, n, &c, err);
    mc_conf_release(&c);
    if (rc)
        return rc;
    t->compiler = mc_strdup("cc");
    mc_strv_push(&t->flags, flag);
    return mc_target_key(t, 0, key, err);
}

static void
test_target__defaults_and_lists(void)
{
    char *args[] = {"inputs=t/*.in", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char key[MC_KEY_HEX + 1];

    is_long(parse(&t, "hot.c", args, "-O2", key, &err), MC_OK, "parses");
    is_long(t.inputs.n, 2, "the inputs glob expands");
    is_str(t.inputs.v[0], "t/a.in", "sorted");
    is_long(t.bench_inputs.n, 2, "bench-inputs default to inputs");
    is_str(mc_target_get(&t, MC_OPT_COMPARE), "both", "compare is both");
    is_str(mc_target_get(&t, MC_OPT_BUDGET), "16", "budget is 16");
    is_str(mc_target_get(&t, MC_OPT_BINS), "125+180+260", "CPU bins");
    is_str(mc_target_name(&t), "hot.c", "the variant's name");
    mc_target_release(&t);
}

static void
test_target__key_follows_options_and_flags(void)
{
    char *none[] = {NULL};
    char *b16[] = {"budget=16", NULL};
    char *b4[] = {"budget=4", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char k0[MC_KEY_HEX + 1], k1[MC_KEY_HEX + 1], k2[MC_KEY_HEX + 1],
        k3[MC_KEY_HEX + 1];

    parse(&t, "hot.c", none, "-O2", k0, &err);
    mc_target_release(&t);
    parse(&t, "hot.c", b16, "-O2", k1, &err);
    mc_target_release(&t);
    parse(&t, "hot.c", b4, "-O2", k2, &err);
    mc_target_release(&t);
    parse(&t, "hot.c", none, "-O1", k3, &err);
    mc_target_release(&t);
    is_str(k0, k1, "an option at its default keys like its absence");
    ok(strcmp(k0, k2) != 0, "another budget, another key");
    ok(strcmp(k0, k3) != 0, "another flag, another key");
}

static void
test_target__pragma_options_and_override(void)
{
    char *none[] = {NULL};
    char *b3[] = {"budget=3", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char key[MC_KEY_HEX + 1];

    is_long(parse(&t, "marked.c", none, "-O2", key, &err), MC_OK,
            "a marked source parses");
    is_str(mc_target_get(&t, MC_OPT_BUDGET), "7", "the pragma's budget");
    is_str(t.opt[MC_OPT_ARGS], "-n 5", "a quoted pragma value");
    mc_target_release(&t);
    parse(&t, "marked.c", b3, "-O2", key, &err);
    is_str(mc_target_get(&t, MC_OPT_BUDGET), "3",
           "a function argument beats the pragma");
    mc_target_release(&t);
}

static void
expect_bad(char **args, const char *source, const char *want,
           const char *name)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char key[MC_KEY_HEX + 1];

    if (!is_long(parse(&t, source, args, "-O2", key, &err) != MC_OK, 1,
                 name))
        return;
    if (!contains(err.msg, want, "the message says what is wrong"))
        printf("#   message: %s\n", err.msg);
    mc_target_release(&t);
}

static void
test_target__bad_options(void)
{
    char *a1[] = {"budgett=3", NULL};
    char *a2[] = {"tolerance=1e-6/x", NULL};
    char *a3[] = {"link=nothere.c", NULL};
    char *a4[] = {"bins=3+2+1", NULL};
    char *a5[] = {"budget=2", "budget=3", NULL};

    expect_bad(a1, "hot.c", "unknown option 'budgett'", "unknown option");
    expect_bad(a2, "hot.c", "expected REL or REL/ABS", "bad tolerance");
    expect_bad(a3, "hot.c", "link file 'nothere.c' not found", "bad link");
    expect_bad(a4, "hot.c", "three increasing", "bins not increasing");
    expect_bad(a5, "hot.c", "given twice", "a key twice");
    expect_bad(NULL, "bad.c", "bad.c:2: unknown '#pragma maxcode frob'",
               "a bad pragma names file:line");
    expect_bad(NULL, "missing.c", "SOURCE 'missing.c' not found",
               "a missing source");
}

/* The configuration moves into the target on every outcome, an
 * unreadable SOURCE or a bad pragma included (target.h): a caller that
 * releases only the target leaks nothing (found by tests/fuzz/fuzz-args). */
static void
test_target__conf_moves_on_early_errors(void)
{
    const char *sources[] = {"bad.c", "hot.c/x"};
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(sources); i++) {
        struct mc_err err = MC_ERR_INIT;
        struct mc_target t;
        struct mc_conf c;

        mc_conf_init(&c, NULL);
        ok(mc_target_parse_marked(&t, sources[i], NULL, 0, &c, &err) !=
               MC_OK,
           sources[i]);
        ok(!c.v[MC_SET_BUDGET].value && t.conf.v[MC_SET_BUDGET].value,
           "the configuration is the target's");
        mc_target_release(&t);
        mc_conf_release(&c);
    }
}

static void
test_target__files_ignore_and_ldlibs(void)
{
    char *a1[] = {"files=data", "ignore=^elapsed: ", "ldlibs=-lz", NULL};
    char *bad1[] = {"files=../up", NULL};
    char *bad2[] = {"files=/etc/passwd", NULL};
    char *bad3[] = {"ignore=a(", NULL};
    char *bad4[] = {"files=nothere/*", NULL};
    char *bad5[] = {"ignore=x\377++++++++++++++++++++++++++++++++++++++"
                    "++++++++++++++++++++++++++++++++++++++++++++++++++",
                    NULL};
    char *bad6[] = {"ignore=((a{1,200}){1,200}){1,200}", NULL};
    char *bad7[] = {"ignore=x??????????++!?????????++!++", NULL};
    char *good[] = {"ignore=^(elapsed|took) [0-9]{1,9}(\\.[0-9]+)? [a-z]+$",
                    NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    struct mc_buf b = MC_BUF_INIT;
    char k1[MC_KEY_HEX + 1], k2[MC_KEY_HEX + 1];

    is_long(parse(&t, "hot.c", a1, "-O2", k1, &err), MC_OK, "parses");
    is_long(t.files.n, 1, "files= names one directory");
    is_str(mc_target_get(&t, MC_OPT_LDLIBS), "-lz", "ldlibs= is kept");
    mc_buf_adds(&b, "sum 3\nelapsed: 0.1 s\nend\nelapsed: 2");
    mc_target_drop_ignored(&t, &b);
    is_str(b.s, "sum 3\nend\n", "ignore= drops the matching lines");
    mc_target_release(&t);
    write_file("data/sub/x.txt", "changed\n");
    parse(&t, "hot.c", a1, "-O2", k2, &err);
    ok(strcmp(k1, k2), "a file under a files= directory is in the key");
    mc_target_release(&t);
    mc_buf_release(&b);
    expect_bad(bad1, "hot.c", "relative to make's directory and inside",
               "files= outside the directory");
    expect_bad(bad2, "hot.c", "relative to make's directory",
               "files= absolute");
    expect_bad(bad3, "hot.c", "not a POSIX extended regular expression",
               "a bad ignore=");
    expect_bad(bad4, "hot.c", "matches no file", "files= matching nothing");
    /* Repetitions that the C library would expand to gigabytes. */
    expect_bad(bad5, "hot.c", "too large once its repetitions are expanded",
               "ignore= with nested repetitions");
    expect_bad(bad6, "hot.c", "too large once its repetitions are expanded",
               "ignore= with nested bounds");
    expect_bad(bad7, "hot.c", "too large once its repetitions are expanded",
               "ignore= with stacked repetitions");
    is_long(parse(&t, "hot.c", good, "-O2", k1, &err), MC_OK,
            "an ordinary ignore= with groups and bounds parses");
    mc_target_release(&t);
}

/* files= as expanded and resolved, and what a files= tree may hold. */
static void
test_target__files_as_expanded(void)
{
    char *dots[] = {"files=.*", NULL};
    char *dotdot[] = {"files=.[.]", NULL};
    char *self[] = {"files=.", NULL};
    char *up[] = {"files=up", NULL};
    char *cmp1[] = {"compare=file:../out.txt", NULL};
    char *cmp2[] = {"compare=file:/etc/passwd", NULL};
    char *cmp3[] = {"compare=file:out/sum.txt", NULL};
    char *tree[] = {"files=tree", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char k1[MC_KEY_HEX + 1], k2[MC_KEY_HEX + 1];

    expect_bad(dots, "hot.c", "files '.*': its match '..' is outside "
               "make's directory", "files=.* matches '..'");
    expect_bad(dotdot, "hot.c", "its match '..' is outside",
               "files=.[.] is '..'");
    expect_bad(self, "hot.c", "its match '.' is make's directory itself",
               "files=. is make's directory");
    if (symlink("/", "up"))
        printf("# cannot make a link\n");
    expect_bad(up, "hot.c", "outside make's directory once its links are "
               "resolved", "files= through a link that leads out");
    unlink("up");
    expect_bad(cmp1, "hot.c", "name the file relative to the run's "
               "directory and inside it", "compare=file: with '..'");
    expect_bad(cmp2, "hot.c", "name the file relative", "compare=file: "
               "absolute");
    is_long(parse(&t, "hot.c", cmp3, "-O2", k1, &err), MC_OK,
            "compare=file: in a subdirectory of the run");
    mc_target_release(&t);

    /* Links inside the tree are keyed as links, never followed. */
    if (mkdir("tree", 0755) || symlink(".", "tree/self") ||
        symlink(".", "tree/again") || symlink("a.txt", "tree/alias"))
        printf("# cannot make the tree\n");
    write_file("tree/a.txt", "1\n");
    write_file("tree/b.txt", "2\n");
    is_long(parse(&t, "hot.c", tree, "-O2", k1, &err), MC_OK,
            "links to '.' in a files= tree key at once");
    mc_target_release(&t);
    unlink("tree/alias");
    if (symlink("b.txt", "tree/alias"))
        printf("# cannot make a link\n");
    parse(&t, "hot.c", tree, "-O2", k2, &err);
    ok(strcmp(k1, k2), "where a link leads is in the key");
    mc_target_release(&t);
    if (symlink("/dev/zero", "tree/zero"))
        printf("# cannot make a link\n");
    expect_bad(tree, "hot.c", "'tree/zero' is a symbolic link to "
               "'/dev/zero', outside 'tree'", "a link to /dev/zero");
    unlink("tree/zero");
    if (symlink("../hot.c", "tree/out"))
        printf("# cannot make a link\n");
    expect_bad(tree, "hot.c", "'tree/out' is a symbolic link to '../hot.c', "
               "outside 'tree'", "a link out of the tree");
    unlink("tree/out");
    if (mkfifo("tree/fifo", 0644))
        printf("# cannot make a FIFO\n");
    expect_bad(tree, "hot.c", "'tree/fifo' is a FIFO", "a FIFO");
    unlink("tree/fifo");
    if (symlink("nothere", "tree/gone"))
        printf("# cannot make a link\n");
    expect_bad(tree, "hot.c", "'tree/gone' is a dangling symbolic link",
               "a dangling link");
    unlink("tree/gone");
    if (symlink("l2", "tree/l1") || symlink("l1", "tree/l2"))
        printf("# cannot make links\n");
    expect_bad(tree, "hot.c", "'tree/l1' is a symbolic link in a loop",
               "a loop of links");
    unlink("tree/l1");
    unlink("tree/l2");
}

static void
test_target__key_with_text_in_memory(void)
{
    char *args[] = {"link=lib.c", "inputs=t/*.in", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    struct mc_conf c;
    char k1[MC_KEY_HEX + 1], k2[MC_KEY_HEX + 1], k3[MC_KEY_HEX + 1];

    /* parse_marked reads the text; parse alone keys from the file. */
    parse(&t, "hot.c", args, "-O2", k1, &err);
    ok(t.text.cap > 0, "the text is in memory");
    mc_target_release(&t);
    mc_conf_init(&c, NULL);
    mc_target_parse(&t, "hot.c", args, 2, &c, &err);
    mc_conf_release(&c);
    t.compiler = mc_strdup("cc");
    mc_strv_push(&t.flags, "-O2");
    mc_target_key(&t, 0, k2, &err);
    mc_target_release(&t);
    is_str(k1, k2, "the key is the same with the text in memory or not");
    write_file("lib.c", "int lib2;\n");
    parse(&t, "hot.c", args, "-O2", k3, &err);
    mc_target_release(&t);
    ok(strcmp(k1, k3), "a changed link file changes the key");
    write_file("lib.c", "int lib;\n");
}

static void
test_target__key_versions(void)
{
    char *builtin[] = {NULL};
    char *llm[] = {"proposer=llm", NULL};
    struct mc_key_versions now, other;
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char k0[MC_KEY_HEX + 1], k1[MC_KEY_HEX + 1], k2[MC_KEY_HEX + 1];

    mc_key_versions_current(&now);
    is_str(now.entry_format, "1", "this build's entry format");
    ok(!strncmp(now.prompt_version, "p1-", 3), "and prompt version");
    parse(&t, "hot.c", builtin, "-O2", k0, &err);
    is_long(mc_target_key_with(&t, &now, 0, k1, &err), MC_OK,
            "keyed with the versions given");
    is_str(k0, k1, "mc_target_key() keys with this build's versions");
    other = now;
    other.prompt_version = "p1-0000000000000000";
    mc_target_key_with(&t, &other, 0, k2, &err);
    is_str(k1, k2, "the prompt version does not key a built-in search");
    other = now;
    other.entry_format = "2";
    mc_target_key_with(&t, &other, 0, k2, &err);
    ok(strcmp(k1, k2) != 0, "another entry format, another key");
    is_long(mc_target_key_with(&t, NULL, 0, k2, &err), MC_EINTERNAL,
            "no versions is a bug");
    mc_target_release(&t);
    mc_err_clear(&err);
    parse(&t, "hot.c", llm, "-O2", k0, &err);
    mc_target_key_with(&t, &now, 0, k1, &err);
    is_str(k0, k1, "the same for a model-driven search");
    other = now;
    other.prompt_version = "p1-0000000000000000";
    mc_target_key_with(&t, &other, 0, k2, &err);
    ok(strcmp(k1, k2) != 0, "whose key follows the prompt version");
    mc_target_release(&t);
}

/* The value model of golden_key(): a fixed identity. */
static enum mc_code
golden_value(const struct mc_target *t, struct mc_buf *out)
{
    (void)t;
    mc_buf_adds(out, "stub-model");
    return mc_buf_status(out);
}

/* The key of hot.c with ARGS (NULL-terminated) and the settings ENV
 * (name, value pairs, NULL-terminated), a fixed compiler identity and
 * fixed versions, into HEX ("" when it fails). */
static void
golden_key(char **args, const char *const *env, char hex[MC_KEY_HEX + 1])
{
    struct mc_key_versions v = {"1", "p1-golden", golden_value};
    struct mc_err err = MC_ERR_INIT;
    enum mc_setting_id id;
    struct mc_target t;
    struct mc_conf c;
    size_t n = 0;

    hex[0] = '\0';
    while (args[n])
        n++;
    mc_conf_init(&c, NULL);
    mc_conf_set(&c, MC_SET_COMPILER_CHECK, "string:golden", MC_FROM_ENV,
                NULL, &err);
    for (; env && env[0]; env += 2)
        if (mc_conf_lookup(env[0], 0, &id) == 0)
            mc_conf_set(&c, id, env[1], MC_FROM_ENV, NULL, &err);
    if (mc_target_parse(&t, "hot.c", args, n, &c, &err) == MC_OK) {
        t.compiler = mc_strdup("cc");
        mc_strv_push(&t.flags, "-O2");
        if (mc_target_key_with(&t, &v, 0, hex, &err))
            hex[0] = '\0';
    }
    mc_target_release(&t);
    mc_conf_release(&c);
}

/*
 * The fields a key hashes, by name, order and value, for the built-in
 * and the model's proposers and the strategies: these keys were computed
 * before the proposers and rankers said what they add to a key (their
 * identity operations), and an entry stored then must still be found.
 * A change here is a change of every user's keys: bump the entry format
 * instead, or make sure it is meant.
 */
static void
test_target__key_fields_unchanged(void)
{
    char *none[] = {NULL};
    char *llm[] = {"proposer=llm", NULL};
    char *gvf[] = {"strategy=gvf", NULL};
    char *flat[] = {"strategy=flat", NULL};
    static const char *const llm_env[] = {
        "MAXCODE_LLM_API", "anthropic", "MAXCODE_MODEL", "m1",
        "MAXCODE_CRITIC_MODEL", "c1", NULL};
    static const char *const url_env[] = {
        "MAXCODE_LLM_URL", "http://127.0.0.1:9/v1", "MAXCODE_MODEL", "m1",
        NULL};
    char hex[MC_KEY_HEX + 1];

    golden_key(none, NULL, hex);
    is_str(hex, "c3738a363cd148ed7f02375551ab5bff", "proposer=auto, builtin");
    golden_key(llm, NULL, hex);
    is_str(hex, "efb11178f2ed6ae55975b85305a27f66", "proposer=llm");
    golden_key(llm, llm_env, hex);
    is_str(hex, "39b81ccd2ee76645ac9363b43409dbb6",
           "proposer=llm, its API, model and critic");
    golden_key(none, url_env, hex);
    is_str(hex, "34908c13f3f9820b90361be52334997f",
           "proposer=auto with an endpoint: llm");
    golden_key(gvf, NULL, hex);
    is_str(hex, "71351d7b7d2012d39d03bfe2e0122b58",
           "strategy=gvf, with its value model");
    golden_key(flat, NULL, hex);
    is_str(hex, "db9e45d8575be75f4113b6083b08b95f", "strategy=flat");
}

static void
test_target__vpath(void)
{
    char *args[] = {"link=vlib.c", "inputs=v/*.in", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char key[MC_KEY_HEX + 1];
    struct mc_strv words = MC_STRV_INIT;

    mc_target_set_vpath("nowhere:src2");
    is_long(parse(&t, "vhot.c", args, "-O2", key, &err), MC_OK,
            "found through VPATH");
    is_str(t.source, "src2/vhot.c", "SOURCE as found");
    is_str(t.link.v[0], "src2/vlib.c", "a link file as found");
    is_str(t.inputs.v[0], "src2/v/a.in", "an input as found");
    mc_target_args(&t, &words);
    ok(mc_strv_contains(&words, "link=src2/vlib.c"),
       "the command line names what was found");
    mc_strv_release(&words);
    mc_target_release(&t);
    mc_target_set_vpath(NULL);
    expect_bad(NULL, "vhot.c", "SOURCE 'vhot.c' not found",
               "without VPATH, not found");
}

/* Under mc_target_allow_made(), a plain name that is not there is one
 * the build makes: in its list and in T->made, keyed by its name; once
 * it exists, the key is the complete one, as without the switch. A glob
 * that matches nothing, and a link file that is no regular file, are
 * still errors. */
static void
test_target__made_by_the_build(void)
{
    char *args[] = {"link=gen.c", "inputs=t/gen.in", "files=gen.txt",
                    NULL};
    char *glob[] = {"inputs=t/*.nope", NULL};
    char *dir_link[] = {"link=data", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char made[MC_KEY_HEX + 1], other[MC_KEY_HEX + 1], full[MC_KEY_HEX + 1];

    expect_bad(args, "hot.c", "link file 'gen.c' not found",
               "by default, a missing link file is an error");
    mc_target_allow_made(1);
    is_long(parse(&t, "hot.c", args, "-O2", made, &err), MC_OK,
            "missing plain names parse");
    is_long(t.made.n, 3, "each is made by the build");
    is_str(t.link.v[0], "gen.c", "the link file, as written");
    is_str(t.inputs.v[0], "t/gen.in", "the input, as written");
    is_str(t.bench_inputs.v[0], "t/gen.in", "bench-inputs too");
    is_str(t.files.v[0], "gen.txt", "the files= entry, as written");
    mc_target_release(&t);
    parse(&t, "hot.c", args, "-O1", other, &err);
    mc_target_release(&t);
    ok(strcmp(made, other) != 0, "keyed with the flags as ever");
    expect_bad(glob, "hot.c", "inputs 't/*.nope' matches no file",
               "a glob that matches nothing is still an error");
    expect_bad(dir_link, "hot.c", "link file 'data' not found",
               "a link file that is a directory is still an error");
    write_file("gen.c", "int gen;\n");
    write_file("t/gen.in", "1\n");
    write_file("gen.txt", "x\n");
    is_long(parse(&t, "hot.c", args, "-O2", full, &err), MC_OK,
            "once made, the names parse");
    is_long(t.made.n, 0, "nothing left to make");
    mc_target_release(&t);
    ok(strcmp(made, full) != 0, "the complete key is another");
    mc_target_allow_made(0);
    is_long(parse(&t, "hot.c", args, "-O2", other, &err), MC_OK,
            "without the switch, the same files parse");
    mc_target_release(&t);
    is_str(other, full, "to the same complete key");
    unlink("gen.c");
    unlink("t/gen.in");
    unlink("gen.txt");
}

int
main(void)
{
    char cmd[64];

    /* The compiler identity is remembered under the cache: here. */
    if (!mkdtemp(dir) || setenv("XDG_CACHE_HOME", dir, 1) || chdir(dir) ||
        mkdir("t", 0755)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    write_file("hot.c", "int main(void) { return 0; }\n");
    write_file("t/b.in", "2\n");
    write_file("t/a.in", "1\n");
    write_file("marked.c", "#pragma maxcode optimize budget=7 "
                           "args=\"-n 5\"\nint main(void) { return 0; }\n");
    write_file("bad.c", "int x;\n#pragma maxcode frob\n");
    write_file("lib.c", "int lib;\n");
    if (mkdir("data", 0755) || mkdir("data/sub", 0755) ||
        mkdir("src2", 0755) || mkdir("src2/v", 0755)) {
        printf("Bail out! no scratch directories\n");
        return 1;
    }
    write_file("data/sub/x.txt", "1\n");
    write_file("src2/vhot.c", "int main(void) { return 0; }\n");
    write_file("src2/vlib.c", "int vlib;\n");
    write_file("src2/v/a.in", "1\n");
    TAP_RUN(test_target__defaults_and_lists);
    TAP_RUN(test_target__key_follows_options_and_flags);
    TAP_RUN(test_target__pragma_options_and_override);
    TAP_RUN(test_target__conf_moves_on_early_errors);
    TAP_RUN(test_target__bad_options);
    TAP_RUN(test_target__files_ignore_and_ldlibs);
    TAP_RUN(test_target__files_as_expanded);
    TAP_RUN(test_target__key_with_text_in_memory);
    TAP_RUN(test_target__key_versions);
    TAP_RUN(test_target__key_fields_unchanged);
    TAP_RUN(test_target__vpath);
    TAP_RUN(test_target__made_by_the_build);
    snprintf(cmd, sizeof(cmd), "cd / && rm -rf %s", dir);
    if (system(cmd))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
