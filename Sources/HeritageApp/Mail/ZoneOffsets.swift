import FoundationEssentials

/// A time zone's offsets from UTC, read from the system's tz database (`/usr/share/zoneinfo`, TZif):
/// the server has no ICU, and a digest "at 8 in the morning" must follow its coordinator's summer time.
/// The 32-bit transitions of the file's first part cover 1901–2037, which is all a digest needs; past
/// the last transition the last offset holds.
struct ZoneOffsets: Sendable {
    let name: String
    private let transitions: [Int64]
    private let offsetAfter: [Int]
    private let initialOffset: Int

    static let directory = "/usr/share/zoneinfo"
    static let utc = ZoneOffsets(utcNamed: "UTC")

    private init(utcNamed name: String) {
        self.name = name
        (transitions, offsetAfter, initialOffset) = ([], [], 0)
    }

    /// Nil for a name that is not a zone of the tz database here ("UTC" always is).
    init?(name: String) {
        if name == "UTC" {
            self = .utc
            return
        }
        self.name = name
        // A tz name: Area/Location, letters, digits, `_`, `-`, `+`; never a path of its own.
        guard name.utf8.count <= 64, !name.hasPrefix("/"), !name.contains(".."),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/_-+".contains($0)) }),
            let data = FileManager.default.contents(atPath: Self.directory + "/" + name),
            let parsed = Self.parse([UInt8](data))
        else { return nil }
        (transitions, offsetAfter, initialOffset) = parsed
    }

    /// Seconds to add to UTC for the local time at `time`.
    func offset(at time: Double) -> Int {
        let seconds = Int64(time.rounded(.down))
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : offsetAfter[low - 1]
    }

    private static func parse(_ bytes: [UInt8]) -> ([Int64], [Int], Int)? {
        guard bytes.count >= 44, bytes[0..<4].elementsEqual("TZif".utf8) else { return nil }
        func int32(_ at: Int) -> Int? {
            guard at + 4 <= bytes.count else { return nil }
            let value =
                UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8
                | UInt32(bytes[at + 3])
            return Int(Int32(bitPattern: value))
        }
        guard let timeCount = int32(32), let typeCount = int32(36), typeCount > 0, timeCount >= 0 else { return nil }
        let timesAt = 44
        let indicesAt = timesAt + 4 * timeCount
        let typesAt = indicesAt + timeCount
        guard typesAt + 6 * typeCount <= bytes.count else { return nil }
        var offsets: [Int] = []
        for type in 0..<typeCount {
            guard let offset = int32(typesAt + 6 * type) else { return nil }
            offsets.append(offset)
        }
        var transitions: [Int64] = []
        var after: [Int] = []
        for index in 0..<timeCount {
            guard let time = int32(timesAt + 4 * index) else { return nil }
            let type = Int(bytes[indicesAt + index])
            guard type < typeCount else { return nil }
            transitions.append(Int64(time))
            after.append(offsets[type])
        }
        // Before the first transition: the first type that is not daylight time, as RFC 8536 says.
        let initial = (0..<typeCount).first { bytes[typesAt + 6 * $0 + 4] == 0 }.map { offsets[$0] } ?? offsets[0]
        return (transitions, after, initial)
    }
}

/// The period a digest belongs to, so that it is made once per (recipient, period) on every node: the
/// mail outbox's `UNIQUE (event_key, user_id)` holds the key.
enum DigestSchedule {
    /// The latest period that has begun at `now`: its key and its start (Unix seconds). Hourly: the UTC
    /// hour. Daily: the local day whose `hour` o'clock has passed.
    static func current(daily: Bool, hour: Int, zone: ZoneOffsets, now: Double) -> (key: String, start: Double) {
        guard daily else {
            let start = (now / 3600).rounded(.down) * 3600
            return ("hourly:\(Int64(start))", start)
        }
        let offset = Double(zone.offset(at: now))
        let local = now + offset
        var day = (local / 86_400).rounded(.down)
        if local - day * 86_400 < Double(hour * 3600) { day -= 1 }
        let start = day * 86_400 + Double(hour * 3600) - offset
        return ("daily:\(Int64(day))", start)
    }
}
