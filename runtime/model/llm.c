/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm.c: the model clients on libcurl's multi interface: request bodies,
 * answers, retries with backoff, usage and cost, record and replay. See
 * llm.h.
 */
#include "mc_setup.h"
#include "llm.h"
#include "alloc.h"
#include "file.h"
#include "hash.h"
#include "json.h"
#include "log.h"
#include "spawn.h"
#include "curl_lib.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <strings.h>
#include <time.h>

#define BACKOFF_BASE_S   0.5
#define BACKOFF_CAP_S    30.0
#define RETRY_AFTER_MAX  300.0
#define ANSWER_MAX       (16u << 20) /* bytes of one answer body */

/* A uniform draw in [0, 1) for the jitter; no secrecy needed. */
static double
draw(void)
{
    static uint64_t x;

    if (!x)
        x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^
            (uint64_t)(mc_spawn_clock() * 1e9);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (double)(x >> 11) / 9007199254740992.0;
}

static enum mc_code init_at(struct mc_llm *l, const struct mc_conf *c,
                            const char *url, const char *key,
                            enum mc_llm_api api, struct mc_err *err);

enum mc_code
mc_llm_init(struct mc_llm *l, const struct mc_conf *c, struct mc_err *err)
{
    return init_at(l, c, mc_conf_get(c, MC_SET_LLM_URL),
                   mc_conf_get(c, MC_SET_API_KEY),
                   strcmp(mc_conf_get(c, MC_SET_LLM_API), "anthropic")
                       ? MC_LLM_OPENAI
                       : MC_LLM_ANTHROPIC,
                   err);
}

enum mc_code
mc_llm_init_at(struct mc_llm *l, const struct mc_conf *c, const char *url,
               const char *key, struct mc_err *err)
{
    return init_at(l, c, url, key, MC_LLM_OPENAI, err);
}

static enum mc_code
init_at(struct mc_llm *l, const struct mc_conf *c, const char *url,
        const char *key, enum mc_llm_api api, struct mc_err *err)
{
    const char *rec = mc_conf_get(c, MC_SET_LLM_RECORD);
    const char *rep = mc_conf_get(c, MC_SET_LLM_REPLAY);
    struct mc_buf u = MC_BUF_INIT;
    size_t n = strlen(url);

    memset(l, 0, sizeof(*l));
    if (!*url && !*rep)
        return mc_err_set(err, MC_ECONFIG, "no model endpoint: set "
                          "MAXCODE_LLM_URL (or MAXCODE_LLM_REPLAY)");
    if (mc_curl_load(err))
        return MC_EIO;
    l->api = api;
    while (n && url[n - 1] == '/')
        n--;
    mc_buf_add(&u, url, n);
    if (l->api == MC_LLM_OPENAI) {
        if (n < 17 || strncmp(url + n - 17, "/chat/completions", 17))
            mc_buf_adds(&u, "/chat/completions");
    } else if (n < 12 || strncmp(url + n - 12, "/v1/messages", 12)) {
        mc_buf_adds(&u, "/v1/messages");
    }
    l->url = mc_buf_detach(&u, NULL);
    l->key = mc_strdup(key);
    l->connect_timeout_s = atof(mc_conf_get(c, MC_SET_LLM_CONNECT_TIMEOUT));
    l->timeout_s = atof(mc_conf_get(c, MC_SET_LLM_TIMEOUT));
    l->attempts = 1 + atoi(mc_conf_get(c, MC_SET_LLM_RETRIES));
    l->max_answer_tokens = atoi(mc_conf_get(c, MC_SET_LLM_MAX_TOKENS));
    l->temperature = atof(mc_conf_get(c, MC_SET_LLM_TEMPERATURE));
    l->price_in = atof(mc_conf_get(c, MC_SET_PRICE_IN));
    l->price_out = atof(mc_conf_get(c, MC_SET_PRICE_OUT));
    l->use_n = l->api == MC_LLM_OPENAI &&
               !strcmp(mc_conf_get(c, MC_SET_LLM_N), "1");
    l->record_dir = *rec ? mc_strdup(rec) : NULL;
    l->replay_dir = *rep ? mc_strdup(rep) : NULL;
    if (!l->url || !l->key || (*rec && !l->record_dir) ||
        (*rep && !l->replay_dir)) {
        mc_llm_release(l);
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    if (*l->key)
        mc_log_add_secret(l->key);
    return MC_OK;
}

void
mc_llm_release(struct mc_llm *l)
{
    size_t i;

    if (l->key)
        memset(l->key, 0, strlen(l->key));
    mc_free(l->key);
    mc_free(l->url);
    mc_free(l->record_dir);
    mc_free(l->replay_dir);
    for (i = 0; i < l->n_models; i++)
        mc_free(l->models[i].model);
    mc_free(l->models);
    memset(l, 0, sizeof(*l));
}

void
mc_llm_resp_init(struct mc_llm_resp *r)
{
    memset(r, 0, sizeof(*r));
    mc_buf_init(&r->text);
    mc_buf_init(&r->error);
    mc_strv_init(&r->extra);
    mc_buf_init(&r->logprobs);
}

void
mc_llm_resp_release(struct mc_llm_resp *r)
{
    mc_buf_release(&r->text);
    mc_buf_release(&r->error);
    mc_strv_release(&r->extra);
    mc_buf_release(&r->logprobs);
    memset(r, 0, sizeof(*r));
}

struct mc_llm_usage
mc_llm_usage_of(const struct mc_llm *l, const char *model)
{
    struct mc_llm_usage none;
    size_t i;

    for (i = 0; i < l->n_models; i++)
        if (!strcmp(l->models[i].model, model))
            return l->models[i].u;
    memset(&none, 0, sizeof(none));
    return none;
}

static void
account(struct mc_llm *l, const char *model, const struct mc_llm_resp *r)
{
    double cost = ((double)r->tokens_in * l->price_in +
                   (double)r->tokens_out * l->price_out) / 1e6;
    struct mc_llm_usage *u = NULL;
    size_t i;

    l->total.requests++;
    l->total.tokens_in += r->tokens_in;
    l->total.tokens_out += r->tokens_out;
    l->total.cost += cost;
    for (i = 0; i < l->n_models; i++)
        if (!strcmp(l->models[i].model, model))
            u = &l->models[i].u;
    if (!u) {
        struct mc_llm_model_usage *v =
            mc_realloc(l->models, (l->n_models + 1) * sizeof(*v));
        char *name = mc_strdup(model);

        if (!v || !name) {
            mc_free(name);
            if (v)
                l->models = v;
            return;
        }
        l->models = v;
        memset(&v[l->n_models], 0, sizeof(*v));
        v[l->n_models].model = name;
        u = &v[l->n_models++].u;
    }
    u->requests++;
    u->tokens_in += r->tokens_in;
    u->tokens_out += r->tokens_out;
    u->cost += cost;
}

/* ---- bodies ---- */

/* Is MODEL one of OpenAI's reasoning models ("o1", "o3-mini",
 * "o4-mini", "gpt-5", ...)? */
static int
reasoning_model(const char *model)
{
    return (model[0] == 'o' && model[1] >= '1' && model[1] <= '9' &&
            (model[2] == '\0' || model[2] == '-')) ||
           !strncmp(model, "gpt-5", 5);
}

/* TEXT with each byte that does not belong to valid UTF-8 replaced by
 * '?', into OUT: a server refuses a body that is not UTF-8, and a
 * candidate's output (in the feedback) can be anything. */
static void
utf8_clean(const char *text, struct mc_buf *out)
{
    const unsigned char *p = (const unsigned char *)text;

    while (*p) {
        size_t n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2
                               : (*p & 0xF0) == 0xE0 ? 3
                               : (*p & 0xF8) == 0xF0 ? 4 : 0;
        size_t i;

        for (i = 1; i < n; i++)
            if ((p[i] & 0xC0) != 0x80)
                n = 0;
        if (n == 2 && *p < 0xC2)
            n = 0; /* overlong */
        if (!n) {
            mc_buf_addc(out, '?');
            p++;
            continue;
        }
        mc_buf_add(out, p, n);
        p += n;
    }
}

/* The canonical request body (the same request always prints the same
 * text); the caller frees it with cJSON_free(). */
static char *
request_body(const struct mc_llm *l, const struct mc_llm_req *q)
{
    cJSON *o = cJSON_CreateObject(), *msgs, *m;
    struct mc_buf sys = MC_BUF_INIT, user = MC_BUF_INIT;
    char *text = NULL;

    utf8_clean(q->system, &sys);
    utf8_clean(q->user, &user);
    if (!o || mc_buf_status(&sys) || mc_buf_status(&user)) {
        cJSON_Delete(o);
        mc_buf_release(&sys);
        mc_buf_release(&user);
        return NULL;
    }
    cJSON_AddStringToObject(o, "model", q->model);
    if (l->api == MC_LLM_ANTHROPIC)
        cJSON_AddStringToObject(o, "system", sys.s);
    msgs = cJSON_AddArrayToObject(o, "messages");
    if (msgs && l->api == MC_LLM_OPENAI) {
        m = cJSON_CreateObject();
        if (m) {
            cJSON_AddStringToObject(m, "role", "system");
            cJSON_AddStringToObject(m, "content", sys.s);
            cJSON_AddItemToArray(msgs, m);
        }
    }
    m = msgs ? cJSON_CreateObject() : NULL;
    if (m) {
        cJSON_AddStringToObject(m, "role", "user");
        cJSON_AddStringToObject(m, "content", user.s);
        cJSON_AddItemToArray(msgs, m);
    }
    if (l->api == MC_LLM_OPENAI && reasoning_model(q->model)) {
        /* They refuse max_tokens and any temperature but their own. */
        cJSON_AddNumberToObject(o, "max_completion_tokens",
                                l->max_answer_tokens);
    } else {
        cJSON_AddNumberToObject(o, "max_tokens", l->max_answer_tokens);
        cJSON_AddNumberToObject(o, "temperature",
                                l->api == MC_LLM_ANTHROPIC
                                    ? fmin(l->temperature, 1.0)
                                    : l->temperature);
    }
    if (l->api == MC_LLM_OPENAI)
        cJSON_AddNumberToObject(o, "seed", q->seed);
    if (l->api == MC_LLM_OPENAI && q->n > 1)
        cJSON_AddNumberToObject(o, "n", q->n);
    if (l->api == MC_LLM_OPENAI && q->logprobs) {
        cJSON_AddTrueToObject(o, "logprobs");
        cJSON_AddNumberToObject(o, "top_logprobs", 10);
    }
    text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    mc_buf_release(&sys);
    mc_buf_release(&user);
    return text;
}

/* The exchange's name: the API, the request's place in the search (K
 * requests of a round can be identical: Anthropic has no seed) and its
 * canonical body. */
static void
exchange_hash(const struct mc_llm *l, const struct mc_llm_req *q,
              const char *body, char hex[MC_KEY_HEX + 1])
{
    struct mc_hash h;
    struct mc_digest d;
    char ordinal[32];

    if (mc_hash_init(&h)) {
        memset(hex, '0', MC_KEY_HEX);
        hex[MC_KEY_HEX] = '\0';
        return;
    }
    mc_hash_field_str(&h, "api", l->api == MC_LLM_OPENAI ? "openai"
                                                          : "anthropic");
    snprintf(ordinal, sizeof(ordinal), "%lu", q->ordinal);
    mc_hash_field_str(&h, "purpose", q->purpose ? q->purpose : "");
    mc_hash_field_str(&h, "ordinal", ordinal);
    mc_hash_field_str(&h, "request", body);
    mc_hash_digest(&h, &d);
    mc_digest_hex(&d, hex);
    mc_hash_release(&h);
}

/* A usage count: a number in [0, 2^53], else 0. */
static double
num_of(const cJSON *o, const char *name)
{
    return mc_json_num_or(o, name, 0, MC_JSON_INT_MAX, 0);
}

/* Member NAME of O as a string (at most an answer's size), else "". */
static const char *
str_of(const cJSON *o, const char *name)
{
    return mc_json_text(o, name, ANSWER_MAX);
}

/* Choices 2, 3, ... of CHOICES into R's extra texts. */
static void
extra_choices(const cJSON *choices, struct mc_llm_resp *r)
{
    int i, n = cJSON_GetArraySize(choices);

    mc_strv_release(&r->extra);
    mc_strv_init(&r->extra);
    r->extra_cut = 0;
    for (i = 1; i < n && i <= 32; i++) {
        const cJSON *c = cJSON_GetArrayItem(choices, i);
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(c, "message");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(msg, "content");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "finish_reason");

        if (mc_strv_push(&r->extra, cJSON_IsString(v) ? v->valuestring : ""))
            return;
        if (cJSON_IsString(f) && !strcmp(f->valuestring, "length"))
            r->extra_cut |= 1ul << (i - 1); /* i <= 32 */
    }
}

/* The first token's "top_logprobs" of the choice C0, as JSON, into R. */
static void
top_logprobs(const cJSON *c0, struct mc_llm_resp *r)
{
    const cJSON *lp = cJSON_GetObjectItemCaseSensitive(c0, "logprobs");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(lp, "content");
    const cJSON *top = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(content, 0), "top_logprobs");
    char *text;

    mc_buf_reset(&r->logprobs);
    if (!cJSON_IsArray(top) || !(text = cJSON_PrintUnformatted(top)))
        return;
    mc_buf_adds(&r->logprobs, text);
    cJSON_free(text);
}

/* Declared in llm.h (for the fuzz target), called only from here. */
int
mc_llm_parse_answer(const struct mc_llm *l, const struct mc_llm_req *q,
                    const char *body, size_t len, struct mc_llm_resp *r)
{
    cJSON *o = cJSON_ParseWithLength(body, len);
    const cJSON *usage;
    const char *stop = "";

    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return -1;
    }
    usage = mc_json_object(o, "usage");
    mc_buf_reset(&r->text);
    if (l->api == MC_LLM_OPENAI) {
        const cJSON *choices = mc_json_array(o, "choices");
        const cJSON *c0 = cJSON_GetArrayItem(choices, 0);

        if (!choices) {
            cJSON_Delete(o);
            return -1;
        }
        r->tokens_in = (unsigned long long)num_of(usage, "prompt_tokens");
        r->tokens_out =
            (unsigned long long)num_of(usage, "completion_tokens");
        mc_buf_adds(&r->text,
                    str_of(mc_json_object(c0, "message"),
                           "content"));
        stop = str_of(c0, "finish_reason");
        extra_choices(choices, r);
        if (q->logprobs)
            top_logprobs(c0, r);
    } else {
        const cJSON *content = mc_json_array(o, "content");
        const cJSON *block;

        if (!content) {
            cJSON_Delete(o);
            return -1;
        }
        r->tokens_in = (unsigned long long)num_of(usage, "input_tokens");
        r->tokens_out = (unsigned long long)num_of(usage, "output_tokens");
        cJSON_ArrayForEach(block, content)
            mc_buf_adds(&r->text, str_of(block, "text"));
        stop = str_of(o, "stop_reason");
    }
    r->truncated = !q->logprobs &&
                   (!strcmp(stop, "length") || !strcmp(stop, "max_tokens"));
    mc_buf_reset(&r->error);
    if (r->truncated)
        mc_buf_addf(&r->error, "the answer was cut at max_tokens (%d)",
                    l->max_answer_tokens);
    else if (!r->text.len)
        mc_buf_adds(&r->error, "the answer has no content");
    r->ok = !r->truncated && r->text.len > 0;
    cJSON_Delete(o);
    return 0;
}

/* ---- record and replay ---- */

static void
record(const struct mc_llm *l, const struct mc_llm_req *q, const char *hex,
       const char *body, const struct mc_buf *answer)
{
    cJSON *o = cJSON_CreateObject(), *req = cJSON_Parse(body);
    struct mc_buf path = MC_BUF_INIT;
    struct mc_err err = MC_ERR_INIT;
    char *text;

    if (!o || !req) {
        cJSON_Delete(o);
        cJSON_Delete(req);
        return;
    }
    cJSON_AddNumberToObject(o, "maxcode_exchange", 1);
    cJSON_AddStringToObject(o, "api", l->api == MC_LLM_OPENAI ? "openai"
                                                               : "anthropic");
    cJSON_AddStringToObject(o, "purpose", q->purpose ? q->purpose : "");
    cJSON_AddNumberToObject(o, "ordinal", (double)q->ordinal);
    cJSON_AddStringToObject(o, "model", q->model);
    cJSON_AddStringToObject(o, "tag", l->tag ? l->tag : "");
    cJSON_AddItemToObject(o, "request", req);
    cJSON_AddNumberToObject(o, "status", 200);
    cJSON_AddStringToObject(o, "response", answer->s);
    text = cJSON_Print(o);
    cJSON_Delete(o);
    mc_buf_addf(&path, "%s/%s.json", l->record_dir, hex);
    if (text && !mc_buf_status(&path) &&
        (mc_file_mkdirs_for(path.s, &err) ||
         mc_file_write_atomic(path.s, text, strlen(text), &err)))
        mc_info("cannot record the exchange: %s", err.msg);
    cJSON_free(text);
    mc_buf_release(&path);
}

static int
exchange_matches(const struct mc_llm *l, const cJSON *o, const char *api,
                 const struct mc_llm_req *q)
{
    const char *tag, *a, *purpose, *model;
    double ordinal;

    return !mc_json_str(o, "tag", ANSWER_MAX, &tag) &&
           !strcmp(tag, l->tag ? l->tag : "") &&
           !mc_json_str(o, "api", ANSWER_MAX, &a) && !strcmp(a, api) &&
           !mc_json_str(o, "purpose", ANSWER_MAX, &purpose) &&
           !strcmp(purpose, q->purpose) &&
           !mc_json_str(o, "model", ANSWER_MAX, &model) &&
           !strcmp(model, q->model) &&
           !mc_json_double(o, "ordinal", 0, MC_JSON_INT_MAX, &ordinal) &&
           ordinal == (double)q->ordinal;
}

/* The recorded answer for Q (hash HEX) into ANSWER: 0, or -1. */
static int
replay_find(const struct mc_llm *l, const struct mc_llm_req *q,
            const char *hex, struct mc_buf *answer)
{
    const char *api = l->api == MC_LLM_OPENAI ? "openai" : "anthropic";
    struct mc_buf path = MC_BUF_INIT, text = MC_BUF_INIT;
    const cJSON *v;
    cJSON *o = NULL;
    DIR *d;
    int found = -1;

    mc_buf_addf(&path, "%s/%s.json", l->replay_dir, hex);
    if (!mc_buf_status(&path) && mc_file_read(path.s, &text, NULL) == MC_OK)
        o = cJSON_Parse(text.s);
    if (!o && q->purpose && (d = opendir(l->replay_dir)) != NULL) {
        const struct dirent *de;

        while (!o && (de = readdir(d)) != NULL) {
            size_t n = strlen(de->d_name);

            if (n < 6 || strcmp(de->d_name + n - 5, ".json"))
                continue;
            mc_buf_reset(&path);
            mc_buf_reset(&text);
            mc_buf_addf(&path, "%s/%s", l->replay_dir, de->d_name);
            if (mc_file_read(path.s, &text, NULL))
                continue;
            o = cJSON_Parse(text.s);
            if (o && !exchange_matches(l, o, api, q)) {
                cJSON_Delete(o);
                o = NULL;
            }
        }
        closedir(d);
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "response");
    if (cJSON_IsString(v)) {
        mc_buf_adds(answer, v->valuestring);
        found = 0;
    }
    cJSON_Delete(o);
    mc_buf_release(&path);
    mc_buf_release(&text);
    return found;
}

/* ---- transfers ---- */

struct xfer {
    CURL *h;
    struct curl_slist *headers;
    char *body;
    char hex[MC_KEY_HEX + 1];
    struct mc_buf answer;
    double retry_after;   /* from the header; < 0: none */
    double next_at;       /* when to start the next attempt */
    int active, done;
    char curl_error[CURL_ERROR_SIZE];
};

static size_t
on_body(char *data, size_t size, size_t n, void *ctx)
{
    struct xfer *x = ctx;

    if (x->answer.len + size * n > ANSWER_MAX ||
        mc_buf_add(&x->answer, data, size * n))
        return 0; /* too big or no memory: the transfer fails */
    return size * n;
}

static size_t
on_header(char *data, size_t size, size_t n, void *ctx)
{
    struct xfer *x = ctx;
    size_t len = size * n;

    if (len > 12 && !strncasecmp(data, "retry-after:", 12)) {
        char value[128];
        size_t k = len - 12;
        char *end;
        double secs;

        if (k >= sizeof(value))
            k = sizeof(value) - 1;
        memcpy(value, data + 12, k);
        value[k] = '\0';
        secs = strtod(value, &end);
        if (end != value && secs >= 0) {
            x->retry_after = secs;
        } else {
            time_t when = curl_getdate(value, NULL);
            if (when > 0)
                x->retry_after = fmax(0, difftime(when, time(NULL)));
        }
    }
    return len;
}

static int
start(struct mc_llm *l, CURLM *m, struct xfer *x, struct mc_llm_resp *r)
{
    struct mc_buf auth = MC_BUF_INIT;

    x->h = curl_easy_init();
    if (!x->h)
        return -1;
    mc_buf_reset(&x->answer);
    x->retry_after = -1;
    x->curl_error[0] = '\0';
    if (!x->headers) {
        const char *lines[3];
        size_t k = 0, i;

        lines[k++] = "Content-Type: application/json";
        if (l->api == MC_LLM_ANTHROPIC) {
            lines[k++] = "anthropic-version: 2023-06-01";
            if (*l->key)
                mc_buf_addf(&auth, "x-api-key: %s", l->key);
        } else if (*l->key) {
            mc_buf_addf(&auth, "Authorization: Bearer %s", l->key);
        }
        if (auth.len)
            lines[k++] = auth.s;
        for (i = 0; i < k; i++) {
            struct curl_slist *more = curl_slist_append(x->headers, lines[i]);
            if (!more) {
                curl_slist_free_all(x->headers);
                x->headers = NULL;
                break;
            }
            x->headers = more;
        }
        if (auth.s)
            memset(auth.s, 0, auth.len);
        mc_buf_release(&auth);
        if (!x->headers) {
            curl_easy_cleanup(x->h);
            x->h = NULL;
            return -1;
        }
    }
    curl_easy_setopt(x->h, CURLOPT_URL, l->url);
    curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->headers);
    curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, x->body);
    curl_easy_setopt(x->h, CURLOPT_POSTFIELDSIZE, (long)strlen(x->body));
    curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(x->h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(x->h, CURLOPT_ERRORBUFFER, x->curl_error);
    curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(x->h, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)(l->connect_timeout_s * 1000));
    curl_easy_setopt(x->h, CURLOPT_TIMEOUT_MS, (long)(l->timeout_s * 1000));
    curl_easy_setopt(x->h, CURLOPT_USERAGENT, "maxcode/" PACKAGE_VERSION);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(x->h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(x->h, CURLOPT_PROTOCOLS,
                     (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
    if (curl_multi_add_handle(m, x->h) != CURLM_OK) {
        curl_easy_cleanup(x->h);
        x->h = NULL;
        return -1;
    }
    x->active = 1;
    r->attempts++;
    return 0;
}

/* Is a 4xx/5xx answer worth a retry? */
static int
status_retryable(long status)
{
    return status == 408 || status == 409 || status == 425 ||
           status == 429 || status >= 500;
}

static int
says_quota(const struct mc_buf *answer)
{
    return answer->s && (strstr(answer->s, "insufficient_quota") ||
                         strstr(answer->s, "quota_exceeded") ||
                         strstr(answer->s, "billing"));
}

/* The server's error message, short, for R's error. */
static void
server_message(const struct mc_buf *answer, struct mc_buf *out)
{
    cJSON *o = cJSON_ParseWithLength(answer->s, answer->len);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    const cJSON *msg = cJSON_IsObject(e)
                           ? cJSON_GetObjectItemCaseSensitive(e, "message")
                           : e;

    if (cJSON_IsString(msg)) {
        mc_buf_addf(out, ": %.160s", msg->valuestring);
        mc_log_mask_secrets(out); /* a gateway may echo the key */
    }
    cJSON_Delete(o);
}

/*
 * The attempt on X ended with RESULT: settle R, or schedule a retry.
 */
static void
finish(struct mc_llm *l, const struct mc_llm_req *q, struct xfer *x,
       CURLcode result, struct mc_llm_resp *r)
{
    long status = 0;
    int retry = 0;
    double wait;

    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
    r->status = status;
    mc_buf_reset(&r->error);
    if (result != CURLE_OK) {
        mc_buf_addf(&r->error, "%s", x->curl_error[0]
                                         ? x->curl_error
                                         : curl_easy_strerror(result));
        r->status = 0; /* no whole answer, whatever the status line */
        switch (result) {
        case CURLE_UNSUPPORTED_PROTOCOL:
        case CURLE_URL_MALFORMAT:
            r->fatal = 1;
            break;
        default:
            retry = 1;
        }
    } else if (status == 200) {
        if (mc_llm_parse_answer(l, q, x->answer.s, x->answer.len, r)) {
            mc_buf_adds(&r->error, "the answer is not the expected JSON");
            r->status = 0;
            retry = 1;
        } else {
            account(l, q->model, r);
            if (l->record_dir)
                record(l, q, x->hex, x->body, &x->answer);
        }
    } else {
        mc_buf_addf(&r->error, "HTTP %ld", status);
        server_message(&x->answer, &r->error);
        if (status == 429 && says_quota(&x->answer))
            r->fatal = 1;
        else if (status_retryable(status))
            retry = 1;
        else if (status == 401 || status == 403 || status == 404)
            r->fatal = 1;
    }
    x->active = 0;
    if (!retry || r->attempts >= l->attempts) {
        if (retry)
            mc_buf_addf(&r->error, " (after %d attempts)", r->attempts);
        x->done = 1;
        return;
    }
    wait = BACKOFF_BASE_S * pow(2, r->attempts - 1);
    if (wait > BACKOFF_CAP_S)
        wait = BACKOFF_CAP_S;
    wait *= 0.5 + 0.5 * draw();
    if (x->retry_after >= 0) {
        if (x->retry_after > RETRY_AFTER_MAX) {
            mc_buf_addf(&r->error, " (Retry-After %.0f s is too long)",
                        x->retry_after);
            x->done = 1;
            return;
        }
        wait = x->retry_after;
    }
    mc_verbose("model request: %s; retry %d in %.1f s", r->error.s,
               r->attempts, wait);
    x->next_at = mc_spawn_clock() + wait;
}

/* Answer request REQ from the recorded exchanges into R (X->done). */
static void
replay_one(struct mc_llm *l, const struct mc_llm_req *req, struct xfer *x,
           struct mc_llm_resp *r)
{
    x->done = 1;
    r->replayed = 1;
    if (replay_find(l, req, x->hex, &x->answer)) {
        mc_buf_addf(&r->error, "no recorded exchange for this request in "
                    "'%s'", l->replay_dir);
    } else if (mc_llm_parse_answer(l, req, x->answer.s, x->answer.len, r)) {
        mc_buf_adds(&r->error, "the recorded answer is not JSON");
    } else {
        r->status = 200;
        account(l, req->model, r);
    }
}

/* Start the transfers of XS[N] that are due at NOW; the earliest later
 * start into *NEXT. Transfers that cannot start are done, and *PENDING
 * counts them off. */
static void
start_due(struct mc_llm *l, CURLM *m, struct xfer *xs, size_t n,
          struct mc_llm_resp *resps, double now, double *next,
          size_t *pending)
{
    size_t i;

    for (i = 0; i < n; i++) {
        struct xfer *x = &xs[i];

        if (x->done || x->active)
            continue;
        if (x->next_at <= now) {
            if (start(l, m, x, &resps[i])) {
                mc_buf_adds(&resps[i].error, "cannot start a request");
                x->done = 1;
                (*pending)--;
            }
        } else if (x->next_at < *next) {
            *next = x->next_at;
        }
    }
}

/* Take the transfers of M that finished; *PENDING counts off those that
 * are done (not retried). */
static void
take_finished(struct mc_llm *l, CURLM *m, const struct mc_llm_req *reqs,
              struct xfer *xs, struct mc_llm_resp *resps, size_t *pending)
{
    CURLMsg *msg;
    CURLcode result;
    int left;

    while ((msg = curl_multi_info_read(m, &left)) != NULL) {
        struct xfer *x = NULL;
        size_t i;

        if (msg->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        if (!x)
            continue;
        i = (size_t)(x - xs);
        result = msg->data.result; /* gone once the handle is removed */
        curl_multi_remove_handle(m, x->h);
        finish(l, &reqs[i], x, result, &resps[i]);
        curl_easy_cleanup(x->h);
        x->h = NULL;
        if (x->done)
            (*pending)--;
    }
}

/* Drive the PENDING transfers of XS[N] on M to their ends, retries
 * included. */
static void
transfer_all(struct mc_llm *l, CURLM *m, const struct mc_llm_req *reqs,
             struct xfer *xs, size_t n, struct mc_llm_resp *resps,
             size_t pending)
{
    size_t i;

    while (pending) {
        double now = mc_spawn_clock(), next = now + 1.0;
        int running = 0, ms;

        start_due(l, m, xs, n, resps, now, &next, &pending);
        curl_multi_perform(m, &running);
        take_finished(l, m, reqs, xs, resps, &pending);
        /* A transfer rescheduled just now may be due before NEXT. */
        for (i = 0; i < n; i++)
            if (!xs[i].done && !xs[i].active && xs[i].next_at < next)
                next = xs[i].next_at;
        if (pending) {
            ms = (int)ceil((next - mc_spawn_clock()) * 1000);
            curl_multi_poll(m, NULL, 0, ms < 1 ? 1 : ms > 1000 ? 1000 : ms,
                            NULL);
        }
    }
}

void
mc_llm_run(struct mc_llm *l, const struct mc_llm_req *reqs, size_t n,
           struct mc_llm_resp *resps)
{
    struct xfer *xs = mc_calloc(n ? n : 1, sizeof(*xs));
    CURLM *m = NULL;
    size_t i, pending = 0;

    if (!xs || (!l->replay_dir && !(m = curl_multi_init()))) {
        for (i = 0; i < n; i++)
            mc_buf_adds(&resps[i].error, "out of memory");
        mc_free(xs);
        return;
    }
    for (i = 0; i < n; i++) {
        struct xfer *x = &xs[i];

        mc_buf_init(&x->answer);
        x->body = request_body(l, &reqs[i]);
        if (!x->body) {
            mc_buf_adds(&resps[i].error, "out of memory");
            x->done = 1;
            continue;
        }
        exchange_hash(l, &reqs[i], x->body, x->hex);
        if (l->replay_dir)
            replay_one(l, &reqs[i], x, &resps[i]);
        else
            pending++;
    }
    if (pending)
        transfer_all(l, m, reqs, xs, n, resps, pending);
    for (i = 0; i < n; i++) {
        if (xs[i].h) {
            curl_multi_remove_handle(m, xs[i].h);
            curl_easy_cleanup(xs[i].h);
        }
        curl_slist_free_all(xs[i].headers);
        cJSON_free(xs[i].body);
        mc_buf_release(&xs[i].answer);
    }
    if (m)
        curl_multi_cleanup(m);
    mc_free(xs);
}
