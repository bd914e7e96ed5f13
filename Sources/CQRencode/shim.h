// libqrencode (Debian's libqrencode-dev): QR codes of the kiosks' enrolment links and receipts.
#include <qrencode.h>

// One call with the settings every caller wants: the smallest version that fits, error correction M
// (15% of the code may be lost), 8-bit mode, case kept. The caller frees the result with QRcode_free.
static inline QRcode *har_qr_encode(const char *text) {
    return QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M);
}
