import FoundationEssentials

/// Header values built from text that may come from a user (a reporter's name, a subject that quotes a
/// site). Every such value leaves here as RFC 2047 encoded words, whose base64 alphabet has no CR, LF or
/// colon, so no value can end its header line and start another (`\r\nBcc: …`).
enum MailHeader {
    /// Control characters (CR and LF included) become spaces, runs of white space one space, and the
    /// result is cut to `limit` characters: a header is one short line of text, never a document.
    static func plainText(_ text: String, limit: Int = 200) -> String {
        var output = ""
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            let isSpace =
                scalar.properties.generalCategory == .control || scalar.properties.isWhitespace
                || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator
            if isSpace {
                if !lastWasSpace, !output.isEmpty { output.append(" ") }
                lastWasSpace = true
            } else {
                output.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
        }
        if output.hasSuffix(" ") { output.removeLast() }
        return output.count > limit ? String(output.prefix(limit)) : output
    }

    /// The text as UTF-8 base64 encoded words (RFC 2047 §4.1), folded one word per line. Each word holds
    /// whole Unicode scalars of at most 39 bytes (64 characters encoded): within the 75 RFC 2047 allows,
    /// and with "Subject: " before it, within the 78 of a line RFC 5322 recommends.
    static func encodedWords(_ text: String) -> String {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in plainText(text).unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 39 {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// A mailbox for a From or To field: an optional display name (encoded) and the address in angle
    /// brackets. The address was checked by `MailAddress`, so it holds no character that needs quoting.
    static func mailbox(_ address: MailAddress, name: String?) -> String {
        guard let name, !plainText(name).isEmpty else { return "<\(address.text)>" }
        // The address on a line of its own: after a last encoded word of 75 characters it would not fit.
        return encodedWords(name) + "\r\n <\(address.text)>"
    }

    /// Base64 lines of 76 characters (RFC 2045 §6.8), each ended by CRLF.
    static func base64Lines(_ bytes: [UInt8]) -> String {
        let encoded = Array(Data(bytes).base64EncodedString().utf8)
        var output = ""
        output.reserveCapacity(encoded.count + encoded.count / 38 + 2)
        var start = 0
        while start < encoded.count {
            let end = min(start + 76, encoded.count)
            output += String(decoding: encoded[start..<end], as: UTF8.self) + "\r\n"
            start = end
        }
        return output
    }
}
