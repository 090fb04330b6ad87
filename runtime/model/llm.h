/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * llm.h: clients for model endpoints, OpenAI chat completions (also
 * vLLM, llama.cpp's server, Ollama) and Anthropic messages, on libcurl's
 * multi interface. A batch of requests is in flight together; each is
 * retried on its own.
 *
 * Retries: connection errors, timeouts, a reset or short read, a 200
 * whose body is not JSON, and HTTP 408, 409, 425, 429, 5xx and 529 are
 * retried with exponential backoff and full jitter (0.5 s, 1 s, 2 s, ...
 * capped at 30 s, each drawn between half and all of it), or after the
 * Retry-After the server sent (seconds or an HTTP date; more than 300 s
 * is not waited for). 400, 401, 403, 404 and any other 4xx, and a 429
 * that says the quota is spent, are never retried; 401, 403, 404, a
 * quota error and a bad URL are fatal: no later request can succeed.
 *
 * Usage: tokens in and out are counted per model from each answer's
 * usage block; the cost is tokens times MAXCODE_PRICE_IN / _OUT (per
 * million tokens).
 *
 * Record and replay: with MAXCODE_LLM_RECORD=DIR each answered exchange
 * is stored as DIR/<hash>.json, the hash (XXH3-128) being over the API,
 * the purpose, the ordinal and the canonical request body (never the
 * key):
 *   exchange = {"maxcode_exchange":1, "api":A, "purpose":P,
 *               "ordinal":N, "model":M, "tag":T, "request":BODY,
 *               "status":200, "response":TEXT}
 * With MAXCODE_LLM_REPLAY=DIR no request goes to the network: the answer
 * is the exchange with the same hash, or else the one with the same api,
 * purpose, ordinal, model and tag (the search's cache key: a request
 * whose prompt carries measured timings differs from run to run), or
 * else an error.
 *
 * Bodies: OpenAI {"model","messages":[system,user],"max_tokens",
 * "temperature","seed"[,"n"]}, except that OpenAI's reasoning models (o1, o3,
 * o4, gpt-5 names) get "max_completion_tokens" and no temperature;
 * Anthropic {"model","system","messages":[user],"max_tokens",
 * "temperature"} with the temperature capped at 1.
 *
 * The API key goes only into the request header; it is never logged,
 * recorded or put in an error message.
 */
#ifndef MC_LLM_H
#define MC_LLM_H

#include "buf.h"
#include "conf.h"
#include "status.h"
#include "strv.h"

enum mc_llm_api { MC_LLM_OPENAI, MC_LLM_ANTHROPIC };

struct mc_llm_usage {
    unsigned long long requests, tokens_in, tokens_out;
    double cost;
};

struct mc_llm_model_usage {
    char *model;
    struct mc_llm_usage u;
};

struct mc_llm {
    enum mc_llm_api api;
    char *url;                  /* the endpoint, path included */
    char *key;                  /* secret; "" when none */
    double connect_timeout_s;   /* per attempt */
    double timeout_s;           /* per attempt, whole exchange */
    int attempts;               /* most tries per request */
    int max_answer_tokens;      /* max_tokens of each request */
    double temperature;
    double price_in, price_out; /* per million tokens */
    char *record_dir, *replay_dir; /* NULL when off */
    const char *tag;            /* the search's key, recorded; or NULL */
    int use_n;                  /* MAXCODE_LLM_N=1 and the OpenAI API */
    struct mc_llm_usage total;
    struct mc_llm_model_usage *models;
    size_t n_models;
};

/* One request: a system prompt and one user message. */
struct mc_llm_req {
    const char *model;
    const char *system;
    const char *user;
    unsigned seed;         /* sent as "seed" (OpenAI) */
    unsigned n;            /* choices wanted (OpenAI "n"); 0 or 1: one */
    const char *purpose;   /* "propose", "critique": for replay */
    unsigned long ordinal; /* its place in the search: for replay */
    int logprobs;          /* OpenAI: ask for the first token's top
                            * logprobs ("logprobs", "top_logprobs": 10);
                            * an answer cut at max_tokens is then ok */
};

struct mc_llm_resp {
    int ok;                /* TEXT is the model's answer */
    int truncated;         /* it stopped at max_tokens (ok is 0) */
    int fatal;             /* no later request can succeed either */
    int replayed;          /* answered from MAXCODE_LLM_REPLAY */
    int attempts;
    long status;           /* HTTP status of the last attempt, 0: none */
    unsigned long long tokens_in, tokens_out;
    struct mc_buf text;
    struct mc_buf error;   /* why not ok */
    struct mc_strv extra;  /* the texts of choices 2, 3, ... (n > 1) */
    unsigned long extra_cut; /* bit J: extra choice J stopped at max_tokens */
    struct mc_buf logprobs; /* with LOGPROBS: the first choice's first
                             * token's "top_logprobs" array (JSON), or
                             * empty when the answer has none */
};

/*
 * Set L up from the settings in C: MAXCODE_LLM_URL (with /chat/completions
 * or /v1/messages added), MAXCODE_LLM_API, the key, timeouts, retries,
 * prices, record and replay. MC_ECONFIG when no URL is set and no replay
 * directory either. Release with mc_llm_release().
 */
enum mc_code mc_llm_init(struct mc_llm *l, const struct mc_conf *c,
                         struct mc_err *err);

/* mc_llm_init() for the endpoint URL (the OpenAI API, whatever
 * MAXCODE_LLM_API says; /chat/completions added) instead of
 * MAXCODE_LLM_URL, sending KEY ("": none) instead of MAXCODE_API_KEY:
 * a served value model's, on a host of its own that must not see the
 * policy's key. */
enum mc_code mc_llm_init_at(struct mc_llm *l, const struct mc_conf *c,
                            const char *url, const char *key,
                            struct mc_err *err);
void mc_llm_release(struct mc_llm *l);

void mc_llm_resp_init(struct mc_llm_resp *r);
void mc_llm_resp_release(struct mc_llm_resp *r);

/*
 * Send the N requests REQS together and wait for all of them, retrying
 * each as the header says. RESPS (N of them, initialised by the caller)
 * get the answers; usage is added to L's totals. Never fails as a
 * whole: each response says how it ended.
 */
void mc_llm_run(struct mc_llm *l, const struct mc_llm_req *reqs, size_t n,
                struct mc_llm_resp *resps);

/*
 * Read the answer BODY (LEN bytes) of a 200 to request Q into R, as L's
 * API shapes it (L's api and max_answer_tokens are all it reads).
 * Returns 0 when the body is an answer (usable or not: R says), -1 when
 * it is not JSON of the expected shape (worth a retry). Internal: only
 * mc_llm_run() and the fuzz target tests/fuzz/fuzz-llm.c call it.
 */
int mc_llm_parse_answer(const struct mc_llm *l, const struct mc_llm_req *q,
                        const char *body, size_t len,
                        struct mc_llm_resp *r);

/* The usage of MODEL (zeros when it has none). */
struct mc_llm_usage mc_llm_usage_of(const struct mc_llm *l,
                                    const char *model);

#endif /* MC_LLM_H */
