import Basics
import COpenSSL
import PlatformClient

/// The optional signature of a backup: HMAC-SHA256 under `backup_key` (`HAR_BACKUP_KEY`) of the
/// trailer's checksum, which covers every byte before the trailer (`ArchiveWriter`). Without the key an
/// archive cannot be made to pass: a crafted one, or one changed in the backup folder, is refused by
/// verify and restore when the key is set (exit 18). With no key set, archives are written unsigned and
/// read without a signature check (a signed one is then read as it is, and verify says so).
enum BackupSignature {
    /// Shorter keys are refused by the configuration: a guessable key signs nothing.
    static let minimumKeyLength = 16

    static func sign(checksum: String, entries: Int, key: String) -> String {
        let keyBytes = Array(key.utf8)
        let made = keyBytes.withUnsafeBufferPointer { har_hmac_new("SHA256", $0.baseAddress, $0.count) }
        // Only a libcrypto without HMAC-SHA256 fails here: the installation is broken, not the input.
        guard let context = made else { preconditionFailure("libcrypto cannot create an HMAC-SHA256 context") }
        defer { EVP_MAC_CTX_free(context) }
        let message = Array("\(BackupManifest.formatName)\n\(entries)\n\(checksum)".utf8)
        _ = message.withUnsafeBufferPointer { EVP_MAC_update(context, $0.baseAddress, $0.count) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_MAC_final(context, $0.baseAddress, &length, $0.count) }
        return Hex.encode(digest.prefix(length))
    }

    /// What the reader found: checked under the key, unsigned (no key set), or signed and not checked.
    enum Status: Equatable {
        case checked, unsigned, notChecked
    }

    static func check(_ trailer: BackupTrailer, key: String?, archive: String) throws(BackupFailure) -> Status {
        guard let key else { return trailer.hmacSHA256 == nil ? .unsigned : .notChecked }
        guard let mac = trailer.hmacSHA256 else {
            throw .signature("\(archive) is not signed, and backup_key is set: refused (a backup made with the key is)")
        }
        let expected = sign(checksum: trailer.sha256, entries: trailer.entries, key: key)
        guard Crypto.constantTimeEqual(Array(expected.utf8), Array(mac.utf8)) else {
            throw .signature(
                "\(archive): its signature is not backup_key's (made with another key, or changed): refused")
        }
        return .checked
    }
}
