// libvips for Swift. Its API is GObject-style variadic calls (name/value pairs ended by NULL), which
// Swift cannot call: each wrapper below is a typed, fixed-argument entry point.
// Files are opened through VipsSource / VipsTarget, never vips_image_new_from_file: that one parses
// "[option,...]" suffixes out of the file name.
#ifndef HAR_CVIPS_SHIM_H
#define HAR_CVIPS_SHIM_H
#include <vips/vips.h>

// Once per process: no operation cache (uploads are one-shot; the cache would pin decoded images),
// one worker thread per pipeline (two shared cores, many requests), loaders of untrusted formats blocked.
static inline int har_vips_init(void) {
    if (vips_init("har")) return -1;
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    return 0;
}

// The pending error text (thread-shared buffer), copied into buf, then cleared.
static inline void har_vips_take_error(char *buf, size_t len) {
    char *message = vips_error_buffer_copy();
    g_strlcpy(buf, message ? message : "", len);
    g_free(message);
}

static inline void har_vips_unref(VipsImage *image) {
    if (image) g_object_unref(image);
}

// Type name of the loader vips would pick for this file ("VipsForeignLoadJpegSource", ...), copied into buf.
static inline int har_vips_loader(const char *path, char *buf, size_t len) {
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) return -1;
    const char *name = vips_foreign_find_load_source(source);
    if (name) g_strlcpy(buf, name, len);
    g_object_unref(source);
    return name ? 0 : -1;
}

// Loader option for how strict decoding is: VIPS_FAIL_ON_ERROR stops on truncation and serious errors,
// VIPS_FAIL_ON_WARNING on anything libjpeg / libpng / libwebp reports, even a warning.
static inline const char *har_vips_fail_on_option(int fail_on) {
    return fail_on >= VIPS_FAIL_ON_WARNING ? "fail_on=warning" : "fail_on=error";
}

// Opens a file lazily (header only), sequential access: pixels are decoded only when read.
static inline int har_vips_open(const char *path, VipsImage **out, int fail_on) {
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) return -1;
    *out = vips_image_new_from_source(source, har_vips_fail_on_option(fail_on), "access", VIPS_ACCESS_SEQUENTIAL,
                                      NULL);
    g_object_unref(source);
    return *out ? 0 : -1;
}

// Decodes every pixel (streaming, strip by strip) so truncation or corrupt data is reported.
static inline int har_vips_decode_all(VipsImage *in) {
    double average = 0;
    return vips_avg(in, &average, NULL);
}

// Shrink-on-load thumbnail fitting width x height, never enlarged, rotated upright by its EXIF orientation.
// The thumbnail's own "fail_on" argument does not reach the loader in 8.14: the option string does.
// Lazy: decoding (and its failure) happens when the result is saved.
static inline int har_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int fail_on) {
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) return -1;
    int result = vips_thumbnail_source(source, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                       "option_string", har_vips_fail_on_option(fail_on), NULL);
    g_object_unref(source);
    return result;
}

// Baseline JPEG, no metadata at all; an alpha channel is flattened onto white first.
static inline int har_vips_jpegsave(VipsImage *in, const char *path, int quality) {
    VipsImage *flat = NULL;
    if (vips_image_hasalpha(in)) {
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        int failed = vips_flatten(in, &flat, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        if (failed) return -1;
        in = flat;
    }
    VipsTarget *target = vips_target_new_to_file(path);
    int result = -1;
    if (target) {
        result = vips_jpegsave_target(in, target, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
        g_object_unref(target);
    }
    if (flat) g_object_unref(flat);
    return result;
}

// --- Used by tests to make images -----------------------------------------------------------------

// An RGB (bands 3) or RGBA (bands 4) 8-bit gradient.
static inline int har_vips_test_image(VipsImage **out, int width, int height, int bands) {
    VipsImage *xy = NULL, *joined = NULL;
    if (vips_xyz(&xy, width, height, NULL)) return -1;
    double extra[2] = {90.0, 255.0};
    int failed = vips_bandjoin_const(xy, &joined, extra, bands - 2, NULL);
    g_object_unref(xy);
    if (failed) return -1;
    failed = vips_cast(joined, out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(joined);
    return failed;
}

// format: 0 JPEG, 1 PNG, 2 WebP, all without metadata.
static inline int har_vips_test_save(VipsImage *in, const char *path, int format) {
    switch (format) {
    case 0: return vips_jpegsave(in, path, "strip", TRUE, NULL);
    case 1: return vips_pngsave(in, path, "strip", TRUE, NULL);
    case 2: return vips_webpsave(in, path, "strip", TRUE, NULL);
    default: return -1;
    }
}
#endif
