/// Migration 15: listed reports index.
enum Migration15ListedReportsIndex: AppMigration {
    static let version = 15
    static let name = "listed reports index"

    /// The report list's page and its count (`ReportStore.page`): a partial index of the
    /// listed reports only (its WHERE is the list's, term for term, so SQLite knows the query implies
    /// it and does not test the states again), holding every column the page shows, so the page reads
    /// 50 index entries instead of 50 wide `reports` rows, and the count walks index entries without
    /// comparing a state. The same SQL in PostgreSQL, where it is an ordinary partial index.
    static let sqlite = """
        CREATE INDEX reports_listed ON reports(user_id, creation_time DESC, id DESC, state, local_id,
            platform_report_id, name, formatted_address, last_error)
        WHERE state != 'draft' AND state != 'cancelled' AND state != 'deleted' AND state != 'deleting';
        """

    /// PostgreSQL: the same statements.
    static let postgres = sqlite
}
