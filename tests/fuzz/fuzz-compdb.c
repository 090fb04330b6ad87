/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-compdb.c: a libFuzzer target for the compile_commands.json reader.
 * The input is written to compile_commands.json in a scratch directory
 * (made once, and the current directory from then on) that holds a.c,
 * and a.c's entry is looked up with mc_compdb_find(); an input such as
 *   [{"directory": ".", "file": "a.c", "command": "cc -I x -c a.c"}]
 * reaches the flag cleaning. Nothing may crash, leak or read out of
 * bounds; a failure must carry its code and a message naming the DB; a
 * found entry must be complete and free of "-c", "-MD" and "-MMD" (other
 * than as the argument of an option that keeps its next word, such as
 * "-I" or "-U": mc_compdb_keeps_next()).
 *
 *   clang -fsanitize=fuzzer,address,undefined -DHAVE_CONFIG_H -I . \
 *       -I runtime $(pkg-config --cflags libcjson) \
 *       tests/fuzz/fuzz-compdb.c runtime/core/compdb.c runtime/util/strv.c \
 *       runtime/util/buf.c runtime/util/alloc.c runtime/util/status.c \
 *       $(pkg-config --libs libcjson) -o fuzz-compdb
 *   ./fuzz-compdb "$PWD/corpus"   # absolute: the target changes directory
 */
#include "mc_setup.h"
#include "compdb.h"

#define DB "compile_commands.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Make the scratch directory with a.c in it, and enter it. */
static int
setup(void)
{
    static int done;
    char tmpl[] = "/tmp/mc-fuzz-compdb-XXXXXX";
    FILE *f;

    if (done)
        return 0;
    if (!mkdtemp(tmpl) || chdir(tmpl))
        return -1;
    f = fopen("a.c", "w");
    if (!f)
        return -1;
    fputs("int a;\n", f);
    fclose(f);
    done = 1;
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mc_compdb_entry e = MC_COMPDB_ENTRY_INIT;
    struct mc_err err = MC_ERR_INIT;
    enum mc_code rc;
    int found = -1;
    size_t i;
    FILE *f;

    if (setup())
        abort();
    f = fopen(DB, "w");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
    rc = mc_compdb_find(DB, "a.c", &e, &found, &err);
    if (rc != MC_OK) {
        if (err.code != rc || found != 0 || e.compiler || e.flags.n)
            abort();
        if (rc == MC_ESYNTAX && !strstr(err.msg, "'" DB "'"))
            abort();
        return 0;
    }
    if (found != 0 && found != 1)
        abort();
    if (!found) {
        if (e.compiler || e.directory || e.flags.n)
            abort();
        return 0;
    }
    if (!e.compiler || !e.directory || (e.flags.n && !e.flags.v))
        abort();
    for (i = 0; i < e.flags.n; i++) {
        const char *s = e.flags.v[i];

        if (i && mc_compdb_keeps_next(e.flags.v[i - 1]))
            continue;
        if (!strcmp(s, "-c") || !strcmp(s, "-MD") || !strcmp(s, "-MMD"))
            abort();
    }
    mc_compdb_entry_release(&e);
    return 0;
}
