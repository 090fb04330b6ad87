/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * testfs.h: the file helpers the C unit tests share: write a small file,
 * and remove a scratch tree (through nftw() with remove_one()).
 */
#ifndef MC_TESTFS_H
#define MC_TESTFS_H

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

/* Write TEXT to PATH; a failure is a TAP comment (the checks after it
 * fail on their own). */
static void MC_UNUSED
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (!f) {
        printf("# cannot write %s\n", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

/* nftw() callback that removes each entry (with FTW_DEPTH). */
static int MC_UNUSED
remove_one(const char *path, const struct stat *st, int flag,
           struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

#endif /* MC_TESTFS_H */
