#ifndef NALU_CX264_SHIM_H
#define NALU_CX264_SHIM_H
// x264.h uses intN_t without including <stdint.h> itself.
#include <stdint.h>
#include <x264.h>

// x264_encoder_open is a macro naming x264_encoder_open_<X264_BUILD>; wrap it so Swift sees one
// stable function.
static inline x264_t *nalu_x264_encoder_open(x264_param_t *param) {
    return x264_encoder_open(param);
}

static inline int nalu_x264_build(void) { return X264_BUILD; }

#endif
