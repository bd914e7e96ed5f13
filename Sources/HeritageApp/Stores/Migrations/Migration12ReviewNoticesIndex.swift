/// Migration 12: review notices index.
enum Migration12ReviewNoticesIndex: AppMigration {
    static let version = 12
    static let name = "review notices index"

    /// The report list shows the reviewers' word on a user's reports (`ReviewStore.reviewStates`):
    /// those whose review state is not 'received'. Without this index the query read every one of the
    /// user's reports from the table to look at that column (a tenth of the list page's instructions
    /// with 200 reports, bench/instructions.sh); with it, only the reports it returns.
    static let sqlite = """
        CREATE INDEX reports_review_notices ON reports(user_id) WHERE review_state != 'received';
        """

    /// PostgreSQL: the same statements.
    static let postgres = sqlite
}
