import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

// Where a node keeps photos and uploads when several nodes share one photo folder.
extension Configuration {
    /// The photos of drafts and reports: `photo_dir`, shared by every node, else the data folder's.
    var photosDirectory: String { photoDir ?? dataDir + "/photos" }

    /// Uploads while they arrive. With a shared `photo_dir` they go to a folder of this node's under it,
    /// so that a finished upload's rename into the photo folder never crosses filesystems, and each node
    /// empties only its own at start; else the data folder's `tmp/`.
    var uploadsDirectory: String {
        guard let photoDir else { return dataDir + "/tmp" }
        return photoDir + "/tmp/" + nodeName
    }

    /// Where the review's exports are written before they are sent (each removed once the server has
    /// opened it to send it): never the uploads' folder, whose files count against the uploads' cap.
    var exportsDirectory: String { dataDir + "/exports" }

    /// `node_id`, else the host name and the port (the process id instead of port 0, which every node
    /// started on a free port would share).
    var nodeName: String {
        if let nodeID { return nodeID }
        var buffer = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&buffer, buffer.count - 1) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "node"
        let suffix = port == 0 ? "pid\(getpid())" : String(port)
        return String((host + ":" + suffix).map { Self.isNodeIDCharacter($0) ? $0 : "-" })
    }

    static func isNodeIDCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || ".-_:".contains(character))
    }
}
