import Basics
import FoundationEssentials

/// `har users`: roles from the command line (REV-01). Works on the data folder's database directly, also
/// while `har serve` runs (WAL, one short transaction per change); the server reads roles on every
/// request, so a change applies from the user's next request. Audited as the operator `cli:$USER`.
enum UsersCommand {
    static let usage = """
        Usage:
          har users [--config FILE] list                      every user and role (and configured coordinators)
          har users [--config FILE] grant EMAIL coordinator|admin
          har users [--config FILE] confirm EMAIL             confirm the first sign-in of a pending grant
          har users [--config FILE] revoke EMAIL              back to volunteer

        A grant to an e-mail nobody has signed in with here is pending: it becomes a role at that e-mail's
        first sign-in when the platform says the account is verified, or once that first sign-in (listed
        here with its time and address) is confirmed with `confirm` or another `grant`.
        """

    static func main(_ arguments: [String]) -> Int32 {
        Command.runOnStores(arguments, usage: usage) { action, stores, configuration in
            try run(
                action, store: stores.review, configured: ReviewSettings.emails(configuration.coordinators),
                actor: Command.operatorActor, now: Date().timeIntervalSince1970)
        }
    }

    static func run(_ action: [String], store: any ReviewStore, configured: Set<String>, actor: String, now: Double)
        throws -> Int32
    {
        switch (action.first, action.count) {
        case ("list", 1):
            let grants = Dictionary(try store.grants().map { ($0.email.lowercased(), $0) }) { first, _ in first }
            var emails = Set(try store.userEmails().map { $0.lowercased() })
            emails.formUnion(grants.keys)
            emails.formUnion(configured)
            print("email\trole\tsource")
            for email in emails.sorted() {
                if let grant = grants[email] {
                    print("\(email)\t\(grant.role.rawValue)\(pendingNote(grant))\tgranted by \(grant.grantedBy)")
                } else if configured.contains(email) {
                    print("\(email)\tcoordinator (pending)\tconfiguration")
                } else {
                    print("\(email)\tvolunteer\t-")
                }
            }
            return 0
        case ("grant", 3):
            let email = action[1].lowercased()
            guard email.contains("@"), email.utf8.count <= 320 else {
                Command.printError("not an e-mail address: \(action[1])")
                return 64
            }
            guard let role = Role(rawValue: action[2]), role != .volunteer else {
                Command.printError("role must be coordinator or admin")
                return 64
            }
            try store.grant(email: email, role: role, actor: actor, now: now)
            if try store.storedRole(email: email) == nil {
                print("\(email) is \(role.rawValue), pending: nobody has signed in here with this e-mail yet")
            } else {
                print("\(email) is \(role.rawValue)")
            }
            return 0
        case ("confirm", 2):
            let email = action[1].lowercased()
            guard let role = try store.confirm(email: email, actor: actor, now: now) else {
                Command.printError("\(email) has no first sign-in waiting for confirmation")
                return 65
            }
            print("\(email) is \(role.rawValue)")
            return 0
        case ("revoke", 2):
            let email = action[1].lowercased()
            let before = try store.revoke(email: email, actor: actor, now: now)
            if configured.contains(email) {
                print("\(email) stays coordinator: named by the coordinators configuration (HAR_COORDINATORS)")
            } else {
                print(before == nil ? "\(email) had no role; nothing revoked" : "\(email) is volunteer")
            }
            return 0
        default:
            print(usage)
            return 64
        }
    }

    /// ", pending" and the first sign-in waiting for confirmation, when there is one.
    static func pendingNote(_ grant: RoleGrant) -> String {
        guard grant.isPending else { return "" }
        guard let at = grant.firstSignInAt else { return " (pending: no sign-in yet)" }
        let when = ISO8601.utc(seconds: at)
        return " (pending: first sign-in \(when) from \(grant.firstSignInAddress ?? "?"), to confirm)"
    }
}
