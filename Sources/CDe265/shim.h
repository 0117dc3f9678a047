#ifndef NALU_CDE265_SHIM_H
#define NALU_CDE265_SHIM_H
#include <stdint.h>
#include <libde265/de265.h>

// libde265 is not linked: NALUDe265 opens it with dlopen at first use (De265Library.swift) and
// calls it through these pointer types, declared from de265.h's own prototypes.
typedef __typeof__(de265_get_version) *nalu_de265_get_version_fn;
typedef __typeof__(de265_new_decoder) *nalu_de265_new_decoder_fn;
typedef __typeof__(de265_start_worker_threads) *nalu_de265_start_worker_threads_fn;
typedef __typeof__(de265_free_decoder) *nalu_de265_free_decoder_fn;
typedef __typeof__(de265_push_data) *nalu_de265_push_data_fn;
typedef __typeof__(de265_flush_data) *nalu_de265_flush_data_fn;
typedef __typeof__(de265_decode) *nalu_de265_decode_fn;
typedef __typeof__(de265_get_next_picture) *nalu_de265_get_next_picture_fn;
typedef __typeof__(de265_get_warning) *nalu_de265_get_warning_fn;
typedef __typeof__(de265_get_error_text) *nalu_de265_get_error_text_fn;
typedef __typeof__(de265_isOK) *nalu_de265_isOK_fn;
typedef __typeof__(de265_get_image_width) *nalu_de265_get_image_width_fn;
typedef __typeof__(de265_get_image_height) *nalu_de265_get_image_height_fn;
typedef __typeof__(de265_get_chroma_format) *nalu_de265_get_chroma_format_fn;
typedef __typeof__(de265_get_bits_per_pixel) *nalu_de265_get_bits_per_pixel_fn;
typedef __typeof__(de265_get_image_plane) *nalu_de265_get_image_plane_fn;
typedef __typeof__(de265_get_image_PTS) *nalu_de265_get_image_PTS_fn;
typedef __typeof__(de265_set_parameter_bool) *nalu_de265_set_parameter_bool_fn;
typedef __typeof__(de265_set_verbosity) *nalu_de265_set_verbosity_fn;
#endif
