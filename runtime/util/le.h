/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * le.h: little-endian integers in byte buffers, for the file formats
 * (cache entries, archives; internals/cache.md).
 */
#ifndef MC_LE_H
#define MC_LE_H

#include <stdint.h>

static inline void
mc_le_put32(uint8_t *p, uint32_t v)
{
    int i;

    for (i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void
mc_le_put64(uint8_t *p, uint64_t v)
{
    int i;

    for (i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t
mc_le_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static inline uint64_t
mc_le_get64(const uint8_t *p)
{
    uint64_t v = 0;
    int i;

    for (i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

#endif /* MC_LE_H */
