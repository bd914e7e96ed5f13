import FoundationEssentials

/// `har outbox`: the queue from the command line, for coordinators and operators. Works on the
/// database file of the data folder directly, also while `har serve` runs (WAL: readers never block,
/// and each change is one short transaction); the running worker sees a change within a second.
enum OutboxCommand {
    static let usage = """
        Usage:
          har outbox [--config FILE] list              every report in the outbox, oldest first
          har outbox [--config FILE] counts            how many reports are in each state
          har outbox [--config FILE] retry LOCAL_ID    send a report in needs attention again (after a fix)
          har outbox [--config FILE] retry --all       the same for every report in needs attention
          har outbox [--config FILE] hold LOCAL_ID     pause a report (held) until released
          har outbox [--config FILE] release LOCAL_ID  resume a held report
        """

    static func main(_ arguments: [String]) -> Int32 {
        Command.runOnStores(arguments, usage: usage) { action, stores, _ in try run(action, store: stores.outbox) }
    }

    static func run(_ action: [String], store: any OutboxStore) throws -> Int32 {
        switch (action.first, action.count) {
        case ("list", 1):
            print("local_id\tstate\tattempts\tphotos\tplatform_report_id\tlast_error")
            for row in try listing(store) { print(row) }
            return 0
        case ("counts", 1):
            let counts = try store.countsByState()
            for state in ReportState.allCases where state != .draft {
                print("\(state.rawValue)\t\(counts[state.rawValue] ?? 0)")
            }
            return 0
        case ("retry", 2) where action[1] == "--all":
            let ids = try store.reportIDs(in: .needsAttention)
            for id in ids { try store.resume(id, from: [.needsAttention]) }
            print("\(ids.count) reports retried")
            return 0
        case ("retry", 2):
            return try change(
                store, localID: action[1], to: "retried", from: [.needsAttention, .retryWait, .waitingSignIn])
        case ("hold", 2):
            guard let id = try store.reportID(localID: action[1]) else { return notFound(action[1]) }
            guard try store.hold(id) else {
                Command.printError("report \(action[1]) is not waiting to be sent; nothing held")
                return 1
            }
            print("held")
            return 0
        case ("release", 2):
            return try change(store, localID: action[1], to: "released", from: [.held])
        default:
            print(usage)
            return 64
        }
    }

    private static func change(_ store: any OutboxStore, localID: String, to verb: String, from: [ReportState]) throws
        -> Int32
    {
        guard let id = try store.reportID(localID: localID) else { return notFound(localID) }
        guard try store.resume(id, from: from) else {
            let states = from.map(\.rawValue).joined(separator: ", ")
            Command.printError("report \(localID) is not in \(states); nothing \(verb)")
            return 1
        }
        print(verb)
        return 0
    }

    private static func notFound(_ localID: String) -> Int32 {
        Command.printError("no report with local_id \(localID)")
        return 1
    }

    private static func listing(_ store: any OutboxStore) throws -> [String] {
        try store.listing().map { row in
            let error = (row.lastError ?? "").replacing("\t", with: " ").replacing("\n", with: " ")
            return [
                row.localID, row.state, String(row.attempts), "\(row.photosStored)/\(row.photoCount)",
                row.platformReportID ?? "-", error,
            ].joined(separator: "\t")
        }
    }
}
