/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-journal.c: a libFuzzer target for the search journal's reader,
 * mc_journal_read(). The input is written to a scratch journal and read
 * for the search {key "k", strategy "beam", proposer "llm", budget 8}
 * (an input such as
 *   {"maxcode_journal":1,"key":"k","strategy":"beam","budget":8,
 *    "proposer":"llm"}
 *   {"parent":-1,"depth":1,"verdict":"faster","speedup":1.5,"code":"x"}
 * reaches the nodes and their usage). Nothing may crash, leak or read
 * out of bounds; a journal of another search gives no node; every node
 * read names an earlier node or the original as its parent, and there
 * are at most as many as asked for.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "fuzz-util.h"
#include "journal.h"

#define MAX_NODES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct mc_journal_head h = {"k", "beam", "llm", 8};
    const char *path = fuzz_input_file(data, size);
    struct mc_err err = MC_ERR_INIT;
    struct mc_journal_log log;
    enum mc_code rc;
    size_t i;

    mc_journal_log_init(&log);
    rc = mc_journal_read(path, &h, MAX_NODES, &log, &err);
    if (rc != MC_OK && (err.code != rc || !err.msg[0]))
        abort();
    if (rc == MC_OK && ((!log.matched && log.n) || log.n > MAX_NODES))
        abort();
    for (i = 0; rc == MC_OK && i < log.n; i++) {
        const struct mc_search_node *nd = &log.nodes[i];

        if (nd->parent < -1 || nd->parent >= (int)i || !nd->label ||
            !nd->detail || !nd->critique || !nd->code.s)
            abort();
    }
    mc_journal_log_release(&log);
    return 0;
}
