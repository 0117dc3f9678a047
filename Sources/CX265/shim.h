#ifndef NALU_CX265_SHIM_H
#define NALU_CX265_SHIM_H
#include <stdint.h>
#include <stdio.h>
#include <x265.h>

// x265_encoder_open and x265_api_get are macros naming <function>_<X265_BUILD>; wrap them so
// Swift sees stable functions.
static inline x265_encoder *nalu_x265_encoder_open(x265_param *param) {
    return x265_encoder_open(param);
}

// The API table for a bit depth (8, 10 or 12), or NULL when the linked libx265 (or a
// libx265_main10.so beside it) does not provide that depth. 0 selects the linked default.
static inline const x265_api *nalu_x265_api_get(int bitDepth) {
    return x265_api_get(bitDepth);
}

static inline int nalu_x265_build(void) { return X265_BUILD; }

#endif
