/// Migration 22: how a role came to be bound to its account (REV-10), in both dialects side by side.
///
/// - `user_roles.bound_how`: `verified` (the platform called the account verified when it signed in
///   with the granted e-mail), `confirmed` (an administrator confirmed that account by its id), or
///   `earlier` for the grants bound before this was recorded; `bound_by` (the administrator, or
///   `platform`) and `bound_at` say who and when.
/// - `user_roles.first_signin_email`: the e-mail exactly as typed at the recorded first sign-in, so that
///   the confirmation shows an `Ann@` that signed in for a grant to `ann@`.
enum Migration22RoleBinding: AppMigration {
    static let version = 22
    static let name = "how a role was bound"

    static let sqlite = """
        ALTER TABLE user_roles ADD COLUMN bound_how TEXT CHECK (bound_how IN ('verified', 'confirmed', 'earlier'));
        ALTER TABLE user_roles ADD COLUMN bound_by TEXT;
        ALTER TABLE user_roles ADD COLUMN bound_at REAL;
        ALTER TABLE user_roles ADD COLUMN first_signin_email TEXT;
        UPDATE user_roles SET bound_how = 'earlier' WHERE account_id IS NOT NULL;
        """

    static let postgres = """
        ALTER TABLE user_roles ADD COLUMN bound_how text CHECK (bound_how IN ('verified', 'confirmed', 'earlier'));
        ALTER TABLE user_roles ADD COLUMN bound_by text;
        ALTER TABLE user_roles ADD COLUMN bound_at double precision;
        ALTER TABLE user_roles ADD COLUMN first_signin_email text;
        UPDATE user_roles SET bound_how = 'earlier' WHERE account_id IS NOT NULL;
        """
}
