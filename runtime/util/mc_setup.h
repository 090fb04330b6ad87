/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mc_setup.h: the first include of every maxcode .c file. It pulls in
 * config.h and the system headers in a fixed order, so that feature macros
 * (_GNU_SOURCE, large files) are set before any system header is seen.
 * Nothing else includes config.h.
 */
#ifndef MC_SETUP_H
#define MC_SETUP_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Symbols the plugin exports to make; everything else is hidden. */
#define MC_EXPORT __attribute__((visibility("default")))

#define MC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define MC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define MC_VPRINTF(fmt)      __attribute__((format(printf, fmt, 0)))
#define MC_UNUSED            __attribute__((unused))
#else
#define MC_PRINTF(fmt, args)
#define MC_VPRINTF(fmt)
#define MC_UNUSED
#endif

/* A large buffer on the hit path that is written before it is read,
 * left out of -ftrivial-auto-var-init (--enable-harden's pattern): the
 * filling is per byte, and a hit would fill some 10 KiB of stack with
 * it, a third of what the hit cost in instructions. */
#if defined(__has_attribute)
#if __has_attribute(uninitialized)
#define MC_NOINIT __attribute__((uninitialized))
#endif
#endif
#ifndef MC_NOINIT
#define MC_NOINIT
#endif

#endif /* MC_SETUP_H */
