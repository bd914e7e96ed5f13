// zlib from Debian (zlib1g-dev): deflate and crc32 for the review's photos archive (ZIP).
#include <zlib.h>

// deflateInit2 is a macro; Swift cannot call it directly.
static inline int har_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
