/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-paths.c: relative paths, paths inside a directory and the
 * plugin lookup order.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "paths.h"
#include "tap.h"

static void
check_rel(const char *from, const char *to, const char *want)
{
    char *got = mc_path_relative(from, to);
    char name[256];

    snprintf(name, sizeof(name), "%s -> %s", from, to);
    is_str(got, want, name);
    mc_free(got);
}

static void
test_paths__relative(void)
{
    check_rel("/usr/bin", "/usr/lib/maxcode", "../lib/maxcode");
    check_rel("/tmp/p/bin/", "/tmp/p//lib/./maxcode", "../lib/maxcode");
    check_rel("/a/b", "/a/b", ".");
    check_rel("/opt/x/bin", "/usr/lib", "../../../usr/lib");
    ok(mc_path_relative("bin", "/usr") == NULL, "relative input is refused");
}

static void
test_paths__in_dir(void)
{
    is_str(mc_path_in_dir("/src/p/hot.c", "/src/p"), "hot.c",
           "inside: relative");
    is_str(mc_path_in_dir("/src/p//./sub/hot.c", "/src/p/"), "sub/hot.c",
           "slashes and ./ are dropped");
    is_str(mc_path_in_dir("/src/px/hot.c", "/src/p"), "/src/px/hot.c",
           "a sibling with a longer name is not inside");
    is_str(mc_path_in_dir("/src/p", "/src/p"), "/src/p",
           "the directory itself stays");
    is_str(mc_path_in_dir("/other/hot.c", "/src/p"), "/other/hot.c",
           "outside: as written");
    is_str(mc_path_in_dir("src/hot.c", "/src/p"), "src/hot.c",
           "relative: as written");
    is_str(mc_path_in_dir("/hot.c", "/"), "hot.c", "the root directory");
    is_str(mc_path_in_dir("/src/p/hot.c", ""), "/src/p/hot.c",
           "no directory: as written");
}

static void
test_paths__beneath(void)
{
    ok(mc_path_beneath("/src/p/a/b", "/src/p"), "a file beneath");
    ok(mc_path_beneath("/src/p", "/src/p/"), "the directory itself");
    ok(!mc_path_beneath("/src/px", "/src/p"),
       "a sibling with a longer name is not beneath");
    ok(!mc_path_beneath("/src", "/src/p"), "the parent is not beneath");
    ok(mc_path_beneath("/x", "/"), "everything is beneath the root");
}

static void
touch(const char *path)
{
    FILE *f = fopen(path, "w");

    if (f)
        fclose(f);
}

static void
test_paths__plugin_lookup_order(void)
{
    struct mc_err err = MC_ERR_INIT;
    char tmpl[] = "/tmp/mc-paths-XXXXXX";
    char *dir = mkdtemp(tmpl), *out = NULL, p[1024], bindir[256],
         libdir[256];

    if (!ok(dir != NULL, "made a scratch directory"))
        return;
    snprintf(bindir, sizeof(bindir), "%s/stage/usr/bin", dir);
    snprintf(libdir, sizeof(libdir), "%s/stage/usr/lib/maxcode", dir);
    snprintf(p, sizeof(p), "%s/stage", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/stage/usr", dir);
    mkdir(p, 0755);
    mkdir(bindir, 0755);
    snprintf(p, sizeof(p), "%s/stage/usr/lib", dir);
    mkdir(p, 0755);
    mkdir(libdir, 0755);

    is_long(mc_path_plugin(bindir, "/usr/bin", "/usr/lib/maxcode/none",
                           &out, &err),
            MC_ENOENT, "no plugin anywhere is MC_ENOENT");
    contains(err.msg, "cannot find maxcode.so", "and the error says so");

    /* Staged install: configured /usr/bin and /usr/lib/maxcode, but the
     * tree lives under DESTDIR: found relative to the executable. */
    snprintf(p, sizeof(p), "%s/maxcode.so", libdir);
    touch(p);
    mc_err_clear(&err);
    is_long(mc_path_plugin(bindir, "/usr/bin", "/usr/lib/maxcode", &out,
                           &err),
            MC_OK, "a staged plugin is found relative to the executable");
    is_str(out, p, "the staged path is returned");
    mc_free(out);

    /* The build tree wins over an install layout. */
    snprintf(p, sizeof(p), "%s/plugin", bindir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/plugin/.libs", bindir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/plugin/.libs/maxcode.so", bindir);
    touch(p);
    is_long(mc_path_plugin(bindir, "/usr/bin", "/usr/lib/maxcode", &out,
                           &err),
            MC_OK, "a build-tree plugin is found");
    is_str(out, p, "the build tree comes first");
    mc_free(out);
    snprintf(p, sizeof(p), "rm -rf '%s'", dir);
    if (system(p) != 0)
        printf("# could not remove %s\n", dir);
}

int
main(void)
{
    TAP_RUN(test_paths__relative);
    TAP_RUN(test_paths__in_dir);
    TAP_RUN(test_paths__beneath);
    TAP_RUN(test_paths__plugin_lookup_order);
    return tap_done();
}
