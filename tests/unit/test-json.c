/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-json.c: the bounded JSON member reader (json.h): numbers in and
 * out of range, integers truncated after the range check, strings
 * within and over their cap, members of the wrong type, missing members
 * and a NULL object, and the readers with a default.
 */
#include "mc_setup.h"
#include "json.h"
#include "tap.h"

#include <cjson/cJSON.h>
#include <float.h>

static cJSON *
parse(const char *text)
{
    cJSON *o = cJSON_Parse(text);

    if (!o)
        abort();
    return o;
}

static void
test_json__double_bounds(void)
{
    cJSON *o = parse("{\"a\":2.5,\"neg\":-1,\"big\":1e300,\"inf\":1e999,"
                     "\"s\":\"3\",\"n\":null}");
    double v = 7;

    is_long(mc_json_double(o, "a", 0, 10, &v), MC_OK, "2.5 in [0, 10]");
    ok(v == 2.5, "read as 2.5");
    v = 7;
    is_long(mc_json_double(o, "a", 0, 2.5, &v), MC_OK, "MAX is inclusive");
    is_long(mc_json_double(o, "a", 2.5, 9, &v), MC_OK, "MIN is inclusive");
    v = 7;
    is_long(mc_json_double(o, "neg", 0, 10, &v), MC_EINVAL, "-1 below 0");
    ok(v == 7, "OUT untouched when refused");
    is_long(mc_json_double(o, "big", 0, 1e12, &v), MC_EINVAL,
            "1e300 above 1e12");
    is_long(mc_json_double(o, "inf", -DBL_MAX, DBL_MAX, &v), MC_EINVAL,
            "inf refused even in the widest range");
    is_long(mc_json_double(o, "s", 0, 10, &v), MC_EINVAL,
            "a string is not a number");
    is_long(mc_json_double(o, "n", 0, 10, &v), MC_EINVAL,
            "null is not a number");
    is_long(mc_json_double(o, "missing", 0, 10, &v), MC_ENOENT,
            "a missing member");
    is_long(mc_json_double(NULL, "a", 0, 10, &v), MC_ENOENT,
            "a NULL object has no members");
    is_long(mc_json_double(o, "A", 0, 10, &v), MC_ENOENT,
            "names are case-sensitive");
    ok(v == 7, "OUT untouched throughout");
    cJSON_Delete(o);
}

static void
test_json__int_bounds(void)
{
    cJSON *o = parse("{\"i\":2.9,\"m\":-0.5,\"p\":-1,\"t\":4294967295,"
                     "\"u\":4294967296,\"huge\":1e19}");
    long long v = 7;

    is_long(mc_json_int(o, "i", 0, 10, &v), MC_OK, "2.9 in [0, 10]");
    is_long(v, 2, "truncated toward zero");
    is_long(mc_json_int(o, "m", 0, 10, &v), MC_EINVAL,
            "-0.5 is below 0 before the cast");
    is_long(mc_json_int(o, "m", -1, 10, &v), MC_OK, "-0.5 in [-1, 10]");
    is_long(v, 0, "-0.5 reads as 0");
    is_long(mc_json_int(o, "p", -1, INT_MAX, &v), MC_OK, "-1 as a parent");
    is_long(v, -1, "-1");
    ok(mc_json_int(o, "t", 0, 4294967295LL, &v) == MC_OK &&
           v == 4294967295LL, "2^32 - 1 at the top of [0, 2^32 - 1]");
    is_long(mc_json_int(o, "u", 0, 4294967295LL, &v), MC_EINVAL,
            "2^32 above it");
    is_long(mc_json_int(o, "huge", LLONG_MIN, LLONG_MAX, &v), MC_EINVAL,
            "1e19 does not fit a long long");
    cJSON_Delete(o);
}

static void
test_json__str_caps(void)
{
    cJSON *o = parse("{\"s\":\"abcd\",\"e\":\"\",\"n\":4,\"a\":[\"x\"]}");
    const char *s = "dflt";

    is_long(mc_json_str(o, "s", 4, &s), MC_OK, "4 bytes within a cap of 4");
    is_str(s, "abcd", "read as it is");
    s = "dflt";
    is_long(mc_json_str(o, "s", 3, &s), MC_EINVAL, "over a cap of 3");
    is_str(s, "dflt", "OUT untouched");
    is_long(mc_json_str(o, "s", SIZE_MAX, &s), MC_OK, "SIZE_MAX: any");
    is_long(mc_json_str(o, "e", 0, &s), MC_OK, "\"\" within a cap of 0");
    is_str(s, "", "the empty string");
    is_long(mc_json_str(o, "n", 10, &s), MC_EINVAL, "a number");
    is_long(mc_json_str(o, "a", 10, &s), MC_EINVAL, "an array");
    is_long(mc_json_str(o, "x", 10, &s), MC_ENOENT, "missing");
    is_str(mc_json_text(o, "s", 10), "abcd", "text within its cap");
    is_str(mc_json_text(o, "s", 2), "", "text over its cap: \"\"");
    is_str(mc_json_text(o, "n", 10), "", "text of a number: \"\"");
    is_str(mc_json_text(NULL, "s", 10), "", "text of NULL: \"\"");
    cJSON_Delete(o);
}

static void
test_json__types(void)
{
    cJSON *o = parse("{\"t\":true,\"f\":false,\"one\":1,\"a\":[1,2],"
                     "\"o\":{\"k\":1},\"s\":\"x\"}");
    int b = 7;

    is_long(mc_json_bool(o, "t", &b), MC_OK, "true is a boolean");
    is_long(b, 1, "true reads 1");
    is_long(mc_json_bool(o, "f", &b), MC_OK, "false is a boolean");
    is_long(b, 0, "false reads 0");
    b = 7;
    is_long(mc_json_bool(o, "one", &b), MC_EINVAL, "1 is not a boolean");
    is_long(mc_json_bool(o, "x", &b), MC_ENOENT, "missing");
    is_long(b, 7, "OUT untouched");
    ok(mc_json_true(o, "t") && !mc_json_true(o, "f") &&
           !mc_json_true(o, "one") && !mc_json_true(o, "x"),
       "only true is true");
    ok(mc_json_array(o, "a") && cJSON_GetArraySize(mc_json_array(o, "a")) == 2,
       "an array by type");
    ok(!mc_json_array(o, "o") && !mc_json_array(o, "s") &&
           !mc_json_array(o, "x") && !mc_json_array(NULL, "a"),
       "an object, a string, a missing member are no array");
    ok(mc_json_object(o, "o") != NULL, "an object by type");
    ok(!mc_json_object(o, "a") && !mc_json_object(o, "x"),
       "an array or a missing member is no object");
    cJSON_Delete(o);
}

static void
test_json__defaults(void)
{
    cJSON *o = parse("{\"a\":3,\"b\":-3,\"c\":\"3\"}");

    ok(mc_json_num_or(o, "a", 0, 10, -1) == 3, "in range: the number");
    ok(mc_json_num_or(o, "b", 0, 10, -1) == -1, "out of range: DFLT");
    ok(mc_json_num_or(o, "c", 0, 10, -1) == -1, "a string: DFLT");
    ok(mc_json_num_or(o, "d", 0, 10, -1) == -1, "missing: DFLT");
    cJSON_Delete(o);
}

int
main(void)
{
    TAP_RUN(test_json__double_bounds);
    TAP_RUN(test_json__int_bounds);
    TAP_RUN(test_json__str_caps);
    TAP_RUN(test_json__types);
    TAP_RUN(test_json__defaults);
    return tap_done();
}
