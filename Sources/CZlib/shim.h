// zlib for Swift: gzip for responses and raw deflate with crc32 for the review's photos
// archive (ZIP). deflateInit2 and inflateInit2 are macros (they pass the library version and
// the stream's size): typed functions instead. windowBits 15 + 16 asks for a gzip wrapper (RFC 1952)
// around the deflate data; -15 for raw deflate, as ZIP entries hold it.
#ifndef HAR_CZLIB_SHIM_H
#define HAR_CZLIB_SHIM_H
#include <zlib.h>
static inline int har_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int har_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}
static inline int har_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
#endif
