/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * le.h: little-endian integers in byte buffers, for the file formats
 * (cache entries, archives; internals/cache.md).
 */
#ifndef MC_LE_H
#define MC_LE_H

#include <stdint.h>
#include <string.h>

/* On a little-endian machine one store (a key frames some 30 fields
 * with them); elsewhere byte by byte. */
static inline void
mc_le_put32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 4);
#else
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
#endif
}

static inline void
mc_le_put64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    mc_le_put32(p, (uint32_t)v);
    mc_le_put32(p + 4, (uint32_t)(v >> 32));
#endif
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
