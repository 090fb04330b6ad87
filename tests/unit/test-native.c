/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-native.c: isa=native resolved by a fake compiler and remembered
 * per machine and compiler, the MAXCODE_NATIVE_ARCH hook, the fallback
 * on the CPU's flags, the key it gives, what the built-in proposer takes
 * from it, and the check of a cached variant's target("arch=X").
 */
#include "mc_setup.h"
#include "alloc.h"
#include "compiler.h"
#include "key.h"
#include "native.h"
#include "builtin.h"
#include "tap.h"
#include "testfs.h"

static char dir[] = "/tmp/mc-native-XXXXXX";

/* Parse hot.c with ARGS (NULL-terminated) and compiler COMPILER. */
static enum mc_code
parse(struct mc_target *t, char **args, const char *compiler)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;
    enum mc_code rc;
    size_t n = 0;

    while (args && args[n])
        n++;
    mc_conf_init(&c, NULL);
    rc = mc_target_parse_marked(t, "hot.c", args, n, &c, &err);
    mc_conf_release(&c);
    if (rc)
        printf("# %s\n", err.msg);
    else
        t->compiler = mc_strdup(compiler);
    return rc;
}

/* Whether VARIANT names an architecture other than HOST that ORIG does
 * not name; the name into OUT. */
static int
foreign(const char *variant, const char *orig, const char *host, char *out)
{
    out[0] = '\0';
    return mc_native_foreign_arch(variant, strlen(variant), orig,
                                  orig ? strlen(orig) : 0, host, out,
                                  MC_NATIVE_ARCH_MAX);
}

static void
test_native__foreign_arch(void)
{
    char x[MC_NATIVE_ARCH_MAX];

    ok(!foreign("int main(void) { return 0; }\n", NULL, "", x),
       "no pragma: nothing");
    ok(!foreign("#pragma GCC target(\"arch=haswell\")\n", NULL, "haswell",
                x), "the host's arch fits");
    ok(foreign("#pragma GCC target (\"arch=haswell\")\n", NULL, "skylake",
               x), "another arch does not");
    is_str(x, "haswell", "and is named");
    ok(foreign("#pragma GCC target(\"avx2,arch=znver3\", \"tune=native\")\n",
               NULL, "", x) && !strcmp(x, "znver3"),
       "arch= among other target options; an unknown host fits nothing");
    ok(foreign("__attribute__((target(\"arch=x86-64-v3\"))) int f(void);\n",
               NULL, "znver3", x) && !strcmp(x, "x86-64-v3"),
       "a target attribute counts");
    ok(!foreign("__attribute__((target_clones(\"arch=haswell\",\"default\")))"
                " int f(void);\n", NULL, "znver3", x),
       "target_clones dispatches at run time");
    ok(!foreign("#pragma GCC target(\"tune=haswell\")\n/* -march=bad */\n",
                NULL, "znver3", x), "tune= and -march= elsewhere do not");
    ok(!foreign("#pragma GCC target(\"arch=haswell\")\nint x;\n",
                "#pragma GCC target(\"arch=haswell\")\n", "znver3", x),
       "an arch the original has is the user's");
    ok(foreign("#pragma GCC target(\"arch=haswell\")\n"
               "#pragma GCC target(\"arch=icelake-server\")\n",
               "#pragma GCC target(\"arch=haswell\")\n", "znver3", x) &&
           !strcmp(x, "icelake-server"),
       "every target() is read");
}

static void
test_native__resolve_and_remember(void)
{
    char *native[] = {"isa=native", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    char arch[MC_NATIVE_ARCH_MAX];
    int now = 0;

    if (parse(&t, native, "./fakecc"))
        return;
    is_long(mc_native_host(&t, 0, arch, sizeof(arch), &now, &err), MC_OK,
            "reading runs nothing");
    is_str(arch, "", "nothing is remembered yet");
    is_long(mc_native_set_target(&t, 0, NULL, &err), MC_OK, "make's view");
    ok(t.native_arch == NULL, "unresolved");
    is_long(mc_native_set_target(&t, 1, &now, &err), MC_OK, "resolve");
    is_str(t.native_arch, "testarch", "gcc's -march= on the cc1 line");
    is_long(now, 1, "resolved now");
    now = 0;
    mc_native_host(&t, 0, arch, sizeof(arch), &now, &err);
    is_str(arch, "testarch", "remembered");
    is_long(now, 0, "not resolved again");
    setenv("MAXCODE_NATIVE_ARCH", "hookarch", 1);
    mc_native_host(&t, 0, arch, sizeof(arch), NULL, &err);
    is_str(arch, "hookarch", "the test hook wins");
    unsetenv("MAXCODE_NATIVE_ARCH");
    mc_free(t.compiler);
    t.compiler = mc_strdup("./dumbcc");
    mc_native_set_target(&t, 1, NULL, &err);
    ok(t.native_arch && !strncmp(t.native_arch, "cpu-", 4),
       "a compiler that does not say: the CPU's flags");
    mc_target_release(&t);
    if (parse(&t, NULL, "./fakecc"))
        return;
    mc_native_set_target(&t, 1, NULL, &err);
    ok(t.native_arch == NULL, "without isa=native, nothing");
    mc_target_release(&t);
}

/* The key of hot.c with isa=native for the architecture ARCH (NULL:
 * unresolved), into KEY. */
static void
key_for(const char *arch, char key[MC_KEY_HEX + 1])
{
    char *native[] = {"isa=native", NULL};
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;

    key[0] = '\0';
    if (parse(&t, native, "./fakecc"))
        return;
    t.native_arch = arch ? mc_strdup(arch) : NULL;
    if (mc_target_key(&t, 0, key, &err))
        printf("# %s\n", err.msg);
    mc_target_release(&t);
}

static void
test_native__key_and_proposer(void)
{
    char *native[] = {"isa=native", NULL};
    char k1[MC_KEY_HEX + 1], k2[MC_KEY_HEX + 1], k3[MC_KEY_HEX + 1];
    struct mc_err err = MC_ERR_INIT;
    struct mc_builtin b;
    struct mc_target t;

    key_for("skylake", k1);
    key_for("haswell", k2);
    key_for(NULL, k3);
    ok(k1[0] && strcmp(k1, k2), "another architecture, another key");
    ok(k3[0] && strcmp(k1, k3) && strcmp(k2, k3), "unresolved, another");
    if (parse(&t, native, "gcc"))
        return;
    t.native_arch = mc_strdup("skylake");
    is_long(mc_builtin_init(&b, &t, "", 0, NULL, 0, &err), MC_OK,
            "proposer set up");
    is_str(b.arch, "skylake", "the proposer takes the key's architecture");
    mc_builtin_release(&b);
    mc_free(t.native_arch);
    t.native_arch = mc_strdup("cpu-0123456789abcdef");
    mc_builtin_init(&b, &t, "", 0, NULL, 0, &err);
    is_str(b.arch, "", "but no CPU-flags hash");
    mc_builtin_release(&b);
    mc_target_release(&t);
}

static void
test_native__check_variant(void)
{
    static const char fits[] = "#pragma GCC target(\"arch=testarch\")\n";
    static const char other[] = "#pragma GCC target(\"arch=otherarch\")\n";
    char found[MC_NATIVE_ARCH_MAX], host[MC_NATIVE_ARCH_MAX];
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    int ok_here = -1;

    if (parse(&t, NULL, "./fakecc"))
        return;
    mc_native_check_variant(&t, fits, sizeof(fits) - 1, 0, &ok_here, found,
                            host, &err);
    is_long(ok_here, 1, "a variant for this machine's arch fits");
    mc_native_check_variant(&t, other, sizeof(other) - 1, 0, &ok_here,
                            found, host, &err);
    is_long(ok_here, 0, "one for another arch does not");
    is_str(found, "otherarch", "its arch");
    is_str(host, "testarch", "this machine's, remembered");
    mc_free(t.compiler);
    t.compiler = mc_strdup("./quietcc");
    mc_native_check_variant(&t, fits, sizeof(fits) - 1, 0, &ok_here, found,
                            host, &err);
    is_long(ok_here, 0, "unknown here (make's thread resolves nothing)");
    is_str(host, "", "and says so");
    mc_target_release(&t);
}

int
main(void)
{
    char cmd[256];

    /* The cache, with what is remembered, is here. */
    if (!mkdtemp(dir) || setenv("XDG_CACHE_HOME", dir, 1) || chdir(dir)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    unsetenv("MAXCODE_NATIVE_ARCH");
    write_file("hot.c", "int main(void) { return 0; }\n");
    write_file("fakecc", "#!/bin/sh\necho ' cc1 -E - -march=testarch "
                         "-mavx2' >&2\n");
    write_file("quietcc", "#!/bin/sh\necho ' cc1 -E - -march=quiet' >&2\n");
    write_file("dumbcc", "#!/bin/sh\nexit 1\n");
    if (chmod("fakecc", 0755) || chmod("quietcc", 0755) ||
        chmod("dumbcc", 0755)) {
        printf("Bail out! cannot write the fake compilers\n");
        return 1;
    }
    TAP_RUN(test_native__foreign_arch);
    TAP_RUN(test_native__resolve_and_remember);
    TAP_RUN(test_native__key_and_proposer);
    TAP_RUN(test_native__check_variant);
    snprintf(cmd, sizeof(cmd), "cd / && rm -rf %s", dir);
    if (system(cmd))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
