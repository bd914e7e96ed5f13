/// Migration 7: device reports.
enum Migration07DeviceReports: AppMigration {
    static let version = 7
    static let name = "device reports"

    /// Reports made on a device: the browser's outbox names them with ids it made and sends
    /// them as drafts, filled then submitted. Such a draft is the device's: the creation page never takes
    /// it up as the user's open draft, and Cancel there does not remove it.
    static let sqlite = """
        ALTER TABLE reports ADD COLUMN from_device INTEGER NOT NULL DEFAULT 0;
        """

    /// `sqlite`: reports made in the browser's outbox.
    static let postgres = """
        ALTER TABLE reports ADD COLUMN from_device bigint NOT NULL DEFAULT 0;
        """
}
