/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-conf.c: configuration layers and their precedence, value checks,
 * and maxcode.conf errors that name FILE:LINE. Each case runs in a fresh
 * scratch directory that is both HOME and the current directory.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "conf.h"
#include "tap.h"
#include "testfs.h"

static char scratch[] = "/tmp/mc-conf-XXXXXX";
static char cwd_conf[PATH_MAX + 32], user_conf[PATH_MAX + 64];

/* A clean slate: no maxcode settings in the environment, no files. */
static void
fresh(void)
{
    size_t i;

    for (i = 0; i < MC_SET__COUNT; i++)
        unsetenv(mc_conf_name((enum mc_setting_id)i));
    unsetenv("OPENAI_API_KEY");
    unsetenv("ANTHROPIC_API_KEY");
    unsetenv("XDG_CONFIG_HOME");
    setenv("XDG_CACHE_HOME", scratch, 1);
    setenv("HOME", scratch, 1);
    unlink(cwd_conf);
    unlink(user_conf);
}

static void
test_conf__defaults(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;
    char want[PATH_MAX + 16];

    fresh();
    if (!is_long(mc_conf_load(&c, NULL, NULL, &err), MC_OK, "loads"))
        return;
    is_str(mc_conf_get(&c, MC_SET_MODE), "optimize", "mode defaults");
    is_long(mc_conf_origin(&c, MC_SET_MODE), MC_FROM_DEFAULT,
            "origin is default");
    snprintf(want, sizeof(want), "%s/maxcode", scratch);
    is_str(mc_conf_get(&c, MC_SET_CACHE_DIR), want,
           "cache dir is $XDG_CACHE_HOME/maxcode");
    is_str(mc_conf_get(&c, MC_SET_BUDGET), "16", "budget defaults to 16");
    mc_conf_release(&c);
}

static void
test_conf__file_over_default_project_over_user(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;

    fresh();
    write_file(user_conf, "# user settings\nMAXCODE_MODE = off\n"
                          "log = verbose\n");
    write_file(cwd_conf, "\n  MAXCODE_MODE = cache   \n"
                         "min-speedup = \"1.5\"\n");
    if (!is_long(mc_conf_load(&c, NULL, NULL, &err), MC_OK, "loads"))
        return;
    is_str(mc_conf_get(&c, MC_SET_MODE), "cache",
           "./maxcode.conf beats the user file");
    is_str(mc_conf_where(&c, MC_SET_MODE), "maxcode.conf:2",
           "and remembers file:line");
    is_str(mc_conf_get(&c, MC_SET_LOG), "verbose",
           "the user file beats the default");
    is_long(mc_conf_origin(&c, MC_SET_LOG), MC_FROM_USER,
            "with origin user config");
    is_str(mc_conf_get(&c, MC_SET_MIN_SPEEDUP), "1.5",
           "short names and quoted values work");
    mc_conf_release(&c);
}

static void
test_conf__env_over_file(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;

    fresh();
    write_file(cwd_conf, "MAXCODE_MODE = cache\n");
    setenv("MAXCODE_MODE", "refresh", 1);
    if (!is_long(mc_conf_load(&c, NULL, NULL, &err), MC_OK, "loads"))
        return;
    is_str(mc_conf_get(&c, MC_SET_MODE), "refresh",
           "the environment beats ./maxcode.conf");
    is_long(mc_conf_origin(&c, MC_SET_MODE), MC_FROM_ENV,
            "with origin environment");
    mc_conf_release(&c);
}

static char *
fake_make(const char *name, void *ctx)
{
    (void)ctx;
    if (!strcmp(name, "MAXCODE_MODE"))
        return mc_strdup("off");
    return NULL;
}

static void
test_conf__make_over_env_arg_over_make(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;

    fresh();
    setenv("MAXCODE_MODE", "refresh", 1);
    setenv("MAXCODE_BUDGET", "4", 1);
    if (!is_long(mc_conf_load(&c, fake_make, NULL, &err), MC_OK, "loads"))
        return;
    is_str(mc_conf_get(&c, MC_SET_MODE), "off",
           "a make variable beats the environment");
    is_str(mc_conf_where(&c, MC_SET_MODE), "make variable MAXCODE_MODE",
           "and says so");
    mc_conf_set(&c, MC_SET_BUDGET, "8", MC_FROM_ARG, "budget=8", &err);
    is_str(mc_conf_get(&c, MC_SET_BUDGET), "8", "an argument beats the env");
    mc_conf_set(&c, MC_SET_BUDGET, "2", MC_FROM_ENV, NULL, &err);
    is_str(mc_conf_get(&c, MC_SET_BUDGET), "8",
           "a lower layer applied later does not override");
    mc_conf_release(&c);
}

static void
expect_bad_file(const char *text, const char *want_msg, const char *name)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;

    fresh();
    write_file(cwd_conf, text);
    if (!is_long(mc_conf_load(&c, NULL, NULL, &err), MC_ECONFIG, name)) {
        mc_conf_release(&c);
        return;
    }
    if (!contains(err.msg, want_msg, "the message names file:line"))
        printf("#   message: %s\n", err.msg);
}

static void
test_conf__bad_lines_name_file_and_line(void)
{
    expect_bad_file("# ok\nMAXCODE_MODE = cache\nthis is not a setting\n",
                    "maxcode.conf:3: expected 'KEY = VALUE'",
                    "a line without '=' fails");
    expect_bad_file("MAXCODE_MODEL = m\nMAXCODE_COLOUR = blue\n",
                    "maxcode.conf:2: unknown setting 'MAXCODE_COLOUR'",
                    "an unknown setting fails");
    expect_bad_file("MAXCODE_MODE = fast\n",
                    "maxcode.conf:1: MAXCODE_MODE=fast: expected one of: "
                    "optimize cache verify refresh off",
                    "a bad value fails and lists the choices");
    expect_bad_file("budget = 0\n", "maxcode.conf:1: MAXCODE_BUDGET=0",
                    "an out-of-range number fails");
}

static void
test_conf__bad_env_value(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;

    fresh();
    setenv("MAXCODE_MIN_SPEEDUP", "fast", 1);
    is_long(mc_conf_load(&c, NULL, NULL, &err), MC_ECONFIG,
            "a bad environment value fails");
    contains(err.msg, "environment: MAXCODE_MIN_SPEEDUP=fast: expected a "
                      "number >= 1",
             "and the message says where and what");
}

static void
test_conf__api_key_fallback(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;

    fresh();
    setenv("OPENAI_API_KEY", "sk-test-1234", 1);
    if (!is_long(mc_conf_load(&c, NULL, NULL, &err), MC_OK, "loads"))
        return;
    is_str(mc_conf_get(&c, MC_SET_API_KEY), "sk-test-1234",
           "OPENAI_API_KEY is read when MAXCODE_API_KEY is unset");
    is_str(mc_conf_where(&c, MC_SET_API_KEY), "environment (OPENAI_API_KEY)",
           "and the origin names it");
    ok(mc_conf_is_secret(MC_SET_API_KEY), "the key is marked secret");
    mc_conf_release(&c);
}

static void
test_conf__sizes(void)
{
    unsigned long long v = 0;

    ok(!mc_conf_parse_size("2G", &v) && v == 2ULL << 30, "2G");
    ok(!mc_conf_parse_size("500MiB", &v) && v == 500ULL << 20, "500MiB");
    ok(!mc_conf_parse_size("4096", &v) && v == 4096, "plain bytes");
    ok(mc_conf_parse_size("10x", &v) == -1, "10x is refused");
    ok(mc_conf_parse_size("-1", &v) == -1, "negative is refused");
}

int
main(void)
{
    char dir[PATH_MAX + 32];

    if (!mkdtemp(scratch) || chdir(scratch)) {
        printf("Bail out! cannot make a scratch directory\n");
        return 1;
    }
    snprintf(cwd_conf, sizeof(cwd_conf), "%s/maxcode.conf", scratch);
    snprintf(dir, sizeof(dir), "%s/.config", scratch);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/.config/maxcode", scratch);
    mkdir(dir, 0700);
    snprintf(user_conf, sizeof(user_conf), "%s/maxcode.conf", dir);

    TAP_RUN(test_conf__defaults);
    TAP_RUN(test_conf__file_over_default_project_over_user);
    TAP_RUN(test_conf__env_over_file);
    TAP_RUN(test_conf__make_over_env_arg_over_make);
    TAP_RUN(test_conf__bad_lines_name_file_and_line);
    TAP_RUN(test_conf__bad_env_value);
    TAP_RUN(test_conf__api_key_fallback);
    TAP_RUN(test_conf__sizes);

    fresh();
    rmdir(dir);
    snprintf(dir, sizeof(dir), "%s/.config", scratch);
    rmdir(dir);
    if (chdir("/") == 0)
        rmdir(scratch);
    return tap_done();
}
