import CSQLite
import Synchronization

/// How many statements this process ran on SQLite, and how many of them changed the database: shown
/// in `/metrics`, and read by the tests that hold the busiest requests to their database round trips
/// (a 304 that gains a statement or a write fails a test, not a benchmark weeks later).
///
/// Counted when a statement starts (its first step), whatever its rows; a write is a statement that
/// is not read-only (`sqlite3_stmt_readonly`: BEGIN and COMMIT count as reads), a write transaction a
/// `DatabasePool.write`. Relaxed atomics: a few nanoseconds against a statement's microseconds.
public final class StatementCounts: Sendable {
    /// This process's counts, every connection's.
    public static let process = StatementCounts()

    private let started = Atomic<Int>(0)
    private let changing = Atomic<Int>(0)
    private let transactions = Atomic<Int>(0)
    private let checkouts = Atomic<Int>(0)

    /// Statements started, reads and writes.
    public var statements: Int { started.load(ordering: .relaxed) }
    /// Statements that change the database.
    public var writes: Int { changing.load(ordering: .relaxed) }
    /// Write transactions run (`DatabasePool.write`).
    public var writeTransactions: Int { transactions.load(ordering: .relaxed) }
    /// Readers taken from a pool (`DatabasePool`): each a read of its own (a read transaction, a
    /// statement's own, or a memo's look), where `readTogether` takes one for all the reads in it.
    public var readerCheckouts: Int { checkouts.load(ordering: .relaxed) }

    /// The statement `handle` starts running.
    func starting(_ handle: OpaquePointer) {
        started.add(1, ordering: .relaxed)
        if sqlite3_stmt_readonly(handle) == 0 { changing.add(1, ordering: .relaxed) }
    }

    func writeTransaction() { transactions.add(1, ordering: .relaxed) }

    func readerCheckout() { checkouts.add(1, ordering: .relaxed) }
}
