/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-llm.c: a libFuzzer target for the readers of model answers, the
 * body of a 200 from an OpenAI chat completions endpoint or Anthropic's
 * messages endpoint (mc_llm_parse_answer()). The first byte of the input
 * chooses the API (bit 0: Anthropic) and whether logprobs were asked for
 * (bit 1); the rest is the body (an input such as
 *   \0{"choices":[{"message":{"content":"int x;"},"finish_reason":"stop"}],
 *     "usage":{"prompt_tokens":10,"completion_tokens":5}}
 * reaches the OpenAI reader). Nothing may crash, leak or read out of
 * bounds; an answer read is usable exactly when it has text and was not
 * cut, says why when it is not, and has token counts within 2^53 and at
 * most 32 extra choices.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mc_llm l;
    struct mc_llm_req q;
    struct mc_llm_resp r;
    int rc;

    if (!size)
        return 0;
    memset(&l, 0, sizeof(l));
    memset(&q, 0, sizeof(q));
    l.api = data[0] & 1 ? MC_LLM_ANTHROPIC : MC_LLM_OPENAI;
    l.max_answer_tokens = 4096;
    q.model = "m";
    q.logprobs = !!(data[0] & 2);
    mc_llm_resp_init(&r);
    rc = mc_llm_parse_answer(&l, &q, (const char *)data + 1, size - 1, &r);
    if (rc != 0 && rc != -1)
        abort();
    if (!rc && (r.ok != (!r.truncated && r.text.len > 0) ||
                (!r.ok && !r.error.len) || r.tokens_in > (1ull << 53) ||
                r.tokens_out > (1ull << 53) || r.extra.n > 32 ||
                (r.truncated && q.logprobs)))
        abort();
    mc_llm_resp_release(&r);
    return 0;
}
