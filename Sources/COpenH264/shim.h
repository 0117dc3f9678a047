#ifndef NALU_COPENH264_SHIM_H
#define NALU_COPENH264_SHIM_H
// OpenH264's C interface is a table of function pointers (ISVCEncoder is `const ISVCEncoderVtbl *`,
// each call takes the encoder as its first argument). These wrappers give Swift plain functions.
#include <stdbool.h>
#include <wels/codec_api.h>

// libopenh264 is not linked: NALUOpenH264 opens it with dlopen at first use (OpenH264Library.swift)
// and resolves its three exported functions as these pointer types (from codec_api.h's own
// prototypes); everything else goes through the encoder's table, below.
typedef __typeof__(WelsCreateSVCEncoder) *nalu_oh264_create_fn;
typedef __typeof__(WelsDestroySVCEncoder) *nalu_oh264_destroy_fn;
typedef __typeof__(WelsGetCodecVersion) *nalu_oh264_version_fn;

static inline int nalu_oh264_default_params(ISVCEncoder *encoder, SEncParamExt *param) {
    return (*encoder)->GetDefaultParams(encoder, param);
}
static inline int nalu_oh264_initialize(ISVCEncoder *encoder, const SEncParamExt *param) {
    return (*encoder)->InitializeExt(encoder, param);
}
static inline int nalu_oh264_uninitialize(ISVCEncoder *encoder) { return (*encoder)->Uninitialize(encoder); }

static inline int nalu_oh264_encode_frame(ISVCEncoder *encoder, const SSourcePicture *picture, SFrameBSInfo *info) {
    return (*encoder)->EncodeFrame(encoder, picture, info);
}
static inline int nalu_oh264_encode_parameter_sets(ISVCEncoder *encoder, SFrameBSInfo *info) {
    return (*encoder)->EncodeParameterSets(encoder, info);
}
static inline int nalu_oh264_force_idr(ISVCEncoder *encoder) { return (*encoder)->ForceIntraFrame(encoder, true); }

// ENCODER_OPTION_BITRATE for every spatial layer (bits per second).
static inline int nalu_oh264_set_bitrate(ISVCEncoder *encoder, int bitsPerSecond, bool maximum) {
    SBitrateInfo info;
    info.iLayer = SPATIAL_LAYER_ALL;
    info.iBitrate = bitsPerSecond;
    return (*encoder)->SetOption(encoder, maximum ? ENCODER_OPTION_MAX_BITRATE : ENCODER_OPTION_BITRATE, &info);
}

// Log routing: OpenH264 calls `callback(context, level, message)` with a formatted line.
static inline int nalu_oh264_set_log(ISVCEncoder *encoder, int level, WelsTraceCallback callback, void *context) {
    int status = (*encoder)->SetOption(encoder, ENCODER_OPTION_TRACE_LEVEL, &level);
    if (status != 0) return status;
    status = (*encoder)->SetOption(encoder, ENCODER_OPTION_TRACE_CALLBACK_CONTEXT, &context);
    if (status != 0) return status;
    return (*encoder)->SetOption(encoder, ENCODER_OPTION_TRACE_CALLBACK, &callback);
}

#endif
