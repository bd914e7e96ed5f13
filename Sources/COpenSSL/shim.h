// OpenSSL's libcrypto for Swift: HMAC, digests, PBKDF2, random bytes.
#ifndef HAR_COPENSSL_SHIM_H
#define HAR_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

// An HMAC context keyed and ready for updates, through OpenSSL 3's EVP_MAC (the HMAC_CTX API is
// deprecated). OSSL_PARAM arrays are awkward from Swift, hence this shim. NULL on failure.
static inline EVP_MAC_CTX *har_hmac_new(const char *digest, const unsigned char *key, size_t key_length) {
    static const unsigned char empty_key[1] = {0};
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (ctx == NULL) return NULL;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    // A NULL key means "keep the previous key" to EVP_MAC_init; an empty key must still be a key.
    if (!EVP_MAC_init(ctx, key_length > 0 ? key : empty_key, key_length, params)) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}
#endif
