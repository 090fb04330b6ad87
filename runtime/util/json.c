/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * json.c: the bounded reader of JSON members from outside (json.h).
 */
#include "mc_setup.h"
#include "json.h"

#include <cjson/cJSON.h>
#include <math.h>

/* Member NAME of O, or NULL (O may be NULL). */
static const cJSON *
member(const cJSON *o, const char *name)
{
    return o ? cJSON_GetObjectItemCaseSensitive(o, name) : NULL;
}

enum mc_code
mc_json_double(const cJSON *o, const char *name, double min, double max,
               double *out)
{
    const cJSON *v = member(o, name);

    if (!v)
        return MC_ENOENT;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
        !(v->valuedouble >= min && v->valuedouble <= max))
        return MC_EINVAL;
    *out = v->valuedouble;
    return MC_OK;
}

enum mc_code
mc_json_int(const cJSON *o, const char *name, long long min, long long max,
            long long *out)
{
    double d;
    enum mc_code rc = mc_json_double(o, name, (double)min, (double)max,
                                     &d);

    if (rc)
        return rc;
    /* (double)max may round up past max (2^63 - 1 becomes 2^63). */
    if (d >= 9223372036854775807.0 || d <= -9223372036854775807.0)
        return MC_EINVAL;
    *out = (long long)d;
    if (*out < min || *out > max) /* rounding of (double)min or max */
        return MC_EINVAL;
    return MC_OK;
}

enum mc_code
mc_json_str(const cJSON *o, const char *name, size_t maxlen,
            const char **out)
{
    const cJSON *v = member(o, name);

    if (!v)
        return MC_ENOENT;
    if (!cJSON_IsString(v) || !v->valuestring ||
        strnlen(v->valuestring, maxlen + (maxlen < SIZE_MAX)) > maxlen)
        return MC_EINVAL;
    *out = v->valuestring;
    return MC_OK;
}

enum mc_code
mc_json_bool(const cJSON *o, const char *name, int *out)
{
    const cJSON *v = member(o, name);

    if (!v)
        return MC_ENOENT;
    if (!cJSON_IsBool(v))
        return MC_EINVAL;
    *out = cJSON_IsTrue(v);
    return MC_OK;
}

const cJSON *
mc_json_array(const cJSON *o, const char *name)
{
    const cJSON *v = member(o, name);

    return cJSON_IsArray(v) ? v : NULL;
}

const cJSON *
mc_json_object(const cJSON *o, const char *name)
{
    const cJSON *v = member(o, name);

    return cJSON_IsObject(v) ? v : NULL;
}

double
mc_json_num_or(const cJSON *o, const char *name, double min, double max,
               double dflt)
{
    double v = dflt;

    (void)mc_json_double(o, name, min, max, &v);
    return v;
}

const char *
mc_json_text(const cJSON *o, const char *name, size_t maxlen)
{
    const char *s = "";

    (void)mc_json_str(o, name, maxlen, &s);
    return s;
}

int
mc_json_true(const cJSON *o, const char *name)
{
    return cJSON_IsTrue(member(o, name));
}
