import CQRencode

/// A QR code drawn by libqrencode, as an SVG image: one path of dark modules on a white square with the
/// four-module quiet zone the standard asks for.
enum QRCode {
    /// The SVG of `text`, titled `label` for screen readers; nil when libqrencode cannot encode it.
    static func svg(_ text: String, label: String) -> String? {
        guard let code = text.withCString({ har_qr_encode($0) }) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        let side = width + 8
        var path = ""
        path.reserveCapacity(width * width * 4)
        for y in 0..<width {
            for x in 0..<width where data[y * width + x] & 1 == 1 {
                path += "M\(x + 4) \(y + 4)h1v1h-1z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" class="qr-code" role="img" \
            aria-label="\(HTMLText.escape(label))" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}

/// Escaping for text put into markup by hand (the templates escape their own values).
enum HTMLText {
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
