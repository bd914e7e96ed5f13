// OpenSSL's libcrypto for Swift: HMAC, digests, PBKDF2, random bytes, and X.509 certificates for
// `har tls self-signed`.
#ifndef HAR_COPENSSL_SHIM_H
#define HAR_COPENSSL_SHIM_H
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

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

// Random bytes for masks that change with every response (the CSRF token's, BREACH), taken from a
// buffer of the calling thread that RAND_bytes fills HAR_MASK_BUFFER bytes at a time. RAND_bytes costs
// OpenSSL 3's DRBG set-up and a getpid() system call per call (its fork check; strace -k); the
// report list made one per page (docs/BENCHMARKS.md). Each byte is handed out once and wiped from the
// buffer. Not for keys, session ids or salts: a child forked without exec would repeat this thread's
// buffer, which for a mask reveals nothing but for a secret would. 1 if `out` was filled.
#define HAR_MASK_BUFFER 1024
static inline int har_mask_random_bytes(unsigned char *out, size_t count) {
    static _Thread_local unsigned char buffer[HAR_MASK_BUFFER];
    static _Thread_local size_t left = 0;
    if (count == 0) return 1;
    if (count > HAR_MASK_BUFFER) return RAND_bytes(out, (int)count);
    if (count > left) {
        if (RAND_bytes(buffer, HAR_MASK_BUFFER) != 1) {
            left = 0;
            return 0;
        }
        left = HAR_MASK_BUFFER;
    }
    unsigned char *next = buffer + (HAR_MASK_BUFFER - left);
    memcpy(out, next, count);
    OPENSSL_cleanse(next, count);
    left -= count;
    return 1;
}

// A new ECDSA P-256 key (what browsers and GnuTLS accept everywhere, and small). NULL on failure.
// EVP_EC_gen is a macro over a variadic function, hence the explicit context here.
static inline EVP_PKEY *har_ec_p256_key_new(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    if (ctx == NULL) return NULL;
    if (EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1) <= 0 ||
        EVP_PKEY_keygen(ctx, &key) <= 0) {
        key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return key;
}

// Adds one X.509v3 extension written in OpenSSL's configuration syntax ("critical,CA:TRUE").
// X509V3_set_ctx_nodb is a macro, hence C. 1 on success.
static inline int har_x509_add_extension(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (extension == NULL) return 0;
    int ok = X509_add_ext(cert, extension, -1);
    X509_EXTENSION_free(extension);
    return ok;
}

// A version-3 certificate for `subject_key`, named `common_name`, valid from an hour ago for `days`,
// with a random 128-bit serial, not yet signed or extended. `issuer` NULL = self-issued. NULL on failure.
static inline X509 *har_x509_new(EVP_PKEY *subject_key, const char *common_name, X509 *issuer, long days) {
    X509 *cert = X509_new();
    if (cert == NULL) return NULL;
    unsigned char serial_bytes[16];
    BIGNUM *serial = NULL;
    int ok = X509_set_version(cert, X509_VERSION_3) && RAND_bytes(serial_bytes, sizeof serial_bytes) == 1;
    if (ok) {
        serial_bytes[0] &= 0x7f;  // a positive INTEGER
        serial = BN_bin2bn(serial_bytes, sizeof serial_bytes, NULL);
        ok = serial != NULL && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert)) != NULL;
    }
    ok = ok && X509_gmtime_adj(X509_getm_notBefore(cert), -3600) != NULL &&
         X509_time_adj_ex(X509_getm_notAfter(cert), (int)days, 0, NULL) != NULL &&
         X509_set_pubkey(cert, subject_key);
    X509_NAME *name = X509_get_subject_name(cert);
    ok = ok && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"Heritage at Risk", -1, -1, 0) &&
         X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0);
    ok = ok && X509_set_issuer_name(cert, issuer != NULL ? X509_get_subject_name(issuer) : name);
    BN_free(serial);
    if (!ok) {
        X509_free(cert);
        return NULL;
    }
    return cert;
}

// Writes PEM to an open stream (PEM_write_* take FILE *; the file is opened 0600 by the caller).
static inline int har_pem_write_certificate(FILE *file, X509 *cert) { return PEM_write_X509(file, cert); }
static inline int har_pem_write_private_key(FILE *file, EVP_PKEY *key) {
    return PEM_write_PrivateKey(file, key, NULL, NULL, 0, NULL, NULL);
}
static inline X509 *har_pem_read_certificate(FILE *file) { return PEM_read_X509(file, NULL, NULL, NULL); }
static inline EVP_PKEY *har_pem_read_private_key(FILE *file) { return PEM_read_PrivateKey(file, NULL, NULL, NULL); }
#endif
