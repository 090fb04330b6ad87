/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-llm.c: reading the model's answer. The parser of an answer's JSON
 * (OpenAI chat completions and Anthropic messages) is static in llm.c;
 * it is reached here without a network through MAXCODE_LLM_REPLAY: each
 * case writes a recorded exchange whose "response" is the answer body,
 * and mc_llm_run() parses it as it would a live 200. Then the code is
 * taken out of the answer's text with mc_prompt_extract(), as the
 * proposer does.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "conf.h"
#include "file.h"
#include "llm.h"
#include "prompt.h"
#include "tap.h"

#include <cjson/cJSON.h>

static char dir[] = "/tmp/mc-llm-XXXXXX";

/* Record, for API, the exchange of request ORDINAL (purpose "propose",
 * model "m") answered by BODY. */
static void
record(const char *api, unsigned long ordinal, const char *body)
{
    cJSON *o = cJSON_CreateObject();
    char path[PATH_MAX], *text;

    cJSON_AddNumberToObject(o, "maxcode_exchange", 1);
    cJSON_AddStringToObject(o, "api", api);
    cJSON_AddStringToObject(o, "purpose", "propose");
    cJSON_AddNumberToObject(o, "ordinal", (double)ordinal);
    cJSON_AddStringToObject(o, "model", "m");
    cJSON_AddStringToObject(o, "tag", "");
    cJSON_AddObjectToObject(o, "request");
    cJSON_AddNumberToObject(o, "status", 200);
    cJSON_AddStringToObject(o, "response", body);
    text = cJSON_Print(o);
    snprintf(path, sizeof(path), "%s/%s-%lu.json", dir, api, ordinal);
    if (!text || mc_file_write_atomic(path, text, strlen(text), NULL))
        printf("# cannot write %s\n", path);
    cJSON_free(text);
    cJSON_Delete(o);
}

/* Set L up for API, replaying from the scratch directory. */
static int
llm_for(struct mc_llm *l, const char *api)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;
    enum mc_code rc;

    mc_conf_init(&c, NULL);
    rc = mc_conf_set(&c, MC_SET_LLM_REPLAY, dir, MC_FROM_ARG, "test", &err);
    if (!rc)
        rc = mc_conf_set(&c, MC_SET_LLM_API, api, MC_FROM_ARG, "test", &err);
    if (!rc)
        rc = mc_conf_set(&c, MC_SET_LLM_MAX_TOKENS, "100", MC_FROM_ARG,
                         "test", &err);
    if (!rc)
        rc = mc_llm_init(l, &c, &err);
    mc_conf_release(&c);
    if (rc)
        printf("# %s\n", err.msg);
    return rc == MC_OK;
}

/* Ask L request ORDINAL; the answer goes to R (initialised here). */
static void
ask(struct mc_llm *l, unsigned long ordinal, struct mc_llm_resp *r)
{
    struct mc_llm_req q;

    memset(&q, 0, sizeof(q));
    q.model = "m";
    q.system = "system";
    q.user = "user";
    q.purpose = "propose";
    q.ordinal = ordinal;
    mc_llm_resp_init(r);
    mc_llm_run(l, &q, 1, r);
}

static void
test_llm__openai_answer(void)
{
    struct mc_llm l;
    struct mc_llm_resp r;
    struct mc_llm_usage u;

    record("openai", 1, "{\"choices\":[{\"message\":{\"role\":\"assistant\","
                        "\"content\":\"int f(void);\"},\"finish_reason\":"
                        "\"stop\"}],\"usage\":{\"prompt_tokens\":12,"
                        "\"completion_tokens\":5}}");
    if (!ok(llm_for(&l, "openai"), "a replaying client"))
        return;
    ask(&l, 1, &r);
    ok(r.ok && r.replayed && r.status == 200, "an answer is usable");
    is_str(r.text.s, "int f(void);", "its text is choice 0's content");
    ok(r.tokens_in == 12 && r.tokens_out == 5, "usage is read");
    is_long(r.extra.n, 0, "one choice, no extra texts");
    u = mc_llm_usage_of(&l, "m");
    ok(u.requests == 1 && u.tokens_in == 12 && u.tokens_out == 5,
       "and counted for the model");
    mc_llm_resp_release(&r);
    mc_llm_release(&l);
}

static void
test_llm__openai_edge_cases(void)
{
    struct mc_llm l;
    struct mc_llm_resp r;

    record("openai", 2, "{\"choices\":[{\"message\":{\"content\":\"int f\"},"
                        "\"finish_reason\":\"length\"}]}");
    record("openai", 3, "{\"choices\":[{\"message\":{\"content\":\"\"},"
                        "\"finish_reason\":\"stop\"}]}");
    record("openai", 4, "{\"choices\":[{\"message\":{\"content\":null}}],"
                        "\"usage\":{\"prompt_tokens\":-3,"
                        "\"completion_tokens\":1e300}}");
    record("openai", 5, "{\"id\":\"x\",\"object\":\"chat.completion\"}");
    record("openai", 6, "not json at all");
    record("openai", 7, "[1, 2]");
    record("openai", 8,
           "{\"choices\":[{\"message\":{\"content\":\"one\"}},"
           "{\"message\":{\"content\":\"two\"},\"finish_reason\":\"length\"},"
           "{\"message\":{}},{\"message\":{\"content\":\"four\"}}]}");
    record("openai", 9, "{\"choices\":[]}");
    if (!ok(llm_for(&l, "openai"), "a replaying client"))
        return;
    ask(&l, 2, &r);
    ok(r.truncated && !r.ok, "finish_reason length: cut, not usable");
    is_str(r.error.s, "the answer was cut at max_tokens (100)",
           "and says at how many tokens");
    mc_llm_resp_release(&r);
    ask(&l, 3, &r);
    ok(!r.ok && !r.truncated, "an empty content is not usable");
    is_str(r.error.s, "the answer has no content", "and says so");
    mc_llm_resp_release(&r);
    ask(&l, 4, &r);
    ok(!r.ok, "a null content is no content");
    ok(r.tokens_in == 0 && r.tokens_out == 0,
       "negative and absurd usage counts read as 0");
    mc_llm_resp_release(&r);
    ask(&l, 5, &r);
    ok(!r.ok && r.status == 0, "an object without choices is no answer");
    is_str(r.error.s, "the recorded answer is not JSON",
           "(not the expected JSON)");
    mc_llm_resp_release(&r);
    ask(&l, 6, &r);
    ok(!r.ok, "text that is not JSON is no answer");
    is_str(r.error.s, "the recorded answer is not JSON", "and says so");
    mc_llm_resp_release(&r);
    ask(&l, 7, &r);
    ok(!r.ok, "a JSON array is no answer");
    mc_llm_resp_release(&r);
    ask(&l, 8, &r);
    ok(r.ok, "several choices: the first is the answer");
    is_str(r.text.s, "one", "its text");
    is_long(r.extra.n, 3, "the others are extra texts");
    ok(r.extra.n == 3 && !strcmp(r.extra.v[0], "two") &&
           !strcmp(r.extra.v[1], "") && !strcmp(r.extra.v[2], "four"),
       "in order, a missing content as empty");
    is_long(r.extra_cut, 1, "bit 0: the second choice was cut");
    mc_llm_resp_release(&r);
    ask(&l, 9, &r);
    ok(!r.ok && !r.truncated, "no choice at all is no content");
    is_str(r.error.s, "the answer has no content", "and says so");
    mc_llm_resp_release(&r);
    ask(&l, 99, &r);
    ok(!r.ok, "a request never recorded");
    contains(r.error.s, "no recorded exchange for this request",
             "says that none was recorded");
    mc_llm_resp_release(&r);
    is_long(mc_llm_usage_of(&l, "m").requests, 5,
            "usage counts the answers that parsed, usable or not");
    mc_llm_release(&l);
}

static void
test_llm__anthropic_answer(void)
{
    struct mc_llm l;
    struct mc_llm_resp r;

    record("anthropic", 1,
           "{\"content\":[{\"type\":\"text\",\"text\":\"int \"},"
           "{\"type\":\"tool_use\",\"id\":\"t\"},"
           "{\"type\":\"text\",\"text\":\"g;\"}],\"stop_reason\":"
           "\"end_turn\",\"usage\":{\"input_tokens\":7,"
           "\"output_tokens\":3}}");
    record("anthropic", 2, "{\"content\":[{\"type\":\"text\",\"text\":"
                           "\"int\"}],\"stop_reason\":\"max_tokens\"}");
    record("anthropic", 3, "{\"type\":\"error\",\"error\":{\"type\":"
                           "\"overloaded_error\"}}");
    if (!ok(llm_for(&l, "anthropic"), "a replaying Anthropic client"))
        return;
    ask(&l, 1, &r);
    ok(r.ok, "an Anthropic answer is usable");
    is_str(r.text.s, "int g;", "its text blocks are joined, others skipped");
    ok(r.tokens_in == 7 && r.tokens_out == 3, "usage is read");
    mc_llm_resp_release(&r);
    ask(&l, 2, &r);
    ok(r.truncated && !r.ok, "stop_reason max_tokens: cut");
    mc_llm_resp_release(&r);
    ask(&l, 3, &r);
    ok(!r.ok && r.status == 0, "an object without content is no answer");
    mc_llm_resp_release(&r);
    mc_llm_release(&l);
}

static void
test_llm__answer_to_code(void)
{
    static const char orig[] = "int f(int x) { return x; }\n";
    struct mc_buf code = MC_BUF_INIT, why = MC_BUF_INIT;
    struct mc_llm l;
    struct mc_llm_resp r;

    record("openai", 20,
           "{\"choices\":[{\"message\":{\"content\":\"Here it is:\\n\\n"
           "```c\\nint f(int x) { return x + 0; }\\n```\\n\\nFaster.\"},"
           "\"finish_reason\":\"stop\"}]}");
    record("openai", 21, "{\"choices\":[{\"message\":{\"content\":"
                         "\"I cannot improve this.\"}}]}");
    if (!ok(llm_for(&l, "openai"), "a replaying client"))
        return;
    ask(&l, 20, &r);
    is_long(mc_prompt_extract(r.text.s, orig, sizeof(orig) - 1, &code, &why),
            0, "the code of a replayed answer is found");
    is_str(code.s, "int f(int x) { return x + 0; }\n",
           "the fenced block, without the prose");
    mc_llm_resp_release(&r);
    mc_buf_reset(&code);
    ask(&l, 21, &r);
    is_long(mc_prompt_extract(r.text.s, orig, sizeof(orig) - 1, &code, &why),
            -1, "an answer of prose alone has no code");
    ok(why.len > 0, "and the reason is given");
    mc_llm_resp_release(&r);
    mc_llm_release(&l);
    mc_buf_release(&code);
    mc_buf_release(&why);
}

int
main(void)
{
    char cmd[64];

    if (!mkdtemp(dir)) {
        printf("Bail out! cannot make a scratch directory\n");
        return 1;
    }
    TAP_RUN(test_llm__openai_answer);
    TAP_RUN(test_llm__openai_edge_cases);
    TAP_RUN(test_llm__anthropic_answer);
    TAP_RUN(test_llm__answer_to_code);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
