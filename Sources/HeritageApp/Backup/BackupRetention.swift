import Basics
import FoundationEssentials

/// Grandfather-father-son: of the backups in `backup_dir`, the newest of each of the last DAILY days,
/// of each of the last WEEKLY weeks (Monday to Sunday, UTC) and of each of the last MONTHLY months are
/// kept, and always the newest of all. Pure: `BackupSchedule` deletes the rest, and only right after a
/// newer backup was written and checked.
struct BackupRetention: Equatable {
    let daily: Int
    let weekly: Int
    let monthly: Int

    /// `backup_keep`: three counts, `DAILY,WEEKLY,MONTHLY` (`7,4,12`).
    init?(keep: String) {
        let counts = keep.split(separator: ",").map { Int(Text.trimmed(String($0))) }
        guard counts.count == 3, let daily = counts[0], let weekly = counts[1], let monthly = counts[2],
            daily >= 0, weekly >= 0, monthly >= 0
        else { return nil }
        (self.daily, self.weekly, self.monthly) = (daily, weekly, monthly)
    }

    /// The times (Unix seconds, UTC) of the backups to keep among `times`.
    func kept(_ times: [Double]) -> Set<Double> {
        let newestFirst = times.sorted(by: >)
        var keep = Set(newestFirst.prefix(1))
        let days = { (time: Double) in Int((time / 86_400).rounded(.down)) }
        // 1970-01-01 was a Thursday: adding 3 makes weeks start on Monday.
        let buckets: [(limit: Int, bucket: (Double) -> Int)] = [
            (daily, days),
            (weekly, { (days($0) + 3) / 7 }),
            (monthly, { Int(ISO8601.utc(seconds: $0).prefix(7).filter { $0 != "-" }) ?? 0 }),
        ]
        for (limit, bucket) in buckets {
            var seen = Set<Int>()
            for time in newestFirst where seen.count < limit && seen.insert(bucket(time)).inserted {
                keep.insert(time)
            }
        }
        return keep
    }

    /// The time a scheduled backup's name carries (`har-backup-YYYYMMDDTHHMMSSZ.tar`); nil for any
    /// other name, `.partial` ones included.
    static func time(ofBackupNamed name: String) -> Double? {
        guard name.hasPrefix("har-backup-"), name.hasSuffix(".tar") else { return nil }
        let stamp = Array(name.dropFirst("har-backup-".count).dropLast(".tar".count))
        guard stamp.count == 16, stamp[8] == "T", stamp[15] == "Z" else { return nil }
        let text =
            String(stamp[0..<4]) + "-" + String(stamp[4..<6]) + "-" + String(stamp[6..<8]) + "T"
            + String(stamp[9..<11]) + ":" + String(stamp[11..<13]) + ":" + String(stamp[13..<15]) + "Z"
        return ISO8601.parse(text)?.timeIntervalSince1970
    }
}
