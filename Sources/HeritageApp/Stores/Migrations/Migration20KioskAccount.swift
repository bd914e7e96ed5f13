/// Migration 20: a kiosk's own platform account, in both dialects side by side.
///
/// - `kiosks.account_email`: set when the kiosk sends its reports with a dedicated platform account (a
///   service account an administrator signed in once on `/review/kiosks`), nil when it sends them with
///   the linked coordinator's account (`user_id`, while that account holds a role). The dedicated
///   account's platform session is kept on the kiosk's own users row (`reports_user_id`:
///   `platform_session_id`, `platform_session_expires_at`), the row its reports belong to, so the worker
///   finds it as it finds any user's. Its password is never stored: the platform has no refresh token,
///   so when the session ends an administrator signs the account in again.
/// - `kiosks.account_platform_id`: that account's platform `account_id`, as the platform answered it.
enum Migration20KioskAccount: AppMigration {
    static let version = 20
    static let name = "kiosk dedicated account"

    static let sqlite = """
        ALTER TABLE kiosks ADD COLUMN account_email TEXT;
        ALTER TABLE kiosks ADD COLUMN account_platform_id TEXT;
        """

    static let postgres = """
        ALTER TABLE kiosks ADD COLUMN account_email text;
        ALTER TABLE kiosks ADD COLUMN account_platform_id text;
        """
}
