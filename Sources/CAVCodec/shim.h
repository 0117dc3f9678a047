#ifndef NALU_CAVCODEC_SHIM_H
#define NALU_CAVCODEC_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/error.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>

// libavcodec and libavutil are not linked: NALUAVCodec opens them with dlopen at first use
// (AVCodecLibrary.swift) and calls them through these pointer types, declared from the headers'
// own prototypes so they cannot drift.
typedef __typeof__(avcodec_version) *nalu_avcodec_version_fn;
typedef __typeof__(avcodec_find_decoder) *nalu_avcodec_find_decoder_fn;
typedef __typeof__(avcodec_alloc_context3) *nalu_avcodec_alloc_context3_fn;
typedef __typeof__(avcodec_open2) *nalu_avcodec_open2_fn;
typedef __typeof__(avcodec_free_context) *nalu_avcodec_free_context_fn;
typedef __typeof__(avcodec_send_packet) *nalu_avcodec_send_packet_fn;
typedef __typeof__(avcodec_receive_frame) *nalu_avcodec_receive_frame_fn;
typedef __typeof__(av_packet_alloc) *nalu_av_packet_alloc_fn;
typedef __typeof__(av_packet_free) *nalu_av_packet_free_fn;
typedef __typeof__(av_frame_alloc) *nalu_av_frame_alloc_fn;
typedef __typeof__(av_frame_free) *nalu_av_frame_free_fn;
typedef __typeof__(av_frame_unref) *nalu_av_frame_unref_fn;
typedef __typeof__(av_log_set_callback) *nalu_av_log_set_callback_fn;
typedef __typeof__(av_strerror) *nalu_av_strerror_fn;
// libswscale (libswscale-dev), opened at first use too (FrameScaler.swift).
typedef __typeof__(sws_getContext) *nalu_sws_getContext_fn;
typedef __typeof__(sws_scale) *nalu_sws_scale_fn;
typedef __typeof__(sws_freeContext) *nalu_sws_freeContext_fn;
static inline unsigned nalu_libswscale_major(void) { return LIBSWSCALE_VERSION_MAJOR; }
static inline int nalu_sws_bicubic(void) { return SWS_BICUBIC; }

// The AVERROR macros, which Swift cannot import.
static inline int nalu_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int nalu_averror_eof(void) { return AVERROR_EOF; }
static inline int nalu_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int nalu_av_log_error(void) { return AV_LOG_ERROR; }
static inline unsigned nalu_libavcodec_major(void) { return LIBAVCODEC_VERSION_MAJOR; }
static inline unsigned nalu_libavutil_major(void) { return LIBAVUTIL_VERSION_MAJOR; }
static inline int nalu_ff_thread_frame_slice(void) { return FF_THREAD_FRAME | FF_THREAD_SLICE; }
static inline int nalu_frame_is_corrupt(const AVFrame *frame) {
    return (frame->flags & AV_FRAME_FLAG_CORRUPT) != 0 || frame->decode_error_flags != 0;
}

// The planes of a frame, which Swift sees as tuples.
static inline const uint8_t *nalu_frame_plane(const AVFrame *frame, int index) { return frame->data[index]; }
static inline int nalu_frame_linesize(const AVFrame *frame, int index) { return frame->linesize[index]; }

// Log routing: libavcodec logs through av_log with a printf format and a va_list, which Swift
// cannot format. The decoder's AVCodecContext.opaque points at a nalu_av_log_target (frame
// threads copy it into their own contexts); the trampoline formats lines at `max_level` or more
// severe and hands them to the target's Swift sink. Lines from other objects are dropped.
typedef void (*nalu_av_log_sink)(void *context, int level, const char *message);

typedef struct nalu_av_log_target {
    nalu_av_log_sink sink;
    void *context;
    int max_level;
} nalu_av_log_target;

static void nalu_av_log_trampoline(void *object, int level, const char *format, va_list args) {
    if (object == NULL || format == NULL) return;
    const AVClass *cls = *(const AVClass **)object;
    if (cls == NULL || cls->class_name == NULL || strcmp(cls->class_name, "AVCodecContext") != 0) return;
    nalu_av_log_target *target = (nalu_av_log_target *)((AVCodecContext *)object)->opaque;
    if (target == NULL || target->sink == NULL || level > target->max_level) return;
    char line[1024];
    vsnprintf(line, sizeof line, format, args);
    target->sink(target->context, level, line);
}

static inline void nalu_av_install_log(nalu_av_log_set_callback_fn set_callback) {
    set_callback(nalu_av_log_trampoline);
}

// Issue 39 item 7: libavcodec's native AAC encoder (AACEncoder.swift), for audio a program makes
// itself (live-hls-sample's tone): mono or stereo planar float in, raw AAC-LC frames out.
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
typedef __typeof__(avcodec_find_encoder) *nalu_avcodec_find_encoder_fn;
typedef __typeof__(avcodec_send_frame) *nalu_avcodec_send_frame_fn;
typedef __typeof__(avcodec_receive_packet) *nalu_avcodec_receive_packet_fn;
typedef __typeof__(av_packet_unref) *nalu_av_packet_unref_fn;
typedef __typeof__(av_frame_get_buffer) *nalu_av_frame_get_buffer_fn;
static inline int nalu_codec_id_aac(void) { return AV_CODEC_ID_AAC; }
/// The encoder context's settings: planar float samples, the rate, 1 or 2 channels, the bit rate.
static inline void nalu_aac_configure(AVCodecContext *context, int rate, int channels, int64_t bitRate) {
    context->sample_fmt = AV_SAMPLE_FMT_FLTP;
    context->sample_rate = rate;
    context->bit_rate = bitRate;
    context->time_base = (AVRational){1, rate};
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(59, 24, 100)
    context->ch_layout.order = AV_CHANNEL_ORDER_NATIVE;
    context->ch_layout.nb_channels = channels;
    context->ch_layout.u.mask = channels == 1 ? AV_CH_LAYOUT_MONO : AV_CH_LAYOUT_STEREO;
#else
    context->channels = channels;
    context->channel_layout = channels == 1 ? AV_CH_LAYOUT_MONO : AV_CH_LAYOUT_STEREO;
#endif
}
/// A frame shaped for `context`'s input: `samples` per channel, its format, rate and layout.
static inline void nalu_aac_frame_setup(AVFrame *frame, const AVCodecContext *context, int samples) {
    frame->nb_samples = samples;
    frame->format = context->sample_fmt;
    frame->sample_rate = context->sample_rate;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(59, 24, 100)
    frame->ch_layout = context->ch_layout;
#else
    frame->channels = context->channels;
    frame->channel_layout = context->channel_layout;
#endif
}
static inline float *nalu_frame_float_plane(AVFrame *frame, int index) { return (float *)frame->data[index]; }
#endif
