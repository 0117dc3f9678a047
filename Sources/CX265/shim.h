#ifndef NALU_CX265_SHIM_H
#define NALU_CX265_SHIM_H
#include <stdint.h>
#include <stdio.h>
#include <x265.h>

// libx265 is not linked: NALUX265 opens it with dlopen at first use (X265Library.swift).
// x265_api_get is a macro naming x265_api_get_<X265_BUILD>; the loader asks for that versioned
// symbol, whose table (x265_api) holds every other entry point. Its type, from x265.h's own
// prototype: the API table for a bit depth (8, 10 or 12; 0 the library's default), or NULL when
// the library (or a libx265_main10.so beside it) does not provide that depth.
typedef __typeof__(x265_api_get) *nalu_x265_api_get_fn;

static inline int nalu_x265_build(void) { return X265_BUILD; }

#endif
