#ifndef NALU_CX264_SHIM_H
#define NALU_CX264_SHIM_H
// x264.h uses intN_t without including <stdint.h> itself.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <x264.h>

// libx264 is not linked: NALUX264 opens it with dlopen at first use (X264Library.swift) and
// calls it through these pointer types, declared from x264.h's own prototypes so they cannot
// drift. x264_encoder_open is a macro naming x264_encoder_open_<X264_BUILD>; the loader asks for
// that versioned symbol.
typedef __typeof__(x264_param_default_preset) *nalu_x264_param_default_preset_fn;
typedef __typeof__(x264_param_cleanup) *nalu_x264_param_cleanup_fn;
typedef __typeof__(x264_param_parse) *nalu_x264_param_parse_fn;
typedef __typeof__(x264_param_apply_profile) *nalu_x264_param_apply_profile_fn;
typedef __typeof__(x264_picture_init) *nalu_x264_picture_init_fn;
typedef __typeof__(x264_encoder_open) *nalu_x264_encoder_open_fn;
typedef __typeof__(x264_encoder_headers) *nalu_x264_encoder_headers_fn;
typedef __typeof__(x264_encoder_encode) *nalu_x264_encoder_encode_fn;
typedef __typeof__(x264_encoder_delayed_frames) *nalu_x264_encoder_delayed_frames_fn;
typedef __typeof__(x264_encoder_reconfig) *nalu_x264_encoder_reconfig_fn;
typedef __typeof__(x264_encoder_close) *nalu_x264_encoder_close_fn;

static inline int nalu_x264_build(void) { return X264_BUILD; }

// Log routing: x264 calls param->pf_log with a printf format and a va_list, which Swift cannot
// format; this trampoline formats the line and hands it to a Swift sink with its context.
typedef void (*nalu_log_sink)(void *context, int level, const char *message);

typedef struct nalu_log_target {
    nalu_log_sink sink;
    void *context;
} nalu_log_target;

static void nalu_x264_log_trampoline(void *priv, int level, const char *format, va_list args) {
    nalu_log_target *target = (nalu_log_target *)priv;
    if (target == NULL || target->sink == NULL || format == NULL) return;
    char line[1024];
    vsnprintf(line, sizeof line, format, args);
    target->sink(target->context, level, line);
}

// Routes x264's log lines for `param` (and the encoder opened with it) to `target`.
static inline void nalu_x264_param_set_log(x264_param_t *param, nalu_log_target *target) {
    param->pf_log = nalu_x264_log_trampoline;
    param->p_log_private = target;
}

#endif
