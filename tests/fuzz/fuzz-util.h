/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-util.h: what several fuzz targets share (each target is one .c
 * file; this header is included by those that read their input from a
 * file).
 */
#ifndef MC_FUZZ_UTIL_H
#define MC_FUZZ_UTIL_H

/* Write DATA (SIZE bytes) to a scratch file made once per process, and
 * return its path; abort on failure. */
static const char *
fuzz_input_file(const uint8_t *data, size_t size)
{
    static char path[] = "/tmp/mc-fuzz-input-XXXXXX";
    static int fd = -1;
    FILE *f;

    if (fd < 0 && (fd = mkstemp(path)) < 0)
        abort();
    f = fopen(path, "w");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
    return path;
}

#endif /* MC_FUZZ_UTIL_H */
