// OpenSSL's libcrypto for Swift: HMAC, digests, PBKDF2, random bytes.
#ifndef HAR_COPENSSL_SHIM_H
#define HAR_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#endif
