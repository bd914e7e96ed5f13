// libvips for Swift, opened at first use. Its API is GObject-style variadic calls (name/value pairs
// ended by NULL), which Swift cannot call: each wrapper below is a typed, fixed-argument entry point.
// Files are opened through VipsSource / VipsTarget, never vips_image_new_from_file: that one parses
// "[option,...]" suffixes out of the file name.
//
// libvips is loaded with dlopen on first use, not linked: linked, its dependency tree (GLib, librsvg,
// OpenEXR, …) is mapped into every har process at start, about 13 MB of resident memory for a server
// that may not see a photo for hours (and for the local platform, which never does). So this header
// declares the few functions and constants it uses itself, from libvips 8.14's headers (vips/*.h,
// glib's gtypes.h), and resolves each function once; it needs neither those headers nor their flags.
#ifndef HAR_CVIPS_SHIM_H
#define HAR_CVIPS_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

typedef struct _VipsImage VipsImage;
typedef struct _VipsSource VipsSource;
typedef struct _VipsTarget VipsTarget;
typedef struct _VipsArea VipsArea;
typedef int har_gboolean;

// Enum values as libvips 8.14 defines them (VipsFailOn, VipsAccess, VipsSize, VipsBandFormat).
enum { HAR_VIPS_FAIL_ON_ERROR = 2, HAR_VIPS_FAIL_ON_WARNING = 3 };
enum { HAR_VIPS_ACCESS_SEQUENTIAL = 1 };
enum { HAR_VIPS_SIZE_DOWN = 2 };
enum { HAR_VIPS_FORMAT_UCHAR = 0 };

static inline void *har_vips_library(void) {
    static void *volatile handle;
    if (!handle) handle = dlopen("libvips.so.42", RTLD_NOW | RTLD_LOCAL);
    return handle;
}

// A function of the library, resolved at its first call from this call site (dlsym is thread-safe; a
// race resolves it twice to the same address).
#define HAR_VIPS(type, name) \
    (__extension__({ \
        static __typeof__(type) volatile har_fn; \
        if (!har_fn) har_fn = (type)dlsym(har_vips_library(), #name); \
        har_fn; \
    }))

// Whether libvips could be opened (Debian's libvips42, installed with libvips-dev).
static inline int har_vips_available(void) { return har_vips_library() != NULL; }

// libjpeg's warnings (damaged data: "Corrupt JPEG data: premature end of data segment", ...) during a
// JPEG decode on this thread. libvips 8.14 fails a read on a warning only when it starts the next
// 8-row strip (jpeg2vips.c, read_jpeg_generate), so a warning raised while the last strip is decoded
// fails nothing: it is only reported when the image is closed, as the GLib warning "read gave N
// warnings" followed by one with the error text. At full size the last strip of a 4:2:0 JPEG mostly
// decodes no data of its own (an MCU row is 16 rows), but at 1/8 it holds the last 64 rows' worth,
// where a desynchronised decoder runs into the end of the data. So har watches for that report: the
// image is closed (its last reference dropped) on the thread that decoded it, and the handler notes it
// there, with its text. The report is matched in English and as gettext would translate it (har never
// calls setlocale today; HostileInputTests fails if libvips's words change). A static inline
// function's static is one per object file: call these from one Swift file (Imaging.swift), or each
// file would watch a state of its own.
struct har_vips_jpeg_state {
    int watching;
    int warned;
    int text_next;
    char text[256];
};

// This thread's state (a function's static: Swift's importer emits no file-scope static of a header).
static inline struct har_vips_jpeg_state *har_vips_jpeg_state(void) {
    static _Thread_local struct har_vips_jpeg_state state;
    return &state;
}

// Whether message is libvips's "read gave %ld warnings", in English or in the translation gettext
// would give it (libvips's catalogue is "vips8.14"): the check must not depend on the locale.
static inline int har_vips_is_read_gave(const char *message) {
    if (strncmp(message, "read gave ", 10) == 0) return 1;
    const char *translated = HAR_VIPS(const char *(*)(const char *, const char *), g_dgettext)(
        "vips8.14", "read gave %ld warnings");
    if (!translated) return 0;
    const char *cut = strchr(translated, '%');
    size_t length = cut ? (size_t)(cut - translated) : strlen(translated);
    return length > 0 && strncmp(message, translated, length) == 0;
}

// libvips's warnings on a thread that watches a decode are taken in; any other reaches GLib's default
// handler as before.
static inline void har_vips_log(const char *domain, int level, const char *message, void *data) {
    struct har_vips_jpeg_state *state = har_vips_jpeg_state();
    if (state->watching && message) {
        if (har_vips_is_read_gave(message)) {
            state->warned = 1;
            state->text_next = 1;
            return;
        }
        if (state->text_next) {
            // The error buffer, process-wide: its last line is this decode's first warning.
            state->text_next = 0;
            size_t end = strlen(message);
            while (end > 0 && message[end - 1] == '\n') end--;
            size_t start = end;
            while (start > 0 && message[start - 1] != '\n') start--;
            size_t length = end - start < sizeof state->text - 1 ? end - start : sizeof state->text - 1;
            memcpy(state->text, message + start, length);
            state->text[length] = 0;
            return;
        }
    }
    HAR_VIPS(void (*)(const char *, int, const char *, void *), g_log_default_handler)(domain, level, message, data);
}

// Starts watching this thread's next decode.
static inline void har_vips_jpeg_watch(void) {
    struct har_vips_jpeg_state *state = har_vips_jpeg_state();
    state->watching = 1;
    state->warned = 0;
    state->text_next = 0;
    state->text[0] = 0;
}

// Ends the watch: whether libjpeg warned since har_vips_jpeg_watch on this thread, its text in buf
// (may be empty). A warning found, its text is also cleared from libvips's shared error buffer, where
// it would otherwise be read as the reason of the next failure on any thread.
static inline int har_vips_jpeg_watch_end(char *buf, size_t len) {
    struct har_vips_jpeg_state *state = har_vips_jpeg_state();
    state->watching = 0;
    if (len > 0) {
        size_t length = strlen(state->text);
        if (length >= len) length = len - 1;
        memcpy(buf, state->text, length);
        buf[length] = 0;
    }
    if (state->warned) HAR_VIPS(void (*)(void), vips_error_clear)();
    return state->warned;
}

// Once per process: no operation cache (uploads are one-shot; the cache would pin decoded images),
// one worker thread per pipeline (two shared cores, many requests), loaders of untrusted formats blocked,
// and no run-time compiled vector code (liborc). Debian 12's liborc 0.4.33 frees a compiled program's
// code memory without its lock (orc_code_free merges the freed chunk into its neighbours in a list
// every program shares), and libvips 8.14 compiles and frees programs for each resize (reducev):
// two photo threads finishing thumbnails at once can corrupt that list, and the process dies with a
// segmentation fault in liborc. CI's run of the photo tests did (a use after free, at liborc's offset
// 0x10443, in that merge). Without it, libvips resizes with its C loops: about a quarter slower for a
// 640 x 480 thumbnail, and a phone photo is mostly shrunk while decoding (libjpeg's 1/2, 1/4, 1/8).
static inline int har_vips_init(void) {
    if (!har_vips_available()) return -1;
    if (HAR_VIPS(int (*)(const char *), vips_init)("har")) return -1;
    void (*set_vector_enabled)(har_gboolean) = HAR_VIPS(void (*)(har_gboolean), vips_vector_set_enabled);
    if (set_vector_enabled) set_vector_enabled(0);
    HAR_VIPS(void (*)(int), vips_cache_set_max)(0);
    HAR_VIPS(void (*)(int), vips_concurrency_set)(1);
    HAR_VIPS(void (*)(har_gboolean), vips_block_untrusted_set)(1);
    // G_LOG_LEVEL_WARNING (1 << 4): libvips's other warnings still reach GLib's default handler.
    HAR_VIPS(unsigned (*)(const char *, int, void (*)(const char *, int, const char *, void *), void *),
        g_log_set_handler)("VIPS", 1 << 4, har_vips_log, NULL);
    return 0;
}

// Whether libvips would run liborc's compiled code (1) or its C loops (0); 0 when the call is missing.
static inline int har_vips_vector_enabled(void) {
    har_gboolean (*enabled)(void) = HAR_VIPS(har_gboolean (*)(void), vips_vector_isenabled);
    return enabled ? enabled() : 0;
}

static inline void har_vips_free(void *pointer) { HAR_VIPS(void (*)(void *), g_free)(pointer); }

static inline void har_vips_unref_object(void *object) {
    if (object) HAR_VIPS(void (*)(void *), g_object_unref)(object);
}
// For Swift, which sees VipsImage as an opaque pointer.
static inline void har_vips_unref(VipsImage *image) { har_vips_unref_object(image); }

static inline void har_vips_copy_text(char *buf, size_t len, const char *text) {
    if (len == 0) return;
    size_t i = 0;
    for (; text && text[i] && i + 1 < len; i++) buf[i] = text[i];
    buf[i] = 0;
}

// The pending error text (thread-shared buffer), copied into buf, then cleared.
static inline void har_vips_take_error(char *buf, size_t len) {
    char *message = HAR_VIPS(char *(*)(void), vips_error_buffer_copy)();
    har_vips_copy_text(buf, len, message);
    if (message) har_vips_free(message);
}

static inline int har_vips_width(VipsImage *image) {
    return HAR_VIPS(int (*)(const VipsImage *), vips_image_get_width)(image);
}
static inline int har_vips_height(VipsImage *image) {
    return HAR_VIPS(int (*)(const VipsImage *), vips_image_get_height)(image);
}

static inline VipsSource *har_vips_source(const char *path) {
    return HAR_VIPS(VipsSource *(*)(const char *), vips_source_new_from_file)(path);
}

// Type name of the loader vips would pick for this file ("VipsForeignLoadJpegSource", ...), copied into buf.
static inline int har_vips_loader(const char *path, char *buf, size_t len) {
    VipsSource *source = har_vips_source(path);
    if (!source) return -1;
    const char *name = HAR_VIPS(const char *(*)(VipsSource *), vips_foreign_find_load_source)(source);
    if (name) har_vips_copy_text(buf, len, name);
    har_vips_unref_object(source);
    return name ? 0 : -1;
}

// Loader option for how strict decoding is: "error" stops on truncation and serious errors, "warning"
// on anything libjpeg / libpng / libwebp reports, even a warning.
static inline const char *har_vips_fail_on_option(int fail_on) {
    return fail_on >= HAR_VIPS_FAIL_ON_WARNING ? "fail_on=warning" : "fail_on=error";
}

// Opens a file lazily (header only), sequential access: pixels are decoded only when read.
static inline int har_vips_open(const char *path, VipsImage **out, int fail_on) {
    VipsSource *source = har_vips_source(path);
    if (!source) return -1;
    *out = HAR_VIPS(VipsImage *(*)(VipsSource *, const char *, ...), vips_image_new_from_source)(
        source, har_vips_fail_on_option(fail_on), "access", HAR_VIPS_ACCESS_SEQUENTIAL, NULL);
    har_vips_unref_object(source);
    return *out ? 0 : -1;
}

// Decodes every pixel (streaming, strip by strip) so truncation or corrupt data is reported.
static inline int har_vips_decode_all(VipsImage *in) {
    double average = 0;
    return HAR_VIPS(int (*)(VipsImage *, double *, ...), vips_avg)(in, &average, NULL);
}

// Shrink-on-load thumbnail fitting width x height, never enlarged, rotated upright by its EXIF orientation.
// The thumbnail's own "fail_on" argument does not reach the loader in 8.14: the option string does.
// Lazy: decoding (and its failure) happens when the result is saved.
static inline int har_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int fail_on) {
    VipsSource *source = har_vips_source(path);
    if (!source) return -1;
    int result = HAR_VIPS(int (*)(VipsSource *, VipsImage **, int, ...), vips_thumbnail_source)(
        source, out, width, "height", height, "size", HAR_VIPS_SIZE_DOWN, "option_string",
        har_vips_fail_on_option(fail_on), NULL);
    har_vips_unref_object(source);
    return result;
}

// A JPEG opened lazily at 1/shrink of its size (1, 2, 4 or 8), sequential: libjpeg scales in its
// inverse DCT, so every block's entropy-coded data is still read and checked ("fail_on" is the
// loader's own argument here), at a fraction of a full decode's cost.
static inline int har_vips_jpeg_open_shrunk(const char *path, VipsImage **out, int shrink, int fail_on) {
    VipsSource *source = har_vips_source(path);
    if (!source) return -1;
    *out = NULL;
    int result = HAR_VIPS(int (*)(VipsSource *, VipsImage **, ...), vips_jpegload_source)(
        source, out, "shrink", shrink, "fail_on", fail_on, "access", HAR_VIPS_ACCESS_SEQUENTIAL, NULL);
    har_vips_unref_object(source);
    return result == 0 && *out ? 0 : -1;
}

// Every pixel of the image decoded into memory (NULL when decoding failed), its metadata kept.
static inline VipsImage *har_vips_copy_memory(VipsImage *in) {
    return HAR_VIPS(VipsImage *(*)(VipsImage *), vips_image_copy_memory)(in);
}

// vips_thumbnail's resize of an image already in hand (no shrink-on-load): fits width x height, never
// enlarged, rotated upright by the image's "orientation" field.
static inline int har_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height) {
    return HAR_VIPS(int (*)(VipsImage *, VipsImage **, int, ...), vips_thumbnail_image)(
        in, out, width, "height", height, "size", HAR_VIPS_SIZE_DOWN, NULL);
}

// Baseline JPEG, no metadata at all; an alpha channel is flattened onto white first.
static inline int har_vips_jpegsave(VipsImage *in, const char *path, int quality) {
    VipsImage *flat = NULL;
    if (HAR_VIPS(har_gboolean (*)(VipsImage *), vips_image_hasalpha)(in)) {
        VipsArea *white = HAR_VIPS(VipsArea *(*)(int, ...), vips_array_double_newv)(1, 255.0);
        int failed = HAR_VIPS(int (*)(VipsImage *, VipsImage **, ...), vips_flatten)(in, &flat, "background", white, NULL);
        HAR_VIPS(void (*)(VipsArea *), vips_area_unref)(white);
        if (failed) return -1;
        in = flat;
    }
    VipsTarget *target = HAR_VIPS(VipsTarget *(*)(const char *), vips_target_new_to_file)(path);
    int result = -1;
    if (target) {
        result = HAR_VIPS(int (*)(VipsImage *, VipsTarget *, ...), vips_jpegsave_target)(
            in, target, "Q", quality, "strip", 1, "optimize_coding", 1, NULL);
        har_vips_unref_object(target);
    }
    if (flat) har_vips_unref(flat);
    return result;
}

// --- Used by tests to make images -----------------------------------------------------------------

// An RGB (bands 3) or RGBA (bands 4) 8-bit gradient.
static inline int har_vips_test_image(VipsImage **out, int width, int height, int bands) {
    VipsImage *xy = NULL, *joined = NULL;
    if (HAR_VIPS(int (*)(VipsImage **, int, int, ...), vips_xyz)(&xy, width, height, NULL)) return -1;
    double extra[2] = {90.0, 255.0};
    int failed = HAR_VIPS(int (*)(VipsImage *, VipsImage **, double *, int, ...), vips_bandjoin_const)(
        xy, &joined, extra, bands - 2, NULL);
    har_vips_unref(xy);
    if (failed) return -1;
    failed = HAR_VIPS(int (*)(VipsImage *, VipsImage **, int, ...), vips_cast)(joined, out, HAR_VIPS_FORMAT_UCHAR, NULL);
    har_vips_unref(joined);
    return failed;
}

// format: 0 JPEG, 1 PNG, 2 WebP, all without metadata.
static inline int har_vips_test_save(VipsImage *in, const char *path, int format) {
    typedef int (*save_fn)(VipsImage *, const char *, ...);
    switch (format) {
    case 0: return HAR_VIPS(save_fn, vips_jpegsave)(in, path, "strip", 1, NULL);
    case 1: return HAR_VIPS(save_fn, vips_pngsave)(in, path, "strip", 1, NULL);
    case 2: return HAR_VIPS(save_fn, vips_webpsave)(in, path, "strip", 1, NULL);
    default: return -1;
    }
}
#endif
