// zlib for Swift. deflateInit2 is a macro (it passes the library version and the stream's size):
// a typed function instead. windowBits 15 + 16 asks for a gzip wrapper (RFC 1952) around the deflate data.
#ifndef HAR_CZLIB_SHIM_H
#define HAR_CZLIB_SHIM_H
#include <zlib.h>
static inline int har_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int har_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}
#endif
