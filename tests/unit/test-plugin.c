/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-plugin.c: the plugin's logic against the gmk_* stub: the function
 * table, $(maxcode-version), and $(maxcode-setting) with make variables,
 * environment-imported variables and errors.
 */
#include "mc_setup.h"
#include "gmk-stub.h"
#include "plugin.h"
#include "tap.h"

static char *
call1(const char *fn, const char *arg)
{
    char *argv[2] = {(char *)arg, NULL};

    return stub_call(fn, 1, argv);
}

static void
test_plugin__setup_registers_table(void)
{
    const struct stub_function *f;
    gmk_floc floc = {"Makefile", 1};

#ifdef GMK_ABI_VERSION
    is_long(maxcode_gmk_setup(GMK_ABI_VERSION, &floc), 1, "setup succeeds");
#else
    is_long(maxcode_gmk_setup(&floc), 1, "setup succeeds");
#endif
    contains(stub_evaluated(), "maxcode-version := " PACKAGE_VERSION,
             "setup defines the maxcode-version variable");
    f = stub_function("maxcode-version");
    ok(f && f->min_args == 0 && f->max_args == 0,
       "maxcode-version takes no arguments");
    f = stub_function("maxcode-setting");
    ok(f && f->min_args == 1 && f->max_args == 1,
       "maxcode-setting takes one argument");
}

static void
test_plugin__version(void)
{
    char *v = stub_call("maxcode-version", 0, NULL);

    is_str(v, PACKAGE_VERSION, "expands to the package version");
    gmk_free(v);
    is_long(stub_live_allocs(), 0, "the result came from gmk_alloc");
}

static void
test_plugin__setting_layers(void)
{
    char *v;

    stub_reset();
    unsetenv("MAXCODE_MODE");
    setenv("MAXCODE_LOG", "quiet", 1);
    /* make imports the environment as variables of origin "environment";
     * those are the environment layer, not the make layer. */
    stub_set_var("MAXCODE_LOG", "quiet", "environment");
    stub_set_var("MAXCODE_MODE", "cache", "file");
    v = call1("maxcode-setting", "MAXCODE_MODE");
    is_str(v, "cache", "a makefile variable is used");
    gmk_free(v);
    v = call1("maxcode-setting", " log ");
    is_str(v, "quiet", "short names work and arguments are trimmed");
    gmk_free(v);
    stub_set_var("MAXCODE_MODE", "off", "command line");
    v = call1("maxcode-setting", "MAXCODE_MODE");
    is_str(v, "off", "a command-line variable is used");
    gmk_free(v);
    ok(stub_error() == NULL, "no error so far");
    unsetenv("MAXCODE_LOG");
}

static void
test_plugin__setting_errors(void)
{
    char *v;

    stub_reset();
    v = call1("maxcode-setting", "MAXCODE_COLOUR");
    ok(v == NULL, "an unknown setting expands to nothing");
    contains(stub_error(), "unknown setting 'MAXCODE_COLOUR'",
             "and stops make with a message naming it");
    stub_reset();
    call1("maxcode-setting", "MAXCODE_API_KEY");
    contains(stub_error(), "is a secret", "the API key is never expanded");
    stub_reset();
    stub_set_var("MAXCODE_MODE", "fast $(x) #1", "file");
    call1("maxcode-setting", "mode");
    contains(stub_error(), "MAXCODE_MODE=fast $(x) #1: expected one of",
             "a bad make value is reported intact ($ and # escaped)");
    maxcode_gmk_unload();
}

int
main(void)
{
    /* No user or project maxcode.conf may leak into the test. */
    setenv("HOME", "/nonexistent", 1);
    unsetenv("XDG_CONFIG_HOME");
    if (chdir("/"))
        return 1;
    TAP_RUN(test_plugin__setup_registers_table);
    TAP_RUN(test_plugin__version);
    TAP_RUN(test_plugin__setting_layers);
    TAP_RUN(test_plugin__setting_errors);
    return tap_done();
}
