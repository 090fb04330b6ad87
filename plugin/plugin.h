/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plugin.h: what maxcode.so exports to GNU make. Only these three symbols
 * are visible (see plugin/maxcode.sym):
 *   plugin_is_GPL_compatible   make refuses to load a plugin without it
 *   maxcode_gmk_setup          called by `load`; registers the functions
 *   maxcode_gmk_unload         called by make >= 4.4 before it unloads us
 * The setup signature differs between make 4.3 (floc only) and 4.4
 * (ABI version and floc); GMK_ABI_VERSION tells which header we have.
 */
#ifndef MC_PLUGIN_H
#define MC_PLUGIN_H

#include <gnumake.h>

extern MC_EXPORT int plugin_is_GPL_compatible;

#ifdef GMK_ABI_VERSION
MC_EXPORT int maxcode_gmk_setup(unsigned int abi, const gmk_floc *floc);
#else
MC_EXPORT int maxcode_gmk_setup(const gmk_floc *floc);
#endif

MC_EXPORT void maxcode_gmk_unload(void);

#endif /* MC_PLUGIN_H */
