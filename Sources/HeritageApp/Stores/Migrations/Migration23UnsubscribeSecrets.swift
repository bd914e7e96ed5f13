/// Migration 23: a one-click unsubscribe secret per message (NOT-04), in both dialects side by side.
///
/// - `mail_outbox.unsubscribe_token`: the secret of that message's `List-Unsubscribe` link, made when
///   the row is first claimed and the same on every attempt; it turns off only the kind of mail it came
///   with, once: used, it is cleared (a later message of the kind gets a new one).
/// - `users.mail_token`, the one secret every message of a user carried and that never changed, is
///   cleared: the links of messages sent before this version no longer work (their page says so, and the
///   settings still turn each kind off).
enum Migration23UnsubscribeSecrets: AppMigration {
    static let version = 23
    static let name = "an unsubscribe secret per message"

    static let sqlite = """
        ALTER TABLE mail_outbox ADD COLUMN unsubscribe_token TEXT;
        CREATE INDEX mail_outbox_unsubscribe ON mail_outbox(unsubscribe_token)
            WHERE unsubscribe_token IS NOT NULL;
        UPDATE users SET mail_token = NULL;
        """

    static let postgres = """
        ALTER TABLE mail_outbox ADD COLUMN unsubscribe_token text;
        CREATE INDEX mail_outbox_unsubscribe ON mail_outbox(unsubscribe_token)
            WHERE unsubscribe_token IS NOT NULL;
        UPDATE users SET mail_token = NULL;
        """
}
