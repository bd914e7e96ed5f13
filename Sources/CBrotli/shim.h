// Brotli (RFC 7932) for Swift: the encoder compresses static assets once; the decoder is for tests.
#ifndef HAR_CBROTLI_SHIM_H
#define HAR_CBROTLI_SHIM_H
#include <brotli/encode.h>
#include <brotli/decode.h>
#endif
