/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-compiler.c: the compiler identity under each MAXCODE_COMPILER_CHECK
 * value, and what is remembered of it under the cache directory.
 */
#include "mc_setup.h"
#include "compiler.h"
#include "tap.h"

#include <dirent.h>

static char dir[] = "/tmp/mc-compiler-XXXXXX";
static char cache[128], path0[4096];

/* PATH is DIR/BIN and the original PATH; the identities are forgotten. */
static void
use_path(const char *bin)
{
    char p[8192];

    snprintf(p, sizeof(p), "%s/%s:%s", dir, bin, path0);
    setenv("PATH", p, 1);
    mc_compiler_forget();
}

/* The identity of COMPILER under CHECK, or "" on an error. */
static const char *
ident(const char *compiler, const char *check)
{
    struct mc_err err = MC_ERR_INIT;
    const char *id = NULL;

    if (mc_compiler_identity(compiler, check, cache, &id, &err)) {
        printf("# %s\n", err.msg);
        return "";
    }
    return id;
}

/* Files in the cache's compilers/ directory. */
static long
remembered(void)
{
    char p[256];
    struct dirent *de;
    long n = 0;
    DIR *d;

    snprintf(p, sizeof(p), "%s/compilers", cache);
    if (!(d = opendir(p)))
        return 0;
    while ((de = readdir(d)) != NULL)
        n += strstr(de->d_name, ".id") != NULL;
    closedir(d);
    return n;
}

/* Lines in the file the fake compiler appends to at each run. */
static long
calls(void)
{
    char p[256];
    long n = 0;
    int c;
    FILE *f;

    snprintf(p, sizeof(p), "%s/calls", dir);
    if (!(f = fopen(p, "r")))
        return 0;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void
test_compiler__fixed_values(void)
{
    use_path("bin1");
    is_str(ident("fakecc -m32", "none"), "fakecc -m32|none",
           "none: the command alone");
    is_str(ident("fakecc", "string:v1"), "fakecc|string:v1",
           "string:TEXT: TEXT");
    ok(strcmp(ident("fakecc", "string:v1"), ident("fakecc", "string:v2")),
       "string:v1 and string:v2 differ");
    is_str(ident("no-such-cc-4242", "content"), "no-such-cc-4242|unresolved",
           "a compiler PATH does not have is unresolved");
    is_long(remembered(), 0, "nothing of these is remembered");
}

static void
test_compiler__mtime_and_content(void)
{
    char a[512], b[512];

    use_path("bin1");
    snprintf(a, sizeof(a), "%s", ident("fakecc", "mtime"));
    ok(strstr(a, "/bin1/fakecc|") != NULL, "mtime names the real path");
    use_path("bin2");
    snprintf(b, sizeof(b), "%s", ident("fakecc", "mtime"));
    ok(*b && strcmp(a, b), "mtime: the copy elsewhere, another identity");
    use_path("bin1");
    snprintf(a, sizeof(a), "%s", ident("fakecc", ""));
    ok(!strncmp(a, "fakecc|content:", 15), "content is the default");
    is_long(remembered(), 1, "content is remembered");
    use_path("bin2");
    is_str(ident("fakecc", "content"), a,
           "content: the copy elsewhere with another mtime, the same");
    use_path("bin3");
    ok(strcmp(ident("fakecc", "content"), a), "other bytes, other identity");
    ok(strcmp(ident("fakecc -m32", "content"), ident("fakecc", "content")),
       "the command as written goes in too");
}

static void
test_compiler__command(void)
{
    struct mc_err err = MC_ERR_INIT;
    const char *id;
    char a[512];

    use_path("bin1");
    snprintf(a, sizeof(a), "%s", ident("fakecc", "%compiler% --version"));
    ok(!strncmp(a, "fakecc|command:", 15), "a command check is hashed");
    is_long(calls(), 1, "the command ran once");
    use_path("bin1");
    is_str(ident("fakecc", "%compiler% --version"), a,
           "the next process has the same identity");
    is_long(calls(), 1, "without running the command: it is remembered");
    ok(strcmp(ident("fakecc", "%compiler% -v"), a),
       "another command, another identity");
    is_long(calls(), 2, "which ran");
    is_long(mc_compiler_identity("fakecc", "false", cache, &id, &err),
            MC_EINVAL, "a failing command is an error");
    contains(err.msg, "'false' exited with status 1", "that names it");
}

int
main(void)
{
    char cmd[512];
    const char *p = getenv("PATH");

    snprintf(path0, sizeof(path0), "%s", p ? p : "/usr/bin:/bin");
    if (!mkdtemp(dir) || chdir(dir) || mkdir("bin1", 0755) ||
        mkdir("bin2", 0755) || mkdir("bin3", 0755)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    snprintf(cache, sizeof(cache), "%s/cache", dir);
    snprintf(cmd, sizeof(cmd), "printf '#!/bin/sh\\necho \"fakecc 1.0 $*\""
             "\\necho x >>%s/calls\\n' >bin1/fakecc && chmod +x bin1/fakecc"
             " && cp -p bin1/fakecc bin2/fakecc && touch -d '2001-01-01' "
             "bin2/fakecc && { cat bin1/fakecc; echo '# 3'; } >bin3/fakecc"
             " && chmod +x bin3/fakecc", dir);
    if (system(cmd)) {
        printf("Bail out! cannot write the fake compilers\n");
        return 1;
    }
    TAP_RUN(test_compiler__fixed_values);
    TAP_RUN(test_compiler__mtime_and_content);
    TAP_RUN(test_compiler__command);
    snprintf(cmd, sizeof(cmd), "cd / && rm -rf %s", dir);
    if (system(cmd))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
