import CSQLite
import Synchronization

/// The header of the WAL index (the `-shm` file every connection to a WAL database shares, in this
/// process and in others): SQLite rewrites it at the end of every commit, with a change counter
/// (`iChange`) that moves each time, so a header read now and equal to one read before means that no
/// commit ended in between. Comparing it costs no statement, no read transaction and no system call,
/// where `PRAGMA data_version` costs all three (a lock on the file, and while the WAL is empty the
/// file's size): that is what `withMemo` checks first.
///
/// Layout and protocol from SQLite's `wal.c` (the header comment of `WalIndexHdr` and
/// `walIndexTryHdr`): two copies of the 48-byte header at the start of the first region; a writer
/// writes the second copy, then a memory barrier, then the first; a reader reads the first, then a
/// barrier, then the second, and trusts them only if they are equal (else a commit is being written).
struct WALIndexHeader: Equatable {
    static let size = 48
    /// The two copies as read, which the caller only uses when they were equal: one is kept.
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    static func == (left: WALIndexHeader, right: WALIndexHeader) -> Bool {
        left.words.0 == right.words.0 && left.words.1 == right.words.1 && left.words.2 == right.words.2
            && left.words.3 == right.words.3 && left.words.4 == right.words.4 && left.words.5 == right.words.5
    }

    /// The header at `base` (the first region of the WAL index), nil while a commit is writing it or
    /// before the index was initialised (`isInit`, byte 12, is 0).
    static func read(at base: UnsafeRawPointer) -> WALIndexHeader? {
        let first = load(base)
        atomicMemoryFence(ordering: .acquiring)
        let second = load(base + size)
        guard first == second, base.load(fromByteOffset: 12, as: UInt8.self) != 0 else { return nil }
        return first
    }

    private static func load(_ base: UnsafeRawPointer) -> WALIndexHeader {
        WALIndexHeader(
            words: (
                base.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                base.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                base.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                base.loadUnaligned(fromByteOffset: 24, as: UInt64.self),
                base.loadUnaligned(fromByteOffset: 32, as: UInt64.self),
                base.loadUnaligned(fromByteOffset: 40, as: UInt64.self)
            ))
    }
}

/// Whether a connection's WAL index can be read, found out once per connection (`walIndexHeader`).
enum WALIndexAccess {
    case unknown
    /// In WAL mode: the database file's handle, whose shared memory SQLite has mapped.
    case file(UnsafeMutablePointer<sqlite3_file>)
    /// Not in WAL mode (or a VFS without shared memory): `PRAGMA data_version` every time.
    case unavailable
}

extension Database {
    /// The WAL index's header as this connection's VFS maps it, nil when it cannot be read now (not in
    /// WAL mode, a commit writing it): the caller then asks `PRAGMA data_version`.
    ///
    /// The region comes from SQLite's own mapping (`xShmMap` with no extension: the pointer the
    /// connection itself reads), never from a mapping of our own, which could outlive the file it maps
    /// or, closed, release this process's locks on it. Asked only after a statement has run on the
    /// connection in WAL mode, so the mapping exists; while the connection is open in WAL mode it holds
    /// a shared lock on the database, so no other process can leave WAL mode under it.
    func walIndexHeader() -> WALIndexHeader? {
        guard let file = walIndexFile(), let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2,
            let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        guard map(file, 0, 32_768, 0, &region) == SQLITE_OK, let region else { return nil }
        return WALIndexHeader.read(at: UnsafeRawPointer(region))
    }

    private func walIndexFile() -> UnsafeMutablePointer<sqlite3_file>? {
        switch walIndexAccess {
        case .file(let file): return file
        case .unavailable: return nil
        case .unknown:
            walIndexAccess = .unavailable
            guard let handle, (try? scalar("PRAGMA journal_mode").string?.lowercased()) == "wal" else { return nil }
            var file: UnsafeMutablePointer<sqlite3_file>?
            guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let file
            else { return nil }
            walIndexAccess = .file(file)
            return file
        }
    }
}
